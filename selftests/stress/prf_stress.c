// SPDX-License-Identifier: GPL-2.0
/*
 * prf_stress - many threads per device doing everything at once.
 *
 * On /dev/prf and every /dev/prfN, --threads threads (default 8) each pick
 * random operations for --duration seconds: open/close, write (valid tables,
 * tables out of order, bad sizes, too many addresses, unreadable buffers,
 * also while ON), read (short, exact, large, unaligned), every ioctl, poll,
 * lseek, and the sysfs attributes (control, hz, size, max, info), while
 * sampling at PRF_HZ_MAX.  A signal thread interrupts the workers (no
 * SA_RESTART) so the interruptible paths run too.
 *
 * Checked during the storm: every failure is an errno uapi/linux/prf.h
 * documents for that call, and the one the case calls for (a table out of
 * order gives EINVAL or EBUSY, never E2BIG); what read returns is a prefix of
 * a table some thread wrote with the length the ABI gives; bytes past it are
 * untouched; status, sizes, rates, flags and info are in range; the kernel
 * log shows no report.  After it: a fresh load/ON/OFF/read cycle on every
 * device gives the documented layout and the sum rule, and the counters stay
 * still while OFF.
 *
 * usage: prf_stress [--duration S] [--threads N] [--seed X] [--hz HZ]
 */
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>

#include "common.h"

#define NPOOL		10
#define BIG_READ	(512 * 1024)

struct table {
	__u64 *a;
	size_t n;
};

static struct prf_dev devs[MAX_DEVS];
static int ndevs;
static struct table pool[NPOOL];
static __u64 *ktext;
static size_t nktext;
static int max_addrs;
static unsigned int opt_hz = PRF_HZ_MAX;
static atomic_int stop;
static atomic_ulong mismatches;	/* wrong errno for the case, bad content */
static atomic_ulong ops_done;
static void *unmapped_page;
static long page_size;

struct worker {
	pthread_t tid;
	int dev;
	int fd;
	struct rng rng;
	unsigned char *buf;	/* BIG_READ + 64 */
};

static void __attribute__((format(printf, 1, 2))) mismatch(const char *fmt, ...)
{
	static atomic_int printed;
	char msg[512];
	va_list ap;

	atomic_fetch_add(&mismatches, 1);
	if (atomic_fetch_add(&printed, 1) >= 30)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tap_diag("MISMATCH: %s", msg);
}

/* @e (0 for success) must be one of the -1-terminated list. */
static void expect(const struct worker *w, const char *what, int e, ...)
{
	va_list ap;
	int x;

	va_start(ap, e);
	while ((x = va_arg(ap, int)) != -1)
		if (x == e) {
			va_end(ap);
			return;
		}
	va_end(ap);
	mismatch("%s on %s: %s", what, devs[w->dev].path,
		 e ? strerrorname_np(e) : "success");
}

/* Runs a call, records its result; evaluates to 0 or the errno. */
#define CALL(op, what, expr) ({					\
	long __r = (expr);					\
	int __e = __r < 0 ? errno : 0;				\
	check_result(op, __r, __e, what);			\
	__e; })

/* Pool tables: kernel text subsets of varied sizes, distinguishable by n. */
static void make_pool(void)
{
	static const size_t want[NPOOL] = {
		3, 4, 7, 16, 100, 257, 1000, 3001, 8192, 16000
	};
	int k;

	for (k = 0; k < NPOOL; k++) {
		size_t n = want[k] < nktext ? want[k] : nktext - k;
		size_t step = nktext / n, i;

		pool[k].n = n;
		pool[k].a = malloc(n * sizeof(__u64));
		for (i = 0; i < n; i++)
			pool[k].a[i] = ktext[(k + i * step) % nktext];
		qsort(pool[k].a, n, sizeof(__u64), u64_cmp);
		if (!strictly_ascending(pool[k].a, n)) {	/* wrapped: plain prefix */
			for (i = 0; i < n; i++)
				pool[k].a[i] = ktext[i];
		}
	}
}

static bool pool_size(long n)
{
	int k;

	for (k = 0; k < NPOOL; k++)
		if ((long)pool[k].n == n)
			return true;
	return false;
}

/*
 * What read returned (@ret bytes for @count asked) must be what the ABI
 * gives for some table that was written: min(count, (2N + 2) * 8) bytes,
 * starting with its addresses.  Counters must be plausible numbers.
 */
