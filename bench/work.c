// SPDX-License-Identifier: GPL-2.0
/*
 * work - the bench's fixed workloads, timed inside the guest.
 *
 *	work [options] kernel|user|mixed|files|switch ITERATIONS
 *
 * One process per online CPU, each pinned to its CPU, runs ITERATIONS
 * iterations of the workload; the time from releasing them all to the last
 * one finishing (CLOCK_MONOTONIC) is the result.
 *
 *	kernel	read() 1 KiB from /dev/zero, write() and read() 64 bytes
 *		through a pipe, getppid(): four system calls
 *	user	64 rounds of integer arithmetic, no system call
 *	mixed	one kernel iteration and 64 user rounds
 *	files	create, write 64 bytes to, close and remove a file in /tmp
 *		(the kernel allocates and frees: the alloc modes' workload)
 *	switch	the worker and a partner it forks, pinned to the same CPU,
 *		pass one byte back and forth over two pipes: ITERATIONS
 *		round trips, each two waits and two context switches (the
 *		offcpu mode's workload)
 *
 * It reports the context switches of all the workers (partners included),
 * from getrusage(RUSAGE_CHILDREN): switches= (voluntary + involuntary),
 * blocked= (voluntary) and preempted= (involuntary).  In the switch
 * workload the writer is often preempted by the reader it wakes, before it
 * blocks in its own read(): a round trip is two switches either way.  They
 * include a few switches outside the timed interval (each worker waiting
 * for the start, a partner for its first byte).
 *
 * Around the timed interval (outside it) it reads /proc/stat's "cpu" line
 * and, with --prf DEV, clears prf before and reads PRF_GETINFO after (then
 * turns prf OFF, so prf's counters cover exactly the workload); with
 * --counter FILE it reads a number from FILE before and after.
 *
 * With -u (and --prf) it calls PRF_GETUOBJS with no room before it stops
 * the clock: that resolves the user-object notes still pending (the table's
 * worker does every 100 ms), so the timed interval holds the resolution of
 * every user sample it took, not only of those the worker reached.
 *
 * Before releasing the workers it waits -w milliseconds (default 500) so
 * that the system settles after the profiler was started.
 *
 * It prints one line of key=value pairs on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/prf.h>

enum { W_KERNEL, W_USER, W_MIXED, W_FILES, W_SWITCH };

static void die(const char *what)
{
	fprintf(stderr, "work: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* user nice system idle iowait irq softirq steal, summed over CPUs */
struct cpustat {
	unsigned long long v[8];
};

static void read_stat(struct cpustat *s)
{
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		die("/proc/stat");
	memset(s, 0, sizeof(*s));
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &s->v[0], &s->v[1], &s->v[2], &s->v[3], &s->v[4], &s->v[5],
		   &s->v[6], &s->v[7]) != 8) {
		errno = EINVAL;
		die("/proc/stat: cpu line");
	}
	fclose(f);
}

static unsigned long long read_counter(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	if (fscanf(f, "%llu", &v) != 1) {
		errno = EINVAL;
		die(path);
	}
	fclose(f);
	return v;
}

static volatile uint64_t sink;

/*
 * Not inlined, as child() and kernel_round(): with frame pointers (the
 * Makefile) a user sample's call chain is user_rounds < child < main, all
 * in this file (prf's user call chains, perf record -g).  gcc 12 leaves
 * the frame pointer out of a leaf that touches no stack even with
 * -mno-omit-leaf-frame-pointer (its caller would be missing from every
 * chain); asking for the frame's address keeps it: push, mov, pop a call.
 */
static __attribute__((noinline)) uint64_t user_rounds(uint64_t x, int n)
{
	uint64_t y = x ^ 0x9e3779b97f4a7c15ull;
	int i;

	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		y ^= x >> 29;
		y = (y << 7 | y >> 57) + x;
	}
	return x ^ y;
}

