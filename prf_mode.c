// SPDX-License-Identifier: GPL-2.0
/*
 * prf - modes (PRF_SETMODE): what an instance counts against its table.
 * Time is the timers of prf_timer.c; this file has the other three:
 * kernel allocations by call site (the kmem tracepoints) and exact calls of
 * the table's functions (an ftrace_ops).  The ABI is uapi/linux/prf.h;
 * locking and lifetimes are in prf.h ("Modes").
 */
#include <linux/cpumask.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>

#include "prf.h"
#include "prf_modes.h"

#define PRF_HAVE_ALLOC_MODES	IS_ENABLED(CONFIG_TRACEPOINTS)
#define PRF_HAVE_CALLS_MODE	IS_ENABLED(CONFIG_DYNAMIC_FTRACE)

/*
 * Live allocations: a hash of the pointers the alloc modes saw allocated,
 * so that a free is counted against the site of its allocation.  Open
 * addressing over prf_live_slots entries (a power of two; 24 bytes each),
 * at most PRF_LIVE_PROBE probes.  A slot goes FREE -> BUSY (claimed, being
 * filled) -> the pointer -> GONE (freed) or BUSY (taken over) ... and never
 * back to FREE while ON.  An allocation that finds no slot is counted in
 * mode_dropped: its free will not be seen.
 *
 * A pointer is in the hash at most once.  Some frees fire no tracepoint
 * (uapi/linux/prf.h: the bulk frees, kfree_rcu()'s batches), so an address
 * can be allocated again while its entry is live: that allocation takes
 * the entry over, and the old one counts as a free not seen, in its site's
 * frees_unseen.  Had it added a second entry, the next free of the address
 * would be charged to whichever came first in the sequence, the old site
 * with the old size, and the new site would hold its bytes for the rest of
 * the run.  The probes of one address never run at once: the allocator
 * hands an address out again only after it was freed, the alloc
 * tracepoints fire before the allocator returns the pointer and the free
 * ones before it frees it, so each probe of an address happens before the
 * next; probes of different addresses only race for slots (cmpxchg).  So
 * an entry sits in the first GONE or FREE slot of its sequence at the time
 * it was added: every slot before it was taken then and is never FREE
 * again, and a lookup may stop at the first FREE slot.
 */
#define PRF_LIVE_FREE	0UL
#define PRF_LIVE_GONE	1UL
#define PRF_LIVE_BUSY	2UL
#define PRF_LIVE_PROBE	16
#define PRF_LIVE_NOSITE	U32_MAX	/* an allocation not counted */

static unsigned int prf_live_slots = 1U << 16;
module_param_named(live_slots, prf_live_slots, uint, 0444);
MODULE_PARM_DESC(live_slots,
		 "Live allocations the alloc modes track per instance (rounded up to a power of two)");

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

static bool prf_mode_is_alloc(u32 mode)
{
	return mode == PRF_MODE_ALLOC_CALLS || mode == PRF_MODE_ALLOC_BYTES;
}

/*
 * The tallies an event on this CPU goes to, or NULL if not covered.  Called
 * with preemption disabled, so that the CPU checked is the CPU counted and
 * this_cpu_ptr() is valid.  What each caller runs in, decided here:
 *
 * - The kmem tracepoints' probes (prf_alloc_event()).  Up to 6.x (6.1 and
 *   6.12 read) a tracepoint calls its probes with preemption disabled
 *   (__DO_TRACE's preempt_disable_notrace()); from 7.0 (7.3 read) only
 *   inside an SRCU-fast read section (guard(srcu_fast_notrace)): the probe
 *   is preemptible and may migrate, and this_cpu_ptr() there is what
 *   DEBUG_PREEMPT reports.  prf_alloc_event() disables preemption itself,
 *   with the notrace calls (a traced one could recurse into the preemptirq
 *   tracepoints), from before it picks the CPU until it is done with the
 *   hash: on 6.x that nests in the tracepoint's own section and changes
 *   nothing, on 7.x it gives back what 6.x gave.  PREEMPT_RT alike (6.1-rt's
 *   tracepoints ran the same code with preemption off): it takes no lock
 *   that sleeps (atomics, cmpxchg(), rcu_read_lock() for a cgroup filter).
 *   A free touches nothing per CPU and runs as the tracepoint calls it,
 *   preemptible on 7.x: the hash is lock-free, and a free preempted halfway
 *   holds no slot another address needs.  Neither runs in NMI:
 *   kmalloc_nolock() and kfree_nolock(), the only allocator calls allowed
 *   there (7.x), fire no tracepoint; nothing here would mind (no lock, no
 *   allocation).
 * - The calls mode's ftrace callback.  Its ops has FTRACE_OPS_FL_RECURSION,
 *   so ftrace never calls it directly (nor does a call-ops site, arm64 6.3+)
 *   but through ftrace_ops_assist_func() or the list function, both inside
 *   trace_test_and_set_recursion(), which disables preemption: on 6.1 and on
 *   7.3 alike.
 */
