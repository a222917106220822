// SPDX-License-Identifier: GPL-2.0
/*
 * prf_fuzz - a seeded random-operation generator checked against a model.
 *
 * One thread, all devices.  Each operation is drawn from a PRNG seeded with
 * --seed (printed first: `prf_fuzz --seed X --ops N` replays a run exactly):
 *
 *   write  sizes 0..huge (multiples of 8 or not, fewer than PRF_MIN_ADDRS,
 *          more than PRF_GETMAX), contents ascending / with a duplicate /
 *          out of order / garbage, buffers good, NULL, kernel, non-canonical,
 *          unmapped, read-only, straddling an unmapped page;
 *   read   counts 0..huge into the same kinds of buffers (read-only ones
 *          included: they must EFAULT);
 *   ioctl  every prf command with random arguments and pointers, near misses
 *          (prf magic with another direction, size or number) and random
 *          numbers across the whole _IOC space (dir, type, nr, size), with
 *          random high bits above the 32 the kernel looks at;
 *   poll, lseek, open/close, and the sysfs attributes (control words, hz in
 *          every notation kstrtou32 knows and many it does not, reads).
 *
 * Each device is modelled (loaded table, ON, hz, flags), so every result is
 * predicted: the exact errno, or success with the exact value or bytes.  The
 * program fails on an undocumented errno, on any disagreement with the
 * model, on bytes written outside what a call may write, and on any kernel
 * report; at the end it prints the results of each call by errno.
 *
 * The ioctl numbers the VFS answers itself before the driver sees them
 * (FIOCLEX, FIONBIO, FIFREEZE, FS_IOC_* ...) are not sent: their results are
 * the VFS's, and FIFREEZE would freeze devtmpfs.
 *
 * usage: prf_fuzz [--ops N] [--seed X]
 */
#include <ctype.h>
#include <getopt.h>
#include <poll.h>
#include <stddef.h>
#include <sys/mman.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#include "common.h"

#define NFDS		3	/* files per device */
#define MAX_N		4096	/* largest ordinary table */
#define SCRATCH		(2 * ((2 * MAX_N + 2) * 8) + 8192)

struct model {
	bool loaded, on;
	__u32 hz, flags, mode;
	size_t n;
	__u64 *a;		/* MAX_N */
};

static struct prf_dev devs[MAX_DEVS];
static struct model model[MAX_DEVS];
static int fds[MAX_DEVS][NFDS];
static int ndevs;
static int max_addrs;
static __u64 *ktext;
static size_t nktext;
static long page;
static struct rng rng;
static unsigned long opno;
static unsigned long mismatches;
/* the first, for the result's own line: a failed run's summary says it */
static char first_mismatch[600];
static unsigned char *scratch;	/* SCRATCH bytes, writable */
static unsigned char *ro_page;	/* PROT_READ, filled with a valid table */
static unsigned char *hole;	/* an unmapped page, right after `edge` */
static unsigned char *edge;	/* a writable page just below `hole` */
static __u64 *tbuf;		/* table being written */

/*
 * The sample budget (uapi/linux/prf.h): an ON that would take a CPU past
 * /sys/module/prf/parameters/sample_budget fails with ENOSPC and changes
 * nothing.  The model does not know which CPUs each device covers, so it
 * allows ENOSPC when the charges of every instance ON and this one's add
 * up past the budget (the time mode's rate, an event mode's PRF_CHARGE_*),
 * and requires success otherwise.
 */
static unsigned long budget = 40000;

static unsigned long charge_of(__u32 mode, unsigned long hz)
{
	switch (mode) {
	case PRF_MODE_TIME:
		return hz;
	case PRF_MODE_CALLS:
		return PRF_CHARGE_CALLS;
	case PRF_MODE_OFFCPU:
		return PRF_CHARGE_OFFCPU;
	default:
		return PRF_CHARGE_ALLOC;
	}
}

/* ---- reporting ------------------------------------------------------------- */

static void resync(int d);

/* May ON of device @d fail with ENOSPC (the budget), as far as the model knows? */
static bool budget_may_refuse(int d)
{
	unsigned long sum = charge_of(model[d].mode, model[d].hz);
	int i;

	for (i = 0; i < ndevs; i++)
		if (i != d && model[i].on)
			sum += charge_of(model[i].mode, model[i].hz);
	return sum > budget;
}

static void __attribute__((format(printf, 2, 3))) mismatch(int d, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	mismatches++;
	if (mismatches <= 40) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		tap_diag("MISMATCH at op %lu on %s: %s", opno,
			 d >= 0 ? devs[d].path : "-", msg);
		if (mismatches == 1)
			snprintf(first_mismatch, sizeof(first_mismatch),
				 "; the first at op %lu on %s: %s", opno,
				 d >= 0 ? devs[d].path : "-", msg);
	}
	if (d >= 0)
		resync(d);
}

static const char *ename(int e)
{
	return e ? (strerrorname_np(e) ? strerrorname_np(e) : "E?") : "success";
}

/* ---- pointers -------------------------------------------------------------- */

enum ptr_kind {
	P_GOOD, P_NULL, P_KERNEL, P_NONCANON, P_UNMAPPED, P_RO, P_STRADDLE,
	P_NR
};

static const char *const ptr_name[P_NR] = {
	"good", "NULL", "kernel", "non-canonical", "unmapped", "read-only",
	"straddling",
};

struct uptr {
	enum ptr_kind kind;
	unsigned char *p;
	size_t readable;	/* bytes readable from p */
	size_t writable;	/* bytes writable from p */
	bool user;		/* passes access_ok() for small sizes */
};

static const unsigned long kernel_addrs[] = {
	0xffffffff81000000UL, 0xffff888000000000UL, 0xffffffffff600000UL,
	0xfffffe0000000000UL, 0xffffffffffffffffUL - 7,
};

static const unsigned long noncanon_addrs[] = {
	0x0000800000000000UL, 0x00ff000000000000UL, 0x8000000000000000UL,
	0x0000fffffffff000UL,
};

/*
 * A pointer of the given kind for an object of @size bytes.  For P_GOOD the
 * object sits at a random offset in the scratch area; P_STRADDLE puts it
 * so that @cut (< size) bytes are mapped before the hole.
 */
static struct uptr make_ptr(enum ptr_kind kind, size_t size)
{
	struct uptr u = { .kind = kind, .user = true };
	size_t cut;

