// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_table - the tables prfld loads, as the commands build and load them:
 * from a namelist or in fixed-width buckets, into the device, and the
 * names of what was loaded; the modules' signature that says when the
 * kernel's modules changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"

static int parse_addr_or_sym(const char *s, const struct symtab *t, uint64_t *v)
{
	size_t i;

	if (!parse_u64(s, v, 16))
		return 0;
	for (i = 0; i < t->n; i++)
		if (t->v[i].kind == SYM_FUNC && !strcmp(t->v[i].name, s)) {
			*v = t->v[i].addr;
			return 0;
		}
	return -1;
}

/*
 * The table prfld would load: functions and sentinels from the namelist,
 * or fixed-width buckets.  Returns 0, 1 (runtime error) or 2 (usage).
 */
int build_table(const struct common *c, const struct ld_opts *o, size_t max,
		       struct symtab *out)
{
	struct nl_opts no = { 0 };
	char err[NL_ERRLEN];
	const char *path = o->namelist ? o->namelist : c->kallsyms;
	size_t i;

	no.kallsyms = c->kallsyms;
	no.modules = c->modules;
	no.only = o->only;
	no.have_offset = o->have_off;
	no.offset = o->off;
	if (nl_load(path, &no, out, err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	if (o->step) {
		struct symtab b;
		uint64_t start = out->stext ? out->stext : out->text, end = out->etext;

		/* With -m, the selected text: first function to last sentinel. */
		if (o->only && out->n >= 2) {
			start = out->v[0].addr;
			end = out->v[out->n - 1].addr;
		}

		if (o->range) {
			char *dup = strdup(o->range), *dash;

			if (!dup) {
				msg("%s", strerror(ENOMEM));
				symtab_free(out);
				return 1;
			}
			dash = strchr(dup, '-');
			if (dash)
				*dash++ = '\0';
			if (!dash || parse_addr_or_sym(dup, out, &start) ||
			    parse_addr_or_sym(dash, out, &end)) {
				free(dup);
				symtab_free(out);
				return usage_error("--range %s: want START-END, hexadecimal "
						   "addresses or function names", o->range);
			}
			free(dup);
		} else if (!start || !end) {
			msg("%s: no _stext/_etext: give --range START-END", path);
			symtab_free(out);
			return 1;
		}
		if (nl_buckets(start, end, o->step, max, &b, err, sizeof(err))) {
			msg("%s", err);
			symtab_free(out);
			return 1;
		}
		b.text = out->text;
		b.stext = out->stext;
		b.etext = out->etext;
		symtab_free(out);
		*out = b;
	}
	for (i = 1; i < out->n; i++)
		if (out->v[i].addr <= out->v[i - 1].addr) {
			msg("internal error: table not strictly ascending at %zu", i);
			symtab_free(out);
			return 1;
		}
	if (out->n < PRF_MIN_ADDRS) {
		msg("%s: only %zu addresses%s: the device needs at least %d",
		    path, out->n, o->only ? " for -m" : "", PRF_MIN_ADDRS);
		symtab_free(out);
		return 1;
	}
	if (max && out->n > max) {
		msg("%s: %zu addresses, the device holds at most %zu: restrict with "
		    "-m MODULES or use --step", path, out->n, max);
		symtab_free(out);
		return 1;
	}
	return 0;
}

int load_table(struct prf *p, const char *dev, const struct symtab *t)
{
	uint64_t *a = malloc((t->n ? t->n : 1) * sizeof(*a));
	size_t i;
	int ret;

	if (!a) {
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	for (i = 0; i < t->n; i++)
		a[i] = t->v[i].addr;
	ret = prf_load(p, a, t->n);
	free(a);
	if (ret == -E2BIG)
		msg("%s: load: %s (fewer than %d addresses)", dev, strerror(-ret), PRF_MIN_ADDRS);
	else if (ret == -ENOSPC)
		msg("%s: load: %s (more addresses than the device holds)", dev, strerror(-ret));
	else if (ret == -EINVAL)
		msg("%s: load: %s (table not strictly ascending; the device is now unloaded)",
		    dev, strerror(-ret));
	else if (ret)
		return dev_fail(dev, "load", ret);
	return ret ? 1 : 0;
}

/*
 * The names resolve_table() would give table t's addresses, from t itself
 * (nl_load's: every entry a function start or a sentinel, named), without
 * reading the namelist a second time: 0, or -ENOMEM (out empty).
 */
int names_of_symtab(const struct symtab *t, struct snap_table *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->e = calloc(t->n ? t->n : 1, sizeof(*out->e));
	if (!out->e)
		return -ENOMEM;
	out->n = t->n;
	out->text = t->text;
	for (i = 0; i < t->n; i++) {
		struct snap_entry *e = &out->e[i];

		e->addr = t->v[i].addr;
		e->kind = t->v[i].kind;
		e->name = strdup(t->v[i].name);
		e->module = t->v[i].module ? strdup(t->v[i].module) : NULL;
		if (!e->name || (t->v[i].module && !e->module)) {
			snap_table_free(out);
			return -ENOMEM;
		}
	}
	report_name_last(out);
	return 0;
}

/*
 * Load the running kernel's functions when nothing is loaded yet; names,
 * when not NULL, gets the names of what was loaded (names_of_symtab; left
 * empty when the table was there, or on no memory: resolve_table names it).
 */
int ensure_loaded_names(struct prf *p, const struct common *c, int verbose,
			struct snap_table *names)
{
	struct ld_opts lo = { 0 };
	struct symtab t;
	int n = prf_get_size(p), max, ret;

	if (n < 0)
		return dev_fail(c->dev, "PRF_GETSIZE", n);
	if (n > 0)
		return 0;
	max = prf_get_max(p);
	if (max < 0)
		return dev_fail(c->dev, "PRF_GETMAX", max);
	ret = build_table(c, &lo, (size_t)max, &t);
	if (ret)
		return ret;
	ret = load_table(p, c->dev, &t);
	if (!ret && verbose)
		fprintf(stderr, "%s: loaded %zu addresses from %s into %s\n", prog, t.n,
			c->kallsyms, c->dev);
	if (!ret && names)
		names_of_symtab(&t, names);
	symtab_free(&t);
	return ret;
}

int ensure_loaded(struct prf *p, const struct common *c, int verbose)
{
	return ensure_loaded_names(p, c, verbose, NULL);
}
