/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf_util.h - helpers shared by the prf kselftests.
 *
 * Everything a test needs more than once lives here, once: opening the
 * devices, the ioctls as functions returning 0 or -errno, resetting an
 * instance to a known state, building a table from /proc/kallsyms, busy
 * children pinned to a CPU, capability dropping, sysfs attributes.
 *
 * The helpers never print and never decide a test's outcome: they return
 * values (or -errno) for the tests to assert on.
 */
#ifndef PRF_UTIL_H
#define PRF_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/prf.h>

#define PRF_ALL		(-1)	/* "cpu" argument meaning /dev/prf */
#define PRF_MAX_CPUS	1024

/* ---- CPUs ---------------------------------------------------------------- */

/* Number of possible CPUs (highest possible CPU id + 1). */
int prf_nr_possible(void);
/* Number of online CPUs. */
int prf_nr_online(void);
/* 1 if @cpu is online, 0 if not, -errno on error. */
int prf_cpu_online(int cpu);
/* Pin the calling thread to @cpu: 0 or -errno. */
int prf_pin_self(int cpu);
/* 1 if the CPU list @list ("0-2,5", as in sysfs) holds @cpu, else 0. */
int prf_cpulist_has(const char *list, int cpu);
/*
 * 1 if @cpu is isolated from kernel housekeeping (in the isolated or
 * nohz_full list of /sys/devices/system/cpu), else 0.
 */
int prf_cpu_isolated(int cpu);

/* ---- devices ------------------------------------------------------------- */

/* "/dev/prf" for PRF_ALL, "/dev/prfN" otherwise. */
const char *prf_dev_path(int cpu, char *buf, size_t len);
/* Minor number of the device of @cpu (PRF_ALL_MINOR for PRF_ALL). */
unsigned int prf_minor(int cpu);
/* open(2) of the device of @cpu: fd or -errno. */
int prf_open(int cpu, int flags);

/* ---- ioctls: 0 (or the value) on success, -errno on failure -------------- */
int prf_status(int fd);		/* PRF_GETSTATUS value */
int prf_size(int fd);		/* PRF_GETSIZE value */
int prf_max(int fd);		/* PRF_GETMAX value */
int prf_set_state(int fd, unsigned long arg);
int prf_on(int fd);
int prf_off(int fd);
int prf_get_hz(int fd, __u32 *hz);
int prf_set_hz(int fd, __u32 hz);
int prf_get_flags(int fd, __u32 *flags);
int prf_set_flags(int fd, __u32 flags);
int prf_clear(int fd);
int prf_info(int fd, struct prf_info *info);
int prf_set_cpu(int fd, __s32 cpu);
int prf_get_cpu(int fd, __s32 *cpu);
int prf_set_filter(int fd, __u32 type, __u64 id);
/* Fills @f (poisoned first, so that a field the kernel skips shows). */
int prf_get_filter(int fd, struct prf_filter *f);
int prf_set_tasks(int fd, __u32 capacity);
/* PRF_GETTASKS with room for @room entries at @tasks; @out as returned. */
int prf_get_tasks(int fd, struct prf_task *tasks, __u32 room,
		  struct prf_tasks *out);
/* PRF_SETSOURCE of {source, event, period}, flags and pad 0. */
int prf_set_source(int fd, __u32 source, __u32 event, __u64 period);
/* Fills @src (poisoned first). */
int prf_get_source(int fd, struct prf_source *src);
/* PRF_GETEVENTS */
int prf_get_events(int fd, __u32 *mask);
/* open(2) of /dev/prfclone: a new private instance, fd or -errno. */
int prf_open_clone(void);

/*
 * Sampling periods that elapsed while ON: ticks taken plus ticks lost to a
 * late timer plus ticks that found no registers plus ticks of tasks filtered
 * out (uapi).  Under QEMU TCG a vCPU thread the host does not run
 * for a while comes back with its timer periods behind: they are lost, not
 * taken, so rates are checked on this sum and distributions on what was
 * taken.
 */
static inline __u64 prf_periods(const struct prf_info *info)
{
	return info->ticks_total + info->ticks_filtered + info->ticks_lost +
	       info->ticks_noregs;
}

/* ---- tables -------------------------------------------------------------- */

/*
 * write(2) of @n addresses: 0 when the whole table was taken, -errno on
 * failure, -EIO on a short write.
 */
int prf_load(int fd, const __u64 *addrs, size_t n);
/* A synthetic strictly ascending table: base, base + step, ... */
__u64 *prf_make_table(size_t n, __u64 base, __u64 step);
/*
 * Load a table of min(@n, PRF_GETMAX) addresses whose first is the
 * kernel's first text address (prf_ktext_first()) and whose rest lies
 * above every kernel text: every kernel PC counts in counter 0, the
 * first a clear zeroes, and the rest makes a clear long.  The number
 * loaded, or -errno.
 */
