// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the /dev/prf kernel profiler device of prf(7).
 *
 * Module load and unload, the char devices and their file operations, and
 * the operations on an instance that ioctl and sysfs share.  The ABI is
 * uapi/linux/prf.h; locking and lifetimes are explained in prf.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "prf.h"

unsigned int prf_max_addrs = 1U << 20;
module_param_named(max_addrs, prf_max_addrs, uint, 0444);
MODULE_PARM_DESC(max_addrs, "Most addresses a table may hold (PRF_GETMAX)");

static unsigned int prf_max_private = 64;
module_param_named(max_private, prf_max_private, uint, 0444);
MODULE_PARM_DESC(max_private,
		 "Most private instances (opens of /dev/prfclone) at once");

static dev_t prf_devt;
static unsigned int prf_nr_minors;	/* of the shared instances */
static unsigned int prf_clone_minor;	/* /dev/prfclone: prf_nr_minors */
static struct device *prf_clone_dev;
static struct prf_inst **prf_insts;	/* by minor; NULL: no CPU behind it */
static struct cdev prf_cdev;
static atomic_t prf_nr_private = ATOMIC_INIT(0);

static struct class prf_class = {
	.name = PRF_CLASS,
	.dev_groups = prf_groups,
};

/* Instance operations */

/*
 * Profiling exposes where the kernel runs: it needs CAP_PERFMON (or
 * CAP_SYS_ADMIN) and is refused under lockdown for confidentiality.
 */
int prf_may_profile(void)
{
	if (!perfmon_capable())
		return -EPERM;
	/* security_locked_down() says why, rate limited: no warning of ours */
	return security_locked_down(LOCKDOWN_PERF);
}

static void prf_settings_locked(struct prf_inst *inst, struct prf_settings *set)
{
	lockdep_assert_held(&inst->lock);
	set->status = (inst->on ? PRF_STATUS_ON : 0) |
		      (inst->tab ? PRF_STATUS_LOADED : 0);
	set->n = inst->tab ? inst->tab->n : 0;
	set->hz = inst->hz;
	set->flags = inst->flags;
}

void prf_get_settings(struct prf_inst *inst, struct prf_settings *set)
{
	mutex_lock(&inst->lock);
	prf_settings_locked(inst, set);
	mutex_unlock(&inst->lock);
}

/*
 * prf(7): with no valid table this has no effect, and is no error.  Turning
 * ON fails with ENOSPC, changing nothing, when the rate would take a CPU
 * past the sample budget (prf_budget.c), and with the PMU source when a
 * counter cannot be made (prf_counters_open(): the instance stays OFF).
 * @clear zeroes the counts first (sysfs "startclr"), but not when ON is
 * refused.  The event modes have their own (prf_mode.c), which may fail:
 * the probes could not be registered.
 */
static int prf_set_state_clear(struct prf_inst *inst, bool on, bool clear)
{
	int ret = 0;

	mutex_lock(&inst->mode_lock);
	if (inst->mode != PRF_MODE_TIME) {
		ret = clear ? prf_clear(inst) : 0;
		if (!ret)
			ret = prf_mode_set_state(inst, on);
		mutex_unlock(&inst->mode_lock);
		return ret;
	}
	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->tab && on && !inst->on) {
		ret = prf_budget_charge(inst, inst->hz);
		if (!ret) {
			ret = prf_counters_open(inst);
			if (ret)
				prf_budget_uncharge(inst);
		}
		if (!ret) {
			if (clear) {
				prf_table_zero(inst->tab);
				prf_reset_counts(inst);
			}
			inst->on_since = ktime_get();
			WRITE_ONCE(inst->on, true);
			prf_uobj_start(inst->uobjs,
				       inst->source == PRF_SOURCE_PMU ? 0 :
				       inst->hz);
			prf_timers_start(inst);
		}
	} else if (inst->tab && !on && inst->on) {
		prf_timers_stop(inst);
		prf_uobj_stop(inst->uobjs);
		WRITE_ONCE(inst->on, false);
		prf_budget_uncharge(inst);
		inst->on_ns += ktime_to_ns(ktime_sub(ktime_get(), inst->on_since));
	} else if (inst->tab && clear) {
		prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
	mutex_unlock(&inst->mode_lock);
	return ret;
}

