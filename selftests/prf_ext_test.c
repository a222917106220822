// SPDX-License-Identifier: GPL-2.0
/*
 * prf_ext_test - the extensions beyond prf(7) (uapi/linux/prf.h):
 * PRF_GETHZ/PRF_SETHZ, PRF_CLEAR, PRF_GETINFO and struct prf_info,
 * PRF_GETFLAGS/PRF_SETFLAGS and the flags' values.  When samples fall is
 * prf_phase_test's; which CPUs /dev/prf covers, prf_isolated_test's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "prf_fixture.h"

PRF_FIXTURE(ext);

#define BASE	0xffffffff81000000ULL

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

static __u32 hz_of(int fd)
{
	__u32 hz = 0;

	return prf_get_hz(fd, &hz) ? 0 : hz;
}

/* The CPUs /dev/prf samples by default. */
static int nr_online_not_isolated(void)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < prf_nr_possible(); cpu++)
		n += prf_cpu_online(cpu) == 1 && !prf_cpu_isolated(cpu);
	return n;
}

static __u32 flags_of(int fd)
{
	__u32 f = ~0U;

	return prf_get_flags(fd, &f) ? ~0U : f;
}

/* ON @s seconds with a user spinner on CPU 1 (or 0) and a kernel loop on
 * CPU 0 (if there are two CPUs), then OFF. */
static void busy_run(struct __test_metadata *_metadata, int fd, double s)
{
	int ncpus = prf_nr_online();
	pid_t a, b = 0;

	a = prf_start(ncpus > 1 ? 1 : 0, PRF_WORK_SPIN);
	ASSERT_LT(0, a);
	if (ncpus > 1) {
		b = prf_start(0, PRF_WORK_ZERO);
		ASSERT_LT(0, b);
	}
	ASSERT_EQ(0, prf_on(fd));
	prf_sleep(s);
	ASSERT_EQ(0, prf_off(fd));
	prf_stop(a);
	prf_stop(b);
}

/*
 * Each command of the 0-terminated @cmds, given NULL and then a PROT_NONE
 * page for its pointer, fails with EFAULT.
 */
static void bad_pointers_efault(struct __test_metadata *_metadata, int fd,
				const unsigned long *cmds)
{
	void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	void *const args[] = { NULL, none };
	size_t i;

	ASSERT_NE(MAP_FAILED, none);
	for (; *cmds; cmds++) {
		for (i = 0; i < ARRAY_SIZE(args); i++) {
			errno = 0;
			EXPECT_EQ(-1, ioctl(fd, *cmds, args[i]))
				TH_LOG("cmd %#lx, arg %p", *cmds, args[i]);
			EXPECT_EQ(EFAULT, errno)
				TH_LOG("cmd %#lx, arg %p", *cmds, args[i]);
		}
	}
	munmap(none, 4096);
}

/* ---- PRF_GETHZ / PRF_SETHZ ----------------------------------------------- */

TEST_F(ext, gethz_reads_the_rate)
{
	__u32 hz = 0;

	ASSERT_EQ(0, prf_get_hz(self->fd, &hz));
	EXPECT_EQ(PRF_HZ_DEFAULT, hz);
}

TEST_F(ext, sethz_accepts_1_to_10000)
{
	static const __u32 rates[] = { 1, 2, 10, 99, 100, 250, 1000, 9999, 10000 };
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		EXPECT_EQ(0, prf_set_hz(self->fd, rates[i])) TH_LOG("%u", rates[i]);
		EXPECT_EQ(rates[i], hz_of(self->fd));
	}
}

TEST_F(ext, sethz_0_einval_rate_unchanged)
{
	ASSERT_EQ(0, prf_set_hz(self->fd, 250));
	EXPECT_EQ(-EINVAL, prf_set_hz(self->fd, 0));
	EXPECT_EQ(250, hz_of(self->fd));
}

TEST_F(ext, sethz_10001_einval_rate_unchanged)
{
	ASSERT_EQ(0, prf_set_hz(self->fd, 250));
	EXPECT_EQ(-EINVAL, prf_set_hz(self->fd, PRF_HZ_MAX + 1));
	EXPECT_EQ(-EINVAL, prf_set_hz(self->fd, 0xffffffffU));
	EXPECT_EQ(-EINVAL, prf_set_hz(self->fd, 0x80000000U));
	EXPECT_EQ(250, hz_of(self->fd));
}

