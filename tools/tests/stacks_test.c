// SPDX-License-Identifier: GPL-2.0-only
/*
 * stacks_test - unit tests of stacks and modes in snapshot files and
 * reports (TAP), and the fixtures the CLI tests read:
 *
 *   stacks_test                         the tests
 *   stacks_test --make-stacks FILE      2 snapshots with stacks (time mode)
 *   stacks_test --make-alloc FILE       2 snapshots in alloc-bytes mode, with sites
 *
 * The stacks fixture, between its two snapshots (leaf last):
 *	alpha;beta;gamma 500	(two PCs in gamma: 300 + 200)
 *	alpha;beta;ext4_a 90
 *	[truncated];beta;ext4_a;gamma 10
 * user 10, idle 40, 7 samples whose stack was dropped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <linux/prf.h>

#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "source.h"
#include "stacks.h"

#include "tap.h"



static void make_table(struct snap_table *t)
{
	static const char *names[] = { "alpha", "beta", "gamma", "[outside kernel text]",
				       "ext4_a", "ext4_b", "[outside ext4 text]" };
	size_t i;

	memset(t, 0, sizeof(*t));
	t->text = 0xffffffff9a000000ULL;
	t->n = 7;
	t->e = calloc(7, sizeof(*t->e));
	for (i = 0; i < 7; i++) {
		t->e[i].addr = 0xffffffff9a000000ULL + 0x100 * i + (i >= 4 ? 0x1000000 : 0);
		t->e[i].name = strdup(names[i]);
		t->e[i].module = i >= 4 ? strdup("ext4") : NULL;
		t->e[i].kind = (i == 3 || i == 6) ? SYM_SENTINEL : SYM_FUNC;
	}
}

static void make_snap(struct snapshot *s, int64_t t, const uint64_t *c)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->cpu = -1;
	s->ncpus = 2;
	s->online = 2;
	s->hz = 100;
	s->usec_per_tick = 10000;
	s->status = 3;
	s->time_ns = t;
	s->n = 7;
	s->info_size = PRF_INFO_SIZE_V4;
	s->max_addrs = 1 << 20;
	s->counts = calloc(9, sizeof(uint64_t));
	for (i = 0; i < 9; i++) {
		s->counts[i] = c[i];
		s->ticks_total += c[i];
	}
	s->ticks_user = c[7];
	s->ticks_idle = c[8];
	s->on_ns = (uint64_t)(t - 1795000000000000000LL);
	s->device = strdup("/dev/prf");
	s->host = strdup("testhost");
	s->release = strdup("6.1.0-test");
}

/* The frames of the fixture: PCs (ascending), names, modules. */
static const struct { uint64_t addr; const char *name, *module; } frames[] = {
	{ 0xffffffff9a000010ULL, "alpha", NULL },	/* 0 */
	{ 0xffffffff9a000120ULL, "beta", NULL },	/* 1 */
	{ 0xffffffff9a000220ULL, "gamma", NULL },	/* 2 */
	{ 0xffffffff9a000230ULL, "gamma", NULL },	/* 3 */
	{ 0xffffffff9b000420ULL, "ext4_a", "ext4" },	/* 4 */
};

/* count, flags, frames leaf first (-1 ends) */
struct fx_stack {
	uint64_t count;
	uint32_t flags;
	int f[4];
};

static void set_ext(struct snapshot *s, const struct fx_stack *st, size_t n, uint64_t dropped)
{
	struct snap_ext *x = calloc(1, sizeof(*x));
	size_t i, k;

	x->mode = PRF_MODE_TIME;
	x->depth = 3;
	x->capacity = 64;
	x->stacks_dropped = dropped;
	x->nframes = sizeof(frames) / sizeof(frames[0]);
	x->frames = calloc(x->nframes, sizeof(*x->frames));
	for (i = 0; i < x->nframes; i++) {
		x->frames[i].addr = frames[i].addr;
		x->frames[i].name = strdup(frames[i].name);
		x->frames[i].module = frames[i].module ? strdup(frames[i].module) : NULL;
	}
	x->nstacks = n;
	x->stacks = calloc(n, sizeof(*x->stacks));
	for (i = 0; i < n; i++) {
		x->stacks[i].count = st[i].count;
		x->stacks[i].flags = st[i].flags;
		x->stacks[i].f = calloc(4, sizeof(uint32_t));
		for (k = 0; k < 4 && st[i].f[k] >= 0; k++)
			x->stacks[i].f[k] = (uint32_t)st[i].f[k];
		x->stacks[i].nr = (uint32_t)k;
	}
	s->ext = x;
}

static const struct fx_stack stacks_a[] = {
	{ 100, 0, { 2, 1, 0, -1 } },
	{ 50, 0, { 1, 0, -1, -1 } },
};
static const struct fx_stack stacks_b[] = {
	{ 200, 0, { 3, 1, 0, -1 } },		/* new: gamma at another PC */
	{ 50, 0, { 1, 0, -1, -1 } },		/* unchanged */
	{ 400, 0, { 2, 1, 0, -1 } },		/* +300 */
	{ 10, PRF_STACK_TRUNCATED, { 2, 4, 1, -1 } },
	{ 90, 0, { 4, 1, 0, -1 } },
};
static const uint64_t ca[9] = { 0, 50, 100, 0, 0, 0, 0, 5, 20 };
static const uint64_t cb[9] = { 0, 50, 610, 0, 90, 0, 0, 15, 60 };

