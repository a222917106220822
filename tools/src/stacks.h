/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stacks - call stacks (PRF_GETSTACKS) and modes (PRF_SETMODE, PRF_GETSITES)
 * in the CLI: capturing them into a snapshot's extension, the stacks between
 * two snapshots (joined by a report's user call chains), folded stacks,
 * callers and callees, JSON; the modes' names, units and per-site detail
 * (modes.c).
 */
#ifndef PRF_STACKS_H
#define PRF_STACKS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "snapshot.h"

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

/* One stack of a report: the samples between its two snapshots. */
struct sv_stack {
	uint64_t count;
	uint32_t flags;			/* PRF_STACK_* */
	uint32_t nr;
	const struct snap_frame **f;	/* leaf first */
};

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
 * stacks_of_report - the stacks of r (b's minus a's, matched by PCs; cut
 * at the caller that held interrupts off when r->irqoff_to_caller), then
 * the user call chains of r->uobjs (uobj.h; PRF_STACK_USER, frames with
 * user set, the leaf first as the kernel's).
 * 1 when the snapshots have stacks (sv filled), 0 when not, -1 when a
 * stack went backwards or no memory (err).
 */
int stacks_of_report(const struct report *r, struct stackview *sv, char *err, size_t errlen);
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

/* ---- modes (modes.c) ---- */

/* "time", "alloc-calls", "alloc-bytes", "calls", "offcpu"; NULL when unknown. */
const char *mode_name(uint32_t mode);
/* PRF_MODE_* of a name, or -1. */
int mode_parse(const char *s);
/* What one count is: "samples", "allocations", "bytes", "calls", "nanoseconds". */
const char *mode_unit(uint32_t mode);
/* The names of counters N and N + 1 in that mode ("user", "idle" in time). */
const char *mode_bucket_name(uint32_t mode, int which);
/* The mode of a report (its last snapshot's). */
uint32_t report_mode(const struct report *r);
/*
 * A count as shown: bytes as B/KiB/MiB/GiB (alloc-bytes), nanoseconds as
 * ns/us/ms/s (offcpu), else the number.
 */
const char *fmt_count(uint32_t mode, uint64_t v, char *buf, size_t len);
const char *fmt_bytes(uint64_t v, char *buf, size_t len);
const char *fmt_time_ns(uint64_t v, char *buf, size_t len);
/* The per-site detail of the alloc modes, after a report: text, CSV, JSON. */
void sites_print(FILE *out, const struct report *r, const struct report_opts *o);
/* The "mode" line of the text header (nothing in time mode). */
void mode_header(FILE *out, const struct report *r);

#endif /* PRF_STACKS_H */
