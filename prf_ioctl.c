// SPDX-License-Identifier: GPL-2.0
/*
 * prf - ioctl commands: the four of prf(7), then the extensions.  Each is
 * specified in uapi/linux/prf.h; what they do to an instance is in
 * prf_main.c.
 */
#include <linux/fs.h>
#include <linux/uaccess.h>

#include "prf.h"

static int prf_ioctl_getinfo(struct prf_inst *inst, struct prf_info __user *uinfo)
{
	struct prf_info info;
	u32 size;

	if (get_user(size, &uinfo->size))
		return -EFAULT;
	if (size < PRF_INFO_SIZE_V1)
		return -EINVAL;
	prf_get_info(inst, &info);
	info.size = min_t(u32, size, sizeof(info));
	if (copy_to_user(uinfo, &info, info.size))
		return -EFAULT;
	return 0;
}

/* The getters of one setting: status, size, rate, flags. */
static int prf_ioctl_get(struct prf_inst *inst, unsigned int cmd,
			 void __user *uarg)
{
	struct prf_settings set;

	prf_get_settings(inst, &set);
	switch (cmd) {
	case PRF_GETSTATUS:
		return put_user(set.status, (int __user *)uarg);
	case PRF_GETSIZE:
		return put_user((int)set.n, (int __user *)uarg);
	case PRF_GETHZ:
		return put_user(set.hz, (u32 __user *)uarg);
	default: /* PRF_GETFLAGS */
		return put_user(set.flags, (u32 __user *)uarg);
	}
}

static int prf_ioctl_setfilter(struct prf_inst *inst, void __user *uarg)
{
	struct prf_filter f;

	if (copy_from_user(&f, uarg, sizeof(f)))
		return -EFAULT;
	return prf_set_filter(inst, &f);
}

static int prf_ioctl_getfilter(struct prf_inst *inst, void __user *uarg)
{
	struct prf_filter f;

	prf_get_filter(inst, &f);
	if (copy_to_user(uarg, &f, sizeof(f)))
		return -EFAULT;
	return 0;
}

static int prf_ioctl_setstacks(struct prf_inst *inst, void __user *uarg)
{
	struct prf_stack_conf conf;

	if (copy_from_user(&conf, uarg, sizeof(conf)))
		return -EFAULT;
	return prf_set_stacks(inst, &conf);
}

static int prf_ioctl_setsource(struct prf_inst *inst, void __user *uarg)
{
	struct prf_source src;

	if (copy_from_user(&src, uarg, sizeof(src)))
		return -EFAULT;
	return prf_set_source(inst, &src);
}

static int prf_ioctl_getsource(struct prf_inst *inst, void __user *uarg)
{
	struct prf_source src;

	prf_get_source(inst, &src);
	if (copy_to_user(uarg, &src, sizeof(src)))
		return -EFAULT;
	return 0;
}

static int prf_ioctl_getevents(u32 __user *uarg)
{
	u32 mask;
	int ret;

	ret = prf_pmu_events(&mask);
	return ret ? ret : put_user(mask, uarg);
}

static long prf_ioctl_setschedtext(struct prf_inst *inst, void __user *uarg)
{
	struct prf_text_range r;

	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	return prf_set_sched_text(inst, &r);
}

static long prf_ioctl_getschedtext(struct prf_inst *inst, void __user *uarg)
{
	struct prf_text_range r;

	prf_get_sched_text(inst, &r);
	return copy_to_user(uarg, &r, sizeof(r)) ? -EFAULT : 0;
}

static long prf_ioctl_setuobjs(struct prf_inst *inst, void __user *uarg)
{
	struct prf_uobj_conf conf;

	if (copy_from_user(&conf, uarg, sizeof(conf)))
		return -EFAULT;
	return prf_set_uobjs(inst, &conf);
}

static long prf_ioctl_setunwind(struct prf_inst *inst, void __user *uarg)
{
	struct prf_unwind_load ld;

	if (copy_from_user(&ld, uarg, sizeof(ld)))
		return -EFAULT;
	return prf_set_unwind(inst, &ld);
}

/*
 * The commands that change the instance: a file open for writing only
 * (uapi), as write(2) is.
 */
