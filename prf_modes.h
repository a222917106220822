/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf - the modes other than time as the mode switch (prf_mode.c) sees
 * them: their ops, registered there by PRF_MODE_*, and their state
 * (inst->ms), installed under inst->lock while OFF and freed with the
 * instance (below).  A mode is its own file (prf_mode_alloc.c,
 * prf_mode_calls.c, prf_mode_offcpu.c with prf_offcpu.c); it calls nothing
 * of the switch.
 *
 * Locking and lifetimes of the modes, decided here.
 * inst->mode changes only while OFF, with inst->mode_lock,
 * cpus_read_lock() and inst->lock held, in that order (PRF_SETMODE), so
 * the hotplug callbacks read it as they read inst->on, and start no timer
 * for an instance not in PRF_MODE_TIME.  inst->mode_lock (a mutex,
 * outermost of all: never taken under the hotplug lock or inst->lock)
 * serialises turning an instance ON or OFF (prf_set_state())
 * with PRF_SETMODE.  The event modes register their probes (tracepoint
 * probes on kmalloc, kmem_cache_alloc, kfree and kmem_cache_free, or an
 * ftrace_ops) with neither the hotplug lock nor inst->lock held, because
 * registering takes the hotplug lock itself (static keys, stop_machine()
 * on some architectures); the calls mode's set-up holds inst->mode_lock
 * for time linear in the table (seconds for every kernel function),
 * rescheduling, and gives up on a fatal signal: inst->on is set under
 * inst->lock before
 * registering, and cleared after unregistering, so that write(), a
 * filter, PRF_SETCPU, PRF_SETMODE and the rest see EBUSY meanwhile and the
 * table, filter and CPU stay fixed while any probe can run.  Turning OFF
 * unregisters, then waits: tracepoint_synchronize_unregister() for the
 * tracepoints, and unregister_ftrace_function() itself for the ops (it
 * returns once no CPU runs the callback: a module's ops is "dynamic" to
 * ftrace).  So probes, like timer callbacks, need no lock; their counters
 * are atomic64_t, and the live-allocation hash is claimed slot by slot
 * with cmpxchg() (prf_mode_alloc.c).  An instance is turned OFF before it is
 * freed (release of /dev/prfclone, module unload), so no probe is left
 * registered then.  inst->ms, the mode's state, is installed under
 * inst->lock while OFF and freed with the instance; the live hash is
 * allocated by PRF_SETMODE and the per-counter details (prf_site) at ON,
 * never in a probe.  What each probe runs in (a tracepoint's is
 * preemptible from 7.0, so the alloc probes disable preemption
 * themselves) is decided at prf_event_counts().  The offcpu mode
 * (prf_offcpu.c) follows the same rules: its waits table is allocated
 * by PRF_SETMODE and emptied at ON, its sched_switch and sched_wakeup
 * probes are registered and unregistered like the kmem ones, and the
 * scheduler's text it reads (inst->sched_start, sched_end) changes only
 * while OFF, under inst->lock; its probes' context is decided at the top
 * of prf_offcpu.c.
 */
#ifndef PRF_MODES_H
#define PRF_MODES_H

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/types.h>

#include "prf.h"

#define PRF_HAVE_ALLOC_MODES	IS_ENABLED(CONFIG_TRACEPOINTS)
#define PRF_HAVE_CALLS_MODE	IS_ENABLED(CONFIG_DYNAMIC_FTRACE)

/* The alloc modes' live allocations and sites (prf_mode_alloc.c) */
#define PRF_LIVE_FREE	0UL
#define PRF_LIVE_GONE	1UL
#define PRF_LIVE_BUSY	2UL
#define PRF_LIVE_PROBE	16
#define PRF_LIVE_NOSITE	U32_MAX	/* an allocation not counted */

