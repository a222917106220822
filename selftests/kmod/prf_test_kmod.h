/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf_test_kmod - the functions the attribution tests look up in
 * /proc/kallsyms.  Global, so that the compiler keeps each whole under its
 * own name (a static one may become prf_test_kmod_spin.isra.0).
 */
#ifndef PRF_TEST_KMOD_H
#define PRF_TEST_KMOD_H

#include <linux/types.h>

u64 prf_test_kmod_spin(u64 ns);
u64 prf_test_kmod_after(u64 x);

/* Call stacks: prf_test_a() calls prf_test_b(), which calls prf_test_c(). */
u64 prf_test_a(u64 ns);
u64 prf_test_b(u64 ns);
u64 prf_test_c(u64 ns);
/* Modes (prf_mode_test): sizes of the objects prf_test_kmod_alloc() makes. */
#define PRF_TEST_KMOD_KMALLOC	100	/* kmalloc(): from kmalloc-128 */
#define PRF_TEST_KMOD_OBJ	200	/* its own kmem_cache */
int prf_test_kmod_alloc(unsigned int n);
void prf_test_kmod_free(unsigned int m);
u64 prf_test_kmod_counted(u64 x);
/* prf_anchor_test: kmalloc()s of one size from one call site. */
#define PRF_TEST_KMOD_ANCHOR	1024
int prf_test_kmod_anchor(unsigned int n);
/* prf_mode_test's reuse tests: frees prf cannot see, then the addresses */
int prf_test_kmod_reuse_a(unsigned int n);
int prf_test_kmod_reuse_b(void **b, unsigned int *m, unsigned int kfence);
/* prf_offcpu_test: one wait in msleep(@ms), one on a completion @ms later */
void prf_test_kmod_sleep(unsigned int ms);
void prf_test_kmod_wait(unsigned int ms);
/* and interruptible sleeps, returning the time slept with no signal pending */
u64 prf_test_kmod_isleep(unsigned int ms);

/*
 * Interrupts off (prf_pmu_test): prf_test_irqoff_run() spins in
 * prf_test_irqoff_spin() with interrupts disabled, a window at a time.
 */
#define PRF_TEST_IRQOFF_WINDOW_MS	20
u64 prf_test_irqoff_spin(u64 ns);
u64 prf_test_irqoff_run(u64 ns);

#endif /* PRF_TEST_KMOD_H */
