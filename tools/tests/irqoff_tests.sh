# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of what the timer cannot see (issue 24, src/irqoff.c): the
# re-enable points marked in every time-mode report, the line on their
# share, and --irqoff-to-caller.  Sourced by run_host_tests.sh, whose
# ok/run/same/grep_err/skip, $B, $T, $D, $E, $W, $P and $VG it uses.  The
# fixture is irqoff_test's (--make: see tests/irqoff_test.c); the device
# commands run on the LD_PRELOAD stand-in (tests/fakeprf.c).

sub_tap "irqoff unit" "$B/irqoff_test"

IW=$W/irqoff
mkdir -p "$IW"
"$B/irqoff_test" --make "$IW/irqoff.prf"
ok $? "irqoff fixture written"
cd "$IW" || exit 1
LINE="of kernel samples landed where interrupts are re-enabled (marked \\*): time spent with interrupts off in code before them, which the timer cannot sample; a PMU (NMI) source places it\\.\$"

# ---- the text report ----
run 0 "prfpr of a file with re-enable points" "$B/prfpr" irqoff.prf
same "$W/out" "$E/irqoff.txt" "prfpr: re-enable points marked *, the report ends with their share (48.0%)"
tail -1 "$W/out" | grep -q "^48\\.0% $LINE"
ok $? "prfpr: the last line, 480 of 1000 kernel samples"
run 0 "prfpr --of all -c 10" "$B/prfpr" --of all -c 10 irqoff.prf
tail -1 "$W/out" | grep -q "^48\\.0% $LINE" && grep -q "^       300   15\\.15  _raw_spin_unlock_irqrestore\\* kernel " "$W/out"
ok $? "prfpr --of all: the share is still of the kernel's samples, the mark kept"
run 0 "prfpr -m ext4 (no row shown)" "$B/prfpr" -m ext4 irqoff.prf
tail -1 "$W/out" | grep -q "^48\\.0% $LINE"
ok $? "prfpr -m: the line counts every kernel row, shown or not"
"$B/unit_test" --make-fixture flat.prf
run 0 "prfpr of a file without re-enable points" "$B/prfpr" --from 2 --to 3 flat.prf
! grep -q "interrupts\\|\\*  *kernel" "$W/out"
ok $? "prfpr: no re-enable point sampled, no mark and no line"

# ---- --irqoff-to-caller ----
run 0 "prfpr --irqoff-to-caller" "$B/prfpr" --irqoff-to-caller irqoff.prf
same "$W/out" "$E/irqoff_caller.txt" "prfpr --irqoff-to-caller: the callers' rows, what moved, what stayed (1.5%)"
run 0 "prfpr --folded --irqoff-to-caller" "$B/prfpr" --folded --irqoff-to-caller irqoff.prf
cat >"$IW/folded.want" <<'X'
vfs_read;clear_user_rep_good 400
__wake_up_common_lock;try_to_wake_up 240
schedule;__schedule 150
__wake_up_common_lock 90
sysvec_apic_timer_interrupt 25
vfs_read;clear_user_rep_good;_raw_spin_unlock_bh 25
_raw_spin_unlock_irqrestore 10
__irq_exit_rcu;handle_softirqs 5
[user] 100
[idle] 880
[outside] 20
[stack dropped] 35
X
same "$W/out" "$IW/folded.want" "prfpr --folded --irqoff-to-caller: each stack charged to the caller that held interrupts off, exact"
run 0 "prfpr --folded (off by default)" "$B/prfpr" --folded irqoff.prf
grep -q "^schedule;__schedule;finish_task_switch\\.isra\\.0 100$" "$W/out" &&
	grep -q "^__wake_up_common_lock;try_to_wake_up;_raw_spin_unlock_irqrestore 200$" "$W/out"
ok $? "prfpr --folded: the stacks as taken without the option"
run 0 "prfpr --callees __schedule --irqoff-to-caller" "$B/prfpr" --callees __schedule --irqoff-to-caller irqoff.prf
cat >"$IW/callees.want" <<'X'
callees of __schedule: 150 samples in 2 stacks
   samples    %func  callee
       150   100.00  [self]
(--irqoff-to-caller: a stack whose leaf re-enabled interrupts starts at the caller that held them off)
X
same "$W/out" "$IW/callees.want" "prfpr --callees --irqoff-to-caller: the stacks charged to __schedule, and said"
run 0 "prfpr --callees __schedule" "$B/prfpr" --callees __schedule irqoff.prf
grep -q "^       100    66\\.67  finish_task_switch\\.isra\\.0 \\[kernel\\]$" "$W/out" && ! grep -q "irqoff" "$W/out"
ok $? "prfpr --callees without the option: finish_task_switch under __schedule"
run 1 "prfpr --irqoff-to-caller on a file without stacks" "$B/prfpr" --irqoff-to-caller --from 2 --to 3 flat.prf
grep_err "flat.prf: --irqoff-to-caller: snapshots 2 to 3 have no stacks (take them with stacks on" \
	"--irqoff-to-caller without stacks: said how to get them"
