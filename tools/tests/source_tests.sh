# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of the PMU source (issue 24): sourced by run_host_tests.sh,
# whose ok/run/same/grep_err, $B, $T, $D, $W, $KS and $P it uses.  The
# device commands run on the LD_PRELOAD stand-in (tests/fakeprf.c), whose
# PMU samples the events of FAKEPRF_EVENTS (none by default, as a virtual
# machine) and reports FAKEPRF_PMU's counts.

PW=$W/source
mkdir -p "$PW"
PF=$PW/prf
PFL=$PW/log
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 6\naddrs 0\n' >"$PF"
PK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$PF FAKEPRF_LOG=$PFL"
pkey() { awk -v k="$1" '$1 == k { print $2 }' "$PF"; }
plogged() {	# plogged EXPECTED DESCRIPTION: the calls made, in order
	printf '%s\n' "$1" | sed '/^$/d' >"$PW/want"
	same "$PFL" "$PW/want" "$2"
}
NOPMU='no hardware PMU here (a virtual machine?): use the timer'

# ---- prfstat --event ----
run 0 "prfstat --event list, no PMU" $PK "$B/prfstat" -f "$PF" --event list
printf '%s\n' "$NOPMU" >"$PW/list.want"
same "$W/out" "$PW/list.want" "prfstat --event list without a PMU: says so, and to use the timer"
run 0 "prfstat --event list, a PMU of cycles and branch-misses" \
	$PK FAKEPRF_EVENTS=9 "$B/prfstat" -f "$PF" --event list
printf 'cycles\nbranch-misses\n' >"$PW/list.want"
same "$W/out" "$PW/list.want" "prfstat --event list: the PMU's events, one a line"
for bad in bogus cycles:9999 cycles:x cycles: :1000000 list:5 timer:10000; do
	run 2 "prfstat --event $bad" $PK "$B/prfstat" -f "$PF" --event "$bad"
	grep_err "want EVENT\[:PERIOD\]" "prfstat --event $bad: the form said"
done
run 2 "prfstat --event list on" $PK "$B/prfstat" -f "$PF" --event list on
: >"$PFL"
run 0 "prfstat --event cycles:1000000" $PK "$B/prfstat" -q -f "$PF" --event cycles:1000000
plogged "SETSOURCE 1 0 1000000" "prfstat --event cycles:1000000: the PMU source, every 10^6 cycles"
: >"$PFL"
run 0 "prfstat --event cycles:1000000 again" $PK "$B/prfstat" -q -f "$PF" --event cycles:1000000
plogged "" "the same source is not set again (it would zero the counters)"
run 0 "prfstat shows the source" $PK "$B/prfstat" -f "$PF"
grep -q "^source  *PMU cycles, a sample every 1000000 cycles$" "$W/out"
ok $? "prfstat: source PMU cycles, a sample every 1000000 cycles"
run 0 "prfld into the fake device" $PK "$B/prfld" -q -f "$PF" $KS "$D/kallsyms.txt"
: >"$PFL"
run 1 "prfstat on, no PMU" $PK "$B/prfstat" -f "$PF" on
grep_err "sampling on cycles: $NOPMU" "prfstat on without a PMU: the refusal in words"
[ "$(pkey on)" = 0 ]
ok $? "prfstat on without a PMU: still OFF"
run 1 "prfstat --event instructions on, a PMU of cycles alone" \
	$PK FAKEPRF_EVENTS=1 "$B/prfstat" -f "$PF" --event instructions on
grep_err "this PMU has no instructions: see 'prfstat --event list'" \
	"prfstat on with an event the PMU lacks: said, and where to look"
: >"$PFL"
run 0 "prfstat --event cycles on, a PMU of cycles" $PK FAKEPRF_EVENTS=1 "$B/prfstat" -q -f "$PF" \
	--event cycles on
plogged "SETSOURCE 1 0 0
SETSTATE 1" "prfstat --event cycles on: about hz a second, then ON"
run 1 "prfstat --event cycles:50000 while ON" $PK FAKEPRF_EVENTS=1 "$B/prfstat" -f "$PF" \
	--event cycles:50000
grep_err "PRF_SETSOURCE: Device or resource busy" "--event while ON: EBUSY said"
run 0 "prfstat with counters" $PK FAKEPRF_EVENTS=1 FAKEPRF_PMU=5000000:2000000000:1500000000:0:3:500 \
	"$B/prfstat" -f "$PF"
grep -q "^samples in NMI  *0 of 500 (not NMIs: code that runs with interrupts off is not seen)$" \
	"$W/out"
ok $? "prfstat: samples not in NMI said, and what it means"
grep -q "^counter ran  *75.0% of 2.000 s (the rest multiplexed out by other perf users: lost)$" \
	"$W/out"
