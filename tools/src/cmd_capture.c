// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_capture - a snapshot from the device: its counters read, each
 * address named (a user function's, then the kernel's), the extension
 * (stacks, mode, sites: cmd_stacks.c) and the host; appended to a file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "stacks.h"
#include "usym.h"

/* Name each loaded address; t->e is rebuilt unless cached for addrs. */
void resolve_table(const struct common *c, const uint64_t *addrs, size_t n,
			  struct snap_table *t)
{
	static int warned;
	struct nl_opts no = { 0 };
	struct symtab st;
	char err[NL_ERRLEN];
	int have, ret;
	size_t i;

	if (t->e && t->n == n) {
		for (i = 0; i < n && t->e[i].addr == addrs[i]; i++)
			;
		if (i == n)
			return;	/* same addresses: same names */
	}
	snap_table_free(t);
	no.kallsyms = c->kallsyms;
	no.modules = c->modules;
	no.keep_pseudo = 1;
	have = !nl_load(c->kallsyms, &no, &st, err, sizeof(err));
	if (!have) {
		symtab_init(&st);
		if (!warned++)
			msg("warning: addresses left unnamed: %s", err);
	}
	t->text = have ? st.text : 0;
	t->e = calloc(n ? n : 1, sizeof(*t->e));
	if (t->e) {
		t->n = n;
		for (i = 0; i < n; i++) {
			int kind;

			t->e[i].addr = addrs[i];
			/* User addresses of a PRF_FLAG_USERPC table, then the kernel's. */
			ret = user_describe(addrs[i], &t->e[i].name, &t->e[i].module, &kind);
			if (!ret && nl_describe(&st, addrs[i], &t->e[i].name, &t->e[i].module,
						&kind))
				t->e[i].name = NULL;
			else if (ret < 0)
				t->e[i].name = NULL;
			t->e[i].kind = (unsigned)kind;
		}
		report_name_last(t);
	}
	symtab_free(&st);
}

/* Read the device into s (and t, the names); 0 or 1. */
int capture(struct prf *p, const struct common *c, struct snap_table *t,
		   struct snapshot *s)
{
	struct prf_info info;
	struct timespec ts;
	struct utsname u;
	uint64_t *a = NULL, *cnt = NULL;
	int n = 0, ret = 0, tries, have_info;
	long online;

	memset(s, 0, sizeof(*s));
	for (tries = 0; tries < 5; tries++) {
		n = prf_get_size(p);
		if (n < 0)
			return dev_fail(c->dev, "PRF_GETSIZE", n);
		if (n == 0) {
			msg("%s: no table loaded: run prfld first", c->dev);
			return 1;
		}
		free(a);
		free(cnt);
		a = malloc((size_t)n * sizeof(*a));
		cnt = malloc(((size_t)n + 2) * sizeof(*cnt));
		if (!a || !cnt) {
			ret = -ENOMEM;
			break;
		}
		have_info = !prf_get_info(p, &info);
		clock_gettime(CLOCK_REALTIME, &ts);
		ret = prf_read(p, a, cnt, (size_t)n);
		if (ret != -ESTALE)
			break;
	}
	if (ret) {
		free(a);
		free(cnt);
		return dev_fail(c->dev, "read", ret);
	}
	if (n > 0 && usym_is_user_addr(a[0]))
		user_names_from_filter(p);
	resolve_table(c, a, (size_t)n, t);
	free(a);
	if (!t->e) {
		free(cnt);
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	s->counts = cnt;
	s->n = (uint64_t)n;
	s->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	s->online = online > 0 ? (uint32_t)online : 0;
	if (have_info) {
		s->info_size = info.size;
		s->cpu = info.cpu;
		s->ncpus = info.ncpus;
		s->hz = info.hz;
		s->usec_per_tick = info.usec_per_tick;
		s->status = info.status;
		s->flags = info.flags;
		s->max_addrs = info.max_addrs;
		s->ticks_total = info.ticks_total;
		s->ticks_outside = info.ticks_outside;
		s->ticks_user = info.ticks_user;
		s->ticks_idle = info.ticks_idle;
		s->ticks_lost = info.ticks_lost;
		s->on_ns = info.on_ns;
		s->mem_bytes = info.mem_bytes;
	} else {
		uint32_t hz = 0;
		int st = prf_get_status(p), mx = prf_get_max(p);

		s->cpu = prf_cpu_of_path(c->dev) >= 0 ? prf_cpu_of_path(c->dev) : -1;
		s->ncpus = s->cpu < 0 ? s->online : 1;
		if (!prf_get_hz(p, &hz)) {
			s->hz = hz;
			s->usec_per_tick = hz ? 1000000 / hz : 0;
		}
		s->status = st > 0 ? (uint32_t)st : 0;
		s->max_addrs = mx > 0 ? (uint64_t)mx : 0;
	}
	/* Stacks, mode and sites (stacks.h), when the device has them. */
	if (have_info && capture_ext(p, c, t, &info, s)) {
		snapshot_free(s);
		return 1;
	}
	s->device = strdup(c->dev);
	if (!uname(&u)) {
		s->host = strdup(u.nodename);
		s->release = strdup(u.release);
	}
	return 0;
}

/*
 * User addresses left unnamed (the profiled processes are gone, so their
 * mappings cannot be read again): the names the file's last table gave the
 * same addresses, when it has the same ones.
 */
static void user_names_from_file(const char *file, struct snap_table *t)
{
	const struct snap_table *last;
	struct snapfile f;
	char err[SNAP_ERRLEN];
	size_t i;
	int need = 0;

	for (i = 0; i < t->n && !need; i++)
		need = usym_is_user_addr(t->e[i].addr) && t->e[i].kind == SYM_UNKNOWN;
	if (!need || access(file, F_OK) || snapfile_read(file, &f, err, sizeof(err)))
		return;
	last = f.ntables ? &f.tables[f.ntables - 1] : NULL;
	for (i = 0; last && last->n == t->n && i < t->n; i++)
		if (last->e[i].addr != t->e[i].addr)
			last = NULL;
	for (i = 0; last && i < t->n && usym_is_user_addr(t->e[i].addr); i++) {
		struct snap_entry tmp = t->e[i];

		t->e[i] = last->e[i];
		last->e[i] = tmp;
	}
	snapfile_free(&f);
}

int snap_to_file(struct prf *p, const struct common *c, const char *file,
			struct snap_table *t, uint64_t *total)
{
	return snap_to_file_uobjs(p, c, file, t, total, NULL);
}

int snap_to_file_uobjs(struct prf *p, const struct common *c, const char *file,
		       struct snap_table *t, uint64_t *total, struct snap_uobjs *u)
{
	struct snapshot s;
	char err[SNAP_ERRLEN];
	int ret;

	if (capture(p, c, t, &s))
		return 1;
	user_names_from_file(file, t);
	s.uobjs = u;	/* the caller's: not freed with s */
	ret = snapfile_append(file, t, &s, err, sizeof(err));
	s.uobjs = NULL;
	if (ret)
		msg("%s", err);	/* an error, or a note: a torn record cut */
	if (total)
		*total = s.ticks_total;
	snapshot_free(&s);
	return ret < 0 ? 1 : 0;
}