"$B/stacks_test" --make-alloc alloc.prf
run 1 "prfpr --irqoff-to-caller on an alloc-bytes file" "$B/prfpr" --irqoff-to-caller alloc.prf
grep_err "alloc.prf: --irqoff-to-caller: snapshots 1 to 2 count bytes, not time" \
	"--irqoff-to-caller in another mode: refused, said"
run 0 "prfpr of an alloc-bytes file" "$B/prfpr" alloc.prf
! grep -q "interrupts" "$W/out"
ok $? "alloc-bytes: no line on re-enable points (no sample waits for interrupts)"
run 2 "prfpr --irqoff-to-caller --diff" "$B/prfpr" --irqoff-to-caller --diff 1:2 irqoff.prf
grep_err "irqoff-to-caller goes with a report of the file's own stacks" "--irqoff-to-caller --diff: usage error"

# ---- the other formats ----
run 0 "prfpr --csv" "$B/prfpr" --csv irqoff.prf
head -4 "$W/out" >"$IW/csv.got"
printf 'samples,percent,function,module,address,kind,percent_of,irq_reenable\n400,40.00,clear_user_rep_good,kernel,0xffffffff9a000a00,function,kernel,0\n300,30.00,_raw_spin_unlock_irqrestore,kernel,0xffffffff9a000200,function,kernel,1\n100,10.00,finish_task_switch.isra.0,kernel,0xffffffff9a000400,function,kernel,1\n' >"$IW/csv.want"
same "$IW/csv.got" "$IW/csv.want" "prfpr --csv: an irq_reenable column, 1 on re-enable points"
[ "$(awk -F, '{ print NF }' "$W/out" | sort -u)" = 8 ]
ok $? "prfpr --csv: every line has the 8 columns"
run 0 "prfpr --json" "$B/prfpr" --json -c 0 irqoff.prf
run 0 "prfpr --json --irqoff-to-caller" "$B/prfpr" --json -c 0 --irqoff-to-caller irqoff.prf
cp "$W/out" "$IW/caller.json"
"$B/prfpr" --json -c 0 irqoff.prf >"$IW/plain.json"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$IW/plain.json" "$IW/caller.json" >"$IW/json.got" 2>&1 <<'X'
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    print(",".join(x["function"] for x in d["functions"] if x["irq_reenable"]))
    print(",".join(x["function"] for x in d["functions"] if not x["irq_reenable"]))
    q = d["irq_reenable"]
    print(q["samples"], q["percent_of_kernel"], q["to_caller"], q["moved"], q["note"])
    print(d["stacks"].get("irqoff_to_caller"), d["stacks"].get("irqoff_moved"))
X
	cat >"$IW/json.want" <<'X'
_raw_spin_unlock_irqrestore,finish_task_switch.isra.0,_raw_spin_unlock_irq,handle_softirqs
clear_user_rep_good,try_to_wake_up,_raw_spin_unlock_bh,__schedule,__wake_up_common_lock,sysvec_apic_timer_interrupt
480 48.0 False 0 time spent with interrupts off in code before them, which the timer cannot sample; a PMU (NMI) source places it.
None None
_raw_spin_unlock_irqrestore,handle_softirqs
clear_user_rep_good,try_to_wake_up,__schedule,__wake_up_common_lock,sysvec_apic_timer_interrupt,_raw_spin_unlock_bh
15 1.5 True 465 time spent with interrupts off in code before them, which the timer cannot sample; a PMU (NMI) source places it.
True 465
X
	same "$IW/json.got" "$IW/json.want" "prfpr --json: each function's irq_reenable, their samples and share, --irqoff-to-caller's moves"
else
	grep -q '"function": "_raw_spin_unlock_irqrestore", .*"irq_reenable": true}' "$IW/plain.json" &&
		grep -q '"irq_reenable": {"samples": 480, "percent_of_kernel": 48.00, "to_caller": false' "$IW/plain.json"
	ok $? "prfpr --json: irq_reenable of the functions and their share"
fi
run 0 "prfpr --diff 1:2 --since-load --to 2" "$B/prfpr" --diff 1:2 --since-load --to 2 -c 5 irqoff.prf
grep -q "^  30\\.00   29\\.54    -0\\.46    0\\.98  _raw_spin_unlock_irqrestore\\* kernel$" "$W/out" &&
	grep -q "^  40\\.00   42\\.19    +2\\.19    1\\.05  clear_user_rep_good          kernel$" "$W/out" &&
	tail -1 "$W/out" | grep -q "^base 48\\.0%, new 46\\.4% $LINE"
