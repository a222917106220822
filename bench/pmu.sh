#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/pmu.sh - prf's PMU source against the floor (a counter whose
# overflow handler only counts), `perf record -e cycles` and prf's timer,
# one after the other in one boot of the pseudo-NMI guest (pnmi-7.x-arm64,
# 2 vCPUs, QEMU TCG -icount shift=0: one instruction a nanosecond, the
# cycle counter at 1 GHz of guest time); and the share each gives a
# function that spins with interrupts off, against the known truth.
#
#   bench/pmu.sh            (make -C bench pmu) writes bench/PMU-RESULTS.md
#   bench/pmu.sh --report   the same from the last run's console
#                           (bench/out/pmu.log), booting nothing
#
# Builds what it needs for the kernel: prf.ko, the test module, the arm64
# tools, prf_floor_pmu.ko, the workload (static), and unpacks Debian 12's
# arm64 perf with its libraries (scripts/kernel.sh perf arm64) into
# build/KERNEL/perf, where the guest sees it.  Fails when a contender
# fails or counts less than half of what its period says; never on the
# numbers themselves.
#
# Environment: PMU_PERIODS (default "1000000 100000": 1 and 10 kHz a
# CPU), PMU_ITERS (kernel-workload iterations a worker, default 70000),
# PMU_REPS (runs of each, default 3: medians), PMU_SECONDS (the accuracy
# workload's length, default 8).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
K=pnmi-7.x-arm64
B=$TOP/build/$K
OUT=$HERE/out
: "${PMU_PERIODS:=1000000 100000}" "${PMU_ITERS:=70000}" "${PMU_REPS:=3}"
: "${PMU_SECONDS:=8}"
ICOUNT=shift=0,sleep=off

say() { echo "pmu: $*" >&2; }

cd "$TOP"
log=$OUT/pmu.log
if [ "${1:-}" != --report ]; then
# ---- Build ---------------------------------------------------------------------
say "building prf.ko, the test module and the tools for $K"
make -s KERNEL=$K module >&2
make -s -C selftests/kmod KERNEL=$K >&2
make -s -C tools ARCH=arm64 OUT="$B/tools" >&2
mkdir -p "$B/bench/floor" "$OUT"
cp -p bench/floor/Kbuild bench/floor/floor.c bench/floor/floor_pmu.c "$B/bench/floor/"
scripts/kernel.sh kbuild $K M="$B/bench/floor" modules >&2
aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -I"$TOP/uapi" -o "$B/bench/work" bench/work.c
perf_dir=$(scripts/kernel.sh perf arm64)
if [ "$(cat "$B/perf/.from" 2>/dev/null)" != "$perf_dir" ]; then
	say "copying $perf_dir to $B/perf (the guest sees the work tree only)"
	rm -rf "$B/perf" "$B/perf.tmp"
	cp -a "$perf_dir" "$B/perf.tmp"
	echo "$perf_dir" >"$B/perf.tmp/.from"
	mv "$B/perf.tmp" "$B/perf"
fi

# ---- Boot ----------------------------------------------------------------------
say "booting $K (-icount $ICOUNT), console in $log"
start=$SECONDS rc=0
# maxcpus=1, then the guest onlines CPU 1, as bench.sh does under a fixed
# -icount shift.
selftests/vm/run --kernel $K --smp 2 --icount=$ICOUNT --append maxcpus=1 \
	--timeout 5400 \
	--env PMU_PERIODS="$PMU_PERIODS" --env PMU_ITERS="$PMU_ITERS" \
	--env PMU_REPS="$PMU_REPS" --env PMU_SECONDS="$PMU_SECONDS" \
	--env PMU_WORK="$B/bench/work" --env PMU_TOOLS="$B/tools" \
	--env PMU_FLOOR_KO="$B/bench/floor/prf_floor_pmu.ko" \
	--env PMU_PERF="$B/perf/perf" \
	-- bash bench/pmu-guest.sh >"$log" 2>&1 || rc=$?
say "the guest ran $((SECONDS - start)) s wall, exit $rc"
fi
grep -q '^BENCH-DONE fail=0' "$log" || {
	say "the guest failed: $(grep -E 'BENCH-FAIL|vm-run' "$log" | head -n5)"
	exit 1
}

# ---- Report ---------------------------------------------------------------------
# the run's own settings (the guest says them), else this one's
iters=$(sed -n 's/^META iters=\([0-9]*\) reps=\([0-9]*\).*/\1/p' "$log" | head -n1)
reps=$(sed -n 's/^META iters=\([0-9]*\) reps=\([0-9]*\).*/\2/p' "$log" | head -n1)
iters=${iters:-$PMU_ITERS} reps=${reps:-$PMU_REPS}
qver=$("$(scripts/kernel.sh qemu arm64)" --version |
	sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p')
{
	echo "# prf's PMU source: cost and accuracy"
	echo
	echo "Made by \`make -C bench pmu\` (bench/pmu.sh) on $(date -u -r "$log" '+%Y-%m-%d %H:%M UTC'),"
	echo "guest: $K ($(sed -n 's/^META kernel=\([^ ]*\).*/\1/p' "$log" | head -n1)), 2 vCPUs, QEMU $qver TCG \`-icount $ICOUNT\`,"
	echo "pseudo-NMI on; the kernel workload, $iters iterations a worker; $reps runs of each contender (medians)."
	echo
	python3 "$HERE/pmu_report.py" "$log"
} >"$OUT/pmu.md"
cp "$OUT/pmu.md" "$HERE/PMU-RESULTS.md"
say "wrote bench/PMU-RESULTS.md"
