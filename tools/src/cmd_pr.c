// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf pr, prfpr: report from a snapshot file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "pprof.h"
#include "stacks.h"
#include "html.h"
#include "uobj.h"
#include "irqoff.h"

/* ------------------------------------------------------------------ */
/* Reports                                                             */

/* The stacks' frames of the snapshots of table id with st's names too. */
static void rename_frames(struct snapfile *f, size_t id, const struct symtab *st)
{
	size_t i, k;

	for (i = 0; i < f->nsnaps; i++) {
		struct snap_ext *x = f->snaps[i].ext;

		if (!x || f->snaps[i].table_id != id)
			continue;
		for (k = 0; k < x->nframes; k++) {
			char *name, *mod, *plus;
			int kind;

			if (nl_describe(st, x->frames[k].addr, &name, &mod, &kind))
				continue;
			if (kind == SYM_UNKNOWN) {	/* keep what the snapshot had */
				free(name);
				free(mod);
				continue;
			}
			plus = strstr(name, "+0x");
			if (plus && plus != name)
				*plus = '\0';
			free(x->frames[k].name);
			free(x->frames[k].module);
			x->frames[k].name = name;
			x->frames[k].module = mod;
		}
	}
}

/* Rename every table of f with a namelist given to prfpr. */
static int rename_tables(struct snapfile *f, const char *namelist, const struct common *c)
{
	size_t i, k;

	for (i = 0; i < f->ntables; i++) {
		struct snap_table *t = &f->tables[i];
		struct nl_opts no = { 0 };
		struct symtab st;
		char err[NL_ERRLEN];

		no.kallsyms = c->kallsyms;
		no.keep_pseudo = 1;
		if (t->text)
			no.target_text = t->text;
		else
			no.have_offset = 1;
		if (nl_load(namelist, &no, &st, err, sizeof(err))) {
			msg("%s", err);
			return 1;
		}
		for (k = 0; k < t->n; k++) {
			char *name, *mod;
			int kind;

			if (nl_describe(&st, t->e[k].addr, &name, &mod, &kind))
				continue;
			free(t->e[k].name);
			free(t->e[k].module);
			t->e[k].name = name;
			t->e[k].module = mod;
			t->e[k].kind = (unsigned)kind;
		}
		rename_frames(f, i, &st);
		symtab_free(&st);
	}
	return 0;
}

#define OPT_SINCE 1960	/* prfpr --since, --until */
#define OPT_UNTIL 1961
#define TIME_MIN INT64_MIN
#define TIME_MAX INT64_MAX

/* "2024-05-01 12:00:00 UTC" (whole seconds) of ns. */
static const char *when_str(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns == TIME_MIN || ns == TIME_MAX)
		snprintf(buf, len, "%s", ns == TIME_MIN ? "the start" : "the end");
	else if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* Up to 9 digits of a fraction of a second at s (after the '.'): ns; *end past them. */
static int64_t frac_ns(const char *s, const char **end)
{
	int64_t v = 0, scale = 100000000;

	while (*s >= '0' && *s <= '9') {
		v += (*s - '0') * scale;
		scale /= 10;
		s++;
	}
	*end = s;
	return v;
}

/*
 * --since/--until's TIME as nanoseconds since the epoch: "now"; -N[smhdw]
 * (before now); @SECONDS[.FRACTION] (Unix time); or ISO 8601
 * YYYY-MM-DD[(T| )HH:MM[:SS[.FRACTION]]][Z| UTC|UTC|(+|-)HH[:]MM] (local
 * time without a zone, as --list's times with " UTC").  0, or -1 when bad.
 */
