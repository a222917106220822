// SPDX-License-Identifier: GPL-2.0
/*
 * prf_lifetime_test - the module's life around open devices.
 *
 * prf(7): open and close behave as for an ordinary disk file, so an open
 * device pins the module: delete_module(2) without O_TRUNC then fails with
 * EWOULDBLOCK (== EAGAIN, what the kernel's try_stop_module() returns for
 * a module still referenced) and succeeds once the last fd is closed, even
 * with sampling ON.  Every test leaves prf.ko loaded again (finit_module of
 * $PRF_KO), so that later programs still find the devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "prf_fixture.h"

#define MODNAME	"prf"

static int loaded(void)
{
	return access("/sys/module/" MODNAME, F_OK) == 0;
}

static int unload(void)
{
	return syscall(SYS_delete_module, MODNAME, O_NONBLOCK) ? -errno : 0;
}

/* Wait up to 5 s for @path to (dis)appear: 0 when it did. */
static int wait_path(const char *path, int present)
{
	double end = prf_now() + 5;

	while ((access(path, F_OK) == 0) != present) {
		if (prf_now() > end)
			return -ETIMEDOUT;
		prf_sleep(0.01);
	}
	return 0;
}

static int reload_with(const char *params)
{
	const char *ko = getenv("PRF_KO");
	int fd, r = 0;

	if (loaded())
		return 0;
	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		r = -errno;
	close(fd);
	return r ? r : wait_path(PRF_DEVICE, 1);
}

static int reload(void)
{
	return reload_with("");
}

FIXTURE(lifetime) {
	double t0;		/* prf_now() at set-up */
};

FIXTURE_SETUP(lifetime)
{
	self->t0 = prf_now();
	if (!getenv("PRF_KO"))
		SKIP(return, "PRF_KO not set: cannot reload prf.ko");
	ASSERT_EQ(0, reload());
	ASSERT_EQ(0, prf_reset_all());
}

FIXTURE_TEARDOWN(lifetime)
{
	EXPECT_EQ(0, reload());
	EXPECT_EQ(0, prf_reset_all());
	prf_fixture_time(_metadata, self->t0);
}

static void load_and_on(struct __test_metadata *_metadata, int fd)
{
	__u64 *t = prf_make_table(100, 0xffffffff81000000ULL, 0x40);

	ASSERT_EQ(0, prf_load(fd, t, 100));
	ASSERT_EQ(0, prf_on(fd));
	free(t);
}

TEST_F(lifetime, unload_refused_while_all_cpus_device_open)
{
	int fd = prf_open(PRF_ALL, O_RDWR);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, unload());
	EXPECT_TRUE(loaded());
	EXPECT_EQ(0, prf_status(fd));	/* the device still works */
	close(fd);
}

TEST_F(lifetime, unload_refused_while_cpu_device_open)
{
	int fd = prf_open(0, O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EWOULDBLOCK, unload());
	EXPECT_TRUE(loaded());
	close(fd);
}

TEST_F(lifetime, unload_refused_while_sampling_with_fd_open)
{
	int fd = prf_open(PRF_ALL, O_RDWR);

	ASSERT_LE(0, fd);
	load_and_on(_metadata, fd);
	EXPECT_EQ(-EWOULDBLOCK, unload());
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(fd));
	close(fd);
}

TEST_F(lifetime, open_fd_holds_a_module_reference)
{
	char buf[32];
	int fd, before, during;

	ASSERT_LT(0, prf_read_file("/sys/module/" MODNAME "/refcnt", buf, sizeof(buf)));
	before = atoi(buf);
	fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_LT(0, prf_read_file("/sys/module/" MODNAME "/refcnt", buf, sizeof(buf)));
	during = atoi(buf);
	close(fd);
	EXPECT_LT(before, during);
}

