// SPDX-License-Identifier: GPL-2.0
/*
 * prf_budget_test - the sample budget (uapi/linux/prf.h).
 *
 * Every instance ON in the time mode charges its rate to each CPU it
 * samples; an ON that would take a CPU past the module parameter
 * sample_budget (samples per second per CPU, default 40000) fails with
 * ENOSPC and changes nothing; OFF (and the close of a private instance)
 * gives the charge back; a new value of the parameter applies to the next
 * ON.  PRF_GETINFO (version 5) and sysfs "info" show the budget and the
 * use of the busiest CPU an instance samples.  A CPU that is offline at ON
 * is charged all the same (it will be sampled when it comes back).  The
 * event modes charge their fixed PRF_CHARGE_* (1000: forty fit the
 * default budget) to every CPU, from ON to OFF, and are refused the same
 * way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "prf_fixture.h"

#define BUDGET_PARAM	"/sys/module/prf/parameters/sample_budget"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define BASE		0xffffffff81000000ULL
#define NCLONES		4

FIXTURE(budget) {
	int fd;			/* /dev/prf */
	int cpu0, cpu1;		/* /dev/prf0, /dev/prf1 (-errno if none) */
	int clone[NCLONES];	/* private instances, -1 when not open */
	char saved[32];		/* the parameter before the test */
	double t0;
};

static int set_budget(unsigned int v)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", v);
	return prf_write_file(BUDGET_PARAM, s);
}

static long get_budget(void)
{
	char s[32];

	if (prf_read_file(BUDGET_PARAM, s, sizeof(s)) <= 0)
		return -1;
	return strtol(s, NULL, 10);
}

FIXTURE_SETUP(budget)
{
	int i, r;

	self->t0 = prf_now();
	self->fd = self->cpu0 = self->cpu1 = -1;
	for (i = 0; i < NCLONES; i++)
		self->clone[i] = -1;
	self->saved[0] = '\0';
	ASSERT_EQ(0, prf_reset_all());
	r = prf_read_file(BUDGET_PARAM, self->saved, sizeof(self->saved));
	ASSERT_LT(0, r) TH_LOG("%s: %s", BUDGET_PARAM, strerror(-r));
	self->fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->cpu0 = prf_open(0, O_RDWR);
	ASSERT_LE(0, self->cpu0);
	self->cpu1 = prf_nr_possible() > 1 ? prf_open(1, O_RDWR) : -ENODEV;
}

FIXTURE_TEARDOWN(budget)
{
	int i;

	for (i = 0; i < NCLONES; i++)
		if (self->clone[i] >= 0)
			close(self->clone[i]);
	if (!access(CPU1_ONLINE, W_OK))
		prf_write_file(CPU1_ONLINE, "1");
	EXPECT_EQ(0, prf_reset_all());
	if (self->saved[0])
		EXPECT_EQ(0, prf_write_file(BUDGET_PARAM, self->saved));
	if (self->fd >= 0)
		close(self->fd);
	if (self->cpu0 >= 0)
		close(self->cpu0);
	if (self->cpu1 >= 0)
		close(self->cpu1);
	prf_fixture_time(_metadata, self->t0);
}

/* A table of 5 kernel addresses at @hz, OFF. */
static void load_at(struct __test_metadata *_metadata, int fd, __u32 hz)
{
	__u64 *t = prf_make_table(5, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, 5));
	ASSERT_EQ(0, prf_set_hz(fd, hz));
	free(t);
}

/* A new private instance on @cpu (-1: all), loaded at @hz: its fd. */
static int clone_at(struct __test_metadata *_metadata, int *slot, __s32 cpu,
		    __u32 hz)
{
	*slot = prf_open_clone();
	if (*slot < 0)
		return *slot;
	if (prf_set_cpu(*slot, cpu))
		return -1;
	load_at(_metadata, *slot, hz);
	return *slot;
}

static struct prf_info info_of(struct __test_metadata *_metadata, int fd)
{
	struct prf_info info;

	memset(&info, 0, sizeof(info));
	EXPECT_EQ(0, prf_info(fd, &info));
	EXPECT_EQ(PRF_INFO_VERSION, info.version);
	EXPECT_EQ(sizeof(info), info.size);
	return info;
}

