// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the sample budget: a ceiling on the sampling interrupts every
 * instance ON together may take on one CPU.  Each instance charges a
 * rate to every CPU it samples from ON to OFF (its caller says which: the
 * time mode its hz, an event mode its ops' charge); an ON
 * that would take a CPU past the module parameter sample_budget is refused
 * with ENOSPC (uapi/linux/prf.h).  The PMU source with a period raises its
 * charge while ON to the rate it measures (prf_budget_raise(),
 * prf_pmu.c).  Locking is in prf.h ("The sample budget").
 */
#include <linux/cpumask.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include "prf.h"

/*
 * Four instances at PRF_HZ_MAX on a CPU: /dev/prf and /dev/prfN together
 * at the highest rate, and two private profiles beside them.  A sample
 * costs about 1.1 us (bench/RESULTS.md at 10 kHz, most of it the timer
 * interrupt itself), so the default bounds prf to some 5 % of each CPU;
 * a sample that walks a call stack costs more, and is counted as one all
 * the same (a lower budget bounds it in turn).
 */
static unsigned int prf_sample_budget = 4 * PRF_HZ_MAX;
module_param_named(sample_budget, prf_sample_budget, uint, 0644);
MODULE_PARM_DESC(sample_budget,
		 "Most samples per second on one CPU, every instance ON together");

static DEFINE_MUTEX(prf_budget_lock);
/* Samples per second charged to each CPU, under prf_budget_lock. */
static DEFINE_PER_CPU(u32, prf_budget_use);

/*
 * Whether @inst, turned ON now, would cost @cpu: in the time mode every
 * possible CPU prf_samples() allows, so that a CPU that comes online later
 * is charged already; in an event mode every possible CPU, since its
 * probes run wherever the events happen, whatever the filter and the CPU.
 */
static bool prf_budget_costs(struct prf_inst *inst, unsigned int cpu)
{
	return inst->mode != PRF_MODE_TIME || prf_samples(inst, cpu);
}

static void prf_budget_cpus(struct prf_inst *inst, struct cpumask *mask)
{
	unsigned int cpu;

	cpumask_clear(mask);
	for_each_possible_cpu(cpu)
		if (prf_budget_costs(inst, cpu))
			cpumask_set_cpu(cpu, mask);
}

/*
 * Turning ON: charges @rate, in samples per second (uapi), to the CPUs
 * @inst costs (they go into inst->charged), or changes nothing and says
 * ENOSPC when one of them would go past the budget.  The time mode
 * charges its hz (prf_main.c), an event mode its PRF_CHARGE_* (prf_mode.c);
 * with the PMU source and a period, hz is only the start: prf_pmu.c
 * measures the counters' rate and raises the charge (prf_budget_raise()).
 */
int prf_budget_charge(struct prf_inst *inst, u32 rate)
{
	u64 budget = READ_ONCE(prf_sample_budget);
	unsigned int cpu;
	int ret = 0;

	lockdep_assert_held(&inst->lock);
	prf_budget_cpus(inst, inst->charged);
	mutex_lock(&prf_budget_lock);
	for_each_cpu(cpu, inst->charged) {
		if ((u64)per_cpu(prf_budget_use, cpu) + rate > budget) {
			ret = -ENOSPC;
			break;
		}
	}
	if (!ret) {
		for_each_cpu(cpu, inst->charged)
			per_cpu(prf_budget_use, cpu) += rate;
		inst->charged_hz = rate;
	}
	mutex_unlock(&prf_budget_lock);
	if (ret)
		cpumask_clear(inst->charged);
	return ret;
}

/* Turning OFF: gives back what prf_budget_charge() took. */
void prf_budget_uncharge(struct prf_inst *inst)
{
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	mutex_lock(&prf_budget_lock);
	for_each_cpu(cpu, inst->charged)
		per_cpu(prf_budget_use, cpu) -= inst->charged_hz;
	mutex_unlock(&prf_budget_lock);
	cpumask_clear(inst->charged);
	inst->charged_hz = 0;
}

/*
 * While ON: raises @inst's charge towards @want samples a second on each
 * CPU it charged, as far as the budget allows, and returns the charge now
 * (never less than before: an instance ON is never charged less, nor
 * refused what it had).  The budget read now bounds the raise: a new value
 * of the parameter applies to what an instance asks for next.
 */
u32 prf_budget_raise(struct prf_inst *inst, u32 want)
{
	u64 budget = READ_ONCE(prf_sample_budget);
	u32 old = inst->charged_hz, room = want;
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	if (!old || want <= old)
		return old;
	mutex_lock(&prf_budget_lock);
	for_each_cpu(cpu, inst->charged) {
		u64 free = budget - min_t(u64, budget,
					  per_cpu(prf_budget_use, cpu));

		room = min_t(u64, room, old + free);
	}
	if (room > old) {
		for_each_cpu(cpu, inst->charged)
			per_cpu(prf_budget_use, cpu) += room - old;
		inst->charged_hz = room;
	}
	mutex_unlock(&prf_budget_lock);
	return inst->charged_hz;
}

/*
 * prf_info.sample_budget and .budget_used: the budget, and the samples per
 * second charged to the busiest of the CPUs @inst samples (those charged
 * while it is ON, else those it would charge), its own rate included while
 * ON.  An OFF instance can be turned ON at up to the difference.
 */
void prf_budget_info(struct prf_inst *inst, struct prf_info *info)
{
	unsigned int cpu;
	u32 used = 0;
	bool mine;

	lockdep_assert_held(&inst->lock);
	info->sample_budget = READ_ONCE(prf_sample_budget);
	mutex_lock(&prf_budget_lock);
	for_each_possible_cpu(cpu) {
		/* nothing charged: OFF */
		mine = inst->charged_hz ? cpumask_test_cpu(cpu, inst->charged) :
					  prf_budget_costs(inst, cpu);
		if (mine)
			used = max(used, per_cpu(prf_budget_use, cpu));
	}
	mutex_unlock(&prf_budget_lock);
	info->budget_used = used;
}
