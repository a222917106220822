// SPDX-License-Identifier: GPL-2.0
/*
 * prf_compat - built with -m32 as prf_compat_test32 and started by
 * prf_compat_test: the ioctls of uapi/linux/prf.h from a 32-bit process,
 * through the driver's compat_ioctl.  The ABI is the same for both: every
 * argument is an int, a __u32, a by-value flag or struct prf_info (whose
 * layout does not depend on the ABI); tables are __u64 on every
 * architecture.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "prf_fixture.h"

PRF_FIXTURE(compat);

#define BASE	0xffffffff81000000ULL
/*
 * Below every kernel text address of x86-64 and arm64 alike: a table from
 * here counts every kernel PC in its counters (the last one above the last
 * address), so that each has a stack.
 */
#define KERNEL_HALF	0x8000000000000000ULL

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 0x40);

	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

TEST_F(compat, really_a_32bit_process)
{
	ASSERT_EQ(4, sizeof(long));
	ASSERT_EQ(4, sizeof(void *));
}

TEST_F(compat, struct_prf_info_layout_matches_v6)
{
	ASSERT_EQ(PRF_INFO_SIZE_V6, sizeof(struct prf_info));
	ASSERT_EQ(PRF_INFO_SIZE_V4, offsetof(struct prf_info, sample_budget));
	ASSERT_EQ(PRF_INFO_SIZE_V4 + 4, offsetof(struct prf_info, budget_used));
	ASSERT_EQ(PRF_INFO_SIZE_V5, offsetof(struct prf_info, source));
	ASSERT_EQ(PRF_INFO_SIZE_V5 + 8, offsetof(struct prf_info, period));
	ASSERT_EQ(PRF_INFO_SIZE_V5 + 16, offsetof(struct prf_info, samples_nmi));
	ASSERT_EQ(PRF_INFO_SIZE_V5 + 56, offsetof(struct prf_info, pmu_cpus));
	ASSERT_EQ(PRF_INFO_SIZE_V3, offsetof(struct prf_info, stacks_dropped));
	ASSERT_EQ(PRF_INFO_SIZE_V3 + 8, offsetof(struct prf_info, stack_depth));
	ASSERT_EQ(PRF_INFO_SIZE_V3 + 16, offsetof(struct prf_info, mode));
	ASSERT_EQ(PRF_INFO_SIZE_V3 + 24, offsetof(struct prf_info, mode_dropped));
	ASSERT_EQ(PRF_INFO_SIZE_V1, offsetof(struct prf_info, ticks_sampled));
	ASSERT_EQ(PRF_INFO_SIZE_V1 + 8, offsetof(struct prf_info, ticks_noregs));
	ASSERT_EQ(PRF_INFO_SIZE_V2, offsetof(struct prf_info, ticks_filtered));
	ASSERT_EQ(PRF_INFO_SIZE_V2 + 8, offsetof(struct prf_info, tasks_dropped));
}

/* The structures of filters and the tally, as a 64-bit kernel reads them. */
TEST_F(compat, filter_and_tasks_layouts_match_64bit)
{
	ASSERT_EQ(16, sizeof(struct prf_filter));
	ASSERT_EQ(8, offsetof(struct prf_filter, id));
	ASSERT_EQ(40, sizeof(struct prf_task));
	ASSERT_EQ(8, offsetof(struct prf_task, kernel));
	ASSERT_EQ(24, offsetof(struct prf_task, comm));
	ASSERT_EQ(24, sizeof(struct prf_tasks));
	ASSERT_EQ(8, offsetof(struct prf_tasks, dropped));
	ASSERT_EQ(16, offsetof(struct prf_tasks, tasks));
}

TEST_F(compat, getstatus_through_compat)
{
	EXPECT_EQ(0, prf_status(self->fd));
	load(_metadata, self->fd, 5);
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(compat, getsize_through_compat)
{
	EXPECT_EQ(0, prf_size(self->fd));
	load(_metadata, self->fd, 77);
	EXPECT_EQ(77, prf_size(self->fd));
}

TEST_F(compat, setstate_through_compat)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_state(self->fd, 1));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, 0xfffffffeUL));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, 0xffffffffUL));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(compat, setstate_unloaded_no_effect_through_compat)
{
	EXPECT_EQ(0, prf_set_state(self->fd, 1));
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(compat, getmax_through_compat)
{
	EXPECT_LE(1048576, prf_max(self->fd));
}

TEST_F(compat, getters_efault_through_compat)
{
	static const unsigned long cmds[] = {
		PRF_GETSTATUS, PRF_GETSIZE, PRF_GETMAX, PRF_GETHZ, PRF_GETFLAGS,
		PRF_GETINFO,
	};
	void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	size_t i;

	ASSERT_NE(MAP_FAILED, none);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], none)) TH_LOG("cmd %zu", i);
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %zu", i);
	}
	munmap(none, 4096);
}

