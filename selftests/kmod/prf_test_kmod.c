// SPDX-License-Identifier: GPL-2.0
/*
 * prf_test_kmod - a kernel function of known extent for prf's attribution
 * tests (selftests/prf_attrib_test).
 *
 * Writing a number of milliseconds to /proc/prf_test_kmod spins that long on
 * the writer's CPU inside prf_test_kmod_spin(), a function of its own whose
 * start and end the tests read from /proc/kallsyms.  Nearly every sample
 * taken on that CPU meanwhile has its PC inside that function.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kfence.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <trace/events/kmem.h>

#include "prf_test_kmod.h"

#define PRF_TEST_MAX_MS	10000

static u64 prf_test_kmod_sink;

/*
 * The test module's busy loops, @ns nanoseconds from @x: arithmetic the
 * compiler cannot drop or hoist (the empty asm says x is used and changed),
 * the clock read only every 20000 rounds, and from the fast accessor,
 * which has no lockdep checks (the seqcount's, on a debug kernel, took a
 * sixth of its CPU's samples under TCG); @resched: cond_resched() at each
 * reading.  Always inlined, so that samples land in the caller, a function
 * of its own, and not in the clock's.
 */
static __always_inline u64 prf_test_rounds(u64 ns, u64 x, bool resched)
{
	u64 end = ktime_get_mono_fast_ns() + ns;
	unsigned int i;

	do {
		for (i = 0; i < 20000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			asm volatile("" : "+r" (x));
		}
		if (resched)
			cond_resched();
	} while (ktime_get_mono_fast_ns() < end);
	return x;
}

/* Global, so that the compiler keeps it whole under its own name. */
noinline u64 prf_test_kmod_spin(u64 ns)
{
	u64 x = prf_test_rounds(ns, 1, true);

	WRITE_ONCE(prf_test_kmod_sink, x);
	return x;
}

/* Never called: a neighbour whose first byte no sample should reach. */
noinline u64 prf_test_kmod_after(u64 x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

/*
 * The handlers below take a number of milliseconds, at most
 * PRF_TEST_MAX_MS: as nanoseconds in *ns, or an error to return.
 */
static int prf_test_ns_from_user(const char __user *buf, size_t count, u64 *ns)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, count, 10, &ms);
	if (ret)
		return ret;
	if (ms > PRF_TEST_MAX_MS)
		return -EINVAL;
	*ns = (u64)ms * NSEC_PER_MSEC;
	return 0;
}

static ssize_t prf_test_kmod_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	u64 ns;
	int ret = prf_test_ns_from_user(buf, count, &ns);

	if (ret)
		return ret;
	prf_test_kmod_spin(ns);
	return count;
}

static const struct proc_ops prf_test_kmod_ops = {
	.proc_write	= prf_test_kmod_write,
	.proc_lseek	= noop_llseek,
};

/* --- Call stacks (prf_stack_test): a known chain of calls ------------- */

/*
 * Writing a number of milliseconds to /proc/prf_test_chain spins that long
 * in prf_test_c(), called by prf_test_b(), called by prf_test_a(), called
 * by the write handler: samples taken meanwhile have exactly that stack.
 * None of the three is a leaf (arm64 keeps no frame record in a leaf) and
 * none ends in a tail call (which would take its frame off the stack).
 */
noinline u64 prf_test_c(u64 ns)
{
	return prf_test_rounds(ns, ns | 1, false);
}

noinline u64 prf_test_b(u64 ns)
{
	u64 x = prf_test_c(ns);

	asm volatile("" : "+r" (x));
	return x ^ 1;
}

/* In slices of a millisecond, rescheduling in between. */
noinline u64 prf_test_a(u64 ns)
{
	u64 end = ktime_get_ns() + ns, now, x = 0;

	while ((now = ktime_get_ns()) < end) {
		x += prf_test_b(min_t(u64, end - now, NSEC_PER_MSEC));
		cond_resched();
	}
	asm volatile("" : "+r" (x));
	return x;
}

static ssize_t prf_test_chain_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	u64 ns;
	int ret = prf_test_ns_from_user(buf, count, &ns);

	if (ret)
		return ret;
	WRITE_ONCE(prf_test_kmod_sink, prf_test_a(ns));
	return count;
}

