// SPDX-License-Identifier: GPL-2.0
/*
 * prf_unwind_test - unwind tables (uapi "Unwind tables", PRF_SETUNWIND and
 * PRF_GETUNWIND): the layout, every error's exact errno with nothing
 * changed after it, and the tables' lifetimes: one table a file (its
 * inode: two descriptors and a hard link find it, another file does not),
 * shared by every instance, replaced whole by a load from any of them,
 * held by each instance that loaded it and gone when the last lets it go
 * (an unload, an unload of all, a private instance's file closed), and the
 * store's bound on bytes.
 *
 * The rows are made up: the module checks their form, not their truth
 * (what the rows say of a real file is the tools' business: prf cfi).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prf_fixture.h"

PRF_FIXTURE(unwind);

#if defined(__x86_64__)
#define MACHINE	62	/* EM_X86_64 */
#elif defined(__aarch64__)
#define MACHINE	183	/* EM_AARCH64 */
#else
#define MACHINE	0
#endif

#define ROW	sizeof(struct prf_unwind_row)

/* @n rows of 16 bytes each from offset @base: CFA = SP + 16, RA at CFA - 8. */
static struct prf_unwind_row *rows_make(size_t n, __u64 base)
{
	struct prf_unwind_row *r = calloc(n ? n : 1, ROW);
	size_t i;

	for (i = 0; r && i < n; i++) {
		r[i].start = base + 16 * i;
		r[i].len = 16;
		r[i].cfa_off = 16;
		r[i].ra_off = -8;
		r[i].rules = PRF_UNWIND_RULES(0, PRF_UNWIND_AT, PRF_UNWIND_SAME);
	}
	return r;
}

static int load(int prf, int fd, const struct prf_unwind_row *r, __u32 nr,
		__u32 flags)
{
	struct prf_unwind_load ld = {
		.fd = fd, .machine = MACHINE, .flags = flags, .nr = nr,
		.rows = (__u64)(unsigned long)r,
	};

	return ioctl(prf, PRF_SETUNWIND, &ld) ? -errno : 0;
}

static int unload(int prf, int fd)
{
	struct prf_unwind_load ld = { .fd = fd };

	return ioctl(prf, PRF_SETUNWIND, &ld) ? -errno : 0;
}

static int stat_of(int prf, int fd, struct prf_unwind_stat *st)
{
	memset(st, 0xa5, sizeof(*st));
	st->fd = fd;
	st->pad = 0;
	return ioctl(prf, PRF_GETUNWIND, st) ? -errno : 0;
}

/* A regular file of this test's own: a new inode each call. */
static int file_new(struct __test_metadata *_metadata, char *path)
{
	int fd;

	strcpy(path, "/dev/shm/prf_unwind_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0) {
		strcpy(path, "/tmp/prf_unwind_XXXXXX");
		fd = mkstemp(path);
	}
	EXPECT_LE(0, fd) TH_LOG("mkstemp: %s", strerror(errno));
	return fd;
}

TEST(layout)
{
	EXPECT_EQ(24, sizeof(struct prf_unwind_row));
	EXPECT_EQ(24, sizeof(struct prf_unwind_load));
	EXPECT_EQ(40, sizeof(struct prf_unwind_stat));
	EXPECT_EQ(16, offsetof(struct prf_unwind_load, rows));
	EXPECT_EQ(24, offsetof(struct prf_unwind_stat, store_bytes));
	EXPECT_EQ(_IOW(0xB9, 37, struct prf_unwind_load), PRF_SETUNWIND);
	EXPECT_EQ(_IOWR(0xB9, 38, struct prf_unwind_stat), PRF_GETUNWIND);
	EXPECT_EQ(0x0b, PRF_UNWIND_RULES(1, PRF_UNWIND_AT, PRF_UNWIND_AT));
}

