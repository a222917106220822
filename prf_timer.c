// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the hrtimer source: one pinned hard-irq hrtimer per (instance,
 * CPU), a sample per period at a random offset in it, the periods missed
 * counted as lost.  Locking and the context of the callback: prf.h.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>

#include "prf.h"
#include "prf_compat.h"

/*
 * When samples are taken (uapi/linux/prf.h): time is cut into periods of
 * exactly P = inst->period_ns, and the timer expires once in each, at
 * pt->start + offset, where pt->start is the start of the current period.
 * The offset is 0 with PRF_FLAG_FIXED, else drawn anew for every period,
 * uniformly in [0, P): one sample per period, at no privileged phase.
 */

/* Uniform in [0, @range), @range <= U32_MAX + 1. */
static u64 prf_random_below(struct prf_timer *pt, u64 range)
{
	u32 x = pt->rnd;

	/* xorshift32: cheap, and only this timer's CPU touches pt->rnd */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	pt->rnd = x;
	return ((u64)x * range) >> 32;
}

/* Where in the current period the sample falls. */
static u64 prf_offset(struct prf_timer *pt)
{
	const struct prf_inst *inst = pt->inst;

	if (inst->flags & PRF_FLAG_FIXED)
		return 0;
	return prf_random_below(pt, inst->period_ns);
}

/*
 * After the sample of the current period: moves pt->start to the next
 * period whose sample is still to come and returns the expiry there.  The
 * periods passed over (a timer late by more than the rest of its period)
 * had no sample and are counted as lost.
 */
static u64 prf_next_expiry(struct prf_timer *pt, struct prf_cpu_counts *cc,
			   u64 now)
{
	u64 period = pt->inst->period_ns;
	u64 lost = 0, expiry, skip;

	pt->start += period;
	if (unlikely(now >= pt->start + period)) {
		/* whole periods over already */
		skip = div64_u64(now - pt->start, period);
		pt->start += skip * period;
		lost = skip;
	}
	expiry = pt->start + prf_offset(pt);
	if (unlikely(expiry <= now)) {
		/* this period's sample point has passed too */
		lost++;
		pt->start += period;
		expiry = pt->start + prf_offset(pt);
	}
	if (unlikely(lost))
		atomic64_add(lost, &cc->tally[PRF_TALLY_LOST]);
	return expiry;
}

static enum hrtimer_restart prf_tick(struct hrtimer *hrt)
{
	struct prf_timer *pt = container_of(hrt, struct prf_timer, hrt);
	struct prf_cpu_counts *cc = prf_counts_here(pt->inst);

	prf_sample(pt->inst, cc, get_irq_regs());
	hrtimer_set_expires(hrt, ns_to_ktime(prf_next_expiry(pt, cc,
							     ktime_get_ns())));
	return HRTIMER_RESTART;
}

/* Timers */

void prf_timer_init(struct prf_timer *pt, struct prf_inst *inst)
{
	prf_hrtimer_setup(&pt->hrt, prf_tick, CLOCK_MONOTONIC,
			  HRTIMER_MODE_ABS_PINNED_HARD);
	pt->inst = inst;
}

/*
 * Runs on the CPU the timer is for, so the pinned timer stays there.  The
 * first period starts now; with PRF_FLAG_FIXED it starts a period later,
 * staggered on /dev/prf by cpu / nr_cpu_ids of a period so that its CPUs
 * do not all sample at the same instant.
 */
static void prf_timer_start_here(void *arg)
{
	struct prf_timer *pt = arg;
	const struct prf_inst *inst = pt->inst;
	u64 period = inst->period_ns;

	pt->start = ktime_get_ns();
	if (inst->flags & PRF_FLAG_FIXED) {
		pt->start += period;
		if (inst->cpu == PRF_ALL_CPUS)
			pt->start += div_u64(period * smp_processor_id(),
					     nr_cpu_ids);
	}
	hrtimer_start(&pt->hrt, ns_to_ktime(pt->start + prf_offset(pt)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

static void prf_timer_seed(struct prf_timer *pt)
{
	pt->rnd = get_random_u32() | 1;	/* xorshift32 must not start at 0 */
}

static void prf_timer_cancel(struct prf_timer *pt)
{
	if (pt->armed) {
		hrtimer_cancel(&pt->hrt);
		pt->armed = false;
	}
}

/*
 * Turning OFF a timer that runs late (a guest descheduled by its host, a
 * CPU held with interrupts off): the periods whose sample was due before
 * now and never taken are lost like those its callback skips, so that every
 * period covered is still counted once.  The current period's sample was
 * due if its expiry has passed; each later period that ended before now had
 * one due too.  The timer is stopped: its fields are ours to read.
 */
static void prf_timer_stop(struct prf_timer *pt, struct prf_cpu_counts *cc)
{
	u64 now, period = pt->inst->period_ns, lost = 0;

	if (!pt->armed)
		return;
	prf_timer_cancel(pt);
	now = ktime_get_ns();
	if (ktime_to_ns(hrtimer_get_expires(&pt->hrt)) <= now)
		lost = 1;
	if (now >= pt->start + 2 * period)
		lost += div64_u64(now - pt->start, period) - 1;
	if (lost)
		atomic64_add(lost, &cc->tally[PRF_TALLY_LOST]);
}

/*
 * Started on @cpu itself (smp_call_function_single() runs it there, at
 * once when called there: the online callback), so the pinned timer stays
 * on its CPU.
 */
static void prf_timer_start(struct prf_timer *pt, unsigned int cpu)
{
	prf_timer_seed(pt);
	smp_call_function_single(cpu, prf_timer_start_here, pt, 1);
	pt->armed = true;
}

/* PRF_SETSOURCE: the timer has no event and no period (its rate is hz). */
static bool prf_timer_check(const struct prf_source *src)
{
	return !src->event && !src->period;
}

/* Nothing to make, reset or report: the timer's counts are the tallies. */
const struct prf_source_ops prf_timer_source = {
	.check = prf_timer_check,
	.start = prf_timer_start,
	.stop = prf_timer_stop,
	.close = prf_timer_cancel,
};
