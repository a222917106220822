// SPDX-License-Identifier: GPL-2.0
/*
 * prf - filters (which tasks an instance counts) and the per-process tally
 * (who burns the kernel).  The ABI is in uapi/linux/prf.h; references and
 * locking are explained in prf.h ("Filters", "The per-process tally").  The
 * sampling side of both is in prf_sample.c, the zeroing of the tally in
 * prf_counts.c.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "prf.h"

/* Filters */

/* Drops the references a filter holds; leaves it matching every task. */
void prf_filter_put(struct prf_kfilter *kf)
{
	put_pid(kf->pid);
	if (kf->cgrp)
		cgroup_put(kf->cgrp);
	memset(kf, 0, sizeof(*kf));
}

/*
 * The struct pid of the process whose ID is @id in the caller's PID
 * namespace: a thread group leader, or ESRCH.
 */
static int prf_filter_tgid(struct prf_kfilter *kf, u64 id)
{
	struct pid *pid;
	bool leader;

	if (!id || id > INT_MAX)
		return -ESRCH;
	pid = find_get_pid((int)id);
	if (!pid)
		return -ESRCH;
	rcu_read_lock();
	leader = pid_task(pid, PIDTYPE_TGID);
	rcu_read_unlock();
	if (!leader) {
		put_pid(pid);
		return -ESRCH;
	}
	kf->type = PRF_FILTER_TGID;
	kf->pid = pid;
	return 0;
}

static int prf_filter_cgroup_fd(struct prf_kfilter *kf, u64 id)
{
	struct cgroup *cgrp;
	struct file *file;

	if (id > INT_MAX)
		return -EBADF;
	/*
	 * cgroup_get_from_fd() says EBADF for a descriptor that is not a
	 * cgroup v2 directory too: tell a bad descriptor apart first.
	 */
	file = fget_raw((unsigned int)id);
	if (!file)
		return -EBADF;
	fput(file);
	cgrp = cgroup_get_from_fd((int)id);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp) == -EBADF ? -EINVAL : PTR_ERR(cgrp);
	kf->type = PRF_FILTER_CGROUP;
	kf->cgrp = cgrp;
	return 0;
}

/*
 * Installs @kf (whose references the caller passes on) while OFF, after
 * the checks against the flags; on failure the caller still owns them.
 */
static int prf_filter_install(struct prf_inst *inst, struct prf_kfilter *kf)
{
	struct prf_kfilter old;
	int ret = 0;

	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
	} else if (kf->type == PRF_FILTER_NONE &&
		   (inst->flags & PRF_FLAG_USERPC)) {
		ret = -EINVAL;	/* user PCs need one address space */
	} else {
		old = inst->filter;
		inst->filter = *kf;
		*kf = old;	/* the caller drops the old references */
		if (inst->tab)
			prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	return ret;
}

/* Inputs are checked (and references taken) before EBUSY. */
int prf_set_filter(struct prf_inst *inst, const struct prf_filter *f)
{
	struct prf_kfilter kf = { .type = PRF_FILTER_NONE };
	int ret;

	if (f->flags)
		return -EINVAL;
	switch (f->type) {
	case PRF_FILTER_NONE:
		ret = 0;
		break;
	case PRF_FILTER_TGID:
		ret = prf_filter_tgid(&kf, f->id);
		break;
	case PRF_FILTER_CGROUP:
		ret = prf_filter_cgroup_fd(&kf, f->id);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	ret = prf_filter_install(inst, &kf);
	prf_filter_put(&kf);	/* the old filter, or the new on failure */
	return ret;
}

/* The process's ID for the caller, 0 once it has exited or if not visible. */
static pid_t prf_filter_pid_nr(struct pid *pid)
{
	pid_t nr = 0;

	rcu_read_lock();
	if (pid_has_task(pid, PIDTYPE_TGID))
		nr = pid_vnr(pid);
	rcu_read_unlock();
	return nr;
}

void prf_get_filter(struct prf_inst *inst, struct prf_filter *f)
{
	memset(f, 0, sizeof(*f));
	mutex_lock(&inst->lock);
	f->type = inst->filter.type;
	if (f->type == PRF_FILTER_TGID)
		f->id = prf_filter_pid_nr(inst->filter.pid);
	else if (f->type == PRF_FILTER_CGROUP)
		f->id = cgroup_id(inst->filter.cgrp);
	mutex_unlock(&inst->lock);
}

/*
 * sysfs "filter": "none", "tgid N" (N in the writer's PID namespace) or
 * "cgroup PATH" (PATH from the root of the writer's cgroup v2 namespace).
 */
int prf_filter_store(struct prf_inst *inst, const char *buf)
{
	struct prf_kfilter kf = { .type = PRF_FILTER_NONE };
	struct cgroup *cgrp;
	char *s, *arg;
	u64 id;
	int ret;

	s = kstrdup(buf, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	arg = strim(s);
	if (!strcmp(arg, "none")) {
		ret = 0;
	} else if (!strncmp(arg, "tgid ", 5)) {
		ret = kstrtou64(skip_spaces(arg + 5), 10, &id);
		if (ret)
			ret = -EINVAL;
		else
			ret = prf_filter_tgid(&kf, id);
	} else if (!strncmp(arg, "cgroup ", 7)) {
		cgrp = cgroup_get_from_path(skip_spaces(arg + 7));
		if (IS_ERR(cgrp)) {
			ret = PTR_ERR(cgrp);
		} else {
			kf.type = PRF_FILTER_CGROUP;
			kf.cgrp = cgrp;
			ret = 0;
		}
	} else {
		ret = -EINVAL;
	}
	kfree(s);
	if (ret)
		return ret;
	ret = prf_filter_install(inst, &kf);
	prf_filter_put(&kf);
	return ret;
}

ssize_t prf_filter_show(struct prf_inst *inst, char *buf)
{
	ssize_t len;
	size_t room;
	int ret;

	mutex_lock(&inst->lock);
	switch (inst->filter.type) {
	case PRF_FILTER_TGID:
		len = sysfs_emit(buf, "tgid %d\n",
				 prf_filter_pid_nr(inst->filter.pid));
		break;
	case PRF_FILTER_CGROUP:
		len = sysfs_emit(buf, "cgroup ");
		room = PAGE_SIZE - len - 1;	/* and the newline */
		ret = cgroup_path(inst->filter.cgrp, buf + len, room);
		if (ret < 0 || (size_t)ret >= room) {
			len = ret < 0 ? ret : -ENAMETOOLONG;
			break;
		}
		len += ret;
		len += sysfs_emit_at(buf, len, "\n");
		break;
	default:
		len = sysfs_emit(buf, "none\n");
		break;
	}
	mutex_unlock(&inst->lock);
	return len;
}

/* The per-process tally */

static void prf_tasks_release(struct kref *ref)
{
	kvfree(container_of(ref, struct prf_tasktab, ref));
}

void prf_tasks_put(struct prf_tasktab *tt)
{
	if (tt)
		kref_put(&tt->ref, prf_tasks_release);
}

/* A bound on the probe sequence: the table is at most half full. */
#define PRF_TASKS_PROBE	64

static struct prf_tasktab *prf_tasks_alloc(u32 capacity)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_tasktab *tt;
	u32 nslots = roundup_pow_of_two(2 * capacity);

	tt = kvzalloc(struct_size(tt, slot, nslots), gfp);
	if (!tt)
		return NULL;
	kref_init(&tt->ref);
	tt->capacity = capacity;
	tt->nslots = nslots;
	tt->bits = ilog2(nslots);
	tt->probe = min_t(u32, nslots, PRF_TASKS_PROBE);
	return tt;
}

int prf_set_tasks(struct prf_inst *inst, u32 capacity)
{
	struct prf_tasktab *tt = NULL, *old;
	int ret = 0;

	if (capacity > PRF_TASKS_MAX)
		return -EINVAL;
	if (capacity) {
		tt = prf_tasks_alloc(capacity);
		if (!tt)
			return -ENOMEM;
	}
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old = tt;	/* not installed */
	} else {
		old = inst->tasks;
		inst->tasks = tt;
	}
	mutex_unlock(&inst->lock);
	prf_tasks_put(old);
	return ret;
}

