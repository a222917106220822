// SPDX-License-Identifier: GPL-2.0
/*
 * prf_rdonly_test - what a descriptor opened read-only may do (uapi).
 *
 * Every ioctl that changes an instance (PRF_SETSTATE, PRF_SETHZ, PRF_CLEAR,
 * PRF_SETFLAGS, PRF_SETCPU, PRF_SETFILTER, PRF_SETTASKS, PRF_SETSTACKS,
 * PRF_SETMODE, PRF_SETSCHEDTEXT, PRF_SETSOURCE) fails with EBADF on a file opened O_RDONLY,
 * before its argument is read, and changes nothing; every other ioctl and
 * read(2) work there as on a file opened for writing; a file opened
 * O_WRONLY may change the instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prf_fixture.h"

PRF_FIXTURE(rdonly);

#define BASE	0xffffffff81000000ULL
#define NADDR	5

/*
 * /dev/prf set up through the read-write descriptor: loaded, some counts,
 * OFF, 250 Hz, PRF_FLAG_FIXED, a filter on this process, a tally of 16, a
 * stack table of 4 x 32.  Returns a read-only descriptor of it.
 */
static int setup(struct __test_metadata *_metadata, int fd)
{
	struct prf_stack_conf sc = { .depth = 4, .capacity = 32 };
	__u64 *t = prf_make_table(NADDR, BASE, 0x40);
	int ro;

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, NADDR));
	free(t);
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(0.1);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_set_hz(fd, 250));
	ASSERT_EQ(0, prf_set_flags(fd, PRF_FLAG_FIXED));
	ASSERT_EQ(0, prf_set_tasks(fd, 16));
	ASSERT_EQ(0, ioctl(fd, PRF_SETSTACKS, &sc));
	ro = prf_open(PRF_ALL, O_RDONLY);
	ASSERT_LE(0, ro);
	return ro;
}

/* Everything setup() made, still there; @on: ON (else OFF). */
static void expect_setup(struct __test_metadata *_metadata, int fd, bool on,
			 const struct prf_snap *before)
{
	struct prf_stacks st = { 0 };
	struct prf_tasks tk;
	struct prf_filter f;
	struct prf_snap s;
	__u32 v = 0;

	EXPECT_EQ(PRF_STATUS_LOADED | (on ? PRF_STATUS_ON : 0), prf_status(fd));
	EXPECT_EQ(NADDR, prf_size(fd));
	ASSERT_EQ(0, prf_get_hz(fd, &v));
	EXPECT_EQ(250, v);
	ASSERT_EQ(0, prf_get_flags(fd, &v));
	EXPECT_EQ(PRF_FLAG_FIXED, v);
	ASSERT_EQ(0, prf_get_filter(fd, &f));
	EXPECT_EQ(PRF_FILTER_NONE, f.type);
	ASSERT_EQ(0, prf_get_tasks(fd, NULL, 0, &tk));
	EXPECT_EQ(16, tk.capacity);
	ASSERT_EQ(0, ioctl(fd, PRF_GETSTACKS, &st));
	EXPECT_EQ(4, st.depth);
	EXPECT_EQ(32, st.capacity);
	ASSERT_EQ(0, ioctl(fd, PRF_GETMODE, &v));
	EXPECT_EQ(PRF_MODE_TIME, v);
	if (!before || on)
		return;
	ASSERT_EQ(0, prf_snap(fd, &s));
	ASSERT_EQ(before->n, s.n);
	EXPECT_EQ(0, memcmp(before->buf, s.buf, (2 * s.n + 2) * sizeof(__u64)));
	prf_snap_free(&s);
}

/* ---- each command that changes the instance ------------------------------- */

TEST_F(rdonly, setstate_on_is_ebadf_and_stays_off)
{
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-EBADF, prf_on(ro));
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setstate_off_is_ebadf_and_stays_on)
{
	int ro = setup(_metadata, self->fd);

	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(-EBADF, prf_off(ro));
	expect_setup(_metadata, self->fd, true, NULL);
	close(ro);
}

TEST_F(rdonly, setstate_unloaded_is_ebadf_too)
{
	int ro = prf_open(PRF_ALL, O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, prf_on(ro));
	EXPECT_EQ(0, prf_status(ro));
	close(ro);
}

TEST_F(rdonly, sethz_is_ebadf_and_keeps_the_rate)
{
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-EBADF, prf_set_hz(ro, 1000));
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, clear_is_ebadf_and_keeps_the_counts)
{
	int ro = setup(_metadata, self->fd);
	struct prf_info a, b;
	struct prf_snap before;

	ASSERT_EQ(0, prf_snap(self->fd, &before));
	ASSERT_EQ(0, prf_info(self->fd, &a));
	ASSERT_LT(0, a.ticks_sampled);
	EXPECT_EQ(-EBADF, prf_clear(ro));
	ASSERT_EQ(0, prf_info(self->fd, &b));
	EXPECT_EQ(a.ticks_sampled, b.ticks_sampled);
	EXPECT_EQ(a.ticks_total, b.ticks_total);
	EXPECT_EQ(a.on_ns, b.on_ns);
	expect_setup(_metadata, self->fd, false, &before);
	prf_snap_free(&before);
	close(ro);
}

