#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/stress/run-short.sh - the stress programs, short versions (about
# a minute of guest time), as `make check` runs them in each kernel's guest.
#
# In a guest (PRF_KERNEL set): runs the programs.  On the host: builds them
# and runs this script in a debug-7.x and a debian-6.1 guest, then
# prf_access --lockdown in a debug-7.x guest booted with
# lockdown=confidentiality (PRF_STRESS_KERNELS="debian-6.1" to pick).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ -z "${PRF_KERNEL:-}" ]; then
	host_run short 600
	exit $?
fi

# The debug kernel runs about 20 times slower under TCG (KASAN, lockdep):
# smaller counts there keep the run to a few minutes.
ops=20000 secs=15 mods=5
if [ "$PRF_KERNEL" = debug-7.x ]; then
	ops=5000 secs=10 mods=3
fi
echo "# stress: short run on $(uname -r) ($PRF_KERNEL), $(nproc) CPUs"
run_prog prf_access --seconds 2
run_prog prf_fuzz --ops $ops
run_prog prf_stress --duration $secs --threads 8
run_prog prf_hotplug --cycles 4 --window 200
run_prog prf_lifetime --cycles $mods
# failslab/fail_page_alloc: debug-7.x only (skips without them)
run_prog prf_faults --writes 400 --loads 40
exit $failed