ok $? "prfpr --diff: re-enable points marked, both shares said"
run 0 "prfpr --pprof" "$B/prfpr" --pprof plain.pb.gz irqoff.prf
run 0 "prfpr --pprof --irqoff-to-caller" "$B/prfpr" --pprof caller.pb.gz --irqoff-to-caller irqoff.prf
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	go tool pprof -tags plain.pb.gz 2>/dev/null | sed 's/  */ /g' >"$IW/tags"
	grep -q "^ irq: Total 480.0$" "$IW/tags" && grep -q "^ 480.0 ( 100%): re-enable point$" "$IW/tags"
	ok $? "go tool pprof -tags: the samples of re-enable points labelled irq=re-enable point (480)"
	go tool pprof -comments caller.pb.gz >"$IW/comments" 2>&1
	grep -q "^--irqoff-to-caller: 465 samples at re-enable points charged" "$IW/comments" &&
		grep -q "^1\\.5% $LINE" "$IW/comments"
	ok $? "go tool pprof -comments: the report's lines"
	go tool pprof -tags caller.pb.gz 2>/dev/null | grep -q "irq: Total 15.0"
	ok $? "go tool pprof -tags with --irqoff-to-caller: the 15 samples left at re-enable points"
else
	skip "go tool pprof reads the labels and comments" "go not installed"
fi
run 0 "prfpr --html" "$B/prfpr" --html irqoff.html irqoff.prf
grep -q '^<p id="irqoff">48\.0% of kernel samples landed where interrupts are re-enabled (marked \*)' irqoff.html &&
	grep -q '^\["_raw_spin_unlock_irqrestore","kernel","ffffffff9a000200",300,1\],$' irqoff.html &&
	grep -q '^\["clear_user_rep_good","kernel","ffffffff9a000a00",400,0\],$' irqoff.html
ok $? "prfpr --html: the line, and each function's flag in the page's data"
run 0 "prfpr --html --irqoff-to-caller" "$B/prfpr" --html caller.html --irqoff-to-caller irqoff.prf
grep -q '^<p id="irqoff">--irqoff-to-caller: 465 samples .*<br>1\.5% of kernel samples' caller.html &&
	grep -q '^\["schedule;__schedule",150\],$' caller.html
ok $? "prfpr --html --irqoff-to-caller: said, and the flame graph's stacks charged"
CHR=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHR=$c; break; }
done
if [ -n "$CHR" ]; then
	timeout 120 "$CHR" --headless --disable-gpu --no-sandbox --user-data-dir="$IW/profile" \
		--virtual-time-budget=5000 --dump-dom "file://$IW/irqoff.html" >"$IW/dom" 2>/dev/null
	grep -o '<td class="l">[^<]*<span class="irq"[^>]*>\*</span></td>' "$IW/dom" |
		sed 's/<td class="l">\([^<]*\)<.*/\1/' | sort >"$IW/dom.got"
	printf '%s\n' _raw_spin_unlock_irq _raw_spin_unlock_irqrestore finish_task_switch.isra.0 handle_softirqs >"$IW/dom.want"
	same "$IW/dom.got" "$IW/dom.want" "prfpr --html rendered: the re-enable points' rows marked *, no other"
else
	skip "prfpr --html rendered by Chromium" "chromium not installed"
fi

# ---- prf top and prf record on the stand-in device ----
printf '%s\n' "ffffffff9a000000 T _text" "ffffffff9a000000 T _stext" \
	"ffffffff9a000100 T try_to_wake_up" "ffffffff9a000200 T _raw_spin_unlock_irqrestore" \
	"ffffffff9a000300 T schedule" "ffffffff9a001000 T _etext" >"$IW/kallsyms"
IKS="--kallsyms $IW/kallsyms --proc-modules /dev/null"
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$IW/prf"
IK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$IW/prf FAKEPRF_LOG=$IW/log"
$IK "$B/prfld" -q -f "$IW/prf" $IKS
# The fake's entry i grows by (i + 1)^2 a read: _stext 1, try_to_wake_up 4,
# _raw_spin_unlock_irqrestore 9, schedule 16, the end 25 in the interval.
run 0 "prf top -n 1 (re-enable point sampled)" $IK FAKEPRF_GROW=1 "$P" top -f "$IW/prf" $IKS -n 1 -d 0.05
grep -q "^         9   16\\.36  _raw_spin_unlock_irqrestore\\* kernel " "$W/out" &&
	grep -q "^         4    7\\.27  try_to_wake_up               kernel " "$W/out" &&
	sed '/^$/d' "$W/out" | tail -1 | grep -q "^16\\.4% $LINE"