TEST_F(ext, sethz_einval_leaves_table_and_state)
{
	load(_metadata, self->fd, 5);
	EXPECT_EQ(-EINVAL, prf_set_hz(self->fd, 0));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(5, prf_size(self->fd));
}

TEST_F(ext, sethz_while_on_ebusy_rate_unchanged)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(-EBUSY, prf_set_hz(self->fd, 1000));
	EXPECT_EQ(PRF_HZ_DEFAULT, hz_of(self->fd));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(ext, sethz_when_unloaded_works)
{
	EXPECT_EQ(0, prf_set_hz(self->fd, 500));
	EXPECT_EQ(500, hz_of(self->fd));
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(ext, rate_survives_load_and_clear)
{
	ASSERT_EQ(0, prf_set_hz(self->fd, 333));
	load(_metadata, self->fd, 5);
	EXPECT_EQ(333, hz_of(self->fd));
	ASSERT_EQ(0, prf_clear(self->fd));
	EXPECT_EQ(333, hz_of(self->fd));
	load(_metadata, self->fd, 7);
	EXPECT_EQ(333, hz_of(self->fd));
}

TEST_F(ext, rate_is_per_instance)
{
	PRF_NEED_CPU(1);
	ASSERT_EQ(0, prf_set_hz(self->cpu[1], 1000));
	EXPECT_EQ(PRF_HZ_DEFAULT, hz_of(self->fd));
	EXPECT_EQ(PRF_HZ_DEFAULT, hz_of(self->cpu[0]));
	EXPECT_EQ(1000, hz_of(self->cpu[1]));
}

TEST_F(ext, hz_bad_pointer_efault)
{
	static const unsigned long cmds[] = { PRF_GETHZ, PRF_SETHZ, 0 };

	bad_pointers_efault(_metadata, self->fd, cmds);
	EXPECT_EQ(PRF_HZ_DEFAULT, hz_of(self->fd));
}

TEST_F(ext, instances_on_one_cpu_keep_their_own_rates)
{
	struct prf_info all, one;
	int ncpus = prf_nr_online();
	double r_all, r_one;

	PRF_NEED_CPU(1);
	load(_metadata, self->fd, 5);
	load(_metadata, self->cpu[1], 5);
	ASSERT_EQ(0, prf_set_hz(self->fd, 100));
	ASSERT_EQ(0, prf_set_hz(self->cpu[1], 1000));
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_on(self->cpu[1]));
	prf_sleep(2.0);
	ASSERT_EQ(0, prf_off(self->cpu[1]));
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &all));
	ASSERT_EQ(0, prf_info(self->cpu[1], &one));
	ASSERT_LT(0, all.on_ns);
	ASSERT_LT(0, one.on_ns);
	/* periods (taken + lost) per second of ON and per CPU: the rate */
	r_all = prf_periods(&all) / (all.on_ns / 1e9) / ncpus;
	r_one = prf_periods(&one) / (one.on_ns / 1e9);
	TH_LOG("/dev/prf %.1f Hz per CPU (%llu taken, %llu lost), /dev/prf1 "
	       "%.1f Hz (%llu taken, %llu lost)",
	       r_all, (unsigned long long)all.ticks_total,
	       (unsigned long long)all.ticks_lost, r_one,
	       (unsigned long long)one.ticks_total,
	       (unsigned long long)one.ticks_lost);
	/* and most periods were sampled, by each */
	EXPECT_LE(0.2 * prf_periods(&all), all.ticks_total);
	EXPECT_LE(0.1 * prf_periods(&one), one.ticks_total);
	EXPECT_TRUE(prf_within(r_all, 100, 0.10)) TH_LOG("%.1f", r_all);
	EXPECT_TRUE(prf_within(r_one, 1000, 0.10)) TH_LOG("%.1f", r_one);
}

/* ---- PRF_CLEAR ----------------------------------------------------------- */

TEST_F(ext, clear_zeroes_counters_keeps_table_and_off)
{
	struct prf_snap s;

	load(_metadata, self->fd, 5);
	busy_run(_metadata, self->fd, 0.5);
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	ASSERT_LT(0, prf_snap_total(&s));
	prf_snap_free(&s);

	ASSERT_EQ(0, prf_clear(self->fd));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(5, s.n);
	EXPECT_EQ(BASE, s.addrs[0]);
	EXPECT_EQ(BASE + 4 * 0x40, s.addrs[4]);
	EXPECT_EQ(0, prf_snap_total(&s));
	prf_snap_free(&s);
}

