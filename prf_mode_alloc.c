// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the alloc modes (PRF_MODE_ALLOC_CALLS, PRF_MODE_ALLOC_BYTES):
 * kernel allocations counted by call site from the kmem tracepoints, the
 * live allocations kept so that a free is counted against its site, and
 * PRF_GETSITES.  The ABI is uapi/linux/prf.h; locking and lifetimes are in
 * prf_modes.h, the context of the probes at prf_event_counts().
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>

#include "prf.h"
#include "prf_modes.h"

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

static unsigned int prf_live_slots = 1U << 16;
module_param_named(live_slots, prf_live_slots, uint, 0444);
MODULE_PARM_DESC(live_slots,
		 "Live allocations the alloc modes track per instance (rounded up to a power of two)");

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
	u32 mask = (1U << ms->res.live_bits) - 1, h = hash_long(ptr, ms->res.live_bits);
	u32 i, room = PRF_LIVE_PROBE;
	struct prf_live *l;
	unsigned long old;

	for (i = 0; i < PRF_LIVE_PROBE; i++) {
		l = &ms->res.live[(h + i) & mask];
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
		l = &ms->res.live[(h + i) & mask];
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

static void prf_live_free(struct prf_mode_state *ms, unsigned long ptr,
			  bool count)
{
	u32 mask = (1U << ms->res.live_bits) - 1,
	    h = hash_long(ptr, ms->res.live_bits);
	struct prf_site_count *sc;
	struct prf_live *l;
	unsigned long old;
	u32 i, site, size, gen;

	for (i = 0; i < PRF_LIVE_PROBE; i++) {
		l = &ms->res.live[(h + i) & mask];
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
		if (!count || gen != (u32)atomic_read(&ms->gen) ||
		    site >= ms->nsites)
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

	if (!cc || !prf_may_count(inst))
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

/*
 * A free is matched whatever its CPU and task: the allocation was counted.
 * Preemption off as for an allocation, so that a clear waits for a free in
 * flight too (prf.h); one during a clear ends its allocation's life, which
 * began before the clear, and counts nowhere.
 */
static void prf_free_event(struct prf_inst *inst, const void *ptr)
{
	if (ZERO_OR_NULL_PTR(ptr))
		return;
	preempt_disable_notrace();
	prf_live_free(inst->ms, (unsigned long)ptr, prf_may_count(inst));
	preempt_enable_notrace();
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

/* Mode ops (prf_modes.h) */

/* The live-allocation hash, before PRF_SETMODE's locks. */
static int prf_alloc_set(struct prf_mode_res *res)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	unsigned int bits = order_base_2(max(prf_live_slots, PRF_LIVE_PROBE));

	res->live = kvcalloc(1UL << bits, sizeof(*res->live), gfp);
	if (!res->live)
		return -ENOMEM;
	res->live_bits = bits;
	return 0;
}

static void prf_alloc_unset(struct prf_mode_res *res)
{
	kvfree(res->live);
	res->live = NULL;
}

/* ON, under inst->lock: the sites for the table, the hash emptied. */
static int prf_alloc_prepare(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	int ret;

	ret = prf_sites_prepare(inst);
	if (ret)
		return ret;
	/* no probe runs: allocations of an earlier ON go */
	memset(ms->res.live, 0, sizeof(*ms->res.live) << ms->res.live_bits);
	atomic_inc(&ms->gen);
	return 0;
}

static int prf_alloc_on(struct prf_inst *inst)
{
	int ret = prf_probes_register(inst);

	inst->ms->probes = !ret;
	return ret;
}

static void prf_alloc_off(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;

	if (ms->probes) {
		prf_probes_off(inst);
		ms->probes = false;
	}
}

/* A clear makes the frees of earlier allocations uncounted (gen). */
static void prf_alloc_reset(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	u32 i;

	atomic_inc(&ms->gen);
	atomic64_set(&ms->dropped, 0);
	for (i = 0; ms->sites && i < ms->nsites; i++) {
		atomic64_set(&ms->sites[i].allocs, 0);
		atomic64_set(&ms->sites[i].bytes_req, 0);
		atomic64_set(&ms->sites[i].bytes_alloc, 0);
		atomic64_set(&ms->sites[i].frees, 0);
		atomic64_set(&ms->sites[i].bytes_freed, 0);
		atomic64_set(&ms->sites[i].frees_unseen, 0);
		atomic64_set(&ms->sites[i].bytes_unseen, 0);
	}
}

static u64 prf_alloc_dropped(struct prf_inst *inst)
{
	return atomic64_read(&inst->ms->dropped);
}

static void prf_alloc_destroy(struct prf_mode_state *ms)
{
	kvfree(ms->sites);
}

const struct prf_mode_ops prf_mode_alloc = {
	.supported = PRF_HAVE_ALLOC_MODES,
	.charge = PRF_CHARGE_ALLOC,
	.set = prf_alloc_set,
	.unset = prf_alloc_unset,
	.prepare = prf_alloc_prepare,
	.on = prf_alloc_on,
	.off = prf_alloc_off,
	.reset = prf_alloc_reset,
	.dropped = prf_alloc_dropped,
	.destroy = prf_alloc_destroy,
};
