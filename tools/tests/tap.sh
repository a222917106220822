# SPDX-License-Identifier: GPL-2.0
# tools/tests/tap.sh - TAP helpers of the guest scripts (sourced).
# The sourcing script sets W, the directory for run's output.

n=0
fail=0
ok() {	# ok STATUS DESCRIPTION: one TAP result, ok when STATUS is 0
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}
diag() { sed 's/^/# /' "$@"; }
# uptime: the guest's seconds since boot (any sh: no $EPOCHREALTIME in dash)
uptime_s() { read -r up _ </proc/uptime && echo "$up"; }
run() {	# run WANT DESC CMD...: CMD must exit WANT; its output in $W/out, $W/err
	want=$1 desc=$2
	shift 2
	t0=$(uptime_s)
	"$@" >"$W/out" 2>"$W/err"
	got=$?
	# how long it took, in the guest's time (where the time goes)
	secs=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
	[ "$got" -eq "$want" ]
	r=$?
	ok $r "$desc (exit $got, $secs s)"
	[ $r -eq 0 ] || { diag "$W/out" | head -40; diag "$W/err"; }
	return $r
}
# skip_unless_ready: the whole script is one SKIP without /dev/prf or
# without the tools in $B (built on the host).
# tools_dir T: the tools' directory for a guest script in T: $PRF_BIN, else
# those built for this guest's kernel apart (another architecture's:
# build/$PRF_KERNEL/tools), else the host's tools/build.
tools_dir() {
	d=${PRF_BIN:-}
	if [ -z "$d" ] && [ -n "${PRF_KERNEL:-}" ] &&
		[ -d "$1/../../build/$PRF_KERNEL/tools" ]; then
		d=$1/../../build/$PRF_KERNEL/tools
	fi
	(cd "${d:-$1/../build}" 2>/dev/null && pwd)
}

skip_unless_ready() {
	if [ ! -c /dev/prf ]; then
		echo "1..0 # SKIP /dev/prf is missing (prf.ko not loaded)"
		exit 0
	fi
	if [ ! -x "$B/prf" ]; then
		echo "1..0 # SKIP $B/prf is missing: run make -C tools on the host first"
		exit 0
	fi
}

# daemon_snaps DIR N PID ARGS...: prf daemon -c /dev/null --dir DIR
# --interval 1 ARGS in the background until DIR holds N snapshots (90 s at
# most), then SIGTERM, and the workload PID killed.  0 when it stored them
# and exited 0 (its exit status in dst); its standard error in DIR.err.
daemon_snaps() {
	dsd=$1 dsn=$2 dsw=$3
	shift 3
	"$B/prf" daemon -c /dev/null --dir "$dsd" --interval 1 "$@" >"$dsd.out" 2>"$dsd.err" &
	dsp=$!
	dsi=0
	until snaps_ge "$dsd" "$dsn" || [ $dsi -ge 900 ]; do
		sleep 0.1
		dsi=$((dsi + 1))
	done
	kill "$dsp"
	wait "$dsp"
	dst=$?
	kill "$dsw" 2>/dev/null
	wait "$dsw" 2>/dev/null
	[ $dst -eq 0 ] && snaps_ge "$dsd" "$dsn"
}
# snaps_ge DIR N: a daemon's store DIR holds N snapshots or more.
snaps_ge() { [ "$("$B/prfpr" -l "$1" 2>/dev/null | awk 'NR == 1 { print $2 }')" -ge "$2" ] 2>/dev/null; }
# folded_of FILE RE: the samples of FILE's folded lines (STACK COUNT) whose
# stack matches RE (an awk regexp).
folded_of() {
	awk -v re="$2" '{ c = $NF; s = substr($0, 1, length($0) - length(c) - 1) }
		s ~ re { n += c } END { print n + 0 }' "$1"
}
