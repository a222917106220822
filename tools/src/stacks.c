// SPDX-License-Identifier: GPL-2.0-only
/*
 * stacks - a report's call stacks (stackview.h) out as folded stacks,
 * callers/callees and JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqoff.h"
#include "libprf.h"
#include "fmt.h"
#include "model.h"
#include "snapshot.h"
#include "stacks.h"
#include "uobj.h"

int stacks_of_report(const struct report *r, struct stackview *sv, char *err, size_t errlen)
{
	int ret = stackview_build(r, sv, err, errlen);

	if (ret > 0 && r->irqoff_to_caller)
		irqoff_cut_stacks(sv);
	return ret;
}

/* ---- folded ---- */

struct fline {
	char *s;
	uint64_t count;
};

static int cmp_fline_name(const void *pa, const void *pb)
{
	return strcmp(((const struct fline *)pa)->s, ((const struct fline *)pb)->s);
}

static int cmp_fline(const void *pa, const void *pb)
{
	const struct fline *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->s, b->s);
}

/* A frame in folded form: ';' and ' ' would split it, so neither. */
static void folded_frame(FILE *f, const struct snap_frame *fr)
{
	char buf[512];
	const char *s = frame_func(fr, buf, sizeof(buf));

	for (; *s; s++)
		fputc(*s == ';' ? '_' : *s == ' ' ? '_' : *s, f);
}

static const char *frame_module(const struct snap_frame *f)
{
	return f->module && *f->module ? f->module : "kernel";
}

/* A frame's name in a folded line: ';' separates frames, so none inside. */
static void fold_name(FILE *out, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == ';' ? '_' : *s, out);
}

/* A shared library's file name ("libc.so.6", "ld-linux-x86-64.so.2") */
static int is_library(const char *m)
{
	const char *so = strstr(m, ".so");

	return so && (so[3] == '\0' || so[3] == '.');
}

/*
 * The folded line of one stack, malloc'ed.  A user call chain's starts
 * with its leaf's program and names its frames as the user rows'
 * one-frame lines do ("program;function"), so that a chain of one frame
 * is that line.  A joined stack's (a kernel stack and the user chain of
 * the same samples) starts with the program (its outermost frame's file
 * that is not a shared library, else its outermost frame's), then the
 * user frames outermost first, then the kernel's: one line a sample path.
 */
static char *folded_line(const struct sv_stack *s)
{
	char *p = NULL, buf[512];
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);
	int joined = !!(s->flags & SV_STACK_JOINED);
	int user = !joined && s->nr && s->f[0]->user;
	uint32_t k, nk = joined ? s->nk : user ? 0 : s->nr;
	const char *prog = NULL;

	if (!f)
		return NULL;
	if (joined) {
		for (k = s->nr; k-- > nk && !prog;)
			if (!is_library(frame_module(s->f[k])))
				prog = frame_module(s->f[k]);
		fold_name(f, prog ? prog : frame_module(s->f[s->nr - 1]));
		fputc(';', f);
		if (s->uflags & PRF_UCHAIN_TRUNCATED)
			fputs("[truncated];", f);
		for (k = s->nr; k-- > nk;) {
			fold_name(f, frame_func(s->f[k], buf, sizeof(buf)));
			fputc(';', f);
		}
	} else if (user) {
		fold_name(f, frame_module(s->f[0]));
		fputc(';', f);
	}
	if (s->flags & PRF_STACK_TRUNCATED)
		fputs("[truncated];", f);
	for (k = user ? s->nr : nk; k-- > 0;) {
		if (user)
			fold_name(f, frame_func(s->f[k], buf, sizeof(buf)));
		else
			folded_frame(f, s->f[k]);
		if (k)
			fputc(';', f);
	}
	if (!(user ? s->nr : nk))
		fputs("[unknown]", f);
	if (fclose(f))
		return NULL;
	return p;
}

