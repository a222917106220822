// SPDX-License-Identifier: GPL-2.0
/*
 * prf_tasks_test - the per-process tally (uapi "Who burns the kernel"):
 * PRF_SETTASKS sizes it while OFF (EBUSY while ON, EINVAL above
 * PRF_TASKS_MAX, state unchanged on error), PRF_GETTASKS reports each
 * process's kernel and user samples, the caller's room bounds .nr, a full
 * table counts the samples it could not keep in .dropped (and
 * prf_info.tasks_dropped), and clears and loads zero it.  A process is
 * named as ps names it: by its main thread, after an exec by the new
 * program.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "prf_fixture.h"

PRF_FIXTURE(tasks);

#define BASE	0xffffffff81000000ULL
#define ROOM	256

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

static void run(struct __test_metadata *_metadata, int fd, double s)
{
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(s);
	ASSERT_EQ(0, prf_off(fd));
}

/* The entry of @pid in @t (nr entries), or NULL. */
static const struct prf_task *find(const struct prf_task *t, __u32 nr,
				   pid_t pid)
{
	__u32 i;

	for (i = 0; i < nr; i++)
		if (t[i].pid == pid)
			return &t[i];
	return NULL;
}

TEST_F(tasks, no_tally_by_default)
{
	struct prf_task t[4];
	struct prf_tasks out;

	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 4, &out));
	EXPECT_EQ(0, out.nr);
	EXPECT_EQ(0, out.capacity);
	EXPECT_EQ(0, out.dropped);
}

/* A process reading /dev/zero on CPU 0 beside idle CPUs tops the kernel. */
TEST_F(tasks, spinning_child_is_the_top_kernel_consumer)
{
	struct prf_task *t = calloc(ROOM, sizeof(*t));
	const struct prf_task *top = NULL, *me;
	struct prf_tasks out;
	struct prf_info info;
	__u64 sum = 0;
	pid_t pid;
	__u32 i;

	ASSERT_NE(NULL, t);
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 64));
	pid = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, pid);
	run(_metadata, self->fd, 0.5);
	prf_stop(pid);
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, ROOM, &out));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(64, out.capacity);
	EXPECT_EQ(0, out.dropped);
	EXPECT_EQ(0, info.tasks_dropped);
	ASSERT_LT(0, out.nr);
	for (i = 0; i < out.nr; i++) {
		EXPECT_NE(0, t[i].pid);
		EXPECT_EQ(0, t[i].pad);
		EXPECT_NE(0, t[i].kernel + t[i].user);
		EXPECT_EQ('\0', t[i].comm[sizeof(t[i].comm) - 1]);
		if (!top || t[i].kernel > top->kernel)
			top = &t[i];
	}
	ASSERT_NE(NULL, top);
	TH_LOG("top: %d %s kernel %llu user %llu (child %d)", top->pid,
	       top->comm, (unsigned long long)top->kernel,
	       (unsigned long long)top->user, pid);
	EXPECT_EQ(pid, top->pid);
	me = find(t, out.nr, pid);
	ASSERT_NE(NULL, me);
	/* every tallied sample is a non-idle one of total */
	for (i = 0; i < out.nr; i++)
		sum += t[i].kernel + t[i].user;
	EXPECT_GE(info.ticks_total - info.ticks_idle, sum);
	EXPECT_LT(0, sum);
	free(t);
}

TEST_F(tasks, full_table_counts_dropped_samples)
{
	struct prf_task t[4];
	struct prf_tasks out;
	struct prf_info info;
	pid_t a, b;

	PRF_NEED_CPU(1);
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 1));
	a = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, a);
	b = prf_start(1, PRF_WORK_ZERO);
	ASSERT_LT(0, b);
	run(_metadata, self->fd, 0.5);
	prf_stop(a);
	prf_stop(b);
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 4, &out));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	TH_LOG("nr %u dropped %llu", out.nr, (unsigned long long)out.dropped);
	EXPECT_EQ(1, out.capacity);
	EXPECT_EQ(1, out.nr);
	EXPECT_LT(0, out.dropped);
	EXPECT_EQ(out.dropped, info.tasks_dropped);
}

TEST_F(tasks, callers_room_bounds_nr)
{
	struct prf_task t[2];
	struct prf_tasks out;
	pid_t a;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 64));
	a = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, a);
	run(_metadata, self->fd, 0.3);
	prf_stop(a);
	memset(t, 0x5a, sizeof(t));
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 1, &out));
	EXPECT_EQ(1, out.nr);
	EXPECT_NE(0x5a5a5a5a, t[0].pid);
	EXPECT_EQ(0x5a5a5a5a, t[1].pid);	/* not written past the room */
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 0, &out));
	EXPECT_EQ(0, out.nr);
	EXPECT_EQ(64, out.capacity);
}

TEST_F(tasks, capacity_above_max_is_einval_and_changes_nothing)
{
	struct prf_tasks out;

	ASSERT_EQ(0, prf_set_tasks(self->fd, 8));
	EXPECT_EQ(-EINVAL, prf_set_tasks(self->fd, PRF_TASKS_MAX + 1));
	EXPECT_EQ(-EINVAL, prf_set_tasks(self->fd, ~0U));
	ASSERT_EQ(0, prf_get_tasks(self->fd, NULL, 0, &out));
	EXPECT_EQ(8, out.capacity);
	EXPECT_EQ(0, prf_set_tasks(self->fd, PRF_TASKS_MAX));
	ASSERT_EQ(0, prf_get_tasks(self->fd, NULL, 0, &out));
	EXPECT_EQ(PRF_TASKS_MAX, out.capacity);
}

