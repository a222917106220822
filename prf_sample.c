// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the sample path: a sample of the interrupted registers in, the
 * right counter incremented (the table's, a tally, the per-process tally,
 * a stack, a user object), and the filter an event of a mode passes.  It
 * is shared by the timer callback (hard irq) and the PMU source's overflow
 * handler (prf_pmu.c: hard irq or NMI): everything it does is allowed in
 * NMI (prf_pmu.c, at its top).  The rules that make it lock-free are in
 * prf.h.
 */
#include <linux/cgroup.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <asm/ptrace.h>

#include "prf.h"

/* Sampling */

/*
 * Idle as the scheduler counts it: the idle task, interrupted with nothing
 * but this sampling interrupt beneath us (no other hardirq, softirq or NMI).
 * The sampling interrupt is a hard irq (the timer, or the PMU's overflow
 * without NMI), or an NMI, whose entry adds NMI_OFFSET and HARDIRQ_OFFSET.
 */
static bool prf_interrupted_idle(void)
{
	unsigned long own = in_nmi() ? NMI_OFFSET + HARDIRQ_OFFSET :
				       HARDIRQ_OFFSET;

	return is_idle_task(current) && irq_count() == own;
}

/*
 * Whether the interrupted task passes the filter (prf.h, "Filters").  Hard
 * irq: current's struct pid and css_set cannot go while it runs, and the
 * cgroup's ancestors are read under RCU.
 */
bool prf_filter_match(const struct prf_kfilter *kf)
{
	bool in;

	if (kf->type == PRF_FILTER_TGID)
		return task_tgid(current) == kf->pid;
	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(current), kf->cgrp);
	rcu_read_unlock();
	return in;
}

/*
 * A process is named as ps names it, by its main thread: a sample of that
 * thread whose name is not the slot's (the process exec()ed another
 * program, or renamed itself) writes it, under the slot's sequence (prf.h).
 * The claim may have named the process by another thread, whose name
 * stands until the main thread is sampled.
 */
static void prf_tasks_rename(struct prf_task_slot *ts)
{
	u32 seq = READ_ONCE(ts->seq);

	if (!thread_group_leader(current) || !seq ||
	    !strncmp(ts->comm, current->comm, sizeof(ts->comm) - 1))
		return;
	WRITE_ONCE(ts->seq, seq + 1);
	smp_wmb();	/* odd before the name changes */
	memcpy(ts->comm, current->comm, sizeof(ts->comm) - 1);
	ts->comm[sizeof(ts->comm) - 1] = '\0';
	/* the name before the even sequence: PRF_GETTASKS reads it after */
	smp_store_release(&ts->seq, seq + 2);
}

/*
 * The per-process tally (prf.h): find the current process's slot, or claim
 * the first free one on its probe sequence.  A process lands in the first
 * free slot of its sequence and slots are not freed while ON, so a process
 * already kept is always found before a free slot.  Two CPUs claiming for
 * the same process race on the same first free slot: the loser sees the
 * winner's tgid there and uses it.
 */
static void prf_tasks_count(struct prf_tasktab *tt, bool user)
{
	int tgid = current->tgid, old;
	struct prf_task_slot *ts;
	u32 h, i;

	if (unlikely(!tgid))	/* an idle task in an interrupt or softirq */
		return;
	h = hash_32((u32)tgid, tt->bits);
	for (i = 0; i < tt->probe; i++) {
		ts = &tt->slot[(h + i) & (tt->nslots - 1)];
		old = atomic_read(&ts->tgid);
		if (old == tgid)
			goto found;
		if (old)
			continue;
		if (atomic_inc_return(&tt->used) > tt->capacity) {
			atomic_dec(&tt->used);
			break;
		}
		old = atomic_cmpxchg(&ts->tgid, 0, tgid);
		if (!old) {
			memcpy(ts->comm, current->comm, sizeof(ts->comm) - 1);
			ts->comm[sizeof(ts->comm) - 1] = '\0';
			/* comm before seq: PRF_GETTASKS reads it after */
			smp_store_release(&ts->seq, 2);
			goto counted;
		}
		atomic_dec(&tt->used);
		if (old == tgid)
			goto found;
	}
	atomic64_inc(&tt->dropped);
	return;
found:
	prf_tasks_rename(ts);
counted:
	atomic64_inc(user ? &ts->user : &ts->kernel);
}