static struct prf_cpu_counts *prf_event_counts(struct prf_inst *inst)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return this_cpu_ptr(inst->cpu_counts);
	if (inst->cpu != raw_smp_processor_id())
		return NULL;
	return &inst->counts;
}

/* Allocation modes */

/* @l, claimed (BUSY), held an allocation whose free was not seen. */
static void prf_live_unseen(struct prf_mode_state *ms,
			    const struct prf_live *l)
{
	struct prf_site_count *sc;

	if (l->gen != (u32)atomic_read(&ms->gen) || l->site >= ms->nsites)
		return;
	sc = &ms->sites[l->site];
	atomic64_inc(&sc->frees_unseen);
	atomic64_add(l->size, &sc->bytes_unseen);
}

/*
 * An allocation at @ptr: kept for @site with @size bytes, or, for
 * PRF_LIVE_NOSITE (not counted: another CPU's, a task the filter leaves
 * out), only ending the allocation live there.  A live entry of @ptr is
 * taken over (see above); else the first GONE or FREE slot is claimed.
 */
static void prf_live_add(struct prf_mode_state *ms, unsigned long ptr,
			 u32 site, size_t size)
{
	u32 mask = (1U << ms->live_bits) - 1, h = hash_long(ptr, ms->live_bits);
	u32 i, room = PRF_LIVE_PROBE;
	struct prf_live *l;
	unsigned long old;

	for (i = 0; i < PRF_LIVE_PROBE; i++) {
		l = &ms->live[(h + i) & mask];
		old = READ_ONCE(l->ptr);
		/* full barrier: the fields are the old allocation's */
		if (old == ptr && cmpxchg(&l->ptr, ptr, PRF_LIVE_BUSY) == ptr) {
			prf_live_unseen(ms, l);
			if (site != PRF_LIVE_NOSITE)
				goto fill;
			/* the fields read before the slot is free again */
			smp_store_release(&l->ptr, PRF_LIVE_GONE);
			return;
		}
		if (old <= PRF_LIVE_GONE && room == PRF_LIVE_PROBE)
			room = i;
		if (old == PRF_LIVE_FREE)
			break;
	}
	if (site == PRF_LIVE_NOSITE)
		return;
	/* @ptr is not live: another allocation may take @room first */
	for (i = room; i < PRF_LIVE_PROBE; i++) {
		l = &ms->live[(h + i) & mask];
		old = READ_ONCE(l->ptr);
		if (old <= PRF_LIVE_GONE &&
		    cmpxchg(&l->ptr, old, PRF_LIVE_BUSY) == old)
			goto fill;
	}
	atomic64_inc(&ms->dropped);
	return;
fill:
	l->site = site;
	l->size = min_t(size_t, size, U32_MAX);
	l->gen = atomic_read(&ms->gen);
	/* the fields before the pointer: a free reads them after */
	smp_store_release(&l->ptr, ptr);
}

static void prf_live_free(struct prf_mode_state *ms, unsigned long ptr)
{
	u32 mask = (1U << ms->live_bits) - 1, h = hash_long(ptr, ms->live_bits);
	struct prf_site_count *sc;
	struct prf_live *l;
	unsigned long old;
	u32 i, site, size, gen;

	for (i = 0; i < PRF_LIVE_PROBE; i++) {
		l = &ms->live[(h + i) & mask];
		/* pairs with prf_live_add(): the fields are written */
		old = smp_load_acquire(&l->ptr);
		if (old == PRF_LIVE_FREE)
			return;
		if (old != ptr)
			continue;
		site = l->site;
		size = l->size;
		gen = l->gen;
		if (cmpxchg(&l->ptr, ptr, PRF_LIVE_GONE) != ptr)
			continue;
		if (gen != (u32)atomic_read(&ms->gen) || site >= ms->nsites)
			return;
		sc = &ms->sites[site];
		atomic64_inc(&sc->frees);
		atomic64_add(size, &sc->bytes_freed);
		return;
	}
}

