// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the offcpu mode (PRF_MODE_OFFCPU) as the mode switch drives it:
 * its ops (prf_modes.h) over prf_offcpu.c, which has the mode's waits
 * table and probes.  Locking: prf_modes.h.
 */
#include <linux/errno.h>

#include "prf.h"
#include "prf_modes.h"

static int prf_offcpu_set(struct prf_mode_res *res)
{
	res->off = prf_offcpu_alloc();
	return res->off ? 0 : -ENOMEM;
}

static void prf_offcpu_unset(struct prf_mode_res *res)
{
	prf_offcpu_free(res->off);
	res->off = NULL;
}

static int prf_offcpu_start(struct prf_inst *inst)
{
	int ret = prf_offcpu_on(inst);

	inst->ms->off_on = !ret;
	return ret;
}

static void prf_offcpu_stop(struct prf_inst *inst)
{
	if (inst->ms->off_on) {
		prf_offcpu_off(inst);
		inst->ms->off_on = false;
	}
}

static void prf_offcpu_zero(struct prf_inst *inst)
{
	prf_offcpu_reset(prf_mode_offcpu(inst));
}

static u64 prf_offcpu_lost(struct prf_inst *inst)
{
	return prf_offcpu_dropped(prf_mode_offcpu(inst));
}

/* Tracepoints, like the alloc modes. */
const struct prf_mode_ops prf_mode_offcpu_ops = {
	.supported = PRF_HAVE_ALLOC_MODES,
	.charge = PRF_CHARGE_OFFCPU,
	.set = prf_offcpu_set,
	.unset = prf_offcpu_unset,
	.on = prf_offcpu_start,
	.off = prf_offcpu_stop,
	.reset = prf_offcpu_zero,
	.dropped = prf_offcpu_lost,
};