/* A table loaded, seen by its file (any descriptor of it) and counted. */
TEST_F(unwind, load_then_stat_then_unload)
{
	struct prf_unwind_row *r = rows_make(100, 0x1000);
	struct prf_unwind_stat st0, st;
	char path[64];
	int f = file_new(_metadata, path), f2;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, stat_of(self->fd, f, &st0));
	EXPECT_EQ(0, st0.nr);
	EXPECT_EQ(0, st0.users);
	EXPECT_EQ(0, st0.flags);
	ASSERT_EQ(0, load(self->fd, f, r, 100, PRF_UNWIND_FRAMEPTR));
	f2 = open(path, O_RDONLY);
	ASSERT_LE(0, f2);
	ASSERT_EQ(0, stat_of(self->fd, f2, &st));
	EXPECT_EQ(100, st.nr);
	EXPECT_EQ(1, st.users);
	EXPECT_EQ(PRF_UNWIND_FRAMEPTR | PRF_UNWIND_HELD, st.flags);
	EXPECT_EQ(st0.files + 1, st.files);
	EXPECT_EQ(st0.store_files + 1, st.store_files);
	EXPECT_EQ(st0.store_bytes + 100 * ROW, st.store_bytes);
	EXPECT_EQ(0, st.pad2);
	ASSERT_EQ(0, unload(self->fd, f2));
	ASSERT_EQ(0, stat_of(self->fd, f, &st));
	EXPECT_EQ(st0.store_files, st.store_files);
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	EXPECT_EQ(st0.files, st.files);
	EXPECT_EQ(0, st.nr);
	EXPECT_EQ(-ENOENT, unload(self->fd, f));
	close(f2);
	close(f);
	unlink(path);
	free(r);
}

/* Keyed by inode: a hard link is the same file, a copy is another. */
TEST_F(unwind, one_table_an_inode)
{
	struct prf_unwind_row *r = rows_make(3, 0);
	struct prf_unwind_stat st;
	char path[64], lpath[80], opath[64];
	int f = file_new(_metadata, path), o = file_new(_metadata, opath), l;

	ASSERT_NE(NULL, r);
	snprintf(lpath, sizeof(lpath), "%s.link", path);
	ASSERT_EQ(0, link(path, lpath));
	l = open(lpath, O_RDONLY);
	ASSERT_LE(0, l);
	ASSERT_EQ(0, load(self->fd, f, r, 3, 0));
	ASSERT_EQ(0, stat_of(self->fd, l, &st));
	EXPECT_EQ(3, st.nr);
	ASSERT_EQ(0, stat_of(self->fd, o, &st));
	EXPECT_EQ(0, st.nr);
	EXPECT_EQ(-ENOENT, unload(self->fd, o));
	ASSERT_EQ(0, unload(self->fd, l));
	ASSERT_EQ(0, stat_of(self->fd, f, &st));
	EXPECT_EQ(0, st.nr);
	close(l);
	close(o);
	close(f);
	unlink(lpath);
	unlink(path);
	unlink(opath);
	free(r);
}

/*
 * Shared: a second instance's load replaces the rows for both and holds
 * the table too; the first's unload leaves it to the second, whose closing
 * (a private instance dies with its file) frees it.
 */
TEST_F(unwind, shared_replaced_held_until_the_last_goes)
{
	struct prf_unwind_row *r = rows_make(10, 0), *r2 = rows_make(7, 64);
	struct prf_unwind_stat st0, st;
	int a = prf_open_clone(), b = prf_open_clone();
	char path[64];
	int f = file_new(_metadata, path);

	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, r2);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, stat_of(a, f, &st0));
	ASSERT_EQ(0, load(a, f, r, 10, 0));
	ASSERT_EQ(0, load(b, f, r2, 7, PRF_UNWIND_FRAMEPTR));
	ASSERT_EQ(0, stat_of(a, f, &st));
	EXPECT_EQ(7, st.nr);
	EXPECT_EQ(2, st.users);
	EXPECT_EQ(PRF_UNWIND_FRAMEPTR | PRF_UNWIND_HELD, st.flags);
	EXPECT_EQ(1, st.files);
	EXPECT_EQ(st0.store_files + 1, st.store_files);
	EXPECT_EQ(st0.store_bytes + 7 * ROW, st.store_bytes);
	/* the shared instance holds none, sees it */
	ASSERT_EQ(0, stat_of(self->fd, f, &st));
	EXPECT_EQ(PRF_UNWIND_FRAMEPTR, st.flags);
	EXPECT_EQ(-ENOENT, unload(self->fd, f));
	/* a reload by the same instance holds it once */
	ASSERT_EQ(0, load(a, f, r, 10, 0));
	ASSERT_EQ(0, stat_of(b, f, &st));
	EXPECT_EQ(10, st.nr);
	EXPECT_EQ(2, st.users);
	EXPECT_EQ(0, st.flags & PRF_UNWIND_FRAMEPTR);
	ASSERT_EQ(0, unload(a, f));
	ASSERT_EQ(0, stat_of(b, f, &st));
	EXPECT_EQ(10, st.nr);
	EXPECT_EQ(1, st.users);
	EXPECT_EQ(PRF_UNWIND_HELD, st.flags);
	ASSERT_EQ(0, stat_of(a, f, &st));
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(0, st.files);
	close(b);
	ASSERT_EQ(0, stat_of(a, f, &st));
	EXPECT_EQ(0, st.nr);
	EXPECT_EQ(0, st.users);
	EXPECT_EQ(st0.store_files, st.store_files);
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	close(a);
	close(f);
	unlink(path);
	free(r);
	free(r2);
}