	switch (kind) {
	case P_GOOD:
		if (size > SCRATCH - 64)
			size = SCRATCH - 64;
		u.p = scratch + rng_below(&rng, SCRATCH - size - 64);
		u.readable = u.writable = SCRATCH - (u.p - scratch);
		break;
	case P_NULL:
		u.p = NULL;
		break;
	case P_KERNEL:
		u.p = (unsigned char *)kernel_addrs[rng_below(&rng, 5)];
		u.user = false;
		break;
	case P_NONCANON:
		u.p = (unsigned char *)noncanon_addrs[rng_below(&rng, 4)];
		u.user = false;
		break;
	case P_UNMAPPED:
		u.p = hole + rng_below(&rng, page - 8);
		break;
	case P_RO:
		u.p = ro_page + 8 * rng_below(&rng, 8);
		u.readable = page - (u.p - ro_page);
		break;
	default:
		cut = size > 1 ? 1 + rng_below(&rng, size - 1) : 0;
		if (cut > (size_t)page)
			cut = page;
		u.p = hole - cut;
		u.readable = u.writable = cut;
		break;
	}
	return u;
}

static enum ptr_kind pick_kind(unsigned int good_percent)
{
	if (rng_chance(&rng, good_percent))
		return P_GOOD;
	return 1 + rng_below(&rng, P_NR - 1);
}

/* ---- the model ---------------------------------------------------------- */

static int status_of(const struct model *m)
{
	return (m->on ? PRF_STATUS_ON : 0) | (m->loaded ? PRF_STATUS_LOADED : 0);
}

static int any_fd(int d)
{
	int k, start = rng_below(&rng, NFDS);

	for (k = 0; k < NFDS; k++)
		if (fds[d][(start + k) % NFDS] >= 0)
			return fds[d][(start + k) % NFDS];
	fds[d][0] = open(devs[d].path, O_RDWR | O_CLOEXEC);
	return fds[d][0];
}

/* Reads the kernel's view into the model (after a mismatch, and at start). */
static void resync(int d)
{
	struct model *m = &model[d];
	struct prf_info in;
	int fd = any_fd(d);
	ssize_t r;

	if (get_info(fd, &in)) {
		tap_diag("resync %s: GETINFO: %m", devs[d].path);
		return;
	}
	m->on = in.status & PRF_STATUS_ON;
	m->loaded = in.status & PRF_STATUS_LOADED;
	m->hz = in.hz;
	m->flags = in.flags;
	m->mode = in.mode;
	m->n = 0;
	if (m->loaded && in.naddrs <= MAX_N) {
		m->n = in.naddrs;
		r = read(fd, m->a, m->n * 8);
		if (r != (ssize_t)(m->n * 8))
			tap_diag("resync %s: read: %zd", devs[d].path, r);
	} else if (m->loaded) {
		/* a table too big to model: unload it (OFF, then out of order) */
		__u64 bad[3] = { 3, 2, 1 };

		set_state(fd, 0);
		if (write(fd, bad, sizeof(bad)) >= 0 || errno != EINVAL)
			tap_diag("resync %s: cannot unload", devs[d].path);
		m->on = m->loaded = false;
	}
}

/* ---- write ------------------------------------------------------------------ */

static size_t make_table(__u64 *t, size_t n)
{
	size_t i, start, step;

	switch (rng_below(&rng, 4)) {
	case 0:		/* kernel text */
		step = 1 + rng_below(&rng, nktext / n > 1 ? nktext / n : 1);
		start = rng_below(&rng, nktext);
		for (i = 0; i < n; i++)
			t[i] = ktext[(start + i * step) % nktext];
		qsort(t, n, sizeof(*t), u64_cmp);
		break;
	case 1:		/* random ascending */
		t[0] = rng_next(&rng) >> rng_below(&rng, 40);
		for (i = 1; i < n; i++)
			t[i] = t[i - 1] + 1 + rng_below(&rng, 1 + (1ULL << rng_below(&rng, 20)));
		break;
	case 2:		/* garbage */
		for (i = 0; i < n; i++)
			t[i] = rng_next(&rng);
		break;
	default:	/* the extremes */
		for (i = 0; i < n; i++)
			t[i] = rng_chance(&rng, 50) ? i : ~0ULL - (n - i);
		qsort(t, n, sizeof(*t), u64_cmp);
		break;
	}
	/* spoil the order now and then */
	if (n > 1 && rng_chance(&rng, 25)) {
		i = rng_below(&rng, n - 1);
		if (rng_chance(&rng, 50))
			t[i + 1] = t[i];
		else
			t[i] = t[i + 1] + rng_below(&rng, 3);
	}
	return n;
}

/* Strictly ascending, for a buffer of any alignment. */
static bool ascending_bytes(const unsigned char *p, size_t n)
{
	__u64 prev = 0, v;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&v, p + 8 * i, 8);
		if (i && v <= prev)
			return false;
		prev = v;
	}
	return true;
}

