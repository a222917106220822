// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_source - the source in the commands: -e/--event EVENT[:PERIOD],
 * --event list, setting it on a device, turning ON and why it failed, and what
 * prfstat says of it (source.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprf.h"
#include "cmd.h"
#include "modes.h"
#include "source.h"

/* What --event list and the refusals say where there is no PMU. */
#define NO_PMU "no hardware PMU here (a virtual machine?): use the timer"

int parse_event_opt(const char *opt, const char *s, struct source_opt *o)
{
	char *dup = strdup(s ? s : ""), *colon;
	uint64_t period = 0;
	int e;

	if (!dup)
		return usage_error("%s", strerror(ENOMEM));
	colon = strchr(dup, ':');
	if (colon)
		*colon++ = '\0';
	if (!strcmp(dup, "list") && !colon) {
		free(dup);
		o->list = 1;
		return 0;
	}
	if (!strcmp(dup, "timer") && !colon) {
		free(dup);
		o->set = 1;
		o->source = PRF_SOURCE_TIMER;
		o->event = 0;
		o->period = 0;
		return 0;
	}
	e = event_parse(dup);
	if (colon && (parse_u64(colon, &period, 10) || period < PRF_PERIOD_MIN ||
		      period > PRF_PERIOD_MAX))
		e = -1;
	free(dup);
	if (e < 0)
		return usage_error("%s %s: want EVENT[:PERIOD], EVENT one of cycles, "
				   "instructions, cache-misses, branch-misses, ref-cycles and "
				   "PERIOD %d..%llu events a sample (default: about the rate, "
				   "--hz); or 'timer', or 'list'", opt, s, PRF_PERIOD_MIN,
				   (unsigned long long)PRF_PERIOD_MAX);
	o->set = 1;
	o->source = PRF_SOURCE_PMU;
	o->event = (uint32_t)e;
	o->period = period;
	return 0;
}

int apply_source(struct prf *p, const char *dev, const struct source_opt *o)
{
	struct prf_source cur;
	int ret;

	if (!o->set)
		return 0;
	ret = prf_get_source(p, &cur);
	if (ret == -EINVAL || ret == -ENOTTY) {
		if (o->source == PRF_SOURCE_TIMER)
			return 0;	/* a module of the timer alone */
		return msg("%s: --event: the device has no PMU source (a prf module before "
			   "version 6 of struct prf_info)", dev), 1;
	}
	if (ret)
		return dev_fail(dev, "PRF_GETSOURCE", ret);
	/* A new source zeroes the counters: only set it when it changes. */
	if (cur.source == o->source && cur.event == o->event && cur.period == o->period)
		return 0;
	ret = prf_set_source(p, o->source, o->event, o->period);
	return ret ? dev_fail(dev, "PRF_SETSOURCE", ret) : 0;
}

int print_events(struct prf *p, const char *dev)
{
	uint32_t mask = 0;
	int ret = prf_get_events(p, &mask), i;

	if (ret == -EINVAL || ret == -ENOTTY)
		return msg("%s: --event list: the device has no PMU source (a prf module "
			   "before version 6 of struct prf_info)", dev), 1;
	if (ret)
		return dev_fail(dev, "PRF_GETEVENTS", ret);
	if (!mask) {
		printf("%s\n", NO_PMU);
		return 0;
	}
	for (i = 0; i < PRF_NR_EVENTS; i++)
		if (mask & (1U << i))
			printf("%s\n", event_name((uint32_t)i));
	return 0;
}

int source_check(struct prf *p, const char *dev, const struct source_opt *o)
{
	uint32_t mask = 0;
	int ret;

	if (!o->set || o->source != PRF_SOURCE_PMU)
		return 0;
	ret = prf_get_events(p, &mask);
	if (ret == -EINVAL || ret == -ENOTTY)
		return msg("%s: --event: the device has no PMU source (a prf module before "
			   "version 6 of struct prf_info)", dev), 1;
	if (ret)
		return dev_fail(dev, "PRF_GETEVENTS", ret);
	if (mask & (1U << o->event))
		return 0;
	if (mask)
		msg("%s: %s: this PMU has no such event (see 'prfstat --event list')", dev,
		    event_name(o->event));
	else
		msg("%s: %s: %s", dev, event_name(o->event), NO_PMU);
	return 1;
}

int source_on_failed(struct prf *p, const char *dev, int ret)
{
	struct prf_source src;
	uint32_t mask = 0;

	if ((ret != -ENODEV && ret != -EOPNOTSUPP) || prf_get_source(p, &src) ||
	    src.source != PRF_SOURCE_PMU)
		return 0;
	if (ret == -EOPNOTSUPP) {
		msg("%s: sampling on %s: %s (the PMU cannot interrupt on it, or the kernel has "
		    "no perf events): use the timer", dev, event_name(src.event) ?
		    event_name(src.event) : "?", strerror(-ret));
		return 1;
	}
	if (!prf_get_events(p, &mask) && mask)
		msg("%s: sampling on %s: %s (this PMU has no %s: see '%s --event list')", dev,
		    event_name(src.event) ? event_name(src.event) : "?", strerror(-ret),
		    event_name(src.event) ? event_name(src.event) : "such event", "prfstat");
	else
		msg("%s: sampling on %s: %s", dev, event_name(src.event) ?
		    event_name(src.event) : "?", NO_PMU);
	return 1;
}

void source_status(FILE *out, const struct prf_info *in)
{
	char buf[128];
	double ran;

	if (in->version < 6 || in->size < PRF_INFO_SIZE_V6) {
		fprintf(out, "%-15s timer (the module has no other)\n", "source");
		return;
	}
	fprintf(out, "%-15s %s\n", "source",
		source_describe(in->source, in->event, in->period, in->hz, buf, sizeof(buf)));
	if (in->source != PRF_SOURCE_PMU)
		return;
	fprintf(out, "%-15s %" PRIu64 " of %" PRIu64 "%s\n", "samples in NMI",
		(uint64_t)in->samples_nmi, (uint64_t)in->ticks_sampled,
		in->ticks_sampled && !in->samples_nmi ?
		" (not NMIs: code that runs with interrupts off is not seen)" : "");
	fprintf(out, "%-15s %" PRIu64 "\n", event_name(in->event) ? event_name(in->event) : "events",
		(uint64_t)in->pmu_count);
	ran = in->pmu_enabled_ns ? 100.0 * (double)in->pmu_running_ns /
				   (double)in->pmu_enabled_ns : 100.0;
	fprintf(out, "%-15s %.1f%% of %.3f s%s\n", "counter ran", ran,
		(double)in->pmu_enabled_ns / 1e9,
		ran < 100.0 ? " (the rest multiplexed out by other perf users: lost)" : "");
	fprintf(out, "%-15s %" PRIu64 "%s\n", "throttled", (uint64_t)in->pmu_throttled,
		in->pmu_throttled ? " (perf's rate limit stopped a counter until the next tick)" :
				    "");
	if (in->status & PRF_STATUS_ON)
		fprintf(out, "%-15s %u\n", "counters", in->pmu_cpus);
}

/*
 * Turning ON refused with ENOSPC: the instance's charge does not fit in
 * the sample budget of one of its CPUs (uapi/linux/prf.h: an event mode's
 * PRF_CHARGE_*, else hz, the PMU source with a period included, whose
 * charge starts there).  Says the charge, the budget, its use and what to
 * do, from PRF_GETINFO when the device has version 5.
 */
static int budget_fail(struct prf *p, const char *dev)
{
	const char *advice = "lower --hz, ";
	struct prf_info in;
	char what[64];

	if (prf_get_info(p, &in) || in.version < 5 || in.size < PRF_INFO_SIZE_V5) {
		msg("%s: cannot turn sampling on: %s (the sample budget: module parameter "
		    "sample_budget, /sys/module/prf/parameters/sample_budget)", dev,
		    strerror(ENOSPC));
		return 1;
	}
	if (in.mode != PRF_MODE_TIME) {
		snprintf(what, sizeof(what), "the %s mode (%u samples/s)",
			 mode_name(in.mode) ? mode_name(in.mode) : "?",
			 in.mode == PRF_MODE_CALLS ? PRF_CHARGE_CALLS :
			 in.mode == PRF_MODE_OFFCPU ? PRF_CHARGE_OFFCPU :
			 PRF_CHARGE_ALLOC);
		advice = "";
	} else {
		snprintf(what, sizeof(what), "%u Hz", in.hz);
	}
	msg("%s: cannot turn sampling on: %s would take a CPU past the sample "
	    "budget, %u samples/s per CPU, of which %u are in use; %sturn "
	    "another profile off, or raise the module parameter sample_budget "
	    "(/sys/module/prf/parameters/sample_budget)", dev, what,
	    in.sample_budget, in.budget_used, advice);
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