/* .fd -1, .nr 0: every table the instance holds goes, others' stay. */
TEST_F(unwind, unload_all_is_the_instances_own)
{
	struct prf_unwind_row *r = rows_make(5, 0);
	struct prf_unwind_stat st0, st;
	int a = prf_open_clone(), b = prf_open_clone();
	char p1[64], p2[64];
	int f1 = file_new(_metadata, p1), f2 = file_new(_metadata, p2);

	ASSERT_NE(NULL, r);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, stat_of(a, -1, &st0));
	EXPECT_EQ(0, st0.nr);
	ASSERT_EQ(0, load(a, f1, r, 5, 0));
	ASSERT_EQ(0, load(a, f2, r, 4, 0));
	ASSERT_EQ(0, load(b, f2, r, 3, 0));
	ASSERT_EQ(0, stat_of(a, -1, &st));
	EXPECT_EQ(2, st.files);
	EXPECT_EQ(st0.store_files + 2, st.store_files);
	EXPECT_EQ(st0.store_bytes + 8 * ROW, st.store_bytes);
	ASSERT_EQ(0, unload(a, -1));
	ASSERT_EQ(0, stat_of(a, f2, &st));
	EXPECT_EQ(0, st.files);
	EXPECT_EQ(3, st.nr);
	EXPECT_EQ(1, st.users);
	EXPECT_EQ(st0.store_files + 1, st.store_files);
	EXPECT_EQ(st0.store_bytes + 3 * ROW, st.store_bytes);
	ASSERT_EQ(0, stat_of(a, f1, &st));
	EXPECT_EQ(0, st.nr);
	/* nothing held: still 0 */
	ASSERT_EQ(0, unload(a, -1));
	ASSERT_EQ(0, unload(b, -1));
	ASSERT_EQ(0, stat_of(a, -1, &st));
	EXPECT_EQ(st0.store_files, st.store_files);
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	close(a);
	close(b);
	close(f1);
	close(f2);
	unlink(p1);
	unlink(p2);
	free(r);
}

/* Expects @err from loading @r (@nr rows) and the store as it was. */
static void expect_refused(struct __test_metadata *_metadata, int prf, int f,
			   const struct prf_unwind_row *r, __u32 nr, int err,
			   const char *what)
{
	struct prf_unwind_stat st0, st;

	ASSERT_EQ(0, stat_of(prf, f, &st0));
	EXPECT_EQ(err, load(prf, f, r, nr, 0)) TH_LOG("%s", what);
	ASSERT_EQ(0, stat_of(prf, f, &st));
	EXPECT_EQ(st0.nr, st.nr) TH_LOG("%s", what);
	EXPECT_EQ(st0.flags, st.flags) TH_LOG("%s", what);
	EXPECT_EQ(st0.store_files, st.store_files) TH_LOG("%s", what);
	EXPECT_EQ(st0.store_bytes, st.store_bytes) TH_LOG("%s", what);
}

