// SPDX-License-Identifier: GPL-2.0
/*
 * prf_floor_pmu - the cheapest PMU sampler there can be: the PMU bench's
 * reference point.
 *
 * It asks the kernel's perf core for what prf's PMU source asks for, a
 * pinned CPU-cycles counter on every online CPU that overflows every
 * @period cycles, and its overflow handler (in NMI where the PMU's
 * interrupt is one) does nothing but count.  No sampler driven by the PMU
 * through perf can cost less per sample, so (prf's extra time per sample)
 * minus (this module's) is what prf's own work adds.
 *
 *	insmod prf_floor_pmu.ko period=P	count every CPU's cycles, a
 *						sample every P of them
 *	cat /sys/module/prf_floor_pmu/parameters/samples	samples so far
 *	cat /sys/module/prf_floor_pmu/parameters/nmi	of which in NMI
 *	rmmod prf_floor_pmu			stop
 *
 * CPUs that come online later are not counted: the bench does not hotplug.
 * The counters are made and released in process context (init, exit); the
 * handler runs in NMI or hard irq and touches only this CPU's counts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>

#define FLOOR_PERIOD_MIN	1000ULL

static unsigned long long period = 1000000;
module_param(period, ullong, 0444);
MODULE_PARM_DESC(period, "Cycles between samples on each CPU (at least 1000)");

static DEFINE_PER_CPU(struct perf_event *, floor_event);
static DEFINE_PER_CPU(unsigned long, floor_samples);
static DEFINE_PER_CPU(unsigned long, floor_nmi);

static void floor_overflow(struct perf_event *event,
			   struct perf_sample_data *data, struct pt_regs *regs)
{
	this_cpu_inc(floor_samples);
	if (in_nmi())
		this_cpu_inc(floor_nmi);
}

static int floor_sum(char *buf, unsigned long __percpu *v)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(v, cpu);
	return sysfs_emit(buf, "%lu\n", sum);
}

static int floor_samples_get(char *buf, const struct kernel_param *kp)
{
	return floor_sum(buf, &floor_samples);
}

static int floor_nmi_get(char *buf, const struct kernel_param *kp)
{
	return floor_sum(buf, &floor_nmi);
}

static const struct kernel_param_ops floor_samples_ops = {
	.get = floor_samples_get,
};
module_param_cb(samples, &floor_samples_ops, NULL, 0444);
MODULE_PARM_DESC(samples, "Overflows taken since the module was loaded");

static const struct kernel_param_ops floor_nmi_ops = {
	.get = floor_nmi_get,
};
module_param_cb(nmi, &floor_nmi_ops, NULL, 0444);
MODULE_PARM_DESC(nmi, "Of the overflows, those taken in NMI");

static void floor_release(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct perf_event *ev = per_cpu(floor_event, cpu);

		if (ev) {
			perf_event_disable(ev);
			perf_event_release_kernel(ev);
			per_cpu(floor_event, cpu) = NULL;
		}
	}
}

static int __init floor_init(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_HARDWARE,
		.config		= PERF_COUNT_HW_CPU_CYCLES,
		.size		= sizeof(attr),
		.pinned		= 1,
		.disabled	= 1,
	};
	unsigned int cpu;

	if (period < FLOOR_PERIOD_MIN) {
		pr_err("period must be at least %llu\n", FLOOR_PERIOD_MIN);
		return -EINVAL;
	}
	attr.sample_period = period;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *ev;

		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      floor_overflow, NULL);
		if (IS_ERR(ev)) {
			cpus_read_unlock();
			floor_release();
			pr_err("no cycles counter on CPU %u: %ld\n", cpu,
			       PTR_ERR(ev));
			return PTR_ERR(ev);
		}
		per_cpu(floor_event, cpu) = ev;
	}
	for_each_online_cpu(cpu)
		perf_event_enable(per_cpu(floor_event, cpu));
	cpus_read_unlock();
	return 0;
}

static void __exit floor_exit(void)
{
	floor_release();
}

module_init(floor_init);
module_exit(floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("prf bench: a PMU cycles sampler that does nothing (the floor)");
MODULE_AUTHOR("prf developers");
