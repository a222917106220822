#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/daemon.sh - what prf daemon itself costs: its memory (the peak, and
# between intervals) and its CPU time per interval, with the whole table of
# this host's /proc/kallsyms and stacks of 16 frames, as the goal of an
# always-on collection states it (under 20 MB and under 0.1 % of a CPU at
# one-minute intervals), while scraped over HTTP (/metrics, pprof profiles).
#
#   bench/daemon.sh [SECONDS]     (default 30; make -C bench daemon)
#   bench/daemon.sh --week [DAYS] (default 21; make -C bench daemon-week)
#
# The device is the tools' stand-in (tools/build/fakeprf.so: prf.ko is never
# loaded into this host's kernel), sampling the workload below every
# interval (DAEMON_WORKLOAD=all: every function of the table, each with a
# stack of its own, the worst case).  Its reads are done in the daemon's process, so
# the CPU time is an upper bound of the daemon's own.  Intervals are 1 s
# (DAEMON_INTERVAL), so that a run has many; the cost of one interval does
# not depend on how long it was.
#
# Fails (exit 1) when the daemon does not exit 0 on SIGTERM, records fewer
# than 5 intervals, or stores no stack whose frames all have names: a
# collection that counts nothing is no measurement.
#
# --week: the store over DAYS simulated days at one-minute intervals and the
# default retention (14 days: thinned past 7, deleted past 14), under the
# stand-in's time warp (FAKEPRF_WARP: every wait of the daemon returns at
# once, its clocks advanced by it).  The workload is the one below, an
# interval a minute; the settings are prf.conf's defaults (no stacks), or
# with DAEMON_STACKS=D stacks of depth D and the workload's 100.  Prints the store's size and snapshots at
# each simulated day, the CPU time an interval, and whether prfpr reads
# the first and the last day.  Fails when the store is unreadable or a
# day's size is not printed.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$TOP/tools/build
WEEK=0
if [ "${1:-}" = --week ]; then
	WEEK=1
	shift
	DAYS=${1:-21}
fi
SECS=${1:-30}
IVL=${DAEMON_INTERVAL:-1}
KALLSYMS=${DAEMON_KALLSYMS:-/proc/kallsyms}

for f in prf prfpr fakeprf.so; do
	[ -e "$B/$f" ] || { echo "daemon.sh: $B/$f: build the tools first (make -C tools)" >&2; exit 2; }
done
W=$(mktemp -d /tmp/prf-bench-daemon.XXXXXX)
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null; rm -rf "$W"' EXIT
pid=

printf 'on 0\nhz 100\nflags 0\nmax 262144\nversion 6\naddrs 0\n' >"$W/prf"
# The workload: 2,000 of the kernel's functions (every 31st of its text,
# _stext to _etext, which kallsyms lists in order), the first busiest
# (6000/k + 1 samples an interval), and 100 stacks of 6 of them.
awk '/ _stext$/ { on = 1 } / _etext$/ { on = 0 }
	on && / [tT] / && !/__pfx_|\[/ && ++k % 31 == 0 { print $1 }' "$KALLSYMS" |
	head -2000 >"$W/pcs"
awk '{ printf "%s%s:%d", (NR > 1 ? "," : ""), $1, int(6000 / NR) + 1 }' "$W/pcs" >"$W/pcs.list"
stacks=$(awk '{ a[NR] = $1 } END { srand(1); for (k = 1; k <= 100; k++) {
	printf "%s%d:0:", (k > 1 ? ";" : ""), int(50 / k) + 1
	for (f = 0; f < 6; f++) printf "%s%s", (f ? "," : ""), a[int(rand() * NR) + 1]
} }' "$W/pcs")