long prf_load_first_and_above(int fd, size_t n);
/*
 * Leave the instance NOT loaded (the only way there after a load is a write
 * that fails with EINVAL, prf(7)): turns it OFF first. 0 or -errno.
 */
int prf_unload(int fd);
/*
 * OFF, unloaded, hz PRF_HZ_DEFAULT, flags 0, no filter, mode time, no tally,
 * the timer source, no stack table, no user objects, no scheduler's text.
 * 0/-errno.
 */
int prf_reset(int fd);
/* prf_reset() on /dev/prf and every /dev/prfN. 0 or the first -errno. */
int prf_reset_all(void);

/* What read(2) returns: n addresses then n + 2 counters. */
struct prf_snap {
	size_t n;
	__u64 *addrs;		/* n */
	__u64 *counts;		/* n + 2 */
	__u64 *buf;		/* the whole (2n + 2) array */
};

/* Read the whole array of a loaded instance (GETSIZE then read). 0/-errno. */
int prf_snap(int fd, struct prf_snap *s);
void prf_snap_free(struct prf_snap *s);
/* Sum of the n + 2 counters. */
__u64 prf_snap_total(const struct prf_snap *s);
/* Sum of the n kernel counters (user and idle excluded). */
__u64 prf_snap_kernel(const struct prf_snap *s);
static inline __u64 prf_snap_user(const struct prf_snap *s)
{
	return s->counts[PRF_USER_BUCKET(s->n)];
}
static inline __u64 prf_snap_idle(const struct prf_snap *s)
{
	return s->counts[PRF_IDLE_BUCKET(s->n)];
}

/* ---- /proc/kallsyms ------------------------------------------------------ */

/*
 * Kernel text symbols (types t and T), sorted by address, one entry per
 * address: names[i] holds every name at addrs[i], separated by spaces.
 */
struct prf_ksyms {
	size_t n;
	__u64 *addrs;
	char **names;
};

int prf_ksyms_load(struct prf_ksyms *k);
/*
 * /proc/kallsyms, opened for reading: a copy kept in /tmp while the boot,
 * the modules and the reader's privileges are the same (no trampolines or
 * BPF programs that came since), else the file itself.  NULL and errno.
 */
FILE *prf_kallsyms_open(void);
/*
 * One line of /proc/kallsyms, "ADDR TYPE NAME[\t[MODULE]]", split in place
 * (@name and @mod point into @line; @mod "" for the kernel): 0, or -1.
 */
int prf_ksym_line(char *line, __u64 *addr, char *type, char **name,
		  char **mod);
void prf_ksyms_free(struct prf_ksyms *k);
/* True if one of the names at index @i is in the NULL-terminated @set. */
bool prf_ksyms_match(const struct prf_ksyms *k, size_t i,
		     const char *const *set);
/* Address of the text symbol @name, 0 if absent. */
__u64 prf_ksyms_addr(const struct prf_ksyms *k, const char *name);
/*
 * The kernel's first text address (the first text symbol of
 * /proc/kallsyms, which lists the kernel's own in address order before
 * the modules'; on arm64 modules lie below it): 0 if hidden.  Cheaper
 * than prf_ksyms_load() for a test that needs no other.
 */
__u64 prf_ktext_first(void);

/* ---- workloads ----------------------------------------------------------- */

enum prf_work {
	PRF_WORK_SPIN,		/* user-mode busy loop */
	PRF_WORK_ZERO,		/* read(/dev/zero, 64 KiB) in a loop: kernel */
	PRF_WORK_OPEN,		/* open and close /dev/null: allocations */
};

/*
 * Fork a child pinned to @cpu doing @work until prf_stop() (or until the
 * parent dies). Returns once the child runs on @cpu: its pid or -errno.
 */
pid_t prf_start(int cpu, enum prf_work work);
/* Kill and reap a child of prf_start(). */
void prf_stop(pid_t pid);
/*
 * One clear while ON amid @work: ON, prf_start(@work) on each online CPU
 * from @from, 50 ms, PRF_CLEAR (the seconds it took in *@clear_s unless
 * NULL), 10 ms, the children stopped, OFF.  0 or the first -errno.
 */
int prf_clear_amid(int fd, enum prf_work work, int from, double *clear_s);

/* ---- time ---------------------------------------------------------------- */

/* CLOCK_MONOTONIC in seconds. */
double prf_now(void);
/* True in a guest of a debug kernel of the test bed ($PRF_KERNEL debug-*). */
bool prf_debug_kernel(void);
/* Sleep @s seconds (restarts after signals). */
void prf_sleep(double s);
/* |got - want| <= tol * want */
static inline bool prf_within(double got, double want, double tol)
{
	double d = got - want;

	return (d < 0 ? -d : d) <= tol * want;
}

/* ---- privileges ---------------------------------------------------------- */

#define PRF_CAP(c)	(1ULL << (c))