#define NEED_CPU1()							\
	do {								\
		if (self->cpu1 < 0 || prf_cpu_online(1) != 1)		\
			SKIP(return, "needs CPU 1 online");		\
	} while (0)

/* ---- what it is ---------------------------------------------------------- */

TEST_F(budget, default_is_four_instances_at_the_highest_rate)
{
	/* the suite loads prf.ko without the parameter */
	EXPECT_STREQ("40000\n", self->saved);
}

TEST_F(budget, info_shows_the_parameter_and_no_use_when_all_off)
{
	struct prf_info info;

	ASSERT_EQ(0, set_budget(12345));
	info = info_of(_metadata, self->fd);
	EXPECT_EQ(12345, info.sample_budget);
	EXPECT_EQ(0, info.budget_used);
	info = info_of(_metadata, self->cpu0);
	EXPECT_EQ(12345, info.sample_budget);
	EXPECT_EQ(0, info.budget_used);
}

TEST_F(budget, sysfs_info_has_the_budget_lines)
{
	char buf[4096];

	ASSERT_EQ(0, set_budget(23456));
	load_at(_metadata, self->cpu0, 700);
	ASSERT_EQ(0, prf_on(self->cpu0));
	ASSERT_LT(0, prf_sysfs_read(PRF_ALL, "info", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "\nsample_budget 23456\n")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\nbudget_used 700\n")) TH_LOG("%s", buf);
}

/* ---- the refusal --------------------------------------------------------- */

TEST_F(budget, on_past_the_budget_is_enospc)
{
	ASSERT_EQ(0, set_budget(1500));
	load_at(_metadata, self->cpu0, 1000);
	load_at(_metadata, self->fd, 1000);
	ASSERT_EQ(0, prf_on(self->cpu0));
	/* /dev/prf samples CPU 0 too: 1000 + 1000 > 1500 */
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(self->cpu0));
}

TEST_F(budget, refused_on_changes_nothing)
{
	struct prf_snap before, after;
	struct prf_info a, b;
	__u32 hz = 0, flags = 9;

	ASSERT_EQ(0, set_budget(1500));
	load_at(_metadata, self->fd, 1000);
	/* counts to keep: a while ON, then OFF */
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &before));
	a = info_of(_metadata, self->fd);
	ASSERT_LT(0, a.ticks_sampled);

	load_at(_metadata, self->cpu0, 1000);
	ASSERT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));

	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &after));
	ASSERT_EQ(before.n, after.n);
	EXPECT_EQ(0, memcmp(before.buf, after.buf,
			    (2 * before.n + 2) * sizeof(__u64)));
	b = info_of(_metadata, self->fd);
	EXPECT_EQ(a.ticks_total, b.ticks_total);
	EXPECT_EQ(a.ticks_sampled, b.ticks_sampled);
	EXPECT_EQ(a.ticks_lost, b.ticks_lost);
	EXPECT_EQ(a.on_ns, b.on_ns);
	EXPECT_EQ(a.naddrs, b.naddrs);
	ASSERT_EQ(0, prf_get_hz(self->fd, &hz));
	EXPECT_EQ(1000, hz);
	ASSERT_EQ(0, prf_get_flags(self->fd, &flags));
	EXPECT_EQ(0, flags);
	/* nor did it charge anything: CPU 0 holds /dev/prf0's 1000 alone */
	EXPECT_EQ(1000, info_of(_metadata, self->cpu0).budget_used);
	prf_snap_free(&before);
	prf_snap_free(&after);
}

TEST_F(budget, refused_on_takes_no_sample)
{
	struct prf_info a, b;

	ASSERT_EQ(0, set_budget(999));
	load_at(_metadata, self->fd, 1000);
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
	prf_sleep(0.1);
	a = info_of(_metadata, self->fd);
	EXPECT_EQ(0, a.ticks_sampled);
	EXPECT_EQ(0, a.ticks_lost);
	EXPECT_EQ(0, a.on_ns);
	prf_sleep(0.1);
	b = info_of(_metadata, self->fd);
	EXPECT_EQ(0, b.ticks_sampled);
}

