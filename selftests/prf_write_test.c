// SPDX-License-Identifier: GPL-2.0
/*
 * prf_write_test - loading a table with write(2).
 *
 * prf(7): the array is copied in, its counters zeroed, the state marked
 * LOADED and the number of addresses recorded; ENOSPC (more than the
 * maximum), E2BIG (fewer than 3, or a partial address) and EBUSY (ON) leave
 * the state unchanged; EINVAL (not ascending) leaves it NOT loaded.  uapi:
 * EFAULT leaves it unchanged; E2BIG and ENOSPC are checked before EBUSY;
 * duplicates count as not ascending; write returns the byte count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "prf_fixture.h"

PRF_FIXTURE(write);

#define BASE	0xffffffff81000000ULL
#define STEP	0x40ULL

/* Load the "old" table whose survival the error tests check. */
static int load_old(int fd, __u64 **old, size_t n)
{
	*old = prf_make_table(n, BASE + 0x100000, STEP);
	return *old ? prf_load(fd, *old, n) : -ENOMEM;
}

/* Is @fd loaded, OFF or @on, with exactly @old (n addresses)? */
static int holds(int fd, const __u64 *old, size_t n, int status)
{
	struct prf_snap s;
	int ok;

	if (prf_status(fd) != status || prf_size(fd) != (int)n)
		return 0;
	if (prf_snap(fd, &s))
		return 0;
	ok = s.n == n && !memcmp(s.addrs, old, n * sizeof(*old));
	prf_snap_free(&s);
	return ok;
}

/* write(2) of @bytes from @buf: -errno or the byte count. */
static long wr(int fd, const void *buf, size_t bytes)
{
	ssize_t r = write(fd, buf, bytes);

	return r < 0 ? -errno : r;
}

/* ---- success ------------------------------------------------------------- */

TEST_F(write, load_returns_byte_count)
{
	__u64 *t = prf_make_table(100, BASE, STEP);

	ASSERT_NE(NULL, t);
	EXPECT_EQ(100 * 8, wr(self->fd, t, 100 * 8));
	free(t);
}

TEST_F(write, load_marks_loaded_and_off)
{
	__u64 *t = prf_make_table(3, BASE, STEP);

	ASSERT_EQ(0, prf_load(self->fd, t, 3));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	free(t);
}

TEST_F(write, load_records_number_of_addresses)
{
	__u64 *t = prf_make_table(1000, BASE, STEP);

	ASSERT_EQ(0, prf_load(self->fd, t, 3));
	EXPECT_EQ(3, prf_size(self->fd));
	ASSERT_EQ(0, prf_load(self->fd, t, 1000));
	EXPECT_EQ(1000, prf_size(self->fd));
	free(t);
}

TEST_F(write, load_copies_the_table)
{
	__u64 *t = prf_make_table(1000, BASE, STEP);
	struct prf_snap s;

	ASSERT_EQ(0, prf_load(self->fd, t, 1000));
	memset(t, 0, 1000 * 8);		/* the kernel has its own copy */
	free(t);
	t = prf_make_table(1000, BASE, STEP);
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(0, memcmp(s.addrs, t, 1000 * 8));
	prf_snap_free(&s);
	free(t);
}

TEST_F(write, load_zeroes_counters)
{
	__u64 *t = prf_make_table(50, BASE, STEP);
	struct prf_snap s;

	ASSERT_EQ(0, prf_load(self->fd, t, 50));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(0, prf_snap_total(&s));
	prf_snap_free(&s);
	free(t);
}

TEST_F(write, reload_of_same_table_zeroes_counters)
{
	struct prf_ksyms k;
	struct prf_info info;
	struct prf_snap s;

	ASSERT_EQ(0, prf_ksyms_load(&k));
	ASSERT_EQ(0, prf_load(self->fd, k.addrs, k.n));
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	ASSERT_LT(0, prf_snap_total(&s)) TH_LOG("nothing sampled: test void");
	prf_snap_free(&s);

	ASSERT_EQ(0, prf_load(self->fd, k.addrs, k.n));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(0, prf_snap_total(&s));
	prf_snap_free(&s);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	prf_expect_counters_zero(_metadata, &info);
	prf_ksyms_free(&k);
}

