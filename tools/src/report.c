// SPDX-License-Identifier: GPL-2.0-only
/*
 * report - the report model (model.h) in the four output formats: text,
 * CSV, JSON and folded lines, and two reports side by side (--diff).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/prf.h>

#include "irqoff.h"
#include "demangle.h"
#include "namelist.h"
#include "report.h"
#include "uobj.h"
#include "source.h"
#include "stacks.h"
#include "usym.h"

/* The raw symbol of a user function row (CSV, JSON): NULL for the others. */
static const char *user_symbol(const struct snap_table *t, size_t idx)
{
	const struct snap_entry *e = &t->e[idx];

	return usym_is_user_addr(e->addr) && e->kind == SYM_FUNC ? e->name : NULL;
}

/* ---- output ---- */

static void fmt_time(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "%" PRId64, ns);
}

static double pct(uint64_t v, uint64_t all)
{
	return all ? 100.0 * (double)v / (double)all : 0.0;
}

static double row_pct(const struct report *r, const struct report_opts *o,
		      const struct report_row *row)
{
	return pct(row->samples, report_base(r, o->of));
}

/* The rows a report prints, and what it leaves out. */
struct selection {
	const struct report_row **v;	/* in print order */
	size_t n;
	size_t rest;			/* rows of the filter not shown */
	uint64_t rest_samples;
	int cut_by_rows;		/* some of them were above the cutoff (max_rows) */
	uint64_t top;			/* the most samples of a shown row */
};

static const struct snap_table *sel_table;
static enum report_sort sel_sort;

static int cmp_sel(const void *pa, const void *pb)
{
	const struct report_row *a = *(const struct report_row *const *)pa;
	const struct report_row *b = *(const struct report_row *const *)pb;
	const struct snap_entry *ea = &sel_table->e[a->idx], *eb = &sel_table->e[b->idx];
	int c = 0;

	if (sel_sort == SORT_NAME)
		c = strcmp(ea->name, eb->name);
	else if (sel_sort == SORT_MODULE)
		c = strcmp(report_module(sel_table, a->idx), report_module(sel_table, b->idx));
	if (!c && sel_sort != SORT_ADDRESS && a->samples != b->samples)
		c = a->samples > b->samples ? -1 : 1;
	if (!c && ea->addr != eb->addr)
		c = ea->addr < eb->addr ? -1 : 1;
	return c;
}

/* 0, or -1 out of memory. */
static int select_rows(const struct report *r, const struct report_opts *o,
		       struct selection *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->v = malloc((r->nrows ? r->nrows : 1) * sizeof(*s->v));
	if (!s->v)
		return -1;
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		int above = row->samples && row_pct(r, o, row) > o->cutoff;

		if (o->modules && !report_in_list(o->modules, report_module(r->t, row->idx)))
			continue;
		if (above && (!o->max_rows || s->n < o->max_rows)) {
			s->v[s->n++] = row;
			if (row->samples > s->top)
				s->top = row->samples;
			continue;
		}
		s->rest++;
		s->rest_samples += row->samples;
		s->cut_by_rows |= above;
	}
	if (o->sort != SORT_SAMPLES) {
		sel_table = r->t;
		sel_sort = o->sort;
		qsort(s->v, s->n, sizeof(*s->v), cmp_sel);
	}
	return 0;
}

static void text_header(FILE *out, const struct report *r, const struct report_opts *o)
{
	const struct snapshot *b = r->b;
	char ta[64], tb[64];

	if (!b)
		return;
	if (o->file)
		fprintf(out, "%s: ", o->file);
	if (r->a)
		fprintf(out, "snapshots %ld to %ld\n", r->ia, r->ib);
	else
		fprintf(out, "snapshot %ld, counted from the load or clear\n", r->ib);
	fprintf(out, "device %s (", b->device ? b->device : "?");
	if (b->cpu < 0)
		fprintf(out, "all CPUs, %u covered", b->ncpus);
	else
		fprintf(out, "CPU %d", b->cpu);
	/* the event modes count events, not samples: no rate */
	fprintf(out, "; %u online) on %s, Linux %s", b->online,
		!b->host ? "?" : strcmp(b->host, "(none)") ? b->host : "a host with no name set",
		b->release ? b->release : "?");
	if (report_mode(r) == PRF_MODE_TIME)
		fprintf(out, ", %u Hz", b->hz);
	fprintf(out, "\n");
	fmt_time(tb, sizeof(tb), b->time_ns);
	if (r->a) {
		fmt_time(ta, sizeof(ta), r->a->time_ns);
		fprintf(out, "from %s to %s: %.2f s, %s on %.2f s\n", ta, tb,
			r->seconds, report_mode(r) == PRF_MODE_TIME ? "sampling" :
			"counting", r->on_seconds);
	} else {
		fprintf(out, "at %s: %s on %.2f s\n", tb, report_mode(r) == PRF_MODE_TIME ?
			"sampling" : "counting", r->on_seconds);
	}
	mode_header(out, r);
	source_header(out, r);
	fprintf(out, "\n");
}

