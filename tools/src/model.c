// SPDX-License-Identifier: GPL-2.0-only
/*
 * model - the report model (model.h): the rows of a table's entries
 * between two snapshots, sorted, with the totals; how entries are named
 * and what a share is of.  It reads snapshots and names, and calls no
 * transform and no renderer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/prf.h>

#include "demangle.h"
#include "err.h"
#include "namelist.h"
#include "model.h"
#include "usym.h"

const char *report_module(const struct snap_table *t, size_t idx)
{
	const char *m = t->e[idx].module;

	return m && *m ? m : "kernel";
}

const char *report_name(const struct snap_table *t, size_t idx)
{
	return sym_shown(t->e[idx].name, t->e[idx].addr);
}

int report_user_row(const struct report *r, size_t i)
{
	return usym_is_user_addr(r->t->e[r->rows[i].idx].addr) && r->rows[i].samples;
}

int report_address(const struct snap_table *t, size_t idx, uint64_t *addr)
{
	const struct snap_entry *e = &t->e[idx];

	if (!e->uobj) {
		*addr = e->addr;
		return 1;
	}
	*addr = e->offset;
	return e->file && e->kind == SYM_FUNC;
}


const char *report_kind(unsigned kind)
{
	switch (kind) {
	case SYM_FUNC:
		return "function";
	case SYM_SENTINEL:
		return "sentinel";
	case SYM_BUCKET:
		return "bucket";
	default:
		return "unknown";
	}
}

static const struct snap_table *sort_table;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct report_row *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (sort_table->e[a->idx].addr != sort_table->e[b->idx].addr)
		return sort_table->e[a->idx].addr < sort_table->e[b->idx].addr ? -1 : 1;
	return 0;
}

int report_build(struct report *r, const struct snap_table *t,
		 const uint64_t *ca, const uint64_t *cb,
		 uint64_t outside, uint64_t lost)
{
	size_t i, n = t->n;

	memset(r, 0, sizeof(*r));
	r->t = t;
	if (n > SIZE_MAX / sizeof(*r->rows) - 2)
		return -ENOMEM;
	for (i = 0; i < n + 2; i++)
		if (ca && cb[i] < ca[i])
			return -ERANGE;
	r->rows = calloc(n ? n : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint64_t d = cb[i] - (ca ? ca[i] : 0);
		/* A PRF_FLAG_USERPC table's user functions: user samples. */
		int user = usym_is_user_addr(t->e[i].addr);

		if (user)
			r->user += d;
		else
			r->kernel += d;
		if (!d)
			continue;
		if (user)
			r->user_rows = 1;
		if (t->e[i].kind == SYM_SENTINEL && !user)
			r->in_sentinels += d;
		r->rows[r->nrows].idx = i;
		r->rows[r->nrows].samples = d;
		r->nrows++;
	}
	r->user_rest = cb[n] - (ca ? ca[n] : 0);
	r->user += r->user_rest;
	r->idle = cb[n + 1] - (ca ? ca[n + 1] : 0);
	r->outside = outside;
	r->lost = lost;
	r->all = r->kernel + r->user + r->idle + r->outside;
	for (i = 0; i < r->nrows; i++)
		r->rows[i].pct = r->all ? 100.0 * (double)r->rows[i].samples /
					  (double)r->all : 0.0;
	sort_table = t;
	qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_rows);
	return 0;
}

