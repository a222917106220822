// SPDX-License-Identifier: GPL-2.0
/*
 * prf - tables, per-CPU sampling timers, PC classification and counting,
 * and CPU hotplug.  The rules that make the timer callback lock-free are in
 * prf.h.  The counting path, prf_sample(), is shared by the timer callback
 * (hard irq) and the PMU source's overflow handler (prf_pmu.c: hard irq or
 * NMI): everything it does is allowed in NMI (prf.h, "The PMU source").
 */
#include <linux/cgroup.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>

#include "prf.h"
#include "prf_compat.h"

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

/*
 * n is at most PRF_MAX_ADDRS_LIMIT.  The size comes from user space: a
 * failure is reported as ENOMEM, without a warning, and must not wake the
 * OOM killer.
 */
struct prf_table *prf_table_alloc(u32 n)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_table *tab;

	tab = kzalloc(sizeof(*tab), GFP_KERNEL_ACCOUNT);
	if (!tab)
		return NULL;
	kref_init(&tab->ref);
	tab->n = n;
	tab->slot = kvcalloc(n, sizeof(*tab->slot), gfp);
	tab->index = kvmalloc_array(prf_index_entries(n), sizeof(*tab->index),
				    gfp);
	if (!tab->slot || !tab->index) {
		prf_table_put(tab);
		return NULL;
	}
	tab->mem = sizeof(*tab) + n * sizeof(*tab->slot) +
		   prf_index_entries(n) * sizeof(*tab->index);
	return tab;
}

/* Copies the n addresses of a write() into the table's slots. */
int prf_table_fill(struct prf_table *tab, const u64 __user *addrs)
{
	u64 chunk[32];
	u32 i, j, nr;

	for (i = 0; i < tab->n; i += nr) {
		nr = min_t(u32, ARRAY_SIZE(chunk), tab->n - i);
		if (copy_from_user(chunk, addrs + i, nr * sizeof(*chunk)))
			return -EFAULT;
		for (j = 0; j < nr; j++)
			tab->slot[i + j].addr = chunk[j];
	}
	return 0;
}

static void prf_table_release(struct kref *ref)
{
	struct prf_table *tab = container_of(ref, struct prf_table, ref);

	kvfree(tab->index);
	kvfree(tab->slot);
	kfree(tab);
}

/* Another reference to a table the caller holds one of (see prf.h). */
void prf_table_get(struct prf_table *tab)
{
	kref_get(&tab->ref);
}

/* Drops a reference (none for NULL); the last one frees the table. */
void prf_table_put(struct prf_table *tab)
{
	if (tab)
		kref_put(&tab->ref, prf_table_release);
}

/* A new table's counters start at 0 (kvcalloc); this is for PRF_CLEAR. */
void prf_table_zero(struct prf_table *tab)
{
	u32 i;

	for (i = 0; i < tab->n; i++)
		atomic64_set(&tab->slot[i].count, 0);
}

/* The CPUs an instance may have a timer on (whatever its flags). */
static bool prf_covers(const struct prf_inst *inst, unsigned int cpu)
{
	return inst->cpu == PRF_ALL_CPUS || inst->cpu == cpu;
}

/* @cpu's tallies of @inst, which must cover @cpu. */
static struct prf_cpu_counts *prf_counts_of(struct prf_inst *inst,
					    unsigned int cpu)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return per_cpu_ptr(inst->cpu_counts, cpu);
	return &inst->counts;
}

struct prf_cpu_counts *prf_counts_here(struct prf_inst *inst)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return this_cpu_ptr(inst->cpu_counts);
	return &inst->counts;
}

/*
 * Bytes of tallies an instance holds: one set per possible CPU for all
 * CPUs, one set for one CPU, both for a private instance (PRF_SETCPU).
 */
size_t prf_counts_mem(const struct prf_inst *inst)
{
	size_t mem = 0;

	if (inst->cpu_counts)
		mem += num_possible_cpus() * sizeof(struct prf_cpu_counts);
	if (inst->cpu != PRF_ALL_CPUS || inst->private)
		mem += sizeof(struct prf_cpu_counts);
	return mem;
}

/* Every set the instance has, covered now or not (PRF_SETCPU). */
void prf_tallies_zero(struct prf_inst *inst)
{
	unsigned int cpu, t;

	for (t = 0; t < PRF_NR_TALLIES; t++)
		atomic64_set(&inst->counts.tally[t], 0);
	if (!inst->cpu_counts)
		return;
	for_each_possible_cpu(cpu)
		for (t = 0; t < PRF_NR_TALLIES; t++)
			atomic64_set(&per_cpu_ptr(inst->cpu_counts, cpu)->tally[t],
				     0);
}