/* "kernel", with the percentage's column name: "%kernel". */
/* A line of at most width columns (0: all of it). */
static void put_line(FILE *out, int width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_line(FILE *out, int width, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (width > 0 && (size_t)width < sizeof(buf))
		buf[width] = '\0';
	fprintf(out, "%s\n", buf);
}

/* Columns of a row besides the name and the bar: samples, %, module. */
#define ROW_FIXED 34

static void text_rows(FILE *out, const struct report *r, const struct report_opts *o,
		      const struct selection *s)
{
	size_t i, w = 8;
	int bw = o->bar_width > 0 ? o->bar_width : 30, width = o->width;
	char col[16], bar[64], cnt[32], nm[64];
	uint32_t mode = report_mode(r);
	double weight = report_weight(r);	/* PMU: the counts are events */
	const int irq = irqoff_applies(r);	/* re-enable points marked */

	for (i = 0; i < s->n; i++) {
		size_t l = strlen(report_name(r->t, s->v[i]->idx)) +
			   (irq && irqoff_entry(r, s->v[i]->idx) ? strlen(IRQOFF_MARK) : 0);

		if (l > w)
			w = l;
	}
	if (w > 48)
		w = 48;
	if (width > 0) {
		/* Fit: the name keeps 16 columns at least, the bar takes what is left. */
		if ((int)w > width - ROW_FIXED - 10)
			w = width - ROW_FIXED - 10 < 16 ? 16 : (size_t)(width - ROW_FIXED - 10);
		if (bw > width - ROW_FIXED - (int)w)
			bw = width - ROW_FIXED - (int)w;
		if (bw < 0)
			bw = 0;
	}
	snprintf(col, sizeof(col), "%%%s", report_of_name(o->of));
	put_line(out, width, "%10s %7s  %-*s %s",
		 mode == PRF_MODE_OFFCPU ? "off-cpu" : report_unit(r), col, (int)w, "function",
		 "module");
	for (i = 0; i < s->n; i++) {
		const struct report_row *row = s->v[i];
		int bars, k, mark = irq && irqoff_entry(r, row->idx);

		bars = s->top ? (int)((double)row->samples * bw / (double)s->top + 0.5) : 0;
		if (bars < 1 && bw > 0)
			bars = 1;
		for (k = 0; k < bars && k < (int)sizeof(bar) - 1; k++)
			bar[k] = '#';
		bar[k] = '\0';
		/* a name cut to fit keeps its mark */
		snprintf(nm, sizeof(nm), "%.*s%s", (int)(w - (mark ? strlen(IRQOFF_MARK) : 0)),
			 report_name(r->t, row->idx), mark ? IRQOFF_MARK : "");
		put_line(out, width, "%10s %7.2f  %-*s %-12.12s %s",
			 weight ? fmt_events((double)row->samples * weight, cnt, sizeof(cnt)) :
				  fmt_count(mode, row->samples, cnt, sizeof(cnt)),
			 row_pct(r, o, row), (int)w, nm, report_module(r->t, row->idx), bar);
	}
	if (!s->n)
		put_line(out, width, "%10s %7s  (no function above %.2f%% of %s samples)", "", "",
			 o->cutoff, report_of_name(o->of));
	if (!s->rest)
		return;
	snprintf(bar, sizeof(bar), ", %sat or below %.2f%%", s->rest == 1 ? "" : "each ",
		 o->cutoff);
	put_line(out, width, "%10s %7.2f  (%zu more function%s%s)",
		 weight ? fmt_events((double)s->rest_samples * weight, cnt, sizeof(cnt)) :
			  fmt_count(mode, s->rest_samples, cnt, sizeof(cnt)),
		 pct(s->rest_samples, report_base(r, o->of)), s->rest, s->rest == 1 ? "" : "s",
		 s->cut_by_rows ? "" : bar);
}

/* A total of the text report: times as times (offcpu), else the number. */
static const char *total_str(uint32_t mode, uint64_t v, char *buf, size_t len)
{
	if (mode == PRF_MODE_OFFCPU)
		return fmt_time_ns(v, buf, len);
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/*
 * The text report.  Outside time mode the device's ticks_outside and
 * ticks_lost are 0 by definition (uapi: no PC, no period): their lines are
 * left out, and the shares are of the kernel's counts alone.
 */
static void print_text(FILE *out, const struct report *r, const struct report_opts *o)
{
	const uint32_t mode = report_mode(r);
	const int timed = mode == PRF_MODE_TIME;
	struct selection s;
	char base[64], t1[32], t2[32], t3[32];
	int lw;

	text_header(out, r, o);
	if (select_rows(r, o, &s))
		return;
	text_rows(out, r, o, &s);
	free(s.v);
	fprintf(out, "\n");
	if (o->compact) {
		char tail[64] = "";

		if (timed)
			snprintf(tail, sizeof(tail), "  outside %" PRIu64 "  lost %" PRIu64,
				 r->outside, r->lost);
		put_line(out, o->width, "kernel %s (%.1f%%)  %s %s (%.1f%%)  %s %s (%.1f%%)%s",
			 total_str(mode, r->kernel, t1, sizeof(t1)), pct(r->kernel, r->all),
			 mode_bucket_name(mode, 0), total_str(mode, r->user, t2, sizeof(t2)),
			 pct(r->user, r->all), mode_bucket_name(mode, 1),
			 total_str(mode, r->idle, t3, sizeof(t3)), pct(r->idle, r->all), tail);
		irqoff_print(out, r, o->width);
		return;
	}
	lw = timed ? 10 : 13;	/* "outside table" */
	fprintf(out, "%-*s %10s %7.2f%%\n", lw, "kernel", total_str(mode, r->kernel, t1, sizeof(t1)),
		pct(r->kernel, r->all));
	fprintf(out, "%-*s %10s %7.2f%%\n", lw, mode_bucket_name(mode, 0),
		total_str(mode, r->user, t1, sizeof(t1)), pct(r->user, r->all));
	fprintf(out, "%-*s %10s %7.2f%%\n", lw, mode_bucket_name(mode, 1),
		total_str(mode, r->idle, t1, sizeof(t1)), pct(r->idle, r->all));
	if (timed)
		fprintf(out, "%-*s %10" PRIu64 " %7.2f%%  kernel PC outside every function "
			"(below the first address)\n", lw, "outside", r->outside,
			pct(r->outside, r->all));
	fprintf(out, "%-*s %10s %7.2f%%\n", lw, "total", total_str(mode, r->all, t1, sizeof(t1)),
		r->all ? 100.0 : 0.0);
	if (timed)
		fprintf(out, "%-*s %10" PRIu64 "           periods missed by a late %s "
			"(in no other count)\n", lw, "lost", r->lost,
			report_weight(r) ? "PMU interrupt" : "timer");
	if (r->in_sentinels)
		fprintf(out, "(%" PRIu64 " kernel samples fell past the end of a text region, "
			"shown as [outside ... text])\n", r->in_sentinels);
	if (o->of == OF_ALL)
		snprintf(base, sizeof(base), "all");
	else if (timed)
		snprintf(base, sizeof(base), "kernel + outside%s", o->of == OF_BUSY ? " + user" : "");
	else if (o->of == OF_BUSY)
		snprintf(base, sizeof(base), "kernel + %s", mode_bucket_name(mode, 0));
	else
		snprintf(base, sizeof(base), "kernel");
	fprintf(out, "%%%s: share of %" PRIu64 " %s (%s); totals: share of all %" PRIu64 "\n",
		report_of_name(o->of), report_base(r, o->of), mode_unit(mode), base,
		r->all);
	if (report_weight(r))
		fprintf(out, "(totals in samples; a sample stands for %.0f %s)\n",
			report_weight(r), report_unit(r));
	irqoff_print(out, r, 0);
	sites_print(out, r, o);
}

static void print_csv(FILE *out, const struct report *r, const struct report_opts *o)
{
	struct selection s;
	size_t i;
	const int irq = irqoff_applies(r);	/* a column for the re-enable points */
	const char *irq_col = irq ? "," : "";
	/* user rows: the file and the raw symbol (file and address find it) */
	const int ucols = r->user_rows;
	const char *u_cols = ucols ? ",," : "";
	struct { const char *name; uint64_t v; } tot[] = {
		{ "[kernel]", r->kernel }, { "[user]", r->user }, { "[idle]", r->idle },
		{ "[outside]", r->outside }, { "[total]", r->all },
	};

	if (select_rows(r, o, &s))
		return;
	fprintf(out, "samples,percent,function,module,address,kind,percent_of%s%s\n",
		irq ? ",irq_reenable" : "", ucols ? ",file,symbol" : "");
	for (i = 0; i < s.n; i++) {
		const struct report_row *row = s.v[i];
		const struct snap_entry *e = &r->t->e[row->idx];
		uint64_t a;

		fprintf(out, "%" PRIu64 ",%.2f,", row->samples, row_pct(r, o, row));
		report_csv_field(out, report_name(r->t, row->idx));
		fputc(',', out);
		report_csv_field(out, report_module(r->t, row->idx));
		fputc(',', out);
		if (report_address(r->t, row->idx, &a))
			fprintf(out, "0x%" PRIx64, a);
		fprintf(out, ",%s,%s", report_kind(e->kind), report_of_name(o->of));
		if (irq)
			fprintf(out, ",%d", irqoff_entry(r, row->idx));
		if (ucols) {
			fputc(',', out);
			report_csv_field(out, e->file ? e->file : "");
			fputc(',', out);
			report_csv_field(out, user_symbol(r->t, row->idx) ?
					      user_symbol(r->t, row->idx) : "");
		}
		fputc('\n', out);
	}
	if (s.rest)
		fprintf(out, "%" PRIu64 ",%.2f,[%zu more],,,rest,%s%s%s\n", s.rest_samples,
			pct(s.rest_samples, report_base(r, o->of)), s.rest, report_of_name(o->of),
			irq_col, u_cols);
	free(s.v);
	for (i = 0; i < sizeof(tot) / sizeof(tot[0]); i++)
		fprintf(out, "%" PRIu64 ",%.2f,%s,,,total,all%s%s\n", tot[i].v,
			i == 4 ? (r->all ? 100.0 : 0.0) : pct(tot[i].v, r->all), tot[i].name,
			irq_col, u_cols);
	fprintf(out, "%" PRIu64 ",,[lost],,,total,%s%s\n", r->lost, irq_col, u_cols);
	if (r->b && r->b->ext && r->b->ext->nsites) {
		fputc('\n', out);
		sites_print(out, r, o);
	}
}

static void json_str(FILE *out, const char *s)
{
	report_json_str(out, s, 0);
}

static void json_snap(FILE *out, const char *key, long idx, const struct snapshot *s)
{
	char t[64];

	fprintf(out, "  \"%s\": ", key);
	if (!s) {
		fprintf(out, "null,\n");
		return;
	}
	fmt_time(t, sizeof(t), s->time_ns);
	fprintf(out, "{\"snapshot\": %ld, \"time\": ", idx);
	json_str(out, t);
	fprintf(out, ", \"time_ns\": %" PRId64 "},\n", s->time_ns);
}

static void print_json(FILE *out, const struct report *r, const struct report_opts *o)
{
	const struct snapshot *b = r->b;
	struct selection s;
	size_t i;
	const int irq = irqoff_applies(r);

	if (select_rows(r, o, &s))
		return;
	fprintf(out, "{\n");
	fprintf(out, "  \"format\": \"prf-report\",\n  \"version\": 2,\n");
	if (o->file) {
		fprintf(out, "  \"file\": ");
		json_str(out, o->file);
		fprintf(out, ",\n");
	}
	if (b) {
		fprintf(out, "  \"device\": ");
		json_str(out, b->device);
		fprintf(out, ",\n  \"cpu\": %d,\n  \"ncpus\": %u,\n  \"online_cpus\": %u,\n"
			"  \"hz\": %u,\n  \"host\": ", b->cpu, b->ncpus, b->online, b->hz);
		json_str(out, b->host);
		fprintf(out, ",\n  \"kernel\": ");
		json_str(out, b->release);
		fprintf(out, ",\n");
		json_snap(out, "from", r->ia, r->a);
		json_snap(out, "to", r->ib, b);
		if (b->ext)
			fprintf(out, "  \"mode\": \"%s\",\n  \"unit\": \"%s\",\n",
				mode_name(b->ext->mode) ? mode_name(b->ext->mode) : "?",
				report_unit(r));
		if (ext_is_pmu(b->ext))
			fprintf(out, "  \"source\": {\"kind\": \"pmu\", \"event\": \"%s\", "
				"\"period\": %" PRIu64 ", \"events_per_sample\": %.0f, "
				"\"events\": %" PRIu64 ", \"samples\": %" PRIu64 ", "
				"\"samples_nmi\": %" PRIu64 ", \"enabled_ns\": %" PRIu64 ", "
				"\"running_ns\": %" PRIu64 ", \"throttled\": %" PRIu64 "},\n",
				event_name(b->ext->event) ? event_name(b->ext->event) : "?",
				b->ext->period, report_weight(r), b->ext->pmu_count,
				b->ext->ticks_sampled, b->ext->samples_nmi, b->ext->pmu_enabled_ns,
				b->ext->pmu_running_ns, b->ext->pmu_throttled);
	}
	fprintf(out, "  \"seconds\": %.3f,\n  \"on_seconds\": %.3f,\n  \"cutoff\": %.2f,\n",
		r->seconds, r->on_seconds, o->cutoff);
	fprintf(out, "  \"percent_of\": \"%s\",\n  \"percent_base\": %" PRIu64 ",\n",
		report_of_name(o->of), report_base(r, o->of));
	fprintf(out, "  \"functions\": [");
	for (i = 0; i < s.n; i++) {
		const struct report_row *row = s.v[i];
		const struct snap_entry *e = &r->t->e[row->idx];
		uint64_t a;

		fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
		json_str(out, report_name(r->t, row->idx));
		fprintf(out, ", \"module\": ");
		json_str(out, report_module(r->t, row->idx));
		if (report_address(r->t, row->idx, &a))
			fprintf(out, ", \"address\": \"0x%" PRIx64 "\"", a);
		else
			fprintf(out, ", \"address\": null");
		if (e->file) {
			fprintf(out, ", \"file\": ");
			json_str(out, e->file);
		}
		if (user_symbol(r->t, row->idx)) {
			fprintf(out, ", \"symbol\": ");
			json_str(out, e->name);
		}
		fprintf(out, ", \"kind\": \"%s\", \"samples\": %" PRIu64 ", \"percent\": %.2f",
			report_kind(e->kind), row->samples, row_pct(r, o, row));
		if (report_weight(r))
			fprintf(out, ", \"events\": %.0f", (double)row->samples * report_weight(r));
		if (irq)
			fprintf(out, ", \"irq_reenable\": %s",
				irqoff_entry(r, row->idx) ? "true" : "false");
		fputc('}', out);
	}
	fprintf(out, "%s],\n", s.n ? "\n  " : "");
	fprintf(out, "  \"rest\": {\"functions\": %zu, \"samples\": %" PRIu64
		", \"percent\": %.2f},\n", s.rest, s.rest_samples,
		pct(s.rest_samples, report_base(r, o->of)));
	free(s.v);
	if (irq) {
		fprintf(out, "  \"irq_reenable\": {\"samples\": %" PRIu64 ", \"percent_of_kernel\": "
			"%.2f, \"to_caller\": %s, \"moved\": %" PRIu64 ", \"note\": ",
			irqoff_samples(r), irqoff_share(r), r->irqoff_to_caller ? "true" : "false",
			r->irqoff_moved);
		json_str(out, IRQOFF_NOTE);
		fprintf(out, "},\n");
	}
	if (b && b->ext) {
		struct stackview sv;
		char err[256];

		if (stacks_of_report(r, &sv, err, sizeof(err)) > 0) {
			stacks_print_json(out, &sv);
			stackview_free(&sv);
		}
		sites_print(out, r, o);
	}
	if (r->uobjs)
		uobj_print_json(out, r->uobjs, r->user);
	fprintf(out, "  \"totals\": {\"kernel\": %" PRIu64 ", \"user\": %" PRIu64
		", \"idle\": %" PRIu64 ", \"outside\": %" PRIu64 ", \"total\": %" PRIu64
		", \"lost\": %" PRIu64 ", \"in_sentinels\": %" PRIu64 "}\n",
		r->kernel, r->user, r->idle, r->outside, r->all, r->lost, r->in_sentinels);
	fprintf(out, "}\n");
}

/* Frame names for folded stacks: ';' separates frames, so none inside. */
static void folded_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? '_' : *s, out);
}

