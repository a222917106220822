// SPDX-License-Identifier: GPL-2.0
/*
 * prf_hotplug - CPUs going offline and online under a sampling prf.
 *
 * With /dev/prf and every /dev/prfN loaded and ON, --cycles times: take a
 * hotpluggable CPU offline through /sys/devices/system/cpu/cpuN/online, then
 * bring it back.  A reader thread uses every device all along (read, GETINFO,
 * GETSTATUS, poll, sysfs reads); in odd cycles a mutator thread also turns
 * devices OFF and ON, clears them, changes rates and flags and reloads tables
 * while the CPU goes and comes (lock order: hotplug lock before inst->lock).
 *
 * Even cycles measure, over --window ms:
 *   - the offline CPU's device stays usable: ioctls and read work, GETINFO
 *     says ncpus 0; turned OFF, cleared and ON again while offline, it
 *     counts nothing (its timer is gone, none was left running elsewhere);
 *   - every online CPU's device and /dev/prf keep counting; /dev/prf's
 *     ncpus is the number of online CPUs;
 *   - back online, the CPU's device counts again (its timer restarted).
 * After the last cycle every device is turned OFF and must stay still: no
 * timer left behind.  The kernel log must show no report (DEBUG_OBJECTS
 * timers, lockdep): the test bed also watches the console.
 *
 * usage: prf_hotplug [--cycles N] [--hz HZ] [--window MS] [--seed X]
 */
#include <getopt.h>
#include <poll.h>

#include "common.h"

static struct prf_dev devs[MAX_DEVS];
static int ndevs;
static int hp[MAX_DEVS], nhp;		/* hotpluggable CPUs */
static __u64 *table;
static size_t ntable;
static unsigned int opt_hz = 1000;
static atomic_int stop, mutate, mutator_idle;
static atomic_ulong reader_ops, reader_bad, mutator_ops;
static uint64_t seed;

static int cpu_online_path(int cpu, char *buf, size_t len)
{
	return snprintf(buf, len, "/sys/devices/system/cpu/cpu%d/online", cpu);
}

static int set_online(int cpu, int on)
{
	char p[96];

	cpu_online_path(cpu, p, sizeof(p));
	return write_str(p, on ? "1" : "0");
}

static int is_online(int cpu)
{
	char p[96], b[16];

	cpu_online_path(cpu, p, sizeof(p));
	if (read_str(p, b, sizeof(b)) < 0)
		return cpu == 0;	/* no online file: not hotpluggable */
	return b[0] == '1';
}