static const struct proc_ops prf_test_chain_ops = {
	.proc_write	= prf_test_chain_write,
	.proc_lseek	= noop_llseek,
};

static struct proc_dir_entry *prf_test_chain_entry;

static int prf_test_chain_init(void)
{
	prf_test_chain_entry = proc_create("prf_test_chain", 0200, NULL,
					   &prf_test_chain_ops);
	return prf_test_chain_entry ? 0 : -ENOMEM;
}

static void prf_test_chain_exit(void)
{
	proc_remove(prf_test_chain_entry);
}

/* --- end of call stacks ------------------------------------------------ */

/* ---- Interrupts off (prf_pmu_test): code no timer can sample ---------- */

/*
 * Writing a number of milliseconds to /proc/prf_test_irqoff spins that long
 * on the writer's CPU in windows of PRF_TEST_IRQOFF_WINDOW_MS with
 * interrupts disabled: prf_test_irqoff_run() disables them around each
 * call of prf_test_irqoff_spin(), a function of its own, and lets pending
 * interrupts in between.  A timer (or a PMU interrupt that is no NMI)
 * cannot sample the spin: its samples land in prf_test_irqoff_run(), where
 * interrupts come back on.  An NMI samples the spin where it runs.
 */
noinline u64 prf_test_irqoff_spin(u64 ns)
{
	return prf_test_rounds(ns, ns | 1, false);
}

noinline u64 prf_test_irqoff_run(u64 ns)
{
	u64 end = ktime_get_ns() + ns, now, x = 0;
	unsigned long flags;

	while ((now = ktime_get_ns()) < end) {
		local_irq_save(flags);
		x += prf_test_irqoff_spin(min_t(u64, end - now,
						PRF_TEST_IRQOFF_WINDOW_MS *
						NSEC_PER_MSEC));
		local_irq_restore(flags);
		cond_resched();
	}
	asm volatile("" : "+r" (x));
	return x;
}

static ssize_t prf_test_irqoff_write(struct file *file, const char __user *buf,
				     size_t count, loff_t *ppos)
{
	u64 ns;
	int ret = prf_test_ns_from_user(buf, count, &ns);

	if (ret)
		return ret;
	WRITE_ONCE(prf_test_kmod_sink, prf_test_irqoff_run(ns));
	return count;
}

static const struct proc_ops prf_test_irqoff_ops = {
	.proc_write	= prf_test_irqoff_write,
	.proc_lseek	= noop_llseek,
};

static struct proc_dir_entry *prf_test_irqoff_entry;

/* ---- End of interrupts off --------------------------------------------- */

/* ---- Mapping symbols (issue 39): a function at a section's start ------ */

/*
 * Writing a number of milliseconds to /proc/prf_test_first spins that long
 * in prf_test_first_spin(): local, and alone in a text section of its own,
 * so that on arm64 the assembler's "$x" (a mapping symbol, local as well,
 * its name sorting first) shares its address in /proc/kallsyms.  The tools
 * must name the function, never "$x" (tools/tests/guest_pmu_test.sh).
 */
static noinline __section(".text.prf_test_first") u64 prf_test_first_spin(u64 ns)
{
	return prf_test_rounds(ns, ns | 1, true);
}

static ssize_t prf_test_first_write(struct file *file, const char __user *buf,
				    size_t count, loff_t *ppos)
{
	u64 ns;
	int ret = prf_test_ns_from_user(buf, count, &ns);

	if (ret)
		return ret;
	WRITE_ONCE(prf_test_kmod_sink, prf_test_first_spin(ns));
	return count;
}

static const struct proc_ops prf_test_first_ops = {
	.proc_write	= prf_test_first_write,
	.proc_lseek	= noop_llseek,
};

static struct proc_dir_entry *prf_test_first_entry;

/* ---- End of mapping symbols ------------------------------------------- */

/* ---- Modes (prf_mode_test): allocations and calls of known number ------ */

