// SPDX-License-Identifier: GPL-2.0
/*
 * prf_read_test - reading addresses and counters with read(2).
 *
 * prf(7): N addresses followed by N + 2 counters, from the start of the
 * array whatever the file pointer, up to the end of the array or of the
 * caller's buffer; ENXIO with the buffer untouched when not loaded; reading
 * while ON works (the counters move).  uapi: returns min(count, (2N+2)*8).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "prf_fixture.h"

PRF_FIXTURE(read);

#define N	10
#define BASE	0xffffffff81000000ULL
#define STEP	0x40ULL
#define ARRAY	((2 * N + 2) * 8)	/* bytes read(2) can return */
#define FILL	0xAA

static void load(struct __test_metadata *_metadata, int fd, __u64 *t)
{
	size_t i;

	for (i = 0; i < N; i++)
		t[i] = BASE + i * STEP;
	ASSERT_EQ(0, prf_load(fd, t, N));
}

/* read(2) into a buffer of 4096 0xAA bytes: -errno or the byte count. */
static long rd(int fd, unsigned char *buf, size_t count)
{
	ssize_t r;

	memset(buf, FILL, 4096);
	r = read(fd, buf, count);
	return r < 0 ? -errno : r;
}

/* Are bytes [from, 4096) still the fill pattern? */
static int untouched(const unsigned char *buf, size_t from)
{
	for (; from < 4096; from++)
		if (buf[from] != FILL)
			return 0;
	return 1;
}

/*
 * Load, then read(2) @count bytes (at most the array) into @buf: all of them
 * come back, the addresses among them are the table's, and nothing past
 * @count is written.
 */
static void read_prefix(struct __test_metadata *_metadata, int fd,
			unsigned char *buf, size_t count)
{
	__u64 t[N];

	load(_metadata, fd, t);
	ASSERT_EQ((long)count, rd(fd, buf, count));
	EXPECT_EQ(0, memcmp(buf, t, count < sizeof(t) ? count : sizeof(t)));
	EXPECT_TRUE(untouched(buf, count));
}

TEST_F(read, array_is_addresses_then_zero_counters)
{
	unsigned char buf[4096];
	__u64 t[N], v[2 * N + 2];
	int i;

	load(_metadata, self->fd, t);
	ASSERT_EQ(ARRAY, rd(self->fd, buf, ARRAY));
	memcpy(v, buf, ARRAY);
	EXPECT_EQ(0, memcmp(v, t, sizeof(t)));
	for (i = N; i < 2 * N + 2; i++)
		EXPECT_EQ(0, v[i]) TH_LOG("counter %d", i - N);
}

TEST_F(read, five_byte_buffer_gets_five_bytes_of_first_address)
{
	unsigned char buf[4096];

	read_prefix(_metadata, self->fd, buf, 5);
}

TEST_F(read, one_address_buffer)
{
	unsigned char buf[4096];

	read_prefix(_metadata, self->fd, buf, 8);
}

TEST_F(read, addresses_and_one_counter_buffer)
{
	unsigned char buf[4096];
	__u64 c;

	read_prefix(_metadata, self->fd, buf, (N + 1) * 8);
	memcpy(&c, buf + N * 8, 8);
	EXPECT_EQ(0, c);
}

TEST_F(read, exact_buffer_gets_whole_array)
{
	unsigned char buf[4096];

	read_prefix(_metadata, self->fd, buf, ARRAY);
}