TEST_F(lifetime, unload_succeeds_after_close)
{
	int fd = prf_open(PRF_ALL, O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(-EWOULDBLOCK, unload());
	close(fd);
	EXPECT_EQ(0, unload());
	EXPECT_FALSE(loaded());
	EXPECT_EQ(0, wait_path(PRF_DEVICE, 0));
	EXPECT_EQ(0, wait_path("/sys/class/" PRF_CLASS "/prf", 0));
	EXPECT_EQ(0, reload());
}

TEST_F(lifetime, unload_while_on_without_open_fd_succeeds)
{
	int fd = prf_open(PRF_ALL, O_RDWR), c1;

	ASSERT_LE(0, fd);
	load_and_on(_metadata, fd);
	close(fd);
	c1 = prf_open(prf_nr_possible() > 1 ? 1 : 0, O_RDWR);
	ASSERT_LE(0, c1);
	load_and_on(_metadata, c1);
	close(c1);
	prf_sleep(0.3);		/* the timers fire while nobody holds a fd */
	EXPECT_EQ(0, unload());
	EXPECT_FALSE(loaded());
	EXPECT_EQ(0, reload());
}

/*
 * The PMU source: the counters of /dev/prf and of a private instance, ON
 * with nobody holding /dev/prf, are released by the unload and the close
 * (a handler left behind would run in freed code).  Skipped without a PMU.
 */
TEST_F(lifetime, unload_while_on_with_the_pmu_source)
{
	int fd = prf_open(PRF_ALL, O_RDWR), clone;
	__u32 mask;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PRF_GETEVENTS, &mask));
	if (!(mask & (1U << PRF_EVENT_CYCLES))) {
		close(fd);
		SKIP(return, "no PMU that samples cycles here");
	}
	ASSERT_EQ(0, prf_set_source(fd, PRF_SOURCE_PMU, PRF_EVENT_CYCLES,
				    1000000));
	load_and_on(_metadata, fd);
	close(fd);
	clone = prf_open_clone();
	ASSERT_LE(0, clone);
	ASSERT_EQ(0, prf_set_source(clone, PRF_SOURCE_PMU, PRF_EVENT_CYCLES,
				    0));
	load_and_on(_metadata, clone);
	prf_sleep(0.3);		/* the counters overflow meanwhile */
	close(clone);
	prf_sleep(0.3);
	EXPECT_EQ(0, unload());
	EXPECT_FALSE(loaded());
	EXPECT_EQ(0, reload());
}

/*
 * The offcpu mode's scheduler probes: /dev/prf ON with nobody holding it,
 * and a private instance ON when closed, are unregistered by the unload
 * and the close (a probe left behind would run in freed code at the next
 * context switch).
 */
TEST_F(lifetime, unload_while_on_in_the_offcpu_mode)
{
	struct prf_text_range r = { 0x1000, 0x2000 };
	__u32 mode = PRF_MODE_OFFCPU;
	int fd = prf_open(PRF_ALL, O_RDWR), clone;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PRF_SETSCHEDTEXT, &r));
	ASSERT_EQ(0, ioctl(fd, PRF_SETMODE, &mode));
	load_and_on(_metadata, fd);
	close(fd);
	clone = prf_open_clone();
	ASSERT_LE(0, clone);
	ASSERT_EQ(0, ioctl(clone, PRF_SETMODE, &mode));
	load_and_on(_metadata, clone);
	prf_sleep(0.3);		/* switches meanwhile, on every CPU */
	close(clone);
	prf_sleep(0.3);
	EXPECT_EQ(0, unload());
	EXPECT_FALSE(loaded());
	EXPECT_EQ(0, reload());
	prf_sleep(0.3);
}

/*
 * User objects: notes of a spinning process pending in the rings (each
 * holds its address space) and the worker that resolves them, on /dev/prf
 * ON with nobody holding it and on a private instance closed while ON:
 * the unload and the close cancel the worker and drop every reference (a
 * worker left behind would run in freed code; a reference left would leak
 * the address space, which kmemleak reports on the debug kernel).
 */
