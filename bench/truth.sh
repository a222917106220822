#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/truth.sh - prf, perf and bpftrace against a workload whose profile
# is known by construction (make -C bench truth; README.md says what).
#
#   truth.sh            build, boot the guest, run truth-guest.sh, write
#                       bench/TRUTH-RESULTS.md from the run
#   truth.sh --report   TRUTH-RESULTS.md again from the last run's console
#                       (out/truth.log)
#   truth.sh --build    the build step alone, booting nothing
#
# One guest: Debian 6.1, 2 vCPUs, -icount as the bench's (BENCH_ICOUNT),
# maxcpus=1 then CPU 1 onlined, prf.ko from `make -C bench build`, the
# test module from `make -C selftests/kmod KERNEL=debian-6.1` (found by
# selftests/vm/run as PRF_TEST_KMOD).  TRUTH_SECS (default 4),
# TRUTH_SECS_PRF (16), TRUTH_HZ (1000), TRUTH_VARIANTS, TRUTH_CONTENDERS
# pass to the guest; BENCH_OUT as bench.sh's.  Fails if a contender fails or counts too little,
# never on the accuracy.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
OUT=$(mkdir -p "${BENCH_OUT:-$HERE/out}" && cd "${BENCH_OUT:-$HERE/out}" && pwd)
LOG=$OUT/truth.log
ICOUNT=${BENCH_ICOUNT:-shift=0,sleep=off}
say() { echo "truth: $*" >&2; }

write_results() {
	local body rc=0
	body=$(python3 "$HERE/truth_report.py" "$LOG") || rc=1
	{
		echo "# prf against a known truth"
		echo
		echo "Made by \`make -C bench truth\` (bench/truth.sh) on $(date -u -r "$LOG" '+%Y-%m-%d %H:%M UTC'),"
		echo "guest: Debian $("$TOP/scripts/kernel.sh" release debian-6.1), 2 vCPUs, QEMU TCG \`-icount $ICOUNT\`,"
		echo "worker pinned to CPU 1; $(sed -n 's/^META kernel=[^ ]* //p' "$LOG" | head -n1)."
		echo "Each contender in its own run of the worker, one after the other in one boot;"
		echo "bench/README.md (\"Accuracy against a known truth\") says how the truth is measured."
		echo
		echo "$body"
	} >"$HERE/TRUTH-RESULTS.md"
	say "wrote bench/TRUTH-RESULTS.md"
	return $rc
}

if [ "${1:-}" = --report ]; then
	write_results
	exit
fi

make -s -C "$HERE" KDIR="$("$TOP/scripts/kernel.sh" kdir debian-6.1)" OUT="$OUT" build-truth >&2
make -s -C "$TOP/selftests/kmod" KERNEL=debian-6.1 >&2
[ -f "$TOP/build/debian-6.1/kmod/prf_test_kmod.ko" ] ||
	{ say "no build/debian-6.1/kmod/prf_test_kmod.ko"; exit 1; }
[ "${1:-}" != --build ] || exit 0

envs=()
for v in TRUTH_SECS TRUTH_SECS_PRF TRUTH_HZ TRUTH_VARIANTS TRUTH_CONTENDERS; do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
say "booting the guest (-icount $ICOUNT), console in $LOG"
start=$SECONDS
rc=0
cd "$TOP"
selftests/vm/run --kernel debian-6.1 --smp 2 --ko "$OUT/prf/prf.ko" \
	"--icount=$ICOUNT" --append maxcpus=1 --timeout 1800 "${envs[@]}" \
	-- sh "$HERE/truth-guest.sh" >"$LOG" 2>&1 || rc=$?
say "the guest ran $((SECONDS - start)) s wall, exit $rc"
grep -q '^TRUTH-DONE fail=0' "$LOG" ||
	{ say "the guest failed: $(grep -E 'TRUTH-FAIL|vm-run' "$LOG" | head -n5)"; rc=1; }
write_results || rc=1
exit $rc
