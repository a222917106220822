/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf - one source for every supported kernel (6.1 to 7.x).
 *
 * Each difference between kernels is decided by a PRF_HAVE_<FEATURE> macro
 * that Kbuild defines after reading the target kernel's own headers, never
 * by LINUX_VERSION_CODE: distribution kernels backport, so a version number
 * says little about the API.  Everything version-dependent lives here.
 */
#ifndef PRF_COMPAT_H
#define PRF_COMPAT_H

#include <linux/hrtimer.h>

/*
 * A timer with its callback.  hrtimer_setup() (6.13) sets both at once;
 * hrtimer_init() (removed in 6.15) left the callback to be assigned, which
 * newer kernels forbid (hrtimer.function is __private).
 */
static inline void prf_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef PRF_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* PRF_COMPAT_H */
