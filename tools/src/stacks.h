/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stacks - call stacks (PRF_GETSTACKS) and modes (PRF_SETMODE, PRF_GETSITES)
 * in the CLI: capturing them into a snapshot's extension and their options
 * (cmd_stacks.c); a report's stacks (stackview.h) out as folded stacks,
 * callers and callees, JSON (stacks.c); the modes (modes.h).
 */
#ifndef PRF_STACKS_H
#define PRF_STACKS_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "modes.h"
#include "snapshot.h"
#include "stackview.h"

struct prf;
struct prf_info;
struct common;

#define STACKS_DEFAULT_CAPACITY 4096	/* prfstat --stacks D: S */
#define STACKS_DEFAULT_DEPTH	32	/* prf record -g, prf top -g */

/*
 * capture_ext (cmd_stacks.c) - the snapshot's extension from the device (mode, stacks,
 * sites, source) when it has one (info version 4, a mode other than time or stacks
 * on; version 6, the PMU source); s->ext stays NULL otherwise.  t, the loaded
 * table's names (resolve_table), names the stacks' frames where it can (NULL:
 * the kernel's namelist names them all).  0, or 1 (said).
 */
int capture_ext(struct prf *p, const struct common *c, const struct snap_table *t,
		const struct prf_info *in, struct snapshot *s);

/* Long options of stacks and modes (cmd.h's OPT_* stay below 1100). */
enum {
	OPT_STACK_SETUP = 1100, OPT_MODE, OPT_STACK_DEPTH, OPT_CALLERS, OPT_CALLEES,
};

/* --stacks D[,S] (prfstat), -g [--stack-depth D] (record, top). */
struct stacks_opt {
	int set;		/* asked for */
	uint32_t depth, capacity;
};
/* Option parsers: 0 or EXIT_USAGE (said). */
int parse_stacks_opt(const char *s, struct stacks_opt *o);
int parse_stack_depth(const char *s, struct stacks_opt *o);
int parse_mode_opt(const char *s, int *mode);
/*
 * apply_mode_stacks - on an OFF instance: the mode (mode >= 0; only set when
 * it changes, a new mode zeroes the counters; the offcpu mode also gets the
 * scheduler's text from c->kallsyms, PRF_SETSCHEDTEXT), then the stack
 * table (so set).  0, or 1 (said).
 */
int apply_mode_stacks(struct prf *p, const struct common *c, int mode,
		      const struct stacks_opt *so);
/*
 * calls_refused_note - after turning ON in the calls mode, says how many
 * of the table's addresses ftrace refused (counter N); silent otherwise.
 */
void calls_refused_note(struct prf *p, const char *dev);

/*
 * stacks_of_report - the stacks of r as the reports show them:
 * stackview_build()'s, cut at the caller that held interrupts off when
 * r->irqoff_to_caller (irqoff_cut_stacks(), irqoff.h; a user call chain is
 * never cut).  1 when the snapshots have stacks (sv filled), 0 when not,
 * -1 when a stack went backwards or no memory (err).
 */
int stacks_of_report(const struct report *r, struct stackview *sv, char *err, size_t errlen);

/*
 * Folded stacks, root first, ';'-joined, "[truncated]" as the root of a
 * cut stack (a user call chain's starts with its leaf's program, as the
 * user rows' "program;function"), then [user]/[idle]/[outside]/[stack
 * dropped] as the flat report has them ([user]: without chains, the user
 * rows as one-frame stacks and the rest; with, the samples of no chain).
 * Most samples first, equal ones by name.
 */
void stacks_print_folded(FILE *out, const struct report *r, const struct stackview *sv,
			 const struct report_opts *o);
/*
 * The max stacks of most samples, as folded lines merge them, each with
 * its samples and share of the stacks' then its frames outermost first,
 * indented by depth; then one line on the views of every stack.
 */
void stacks_print_top(FILE *out, const struct stackview *sv, size_t max);
/* "stacks": [...] of the JSON report (with its trailing ",\n"). */
void stacks_print_json(FILE *out, const struct stackview *sv);

/*
 * The callers (callees 0) or callees (1) of the function named func: per
 * frame next to its first (leaf-most) occurrence, the samples and their
 * share of func's (the samples of the stacks holding it).  1 when func is
 * in no stack (said on stderr by the caller), 0 printed.
 */
int stacks_print_neighbours(FILE *out, const struct stackview *sv, const char *func,
			    int callees, enum report_format fmt, size_t max_rows, int width);

#endif /* PRF_STACKS_H */
