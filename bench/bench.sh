#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench.sh - prf against the floor, perf, bpftrace and /proc/profile,
# side by side in the same QEMU guest (Debian 6.1, 2 vCPUs, -icount).
#
#   bench.sh          the full bench (make bench): writes bench/RESULTS.md
#   bench.sh --smoke  a short version (make -C bench smoke, run by make check)
#   bench.sh --build  the build step alone, booting nothing
#
# Builds what it needs (prf.ko for debian-6.1, prf_floor.ko, the workloads,
# the tools), boots the guest, runs bench/guest.sh in it, and turns the
# console output into out/results.{csv,md} (bench/report.py).  Fails if a
# contender fails to run or the table is empty, never on the numbers.
#
# Environment: BENCH_ICOUNT (the -icount setting, default shift=0,sleep=off),
# BENCH_RATES, BENCH_WORKLOADS, BENCH_CONTENDERS, BENCH_REPS (rounds of the
# contenders' list, interleaved: the spread of every ratio),
# BENCH_ITERS_{kernel,user,mixed,files,switch}, BENCH_OFFCPU_SECONDS (the
# offcpu contenders' memory after these many seconds), BENCH_UOBJ_CAP and
# BENCH_UOBJ_FILES (prfuobj's and prfuchain's table, default 65536 entries
# and 4096 files), BENCH_UCHAIN_DEPTH (prfuchain's chains, default 16 frames)
# override the choices below.  BENCH_OUT (default bench/out): where it builds
# and writes its logs (a booted run needs it inside the work tree, which is
# all the guest sees).  --smoke never writes RESULTS.md, whatever the contenders: a
# partial run (BENCH_CONTENDERS=...) goes through it.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
OUT=$(mkdir -p "${BENCH_OUT:-$HERE/out}" && cd "${BENCH_OUT:-$HERE/out}" && pwd)
mode=full
[ "${1:-}" = --smoke ] && mode=smoke
[ "${1:-}" = --build ] && mode=build

ICOUNT=${BENCH_ICOUNT:-shift=0,sleep=off}
if [ $mode = smoke ]; then
	: "${BENCH_RATES:=1000}" "${BENCH_WORKLOADS:=kernel}"
	: "${BENCH_CONTENDERS:=none floor prf3 prffull prfuobj prfuchain prfcg prfnomatch perf bpf1 prfoffcpu}"
	: "${BENCH_REPS:=1}" "${BENCH_SIZES:=0}" "${BENCH_PROCPROFILE:=0}"
	: "${BENCH_ITERS_kernel:=20000}" "${BENCH_ITERS_user:=100000}" "${BENCH_ITERS_mixed:=16000}"
	: "${BENCH_ITERS_files:=2000}" "${BENCH_ITERS_switch:=20000}"
	# the offcpu contender's memory after one second of switches only:
	# each second of the busy workload costs about 5 s of host CPU here
	: "${BENCH_OFFCPU_SECONDS:=1}"
else
	: "${BENCH_RATES:=100 1000 10000}" "${BENCH_WORKLOADS:=kernel user mixed}"
	: "${BENCH_CONTENDERS:=none floor prf3 prffull prfcg prfnomatch none perf bpf bpf1 none prfstk16 prfstk64 perfg prfalloc bpfalloc prfcalls bpfcalls none prfoffcpu prfoffstk bpfoffcpu perfsched none}"
	# two rounds of the list: each ratio with its spread (report.py), the
	# whole make bench about 40 min (README.md: a round is about 11 min)
	: "${BENCH_REPS:=2}" "${BENCH_SIZES:=1}" "${BENCH_PROCPROFILE:=1}"
	: "${BENCH_ITERS_kernel:=70000}" "${BENCH_ITERS_user:=380000}" "${BENCH_ITERS_mixed:=60000}"
	: "${BENCH_ITERS_files:=10000}" "${BENCH_ITERS_switch:=40000}"
fi
: "${BENCH_DIST_RATE:=1000}" "${BENCH_SKIP:=}" "${BENCH_OFFCPU_SECONDS:=1 3}"

say() { echo "bench: $*" >&2; }

# ---- Build ---------------------------------------------------------------------
KREL=$("$TOP/scripts/kernel.sh" release debian-6.1)
KDIR=$("$TOP/scripts/kernel.sh" kdir debian-6.1)
make -s -C "$HERE" KDIR="$KDIR" OUT="$OUT" build >&2
if [ -f "$TOP/tools/Makefile" ]; then
	make -s -C "$TOP/tools" >&2 || say "tools did not build: using bench's own loader"
fi
[ $mode != build ] || exit 0
PRF_KO=$OUT/prf/prf.ko
FLOOR_KO=$OUT/floor/prf_floor.ko
TOOLS=$TOP/tools/build