static void check_read(struct worker *w, const unsigned char *buf, size_t count,
		       ssize_t ret, const char *kind)
{
	int k;
	size_t i;

	for (k = 0; k < NPOOL; k++) {
		size_t full = (2 * pool[k].n + 2) * 8;
		size_t abytes = pool[k].n * 8;
		size_t want = count < full ? count : full;

		if ((size_t)ret != want)
			continue;
		if (memcmp(buf, pool[k].a, (size_t)ret < abytes ? (size_t)ret : abytes))
			continue;
		/* counters: whole ones only, they are never absurd */
		for (i = abytes; i + 8 <= (size_t)ret; i += 8) {
			__u64 c;

			memcpy(&c, buf + i, 8);
			if (c > (1ULL << 40)) {
				mismatch("%s read: counter %zu is %llu", kind,
					 (i - abytes) / 8, (unsigned long long)c);
				return;
			}
		}
		return;
	}
	mismatch("%s read of %zu bytes on %s returned %zd bytes matching no table written",
		 kind, count, devs[w->dev].path, ret);
}

static void op_read(struct worker *w)
{
	size_t count, off = 0, i, tail;
	const char *kind;
	ssize_t r;
	int e, sz;

	switch (rng_below(&w->rng, 4)) {
	case 0:
		kind = "short";
		count = 1 + rng_below(&w->rng, 23);
		break;
	case 1:
		kind = "exact";
		if (ioctl(w->fd, PRF_GETSIZE, &sz) < 0 || sz <= 0)
			sz = pool[rng_below(&w->rng, NPOOL)].n;
		count = (2 * (size_t)sz + 2) * 8;
		break;
	case 2:
		kind = "large";
		count = BIG_READ;
		break;
	default:
		kind = "unaligned";
		off = 1 + rng_below(&w->rng, 7);
		count = 1 + rng_below(&w->rng, 4096);
		break;
	}
	if (count + off > BIG_READ + 64)
		count = BIG_READ + 64 - off;
	tail = count < 256 ? count : 256;
	memset(w->buf + off, 0xa5, tail);
	r = read(w->fd, w->buf + off, count);
	e = r < 0 ? errno : 0;
	check_result(OP_READ, r, e, kind);
	if (r < 0) {
		expect(w, "read", e, ENXIO, EINTR, -1);
		return;
	}
	if ((size_t)r > count) {
		mismatch("read of %zu returned %zd", count, r);
		return;
	}
	check_read(w, w->buf + off, count, r, kind);
	for (i = r; i < tail; i++)
		if (w->buf[off + i] != 0xa5) {
			mismatch("read of %zu returned %zd but wrote byte %zu",
				 count, r, i);
			break;
		}
}

static void op_write(struct worker *w)
{
	struct table *t = &pool[rng_below(&w->rng, NPOOL)];
	size_t n = t->n, i;
	__u64 *a;
	int e;

	switch (rng_below(&w->rng, 8)) {
	case 0: case 1: case 2:		/* valid */
		e = CALL(OP_WRITE, "valid table", write(w->fd, t->a, n * 8));
		expect(w, "valid write", e, 0, EBUSY, ENOMEM, -1);
		break;
	case 3:				/* out of order: a duplicate or a swap */
		a = malloc(n * 8);
		memcpy(a, t->a, n * 8);
		i = rng_below(&w->rng, n - 1);
		if (rng_chance(&w->rng, 50))
			a[i + 1] = a[i];
		else
			a[i] = t->a[i + 1], a[i + 1] = t->a[i];
		e = CALL(OP_WRITE, "unordered table", write(w->fd, a, n * 8));
		expect(w, "unordered write", e, EINVAL, EBUSY, -1);
		free(a);
		break;
	case 4:				/* bad sizes: E2BIG before EBUSY */
		i = rng_chance(&w->rng, 50) ? rng_below(&w->rng, 3) * 8 :
		    n * 8 - 1 - rng_below(&w->rng, 7);
		e = CALL(OP_WRITE, "bad size", write(w->fd, t->a, i));
		expect(w, "bad-size write", e, E2BIG, -1);
		break;
	case 5:				/* too many: ENOSPC before anything is read */
		e = CALL(OP_WRITE, "too many",
			 write(w->fd, t->a, ((size_t)max_addrs + 1) * 8));
		expect(w, "too-many write", e, ENOSPC, -1);
		break;
	case 6:				/* unreadable buffer */
		e = CALL(OP_WRITE, "unmapped buffer",
			 write(w->fd, rng_chance(&w->rng, 50) ? NULL : unmapped_page,
			       (3 + rng_below(&w->rng, 64)) * 8));
		expect(w, "unreadable write", e, EFAULT, EBUSY, -1);
		break;
	default:			/* readable start, unmapped end */
		a = (__u64 *)((char *)unmapped_page - 16);
		e = CALL(OP_WRITE, "straddling buffer", write(w->fd, a, 64));
		expect(w, "straddling write", e, EFAULT, EBUSY, -1);
		break;
	}
}