ok $? "prf top: the row marked, the share after the totals"
# In a terminal of 12 lines: the line below the totals takes a row's place,
# the title stays on top (a line too many would scroll it away).
if command -v tmux >/dev/null 2>&1; then
	ITM="tmux -L prf-irqoff-test-$$ -f /dev/null"
	printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$IW/prf"
	$IK "$B/prfld" -q -f "$IW/prf" $IKS
	$ITM new-session -d -s top -x 100 -y 12 \
		"env TERM=screen LD_PRELOAD=$B/fakeprf.so FAKEPRF=$IW/prf FAKEPRF_GROW=1 $P top -f $IW/prf $IKS -d 0.2; echo EXIT=\$?; sleep 30"
	i=0
	while [ $i -lt 100 ]; do
		$ITM capture-pane -p -t top >"$IW/pane" 2>/dev/null &&
			grep -q "of kernel samples landed where interrupts are re-enabled" "$IW/pane" && break
		sleep 0.1
		i=$((i + 1))
	done
	head -1 "$IW/pane" | grep -q "^prf top - " &&
		grep -q "^ *9 *[0-9.]*  _raw_spin_unlock_irqrestore\\* " "$IW/pane" &&
		[ "$(grep -c '#$' "$IW/pane")" = 3 ] &&
		grep -q "^16\\.4% of kernel samples landed where interrupts are re-enabled (marked \\*): time" "$IW/pane"
	r=$?
	ok $r "prf top at 100x12: the line on re-enable points below the totals, cut to the width, the title kept"
	[ $r -eq 0 ] || diag "$IW/pane"
	$ITM send-keys -t top q
	sleep 0.3
	$ITM kill-server 2>/dev/null
else
	skip "prf top in tmux with re-enable points" "tmux not installed"
fi
run 2 "prf record --irqoff-to-caller without -g" "$P" record --irqoff-to-caller -- true
grep_err "irqoff-to-caller goes with -g, in the time mode" "prf record --irqoff-to-caller without -g: said"
run 2 "prf record -g --mode calls --irqoff-to-caller" "$P" record -g --mode calls --irqoff-to-caller -- true
if command -v true >/dev/null 2>&1; then
	run 0 "prf record -g --irqoff-to-caller --folded (stand-in device)" $IK FAKEPRF_CLONE="$IW/clone" FAKEPRF_GROW=1 \
		FAKEPRF_STACKS="3:0:ffffffff9a000210,ffffffff9a000111,ffffffff9a000311" \
		"$P" record $IKS --no-cgroup -g --irqoff-to-caller --folded -- true
	grep -q "^schedule;try_to_wake_up [0-9]*$" "$W/out" && ! grep -q "_raw_spin_unlock_irqrestore [0-9]" "$W/out"
	ok $? "prf record -g --irqoff-to-caller: the stack charged to try_to_wake_up"
	run 0 "prf record -g --irqoff-to-caller (text)" $IK FAKEPRF_CLONE="$IW/clone" FAKEPRF_GROW=1 \
		FAKEPRF_STACKS="3:0:ffffffff9a000210,ffffffff9a000111,ffffffff9a000311" \
		"$P" record $IKS --no-cgroup -g -c 0 --irqoff-to-caller -- true
	grep -q "^--irqoff-to-caller: [1-9][0-9]* samples at re-enable points charged to the first caller" "$W/out"
	ok $? "prf record -g --irqoff-to-caller: the report says what it moved"
fi

# ---- valgrind ----
if [ -n "$VG" ]; then
	$VG "$B/irqoff_test" >"$IW/vg.out" 2>&1
	ok $? "valgrind: irqoff_test leak-free and clean"
	($VG "$B/prfpr" --irqoff-to-caller irqoff.prf && $VG "$B/prfpr" --json --irqoff-to-caller irqoff.prf &&
		$VG "$B/prfpr" --pprof vg.pb.gz --irqoff-to-caller irqoff.prf &&
		$VG "$B/prfpr" --html vg.html --irqoff-to-caller irqoff.prf &&
		$VG "$B/prfpr" --callees __schedule --irqoff-to-caller irqoff.prf &&
		$VG "$B/prfpr" --csv --diff 1:2 --since-load --to 2 irqoff.prf) >"$IW/vg.out" 2>&1
	ok $? "valgrind: prfpr --irqoff-to-caller (text, JSON, pprof, HTML, callers), --diff"
	[ $? -eq 0 ] || tail -30 "$IW/vg.out" | diag
fi
cd - >/dev/null || exit 1
