// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_stacks - the device's stacks, mode and sites into a snapshot's
 * extension (PRF_GETSTACKS, PRF_GETSITES), frames named when taken, as the
 * table's addresses are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "stacks.h"

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * The kernel's whole namelist, for the frames the loaded table cannot name
 * (below): loaded when first needed, and kept while the kallsyms path and
 * the modules (modules_sig: their names, sizes, states and bases) stay the
 * same (a module that came or went: loaded again).  One for the process;
 * the daemon's threads call it under its lock.
 */
static struct symtab *kernel_names(const struct common *c)
{
	static struct symtab st;
	static char *path;
	static uint64_t sig;
	static int have;
	struct nl_opts no = { 0 };
	char err[NL_ERRLEN];
	uint64_t now = 0;	/* an unreadable list: 0, the same each time */

	modules_sig(c->modules, &now);
	if (path && !strcmp(path, c->kallsyms) && now == sig)
		return have ? &st : NULL;
	if (have)
		symtab_free(&st);
	free(path);
	path = strdup(c->kallsyms);
	sig = now;
	no.kallsyms = c->kallsyms;
	no.modules = c->modules;
	no.keep_pseudo = 1;
	have = !nl_load(c->kallsyms, &no, &st, err, sizeof(err));
	return have ? &st : NULL;
}

/*
 * The loaded table's function that holds addr, NULL when the table cannot
 * say.  Only a table built from the whole namelist (c->table_whole: the
 * daemon's private instance) holds every function of the text it covers,
 * so that a function start with an entry above it names every address up
 * to that entry, exactly as the namelist would; a table someone loaded by
 * hand, by buckets or by -m may skip functions.  Below the first entry,
 * past a sentinel or on a user row, the namelist decides: with the whole
 * kallsyms loaded that leaves BPF programs and trampolines, so the second
 * namelist, as big as the table's own names, is seldom loaded at all.
 */
static const struct snap_entry *table_function(const struct snap_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t ? t->n : 0;
	const struct snap_entry *e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == t->n)
		return NULL;
	e = &t->e[lo - 1];
	if (e->kind != SYM_FUNC || e->uobj || !e->name)
		return NULL;
	return e;
}

/*
 * The namelist of one capture's frames: kernel_names() asked once, by the
 * first frame the table cannot name (it reads the modules' list each time).
 */
struct frame_names {
	const struct symtab *st;
	int asked;
};

/* Name frame f (addr set): the function, with no offset. */
static int name_frame(const struct common *c, const struct snap_table *t,
		      struct frame_names *fn, struct snap_frame *f)
{
	const struct snap_entry *e;
	char *name = NULL, *mod = NULL, *plus;
	int kind, ret;

	ret = user_describe(f->addr, &name, &mod, &kind);
	if (!ret && c->table_whole && (e = table_function(t, f->addr))) {
		name = strdup(e->name);
		mod = e->module ? strdup(e->module) : NULL;
		if (!name || (e->module && !mod)) {
			free(name);
			free(mod);
			return -1;
		}
		ret = 1;
	} else if (!ret) {
		if (!fn->asked) {
			fn->st = kernel_names(c);
			fn->asked = 1;
		}
		ret = fn->st ? (nl_describe(fn->st, f->addr, &name, &mod, &kind) ? -1 : 1) : 0;
	}
	if (ret <= 0) {
		free(name);
		free(mod);
		mod = NULL;
		if (asprintf(&name, "0x%" PRIx64, f->addr) < 0)
			return -1;
	}
	plus = strstr(name, "+0x");
	if (plus && plus != name)
		*plus = '\0';
	f->name = name;
	f->module = mod;
	return 0;
}

/*
 * The stacks of the device into x: one frame per distinct PC (a caller's
 * return address less 1, to name the call and not what follows it).
 */
static int fill_stacks(struct prf *p, const struct common *c, const struct snap_table *t,
		       struct snap_ext *x)
{
	struct frame_names fn = { 0 };
	void *buf = NULL;
	uint32_t nr = 0, depth = 0, i, k;
	uint64_t dropped = 0, *pcs = NULL;
	size_t npcs = 0, u;
	int ret = prf_read_stacks(p, &buf, &nr, &depth, &dropped);