/*
 * In a child: optionally switch to @uid/@gid (65534 = nobody; -1 keeps
 * root), keep only the capabilities in @keep, then open(@path, O_RDWR).
 * Returns 0 if the open succeeded, else its errno (or 255 for a failure to
 * drop privileges, which a test should treat as an error).
 */
int prf_open_as(const char *path, int uid, __u64 keep);
/* The same, with @gid (>= 0, with @uid >= 0) as the only supplementary group. */
int prf_open_as_member(const char *path, int uid, int gid, __u64 keep);
/* prf_open_as() with open(2) flags of one's own (O_RDONLY: may it read?). */
int prf_open_flags_as(const char *path, int flags, int uid, __u64 keep);

/* ---- nodes --------------------------------------------------------------- */

/* rdev of the device of @cpu (stat of its node): 0 if none. */
dev_t prf_rdev(int cpu);
/*
 * mknod a character node for @rdev with @mode in a scratch directory that
 * allows device nodes (/tmp, else /dev). Fills @path; 0 or -errno.
 */
int prf_mknod(dev_t rdev, mode_t mode, char *path, size_t len);

/* ---- sysfs --------------------------------------------------------------- */

/* /sys/class/prf/<dev>/<attr> */
const char *prf_sysfs_path(int cpu, const char *attr, char *buf, size_t len);
/* Read an attribute into @buf (NUL-terminated): length or -errno. */
int prf_sysfs_read(int cpu, const char *attr, char *buf, size_t len);
/* One write(2) of @s to an attribute: 0 or -errno. */
int prf_sysfs_write(int cpu, const char *attr, const char *s);

/* ---- files --------------------------------------------------------------- */

/* Write @s to an existing file (sysfs, procfs): 0 or -errno. */
int prf_write_file(const char *path, const char *s);
/* Read a small file: length or -errno. */
int prf_read_file(const char *path, char *buf, size_t len);

/* ---- The test module (selftests/kmod) ---------------------------------- */

#define PRF_TEST_KMOD_NAME	"prf_test_kmod"
/*
 * Loads $PRF_TEST_KMOD unless /proc entry @needs exists: NULL when @needs
 * is there afterwards, else a reason to skip.
 */
const char *prf_kmod_load(const char *needs);
/*
 * [*start, *end) of the test module's function @fn from /proc/kallsyms: its
 * address and the next symbol's (with @skip_pfx, the next that is not
 * __pfx_ padding: the padding of 6.2+ call thunks belongs to the function
 * after it).  0 or -errno.
 */
int prf_kmod_fn_extent(const char *fn, bool skip_pfx, __u64 *start, __u64 *end);

/* The cgroup v2 mount point into @root: found, else mounted; 0 or -errno. */
int prf_cgroup2_root(char *root, size_t len);

/* ---- the guest's own measures (thresholds follow them, not the host) ---- */

/*
 * Polls @fd's prf_info every 50 ms until its ticks_user has grown by @n
 * since the call (samples the sampler really took: a guest starved by a
 * busy host takes them slowly, not fewer of them), or @limit seconds of
 * wall clock have passed: 0, -ETIMEDOUT, or -errno.
 */
int prf_wait_user(int fd, __u64 n, double limit);

/*
 * A table of 5 addresses loaded on @fd from the kernel's first text address
 * (_stext, else _text), whatever the arch: only a sample in the table has
 * a kernel stack (uapi), and so a pair.  0 or -errno.
 */
int prf_load_kernel_text(int fd);

/* The file offset of this process's code at @pc (/proc/self/maps), or ~0. */
__u64 prf_code_offset(unsigned long pc);

/* One CPU's line of /proc/stat, in USER_HZ ticks. */
struct prf_cpu_times {
	__u64 user, nice, system, idle, iowait, irq, softirq;
};
/* @cpu's times (PRF_ALL: the "cpu" line, every CPU): 0 or -errno. */
int prf_cpu_times(int cpu, struct prf_cpu_times *t);
/*
 * How far apart two samplings of one share @p may be: five standard
 * deviations of the share measured in @n1 samples and in @n2 (prf's and
 * /proc/stat's ticks), the variance taken as 0.05 at least (a share near
 * 0 or 1 still moves).
 */
double prf_share_tol(double p, double n1, double n2);
/* Kernel time (system + irq + softirq) from @a to @b. */
static inline __u64 prf_cpu_kernel(const struct prf_cpu_times *a,
				   const struct prf_cpu_times *b)
{
	return (b->system - a->system) + (b->irq - a->irq) +
	       (b->softirq - a->softirq);
}
/* Every tick of the CPU from @a to @b: user, idle and kernel (steal aside). */
static inline __u64 prf_cpu_all(const struct prf_cpu_times *a,
				const struct prf_cpu_times *b)
{
	return (b->user - a->user) + (b->nice - a->nice) +
	       (b->idle - a->idle) + (b->iowait - a->iowait) +
	       prf_cpu_kernel(a, b);
}

#endif /* PRF_UTIL_H */
