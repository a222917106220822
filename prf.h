/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf - the /dev/prf kernel profiler: definitions shared by the module's files.
 *
 * Locking and lifetimes, decided here once:
 *
 * - A shared instance (struct prf_inst) exists for every minor with a CPU
 *   behind it and for /dev/prf; all are made at module load and freed at
 *   unload.  Open files point at them; the module cannot be unloaded while a
 *   file is open (the cdev pins it) and sysfs callbacks are drained by
 *   device_destroy() before the instances go.  A private instance is made by
 *   an open() of /dev/prfclone, belongs to that open file (file->private_data)
 *   and is freed by its release(), turned OFF first; prf_nr_private counts
 *   them against max_private.  It has no sysfs files.
 *
 * - Every instance is on prf_inst_list so that the CPU hotplug callbacks
 *   reach it: the list's rules are decided in prf_inst.c.
 *
 * - Filters (inst->filter): the instance holds a reference on the struct pid
 *   of a process (get_pid()) or on a cgroup (from cgroup_get_from_fd() or
 *   cgroup_get_from_path()), taken before inst->lock and installed under it
 *   while OFF; the reference replaced is dropped after unlocking, and the
 *   last one at instance destruction.  A process that exits or a cgroup that
 *   is removed stays allocated while referenced: the sampling callback
 *   compares pointers (task_tgid(current)) or walks current's default
 *   hierarchy cgroup's ancestors under rcu_read_lock(), and never sleeps.
 *
 * - The per-process tally (inst->tasks, struct prf_tasktab) is reference
 *   counted like a table: installed and replaced under inst->lock while OFF,
 *   pinned by PRF_GETTASKS with a reference taken under inst->lock and read
 *   (copy_to_user()) after unlocking.  Timer callbacks on many CPUs update it
 *   at once without a lock: a slot is claimed with cmpxchg() on its tgid
 *   (never freed while ON), the number of claims is bounded by an atomic
 *   count against the capacity, and its counters are atomic64_t.
 *
 * - The call-stack table (inst->stacks, struct prf_stacktab, prf_stack.c)
 *   is installed, replaced and pinned like the per-process tally, and
 *   filled from the timer callbacks of many CPUs at once without a lock, by
 *   open addressing rather than per-CPU tables: one table of S entries
 *   holds S distinct stacks whatever the CPUs (per-CPU tables would need S
 *   per CPU, or drop stacks another CPU still has room for), and the read
 *   needs no merge.  A sample finds its stack on a linear probe sequence of
 *   u32 index slots; a new stack takes the next free entry (an atomic count
 *   bounded by the capacity), is written whole, then published by cmpxchg()
 *   on a free slot; entries never change afterwards but for their atomic64_t
 *   count, and slots are not freed while ON.  The stack is walked into a
 *   per-CPU scratch buffer: the timers are hard irq (on PREEMPT_RT too) and
 *   never nest on one CPU; the PMU source's handler in NMI, which can
 *   interrupt them, has a buffer of its own (NMIs do not nest).
 *
 * - Load order (prf_init()): the instances, the hotplug state, the device
 *   numbers, the class, the devices (sysfs files and nodes), and the cdev
 *   last.  A file can only be opened once cdev_add() made the char device
 *   live; a node that appears earlier gives ENXIO.  Nothing can fail after
 *   cdev_add(), so the error path of a failed load never frees an instance
 *   (nor the module) under an open file.  Unload (prf_exit()) goes in
 *   reverse: the cdev first (no file is open, or the module could not be
 *   unloading), then the devices (draining sysfs callbacks), every instance
 *   turned OFF, the hotplug state, and the instances.
 *
 * - inst->lock (a mutex) serialises everything that changes an instance: its
 *   table, its ON/OFF state, its rate and flags, and clearing.  Lock order:
 *   cpus_read_lock() before inst->lock, because turning ON or OFF must see a
 *   stable set of online CPUs.  Nothing that can wait on user space (a page
 *   fault in copy_to_user() or copy_from_user(), which userfaultfd or FUSE can
 *   make last forever) is done under inst->lock: a stuck reader would block
 *   PRF_SETSTATE and sysfs "stop" while they hold the hotplug lock, and with
 *   them every CPU hotplug.
 *
 * - A table is reference counted (tab->ref).  The instance holds one
 *   reference while the table is installed in inst->tab; read() takes another
 *   under inst->lock, together with the user and idle counts, and copies the
 *   table out after dropping the lock.  A write() that replaces the table
 *   drops the instance's reference; the last holder frees it.
 *
 * - inst->on changes only with both cpus_read_lock() and inst->lock held, so
 *   the CPU hotplug callbacks (which run with the hotplug lock held for write)
 *   read it without inst->lock and start or cancel that CPU's timer.
 *
 * - The table (inst->tab: addresses, lookup index, counters), the period and
 *   the flags change only while the instance is OFF, and turning OFF cancels
 *   every timer of the instance with hrtimer_cancel(), which waits for a
 *   running callback.  So a timer callback never sees a table being replaced
 *   or freed: while any callback can run the table is fixed, and the callback
 *   needs no lock at all.  Counters are atomic64_t: callbacks on several CPUs
 *   increment them, read() and PRF_CLEAR read and zero them concurrently, and
 *   no value is ever torn.  The user, idle, outside and lost counters of
 *   /dev/prf are kept per CPU (inst->cpu_counts, for the life of the
 *   instance) and summed by readers: every CPU of an idle machine would
 *   otherwise increment the same idle counter at every tick.  /dev/prfN has
 *   one CPU, so one set (inst->counts): a per-CPU set for each of N
 *   instances would grow with the square of the CPUs.  A callback only
 *   touches its own CPU's set; they are still atomic64_t so that a clear
 *   from another CPU is never lost to a concurrent increment.
 *
 * - A clear while ON (prf_clear()) is one instant for every count: a sample
 *   or event counts in two places or more (ticks_sampled first, then its
 *   counter; a stack, a process, a site), and zeroing them one after the
 *   other under a sample in flight would keep one of its counts and zero
 *   another.  So the clear sets inst->clearing, waits for a grace period,
 *   zeroes, and clears it with release order; every sample and event reads
 *   it (acquire) before its first count and, if set, counts nothing.  Every
 *   path that counts runs where RCU sees a reader: the timer callback in
 *   hard irq (PREEMPT_RT too: HRTIMER_MODE_*_HARD), the PMU handler in NMI
 *   or hard irq, the modes' probes with preemption disabled (prf_modes.h).
 *   So synchronize_rcu() returns only after every sample that found the
 *   flag clear has ended, and the samples due meanwhile belong to the time
 *   before the clear: they count nowhere (uapi).  No sample pays more than
 *   one read of a flag for it, and only a clear while ON waits.
 *
 * - Timers and CPU hotplug: decided in prf_inst.c, where the instances'
 *   sources are started and stopped on each CPU.
 *
 * - Modes: decided in prf_modes.h, for the switch and every mode.
 *
 * - The PMU source: decided in prf_pmu.c.
 *
 * - The sample budget (prf_budget.c): turning an instance ON in the time
 *   mode charges its rate to every possible CPU it samples (so a CPU that
 *   comes online later is charged already, and its online callback never
 *   has to refuse), turning it OFF gives it back; an ON that would take a
 *   CPU past the module parameter sample_budget is refused (ENOSPC) and
 *   changes nothing.  The rate charged per CPU is kept per CPU under
 *   prf_budget_lock, a mutex taken under inst->lock (ON and OFF, with
 *   cpus_read_lock() held too, and PRF_GETINFO) and the innermost lock of
 *   all: nothing is taken under it.  The CPUs charged (inst->charged) and the
 *   rate (inst->charged_hz) change with cpus_read_lock() and inst->lock
 *   held, as inst->on does, so the hotplug callbacks read them as they read
 *   inst->on: a timer is started only on a charged CPU.  The parameter is
 *   read at each ON; a new value applies to the next ON (instances ON
 *   stay ON).  The PMU source with a period raises its charge while ON
 *   (prf_budget_raise(), within the parameter as it is then) from a work
 *   item that takes cpus_read_lock() and inst->lock as ON does
 *   (prf_pmu.c).  The event modes charge their PRF_CHARGE_* to every
 *   possible CPU the same way (prf_mode_set_state()), under inst->lock
 *   alone.
 */