static void op_write(int d, int fd)
{
	struct model *m = &model[d];
	size_t count, n;
	enum ptr_kind kind;
	struct uptr u;
	int want, e;
	ssize_t r;

	switch (rng_below(&rng, 10)) {
	case 0:
		count = rng_below(&rng, 3 * 8);			/* too small */
		break;
	case 1:
		count = 8 * (3 + rng_below(&rng, 64)) + 1 + rng_below(&rng, 7);
		break;
	case 2:
		count = ((size_t)max_addrs + 1 + rng_below(&rng, 1000)) * 8;
		break;
	case 3:
		count = rng_chance(&rng, 50) ? rng_below(&rng, 1UL << 31) :
			((size_t)max_addrs + 1) * 8 + rng_below(&rng, 8);
		break;
	case 4:
		/* now and then the largest table there is: a big allocation */
		count = rng_chance(&rng, 2) ? (size_t)max_addrs * 8 :
			8 * (3 + rng_below(&rng, 8));
		break;
	default:
		count = 8 * (3 + rng_below(&rng, rng_chance(&rng, 80) ? 64 : MAX_N - 2));
		break;
	}
	n = count / 8;
	kind = pick_kind(70);
	if (kind == P_GOOD && count % 8 == 0 && n >= 3 && count <= MAX_N * 8) {
		make_table(tbuf, n);
		u = (struct uptr){ P_GOOD, (unsigned char *)tbuf, count, count, true };
	} else if (kind == P_GOOD && count <= SCRATCH) {
		u = (struct uptr){ P_GOOD, scratch, SCRATCH, SCRATCH, true };
	} else if (kind == P_GOOD) {	/* too big for the scratch: into the hole */
		u = make_ptr(P_STRADDLE, count);
	} else {
		u = make_ptr(kind, count);
	}

	/* the prediction, in the order of the VFS and then the ABI */
	if (!u.user)
		want = EFAULT;
	else if (count % 8 || n < PRF_MIN_ADDRS)
		want = E2BIG;
	else if (n > (size_t)max_addrs)
		want = ENOSPC;
	else if (m->on)
		want = EBUSY;
	else if (u.readable < count)
		want = EFAULT;
	else if (!ascending_bytes(u.p, n))
		want = EINVAL;
	else
		want = 0;

	r = write(fd, u.p, count);
	e = r < 0 ? errno : 0;
	check_result(OP_WRITE, r, e, ptr_name[kind]);
	if (e == ENOMEM && (want == 0 || want == EINVAL || (want == EFAULT && u.user)))
		return;		/* allowed, and the state is unchanged */
	if (e != want || (!e && (size_t)r != count)) {
		mismatch(d, "write(%s, %zu) gave %s (%zd), model says %s", ptr_name[kind],
			 count, ename(e), r, ename(want));
		return;
	}
	if (want == EINVAL) {
		m->loaded = false;
		m->n = 0;
	} else if (want == 0) {
		m->loaded = true;
		m->n = n;
		if (n > MAX_N) {		/* too big to model: unload it */
			resync(d);
			return;
		}
		memcpy(m->a, u.p, count);
	}
}

/* ---- read ------------------------------------------------------------------- */

static void op_read(int d, int fd)
{
	struct model *m = &model[d];
	size_t full = (2 * m->n + 2) * 8, count, len, i, check;
	enum ptr_kind kind = pick_kind(60);
	struct uptr u;
	int want, e;
	ssize_t r;

	switch (rng_below(&rng, 6)) {
	case 0: count = 0; break;
	case 1: count = 1 + rng_below(&rng, 15); break;
	case 2: count = full; break;
	case 3: count = full + 1 + rng_below(&rng, 512); break;
	case 4: count = rng_chance(&rng, 50) ? (1UL << 30) : rng_below(&rng, 1UL << 20); break;
	default: count = rng_below(&rng, full + 64); break;
	}
	u = make_ptr(kind, count < 2 * full ? count : 2 * full);
	len = m->loaded ? (count < full ? count : full) : 0;
	if (kind == P_GOOD) {
		/* a huge count needs room for len only, and not beyond */
		if (u.p + len > scratch + SCRATCH)
			u.p = scratch;
		u.writable = SCRATCH - (u.p - scratch);
	}
	check = kind == P_GOOD ? u.writable - len : 0;
	if (check > 512)
		check = 512;
	if (kind == P_GOOD)
		memset(u.p, 0xa5, len + check);

	if (!u.user)
		want = EFAULT;
	else if (!m->loaded)
		want = ENXIO;
	else if (len > u.writable)
		want = EFAULT;
	else
		want = 0;

	r = read(fd, u.p, count);
	e = r < 0 ? errno : 0;
	check_result(OP_READ, r, e, ptr_name[kind]);
	if (e != want || (!e && (size_t)r != len)) {
		mismatch(d, "read(%s, %zu) gave %s (%zd), model says %s (%zu)",
			 ptr_name[kind], count, ename(e), r, ename(want), len);
		return;
	}
	if (kind != P_GOOD)
		return;
	if (!e && memcmp(u.p, m->a, len < m->n * 8 ? len : m->n * 8)) {
		mismatch(d, "read returned addresses that were not written (%zu bytes)", len);
		return;
	}
	for (i = e ? 0 : len; i < len + check; i++)
		if (u.p[i] != 0xa5) {
			mismatch(d, "read(%zu) gave %s but wrote byte %zu", count, ename(e), i);
			return;
		}
}

/* ---- ioctl ------------------------------------------------------------------ */

static bool vfs_ioctl(unsigned int cmd)
{
	static const unsigned int vfs[] = {
		FIOCLEX, FIONCLEX, FIONBIO, FIOASYNC, FIOQSIZE, FIFREEZE, FITHAW,
		FS_IOC_FIEMAP, FIGETBSZ, FICLONE, FICLONERANGE, FIDEDUPERANGE,
		(unsigned int)FS_IOC_GETFLAGS, (unsigned int)FS_IOC_SETFLAGS,
		FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR,
	};
	unsigned int i;

	for (i = 0; i < sizeof(vfs) / sizeof(vfs[0]); i++)
		if (cmd == vfs[i])
			return true;
	/* FS_IOC_GETFSUUID, FS_IOC_GETFSSYSFSPATH (6.5+): type 0x15 */
	return _IOC_TYPE(cmd) == 0x15;
}

static const unsigned int prf_cmds[] = {
	PRF_GETSTATUS, PRF_GETSIZE, PRF_SETSTATE, PRF_GETMAX, PRF_GETHZ,
	PRF_SETHZ, PRF_CLEAR, PRF_GETINFO, PRF_GETFLAGS, PRF_SETFLAGS,
	PRF_SETMODE, PRF_GETMODE, PRF_GETSITES,
};
#define NCMDS	(sizeof(prf_cmds) / sizeof(prf_cmds[0]))

/*
 * Commands of private instances, filters, the tally, the stack table, the
 * user objects, the per-CPU tallies and the unwind tables: their state is
 * not modelled here (selftests/prf_clone_test, prf_filter_test,
 * prf_tasks_test, prf_stack_test, prf_uobj_test, prf_cputally_test and
 * prf_unwind_test cover them), so the
 * near misses never send them.
 */
static const unsigned int prf_unmodelled[] = {
	PRF_SETCPU, PRF_GETCPU, PRF_SETFILTER, PRF_GETFILTER, PRF_SETTASKS,
	PRF_GETTASKS, PRF_SETSTACKS, PRF_GETSTACKS, PRF_SETSCHEDTEXT,
	PRF_GETSCHEDTEXT, PRF_SETUOBJS, PRF_GETUOBJS, PRF_GETUCHAINS,
	PRF_GETCPUTALLIES, PRF_GETUPAIRS, PRF_SETUNWIND, PRF_GETUNWIND,
};

