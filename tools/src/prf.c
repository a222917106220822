// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf - the profiler(1M) commands for /dev/prf: prfld, prfstat, prfsnap,
 * prfdc, prfpr, and prf record, prf top, prf clear.
 *
 * One binary; the classic names are links to it and choose the command
 * from argv[0].  Exit status: 0 ok, 1 runtime error, 2 usage.
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
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"

#define PRF_VERSION "1.0"
#define EXIT_USAGE 2
#define DRY_RUN_MAX (1U << 24)	/* prfld -n: table size bound without a device */

static const char *prog = "prf";

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return EXIT_USAGE;
}

/* Options every command knows (long-only ones are for tests and experts). */
struct common {
	const char *dev;
	const char *kallsyms;
	const char *modules;
	uint32_t hz;			/* CO_SAMPLING: --hz, 0 when not given */
	int fixed;			/* CO_SAMPLING: 1 --fixed (--no-jitter), 0 --jitter, -1 neither */
	enum report_format format;	/* CO_FORMAT */
};

enum {
	OPT_KALLSYMS = 1000, OPT_MODULES, OPT_KASLR, OPT_STEP, OPT_RANGE,
	OPT_PERIOD_SEC, OPT_COUNT, OPT_CSV, OPT_JSON, OPT_FOLDED, OPT_TEXT,
	OPT_FROM, OPT_TO, OPT_JITTER, OPT_NOJITTER, OPT_PRINT, OPT_LIST,
	OPT_HZ, OPT_FIXED,
};

static int parse_u64(const char *s, uint64_t *v, int base)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int parse_hz(const char *s, uint32_t *hz)
{
	uint64_t v;

	if (parse_u64(s, &v, 10) || v < PRF_HZ_MIN || v > PRF_HZ_MAX)
		return -1;
	*hz = (uint32_t)v;
	return 0;
}

static int parse_double(const char *s, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	return !*s || *end || errno || *d < 0 ? -1 : 0;
}

/* Open the device, saying why not in words. */
static int open_dev(const char *dev, int oflags, struct prf **p)
{
	int ret = prf_open(dev, oflags, p);

	if (!ret)
		return 0;
	if (ret == -EPERM || ret == -EACCES)
		msg("%s: %s (needs root: CAP_PERFMON or CAP_SYS_ADMIN, and no kernel lockdown)",
		    dev, strerror(-ret));
	else if (ret == -ENOENT)
		msg("%s: %s (is the prf module loaded?)", dev, strerror(-ret));
	else if (ret == -ENXIO)
		msg("%s: %s (no such CPU)", dev, strerror(-ret));
	else
		msg("%s: %s", dev, strerror(-ret));
	return 1;
}

static int dev_fail(const char *dev, const char *what, int ret)
{
	if (ret == -EBUSY)
		msg("%s: %s: %s (sampling is ON: run 'prfstat -f %s off' first)",
		    dev, what, strerror(-ret), dev);
	else if (ret == -ENXIO)
		msg("%s: %s: %s (no table loaded: run prfld first)", dev, what,
		    strerror(-ret));
	else
		msg("%s: %s: %s", dev, what, strerror(-ret));
	return 1;
}

/* Open the device and read its state; 0, or 1 (said, closed). */
static int open_status(const char *dev, int oflags, struct prf **p, int *st)
{
	if (open_dev(dev, oflags, p))
		return 1;
	*st = prf_get_status(*p);
	if (*st >= 0)
		return 0;
	dev_fail(dev, "PRF_GETSTATUS", *st);
	prf_close(*p);
	*p = NULL;
	return 1;
}

/* PRF_SETSTATE, saying why not; 0 or 1. */
static int set_state(struct prf *p, const char *dev, int on)
{
	int ret = prf_set_state(p, on);

	return ret ? dev_fail(dev, "PRF_SETSTATE", ret) : 0;
}

/*
 * Whether a command that switches sampling on asks for fixed periods:
 * only with --fixed (or --no-jitter).  Otherwise it asks for the device's
 * stratified default (one sample at a random point of every period): a
 * fixed period that divides the scheduler tick's samples at one phase
 * after each tick and over- or under-counts what runs there.
 */