#ifndef PRF_H
#define PRF_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "uapi/linux/prf.h"

#define PRF_ALL_CPUS	(-1)

/*
 * The most addresses max_addrs may allow: a table comes in one write(),
 * which carries at most MAX_RW_COUNT bytes, and its slots are one kvmalloc(),
 * which refuses more than INT_MAX bytes (with a warning).  The index, 2n + 1
 * u32, is smaller than the slots.
 */
#define PRF_MAX_ADDRS_LIMIT						\
	min_t(size_t, MAX_RW_COUNT / sizeof(u64),			\
	      INT_MAX / sizeof(struct prf_slot))

struct device;
struct file;
struct perf_event;
struct pt_regs;
struct prf_inst;
struct prf_mode_state;

/*
 * An address and its counter, side by side: the sample that finds the
 * address increments a counter in the same cache line.
 */
struct prf_slot {
	u64 addr;
	atomic64_t count;
};

/*
 * A loaded table.  Immutable while its instance is ON, except the counters.
 * index[b] is the position of the last address <= slot[0].addr + (b << shift);
 * a PC in bucket b is searched for between index[b] and index[b + 1].
 */
struct prf_table {
	struct kref ref;	/* the instance's, and each read() in progress */
	u32 n;			/* number of addresses */
	u32 nbuckets;		/* lookup index entries, less the final one */
	unsigned int shift;	/* log2 of the bytes a lookup bucket spans */
	struct prf_slot *slot;	/* n, addresses strictly ascending */
	u32 *index;		/* nbuckets + 1 entries */
	size_t mem;		/* bytes allocated for this table */
};

