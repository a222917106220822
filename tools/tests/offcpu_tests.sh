# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of the offcpu mode (PRF_MODE_OFFCPU, PRF_SETSCHEDTEXT): sourced
# by run_host_tests.sh, whose ok/run/same/grep_err, $B, $D, $W and $P it
# uses.  The device is the LD_PRELOAD stand-in (tests/fakeprf.c); the
# kallsyms file is the fixture with the scheduler's text added.

OW=$W/offcpu
mkdir -p "$OW"
OF=$OW/prf
OL=$OW/log
cp "$D/kallsyms.txt" "$OW/ks"
printf 'ffffffff9a000500 T __sched_text_start\nffffffff9a000900 T __sched_text_end\n' >>"$OW/ks"
OKS="--kallsyms $OW/ks --proc-modules $D/modules.txt"
OK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$OF FAKEPRF_LOG=$OL"
ologged() {	# ologged EXPECTED DESCRIPTION
	printf '%s\n' "$1" | sed '/^$/d' >"$OW/log.want"
	same "$OL" "$OW/log.want" "$2"
	: >"$OL"
}
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$OF"
$OK "$B/prfld" -q -f "$OF" $OKS "$OW/ks"
: >"$OL"

# ---- setting the mode: the scheduler's text from kallsyms, or a clear no ----
# kptr_restrict: every address 0
sed 's/^[0-9a-f]*/0000000000000000/' "$OW/ks" >"$OW/ks.zero"
run 1 "prfstat --mode offcpu, kallsyms zeroed" $OK "$B/prfstat" -f "$OF" --kallsyms "$OW/ks.zero" --mode offcpu
grep_err "offcpu mode: the scheduler's text is needed: $OW/ks.zero shows zeroed addresses (kernel.kptr_restrict" \
	"--mode offcpu with zeroed kallsyms: kptr_restrict said"
[ ! -s "$OL" ] && ! grep -q '^mode' "$OF"
ok $? "--mode offcpu with zeroed kallsyms: nothing set (not even the mode)"
run 1 "prfstat --mode offcpu, no __sched_text_start" $OK "$B/prfstat" -f "$OF" --kallsyms "$D/kallsyms.txt" --mode offcpu
grep_err "offcpu mode: the scheduler's text is needed: $D/kallsyms.txt: no __sched_text_start symbol" \
	"--mode offcpu without the scheduler's symbols: said"
[ ! -s "$OL" ]
ok $? "--mode offcpu without the scheduler's symbols: nothing set"
run 1 "prfstat --mode offcpu on an older prf.ko" $OK FAKEPRF_NO_OFFCPU=1 "$B/prfstat" -f "$OF" --kallsyms "$OW/ks" --mode offcpu
grep_err "^prfstat: $OF: offcpu mode not supported by this prf.ko" "--mode offcpu on a module without it: said"
run 0 "prfstat -v --mode offcpu on" $OK "$B/prfstat" -v -f "$OF" --kallsyms "$OW/ks" --mode offcpu on
ologged "SETMODE 4
SETSCHEDTEXT ffffffff9a000500 ffffffff9a000900
SETSTATE 1" "prfstat --mode offcpu on: the mode, then __sched_text_start..__sched_text_end, then ON"
grep -q "^mode  *offcpu (nanoseconds)$" "$W/out" &&
	grep -q "^sched text  *ffffffff9a000500-ffffffff9a000900$" "$W/out"
ok $? "prfstat shows the offcpu mode and the scheduler's text"
run 1 "prfstat --mode offcpu while ON" $OK "$B/prfstat" -f "$OF" --kallsyms "$OW/ks" --mode offcpu
grep_err "PRF_SETSCHEDTEXT: Device or resource busy" "--mode offcpu while ON: EBUSY said"
run 0 "prfstat in the offcpu mode" $OK FAKEPRF_OFFCPU_NS=1500000000:2500:750000 "$B/prfstat" -f "$OF"
grep -q "^ticks total  *1500000000 ns (1.50 s)$" "$W/out" &&
	grep -q "^outside table  *2500 ns (2.5 us)$" "$W/out" &&
	grep -q "^runnable  *750000 ns (750.0 us)$" "$W/out"
ok $? "prfstat in the offcpu mode: the times in ns and in human units, counters N/N+1 named"
: >"$OL"

# ---- reports: times ----
rm -f "$OW/s.prf"
OPCS=FAKEPRF_PCS=ffffffff9a000110:1500000000,ffffffff9a000300:2000000
run 0 "prfsnap in the offcpu mode" $OK FAKEPRF_GROW=1 $OPCS "$B/prfsnap" -f "$OF" $OKS "$OW/s.prf"
run 0 "prfpr of it" "$B/prfpr" --since-load "$OW/s.prf"
grep -q "^mode offcpu: counts nanoseconds; counter N: outside table, N + 1: runnable$" "$W/out" &&
	grep -q "^   off-cpu %kernel  function module$" "$W/out" &&
	grep -q "^    1.50 s   99.87  alpha    kernel" "$W/out" &&
	grep -q "^    2.0 ms    0.13  (12 more functions" "$W/out"