TEST_F(rdonly, clear_while_on_is_ebadf)
{
	int ro = setup(_metadata, self->fd);

	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(-EBADF, prf_clear(ro));
	expect_setup(_metadata, self->fd, true, NULL);
	close(ro);
}

TEST_F(rdonly, setflags_is_ebadf_and_keeps_the_flags)
{
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-EBADF, prf_set_flags(ro, 0));
	EXPECT_EQ(-EBADF, prf_set_flags(ro, PRF_FLAG_ISOLATED));
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setfilter_is_ebadf_and_keeps_the_filter)
{
	int ro = setup(_metadata, self->fd);
	struct prf_filter f;

	EXPECT_EQ(-EBADF, prf_set_filter(ro, PRF_FILTER_TGID, getpid()));
	expect_setup(_metadata, self->fd, false, NULL);
	/* and one in place stays */
	ASSERT_EQ(0, prf_set_filter(self->fd, PRF_FILTER_TGID, getpid()));
	EXPECT_EQ(-EBADF, prf_set_filter(ro, PRF_FILTER_NONE, 0));
	ASSERT_EQ(0, prf_get_filter(self->fd, &f));
	EXPECT_EQ(PRF_FILTER_TGID, f.type);
	EXPECT_EQ((__u64)getpid(), f.id);
	close(ro);
}

TEST_F(rdonly, settasks_is_ebadf_and_keeps_the_tally)
{
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-EBADF, prf_set_tasks(ro, 0));
	EXPECT_EQ(-EBADF, prf_set_tasks(ro, 64));
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setstacks_is_ebadf_and_keeps_the_table)
{
	struct prf_stack_conf off = { 0 }, big = { .depth = 8, .capacity = 8 };
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-1, ioctl(ro, PRF_SETSTACKS, &off));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(ro, PRF_SETSTACKS, &big));
	EXPECT_EQ(EBADF, errno);
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setmode_is_ebadf_and_keeps_the_mode)
{
	__u32 mode = PRF_MODE_CALLS;
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-1, ioctl(ro, PRF_SETMODE, &mode));
	EXPECT_EQ(EBADF, errno);
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setschedtext_is_ebadf_and_keeps_the_range)
{
	struct prf_text_range r = { 0x1000, 0x2000 };
	int ro = setup(_metadata, self->fd);

	ASSERT_EQ(0, ioctl(self->fd, PRF_SETSCHEDTEXT, &r));
	r.end = 0x3000;
	EXPECT_EQ(-1, ioctl(ro, PRF_SETSCHEDTEXT, &r));
	EXPECT_EQ(EBADF, errno);
	memset(&r, 0, sizeof(r));
	ASSERT_EQ(0, ioctl(ro, PRF_GETSCHEDTEXT, &r));
	EXPECT_EQ(0x1000, r.start);
	EXPECT_EQ(0x2000, r.end);
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setsource_is_ebadf_and_keeps_the_timer)
{
	struct prf_source src = { .source = PRF_SOURCE_PMU,
				  .event = PRF_EVENT_CYCLES };
	int ro = setup(_metadata, self->fd);

	EXPECT_EQ(-1, ioctl(ro, PRF_SETSOURCE, &src));
	EXPECT_EQ(EBADF, errno);
	memset(&src, 0xff, sizeof(src));
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETSOURCE, &src));
	EXPECT_EQ(PRF_SOURCE_TIMER, src.source);
	EXPECT_EQ(0, src.period);
	expect_setup(_metadata, self->fd, false, NULL);
	close(ro);
}

TEST_F(rdonly, setcpu_of_a_private_instance_is_ebadf)
{
	int ro = open("/dev/" PRF_CLONE_NAME, O_RDONLY | O_CLOEXEC);
	__s32 cpu = 7;

	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, prf_set_cpu(ro, 0));
	ASSERT_EQ(0, prf_get_cpu(ro, &cpu));
	EXPECT_EQ(-1, cpu);
	close(ro);
}

TEST_F(rdonly, setcpu_of_a_shared_minor_is_ebadf_before_einval)
{
	int ro = prf_open(PRF_ALL, O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, prf_set_cpu(ro, 0));
	close(ro);
}

TEST_F(rdonly, the_argument_is_not_read)
{
	static const unsigned long cmds[] = {
		PRF_SETHZ, PRF_SETFLAGS, PRF_SETCPU, PRF_SETFILTER,
		PRF_SETTASKS, PRF_SETSTACKS, PRF_SETMODE, PRF_SETSOURCE,
		PRF_SETSCHEDTEXT,
	};
	int ro = prf_open(PRF_ALL, O_RDONLY);
	size_t i;

	ASSERT_LE(0, ro);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		EXPECT_EQ(-1, ioctl(ro, cmds[i], NULL)) TH_LOG("%#lx", cmds[i]);
		EXPECT_EQ(EBADF, errno) TH_LOG("%#lx: not EFAULT", cmds[i]);
	}
	close(ro);
}

