// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the offcpu mode (PRF_MODE_OFFCPU): the time tasks spend off a CPU,
 * counted against the kernel function where they blocked, from the
 * scheduler's sched_switch and sched_wakeup tracepoints.  The ABI is
 * uapi/linux/prf.h ("PRF_MODE_OFFCPU", PRF_SETSCHEDTEXT); how the mode is
 * set, turned ON and OFF and reset is prf_mode.c's, under the locks prf.h
 * ("Modes") decides.
 *
 * Context, decided here for both probes: the scheduler calls them with
 * interrupts disabled and a raw runqueue lock held, on every kernel of the
 * test bed and under PREEMPT_RT alike (sched_switch from __schedule() before
 * the switch, in the context of the task switched out; sched_wakeup from
 * try_to_wake_up() and the wake-up lists, under the task's pi_lock and its
 * runqueue's lock).  From 7.0 a tracepoint itself no longer disables
 * preemption, but these callers do.  So a probe cannot be preempted,
 * migrated or interrupted (but by an NMI, which touches nothing of this
 * file), and never runs in NMI: this_cpu_ptr() is valid, the per-CPU
 * scratch of the stack walk has one user at a time, and a slot a probe
 * holds BUSY is released within a few instructions.  Nothing here sleeps,
 * allocates or takes a lock: the waits table is claimed slot by slot with
 * cmpxchg(), the counters are atomic64_t.
 *
 * The waits table: one entry per task off a CPU (switched out while ON,
 * passing the filter, not yet switched in), keyed by its task_struct pointer, open addressing
 * over 1 << bits slots of 40 bytes (module parameter offcpu_slots, a power
 * of two, allocated by PRF_SETMODE and emptied at ON), at most
 * PRF_WAIT_PROBE probes.  A slot goes FREE -> BUSY (being filled) -> the
 * task -> BUSY (being read: by its wake-up, which puts the task back, or
 * by its switch-in, which leaves it GONE) and never back to FREE while ON.
 * A task is in the table at most once: it is added when it is switched
 * out, and it cannot be switched out again before it was switched in,
 * which takes its entry away.  A task_struct is not freed while its entry
 * is live, since a task exits only by running (its entry goes at that
 * switch-in) and its last switch-out, dead, is not added.  An entry added
 * before a clear while ON (PRF_CLEAR bumps the generation) is taken away
 * like any other, counting nothing.  So the table holds at most the tasks
 * waiting, and nothing of a task that exited.  A task the filter leaves
 * out takes no slot (its waits are not timed): however many other tasks
 * of the machine sleep, the filtered process's own waits find room.  A switch-out that finds no
 * slot counts in mode_dropped and its wait is not timed.
 */
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "prf.h"
#include "prf_modes.h"
#include "prf_compat.h"

#define PRF_WAIT_FREE	0UL
#define PRF_WAIT_GONE	1UL
#define PRF_WAIT_BUSY	2UL
#define PRF_WAIT_PROBE	16
/* Past this the table would take gigabytes: slots are clamped to it. */
#define PRF_WAIT_SLOTS_MAX	BIT(24)
/* How long a probe waits for a slot another CPU holds (see above). */
#define PRF_WAIT_SPIN	BIT(20)

/* prf_wait.site besides a counter index */
#define PRF_WAIT_RUNNABLE	U32_MAX		/* switched out runnable */

static unsigned int prf_offcpu_slots = 1U << 14;
module_param_named(offcpu_slots, prf_offcpu_slots, uint, 0444);
MODULE_PARM_DESC(offcpu_slots,
		 "Tasks off a CPU the offcpu mode tracks per instance (rounded up to a power of two, at most 2^24)");

struct prf_wait {
	unsigned long task;	/* PRF_WAIT_* or the task_struct */
	u64 out;		/* switched out, ns */
	u64 wake;		/* woken, ns; 0 while blocked */
	u32 site;		/* counter index or PRF_WAIT_RUNNABLE */
	s32 stack;		/* stack table entry, -1: none */
	u32 gen;		/* prf_offcpu.gen when switched out */
	u32 pad;
};

struct prf_offcpu {
	struct prf_wait *waits;		/* 1 << bits slots */
	unsigned int bits;
	atomic_t gen;			/* a clear makes earlier waits uncounted */
	atomic64_t dropped;		/* mode_dropped */
	struct tracepoint *tp_switch;	/* probes registered on these */
	struct tracepoint *tp_wakeup;
};

struct prf_offcpu *prf_offcpu_alloc(void)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_offcpu *off;

	off = kzalloc(sizeof(*off), GFP_KERNEL_ACCOUNT);
	if (!off)
		return NULL;
	off->bits = order_base_2(clamp_t(u32, prf_offcpu_slots,
					 PRF_WAIT_PROBE, PRF_WAIT_SLOTS_MAX));
	off->waits = kvcalloc(1UL << off->bits, sizeof(*off->waits), gfp);
	if (!off->waits) {
		kfree(off);
		return NULL;
	}
	return off;
}