static int write_stacks(const char *file)
{
	struct snap_table t;
	struct snapshot s;
	char err[SNAP_ERRLEN];
	int r;

	make_table(&t);
	make_snap(&s, 1795000000000000000LL, ca);
	set_ext(&s, stacks_a, 2, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	snapshot_free(&s);
	if (!r) {
		make_snap(&s, 1795000060000000000LL, cb);
		set_ext(&s, stacks_b, 5, 7);
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		snapshot_free(&s);
	}
	if (r)
		fprintf(stderr, "%s\n", err);
	snap_table_free(&t);
	return r;
}

/*
 * alloc-bytes: alpha 3 MiB (3 allocations, 1 MiB freed, 1 MiB freed where
 * prf could not see), beta 1536 bytes (all freed), gamma 512 (kept), 100
 * bytes outside the table.
 */
static int write_alloc(const char *file, int unseen)
{
	static const uint64_t z[9] = { 0 };
	static const uint64_t c[9] = { 3145728, 1536, 512, 0, 0, 0, 0, 100, 0 };
	static const struct snap_site sites[9] = {
		{ 3, 3000000, 3145728, 1, 1048576, 1, 1048576 },
		{ 3, 1500, 1536, 3, 1536, 0, 0 },
		{ 1, 500, 512, 0, 0, 0, 0 },
		{ 0 }, { 0 }, { 0 }, { 0 },
		{ 2, 90, 100, 0, 0, 0, 0 },
		{ 0 },
	};
	struct snap_table t;
	struct snapshot s;
	char err[SNAP_ERRLEN];
	int r = 0, i;

	make_table(&t);
	for (i = 0; i < 2 && !r; i++) {
		struct snap_ext *x = calloc(1, sizeof(*x));

		make_snap(&s, 1795000000000000000LL + i * 60000000000LL, i ? c : z);
		x->mode = PRF_MODE_ALLOC_BYTES;
		x->nsites = 9;
		x->sites = calloc(9, sizeof(*x->sites));
		if (i)
			memcpy(x->sites, sites, sizeof(sites));
		if (i && !unseen)
			x->sites[0].frees_unseen = x->sites[0].bytes_unseen = 0;
		s.ext = x;
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		snapshot_free(&s);
	}
	if (r)
		fprintf(stderr, "%s\n", err);
	snap_table_free(&t);
	return r;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	if (p) {
		p[n] = '\0';
		*len = (size_t)n;
	}
	return p;
}

static char *render(void (*fn)(FILE *, const struct report *, const struct stackview *,
			       const struct report_opts *),
		    const struct report *r, const struct stackview *sv)
{
	struct report_opts o = { 0 };
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	fn(f, r, sv, &o);
	fclose(f);
	return p;
}

static char *neighbours(const struct stackview *sv, const char *func, int callees,
			enum report_format fmt)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	if (stacks_print_neighbours(f, sv, func, callees, fmt, 0, 0))
		fputs("(none)", f);
	fclose(f);
	return p;
}