TEST_F(read, big_buffer_returns_exact_array_size)
{
	unsigned char buf[4096];
	__u64 t[N];

	load(_metadata, self->fd, t);
	EXPECT_EQ(ARRAY, rd(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(untouched(buf, ARRAY));
}

TEST_F(read, zero_count_returns_zero)
{
	unsigned char buf[4096];
	__u64 t[N];

	load(_metadata, self->fd, t);
	EXPECT_EQ(0, rd(self->fd, buf, 0));
	EXPECT_TRUE(untouched(buf, 0));
}

TEST_F(read, second_read_starts_again_at_the_beginning)
{
	unsigned char a[4096], b[4096];
	__u64 t[N];

	load(_metadata, self->fd, t);
	ASSERT_EQ(ARRAY, rd(self->fd, a, sizeof(a)));
	ASSERT_EQ(ARRAY, rd(self->fd, b, sizeof(b)));
	EXPECT_EQ(0, memcmp(a, b, ARRAY));
}

TEST_F(read, short_reads_do_not_advance)
{
	unsigned char a[4096], b[4096];
	__u64 t[N];

	load(_metadata, self->fd, t);
	ASSERT_EQ(16, rd(self->fd, a, 16));
	ASSERT_EQ(16, rd(self->fd, b, 16));
	EXPECT_EQ(0, memcmp(a, t, 16));
	EXPECT_EQ(0, memcmp(b, t, 16));
}

TEST_F(read, file_position_is_ignored_after_lseek)
{
	unsigned char buf[4096];
	__u64 t[N];

	load(_metadata, self->fd, t);
	ASSERT_LE(0, lseek(self->fd, 24, SEEK_SET));
	ASSERT_EQ(ARRAY, rd(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, t, sizeof(t)));
	ASSERT_LE(0, lseek(self->fd, 1 << 20, SEEK_SET));
	ASSERT_EQ(ARRAY, rd(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, t, sizeof(t)));
}

TEST_F(read, pread_at_offset_reads_from_start)
{
	unsigned char buf[4096];
	__u64 t[N];
	ssize_t r;

	load(_metadata, self->fd, t);
	memset(buf, FILL, sizeof(buf));
	r = pread(self->fd, buf, sizeof(buf), 40);
	if (r < 0 && errno == ESPIPE)
		SKIP(return, "device is a stream (no pread)");
	ASSERT_EQ(ARRAY, r);
	EXPECT_EQ(0, memcmp(buf, t, sizeof(t)));
}

TEST_F(read, unloaded_enxio_buffer_untouched)
{
	unsigned char buf[4096];

	EXPECT_EQ(-ENXIO, rd(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(untouched(buf, 0));
	EXPECT_EQ(-ENXIO, rd(self->fd, buf, 8));
	EXPECT_TRUE(untouched(buf, 0));
}

TEST_F(read, unloaded_cpu_minor_enxio_buffer_untouched)
{
	unsigned char buf[4096];

	PRF_NEED_CPU(0);
	EXPECT_EQ(-ENXIO, rd(self->cpu[0], buf, sizeof(buf)));
	EXPECT_TRUE(untouched(buf, 0));
}

TEST_F(read, after_einval_unload_enxio_buffer_untouched)
{
	unsigned char buf[4096];
	__u64 t[N];

	load(_metadata, self->fd, t);
	ASSERT_EQ(0, prf_unload(self->fd));
	EXPECT_EQ(-ENXIO, rd(self->fd, buf, sizeof(buf)));
	EXPECT_TRUE(untouched(buf, 0));
}

TEST_F(read, unwritable_buffer_efault)
{
	void *p;
	__u64 t[N];

	load(_metadata, self->fd, t);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, read(self->fd, p, ARRAY));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, 4096);
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(read, works_while_on_and_counters_only_grow)
{
	struct prf_snap a, b;
	__u64 t[N];
	size_t i;

	load(_metadata, self->fd, t);
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &a));
	prf_sleep(0.3);
	ASSERT_EQ(0, prf_snap(self->fd, &b));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(0, memcmp(a.addrs, t, sizeof(t)));
	EXPECT_EQ(0, memcmp(b.addrs, t, sizeof(t)));
	for (i = 0; i < PRF_NR_BUCKETS(N); i++)
		EXPECT_LE(a.counts[i], b.counts[i]) TH_LOG("counter %zu", i);
	EXPECT_LT(prf_snap_total(&a), prf_snap_total(&b));
	prf_snap_free(&a);
	prf_snap_free(&b);
}

TEST_F(read, counters_stay_still_while_off)
{
	struct prf_snap a, b;
	__u64 t[N];

	load(_metadata, self->fd, t);
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &a));
	ASSERT_LT(0, prf_snap_total(&a));
	prf_sleep(0.3);
	ASSERT_EQ(0, prf_snap(self->fd, &b));
	EXPECT_EQ(0, memcmp(a.buf, b.buf, ARRAY));
	prf_snap_free(&a);
	prf_snap_free(&b);
}

TEST_F(read, off_keeps_the_counters)
{
	struct prf_snap a;
	__u64 t[N];

	load(_metadata, self->fd, t);
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &a));
	EXPECT_LT(0, prf_snap_total(&a));
	prf_snap_free(&a);
}

TEST_F(read, loaded_but_off_samples_nothing)
{
	struct prf_snap a;
	__u64 t[N];

	load(_metadata, self->fd, t);
	prf_sleep(0.3);		/* loaded but OFF: nothing is sampled */
	ASSERT_EQ(0, prf_snap(self->fd, &a));
	EXPECT_EQ(0, prf_snap_total(&a));
	prf_snap_free(&a);
}