/* What a counter of the PMU source adds up: prf_info's pmu_* (prf_pmu.c) */
enum prf_pmu_value {
	PRF_PMU_COUNT,		/* events counted */
	PRF_PMU_ENABLED,	/* ns enabled */
	PRF_PMU_RUNNING,	/* ns counting */
	PRF_PMU_NR_VALUES
};

/* Ticks counted against no address of the table, per CPU (see above). */
enum prf_tally {
	PRF_TALLY_USER,		/* the user bucket, counter N of read() */
	PRF_TALLY_IDLE,		/* the idle bucket, counter N + 1 */
	PRF_TALLY_OUTSIDE,	/* kernel PC below the first address */
	PRF_TALLY_LOST,		/* periods missed by a late timer */
	PRF_TALLY_NOREGS,	/* periods whose tick found no registers */
	PRF_TALLY_SAMPLED,	/* samples taken, before attribution */
	PRF_TALLY_FILTERED,	/* samples of tasks the filter left out */
	PRF_TALLY_NMI,		/* samples taken in NMI */
	PRF_NR_TALLIES
};

struct prf_cpu_counts {
	atomic64_t tally[PRF_NR_TALLIES];
};

/*
 * A sampling timer.  Time is cut into periods of exactly inst->period_ns
 * from when the timer is started; @start is the start of the period the
 * timer is armed in, and the timer expires once inside it (prf_timer.c).
 * Only the timer's own CPU touches @start and @rnd, with the timer stopped
 * or from its callback.
 */
struct prf_timer {
	struct hrtimer hrt;
	struct prf_inst *inst;
	u64 start;		/* ns, CLOCK_MONOTONIC: the current period */
	u32 rnd;		/* random generator state, touched on its CPU */
	bool armed;		/* started, and not yet cancelled (see above) */
	struct perf_event *pev;	/* the PMU source's counter on this CPU */
	u64 hold_samples;	/* its overflow handler's calls (prf_pmu.c) */
	u64 hold_seen;		/* hold_samples and pev's time enabled at */
	u64 hold_enabled;	/* the last check of the budget */
	u32 hold_rate;		/* samples/s it took then, since the one before */
};

/*
 * A source of the time mode's samples (inst->source, PRF_SETSOURCE): the
 * hrtimer (prf_timer.c) or a PMU counter (prf_pmu.c), run in the struct
 * prf_timer of each (instance, CPU); each of its samples goes to
 * prf_sample(), which does not know which source called it.  The instance
 * layer (prf_inst.c) registers the sources and calls these with
 * cpus_read_lock() and inst->lock held (ON, OFF), or from the hotplug
 * callbacks on the CPU concerned (prf_inst.c and prf_pmu.c decide the rules).
 * @check: whether PRF_SETSOURCE's event and period are the source's.
 * @open:  make @cpu's sampler, disabled (NULL: nothing to make); at ON
 *         every CPU's is made before any is started; may fail.
 * @start: start it on @cpu.
 * @started: after ON started every CPU's (NULL: nothing to do).
 * @stop:  stop it at OFF, the samples due and not taken counted in @cc.
 * @close: stop it as its CPU goes offline.
 * @reset: zero the source's totals (NULL: none); called for every source,
 *         set or not, so that a source's totals go with the next reset.
 * @info:  its part of PRF_GETINFO (NULL: none), of every source alike.
 */
