/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the prf stress programs share: TAP output, the documented
 * errno sets of uapi/linux/prf.h, per-errno result counters, the kernel log
 * scanner, device discovery, kernel text tables, a seeded PRNG.
 *
 * Header-only (static functions): each program is one translation unit.
 */
#ifndef PRF_STRESS_COMMON_H
#define PRF_STRESS_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/prf.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

/* ---- TAP ------------------------------------------------------------------ */

static pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;
static int tap_n;
static int tap_failed;

static void tap_begin(void)
{
	printf("TAP version 13\n");
	fflush(stdout);
}

static void __attribute__((format(printf, 1, 2))) tap_diag(const char *fmt, ...)
{
	va_list ap;

	char *msg = NULL, *line, *save = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg)
		return;
	/* every line a comment: a newline in a message must not break TAP */
	pthread_mutex_lock(&tap_lock);
	for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	fflush(stdout);
	pthread_mutex_unlock(&tap_lock);
	free(msg);
}

/* One test point; returns @ok so callers can chain. */
static bool __attribute__((format(printf, 2, 3))) tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&tap_lock);
	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%s %d ", ok ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&tap_lock);
	return ok;
}

static void __attribute__((format(printf, 1, 2))) tap_skip(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&tap_lock);
	tap_n++;
	printf("ok %d # SKIP ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&tap_lock);
}

/* Prints the plan (at the end, which TAP allows) and gives the exit code. */
static int tap_end(void)
{
	printf("1..%d\n", tap_n);
	printf("# %s: %d test(s), %d failed\n", tap_failed ? "FAIL" : "PASS",
	       tap_n, tap_failed);
	fflush(stdout);
	return tap_failed ? KSFT_FAIL : KSFT_PASS;
}

/* ---- time and randomness ---------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* splitmix64: tiny, seedable, good enough to pick operations. */
struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

static bool rng_chance(struct rng *r, unsigned int percent)
{
	return rng_below(r, 100) < percent;
}

static uint64_t seed_from_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
	       ((uint64_t)getpid() << 32);
}

/* ---- documented errnos, from uapi/linux/prf.h ------------------------------ */

enum op {
	OP_OPEN,	/* ENXIO: a minor with no CPU behind it */
	OP_WRITE,	/* E2BIG ENOSPC EBUSY EFAULT EINVAL ENOMEM */
	OP_READ,	/* ENXIO EFAULT EINTR */
	OP_IOCTL,	/* EFAULT EINVAL EBUSY ENXIO; ENOSPC: ON past the sample budget */
	OP_POLL,	/* none */
	OP_LSEEK,	/* none */
	OP_SYSFS_W,	/* ENXIO EINVAL EBUSY; ENOSPC: "start" past the budget */
	OP_SYSFS_R,	/* none */
	OP_CLOSE,	/* none */
	OP_NR
};

static const char *const op_name[OP_NR] = {
	"open", "write", "read", "ioctl", "poll", "lseek", "sysfs-write",
	"sysfs-read", "close",
};

static bool errno_documented(enum op op, int e)
{
	switch (op) {
	case OP_OPEN:
		return e == ENXIO;
	case OP_WRITE:
		return e == E2BIG || e == ENOSPC || e == EBUSY || e == EFAULT ||
		       e == EINVAL || e == ENOMEM;
	case OP_READ:
		return e == ENXIO || e == EFAULT || e == EINTR;
	case OP_IOCTL:
		return e == EFAULT || e == EINVAL || e == EBUSY || e == ENXIO ||
		       e == ENOSPC;
	case OP_SYSFS_W:
		return e == ENXIO || e == EINVAL || e == EBUSY || e == ENOSPC;
	default:
		return false;
	}
}

/* Result counters: [op][0] successes, [op][e] failures with errno e. */
#define ERRNO_SLOTS	256
static atomic_ulong results[OP_NR][ERRNO_SLOTS];
static atomic_ulong undocumented;
static atomic_ulong calls_made;	/* every call check_result() saw */

/*
 * Records the outcome of one call (ret < 0: failed with errno @e) and checks
 * it: an undocumented errno is a failure, reported once per (op, errno) with
 * @what, the call's description.  Returns true if acceptable.
 */