int prf_set_state(struct prf_inst *inst, bool on)
{
	return prf_set_state_clear(inst, on, false);
}

/* Clears and turns ON, or, when ON is refused, neither (sysfs "startclr"). */
int prf_clear_start(struct prf_inst *inst)
{
	return prf_set_state_clear(inst, true, true);
}

int prf_clear(struct prf_inst *inst)
{
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->tab) {
		/* while ON, one instant for every count (prf.h) */
		if (inst->on) {
			WRITE_ONCE(inst->clearing, true);
			synchronize_rcu();
		}
		prf_table_zero(inst->tab);
		prf_reset_counts(inst);
		/* the zeroes before any count (prf_may_count()'s acquire) */
		smp_store_release(&inst->clearing, false);
	} else {
		ret = -ENXIO;
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
	return ret;
}

int prf_set_hz(struct prf_inst *inst, u32 hz)
{
	int ret = 0;

	if (hz < PRF_HZ_MIN || hz > PRF_HZ_MAX)
		return -EINVAL;
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
	} else {
		inst->hz = hz;
		inst->period_ns = div_u64(NSEC_PER_SEC, hz);
	}
	mutex_unlock(&inst->lock);
	return ret;
}

int prf_set_flags(struct prf_inst *inst, u32 flags)
{
	int ret = 0;

	if (flags & ~PRF_FLAGS_ALL)
		return -EINVAL;
	/* obsolete JITTER means the default: it contradicts FIXED */
	if ((flags & PRF_FLAG_JITTER) && (flags & PRF_FLAG_FIXED))
		return -EINVAL;
	mutex_lock(&inst->lock);
	if (inst->on)
		ret = -EBUSY;
	else if ((flags & PRF_FLAG_USERPC) &&
		 inst->filter.type == PRF_FILTER_NONE)
		ret = -EINVAL;	/* user PCs need one address space */
	else
		inst->flags = flags;
	mutex_unlock(&inst->lock);
	return ret;
}

/*
 * Private instances only.  The hotplug callbacks read inst->cpu: it changes
 * with the hotplug lock held for reading, while OFF (no timer armed).
 */
int prf_set_cpu(struct prf_inst *inst, s32 cpu)
{
	int ret = 0;

	if (!inst->private)
		return -EINVAL;
	if (cpu != PRF_ALL_CPUS &&
	    (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)))
		return -EINVAL;
	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
	} else {
		inst->cpu = cpu;
		if (inst->tab)
			prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
	return ret;
}

s32 prf_get_cpu(struct prf_inst *inst)
{
	s32 cpu;

	mutex_lock(&inst->lock);
	cpu = inst->cpu;
	mutex_unlock(&inst->lock);
	return cpu;
}

/*
 * ticks_total is derived from the counters; ticks_sampled is counted apart,
 * so that comparing them checks the attribution.
 */