struct prf_live {
	unsigned long ptr;	/* PRF_LIVE_* or the allocation */
	u32 site;		/* counter index of its call site */
	u32 size;		/* bytes allocated */
	u32 gen;		/* prf_mode_state.gen when allocated */
	u32 pad;
};

/* prf_site, counted */
struct prf_site_count {
	atomic64_t allocs;
	atomic64_t bytes_req;
	atomic64_t bytes_alloc;
	atomic64_t frees;
	atomic64_t bytes_freed;
	atomic64_t frees_unseen;
	atomic64_t bytes_unseen;
};

struct prf_offcpu;

/*
 * What PRF_SETMODE allocates before its locks for the mode it sets, and
 * replaces (freeing the modes' it replaces) under inst->lock while OFF.
 */
struct prf_mode_res {
	struct prf_live *live;		/* alloc: 1 << live_bits slots */
	unsigned int live_bits;
	struct prf_offcpu *off;		/* offcpu: its waits (prf_offcpu.c) */
};

struct prf_mode_state {
	struct prf_mode_res res;
	/* alloc modes */
	atomic_t gen;			/* a clear makes earlier frees uncounted */
	atomic64_t dropped;		/* mode_dropped */
	struct prf_site_count *sites;	/* nsites = N + 2 of the table */
	u32 nsites;
	bool probes;			/* tracepoint probes registered */
	/* offcpu (prf_offcpu.c) */
	bool off_on;			/* its probes registered */
	/* calls */
	u64 untraceable;		/* table addresses ftrace refused */
#ifdef CONFIG_DYNAMIC_FTRACE
	struct ftrace_ops ops;
	bool ops_on;			/* ops registered */
#endif
};

/* The offcpu mode's state: fixed while ON in that mode. */
static inline struct prf_offcpu *prf_mode_offcpu(struct prf_inst *inst)
{
	return inst->ms->res.off;
}

static inline bool prf_mode_is_alloc(u32 mode)
{
	return mode == PRF_MODE_ALLOC_CALLS || mode == PRF_MODE_ALLOC_BYTES;
}

/*
 * A mode other than time, driven by the switch (prf_mode.c) under the
 * locks decided above.  NULL for what a mode does not need.
 * @supported: the kernel has what the mode needs (else EOPNOTSUPP).
 * @set:     PRF_SETMODE, before any lock: allocate what the mode needs
 *           into @res; an error leaves nothing allocated.
 * @unset:   free what @set put in @res, and clear it; called for every
 *           mode on what a switch replaced.
 * @prepare: ON, under inst->lock, before inst->on is set; an error
 *           refuses the ON with nothing changed.
 * @on:      ON, inst->mode_lock alone held and inst->on set: register the
 *           probes; an error leaves none registered.
 * @off:     OFF, inst->mode_lock alone held: when it returns no probe runs.
 * @reset:   zero the mode's counts, under inst->lock; called for every
 *           mode, so that a mode's counts go with the next reset.
 * @dropped: prf_info.mode_dropped, under inst->lock.
 * @destroy: free what the mode keeps in inst->ms beyond @res, for every
 *           mode, the instance OFF and going.
 */
struct prf_mode_ops {
	bool supported;
	u32 charge;	/* to the sample budget while ON: PRF_CHARGE_* */
	int (*set)(struct prf_mode_res *res);
	void (*unset)(struct prf_mode_res *res);
	int (*prepare)(struct prf_inst *inst);
	int (*on)(struct prf_inst *inst);
	void (*off)(struct prf_inst *inst);
	void (*reset)(struct prf_inst *inst);
	u64 (*dropped)(struct prf_inst *inst);
	void (*destroy)(struct prf_mode_state *ms);
};

extern const struct prf_mode_ops prf_mode_alloc;	/* prf_mode_alloc.c */
extern const struct prf_mode_ops prf_mode_calls;	/* prf_mode_calls.c */
extern const struct prf_mode_ops prf_mode_offcpu_ops;	/* prf_mode_offcpu.c */

#endif /* PRF_MODES_H */
