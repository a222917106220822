// SPDX-License-Identifier: GPL-2.0
/*
 * prf_access - who may profile, and what read() may give back.
 *
 * Without arguments (a normal boot):
 *   - nobody (uid/gid 65534, no supplementary groups, every capability gone:
 *     effective, permitted, inheritable, ambient and bounding, checked in
 *     /proc/self/status) cannot open any device: EACCES from the node's
 *     mode, and EPERM exactly through a 0666 copy of the node, which only
 *     prf's own check can refuse; nor write control or hz (EACCES or EPERM);
 *     the device's state is unchanged;
 *   - root with no capabilities: EPERM from open and from sysfs writes (the
 *     mode lets root through: this is prf's check);
 *   - root with only CAP_PERFMON, or only CAP_SYS_ADMIN, may open;
 *   - read() returns, byte for byte, what was written last on that device by
 *     whichever writer, never another device's table, never a stale or mixed
 *     one (concurrent writers and readers on every device), counters zero
 *     after a load, nothing past the returned length, nothing at all on
 *     failure.
 *
 * With --lockdown (boot with lockdown=confidentiality): even full root gets
 * EPERM from open and from sysfs writes, and the kernel says why in its log
 * (lockdown's own "unsafe use of perf is restricted"; prf adds nothing).
 *
 * usage: prf_access [--lockdown] [--seconds S]
 */
#include <getopt.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "common.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

static struct prf_dev devs[MAX_DEVS];
static int ndevs;
static void *volatile nullp;	/* NULL the compiler cannot see */

/* ---- credentials ------------------------------------------------------------- */

enum cred {
	NOBODY,		/* 65534, no capabilities */
	ROOT_NOCAPS,	/* uid 0, no capabilities */
	ROOT_PERFMON,	/* uid 0, only CAP_PERFMON */
	ROOT_SYSADMIN,	/* uid 0, only CAP_SYS_ADMIN */
};

static const char *const cred_name[] = {
	"nobody without capabilities", "root without capabilities",
	"root with only CAP_PERFMON", "root with only CAP_SYS_ADMIN",
};

static int capset_raw(__u64 caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (__u32)caps, (__u32)caps, 0 },
		{ (__u32)(caps >> 32), (__u32)(caps >> 32), 0 },
	};

	return syscall(SYS_capset, &h, d);
}

/*
 * /proc/self/status must show @keep as the permitted, effective and bounding
 * sets, and nothing inheritable or ambient.
 */
static bool caps_are(__u64 keep)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256], name[32];
	unsigned long long v;
	int seen = 0;
	bool ok = true;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Cap%31[^:]: %llx", name, &v) != 2)
			continue;
		seen++;
		if (!strcmp(name, "Inh") || !strcmp(name, "Amb"))
			ok &= v == 0;
		else
			ok &= v == keep;
	}
	if (f)
		fclose(f);
	return ok && seen == 5;
}

