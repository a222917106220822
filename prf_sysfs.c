// SPDX-License-Identifier: GPL-2.0
/*
 * prf - shell control through sysfs, after kprof(3)'s kpctl: under
 * /sys/class/prf/<device>/,
 *
 *	control	write start, stop, startclr or clear; reads unloaded, off or on
 *	hz	the sampling rate, as PRF_GETHZ and PRF_SETHZ, in decimal
 *	size	PRF_GETSIZE
 *	max	PRF_GETMAX
 *	info	struct prf_info, one "field value" line per field (root's
 *		alone, 0400)
 *	cpus	the online CPUs the instance samples, as a CPU list ("0-2,5")
 *	filter	PRF_GETFILTER and PRF_SETFILTER: "none", "tgid N" or
 *		"cgroup PATH" (PATH from the cgroup v2 root, as in
 *		/proc/PID/cgroup) (root's alone, 0600)
 *	stacks	the call-stack table's set-up, "DEPTH CAPACITY" ("0 0": off),
 *		as PRF_SETSTACKS sets it
 *	source	PRF_GETSOURCE and PRF_SETSOURCE: "timer", "pmu EVENT" (about
 *		hz samples a second) or "pmu EVENT PERIOD", EVENT one of
 *		cycles, instructions, cache-misses, branch-misses, ref-cycles
 *
 * /dev/prfclone has none of them: its instances belong to open files.
 * Writing needs what opening the device needs (prf_may_profile()).
 */
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "prf.h"

static struct prf_inst *prf_dev_inst(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t control_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct prf_settings set;
	const char *state = "unloaded";

	prf_get_settings(prf_dev_inst(dev), &set);
	if (set.status & PRF_STATUS_ON)
		state = "on";
	else if (set.status & PRF_STATUS_LOADED)
		state = "off";
	return sysfs_emit(buf, "%s\n", state);
}

/*
 * Starting needs a table here: a shell user must see why nothing happens.
 * With @clear the counts are zeroed first, unless ON is refused.
 */
static int prf_start(struct prf_inst *inst, bool clear)
{
	struct prf_settings set;

	prf_get_settings(inst, &set);
	if (!(set.status & PRF_STATUS_LOADED))
		return -ENXIO;
	return clear ? prf_clear_start(inst) : prf_set_state(inst, true);
}

static ssize_t control_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct prf_inst *inst = prf_dev_inst(dev);
	int ret;

	ret = prf_may_profile();
	if (ret)
		return ret;
	if (sysfs_streq(buf, "start"))
		ret = prf_start(inst, false);
	else if (sysfs_streq(buf, "stop"))
		ret = prf_set_state(inst, false);
	else if (sysfs_streq(buf, "startclr"))
		ret = prf_start(inst, true);
	else if (sysfs_streq(buf, "clear"))
		ret = prf_clear(inst);
	else
		ret = -EINVAL;
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(control);

static ssize_t hz_show(struct device *dev, struct device_attribute *attr,
		       char *buf)
{
	struct prf_settings set;

	prf_get_settings(prf_dev_inst(dev), &set);
	return sysfs_emit(buf, "%u\n", set.hz);
}

static ssize_t hz_store(struct device *dev, struct device_attribute *attr,
			const char *buf, size_t count)
{
	u32 hz;
	int ret;

	ret = prf_may_profile();
	if (ret)
		return ret;
	ret = kstrtou32(buf, 10, &hz);	/* "010" is 10 Hz, not 8 */
	if (ret)
		return -EINVAL;
	ret = prf_set_hz(prf_dev_inst(dev), hz);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(hz);

static ssize_t size_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct prf_settings set;

	prf_get_settings(prf_dev_inst(dev), &set);
	return sysfs_emit(buf, "%u\n", set.n);
}
static DEVICE_ATTR_RO(size);

static ssize_t max_show(struct device *dev, struct device_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%u\n", prf_max_addrs);
}
static DEVICE_ATTR_RO(max);

/* Root's alone (0400): with a filter, one process's or cgroup's counts. */
static ssize_t info_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct prf_info i;

	prf_get_info(prf_dev_inst(dev), &i);
	return sysfs_emit(buf,
			  "size %u\nversion %u\nstatus %u\nflags %u\nhz %u\n"
			  "usec_per_tick %u\ncpu %d\nncpus %u\nnaddrs %llu\n"
			  "max_addrs %llu\nticks_total %llu\n"
			  "ticks_outside %llu\nticks_user %llu\n"
			  "ticks_idle %llu\nticks_lost %llu\non_ns %llu\n"
			  "mem_bytes %llu\nticks_sampled %llu\nticks_noregs %llu\n"
			  "ticks_filtered %llu\ntasks_dropped %llu\n"
			  "stacks_dropped %llu\nstack_depth %u\n"
			  "stack_capacity %u\nmode %u\nmode_dropped %llu\n"
			  "sample_budget %u\nbudget_used %u\n"
			  "source %u\nevent %u\nperiod %llu\nsamples_nmi %llu\n"
			  "pmu_count %llu\npmu_enabled_ns %llu\n"
			  "pmu_running_ns %llu\npmu_throttled %llu\n"
			  "pmu_cpus %u\n",
			  i.size, i.version, i.status, i.flags, i.hz,
			  i.usec_per_tick, i.cpu, i.ncpus, i.naddrs,
			  i.max_addrs, i.ticks_total, i.ticks_outside,
			  i.ticks_user, i.ticks_idle, i.ticks_lost, i.on_ns,
			  i.mem_bytes, i.ticks_sampled, i.ticks_noregs,
			  i.ticks_filtered, i.tasks_dropped,
			  i.stacks_dropped, i.stack_depth, i.stack_capacity,
			  i.mode, i.mode_dropped, i.sample_budget, i.budget_used,
			  i.source, i.event, i.period, i.samples_nmi,
			  i.pmu_count, i.pmu_enabled_ns, i.pmu_running_ns,
			  i.pmu_throttled, i.pmu_cpus);
}
static DEVICE_ATTR_ADMIN_RO(info);