static void test_stacks(const char *dir)
{
	char file[512], err[SNAP_ERRLEN], *got;
	struct snapfile f;
	struct report r;
	struct stackview sv;
	unsigned char *buf;
	size_t len;
	int ret;

	snprintf(file, sizeof(file), "%s/stacks.prf", dir);
	unlink(file);
	ok(!write_stacks(file), "stacks: fixture written");
	ret = snapfile_read(file, &f, err, sizeof(err));
	ok(ret == 0 && f.nsnaps == 2 && f.ntables == 1, "stacks: read back: 2 snapshots, 1 table");
	if (ret)
		return;
	ok(f.snaps[0].ext && f.snaps[1].ext && f.snaps[1].ext->nstacks == 5 &&
	   f.snaps[1].ext->nframes == 5 && f.snaps[1].ext->stacks_dropped == 7 &&
	   f.snaps[1].ext->depth == 3 && f.snaps[1].ext->capacity == 64,
	   "stacks: the extension round trip: stacks, frames, set-up, dropped");
	ok(f.snaps[1].ext->stacks[3].flags == PRF_STACK_TRUNCATED &&
	   f.snaps[1].ext->stacks[3].nr == 3 && f.snaps[1].ext->stacks[3].f[1] == 4 &&
	   !strcmp(f.snaps[1].ext->frames[4].module, "ext4") &&
	   f.snaps[1].ext->frames[4].addr == 0xffffffff9b000420ULL,
	   "stacks: a truncated stack's frames, flags and names exact");
	ret = report_from_file(&r, &f, 1, 2, err, sizeof(err));
	ok(ret == 0 && stacks_of_report(&r, &sv, err, sizeof(err)) == 1,
	   "stacks: the stacks between the two snapshots");
	ok(sv.n == 4 && sv.total == 600 && sv.dropped == 7,
	   "stacks: 4 stacks (of PCs) changed, 600 samples, 7 dropped (%zu, %" PRIu64 ", %" PRIu64 ")",
	   sv.n, sv.total, sv.dropped);
	got = render(stacks_print_folded, &r, &sv);
	ok(got && !strcmp(got, "alpha;beta;gamma 500\nalpha;beta;ext4_a 90\n"
			  "[truncated];beta;ext4_a;gamma 10\n[user] 10\n[idle] 40\n"
			  "[stack dropped] 7\n"),
	   "stacks: folded, root first, one line per function chain, [truncated] root");
	free(got);
	got = neighbours(&sv, "gamma", 0, FMT_CSV);
	ok(got && !strcmp(got, "samples,percent,caller,module,of\n500,98.04,beta,kernel,gamma\n"
			  "10,1.96,ext4_a,ext4,gamma\n"), "stacks: callers of gamma: beta 98.04%%, ext4_a 1.96%%");
	free(got);
	got = neighbours(&sv, "beta", 1, FMT_CSV);
	ok(got && !strcmp(got, "samples,percent,callee,module,of\n500,83.33,gamma,kernel,beta\n"
			  "100,16.67,ext4_a,ext4,beta\n"), "stacks: callees of beta: gamma 83.33%%, ext4_a 16.67%%");
	free(got);
	got = neighbours(&sv, "beta", 0, FMT_CSV);
	ok(got && !strcmp(got, "samples,percent,caller,module,of\n590,98.33,alpha,kernel,beta\n"
			  "10,1.67,[truncated],,beta\n"), "stacks: callers of beta: alpha, and [truncated] for the cut stack");
	free(got);
	got = neighbours(&sv, "gamma", 1, FMT_CSV);
	ok(got && !strcmp(got, "samples,percent,callee,module,of\n510,100.00,[self],,gamma\n"),
	   "stacks: callees of a leaf: [self]");
	free(got);
	got = neighbours(&sv, "nosuch", 0, FMT_TEXT);
	ok(got && !strcmp(got, "(none)"), "stacks: a function in no stack: said by the return");
	free(got);
	stackview_free(&sv);
	report_free(&r);
	/* Counted from the load: the second snapshot alone. */
	ret = report_from_file(&r, &f, 0, 2, err, sizeof(err));
	ok(!ret && stacks_of_report(&r, &sv, err, sizeof(err)) == 1 && sv.n == 5 &&
	   sv.total == 750, "stacks: since the load: every stack of the snapshot (750)");
	stackview_free(&sv);
	report_free(&r);
	/* b below a: cleared between them. */
	ret = report_from_file(&r, &f, 1, 2, err, sizeof(err));
	f.snaps[0].ext->stacks[0].count = 1000;
	ok(!ret && stacks_of_report(&r, &sv, err, sizeof(err)) == -1 && strstr(err, "cleared"),
	   "stacks: a stack count going backwards is refused: %s", err);
	report_free(&r);
	snapfile_free(&f);

	/* A reader of version 2 (today's) refuses the extension record clearly. */
	buf = (unsigned char *)slurp(file, &len);
	ret = buf ? snapfile_parse_max(buf, len, "stacks.prf", &f, err, sizeof(err), 2) : -2;
	ok(ret == -1 && strstr(err, "stacks.prf: record 3 at offset ") &&
	   strstr(err, "has format version 3, this prf reads versions 1 to 2"),
	   "stacks: a version 2 reader refuses the new record: %s", err);
	/* The snapshot records themselves stay version 2. */
	ok(buf && buf[4] == 2 && buf[5] == 0 && buf[6] == SNAP_REC_TABLE,
	   "stacks: the table record is version 2 as before");
	free(buf);
	/* Appending after an extension record: the fast path keeps the table. */
	{
		struct snap_table t;
		struct snapshot s;

		make_table(&t);
		make_snap(&s, 1795000120000000000LL, cb);
		ret = snapfile_append(file, &t, &s, err, sizeof(err));
		snapshot_free(&s);
		snap_table_free(&t);
		ok(ret == 0 && !snapfile_read(file, &f, err, sizeof(err)) && f.nsnaps == 3 &&
		   f.ntables == 1 && !f.snaps[2].ext && f.snaps[1].ext,
		   "stacks: a plain snapshot appended after one with stacks shares its table");
		snapfile_free(&f);
	}
	/* An extension record that follows no snapshot is corruption. */
	buf = (unsigned char *)slurp(file, &len);
	if (buf) {
		size_t p0 = 16 + (buf[8] | buf[9] << 8 | buf[10] << 16 | (size_t)buf[11] << 24);
		size_t p1 = p0 + 16 + (buf[p0 + 8] | buf[p0 + 9] << 8 | buf[p0 + 10] << 16 |
				       (size_t)buf[p0 + 11] << 24);
		/* table, [extension of snapshot 1 moved before it] */
		unsigned char *c = malloc(len);
		size_t l1 = p1 - p0, le = 16 + (buf[p1 + 8] | buf[p1 + 9] << 8 |
						(size_t)buf[p1 + 10] << 16);

		memcpy(c, buf, p0);
		memcpy(c + p0, buf + p1, le);
		memcpy(c + p0 + le, buf + p0, l1);
		memcpy(c + p1 + le, buf + p1 + le, len - p1 - le);
		ret = snapfile_parse(c, len, "moved.prf", &f, err, sizeof(err));
		ok(ret == -1 && strstr(err, "extension record 2") &&
		   strstr(err, "does not follow a snapshot record"),
		   "stacks: an extension record without its snapshot is refused: %s", err);
		free(c);
		free(buf);
	}
	unlink(file);
}

