// SPDX-License-Identifier: GPL-2.0
/*
 * prf_lifetime - unloading and loading prf.ko, --cycles times.
 *
 * The module ($PRF_KO, or --ko) is removed with delete_module(2) and loaded
 * with finit_module(2).  The cycles take turns:
 *
 *   busy     a device is open: delete_module must fail with EWOULDBLOCK
 *            (the kernel's try_stop_module() answer for a module still in
 *            use when O_TRUNC, forcing, is not given; EWOULDBLOCK is EAGAIN
 *            on Linux), with flags O_NONBLOCK (as rmmod) and 0 alike, and
 *            the module must stay usable; after close it must go.
 *   on       every device loaded and sampling at PRF_HZ_MAX, files closed:
 *            the module must unload while ON.
 *   sysfs    a sysfs attribute file held open across the unload: reading it
 *            afterwards fails (ENODEV) instead of touching freed memory.
 *   params   loading with max_addrs=1000 gives PRF_GETMAX 1000; max_addrs=2
 *            is refused with EINVAL and leaves nothing behind.
 *   racing   a thread opens devices and reads sysfs while the module goes
 *            and comes; delete_module is retried while it holds a file.
 *
 * After each unload /dev/prf and /sys/class/prf are gone; after each load a
 * device starts unloaded, OFF, at PRF_HZ_DEFAULT.  Then, when the kernel has
 * kmemleak (debugfs), a scan must find nothing new.  The module is left
 * loaded, with default parameters.
 *
 * usage: prf_lifetime [--cycles N] [--ko PATH]
 */
#include <getopt.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "common.h"

#define MODNAME		"prf"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

static const char *ko;
static atomic_int racer_on, racer_stop, racer_idle;
static atomic_ulong racer_opens, racer_bad;

static int mod_load(const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = syscall(SYS_finit_module, fd, params, 0);
	r = r < 0 ? -errno : 0;
	close(fd);
	return r;
}

static int mod_unload(unsigned int flags)
{
	return syscall(SYS_delete_module, MODNAME, flags) < 0 ? -errno : 0;
}

static bool mod_present(void)
{
	FILE *f = fopen("/proc/modules", "r");
	char line[512];
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, MODNAME " ", strlen(MODNAME) + 1))
			found = true;
	if (f)
		fclose(f);
	return found;
}

/* Unload, retrying while the racer holds a file for a moment. */
static int mod_unload_retry(void)
{
	int r, i;

	for (i = 0; i < 500; i++) {
		r = mod_unload(O_NONBLOCK);
		if (r != -EWOULDBLOCK)
			return r;
		sleep_ms(5);
	}
	return r;
}

static void racer_pause(void)
{
	atomic_store(&racer_on, 0);
	while (!atomic_load(&racer_idle))
		sleep_ms(1);
}

static void racer_resume(void)
{
	atomic_store(&racer_idle, 0);
	atomic_store(&racer_on, 1);
}

static void *racer(void *arg)
{
	static const char *const paths[] = {
		"/dev/prf", "/dev/prf0", "/dev/prf1",
	};
	static const char *const attrs[] = {
		"/sys/class/prf/prf/info", "/sys/class/prf/prf0/control",
		"/sys/class/prf/prf/hz",
	};
	unsigned int i = 0;

	while (!atomic_load(&racer_stop)) {
		char b[1024];
		int fd, st, r;

		if (!atomic_load(&racer_on)) {
			atomic_store(&racer_idle, 1);
			sleep_ms(2);
			continue;
		}
		i++;
		fd = open(paths[i % 3], O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			atomic_fetch_add(&racer_opens, 1);
			if (ioctl(fd, PRF_GETSTATUS, &st) < 0 && errno != ENXIO)
				atomic_fetch_add(&racer_bad, 1);
			close(fd);
		} else if (errno != ENOENT && errno != ENXIO && errno != ENODEV) {
			if (atomic_fetch_add(&racer_bad, 1) < 5)
				tap_diag("racer: open %s: %m", paths[i % 3]);
		}
		r = read_str(attrs[i % 3], b, sizeof(b));
		if (r < 0 && r != -ENOENT && r != -ENODEV) {
			if (atomic_fetch_add(&racer_bad, 1) < 5)
				tap_diag("racer: read %s: %s", attrs[i % 3], strerror(-r));
		}
	}
	atomic_store(&racer_idle, 1);
	return NULL;
}

/* After an unload: no module, no nodes, no class. */
static bool gone(char *why, size_t len)
{
	struct stat st;

	if (mod_present())
		return snprintf(why, len, "still in /proc/modules"), false;
	if (!stat("/dev/prf", &st))
		return snprintf(why, len, "/dev/prf still exists"), false;
	if (!stat("/sys/class/" PRF_CLASS, &st))
		return snprintf(why, len, "/sys/class/prf still exists"), false;
	return true;
}

