// SPDX-License-Identifier: GPL-2.0
/*
 * prf_rate_test - sampling rate accuracy (PRF_SETHZ): at 10, 100, 1000 and
 * 10000 Hz the ticks one CPU's instance takes over a fixed interval are
 * within 2% of rate x time.
 *
 * Time is CLOCK_MONOTONIC around the ON/OFF pair; the interval is long
 * enough that being one tick short (the first tick comes a period after ON)
 * stays well inside 2%.  Ticks taken plus ticks lost (periods a late timer
 * skipped, uapi) must match the rate: that is the timer's accuracy.  Ticks
 * taken alone must match too, except at 10 kHz, where a TCG guest's vCPU
 * threads (four of them on two host cores) cannot be woken every 100 us:
 * there the taken ticks only need to reach PRF_RATE_TAKEN_10K of the rate,
 * and the shortfall must be accounted for as lost.
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

/* Measured under TCG (see the report in the commit): documented bound. */
#define PRF_RATE_TAKEN_10K	0.50

FIXTURE_VARIANT_ADD(rate, hz_10) { .hz = 10, .seconds = 20.0, .taken_tol = 0.02 };
FIXTURE_VARIANT_ADD(rate, hz_100) { .hz = 100, .seconds = 5.0, .taken_tol = 0.02 };
FIXTURE_VARIANT_ADD(rate, hz_1000) { .hz = 1000, .seconds = 3.0, .taken_tol = 0.02 };
FIXTURE_VARIANT_ADD(rate, hz_10000) {
	.hz = 10000, .seconds = 3.0, .taken_tol = PRF_RATE_TAKEN_10K,
};

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