static void test_modes(const char *dir)
{
	char file[512], err[SNAP_ERRLEN], b[32];
	unsigned char *buf;
	struct snapfile f;
	size_t len;
	int ret;

	ok(mode_parse("time") == PRF_MODE_TIME && mode_parse("alloc-calls") == PRF_MODE_ALLOC_CALLS &&
	   mode_parse("alloc-bytes") == PRF_MODE_ALLOC_BYTES && mode_parse("calls") == PRF_MODE_CALLS &&
	   mode_parse("bogus") == -1 && mode_parse("Time") == -1, "modes: names parsed, unknown refused");
	ok(!strcmp(fmt_bytes(0, b, sizeof(b)), "0 B") && !strcmp(fmt_bytes(1023, b, sizeof(b)), "1023 B"),
	   "units: below 1 KiB in bytes");
	ok(!strcmp(fmt_bytes(1024, b, sizeof(b)), "1.0 KiB") &&
	   !strcmp(fmt_bytes(1536, b, sizeof(b)), "1.5 KiB"), "units: 1024 = 1.0 KiB, 1536 = 1.5 KiB");
	ok(!strcmp(fmt_bytes(3145728, b, sizeof(b)), "3.0 MiB") &&
	   !strcmp(fmt_bytes(5ULL << 30, b, sizeof(b)), "5.0 GiB"), "units: MiB, GiB");
	ok(!strcmp(fmt_count(PRF_MODE_ALLOC_CALLS, 1536, b, sizeof(b)), "1536") &&
	   !strcmp(fmt_count(PRF_MODE_ALLOC_BYTES, 1536, b, sizeof(b)), "1.5 KiB"),
	   "units: bytes only in alloc-bytes");
	snprintf(file, sizeof(file), "%s/alloc.prf", dir);
	unlink(file);
	ok(!write_alloc(file, 1), "modes: alloc fixture written");
	ret = snapfile_read(file, &f, err, sizeof(err));
	ok(!ret && f.nsnaps == 2 && f.snaps[1].ext && f.snaps[1].ext->mode == PRF_MODE_ALLOC_BYTES &&
	   f.snaps[1].ext->nsites == 9 && f.snaps[1].ext->sites[0].bytes_freed == 1048576 &&
	   f.snaps[1].ext->sites[0].frees_unseen == 1 &&
	   f.snaps[1].ext->sites[0].bytes_unseen == 1048576 &&
	   f.snaps[1].ext->sites[7].allocs == 2 && f.snaps[1].ext->sites[3].allocs == 0 &&
	   f.snaps[1].ext->sites[7].frees_unseen == 0, "modes: mode and sites round trip");
	if (!ret)
		snapfile_free(&f);
	/* the unseen frees make the record version 4: a reader of 3 says so */
	buf = (unsigned char *)slurp(file, &len);
	ret = buf ? snapfile_parse_max(buf, len, "alloc.prf", &f, err, sizeof(err), 3) : -2;
	ok(ret == -1 && strstr(err, "has format version 4, this prf reads versions 1 to 3"),
	   "modes: sites with unseen frees: version 4, refused by a reader of 3 (%s)", err);
	if (!ret)
		snapfile_free(&f);
	free(buf);
	unlink(file);
	/* none: version 3 as before, which a reader of 3 reads */
	ok(!write_alloc(file, 0), "modes: alloc fixture without unseen frees written");
	buf = (unsigned char *)slurp(file, &len);
	ret = buf ? snapfile_parse_max(buf, len, "alloc.prf", &f, err, sizeof(err), 3) : -2;
	ok(!ret && f.nsnaps == 2 && f.snaps[1].ext && f.snaps[1].ext->sites[0].frees == 1 &&
	   f.snaps[1].ext->sites[0].frees_unseen == 0, "modes: no unseen frees: read by a reader of 3");
	if (!ret)
		snapfile_free(&f);
	free(buf);
	unlink(file);
}

/*
 * The PMU source in a snapshot (issue 24): an extension of record version
 * 4 holds it, read back whole; a reader of version 3 refuses it by its
 * version; a report counts in its event, a sample standing for the period
 * (or, at a rate, for the events over the samples between the snapshots).
 */