TEST_F(ext, clear_zeroes_info_counters)
{
	struct prf_info info;

	load(_metadata, self->fd, 5);
	busy_run(_metadata, self->fd, 0.5);
	ASSERT_EQ(0, prf_clear(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	prf_expect_counters_zero(_metadata, &info);
	EXPECT_EQ(5, info.naddrs);
}

TEST_F(ext, clear_while_on_keeps_on_and_restarts_counting)
{
	struct prf_snap a, b;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(1.0);
	ASSERT_EQ(0, prf_snap(self->fd, &a));
	ASSERT_EQ(0, prf_clear(self->fd));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &b));
	/* a few ticks may land between CLEAR and read: far fewer than before */
	EXPECT_GT(prf_snap_total(&a) / 4, prf_snap_total(&b));
	prf_snap_free(&b);
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_snap(self->fd, &b));
	EXPECT_LT(0, prf_snap_total(&b));
	prf_snap_free(&a);
	prf_snap_free(&b);
}

/*
 * A clear while ON is one instant for every count (uapi: PRF_CLEAR): a
 * sample in flight meanwhile lands wholly before it or wholly after it,
 * never half in a count zeroed and half in one kept, so the sum rule holds
 * at the next OFF.  The table's first address is the kernel's first text
 * address and its long rest lies above every kernel text: the kernel
 * samples of the loops count in counter 0, which a clear zeroes first,
 * and reach their other count (ticks_sampled) while the rest of the table
 * is still being zeroed.  Each round ends with a clear while ON and checks
 * the rule at OFF.  Without the clear's grace period 8 rounds of 8 failed,
 * on debian-6.1 (2 of 8 with 65536 addresses) and on debug-7.x; three
 * rounds are run.
 */
TEST_F_TIMEOUT(ext, clear_while_on_splits_no_sample, 120)
{
	/* the debug kernel zeroes far slower: its window is as wide already */
	size_t n = prf_debug_kernel() ? 1 << 16 : 1 << 18;
	struct prf_info info;
	struct prf_snap s;
	double t, slowest = 0;
	long loaded;
	int round;

	loaded = prf_load_first_and_above(self->fd, n);
	ASSERT_LT(0, loaded) TH_LOG("%s", strerror(-loaded));
	ASSERT_EQ(0, prf_set_hz(self->fd, 1000));
	for (round = 0; round < 3; round++) {
		/* the kernel loops on every CPU, around the clear only */
		ASSERT_EQ(0, prf_clear_amid(self->fd, PRF_WORK_ZERO, 0, &t));
		if (t > slowest)
			slowest = t;
		ASSERT_EQ(0, prf_snap(self->fd, &s));
		ASSERT_EQ(0, prf_info(self->fd, &info));
		EXPECT_EQ(info.ticks_sampled,
			  prf_snap_total(&s) + info.ticks_outside)
			TH_LOG("round %d: counter 0 %llu, user %llu, idle %llu",
			       round, (unsigned long long)s.counts[0],
			       (unsigned long long)prf_snap_user(&s),
			       (unsigned long long)prf_snap_idle(&s));
		EXPECT_EQ(info.ticks_sampled, info.ticks_total);
		prf_snap_free(&s);
	}
	TH_LOG("%ld addresses, the slowest clear %.1f ms", loaded, slowest * 1e3);
}

TEST_F(ext, clear_unloaded_enxio)
{
	EXPECT_EQ(-ENXIO, prf_clear(self->fd));
	EXPECT_EQ(0, prf_status(self->fd));
}

/* ---- PRF_GETINFO --------------------------------------------------------- */

static int info_sized(int fd, void *buf, __u32 size)
{
	memcpy(buf, &size, sizeof(size));
	return ioctl(fd, PRF_GETINFO, buf) ? -errno : 0;
}

TEST_F(ext, getinfo_size_below_v1_einval)
{
	static const __u32 sizes[] = { 0, 4, 8, 96, PRF_INFO_SIZE_V1 - 1 };
	unsigned char buf[256];
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		EXPECT_EQ(-EINVAL, info_sized(self->fd, buf, sizes[i]))
			TH_LOG("size %u", sizes[i]);
}