/*
 * One allocation of @req bytes (@alloc allocated) at @ptr, made from
 * @call_site.  Counter N: allocations from below the table's first address;
 * N + 1: failed ones (@ptr NULL).  One not counted still ends the life of
 * an allocation whose free was not seen at @ptr.
 */
static void __prf_alloc_event(struct prf_inst *inst, unsigned long call_site,
			      const void *ptr, size_t req, size_t alloc)
{
	const struct prf_table *tab = inst->tab;
	struct prf_mode_state *ms = inst->ms;
	bool bytes = inst->mode == PRF_MODE_ALLOC_BYTES;
	struct prf_cpu_counts *cc = prf_event_counts(inst);
	struct prf_site_count *sc;
	u32 site = PRF_LIVE_NOSITE;
	u64 v;

	if (!cc)
		goto live;
	v = bytes ? (ptr ? alloc : req) : 1;
	atomic64_add(v, &cc->tally[PRF_TALLY_SAMPLED]);
	if (!prf_event_passes(inst)) {
		atomic64_add(v, &cc->tally[PRF_TALLY_FILTERED]);
		goto live;
	}
	if (unlikely(!ptr)) {
		site = tab->n + 1;
		atomic64_add(v, &cc->tally[PRF_TALLY_IDLE]);
		alloc = 0;
	} else if (unlikely(call_site < tab->slot[0].addr)) {
		site = tab->n;
		atomic64_add(v, &cc->tally[PRF_TALLY_USER]);
	} else {
		struct prf_slot *slot = prf_table_lookup(tab, call_site);

		site = slot - tab->slot;
		atomic64_add(v, &slot->count);
	}
	sc = &ms->sites[site];
	atomic64_inc(&sc->allocs);
	atomic64_add(req, &sc->bytes_req);
	atomic64_add(alloc, &sc->bytes_alloc);
live:
	if (!ZERO_OR_NULL_PTR(ptr))
		prf_live_add(ms, (unsigned long)ptr, site, alloc);
}

/* Preemption off: see prf_event_counts(). */
static void prf_alloc_event(struct prf_inst *inst, unsigned long call_site,
			    const void *ptr, size_t req, size_t alloc)
{
	preempt_disable_notrace();
	__prf_alloc_event(inst, call_site, ptr, req, alloc);
	preempt_enable_notrace();
}

/* A free is matched whatever its CPU and task: the allocation was counted. */
static void prf_free_event(struct prf_inst *inst, const void *ptr)
{
	if (!ZERO_OR_NULL_PTR(ptr))
		prf_live_free(inst->ms, (unsigned long)ptr);
}

#if PRF_HAVE_ALLOC_MODES
static void prf_tp_kmalloc(void *data, unsigned long call_site,
			   const void *ptr, size_t bytes_req,
			   size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	prf_alloc_event(data, call_site, ptr, bytes_req, bytes_alloc);
}

/*
 * struct kmem_cache is private to mm/ (the 6.1 headers' slub_def.h cannot
 * be built outside it either): a module knows the object size of a cache
 * (kmem_cache_size()), not its stride with debugging metadata (s->size,
 * which the kmalloc tracepoint reports).  Both bytes are the object size.
 */
static void prf_tp_cache_alloc(void *data, unsigned long call_site,
			       const void *ptr, struct kmem_cache *s,
			       gfp_t gfp_flags, int node)
{
	size_t size = kmem_cache_size(s);

	prf_alloc_event(data, call_site, ptr, size, size);
}

static void prf_tp_kfree(void *data, unsigned long call_site,
			 const void *ptr)
{
	prf_free_event(data, ptr);
}

static void prf_tp_cache_free(void *data, unsigned long call_site,
			      const void *ptr, const struct kmem_cache *s)
{
	prf_free_event(data, ptr);
}

