// SPDX-License-Identifier: GPL-2.0-only
/*
 * fakeprf.so - a /dev/prf stand-in for the host tests, by LD_PRELOAD: the
 * real prf binary and libprf run against it, no module needed.
 *
 *   FAKEPRF=PATH      the device: opening PATH opens the fake, whose state
 *                     is the text file PATH itself (empty: OFF, 100 Hz,
 *                     flags 0, nothing loaded), rewritten after each change:
 *                         on 0|1 / hz N / flags N / max N / version N /
 *                         addrs N A1 A2 ...
 *                     (version 1: a device of struct prf_info version 1,
 *                     which knows PRF_FLAG_JITTER alone; default: this
 *                     header's PRF_INFO_VERSION)
 *   FAKEPRF_LOG=FILE  one line per call that changes the device, appended:
 *                     LOAD n, SETSTATE 0|1, SETHZ n, SETFLAGS n, CLEAR,
 *                     SETCPU n, SETFILTER type id, SETTASKS n; prefixed
 *                     with "clone " for the private instance
 *   FAKEPRF_CLONE=FILE  opening /dev/prfclone opens a private instance whose
 *                     state is FILE, emptied at each open (a fresh instance);
 *                     its state also has: cpu N / filter TYPE ID / tasks N
 *                     (SETFILTER of a cgroup stores the directory's inode)
 *   FAKEPRF_UOBJS=1   a module with the user objects table: PRF_SETUOBJS
 *                     logged ("SETUOBJS capacity files"; state keys ucap N,
 *                     ufiles N), PRF_GETUOBJS empty, of those sizes;
 *                     without it both are EINVAL (an older module).
 *   FAKEPRF_UOBJ_VDSO=1  with FAKEPRF_UOBJS, a module that takes
 *                     PRF_UOBJ_VDSO (logged " vdso" after the SETUOBJS
 *                     line's numbers); without it the flag is EINVAL (a
 *                     module before it).
 *   FAKEPRF_UOBJ_ENTRIES=LIST  with FAKEPRF_UOBJS, what PRF_GETUOBJS returns:
 *                     "path:offset:count,..." (offset in hex), each path a
 *                     file of the table (its device and inode stat()ed; one
 *                     file per distinct path; "[vdso]" the vDSO's file,
 *                     PRF_UOBJ_VDSO_IMAGE, of no identity); with FAKEPRF_GROW, each
 *                     count times the reads made (as the chains' below);
 *                     the sizes then 65536:4096, whatever was set.
 *   FAKEPRF_UCHAINS=LIST  with FAKEPRF_UOBJS, a module with user call
 *                     chains: PRF_SETUOBJS takes PRF_UOBJ_CHAINS (logged
 *                     "SETUOBJS capacity files chains depth"; state key
 *                     udepth N) and PRF_GETUCHAINS returns LIST once a depth
 *                     was set: "count:flags:FRAME|FRAME...;..." with FRAME
 *                     "path@offset" ("@offset": anonymous; hex offsets),
 *                     the leaf first, cut to the depth (PRF_UCHAIN_TRUNCATED
 *                     then); the files those of both lists, the entries'
 *                     first, alike in both commands.  Without it the flag
 *                     and the command are EINVAL (a module before chains).
 *   FAKEPRF_UCHAINS_DROPPED=N  prf_uchains.dropped (with FAKEPRF_GROW, the
 *                     chains' counts and this times the reads made)
 *   FAKEPRF_UPAIRS=LIST  with FAKEPRF_UCHAINS, a module with pairs:
 *                     PRF_GETUPAIRS returns LIST once a stack depth and a
 *                     chain depth were set: "count:kflags:PC,PC...=uflags:
 *                     FRAME|FRAME...;..." (hex PCs and FRAMEs as the
 *                     stacks' and chains', the leaf first, cut to the
 *                     depths); the files those of the three lists.
 *                     Without it the command is EINVAL (a module before
 *                     pairs).
 *   FAKEPRF_UPAIRS_DROPPED=N  prf_upairs.dropped
 *   FAKEPRF_UCHAINS_EAGAIN=N  the process's first N PRF_GETUCHAINS answer
 *                     EAGAIN (the table zeroed while read)
 *   FAKEPRF_TASKS=LIST  what PRF_GETTASKS returns once PRF_SETTASKS gave a
 *                     capacity: "pid:comm:kernel:user,..."
 *   FAKEPRF_CPUS=LIST  what PRF_GETCPUTALLIES returns:
 *                     "cpu:sampled:filtered:user:idle:lost,..." (outside,
 *                     noregs and nmi 0), each value times the reads made
 *                     with FAKEPRF_GROW; without it the command is EINVAL
 *                     (a module before per-CPU tallies)
 *   FAKEPRF_STACKS=LIST what PRF_GETSTACKS returns once PRF_SETSTACKS gave a
 *                     depth: "count:flags:pc,pc,...;..." (hex PCs, the leaf
 *                     first; cut to the depth, PRF_STACK_TRUNCATED then),
 *                     counts times the reads made with FAKEPRF_GROW.
 *                     Without it, with FAKEPRF_GROW: entry i's samples have
 *                     the stack (A[i] + 4, A[0] + 0x11) (A[0]'s: A[0] + 4
 *                     alone), so the stacks add up to the flat counters.
 *   FAKEPRF_STACKS_DROPPED=N  prf_stacks.dropped (and prf_info's)
 *   FAKEPRF_SITES=LIST  PRF_GETSITES in the alloc modes:
 *                     "index:allocs:req:alloc:frees:freed[:unseen:bytes],..."
 *                     (unseen: frees_unseen and bytes_unseen, 0 without);
 *                     without it, counter i's value c gives allocs c, 24c
 *                     bytes requested, 32c allocated, c/2 frees of 32 bytes
 *                     each.
 *   FAKEPRF_SITES_V1=1  a module before PRF_SITES_V2: that flag is EINVAL.
 *   FAKEPRF_REFUSED=N   prf_info.ticks_user in the calls mode: the table's
 *                     addresses ftrace refused at ON.
 *   FAKEPRF_OFFCPU_NS=TOTAL:N:N1  prf_info's ticks_total, ticks_user and
 *                     ticks_idle in the offcpu mode (nanoseconds)
 *   FAKEPRF_NO_OFFCPU=1  a module before the offcpu mode: SETMODE 4,
 *                     SETSCHEDTEXT and GETSCHEDTEXT are EINVAL.
 * The scheduler's text (PRF_SETSCHEDTEXT): state keys sstart N / send N
 * (decimal), logged as SETSCHEDTEXT start end (hexadecimal).
 * State keys of the modes and stacks: mode N / depth N / scap N (logged as
 * SETMODE n, SETSTACKS depth capacity).
 *   FAKEPRF_EVENTS=MASK  PRF_GETEVENTS (decimal; default 0: no PMU, as in a
 *                     virtual machine); SETSTATE ON with the PMU source and
 *                     an event not in it is ENODEV
 *   FAKEPRF_PMU=LIST  with the PMU source, prf_info's "count:enabled_ns:
 *                     running_ns:samples_nmi:throttled:sampled"
 * State keys of the source (version 6): source N / event N / period N
 * (logged as SETSOURCE source event period).
 * The sample budget: budget N (default 40000) / used N (samples/s other
 * instances take on the busiest CPU, default 0): SETSTATE 1 from OFF with
 * used + charge > budget is ENOSPC; GETINFO says budget_used = used
 * (+ charge while ON).  The charge is the module's at ON: an event mode's
 * PRF_CHARGE_*, else hz (the PMU source with a period too: the module's
 * charge follows the rate measured from there, which the fake does not).
 * A descriptor opened O_RDONLY gets EBADF for the commands that change the
 * instance, as from the module.
 *
 * It answers what uapi/linux/prf.h says the device answers: EBUSY for
 * SETHZ/SETFLAGS/write while ON, EINVAL for unknown flags (and for JITTER
 * with FIXED), rates or
 * commands, E2BIG/ENOSPC/EINVAL for bad tables, ENXIO when unloaded.
 * The counters are zero, or, with FAKEPRF_GROW set, entry i's grows by
 * (i + 1)^2 at each read of the process (user by 5, idle by 50).
 *   FAKEPRF_PCS=LIST  kernel PCs sampled, "pc:count,..." (hexadecimal PC):
 *                     each adds count to the entry of the largest loaded
 *                     address not above it, as the device attributes a PC
 *                     (none below the first address), at every read
 *   FAKEPRF_GROW=lists  the counters of FAKEPRF_PCS(_FILE) and the counts of
 *                     FAKEPRF_STACKS times the reads; the table's entries
 *                     do not grow (a workload of those functions alone)
 *   FAKEPRF_WARP=1    the clocks run ahead by every timeout sigtimedwait
 *                     would have slept (below)
 *   FAKEPRF_LOAD_ZEROES=1  with FAKEPRF_GROW, a load zeroes the counters as
 *                     the device's does: they grow from the process's reads
 *                     at the load (state key zread N)
 *   FAKEPRF_PCS_FILE=FILE  the same list read from FILE at each read (a
 *                     missing file: none), added after FAKEPRF_PCS: a test
 *                     changes what the device samples during a run (a
 *                     workload that starts late; the counts are the
 *                     counters' values, which the test makes grow)
 *   FAKEPRF_STORE_FAIL=FILE  while FILE exists, the store's writes fail:
 *                     write(2) and fsync(2) of a file whose name starts
 *                     with "seg-" (a prf daemon's segment), by FILE's line
 *                     "write ERRNO [BYTES]" (BYTES: one short write of that
 *                     many bytes first, then the error) or "fsync ERRNO";
 *                     ERRNO a number or ENOSPC, EDQUOT, EIO
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/prf.h>

#define MAX_FD 1024

struct state {
	int on, cpu;
	uint32_t hz, flags, version, ftype, tasks, mode, depth, scap, source, event;
	uint32_t budget, used;
	uint32_t udepth, ucap, ufiles;
	uint64_t max, n, fid, period, sstart, send, zread;
	uint64_t *addrs;
};

/*
 * O_ACCMODE bits + 1 of each descriptor open on the fake, 0 for the others;
 * CLONE_BIT for the private instance.
 */
