// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the counts outside the table: the per-CPU tallies of an instance,
 * its per-process tally's zeroing, prf_reset_counts(), a new stack table
 * installed with the pairs that named the old one zeroed (prf_set_stacks()),
 * and which CPUs an instance covers and samples.  Locking: prf.h.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/uaccess.h>

#include "prf.h"

/* The CPUs an instance may have a timer on (whatever its flags). */
bool prf_covers(const struct prf_inst *inst, unsigned int cpu)
{
	return inst->cpu == PRF_ALL_CPUS || inst->cpu == cpu;
}

/* @cpu's tallies of @inst, which must cover @cpu. */
static struct prf_cpu_counts *prf_counts_of(struct prf_inst *inst,
					    unsigned int cpu)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return per_cpu_ptr(inst->cpu_counts, cpu);
	return &inst->counts;
}

struct prf_cpu_counts *prf_counts_here(struct prf_inst *inst)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return this_cpu_ptr(inst->cpu_counts);
	return &inst->counts;
}

/*
 * Bytes of tallies an instance holds: one set per possible CPU for all
 * CPUs, one set for one CPU, both for a private instance (PRF_SETCPU).
 */
size_t prf_counts_mem(const struct prf_inst *inst)
{
	size_t mem = 0;

	if (inst->cpu_counts)
		mem += num_possible_cpus() * sizeof(struct prf_cpu_counts);
	if (inst->cpu != PRF_ALL_CPUS || inst->private)
		mem += sizeof(struct prf_cpu_counts);
	return mem;
}

/* Every set the instance has, covered now or not (PRF_SETCPU). */
void prf_tallies_zero(struct prf_inst *inst)
{
	unsigned int cpu, t;

	for (t = 0; t < PRF_NR_TALLIES; t++)
		atomic64_set(&inst->counts.tally[t], 0);
	if (!inst->cpu_counts)
		return;
	for_each_possible_cpu(cpu)
		for (t = 0; t < PRF_NR_TALLIES; t++)
			atomic64_set(&per_cpu_ptr(inst->cpu_counts, cpu)->tally[t],
				     0);
}

/*
 * The counts outside the table, for a new table, a clear, a filter, a CPU
 * or a source; under inst->lock, and cpus_read_lock() while ON (the PMU
 * source's totals, prf.h).  The modes' and the sources' own counts are
 * theirs to zero: inst->reset_above, which the instance's maker gives,
 * does it, so that this floor calls none of theirs by name.
 */
void prf_reset_counts(struct prf_inst *inst)
{
	lockdep_assert_held(&inst->lock);
	prf_tallies_zero(inst);
	prf_tasks_zero(inst->tasks, inst->on);
	prf_stacks_zero(inst->stacks, inst->on);
	prf_uobjs_zero(inst->uobjs, inst->on);
	inst->reset_above(inst);
	inst->on_ns = 0;
	inst->on_since = ktime_get();
}

/*
 * PRF_SETSTACKS: a new stack table, or none, in place of the instance's,
 * while OFF (-EBUSY while ON, the instance unchanged).  The user objects'
 * pairs name the old table's entries (uapi): they are zeroed with the
 * swap, under inst->lock, so that no reader or ON finds the one without
 * the other.  The table's maker is prf_stack.c; installing it, which
 * touches both tables, is this floor's, as every other zeroing is.
 */
int prf_set_stacks(struct prf_inst *inst, const struct prf_stack_conf *conf)
{
	struct prf_stacktab *st, *old;
	int ret;

	ret = prf_stacks_check(conf);
	if (ret)
		return ret;
	/* no allocation for an instance that cannot take it */
	if (READ_ONCE(inst->on))
		return -EBUSY;
	ret = prf_stacks_new(conf, &st);
	if (ret)
		return ret;
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old = st;	/* not installed */
	} else {
		old = inst->stacks;
		inst->stacks = st;
		prf_uobjs_zero(inst->uobjs, false);
	}
	mutex_unlock(&inst->lock);
	prf_stacks_put(old);
	return ret;
}

u64 prf_tally_read(struct prf_inst *inst, enum prf_tally t)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		if (prf_covers(inst, cpu))
			sum += atomic64_read(&prf_counts_of(inst, cpu)->tally[t]);
	return sum;
}

/*
 * PRF_GETCPUTALLIES (uapi): the tallies are atomics the instance holds for
 * its lifetime, read without inst->lock; only which set a CPU's are in
 * depends on inst->cpu (PRF_SETCPU, under that lock), taken once.  A stale
 * choice reads the set the instance used a moment ago, which it still
 * has.  Entries gather on the stack and go out a few at a time.
 */
int prf_get_cpu_tallies(struct prf_inst *inst,
			struct prf_cpu_tallies __user *ut)
{
	struct prf_cpu_tally chunk[4], *e;
	struct prf_cpu_tally __user *dst;
	struct prf_cpu_tallies req;
	struct prf_cpu_counts *cc;
	u32 nr = 0, filled = 0, ncpus = 0;
	unsigned int cpu;
	int icpu;