static void print_folded(FILE *out, const struct report *r, const struct report_opts *o)
{
	struct selection s;
	struct stackview sv;
	char err[256];
	size_t i;

	if (stacks_of_report(r, &sv, err, sizeof(err)) > 0) {
		stacks_print_folded(out, r, &sv, o);	/* real stacks */
		stackview_free(&sv);
		return;
	}
	if (select_rows(r, o, &s))
		return;
	for (i = 0; i < s.n; i++) {
		folded_name(out, report_module(r->t, s.v[i]->idx));
		fputc(';', out);
		folded_name(out, report_name(r->t, s.v[i]->idx));
		fprintf(out, " %" PRIu64 "\n", s.v[i]->samples);
	}
	free(s.v);
	if (o->modules)
		return;	/* the modules asked for, nothing else */
	/*
	 * Counters N and N + 1 by the mode's names, as with stacks: of the user
	 * samples, those no user row above holds.
	 */
	if (r->user_rest)
		fprintf(out, "[%s] %" PRIu64 "\n", mode_bucket_name(report_mode(r), 0),
			r->user_rest);
	if (r->idle)
		fprintf(out, "[%s] %" PRIu64 "\n", mode_bucket_name(report_mode(r), 1), r->idle);
	if (r->outside)
		fprintf(out, "[outside] %" PRIu64 "\n", r->outside);
}

