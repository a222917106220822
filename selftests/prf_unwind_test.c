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
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
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

/*
 * The vDSO's table: by PRF_UNWIND_VDSO, no file; held, shared, counted and
 * let go as a file's; a file's load or unload leaves it alone.
 */
TEST_F(unwind, the_vdso_has_a_table_of_its_own)
{
	struct prf_unwind_row *r = rows_make(10, 0x400);
	struct prf_unwind_stat st0, st;
	char path[64];
	int f = file_new(_metadata, path), other;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, stat_of(self->fd, PRF_UNWIND_VDSO, &st0));
	EXPECT_EQ(PRF_UNWIND_VDSO, st0.fd);
	EXPECT_EQ(0, st0.nr);
	EXPECT_EQ(-ENOENT, unload(self->fd, PRF_UNWIND_VDSO));
	ASSERT_EQ(0, load(self->fd, PRF_UNWIND_VDSO, r, 10, 0));
	ASSERT_EQ(0, load(self->fd, f, r, 3, 0));
	ASSERT_EQ(0, stat_of(self->fd, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(10, st.nr);
	EXPECT_EQ(PRF_UNWIND_HELD, st.flags);
	EXPECT_EQ(st0.users + 1, st.users);
	EXPECT_EQ(st0.files + 2, st.files);
	EXPECT_EQ(st0.store_bytes + 13 * ROW, st.store_bytes);
	/* another instance sees it, and holds it once it loads it too */
	other = prf_open_clone();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, stat_of(other, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(10, st.nr);
	EXPECT_EQ(0, st.flags);
	/* the file's unload leaves the vDSO's table */
	ASSERT_EQ(0, unload(self->fd, f));
	ASSERT_EQ(0, stat_of(self->fd, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(10, st.nr);
	/* bad rows change nothing */
	r[1].start = 0;
	EXPECT_EQ(-EINVAL, load(self->fd, PRF_UNWIND_VDSO, r, 10, 0));
	ASSERT_EQ(0, stat_of(self->fd, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(10, st.nr);
	r[1].start = 0x410;
	ASSERT_EQ(0, load(self->fd, PRF_UNWIND_VDSO, r, 4,
			  PRF_UNWIND_FRAMEPTR));
	ASSERT_EQ(0, stat_of(other, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(4, st.nr);
	EXPECT_EQ(PRF_UNWIND_FRAMEPTR, st.flags);
	ASSERT_EQ(0, unload(self->fd, PRF_UNWIND_VDSO));
	EXPECT_EQ(-ENOENT, unload(self->fd, PRF_UNWIND_VDSO));
	ASSERT_EQ(0, stat_of(self->fd, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(0, st.nr);
	EXPECT_EQ(st0.files, st.files);
	EXPECT_EQ(st0.store_files, st.store_files);
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	/* an unload of all lets it go too */
	ASSERT_EQ(0, load(self->fd, PRF_UNWIND_VDSO, r, 10, 0));
	ASSERT_EQ(0, unload(self->fd, -1));
	ASSERT_EQ(0, stat_of(self->fd, PRF_UNWIND_VDSO, &st));
	EXPECT_EQ(0, st.nr);
	close(other);
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
	for (i = 0; i < 16; i++) {
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
		case 9: r[1].flags = 4; what = "row flag 4"; break;
		case 10: r[1].pad = 1; what = "pad"; break;
		case 11: r[1].start = r[0].start; what = "same start"; break;
		case 12: r[1].flags = PRF_UNWIND_ROW_STOP | PRF_UNWIND_ROW_SIGNAL;
			what = "stop and signal"; break;
		/* a signal row's rules and offsets are 0 */
		case 13: r[1].flags = PRF_UNWIND_ROW_SIGNAL; r[1].cfa_off = 0;
			r[1].ra_off = 0; what = "signal with rules"; break;
		case 14: r[1].flags = PRF_UNWIND_ROW_SIGNAL; r[1].rules = 0;
			r[1].ra_off = 0; r[1].fp_off = 0; r[1].cfa_off = 8;
			what = "signal with a CFA offset"; break;
		case 15: r[1].flags = PRF_UNWIND_ROW_SIGNAL; r[1].rules = 0;
			r[1].cfa_off = 0; r[1].fp_off = 0; r[1].ra_off = -8;
			what = "signal with an RA offset"; break;
		}
		expect_refused(_metadata, self->fd, f, r, 3, -EINVAL, what);
	}
	/*
	 * what is allowed: an RA undefined, an unaligned CFA offset, a
	 * signal trampoline, a stop
	 */
	memcpy(r, good, sizeof(r));
	r[0].rules = PRF_UNWIND_RULES(1, PRF_UNWIND_UNDEF, PRF_UNWIND_UNDEF);
	r[1] = (struct prf_unwind_row){ .start = r[1].start, .len = r[1].len,
					.flags = PRF_UNWIND_ROW_SIGNAL };
	r[2].flags = PRF_UNWIND_ROW_STOP;
	r[2].start += 100;
	EXPECT_EQ(0, load(self->fd, f, r, 3, 0));
	r[1] = good[1];
	r[1].cfa_off = -3;
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
	EXPECT_EQ(-EBADF, load(self->fd, -3, r, 2, 0));
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
	EXPECT_EQ(-EBADF, stat_of(self->fd, -3, &st));
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

/* ---- chains walked by the tables (PRF_UOBJ_CFI) -------------------------- */

#if defined(__x86_64__) || defined(__aarch64__)
#define CFI_TEST 1
/*
 * A chain of known frames without frame records: cfi_top() calls
 * cfi_mid(), which zeroes the frame pointer (so a frame pointer walk from
 * below it finds nothing) and calls cfi_leaf(), which spins, or, given a
 * first argument not 0 (which top and mid pass on untouched), makes
 * system calls (getppid) in a loop: pairs.  The labels
 * between their instructions bound the rows: what each instruction did to
 * the stack, written by hand as a compiler's CFI would say it.
 */
#define CFI_GLOBALS							\
	"	.globl cfi_leaf, cfi_leaf_end, cfi_mid, cfi_mid_body\n"	\
	"	.globl cfi_mid_ret, cfi_mid_end, cfi_top, cfi_top_pushed\n" \
	"	.globl cfi_top_body, cfi_top_popping, cfi_top_popped\n"	\
	"	.globl cfi_top_end\n"					\
	"	.hidden cfi_leaf, cfi_leaf_end, cfi_mid, cfi_mid_body\n"	\
	"	.hidden cfi_mid_ret, cfi_mid_end, cfi_top, cfi_top_pushed\n" \
	"	.hidden cfi_top_body, cfi_top_popping, cfi_top_popped\n"	\
	"	.hidden cfi_top_end\n"
#endif

#if defined(__aarch64__)
__asm__(
	"	.text\n"
	"	.p2align 6\n"
	CFI_GLOBALS
	"cfi_leaf:\n"
	"	cbnz x0, 2f\n"
	"	mov x9, #16960\n"
	"	movk x9, #15, lsl #16\n"
	"1:	subs x9, x9, #1\n"
	"	b.ne 1b\n"
	"	ret\n"
	"2:	mov x10, #1000\n"
	"3:	mov x8, #173\n"		/* getppid */
	"	svc #0\n"
	"	subs x10, x10, #1\n"
	"	b.ne 3b\n"
	"	ret\n"
	"cfi_leaf_end:\n"
	"	.p2align 6\n"
	"cfi_mid:\n"
	"	stp x29, x30, [sp, #-32]!\n"
	"cfi_mid_body:\n"
	"	mov x29, #0\n"
	"	bl cfi_leaf\n"
	"	ldp x29, x30, [sp], #32\n"
	"cfi_mid_ret:\n"
	"	ret\n"
	"cfi_mid_end:\n"
	"	.p2align 6\n"
	"cfi_top:\n"
	"	sub sp, sp, #48\n"
	"cfi_top_pushed:\n"
	"	str x30, [sp, #40]\n"
	"cfi_top_body:\n"
	"	bl cfi_mid\n"
	"	ldr x30, [sp, #40]\n"
	"cfi_top_popping:\n"
	"	add sp, sp, #48\n"
	"cfi_top_popped:\n"
	"	ret\n"
	"cfi_top_end:\n");
#endif

#if defined(__x86_64__)
/* x86-64: cfi_top() zeroes rbp itself, saved first */
__asm__(
	"	.text\n"
	"	.p2align 6\n"
	CFI_GLOBALS
	"cfi_leaf:\n"
	"	testq %rdi, %rdi\n"
	"	jnz 2f\n"
	"	movl $1000000, %ecx\n"
	"1:	decl %ecx\n"
	"	jnz 1b\n"
	"	ret\n"
	"2:	movl $1000, %r8d\n"
	"3:	movl $110, %eax\n"		/* getppid */
	"	syscall\n"
	"	decl %r8d\n"
	"	jnz 3b\n"
	"	ret\n"
	"cfi_leaf_end:\n"
	"	.p2align 6\n"
	"cfi_mid:\n"
	"	subq $40, %rsp\n"
	"cfi_mid_body:\n"
	"	call cfi_leaf\n"
	"	addq $40, %rsp\n"
	"cfi_mid_ret:\n"
	"	ret\n"
	"cfi_mid_end:\n"
	"	.p2align 6\n"
	"cfi_top:\n"
	"	pushq %rbp\n"
	"cfi_top_pushed:\n"
	"	xorl %ebp, %ebp\n"
	"	subq $8, %rsp\n"
	"cfi_top_body:\n"
	"	call cfi_mid\n"
	"	addq $8, %rsp\n"
	"cfi_top_popping:\n"
	"	popq %rbp\n"
	"cfi_top_popped:\n"
	"	ret\n"
	"cfi_top_end:\n");
#endif

#ifdef CFI_TEST
extern char cfi_leaf[], cfi_leaf_end[], cfi_mid[], cfi_mid_body[];
extern char cfi_mid_ret[], cfi_mid_end[], cfi_top[], cfi_top_pushed[];
extern char cfi_top_body[], cfi_top_popping[], cfi_top_popped[];
extern char cfi_top_end[];

#define SP	0
#define FPR	PRF_UNWIND_CFA_FP
#define AT	PRF_UNWIND_AT
#define SAME	PRF_UNWIND_SAME

static void row_set(struct prf_unwind_row *r, const char *from,
		    const char *to, int cfa, int ra, int fp)
{
	r->start = prf_code_offset((unsigned long)from);
	r->len = to - from;
	r->cfa_off = cfa;
	r->ra_off = ra == AT ? -8 : 0;
	r->fp_off = fp == AT ? -16 : 0;
	r->rules = PRF_UNWIND_RULES(SP, ra, fp);
}

/* The rows of the three functions; 9 of them. */
static int cfi_rows(struct prf_unwind_row *r)
{
	memset(r, 0, 9 * sizeof(*r));
#if defined(__aarch64__)
	/* a leaf keeps its return in x30; stp saves x29, x30 at the CFA - 32 */
	row_set(&r[0], cfi_leaf, cfi_leaf_end, 0, SAME, SAME);
	row_set(&r[1], cfi_mid, cfi_mid_body, 0, SAME, SAME);
	row_set(&r[2], cfi_mid_body, cfi_mid_ret, 32, AT, AT);
	r[2].ra_off = -24;
	r[2].fp_off = -32;
	row_set(&r[3], cfi_mid_ret, cfi_mid_end, 0, SAME, SAME);
	row_set(&r[4], cfi_top, cfi_top_pushed, 0, SAME, SAME);
	row_set(&r[5], cfi_top_pushed, cfi_top_body, 48, SAME, SAME);
	row_set(&r[6], cfi_top_body, cfi_top_popping, 48, AT, SAME);
	row_set(&r[7], cfi_top_popping, cfi_top_popped, 48, SAME, SAME);
	row_set(&r[8], cfi_top_popped, cfi_top_end, 0, SAME, SAME);
	return 9;
#endif
	row_set(&r[0], cfi_leaf, cfi_leaf_end, 8, AT, SAME);
	row_set(&r[1], cfi_mid, cfi_mid_body, 8, AT, SAME);
	row_set(&r[2], cfi_mid_body, cfi_mid_ret, 48, AT, SAME);
	row_set(&r[3], cfi_mid_ret, cfi_mid_end, 8, AT, SAME);
	row_set(&r[4], cfi_top, cfi_top_pushed, 8, AT, SAME);
	row_set(&r[5], cfi_top_pushed, cfi_top_body, 16, AT, AT);
	row_set(&r[6], cfi_top_body, cfi_top_popping, 24, AT, AT);
	row_set(&r[7], cfi_top_popping, cfi_top_popped, 16, AT, AT);
	row_set(&r[8], cfi_top_popped, cfi_top_end, 8, AT, SAME);
	return 9;
}

#define CHILD_SPAN	512	/* bytes of cfi_child() its call lies in */

static bool cfi_signals;	/* cfi_spin()'s child takes signals */
static void cfi_child_signals(void);

/*
 * cfi_top(@sys) over and over for @s seconds (@sys: system calls, else a
 * spin); built with frame records.
 */
__attribute__((noinline)) static void cfi_child(double s, long sys)
{
	double end = prf_now() + s;

	while (prf_now() < end)
		((void (*)(long))cfi_top)(sys);
	__asm__ volatile("" ::: "memory");
}

struct cfi_chains {
	struct prf_uchains h;
	void *c;
	struct prf_uobj_file *f;
};

static struct prf_uchain *cfi_chain(const struct cfi_chains *u, __u32 i)
{
	return u->c + (size_t)i * PRF_UCHAIN_RECORD_SIZE(u->h.depth);
}

/*
 * A child in cfi_child(), sampled at 1 kHz with chains by the tables
 * (depth 16), until the instance has the samples of the child a quiet
 * guest takes in @s seconds (a guest on a busy host takes them slowly; 20 s
 * at most, within the harness's 30); the chains read into @u.  The child
 * is the guest's one busy user task: its samples are the user ones, or,
 * when it makes system calls (@sys), the busy ones.  Busy samples alone
 * would not do for a spin: on the debug kernel the fork and the kernel's
 * own threads can take most of them, and leave the child a few.
 */
static void cfi_spin(struct __test_metadata *_metadata, int fd, double s,
		     long sys, bool pmu)
{
	struct prf_uobj_conf c = {
		.capacity = 4096, .files = 64, .depth = 16,
		.flags = PRF_UOBJ_CHAINS | PRF_UOBJ_CFI,
	};
	struct prf_info info;
	double end;
	pid_t pid;
	int st;

	ASSERT_EQ(0, prf_load_kernel_text(fd));
	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	if (pmu)	/* cycles, about the rate: sampled in NMI where it can */
		ASSERT_EQ(0, prf_set_source(fd, PRF_SOURCE_PMU,
					    PRF_EVENT_CYCLES, 0));
	ASSERT_EQ(0, ioctl(fd, PRF_SETUOBJS, &c));
	ASSERT_EQ(0, prf_on(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (cfi_signals)
			cfi_child_signals();
		cfi_child(120, sys);
		_exit(0);
	}
	end = prf_now() + 20;
	do {
		prf_sleep(0.1);
		ASSERT_EQ(0, prf_info(fd, &info));
	} while ((sys ? info.ticks_sampled - info.ticks_idle : info.ticks_user) <
		 1000 * s && prf_now() < end);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, prf_off(fd));
}

static void cfi_run_on(struct __test_metadata *_metadata, int fd, double s,
		       bool pmu, struct cfi_chains *u)
{
	cfi_spin(_metadata, fd, s, 0, pmu);
	memset(u, 0, sizeof(*u));
	ASSERT_EQ(0, ioctl(fd, PRF_GETUCHAINS, &u->h));
	u->h.nr = u->h.used + 16;
	u->h.nfiles = u->h.files_used + 16;
	u->c = calloc(u->h.nr, PRF_UCHAIN_RECORD_SIZE(u->h.depth));
	u->f = calloc(u->h.nfiles, sizeof(*u->f));
	ASSERT_NE(NULL, u->c);
	ASSERT_NE(NULL, u->f);
	u->h.chains = (unsigned long)u->c;
	u->h.files = (unsigned long)u->f;
	ASSERT_EQ(0, ioctl(fd, PRF_GETUCHAINS, &u->h));
}

static void cfi_run(struct __test_metadata *_metadata, int fd, double s,
		    struct cfi_chains *u)
{
	cfi_run_on(_metadata, fd, s, false, u);
}

/* @f is in [from, to) of this program (@ret: a return address, less 1). */
static bool cfi_in(const struct cfi_chains *u, const struct prf_uframe *f,
		   const void *from, __u64 len, bool ret)
{
	char exe[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	__u64 at = f->offset - ret, lo = prf_code_offset((unsigned long)from);

	if (n <= 0 || f->file >= u->h.nfiles)
		return false;
	exe[n] = '\0';
	return !strcmp(u->f[f->file].path, exe) && at >= lo && at < lo + len;
}

/*
 * Counts the samples spinning in cfi_leaf(), and of them those whose
 * chain is leaf, mid, top, child then @more frames at least (or exactly
 * @more when @exact), with the truncation @trunc; @bad those whose chain
 * shows a frame outside the true one.
 */
static void cfi_count(const struct cfi_chains *u, __u32 more, bool exact,
		      bool trunc, __u64 *leaf, __u64 *good, __u64 *bad)
{
	__u32 i, want = 4 + more;

	*leaf = *good = *bad = 0;
	for (i = 0; i < u->h.nr; i++) {
		struct prf_uchain *c = cfi_chain(u, i);
		struct prf_uframe *f = (struct prf_uframe *)(c + 1);
		bool ok;

		if (!cfi_in(u, &f[0], cfi_leaf, cfi_leaf_end - cfi_leaf, 0))
			continue;
		*leaf += c->count;
		ok = (c->nr_frames < 2 ||
		      cfi_in(u, &f[1], cfi_mid, cfi_mid_end - cfi_mid, 1)) &&
		     (c->nr_frames < 3 ||
		      cfi_in(u, &f[2], cfi_top, cfi_top_end - cfi_top, 1)) &&
		     (c->nr_frames < 4 ||
		      cfi_in(u, &f[3], cfi_child, CHILD_SPAN, 1));
		if (!ok)
			*bad += c->count;
		else if ((exact ? c->nr_frames == want : c->nr_frames >= want) &&
			 !!(c->flags & PRF_UCHAIN_TRUNCATED) == trunc)
			*good += c->count;
	}
}

static void cfi_done(struct cfi_chains *u)
{
	free(u->c);
	free(u->f);
}

/*
 * The chains of @u: at least 100 samples in the leaf, none astray, and
 * 95 % of them leaf, mid, top, child and one frame more at least, marked
 * truncated (where the walk met code of a file with no table).
 */
static void cfi_expect_whole(struct __test_metadata *_metadata, const struct cfi_chains *u)
{
	__u64 leaf, good, bad;

	cfi_count(u, 1, false, true, &leaf, &good, &bad);
	EXPECT_LE(100, leaf);
	EXPECT_EQ(0, bad);
	EXPECT_LE(leaf * 95 / 100, good) TH_LOG("%llu of %llu",
		(unsigned long long)good, (unsigned long long)leaf);
}
#endif /* CFI_TEST */

/*
 * The tables and the frame records together: leaf, mid and top by the
 * rows, cfi_child() (no row) by its frame record, and on through this
 * program's frame records (PRF_UNWIND_FRAMEPTR) until code of a file
 * with no table (libc): at least 5 frames, every one of the true chain.
 */
TEST_F(unwind, chains_by_the_rows_then_the_frame_records)
{
#ifdef CFI_TEST
	struct prf_unwind_row r[9];
	struct cfi_chains u;
	int exe = open("/proc/self/exe", O_RDONLY);

	ASSERT_LE(0, exe);
	ASSERT_EQ(0, load(self->fd, exe, r, cfi_rows(r), PRF_UNWIND_FRAMEPTR));
	cfi_run(_metadata, self->fd, 1.0, &u);
	cfi_expect_whole(_metadata, &u);
	cfi_done(&u);
	EXPECT_EQ(0, unload(self->fd, -1));
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/*
 * The same with the 9 rows among many: 256 of 1 byte every 2 in the ELF
 * header, and as many as the file has bytes past its end, 1 byte every 2;
 * none of them code.  So the lookup's index has buckets of 16 bytes, the
 * least, and rows of the three functions cross their edges: a lookup
 * that missed a row at a bucket's edge would end the chain there.
 */
TEST_F(unwind, chains_by_the_rows_among_thousands)
{
#ifdef CFI_TEST
	int exe = open("/proc/self/exe", O_RDONLY);
	struct prf_unwind_row *r;
	struct prf_unwind_stat st;
	struct cfi_chains u;
	__u32 i, n, nr = 0, cross = 0;
	struct stat sb;
	__u64 end;

	ASSERT_LE(0, exe);
	ASSERT_EQ(0, fstat(exe, &sb));
	n = sb.st_size < PRF_UNWIND_ROWS_MAX / 2 ? sb.st_size :
						   PRF_UNWIND_ROWS_MAX / 2;
	r = calloc(256 + 9 + n, sizeof(*r));
	ASSERT_NE(NULL, r);
	for (i = 0; i < 256; i++, nr++) {
		r[nr] = (struct prf_unwind_row){ .start = 2 * i, .len = 1,
			.cfa_off = 16, .ra_off = -8,
			.rules = PRF_UNWIND_RULES(0, AT, SAME) };
	}
	nr += cfi_rows(&r[nr]);
	ASSERT_LE(0x200, r[256].start);
	for (i = 256; i < nr; i++) {
		end = r[i].start + r[i].len - 1;
		cross += (r[i].start >> 4) != (end >> 4);
	}
	ASSERT_LT(0, cross) TH_LOG("no row of the functions crosses 16 bytes");
	end = (sb.st_size + 4095) & ~4095ULL;
	for (i = 0; i < n; i++, nr++) {
		r[nr] = r[0];
		r[nr].start = end + 2 * i;
	}
	ASSERT_EQ(0, load(self->fd, exe, r, nr, PRF_UNWIND_FRAMEPTR));
	ASSERT_EQ(0, stat_of(self->fd, exe, &st));
	EXPECT_EQ(nr, st.nr);
	cfi_run(_metadata, self->fd, 1.0, &u);
	cfi_expect_whole(_metadata, &u);
	cfi_done(&u);
	EXPECT_EQ(0, unload(self->fd, -1));
	close(exe);
	free(r);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/*
 * The same from the PMU source, whose samples are taken in NMI where the
 * PMU interrupts so (arm64's pseudo-NMI kernel, selftests/vm/pnmi): the
 * copy made in NMI.  Skipped where no PMU samples cycles (TCG's x86).
 */
TEST_F(unwind, chains_from_the_pmu)
{
#ifdef CFI_TEST
	struct prf_unwind_row r[9];
	struct cfi_chains u;
	struct prf_info info;
	int exe = open("/proc/self/exe", O_RDONLY);
	__u32 mask;

	ASSERT_EQ(0, prf_get_events(self->fd, &mask));
	if (!(mask & (1U << PRF_EVENT_CYCLES)))
		SKIP(return, "no PMU that samples cycles here");
	ASSERT_LE(0, exe);
	ASSERT_EQ(0, load(self->fd, exe, r, cfi_rows(r), PRF_UNWIND_FRAMEPTR));
	cfi_run_on(_metadata, self->fd, 1.0, true, &u);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	TH_LOG("%llu of %llu samples in NMI",
	       (unsigned long long)info.samples_nmi,
	       (unsigned long long)info.ticks_sampled);
	cfi_expect_whole(_metadata, &u);
	cfi_done(&u);
	EXPECT_EQ(0, unload(self->fd, -1));
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/*
 * Without PRF_UNWIND_FRAMEPTR the walk stops where no row covers the code
 * (cfi_child()): exactly leaf, mid, top, child, truncated.  Without a
 * table: the PC alone, truncated.
 */
TEST_F(unwind, chains_stop_where_no_row_is)
{
#ifdef CFI_TEST
	struct prf_unwind_row r[9];
	struct cfi_chains u;
	__u64 leaf, good, bad;
	int exe = open("/proc/self/exe", O_RDONLY);

	ASSERT_LE(0, exe);
	ASSERT_EQ(0, load(self->fd, exe, r, cfi_rows(r), 0));
	cfi_run(_metadata, self->fd, 0.5, &u);
	cfi_count(&u, 0, true, true, &leaf, &good, &bad);
	EXPECT_LE(50, leaf);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(leaf, good);
	cfi_done(&u);
	EXPECT_EQ(0, unload(self->fd, -1));

	cfi_run(_metadata, self->fd, 0.5, &u);
	cfi_count(&u, 0, true, true, &leaf, &good, &bad);
	EXPECT_LE(50, leaf);
	EXPECT_EQ(0, good);
	EXPECT_EQ(0, bad);
	for (good = 0, r[0].start = 0; r[0].start < u.h.nr; r[0].start++) {
		struct prf_uchain *c = cfi_chain(&u, r[0].start);

		if (cfi_in(&u, (struct prf_uframe *)(c + 1), cfi_leaf,
			   cfi_leaf_end - cfi_leaf, 0) && c->nr_frames == 1 &&
		    (c->flags & PRF_UCHAIN_TRUNCATED))
			good += c->count;
	}
	EXPECT_EQ(leaf, good);
	cfi_done(&u);
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

#ifdef CFI_TEST
/*
 * A signal handler and its return trampoline, installed with SA_RESTORER
 * (so the trampoline is this program's, at a known place): the handler
 * calls cfi_top(0), which spins in cfi_leaf(), then cfi_rearm(); the
 * trampoline makes rt_sigreturn, after a nop that its row covers too (the
 * handler's return address less one lies there).
 */
#define CFI_SIG_GLOBALS							\
	"	.globl cfi_sig, cfi_sig_body, cfi_sig_ret, cfi_sig_end\n"	\
	"	.globl cfi_tramp_nop, cfi_tramp, cfi_tramp_end\n"		\
	"	.hidden cfi_sig, cfi_sig_body, cfi_sig_ret, cfi_sig_end\n"	\
	"	.hidden cfi_tramp_nop, cfi_tramp, cfi_tramp_end\n"
#if defined(__aarch64__)
__asm__(
	"	.text\n"
	"	.p2align 6\n"
	CFI_SIG_GLOBALS
	"cfi_sig:\n"
	"	stp x29, x30, [sp, #-16]!\n"
	"cfi_sig_body:\n"
	"	mov x0, #0\n"
	"	bl cfi_top\n"
	"	bl cfi_rearm\n"
	"	ldp x29, x30, [sp], #16\n"
	"cfi_sig_ret:\n"
	"	ret\n"
	"cfi_sig_end:\n"
	"	.p2align 6\n"
	"cfi_tramp_nop:\n"
	"	nop\n"
	"cfi_tramp:\n"
	"	mov x8, #139\n"		/* rt_sigreturn */
	"	svc #0\n"
	"cfi_tramp_end:\n");
#else
__asm__(
	"	.text\n"
	"	.p2align 6\n"
	CFI_SIG_GLOBALS
	"cfi_sig:\n"
	"	subq $8, %rsp\n"
	"cfi_sig_body:\n"
	"	xorl %edi, %edi\n"
	"	call cfi_top\n"
	"	call cfi_rearm\n"
	"	addq $8, %rsp\n"
	"cfi_sig_ret:\n"
	"	ret\n"
	"cfi_sig_end:\n"
	"	.p2align 6\n"
	"cfi_tramp_nop:\n"
	"	nop\n"
	"cfi_tramp:\n"
	"	movl $15, %eax\n"	/* rt_sigreturn */
	"	syscall\n"
	"cfi_tramp_end:\n");
#endif
extern char cfi_sig[], cfi_sig_body[], cfi_sig_ret[], cfi_sig_end[];
extern char cfi_tramp_nop[], cfi_tramp[], cfi_tramp_end[];

/* The 9 rows of cfi_rows(), then the handler's 3 and the trampoline's. */
static int cfi_sig_rows(struct prf_unwind_row *r)
{
	int n = cfi_rows(r);

	memset(&r[n], 0, 4 * sizeof(*r));
#if defined(__aarch64__)
	row_set(&r[n], cfi_sig, cfi_sig_body, 0, SAME, SAME);
	row_set(&r[n + 1], cfi_sig_body, cfi_sig_ret, 16, AT, AT);
	r[n + 1].ra_off = -8;
	r[n + 1].fp_off = -16;
	row_set(&r[n + 2], cfi_sig_ret, cfi_sig_end, 0, SAME, SAME);
#else
	row_set(&r[n], cfi_sig, cfi_sig_body, 8, AT, SAME);
	row_set(&r[n + 1], cfi_sig_body, cfi_sig_ret, 16, AT, SAME);
	row_set(&r[n + 2], cfi_sig_ret, cfi_sig_end, 8, AT, SAME);
#endif
	r[n + 3].start = prf_code_offset((unsigned long)cfi_tramp_nop);
	r[n + 3].len = cfi_tramp_end - cfi_tramp_nop;
	r[n + 3].flags = PRF_UNWIND_ROW_SIGNAL;
	return n + 4;
}

/* The kernel's struct sigaction (rt_sigaction(2)) of x86-64 and arm64. */
struct cfi_ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	__u64 mask;
};

#define CFI_SA_RESTORER	0x04000000

/*
 * SIGPROF once, after 5 ms more of the process's CPU time: the handler
 * arms it again as it leaves, so that the interrupted code runs on
 * between two signals however long the handler spins.
 */
__attribute__((used)) void cfi_rearm(void);
__attribute__((used)) void cfi_rearm(void)
{
	struct itimerval it = { .it_value = { 0, 5000 } };

	setitimer(ITIMER_PROF, &it, NULL);
}

/*
 * The child of cfi_spin() with signals: SIGPROF (cfi_rearm()), handled
 * by cfi_sig(), returning through cfi_tramp.
 */
static void cfi_child_signals(void)
{
	struct cfi_ksigaction sa = {
		.handler = (void (*)(int))cfi_sig,
		.flags = CFI_SA_RESTORER,
		.restorer = (void (*)(void))cfi_tramp,
	};

	if (syscall(SYS_rt_sigaction, SIGPROF, &sa, NULL, 8))
		_exit(1);
	cfi_rearm();
}

/*
 * Frame @i of chain @c, the code a signal interrupted in cfi_child() (a
 * PC + 1), and every frame after it: 1 when they are the true chain (leaf,
 * mid, top, child in that order from wherever it starts, then anything
 * past child, or the end); 0 when frame @i is none of the four (the C
 * library's code cfi_child() calls, in this program when it is static);
 * -1 when a frame after it is astray.
 */
static int cfi_tail(const struct cfi_chains *u, const struct prf_uchain *c,
		    __u32 i)
{
	const struct prf_uframe *f = (const struct prf_uframe *)(c + 1);
	const struct { const char *from; __u64 len; } fn[4] = {
		{ cfi_leaf, cfi_leaf_end - cfi_leaf },
		{ cfi_mid, cfi_mid_end - cfi_mid },
		{ cfi_top, cfi_top_end - cfi_top },
		{ (const char *)cfi_child, CHILD_SPAN },
	};
	__u32 k;

	for (k = 0; k < 4; k++)
		if (cfi_in(u, &f[i], fn[k].from, fn[k].len, 1))
			break;
	if (k == 4)
		return 0;
	for (i++, k++; k < 4 && i < c->nr_frames; i++, k++)
		if (!cfi_in(u, &f[i], fn[k].from, fn[k].len, 1))
			return -1;
	return 1;
}
#endif

/*
 * Through a signal frame (PRF_UNWIND_ROW_SIGNAL): a sample spinning in a
 * signal handler's callee has the chain leaf, mid, top, handler, the
 * trampoline (its first instruction + 1), then the interrupted code (its
 * PC + 1) and its callers, none astray, in 95 % of the handler's samples;
 * with the trampoline's row a stop instead, the chain ends there,
 * truncated, its last frame the return address into the trampoline.
 */
TEST_F(unwind, chains_go_through_a_signal_frame)
{
#ifdef CFI_TEST
	struct prf_unwind_row r[13];
	__u64 inh = 0, whole = 0, bad = 0, stopped = 0, short4 = 0, short5 = 0;
	struct cfi_chains u;
	int exe = open("/proc/self/exe", O_RDONLY), pass, n;
	bool astray;
	__u32 i;

	ASSERT_LE(0, exe);
	n = cfi_sig_rows(r);
	for (pass = 0; pass < 2; pass++) {
		if (pass)
			r[n - 1].flags = PRF_UNWIND_ROW_STOP;
		ASSERT_EQ(0, load(self->fd, exe, r, n, PRF_UNWIND_FRAMEPTR));
		cfi_signals = true;
		cfi_run(_metadata, self->fd, 1.0, &u);
		cfi_signals = false;
		for (i = 0; i < u.h.nr; i++) {
			struct prf_uchain *c = cfi_chain(&u, i);
			struct prf_uframe *f = (struct prf_uframe *)(c + 1);

			/* a sample in the handler's callee */
			if (c->nr_frames < 4 ||
			    !cfi_in(&u, &f[0], cfi_leaf, cfi_leaf_end - cfi_leaf, 0) ||
			    !cfi_in(&u, &f[3], cfi_sig, cfi_sig_end - cfi_sig, 1))
				continue;
			/* the trampoline's start + 1; the return address without */
			astray = !cfi_in(&u, &f[1], cfi_mid, cfi_mid_end - cfi_mid, 1) ||
				 !cfi_in(&u, &f[2], cfi_top, cfi_top_end - cfi_top, 1) ||
				 (c->nr_frames > 4 && !cfi_in(&u, &f[4], cfi_tramp, 1, !pass)) ||
				 (c->nr_frames > 5 && cfi_tail(&u, c, 5) < 0);
			/*
			 * interrupted in the C library (prf_now()'s clock, the
			 * vDSO: no rows here): not judged
			 */
			if (!astray && c->nr_frames > 5 && !cfi_tail(&u, c, 5))
				continue;
			inh += c->count;
			if (astray)
				bad += c->count;
			else if (!pass && c->nr_frames >= 6)
				whole += c->count;
			else if (pass && c->nr_frames == 5 &&
				 (c->flags & PRF_UCHAIN_TRUNCATED))
				stopped += c->count;
			else if (c->nr_frames == 4)
				short4 += c->count;
			else
				short5 += c->count;
		}
		cfi_done(&u);
		EXPECT_LE(50, inh);
		EXPECT_EQ(0, bad);
		if (!pass) {
			EXPECT_LE(inh * 95 / 100, whole)
				TH_LOG("%llu of %llu; %llu stopped at the handler, %llu at the trampoline",
				       (unsigned long long)whole, (unsigned long long)inh,
				       (unsigned long long)short4, (unsigned long long)short5);
		} else {
			EXPECT_EQ(inh, stopped);
		}
		inh = bad = whole = short4 = short5 = 0;
	}
	EXPECT_EQ(0, unload(self->fd, -1));
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/*
 * Pairs: a kernel stack of a system call made from cfi_leaf() joined to
 * the user chain of where it entered the kernel, walked by the rows from
 * the copy taken by the sampling interrupt of a kernel-mode sample:
 * leaf, mid, top, child then the frame records, none astray.
 */
TEST_F(unwind, pairs_by_the_rows)
{
#ifdef CFI_TEST
	struct prf_stack_conf sc = { .depth = 8, .capacity = 1024 };
	struct prf_unwind_row r[9];
	struct prf_upairs q;
	struct cfi_chains u;
	__u64 leaf = 0, good = 0, bad = 0;
	size_t size;
	void *buf;
	__u32 i;
	int exe = open("/proc/self/exe", O_RDONLY);

	ASSERT_LE(0, exe);
	ASSERT_EQ(0, load(self->fd, exe, r, cfi_rows(r), PRF_UNWIND_FRAMEPTR));
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETSTACKS, &sc));
	cfi_spin(_metadata, self->fd, 1.0, 1, false);
	memset(&q, 0, sizeof(q));
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETUPAIRS, &q));
	q.nr = q.used + 16;
	q.nfiles = q.files_used + 16;
	size = PRF_UPAIR_RECORD_SIZE(q.depth, q.udepth);
	buf = calloc(q.nr, size);
	memset(&u, 0, sizeof(u));
	u.f = calloc(q.nfiles, sizeof(*u.f));
	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, u.f);
	q.pairs = (unsigned long)buf;
	q.files = (unsigned long)u.f;
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETUPAIRS, &q));
	u.h.nfiles = q.nfiles;
	for (i = 0; i < q.nr; i++) {
		struct prf_upair *p = buf + i * size;
		struct prf_uframe *f = (void *)(p + 1) + 8 * q.depth;

		if (!cfi_in(&u, &f[0], cfi_leaf, cfi_leaf_end - cfi_leaf, 0))
			continue;
		leaf += p->count;
		if ((p->nr_frames >= 2 &&
		     !cfi_in(&u, &f[1], cfi_mid, cfi_mid_end - cfi_mid, 1)) ||
		    (p->nr_frames >= 3 &&
		     !cfi_in(&u, &f[2], cfi_top, cfi_top_end - cfi_top, 1)) ||
		    (p->nr_frames >= 4 &&
		     !cfi_in(&u, &f[3], cfi_child, CHILD_SPAN, 1)))
			bad += p->count;
		else if (p->nr_frames >= 5)
			good += p->count;
	}
	EXPECT_LE(50, leaf);
	EXPECT_EQ(0, bad);
	EXPECT_LE(leaf * 95 / 100, good) TH_LOG("%llu of %llu",
		(unsigned long long)good, (unsigned long long)leaf);
	free(buf);
	free(u.f);
	EXPECT_EQ(0, unload(self->fd, -1));
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/* This program's executable mapping: its file offsets [*lo, *hi). */
static void exec_range(struct __test_metadata *_metadata, __u64 *lo,
		       __u64 *hi)
{
	unsigned long a, b, foff;
	char line[512], perm[8], path[256], exe[256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *m = fopen("/proc/self/maps", "r");

	ASSERT_LT(0, n);
	exe[n] = '\0';
	ASSERT_NE(NULL, m);
	*lo = *hi = 0;
	while (fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &a, &b, perm,
			   &foff, path) == 5 && perm[2] == 'x' &&
		    !strcmp(path, exe)) {
			*lo = foff;
			*hi = foff + (b - a);
		}
	fclose(m);
	ASSERT_LT(*lo, *hi);
}

/*
 * Hostile tables: rows of the right form and random rules over all of
 * this program's code (CFAs off either register by up to a page, saves
 * anywhere near them, stops, signal frames, frame records or not).  The
 * walk must stay in its copy and its depth whatever they say: every chain
 * read back has 1 to depth frames, and the kernel (the debug kernel's
 * KASAN, lockdep, kmemleak) reports nothing.  What such chains show is
 * not checked: the tables lie.
 */
TEST_F(unwind, hostile_rows_bound_the_walk)
{
#ifdef CFI_TEST
	struct prf_unwind_row *r;
	struct cfi_chains u;
	__u64 lo, hi, at, total = 0;
	int exe = open("/proc/self/exe", O_RDONLY), round;
	__u32 n, i;

	ASSERT_LE(0, exe);
	exec_range(_metadata, &lo, &hi);
	r = calloc(hi - lo, sizeof(*r));
	ASSERT_NE(NULL, r);
	for (round = 0; round < 4; round++) {
		srandom(round + 1);
		for (n = 0, at = lo; at < hi; n++) {
			r[n].start = at;
			r[n].len = 1 + random() % 64;
			if (at + r[n].len > hi)
				r[n].len = hi - at;
			at += r[n].len;
			r[n].cfa_off = (int)(random() % 4200) - 64;
			r[n].ra_off = 8 * ((int)(random() % 1024) - 512);
			r[n].fp_off = 8 * ((int)(random() % 1024) - 512);
			r[n].rules = PRF_UNWIND_RULES(random() % 2,
						      random() % 3,
						      random() % 3);
			switch (random() % 16) {
			case 0:
				r[n].flags = PRF_UNWIND_ROW_STOP;
				break;
			case 1:		/* a signal frame read anywhere */
				r[n].flags = PRF_UNWIND_ROW_SIGNAL;
				r[n].cfa_off = r[n].ra_off = r[n].fp_off = 0;
				r[n].rules = 0;
				break;
			default:
				r[n].flags = 0;
			}
		}
		ASSERT_EQ(0, load(self->fd, exe, r, n,
				  round % 2 ? PRF_UNWIND_FRAMEPTR : 0));
		cfi_run(_metadata, self->fd, 0.3, &u);
		for (i = 0; i < u.h.nr; i++) {
			struct prf_uchain *c = cfi_chain(&u, i);

			EXPECT_LE(1, c->nr_frames);
			EXPECT_GE(u.h.depth, c->nr_frames);
			total += c->count;
		}
		cfi_done(&u);
	}
	EXPECT_LT(0, total);
	EXPECT_EQ(0, unload(self->fd, -1));
	free(r);
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/*
 * Tables replaced and let go while the worker walks with them: a process
 * loads the program's rows from two private instances in turn, replaces
 * them (with and without PRF_UNWIND_FRAMEPTR), and lets them go, over and
 * over, while the chain child is sampled.  Every chain stays whole or
 * truncated, never astray (the rows are true whenever there are any), and
 * the store is as it was once the loader's instances are closed; the
 * debug kernel watches the rows' references.
 */
TEST_F(unwind, tables_churn_while_walked)
{
#ifdef CFI_TEST
	struct prf_unwind_row r[9];
	struct prf_unwind_stat st0, st;
	struct cfi_chains u;
	__u64 leaf, good, bad;
	int exe = open("/proc/self/exe", O_RDONLY), wst;
	pid_t loader;

	ASSERT_LE(0, exe);
	ASSERT_EQ(0, stat_of(self->fd, -1, &st0));
	cfi_rows(r);
	loader = fork();
	ASSERT_LE(0, loader);
	if (!loader) {
		int a = prf_open_clone(), b = prf_open_clone(), i;
		double end = prf_now() + 1.5;

		if (a < 0 || b < 0)
			_exit(2);
		for (i = 0; prf_now() < end; i++) {
			if (load(i % 2 ? a : b, exe, r, 9 - i % 2,
				 i % 3 ? PRF_UNWIND_FRAMEPTR : 0))
				_exit(3);
			if (i % 5 == 4 && (unload(a, -1) || unload(b, -1)))
				_exit(4);
		}
		_exit(0);
	}
	cfi_run(_metadata, self->fd, 1.0, &u);
	ASSERT_EQ(loader, waitpid(loader, &wst, 0));
	EXPECT_TRUE(WIFEXITED(wst) && !WEXITSTATUS(wst)) TH_LOG("%#x", wst);
	cfi_count(&u, 0, false, true, &leaf, &good, &bad);
	EXPECT_LE(100, leaf);
	EXPECT_EQ(0, bad);
	cfi_done(&u);
	ASSERT_EQ(0, stat_of(self->fd, -1, &st));
	EXPECT_EQ(st0.store_files, st.store_files);
	EXPECT_EQ(st0.store_bytes, st.store_bytes);
	close(exe);
#else
	SKIP(return, "the hand-written rows are x86-64's and arm64's");
#endif
}

/* PRF_UOBJ_CFI needs PRF_UOBJ_CHAINS; the set-up reads back with it. */
TEST_F(unwind, cfi_set_up)
{
	struct prf_uobj_conf c = {
		.capacity = 16, .files = 4, .flags = PRF_UOBJ_CFI,
	};

	EXPECT_EQ(-1, ioctl(self->fd, PRF_SETUOBJS, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags |= PRF_UOBJ_CHAINS;
	c.depth = 8;
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUOBJS, &c));
	c.flags |= PRF_UOBJ_VDSO;
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUOBJS, &c));
	c.flags = PRF_UOBJ_CHAINS | 0x8;
	EXPECT_EQ(-1, ioctl(self->fd, PRF_SETUOBJS, &c));
	EXPECT_EQ(EINVAL, errno);
	c = (struct prf_uobj_conf){ 0 };
	EXPECT_EQ(0, ioctl(self->fd, PRF_SETUOBJS, &c));
}

TEST_HARNESS_MAIN