#define CLONE_BIT 0x10
static unsigned char fake[MAX_FD];
static int cur_clone;	/* the call in progress is on the private instance */

static const char *state_path(void)
{
	return getenv(cur_clone ? "FAKEPRF_CLONE" : "FAKEPRF");
}

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "fakeprf: no %s\n", name);
		abort();
	}
	return f;
}

static int fake_mode(int fd)
{
	return fd >= 0 && fd < MAX_FD ? fake[fd] : 0;
}

static int is_fake_path(const char *path)
{
	const char *dev = getenv("FAKEPRF");

	return dev && path && !strcmp(dev, path);
}

static int is_clone_path(const char *path)
{
	return getenv("FAKEPRF_CLONE") && path && !strcmp(path, "/dev/" PRF_CLONE_NAME);
}

static void log_op(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_op(const char *fmt, ...)
{
	const char *path = getenv("FAKEPRF_LOG");
	va_list ap;
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	va_start(ap, fmt);
	if (cur_clone)
		fputs("clone ", f);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int load_state(struct state *s)
{
	FILE *f = fopen(state_path(), "r");
	char key[16];
	unsigned long long v;
	uint64_t i;

	memset(s, 0, sizeof(*s));
	s->hz = PRF_HZ_DEFAULT;
	s->max = cur_clone ? 1U << 20 : 4096;
	s->version = PRF_INFO_VERSION;
	s->cpu = -1;
	s->budget = 4 * PRF_HZ_MAX;
	if (!f)
		return -errno;
	while (fscanf(f, "%15s %llu", key, &v) == 2) {
		if (!strcmp(key, "on"))
			s->on = !!v;
		else if (!strcmp(key, "hz"))
			s->hz = (uint32_t)v;
		else if (!strcmp(key, "flags"))
			s->flags = (uint32_t)v;
		else if (!strcmp(key, "max"))
			s->max = v;
		else if (!strcmp(key, "version"))
			s->version = (uint32_t)v;
		else if (!strcmp(key, "cpu"))
			s->cpu = (int)v - 1;
		else if (!strcmp(key, "tasks"))
			s->tasks = (uint32_t)v;
		else if (!strcmp(key, "filter") && fscanf(f, "%llu", &v) == 1)
			s->fid = v;
		else if (!strcmp(key, "ftype"))
			s->ftype = (uint32_t)v;
		else if (!strcmp(key, "mode"))
			s->mode = (uint32_t)v;
		else if (!strcmp(key, "depth"))
			s->depth = (uint32_t)v;
		else if (!strcmp(key, "scap"))
			s->scap = (uint32_t)v;
		else if (!strcmp(key, "source"))
			s->source = (uint32_t)v;
		else if (!strcmp(key, "event"))
			s->event = (uint32_t)v;
		else if (!strcmp(key, "period"))
			s->period = v;
		else if (!strcmp(key, "sstart"))
			s->sstart = v;
		else if (!strcmp(key, "send"))
			s->send = v;
		else if (!strcmp(key, "budget"))
			s->budget = (uint32_t)v;
		else if (!strcmp(key, "used"))
			s->used = (uint32_t)v;
		else if (!strcmp(key, "zread"))
			s->zread = v;
		else if (!strcmp(key, "udepth"))
			s->udepth = (uint32_t)v;
		else if (!strcmp(key, "ucap"))
			s->ucap = (uint32_t)v;
		else if (!strcmp(key, "ufiles"))
			s->ufiles = (uint32_t)v;
		else if (!strcmp(key, "addrs") && v <= s->max) {
			s->addrs = calloc(v ? v : 1, sizeof(*s->addrs));
			if (!s->addrs)
				break;
			s->n = v;
			/* s->n, not v, bounds the loop: v is each address read */
			for (i = 0; i < s->n && fscanf(f, "%llx", &v) == 1; i++)
				s->addrs[i] = v;
		}
	}
	fclose(f);
	return 0;
}

/* What SETFLAGS refuses with EINVAL on a device of this version. */
static int bad_flags(const struct state *s, uint32_t v)
{
	if (s->version < 2)
		return !!(v & ~(uint32_t)PRF_FLAG_JITTER);
	return (v & ~(uint32_t)PRF_FLAGS_ALL) ||
	       ((v & PRF_FLAG_JITTER) && (v & PRF_FLAG_FIXED));
}

static void save_state(const struct state *s)
{
	FILE *f = fopen(state_path(), "w");
	uint64_t i;

	if (!f)
		return;
	fprintf(f, "on %d\nhz %u\nflags %u\nmax %llu\nversion %u\n", s->on, s->hz,
		s->flags, (unsigned long long)s->max, s->version);
	if (cur_clone || s->ftype || s->tasks)
		fprintf(f, "cpu %d\ntasks %u\nftype %u\nfilter %u %llu\n", s->cpu + 1,
			s->tasks, s->ftype, s->ftype, (unsigned long long)s->fid);
	if (s->mode || s->depth)
		fprintf(f, "mode %u\ndepth %u\nscap %u\n", s->mode, s->depth, s->scap);
	if (s->source)
		fprintf(f, "source %u\nevent %u\nperiod %llu\n", s->source, s->event,
			(unsigned long long)s->period);
	if (s->sstart || s->send)
		fprintf(f, "sstart %llu\nsend %llu\n", (unsigned long long)s->sstart,
			(unsigned long long)s->send);
	if (s->budget != 4 * PRF_HZ_MAX || s->used)
		fprintf(f, "budget %u\nused %u\n", s->budget, s->used);
	if (s->zread)
		fprintf(f, "zread %llu\n", (unsigned long long)s->zread);
	if (s->udepth)
		fprintf(f, "udepth %u\n", s->udepth);
	if (s->ucap)
		fprintf(f, "ucap %u\nufiles %u\n", s->ucap, s->ufiles);
	fprintf(f, "addrs %llu", (unsigned long long)s->n);
	for (i = 0; i < s->n; i++)
		fprintf(f, " %llx", (unsigned long long)s->addrs[i]);
	fputc('\n', f);
	fclose(f);
}

static int fake_open(const char *path, int flags)
{
	int (*real)(const char *, int, ...) = next("open");
	int clone = is_clone_path(path), fd;

	if (clone) {
		/* A fresh private instance: an empty state. */
		path = getenv("FAKEPRF_CLONE");
		fd = real(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	fd = real(path, O_RDONLY | (flags & O_CLOEXEC));

	if (fd >= MAX_FD) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	if (fd >= 0)
		fake[fd] = (unsigned char)(((flags & O_ACCMODE) + 1) | (clone ? CLONE_BIT : 0));
	return fd;
}

int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (is_fake_path(path) || is_clone_path(path))
		return fake_open(path, flags);
	real = next("open");
	va_start(ap, flags);
	if (__OPEN_NEEDS_MODE(flags))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return real(path, flags, mode);
}

int __open_2(const char *path, int flags)
{
	int (*real)(const char *, int) = next("__open_2");

	return is_fake_path(path) || is_clone_path(path) ? fake_open(path, flags) :
							   real(path, flags);
}

/* The same on 64-bit (what _FILE_OFFSET_BITS=64 or fortified code calls). */
extern __typeof(open) open64 __attribute__((alias("open")));
int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

int close(int fd)
{
	int (*real)(int) = next("close");

	if (fake_mode(fd))
		fake[fd] = 0;
	return real(fd);
}

/* A list of "pc:count": each (times mul) to the largest loaded address <= pc. */
static void add_pc_list(uint64_t *counters, const struct state *s, const char *p,
			uint64_t mul)
{
	unsigned long long pc, cnt;
	int len;

	while (p && sscanf(p, "%llx:%llu%n", &pc, &cnt, &len) == 2) {
		uint64_t lo = 0, hi = s->n;

		/* The first address above pc: hi; its predecessor counts it. */
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (s->addrs[mid] <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (hi > 0)
			counters[hi - 1] += cnt * mul;
		p += len;
		if (*p != ',')
			break;
		p++;
	}
}

/* FAKEPRF_PCS, then FAKEPRF_PCS_FILE's list, their counts times mul. */
static void add_pcs(uint64_t *counters, const struct state *s, uint64_t mul)
{
	const char *path = getenv("FAKEPRF_PCS_FILE");
	char *buf = NULL;
	size_t len = 0, cap = 0, r;
	FILE *f;

	add_pc_list(counters, s, getenv("FAKEPRF_PCS"), mul);
	if (!path || !(f = fopen(path, "r")))
		return;
	/* Whole: a workload of thousands of functions (the store's size tests). */
	do {
		if (cap - len < 4097) {
			char *v = realloc(buf, cap ? cap * 2 : 8192);

			if (!v)
				break;
			buf = v;
			cap = cap ? cap * 2 : 8192;
		}
		r = fread(buf + len, 1, cap - len - 1, f);
		len += r;
	} while (r);
	fclose(f);
	if (buf) {
		buf[len] = '\0';
		add_pc_list(counters, s, buf, mul);
		free(buf);
	}
}

static uint64_t reads;	/* reads of the process, with FAKEPRF_GROW */

/*
 * FAKEPRF_WARP=1: time runs as fast as the process can go.  Every clock but
 * the CPU-time ones reads the real time plus an offset, and a
 * sigtimedwait() that no pending signal ends adds its whole timeout to the
 * offset and returns at once (EAGAIN), as if it had slept: the daemon's
 * weeks take minutes (bench/daemon.sh --week).  The offset only grows.
 */
static int64_t warp_ns;

static int warping(void)
{
	static int w = -1;

	if (w < 0)
		w = getenv("FAKEPRF_WARP") != NULL;
	return w;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	int (*real)(clockid_t, struct timespec *) = next("clock_gettime");
	int ret = real(clk, ts);
	int64_t ns;

	if (ret || !warping() || clk == CLOCK_PROCESS_CPUTIME_ID ||
	    clk == CLOCK_THREAD_CPUTIME_ID)
		return ret;
	ns = ts->tv_nsec + __atomic_load_n(&warp_ns, __ATOMIC_RELAXED);
	ts->tv_sec += (time_t)(ns / 1000000000);
	ts->tv_nsec = (long)(ns % 1000000000);
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return (time_t)-1;
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *to)
{
	int (*real)(const sigset_t *, siginfo_t *, const struct timespec *) =
		next("sigtimedwait");
	struct timespec zero = { 0, 0 };
	int sig;

	if (!warping() || !to)
		return real(set, info, to);
	sig = real(set, info, &zero);
	if (sig >= 0 || errno != EAGAIN)
		return sig;
	__atomic_add_fetch(&warp_ns, (int64_t)to->tv_sec * 1000000000 + to->tv_nsec,
			   __ATOMIC_RELAXED);
	errno = EAGAIN;
	return -1;
}

/* FAKEPRF_GROW=lists: only the lists' counts grow, by the reads. */
static int grow_lists(void)
{
	const char *g = getenv("FAKEPRF_GROW");

	return g && !strcmp(g, "lists");
}

static ssize_t fake_read(void *buf, size_t count)
{
	uint64_t r = 1;
	struct state s;
	uint64_t *words;
	size_t want;
	int ret = load_state(&s);

	if (!ret && !s.n)
		ret = -ENXIO;
	want = (size_t)(2 * s.n + 2) * sizeof(uint64_t);
	words = ret ? NULL : calloc(1, want);
	if (!ret && !words)
		ret = -ENOMEM;
	if (ret) {
		free(s.addrs);
		errno = -ret;
		return -1;
	}
	/* The addresses, then N + 2 counters: zero, or growing (FAKEPRF_GROW). */
	memcpy(words, s.addrs, (size_t)s.n * sizeof(uint64_t));
	if (getenv("FAKEPRF_GROW")) {
		uint64_t i;

		reads++;
		r = reads > s.zread ? reads - s.zread : reads;
		for (i = 0; i < s.n && !grow_lists(); i++)
			words[s.n + i] = r * (i + 1) * (i + 1);
		words[2 * s.n] = r * 5;
		words[2 * s.n + 1] = r * 50;
	}
	add_pcs(words + s.n, &s, grow_lists() ? r : 1);
	if (count > want)
		count = want;
	memcpy(buf, words, count);
	free(words);
	free(s.addrs);
	return (ssize_t)count;
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t (*real)(int, void *, size_t) = next("read");

	if (!fake_mode(fd))
		return real(fd, buf, count);
	cur_clone = !!(fake_mode(fd) & CLONE_BIT);
	return fake_read(buf, count);
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	(void)buflen;
	return read(fd, buf, count);
}

static ssize_t fake_write(int accmode, const void *buf, size_t count)
{
	const uint64_t *a = buf;
	struct state s;
	size_t k, n = count / sizeof(uint64_t);
	int ret;

	if (accmode == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	if ((ret = load_state(&s))) {
		errno = -ret;
		return -1;
	}
	free(s.addrs);
	s.addrs = NULL;
	if (count % sizeof(uint64_t) || n < PRF_MIN_ADDRS)
		ret = E2BIG;
	else if (n > s.max)
		ret = ENOSPC;
	else if (s.on)
		ret = EBUSY;
	for (k = 1; !ret && k < n; k++)
		if (a[k] <= a[k - 1])
			ret = EINVAL;
	if (ret && ret != EINVAL) {
		errno = ret;
		return -1;
	}
	s.n = 0;
	if (!ret) {
		s.addrs = malloc(count);
		if (!s.addrs) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(s.addrs, a, count);
		s.n = n;
		if (getenv("FAKEPRF_LOAD_ZEROES"))
			s.zread = reads;
	}
	save_state(&s);
	free(s.addrs);
	log_op("LOAD %zu%s", n, ret ? " EINVAL" : "");
	if (ret) {
		errno = ret;
		return -1;
	}
	return (ssize_t)count;
}

/*
 * FAKEPRF_STORE_FAIL: the error op ("write", "fsync") gets on fd now, 0
 * for none; *bytes the short write's length before it (write only).
 */
static int store_fail(int fd, const char *op, long *bytes)
{
	const char *ctl = getenv("FAKEPRF_STORE_FAIL");
	char link[64], path[4096], line[128], what[16], ename[16];
	const char *base;
	ssize_t len;
	FILE *f;
	int e, saved = errno;

	*bytes = 0;
	if (!ctl || fd < 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return 0;
	path[len] = '\0';
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "seg-", 4))
		return 0;
	f = fopen(ctl, "re");
	if (!f) {
		errno = saved;
		return 0;
	}
	e = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	errno = saved;
	if (!e || sscanf(line, "%15s %15s %ld", what, ename, bytes) < 2 || strcmp(what, op))
		return 0;
	if (!strcmp(ename, "ENOSPC"))
		return ENOSPC;
	if (!strcmp(ename, "EDQUOT"))
		return EDQUOT;
	if (!strcmp(ename, "EIO"))
		return EIO;
	return atoi(ename);
}

int fsync(int fd)
{
	int (*real)(int) = next("fsync");
	long bytes;
	int e = store_fail(fd, "fsync", &bytes);

	if (e) {
		errno = e;
		return -1;
	}
	return real(fd);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	ssize_t (*real)(int, const void *, size_t) = next("write");
	int m = fake_mode(fd);

	if (!m) {
		static int short_fd = -1;	/* the short write done: now the error */
		long bytes;
		int e = store_fail(fd, "write", &bytes);

		if (!e)
			return real(fd, buf, count);
		if (bytes > 0 && fd != short_fd && count > (size_t)bytes) {
			short_fd = fd;
			return real(fd, buf, (size_t)bytes);
		}
		short_fd = -1;
		errno = e;
		return -1;
	}
	cur_clone = !!(m & CLONE_BIT);
	return fake_write((m & ~CLONE_BIT) - 1, buf, count);
}

/* PRF_GETTASKS from FAKEPRF_TASKS ("pid:comm:kernel:user,..."). */
static int get_tasks(const struct state *s, struct prf_tasks *t)
{
	struct prf_task *out = (struct prf_task *)(uintptr_t)t->tasks;
	const char *list = getenv("FAKEPRF_TASKS");
	uint32_t room = t->nr, nr = 0;
	char buf[4096], *save = NULL, *item;

	t->capacity = s->tasks;
	t->dropped = 0;
	if (s->tasks && list) {
		snprintf(buf, sizeof(buf), "%s", list);
		for (item = strtok_r(buf, ",", &save); item && nr < room && nr < s->tasks;
		     item = strtok_r(NULL, ",", &save)) {
			struct prf_task e;
			char comm[17] = "";
			unsigned long long k, u;
			int pid;

			memset(&e, 0, sizeof(e));
			if (sscanf(item, "%d:%16[^:]:%llu:%llu", &pid, comm, &k, &u) != 4)
				continue;
			e.pid = pid;
			e.kernel = k;
			e.user = u;
			memcpy(e.comm, comm, strlen(comm) < 16 ? strlen(comm) : 15);
			out[nr++] = e;
		}
	}
	t->nr = nr;
	return 0;
}

/* PRF_GETCPUTALLIES from FAKEPRF_CPUS (see the top): 0, or -errno. */
static int get_cpu_tallies(struct prf_cpu_tallies *t)
{
	struct prf_cpu_tally *out = (struct prf_cpu_tally *)(uintptr_t)t->cpus;
	const char *list = getenv("FAKEPRF_CPUS");
	uint64_t mul = getenv("FAKEPRF_GROW") ? reads : 1;
	char buf[4096], *save = NULL, *item;
	uint32_t nr = 0, ncpus = 0;

	if (!list)
		return -EINVAL;
	if (t->flags || t->pad)
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", list);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		unsigned long long v[5];
		unsigned int cpu;
		struct prf_cpu_tally e;

		if (sscanf(item, "%u:%llu:%llu:%llu:%llu:%llu", &cpu, &v[0], &v[1], &v[2], &v[3],
			   &v[4]) != 6)
			continue;
		ncpus++;
		if (nr >= t->nr)
			continue;
		memset(&e, 0, sizeof(e));
		e.cpu = cpu;
		e.sampled = v[0] * mul;
		e.filtered = v[1] * mul;
		e.user = v[2] * mul;
		e.idle = v[3] * mul;
		e.lost = v[4] * mul;
		out[nr++] = e;
	}
	t->nr = nr;
	t->ncpus = ncpus;
	return 0;
}

/* Counter i as the last read gave it. */
static uint64_t counter(const struct state *s, uint64_t i)
{
	if (!getenv("FAKEPRF_GROW"))
		return 0;
	return i < s->n ? reads * (i + 1) * (i + 1) : i == s->n ? reads * 5 : reads * 50;
}

/* Store one stack record at rec (depth PCs of room); pcs leaf first. */
static void put_stack(const struct state *s, unsigned char *rec, uint64_t count,
		      uint32_t flags, const uint64_t *pcs, uint32_t npcs)
{
	struct prf_stack *st = (struct prf_stack *)rec;
	uint64_t *pc = (uint64_t *)(st + 1);
	uint32_t k;

	memset(rec, 0, PRF_STACK_RECORD_SIZE(s->depth));
	st->count = count;
	st->flags = flags;
	if (npcs > s->depth) {
		npcs = s->depth;
		st->flags |= PRF_STACK_TRUNCATED;
	}
	st->nr_pcs = npcs;
	for (k = 0; k < npcs; k++)
		pc[k] = pcs[k];
}

/* PRF_GETSTACKS: FAKEPRF_STACKS, or a stack per sampled entry. */
static int get_stacks(const struct state *s, struct prf_stacks *t)
{
	unsigned char *out = (unsigned char *)(uintptr_t)t->stacks;
	const char *list = getenv("FAKEPRF_STACKS"), *drop = getenv("FAKEPRF_STACKS_DROPPED");
	size_t rsize = PRF_STACK_RECORD_SIZE(s->depth);
	uint32_t room = t->nr, nr = 0;
	uint64_t i;

	t->depth = s->depth;
	t->capacity = s->scap;
	t->dropped = s->depth && drop ? strtoull(drop, NULL, 10) : 0;
	t->nr = 0;
	if (!s->depth)
		return 0;
	if (list) {
		char *buf = strdup(list), *save = NULL, *item;

		if (!buf)
			return -ENOMEM;
		for (item = strtok_r(buf, ";", &save); item && nr < room && nr < s->scap;
		     item = strtok_r(NULL, ";", &save)) {
			unsigned long long cnt;
			unsigned fl;
			uint64_t pcs[128];
			uint32_t np = 0;
			char *p, *end;

			if (sscanf(item, "%llu:%u:", &cnt, &fl) != 2 || !(p = strchr(item, ':')) ||
			    !(p = strchr(p + 1, ':')))
				continue;
			for (p++; *p && np < 128; p = *end ? end + 1 : end) {
				pcs[np++] = strtoull(p, &end, 16);
				if (end == p)
					break;
			}
			if (getenv("FAKEPRF_GROW"))
				cnt *= reads;
			put_stack(s, out + nr * rsize, cnt, fl, pcs, np);
			nr++;
		}
		free(buf);
	} else {
		for (i = 0; i < s->n && nr < room && nr < s->scap; i++) {
			uint64_t pcs[2] = { s->addrs[i] + 4, s->addrs[0] + 0x11 };

			if (!counter(s, i))
				continue;
			put_stack(s, out + nr * rsize, counter(s, i), 0, pcs, i ? 2 : 1);
			nr++;
		}
	}
	t->nr = nr;
	return 0;
}

/* PRF_GETSITES: FAKEPRF_SITES, or from the counters. */
static int get_sites(const struct state *s, struct prf_sites *t)
{
	const char *list = getenv("FAKEPRF_SITES"), *v1 = getenv("FAKEPRF_SITES_V1");
	int v2 = t->flags == PRF_SITES_V2;
	size_t esz = v2 ? sizeof(struct prf_site2) : sizeof(struct prf_site);
	unsigned char *base = (unsigned char *)(uintptr_t)t->sites;
	uint32_t room = t->nr, n;
	uint64_t i;

	if (t->flags & ~(uint32_t)(v1 ? 0 : PRF_SITES_V2))
		return -EINVAL;
	if (!s->n)
		return -ENXIO;
	if (s->mode != PRF_MODE_ALLOC_CALLS && s->mode != PRF_MODE_ALLOC_BYTES)
		return -EINVAL;
	n = room < s->n + 2 ? room : (uint32_t)(s->n + 2);
	memset(base, 0, n * esz);
	if (list) {
		char *buf = strdup(list), *save = NULL, *item;

		if (!buf)
			return -ENOMEM;
		for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
			unsigned long long v[8] = { 0 };
			struct prf_site2 *o;
			int got = sscanf(item, "%llu:%llu:%llu:%llu:%llu:%llu:%llu:%llu", &v[0],
					 &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);

			if ((got != 6 && got != 8) || v[0] >= n)
				continue;
			o = (struct prf_site2 *)(base + v[0] * esz);
			o->allocs = v[1];
			o->bytes_req = v[2];
			o->bytes_alloc = v[3];
			o->frees = v[4];
			o->bytes_freed = v[5];
			if (v2) {
				o->frees_unseen = v[6];
				o->bytes_unseen = v[7];
			}
		}
	} else {
		for (i = 0; i < n; i++) {
			struct prf_site2 *o = (struct prf_site2 *)(base + i * esz);
			uint64_t c = counter(s, i);

			o->allocs = c;
			o->bytes_req = 24 * c;
			o->bytes_alloc = 32 * c;
			o->frees = c / 2;
			o->bytes_freed = 32 * (c / 2);
		}
	}
	t->nr = n;
	return 0;
}

/* What an ON charges the sample budget (uapi "The sample budget"). */
static uint64_t fake_charge(const struct state *s)
{
	if (s->mode == PRF_MODE_TIME)
		return s->hz;
	return s->mode == PRF_MODE_CALLS ? PRF_CHARGE_CALLS :
	       s->mode == PRF_MODE_OFFCPU ? PRF_CHARGE_OFFCPU :
	       PRF_CHARGE_ALLOC;
}

/* FAKEPRF_EVENTS: what this machine's fake PMU samples. */
static uint32_t fake_events(void)
{
	const char *e = getenv("FAKEPRF_EVENTS");

	return e ? (uint32_t)strtoul(e, NULL, 10) : 0;
}

#define FAKE_UFILES 16

/* The index of path among the table's files, added when new (at most 16). */
static uint32_t ufile_of(char (*paths)[PRF_UOBJ_PATH_MAX], uint32_t *nf, const char *path)
{
	uint32_t i;

	for (i = 0; i < *nf && strcmp(paths[i], path); i++)
		;
	if (i == *nf && *nf < FAKE_UFILES)
		snprintf(paths[(*nf)++], PRF_UOBJ_PATH_MAX, "%s", path);
	return i;
}

/*
 * The table's files: FAKEPRF_UOBJ_ENTRIES' paths, then FAKEPRF_UCHAINS',
 * then FAKEPRF_UPAIRS' (the same in PRF_GETUOBJS, PRF_GETUCHAINS and
 * PRF_GETUPAIRS, as one table's are; a pair's "...=uflags:path@off" parses
 * as a chain's).
 */
static uint32_t ufiles(char (*paths)[PRF_UOBJ_PATH_MAX])
{
	const char *lists[3] = { getenv("FAKEPRF_UOBJ_ENTRIES"), getenv("FAKEPRF_UCHAINS"),
				 getenv("FAKEPRF_UPAIRS") };
	char *dup, *item, *save = NULL, *at;
	uint32_t nf = 0;
	int l;

	for (l = 0; l < 3; l++) {
		if (!lists[l] || !(dup = strdup(lists[l])))
			continue;
		for (item = strtok_r(dup, l ? ";|" : ",", &save); item;
		     item = strtok_r(NULL, l ? ";|" : ",", &save)) {
			at = strrchr(item, l ? '@' : ':');
			if (!at)
				continue;
			*at = '\0';
			if (!l && (at = strrchr(item, ':')))
				*at = '\0';
			else if (!l)
				continue;
			/* a chain's "count:flags:path": its first frame */
			if (l && (at = strrchr(item, ':')))
				item = at + 1;
			if (*item)
				ufile_of(paths, &nf, item);
		}
		free(dup);
	}
	return nf;
}

/* The files into f, as much as fits. */
static void ufiles_fill(char (*paths)[PRF_UOBJ_PATH_MAX], uint32_t nf,
			struct prf_uobj_file *f, uint32_t froom)
{
	struct stat st;
	uint32_t i;

	for (i = 0; i < nf && i < froom && f; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		if (!strcmp(paths[i], "[vdso]")) {
			f[i].flags = PRF_UOBJ_VDSO_IMAGE;	/* no identity */
		} else if (!stat(paths[i], &st)) {
			f[i].major = major(st.st_dev);
			f[i].minor = minor(st.st_dev);
			f[i].ino = st.st_ino;
		}
		snprintf(f[i].path, sizeof(f[i].path), "%s", paths[i]);
	}
}

/*
 * PRF_GETUOBJS: FAKEPRF_UOBJ_ENTRIES' entries and files, as much as fits;
 * without them an empty table of the sizes set.
 */
static int fake_uobjs(const struct state *s, struct prf_uobjs *u)
{
	const char *list = getenv("FAKEPRF_UOBJ_ENTRIES");
	struct prf_uobj *e = (struct prf_uobj *)(uintptr_t)u->entries;
	struct prf_uobj_file *f = (struct prf_uobj_file *)(uintptr_t)u->files;
	char paths[FAKE_UFILES][PRF_UOBJ_PATH_MAX];
	uint32_t room = u->nr, froom = u->nfiles, nf, ne = 0, i;
	char *dup, *item, *save = NULL;

	u->nr = u->nfiles = u->used = u->files_used = 0;
	u->capacity = u->files_max = 0;
	u->lost = u->dropped = u->unmapped = 0;
	if (!list || !*list) {
		u->capacity = s->ucap;
		u->files_max = s->ufiles;
		return 0;
	}
	nf = ufiles(paths);
	dup = strdup(list);
	if (!dup)
		return -ENOMEM;
	for (item = strtok_r(dup, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *c2 = strrchr(item, ':'), *c1;
		unsigned long long off, cnt;

		if (!c2)
			continue;
		*c2 = '\0';
		c1 = strrchr(item, ':');
		if (!c1)
			continue;
		*c1 = '\0';
		off = strtoull(c1 + 1, NULL, 16);
		cnt = strtoull(c2 + 1, NULL, 10);
		if (getenv("FAKEPRF_GROW"))
			cnt *= reads;
		i = ufile_of(paths, &nf, item);
		if (ne < room && e) {
			memset(&e[ne], 0, sizeof(e[ne]));
			e[ne].count = cnt;
			e[ne].offset = off;
			e[ne].file = i;
		}
		ne++;
	}
	free(dup);
	ufiles_fill(paths, nf, f, froom);
	u->used = ne;
	u->files_used = nf;
	u->nr = ne < room ? ne : room;
	u->nfiles = nf < froom ? nf : froom;
	u->capacity = 65536;
	u->files_max = 4096;
	return 0;
}

/* PRF_GETUCHAINS: FAKEPRF_UCHAINS' chains (of depth frames) and the files. */
static int fake_uchains(const struct state *s, struct prf_uchains *u)
{
	const char *list = getenv("FAKEPRF_UCHAINS");
	char *base = (char *)(uintptr_t)u->chains;
	struct prf_uobj_file *f = (struct prf_uobj_file *)(uintptr_t)u->files;
	char paths[FAKE_UFILES][PRF_UOBJ_PATH_MAX];
	uint32_t room = u->nr, froom = u->nfiles, nf, nc = 0;
	char *dup, *item, *save = NULL;
	const char *dr = getenv("FAKEPRF_UCHAINS_DROPPED");

	memset(u, 0, offsetof(struct prf_uchains, chains));
	if (!s->udepth)
		return 0;	/* no chains: everything 0 */
	u->depth = s->udepth;
	u->capacity = list && *list ? 65536 : s->ucap;
	u->dropped = dr ? strtoull(dr, NULL, 10) : 0;
	if (getenv("FAKEPRF_GROW"))
		u->dropped *= reads;
	nf = ufiles(paths);
	dup = strdup(list ? list : "");
	if (!dup)
		return -ENOMEM;
	for (item = strtok_r(dup, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		struct prf_uchain *c = (struct prf_uchain *)(base +
			(size_t)nc * PRF_UCHAIN_RECORD_SIZE(s->udepth));
		struct prf_uframe *fr = (struct prf_uframe *)(c + 1);
		char *frames = strchr(item, ':'), *fsave = NULL, *one;
		unsigned long long cnt = strtoull(item, NULL, 10);
		uint32_t flags, k = 0;

		if (getenv("FAKEPRF_GROW"))
			cnt *= reads;

		if (!frames)
			continue;
		flags = (uint32_t)strtoul(frames + 1, &frames, 10);
		if (*frames++ != ':')
			continue;
		if (nc < room && base) {
			memset(c, 0, PRF_UCHAIN_RECORD_SIZE(s->udepth));
			c->count = cnt;
			c->flags = flags;
		}
		for (one = strtok_r(frames, "|", &fsave); one; one = strtok_r(NULL, "|", &fsave)) {
			char *at = strrchr(one, '@');

			if (!at)
				continue;
			*at = '\0';
			if (k == s->udepth) {
				if (nc < room && base)
					c->flags |= PRF_UCHAIN_TRUNCATED;
				break;
			}
			if (nc < room && base) {
				fr[k].offset = strtoull(at + 1, NULL, 16);
				fr[k].file = *one ? ufile_of(paths, &nf, one) : PRF_UOBJ_ANON;
			}
			k++;
		}
		if (nc < room && base)
			c->nr_frames = k;
		nc++;
	}
	free(dup);
	ufiles_fill(paths, nf, f, froom);
	u->used = nc;
	u->files_used = nf;
	u->nr = nc < room ? nc : room;
	u->nfiles = nf < froom ? nf : froom;
	return 0;
}

/* PRF_GETUPAIRS: FAKEPRF_UPAIRS' pairs (of the depths) and the files. */
static int fake_upairs(const struct state *s, struct prf_upairs *u)
{
	const char *list = getenv("FAKEPRF_UPAIRS");
	const char *dr = getenv("FAKEPRF_UPAIRS_DROPPED");
	char *base = (char *)(uintptr_t)u->pairs;
	struct prf_uobj_file *f = (struct prf_uobj_file *)(uintptr_t)u->files;
	char paths[FAKE_UFILES][PRF_UOBJ_PATH_MAX];
	uint32_t room = u->nr, froom = u->nfiles, nf, np = 0;
	size_t size = PRF_UPAIR_RECORD_SIZE(s->depth, s->udepth);
	char *dup, *item, *save = NULL;

	memset(u, 0, offsetof(struct prf_upairs, dropped));
	u->dropped = 0;
	if (!s->udepth || !s->depth)
		return 0;	/* no pairs: everything 0 */
	u->depth = s->depth;
	u->udepth = s->udepth;
	u->capacity = 65536;
	u->dropped = dr ? strtoull(dr, NULL, 10) : 0;
	nf = ufiles(paths);
	dup = strdup(list ? list : "");
	if (!dup)
		return -ENOMEM;
	for (item = strtok_r(dup, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		struct prf_upair *c = (struct prf_upair *)(base + (size_t)np * size);
		__u64 *pc = (__u64 *)(c + 1);
		struct prf_uframe *fr = (struct prf_uframe *)(pc + s->depth);
		char *user = strchr(item, '='), *p, *one, *fsave = NULL;
		int keep = np < room && base;
		uint32_t k = 0;

		if (!user)
			continue;
		*user++ = '\0';
		if (keep) {
			memset(c, 0, size);
			c->count = strtoull(item, &p, 10);
			c->kflags = *p == ':' ? (uint32_t)strtoul(p + 1, &p, 10) : 0;
			while (*p == ':' || *p == ',') {
				unsigned long long v = strtoull(p + 1, &p, 16);

				if (c->nr_pcs < s->depth)
					pc[c->nr_pcs++] = v;
				else
					c->kflags |= PRF_STACK_TRUNCATED;
			}
			c->uflags = (uint32_t)strtoul(user, &p, 10);
		} else {
			strtoul(user, &p, 10);
		}
		if (*p++ != ':')
			continue;
		for (one = strtok_r(p, "|", &fsave); one; one = strtok_r(NULL, "|", &fsave)) {
			char *at = strrchr(one, '@');

			if (!at)
				continue;
			*at = '\0';
			if (k == s->udepth) {
				if (keep)
					c->uflags |= PRF_UCHAIN_TRUNCATED;
				break;
			}
			if (keep) {
				fr[k].offset = strtoull(at + 1, NULL, 16);
				fr[k].file = *one ? ufile_of(paths, &nf, one) : PRF_UOBJ_ANON;
			}
			k++;
		}
		if (keep)
			c->nr_frames = k;
		np++;
	}
	free(dup);
	ufiles_fill(paths, nf, f, froom);
	u->used = np;
	u->files_used = nf;
	u->nr = np < room ? np : room;
	u->nfiles = nf < froom ? nf : froom;
	return 0;
}

/* One command on the state s; 1 when s changed, 0 when not, or -errno. */
static int fake_cmd(struct state *s, unsigned long cmd, unsigned long arg)
{
	void *p = (void *)arg;
	uint32_t v;

	switch (cmd) {
	case PRF_GETSTATUS:
		*(int *)p = (s->on ? PRF_STATUS_ON : 0) | (s->n ? PRF_STATUS_LOADED : 0);
		return 0;
	case PRF_GETSIZE:
		*(int *)p = (int)s->n;
		return 0;
	case PRF_GETMAX:
		*(int *)p = (int)s->max;
		return 0;
	case PRF_SETSTATE:
		if (!s->n)
			return 0;
		if ((arg & 1) && !s->on && s->source == PRF_SOURCE_PMU &&
		    !(fake_events() & (1U << s->event)))
			return -ENODEV;
		if ((arg & 1) && !s->on && s->version >= 5 &&
		    (uint64_t)s->used + fake_charge(s) > s->budget)
			return -ENOSPC;
		s->on = (int)(arg & 1);
		log_op("SETSTATE %d", s->on);
		return 1;
	case PRF_GETHZ:
		*(uint32_t *)p = s->hz;
		return 0;
	case PRF_CLEAR:
		if (!s->n)
			return -ENXIO;
		log_op("CLEAR");
		return 0;
	case PRF_GETFLAGS:
		*(uint32_t *)p = s->flags;
		return 0;
	case PRF_SETHZ:
	case PRF_SETFLAGS:
		v = *(uint32_t *)p;
		if (cmd == PRF_SETHZ ? v < PRF_HZ_MIN || v > PRF_HZ_MAX : bad_flags(s, v))
			return -EINVAL;
		if (cmd == PRF_SETFLAGS && (v & PRF_FLAG_USERPC) && !s->ftype)
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		*(cmd == PRF_SETHZ ? &s->hz : &s->flags) = v;
		log_op("%s %u", cmd == PRF_SETHZ ? "SETHZ" : "SETFLAGS", v);
		return 1;
	case PRF_GETINFO: {
		struct prf_info in = { 0 };
		uint32_t size = ((struct prf_info *)p)->size;

		if (size < PRF_INFO_SIZE_V1)
			return -EINVAL;
		in.size = s->version < 2 ? PRF_INFO_SIZE_V1 : (uint32_t)sizeof(in);
		if (size < in.size)
			in.size = size;
		in.version = s->version;
		in.status = (s->on ? PRF_STATUS_ON : 0) | (s->n ? PRF_STATUS_LOADED : 0);
		in.flags = s->flags;
		in.hz = s->hz;
		in.usec_per_tick = 1000000 / s->hz;
		in.cpu = s->cpu;
		in.ncpus = 1;
		in.naddrs = s->n;
		in.max_addrs = s->max;
		if (s->version >= 4) {
			const char *drop = getenv("FAKEPRF_STACKS_DROPPED");

			in.stack_depth = s->depth;
			in.stack_capacity = s->scap;
			in.stacks_dropped = s->depth && drop ? strtoull(drop, NULL, 10) : 0;
			in.mode = s->mode;
			if (s->mode == PRF_MODE_CALLS && getenv("FAKEPRF_REFUSED"))
				in.ticks_user = strtoull(getenv("FAKEPRF_REFUSED"), NULL, 10);
			if (s->mode == PRF_MODE_OFFCPU && getenv("FAKEPRF_OFFCPU_NS")) {
				unsigned long long t[3] = { 0 };

				sscanf(getenv("FAKEPRF_OFFCPU_NS"), "%llu:%llu:%llu", &t[0], &t[1],
				       &t[2]);
				in.ticks_total = t[0];
				in.ticks_user = t[1];
				in.ticks_idle = t[2];
			}
		}
		if (s->version >= 5) {
			in.sample_budget = s->budget;
			in.budget_used = s->used + (s->on ? fake_charge(s) : 0);
		}
		if (s->version >= 6) {
			const char *pmu = getenv("FAKEPRF_PMU");
			unsigned long long v6[6] = { 0 };

			in.source = s->source;
			in.event = s->event;
			in.period = s->period;
			if (s->source == PRF_SOURCE_PMU && pmu &&
			    sscanf(pmu, "%llu:%llu:%llu:%llu:%llu:%llu", &v6[0], &v6[1], &v6[2],
				   &v6[3], &v6[4], &v6[5]) == 6) {
				in.pmu_count = v6[0];
				in.pmu_enabled_ns = v6[1];
				in.pmu_running_ns = v6[2];
				in.samples_nmi = v6[3];
				in.pmu_throttled = v6[4];
				in.ticks_sampled = v6[5];
				in.pmu_cpus = s->on ? 1 : 0;
			}
		}
		memcpy(p, &in, in.size);
		return 0;
	}
	case PRF_SETCPU:
		if (!cur_clone || *(int32_t *)p < -1 || *(int32_t *)p > 63)
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->cpu = *(int32_t *)p;
		log_op("SETCPU %d", s->cpu);
		return 1;
	case PRF_GETCPU:
		*(int32_t *)p = s->cpu;
		return 0;
	case PRF_SETFILTER: {
		const struct prf_filter *f = p;
		struct stat sb;

		if (f->flags || f->type > PRF_FILTER_CGROUP)
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		if (f->type == PRF_FILTER_NONE && (s->flags & PRF_FLAG_USERPC))
			return -EINVAL;
		if (f->type == PRF_FILTER_TGID && kill((pid_t)f->id, 0) && errno == ESRCH)
			return -ESRCH;
		if (f->type == PRF_FILTER_CGROUP) {
			if (fstat((int)f->id, &sb))
				return -EBADF;
			if (!S_ISDIR(sb.st_mode))
				return -EINVAL;
		}
		s->ftype = f->type;
		s->fid = f->type == PRF_FILTER_CGROUP ? (uint64_t)sb.st_ino : f->id;
		log_op("SETFILTER %u %llu", s->ftype, (unsigned long long)s->fid);
		return 1;
	}
	case PRF_GETFILTER: {
		struct prf_filter *f = p;

		memset(f, 0, sizeof(*f));
		f->type = s->ftype;
		f->id = s->fid;
		return 0;
	}
	case PRF_SETTASKS:
		if (*(uint32_t *)p > PRF_TASKS_MAX)
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->tasks = *(uint32_t *)p;
		log_op("SETTASKS %u", s->tasks);
		return 1;
	case PRF_GETTASKS:
		return get_tasks(s, p);
	case PRF_GETCPUTALLIES:
		return get_cpu_tallies(p);
	case PRF_SETSTACKS: {
		const struct prf_stack_conf *c = p;

		if (s->version < 4)
			return -EINVAL;
		if (c->flags || c->pad || c->depth > PRF_STACK_DEPTH_MAX ||
		    (!c->depth && c->capacity) ||
		    (c->depth && (!c->capacity || c->capacity > PRF_STACKS_MAX)))
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->depth = c->depth;
		s->scap = c->capacity;
		log_op("SETSTACKS %u %u", s->depth, s->scap);
		return 1;
	}
	case PRF_GETSTACKS:
		if (s->version < 4)
			return -EINVAL;
		return get_stacks(s, p);
	case PRF_SETMODE:
		if (s->version < 4 || *(uint32_t *)p > PRF_MODE_OFFCPU ||
		    (*(uint32_t *)p == PRF_MODE_OFFCPU && getenv("FAKEPRF_NO_OFFCPU")))
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->mode = *(uint32_t *)p;
		log_op("SETMODE %u", s->mode);
		return 1;
	case PRF_GETMODE:
		if (s->version < 4)
			return -EINVAL;
		*(uint32_t *)p = s->mode;
		return 0;
	case PRF_GETSITES:
		if (s->version < 4)
			return -EINVAL;
		return get_sites(s, p);
	case PRF_SETSCHEDTEXT: {
		const struct prf_text_range *t = p;

		if (s->version < 4 || getenv("FAKEPRF_NO_OFFCPU") || t->start > t->end ||
		    (!t->start != !t->end))
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->sstart = t->start;
		s->send = t->end;
		log_op("SETSCHEDTEXT %llx %llx", (unsigned long long)s->sstart,
		       (unsigned long long)s->send);
		return 1;
	}
	case PRF_GETSCHEDTEXT: {
		struct prf_text_range *t = p;

		if (s->version < 4 || getenv("FAKEPRF_NO_OFFCPU"))
			return -EINVAL;
		t->start = s->sstart;
		t->end = s->send;
		return 0;
	}
	case PRF_SETSOURCE: {
		const struct prf_source *src = p;

		if (s->version < 6 || src->flags || src->pad ||
		    src->source > PRF_SOURCE_PMU ||
		    (src->source == PRF_SOURCE_TIMER && (src->event || src->period)) ||
		    src->event >= PRF_NR_EVENTS ||
		    (src->period && (src->period < PRF_PERIOD_MIN ||
				     src->period > PRF_PERIOD_MAX)))
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->source = src->source;
		s->event = src->event;
		s->period = src->period;
		log_op("SETSOURCE %u %u %llu", s->source, s->event,
		       (unsigned long long)s->period);
		return 1;
	}
	case PRF_GETSOURCE: {
		struct prf_source *src = p;

		if (s->version < 6)
			return -EINVAL;
		memset(src, 0, sizeof(*src));
		src->source = s->source;
		src->event = s->event;
		src->period = s->period;
		return 0;
	}
	case PRF_SETUOBJS: {
		/*
		 * FAKEPRF_UOBJS=1: a module with the user objects table (kept
		 * empty); FAKEPRF_UCHAINS: with call chains
		 */
		const struct prf_uobj_conf *c = p;
		int chains = getenv("FAKEPRF_UCHAINS") != NULL;
		uint32_t known = PRF_UOBJ_CHAINS |
				 (getenv("FAKEPRF_UOBJ_VDSO") ? PRF_UOBJ_VDSO : 0);
		uint32_t cf = c->flags & PRF_UOBJ_CHAINS;

		if (!getenv("FAKEPRF_UOBJS") || (c->flags & ~known) ||
		    (cf && (!chains || !c->capacity || c->depth < 2 ||
			    c->depth > PRF_UCHAIN_DEPTH_MAX)) || (!cf && c->depth) ||
		    c->capacity > PRF_UOBJS_MAX || c->files > PRF_UOBJ_FILES_MAX ||
		    !c->capacity != !c->files)
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		s->udepth = c->depth;
		s->ucap = c->capacity;
		s->ufiles = c->files;
		if (cf)
			log_op("SETUOBJS %u %u chains %u%s", c->capacity, c->files, c->depth,
			       c->flags & PRF_UOBJ_VDSO ? " vdso" : "");
		else
			log_op("SETUOBJS %u %u%s", c->capacity, c->files,
			       c->flags & PRF_UOBJ_VDSO ? " vdso" : "");
		return 1;
	}
	case PRF_GETUCHAINS: {
		struct prf_uchains *u = p;
		const char *again = getenv("FAKEPRF_UCHAINS_EAGAIN");
		static unsigned long calls;

		if (!getenv("FAKEPRF_UOBJS") || !getenv("FAKEPRF_UCHAINS") || u->flags || u->pad)
			return -EINVAL;
		if (again && calls++ < strtoul(again, NULL, 10))
			return -EAGAIN;
		return fake_uchains(s, u);
	}
	case PRF_GETUPAIRS: {
		struct prf_upairs *u = p;

		if (!getenv("FAKEPRF_UOBJS") || !getenv("FAKEPRF_UCHAINS") ||
		    !getenv("FAKEPRF_UPAIRS") || u->flags || u->pad || u->pad2)
			return -EINVAL;
		return fake_upairs(s, u);
	}
	case PRF_GETUOBJS: {
		struct prf_uobjs *u = p;

		if (!getenv("FAKEPRF_UOBJS") || u->flags || u->pad)
			return -EINVAL;
		return fake_uobjs(s, u);
	}
	case PRF_GETEVENTS:
		if (s->version < 6)
			return -EINVAL;
		*(uint32_t *)p = fake_events();
		return 0;
	default:
		return -EINVAL;
	}
}

/* What a descriptor opened O_RDONLY may not do (uapi). */
static int changes_state(unsigned long cmd)
{
	switch (cmd) {
	case PRF_SETSTATE: case PRF_SETHZ: case PRF_CLEAR: case PRF_SETFLAGS:
	case PRF_SETCPU: case PRF_SETFILTER: case PRF_SETTASKS: case PRF_SETSTACKS:
	case PRF_SETMODE: case PRF_SETSOURCE: case PRF_SETSCHEDTEXT: case PRF_SETUOBJS:
		return 1;
	}
	return 0;
}

int ioctl(int fd, unsigned long cmd, ...)
{
	int (*real)(int, unsigned long, ...) = next("ioctl");
	struct state s;
	unsigned long arg;
	va_list ap;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (!fake_mode(fd))
		return real(fd, cmd, arg);
	cur_clone = !!(fake_mode(fd) & CLONE_BIT);
	if (((fake_mode(fd) & ~CLONE_BIT) - 1) == O_RDONLY && changes_state(cmd)) {
		errno = EBADF;
		return -1;
	}
	if ((ret = load_state(&s)) || (ret = fake_cmd(&s, cmd, arg)) <= 0) {
		free(s.addrs);
		if (!ret)
			return 0;
		errno = -ret;
		return -1;
	}
	save_state(&s);
	free(s.addrs);
	return 0;
}
