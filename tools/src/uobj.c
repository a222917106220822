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
#include "libprf.h"
#include "namelist.h"
#include "fmt.h"
#include "model.h"
#include "perfmap.h"
#include "snapshot.h"
#include "uobj.h"
#include "usym.h"
#include "vdso.h"

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
	case UOBJ_VDSO_OTHER:
		return "another kernel's";
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
	int vdso;		/* the vDSO: its module is its unnamed code's name */
	uint64_t count;
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* u's symbols from the ELF file at path; 0, or -ENOMEM (else UOBJ_NOSYMS). */
static int read_syms(struct ufile *u, const char *path)
{
	char err[256];

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

/*
 * The vDSO (PRF_UOBJ_VDSO_IMAGE), a file of no path: named by this
 * process's vDSO when the table's is the running kernel's (vdso_id NULL:
 * read from this machine's device; else the build ID recorded with it),
 * else VDSO_OTHER and no function.
 */
static int open_vdso(struct ufile *u, const char *vdso_id)
{
	const struct vdso *v = vdso_own(NULL, 0);
	int own = !vdso_id || vdso_is_own(vdso_id);

	u->vdso = 1;
	u->module = strdup(own ? VDSO_NAME : VDSO_OTHER);
	if (!u->module)
		return -ENOMEM;
	if (!own) {
		u->state = UOBJ_VDSO_OTHER;
		return 0;
	}
	if (!v) {
		u->state = UOBJ_NOSYMS;
		return 0;
	}
	u->state = UOBJ_OK;
	return read_syms(u, v->path);
}

/* What f is now, its module name, and its symbols when it is still there. */
static int open_file(const struct prf_uobj_file *f, struct ufile *u, const char *vdso_id)
{
	char path[PRF_UOBJ_PATH_MAX + 1];
	const char *suffix = "";
	struct stat st;
	size_t len;

	symtab_init(&u->t);
	memcpy(path, f->path, PRF_UOBJ_PATH_MAX);
	path[PRF_UOBJ_PATH_MAX] = '\0';
	/* the vDSO's path: "[vdso]", whatever a snapshot holds */
	u->path = strdup(f->flags & PRF_UOBJ_VDSO_IMAGE ? VDSO_NAME : path);
	if (!u->path)
		return -ENOMEM;
	if (f->flags & PRF_UOBJ_VDSO_IMAGE)
		return open_vdso(u, vdso_id);
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
	return read_syms(u, path);
}

/* The name of u's code no function names: "[PROGRAM]", the vDSO's module itself. */
static char *unnamed(const struct ufile *u)
{
	char *nm;

	if (u->vdso)
		return strdup(u->module);
	return asprintf(&nm, "[%s]", u->module) < 0 ? NULL : nm;
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

/* Where the JIT maps are looked for (uobj_set_perfmap_dir: the tests). */
static const char *perfmap_dir = "/tmp";

void uobj_set_perfmap_dir(const char *dir)
{
	perfmap_dir = dir ? dir : "/tmp";
}

/*
 * The JIT maps of the processes met in one resolve, each counted once in
 * its tallies: got from perfmap_get(), which keeps them between resolves
 * (prf top's refreshes) and reads one again only when its file changed.
 */
struct jitmaps {
	const struct perfmap **v;
	size_t n;
	struct uobj_res *out;	/* its maps' tallies */
};

static void jitmaps_free(struct jitmaps *j)
{
	size_t i;

	for (i = 0; j->v && i < j->n; i++)
		perfmap_put(j->v[i]);
	free(j->v);
	j->v = NULL;
	j->n = 0;
}

/* pid's map, got on first sight; NULL: no memory. */
static const struct perfmap *jitmap_of(struct jitmaps *j, int pid)
{
	const struct perfmap **nv, *m;
	size_t i;

	for (i = 0; i < j->n; i++)
		if (j->v[i]->pid == pid)
			return j->v[i];
	nv = realloc(j->v, (j->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	j->v = nv;
	m = perfmap_get(pid, perfmap_dir);
	if (!m)
		return NULL;
	j->v[j->n++] = m;
	if (m->state == PERFMAP_OK) {
		j->out->jit_maps++;
		j->out->jit_bad += m->bad;
		j->out->jit_truncated += m->truncated;
	}
	return m;
}

/*
 * Code of no file at pc of process pid (0: not known, a module or a
 * snapshot from before the pid) named from its JIT map: the function, of
 * module "perf-PID.map"; else "[anonymous/JIT]" and why not: no map, a map
 * older than the process, or pc in none of its functions.  0 or -1 (no
 * memory).
 */
static int anon_name(struct jitmaps *j, uint32_t pid, uint64_t pc, char **name, char **module)
{
	const struct perfmap_sym *s;
	const struct perfmap *m;
	const char *why;

	*name = *module = NULL;
	if (!pid) {
		*name = strdup(ANON_NAME);
		*module = strdup(ANON_MODULE);
		return *name && *module ? 0 : -1;
	}
	m = jitmap_of(j, (int)pid);
	if (!m)
		return -1;
	s = perfmap_find(m, pc);
	if (s) {
		*name = strdup(s->name);
		if (asprintf(module, "%s", strrchr(m->path, '/') + 1) < 0)
			*module = NULL;
		return *name && *module ? 0 : -1;
	}
	why = m->state == PERFMAP_MISSING ? "no" :
	      m->state == PERFMAP_STALE ? "stale:" : "not in";
	if (asprintf(name, "%s (%s %s%s)", ANON_NAME, why, m->path,
		     m->state == PERFMAP_STALE ? ", older than the process" : "") < 0)
		*name = NULL;
	*module = strdup(ANON_MODULE);
	return *name && *module ? 0 : -1;
}

/* The function of u that holds offset off, or NULL: the file alone. */
static const struct sym *func_at(const struct ufile *u, uint64_t off)
{
	long j = u->state == UOBJ_OK ? symtab_find(&u->t, off) : -1;

	/*
	 * Past the function's end (its st_size): not its code, but code
	 * the symbols do not name (a static function of a stripped
	 * file's .dynsym, the PLT, padding): the file alone.
	 */
	if (j >= 0 && u->t.v[j].kind == SYM_FUNC &&
	    (!u->t.v[j].size || off < u->t.v[j].addr + u->t.v[j].size))
		return &u->t.v[j];
	return NULL;
}

static void ufiles_free(struct ufile *uf, size_t n)
{
	size_t k;

	for (k = 0; uf && k < n; k++) {
		symtab_free(&uf[k].t);
		free(uf[k].module);
		free(uf[k].path);
	}
	free(uf);
}

/* ---- call chains ---- */

/* The chains' distinct frames: (file, offset, leaf or not) in a small open hash. */
struct fkey {
	const struct ufile *u;	/* NULL: anonymous */
	uint64_t off;
	int leaf;
	uint32_t pid;		/* anonymous: the process, 0 not known */
};

struct fset {
	struct jitmaps *jit;
	struct snap_frame *v;
	struct fkey *k;
	size_t n, cap;		/* cap: a power of two, the slots of idx */
	size_t *idx;		/* slot -> frame + 1, 0 empty */
};

static size_t fkey_slot(const struct fkey *k, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)k->u * 0x9e3779b97f4a7c15ULL;

	h ^= (k->off + (uint64_t)k->leaf + ((uint64_t)k->pid << 32)) * 0xff51afd7ed558ccdULL;
	return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

/*
 * Name a frame as the entries' rows are named: the function of the file
 * (a return address, past the leaf, at off - 1: the call it returns from
 * may end its function), else "[PROGRAM]"; anonymous code as its row.
 */
static int frame_name(struct jitmaps *j, const struct fkey *k, struct snap_frame *fr)
{
	uint64_t at = k->leaf || !k->off ? k->off : k->off - 1;
	const struct sym *s;

	fr->addr = k->off;
	fr->user = 1;
	if (!k->u)
		return anon_name(j, k->pid, at, &fr->name, &fr->module);
	s = func_at(k->u, at);
	fr->name = s ? strdup(s->name) : unnamed(k->u);
	fr->module = strdup(k->u->module);
	fr->file = strdup(k->u->path);
	return fr->name && fr->module && fr->file ? 0 : -1;
}

/* The index of frame k in s, added (and named) when new; -1: no memory. */
static long fset_add(struct fset *s, const struct fkey *k)
{
	size_t slot;

	if (2 * (s->n + 1) > s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 256, i;
		size_t *ni = calloc(ncap, sizeof(*ni));
		struct snap_frame *nv = realloc(s->v, ncap * sizeof(*nv));
		struct fkey *nk;

		if (nv)
			s->v = nv;
		nk = nv ? realloc(s->k, ncap * sizeof(*nk)) : NULL;
		if (nk)
			s->k = nk;
		if (!ni || !nv || !nk) {
			free(ni);
			return -1;
		}
		for (i = 0; i < s->n; i++) {
			slot = fkey_slot(&s->k[i], ncap);
			while (ni[slot])
				slot = (slot + 1) & (ncap - 1);
			ni[slot] = i + 1;
		}
		free(s->idx);
		s->idx = ni;
		s->cap = ncap;
	}
	for (slot = fkey_slot(k, s->cap); s->idx[slot]; slot = (slot + 1) & (s->cap - 1)) {
		const struct fkey *o = &s->k[s->idx[slot] - 1];

		if (o->u == k->u && o->off == k->off && o->leaf == k->leaf && o->pid == k->pid)
			return (long)(s->idx[slot] - 1);
	}
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	s->k[s->n] = *k;
	if (frame_name(s->jit, k, &s->v[s->n])) {
		free(s->v[s->n].name);
		free(s->v[s->n].module);
		free(s->v[s->n].file);
		return -1;
	}
	s->idx[slot] = ++s->n;
	return (long)(s->n - 1);
}

static int same_file(const struct prf_uobj_file *a, const struct prf_uobj_file *b)
{
	return a->major == b->major && a->minor == b->minor && a->ino == b->ino &&
	       a->flags == b->flags && !strncmp(a->path, b->path, PRF_UOBJ_PATH_MAX);
}

static int cmp_chain(const void *pa, const void *pb)
{
	const struct uobj_chain *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

/*
 * The chains of ch into out: each file of cf is the entries' (uf, of f)
 * when it is the same file (the same index, as read after the entries
 * with nothing zeroed in between, else found), else opened here (in *extra).
 */
/*
 * The pairs of pu into out, their user frames into fs as the chains' (a
 * pair's file is the chains' file of the same index when it is the same
 * file: one table, read after the chains with nothing zeroed; else found
 * among them, else its frames are anonymous).
 */
static int pairs_of(struct uobj_res *out, const struct snap_uobjs *pu,
		    const struct prf_uchains *ch, const struct prf_uobj_file *cf,
		    struct ufile **map, struct fset *fs)
{
	const struct prf_upairs *ph = &pu->ph;
	size_t i, j, n = 0;
	uint32_t k;

	out->pairs_on = 1;
	out->pairs_dropped = ph->dropped;
	if (!ph->nr || !ph->depth || !ph->udepth)
		return 0;
	out->pairs = calloc(ph->nr, sizeof(*out->pairs));
	if (!out->pairs)
		return -1;
	for (i = 0; i < ph->nr; i++) {
		const struct prf_upair *c = prf_upair_at(pu->precs, ph->depth, ph->udepth,
							 (uint32_t)i);
		const struct prf_uframe *fr = prf_upair_frames(c, ph->depth);
		struct uobj_pair *o = &out->pairs[n];
		uint32_t nr = c->nr_frames < ph->udepth ? c->nr_frames : ph->udepth;
		uint32_t np = c->nr_pcs < ph->depth ? c->nr_pcs : ph->depth;

		if (!c->count || !nr)
			continue;
		o->f = calloc(nr, sizeof(*o->f));
		o->pcs = calloc(np ? np : 1, sizeof(*o->pcs));
		out->npairs = ++n;
		if (!o->f || !o->pcs)
			return -1;
		o->count = c->count;
		o->kflags = c->kflags;
		o->nr_pcs = np;
		memcpy(o->pcs, prf_upair_pcs(c), np * sizeof(*o->pcs));
		o->uflags = c->uflags;
		o->nr = nr;
		out->paired += c->count;
		for (k = 0; k < nr; k++) {
			struct fkey key = { NULL, fr[k].offset, k == 0, 0 };
			uint32_t x = fr[k].file;
			long ix;

			if (x != PRF_UOBJ_ANON && x < ph->nfiles) {
				if (x < ch->nfiles && same_file(&pu->pf[x], &cf[x])) {
					key.u = map[x];
				} else {
					for (j = 0; j < ch->nfiles && !same_file(&pu->pf[x], &cf[j]); j++)
						;
					key.u = j < ch->nfiles ? map[j] : NULL;
				}
			} else {
				key.pid = fr[k].pid;	/* code of no file: its process's */
			}
			ix = fset_add(fs, &key);
			if (ix < 0)
				return -1;
			o->f[k] = (uint32_t)ix;
		}
	}
	return 0;
}

static int chains_of(struct uobj_res *out, const struct prf_uchains *ch, const void *recs,
		     const struct prf_uobj_file *cf, const struct prf_uobj_file *f,
		     struct ufile *uf, size_t nf, struct ufile **extra, struct jitmaps *jit,
		     const struct snap_uobjs *pu, const char *vdso_id)
{
	struct ufile **map = NULL;
	struct fset fs = { .jit = jit };
	size_t i, j, n = 0;
	uint32_t k;
	int ret = -1;

	out->chains_on = 1;
	out->chains_dropped = ch->dropped;
	out->chains_used = ch->used;
	out->chain_capacity = ch->capacity;
	out->chain_depth = ch->depth;
	if ((!ch->nr || !ch->depth) && !pu)
		return 0;
	map = calloc(ch->nfiles ? ch->nfiles : 1, sizeof(*map));
	*extra = calloc(ch->nfiles ? ch->nfiles : 1, sizeof(**extra));
	out->chains = calloc(ch->nr ? ch->nr : 1, sizeof(*out->chains));
	if (!map || !*extra || !out->chains)
		goto done;
	for (i = 0; i < ch->nfiles; i++) {
		if (i < nf && same_file(&cf[i], &f[i])) {
			map[i] = &uf[i];
			continue;
		}
		for (j = 0; j < nf && !same_file(&cf[i], &f[j]); j++)
			;
		if (j < nf) {
			map[i] = &uf[j];
		} else {
			map[i] = &(*extra)[i];
			if (open_file(&cf[i], map[i], vdso_id))
				goto done;
		}
	}
	for (i = 0; i < ch->nr; i++) {
		const struct prf_uchain *c = prf_uchain_at(recs, ch->depth, (uint32_t)i);
		const struct prf_uframe *fr = prf_uchain_frames(c);
		struct uobj_chain *o = &out->chains[n];
		uint32_t nr = c->nr_frames < ch->depth ? c->nr_frames : ch->depth;

		if (!c->count || !nr)
			continue;
		o->f = calloc(nr, sizeof(*o->f));
		if (!o->f)
			goto done;
		o->count = c->count;
		o->flags = c->flags;
		o->nr = nr;
		out->nchains = ++n;
		out->chained += c->count;
		for (k = 0; k < nr; k++) {
			struct fkey key = { NULL, fr[k].offset, k == 0, 0 };
			long x;

			if (fr[k].file != PRF_UOBJ_ANON && fr[k].file < ch->nfiles)
				key.u = map[fr[k].file];
			else
				key.pid = fr[k].pid;
			x = fset_add(&fs, &key);
			if (x < 0)
				goto done;
			o->f[k] = (uint32_t)x;
		}
	}
	qsort(out->chains, out->nchains, sizeof(*out->chains), cmp_chain);
	if (pu && pairs_of(out, pu, ch, cf, map, &fs))
		goto done;
	ret = 0;
done:
	/* the frames are out's, even on failure (uobj_res_free) */
	out->frames = fs.v;
	out->nframes = fs.n;
	free(fs.k);
	free(fs.idx);
	free(map);
	return ret;
}

int uobj_resolve(const struct prf_uobjs *h, const struct prf_uobj *e,
		 const struct prf_uobj_file *f, struct uobj_res *out, char *err, size_t errlen)
{
	return uobj_resolve_chains(h, e, f, NULL, NULL, NULL, out, err, errlen);
}

static int resolve(const struct prf_uobjs *h, const struct prf_uobj *e,
		   const struct prf_uobj_file *f, const struct prf_uchains *ch,
		   const void *recs, const struct prf_uobj_file *cf,
		   const struct snap_uobjs *pu, const char *vdso_id, struct uobj_res *out,
		   char *err, size_t errlen)
{
	struct ufile *uf = NULL, *extra = NULL;
	struct jitmaps jit = { .out = out };
	struct agg g = { 0 };
	uint64_t anon = 0;
	size_t i, k;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	/* the JIT maps kept of processes gone since the last resolve */
	perfmap_cache_sweep();
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
		if (open_file(&f[i], &uf[i], vdso_id))
			goto nomem;
	for (i = 0; i < h->nr; i++) {
		const struct prf_uobj *x = &e[i];
		const struct sym *s;
		struct ufile *u;
		char *nm = NULL;

		if (!x->count)
			continue;
		out->entries += x->count;
		if (x->file == PRF_UOBJ_ANON || x->file >= h->nfiles) {
			char *mod;

			anon += x->count;
			if (anon_name(&jit, x->file == PRF_UOBJ_ANON ? x->pid : 0, x->offset,
				      &nm, &mod)) {
				free(nm);
				free(mod);
				goto nomem;
			}
			/* named by its map: a function, at its address */
			ret = agg_add(&g, nm, mod, NULL, 0, x->count,
				      !!strcmp(mod, ANON_MODULE));
			if (ret == 0 && strcmp(mod, ANON_MODULE))
				out->named += x->count;
			free(nm);
			free(mod);
			if (ret)
				goto nomem;
			continue;
		}
		u = &uf[x->file];
		u->count += x->count;
		s = func_at(u, x->offset);
		if (s) {
			out->named += x->count;
			ret = agg_add(&g, s->name, u->module, u->path, s->addr, x->count, 1);
		} else {
			/* the file alone: "[prog]" (deleted, replaced, no symbol there) */
			if (!(nm = unnamed(u)))
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

		if (!uf[i].count)
			continue;
		p->module = strdup(uf[i].module);
		p->path = strdup(uf[i].path);
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
	g.v = NULL;
	g.n = 0;
	g.idx = NULL;
	if (ch && chains_of(out, ch, recs, cf, f, uf, h->nfiles, &extra, &jit, pu, vdso_id))
		goto nomem;
	jitmaps_free(&jit);
	ufiles_free(extra, ch ? ch->nfiles : 0);
	ufiles_free(uf, h->nfiles);
	return 0;
nomem:
	jitmaps_free(&jit);
	ufiles_free(extra, ch ? ch->nfiles : 0);
	ufiles_free(uf, h->nfiles);
	for (k = 0; k < g.n; k++) {
		free(g.v[k].name);
		free(g.v[k].module);
		free(g.v[k].path);
	}
	free(g.v);
	free(g.idx);
	uobj_res_free(out);
	seterr(err, errlen, "%s", strerror(ENOMEM));
	return -1;
}

int uobj_resolve_chains(const struct prf_uobjs *h, const struct prf_uobj *e,
			const struct prf_uobj_file *f, const struct prf_uchains *ch,
			const void *recs, const struct prf_uobj_file *cf, struct uobj_res *out,
			char *err, size_t errlen)
{
	return resolve(h, e, f, ch, recs, cf, NULL, NULL, out, err, errlen);
}

void uobj_res_free(struct uobj_res *u)
{
	size_t i;

	for (i = 0; u->rows && i < u->nrows; i++) {
		free(u->rows[i].name);
		free(u->rows[i].module);
		free(u->rows[i].path);
	}
	for (i = 0; u->progs && i < u->nprogs; i++) {
		free(u->progs[i].module);
		free(u->progs[i].path);
	}
	for (i = 0; u->frames && i < u->nframes; i++) {
		free(u->frames[i].name);
		free(u->frames[i].module);
		free(u->frames[i].file);
	}
	for (i = 0; u->chains && i < u->nchains; i++)
		free(u->chains[i].f);
	free(u->rows);
	free(u->progs);
	for (i = 0; u->pairs && i < u->npairs; i++) {
		free(u->pairs[i].f);
		free(u->pairs[i].pcs);
	}
	free(u->frames);
	free(u->chains);
	free(u->pairs);
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
	char note[160];
	size_t i;

	if (!csv && !u->nprogs && user <= u->entries) {
		fprintf(out, "user objects: no user sample\n");
		return;
	}
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
	if (!csv && (u->jit_bad || u->jit_truncated))
		fprintf(out, "JIT maps: %zu read, %zu lines skipped (not \"START SIZE name\", or "
			"longer than %d bytes), %zu cut at %u MiB\n", u->jit_maps, u->jit_bad,
			PERFMAP_MAX_LINE, u->jit_truncated, PERFMAP_MAX_BYTES >> 20);
	if (!csv && usym_debuginfod_note(note, sizeof(note)))
		fprintf(out, "%s\n", note);
	if (!csv && u->chains_on && u->nchains)
		fprintf(out, "user call chains: %" PRIu64 " samples in %zu chains of up to %u frames "
			"(%u/%u in the table), %" PRIu64 " dropped (a table full)\n", u->chained,
			u->nchains, u->chain_depth, u->chains_used, u->chain_capacity,
			u->chains_dropped);
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
		PRIu64 ", \"used\": %u, \"capacity\": %u, \"files_used\": %u, \"files_max\": %u",
		u->nprogs ? "\n  " : "", u->entries, u->named,
		user > u->entries ? user - u->entries : 0, u->lost, u->dropped, u->unmapped,
		u->used, u->capacity, u->files_used, u->files_max);
	fprintf(out, ", \"jit_maps\": {\"read\": %zu, \"bad_lines\": %zu, \"truncated\": %zu}",
		u->jit_maps, u->jit_bad, u->jit_truncated);
	/* the chains themselves are in "stacks" (user: true) */
	if (u->chains_on)
		fprintf(out, ", \"chains\": {\"samples\": %" PRIu64 ", \"chains\": %zu, "
			"\"unchained\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"depth\": %u, "
			"\"used\": %u, \"capacity\": %u}", u->chained, u->nchains,
			user > u->chained ? user - u->chained : 0, u->chains_dropped, u->chain_depth,
			u->chains_used, u->chain_capacity);
	fprintf(out, "},\n");
}

int uobj_resolve_snap(const struct snap_uobjs *u, struct uobj_res *out, char *err,
		      size_t errlen)
{
	return resolve(&u->h, u->e, u->f, u->chains_on ? &u->ch : NULL, u->recs, u->cf,
		       u->chains_on && u->pairs_on ? u : NULL, u->vdso_id, out, err, errlen);
}

/* ---- the difference of two tables (uobj_snap_delta) ---- */

/*
 * A file's identity: its device and inode, or anonymous memory, which is
 * a process's own (its pid: two processes' code at one address is two).
 */
struct ufid {
	uint32_t anon, major, minor, pid;
	uint64_t ino;
};

static struct ufid ufid_of(const struct prf_uobj_file *f, uint32_t nfiles, uint32_t idx,
			   uint32_t pid)
{
	struct ufid id = { 1, 0, 0, pid, 0 };

	if (idx != PRF_UOBJ_ANON && idx < nfiles && (f[idx].flags & PRF_UOBJ_VDSO_IMAGE)) {
		id.anon = 3;	/* the vDSO: a file of no identity but its own */
		id.pid = 0;
	} else if (idx != PRF_UOBJ_ANON && idx < nfiles) {
		id.anon = 0;
		id.pid = 0;
		id.major = f[idx].major;
		id.minor = f[idx].minor;
		id.ino = f[idx].ino;
	} else if (idx != PRF_UOBJ_ANON) {
		id.anon = 2;	/* an index past the files given: matches only its like */
		id.pid = 0;
	}
	return id;
}

static int ufid_cmp(const struct ufid *a, const struct ufid *b)
{
	if (a->anon != b->anon)
		return a->anon < b->anon ? -1 : 1;
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return 0;
}

/* An entry of the earlier table, by (file identity, offset). */
struct uekey {
	struct ufid id;
	uint64_t offset, count;
};

static int uekey_cmp(const void *pa, const void *pb)
{
	const struct uekey *a = pa, *b = pb;
	int c = ufid_cmp(&a->id, &b->id);

	if (c)
		return c;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* A table's chains, for comparing one with another by their frames. */
struct uctab {
	const void *recs;
	uint32_t depth;
	const struct prf_uobj_file *cf;
	uint32_t nfiles;
};

/* One side's user frames: @n of @f, named in @files (@nfiles), @flags. */
struct uside {
	const struct prf_uframe *f;
	uint32_t n, flags;
	const struct prf_uobj_file *files;
	uint32_t nfiles;
};

/*
 * User frames in order of their number, their truncation, then each
 * frame's file identity (a process's code of no file by its pid) and
 * offset: the order of chains, and of the pairs' user sides.
 */
static int uside_cmp(const struct uside *a, const struct uside *b)
{
	uint32_t k;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if ((a->flags & PRF_UCHAIN_TRUNCATED) != (b->flags & PRF_UCHAIN_TRUNCATED))
		return a->flags & PRF_UCHAIN_TRUNCATED ? 1 : -1;
	for (k = 0; k < a->n; k++) {
		struct ufid ia = ufid_of(a->files, a->nfiles, a->f[k].file, a->f[k].pid);
		struct ufid ib = ufid_of(b->files, b->nfiles, b->f[k].file, b->f[k].pid);
		int c = ufid_cmp(&ia, &ib);

		if (c)
			return c;
		if (a->f[k].offset != b->f[k].offset)
			return a->f[k].offset < b->f[k].offset ? -1 : 1;
	}
	return 0;
}

static int uchain_cmp(const struct uctab *ta, const struct prf_uchain *a,
		      const struct uctab *tb, const struct prf_uchain *b)
{
	struct uside sa = { prf_uchain_frames(a),
			    a->nr_frames < ta->depth ? a->nr_frames : ta->depth,
			    a->flags, ta->cf, ta->nfiles };
	struct uside sb = { prf_uchain_frames(b),
			    b->nr_frames < tb->depth ? b->nr_frames : tb->depth,
			    b->flags, tb->cf, tb->nfiles };

	return uside_cmp(&sa, &sb);
}

static int uchain_sort_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct uctab *t = ctx;
	const struct prf_uchain *a = *(const struct prf_uchain *const *)pa;
	const struct prf_uchain *b = *(const struct prf_uchain *const *)pb;

	return uchain_cmp(t, a, t, b);
}

/* cur less prev, or all of cur when it went down (the table zeroed between). */
static uint64_t usub(uint64_t cur, uint64_t prev)
{
	return cur >= prev ? cur - prev : cur;
}

static void *dup_mem(const void *p, size_t n)
{
	void *d = malloc(n ? n : 1);

	if (d && n)
		memcpy(d, p, n);
	return d;
}

/* A table's pairs, for comparing one with another by their two sides. */
struct uptab {
	const void *recs;
	uint32_t depth, udepth;
	const struct prf_uobj_file *pf;
	uint32_t nfiles;
};

/*
 * Pairs in order of their kernel side (PCs, their number, the truncation)
 * then their user side (frames by file identity and offset, a process's
 * code of no file by its pid, their number, the truncation).
 */
static int upair_cmp(const struct uptab *ta, const struct prf_upair *a,
		     const struct uptab *tb, const struct prf_upair *b)
{
	const __u64 *ka = prf_upair_pcs(a), *kb = prf_upair_pcs(b);
	uint32_t ka_n = a->nr_pcs < ta->depth ? a->nr_pcs : ta->depth;
	uint32_t kb_n = b->nr_pcs < tb->depth ? b->nr_pcs : tb->depth;
	struct uside sa = { prf_upair_frames(a, ta->depth),
			    a->nr_frames < ta->udepth ? a->nr_frames : ta->udepth,
			    a->uflags, ta->pf, ta->nfiles };
	struct uside sb = { prf_upair_frames(b, tb->depth),
			    b->nr_frames < tb->udepth ? b->nr_frames : tb->udepth,
			    b->uflags, tb->pf, tb->nfiles };
	uint32_t k;

	if (ka_n != kb_n)
		return ka_n < kb_n ? -1 : 1;
	if ((a->kflags & PRF_STACK_TRUNCATED) != (b->kflags & PRF_STACK_TRUNCATED))
		return a->kflags & PRF_STACK_TRUNCATED ? 1 : -1;
	for (k = 0; k < ka_n; k++)
		if (ka[k] != kb[k])
			return ka[k] < kb[k] ? -1 : 1;
	return uside_cmp(&sa, &sb);
}

static int upair_sort_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct uptab *t = ctx;
	const struct prf_upair *a = *(const struct prf_upair *const *)pa;
	const struct prf_upair *b = *(const struct prf_upair *const *)pb;

	return upair_cmp(t, a, t, b);
}

/* A record of the later read looked up among the earlier read's, sorted. */
struct rec_key {
	const void *tp, *tc;	/* the earlier and the later read's tables */
	const void *rec;	/* the later read's record */
};

static int chain_key_cmp(const void *elem, const struct rec_key *k)
{
	return uchain_cmp(k->tp, elem, k->tc, k->rec);
}

static int pair_key_cmp(const void *elem, const struct rec_key *k)
{
	return upair_cmp(k->tp, elem, k->tc, k->rec);
}

/* The element of @v (@n, sorted by @cmp) equal to @k's record, or NULL. */
static const void *sorted_find(const void *const *v, size_t n, const struct rec_key *k,
			       int (*cmp)(const void *elem, const struct rec_key *k))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = cmp(v[mid], k);

		if (!r)
			return v[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The pairs of cur less prev's (NULL: none) into out, as the chains: each
 * less the earlier pair of the same kernel PCs and user frames (files by
 * identity, whatever their indices), one that went down whole, 0 left
 * out.  0, or -1 no memory.
 */
static int pairs_delta(struct snap_uobjs *out, const struct snap_uobjs *cur,
		       const struct snap_uobjs *prev)
{
	size_t rsize = PRF_UPAIR_RECORD_SIZE(cur->ph.depth, cur->ph.udepth);
	struct uptab tc = { cur->precs, cur->ph.depth, cur->ph.udepth, cur->pf, cur->ph.nfiles };
	struct uptab tp = { 0 };
	const struct prf_upair **pp = NULL;
	size_t i, npp = 0;
	uint32_t n = 0;

	out->pairs_on = 1;
	out->ph = cur->ph;
	out->pf = dup_mem(cur->pf, (size_t)cur->ph.nfiles * sizeof(*cur->pf));
	out->precs = calloc(cur->ph.nr ? cur->ph.nr : 1, rsize);
	if (!out->pf || !out->precs)
		return -1;
	if (prev) {
		tp = (struct uptab){ prev->precs, prev->ph.depth, prev->ph.udepth, prev->pf,
				     prev->ph.nfiles };
		pp = calloc(prev->ph.nr ? prev->ph.nr : 1, sizeof(*pp));
		if (!pp)
			return -1;
		for (i = 0; i < prev->ph.nr; i++)
			pp[npp++] = prf_upair_at(prev->precs, prev->ph.depth, prev->ph.udepth,
						 (uint32_t)i);
		qsort_r(pp, npp, sizeof(*pp), upair_sort_cmp, &tp);
		out->ph.dropped = usub(cur->ph.dropped, prev->ph.dropped);
	}
	for (i = 0; i < cur->ph.nr; i++) {
		const struct prf_upair *c = prf_upair_at(cur->precs, cur->ph.depth,
							 cur->ph.udepth, (uint32_t)i);
		struct rec_key k = { &tp, &tc, c };
		const struct prf_upair *m = sorted_find((const void *const *)pp, npp, &k,
							pair_key_cmp);
		uint64_t d = usub(c->count, m ? m->count : 0);

		if (!d)
			continue;
		memcpy((char *)out->precs + (size_t)n * rsize, c, rsize);
		((struct prf_upair *)((char *)out->precs + (size_t)n * rsize))->count = d;
		n++;
	}
	out->ph.nr = n;
	free(pp);
	return 0;
}

int uobj_snap_delta(const struct snap_uobjs *cur, const struct snap_uobjs *prev,
		    struct snap_uobjs **outp)
{
	struct snap_uobjs *out = calloc(1, sizeof(*out));
	struct uekey *pk = NULL;
	const struct prf_uchain **pc = NULL;
	struct uctab tc = { 0 }, tp = { 0 };
	size_t i, np = 0, ncp = 0, rsize;
	uint32_t n = 0;

	*outp = NULL;
	if (!out)
		return -ENOMEM;
	out->h = cur->h;
	if (cur->vdso_id && !(out->vdso_id = strdup(cur->vdso_id)))
		goto oom;
	out->f = dup_mem(cur->f, (size_t)cur->h.nfiles * sizeof(*cur->f));
	out->e = calloc(cur->h.nr ? cur->h.nr : 1, sizeof(*out->e));
	if (prev) {
		pk = calloc(prev->h.nr ? prev->h.nr : 1, sizeof(*pk));
		for (i = 0; pk && i < prev->h.nr; i++) {
			pk[np].id = ufid_of(prev->f, prev->h.nfiles, prev->e[i].file,
					    prev->e[i].pid);
			pk[np].offset = prev->e[i].offset;
			pk[np++].count = prev->e[i].count;
		}
		if (pk)
			qsort(pk, np, sizeof(*pk), uekey_cmp);
	}
	if (!out->f || !out->e || (prev && !pk))
		goto oom;
	/* the entries: each less the earlier table's of the same file and offset */
	for (i = 0; i < cur->h.nr; i++) {
		struct uekey k = { ufid_of(cur->f, cur->h.nfiles, cur->e[i].file,
					   cur->e[i].pid), cur->e[i].offset, 0 };
		const struct uekey *m = np ? bsearch(&k, pk, np, sizeof(*pk), uekey_cmp) : NULL;
		uint64_t c = usub(cur->e[i].count, m ? m->count : 0);

		if (!c)
			continue;
		out->e[n] = cur->e[i];
		out->e[n++].count = c;
	}
	out->h.nr = n;
	if (prev) {
		out->h.lost = usub(cur->h.lost, prev->h.lost);
		out->h.dropped = usub(cur->h.dropped, prev->h.dropped);
		out->h.unmapped = usub(cur->h.unmapped, prev->h.unmapped);
	}
	free(pk);
	pk = NULL;

	/* the chains: each less the earlier table's of the same frames */
	out->chains_on = cur->chains_on;
	if (!cur->chains_on) {
		*outp = out;
		return 0;
	}
	out->ch = cur->ch;
	rsize = PRF_UCHAIN_RECORD_SIZE(cur->ch.depth);
	out->cf = dup_mem(cur->cf, (size_t)cur->ch.nfiles * sizeof(*cur->cf));
	out->recs = calloc(cur->ch.nr ? cur->ch.nr : 1, rsize);
	if (!out->cf || !out->recs)
		goto oom;
	tc = (struct uctab){ cur->recs, cur->ch.depth, cur->cf, cur->ch.nfiles };
	if (prev && prev->chains_on) {
		tp = (struct uctab){ prev->recs, prev->ch.depth, prev->cf, prev->ch.nfiles };
		pc = calloc(prev->ch.nr ? prev->ch.nr : 1, sizeof(*pc));
		if (!pc)
			goto oom;
		for (i = 0; i < prev->ch.nr; i++)
			pc[ncp++] = prf_uchain_at(prev->recs, prev->ch.depth, (uint32_t)i);
		qsort_r(pc, ncp, sizeof(*pc), uchain_sort_cmp, &tp);
		out->ch.dropped = usub(cur->ch.dropped, prev->ch.dropped);
	}
	n = 0;
	for (i = 0; i < cur->ch.nr; i++) {
		const struct prf_uchain *c = prf_uchain_at(cur->recs, cur->ch.depth, (uint32_t)i);
		struct prf_uchain *o = (struct prf_uchain *)((char *)out->recs + (size_t)n * rsize);
		struct rec_key k = { &tp, &tc, c };
		const struct prf_uchain *m = sorted_find((const void *const *)pc, ncp, &k,
							 chain_key_cmp);
		uint64_t d = usub(c->count, m ? m->count : 0);

		if (!d)
			continue;
		memcpy(o, c, rsize);
		o->count = d;
		n++;
	}
	out->ch.nr = n;
	free(pc);
	pc = NULL;
	if (cur->pairs_on && pairs_delta(out, cur, prev && prev->chains_on && prev->pairs_on ?
					 prev : NULL))
		goto oom;
	*outp = out;
	return 0;
oom:
	free(pk);
	free(pc);
	snap_uobjs_free(out);
	return -ENOMEM;
}
