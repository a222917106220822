// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the call-stack table (PRF_SETSTACKS, PRF_GETSTACKS): distinct kernel
 * call stacks of an instance's samples, counted as they arrive.  The ABI is
 * in uapi/linux/prf.h; the table's locking and lifetime are decided in prf.h
 * ("The call-stack table").  How a stack is walked on each kernel is in
 * prf_compat.h.
 */
#include <linux/hardirq.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "prf.h"
#include "prf_compat.h"

/*
 * An index slot holds 0 (free) or, once claimed, the stack's entry number
 * plus one in its low PRF_STACK_IDX_BITS and PRF_STACK_TAG_BITS of the
 * stack's hash above them, so that most probes that do not match are told
 * apart without reading the entry.
 */
#define PRF_STACK_IDX_BITS	21	/* PRF_STACKS_MAX + 1 fits */
#define PRF_STACK_TAG_BITS	(32 - PRF_STACK_IDX_BITS)
#define PRF_STACK_IDX_MASK	((1U << PRF_STACK_IDX_BITS) - 1)
/* A bound on the probe sequence: the index is at most half full. */
#define PRF_STACK_PROBE		128

static_assert(PRF_STACKS_MAX < PRF_STACK_IDX_MASK);

/*
 * Scratch for the stacks being walked, three per CPU: every sampling timer
 * is a hard-irq hrtimer and callbacks on one CPU never nest, so one buffer
 * per CPU serves every instance; the PMU source's overflow handler in NMI
 * can interrupt a timer callback in the middle of its walk, and has the
 * second (NMIs do not nest).  An overflow handler that is not in NMI is a
 * hard irq like the timers'.  The third is the offcpu mode's
 * (prf_offcpu.c), whose sched_switch probe runs with interrupts off and
 * so can neither interrupt nor be interrupted by a timer's walk.
 *
 * Allocated at load by prf_stack_init() rather than as static per-CPU data,
 * which would come out of the few kilobytes the kernel reserves for every
 * module's per-CPU data together (make module checks the .data..percpu
 * section stays small).  The pointer is set before the char device exists
 * and freed by prf_stack_exit() after it is gone and every instance is OFF
 * (prf_init(), prf_exit()): so it is valid in every user of it, the timers
 * (hard irq), the PMU source's handler (NMI or hard irq) and the offcpu
 * probe (a tracepoint), all of which run only while an instance is ON.
 */
struct prf_stack_scratch {
	u64 pc[PRF_STACK_DEPTH_MAX];
	unsigned long walk[PRF_WALK_ENTRIES];
};

struct prf_stack_scratch_cpu {
	struct prf_stack_scratch ctx[PRF_SCRATCH_NR];
};

static struct prf_stack_scratch_cpu __percpu *prf_stack_scratch;

int __init prf_stack_init(void)
{
	prf_stack_scratch = alloc_percpu(struct prf_stack_scratch_cpu);
	return prf_stack_scratch ? 0 : -ENOMEM;
}

void prf_stack_exit(void)
{
	free_percpu(prf_stack_scratch);
}

/* This CPU's scratch for @ctx (PRF_SCRATCH_*), interrupts or preemption off. */
void prf_stack_scratch_get(enum prf_scratch_ctx ctx, u64 **pc,
			   unsigned long **walk)
{
	struct prf_stack_scratch *sc = &this_cpu_ptr(prf_stack_scratch)->ctx[ctx];

	*pc = sc->pc;
	*walk = sc->walk;
}

static struct prf_stack_ent *prf_stack_ent(const struct prf_stacktab *st,
					   u32 i)
{
	return (void *)st->ent + (size_t)i * st->stride;
}

static void prf_stacks_release(struct kref *ref)
{
	struct prf_stacktab *st = container_of(ref, struct prf_stacktab, ref);

	kvfree(st->slot);
	kvfree(st->ent);
	kfree(st);
}

void prf_stacks_put(struct prf_stacktab *st)
{
	if (st)
		kref_put(&st->ref, prf_stacks_release);
}