TEST_F(rdonly, every_cpu_minor_refuses_too)
{
	int cpu, ro;

	for (cpu = 0; cpu < self->ncpus && cpu < PRF_FIXTURE_CPUS; cpu++) {
		ro = prf_open(cpu, O_RDONLY);
		if (ro == -ENXIO)
			continue;
		ASSERT_LE(0, ro);
		EXPECT_EQ(-EBADF, prf_set_hz(ro, 1000)) TH_LOG("cpu %d", cpu);
		EXPECT_EQ(-EBADF, prf_on(ro)) TH_LOG("cpu %d", cpu);
		close(ro);
	}
}

/* ---- what a read-only descriptor keeps ------------------------------------ */

TEST_F(rdonly, every_read_ioctl_works)
{
	int ro = setup(_metadata, self->fd);
	struct prf_stacks st = { 0 };
	struct prf_uchains uc = { 0 };
	struct prf_upairs up = { 0 };
	struct prf_filter f;
	struct prf_source src = { 0 };
	struct prf_info info;
	struct prf_tasks tk;
	__u32 v;
	__s32 cpu = 7;

	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(ro));
	EXPECT_EQ(NADDR, prf_size(ro));
	EXPECT_LE(PRF_MIN_ADDRS, prf_max(ro));
	EXPECT_EQ(0, prf_get_hz(ro, &v));
	EXPECT_EQ(250, v);
	EXPECT_EQ(0, prf_get_flags(ro, &v));
	EXPECT_EQ(PRF_FLAG_FIXED, v);
	EXPECT_EQ(0, prf_info(ro, &info));
	EXPECT_EQ(250, info.hz);
	EXPECT_EQ(0, prf_get_cpu(ro, &cpu));
	EXPECT_EQ(-1, cpu);
	EXPECT_EQ(0, prf_get_filter(ro, &f));
	EXPECT_EQ(PRF_FILTER_NONE, f.type);
	EXPECT_EQ(0, prf_get_tasks(ro, NULL, 0, &tk));
	EXPECT_EQ(16, tk.capacity);
	EXPECT_EQ(0, ioctl(ro, PRF_GETSTACKS, &st));
	EXPECT_EQ(4, st.depth);
	EXPECT_EQ(0, ioctl(ro, PRF_GETMODE, &v));
	EXPECT_EQ(PRF_MODE_TIME, v);
	EXPECT_EQ(0, ioctl(ro, PRF_GETSOURCE, &src));
	EXPECT_EQ(PRF_SOURCE_TIMER, src.source);
	EXPECT_EQ(0, ioctl(ro, PRF_GETEVENTS, &v));
	EXPECT_EQ(0, ioctl(ro, PRF_GETUCHAINS, &uc));
	EXPECT_EQ(0, ioctl(ro, PRF_GETUPAIRS, &up));
	EXPECT_EQ(0, up.depth);	/* stacks but no chains: everything 0 */
	close(ro);
}

TEST_F(rdonly, getsites_works)
{
	struct prf_site sites[NADDR + 2];
	struct prf_sites ss = { .nr = NADDR + 2,
				.sites = (__u64)(uintptr_t)sites };
	__u32 mode = PRF_MODE_ALLOC_CALLS;
	int ro = setup(_metadata, self->fd);

	if (ioctl(self->fd, PRF_SETMODE, &mode))
		SKIP(goto out, "no alloc modes: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(ro, PRF_GETSITES, &ss));
	EXPECT_EQ(NADDR + 2, ss.nr);
out:
	close(ro);
}

TEST_F(rdonly, read_works)
{
	int ro = setup(_metadata, self->fd);
	struct prf_snap a, b;

	ASSERT_EQ(0, prf_snap(self->fd, &a));
	ASSERT_EQ(0, prf_snap(ro, &b));
	ASSERT_EQ(a.n, b.n);
	EXPECT_EQ(0, memcmp(a.buf, b.buf, (2 * a.n + 2) * sizeof(__u64)));
	prf_snap_free(&a);
	prf_snap_free(&b);
	close(ro);
}

TEST_F(rdonly, unknown_commands_stay_einval)
{
	int ro = prf_open(PRF_ALL, O_RDONLY);

	ASSERT_LE(0, ro);
	EXPECT_EQ(-1, ioctl(ro, _IO(PRF_IOC_MAGIC, 99), 0));
	EXPECT_EQ(EINVAL, errno);
	close(ro);
}

/* ---- a write-only descriptor may change the instance ---------------------- */

TEST_F(rdonly, write_only_descriptor_changes_the_instance)
{
	int wo = prf_open(PRF_ALL, O_WRONLY);
	__u64 *t = prf_make_table(NADDR, BASE, 0x40);
	__u32 hz = 0;

	ASSERT_LE(0, wo);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, prf_load(wo, t, NADDR));
	EXPECT_EQ(0, prf_set_hz(wo, 300));
	EXPECT_EQ(0, prf_on(wo));
	EXPECT_EQ(0, prf_clear(wo));
	EXPECT_EQ(0, prf_off(wo));
	ASSERT_EQ(0, prf_get_hz(self->fd, &hz));
	EXPECT_EQ(300, hz);
	free(t);
	close(wo);
}

TEST_HARNESS_MAIN
