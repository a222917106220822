# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of prf daemon: its store (intervals written, retention by age
# and size, a torn tail, SIGTERM's last interval, SIGKILL at random points),
# its HTTP (/metrics, /debug/pprof/profile, bad requests) and its systemd
# unit.  The device is the LD_PRELOAD stand-in (tests/fakeprf.c), its
# counters growing at each read (FAKEPRF_GROW).
#
# Sourced by run_host_tests.sh (its ok, diag, $B, $D, $W), or alone:
#   sh tools/tests/daemon_tests.sh tools/build
# (then the fixtures' directory and TAP helpers are found here).

if ! command -v ok >/dev/null 2>&1; then
	B=$(cd "${1:?usage: daemon_tests.sh BUILDDIR}" && pwd)
	T=$(cd "$(dirname "$0")" && pwd)
	D=$T/data
	W=$(mktemp -d /tmp/prf-daemon-test.XXXXXX)
	trap 'for p in $(cat "$W"/*.pid 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; rm -rf "$W"' EXIT INT TERM
	export TZ=UTC LC_ALL=C
	. "$T/tap.sh"
	skip() { ok 0 "$1 # SKIP $2"; }
	DT_ALONE=1
fi
T=${T:-$(cd "$(dirname "$0")" && pwd)}
# shellcheck source=tools/tests/waits.sh
. "$T/waits.sh"

DW=$W/daemon
mkdir -p "$DW"
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 6\naddrs 0\n' >"$DW/prf"
cp "$DW/prf" "$DW/prf.before"
DKS="--kallsyms $D/kallsyms.txt --proc-modules $D/modules.txt"
DFK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$DW/prf FAKEPRF_CLONE=$DW/clone FAKEPRF_LOG=$DW/log FAKEPRF_GROW=1"

# dstart NAME ARGS...: the daemon in the background on store $DW/NAME
# (-c /dev/null: no configuration file), its pid in $DW/NAME.pid.
dstart() {
	name=$1
	shift
	$DFK "$B/prf" daemon -c /dev/null $DKS --dir "$DW/$name" "$@" \
		>>"$DW/$name.out" 2>>"$DW/$name.err" &
	echo $! >"$DW/$name.pid"
}
dpid() { cat "$DW/$1.pid"; }
# dstop NAME SIGNAL: the signal, then the daemon's exit status (127: hung, killed)
dstop() {
	pid=$(dpid "$1")
	kill -"$2" "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		return 127
	fi
	wait "$pid"
}
# nsnaps DIR: the snapshots prfpr reads in a store (-1: unreadable)
nsnaps() {
	"$B/prfpr" -l "$1" 2>/dev/null | awk 'NR == 1 && / snapshots?,/ { print $2; found = 1 } END { if (!found) print -1 }'
}
# wait_for COND-COMMAND...: up to 10 s
wait_for() { wait_until 10 "$@"; }
has_seg() { ls "$1"/seg-*.prf >/dev/null 2>&1; }	# has_seg DIR
has_snaps() { [ "$(nsnaps "$1")" -eq "$2" ]; }	# has_snaps DIR N
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- the store ----
dstart basic --interval 1
sleep 3.5
n_before=$(nsnaps "$DW/basic")
dstop basic TERM
ok $? "prf daemon: SIGTERM exits 0"
n_after=$(nsnaps "$DW/basic")
[ "$n_before" -ge 3 ] && [ "$n_after" -ge "$n_before" ]
ok $? "prf daemon --interval 1: a snapshot at the start and one a second ($n_before after 3.5 s, $n_after at the end)"
grep -q "^clone LOAD 11$" "$DW/log" && grep -q "^clone SETSTATE 1$" "$DW/log" && ! grep -qv '^clone ' "$DW/log"
ok $? "prf daemon: a private instance, its table loaded, ON; no call on /dev/prf"
cmp -s "$DW/prf" "$DW/prf.before"
ok $? "prf daemon: /dev/prf's state untouched"
"$B/prfpr" -a "$DW/basic" >"$DW/basic.rep" 2>"$DW/basic.rep.err"
ok $? "prfpr DIR: reads the store, first to last snapshot"
grep -q "kvm_b" "$DW/basic.rep" && [ ! -s "$DW/basic.rep.err" ]
ok $? "prfpr DIR: the functions counted, nothing said on stderr"
diag "$DW/basic.rep.err"

# prfpr --since/--until: a time range of the store, its first and last
# snapshots (known from --json's time_ns) reported.
tns() { "$B/prfpr" --json --from 1 --to "$2" "$1" 2>/dev/null |
	sed -n 's/.*"to": {.*"time_ns": \([0-9]*\)}.*/\1/p'; }
t2=$(tns "$DW/basic" 2)
t4=$(tns "$DW/basic" 4)
at() { echo "@$(($1 / 1000000000)).$(printf %09d $(($1 % 1000000000)))"; }
"$B/prfpr" --from 2 --to 4 "$DW/basic" >"$DW/range.want" 2>&1
"$B/prfpr" --since "$(at "$t2")" --until "$(at "$t4")" "$DW/basic" >"$DW/range.got" 2>&1
[ -n "$t2" ] && [ -n "$t4" ] && cmp -s "$DW/range.want" "$DW/range.got"
r=$?
ok $r "prfpr --since @T2 --until @T4 DIR: the report of snapshots 2 to 4 (their times)"
[ $r -eq 0 ] || diag "$DW/range.got"
# ISO 8601: with a fraction and Z; with an offset (+02:00, the time 2 h on)
s2=$((t2 / 1000000000))
s4=$((t4 / 1000000000))
iso2="$(date -u -d "@$s2" +%Y-%m-%dT%H:%M:%S).$(printf %09d $((t2 % 1000000000)))Z"
iso4="$(date -u -d "@$((s4 + 7200))" +%Y-%m-%dT%H:%M:%S).$(printf %09d $((t4 % 1000000000)))+02:00"
"$B/prfpr" --since "$iso2" --until "$iso4" "$DW/basic" >"$DW/range.got" 2>&1
cmp -s "$DW/range.want" "$DW/range.got"
r=$?
ok $r "prfpr --since $iso2 --until $iso4: the same (ISO 8601, Z and +02:00)"
[ $r -eq 0 ] || diag "$DW/range.got"
# a nanosecond after snapshot 2: the range starts at 3
"$B/prfpr" --from 3 --to 4 "$DW/basic" >"$DW/range.want3" 2>&1
"$B/prfpr" --since "$(at $((t2 + 1)))" --until "$(at "$t4")" "$DW/basic" >"$DW/range.got" 2>&1
cmp -s "$DW/range.want3" "$DW/range.got"
ok $? "prfpr --since: a snapshot before it left out (T2 + 1 ns: snapshots 3 to 4)"
"$B/prfpr" -a "$DW/basic" >"$DW/range.all" 2>&1
"$B/prfpr" --since -1h "$DW/basic" >"$DW/range.got" 2>&1
cmp -s "$DW/range.all" "$DW/range.got"
ok $? "prfpr --since -1h DIR: the whole store (as --all)"
"$B/prfpr" --until -1h "$DW/basic" >"$DW/range.got" 2>"$DW/range.err"
[ $? -eq 1 ] && grep -q "0 snapshots from the start to .*: a report needs two (the file's" "$DW/range.err"
ok $? "prfpr --until -1h DIR: fewer than two snapshots in the range: exit 1, said"
diag "$DW/range.err"
"$B/prfpr" --since -1h --from 2 "$DW/basic" >/dev/null 2>&1
[ $? -eq 2 ]
r=$?
"$B/prfpr" --since yesterday "$DW/basic" >/dev/null 2>"$DW/range.err"
[ $? -eq 2 ] && grep -q "since yesterday: want" "$DW/range.err"
ok $(( r | $? )) "prfpr --since: with --from, or a bad TIME, a usage error"
"$B/prfpr" -l --since "$(at "$t2")" --until "$(at "$t4")" "$DW/basic" >"$DW/range.l"
[ "$(awk 'NR > 2 { print $1 }' "$DW/range.l" | tr '\n' ' ')" = "2 3 4 " ]
ok $? "prfpr --list --since --until: the snapshots in the range (2 3 4)"
"$B/prfpr" --html "$DW/range.want.html" --from 2 --to 4 "$DW/basic" &&
	"$B/prfpr" --html "$DW/range.got.html" --since "$(at "$t2")" --until "$(at "$t4")" "$DW/basic" &&
	cmp -s "$DW/range.want.html" "$DW/range.got.html" && grep -q "snapshots 2 to 4" "$DW/range.got.html"
ok $? "prfpr --html --since --until: the page of snapshots 2 to 4"

# SIGTERM's last interval: with an interval of an hour, the store holds
# the first snapshot alone until SIGTERM adds the last.
dstart term --interval 1h
wait_for has_seg "$DW/term"
n1=$(nsnaps "$DW/term")
dstop term TERM
st=$?
n2=$(nsnaps "$DW/term")
[ "$st" -eq 0 ] && [ "$n1" -eq 1 ] && [ "$n2" -eq 2 ]
ok $? "prf daemon: SIGTERM writes a last interval ($n1 then $n2 snapshots, exit $st)"
dstart term --interval 1h
wait_for has_snaps "$DW/term" 3
dstop term INT
st=$?
[ "$st" -eq 0 ] && [ "$(nsnaps "$DW/term")" -eq 4 ]
ok $? "prf daemon: SIGINT the same; a restart appends to the store (4 snapshots)"
"$B/prfpr" --from 2 --to 3 "$DW/term" >/dev/null 2>"$DW/term.err"
ok $? "prfpr DIR: a pair across a restart of the daemon reports (the totals go on)"
diag "$DW/term.err"