/*
 * @ts's name into @comm, read under its sequence (prf.h): a rename while it
 * is copied (an exec at that moment) makes it read again.  A rename takes
 * the writer an instant in an interrupt, so a few tries find it whole; if
 * not, a last copy stands, still a NUL-terminated name.
 */
static void prf_tasks_name(const struct prf_task_slot *ts, char *comm)
{
	u32 seq;
	int try;

	for (try = 0; try < 8; try++) {
		/* pairs with the releases in prf_sample.c: the name after */
		seq = smp_load_acquire(&ts->seq);
		if (!(seq & 1)) {
			memcpy(comm, ts->comm, sizeof(ts->comm));
			smp_rmb();	/* the name before the second look */
			if (READ_ONCE(ts->seq) == seq)
				break;
		}
		cpu_relax();
	}
	if (try == 8)
		memcpy(comm, ts->comm, sizeof(ts->comm));
	comm[sizeof(ts->comm) - 1] = '\0';
}

/*
 * The table is pinned under inst->lock and copied out after unlocking
 * (prf.h), in chunks of a few entries gathered on the stack.
 */
int prf_get_tasks(struct prf_inst *inst, struct prf_tasks __user *ut)
{
	struct prf_task chunk[8];
	struct prf_task_slot *ts;
	struct prf_tasks req;
	struct prf_task __user *dst;
	struct prf_tasktab *tt;
	u32 i, nr = 0, filled = 0;
	u64 kernel, user, dropped = 0;
	int ret = 0;

	if (copy_from_user(&req, ut, sizeof(req)))
		return -EFAULT;
	dst = u64_to_user_ptr(req.tasks);

	mutex_lock(&inst->lock);
	tt = inst->tasks;
	if (tt)
		kref_get(&tt->ref);
	mutex_unlock(&inst->lock);

	for (i = 0; tt && i < tt->nslots && nr + filled < req.nr; i++) {
		ts = &tt->slot[i];
		/* named yet (the claim's release in prf_tasks_count()) */
		if (!atomic_read(&ts->tgid) || !smp_load_acquire(&ts->seq))
			continue;
		kernel = atomic64_read(&ts->kernel);
		user = atomic64_read(&ts->user);
		if (!kernel && !user)
			continue;
		memset(&chunk[filled], 0, sizeof(chunk[filled]));
		chunk[filled].pid = atomic_read(&ts->tgid);
		chunk[filled].kernel = kernel;
		chunk[filled].user = user;
		prf_tasks_name(ts, chunk[filled].comm);
		if (++filled < ARRAY_SIZE(chunk))
			continue;
		if (copy_to_user(dst + nr, chunk, sizeof(chunk))) {
			ret = -EFAULT;
			goto out;
		}
		nr += filled;
		filled = 0;
	}
	if (filled && copy_to_user(dst + nr, chunk, filled * sizeof(*chunk))) {
		ret = -EFAULT;
		goto out;
	}
	nr += filled;
	if (tt)
		dropped = atomic64_read(&tt->dropped);
	req.nr = nr;
	req.capacity = tt ? tt->capacity : 0;
	req.dropped = dropped;
	if (copy_to_user(ut, &req, sizeof(req)))
		ret = -EFAULT;
out:
	prf_tasks_put(tt);
	return ret;
}