static int fixed_on(const struct common *c)
{
	return c->fixed < 0 ? 0 : c->fixed;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

/* The shared options a command takes besides -f DEVICE and -h. */
enum {
	CO_KALLSYMS = 1 << 0,	/* --kallsyms FILE */
	CO_MODULES = 1 << 1,	/* --proc-modules FILE */
	CO_SAMPLING = 1 << 2,	/* -z/--hz N, --fixed, --jitter, --no-jitter */
	CO_FORMAT = 1 << 3,	/* --csv, --json, --folded */
	CO_TEXT = 1 << 4,	/* --text */
	CO_DEV_FILTER = 1 << 5,	/* -f only selects: no default device */
};

/* What a command states of its own: the rest is parse_opts(). */
struct cmd_opts {
	const char *shortopts;		/* a leading '+' stops at the first operand */
	const struct option *lo;	/* NULL-terminated, or NULL */
	unsigned common;		/* CO_* */
	void (*help)(void);
	/* One of its own options: 0, or the exit status (usage_error()). */
	int (*opt)(void *ctx, int opt, const char *arg);
	int min_args, max_args;		/* operands */
	const char *args_error;		/* said outside them (default "too many arguments") */
};

static const struct {
	struct option o;
	unsigned need;
} common_lo[] = {
	{ { "device", required_argument, NULL, 'f' }, 0 },
	{ { "help", no_argument, NULL, 'h' }, 0 },
	{ { "kallsyms", required_argument, NULL, OPT_KALLSYMS }, CO_KALLSYMS },
	{ { "proc-modules", required_argument, NULL, OPT_MODULES }, CO_MODULES },
	{ { "hz", required_argument, NULL, OPT_HZ }, CO_SAMPLING },
	{ { "fixed", no_argument, NULL, OPT_FIXED }, CO_SAMPLING },
	{ { "jitter", no_argument, NULL, OPT_JITTER }, CO_SAMPLING },
	{ { "no-jitter", no_argument, NULL, OPT_NOJITTER }, CO_SAMPLING },
	{ { "text", no_argument, NULL, OPT_TEXT }, CO_TEXT },
	{ { "csv", no_argument, NULL, OPT_CSV }, CO_FORMAT },
	{ { "json", no_argument, NULL, OPT_JSON }, CO_FORMAT },
	{ { "folded", no_argument, NULL, OPT_FOLDED }, CO_FORMAT },
};

#define OPTS_OK (-1)
#define NCOMMON (sizeof(common_lo) / sizeof(common_lo[0]))

/*
 * Parse argv into c (defaults first) and, through co->opt, the command's
 * own ctx; check the number of operands, which start at argv[optind].
 * Returns OPTS_OK to go on, or the exit status: 0 after the help, 2 after
 * a usage error (said).
 */
static int parse_opts(const struct cmd_opts *co, struct common *c, int argc, char **argv,
		      void *ctx)
{
	const char *own = co->shortopts ? co->shortopts : "";
	struct option lo[40];
	char so[64];
	size_t i, n = 0;
	int opt, ret, plus = *own == '+';

	c->dev = co->common & CO_DEV_FILTER ? NULL : PRF_DEVICE;
	c->kallsyms = "/proc/kallsyms";
	c->modules = "/proc/modules";
	c->hz = 0;
	c->fixed = -1;
	c->format = FMT_TEXT;
	snprintf(so, sizeof(so), "%s%s%sf:h", plus ? "+" : "", own + plus,
		 co->common & CO_SAMPLING ? "z:" : "");
	for (i = 0; co->lo && co->lo[i].name && n < sizeof(lo) / sizeof(lo[0]) - NCOMMON - 1; i++)
		lo[n++] = co->lo[i];
	for (i = 0; i < NCOMMON; i++)
		if (!common_lo[i].need || (co->common & common_lo[i].need))
			lo[n++] = common_lo[i].o;
	memset(&lo[n], 0, sizeof(lo[n]));
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (opt == 'z' && (co->common & CO_SAMPLING))
			opt = OPT_HZ;
		switch (opt) {
		case 'f': c->dev = optarg; break;
		case 'h': co->help(); return 0;
		case '?': return usage_error("bad option");
		case OPT_KALLSYMS: c->kallsyms = optarg; break;
		case OPT_MODULES: c->modules = optarg; break;
		case OPT_HZ:
			if (parse_hz(optarg, &c->hz))
				return usage_error("--hz %s: want %d..%d", optarg, PRF_HZ_MIN,
						   PRF_HZ_MAX);
			break;
		case OPT_JITTER: c->fixed = 0; break;
		case OPT_FIXED:
		case OPT_NOJITTER: c->fixed = 1; break;
		case OPT_TEXT: c->format = FMT_TEXT; break;
		case OPT_CSV: c->format = FMT_CSV; break;
		case OPT_JSON: c->format = FMT_JSON; break;
		case OPT_FOLDED: c->format = FMT_FOLDED; break;
		default:
			ret = co->opt ? co->opt(ctx, opt, optarg) : usage_error("bad option");
			if (ret)
				return ret;
		}
	}
	if (argc - optind < co->min_args || argc - optind > co->max_args)
		return usage_error("%s", co->args_error ? co->args_error : "too many arguments");
	return OPTS_OK;
}

/* A cutoff in percent, from an option or an operand. */
static int parse_cutoff(const char *s, double *cutoff)
{
	if (parse_double(s, cutoff) || *cutoff > 100)
		return usage_error("cutoff %s: want a percentage, 0..100", s);
	return 0;
}

/* A positive number given to option name. */
static int parse_positive(const char *name, const char *s, uint64_t *v, const char *what)
{
	if (parse_u64(s, v, 10) || !*v)
		return usage_error("%s %s: want a positive %s", name, s, what);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tables: what prfld loads                                            */

struct ld_opts {
	const char *namelist;
	const char *only;
	uint64_t step;
	const char *range;
	int have_off;
	int64_t off;
	int dry, quiet;		/* prfld -n, -q */
};

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
static int build_table(const struct common *c, const struct ld_opts *o, size_t max,
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

static int load_table(struct prf *p, const char *dev, const struct symtab *t)
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

/* Load the running kernel's functions when nothing is loaded yet. */
static int ensure_loaded(struct prf *p, const struct common *c, int verbose)
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
	symtab_free(&t);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

/* Name each loaded address; t->e is rebuilt unless cached for addrs. */
static void resolve_table(const struct common *c, const uint64_t *addrs, size_t n,
			  struct snap_table *t)
{
	static int warned;
	struct nl_opts no = { 0 };
	struct symtab st;
	char err[NL_ERRLEN];
	int have;
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
			if (nl_describe(&st, addrs[i], &t->e[i].name, &t->e[i].module,
					&kind))
				t->e[i].name = NULL;
			t->e[i].kind = (unsigned)kind;
		}
		report_name_last(t);
	}
	symtab_free(&st);
}

/* Read the device into s (and t, the names); 0 or 1. */
static int capture(struct prf *p, const struct common *c, struct snap_table *t,
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
	s->device = strdup(c->dev);
	if (!uname(&u)) {
		s->host = strdup(u.nodename);
		s->release = strdup(u.release);
	}
	return 0;
}

static int snap_to_file(struct prf *p, const struct common *c, const char *file,
			struct snap_table *t, uint64_t *total)
{
	struct snapshot s;
	char err[SNAP_ERRLEN];
	int ret;

