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

#include <linux/compiler.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "prf_test_kmod.h"

#define PRF_TEST_MAX_MS	10000

static u64 prf_test_kmod_sink;

/*
 * The loop body is arithmetic the compiler cannot drop or hoist (the empty
 * asm says x is used and changed); the clock is read only every few
 * thousand rounds, so samples land in this function and not in the clock's.
 * Global, so that the compiler keeps it whole under its own name.
 */
noinline u64 prf_test_kmod_spin(u64 ns)
{
	u64 end = ktime_get_ns() + ns, x = 1;
	unsigned int i;

	do {
		for (i = 0; i < 20000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			asm volatile("" : "+r" (x));
		}
		cond_resched();
	} while (ktime_get_ns() < end);
	WRITE_ONCE(prf_test_kmod_sink, x);
	return x;
}

/* Never called: a neighbour whose first byte no sample should reach. */
noinline u64 prf_test_kmod_after(u64 x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

static ssize_t prf_test_kmod_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, count, 10, &ms);
	if (ret)
		return ret;
	if (ms > PRF_TEST_MAX_MS)
		return -EINVAL;
	prf_test_kmod_spin((u64)ms * NSEC_PER_MSEC);
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
	u64 end = ktime_get_ns() + ns, x = ns | 1;
	unsigned int i;

	do {
		for (i = 0; i < 20000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			asm volatile("" : "+r" (x));
		}
	} while (ktime_get_ns() < end);
	return x;
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
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, count, 10, &ms);
	if (ret)
		return ret;
	if (ms > PRF_TEST_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(prf_test_kmod_sink, prf_test_a((u64)ms * NSEC_PER_MSEC));
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
	u64 end = ktime_get_ns() + ns, x = ns | 1;
	unsigned int i;

	do {
		for (i = 0; i < 20000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			asm volatile("" : "+r" (x));
		}
	} while (ktime_get_ns() < end);
	return x;
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
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, count, 10, &ms);
	if (ret)
		return ret;
	if (ms > PRF_TEST_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(prf_test_kmod_sink,
		   prf_test_irqoff_run((u64)ms * NSEC_PER_MSEC));
	return count;
}

static const struct proc_ops prf_test_irqoff_ops = {
	.proc_write	= prf_test_irqoff_write,
	.proc_lseek	= noop_llseek,
};

static struct proc_dir_entry *prf_test_irqoff_entry;

/* ---- End of interrupts off --------------------------------------------- */

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
 *	anchor N	prf_test_kmod_anchor(): N kmalloc()s of
 *			PRF_TEST_KMOD_ANCHOR bytes, kept (prf_anchor_test
 *			compares them with /proc/allocinfo: one call site,
 *			kmalloc() only, whose object size both report alike)
 *	unanchor N	frees N of those, from another function
 * A read gives the nanoseconds of the last timed command.  At most
 * PRF_TEST_KMOD_HELD objects of each kind are kept (EINVAL past that).
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
	char line[40], cmd[16];
	unsigned int n;
	int ret;

	if (count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, buf, count))
		return -EFAULT;
	line[count] = '\0';
	if (sscanf(line, "%15s %u", cmd, &n) != 2)
		return -EINVAL;
	mutex_lock(&prf_test_kmod_lock);
	ret = prf_test_kmod_modes_cmd(cmd, n);
	mutex_unlock(&prf_test_kmod_lock);
	return ret ? ret : count;
}

static ssize_t prf_test_kmod_modes_read(struct file *file, char __user *buf,
					size_t count, loff_t *ppos)
{
	char line[24];
	int len;

	mutex_lock(&prf_test_kmod_lock);
	len = scnprintf(line, sizeof(line), "%llu\n", prf_test_kmod_last_ns);
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
	return 0;
}

static void __exit prf_test_kmod_exit(void)
{
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