static void check_info(struct worker *w, const struct prf_info *in)
{
	const struct prf_dev *d = &devs[w->dev];

	if (in->size != sizeof(*in) || in->version != PRF_INFO_VERSION ||
	    (in->status & ~3U) || ((in->status & PRF_STATUS_ON) &&
				   !(in->status & PRF_STATUS_LOADED)) ||
	    in->hz < PRF_HZ_MIN || in->hz > PRF_HZ_MAX ||
	    in->usec_per_tick != 1000000 / in->hz ||
	    (in->flags & ~PRF_FLAGS_ALL) || in->cpu != d->cpu ||
	    in->max_addrs != (__u64)max_addrs ||
	    (in->naddrs && !pool_size(in->naddrs)) ||
	    (!!in->naddrs != !!(in->status & PRF_STATUS_LOADED)) ||
	    in->ticks_total < in->ticks_user + in->ticks_idle + in->ticks_outside)
		mismatch("GETINFO on %s: size %u version %u status %u hz %u usec %u flags %u cpu %d naddrs %llu total %llu",
			 d->path, in->size, in->version, in->status, in->hz,
			 in->usec_per_tick, in->flags, in->cpu,
			 (unsigned long long)in->naddrs,
			 (unsigned long long)in->ticks_total);
}

/* Filters: this process, none, or bad input; read back. */
static void op_filter(struct worker *w)
{
	struct prf_filter f = { .type = PRF_FILTER_NONE };
	int e;

	switch (rng_below(&w->rng, 4)) {
	case 0:
		f.type = PRF_FILTER_TGID;
		f.id = getpid();
		e = CALL(OP_IOCTL, "SETFILTER", ioctl(w->fd, PRF_SETFILTER, &f));
		expect(w, "SETFILTER tgid", e, 0, EBUSY, -1);
		break;
	case 1:
		e = CALL(OP_IOCTL, "SETFILTER", ioctl(w->fd, PRF_SETFILTER, &f));
		expect(w, "SETFILTER none", e, 0, EBUSY, -1);
		break;
	case 2:
		f.type = 3 + rng_below(&w->rng, 100);
		e = CALL(OP_IOCTL, "SETFILTER", ioctl(w->fd, PRF_SETFILTER, &f));
		expect(w, "SETFILTER bad type", e, EINVAL, -1);
		break;
	default:
		memset(&f, 0xff, sizeof(f));
		e = CALL(OP_IOCTL, "GETFILTER", ioctl(w->fd, PRF_GETFILTER, &f));
		expect(w, "GETFILTER", e, 0, -1);
		if (!e && (f.type > PRF_FILTER_TGID || f.flags ||
			   (f.type == PRF_FILTER_TGID && f.id != (__u64)getpid()) ||
			   (f.type == PRF_FILTER_NONE && f.id)))
			mismatch("GETFILTER gave type %u flags %u id %llu", f.type,
				 f.flags, (unsigned long long)f.id);
		break;
	}
}

/* The per-process tally: resized, read while others sample. */
static void op_tasks(struct worker *w)
{
	struct prf_task t[8];
	struct prf_tasks ts = { .nr = 8, .tasks = (__u64)(uintptr_t)t };
	__u32 cap;
	int e;

	if (rng_chance(&w->rng, 30)) {
		cap = rng_chance(&w->rng, 90) ? rng_below(&w->rng, 64) :
		      PRF_TASKS_MAX + 1 + rng_below(&w->rng, 1000);
		e = CALL(OP_IOCTL, "SETTASKS", ioctl(w->fd, PRF_SETTASKS, &cap));
		if (cap > PRF_TASKS_MAX)
			expect(w, "SETTASKS too big", e, EINVAL, -1);
		else
			expect(w, "SETTASKS", e, 0, EBUSY, -1);
		return;
	}
	e = CALL(OP_IOCTL, "GETTASKS", ioctl(w->fd, PRF_GETTASKS, &ts));
	expect(w, "GETTASKS", e, 0, -1);
	if (!e && (ts.nr > 8 || ts.nr > ts.capacity || ts.capacity >= 64))
		mismatch("GETTASKS gave nr %u capacity %u", ts.nr, ts.capacity);
}

/*
 * User objects: the table set up, resized, freed and read while others
 * sample and turn the instance ON and OFF (the notes and the worker that
 * resolves them race with every zeroing).
 */
