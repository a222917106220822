// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf annotate: the samples of one kernel function, instruction by
 * instruction, beside its disassembly.
 *
 * The device counts a PC against the largest loaded address not above it:
 * a table that holds every byte of the function (a step-1 table over its
 * range) among the kernel's other functions counts each instruction apart.
 * The code is read where it runs (/proc/kcore: the kernel as patched at
 * boot), or from a vmlinux or module .ko, and objdump disassembles it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "disasm.h"

#define FUNC_MAX_BYTES (1U << 20)	/* a function larger is refused */
#define DEFAULT_SECONDS 5.0
#define DEFAULT_MARK 3

static void help_annotate(void)
{
	printf("Usage: %s [options] FUNCTION [-- COMMAND [ARG...]]\n"
	       "       %s -i FILE [options] FUNCTION\n"
	       "Profile one kernel function instruction by instruction: its disassembly\n"
	       "with the samples of each instruction, as a percentage of the function's,\n"
	       "the hottest marked #1, #2, ...  The table loaded holds every byte of the\n"
	       "function (a step-1 table over its range) among the kernel's functions, on\n"
	       "a private instance (/dev/prfclone; without one, /dev/prfN of the CPU prf\n"
	       "runs on, which then samples that CPU alone and runs COMMAND on it).\n"
	       "The code is read from /proc/kcore (as it runs) and disassembled by\n"
	       "objdump (binutils).\n\n"
	       "  FUNCTION           a kernel function's name (/proc/kallsyms), or an\n"
	       "                     address (0x...) inside one\n"
	       "  -- COMMAND         sample while COMMAND runs, its process alone (a filter)\n"
	       "  -d, --duration S   sample for S seconds (default %.0f without COMMAND;\n"
	       "                     Ctrl-C stops early), every task\n"
	       "      --all-tasks    with COMMAND: every task, not only COMMAND's\n"
	       "  -f, --device DEV   this shared device instead (/dev/prf, /dev/prfN): its\n"
	       "                     table is replaced; it must be OFF\n"
	       "  -i, --input FILE   no sampling: a snapshot file whose table has an address\n"
	       "                     at each instruction of FUNCTION (prf annotate -o, or\n"
	       "                     prfld --step 1 --range FUNCTION-NEXT and prfsnap);\n"
	       "                     between its last two snapshots, or its only one since\n"
	       "                     the load\n"
	       "  -o, --output FILE  keep the snapshot in FILE (appended)\n"
	       "      --vmlinux ELF  the code from this vmlinux or module .ko (its symbol\n"
	       "                     table) instead of /proc/kcore\n"
	       "      --kcore FILE   read the code from FILE's segments (default /proc/kcore)\n"
	       "      --objdump PATH the objdump to run (default objdump)\n"
	       "      --mark N       mark the N hottest instructions (default %d)\n"
	       "  -z, --hz N         sampling rate, %d..%d Hz\n"
	       "      --fixed, --jitter  fixed periods, or random points in them (default)\n"
	       "      --csv, --json  machine-readable output\n"
	       "      --kallsyms FILE  the running kernel's symbols (default /proc/kallsyms)\n"
	       "  -h, --help         this help\n", prog, prog, DEFAULT_SECONDS, DEFAULT_MARK,
	       PRF_HZ_MIN, PRF_HZ_MAX);
}

enum { OPT_ALL_TASKS = 2000, OPT_VMLINUX, OPT_KCORE, OPT_OBJDUMP, OPT_MARK };

struct annotate_opts {
	double seconds;
	int have_seconds, all_tasks;
	const char *input, *out, *vmlinux, *kcore, *objdump;
	uint64_t mark;
};

static int annotate_opt(void *ctx, int opt, const char *arg)
{
	struct annotate_opts *o = ctx;

	switch (opt) {
	case 'd':
		if (parse_double(arg, &o->seconds) || o->seconds <= 0 || o->seconds > 1e6)
			return usage_error("--duration %s: want seconds, more than 0", arg);
		o->have_seconds = 1;
		return 0;
	case OPT_ALL_TASKS: o->all_tasks = 1; return 0;
	case 'i': o->input = arg; return 0;
	case 'o': o->out = arg; return 0;
	case OPT_VMLINUX: o->vmlinux = arg; return 0;
	case OPT_KCORE: o->kcore = arg; return 0;
	case OPT_OBJDUMP: o->objdump = arg; return 0;
	case OPT_MARK:
		if (parse_u64(arg, &o->mark, 10))
			return usage_error("--mark %s: want a number", arg);
		return 0;
	}
	return usage_error("bad option");
}

