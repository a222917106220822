#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prf record, prfld -p/-G and prf top --tasks against the real device, in a
# test guest with prf.ko loaded, on any kernel of the test bed:
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/tests/guest_record_test.sh
# Needs the tools and tests/burn built on the host first (make -C tools; for
# a guest of another architecture make -C tools ARCH=arm64
# OUT=build/debian-6.1-arm64/tools).  TAP output.  The ratios are of guest
# time: on a busy host, run it under an instruction-count clock, where guest
# time is instructions whatever the host does (make check does):
#   selftests/vm/run --kernel debian-6.1 --smp 2 --icount=shift=2,sleep=off \
#	--append maxcpus=1 -- tools/tests/guest_record_test.sh
# (shift=0 on debug-7.x: scripts/check.sh says why).
#
# burn (tests/burn.c) burns user CPU 2:1 in burn_two() and burn_one(), then
# reads /dev/zero; a spinner (burn --spin, comm "spinner") calls getppid(2)
# in a loop on another CPU meanwhile: from burn's start (the file go: burn
# -S, or the command prf record runs once sampling is on) to its end (the
# file stop), not before: under an instruction clock a busy CPU slows the
# other CPU's work many times over (prf record's setup took 40 s instead
# of 4 on arm64, prfld 17 s instead of 2).  Each way of choosing what to profile
# (-- COMMAND, -p PID, -G CGROUP) must see burn's ratio within 25 % of 2:1,
# its kernel phase in the zeroing path, nothing of the spinner (counted as
# filtered out instead), and leave /dev/prf as it was.
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build), BURN_SECS (user seconds of burn, default 1), HZ
# (default 1000).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
BURN=${PRF_BURN:-$B/burn}
SECS=${BURN_SECS:-1}
HZ=${HZ:-1000}
# What reads of /dev/zero spend their kernel time in.
ZERO='clear_user|rep_stos|iov_iter_zero|read_zero|__clear_user|memset|_copy_to_iter|fault_in|copy_user'
# What a debug kernel adds to every path (lockdep, KASAN, might_sleep, ...),
# the ORC unwinds of KASAN's stack records, and the interrupt entry and exit
# it slows down (the sampling timer's own, at HZ).
INSTR='lock_[a-z_]*|lockdep[a-z_]*|[a-z_]*kasan[a-z_]*|__might_[a-z_]*|debug_[a-z_]*|rcu_[a-z_]*|_raw_spin_[a-z_]*|handle_softirqs|finish_task_switch[a-z_.0-9]*|check_[a-z_]*|mark_lock[a-z_]*|__lock_[a-z_]*|trace_hardirqs_[a-z_]*'
UNWIND='unwind_[a-z_]*|__unwind_start|__orc_find|orc_find|stack_access_ok|deref_stack_reg|get_stack_info[a-z_]*|in_[a-z]*_stack|stack_trace_[a-z_]*|arch_stack_walk|__kernel_text_address|kernel_text_address|__module_address|is_module_text_address|ftrace_graph_ret_addr'
IRQ='irqentry_[a-z_]*|preempt_schedule_irq'
INSTR=" ($INSTR|$UNWIND|$IRQ) "
W=$(mktemp -d /tmp/prf-record-test.XXXXXX)
CGMNT=
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	[ -n "$CGMNT" ] && rmdir "$CGMNT"/prf-test-* 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
export LC_ALL=C

