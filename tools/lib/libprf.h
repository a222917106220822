/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libprf - a small C library for the /dev/prf kernel profiler device.
 *
 * Every function returns 0 (or a non-negative count) on success and a
 * negative errno value on failure.  The library never prints anything and
 * never calls exit(); the caller decides what to say (strerror(-ret)).
 *
 * The ABI itself (ioctl numbers, struct prf_info, the PRF_* constants) is
 * <linux/prf.h>; this header includes it.
 */
#ifndef LIBPRF_H
#define LIBPRF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/prf.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBPRF_VERSION "1.0"

/* An open prf instance.  Opaque: use the functions below. */
struct prf;

/*
 * prf_open - open a prf device by path ("/dev/prf", "/dev/prf1", ...).
 * oflags is O_RDONLY, O_WRONLY or O_RDWR (O_CLOEXEC is always added).
 * Loading a table and every call that changes the instance (prf_set_state,
 * prf_set_hz, prf_clear, the flags, CPU, filter, tally, stacks and mode)
 * need write access (-EBADF on a descriptor opened O_RDONLY); reading the
 * counters and the getters work read-only.
 */
int prf_open(const char *path, int oflags, struct prf **out);

/* prf_open_cpu - open /dev/prf (cpu < 0: all CPUs) or /dev/prfCPU. */
int prf_open_cpu(int cpu, int oflags, struct prf **out);

/* prf_close - close and free; NULL is allowed. */
void prf_close(struct prf *p);

/* The file descriptor (for poll(2)) and the path given to prf_open. */
int prf_fd(const struct prf *p);
const char *prf_path(const struct prf *p);

/* The four prf(7) commands. */
int prf_get_status(struct prf *p);		/* PRF_STATUS_* bits, or -errno */
int prf_get_size(struct prf *p);		/* N, 0 when not loaded */
int prf_get_max(struct prf *p);			/* PRF_GETMAX */
/* 1 = ON, 0 = OFF; ON past the sample budget is -ENOSPC (prf_info) */
int prf_set_state(struct prf *p, int on);

/*
 * prf_load - write a table of n strictly ascending addresses.
 * The library checks nothing the kernel checks: the device's errors
 * (E2BIG, ENOSPC, EBUSY, EINVAL) come back as they are.
 */
int prf_load(struct prf *p, const uint64_t *addrs, size_t n);

/*
 * prf_read - read the table and its counters into caller-owned arrays:
 * addrs has room for n addresses, counts for n + 2 counters (counts[n] is
 * user, counts[n + 1] idle).  n is normally what prf_get_size returned.
 * Returns 0, -ENXIO when no table is loaded, or -ESTALE when the loaded
 * table does not hold exactly n addresses (it was reloaded meanwhile).
 * Either array may be NULL when the caller does not want it.
 */
int prf_read(struct prf *p, uint64_t *addrs, uint64_t *counts, size_t n);

/*
 * prf_read_raw - one read(2) of the device into buf: N addresses then N + 2
 * counters.  Returns the number of bytes read or -errno.
 */
ssize_t prf_read_raw(struct prf *p, void *buf, size_t bytes);

/* Extensions of <linux/prf.h>. */
int prf_get_hz(struct prf *p, uint32_t *hz);
int prf_set_hz(struct prf *p, uint32_t hz);
int prf_clear(struct prf *p);
int prf_get_flags(struct prf *p, uint32_t *flags);
int prf_set_flags(struct prf *p, uint32_t flags);
/* Fills *info (sets info->size itself); zeroes what the kernel left out. */
int prf_get_info(struct prf *p, struct prf_info *info);

/*
 * Private instances, filters and the per-process tally (<linux/prf.h>).
 *
 * prf_open_clone - open /dev/prfclone: a new instance of the caller's own,
 * freed by prf_close (OFF, unloaded, all CPUs, no filter).  -ENOSPC when
 * the module's max_private instances exist already.
 */
int prf_open_clone(int oflags, struct prf **out);

/* The CPU a private instance samples: -1 all, N alone (EINVAL elsewhere). */
int prf_set_cpu(struct prf *p, int cpu);
int prf_get_cpu(struct prf *p, int *cpu);

/*
 * Filters (set while OFF; a new filter zeroes the counters).
 * prf_set_filter_tgid: every thread of process pid (-ESRCH: none).
 * prf_set_filter_cgroup: every task of the cgroup v2 directory path and its
 * descendants; the directory is opened O_RDONLY|O_DIRECTORY for the call
 * and closed again (the instance keeps its own reference).
 * prf_set_filter_none: every task again.
 * prf_get_filter: the filter set (f->id: the PID, or the cgroup's ID).
 */
int prf_set_filter_tgid(struct prf *p, pid_t pid);
int prf_set_filter_cgroup(struct prf *p, const char *path);
int prf_set_filter_none(struct prf *p);
int prf_get_filter(struct prf *p, struct prf_filter *f);