void prf_get_info(struct prf_inst *inst, struct prf_info *info)
{
	const struct prf_table *tab;
	struct prf_settings set;
	u64 sum = 0;
	u32 i;

	memset(info, 0, sizeof(*info));
	cpus_read_lock();	/* the PMU source's counters (prf.h) */
	mutex_lock(&inst->lock);
	prf_settings_locked(inst, &set);
	tab = inst->tab;
	info->size = sizeof(*info);
	info->version = PRF_INFO_VERSION;
	info->status = set.status;
	info->flags = set.flags;
	info->hz = set.hz;
	info->usec_per_tick = USEC_PER_SEC / set.hz;
	info->naddrs = set.n;
	info->cpu = inst->cpu;
	info->ncpus = prf_cpus_sampled(inst, NULL);
	info->max_addrs = prf_max_addrs;
	info->on_ns = inst->on_ns;
	if (inst->on)
		info->on_ns += ktime_to_ns(ktime_sub(ktime_get(), inst->on_since));
	if (tab) {
		info->mem_bytes = tab->mem + prf_counts_mem(inst);
		info->ticks_user = prf_tally_read(inst, PRF_TALLY_USER);
		info->ticks_idle = prf_tally_read(inst, PRF_TALLY_IDLE);
		info->ticks_outside = prf_tally_read(inst, PRF_TALLY_OUTSIDE);
		info->ticks_lost = prf_tally_read(inst, PRF_TALLY_LOST);
		info->ticks_sampled = prf_tally_read(inst, PRF_TALLY_SAMPLED);
		info->ticks_noregs = prf_tally_read(inst, PRF_TALLY_NOREGS);
		info->ticks_filtered = prf_tally_read(inst,
						      PRF_TALLY_FILTERED);
		if (inst->tasks)
			info->tasks_dropped =
				atomic64_read(&inst->tasks->dropped);
		for (i = 0; i < tab->n; i++)
			sum += atomic64_read(&tab->slot[i].count);
	}
	if (inst->stacks) {
		info->stacks_dropped = atomic64_read(&inst->stacks->dropped);
		info->stack_depth = inst->stacks->depth;
		info->stack_capacity = inst->stacks->capacity;
	}
	info->mode = inst->mode;
	info->mode_dropped = prf_mode_dropped(inst);
	prf_budget_info(inst, info);
	info->ticks_total = sum + info->ticks_user + info->ticks_idle +
			    info->ticks_outside;
	info->source = inst->source;
	info->event = inst->event;
	info->period = inst->period;
	if (tab)
		info->samples_nmi = prf_tally_read(inst, PRF_TALLY_NMI);
	prf_sources_info(inst, info);
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
}

/* File operations */

static struct prf_inst *prf_inst_create(int cpu, unsigned int minor,
					bool private);
static void prf_inst_destroy(struct prf_inst *inst);

/* /dev/prfclone: a new instance for this file, within max_private. */
static int prf_open_private(struct file *file)
{
	struct prf_inst *inst;

	if (atomic_inc_return(&prf_nr_private) > prf_max_private) {
		atomic_dec(&prf_nr_private);
		return -ENOSPC;
	}
	inst = prf_inst_create(PRF_ALL_CPUS, prf_clone_minor, true);
	if (!inst) {
		atomic_dec(&prf_nr_private);
		return -ENOMEM;
	}
	prf_inst_register(inst);
	file->private_data = inst;
	return 0;
}

static int prf_open(struct inode *inode, struct file *file)
{
	unsigned int minor = iminor(inode);
	int ret;

	ret = prf_may_profile();
	if (ret)
		return ret;
	if (minor == prf_clone_minor)
		return prf_open_private(file);
	if (minor >= prf_nr_minors || !prf_insts[minor])
		return -ENXIO;
	file->private_data = prf_insts[minor];
	return 0;
}

/* A private instance dies with its file: OFF, off the list, freed. */
static int prf_release(struct inode *inode, struct file *file)
{
	struct prf_inst *inst = file->private_data;

	if (!inst->private)
		return 0;
	prf_set_state(inst, false);
	prf_inst_unregister(inst);
	prf_inst_destroy(inst);
	atomic_dec(&prf_nr_private);
	return 0;
}

/*
 * prf(7) write: the whole buffer is the new table.  Sizes are checked before
 * anything is allocated; the instance is only touched under its lock, and
 * only EINVAL (a table out of order) changes it on failure: it is unloaded.
 */