static int parse_when(const char *s, int64_t now_ns, int64_t *ns)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0, utc = 0;
	int64_t off = 0, fr = 0, v;
	const char *p;
	struct tm tm;
	time_t t;
	char *end;

	if (!strcmp(s, "now")) {
		*ns = now_ns;
		return 0;
	}
	if (*s == '-' || *s == '@') {
		if (s[1] < '0' || s[1] > '9')
			return -1;
		errno = 0;
		v = (int64_t)strtoll(s + 1, &end, 10);
		if (errno || v > 1000000000000LL)
			return -1;
		if (*s == '@') {
			if (*end == '.')
				fr = frac_ns(end + 1, &p);
			else
				p = end;
			if (*p)
				return -1;
			*ns = v * 1000000000 + fr;
			return 0;
		}
		switch (*end) {
		case '\0': case 's': break;
		case 'm': v *= 60; break;
		case 'h': v *= 3600; break;
		case 'd': v *= 86400; break;
		case 'w': v *= 7 * 86400; break;
		default: return -1;
		}
		if (*end && end[1])
			return -1;
		*ns = now_ns - v * 1000000000;
		return 0;
	}
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return -1;
	p = s + n;
	if ((*p == 'T' || *p == ' ') && p[1] >= '0' && p[1] <= '9') {
		n = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5)
			return -1;
		p += 1 + n;
		if (*p == ':') {
			n = 0;
			if (sscanf(p + 1, "%2d%n", &sec, &n) != 1 || n != 2)
				return -1;
			p += 1 + n;
			if (*p == '.')
				fr = frac_ns(p + 1, &p);
		}
	}
	if (!strcmp(p, "Z") || !strcmp(p, "UTC") || !strcmp(p, " UTC")) {
		utc = 1;
	} else if (*p == '+' || *p == '-') {
		int oh, om = 0;

		n = 0;
		if (sscanf(p + 1, "%2d%n", &oh, &n) != 1 || n != 2)
			return -1;
		end = (char *)p + 3;
		if (*end == ':')
			end++;
		if (*end) {
			n = 0;
			if (sscanf(end, "%2d%n", &om, &n) != 1 || n != 2 || end[2])
				return -1;
		}
		if (oh > 23 || om > 59)
			return -1;
		off = (*p == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
		utc = 1;
	} else if (*p) {
		return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*ns = ((int64_t)t - off) * 1000000000 + fr;
	return 0;
}

static void list_snapshots(const char *file, const struct snapfile *f, int64_t since,
			   int64_t until)
{
	size_t i;

	printf("%s: %zu snapshot%s, %zu table%s\n", file, f->nsnaps,
	       f->nsnaps == 1 ? "" : "s", f->ntables, f->ntables == 1 ? "" : "s");
	printf("%4s  %-23s  %5s  %9s  %6s  %-12s %s\n", "#", "time", "table",
	       "addresses", "hz", "ticks", "device");
	for (i = 0; i < f->nsnaps; i++) {
		const struct snapshot *s = &f->snaps[i];
		time_t t = (time_t)(s->time_ns / 1000000000);
		struct tm tm;
		char tb[64] = "?";

		if (s->time_ns < since || s->time_ns > until)
			continue;
		if (gmtime_r(&t, &tm))
			strftime(tb, sizeof(tb), "%Y-%m-%d %H:%M:%S UTC", &tm);
		printf("%4zu  %-23s  %5u  %9" PRIu64 "  %6u  %-12" PRIu64 " %s\n", i + 1, tb,
		       s->table_id, s->n, s->hz, s->ticks_total, s->device ? s->device : "?");
	}
}

/* ------------------------------------------------------------------ */
/* prfpr                                                               */

static void help_pr(void)
{
	printf("Usage: %s [options] FILE [CUTOFF [NAMELIST]]\n"
	       "Report the samples between the last two snapshots of FILE: each function\n"
	       "whose share of the kernel's samples is above CUTOFF percent (default 1),\n"
	       "a line for the functions below it, then the kernel, user and idle totals\n"
	       "as shares of all samples.  A FILE of one snapshot (prf record -o): since\n"
	       "the load.  A daemon's store (a DIR): its last hour, or all of it if shorter.\n\n"
	       "  -f, --device DEV only the snapshots taken from DEV (a file may mix them)\n"
	       "  NAMELIST         rename the addresses with this kallsyms, System.map or\n"
	       "                   vmlinux (moved to the snapshot's recorded _text)\n"
	       "  -c, --cutoff P   the cutoff, percent (same as CUTOFF)\n"
	       "  -m, --modules LIST only the functions of these modules, comma-separated\n"
	       "                   ('kernel': the kernel itself; --module is the same)\n"
	       "      --of WHAT    what a function's percentage is of: kernel (default:\n"
	       "                   kernel samples, outside included), busy (kernel and\n"
	       "                   user) or all (idle included)\n"
	       "      --sort KEY   order of the rows: samples (default), address, name, module\n"
	       "      --from I     first snapshot of the pair (1-based; negative: from the end)\n"
	       "      --to J       second snapshot of the pair (default: the last)\n"
	       "  -a, --all        the whole span: first to last snapshot\n"
	       "      --since TIME the first snapshot taken at or after TIME, to the last\n"
	       "      --until TIME the last snapshot taken at or before TIME, from the first\n"
	       "                   (together: the first and last of the range; with --list,\n"
	       "                   the snapshots in it).  TIME: ISO 8601 YYYY-MM-DD[THH:MM\n"
	       "                   [:SS[.F]]][Z|+HH:MM] (local time without a zone), -2h,\n"
	       "                   -30m, -1d (before now), @UNIXSECONDS, now\n"
	       "      --since-load one snapshot alone, counted from the load or clear\n"
	       "  -l, --list       list the snapshots in FILE\n"
	       "      --text       plain text (default)\n"
	       "      --csv        comma-separated values\n"
	       "      --json       JSON\n"
	       "      --folded     'module;function count' lines (flamegraph.pl, speedscope)\n"
	       "      --no-demangle  user functions by their symbols (default: C++ and Rust\n"
	       "                   names demangled)\n"
	       "      --diff BASE  compare with BASE: I:J (snapshots of FILE), another file\n"
	       "                   (its last two; its only one since the load, as prf record\n"
	       "                   writes) or FILE:I:J; per function the share in each,\n"
	       "                   the change in points and the ratio, largest change first;\n"
	       "                   with --folded, 'path BASE COUNT' lines: each stack's\n"
	       "                   samples in both, every path (no cutoff; the form\n"
	       "                   flamegraph.pl draws as a differential flame graph)\n"
	       "      --callers FUNC  who calls FUNC (stacks needed: prfstat --stacks, prf\n"
	       "                   record -g): per caller, its samples and share of FUNC's\n"
	       "      --callees FUNC  what FUNC calls ([self]: FUNC itself was sampled)\n"
	       "      --irqoff-to-caller  with stacks: charge a sample where interrupts\n"
	       "                   came back on (a row marked *) to the caller that held\n"
	       "                   them off, in every view of the report\n"
	       "      --pprof OUT  write the report to OUT as pprof's gzipped profile.proto\n"
	       "                   (every function, [user], [idle]; go tool pprof, Parca,\n"
	       "                   Pyroscope, Grafana read it), print nothing\n"
	       "      --html OUT   write the report to OUT as one HTML page (sortable\n"
	       "                   functions, modules, a flame graph, and a timeline over\n"
	       "                   the snapshots of --from..--to or --all), print nothing\n"
	       "      --stacks F   with --html: the flame graph of these folded stacks\n"
	       "                   ('frame;frame;... count' lines) instead of module;function\n"
	       "  -h, --help       this help\n", prog);
}

/* Keep only the snapshots taken from dev (prfpr -f). */
static void keep_device(struct snapfile *f, const char *dev)
{
	size_t i, j = 0;

	for (i = 0; i < f->nsnaps; i++) {
		if (f->snaps[i].device && !strcmp(f->snaps[i].device, dev))
			f->snaps[j++] = f->snaps[i];
		else
			snapshot_free(&f->snaps[i]);
	}
	f->nsnaps = j;
}

static int parse_index(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return !*s || *end || errno || !*v ? -1 : 0;
}

/*
 * The pair of snapshots a report is between: --to (default the last),
 * --from (default the one before), --all (first to last), --since-load (0).
 * 0, or 1 after saying why there is none.
 */
static int pick_pair(const char *file, const struct snapfile *f, long from, long to,
		     int all, int zero, long *ia, long *ib)
{
	*ib = to ? to : (long)f->nsnaps;
	if (*ib < 0)
		*ib += (long)f->nsnaps + 1;
	if (zero)
		*ia = 0;
	else if (all)
		*ia = 1;
	else if (from)
		*ia = from < 0 ? from + (long)f->nsnaps + 1 : from;
	else
		*ia = *ib - 1;
	if (zero && !f->nsnaps) {
		msg("%s: no snapshot in the file", file);
		return 1;
	}
	if (!zero && f->nsnaps < 2) {
		msg("%s: %zu snapshot%s: a report needs two (take another with prfsnap, "
		    "or use --since-load)", file, f->nsnaps, f->nsnaps == 1 ? "" : "s");
		return 1;
	}
	if (!zero && *ia < 1) {
		msg("%s: no snapshot %ld", file, *ia);
		return 1;
	}
	return 0;
}

/*
 * --since/--until: the first and the last snapshot taken in [since, until];
 * when their tables differ (a module loaded or unloaded in between), from
 * the first of the last one's table, said.  0, or 1 after saying why not.
 */
static int pick_range(const char *file, const struct snapfile *f, int64_t since,
		      int64_t until, long *ia, long *ib)
{
	char a[64], b[64], c[64], d[64];
	size_t i, n = 0, first = 0, last = 0, k;

	for (i = 0; i < f->nsnaps; i++) {
		if (f->snaps[i].time_ns < since || f->snaps[i].time_ns > until)
			continue;
		if (!n++)
			first = i;
		last = i;
	}
	if (n < 2) {
		if (f->nsnaps)
			msg("%s: %zu snapshot%s from %s to %s: a report needs two (the file's %zu "
			    "are from %s to %s)", file, n, n == 1 ? "" : "s",
			    when_str(since, a, sizeof(a)), when_str(until, b, sizeof(b)), f->nsnaps,
			    when_str(f->snaps[0].time_ns, c, sizeof(c)),
			    when_str(f->snaps[f->nsnaps - 1].time_ns, d, sizeof(d)));
		else
			msg("%s: no snapshot in the file", file);
		return 1;
	}
	for (k = first; k < last; k++) {
		const struct snapshot *x = &f->snaps[k], *y = &f->snaps[last];

		if (x->time_ns >= since && x->time_ns <= until &&
		    (x->table_id == y->table_id ||
		     snap_table_equal(&f->tables[x->table_id], &f->tables[y->table_id])))
			break;
	}
	if (k == last) {
		msg("%s: the last snapshot from %s to %s (%zu) is its table's only one in the "
		    "range: no report", file, when_str(since, a, sizeof(a)),
		    when_str(until, b, sizeof(b)), last + 1);
		return 1;
	}
	if (k != first)
		msg("%s: the table changed at snapshot %zu (the kernel's modules): the report "
		    "is from it to %zu, the snapshots %zu to %zu of the range left out", file,
		    k + 1, last + 1, first + 1, k);
	*ia = (long)k + 1;
	*ib = (long)last + 1;
	return 0;
}

/*
 * prfpr DIR with no pair asked: a daemon's store, of weeks maybe, reports
 * its last hour, or the whole store when shorter (*since set for
 * pick_range()); what, for the header, or NULL when fewer than two
 * snapshots fall in that hour (then the last two, as for a file).
 */
#define STORE_WINDOW_NS (3600LL * 1000000000)
static const char *store_window(const struct snapfile *f, int64_t *since)
{
	int64_t from;
	size_t i, n = 0;

	if (f->nsnaps < 2)
		return NULL;
	from = f->snaps[f->nsnaps - 1].time_ns - STORE_WINDOW_NS;
	if (f->snaps[0].time_ns >= from) {
		*since = TIME_MIN;
		return "the whole store";
	}
	for (i = 0; i < f->nsnaps; i++)
		n += f->snaps[i].time_ns >= from;
	if (n < 2)
		return NULL;
	*since = from;
	return "the last hour";
}

/*
 * --diff BASE: "I:J" (snapshots of FILE), "PATH" (its last two), or
 * "PATH:I:J".  Splits it: path NULL for FILE, from and to 0 for the default.
 * 0, or EXIT_USAGE (said).
 */
static int parse_base(char *spec, char **path, long *from, long *to)
{
	char *c2 = strrchr(spec, ':'), *c1, *end;

	*path = spec;
	*from = *to = 0;
	if (!c2)
		return 0;
	*c2 = '\0';
	c1 = strrchr(spec, ':');
	*c2 = ':';
	errno = 0;
	*from = strtol(c1 ? c1 + 1 : spec, &end, 10);
	if (end != c2 || errno || !*from)
		return usage_error("--diff %s: want I:J, FILE or FILE:I:J (snapshot numbers)", spec);
	*to = strtol(c2 + 1, &end, 10);
	if (*end || errno || !*to || c2[1] == '\0')
		return usage_error("--diff %s: want I:J, FILE or FILE:I:J (snapshot numbers)", spec);
	if (c1)
		*c1 = '\0';
	*path = c1 ? spec : NULL;
	return 0;
}

/*
 * A report since the load of a snapshot holding its user objects table
 * (prf record -o), or between two snapshots that both hold one (prf
 * daemon's store: the later table less the earlier, uobj_snap_delta):
 * named now from the files' paths and identities, a row each as prf
 * record gives them (uobj_inject), kept in u to the end of the program
 * (the report points into it).  a: the earlier snapshot, NULL since the
 * load.  0, or 1 said.
 */
struct pr_user {
	struct uobj_res res;
	struct snap_table t;
	uint64_t total;		/* the user bucket before the rows went in */
};

static struct pr_user pr_cur, pr_base;

static int pr_uobjs(const char *file, const struct snapshot *a, const struct snapshot *s,
		    struct report *r, struct pr_user *u)
{
	char err[SNAP_ERRLEN];
	struct snap_uobjs *d = NULL;
	int ret;

	if (!s->uobjs || (a && !a->uobjs))
		return 0;
	if (a && uobj_snap_delta(s->uobjs, a->uobjs, &d)) {
		msg("%s: user objects: %s", file, strerror(ENOMEM));
		return 1;
	}
	ret = uobj_resolve_snap(d ? d : s->uobjs, &u->res, err, sizeof(err));
	snap_uobjs_free(d);
	if (ret) {
		msg("%s: user objects: %s", file, err);
		return 1;
	}
	u->total = r->user;
	if (uobj_inject(r, &u->res, &u->t)) {
		msg("%s: user objects: %s", file, strerror(ENOMEM));
		return 1;
	}
	r->uobjs = &u->res;
	return 0;
}

/*
 * The base report of --diff into rb (bf: its file when another), its user
 * objects named into u unless u is NULL.  0 or 1.
 */
static int base_report(const char *path, long from, long to, const char *file,
		       const struct snapfile *f, struct snapfile *bf, struct report *rb,
		       const struct common *c, struct pr_user *u)
{
	char err[SNAP_ERRLEN];
	long ia, ib;

	if (path) {
		if (read_snapfile(path, bf))
			return 1;
		if (c->dev)
			keep_device(bf, c->dev);
		f = bf;
		file = path;
	}
	/* another file of one snapshot (prf record's): since the load */
	if (pick_pair(file, f, from, to, 0, path && !from && !to && f->nsnaps == 1,
		      &ia, &ib))
		return 1;
	if (report_from_file(rb, f, ia, ib, err, sizeof(err))) {
		msg("%s: %s", file, err);
		return 1;
	}
	rb->file = file;
	return u ? pr_uobjs(file, ia ? &f->snaps[ia - 1] : NULL, &f->snaps[ib - 1], rb, u) : 0;
}

struct pr_opts {
	struct report_opts ro;
	long from, to;
	int all, zero, list, cut_set;
	const char *since, *until;	/* --since, --until as given */
	const char *pprof;
	char *diff;
	const char *neighbour;	/* --callers/--callees FUNC */
	int callees;
	const char *html, *stacks;
	int irqoff_to_caller;	/* --irqoff-to-caller */
};

static int pr_opt(void *ctx, int opt, const char *arg)
{
	struct pr_opts *o = ctx;

	switch (opt) {
	case 'c':
		o->cut_set = 1;
		return parse_cutoff(arg, &o->ro.cutoff);
	case OPT_FROM:
		if (parse_index(arg, &o->from))
			return usage_error("--from %s: want a snapshot number", arg);
		break;
	case OPT_TO:
		if (parse_index(arg, &o->to))
			return usage_error("--to %s: want a snapshot number", arg);
		break;
	case 'a': o->all = 1; break;
	case OPT_SINCE: o->since = arg; break;
	case OPT_UNTIL: o->until = arg; break;
	case OPT_SINCE_LOAD: o->zero = 1; break;
	case 'l': o->list = 1; break;
	case OPT_PPROF: o->pprof = arg; break;
	case OPT_DIFF: o->diff = (char *)arg; break;
	case OPT_CALLERS:
	case OPT_CALLEES:
		if (o->neighbour)
			return usage_error("--callers and --callees: one of them, once");
		o->neighbour = arg;
		o->callees = opt == OPT_CALLEES;
		break;
	case OPT_HTML: o->html = arg; break;
	case OPT_STACKS: o->stacks = arg; break;
	case OPT_IRQOFF_TO_CALLER: o->irqoff_to_caller = 1; break;
	}
	return 0;
}

/*
 * The stacks of r: checked for the formats that show them, and the callers
 * or callees view.  -1 to go on with the report, else the exit status.
 */
static int pr_stacks(const char *file, const struct report *r, const struct pr_opts *o,
		     const struct report_opts *ro)
{
	struct stackview sv;
	char err[SNAP_ERRLEN];
	int ret;

	if (!o->neighbour && !o->pprof && ro->format != FMT_FOLDED && ro->format != FMT_JSON)
		return -1;
	ret = stacks_of_report(r, &sv, err, sizeof(err));
	if (ret < 0) {
		msg("%s: %s", file, err);
		return 1;
	}
	if (!o->neighbour) {
		stackview_free(&sv);
		return -1;
	}
	if (!ret) {
		msg("%s: snapshots %ld to %ld have no stacks (take them with stacks on: "
		    "prfstat --stacks D on, or prf record -g)", file, r->ia, r->ib);
		return 1;
	}
	ret = stacks_print_neighbours(stdout, &sv, o->neighbour, o->callees, ro->format,
				      ro->max_rows, 0);
	stackview_free(&sv);
	if (ret > 0)
		msg("%s: %s is in no stack of snapshots %ld to %ld", file, o->neighbour,
		    r->ia, r->ib);
	return ret ? 1 : 0;
}

/* --irqoff-to-caller on r: 0, or 1 after saying why not. */
static int pr_irqoff(const char *file, struct report *r)
{
	char err[SNAP_ERRLEN];
	int ret;

	if (!irqoff_applies(r)) {
		msg("%s: --irqoff-to-caller: snapshots %ld to %ld count %s, not time: no sample "
		    "waits for interrupts", file, r->ia, r->ib, mode_unit(report_mode(r)));
		return 1;
	}
	ret = irqoff_to_caller(r, err, sizeof(err));
	if (ret < 0)
		msg("%s: %s", file, err);
	else if (ret)
		msg("%s: --irqoff-to-caller: snapshots %ld to %ld have no stacks (take them with "
		    "stacks on: prfstat --stacks D on, or prf record -g)", file, r->ia, r->ib);
	return ret ? 1 : 0;
}

/*
 * The snapshots' own stacks, folded, for the HTML page's flame graph when
 * no --stacks FILE is given: *v stays NULL when they have none.  [user] and
 * [idle] are drawn when the percentages include them (--of), and so are the
 * user samples' own chains (PRF_STACK_USER: user frames alone); a kernel
 * stack joined to its user chain is a kernel sample, drawn always.
 */
static void html_stacks_of(const struct report *r, const struct report_opts *ro,
			   struct html_stack **v, size_t *n)
{
	struct stackview sv;
	char err[SNAP_ERRLEN], *text = NULL, *line, *save = NULL;
	size_t len = 0, cap = 0;
	FILE *m;

	if (stacks_of_report(r, &sv, err, sizeof(err)) <= 0)
		return;
	if (ro->of == OF_KERNEL) {
		size_t i, k = 0;

		for (i = 0; i < sv.n; i++) {
			if (sv.v[i].flags & PRF_STACK_USER) {
				sv.total -= sv.v[i].count;
				free(sv.v[i].f);
				continue;
			}
			sv.v[k++] = sv.v[i];
		}
		sv.n = k;
	}
	m = open_memstream(&text, &len);
	if (m) {
		stacks_print_folded(m, r, &sv, ro);
		fclose(m);
	}
	stackview_free(&sv);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		struct html_stack *nv;

		if (!sp)
			continue;
		*sp = '\0';
		/* the buckets the report's percentages leave out, as without stacks */
		if ((!strcmp(line, "[idle]") && ro->of != OF_ALL) ||
		    (!strcmp(line, "[user]") && ro->of == OF_KERNEL))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(*v, cap * sizeof(**v));
			if (!nv)
				break;
			*v = nv;
		}
		(*v)[*n].frames = strdup(line);
		(*v)[*n].count = strtoull(sp + 1, NULL, 10);
		if ((*v)[*n].frames)
			(*n)++;
	}
	free(text);
}