/*
 * Each rule of the rows (uapi), broken in row 1 of 3 (the first row has
 * no predecessor, the check of order is against row 0), refused with
 * EINVAL, and the file's table loaded before it left as it was.
 */
TEST_F(unwind, bad_rows_are_einval_and_change_nothing)
{
	struct prf_unwind_row *good = rows_make(4, 0x100), r[3];
	char path[64];
	int f = file_new(_metadata, path);
	int i;

	ASSERT_NE(NULL, good);
	ASSERT_EQ(0, load(self->fd, f, good, 4, PRF_UNWIND_FRAMEPTR));
	for (i = 0; i < 12; i++) {
		const char *what = "";

		memcpy(r, good, sizeof(r));
		switch (i) {
		case 0: r[1].len = 0; what = "len 0"; break;
		case 1: r[1].start = r[0].start + 8; what = "overlap"; break;
		case 2: r[1].start = 0; what = "out of order"; break;
		case 3: r[1].start = ~0ULL - 4; r[2] = r[1]; what = "wraps"; break;
		case 4: r[1].rules = 3 << 1; what = "RA rule 3"; break;
		case 5: r[1].rules = 3 << 3; what = "FP rule 3"; break;
		case 6: r[1].rules |= 1 << 5; what = "rules bit 5"; break;
		case 7: r[1].ra_off = -4; what = "RA at CFA - 4"; break;
		case 8: r[1].rules = PRF_UNWIND_RULES(0, PRF_UNWIND_AT,
						      PRF_UNWIND_AT);
			r[1].fp_off = 12; what = "FP at CFA + 12"; break;
		case 9: r[1].flags = 2; what = "row flag 2"; break;
		case 10: r[1].pad = 1; what = "pad"; break;
		case 11: r[1].start = r[0].start; what = "same start"; break;
		}
		expect_refused(_metadata, self->fd, f, r, 3, -EINVAL, what);
	}
	/* what is allowed: an RA undefined, an unaligned CFA offset, a stop */
	memcpy(r, good, sizeof(r));
	r[0].rules = PRF_UNWIND_RULES(1, PRF_UNWIND_UNDEF, PRF_UNWIND_UNDEF);
	r[1].cfa_off = -3;
	r[2].flags = PRF_UNWIND_ROW_STOP;
	r[2].start += 100;
	EXPECT_EQ(0, load(self->fd, f, r, 3, 0));
	EXPECT_EQ(0, unload(self->fd, -1));
	close(f);
	unlink(path);
	free(good);
}

/* The load's own fields, the descriptors, the sizes. */
TEST_F(unwind, load_errors_are_exact)
{
	struct prf_unwind_row *r = rows_make(2, 0);
	struct prf_unwind_load ld;
	struct prf_unwind_stat st0, st;
	char path[64];
	int f = file_new(_metadata, path), dir, ro;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, stat_of(self->fd, -1, &st0));
	/* flags, machine */
	EXPECT_EQ(-EINVAL, load(self->fd, f, r, 2, 2));
	ld = (struct prf_unwind_load){ .fd = f, .machine = MACHINE + 1,
				       .nr = 2, .rows = (unsigned long)r };
	EXPECT_EQ(-1, ioctl(self->fd, PRF_SETUNWIND, &ld));
	EXPECT_EQ(EINVAL, errno);
	ld.machine = 0;
	EXPECT_EQ(-1, ioctl(self->fd, PRF_SETUNWIND, &ld));
	EXPECT_EQ(EINVAL, errno);
	/* an unload with more than .fd */
	ld = (struct prf_unwind_load){ .fd = f, .rows = (unsigned long)r };
	EXPECT_EQ(-1, ioctl(self->fd, PRF_SETUNWIND, &ld));
	EXPECT_EQ(EINVAL, errno);
	ld = (struct prf_unwind_load){ .fd = -1, .flags = 1 };
	EXPECT_EQ(-1, ioctl(self->fd, PRF_SETUNWIND, &ld));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, load(self->fd, -1, r, 2, 0));
	/* descriptors */
	EXPECT_EQ(-EBADF, load(self->fd, -2, r, 2, 0));
	EXPECT_EQ(-EBADF, load(self->fd, 9999, r, 2, 0));
	EXPECT_EQ(-EBADF, unload(self->fd, 9999));
	dir = open("/", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);
	EXPECT_EQ(-EINVAL, load(self->fd, dir, r, 2, 0));
	EXPECT_EQ(-EINVAL, unload(self->fd, dir));
	close(dir);
	/* sizes, the rows' memory */
	EXPECT_EQ(-E2BIG, load(self->fd, f, r, PRF_UNWIND_ROWS_MAX + 1, 0));
	EXPECT_EQ(-EFAULT, load(self->fd, f, (void *)8, 2, 0));
	EXPECT_EQ(-EFAULT, load(self->fd, f, NULL, 2, 0));
	/* a read-only prf descriptor may ask, not load */
	ro = prf_open(PRF_ALL, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, load(ro, f, r, 2, 0));
	EXPECT_EQ(-EBADF, unload(ro, -1));
	EXPECT_EQ(0, stat_of(ro, f, &st));
	/* the stat's own */
	EXPECT_EQ(-EBADF, stat_of(self->fd, 9999, &st));
	EXPECT_EQ(-EBADF, stat_of(self->fd, -2, &st));
	memset(&st, 0, sizeof(st));
	st.fd = -1;
	st.pad = 1;
	EXPECT_EQ(-1, ioctl(self->fd, PRF_GETUNWIND, &st));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, stat_of(self->fd, f, &st));
	EXPECT_EQ(0, st.nr);
	EXPECT_EQ(st0.files, st.files);
	EXPECT_EQ(st0.store_files, st.store_files);
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	close(ro);
	close(f);
	unlink(path);
	free(r);
}

