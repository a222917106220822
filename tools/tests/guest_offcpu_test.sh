#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prf record --mode offcpu against the real device, in a test guest with
# prf.ko loaded:
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/tests/guest_offcpu_test.sh
# Needs the tools built on the host first (make -C tools).  TAP output.
#
# The command sleeps 0.5 s (nanosleep), then reads a FIFO whose writer, a
# process of this script outside the command's cgroup, writes 0.3 s after
# the read began: the report must be in time units, with about 0.5 s
# blocked at the nanosleep path and at pipe_read the span the writer
# measured from the reader's open to its write, 0.3 s or more (each within
# 20 %).  Blocked time is wall-clock time, whatever the emulation's speed;
# the wake-up's lateness is runnable time, counted apart.
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
W=$(mktemp -d /tmp/prf-offcpu-test.XXXXXX)
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
export LC_ALL=C

skip_unless_ready

# The nanoseconds of the CSV rows whose function matches the regex $2.
ns_of() { awk -F, -v re="$2" 'NR > 1 && $6 == "function" && $3 ~ re { s += $1 } END { print s + 0 }' "$1"; }
# within NS WANT_NS: NS within 20 % of WANT_NS
within() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 0.8 * b && a <= 1.2 * b) }'; }

# ---- the scheduler's text, from kallsyms onto the device ----
start=$(awk '$3 == "__sched_text_start" && NF == 3 { print $1; exit }' /proc/kallsyms)
end=$(awk '$3 == "__sched_text_end" && NF == 3 { print $1; exit }' /proc/kallsyms)
"$B/prfstat" -f /dev/prf -q off
run 0 "prfstat --mode offcpu" "$B/prfstat" -f /dev/prf --mode offcpu
if grep -q "offcpu mode not supported by this prf.ko" "$W/err"; then
	echo "1..$n # SKIP this prf.ko has no offcpu mode"
	exit 0
fi
grep -q "^mode  *offcpu (nanoseconds)$" "$W/out"
ok $? "prfstat: the offcpu mode, in nanoseconds"
# kallsyms pads to 16 digits; prfstat prints the number
grep -q "^sched text  *$(echo "$start" | sed 's/^0*//')-$(echo "$end" | sed 's/^0*//')$" "$W/out"
r=$?
ok $r "prfstat: the scheduler's text is kallsyms' __sched_text_start-__sched_text_end ($start-$end)"
[ $r -eq 0 ] || diag "$W/out"
run 0 "prfstat --mode time (back)" "$B/prfstat" -f /dev/prf -q --mode time

# ---- prf record --mode offcpu: a sleep, then a read of a FIFO ----
# A cgroup v2, for the command's children (the sleep) to count.
if ! grep -q cgroup2 /proc/mounts; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
fi
mkfifo "$W/fifo"
# The writer opens the FIFO (waiting for the reader), then writes 0.3 s
# later, and says when it opened and when it wrote (bash's own clock, no
# process of its own): the reader's wait in pipe_read is that span, which
# starting sleep(1) under emulation beside other guests stretched to 0.39 s.
bash -c 'exec 3>"$1"; t0=$EPOCHREALTIME; sleep 0.3; echo x >&3; echo "$t0 $EPOCHREALTIME" >"$2"' \
	writer "$W/fifo" "$W/span" &
run 0 "prf record --mode offcpu -- sh -c 'sleep 0.5; read l < FIFO'" \
	"$B/prf" record --mode offcpu -o "$W/rec.prf" -- sh -c 'sleep 0.5; read l <"$1"' reader "$W/fifo"
wait
cp "$W/out" "$W/rec.txt"
diag "$W/rec.txt"
grep -q "^mode offcpu: counts nanoseconds; counter N: outside table, N + 1: runnable$" "$W/rec.txt" &&
	grep -q "^   off-cpu %kernel  function" "$W/rec.txt"
r=$?
ok $r "prf record --mode offcpu: the report counts time off the CPU"
grep -q "^filtered  *[0-9]*  nanoseconds of other processes" "$W/rec.txt"
ok $? "prf record --mode offcpu: what the filter left out is in nanoseconds"
[ $r -eq 0 ] || diag "$W/rec.txt"
awk '/^ +off-cpu +%/ { on = 1; next } on && /^$/ { exit } on { print $2 }' "$W/rec.txt" | sort -u >"$W/units"
grep -Eqx 'ns|us|ms|s' "$W/units" && ! grep -Eqvx 'ns|us|ms|s' "$W/units"
ok $? "prf record --mode offcpu: the rows in time units ($(tr '\n' ' ' <"$W/units"))"
run 0 "prfpr --csv of the record" "$B/prfpr" --csv -c 0 --since-load "$W/rec.prf"
cp "$W/out" "$W/rec.csv"
sleep_ns=$(ns_of "$W/rec.csv" 'nanosleep|nsleep')
pipe_ns=$(ns_of "$W/rec.csv" '^pipe_read$')
within "$sleep_ns" 500000000
r=$?
ok $r "the nanosleep path holds about 0.5 s ($sleep_ns ns)"
[ $r -eq 0 ] || head -20 "$W/rec.csv" | diag
span_ns=$(awk '{ printf "%.0f", ($2 - $1) * 1e9 }' "$W/span" 2>/dev/null)
within "$pipe_ns" "${span_ns:-300000000}" && [ "${span_ns:-0}" -ge 300000000 ]
r=$?
ok $r "pipe_read holds the writer's 0.3 s or more ($pipe_ns ns of its ${span_ns:-?} between open and write)"
[ $r -eq 0 ] || head -20 "$W/rec.csv" | diag

echo "1..$n"
[ "$fail" -eq 0 ]