/*
 * The counts outside the table, for a new table, a clear, a filter, a CPU
 * or a source; under inst->lock, and cpus_read_lock() while ON (the PMU
 * source's totals, prf.h).
 */
void prf_reset_counts(struct prf_inst *inst)
{
	lockdep_assert_held(&inst->lock);
	prf_tallies_zero(inst);
	prf_tasks_zero(inst->tasks, inst->on);
	prf_stacks_zero(inst->stacks, inst->on);
	prf_uobjs_zero(inst->uobjs, inst->on);
	prf_mode_reset(inst);
	prf_pmu_reset(inst);
	inst->on_ns = 0;
	inst->on_since = ktime_get();
}

u64 prf_tally_read(struct prf_inst *inst, enum prf_tally t)
{
	unsigned int cpu;
	u64 sum = 0;

	for_each_possible_cpu(cpu)
		if (prf_covers(inst, cpu))
			sum += atomic64_read(&prf_counts_of(inst, cpu)->tally[t]);
	return sum;
}

/*
 * PRF_GETCPUTALLIES (uapi): the tallies are atomics the instance holds for
 * its lifetime, read without inst->lock; only which set a CPU's are in
 * depends on inst->cpu (PRF_SETCPU, under that lock), taken once.  A stale
 * choice reads the set the instance used a moment ago, which it still
 * has.  Entries gather on the stack and go out a few at a time.
 */
int prf_get_cpu_tallies(struct prf_inst *inst,
			struct prf_cpu_tallies __user *ut)
{
	struct prf_cpu_tally chunk[4], *e;
	struct prf_cpu_tally __user *dst;
	struct prf_cpu_tallies req;
	struct prf_cpu_counts *cc;
	u32 nr = 0, filled = 0, ncpus = 0;
	unsigned int cpu;
	int icpu;