	if (ret)
		return dev_fail(c->dev, "PRF_GETSTACKS", ret);
	x->stacks_dropped = dropped;
	x->depth = depth;
	if (!nr) {
		free(buf);
		return 0;
	}
	for (i = 0; i < nr; i++)
		npcs += prf_stack_at(buf, depth, i)->nr_pcs;
	pcs = malloc((npcs ? npcs : 1) * sizeof(*pcs));
	x->stacks = calloc(nr, sizeof(*x->stacks));
	if (!pcs || !x->stacks)
		goto oom;
	for (i = 0, npcs = 0; i < nr; i++) {
		const struct prf_stack *s = prf_stack_at(buf, depth, i);
		uint32_t n = s->nr_pcs < depth ? s->nr_pcs : depth;

		for (k = 0; k < n; k++)
			pcs[npcs++] = prf_stack_pcs(s)[k] - (k > 0);
	}
	qsort(pcs, npcs, sizeof(*pcs), cmp_u64);
	for (u = 0, k = 0; u < npcs; u++)
		if (!u || pcs[u] != pcs[u - 1])
			pcs[k++] = pcs[u];
	npcs = k;
	x->frames = calloc(npcs ? npcs : 1, sizeof(*x->frames));
	if (!x->frames)
		goto oom;
	for (u = 0; u < npcs; u++) {
		x->frames[u].addr = pcs[u];
		x->nframes = u + 1;
		if (name_frame(c, t, &fn, &x->frames[u]))
			goto oom;
	}
	for (i = 0; i < nr; i++) {
		const struct prf_stack *s = prf_stack_at(buf, depth, i);
		struct snap_stack *d = &x->stacks[x->nstacks];
		uint32_t n = s->nr_pcs < depth ? s->nr_pcs : depth;

		if (!s->count)
			continue;
		d->count = s->count;
		d->flags = s->flags;
		d->f = calloc(n ? n : 1, sizeof(*d->f));
		if (!d->f)
			goto oom;
		x->nstacks++;
		for (k = 0; k < n; k++) {
			uint64_t pc = prf_stack_pcs(s)[k] - (k > 0);
			uint64_t *at = bsearch(&pc, pcs, npcs, sizeof(*pcs), cmp_u64);

			d->f[k] = (uint32_t)(at - pcs);
		}
		d->nr = n;
	}
	free(pcs);
	free(buf);
	return 0;
oom:
	free(pcs);
	free(buf);
	msg("%s", strerror(ENOMEM));
	return 1;
}