TEST_F(write, reload_replaces_the_table)
{
	__u64 *a = prf_make_table(5, BASE, STEP);
	__u64 *b = prf_make_table(7, BASE + 0x1000, 0x80);

	ASSERT_EQ(0, prf_load(self->fd, a, 5));
	ASSERT_EQ(0, prf_load(self->fd, b, 7));
	EXPECT_TRUE(holds(self->fd, b, 7, PRF_STATUS_LOADED));
	free(a);
	free(b);
}

TEST_F(write, exactly_three_addresses_load)
{
	__u64 *t = prf_make_table(PRF_MIN_ADDRS, BASE, STEP);

	EXPECT_EQ(0, prf_load(self->fd, t, PRF_MIN_ADDRS));
	EXPECT_TRUE(holds(self->fd, t, PRF_MIN_ADDRS, PRF_STATUS_LOADED));
	free(t);
}

TEST_F(write, file_position_is_ignored)
{
	__u64 *t = prf_make_table(10, BASE, STEP);

	ASSERT_LE(0, lseek(self->fd, 4096, SEEK_SET));
	EXPECT_EQ(10 * 8, wr(self->fd, t, 10 * 8));
	EXPECT_EQ(10 * 8, wr(self->fd, t, 10 * 8));
	EXPECT_TRUE(holds(self->fd, t, 10, PRF_STATUS_LOADED));
	free(t);
}

TEST_F(write, table_of_exactly_max_loads)
{
	int max = prf_max(self->fd);
	struct prf_snap s;
	__u64 *t;

	ASSERT_LE(PRF_MIN_ADDRS, max);
	t = prf_make_table(max, BASE, 8);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(self->fd, t, max));
	EXPECT_EQ(max, prf_size(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(t[0], s.addrs[0]);
	EXPECT_EQ(t[max - 1], s.addrs[max - 1]);
	EXPECT_EQ(0, prf_snap_total(&s));
	prf_snap_free(&s);
	free(t);
}

/* ---- E2BIG --------------------------------------------------------------- */

TEST_F(write, fewer_than_three_addresses_e2big_stays_unloaded)
{
	__u64 *t = prf_make_table(3, BASE, STEP);

	EXPECT_EQ(-E2BIG, wr(self->fd, t, 2 * 8));
	EXPECT_EQ(-E2BIG, wr(self->fd, t, 1 * 8));
	EXPECT_EQ(-E2BIG, wr(self->fd, t, 0));
	EXPECT_EQ(0, prf_status(self->fd));
	EXPECT_EQ(0, prf_size(self->fd));
	free(t);
}

TEST_F(write, fewer_than_three_addresses_e2big_keeps_table)
{
	__u64 *old, *t = prf_make_table(3, BASE, STEP);

	ASSERT_EQ(0, load_old(self->fd, &old, 20));
	EXPECT_EQ(-E2BIG, wr(self->fd, t, 2 * 8));
	EXPECT_EQ(-E2BIG, wr(self->fd, t, 1 * 8));
	EXPECT_EQ(-E2BIG, wr(self->fd, t, 0));
	EXPECT_TRUE(holds(self->fd, old, 20, PRF_STATUS_LOADED));
	free(old);
	free(t);
}

TEST_F(write, partial_address_e2big_keeps_table)
{
	__u64 *old, *t = prf_make_table(10, BASE, STEP);
	static const size_t sizes[] = { 7, 25, 31, 33, 79 };
	size_t i;

	ASSERT_EQ(0, load_old(self->fd, &old, 20));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		EXPECT_EQ(-E2BIG, wr(self->fd, t, sizes[i])) TH_LOG("%zu bytes", sizes[i]);
	EXPECT_TRUE(holds(self->fd, old, 20, PRF_STATUS_LOADED));
	free(old);
	free(t);
}

TEST_F(write, partial_address_e2big_stays_unloaded)
{
	__u64 *t = prf_make_table(10, BASE, STEP);

	EXPECT_EQ(-E2BIG, wr(self->fd, t, 3 * 8 + 4));
	EXPECT_EQ(0, prf_status(self->fd));
	free(t);
}

/* ---- ENOSPC -------------------------------------------------------------- */

/* An ascending table of PRF_GETMAX + 1 addresses; *@bytes is its size. */
static __u64 *over_max_table(struct __test_metadata *_metadata, int fd,
			     size_t *bytes)
{
	int max = prf_max(fd);
	__u64 *t;

	ASSERT_LE(PRF_MIN_ADDRS, max);
	t = prf_make_table((size_t)max + 1, BASE, 8);
	ASSERT_NE(NULL, t);
	*bytes = ((size_t)max + 1) * 8;
	return t;
}

TEST_F(write, more_than_max_enospc_keeps_table)
{
	__u64 *old, *t;
	size_t bytes;

	ASSERT_EQ(0, load_old(self->fd, &old, 20));
	t = over_max_table(_metadata, self->fd, &bytes);
	EXPECT_EQ(-ENOSPC, wr(self->fd, t, bytes));
	EXPECT_TRUE(holds(self->fd, old, 20, PRF_STATUS_LOADED));
	free(old);
	free(t);
}

TEST_F(write, more_than_max_enospc_stays_unloaded)
{
	size_t bytes;
	__u64 *t = over_max_table(_metadata, self->fd, &bytes);

	EXPECT_EQ(-ENOSPC, wr(self->fd, t, bytes));
	EXPECT_EQ(0, prf_status(self->fd));
	free(t);
}

TEST_F(write, huge_size_enospc_without_reading_the_buffer)
{
	int max = prf_max(self->fd);
	size_t bytes = ((size_t)max + 1) * 8;
	void *p;

	/* No page of the buffer is readable: only the size may be looked at. */
	p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-ENOSPC, wr(self->fd, p, bytes));
	EXPECT_EQ(0, prf_status(self->fd));
	munmap(p, bytes);
}