static void test_source(const char *dir)
{
	static const uint64_t sa[9] = { 10, 20, 0, 0, 5, 0, 0, 1, 2 };
	static const uint64_t sb[9] = { 30, 60, 0, 0, 15, 0, 0, 3, 6 };
	char file[256], err[SNAP_ERRLEN];
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	struct report r;
	unsigned char *buf;
	size_t len, at;
	int ret, i;

	snprintf(file, sizeof(file), "%s/source.prf", dir);
	err[0] = '\0';
	make_table(&t);
	for (i = 0; i < 2; i++) {
		struct snap_ext *x = calloc(1, sizeof(*x));

		make_snap(&s, 1795000000000000000LL + i * 1000000000LL, i ? sb : sa);
		s.ext = x;
		x->has_source = 1;
		x->source = PRF_SOURCE_PMU;
		x->event = PRF_EVENT_CYCLES;
		x->period = 0;		/* at a rate */
		x->pmu_count = i ? 700000000 : 100000000;
		x->pmu_enabled_ns = i ? 4000 : 1000;
		x->pmu_running_ns = i ? 3000 : 1000;
		x->pmu_throttled = i ? 5 : 1;
		x->samples_nmi = i ? 130 : 40;
		x->ticks_sampled = i ? 130 : 40;
		ret = snapfile_append(file, &t, &s, err, sizeof(err));
		ok(ret == 0, "source: snapshot %d with the PMU source appended: %s", i + 1, err);
		snapshot_free(&s);
	}
	snap_table_free(&t);
	ret = snapfile_read(file, &f, err, sizeof(err));
	ok(!ret && f.nsnaps == 2 && f.snaps[1].ext && f.snaps[1].ext->has_source &&
	   f.snaps[1].ext->source == PRF_SOURCE_PMU && f.snaps[1].ext->event == PRF_EVENT_CYCLES &&
	   f.snaps[1].ext->period == 0 && f.snaps[1].ext->pmu_count == 700000000 &&
	   f.snaps[1].ext->pmu_enabled_ns == 4000 && f.snaps[1].ext->pmu_running_ns == 3000 &&
	   f.snaps[1].ext->pmu_throttled == 5 && f.snaps[1].ext->samples_nmi == 130 &&
	   f.snaps[1].ext->ticks_sampled == 130, "source: every field read back: %s", err);
	if (!ret && !report_from_file(&r, &f, 1, 2, err, sizeof(err))) {
		/* (700M - 100M) cycles over (130 - 40) samples */
		ok(!strcmp(report_unit(&r), "cycles") &&
		   report_weight(&r) > 6666666.6 && report_weight(&r) < 6666666.7,
		   "source: a report counts cycles, 600M over 90 samples each (%.1f)",
		   report_weight(&r));
		report_free(&r);
	} else {
		ok(0, "source: a report of the two snapshots: %s", err);
	}
	if (!ret)
		snapfile_free(&f);
	buf = (unsigned char *)slurp(file, &len);
	/* the table, the snapshot, then its source record: no extension */
	at = 0;
	for (i = 0; buf && i < 2 && at + 16 <= len; i++)
		at += 16 + (buf[at + 8] | buf[at + 9] << 8 | buf[at + 10] << 16 |
			    (size_t)buf[at + 11] << 24);
	ok(buf && at + 16 <= len && buf[at + 4] == 3 && buf[at + 6] == SNAP_REC_SOURCE,
	   "source: a record of its own (type 4, version 3), no extension record");
	ret = buf ? snapfile_parse_max(buf, len, "source.prf", &f, err, sizeof(err), 2) : -2;
	ok(ret == -1 && strstr(err, "has format version 3, this prf reads versions 1 to 2"),
	   "source: a version 2 reader refuses it: %s", err);
	free(buf);
	/* With stacks too: the extension record, then the source record. */
	err[0] = '\0';
	make_table(&t);
	make_snap(&s, 1795000002000000000LL, sb);
	set_ext(&s, stacks_a, 2, 0);
	s.ext->has_source = 1;
	s.ext->source = PRF_SOURCE_PMU;
	s.ext->event = PRF_EVENT_INSTRUCTIONS;
	s.ext->period = 50000;
	ret = snapfile_append(file, &t, &s, err, sizeof(err));
	snapshot_free(&s);
	snap_table_free(&t);
	ret = ret ? ret : snapfile_read(file, &f, err, sizeof(err));
	ok(!ret && f.nsnaps == 3 && f.snaps[2].ext && f.snaps[2].ext->depth == 3 &&
	   f.snaps[2].ext->nstacks == 2 && f.snaps[2].ext->has_source &&
	   f.snaps[2].ext->event == PRF_EVENT_INSTRUCTIONS && f.snaps[2].ext->period == 50000,
	   "source: with stacks, both records read back: %s", err);
	if (!ret)
		snapfile_free(&f);
	buf = NULL;
	free(buf);
	unlink(file);
}

/* ---- delta extension records (type 6) ---- */

enum { DX_FRAMES = 40, DX_STACKS = 60, DX_SNAPS = 32, DX_RESET = 20, DX_RENAME = 26 };

static uint32_t dx_rand(uint32_t *st)
{
	*st = *st * 1103515245u + 12345u;
	return *st >> 8;
}

/*
 * Snapshot k of the delta series: stacks 0 .. 2k + 1 of a pool (1 to 5
 * frames of 40, some truncated), each grown by 0 to 3 an interval, in an
 * order of their own each time; alloc-bytes sites grown the same way.  At
 * DX_RESET the counts start again (a cleared device); from DX_RENAME on
 * the first stack's leaf is another function at the same address (a BPF
 * program replaced).
 */