int capture_ext(struct prf *p, const struct common *c, const struct snap_table *t,
		const struct prf_info *in, struct snapshot *s)
{
	struct snap_ext *x;
	int ret, pmu;

	pmu = in->version >= 6 && in->size >= PRF_INFO_SIZE_V6 &&
	      in->source == PRF_SOURCE_PMU;
	if (in->version < 4 || in->size < PRF_INFO_SIZE_V4 ||
	    (in->mode == PRF_MODE_TIME && !in->stack_depth && !pmu))
		return 0;
	x = calloc(1, sizeof(*x));
	if (!x) {
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	s->ext = x;
	x->mode = in->mode;
	x->mode_dropped = in->mode_dropped;
	x->depth = in->stack_depth;
	x->capacity = in->stack_capacity;
	x->stacks_dropped = in->stacks_dropped;
	if (pmu) {
		/* the source and its counters (source.h): a source record */
		x->has_source = 1;
		x->source = in->source;
		x->event = in->event;
		x->period = in->period;
		x->pmu_count = in->pmu_count;
		x->pmu_enabled_ns = in->pmu_enabled_ns;
		x->pmu_running_ns = in->pmu_running_ns;
		x->pmu_throttled = in->pmu_throttled;
		x->samples_nmi = in->samples_nmi;
		x->ticks_sampled = in->ticks_sampled;
	}
	if (in->stack_depth && fill_stacks(p, c, t, x))
		return 1;
	if (in->mode == PRF_MODE_ALLOC_CALLS || in->mode == PRF_MODE_ALLOC_BYTES) {
		size_t n = (size_t)s->n + 2;
		struct prf_site2 *v = calloc(n, sizeof(*v));
		size_t i;

		x->sites = calloc(n, sizeof(*x->sites));
		if (!v || !x->sites) {
			free(v);
			msg("%s", strerror(ENOMEM));
			return 1;
		}
		ret = prf_get_sites2(p, v, (uint32_t)n);
		if (ret < 0) {
			free(v);
			return dev_fail(c->dev, "PRF_GETSITES", ret);
		}
		x->nsites = n;
		for (i = 0; i < (size_t)ret; i++) {
			x->sites[i].allocs = v[i].allocs;
			x->sites[i].bytes_req = v[i].bytes_req;
			x->sites[i].bytes_alloc = v[i].bytes_alloc;
			x->sites[i].frees = v[i].frees;
			x->sites[i].bytes_freed = v[i].bytes_freed;
			x->sites[i].frees_unseen = v[i].frees_unseen;
			x->sites[i].bytes_unseen = v[i].bytes_unseen;
		}
		free(v);
	}
	return 0;
}


/* ---- the options ---- */

int parse_stacks_opt(const char *s, struct stacks_opt *o)
{
	char *dup = strdup(s ? s : ""), *comma;
	uint64_t d = 0, cap = STACKS_DEFAULT_CAPACITY;
	int bad;

	if (!dup)
		return usage_error("%s", strerror(ENOMEM));
	comma = strchr(dup, ',');
	if (comma)
		*comma++ = '\0';
	bad = parse_u64(dup, &d, 10) || d > PRF_STACK_DEPTH_MAX ||
	      (comma && (parse_u64(comma, &cap, 10) || !cap || cap > PRF_STACKS_MAX)) ||
	      (!d && comma);
	free(dup);
	if (bad)
		return usage_error("--stacks %s: want DEPTH[,CAPACITY]: a depth of 1..%d frames "
				   "(0: off) and 1..%u stacks kept (default %d)", s,
				   PRF_STACK_DEPTH_MAX, PRF_STACKS_MAX, STACKS_DEFAULT_CAPACITY);
	o->set = 1;
	o->depth = (uint32_t)d;
	o->capacity = d ? (uint32_t)cap : 0;
	return 0;
}

int parse_stack_depth(const char *s, struct stacks_opt *o)
{
	uint64_t d;

	if (parse_u64(s, &d, 10) || !d || d > PRF_STACK_DEPTH_MAX)
		return usage_error("--stack-depth %s: want 1..%d frames", s, PRF_STACK_DEPTH_MAX);
	o->depth = (uint32_t)d;
	return 0;
}

int parse_mode_opt(const char *s, int *mode)
{
	int m = mode_parse(s);

	if (m < 0)
		return usage_error("--mode %s: want time, alloc-calls, alloc-bytes, calls or "
				   "offcpu", s);
	*mode = m;
	return 0;
}

/* Above this many table addresses, the calls mode is worth a warning. */
#define CALLS_WARN_ADDRS	1000

/*
 * Once ON in the calls mode: the table's addresses ftrace refused (counter
 * N), whose calls are not counted.  Nothing in the other modes.
 */
void calls_refused_note(struct prf *p, const char *dev)
{
	struct prf_info in;

	if (prf_get_info(p, &in) || in.version < 4 || in.size < PRF_INFO_SIZE_V4 ||
	    in.mode != PRF_MODE_CALLS)
		return;
	msg("%s: calls mode: %" PRIu64 " of %" PRIu64 " addresses refused (no traceable "
	    "function starts there: not counted)", dev, (uint64_t)in.ticks_user,
	    (uint64_t)in.naddrs);
}

int apply_mode_stacks(struct prf *p, const struct common *c, int mode,
		      const struct stacks_opt *so)
{
	const char *dev = c->dev;
	uint32_t cur = 0;
	uint64_t start = 0, end = 0;
	char err[NL_ERRLEN];
	int ret;

	if (mode >= 0) {
		/* A new mode zeroes the counters: only set it when it changes. */
		ret = prf_get_mode(p, &cur);
		if (ret == -EINVAL || ret == -ENOTTY)
			return msg("%s: --mode: the device has no modes (a prf module before "
				   "version 4 of struct prf_info)", dev), 1;
		if (ret)
			return dev_fail(dev, "PRF_GETMODE", ret);
		/*
		 * The offcpu mode needs the scheduler's text (else every wait
		 * counts at the scheduler's own functions): read before anything
		 * changes, set once the mode is.
		 */
		if (mode == PRF_MODE_OFFCPU &&
		    nl_sched_text(c->kallsyms, &start, &end, err, sizeof(err)))
			return msg("%s: offcpu mode: the scheduler's text is needed: %s", dev,
				   err), 1;
		if (cur != (uint32_t)mode && (ret = prf_set_mode(p, (uint32_t)mode))) {
			if (ret == -EINVAL && mode == PRF_MODE_OFFCPU)
				return msg("%s: offcpu mode not supported by this prf.ko (a module "
					   "before PRF_MODE_OFFCPU)", dev), 1;
			if (ret == -EINVAL || ret == -EOPNOTSUPP || ret == -ENODEV)
				return msg("%s: PRF_SETMODE %s: %s (not available on this kernel?)",
					   dev, mode_name((uint32_t)mode), strerror(-ret)), 1;
			return dev_fail(dev, "PRF_SETMODE", ret);
		}
		if (mode == PRF_MODE_OFFCPU && (ret = prf_set_sched_text(p, start, end)))
			return dev_fail(dev, "PRF_SETSCHEDTEXT", ret);
		/*
		 * The calls mode traces every function of the table: each
		 * call of every one of them costs.
		 */
		ret = mode == PRF_MODE_CALLS ? prf_get_size(p) : 0;
		if (ret > CALLS_WARN_ADDRS)
			msg("warning: %s: the calls mode traces every address of its table (%d "
			    "here): every call of them costs; load only the functions to count "
			    "(prfld -m MODULES, or a namelist of them)", dev, ret);
	}
	if (so && so->set) {
		ret = prf_set_stacks(p, so->depth, so->capacity);
		if (ret == -EINVAL || ret == -ENOTTY) {
			uint32_t d;

			if (prf_get_stacks_conf(p, &d, NULL, NULL))
				return msg("%s: --stacks: the device has no stack table (a prf "
					   "module before version 4 of struct prf_info)", dev), 1;
		}
		if (ret == -ENOMEM)
			return msg("%s: PRF_SETSTACKS %u,%u: %s (ask for fewer stacks)", dev,
				   so->depth, so->capacity, strerror(-ret)), 1;
		if (ret)
			return dev_fail(dev, "PRF_SETSTACKS", ret);
	}
	return 0;
}
