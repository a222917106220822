// SPDX-License-Identifier: GPL-2.0
/*
 * prf - modes (PRF_SETMODE): what an instance counts against its table.
 * Time is the timers of prf_sample.c; this file has the other three:
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
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>

#include "prf.h"

#define PRF_HAVE_ALLOC_MODES	IS_ENABLED(CONFIG_TRACEPOINTS)
#define PRF_HAVE_CALLS_MODE	IS_ENABLED(CONFIG_DYNAMIC_FTRACE)

/*
 * Live allocations: a hash of the pointers the alloc modes saw allocated,
 * so that a free is counted against the site of its allocation.  Open
 * addressing over prf_live_slots entries (a power of two; 24 bytes each),
 * at most PRF_LIVE_PROBE probes.  A slot goes FREE -> BUSY (claimed, being
 * filled) -> the pointer -> GONE (freed) -> BUSY ... and never back to FREE
 * while ON, so a lookup may stop at the first FREE slot.  An allocation that
 * finds no slot is counted in mode_dropped: its free will not be seen.
 */
#define PRF_LIVE_FREE	0UL
#define PRF_LIVE_GONE	1UL
#define PRF_LIVE_BUSY	2UL
#define PRF_LIVE_PROBE	16

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
};

struct prf_mode_state {
	/* alloc modes */
	struct prf_live *live;		/* 1 << live_bits slots */
	unsigned int live_bits;
	atomic_t gen;			/* a clear makes earlier frees uncounted */
	atomic64_t dropped;		/* mode_dropped */
	struct prf_site_count *sites;	/* nsites = N + 2 of the table */
	u32 nsites;
	bool probes;			/* tracepoint probes registered */
	/* calls */
	u64 untraceable;		/* table addresses ftrace refused */
#ifdef CONFIG_DYNAMIC_FTRACE
	struct ftrace_ops ops;
	bool ops_on;			/* ops registered */
#endif
};

static bool prf_mode_is_alloc(u32 mode)
{
	return mode == PRF_MODE_ALLOC_CALLS || mode == PRF_MODE_ALLOC_BYTES;
}

/* The tallies an event on this CPU goes to, or NULL if not covered. */
static struct prf_cpu_counts *prf_event_counts(struct prf_inst *inst)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return this_cpu_ptr(inst->cpu_counts);
	if (inst->cpu != raw_smp_processor_id())
		return NULL;
	return &inst->counts;
}

/*
 * The filter, for an event in the current task's context.  The cgroup test
 * needs RCU watching: where it is not (the idle task, entry code) no
 * filter could match anyway.
 */
static bool prf_event_passes(struct prf_inst *inst)
{
	if (inst->filter.type == PRF_FILTER_NONE)
		return true;
	if (inst->filter.type == PRF_FILTER_CGROUP && !rcu_is_watching())
		return false;
	return prf_filter_match(&inst->filter);
}

/* Allocation modes */