/* After a load: fresh devices. */
static bool fresh(int want_max, char *why, size_t len)
{
	struct prf_dev devs[MAX_DEVS];
	int n = prf_devices(devs, MAX_DEVS), i, st, max;
	__u32 hz;

	if (n < 2)
		return snprintf(why, len, "%d devices after load", n), false;
	for (i = 0; i < n; i++) {
		int fd = open(devs[i].path, O_RDWR | O_CLOEXEC);

		if (fd < 0)
			return snprintf(why, len, "open %s: %s", devs[i].path,
					strerror(errno)), false;
		if (ioctl(fd, PRF_GETSTATUS, &st) || st != 0 ||
		    ioctl(fd, PRF_GETHZ, &hz) || hz != PRF_HZ_DEFAULT ||
		    ioctl(fd, PRF_GETMAX, &max) || max != want_max) {
			snprintf(why, len, "%s: status %d hz %u max %d after load",
				 devs[i].path, st, hz, max);
			close(fd);
			return false;
		}
		close(fd);
	}
	return true;
}

/* Every device loaded and ON at the top rate; files closed again. */
static bool all_on(const __u64 *t, size_t nt)
{
	struct prf_dev devs[MAX_DEVS];
	int n = prf_devices(devs, MAX_DEVS), i;
	bool ok = n > 0;

	for (i = 0; i < n; i++) {
		int fd = open(devs[i].path, O_RDWR | O_CLOEXEC);

		ok &= fd >= 0 && !set_hz(fd, PRF_HZ_MAX) && !load_table(fd, t, nt) &&
		      !set_state(fd, 1);
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

/* kmemleak: 1 available, 0 not in this kernel, -errno */
static int kmemleak_cmd(const char *cmd)
{
	struct stat st;

	if (stat("/sys/kernel/debug", &st))
		return 0;
	if (access(KMEMLEAK, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(KMEMLEAK, F_OK))
		return 0;
	return write_str(KMEMLEAK, cmd) ? -errno : 1;
}

/* The current report, up to @len bytes. */
static int kmemleak_read(char *buf, size_t len)
{
	int fd = open(KMEMLEAK, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	close(fd);
	return got;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "cycles", required_argument, NULL, 'c' },
		{ "ko", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	int cycles = 8, done = 0, o, c, r, kfd, reports = 0, leak_ok;
	int def_max = 0, fd;
	unsigned long busy_checked = 0;
	static char leaks[65536];
	char why[256];
	pthread_t rt;
	__u64 *kt, t[64];
	size_t nk, i;
	bool synthetic;

	ko = getenv("PRF_KO");
	while ((o = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (o) {
		case 'c': cycles = atoi(optarg); break;
		case 'k': ko = optarg; break;
		default:
			fprintf(stderr, "usage: %s [--cycles N] [--ko PATH]\n", argv[0]);
			return 2;
		}
	}
	tap_begin();
	tap_diag("prf_lifetime: %d cycles with %s", cycles, ko ? ko : "(no module)");
	if (!ko || access(ko, R_OK)) {
		tap_skip("no prf.ko: set PRF_KO or --ko");
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	if (!mod_present() && mod_load("")) {
		tap_ok(false, "load %s: %m", ko);
		return tap_end();
	}
	kfd = kmsg_open_tail();
	tap_ok(kmsg_selfcheck(kfd), "kernel log scanner sees new records and knows reports");
	tap_ok(EWOULDBLOCK == EAGAIN, "EWOULDBLOCK is EAGAIN (%d) on this system", EAGAIN);

	/*
	 * Whatever earlier tests left must already show: the test bed forgot
	 * the boot's own leaks before the first test, and nothing here clears
	 * the list, so the test bed's final check sees the same.
	 */
	leak_ok = kmemleak_cmd("scan");
	if (leak_ok == 1) {
		r = kmemleak_read(leaks, sizeof(leaks));
		tap_ok(r == 0, "kmemleak: nothing before the cycles");
		if (r > 0)
			tap_diag("kmemleak before the cycles (%d bytes):\n%.4000s", r, leaks);
	}

	fd = open("/dev/prf", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, PRF_GETMAX, &def_max)) {
		tap_ok(false, "open /dev/prf: %m");
		return tap_end();
	}
	close(fd);
	nk = kernel_text(&kt, &synthetic);
	for (i = 0; i < 64; i++)
		t[i] = kt[i * (nk / 64)];

	pthread_create(&rt, NULL, racer, NULL);
	for (c = 0; c < cycles; c++) {
		int kind = c % 5, fd2 = -1, sfd = -1, want_max = def_max;
		const char *params = "";
		bool ok = true;

		why[0] = 0;
		switch (kind) {
		case 0:		/* busy */
			fd = open("/dev/prf", O_RDWR | O_CLOEXEC);
			fd2 = open("/dev/prf0", O_RDONLY | O_CLOEXEC);
			r = mod_unload(O_NONBLOCK);
			ok = fd >= 0 && fd2 >= 0 && r == -EWOULDBLOCK;
			if (fd >= 0)
				close(fd);	/* the other file alone still pins it */
			if (ok) {
				r = mod_unload(0);
				ok = r == -EWOULDBLOCK;
			}
			if (!ok)
				snprintf(why, sizeof(why), "delete_module with a file open: %s, not EWOULDBLOCK",
					 r ? strerror(-r) : "success");
			else if (!mod_present() || ioctl(fd2, PRF_GETMAX, &r) || r != def_max)
				snprintf(why, sizeof(why), "module unusable after a refused unload"), ok = false;
			busy_checked += ok;
			if (fd2 >= 0)
				close(fd2);
			if (ok && (r = mod_unload(O_NONBLOCK)))
				snprintf(why, sizeof(why), "delete_module after close: %s",
					 strerror(-r)), ok = false;
			break;
		case 1:		/* on */
			ok = all_on(t, 64);
			if (!ok)
				snprintf(why, sizeof(why), "could not turn every device ON");
			else if ((r = mod_unload(O_NONBLOCK)))
				snprintf(why, sizeof(why), "delete_module while ON: %s",
					 strerror(-r)), ok = false;
			break;
		case 2:		/* sysfs held open */
			sfd = open("/sys/class/prf/prf/info", O_RDONLY | O_CLOEXEC);
			all_on(t, 64);
			if ((r = mod_unload(O_NONBLOCK))) {
				snprintf(why, sizeof(why), "delete_module with sysfs open: %s",
					 strerror(-r));
				ok = false;
			} else if (sfd < 0 || pread(sfd, leaks, 4096, 0) >= 0 ||
				   (errno != ENODEV && errno != ENOENT)) {
				snprintf(why, sizeof(why), "sysfs read after unload: %m");
				ok = false;
			}
			if (sfd >= 0)
				close(sfd);
			break;
		case 3:		/* params */
			if ((r = mod_unload(O_NONBLOCK))) {
				snprintf(why, sizeof(why), "delete_module: %s", strerror(-r));
				ok = false;
				break;
			}
			r = mod_load("max_addrs=2");
			if (r != -EINVAL || mod_present()) {
				snprintf(why, sizeof(why), "load with max_addrs=2: %s, not EINVAL",
					 r ? strerror(-r) : "success");
				ok = false;
				if (!r)
					mod_unload(O_NONBLOCK);
			}
			params = "max_addrs=1000";
			want_max = 1000;
			break;
		default:	/* racing */
			racer_resume();
			if ((r = mod_unload_retry()))
				snprintf(why, sizeof(why), "delete_module while racing: %s",
					 strerror(-r)), ok = false;
			break;
		}
		if (ok && !gone(why, sizeof(why)))
			ok = false;
		if (mod_present() && (kind == 3 || !ok)) {
			/* a failed unload: make the next load possible */
			racer_pause();
			mod_unload_retry();
		}
		r = mod_load(params);
		if (r && ok) {
			snprintf(why, sizeof(why), "finit_module: %s", strerror(-r));
			ok = false;
		}
		racer_pause();
		if (ok && !fresh(want_max, why, sizeof(why)))
			ok = false;
		if (kind == 3) {	/* back to the default parameters */
			if (mod_unload(O_NONBLOCK) || mod_load("")) {
				snprintf(why, sizeof(why), "reload with defaults failed");
				ok = false;
			}
		}
		reports += kmsg_scan(kfd, NULL);
		if (!ok || reports) {
			tap_ok(false, "cycle %d (%s): %s%s", c,
			       (const char *[]){ "busy", "on", "sysfs", "params", "racing" }[kind],
			       why, reports ? " (kernel report)" : "");
			if (!mod_present())
				mod_load("");
			break;
		}
		done++;
		if (cycles <= 10 || c % 10 == 9)
			tap_diag("%d module cycles", done);
	}
	atomic_store(&racer_stop, 1);
	pthread_join(rt, NULL);
	if (!mod_present())
		mod_load("");

	tap_ok(done == cycles, "%d of %d unload/load cycles", done, cycles);
	tap_ok(busy_checked > 0 || cycles == 0,
	       "delete_module refused a busy module with EWOULDBLOCK (%lu times)", busy_checked);
	tap_ok(atomic_load(&racer_bad) == 0,
	       "racing opens and sysfs reads saw only ENOENT/ENXIO/ENODEV (%lu opens)",
	       atomic_load(&racer_opens));
	tap_ok(mod_present() && fresh(def_max, why, sizeof(why)),
	       "the module is left loaded and fresh %s", why);
	reports += kmsg_scan(kfd, NULL);
	tap_ok(reports == 0, "no kernel report");

	if (leak_ok == 1) {
		/* kmemleak reports objects at least 5 s old */
		sleep_ms(6000);
		kmemleak_cmd("scan");
		sleep_ms(1000);
		kmemleak_cmd("scan");
		r = kmemleak_read(leaks, sizeof(leaks));
		tap_ok(r == 0, "kmemleak: no leak after %d cycles", done);
		if (r > 0)
			tap_diag("kmemleak:\n%s", leaks);
	} else {
		tap_skip("kmemleak: not in this kernel (%s)", leak_ok ? strerror(-leak_ok) : "no " KMEMLEAK);
	}
	tap_diag("module cycles: %d", done);
	return tap_end();
}