static ssize_t prf_write(struct file *file, const char __user *buf,
			 size_t count, loff_t *ppos)
{
	struct prf_inst *inst = file->private_data;
	struct prf_table *tab, *old = NULL;
	size_t n = count / sizeof(u64);
	bool ascending;
	ssize_t ret;

	if (count % sizeof(u64) || n < PRF_MIN_ADDRS)
		return -E2BIG;
	if (n > prf_max_addrs)
		return -ENOSPC;
	if (READ_ONCE(inst->on))
		return -EBUSY;

	tab = prf_table_alloc(n);
	if (!tab)
		return -ENOMEM;
	if (prf_table_fill(tab, (const u64 __user *)buf)) {
		prf_table_put(tab);
		return -EFAULT;
	}
	ascending = prf_table_index(tab);

	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
	} else {
		/* prf(7): a table out of order leaves the instance unloaded */
		old = inst->tab;
		inst->tab = ascending ? tab : NULL;
		if (ascending)
			tab = NULL;
		prf_reset_counts(inst);
		ret = ascending ? (ssize_t)count : -EINVAL;
	}
	mutex_unlock(&inst->lock);
	prf_table_put(old);
	prf_table_put(tab);	/* not installed */
	return ret;
}

/*
 * prf(7) read: from the start whatever the file position, the N addresses
 * then the N + 2 counters, up to the end of the caller's buffer.  The table
 * is pinned by a reference and the user and idle counts are taken under the
 * lock; the copy to user space is made after dropping it (prf.h).  Words are
 * gathered into a buffer and copied out from there, each counter read
 * whole, so that none is torn by a concurrent tick.
 */
static ssize_t prf_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct prf_inst *inst = file->private_data;
	struct prf_table *tab;
	u64 chunk[32], user, idle;
	size_t n, len, done, w, nr, bytes, i;
	ssize_t ret;

	if (mutex_lock_interruptible(&inst->lock))
		return -ERESTARTSYS;
	tab = inst->tab;
	if (tab) {
		prf_table_get(tab);
		user = prf_tally_read(inst, PRF_TALLY_USER);
		idle = prf_tally_read(inst, PRF_TALLY_IDLE);
	}
	mutex_unlock(&inst->lock);
	if (!tab)
		return -ENXIO;

	n = tab->n;
	len = min(count, (n + PRF_NR_BUCKETS(n)) * sizeof(u64));
	ret = len;
	for (done = 0; done < len; done += bytes) {
		w = done / sizeof(u64);
		nr = min_t(size_t, ARRAY_SIZE(chunk),
			   DIV_ROUND_UP(len - done, sizeof(u64)));
		for (i = 0; i < nr; i++, w++) {
			if (w < n)
				chunk[i] = tab->slot[w].addr;
			else if (w < 2 * n)
				chunk[i] = atomic64_read(&tab->slot[w - n].count);
			else
				chunk[i] = w == 2 * n ? user : idle;
		}
		bytes = min(len - done, sizeof(chunk));
		if (copy_to_user(buf + done, chunk, bytes)) {
			ret = -EFAULT;
			break;
		}
	}
	prf_table_put(tab);
	return ret;
}

static __poll_t prf_poll(struct file *file, struct poll_table_struct *wait)
{
	return EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM;
}

static const struct file_operations prf_fops = {
	.owner		= THIS_MODULE,
	.open		= prf_open,
	.release	= prf_release,
	.read		= prf_read,
	.write		= prf_write,
	.poll		= prf_poll,
	.unlocked_ioctl	= prf_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= compat_ptr_ioctl,
#endif
	.llseek		= noop_llseek,
};

/* Instances */

/*
 * prf_reset_counts() zeroes the counts of its own floor and below, then
 * these: the mode's (prf_mode.c) and the sources' totals (prf_inst.c),
 * under the same locks.
 */
static void prf_reset_above(struct prf_inst *inst)
{
	prf_mode_reset(inst);
	prf_sources_reset(inst);
}

/*
 * A private instance has both the per-CPU timers and counts of /dev/prf and
 * the single ones of /dev/prfN, so that PRF_SETCPU allocates nothing.
 */
