// SPDX-License-Identifier: GPL-2.0
/*
 * prf_clone_test - private instances (/dev/prfclone, uapi "Private
 * instances"): each open makes a new instance, OFF, unloaded, all CPUs, that
 * belongs to the file and dies with it; at most max_private at once (ENOSPC
 * past it); PRF_SETCPU/PRF_GETCPU choose its CPU and are EINVAL on the shared
 * minors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "prf_fixture.h"

PRF_FIXTURE(clone);

#define BASE	0xffffffff81000000ULL
#define MAXP_PATH "/sys/module/prf/parameters/max_private"

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

static int max_private(void)
{
	char buf[32];

	if (prf_read_file(MAXP_PATH, buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

TEST_F(clone, new_clone_is_off_unloaded_all_cpus_defaults)
{
	struct prf_filter f;
	struct prf_info info;
	__u32 hz, flags;
	__s32 cpu = 7;
	int fd = prf_open_clone();

	ASSERT_LE(0, fd) TH_LOG("open /dev/prfclone: %s", strerror(-fd));
	EXPECT_EQ(0, prf_status(fd));
	EXPECT_EQ(0, prf_size(fd));
	ASSERT_EQ(0, prf_get_cpu(fd, &cpu));
	EXPECT_EQ(-1, cpu);
	ASSERT_EQ(0, prf_get_hz(fd, &hz));
	EXPECT_EQ(PRF_HZ_DEFAULT, hz);
	ASSERT_EQ(0, prf_get_flags(fd, &flags));
	EXPECT_EQ(0, flags);
	ASSERT_EQ(0, prf_get_filter(fd, &f));
	EXPECT_EQ(PRF_FILTER_NONE, f.type);
	EXPECT_EQ(0, f.id);
	ASSERT_EQ(0, prf_info(fd, &info));
	EXPECT_EQ(-1, info.cpu);
	EXPECT_EQ(prf_nr_online(), (int)info.ncpus);
	close(fd);
}

TEST_F(clone, clone_node_is_in_class_prf_without_control_files)
{
	char path[128];
	struct stat st;

	ASSERT_EQ(0, stat("/dev/" PRF_CLONE_NAME, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(major(prf_rdev(PRF_ALL)), major(st.st_rdev));
	snprintf(path, sizeof(path), "/sys/class/%s/%s/dev", PRF_CLASS,
		 PRF_CLONE_NAME);
	EXPECT_EQ(0, access(path, F_OK));
	snprintf(path, sizeof(path), "/sys/class/%s/%s/control", PRF_CLASS,
		 PRF_CLONE_NAME);
	EXPECT_EQ(-1, access(path, F_OK));
	EXPECT_EQ(ENOENT, errno);
}

/* Two clones and /dev/prf: three tables, three sets of counters. */
TEST_F(clone, clones_and_shared_device_are_independent)
{
	struct prf_info ia, ib, ish;
	int a = prf_open_clone(), b = prf_open_clone();
	pid_t pid;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	load(_metadata, a, 5);
	load(_metadata, b, 7);
	load(_metadata, self->fd, 3);
	EXPECT_EQ(5, prf_size(a));
	EXPECT_EQ(7, prf_size(b));
	EXPECT_EQ(3, prf_size(self->fd));

	pid = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, prf_set_hz(a, 1000));
	ASSERT_EQ(0, prf_on(a));
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(a));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(b));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_off(a));
	prf_stop(pid);

	ASSERT_EQ(0, prf_info(a, &ia));
	ASSERT_EQ(0, prf_info(b, &ib));
	ASSERT_EQ(0, prf_info(self->fd, &ish));
	EXPECT_LT(0, ia.ticks_total);
	EXPECT_EQ(1000, ia.hz);
	EXPECT_EQ(PRF_HZ_DEFAULT, ib.hz);
	EXPECT_EQ(0, ib.ticks_total);
	EXPECT_EQ(0, ib.on_ns);
	EXPECT_EQ(0, ish.ticks_total);
	EXPECT_EQ(0, ish.on_ns);
	close(a);
	close(b);
}

