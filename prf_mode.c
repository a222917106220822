// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the mode switch (PRF_SETMODE): what an instance counts against its
 * table.  Time is the sources' samples (prf_timer.c, prf_pmu.c); the event
 * modes are the alloc modes (prf_mode_alloc.c), the calls mode
 * (prf_mode_calls.c) and the offcpu mode (prf_offcpu.c).  The ABI is
 * uapi/linux/prf.h; locking and lifetimes are in prf_modes.h.
 */
#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "prf.h"
#include "prf_modes.h"

/*
 * The modes, by PRF_MODE_*: a new one is its own file, its ops here and
 * its value in the uapi.  Time has no ops to run: its samples are the
 * sources' (prf_inst.c).
 */
static const struct prf_mode_ops prf_mode_time = {
	.supported = true,
};

static const struct prf_mode_ops *const prf_modes[] = {
	[PRF_MODE_TIME] = &prf_mode_time,
	[PRF_MODE_ALLOC_CALLS] = &prf_mode_alloc,
	[PRF_MODE_ALLOC_BYTES] = &prf_mode_alloc,
	[PRF_MODE_CALLS] = &prf_mode_calls,
	[PRF_MODE_OFFCPU] = &prf_mode_offcpu_ops,
};

/* Every mode's ops once: NULL where an earlier number has them too. */
static const struct prf_mode_ops *prf_mode_once(unsigned int i)
{
	const struct prf_mode_ops *m = prf_modes[i];

	return i && m == prf_modes[i - 1] ? NULL : m;
}

static void prf_modes_unset(struct prf_mode_res *res)
{
	const struct prf_mode_ops *m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prf_modes); i++) {
		m = prf_mode_once(i);
		if (m && m->unset)
			m->unset(res);
	}
}

/*
 * Under inst->lock, after the counts outside the table were zeroed (a load,
 * a clear, a filter, a CPU, a mode): every mode's own counts.
 */
void prf_mode_reset(struct prf_inst *inst)
{
	const struct prf_mode_ops *m;
	unsigned int i;

	lockdep_assert_held(&inst->lock);
	if (!inst->ms)
		return;
	for (i = 0; i < ARRAY_SIZE(prf_modes); i++) {
		m = prf_mode_once(i);
		if (m && m->reset)
			m->reset(inst);
	}
}

u64 prf_mode_dropped(struct prf_inst *inst)
{
	const struct prf_mode_ops *m = prf_modes[inst->mode];

	lockdep_assert_held(&inst->lock);
	return inst->ms && m->dropped ? m->dropped(inst) : 0;
}

/*
 * PRF_SETMODE.  What a mode needs that is big is allocated here, before
 * the locks (its ops' set): the live-allocation hash of the alloc modes,
 * the waits table of the offcpu mode.
 */
int prf_set_mode(struct prf_inst *inst, u32 mode)
{
	struct prf_mode_res res = { }, old = { };
	struct prf_mode_state *ms = NULL;
	const struct prf_mode_ops *m;
	int ret = 0;

	if (mode >= ARRAY_SIZE(prf_modes))
		return -EINVAL;
	m = prf_modes[mode];
	if (!m->supported)
		return -EOPNOTSUPP;
	if (m->set) {
		ret = m->set(&res);
		if (ret)
			return ret;
	}
	if (mode != PRF_MODE_TIME) {
		ms = kzalloc(sizeof(*ms), GFP_KERNEL_ACCOUNT);
		if (!ms) {
			prf_modes_unset(&res);
			return -ENOMEM;
		}
	}

	mutex_lock(&inst->mode_lock);
	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old = res;
	} else {
		if (ms && !inst->ms) {
			inst->ms = ms;
			ms = NULL;
		}
		if (inst->ms) {
			old = inst->ms->res;
			inst->ms->res = res;
		}
		inst->mode = mode;
		if (inst->tab)
			prf_table_zero(inst->tab);
		prf_reset_counts(inst);
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
	mutex_unlock(&inst->mode_lock);
	prf_modes_unset(&old);
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
 * See prf_modes.h for why the probes are (un)registered outside
 * inst->lock and the hotplug lock, and why the table is safe meanwhile.
 * ON charges the mode's PRF_CHARGE_* to the sample budget first (ENOSPC
 * past it, nothing changed), under inst->lock as the time mode does; a
 * refused prepare or on gives it back, and OFF gives it back once the
 * probes are gone.  The hotplug callbacks never look at an event mode's
 * inst->charged, so it changes here without the hotplug lock.
 */
int prf_mode_set_state(struct prf_inst *inst, bool on)
{
	const struct prf_mode_ops *m = prf_modes[inst->mode];
	int ret = 0;

	lockdep_assert_held(&inst->mode_lock);
	mutex_lock(&inst->lock);
	if (!inst->tab || on == inst->on) {
		mutex_unlock(&inst->lock);
		return 0;
	}
	if (on) {
		ret = prf_budget_charge(inst, m->charge);
		if (!ret && m->prepare) {
			ret = m->prepare(inst);
			if (ret)
				prf_budget_uncharge(inst);
		}
		if (ret) {
			mutex_unlock(&inst->lock);
			return ret;
		}
		inst->on_since = ktime_get();
		WRITE_ONCE(inst->on, true);
		mutex_unlock(&inst->lock);

		ret = m->on(inst);

		if (ret) {
			mutex_lock(&inst->lock);
			WRITE_ONCE(inst->on, false);
			prf_budget_uncharge(inst);
			mutex_unlock(&inst->lock);
		}
		return ret;
	}
	mutex_unlock(&inst->lock);

	m->off(inst);

	mutex_lock(&inst->lock);
	WRITE_ONCE(inst->on, false);
	prf_budget_uncharge(inst);
	inst->on_ns += ktime_to_ns(ktime_sub(ktime_get(), inst->on_since));
	mutex_unlock(&inst->lock);
	return 0;
}

/* The instance is OFF and about to be freed. */
void prf_mode_destroy(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	const struct prf_mode_ops *m;
	unsigned int i;

	if (!ms)
		return;
	for (i = 0; i < ARRAY_SIZE(prf_modes); i++) {
		m = prf_mode_once(i);
		if (m && m->unset)
			m->unset(&ms->res);
		if (m && m->destroy)
			m->destroy(ms);
	}
	kfree(ms);
	inst->ms = NULL;
}