TEST_F(lifetime, unload_while_on_with_user_objects)
{
	struct prf_uobj_conf conf = {
		.capacity = 1024, .files = 16,
		.flags = PRF_UOBJ_CHAINS, .depth = 8,	/* chains too */
	};
	pid_t spin = prf_start(0, PRF_WORK_SPIN);	/* before any open */
	int fd = prf_open(PRF_ALL, O_RDWR), clone;

	ASSERT_LT(0, spin);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PRF_SETUOBJS, &conf));
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	load_and_on(_metadata, fd);
	close(fd);
	clone = prf_open_clone();
	ASSERT_LE(0, clone);
	ASSERT_EQ(0, ioctl(clone, PRF_SETUOBJS, &conf));
	ASSERT_EQ(0, prf_set_hz(clone, 1000));
	load_and_on(_metadata, clone);
	prf_sleep(0.35);	/* notes pending, and resolved */
	close(clone);
	prf_sleep(0.05);
	EXPECT_EQ(0, unload());
	prf_stop(spin);
	EXPECT_FALSE(loaded());
	EXPECT_EQ(0, reload());
}

TEST_F(lifetime, reload_gives_fresh_defaults_on_every_minor)
{
	int fd = prf_open(PRF_ALL, O_RDWR), cpu;

	ASSERT_LE(0, fd);
	load_and_on(_metadata, fd);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	ASSERT_EQ(0, prf_set_flags(fd, PRF_FLAG_JITTER));
	ASSERT_EQ(0, prf_on(fd));
	close(fd);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload());

	for (cpu = PRF_ALL; cpu < prf_nr_possible(); cpu++) {
		struct prf_info info;
		__u32 hz = 0, flags = ~0U;

		fd = prf_open(cpu, O_RDWR);
		ASSERT_LE(0, fd) TH_LOG("cpu %d", cpu);
		EXPECT_EQ(0, prf_status(fd)) TH_LOG("cpu %d", cpu);
		EXPECT_EQ(0, prf_size(fd)) TH_LOG("cpu %d", cpu);
		ASSERT_EQ(0, prf_get_hz(fd, &hz));
		EXPECT_EQ(PRF_HZ_DEFAULT, hz) TH_LOG("cpu %d", cpu);
		ASSERT_EQ(0, prf_get_flags(fd, &flags));
		EXPECT_EQ(0, flags) TH_LOG("cpu %d", cpu);
		ASSERT_EQ(0, prf_info(fd, &info));
		EXPECT_EQ(0, info.naddrs);
		EXPECT_EQ(0, info.ticks_total);
		close(fd);
	}
}

TEST_F_TIMEOUT(lifetime, unload_reload_cycles_while_sampling, 120)
{
	int i;

	for (i = 0; i < 5; i++) {
		int fd = prf_open(PRF_ALL, O_RDWR);

		ASSERT_LE(0, fd) TH_LOG("cycle %d", i);
		load_and_on(_metadata, fd);
		prf_sleep(0.1);
		close(fd);
		ASSERT_EQ(0, unload()) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, reload()) TH_LOG("cycle %d", i);
	}
}

TEST_F(lifetime, fd_stays_usable_until_closed_across_failed_unload)
{
	int fd = prf_open(PRF_ALL, O_RDWR);
	struct prf_snap s;

	ASSERT_LE(0, fd);
	load_and_on(_metadata, fd);
	ASSERT_EQ(-EWOULDBLOCK, unload());
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_snap(fd, &s));
	EXPECT_EQ(100, s.n);
	EXPECT_LT(0, prf_snap_total(&s));
	prf_snap_free(&s);
	close(fd);
}

#define MAXPARAM "/sys/module/" MODNAME "/parameters/max_addrs"

TEST_F(lifetime, max_parameter_is_getmax)
{
	char buf[32];
	int fd;

	if (prf_read_file(MAXPARAM, buf, sizeof(buf)) < 0)
		SKIP(return, "no %s", MAXPARAM);
	fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(atoi(buf), prf_max(fd));
	EXPECT_LE(1048576, atoi(buf));
	close(fd);
}

TEST_F(lifetime, max_parameter_sets_the_limit)
{
	__u64 *t = prf_make_table(5001, 0xffffffff81000000ULL, 0x40);
	int fd;

	if (access(MAXPARAM, F_OK))
		SKIP(return, "no %s", MAXPARAM);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload_with("max_addrs=5000"));
	fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(5000, prf_max(fd));
	EXPECT_EQ(-ENOSPC, prf_load(fd, t, 5001));
	EXPECT_EQ(0, prf_status(fd));
	EXPECT_EQ(0, prf_load(fd, t, 5000));
	EXPECT_EQ(5000, prf_size(fd));
	close(fd);
	ASSERT_EQ(0, prf_reset_all());
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload());
	free(t);
}