static void dx_snap(struct snapshot *s, int k)
{
	static const uint64_t z[9] = { 0 };
	struct snap_ext *x = calloc(1, sizeof(*x));
	uint32_t st = 7, used[DX_FRAMES] = { 0 }, idx[DX_FRAMES];
	uint32_t order[DX_STACKS], leaf0 = 0;
	size_t nact = (size_t)(2 * k + 2 < DX_STACKS ? 2 * k + 2 : DX_STACKS);
	size_t i, j, n;
	int kk;

	make_snap(s, 1795000000000000000LL + (int64_t)k * 60000000000LL, z);
	x->mode = PRF_MODE_ALLOC_BYTES;
	x->depth = 5;
	x->capacity = 4096;
	x->stacks_dropped = (uint64_t)k;
	x->mode_dropped = (uint64_t)k / 3;
	/* the pool's shapes: the same for every k (a generator of their own) */
	x->stacks = calloc(nact, sizeof(*x->stacks));
	x->nstacks = nact;
	for (i = 0; i < DX_STACKS; i++) {
		struct snap_stack tmp = { 0 };
		uint32_t f[5];
		uint64_t count = 0;

		tmp.nr = 1 + dx_rand(&st) % 5;
		tmp.flags = dx_rand(&st) % 4 == 0 ? PRF_STACK_TRUNCATED : 0;
		for (j = 0; j < tmp.nr; j++)
			f[j] = (uint32_t)((i * 7 + j * 13 + dx_rand(&st)) % DX_FRAMES);
		if (!i)
			leaf0 = f[0];
		for (kk = (k >= DX_RESET ? DX_RESET : 0); kk <= k; kk++)
			count += (uint64_t)((i * 31 + (size_t)kk * 17) % 4);
		if (i >= nact)
			continue;
		x->stacks[i].count = count + 1;
		x->stacks[i].flags = tmp.flags;
		x->stacks[i].nr = tmp.nr;
		x->stacks[i].f = calloc(5, sizeof(uint32_t));
		for (j = 0; j < tmp.nr; j++) {
			x->stacks[i].f[j] = f[j];
			used[f[j]] = 1;
		}
	}
	/* two stacks of the same frames and flags would be one on the device */
	for (i = 0; i < nact; i++)
		for (j = 0; j < i; j++)
			if (x->stacks[j].nr && x->stacks[i].flags == x->stacks[j].flags &&
			    x->stacks[i].nr == x->stacks[j].nr &&
			    !memcmp(x->stacks[i].f, x->stacks[j].f, x->stacks[i].nr * 4))
				x->stacks[i].flags |= 0x100;
	for (i = 0, n = 0; i < DX_FRAMES; i++)
		if (used[i])
			idx[i] = (uint32_t)n++;
	x->frames = calloc(n, sizeof(*x->frames));
	x->nframes = n;
	for (i = 0; i < DX_FRAMES; i++) {
		char name[32];

		if (!used[i])
			continue;
		snprintf(name, sizeof(name), i == leaf0 && k >= DX_RENAME ? "bpf_prog_%zu_b" :
			 "fn_%zu", i);
		x->frames[idx[i]].addr = 0xffffffff9a000000ULL + 0x40 * i;
		x->frames[idx[i]].name = strdup(name);
		x->frames[idx[i]].module = i % 5 == 4 ? strdup("ext4") : NULL;
	}
	for (i = 0; i < nact; i++)
		for (j = 0; j < x->stacks[i].nr; j++)
			x->stacks[i].f[j] = idx[x->stacks[i].f[j]];
	/* another order each interval */
	for (i = 0; i < nact; i++)
		order[i] = (uint32_t)i;
	for (i = nact; i > 1; i--) {
		uint32_t r = (uint32_t)((dx_rand(&st) + (uint32_t)k * 977u) % i), t = order[i - 1];

		order[i - 1] = order[r];
		order[r] = t;
	}
	{
		struct snap_stack *sh = calloc(nact, sizeof(*sh));

		for (i = 0; i < nact; i++)
			sh[i] = x->stacks[order[i]];
		free(x->stacks);
		x->stacks = sh;
	}
	x->nsites = 9;
	x->sites = calloc(9, sizeof(*x->sites));
	for (i = 0; i < 9; i++) {
		uint64_t g = (uint64_t)(k >= DX_RESET ? k - DX_RESET : k) * (i % 3);

		x->sites[i].allocs = g;
		x->sites[i].bytes_req = g * 100;
		x->sites[i].bytes_alloc = g * 128;
		x->sites[i].frees = g / 2;
		x->sites[i].bytes_freed = g * 64;
		x->sites[i].frees_unseen = i == 4 ? g / 4 : 0;
		x->sites[i].bytes_unseen = i == 4 ? g * 16 : 0;
	}
	for (i = 0; i < 9; i++)
		s->counts[i] = x->sites[i].bytes_alloc;
	s->ext = x;
}

/* Do a and b hold the same extension (stacks in any order)? */
static int ext_equal(const struct snap_ext *a, const struct snap_ext *b)
{
	size_t i, j, k;

	if (!a || !b || a->mode != b->mode || a->depth != b->depth ||
	    a->capacity != b->capacity || a->mode_dropped != b->mode_dropped ||
	    a->stacks_dropped != b->stacks_dropped || a->nframes != b->nframes ||
	    a->nstacks != b->nstacks || a->nsites != b->nsites ||
	    memcmp(a->sites, b->sites, a->nsites * sizeof(*a->sites)))
		return 0;
	for (i = 0; i < a->nframes; i++)
		if (a->frames[i].addr != b->frames[i].addr ||
		    strcmp(a->frames[i].name, b->frames[i].name) ||
		    !a->frames[i].module != !b->frames[i].module ||
		    (a->frames[i].module && strcmp(a->frames[i].module, b->frames[i].module)))
			return 0;
	for (i = 0; i < a->nstacks; i++) {
		const struct snap_stack *sa = &a->stacks[i];

		for (j = 0; j < b->nstacks; j++) {
			const struct snap_stack *sb = &b->stacks[j];

			if (sa->flags != sb->flags || sa->nr != sb->nr)
				continue;
			for (k = 0; k < sa->nr && sa->f[k] == sb->f[k]; k++)
				;
			if (k == sa->nr)
				break;
		}
		if (j == b->nstacks || a->stacks[i].count != b->stacks[j].count)
			return 0;
	}
	return 1;
}

/*
 * The daemon's intervals with stacks and sites: each written against the
 * one before reads back as the same stacks, frames and sites as the same
 * series of full records; a reset or a frame named otherwise gets a full
 * record; a reader of version 5 refuses the record clearly; one that
 * follows a full snapshot record is corruption.
 */