	if (copy_from_user(&req, ut, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.pad)
		return -EINVAL;
	dst = u64_to_user_ptr(req.cpus);
	mutex_lock(&inst->lock);
	icpu = inst->cpu;
	mutex_unlock(&inst->lock);

	for_each_possible_cpu(cpu) {
		if (icpu != PRF_ALL_CPUS && icpu != (int)cpu)
			continue;
		ncpus++;
		if (nr + filled >= req.nr)
			continue;
		cc = icpu == PRF_ALL_CPUS ? per_cpu_ptr(inst->cpu_counts, cpu) :
					    &inst->counts;
		e = &chunk[filled];
		memset(e, 0, sizeof(*e));
		e->cpu = cpu;
		e->sampled = atomic64_read(&cc->tally[PRF_TALLY_SAMPLED]);
		e->filtered = atomic64_read(&cc->tally[PRF_TALLY_FILTERED]);
		e->user = atomic64_read(&cc->tally[PRF_TALLY_USER]);
		e->idle = atomic64_read(&cc->tally[PRF_TALLY_IDLE]);
		e->outside = atomic64_read(&cc->tally[PRF_TALLY_OUTSIDE]);
		e->lost = atomic64_read(&cc->tally[PRF_TALLY_LOST]);
		e->noregs = atomic64_read(&cc->tally[PRF_TALLY_NOREGS]);
		e->nmi = atomic64_read(&cc->tally[PRF_TALLY_NMI]);
		if (++filled < ARRAY_SIZE(chunk))
			continue;
		if (copy_to_user(dst + nr, chunk, sizeof(chunk)))
			return -EFAULT;
		nr += filled;
		filled = 0;
		cond_resched();
	}
	if (filled && copy_to_user(dst + nr, chunk, filled * sizeof(*chunk)))
		return -EFAULT;
	req.nr = nr + filled;
	req.ncpus = ncpus;
	return copy_to_user(ut, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * Checks that the addresses are strictly ascending and builds the lookup
 * index: buckets of 2^shift bytes from the first address, the smallest power
 * of two that needs no more than 2n buckets to reach the last.
 */
bool prf_table_index(struct prf_table *tab)
{
	const struct prf_slot *a = tab->slot;
	u32 n = tab->n, i, b;
	u64 span;

	for (i = 1; i < n; i++)
		if (a[i].addr <= a[i - 1].addr)
			return false;

	span = a[n - 1].addr - a[0].addr;
	tab->shift = 0;
	while ((span >> tab->shift) > 2 * (u64)n - 1)
		tab->shift++;
	tab->nbuckets = (u32)(span >> tab->shift) + 1;

	i = 0;
	for (b = 0; b < tab->nbuckets; b++) {
		u64 start = (u64)b << tab->shift;	/* offset from a[0] */

		while (i + 1 < n && a[i + 1].addr - a[0].addr <= start)
			i++;
		tab->index[b] = i;
	}
	tab->index[tab->nbuckets] = n - 1;
	return true;
}

/* The slot of the largest address <= pc; pc >= the first address. */
struct prf_slot *prf_table_lookup(const struct prf_table *tab, u64 pc)
{
	const struct prf_slot *slot = tab->slot;
	u64 b = (pc - slot[0].addr) >> tab->shift;
	u32 lo, hi, mid;

	if (b >= tab->nbuckets)
		return &tab->slot[tab->n - 1];
	lo = tab->index[b];
	hi = tab->index[b + 1];
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (slot[mid].addr <= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &tab->slot[lo];
}

/* Sampling */

/*
 * Idle as the scheduler counts it: the idle task, interrupted with nothing
 * but this sampling interrupt beneath us (no other hardirq, softirq or NMI).
 * The sampling interrupt is a hard irq (the timer, or the PMU's overflow
 * without NMI), or an NMI, whose entry adds NMI_OFFSET and HARDIRQ_OFFSET.
 */
static bool prf_interrupted_idle(void)
{
	unsigned long own = in_nmi() ? NMI_OFFSET + HARDIRQ_OFFSET :
				       HARDIRQ_OFFSET;

	return is_idle_task(current) && irq_count() == own;
}

/*
 * Whether the interrupted task passes the filter (prf.h, "Filters").  Hard
 * irq: current's struct pid and css_set cannot go while it runs, and the
 * cgroup's ancestors are read under RCU.
 */
bool prf_filter_match(const struct prf_kfilter *kf)
{
	bool in;

	if (kf->type == PRF_FILTER_TGID)
		return task_tgid(current) == kf->pid;
	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(current), kf->cgrp);
	rcu_read_unlock();
	return in;
}

/*
 * A process is named as ps names it, by its main thread: a sample of that
 * thread whose name is not the slot's (the process exec()ed another
 * program, or renamed itself) writes it, under the slot's sequence (prf.h).
 * The claim may have named the process by another thread, whose name
 * stands until the main thread is sampled.
 */
static void prf_tasks_rename(struct prf_task_slot *ts)
{
	u32 seq = READ_ONCE(ts->seq);

	if (!thread_group_leader(current) || !seq ||
	    !strncmp(ts->comm, current->comm, sizeof(ts->comm) - 1))
		return;
	WRITE_ONCE(ts->seq, seq + 1);
	smp_wmb();	/* odd before the name changes */
	memcpy(ts->comm, current->comm, sizeof(ts->comm) - 1);
	ts->comm[sizeof(ts->comm) - 1] = '\0';
	/* the name before the even sequence: PRF_GETTASKS reads it after */
	smp_store_release(&ts->seq, seq + 2);
}

/*
 * The per-process tally (prf.h): find the current process's slot, or claim
 * the first free one on its probe sequence.  A process lands in the first
 * free slot of its sequence and slots are not freed while ON, so a process
 * already kept is always found before a free slot.  Two CPUs claiming for
 * the same process race on the same first free slot: the loser sees the
 * winner's tgid there and uses it.
 */
static void prf_tasks_count(struct prf_tasktab *tt, bool user)
{
	int tgid = current->tgid, old;
	struct prf_task_slot *ts;
	u32 h, i;

	if (unlikely(!tgid))	/* an idle task in an interrupt or softirq */
		return;
	h = hash_32((u32)tgid, tt->bits);
	for (i = 0; i < tt->probe; i++) {
		ts = &tt->slot[(h + i) & (tt->nslots - 1)];
		old = atomic_read(&ts->tgid);
		if (old == tgid)
			goto found;
		if (old)
			continue;
		if (atomic_inc_return(&tt->used) > tt->capacity) {
			atomic_dec(&tt->used);
			break;
		}
		old = atomic_cmpxchg(&ts->tgid, 0, tgid);
		if (!old) {
			memcpy(ts->comm, current->comm, sizeof(ts->comm) - 1);
			ts->comm[sizeof(ts->comm) - 1] = '\0';
			/* comm before seq: PRF_GETTASKS reads it after */
			smp_store_release(&ts->seq, 2);
			goto counted;
		}
		atomic_dec(&tt->used);
		if (old == tgid)
			goto found;
	}
	atomic64_inc(&tt->dropped);
	return;
found:
	prf_tasks_rename(ts);
counted:
	atomic64_inc(user ? &ts->user : &ts->kernel);
}

/*
 * One sample of the interrupted @regs, counted in @inst (@cc: this CPU's
 * tallies of it).  Hard irq or NMI, with no lock (prf.h).
 */
void prf_sample(struct prf_inst *inst, struct prf_cpu_counts *cc,
		struct pt_regs *regs)
{
	const struct prf_table *tab = inst->tab;
	bool user, in_table = false;
	u64 pc;

	if (unlikely(!regs)) {
		atomic64_inc(&cc->tally[PRF_TALLY_NOREGS]);
		return;
	}
	/* counted apart from the attribution below, to check it */
	atomic64_inc(&cc->tally[PRF_TALLY_SAMPLED]);
	if (in_nmi())
		atomic64_inc(&cc->tally[PRF_TALLY_NMI]);
	if (inst->filter.type != PRF_FILTER_NONE &&
	    !prf_filter_match(&inst->filter)) {
		atomic64_inc(&cc->tally[PRF_TALLY_FILTERED]);
		return;
	}
	user = user_mode(regs);
	pc = instruction_pointer(regs);
	if (user) {
		if ((inst->flags & PRF_FLAG_USERPC) && pc >= tab->slot[0].addr) {
			in_table = true;
		} else {
			atomic64_inc(&cc->tally[PRF_TALLY_USER]);
			if (inst->uobjs)
				prf_uobj_note(inst->uobjs, regs);
		}
	} else if (prf_interrupted_idle()) {
		atomic64_inc(&cc->tally[PRF_TALLY_IDLE]);
		return;		/* idle is not tallied per process */
	} else if (unlikely(pc < tab->slot[0].addr)) {
		atomic64_inc(&cc->tally[PRF_TALLY_OUTSIDE]);
	} else {
		in_table = true;
	}
	if (in_table) {
		atomic64_inc(&prf_table_lookup(tab, pc)->count);
		/* the counters 0..N-1, and only they, have a stack (uapi) */
		if (inst->stacks)
			prf_stack_count(inst->stacks, regs, user);
	}
	if (inst->tasks)
		prf_tasks_count(inst->tasks, user);
}

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
 * Isolated from kernel housekeeping: nohz_full= (no timer housekeeping) or
 * isolcpus= (out of the scheduler domains).  On 7.3 the masks can be
 * replaced at run time (cpuset isolated partitions) and are published under
 * RCU (lockdep reports a read outside a read-side section); on older
 * kernels the section costs nothing.  The answer is a snapshot either way:
 * a CPU isolated while ON keeps its timer until the next ON.
 */
static bool prf_cpu_isolated(unsigned int cpu)
{
	bool isolated;

	rcu_read_lock();
	isolated = !cpumask_test_cpu(cpu, housekeeping_cpumask(HK_TYPE_TIMER)) ||
		   !cpumask_test_cpu(cpu, housekeeping_cpumask(HK_TYPE_DOMAIN));
	rcu_read_unlock();
	return isolated;
}

/*
 * The CPUs an instance samples when online: /dev/prfN its CPU, /dev/prf
 * every CPU but the isolated ones, unless PRF_FLAG_ISOLATED.  Flags only
 * change while OFF; ON charges the CPUs this gives to the sample budget
 * (inst->charged, prf_budget.c), and timers are started there alone while
 * ON, even if isolation changes in between; stopping cancels every armed
 * timer.
 */
bool prf_samples(const struct prf_inst *inst, unsigned int cpu)
{
	if (inst->cpu != PRF_ALL_CPUS)
		return inst->cpu == cpu;
	return (inst->flags & PRF_FLAG_ISOLATED) || !prf_cpu_isolated(cpu);
}

/*
 * The number of online CPUs @inst samples (as it is set now, ON or OFF),
 * and those CPUs in @mask unless it is NULL.
 */
unsigned int prf_cpus_sampled(struct prf_inst *inst, struct cpumask *mask)
{
	unsigned int cpu, nr = 0;

	lockdep_assert_held(&inst->lock);
	if (mask)
		cpumask_clear(mask);
	for_each_online_cpu(cpu) {
		if (!prf_samples(inst, cpu))
			continue;
		nr++;
		if (mask)
			cpumask_set_cpu(cpu, mask);
	}
	return nr;
}

/* @inst's timer (and PMU counter) for @cpu, which it covers */
struct prf_timer *prf_timer_of(struct prf_inst *inst, unsigned int cpu)
{
	if (inst->cpu == PRF_ALL_CPUS)
		return per_cpu_ptr(inst->timers, cpu);
	return &inst->timer;
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

/* CPUs that passed prf's hotplug state on their way up (prf.h). */
static struct cpumask prf_hp_up;

/*
 * The PMU source's counters of every CPU up of those charged at ON, made
 * disabled before any is started (prf_timers_start() starts them): one
 * that cannot be made releases the others, having counted nothing, and its
 * error is returned, so that a refused ON leaves nothing changed.  0 at
 * once with the timer.
 */
int prf_counters_open(struct prf_inst *inst)
{
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&inst->lock);
	if (inst->source != PRF_SOURCE_PMU)
		return 0;
	for_each_cpu(cpu, &prf_hp_up) {
		if (!cpumask_test_cpu(cpu, inst->charged))
			continue;
		ret = prf_pmu_open(prf_timer_of(inst, cpu), cpu);
		if (ret) {
			prf_timers_stop(inst);
			return ret;
		}
	}
	return 0;
}

/*
 * On every CPU up of those charged to the budget at ON (see above): its
 * timer, or the counter prf_counters_open() made.
 */
void prf_timers_start(struct prf_inst *inst)
{
	struct prf_timer *pt;
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	for_each_cpu(cpu, &prf_hp_up) {
		if (!cpumask_test_cpu(cpu, inst->charged))
			continue;
		pt = prf_timer_of(inst, cpu);
		if (inst->source == PRF_SOURCE_PMU) {
			prf_pmu_start(pt);
			continue;
		}
		prf_timer_seed(pt);
		smp_call_function_single(cpu, prf_timer_start_here, pt, 1);
		pt->armed = true;
	}
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

/* Every armed timer, wherever it runs now, and every counter. */
void prf_timers_stop(struct prf_inst *inst)
{
	unsigned int cpu;

	lockdep_assert_held(&inst->lock);
	if (inst->cpu != PRF_ALL_CPUS) {
		prf_timer_stop(&inst->timer, &inst->counts);
		prf_pmu_close(&inst->timer);
		return;
	}
	for_each_possible_cpu(cpu) {
		prf_timer_stop(per_cpu_ptr(inst->timers, cpu),
			       per_cpu_ptr(inst->cpu_counts, cpu));
		prf_pmu_close(per_cpu_ptr(inst->timers, cpu));
	}
}

/* CPU hotplug: timers follow their CPU going offline and coming back. */

/* Every instance, shared and private; see prf.h for the locking. */
static LIST_HEAD(prf_inst_list);
static DEFINE_MUTEX(prf_list_lock);
static enum cpuhp_state prf_hp_state;

void prf_inst_register(struct prf_inst *inst)
{
	cpus_read_lock();
	mutex_lock(&prf_list_lock);
	list_add_tail(&inst->node, &prf_inst_list);
	mutex_unlock(&prf_list_lock);
	cpus_read_unlock();
}

/* @inst is OFF: the hotplug callbacks have nothing of it left to do. */
void prf_inst_unregister(struct prf_inst *inst)
{
	cpus_read_lock();
	mutex_lock(&prf_list_lock);
	list_del(&inst->node);
	mutex_unlock(&prf_list_lock);
	cpus_read_unlock();
}

static int prf_cpu_online(unsigned int cpu)
{
	struct prf_inst *inst;
	struct prf_timer *pt;

	cpumask_set_cpu(cpu, &prf_hp_up);
	list_for_each_entry(inst, &prf_inst_list, node) {
		if (!inst->on || inst->mode != PRF_MODE_TIME ||
		    !cpumask_test_cpu(cpu, inst->charged))
			continue;
		pt = prf_timer_of(inst, cpu);
		if (inst->source == PRF_SOURCE_PMU) {
			/* not fatal: prf_info.pmu_cpus shows the CPU missing */
			if (!prf_pmu_open(pt, cpu))
				prf_pmu_start(pt);
			continue;
		}
		prf_timer_seed(pt);
		prf_timer_start_here(pt);
		pt->armed = true;
	}
	return 0;
}

static int prf_cpu_offline(unsigned int cpu)
{
	struct prf_inst *inst;

	cpumask_clear_cpu(cpu, &prf_hp_up);
	list_for_each_entry(inst, &prf_inst_list, node) {
		if (!prf_covers(inst, cpu))
			continue;
		prf_timer_cancel(prf_timer_of(inst, cpu));
		prf_pmu_close(prf_timer_of(inst, cpu));
	}
	return 0;
}

/*
 * The shared instances are on the list already; no private one can exist
 * before the char device is live (prf_init()).
 */
int prf_hotplug_init(void)
{
	int ret;

	/* with the calls: every CPU up so far enters prf_hp_up */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "prf:online",
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
