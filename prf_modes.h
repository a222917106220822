/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf - the state of the modes other than time (inst->ms), shared by the
 * mode switch and the modes (prf_mode.c, prf_offcpu.c).  Installed under
 * inst->lock while OFF and freed with the instance (prf.h, "Modes").
 */
#ifndef PRF_MODES_H
#define PRF_MODES_H

#include <linux/atomic.h>
#include <linux/ftrace.h>
#include <linux/types.h>

#include "prf.h"

struct prf_live;
struct prf_site_count;
struct prf_offcpu;

struct prf_mode_state {
	/* alloc modes */
	struct prf_live *live;		/* 1 << live_bits slots */
	unsigned int live_bits;
	atomic_t gen;			/* a clear makes earlier frees uncounted */
	atomic64_t dropped;		/* mode_dropped */
	struct prf_site_count *sites;	/* nsites = N + 2 of the table */
	u32 nsites;
	bool probes;			/* tracepoint probes registered */
	/* offcpu (prf_offcpu.c) */
	struct prf_offcpu *off;
	bool off_on;			/* its probes registered */
	/* calls */
	u64 untraceable;		/* table addresses ftrace refused */
#ifdef CONFIG_DYNAMIC_FTRACE
	struct ftrace_ops ops;
	bool ops_on;			/* ops registered */
#endif
};

/* The offcpu mode's state: fixed while ON in that mode. */
static inline struct prf_offcpu *prf_mode_offcpu(struct prf_inst *inst)
{
	return inst->ms->off;
}

#endif /* PRF_MODES_H */