void report_print(FILE *out, const struct report *r, const struct report_opts *o)
{
	switch (o->format) {
	case FMT_CSV:
		print_csv(out, r, o);
		break;
	case FMT_JSON:
		print_json(out, r, o);
		break;
	case FMT_FOLDED:
		print_folded(out, r, o);
		break;
	default:
		print_text(out, r, o);
		break;
	}
}
/* ---- diff ---- */

struct diff_row {
	const char *module, *name;
	uint64_t samples[2];	/* base, cur */
	double pct[2], delta;
	int irq;		/* a re-enable point (irqoff.h) */
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	int c = strcmp(a->module, b->module);

	return c ? c : strcmp(a->name, b->name);
}

static int cmp_delta(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	double da = a->delta < 0 ? -a->delta : a->delta, db = b->delta < 0 ? -b->delta : b->delta;

	if (da != db)
		return da > db ? -1 : 1;
	return cmp_key(pa, pb);
}

/* Both reports' rows, one per module and name, sorted by |delta|; NULL: no memory. */
static struct diff_row *diff_rows(const struct report *r[2], const struct report_opts *o,
				  size_t *count)
{
	size_t n = r[0]->nrows + r[1]->nrows, i, k, m = 0;
	struct diff_row *d = calloc(n ? n : 1, sizeof(*d));

	if (!d)
		return NULL;
	for (k = 0; k < 2; k++)
		for (i = 0; i < r[k]->nrows; i++) {
			const struct report_row *row = &r[k]->rows[i];
			const char *mod = report_module(r[k]->t, row->idx);

			if (o->modules && !report_in_list(o->modules, mod))
				continue;
			d[m].module = mod;
			d[m].name = report_name(r[k]->t, row->idx);
			d[m].irq = irqoff_applies(r[k]) && irqoff_entry(r[k], row->idx);
			d[m++].samples[k] = row->samples;
		}
	qsort(d, m, sizeof(*d), cmp_key);
	for (i = 0, n = 0; i < m; i++) {
		if (n && !cmp_key(&d[n - 1], &d[i])) {
			d[n - 1].samples[0] += d[i].samples[0];
			d[n - 1].samples[1] += d[i].samples[1];
			d[n - 1].irq |= d[i].irq;
		} else {
			d[n++] = d[i];
		}
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < 2; k++)
			d[i].pct[k] = pct(d[i].samples[k], report_base(r[k], o->of));
		d[i].delta = d[i].pct[1] - d[i].pct[0];
	}
	qsort(d, n, sizeof(*d), cmp_delta);
	*count = n;
	return d;
}

