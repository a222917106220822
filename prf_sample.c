// SPDX-License-Identifier: GPL-2.0
/*
 * prf - tables, per-CPU sampling timers, PC classification and counting,
 * and CPU hotplug.  The rules that make the timer callback lock-free are in
 * prf.h.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hardirq.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>

#include "prf.h"

/* Tables */

/*
 * The lookup index has at most 2n + 1 entries: each bucket then holds about
 * half an address on average, so a lookup is one index read and a short
 * binary search, and the index costs less memory than the addresses.
 */
static size_t prf_index_entries(u32 n)
{
	return 2 * (size_t)n + 1;
}

struct prf_table *prf_table_alloc(u32 n)
{
	struct prf_table *tab;

	tab = kzalloc(sizeof(*tab), GFP_KERNEL_ACCOUNT);
	if (!tab)
		return NULL;
	tab->n = n;
	tab->addrs = kvmalloc_array(n, sizeof(*tab->addrs), GFP_KERNEL_ACCOUNT);
	tab->index = kvmalloc_array(prf_index_entries(n), sizeof(*tab->index),
				    GFP_KERNEL_ACCOUNT);
	tab->counts = kvcalloc(PRF_NR_BUCKETS((size_t)n), sizeof(*tab->counts),
			       GFP_KERNEL_ACCOUNT);
	if (!tab->addrs || !tab->index || !tab->counts) {
		prf_table_free(tab);
		return NULL;
	}
	tab->mem = sizeof(*tab) + n * sizeof(*tab->addrs) +
		   prf_index_entries(n) * sizeof(*tab->index) +
		   PRF_NR_BUCKETS((size_t)n) * sizeof(*tab->counts);
	return tab;
}

void prf_table_free(struct prf_table *tab)
{
	if (!tab)
		return;
	kvfree(tab->counts);
	kvfree(tab->index);
	kvfree(tab->addrs);
	kfree(tab);
}

void prf_table_zero(struct prf_table *tab)
{
	size_t i;

	for (i = 0; i < PRF_NR_BUCKETS((size_t)tab->n); i++)
		atomic64_set(&tab->counts[i], 0);
}

/*
 * Checks that the addresses are strictly ascending and builds the lookup
 * index: buckets of 2^shift bytes from addrs[0], the smallest power of two
 * that needs no more than 2n buckets to reach addrs[n - 1].
 */
bool prf_table_index(struct prf_table *tab)
{
	const u64 *a = tab->addrs;
	u32 n = tab->n, i, b;
	u64 span;

	for (i = 1; i < n; i++)
		if (a[i] <= a[i - 1])
			return false;

	span = a[n - 1] - a[0];
	tab->shift = 0;
	while ((span >> tab->shift) > 2 * (u64)n - 1)
		tab->shift++;
	tab->nbuckets = (u32)(span >> tab->shift) + 1;

	i = 0;
	for (b = 0; b < tab->nbuckets; b++) {
		u64 start = (u64)b << tab->shift;	/* offset from a[0] */

		while (i + 1 < n && a[i + 1] - a[0] <= start)
			i++;
		tab->index[b] = i;
	}
	tab->index[tab->nbuckets] = n - 1;
	return true;
}