TEST_F(ext, getinfo_v1_size_is_filled)
{
	unsigned char buf[512];
	struct prf_info info;
	size_t i;

	memset(buf, 0xAA, sizeof(buf));
	ASSERT_EQ(0, info_sized(self->fd, buf, PRF_INFO_SIZE_V1));
	memcpy(&info, buf, sizeof(info));
	for (i = PRF_INFO_SIZE_V1; i < sizeof(buf); i++)
		if (buf[i] != 0xAA)
			break;
	EXPECT_EQ(sizeof(buf), i) TH_LOG("byte %zu past .size written", i);
	EXPECT_EQ(PRF_INFO_SIZE_V1, info.size);
	EXPECT_EQ(PRF_INFO_VERSION, info.version);
	EXPECT_EQ(0, info.status);
	EXPECT_EQ(PRF_HZ_DEFAULT, info.hz);
	EXPECT_EQ(0, info.naddrs);
}

TEST_F(ext, getinfo_larger_size_reports_bytes_filled)
{
	unsigned char buf[512];
	struct prf_info info;
	size_t i;

	memset(buf, 0xAA, sizeof(buf));
	ASSERT_EQ(0, info_sized(self->fd, buf, sizeof(buf)));
	memcpy(&info, buf, sizeof(info));
	/* this ABI's kernel knows version 6: it fills exactly V6 */
	EXPECT_EQ(PRF_INFO_SIZE_V6, info.size);
	EXPECT_EQ(PRF_INFO_VERSION, info.version);
	for (i = info.size; i < sizeof(buf); i++)
		if (buf[i] != 0xAA)
			break;
	EXPECT_EQ(sizeof(buf), i) TH_LOG("byte %zu past the filled size written", i);
}

TEST_F(ext, getinfo_bad_pointer_efault)
{
	static const unsigned long cmds[] = { PRF_GETINFO, 0 };

	bad_pointers_efault(_metadata, self->fd, cmds);
}

TEST_F(ext, getinfo_fields_of_all_cpus_device)
{
	struct prf_info info;
	int max = prf_max(self->fd);

	load(_metadata, self->fd, 1000);
	ASSERT_EQ(0, prf_set_hz(self->fd, 300));
	ASSERT_EQ(0, prf_set_flags(self->fd, PRF_FLAG_JITTER));
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(PRF_INFO_SIZE_V6, info.size);
	EXPECT_EQ(PRF_INFO_VERSION, info.version);
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, info.status);
	EXPECT_EQ(PRF_FLAG_JITTER, info.flags);
	EXPECT_EQ(300, info.hz);
	EXPECT_EQ(1000000 / 300, info.usec_per_tick);
	EXPECT_EQ(-1, info.cpu);
	EXPECT_EQ(nr_online_not_isolated(), info.ncpus);
	EXPECT_EQ(1000, info.naddrs);
	EXPECT_EQ(max, info.max_addrs);
	EXPECT_LE((2 * 1000 + 2) * 8, info.mem_bytes);
}

/*
 * uapi: mem_bytes is 24 N + 4 bytes, a header under 128 bytes and a set of
 * counts (at most 64 bytes) per CPU the instance covers: one for /dev/prfN,
 * one per possible CPU for /dev/prf.  Nothing of /dev/prfN grows with the
 * CPUs.
 */
TEST_F(ext, getinfo_mem_bytes_is_the_documented_figure)
{
	struct prf_info all, one;
	__u64 n = 1000, table = 24 * n + 4, set;

	PRF_NEED_CPU(0);
	load(_metadata, self->fd, n);
	load(_metadata, self->cpu[0], n);
	ASSERT_EQ(0, prf_info(self->fd, &all));
	ASSERT_EQ(0, prf_info(self->cpu[0], &one));
	TH_LOG("mem_bytes: /dev/prf %llu, /dev/prf0 %llu, %d possible CPUs",
	       (unsigned long long)all.mem_bytes,
	       (unsigned long long)one.mem_bytes, self->ncpus);
	if (self->ncpus < 2)
		SKIP(return, "one possible CPU: /dev/prf and /dev/prf0 alike");
	/* what each further CPU adds to /dev/prf: one set of counts */
	set = (all.mem_bytes - one.mem_bytes) / (self->ncpus - 1);
	EXPECT_EQ(set * (self->ncpus - 1), all.mem_bytes - one.mem_bytes);
	EXPECT_LT(0, set);
	EXPECT_GE(64, set);
	EXPECT_EQ(0, set % 8);
	/* and /dev/prf0 holds one set beside its table */
	EXPECT_LE(table + set, one.mem_bytes);
	EXPECT_GT(table + set + 128, one.mem_bytes);
}