static ssize_t cpus_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct prf_inst *inst = prf_dev_inst(dev);
	cpumask_var_t mask;
	ssize_t ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	mutex_lock(&inst->lock);
	prf_cpus_sampled(inst, mask);
	mutex_unlock(&inst->lock);
	ret = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(mask));
	free_cpumask_var(mask);
	return ret;
}
static DEVICE_ATTR_RO(cpus);

/* Root's alone (0600): it names the process or cgroup profiled. */
static ssize_t filter_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return prf_filter_show(prf_dev_inst(dev), buf);
}

static ssize_t filter_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	int ret;

	ret = prf_may_profile();
	if (ret)
		return ret;
	ret = prf_filter_store(prf_dev_inst(dev), buf);
	return ret ? ret : count;
}
static DEVICE_ATTR_ADMIN_RW(filter);

/*
 * A written value copied into @tmp (@size bytes) and trimmed of blanks
 * around it, ready for strsep(); NULL when it does not fit.
 */
static char *prf_sysfs_words(char *tmp, size_t size, const char *buf,
			     size_t count)
{
	if (count >= size)
		return NULL;
	memcpy(tmp, buf, count);
	tmp[count] = '\0';
	return strim(tmp);
}

static ssize_t stacks_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct prf_stack_conf conf;

	prf_get_stacks_conf(prf_dev_inst(dev), &conf);
	return sysfs_emit(buf, "%u %u\n", conf.depth, conf.capacity);
}

static ssize_t stacks_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct prf_stack_conf conf = { 0 };
	char tmp[32], *s, *depth;
	int ret;

	ret = prf_may_profile();
	if (ret)
		return ret;
	/* two decimal numbers and nothing else but blanks around them */
	s = prf_sysfs_words(tmp, sizeof(tmp), buf, count);
	if (!s)
		return -EINVAL;
	depth = strsep(&s, " ");
	if (!s || kstrtou32(depth, 10, &conf.depth) ||
	    kstrtou32(skip_spaces(s), 10, &conf.capacity))
		return -EINVAL;
	ret = prf_set_stacks(prf_dev_inst(dev), &conf);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(stacks);

static ssize_t source_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct prf_source src;

	prf_get_source(prf_dev_inst(dev), &src);
	if (src.source == PRF_SOURCE_TIMER)
		return sysfs_emit(buf, "timer\n");
	if (!src.period)
		return sysfs_emit(buf, "pmu %s\n", prf_event_name(src.event));
	return sysfs_emit(buf, "pmu %s %llu\n", prf_event_name(src.event),
			  src.period);
}

/* "timer", "pmu EVENT" or "pmu EVENT PERIOD", blanks around words */
static ssize_t source_store(struct device *dev, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct prf_source src = { 0 };
	char tmp[64], *s, *word, *event;
	int ret;

	ret = prf_may_profile();
	if (ret)
		return ret;
	s = prf_sysfs_words(tmp, sizeof(tmp), buf, count);
	if (!s)
		return -EINVAL;
	word = strsep(&s, " ");
	if (!strcmp(word, "timer")) {
		if (s)
			return -EINVAL;
		src.source = PRF_SOURCE_TIMER;
	} else if (!strcmp(word, "pmu") && s) {
		src.source = PRF_SOURCE_PMU;
		event = strsep(&s, " ");
		if (prf_event_parse(event, &src.event))
			return -EINVAL;
		if (s && kstrtou64(skip_spaces(s), 10, &src.period))
			return -EINVAL;
		if (s && !src.period)
			return -EINVAL;	/* "pmu EVENT 0": say "pmu EVENT" */
	} else {
		return -EINVAL;
	}
	ret = prf_set_source(prf_dev_inst(dev), &src);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(source);

static struct attribute *prf_attrs[] = {
	&dev_attr_control.attr,
	&dev_attr_hz.attr,
	&dev_attr_size.attr,
	&dev_attr_max.attr,
	&dev_attr_info.attr,
	&dev_attr_cpus.attr,
	&dev_attr_filter.attr,
	&dev_attr_stacks.attr,
	&dev_attr_source.attr,
	NULL,
};

/* Only the devices with an instance behind them: not /dev/prfclone. */
static umode_t prf_attr_visible(struct kobject *kobj, struct attribute *a,
				int n)
{
	return dev_get_drvdata(kobj_to_dev(kobj)) ? a->mode : 0;
}

static const struct attribute_group prf_group = {
	.attrs = prf_attrs,
	.is_visible = prf_attr_visible,
};

const struct attribute_group *prf_groups[] = {
	&prf_group,
	NULL,
};
