// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the instances as the CPUs see them: the list of every instance,
 * CPU hotplug, PRF_SETSOURCE, and the sources registered, started and
 * stopped on the CPUs an instance was charged for.  Decided here:
 *
 * Every instance, shared or private, is on prf_inst_list (prf_inst.c) so
 * that the CPU hotplug callbacks reach it.  The list changes only with
 * cpus_read_lock() and prf_list_lock (a mutex) held, in that order; the
 * hotplug callbacks run with the hotplug lock held for write, which
 * excludes every writer, so they walk the list with no lock of ours (and
 * take no lock of ours, so there is nothing to order against them; the
 * PMU source's counters take perf's own, below).  An instance
 * leaves the list before it is freed and after it was turned OFF.
 * prf_list_lock is never held while taking inst->lock, nor the reverse.
 *
 * Timers are pinned hard-irq hrtimers, one per (instance, CPU): /dev/prf has
 * one on every CPU up, /dev/prfN one on CPU N.  A CPU is "up" for prf from
 * its pass through prf's hotplug state on the way up to its pass on the way
 * down (the set prf_hp_up); a CPU can stay online below
 * that state (hotplug/target), and a timer started there would never be
 * cancelled by the offline callback.  Each timer is started on its own CPU
 * (smp_call_function_single() or the online callback) only while that CPU
 * is up, and cancelled by the offline callback, so a sample is always taken
 * on the CPU it is counted for.  timer->armed says that a timer was started
 * and not cancelled since; turning OFF cancels every armed timer, whatever
 * the CPU's state.  prf_hp_up and the armed flags change only with the
 * hotplug lock held for write (the callbacks) or with cpus_read_lock() and
 * inst->lock held (ON and OFF).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "prf.h"

/* CPUs that passed prf's hotplug state on their way up (see above). */
static struct cpumask prf_hp_up;

/*
 * The sources, by PRF_SOURCE_*: a new one is its own file, its ops here
 * and its value in the uapi.
 */
static const struct prf_source_ops *const prf_sources[] = {
	[PRF_SOURCE_TIMER] = &prf_timer_source,
	[PRF_SOURCE_PMU] = &prf_pmu_source,
};

/* @inst's source: inst->source changes only while OFF (PRF_SETSOURCE). */
static const struct prf_source_ops *prf_source_of(const struct prf_inst *inst)
{
	return prf_sources[inst->source];
}

/*
 * Every source's totals, whichever is set: an instance keeps a source's
 * until this reset (the PMU source's after a change to the timer).  For
 * prf_reset_counts(), under its locks.
 */
void prf_sources_reset(struct prf_inst *inst)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prf_sources); i++)
		if (prf_sources[i]->reset)
			prf_sources[i]->reset(inst);
}

/* Every source's part of PRF_GETINFO, like prf_sources_reset(). */
void prf_sources_info(struct prf_inst *inst, struct prf_info *info)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prf_sources); i++)
		if (prf_sources[i]->info)
			prf_sources[i]->info(inst, info);
}

/* PRF_SETSOURCE and PRF_GETSOURCE */

int prf_set_source(struct prf_inst *inst, const struct prf_source *src)
{
	int ret = 0;

	if (src->flags || src->pad)
		return -EINVAL;
	if (src->source >= ARRAY_SIZE(prf_sources) ||
	    !prf_sources[src->source]->check(src))
		return -EINVAL;
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
	} else {
		inst->source = src->source;
		inst->event = src->event;
		inst->period = src->period;
		/* a sample means something else now */
		if (inst->tab)
			prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	return ret;
}

void prf_get_source(struct prf_inst *inst, struct prf_source *src)
{
	memset(src, 0, sizeof(*src));
	mutex_lock(&inst->lock);
	src->source = inst->source;
	src->event = inst->event;
	src->period = inst->period;
	mutex_unlock(&inst->lock);
}

/*
 * The source's samplers (the PMU source's counters) of every CPU up of
 * those charged at ON, made disabled before any is started
 * (prf_timers_start() starts them): one that cannot be made releases the
 * others, having counted nothing, and its error is returned, so that a
 * refused ON leaves nothing changed.  0 at once for a source with nothing
 * to make (the timer).
 */