static __attribute__((noinline)) void kernel_round(int zero, int *pfd,
						  char *buf)
{
	if (read(zero, buf, 1024) != 1024)
		die("read /dev/zero");
	if (write(pfd[1], buf, 64) != 64)
		die("write pipe");
	if (read(pfd[0], buf, 64) != 64)
		die("read pipe");
	getppid();
}

/* A file created, written, closed and removed: the kernel allocates. */
static void files_round(const char *dir, char *buf)
{
	char path[80];
	int fd;

	snprintf(path, sizeof(path), "%s/f", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	if (write(fd, buf, 64) != 64)
		die("write file");
	close(fd);
	if (unlink(path))
		die("unlink");
}

/*
 * The switch workload: the worker (ping) and its partner (pong), on one
 * CPU, hand one byte to each other; each read() blocks until the other
 * has written, so every round trip is two waits and two switches.
 */
static void ping_pong(long iters, int go)
{
	int ab[2], ba[2], status;
	char c = 0;
	pid_t pong;
	long i;

	if (pipe(ab) || pipe(ba))
		die("pipe");
	pong = fork();
	if (pong < 0)
		die("fork");
	if (!pong) {
		/* pinned as the worker was; dies with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go);
		for (i = 0; i < iters; i++) {
			if (read(ab[0], &c, 1) != 1)
				die("read ping");
			if (write(ba[1], &c, 1) != 1)
				die("write pong");
		}
		_exit(0);
	}
	(void)!read(go, &c, 1);
	for (i = 0; i < iters; i++) {
		if (write(ab[1], &c, 1) != 1)
			die("write ping");
		if (read(ba[0], &c, 1) != 1)
			die("read pong");
	}
	/* reaped here, so that its switches reach the parent's rusage */
	if (waitpid(pong, &status, 0) != pong || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("partner");
	_exit(0);
}

static __attribute__((noinline)) void child(int cpu, int kind, long iters,
					   int go)
{
	static char buf[4096];
	char dir[64];
	uint64_t x = cpu + 1;
	cpu_set_t set;
	int zero, pfd[2];
	char c;
	long i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
	/* killing work kills its workers (the sizes runs stop it so) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (kind == W_SWITCH)
		ping_pong(iters, go);
	zero = open("/dev/zero", O_RDONLY);
	if (zero < 0 || pipe(pfd))
		die("/dev/zero or pipe");
	snprintf(dir, sizeof(dir), "/tmp/work-files.%d.%d", (int)getppid(), cpu);
	if (kind == W_FILES && mkdir(dir, 0700) && errno != EEXIST)
		die(dir);
	/* released when the parent closes the pipe: read() returns 0 */
	(void)!read(go, &c, 1);
	for (i = 0; i < iters; i++) {
		if (kind == W_FILES) {
			files_round(dir, buf);
			continue;
		}
		if (kind != W_USER)
			kernel_round(zero, pfd, buf);
		if (kind != W_KERNEL)
			x = user_rounds(x, 64);
	}
	if (kind == W_FILES)
		rmdir(dir);
	sink = x;
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *prfdev = NULL, *counter = NULL;
	unsigned long long c0 = 0, c1 = 0;
	struct prf_info info = { .size = sizeof(info) };
	struct cpustat s0, s1;
	struct rusage ru;
	int kind, ncpu, cpu, gop[2], prf = -1, status, bad = 0, drain = 0;
	uint64_t t0, t1;
	long iters, settle_ms = 500;
	int opt;

	while ((opt = getopt(argc, argv, "p:c:w:u")) != -1) {
		switch (opt) {
		case 'u': drain = 1; break;
		case 'p': prfdev = optarg; break;
		case 'c': counter = optarg; break;
		case 'w': settle_ms = atol(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	if (!strcmp(argv[optind], "kernel"))
		kind = W_KERNEL;
	else if (!strcmp(argv[optind], "user"))
		kind = W_USER;
	else if (!strcmp(argv[optind], "mixed"))
		kind = W_MIXED;
	else if (!strcmp(argv[optind], "files"))
		kind = W_FILES;
	else if (!strcmp(argv[optind], "switch"))
		kind = W_SWITCH;
	else
		goto usage;
	iters = atol(argv[optind + 1]);
	if (iters <= 0)
		goto usage;

	if (prfdev) {
		prf = open(prfdev, O_RDWR);
		if (prf < 0)
			die(prfdev);
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (pipe(gop))
		die("pipe");
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			close(gop[1]);
			child(cpu, kind, iters, gop[0]);
		}
	}
	close(gop[0]);
	/*
	 * Let every child reach its read(), and let the system settle after
	 * whatever started the profiler (insmod, a table load, perf or
	 * bpftrace attaching: their deferred work must not land in the
	 * timed interval).  Idle time costs nothing under -icount sleep=off.
	 */
	usleep(settle_ms * 1000);

	if (counter)
		c0 = read_counter(counter);
	read_stat(&s0);
	if (prf >= 0 && ioctl(prf, PRF_CLEAR))
		die("PRF_CLEAR");
	t0 = now_ns();
	close(gop[1]);		/* go */
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	if (prf >= 0 && drain) {
		struct prf_uobjs u;

		memset(&u, 0, sizeof(u));	/* no room: resolve, count */
		if (ioctl(prf, PRF_GETUOBJS, &u))
			die("PRF_GETUOBJS");
	}
	t1 = now_ns();
	if (prf >= 0 && ioctl(prf, PRF_GETINFO, &info))
		die("PRF_GETINFO");
	if (getrusage(RUSAGE_CHILDREN, &ru))
		die("getrusage");
	read_stat(&s1);
	if (counter)
		c1 = read_counter(counter);
	if (prf >= 0 && ioctl(prf, PRF_SETSTATE, 0))
		die("PRF_SETSTATE");
	if (bad) {
		fprintf(stderr, "work: a worker failed\n");
		return 1;
	}

	printf("elapsed_ns=%llu cpus=%d", (unsigned long long)(t1 - t0), ncpu);
	printf(" stat_user=%llu stat_sys=%llu stat_idle=%llu stat_hz=%ld",
	       (s1.v[0] + s1.v[1]) - (s0.v[0] + s0.v[1]),
	       (s1.v[2] + s1.v[5] + s1.v[6] + s1.v[7]) -
	       (s0.v[2] + s0.v[5] + s0.v[6] + s0.v[7]),
	       (s1.v[3] + s1.v[4]) - (s0.v[3] + s0.v[4]),
	       sysconf(_SC_CLK_TCK));
	if (prf >= 0)
		printf(" prf_total=%llu prf_user=%llu prf_idle=%llu"
		       " prf_outside=%llu prf_lost=%llu prf_hz=%u prf_mem=%llu"
		       " prf_filtered=%llu",
		       (unsigned long long)info.ticks_total,
		       (unsigned long long)info.ticks_user,
		       (unsigned long long)info.ticks_idle,
		       (unsigned long long)info.ticks_outside,
		       (unsigned long long)info.ticks_lost, info.hz,
		       (unsigned long long)info.mem_bytes,
		       (unsigned long long)info.ticks_filtered);
	if (prf >= 0 && info.size >= PRF_INFO_SIZE_V6)
		printf(" prf_nmi=%llu prf_throttled=%llu",
		       (unsigned long long)info.samples_nmi,
		       (unsigned long long)info.pmu_throttled);
	if (counter)
		printf(" counter=%llu", c1 - c0);
	printf(" switches=%ld blocked=%ld preempted=%ld\n",
	       ru.ru_nvcsw + ru.ru_nivcsw, ru.ru_nvcsw, ru.ru_nivcsw);
	return 0;
usage:
	fprintf(stderr, "usage: work [-p PRFDEV [-u]] [-c COUNTERFILE] [-w SETTLE_MS] kernel|user|mixed|files|switch ITERATIONS\n");
	return 2;
}