/* The function: its name, module, range. */
struct func {
	char *name, *module;
	uint64_t start, end;
};

static void func_free(struct func *f)
{
	free(f->name);
	free(f->module);
}

/*
 * Find spec (a name, or 0xADDR inside a function) among the function
 * entries of t; its end is the next entry's address.  0, or 1 (said).
 */
static int find_func(const struct symtab *t, const char *spec, struct func *f)
{
	uint64_t a;
	size_t i, found = SIZE_MAX, dup = 0;

	memset(f, 0, sizeof(*f));
	if (!strncmp(spec, "0x", 2) && !parse_u64(spec, &a, 16)) {
		long k = symtab_find(t, a);

		if (k >= 0 && (size_t)k + 1 < t->n && t->v[k].kind == SYM_FUNC)
			found = (size_t)k;
	} else {
		for (i = 0; i + 1 < t->n; i++)
			if (t->v[i].kind == SYM_FUNC && !strcmp(t->v[i].name, spec)) {
				if (found == SIZE_MAX)
					found = i;
				else
					dup++;
			}
	}
	if (found == SIZE_MAX) {
		msg("%s: no such kernel function (see /proc/kallsyms)", spec);
		return 1;
	}
	if (dup)
		msg("warning: %zu functions are named %s: the one at %" PRIx64
		    " (give an address, 0x..., to choose another)", dup + 1, spec,
		    t->v[found].addr);
	f->start = t->v[found].addr;
	f->end = t->v[found + 1].addr;
	f->name = strdup(t->v[found].name);
	f->module = t->v[found].module ? strdup(t->v[found].module) : NULL;
	if (!f->name) {
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	if (f->end - f->start > FUNC_MAX_BYTES) {
		msg("%s: %" PRIu64 " bytes to the next symbol: more than prf annotate takes",
		    f->name, f->end - f->start);
		return 1;
	}
	return 0;
}

/* The function's instructions, from kcore or an ELF file.  0, or 1 (said). */
static int get_code(const struct annotate_opts *o, const struct func *f, struct disasm *d)
{
	size_t len = (size_t)(f->end - f->start), got = len;
	unsigned char *buf = malloc(len);
	const char *machine = NULL;
	char err[DISASM_ERRLEN];
	int ret;

	if (!buf) {
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	if (o->vmlinux)
		ret = code_from_elf(o->vmlinux, f->name, len, buf, &got, &machine, err, sizeof(err));
	else
		ret = code_from_core(o->kcore ? o->kcore : "/proc/kcore", f->start, len, buf,
				     &machine, err, sizeof(err));
	if (!ret && got < len) {
		snprintf(err, sizeof(err), "%s: %s has %zu bytes, the running kernel %zu",
			 o->vmlinux, f->name, got, len);
		ret = -1;
	}
	if (!ret)
		ret = disasm_run(o->objdump ? o->objdump : "objdump", machine, buf, len, f->start,
				 d, err, sizeof(err));
	free(buf);
	if (ret)
		msg("%s", err);
	return ret ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Counting                                                            */

/*
 * The annotation: each instruction's samples from the table's counters.
 * Every instruction must start at a table address and the function's end
 * must be one, so that no entry straddles the function's edges.
 */
struct annot {
	uint64_t *cnt;		/* per instruction */
	uint64_t total;		/* the function's */
	uint64_t mid;		/* at table addresses inside an instruction */
	uint64_t kernel;	/* kernel samples (the report's base) */
	size_t *rank;		/* 1 = hottest; 0 unmarked */
};

static int annot_build(const struct report *r, const struct func *f, const struct disasm *d,
		       uint64_t mark, struct annot *an)
{
	const struct snap_table *t = r->t;
	uint64_t *ent = calloc(t->n ? t->n : 1, sizeof(*ent));
	size_t i, j = 0, k, missing = 0, have_end = 0;

	memset(an, 0, sizeof(*an));
	an->cnt = calloc(d->n, sizeof(*an->cnt));
	an->rank = calloc(d->n, sizeof(*an->rank));
	if (!ent || !an->cnt || !an->rank) {
		free(ent);
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	for (i = 0; i < r->nrows; i++)
		ent[r->rows[i].idx] = r->rows[i].samples;
	an->kernel = report_base(r, OF_KERNEL);
	for (i = 0; i < t->n; i++)
		have_end |= t->e[i].addr == f->end;
	for (i = 0; i < d->n; i++) {
		const struct insn *in = &d->v[i];
		int starts = 0;

		while (j < t->n && t->e[j].addr < in->addr)
			j++;
		for (; j < t->n && t->e[j].addr < in->addr + in->len; j++) {
			if (t->e[j].addr == in->addr)
				starts = 1;
			else
				an->mid += ent[j];
			an->cnt[i] += ent[j];
		}
		missing += !starts;
		an->total += an->cnt[i];
	}
	free(ent);
	if (missing || !have_end) {
		msg("the table has no address at %zu of %s's %zu instructions%s: it does not "
		    "count them apart (load it with prf annotate, or prfld --step 1 --range "
		    "%s-END)", missing, f->name, d->n, have_end ? "" : " or at its end",
		    f->name);
		return 1;
	}
	/* The hottest: rank by samples, then address. */
	for (k = 1; k <= mark; k++) {
		size_t best = SIZE_MAX;

		for (i = 0; i < d->n; i++)
			if (!an->rank[i] && an->cnt[i] &&
			    (best == SIZE_MAX || an->cnt[i] > an->cnt[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		an->rank[best] = k;
	}
	return 0;
}

static void annot_free(struct annot *an)
{
	free(an->cnt);
	free(an->rank);
}

static double pct(uint64_t v, uint64_t all)
{
	return all ? 100.0 * (double)v / (double)all : 0.0;
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}


static void print_annot(FILE *out, enum report_format fmt, const struct report *r,
			const struct func *f, const struct disasm *d, const struct annot *an)
{
	const char *mod = f->module ? f->module : "kernel";
	size_t i;

	if (fmt == FMT_CSV) {
		fprintf(out, "address,offset,samples,percent,rank,bytes,instruction\n");
		for (i = 0; i < d->n; i++) {
			fprintf(out, "0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%.2f,", d->v[i].addr,
				d->v[i].addr - f->start, an->cnt[i], pct(an->cnt[i], an->total));
			if (an->rank[i])
				fprintf(out, "%zu", an->rank[i]);
			fprintf(out, ",%s,", d->v[i].bytes);
			report_csv_field(out, d->v[i].text);
			fputc('\n', out);
		}
		return;
	}
	if (fmt == FMT_JSON) {
		fprintf(out, "{\n  \"format\": \"prf-annotate\",\n  \"version\": 1,\n"
			"  \"function\": ");
		json_string(out, f->name);
		fprintf(out, ",\n  \"module\": ");
		json_string(out, mod);
		fprintf(out, ",\n  \"address\": \"0x%" PRIx64 "\",\n  \"size\": %" PRIu64 ",\n"
			"  \"samples\": %" PRIu64 ",\n  \"kernel_samples\": %" PRIu64 ",\n"
			"  \"inside_instructions\": %" PRIu64 ",\n  \"seconds\": %.3f,\n"
			"  \"instructions\": [", f->start, f->end - f->start, an->total,
			an->kernel, an->mid, r->on_seconds);
		for (i = 0; i < d->n; i++) {
			fprintf(out, "%s\n    {\"address\": \"0x%" PRIx64 "\", \"offset\": %" PRIu64
				", \"samples\": %" PRIu64 ", \"percent\": %.2f, \"rank\": %zu, "
				"\"bytes\": \"%s\", \"instruction\": ", i ? "," : "", d->v[i].addr,
				d->v[i].addr - f->start, an->cnt[i], pct(an->cnt[i], an->total),
				an->rank[i], d->v[i].bytes);
			json_string(out, d->v[i].text);
			fputc('}', out);
		}
		fprintf(out, "\n  ]\n}\n");
		return;
	}
	fprintf(out, "%s [%s] at %" PRIx64 ", %" PRIu64 " bytes, %zu instructions\n", f->name, mod,
		f->start, f->end - f->start, d->n);
	fprintf(out, "%" PRIu64 " samples in the function: %.2f%% of %" PRIu64 " kernel samples",
		an->total, pct(an->total, an->kernel), an->kernel);
	if (r->b)
		fprintf(out, " (%.2f s at %u Hz, %s)", r->on_seconds, r->b->hz,
			r->b->device ? r->b->device : "?");
	fprintf(out, "\n\n%10s %7s %4s  %-16s %7s  %s\n", "samples", "%func", "hot", "address",
		"offset", "instruction");
	for (i = 0; i < d->n; i++) {
		char rank[24] = "", off[24];

		if (an->rank[i])
			snprintf(rank, sizeof(rank), "#%zu", an->rank[i]);
		snprintf(off, sizeof(off), "+0x%" PRIx64, d->v[i].addr - f->start);
		if (an->cnt[i])
			fprintf(out, "%10" PRIu64 " %7.2f", an->cnt[i], pct(an->cnt[i], an->total));
		else
			fprintf(out, "%10s %7s", ".", ".");
		fprintf(out, " %4s  %016" PRIx64 " %7s  %s\n", rank, d->v[i].addr, off,
			d->v[i].text);
	}
	if (an->mid)
		fprintf(out, "\n%" PRIu64 " of the samples fell inside an instruction: the code "
			"that ran is not the code disassembled\n", an->mid);
	if (!an->total)
		fprintf(out, "\n(no sample in %s)\n", f->name);
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */

static volatile sig_atomic_t annotate_stop;

static void annotate_signal(int sig)
{
	(void)sig;
	annotate_stop = 1;
}

/*
 * The table: the kernel's functions (from c->kallsyms) with every byte of
 * the function in place of its one entry; when that is more than the
 * device holds, the function's bytes and its end alone (the rest of the
 * kernel then counts below the first address, or in the end entry).
 */
static int annotate_table(const struct symtab *k, const struct func *f, size_t max,
			  struct symtab *out)
{
	uint64_t a, len = f->end - f->start;
	size_t i;
	int alone = max && k->n - 1 + len > max;

	symtab_init(out);
	for (i = 0; i < k->n; i++) {
		const struct sym *s = &k->v[i];

		if (s->addr == f->start) {
			for (a = f->start; a < f->end; a++)
				if (symtab_add(out, a, 1, a == f->start ? s->name : "", s->module,
					       a == f->start ? SYM_FUNC : SYM_BUCKET, 0))
					goto nomem;
			continue;
		}
		if (alone && s->addr != f->end)
			continue;
		if (symtab_add(out, s->addr, s->size, s->name, s->module, s->kind, s->rank))
			goto nomem;
	}
	if (alone)
		msg("note: %zu kernel functions and %" PRIu64 " bytes are more than the device "
		    "holds (%zu): the function alone is loaded", k->n, len, max);
	return 0;
nomem:
	msg("%s", strerror(ENOMEM));
	symtab_free(out);
	return 1;
}

/* Open the instance: -f DEV, else a private one, else /dev/prfN of our CPU. */
static int open_instance(struct common *c, struct prf **p, int *cpu)
{
	static char percpu[32];
	int ret, st;

	*cpu = -1;
	if (c->dev) {
		if (open_status(c->dev, O_RDWR, p, &st))
			return 1;
		if (st & PRF_STATUS_ON) {
			msg("%s: sampling is ON: run 'prfstat -f %s off' first", c->dev, c->dev);
			prf_close(*p);
			*p = NULL;
			return 1;
		}
		return 0;
	}
	c->dev = "/dev/" PRF_CLONE_NAME;
	ret = prf_open_clone(O_RDWR, p);
	if (ret != -ENOENT && ret != -ENODEV && ret != -ENXIO)
		return ret ? open_dev(c->dev, O_RDWR, p) : 0;
	*cpu = sched_getcpu();
	if (*cpu < 0)
		*cpu = 0;
	snprintf(percpu, sizeof(percpu), "/dev/prf%d", *cpu);
	msg("note: no private instances (%s): sampling CPU %d alone on %s", c->dev, *cpu,
	    percpu);
	c->dev = percpu;
	return open_status(c->dev, O_RDWR, p, &st) ? 1 : 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Sample: load, filter, on, wait (COMMAND or the duration), off, and
 * append the snapshot to file.  0, or 1/2 (said), or 127/126 when the
 * command could not be run (the child said why).
 */
static int sample(struct common *c, const struct annotate_opts *o, const struct func *f,
		  char **cmd, const char *file)
{
	struct cmd_signals sg;
	struct snap_table st = { 0 };
	struct ld_opts lo = { 0 };
	struct symtab k, t;
	struct target tg = { 0, NULL };
	struct prf *p = NULL;
	int ret, max, cpu, gofd = -1, status = 0, on = 0;
	pid_t pid = -1;
	char go = 'g';

	if (open_instance(c, &p, &cpu))
		return 1;
	pin(cpu);
	max = prf_get_max(p);
	if (max < 0) {
		ret = dev_fail(c->dev, "PRF_GETMAX", max);
		goto out;
	}
	if ((ret = set_hz_flags(p, c->dev, c->hz, fixed_on(c))))
		goto out;
	if ((ret = build_table(c, &lo, 0, &k)))
		goto out;
	ret = annotate_table(&k, f, (size_t)max, &t);
	symtab_free(&k);
	if (ret)
		goto out;
	ret = load_table(p, c->dev, &t);
	symtab_free(&t);
	if (ret)
		goto out;
	cmd_signals_take(&sg, cmd != NULL, annotate_signal);
	if (cmd) {
		pid = cmd_spawn_held(cmd, &sg, &gofd);
		if (pid < 0) {
			ret = 1;
			goto restore;
		}
		tg.pid = o->all_tasks ? 0 : pid;
		if ((ret = set_target_filter(p, c->dev, &tg)))
			goto restore;
	}
	if ((ret = set_state(p, c->dev, 1)))
		goto restore;
	on = 1;
	if (cmd) {
		if (write(gofd, &go, 1) != 1) {
			msg("pipe: %s", strerror(errno));
			ret = 1;
		}
		status = cmd_wait(pid);
		pid = -1;
		/* a failed exec: said by the child; the shell's status, no report */
		if (cmd_exec_error(gofd))
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : 127;
		else
			cmd_report_status(cmd[0], status, &ret);
		close(gofd);
		gofd = -1;
	} else {
		double left = o->have_seconds ? o->seconds : DEFAULT_SECONDS;

		while (left > 0 && !annotate_stop) {
			double step = left < 0.1 ? left : 0.1;
			struct timespec d = { 0, (long)(step * 1e9) };

			nanosleep(&d, NULL);
			left -= step;
		}
	}
restore:
	if (on) {
		int rc = set_state(p, c->dev, 0);

		if (!ret)
			ret = rc;
	}
	if (!ret)
		ret = snap_to_file(p, c, file, &st, NULL);
	cmd_spawn_end(pid, gofd, &sg);
out:
	snap_table_free(&st);
	prf_close(p);
	return ret;
}

/* -i FILE: the function's range from the file's table (its entries' names). */
static int func_in_table(const struct snap_table *t, const char *spec, struct func *f)
{
	size_t i, j, plen, found = SIZE_MAX;
	uint64_t a = 0;
	int by_addr = !strncmp(spec, "0x", 2) && !parse_u64(spec, &a, 16);

	memset(f, 0, sizeof(*f));
	for (i = 0; i + 1 < t->n; i++) {
		const struct snap_entry *e = &t->e[i];

		if (e->kind != SYM_FUNC || !e->name)
			continue;
		if (by_addr ? e->addr <= a : !strcmp(e->name, spec)) {
			found = i;
			if (!by_addr)
				break;
		}
	}
	if (found == SIZE_MAX) {
		msg("%s: not in the file's table%s", spec,
		    by_addr ? "" : " (a function entry of that name)");
		return 1;
	}
	/* Its bytes are named "NAME+0x..." by the table's resolver. */
	plen = strlen(t->e[found].name);
	for (j = found + 1; j < t->n && t->e[j].name && !strncmp(t->e[j].name, t->e[found].name, plen) &&
	     t->e[j].name[plen] == '+'; j++)
		;
	if (j == t->n || (by_addr && a >= t->e[j].addr)) {
		msg("%s: not in the file's table", spec);
		return 1;
	}
	f->start = t->e[found].addr;
	f->end = t->e[j].addr;
	f->name = strdup(t->e[found].name);
	f->module = t->e[found].module ? strdup(t->e[found].module) : NULL;
	if (f->end - f->start > FUNC_MAX_BYTES) {
		msg("%s: %" PRIu64 " bytes: more than prf annotate takes", f->name,
		    f->end - f->start);
		return 1;
	}
	return f->name ? 0 : 1;
}

int cmd_annotate(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "all-tasks", no_argument, NULL, OPT_ALL_TASKS },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
		{ "kcore", required_argument, NULL, OPT_KCORE },
		{ "objdump", required_argument, NULL, OPT_OBJDUMP },
		{ "mark", required_argument, NULL, OPT_MARK },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"+d:i:o:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING | CO_FORMAT | CO_DEV_FILTER,
		help_annotate, annotate_opt, 1, INT_MAX, "want FUNCTION [-- COMMAND [ARG...]]",
	};
	struct common c;
	struct annotate_opts o = { .mark = DEFAULT_MARK };
	struct ld_opts ld = { 0 };
	struct func f = { 0 };
	struct disasm d = { 0 };
	struct snapfile sf = { 0 };
	struct report r = { 0 };
	struct annot an = { 0 };
	struct symtab k;
	char tmp[] = "/tmp/prf-annotate-XXXXXX", err[SNAP_ERRLEN];
	char **cmd = NULL;
	const char *file, *spec;
	int ret, tmpfd = -1, have_file = 0;
	long ia;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	spec = argv[optind];
	if (optind + 1 < argc)
		cmd = argv + optind + 1;
	if (cmd && !strcmp(cmd[0], "--"))
		cmd = cmd[1] ? cmd + 1 : NULL;
	if (c.format == FMT_FOLDED)
		return usage_error("--folded: not for annotate (--csv or --json)");
	if (o.input && (cmd || o.have_seconds || o.out || c.dev || o.all_tasks))
		return usage_error("-i reads a file: no COMMAND, -d, -o, -f or --all-tasks");
	if (cmd && o.have_seconds)
		return usage_error("-d and COMMAND exclude each other");
	if (o.all_tasks && !cmd)
		return usage_error("--all-tasks goes with a COMMAND (without one, every task is "
				   "sampled)");
	if (o.input) {
		file = o.input;
		if (read_snapfile(file, &sf))
			return 1;
		have_file = 1;
		if (!sf.nsnaps) {
			msg("%s: no snapshot in the file", file);
			ret = 1;
			goto out;
		}
		ia = sf.nsnaps >= 2 ? (long)sf.nsnaps - 1 : 0;
		if (report_from_file(&r, &sf, ia, (long)sf.nsnaps, err, sizeof(err))) {
			msg("%s: %s", file, err);
			ret = 1;
			goto out;
		}
		if ((ret = func_in_table(r.t, spec, &f)) || (ret = get_code(&o, &f, &d)))
			goto out;
	} else {
		/* The function and its code before any sampling: errors come first. */
		if ((ret = build_table(&c, &ld, 0, &k)))
			return ret;
		ret = find_func(&k, spec, &f);
		symtab_free(&k);
		if (ret || (ret = get_code(&o, &f, &d)))
			goto out;
		file = o.out;
		if (!file) {
			tmpfd = cmd_mktemp(tmp);
			if (tmpfd < 0) {
				ret = 1;
				goto out;
			}
			file = tmp;
		}
		if ((ret = sample(&c, &o, &f, cmd, file)))
			goto out;
		if (read_snapfile(file, &sf)) {
			ret = 1;
			goto out;
		}
		have_file = 1;
		if (report_from_file(&r, &sf, 0, (long)sf.nsnaps, err, sizeof(err))) {
			msg("%s: %s", file, err);
			ret = 1;
			goto out;
		}
	}
	if ((ret = annot_build(&r, &f, &d, o.mark, &an)))
		goto out;
	print_annot(stdout, c.format, &r, &f, &d, &an);
out:
	annot_free(&an);
	report_free(&r);
	if (have_file)
		snapfile_free(&sf);
	disasm_free(&d);
	func_free(&f);
	if (tmpfd >= 0)
		unlink(tmp);
	return ret;
}
