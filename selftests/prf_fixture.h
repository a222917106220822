/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf_fixture.h - the kselftest harness plus the fixture every prf test
 * program uses.
 *
 * Instances persist across opens, tests and programs, so each test starts
 * and ends with every instance (/dev/prf and each /dev/prfN) in one known
 * state: OFF, NOT loaded (via the EINVAL write, the only way back there),
 * PRF_HZ_DEFAULT and no flags.  The fixture keeps /dev/prf open in ->fd
 * and /dev/prfN in ->cpu[N].
 *
 *	PRF_FIXTURE(name);
 *	TEST_F(name, some_behaviour) { ... self->fd ... }
 */
#ifndef PRF_FIXTURE_H
#define PRF_FIXTURE_H

#include "prf_util.h"
#include "kselftest_harness.h"

#include <fcntl.h>
#include <sys/ioctl.h>

#define PRF_FIXTURE_CPUS 64

#define PRF_FIXTURE(name)						\
	FIXTURE(name) {							\
		int fd;			/* /dev/prf */			\
		int ncpus;		/* possible CPUs */		\
		int cpu[PRF_FIXTURE_CPUS];	/* /dev/prfN or -errno */ \
		double t0;		/* prf_now() at set-up */	\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		int i;							\
									\
		self->t0 = prf_now();					\
		self->ncpus = prf_nr_possible();			\
		ASSERT_EQ(0, prf_reset_all());				\
		self->fd = prf_open(PRF_ALL, O_RDWR);			\
		ASSERT_LE(0, self->fd) TH_LOG("open /dev/prf: %s",	\
					      strerror(-self->fd));	\
		for (i = 0; i < PRF_FIXTURE_CPUS; i++)			\
			self->cpu[i] = i < self->ncpus ?		\
				prf_open(i, O_RDWR) : -ENODEV;		\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		int i;							\
									\
		EXPECT_EQ(0, prf_reset_all());				\
		if (self->fd >= 0)					\
			close(self->fd);				\
		for (i = 0; i < PRF_FIXTURE_CPUS; i++)			\
			if (self->cpu[i] >= 0)				\
				close(self->cpu[i]);			\
		prf_fixture_time(_metadata, self->t0);			\
	}

/*
 * Tests that measure time (rates, phases, costs) skip on the debug kernel:
 * it is there to judge safety (KASAN, lockdep, DEBUG_PREEMPT, kmemleak
 * watching every path), and runs them slowly, for minutes of make check,
 * while the six other kernels of the test bed measure the timing.
 */
#define PRF_SKIP_ON_DEBUG_KERNEL()					\
	do {								\
		if (prf_debug_kernel())					\
			SKIP(return, "a measure of time: the debug "	\
			     "kernel judges safety, the others time");	\
	} while (0)

/*
 * A test past half of the harness's time limit says so (the limit kills it
 * with no word of how near it came): the guests' logs then tell which tests
 * a slower or busier host would time out.
 */
static inline void prf_fixture_time(struct __test_metadata *_metadata,
				    double t0)
{
	double took = prf_now() - t0;

	if (took > _metadata->timeout / 2.0)
		ksft_print_msg("%s took %.1f s of its %d s limit\n",
			       _metadata->name, took, _metadata->timeout);
}

/*
 * Every counter of @info is 0, as after a load or PRF_CLEAR: ticks (total,
 * outside, user, idle, lost, noregs) and on_ns.  One EXPECT per field, so a failure
 * names the field.
 */
static inline void prf_expect_counters_zero(struct __test_metadata *_metadata,
					    const struct prf_info *info)
{
	EXPECT_EQ(0, info->ticks_total);
	EXPECT_EQ(0, info->ticks_outside);
	EXPECT_EQ(0, info->ticks_user);
	EXPECT_EQ(0, info->ticks_idle);
	EXPECT_EQ(0, info->ticks_lost);
	EXPECT_EQ(0, info->ticks_noregs);
	EXPECT_EQ(0, info->on_ns);
}

/* The fd of /dev/prfN, skipping the test when the machine lacks CPU N. */
#define PRF_NEED_CPU(n)							\
	do {								\
		if (self->ncpus <= (n) || self->cpu[n] < 0)		\
			SKIP(return, "needs CPU %d (have %d)", (n),	\
			     self->ncpus);				\
	} while (0)

#endif /* PRF_FIXTURE_H */
