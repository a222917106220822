// SPDX-License-Identifier: GPL-2.0
/*
 * prf_isolated_test - the CPUs /dev/prf samples (uapi/linux/prf.h,
 * PRF_FLAG_ISOLATED): every online CPU but those isolated from kernel
 * housekeeping (isolcpus=, nohz_full=), unless PRF_FLAG_ISOLATED; /dev/prfN
 * samples CPU N, isolated or not.  prf_info.ncpus and the sysfs attribute
 * "cpus" say which.
 *
 * The tests about an isolated CPU skip unless the guest has one, e.g.
 *	selftests/vm/run --kernel debian-6.1 --smp 4 --append isolcpus=3 \
 *		-- selftests/prf_isolated_test
 * There a user-mode spinner runs on the isolated CPU while the others are
 * idle: /dev/prf counts (almost) no user ticks by default, and about one a
 * period with PRF_FLAG_ISOLATED.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prf_fixture.h"

PRF_FIXTURE(iso);

#define BASE	0xffffffff81000000ULL

static void load(struct __test_metadata *_metadata, int fd)
{
	__u64 *t = prf_make_table(5, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, 5));
	free(t);
}

/* The first isolated online CPU, or -1. */
static int isolated_cpu(void)
{
	int cpu;

	for (cpu = 0; cpu < prf_nr_possible(); cpu++)
		if (prf_cpu_online(cpu) == 1 && prf_cpu_isolated(cpu))
			return cpu;
	return -1;
}

/* Does the sysfs "cpus" list of @dev hold exactly the CPUs @want says? */
static int cpus_attr_is(int dev, bool (*want)(int cpu, void *arg), void *arg,
			char *got, size_t len)
{
	int cpu;

	if (prf_sysfs_read(dev, "cpus", got, len) < 0)
		return 0;
	for (cpu = 0; cpu < prf_nr_possible(); cpu++)
		if (prf_cpulist_has(got, cpu) != want(cpu, arg))
			return 0;
	return 1;
}

static bool online_not_isolated(int cpu, void *arg)
{
	bool with_isolated = arg;

	return prf_cpu_online(cpu) == 1 &&
	       (with_isolated || !prf_cpu_isolated(cpu));
}

static bool only(int cpu, void *arg)
{
	return cpu == *(int *)arg;
}

static int count_cpus(bool with_isolated)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < prf_nr_possible(); cpu++)
		n += online_not_isolated(cpu, (void *)with_isolated);
	return n;
}

TEST_F(iso, all_device_covers_online_cpus_but_isolated_ones)
{
	struct prf_info info;
	char got[256];

	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(count_cpus(false), info.ncpus);
	EXPECT_TRUE(cpus_attr_is(PRF_ALL, online_not_isolated, (void *)false,
				 got, sizeof(got))) TH_LOG("cpus: %s", got);

	ASSERT_EQ(0, prf_set_flags(self->fd, PRF_FLAG_ISOLATED));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(count_cpus(true), info.ncpus);
	EXPECT_EQ(prf_nr_online(), info.ncpus);
	EXPECT_TRUE(cpus_attr_is(PRF_ALL, online_not_isolated, (void *)true,
				 got, sizeof(got))) TH_LOG("cpus: %s", got);
}

TEST_F(iso, cpu_device_covers_its_cpu_whatever_the_flags)
{
	static const __u32 flags[] = { 0, PRF_FLAG_ISOLATED };
	struct prf_info info;
	char got[256];
	int cpu, i;

	for (cpu = 0; cpu < self->ncpus && cpu < PRF_FIXTURE_CPUS; cpu++) {
		if (self->cpu[cpu] < 0 || prf_cpu_online(cpu) != 1)
			continue;
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, prf_set_flags(self->cpu[cpu], flags[i]));
			ASSERT_EQ(0, prf_info(self->cpu[cpu], &info));
			EXPECT_EQ(1, info.ncpus) TH_LOG("CPU %d", cpu);
			EXPECT_TRUE(cpus_attr_is(cpu, only, &cpu, got,
						 sizeof(got)))
				TH_LOG("CPU %d cpus: %s", cpu, got);
		}
	}
}

/*
 * /dev/prf (or /dev/prf@iso) at 100 Hz with @flags, ON 2 s while a
 * user-mode spinner runs on @iso: the user ticks and the periods of one CPU.
 */
static void spin_on(struct __test_metadata *_metadata, int fd, int iso,
		    __u32 flags, __u64 *user, double *periods)
{
	struct prf_info info;
	pid_t pid;

	load(_metadata, fd);
	ASSERT_EQ(0, prf_set_flags(fd, flags));
	pid = prf_start(iso, PRF_WORK_SPIN);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(2.0);
	ASSERT_EQ(0, prf_off(fd));
	prf_stop(pid);
	ASSERT_EQ(0, prf_info(fd, &info));
	*user = info.ticks_user;
	*periods = info.on_ns / 1e9 * info.hz;
	TH_LOG("flags %#x, user spinner on isolated CPU %d: %llu user ticks of "
	       "%llu taken, %llu lost, %.0f periods a CPU", flags, iso,
	       (unsigned long long)info.ticks_user,
	       (unsigned long long)info.ticks_total,
	       (unsigned long long)info.ticks_lost, *periods);
}

TEST_F(iso, isolated_cpu_not_sampled_by_default)
{
	int iso = isolated_cpu();
	double periods;
	__u64 user;

	if (iso < 0)
		SKIP(return, "no isolated CPU (boot with isolcpus= or nohz_full=)");
	spin_on(_metadata, self->fd, iso, 0, &user, &periods);
	/* the other CPUs idle: a few user ticks from this program at most */
	EXPECT_GT(0.10 * periods, user);
}

TEST_F(iso, isolated_cpu_sampled_with_the_flag)
{
	int iso = isolated_cpu();
	double periods;
	__u64 user;

	if (iso < 0)
		SKIP(return, "no isolated CPU (boot with isolcpus= or nohz_full=)");
	spin_on(_metadata, self->fd, iso, PRF_FLAG_ISOLATED, &user, &periods);
	/* the floor of selftests/README.md: a quarter of the periods */
	EXPECT_LE(0.25 * periods, user);
}

TEST_F(iso, isolated_cpu_sampled_by_its_own_device)
{
	int iso = isolated_cpu();
	double periods;
	__u64 user;

	if (iso < 0)
		SKIP(return, "no isolated CPU (boot with isolcpus= or nohz_full=)");
	if (iso >= PRF_FIXTURE_CPUS || self->cpu[iso] < 0)
		SKIP(return, "no /dev/prf%d", iso);
	spin_on(_metadata, self->cpu[iso], iso, 0, &user, &periods);
	EXPECT_LE(0.25 * periods, user);
}

TEST_HARNESS_MAIN
