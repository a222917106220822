// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd - what the prf commands share: messages, option parsing, the device,
 * the tables prfld loads, capturing a snapshot.
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
#include <sys/ptrace.h>
#include <sys/socket.h>
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
#include "source.h"
#include "stacks.h"
#include "demangle.h"
#include "usym.h"
#include "store.h"

const char *prog = "prf";

/* "prog: " and the message on stderr, without the newline. */
static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
}

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return EXIT_USAGE;
}

int parse_u64(const char *s, uint64_t *v, int base)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

int parse_hz(const char *s, uint32_t *hz)
{
	uint64_t v;

	if (parse_u64(s, &v, 10) || v < PRF_HZ_MIN || v > PRF_HZ_MAX)
		return -1;
	*hz = (uint32_t)v;
	return 0;
}

int parse_double(const char *s, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	return !*s || *end || errno || *d < 0 ? -1 : 0;
}

/* Open the device, saying why not in words. */
int open_dev(const char *dev, int oflags, struct prf **p)
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

int dev_fail(const char *dev, const char *what, int ret)
{
	if (ret == -EBUSY)
		msg("%s: %s: %s (sampling is ON: run 'prfstat -f %s off' first)",
		    dev, what, strerror(-ret), dev);
	else if (ret == -ENXIO)
		msg("%s: %s: %s (no table loaded: run prfld first)", dev, what,
		    strerror(-ret));
	else if (ret == -EBADF)
		msg("%s: %s: %s (the device is open read-only)", dev, what, strerror(-ret));
	else
		msg("%s: %s: %s", dev, what, strerror(-ret));
	return 1;
}

/*
 * Turning ON refused with ENOSPC: the instance's rate does not fit in the
 * sample budget of one of its CPUs (uapi/linux/prf.h).  Says the budget,
 * its use and what to do, from PRF_GETINFO when the device has version 5.
 */
static int budget_fail(struct prf *p, const char *dev)
{
	struct prf_info in;

	if (!prf_get_info(p, &in) && in.version >= 5 && in.size >= PRF_INFO_SIZE_V5)
		msg("%s: cannot turn sampling on: %u Hz would take a CPU past the sample "
		    "budget, %u samples/s per CPU, of which %u are in use; lower --hz, "
		    "turn another profile off, or raise the module parameter sample_budget "
		    "(/sys/module/prf/parameters/sample_budget)", dev, in.hz,
		    in.sample_budget, in.budget_used);
	else
		msg("%s: cannot turn sampling on: %s (the sample budget: module parameter "
		    "sample_budget, /sys/module/prf/parameters/sample_budget)", dev,
		    strerror(ENOSPC));
	return 1;
}

/* Open the device and read its state; 0, or 1 (said, closed). */
int open_status(const char *dev, int oflags, struct prf **p, int *st)
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

/*
 * PRF_SETSTATE, saying why not (the sample budget full; with the PMU
 * source: no PMU here, or not that event, in words); 0 or 1.
 */
int set_state(struct prf *p, const char *dev, int on)
{
	int ret = prf_set_state(p, on);

	if (!ret)
		return 0;
	if (ret == -ENOSPC && on)
		return budget_fail(p, dev);
	if (on && source_on_failed(p, dev, ret))
		return 1;
	return dev_fail(dev, "PRF_SETSTATE", ret);
}

/*
 * Whether a command that switches sampling on asks for fixed periods:
 * only with --fixed (or --no-jitter).  Otherwise it asks for the device's
 * stratified default (one sample at a random point of every period): a
 * fixed period that divides the scheduler tick's samples at one phase
 * after each tick and over- or under-counts what runs there.
 */
int fixed_on(const struct common *c)
{
	return c->fixed < 0 ? 0 : c->fixed;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

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
	{ { "of", required_argument, NULL, OPT_OF }, CO_REPORT },
	{ { "sort", required_argument, NULL, OPT_SORT }, CO_REPORT },
	{ { "modules", required_argument, NULL, 'm' }, CO_REPORT },
	{ { "module", required_argument, NULL, 'm' }, CO_REPORT },
	{ { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE }, 0 },
};
#define NCOMMON (sizeof(common_lo) / sizeof(common_lo[0]))