# ---- --week: the store over simulated days ----
if [ "$WEEK" = 1 ]; then
	# with DAEMON_STACKS: 100 stacks of 6 functions of the workload, the leaf first
	envs=("LD_PRELOAD=$B/fakeprf.so" "FAKEPRF=$W/prf" "FAKEPRF_CLONE=$W/clone"
		FAKEPRF_GROW=lists "FAKEPRF_PCS_FILE=$W/pcs.list" FAKEPRF_WARP=1) sopt=()
	if [ "${DAEMON_STACKS:-0}" -gt 0 ]; then
		envs+=("FAKEPRF_STACKS=$stacks")
		sopt=(--stacks "$DAEMON_STACKS")
	fi
	env "${envs[@]}" "$B/prf" daemon -c /dev/null --kallsyms "$KALLSYMS" \
		--proc-modules /proc/modules --dir "$W/store" --interval 60 "${sopt[@]}" \
		>"$W/out" 2>&1 &
	pid=$!
	t0=$(date +%s) day=1 fail=0
	echo "prf daemon's store over $DAYS simulated days at one-minute intervals (retain 14 days," \
		"max 1G), ${DAEMON_STACKS:+stacks of $DAEMON_STACKS, 100 distinct, }2,000 functions sampled"
	echo "   day  store (bytes)  snapshots  segments  host time"
	while [ "$day" -le "$DAYS" ] && kill -0 "$pid" 2>/dev/null; do
		sleep 1
		last=$("$B/prfpr" -l "$W/store" 2>/dev/null | tail -n 1 |
			awk '{ print $2 " " $3 }') || continue
		[ -n "$last" ] || continue
		now=$(date -u -d "$last" +%s 2>/dev/null) || continue
		if [ "$now" -ge $((t0 + day * 86400)) ]; then
			printf '%6d  %13d  %9s  %8d  %ds\n' "$day" "$(du -sb "$W/store" | cut -f1)" \
				"$("$B/prfpr" -l "$W/store" | awk 'NR == 1 { print $2 }')" \
				"$(find "$W/store" -name 'seg-*' | wc -l)" $((SECONDS))
			day=$((day + 1))
		fi
	done
	cpu=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	pid=
	[ "$st" -eq 0 ] || { echo "daemon.sh: FAIL: prf daemon exited $st"; fail=1; }
	[ "$day" -gt "$DAYS" ] || { echo "daemon.sh: FAIL: day $day of $DAYS not reached"; fail=1; }
	if ! "$B/prfpr" -a "$W/store" >"$W/all" 2>&1; then
		echo "daemon.sh: FAIL: prfpr -a of the store"
		fail=1
	fi
	end=$("$B/prfpr" -l "$W/store" | tail -n 1 | awk '{ print $2 "T" $3 "Z" }')
	"$B/prfpr" --since "$(date -u -d "$end - 1 day" +%Y-%m-%dT%H:%M:%SZ)" --until "$end" \
		"$W/store" >/dev/null 2>&1 || { echo "daemon.sh: FAIL: prfpr of the last day"; fail=1; }
	awk -v t="$cpu" -v hz="$(getconf CLK_TCK)" -v n=$((DAYS * 1440)) 'BEGIN {
		printf "CPU: %.1f ms an interval (user + system, %d intervals; the stand-in\x27s reads included)\n",
			t * 1000 / hz / n, n }'
	[ "$fail" -eq 0 ] || { sed 's/^/# /' "$W/out" | tail -20; exit 1; }
	exit 0
fi
# scraped as a fleet's servers would: /metrics every 2 s, a 2 s profile every 5 s
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# DAEMON_WORKLOAD=all: every function of the table sampled every interval,
# each with a stack of its own (the stand-in's FAKEPRF_GROW): the worst case
if [ "${DAEMON_WORKLOAD:-}" = all ]; then
	envs=(FAKEPRF_GROW=1)
	what="every one of its functions sampled, each with a stack"
else
	envs=(FAKEPRF_GROW=lists "FAKEPRF_PCS_FILE=$W/pcs.list" "FAKEPRF_STACKS=$stacks")
	what="2,000 of its functions sampled, 100 stacks"
fi
env "LD_PRELOAD=$B/fakeprf.so" "FAKEPRF=$W/prf" "FAKEPRF_CLONE=$W/clone" "${envs[@]}" \
	"$B/prf" daemon -c /dev/null --kallsyms "$KALLSYMS" --proc-modules /proc/modules \
	--dir "$W/store" --interval "$IVL" --stacks 16 --listen "$port" >"$W/out" 2>&1 &
pid=$!
scrapes=0 profiles=0

# CPU time (utime + stime, clock ticks) and RSS, sampled each 0.2 s
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
rss_min='' rss_max=0 t_first='' n_first=''
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.2
	if [ $((SECONDS % 2)) -eq 0 ] && [ "$SECONDS" != "${last_scrape:-}" ]; then
		last_scrape=$SECONDS
		curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && scrapes=$((scrapes + 1))
		if [ $((SECONDS % 5)) -eq 0 ] &&
			curl -sf -o "$W/p.pb.gz" "http://127.0.0.1:$port/debug/pprof/profile?seconds=2"; then
			profiles=$((profiles + 1))
		fi
	fi
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
if [ "$scrapes" -eq 0 ] || [ "$profiles" -eq 0 ]; then
	echo "daemon.sh: FAIL: $scrapes /metrics and $profiles profiles answered"
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
[ "$rss_max" -le "$hwm" ] || hwm=$rss_max	# the counters are batched per thread
echo "prf daemon on $(uname -r)'s $KALLSYMS: a table of $addrs addresses, stacks of 16 frames,"
echo "  $what"
echo "  intervals:          $n_last in ${SECS} s (every $IVL s), $named distinct stacks stored"
echo "  scraped:            $scrapes /metrics, $profiles profiles of 2 s"
echo "  RSS, peak (VmHWM):  $((hwm / 1024)).$(((hwm % 1024) * 10 / 1024)) MB"
echo "  RSS, intervals:     $((rss_min / 1024)).$(((rss_min % 1024) * 10 / 1024))-$((rss_max / 1024)).$(((rss_max % 1024) * 10 / 1024)) MB"
echo "  CPU per interval:   $ms ms (user + system, over $ivls intervals; the stand-in device's reads included)"
awk -v ms="$ms" 'BEGIN { printf "  at one-minute intervals: %.4f %% of one CPU\n", ms / 600 }'