/* ---- EBUSY and the order of the checks ----------------------------------- */

/*
 * With the old table loaded and ON, each write(2) of @buf with a size of
 * the 0-terminated @sizes fails with @err, and the old table stays, ON.
 */
static void refused_while_on(struct __test_metadata *_metadata, int fd,
			     const void *buf, const size_t *sizes, long err)
{
	__u64 *old;

	ASSERT_EQ(0, load_old(fd, &old, 20));
	ASSERT_EQ(0, prf_on(fd));
	for (; *sizes; sizes++)
		EXPECT_EQ(err, wr(fd, buf, *sizes)) TH_LOG("%zu bytes", *sizes);
	EXPECT_TRUE(holds(fd, old, 20, PRF_STATUS_ON | PRF_STATUS_LOADED));
	free(old);
}

TEST_F(write, load_while_on_ebusy_keeps_table_and_on)
{
	__u64 *t = prf_make_table(10, BASE, STEP);

	refused_while_on(_metadata, self->fd, t, (size_t[]){ 10 * 8, 0 },
			 -EBUSY);
	free(t);
}

TEST_F(write, unsorted_while_on_ebusy_stays_loaded_and_on)
{
	__u64 *unsorted = prf_make_table(10, BASE, STEP);

	unsorted[5] = unsorted[4];
	refused_while_on(_metadata, self->fd, unsorted,
			 (size_t[]){ 10 * 8, 0 }, -EBUSY);
	free(unsorted);
}

TEST_F(write, e2big_is_checked_before_ebusy)
{
	__u64 *t = prf_make_table(10, BASE, STEP);

	/* fewer than three addresses; a partial address */
	refused_while_on(_metadata, self->fd, t,
			 (size_t[]){ 2 * 8, 5 * 8 + 3, 0 }, -E2BIG);
	free(t);
}

TEST_F(write, enospc_is_checked_before_ebusy)
{
	size_t bytes;
	__u64 *t = over_max_table(_metadata, self->fd, &bytes);

	refused_while_on(_metadata, self->fd, t, (size_t[]){ bytes, 0 },
			 -ENOSPC);
	free(t);
}

TEST_F(write, e2big_is_checked_before_enospc)
{
	int max = prf_max(self->fd);
	size_t bytes = ((size_t)max + 1) * 8 + 4;
	void *p;

	/* Too many addresses and a partial one: both size checks fail. */
	p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-E2BIG, wr(self->fd, p, bytes));
	munmap(p, bytes);
	EXPECT_EQ(0, prf_status(self->fd));
}

/* ---- EINVAL -------------------------------------------------------------- */

