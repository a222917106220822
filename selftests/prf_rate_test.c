// SPDX-License-Identifier: GPL-2.0
/*
 * prf_rate_test - sampling rate accuracy (PRF_SETHZ): at 10, 100, 1000 and
 * 10000 Hz the periods one CPU's instance sees over a fixed interval are
 * within 2% of rate x time.
 *
 * Time is CLOCK_MONOTONIC around the ON/OFF pair; the interval is long
 * enough that being one tick short (the first tick comes a period after ON)
 * stays well inside 2%.  The periods are ticks taken plus ticks lost (uapi:
 * periods a late timer skipped): their sum is the timer's accuracy and must
 * be within 2% at every rate.
 *
 * Ticks taken alone have a looser, documented bound: under QEMU TCG the
 * guest's clock follows the host's, and a vCPU thread the host does not run
 * for a while (four vCPUs on two host cores, more guests and compilers
 * beside them) finds its timer periods behind when it runs again; the module
 * rightly counts them as lost.  What is taken then depends on the host's
 * load, not on prf.  Measured on the 2-core test machine, debian-6.1, -smp 4,
 * taken vs rate x time (taken + lost was within 0.4% in every run):
 *
 *	load average	10 Hz	100 Hz	1000 Hz	10000 Hz
 *	12		-0.05%	-0.45%	-15%	-55%
 *	7		-0.06%	-19%	-53%	-62%
 *	(-icount)	-0.20%	-16%	-55%	-95%	(taken + lost -6% at 1 kHz)
 *	12, debug-6.12	-8.0%	-14%	-4.9%	-59%
 *
 * So ticks taken only have a sanity floor (50% up to 100 Hz, 25% at 1 kHz,
 * 10% at 10 kHz): proof that sampling happened, not a measure of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prf_fixture.h"

PRF_FIXTURE(rate);

FIXTURE_VARIANT(rate) {
	__u32 hz;
	double seconds;
	double taken_tol;	/* how far below rate x time ticks_total may be */
};

FIXTURE_VARIANT_ADD(rate, hz_10) { .hz = 10, .seconds = 20.0, .taken_tol = 0.50 };
FIXTURE_VARIANT_ADD(rate, hz_100) { .hz = 100, .seconds = 5.0, .taken_tol = 0.50 };
FIXTURE_VARIANT_ADD(rate, hz_1000) { .hz = 1000, .seconds = 3.0, .taken_tol = 0.75 };
FIXTURE_VARIANT_ADD(rate, hz_10000) { .hz = 10000, .seconds = 3.0, .taken_tol = 0.90 };

TEST_F_TIMEOUT(rate, ticks_per_cpu_match_rate_times_time, 120)
{
	int cpu = self->ncpus > 1 ? 1 : 0;
	struct prf_info info;
	double t0, t, want, taken, all;
	__u64 *tab = prf_make_table(5, 0xffffffff81000000ULL, 0x40);

	PRF_NEED_CPU(cpu);
	ASSERT_EQ(0, prf_load(self->cpu[cpu], tab, 5));
	ASSERT_EQ(0, prf_set_hz(self->cpu[cpu], variant->hz));
	ASSERT_EQ(0, prf_pin_self(0));
	t0 = prf_now();
	ASSERT_EQ(0, prf_on(self->cpu[cpu]));
	prf_sleep(variant->seconds);
	ASSERT_EQ(0, prf_off(self->cpu[cpu]));
	t = prf_now() - t0;
	ASSERT_EQ(0, prf_info(self->cpu[cpu], &info));

	want = variant->hz * t;
	taken = info.ticks_total;
	all = taken + info.ticks_lost;
	TH_LOG("%u Hz on CPU %d for %.3fs: %.0f taken + %llu lost = %.0f, want %.1f "
	       "(taken %+.2f%%, all %+.2f%%, on_ns %.3fs)",
	       variant->hz, cpu, t, taken, (unsigned long long)info.ticks_lost,
	       all, want, 100 * (taken - want) / want, 100 * (all - want) / want,
	       info.on_ns / 1e9);
	EXPECT_TRUE(prf_within(all, want, 0.02));
	EXPECT_LE(want * (1 - variant->taken_tol), taken);
	EXPECT_GE(want * 1.02, taken);
	free(tab);
}

TEST_HARNESS_MAIN
