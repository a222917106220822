// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the calls mode (PRF_MODE_CALLS): exact calls of the table's
 * functions, counted by an ftrace_ops filtered to them.  The ABI is
 * uapi/linux/prf.h; locking and lifetimes are in prf_modes.h, the
 * context of the callback at prf_event_counts().
 */
#include <linux/cpumask.h>
#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "prf.h"
#include "prf_modes.h"

/* Calls mode */

#ifdef CONFIG_DYNAMIC_FTRACE
/*
 * ftrace calls this at the entry of every function of the filter; @ip is
 * the function's ftrace location, at or just past its table address.
 */
static void notrace prf_calls_func(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	struct prf_inst *inst = op->private;
	const struct prf_table *tab = inst->tab;
	struct prf_cpu_counts *cc = prf_event_counts(inst);

	if (!cc || !prf_may_count(inst))
		return;
	atomic64_inc(&cc->tally[PRF_TALLY_SAMPLED]);
	if (!prf_event_passes(inst)) {
		atomic64_inc(&cc->tally[PRF_TALLY_FILTERED]);
		return;
	}
	if (likely(ip >= tab->slot[0].addr))
		atomic64_inc(&prf_table_lookup(tab, ip)->count);
}

/*
 * Turning ON must cost what the table costs, whatever share of it ftrace
 * refuses: prfld's default table, every kernel text symbol, has tens of
 * thousands of addresses, a fifth to a quarter of them no traceable
 * function's entry (init, entry and noinstr text, notrace functions, __pfx_
 * padding, end sentinels).  ftrace_set_filter_ips() refuses a whole set for
 * one such address (EINVAL, the filter unchanged) without saying which,
 * and adding to a filter copies the whole filter; ftrace_location(), which
 * would say it per address, is not exported (6.1 to 7.3).  So the traceable
 * addresses are found first by tries that each replace the ops' filter
 * (reset: a try costs its own set, not the filter), then the filter is set
 * once to all of them.  A try's set doubles while ftrace accepts and halves
 * when it refuses, down to the one address refused; refused addresses
 * gather in a few sections, so the runs between them are long.  An
 * address is looked up at most a small multiple of log2(PRF_CALLS_RUN_MAX)
 * times (2.5 times on average for the full tables of 6.1 and 7.3: 47,746
 * and 67,021 addresses, 18,224 and 29,877 tries, under a second of a TCG
 * guest), and no try sets more than PRF_CALLS_RUN_MAX.
 */
#define PRF_CALLS_RUN_MAX	1024U

/*
 * Moves the traceable addresses of @ips to its front, in order, and sets
 * *@nok to their number.  -EINTR on a fatal signal: the caller is being
 * killed, and a table of a million addresses may take seconds.
 */
static int prf_calls_traceable(struct ftrace_ops *ops, unsigned long *ips,
			       u32 n, u32 *nok)
{
	u32 i = 0, ok = 0, run = 1, cnt;
	int ret;

	while (i < n) {
		if (fatal_signal_pending(current))
			return -EINTR;
		cnt = min(run, n - i);
		ret = ftrace_set_filter_ips(ops, ips + i, cnt, 0, 1);
		if (!ret) {
			memmove(ips + ok, ips + i, cnt * sizeof(*ips));
			ok += cnt;
			i += cnt;
			run = min(2 * run, PRF_CALLS_RUN_MAX);
		} else if (ret == -EINVAL) {
			if (cnt == 1)
				i++;		/* refused */
			run = max(cnt / 2, 1U);
		} else {
			return ret;
		}
		cond_resched();
	}
	*nok = ok;
	return 0;
}

/*
 * The filter, set once to the traceable addresses of the table.  Module
 * text can go between the tries and that set (a module unloaded): the set
 * is then refused and the tries run again over what was accepted, a few
 * times at most.
 */
static int prf_calls_filter(struct ftrace_ops *ops, unsigned long *ips,
			    u32 n, u32 *nok)
{
	int ret, tries;

	for (tries = 0; tries < 3; tries++) {
		ret = prf_calls_traceable(ops, ips, n, nok);
		/* an empty filter would trace every function of the kernel */
		if (ret || !*nok)
			return ret;
		ret = ftrace_set_filter_ips(ops, ips, *nok, 0, 1);
		if (ret != -EINVAL)
			return ret;
		n = *nok;
	}
	return -EAGAIN;
}

static int prf_calls_on(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;
	const struct prf_table *tab = inst->tab;
	unsigned long *ips;
	u32 i, nok = 0;
	int ret;

	ips = kvmalloc_array(tab->n, sizeof(*ips), GFP_KERNEL_ACCOUNT |
			     __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!ips)
		return -ENOMEM;
	for (i = 0; i < tab->n; i++)
		ips[i] = (unsigned long)tab->slot[i].addr;
	/* a fresh ops each time: ftrace_free_filter() leaves it used */
	memset(&ms->ops, 0, sizeof(ms->ops));
	ms->ops.func = prf_calls_func;
	ms->ops.flags = FTRACE_OPS_FL_RECURSION;
	ms->ops.private = inst;
	ret = prf_calls_filter(&ms->ops, ips, tab->n, &nok);
	kvfree(ips);
	if (!ret && nok) {
		ret = register_ftrace_function(&ms->ops);
		ms->ops_on = !ret;
	}
	if (!ret)
		ms->untraceable = tab->n - nok;
	if (!ms->ops_on)
		ftrace_free_filter(&ms->ops);
	return ret;
}

/* Unregistering waits until no CPU is in prf_calls_func() for these ops. */
static void prf_calls_off(struct prf_inst *inst)
{
	struct prf_mode_state *ms = inst->ms;

	if (!ms->ops_on)
		return;
	unregister_ftrace_function(&ms->ops);
	ftrace_free_filter(&ms->ops);
	ms->ops_on = false;
}
#else
static int prf_calls_on(struct prf_inst *inst)
{
	return -EOPNOTSUPP;
}

static void prf_calls_off(struct prf_inst *inst)
{
}
#endif

/* Counter N of the calls mode: the addresses ftrace refused at ON. */
static void prf_calls_set_untraceable(struct prf_inst *inst)
{
	struct prf_cpu_counts *cc;

	if (inst->cpu == PRF_ALL_CPUS)
		cc = per_cpu_ptr(inst->cpu_counts,
				 cpumask_first(cpu_possible_mask));
	else
		cc = &inst->counts;
	atomic64_set(&cc->tally[PRF_TALLY_USER], inst->ms->untraceable);
}

/* Mode ops (prf_modes.h) */

/* Registered, then counter N under inst->lock, as a reset sets it. */
static int prf_calls_start(struct prf_inst *inst)
{
	int ret = prf_calls_on(inst);

	if (ret)
		return ret;
	mutex_lock(&inst->lock);
	prf_calls_set_untraceable(inst);
	mutex_unlock(&inst->lock);
	return 0;
}

static void prf_calls_reset(struct prf_inst *inst)
{
	if (inst->on && inst->mode == PRF_MODE_CALLS)
		prf_calls_set_untraceable(inst);
}

const struct prf_mode_ops prf_mode_calls = {
	.supported = PRF_HAVE_CALLS_MODE,
	.charge = PRF_CHARGE_CALLS,
	.on = prf_calls_start,
	.off = prf_calls_off,
	.reset = prf_calls_reset,
};