static bool is_unmodelled(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < sizeof(prf_unmodelled) / sizeof(prf_unmodelled[0]); i++)
		if (cmd == prf_unmodelled[i])
			return true;
	return false;
}

static bool is_prf_cmd(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < NCMDS; i++)
		if (cmd == prf_cmds[i])
			return true;
	return false;
}

/* A getter storing @size bytes: the value, or EFAULT. */
static void getter(int d, int fd, unsigned long req, size_t size, long want_val)
{
	enum ptr_kind kind = pick_kind(60);
	struct uptr u = make_ptr(kind, size);
	int want = (!u.user || u.writable < size) ? EFAULT : 0, e;
	long r;

	if (kind == P_GOOD)
		memset(u.p, 0xa5, size + 8);
	r = ioctl(fd, req, u.p);
	e = r < 0 ? errno : 0;
	check_result(OP_IOCTL, r, e, "getter");
	if (e != want || (!e && r != 0)) {
		mismatch(d, "ioctl %#lx (%s) gave %s (%ld), model says %s", req,
			 ptr_name[kind], ename(e), r, ename(want));
		return;
	}
	if (kind != P_GOOD)
		return;
	if (size == 4) {
		__u32 v;

		memcpy(&v, u.p, 4);
		if ((long)v != want_val)
			mismatch(d, "ioctl %#lx stored %u, model says %ld", req, v, want_val);
	}
	if (u.p[size] != 0xa5)
		mismatch(d, "ioctl %#lx wrote past its %zu bytes", req, size);
}

static __u32 random_hz(void)
{
	switch (rng_below(&rng, 5)) {
	case 0: return 0;
	case 1: return PRF_HZ_MAX + 1 + rng_below(&rng, 100000);
	case 2: return (__u32)rng_next(&rng);
	case 3: return PRF_HZ_MAX;
	default: return PRF_HZ_MIN + rng_below(&rng, PRF_HZ_MAX);
	}
}

/* A setter reading a __u32: EFAULT, EINVAL, EBUSY or the new value. */
static void setter(int d, int fd, unsigned long req, bool hz)
{
	struct model *m = &model[d];
	enum ptr_kind kind = pick_kind(75);
	struct uptr u = make_ptr(kind, 4);
	__u32 val = hz ? random_hz() :
		    (rng_chance(&rng, 70) ? (__u32)rng_below(&rng, 2) : (__u32)rng_next(&rng));
	bool valid = hz ? (val >= PRF_HZ_MIN && val <= PRF_HZ_MAX) : !(val & ~PRF_FLAGS_ALL);
	int want, e;
	long r;

	if (kind == P_GOOD)
		memcpy(u.p, &val, 4);
	else if (kind == P_RO)
		memcpy(&val, u.p, 4), valid = hz ? (val >= PRF_HZ_MIN && val <= PRF_HZ_MAX) :
						   !(val & ~PRF_FLAGS_ALL);
	if (!u.user || u.readable < 4)
		want = EFAULT;
	else if (!valid)
		want = EINVAL;
	else if (m->on)
		want = EBUSY;
	else if (!hz && (val & PRF_FLAG_USERPC))
		want = EINVAL;	/* no filter is ever set here */
	else
		want = 0;
	r = ioctl(fd, req, u.p);
	e = r < 0 ? errno : 0;
	check_result(OP_IOCTL, r, e, hz ? "SETHZ" : "SETFLAGS");
	if (e != want || (!e && r)) {
		mismatch(d, "%s(%s, %u) gave %s, model says %s", hz ? "SETHZ" : "SETFLAGS",
			 ptr_name[kind], val, ename(e), ename(want));
		return;
	}
	if (!want) {
		if (hz)
			m->hz = val;
		else
			m->flags = val;
	}
}

/*
 * The modes the kernel refused with EOPNOTSUPP (CONFIG_TRACEPOINTS,
 * CONFIG_DYNAMIC_FTRACE), learnt on the first refusal; the model expects
 * the same answer from then on.
 */
static bool mode_missing[PRF_MODE_OFFCPU + 1];

/*
 * PRF_SETMODE: EFAULT, EINVAL past the last mode, EOPNOTSUPP, EBUSY while
 * ON, else the new mode.  The calls mode comes rarely: turning it ON traces
 * every function of a random table.
 */
static void setmode(int d, int fd, unsigned long req)
{
	struct model *m = &model[d];
	enum ptr_kind kind = pick_kind(80);
	struct uptr u = make_ptr(kind, 4);
	__u32 val;
	int want, e;
	long r;

	if (rng_chance(&rng, 80))
		val = rng_below(&rng, PRF_MODE_CALLS);
	else if (rng_chance(&rng, 25))
		val = PRF_MODE_CALLS;
	else if (rng_chance(&rng, 50))
		val = PRF_MODE_OFFCPU;
	else
		val = PRF_MODE_OFFCPU + 1 + (__u32)rng_below(&rng, 1000);
	if (kind == P_GOOD)
		memcpy(u.p, &val, 4);
	else if (kind == P_RO)
		memcpy(&val, u.p, 4);
	if (!u.user || u.readable < 4)
		want = EFAULT;
	else if (val > PRF_MODE_OFFCPU)
		want = EINVAL;
	else if (mode_missing[val])
		want = EOPNOTSUPP;
	else if (m->on)
		want = EBUSY;
	else
		want = 0;
	r = ioctl(fd, req, u.p);
	e = r < 0 ? errno : 0;
	check_result(OP_IOCTL, r, e, "SETMODE");
	if (e == EOPNOTSUPP && val <= PRF_MODE_OFFCPU && val != PRF_MODE_TIME &&
	    !mode_missing[val] && want != EFAULT) {
		tap_diag("mode %u: EOPNOTSUPP (this kernel lacks it)", val);
		mode_missing[val] = true;
		return;
	}
	if (e != want || (!e && r)) {
		mismatch(d, "SETMODE(%s, %u) gave %s, model says %s",
			 ptr_name[kind], val, ename(e), ename(want));
		return;
	}
	if (!want)
		m->mode = val;
}