/*
 * Sizes come from user space: a failure is ENOMEM, without a warning and
 * without the OOM killer.  At most PRF_STACKS_MAX records of
 * PRF_STACK_RECORD_SIZE(PRF_STACK_DEPTH_MAX) bytes: under INT_MAX, which
 * kvmalloc() would refuse with a warning.
 */
static struct prf_stacktab *prf_stacks_alloc(u32 depth, u32 capacity)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_stacktab *st;

	st = kzalloc(sizeof(*st), GFP_KERNEL_ACCOUNT);
	if (!st)
		return NULL;
	kref_init(&st->ref);
	st->depth = depth;
	st->capacity = capacity;
	st->stride = struct_size(st->ent, pc, depth);
	st->nslots = roundup_pow_of_two(2 * capacity);
	st->probe = min_t(u32, st->nslots, PRF_STACK_PROBE);
	st->ent = kvzalloc((size_t)capacity * st->stride, gfp);
	st->slot = kvcalloc(st->nslots, sizeof(*st->slot), gfp);
	if (!st->ent || !st->slot) {
		prf_stacks_put(st);
		return NULL;
	}
	return st;
}

/*
 * While OFF everything goes; while ON (PRF_CLEAR) only the counts, since
 * callbacks may be adding stacks: a stack whose count is 0 is not reported.
 * Entries past @used never had a count.
 */
void prf_stacks_zero(struct prf_stacktab *st, bool on)
{
	u32 i, used;

	if (!st)
		return;
	used = min_t(u32, atomic_read(&st->used), st->capacity);
	for (i = 0; i < used; i++)
		atomic64_set(&prf_stack_ent(st, i)->count, 0);
	if (!on) {
		memset(st->slot, 0, st->nslots * sizeof(*st->slot));
		atomic_set(&st->used, 0);
	}
	atomic64_set(&st->dropped, 0);
}

/* A PRF_SETSTACKS set-up the uapi takes: 0, or -EINVAL. */
int prf_stacks_check(const struct prf_stack_conf *conf)
{
	if (conf->flags || conf->pad)
		return -EINVAL;
	if (!conf->depth)
		return conf->capacity ? -EINVAL : 0;
	if (conf->depth > PRF_STACK_DEPTH_MAX || !conf->capacity ||
	    conf->capacity > PRF_STACKS_MAX)
		return -EINVAL;
	return 0;
}

/*
 * A new table for a checked @conf, not yet anyone's: *@st is it, or NULL
 * for depth 0 (stacks off); 0 or -ENOMEM.  prf_set_stacks() (prf_counts.c)
 * installs it.
 */
int prf_stacks_new(const struct prf_stack_conf *conf,
		   struct prf_stacktab **st)
{
	*st = NULL;
	if (!conf->depth)
		return 0;
	*st = prf_stacks_alloc(conf->depth, conf->capacity);
	return *st ? 0 : -ENOMEM;
}

/* The set-up (depth and capacity 0: off), for sysfs "stacks". */
void prf_get_stacks_conf(struct prf_inst *inst, struct prf_stack_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	mutex_lock(&inst->lock);
	if (inst->stacks) {
		conf->depth = inst->stacks->depth;
		conf->capacity = inst->stacks->capacity;
	}
	mutex_unlock(&inst->lock);
}

/* The counting side: hard irq, many CPUs at once, no lock (prf.h). */

static u64 prf_stack_hash(const u64 *pc, u32 nr, u32 flags)
{
	u64 h = ((u64)flags << 32 | nr) * 0x9e3779b97f4a7c15ULL;
	u32 i;

	for (i = 0; i < nr; i++)
		h = (rol64(h, 23) ^ pc[i]) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31);
}

static bool prf_stack_same(const struct prf_stack_ent *e, const u64 *pc,
			   u32 nr, u32 flags)
{
	return e->nr_pcs == nr && e->flags == flags &&
	       !memcmp(e->pc, pc, nr * sizeof(*pc));
}

/*
 * A fresh entry for the stack (not yet in the index, so no one else reads
 * it), or -1 when every entry is taken.
 */