ok $? "prfstat: the time multiplexed out said as lost"
grep -q "^throttled  *3 (perf's rate limit" "$W/out" && grep -q "^cycles  *5000000$" "$W/out"
ok $? "prfstat: throttles and the cycles counted"
run 0 "prfstat off" $PK "$B/prfstat" -q -f "$PF" off
: >"$PFL"
run 0 "prfstat --event timer" $PK "$B/prfstat" -q -f "$PF" --event timer
plogged "SETSOURCE 0 0 0" "prfstat --event timer: back to the timer"
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 5\naddrs 0\n' >"$PW/old"
run 1 "prfstat --event cycles on a version 5 device" \
	env LD_PRELOAD="$B/fakeprf.so" FAKEPRF="$PW/old" "$B/prfstat" -f "$PW/old" --event cycles
grep_err "has no PMU source (a prf module before version 6" "--event on an old module: said"
run 0 "prfstat --event timer on a version 5 device (the timer is all it has)" \
	env LD_PRELOAD="$B/fakeprf.so" FAKEPRF="$PW/old" "$B/prfstat" -q -f "$PW/old" --event timer

# ---- prf record -e and prf top -e ----
PC=$PW/clone
run 1 "prf record -e cycles, no PMU" $PK FAKEPRF_CLONE="$PC" "$P" record $KS --no-cgroup \
	-e cycles -- sh -c 'echo RAN >&2'
grep_err "cycles: $NOPMU" "prf record -e cycles without a PMU: said"
! grep -q RAN "$W/err"
ok $? "prf record -e cycles without a PMU: the command is not run"
run 2 "prf record -e list" "$P" record -e list -- true
: >"$PFL"
run 0 "prf record -e cycles:20000 -- true" $PK FAKEPRF_CLONE="$PC" FAKEPRF_EVENTS=1 \
	FAKEPRF_PMU=4000000:1000000000:1000000000:200:0:200 "$P" record $KS --no-cgroup \
	-e cycles:20000 -- true
grep -q "^clone SETSOURCE 1 0 20000$" "$PFL" &&
	[ "$(grep -n 'SETSOURCE' "$PFL" | cut -d: -f1)" -lt "$(grep -n 'SETSTATE 1' "$PFL" | cut -d: -f1)" ]
ok $? "prf record -e cycles:20000: the source set on its instance before ON"
grep -q "^source: PMU cycles, a sample every 20000 cycles; counts in cycles (20000 a sample)$" \
	"$W/out"
ok $? "prf record -e: the report names the source and its unit"
run 0 "prf top -e cycles -n 1" $PK FAKEPRF_EVENTS=1 FAKEPRF_GROW=1 \
	FAKEPRF_PMU=4000000:1000000000:1000000000:200:0:200 "$P" top -f "$PF" $KS -e cycles \
	-n 1 -d 0.1 --lines 3 </dev/null
grep -q "PMU cycles, about 100 samples a second" "$W/out" && grep -q "^    cycles %kernel" "$W/out"
ok $? "prf top -e cycles: the title says the source, the column counts cycles"
[ "$(pkey source)" = "" ] && [ "$(pkey on)" = 0 ]
ok $? "prf top -e: the device's source (the timer) and OFF come back at exit"
run 1 "prf top -e instructions, a PMU of cycles alone" $PK FAKEPRF_EVENTS=1 "$P" top -f "$PF" $KS \
	-e instructions -n 1 -d 0.1 </dev/null
grep_err "instructions: this PMU has no such event" "prf top -e: an event the PMU lacks said"

# ---- snapshots and reports of the PMU source ----
$PK "$B/prfstat" -q -f "$PF" --event cycles:1000000
rm -f "$PW/s.prf"
$PK FAKEPRF_EVENTS=1 FAKEPRF_GROW=1 FAKEPRF_PMU=3000000000:2000000000:1000000000:0:0:3000 \
	"$B/prfsnap" -f "$PF" $KS "$PW/s.prf"
run 0 "prfsnap of the PMU source" $PK FAKEPRF_EVENTS=1 FAKEPRF_GROW=1 \
	FAKEPRF_PMU=6000000000:4000000000:2000000000:0:0:6000 "$B/prfsnap" -f "$PF" $KS "$PW/s.prf"
run 0 "prfpr --since-load of it" "$B/prfpr" --since-load "$PW/s.prf"
grep -q "^source: PMU cycles, a sample every 1000000 cycles; counts in cycles (1000000 a sample)$" \
	"$W/out"