static struct prf_inst *prf_inst_create(int cpu, unsigned int minor,
					bool private)
{
	const gfp_t gfp = private ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	struct prf_inst *inst;
	unsigned int c;

	inst = kzalloc(sizeof(*inst), gfp);
	if (!inst)
		return NULL;
	if (!zalloc_cpumask_var(&inst->charged, gfp)) {
		kfree(inst);
		return NULL;
	}
	mutex_init(&inst->lock);
	mutex_init(&inst->mode_lock);
	INIT_LIST_HEAD(&inst->node);
	INIT_LIST_HEAD(&inst->unwind);
	prf_pmu_hold_init(inst);
	inst->cpu = cpu;
	inst->minor = minor;
	inst->private = private;
	inst->hz = PRF_HZ_DEFAULT;
	inst->period_ns = div_u64(NSEC_PER_SEC, PRF_HZ_DEFAULT);
	inst->reset_above = prf_reset_above;
	if (cpu == PRF_ALL_CPUS) {
		inst->cpu_counts = alloc_percpu_gfp(struct prf_cpu_counts, gfp);
		inst->timers = alloc_percpu_gfp(struct prf_timer, gfp);
		if (!inst->cpu_counts || !inst->timers) {
			free_percpu(inst->cpu_counts);
			free_percpu(inst->timers);
			free_cpumask_var(inst->charged);
			kfree(inst);
			return NULL;
		}
		for_each_possible_cpu(c)
			prf_timer_init(per_cpu_ptr(inst->timers, c), inst);
	}
	if (cpu != PRF_ALL_CPUS || private)
		prf_timer_init(&inst->timer, inst);
	return inst;
}

static void prf_inst_destroy(struct prf_inst *inst)
{
	prf_pmu_hold_cancel(inst);
	prf_table_put(inst->tab);
	prf_tasks_put(inst->tasks);
	prf_stacks_put(inst->stacks);
	prf_uobjs_put(inst->uobjs);
	prf_unwind_release(inst);
	prf_filter_put(&inst->filter);
	prf_mode_destroy(inst);
	free_percpu(inst->timers);
	free_percpu(inst->cpu_counts);
	free_cpumask_var(inst->charged);
	mutex_destroy(&inst->mode_lock);
	mutex_destroy(&inst->lock);
	kfree(inst);
}

static void prf_insts_destroy(void)
{
	unsigned int minor;

	for (minor = 0; minor < prf_nr_minors; minor++) {
		if (!prf_insts[minor])
			continue;
		prf_inst_unregister(prf_insts[minor]);
		prf_inst_destroy(prf_insts[minor]);
	}
	kfree(prf_insts);
}

static struct prf_inst *prf_inst_create_shared(int cpu, unsigned int minor)
{
	struct prf_inst *inst = prf_inst_create(cpu, minor, false);

	if (inst)
		prf_inst_register(inst);
	return inst;
}

static int prf_insts_create(void)
{
	unsigned int cpu;

	/* Minors: 0..254 CPUs, 255 all CPUs, then CPU N >= 255 at N + 1. */
	prf_nr_minors = max_t(unsigned int, PRF_ALL_MINOR + 1,
			      prf_cpu_minor(nr_cpu_ids - 1) + 1);
	prf_insts = kcalloc(prf_nr_minors, sizeof(*prf_insts), GFP_KERNEL);
	if (!prf_insts)
		return -ENOMEM;
	prf_clone_minor = prf_nr_minors;
	prf_insts[PRF_ALL_MINOR] = prf_inst_create_shared(PRF_ALL_CPUS,
							  PRF_ALL_MINOR);
	if (!prf_insts[PRF_ALL_MINOR])
		goto nomem;
	for_each_possible_cpu(cpu) {
		prf_insts[prf_cpu_minor(cpu)] =
			prf_inst_create_shared(cpu, prf_cpu_minor(cpu));
		if (!prf_insts[prf_cpu_minor(cpu)])
			goto nomem;
	}
	return 0;
nomem:
	prf_insts_destroy();
	return -ENOMEM;
}

