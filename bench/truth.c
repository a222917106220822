// SPDX-License-Identifier: GPL-2.0
/*
 * bench/truth.c - a workload whose profile is known by construction, and
 * prf's side of the truth bench (bench/truth-guest.sh runs it in the guest).
 *
 *   truth work VARIANT SECONDS FIFO
 *	Pins itself to CPU $TRUTH_CPU (default 1), opens the test module's
 *	/proc files, warms up, then waits until a line can be read from FIFO
 *	("go"), runs VARIANT for SECONDS, prints one "TRUTH key=value..."
 *	line and closes its standard output, and waits for a second line on FIFO before exiting (so that a
 *	profiler resolving user symbols from /proc/PID/maps still finds it).
 *	Variants, each round measured with CLOCK_THREAD_CPUTIME_ID:
 *	  mixed	 2 ms in prf_test_kmod_spin (a write to /proc/prf_test_kmod),
 *		 0.37 ms in truth_user_a, 1 ms in prf_test_c (a write to
 *		 /proc/prf_test_chain), 1.63 ms in truth_user_b: segments of
 *		 whole and of fractional periods, a round that is not a
 *		 multiple of the sampling period.
 *	  phase	 user space only, locked to the CLOCK_MONOTONIC millisecond:
 *		 truth_user_a from each millisecond boundary to 0.3 ms after
 *		 it, truth_user_b from there to the next boundary.  A sampler
 *		 whose period is 1 ms and whose timer keeps one phase (perf's
 *		 cpu-clock, prf's PRF_FLAG_FIXED) takes every sample at the
 *		 same point of the round.
 *	What the segments really took is what counts, not what was asked:
 *	the clock reads that end the user spins and the stamps between
 *	segments are calibrated and moved to "other".
 *
 *   truth prfon PID fixed|strat HZ
 *	Loads /dev/prf with a table of the worker's user functions (this
 *	binary is not PIE, so their addresses are the same in every process
 *	of it), the kernel's text (one entry at _stext for everything in
 *	vmlinux) and the test module's two functions, each with the address
 *	of the next symbol as its end; PRF_FLAG_USERPC, a tgid filter on
 *	PID, the rate, PRF_FLAG_FIXED or not, and turns it ON.
 *   truth prfoff
 *	Turns /dev/prf OFF, prints the counts by name ("count name" lines:
 *	the four functions, [other-user], [other-kernel], [outside]) and an
 *	"INFO" line, and leaves /dev/prf with no flag and no filter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/prf.h>

static void die(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	fprintf(stderr, "truth: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s%s\n", e ? ": " : "", e ? strerror(e) : "");
	exit(1);
}

static uint64_t clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static volatile uint64_t sink;

/*
 * The two user functions: arithmetic the compiler must keep, the clock read
 * every GRAIN rounds until END (CLOCK_MONOTONIC).  In their own section, in
 * this order (built with -fno-toplevel-reorder), followed by
 * truth_user_end, so that [truth_user_a, truth_user_end) holds them both
 * and nothing else (checked at run time).
 */
#define TRUTH_TEXT __attribute__((noinline, used, section(".text.truth")))

TRUTH_TEXT uint64_t truth_user_a(uint64_t end, unsigned int grain,
				 uint64_t *polls)
{
	uint64_t x = end | 1, now, n = 0;
	unsigned int i;

	do {
		for (i = 0; i < grain; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			__asm__ volatile("" : "+r" (x));
		}
		n++;
	} while ((now = clk(CLOCK_MONOTONIC)) < end);
	sink = x;
	*polls += n;
	return now;
}

TRUTH_TEXT uint64_t truth_user_b(uint64_t end, unsigned int grain,
				 uint64_t *polls)
{
	uint64_t x = end | 3, now, n = 0;
	unsigned int i;

	do {
		for (i = 0; i < grain; i++) {
			x = x * 2862933555777941757ull + 3037000493ull;
			__asm__ volatile("" : "+r" (x));
		}
		n++;
	} while ((now = clk(CLOCK_MONOTONIC)) < end);
	sink = x;
	*polls += n;
	return now;
}

TRUTH_TEXT void truth_user_end(void)
{
	__asm__ volatile("");
}

/* ---- the workload ---------------------------------------------------- */

enum { F_KSPIN, F_CHAIN, F_UA, F_UB, NF };
static const char *const fname[NF] = {
	"prf_test_kmod_spin", "prf_test_c", "truth_user_a", "truth_user_b",
};

