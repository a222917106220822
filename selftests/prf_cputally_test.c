// SPDX-License-Identifier: GPL-2.0
/*
 * prf_cputally_test - per-CPU tallies (uapi "Per-CPU tallies"):
 * PRF_GETCPUTALLIES gives one entry per CPU the instance covers, in
 * ascending order (every possible CPU for /dev/prf, CPU N for /dev/prfN and
 * a private instance set to it), .ncpus whatever the room, entries that add
 * up to prf_info's tallies exactly once OFF, a busy CPU's kernel samples on
 * that CPU, EINVAL for flags or pad (nothing written), EFAULT for a bad
 * array, and answers a read-only descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prf_fixture.h"

PRF_FIXTURE(cputally);

#define BASE	0xffffffff81000000ULL

static int get(int fd, struct prf_cpu_tally *t, __u32 room,
	       struct prf_cpu_tallies *out)
{
	memset(out, 0, sizeof(*out));
	out->nr = room;
	out->cpus = (unsigned long)t;
	return ioctl(fd, PRF_GETCPUTALLIES, out) ? -errno : 0;
}

/* The samples a CPU counted in the table or outside it (the time mode). */
static __u64 kernel_of(const struct prf_cpu_tally *t)
{
	return t->sampled - t->filtered - t->user - t->idle - t->outside;
}

TEST_F(cputally, dev_prf_has_every_possible_cpu_in_order)
{
	struct prf_cpu_tally *t = calloc(self->ncpus + 4, sizeof(*t));
	struct prf_cpu_tallies out;
	int i;

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, get(self->fd, t, self->ncpus + 4, &out));
	EXPECT_EQ(self->ncpus, out.ncpus);
	EXPECT_EQ(self->ncpus, out.nr);
	for (i = 0; i < self->ncpus; i++) {
		EXPECT_EQ(i, t[i].cpu);
		EXPECT_EQ(0, t[i].pad);
		EXPECT_EQ(0, t[i].sampled);	/* reset by the fixture */
	}
	free(t);
}

TEST_F(cputally, no_room_says_how_many)
{
	struct prf_cpu_tallies out;

	ASSERT_EQ(0, get(self->fd, NULL, 0, &out));
	EXPECT_EQ(self->ncpus, out.ncpus);
	EXPECT_EQ(0, out.nr);
}

TEST_F(cputally, the_room_bounds_what_is_written)
{
	struct prf_cpu_tally t[3];
	struct prf_cpu_tallies out;

	if (self->ncpus < 2)
		SKIP(return, "needs 2 CPUs");
	memset(t, 0xaa, sizeof(t));
	ASSERT_EQ(0, get(self->fd, t, 1, &out));
	EXPECT_EQ(1, out.nr);
	EXPECT_EQ(self->ncpus, out.ncpus);
	EXPECT_EQ(0, t[0].cpu);
	EXPECT_EQ(0xaaaaaaaaU, t[1].cpu);	/* past the room: untouched */
}

TEST_F(cputally, a_cpu_device_has_its_cpu_alone)
{
	struct prf_cpu_tally t[4];
	struct prf_cpu_tallies out;

	PRF_NEED_CPU(1);
	ASSERT_EQ(0, get(self->cpu[1], t, 4, &out));
	EXPECT_EQ(1, out.ncpus);
	EXPECT_EQ(1, out.nr);
	EXPECT_EQ(1, t[0].cpu);
}

TEST_F(cputally, a_private_instance_follows_its_cpu)
{
	struct prf_cpu_tally *t = calloc(self->ncpus + 1, sizeof(*t));
	struct prf_cpu_tallies out;
	int fd = prf_open_clone();

	PRF_NEED_CPU(1);
	ASSERT_NE(NULL, t);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, get(fd, t, self->ncpus + 1, &out));
	EXPECT_EQ(self->ncpus, out.ncpus);
	ASSERT_EQ(0, prf_set_cpu(fd, 1));
	ASSERT_EQ(0, get(fd, t, self->ncpus + 1, &out));
	EXPECT_EQ(1, out.ncpus);
	EXPECT_EQ(1, out.nr);
	EXPECT_EQ(1, t[0].cpu);
	close(fd);
	free(t);
}