/*
 * prf_set_tasks - keep a per-process tally of up to capacity processes
 * (0: none; at most PRF_TASKS_MAX).  While OFF.
 * prf_get_tasks - copy up to room entries into tasks (unsorted); returns
 * the number stored, and the table's capacity and the samples it dropped
 * (either pointer may be NULL).
 */
int prf_set_tasks(struct prf *p, uint32_t capacity);
int prf_get_tasks(struct prf *p, struct prf_task *tasks, uint32_t room,
		  uint32_t *capacity, uint64_t *dropped);

/*
 * Call stacks (PRF_SETSTACKS/PRF_GETSTACKS).  prf_set_stacks: keep up to
 * capacity distinct stacks of depth frames (depth 0, capacity 0: off).
 * While OFF.  prf_get_stacks_conf: the set-up and the samples dropped
 * (any pointer may be NULL).  prf_read_stacks: every stack kept, into a
 * malloc'ed buffer of *nr records of PRF_STACK_RECORD_SIZE(*depth) bytes
 * each (struct prf_stack then the PCs; free() it); *out is NULL when none.
 * Returns 0 or -errno.
 */
int prf_set_stacks(struct prf *p, uint32_t depth, uint32_t capacity);
int prf_get_stacks_conf(struct prf *p, uint32_t *depth, uint32_t *capacity,
			uint64_t *dropped);
int prf_read_stacks(struct prf *p, void **out, uint32_t *nr, uint32_t *depth,
		    uint64_t *dropped);
/* The record i of a buffer of prf_read_stacks. */
static inline const struct prf_stack *prf_stack_at(const void *buf, uint32_t depth,
						   uint32_t i)
{
	return (const struct prf_stack *)((const char *)buf +
					  (size_t)i * PRF_STACK_RECORD_SIZE(depth));
}
static inline const __u64 *prf_stack_pcs(const struct prf_stack *s)
{
	return (const __u64 *)(s + 1);
}

/*
 * Modes (PRF_SETMODE/PRF_GETMODE, PRF_MODE_*).  While OFF; a new mode
 * zeroes the counters.  prf_get_sites: the alloc modes' detail of each
 * counter, up to room entries; returns the number stored.  prf_get_sites2:
 * the same with the frees prf did not see (PRF_SITES_V2); from a module
 * without them, its struct prf_site entries with those counts 0.
 */
int prf_set_mode(struct prf *p, uint32_t mode);
int prf_get_mode(struct prf *p, uint32_t *mode);
int prf_get_sites(struct prf *p, struct prf_site *sites, uint32_t room);
int prf_get_sites2(struct prf *p, struct prf_site2 *sites, uint32_t room);
/*
 * The scheduler's text (PRF_SETSCHEDTEXT/PRF_GETSCHEDTEXT), [start, end):
 * the functions the offcpu mode passes over to find where a task blocked.
 * While OFF (-EBUSY while ON); -EINVAL when start > end or only one is 0;
 * both 0 unset it.  A module without the offcpu mode answers -EINVAL.
 */
int prf_set_sched_text(struct prf *p, uint64_t start, uint64_t end);
int prf_get_sched_text(struct prf *p, uint64_t *start, uint64_t *end);

/*
 * Sources (PRF_SETSOURCE/PRF_GETSOURCE, PRF_SOURCE_*): what takes the
 * samples of the time mode, the timer or a PMU counter of PRF_EVENT_*
 * (period: events a sample, 0: about hz a second).  While OFF; a new
 * source zeroes the counters.  prf_get_events: the events this machine's
 * PMU can sample, as bits 1 << PRF_EVENT_* (0: no PMU).  A kernel without
 * sources answers -EINVAL.
 */
int prf_set_source(struct prf *p, uint32_t source, uint32_t event, uint64_t period);
int prf_get_source(struct prf *p, struct prf_source *src);
int prf_get_events(struct prf *p, uint32_t *mask);

/*
 * User objects (PRF_SETUOBJS/PRF_GETUOBJS): every user-mode sample resolved
 * in the kernel to the file that maps its PC and the offset in that file.
 * prf_set_uobjs: a table of capacity (file, offset) entries and files
 * distinct files (both 0: off).  While OFF.  A module without the table
 * answers -EINVAL.  This and the two setters below ask for the vDSO as a
 * file of its own (PRF_UOBJ_VDSO: a file of PRF_UOBJ_VDSO_IMAGE, path
 * "[vdso]", offsets its image's addresses); a module before it refuses
 * the flag (-EINVAL), and the setter asks again without it, the vDSO then
 * code of no file (PRF_UOBJ_ANON) as before.
 * prf_read_uobjs: the whole table into two malloc'ed arrays (free() them;
 * NULL when empty), the header (counts, set-up) into *hdr: asks the sizes,
 * then reads with room, again when the table grew meanwhile or was zeroed
 * while the kernel read it (EAGAIN), 16 tries in all.  0 or -errno (-EINTR:
 * a fatal signal).
 */
int prf_set_uobjs(struct prf *p, uint32_t capacity, uint32_t files);
int prf_read_uobjs(struct prf *p, struct prf_uobjs *hdr, struct prf_uobj **entries,
		   struct prf_uobj_file **files);

