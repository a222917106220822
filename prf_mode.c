// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the mode switch (PRF_SETMODE): what an instance counts against its
 * table.  Time is the sources' samples (prf_timer.c, prf_pmu.c); the event
 * modes are the alloc modes (prf_mode_alloc.c), the calls mode
 * (prf_mode_calls.c) and the offcpu mode (prf_offcpu.c).  The ABI is
 * uapi/linux/prf.h; locking and lifetimes are in prf.h ("Modes").
 */
#include <linux/cpumask.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>

#include "prf.h"
#include "prf_modes.h"

/* Mode set-up */

static bool prf_mode_supported(u32 mode)
{
	if (prf_mode_is_alloc(mode))
		return PRF_HAVE_ALLOC_MODES;
	if (mode == PRF_MODE_CALLS)
		return PRF_HAVE_CALLS_MODE;
	if (mode == PRF_MODE_OFFCPU)
		return PRF_HAVE_ALLOC_MODES;	/* tracepoints */
	return true;
}

/*
 * Under inst->lock, after the counts outside the table were zeroed (a load,
 * a clear, a filter, a CPU, a mode): the mode's own counts.
 */
void prf_mode_reset(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	u32 i;

	lockdep_assert_held(&inst->lock);
	if (!ms)
		return;
	atomic_inc(&ms->gen);
	atomic64_set(&ms->dropped, 0);
	prf_offcpu_reset(ms->off);
	for (i = 0; ms->sites && i < ms->nsites; i++) {
		atomic64_set(&ms->sites[i].allocs, 0);
		atomic64_set(&ms->sites[i].bytes_req, 0);
		atomic64_set(&ms->sites[i].bytes_alloc, 0);
		atomic64_set(&ms->sites[i].frees, 0);
		atomic64_set(&ms->sites[i].bytes_freed, 0);
		atomic64_set(&ms->sites[i].frees_unseen, 0);
		atomic64_set(&ms->sites[i].bytes_unseen, 0);
	}
	if (inst->on && inst->mode == PRF_MODE_CALLS)
		prf_calls_set_untraceable(inst);
}

u64 prf_mode_dropped(struct prf_inst *inst)
{
	lockdep_assert_held(&inst->lock);
	if (inst->ms && inst->mode == PRF_MODE_OFFCPU)
		return prf_offcpu_dropped(inst->ms->off);
	return inst->ms && prf_mode_is_alloc(inst->mode) ?
		atomic64_read(&inst->ms->dropped) : 0;
}

/*
 * PRF_SETMODE.  What a mode needs that is big is allocated here, before
 * the locks: the live-allocation hash of the alloc modes.
 */
int prf_set_mode(struct prf_inst *inst, u32 mode)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_mode_state *ms = NULL;
	struct prf_live *live = NULL, *old_live = NULL;
	struct prf_offcpu *off = NULL, *old_off = NULL;
	unsigned int bits = 0;
	int ret = 0;

	if (mode > PRF_MODE_OFFCPU)
		return -EINVAL;
	if (!prf_mode_supported(mode))
		return -EOPNOTSUPP;
	if (prf_mode_is_alloc(mode)) {
		bits = order_base_2(max(prf_live_slots, PRF_LIVE_PROBE));
		live = kvcalloc(1UL << bits, sizeof(*live), gfp);
		if (!live)
			return -ENOMEM;
	}
	if (mode == PRF_MODE_OFFCPU) {
		off = prf_offcpu_alloc();
		if (!off)
			return -ENOMEM;
	}
	if (mode != PRF_MODE_TIME) {
		ms = kzalloc(sizeof(*ms), GFP_KERNEL_ACCOUNT);
		if (!ms) {
			kvfree(live);
			prf_offcpu_free(off);
			return -ENOMEM;
		}
	}

	mutex_lock(&inst->mode_lock);
	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old_live = live;
		old_off = off;
	} else {
		if (ms && !inst->ms) {
			inst->ms = ms;
			ms = NULL;
		}
		if (inst->ms) {
			old_live = inst->ms->live;
			inst->ms->live = live;
			inst->ms->live_bits = bits;
			old_off = inst->ms->off;
			inst->ms->off = off;
		}
		inst->mode = mode;
		if (inst->tab)
			prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
	mutex_unlock(&inst->mode_lock);
	kvfree(old_live);
	prf_offcpu_free(old_off);
	kfree(ms);
	return ret;
}

u32 prf_get_mode(struct prf_inst *inst)
{
	u32 mode;

	mutex_lock(&inst->lock);
	mode = inst->mode;
	mutex_unlock(&inst->lock);
	return mode;
}


/*
 * ON and OFF of the event modes, with inst->mode_lock held (prf_set_state()).
 * See prf.h ("Modes") for why the probes are (un)registered outside
 * inst->lock and the hotplug lock, and why the table is safe meanwhile.
 */
int prf_mode_set_state(struct prf_inst *inst, bool on)
{
	struct prf_mode_state *ms = inst->ms;
	int ret = 0;

	lockdep_assert_held(&inst->mode_lock);
	mutex_lock(&inst->lock);
	if (!inst->tab || on == inst->on) {
		mutex_unlock(&inst->lock);
		return 0;
	}
	if (on) {
		if (prf_mode_is_alloc(inst->mode)) {
			ret = prf_sites_prepare(inst);
			if (ret) {
				mutex_unlock(&inst->lock);
				return ret;
			}
			/* no probe runs: allocations of an earlier ON go */
			memset(ms->live, 0,
			       sizeof(*ms->live) << ms->live_bits);
			atomic_inc(&ms->gen);
		}
		inst->on_since = ktime_get();
		WRITE_ONCE(inst->on, true);
		mutex_unlock(&inst->lock);

		if (prf_mode_is_alloc(inst->mode)) {
			ret = prf_probes_register(inst);
			ms->probes = !ret;
		} else if (inst->mode == PRF_MODE_OFFCPU) {
			ret = prf_offcpu_on(inst);
			ms->off_on = !ret;
		} else {
			ret = prf_calls_on(inst);
		}

		mutex_lock(&inst->lock);
		if (ret)
			WRITE_ONCE(inst->on, false);
		else if (inst->mode == PRF_MODE_CALLS)
			prf_calls_set_untraceable(inst);
		mutex_unlock(&inst->lock);
		return ret;
	}
	mutex_unlock(&inst->lock);

	if (ms->probes) {
		prf_probes_off(inst);
		ms->probes = false;
	}
	if (ms->off_on) {
		prf_offcpu_off(inst);
		ms->off_on = false;
	}
	prf_calls_off(inst);

	mutex_lock(&inst->lock);
	WRITE_ONCE(inst->on, false);
	inst->on_ns += ktime_to_ns(ktime_sub(ktime_get(), inst->on_since));
	mutex_unlock(&inst->lock);
	return 0;
}


/* The instance is OFF and about to be freed. */
void prf_mode_destroy(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;

	if (!ms)
		return;
	kvfree(ms->live);
	kvfree(ms->sites);
	prf_offcpu_free(ms->off);
	kfree(ms);
	inst->ms = NULL;
}