TEST_F(compat, unknown_commands_einval_through_compat)
{
	const unsigned long cmds[] = {
		_IO(PRF_IOC_MAGIC, 99), TCGETS, 0, _IOR(PRF_IOC_MAGIC, 1, __u64),
	};
	int v;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], &v)) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("cmd %#lx", cmds[i]);
	}
}

TEST_F(compat, hz_through_compat)
{
	__u32 hz = 0;

	ASSERT_EQ(0, prf_set_hz(self->fd, 1000));
	ASSERT_EQ(0, prf_get_hz(self->fd, &hz));
	EXPECT_EQ(1000, hz);
	EXPECT_EQ(-EINVAL, prf_set_hz(self->fd, 0));
}

TEST_F(compat, flags_through_compat)
{
	__u32 flags = 0;

	ASSERT_EQ(0, prf_set_flags(self->fd, PRF_FLAG_JITTER));
	ASSERT_EQ(0, prf_get_flags(self->fd, &flags));
	EXPECT_EQ(PRF_FLAG_JITTER, flags);
	EXPECT_EQ(-EINVAL, prf_set_flags(self->fd, 0x8));
	ASSERT_EQ(0, prf_set_flags(self->fd, PRF_FLAG_FIXED | PRF_FLAG_ISOLATED));
	ASSERT_EQ(0, prf_get_flags(self->fd, &flags));
	EXPECT_EQ(PRF_FLAG_FIXED | PRF_FLAG_ISOLATED, flags);
}

TEST_F(compat, getinfo_through_compat)
{
	struct prf_info info;

	load(_metadata, self->fd, 9);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(PRF_INFO_SIZE_V6, info.size);
	EXPECT_EQ(PRF_INFO_VERSION, info.version);
	EXPECT_EQ(PRF_STATUS_LOADED, info.status);
	EXPECT_EQ(9, info.naddrs);
	EXPECT_EQ(-1, info.cpu);
	EXPECT_EQ((__u64)prf_max(self->fd), info.max_addrs);
	EXPECT_EQ(PRF_HZ_DEFAULT, info.hz);
}

TEST_F(compat, clear_through_compat)
{
	struct prf_snap s;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.2);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_clear(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(0, prf_snap_total(&s));
	prf_snap_free(&s);
}

TEST_F(compat, table_is_u64_from_32bit_process)
{
	struct prf_snap s;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(5, s.n);
	EXPECT_EQ(BASE, s.addrs[0]);
	EXPECT_EQ(BASE + 4 * 0x40, s.addrs[4]);
	prf_snap_free(&s);
}

/* The stack table: its structures, set and read from a 32-bit process. */
TEST_F(compat, stacks_through_compat)
{
	struct prf_stack_conf c = { .depth = 8, .capacity = 64 };
	size_t size = PRF_STACK_RECORD_SIZE(8);
	struct prf_stacks out;
	struct prf_stack *r;
	static char zero[65536];
	char *buf = calloc(64, size);
	__u64 *t;
	double end;
	int z;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(16, sizeof(struct prf_stack_conf));
	ASSERT_EQ(16, sizeof(struct prf_stack));
	ASSERT_EQ(32, sizeof(struct prf_stacks));
	ASSERT_EQ(16, offsetof(struct prf_stacks, dropped));
	ASSERT_EQ(24, offsetof(struct prf_stacks, stacks));
	t = prf_make_table(5, KERNEL_HALF, 0x40);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(self->fd, t, 5));
	free(t);
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETSTACKS, &c));
	z = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, z);
	ASSERT_EQ(0, prf_set_hz(self->fd, 1000));
	ASSERT_EQ(0, prf_on(self->fd));
	for (end = prf_now() + 0.3; prf_now() < end;)
		ASSERT_EQ(sizeof(zero), read(z, zero, sizeof(zero)));
	ASSERT_EQ(0, prf_off(self->fd));
	close(z);
	memset(&out, 0, sizeof(out));
	out.nr = 64;
	out.stacks = (__u64)(uintptr_t)buf;
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETSTACKS, &out));
	EXPECT_EQ(8, out.depth);
	EXPECT_EQ(64, out.capacity);
	ASSERT_LT(0, out.nr);
	r = (struct prf_stack *)buf;
	EXPECT_LT(0, r->count);
	EXPECT_LE(1, r->nr_pcs);
	EXPECT_GE(8, r->nr_pcs);
	EXPECT_LE(KERNEL_HALF, ((__u64 *)(r + 1))[0]);
	free(buf);
}