/*
 * A reader whose buffer faults on a page that does not arrive (userfaultfd
 * here; FUSE mmap does the same) must not hold up the instance: turning it
 * ON and OFF (which take the CPU hotplug lock first), stopping it through
 * sysfs, clearing it and loading a new table must all complete while the
 * reader waits.  When the page arrives the reader gets the table it started
 * with.
 */
struct stuck {
	int fd;			/* the instance */
	int uffd;
	unsigned char *page;	/* registered, missing */
	long got;		/* the reader's read(2): bytes or -errno */
	int ops;		/* operations done by the other thread */
	int err;		/* the first failed one's -errno */
	sem_t done;
};

static int uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd;

	fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);

		if (dev < 0)
			return -errno;
		fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
		close(dev);
		if (fd < 0)
			return -errno;
	}
	if (ioctl(fd, UFFDIO_API, &api)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void *stuck_reader(void *arg)
{
	struct stuck *st = arg;
	ssize_t r = read(st->fd, st->page, ARRAY);

	st->got = r < 0 ? -errno : r;
	return NULL;
}

static void *instance_ops(void *arg)
{
	struct stuck *st = arg;
	__u64 t[N + 1];
	int i, r;

	for (i = 0; i < N + 1; i++)
		t[i] = BASE + 0x1000 + i * STEP;
	for (st->ops = 0; st->ops < 6; st->ops++) {
		switch (st->ops) {
		case 0:
			r = prf_on(st->fd);
			break;
		case 1:
			r = prf_off(st->fd);
			break;
		case 2:
			r = prf_on(st->fd);
			break;
		case 3:
			r = prf_sysfs_write(PRF_ALL, "control", "stop");
			break;
		case 4:
			r = prf_clear(st->fd);
			break;
		default:
			r = prf_load(st->fd, t, N + 1);
			break;
		}
		if (r < 0 && !st->err)
			st->err = r;
	}
	sem_post(&st->done);
	return NULL;
}

TEST_F_TIMEOUT(read, fault_in_read_buffer_blocks_nothing_else, 60)
{
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zero = { 0 };
	struct uffd_msg msg;
	struct pollfd pfd;
	struct stuck st = { .fd = self->fd };
	struct timespec until;
	pthread_t reader, ops;
	long psz = sysconf(_SC_PAGESIZE);
	__u64 t[N], *got;
	bool blocked;
	int i, stuck_at;

	st.uffd = uffd_open();
	if (st.uffd < 0)
		SKIP(return, "no userfaultfd in this kernel (%s)",
		     strerror(-st.uffd));
	st.page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st.page);
	reg.range.start = (unsigned long)st.page;
	reg.range.len = psz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(st.uffd, UFFDIO_REGISTER, &reg))
		TH_LOG("UFFDIO_REGISTER: %s", strerror(errno));
	ASSERT_EQ(0, sem_init(&st.done, 0, 0));
	load(_metadata, self->fd, t);

	ASSERT_EQ(0, pthread_create(&reader, NULL, stuck_reader, &st));
	/* the reader is inside read(2), waiting for its page */
	pfd.fd = st.uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 20000)) TH_LOG("the read never faulted");
	ASSERT_EQ(sizeof(msg), read(st.uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	ASSERT_EQ(0, pthread_create(&ops, NULL, instance_ops, &st));
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 15;
	blocked = sem_timedwait(&st.done, &until) != 0;
	stuck_at = __atomic_load_n(&st.ops, __ATOMIC_RELAXED);

	/* let the reader go, then everything else */
	zero.range.start = (unsigned long)st.page;
	zero.range.len = psz;
	EXPECT_EQ(0, ioctl(st.uffd, UFFDIO_ZEROPAGE, &zero));
	pthread_join(reader, NULL);
	pthread_join(ops, NULL);

	EXPECT_FALSE(blocked) TH_LOG("operation %d waited for the reader",
				     stuck_at);
	EXPECT_EQ(0, st.err);
	EXPECT_EQ(ARRAY, st.got);
	got = (__u64 *)st.page;
	for (i = 0; i < N && st.got == ARRAY; i++)
		EXPECT_EQ(t[i], got[i]);
	EXPECT_EQ(N + 1, prf_size(self->fd));
	sem_destroy(&st.done);
	munmap(st.page, psz);
	close(st.uffd);
}

TEST_HARNESS_MAIN
