// SPDX-License-Identifier: GPL-2.0
/*
 * prf_sysfs_test - /sys/class/prf/<dev>/{control,hz,size,max,info}.
 *
 * control takes kprof(3)'s words start, stop, startclr and clear, and reads
 * back on, off or unloaded; hz is PRF_GETHZ/PRF_SETHZ with the same errors;
 * size and max are the read-only numbers of PRF_GETSIZE and PRF_GETMAX;
 * info is one "key value" line per struct prf_info field, named as in the
 * struct.  All of it works from a shell: cat table > /dev/prf; echo start.
 * filter and info are root's alone (0600, 0400): they name the process or
 * cgroup profiled and tell how it runs; the others anyone may read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/capability.h>

#include "prf_fixture.h"

PRF_FIXTURE(sysfs);

#define BASE	0xffffffff81000000ULL

static const char *const attrs[] = {
	"control", "hz", "size", "max", "info", "cpus", NULL
};

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

/* The attribute's text, or "<-errno>" */
static const char *attr(int cpu, const char *name)
{
	static char buf[4096];
	int r = prf_sysfs_read(cpu, name, buf, sizeof(buf));

	if (r < 0)
		snprintf(buf, sizeof(buf), "<%d>", r);
	return buf;
}

static long attr_num(int cpu, const char *name)
{
	const char *s = attr(cpu, name);
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && !strcmp(end, "\n") ? v : -1;
}

/* ---- the files ----------------------------------------------------------- */

TEST_F(sysfs, every_device_has_the_attributes)
{
	int cpu, i;

	for (cpu = PRF_ALL; cpu < self->ncpus; cpu++)
		for (i = 0; attrs[i]; i++) {
			char path[128];

			prf_sysfs_path(cpu, attrs[i], path, sizeof(path));
			EXPECT_EQ(0, access(path, R_OK)) TH_LOG("%s", path);
		}
}

TEST_F(sysfs, dev_attribute_matches_the_node)
{
	int cpu;

	for (cpu = PRF_ALL; cpu < self->ncpus; cpu++) {
		dev_t rdev = prf_rdev(cpu);
		char want[32];

		snprintf(want, sizeof(want), "%u:%u\n", major(rdev), minor(rdev));
		EXPECT_STREQ(want, attr(cpu, "dev")) TH_LOG("cpu %d", cpu);
	}
}

TEST_F(sysfs, control_and_hz_writable_size_max_info_not)
{
	static const struct { const char *name; int writable; } modes[] = {
		{ "control", 1 }, { "hz", 1 }, { "size", 0 }, { "max", 0 },
		{ "info", 0 }, { "cpus", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char path[128];
		struct stat st;

		prf_sysfs_path(PRF_ALL, modes[i].name, path, sizeof(path));
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_EQ(modes[i].writable, !!(st.st_mode & 0222)) TH_LOG("%s %o",
			path, st.st_mode & 0777);
	}
}

#define NOBODY	65534

/*
 * filter names the process or cgroup profiled, and info (with a filter)
 * tells how it runs: root's alone.  The rest is for anyone to read.
 */
TEST_F(sysfs, filter_and_info_are_root_s_alone)
{
	static const struct { const char *name; mode_t mode; } modes[] = {
		{ "filter", 0600 }, { "info", 0400 }, { "control", 0644 },
		{ "hz", 0644 }, { "stacks", 0644 }, { "size", 0444 },
		{ "max", 0444 }, { "cpus", 0444 },
	};
	int cpu;
	size_t i;

	for (cpu = PRF_ALL; cpu < self->ncpus && cpu < 2; cpu++)
		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			char path[128];
			struct stat st;

			prf_sysfs_path(cpu, modes[i].name, path, sizeof(path));
			ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
			EXPECT_EQ(modes[i].mode, st.st_mode & 0777)
				TH_LOG("%s %o", path, st.st_mode & 0777);
			EXPECT_EQ(0, st.st_uid) TH_LOG("%s", path);
		}
}

TEST_F(sysfs, nobody_cannot_read_filter_or_info)
{
	char path[128];

	ASSERT_EQ(0, prf_set_filter(self->fd, PRF_FILTER_TGID, getpid()));
	prf_sysfs_path(PRF_ALL, "filter", path, sizeof(path));
	EXPECT_EQ(EACCES, prf_open_flags_as(path, O_RDONLY, NOBODY, 0));
	/* CAP_PERFMON opens the device, not root's files */
	EXPECT_EQ(EACCES, prf_open_flags_as(path, O_RDONLY, NOBODY,
					    PRF_CAP(CAP_PERFMON)));
	prf_sysfs_path(PRF_ALL, "info", path, sizeof(path));
	EXPECT_EQ(EACCES, prf_open_flags_as(path, O_RDONLY, NOBODY, 0));
	prf_sysfs_path(0, "filter", path, sizeof(path));
	EXPECT_EQ(EACCES, prf_open_flags_as(path, O_RDONLY, NOBODY, 0));
	prf_sysfs_path(0, "info", path, sizeof(path));
	EXPECT_EQ(EACCES, prf_open_flags_as(path, O_RDONLY, NOBODY, 0));
}