TEST_F(clone, instance_dies_with_its_file)
{
	__u32 hz = 0;
	int fd = prf_open_clone();

	ASSERT_LE(0, fd);
	load(_metadata, fd, 5);
	ASSERT_EQ(0, prf_set_hz(fd, 500));
	ASSERT_EQ(0, prf_set_tasks(fd, 16));
	ASSERT_EQ(0, prf_on(fd));
	close(fd);		/* freed while ON */

	fd = prf_open_clone();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, prf_status(fd));
	EXPECT_EQ(0, prf_size(fd));
	ASSERT_EQ(0, prf_get_hz(fd, &hz));
	EXPECT_EQ(PRF_HZ_DEFAULT, hz);
	close(fd);
}

TEST_F(clone, open_past_max_private_is_enospc)
{
	int max = max_private(), i, n = 0, *fds, fd;

	ASSERT_LT(0, max) TH_LOG("cannot read %s", MAXP_PATH);
	if (max > 512)
		SKIP(return, "max_private %d: too many files to open", max);
	fds = calloc(max, sizeof(*fds));
	ASSERT_NE(NULL, fds);
	for (i = 0; i < max; i++) {
		fds[i] = prf_open_clone();
		if (fds[i] < 0)
			break;
		n++;
	}
	EXPECT_EQ(max, n);
	fd = prf_open_clone();
	EXPECT_EQ(-ENOSPC, fd);
	if (fd >= 0)
		close(fd);
	/* the shared minors are not counted */
	fd = prf_open(PRF_ALL, O_RDWR);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	/* one closed, one more may open */
	if (n) {
		close(fds[--n]);
		fd = prf_open_clone();
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
	}
	while (n)
		close(fds[--n]);
	free(fds);
}

TEST_F(clone, setcpu_on_shared_minors_is_einval)
{
	__s32 cpu = 5;

	EXPECT_EQ(-EINVAL, prf_set_cpu(self->fd, 0));
	EXPECT_EQ(-EINVAL, prf_set_cpu(self->cpu[0], -1));
	ASSERT_EQ(0, prf_get_cpu(self->fd, &cpu));
	EXPECT_EQ(-1, cpu);
	ASSERT_EQ(0, prf_get_cpu(self->cpu[0], &cpu));
	EXPECT_EQ(0, cpu);
}

TEST_F(clone, setcpu_not_possible_is_einval_and_changes_nothing)
{
	static const __s32 bad[] = { -2, -1000, 1 << 20 };
	int fd = prf_open_clone();
	__s32 cpu;
	size_t i;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prf_set_cpu(fd, 0));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, prf_set_cpu(fd, bad[i])) TH_LOG("%d", bad[i]);
	EXPECT_EQ(-EINVAL, prf_set_cpu(fd, self->ncpus));
	ASSERT_EQ(0, prf_get_cpu(fd, &cpu));
	EXPECT_EQ(0, cpu);
	close(fd);
}

TEST_F(clone, setcpu_while_on_is_ebusy)
{
	int fd = prf_open_clone();
	__s32 cpu;

	ASSERT_LE(0, fd);
	load(_metadata, fd, 5);
	ASSERT_EQ(0, prf_on(fd));
	EXPECT_EQ(-EBUSY, prf_set_cpu(fd, 0));
	ASSERT_EQ(0, prf_get_cpu(fd, &cpu));
	EXPECT_EQ(-1, cpu);
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(fd));
	close(fd);
}

TEST_F(clone, setcpu_zeroes_the_counters)
{
	struct prf_info info;
	int fd = prf_open_clone();

	ASSERT_LE(0, fd);
	load(_metadata, fd, 5);
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_info(fd, &info));
	ASSERT_LT(0, info.ticks_total);
	ASSERT_EQ(0, prf_set_cpu(fd, 0));
	ASSERT_EQ(0, prf_info(fd, &info));
	prf_expect_counters_zero(_metadata, &info);
	EXPECT_EQ(5, info.naddrs);
	close(fd);
}