/*
 * PRF_GETSITES: EFAULT for the struct, EINVAL for flags other than
 * PRF_SITES_V2, ENXIO unloaded, EINVAL outside the alloc modes, EFAULT for
 * the array; else min(nr, N + 2) entries (struct prf_site2 with
 * PRF_SITES_V2) and nothing past them.
 */
static void getsites(int d, int fd, unsigned long req)
{
	struct model *m = &model[d];
	enum ptr_kind skind = pick_kind(80), akind = pick_kind(80);
	struct uptr us = make_ptr(skind, sizeof(struct prf_sites));
	struct prf_sites in = { .flags = rng_chance(&rng, 80) ? 0 :
				rng_chance(&rng, 50) ? PRF_SITES_V2 :
				1 + (__u32)rng_below(&rng, 8) };
	size_t room, nr, esz;
	struct uptr ua;
	int want, e;
	long r;

	esz = in.flags == PRF_SITES_V2 ? sizeof(struct prf_site2) : sizeof(struct prf_site);
	in.nr = rng_chance(&rng, 70) ? rng_below(&rng, (m->loaded ? m->n : 0) + 4) :
		(__u32)rng_next(&rng);
	/* a good array fits the scratch area, whatever N is */
	if (akind == P_GOOD && in.nr > (SCRATCH - 128) / esz)
		in.nr = (SCRATCH - 128) / esz;
	nr = m->loaded ? (in.nr < m->n + 2 ? in.nr : m->n + 2) : 0;
	room = nr > 0 ? nr : 1;
	ua = make_ptr(akind, room * esz);
	in.sites = (uintptr_t)ua.p;
	if (skind == P_GOOD) {
		if (ua.kind == P_GOOD && us.p < ua.p + room * esz + 8 &&
		    us.p + sizeof(in) > ua.p)
			us = make_ptr(P_NULL, 0);	/* no overlap */
		else
			memcpy(us.p, &in, sizeof(in));
	} else if (skind == P_RO) {
		memcpy(&in, us.p, sizeof(in));
	}
	skind = us.kind;
	if (skind == P_RO)	/* the struct the kernel reads is the page's */
		nr = m->loaded ? (in.nr < m->n + 2 ? in.nr : m->n + 2) : 0;
	if (!us.user || us.readable < sizeof(in))
		want = EFAULT;
	else if (in.flags & ~PRF_SITES_V2)
		want = EINVAL;
	else if (!m->loaded)
		want = ENXIO;
	else if (m->mode != PRF_MODE_ALLOC_CALLS && m->mode != PRF_MODE_ALLOC_BYTES)
		want = EINVAL;
	else if (nr && (skind == P_RO || (uintptr_t)in.sites != (uintptr_t)ua.p ||
			!ua.user || ua.writable < nr * esz))
		want = EFAULT;		/* a read-only struct: its array too */
	else if (us.writable < sizeof(in.nr))
		want = EFAULT;
	else
		want = 0;
	if (ua.kind == P_GOOD && (uintptr_t)in.sites == (uintptr_t)ua.p)
		memset(ua.p, 0xa5, room * esz + 8);
	r = ioctl(fd, req, us.p);
	e = r < 0 ? errno : 0;
	check_result(OP_IOCTL, r, e, "GETSITES");
	if (e != want || (!e && r)) {
		mismatch(d, "GETSITES(%s, nr %u, flags %u, %s) gave %s, model says %s",
			 ptr_name[skind], in.nr, in.flags, ptr_name[ua.kind], ename(e),
			 ename(want));
		return;
	}
	if (e || skind != P_GOOD)
		return;
	memcpy(&in, us.p, sizeof(in));
	if (in.nr != nr)
		mismatch(d, "GETSITES stored nr %u, model says %zu", in.nr, nr);
	else if (ua.kind == P_GOOD && ua.p[nr * esz] != 0xa5)
		mismatch(d, "GETSITES wrote past its %zu entries", nr);
}

static void getinfo(int d, int fd)
{
	struct model *m = &model[d];
	enum ptr_kind kind = pick_kind(65);
	struct uptr u = make_ptr(kind, 2 * sizeof(struct prf_info));
	struct prf_info in;
	__u32 size, fill;
	int want, e;
	long r;
	size_t i;

	switch (rng_below(&rng, 4)) {
	case 0: size = sizeof(in); break;
	case 1: size = rng_below(&rng, PRF_INFO_SIZE_V1); break;
	case 2: size = PRF_INFO_SIZE_V1 + rng_below(&rng, 64); break;
	default: size = (__u32)rng_next(&rng); break;
	}
	if (kind == P_GOOD) {
		if (u.p + 2 * sizeof(in) + 64 > scratch + SCRATCH)
			u.p = scratch;
		u.writable = u.readable = SCRATCH - (u.p - scratch);
		u.p = (unsigned char *)((uintptr_t)u.p & ~7UL);
		memset(u.p, 0xa5, 2 * sizeof(in) + 64);
		memcpy(u.p, &size, 4);
	} else if (kind == P_RO) {
		memcpy(&size, u.p, 4);
	} else if (kind == P_STRADDLE && u.readable >= 4) {
		memcpy(u.p, &size, 4);
	}
	fill = size < sizeof(in) ? size : sizeof(in);
	if (!u.user || u.readable < 4)
		want = EFAULT;
	else if (size < PRF_INFO_SIZE_V1)
		want = EINVAL;
	else if (u.writable < fill)
		want = EFAULT;
	else
		want = 0;
	r = ioctl(fd, PRF_GETINFO, u.p);
	e = r < 0 ? errno : 0;
	check_result(OP_IOCTL, r, e, "GETINFO");
	if (e != want || (!e && r)) {
		mismatch(d, "GETINFO(%s, size %u) gave %s, model says %s", ptr_name[kind],
			 size, ename(e), ename(want));
		return;
	}
	if (kind != P_GOOD)
		return;
	if (e) {
		for (i = 4; i < 2 * sizeof(in); i++)
			if (u.p[i] != 0xa5) {
				mismatch(d, "GETINFO failed with %s but wrote byte %zu",
					 ename(e), i);
				return;
			}
		return;
	}
	memcpy(&in, u.p, sizeof(in));
	for (i = fill; i < 2 * sizeof(in); i++)
		if (u.p[i] != 0xa5) {
			mismatch(d, "GETINFO(size %u) wrote byte %zu", size, i);
			return;
		}
	if (in.size != fill || in.version != PRF_INFO_VERSION ||
	    (int)in.status != status_of(m) || in.hz != m->hz || in.flags != m->flags ||
	    in.cpu != devs[d].cpu || in.naddrs != (m->loaded ? m->n : 0) ||
	    in.max_addrs != (__u64)max_addrs || in.usec_per_tick != 1000000 / m->hz ||
	    (fill >= offsetof(struct prf_info, mode) + 4 && in.mode != m->mode))
		mismatch(d, "GETINFO: size %u status %u hz %u flags %u cpu %d naddrs %llu "
			 "mode %u; model: status %d hz %u flags %u n %zu mode %u", in.size,
			 in.status, in.hz, in.flags, in.cpu, (unsigned long long)in.naddrs,
			 in.mode, status_of(m), m->hz, m->flags, m->n, m->mode);
}