static void op_uobjs(struct worker *w)
{
	struct prf_uobj e8[8];
	struct prf_uobj_file f2[2];
	struct prf_uobjs q = { .nr = 8, .nfiles = 2,
			       .entries = (__u64)(uintptr_t)e8,
			       .files = (__u64)(uintptr_t)f2 };
	char ch[4 * PRF_UCHAIN_RECORD_SIZE(PRF_UCHAIN_DEPTH_MAX)];
	struct prf_uchains qc = { .nr = 4, .nfiles = 2,
				  .chains = (__u64)(uintptr_t)ch,
				  .files = (__u64)(uintptr_t)f2 };
	struct prf_uobj_conf c = { 0 };
	int e;

	if (rng_chance(&w->rng, 30)) {
		if (rng_chance(&w->rng, 80)) {
			c.capacity = rng_below(&w->rng, 2048);
			c.files = c.capacity ? 1 + rng_below(&w->rng, 32) : 0;
			/* half of them with user call chains */
			if (c.capacity && rng_chance(&w->rng, 50)) {
				c.flags = PRF_UOBJ_CHAINS;
				c.depth = 2 + rng_below(&w->rng,
							PRF_UCHAIN_DEPTH_MAX - 1);
			}
			/* half of them with the vDSO a file of its own */
			if (c.capacity && rng_chance(&w->rng, 50))
				c.flags |= PRF_UOBJ_VDSO;
		} else {
			c.capacity = PRF_UOBJS_MAX + 1;
			c.files = 1;
		}
		e = CALL(OP_IOCTL, "SETUOBJS", ioctl(w->fd, PRF_SETUOBJS, &c));
		if (c.capacity > PRF_UOBJS_MAX)
			expect(w, "SETUOBJS too big", e, EINVAL, -1);
		else
			expect(w, "SETUOBJS", e, 0, EBUSY, -1);
		return;
	}
	if (rng_chance(&w->rng, 40)) {
		e = CALL(OP_IOCTL, "GETUCHAINS",
			 ioctl(w->fd, PRF_GETUCHAINS, &qc));
		expect(w, "GETUCHAINS", e, 0, -1);
		if (!e && (qc.nr > 4 || qc.nfiles > 2 ||
			   qc.used > qc.capacity ||
			   qc.depth > PRF_UCHAIN_DEPTH_MAX ||
			   (qc.depth && qc.depth < 2)))
			mismatch("GETUCHAINS gave nr %u nfiles %u used %u of %u, depth %u",
				 qc.nr, qc.nfiles, qc.used, qc.capacity,
				 qc.depth);
		return;
	}
	e = CALL(OP_IOCTL, "GETUOBJS", ioctl(w->fd, PRF_GETUOBJS, &q));
	expect(w, "GETUOBJS", e, 0, -1);
	if (!e && (q.nr > 8 || q.nfiles > 2 || q.used > q.capacity ||
		   q.files_used > q.files_max || q.capacity >= 2048))
		mismatch("GETUOBJS gave nr %u nfiles %u used %u of %u",
			 q.nr, q.nfiles, q.used, q.capacity);
}

/*
 * Modes: set (time and the alloc modes; not calls: ON in the calls mode
 * with a pool table of thousands of functions traces half the kernel, and
 * filters out the addresses ftrace refuses one search at a time, minutes
 * on the debug kernel under TCG: prf_fuzz and prf_mode_test cover it),
 * read back, the alloc modes' details.
 */
static void op_mode(struct worker *w)
{
	struct prf_site sites[8];
	struct prf_sites ss = { .nr = 8, .sites = (__u64)(uintptr_t)sites };
	__u32 m;
	int e;

	switch (rng_below(&w->rng, 3)) {
	case 0:
		m = rng_chance(&w->rng, 90) ? rng_below(&w->rng, PRF_MODE_CALLS) :
		    PRF_MODE_CALLS + 1 + (__u32)rng_below(&w->rng, 1000);
		e = CALL(OP_IOCTL, "SETMODE", ioctl(w->fd, PRF_SETMODE, &m));
		if (m > PRF_MODE_CALLS)
			expect(w, "SETMODE unknown", e, EINVAL, -1);
		else
			expect(w, "SETMODE", e, 0, EBUSY, EOPNOTSUPP, -1);
		break;
	case 1:
		m = ~0u;
		e = CALL(OP_IOCTL, "GETMODE", ioctl(w->fd, PRF_GETMODE, &m));
		expect(w, "GETMODE", e, 0, -1);
		if (!e && m > PRF_MODE_CALLS)
			mismatch("GETMODE gave %u", m);
		break;
	default:
		e = CALL(OP_IOCTL, "GETSITES", ioctl(w->fd, PRF_GETSITES, &ss));
		/* EINVAL: not in an alloc mode (now) */
		expect(w, "GETSITES", e, 0, ENXIO, EINVAL, -1);
		if (!e && ss.nr > 8)
			mismatch("GETSITES stored nr %u of 8", ss.nr);
		break;
	}
}

/* A private instance: opened, loaded, ON, sometimes one CPU, closed ON. */
static void op_clone(struct worker *w)
{
	const struct table *t = &pool[rng_below(&w->rng, NPOOL)];
	__s32 cpu = rng_chance(&w->rng, 50) ? -1 : devs[w->dev].cpu;
	int fd, e;

	fd = open("/dev/" PRF_CLONE_NAME, O_RDWR | O_CLOEXEC);
	e = fd < 0 ? errno : 0;
	check_result(OP_OPEN, fd, e, "open clone");
	expect(w, "open clone", e, 0, ENOSPC, EINTR, -1);
	if (fd < 0)
		return;
	e = ioctl(fd, PRF_SETCPU, &cpu) ? errno : 0;
	if (e)
		mismatch("SETCPU %d on a new clone gave %s", cpu, strerror(e));
	if (write(fd, t->a, t->n * 8) == (ssize_t)(t->n * 8))
		ioctl(fd, PRF_SETSTATE, 1);
	if (rng_chance(&w->rng, 50))
		sleep_ms(1);
	close(fd);
}