/*
 * A 32-bit busy loop, with frame pointers or not: the walk never reads
 * them.  The clock (the vDSO's: anonymous memory) now and then only.
 */
__attribute__((noinline)) static void spin32(double s)
{
	static volatile unsigned long n;
	double end = prf_now() + s;
	int i;

	do {
		for (i = 0; i < 100000; i++)
			n++;
	} while (prf_now() < end);
}

/*
 * ON until 50 samples of this process (a busy host's guest takes few; 20 s
 * at most), OFF, then its chains into @out over @buf and @f (256 records,
 * 16 files).
 */
static void spin_chains(struct __test_metadata *_metadata, int fd, struct prf_uchains *out,
			char *buf, struct prf_uobj_file *f)
{
	struct prf_info info;
	double end;

	ASSERT_EQ(0, prf_set_hz(fd, 1000));
	ASSERT_EQ(0, prf_set_filter(fd, PRF_FILTER_TGID, getpid()));
	ASSERT_EQ(0, prf_on(fd));
	end = prf_now() + 20;
	do {
		spin32(0.1);
		ASSERT_EQ(0, prf_info(fd, &info));
	} while (info.ticks_user < 50 && prf_now() < end);
	ASSERT_EQ(0, prf_off(fd));
	memset(out, 0, sizeof(*out));
	out->nr = 256;
	out->nfiles = 16;
	out->chains = (__u64)(uintptr_t)buf;
	out->files = (__u64)(uintptr_t)f;
	ASSERT_EQ(0, ioctl(fd, PRF_GETUCHAINS, out));
}

/*
 * User call chains from a 32-bit process: the structures as a 64-bit
 * kernel lays them out, and this process's own chains its PC alone (uapi:
 * the walk reads 64-bit frame records only), each with an entry's samples;
 * the pairs' header (PRF_GETUPAIRS) read back.
 */
TEST_F(compat, user_chains_through_compat_are_the_pc_alone)
{
	struct prf_uobj_conf c = {
		.capacity = 256, .files = 16, .flags = PRF_UOBJ_CHAINS, .depth = 4,
	};
	size_t size = PRF_UCHAIN_RECORD_SIZE(4);
	struct prf_uobj_file f[16];
	struct prf_stack_conf sc = { .depth = 3, .capacity = 64 };
	struct prf_upairs up = { 0 };
	struct prf_uchains out;
	struct prf_uchain *r;
	struct stat st;
	char *buf = calloc(256, size);
	__u64 *t, sum = 0;
	__u32 i;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(16, sizeof(struct prf_uobj_conf));
	ASSERT_EQ(16, sizeof(struct prf_uchain));
	ASSERT_EQ(16, sizeof(struct prf_uframe));
	ASSERT_EQ(56, sizeof(struct prf_uchains));
	ASSERT_EQ(32, offsetof(struct prf_uchains, dropped));
	ASSERT_EQ(40, offsetof(struct prf_uchains, chains));
	ASSERT_EQ(48, offsetof(struct prf_uchains, files));
	ASSERT_EQ(24, sizeof(struct prf_upair));
	ASSERT_EQ(64, sizeof(struct prf_upairs));
	ASSERT_EQ(40, offsetof(struct prf_upairs, dropped));
	ASSERT_EQ(48, offsetof(struct prf_upairs, pairs));
	ASSERT_EQ(56, offsetof(struct prf_upairs, files));
	ASSERT_EQ(24 + 8 * 3 + 16 * 4, PRF_UPAIR_RECORD_SIZE(3, 4));
	t = prf_make_table(5, BASE, 0x40);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(self->fd, t, 5));
	free(t);
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETSTACKS, &sc));
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUOBJS, &c));
	spin_chains(_metadata, self->fd, &out, buf, f);
	EXPECT_EQ(4, out.depth);
	EXPECT_EQ(256, out.capacity);
	ASSERT_LT(0, out.nr);
	ASSERT_EQ(0, stat("/proc/self/exe", &st));
	for (i = 0; i < out.nr; i++) {
		struct prf_uframe *fr;

		r = (struct prf_uchain *)(buf + i * size);
		fr = (struct prf_uframe *)(r + 1);
		if (fr[0].file >= out.nfiles || f[fr[0].file].ino != st.st_ino)
			continue;	/* another process's */
		sum += r->count;
		EXPECT_EQ(1, r->nr_frames) TH_LOG("chain %u", i);
		EXPECT_EQ(0, r->flags);
	}
	EXPECT_LE(40, sum);	/* most of them in this program's file */
	/* the pairs' header, as a 64-bit kernel reads and writes it */
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETUPAIRS, &up));
	EXPECT_EQ(3, up.depth);
	EXPECT_EQ(4, up.udepth);
	EXPECT_EQ(256, up.capacity);
	EXPECT_EQ(0, up.nr);
	free(buf);
}