void prf_offcpu_free(struct prf_offcpu *off)
{
	if (!off)
		return;
	kvfree(off->waits);
	kfree(off);
}

/* PRF_CLEAR and the like, under inst->lock: waits under way count nothing. */
void prf_offcpu_reset(struct prf_offcpu *off)
{
	if (!off)
		return;
	atomic_inc(&off->gen);
	atomic64_set(&off->dropped, 0);
}

u64 prf_offcpu_dropped(struct prf_offcpu *off)
{
	return off ? atomic64_read(&off->dropped) : 0;
}

static bool prf_in_sched(const struct prf_inst *inst, unsigned long addr)
{
	return addr >= inst->sched_start && addr < inst->sched_end;
}

/*
 * The blocking site of the task switching out (current): the counter
 * index of the first return address outside the scheduler's text, past the
 * frames of prf and of the tracepoint that lead into it; and with a stack
 * table, the stack from there outward (*@stack, else -1).  Counter N when
 * the scheduler's text is not set or no such frame is in the walk.
 */
static u32 prf_offcpu_site(struct prf_inst *inst, s32 *stack)
{
	const struct prf_table *tab = inst->tab;
	unsigned long site, *walk;
	u64 *pc;
	u32 n = 0, i = 0, j, nr;

	*stack = -1;
	if (!inst->sched_end)
		return tab->n;
	/* interrupts off (above): one user per CPU, the module's (prf_stack.c) */
	prf_stack_scratch_get(PRF_SCRATCH_SCHED, &pc, &walk);
#ifdef CONFIG_STACKTRACE
	n = stack_trace_save(walk, PRF_WALK_ENTRIES, 0);
#endif
	while (i < n && !prf_in_sched(inst, walk[i]))
		i++;
	while (i < n && prf_in_sched(inst, walk[i]))
		i++;
	if (i == n)
		return tab->n;
	site = walk[i];
	if (site < tab->slot[0].addr)
		return tab->n;
	/* as in the time mode, only counters 0..N-1 have a stack (uapi) */
	if (inst->stacks) {
		struct prf_stacktab *st = inst->stacks;

		nr = min(n - i, st->depth);
		for (j = 0; j < nr; j++)
			pc[j] = walk[i + j];
		/* a full walk may have been cut short too */
		*stack = prf_stack_keep(st, pc, nr,
					i + nr < n || n == PRF_WALK_ENTRIES);
	}
	return prf_table_lookup(tab, site) - tab->slot;
}

/*
 * The live entry of @task, held BUSY, or NULL.  A slot another CPU holds
 * BUSY may be @task's: it is waited for (released within a few
 * instructions, see above; the bound only guards against a bug).
 */
static struct prf_wait *prf_wait_claim(struct prf_offcpu *off,
				       unsigned long task)
{
	u32 mask = (1U << off->bits) - 1, h = hash_long(task, off->bits);
	struct prf_wait *w;
	unsigned long v;
	u32 i, spin;

	for (i = 0; i < PRF_WAIT_PROBE; i++) {
		w = &off->waits[(h + i) & mask];
		for (spin = 0; spin < PRF_WAIT_SPIN; spin++) {
			v = READ_ONCE(w->task);
			if (v != PRF_WAIT_BUSY)
				break;
			cpu_relax();
		}
		if (v == PRF_WAIT_FREE)
			return NULL;
		/* full barrier: the fields read after are the entry's */
		if (v == task && cmpxchg(&w->task, task, PRF_WAIT_BUSY) == task)
			return w;
	}
	return NULL;
}