static void op_ioctl(struct worker *w)
{
	struct prf_info info;
	bool on;
	__u32 v;
	int x = -1, e;

	switch (rng_below(&w->rng, 15)) {
	case 14:
		op_uobjs(w);
		break;
	case 13:
		op_mode(w);
		break;
	case 10:
		op_filter(w);
		break;
	case 11:
		op_tasks(w);
		break;
	case 12:
		op_clone(w);
		break;
	case 0:
		e = CALL(OP_IOCTL, "GETSTATUS", ioctl(w->fd, PRF_GETSTATUS, &x));
		expect(w, "GETSTATUS", e, 0, -1);
		if (!e && ((x & ~3) || (x & 1 && !(x & 2))))
			mismatch("GETSTATUS gave %d", x);
		break;
	case 1:
		e = CALL(OP_IOCTL, "GETSIZE", ioctl(w->fd, PRF_GETSIZE, &x));
		expect(w, "GETSIZE", e, 0, -1);
		if (!e && x && !pool_size(x))
			mismatch("GETSIZE gave %d", x);
		break;
	case 2:
		on = rng_chance(&w->rng, 65);
		e = CALL(OP_IOCTL, "SETSTATE",
			 ioctl(w->fd, PRF_SETSTATE, on ?
			       1UL | (rng_next(&w->rng) << 1) : 0UL));
		/* ON: the sample budget may be full (event modes charge it) */
		expect(w, "SETSTATE", e, 0, on ? ENOSPC : 0, -1);
		break;
	case 3:
		e = CALL(OP_IOCTL, "GETMAX", ioctl(w->fd, PRF_GETMAX, &x));
		expect(w, "GETMAX", e, 0, -1);
		if (!e && x != max_addrs)
			mismatch("GETMAX gave %d, not %d", x, max_addrs);
		break;
	case 4:
		v = 0;
		e = CALL(OP_IOCTL, "GETHZ", ioctl(w->fd, PRF_GETHZ, &v));
		expect(w, "GETHZ", e, 0, -1);
		if (!e && (v < PRF_HZ_MIN || v > PRF_HZ_MAX))
			mismatch("GETHZ gave %u", v);
		break;
	case 5:
		if (rng_chance(&w->rng, 85)) {
			v = rng_chance(&w->rng, 90) ? opt_hz :
			    PRF_HZ_MIN + rng_below(&w->rng, PRF_HZ_MAX);
			e = CALL(OP_IOCTL, "SETHZ", ioctl(w->fd, PRF_SETHZ, &v));
			expect(w, "SETHZ", e, 0, EBUSY, -1);
		} else {
			v = rng_chance(&w->rng, 50) ? 0 : PRF_HZ_MAX + 1 +
			    (__u32)rng_below(&w->rng, 1u << 31);
			e = CALL(OP_IOCTL, "SETHZ bad", ioctl(w->fd, PRF_SETHZ, &v));
			expect(w, "SETHZ out of range", e, EINVAL, -1);
		}
		break;
	case 6:
		e = CALL(OP_IOCTL, "CLEAR", ioctl(w->fd, PRF_CLEAR));
		expect(w, "CLEAR", e, 0, ENXIO, -1);
		break;
	case 7:
		memset(&info, 0xff, sizeof(info));
		info.size = sizeof(info);
		e = CALL(OP_IOCTL, "GETINFO", ioctl(w->fd, PRF_GETINFO, &info));
		expect(w, "GETINFO", e, 0, -1);
		if (!e)
			check_info(w, &info);
		break;
	case 8:
		v = ~0u;
		e = CALL(OP_IOCTL, "GETFLAGS", ioctl(w->fd, PRF_GETFLAGS, &v));
		expect(w, "GETFLAGS", e, 0, -1);
		if (!e && (v & ~PRF_FLAGS_ALL))
			mismatch("GETFLAGS gave %#x", v);
		break;
	default:
		if (rng_chance(&w->rng, 85)) {
			static const __u32 good[] = {
				0, PRF_FLAG_JITTER, PRF_FLAG_FIXED,
				PRF_FLAG_ISOLATED,
				PRF_FLAG_FIXED | PRF_FLAG_ISOLATED,
			};

			v = good[rng_below(&w->rng, sizeof(good) / sizeof(good[0]))];
			e = CALL(OP_IOCTL, "SETFLAGS", ioctl(w->fd, PRF_SETFLAGS, &v));
			expect(w, "SETFLAGS", e, 0, EBUSY, -1);
		} else {
			v = (__u32)rng_next(&w->rng) | 0x80000000u;
			e = CALL(OP_IOCTL, "SETFLAGS bad", ioctl(w->fd, PRF_SETFLAGS, &v));
			expect(w, "SETFLAGS unknown bits", e, EINVAL, -1);
		}
		break;
	}
}