TEST_F(budget, zero_refuses_every_on_of_the_time_mode)
{
	ASSERT_EQ(0, set_budget(0));
	load_at(_metadata, self->cpu0, PRF_HZ_MIN);
	EXPECT_EQ(-ENOSPC, prf_on(self->cpu0));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->cpu0));
}

TEST_F(budget, rate_exactly_at_the_budget_turns_on)
{
	ASSERT_EQ(0, set_budget(1000));
	load_at(_metadata, self->cpu0, 1000);
	EXPECT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(1000, info_of(_metadata, self->cpu0).budget_used);
}

TEST_F(budget, setstate_off_and_unloaded_on_are_not_refused)
{
	ASSERT_EQ(0, set_budget(0));
	/* no table: ON is a no-op (prf(7)), not a refusal */
	EXPECT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(0, prf_status(self->cpu0));
	load_at(_metadata, self->cpu0, 100);
	EXPECT_EQ(0, prf_off(self->cpu0));
}

TEST_F(budget, already_on_is_not_charged_twice)
{
	ASSERT_EQ(0, set_budget(1000));
	load_at(_metadata, self->cpu0, 1000);
	ASSERT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(1000, info_of(_metadata, self->cpu0).budget_used);
}

/* ---- what fits ----------------------------------------------------------- */

TEST_F(budget, instances_within_the_budget_all_turn_on)
{
	struct prf_info info;

	ASSERT_EQ(0, set_budget(3000));
	load_at(_metadata, self->fd, 1000);
	load_at(_metadata, self->cpu0, 1000);
	ASSERT_LE(0, clone_at(_metadata, &self->clone[0], 0, 600));
	ASSERT_LE(0, clone_at(_metadata, &self->clone[1], -1, 400));
	EXPECT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(0, prf_on(self->clone[0]));
	EXPECT_EQ(0, prf_on(self->clone[1]));
	info = info_of(_metadata, self->cpu0);
	EXPECT_EQ(3000, info.budget_used);
	/* CPU 0 is full: one more sample a second is one too many */
	ASSERT_LE(0, clone_at(_metadata, &self->clone[2], 0, 1));
	EXPECT_EQ(-ENOSPC, prf_on(self->clone[2]));
}

TEST_F(budget, each_cpu_has_its_own_budget)
{
	NEED_CPU1();
	ASSERT_EQ(0, set_budget(1000));
	load_at(_metadata, self->cpu0, 1000);
	load_at(_metadata, self->cpu1, 1000);
	EXPECT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(0, prf_on(self->cpu1));
	/* every CPU /dev/prf samples is full now */
	load_at(_metadata, self->fd, PRF_HZ_MIN);
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
	EXPECT_EQ(1000, info_of(_metadata, self->fd).budget_used);
	/* room on CPU 1 only: a private instance there fits, one on 0 not */
	ASSERT_EQ(0, prf_off(self->cpu1));
	ASSERT_LE(0, clone_at(_metadata, &self->clone[0], 1, 1000));
	ASSERT_LE(0, clone_at(_metadata, &self->clone[1], 0, 1));
	EXPECT_EQ(0, prf_on(self->clone[0]));
	EXPECT_EQ(-ENOSPC, prf_on(self->clone[1]));
}

/* ---- the charge given back ----------------------------------------------- */

TEST_F(budget, off_gives_the_charge_back)
{
	ASSERT_EQ(0, set_budget(1000));
	load_at(_metadata, self->cpu0, 1000);
	load_at(_metadata, self->fd, 1000);
	ASSERT_EQ(0, prf_on(self->cpu0));
	ASSERT_EQ(-ENOSPC, prf_on(self->fd));
	ASSERT_EQ(0, prf_off(self->cpu0));
	EXPECT_EQ(0, info_of(_metadata, self->fd).budget_used);
	EXPECT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(self->fd));
}