/*
 * The stacks' folded lines (of o->modules' leaves when given), stacks of
 * the same functions (other PCs in them) one line, most samples first,
 * equal ones by name; *v malloc'ed, its lines too.  Their number.  A
 * kernel stack's samples that have a user side are its joined stacks'
 * lines (stackview_build), the rest its own line as before.
 */
static size_t folded_lines(const struct stackview *sv, const char *modules, struct fline **pv)
{
	struct fline *v = calloc(sv->n ? sv->n : 1, sizeof(*v));
	size_t i, n = 0, m;

	*pv = v;
	if (!v)
		return 0;
	for (i = 0; i < sv->n; i++) {
		const struct sv_stack *s = &sv->v[i];

		if (modules && (!s->nr || !report_in_list(modules, frame_module(s->f[0]))))
			continue;
		v[n].s = folded_line(s);
		v[n].count = s->count;
		if (v[n].s)
			n++;
	}
	qsort(v, n, sizeof(*v), cmp_fline_name);
	for (i = 0, m = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1].s, v[i].s)) {
			v[m - 1].count += v[i].count;
			free(v[i].s);
			continue;
		}
		v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), cmp_fline);
	return m;
}

void stacks_print_folded(FILE *out, const struct report *r, const struct stackview *sv,
			 const struct report_opts *o)
{
	struct fline *v;
	size_t i, m = folded_lines(sv, o->modules, &v);

	for (i = 0; i < m; i++) {
		fprintf(out, "%s %" PRIu64 "\n", v[i].s, v[i].count);
		free(v[i].s);
	}
	free(v);
	if (o->modules)
		return;
	/*
	 * With user call chains, the chains above are the user samples but
	 * those whose chain is unknown (the table lost, dropped or found
	 * unmapped, or the chain table dropped): one bucket, so that the
	 * lines add up to every sample.  Without, the user rows (the user
	 * objects table's functions, or a USERPC table's) as one-frame stacks
	 * "program;function", and the rest of the user bucket as before.
	 */
	if (stacks_user_chains(r)) {
		uint64_t un = stacks_user_unchained(r);

		if (un)
			fprintf(out, "[%s] %" PRIu64 "\n", mode_bucket_name(report_mode(r), 0), un);
	} else {
		for (i = 0; i < r->nrows; i++) {
			if (!report_user_row(r, i))
				continue;
			fold_name(out, report_module(r->t, r->rows[i].idx));
			fputc(';', out);
			fold_name(out, report_name(r->t, r->rows[i].idx));
			fprintf(out, " %" PRIu64 "\n", r->rows[i].samples);
		}
		if (r->user_rest)
			fprintf(out, "[%s] %" PRIu64 "\n", mode_bucket_name(report_mode(r), 0),
				r->user_rest);
	}
	if (r->idle)
		fprintf(out, "[%s] %" PRIu64 "\n", mode_bucket_name(report_mode(r), 1), r->idle);
	if (r->outside)
		fprintf(out, "[outside] %" PRIu64 "\n", r->outside);
	if (sv->dropped)
		fprintf(out, "[stack dropped] %" PRIu64 "\n", sv->dropped);
}

/* ---- JSON ---- */

static void jstr(FILE *out, const char *s)
{
	report_json_str(out, s, 0);
}

