#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/pmu-guest.sh - the PMU bench's driver, run INSIDE the pseudo-NMI
# guest (see bench/pmu.sh).  One boot, one contender at a time, every one
# from the same state (no prf source, filter or mode left by another, no
# perf running):
#
#   cost      for each period P (cycles between samples on each CPU): the
#             kernel workload alone; under prf_floor_pmu.ko (a counter per
#             CPU whose overflow handler only counts: the floor); under
#             prf's PMU source (the full table); under
#             `perf record -e cycles -c P -a`; under prf's timer at the
#             same nominal rate; alone again.  "RESULT" lines.
#   accuracy  CPU 1 runs rounds of a 20 ms spin with interrupts off
#             (/proc/prf_test_irqoff) and a read of /dev/zero: the truth is
#             the spin's time over the elapsed time.  prf's PMU source,
#             prf's timer and perf's cycles each sample it, one after the
#             other; "SHARE" lines give each one's share of the spin.
#
# Settings from the environment (pmu.sh sets them): PMU_PERIODS,
# PMU_ITERS, PMU_REPS, PMU_SECONDS, PMU_WORK, PMU_TOOLS, PMU_FLOOR_KO,
# PMU_PERF.  Ends with "BENCH-DONE fail=N"; "BENCH-FAIL why" for each
# contender that failed or counted less than half of what its period says.

fail=0
say() { echo "bench: $*" >&2; }
bad() { echo "BENCH-FAIL $*"; fail=1; }

T=$PMU_TOOLS
SPIN_FN=prf_test_irqoff_spin

# Booted with maxcpus=1 (pmu.sh): bring the other CPUs up now.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$f")" = 1 ] || echo 1 >"$f" || bad "cannot online $f"
done
NCPU=$(grep -c '^processor' /proc/cpuinfo)
echo "META kernel=$(uname -r) cpus=$NCPU nmi=$(dmesg | grep -c 'counters available, using NMIs')"
echo "META iters=$PMU_ITERS reps=$PMU_REPS periods=${PMU_PERIODS// /,} seconds=$PMU_SECONDS"
[ -e /dev/prf ] || bad "/dev/prf missing (prf.ko not loaded)"
[ -n "${PRF_TEST_KMOD:-}" ] && insmod "$PRF_TEST_KMOD" || bad "no test module"
# perf's own limits on every contender alike: no rate ceiling lowered
# behind the bench's back, no time-based throttling (in this order: the
# kernel refuses a new rate while the percentage is 0).
echo 100000 >/proc/sys/kernel/perf_event_max_sample_rate ||
	bad "cannot set kernel.perf_event_max_sample_rate"
echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent ||
	bad "cannot set kernel.perf_cpu_time_max_percent"
"$PMU_PERF" --version >/dev/null 2>&1 || bad "perf does not run: $("$PMU_PERF" --version 2>&1 | head -n1)"
"$T/prfld" -q || bad "prfld failed"
"$T/prfld" -q -f /dev/prf1 || bad "prfld -f /dev/prf1 failed"
echo "META table $("$T/prfstat" 2>&1 | head -n1)"

# result TAG CMD...: the workload's key=value line as a RESULT line.
result() {
	local tag=$1 out
	shift
	out=$("$@" 2>/tmp/err | grep '^elapsed_ns=' | tail -n1)
	if [ -z "$out" ]; then
		bad "$tag: $(tail -n3 /tmp/err | tr '\n' ' ')"
		return 1
	fi
	LAST=$out
	echo "RESULT $tag $out"
}
# field NAME: NAME's value in the last RESULT line.
field() { echo "$LAST" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# enough TAG SAMPLES PERIOD: SAMPLES at least half the nominal count
# (CPUs x elapsed cycles / PERIOD: cycles run at 1 GHz of guest time).
enough() {
	local ns want
	ns=$(field elapsed_ns)
	want=$((NCPU * ns / $3 / 2))
	[ "$2" -ge "$want" ] || bad "$1: $2 samples, fewer than half of $((2 * want))"
}

prf_source() {	# timer HZ | cycles PERIOD
	if [ "$1" = timer ]; then
		"$T/prfstat" -q -e timer --hz "$2" off
	else
		"$T/prfstat" -q -e "cycles:$2" off
	fi || bad "prfstat --event $1 $2"
}

run_one() {	# contender period rep
	local c=$1 p=$2 rep=$3 tag s
	tag="contender=$c period=$p workload=kernel rep=$rep"
	case $c in
	none)
		result "$tag" "$PMU_WORK" kernel "$PMU_ITERS" ;;
	floor)
		insmod "$PMU_FLOOR_KO" period="$p" || { bad "$tag: insmod"; return; }
		result "$tag" "$PMU_WORK" -c /sys/module/prf_floor_pmu/parameters/samples \
			kernel "$PMU_ITERS" &&
			enough "$tag" "$(field counter)" "$p"
		echo "META floor period=$p nmi=$(cat /sys/module/prf_floor_pmu/parameters/nmi)"
		rmmod prf_floor_pmu ;;
	prfpmu|prftimer)
		if [ $c = prfpmu ]; then prf_source cycles "$p"; else prf_source timer $((1000000000 / p)); fi
		"$T/prfstat" -q on || { bad "$tag: prfstat on"; return; }
		result "$tag" "$PMU_WORK" -p /dev/prf kernel "$PMU_ITERS" &&
			enough "$tag" "$(field prf_total)" "$p"
		# Every sample in NMI: work reads PRF_GETINFO while ON, where a
		# sample in flight is in samples_nmi and not yet in ticks_total,
		# so only fewer NMIs than samples is a failure.
		[ $c = prftimer ] || [ "$(field prf_nmi)" -ge "$(field prf_total)" ] ||
			bad "$tag: $(field prf_nmi) of $(field prf_total) samples in NMI"
		"$T/prfstat" -q off
		prf_source timer 100 ;;
	perf)
		rm -f /tmp/perf.data
		result "$tag" "$PMU_PERF" record -e cycles -c "$p" -a -o /tmp/perf.data \
			-- "$PMU_WORK" kernel "$PMU_ITERS" || return
		# perf's count covers its whole run, the workload's settling
		# time before the timed interval included: the report takes the
		# nominal count of the interval, as bench.sh does for perf.
		s=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' /tmp/err | tail -n1)
		echo "META perf period=$p samples=${s:-0}"
		enough "$tag" "${s:-0}" "$p" ;;
	esac
}