/* Frees first: an allocation counted is never missed by its free. */
static int prf_probes_register(struct prf_inst *inst)
{
	int ret;

	ret = register_trace_kmem_cache_free(prf_tp_cache_free, inst);
	if (ret)
		goto fail0;
	ret = register_trace_kfree(prf_tp_kfree, inst);
	if (ret)
		goto fail1;
	ret = register_trace_kmem_cache_alloc(prf_tp_cache_alloc, inst);
	if (ret)
		goto fail2;
	ret = register_trace_kmalloc(prf_tp_kmalloc, inst);
	if (ret)
		goto fail3;
	return 0;
fail3:
	unregister_trace_kmem_cache_alloc(prf_tp_cache_alloc, inst);
fail2:
	unregister_trace_kfree(prf_tp_kfree, inst);
fail1:
	unregister_trace_kmem_cache_free(prf_tp_cache_free, inst);
fail0:
	tracepoint_synchronize_unregister();
	return ret;
}

static void prf_probes_off(struct prf_inst *inst)
{
	unregister_trace_kmalloc(prf_tp_kmalloc, inst);
	unregister_trace_kmem_cache_alloc(prf_tp_cache_alloc, inst);
	unregister_trace_kfree(prf_tp_kfree, inst);
	unregister_trace_kmem_cache_free(prf_tp_cache_free, inst);
	tracepoint_synchronize_unregister();
}
#else
static int prf_probes_register(struct prf_inst *inst)
{
	return -EOPNOTSUPP;
}

static void prf_probes_off(struct prf_inst *inst)
{
}
#endif

/* Calls mode */

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * ftrace calls this at the entry of every function of the filter; @ip is
 * the function's ftrace location, at or just past its table address.
 */
static void notrace prf_calls_func(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	struct prf_inst *inst = op->private;
	const struct prf_table *tab = inst->tab;
	struct prf_cpu_counts *cc = prf_event_counts(inst);

	if (!cc)
		return;
	atomic64_inc(&cc->tally[PRF_TALLY_SAMPLED]);
	if (!prf_event_passes(inst)) {
		atomic64_inc(&cc->tally[PRF_TALLY_FILTERED]);
		return;
	}
	if (likely(ip >= tab->slot[0].addr))
		atomic64_inc(&prf_table_lookup(tab, ip)->count);
}

/*
 * Turning ON must cost what the table costs, whatever share of it ftrace
 * refuses: prfld's default table, every kernel text symbol, has tens of
 * thousands of addresses, a fifth to a quarter of them no traceable
 * function's entry (init, entry and noinstr text, notrace functions, __pfx_
 * padding, end sentinels).  ftrace_set_filter_ips() refuses a whole set for
 * one such address (EINVAL, the filter unchanged) without saying which,
 * and adding to a filter copies the whole filter; ftrace_location(), which
 * would say it per address, is not exported (6.1 to 7.3).  So the traceable
 * addresses are found first by tries that each replace the ops' filter
 * (reset: a try costs its own set, not the filter), then the filter is set
 * once to all of them.  A try's set doubles while ftrace accepts and halves
 * when it refuses, down to the one address refused; refused addresses
 * gather in a few sections, so the runs between them are long.  An
 * address is looked up at most a small multiple of log2(PRF_CALLS_RUN_MAX)
 * times (2.5 times on average for the full tables of 6.1 and 7.3: 47,746
 * and 67,021 addresses, 18,224 and 29,877 tries, under a second of a TCG
 * guest), and no try sets more than PRF_CALLS_RUN_MAX.
 */
#define PRF_CALLS_RUN_MAX	1024U

/*
 * Moves the traceable addresses of @ips to its front, in order, and sets
 * *@nok to their number.  -EINTR on a fatal signal: the caller is being
 * killed, and a table of a million addresses may take seconds.
 */
static int prf_calls_traceable(struct ftrace_ops *ops, unsigned long *ips,
			       u32 n, u32 *nok)
{
	u32 i = 0, ok = 0, run = 1, cnt;
	int ret;

	while (i < n) {
		if (fatal_signal_pending(current))
			return -EINTR;
		cnt = min(run, n - i);
		ret = ftrace_set_filter_ips(ops, ips + i, cnt, 0, 1);
		if (!ret) {
			memmove(ips + ok, ips + i, cnt * sizeof(*ips));
			ok += cnt;
			i += cnt;
			run = min(2 * run, PRF_CALLS_RUN_MAX);
		} else if (ret == -EINVAL) {
			if (cnt == 1)
				i++;		/* refused */
			run = max(cnt / 2, 1U);
		} else {
			return ret;
		}
		cond_resched();
	}
	*nok = ok;
	return 0;
}

