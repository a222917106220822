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
#include "report.h"
#include "snapshot.h"
#include "source.h"
#include "stacks.h"

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

double report_weight(const struct report *r)
{
	const struct snap_ext *xb = report_src(r);
	const struct snap_ext *xa = r->a ? r->a->ext : NULL;
	uint64_t count, taken;

	if (!ext_is_pmu(xb) || report_mode(r) != PRF_MODE_TIME)
		return 0;
	if (xb->period)
		return (double)xb->period;
	count = xb->pmu_count;
	taken = xb->ticks_sampled;
	if (ext_is_pmu(xa) && xa->pmu_count <= count && xa->ticks_sampled <= taken) {
		count -= xa->pmu_count;
		taken -= xa->ticks_sampled;
	}
	return taken ? (double)count / (double)taken : 0;
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
	const struct snap_ext *xb = report_src(r);
	const struct snap_ext *xa = r->a ? r->a->ext : NULL;
	uint64_t nmi, taken;

	if (!ext_is_pmu(xb) || report_mode(r) != PRF_MODE_TIME)
		return 0;
	nmi = xb->samples_nmi;
	taken = xb->ticks_sampled;
	if (ext_is_pmu(xa) && xa->ticks_sampled <= taken && xa->samples_nmi <= nmi) {
		nmi -= xa->samples_nmi;
		taken -= xa->ticks_sampled;
	}
	return taken && nmi == taken;
}

void source_header(FILE *out, const struct report *r)
{
	const struct snap_ext *xb = report_src(r);
	const struct snap_ext *xa = r->a ? r->a->ext : NULL;
	uint64_t nmi, taken, enabled, running;
	char buf[128];

	if (!ext_is_pmu(xb) || report_mode(r) != PRF_MODE_TIME)
		return;
	nmi = xb->samples_nmi;
	taken = xb->ticks_sampled;
	enabled = xb->pmu_enabled_ns;
	running = xb->pmu_running_ns;
	if (ext_is_pmu(xa) && xa->ticks_sampled <= taken && xa->samples_nmi <= nmi &&
	    xa->pmu_enabled_ns <= enabled && xa->pmu_running_ns <= running) {
		nmi -= xa->samples_nmi;
		taken -= xa->ticks_sampled;
		enabled -= xa->pmu_enabled_ns;
		running -= xa->pmu_running_ns;
	}
	fprintf(out, "source: %s; counts in %s (%.0f a sample)\n",
		source_describe(xb->source, xb->event, xb->period, r->b ? r->b->hz : 0, buf,
				sizeof(buf)),
		report_unit(r), report_weight(r));
	if (taken && nmi < taken)
		fprintf(out, "samples in NMI: %" PRIu64 " of %" PRIu64 ": the PMU's interrupt is "
			"no NMI here, so code that runs with interrupts off is not seen (its "
			"time lands where they come back on)\n", nmi, taken);
	if (running < enabled)
		fprintf(out, "the counters ran %.1f%% of the time they were on: other perf users "
			"had the PMU the rest, which no sample covers\n",
			100.0 * (double)running / (double)enabled);
}
