/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * html - prfpr --html: one self-contained HTML page (inline CSS and
 * JavaScript, nothing fetched) with the summary, the sortable function
 * table, the shares by module, a flame graph and, over a file's snapshots,
 * a timeline.
 */
#ifndef PRF_HTML_H
#define PRF_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "snapshot.h"

/* One folded stack: frames outermost first, ';' between them. */
struct html_stack {
	const char *frames;
	uint64_t count;
};

struct html_input {
	const struct report *r;
	const struct report_opts *o;	/* of, modules (cutoff: not applied) */
	const struct snapfile *f;	/* the timeline over its snapshots; NULL none */
	long first, last;		/* the snapshots of the timeline (1-based) */
	/* The flame graph's stacks; NULL: module;function of every row. */
	const struct html_stack *stacks;
	size_t nstacks;
};

/*
 * html_read_folded - folded stacks from path ("frame;frame;... count"
 * lines, as flamegraph.pl reads them; blank lines skipped) into *v, *n
 * (free with html_free_stacks).  0, or -1 and err.
 */
int html_read_folded(const char *path, struct html_stack **v, size_t *n,
		     char *err, size_t errlen);
void html_free_stacks(struct html_stack *v, size_t n);

/* Write the page to path.  0, or -1 and err. */
int html_write(const char *path, const struct html_input *in, char *err, size_t errlen);

#endif /* PRF_HTML_H */