static void prf_live_add(struct prf_mode_state *ms, unsigned long ptr,
			 u32 site, size_t size)
{
	u32 mask = (1U << ms->live_bits) - 1, h = hash_long(ptr, ms->live_bits);
	struct prf_live *l;
	unsigned long old;
	u32 i;

	for (i = 0; i < PRF_LIVE_PROBE; i++) {
		l = &ms->live[(h + i) & mask];
		old = READ_ONCE(l->ptr);
		if (old > PRF_LIVE_GONE)
			continue;
		if (cmpxchg(&l->ptr, old, PRF_LIVE_BUSY) != old)
			continue;
		l->site = site;
		l->size = min_t(size_t, size, U32_MAX);
		l->gen = atomic_read(&ms->gen);
		/* the fields before the pointer: a free reads them after */
		smp_store_release(&l->ptr, ptr);
		return;
	}
	atomic64_inc(&ms->dropped);
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
 * N + 1: failed ones (@ptr NULL).
 */
static void prf_alloc_event(struct prf_inst *inst, unsigned long call_site,
			    const void *ptr, size_t req, size_t alloc)
{
	const struct prf_table *tab = inst->tab;
	struct prf_mode_state *ms = inst->ms;
	bool bytes = inst->mode == PRF_MODE_ALLOC_BYTES;
	struct prf_cpu_counts *cc = prf_event_counts(inst);
	struct prf_site_count *sc;
	u64 v;
	u32 site;

	if (!cc)
		return;
	v = bytes ? (ptr ? alloc : req) : 1;
	atomic64_add(v, &cc->tally[PRF_TALLY_SAMPLED]);
	if (!prf_event_passes(inst)) {
		atomic64_add(v, &cc->tally[PRF_TALLY_FILTERED]);
		return;
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
	if (ptr && !ZERO_OR_NULL_PTR(ptr))
		prf_live_add(ms, (unsigned long)ptr, site, alloc);
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
 * Adds the traceable addresses of @ips to the filter; ftrace refuses a
 * whole set (EINVAL, filter unchanged) for one address that is not a
 * function's entry, so a refused set is halved until the refused addresses
 * are found alone: about log2(n) more tries per such address.
 */
static int prf_calls_filter(struct ftrace_ops *ops, unsigned long *ips,
			    unsigned int cnt, u64 *bad)
{
	unsigned int half;
	int ret;

	if (!cnt)
		return 0;
	ret = ftrace_set_filter_ips(ops, ips, cnt, 0, 0);
	if (ret != -EINVAL)
		return ret;
	if (cnt == 1) {
		(*bad)++;
		return 0;
	}
	half = cnt / 2;
	ret = prf_calls_filter(ops, ips, half, bad);
	if (ret)
		return ret;
	return prf_calls_filter(ops, ips + half, cnt - half, bad);
}

static int prf_calls_on(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	const struct prf_table *tab = inst->tab;
	unsigned long *ips;
	u64 bad = 0;
	u32 i;
	int ret;

	ips = kvmalloc_array(tab->n, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < tab->n; i++)
		ips[i] = (unsigned long)tab->slot[i].addr;
	/* a fresh ops each time: ftrace_free_filter() leaves it used */
	memset(&ms->ops, 0, sizeof(ms->ops));
	ms->ops.func = prf_calls_func;
	ms->ops.flags = FTRACE_OPS_FL_RECURSION;
	ms->ops.private = inst;
	ret = prf_calls_filter(&ms->ops, ips, tab->n, &bad);
	kvfree(ips);
	ms->untraceable = bad;
	/* an empty filter would trace every function of the kernel */
	if (!ret && bad < tab->n) {
		ret = register_ftrace_function(&ms->ops);
		ms->ops_on = !ret;
	}
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
	for (i = 0; ms->sites && i < ms->nsites; i++) {
		atomic64_set(&ms->sites[i].allocs, 0);
		atomic64_set(&ms->sites[i].bytes_req, 0);
		atomic64_set(&ms->sites[i].bytes_alloc, 0);
		atomic64_set(&ms->sites[i].frees, 0);
		atomic64_set(&ms->sites[i].bytes_freed, 0);
	}
	if (inst->on && inst->mode == PRF_MODE_CALLS)
		prf_calls_set_untraceable(inst);
}

u64 prf_mode_dropped(struct prf_inst *inst)
{
	lockdep_assert_held(&inst->lock);
	return inst->ms && prf_mode_is_alloc(inst->mode) ?
		atomic64_read(&inst->ms->dropped) : 0;
}

/*
 * PRF_SETMODE.  What a mode needs that is big is allocated here, before
 * the locks: the live-allocation hash of the alloc modes.
 */
int prf_set_mode(struct prf_inst *inst, u32 mode)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;
	struct prf_mode_state *ms = NULL;
	struct prf_live *live = NULL, *old_live = NULL;
	unsigned int bits = 0;
	int ret = 0;

	if (mode > PRF_MODE_CALLS)
		return -EINVAL;
	if (!prf_mode_supported(mode))
		return -EOPNOTSUPP;
	if (prf_mode_is_alloc(mode)) {
		bits = order_base_2(max(prf_live_slots, PRF_LIVE_PROBE));
		live = kvcalloc(1UL << bits, sizeof(*live), gfp);
		if (!live)
			return -ENOMEM;
	}
	if (mode != PRF_MODE_TIME) {
		ms = kzalloc(sizeof(*ms), GFP_KERNEL_ACCOUNT);
		if (!ms) {
			kvfree(live);
			return -ENOMEM;
		}
	}

	mutex_lock(&inst->mode_lock);
	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old_live = live;
	} else {
		if (ms && !inst->ms) {
			inst->ms = ms;
			ms = NULL;
		}
		if (inst->ms) {
			old_live = inst->ms->live;
			inst->ms->live = live;
			inst->ms->live_bits = bits;
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
 * on user space under inst->lock).
 */
int prf_get_sites(struct prf_inst *inst, struct prf_sites __user *us)
{
	struct prf_mode_state *ms;
	struct prf_site *buf = NULL;
	struct prf_sites s;
	u32 i, nr;
	int ret = 0;

	if (copy_from_user(&s, us, sizeof(s)))
		return -EFAULT;
	if (s.flags)
		return -EINVAL;
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
	}
out:
	mutex_unlock(&inst->lock);
	if (ret)
		return ret;
	s.nr = nr;
	if (nr && copy_to_user(u64_to_user_ptr(s.sites), buf,
			       (size_t)nr * sizeof(*buf)))
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
	kfree(ms);
	inst->ms = NULL;
}