int prf_counters_open(struct prf_inst *inst)
{
	const struct prf_source_ops *src = prf_source_of(inst);
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&inst->lock);
	if (!src->open)
		return 0;
	for_each_cpu(cpu, &prf_hp_up) {
		if (!cpumask_test_cpu(cpu, inst->charged))
			continue;
		ret = src->open(prf_timer_of(inst, cpu), cpu);
		if (ret) {
			prf_timers_stop(inst);
			return ret;
		}
	}
	return 0;
}

/*
 * On every CPU up of those charged to the budget at ON (see above): its
 * timer, or the counter prf_counters_open() made.
 */
void prf_timers_start(struct prf_inst *inst)
{
	const struct prf_source_ops *src = prf_source_of(inst);
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	for_each_cpu(cpu, &prf_hp_up) {
		if (!cpumask_test_cpu(cpu, inst->charged))
			continue;
		src->start(prf_timer_of(inst, cpu), cpu);
	}
	if (src->started)
		src->started(inst);
}

/* Every armed timer, wherever it runs now, and every counter. */
void prf_timers_stop(struct prf_inst *inst)
{
	const struct prf_source_ops *src = prf_source_of(inst);
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	if (inst->cpu != PRF_ALL_CPUS) {
		src->stop(&inst->timer, &inst->counts);
		return;
	}
	for_each_possible_cpu(cpu)
		src->stop(per_cpu_ptr(inst->timers, cpu),
			  per_cpu_ptr(inst->cpu_counts, cpu));
}

/* CPU hotplug: timers follow their CPU going offline and coming back. */

/* Every instance, shared and private; the locking is at the top. */
static LIST_HEAD(prf_inst_list);
static DEFINE_MUTEX(prf_list_lock);
static enum cpuhp_state prf_hp_state;

void prf_inst_register(struct prf_inst *inst)
{
	cpus_read_lock();
	mutex_lock(&prf_list_lock);
	list_add_tail(&inst->node, &prf_inst_list);
	mutex_unlock(&prf_list_lock);
	cpus_read_unlock();
}

/* @inst is OFF: the hotplug callbacks have nothing of it left to do. */
void prf_inst_unregister(struct prf_inst *inst)
{
	cpus_read_lock();
	mutex_lock(&prf_list_lock);
	list_del(&inst->node);
	mutex_unlock(&prf_list_lock);
	cpus_read_unlock();
}

/* On @cpu itself, in the hotplug thread bound to it. */
static int prf_cpu_online(unsigned int cpu)
{
	const struct prf_source_ops *src;
	struct prf_inst *inst;
	struct prf_timer *pt;

	cpumask_set_cpu(cpu, &prf_hp_up);
	list_for_each_entry(inst, &prf_inst_list, node) {
		if (!inst->on || inst->mode != PRF_MODE_TIME ||
		    !cpumask_test_cpu(cpu, inst->charged))
			continue;
		src = prf_source_of(inst);
		pt = prf_timer_of(inst, cpu);
		/* not fatal: prf_info.pmu_cpus shows the CPU missing */
		if (!src->open || !src->open(pt, cpu))
			src->start(pt, cpu);
	}
	return 0;
}

static int prf_cpu_offline(unsigned int cpu)
{
	struct prf_inst *inst;

	cpumask_clear_cpu(cpu, &prf_hp_up);
	list_for_each_entry(inst, &prf_inst_list, node) {
		if (!prf_covers(inst, cpu))
			continue;
		prf_source_of(inst)->close(prf_timer_of(inst, cpu));
	}
	return 0;
}

/*
 * The shared instances are on the list already; no private one can exist
 * before the char device is live (prf_init()).
 */
int prf_hotplug_init(void)
{
	int ret;

	/* with the calls: every CPU up so far enters prf_hp_up */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "prf:online",
				prf_cpu_online, prf_cpu_offline);
	if (ret < 0)
		return ret;
	prf_hp_state = ret;
	return 0;
}

/* Every instance must be OFF: no timer is left to cancel. */
void prf_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(prf_hp_state);
}