	if (capture(p, c, t, &s))
		return 1;
	ret = snapfile_append(file, t, &s, err, sizeof(err));
	if (ret)
		msg("%s", err);
	if (total)
		*total = s.ticks_total;
	snapshot_free(&s);
	return ret ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Reports                                                             */

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
		symtab_free(&st);
	}
	return 0;
}

static void list_snapshots(const char *file, const struct snapfile *f)
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

		if (gmtime_r(&t, &tm))
			strftime(tb, sizeof(tb), "%Y-%m-%d %H:%M:%S UTC", &tm);
		printf("%4zu  %-23s  %5u  %9" PRIu64 "  %6u  %-12" PRIu64 " %s\n", i + 1, tb,
		       s->table_id, s->n, s->hz, s->ticks_total, s->device ? s->device : "?");
	}
}

/* ------------------------------------------------------------------ */
/* prfld                                                               */

static void help_ld(void)
{
	printf("Usage: %s [-f DEVICE] [-m MODULES] [--step BYTES [--range START-END]] [NAMELIST]\n"
	       "Load the start address of every kernel text function into the profiler.\n\n"
	       "  NAMELIST            /proc/kallsyms (default), a System.map or an ELF vmlinux;\n"
	       "                      System.map and vmlinux are moved by the KASLR offset\n"
	       "                      measured from the running kernel's _text\n"
	       "  -f, --device DEV    the device (default /dev/prf; /dev/prfN: CPU N alone)\n"
	       "  -m, --modules LIST  only these modules, comma-separated; 'kernel' is the\n"
	       "                      kernel itself (e.g. -m kernel,ext4)\n"
	       "  -s, --step BYTES    fixed-width buckets of BYTES instead of functions\n"
	       "  -r, --range S-E     the buckets' range: hex addresses or function names\n"
	       "                      (default: the kernel's text, _stext to _etext; with -m,\n"
	       "                      the selected functions, first to last sentinel)\n"
	       "  -k, --kaslr-offset N  use this KASLR offset (hex) instead of measuring it\n"
	       "  -n, --dry-run       print the table (address kind module name), load nothing\n"
	       "  -q, --quiet         say nothing when it worked\n"
	       "  -h, --help          this help\n", prog);
}

static int ld_opt(void *ctx, int opt, const char *arg)
{
	struct ld_opts *o = ctx;
	uint64_t v;
	int neg;

	switch (opt) {
	case 'm': o->only = arg; break;
	case 's':
		if (parse_u64(arg, &o->step, 0) || !o->step)
			return usage_error("--step %s: want a positive byte count", arg);
		break;
	case 'r': o->range = arg; break;
	case 'k':
		neg = *arg == '-';
		if (parse_u64(arg + neg, &v, 16))
			return usage_error("--kaslr-offset %s: want a hex number", arg);
		o->have_off = 1;
		o->off = neg ? -(int64_t)v : (int64_t)v;
		break;
	case 'n': o->dry = 1; break;
	case 'q': o->quiet = 1; break;
	}
	return 0;
}

static int cmd_ld(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "modules", required_argument, NULL, 'm' },
		{ "step", required_argument, NULL, 's' },
		{ "range", required_argument, NULL, 'r' },
		{ "kaslr-offset", required_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"m:s:r:k:nq", lo, CO_KALLSYMS | CO_MODULES, help_ld, ld_opt, 0, 1, NULL,
	};
	struct common c;
	struct ld_opts o = { 0 };
	struct prf *p = NULL;
	struct symtab t;
	int ret, max = 0, st;
	size_t i, nf = 0, ns = 0;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	if (o.range && !o.step)
		return usage_error("--range needs --step");
	if (optind < argc)
		o.namelist = argv[optind];
	if (!o.dry) {
		if (open_dev(c.dev, O_RDWR, &p))
			return 1;
		max = prf_get_max(p);
		if (max < 0) {
			ret = dev_fail(c.dev, "PRF_GETMAX", max);
			prf_close(p);
			return ret;
		}
		st = prf_get_status(p);
		if (st >= 0 && (st & PRF_STATUS_ON)) {
			msg("%s: sampling is ON: run 'prfstat -f %s off' before loading",
			    c.dev, c.dev);
			prf_close(p);
			return 1;
		}
	}
	/* No device to ask: a bound all the same (no runaway --step). */
	ret = build_table(&c, &o, o.dry ? DRY_RUN_MAX : (size_t)max, &t);
	if (ret) {
		prf_close(p);
		return ret;
	}
	for (i = 0; i < t.n; i++) {
		if (t.v[i].kind == SYM_SENTINEL)
			ns++;
		else
			nf++;
	}
	if (o.dry) {
		for (i = 0; i < t.n; i++)
			printf("%016" PRIx64 " %s %s %s\n", t.v[i].addr,
			       report_kind(t.v[i].kind),
			       t.v[i].module ? t.v[i].module : "kernel",
			       t.v[i].name[0] ? t.v[i].name : "-");
	} else {
		ret = load_table(p, c.dev, &t);
		if (!ret && !o.quiet)
			printf("%s: loaded %zu addresses (%zu %s, %zu end sentinel%s) into %s\n",
			       prog, t.n, nf, o.step ? "buckets" : "functions", ns,
			       ns == 1 ? "" : "s", c.dev);
	}
	symtab_free(&t);
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prfstat                                                             */