/*
 * Unwind tables from a 32-bit process: the load and the stat as a 64-bit
 * kernel reads and writes them (the rows' pointer is a __u64), and
 * PRF_UOBJ_CFI's chains of a 32-bit process its PC alone, not truncated
 * (uapi: no copy of a 32-bit stack is taken).
 */
TEST_F(compat, unwind_tables_through_compat)
{
	struct prf_uobj_conf c = {
		.capacity = 256, .files = 16, .depth = 4,
		.flags = PRF_UOBJ_CHAINS | PRF_UOBJ_CFI,
	};
	struct prf_unwind_row rows[2] = {
		{ .start = 0, .len = 16, .cfa_off = 8 },
		{ .start = 16, .len = 16, .cfa_off = 8 },
	};
	struct prf_unwind_load ld = {
		.fd = open("/proc/self/exe", O_RDONLY), .nr = 2,
		.rows = (__u64)(uintptr_t)rows,
	};
	struct prf_unwind_stat us = { .fd = ld.fd };
	size_t size = PRF_UCHAIN_RECORD_SIZE(4);
	char *buf = calloc(256, size);
	struct prf_uobj_file f[16];
	struct prf_uchains out;
	struct stat st;
	__u64 sum = 0;
	__u32 i;

	ASSERT_NE(NULL, buf);
	ASSERT_LE(0, ld.fd);
	ASSERT_EQ(24, sizeof(struct prf_unwind_row));
	ASSERT_EQ(24, sizeof(struct prf_unwind_load));
	ASSERT_EQ(40, sizeof(struct prf_unwind_stat));
	ASSERT_EQ(16, offsetof(struct prf_unwind_load, rows));
	ASSERT_EQ(24, offsetof(struct prf_unwind_stat, store_bytes));
#if defined(__i386__)
	ld.machine = 62;	/* the 64-bit kernel's: EM_X86_64 */
#else
	ld.machine = 183;	/* EM_AARCH64 */
#endif
	rows[0].rules = rows[1].rules =
		PRF_UNWIND_RULES(0, PRF_UNWIND_AT, PRF_UNWIND_SAME);
	rows[0].ra_off = rows[1].ra_off = -8;
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUNWIND, &ld));
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETUNWIND, &us));
	EXPECT_EQ(2, us.nr);
	EXPECT_EQ(1, us.users);
	EXPECT_EQ(PRF_UNWIND_HELD, us.flags);
	EXPECT_LE(2 * 24, us.store_bytes);
	ld = (struct prf_unwind_load){ .fd = -1 };
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUNWIND, &ld));
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETUNWIND, &us));
	EXPECT_EQ(0, us.nr);
	close(us.fd);

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUOBJS, &c));
	spin_chains(_metadata, self->fd, &out, buf, f);
	ASSERT_EQ(0, stat("/proc/self/exe", &st));
	for (i = 0; i < out.nr; i++) {
		struct prf_uchain *r = (struct prf_uchain *)(buf + i * size);
		struct prf_uframe *fr = (struct prf_uframe *)(r + 1);

		if (fr[0].file >= out.nfiles || f[fr[0].file].ino != st.st_ino)
			continue;
		sum += r->count;
		EXPECT_EQ(1, r->nr_frames) TH_LOG("chain %u", i);
		EXPECT_EQ(0, r->flags);
	}
	EXPECT_LE(40, sum);
	free(buf);
}