int cmd_pr(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cutoff", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "all", no_argument, NULL, 'a' },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "since-load", no_argument, NULL, OPT_SINCE_LOAD },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "diff", required_argument, NULL, OPT_DIFF },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "stacks", required_argument, NULL, OPT_STACKS },
		{ "list", no_argument, NULL, 'l' },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "callees", required_argument, NULL, OPT_CALLEES },
		{ "irqoff-to-caller", no_argument, NULL, OPT_IRQOFF_TO_CALLER },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"c:al", lo, CO_KALLSYMS | CO_FORMAT | CO_TEXT | CO_DEV_FILTER | CO_REPORT, help_pr, pr_opt,
		1, 3, "want FILE [CUTOFF [NAMELIST]]",
	};
	struct common c;
	struct pr_opts o = { .ro.cutoff = 1.0 };
	struct report_opts ro;
	struct snapfile f;
	struct report r;
	char err[SNAP_ERRLEN];
	long ia, ib, bfrom = 0, bto = 0;
	int64_t since = TIME_MIN, until = TIME_MAX, now_ns;
	struct timespec ts;
	int ret;
	const char *file, *window = NULL;	/* a store's default window */
	char *bpath = NULL, label[PATH_MAX + 32];

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	ro = o.ro;
	report_opts_from(&c, &ro);
	if ((o.all && (o.from || o.zero)) || (o.zero && o.from))
		return usage_error("--all, --since-load and --from exclude each other");
	if (o.diff && (o.pprof || o.html || o.list))
		return usage_error("--diff goes with the text, --csv, --json and --folded reports alone");
	if (o.neighbour && (o.diff || o.pprof || ro.format == FMT_FOLDED || o.list))
		return usage_error("--callers/--callees go with the text, --csv and --json "
				   "reports alone");
	if (o.stacks && !o.html)
		return usage_error("--stacks goes with --html");
	if (o.irqoff_to_caller && (o.diff || o.list || o.stacks))
		return usage_error("--irqoff-to-caller goes with a report of the file's own stacks "
				   "(not --diff, --list or --stacks)");
	if ((o.since || o.until) && (o.all || o.from || o.to || o.zero))
		return usage_error("--since/--until exclude --all, --from, --to and --since-load");
	clock_gettime(CLOCK_REALTIME, &ts);
	now_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (o.since && parse_when(o.since, now_ns, &since))
		return usage_error("--since %s: want YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM], -N[smhdw], "
				   "@SECONDS or now", o.since);
	if (o.until && parse_when(o.until, now_ns, &until))
		return usage_error("--until %s: want YYYY-MM-DD[THH:MM[:SS]][Z|+HH:MM], -N[smhdw], "
				   "@SECONDS or now", o.until);
	if (since > until)
		return usage_error("--since %s is after --until %s", o.since, o.until);
	if (o.diff && parse_base(o.diff, &bpath, &bfrom, &bto))
		return EXIT_USAGE;
	file = argv[optind];
	if (argc - optind >= 2) {
		if (o.cut_set)
			return usage_error("cutoff given twice");
		if (parse_cutoff(argv[optind + 1], &ro.cutoff))
			return EXIT_USAGE;
	}
	if (read_snapfile(file, &f))
		return 1;
	if (c.dev)
		keep_device(&f, c.dev);
	if (o.list) {
		list_snapshots(file, &f, since, until);
		snapfile_free(&f);
		return 0;
	}
	if (argc - optind == 3 && rename_tables(&f, argv[optind + 2], &c)) {
		snapfile_free(&f);
		return 1;
	}
	if (!o.from && !o.to && !o.all && !o.zero && !o.since && !o.until) {
		struct stat st;

		if (!stat(file, &st) && S_ISDIR(st.st_mode))
			window = store_window(&f, &since);
		else if (f.nsnaps == 1)
			o.zero = 1;	/* prf record's file: since the load */
	}
	if ((o.since || o.until || window) ? pick_range(file, &f, since, until, &ia, &ib) :
	    pick_pair(file, &f, o.from, o.to, o.all, o.zero, &ia, &ib)) {
		snapfile_free(&f);
		return 1;
	}
	if (report_from_file(&r, &f, ia, ib, err, sizeof(err))) {
		msg("%s: %s", file, err);
		snapfile_free(&f);
		return 1;
	}
	/* not under --diff's tables: their base keeps user time as one total */
	if ((!o.diff || ro.format == FMT_FOLDED) &&
	    pr_uobjs(file, ia ? &f.snaps[ia - 1] : NULL, &f.snaps[ib - 1], &r, &pr_cur)) {
		report_free(&r);
		snapfile_free(&f);
		return 1;
	}
	ro.file = file;
	if (window && ro.format == FMT_TEXT) {
		snprintf(label, sizeof(label), "%s (%s)", file, window);
		ro.file = label;
	}
	report_default_of(&r, &ro);
	if (o.irqoff_to_caller && pr_irqoff(file, &r)) {
		report_free(&r);
		snapfile_free(&f);
		return 1;
	}
	if ((ret = pr_stacks(file, &r, &o, &ro)) >= 0) {
		report_free(&r);
		snapfile_free(&f);
		return ret;
	}
	if (o.pprof && pprof_write(o.pprof, &r, &ro, err, sizeof(err))) {
		msg("%s", err);
		report_free(&r);
		snapfile_free(&f);
		return 1;
	}
	r.file = file;
	if (o.html) {
		struct html_input hi = { &r, &ro, &f, ia ? ia : 1, ib, NULL, 0 };
		struct html_stack *sv = NULL;
		size_t ns = 0;

		ret = o.stacks && html_read_folded(o.stacks, &sv, &ns, err, sizeof(err));
		if (!o.stacks)
			html_stacks_of(&r, &ro, &sv, &ns);	/* the file's own, if any */
		hi.stacks = sv;
		hi.nstacks = ns;
		if (!ret)
			ret = html_write(o.html, &hi, err, sizeof(err)) ? 1 : 0;
		if (ret)
			msg("%s", err);
		html_free_stacks(sv, ns);
		report_free(&r);
		snapfile_free(&f);
		return ret;
	}
	if (o.diff) {
		struct snapfile bf = { 0 };
		struct report rb = { 0 };

		if (ro.format == FMT_FOLDED) {
			ret = base_report(bpath, bfrom, bto, file, &f, &bf, &rb, &c, &pr_base);
			if (!ret && report_print_diff_folded(stdout, &rb, &r, &ro)) {
				msg("%s", strerror(ENOMEM));
				ret = 1;
			}
		} else {
			ret = base_report(bpath, bfrom, bto, file, &f, &bf, &rb, &c, NULL);
			if (!ret)
				report_print_diff(stdout, &rb, &r, &ro);
		}
		report_free(&rb);
		snapfile_free(&bf);
		report_free(&r);
		snapfile_free(&f);
		return ret;
	}
	if (!o.pprof) {
		report_print(stdout, &r, &ro);
		if (r.uobjs && (ro.format == FMT_TEXT || ro.format == FMT_CSV)) {
			printf("\n");
			uobj_print_programs(stdout, r.uobjs, pr_cur.total, ro.format == FMT_CSV);
		}
	}
	report_free(&r);
	snapfile_free(&f);
	return 0;	/* a write error is main()'s to say */
}
