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
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
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
	return 0;
}

static void __exit prf_test_kmod_exit(void)
{
	prf_test_chain_exit();
	proc_remove(prf_test_kmod_entry);
}

module_init(prf_test_kmod_init);
module_exit(prf_test_kmod_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("prf selftests: a kernel function of known extent to spin in");
MODULE_AUTHOR("prf developers");