/* One of the prf commands, with random arguments. */
static void prf_cmd(int d, int fd, unsigned long req)
{
	struct model *m = &model[d];
	unsigned long arg;
	int want, e;
	long r;

	switch ((unsigned int)req) {
	case PRF_GETSTATUS:
		getter(d, fd, req, 4, status_of(m));
		return;
	case PRF_GETSIZE:
		getter(d, fd, req, 4, m->loaded ? (long)m->n : 0);
		return;
	case PRF_GETMAX:
		getter(d, fd, req, 4, max_addrs);
		return;
	case PRF_GETHZ:
		getter(d, fd, req, 4, m->hz);
		return;
	case PRF_GETFLAGS:
		getter(d, fd, req, 4, m->flags);
		return;
	case PRF_SETHZ:
		setter(d, fd, req, true);
		return;
	case PRF_SETFLAGS:
		setter(d, fd, req, false);
		return;
	case PRF_GETINFO:
		getinfo(d, fd);
		return;
	case PRF_GETMODE:
		getter(d, fd, req, 4, m->mode);
		return;
	case PRF_SETMODE:
		setmode(d, fd, req);
		return;
	case PRF_GETSITES:
		getsites(d, fd, req);
		return;
	case PRF_SETSTATE:
		arg = rng_chance(&rng, 50) ? rng_next(&rng) : rng_below(&rng, 2);
		r = ioctl(fd, req, arg);
		e = r < 0 ? errno : 0;
		check_result(OP_IOCTL, r, e, "SETSTATE");
		if (e == ENOSPC && (arg & 1) && m->loaded && !m->on &&
		    budget_may_refuse(d))
			return;		/* refused by the budget: still OFF */
		if (e || r)
			mismatch(d, "SETSTATE(%#lx) gave %s", arg, ename(e));
		else if (m->loaded)
			m->on = arg & 1;
		return;
	default:	/* PRF_CLEAR */
		arg = rng_next(&rng);
		want = m->loaded ? 0 : ENXIO;
		r = ioctl(fd, req, arg);
		e = r < 0 ? errno : 0;
		check_result(OP_IOCTL, r, e, "CLEAR");
		if (e != want)
			mismatch(d, "CLEAR gave %s, model says %s", ename(e), ename(want));
		return;
	}
}

static unsigned long random_arg(void)
{
	struct uptr u;

	if (rng_chance(&rng, 30))
		return rng_next(&rng) >> rng_below(&rng, 64);
	u = make_ptr(pick_kind(50), 256);
	return (unsigned long)u.p;
}

static void op_ioctl(int d, int fd)
{
	unsigned int cmd;
	unsigned long req, arg;
	int e;
	long r;

	switch (rng_below(&rng, 4)) {
	case 0: case 1:		/* a prf command */
		cmd = prf_cmds[rng_below(&rng, NCMDS)];
		break;
	case 2:			/* near misses: prf magic */
		cmd = _IOC(rng_below(&rng, 4), PRF_IOC_MAGIC, rng_below(&rng, 16),
			   rng_chance(&rng, 50) ? rng_below(&rng, 1 << 14) :
			   _IOC_SIZE(prf_cmds[rng_below(&rng, NCMDS)]));
		break;
	default:		/* the whole space */
		cmd = (unsigned int)rng_next(&rng);
		break;
	}
	if (vfs_ioctl(cmd) || is_unmodelled(cmd))
		return;
	req = cmd;
	if (rng_chance(&rng, 10))	/* the kernel sees an unsigned int */
		req |= rng_next(&rng) << 32;
	if (is_prf_cmd(cmd)) {
		prf_cmd(d, fd, req);
		return;
	}
	arg = random_arg();
	r = ioctl(fd, req, arg);
	e = r < 0 ? errno : 0;
	check_result(OP_IOCTL, r, e, "unknown command");
	if (e != EINVAL)
		mismatch(d, "unknown ioctl %#x (arg %#lx) gave %s (%ld), not EINVAL",
			 cmd, arg, ename(e), r);
}

/* ---- sysfs ------------------------------------------------------------------ */

/* kstrtou32(s, 10, ..) as the kernel does it (sysfs hz): 0 or an error. */
static int kstrtou32_like(const char *s, __u32 *res)
{
	unsigned long long v = 0;
	unsigned int base = 10, dig;
	bool any = false;

	if (*s == '+')
		s++;
	for (; *s; s++) {
		if (isdigit((unsigned char)*s))
			dig = *s - '0';
		else if (isxdigit((unsigned char)*s))
			dig = tolower(*s) - 'a' + 10;
		else
			break;
		if (dig >= base)
			break;
		if (v > (~0ULL - dig) / base)
			return -ERANGE;
		v = v * base + dig;
		any = true;
	}
	if (!any)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (v > 0xffffffffULL)
		return -ERANGE;
	*res = v;
	return 0;
}

static void random_hz_string(char *s, size_t len)
{
	static const char *const odd[] = {
		"", "\n", "+", "0x", "0x2710", "0X3e8", "010", "0100\n", "+100",
		" 100", "100 ", "100\n\n", "-1", "4294967296", "4294967295",
		"99999999999999999999999", "1e3", "0b101", "00", "0", "10000\n",
		"10001", "abc", "0xg", "08", "+0x10", "1\t",
	};

	if (rng_chance(&rng, 50)) {
		snprintf(s, len, "%s", odd[rng_below(&rng, sizeof(odd) / sizeof(odd[0]))]);
		return;
	}
	snprintf(s, len, rng_chance(&rng, 50) ? "%u\n" : "%u", random_hz());
}