struct prf_source_ops {
	bool (*check)(const struct prf_source *src);
	int (*open)(struct prf_timer *pt, unsigned int cpu);
	void (*start)(struct prf_timer *pt, unsigned int cpu);
	void (*started)(struct prf_inst *inst);
	void (*stop)(struct prf_timer *pt, struct prf_cpu_counts *cc);
	void (*close)(struct prf_timer *pt);
	void (*reset)(struct prf_inst *inst);
	void (*info)(struct prf_inst *inst, struct prf_info *info);
};

/* Which tasks an instance counts (PRF_SETFILTER); see "Filters" above. */
struct prf_kfilter {
	u32 type;		/* PRF_FILTER_* */
	struct pid *pid;	/* PRF_FILTER_TGID: the process's struct pid */
	struct cgroup *cgrp;	/* PRF_FILTER_CGROUP */
};

/*
 * One process of the per-process tally.  @tgid is 0 while the slot is free
 * and, once claimed, stays until the table is zeroed while OFF.  @seq
 * guards @comm like a seqcount: 0 before the first name, odd while a
 * sample of the main thread rewrites it (a program exec()ed), even and not
 * 0 when whole (release/acquire).  Only the main thread's samples write
 * it after the claim; one task is never sampled twice at once in one
 * instance, so there is one writer, and it never waits.
 */
struct prf_task_slot {
	atomic_t tgid;
	u32 seq;
	atomic64_t kernel;
	atomic64_t user;
	char comm[16];
};

/*
 * The per-process tally (PRF_SETTASKS): open addressing over @nslots (a
 * power of two, at least twice the capacity), keyed by tgid, linear probing
 * of at most @probe slots.  @used counts claimed slots, at most @capacity.
 */
struct prf_tasktab {
	struct kref ref;	/* the instance's, and each PRF_GETTASKS */
	u32 capacity;
	u32 nslots;
	u32 bits;		/* log2(nslots) */
	u32 probe;
	atomic_t used;
	atomic64_t dropped;	/* samples of processes that found it full */
	struct prf_task_slot slot[];
};

/*
 * A stack of the call-stack table: laid out as struct prf_stack and its
 * PCs, PRF_STACK_RECORD_SIZE(depth) bytes.  Written whole before it is
 * published in the index; then only @count changes.
 */
struct prf_stack_ent {
	atomic64_t count;
	u32 nr_pcs;
	u32 flags;		/* PRF_STACK_* */
	u64 pc[];		/* depth, zero past nr_pcs */
};

/*
 * The call-stack table (PRF_SETSTACKS): @capacity entries of @stride bytes,
 * and an index of @nslots (a power of two, at least twice the capacity)
 * u32 slots probed linearly, at most @probe of them (prf_stack.c).  @used
 * counts the entries handed out, at most @capacity.
 */
struct prf_stacktab {
	struct kref ref;	/* the instance's, and each PRF_GETSTACKS */
	u32 depth;
	u32 capacity;
	u32 nslots;
	u32 probe;
	size_t stride;
	atomic_t used;
	atomic64_t dropped;	/* samples whose stack was not kept */
	atomic_t *slot;
	struct prf_stack_ent *ent;
};

