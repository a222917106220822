// SPDX-License-Identifier: GPL-2.0
/*
 * prf_nomem_test - memory the caller sizes (uapi: "Memory a caller sizes").
 *
 * A table written by write(2), the per-process tally (PRF_SETTASKS), the
 * stack table (PRF_SETSTACKS) and PRF_GETSITES' copy are charged to the
 * caller's memory cgroup: asked for from a cgroup v2 whose memory.max they
 * do not fit in, they fail with ENOMEM, quietly (no allocation-failure
 * warning, no OOM killer: nothing new in the kernel log), and change
 * nothing.  Each request is made by a child moved into such a cgroup after
 * it has touched every page of its own that the call needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "prf_fixture.h"

#define BASE		0xffffffff81000000ULL
#define MEM_MAX		"2M"	/* a cgroup none of the requests fits in */

FIXTURE(nomem) {
	int fd;			/* /dev/prf */
	char root[256];		/* the cgroup v2 mount */
	char cg[400];		/* ours, memory.max MEM_MAX */
	int kmsg;		/* /dev/kmsg, at its end at set-up */
	double t0;
};

FIXTURE_SETUP(nomem)
{
	char path[512], buf[256];
	int r;

	self->t0 = prf_now();
	self->fd = self->kmsg = -1;
	self->cg[0] = '\0';
	ASSERT_EQ(0, prf_reset_all());
	r = prf_cgroup2_root(self->root, sizeof(self->root));
	if (r)
		SKIP(return, "no cgroup v2: %s", strerror(-r));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", self->root);
	if (prf_read_file(path, buf, sizeof(buf)) < 0 || !strstr(buf, "memory"))
		prf_write_file(path, "+memory");
	snprintf(self->cg, sizeof(self->cg), "%s/prf-nomem-%d", self->root,
		 getpid());
	if (mkdir(self->cg, 0755)) {
		self->cg[0] = '\0';
		SKIP(return, "mkdir under %s: %s", self->root, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/memory.max", self->cg);
	if (prf_write_file(path, MEM_MAX))
		SKIP(return, "no memory controller in %s", self->root);
	self->fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, self->fd);
	self->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, self->kmsg);
	ASSERT_LE(0, lseek(self->kmsg, 0, SEEK_END));
}

FIXTURE_TEARDOWN(nomem)
{
	double end = prf_now() + 2;

	EXPECT_EQ(0, prf_reset_all());
	if (self->cg[0])
		while (rmdir(self->cg) && errno == EBUSY && prf_now() < end)
			prf_sleep(0.01);
	if (self->fd >= 0)
		close(self->fd);
	if (self->kmsg >= 0)
		close(self->kmsg);
	prf_fixture_time(_metadata, self->t0);
}

/*
 * The kernel log since set-up: no allocation failure report, no OOM
 * killer, no warning.  The first such record, or "".
 */
static const char *kernel_said(int kmsg)
{
	static const char *const bad[] = {
		"page allocation failure", "vmalloc error", "oom-kill",
		"invoked oom-killer", "Out of memory", "WARNING", "Call Trace",
	};
	static char rec[1024];
	ssize_t n;
	size_t i;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			return "";
		rec[n] = '\0';
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(rec, bad[i]))
				return rec;
	}
}

enum req { REQ_WRITE, REQ_TASKS, REQ_STACKS, REQ_SITES };

/*
 * Writes 32 KiB of stack below the caller, so that the frames of the
 * request and of its error path are the child's own pages before it moves.
 */
static __attribute__((noinline)) void touch_stack(void)
{
	volatile char buf[32768];
	size_t i;

	for (i = 0; i < sizeof(buf); i += 512)
		buf[i] = 1;
}

/*
 * In a child moved into @cg: the request, on @fd (its buffers made and
 * touched before moving).  Returns 0 or the errno; 255 if the child could
 * not be set up, 254 if it died.
 */