static void op_sysfs(int d)
{
	struct model *m = &model[d];
	char path[128], buf[1024], s[64];
	int r, e, want;

	switch (rng_below(&rng, 3)) {
	case 0: {	/* control */
		static const char *const words[] = {
			"start", "stop", "startclr", "clear", "start\n", "stop\n",
			"startclr\n", "clear\n", "Start", "star", "starts", "clear\n\n",
			" stop", "", "on", "off",
		};
		int w = rng_below(&rng, sizeof(words) / sizeof(words[0]));
		const char *cmd = words[w];
		int c = w < 8 ? w % 4 : -1;

		if (!*cmd)
			return;		/* an empty write never reaches the store */
		if (c < 0 || c == 1)
			want = c < 0 ? EINVAL : 0;
		else
			want = m->loaded ? 0 : ENXIO;
		r = write_str(attr_path(&devs[d], "control", path, sizeof(path)), cmd);
		e = -r;
		check_result(OP_SYSFS_W, r, e, "control");
		if (e == ENOSPC && !want && (c == 0 || c == 2) && !m->on &&
		    budget_may_refuse(d))
			break;		/* refused by the budget: nothing changed */
		if (e != want) {
			mismatch(d, "control \"%s\" gave %s, model says %s", cmd, ename(e),
				 ename(want));
			return;
		}
		if (want)
			break;
		if (c == 0 || c == 2)
			m->on = true;
		else if (c == 1)
			m->on = false;
		break;
	}
	case 1: {	/* hz */
		__u32 v = 0;

		random_hz_string(s, sizeof(s));
		if (!*s)
			return;
		if (kstrtou32_like(s, &v) || v < PRF_HZ_MIN || v > PRF_HZ_MAX)
			want = EINVAL;
		else
			want = m->on ? EBUSY : 0;
		r = write_str(attr_path(&devs[d], "hz", path, sizeof(path)), s);
		e = -r;
		check_result(OP_SYSFS_W, r, e, "hz");
		if (e != want) {
			mismatch(d, "hz \"%s\" gave %s, model says %s", s, ename(e), ename(want));
			return;
		}
		if (!want)
			m->hz = v;
		break;
	}
	default: {	/* reads against the model */
		static const char *const attrs[] = { "control", "hz", "size", "max", "info" };
		int a = rng_below(&rng, 5);
		char expect[64];

		r = read_str(attr_path(&devs[d], attrs[a], path, sizeof(path)), buf, sizeof(buf));
		check_result(OP_SYSFS_R, r, -r, attrs[a]);
		switch (a) {
		case 0: snprintf(expect, sizeof(expect), "%s\n", m->on ? "on" :
				 m->loaded ? "off" : "unloaded"); break;
		case 1: snprintf(expect, sizeof(expect), "%u\n", m->hz); break;
		case 2: snprintf(expect, sizeof(expect), "%zu\n", m->loaded ? m->n : 0); break;
		case 3: snprintf(expect, sizeof(expect), "%d\n", max_addrs); break;
		default: snprintf(expect, sizeof(expect), "\nstatus %d\nflags %u\nhz %u\n",
				  status_of(m), m->flags, m->hz); break;
		}
		if (r < 0 || (a < 4 && strcmp(buf, expect)) || (a == 4 && !strstr(buf, expect)))
			mismatch(d, "sysfs %s reads \"%.80s\", model says \"%s\"", attrs[a],
				 r < 0 ? strerror(-r) : buf, expect);
		break;
	}
	}
}

/* ---- the rest -------------------------------------------------------------- */

