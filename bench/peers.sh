#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/peers.sh - prf's calls and alloc-calls modes against their
# strongest peers, one after the other in the same guest (QEMU TCG, 2
# vCPUs, -icount shift=0,sleep=off as bench.sh):
#
#   debug-7.x   calls: prf, ftrace's function profiler (the kernel without
#               CONFIG_BPF_SYSCALL nor CONFIG_KPROBES: no bpftrace there);
#               alloc: prf's alloc-calls mode, /proc/allocinfo
#               (CONFIG_MEM_ALLOC_PROFILING, toggled by /proc/sys/vm/mem_profiling)
#   debian-6.1  calls: prf, bpftrace fentry (kfunc:), bpftrace kprobes
#               (no function profiler, no allocinfo in Debian's kernel)
#
#   bench/peers.sh            (make -C bench peers) writes bench/PEERS-RESULTS.md
#   bench/peers.sh --report   the same from the last run's consoles
#                             (bench/out/peers-KERNEL.log), booting nothing
#   bench/peers.sh --build    the build step alone, booting nothing
#
# Builds what it needs (bench's workload and loaders, prf.ko for both
# kernels), runs bench/peers-guest.sh in each guest and bench/peers_report.py
# on their consoles.  Fails when a contender fails or counts less than the
# workload made; never on the numbers.
#
# Environment: PEERS_KERNELS (default "debug-7.x debian-6.1"), PEERS_REPS
# (default 3), PEERS_ITERS_kernel_<kernel> and PEERS_ITERS_files
# (iterations a worker; the debug kernel is slow under TCG, so its counts
# are small), PEERS_TIMEOUT (seconds a guest, default 900); BENCH_OUT as
# bench.sh's.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
OUT=$(mkdir -p "${BENCH_OUT:-$HERE/out}" && cd "${BENCH_OUT:-$HERE/out}" && pwd)
ICOUNT=shift=0,sleep=off
: "${PEERS_KERNELS:=debug-7.x debian-6.1}" "${PEERS_REPS:=3}"
: "${PEERS_ITERS_kernel_debug_7_x:=2000}" "${PEERS_ITERS_kernel_debian_6_1:=20000}"
: "${PEERS_ITERS_files:=100}" "${PEERS_TIMEOUT:=900}"

say() { echo "peers: $*" >&2; }

cd "$TOP"
rc=0
# The build step: bench's own (prf.ko for debian-6.1 in it), prf.ko for
# the others.
if [ "${1:-}" != --report ]; then
	make -s -C "$HERE" OUT="$OUT" build-peers >&2
	for k in $PEERS_KERNELS; do
		[ "$k" = debian-6.1 ] || make -s KERNEL=$k module >&2
	done
fi
[ "${1:-}" != --build ] || exit 0
if [ "${1:-}" != --report ]; then
	for k in $PEERS_KERNELS; do
		case $k in
		debug-7.x)
			ko=$TOP/build/$k/prf.ko
			calls="none prf funcprof" alloc="none allocinfo prfalloc" ;;
		debian-6.1)
			ko=$OUT/prf/prf.ko	# make -C bench build-peers: for debian-6.1
			calls="none prf fentry kprobe" alloc="" ;;
		*)
			ko=$TOP/build/$k/prf.ko
			calls="none prf fentry kprobe" alloc="" ;;
		esac
		v=PEERS_ITERS_kernel_${k//[-.]/_}
		iters=${!v:-5000}
		log=$OUT/peers-$k.log
		say "booting $k (-icount $ICOUNT), console in $log"
		start=$SECONDS
		# maxcpus=1, then the guest onlines CPU 1 (bench.sh says why)
		selftests/vm/run --kernel "$k" --smp 2 --ko "$ko" "--icount=$ICOUNT" \
			--append maxcpus=1 --timeout "$PEERS_TIMEOUT" \
			--env PEERS_CALLS="$calls" --env PEERS_ALLOC="$alloc" \
			--env PEERS_REPS="$PEERS_REPS" --env PEERS_ITERS_kernel="$iters" \
			--env PEERS_ITERS_files="$PEERS_ITERS_files" \
			-- sh bench/peers-guest.sh >"$log" 2>&1 || rc=1
		say "the $k guest ran $((SECONDS - start)) s wall"
	done
fi
logs=()
for k in $PEERS_KERNELS; do
	log=$OUT/peers-$k.log
	if grep -q '^BENCH-DONE fail=0' "$log" 2>/dev/null; then
		logs+=("$log")
	else
		say "the $k guest failed: $(grep -E 'BENCH-FAIL|vm-run' "$log" 2>/dev/null | head -n5)"
		rc=1
	fi
done
[ ${#logs[@]} -gt 0 ] || exit 1
qver=$("$(scripts/kernel.sh qemu x86_64)" --version |
	sed -n '1s/^QEMU emulator version \([0-9.]*\).*/\1/p')
{
	echo "# prf's event modes against their peers"
	echo
	echo "Made by \`make -C bench peers\` (bench/peers.sh) on $(date -u -r "${logs[0]}" '+%Y-%m-%d %H:%M UTC');"
	echo "QEMU $qver TCG \`-icount $ICOUNT\`, 2 vCPUs; every contender from a known state,"
	echo "interleaved, medians of the runs.  A guest's numbers compare within that guest only."
	echo
	python3 "$HERE/peers_report.py" "${logs[@]}"
} >"$OUT/peers.md" || rc=1
if [ $rc = 0 ]; then
	cp "$OUT/peers.md" "$HERE/PEERS-RESULTS.md"
	say "wrote bench/PEERS-RESULTS.md"
else
	cat "$OUT/peers.md" >&2
fi
exit $rc