/*
 * Parse argv into c (defaults first) and, through co->opt, the command's
 * own ctx; check the number of operands, which start at argv[optind].
 * Returns OPTS_OK to go on, or the exit status: 0 after the help, 2 after
 * a usage error (said).
 */
int parse_opts(const struct cmd_opts *co, struct common *c, int argc, char **argv,
		      void *ctx)
{
	const char *own = co->shortopts ? co->shortopts : "";
	struct option lo[48];
	char so[64];
	size_t i, n = 0;
	int opt, ret, plus = *own == '+';

	c->dev = co->common & CO_DEV_FILTER ? NULL : PRF_DEVICE;
	c->kallsyms = "/proc/kallsyms";
	c->modules = "/proc/modules";
	c->hz = 0;
	c->fixed = -1;
	c->format = FMT_TEXT;
	c->of = OF_KERNEL;
	c->of_given = 0;
	c->sort = SORT_SAMPLES;
	c->only = NULL;
	c->table_whole = 0;
	sym_demangle_on = 1;
	snprintf(so, sizeof(so), "%s%s%s%sf:h", plus ? "+" : "", own + plus,
		 co->common & CO_SAMPLING ? "z:" : "", co->common & CO_REPORT ? "m:" : "");
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
		case '?':	/* said by getopt, as argv[0]: prog (prf.c) */
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return EXIT_USAGE;
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
		case OPT_NO_DEMANGLE: sym_demangle_on = 0; break;
		case OPT_OF:
			if ((ret = report_of_parse(optarg)) < 0)
				return usage_error("--of %s: want kernel, busy or all", optarg);
			c->of = (enum report_of)ret;
			c->of_given = 1;
			break;
		case OPT_SORT:
			if ((ret = report_sort_parse(optarg)) < 0)
				return usage_error("--sort %s: want samples, address, name or module",
						   optarg);
			c->sort = (enum report_sort)ret;
			break;
		case 'm':
			if (!(co->common & CO_REPORT))
				goto own;
			c->only = optarg;
			break;
		default:
own:
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
int parse_cutoff(const char *s, double *cutoff)
{
	if (parse_double(s, cutoff) || *cutoff > 100)
		return usage_error("cutoff %s: want a percentage, 0..100", s);
	return 0;
}

/* A positive number given to option name. */
int parse_positive(const char *name, const char *s, uint64_t *v, const char *what)
{
	if (parse_u64(s, v, 10) || !*v)
		return usage_error("%s %s: want a positive %s", name, s, what);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tables: what prfld loads                                            */

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
 * The kernel's modules (path: --proc-modules; NULL: /proc/modules) as one
 * hash of each line's name, size, state and base address (not its
 * references, which change all the time): 0, or -1 when unreadable.
 */
int modules_sig(const char *path, uint64_t *sig)
{
	FILE *f = fopen(path ? path : "/proc/modules", "re");
	char *line = NULL;
	size_t cap = 0;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		char name[256], size[32], state[32], addr[64];
		const char *parts[4] = { name, size, state, addr };
		size_t i;

		/* name size refcount deps state address */
		if (sscanf(line, "%255s %31s %*s %*s %31s %63s", name, size, state, addr) != 4)
			continue;
		for (i = 0; i < 4; i++) {
			const unsigned char *q = (const void *)parts[i];

			do {
				h ^= *q;
				h *= 0x100000001b3ULL;
			} while (*q++);
		}
	}
	free(line);
	fclose(f);
	*sig = h;
	return 0;
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

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

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
	struct snapshot s;
	char err[SNAP_ERRLEN];
	int ret;

	if (capture(p, c, t, &s))
		return 1;
	user_names_from_file(file, t);
	ret = snapfile_append(file, t, &s, err, sizeof(err));
	if (ret)
		msg("%s", err);	/* an error, or a note: a torn record cut */
	if (total)
		*total = s.ticks_total;
	snapshot_free(&s);
	return ret < 0 ? 1 : 0;
}