/*
 * One sample of the interrupted @regs, counted in @inst (@cc: this CPU's
 * tallies of it).  Hard irq or NMI, with no lock (prf.h).
 */
void prf_sample(struct prf_inst *inst, struct prf_cpu_counts *cc,
		struct pt_regs *regs)
{
	const struct prf_table *tab = inst->tab;
	bool user, in_table = false;
	u64 pc;

	if (!prf_may_count(inst))
		return;		/* a clear is at work (prf.h) */
	if (unlikely(!regs)) {
		atomic64_inc(&cc->tally[PRF_TALLY_NOREGS]);
		return;
	}
	/* counted apart from the attribution below, to check it */
	atomic64_inc(&cc->tally[PRF_TALLY_SAMPLED]);
	if (in_nmi())
		atomic64_inc(&cc->tally[PRF_TALLY_NMI]);
	if (inst->filter.type != PRF_FILTER_NONE &&
	    !prf_filter_match(&inst->filter)) {
		atomic64_inc(&cc->tally[PRF_TALLY_FILTERED]);
		return;
	}
	user = user_mode(regs);
	pc = instruction_pointer(regs);
	if (user) {
		if ((inst->flags & PRF_FLAG_USERPC) && pc >= tab->slot[0].addr) {
			in_table = true;
		} else {
			atomic64_inc(&cc->tally[PRF_TALLY_USER]);
			if (inst->uobjs)
				prf_uobj_note(inst->uobjs, regs);
		}
	} else if (prf_interrupted_idle()) {
		atomic64_inc(&cc->tally[PRF_TALLY_IDLE]);
		return;		/* idle is not tallied per process */
	} else if (unlikely(pc < tab->slot[0].addr)) {
		atomic64_inc(&cc->tally[PRF_TALLY_OUTSIDE]);
	} else {
		in_table = true;
	}
	if (in_table) {
		atomic64_inc(&prf_table_lookup(tab, pc)->count);
		/* the counters 0..N-1, and only they, have a stack (uapi) */
		if (inst->stacks) {
			int stack = prf_stack_count(inst->stacks, regs, user);

			/* its user side, for a pair (prf_uobj.c) */
			if (!user && stack >= 0 && inst->uobjs)
				prf_uobj_note_pair(inst->uobjs, stack);
		}
	}
	if (inst->tasks)
		prf_tasks_count(inst->tasks, user);
}

/*
 * The filter, for an event in the current task's context.  The cgroup test
 * needs RCU watching: where it is not (the idle task, entry code) no
 * filter could match anyway.
 */
bool prf_event_passes(struct prf_inst *inst)
{
	if (inst->filter.type == PRF_FILTER_NONE)
		return true;
	if (inst->filter.type == PRF_FILTER_CGROUP && !rcu_is_watching())
		return false;
	return prf_filter_match(&inst->filter);
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
 *   nothing, on 7.x it gives back what 6.x gave (a clear while ON waits for
 *   it: prf.h).  PREEMPT_RT alike (6.1-rt's
 *   tracepoints ran the same code with preemption off): it takes no lock
 *   that sleeps (atomics, cmpxchg(), rcu_read_lock() for a cgroup filter).
 *   A free touches nothing per CPU but disables preemption the same way,
 *   for the clear alone: the hash is lock-free.  Neither runs in NMI:
 *   kmalloc_nolock() and kfree_nolock(), the only allocator calls allowed
 *   there (7.x), fire no tracepoint; nothing here would mind (no lock, no
 *   allocation).
 * - The calls mode's ftrace callback.  Its ops has FTRACE_OPS_FL_RECURSION,
 *   so ftrace never calls it directly (nor does a call-ops site, arm64 6.3+)
 *   but through ftrace_ops_assist_func() or the list function, both inside
 *   trace_test_and_set_recursion(), which disables preemption: on 6.1 and on
 *   7.3 alike.
 */
struct prf_cpu_counts *prf_event_counts(struct prf_inst *inst)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return this_cpu_ptr(inst->cpu_counts);
	if (inst->cpu != raw_smp_processor_id())
		return NULL;
	return &inst->counts;
}