# ---- Boot ----------------------------------------------------------------------
# The shared runner when it can take an -icount setting, else bench/vm.sh.
RUN=$TOP/selftests/vm/run
if [ -x "$RUN" ] && grep -q -- '--icount=' "$RUN"; then
	runner=(env "$RUN" --kernel debian-6.1 --smp 2 --ko "$PRF_KO" "--icount=$ICOUNT")
else
	runner=(env PRF_KO="$PRF_KO" "$HERE/vm.sh" --kernel debian-6.1 --smp 2 --icount "$ICOUNT")
fi

guest_env=(env BENCH_RATES="$BENCH_RATES" BENCH_WORKLOADS="$BENCH_WORKLOADS"
	BENCH_CONTENDERS="$BENCH_CONTENDERS" BENCH_REPS="$BENCH_REPS"
	BENCH_ITERS_kernel="$BENCH_ITERS_kernel" BENCH_ITERS_user="$BENCH_ITERS_user"
	BENCH_ITERS_mixed="$BENCH_ITERS_mixed" BENCH_ITERS_files="$BENCH_ITERS_files"
	BENCH_ITERS_switch="$BENCH_ITERS_switch" BENCH_OFFCPU_SECONDS="$BENCH_OFFCPU_SECONDS"
	BENCH_DIST_RATE="$BENCH_DIST_RATE"
	BENCH_SIZES="$BENCH_SIZES" BENCH_FLOOR_KO="$FLOOR_KO" BENCH_TOOLS="$TOOLS"
	BENCH_SKIP="$BENCH_SKIP" BENCH_UOBJ_CAP="${BENCH_UOBJ_CAP:-65536}"
	BENCH_UOBJ_FILES="${BENCH_UOBJ_FILES:-4096}" BENCH_UCHAIN_DEPTH="${BENCH_UCHAIN_DEPTH:-16}")

logs=()
boot() {	# name mode [--append ARGS]
	local name=$1 m=$2 log=$OUT/$mode-$1.log
	shift 2
	say "booting the $name guest (-icount $ICOUNT), console in $log"
	local start=$SECONDS rc=0
	cd "$TOP"
	"${runner[@]}" "$@" --timeout 5400 -- "${guest_env[@]}" BENCH_MODE="$m" \
		sh "$HERE/guest.sh" >"$log" 2>&1 || rc=$?
	say "the $name guest ran $((SECONDS - start)) s wall, exit $rc"
	grep -q '^BENCH-DONE fail=0' "$log" ||
		{ say "the $name guest failed: $(grep -E 'BENCH-FAIL|vm-run|vm.sh' "$log" | head -n5)"; return 1; }
	logs+=("$log")
}

rc=0
# maxcpus=1, then the guest onlines CPU 1: a 2-vCPU guest under a fixed
# -icount shift hangs in SMP bring-up at boot (README.md), hotplug does not.
boot main main --append maxcpus=1 || rc=1
if [ "$BENCH_PROCPROFILE" = 1 ]; then
	boot procprofile procprofile --append "maxcpus=1 profile=2" || rc=1
fi

# ---- Report ---------------------------------------------------------------------
[ ${#logs[@]} -gt 0 ] || { say "no guest finished"; exit 1; }
python3 "$HERE/report.py" "$OUT" "${logs[@]}" || rc=1
if [ $mode = full ] && [ $rc = 0 ]; then
	{
		echo "# prf bench results"
		echo
		echo "Made by \`make bench\` (bench/bench.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),"
		qver=$("$("$TOP/scripts/kernel.sh" qemu x86_64)" --version |
			sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p')
		echo "guest: Debian $KREL, 2 vCPUs, QEMU $qver TCG \`-icount $ICOUNT\`;"
		echo "work per worker: kernel $BENCH_ITERS_kernel, user $BENCH_ITERS_user, mixed $BENCH_ITERS_mixed, files $BENCH_ITERS_files, switch $BENCH_ITERS_switch iterations;"
		echo "contenders in this order: $BENCH_CONTENDERS, $BENCH_REPS rounds of the list, interleaved"
		echo "(each value the median of the per-round values, their min–max in parentheses)."
		echo
		cat "$OUT/results.md"
	} >"$HERE/RESULTS.md"
	say "wrote bench/RESULTS.md and bench/out/results.csv"
fi

# ---- Accuracy against a known truth: its own boot (truth.sh) ----------------------
if [ $mode = full ] && [ "${BENCH_TRUTH:-1}" = 1 ]; then
	"$HERE/truth.sh" || rc=1
fi

# ---- The modes against their strongest peers: two boots of their own (peers.sh)
if [ $mode = full ] && [ "${BENCH_PEERS:-1}" = 1 ]; then
	"$HERE/peers.sh" || rc=1
fi
exit $rc