# Retention: 1 s intervals, 2 s segments, 6 s kept, 2 KiB at most.
dstart ret --interval 1 --segment 2 --retain 6 --max-size 100M
sleep 12
now=$(date +%s)
dstop ret TERM
ok $? "prf daemon --retain 6: exits 0"
oldest=$(ls "$DW/ret" | sed -n 's/^seg-0*\([0-9]*\)\.prf$/\1/p' | head -n 1)
nseg=$(ls "$DW/ret" | grep -c '^seg-')
[ -n "$oldest" ] && [ $((now - oldest)) -le 10 ] && [ "$nseg" -le 6 ]
ok $? "prf daemon --retain 6 --segment 2: segments of the last 6 s (+ one segment) kept ($nseg, the oldest $((now - oldest)) s old)"
thin=1
for f in $(ls "$DW/ret"/seg-*.prf | head -n 2); do
	s=$(basename "$f" .prf)
	s=${s#seg-}
	s=$(echo "$s" | sed 's/^0*//')
	if [ $((now - s)) -ge 6 ]; then
		[ "$("$B/prfpr" -l "$f" | awk 'NR == 1 { print $2 }')" = 1 ] || thin=0
	fi
done
ok $([ $thin -eq 1 ]; echo $?) "prf daemon: segments past half the retention thinned to one snapshot"
total=$(nsnaps "$DW/ret")
allok=0
i=1
while [ "$i" -lt "$total" ]; do
	j=$((i + 1))
	while [ "$j" -le "$total" ]; do
		"$B/prfpr" --from $i --to $j "$DW/ret" >/dev/null 2>&1 || { allok=1; echo "# prfpr --from $i --to $j failed"; }
		j=$((j + 1))
	done
	i=$((i + 1))
done
[ "$total" -ge 2 ]
ok $(( $? | allok )) "prfpr DIR: every pair of the $total snapshots kept reports"
# By size: a segment a second and 1 byte allowed: the store keeps the
# segment being written alone.
dstart size --interval 1 --segment 1 --max-size 1
sleep 4.5
dstop size TERM
nseg=$(ls "$DW/size" | grep -c '^seg-')
[ "$nseg" -le 2 ]
ok $? "prf daemon --max-size 1: the oldest segments deleted ($nseg left)"

# A torn tail: the last record cut short, as by a power cut mid-write.
cp -r "$DW/basic" "$DW/torn"
last=$(ls "$DW/torn"/seg-*.prf | tail -n 1)
tn=$(nsnaps "$DW/torn")
truncate -s -9 "$last"
"$B/prfpr" -l "$DW/torn" >"$DW/torn.out" 2>"$DW/torn.err"
st=$?
[ "$st" -eq 0 ] && [ "$(awk 'NR == 1 { print $2 }' "$DW/torn.out")" -eq $((tn - 1)) ]
ok $? "prfpr DIR: a torn last record skipped, the snapshots before it read ($((tn - 1)) of $tn)"
grep -q "is torn.*at most the interval being written" "$DW/torn.err"
ok $? "prfpr DIR: the torn record said"
diag "$DW/torn.err"
dstart torn --interval 1h
wait_for has_snaps "$DW/torn" "$tn"
dstop torn TERM
[ "$(nsnaps "$DW/torn")" -eq $((tn + 1)) ] && grep -q "is torn" "$DW/torn.err"
r=$?
ok $r "prf daemon on a torn store: says so, goes on from the last whole snapshot ($(nsnaps "$DW/torn") after $tn)"
[ $r -eq 0 ] || diag "$DW/torn.err"

# ---- compact interval records: deltas (tools/SNAPSHOT.md, record type 5) ----
# The daemon writes each interval after a segment's first as the counters
# that grew since the one before.  The same snapshots written as full
# records (unit_test --densify) give byte for byte the same reports.
mkdir -p "$DW/sp.delta" "$DW/sp.full"
cp "$(ls "$DW/basic"/seg-*.prf | head -n 1)" "$DW/sp.delta/s.prf"
"$B/unit_test" --densify "$DW/sp.delta/s.prf" "$DW/sp.full/s.prf" >"$DW/sp.out" 2>"$DW/sp.err"
st=$?
[ $st -eq 0 ] && grep -q "^full 1 delta [1-9][0-9]* .* last delta$" "$DW/sp.out" && [ ! -s "$DW/sp.err" ]
ok $? "prf daemon: a segment's first interval a full record, the others deltas ($(cat "$DW/sp.out"))"
diag "$DW/sp.err"
same=0
for a in "-a" "-l" "--from 2 --to 3" "--json -a" "--since-load --from 3" "-a --pprof p.pb.gz" \
	"-a --html p.html"; do
	for k in delta full; do
		rm -f "$DW/sp.$k/p.pb.gz" "$DW/sp.$k/p.html"
		# shellcheck disable=SC2086
		(cd "$DW/sp.$k" && "$B/prfpr" $a s.prf >rep 2>&1; echo "exit $?" >>"$DW/sp.$k/rep")
		[ ! -f "$DW/sp.$k/p.pb.gz" ] || cat "$DW/sp.$k/p.pb.gz" >>"$DW/sp.$k/rep"
		[ ! -f "$DW/sp.$k/p.html" ] || cat "$DW/sp.$k/p.html" >>"$DW/sp.$k/rep"
	done
	if ! cmp -s "$DW/sp.delta/rep" "$DW/sp.full/rep"; then
		same=1
		diag "prfpr $a: the delta and full forms differ"
	fi
done
ok $same "prfpr -a, -l, ranges, --json, --since-load, --pprof, --html: the same bytes from delta and full records"
[ "$(wc -c <"$DW/sp.delta/s.prf")" -lt "$(wc -c <"$DW/sp.full/s.prf")" ]
ok $? "prf daemon: the delta segment smaller ($(wc -c <"$DW/sp.delta/s.prf") bytes, full: $(wc -c <"$DW/sp.full/s.prf"))"
# With stacks, each interval's extension record after a segment's first is
# written against the one before (type 6): the stacks that grew, the new
# ones and their new frames.  Read back, the same reports as full records.
dstart spx --interval 1 --stacks 4
wait_for has_snaps "$DW/spx" 4
dstop spx TERM
mkdir -p "$DW/spx.full"
"$B/unit_test" --densify "$(ls "$DW/spx"/seg-*.prf | head -n 1)" "$DW/spx.full/s.prf" \
	>"$DW/spx.sp" 2>"$DW/spx.sperr"
st=$?
[ $st -eq 0 ] && [ ! -s "$DW/spx.sperr" ] &&
	awk '{ exit !($1 == "full" && $2 == 1 && $4 >= 3 && $8 == $4) }' "$DW/spx.sp"
ok $? "prf daemon --stacks: every interval's stacks after the segment's first written against the one before ($(cat "$DW/spx.sp"))"
diag "$DW/spx.sperr"
cp "$(ls "$DW/spx"/seg-*.prf | head -n 1)" "$DW/spx/s.prf.d"
same=0
for a in "--folded -a" "--folded --from 2 --to 4" "--callers gamma --from 1 --to 3" \
	"-a --pprof p.pb.gz"; do
	for k in spx spx.full; do
		rm -f "$DW/$k/p.pb.gz"
		f=s.prf
		[ "$k" = spx.full ] || f=s.prf.d
		# shellcheck disable=SC2086
		(cd "$DW/$k" && "$B/prfpr" $a "$f" >rep 2>&1; echo "exit $?" >>rep)
		[ ! -f "$DW/$k/p.pb.gz" ] || cat "$DW/$k/p.pb.gz" >>"$DW/$k/rep"
	done
	if ! cmp -s "$DW/spx/rep" "$DW/spx.full/rep" || ! grep -q "exit 0" "$DW/spx/rep"; then
		same=1
		diag "prfpr $a: the stacks' delta and full forms differ"
	fi
done
# and not the same nothing: a stack of the stand-in's, named
"$B/prfpr" --folded -a "$DW/spx/s.prf.d" | grep -q "^startup_64;kvm_b [1-9][0-9]*$" || same=1
ok $same "prfpr --folded, --callers, --pprof: the same bytes from the stacks written against the interval before and from full records"
rm -f "$DW/spx/s.prf.d"
[ "$(cat "$DW/spx"/seg-*.prf | wc -c)" -lt "$(wc -c <"$DW/spx.full/s.prf")" ]
ok $? "prf daemon --stacks: the segment smaller ($(cat "$DW/spx"/seg-*.prf | wc -c) bytes, full: $(wc -c <"$DW/spx.full/s.prf"))"
# The restarted store (term, above): full after each start, the totals go on.
"$B/prfpr" --from 1 --to 4 "$DW/term" >/dev/null 2>"$DW/term.err"
ok $? "prfpr DIR: a pair across a restart over delta records reports (the totals go on)"
"$B/unit_test" --densify "$(ls "$DW/term"/seg-*.prf | head -n 1)" "$DW/term.full" >"$DW/term.sp" 2>&1
grep -q "^full 2 delta 2 " "$DW/term.sp"
ok $? "prf daemon: a restart starts with a full record ($(cat "$DW/term.sp"))"

# Bytes an interval: a 60,000-function table, a workload of 100 busy
# functions and 100 others hit once every half second (FAKEPRF_PCS_FILE);
# each delta record under 2,000 bytes, where full records grow with every
# function the totals ever touched (FAKEPRF_GROW's dense worst case, every
# counter growing every interval, is not this test's).
awk 'BEGIN { print "ffffffff81000000 T _text"
	for (i = 0; i < 60000; i++) printf "ffffffff81%06x T big_fn_%05d\n", 256 + i * 64, i
	print "ffffffff81400000 T _etext" }' \
	>"$DW/sz.kallsyms"
