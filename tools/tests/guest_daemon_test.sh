#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prf daemon against the real device, inside a test guest with prf.ko loaded
# (selftests/vm/run --kernel debian-6.1 -- tools/tests/guest_daemon_test.sh):
# a private instance with the full kernel table, an interval a second into a
# store, /metrics and a pprof profile over HTTP (curl in the guest, or
# busybox's wget in an arm64 guest's initramfs), SIGHUP, the test module
# loaded and unloaded during the run (with PRF_TEST_KMOD), SIGTERM; /dev/prf
# left as it was.  Needs the tools built on the host first (make -C tools,
# or make -C tools ARCH=arm64 OUT=build/debian-6.1-arm64/tools).  TAP
# output; its cost (CPU time, RSS) said as comments.  The profile is read
# by go tool pprof where the guest has go (the host's root), else printed
# to the console in base64 ("# pprof-base64| " lines) for
# tools/tests/foreign_daemon_test.sh to read on the host.
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when built, else
# tools/build), PRF_DAEMON_PORT (default 19464); a leaner run (an arm64
# guest under TCG): PRF_DAEMON_DD_DIV=N divides the workloads' blocks by N,
# PRF_DAEMON_COST_SECS the seconds its cost is measured over (default 10).

T=$(cd "$(dirname "$0")" && pwd)
PORT=${PRF_DAEMON_PORT:-19464}
U=http://127.0.0.1:$PORT
W=$(mktemp -d /tmp/prf-guest-daemon.XXXXXX)
trap 'kill -9 $DPID 2>/dev/null; rm -rf "$W"' EXIT INT TERM
export LC_ALL=C
WORK='clear_user|rep_stos|_copy_to_iter|iov_iter_zero|read_zero|__clear_user|copy_user|memset|clear_page'

. "$(dirname "$0")/tap.sh"
# shellcheck source=tools/tests/waits.sh
. "$(dirname "$0")/waits.sh"
B=$(tools_dir "$T")
skip_unless_ready
# http [-X METHOD] URL FILE: the status code of a request, its body in
# FILE: curl's, or busybox's wget (which says the code with -S, and
# POSTs with --post-data).
if command -v curl >/dev/null 2>&1; then
	http() {
		m=GET
		[ "$1" != -X ] || { m=$2; shift 2; }
		curl -s -X "$m" -o "$2" -w '%{http_code}' "$1"
	}
elif wget --help 2>&1 | grep -q -- '--post-data'; then
	http() {
		post=
		[ "$1" != -X ] || { [ "$2" = GET ] || post=--post-data=; shift 2; }
		wget -S -O "$2" $post "$1" 2>&1 |
			sed -n 's|^ *HTTP/[0-9.]* \([0-9][0-9][0-9]\).*|\1|p' | tail -n 1
	}
else
	echo "1..0 # SKIP neither curl nor wget in the guest"
	exit 0
fi
# workload [BLOCKS [CPU]]: reads of /dev/zero, on CPU when given
workload() {
	${2:+taskset -c "$2"} dd if=/dev/zero of=/dev/null bs=64k \
		count="$((${1:-100000} / ${PRF_DAEMON_DD_DIV:-1}))" 2>/dev/null
}
COST=${PRF_DAEMON_COST_SECS:-10}
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
wait_for() { wait_until 60 "$@"; }	# TCG is slow

# The guest's loopback may be down (a bare initramfs), and a fresh Debian
# 12 root has neither iproute2 nor net-tools: busybox (the guests' own) has
# both.  Down, 127.0.0.1 takes the daemon's bind but no connection.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null ||
	busybox ip link set lo up 2>/dev/null
[ $(($(cat /sys/class/net/lo/flags) & 1)) = 1 ]
ok $? "the guest's loopback is up"
run 0 "prfstat off (a known state)" "$B/prfstat" -q off
# /dev/prf's own state (not the sample budget, which the daemon's instance uses)
dev_state() { "$B/prfstat" 2>&1 | grep -v '^budget'; }
dev_state >"$W/stat.before"

# The workload runs from before the daemon's start (the late start of a
# workload is the later module test's and the host tests' business: the
# --metrics-top series follow a running top).
# On the last CPU: its per-CPU series are checked below.
LAST=$(($(nproc) - 1))
workload 200000 $LAST &
WPID=$!
"$B/prf" daemon -c /dev/null --dir "$W/store" --interval 1 --listen "$PORT" \
	>"$W/d.out" 2>"$W/d.err" &
DPID=$!
serving() { [ "$(http "$U/metrics" /dev/null)" = 200 ]; }
wait_for serving
ok $? "prf daemon --listen $PORT: serving /metrics"
diag "$W/d.err"
wait $WPID
sleep 1.5	# an interval after the workload's end
http "$U/metrics" "$W/m1" >"$W/code"
[ "$(cat "$W/code")" = 200 ] && [ "$(val prf_collection_on "$W/m1")" = 1 ] &&
	grep -q '^prf_collection_info{device="/dev/prfclone",mode="time"' "$W/m1"