static bool prf_ioctl_writes(unsigned int cmd)
{
	switch (cmd) {
	case PRF_SETSTATE:
	case PRF_SETHZ:
	case PRF_CLEAR:
	case PRF_SETFLAGS:
	case PRF_SETCPU:
	case PRF_SETFILTER:
	case PRF_SETTASKS:
	case PRF_SETSTACKS:
	case PRF_SETMODE:
	case PRF_SETSCHEDTEXT:
	case PRF_SETSOURCE:
	case PRF_SETUOBJS:
	case PRF_SETUNWIND:
		return true;
	default:
		return false;
	}
}

long prf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct prf_inst *inst = file->private_data;
	void __user *uarg = (void __user *)arg;
	s32 cpu;
	u32 val;

	if (prf_ioctl_writes(cmd) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;
	switch (cmd) {
	case PRF_GETSTATUS:
	case PRF_GETSIZE:
	case PRF_GETHZ:
	case PRF_GETFLAGS:
		return prf_ioctl_get(inst, cmd, uarg);
	case PRF_SETSTATE:
		return prf_set_state(inst, arg & PRF_STATUS_ON);
	case PRF_GETMAX:
		return put_user((int)prf_max_addrs, (int __user *)uarg);
	case PRF_SETHZ:
		if (get_user(val, (u32 __user *)uarg))
			return -EFAULT;
		return prf_set_hz(inst, val);
	case PRF_CLEAR:
		return prf_clear(inst);
	case PRF_GETINFO:
		return prf_ioctl_getinfo(inst, uarg);
	case PRF_SETFLAGS:
		if (get_user(val, (u32 __user *)uarg))
			return -EFAULT;
		return prf_set_flags(inst, val);
	case PRF_SETCPU:
		if (get_user(cpu, (s32 __user *)uarg))
			return -EFAULT;
		return prf_set_cpu(inst, cpu);
	case PRF_GETCPU:
		return put_user(prf_get_cpu(inst), (s32 __user *)uarg);
	case PRF_SETFILTER:
		return prf_ioctl_setfilter(inst, uarg);
	case PRF_GETFILTER:
		return prf_ioctl_getfilter(inst, uarg);
	case PRF_SETTASKS:
		if (get_user(val, (u32 __user *)uarg))
			return -EFAULT;
		return prf_set_tasks(inst, val);
	case PRF_GETTASKS:
		return prf_get_tasks(inst, uarg);
	case PRF_SETSTACKS:
		return prf_ioctl_setstacks(inst, uarg);
	case PRF_GETSTACKS:
		return prf_get_stacks(inst, uarg);
	case PRF_SETMODE:
		if (get_user(val, (u32 __user *)uarg))
			return -EFAULT;
		return prf_set_mode(inst, val);
	case PRF_GETMODE:
		return put_user(prf_get_mode(inst), (u32 __user *)uarg);
	case PRF_GETSITES:
		return prf_get_sites(inst, uarg);
	case PRF_SETSCHEDTEXT:
		return prf_ioctl_setschedtext(inst, uarg);
	case PRF_GETSCHEDTEXT:
		return prf_ioctl_getschedtext(inst, uarg);
	case PRF_SETSOURCE:
		return prf_ioctl_setsource(inst, uarg);
	case PRF_GETSOURCE:
		return prf_ioctl_getsource(inst, uarg);
	case PRF_GETEVENTS:
		return prf_ioctl_getevents(uarg);
	case PRF_SETUOBJS:
		return prf_ioctl_setuobjs(inst, uarg);
	case PRF_GETUOBJS:
		return prf_get_uobjs(inst, uarg);
	case PRF_GETUCHAINS:
		return prf_get_uchains(inst, uarg);
	case PRF_GETUPAIRS:
		return prf_get_upairs(inst, uarg);
	case PRF_SETUNWIND:
		return prf_ioctl_setunwind(inst, uarg);
	case PRF_GETUNWIND:
		return prf_get_unwind(inst, uarg);
	case PRF_GETCPUTALLIES:
		return prf_get_cpu_tallies(inst, uarg);
	default:
		return -EINVAL;	/* prf(7), not -ENOTTY */
	}
}