/*
 * /proc/prf_test_kmod_modes takes one command per write:
 *	alloc N		prf_test_kmod_alloc(): N kmalloc()s of
 *			PRF_TEST_KMOD_KMALLOC bytes and N kmem_cache_alloc()s
 *			of PRF_TEST_KMOD_OBJ bytes, all kept
 *	free M		frees M of each kind kept, from another function
 *	call N		calls prf_test_kmod_counted() N times
 *	time-alloc N	N kmalloc()/kfree() pairs, timed
 *	time-call N	N calls of prf_test_kmod_counted(), timed
 *	sleep N		prf_test_kmod_sleep(): msleep(N), N milliseconds,
 *			timed (prf_offcpu_test: one wait at msleep)
 *	isleep N	prf_test_kmod_isleep(): N milliseconds of
 *			interruptible sleeps; the time read back is what it
 *			slept with no signal pending
 *	wait N		prf_test_kmod_wait(): waits for a completion that a
 *			delayed work completes N milliseconds later, timed
 *			(one wait at prf_test_kmod_wait, blocked N ms at least)
 *	anchor N	prf_test_kmod_anchor(): N kmalloc()s of
 *			PRF_TEST_KMOD_ANCHOR bytes, kept (prf_anchor_test
 *			compares them with /proc/allocinfo: one call site,
 *			kmalloc() only, whose object size both report alike)
 *	unanchor N	frees N of those, from another function
 *	reuse-bulk N, reuse-kfree-bulk N, reuse-rcu N (and reuse-HOW-a N,
 *	reuse-b 0)	frees prf cannot see, then their addresses
 *			allocated again (below)
 * A read gives the nanoseconds of the last timed command, then the line of
 * the last reuse command.  At most PRF_TEST_KMOD_HELD objects of each kind
 * are kept (EINVAL past that).
 */
#define PRF_TEST_KMOD_HELD	4096

static void *prf_test_kmod_kmalloced[PRF_TEST_KMOD_HELD];
static void *prf_test_kmod_cached[PRF_TEST_KMOD_HELD];
static unsigned int prf_test_kmod_nheld;
static void *prf_test_kmod_anchored[PRF_TEST_KMOD_HELD];
static unsigned int prf_test_kmod_nanchored;
static struct kmem_cache *prf_test_kmod_cache;
static u64 prf_test_kmod_last_ns;
static DEFINE_MUTEX(prf_test_kmod_lock);

/* Every allocation of the test is made here: one call site per kind. */
noinline int prf_test_kmod_alloc(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *a = kmalloc(PRF_TEST_KMOD_KMALLOC, GFP_KERNEL);
		void *b = kmem_cache_alloc(prf_test_kmod_cache, GFP_KERNEL);

		if (!a || !b) {
			kfree(a);
			if (b)
				kmem_cache_free(prf_test_kmod_cache, b);
			return -ENOMEM;
		}
		prf_test_kmod_kmalloced[prf_test_kmod_nheld] = a;
		prf_test_kmod_cached[prf_test_kmod_nheld++] = b;
	}
	return 0;
}

noinline void prf_test_kmod_free(unsigned int m)
{
	while (m--) {
		prf_test_kmod_nheld--;
		kfree(prf_test_kmod_kmalloced[prf_test_kmod_nheld]);
		kmem_cache_free(prf_test_kmod_cache,
				prf_test_kmod_cached[prf_test_kmod_nheld]);
	}
}