/*
 * User call chains (PRF_UOBJ_CHAINS, PRF_GETUCHAINS).
 * prf_set_uobjs_chains: the table as prf_set_uobjs sets it, and with depth
 * 2..PRF_UCHAIN_DEPTH_MAX as many distinct call chains of up to depth
 * frames (depth 0: none, as prf_set_uobjs).  A module without chains
 * answers -EINVAL (then prf_set_uobjs alone still works, or not).
 * prf_read_uchains: every chain into a malloc'ed buffer of hdr->nr records
 * of PRF_UCHAIN_RECORD_SIZE(hdr->depth) bytes (prf_uchain_at) and the
 * table's files into a malloc'ed array of hdr->nfiles (free() both; NULL
 * when none), the counts and set-up into *hdr: asks the sizes, then reads
 * with room, again when the table grew, was set up again or was zeroed
 * while the kernel read it (EAGAIN), 16 tries in all.  Without chains,
 * hdr->depth is 0.  0 or -errno (-EINTR: a fatal signal).
 */
int prf_set_uobjs_chains(struct prf *p, uint32_t capacity, uint32_t files, uint32_t depth);
/*
 * prf_set_uobjs_cfi: as prf_set_uobjs_chains, the chains walked in the
 * worker over a copy of the user stack with the unwind tables loaded by
 * prf_unwind_load (PRF_UOBJ_CFI) instead of by frame records.  A module
 * without it answers -EINVAL.
 * prf_unwind_load: rows nr (1..PRF_UNWIND_ROWS_MAX) built for ELF machine
 * as the table of the open file fd (PRF_SETUNWIND; flags 0 or
 * PRF_UNWIND_FRAMEPTR), held by this instance until it unloads it or
 * goes; fd PRF_UNWIND_VDSO: the vDSO's table (rows built from the vDSO
 * the caller runs with, getauxval(AT_SYSINFO_EHDR)), which a module
 * before it refuses with -EBADF.  A module before PRF_UNWIND_ROW_SIGNAL
 * refuses such rows (-EINVAL): they are loaded again as stops.  0 or
 * -errno (prf(4)).
 */
int prf_set_uobjs_cfi(struct prf *p, uint32_t capacity, uint32_t files, uint32_t depth);
int prf_unwind_load(struct prf *p, int fd, uint32_t machine, uint32_t flags,
		    const struct prf_unwind_row *rows, uint32_t nr);
int prf_read_uchains(struct prf *p, struct prf_uchains *hdr, void **chains,
		     struct prf_uobj_file **files);
/* The record i of a buffer of prf_read_uchains, and its frames (leaf first). */
static inline const struct prf_uchain *prf_uchain_at(const void *buf, uint32_t depth,
						     uint32_t i)
{
	return (const struct prf_uchain *)((const char *)buf +
					   (size_t)i * PRF_UCHAIN_RECORD_SIZE(depth));
}
static inline const struct prf_uframe *prf_uchain_frames(const struct prf_uchain *c)
{
	return (const struct prf_uframe *)(c + 1);
}

/*
 * prf_read_upairs - the pairs of a kernel stack and a user call chain
 * taken in one sample (PRF_GETUPAIRS), as prf_read_uchains reads the
 * chains: hdr->nr records of PRF_UPAIR_RECORD_SIZE(hdr->depth,
 * hdr->udepth) bytes (prf_upair_at) and the table's files, malloc'ed (free()
 * both).  Without a stack table or chains everything 0.  0 or -errno
 * (-EINVAL: a module before pairs).
 */
int prf_read_upairs(struct prf *p, struct prf_upairs *hdr, void **pairs,
		    struct prf_uobj_file **files);
static inline const struct prf_upair *prf_upair_at(const void *buf, uint32_t depth,
						   uint32_t udepth, uint32_t i)
{
	return (const struct prf_upair *)((const char *)buf +
					  (size_t)i * PRF_UPAIR_RECORD_SIZE(depth, udepth));
}
/* A pair's kernel PCs (leaf first), then its user frames (leaf first). */
static inline const __u64 *prf_upair_pcs(const struct prf_upair *c)
{
	return (const __u64 *)(c + 1);
}
static inline const struct prf_uframe *prf_upair_frames(const struct prf_upair *c,
							uint32_t depth)
{
	return (const struct prf_uframe *)(prf_upair_pcs(c) + depth);
}

/*
 * prf_read_cpu_tallies - the per-CPU tallies (PRF_GETCPUTALLIES) into a
 * malloc'ed array (free() it), one entry a CPU of the instance in
 * ascending order; returns their number, or -errno (-EINVAL: a module
 * without them).
 */
int prf_read_cpu_tallies(struct prf *p, struct prf_cpu_tally **out);

/*
 * prf_cpu_of_path - which CPU a device path profiles: -1 for "/dev/prf"
 * (all CPUs), N for ".../prfN", -EINVAL when the name is neither.
 */
int prf_cpu_of_path(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* LIBPRF_H */