/* @prev switching out on this CPU at @now: its wait starts. */
static void prf_offcpu_out(struct prf_inst *inst, struct prf_offcpu *off,
			   struct task_struct *prev, bool runnable, u64 now)
{
	u32 mask = (1U << off->bits) - 1;
	u32 h = hash_long((unsigned long)prev, off->bits);
	struct prf_wait *w;
	unsigned long v;
	s32 stack = -1;
	u32 i, site;

	if (!prf_event_passes(inst))
		return;
	if (runnable)
		site = PRF_WAIT_RUNNABLE;
	else
		site = prf_offcpu_site(inst, &stack);
	for (i = 0; i < PRF_WAIT_PROBE; i++) {
		w = &off->waits[(h + i) & mask];
		v = READ_ONCE(w->task);
		if (v <= PRF_WAIT_GONE &&
		    cmpxchg(&w->task, v, PRF_WAIT_BUSY) == v)
			goto fill;
	}
	atomic64_inc(&off->dropped);
	return;
fill:
	w->out = now;
	w->wake = 0;
	w->site = site;
	w->stack = stack;
	w->gen = atomic_read(&off->gen);
	/* the fields before the task: a claim reads them after */
	smp_store_release(&w->task, (unsigned long)prev);
}

/* @next switching in on this CPU at @now: its wait, if timed, counts. */
static void prf_offcpu_in(struct prf_inst *inst, struct prf_offcpu *off,
			  struct task_struct *next, u64 now)
{
	const struct prf_table *tab = inst->tab;
	struct prf_cpu_counts *cc;
	struct prf_wait *w;
	u64 out, wake, blocked, total;
	u32 site, gen;
	s32 stack;

	w = prf_wait_claim(off, (unsigned long)next);
	if (!w)
		return;
	out = w->out;
	wake = w->wake;
	site = w->site;
	stack = w->stack;
	gen = w->gen;
	/* the fields read before the slot can be taken again */
	smp_store_release(&w->task, PRF_WAIT_GONE);
	if (gen != (u32)atomic_read(&off->gen) || !prf_may_count(inst))
		return;

	total = now > out ? now - out : 0;
	cc = inst->cpu == PRF_ALL_CPUS ? this_cpu_ptr(inst->cpu_counts) :
					 &inst->counts;
	atomic64_add(total, &cc->tally[PRF_TALLY_SAMPLED]);
	if (site == PRF_WAIT_RUNNABLE) {
		atomic64_add(total, &cc->tally[PRF_TALLY_IDLE]);
		return;
	}
	blocked = wake > out && wake < now ? wake - out : total;
	if (site < tab->n)
		atomic64_add(blocked, &tab->slot[site].count);
	else
		atomic64_add(blocked, &cc->tally[PRF_TALLY_USER]);
	atomic64_add(total - blocked, &cc->tally[PRF_TALLY_IDLE]);
	if (stack >= 0)
		prf_stack_charge(inst->stacks, stack, blocked);
}

/*
 * One clock read for both ends, first: the switch's instant, so that the
 * walk of @prev's stack (microseconds, far more under emulation) is part
 * of the wait it starts, and not counted as time @prev ran.
 */