/* The position of the largest address <= pc; pc >= addrs[0]. */
static u32 prf_lookup(const struct prf_table *tab, u64 pc)
{
	u64 b = (pc - tab->addrs[0]) >> tab->shift;
	u32 lo, hi, mid;

	if (b >= tab->nbuckets)
		return tab->n - 1;
	lo = tab->index[b];
	hi = tab->index[b + 1];
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (tab->addrs[mid] <= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Sampling */

/*
 * Idle as the scheduler counts it: the idle task, interrupted with nothing
 * but this sampling interrupt beneath us (no other hardirq, softirq or NMI).
 */
static bool prf_interrupted_idle(void)
{
	return is_idle_task(current) && irq_count() == HARDIRQ_OFFSET;
}

static void prf_sample(struct prf_inst *inst, struct pt_regs *regs)
{
	const struct prf_table *tab = inst->tab;
	u64 pc;
	u32 i;

	if (unlikely(!regs)) {
		atomic64_inc(&inst->lost);
		return;
	}
	if (user_mode(regs)) {
		i = PRF_USER_BUCKET(tab->n);
	} else if (prf_interrupted_idle()) {
		i = PRF_IDLE_BUCKET(tab->n);
	} else {
		pc = instruction_pointer(regs);
		if (unlikely(pc < tab->addrs[0])) {
			atomic64_inc(&inst->outside);
			return;
		}
		i = prf_lookup(tab, pc);
	}
	atomic64_inc(&tab->counts[i]);
}

/* The next period: exact, or uniform in [P/2, 3P/2) with PRF_FLAG_JITTER. */
static u64 prf_next_period(struct prf_timer *pt)
{
	const struct prf_inst *inst = pt->inst;
	u32 x;

	if (likely(!(inst->flags & PRF_FLAG_JITTER)))
		return inst->period_ns;
	/* xorshift32: cheap, and only this timer's CPU touches pt->rnd */
	x = pt->rnd;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	pt->rnd = x;
	return inst->period_ns / 2 + (((u64)x * inst->period_ns) >> 32);
}

static enum hrtimer_restart prf_tick(struct hrtimer *hrt)
{
	struct prf_timer *pt = container_of(hrt, struct prf_timer, hrt);
	u64 periods;

	periods = hrtimer_forward_now(hrt, ns_to_ktime(prf_next_period(pt)));
	if (unlikely(periods > 1))
		atomic64_add(periods - 1, &pt->inst->lost);
	prf_sample(pt->inst, get_irq_regs());
	return HRTIMER_RESTART;
}

/* Timers */

void prf_timer_init(struct prf_timer *pt, struct prf_inst *inst)
{
	hrtimer_init(&pt->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	pt->hrt.function = prf_tick;
	pt->inst = inst;
}

static bool prf_covers(const struct prf_inst *inst, unsigned int cpu)
{
	return inst->cpu == PRF_ALL_CPUS || inst->cpu == cpu;
}

static struct prf_timer *prf_timer_of(struct prf_inst *inst, unsigned int cpu)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return per_cpu_ptr(inst->timers, cpu);
	return &inst->timer;
}

/* Runs on the CPU the timer is for, so the pinned timer stays there. */
static void prf_timer_start_here(void *arg)
{
	struct prf_timer *pt = arg;

	hrtimer_start(&pt->hrt, ns_to_ktime(prf_next_period(pt)),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void prf_timer_seed(struct prf_timer *pt)
{
	pt->rnd = get_random_u32() | 1;	/* xorshift32 must not start at 0 */
}

void prf_timers_start(struct prf_inst *inst)
{
	struct prf_timer *pt;
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	for_each_online_cpu(cpu) {
		if (!prf_covers(inst, cpu))
			continue;
		pt = prf_timer_of(inst, cpu);
		prf_timer_seed(pt);
		smp_call_function_single(cpu, prf_timer_start_here, pt, 1);
	}
}

void prf_timers_stop(struct prf_inst *inst)
{
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	for_each_online_cpu(cpu)
		if (prf_covers(inst, cpu))
			hrtimer_cancel(&prf_timer_of(inst, cpu)->hrt);
}

/* CPU hotplug: timers follow their CPU going offline and coming back. */

static struct prf_inst **prf_hp_insts;
static unsigned int prf_hp_nr;
static enum cpuhp_state prf_hp_state;

static int prf_cpu_online(unsigned int cpu)
{
	struct prf_inst *inst;
	struct prf_timer *pt;
	unsigned int i;

	for (i = 0; i < prf_hp_nr; i++) {
		inst = prf_hp_insts[i];
		if (!inst || !inst->on || !prf_covers(inst, cpu))
			continue;
		pt = prf_timer_of(inst, cpu);
		prf_timer_seed(pt);
		prf_timer_start_here(pt);
	}
	return 0;
}

static int prf_cpu_offline(unsigned int cpu)
{
	struct prf_inst *inst;
	unsigned int i;

	for (i = 0; i < prf_hp_nr; i++) {
		inst = prf_hp_insts[i];
		if (inst && prf_covers(inst, cpu))
			hrtimer_cancel(&prf_timer_of(inst, cpu)->hrt);
	}
	return 0;
}

int prf_hotplug_init(struct prf_inst **insts, unsigned int nr)
{
	int ret;

	prf_hp_insts = insts;
	prf_hp_nr = nr;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "prf:online",
					prf_cpu_online, prf_cpu_offline);
	if (ret < 0)
		return ret;
	prf_hp_state = ret;
	return 0;
}

/* Every instance must be OFF: no timer is left to cancel. */
void prf_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(prf_hp_state);
}
