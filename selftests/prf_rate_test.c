// SPDX-License-Identifier: GPL-2.0
/*
 * prf_rate_test - sampling rate accuracy (PRF_SETHZ): at 10, 100, 1000 and
 * 10000 Hz the periods one CPU's instance sees over a fixed interval are
 * within 2% of rate x time.
 *
 * Time is CLOCK_MONOTONIC around the ON/OFF pair and between them; the
 * interval is long enough that being one tick off (the first period starts
 * at ON with its sample at a random point of it: the count is the whole
 * periods elapsed or one more) stays well inside 2%.  The periods are ticks
 * taken plus ticks lost (uapi: periods a late timer skipped): their sum is
 * the timer's accuracy and must be within 2% at every rate.
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
 * So in an ordinary guest ticks taken only have a sanity floor (50% up to
 * 100 Hz, 25% at 1 kHz, 10% at 10 kHz): proof that sampling happened, not a
 * measure of it.  And the floor is of the periods the guest saw its CPU
 * run through, not of rate x time: a thread spinning on the sampled CPU
 * reads the clock, and every gap of whole periods between two reads is
 * periods the vCPU was held off by the host (or the thread by the guest),
 * in which no timer could run.  Beside four busy loops on its host core,
 * debug-7.x took 326 of 879 periods at 100 Hz and 302 of 4203 at 1 kHz,
 * every one of the rest counted lost.
 *
 * The measure comes from a guest whose clock is the instruction count:
 * selftests/vm/rate boots one under QEMU "-icount shift=0,sleep=off" and
 * runs this program with PRF_CLOCK=icount.  Guest time then advances only
 * as the guest executes (1 ns an instruction), and idle time is skipped, so
 * a vCPU can no longer fall behind its own clock: there, ticks taken must be
 * within 2% of rate x time at every rate, and so must each of two instances
 * sampling one CPU at different rates.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prf_fixture.h"

/* The guest clock follows instructions, not the host (see above). */
static bool exact_clock(void)
{
	const char *c = getenv("PRF_CLOCK");

	return c && !strcmp(c, "icount");
}

/* A thread on @cpu reading the clock until @stop: the periods it missed. */
struct watch {
	int cpu;
	double period;		/* seconds */
	int stop;
	double held;		/* whole periods between two reads, summed */
	double maxgap;		/* the longest time between two reads */
};

static void *watch_cpu(void *arg)
{
	struct watch *w = arg;
	double last, now;

	if (prf_pin_self(w->cpu))
		return NULL;
	last = prf_now();
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		now = prf_now();
		if (now - last >= w->period)
			w->held += floor((now - last) / w->period);
		if (now - last > w->maxgap)
			w->maxgap = now - last;
		last = now;
	}
	return NULL;
}

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
	double tol = exact_clock() ? 0.02 : variant->taken_tol;
	struct watch w = { .cpu = cpu, .period = 1.0 / variant->hz };
	struct prf_info info;
	double t0, t1, t2, t, want, taken, all, ran;
	pthread_t th;
	__u64 *tab = prf_make_table(5, 0xffffffff81000000ULL, 0x40);

	PRF_NEED_CPU(cpu);
	/* 20 s of the debug kernel's suite; the faster rates still run */
	if (variant->hz == 10)
		PRF_SKIP_ON_DEBUG_KERNEL();
	ASSERT_EQ(0, prf_load(self->cpu[cpu], tab, 5));
	ASSERT_EQ(0, prf_set_hz(self->cpu[cpu], variant->hz));
	ASSERT_EQ(0, prf_pin_self(0));
	/* the host clock's floor: of the periods the sampled CPU ran through */
	if (!exact_clock())
		ASSERT_EQ(0, pthread_create(&th, NULL, watch_cpu, &w));
	t0 = prf_now();
	ASSERT_EQ(0, prf_on(self->cpu[cpu]));
	t1 = prf_now();
	prf_sleep(variant->seconds);
	t2 = prf_now();
	ASSERT_EQ(0, prf_off(self->cpu[cpu]));
	t = prf_now() - t0;
	if (!exact_clock()) {
		__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(th, NULL));
	}
	ASSERT_EQ(0, prf_info(self->cpu[cpu], &info));

	want = variant->hz * t;
	ran = want > w.held ? want - w.held : 0;
	taken = info.ticks_total;
	all = taken + info.ticks_lost;
	TH_LOG("%s clock: %u Hz on CPU %d for %.3fs: %.0f taken + %llu lost = "
	       "%.0f, want %.1f (taken %+.2f%%, all %+.2f%%, on_ns %.3fs); "
	       "the CPU ran through %.0f",
	       exact_clock() ? "icount" : "host", variant->hz, cpu, t, taken,
	       (unsigned long long)info.ticks_lost, all, want,
	       100 * (taken - want) / want, 100 * (all - want) / want,
	       info.on_ns / 1e9, ran);
	/*
	 * The timer's periods start somewhere in ON's call (it returns once
	 * the sampled CPU has run it: a vCPU the host holds off then starts
	 * late) and end somewhere in OFF's: they cover at least the time
	 * between the two calls and at most the time around them.  Under
	 * make check's load debian-6.1-rt once counted more than 2% fewer
	 * periods at 1 kHz than the 3 s around the calls.
	 */
	EXPECT_GE(want * 1.02, all);
	EXPECT_LE(variant->hz * (t2 - t1) * 0.98, all)
		TH_LOG("%.3f s between ON and OFF", t2 - t1);
	/*
	 * Taken: of the periods the CPU ran through, the most the host lets
	 * a timer fire in (QEMU's timers are late when its own threads are
	 * held off too).  Where the host held the CPU off more than half the
	 * time that is no floor of prf's (debian-7.x beside four busy loops,
	 * CPU 1 running through a fifth of the periods: 152 of 667 at 1 kHz,
	 * 351 of 5702 at 10 kHz), so it is judged only where the CPU ran half
	 * of them at least; the instruction-count guest (selftests/vm/rate)
	 * judges it within 2 % whatever the host does.
	 */
	if (exact_clock() || ran >= want / 2) {
		EXPECT_LE(ran * (1 - tol), taken);
	} else {
		TH_LOG("CPU %d ran through %.0f%% of the periods: taken not judged",
		       cpu, 100 * ran / want);
	}
	EXPECT_LT(0, taken);
	EXPECT_GE(want * 1.02, taken);
	free(tab);
}