noinline int prf_test_kmod_anchor(unsigned int n)
{
	while (n--) {
		void *p = kmalloc(PRF_TEST_KMOD_ANCHOR, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		prf_test_kmod_anchored[prf_test_kmod_nanchored++] = p;
	}
	return 0;
}

static noinline void prf_test_kmod_unanchor(unsigned int n)
{
	while (n--)
		kfree(prf_test_kmod_anchored[--prf_test_kmod_nanchored]);
}

noinline u64 prf_test_kmod_counted(u64 x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

/* The offcpu mode's known waits: one call of msleep(), one completion. */
noinline void prf_test_kmod_sleep(unsigned int ms)
{
	msleep(ms);
	barrier();	/* a call, not a tail call: its return is in here */
}

/*
 * An interruptible sleep of @ms milliseconds that goes to sleep without
 * testing for a signal first, as many kernel paths do: with one pending,
 * the scheduler leaves the task runnable and schedule_timeout() returns at
 * once, and the loop goes on until @ms went by.  Returns the time it may
 * really have slept: that of the calls made with no signal pending
 * (prf_offcpu_test: the blocked time prf counts here is no more).
 */
noinline u64 prf_test_kmod_isleep(unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC, t0, slept = 0;
	bool pending;

	while ((t0 = ktime_get_ns()) < end) {
		set_current_state(TASK_INTERRUPTIBLE);
		pending = signal_pending(current);
		schedule_timeout(nsecs_to_jiffies(end - t0) + 1);
		if (!pending)
			slept += ktime_get_ns() - t0;
	}
	return slept;
}

static struct completion prf_test_kmod_done;

static void prf_test_kmod_complete(struct work_struct *work)
{
	complete(&prf_test_kmod_done);
}

static DECLARE_DELAYED_WORK(prf_test_kmod_dwork, prf_test_kmod_complete);

/* Blocked from here until the work runs: at least @ms milliseconds. */
noinline void prf_test_kmod_wait(unsigned int ms)
{
	init_completion(&prf_test_kmod_done);
	schedule_delayed_work(&prf_test_kmod_dwork, msecs_to_jiffies(ms));
	wait_for_completion(&prf_test_kmod_done);
	barrier();	/* as in prf_test_kmod_sleep() */
}

/* The benchmark's allocations, apart from the counted ones. */
static noinline int prf_test_kmod_time_alloc(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *a = kmalloc(PRF_TEST_KMOD_KMALLOC, GFP_KERNEL);

		if (!a)
			return -ENOMEM;
		kfree(a);
	}
	return 0;
}

/*
 * Frees prf cannot see (prf_mode_test's reuse tests).  reuse-bulk N,
 * reuse-kfree-bulk N and reuse-rcu N: prf_test_kmod_reuse_a() allocates N
 * objects of the module's cache, freed by kmem_cache_free_bulk(),
 * kfree_bulk() or kfree_rcu(), which fire no free tracepoint on the
 * kernels of the test bed (uapi/linux/prf.h).  prf_test_kmod_reuse_b()
 * then allocates from the same cache until each of the N addresses was
 * allocated again or seen freed, and frees what it got with
 * kmem_cache_free().  Meanwhile the module's own probes on the four kmem
 * tracepoints follow the N addresses as prf's live hash must: an address is
 * SEEN if a free tracepoint reports it before an allocation does, TAKEN if
 * an allocation does first (whoever makes it).  A read then gives, after
 * the time line,
 *	reuse N M SEEN TAKEN KFENCE
 * with M the allocations of prf_test_kmod_reuse_b() and KFENCE the objects
 * of the N that KFENCE served (no allocation gets those again soon: left
 * out of the wait).  The module's own cache, because nothing else allocates
 * from it: another user of a kmalloc cache could take the addresses into
 * another CPU's per-CPU cache, and random kmalloc caches keep two call
 * sites apart.  kfree() (so kfree_bulk() and kfree_rcu()) takes an object
 * of any cache.  EOPNOTSUPP under KASAN's generic mode, whose quarantine
 * keeps a freed address from coming back.
 *
 * kfree_rcu() hands a batch to RCU within 5 s on 6.x, but on 7.x puts the
 * object in its cache's RCU sheaf, handed to RCU only once full: when none
 * of the N changed for PRF_TEST_REUSE_STALL seconds, fillers of the same
 * cache (prf_test_kmod_reuse_fill()) are freed with kfree_rcu() until one
 * does.  Left pending at the end, they are in a sheaf, which
 * kmem_cache_destroy() waits for.
 */
#define PRF_TEST_REUSE_MAX	1024	/* N */
#define PRF_TEST_REUSE_B_MAX	8192	/* M */
#define PRF_TEST_REUSE_FILL_MAX	4096
#define PRF_TEST_REUSE_STALL	8
#define PRF_TEST_REUSE_SECS	30

enum { PRF_REUSE_LIVE, PRF_REUSE_SEEN, PRF_REUSE_TAKEN };

struct prf_test_reuse_obj {
	struct rcu_head rcu;
};

static void *prf_test_reuse_addr[PRF_TEST_REUSE_MAX];	/* sorted */
static atomic_t prf_test_reuse_state[PRF_TEST_REUSE_MAX];
static unsigned int prf_test_reuse_n;
static atomic_t prf_test_reuse_count[3];
static char prf_test_reuse_line[96];

static int prf_test_reuse_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The probes: an event at one of the N addresses while it is live. */
static void prf_test_reuse_mark(const void *ptr, int to)
{
	unsigned int lo = 0, hi = prf_test_reuse_n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (prf_test_reuse_addr[mid] == ptr) {
			if (atomic_cmpxchg(&prf_test_reuse_state[mid],
					   PRF_REUSE_LIVE, to) == PRF_REUSE_LIVE)
				atomic_inc(&prf_test_reuse_count[to]);
			return;
		}
		if ((unsigned long)prf_test_reuse_addr[mid] < (unsigned long)ptr)
			lo = mid + 1;
		else
			hi = mid;
	}
}