/*
 * The filter, set once to the traceable addresses of the table.  Module
 * text can go between the tries and that set (a module unloaded): the set
 * is then refused and the tries run again over what was accepted, a few
 * times at most.
 */
static int prf_calls_filter(struct ftrace_ops *ops, unsigned long *ips,
			    u32 n, u32 *nok)
{
	int ret, tries;

	for (tries = 0; tries < 3; tries++) {
		ret = prf_calls_traceable(ops, ips, n, nok);
		/* an empty filter would trace every function of the kernel */
		if (ret || !*nok)
			return ret;
		ret = ftrace_set_filter_ips(ops, ips, *nok, 0, 1);
		if (ret != -EINVAL)
			return ret;
		n = *nok;
	}
	return -EAGAIN;
}

static int prf_calls_on(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	const struct prf_table *tab = inst->tab;
	unsigned long *ips;
	u32 i, nok = 0;
	int ret;

	ips = kvmalloc_array(tab->n, sizeof(*ips), GFP_KERNEL_ACCOUNT |
			     __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < tab->n; i++)
		ips[i] = (unsigned long)tab->slot[i].addr;
	/* a fresh ops each time: ftrace_free_filter() leaves it used */
	memset(&ms->ops, 0, sizeof(ms->ops));
	ms->ops.func = prf_calls_func;
	ms->ops.flags = FTRACE_OPS_FL_RECURSION;
	ms->ops.private = inst;
	ret = prf_calls_filter(&ms->ops, ips, tab->n, &nok);
	kvfree(ips);
	if (!ret && nok) {
		ret = register_ftrace_function(&ms->ops);
		ms->ops_on = !ret;
	}
	if (!ret)
		ms->untraceable = tab->n - nok;
	if (!ms->ops_on)
		ftrace_free_filter(&ms->ops);
	return ret;
}

/* Unregistering waits until no CPU is in prf_calls_func() for these ops. */
static void prf_calls_off(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;

	if (!ms->ops_on)
		return;
	unregister_ftrace_function(&ms->ops);
	ftrace_free_filter(&ms->ops);
	ms->ops_on = false;
}
#else
static int prf_calls_on(struct prf_inst *inst)
{
	return -EOPNOTSUPP;
}

static void prf_calls_off(struct prf_inst *inst)
{
}
#endif

/* Mode set-up */

static bool prf_mode_supported(u32 mode)
{
	if (prf_mode_is_alloc(mode))
		return PRF_HAVE_ALLOC_MODES;
	if (mode == PRF_MODE_CALLS)
		return PRF_HAVE_CALLS_MODE;
	if (mode == PRF_MODE_OFFCPU)
		return PRF_HAVE_ALLOC_MODES;	/* tracepoints */
	return true;
}

/* Counter N of the calls mode: the addresses ftrace refused at ON. */
static void prf_calls_set_untraceable(struct prf_inst *inst)
{
	struct prf_cpu_counts *cc;

	if (inst->cpu == PRF_ALL_CPUS)
		cc = per_cpu_ptr(inst->cpu_counts,
				 cpumask_first(cpu_possible_mask));
	else
		cc = &inst->counts;
	atomic64_set(&cc->tally[PRF_TALLY_USER], inst->ms->untraceable);
}

/*
 * Under inst->lock, after the counts outside the table were zeroed (a load,
 * a clear, a filter, a CPU, a mode): the mode's own counts.
 */
void prf_mode_reset(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	u32 i;

	lockdep_assert_held(&inst->lock);
	if (!ms)
		return;
	atomic_inc(&ms->gen);
	atomic64_set(&ms->dropped, 0);
	prf_offcpu_reset(ms->off);
	for (i = 0; ms->sites && i < ms->nsites; i++) {
		atomic64_set(&ms->sites[i].allocs, 0);
		atomic64_set(&ms->sites[i].bytes_req, 0);
		atomic64_set(&ms->sites[i].bytes_alloc, 0);
		atomic64_set(&ms->sites[i].frees, 0);
		atomic64_set(&ms->sites[i].bytes_freed, 0);
		atomic64_set(&ms->sites[i].frees_unseen, 0);
		atomic64_set(&ms->sites[i].bytes_unseen, 0);
	}
	if (inst->on && inst->mode == PRF_MODE_CALLS)
		prf_calls_set_untraceable(inst);
}