TEST_F(ext, getinfo_fields_of_cpu_device)
{
	struct prf_info info;

	PRF_NEED_CPU(1);
	load(_metadata, self->cpu[1], 10);
	ASSERT_EQ(0, prf_info(self->cpu[1], &info));
	EXPECT_EQ(PRF_STATUS_LOADED, info.status);
	EXPECT_EQ(0, info.flags);
	EXPECT_EQ(PRF_HZ_DEFAULT, info.hz);
	EXPECT_EQ(1000000 / PRF_HZ_DEFAULT, info.usec_per_tick);
	EXPECT_EQ(1, info.cpu);
	EXPECT_EQ(1, info.ncpus);
	EXPECT_EQ(10, info.naddrs);
	EXPECT_EQ(0, info.ticks_total);
	EXPECT_EQ(0, info.on_ns);
}

TEST_F(ext, getinfo_unloaded_has_no_addresses)
{
	struct prf_info info;

	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(0, info.status);
	EXPECT_EQ(0, info.naddrs);
	EXPECT_EQ(prf_max(self->fd), info.max_addrs);
}

TEST_F(ext, usec_per_tick_rounds_down)
{
	static const __u32 rates[] = { 1, 3, 7, 10000 };
	struct prf_info info;
	size_t i;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		ASSERT_EQ(0, prf_set_hz(self->fd, rates[i]));
		ASSERT_EQ(0, prf_info(self->fd, &info));
		EXPECT_EQ(1000000 / rates[i], info.usec_per_tick) TH_LOG("%u Hz", rates[i]);
	}
}

TEST_F(ext, getinfo_counts_add_up_after_a_run)
{
	struct prf_info info;
	struct prf_snap s;
	struct prf_ksyms k;
	size_t from;

	/* start the table mid-text so that some kernel PCs fall outside */
	ASSERT_EQ(0, prf_ksyms_load(&k));
	from = k.n / 2;
	ASSERT_EQ(0, prf_load(self->fd, k.addrs + from, k.n - from));
	busy_run(_metadata, self->fd, 2.0);
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	TH_LOG("total %llu sampled %llu outside %llu user %llu idle %llu lost %llu",
	       (unsigned long long)info.ticks_total,
	       (unsigned long long)info.ticks_sampled,
	       (unsigned long long)info.ticks_outside,
	       (unsigned long long)info.ticks_user,
	       (unsigned long long)info.ticks_idle,
	       (unsigned long long)info.ticks_lost);
	EXPECT_LT(0, info.ticks_total);
	EXPECT_LT(0, info.ticks_user);
	/*
	 * ticks_total is the kernel's sum of these counters: comparing the
	 * two would prove nothing.  ticks_sampled is counted apart, once per
	 * sample before attribution: every sample landed in exactly one place.
	 */
	EXPECT_EQ(info.ticks_sampled, prf_snap_total(&s) + info.ticks_outside);
	EXPECT_EQ(info.ticks_sampled, info.ticks_total);
	EXPECT_EQ(info.ticks_user, prf_snap_user(&s));
	EXPECT_EQ(info.ticks_idle, prf_snap_idle(&s));
	prf_snap_free(&s);
	prf_ksyms_free(&k);
}

TEST_F(ext, on_ns_counts_time_on_only)
{
	struct prf_info a, b;
	double t0, t1, t2, t3;

	load(_metadata, self->fd, 5);
	/*
	 * ON and OFF each take as long as their CPUs' timers take to start
	 * and stop (tens of ms for a guest starved by its host): ON time is
	 * at least the time between the two calls and at most the time
	 * across both (1 ms either side for the clocks' reads).
	 */
	t0 = prf_now();
	ASSERT_EQ(0, prf_on(self->fd));
	t1 = prf_now();
	prf_sleep(1.0);
	t2 = prf_now();
	ASSERT_EQ(0, prf_off(self->fd));
	t3 = prf_now();
	ASSERT_EQ(0, prf_info(self->fd, &a));
	EXPECT_LE(t2 - t1 - 1e-3, a.on_ns / 1e9)
		TH_LOG("on_ns %.4fs, between ON and OFF %.4fs", a.on_ns / 1e9,
		       t2 - t1);
	EXPECT_GE(t3 - t0 + 1e-3, a.on_ns / 1e9)
		TH_LOG("on_ns %.4fs, across ON and OFF %.4fs", a.on_ns / 1e9,
		       t3 - t0);
	prf_sleep(0.3);
	ASSERT_EQ(0, prf_info(self->fd, &b));
	EXPECT_EQ(a.on_ns, b.on_ns);
}