/* max_private=2: two private instances at once, the third open ENOSPC. */
TEST_F(lifetime, max_private_parameter_bounds_the_clones)
{
	int a, b, c;

	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload_with("max_private=2"));
	a = prf_open_clone();
	b = prf_open_clone();
	c = prf_open_clone();
	EXPECT_LE(0, a);
	EXPECT_LE(0, b);
	EXPECT_EQ(-ENOSPC, c);
	if (b >= 0)
		close(b);
	c = prf_open_clone();
	EXPECT_LE(0, c);
	if (a >= 0)
		close(a);
	if (c >= 0)
		close(c);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload());
}

/* A private instance pins the module like any open file; ON, then closed. */
TEST_F(lifetime, open_clone_refuses_unload_until_closed_while_on)
{
	int fd = prf_open_clone();

	ASSERT_LE(0, fd);
	load_and_on(_metadata, fd);
	EXPECT_EQ(-EWOULDBLOCK, unload());
	close(fd);
	EXPECT_EQ(0, unload());
	EXPECT_EQ(0, reload());
}

/*
 * The largest max_addrs: a table is one write(2), at most MAX_RW_COUNT
 * (INT_MAX rounded down to a page) bytes, and its 16-byte slots are one
 * kvmalloc(), at most INT_MAX bytes.
 */
static unsigned long max_addrs_limit(void)
{
	unsigned long rw = (unsigned long)INT_MAX & ~(sysconf(_SC_PAGESIZE) - 1);
	unsigned long slots = INT_MAX / 16;

	return rw / 8 < slots ? rw / 8 : slots;
}

/* write(2) of @n addresses from an inaccessible buffer: -errno or bytes */
static long write_unreadable(int fd, unsigned long n)
{
	size_t len = n * 8;
	void *p = mmap(NULL, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ssize_t r;

	if (p == MAP_FAILED)
		return -ENOMEM;
	r = write(fd, p, len);
	r = r < 0 ? -errno : r;
	munmap(p, len);
	return r;
}

/*
 * Above the limit the module refuses to load (with a message); at the limit
 * it loads, and a write of one address more is ENOSPC before anything is
 * allocated.  A module that took a larger max_addrs would try kvmalloc() of
 * more than INT_MAX bytes for that write: a kernel warning.
 */
TEST_F_TIMEOUT(lifetime, max_parameter_bound, 120)
{
	unsigned long lim = max_addrs_limit();
	unsigned long above[] = { lim + 1, INT_MAX / 4 };
	char param[64];
	unsigned int i;
	int fd, r;

	if (access(MAXPARAM, F_OK))
		SKIP(return, "no %s", MAXPARAM);
	ASSERT_EQ(0, unload());
	for (i = 0; i < 2; i++) {
		snprintf(param, sizeof(param), "max_addrs=%lu", above[i]);
		r = reload_with(param);
		EXPECT_EQ(-EINVAL, r) TH_LOG("%s", param);
		EXPECT_FALSE(loaded());
		if (!r) {
			/* the old behaviour: a table past kvmalloc's limit */
			fd = prf_open(PRF_ALL, O_RDWR);
			ASSERT_LE(0, fd);
			r = write_unreadable(fd, lim + 1);
			EXPECT_TRUE(r == -ENOMEM || r == -EFAULT);
			close(fd);
			ASSERT_EQ(0, unload());
		}
	}
	snprintf(param, sizeof(param), "max_addrs=%lu", lim);
	ASSERT_EQ(0, reload_with(param)) TH_LOG("%s", param);
	fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(lim, prf_max(fd));
	EXPECT_EQ(-ENOSPC, write_unreadable(fd, lim + 1));
	EXPECT_EQ(0, prf_status(fd));
	close(fd);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload());
}

TEST_HARNESS_MAIN
