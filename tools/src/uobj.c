// SPDX-License-Identifier: GPL-2.0-only
/*
 * uobj - the user objects table named.  See uobj.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "err.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "uobj.h"
#include "usym.h"

const char *uobj_state_name(enum uobj_state s)
{
	switch (s) {
	case UOBJ_OK:
		return "named";
	case UOBJ_NOSYMS:
		return "no symbols";
	case UOBJ_REPLACED:
		return "replaced";
	case UOBJ_DELETED:
		return "deleted";
	case UOBJ_LONGPATH:
		return "path too long";
	default:
		return "anonymous";
	}
}

int uobj_unsupported(int ret)
{
	return ret == -EINVAL || ret == -ENOTTY;
}

/* One file of the table as we found it. */
struct ufile {
	struct symtab t;	/* its functions by file offset (UOBJ_OK) */
	char *module;
	char *path;		/* as the kernel gave it */
	enum uobj_state state;
	uint64_t count;
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* What f is now, its module name, and its symbols when it is still there. */
static int open_file(const struct prf_uobj_file *f, struct ufile *u)
{
	char path[PRF_UOBJ_PATH_MAX + 1], err[256];
	const char *suffix = "";
	struct stat st;
	size_t len;

	symtab_init(&u->t);
	memcpy(path, f->path, PRF_UOBJ_PATH_MAX);
	path[PRF_UOBJ_PATH_MAX] = '\0';
	u->path = strdup(path);
	if (!u->path)
		return -ENOMEM;
	len = strlen(path);
	if (f->flags & PRF_UOBJ_DELETED) {
		if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
			path[len - 10] = '\0';
		u->state = UOBJ_DELETED;
		suffix = " (deleted)";
	} else if (f->flags & PRF_UOBJ_LONGPATH) {
		u->state = UOBJ_LONGPATH;
		suffix = " (long path)";
	} else if (stat(path, &st) || major(st.st_dev) != f->major ||
		   minor(st.st_dev) != f->minor || st.st_ino != f->ino) {
		/* another file at the path now, or none: never its symbols */
		u->state = UOBJ_REPLACED;
		suffix = " (replaced)";
	} else {
		u->state = UOBJ_OK;
	}
	if (asprintf(&u->module, "%s%s", base_name(path), suffix) < 0) {
		u->module = NULL;
		return -ENOMEM;
	}
	if (u->state != UOBJ_OK)
		return 0;
	/*
	 * Read the symbols; the inode checked again afterwards through the
	 * descriptor would be better, but a file replaced between the stat
	 * and the open is a window of microseconds.
	 */
	if (usym_add_file(&u->t, path, u->module, err, sizeof(err)) < 0) {
		if (!strcmp(err, strerror(ENOMEM)))
			return -ENOMEM;
		symtab_free(&u->t);
		u->state = UOBJ_NOSYMS;
		return 0;
	}
	symtab_sort_dedupe(&u->t);
	return 0;
}

/* Rows aggregated by (module, name, path): a small open hash. */
struct agg {
	struct uobj_row *v;
	size_t n, cap;		/* cap: a power of two, the slots of idx */
	size_t *idx;		/* slot -> row + 1, 0 empty */
};

static uint64_t hash3(const char *a, const char *b, const char *c)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; c && *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	return h;
}