static int diff_shown(const struct diff_row *d, const struct report_opts *o)
{
	return d->pct[0] > o->cutoff || d->pct[1] > o->cutoff;
}

static void diff_what(FILE *out, const char *key, const struct report *r)
{
	if (r->a)
		fprintf(out, "%s %s: snapshots %ld to %ld", key, r->file ? r->file : "?", r->ia,
			r->ib);
	else
		fprintf(out, "%s %s: snapshot %ld from the load", key, r->file ? r->file : "?",
			r->ib);
}

static void diff_text(FILE *out, const struct report *r[2], const struct report_opts *o,
		      const struct diff_row *d, size_t n)
{
	size_t i, w = 8, rest = 0;
	const char *of = report_of_name(o->of);

	for (i = 0; i < n; i++)
		if (diff_shown(&d[i], o) && strlen(d[i].name) + d[i].irq * strlen(IRQOFF_MARK) > w)
			w = strlen(d[i].name) + d[i].irq * strlen(IRQOFF_MARK);
	if (w > 48)
		w = 48;
	diff_what(out, "base", r[0]);
	fprintf(out, ", %" PRIu64 " %s samples\n", report_base(r[0], o->of), of);
	diff_what(out, "new ", r[1]);
	fprintf(out, ", %" PRIu64 " %s samples\n\n", report_base(r[1], o->of), of);
	fprintf(out, "%7s %7s %8s %7s  %-*s %s\n", "base%", "new%", "delta", "ratio", (int)w,
		"function", "module");
	for (i = 0; i < n; i++) {
		char ratio[16], nm[600];

		if (!diff_shown(&d[i], o)) {
			rest++;
			continue;
		}
		if (d[i].pct[0] > 0)
			snprintf(ratio, sizeof(ratio), "%.2f", d[i].pct[1] / d[i].pct[0]);
		else
			snprintf(ratio, sizeof(ratio), "new");
		snprintf(nm, sizeof(nm), "%s%s", d[i].name, d[i].irq ? IRQOFF_MARK : "");
		fprintf(out, "%7.2f %7.2f %+8.2f %7s  %-*s %s\n", d[i].pct[0], d[i].pct[1],
			d[i].delta, ratio, (int)w, nm, d[i].module);
	}
	if (rest)
		fprintf(out, "(%zu more function%s, at or below %.2f%% in both)\n", rest,
			rest == 1 ? "" : "s", o->cutoff);
	fprintf(out, "%%: share of each report's %s samples; delta in points; ratio new/base\n",
		of);
	if (irqoff_samples(r[0]) || irqoff_samples(r[1]))
		fprintf(out, "base %.1f%%, new %.1f%% of kernel samples landed where interrupts are "
			"re-enabled (marked %s): %s\n", irqoff_share(r[0]), irqoff_share(r[1]),
			IRQOFF_MARK, IRQOFF_NOTE);
}