/*
 * Sets the rate (@hz unless 0) and, unless @fixed < 0, asks for fixed
 * periods (1) or randomized ones (0), leaving other flags alone.  A device
 * of struct prf_info version 2 randomizes by default (stratified) and
 * knows PRF_FLAG_FIXED; an older one has fixed periods by default and
 * randomizes with PRF_FLAG_JITTER.  The flags are only written when they
 * change.
 */
int set_hz_flags(struct prf *p, const char *dev, uint32_t hz, int fixed)
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

void report_opts_from(const struct common *c, struct report_opts *ro)
{
	ro->format = c->format;
	ro->of = c->of;
	ro->of_given = c->of_given;
	ro->sort = c->sort;
	ro->modules = c->only;
}

int read_snapfile(const char *file, struct snapfile *f)
{
	char err[SNAP_ERRLEN];
	struct stat st;

	/* A prf daemon's store (store.h): its segments as one file. */
	if (!stat(file, &st) && S_ISDIR(st.st_mode)) {
		char notes[4096];
		char *line, *save = NULL;

		if (store_read(file, f, notes, sizeof(notes), err, sizeof(err))) {
			msg("%s", err);
			return 1;
		}
		for (line = strtok_r(notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			msg("%s: skipped (at most the interval being written when the daemon "
			    "stopped is lost)", line);
		return 0;
	}
	if (snapfile_read(file, f, err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	if (f->torn_len) {
		snapfile_torn_note(f, file, err, sizeof(err));
		msg("%s: skipped; the %zu snapshot%s before it are read", err, f->nsnaps,
		    f->nsnaps == 1 ? "" : "s");
	}
	return 0;
}

/* ---- Running a command ----------------------------------------------------- */

void cmd_signals_take(struct cmd_signals *s, int have_cmd, void (*on_stop)(int))
{
	struct sigaction ign = { 0 }, sa = { 0 };

	ign.sa_handler = have_cmd ? SIG_IGN : on_stop;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &s->oint);
	sigaction(SIGQUIT, &ign, &s->oquit);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &s->oterm);
}

void cmd_signals_restore(const struct cmd_signals *s)
{
	sigaction(SIGINT, &s->oint, NULL);
	sigaction(SIGQUIT, &s->oquit, NULL);
	sigaction(SIGTERM, &s->oterm, NULL);
}

pid_t cmd_spawn_held(char **argv, const struct cmd_signals *s, int *go)
{
	int pfd[2], e;
	pid_t pid;
	char b;

	/* both ways: the go byte to the child, an exec's errno back */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pfd)) {
		msg("socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		cmd_signals_restore(s);
		close(pfd[1]);
		if (read(pfd[0], &b, 1) != 1)
			_exit(127);
		if (b == 't' && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		execvp(argv[0], argv);
		e = errno;
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(e));
		send(pfd[0], &e, sizeof(e), MSG_NOSIGNAL);
		_exit(e == ENOENT ? 127 : 126);	/* as a shell */
	}
	close(pfd[0]);
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		close(pfd[1]);
		return -1;
	}
	*go = pfd[1];
	return pid;
}

int cmd_exec_error(int go)
{
	int e = 0;

	return go >= 0 && recv(go, &e, sizeof(e), MSG_DONTWAIT) == sizeof(e) ? e : 0;
}

int cmd_wait(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

void cmd_report_status(const char *cmd, int status, int *ret)
{
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		msg("%s exited with status %d", cmd, WEXITSTATUS(status));
		*ret = 1;
	} else if (WIFSIGNALED(status)) {
		msg("%s killed by signal %d (%s)", cmd, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		*ret = 1;
	}
}

void cmd_spawn_end(pid_t pid, int go, const struct cmd_signals *s)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		cmd_wait(pid);
	}
	if (go >= 0)
		close(go);
	cmd_signals_restore(s);
}

int cmd_mktemp(char *tmpl)
{
	int fd = mkstemp(tmpl);

	if (fd < 0) {
		msg("%s: %s", tmpl, strerror(errno));
		return -1;
	}
	close(fd);
	return fd;
}