: >"$DW/sz.modules"
BIGW=$DW/szdev
mkdir -p "$BIGW"
printf 'on 0\nhz 100\nflags 0\nmax 1048576\nversion 6\naddrs 0\n' >"$BIGW/prf"
# big_pcs N: 100 functions spread over the table, each grown by its rank,
# and at each step N 100 others hit once (2 samples) and never again
big_pcs() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < 100; i++)
		printf "%sffffffff81%06x:%d", i ? "," : "", 256 + (i * 593) * 64 + 4, n * (i + 1) * 3
		for (i = 0; i < n * 100; i++)
			printf ",ffffffff81%06x:2", 256 + (50001 + i) * 64 }' \
		>"$BIGW/pcs.tmp"
	mv "$BIGW/pcs.tmp" "$BIGW/pcs"
}
big_pcs 1
env LD_PRELOAD="$B/fakeprf.so" FAKEPRF="$BIGW/prf" FAKEPRF_CLONE="$BIGW/clone" \
	FAKEPRF_LOG="$BIGW/log" FAKEPRF_PCS_FILE="$BIGW/pcs" "$B/prf" daemon -c /dev/null \
	--kallsyms "$DW/sz.kallsyms" --proc-modules "$DW/sz.modules" --dir "$DW/sz" \
	--interval 1 >"$DW/sz.out" 2>"$DW/sz.err" &
echo $! >"$DW/sz.pid"
bn=2
# 3 s of changing workloads, longer on a busy host until 4 intervals (and
# the last at SIGTERM) are stored: 20 s at most
while [ $bn -le 7 ] || { [ "$(nsnaps "$DW/sz")" -lt 4 ] && [ $bn -le 40 ]; }; do
	sleep 0.5
	big_pcs $bn
	bn=$((bn + 1))
done
dstop sz TERM
"$B/unit_test" --densify "$(ls "$DW/sz"/seg-*.prf | head -n 1)" "$DW/sz.full" >"$DW/sz.sp" 2>&1
nd=$(awk '{ print $4 }' "$DW/sz.sp")
db=$(awk '{ print $6 }' "$DW/sz.sp")
[ "${nd:-0}" -ge 3 ] && [ $((db / nd)) -lt 2000 ]
ok $? "prf daemon: a 60,000-function table, 100 functions busy: under 2,000 bytes a delta interval ($(cat "$DW/sz.sp"))"
fb=$(($(wc -c <"$DW/sz.full") - $(wc -c <"$(ls "$DW/sz"/seg-*.prf | head -n 1)")))
[ "$fb" -gt 0 ]
ok $? "prf daemon: the same intervals as full records take $fb bytes more"
[ "$(nsnaps "$DW/sz")" -eq $((nd + 1)) ] && "$B/prfpr" -a "$DW/sz" >"$DW/sz.rep" 2>&1 &&
	grep -q big_fn_58707 "$DW/sz.rep"
ok $? "prfpr DIR: the big store read (big_fn_58707 counted)"
diag "$DW/sz.err"

set +x
# SIGKILL at random points: each run loses at most the interval in flight,
# and the store always reads back.
runs=0
expect=0
readable=0
: >"$DW/kill.times"
while [ $runs -lt 6 ]; do
	t=$(awk -v s=$$$runs 'BEGIN { srand(s); printf "%.2f", 1 + rand() * 2 }')
	dstart kill --interval 1
	sleep "$t"
	dstop kill KILL
	# a snapshot at the start, then one a second: floor(t) + 1, less the one in flight
	expect=$((expect + ${t%.*}))
	"$B/prfpr" -l "$DW/kill" >/dev/null 2>&1 || readable=1
	runs=$((runs + 1))
	echo "$t" >>"$DW/kill.times"
done
got=$(nsnaps "$DW/kill")
[ "$readable" -eq 0 ] && [ "$got" -ge "$expect" ]
ok $? "prf daemon, SIGKILL 6 times at random: readable each time, $got snapshots (>= $expect)"
bad=0
i=1
while [ "$i" -lt "$got" ]; do
	"$B/prfpr" --from $i --to $((i + 1)) "$DW/kill" >/dev/null 2>"$DW/kill.rep.err" ||
		{ bad=1; diag "$DW/kill.rep.err"; }
	i=$((i + 1))
done
"$B/prfpr" -a "$DW/kill" >/dev/null 2>"$DW/kill.rep.err" || { bad=1; diag "$DW/kill.rep.err"; }
ok $bad "prfpr DIR: each interval of the killed runs and their whole span report (the totals never went back)"

# ---- a failing store: a full disk, a quota, an I/O error ----
# ticks_ok DIR: the store reads with nothing said on stderr, its ticks never
# go back, and each pair of consecutive snapshots reports.
ticks_ok() {
	$X "$B/prfpr" -l "$1" >"$1.l" 2>"$1.l.err" && [ ! -s "$1.l.err" ] || return 1
	awk 'NR > 2 { if ($6 + 0 < last) exit 1; last = $6 + 0 }' "$1.l" || return 1
	k=1
	nk=$(awk 'NR == 1 { print $2 }' "$1.l")
	while [ "$k" -lt "$nk" ]; do
		$X "$B/prfpr" --from $k --to $((k + 1)) "$1" >/dev/null 2>>"$1.l.err" || return 1
		k=$((k + 1))
	done
}
# nfiles DIR: its segment files
nfiles() { ls "$1" | grep -c '^seg-'; }
X=
if command -v curl >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	# Injected (fakeprf's FAKEPRF_STORE_FAIL): a short write then ENOSPC,
	# EDQUOT, EIO, an fsync's EIO; each for 2 intervals, then the errors
	# gone.  Nothing half-written stays, no record whose fsync failed, the
	# failure said once an episode, the totals go on.
	PORT=$(free_port)
	rm -f "$DW/werr.ctl"
	FAKEPRF_STORE_FAIL=$DW/werr.ctl dstart werr --interval 1 --segment 1h --listen "$PORT"
	wait_for has_snaps "$DW/werr" 2
	bad=0
	for mode in "write ENOSPC 100" "write EDQUOT" "write EIO" "fsync EIO"; do
		n0=$(nsnaps "$DW/werr")
		sz0=$(cat "$DW/werr"/seg-*.prf | wc -c)
		echo "$mode" >"$DW/werr.ctl"
		sleep 2.5
		n1=$(nsnaps "$DW/werr")
		sz1=$(cat "$DW/werr"/seg-*.prf | wc -c)
		curl -s -o "$DW/werr.m" "http://127.0.0.1:$PORT/metrics"
		f=$(val prf_daemon_store_write_failing "$DW/werr.m")
		rm -f "$DW/werr.ctl"
		wait_for has_snaps "$DW/werr" $((n1 + 1)) || { bad=1; echo "# $mode: no interval after"; }
		[ "$n1" -eq "$n0" ] && [ "$sz1" -eq "$sz0" ] && [ "$f" = 1 ] && kill -0 "$(dpid werr)" ||
			{ bad=1; echo "# $mode: $n0 -> $n1 snapshots, $sz0 -> $sz1 bytes, failing '$f'"; }
	done
	curl -s -o "$DW/werr.m" "http://127.0.0.1:$PORT/metrics"
	dstop werr TERM
	st=$?
	ok $(( bad | st )) "prf daemon: a store failing (short write + ENOSPC, EDQUOT, EIO, fsync EIO): no snapshot or byte added while it fails, not even a record whose fsync failed; intervals again after; exit $st"
	e=$(val prf_daemon_store_errors_total "$DW/werr.m")
	f=$(val prf_daemon_store_write_failing "$DW/werr.m")
	[ -n "$e" ] && [ "$e" -ge 8 ] && [ "$f" = 0 ]
	ok $? "/metrics: prf_daemon_store_errors_total counts the intervals not written ($e >= 8), prf_daemon_store_write_failing back to 0"
	nsay=$(grep -c "cannot be written" "$DW/werr.err")
	nback=$(grep -c "written again" "$DW/werr.err")
	[ "$nsay" -eq 4 ] && [ "$nback" -eq 4 ]
	ok $? "prf daemon: each failing episode said once, and its end ($nsay and $nback of 4)"
	diag "$DW/werr.err"
	ticks_ok "$DW/werr"
	ok $? "prfpr DIR: the store after the failures reads cleanly, its totals never go back"
	diag "$DW/werr.l.err"