static void help_stat(void)
{
	printf("Usage: %s [-f DEVICE] [--hz N] [--fixed|--jitter] [on|off]\n"
	       "Switch sampling on or off; with no argument, show the profiler's state.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf; /dev/prfN: CPU N alone)\n"
	       "  -z, --hz N        set the sampling rate, %d..%d Hz (only while OFF)\n"
	       "      --fixed       phase-locked: a sample every 1/hz exactly\n"
	       "                    (--no-jitter is the same)\n"
	       "      --jitter      stratified: one sample at a random point of every\n"
	       "                    period, same rate (what 'on' sets unless --fixed)\n"
	       "  -q, --quiet       print nothing after switching\n"
	       "  -h, --help        this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX);
}

/* The flags by name: "none", or e.g. "fixed isolated". */
static void print_flags(const struct prf_info *in)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ PRF_FLAG_JITTER, "jitter" },
		{ PRF_FLAG_FIXED, "fixed" },
		{ PRF_FLAG_ISOLATED, "isolated" },
	};
	size_t i;
	int any = 0;

	printf("%-15s", "flags");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (in->flags & names[i].bit) {
			printf(" %s", names[i].name);
			any = 1;
		}
	printf("%s\n", any ? "" : " none");
	printf("%-15s %s\n", "sampling", in->flags & PRF_FLAG_FIXED ? "fixed periods" :
	       in->version >= 2 || (in->flags & PRF_FLAG_JITTER) ? "randomized" :
	       "fixed periods");
}

static void print_status(struct prf *p, const char *dev)
{
	struct prf_info in;
	int st = prf_get_status(p), n = prf_get_size(p), mx = prf_get_max(p);
	uint32_t hz = 0;

	printf("%s: sampling %s, %s\n", dev, st >= 0 && (st & PRF_STATUS_ON) ? "ON" : "OFF",
	       st >= 0 && (st & PRF_STATUS_LOADED) ? "table loaded" : "no table loaded");
	printf("%-15s %d\n", "addresses", n < 0 ? 0 : n);
	printf("%-15s %d\n", "maximum", mx < 0 ? 0 : mx);
	if (prf_get_info(p, &in)) {
		if (!prf_get_hz(p, &hz))
			printf("%-15s %u Hz\n", "rate", hz);
		return;
	}
	printf("%-15s %u Hz (%u us per tick)\n", "rate", in.hz, in.usec_per_tick);
	print_flags(&in);
	if (in.cpu < 0)
		printf("%-15s all (%u covered)\n", "cpus", in.ncpus);
	else
		printf("%-15s CPU %d\n", "cpus", in.cpu);
	printf("%-15s %" PRIu64 "\n", "ticks total", (uint64_t)in.ticks_total);
	printf("%-15s %" PRIu64 "\n", "ticks user", (uint64_t)in.ticks_user);
	printf("%-15s %" PRIu64 "\n", "ticks idle", (uint64_t)in.ticks_idle);
	printf("%-15s %" PRIu64 "\n", "ticks outside", (uint64_t)in.ticks_outside);
	printf("%-15s %" PRIu64 "\n", "ticks lost", (uint64_t)in.ticks_lost);
	if (in.version >= 2)
		printf("%-15s %" PRIu64 "\n", "ticks noregs", (uint64_t)in.ticks_noregs);
	printf("%-15s %.3f s\n", "time on", (double)in.on_ns / 1e9);
	printf("%-15s %" PRIu64 " bytes\n", "memory", (uint64_t)in.mem_bytes);
}

/*
 * Sets the rate (@hz unless 0) and, unless @fixed < 0, asks for fixed
 * periods (1) or randomized ones (0), leaving other flags alone.  A device
 * of struct prf_info version 2 randomizes by default (stratified) and
 * knows PRF_FLAG_FIXED; an older one has fixed periods by default and
 * randomizes with PRF_FLAG_JITTER.  The flags are only written when they
 * change.
 */
static int set_hz_flags(struct prf *p, const char *dev, uint32_t hz, int fixed)
{
	struct prf_info in;
	uint32_t fl = 0, want;
	int ret;

	if (hz && (ret = prf_set_hz(p, hz)))
		return dev_fail(dev, "PRF_SETHZ", ret);
	if (fixed < 0)
		return 0;
	if ((ret = prf_get_flags(p, &fl)))
		return dev_fail(dev, "PRF_GETFLAGS", ret);
	want = fl & ~(uint32_t)(PRF_FLAG_JITTER | PRF_FLAG_FIXED);
	if (!prf_get_info(p, &in) && in.version >= 2)
		want |= fixed ? PRF_FLAG_FIXED : 0;
	else
		want |= fixed ? 0 : PRF_FLAG_JITTER;
	if (want != fl && (ret = prf_set_flags(p, want)))
		return dev_fail(dev, "PRF_SETFLAGS", ret);
	return 0;
}

static int set_flag(void *ctx, int opt, const char *arg)
{
	(void)opt;
	(void)arg;
	*(int *)ctx = 1;
	return 0;
}