# The function rows of a text report: samples % function module.
rows() { awk '/^ +samples +%/ { on = 1; next } on && /^$/ { exit } on' "$1"; }
# Samples of rows named $2 (summed: -G sees one copy per process).
samples_of() { rows "$1" | awk -v f="$2" '$3 == f { s += $1 } END { print s + 0 }'; }
total_of() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
on_secs() { sed -n 's/.*sampling on \([0-9.]*\) s$/\1/p' "$1" | head -n 1; }
# CPU time of process $1 so far, in USER_HZ (100 Hz) ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# check_report REPORT WHAT SPIN: burn's profile, and nothing of the spinner,
# which used SPIN ticks of CPU while prf record ran.
check_report() {
	r=$1 what=$2 spin=$3
	two=$(samples_of "$r" burn_two)
	one=$(samples_of "$r" burn_one)
	awk -v a="$two" -v b="$one" 'BEGIN { exit !(b > 20 && a / b >= 1.5 && a / b <= 2.5) }'
	ok $? "$what: burn_two/burn_one = $two/$one, within 25 % of 2:1"
	rows "$r" | awk '$4 == "burn" && ($3 == "burn_two" || $3 == "burn_one")' | grep -q .
	ok $? "$what: burn's functions in the module column as burn"
	# The top kernel rows, past the debug kernel's instrumentation: the zeroing path.
	rows "$r" | awk '$4 == "kernel"' | grep -v '\[outside' | grep -Ev "$INSTR" |
		head -n 3 >"$W/ktop"
	grep -Eq "$ZERO" "$W/ktop"
	r2=$?
	ok $r2 "$what: the kernel phase in the zeroing path"
	[ $r2 -eq 0 ] || diag "$W/ktop"
	sp=$(samples_of "$r" spin_other)
	gp=$(rows "$r" | awk '$3 ~ /getppid/ { s += $1 } END { print s + 0 }')
	[ "$sp" -eq 0 ] && [ "$gp" -eq 0 ]
	ok $? "$what: nothing of the spinner (spin_other $sp, getppid $gp)"
	# An idle CPU's samples are filtered out too: the count alone cannot
	# tell the spinner from an idle CPU 1.  The spinner's CPU time while
	# prf record ran (setup included: at most the time sampling was on
	# counts) must be most of that time, and at least half of the samples
	# it is worth must have been counted as filtered out: without the
	# spinner the first fails, with its samples lost the second.
	filt=$(total_of "$r" filtered)
	on=$(on_secs "$r")
	awk -v f="${filt:-0}" -v t="$spin" -v on="${on:-0}" -v hz="$HZ" 'BEGIN {
		c = t / 100
		if (c > on)
			c = on
		exit !(on > 0 && c >= on / 2 && f >= hz * c / 2)
	}'
	ok $? "$what: the spinner's samples counted as filtered out (${filt:-none} of $HZ Hz x ${on:-?} s, spinner's CPU $spin/100 s)"
}

if [ ! -c /dev/prf ]; then
	echo "1..0 # SKIP /dev/prf is missing (prf.ko not loaded)"
	exit 0
fi
if [ ! -c /dev/prfclone ]; then
	echo "1..0 # SKIP /dev/prfclone is missing (prf.ko without private instances)"
	exit 0
fi
if [ ! -x "$B/prf" ] || [ ! -x "$BURN" ]; then
	echo "1..0 # SKIP $B/prf or $BURN missing: run make -C tools on the host first"
	exit 0
fi
P=$B/prf
# An -icount guest boots with maxcpus=1 (see selftests/vm/rate): the others online.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ -e "$f" ] && [ "$(cat "$f")" = 0 ] && echo 1 >"$f"
done
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || { echo "1..0 # SKIP needs two CPUs"; exit 0; }
# A cgroup v2 for -- COMMAND and -G.
if ! grep -q cgroup2 /proc/mounts; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
fi
CGMNT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)