u64 prf_mode_dropped(struct prf_inst *inst)
{
	lockdep_assert_held(&inst->lock);
	if (inst->ms && inst->mode == PRF_MODE_OFFCPU)
		return prf_offcpu_dropped(inst->ms->off);
	return inst->ms && prf_mode_is_alloc(inst->mode) ?
		atomic64_read(&inst->ms->dropped) : 0;
}

/*
 * PRF_SETMODE.  What a mode needs that is big is allocated here, before
 * the locks: the live-allocation hash of the alloc modes.
 */
int prf_set_mode(struct prf_inst *inst, u32 mode)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_mode_state *ms = NULL;
	struct prf_live *live = NULL, *old_live = NULL;
	struct prf_offcpu *off = NULL, *old_off = NULL;
	unsigned int bits = 0;
	int ret = 0;

	if (mode > PRF_MODE_OFFCPU)
		return -EINVAL;
	if (!prf_mode_supported(mode))
		return -EOPNOTSUPP;
	if (prf_mode_is_alloc(mode)) {
		bits = order_base_2(max(prf_live_slots, PRF_LIVE_PROBE));
		live = kvcalloc(1UL << bits, sizeof(*live), gfp);
		if (!live)
			return -ENOMEM;
	}
	if (mode == PRF_MODE_OFFCPU) {
		off = prf_offcpu_alloc();
		if (!off)
			return -ENOMEM;
	}
	if (mode != PRF_MODE_TIME) {
		ms = kzalloc(sizeof(*ms), GFP_KERNEL_ACCOUNT);
		if (!ms) {
			kvfree(live);
			prf_offcpu_free(off);
			return -ENOMEM;
		}
	}

	mutex_lock(&inst->mode_lock);
	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old_live = live;
		old_off = off;
	} else {
		if (ms && !inst->ms) {
			inst->ms = ms;
			ms = NULL;
		}
		if (inst->ms) {
			old_live = inst->ms->live;
			inst->ms->live = live;
			inst->ms->live_bits = bits;
			old_off = inst->ms->off;
			inst->ms->off = off;
		}
		inst->mode = mode;
		if (inst->tab)
			prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
	mutex_unlock(&inst->mode_lock);
	kvfree(old_live);
	prf_offcpu_free(old_off);
	kfree(ms);
	return ret;
}

u32 prf_get_mode(struct prf_inst *inst)
{
	u32 mode;

	mutex_lock(&inst->lock);
	mode = inst->mode;
	mutex_unlock(&inst->lock);
	return mode;
}

/* The alloc modes' per-counter details for the table now loaded. */
static int prf_sites_prepare(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	u32 n = inst->tab->n + 2;

	lockdep_assert_held(&inst->lock);
	if (ms->sites && ms->nsites == n)
		return 0;
	kvfree(ms->sites);
	ms->nsites = 0;
	ms->sites = kvcalloc(n, sizeof(*ms->sites), GFP_KERNEL_ACCOUNT |
			     __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!ms->sites)
		return -ENOMEM;
	ms->nsites = n;
	return 0;
}

/*
 * ON and OFF of the event modes, with inst->mode_lock held (prf_set_state()).
 * See prf.h ("Modes") for why the probes are (un)registered outside
 * inst->lock and the hotplug lock, and why the table is safe meanwhile.
 */