TEST_F(cputally, flags_or_pad_are_einval_and_write_nothing)
{
	struct prf_cpu_tally t[2];
	struct prf_cpu_tallies in = { .nr = 2 };

	memset(t, 0xaa, sizeof(t));
	in.cpus = (unsigned long)t;
	in.flags = 1;
	EXPECT_EQ(-1, ioctl(self->fd, PRF_GETCPUTALLIES, &in));
	EXPECT_EQ(EINVAL, errno);
	in.flags = 0;
	in.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, PRF_GETCPUTALLIES, &in));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(2, in.nr);
	EXPECT_EQ(0, in.ncpus);
	EXPECT_EQ(0xaaaaaaaaU, t[0].cpu);
}

TEST_F(cputally, a_bad_array_is_efault)
{
	struct prf_cpu_tallies in = { .nr = 1, .cpus = 8 };

	EXPECT_EQ(-1, ioctl(self->fd, PRF_GETCPUTALLIES, &in));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PRF_GETCPUTALLIES, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(cputally, a_read_only_descriptor_may_ask)
{
	struct prf_cpu_tallies out;
	int ro = prf_open(PRF_ALL, O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(0, get(ro, NULL, 0, &out));
	EXPECT_EQ(self->ncpus, out.ncpus);
	close(ro);
}

/*
 * Reads of /dev/zero on CPU 1 while ON: once OFF the entries add up to
 * prf_info's tallies, their kernel samples to the table's counters, and
 * the kernel's share of CPU 1's samples is the kernel's share of CPU 1's
 * time as the guest itself accounted it (/proc/stat) over the same window.
 * Both are samples of the same time on the same CPU, so they agree within
 * their binomial noise (five standard deviations).  Not CPU 1's share of
 * every CPU's kernel samples: an idle CPU's kernel samples (interrupts,
 * the idle loop's exits, a late timer's catch-up) are idle time to
 * /proc/stat, the more so on a starved guest (debian-7.x beside four busy
 * loops: CPU 1 held 72.3 % of the kernel samples and 90.9 % of the kernel
 * time).  A fixed share (70 %) was a test of the host.  The run lasts until
 * 600 kernel samples were taken and /proc/stat counted 100 ticks of CPU 1
 * and 100 of kernel time (the guest's own clocks, not the wall clock), 30 s
 * at most.  Still fails when the entries do not add up, and when a CPU's
 * samples are counted under another CPU (CPU 1's kernel share far from its
 * time's, or no kernel sample on CPU 1).
 */
TEST_F(cputally, entries_add_up_and_a_busy_cpu_holds_its_samples)
{
	struct prf_cpu_tally *t = calloc(self->ncpus, sizeof(*t));
	struct prf_cpu_tallies out;
	struct prf_cpu_tally sum = { 0 };
	struct prf_info info;
	struct prf_snap s;
	__u64 *tab = prf_make_table(5, BASE, 0x40), kernel = 0, table = 0;
	struct prf_cpu_times *c0 = calloc(self->ncpus, sizeof(*c0));
	struct prf_cpu_times *c1 = calloc(self->ncpus, sizeof(*c1));
	__u64 kt = 0, kt1 = 0, all1 = 0, n1, a1;
	double end, ps, pp, tol;
	pid_t pid;
	int i;

	PRF_NEED_CPU(1);
	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, tab);
	ASSERT_EQ(0, prf_load(self->fd, tab, 5));
	free(tab);
	ASSERT_EQ(0, prf_set_hz(self->fd, 1000));
	pid = prf_start(1, PRF_WORK_ZERO);
	ASSERT_LT(0, pid);
	ASSERT_NE(NULL, c0);
	ASSERT_NE(NULL, c1);
	prf_sleep(0.1);		/* the reader is reading */
	for (i = 0; i < self->ncpus; i++)
		prf_cpu_times(i, &c0[i]);	/* offline: zeroes */
	ASSERT_EQ(0, prf_on(self->fd));
	end = prf_now() + 30;
	do {
		prf_sleep(0.1);
		ASSERT_EQ(0, prf_info(self->fd, &info));
		kt = 0;
		for (i = 0; i < self->ncpus; i++) {
			prf_cpu_times(i, &c1[i]);
			if (c1[i].system < c0[i].system)	/* offline */
				c1[i] = c0[i];
			kt += prf_cpu_kernel(&c0[i], &c1[i]);
		}
		all1 = prf_cpu_all(&c0[1], &c1[1]);
	} while ((info.ticks_total - info.ticks_user - info.ticks_idle < 600 ||
		  kt < 100 || all1 < 100) && prf_now() < end);
	ASSERT_EQ(0, prf_off(self->fd));
	kt1 = prf_cpu_kernel(&c0[1], &c1[1]);
	prf_stop(pid);
	ASSERT_EQ(0, get(self->fd, t, self->ncpus, &out));
	ASSERT_EQ(self->ncpus, out.nr);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	for (i = 0; i < self->ncpus; i++) {
		sum.sampled += t[i].sampled;
		sum.filtered += t[i].filtered;
		sum.user += t[i].user;
		sum.idle += t[i].idle;
		sum.outside += t[i].outside;
		sum.lost += t[i].lost;
		sum.noregs += t[i].noregs;
		sum.nmi += t[i].nmi;
		kernel += kernel_of(&t[i]);
	}
	EXPECT_EQ(info.ticks_sampled, sum.sampled);
	EXPECT_EQ(info.ticks_filtered, sum.filtered);
	EXPECT_EQ(info.ticks_user, sum.user);
	EXPECT_EQ(info.ticks_idle, sum.idle);
	EXPECT_EQ(info.ticks_outside, sum.outside);
	EXPECT_EQ(info.ticks_lost, sum.lost);
	EXPECT_EQ(info.ticks_noregs, sum.noregs);
	EXPECT_EQ(info.samples_nmi, sum.nmi);
	for (i = 0; i < (int)s.n; i++)
		table += s.counts[i];
	EXPECT_EQ(table, kernel);
	n1 = kernel_of(&t[1]) + t[1].outside;
	a1 = t[1].sampled - t[1].filtered;
	ASSERT_LT(0, kt) TH_LOG("/proc/stat counted no kernel time");
	ASSERT_LT(0, all1) TH_LOG("/proc/stat counted no time on CPU 1");
	ASSERT_LT(0, a1);
	ps = (double)kt1 / all1;
	pp = (double)n1 / a1;
	tol = prf_share_tol(ps, a1, all1);
	TH_LOG("CPU 1: %llu of its %llu samples in the kernel (%.1f%%), %llu of "
	       "its %llu ticks kernel time in /proc/stat (%.1f%%), allowed %.1f "
	       "points; every CPU: %llu kernel samples, %llu ticks of kernel time",
	       (unsigned long long)n1, (unsigned long long)a1, 100 * pp,
	       (unsigned long long)kt1, (unsigned long long)all1, 100 * ps,
	       100 * tol, (unsigned long long)(kernel + sum.outside),
	       (unsigned long long)kt);
	EXPECT_LT(0, n1);
	EXPECT_GE(tol, fabs(pp - ps));
	/*
	 * Not every other CPU against its own kernel time: a CPU that is
	 * mostly idle has kernel samples (interrupts, the idle loop's exits,
	 * a late timer's catch-up) that /proc/stat's tick-based accounting
	 * calls idle, the more so on a starved guest (CPU 0: 13.9 % of the
	 * samples, 0.7 % of the kernel time, on debian-6.12 at load 20).  A
	 * tally counted under the wrong CPU still fails the check above.
	 */
	prf_snap_free(&s);
	free(c0);
	free(c1);
	free(t);
}

TEST_HARNESS_MAIN