static void test_ext_delta(const char *dir)
{
	char full[256], dl[256], err[SNAP_ERRLEN];
	struct snap_table t;
	struct snapshot s, prev;
	struct snapfile fa, fb;
	uint64_t base[9], base_len = 0;
	uint32_t base_crc = 0;
	size_t nxd = 0, k, same = 1, dbytes = 0, fbytes = 0;
	int r = 0, ra, rb, want = 1;
	unsigned char *bf, *bd;
	size_t lf, ld;

	snprintf(full, sizeof(full), "%s/xfull.prf", dir);
	snprintf(dl, sizeof(dl), "%s/xdelta.prf", dir);
	make_table(&t);
	memset(&prev, 0, sizeof(prev));
	for (k = 0; k < DX_SNAPS && !r; k++) {
		struct stat a, b;
		off_t f0, d0;

		dx_snap(&s, (int)k);
		f0 = stat(full, &a) ? 0 : a.st_size;
		d0 = stat(dl, &b) ? 0 : b.st_size;
		r = snapfile_append(full, &t, &s, err, sizeof(err));
		if (!r) {
			s.delta_base = k ? base : NULL;
			s.delta_len = base_len;
			s.delta_crc = base_crc;
			s.delta_ext = k ? prev.ext : NULL;
			r = snapfile_append(dl, &t, &s, err, sizeof(err));
			nxd += s.ext_delta;
			/* a full one: the first, the reset, the renamed frame */
			if (s.ext_delta != (k && k != DX_RESET && k != DX_RENAME))
				want = 0;
			memcpy(base, s.counts, sizeof(base));
			base_len = s.rec_end;
			base_crc = s.rec_crc;
		}
		if (k > DX_RENAME && !stat(full, &a) && !stat(dl, &b)) {
			fbytes += (size_t)(a.st_size - f0);
			dbytes += (size_t)(b.st_size - d0);
		}
		snapshot_free(&prev);
		prev = s;
	}
	snapshot_free(&prev);
	snap_table_free(&t);
	ok(!r && want && nxd == DX_SNAPS - 3,
	   "extension deltas: %d intervals, all but the first, the reset and the renamed frame "
	   "against the one before (%zu) %s", DX_SNAPS, nxd, r ? err : "");
	printf("# extension deltas: %.0f bytes an interval, full records %.0f\n",
	       (double)dbytes / (DX_SNAPS - DX_RENAME - 1), (double)fbytes / (DX_SNAPS - DX_RENAME - 1));
	ok(dbytes * 3 < fbytes, "extension deltas: under a third of the full records' bytes "
	   "(%zu against %zu)", dbytes, fbytes);
	ra = snapfile_read(full, &fa, err, sizeof(err));
	rb = ra ? -1 : snapfile_read(dl, &fb, err, sizeof(err));
	ok(!ra && !rb && fa.nsnaps == DX_SNAPS && fb.nsnaps == DX_SNAPS,
	   "extension deltas: both files read: %s", (ra || rb) ? err : "");
	if (!ra && !rb) {
		for (k = 0; k < DX_SNAPS && same; k++)
			same = ext_equal(fa.snaps[k].ext, fb.snaps[k].ext) &&
			       !memcmp(fa.snaps[k].counts, fb.snaps[k].counts, 9 * 8) &&
			       fb.snaps[k].ext_delta == (k && k != DX_RESET && k != DX_RENAME);
		ok(same, "extension deltas: every snapshot's stacks, frames and sites the same "
		   "as the full file's (first differing: %zu)", same ? 0 : k - 1);
		{
			struct report rep;
			struct stackview sv;
			char *ga = NULL, *gb = NULL;

			if (!report_from_file(&rep, &fa, 2, DX_RESET, err, sizeof(err)) &&
			    stacks_of_report(&rep, &sv, err, sizeof(err)) == 1) {
				ga = render(stacks_print_folded, &rep, &sv);
				stackview_free(&sv);
				report_free(&rep);
			}
			if (!report_from_file(&rep, &fb, 2, DX_RESET, err, sizeof(err)) &&
			    stacks_of_report(&rep, &sv, err, sizeof(err)) == 1) {
				gb = render(stacks_print_folded, &rep, &sv);
				stackview_free(&sv);
				report_free(&rep);
			}
			ok(ga && gb && strlen(ga) > 100 && !strcmp(ga, gb),
			   "extension deltas: the folded stacks between two snapshots the same");
			free(ga);
			free(gb);
		}
		snapfile_free(&fa);
		snapfile_free(&fb);
	}
	bd = (unsigned char *)slurp(dl, &ld);
	bf = (unsigned char *)slurp(full, &lf);
	if (bd) {
		struct snapfile f5;

		ok(snapfile_parse_max(bd, ld, "xdelta.prf", &f5, err, sizeof(err), 5) == -1 &&
		   strstr(err, "has format version 6, this prf reads versions 1 to 5"),
		   "extension deltas: a reader of version 5 refuses them clearly: %s", err);
	}
	/*
	 * Spliced: the full file's first four records (table, two snapshots,
	 * each with its extension record) and then the delta file's fifth,
	 * the second snapshot's delta extension: it follows a full record.
	 */
	if (bd && bf) {
		size_t pf = 0, pd = 0, i, lrec;
		unsigned char *c;
		struct snapfile fx;

		for (i = 0; i < 4; i++) {
			pf += 16 + (bf[pf + 8] | bf[pf + 9] << 8 | (size_t)bf[pf + 10] << 16);
			pd += 16 + (bd[pd + 8] | bd[pd + 9] << 8 | (size_t)bd[pd + 10] << 16);
		}
		lrec = 16 + (bd[pd + 8] | bd[pd + 9] << 8 | (size_t)bd[pd + 10] << 16);
		c = malloc(pf + lrec);
		ok(c && bd[pd + 6] == SNAP_REC_EXT_DELTA && bd[pd + 4] == SNAP_VERSION_EXT_DELTA,
		   "extension deltas: record 5 is a delta extension record (type 6, version 6)");
		if (c) {
			memcpy(c, bf, pf);
			memcpy(c + pf, bd + pd, lrec);
			ok(snapfile_parse(c, pf + lrec, "spliced.prf", &fx, err, sizeof(err)) == -1 &&
			   strstr(err, "delta extension record 5 at offset") &&
			   strstr(err, "does not follow a delta record"),
			   "extension deltas: one after a full snapshot record is corruption: %s", err);
			free(c);
		}
	}
	/*
	 * Every byte of the last delta extension record's payload set to 0,
	 * 0xff and itself plus one, its CRC made good: each file read or
	 * refused as corrupt, every stack's frames within its frames.
	 */
	if (bd) {
		size_t at = 0, last = 0, plen, i, bad = 0, nread = 0, nref = 0;
		unsigned char *c = malloc(ld);
		int v;

		while (at + 16 <= ld) {
			if (bd[at + 6] == SNAP_REC_EXT_DELTA)
				last = at;
			at += 16 + (bd[at + 8] | bd[at + 9] << 8 | (size_t)bd[at + 10] << 16);
		}
		plen = bd[last + 8] | bd[last + 9] << 8 | (size_t)bd[last + 10] << 16;
		for (i = 0; c && last && i < plen - 4; i++) {
			for (v = 0; v < 3; v++) {
				struct snapfile fx;
				uLong crc;
				size_t q;

				memcpy(c, bd, ld);
				c[last + 16 + i] = v == 0 ? 0 : v == 1 ? 0xff : (unsigned char)(bd[last + 16 + i] + 1);
				crc = crc32(crc32(0L, Z_NULL, 0), c + last, 12);
				crc = crc32(crc, c + last + 16, (uInt)plen);
				for (q = 0; q < 4; q++)
					c[last + 12 + q] = (unsigned char)(crc >> (8 * q));
				if (snapfile_parse(c, ld, "mutated.prf", &fx, err, sizeof(err))) {
					nref++;
					bad += !strstr(err, "corrupt") && !strstr(err, "memory");
					continue;
				}
				nread++;
				for (q = 0; q < fx.nsnaps; q++) {
					const struct snap_ext *x = fx.snaps[q].ext;
					size_t m, n;

					for (m = 0; x && m < x->nstacks; m++)
						for (n = 0; n < x->stacks[m].nr; n++)
							bad += x->stacks[m].f[n] >= x->nframes;
				}
				snapfile_free(&fx);
			}
		}
		ok(c && last && !bad && nref > 0,
		   "extension deltas: a mutated record read (%zu) or refused as corrupt (%zu), "
		   "never out of bounds (%zu bad)", nread, nref, bad);
		free(c);
	}
	free(bd);
	free(bf);
	unlink(full);
	unlink(dl);
}

