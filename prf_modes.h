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

#define PRF_HAVE_ALLOC_MODES	IS_ENABLED(CONFIG_TRACEPOINTS)
#define PRF_HAVE_CALLS_MODE	IS_ENABLED(CONFIG_DYNAMIC_FTRACE)

/* The alloc modes' live allocations and sites (prf_mode_alloc.c) */
#define PRF_LIVE_FREE	0UL
#define PRF_LIVE_GONE	1UL
#define PRF_LIVE_BUSY	2UL
#define PRF_LIVE_PROBE	16
#define PRF_LIVE_NOSITE	U32_MAX	/* an allocation not counted */

extern unsigned int prf_live_slots;

struct prf_live {
	unsigned long ptr;	/* PRF_LIVE_* or the allocation */
	u32 site;		/* counter index of its call site */
	u32 size;		/* bytes allocated */
	u32 gen;		/* prf_mode_state.gen when allocated */
	u32 pad;
};

/* prf_site, counted */
struct prf_site_count {
	atomic64_t allocs;
	atomic64_t bytes_req;
	atomic64_t bytes_alloc;
	atomic64_t frees;
	atomic64_t bytes_freed;
	atomic64_t frees_unseen;
	atomic64_t bytes_unseen;
};

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

static inline bool prf_mode_is_alloc(u32 mode)
{
	return mode == PRF_MODE_ALLOC_CALLS || mode == PRF_MODE_ALLOC_BYTES;
}

/* prf_mode_alloc.c */
int prf_probes_register(struct prf_inst *inst);
void prf_probes_off(struct prf_inst *inst);
int prf_sites_prepare(struct prf_inst *inst);

/* prf_mode_calls.c */
int prf_calls_on(struct prf_inst *inst);
void prf_calls_off(struct prf_inst *inst);
void prf_calls_set_untraceable(struct prf_inst *inst);

#endif /* PRF_MODES_H */