else
	skip "prf daemon: a store failing" "curl or python3 missing"
fi

# A real full disk: a tmpfs of 256 KiB in a private mount namespace (held
# by a sleeping process; commands enter it with nsenter), filled by a
# filler file, then the filler removed.
if [ "$(id -u)" = 0 ] && command -v curl >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 &&
	command -v python3 >/dev/null 2>&1 &&
	mkdir -p "$DW/fullns" && { unshare -m --propagation private sleep 600 & echo $! >"$DW/ns.pid"; } &&
	sleep 0.3 && nsenter -t "$(cat "$DW/ns.pid")" -m mount -t tmpfs -o size=256k tmpfs "$DW/fullns"; then
	X="nsenter -t $(cat "$DW/ns.pid") -m"
	FS=$DW/fullns
	PORT=$(free_port)
	$X $DFK "$B/prf" daemon -c /dev/null $DKS --dir "$FS/full" --interval 1 --segment 1 \
		--listen "$PORT" >"$DW/full.out" 2>"$DW/full.err" &
	echo $! >"$DW/full.pid"
	wait_for $X sh -c "[ \$(ls $FS/full 2>/dev/null | grep -c '^seg-') -ge 2 ]"
	$X dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null
	nf0=$($X ls "$FS/full" | grep -c '^seg-')
	sleep 3.5
	nf1=$($X ls "$FS/full" | grep -c '^seg-')
	curl -s -o "$DW/full.m1" "http://127.0.0.1:$PORT/metrics"
	$X "$B/prfpr" -l "$FS/full" >"$DW/full.l1" 2>"$DW/full.l1.err"
	rd=$?
	e1=$(val prf_daemon_store_errors_total "$DW/full.m1")
	f1=$(val prf_daemon_store_write_failing "$DW/full.m1")
	kill -0 "$(dpid full)" && [ "$nf1" -eq "$nf0" ] && [ -n "$e1" ] && [ "$e1" -ge 2 ] &&
		[ "$f1" = 1 ] && [ "$rd" -eq 0 ] && [ ! -s "$DW/full.l1.err" ]
	ok $? "prf daemon on a full tmpfs: alive, no segment left behind ($nf0 then $nf1), $e1 intervals not written, failing '$f1', the store reads"
	diag "$DW/full.l1.err"
	$X rm -f "$FS/filler"
	n1=$(awk 'NR == 1 { print $2 }' "$DW/full.l1")
	sleep 2.5
	curl -s -o "$DW/full.m2" "http://127.0.0.1:$PORT/metrics"
	f2=$(val prf_daemon_store_write_failing "$DW/full.m2")
	kill -TERM "$(dpid full)"
	wait "$(dpid full)"
	st=$?
	ticks_ok "$FS/full"
	r=$?
	cp "$FS/full.l" "$DW/full.l2" 2>/dev/null
	n2=$(awk 'NR == 1 { print $2 }' "$DW/full.l2")
	[ "$st" -eq 0 ] && [ "$r" -eq 0 ] && [ "$f2" = 0 ] && [ "$n2" -ge $((n1 + 2)) ]
	ok $? "prf daemon: space back, intervals again ($n1 then $n2 snapshots), exit $st; prfpr DIR reads all, the totals never went back"
	[ "$(grep -c "cannot be written" "$DW/full.err")" -eq 1 ] && grep -q "written again" "$DW/full.err"
	ok $? "prf daemon: the full disk said once, and its end"
	diag "$DW/full.err"
	# --max-size makes room first: a store kept under 3 KiB drops its own
	# oldest segment for the next interval when the disk is full.
	$X rm -rf "$FS/full"
	PORT=$(free_port)
	$X $DFK "$B/prf" daemon -c /dev/null $DKS --dir "$FS/room" --interval 1 --segment 1 \
		--max-size 3K --listen "$PORT" >"$DW/room.out" 2>"$DW/room.err" &
	echo $! >"$DW/room.pid"
	sleep 4.5
	$X dd if=/dev/zero of="$FS/filler" bs=4k 2>/dev/null
	last0=$($X find "$FS/room" -name "seg-*.prf" -size +0 | sort | tail -n 1)
	sleep 3.5
	last1=$($X find "$FS/room" -name "seg-*.prf" -size +0 | sort | tail -n 1)
	curl -s -o "$DW/room.m" "http://127.0.0.1:$PORT/metrics"
	fr=$(val prf_daemon_store_segments_freed_total "$DW/room.m")
	e=$(val prf_daemon_store_errors_total "$DW/room.m")
	kill -TERM "$(dpid room)"
	wait "$(dpid room)"
	st=$?
	$X rm -f "$FS/filler"
	[ "$st" -eq 0 ] && [ "$last1" != "$last0" ] && [ -n "$fr" ] && [ "$fr" -ge 2 ] && [ "$e" = 0 ]
	ok $? "prf daemon --max-size 3K on a full disk: its oldest segments dropped first ($fr), intervals go on ($last0 then $last1), none lost ($e)"
	diag "$DW/room.err"
	$X umount "$FS"
	kill "$(cat "$DW/ns.pid")" 2>/dev/null
	X=
else
	[ -f "$DW/ns.pid" ] && kill "$(cat "$DW/ns.pid")" 2>/dev/null
	skip "prf daemon on a full tmpfs" "needs root, nsenter, curl, python3 and a tmpfs mount in a private mount namespace"
fi

# Settings: the configuration file and its errors.
printf '# a comment\ninterval = 1\n  metrics-top=2\n' >"$DW/good.conf"
printf 'interval = 1\nbogus = 3\n' >"$DW/bad.conf"
$DFK "$B/prf" daemon -c "$DW/bad.conf" $DKS --dir "$DW/conf" >"$DW/conf.out" 2>"$DW/conf.err"
st=$?
[ "$st" -eq 2 ] && grep -q "bad.conf:2: unknown setting 'bogus'" "$DW/conf.err"
ok $? "prf daemon -c: an unknown key refused, file and line said (exit $st)"
$DFK "$B/prf" daemon -c "$DW/missing.conf" $DKS --dir "$DW/conf" >"$DW/conf.out" 2>"$DW/conf.err"
[ $? -eq 2 ] && grep -q "missing.conf: No such file" "$DW/conf.err"
ok $? "prf daemon -c: a configuration file asked for and missing is an error"
$DFK "$B/prf" daemon -c /dev/null --interval 0 >"$DW/conf.out" 2>"$DW/conf.err"
[ $? -eq 2 ] && grep -q "interval: bad value '0'" "$DW/conf.err"
ok $? "prf daemon --interval 0: refused"
printf 'metrics-stale = 1w\n' >"$DW/stale.conf"
$DFK "$B/prf" daemon -c "$DW/stale.conf" --metrics-stale 0 >"$DW/conf.out" 2>"$DW/conf.err"
st=$?
printf 'metrics-stale = 5q\n' >"$DW/stale.conf"
$DFK "$B/prf" daemon -c "$DW/stale.conf" $DKS --dir "$DW/conf" >>"$DW/conf.out" 2>>"$DW/conf.err"
st2=$?
[ "$st" -eq 2 ] && [ "$st2" -eq 2 ] && grep -q "metrics-stale: bad value '0'" "$DW/conf.err" &&
	grep -q "stale.conf:1: metrics-stale: bad value '5q'" "$DW/conf.err"
ok $? "prf daemon --metrics-stale 0, metrics-stale = 5q in the file: refused, said (exit $st, $st2)"