TEST_F(sysfs, nobody_still_reads_what_names_no_one)
{
	static const char *const open_attrs[] = {
		"control", "hz", "size", "max", "cpus", "stacks",
	};
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(open_attrs) / sizeof(open_attrs[0]); i++) {
		prf_sysfs_path(PRF_ALL, open_attrs[i], path, sizeof(path));
		EXPECT_EQ(0, prf_open_flags_as(path, O_RDONLY, NOBODY, 0))
			TH_LOG("%s", path);
	}
}

TEST_F(sysfs, root_reads_the_filter_and_info)
{
	char want[32];

	ASSERT_EQ(0, prf_set_filter(self->fd, PRF_FILTER_TGID, getpid()));
	snprintf(want, sizeof(want), "tgid %d\n", getpid());
	EXPECT_STREQ(want, attr(PRF_ALL, "filter"));
	EXPECT_NE(NULL, strstr(attr(PRF_ALL, "info"), "hz 100\n"));
}

TEST_F(sysfs, size_and_max_refuse_writes)
{
	EXPECT_EQ(-EACCES, prf_sysfs_write(PRF_ALL, "size", "5"));
	EXPECT_EQ(-EACCES, prf_sysfs_write(PRF_ALL, "max", "5"));
	EXPECT_EQ(-EACCES, prf_sysfs_write(PRF_ALL, "info", "5"));
	EXPECT_EQ(-EACCES, prf_sysfs_write(PRF_ALL, "cpus", "0"));
}

/* ---- control ------------------------------------------------------------- */

TEST_F(sysfs, control_reads_unloaded)
{
	EXPECT_STREQ("unloaded\n", attr(PRF_ALL, "control"));
}

TEST_F(sysfs, control_reads_off_when_loaded)
{
	load(_metadata, self->fd, 5);
	EXPECT_STREQ("off\n", attr(PRF_ALL, "control"));
}

TEST_F(sysfs, control_reads_on_when_on)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_STREQ("on\n", attr(PRF_ALL, "control"));
}

TEST_F(sysfs, control_start_turns_on)
{
	load(_metadata, self->fd, 5);
	EXPECT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "start"));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_STREQ("on\n", attr(PRF_ALL, "control"));
}

TEST_F(sysfs, control_accepts_trailing_newline)
{
	load(_metadata, self->fd, 5);
	EXPECT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "start\n"));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "stop\n"));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(sysfs, control_stop_turns_off)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "stop"));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_STREQ("off\n", attr(PRF_ALL, "control"));
}

TEST_F(sysfs, control_start_unloaded_enxio)
{
	EXPECT_EQ(-ENXIO, prf_sysfs_write(PRF_ALL, "control", "start"));
	EXPECT_EQ(0, prf_status(self->fd));
	EXPECT_STREQ("unloaded\n", attr(PRF_ALL, "control"));
}

TEST_F(sysfs, control_startclr_unloaded_enxio)
{
	EXPECT_EQ(-ENXIO, prf_sysfs_write(PRF_ALL, "control", "startclr"));
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(sysfs, control_clear_unloaded_enxio)
{
	EXPECT_EQ(-ENXIO, prf_sysfs_write(PRF_ALL, "control", "clear"));
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(sysfs, control_unknown_word_einval)
{
	static const char *const bad[] = {
		"begin", "START", "on", "off", "", "\n", "start now", "startx",
		"stopclr", NULL,
	};
	int i;

	load(_metadata, self->fd, 5);
	for (i = 0; bad[i]; i++) {
		int r = prf_sysfs_write(PRF_ALL, "control", bad[i]);

		/* an empty write never reaches the driver: it succeeds as 0 */
		if (!bad[i][0])
			continue;
		EXPECT_EQ(-EINVAL, r) TH_LOG("\"%s\"", bad[i]);
	}
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(sysfs, control_clear_zeroes_counters_keeps_state)
{
	struct prf_snap s;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(0.3);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "clear"));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(0, prf_snap_total(&s));
	EXPECT_EQ(BASE, s.addrs[0]);
	prf_snap_free(&s);
}

TEST_F(sysfs, control_clear_while_on_keeps_on)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "clear"));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(sysfs, control_startclr_zeroes_and_starts)
{
	struct prf_info info;
	struct prf_snap s;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	prf_sleep(1.0);
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, prf_info(self->fd, &info));
	ASSERT_LT(0, info.ticks_total);

	ASSERT_EQ(0, prf_sysfs_write(PRF_ALL, "control", "startclr"));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_GT(info.ticks_total / 4, prf_snap_total(&s));
	prf_snap_free(&s);
}