static bool check_result(enum op op, long ret, int e, const char *what)
{
	static atomic_uchar reported[OP_NR][ERRNO_SLOTS];
	int slot;

	atomic_fetch_add(&calls_made, 1);
	if (ret >= 0) {
		atomic_fetch_add(&results[op][0], 1);
		return true;
	}
	slot = e > 0 && e < ERRNO_SLOTS ? e : ERRNO_SLOTS - 1;
	atomic_fetch_add(&results[op][slot], 1);
	if (errno_documented(op, e))
		return true;
	atomic_fetch_add(&undocumented, 1);
	if (!atomic_exchange(&reported[op][slot], 1))
		tap_diag("UNDOCUMENTED errno %d (%s) from %s: %s", e,
			 strerrorname_np(e) ? strerrorname_np(e) : "?",
			 op_name[op], what);
	return false;
}

static void print_results(void)
{
	unsigned long total = 0, n;
	int op, e;

	for (op = 0; op < OP_NR; op++) {
		char line[2048];
		int len = 0;
		unsigned long sum = 0;

		for (e = 0; e < ERRNO_SLOTS; e++)
			sum += atomic_load(&results[op][e]);
		if (!sum)
			continue;
		total += sum;
		len += snprintf(line + len, sizeof(line) - len, "%-11s %9lu: ok %lu",
				op_name[op], sum, atomic_load(&results[op][0]));
		for (e = 1; e < ERRNO_SLOTS; e++) {
			n = atomic_load(&results[op][e]);
			if (n && len < (int)sizeof(line) - 40)
				len += snprintf(line + len, sizeof(line) - len,
						", %s %lu", strerrorname_np(e) ?
						strerrorname_np(e) : "E?", n);
		}
		tap_diag("%s", line);
	}
	tap_diag("calls in all: %lu, undocumented errnos: %lu", total,
		 atomic_load(&undocumented));
}

/* ---- the kernel log -------------------------------------------------------- */

/*
 * What the kernel's debugging facilities print when they find something.
 * The test bed watches the console too; scanning here makes a program fail
 * at the operation that caused the report and says which.
 */
static const char *const report_patterns[] = {
	"WARNING:", "BUG:", "BUG kmalloc", "KASAN", "UBSAN", "KFENCE",
	"kmemleak", "Oops", "general protection fault", "Kernel panic",
	"possible circular locking", "possible recursive locking",
	"inconsistent lock state", "lock held when returning",
	"suspicious RCU usage", "ODEBUG", "INFO: task", "hung_task",
	"sleeping function called from invalid context", "scheduling while atomic",
	"stack-protector", "Call Trace:", "RIP:", "soft lockup", "hard LOCKUP",
	"rcu_sched self-detected", "rcu: INFO:", "list_add corruption",
	"list_del corruption", "refcount_t:", "double free", "use-after-free",
	"DEBUG_LOCKS_WARN_ON", "unreferenced object",
	NULL,
};

static bool is_report(const char *line)
{
	int i;

	for (i = 0; report_patterns[i]; i++)
		if (strstr(line, report_patterns[i]))
			return true;
	return false;
}

/* /dev/kmsg positioned at the end: later reads see only new records. */
static int kmsg_open_tail(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Reads the records that arrived since the last call; each report line is
 * printed as a diagnostic.  With @find, returns 1 if some record contained
 * @find (and counts no reports); else returns the number of report lines,
 * less those containing @ignore (shown, not counted), when not NULL.
 */
static int kmsg_scan_ignoring(int fd, const char *find, const char *ignore)
{
	char rec[8192];
	int reports = 0, found = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	for (;;) {
		char *msg;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (find) {
			if (strstr(msg, find))
				found = 1;
			continue;
		}
		if (ignore && strstr(msg, ignore)) {
			char *nl = strchr(msg, '\n');

			if (nl)
				*nl = 0;
			tap_diag("kernel (expected, not counted): %s", msg);
		} else if (is_report(msg)) {
			char *nl = strchr(msg, '\n');

			if (nl)
				*nl = 0;
			tap_diag("kernel: %s", msg);
			reports++;
		}
	}
	return find ? found : reports;
}

static int kmsg_scan(int fd, const char *find)
{
	return kmsg_scan_ignoring(fd, find, NULL);
}

/* Writes a marker into the kernel log (to show the scanner reads it). */
static void kmsg_mark(const char *text)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	char rec[512];
	int len;

	/* one write(2) is one record; KERN_INFO keeps it off the console */
	len = snprintf(rec, sizeof(rec), "<6>%s\n", text);
	if (fd >= 0) {
		if (write(fd, rec, len) != len)
			perror("write /dev/kmsg");
		close(fd);
	}
}

/*
 * Proves the scanner can fail: a marker must be seen, every pattern must be
 * recognised and ordinary lines must not.  Returns true if all is well.
 */