void stacks_print_json(FILE *out, const struct stackview *sv)
{
	size_t i;
	uint32_t k;

	fprintf(out, "  \"stacks\": {\"depth\": %u, \"samples\": %" PRIu64
		", \"dropped\": %" PRIu64 ", ", sv->depth, sv->total, sv->dropped);
	if (sv->irqoff_to_caller)
		fprintf(out, "\"irqoff_to_caller\": true, \"irqoff_moved\": %" PRIu64 ", ",
			sv->irqoff_moved);
	fprintf(out, "\"stacks\": [");
	for (i = 0; i < sv->n; i++) {
		const struct sv_stack *s = &sv->v[i];

		fprintf(out, "%s\n    {\"samples\": %" PRIu64 ", \"truncated\": %s, "
			"\"user\": %s, ", i ? "," : "", s->count,
			s->flags & PRF_STACK_TRUNCATED ? "true" : "false",
			s->flags & PRF_STACK_USER ? "true" : "false");
		/*
		 * A kernel stack joined to the user chain of its samples: the
		 * user frames (root first, before the kernel's), their
		 * truncation ("truncated" is the kernel side's).
		 */
		if (s->flags & SV_STACK_JOINED)
			fprintf(out, "\"user_frames\": %u, \"user_truncated\": %s, ",
				s->nr - s->nk, s->uflags & PRF_UCHAIN_TRUNCATED ? "true" : "false");
		fprintf(out, "\"frames\": [");
		/* Root first, as in the folded lines. */
		for (k = s->nr; k-- > 0;) {
			char buf[512];

			fprintf(out, "{\"function\": ");
			jstr(out, frame_func(s->f[k], buf, sizeof(buf)));
			fprintf(out, ", \"module\": ");
			jstr(out, frame_module(s->f[k]));
			fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", s->f[k]->addr);
			/* a user chain's frame: its offset in this file */
			if (s->f[k]->file) {
				fprintf(out, ", \"file\": ");
				jstr(out, s->f[k]->file);
			}
			fprintf(out, "}%s", k ? ", " : "");
		}
		fprintf(out, "]}");
	}
	fprintf(out, "%s]},\n", sv->n ? "\n  " : "");
}

/* ---- callers and callees ---- */

struct nb {
	const char *name, *module;
	uint64_t samples;
};

static int cmp_nb(const void *pa, const void *pb)
{
	const struct nb *a = pa, *b = pb;
	int c;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->module, b->module);
}

static int frame_is(const struct snap_frame *f, const char *func)
{
	char buf[512];

	return !strcmp(frame_func(f, buf, sizeof(buf)), func);
}