TEST_F(tasks, settasks_while_on_is_ebusy)
{
	struct prf_tasks out;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 8));
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(-EBUSY, prf_set_tasks(self->fd, 16));
	EXPECT_EQ(-EBUSY, prf_set_tasks(self->fd, 0));
	ASSERT_EQ(0, prf_get_tasks(self->fd, NULL, 0, &out));
	EXPECT_EQ(8, out.capacity);
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_off(self->fd));
}

TEST_F(tasks, clear_and_load_zero_the_tally)
{
	struct prf_task t[8];
	struct prf_tasks out;
	pid_t a;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 8));
	a = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, a);
	run(_metadata, self->fd, 0.2);
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 8, &out));
	ASSERT_LT(0, out.nr);
	ASSERT_EQ(0, prf_clear(self->fd));
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 8, &out));
	EXPECT_EQ(0, out.nr);
	EXPECT_EQ(0, out.dropped);
	EXPECT_EQ(8, out.capacity);

	run(_metadata, self->fd, 0.2);
	prf_stop(a);
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 8, &out));
	ASSERT_LT(0, out.nr);
	load(_metadata, self->fd, 6);
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 8, &out));
	EXPECT_EQ(0, out.nr);
	EXPECT_EQ(8, out.capacity);
}

TEST_F(tasks, filtered_out_samples_are_not_tallied)
{
	struct prf_task t[16];
	struct prf_tasks out;
	pid_t a, b;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 16));
	a = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, a);
	b = prf_start(self->ncpus > 1 ? 1 : 0, PRF_WORK_ZERO);
	ASSERT_LT(0, b);
	ASSERT_EQ(0, prf_set_filter(self->fd, PRF_FILTER_TGID, a));
	run(_metadata, self->fd, 0.3);
	prf_stop(a);
	prf_stop(b);
	ASSERT_EQ(0, prf_get_tasks(self->fd, t, 16, &out));
	EXPECT_EQ(1, out.nr);
	EXPECT_EQ(a, t[0].pid);
	EXPECT_EQ(NULL, find(t, out.nr, b));
}

TEST_F(tasks, bad_array_is_efault)
{
	struct prf_tasks out;
	pid_t a;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_tasks(self->fd, 8));
	a = prf_start(0, PRF_WORK_ZERO);
	ASSERT_LT(0, a);
	run(_metadata, self->fd, 0.2);
	prf_stop(a);
	EXPECT_EQ(-EFAULT, prf_get_tasks(self->fd, (void *)8, 8, &out));
	EXPECT_EQ(-1, ioctl(self->fd, PRF_GETTASKS, (void *)8));
	EXPECT_EQ(EFAULT, errno);
}

/* A user-mode loop for @s seconds. */
static void spin_for(double s)
{
	double end = prf_now() + s;

	while (prf_now() < end)
		;
}

/* A table, the tally and 1 kHz on @fd (OFF). */
static void tally_set_up(struct __test_metadata *_metadata, int fd)
{
	load(_metadata, fd, 5);
	ASSERT_EQ(0, prf_set_tasks(fd, 64));
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
}

/* @pid killed and reaped, @fd OFF, and @pid's name in the tally into @comm. */
static void name_of(struct __test_metadata *_metadata, int fd, pid_t pid,
		    char *comm)
{
	struct prf_task *t = calloc(ROOM, sizeof(*t));
	const struct prf_task *me;
	struct prf_tasks out;

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_get_tasks(fd, t, ROOM, &out));
	me = find(t, out.nr, pid);
	ASSERT_NE(NULL, me) TH_LOG("pid %d not among %u", pid, out.nr);
	EXPECT_LT(0, me->user + me->kernel);
	memcpy(comm, me->comm, sizeof(me->comm));
	free(t);
}

/*
 * Sampled as "prf_before", then exec()s sh's busy loop: named "sh" (the
 * name its first samples gave was kept before).
 */
TEST_F(tasks, a_process_that_execs_is_named_by_its_new_program)
{
	char comm[16];
	pid_t pid;

	tally_set_up(_metadata, self->fd);
	ASSERT_EQ(0, prf_on(self->fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		prctl(PR_SET_NAME, "prf_before");
		spin_for(0.3);
		execl("/bin/sh", "sh", "-c", "while :; do :; done",
		      (char *)NULL);
		_exit(127);
	}
	prf_sleep(0.9);
	name_of(_metadata, self->fd, pid, comm);
	EXPECT_STREQ("sh", comm);
}

static void *worker(void *arg)
{
	prctl(PR_SET_NAME, "prf_worker");
	for (;;)
		spin_for(1);
	return arg;
}

/*
 * A process of two busy threads, the other named "prf_worker": named
 * "prf_main", its main thread's name, whichever thread was sampled first.
 */
TEST_F(tasks, a_process_is_named_by_its_main_thread)
{
	char comm[16];
	pid_t pid;

	tally_set_up(_metadata, self->fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pthread_t th;

		prctl(PR_SET_NAME, "prf_main");
		if (pthread_create(&th, NULL, worker, NULL))
			_exit(1);
		for (;;)
			spin_for(1);
	}
	prf_sleep(0.2);		/* the worker named, both spinning */
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.6);
	name_of(_metadata, self->fd, pid, comm);
	EXPECT_STREQ("prf_main", comm);
}

TEST_HARNESS_MAIN
