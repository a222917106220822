// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the PMU source (PRF_SETSOURCE, PRF_GETSOURCE, PRF_GETEVENTS): a
 * hardware performance counter per CPU, through the kernel's perf events,
 * takes the samples of PRF_MODE_TIME instead of the timer.  The ABI is in
 * uapi/linux/prf.h ("Sources"); the context the overflow handler runs in,
 * what it may touch and how long the tables live are decided below.
 * prf_inst.c makes and releases the counters where it starts and cancels
 * timers (ON and OFF, CPU hotplug); prf_sample.c counts their samples.
 *
 * inst->source, event and period change only
 * while OFF, under inst->lock (PRF_SETSOURCE), like the rate.  In
 * PRF_MODE_TIME with the PMU source, the struct prf_timer of each
 * (instance, CPU) holds a perf counter (pt->pev) instead of running its
 * hrtimer: made by perf_event_create_kernel_counter() where the timer
 * would be started (turning ON, the online callback; at ON every CPU's
 * is made disabled before any is started, so that one that cannot be
 * made leaves nothing counted) and released where
 * it would be cancelled (turning OFF, the offline callback), so pt->pev
 * changes under the same locks as the armed flags.  Making and releasing
 * a counter sleep (allocation, perf's context mutex) and take no lock of
 * ours; perf allows both with the hotplug lock held (the hard-lockup
 * watchdog does the same from its hotplug callbacks).
 * The overflow handler runs on the counter's CPU with interrupts off: in
 * NMI on x86 and on arm64 with pseudo-NMI, else in hard irq.  In NMI it
 * may interrupt a timer callback of another instance on the same CPU, or
 * anything else.  So it takes no lock, allocates nothing and touches no
 * timer: it runs prf_sample(), the timer callback's own path, every step
 * of which is NMI-safe: it reads what is fixed while ON (table, filter,
 * flags, the tally's and the stack table's set-up), increments
 * atomic64_t counters (lock-free on x86-64 and arm64, the architectures
 * prf builds for), claims slots with cmpxchg(), reads the cgroup filter
 * under rcu_read_lock() (allowed in NMI), and walks stacks into a
 * per-CPU scratch buffer of its own for NMI context (prf_stack.c), since
 * an NMI can land in the middle of a timer callback's walk.  Nothing is
 * left to do later, so no irq_work is queued.
 * Lifetime: perf_event_disable() and perf_event_release_kernel() take
 * the counter off its CPU's PMU in a function call on that CPU with
 * interrupts off, and perf calls overflow handlers with interrupts off
 * on the counter's CPU, so when they return no handler of that counter
 * is running (an NMI on that CPU ended before the call, or nested in it
 * and ended before it returned) and none can start: the guarantee of
 * hrtimer_cancel().  So, as with the timers, the table is fixed while any
 * handler can run, and an instance is freed, or the module unloaded,
 * only after every counter of it was released.
 * The counters' totals (inst->pmu_acc: events, ns enabled, ns running)
 * are read by perf_event_read_value(), which sleeps: into pmu_acc when a
 * counter is released, and from the live counters by PRF_GETINFO on top
 * of pmu_acc; a clear while ON sets pmu_acc to minus the live values.
 * pmu_acc and pt->pev change only with cpus_read_lock() and inst->lock
 * held or in the hotplug callbacks, so PRF_CLEAR and PRF_GETINFO take
 * cpus_read_lock() before inst->lock.  inst->pmu_throttled is an
 * atomic64_t the handlers increment, and the budget's checks (below).
 *
 * The sample budget (uapi "The sample budget"): with a period, the charge
 * follows the rate the counters measure, and perf holds each counter to it
 * in between.  Why measured: no bound on an event's rate is known to a
 * module on every kernel of the test bed.  Cycles run at the CPU's clock,
 * which arm64 exports nowhere (and QEMU's cycle counter runs at 1 GHz,
 * whatever the arch timer says), instructions and misses at the
 * workload's pace, and perf's own limit (kernel.perf_event_max_sample_rate)
 * is neither exported nor below the budget; charging the worst case
 * refused the ordinary periods (a 1 GHz cycle counter at 10 kHz is a
 * period of 100000).  How held: perf's event limit, the kernel side of
 * PERF_EVENT_IOC_REFRESH.  perf_event_refresh() adds to a counter's
 * allowance of overflows and enables it; perf counts the allowance down
 * in its own overflow path and, at the last one, stops the counter and
 * disables it (after calling our handler for that sample), so no
 * interrupt past the allowance happens and nothing of ours runs for it.
 * prf_pmu_start() gives each counter the first interval's allowance; the
 * checks, a delayed work item per instance (inst->pmu_hold, on the system
 * workqueue: schedule_delayed_work(), not a workqueue named, which 7.x
 * deprecates with a warning),
 * PRF_PMU_HOLD_FIRST_MS after ON and every PRF_PMU_HOLD_MS after, take
 * each counter's samples a second of time enabled since the last check
 * (pt->hold_samples, which the handler counts; a counter stopped by its
 * limit is not enabled, so the rate is the one while it ran), raise the
 * charge to the highest rate and a quarter (room for the jitter of the
 * interrupts, which would hold a counter whose rate is steady)
 * (prf_budget_raise()), and top each counter's allowance up to the next
 * interval's.  perf_event_refresh() and perf_event_read_value() sleep, so
 * the checks run in process context, with cpus_read_lock() and inst->lock
 * held as ON and OFF take them: pt->pev and inst->charged_hz cannot change
 * meanwhile, and the hotplug callbacks, which read them, are excluded.
 * The work re-arms itself only while the instance is ON with a period; ON
 * arms it (prf_pmu_started()); OFF leaves it to find the instance OFF;
 * prf_pmu_hold_cancel() waits for it before the instance is freed, with
 * no lock of ours held.
 */
#include <linux/cpu.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "prf.h"

/* prf's events and perf's generic hardware events, by PRF_EVENT_* */
static const struct {
	const char *name;	/* perf's name, and the CLI's */
	u64 config;		/* PERF_COUNT_HW_* */
} prf_events[PRF_NR_EVENTS] = {
	[PRF_EVENT_CYCLES]	= { "cycles", PERF_COUNT_HW_CPU_CYCLES },
	[PRF_EVENT_INSTRUCTIONS] = { "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	[PRF_EVENT_CACHE_MISSES] = { "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	[PRF_EVENT_BRANCH_MISSES] = { "branch-misses",
				      PERF_COUNT_HW_BRANCH_MISSES },
	[PRF_EVENT_REF_CYCLES]	= { "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

const char *prf_event_name(u32 event)
{
	return event < PRF_NR_EVENTS ? prf_events[event].name : "?";
}

/* sysfs "source": an event by its name. */
int prf_event_parse(const char *name, u32 *event)
{
	u32 i;

	for (i = 0; i < PRF_NR_EVENTS; i++) {
		if (!strcmp(name, prf_events[i].name)) {
			*event = i;
			return 0;
		}
	}
	return -EINVAL;
}

#ifdef CONFIG_PERF_EVENTS

/*
 * What perf's "throttled" looks like to an overflow handler: perf checks
 * the rate before it calls the handler and, past its limit, stops the
 * counter and marks it so until the CPU's next tick.  The mark is the
 * largest count of hw.interrupts (perf's MAX_INTERRUPTS, 6.1 to 7.3).
 */
#define PRF_PERF_THROTTLED	(~0ULL)

/*
 * The overflow handler: on the counter's CPU, interrupts off, in NMI where
 * the PMU interrupts so, else in hard irq (see the top of this file).  The
 * counter is released before its instance goes, so the instance is alive.
 */
static void prf_pmu_overflow(struct perf_event *pev,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct prf_timer *pt = pev->overflow_handler_context;
	struct prf_inst *inst = pt->inst;

	if (unlikely(READ_ONCE(pev->hw.interrupts) == PRF_PERF_THROTTLED))
		atomic64_inc(&inst->pmu_throttled);
	/* only this CPU's handler writes it; the budget's checks read it */
	WRITE_ONCE(pt->hold_samples, pt->hold_samples + 1);
	prf_sample(inst, prf_counts_here(inst), regs);
}

/*
 * A sampling counter of @event: every @period events, or about @hz a
 * second when @period is 0.  Kernel and user mode, idle too; not pinned,
 * so that other perf users share the PMU with it.
 */
static void prf_pmu_attr(struct perf_event_attr *attr, u32 event, u64 period,
			 u32 hz)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_HARDWARE;
	attr->size = sizeof(*attr);
	attr->config = prf_events[event].config;
	if (period) {
		attr->sample_period = period;
	} else {
		attr->freq = 1;
		attr->sample_freq = hz;
	}
}

/*
 * perf's errors, as the uapi states them: no PMU takes the event (ENOENT
 * from perf) is ENODEV.
 */
static int prf_pmu_error(long err)
{
	return err == -ENOENT ? -ENODEV : (int)err;
}

/*
 * The counter of @pt's instance on @cpu, made disabled: turning ON makes
 * every CPU's before it starts any (prf_pmu_start()), so that a CPU whose
 * counter cannot be made leaves nothing counted.  Process context, with
 * cpus_read_lock() and inst->lock, or in the online callback (see the top of this file).
 */
static int prf_pmu_open(struct prf_timer *pt, unsigned int cpu)
{
	struct prf_inst *inst = pt->inst;
	struct perf_event_attr attr;
	struct perf_event *pev;

	prf_pmu_attr(&attr, inst->event, inst->period, inst->hz);
	attr.disabled = 1;
	pev = perf_event_create_kernel_counter(&attr, cpu, NULL,
					       prf_pmu_overflow, pt);
	if (IS_ERR(pev))
		return prf_pmu_error(PTR_ERR(pev));
	pt->pev = pev;
	return 0;
}

/* @inst's timer on @cpu when it covers @cpu and has a counter there, or NULL. */
static struct prf_timer *prf_pmu_counter(struct prf_inst *inst,
					 unsigned int cpu)
{
	struct prf_timer *pt;

	if (inst->cpu != PRF_ALL_CPUS && inst->cpu != cpu)
		return NULL;
	pt = prf_timer_of(inst, cpu);
	return pt->pev ? pt : NULL;
}

/*
 * A counter's allowance of samples for an interval of @ms at @rate a
 * second: at least one, so that the next check measures a rate.
 */
static int prf_pmu_allowance(u32 rate, unsigned int ms)
{
	u64 n = DIV_ROUND_UP_ULL((u64)rate * ms, MSEC_PER_SEC);

	return clamp_t(u64, n, 1, INT_MAX);
}

/*
 * Starts @pt's counter (made by prf_pmu_open()), if any: with a period,
 * held to the charge (see the top of this file) for the first interval,
 * at ON or when its CPU comes online (the next check is then nearer, or
 * it gives the rest).
 */
static void prf_pmu_start(struct prf_timer *pt, unsigned int cpu)
{
	struct prf_inst *inst = pt->inst;
	int allow;

	if (!pt->pev)
		return;
	if (!inst->period) {
		perf_event_enable(pt->pev);
		return;
	}
	pt->hold_seen = READ_ONCE(pt->hold_samples);
	pt->hold_enabled = 0;
	allow = prf_pmu_allowance(inst->charged_hz, PRF_PMU_HOLD_FIRST_MS);
	perf_event_refresh(pt->pev, allow);
}

/* Whether the budget's checks hold @inst's counters (the top of this file). */
static bool prf_pmu_holds(struct prf_inst *inst)
{
	return inst->on && inst->mode == PRF_MODE_TIME &&
	       inst->source == PRF_SOURCE_PMU && inst->period;
}

/*
 * A check of the budget, with cpus_read_lock() and inst->lock held: the
 * rate of each live counter since the last check, the charge raised to the
 * highest, and each counter's allowance topped up to the next interval's.
 * The rate is of the samples the handler took (the interrupts, which the
 * budget counts) over the time the counter was enabled, not of the events
 * counted: the interrupts of a period can come fewer than its overflows
 * (late ones cover several), and QEMU's arm64 cycle counter was seen to
 * jump by multiples of 2^32 events under perf (main's prf too).  A counter
 * that used its allowance up though the budget could not pay its rate was
 * held: pmu_throttled counts it.
 */
static void prf_pmu_hold_check(struct prf_inst *inst)
{
	u64 samples, enabled, running, rate, want = 0;
	struct prf_timer *pt;
	unsigned int cpu;
	int allow, left;
	u32 charge;

	lockdep_assert_held(&inst->lock);
	for_each_possible_cpu(cpu) {
		pt = prf_pmu_counter(inst, cpu);
		if (!pt)
			continue;
		perf_event_read_value(pt->pev, &enabled, &running);
		samples = READ_ONCE(pt->hold_samples);
		rate = 0;
		if (enabled > pt->hold_enabled)
			rate = div64_u64((samples - pt->hold_seen) * NSEC_PER_SEC,
					 enabled - pt->hold_enabled);
		pt->hold_seen = samples;
		pt->hold_enabled = enabled;
		pt->hold_rate = min_t(u64, rate, U32_MAX);
		want = max(want, rate + rate / 4);
	}
	charge = prf_budget_raise(inst, min_t(u64, want, U32_MAX));
	allow = prf_pmu_allowance(charge, PRF_PMU_HOLD_MS);
	for_each_possible_cpu(cpu) {
		pt = prf_pmu_counter(inst, cpu);
		if (!pt)
			continue;
		/* perf counts it down in NMI: at most less than read here */
		left = max(atomic_read(&pt->pev->event_limit), 0);
		if (!left && pt->hold_rate > charge)
			atomic64_inc(&inst->pmu_throttled);
		/*
		 * Also with nothing to add: enables a counter whose limit ran
		 * out as the last check refreshed it (perf disables it from
		 * an irq_work, which may come after the refresh).
		 */
		perf_event_refresh(pt->pev, max(allow - left, 0));
	}
}

static void prf_pmu_hold_work(struct work_struct *work)
{
	struct prf_inst *inst = container_of(to_delayed_work(work),
					     struct prf_inst, pmu_hold);

	cpus_read_lock();
	mutex_lock(&inst->lock);
	if (prf_pmu_holds(inst)) {
		prf_pmu_hold_check(inst);
		schedule_delayed_work(&inst->pmu_hold,
				      msecs_to_jiffies(PRF_PMU_HOLD_MS));
	}
	mutex_unlock(&inst->lock);
	cpus_read_unlock();
}

/*
 * ON started every counter: the first check of the budget, with a period.
 * A check still pending from an earlier ON is taken back first (one that
 * runs now waits for inst->lock, finds the instance ON and re-arms
 * itself; ours then changes nothing).
 */
static void prf_pmu_started(struct prf_inst *inst)
{
	if (!prf_pmu_holds(inst))
		return;
	cancel_delayed_work(&inst->pmu_hold);
	schedule_delayed_work(&inst->pmu_hold,
			      msecs_to_jiffies(PRF_PMU_HOLD_FIRST_MS));
}

/*
 * Releases @pt's counter, if any, and adds its totals to the instance's.
 * Disabled first, so that the totals are final: no handler runs after
 * perf_event_disable() returns (prf.h).
 */
static void prf_pmu_close(struct prf_timer *pt)
{
	struct prf_inst *inst = pt->inst;
	u64 enabled, running, count;

	if (!pt->pev)
		return;
	perf_event_disable(pt->pev);
	count = perf_event_read_value(pt->pev, &enabled, &running);
	perf_event_release_kernel(pt->pev);
	pt->pev = NULL;
	inst->pmu_acc[PRF_PMU_COUNT] += count;
	inst->pmu_acc[PRF_PMU_ENABLED] += enabled;
	inst->pmu_acc[PRF_PMU_RUNNING] += running;
}

/*
 * The live counters' totals into @val, and how many there are.  A private
 * instance's single timer is only used for one CPU, its per-CPU ones only
 * for all: inst->cpu says which.
 */
static u32 prf_pmu_live(struct prf_inst *inst, u64 *val)
{
	u64 enabled, running;
	struct prf_timer *pt;
	unsigned int cpu;
	u32 nr = 0;

	lockdep_assert_held(&inst->lock);
	memset(val, 0, PRF_PMU_NR_VALUES * sizeof(*val));
	for_each_possible_cpu(cpu) {
		pt = prf_pmu_counter(inst, cpu);
		if (!pt)
			continue;
		val[PRF_PMU_COUNT] += perf_event_read_value(pt->pev, &enabled,
							    &running);
		val[PRF_PMU_ENABLED] += enabled;
		val[PRF_PMU_RUNNING] += running;
		nr++;
	}
	return nr;
}

/*
 * With the counters of a new table, a clear, a filter or a CPU: the totals
 * start again from now.  While ON (PRF_CLEAR) that is minus what the live
 * counters hold, with cpus_read_lock() held (prf.h).
 */
static void prf_pmu_reset(struct prf_inst *inst)
{
	u64 live[PRF_PMU_NR_VALUES];
	int i;

	lockdep_assert_held(&inst->lock);
	atomic64_set(&inst->pmu_throttled, 0);
	if (!inst->on || inst->mode != PRF_MODE_TIME ||
	    inst->source != PRF_SOURCE_PMU) {
		memset(inst->pmu_acc, 0, sizeof(inst->pmu_acc));
		return;
	}
	prf_pmu_live(inst, live);
	for (i = 0; i < PRF_PMU_NR_VALUES; i++)
		inst->pmu_acc[i] = -live[i];
}

/*
 * prf_info's pmu_* fields, with cpus_read_lock() and inst->lock held, after
 * its ticks.  With a period, the periods counted with no sample taken are
 * lost (uapi): the overflow interrupt came a period or more late, and perf
 * skipped the periods it missed.  Samples and counts are not read at one
 * instant while ON: a sample just counted may be ahead of the count.
 */
static void prf_pmu_info(struct prf_inst *inst, struct prf_info *info)
{
	u64 live[PRF_PMU_NR_VALUES], periods;

	info->pmu_cpus = prf_pmu_live(inst, live);
	info->pmu_count = inst->pmu_acc[PRF_PMU_COUNT] + live[PRF_PMU_COUNT];
	info->pmu_enabled_ns = inst->pmu_acc[PRF_PMU_ENABLED] +
			       live[PRF_PMU_ENABLED];
	info->pmu_running_ns = inst->pmu_acc[PRF_PMU_RUNNING] +
			       live[PRF_PMU_RUNNING];
	info->pmu_throttled = atomic64_read(&inst->pmu_throttled);
	if (inst->source != PRF_SOURCE_PMU || !inst->period)
		return;
	periods = div64_u64(info->pmu_count, inst->period);
	if (periods > info->ticks_sampled)
		info->ticks_lost += periods - info->ticks_sampled;
}

/* The counters PRF_GETEVENTS makes are never enabled: no overflow. */
static void prf_pmu_no_overflow(struct perf_event *pev,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
}

/*
 * PRF_GETEVENTS: each event whose sampling counter can be made on an
 * online CPU (this one: the hotplug lock keeps it online), made disabled
 * and released at once.
 */
int prf_pmu_events(u32 *mask)
{
	struct perf_event_attr attr;
	struct perf_event *pev;
	unsigned int cpu;
	u32 event;

	*mask = 0;
	cpus_read_lock();
	cpu = raw_smp_processor_id();
	for (event = 0; event < PRF_NR_EVENTS; event++) {
		prf_pmu_attr(&attr, event, PRF_PERIOD_MAX, 0);
		attr.disabled = 1;
		pev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						       prf_pmu_no_overflow, NULL);
		if (IS_ERR(pev))
			continue;
		perf_event_release_kernel(pev);
		*mask |= 1U << event;
	}
	cpus_read_unlock();
	return 0;
}

#else /* !CONFIG_PERF_EVENTS: no counter can be made (uapi: EOPNOTSUPP) */

static int prf_pmu_open(struct prf_timer *pt, unsigned int cpu)
{
	return -EOPNOTSUPP;
}

static void prf_pmu_start(struct prf_timer *pt, unsigned int cpu)
{
}

static void prf_pmu_hold_work(struct work_struct *work)
{
}

static void prf_pmu_started(struct prf_inst *inst)
{
}

static void prf_pmu_close(struct prf_timer *pt)
{
}

static void prf_pmu_reset(struct prf_inst *inst)
{
	atomic64_set(&inst->pmu_throttled, 0);
	memset(inst->pmu_acc, 0, sizeof(inst->pmu_acc));
}

static void prf_pmu_info(struct prf_inst *inst, struct prf_info *info)
{
}

int prf_pmu_events(u32 *mask)
{
	*mask = 0;
	return 0;
}

#endif /* CONFIG_PERF_EVENTS */

/* At creation and freeing of @inst: the budget's checks (the top of this file). */
void prf_pmu_hold_init(struct prf_inst *inst)
{
	INIT_DELAYED_WORK(&inst->pmu_hold, prf_pmu_hold_work);
}

void prf_pmu_hold_cancel(struct prf_inst *inst)
{
	cancel_delayed_work_sync(&inst->pmu_hold);
}

/* At OFF the totals are final when the counter is released. */
static void prf_pmu_stop(struct prf_timer *pt, struct prf_cpu_counts *cc)
{
	prf_pmu_close(pt);
}

/* PRF_SETSOURCE: one of prf's events, a period of 0 or in range. */
static bool prf_pmu_check(const struct prf_source *src)
{
	if (src->event >= PRF_NR_EVENTS)
		return false;
	return !src->period || (src->period >= PRF_PERIOD_MIN &&
				src->period <= PRF_PERIOD_MAX);
}

const struct prf_source_ops prf_pmu_source = {
	.check = prf_pmu_check,
	.open = prf_pmu_open,
	.start = prf_pmu_start,
	.started = prf_pmu_started,
	.stop = prf_pmu_stop,
	.close = prf_pmu_close,
	.reset = prf_pmu_reset,
	.info = prf_pmu_info,
};
