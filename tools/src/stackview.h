/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stackview - the call stacks of a report (stackview.c): a transform of
 * the report model, which the renderers of stacks (stacks.h, pprof.h,
 * html.h) print.
 */
#ifndef PRF_STACKVIEW_H
#define PRF_STACKVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "snapshot.h"

/*
 * One stack of a report: the samples between its two snapshots.  A joined
 * one (SV_STACK_JOINED: a kernel stack and the user chain of the same
 * samples, PRF_GETUPAIRS) holds the kernel's nk frames, leaf first, then
 * the user chain's, leaf first (where the task entered the kernel first),
 * so that f[nr - 1] is the sample path's root as in any other stack.
 */
struct sv_stack {
	uint64_t count;
	uint32_t flags;			/* PRF_STACK_*, SV_STACK_JOINED */
	uint32_t nr;
	const struct snap_frame **f;	/* leaf first */
	uint32_t nk;			/* joined: the kernel's frames, f[0..nk-1] */
	uint32_t uflags;		/* joined: PRF_UCHAIN_TRUNCATED of the user side */
};

#define SV_STACK_JOINED	0x100		/* no PRF_STACK_* bit */

struct stackview {
	size_t n;
	struct sv_stack *v;		/* count > 0 only */
	uint64_t total;			/* their samples */
	uint64_t dropped;		/* samples whose stack was not kept */
	uint32_t depth;
	int irqoff_to_caller;		/* cut by --irqoff-to-caller (irqoff.c) */
	uint64_t irqoff_moved;		/* the samples of the stacks it cut */
};

/*
 * stackview_build - the stacks of r as taken (b's minus a's, matched by
 * PCs), each kernel stack's samples that have a pair in r->uobjs (prf
 * record -g, or its file) as joined stacks (SV_STACK_JOINED), the rest of
 * them as the kernel stack alone, so that the samples add up as before;
 * then the user call chains of r->uobjs (uobj.h; PRF_STACK_USER,
 * frames with user set, the leaf first as the kernel's); the reports read
 * them through stacks_of_report() (stacks.h), which applies what r's
 * transforms asked.  1 when the snapshots have stacks (sv filled), 0 when
 * not, -1 when a stack went backwards or no memory (err).
 */
int stackview_build(const struct report *r, struct stackview *sv, char *err, size_t errlen);
/*
 * stacks_user_chains - r's user samples have call chains (prf record -g
 * with the user objects table): the stacks hold them, and the user rows
 * are not one-frame stacks.  stacks_user_unchained: the user samples that
 * have no chain (the table's lost, dropped and unmapped, the chains
 * dropped), the "[user]" of the folded lines and of pprof.
 */
int stacks_user_chains(const struct report *r);
uint64_t stacks_user_unchained(const struct report *r);
void stackview_free(struct stackview *sv);

/* A frame's function name (no "+0x..." offset) into buf. */
const char *frame_func(const struct snap_frame *f, char *buf, size_t len);

#endif /* PRF_STACKVIEW_H */
