/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * source - what takes the samples (PRF_SETSOURCE): the timer or a PMU
 * counter.  The events' names, --event/-e EVENT[:PERIOD] and --event list,
 * setting it on a device, what prfstat says of it, and the unit a report
 * counts in (source.c).
 */
#ifndef PRF_SOURCE_H
#define PRF_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct prf;
struct prf_info;
struct snap_ext;
struct report;

/* Long options of the sources (stacks.h's stay below 1200). */
enum {
	OPT_EVENT = 1200,
};

/* -e/--event EVENT[:PERIOD], timer, or list. */
struct source_opt {
	int set;		/* a source asked for */
	int list;		/* --event list */
	uint32_t source, event;	/* PRF_SOURCE_*, PRF_EVENT_* */
	uint64_t period;	/* events a sample, 0: about hz a second */
};

/* perf's name of PRF_EVENT_* ("cycles", ...), or NULL. */
const char *event_name(uint32_t event);
/* PRF_EVENT_* of a name, or -1. */
int event_parse(const char *s);
/* The option's argument: 0 or EXIT_USAGE (said). */
int parse_event_opt(const char *opt, const char *s, struct source_opt *o);
/*
 * apply_source - on an OFF instance: the source asked for, set only when
 * it differs (a new source zeroes the counters).  0, or 1 (said).
 */
int apply_source(struct prf *p, const char *dev, const struct source_opt *o);
/* Before a command runs: the PMU has the event asked for.  0, or 1 (said). */
int source_check(struct prf *p, const char *dev, const struct source_opt *o);
/* --event list: the events this machine's PMU samples, one a line.  0 or 1. */
int print_events(struct prf *p, const char *dev);
/*
 * Why PRF_SETSTATE failed with @ret when the source is the PMU (ENODEV,
 * EOPNOTSUPP): said in words, 1; 0 when it is something else (not said).
 */
int source_on_failed(struct prf *p, const char *dev, int ret);
/* prfstat's lines of the source, from info version 6. */
void source_status(FILE *out, const struct prf_info *in);

/* Whether an extension holds the PMU source (the unit is its event). */
int ext_is_pmu(const struct snap_ext *x);

/*
 * report_all_nmi - 1 when r's samples come from the PMU source in time
 * mode and every one of them was taken in NMI: code with interrupts off
 * was sampled where it ran.
 */
int report_all_nmi(const struct report *r);
/* "PMU cycles, a sample every 1000000 cycles" / "... about 100 samples a second". */
const char *source_describe(uint32_t source, uint32_t event, uint64_t period, uint32_t hz,
			    char *buf, size_t len);
/* The report's header line of the source, and its NMI and lost notes (text). */
void source_header(FILE *out, const struct report *r);
/* The unit of a report's counts: "samples", the mode's unit, or the event's name. */
const char *report_unit(const struct report *r);
/*
 * Events a sample of the report stands for: the period, or with a rate
 * the events counted over the samples taken between the two snapshots; 0
 * when the source is not the PMU (a count is a sample).
 */
double report_weight(const struct report *r);

/* Events for a column of 10: whole below 10^10, else in G or T (10^9, 10^12). */
const char *fmt_events(double v, char *buf, size_t len);

#endif /* PRF_SOURCE_H */