TEST_F(budget, closing_a_private_instance_gives_its_charge_back)
{
	ASSERT_EQ(0, set_budget(1000));
	ASSERT_LE(0, clone_at(_metadata, &self->clone[0], 0, 1000));
	ASSERT_EQ(0, prf_on(self->clone[0]));
	load_at(_metadata, self->cpu0, 1000);
	ASSERT_EQ(-ENOSPC, prf_on(self->cpu0));
	close(self->clone[0]);	/* ON: released OFF */
	self->clone[0] = -1;
	EXPECT_EQ(0, prf_on(self->cpu0));
}

TEST_F(budget, many_on_off_cycles_leak_nothing)
{
	int i;

	ASSERT_EQ(0, set_budget(1000));
	load_at(_metadata, self->cpu0, 1000);
	load_at(_metadata, self->fd, 1000);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, prf_on(self->cpu0));
		ASSERT_EQ(-ENOSPC, prf_on(self->fd));
		ASSERT_EQ(0, prf_off(self->cpu0));
		ASSERT_EQ(0, prf_on(self->fd));
		ASSERT_EQ(0, prf_off(self->fd));
	}
	EXPECT_EQ(0, info_of(_metadata, self->fd).budget_used);
}

/* ---- the parameter --------------------------------------------------------- */

TEST_F(budget, a_new_value_applies_at_the_next_on)
{
	ASSERT_EQ(0, set_budget(40000));
	load_at(_metadata, self->cpu0, 10000);
	load_at(_metadata, self->fd, 100);
	ASSERT_EQ(0, prf_on(self->cpu0));
	/* lowered below what is ON: that stays ON, the next ON is refused */
	ASSERT_EQ(0, set_budget(5000));
	EXPECT_EQ(5000, get_budget());
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(self->cpu0));
	EXPECT_EQ(10000, info_of(_metadata, self->cpu0).budget_used);
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
	/* raised again: it fits */
	ASSERT_EQ(0, set_budget(10100));
	EXPECT_EQ(0, prf_on(self->fd));
}

TEST_F(budget, parameter_is_root_writable)
{
	char path[] = BUDGET_PARAM;
	struct stat st;

	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0644, st.st_mode & 0777);
	EXPECT_EQ(0, st.st_uid);
}

/* ---- the ways to turn ON --------------------------------------------------- */

TEST_F(budget, sysfs_start_past_the_budget_is_enospc)
{
	ASSERT_EQ(0, set_budget(500));
	load_at(_metadata, self->cpu0, 1000);
	EXPECT_EQ(-ENOSPC, prf_sysfs_write(0, "control", "start"));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->cpu0));
}

TEST_F(budget, sysfs_startclr_refused_clears_nothing)
{
	struct prf_info a, b;
	char buf[32];

	ASSERT_EQ(0, set_budget(1000));
	load_at(_metadata, self->cpu0, 1000);
	ASSERT_EQ(0, prf_on(self->cpu0));
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(self->cpu0));
	a = info_of(_metadata, self->cpu0);
	ASSERT_LT(0, a.ticks_sampled);
	ASSERT_LE(0, clone_at(_metadata, &self->clone[0], 0, 1));
	ASSERT_EQ(0, prf_on(self->clone[0]));
	EXPECT_EQ(-ENOSPC, prf_sysfs_write(0, "control", "startclr"));
	b = info_of(_metadata, self->cpu0);
	EXPECT_EQ(a.ticks_sampled, b.ticks_sampled);
	EXPECT_EQ(a.ticks_total, b.ticks_total);
	EXPECT_EQ(a.on_ns, b.on_ns);
	ASSERT_LT(0, prf_sysfs_read(0, "control", buf, sizeof(buf)));
	EXPECT_STREQ("off\n", buf);
	/* with room, startclr clears and starts */
	close(self->clone[0]);
	self->clone[0] = -1;
	EXPECT_EQ(0, prf_sysfs_write(0, "control", "startclr"));
	b = info_of(_metadata, self->cpu0);
	EXPECT_GT(a.ticks_sampled, b.ticks_sampled);
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(self->cpu0));
}

/*
 * @fd in @mode, loaded and OFF; false when the kernel lacks the mode (the
 * caller skips).
 */