struct prf_inst {
	struct mutex lock;	/* see "Locking and lifetimes" above */
	int cpu;		/* CPU profiled, or PRF_ALL_CPUS */
	unsigned int minor;
	bool private;		/* of /dev/prfclone, freed with its file */
	struct list_head node;	/* on prf_inst_list */
	struct device *dev;
	bool on;
	bool clearing;		/* a clear while ON at work: count nothing */
	struct prf_table *tab;	/* NULL while not loaded */
	u32 hz;
	u32 flags;		/* PRF_FLAG_* */
	u64 period_ns;
	struct prf_kfilter filter;
	struct prf_tasktab *tasks;	/* NULL: no per-process tally */
	struct prf_stacktab *stacks;	/* NULL: no call stacks */
	struct prf_uobjtab *uobjs;	/* NULL: no user objects */
	struct list_head unwind;	/* unwind tables held (prf_unwind.c) */
	struct prf_timer timer;			/* /dev/prfN, private */
	struct prf_timer __percpu *timers;	/* /dev/prf, private */
	struct prf_cpu_counts __percpu *cpu_counts;	/* /dev/prf, private */
	struct prf_cpu_counts counts;		/* /dev/prfN, private */
	u64 on_ns;		/* ON time before on_since */
	ktime_t on_since;	/* when last turned ON */
	struct mutex mode_lock;	/* ON/OFF and PRF_SETMODE (see above) */
	u32 mode;		/* PRF_MODE_* */
	struct prf_mode_state *ms;	/* NULL until a mode other than time */
	u32 source;		/* PRF_SOURCE_* (PRF_SETSOURCE) */
	u32 event;		/* PRF_EVENT_* of the PMU source */
	u64 period;		/* events a sample, 0: about hz a second */
	u64 pmu_acc[PRF_PMU_NR_VALUES];	/* prf_pmu.c, at its top */
	atomic64_t pmu_throttled;	/* times perf throttled a counter */
	cpumask_var_t charged;	/* CPUs charged to the sample budget */
	u32 charged_hz;		/* the rate charged to each, 0: none */
	struct delayed_work pmu_hold;	/* prf_pmu.c: the budget's checks */
	unsigned long sched_start;	/* PRF_SETSCHEDTEXT, 0: unset */
	unsigned long sched_end;
	/* the modes' and the source's counts, for prf_reset_counts() */
	void (*reset_above)(struct prf_inst *inst);
};

/* False while a clear while ON is at work: count nothing ("Locking"). */
static inline bool prf_may_count(const struct prf_inst *inst)
{
	/* pairs with prf_clear()'s release: its zeroes come before our counts */
	return likely(!smp_load_acquire(&inst->clearing));
}

/* What an instance is set to, read at one instant (no counter is summed). */
struct prf_settings {
	int status;		/* PRF_STATUS_* */
	u32 n;			/* addresses loaded, 0 when not loaded */
	u32 hz;
	u32 flags;
};

/* prf_main.c: instances and what ioctl and sysfs do to them */
extern unsigned int prf_max_addrs;
int prf_may_profile(void);
void prf_get_settings(struct prf_inst *inst, struct prf_settings *set);
int prf_set_state(struct prf_inst *inst, bool on);
int prf_clear_start(struct prf_inst *inst);
int prf_clear(struct prf_inst *inst);
int prf_set_hz(struct prf_inst *inst, u32 hz);
int prf_set_flags(struct prf_inst *inst, u32 flags);
void prf_get_info(struct prf_inst *inst, struct prf_info *info);
int prf_set_cpu(struct prf_inst *inst, s32 cpu);
s32 prf_get_cpu(struct prf_inst *inst);

/* prf_filter.c: filters and the per-process tally */
int prf_set_filter(struct prf_inst *inst, const struct prf_filter *f);
void prf_get_filter(struct prf_inst *inst, struct prf_filter *f);
int prf_filter_store(struct prf_inst *inst, const char *buf);
ssize_t prf_filter_show(struct prf_inst *inst, char *buf);
void prf_filter_put(struct prf_kfilter *kf);
int prf_set_tasks(struct prf_inst *inst, u32 capacity);
int prf_get_tasks(struct prf_inst *inst, struct prf_tasks __user *ut);
void prf_tasks_put(struct prf_tasktab *tt);

/* prf_stack.c: the call-stack table (installed by prf_counts.c) */
int prf_stacks_check(const struct prf_stack_conf *conf);
int prf_stacks_new(const struct prf_stack_conf *conf,
		   struct prf_stacktab **st);
int prf_get_stacks(struct prf_inst *inst, struct prf_stacks __user *us);
void prf_get_stacks_conf(struct prf_inst *inst, struct prf_stack_conf *conf);
void prf_stacks_put(struct prf_stacktab *st);
void prf_stacks_zero(struct prf_stacktab *st, bool on);
int prf_stack_count(struct prf_stacktab *st, struct pt_regs *regs, bool user);
bool prf_stack_read(struct prf_stacktab *st, u32 i, u64 *pc, u32 *nr,
		    u32 *flags);
int prf_stack_keep(struct prf_stacktab *st, const u64 *pc, u32 nr, bool more);
void prf_stack_charge(struct prf_stacktab *st, int i, u64 v);
enum prf_scratch_ctx { PRF_SCRATCH_IRQ, PRF_SCRATCH_NMI, PRF_SCRATCH_SCHED,
		       PRF_SCRATCH_NR };