static void diff_csv(FILE *out, const struct report_opts *o, const struct diff_row *d,
		     size_t n)
{
	size_t i;

	fprintf(out, "base_samples,new_samples,base_percent,new_percent,delta,ratio,function,"
		"module,percent_of\n");
	for (i = 0; i < n; i++) {
		if (!diff_shown(&d[i], o))
			continue;
		fprintf(out, "%" PRIu64 ",%" PRIu64 ",%.2f,%.2f,%+.2f,", d[i].samples[0],
			d[i].samples[1], d[i].pct[0], d[i].pct[1], d[i].delta);
		if (d[i].pct[0] > 0)
			fprintf(out, "%.2f", d[i].pct[1] / d[i].pct[0]);
		fputc(',', out);
		report_csv_field(out, d[i].name);
		fputc(',', out);
		report_csv_field(out, d[i].module);
		fprintf(out, ",%s\n", report_of_name(o->of));
	}
}

static void diff_json_side(FILE *out, const char *key, const struct report *r,
			   const struct report_opts *o)
{
	fprintf(out, "  \"%s\": {\"file\": ", key);
	json_str(out, r->file);
	fprintf(out, ", \"from\": %ld, \"to\": %ld, \"percent_base\": %" PRIu64 "},\n", r->ia,
		r->ib, report_base(r, o->of));
}