wait_comm() {	# wait_comm PID COMM: until the process is named COMM
	i=0
	while [ $i -lt 100 ] && [ "$(cat /proc/"$1"/comm 2>/dev/null)" != "$2" ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
wait_exec() {	# wait_exec PID: until it runs burn (taskset has exec'ed it)
	wait_comm "$1" burn
}
spinner() {	# spinner SECS [ARG...]: on CPU 1, in the background; $SPIN its PID
	taskset -c 1 "$BURN" --spin "$@" &
	SPIN=$!
	wait_comm "$SPIN" spinner
}
devstate() {	# devstate FILE: /dev/prf's table, counters and state
	{
		dd if=/dev/prf bs=64M count=1 2>/dev/null | md5sum
		"$B/prfstat" | grep -Ev '^time on'
	} >"$1"
}

# /dev/prf: a kernel table loaded, OFF: nothing may change it.
run 0 "prfld on /dev/prf" "$B/prfld" -q
run 0 "prfstat --hz 250 off" "$B/prfstat" -q --hz 250 off
devstate "$W/dev.before"

# ---- prf record -- burn ----
rm -f "$W/go" "$W/stop"
spinner 600 -w "$W/go" -u "$W/stop"
s0=$(cpu_ticks "$SPIN")
run 0 "prf record --hz $HZ -- burn (spinner on CPU 1)" taskset -c 0 "$P" record --hz "$HZ" -c 0 \
	-- "$BURN" -S "$W/go" -D "$W/stop" -t "$SECS" -z 1
s1=$(cpu_ticks "$SPIN")
cp "$W/out" "$W/cmd.txt"
diag "$W/cmd.txt" | head -30
check_report "$W/cmd.txt" "record -- burn" $((s1 - s0))
devstate "$W/dev.after"
cmp -s "$W/dev.before" "$W/dev.after"
ok $? "record -- burn: /dev/prf's table, counters and state unchanged"
[ -z "$CGMNT" ] || ! ls -d "$CGMNT"/prf-record-* >/dev/null 2>&1
ok $? "record -- burn: its cgroup removed"
kill "$SPIN"
wait "$SPIN"

# ---- prf record -p PID ----
# Reading the process's and the kernel's symbols takes seconds under TCG (tens
# on the debug kernel): burn waits for the file go, which the command given to
# prf record creates once sampling is on; the command then waits for burn's
# file done.
gate() {	# gate N: the command that opens the gate, waits for N burns, stops the spinner
	echo "touch $W/go; while [ \$(ls $W/done.* 2>/dev/null | wc -l) -lt $1 ]; do sleep 0.1; done; touch $W/stop"
}
rm -f "$W/go" "$W/stop" "$W"/done.*
spinner 600 -w "$W/go" -u "$W/stop"
taskset -c 0 "$BURN" -w "$W/go" -D "$W/done.1" -t "$SECS" -z 1 >/dev/null &
BP=$!
wait_exec "$BP"
s0=$(cpu_ticks "$SPIN")
run 0 "prf record -p PID -- (until burn is done)" "$P" record --hz "$HZ" -c 0 -p "$BP" \
	-- sh -c "$(gate 1)"
s1=$(cpu_ticks "$SPIN")
cp "$W/out" "$W/pid.txt"
diag "$W/pid.txt" | head -30
check_report "$W/pid.txt" "record -p" $((s1 - s0))
devstate "$W/dev.after"
cmp -s "$W/dev.before" "$W/dev.after"
ok $? "record -p: /dev/prf unchanged"
kill "$SPIN"
wait "$SPIN"

# ---- prf record -G CGROUP: two processes ----
if [ -n "$CGMNT" ] && mkdir "$CGMNT/prf-test-$$" 2>/dev/null; then
	CG=$CGMNT/prf-test-$$
	rm -f "$W/go" "$W/stop" "$W"/done.*
	spinner 600 -w "$W/go" -u "$W/stop"
	for i in 1 2; do
		sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 "$2" -w "$3/go" -D "$3/done.$4" -t "$5" -z 1' \
			sh "$CG" "$BURN" "$W" "$i" "$SECS" >/dev/null &
		wait_exec $!
	done
	s0=$(cpu_ticks "$SPIN")
	run 0 "prf record -G (two burns) -- (until both are done)" "$P" record --hz "$HZ" -c 0 \
		-G "$CG" -- sh -c "$(gate 2)"
	s1=$(cpu_ticks "$SPIN")
	cp "$W/out" "$W/cg.txt"
	diag "$W/cg.txt" | head -30
	check_report "$W/cg.txt" "record -G" $((s1 - s0))
	kill "$SPIN"
	wait "$SPIN"
	wait
	rmdir "$CG"
else
	ok 0 "# SKIP record -G: no writable cgroup v2"
fi

# ---- /dev/prf ON with prfdc collecting: left as it was ----
run 0 "prfstat on" "$B/prfstat" -q on
"$B/prfdc" --period-seconds 1 "$W/dc.prf" 2>"$W/dc.err" &
DC=$!
sleep 1.5
rm -f "$W/go" "$W/stop"
spinner 600 -w "$W/go" -u "$W/stop"
run 0 "prf record --fixed --hz 500 -- burn, beside prfdc" "$P" record --fixed --hz 500 -- \
	"$BURN" -S "$W/go" -D "$W/stop" -t 1 -z 0.5
kill -TERM "$DC"
wait "$DC"
ok $? "prfdc ran through prf record"
run 0 "prfpr --all of prfdc's file: counters never went back" "$B/prfpr" --all "$W/dc.prf"
run 0 "prfstat" "$B/prfstat"
grep -q "sampling ON" "$W/out" && grep -Eq "^rate +250 Hz" "$W/out" && grep -Eq "^flags +none$" "$W/out"
ok $? "/dev/prf still ON, 250 Hz, no flags"
run 0 "prfstat off" "$B/prfstat" -q off
kill "$SPIN"
wait "$SPIN"

# ---- prf top --tasks ----
spinner 600
sleep 0.5
run 0 "prf top --tasks -n 1 -d 1" "$P" top --tasks -n 1 -d 1 --lines 5
diag "$W/out"
awk '$1 == "pid" { getline; print $2; exit }' "$W/out" >"$W/topcomm"
grep -qx spinner "$W/topcomm"
ok $? "prf top --tasks: the spinner is the top consumer of the kernel"
kill "$SPIN"
wait "$SPIN"

# ---- prfld -p: the classic commands on a process ----
rm -f "$W/go" "$W/stop" "$W"/done.*
spinner 600 -w "$W/go" -u "$W/stop"
taskset -c 0 "$BURN" -w "$W/go" -D "$W/done.1" -t "$SECS" -z 1 >/dev/null &
BP=$!
wait_exec "$BP"
run 0 "prfld -p PID" "$B/prfld" -p "$BP"
run 0 "prfsnap (before)" "$B/prfsnap" "$W/ld.prf"
run 0 "prfstat --hz $HZ on" "$B/prfstat" -q --hz "$HZ" on
sh -c "$(gate 1)"
run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prfsnap (after)" "$B/prfsnap" "$W/ld.prf"
run 0 "prfpr -c 0" "$B/prfpr" -c 0 "$W/ld.prf"
cp "$W/out" "$W/ld.txt"
# prfpr prints no "filtered" line: take it from prfstat's view of the device.
two=$(samples_of "$W/ld.txt" burn_two)
one=$(samples_of "$W/ld.txt" burn_one)
awk -v a="$two" -v b="$one" 'BEGIN { exit !(b > 20 && a / b >= 1.5 && a / b <= 2.5) }'
ok $? "prfld -p, prfpr: burn_two/burn_one = $two/$one, within 25 % of 2:1"
[ "$(samples_of "$W/ld.txt" spin_other)" -eq 0 ]
ok $? "prfld -p, prfpr: nothing of the spinner"
kill "$SPIN"
wait "$SPIN"
wait "$BP"
# Back to a plain kernel table for whoever comes next.
run 0 "prfld (kernel table again)" "$B/prfld" -q
run 0 "prfstat --hz 100" "$B/prfstat" -q --hz 100

echo "1..$n"
[ "$fail" -eq 0 ]