ok $? "prfpr: the source and the unit in the header"
grep -q "^samples in NMI: 0 of 6000: the PMU's interrupt is no NMI here" "$W/out"
ok $? "prfpr: samples not in NMI said"
grep -q "^the counters ran 50.0% of the time they were on" "$W/out"
ok $? "prfpr: the time multiplexed out said"
grep -q "^    cycles %kernel  function" "$W/out"
ok $? "prfpr: the column counts cycles"
grep -q "^(totals in samples; a sample stands for 1000000 cycles)$" "$W/out"
ok $? "prfpr: the totals' unit said"
run 0 "prfpr --json of it" "$B/prfpr" --json --since-load "$PW/s.prf"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$W/out" >"$PW/json.got" 2>&1 <<'X'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["source"]
f = d["functions"][0]
print(d["unit"], s["kind"], s["event"], s["period"], s["events_per_sample"], s["samples"],
      s["samples_nmi"], f["events"] == f["samples"] * 1000000)
X
	printf 'cycles pmu cycles 1000000 1000000 6000 0 True\n' >"$PW/json.want"
	same "$PW/json.got" "$PW/json.want" "prfpr --json: the unit, the source, events per function"
fi
run 0 "prfpr --html of it" "$B/prfpr" --html "$PW/s.html" --since-load "$PW/s.prf"
grep -q '<span id="source">PMU cycles, a sample every 1000000 cycles</span>' "$PW/s.html" &&
	grep -q '"unit":"cycles","weight":1000000' "$PW/s.html"
ok $? "prfpr --html: the source and the unit"
if command -v go >/dev/null 2>&1; then
	run 0 "prfpr --pprof of it" "$B/prfpr" --pprof "$PW/s.pb.gz" --since-load "$PW/s.prf"
	go tool pprof -raw "$PW/s.pb.gz" >"$PW/raw" 2>"$PW/raw.err"
	grep -q "^PeriodType: cycles count$" "$PW/raw" && grep -q "^Period: 1000000$" "$PW/raw" &&
		grep -q "^samples/count.* cycles/count$" "$PW/raw"
	ok $? "prfpr --pprof: samples and cycles, a period of 1000000 cycles"
else
	skip "prfpr --pprof of the PMU source" "no go tool pprof (golang-go)"
fi

# ---- re-enable points: marked with the timer's samples, not with NMIs ----
# A table with a re-enable point (_raw_spin_unlock_irqrestore): where the
# PMU's interrupt is no NMI its samples are held off like the timer's, and
# the reports mark the point and say the share; where every sample came in
# NMI the PMU saw inside the irq-off code, and nothing is marked.
PI=$PW/irq
printf '%s\n' 'ffffffff9a000000 T _text' 'ffffffff9a000000 T _stext' \
	'ffffffff9a000100 T vfs_read' 'ffffffff9a000200 T _raw_spin_unlock_irqrestore' \
	'ffffffff9a000300 T schedule' 'ffffffff9a001000 T _etext' >"$PW/ks-irq.txt"
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 6\naddrs 0\n' >"$PI"
KSI="--kallsyms $PW/ks-irq.txt --proc-modules $D/modules.txt"
PKI="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$PI"
$PKI "$B/prfld" -q -f "$PI" $KSI "$PW/ks-irq.txt" &&
	$PKI FAKEPRF_EVENTS=1 "$B/prfstat" -q -f "$PI" --event cycles:1000000
ok $? "a table with a re-enable point, on the PMU source"
for nmi in 0 60; do
	rm -f "$PW/irq$nmi.prf"
	$PKI FAKEPRF_EVENTS=1 FAKEPRF_GROW=1 FAKEPRF_PMU=60000000:1000000000:1000000000:$nmi:0:60 \
		"$B/prfsnap" -f "$PI" $KSI "$PW/irq$nmi.prf"
	run 0 "prfpr of PMU samples, $nmi of 60 in NMI" "$B/prfpr" --since-load "$PW/irq$nmi.prf"
	cp "$W/out" "$PW/irq$nmi.txt"
done
grep -q "^ *[0-9]\+ \+[0-9.]\+  _raw_spin_unlock_irqrestore\* " "$PW/irq0.txt" &&
	grep -q "of kernel samples landed where interrupts are re-enabled (marked \*)" "$PW/irq0.txt"
ok $? "prfpr: PMU samples not in NMI: the re-enable point marked, its share said"
grep -q "^ *[0-9]\+ \+[0-9.]\+  _raw_spin_unlock_irqrestore " "$PW/irq60.txt" &&
	! grep -q "irqrestore\*\|interrupts are re-enabled" "$PW/irq60.txt"
ok $? "prfpr: PMU samples all in NMI: no mark, no line (the PMU saw inside)"