static void diff_json(FILE *out, const struct report *r[2], const struct report_opts *o,
		      const struct diff_row *d, size_t n)
{
	size_t i;
	int first = 1;

	fprintf(out, "{\n  \"format\": \"prf-diff\",\n  \"version\": 1,\n");
	fprintf(out, "  \"percent_of\": \"%s\",\n  \"cutoff\": %.2f,\n", report_of_name(o->of),
		o->cutoff);
	diff_json_side(out, "base", r[0], o);
	diff_json_side(out, "new", r[1], o);
	fprintf(out, "  \"functions\": [");
	for (i = 0; i < n; i++) {
		if (!diff_shown(&d[i], o))
			continue;
		fprintf(out, "%s\n    {\"function\": ", first ? "" : ",");
		first = 0;
		json_str(out, d[i].name);
		fprintf(out, ", \"module\": ");
		json_str(out, d[i].module);
		fprintf(out, ", \"base_samples\": %" PRIu64 ", \"new_samples\": %" PRIu64
			", \"base_percent\": %.2f, \"new_percent\": %.2f, \"delta\": %.2f, "
			"\"ratio\": ", d[i].samples[0], d[i].samples[1], d[i].pct[0], d[i].pct[1],
			d[i].delta);
		if (d[i].pct[0] > 0)
			fprintf(out, "%.2f}", d[i].pct[1] / d[i].pct[0]);
		else
			fprintf(out, "null}");
	}
	fprintf(out, "%s]\n}\n", first ? "" : "\n  ");
}