TEST_F(sysfs, control_of_cpu_device_drives_that_instance)
{
	PRF_NEED_CPU(1);
	load(_metadata, self->cpu[1], 5);
	EXPECT_STREQ("off\n", attr(1, "control"));
	EXPECT_STREQ("unloaded\n", attr(PRF_ALL, "control"));
	ASSERT_EQ(0, prf_sysfs_write(1, "control", "start"));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->cpu[1]));
	EXPECT_EQ(0, prf_status(self->fd));
	EXPECT_STREQ("on\n", attr(1, "control"));
}

/* ---- hz ------------------------------------------------------------------ */

TEST_F(sysfs, hz_reads_the_rate)
{
	EXPECT_STREQ("100\n", attr(PRF_ALL, "hz"));
	ASSERT_EQ(0, prf_set_hz(self->fd, 977));
	EXPECT_STREQ("977\n", attr(PRF_ALL, "hz"));
}

TEST_F(sysfs, hz_write_sets_the_rate)
{
	__u32 hz = 0;

	ASSERT_EQ(0, prf_sysfs_write(PRF_ALL, "hz", "1000\n"));
	ASSERT_EQ(0, prf_get_hz(self->fd, &hz));
	EXPECT_EQ(1000, hz);
	ASSERT_EQ(0, prf_sysfs_write(PRF_ALL, "hz", "1"));
	EXPECT_EQ(1, attr_num(PRF_ALL, "hz"));
	ASSERT_EQ(0, prf_sysfs_write(PRF_ALL, "hz", "10000"));
	EXPECT_EQ(10000, attr_num(PRF_ALL, "hz"));
}

/* Decimal only: a leading 0 is not octal, 0x is not hexadecimal. */
TEST_F(sysfs, hz_is_decimal)
{
	ASSERT_EQ(0, prf_sysfs_write(PRF_ALL, "hz", "010"));
	EXPECT_EQ(10, attr_num(PRF_ALL, "hz"));
	EXPECT_EQ(-EINVAL, prf_sysfs_write(PRF_ALL, "hz", "0x10"));
	EXPECT_EQ(10, attr_num(PRF_ALL, "hz"));
}

TEST_F(sysfs, hz_out_of_range_einval_unchanged)
{
	static const char *const bad[] = {
		"0", "10001", "-1", "4294967296", "abc", "100x",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, prf_sysfs_write(PRF_ALL, "hz", bad[i]))
			TH_LOG("\"%s\"", bad[i]);
	EXPECT_EQ(PRF_HZ_DEFAULT, attr_num(PRF_ALL, "hz"));
}

TEST_F(sysfs, hz_while_on_ebusy_unchanged)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(-EBUSY, prf_sysfs_write(PRF_ALL, "hz", "1000"));
	EXPECT_EQ(PRF_HZ_DEFAULT, attr_num(PRF_ALL, "hz"));
}

/* ---- size, max ----------------------------------------------------------- */

TEST_F(sysfs, size_matches_getsize)
{
	EXPECT_EQ(0, attr_num(PRF_ALL, "size"));
	load(_metadata, self->fd, 1234);
	EXPECT_EQ(1234, attr_num(PRF_ALL, "size"));
	EXPECT_EQ(prf_size(self->fd), attr_num(PRF_ALL, "size"));
}

TEST_F(sysfs, max_matches_getmax)
{
	int cpu;

	for (cpu = PRF_ALL; cpu < self->ncpus; cpu++)
		EXPECT_EQ(prf_max(self->fd), attr_num(cpu, "max")) TH_LOG("cpu %d", cpu);
}

/* ---- info ---------------------------------------------------------------- */

static const char *const info_keys[] = {
	"size", "version", "status", "flags", "hz", "usec_per_tick", "cpu",
	"ncpus", "naddrs", "max_addrs", "ticks_total", "ticks_outside",
	"ticks_user", "ticks_idle", "ticks_lost", "on_ns", "mem_bytes",
	"ticks_sampled", "ticks_noregs", "ticks_filtered", "tasks_dropped",
	"stacks_dropped", "stack_depth", "stack_capacity", "mode", "mode_dropped",
	"sample_budget", "budget_used",
	"source", "event", "period", "samples_nmi", "pmu_count",
	"pmu_enabled_ns", "pmu_running_ns", "pmu_throttled", "pmu_cpus",
	NULL,
};
/* the fields of struct prf_info, one line each */
#define NKEYS ((int)(sizeof(info_keys) / sizeof(info_keys[0])) - 1)