/*
 * A 32-bit process's vDSO is another image than the one of 64-bit tasks:
 * with PRF_UOBJ_VDSO it stays code of no file (uapi), at its PCs, with
 * this process's pid, and no file of the table is the vDSO.  A kernel that
 * maps no vDSO into 32-bit processes has nothing to test: SKIP.
 */
TEST_F(compat, a_32bit_vdso_is_code_of_no_file)
{
	struct prf_uobj_conf c = {
		.capacity = 256, .files = 16, .flags = PRF_UOBJ_VDSO,
	};
	unsigned long long lo = 0, hi = 0, anon = 0;
	struct prf_uobj e[256];
	struct prf_uobj_file f[16];
	struct prf_uobjs out;
	struct prf_info info;
	struct timespec ts;
	char line[256];
	double end;
	FILE *m;
	__u32 i;

	m = fopen("/proc/self/maps", "r");
	ASSERT_NE(NULL, m);
	while (fgets(line, sizeof(line), m))
		if (strstr(line, "[vdso]"))
			ASSERT_EQ(2, sscanf(line, "%llx-%llx", &lo, &hi));
	fclose(m);
	if (!hi)
		SKIP(return, "no vDSO in a 32-bit process on this kernel");
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETUOBJS, &c));
	ASSERT_EQ(0, prf_set_hz(self->fd, 1000));
	ASSERT_EQ(0, prf_set_filter(self->fd, PRF_FILTER_TGID, getpid()));
	ASSERT_EQ(0, prf_on(self->fd));
	end = prf_now() + 20;
	do {
		for (i = 0; i < 100000; i++)
			clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		ASSERT_EQ(0, prf_info(self->fd, &info));
	} while (info.ticks_user < 200 && prf_now() < end);
	ASSERT_EQ(0, prf_off(self->fd));
	memset(&out, 0, sizeof(out));
	out.nr = 256;
	out.nfiles = 16;
	out.entries = (__u64)(uintptr_t)e;
	out.files = (__u64)(uintptr_t)f;
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETUOBJS, &out));
	for (i = 0; i < out.nfiles; i++)
		EXPECT_EQ(0, f[i].flags & PRF_UOBJ_VDSO_IMAGE) TH_LOG("%s", f[i].path);
	for (i = 0; i < out.nr; i++)
		if (e[i].file == PRF_UOBJ_ANON && e[i].offset >= lo &&
		    e[i].offset < hi) {
			EXPECT_EQ((__u32)getpid(), e[i].pid);
			anon += e[i].count;
		}
	TH_LOG("%llu of %llu user samples in the vDSO", anon,
	       (unsigned long long)info.ticks_user);
	EXPECT_LE(20, anon);
}

/* The PMU source's set-up, as a 64-bit kernel reads it. */
TEST_F(compat, source_through_compat)
{
	struct prf_source src = {
		.source = PRF_SOURCE_PMU, .event = PRF_EVENT_INSTRUCTIONS,
		.period = 0x123456789ULL,
	};
	struct prf_info info;
	__u32 mask = ~0U;

	ASSERT_EQ(24, sizeof(struct prf_source));
	ASSERT_EQ(8, offsetof(struct prf_source, period));
	ASSERT_EQ(16, offsetof(struct prf_source, flags));
	ASSERT_EQ(0, ioctl(self->fd, PRF_SETSOURCE, &src));
	memset(&src, 0xff, sizeof(src));
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETSOURCE, &src));
	EXPECT_EQ(PRF_SOURCE_PMU, src.source);
	EXPECT_EQ(PRF_EVENT_INSTRUCTIONS, src.event);
	EXPECT_EQ(0x123456789ULL, src.period);
	EXPECT_EQ(0, src.flags);
	EXPECT_EQ(0, src.pad);
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(0x123456789ULL, info.period);
	ASSERT_EQ(0, ioctl(self->fd, PRF_GETEVENTS, &mask));
	EXPECT_EQ(0, mask & ~((1U << PRF_NR_EVENTS) - 1));
}

TEST_HARNESS_MAIN