/*
 * The store's bound: PRF_UNWIND_BYTES_MAX bytes of rows over every table.
 * Tables of PRF_UNWIND_ROWS_MAX rows fill it; the one that would pass it
 * is ENOSPC and changes nothing; a replacement is counted as the
 * difference (a file's table replaced by a larger one fits while the sum
 * does).
 */
TEST_F(unwind, store_bound_is_enospc)
{
	const __u32 big = PRF_UNWIND_ROWS_MAX;
	struct prf_unwind_row *r = rows_make(big, 0);
	struct prf_unwind_stat st0, st;
	char p[3][64];
	int f[3], i, n;
	__u64 room;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, stat_of(self->fd, -1, &st0));
	room = PRF_UNWIND_BYTES_MAX - st0.store_bytes;
	n = room / (big * ROW);
	ASSERT_GE(n, 2) TH_LOG("the store holds %llu bytes already",
			       (unsigned long long)st0.store_bytes);
	ASSERT_GE(3, n) TH_LOG("the bound is larger than this test assumes");
	for (i = 0; i < n; i++) {
		f[i] = file_new(_metadata, p[i]);
		ASSERT_EQ(0, load(self->fd, f[i], r, big, 0));
	}
	/* the rest of the room, exactly: fits, one row more does not */
	room -= (__u64)n * big * ROW;
	f[n] = file_new(_metadata, p[n]);
	expect_refused(_metadata, self->fd, f[n], r, room / ROW + 1, -ENOSPC,
		       "past the bound");
	if (room / ROW) {
		EXPECT_EQ(0, load(self->fd, f[n], r, room / ROW, 0));
		/* a table replaced: counted by its difference */
		EXPECT_EQ(0, load(self->fd, f[n], r, 1, 0));
		EXPECT_EQ(0, load(self->fd, f[n], r, room / ROW, 0));
		expect_refused(_metadata, self->fd, f[0], r, big + 1, -E2BIG,
			       "over the rows");
	}
	ASSERT_EQ(0, stat_of(self->fd, -1, &st));
	EXPECT_EQ(st0.store_bytes + (__u64)n * big * ROW + room / ROW * ROW,
		  st.store_bytes);
	ASSERT_EQ(0, unload(self->fd, -1));
	ASSERT_EQ(0, stat_of(self->fd, -1, &st));
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	EXPECT_EQ(st0.store_files, st.store_files);
	for (i = 0; i <= n; i++) {
		close(f[i]);
		unlink(p[i]);
	}
	free(r);
}

TEST_HARNESS_MAIN