/* In a child: become @c.  Returns false if any step did not take. */
static bool become(enum cred c)
{
	int last = 40, cap;
	char b[16];
	__u64 keep = 0;

	if (read_str("/proc/sys/kernel/cap_last_cap", b, sizeof(b)) > 0)
		last = atoi(b);
	if (c == ROOT_PERFMON)
		keep = 1ULL << CAP_PERFMON;
	else if (c == ROOT_SYSADMIN)
		keep = 1ULL << CAP_SYS_ADMIN;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0))
		return false;
	for (cap = 0; cap <= last; cap++)
		if (!(keep & (1ULL << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			return false;
	if (c == NOBODY) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			return false;
		if (getuid() != 65534 || geteuid() != 65534 || getgid() != 65534 ||
		    getegid() != 65534 || getgroups(0, NULL) != 0)
			return false;
	}
	if (capset_raw(keep))
		return false;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return false;
	return caps_are(keep);
}

enum action { OPEN_RDONLY, OPEN_RDWR, OPEN_WRONLY, WRITE_FILE };

/*
 * Runs @a on @path as @c in a child: returns 0 on success, the errno of the
 * failure, or -1 if the credentials could not be set up.
 */
static int as(enum cred c, enum action a, const char *path, const char *data)
{
	pid_t pid = fork();
	int status, r;

	if (pid == 0) {
		if (!become(c))
			_exit(255);
		switch (a) {
		case OPEN_RDONLY:
			r = open(path, O_RDONLY);
			break;
		case OPEN_WRONLY:
			r = open(path, O_WRONLY);
			break;
		case OPEN_RDWR:
			r = open(path, O_RDWR);
			break;
		default:
			r = write_str(path, data);
			if (r < 0)
				errno = -r;
			break;
		}
		_exit(r < 0 ? (errno & 0xff) : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	r = WEXITSTATUS(status);
	return r == 255 ? -1 : r;
}

static const char *en(int e)
{
	if (e < 0)
		return "credentials not set up";
	return e ? strerrorname_np(e) : "success";
}

/* A 0666 copy of @d's node where device nodes work: path in @buf. */
static bool open_node(const struct prf_dev *d, char *buf, size_t len)
{
	static const char *const dirs[] = { "/tmp", "/dev" };
	struct stat st;
	unsigned int i;
	int fd;

	if (stat(d->path, &st))
		return false;
	for (i = 0; i < 2; i++) {
		snprintf(buf, len, "%s/.prf-access-%d-%s", dirs[i], getpid(), d->name);
		unlink(buf);
		if (mknod(buf, S_IFCHR | 0666, st.st_rdev))
			continue;
		chmod(buf, 0666);	/* whatever the umask */
		fd = open(buf, O_RDONLY);
		if (fd >= 0) {
			close(fd);
			return true;
		}
		unlink(buf);		/* a nodev mount */
	}
	return false;
}

static int dev_status(const struct prf_dev *d)
{
	int fd = open(d->path, O_RDONLY), st = -1;

	if (fd >= 0) {
		if (ioctl(fd, PRF_GETSTATUS, &st))
			st = -1;
		close(fd);
	}
	return st;
}

static void test_privileges(void)
{
	char node[128], path[128];
	int i, e, before;
	bool ok;

	/* the children must really be who they claim */
	for (i = NOBODY; i <= ROOT_SYSADMIN; i++)
		tap_ok(as(i, WRITE_FILE, "/dev/null", "x") == 0,
		       "a child becomes %s (checked in /proc/self/status)", cred_name[i]);

	for (i = 0; i < ndevs; i++) {
		const struct prf_dev *d = &devs[i];

		before = dev_status(d);
		ok = true;
		e = as(NOBODY, OPEN_RDONLY, d->path, NULL);
		ok &= e == EACCES || e == EPERM;
		e = as(NOBODY, OPEN_RDWR, d->path, NULL);
		ok &= e == EACCES || e == EPERM;
		tap_ok(ok, "%s: nobody cannot open it (%s)", d->path, en(e));

		if (open_node(d, node, sizeof(node))) {
			int e1 = as(NOBODY, OPEN_RDONLY, node, NULL);
			int e2 = as(NOBODY, OPEN_WRONLY, node, NULL);

			tap_ok(e1 == EPERM && e2 == EPERM,
			       "%s: nobody gets EPERM through a 0666 node (%s, %s)",
			       d->path, en(e1), en(e2));
			unlink(node);
		} else {
			tap_skip("%s: no place for a 0666 node", d->path);
		}

		e = as(ROOT_NOCAPS, OPEN_RDWR, d->path, NULL);
		tap_ok(e == EPERM, "%s: root without CAP_PERFMON/CAP_SYS_ADMIN gets EPERM (%s)",
		       d->path, en(e));
		e = as(ROOT_PERFMON, OPEN_RDWR, d->path, NULL);
		tap_ok(e == 0, "%s: CAP_PERFMON alone may open (%s)", d->path, en(e));
		e = as(ROOT_SYSADMIN, OPEN_RDWR, d->path, NULL);
		tap_ok(e == 0, "%s: CAP_SYS_ADMIN alone may open (%s)", d->path, en(e));

		/* sysfs */
		{
			int e1 = as(NOBODY, WRITE_FILE, attr_path(d, "control", path, sizeof(path)), "start");
			int e2 = as(NOBODY, WRITE_FILE, attr_path(d, "control", path, sizeof(path)), "clear");
			int e3 = as(NOBODY, WRITE_FILE, attr_path(d, "hz", path, sizeof(path)), "1000");
			int e4 = as(ROOT_NOCAPS, WRITE_FILE, attr_path(d, "control", path, sizeof(path)), "stop");
			int e5 = as(ROOT_NOCAPS, WRITE_FILE, attr_path(d, "hz", path, sizeof(path)), "1000");

			tap_ok((e1 == EACCES || e1 == EPERM) && (e2 == EACCES || e2 == EPERM) &&
			       (e3 == EACCES || e3 == EPERM),
			       "%s: nobody cannot write control or hz (%s, %s, %s)", d->name,
			       en(e1), en(e2), en(e3));
			tap_ok(e4 == EPERM && e5 == EPERM,
			       "%s: root without capabilities gets EPERM from control and hz (%s, %s)",
			       d->name, en(e4), en(e5));
			tap_ok(dev_status(d) == before, "%s: state unchanged by the refused writes",
			       d->path);
		}
	}
}

/* ---- what read() gives back ------------------------------------------------- */

/* Device @d's table of generation @g: every address encodes (d, g, i). */
static void gen_table(__u64 *t, size_t n, int d, unsigned int g)
{
	size_t i;

	for (i = 0; i < n; i++)
		t[i] = 0xffff000000000000ULL | ((__u64)d << 40) |
		       ((__u64)(g & 0xffff) << 24) | (i * 16);
}

static bool decode_ok(const __u64 *t, size_t n, int d)
{
	unsigned int g = (t[0] >> 24) & 0xffff;
	__u64 want[4096];

	if (n > 4096)
		return false;
	gen_table(want, n, d, g);
	return !memcmp(t, want, n * 8);
}

static bool read_back(int fd, const __u64 *t, size_t n, const char *what)
{
	size_t full = (2 * n + 2) * 8, big = full + 4096, i;
	unsigned char *b = malloc(big);
	ssize_t r;
	bool ok = true;

	memset(b, 0xa5, big);
	r = read(fd, b, big);
	if (r != (ssize_t)full || memcmp(b, t, n * 8)) {
		tap_diag("%s: read %zd bytes, want %zu; addresses %s", what, r, full,
			 r > 0 && !memcmp(b, t, n * 8) ? "match" : "differ");
		ok = false;
	}
	for (i = n * 8; ok && i < full; i++)
		if (b[i]) {
			tap_diag("%s: counter byte %zu not zero after a load", what, i);
			ok = false;
		}
	for (i = full; ok && i < big; i++)
		if (b[i] != 0xa5) {
			tap_diag("%s: byte %zu past the result written", what, i);
			ok = false;
		}
	free(b);
	return ok;
}

struct rw_arg {
	int d;
	int seed;
	double until;
	unsigned long reads, bad;
};

static void *rw_thread(void *p)
{
	struct rw_arg *a = p;
	struct rng r = { (uint64_t)a->seed * 7919 };
	__u64 *t = malloc(4096 * 8), *b = malloc((2 * 4096 + 2) * 8);
	int fd = open(devs[a->d].path, O_RDWR | O_CLOEXEC);

	while (now_s() < a->until) {
		size_t n = 3 + rng_below(&r, 1000);
		ssize_t got;

		if (rng_chance(&r, 40)) {
			gen_table(t, n, a->d, rng_below(&r, 65536));
			if (load_table(fd, t, n))
				a->bad++;
		}
		got = read(fd, b, (2 * 4096 + 2) * 8);
		a->reads++;
		if (got < 64 || got % 8 || (got / 8 - 2) % 2 || !decode_ok(b, (got / 8 - 2) / 2, a->d)) {
			if (a->bad++ < 3)
				tap_diag("%s: read %zd bytes that are not one whole table of this device",
					 devs[a->d].path, got);
		}
	}
	close(fd);
	free(t);
	free(b);
	return NULL;
}

static void test_readback(double seconds)
{
	__u64 t[512], t2[512], small[3];
	int fds[MAX_DEVS], i, other, e;
	struct rw_arg args[2 * MAX_DEVS];
	pthread_t tids[2 * MAX_DEVS];
	unsigned char canary[64];
	bool ok;

	for (i = 0; i < ndevs; i++) {
		fds[i] = open(devs[i].path, O_RDWR | O_CLOEXEC);
		set_state(fds[i], 0);
		gen_table(t, 512, i, 1);
		load_table(fds[i], t, 512);
	}
	ok = true;
	for (i = 0; i < ndevs; i++) {
		int fd = open(devs[i].path, O_RDONLY | O_CLOEXEC);	/* another file */

		gen_table(t, 512, i, 1);
		ok &= read_back(fd, t, 512, devs[i].path);
		close(fd);
	}
	tap_ok(ok, "each device reads back its own table, byte for byte, zero counters");

	/* another writer, in another process, on device 0 */
	gen_table(t2, 300, 0, 2);
	if (fork() == 0) {
		int fd = open(devs[0].path, O_WRONLY);

		_exit(fd < 0 || load_table(fd, t2, 300) ? 1 : 0);
	}
	wait(&e);
	ok = WIFEXITED(e) && WEXITSTATUS(e) == 0 && read_back(fds[0], t2, 300, "after another writer");
	for (i = 1; i < ndevs; i++) {
		gen_table(t, 512, i, 1);
		ok &= read_back(fds[i], t, 512, devs[i].path);
	}
	tap_ok(ok, "a table written by another process is what the first file reads; other devices unchanged");

	/* failed writes change nothing, or (EINVAL) leave nothing to read */
	other = ndevs > 1 ? 1 : 0;
	gen_table(t, 512, other, 1);
	ok = write(fds[other], t, 17) < 0 && errno == E2BIG;
	ok &= write(fds[other], nullp, 64) < 0 && errno == EFAULT;
	ok &= read_back(fds[other], t, 512, "after E2BIG and EFAULT");
	set_state(fds[other], 1);
	gen_table(t2, 100, other, 3);
	ok &= write(fds[other], t2, 800) < 0 && errno == EBUSY;
	set_state(fds[other], 0);
	/* counters may have moved while ON: compare the addresses only */
	{
		__u64 b[512];

		ok &= read(fds[other], b, sizeof(b)) == sizeof(b) && !memcmp(b, t, sizeof(b));
	}
	tap_ok(ok, "E2BIG, EFAULT and EBUSY writes leave the table as it was");
	small[0] = 3, small[1] = 2, small[2] = 1;
	memset(canary, 0xa5, sizeof(canary));
	ok = write(fds[other], small, sizeof(small)) < 0 && errno == EINVAL &&
	     read(fds[other], canary, sizeof(canary)) < 0 && errno == ENXIO;
	for (i = 0; i < (int)sizeof(canary); i++)
		ok &= canary[i] == 0xa5;
	tap_ok(ok, "after EINVAL nothing is readable (ENXIO, buffer untouched)");

	/* a big table then a small one: nothing of the big one shows */
	gen_table(t, 512, other, 4);
	load_table(fds[other], t, 512);
	set_state(fds[other], 1);
	sleep_ms(50);
	set_state(fds[other], 0);
	gen_table(t2, 3, other, 5);
	load_table(fds[other], t2, 3);
	tap_ok(read_back(fds[other], t2, 3, "small after big"),
	       "a small table after a big one: exactly its bytes, zero counters, nothing stale");

	/* every device at once: writers and readers, two threads each */
	for (i = 0; i < 2 * ndevs; i++) {
		args[i] = (struct rw_arg){ .d = i % ndevs, .seed = i + 1,
					   .until = now_s() + seconds };
		pthread_create(&tids[i], NULL, rw_thread, &args[i]);
	}
	ok = true;
	{
		unsigned long reads = 0;

		for (i = 0; i < 2 * ndevs; i++) {
			pthread_join(tids[i], NULL);
			reads += args[i].reads;
			ok &= args[i].bad == 0;
		}
		tap_ok(ok && reads > 0,
		       "concurrent writers: %lu reads, each one whole table of its own device", reads);
	}
	for (i = 0; i < ndevs; i++) {
		set_hz(fds[i], PRF_HZ_DEFAULT);
		if (write(fds[i], small, sizeof(small)) >= 0)	/* EINVAL: unloads */
			tap_diag("%s: an unordered table was taken", devs[i].path);
		close(fds[i]);
	}
}

/* ---- lockdown ------------------------------------------------------------------ */

static void test_lockdown(int kfd_all)
{
	char b[256], path[128];
	int i, fd, e, r;
	bool ok;

	if (access("/sys/kernel/security/lockdown", F_OK))
		mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	r = read_str("/sys/kernel/security/lockdown", b, sizeof(b));
	if (!tap_ok(r > 0 && strstr(b, "[confidentiality]"),
		    "the kernel is locked down for confidentiality (%s)",
		    r > 0 ? strtok(b, "\n") : "no /sys/kernel/security/lockdown"))
		return;
	for (i = 0; i < ndevs; i++) {
		fd = open(devs[i].path, O_RDONLY);
		e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		tap_ok(e == EPERM, "%s: root cannot open it under lockdown (%s)", devs[i].path,
		       e ? strerrorname_np(e) : "success");
		r = write_str(attr_path(&devs[i], "control", path, sizeof(path)), "start");
		ok = r == -EPERM;
		r = write_str(attr_path(&devs[i], "hz", path, sizeof(path)), "100");
		ok &= r == -EPERM;
		tap_ok(ok, "%s: control and hz refuse root under lockdown (EPERM)", devs[i].name);
	}
	tap_ok(kmsg_scan(kfd_all, "unsafe use of perf is restricted") == 1,
	       "the kernel says why in its log: \"unsafe use of perf is restricted\"");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "lockdown", no_argument, NULL, 'l' },
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	bool lockdown = false;
	double seconds = 3;
	int o, kfd, kfd_all, reports;

	while ((o = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (o) {
		case 'l': lockdown = true; break;
		case 's': seconds = atof(optarg); break;
		default:
			fprintf(stderr, "usage: %s [--lockdown] [--seconds S]\n", argv[0]);
			return 2;
		}
	}
	tap_begin();
	tap_diag("prf_access%s", lockdown ? " --lockdown" : "");
	ndevs = prf_devices(devs, MAX_DEVS);
	if (ndevs <= 0 || access(devs[0].path, F_OK)) {
		tap_skip("no prf devices (is prf.ko loaded?)");
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	if (getuid() != 0) {
		tap_skip("must run as root");
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	kfd = kmsg_open_tail();
	kfd_all = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);	/* from the start */
	tap_ok(kmsg_selfcheck(kfd), "kernel log scanner sees new records and knows reports");
	if (lockdown) {
		test_lockdown(kfd_all);
	} else {
		test_privileges();
		test_readback(seconds);
	}
	reports = kmsg_scan(kfd, NULL);
	tap_ok(reports == 0, "no kernel report");
	return tap_end();
}