/* Device nodes are mode 0600: devtmpfs' and udev's default for a class. */
static int prf_devices_create(void)
{
	struct prf_inst *inst;
	unsigned int minor;

	for (minor = 0; minor < prf_nr_minors; minor++) {
		inst = prf_insts[minor];
		if (!inst)
			continue;
		if (inst->cpu == PRF_ALL_CPUS)
			inst->dev = device_create(&prf_class, NULL,
						  MKDEV(MAJOR(prf_devt), minor),
						  inst, "prf");
		else
			inst->dev = device_create(&prf_class, NULL,
						  MKDEV(MAJOR(prf_devt), minor),
						  inst, "prf%d", inst->cpu);
		if (IS_ERR(inst->dev)) {
			int ret = PTR_ERR(inst->dev);

			inst->dev = NULL;
			return ret;
		}
	}
	/* no instance behind it: the sysfs group hides itself (prf_sysfs.c) */
	prf_clone_dev = device_create(&prf_class, NULL,
				      MKDEV(MAJOR(prf_devt), prf_clone_minor),
				      NULL, PRF_CLONE_NAME);
	if (IS_ERR(prf_clone_dev)) {
		int ret = PTR_ERR(prf_clone_dev);

		prf_clone_dev = NULL;
		return ret;
	}
	return 0;
}

static void prf_devices_destroy(void)
{
	unsigned int minor;

	for (minor = 0; minor < prf_nr_minors; minor++)
		if (prf_insts[minor] && prf_insts[minor]->dev)
			device_destroy(&prf_class, MKDEV(MAJOR(prf_devt), minor));
	if (prf_clone_dev)
		device_destroy(&prf_class,
			       MKDEV(MAJOR(prf_devt), prf_clone_minor));
}

static void prf_stop_all(void)
{
	unsigned int minor;

	for (minor = 0; minor < prf_nr_minors; minor++)
		if (prf_insts[minor])
			prf_set_state(prf_insts[minor], false);
}

/*
 * Everything an opener can reach is whole before the char device goes live,
 * and nothing can fail after it (prf.h, "Locking and lifetimes").
 */
static int __init prf_init(void)
{
	int ret;

	if (prf_max_addrs < PRF_MIN_ADDRS ||
	    prf_max_addrs > PRF_MAX_ADDRS_LIMIT) {
		pr_err("max_addrs must be between %d and %zu\n",
		       PRF_MIN_ADDRS, PRF_MAX_ADDRS_LIMIT);
		return -EINVAL;
	}
	ret = prf_stack_init();
	if (ret)
		return ret;
	ret = prf_insts_create();
	if (ret)
		goto err_stack;
	ret = prf_hotplug_init();
	if (ret)
		goto err_insts;
	/* the shared minors, then /dev/prfclone */
	ret = alloc_chrdev_region(&prf_devt, 0, prf_nr_minors + 1, "prf");
	if (ret)
		goto err_hotplug;
	ret = class_register(&prf_class);
	if (ret)
		goto err_region;
	ret = prf_devices_create();
	if (ret)
		goto err_devices;
	cdev_init(&prf_cdev, &prf_fops);
	prf_cdev.owner = THIS_MODULE;
	ret = cdev_add(&prf_cdev, prf_devt, prf_nr_minors + 1);
	if (ret)
		goto err_devices;
	return 0;

err_devices:
	prf_devices_destroy();
	class_unregister(&prf_class);
err_region:
	unregister_chrdev_region(prf_devt, prf_nr_minors + 1);
err_hotplug:
	prf_hotplug_exit();
err_insts:
	prf_insts_destroy();
err_stack:
	prf_stack_exit();
	return ret;
}

/* prf_init() in reverse; no file is open (each pins the module). */
static void __exit prf_exit(void)
{
	cdev_del(&prf_cdev);
	prf_devices_destroy();
	class_unregister(&prf_class);
	prf_stop_all();
	unregister_chrdev_region(prf_devt, prf_nr_minors + 1);
	prf_hotplug_exit();
	prf_insts_destroy();
	prf_stack_exit();
}

module_init(prf_init);
module_exit(prf_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("prf(7): the /dev/prf kernel profiler");
MODULE_AUTHOR("prf developers");
MODULE_VERSION(PRF_VERSION);