static bool load_in_mode(struct __test_metadata *_metadata, int fd,
			 __u32 mode)
{
	load_at(_metadata, fd, PRF_HZ_MAX);
	return !ioctl(fd, PRF_SETMODE, &mode);
}

static __u32 mode_of(int fd)
{
	__u32 mode = ~0U;

	return ioctl(fd, PRF_GETMODE, &mode) ? ~0U : mode;
}

#define NEED_MODE(fd, mode)						\
	do {								\
		if (!load_in_mode(_metadata, (fd), (mode)))		\
			SKIP(return, "PRF_SETMODE %u: %s", (mode),	\
			     strerror(errno));				\
	} while (0)

/* ---- the event modes ------------------------------------------------------ */

TEST_F(budget, event_modes_charge_their_fixed_rate_to_every_cpu)
{
	static const struct { __u32 mode, charge; } m[] = {
		{ PRF_MODE_ALLOC_CALLS, PRF_CHARGE_ALLOC },
		{ PRF_MODE_ALLOC_BYTES, PRF_CHARGE_ALLOC },
		{ PRF_MODE_CALLS, PRF_CHARGE_CALLS },
		{ PRF_MODE_OFFCPU, PRF_CHARGE_OFFCPU },
	};
	unsigned int i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		NEED_MODE(self->cpu0, m[i].mode);
		ASSERT_EQ(0, prf_on(self->cpu0)) TH_LOG("mode %u", m[i].mode);
		EXPECT_EQ(m[i].charge, info_of(_metadata, self->cpu0).budget_used);
		/* /dev/prf0's probes run on every CPU: CPU 1 pays too */
		if (self->cpu1 >= 0)
			EXPECT_EQ(m[i].charge,
				  info_of(_metadata, self->cpu1).budget_used);
		EXPECT_EQ(0, prf_off(self->cpu0));
		EXPECT_EQ(0, info_of(_metadata, self->cpu0).budget_used);
	}
}

TEST_F(budget, event_mode_past_the_budget_is_enospc_and_changes_nothing)
{
	NEED_MODE(self->cpu0, PRF_MODE_ALLOC_CALLS);
	ASSERT_EQ(0, set_budget(PRF_CHARGE_ALLOC - 1));
	EXPECT_EQ(-ENOSPC, prf_on(self->cpu0));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->cpu0));
	EXPECT_EQ(PRF_MODE_ALLOC_CALLS, mode_of(self->cpu0));
	EXPECT_EQ(0, info_of(_metadata, self->cpu0).budget_used);
	EXPECT_EQ(PRF_CHARGE_ALLOC - 1,
		  info_of(_metadata, self->cpu0).sample_budget);
	/* exactly the charge: ON */
	ASSERT_EQ(0, set_budget(PRF_CHARGE_ALLOC));
	EXPECT_EQ(0, prf_on(self->cpu0));
	EXPECT_EQ(PRF_STATUS_LOADED | PRF_STATUS_ON, prf_status(self->cpu0));
}

TEST_F(budget, event_modes_and_the_time_mode_share_the_budget)
{
	const __u32 half = PRF_CHARGE_OFFCPU / 2;

	NEED_MODE(self->fd, PRF_MODE_OFFCPU);
	NEED_MODE(self->cpu0, PRF_MODE_CALLS);
	ASSERT_EQ(0, set_budget(PRF_CHARGE_OFFCPU + half));
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(PRF_CHARGE_OFFCPU, info_of(_metadata, self->fd).budget_used);
	/* a second event mode does not fit beside it */
	EXPECT_EQ(-ENOSPC, prf_on(self->cpu0));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->cpu0));
	EXPECT_EQ(PRF_MODE_CALLS, mode_of(self->cpu0));
	EXPECT_EQ(PRF_CHARGE_OFFCPU, info_of(_metadata, self->cpu0).budget_used);
	/* a time-mode instance within what is left does */
	ASSERT_LE(0, clone_at(_metadata, &self->clone[0], 0, half));
	EXPECT_EQ(0, prf_on(self->clone[0]));
	EXPECT_EQ(PRF_CHARGE_OFFCPU + half,
		  info_of(_metadata, self->clone[0]).budget_used);
	/* OFF gives the mode's charge back */
	EXPECT_EQ(0, prf_off(self->fd));
	EXPECT_EQ(half, info_of(_metadata, self->clone[0]).budget_used);
	EXPECT_EQ(0, prf_on(self->cpu0));	/* now it fits, exactly */
	EXPECT_EQ(PRF_CHARGE_CALLS + half,
		  info_of(_metadata, self->clone[0]).budget_used);
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(PRF_MODE_OFFCPU, mode_of(self->fd));
}