/*
 * /dev/prf at 100 Hz on every CPU and /dev/prf1 at 1 kHz, both sampling
 * CPU 1: each instance keeps its own rate.  /dev/prf's rate is per CPU (its
 * counters cover every online CPU).  With the exact clock the ticks taken
 * must match; otherwise the periods (taken + lost) must, and taken has the
 * sanity floor of the test above, of the periods CPU 1 ran through.  A
 * late timer counts the periods it missed at its next run, so a CPU held
 * off when OFF comes has its last ones uncounted: /dev/prf1's floor allows
 * the longest time CPU 1's thread saw pass between two reads (debug-7.x
 * beside four busy loops: 963 Hz).
 */
PRF_FIXTURE(shared_cpu);

TEST_F_TIMEOUT(shared_cpu, two_instances_each_hold_their_rate, 60)
{
	__u64 *tab = prf_make_table(5, 0xffffffff81000000ULL, 0x40);
	int ncpus = prf_nr_online();
	struct prf_info all, one;
	struct watch w = { .cpu = 1, .period = 1e-3 };
	double t0, t, r_all, r_one, ran_one;
	pthread_t th;

	PRF_NEED_CPU(1);
	ASSERT_EQ(0, prf_load(self->fd, tab, 5));
	ASSERT_EQ(0, prf_load(self->cpu[1], tab, 5));
	ASSERT_EQ(0, prf_set_hz(self->fd, 100));
	ASSERT_EQ(0, prf_set_hz(self->cpu[1], 1000));
	ASSERT_EQ(0, prf_pin_self(0));
	if (!exact_clock())
		ASSERT_EQ(0, pthread_create(&th, NULL, watch_cpu, &w));
	t0 = prf_now();
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_on(self->cpu[1]));
	prf_sleep(5.0);
	ASSERT_EQ(0, prf_off(self->cpu[1]));
	ASSERT_EQ(0, prf_off(self->fd));
	t = prf_now() - t0;
	if (!exact_clock()) {
		__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(th, NULL));
	}
	ASSERT_EQ(0, prf_info(self->fd, &all));
	ASSERT_EQ(0, prf_info(self->cpu[1], &one));
	ASSERT_EQ(ncpus, (int)all.ncpus);

	r_all = (exact_clock() ? all.ticks_total : prf_periods(&all)) / t / ncpus;
	r_one = (exact_clock() ? one.ticks_total : prf_periods(&one)) / t;
	TH_LOG("%s clock, %.3fs: /dev/prf %.2f Hz per CPU (%llu taken, %llu "
	       "lost), /dev/prf1 %.2f Hz (%llu taken, %llu lost)",
	       exact_clock() ? "icount" : "host", t, r_all,
	       (unsigned long long)all.ticks_total,
	       (unsigned long long)all.ticks_lost, r_one,
	       (unsigned long long)one.ticks_total,
	       (unsigned long long)one.ticks_lost);
	EXPECT_TRUE(prf_within(r_all, 100, 0.02)) TH_LOG("%.2f", r_all);
	EXPECT_GE(1000 * 1.02, r_one);
	EXPECT_LE(1000 * 0.98 * (t - w.maxgap) / t, r_one)
		TH_LOG("%.2f Hz; CPU 1 held off %.3f s at most", r_one, w.maxgap);
	/*
	 * Samples are taken at all; how many of the periods depends on the
	 * host's load without the exact clock (22% of /dev/prf1's measured at
	 * a host load of 10), so the floor is low: the rates above are exact.
	 */
	ran_one = 1000 * t > w.held ? 1000 * t - w.held : 0;
	EXPECT_LE(0.10 * ran_one, one.ticks_total)
		TH_LOG("CPU 1 ran through %.0f periods", ran_one);
	EXPECT_LE(0.10 * prf_periods(&all), all.ticks_total);
	free(tab);
}

TEST_HARNESS_MAIN