	if (copy_from_user(&req, ut, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.pad)
		return -EINVAL;
	dst = u64_to_user_ptr(req.cpus);
	mutex_lock(&inst->lock);
	icpu = inst->cpu;
	mutex_unlock(&inst->lock);

	for_each_possible_cpu(cpu) {
		if (icpu != PRF_ALL_CPUS && icpu != (int)cpu)
			continue;
		ncpus++;
		if (nr + filled >= req.nr)
			continue;
		cc = icpu == PRF_ALL_CPUS ? per_cpu_ptr(inst->cpu_counts, cpu) :
					    &inst->counts;
		e = &chunk[filled];
		memset(e, 0, sizeof(*e));
		e->cpu = cpu;
		e->sampled = atomic64_read(&cc->tally[PRF_TALLY_SAMPLED]);
		e->filtered = atomic64_read(&cc->tally[PRF_TALLY_FILTERED]);
		e->user = atomic64_read(&cc->tally[PRF_TALLY_USER]);
		e->idle = atomic64_read(&cc->tally[PRF_TALLY_IDLE]);
		e->outside = atomic64_read(&cc->tally[PRF_TALLY_OUTSIDE]);
		e->lost = atomic64_read(&cc->tally[PRF_TALLY_LOST]);
		e->noregs = atomic64_read(&cc->tally[PRF_TALLY_NOREGS]);
		e->nmi = atomic64_read(&cc->tally[PRF_TALLY_NMI]);
		if (++filled < ARRAY_SIZE(chunk))
			continue;
		if (copy_to_user(dst + nr, chunk, sizeof(chunk)))
			return -EFAULT;
		nr += filled;
		filled = 0;
		cond_resched();
	}
	if (filled && copy_to_user(dst + nr, chunk, filled * sizeof(*chunk)))
		return -EFAULT;
	req.nr = nr + filled;
	req.ncpus = ncpus;
	return copy_to_user(ut, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * While OFF everything goes (the processes kept too); while ON (PRF_CLEAR)
 * only the counts, since callbacks may be claiming slots: a process whose
 * counts are 0 is not reported.
 */
void prf_tasks_zero(struct prf_tasktab *tt, bool on)
{
	struct prf_task_slot *ts;
	u32 i;

	if (!tt)
		return;
	for (i = 0; i < tt->nslots; i++) {
		ts = &tt->slot[i];
		atomic64_set(&ts->kernel, 0);
		atomic64_set(&ts->user, 0);
		if (!on) {
			ts->seq = 0;
			atomic_set(&ts->tgid, 0);
		}
	}
	if (!on)
		atomic_set(&tt->used, 0);
	atomic64_set(&tt->dropped, 0);
}

/*
 * Isolated from kernel housekeeping: nohz_full= (no timer housekeeping) or
 * isolcpus= (out of the scheduler domains).  On 7.3 the masks can be
 * replaced at run time (cpuset isolated partitions) and are published under
 * RCU (lockdep reports a read outside a read-side section); on older
 * kernels the section costs nothing.  The answer is a snapshot either way:
 * a CPU isolated while ON keeps its timer until the next ON.
 */
static bool prf_cpu_isolated(unsigned int cpu)
{
	bool isolated;

	rcu_read_lock();
	isolated = !cpumask_test_cpu(cpu, housekeeping_cpumask(HK_TYPE_TIMER)) ||
		   !cpumask_test_cpu(cpu, housekeeping_cpumask(HK_TYPE_DOMAIN));
	rcu_read_unlock();
	return isolated;
}

/*
 * The CPUs an instance samples when online: /dev/prfN its CPU, /dev/prf
 * every CPU but the isolated ones, unless PRF_FLAG_ISOLATED.  Flags only
 * change while OFF; ON charges the CPUs this gives to the sample budget
 * (inst->charged, prf_budget.c), and timers are started there alone while
 * ON, even if isolation changes in between; stopping cancels every armed
 * timer.
 */
bool prf_samples(const struct prf_inst *inst, unsigned int cpu)
{
	if (inst->cpu != PRF_ALL_CPUS)
		return inst->cpu == cpu;
	return (inst->flags & PRF_FLAG_ISOLATED) || !prf_cpu_isolated(cpu);
}

/*
 * The number of online CPUs @inst samples (as it is set now, ON or OFF),
 * and those CPUs in @mask unless it is NULL.
 */
unsigned int prf_cpus_sampled(struct prf_inst *inst, struct cpumask *mask)
{
	unsigned int cpu, nr = 0;

	lockdep_assert_held(&inst->lock);
	if (mask)
		cpumask_clear(mask);
	for_each_online_cpu(cpu) {
		if (!prf_samples(inst, cpu))
			continue;
		nr++;
		if (mask)
			cpumask_set_cpu(cpu, mask);
	}
	return nr;
}

/* @inst's timer (and PMU counter) for @cpu, which it covers */
struct prf_timer *prf_timer_of(struct prf_inst *inst, unsigned int cpu)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return per_cpu_ptr(inst->timers, cpu);
	return &inst->timer;
}