int stacks_print_neighbours(FILE *out, const struct stackview *sv, const char *func,
			    int callees, enum report_format fmt, size_t max_rows, int width)
{
	struct nb *v = calloc(sv->n + 1, sizeof(*v));
	char (*names)[512] = calloc(sv->n + 1, sizeof(*names));
	uint64_t total = 0;
	size_t i, j, n = 0, nstacks = 0;
	const char *who = callees ? "callee" : "caller";

	if (!v || !names) {
		free(v);
		free(names);
		return -1;
	}
	for (i = 0; i < sv->n; i++) {
		const struct sv_stack *s = &sv->v[i];
		const char *name, *mod = "";
		uint32_t k;

		for (k = 0; k < s->nr && !frame_is(s->f[k], func); k++)
			;
		if (k == s->nr)
			continue;
		nstacks++;
		total += s->count;
		if (callees && k == 0) {
			name = "[self]";
		} else if (!callees && k + 1 == s->nr) {
			/* a joined stack's root is its user side's */
			name = (s->flags & SV_STACK_JOINED ? s->uflags & PRF_UCHAIN_TRUNCATED :
				s->flags & PRF_STACK_TRUNCATED) ? "[truncated]" : "[root]";
		} else if (!callees && (s->flags & SV_STACK_JOINED) && k + 1 == s->nk &&
			   (s->flags & PRF_STACK_TRUNCATED)) {
			name = "[truncated]";	/* the kernel side cut before its user side */
		} else {
			const struct snap_frame *f = s->f[callees ? k - 1 : k + 1];

			name = frame_func(f, names[i], sizeof(names[i]));
			if (name != names[i])
				name = snprintf(names[i], sizeof(names[i]), "%s", name) >= 0 ?
				       names[i] : "?";
			mod = frame_module(f);
		}
		for (j = 0; j < n && (strcmp(v[j].name, name) || strcmp(v[j].module, mod)); j++)
			;
		if (j == n) {
			v[n].name = name;
			v[n].module = mod;
			n++;
		}
		v[j].samples += s->count;
	}
	if (!nstacks) {
		free(v);
		free(names);
		return 1;
	}
	qsort(v, n, sizeof(*v), cmp_nb);
	if (max_rows && n > max_rows)
		n = max_rows;
	if (fmt == FMT_CSV) {
		fprintf(out, "samples,percent,%s,module,of\n", who);
		/* quoted when need be: a user function's name may hold a comma */
		for (i = 0; i < n; i++) {
			fprintf(out, "%" PRIu64 ",%.2f,", v[i].samples,
				100.0 * (double)v[i].samples / (double)total);
			report_csv_field(out, v[i].name);
			fputc(',', out);
			report_csv_field(out, v[i].module);
			fputc(',', out);
			report_csv_field(out, func);
			fputc('\n', out);
		}
	} else if (fmt == FMT_JSON) {
		fprintf(out, "{\n  \"function\": ");
		jstr(out, func);
		fprintf(out, ",\n  \"samples\": %" PRIu64 ",\n  \"stacks\": %zu,\n", total,
			nstacks);
		if (sv->irqoff_to_caller)
			fprintf(out, "  \"irqoff_to_caller\": true,\n");
		fprintf(out, "  \"%ss\": [", who);
		for (i = 0; i < n; i++) {
			fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
			jstr(out, v[i].name);
			fprintf(out, ", \"module\": ");
			jstr(out, v[i].module);
			fprintf(out, ", \"samples\": %" PRIu64 ", \"percent\": %.2f}", v[i].samples,
				100.0 * (double)v[i].samples / (double)total);
		}
		fprintf(out, "%s]\n}\n", n ? "\n  " : "");
	} else {
		char line[1024];

		fprintf(out, "%ss of %s: %" PRIu64 " samples in %zu stack%s\n", who, func, total,
			nstacks, nstacks == 1 ? "" : "s");
		snprintf(line, sizeof(line), "%10s %8s  %s", "samples", "%func", who);
		if (width > 0 && (size_t)width < sizeof(line))
			line[width] = '\0';
		fprintf(out, "%s\n", line);
		for (i = 0; i < n; i++) {
			snprintf(line, sizeof(line), "%10" PRIu64 " %8.2f  %s%s%s%s", v[i].samples,
				 100.0 * (double)v[i].samples / (double)total, v[i].name,
				 *v[i].module ? " [" : "", v[i].module, *v[i].module ? "]" : "");
			if (width > 0 && (size_t)width < sizeof(line))
				line[width] = '\0';
			fprintf(out, "%s\n", line);
		}
		if (sv->irqoff_to_caller) {
			snprintf(line, sizeof(line), "(--irqoff-to-caller: a stack whose leaf "
				 "re-enabled interrupts starts at the caller that held them off)");
			if (width > 0 && (size_t)width < sizeof(line))
				line[width] = '\0';
			fprintf(out, "%s\n", line);
		}
	}
	free(v);
	free(names);
	return 0;
}

void stacks_print_top(FILE *out, const struct stackview *sv, size_t max)
{
	struct fline *v;
	size_t i, m = folded_lines(sv, NULL, &v);

	if (!m) {
		fprintf(out, "no call stacks taken\n");
		free(v);
		return;
	}
	fprintf(out, "top call stacks (%zu of %zu, outermost frame first; %" PRIu64
		" samples in stacks):\n", m < max ? m : max, m, sv->total);
	for (i = 0; i < m; i++) {
		char *f, *save = NULL;
		int depth = 0;

		for (f = i < max ? strtok_r(v[i].s, ";", &save) : NULL; f;
		     f = strtok_r(NULL, ";", &save), depth++) {
			if (!depth)
				fprintf(out, "%10" PRIu64 " %6.2f%%  %s\n", v[i].count,
					sv->total ? 100.0 * (double)v[i].count /
					(double)sv->total : 0.0, f);
			else
				fprintf(out, "%20s%*s%s\n", "", 2 * depth, "", f);
		}
		free(v[i].s);
	}
	free(v);
	fprintf(out, "every stack: --folded (a flame graph's lines); a function's callers: "
		"--callers FUNC; a page: -o FILE, then prfpr --html OUT FILE\n");
}
