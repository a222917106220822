#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/daemon.sh - what prf daemon itself costs: its memory (the peak, and
# between intervals) and its CPU time per interval, with the whole table of
# this host's /proc/kallsyms and stacks of 16 frames, as the goal of an
# always-on collection states it (under 20 MB and under 0.1 % of a CPU at
# one-minute intervals).
#
#   bench/daemon.sh [SECONDS]     (default 30; make -C bench daemon)
#
# The device is the tools' stand-in (tools/build/fakeprf.so: prf.ko is never
# loaded into this host's kernel), which counts every loaded address and
# gives a stack for each: every interval names, encodes and stores as much
# as a busy machine's would.  Its reads are done in the daemon's process, so
# the CPU time is an upper bound of the daemon's own.  Intervals are 1 s
# (DAEMON_INTERVAL), so that a run has many; the cost of one interval does
# not depend on how long it was.
#
# Fails (exit 1) when the daemon does not exit 0 on SIGTERM, records fewer
# than 5 intervals, or stores no stack whose frames all have names: a
# collection that counts nothing is no measurement.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/tools/build
SECS=${1:-30}
IVL=${DAEMON_INTERVAL:-1}
KALLSYMS=${DAEMON_KALLSYMS:-/proc/kallsyms}

for f in prf prfpr fakeprf.so; do
	[ -e "$B/$f" ] || { echo "daemon.sh: $B/$f: build the tools first (make -C tools)" >&2; exit 2; }
done
W=$(mktemp -d /tmp/prf-bench-daemon.XXXXXX)
trap 'kill -9 "$pid" 2>/dev/null; rm -rf "$W"' EXIT
pid=

printf 'on 0\nhz 100\nflags 0\nmax 262144\nversion 6\naddrs 0\n' >"$W/prf"
LD_PRELOAD=$B/fakeprf.so FAKEPRF=$W/prf FAKEPRF_CLONE=$W/clone FAKEPRF_GROW=1 \
	"$B/prf" daemon -c /dev/null --kallsyms "$KALLSYMS" --proc-modules /proc/modules \
	--dir "$W/store" --interval "$IVL" --stacks 16 >"$W/out" 2>&1 &
pid=$!

# CPU time (utime + stime, clock ticks) and RSS, sampled each 0.2 s
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
rss_min='' rss_max=0 t_first='' n_first=''
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.2
	n=$(find "$W/store" -name 'seg-*' 2>/dev/null | wc -l)
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || break
	# from the second interval on: the start (the table, the first names) is the peak's
	if [ -z "$t_first" ] && [ "$n" -gt 0 ] && "$B/prfpr" -l "$W/store" >"$W/l" 2>/dev/null &&
		[ "$(awk 'NR == 1 { print $2 }' "$W/l")" -ge 2 ]; then
		t_first=$(ticks)
		n_first=$(awk 'NR == 1 { print $2 }' "$W/l")
	fi
	if [ -n "$t_first" ]; then
		[ -z "$rss_min" ] || [ "$rss" -lt "$rss_min" ] && rss_min=$rss
		[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	fi
done
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
t_last=$(ticks)
"$B/prfpr" -l "$W/store" >"$W/l"
n_last=$(awk 'NR == 1 { print $2 }' "$W/l")
kill -TERM "$pid"
st=0
wait "$pid" || st=$?
pid=
addrs=$(sed -n 's/.*collecting on [^ ]* (\([0-9]*\) addresses).*/\1/p' "$W/out")
"$B/prfpr" --folded --all "$W/store" >"$W/folded"
named=$(grep -c '^[^[]' "$W/folded" || true)
unnamed=$(grep -c '0x[0-9a-f]' "$W/folded" || true)

fail=0
[ "$st" -eq 0 ] || { echo "daemon.sh: FAIL: prf daemon exited $st on SIGTERM"; fail=1; }
if [ -z "$n_first" ] || [ "$((n_last - n_first))" -lt 5 ]; then
	echo "daemon.sh: FAIL: fewer than 5 intervals recorded (${n_first:-0} to $n_last)"
	fail=1
fi
if [ "$named" -eq 0 ] || [ "$unnamed" -ne 0 ]; then
	echo "daemon.sh: FAIL: $named stacks stored, $unnamed with unnamed frames"
	fail=1
fi
if [ "$fail" -ne 0 ]; then
	sed 's/^/# /' "$W/out"
	exit 1
fi
ivls=$((n_last - n_first))
ms=$(awk -v t=$((t_last - t_first)) -v hz="$hz" -v n="$ivls" 'BEGIN { printf "%.1f", t * 1000 / hz / n }')
echo "prf daemon on $(uname -r)'s $KALLSYMS: a table of $addrs addresses, stacks of 16 frames"
echo "  intervals:          $n_last in ${SECS} s (every $IVL s), $named distinct stacks stored"
echo "  RSS, peak (VmHWM):  $((hwm / 1024)).$(((hwm % 1024) * 10 / 1024)) MB"
echo "  RSS, intervals:     $((rss_min / 1024)).$(((rss_min % 1024) * 10 / 1024))-$((rss_max / 1024)).$(((rss_max % 1024) * 10 / 1024)) MB"
echo "  CPU per interval:   $ms ms (user + system, over $ivls intervals; the stand-in device's reads included)"
awk -v ms="$ms" 'BEGIN { printf "  at one-minute intervals: %.4f %% of one CPU\n", ms / 600 }'
