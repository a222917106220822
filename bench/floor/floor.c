// SPDX-License-Identifier: GPL-2.0
/*
 * prf_floor - the cheapest timer-based sampler there can be: the bench's
 * reference point.
 *
 * It runs what prf runs to take a sample, a pinned hard-irq hrtimer on every
 * online CPU re-armed with hrtimer_forward_now(), and does nothing in the
 * callback but count the tick.  No sampler driven by a timer can cost less
 * per sample, so (prf's overhead) / (this module's overhead) says how much
 * prf's own work adds.
 *
 *	insmod prf_floor.ko hz=R	start sampling every CPU at R Hz
 *	cat /sys/module/prf_floor/parameters/ticks	ticks taken so far
 *	rmmod prf_floor			stop
 *
 * CPUs that come online later are not sampled: the bench does not hotplug.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#define FLOOR_HZ_MAX	100000

static unsigned int hz = 100;
module_param(hz, uint, 0444);
MODULE_PARM_DESC(hz, "Ticks per second on each CPU (1 to 100000)");

static DEFINE_PER_CPU(struct hrtimer, floor_timer);
static DEFINE_PER_CPU(unsigned long, floor_ticks);
static u64 floor_period_ns;

static enum hrtimer_restart floor_tick(struct hrtimer *hrt)
{
	hrtimer_forward_now(hrt, ns_to_ktime(floor_period_ns));
	this_cpu_inc(floor_ticks);
	return HRTIMER_RESTART;
}

/* Runs on the CPU the timer belongs to, so that the pinned timer stays. */
static void floor_start_here(void *unused)
{
	hrtimer_start(this_cpu_ptr(&floor_timer), ns_to_ktime(floor_period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int floor_ticks_get(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(floor_ticks, cpu);
	return sysfs_emit(buf, "%lu\n", sum);
}

static const struct kernel_param_ops floor_ticks_ops = {
	.get = floor_ticks_get,
};
module_param_cb(ticks, &floor_ticks_ops, NULL, 0444);
MODULE_PARM_DESC(ticks, "Ticks taken since the module was loaded");

static int __init floor_init(void)
{
	unsigned int cpu;

	if (hz < 1 || hz > FLOOR_HZ_MAX) {
		pr_err("hz must be between 1 and %d\n", FLOOR_HZ_MAX);
		return -EINVAL;
	}
	floor_period_ns = div_u64(NSEC_PER_SEC, hz);
	for_each_possible_cpu(cpu) {
		struct hrtimer *hrt = per_cpu_ptr(&floor_timer, cpu);

#ifdef FLOOR_HAVE_HRTIMER_SETUP
		hrtimer_setup(hrt, floor_tick, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
#else
		hrtimer_init(hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		hrt->function = floor_tick;
#endif
	}
	on_each_cpu(floor_start_here, NULL, 1);
	return 0;
}

static void __exit floor_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(per_cpu_ptr(&floor_timer, cpu));
}

module_init(floor_init);
module_exit(floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("prf bench: an hrtimer sampler that does nothing (the floor)");
MODULE_AUTHOR("prf developers");