static void put_ms(int fd, const char *ms)
{
	if (write(fd, ms, strlen(ms)) != (ssize_t)strlen(ms))
		die("write to the test module");
}

/* what one clock read costs, measured on this CPU */
static double cost_of(clockid_t id, int n)
{
	uint64_t t0 = clk(CLOCK_THREAD_CPUTIME_ID);
	int i;

	for (i = 0; i < n; i++)
		clk(id);
	return (double)(clk(CLOCK_THREAD_CPUTIME_ID) - t0) / (n + 1);
}

static int cmd_work(const char *variant, double secs, const char *fifo)
{
	int phase = !strcmp(variant, "phase");
	unsigned int grain = phase ? 4096 : 16384;
	uint64_t seg[NF] = { 0 }, polls[NF] = { 0 }, stamps = 0, rounds = 0;
	uint64_t c0, w0, c1, w1, end, t, u0 = 0, s0 = 0, u1 = 0, s1 = 0;
	int cpu = getenv("TRUTH_CPU") ? atoi(getenv("TRUTH_CPU")) : 1;
	double poll_ns, stamp_ns, write_ns = 0;
	int kfd, cfd, gfd;
	cpu_set_t set;
	char buf[64];
	int i;
	FILE *st;

	if (!phase && strcmp(variant, "mixed"))
		die("unknown variant %s", variant);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity %d", cpu);
	prctl(PR_SET_TIMERSLACK, 1UL);
	if ((uintptr_t)truth_user_a >= (uintptr_t)truth_user_b ||
	    (uintptr_t)truth_user_b >= (uintptr_t)truth_user_end)
		die("the user functions are not laid out in order");
	kfd = open("/proc/prf_test_kmod", O_WRONLY);
	cfd = open("/proc/prf_test_chain", O_WRONLY);
	if (kfd < 0 || cfd < 0)
		die("/proc/prf_test_kmod or /proc/prf_test_chain (load PRF_TEST_KMOD)");
	/* warm up: every path once, and the costs to move to "other" */
	put_ms(kfd, "1");
	put_ms(cfd, "1");
	truth_user_a(clk(CLOCK_MONOTONIC) + 1000000, grain, &polls[F_UA]);
	truth_user_b(clk(CLOCK_MONOTONIC) + 1000000, grain, &polls[F_UB]);
	polls[F_UA] = polls[F_UB] = 0;

	gfd = open(fifo, O_RDONLY);
	if (gfd < 0 || read(gfd, buf, sizeof(buf)) <= 0)
		die("waiting for go on %s", fifo);
	/*
	 * The costs to move to "other", measured with the contender running
	 * (guest time is shared by both vCPUs under -icount: what the other
	 * CPU does changes them).
	 */
	poll_ns = cost_of(CLOCK_MONOTONIC, 5000);
	stamp_ns = cost_of(CLOCK_THREAD_CPUTIME_ID, 5000);
	/* a write the module refuses: the way in and out, without the spin */
	t = clk(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < 1000; i++)
		if (write(kfd, "x", 1) >= 0 || errno != EINVAL)
			die("a write of x to /proc/prf_test_kmod was not EINVAL");
	write_ns = (double)(clk(CLOCK_THREAD_CPUTIME_ID) - t) / 1000 -
		   stamp_ns / 1000;

	st = fopen("/proc/self/stat", "r");
	if (st && fscanf(st, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %" SCNu64 " %" SCNu64, &u0, &s0) != 2)
		u0 = s0 = 0;
	if (st)
		fclose(st);
	w0 = clk(CLOCK_MONOTONIC);
	c0 = clk(CLOCK_THREAD_CPUTIME_ID);
	end = w0 + (uint64_t)(secs * 1e9);
	if (phase) {
		/* start on a millisecond boundary of CLOCK_MONOTONIC */
		uint64_t b = (w0 / 1000000 + 1) * 1000000;
		struct timespec ts = { b / 1000000000, b % 1000000000 };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		c0 = clk(CLOCK_THREAD_CPUTIME_ID);
		w0 = clk(CLOCK_MONOTONIC);
		end = w0 + (uint64_t)(secs * 1e9);
		t = c0;
		for (;;) {
			uint64_t now = clk(CLOCK_MONOTONIC), c;
			uint64_t base = now / 1000000 * 1000000;

			polls[F_UA]++;
			if (now >= end)
				break;
			truth_user_a(base + 300000, grain, &polls[F_UA]);
			c = clk(CLOCK_THREAD_CPUTIME_ID);
			seg[F_UA] += c - t;
			t = c;
			truth_user_b(base + 1000000, grain, &polls[F_UB]);
			c = clk(CLOCK_THREAD_CPUTIME_ID);
			seg[F_UB] += c - t;
			t = c;
			stamps += 2;
			rounds++;
		}
	} else {
		t = c0;
		while (clk(CLOCK_MONOTONIC) < end) {
			uint64_t c;

			polls[F_KSPIN]++;	/* the loop's clock read */
			put_ms(kfd, "2");
			c = clk(CLOCK_THREAD_CPUTIME_ID);
			seg[F_KSPIN] += c - t;
			t = c;
			polls[F_UA]++;
			truth_user_a(clk(CLOCK_MONOTONIC) + 370000, grain, &polls[F_UA]);
			c = clk(CLOCK_THREAD_CPUTIME_ID);
			seg[F_UA] += c - t;
			t = c;
			put_ms(cfd, "1");
			c = clk(CLOCK_THREAD_CPUTIME_ID);
			seg[F_CHAIN] += c - t;
			t = c;
			polls[F_UB]++;
			truth_user_b(clk(CLOCK_MONOTONIC) + 1630000, grain, &polls[F_UB]);
			c = clk(CLOCK_THREAD_CPUTIME_ID);
			seg[F_UB] += c - t;
			t = c;
			stamps += 4;
			rounds++;
		}
	}
	c1 = clk(CLOCK_THREAD_CPUTIME_ID);
	w1 = clk(CLOCK_MONOTONIC);
	st = fopen("/proc/self/stat", "r");
	if (st && fscanf(st, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %" SCNu64 " %" SCNu64, &u1, &s1) != 2)
		u1 = s1 = 0;
	if (st)
		fclose(st);

	/*
	 * Each segment's stamp (one clock syscall), its clock reads (vDSO)
	 * and, for a write to the module, the way into and out of the write
	 * handler ran outside the function it is charged to: take them out
	 * (the vDSO reads are user time outside the functions, the rest
	 * kernel time outside them).
	 */
	printf("TRUTH variant=%s secs=%.3f cpu=%d rounds=%" PRIu64
	       " cpu_ns=%" PRIu64 " wall_ns=%" PRIu64
	       " poll_ns=%.1f stamp_ns=%.1f write_ns=%.1f", variant, secs, cpu,
	       rounds, c1 - c0, w1 - w0, poll_ns, stamp_ns, write_ns);
	{
		double user_other = 0;
		int f;

		for (f = 0; f < NF; f++)
			user_other += polls[f] * poll_ns;
		for (f = 0; f < NF; f++) {
			double v = seg[f] - polls[f] * poll_ns -
				   (double)stamps / (phase ? 2 : 4) * stamp_ns;

			if (f == F_KSPIN || f == F_CHAIN)
				v -= rounds * write_ns;

			if (!seg[f])
				v = 0;
			printf(" %s=%.0f", fname[f], v);
		}
		printf(" user_other_ns=%.0f", user_other);
	}
	printf(" tick_utime=%" PRIu64 " tick_stime=%" PRIu64 "\n",
	       u1 - u0, s1 - s0);
	fflush(stdout);
	fclose(stdout);		/* the driver reads it from a FIFO */
	/* stay until told: perf and bpftrace read this process's maps */
	if (read(gfd, buf, sizeof(buf)) < 0)
		die("waiting for the end on %s", fifo);
	return 0;
}

/* ---- prf --------------------------------------------------------------- */

struct ent {
	uint64_t addr;
	const char *name;
};

static int by_addr(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The address of SYM in /proc/kallsyms and of the next symbol above it. */
static void ksym(const char *sym, uint64_t *addr, uint64_t *next)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a, best = ~0ull;

	if (!f)
		die("/proc/kallsyms");
	*addr = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, sym))
			*addr = a;
	if (!*addr)
		die("%s not in /proc/kallsyms", sym);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    a > *addr && a < best)
			best = a;
	fclose(f);
	if (next)
		*next = best;
}

static int open_prf(void)
{
	int fd = open(PRF_DEVICE, O_RDWR);

	if (fd < 0)
		die(PRF_DEVICE);
	return fd;
}

static struct ent tab[8];

static void build_table(void)
{
	uint64_t a, n, c, cn, stext;

	ksym("prf_test_kmod_spin", &a, &n);
	ksym("prf_test_c", &c, &cn);
	ksym("_stext", &stext, NULL);
	tab[0] = (struct ent){ (uintptr_t)truth_user_a, "truth_user_a" };
	tab[1] = (struct ent){ (uintptr_t)truth_user_b, "truth_user_b" };
	tab[2] = (struct ent){ (uintptr_t)truth_user_end, "[other-user]" };
	tab[3] = (struct ent){ stext, "[other-kernel]" };
	tab[4] = (struct ent){ a, "prf_test_kmod_spin" };
	tab[5] = (struct ent){ n, "[other-kernel]" };
	tab[6] = (struct ent){ c, "prf_test_c" };
	tab[7] = (struct ent){ cn, "[other-kernel]" };
	qsort(tab, 8, sizeof(tab[0]), by_addr);
}

static int cmd_prfon(int pid, const char *how, unsigned int hz)
{
	struct prf_filter flt = { .type = PRF_FILTER_TGID, .id = pid };
	struct prf_info info = { .size = sizeof(info) };
	uint32_t flags = 0, h = hz;
	uint64_t addrs[8];
	int fd = open_prf(), i;

	if (!strcmp(how, "fixed"))
		flags = PRF_FLAG_FIXED;
	else if (strcmp(how, "strat"))
		die("fixed or strat, not %s", how);
	/* from a known state: OFF, no flag, this filter, time mode, no stacks */
	if (ioctl(fd, PRF_SETSTATE, 0) || ioctl(fd, PRF_SETFLAGS, &(uint32_t){ 0 }))
		die("turning /dev/prf off and its flags to 0");
	if (ioctl(fd, PRF_GETINFO, &info))
		die("PRF_GETINFO");
	if (info.mode || info.stack_depth)
		die("/dev/prf in mode %u with stack depth %u", info.mode,
		    info.stack_depth);
	build_table();
	for (i = 0; i < 8; i++)
		addrs[i] = tab[i].addr;
	if (ioctl(fd, PRF_SETFILTER, &flt))
		die("PRF_SETFILTER tgid %d", pid);
	if (write(fd, addrs, sizeof(addrs)) != sizeof(addrs))
		die("loading the table");
	if (ioctl(fd, PRF_SETHZ, &h))
		die("PRF_SETHZ %u", hz);
	flags |= PRF_FLAG_USERPC;
	if (ioctl(fd, PRF_SETFLAGS, &flags))
		die("PRF_SETFLAGS %#x", flags);
	if (ioctl(fd, PRF_CLEAR) || ioctl(fd, PRF_SETSTATE, 1))
		die("turning /dev/prf on");
	return 0;
}

static int cmd_prfoff(void)
{
	struct prf_filter none = { .type = PRF_FILTER_NONE };
	struct prf_info info = { .size = sizeof(info) };
	uint64_t buf[2 * 8 + 2];
	int fd = open_prf(), i;

	if (ioctl(fd, PRF_SETSTATE, 0))
		die("turning /dev/prf off");
	if (read(fd, buf, sizeof(buf)) != sizeof(buf))
		die("reading /dev/prf");
	if (ioctl(fd, PRF_GETINFO, &info))
		die("PRF_GETINFO");
	build_table();
	for (i = 0; i < 8; i++) {
		if (buf[i] != tab[i].addr)
			die("the table changed under us");
		printf("%" PRIu64 " %s\n", buf[8 + i], tab[i].name);
	}
	printf("%" PRIu64 " [other-user]\n", buf[16]);	/* below truth_user_a */
	printf("%" PRIu64 " [idle]\n", buf[17]);
	printf("%" PRIu64 " [other-kernel]\n", (uint64_t)info.ticks_outside);
	fprintf(stderr, "INFO total=%llu filtered=%llu lost=%llu flags=%#x hz=%u\n",
		(unsigned long long)info.ticks_total,
		(unsigned long long)info.ticks_filtered,
		(unsigned long long)info.ticks_lost, info.flags, info.hz);
	if (ioctl(fd, PRF_SETFLAGS, &(uint32_t){ 0 }) ||
	    ioctl(fd, PRF_SETFILTER, &none))
		die("leaving /dev/prf without flags and filter");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "work"))
		return cmd_work(argv[2], atof(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "prfon"))
		return cmd_prfon(atoi(argv[2]), argv[3], atoi(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "prfoff"))
		return cmd_prfoff();
	fprintf(stderr, "usage: truth work mixed|phase SECONDS FIFO\n"
		"       truth prfon PID fixed|strat HZ\n       truth prfoff\n");
	return 2;
}