/* ---- PRF_GETFLAGS / PRF_SETFLAGS ----------------------------------------- */

TEST_F(ext, flags_start_at_0)
{
	EXPECT_EQ(0, flags_of(self->fd));
}

TEST_F(ext, setflags_jitter_reads_back)
{
	struct prf_info info;

	ASSERT_EQ(0, prf_set_flags(self->fd, PRF_FLAG_JITTER));
	EXPECT_EQ(PRF_FLAG_JITTER, flags_of(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(PRF_FLAG_JITTER, info.flags);
	ASSERT_EQ(0, prf_set_flags(self->fd, 0));
	EXPECT_EQ(0, flags_of(self->fd));
}

TEST_F(ext, setflags_unknown_bits_einval_flags_unchanged)
{
	static const __u32 bad[] = {
		0x8, 0x10, 0x80000000U, ~0U, PRF_FLAG_JITTER | 0x8,
		~PRF_FLAGS_ALL, PRF_FLAG_JITTER | PRF_FLAG_FIXED,
		PRF_FLAGS_ALL,
	};
	size_t i;

	ASSERT_EQ(0, prf_set_flags(self->fd, PRF_FLAG_JITTER));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, prf_set_flags(self->fd, bad[i])) TH_LOG("%#x", bad[i]);
		EXPECT_EQ(PRF_FLAG_JITTER, flags_of(self->fd));
	}
}

TEST_F(ext, setflags_while_on_ebusy_flags_unchanged)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(-EBUSY, prf_set_flags(self->fd, PRF_FLAG_JITTER));
	EXPECT_EQ(0, flags_of(self->fd));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(ext, flags_are_per_instance)
{
	PRF_NEED_CPU(0);
	ASSERT_EQ(0, prf_set_flags(self->cpu[0], PRF_FLAG_JITTER));
	EXPECT_EQ(0, flags_of(self->fd));
	EXPECT_EQ(PRF_FLAG_JITTER, flags_of(self->cpu[0]));
}

TEST_F(ext, flags_bad_pointer_efault)
{
	static const unsigned long cmds[] = { PRF_GETFLAGS, PRF_SETFLAGS, 0 };

	bad_pointers_efault(_metadata, self->fd, cmds);
	EXPECT_EQ(0, flags_of(self->fd));
}

TEST_F(ext, setflags_each_flag_and_combination_reads_back)
{
	static const __u32 good[] = {
		PRF_FLAG_JITTER, PRF_FLAG_FIXED, PRF_FLAG_ISOLATED,
		PRF_FLAG_JITTER | PRF_FLAG_ISOLATED,
		PRF_FLAG_FIXED | PRF_FLAG_ISOLATED, 0,
	};
	struct prf_info info;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_EQ(0, prf_set_flags(self->fd, good[i])) TH_LOG("%#x", good[i]);
		EXPECT_EQ(good[i], flags_of(self->fd));
		ASSERT_EQ(0, prf_info(self->fd, &info));
		EXPECT_EQ(good[i], info.flags);
	}
}

TEST_F(ext, flag_values_are_the_abi)
{
	EXPECT_EQ(0x1, PRF_FLAG_JITTER);
	EXPECT_EQ(0x2, PRF_FLAG_FIXED);
	EXPECT_EQ(0x4, PRF_FLAG_ISOLATED);
	EXPECT_EQ(0x8, PRF_FLAG_USERPC);
	EXPECT_EQ(0xf, PRF_FLAGS_ALL);
	/* the number of PRF_GETINFO is the one of version 1 */
	EXPECT_EQ(_IOWR(PRF_IOC_MAGIC, 8, char[PRF_INFO_SIZE_V1]), PRF_GETINFO);
}

/* Every period is in exactly one of ticks_total, ticks_lost, ticks_noregs. */
TEST_F(ext, noregs_is_its_own_tally)
{
	struct prf_info info;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_hz(self->fd, 1000));
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.5);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	TH_LOG("%llu taken, %llu lost, %llu without registers",
	       (unsigned long long)info.ticks_total,
	       (unsigned long long)info.ticks_lost,
	       (unsigned long long)info.ticks_noregs);
	EXPECT_LT(0, info.ticks_total);
	/* a hardirq timer always has the interrupted registers */
	EXPECT_EQ(0, info.ticks_noregs);
	ASSERT_EQ(0, prf_clear(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	EXPECT_EQ(0, info.ticks_noregs);
}

TEST_HARNESS_MAIN