static int nr_online(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int dev_of_cpu(int cpu)
{
	int i;

	for (i = 0; i < ndevs; i++)
		if (devs[i].cpu == cpu)
			return i;
	return -1;
}

static __u64 ticks(int fd)
{
	struct prf_info in;

	return get_info(fd, &in) ? ~0ULL : in.ticks_total;
}

static int open_dev(int i)
{
	return open(devs[i].path, O_RDWR | O_CLOEXEC);
}

/* Loaded, at the rate, ON. */
static int arm(int fd)
{
	int st, ret = 0;
	__u32 f = 0;

	if (ioctl(fd, PRF_GETSTATUS, &st) < 0)
		return -errno;
	set_state(fd, 0);
	xioctl(fd, PRF_SETFLAGS, &f);
	ret = set_hz(fd, opt_hz);
	if (!ret && !(st & PRF_STATUS_LOADED))
		ret = load_table(fd, table, ntable);
	if (!ret)
		ret = set_state(fd, 1);
	return ret;
}

static void *reader(void *arg)
{
	struct rng r = { seed ^ 0x5eed };
	unsigned char *buf = malloc((2 * ntable + 2) * 8 + 64);
	int fds[MAX_DEVS], i;

	for (i = 0; i < ndevs; i++)
		fds[i] = open_dev(i);
	while (!atomic_load(&stop)) {
		int d = rng_below(&r, ndevs), fd = fds[d], e = 0, st;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct prf_info in;
		char path[128], b[1024];
		ssize_t n;

		switch (rng_below(&r, 5)) {
		case 0:
			n = read(fd, buf, (2 * ntable + 2) * 8);
			e = n < 0 ? errno : 0;
			check_result(OP_READ, n, e, "read");
			break;
		case 1:
			e = -get_info(fd, &in);
			check_result(OP_IOCTL, e ? -1 : 0, e, "GETINFO");
			break;
		case 2:
			e = ioctl(fd, PRF_GETSTATUS, &st) < 0 ? errno : 0;
			check_result(OP_IOCTL, e ? -1 : 0, e, "GETSTATUS");
			break;
		case 3:
			e = poll(&p, 1, 0) == 1 ? 0 : EIO;
			break;
		default:
			n = read_str(attr_path(&devs[d], "info", path, sizeof(path)), b, sizeof(b));
			e = n < 0 ? (int)-n : 0;
			check_result(OP_SYSFS_R, n, e, "info");
			break;
		}
		/* a loaded device answers all of these, whatever the CPUs do */
		if (e && e != ENXIO) {
			if (atomic_fetch_add(&reader_bad, 1) < 10)
				tap_diag("reader: %s: %s", devs[d].path, strerror(e));
		}
		atomic_fetch_add(&reader_ops, 1);
	}
	for (i = 0; i < ndevs; i++)
		close(fds[i]);
	free(buf);
	return NULL;
}

static void *mutator(void *arg)
{
	struct rng r = { seed ^ 0xbadc0de };
	int fds[MAX_DEVS], i;

	for (i = 0; i < ndevs; i++)
		fds[i] = open_dev(i);
	while (!atomic_load(&stop)) {
		int d = rng_below(&r, ndevs), fd = fds[d];
		char path[128];
		__u32 v;

		if (!atomic_load(&mutate)) {
			atomic_store(&mutator_idle, 1);
			sleep_ms(2);
			continue;
		}
		atomic_store(&mutator_idle, 0);
		switch (rng_below(&r, 7)) {
		case 0:
			check_result(OP_IOCTL, set_state(fd, 0), 0, "OFF");
			break;
		case 1:
			check_result(OP_IOCTL, set_state(fd, 1), 0, "ON");
			break;
		case 2:
			v = PRF_HZ_MIN + rng_below(&r, PRF_HZ_MAX);
			i = set_hz(fd, v);
			check_result(OP_IOCTL, i, -i, "SETHZ");
			break;
		case 3:
			i = xioctl(fd, PRF_CLEAR, NULL);
			check_result(OP_IOCTL, i, -i, "CLEAR");
			break;
		case 4:
			set_state(fd, 0);
			i = load_table(fd, table, ntable - rng_below(&r, ntable - 3));
			check_result(OP_WRITE, i, -i, "reload");
			set_state(fd, 1);
			break;
		case 5:
			v = rng_below(&r, 2);
			i = xioctl(fd, PRF_SETFLAGS, &v);
			check_result(OP_IOCTL, i, -i, "SETFLAGS");
			break;
		default:
			i = write_str(attr_path(&devs[d], "control", path, sizeof(path)),
				      rng_chance(&r, 50) ? "startclr" : "stop");
			check_result(OP_SYSFS_W, i, -i, "control");
			break;
		}
		atomic_fetch_add(&mutator_ops, 1);
	}
	for (i = 0; i < ndevs; i++)
		close(fds[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "cycles", required_argument, NULL, 'c' },
		{ "hz", required_argument, NULL, 'z' },
		{ "window", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int cycles = 6, window = 300, o, i, c, kfd, reports = 0;
	int fds[MAX_DEVS], all = -1, done = 0;
	unsigned long measured_bad = 0;
	pthread_t rt, mt;
	bool synthetic, ok;
	__u64 *ktext, *rbuf;
	size_t rlen;
	size_t nk, k;

	seed = seed_from_clock();
	while ((o = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (o) {
		case 'c': cycles = atoi(optarg); break;
		case 'z': opt_hz = atoi(optarg); break;
		case 'w': window = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [--cycles N] [--hz HZ] [--window MS] [--seed X]\n",
				argv[0]);
			return 2;
		}
	}
	tap_begin();
	tap_diag("prf_hotplug: seed %#llx cycles %d hz %u window %dms",
		 (unsigned long long)seed, cycles, opt_hz, window);
	ndevs = prf_devices(devs, MAX_DEVS);
	if (ndevs <= 0 || access(devs[0].path, F_OK)) {
		tap_skip("no prf devices (is prf.ko loaded?)");
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	for (i = 0; i < ndevs; i++) {
		char p[96];

		if (devs[i].cpu < 0)
			all = i;
		if (devs[i].cpu <= 0)
			continue;
		cpu_online_path(devs[i].cpu, p, sizeof(p));
		if (!access(p, W_OK))
			hp[nhp++] = devs[i].cpu;
	}
	for (i = 0; i < nhp; i++)	/* start from everything online */
		if (!is_online(hp[i]))
			set_online(hp[i], 1);
	if (!nhp || nr_online() < 2 || all < 0) {
		tap_skip("need two online CPUs, one hotpluggable (have %d online, %d hotpluggable)",
			 nr_online(), nhp);
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	kfd = kmsg_open_tail();
	tap_ok(kmsg_selfcheck(kfd), "kernel log scanner sees new records and knows reports");

	nk = kernel_text(&ktext, &synthetic);
	ntable = nk < 2000 ? nk : 2000;
	table = malloc(ntable * 8);
	for (k = 0; k < ntable; k++)
		table[k] = ktext[k * (nk / ntable)];
	rlen = ntable * 8;
	rbuf = malloc(rlen);
	ok = true;
	for (i = 0; i < ndevs; i++) {
		fds[i] = open_dev(i);
		ok &= fds[i] >= 0 && !arm(fds[i]);
	}
	if (!tap_ok(ok, "every device loaded and ON at %u Hz", opt_hz))
		return tap_end();

	pthread_create(&rt, NULL, reader, NULL);
	pthread_create(&mt, NULL, mutator, NULL);

	for (c = 0; c < cycles; c++) {
		int cpu = hp[c % nhp], d = dev_of_cpu(cpu), fd = fds[d], r, st;
		bool racing = c % 2, cok = true;
		__u64 before[MAX_DEVS], after[MAX_DEVS];
		struct prf_info in;
		char why[256] = "";

		if (racing) {
			atomic_store(&mutator_idle, 0);
			atomic_store(&mutate, 1);
		}
		r = set_online(cpu, 0);
		if (r) {
			tap_ok(false, "cycle %d: cpu%d offline: %s", c, cpu, strerror(-r));
			break;
		}
		if (is_online(cpu)) {
			tap_ok(false, "cycle %d: cpu%d still online", c, cpu);
			break;
		}
		/* the offline CPU's device answers */
		if (ioctl(fd, PRF_GETSTATUS, &st) < 0 || get_info(fd, &in) ||
		    in.ncpus != 0 || read(fd, rbuf, rlen) <= 0) {
			snprintf(why, sizeof(why), "offline %s: GETSTATUS/GETINFO/read (ncpus %u): %s",
				 devs[d].path, in.ncpus, strerror(errno));
			cok = false;
		}
		if (!racing && cok) {
			/* OFF, clear and ON while its CPU is away: no ticks */
			if (set_state(fd, 0) || xioctl(fd, PRF_CLEAR, NULL) || set_state(fd, 1)) {
				snprintf(why, sizeof(why), "offline %s: OFF/CLEAR/ON: %s",
					 devs[d].path, strerror(errno));
				cok = false;
			}
			for (i = 0; i < ndevs; i++)
				before[i] = ticks(fds[i]);
			sleep_ms(window);
			for (i = 0; i < ndevs; i++)
				after[i] = ticks(fds[i]);
			for (i = 0; i < ndevs && cok; i++) {
				bool gone = i == d;

				if (gone ? after[i] != before[i] || after[i] != 0 :
				    after[i] <= before[i]) {
					int s2 = -1;

					ioctl(fds[i], PRF_GETSTATUS, &s2);
					snprintf(why, sizeof(why),
						 "%s (cpu%d offline): ticks %llu -> %llu over %d ms (status %d)",
						 devs[i].path, cpu,
						 (unsigned long long)before[i],
						 (unsigned long long)after[i], window, s2);
					cok = false;
				}
			}
			if (cok && (get_info(fds[all], &in) || (int)in.ncpus != nr_online())) {
				snprintf(why, sizeof(why), "/dev/prf ncpus %u, %d online",
					 in.ncpus, nr_online());
				cok = false;
			}
		}
		r = set_online(cpu, 1);
		if (r || !is_online(cpu)) {
			tap_ok(false, "cycle %d: cpu%d online: %s", c, cpu, strerror(-r));
			break;
		}
		if (!racing && cok) {
			before[d] = ticks(fd);
			sleep_ms(window);
			after[d] = ticks(fd);
			if (after[d] <= before[d]) {
				snprintf(why, sizeof(why), "%s back online: ticks %llu -> %llu",
					 devs[d].path, (unsigned long long)before[d],
					 (unsigned long long)after[d]);
				cok = false;
			}
		}
		if (racing) {
			/* the mutator must be done before the devices are re-armed */
			atomic_store(&mutate, 0);
			while (!atomic_load(&mutator_idle))
				sleep_ms(1);
			for (i = 0; i < ndevs; i++)
				cok &= !arm(fds[i]);
			if (!cok)
				snprintf(why, sizeof(why), "cannot re-arm devices: %s",
					 strerror(errno));
		}
		reports += kmsg_scan(kfd, NULL);
		if (!cok || reports) {
			measured_bad++;
			tap_ok(false, "cycle %d (cpu%d, %s): %s%s", c, cpu,
			       racing ? "racing" : "measured", why,
			       reports ? " kernel report" : "");
			if (reports)
				break;
		}
		done++;
		if (cycles <= 10 || c % 10 == 9)
			tap_diag("cycle %d: cpu%d off and on (%s)", c + 1, cpu,
				 racing ? "racing the mutator" : "measured");
	}
	atomic_store(&stop, 1);
	pthread_join(rt, NULL);
	pthread_join(mt, NULL);
	for (i = 0; i < nhp; i++)
		if (!is_online(hp[i]))
			set_online(hp[i], 1);

	tap_ok(done == cycles, "%d of %d offline/online cycles done", done, cycles);
	tap_ok(measured_bad == 0, "every cycle's checks held");
	tap_diag("reader: %lu operations, mutator: %lu", atomic_load(&reader_ops),
		 atomic_load(&mutator_ops));
	tap_ok(atomic_load(&reader_bad) == 0 && atomic_load(&reader_ops) > 0,
	       "the devices answered throughout");
	tap_ok(atomic_load(&undocumented) == 0, "every failure was a documented errno");

	/* OFF: no timer left anywhere */
	{
		__u64 b[MAX_DEVS], a[MAX_DEVS];

		ok = true;
		for (i = 0; i < ndevs; i++)
			ok &= !set_state(fds[i], 0);
		for (i = 0; i < ndevs; i++)
			b[i] = ticks(fds[i]);
		sleep_ms(window);
		for (i = 0; i < ndevs; i++) {
			a[i] = ticks(fds[i]);
			if (a[i] != b[i]) {
				tap_diag("%s counts while OFF: %llu -> %llu", devs[i].path,
					 (unsigned long long)b[i], (unsigned long long)a[i]);
				ok = false;
			}
			set_hz(fds[i], PRF_HZ_DEFAULT);
			close(fds[i]);
		}
		tap_ok(ok, "after the cycles, OFF devices count nothing");
	}
	print_results();
	reports += kmsg_scan(kfd, NULL);
	tap_ok(reports == 0, "no kernel report");
	tap_diag("hotplug cycles: %d", done);
	return tap_end();
}