/* Parse info into @vals (indexed like info_keys): number of lines, or -1. */
static int parse_info(int cpu, long long *vals, char *bad, size_t badlen)
{
	char *text = strdup(attr(cpu, "info")), *line, *save = NULL;
	int n = 0, i;

	bad[0] = 0;
	for (i = 0; info_keys[i]; i++)
		vals[i] = -12345;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), n++) {
		char key[64], rest[8];
		long long v;

		if (sscanf(line, "%63s %lld%7s", key, &v, rest) != 2) {
			snprintf(bad, badlen, "line \"%s\"", line);
			break;
		}
		for (i = 0; info_keys[i]; i++)
			if (!strcmp(key, info_keys[i]))
				break;
		if (!info_keys[i] || vals[i] != -12345) {
			snprintf(bad, badlen, "key \"%s\"", key);
			break;
		}
		vals[i] = v;
	}
	free(text);
	return n;
}

TEST_F(sysfs, info_has_one_line_per_prf_info_field)
{
	long long vals[64];
	char bad[256];
	int i;

	EXPECT_EQ(NKEYS, parse_info(PRF_ALL, vals, bad, sizeof(bad)));
	EXPECT_STREQ("", bad);
	for (i = 0; i < NKEYS; i++)
		EXPECT_NE(-12345, vals[i]) TH_LOG("no %s line", info_keys[i]);
}

TEST_F(sysfs, info_values_match_getinfo)
{
	struct prf_info info;
	long long v[64];
	char bad[256];

	PRF_NEED_CPU(1);
	load(_metadata, self->cpu[1], 42);
	ASSERT_EQ(0, prf_set_hz(self->cpu[1], 250));
	ASSERT_EQ(0, prf_set_flags(self->cpu[1], PRF_FLAG_JITTER));
	ASSERT_EQ(0, prf_info(self->cpu[1], &info));
	parse_info(1, v, bad, sizeof(bad));
	EXPECT_STREQ("", bad);
	EXPECT_EQ(info.size, v[0]);
	EXPECT_EQ(PRF_INFO_VERSION, v[1]);
	EXPECT_EQ(PRF_STATUS_LOADED, v[2]);
	EXPECT_EQ(PRF_FLAG_JITTER, v[3]);
	EXPECT_EQ(250, v[4]);
	EXPECT_EQ(1000000 / 250, v[5]);
	EXPECT_EQ(1, v[6]);
	EXPECT_EQ(1, v[7]);
	EXPECT_EQ(42, v[8]);
	EXPECT_EQ(info.max_addrs, v[9]);
	EXPECT_EQ(0, v[10]);
	EXPECT_EQ(info.mem_bytes, v[16]);
	EXPECT_EQ(info.ticks_sampled, v[17]);
	EXPECT_EQ(0, v[18]);
}

TEST_F(sysfs, info_of_all_cpus_device_says_cpu_minus_1)
{
	long long v[64];
	char bad[256];

	parse_info(PRF_ALL, v, bad, sizeof(bad));
	EXPECT_EQ(-1, v[6]);
	EXPECT_EQ(prf_nr_online(), v[7]);
}

/* ---- a shell-only workflow ----------------------------------------------- */

/* shells over 9p on a KASAN kernel are slow: more than the default 30 s */
TEST_F_TIMEOUT(sysfs, shell_workflow_loads_starts_stops_and_reads, 180)
{
	char table[] = "/tmp/prf-table.XXXXXX", cmd[512];
	struct prf_ksyms k;
	struct prf_snap s;
	size_t n;
	int fd;

	/* cat writes in chunks of 128 KiB: one write(2), one load, needs a
	 * table that fits, so take the first 4096 text symbols. */
	ASSERT_EQ(0, prf_ksyms_load(&k));
	n = k.n < 4096 ? k.n : 4096;
	fd = mkstemp(table);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)(n * 8), write(fd, k.addrs, n * 8));
	close(fd);

	snprintf(cmd, sizeof(cmd),
		 "cat %s > /dev/prf && echo start > /sys/class/prf/prf/control && "
		 "sleep 1 && echo stop > /sys/class/prf/prf/control && "
		 "test \"$(cat /sys/class/prf/prf/control)\" = off && "
		 "test \"$(cat /sys/class/prf/prf/size)\" = %zu", table, n);
	EXPECT_EQ(0, system(cmd)) TH_LOG("%s", cmd);
	unlink(table);

	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(n, s.n);
	EXPECT_EQ(0, memcmp(s.addrs, k.addrs, n * 8));
	EXPECT_LT(0, prf_snap_total(&s));
	prf_snap_free(&s);
	prf_ksyms_free(&k);
}

TEST_HARNESS_MAIN