# ---- HTTP ----
if command -v curl >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	PORT=$(free_port)
	U=http://127.0.0.1:$PORT
	cp "$DW/good.conf" "$DW/http.conf"
	# Per-CPU tallies a read: CPU 0 kernel 10-1-2-3 = 4, CPU 1 40-2-4-1 = 33.
	FAKEPRF_CPUS=0:10:1:2:3:1,1:40:2:4:1:0 \
	$DFK "$B/prf" daemon -c "$DW/http.conf" $DKS --dir "$DW/http" --listen "$PORT" \
		>"$DW/http.out" 2>"$DW/http.err" &
	echo $! >"$DW/http.pid"
	wait_for curl -sf -o /dev/null "$U/metrics"
	ss -ltn 2>/dev/null | grep -q "127.0.0.1:$PORT " || ! command -v ss >/dev/null
	ok $? "prf daemon --listen PORT: bound to 127.0.0.1 alone"
	sleep 1.2
	code=$(curl -s -D "$DW/m1.h" -o "$DW/m1" -w '%{http_code}' "$U/metrics")
	[ "$code" = 200 ] && grep -qi '^content-type: text/plain; version=0.0.4' "$DW/m1.h"
	ok $? "GET /metrics: 200, the Prometheus text format's type ($code)"
	# The exposition format: comments HELP/TYPE, then NAME{LABELS} VALUE lines.
	if command -v promtool >/dev/null 2>&1; then
		promtool check metrics <"$DW/m1" >"$DW/prom.err" 2>&1
		ok $? "promtool check metrics"
		diag "$DW/prom.err"
	fi
	awk '
	/^# HELP [a-z_:][a-z0-9_:]* / { next }
	/^# TYPE [a-z_:][a-z0-9_:]* (counter|gauge)$/ { type[$3] = $4; next }
	{
		if ($0 !~ /^[a-z_:][a-z0-9_:]*(\{[a-z_][a-z0-9_]*="([^"\\]|\\.)*"(,[a-z_][a-z0-9_]*="([^"\\]|\\.)*")*\})? [0-9][0-9.e+-]*$/) {
			print "bad line: " $0; bad = 1; next
		}
		name = $0; sub(/[{ ].*/, "", name)
		if (!(name in type)) { print "no TYPE before: " name; bad = 1 }
		if (type[name] == "counter" && name !~ /_total$/) { print "counter without _total: " name; bad = 1 }
		if (seen[$0 ~ /\{/ ? substr($0, 1, index($0, "} ")) : name]++) { print "series twice: " $0; bad = 1 }
	}
	END { exit bad }' "$DW/m1" >"$DW/fmt.err"
	ok $? "GET /metrics: every line HELP, TYPE or a series of a typed name, once"
	diag "$DW/fmt.err"
	nfn=$(grep -c '^prf_function_samples_total{function="[^[]' "$DW/m1")
	[ "$nfn" -eq 2 ] && grep -q '^prf_function_samples_total{function="\[other\]",module=""} ' "$DW/m1"
	ok $? "GET /metrics: metrics-top = 2 from the file: 2 function series and [other] ($nfn)"
	awk '/^prf_function_samples_total/ { s += $NF } /^prf_samples_total\{kind="kernel"\}/ { k = $NF }
	     END { exit !(s == k && k > 0) }' "$DW/m1"
	ok $? "GET /metrics: the function series add up to the kernel samples"
	grep -q '^prf_function_samples_total{function="kvm_b",module="kvm"} ' "$DW/m1"
	ok $? "GET /metrics: the busiest function first chosen, with its module"
	sleep 1.2
	curl -s -o "$DW/m2" "$U/metrics"
	grow=0
	for k in 'prf_samples_total{kind="kernel"}' 'prf_samples_total{kind="idle"}' \
		'prf_daemon_intervals_total'; do
		a=$(val "$k" "$DW/m1")
		b=$(val "$k" "$DW/m2")
		[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] || { grow=1; echo "# $k: $a then $b"; }
	done
	ok $grow "GET /metrics: the counters grow between scrapes"
	c0=$(val 'prf_cpu_samples_total{cpu="0",kind="kernel"}' "$DW/m2")
	c1=$(val 'prf_cpu_samples_total{cpu="1",kind="kernel"}' "$DW/m2")
	u1=$(val 'prf_cpu_samples_total{cpu="1",kind="user"}' "$DW/m2")
	f1=$(val 'prf_cpu_samples_total{cpu="1",kind="filtered"}' "$DW/m2")
	n=$(grep -c '^prf_cpu_samples_total{cpu="[01]",kind="[a-z]*"} ' "$DW/m2")
	[ "$n" -eq 10 ] && [ "${c0:-0}" -gt 0 ] && [ $((c1 * 4)) -eq $((c0 * 33)) ] &&
		[ $((u1 * 33)) -eq $((c1 * 4)) ] && [ $((f1 * 33)) -eq $((c1 * 2)) ]
	ok $? "GET /metrics: per-CPU series, 5 kinds x 2 CPUs, each CPU's own (kernel $c0 and $c1, 4:33)"
	c0b=$(val 'prf_cpu_samples_total{cpu="0",kind="kernel"}' "$DW/m1")
	[ -n "$c0b" ] && [ "$c0" -gt "$c0b" ]
	ok $? "GET /metrics: the per-CPU series grow between scrapes ($c0b then $c0)"
	# SIGHUP: the configuration re-read (metrics-top 3), a fresh collection;
	# the counters go on from where they were.
	printf 'interval = 1\nmetrics-top = 3\n' >"$DW/http.conf"
	kill -HUP "$(dpid http)"
	wait_for grep -q "SIGHUP: settings re-read" "$DW/http.err"
	sleep 1.2
	curl -s -o "$DW/m3" "$U/metrics"
	a=$(val 'prf_samples_total{kind="kernel"}' "$DW/m2")
	b=$(val 'prf_samples_total{kind="kernel"}' "$DW/m3")
	[ "$(val prf_daemon_table_loads_total "$DW/m3")" = 2 ] && [ "$b" -gt "$a" ] &&
		[ "$(grep -c '^prf_function_samples_total{function="[^[]' "$DW/m3")" -eq 3 ]
	ok $? "SIGHUP: settings re-read, the table loaded again, counters still growing ($a then $b)"
	kvm=$(val 'prf_function_samples_total{function="kvm_b",module="kvm"}' "$DW/m2")
	kvm3=$(val 'prf_function_samples_total{function="kvm_b",module="kvm"}' "$DW/m3")
	[ "$kvm3" -gt "$kvm" ]
	ok $? "SIGHUP: a function's series goes on across the table reload ($kvm then $kvm3)"

	# /debug/pprof/profile
	code=$(curl -s -o "$DW/p.pb.gz" -w '%{http_code}' "$U/debug/pprof/profile?seconds=1")
	[ "$code" = 200 ]
	ok $? "GET /debug/pprof/profile?seconds=1: 200"
	if command -v go >/dev/null 2>&1; then
		HOME=$DW GOPATH=$DW/go GOCACHE=$DW/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local \
			go tool pprof -top "$DW/p.pb.gz" >"$DW/p.top" 2>&1
		grep -q ' kvm_b$' "$DW/p.top" && grep -q 'Duration: 1' "$DW/p.top"
		r=$?
		ok $r "go tool pprof -top reads the profile: kvm_b, a duration of 1 s"
		[ $r -eq 0 ] || diag "$DW/p.top"
	else
		skip "go tool pprof reads the profile" "go missing"
	fi
	for q in 'seconds=0' 'seconds=301' 'seconds=abc' 'seconds=-1' 'seconds=1x' 'seconds='; do
		code=$(curl -s -o /dev/null -w '%{http_code}' "$U/debug/pprof/profile?$q")
		[ "$code" = 400 ]
		ok $? "GET /debug/pprof/profile?$q: 400 ($code)"
	done
	# Bad requests: paths, methods, bodies, huge headers and lines.
	for p in / /metricsx /metrics/ /debug/pprof /debug/pprof/heap '/%00' '/../metrics'; do
		code=$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "$U$p")
		[ "$code" = 404 ]
		ok $? "GET $p: 404 ($code)"
	done
	for m in POST PUT DELETE PATCH OPTIONS TRACE BREW; do
		code=$(curl -s -o /dev/null -D "$DW/h" -w '%{http_code}' -X "$m" "$U/metrics")
		[ "$code" = 405 ] && grep -qi '^allow: GET, HEAD' "$DW/h"
		ok $? "$m /metrics: 405 with Allow ($code)"
	done
	head -c 10000000 /dev/zero >"$DW/big"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @"$DW/big" "$U/metrics")
	[ "$code" = 405 ]
	ok $? "POST of 10 MB: 405, the body not read ($code)"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X GET --data-binary @"$DW/big" "$U/metrics")
	[ "$code" = 413 ]
	ok $? "GET with a 10 MB body: 413 ($code)"
	code=$(curl -s -o /dev/null -w '%{http_code}' -X GET -H 'Transfer-Encoding: chunked' \
		--data-binary @"$DW/good.conf" "$U/metrics")
	[ "$code" = 413 ]
	ok $? "GET with a chunked body: 413 ($code)"
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 40000 /dev/zero | tr '\0' a)" "$U/metrics")
	[ "$code" = 431 ] || [ "$code" = 000 ]
	ok $? "GET with a 40 KB header: 431 or closed ($code)"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$U/$(head -c 40000 /dev/zero | tr '\0' a)")
	[ "$code" = 414 ] || [ "$code" = 000 ]
	ok $? "GET of a 40 KB path: 414 or closed ($code)"
	printf 'GARBAGE\r\n\r\n' >"$DW/garbage"
	python3 - "$PORT" "$DW/garbage" >"$DW/garbage.out" 2>&1 <<'X'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(open(sys.argv[2], "rb").read())
print(s.recv(64).split(b"\r\n")[0].decode())
X
	grep -q '^HTTP/1.[01] 400' "$DW/garbage.out" || [ -z "$(tr -d '\n' <"$DW/garbage.out")" ]
	ok $? "a request line that is not HTTP: 400 or closed ($(cat "$DW/garbage.out"))"
	diag "$DW/garbage.out"
	# Connections: slow clients that send nothing hold no more than the
	# limit; past it new ones are refused, and the collection goes on.
	python3 - "$PORT" "$U" >"$DW/conn.out" 2>&1 <<'X'
import socket, sys, time, urllib.request
port = int(sys.argv[1])
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
try:
    urllib.request.urlopen(sys.argv[2] + "/metrics", timeout=3)
    print("ninth from the same address served")
except Exception as e:
    print("ninth refused", type(e).__name__)
for s in idle:
    s.close()
for _ in range(50):
    time.sleep(0.1)
    try:
        print("after", urllib.request.urlopen(sys.argv[2] + "/metrics", timeout=5).status)
        break
    except Exception:
        pass
