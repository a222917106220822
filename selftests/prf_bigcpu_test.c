// SPDX-License-Identifier: GPL-2.0
/*
 * prf_bigcpu_test - a CPU numbered 255 or more (uapi: its minor is N + 1,
 * minor 255 being /dev/prf).
 *
 * The CPU is $PRF_BIGCPU, else the highest possible CPU if that is 255 or
 * more; without one every test skips (the suite's guests have 2 to 16
 * CPUs: selftests/vm/cpu255 boots one with 288 possible and hot-plugs
 * CPU 255 between the runs of this program).  Whether that CPU is online
 * or not (offline, absent or hot-removed: one node a possible CPU, made at
 * load), its
 * node is a character device of /dev/prf's major with minor N + 1, as its
 * sysfs "dev" says, and the instance says CPU N.  Online, a process pinned
 * there reading /dev/zero is sampled by /dev/prfN and, in its per-CPU
 * tallies, by /dev/prf on CPU N, and by no other CPU's minor; /dev/prf
 * samples every online CPU, its "cpus" is the online list and /dev/prfN's
 * is "N".  Not online, /dev/prfN's "cpus" is empty, its ncpus 0, and it
 * counts nothing while ON, nor does /dev/prf count on CPU N.
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

PRF_FIXTURE(bigcpu);

#define BASE	0xffffffff81000000ULL

/* The CPU under test, or -1 for none. */
static int big_cpu(void)
{
	const char *e = getenv("PRF_BIGCPU");
	int n = prf_nr_possible();

	if (e && *e)
		return atoi(e);
	return n > PRF_ALL_MINOR ? n - 1 : -1;
}

#define BIG_CPU(var)							\
	int var = big_cpu();						\
	do {								\
		if (var < PRF_ALL_MINOR)				\
			SKIP(return, "no CPU numbered %d or more (a guest "	\
			     "of selftests/vm/cpu255 has one)", PRF_ALL_MINOR); \
		ASSERT_GT(prf_nr_possible(), var)			\
			TH_LOG("$PRF_BIGCPU %d is not possible", var);	\
	} while (0)

/* An attribute of a sysfs file, its trailing newline dropped. */
static int read_line(const char *path, char *buf, size_t len)
{
	int r = prf_read_file(path, buf, len);

	if (r > 0 && buf[r - 1] == '\n')
		buf[--r] = '\0';
	return r;
}

/* The instance of @cpu: loaded with a table of 5, the filter on @tgid. */
static int open_loaded(struct __test_metadata *_metadata, int cpu,
		       pid_t tgid)
{
	__u64 *t = prf_make_table(5, BASE, 0x40);
	int fd = prf_open(cpu, O_RDWR);

	EXPECT_LE(0, fd);
	if (fd < 0 || !t) {
		free(t);
		return -1;
	}
	EXPECT_EQ(0, prf_load(fd, t, 5));
	EXPECT_EQ(0, prf_set_hz(fd, 1000));
	if (tgid)
		EXPECT_EQ(0, prf_set_filter(fd, PRF_FILTER_TGID, tgid));
	free(t);
	return fd;
}

/* /dev/prf's tallies, one entry per possible CPU: calloc'ed, or NULL. */
static struct prf_cpu_tally *tallies(struct __test_metadata *_metadata,
				     int fd, int ncpus)
{
	struct prf_cpu_tally *t = calloc(ncpus, sizeof(*t));
	struct prf_cpu_tallies q = { .nr = ncpus };

	if (!t)
		return NULL;
	q.cpus = (unsigned long)t;
	EXPECT_EQ(0, ioctl(fd, PRF_GETCPUTALLIES, &q));
	EXPECT_EQ(ncpus, q.ncpus);
	EXPECT_EQ(ncpus, q.nr);
	return t;
}

static __u64 periods_of(const struct prf_cpu_tally *t)
{
	return t->sampled + t->lost + t->noregs;
}

TEST_F(bigcpu, node_is_minor_n_plus_one_of_prf_major)
{
	BIG_CPU(n);
	char path[64], want[32], dev[32];
	struct prf_info info;
	struct stat all, st;
	__s32 cpu = -2;
	int fd;

	ASSERT_EQ(0, stat("/dev/prf", &all));
	ASSERT_EQ(0, stat(prf_dev_path(n, path, sizeof(path)), &st))
		TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(major(all.st_rdev), major(st.st_rdev));
	EXPECT_EQ(n + 1, minor(st.st_rdev));
	EXPECT_EQ(prf_cpu_minor(n), minor(st.st_rdev));
	snprintf(want, sizeof(want), "%u:%u", major(all.st_rdev), n + 1);
	ASSERT_LT(0, read_line(prf_sysfs_path(n, "dev", path, sizeof(path)),
			       dev, sizeof(dev)));
	EXPECT_STREQ(want, dev);
	fd = prf_open(n, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, prf_get_cpu(fd, &cpu));
	EXPECT_EQ(n, cpu);
	ASSERT_EQ(0, prf_info(fd, &info));
	EXPECT_EQ(n, info.cpu);
	EXPECT_EQ(prf_cpu_online(n) == 1 ? 1 : 0, info.ncpus);
	close(fd);
}

TEST_F(bigcpu, sysfs_cpus_name_it_while_online_alone)
{
	BIG_CPU(n);
	char online[4096], list[4096], one[16];
	struct prf_info info;

	ASSERT_LT(0, read_line("/sys/devices/system/cpu/online", online,
			       sizeof(online)));
	ASSERT_LE(0, prf_sysfs_read(n, "cpus", list, sizeof(list)));
	if (prf_cpu_online(n) == 1) {
		snprintf(one, sizeof(one), "%d\n", n);
		EXPECT_STREQ(one, list);
		EXPECT_TRUE(prf_cpulist_has(online, n));
	} else {
		EXPECT_STREQ("\n", list);
		EXPECT_FALSE(prf_cpulist_has(online, n));
	}
	ASSERT_LT(0, prf_sysfs_read(PRF_ALL, "cpus", list, sizeof(list)));
	strcat(online, "\n");
	EXPECT_STREQ(online, list);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(prf_nr_online(), info.ncpus);
}