int prf_mode_set_state(struct prf_inst *inst, bool on)
{
	struct prf_mode_state *ms = inst->ms;
	int ret = 0;

	lockdep_assert_held(&inst->mode_lock);
	mutex_lock(&inst->lock);
	if (!inst->tab || on == inst->on) {
		mutex_unlock(&inst->lock);
		return 0;
	}
	if (on) {
		if (prf_mode_is_alloc(inst->mode)) {
			ret = prf_sites_prepare(inst);
			if (ret) {
				mutex_unlock(&inst->lock);
				return ret;
			}
			/* no probe runs: allocations of an earlier ON go */
			memset(ms->live, 0,
			       sizeof(*ms->live) << ms->live_bits);
			atomic_inc(&ms->gen);
		}
		inst->on_since = ktime_get();
		WRITE_ONCE(inst->on, true);
		mutex_unlock(&inst->lock);

		if (prf_mode_is_alloc(inst->mode)) {
			ret = prf_probes_register(inst);
			ms->probes = !ret;
		} else if (inst->mode == PRF_MODE_OFFCPU) {
			ret = prf_offcpu_on(inst);
			ms->off_on = !ret;
		} else {
			ret = prf_calls_on(inst);
		}

		mutex_lock(&inst->lock);
		if (ret)
			WRITE_ONCE(inst->on, false);
		else if (inst->mode == PRF_MODE_CALLS)
			prf_calls_set_untraceable(inst);
		mutex_unlock(&inst->lock);
		return ret;
	}
	mutex_unlock(&inst->lock);

	if (ms->probes) {
		prf_probes_off(inst);
		ms->probes = false;
	}
	if (ms->off_on) {
		prf_offcpu_off(inst);
		ms->off_on = false;
	}
	prf_calls_off(inst);

	mutex_lock(&inst->lock);
	WRITE_ONCE(inst->on, false);
	inst->on_ns += ktime_to_ns(ktime_sub(ktime_get(), inst->on_since));
	mutex_unlock(&inst->lock);
	return 0;
}

/*
 * PRF_GETSITES: the details are gathered under inst->lock into a kernel
 * buffer and copied out after it is dropped (prf.h: nothing that can wait
 * on user space under inst->lock).  A struct prf_site is the start of a
 * struct prf_site2: version 1 entries are packed down in place.
 */
int prf_get_sites(struct prf_inst *inst, struct prf_sites __user *us)
{
	struct prf_mode_state *ms;
	struct prf_site2 *buf = NULL;
	struct prf_sites s;
	size_t esz;
	u32 i, nr;
	int ret = 0;

	BUILD_BUG_ON(offsetof(struct prf_site2, frees_unseen) !=
		     sizeof(struct prf_site));
	if (copy_from_user(&s, us, sizeof(s)))
		return -EFAULT;
	if (s.flags & ~PRF_SITES_V2)
		return -EINVAL;
	esz = s.flags & PRF_SITES_V2 ? sizeof(*buf) : sizeof(struct prf_site);
	mutex_lock(&inst->lock);
	ms = inst->ms;
	if (!inst->tab) {
		ret = -ENXIO;
		goto out;
	}
	if (!prf_mode_is_alloc(inst->mode)) {
		ret = -EINVAL;
		goto out;
	}
	nr = min_t(u32, s.nr, inst->tab->n + 2);
	if (nr) {
		buf = kvcalloc(nr, sizeof(*buf), GFP_KERNEL_ACCOUNT |
			       __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* not counted since the load yet (no ON): all zero */
	for (i = 0; ms->sites && i < nr && i < ms->nsites; i++) {
		buf[i].allocs = atomic64_read(&ms->sites[i].allocs);
		buf[i].bytes_req = atomic64_read(&ms->sites[i].bytes_req);
		buf[i].bytes_alloc = atomic64_read(&ms->sites[i].bytes_alloc);
		buf[i].frees = atomic64_read(&ms->sites[i].frees);
		buf[i].bytes_freed = atomic64_read(&ms->sites[i].bytes_freed);
		buf[i].frees_unseen = atomic64_read(&ms->sites[i].frees_unseen);
		buf[i].bytes_unseen = atomic64_read(&ms->sites[i].bytes_unseen);
	}
out:
	mutex_unlock(&inst->lock);
	if (ret)
		return ret;
	for (i = 1; esz != sizeof(*buf) && i < nr; i++)
		memmove((char *)buf + i * esz, &buf[i], esz);
	s.nr = nr;
	if (nr && copy_to_user(u64_to_user_ptr(s.sites), buf, (size_t)nr * esz))
		ret = -EFAULT;
	else if (put_user(s.nr, &us->nr))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

/* The instance is OFF and about to be freed. */
void prf_mode_destroy(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;

	if (!ms)
		return;
	kvfree(ms->live);
	kvfree(ms->sites);
	prf_offcpu_free(ms->off);
	kfree(ms);
	inst->ms = NULL;
}