int prf_stack_init(void);
void prf_stack_exit(void);
void prf_stack_scratch_get(enum prf_scratch_ctx ctx, u64 **pc,
			   unsigned long **walk);

/* prf_uobj.c: user objects (PRF_SETUOBJS; locking there) */
struct prf_uobjtab;
int prf_set_uobjs(struct prf_inst *inst, const struct prf_uobj_conf *conf);
int prf_get_uobjs(struct prf_inst *inst, struct prf_uobjs __user *uu);
void prf_uobjs_put(struct prf_uobjtab *ut);
void prf_uobjs_zero(struct prf_uobjtab *ut, bool on);
int prf_get_uchains(struct prf_inst *inst, struct prf_uchains __user *uu);
void prf_uobj_note(struct prf_uobjtab *ut, struct pt_regs *regs);
void prf_uobj_note_pair(struct prf_uobjtab *ut, int stack);
int prf_get_upairs(struct prf_inst *inst, struct prf_upairs __user *uu);
void prf_uobj_start(struct prf_uobjtab *ut, u32 hz);
void prf_uobj_stop(struct prf_uobjtab *ut);

/* prf_unwind.c: unwind tables (PRF_SETUNWIND; locking there) */
struct inode;
struct prf_unwind_rows {
	struct kref ref;	/* the store's, and each reader's */
	u32 nr;
	u32 flags;		/* PRF_UNWIND_FRAMEPTR */
	struct prf_unwind_row *row;	/* nr, sorted, checked (uapi) */
	/* where a lookup starts (prf_unwind.c): NULL for a few rows */
	u32 *idx;		/* nidx: first row ending past each bucket */
	u32 nidx;
	u32 shift;		/* a bucket is 1 << shift bytes of offsets */
	u64 base;		/* the first row's start */
};

int prf_set_unwind(struct prf_inst *inst, const struct prf_unwind_load *ld);
int prf_get_unwind(struct prf_inst *inst, struct prf_unwind_stat __user *us);
void prf_unwind_release(struct prf_inst *inst);
struct prf_unwind_rows *prf_unwind_get(const struct inode *inode);
void prf_unwind_put(struct prf_unwind_rows *r);
const struct prf_unwind_row *prf_unwind_find(const struct prf_unwind_rows *r,
					     u64 off);

/* A copy of a user stack: @len bytes that were at @sp. */
struct prf_unwind_stack {
	u64 sp;
	const u8 *data;
	u32 len;
};

/* The registers of the frame being unwound (prf_unwind_step()). */
struct prf_unwind_regs {
	u64 sp, fp, lr;
	u64 floor;		/* a caller's CFA is above it (the first's: at) */
	bool sp_ok, fp_ok, lr_ok;	/* known */
	bool first;		/* the interrupted frame */
};

enum { PRF_UNWIND_NEXT, PRF_UNWIND_SIGNAL, PRF_UNWIND_END, PRF_UNWIND_STOP };
int prf_unwind_step(const struct prf_unwind_row *row, bool frame_record,
		    struct prf_unwind_regs *st,
		    const struct prf_unwind_stack *stk, u64 *ra);

/*
 * prf_ioctl.c.  32-bit callers go through compat_ptr_ioctl(): every argument
 * is an int, a __u32, a __s32 or struct prf_info, prf_filter, prf_tasks,
 * prf_stack_conf, prf_stacks, prf_source, prf_text_range, prf_uobj_conf,
 * prf_uobjs, prf_uchains, prf_upairs, prf_unwind_load or prf_unwind_stat,
 * laid out alike for them (their user pointers, such as prf_tasks.tasks and
 * prf_stacks.stacks, are __u64, and so are the records PRF_GETSTACKS,
 * PRF_GETUCHAINS and PRF_GETUPAIRS write, and the rows PRF_SETUNWIND reads),
 * and the values
 * PRF_SETSTATE and PRF_CLEAR take come through compat_ptr() intact (bit 0
 * is all PRF_SETSTATE reads).
 */
long prf_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* prf_mode.c: the mode switch (PRF_SETMODE) */
int prf_set_mode(struct prf_inst *inst, u32 mode);
u32 prf_get_mode(struct prf_inst *inst);
int prf_mode_set_state(struct prf_inst *inst, bool on);
void prf_mode_reset(struct prf_inst *inst);
u64 prf_mode_dropped(struct prf_inst *inst);
void prf_mode_destroy(struct prf_inst *inst);

