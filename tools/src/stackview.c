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

/*
 * Pair p against kernel stack s: by flags, number of frames, then PCs (a
 * snapshot's frame past the leaf is its return address less 1, the call;
 * the pair's PCs are as the kernel gave them), so that the pairs sorted
 * this way are found by a stack's frames.
 */
static int pair_cmp(const struct uobj_pair *p, const struct sv_stack *s)
{
	uint32_t k;

	if (p->kflags != s->flags)
		return p->kflags < s->flags ? -1 : 1;
	if (p->nr_pcs != s->nr)
		return p->nr_pcs < s->nr ? -1 : 1;
	for (k = 0; k < s->nr; k++) {
		uint64_t a = p->pcs[k] - (k > 0);

		if (a != s->f[k]->addr)
			return a < s->f[k]->addr ? -1 : 1;
	}
	return 0;
}

/*
 * Pairs by their kernel side as pair_cmp orders them (a caller's PC less
 * 1 too, so that a binary search by a stack's frames finds them), equal
 * ones as given.
 */
static int pair_sort_cmp(const void *pa, const void *pb)
{
	const struct uobj_pair *a = *(const struct uobj_pair *const *)pa;
	const struct uobj_pair *b = *(const struct uobj_pair *const *)pb;
	uint32_t k;

	if (a->kflags != b->kflags)
		return a->kflags < b->kflags ? -1 : 1;
	if (a->nr_pcs != b->nr_pcs)
		return a->nr_pcs < b->nr_pcs ? -1 : 1;
	for (k = 0; k < a->nr_pcs; k++) {
		uint64_t x = a->pcs[k] - (k > 0), y = b->pcs[k] - (k > 0);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return a < b ? -1 : a > b;
}

/*
 * The kernel stacks' samples that have a pair in u as joined stacks: each
 * pair of a stack's PCs takes its count of the stack's samples (at most
 * what is left of them), the stack keeps the rest, and one left at 0 goes.
 * The samples in all stay the same (sv->total).
 */
static int join_pairs(struct stackview *sv, const struct uobj_res *u)
{
	const struct uobj_pair **pv;
	struct sv_stack *out;
	size_t i, n = 0, cap, nk = sv->n;
	uint32_t k;

	if (!u->npairs)
		return 0;
	pv = calloc(u->npairs, sizeof(*pv));
	cap = sv->n + u->npairs;
	out = calloc(cap ? cap : 1, sizeof(*out));
	if (!pv || !out) {
		free(pv);
		free(out);
		return -1;
	}
	for (i = 0; i < u->npairs; i++)
		pv[i] = &u->pairs[i];
	qsort(pv, u->npairs, sizeof(*pv), pair_sort_cmp);
	for (i = 0; i < nk; i++) {
		struct sv_stack *s = &sv->v[i];
		size_t lo = 0, hi = u->npairs, j;

		if (s->flags & PRF_STACK_USER) {
			out[n++] = *s;
			s->f = NULL;
			continue;
		}
		while (lo < hi) {	/* the first pair of s's PCs */
			size_t mid = lo + (hi - lo) / 2;

			if (pair_cmp(pv[mid], s) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < u->npairs && s->count && !pair_cmp(pv[j], s); j++) {
			const struct uobj_pair *p = pv[j];
			struct sv_stack *o = &out[n];

			o->count = p->count < s->count ? p->count : s->count;
			o->flags = s->flags | SV_STACK_JOINED;
			o->nk = s->nr;
			o->uflags = p->uflags;
			o->nr = s->nr + p->nr;
			o->f = calloc(o->nr, sizeof(*o->f));
			if (!o->f)
				goto oom;
			n++;
			memcpy(o->f, s->f, s->nr * sizeof(*o->f));
			for (k = 0; k < p->nr; k++)
				o->f[s->nr + k] = &u->frames[p->f[k]];
			s->count -= o->count;
		}
		if (s->count)
			out[n++] = *s;
		else
			free(s->f);
		s->f = NULL;
	}
	free(pv);
	free(sv->v);
	sv->v = out;
	sv->n = n;
	return 0;
oom:
	/* those moved to out are freed here, the others by the caller (stackview_free) */
	for (i = 0; i < n; i++)
		free(out[i].f);
	free(out);
	free(pv);
	return -1;
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
	if (r->uobjs && r->uobjs->pairs_on && join_pairs(sv, r->uobjs))
		goto oom;
	if (stacks_user_chains(r) && add_user_chains(sv, r->uobjs))
		goto oom;
	return 1;
oom:
	stackview_free(&a);
	stackview_free(sv);
	snprintf(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}