static int prf_stack_new(struct prf_stacktab *st, const u64 *pc, u32 nr,
			 u32 flags)
{
	struct prf_stack_ent *e;
	int i = atomic_inc_return(&st->used) - 1;

	if ((u32)i >= st->capacity) {
		atomic_dec(&st->used);
		return -1;
	}
	e = prf_stack_ent(st, i);
	e->nr_pcs = nr;
	e->flags = flags;
	memcpy(e->pc, pc, nr * sizeof(*pc));
	memset(e->pc + nr, 0, (st->depth - nr) * sizeof(*pc));
	return i;
}

/*
 * An entry made for a stack another CPU put in the index first: handed
 * back when no later one was taken, else left unused (it is in no slot, so
 * never reported) until the table is zeroed.
 */
static void prf_stack_unnew(struct prf_stacktab *st, int i)
{
	if (i >= 0)
		atomic_cmpxchg(&st->used, i + 1, i);
}

/*
 * Finds the stack on its probe sequence, or puts it in the first free slot
 * of it: its entry number, or -1 when it could not be kept (counted in
 * st->dropped).  An entry is written whole before its slot is published (a
 * fully ordered cmpxchg) and read only after the slot (acquire), then never
 * changes but for its count, so a stack is compared without a lock.  Slots
 * are not freed while ON: a stack already kept is found before any free
 * slot.  Two CPUs adding the same stack race for the same free slot; the
 * loser finds the winner's stack there.
 */
static int prf_stack_find(struct prf_stacktab *st, const u64 *pc, u32 nr,
			  u32 flags)
{
	u64 h = prf_stack_hash(pc, nr, flags);
	u32 mask = st->nslots - 1, tag, v, i;
	atomic_t *slot;
	int own = -1;

	tag = (u32)(h >> (64 - PRF_STACK_TAG_BITS)) << PRF_STACK_IDX_BITS;
	for (i = 0; i < st->probe; i++) {
		slot = &st->slot[(h + i) & mask];
		v = atomic_read_acquire(slot);
		if (!v) {
			if (own < 0)
				own = prf_stack_new(st, pc, nr, flags);
			if (own < 0)
				break;
			v = atomic_cmpxchg(slot, 0, tag | (own + 1));
			if (!v) {
				v = tag | (own + 1);
				own = -1;	/* it is in the index now */
				goto found;
			}
			v = atomic_read_acquire(slot);
		}
		if ((v & ~PRF_STACK_IDX_MASK) == tag &&
		    prf_stack_same(prf_stack_ent(st, (v & PRF_STACK_IDX_MASK) - 1),
				   pc, nr, flags))
			goto found;
	}
	prf_stack_unnew(st, own);
	atomic64_inc(&st->dropped);
	return -1;
found:
	prf_stack_unnew(st, own);
	return (v & PRF_STACK_IDX_MASK) - 1;
}

static int prf_stack_add(struct prf_stacktab *st, const u64 *pc, u32 nr,
			 u32 flags)
{
	int i = prf_stack_find(st, pc, nr, flags);

	if (i >= 0)
		atomic64_inc(&prf_stack_ent(st, i)->count);
	return i;
}

/*
 * The offcpu mode keeps a stack when a wait starts and counts its time when
 * it ends (prf_offcpu.c): the entry, or -1.  A stack found before a clear
 * while ON is still the same entry after it (slots are kept while ON).
 */
int prf_stack_keep(struct prf_stacktab *st, const u64 *pc, u32 nr, bool more)
{
	return prf_stack_find(st, pc, nr, more ? PRF_STACK_TRUNCATED : 0);
}

void prf_stack_charge(struct prf_stacktab *st, int i, u64 v)
{
	if (i >= 0 && (u32)i < st->capacity)
		atomic64_add(v, &prf_stack_ent(st, i)->count);
}

/*
 * One sample counted in counters 0..N-1: the kernel stack interrupted by
 * @regs, or a user PC (PRF_FLAG_USERPC) alone.  Its entry, or -1 when the
 * table was full (the user objects table pairs it with a user chain).
 */