static void einval_unloads(struct __test_metadata *_metadata, int fd,
			   __u64 *t, size_t n)
{
	__u64 *old, buf[8];

	memset(buf, 0xAA, sizeof(buf));
	ASSERT_EQ(0, load_old(fd, &old, 20));
	EXPECT_EQ(-EINVAL, wr(fd, t, n * 8));
	EXPECT_EQ(0, prf_status(fd) & PRF_STATUS_LOADED);
	EXPECT_EQ(0, prf_status(fd));
	EXPECT_EQ(0, prf_size(fd));
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(ENXIO, errno);
	free(old);
}

TEST_F(write, descending_einval_leaves_not_loaded)
{
	__u64 t[] = { BASE + 0x300, BASE + 0x200, BASE + 0x100 };

	einval_unloads(_metadata, self->fd, t, 3);
}

TEST_F(write, one_step_back_einval_leaves_not_loaded)
{
	__u64 *t = prf_make_table(1000, BASE, STEP);

	t[998] = t[997] - 1;
	einval_unloads(_metadata, self->fd, t, 1000);
	free(t);
}

TEST_F(write, duplicate_first_pair_einval_leaves_not_loaded)
{
	__u64 t[] = { BASE, BASE, BASE + 0x100, BASE + 0x200 };

	einval_unloads(_metadata, self->fd, t, 4);
}

TEST_F(write, duplicate_last_pair_einval_leaves_not_loaded)
{
	__u64 *t = prf_make_table(1000, BASE, STEP);

	t[999] = t[998];
	einval_unloads(_metadata, self->fd, t, 1000);
	free(t);
}

TEST_F(write, all_equal_einval_leaves_not_loaded)
{
	__u64 t[] = { BASE, BASE, BASE };

	einval_unloads(_metadata, self->fd, t, 3);
}

TEST_F(write, unsorted_einval_when_unloaded_stays_unloaded)
{
	__u64 t[] = { BASE + 0x300, BASE + 0x200, BASE + 0x100 };

	EXPECT_EQ(-EINVAL, wr(self->fd, t, sizeof(t)));
	EXPECT_EQ(0, prf_status(self->fd));
	EXPECT_EQ(0, prf_size(self->fd));
}

TEST_F(write, load_after_einval_works)
{
	__u64 t[] = { BASE + 0x300, BASE + 0x200, BASE + 0x100 };
	__u64 *good = prf_make_table(9, BASE, STEP);

	EXPECT_EQ(-EINVAL, wr(self->fd, t, sizeof(t)));
	EXPECT_EQ(0, prf_load(self->fd, good, 9));
	EXPECT_TRUE(holds(self->fd, good, 9, PRF_STATUS_LOADED));
	free(good);
}

/* ---- EFAULT -------------------------------------------------------------- */

TEST_F(write, unreadable_buffer_efault_keeps_table)
{
	__u64 *old;
	void *p;

	p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, load_old(self->fd, &old, 20));
	EXPECT_EQ(-EFAULT, wr(self->fd, p, 10 * 8));
	EXPECT_TRUE(holds(self->fd, old, 20, PRF_STATUS_LOADED));
	munmap(p, 4096);
	free(old);
}

TEST_F(write, partly_unreadable_buffer_efault_keeps_table)
{
	size_t n = 1024, i;	/* 8 KiB: one page readable, one not */
	__u64 *old, *p;

	p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	for (i = 0; i < n; i++)
		p[i] = BASE + i * STEP;
	ASSERT_EQ(0, mprotect((char *)p + 4096, 4096, PROT_NONE));
	ASSERT_EQ(0, load_old(self->fd, &old, 20));
	EXPECT_EQ(-EFAULT, wr(self->fd, p, n * 8));
	EXPECT_TRUE(holds(self->fd, old, 20, PRF_STATUS_LOADED));
	munmap(p, 2 * 4096);
	free(old);
}

TEST_F(write, unreadable_buffer_efault_stays_unloaded)
{
	void *p;

	p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-EFAULT, wr(self->fd, p, 10 * 8));
	EXPECT_EQ(0, prf_status(self->fd));
	munmap(p, 4096);
}

TEST_F(write, kernel_pointer_efault_keeps_table)
{
	__u64 *old;

	ASSERT_EQ(0, load_old(self->fd, &old, 20));
	EXPECT_EQ(-EFAULT, wr(self->fd, (void *)(unsigned long)BASE, 10 * 8));
	EXPECT_TRUE(holds(self->fd, old, 20, PRF_STATUS_LOADED));
	free(old);
}

TEST_HARNESS_MAIN