/*
 * A base holding one stack twice (no device makes one, a file may): its
 * rank would not say which of the two grew, so the next interval gets a
 * full extension record, and reads back exact.
 */
static void test_ext_delta_twice(const char *dir)
{
	static const struct fx_stack twice_a[] = {
		{ 100, 0, { 2, 1, 0, -1 } },
		{ 50, 0, { 2, 1, 0, -1 } },
	};
	static const struct fx_stack twice_b[] = {
		{ 150, 0, { 2, 1, 0, -1 } },
		{ 50, 0, { 2, 1, 0, -1 } },
	};
	char file[256], err[SNAP_ERRLEN];
	struct snap_table t;
	struct snapshot a, b;
	struct snapfile f;
	int r;

	snprintf(file, sizeof(file), "%s/twice.prf", dir);
	make_table(&t);
	make_snap(&a, 1795000000000000000LL, ca);
	set_ext(&a, twice_a, 2, 0);
	r = snapfile_append(file, &t, &a, err, sizeof(err));
	make_snap(&b, 1795000060000000000LL, cb);
	set_ext(&b, twice_b, 2, 0);
	b.delta_base = a.counts;
	b.delta_len = a.rec_end;
	b.delta_crc = a.rec_crc;
	b.delta_ext = a.ext;
	r = r ? r : snapfile_append(file, &t, &b, err, sizeof(err));
	ok(!r && b.delta && !b.ext_delta,
	   "extension deltas: a base with a stack twice: a full extension record (%s)", r ? err : "");
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	/* a full record keeps the stacks' order: each count where it was */
	ok(!r && f.nsnaps == 2 && f.snaps[1].ext && f.snaps[1].ext->nstacks == 2 &&
	   f.snaps[1].ext->stacks[0].count == 150 && f.snaps[1].ext->stacks[1].count == 50,
	   "extension deltas: ... read back as written: %s", r ? err : "");
	if (!r)
		snapfile_free(&f);
	snapshot_free(&a);
	snapshot_free(&b);
	snap_table_free(&t);
	unlink(file);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/prf-stacks-XXXXXX";

	if (argc == 3 && !strcmp(argv[1], "--make-stacks"))
		return write_stacks(argv[2]) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "--make-alloc"))
		return write_alloc(argv[2], 1) ? 1 : 0;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_stacks(dir);
	test_modes(dir);
	test_source(dir);
	test_ext_delta(dir);
	test_ext_delta_twice(dir);
	rmdir(dir);
	return tap_end();
}
