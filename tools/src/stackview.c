// SPDX-License-Identifier: GPL-2.0-only
/*
 * stackview - the call stacks of the report model (stackview.h): between
 * two snapshots, matched by their PCs, joined by the user call chains a
 * report names (uobj.h).  A transform of the model: it prints nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "model.h"
#include "snapshot.h"
#include "stackview.h"
#include "uobj.h"

/* ---- the stacks between two snapshots ---- */

const char *frame_func(const struct snap_frame *f, char *buf, size_t len)
{
	const char *n = f->name ? f->name : "?";
	const char *plus = strstr(n, "+0x");

	/* a user chain's frame: named as its row is (demangled), no offset */
	if (f->user)
		return sym_shown(n, f->addr);
	if (!plus || plus == n)
		return n;
	snprintf(buf, len, "%.*s", (int)(plus - n), n);
	return buf;
}

/* Stacks ordered by flags, depth and PCs, to match a's with b's. */
static int cmp_stack(const struct sv_stack *a, const struct sv_stack *b)
{
	uint32_t k;

	if (a->flags != b->flags)
		return a->flags < b->flags ? -1 : 1;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	for (k = 0; k < a->nr; k++)
		if (a->f[k]->addr != b->f[k]->addr)
			return a->f[k]->addr < b->f[k]->addr ? -1 : 1;
	return 0;
}

static int cmp_stack_q(const void *pa, const void *pb)
{
	return cmp_stack(pa, pb);
}

/* The stacks of x as a view (frames pointing into x). */
static int view_of(const struct snap_ext *x, struct stackview *sv)
{
	size_t i, k;

	memset(sv, 0, sizeof(*sv));
	sv->v = calloc(x->nstacks ? x->nstacks : 1, sizeof(*sv->v));
	if (!sv->v)
		return -1;
	for (i = 0; i < x->nstacks; i++) {
		struct sv_stack *s = &sv->v[i];

		s->count = x->stacks[i].count;
		s->flags = x->stacks[i].flags;
		s->nr = x->stacks[i].nr;
		s->f = calloc(s->nr ? s->nr : 1, sizeof(*s->f));
		sv->n = i + 1;
		if (!s->f)
			return -1;
		for (k = 0; k < s->nr; k++)
			s->f[k] = &x->frames[x->stacks[i].f[k]];
	}
	qsort(sv->v, sv->n, sizeof(*sv->v), cmp_stack_q);
	sv->dropped = x->stacks_dropped;
	sv->depth = x->depth;
	return 0;
}

void stackview_free(struct stackview *sv)
{
	size_t i;

	for (i = 0; i < sv->n && sv->v; i++)
		free(sv->v[i].f);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

int stacks_user_chains(const struct report *r)
{
	return r->uobjs && r->uobjs->chains_on;
}

uint64_t stacks_user_unchained(const struct report *r)
{
	uint64_t c = r->uobjs ? r->uobjs->chained : 0;

	return r->user > c ? r->user - c : 0;
}

/*
 * The user call chains of u after the kernel's stacks, as user stacks
 * (PRF_STACK_USER) whose frames are u's: the kernel's stacks hold no
 * user-mode sample, so none is counted twice.
 */
static int add_user_chains(struct stackview *sv, const struct uobj_res *u)
{
	struct sv_stack *v;
	size_t i;
	uint32_t k;

	if (!u->nchains)
		return 0;
	v = realloc(sv->v, (sv->n + u->nchains) * sizeof(*v));
	if (!v)
		return -1;
	sv->v = v;
	for (i = 0; i < u->nchains; i++) {
		const struct uobj_chain *c = &u->chains[i];
		struct sv_stack *s = &sv->v[sv->n];

		s->count = c->count;
		s->flags = PRF_STACK_USER |
			   (c->flags & PRF_UCHAIN_TRUNCATED ? PRF_STACK_TRUNCATED : 0);
		s->nr = c->nr;
		s->f = calloc(c->nr ? c->nr : 1, sizeof(*s->f));
		if (!s->f)
			return -1;
		for (k = 0; k < c->nr; k++)
			s->f[k] = &u->frames[c->f[k]];
		sv->n++;
		sv->total += c->count;
	}
	return 0;
}

int stackview_build(const struct report *r, struct stackview *sv, char *err, size_t errlen)
{
	const struct snap_ext *xb = r->b ? r->b->ext : NULL;
	const struct snap_ext *xa = r->a ? r->a->ext : NULL;
	struct stackview a = { 0 };
	size_t i, j = 0, k = 0;

	memset(sv, 0, sizeof(*sv));
	if (!xb || !xb->depth)
		return 0;
	if (view_of(xb, sv) || (xa && xa->depth && view_of(xa, &a)))
		goto oom;
	if (xa && xa->stacks_dropped <= sv->dropped)
		sv->dropped -= xa->stacks_dropped;
	/* Both sorted: subtract a's count from the same stack of b. */
	for (i = 0; i < sv->n; i++) {
		int c = 1;

		while (j < a.n && (c = cmp_stack(&a.v[j], &sv->v[i])) < 0)
			j++;
		if (j < a.n && !c) {
			if (a.v[j].count > sv->v[i].count) {
				snprintf(err, errlen, "stack counts of snapshot %ld are below those "
					 "of snapshot %ld: the device was cleared between them",
					 r->ib, r->ia);
				stackview_free(&a);
				stackview_free(sv);
				return -1;
			}
			sv->v[i].count -= a.v[j].count;
		}
	}
	/* Only the stacks with samples between the two. */
	for (i = 0; i < sv->n; i++) {
		if (!sv->v[i].count) {
			free(sv->v[i].f);
			continue;
		}
		sv->total += sv->v[i].count;
		sv->v[k++] = sv->v[i];
	}
	sv->n = k;
	stackview_free(&a);
	if (stacks_user_chains(r) && add_user_chains(sv, r->uobjs))
		goto oom;
	return 1;
oom:
	stackview_free(&a);
	stackview_free(sv);
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}