X
	grep -q "ninth refused" "$DW/conn.out" && grep -q "after 200" "$DW/conn.out"
	ok $? "8 idle connections: a ninth from the same address refused; served again once they close"
	diag "$DW/conn.out"
	i1=$(val prf_daemon_intervals_total "$DW/m3")
	sleep 1.2
	curl -s -o "$DW/m4" "$U/metrics"
	i2=$(val prf_daemon_intervals_total "$DW/m4")
	[ "$i2" -gt "$i1" ] && kill -0 "$(dpid http)"
	ok $? "after the bad requests: the daemon alive, intervals still recorded ($i1 then $i2)"
	# A profile in progress does not hold SIGTERM: the daemon stops, the
	# client gets 503.
	curl -s -o /dev/null -w '%{http_code}' "$U/debug/pprof/profile?seconds=60" >"$DW/p60" &
	cpid=$!
	sleep 0.5
	dstop http TERM
	st=$?
	wait $cpid
	[ "$st" -eq 0 ] && [ "$(cat "$DW/p60")" = 503 ]
	ok $? "SIGTERM during a 60 s profile: exit 0 at once, the profile 503 (exit $st, $(cat "$DW/p60"))"
	PORT2=$(free_port)
	$DFK "$B/prf" daemon -c /dev/null $DKS --dir "$DW/http2" --listen "[::1]:$PORT2" \
		>"$DW/http2.out" 2>"$DW/http2.err" &
	echo $! >"$DW/http2.pid"
	if wait_for curl -sf -o /dev/null "http://[::1]:$PORT2/metrics"; then
		ok 0 "prf daemon --listen [::1]:PORT: IPv6"
	else
		grep -q "cannot serve there" "$DW/http2.err"
		ok $? "prf daemon --listen [::1]:PORT: served, or said why not (no IPv6 here)"
	fi
	dstop http2 TERM
	$DFK "$B/prf" daemon -c /dev/null --listen 1.2.3:99999 >/dev/null 2>"$DW/bad.err"
	[ $? -eq 2 ] && grep -q "listen: bad value" "$DW/bad.err"
	ok $? "prf daemon --listen with a bad port: refused"
else
	skip "prf daemon HTTP" "curl or python3 missing"
fi

# ---- /metrics' per-function series: a running top ----
# A workload the fake samples through FAKEPRF_PCS_FILE (the counters'
# values, which the loop below makes grow by jumps of 100000): nothing
# busy for the first intervals, then alpha, gamma, ext4_a, kvm_a and alpha
# again, a jump every 0.25 s for 5 of the daemon's intervals each (counted
# from its scrapes, whatever the host's pace), then nothing, with
# --metrics-top 1 (so at most 4 series), a window of an interval and
# --metrics-stale 3s (3 intervals).
# The checks count in the daemon's own intervals (prf_daemon_intervals_total
# of each scrape), from what the scrapes show, not in the host's time: a
# function's series from the scrape after its jumps were counted alone
# (at once), kept for 3 intervals after its last jump counted with nothing
# else busy, gone 3 intervals after its phase (stale).  Every series and
# [other] only grow, a series back after it left included.
if command -v curl >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	PORT=$(free_port)
	$DFK FAKEPRF_PCS_FILE="$DW/top.pcs" "$B/prf" daemon -c /dev/null $DKS --dir "$DW/top" \
		--interval 1 --metrics-top 1 --metrics-window 1 --metrics-stale 3s \
		--listen "$PORT" >"$DW/top.out" 2>"$DW/top.err" &
	echo $! >"$DW/top.pid"
	wait_for curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"
	mkdir -p "$DW/top.scrapes"
	: >"$DW/top.pcs"
	step=0
	p=0
	for phase in idle ffffffff9a000110 ffffffff9a000300 ffffffffc0001000 ffffffffc0003000 \
		ffffffff9a000110; do
		k=0
		first=
		while [ $k -lt 120 ]; do
			if [ "$phase" != idle ]; then
				eval "c=\${pc_$phase:-0}"
				eval "pc_$phase=$((c + 100000))"
				list=
				for pc in ffffffff9a000110 ffffffff9a000300 ffffffffc0001000 ffffffffc0003000; do
					eval "c=\${pc_$pc:-0}"
					list="$list$pc:$c,"
				done
				printf '%s\n' "${list%,}" >"$DW/top.pcs.tmp"
				mv "$DW/top.pcs.tmp" "$DW/top.pcs"
			fi
			i=
			if [ $((k % 2)) -eq 0 ]; then
				f=$DW/top.scrapes/$(printf %03d-%d $step $p)
				curl -s -o "$f" "http://127.0.0.1:$PORT/metrics"
				i=$(awk '$1 == "prf_daemon_intervals_total" { print $2 }' "$f")
				first=${first:-$i}
			fi
			step=$((step + 1))
			k=$((k + 1))
			[ -n "$i" ] && [ "$i" -ge $((first + 5)) ] && break
			sleep 0.25
		done
		p=$((p + 1))
	done
	# then nothing busy: scrapes until 8 intervals on (30 s at most)
	k=0
	first=
	while [ $k -lt 60 ]; do
		f=$DW/top.scrapes/$(printf %03d-%d $step $p)
		curl -s -o "$f" "http://127.0.0.1:$PORT/metrics"
		i=$(awk '$1 == "prf_daemon_intervals_total" { print $2 }' "$f")
		first=${first:-$i}
		step=$((step + 1))
		k=$((k + 1))
		[ -n "$i" ] && [ "$i" -ge $((first + 8)) ] && break
		sleep 0.5
	done
	dstop top TERM
	python3 - "$DW/top.scrapes" >"$DW/top.check" 2>&1 <<'X'
import os, re, sys
# One line a check: "CHECK name ok|bad what"; the shell asserts each "ok".
d = sys.argv[1]
line = re.compile(r'^(prf_[a-z_]+)(\{[^}]*\})? (\S+)$')
scrapes = []
for name in sorted(os.listdir(d)):
    m = {}
    for l in open(os.path.join(d, name)):
        g = line.match(l.strip())
        if g:
            m[g.group(1) + (g.group(2) or '')] = float(g.group(3))
    if m:
        scrapes.append((name, int(name.split('-')[1]), m))
other = 'prf_function_samples_total{function="[other]",module=""}'
fnames = [None, 'alpha', 'gamma', 'ext4_a', 'kvm_a', 'alpha']
S = 3
def iv(m):
    return m.get('prf_daemon_intervals_total', -1)
def has(m, f):
    return any(k.startswith('prf_function_samples_total{function="%s"' % f) for k in m)
start = {}
for name, p, m in scrapes:
    start.setdefault(p, iv(m))
bad = {'grow': [], 'bound': [], 'sum': [], 'once': [], 'stays': [], 'leaves': []}
last, seen = {}, set()
for name, p, m in scrapes:
    f = {k: v for k, v in m.items() if k.startswith('prf_function_samples_total{')}
    series = [k for k in f if k != other]
    seen.update(series)
    if len(series) > 4 or len(series) != m.get('prf_daemon_function_series') or \
       m.get('prf_daemon_function_series_max') != 4 or \
       m.get('prf_daemon_function_series_evicted_total') != 0:
        bad['bound'].append('%s: %d series, gauge %s, max %s, evicted %s' % (
            name, len(series), m.get('prf_daemon_function_series'),
            m.get('prf_daemon_function_series_max'),
            m.get('prf_daemon_function_series_evicted_total')))
    kernel = m.get('prf_samples_total{kind="kernel"}', -1)
    if other not in f or sum(f.values()) > kernel or \
       (m.get('prf_daemon_function_series_retired_total') == 0 and sum(f.values()) != kernel):
        bad['sum'].append('%s: series and [other] %d, kernel %d, retired %s' % (
            name, sum(f.values()), kernel, m.get('prf_daemon_function_series_retired_total')))
    for k, v in f.items():
        if k in last and v < last[k]:
            bad['grow'].append('%s: %s went back from %d to %d' % (name, k, last[k], v))
        last[k] = v
# The fake's samples come in jumps of 100000 (a write of the list), the
# table's own growth a few thousand an interval.  tick (the intervals the
# top was chosen at) is a scrape's intervals or one more.
JUMP = 100000
def kern(m):
    return m.get('prf_samples_total{kind="kernel"}', 0)
def fval(m, f):
    return sum(v for k, v in m.items()
               if k.startswith('prf_function_samples_total{function="%s"' % f))
gaps = list(zip(scrapes, scrapes[1:]))
quiet = max([kern(y[2]) - kern(x[2]) for x, y in gaps if x[1] == 0 and y[1] == 0] or [JUMP])
# (1) at once: the first gap (a, b) of phase p from I_p + 2 on with a jump:
# counted at a tick X after a's, which made f the top and its series, so
# every scrape from iv(b) + 1 has it, until iv(a) + S at least.
once = 0
for p in range(1, 6):
    f = fnames[p]
    for (na, pa, ma), (nb, pb, mb) in gaps:
        if pa == p and pb == p and iv(ma) >= start[p] + 2 and kern(mb) - kern(ma) >= JUMP:
            once += 1
            for name, q, m in scrapes:
                if name > nb and iv(mb) + 1 <= iv(m) <= iv(ma) + S and not has(m, f):
                    bad['once'].append('%s: no %s at interval %d (its jump counted after interval %d)' % (
                        name, f, iv(m), iv(ma)))
            break