static void prf_test_reuse_kmalloc(void *data, unsigned long call_site,
				   const void *ptr, size_t bytes_req,
				   size_t bytes_alloc, gfp_t gfp_flags, int node)
{
	prf_test_reuse_mark(ptr, PRF_REUSE_TAKEN);
}

static void prf_test_reuse_cache_alloc(void *data, unsigned long call_site,
				       const void *ptr, struct kmem_cache *s,
				       gfp_t gfp_flags, int node)
{
	prf_test_reuse_mark(ptr, PRF_REUSE_TAKEN);
}

static void prf_test_reuse_kfree(void *data, unsigned long call_site,
				 const void *ptr)
{
	prf_test_reuse_mark(ptr, PRF_REUSE_SEEN);
}

static void prf_test_reuse_cache_free(void *data, unsigned long call_site,
				      const void *ptr,
				      const struct kmem_cache *s)
{
	prf_test_reuse_mark(ptr, PRF_REUSE_SEEN);
}

static int prf_test_reuse_probes(bool on)
{
	int ret = 0;

	if (on) {
		ret = register_trace_kfree(prf_test_reuse_kfree, NULL);
		if (!ret)
			ret = register_trace_kmem_cache_free(prf_test_reuse_cache_free,
							     NULL);
		if (!ret)
			ret = register_trace_kmalloc(prf_test_reuse_kmalloc, NULL);
		if (!ret)
			ret = register_trace_kmem_cache_alloc(prf_test_reuse_cache_alloc,
							      NULL);
		if (!ret)
			return 0;
	}
	/* unregistering one that is not registered only says ENOENT */
	unregister_trace_kmem_cache_alloc(prf_test_reuse_cache_alloc, NULL);
	unregister_trace_kmalloc(prf_test_reuse_kmalloc, NULL);
	unregister_trace_kmem_cache_free(prf_test_reuse_cache_free, NULL);
	unregister_trace_kfree(prf_test_reuse_kfree, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

/* The N objects whose free prf cannot see: one call site. */
noinline int prf_test_kmod_reuse_a(unsigned int n)
{
	while (prf_test_reuse_n < n) {
		void *p = kmem_cache_alloc(prf_test_kmod_cache, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		prf_test_reuse_addr[prf_test_reuse_n++] = p;
	}
	return 0;
}

/*
 * An object of the same cache for its RCU sheaf, from another call site
 * (not a tail call, which would make the caller's the call site).
 */
static noinline int prf_test_kmod_reuse_fill(void)
{
	struct prf_test_reuse_obj *f;

	f = kmem_cache_alloc(prf_test_kmod_cache, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	kfree_rcu(f, rcu);
	return 0;
}

/* N objects still live (KFENCE's left out), from the probes' counts. */
static unsigned int prf_test_reuse_left(unsigned int kfence)
{
	return prf_test_reuse_n - kfence -
	       atomic_read(&prf_test_reuse_count[PRF_REUSE_SEEN]) -
	       atomic_read(&prf_test_reuse_count[PRF_REUSE_TAKEN]);
}

/*
 * Allocates into @b until none of the N is left, in rounds that stop after
 * 16 allocations in a row got none of them, 200 ms apart when a round got
 * none (the RCU frees come late), for PRF_TEST_REUSE_SECS at most; after a
 * stall, fillers first in each round.  *@m: the number allocated, error or
 * not.
 */
noinline int prf_test_kmod_reuse_b(void **b, unsigned int *m,
				   unsigned int kfence)
{
	unsigned long end = jiffies + PRF_TEST_REUSE_SECS * HZ;
	unsigned long stall = jiffies + PRF_TEST_REUSE_STALL * HZ;
	unsigned int nfill = 0, miss, i, left, took;

	*m = 0;
	while ((left = prf_test_reuse_left(kfence))) {
		if (fatal_signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		for (i = 0; time_after(jiffies, stall) && i < 16 &&
		     nfill < PRF_TEST_REUSE_FILL_MAX; i++, nfill++) {
			if (prf_test_kmod_reuse_fill())
				return -ENOMEM;
		}
		if (nfill)
			rcu_barrier();
		for (miss = 0; miss < 16 && prf_test_reuse_left(kfence);) {
			if (*m == PRF_TEST_REUSE_B_MAX)
				return -ENOSPC;
			took = atomic_read(&prf_test_reuse_count[PRF_REUSE_TAKEN]);
			b[*m] = kmem_cache_alloc(prf_test_kmod_cache, GFP_KERNEL);
			if (!b[*m])
				return -ENOMEM;
			(*m)++;
			if (atomic_read(&prf_test_reuse_count[PRF_REUSE_TAKEN]) == took)
				miss++;
			else
				miss = 0;
			cond_resched();
		}
		if (prf_test_reuse_left(kfence) < left)
			stall = jiffies + PRF_TEST_REUSE_STALL * HZ;
		else
			msleep(200);
	}
	return 0;
}

/* The bulk frees reorder the array they are given: a copy. */
static void *prf_test_reuse_copy[PRF_TEST_REUSE_MAX];
static bool prf_test_reuse_active;
static unsigned int prf_test_reuse_kfence;

/* The N allocated, followed, and freed by @how; the probes left on. */
static int prf_test_reuse_start(const char *how, unsigned int n)
{
	unsigned int i;
	int ret;

	if (IS_ENABLED(CONFIG_KASAN_GENERIC))
		return -EOPNOTSUPP;
	if (!n || n > PRF_TEST_REUSE_MAX)
		return -EINVAL;
	if (prf_test_reuse_active)
		return -EBUSY;
	prf_test_reuse_n = 0;
	prf_test_reuse_kfence = 0;
	for (i = 0; i < 3; i++)
		atomic_set(&prf_test_reuse_count[i], 0);
	ret = prf_test_kmod_reuse_a(n);
	memcpy(prf_test_reuse_copy, prf_test_reuse_addr,
	       prf_test_reuse_n * sizeof(void *));
	if (!ret) {
		sort(prf_test_reuse_addr, n, sizeof(void *), prf_test_reuse_cmp,
		     NULL);
		for (i = 0; i < n; i++) {
			atomic_set(&prf_test_reuse_state[i], PRF_REUSE_LIVE);
			prf_test_reuse_kfence +=
				is_kfence_address(prf_test_reuse_addr[i]);
		}
		/* registering publishes the probes after the state above */
		ret = prf_test_reuse_probes(true);
	}
	if (ret) {
		/* not freed yet: still ours */
		for (i = 0; i < prf_test_reuse_n; i++)
			kmem_cache_free(prf_test_kmod_cache, prf_test_reuse_copy[i]);
		prf_test_reuse_n = 0;
		return ret;
	}
	if (!strcmp(how, "bulk")) {
		kmem_cache_free_bulk(prf_test_kmod_cache, n, prf_test_reuse_copy);
	} else if (!strcmp(how, "kfree-bulk")) {
		kfree_bulk(n, prf_test_reuse_copy);
	} else {
		for (i = 0; i < n; i++)
			kfree_rcu((struct prf_test_reuse_obj *)prf_test_reuse_copy[i],
				  rcu);
	}
	prf_test_reuse_active = true;
	return 0;
}

/* The allocations again, the probes off, the line a read gives. */
static int prf_test_reuse_finish(void)
{
	unsigned int m = 0, i;
	void **b;
	int ret;

	if (!prf_test_reuse_active)
		return -EINVAL;
	b = kvcalloc(PRF_TEST_REUSE_B_MAX, sizeof(*b), GFP_KERNEL);
	ret = b ? prf_test_kmod_reuse_b(b, &m, prf_test_reuse_kfence) :
		-ENOMEM;
	for (i = 0; i < m; i++)
		kmem_cache_free(prf_test_kmod_cache, b[i]);
	kvfree(b);
	prf_test_reuse_probes(false);
	scnprintf(prf_test_reuse_line, sizeof(prf_test_reuse_line),
		  "reuse %u %u %d %d %u\n", prf_test_reuse_n, m,
		  atomic_read(&prf_test_reuse_count[PRF_REUSE_SEEN]),
		  atomic_read(&prf_test_reuse_count[PRF_REUSE_TAKEN]),
		  prf_test_reuse_kfence);
	prf_test_reuse_n = 0;
	prf_test_reuse_active = false;
	return ret;
}

/*
 * reuse-HOW N (HOW: bulk, kfree-bulk, rcu): all of it.  reuse-HOW-a N: the
 * N allocated and freed, and reuse-b 0 the rest, maybe from another task
 * (a filter that leaves out prf_test_kmod_reuse_b()'s allocations).
 */
static int prf_test_kmod_reuse(const char *cmd, unsigned int n)
{
	static const char *const how[] = { "bulk", "kfree-bulk", "rcu" };
	unsigned int i;
	size_t len;
	int ret;

	if (!strcmp(cmd, "reuse-b"))
		return prf_test_reuse_finish();
	for (i = 0; i < ARRAY_SIZE(how); i++) {
		len = strlen(how[i]);
		if (strncmp(cmd + 6, how[i], len))
			continue;
		if (cmd[6 + len] && strcmp(cmd + 6 + len, "-a"))
			continue;
		ret = prf_test_reuse_start(how[i], n);
		if (ret || cmd[6 + len])
			return ret;
		return prf_test_reuse_finish();
	}
	return -EINVAL;
}

static int prf_test_kmod_modes_cmd(const char *cmd, unsigned int n)
{
	u64 t0, x = 0;
	unsigned int i;
	int ret = 0;

	if (!strcmp(cmd, "alloc")) {
		if (n > PRF_TEST_KMOD_HELD - prf_test_kmod_nheld)
			return -EINVAL;
		return prf_test_kmod_alloc(n);
	}
	if (!strcmp(cmd, "free")) {
		if (n > prf_test_kmod_nheld)
			return -EINVAL;
		prf_test_kmod_free(n);
		return 0;
	}
	if (!strcmp(cmd, "anchor")) {
		if (n > PRF_TEST_KMOD_HELD - prf_test_kmod_nanchored)
			return -EINVAL;
		return prf_test_kmod_anchor(n);
	}
	if (!strcmp(cmd, "unanchor")) {
		if (n > prf_test_kmod_nanchored)
			return -EINVAL;
		prf_test_kmod_unanchor(n);
		return 0;
	}
	if (!strncmp(cmd, "reuse-", 6))
		return prf_test_kmod_reuse(cmd, n);
	if (!strcmp(cmd, "call")) {
		for (i = 0; i < n; i++)
			x = prf_test_kmod_counted(x);
		WRITE_ONCE(prf_test_kmod_sink, x);
		return 0;
	}
	t0 = ktime_get_ns();
	if (!strcmp(cmd, "time-alloc")) {
		ret = prf_test_kmod_time_alloc(n);
	} else if (!strcmp(cmd, "time-call")) {
		for (i = 0; i < n; i++)
			x = prf_test_kmod_counted(x);
		WRITE_ONCE(prf_test_kmod_sink, x);
	} else if (!strcmp(cmd, "sleep") && n <= 10000) {
		prf_test_kmod_sleep(n);
	} else if (!strcmp(cmd, "wait") && n <= 10000) {
		prf_test_kmod_wait(n);
	} else if (!strcmp(cmd, "isleep") && n <= 10000) {
		/* the time it slept, not the call's */
		prf_test_kmod_last_ns = prf_test_kmod_isleep(n);
		return 0;
	} else {
		return -EINVAL;
	}
	prf_test_kmod_last_ns = ktime_get_ns() - t0;
	return ret;
}

static ssize_t prf_test_kmod_modes_write(struct file *file,
					 const char __user *buf,
					 size_t count, loff_t *ppos)
{
	char line[40], cmd[20];
	unsigned int n;
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, buf, count))
		return -EFAULT;
	line[count] = '\0';
	if (sscanf(line, "%19s %u", cmd, &n) != 2)
		return -EINVAL;
	mutex_lock(&prf_test_kmod_lock);
	ret = prf_test_kmod_modes_cmd(cmd, n);
	mutex_unlock(&prf_test_kmod_lock);
	return ret ? ret : count;
}

static ssize_t prf_test_kmod_modes_read(struct file *file, char __user *buf,
					size_t count, loff_t *ppos)
{
	char line[128];
	int len;

	mutex_lock(&prf_test_kmod_lock);
	len = scnprintf(line, sizeof(line), "%llu\n%s", prf_test_kmod_last_ns,
			prf_test_reuse_line);
	mutex_unlock(&prf_test_kmod_lock);
	return simple_read_from_buffer(buf, count, ppos, line, len);
}

static const struct proc_ops prf_test_kmod_modes_ops = {
	.proc_write	= prf_test_kmod_modes_write,
	.proc_read	= prf_test_kmod_modes_read,
	.proc_lseek	= default_llseek,
};

static struct proc_dir_entry *prf_test_kmod_modes_entry;

static int prf_test_kmod_modes_init(void)
{
	prf_test_kmod_cache = kmem_cache_create("prf_test_kmod",
						PRF_TEST_KMOD_OBJ, 0, 0, NULL);
	if (!prf_test_kmod_cache)
		return -ENOMEM;
	prf_test_kmod_modes_entry = proc_create("prf_test_kmod_modes", 0600,
						NULL, &prf_test_kmod_modes_ops);
	if (!prf_test_kmod_modes_entry) {
		kmem_cache_destroy(prf_test_kmod_cache);
		return -ENOMEM;
	}
	return 0;
}

static void prf_test_kmod_modes_exit(void)
{
	proc_remove(prf_test_kmod_modes_entry);
	/* the work may still be returning from complete() */
	cancel_delayed_work_sync(&prf_test_kmod_dwork);
	if (prf_test_reuse_active)
		prf_test_reuse_probes(false);
	prf_test_kmod_free(prf_test_kmod_nheld);
	prf_test_kmod_unanchor(prf_test_kmod_nanchored);
	kmem_cache_destroy(prf_test_kmod_cache);
}

/* ---- End of modes ---------------------------------------------------- */

static struct proc_dir_entry *prf_test_kmod_entry;

static int __init prf_test_kmod_init(void)
{
	/* keeps the neighbour in the object, after the spin function */
	if (prf_test_kmod_after(0) != 1)
		return -EINVAL;
	prf_test_kmod_entry = proc_create("prf_test_kmod", 0200, NULL,
					  &prf_test_kmod_ops);
	if (!prf_test_kmod_entry)
		return -ENOMEM;
	if (prf_test_chain_init()) {
		proc_remove(prf_test_kmod_entry);
		return -ENOMEM;
	}
	if (prf_test_kmod_modes_init()) {	/* modes */
		prf_test_chain_exit();
		proc_remove(prf_test_kmod_entry);
		return -ENOMEM;
	}
	prf_test_irqoff_entry = proc_create("prf_test_irqoff", 0200, NULL,
					    &prf_test_irqoff_ops);
	if (!prf_test_irqoff_entry) {	/* interrupts off */
		prf_test_kmod_modes_exit();
		prf_test_chain_exit();
		proc_remove(prf_test_kmod_entry);
		return -ENOMEM;
	}
	prf_test_first_entry = proc_create("prf_test_first", 0200, NULL,
					   &prf_test_first_ops);
	if (!prf_test_first_entry) {	/* mapping symbols */
		proc_remove(prf_test_irqoff_entry);
		prf_test_kmod_modes_exit();
		prf_test_chain_exit();
		proc_remove(prf_test_kmod_entry);
		return -ENOMEM;
	}
	return 0;
}

static void __exit prf_test_kmod_exit(void)
{
	proc_remove(prf_test_first_entry);	/* mapping symbols */
	proc_remove(prf_test_irqoff_entry);	/* interrupts off */
	prf_test_chain_exit();
	prf_test_kmod_modes_exit();	/* modes */
	proc_remove(prf_test_kmod_entry);
}

module_init(prf_test_kmod_init);
module_exit(prf_test_kmod_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("prf selftests: a kernel function of known extent to spin in");
MODULE_AUTHOR("prf developers");