int prf_stack_count(struct prf_stacktab *st, struct pt_regs *regs, bool user)
{
	unsigned long *walk;
	bool more = false;
	u64 *pc;
	u32 nr;

	prf_stack_scratch_get(in_nmi() ? PRF_SCRATCH_NMI : PRF_SCRATCH_IRQ,
			      &pc, &walk);
	if (user) {
		pc[0] = instruction_pointer(regs);
		return prf_stack_add(st, pc, 1, PRF_STACK_USER);
	}
	nr = prf_stack_walk(regs, pc, st->depth, walk, &more);
	return prf_stack_add(st, pc, nr, more ? PRF_STACK_TRUNCATED : 0);
}

/*
 * Entry @i's PCs (st->depth of them, those past *@nr 0) and flags, for a
 * pair of the user objects table (prf_uobj.c), any context: false when no
 * such entry is in use.  An entry handed out by prf_stack_count() was whole
 * before its index was, and never changes while it is in use; the pair
 * table forgets its indices whenever this table's entries are forgotten
 * (both are zeroed together, and PRF_SETSTACKS zeroes it).
 */
bool prf_stack_read(struct prf_stacktab *st, u32 i, u64 *pc, u32 *nr,
		    u32 *flags)
{
	const struct prf_stack_ent *e;

	if (i >= min_t(u32, atomic_read(&st->used), st->capacity))
		return false;
	e = prf_stack_ent(st, i);
	*nr = e->nr_pcs;
	*flags = e->flags;
	memcpy(pc, e->pc, st->depth * sizeof(*pc));
	return true;
}

/* Reading */

/*
 * The table is pinned under inst->lock and copied out after unlocking
 * (prf.h), through a page of records gathered in the kernel.
 */
int prf_get_stacks(struct prf_inst *inst, struct prf_stacks __user *us)
{
	struct prf_stacks req;
	struct prf_stacktab *st;
	struct prf_stack_ent *e;
	struct prf_stack *rec;
	char __user *dst;
	size_t size = 0, fill = 0, room;
	u32 i, v, nr = 0;
	u64 count;
	char *buf = NULL;
	int ret = 0;

	if (copy_from_user(&req, us, sizeof(req)))
		return -EFAULT;
	if (req.flags)
		return -EINVAL;
	dst = u64_to_user_ptr(req.stacks);

	mutex_lock(&inst->lock);
	st = inst->stacks;
	if (st)
		kref_get(&st->ref);
	mutex_unlock(&inst->lock);

	if (st && req.nr) {
		size = PRF_STACK_RECORD_SIZE(st->depth);
		buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	room = PAGE_SIZE / (size ? size : 1);
	for (i = 0; buf && i < st->nslots && nr < req.nr; i++) {
		/* pairs with the cmpxchg in prf_stack_add(): the entry is whole */
		v = atomic_read_acquire(&st->slot[i]);
		if (!v)
			continue;
		e = prf_stack_ent(st, (v & PRF_STACK_IDX_MASK) - 1);
		count = atomic64_read(&e->count);
		if (!count)
			continue;
		rec = (struct prf_stack *)(buf + fill * size);
		rec->count = count;
		rec->nr_pcs = e->nr_pcs;
		rec->flags = e->flags;
		memcpy(rec + 1, e->pc, st->depth * sizeof(u64));
		nr++;
		if (++fill < room && nr < req.nr)
			continue;
		if (copy_to_user(dst, buf, fill * size)) {
			ret = -EFAULT;
			goto out;
		}
		dst += fill * size;
		fill = 0;
	}
	if (fill && copy_to_user(dst, buf, fill * size)) {
		ret = -EFAULT;
		goto out;
	}
	req.nr = nr;
	req.depth = st ? st->depth : 0;
	req.capacity = st ? st->capacity : 0;
	req.dropped = st ? atomic64_read(&st->dropped) : 0;
	if (copy_to_user(us, &req, sizeof(req)))
		ret = -EFAULT;
out:
	kfree(buf);
	prf_stacks_put(st);
	return ret;
}
