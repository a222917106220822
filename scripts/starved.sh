#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/starved.sh - runs a command on one host CPU shared with busy
# loops, as a guest runs on a loaded host, without loading the other CPUs:
#
#   scripts/starved.sh [--cpu C] [--loops N] -- COMMAND [ARGS...]
#
# N busy loops (default 4: issue 36's "four busy loops per host core") and
# COMMAND (with every process and QEMU thread it starts) are pinned to host
# CPU C (default: the last online one), so COMMAND gets about 1/(N+1) of
# it.  The loops end with COMMAND; its exit status is the script's.  How the
# tests that count samples are proved independent of the host's load, e.g.
#   scripts/starved.sh -- selftests/vm/run --kernel debian-6.1 --smp 2 \
#       -- sh -c 'cd selftests && ./prf_attrib_test'

set -u
cpu=$(($(getconf _NPROCESSORS_ONLN) - 1))
loops=4
while [ $# -gt 0 ]; do
	case $1 in
	--cpu) cpu=$2; shift 2 ;;
	--loops) loops=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "usage: $0 [--cpu C] [--loops N] -- COMMAND [ARGS...]" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "$0: no command" >&2; exit 2; }
command -v taskset >/dev/null || { echo "$0: taskset (util-linux) is needed" >&2; exit 2; }

pids=()
stop() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; }
trap stop EXIT
for ((i = 0; i < loops; i++)); do
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	pids+=($!)
done
echo "starved: $loops busy loops on host CPU $cpu beside: $*" >&2
taskset -c "$cpu" "$@"