static void op_sysfs(struct worker *w)
{
	static const char *const ctl[] = { "start", "stop", "startclr", "clear",
					   "start\n", "bogus", "sto", "stopp" };
	const struct prf_dev *d = &devs[w->dev];
	char path[128], buf[1024], val[32];
	const char *s;
	int r, e, c;

	switch (rng_below(&w->rng, 4)) {
	case 0:		/* control */
		c = rng_below(&w->rng, 8);
		r = write_str(attr_path(d, "control", path, sizeof(path)), ctl[c]);
		e = -r;
		check_result(OP_SYSFS_W, r, e, ctl[c]);
		if (c == 1)
			expect(w, "control stop", e, 0, -1);
		else if (c >= 5)
			expect(w, "control garbage", e, EINVAL, -1);
		else
			expect(w, "control start/startclr/clear", e, 0, ENXIO, -1);
		break;
	case 1:		/* hz */
		if (rng_chance(&w->rng, 80)) {
			snprintf(val, sizeof(val), "%u\n", rng_chance(&w->rng, 80) ? opt_hz :
				 (unsigned int)(PRF_HZ_MIN + rng_below(&w->rng, PRF_HZ_MAX)));
			r = write_str(attr_path(d, "hz", path, sizeof(path)), val);
			check_result(OP_SYSFS_W, r, -r, "hz");
			expect(w, "hz", -r, 0, EBUSY, -1);
		} else {
			static const char *const bad[] = { "0", "10001", "-5", "abc",
							   "99999999999", "1 2" };
			s = bad[rng_below(&w->rng, 6)];
			r = write_str(attr_path(d, "hz", path, sizeof(path)), s);
			check_result(OP_SYSFS_W, r, -r, "hz bad");
			expect(w, "bad hz", -r, EINVAL, -1);
		}
		break;
	default: {	/* reads */
		static const char *const attrs[] = { "control", "hz", "size", "max", "info" };
		int a = rng_below(&w->rng, 5);
		long v;

		r = read_str(attr_path(d, attrs[a], path, sizeof(path)), buf, sizeof(buf));
		check_result(OP_SYSFS_R, r, -r, attrs[a]);
		if (r < 0)
			break;
		v = strtol(buf, NULL, 10);
		if ((a == 0 && strcmp(buf, "on\n") && strcmp(buf, "off\n") &&
		     strcmp(buf, "unloaded\n")) ||
		    (a == 1 && (v < PRF_HZ_MIN || v > PRF_HZ_MAX)) ||
		    (a == 2 && v && !pool_size(v)) ||
		    (a == 3 && v != max_addrs) ||
		    (a == 4 && !strstr(buf, "ticks_total ")))
			mismatch("sysfs %s of %s reads \"%.60s\"", attrs[a], d->name, buf);
		break;
	}
	}
}

static void op_poll(struct worker *w)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN | POLLOUT };
	int r = poll(&p, 1, 0);

	/* EINTR from poll is the VFS's answer to our own signals */
	if (r < 0 && errno == EINTR)
		return;
	check_result(OP_POLL, r, r < 0 ? errno : 0, "poll");
	if (r != 1 || (p.revents & (POLLIN | POLLOUT)) != (POLLIN | POLLOUT))
		mismatch("poll gave %d revents %#x", r, p.revents);
}

