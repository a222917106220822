/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * irqoff - what the timer cannot see.  prf samples from an hrtimer, a
 * hardware interrupt: while a CPU runs with interrupts disabled the sample
 * waits, and is taken at the first instruction after they come back on.
 * The time of a section run with interrupts off is counted where it ends,
 * in the function that turns them back on (a re-enable point), and never
 * in the code that ran.  Time-mode reports mark those functions ('*'), say
 * what share of the kernel's samples they hold, and with call stacks can
 * charge such a sample to the caller that held interrupts off
 * (--irqoff-to-caller).  A PMU source sampling in NMI places that time
 * itself; it has nothing to mark.
 */
#ifndef PRF_IRQOFF_H
#define PRF_IRQOFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

struct stackview;
struct sv_stack;

/* --irqoff-to-caller (prfpr, prf record): beside cmd.h's and stacks.h's. */
#define OPT_IRQOFF_TO_CALLER 1950

/* The mark of a re-enable point in the text reports, after its name. */
#define IRQOFF_MARK "*"
/* What the share of the re-enable points is (the end of the reports' line). */
#define IRQOFF_NOTE "time spent with interrupts off in code before them, which the " \
	"timer cannot sample; a PMU (NMI) source places it."

/*
 * irqoff_reenable - 1 when the kernel function name (as kallsyms spells
 * it: "name", "name.isra.0", or a bucket's "name+0x40") turns interrupts
 * back on in its own code after a section its caller or the kernel's entry
 * ran with them off, so that a timer's samples in it hold the time of code
 * before it.  The one rule; its reasons are in irqoff.c.
 */
int irqoff_reenable(const char *name);

/*
 * irqoff_helper - 1 when a caller frame so named is a lock or interrupt
 * helper, which --irqoff-to-caller passes over (as it does re-enable
 * points) to find the function that held interrupts off.
 */
int irqoff_helper(const char *name);

/*
 * irqoff_applies - 1 when r's samples are held off by disabled interrupts
 * in time mode (the timer's, or a PMU's whose interrupt is no NMI there),
 * the reports where re-enable points are marked; not when every sample
 * came from the PMU in NMI, which sees inside code with interrupts off.
 */
int irqoff_applies(const struct report *r);

/* Is row entry idx of r a kernel function that is a re-enable point? */
int irqoff_entry(const struct report *r, size_t idx);

/*
 * The samples of r's re-enable points (every kernel row, whatever the
 * filter shows), and their share of the kernel's samples (kernel +
 * outside), in percent; 0 when irqoff_applies() is not.
 */
uint64_t irqoff_samples(const struct report *r);
double irqoff_share(const struct report *r);

/*
 * The report's lines about it (text): what --irqoff-to-caller moved when it
 * was applied, and "N.N% of kernel samples landed where interrupts are
 * re-enabled (marked *): ..." when any sample did.  Cut to width columns
 * (0: no limit).  Nothing when irqoff_applies() is not.  The number of
 * lines printed (irqoff_lines() counts them beforehand).
 */
int irqoff_print(FILE *out, const struct report *r, int width);
int irqoff_lines(const struct report *r);
/* The sentence itself, for the other formats (HTML, pprof): malloc'ed, or NULL. */
char *irqoff_sentence(const struct report *r);
/* ... and the one of --irqoff-to-caller (NULL when it was not applied). */
char *irqoff_moved_sentence(const struct report *r);

/*
 * irqoff_to_caller - --irqoff-to-caller on r: each stack whose leaf is a
 * re-enable point is charged to its first caller that is not a lock or
 * interrupt helper; the rows follow (the samples move from the leaf's
 * entry to the caller's when the table holds it), and every later
 * stacks_of_report(r) gives the cut stacks.  0, 1 when r has no stacks, -1
 * (err) when they cannot be read.
 */
int irqoff_to_caller(struct report *r, char *err, size_t errlen);

/*
 * irqoff_charged - the frame a stack's samples are charged to: its index
 * (1 or more) when the leaf is a re-enable point and a caller that is
 * neither a re-enable point nor a helper is in the stack, else 0.
 */
uint32_t irqoff_charged(const struct sv_stack *s);
/* Cut sv's stacks so (stacks_of_report() does it when r asks for it). */
void irqoff_cut_stacks(struct stackview *sv);

#endif /* PRF_IRQOFF_H */