for p in $PMU_PERIODS; do
	for c in none floor prfpmu perf prftimer none; do
		rep=1
		while [ $rep -le "$PMU_REPS" ]; do
			say "$c period $p #$rep"
			run_one $c "$p" $rep
			rep=$((rep + 1))
		done
	done
done

# ---- Accuracy: a known share of irq-off time on CPU 1 ---------------------
# SPIN: run as "sh -c "$SPIN" sh SECONDS" on CPU 1: rounds of a 20 ms spin
# with interrupts off and a 4 MiB read of /dev/zero, for about SECONDS;
# prints "rounds elapsed_cs" (/proc/uptime's hundredths).
SPIN='
	t0=$(cut -d" " -f1 /proc/uptime | tr -d .)
	end=$((t0 + $1 * 100)) n=0 now=$t0
	while [ "$now" -lt "$end" ]; do
		echo 20 >/proc/prf_test_irqoff
		dd if=/dev/zero of=/dev/null bs=64k count=64 2>/dev/null
		n=$((n + 1))
		now=$(cut -d" " -f1 /proc/uptime | tr -d .)
	done
	echo "$n $((now - t0))"'
# share NAME SPIN TOTAL ROUNDS CS: a SHARE line; the truth is ROUNDS x 20 ms
# over CS hundredths of a second.
share() {
	echo "SHARE source=$1 spin=$2 total=$3 rounds=$4 elapsed_cs=$5" \
		"truth=$(awk -v r="$4" -v cs="$5" 'BEGIN { printf "%.4f", r * 2 / cs }')"
	[ "${3:-0}" -gt 0 ] || bad "accuracy: $1 counted nothing"
	[ "${4:-0}" -gt 0 ] || bad "accuracy: $1: the spin did not run"
}
ACC_PERIOD=${PMU_ACC_PERIOD:-1000000}
for src in cycles timer; do
	if [ $src = cycles ]; then
		"$T/prfstat" -q -f /dev/prf1 -e "cycles:$ACC_PERIOD" off
	else
		"$T/prfstat" -q -f /dev/prf1 -e timer --hz $((1000000000 / ACC_PERIOD)) off
	fi || { bad "accuracy: prf $src set-up"; continue; }
	rm -f /tmp/acc.snap
	"$T/prfsnap" -f /dev/prf1 /tmp/acc.snap &&
		"$T/prfstat" -q -f /dev/prf1 on || { bad "accuracy: prf $src on"; continue; }
	# shellcheck disable=SC2046
	set -- $(taskset -c 1 sh -c "$SPIN" sh "$PMU_SECONDS")
	"$T/prfstat" -q -f /dev/prf1 off
	"$T/prfsnap" -f /dev/prf1 /tmp/acc.snap || bad "accuracy: prfsnap"
	# shellcheck disable=SC2046
	set -- $("$T/prfpr" -f /dev/prf1 --csv -c 0 /tmp/acc.snap | awk -F, -v fn="$SPIN_FN" '
		$3 == fn { spin = $1 } $3 == "[total]" { tot = $1 }
		END { printf "%d %d", spin, tot }') "$@"
	share "prf-$src" "$1" "$2" "$3" "$4"
done
"$T/prfstat" -q -f /dev/prf1 -e timer --hz 100 off
rm -f /tmp/perf.data
# shellcheck disable=SC2046
set -- $("$PMU_PERF" record -q -e cycles -c "$ACC_PERIOD" -C 1 -o /tmp/perf.data \
	-- taskset -c 1 sh -c "$SPIN" sh "$PMU_SECONDS" 2>/tmp/err)
# shellcheck disable=SC2046
set -- $("$PMU_PERF" script -i /tmp/perf.data -F ip,sym 2>/dev/null | awk -v fn="$SPIN_FN" '
	{ n++ } $2 == fn { s++ } END { printf "%d %d", s, n }') "$@"
share perf-cycles "$1" "$2" "$3" "$4"

echo "BENCH-DONE fail=$fail"
exit $fail