# (2) kept until stale: a gap (a, b) where f's series grew by a jump and
# everything else by less than one: f the top of a tick after a's, so its
# series in every scrape up to iv(a) + S.
solo = 0
for (na, pa, ma), (nb, pb, mb) in gaps:
    for f in ('alpha', 'gamma', 'ext4_a', 'kvm_a'):
        if not has(ma, f) or not has(mb, f):
            continue
        g = fval(mb, f) - fval(ma, f)
        if g < JUMP or kern(mb) - kern(ma) - g >= JUMP:
            continue
        solo += 1
        for name, q, m in scrapes:
            if name > nb and iv(m) <= iv(ma) + S and not has(m, f):
                bad['stays'].append('%s: no %s at interval %d (alone busy after interval %d)' % (
                    name, f, iv(m), iv(ma)))
# (3) gone once stale: phase p's last jump was before the next phase's
# first scrape (I_(p+1)), counted at tick I_(p+1) + 2 at the latest, so its
# series gone from I_(p+1) + S + 3 on (alpha busy again in phase 5).
for p in range(1, 6):
    f = fnames[p]
    for name, q, m in scrapes:
        if p + 1 in start and iv(m) >= start[p + 1] + S + 3 and \
           not (p == 1 and iv(m) >= start[5]) and has(m, f):
            bad['leaves'].append('%s: %s still at interval %d (phase %d: %s to %s)' % (
                name, f, iv(m), p, start.get(p), start.get(p + 1)))
print('# %d scrapes, phases from intervals %s, the quiet one\'s growth %d; series seen: %s' % (
    len(scrapes), sorted(start.items()), quiet, ' '.join(sorted(seen))))
final = scrapes[-1][2] if scrapes else {}
missing = [f for f in ('alpha', 'gamma', 'ext4_a', 'kvm_a')
           if not any('function="%s"' % f in k for k in seen)]
enough = len(scrapes) > 30
enough = enough and quiet < JUMP / 4 and len(start) == 7
checks = [('late', not missing and enough, 'without a series: %s' % missing),
          # (each phase spans 5 of the daemon's intervals, so each has
          # gaps from its third on; series_test.c judges every interval of
          # the rule itself)
          ('once', not bad['once'] and once >= 5 and enough, 'judged %d phases: %s' % (once, bad['once'])),
          ('stays', not bad['stays'] and solo >= 4 and enough, 'judged %d gaps: %s' % (solo, bad['stays'])),
          ('leaves', not bad['leaves'] and enough and iv(final) >= start[6] + S + 3,
           'the last scrape at interval %d: %s' % (iv(final), bad['leaves'])),
          ('grow', not bad['grow'] and enough, bad['grow']),
          ('bound', not bad['bound'] and enough, bad['bound']),
          ('sum', not bad['sum'] and enough, bad['sum']),
          ('retired', final.get('prf_daemon_function_series_retired_total', 0) >= 4 and
           final.get('prf_daemon_function_series_created_total', 0) >= 5,
           'retired %s, created %s' % (final.get('prf_daemon_function_series_retired_total'),
                                       final.get('prf_daemon_function_series_created_total')))]
for k, good, what in checks:
    print('CHECK %s %s %s' % (k, 'ok' if good else 'bad', what))