static int same_path(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * Two files of the same name (/usr/bin/x, /opt/x) keep rows of their own:
 * the path is part of the key.  offset: the function's start (named).
 */
static int agg_add(struct agg *g, const char *name, const char *module, const char *path,
		   uint64_t offset, uint64_t count, int named)
{
	size_t s;

	if (2 * (g->n + 1) > g->cap) {
		size_t ncap = g->cap ? 2 * g->cap : 256, i;
		size_t *ni = calloc(ncap, sizeof(*ni));
		struct uobj_row *nv = realloc(g->v, ncap * sizeof(*nv));

		if (!ni || !nv) {
			free(ni);
			if (nv)
				g->v = nv;
			return -ENOMEM;
		}
		g->v = nv;
		for (i = 0; i < g->n; i++) {
			s = hash3(g->v[i].name, g->v[i].module, g->v[i].path) & (ncap - 1);
			while (ni[s])
				s = (s + 1) & (ncap - 1);
			ni[s] = i + 1;
		}
		free(g->idx);
		g->idx = ni;
		g->cap = ncap;
	}
	s = hash3(name, module, path) & (g->cap - 1);
	while (g->idx[s]) {
		struct uobj_row *r = &g->v[g->idx[s] - 1];

		if (!strcmp(r->name, name) && !strcmp(r->module, module) &&
		    same_path(r->path, path)) {
			r->count += count;
			return 0;
		}
		s = (s + 1) & (g->cap - 1);
	}
	g->v[g->n].name = strdup(name);
	g->v[g->n].module = strdup(module);
	g->v[g->n].path = path ? strdup(path) : NULL;
	g->v[g->n].offset = offset;
	g->v[g->n].count = count;
	g->v[g->n].named = named;
	if (!g->v[g->n].name || !g->v[g->n].module || (path && !g->v[g->n].path)) {
		free(g->v[g->n].name);
		free(g->v[g->n].module);
		free(g->v[g->n].path);
		return -ENOMEM;
	}
	g->idx[s] = ++g->n;
	return 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct uobj_row *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	c = strcmp(a->module, b->module);
	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

static int cmp_prog(const void *pa, const void *pb)
{
	const struct uobj_prog *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->path, b->path);
}

#define ANON_NAME	"[anonymous/JIT]"
#define ANON_MODULE	"[anonymous]"

int uobj_resolve(const struct prf_uobjs *h, const struct prf_uobj *e,
		 const struct prf_uobj_file *f, struct uobj_res *out, char *err, size_t errlen)
{
	struct ufile *uf = NULL;
	struct agg g = { 0 };
	uint64_t anon = 0;
	size_t i, k;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->lost = h->lost;
	out->dropped = h->dropped;
	out->unmapped = h->unmapped;
	out->used = h->used;
	out->capacity = h->capacity;
	out->files_used = h->files_used;
	out->files_max = h->files_max;
	if (h->nfiles && !(uf = calloc(h->nfiles, sizeof(*uf))))
		goto nomem;
	for (i = 0; i < h->nfiles; i++)
		if (open_file(&f[i], &uf[i]))
			goto nomem;
	for (i = 0; i < h->nr; i++) {
		const struct prf_uobj *x = &e[i];
		struct ufile *u;
		char *nm = NULL;
		long j;

		if (!x->count)
			continue;
		out->entries += x->count;
		if (x->file == PRF_UOBJ_ANON || x->file >= h->nfiles) {
			anon += x->count;
			if (agg_add(&g, ANON_NAME, ANON_MODULE, NULL, 0, x->count, 0))
				goto nomem;
			continue;
		}
		u = &uf[x->file];
		u->count += x->count;
		j = u->state == UOBJ_OK ? symtab_find(&u->t, x->offset) : -1;
		/*
		 * Past the function's end (its st_size): not its code, but code
		 * the symbols do not name (a static function of a stripped
		 * file's .dynsym, the PLT, padding): the file alone.
		 */
		if (j >= 0 && u->t.v[j].kind == SYM_FUNC &&
		    (!u->t.v[j].size || x->offset < u->t.v[j].addr + u->t.v[j].size)) {
			out->named += x->count;
			ret = agg_add(&g, u->t.v[j].name, u->module, u->path, u->t.v[j].addr,
				      x->count, 1);
		} else {
			/* the file alone: "[prog]" (deleted, replaced, no symbol there) */
			if (asprintf(&nm, "[%s]", u->module) < 0)
				goto nomem;
			ret = agg_add(&g, nm, u->module, u->path, 0, x->count, 0);
			free(nm);
		}
		if (ret)
			goto nomem;
	}
	/* Programs: the files that counted, and the anonymous mappings. */
	out->progs = calloc(h->nfiles + 1, sizeof(*out->progs));
	if (!out->progs)
		goto nomem;
	for (i = 0; i < h->nfiles; i++) {
		struct uobj_prog *p = &out->progs[out->nprogs];
		char path[PRF_UOBJ_PATH_MAX + 1];

		if (!uf[i].count)
			continue;
		memcpy(path, f[i].path, PRF_UOBJ_PATH_MAX);
		path[PRF_UOBJ_PATH_MAX] = '\0';
		p->module = strdup(uf[i].module);
		p->path = strdup(path);
		p->count = uf[i].count;
		p->state = uf[i].state;
		out->nprogs++;
		if (!p->module || !p->path)
			goto nomem;
	}
	if (anon) {
		struct uobj_prog *p = &out->progs[out->nprogs++];

		p->module = strdup(ANON_MODULE);
		p->path = strdup("(no file: anonymous memory, JIT code, vDSO)");
		p->count = anon;
		p->state = UOBJ_ANON;
		if (!p->module || !p->path)
			goto nomem;
	}
	qsort(out->progs, out->nprogs, sizeof(*out->progs), cmp_prog);
	qsort(g.v, g.n, sizeof(*g.v), cmp_row);
	out->rows = g.v;
	out->nrows = g.n;
	free(g.idx);
	for (k = 0; k < h->nfiles; k++) {
		symtab_free(&uf[k].t);
		free(uf[k].module);
		free(uf[k].path);
	}
	free(uf);
	return 0;
nomem:
	for (k = 0; uf && k < h->nfiles; k++) {
		symtab_free(&uf[k].t);
		free(uf[k].module);
		free(uf[k].path);
	}
	free(uf);
	for (k = 0; k < g.n; k++) {
		free(g.v[k].name);
		free(g.v[k].module);
		free(g.v[k].path);
	}
	free(g.v);
	free(g.idx);
	out->rows = NULL;
	out->nrows = 0;
	uobj_res_free(out);
	seterr(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}

void uobj_res_free(struct uobj_res *u)
{
	size_t i;

	for (i = 0; i < u->nrows; i++) {
		free(u->rows[i].name);
		free(u->rows[i].module);
		free(u->rows[i].path);
	}
	for (i = 0; u->progs && i < u->nprogs; i++) {
		free(u->progs[i].module);
		free(u->progs[i].path);
	}
	free(u->rows);
	free(u->progs);
	memset(u, 0, sizeof(*u));
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct uobj_row *a = *(const struct uobj_row *const *)pa;
	const struct uobj_row *b = *(const struct uobj_row *const *)pb;
	int c = strcmp(a->module, b->module);

	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int uobj_res_delta(const struct uobj_res *cur, const struct uobj_res *prev,
		   struct uobj_res *out)
{
	const struct uobj_row **pv = NULL;
	size_t i, k = 0;

	memset(out, 0, sizeof(*out));
	out->entries = sub0(cur->entries, prev->entries);
	out->named = sub0(cur->named, prev->named);
	out->lost = sub0(cur->lost, prev->lost);
	out->dropped = sub0(cur->dropped, prev->dropped);
	out->unmapped = sub0(cur->unmapped, prev->unmapped);
	out->used = cur->used;
	out->capacity = cur->capacity;
	out->files_used = cur->files_used;
	out->files_max = cur->files_max;
	if (prev->nrows && !(pv = malloc(prev->nrows * sizeof(*pv))))
		return -ENOMEM;
	for (i = 0; i < prev->nrows; i++)
		pv[i] = &prev->rows[i];
	qsort(pv, prev->nrows, sizeof(*pv), cmp_key);
	out->rows = calloc(cur->nrows ? cur->nrows : 1, sizeof(*out->rows));
	if (!out->rows) {
		free(pv);
		return -ENOMEM;
	}
	for (i = 0; i < cur->nrows; i++) {
		const struct uobj_row *c = &cur->rows[i], *key = c, **hit;
		uint64_t d = c->count;

		hit = prev->nrows ? bsearch(&key, pv, prev->nrows, sizeof(*pv), cmp_key) : NULL;
		if (hit)
			d = sub0(c->count, (*hit)->count);
		if (!d)
			continue;
		out->rows[k].name = strdup(c->name);
		out->rows[k].module = strdup(c->module);
		out->rows[k].path = c->path ? strdup(c->path) : NULL;
		out->rows[k].offset = c->offset;
		out->rows[k].count = d;
		out->rows[k].named = c->named;
		out->nrows = ++k;
		if (!out->rows[k - 1].name || !out->rows[k - 1].module ||
		    (c->path && !out->rows[k - 1].path)) {
			free(pv);
			uobj_res_free(out);
			return -ENOMEM;
		}
	}
	free(pv);
	qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
	return 0;
}

#define UNNAMED_NAME	"[user, unnamed]"

int uobj_inject(struct report *r, const struct uobj_res *u, struct snap_table *nt)
{
	const struct snap_table *t = r->t;
	size_t k = u->nrows, n = k + 1 + t->n, i;
	uint64_t *cb, unnamed;
	struct report nr;
	int ret;

	memset(nt, 0, sizeof(*nt));
	/* counter N (the user samples no user row holds), less the named */
	unnamed = r->user_rest > u->entries ? r->user_rest - u->entries : 0;
	nt->e = calloc(n, sizeof(*nt->e));
	cb = calloc(n + 2, sizeof(*cb));
	if (!nt->e || !cb)
		goto nomem;
	nt->id = t->id;
	nt->text = t->text;
	nt->n = n;
	for (i = 0; i < k; i++) {
		nt->e[i].addr = i + 1;
		nt->e[i].kind = u->rows[i].named ? SYM_FUNC : SYM_UNKNOWN;
		nt->e[i].name = strdup(u->rows[i].name);
		nt->e[i].module = strdup(u->rows[i].module);
		nt->e[i].uobj = 1;
		nt->e[i].file = u->rows[i].path ? strdup(u->rows[i].path) : NULL;
		nt->e[i].offset = u->rows[i].offset;
		if (!nt->e[i].name || !nt->e[i].module || (u->rows[i].path && !nt->e[i].file))
			goto nomem;
		cb[i] = u->rows[i].count;
	}
	nt->e[k].addr = k + 1;
	nt->e[k].kind = SYM_UNKNOWN;
	nt->e[k].name = strdup(UNNAMED_NAME);
	nt->e[k].module = strdup("[user]");
	nt->e[k].uobj = 1;
	if (!nt->e[k].name || !nt->e[k].module)
		goto nomem;
	cb[k] = unnamed;
	for (i = 0; i < t->n; i++) {
		struct snap_entry *d = &nt->e[k + 1 + i];

		d->addr = t->e[i].addr;
		d->kind = t->e[i].kind;
		d->name = t->e[i].name ? strdup(t->e[i].name) : NULL;
		d->module = t->e[i].module ? strdup(t->e[i].module) : NULL;
		if ((t->e[i].name && !d->name) || (t->e[i].module && !d->module))
			goto nomem;
	}
	for (i = 0; i < r->nrows; i++)
		cb[k + 1 + r->rows[i].idx] = r->rows[i].samples;
	cb[n] = 0;		/* counter N: every user sample has a row now */
	cb[n + 1] = r->idle;
	ret = report_build(&nr, nt, NULL, cb, r->outside, r->lost);
	free(cb);
	cb = NULL;
	if (ret)
		goto nomem;
	nr.a = r->a;
	nr.b = r->b;
	nr.ia = r->ia;
	nr.ib = r->ib;
	nr.file = r->file;
	nr.seconds = r->seconds;
	nr.on_seconds = r->on_seconds;
	nr.mode = r->mode;
	nr.src = r->src;
	nr.irqoff_to_caller = r->irqoff_to_caller;
	nr.irqoff_moved = r->irqoff_moved;
	nr.uobjs = r->uobjs;
	report_free(r);
	*r = nr;
	return 0;
nomem:
	free(cb);
	snap_table_free(nt);
	return -ENOMEM;
}

void uobj_print_programs(FILE *out, const struct uobj_res *u, uint64_t user, int csv)
{
	size_t i;

	if (csv)
		fprintf(out, "samples,percent_of_user,program,state,path\n");
	else
		fprintf(out, "%10s %7s  %-24s %-10s %s\n", "user", "%user", "program", "state",
			"path");
	for (i = 0; i < u->nprogs; i++) {
		const struct uobj_prog *p = &u->progs[i];
		double pc = user ? 100.0 * (double)p->count / (double)user : 0.0;

		if (csv) {
			fprintf(out, "%" PRIu64 ",%.2f,", p->count, pc);
			report_csv_field(out, p->module);
			fprintf(out, ",%s,", uobj_state_name(p->state));
			report_csv_field(out, p->path);
			fputc('\n', out);
		} else {
			fprintf(out, "%10" PRIu64 " %6.2f%%  %-24s %-10s %s\n", p->count, pc,
				p->module, uobj_state_name(p->state), p->path);
		}
	}
	if (user > u->entries) {
		uint64_t un = user - u->entries;
		double pc = user ? 100.0 * (double)un / (double)user : 0.0;

		if (csv)
			fprintf(out, "%" PRIu64 ",%.2f,[user, unnamed],,\n", un, pc);
		else
			fprintf(out, "%10" PRIu64 " %6.2f%%  %-24s %-10s %s\n", un, pc,
				UNNAMED_NAME, "", "(lost, dropped, unmapped)");
	}
	if (!csv && (u->lost || u->dropped || u->unmapped))
		fprintf(out, "user objects: %" PRIu64 " lost (a CPU's ring full), %" PRIu64
			" dropped (table full: %u/%u entries, %u/%u files), %" PRIu64
			" unmapped (no mapping at the PC when resolved)\n", u->lost, u->dropped,
			u->used, u->capacity, u->files_used, u->files_max, u->unmapped);
	if (!csv && user != u->entries + u->lost + u->dropped + u->unmapped)
		fprintf(out, "user objects: entries %" PRIu64 " + lost + dropped + unmapped = %"
			PRIu64 ", not the user total %" PRIu64 " (read while sampling?)\n",
			u->entries, u->entries + u->lost + u->dropped + u->unmapped, user);
}

void uobj_print_json(FILE *out, const struct uobj_res *u, uint64_t user)
{
	size_t i;

	fprintf(out, "  \"user_objects\": {\"programs\": [");
	for (i = 0; i < u->nprogs; i++) {
		const struct uobj_prog *p = &u->progs[i];

		fprintf(out, "%s\n    {\"program\": ", i ? "," : "");
		report_json_str(out, p->module, 0);
		fprintf(out, ", \"path\": ");
		report_json_str(out, p->path, 0);
		fprintf(out, ", \"state\": \"%s\", \"samples\": %" PRIu64 ", \"percent_of_user\": "
			"%.2f}", uobj_state_name(p->state), p->count,
			user ? 100.0 * (double)p->count / (double)user : 0.0);
	}
	fprintf(out, "%s], \"entries\": %" PRIu64 ", \"named\": %" PRIu64 ", \"unnamed\": %"
		PRIu64 ", \"lost\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"unmapped\": %"
		PRIu64 ", \"used\": %u, \"capacity\": %u, \"files_used\": %u, \"files_max\": %u},\n",
		u->nprogs ? "\n  " : "", u->entries, u->named,
		user > u->entries ? user - u->entries : 0, u->lost, u->dropped, u->unmapped,
		u->used, u->capacity, u->files_used, u->files_max);
}