static void op_reopen(struct worker *w)
{
	int fd, e;

	if (rng_chance(&w->rng, 50)) {	/* a second file, briefly */
		fd = open(devs[w->dev].path,
			  (rng_chance(&w->rng, 50) ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
		e = fd < 0 ? errno : 0;
		check_result(OP_OPEN, fd, e, devs[w->dev].path);
		expect(w, "open", e, 0, -1);
		if (fd >= 0) {
			int st;

			if (ioctl(fd, PRF_GETSTATUS, &st) < 0)
				mismatch("GETSTATUS on a second file: %m");
			check_result(OP_CLOSE, close(fd), errno, "close");
		}
		return;
	}
	check_result(OP_CLOSE, close(w->fd), errno, "close");
	w->fd = open(devs[w->dev].path, O_RDWR | O_CLOEXEC);
	e = w->fd < 0 ? errno : 0;
	check_result(OP_OPEN, w->fd, e, devs[w->dev].path);
	expect(w, "open", e, 0, -1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->buf = malloc(BIG_READ + 64);
	w->fd = open(devs[w->dev].path, O_RDWR | O_CLOEXEC);
	while (!atomic_load(&stop)) {
		unsigned int pick = rng_below(&w->rng, 100);

		if (w->fd < 0) {	/* reported by op_reopen; try again */
			w->fd = open(devs[w->dev].path, O_RDWR | O_CLOEXEC);
			if (w->fd < 0) {
				sleep_ms(10);
				continue;
			}
		}
		if (pick < 6)
			op_reopen(w);
		else if (pick < 26)
			op_write(w);
		else if (pick < 46)
			op_read(w);
		else if (pick < 81)
			op_ioctl(w);
		else if (pick < 86)
			op_poll(w);
		else if (pick < 88)
			check_result(OP_LSEEK, lseek(w->fd, rng_next(&w->rng) >> 40,
						     SEEK_SET), errno, "lseek");
		else
			op_sysfs(w);
		atomic_fetch_add(&ops_done, 1);
	}
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* ---- the cycle after the storm ------------------------------------------- */

static void burn(double secs)
{
	double end = now_s() + secs;
	char b[4096];
	int z = open("/dev/zero", O_RDONLY);

	while (now_s() < end)
		if (read(z, b, sizeof(b)) < 0)
			break;
	close(z);
}

static bool fresh_cycle(const struct prf_dev *d, const struct table *t)
{
	size_t n = t->n, full = (2 * n + 2) * 8, i;
	unsigned char *buf = malloc(full + 64), *buf2 = malloc(full + 64);
	struct prf_info in, in2;
	__u64 *c, sum = 0;
	bool ok = true;
	ssize_t r;
	int fd;

	fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		tap_diag("%s: open: %m", d->path);
		return false;
	}
	ok &= !set_state(fd, 0);
	ok &= !set_hz(fd, PRF_HZ_MAX);
	__u32 flags = 0;
	struct prf_filter none = { .type = PRF_FILTER_NONE };
	ok &= !xioctl(fd, PRF_SETFLAGS, &flags);
	ok &= !xioctl(fd, PRF_SETFILTER, &none);
	ok &= !xioctl(fd, PRF_SETTASKS, &flags);
	ok &= !xioctl(fd, PRF_SETMODE, &flags);	/* PRF_MODE_TIME */
	ok &= !load_table(fd, t->a, n);
	ok &= !get_info(fd, &in) && in.ticks_total == 0 && in.naddrs == n &&
	      in.status == PRF_STATUS_LOADED;
	if (!ok)
		tap_diag("%s: could not set up a fresh table", d->path);
	ok &= !set_state(fd, 1);
	burn(1.0);
	ok &= !set_state(fd, 0);
	memset(buf, 0x5a, full + 64);
	r = read(fd, buf, full + 64);
	ok &= !get_info(fd, &in);
	if (r != (ssize_t)full) {
		tap_diag("%s: read returned %zd, not %zu", d->path, r, full);
		ok = false;
		goto out;
	}
	for (i = full; i < full + 64; i++)
		if (buf[i] != 0x5a) {
			tap_diag("%s: read wrote past its result", d->path);
			ok = false;
			break;
		}
	if (memcmp(buf, t->a, n * 8)) {
		tap_diag("%s: addresses read back differ from those written", d->path);
		ok = false;
	}
	c = (__u64 *)(buf + n * 8);
	for (i = 0; i < n + 2; i++)
		sum += c[i];
	if (in.naddrs != n || in.status != PRF_STATUS_LOADED || in.hz != PRF_HZ_MAX ||
	    in.ticks_user != c[PRF_USER_BUCKET(n)] ||
	    in.ticks_idle != c[PRF_IDLE_BUCKET(n)] ||
	    in.ticks_sampled != sum + in.ticks_outside ||
	    in.ticks_total != in.ticks_sampled || in.ticks_total == 0) {
		tap_diag("%s: naddrs %llu status %u hz %u user %llu/%llu idle %llu/%llu total %llu sampled %llu sum %llu outside %llu",
			 d->path, (unsigned long long)in.naddrs, in.status, in.hz,
			 (unsigned long long)in.ticks_user,
			 (unsigned long long)c[PRF_USER_BUCKET(n)],
			 (unsigned long long)in.ticks_idle,
			 (unsigned long long)c[PRF_IDLE_BUCKET(n)],
			 (unsigned long long)in.ticks_total,
			 (unsigned long long)in.ticks_sampled,
			 (unsigned long long)sum,
			 (unsigned long long)in.ticks_outside);
		ok = false;
	}
	/* OFF means no timer is left: nothing moves */
	sleep_ms(300);
	r = read(fd, buf2, full);
	if (get_info(fd, &in2) || r != (ssize_t)full || memcmp(buf, buf2, full) ||
	    in2.ticks_total != in.ticks_total) {
		tap_diag("%s: counters moved while OFF (total %llu -> %llu)", d->path,
			 (unsigned long long)in.ticks_total,
			 (unsigned long long)in2.ticks_total);
		ok = false;
	}
	tap_diag("%s: fresh cycle: %llu ticks (user %llu idle %llu outside %llu lost %llu)",
		 d->path, (unsigned long long)in.ticks_total,
		 (unsigned long long)in.ticks_user, (unsigned long long)in.ticks_idle,
		 (unsigned long long)in.ticks_outside, (unsigned long long)in.ticks_lost);
out:
	set_hz(fd, PRF_HZ_DEFAULT);
	close(fd);
	free(buf);
	free(buf2);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "threads", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "hz", required_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 },
	};
	double duration = 20, t0, last;
	int threads = 8, nw, i, o, kfd, reports = 0, fd;
	uint64_t seed = seed_from_clock();
	struct worker *ws;
	struct sigaction sa;
	bool synthetic;
	pthread_t self;

	while ((o = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (o) {
		case 'd': duration = atof(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'z': opt_hz = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [--duration S] [--threads N] [--seed X] [--hz HZ]\n",
				argv[0]);
			return 2;
		}
	}
	tap_begin();
	tap_diag("prf_stress: seed %#llx duration %.0fs threads/device %d hz %u",
		 (unsigned long long)seed, duration, threads, opt_hz);
	ndevs = prf_devices(devs, MAX_DEVS);
	if (ndevs <= 0 || access(devs[0].path, F_OK)) {
		tap_skip("no prf devices (is prf.ko loaded?)");
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	kfd = kmsg_open_tail();
	tap_ok(kmsg_selfcheck(kfd), "kernel log scanner sees new records and knows reports");

	page_size = sysconf(_SC_PAGESIZE);
	unmapped_page = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap((char *)unmapped_page + page_size, page_size);
	unmapped_page = (char *)unmapped_page + page_size;

	nktext = kernel_text(&ktext, &synthetic);
	tap_diag("%d devices, %zu kernel text addresses%s", ndevs, nktext,
		 synthetic ? " (synthetic: kallsyms hides them)" : "");
	make_pool();
	fd = open(devs[0].path, O_RDONLY);
	if (fd < 0 || ioctl(fd, PRF_GETMAX, &max_addrs) < 0) {
		tap_ok(false, "open %s and PRF_GETMAX", devs[0].path);
		return tap_end();
	}
	close(fd);
	/*
	 * Start every device sampling at the top rate, in time mode (a
	 * device left in the calls mode would trace the whole pool table).
	 */
	for (i = 0; i < ndevs; i++) {
		__u32 time_mode = PRF_MODE_TIME;

		fd = open(devs[i].path, O_RDWR);
		set_state(fd, 0);
		xioctl(fd, PRF_SETMODE, &time_mode);
		set_hz(fd, opt_hz);
		load_table(fd, pool[NPOOL - 1].a, pool[NPOOL - 1].n);
		set_state(fd, 1);
		close(fd);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: let reads see EINTR */
	sigaction(SIGUSR1, &sa, NULL);

	nw = ndevs * threads;
	ws = calloc(nw, sizeof(*ws));
	for (i = 0; i < nw; i++) {
		ws[i].dev = i % ndevs;
		ws[i].rng.s = seed ^ (0x1000193ULL * (i + 1));
		pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]);
	}
	self = pthread_self();
	(void)self;
	t0 = last = now_s();
	while (now_s() - t0 < duration) {
		struct rng r = { seed ^ (uint64_t)(now_s() * 1e6) };

		for (i = 0; i < 20; i++) {
			pthread_kill(ws[rng_below(&r, nw)].tid, SIGUSR1);
			sleep_ms(5);
		}
		reports += kmsg_scan(kfd, NULL);
		if (reports) {
			tap_diag("kernel reported a problem: stopping the storm");
			break;
		}
		if (now_s() - last >= 10) {
			last = now_s();
			tap_diag("%.0fs: %lu operations, %lu mismatches", last - t0,
				 atomic_load(&ops_done), atomic_load(&mismatches));
		}
	}
	atomic_store(&stop, 1);
	for (i = 0; i < nw; i++)
		pthread_join(ws[i].tid, NULL);
	tap_diag("storm over after %.1fs: %lu operations by %d threads on %d devices",
		 now_s() - t0, atomic_load(&ops_done), nw, ndevs);
	print_results();
	tap_ok(atomic_load(&ops_done) > 0, "operations were done");
	tap_ok(atomic_load(&undocumented) == 0, "every failure was a documented errno");
	tap_ok(atomic_load(&mismatches) == 0,
	       "every result fit its case (errno, read content, values)");
	reports += kmsg_scan(kfd, NULL);
	tap_ok(reports == 0, "no kernel report during the storm");

	/* a fresh cycle on every device */
	for (i = 0; i < ndevs; i++) {
		const struct table *t = &pool[NPOOL - 1];

		tap_ok(fresh_cycle(&devs[i], t),
		       "%s: fresh load/on/off/read after the storm: layout and sum rule",
		       devs[i].path);
	}
	reports = kmsg_scan(kfd, NULL);
	tap_ok(reports == 0, "no kernel report after the storm");
	return tap_end();
}