static bool kmsg_selfcheck(int fd)
{
	char mark[96];
	int i;

	snprintf(mark, sizeof(mark), "prf-stress: scanner check %d %ld",
		 getpid(), (long)time(NULL));
	kmsg_mark(mark);
	if (kmsg_scan(fd, mark) != 1)
		return false;
	for (i = 0; report_patterns[i]; i++) {
		char line[128];

		snprintf(line, sizeof(line), "[  1.0] x %s y", report_patterns[i]);
		if (!is_report(line))
			return false;
	}
	return !is_report("prf: kernel lockdown forbids kernel profiling") &&
	       !is_report("random: crng init done");
}

/* ---- devices ---------------------------------------------------------------- */

struct prf_dev {
	char name[32];		/* "prf" or "prfN" */
	char path[64];		/* /dev/... */
	int cpu;		/* -1 for /dev/prf */
};

#define MAX_DEVS	64

static int dev_cmp(const void *a, const void *b)
{
	const struct prf_dev *x = a, *y = b;

	return x->cpu - y->cpu;
}

/* /dev/prf then /dev/prfN in CPU order, from /sys/class/prf/. */
static int prf_devices(struct prf_dev *devs, int max)
{
	DIR *d = opendir("/sys/class/" PRF_CLASS);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "prf", 3))
			continue;
		if (de->d_name[3] && !(de->d_name[3] >= '0' && de->d_name[3] <= '9'))
			continue;
		if (strlen(de->d_name) >= sizeof(devs[n].name))
			continue;
		strcpy(devs[n].name, de->d_name);
		strcpy(devs[n].path, "/dev/");
		strcat(devs[n].path, devs[n].name);
		devs[n].cpu = de->d_name[3] ? atoi(de->d_name + 3) : -1;
		n++;
	}
	closedir(d);
	qsort(devs, n, sizeof(*devs), dev_cmp);
	return n;
}

/* ---- sysfs and other small files ---------------------------------------- */

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		buf[0] = 0;
	} else {
		buf[n] = 0;
	}
	close(fd);
	return n;
}

static const char *attr_path(const struct prf_dev *d, const char *attr,
			     char *buf, size_t len)
{
	snprintf(buf, len, "/sys/class/" PRF_CLASS "/%s/%s", d->name, attr);
	return buf;
}

/* ---- ioctls as 0 / -errno ------------------------------------------------ */

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static int get_info(int fd, struct prf_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return xioctl(fd, PRF_GETINFO, info);
}

static int set_state(int fd, int on)
{
	return ioctl(fd, PRF_SETSTATE, (unsigned long)on) < 0 ? -errno : 0;
}

static int set_hz(int fd, __u32 hz)
{
	return xioctl(fd, PRF_SETHZ, &hz);
}

/* Loads @n addresses with one write(2): 0 or -errno (-EIO if short). */
static int load_table(int fd, const __u64 *a, size_t n)
{
	ssize_t w = write(fd, a, n * sizeof(*a));

	if (w < 0)
		return -errno;
	return (size_t)w == n * sizeof(*a) ? 0 : -EIO;
}

/* ---- tables ---------------------------------------------------------------- */

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The kernel's text addresses (t/T in /proc/kallsyms), sorted and unique.
 * If kallsyms shows none (kptr_restrict), a synthetic table at the usual
 * x86-64 kernel text base.  Returns the count; *out is malloc'd.
 */
static size_t kernel_text(__u64 **out, bool *synthetic)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	size_t n = 0, cap = 65536, i, m;
	__u64 *a = malloc(cap * sizeof(*a));
	char line[512];

	*synthetic = false;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type;

		if (sscanf(line, "%llx %c", &addr, &type) != 2)
			continue;
		if ((type != 't' && type != 'T') || !addr)
			continue;
		if (n == cap)
			a = realloc(a, (cap *= 2) * sizeof(*a));
		a[n++] = addr;
	}
	if (f)
		fclose(f);
	qsort(a, n, sizeof(*a), u64_cmp);
	for (i = m = 0; i < n; i++)
		if (!m || a[i] != a[m - 1])
			a[m++] = a[i];
	if (m < 64) {
		*synthetic = true;
		m = 4096;
		for (i = 0; i < m; i++)
			a[i] = 0xffffffff81000000ULL + i * 256;
	}
	*out = a;
	return m;
}

static bool strictly_ascending(const __u64 *a, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (a[i] <= a[i - 1])
			return false;
	return true;
}

#endif /* PRF_STRESS_COMMON_H */