ok $? "prfpr in the offcpu mode: the rows in s and ms"
grep -q "^device .*, Linux [^,]*$" "$W/out" && grep -q "^at .*: counting on [0-9.]* s$" "$W/out"
ok $? "prfpr in the offcpu mode: the header has no rate and says counting, not sampling"
sed -n '/^kernel /,/^total /p' "$W/out" >"$OW/totals.got"
cat >"$OW/totals.want" <<'X'
kernel            1.50 s  100.00%
outside table       5 ns    0.00%
runnable           50 ns    0.00%
total             1.50 s  100.00%
X
same "$OW/totals.got" "$OW/totals.want" "prfpr in the offcpu mode: the totals in time units"
run 0 "prfpr --folded of it" "$B/prfpr" --folded --since-load "$OW/s.prf"
printf 'kernel;alpha 1500000004\n[outside table] 5\n[runnable] 50\n' >"$OW/folded.want"
same "$W/out" "$OW/folded.want" "prfpr --folded in the offcpu mode: nanoseconds as the values, counters N/N+1 by name"
run 0 "prfpr --html of it" "$B/prfpr" --html "$OW/s.html" --since-load "$OW/s.prf"
grep -q "A flame graph of waits: the time tasks spent off the CPU, in nanoseconds" "$OW/s.html" &&
	grep -q '<th data-key="samples">waited<br><small>nanoseconds</small></th>' "$OW/s.html" && grep -q '"unit":"nanoseconds"' "$OW/s.html"
ok $? "prfpr --html in the offcpu mode: a flame graph of waits, in nanoseconds"
run 0 "prfpr --pprof of it" "$B/prfpr" --pprof "$OW/s.pb.gz" --since-load "$OW/s.prf"
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	go tool pprof -raw "$OW/s.pb.gz" >"$OW/raw" 2>&1
	grep -q "^PeriodType: off-cpu nanoseconds$" "$OW/raw" && grep -q "^off-cpu/nanoseconds\[dflt\]$" "$OW/raw" &&
		grep -q "^ 1500000004: 1 $" "$OW/raw"
	r=$?
	ok $r "go tool pprof -raw in the offcpu mode: sample type off-cpu, unit nanoseconds, alpha's 1500000004"
	[ $r -eq 0 ] || diag "$OW/raw"
else
	skip "go tool pprof reads the offcpu mode's unit" "go not installed"
fi

# ---- prf record and prf top ----
: >"$OL"
run 0 "prf record --mode offcpu -- true" $OK FAKEPRF_CLONE="$OW/clone" "$P" record $OKS --no-cgroup --mode offcpu -- true
sed -e 's/^clone //' -e 's/^\(SETFILTER [0-9]\) [0-9]*$/\1 X/' -e 's/^LOAD [0-9]*$/LOAD X/' "$OL" >"$OW/rec.got"
printf 'SETFILTER 1 X\nLOAD X\nSETFLAGS 8\nSETMODE 4\nSETSCHEDTEXT ffffffff9a000500 ffffffff9a000900\nSETSTATE 1\nSETSTATE 0\n' >"$OW/rec.want"
same "$OW/rec.got" "$OW/rec.want" "prf record --mode offcpu: the mode and the scheduler's text set on its instance before ON"
grep -q "^mode offcpu: counts nanoseconds" "$W/out" && grep -q "^   off-cpu %kernel" "$W/out"
ok $? "prf record --mode offcpu: the report counts time off the CPU"
: >"$OL"
run 1 "prf record --mode offcpu, no scheduler's symbols" $OK FAKEPRF_CLONE="$OW/clone" "$P" record --kallsyms "$D/kallsyms.txt" --proc-modules "$D/modules.txt" --no-cgroup --mode offcpu -- true
grep_err "offcpu mode: the scheduler's text is needed: $D/kallsyms.txt: no __sched_text_start symbol" \
	"prf record --mode offcpu without the scheduler's symbols: said"
! grep -q "SETSTATE 1" "$OL"
ok $? "prf record --mode offcpu without the scheduler's symbols: never ON"
$OK "$B/prfstat" -q -f "$OF" off
$OK "$B/prfstat" -q -f "$OF" --kallsyms "$OW/ks" --mode time
: >"$OL"
run 0 "prf top --mode offcpu -n 1" $OK FAKEPRF_GROW=1 $OPCS "$P" top -f "$OF" $OKS --mode offcpu -n 1 -d 0.1 --lines 2
# the fake's counters grow by (i + 1)^2 a read: kvm_b (the 12th) by 144 ns
grep -q "^   off-cpu %kernel  function" "$W/out" && grep -q "^    144 ns   17.58  kvm_b " "$W/out" &&
	grep -q "^kernel 819 ns (93.7%)  outside table 5 ns (0.6%)  runnable 50 ns (5.7%)$" "$W/out"
r=$?
ok $r "prf top --mode offcpu: rows and counters N/N+1 in time units"
[ $r -eq 0 ] || diag "$W/out"
grep -E '^(SETMODE|SETSCHEDTEXT|SETSTATE)' "$OL" | tr '\n' ' ' >"$OW/top.log"
[ "$(cat "$OW/top.log")" = "SETMODE 4 SETSCHEDTEXT ffffffff9a000500 ffffffff9a000900 SETSTATE 1 SETSTATE 0 SETMODE 0 " ]
ok $? "prf top --mode offcpu: the mode and the scheduler's text before ON, the time mode back at exit ($(cat "$OW/top.log"))"