/*
 * The event modes' charge is nominal, so that many fit: the default budget
 * (40000) takes forty event-mode instances at once, not one more.
 */
TEST_F(budget, the_default_budget_takes_forty_event_mode_instances)
{
	int fds[41], i, n;

	ASSERT_EQ(40000, 40 * PRF_CHARGE_ALLOC);
	ASSERT_EQ(0, set_budget(40000));
	for (n = 0; n < 41; n++) {
		fds[n] = prf_open_clone();
		if (fds[n] < 0)
			break;
		if (!load_in_mode(_metadata, fds[n], PRF_MODE_ALLOC_CALLS)) {
			close(fds[n]);
			break;
		}
	}
	if (n < 41) {
		for (i = 0; i < n; i++)
			close(fds[i]);
		SKIP(return, "41 instances in alloc-calls: %s", strerror(errno));
	}
	for (i = 0; i < 40; i++)
		EXPECT_EQ(0, prf_on(fds[i])) TH_LOG("instance %d", i);
	EXPECT_EQ(40000, info_of(_metadata, fds[0]).budget_used);
	EXPECT_EQ(-ENOSPC, prf_on(fds[40]));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(fds[40]));
	EXPECT_EQ(PRF_MODE_ALLOC_CALLS, mode_of(fds[40]));
	/* one OFF makes room for it */
	EXPECT_EQ(0, prf_off(fds[0]));
	EXPECT_EQ(0, prf_on(fds[40]));
	for (i = 0; i < 41; i++)
		close(fds[i]);
}

TEST_F(budget, closing_a_private_instance_in_an_event_mode_gives_it_back)
{
	ASSERT_EQ(0, set_budget(PRF_CHARGE_OFFCPU));
	self->clone[0] = prf_open_clone();
	ASSERT_LE(0, self->clone[0]);
	NEED_MODE(self->clone[0], PRF_MODE_OFFCPU);
	ASSERT_EQ(0, prf_on(self->clone[0]));
	NEED_MODE(self->cpu0, PRF_MODE_OFFCPU);
	EXPECT_EQ(-ENOSPC, prf_on(self->cpu0));
	close(self->clone[0]);
	self->clone[0] = -1;
	EXPECT_EQ(0, info_of(_metadata, self->cpu0).budget_used);
	EXPECT_EQ(0, prf_on(self->cpu0));
}

/* ---- CPUs offline at ON ---------------------------------------------------- */

TEST_F(budget, an_offline_cpu_is_charged_at_on)
{
	NEED_CPU1();
	if (access(CPU1_ONLINE, W_OK))
		SKIP(return, "no CPU hotplug");
	ASSERT_EQ(0, set_budget(1000));
	ASSERT_EQ(0, prf_write_file(CPU1_ONLINE, "0"));
	load_at(_metadata, self->cpu1, 1000);
	EXPECT_EQ(0, prf_on(self->cpu1));
	/* CPU 1 will be sampled when it is back: it has no room left */
	ASSERT_LE(0, clone_at(_metadata, &self->clone[0], 1, 1));
	EXPECT_EQ(-ENOSPC, prf_on(self->clone[0]));
	load_at(_metadata, self->fd, 1);
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
	/* back online, /dev/prf1 samples within what it was charged */
	EXPECT_EQ(0, prf_write_file(CPU1_ONLINE, "1"));
	prf_sleep(0.2);
	EXPECT_EQ(1000, info_of(_metadata, self->cpu1).budget_used);
	EXPECT_LT(0, info_of(_metadata, self->cpu1).ticks_sampled);
	EXPECT_EQ(-ENOSPC, prf_on(self->fd));
}

TEST_HARNESS_MAIN