ok $? "GET /metrics: 200, ON, on a private instance in the time mode"
# The text format Prometheus reads (version 0.0.4): HELP and TYPE before
# each family's samples, every sample line NAME{LABELS} VALUE.
awk '/^# HELP / { help[$3] = 1; next }
	/^# TYPE / { if (!help[$3] || $4 !~ /^(counter|gauge|untyped)$/) exit 1
		type[$3] = 1; next }
	/^#/ || !NF { next }
	{ name = $1; sub(/\{.*/, "", name)
	  if (!type[name] || NF != 2 || $2 !~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/ ||
	      $1 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*",?)+\})?$/)
		exit 1
	  n++ }
	END { exit !(n > 0) }' "$W/m1"
ok $? "GET /metrics: the Prometheus text format ($(grep -c '^# TYPE' "$W/m1") families, $(grep -vc '^#' "$W/m1") samples)"
k1=$(val 'prf_samples_total{kind="kernel"}' "$W/m1")
[ -n "$k1" ] && [ "$k1" -gt 0 ]
ok $? "GET /metrics: kernel samples counted ($k1)"
grep '^prf_function_samples_total' "$W/m1" | sort -t' ' -k2 -n -r | head -5 >"$W/top5"
grep -Eq "$WORK" "$W/top5"
ok $? "GET /metrics: the workload's function among the 5 busiest series"
diag "$W/top5"
ncpu=$(grep -c '^prf_cpu_samples_total{cpu="[0-9]*",kind="kernel"} ' "$W/m1")
npos=$(awk -F'[-,]' '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
kl=$(val "prf_cpu_samples_total{cpu=\"$LAST\",kind=\"kernel\"}" "$W/m1")
k0=$(val 'prf_cpu_samples_total{cpu="0",kind="kernel"}' "$W/m1")
[ "$ncpu" = "$npos" ] && [ "$(grep -c '^prf_cpu_samples_total{' "$W/m1")" = $((5 * npos)) ] &&
	{ [ "$LAST" = 0 ] || [ "${kl:-0}" -gt "${k0:-0}" ]; }
ok $? "GET /metrics: per-CPU series for the $npos possible CPUs, the workload's CPU $LAST busiest in the kernel ($kl against CPU 0's $k0)"
nfn=$(grep -c '^prf_function_samples_total{function="[^[]' "$W/m1")
[ "$nfn" -le 200 ] && [ "$nfn" = "$(val prf_daemon_function_series "$W/m1")" ] &&
	[ "$(val prf_daemon_function_series_max "$W/m1")" = 200 ]
ok $? "GET /metrics: at most 4 x 50 function series, as prf_daemon_function_series says ($nfn)"

# A profile of 3 s while the workload runs.
workload 300000 &
wpid=$!
code=$(http "$U/debug/pprof/profile?seconds=3" "$W/p.pb.gz")
wait $wpid
[ "$code" = 200 ] && gzip -t "$W/p.pb.gz"
ok $? "GET /debug/pprof/profile?seconds=3: 200, gzipped ($code, $(wc -c <"$W/p.pb.gz") bytes)"
if command -v go >/dev/null 2>&1; then
	HOME=$W GOCACHE=$W/gocache GOTOOLCHAIN=local go tool pprof -top "$W/p.pb.gz" >"$W/p.top" 2>&1
	grep -Eq "$WORK" "$W/p.top"
	r=$?
	ok $r "go tool pprof -top: the workload's function in the profile"
	[ $r -eq 0 ] || diag "$W/p.top" | head -20
else
	# no go here (an arm64 guest's initramfs): the host reads it
	echo "# pprof-base64: begin"
	base64 "$W/p.pb.gz" | sed 's/^/# pprof-base64| /'
	echo "# pprof-base64: end"
fi
code=$(http "$U/debug/pprof/profile?seconds=0" /dev/null)
[ "$code" = 400 ]
ok $? "GET /debug/pprof/profile?seconds=0: 400 ($code)"
code=$(http -X POST "$U/metrics" /dev/null)
[ "$code" = 405 ]
ok $? "POST /metrics: 405 ($code)"

# SIGHUP: a fresh collection and table; the counters go on.
kill -HUP $DPID
wait_for grep -q "SIGHUP: settings re-read" "$W/d.err"
workload 50000
sleep 1.5
http "$U/metrics" "$W/m2" >/dev/null
k2=$(val 'prf_samples_total{kind="kernel"}' "$W/m2")
[ "$(val prf_daemon_table_loads_total "$W/m2")" = 2 ] && [ "$k2" -gt "$k1" ]
ok $? "SIGHUP: the table loaded again, kernel samples still growing ($k1 then $k2)"

# The table follows the modules: the test module loaded during the run is
# counted under its own function (prf_test_kmod_spin) once the daemon has
# switched tables; unloaded, the daemon switches again.
if [ -n "${PRF_TEST_KMOD:-}" ] && [ ! -e /proc/prf_test_kmod ]; then
	nsw() { grep -c "modules changed: table reloaded" "$W/d.err"; }
	insmod "$PRF_TEST_KMOD"
	ok $? "insmod prf_test_kmod.ko during the daemon's run"
	wait_for sh -c "[ \$(grep -c 'modules changed: table reloaded' '$W/d.err') -ge 1 ]"
	ok $? "the daemon saw the module loaded: table reloaded ($(grep 'modules changed' "$W/d.err" | head -1 | sed 's/.*changed: //'))"
	# A series counts from the interval after the one that made it: the
	# module spins until its function has one, then 3 s more.
	KS='prf_function_samples_total{function="prf_test_kmod_spin",module="prf_test_kmod"}'
	has_series() { http "$U/metrics" "$W/mk" >/dev/null && grep -q "^$KS " "$W/mk"; }
	i=0
	while [ $i -lt 10 ] && ! has_series; do
		echo 2000 >/proc/prf_test_kmod
		i=$((i + 1))
	done
	echo 3000 >/proc/prf_test_kmod
	# The interval that holds the spin is served once the daemon has
	# read it: 2.5 s, or up to 20 s more on a guest the host starves (a
	# daemon on arm64 beside three other lanes on two cores served
	# nothing of it after 2.5 s).
	sleep 2.5
	j=0
	while :; do
		http "$U/metrics" "$W/mk" >/dev/null
		s=$(val "$KS" "$W/mk")
		{ [ -n "$s" ] && [ "$s" -gt 0 ]; } || [ $j -ge 20 ] && break
		sleep 1
		j=$((j + 1))
	done
	[ -n "$s" ] && [ "$s" -gt 0 ]
	r=$?
	ok $r "GET /metrics: the module loaded during the run counted under its own function ($s samples of the last 3 s spinning, served 2.5 + $j s after it; $i spins of 2 s before its series)"
	[ $r -eq 0 ] || grep '^prf_function_samples_total' "$W/mk" | sort -t' ' -k2 -n -r | head -5 | diag
	n0=$(nsw)
	rmmod prf_test_kmod
	ok $? "rmmod prf_test_kmod"
	wait_for sh -c "[ \$(grep -c 'modules changed: table reloaded' '$W/d.err') -gt $n0 ]"
	ok $? "the daemon saw the module unloaded: table reloaded again ($(nsw) switches)"
	http "$U/metrics" "$W/mk2" >/dev/null
	sw=$(val prf_daemon_table_switch_seconds_total "$W/mk2")
	awk -v s="$sw" 'BEGIN { exit !(s > 0 && s < 2) }'
	ok $? "GET /metrics: the switches' time OFF counted ($sw s for $(val prf_daemon_module_changes_total "$W/mk2"))"
	grep 'modules changed' "$W/d.err" | diag
fi

# Its cost over 10 s (COST) of 1 s intervals with the full table.
t0=$(ticks $DPID)
sleep "$COST"
t1=$(ticks $DPID)
i=0
while [ $i -lt 5 ]; do	# RSS between intervals, 5 times
	sleep 0.5
	grep VmRSS /proc/$DPID/status | tr -s ' \t' ' '
	i=$((i + 1))
done | tr '\n' ' ' | sed 's/^/# /; s/$/\n/'

hz=$(getconf CLK_TCK 2>/dev/null || echo 100)	# busybox has no getconf
echo "# prf daemon: $((t1 - t0)) ticks of $hz/s in $COST s at 1 s intervals; $(grep -E 'VmRSS|VmHWM' /proc/$DPID/status | tr -s ' \t' ' ' | tr '\n' ' ')"
grep "collecting on" "$W/d.err" | head -1 | diag

dev_state >"$W/stat.after"
cmp -s "$W/stat.before" "$W/stat.after"
r=$?
ok $r "/dev/prf left as it was (prfstat the same)"
[ $r -eq 0 ] || diff "$W/stat.before" "$W/stat.after" | diag

kill -TERM $DPID
wait $DPID
st=$?
DPID=
ok $st "SIGTERM: exit 0"
run 0 "prfpr --all DIR: the whole store reads" "$B/prfpr" --all "$W/store"
awk '/^ +samples +%/ { on = 1; next } on && /^$/ { exit } on' "$W/out" | head -5 >"$W/rtop5"
grep -Eq "$WORK" "$W/rtop5"
r=$?
ok $r "prfpr --all DIR: the workload's function among the 5 busiest"
[ $r -eq 0 ] || diag "$W/out" | head -30
run 0 "prfpr --list DIR" "$B/prfpr" --list "$W/store"
# one snapshot a second over the span the store's own times give (to the
# second): judged against that span, not a fixed count, since a starved
# guest runs fewer seconds of the test's sleeps than the host's clock
nsn=$(awk 'NR == 1 { print $2 }' "$W/out")
span=$(awk 'NR > 2 { split($3, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]
		     if (NR == 3) f = s; l = s }
	    END { d = l - f; if (d < 0) d += 86400; print d + 0 }' "$W/out")
[ "$nsn" -ge 3 ] && [ $((nsn - 1)) -le $((span + 1)) ] && [ $((2 * (nsn - 1))) -ge "$span" ]
ok $? "the store: an interval a second ($nsn snapshots over $span s)"
echo "# store: $(du -sk "$W/store" | cut -f1) KiB for $nsn snapshots of the full table"

echo "1..$n"
[ "$fail" -eq 0 ]