X
	chk() { grep -q "^CHECK $1 ok" "$DW/top.check"; }
	chk late
	ok $? "/metrics --metrics-top 1: a function busy only after the first intervals gets its own series, and so does each next busiest (alpha, gamma, ext4_a, kvm_a)"
	chk once
	ok $? "/metrics: a function entering the top while the one slot is held has its series at once (from the interval it was the busiest of)"
	chk stays
	ok $? "/metrics: a series stays while its function has been out of the top less than --metrics-stale (3 intervals)"
	chk leaves
	ok $? "/metrics: then it leaves (and comes back when its function does)"
	chk grow
	ok $? "/metrics: every series and [other] only grow across $(ls "$DW/top.scrapes" | wc -l) scrapes, a retired series back included"
	chk bound
	ok $? "/metrics: never more than 4 x --metrics-top series (prf_daemon_function_series says how many), none evicted below the bound"
	chk sum
	ok $? "/metrics: the series and [other] add up to the kernel samples until one is retired, to at most them after"
	chk retired
	ok $? "/metrics: series retired once stale, one back (prf_daemon_function_series_retired_total, _created_total)"
	grep -q "^CHECK .* bad" "$DW/top.check" && diag "$DW/top.check"
	# A new series starts at 0 when made: the late function's series holds
	# less than what the device counted for it (the interval that made it
	# went to [other]).
	# (gamma's value at its last scrape: retired by the end)
	g=$(cat "$DW/top.scrapes"/* 2>/dev/null |
		awk '/^prf_function_samples_total\{function="gamma"/ { v = $NF } END { print v }')
	[ -n "$g" ] && [ "$g" -gt 0 ] && [ "$g" -lt "$pc_ffffffff9a000300" ]
	ok $? "/metrics: a series made late counts from its making on ($g of the $pc_ffffffff9a000300 samples of gamma)"
fi

# ---- the table follows the kernel's modules ----
# The daemon's --kallsyms and --proc-modules are copies changed during the
# run: a module prftest loaded, then unloaded and another, other, loaded at
# the same addresses.  The fake counts every loaded address (FAKEPRF_GROW).
MW=$DW/mods
mkdir -p "$MW"
cp "$D/kallsyms.txt" "$MW/ks0"
cp "$D/modules.txt" "$MW/mod0"
{ cat "$MW/ks0"; printf 'ffffffffc0008000 t prftest_spin\t[prftest]\nffffffffc0008100 t prftest_work\t[prftest]\n'; } >"$MW/ks1"
{ cat "$MW/mod0"; echo 'prftest 4096 0 - Live 0xffffffffc0008000'; } >"$MW/mod1"
{ cat "$MW/ks0"; printf 'ffffffffc0008000 t other_fn\t[other]\nffffffffc0008100 t other_b\t[other]\n'; } >"$MW/ks2"
{ cat "$MW/mod0"; echo 'other 4096 0 - Live 0xffffffffc0008000'; } >"$MW/mod2"
# modset N: the kernel of step N (kallsyms first: a module's symbols are
# there when /proc/modules shows it)
modset() {
	cp "$MW/ks$1" "$MW/kallsyms.tmp" && mv "$MW/kallsyms.tmp" "$MW/kallsyms"
	cp "$MW/mod$1" "$MW/modules.tmp" && mv "$MW/modules.tmp" "$MW/modules"
}
modset 0
MKS="--kallsyms $MW/kallsyms --proc-modules $MW/modules"
MFK="$DFK FAKEPRF_LOAD_ZEROES=1"	# a load zeroes the counters, as the device's
# An interval of an hour: the change is seen between intervals (every
# second), and recorded as an interval of the old table before the new one.
: >"$DW/log"
$MFK "$B/prf" daemon -c /dev/null $MKS --dir "$DW/modh" --interval 1h \
	>"$DW/modh.out" 2>"$DW/modh.err" &
echo $! >"$DW/modh.pid"
wait_for has_seg "$DW/modh"
modset 1
wait_for grep -q "modules changed" "$DW/modh.err"
sleep 0.5
"$B/prfpr" -l "$DW/modh" >"$DW/modh.l1" 2>&1
dstop modh TERM
st=$?
"$B/prfpr" -l "$DW/modh" >"$DW/modh.l2" 2>&1
awk 'NR > 2 { printf "%s ", $5 } END { print "" }' "$DW/modh.l1" >"$DW/modh.t1"
awk 'NR > 2 { printf "%s ", $5 } END { print "" }' "$DW/modh.l2" >"$DW/modh.t2"
[ "$(cat "$DW/modh.t1")" = "0 0 " ] && [ "$(cat "$DW/modh.t2")" = "0 0 1 " ] && [ $st -eq 0 ]
r=$?
ok $r "prf daemon --interval 1h: a module loaded is seen within seconds, an interval of the old table recorded then, the next with the new one (tables $(cat "$DW/modh.t1")then $(cat "$DW/modh.t2"))"
[ $r -eq 0 ] || { diag "$DW/modh.l2"; diag "$DW/modh.err"; }
grep -A3 '^clone SETSTATE 1$' "$DW/log" | tr '\n' ' ' >"$DW/modh.ops"
grep -q 'clone SETSTATE 1 clone SETSTATE 0 clone LOAD 14 clone SETSTATE 1' "$DW/modh.ops"
ok $? "the switch: OFF, the new table (14 addresses with the module's end, was 11) loaded, ON ($(cat "$DW/modh.ops"))"
grep -q "modules changed: table reloaded (14 addresses, was 11); the collection was OFF for [0-9.]* ms, about [0-9]* samples lost" "$DW/modh.err"
ok $? "the switch said: the addresses, the time OFF and the samples it lost"
diag "$DW/modh.err"

if command -v curl >/dev/null 2>&1; then
	modset 0
	PORT=$(free_port)
	U=http://127.0.0.1:$PORT
	$MFK "$B/prf" daemon -c /dev/null $MKS --dir "$DW/mod" --interval 1 --listen "$PORT" \
		>"$DW/mod.out" 2>"$DW/mod.err" &
	echo $! >"$DW/mod.pid"
	wait_for curl -sf -o /dev/null "$U/metrics"
	sleep 1.5
	modset 1
	wait_for grep -q "modules changed" "$DW/mod.err"
	sleep 2.5
	curl -s -o "$DW/mod.m1" "$U/metrics"
	v1=$(val 'prf_function_samples_total{function="prftest_spin",module="prftest"}' "$DW/mod.m1")
	[ -n "$v1" ] && [ "$v1" -gt 0 ]
	ok $? "a module loaded during the run: its function counted under its own name and module in /metrics ($v1)"
	modset 2
	wait_for sh -c "[ \$(grep -c 'modules changed' '$DW/mod.err') -ge 2 ]"
	sleep 1.5
	curl -s -o "$DW/mod.m2" "$U/metrics"
	sleep 1.2
	curl -s -o "$DW/mod.m3" "$U/metrics"
	p2=$(val 'prf_function_samples_total{function="prftest_spin",module="prftest"}' "$DW/mod.m2")
	p3=$(val 'prf_function_samples_total{function="prftest_spin",module="prftest"}' "$DW/mod.m3")
	o2=$(val 'prf_function_samples_total{function="other_fn",module="other"}' "$DW/mod.m2")
	o3=$(val 'prf_function_samples_total{function="other_fn",module="other"}' "$DW/mod.m3")
	[ -n "$p3" ] && [ "$p3" = "$p2" ] && [ -n "$o3" ] && [ "$o3" -gt "${o2:-0}" ]
	ok $? "another module at the same addresses: counted as its own (other_fn $o2 then $o3), the unloaded one's count stopped (prftest_spin $p2 then $p3)"
	# a profile after the switches: the daemon's names are the new table's
	if command -v go >/dev/null 2>&1; then
		code=$(curl -s -o "$DW/mod.pb.gz" -w '%{http_code}' "$U/debug/pprof/profile?seconds=1")
		go tool pprof -top "$DW/mod.pb.gz" >"$DW/mod.ptop" 2>&1
		[ "$code" = 200 ] && grep -q ' other_fn$' "$DW/mod.ptop" &&
			! grep -q prftest "$DW/mod.ptop"
		r=$?
		ok $r "a profile after another module came to the same addresses: other_fn, never the unloaded prftest's names ($code)"
		[ $r -eq 0 ] || diag "$DW/mod.ptop"
	else
		skip "a profile after another module came to the same addresses" "go missing"
	fi
	[ "$(val prf_daemon_module_changes_total "$DW/mod.m3")" = 2 ] &&
		[ "$(val prf_daemon_table_loads_total "$DW/mod.m3")" = 3 ] &&
		awk '/^prf_daemon_table_switch_seconds_total / { exit !($2 > 0 && $2 < 1) }' "$DW/mod.m3"
	ok $? "/metrics: prf_daemon_module_changes_total 2, table loads 3, the time OFF ($(val prf_daemon_table_switch_seconds_total "$DW/mod.m3") s)"
	# other unloaded: the first table back, its totals going on from its
	# last snapshot, so that the store's first and last snapshots report.
	modset 0
	wait_for sh -c "[ \$(grep -c 'modules changed' '$DW/mod.err') -ge 3 ]"
	sleep 1.5
	dstop mod TERM
	ok $? "prf daemon following modules: SIGTERM exits 0"
	# The store: each interval with the table it counted with, named then.
	"$B/prfpr" -l "$DW/mod" >"$DW/mod.l" 2>&1
	range() { awk -v t="$1" 'NR > 2 && $5 == t { if (!f) f = $1; l = $1 } END { print f, l }' "$DW/mod.l"; }
	set -- $(range 1)
	"$B/prfpr" --from "$1" --to "$2" "$DW/mod" >"$DW/mod.r1" 2>&1
	r1=$?
	set -- $(range 2)
	"$B/prfpr" --from "$1" --to "$2" "$DW/mod" >"$DW/mod.r2" 2>&1
	r2=$?
	[ $r1 -eq 0 ] && grep -q 'prftest_spin *prftest' "$DW/mod.r1" && ! grep -q other_fn "$DW/mod.r1" &&
		[ $r2 -eq 0 ] && grep -q 'other_fn *other' "$DW/mod.r2" && ! grep -q prftest_spin "$DW/mod.r2"
	r=$?
	ok $r "the store: the intervals of each table report under that table's names (prftest's, then other's at the same addresses)"
	[ $r -eq 0 ] || { diag "$DW/mod.l"; diag "$DW/mod.r1"; diag "$DW/mod.r2"; }
	# the pair: the first table's last snapshot before the modules, the last
	set -- $(range 0) $(awk 'NR > 2 { l = $1 } END { print l }' "$DW/mod.l")
	"$B/prfpr" --from "$2" --to "$3" "$DW/mod" >"$DW/mod.ra" 2>&1
	r=$?
	[ $r -eq 0 ] && [ "$(awk 'NR > 2 { t = $5 " " $6 } END { print t }' "$DW/mod.l")" = "3 11" ] &&
		! grep -Eq 'prftest|other_fn' "$DW/mod.ra"
	r=$?
	ok $r "the store: the first table back after the modules left: its totals went on (prfpr reports from its last snapshot before the modules to the last, without the modules' names)"
	[ $r -eq 0 ] || { diag "$DW/mod.l"; diag "$DW/mod.ra"; }
fi

# ---- stack frames: named from the daemon's own table, else the namelist ----
# kvm_b and gamma are functions of its table; a BPF program and an ftrace
# trampoline are not (the table leaves them out), and are named all the same.
FAKEPRF_STACKS='4:0:ffffffffc0003094,ffffffff9a000311;6:0:ffffffffc0005010,ffffffffc0006005,ffffffff9a000211' \
	dstart names2 --interval 1 --stacks 8
wait_for has_snaps "$DW/names2" 2
dstop names2 TERM
st=$?
"$B/prfpr" --folded --all "$DW/names2" >"$DW/names2.f" 2>&1
grep -q "^gamma;kvm_b [1-9][0-9]*$" "$DW/names2.f" &&
	grep -q "^beta;ftrace_tramp;bpf_prog_abc [1-9][0-9]*$" "$DW/names2.f" && [ $st -eq 0 ]
r=$?
ok $r "the store's stacks: frames of the table and of BPF and a trampoline, each named (exit $st)"
[ $r -eq 0 ] || diag "$DW/names2.f"

# ---- under valgrind: intervals with stacks, retention, HTTP, SIGHUP, SIGTERM ----
if command -v valgrind >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && [ "${VALGRIND:-1}" != 0 ]; then
	PORT=$(free_port)
	valgrind -q --trace-children=yes --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		$DFK FAKEPRF_STACKS='5:0:ffffffff9a000a04,ffffffff9a000011' "$B/prf" daemon -c /dev/null \
		$DKS --dir "$DW/vg" --interval 1 --segment 1 --retain 3 --stacks 8 --listen "$PORT" \
		>"$DW/vg.out" 2>"$DW/vg.err" &
	echo $! >"$DW/vg.pid"
	wait_for curl -sf -o /dev/null "http://127.0.0.1:$PORT/metrics"
	curl -s -o /dev/null "http://127.0.0.1:$PORT/debug/pprof/profile?seconds=1"
	curl -s -o /dev/null -X POST "http://127.0.0.1:$PORT/metrics"
	sleep 4
	kill -HUP "$(dpid vg)"
	sleep 2
	dstop vg TERM
	st=$?
	ok $st "prf daemon under valgrind: no memory error, no leak (exit $st)"
	[ $st -eq 0 ] || grep -v '^prf daemon' "$DW/vg.err" | head -40 | diag
fi

# ---- the systemd unit ----
if command -v systemd-analyze >/dev/null 2>&1; then
	make -s -C "$T/.." install PREFIX="$DW/inst" SYSCONFDIR="$DW/inst/etc" O="$B" \
		>"$DW/inst.log" 2>&1
	ok $? "make install: the unit and the settings installed"
	diag "$DW/inst.log"
	U=$DW/inst/lib/systemd/system/prf.service
	systemd-analyze verify --man=no "$U" >"$DW/verify.out" 2>&1
	[ $? -eq 0 ] && [ ! -s "$DW/verify.out" ]
	ok $? "systemd-analyze verify prf.service: clean"
	diag "$DW/verify.out"
	grep -q "^ExecStart=$DW/inst/bin/prf daemon --config $DW/inst/etc/prf/prf.conf" "$U" &&
		[ -f "$DW/inst/etc/prf/prf.conf" ]
	ok $? "prf.service runs the installed prf with the installed settings"
	# The default settings file, as shipped, is read without error.
	$DFK "$B/prf" daemon -c "$T/../prf.conf" --dir "$DW/defconf" $DKS --interval 1h \
		>"$DW/defconf.out" 2>"$DW/defconf.err" &
	echo $! >"$DW/defconf.pid"
	wait_for has_seg "$DW/defconf"
	dstop defconf TERM
	ok $? "tools/prf.conf as shipped: accepted"
else
	skip "systemd-analyze verify prf.service" "systemd-analyze missing"
fi

if [ -n "$DT_ALONE" ]; then
	echo "1..$n"
	echo "$((n - fail)) passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi
