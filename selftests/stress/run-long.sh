#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/stress/run-long.sh - the stress programs, long versions: stress
# for 60 s at PRF_HZ_MAX, 1,000,000 fuzz operations, 50 CPU hotplug cycles,
# 100 module unload/load cycles, then the kmemleak check.  `make stress`.
#
# In a guest (PRF_KERNEL set): runs the programs.  On the host: builds them
# and runs this script in a debug-7.x and a debian-6.1 guest, then
# prf_access --lockdown in a debug-7.x guest booted with
# lockdown=confidentiality (PRF_STRESS_KERNELS="debian-6.1" to pick).
# PRF_STRESS_SEED fixes the fuzz seed.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${PRF_KERNEL:-}" ]; then
	host_run long 3600
	exit $?
fi

seed=()
[ -z "${PRF_STRESS_SEED:-}" ] || seed=(--seed "$PRF_STRESS_SEED")
echo "# stress: long run on $(uname -r) ($PRF_KERNEL), $(nproc) CPUs"
run_prog prf_access --seconds 10
run_prog prf_fuzz --ops 1000000 "${seed[@]}"
run_prog prf_stress --duration 60 --threads 8 "${seed[@]}"
run_prog prf_hotplug --cycles 50
run_prog prf_lifetime --cycles 100
exit $failed