/*
 * A reader of /dev/zero pinned to CPU N, every online CPU's minor and
 * /dev/prf filtered on it, ON together at 1000 Hz.
 */
TEST_F(bigcpu, online_cpu_alone_samples_its_reader)
{
	BIG_CPU(n);
	int ncpus = prf_nr_possible(), fds[PRF_MAX_CPUS], c, on = 0;
	struct prf_cpu_tally *t;
	struct prf_info info;
	__u64 taken = 0;
	pid_t child;

	if (prf_cpu_online(n) != 1)
		SKIP(return, "CPU %d is not online", n);
	ASSERT_GE(PRF_MAX_CPUS, ncpus);
	for (c = 0; c < PRF_MAX_CPUS; c++)
		fds[c] = -1;
	ASSERT_EQ(0, prf_pin_self(0));
	child = prf_start(n, PRF_WORK_ZERO);
	ASSERT_LT(0, child);
	for (c = 0; c < ncpus; c++) {
		if (prf_cpu_online(c) != 1)
			continue;
		fds[c] = open_loaded(_metadata, c, child);
		on++;
	}
	ASSERT_LE(0, fds[n]);
	ASSERT_LE(2, on);
	close(self->fd);
	self->fd = open_loaded(_metadata, PRF_ALL, child);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, prf_on(self->fd));
	for (c = 0; c < ncpus; c++)
		if (fds[c] >= 0)
			EXPECT_EQ(0, prf_on(fds[c]));
	/* 200 of the reader's samples on CPU N, 30 s at most */
	for (c = 0; c < 300 && taken < 200; c++) {
		prf_sleep(0.1);
		ASSERT_EQ(0, prf_info(fds[n], &info));
		taken = info.ticks_total;
	}
	for (c = 0; c < ncpus; c++)
		if (fds[c] >= 0)
			EXPECT_EQ(0, prf_off(fds[c]));
	ASSERT_EQ(0, prf_off(self->fd));
	prf_stop(child);

	/*
	 * /dev/prfN: the reader, most of the samples the CPU took (not of
	 * its periods: under TCG a vCPU the host did not run loses them)
	 */
	ASSERT_EQ(0, prf_info(fds[n], &info));
	TH_LOG("/dev/prf%d: the reader's samples %llu of %llu, %llu periods",
	       n, (unsigned long long)info.ticks_total,
	       (unsigned long long)info.ticks_sampled,
	       (unsigned long long)prf_periods(&info));
	EXPECT_LE(200, info.ticks_total);
	EXPECT_LE(info.ticks_sampled, 2 * info.ticks_total);
	/* the other CPUs' minors sampled, and never the reader */
	for (c = 0; c < ncpus; c++) {
		if (fds[c] < 0 || c == n)
			continue;
		ASSERT_EQ(0, prf_info(fds[c], &info));
		EXPECT_EQ(0, info.ticks_total) TH_LOG("/dev/prf%d", c);
		EXPECT_LT(0, info.ticks_filtered) TH_LOG("/dev/prf%d", c);
	}
	/* /dev/prf: every online CPU sampled, the reader on CPU N alone */
	t = tallies(_metadata, self->fd, ncpus);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(on, info.ncpus);
	for (c = 0; c < ncpus; c++) {
		EXPECT_EQ(c, t[c].cpu);
		if (fds[c] < 0) {
			EXPECT_EQ(0, periods_of(&t[c])) TH_LOG("CPU %d", c);
		} else if (c == n) {
			EXPECT_EQ(info.ticks_total, t[c].sampled - t[c].filtered);
			EXPECT_LE(200, t[c].sampled - t[c].filtered);
		} else {
			EXPECT_EQ(0, t[c].sampled - t[c].filtered)
				TH_LOG("CPU %d", c);
			EXPECT_LT(0, periods_of(&t[c])) TH_LOG("CPU %d", c);
		}
	}
	free(t);
	for (c = 0; c < ncpus; c++)
		if (fds[c] >= 0)
			close(fds[c]);
}

/* Not online: /dev/prfN ON for half a second counts no period at all. */
TEST_F(bigcpu, cpu_not_online_counts_nothing)
{
	BIG_CPU(n);
	int ncpus = prf_nr_possible(), fd, c;
	struct prf_cpu_tally *t;
	struct prf_info info;

	if (prf_cpu_online(n) == 1)
		SKIP(return, "CPU %d is online", n);
	fd = open_loaded(_metadata, n, 0);
	ASSERT_LE(0, fd);
	close(self->fd);
	self->fd = open_loaded(_metadata, PRF_ALL, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, prf_on(fd));
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_info(fd, &info));
	EXPECT_EQ(0, info.ncpus);
	EXPECT_EQ(0, prf_periods(&info));
	t = tallies(_metadata, self->fd, ncpus);
	ASSERT_NE(NULL, t);
	for (c = 0; c < ncpus; c++) {
		if (prf_cpu_online(c) == 1) {
			EXPECT_LT(0, periods_of(&t[c])) TH_LOG("CPU %d", c);
		} else {
			EXPECT_EQ(0, periods_of(&t[c])) TH_LOG("CPU %d", c);
		}
	}
	free(t);
	close(fd);
}

TEST_HARNESS_MAIN