void report_free(struct report *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

int report_from_file(struct report *r, const struct snapfile *f, long ia, long ib,
		     char *err, size_t errlen)
{
	const struct snapshot *a = NULL, *b;
	uint64_t outside, lost;
	int ret;

	memset(r, 0, sizeof(*r));
	if (ib < 1 || (size_t)ib > f->nsnaps || ia < 0 || (size_t)ia > f->nsnaps) {
		seterr(err, errlen, "no snapshot %ld: the file holds %zu",
		       ib < 1 || (size_t)ib > f->nsnaps ? ib : ia, f->nsnaps);
		return -1;
	}
	if (ia && ia >= ib) {
		seterr(err, errlen, "snapshot %ld is not before snapshot %ld", ia, ib);
		return -1;
	}
	b = &f->snaps[ib - 1];
	if (ia) {
		a = &f->snaps[ia - 1];
		if (a->table_id != b->table_id &&
		    !snap_table_equal(&f->tables[a->table_id], &f->tables[b->table_id])) {
			seterr(err, errlen,
			       "snapshots %ld and %ld were taken with different tables "
			       "(prfld ran between them)", ia, ib);
			return -1;
		}
		if (b->ticks_outside < a->ticks_outside || b->ticks_lost < a->ticks_lost) {
			ret = -ERANGE;
			goto range;
		}
	}
	outside = b->ticks_outside - (a ? a->ticks_outside : 0);
	lost = b->ticks_lost - (a ? a->ticks_lost : 0);
	ret = report_build(r, &f->tables[b->table_id], a ? a->counts : NULL,
			   b->counts, outside, lost);
range:
	if (ret == -ERANGE) {
		seterr(err, errlen,
		       "counters of snapshot %ld are below those of snapshot %ld: the device "
		       "was cleared or reloaded between them (pick another pair)", ib, ia);
		return -1;
	}
	if (ret) {
		seterr(err, errlen, "%s", strerror(-ret));
		return -1;
	}
	r->a = a;
	r->b = b;
	r->ia = ia;
	r->ib = ib;
	if (a) {
		r->seconds = (double)(b->time_ns - a->time_ns) / 1e9;
		r->on_seconds = b->on_ns >= a->on_ns ?
				(double)(b->on_ns - a->on_ns) / 1e9 : 0.0;
	} else {
		r->on_seconds = (double)b->on_ns / 1e9;
		r->seconds = r->on_seconds;
	}
	return 0;
}

static const char *const of_names[] = { "kernel", "busy", "all" };
static const char *const sort_names[] = { "samples", "address", "name", "module" };

const char *report_of_name(enum report_of of)
{
	return (unsigned)of < 3 ? of_names[of] : "?";
}

static int name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

int report_of_parse(const char *s)
{
	return name_index(of_names, 3, s);
}

int report_sort_parse(const char *s)
{
	return name_index(sort_names, 4, s);
}

/*
 * The percentages' base when --of was not given: kernel samples, but kernel
 * and user samples when user functions have rows (a PRF_FLAG_USERPC
 * table: prf record, prfld -p), so that user and kernel rows share a base.
 */
void report_default_of(const struct report *r, struct report_opts *o)
{
	if (!o->of_given && r->user_rows && o->of == OF_KERNEL)
		o->of = OF_BUSY;
}

uint64_t report_base(const struct report *r, enum report_of of)
{
	switch (of) {
	case OF_BUSY:
		return r->kernel + r->outside + r->user;
	case OF_ALL:
		return r->all;
	default:
		return r->kernel + r->outside;
	}
}

/* Does the comma-separated list name m? */
int report_in_list(const char *list, const char *m)
{
	size_t l = strlen(m);

	for (;;) {
		const char *c = strchr(list, ',');
		size_t n = c ? (size_t)(c - list) : strlen(list);

		if (n == l && !strncmp(list, m, l))
			return 1;
		if (!c)
			return 0;
		list = c + 1;
	}
}

/*
 * The last loaded address counts every kernel PC at or above it: prfld
 * always makes it a sentinel.  Name it so even where it falls on someone
 * else's function (prfld -m ext4 ends at the next module's start).
 */
void report_name_last(struct snap_table *t)
{
	struct snap_entry *last, *prev;
	char *nm;

	if (t->n < 2)
		return;
	last = &t->e[t->n - 1];
	prev = &t->e[t->n - 2];
	if (last->kind == SYM_SENTINEL || !last->name)
		return;
	if (prev->kind == SYM_FUNC)
		nm = nl_sentinel_name(prev->module);
	else
		nm = strdup("[past the last bucket]");
	if (!nm)
		return;
	free(last->name);
	free(last->module);
	last->name = nm;
	last->module = prev->module ? strdup(prev->module) : NULL;
	last->kind = SYM_SENTINEL;
}