static int cmd_stat(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = { "q", lo, CO_SAMPLING, help_stat, set_flag, 0, 1, NULL };
	struct common c;
	struct prf *p;
	int fixed, quiet = 0, want = -1, ret, st;

	if ((ret = parse_opts(&co, &c, argc, argv, &quiet)) != OPTS_OK)
		return ret;
	if (optind < argc) {
		if (!strcmp(argv[optind], "on"))
			want = 1;
		else if (!strcmp(argv[optind], "off"))
			want = 0;
		else
			return usage_error("%s: want 'on' or 'off'", argv[optind]);
	}
	if (open_status(c.dev, want >= 0 || c.hz || c.fixed >= 0 ? O_RDWR : O_RDONLY, &p, &st))
		return 1;
	/* Only what switches sampling on from OFF takes the default. */
	fixed = c.fixed;
	if (want == 1 && (st & PRF_STATUS_LOADED) && !(st & PRF_STATUS_ON))
		fixed = fixed_on(&c);
	if ((want == 0 && (ret = set_state(p, c.dev, 0))) ||
	    (ret = set_hz_flags(p, c.dev, c.hz, fixed)))
		goto out;
	if (want == 1) {
		if (!(st & PRF_STATUS_LOADED)) {
			msg("%s: no table loaded: run prfld first", c.dev);
			ret = 1;
			goto out;
		}
		if ((ret = set_state(p, c.dev, 1)))
			goto out;
	}
	if (!quiet || want < 0)
		print_status(p, c.dev);
out:
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prf clear                                                           */

static void help_clear(void)
{
	printf("Usage: %s [-f DEVICE]\n"
	       "Zero every counter of the loaded table; keep the table and the state.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf)\n"
	       "  -h, --help        this help\n", prog);
}

static int cmd_clear(int argc, char **argv)
{
	static const struct cmd_opts co = { NULL, NULL, 0, help_clear, NULL, 0, 0, NULL };
	struct common c;
	struct prf *p;
	int ret;

	if ((ret = parse_opts(&co, &c, argc, argv, NULL)) != OPTS_OK)
		return ret;
	if (open_dev(c.dev, O_RDWR, &p))
		return 1;
	ret = prf_clear(p);
	if (ret)
		ret = dev_fail(c.dev, "PRF_CLEAR", ret);
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prfsnap                                                             */

static void help_snap(void)
{
	printf("Usage: %s [-f DEVICE] FILE\n"
	       "Append one snapshot of every counter, with the symbol names, to FILE.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf; /dev/prfN: CPU N alone)\n"
	       "  -h, --help        this help\n", prog);
}

static int cmd_snap(int argc, char **argv)
{
	static const struct cmd_opts co = {
		NULL, NULL, CO_KALLSYMS | CO_MODULES, help_snap, NULL, 1, 1, "want one snapshot FILE",
	};
	struct common c;
	struct snap_table t = { 0 };
	struct prf *p;
	int ret;

	if ((ret = parse_opts(&co, &c, argc, argv, NULL)) != OPTS_OK)
		return ret;
	if (open_dev(c.dev, O_RDONLY, &p))
		return 1;
	ret = snap_to_file(p, &c, argv[optind], &t, NULL);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prfdc                                                               */

static void help_dc(void)
{
	printf("Usage: %s [-f DEVICE] FILE [PERIOD [OFF_HOUR]]\n"
	       "Append a snapshot to FILE now and every PERIOD minutes (default 10);\n"
	       "at OFF_HOUR (0-24, local time) turn sampling off and stop.\n"
	       "SIGINT or SIGTERM: a last snapshot, then exit 0.\n\n"
	       "  -f, --device DEV        the device (default /dev/prf)\n"
	       "      --period-seconds S  the period in seconds (for tests)\n"
	       "      --count N           stop after N snapshots (for tests)\n"
	       "  -h, --help              this help\n", prog);
}

struct dc_opts {
	uint64_t period, count;
	int period_set;
};

static int dc_opt(void *ctx, int opt, const char *arg)
{
	struct dc_opts *o = ctx;

	if (opt == OPT_COUNT)
		return parse_positive("--count", arg, &o->count, "number");
	o->period_set = 1;
	return parse_positive("--period-seconds", arg, &o->period, "number");
}

static int cmd_dc(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "period-seconds", required_argument, NULL, OPT_PERIOD_SEC },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		NULL, lo, CO_KALLSYMS | CO_MODULES, help_dc, dc_opt, 1, 3,
		"want FILE [PERIOD [OFF_HOUR]]",
	};
	struct common c;
	struct snap_table t = { 0 };
	struct prf *p;
	struct dc_opts o = { 600, 0, 0 };
	uint64_t period, v, done = 0;
	int ret, off_hour = -1, st;
	const char *file;
	sigset_t set, old;
	time_t off_at = 0;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	period = o.period;
	file = argv[optind];
	if (argc - optind >= 2) {
		if (parse_u64(argv[optind + 1], &v, 10) || !v || v > 525600)
			return usage_error("period %s: want minutes, 1..525600", argv[optind + 1]);
		if (!o.period_set)
			period = v * 60;
	}
	if (argc - optind == 3) {
		if (parse_u64(argv[optind + 2], &v, 10) || v > 24)
			return usage_error("off_hour %s: want 0..24", argv[optind + 2]);
		off_hour = (int)v;
	}
	if (open_dev(c.dev, off_hour >= 0 ? O_RDWR : O_RDONLY, &p))
		return 1;
	st = prf_get_status(p);
	if (st >= 0 && !(st & PRF_STATUS_ON))
		msg("warning: %s: sampling is OFF ('prfstat -f %s on' starts it)", c.dev, c.dev);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (off_hour >= 0)
		off_at = next_off_time(time(NULL), off_hour);
	for (;;) {
		struct timespec to;
		time_t now;
		uint64_t wait = period;
		int sig;

		ret = snap_to_file(p, &c, file, &t, NULL);
		if (ret)
			break;
		done++;
		if (o.count && done >= o.count)
			break;
		now = time(NULL);
		if (off_at) {
			if (now >= off_at) {
				ret = set_state(p, c.dev, 0);
				break;
			}
			if ((uint64_t)(off_at - now) < wait)
				wait = (uint64_t)(off_at - now);
		}
		to.tv_sec = (time_t)wait;
		to.tv_nsec = 0;
		sig = sigtimedwait(&set, NULL, &to);
		if (sig > 0) {
			ret = snap_to_file(p, &c, file, &t, NULL);
			break;
		}
		if (off_at && time(NULL) >= off_at) {
			ret = snap_to_file(p, &c, file, &t, NULL);
			if (!ret)
				ret = set_state(p, c.dev, 0);
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prfpr                                                               */

static void help_pr(void)
{
	printf("Usage: %s [options] FILE [CUTOFF [NAMELIST]]\n"
	       "Report the samples between the last two snapshots of FILE: each function\n"
	       "whose share is above CUTOFF percent (default 1), then the totals.\n\n"
	       "  -f, --device DEV only the snapshots taken from DEV (a file may mix them)\n"
	       "  NAMELIST         rename the addresses with this kallsyms, System.map or\n"
	       "                   vmlinux (moved to the snapshot's recorded _text)\n"
	       "  -c, --cutoff P   the cutoff, percent (same as CUTOFF)\n"
	       "      --from I     first snapshot of the pair (1-based; negative: from the end)\n"
	       "      --to J       second snapshot of the pair (default: the last)\n"
	       "  -a, --all        the whole span: first to last snapshot\n"
	       "  -z, --since-load one snapshot alone, counted from the load or clear\n"
	       "  -l, --list       list the snapshots in FILE\n"
	       "      --text       plain text (default)\n"
	       "      --csv        comma-separated values\n"
	       "      --json       JSON\n"
	       "      --folded     'module;function count' lines (flamegraph.pl, speedscope)\n"
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

struct pr_opts {
	struct report_opts ro;
	long from, to;
	int all, zero, list, cut_set;
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
	case 'z': o->zero = 1; break;
	case 'l': o->list = 1; break;
	}
	return 0;
}

static int cmd_pr(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cutoff", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "all", no_argument, NULL, 'a' },
		{ "since-load", no_argument, NULL, 'z' },
		{ "list", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"c:azl", lo, CO_KALLSYMS | CO_FORMAT | CO_TEXT | CO_DEV_FILTER, help_pr, pr_opt,
		1, 3, "want FILE [CUTOFF [NAMELIST]]",
	};
	struct common c;
	struct pr_opts o = { .ro.cutoff = 1.0 };
	struct report_opts ro;
	struct snapfile f;
	struct report r;
	char err[SNAP_ERRLEN];
	long ia, ib;
	int ret;
	const char *file;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	ro = o.ro;
	ro.format = c.format;
	if ((o.all && (o.from || o.zero)) || (o.zero && o.from))
		return usage_error("--all, --since-load and --from exclude each other");
	file = argv[optind];
	if (argc - optind >= 2) {
		if (o.cut_set)
			return usage_error("cutoff given twice");
		if (parse_cutoff(argv[optind + 1], &ro.cutoff))
			return EXIT_USAGE;
	}
	if (snapfile_read(file, &f, err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	if (c.dev)
		keep_device(&f, c.dev);
	if (o.list) {
		list_snapshots(file, &f);
		snapfile_free(&f);
		return 0;
	}
	if (argc - optind == 3 && rename_tables(&f, argv[optind + 2], &c)) {
		snapfile_free(&f);
		return 1;
	}
	ib = o.to ? o.to : (long)f.nsnaps;
	if (ib < 0)
		ib += (long)f.nsnaps + 1;
	if (o.zero) {
		ia = 0;
		if (!f.nsnaps) {
			msg("%s: no snapshot in the file", file);
			snapfile_free(&f);
			return 1;
		}
	} else if (o.all) {
		ia = 1;
	} else if (o.from) {
		ia = o.from < 0 ? o.from + (long)f.nsnaps + 1 : o.from;
	} else {
		ia = ib - 1;
	}
	if (!o.zero && f.nsnaps < 2) {
		msg("%s: %zu snapshot%s: a report needs two (take another with prfsnap, "
		    "or use --since-load)", file, f.nsnaps, f.nsnaps == 1 ? "" : "s");
		snapfile_free(&f);
		return 1;
	}
	if (!o.zero && ia < 1) {
		msg("%s: no snapshot %ld", file, ia);
		snapfile_free(&f);
		return 1;
	}
	if (report_from_file(&r, &f, ia, ib, err, sizeof(err))) {
		msg("%s: %s", file, err);
		snapfile_free(&f);
		return 1;
	}
	ro.file = file;
	report_print(stdout, &r, &ro);
	ret = 0;
	if (fflush(stdout) || ferror(stdout)) {
		msg("standard output: %s", strerror(errno));
		ret = 1;
	}
	report_free(&r);
	snapfile_free(&f);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prf record                                                          */

static void help_record(void)
{
	printf("Usage: %s [-f DEVICE] [-o FILE] [--hz N] [--fixed] [-c CUTOFF] -- COMMAND [ARG...]\n"
	       "Profile the kernel while COMMAND runs, then print the report.\n"
	       "Loads /proc/kallsyms when no table is loaded, clears the counters,\n"
	       "samples while COMMAND runs, stops, and snapshots before and after.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf)\n"
	       "  -o, --output FILE keep the snapshots in FILE (appended)\n"
	       "  -z, --hz N        sampling rate, %d..%d Hz\n"
	       "      --fixed       phase-locked: a sample every 1/hz exactly (--no-jitter)\n"
	       "      --jitter      one sample at a random point of every period (the default)\n"
	       "  -c, --cutoff P    report cutoff, percent (default 1)\n"
	       "      --csv, --json, --folded   report format\n"
	       "  -h, --help        this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX);
}

struct record_opts {
	const char *out;
	double cutoff;
};

static int record_opt(void *ctx, int opt, const char *arg)
{
	struct record_opts *o = ctx;

	if (opt == 'o') {
		o->out = arg;
		return 0;
	}
	return parse_cutoff(arg, &o->cutoff);
}

static int cmd_record(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cutoff", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"+o:c:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING | CO_FORMAT, help_record,
		record_opt, 1, INT_MAX, "want a COMMAND to run",
	};
	struct common c;
	struct record_opts o = { NULL, 1.0 };
	struct report_opts ro = { 0 };
	struct snap_table t = { 0 };
	struct prf *p;
	struct snapfile f;
	struct report r;
	char tmp[] = "/tmp/prf-record-XXXXXX", err[SNAP_ERRLEN];
	const char *out;
	int ret, st, status = 0, tmpfd = -1;
	pid_t pid;
	struct sigaction ign = { 0 }, oint, oquit;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	out = o.out;
	ro.cutoff = o.cutoff;
	ro.format = c.format;
	if (open_status(c.dev, O_RDWR, &p, &st))
		return 1;
	if ((st & PRF_STATUS_ON) && (ret = set_state(p, c.dev, 0)))
		goto out;
	if ((ret = ensure_loaded(p, &c, 1)))
		goto out;
	if ((ret = set_hz_flags(p, c.dev, c.hz, fixed_on(&c))))
		goto out;
	if ((ret = prf_clear(p))) {
		ret = dev_fail(c.dev, "PRF_CLEAR", ret);
		goto out;
	}
	if (!out) {
		tmpfd = mkstemp(tmp);
		if (tmpfd < 0) {
			msg("%s: %s", tmp, strerror(errno));
			ret = 1;
			goto out;
		}
		close(tmpfd);
		out = tmp;
	}
	if ((ret = snap_to_file(p, &c, out, &t, NULL)))
		goto out;
	/* Like time(1): the command gets the terminal's signals, not us. */
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	if ((ret = set_state(p, c.dev, 1)))
		goto restore;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		prf_set_state(p, 0);
		ret = 1;
		goto restore;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if ((ret = set_state(p, c.dev, 0)))
		goto restore;
	if ((ret = snap_to_file(p, &c, out, &t, NULL)))
		goto restore;
	if (snapfile_read(out, &f, err, sizeof(err))) {
		msg("%s", err);
		ret = 1;
		goto restore;
	}
	if (report_from_file(&r, &f, (long)f.nsnaps - 1, (long)f.nsnaps, err, sizeof(err))) {
		msg("%s: %s", out, err);
		ret = 1;
	} else {
		ro.file = tmpfd >= 0 ? NULL : out;
		report_print(stdout, &r, &ro);
		report_free(&r);
	}
	snapfile_free(&f);
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		msg("%s exited with status %d", argv[optind], WEXITSTATUS(status));
		ret = 1;
	} else if (WIFSIGNALED(status)) {
		msg("%s killed by signal %d (%s)", argv[optind], WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		ret = 1;
	}
restore:
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
out:
	if (tmpfd >= 0)
		unlink(tmp);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* prf top                                                             */

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void help_top(void)
{
	printf("Usage: %s [-f DEVICE] [--hz N] [--fixed] [-d SECS] [-n COUNT] [-l LINES]\n"
	       "Show the busiest kernel functions, refreshed every SECS (default 1),\n"
	       "until q or Ctrl-C.  Not on a terminal: one frame per interval.\n"
	       "Loads /proc/kallsyms when no table is loaded; turns sampling on and\n"
	       "back off at the end when it was off.\n\n"
	       "  -f, --device DEV     the device (default /dev/prf)\n"
	       "  -z, --hz N           sampling rate, %d..%d Hz\n"
	       "      --fixed          phase-locked: a sample every 1/hz exactly (--no-jitter)\n"
	       "      --jitter         one sample at a random point of every period (the default)\n"
	       "  -d, --delay SECS     refresh interval\n"
	       "  -n, --iterations N   stop after N frames\n"
	       "  -l, --lines N        functions per frame (default: fit the terminal, or 20)\n"
	       "  -h, --help           this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX);
}

struct top_opts {
	double delay;
	uint64_t iters, lines;
};

static int top_opt(void *ctx, int opt, const char *arg)
{
	struct top_opts *o = ctx;

	if (opt == 'n')
		return parse_positive("-n", arg, &o->iters, "count");
	if (opt == 'l')
		return parse_positive("-l", arg, &o->lines, "count");
	if (parse_double(arg, &o->delay) || o->delay < 0.05 || o->delay > 3600)
		return usage_error("-d %s: want seconds, 0.05..3600", arg);
	return 0;
}

static int cmd_top(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "lines", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"d:n:l:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING, help_top, top_opt, 0, 0, NULL,
	};
	struct common c;
	struct snap_table t = { 0 };
	struct report_opts ro = { 0 };
	struct top_opts o = { 1.0, 0, 0 };
	struct prf *p;
	struct termios tio, raw;
	struct sigaction sa = { 0 }, oint, oterm;
	uint64_t *prev = NULL, *cur = NULL, *addrs = NULL, done = 0;
	uint64_t prev_out = 0, prev_lost = 0;
	int ret, st, was_on, tty_in, tty_out, n;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	ret = 0;
	if (open_status(c.dev, O_RDWR, &p, &st))
		return 1;
	was_on = st & PRF_STATUS_ON;
	if (was_on && (c.hz || c.fixed >= 0)) {
		/* Not ours to switch: the rate and the flags stay as they are. */
		msg("%s: %s: sampling is ON: turn it off first", c.dev,
		    c.hz ? "--hz" : c.fixed ? "--fixed" : "--jitter");
		prf_close(p);
		return 1;
	}
	if (!was_on && ((ret = ensure_loaded(p, &c, 0)) ||
			(ret = set_hz_flags(p, c.dev, c.hz, fixed_on(&c))) ||
			(ret = set_state(p, c.dev, 1)))) {
		prf_close(p);
		return ret;
	}
	tty_in = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &tio);
	tty_out = isatty(STDOUT_FILENO);
	if (tty_in) {
		raw = tio;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	sa.sa_handler = top_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	ro.cutoff = 0;
	n = 0;
	while (!top_stop) {
		struct prf_info info = { 0 };
		struct report r;
		struct winsize ws;
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int sz = prf_get_size(p), rc, ms = (int)(o.delay * 1000);
		struct timespec t0, t1;

		if (sz <= 0) {
			ret = sz < 0 ? dev_fail(c.dev, "PRF_GETSIZE", sz) :
				       (msg("%s: the table was unloaded", c.dev), 1);
			break;
		}
		if (sz != n) {
			/* (Re)loaded: start over. */
			free(prev);
			free(cur);
			free(addrs);
			n = sz;
			prev = calloc((size_t)n + 2, sizeof(*prev));
			cur = calloc((size_t)n + 2, sizeof(*cur));
			addrs = calloc((size_t)n, sizeof(*addrs));
			if (!prev || !cur || !addrs) {
				msg("%s", strerror(ENOMEM));
				ret = 1;
				break;
			}
			if ((rc = prf_read(p, addrs, prev, (size_t)n))) {
				if (rc == -ESTALE) {
					n = 0;
					continue;
				}
				ret = dev_fail(c.dev, "read", rc);
				break;
			}
			/* Name first: reading kallsyms is kernel work of our own. */
			resolve_table(&c, addrs, (size_t)n, &t);
			if ((rc = prf_read(p, NULL, prev, (size_t)n))) {
				if (rc == -ESTALE) {
					n = 0;
					continue;
				}
				ret = dev_fail(c.dev, "read", rc);
				break;
			}
			if (!prf_get_info(p, &info)) {
				prev_out = info.ticks_outside;
				prev_lost = info.ticks_lost;
			}
		}
		/* Wait one interval, or a key. */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			int left;

			clock_gettime(CLOCK_MONOTONIC, &t1);
			left = ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
					  (t1.tv_nsec - t0.tv_nsec) / 1000000);
			if (left <= 0 || top_stop)
				break;
			if (tty_in && poll(&pfd, 1, left) > 0) {
				char ch;

				if (read(STDIN_FILENO, &ch, 1) == 1 && (ch == 'q' || ch == 'Q'))
					top_stop = 1;
			} else if (!tty_in) {
				struct timespec d = { left / 1000, (left % 1000) * 1000000L };

				nanosleep(&d, NULL);
			}
		}
		if (top_stop)
			break;
		if ((rc = prf_read(p, NULL, cur, (size_t)n))) {
			if (rc == -ESTALE) {
				n = 0;
				continue;
			}
			ret = dev_fail(c.dev, "read", rc);
			break;
		}
		memset(&info, 0, sizeof(info));
		prf_get_info(p, &info);
		if (report_build(&r, &t, prev, cur,
				 info.ticks_outside >= prev_out ? info.ticks_outside - prev_out : 0,
				 info.ticks_lost >= prev_lost ? info.ticks_lost - prev_lost : 0)) {
			/* cleared meanwhile: count from zero */
			if (report_build(&r, &t, NULL, cur, info.ticks_outside, info.ticks_lost)) {
				ret = 1;
				break;
			}
		}
		ro.max_rows = o.lines ? (size_t)o.lines : 20;
		if (!o.lines && tty_out && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 14)
			ro.max_rows = (size_t)ws.ws_row - 13;
		if (tty_out)
			fputs("\033[H\033[2J", stdout);
		{
			time_t now = time(NULL);
			struct tm tm;
			char tb[32] = "";

			if (localtime_r(&now, &tm))
				strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
			printf("prf top - %s - %s - %u Hz - every %.2f s%s\n\n", c.dev, tb,
			       info.hz, o.delay, tty_in ? " - q quits" : "");
		}
		report_print(stdout, &r, &ro);
		if (!tty_out)
			printf("\n");
		fflush(stdout);
		report_free(&r);
		memcpy(prev, cur, ((size_t)n + 2) * sizeof(*cur));
		prev_out = info.ticks_outside;
		prev_lost = info.ticks_lost;
		if (o.iters && ++done >= o.iters)
			break;
	}
	if (tty_in)
		tcsetattr(STDIN_FILENO, TCSANOW, &tio);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	if (!was_on) {
		int rc = set_state(p, c.dev, 0);

		if (!ret)
			ret = rc;
	}
	free(prev);
	free(cur);
	free(addrs);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}

/* ------------------------------------------------------------------ */

struct command {
	const char *name;	/* prf NAME */
	const char *classic;	/* the profiler(1M) name, a link to prf */
	int (*fn)(int, char **);
	const char *what;
};

static const struct command commands[] = {
	{ "ld", "prfld", cmd_ld, "load the kernel's function addresses" },
	{ "stat", "prfstat", cmd_stat, "switch sampling on or off, show the state" },
	{ "snap", "prfsnap", cmd_snap, "append a snapshot to a file" },
	{ "dc", "prfdc", cmd_dc, "append snapshots periodically" },
	{ "pr", "prfpr", cmd_pr, "report from a snapshot file" },
	{ "record", NULL, cmd_record, "profile while a command runs" },
	{ "top", NULL, cmd_top, "live view of the busiest functions" },
	{ "clear", NULL, cmd_clear, "zero the counters" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void help_main(void)
{
	size_t i;

	printf("Usage: prf COMMAND [options] [args]\n"
	       "The /dev/prf kernel profiler (prf(4)).\n\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		printf("  %-8s %-9s %s\n", commands[i].name,
		       commands[i].classic ? commands[i].classic : "", commands[i].what);
	printf("\nThe classic names (prfld, prfstat, prfsnap, prfdc, prfpr) are links\n"
	       "to prf.  'prf COMMAND --help' describes each command.\n"
	       "Exit status: 0 ok, 1 error, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	static char name[64];
	size_t i;

	base = base ? base + 1 : (argv[0] ? argv[0] : "prf");
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].classic && !strcmp(base, commands[i].classic)) {
			prog = commands[i].classic;
			return commands[i].fn(argc, argv);
		}
	if (argc < 2) {
		help_main();
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		help_main();
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("prf %s (libprf %s)\n", PRF_VERSION, LIBPRF_VERSION);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name) ||
		    (commands[i].classic && !strcmp(argv[1], commands[i].classic))) {
			snprintf(name, sizeof(name), "prf %s", commands[i].name);
			prog = name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "prf: unknown command '%s'\nTry 'prf --help'.\n", argv[1]);
	return EXIT_USAGE;
}