/* prf_mode_alloc.c: the alloc modes */
int prf_get_sites(struct prf_inst *inst, struct prf_sites __user *us);

/* prf_offcpu.c: the offcpu mode */
struct prf_offcpu *prf_offcpu_alloc(void);
void prf_offcpu_free(struct prf_offcpu *off);
void prf_offcpu_reset(struct prf_offcpu *off);
u64 prf_offcpu_dropped(struct prf_offcpu *off);
int prf_offcpu_on(struct prf_inst *inst);
void prf_offcpu_off(struct prf_inst *inst);
int prf_set_sched_text(struct prf_inst *inst, const struct prf_text_range *r);
void prf_get_sched_text(struct prf_inst *inst, struct prf_text_range *r);

/* prf_pmu.c: the PMU source */
int prf_pmu_events(u32 *mask);
extern const struct prf_source_ops prf_pmu_source;
const char *prf_event_name(u32 event);
void prf_pmu_hold_init(struct prf_inst *inst);
void prf_pmu_hold_cancel(struct prf_inst *inst);
int prf_event_parse(const char *name, u32 *event);
/* prf_budget.c: the sample budget */
int prf_budget_charge(struct prf_inst *inst, u32 rate);
void prf_budget_uncharge(struct prf_inst *inst);
u32 prf_budget_raise(struct prf_inst *inst, u32 want);
void prf_budget_info(struct prf_inst *inst, struct prf_info *info);

/* prf_inst.c: the instance list, CPU hotplug, sources on the CPUs */
int prf_set_source(struct prf_inst *inst, const struct prf_source *src);
void prf_get_source(struct prf_inst *inst, struct prf_source *src);
void prf_sources_reset(struct prf_inst *inst);
void prf_sources_info(struct prf_inst *inst, struct prf_info *info);
int prf_counters_open(struct prf_inst *inst);
void prf_timers_start(struct prf_inst *inst);
void prf_timers_stop(struct prf_inst *inst);
void prf_inst_register(struct prf_inst *inst);
void prf_inst_unregister(struct prf_inst *inst);
int prf_hotplug_init(void);
void prf_hotplug_exit(void);

/* prf_timer.c: the hrtimer source */
void prf_timer_init(struct prf_timer *pt, struct prf_inst *inst);
extern const struct prf_source_ops prf_timer_source;

/* prf_sample.c: the sample path */
void prf_sample(struct prf_inst *inst, struct prf_cpu_counts *cc,
		struct pt_regs *regs);
bool prf_filter_match(const struct prf_kfilter *kf);
bool prf_event_passes(struct prf_inst *inst);
struct prf_cpu_counts *prf_event_counts(struct prf_inst *inst);

/* prf_counts.c: the counts outside the table, the CPUs covered */
bool prf_covers(const struct prf_inst *inst, unsigned int cpu);
struct prf_cpu_counts *prf_counts_here(struct prf_inst *inst);
struct prf_timer *prf_timer_of(struct prf_inst *inst, unsigned int cpu);
size_t prf_counts_mem(const struct prf_inst *inst);
void prf_tallies_zero(struct prf_inst *inst);
void prf_tasks_zero(struct prf_tasktab *tt, bool on);
void prf_reset_counts(struct prf_inst *inst);
int prf_set_stacks(struct prf_inst *inst, const struct prf_stack_conf *conf);
u64 prf_tally_read(struct prf_inst *inst, enum prf_tally t);
int prf_get_cpu_tallies(struct prf_inst *inst,
			struct prf_cpu_tallies __user *ut);
bool prf_samples(const struct prf_inst *inst, unsigned int cpu);
unsigned int prf_cpus_sampled(struct prf_inst *inst, struct cpumask *mask);

/* prf_table.c: the address table */
struct prf_table *prf_table_alloc(u32 n);
int prf_table_fill(struct prf_table *tab, const u64 __user *addrs);
bool prf_table_index(struct prf_table *tab);
struct prf_slot *prf_table_lookup(const struct prf_table *tab, u64 pc);
void prf_table_get(struct prf_table *tab);
void prf_table_put(struct prf_table *tab);
void prf_table_zero(struct prf_table *tab);

/* prf_sysfs.c */
extern const struct attribute_group *prf_groups[];

#endif /* PRF_H */
