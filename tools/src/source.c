// SPDX-License-Identifier: GPL-2.0-only
/*
 * source - what takes the samples (PRF_SETSOURCE): the timer, or a PMU
 * counter of an event, a sample every PERIOD events or about hz a second.
 * The names and what a report says of it; the options and the device's
 * side are cmd_source.c's.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprf.h"
#include "model.h"
#include "modes.h"
#include "snapshot.h"
#include "source.h"

/* perf's names, by PRF_EVENT_* (uapi/linux/prf.h) */
static const char *const events[PRF_NR_EVENTS] = {
	[PRF_EVENT_CYCLES] = "cycles",
	[PRF_EVENT_INSTRUCTIONS] = "instructions",
	[PRF_EVENT_CACHE_MISSES] = "cache-misses",
	[PRF_EVENT_BRANCH_MISSES] = "branch-misses",
	[PRF_EVENT_REF_CYCLES] = "ref-cycles",
};

const char *event_name(uint32_t event)
{
	return event < PRF_NR_EVENTS ? events[event] : NULL;
}

int event_parse(const char *s)
{
	int i;

	for (i = 0; s && i < PRF_NR_EVENTS; i++)
		if (!strcmp(s, events[i]))
			return i;
	return -1;
}

const char *source_describe(uint32_t source, uint32_t event, uint64_t period, uint32_t hz,
			    char *buf, size_t len)
{
	const char *e = event_name(event) ? event_name(event) : "?";

	if (source != PRF_SOURCE_PMU)
		snprintf(buf, len, "timer, %u Hz", hz);
	else if (period)
		snprintf(buf, len, "PMU %s, a sample every %" PRIu64 " %s", e, period, e);
	else
		snprintf(buf, len, "PMU %s, about %u samples a second", e, hz);
	return buf;
}

int ext_is_pmu(const struct snap_ext *x)
{
	return x && x->has_source && x->source == PRF_SOURCE_PMU;
}

/* The extension that says the report's source: b's, else prf top's. */
static const struct snap_ext *report_src(const struct report *r)
{
	return r->b && r->b->ext ? r->b->ext : r->src;
}

const char *report_unit(const struct report *r)
{
	const struct snap_ext *x = report_src(r);

	if (ext_is_pmu(x) && report_mode(r) == PRF_MODE_TIME && event_name(x->event))
		return event_name(x->event);
	return mode_unit(report_mode(r));
}

/*
 * The PMU's totals between the report's two snapshots: b's less a's when
 * a is of the PMU too and none of its totals is above b's (else the
 * instance was cleared or reloaded between them, and b's totals are the
 * interval's).  0 when b is not of the PMU source in the time mode.
 */
struct pmu_span {
	uint64_t count, taken, nmi, enabled, running;
};

static int pmu_span(const struct report *r, struct pmu_span *d)
{
	const struct snap_ext *xb = report_src(r);
	const struct snap_ext *xa = r->a ? r->a->ext : NULL;

	if (!ext_is_pmu(xb) || report_mode(r) != PRF_MODE_TIME)
		return 0;
	d->count = xb->pmu_count;
	d->taken = xb->ticks_sampled;
	d->nmi = xb->samples_nmi;
	d->enabled = xb->pmu_enabled_ns;
	d->running = xb->pmu_running_ns;
	if (ext_is_pmu(xa) && xa->pmu_count <= d->count && xa->ticks_sampled <= d->taken &&
	    xa->samples_nmi <= d->nmi && xa->pmu_enabled_ns <= d->enabled &&
	    xa->pmu_running_ns <= d->running) {
		d->count -= xa->pmu_count;
		d->taken -= xa->ticks_sampled;
		d->nmi -= xa->samples_nmi;
		d->enabled -= xa->pmu_enabled_ns;
		d->running -= xa->pmu_running_ns;
	}
	return 1;
}

double report_weight(const struct report *r)
{
	const struct snap_ext *xb = report_src(r);
	struct pmu_span d;

	if (!pmu_span(r, &d))
		return 0;
	if (xb->period)
		return (double)xb->period;
	return d.taken ? (double)d.count / (double)d.taken : 0;
}

const char *fmt_events(double v, char *buf, size_t len)
{
	if (v < 1e10)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e13)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else
		snprintf(buf, len, "%.2fT", v / 1e12);
	return buf;
}

int report_all_nmi(const struct report *r)
{
	struct pmu_span d;

	return pmu_span(r, &d) && d.taken && d.nmi == d.taken;
}

void source_header(FILE *out, const struct report *r)
{
	const struct snap_ext *xb = report_src(r);
	struct pmu_span d;
	char buf[128];

	if (!pmu_span(r, &d))
		return;
	fprintf(out, "source: %s; counts in %s (%.0f a sample)\n",
		source_describe(xb->source, xb->event, xb->period, r->b ? r->b->hz : 0, buf,
				sizeof(buf)),
		report_unit(r), report_weight(r));
	if (d.taken && d.nmi < d.taken)
		fprintf(out, "samples in NMI: %" PRIu64 " of %" PRIu64 ": the PMU's interrupt is "
			"no NMI here, so code that runs with interrupts off is not seen (its "
			"time lands where they come back on)\n", d.nmi, d.taken);
	if (d.running < d.enabled)
		fprintf(out, "the counters ran %.1f%% of the time they were on: other perf users "
			"had the PMU the rest, which no sample covers\n",
			100.0 * (double)d.running / (double)d.enabled);
}