/*
 * A clone set to one CPU samples that CPU alone: a user spinner on CPU 1,
 * CPU 0 idle.  Set to CPU 1 it sees mostly user ticks; set to CPU 0 almost
 * none.
 */
TEST_F(clone, setcpu_samples_that_cpu_alone)
{
	struct prf_info on1, on0;
	int fd;
	pid_t pid;

	PRF_NEED_CPU(1);
	fd = prf_open_clone();
	ASSERT_LE(0, fd);
	load(_metadata, fd, 5);
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	pid = prf_start(1, PRF_WORK_SPIN);
	ASSERT_LT(0, pid);

	ASSERT_EQ(0, prf_set_cpu(fd, 1));
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_info(fd, &on1));

	ASSERT_EQ(0, prf_set_cpu(fd, 0));
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_info(fd, &on0));
	prf_stop(pid);

	TH_LOG("cpu1: total %llu user %llu; cpu0: total %llu user %llu",
	       (unsigned long long)on1.ticks_total,
	       (unsigned long long)on1.ticks_user,
	       (unsigned long long)on0.ticks_total,
	       (unsigned long long)on0.ticks_user);
	EXPECT_EQ(1, on1.cpu);
	EXPECT_EQ(1, on1.ncpus);
	EXPECT_EQ(0, on0.cpu);
	EXPECT_EQ(1, on0.ncpus);
	ASSERT_LT(0, on1.ticks_total);
	/*
	 * CPU 1 alone: mostly the spinner's user time (79% when the host
	 * starved the guest, whose interrupts and the test's own work then
	 * weigh more); all four CPUs, three of them idle, would be about 25%.
	 */
	EXPECT_LE(on1.ticks_total * 6, on1.ticks_user * 10);
	ASSERT_LT(0, on0.ticks_total);
	EXPECT_LE(on0.ticks_user * 10, on0.ticks_total);
	close(fd);
}

/*
 * A private instance holds the counts of every CPU and those of one CPU
 * (uapi: mem_bytes), whatever PRF_SETCPU says: one set more than /dev/prf
 * with the same table.
 */
TEST_F(clone, mem_bytes_counts_both_sets_of_a_clone)
{
	struct prf_info shared, all, one;
	int fd = prf_open_clone();

	ASSERT_LE(0, fd);
	load(_metadata, fd, 50);
	load(_metadata, self->fd, 50);
	ASSERT_EQ(0, prf_info(self->fd, &shared));
	ASSERT_EQ(0, prf_info(fd, &all));
	ASSERT_EQ(0, prf_set_cpu(fd, 0));
	ASSERT_EQ(0, prf_info(fd, &one));
	EXPECT_LT(shared.mem_bytes, all.mem_bytes);
	EXPECT_GE(shared.mem_bytes + 64, all.mem_bytes);
	EXPECT_EQ(all.mem_bytes, one.mem_bytes);
	close(fd);
}

TEST_F(clone, everything_of_prf7_works_on_a_clone)
{
	struct prf_snap s;
	int fd = prf_open_clone();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENXIO, prf_clear(fd));
	load(_metadata, fd, 4);
	EXPECT_EQ(4, prf_size(fd));
	EXPECT_EQ(prf_max(self->fd), prf_max(fd));
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(0.1);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_snap(fd, &s));
	EXPECT_EQ(4, s.n);
	EXPECT_EQ(BASE, s.addrs[0]);
	EXPECT_LT(0, prf_snap_total(&s));
	prf_snap_free(&s);
	ASSERT_EQ(0, prf_unload(fd));
	EXPECT_EQ(0, prf_status(fd));
	close(fd);
}

TEST_HARNESS_MAIN