static int request_in(const char *cg, int fd, enum req what, size_t n)
{
	char procs[512];
	int status, r = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 255;
	if (pid == 0) {
		struct prf_stack_conf sc = { .depth = PRF_STACK_DEPTH_MAX,
					     .capacity = PRF_STACKS_MAX };
		__u32 cap = PRF_TASKS_MAX;
		struct prf_sites ss = { .nr = (__u32)n };
		__u64 *t = NULL;
		size_t i;

		if (what == REQ_WRITE) {
			t = malloc(n * sizeof(*t));
			if (!t)
				_exit(255);
			for (i = 0; i < n; i++)
				t[i] = BASE + 16 * i;
		} else if (what == REQ_SITES) {
			t = malloc(n * sizeof(struct prf_site));
			if (!t)
				_exit(255);
			/* not 0: malloc() and memset(0) may touch nothing */
			memset(t, 0xa5, n * sizeof(struct prf_site));
			ss.sites = (__u64)(uintptr_t)t;
		}
		/*
		 * A page the child first writes after the move (a
		 * copy-on-write or a new anonymous page) is charged to the
		 * small cgroup with GFP_KERNEL, which may invoke the OOM
		 * killer where the cgroup has not got the failed request's
		 * pages back yet (a make check on 7.3 under load saw it
		 * once): the OOM would be the test's, not prf's.  So errno's
		 * page (written when the request fails) and the stack are
		 * the child's own before it moves.
		 */
		errno = 0;
		touch_stack();
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
		if (prf_write_file(procs, "0"))
			_exit(255);
		switch (what) {
		case REQ_WRITE:
			r = write(fd, t, n * sizeof(*t)) < 0 ? errno : 0;
			break;
		case REQ_TASKS:
			r = ioctl(fd, PRF_SETTASKS, &cap) ? errno : 0;
			break;
		case REQ_STACKS:
			r = ioctl(fd, PRF_SETSTACKS, &sc) ? errno : 0;
			break;
		case REQ_SITES:
			r = ioctl(fd, PRF_GETSITES, &ss) ? errno : 0;
			break;
		}
		_exit(r >= 0 && r < 250 ? r : 253);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 254;
	return WEXITSTATUS(status);
}

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 16);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

TEST_F(nomem, huge_table_is_enomem_and_changes_nothing)
{
	int max = prf_max(self->fd);
	struct prf_snap s;

	ASSERT_LT(1 << 18, max);	/* 4 MiB of addresses at least */
	load(_metadata, self->fd, 5);
	EXPECT_EQ(ENOMEM, request_in(self->cg, self->fd, REQ_WRITE, max));
	EXPECT_STREQ("", kernel_said(self->kmsg));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(5, s.n);
	EXPECT_EQ(BASE + 16 * 4, s.addrs[4]);
	prf_snap_free(&s);
}

TEST_F(nomem, huge_tally_is_enomem_and_changes_nothing)
{
	struct prf_tasks tk;

	ASSERT_EQ(0, prf_set_tasks(self->fd, 16));
	EXPECT_EQ(ENOMEM, request_in(self->cg, self->fd, REQ_TASKS, 0));
	EXPECT_STREQ("", kernel_said(self->kmsg));
	ASSERT_EQ(0, prf_get_tasks(self->fd, NULL, 0, &tk));
	EXPECT_EQ(16, tk.capacity);
}

TEST_F(nomem, huge_stack_table_is_enomem_and_changes_nothing)
{
	struct prf_stack_conf sc = { .depth = 4, .capacity = 32 };
	struct prf_stacks st = { 0 };

	ASSERT_EQ(0, ioctl(self->fd, PRF_SETSTACKS, &sc));
	EXPECT_EQ(ENOMEM, request_in(self->cg, self->fd, REQ_STACKS, 0));
	EXPECT_STREQ("", kernel_said(self->kmsg));
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETSTACKS, &st));
	EXPECT_EQ(4, st.depth);
	EXPECT_EQ(32, st.capacity);
}

/* 40 bytes an entry, for every counter of the table: 40 MiB here. */
TEST_F_TIMEOUT(nomem, huge_getsites_copy_is_enomem, 120)
{
	size_t n = 1 << 20;
	__u32 mode = PRF_MODE_ALLOC_CALLS;

	if ((size_t)prf_max(self->fd) < n)
		SKIP(return, "max_addrs below %zu", n);
	load(_metadata, self->fd, n);
	if (ioctl(self->fd, PRF_SETMODE, &mode))
		SKIP(return, "no alloc modes: %s", strerror(errno));
	/* outside the cgroup the same request works */
	EXPECT_EQ(0, request_in(self->root, self->fd, REQ_SITES, n + 2));
	EXPECT_EQ(ENOMEM, request_in(self->cg, self->fd, REQ_SITES, n + 2));
	EXPECT_STREQ("", kernel_said(self->kmsg));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ((int)n, prf_size(self->fd));
}

TEST_HARNESS_MAIN