void report_print_diff(FILE *out, const struct report *base, const struct report *cur,
		       const struct report_opts *o)
{
	const struct report *r[2] = { base, cur };
	size_t n;
	struct diff_row *d = diff_rows(r, o, &n);

	if (!d)
		return;
	if (o->format == FMT_CSV)
		diff_csv(out, o, d, n);
	else if (o->format == FMT_JSON)
		diff_json(out, r, o, d, n);
	else
		diff_text(out, r, o, d, n);
	free(d);
}

/* ---- diff of folded stacks ---- */

struct dfold {
	char *path;		/* into a report's folded text */
	uint64_t n[2];		/* base, cur */
};

static int cmp_dfold_path(const void *pa, const void *pb)
{
	return strcmp(((const struct dfold *)pa)->path, ((const struct dfold *)pb)->path);
}

static uint64_t dfold_change(const struct dfold *d)
{
	return d->n[0] > d->n[1] ? d->n[0] - d->n[1] : d->n[1] - d->n[0];
}

static int cmp_dfold(const void *pa, const void *pb)
{
	uint64_t a = dfold_change(pa), b = dfold_change(pb);

	if (a != b)
		return a > b ? -1 : 1;
	return cmp_dfold_path(pa, pb);
}

/*
 * r's folded lines into *v from *n on, side k's count set (the other 0);
 * the lines cut in place in *text, which the caller frees.  0 or -1.
 */
static int dfold_read(const struct report *r, const struct report_opts *o, int k,
		      char **text, struct dfold **v, size_t *n, size_t *cap)
{
	struct report_opts fo = *o;
	char *line, *save = NULL;
	size_t len = 0;
	FILE *m;

	fo.format = FMT_FOLDED;
	fo.cutoff = 0;	/* a path cut on one side would read as 0 there */
	m = open_memstream(text, &len);
	if (!m)
		return -1;
	report_print(m, r, &fo);
	if (fclose(m))
		return -1;
	for (line = strtok_r(*text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			struct dfold *nv = realloc(*v, nc * sizeof(**v));

			if (!nv)
				return -1;
			*v = nv;
			*cap = nc;
		}
		(*v)[*n].path = line;
		(*v)[*n].n[k] = strtoull(sp + 1, NULL, 10);
		(*v)[*n].n[!k] = 0;
		(*n)++;
	}
	return 0;
}

int report_print_diff_folded(FILE *out, const struct report *base, const struct report *cur,
			     const struct report_opts *o)
{
	char *text[2] = { NULL, NULL };
	struct dfold *v = NULL;
	size_t n = 0, cap = 0, i, k;
	int ret = -1;

	if (dfold_read(base, o, 0, &text[0], &v, &n, &cap) ||
	    dfold_read(cur, o, 1, &text[1], &v, &n, &cap))
		goto out;
	/* one line a path: a path in both has its two lines added up */
	qsort(v, n, sizeof(*v), cmp_dfold_path);
	for (i = 0, k = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1].path, v[i].path)) {
			v[k - 1].n[0] += v[i].n[0];
			v[k - 1].n[1] += v[i].n[1];
			continue;
		}
		v[k++] = v[i];
	}
	qsort(v, k, sizeof(*v), cmp_dfold);
	for (i = 0; i < k; i++)
		fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", v[i].path, v[i].n[0], v[i].n[1]);
	ret = 0;
out:
	free(v);
	free(text[0]);
	free(text[1]);
	return ret;
}

time_t next_off_time(time_t now, int hour)
{
	struct tm tm;
	time_t t;

	localtime_r(&now, &tm);
	tm.tm_hour = hour % 24;
	tm.tm_min = 0;
	tm.tm_sec = 0;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t <= now) {
		tm.tm_mday++;
		tm.tm_hour = hour % 24;
		tm.tm_isdst = -1;
		t = mktime(&tm);
	}
	return t;
}