static void prf_tp_sched_switch(void *data, bool preempt,
				struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state)
{
	struct prf_inst *inst = data;
	struct prf_offcpu *off = prf_mode_offcpu(inst);
	u64 now = ktime_get_mono_fast_ns();

	prf_offcpu_in(inst, off, next, now);
	if (is_idle_task(prev) || (prev_state & TASK_DEAD))
		return;
	if (inst->cpu != PRF_ALL_CPUS && inst->cpu != smp_processor_id())
		return;
	/*
	 * Some kernels (6.1) pass the state __schedule() read before it found
	 * a signal pending: the task, left runnable (its state set back to
	 * TASK_RUNNING), is reported sleeping, and no wake-up follows.  Later
	 * ones pass the state after that test.  The task's own state, read
	 * under its runqueue's lock, which the scheduler holds, tells on both.
	 */
	prf_offcpu_out(inst, off, prev, preempt || prev_state == TASK_RUNNING ||
		       READ_ONCE(prev->__state) == TASK_RUNNING, now);
}

/* A blocked task made runnable: the rest of its wait is for a CPU. */
static void prf_tp_sched_wakeup(void *data, struct task_struct *p)
{
	struct prf_offcpu *off = prf_mode_offcpu(data);
	struct prf_wait *w;

	w = prf_wait_claim(off, (unsigned long)p);
	if (!w)
		return;
	if (w->site != PRF_WAIT_RUNNABLE && !w->wake)
		w->wake = ktime_get_mono_fast_ns();
	/* the wake-up written before the entry is live again */
	smp_store_release(&w->task, (unsigned long)p);
}

struct prf_tp_find {
	struct tracepoint *sw, *wk;
};

static void prf_tp_find_one(struct tracepoint *tp, void *priv)
{
	struct prf_tp_find *f = priv;

	if (!strcmp(tp->name, "sched_switch"))
		f->sw = tp;
	else if (!strcmp(tp->name, "sched_wakeup"))
		f->wk = tp;
}

/*
 * Turning ON (prf_mode_set_state(): inst->mode_lock held, inst->on set, no
 * probe of this instance registered): the table emptied, the probes
 * registered, the wake-up's first so that no wait starts without it.  The
 * scheduler's tracepoints are not exported by name to modules: they are
 * found among the kernel's own.
 */
int prf_offcpu_on(struct prf_inst *inst)
{
	struct prf_offcpu *off = prf_mode_offcpu(inst);
	struct prf_tp_find f = { };
	int ret;

	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		return -EOPNOTSUPP;
	for_each_kernel_tracepoint(prf_tp_find_one, &f);
	if (!f.sw || !f.wk)
		return -ENODEV;
	memset(off->waits, 0, sizeof(*off->waits) << off->bits);
	atomic_inc(&off->gen);
	ret = tracepoint_probe_register(f.wk, prf_tp_sched_wakeup, inst);
	if (ret)
		goto out;
	ret = tracepoint_probe_register(f.sw, prf_tp_sched_switch, inst);
	if (ret) {
		tracepoint_probe_unregister(f.wk, prf_tp_sched_wakeup, inst);
		goto out;
	}
	off->tp_switch = f.sw;
	off->tp_wakeup = f.wk;
	return 0;
out:
	tracepoint_synchronize_unregister();
	return ret;
}

/* Turning OFF: when it returns no probe of the instance runs. */
void prf_offcpu_off(struct prf_inst *inst)
{
	struct prf_offcpu *off = prf_mode_offcpu(inst);

	if (!off || !off->tp_switch)
		return;
	tracepoint_probe_unregister(off->tp_switch, prf_tp_sched_switch, inst);
	tracepoint_probe_unregister(off->tp_wakeup, prf_tp_sched_wakeup, inst);
	tracepoint_synchronize_unregister();
	off->tp_switch = NULL;
	off->tp_wakeup = NULL;
}

/* PRF_SETSCHEDTEXT: fixed while ON, as everything the probes read. */
int prf_set_sched_text(struct prf_inst *inst, const struct prf_text_range *r)
{
	int ret = 0;

	if (r->start > r->end || !r->start != !r->end)
		return -EINVAL;
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
	} else {
		inst->sched_start = r->start;
		inst->sched_end = r->end;
	}
	mutex_unlock(&inst->lock);
	return ret;
}

void prf_get_sched_text(struct prf_inst *inst, struct prf_text_range *r)
{
	mutex_lock(&inst->lock);
	r->start = inst->sched_start;
	r->end = inst->sched_end;
	mutex_unlock(&inst->lock);
}
