/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * model - the report model, what every renderer reads: the samples of
 * each table entry between two sets of counters (rows, by share), the
 * totals, the snapshots' extension (stacks, mode, sites, source) and the
 * user objects named; the names of entries, and what a share is of.
 * Built from snapshots (model.c); transforms (irqoff.h, stackview.h,
 * uobj.h) change it, renderers (report.h, stacks.h, html.h, pprof.h) print
 * it.
 */
#ifndef PRF_MODEL_H
#define PRF_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"

struct uobj_res;

enum report_format { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_FOLDED };

struct report_row {
	size_t idx;		/* table entry */
	uint64_t samples;
	double pct;		/* of all samples (reports print report_base()'s) */
};

struct report {
	const struct snap_table *t;
	const struct snapshot *a;	/* NULL: counted from the load or clear */
	const struct snapshot *b;
	long ia, ib;			/* 1-based snapshot numbers, 0 for none */
	struct report_row *rows;	/* every entry with samples, by share */
	size_t nrows;
	uint64_t all;			/* kernel + user + idle + outside */
	uint64_t kernel;		/* the N counters (but user functions') */
	uint64_t in_sentinels;		/* part of kernel in sentinel entries */
	int user_rows;			/* user functions (PRF_FLAG_USERPC) have samples */
	uint64_t user_rest;		/* of user, counter N: what no user row holds */
	uint64_t user, idle, outside, lost;	/* user: counter N and user functions */
	const char *file;		/* where the snapshots are, for --diff's header */
	double seconds;			/* wall-clock between the snapshots */
	double on_seconds;		/* time sampling was ON between them */
	uint32_t mode;			/* PRF_MODE_* when b has no extension (prf top) */
	const struct snap_ext *src;	/* the source when b has no extension (prf top) */
	int irqoff_to_caller;		/* --irqoff-to-caller applied (irqoff.c) */
	uint64_t irqoff_moved;		/* the samples it charged to callers */
	const struct uobj_res *uobjs;	/* the user objects named (uobj.h), NULL none */
};

/*
 * report_build - (re)initializes all of *r: deltas between counter arrays ca (NULL: zero) and cb, both
 * n + 2 long, of table t.  outside/lost are the deltas of ticks_outside and
 * ticks_lost.  Returns 0, -ERANGE when a counter went backwards (the
 * device was cleared or reloaded in between), or -ENOMEM.
 */
int report_build(struct report *r, const struct snap_table *t,
		 const uint64_t *ca, const uint64_t *cb,
		 uint64_t outside, uint64_t lost);

/*
 * report_from_file - snapshots ia and ib (1-based; ia 0: from zero) of f.
 * 0, or -1 with err set.
 */
int report_from_file(struct report *r, const struct snapfile *f, long ia, long ib,
		     char *err, size_t errlen);

void report_free(struct report *r);

/* What a function's percentage is of: --of kernel|busy|all. */
enum report_of {
	OF_KERNEL,	/* kernel samples: the N counters and ticks_outside (default) */
	OF_BUSY,	/* kernel and user samples */
	OF_ALL,		/* every sample, idle included */
};

/* --sort: the order of the function rows. */
enum report_sort { SORT_SAMPLES, SORT_ADDRESS, SORT_NAME, SORT_MODULE };

struct report_opts {
	enum report_format format;
	enum report_of of;
	int of_given;		/* of was asked for: else busy when user functions have rows */
	enum report_sort sort;
	const char *modules;	/* comma-separated: rows of these alone ('kernel': the kernel), NULL all */
	double cutoff;		/* percent (of o->of); rows at or below are left out */
	const char *file;	/* shown in the header */
	int bar_width;		/* text: width of the longest bar */
	size_t max_rows;	/* 0: no limit */
	int width;		/* text: columns of the terminal, 0: no limit (names cut to fit) */
	int compact;		/* text: the totals on one line (prf top) */
};

/* The samples percentages are of, and its name ("kernel", "busy", "all"). */
uint64_t report_base(const struct report *r, enum report_of of);
/* Does the comma-separated list (--modules) name m? */
int report_in_list(const char *list, const char *m);
void report_default_of(const struct report *r, struct report_opts *o);
const char *report_of_name(enum report_of of);
/* "kernel" -> OF_KERNEL ...; -1 when unknown.  The same for --sort. */
int report_of_parse(const char *s);
int report_sort_parse(const char *s);

/*
 * report_name_last - the last loaded address counts every kernel PC at or
 * above it, and prfld always makes it a sentinel: name it so even when it
 * falls on another module's function (prfld -m ext4).
 */
void report_name_last(struct snap_table *t);

/* Entry display helpers. */
const char *report_module(const struct snap_table *t, size_t idx);
/* The function's name as reports print it: a user one demangled (demangle.h). */
const char *report_name(const struct snap_table *t, size_t idx);
/*
 * report_address - the address reports give entry idx: its table address,
 * or for a user objects row (uobj) the function's offset in its file.  1,
 * or 0 when there is none (a file's unnamed part, anonymous memory, the
 * unnamed user samples: CSV leaves it empty, JSON says null).
 */
int report_address(const struct snap_table *t, size_t idx, uint64_t *addr);
/*
 * report_user_row - row i is a user function's (a user objects row, or a
 * PRF_FLAG_USERPC table's) and has samples: the rows the stack views add
 * as one-frame stacks, the kernel keeping no stack of a user sample.
 */
int report_user_row(const struct report *r, size_t i);
const char *report_kind(unsigned kind);

#endif /* PRF_MODEL_H */