static void op_misc(int d, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };
	struct prf_info in;
	off_t off;
	int k, r;

	switch (rng_below(&rng, 4)) {
	case 0:
		r = poll(&p, 1, 0);
		check_result(OP_POLL, r, r < 0 ? errno : 0, "poll");
		if (r != 1 || (p.revents & (POLLIN | POLLOUT)) != (POLLIN | POLLOUT))
			mismatch(d, "poll gave %d revents %#x", r, p.revents);
		break;
	case 1:
		off = lseek(fd, (off_t)(rng_next(&rng) >> rng_below(&rng, 64)),
			    rng_below(&rng, 3));
		check_result(OP_LSEEK, off, errno, "lseek");
		if (off < 0)
			mismatch(d, "lseek failed: %m");
		break;
	case 2:		/* open or close a file */
		k = rng_below(&rng, NFDS);
		if (fds[d][k] >= 0) {
			check_result(OP_CLOSE, close(fds[d][k]), errno, "close");
			fds[d][k] = -1;
		} else {
			fds[d][k] = open(devs[d].path, O_RDWR | O_CLOEXEC |
					 (rng_chance(&rng, 50) ? O_NONBLOCK : 0));
			check_result(OP_OPEN, fds[d][k], errno, devs[d].path);
			if (fds[d][k] < 0)
				mismatch(d, "open: %m");
		}
		break;
	default:	/* the sum rule and a still table while OFF */
		if (!model[d].loaded || model[d].on)
			break;
		{
			size_t n = model[d].n, full = (2 * n + 2) * 8, i;
			__u64 *b = (__u64 *)scratch, sum = 0, refused;

			if (read(fd, b, full) != (ssize_t)full || get_info(fd, &in)) {
				mismatch(d, "full read or GETINFO failed: %m");
				break;
			}
			for (i = 0; i < n + 2; i++)
				sum += b[n + i];
			/*
			 * No filter is set here (ticks_filtered 0).  In the
			 * calls mode counter N is the addresses ftrace
			 * refused, not calls (uapi: ticks_sampled ==
			 * ticks_total + ticks_filtered - counter N).
			 */
			refused = model[d].mode == PRF_MODE_CALLS ?
				  b[n + PRF_USER_BUCKET(n)] : 0;
			if (in.ticks_sampled + refused != sum + in.ticks_outside ||
			    in.ticks_total != in.ticks_sampled + refused ||
			    in.ticks_user != b[n + PRF_USER_BUCKET(n)] ||
			    in.ticks_idle != b[n + PRF_IDLE_BUCKET(n)] ||
			    memcmp(b, model[d].a, n * 8))
				mismatch(d, "OFF, mode %u: sampled %llu + refused %llu != sum %llu + outside %llu, or total %llu differs, or user/idle/addresses differ",
					 model[d].mode,
					 (unsigned long long)in.ticks_sampled,
					 (unsigned long long)refused,
					 (unsigned long long)sum,
					 (unsigned long long)in.ticks_outside,
					 (unsigned long long)in.ticks_total);
		}
		break;
	}
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "ops", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long ops = 100000, kreports = 0;
	uint64_t seed = seed_from_clock();
	double t0, last;
	bool synthetic;
	int o, d, k, kfd;
	__u64 *ro;
	char replay[128];

	while ((o = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (o) {
		case 'n': ops = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [--ops N] [--seed X]\n", argv[0]);
			return 2;
		}
	}
	tap_begin();
	tap_diag("prf_fuzz: seed %#llx ops %lu (replay: %s --seed %#llx --ops %lu)",
		 (unsigned long long)seed, ops, argv[0], (unsigned long long)seed, ops);
	snprintf(replay, sizeof(replay), "; replay: prf_fuzz --seed %#llx --ops %lu",
		 (unsigned long long)seed, ops);
	rng.s = seed;
	ndevs = prf_devices(devs, MAX_DEVS);
	if (ndevs <= 0 || access(devs[0].path, F_OK)) {
		tap_skip("no prf devices (is prf.ko loaded?)");
		return tap_end() == KSFT_PASS ? KSFT_SKIP : KSFT_FAIL;
	}
	kfd = kmsg_open_tail();
	tap_ok(kmsg_selfcheck(kfd), "kernel log scanner sees new records and knows reports");
	{
		FILE *bf = fopen("/sys/module/prf/parameters/sample_budget", "r");

		if (bf) {
			if (fscanf(bf, "%lu", &budget) != 1)
				budget = 40000;
			fclose(bf);
		}
		tap_diag("sample budget %lu a CPU", budget);
	}

	page = sysconf(_SC_PAGESIZE);
	tbuf = malloc(MAX_N * 8);
	nktext = kernel_text(&ktext, &synthetic);
	scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (d = 0; d < ndevs; d++) {
		model[d].a = malloc(MAX_N * 8);
		for (k = 0; k < NFDS; k++)
			fds[d][k] = open(devs[d].path, O_RDWR | O_CLOEXEC);
		if (fds[d][0] < 0) {
			tap_ok(false, "open %s: %s", devs[d].path, strerror(errno));
			return tap_end();
		}
		set_state(fds[d][0], 0);
		resync(d);
	}
	if (ioctl(fds[0][0], PRF_GETMAX, &max_addrs) < 0) {
		tap_ok(false, "PRF_GETMAX: %s", strerror(errno));
		return tap_end();
	}
	/*
	 * The hostile pages, made last so that no later allocation lands in
	 * the holes: a writable page below an unmapped one, and a read-only
	 * page (an ascending table) below another.
	 */
	edge = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = edge + page;
	munmap(hole, page);
	ro = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (k = 0; k < page / 8; k++)
		ro[k] = 0xffffffff81000000ULL + 64 * k;
	munmap((char *)ro + page, page);
	mprotect(ro, page, PROT_READ);
	ro_page = (unsigned char *)ro;
	tap_diag("%d devices, max_addrs %d, %zu kernel text addresses%s", ndevs,
		 max_addrs, nktext, synthetic ? " (synthetic)" : "");

	t0 = last = now_s();
	/* --ops counts calls made: a draw the VFS would answer makes none */
	for (opno = 0; atomic_load(&calls_made) < ops; opno++) {
		unsigned int pick = rng_below(&rng, 100);
		int fd;

		d = rng_below(&rng, ndevs);
		fd = any_fd(d);
		if (fd < 0) {
			mismatch(d, "no file could be opened: %m");
			break;
		}
		if (pick < 20)
			op_write(d, fd);
		else if (pick < 40)
			op_read(d, fd);
		else if (pick < 80)
			op_ioctl(d, fd);
		else if (pick < 90)
			op_sysfs(d);
		else
			op_misc(d, fd);
		if (opno % 4096 == 0) {
			kreports += kmsg_scan(kfd, NULL);
			if (kreports) {
				tap_diag("kernel report near op %lu: stopping", opno);
				break;
			}
			if (now_s() - last >= 15) {
				last = now_s();
				tap_diag("%lu ops in %.0fs, %lu mismatches", opno, last - t0,
					 mismatches);
			}
		}
		if (mismatches > 1000) {
			tap_diag("too many mismatches: stopping");
			break;
		}
	}
	tap_diag("%lu calls from %lu draws in %.1fs (seed %#llx)", atomic_load(&calls_made),
		 opno, now_s() - t0, (unsigned long long)seed);
	/* leave every device OFF, unloaded, at the default rate, in time mode */
	for (d = 0; d < ndevs; d++) {
		__u64 bad[3] = { 3, 2, 1 };
		int fd = any_fd(d);

		set_state(fd, 0);
		set_hz(fd, PRF_HZ_DEFAULT);
		if (write(fd, bad, sizeof(bad)) >= 0) { /* EINVAL unloads */ }
		__u32 z = 0;
		ioctl(fd, PRF_SETFLAGS, &z);
		ioctl(fd, PRF_SETMODE, &z);	/* PRF_MODE_TIME */
		for (k = 0; k < NFDS; k++)
			if (fds[d][k] >= 0)
				close(fds[d][k]);
	}
	print_results();
	kreports += kmsg_scan(kfd, NULL);
	tap_ok(msync(hole, page, MS_ASYNC) < 0 && errno == ENOMEM &&
	       msync((char *)ro_page + page, page, MS_ASYNC) < 0 && errno == ENOMEM,
	       "the holes stayed unmapped (the predictions relied on it)");
	tap_ok(atomic_load(&calls_made) >= ops, "%lu operations (calls) done, %lu asked",
	       atomic_load(&calls_made), ops);
	tap_ok(atomic_load(&undocumented) == 0, "every failure was a documented errno");
	tap_ok(mismatches == 0, "every result was the one the ABI predicts (%lu mismatches%s%s)",
	       mismatches, first_mismatch, mismatches ? replay : "");
	tap_ok(kreports == 0, "no kernel report");
	if (tap_failed)
		tap_diag("replay: %s --seed %#llx --ops %lu", argv[0],
			 (unsigned long long)seed, ops);
	return tap_end();
}
