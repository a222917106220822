// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the sample budget: a ceiling on the sampling interrupts every
 * instance ON together may take on one CPU.  Each instance in the time
 * mode charges its rate to every CPU it samples from ON to OFF; an ON that
 * would take a CPU past the module parameter sample_budget is refused with
 * ENOSPC (uapi/linux/prf.h).  Locking is in prf.h ("The sample budget").
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
 * The CPUs @inst would sample now if it were turned ON: every possible CPU
 * prf_samples() allows, so that a CPU that comes online later is charged
 * already.
 */
static void prf_budget_cpus(struct prf_inst *inst, struct cpumask *mask)
{
	unsigned int cpu;

	cpumask_clear(mask);
	for_each_possible_cpu(cpu)
		if (prf_samples(inst, cpu))
			cpumask_set_cpu(cpu, mask);
}

/*
 * Turning ON in the time mode: charges inst->hz to the CPUs it samples
 * (they go into inst->charged), or changes nothing and says ENOSPC when one
 * of them would go past the budget.
 */
int prf_budget_charge(struct prf_inst *inst)
{
	u64 budget = READ_ONCE(prf_sample_budget);
	unsigned int cpu;
	int ret = 0;

	lockdep_assert_held(&inst->lock);
	prf_budget_cpus(inst, inst->charged);
	mutex_lock(&prf_budget_lock);
	for_each_cpu(cpu, inst->charged) {
		if ((u64)per_cpu(prf_budget_use, cpu) + inst->hz > budget) {
			ret = -ENOSPC;
			break;
		}
	}
	if (!ret) {
		for_each_cpu(cpu, inst->charged)
			per_cpu(prf_budget_use, cpu) += inst->hz;
		inst->charged_hz = inst->hz;
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
		/* nothing charged: OFF, or in an event mode */
		mine = inst->charged_hz ? cpumask_test_cpu(cpu, inst->charged) :
					  prf_samples(inst, cpu);
		if (mine)
			used = max(used, per_cpu(prf_budget_use, cpu));
	}
	mutex_unlock(&prf_budget_lock);
	info->budget_used = used;
}
