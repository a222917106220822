// SPDX-License-Identifier: GPL-2.0
/*
 * prf_phase_test - where samples fall inside their periods
 * (uapi/linux/prf.h, "How samples are placed in time").
 *
 * By default sampling is stratified: one sample in every period of P = 1/hz,
 * at a uniformly random point of it, the first period starting at ON.  With
 * PRF_FLAG_FIXED it is phase-locked: a sample every P, the first P after ON
 * (plus a stagger of P * cpu / nr_cpu_ids on the CPUs of /dev/prf).
 * PRF_FLAG_JITTER is obsolete and means the default.
 *
 * Three constructions tell the two apart without trusting the guest's
 * timing beyond what on_ns measures:
 *
 * - The first period at 1 Hz.  Each /dev/prfN is turned ON for about d
 *   seconds and OFF again, many times.  Stratified, an instance samples in
 *   such a run with probability on/P (the sample point is uniform in the
 *   period); fixed, never while on < P.  So at d = 0.25 and d = 0.75 the
 *   number of runs that sampled must be near the sum of on/P (within five
 *   standard deviations, and a little more below for timers that fire late,
 *   after OFF): 0 fails at 0.75, every run fails at 0.25.  Fixed must give
 *   exactly 0 in every run with on < P.
 *
 * - The stagger.  /dev/prf, fixed, 1 Hz, ON a little longer than a period:
 *   CPU c samples first at 1 + c / nr_cpu_ids seconds, so some covered CPUs
 *   have sampled and some not; without the stagger all or none have.
 *
 * - A workload locked to the sampler's phase.  A process pinned to CPU c
 *   turns /dev/prfc ON itself at t0 and then works in the kernel (1 MiB
 *   reads of /dev/zero) during half of every period, from 0.05 P before each
 *   t0 + k * P to 0.45 P after it, and sleeps the other half (the CPU
 *   idle: not kernel either; a user-mode spin there cost each kernel's
 *   suite 40 to 60 s of a busy vCPU for nothing the test judges).  A
 *   phase-locked sampler ticks at t0 + k * P + (the few microseconds ON
 *   takes), inside the kernel half: nearly 100% kernel.  A stratified one
 *   sees both halves alike: kernel in the share of the run the workload
 *   measured in its kernel half (half, less its late wake-ups), within 20
 *   points for the 150 periods (4.9 standard deviations).  Timers are
 *   never early, only late, so the window reaches further after the
 *   tick: a timer late by up to 0.45 P (90 ms at 5 Hz) still lands in
 *   it.  Under TCG on a loaded host
 *   the vCPU is often not run for tens of milliseconds, and its timer
 *   fires late, when it runs again, sampling what the process was doing
 *   when it stopped: at 20 Hz that took a phase-locked sampler down to
 *   74% kernel, hence the low rate; and at a host load of 20 even 5 Hz
 *   fell under 70%.  So the fixed sampler is judged on the periods the
 *   workload itself saw its vCPU run across the tick (a clock read in the
 *   kernel half just before it and another soon after): there its sample
 *   must be in the kernel, where a sampler not locked to ON is in it half
 *   the time.  The run goes on (up to 220 s) until 100 such periods were
 *   sampled.  The sleeping half reads the clock only as it wakes:
 *   without a usable TSC the guest's clock_gettime() is a system call (and
 *   a slow one under TCG), which would count as kernel time.  Both
 *   samplers count the same run at once: /dev/prfc with the default
 *   placement, and a private instance set to CPU c with PRF_FLAG_FIXED, ON
 *   at t0 (the workload's phase).  The fixed one is the control that shows
 *   the construction separates the two, in the very conditions (the host's
 *   load, late timers) the default was measured in; and the run (its
 *   busy half) is paid once, not twice (it was 60 of a distro kernel's 133
 *   CPU-seconds of suite under TCG).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "prf_fixture.h"

PRF_FIXTURE(phase);

#define BASE	0xffffffff81000000ULL
/* the phase-locked workload's rate (see the top of the file) */
#define LOCKED_HZ	5

static void load(struct __test_metadata *_metadata, int fd, __u32 hz,
		 __u32 flags)
{
	__u64 *t = prf_make_table(5, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, 5));
	ASSERT_EQ(0, prf_set_hz(fd, hz));
	ASSERT_EQ(0, prf_set_flags(fd, flags));
	free(t);
}

/* Samples of any kind an instance took, or periods it saw pass. */
static __u64 sampled(int fd)
{
	struct prf_info info;

	if (prf_info(fd, &info))
		return ~0ULL;
	return prf_periods(&info);
}

static double on_seconds(int fd)
{
	struct prf_info info;

	return prf_info(fd, &info) ? -1 : info.on_ns / 1e9;
}

struct tally {
	int runs;		/* instance runs */
	int sampled;		/* runs with at least one sample */
	double expect;		/* sum of min(1, on / P) */
	double var;		/* sum of p (1 - p) */
	int fixed_bad;		/* runs with on < P that sampled */
	int fixed_runs;		/* runs with on < P */
};

/*
 * @rounds times: every /dev/prfN of an online CPU at 1 Hz with @flags, ON
 * one after the other, @d seconds, OFF one after the other.
 */
static void first_period_runs(struct __test_metadata *_metadata,
			      FIXTURE_DATA(phase) *self, __u32 flags, double d,
			      int rounds, struct tally *t)
{
	int r, c;

	memset(t, 0, sizeof(*t));
	for (r = 0; r < rounds; r++) {
		for (c = 0; c < self->ncpus && c < PRF_FIXTURE_CPUS; c++)
			if (self->cpu[c] >= 0 && prf_cpu_online(c) == 1)
				load(_metadata, self->cpu[c], 1, flags);
		for (c = 0; c < self->ncpus && c < PRF_FIXTURE_CPUS; c++)
			if (self->cpu[c] >= 0 && prf_cpu_online(c) == 1)
				ASSERT_EQ(0, prf_on(self->cpu[c]));
		prf_sleep(d);
		for (c = 0; c < self->ncpus && c < PRF_FIXTURE_CPUS; c++)
			if (self->cpu[c] >= 0 && prf_cpu_online(c) == 1)
				ASSERT_EQ(0, prf_off(self->cpu[c]));
		for (c = 0; c < self->ncpus && c < PRF_FIXTURE_CPUS; c++) {
			double on, p;
			__u64 n;

			if (self->cpu[c] < 0 || prf_cpu_online(c) != 1)
				continue;
			on = on_seconds(self->cpu[c]);
			n = sampled(self->cpu[c]);
			ASSERT_LT(0, on);
			ASSERT_NE(~0ULL, n);
			p = on < 1 ? on : 1;
			t->runs++;
			t->sampled += n > 0;
			t->expect += p;
			t->var += p * (1 - p);
			if (on < 1) {
				t->fixed_runs++;
				t->fixed_bad += n > 0;
			}
		}
	}
}

FIXTURE_VARIANT(phase) {
	__u32 flags;
};

FIXTURE_VARIANT_ADD(phase, stratified) { .flags = 0 };
/* obsolete, means the default */
FIXTURE_VARIANT_ADD(phase, jitter) { .flags = PRF_FLAG_JITTER };

/*
 * Stratified: the first sample is uniform in the first period.  The
 * obsolete flag only has to be the default and not fixed: the longer of the
 * two durations, fewer rounds (a fixed sampler would give 0 of them).
 */
TEST_F_TIMEOUT(phase, first_sample_uniform_in_first_period, 180)
{
	static const double ds[] = { 0.75, 0.25 };
	size_t i, nd = variant->flags ? 1 : 2;
	int rounds = variant->flags ? 8 : 20;
	struct tally t;

	PRF_SKIP_ON_DEBUG_KERNEL();
	for (i = 0; i < nd; i++) {
		double lo, hi, sd;

		first_period_runs(_metadata, self, variant->flags, ds[i], rounds,
				  &t);
		sd = sqrt(t.var);
		lo = t.expect - 5 * sd - 0.05 * t.runs - 1;
		hi = t.expect + 5 * sd + 1;
		TH_LOG("ON ~%.2fs at 1 Hz, flags %#x: %d of %d runs sampled, "
		       "expected %.1f (sd %.1f), allowed %.1f..%.1f",
		       ds[i], variant->flags, t.sampled, t.runs, t.expect, sd,
		       lo, hi);
		EXPECT_LE(lo, t.sampled);
		EXPECT_GE(hi, t.sampled);
	}
}

/* Fixed: nothing before a whole period has passed since ON. */
TEST_F_TIMEOUT(phase, fixed_first_sample_a_period_after_on, 120)
{
	struct tally t;

	if (variant->flags)
		SKIP(return, "one variant is enough");
	PRF_SKIP_ON_DEBUG_KERNEL();
	first_period_runs(_metadata, self, PRF_FLAG_FIXED, 0.75, 8, &t);
	TH_LOG("fixed, ON ~0.75s at 1 Hz: %d of %d runs shorter than a period "
	       "sampled", t.fixed_bad, t.fixed_runs);
	ASSERT_LT(0, t.fixed_runs);
	EXPECT_EQ(0, t.fixed_bad);
}

/* Fixed on /dev/prf: CPU c samples first at (1 + c / nr_cpu_ids) P. */
TEST_F_TIMEOUT(phase, fixed_all_cpus_device_staggers_its_cpus, 120)
{
	int n = prf_nr_possible(), c, lo = -1, hi = -1, m = 0, r;
	double d, on;
	__u64 got = 0;

	if (variant->flags)
		SKIP(return, "one variant is enough");
	for (c = 0; c < n; c++) {
		if (prf_cpu_online(c) != 1 || prf_cpu_isolated(c))
			continue;
		if (lo < 0)
			lo = c;
		hi = c;
		m++;
	}
	if (m < 2)
		SKIP(return, "needs two CPUs sampled by /dev/prf");
	/* after the first CPU's first sample, well before the last's */
	d = 1 + (lo + hi) / (2.0 * n);
	for (r = 0; r < 3; r++) {
		load(_metadata, self->fd, 1, PRF_FLAG_FIXED);
		ASSERT_EQ(0, prf_on(self->fd));
		prf_sleep(d);
		ASSERT_EQ(0, prf_off(self->fd));
		on = on_seconds(self->fd);
		got = sampled(self->fd);
		TH_LOG("fixed /dev/prf at 1 Hz, CPUs %d..%d of %d (%d sampled), "
		       "ON %.3fs: %llu samples", lo, hi, n, m, on,
		       (unsigned long long)got);
		if (on < 1 + (double)hi / n)
			break;
	}
	ASSERT_GT(1 + (double)hi / n, on) TH_LOG("never ON for less than %.3fs",
						 1 + (double)hi / n);
	/* all at once would give m (or 0) */
	EXPECT_LE(1, got);
	EXPECT_GE(m - 1, got);
}

/*
 * What the workload saw of its own vCPU, period by period (the guest's
 * own measure of whether a tick could be on time).  A period is clean
 * when the workload read the clock in the kernel half just before its
 * tick (at most 0.05 P before) and again soon after it (under 0.4 P
 * after): its vCPU ran across the tick.  That alone does not put the
 * timer's interrupt in the kernel half: under TCG the guest's timer is
 * raised by another host thread than the vCPU's, and on a busy host it
 * comes late while the vCPU runs on (74% kernel on such periods,
 * arm64 under make check's load).  So a timerfd of the same period,
 * armed just after ON, is read after each read of the kernel half: a
 * clean period is also timely when its tick's expiry was seen there,
 * under 0.4 P after the tick, and the locked instance's tick, due no
 * later, then fired in the kernel half.  In the sleeping half of each
 * period (at 0.5 P) the workload reads the locked instance's tallies: a
 * clean period whose delta is exactly one sample is "sampled", and
 * "kernel" when that sample was in the kernel.  The
 * default instance's are counted the same way, as the control: its one
 * sample between two reads is uniform over a whole period, so on clean
 * periods too it is in the kernel half the time (the choice of periods
 * does not pick kernel samples by itself).
 */
struct clean_periods {
	int periods;		/* ticks passed */
	int clean;
	int timely;		/* clean, and the timerfd's tick seen in time */
	int sampled;		/* clean, one sample since the last read */
	int kernel;		/* of those, in the kernel */
	int dsampled, dkernel;	/* the same of the default instance */
	double on_s;		/* the longest PRF_ON of the locked instance */
	double kernel_s;	/* the workload's time in its kernel half */
	double run_s;		/* from ON to OFF */
};

/* Kernel samples (any not user or idle) and all, of @fd so far. */
static void tallies(int fd, __u64 *kernel, __u64 *total)
{
	struct prf_info info;

	if (prf_info(fd, &info)) {
		*kernel = *total = ~0ULL;
		return;
	}
	*total = info.ticks_total;
	*kernel = info.ticks_total - info.ticks_user - info.ticks_idle;
}

/* Sleep until @t on prf_now()'s clock (CLOCK_MONOTONIC). */
static void sleep_until(double t)
{
	struct timespec ts = {
		.tv_sec = (time_t)t,
		.tv_nsec = (long)((t - (time_t)t) * 1e9),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * Pinned to @cpu, turn @locked (PRF_FLAG_FIXED at @hz) ON at t0, then @dflt
 * (the default placement, @hz) at once, and run for @secs, and on up to
 * @max_secs until @want clean periods were sampled by @locked and @dwant by
 * @dflt: kernel work from
 * 0.05 P before to 0.45 P after t0 + k P, asleep otherwise.  Only
 * timely clean periods (struct clean_periods) are judged.  Fills each
 * instance's info, and @cp.
 */
static void phase_locked_run(struct __test_metadata *_metadata, int cpu,
			     int locked, int dflt, __u32 hz, double secs,
			     double max_secs, int want, int dwant,
			     struct prf_info *li, struct prf_info *di,
			     struct clean_periods *cp)
{
	/* the kernel half in the kernel, not between reads (vDSO clock
	 * reads, the loop): 64 KiB left 15% to 20% of it in user mode */
	static char buf[1 << 20];
	double period = 1.0 / hz, t0, t, ph, last, t1;
	long k, seen = 0, read_k = 0, timely_k = 0;
	struct itimerspec its = { 0 };
	uint64_t fired = 0, n;
	int tfd;
	__u64 pk = 0, pt = 0, nk, nt, dk = 0, dt = 0, ndk, ndt;
	bool clean = false;
	int zero, tries;
	char cs[64] = "?";

	memset(cp, 0, sizeof(*cp));
	load(_metadata, locked, hz, PRF_FLAG_FIXED);
	load(_metadata, dflt, hz, 0);
	ASSERT_EQ(0, prf_pin_self(cpu));
	zero = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, zero);
	prf_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		      cs, sizeof(cs));
	TH_LOG("clocksource %.*s", (int)strcspn(cs, "\n"), cs);
	/*
	 * t0 is known within the time ON took: a vCPU descheduled meanwhile
	 * would shift the phase, so ON again (cleared) until it took less
	 * than 0.02 P.
	 */
	for (tries = 0; tries < 20; tries++) {
		t0 = prf_now();
		ASSERT_EQ(0, prf_on(locked));
		t1 = prf_now();
		if (t1 - t0 > cp->on_s)
			cp->on_s = t1 - t0;
		if (t1 - t0 < 0.02 * period)
			break;
		ASSERT_EQ(0, prf_off(locked));
		ASSERT_EQ(0, prf_clear(locked));
	}
	EXPECT_EQ(0, prf_on(dflt));
	/* the timerfd's ticks at t1 + k P: after the locked instance's */
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ASSERT_LE(0, tfd);
	its.it_interval.tv_nsec = (long)(period * 1e9) % 1000000000;
	its.it_interval.tv_sec = (time_t)period;
	its.it_value.tv_sec = (time_t)(t1 + period);
	its.it_value.tv_nsec = (long)((t1 + period - its.it_value.tv_sec) * 1e9);
	ASSERT_EQ(0, timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL));
	last = t0;
	while ((t = prf_now()) < t0 + secs ||
	       ((cp->sampled < want || cp->dsampled < dwant) &&
		t < t0 + max_secs)) {
		k = (long)floor((t - t0) / period);
		ph = (t - t0) / period - k;
		if (k > seen) {
			/* the first look after tick k (t0 + k P) */
			double tick = t0 + k * period;

			cp->periods += k - seen;
			clean = k == seen + 1 && tick - last <= 0.05 * period &&
				t - tick < 0.4 * period;
			cp->clean += clean;
			seen = k;
		}
		if (ph >= 0.5 && ph < 0.95 && read_k < k) {
			/* tick k's sample is in, tick k + 1's not yet */
			tallies(locked, &nk, &nt);
			tallies(dflt, &ndk, &ndt);
			clean = clean && timely_k == k;
			cp->timely += clean;
			if (clean && read_k == k - 1 && nt - pt == 1) {
				cp->sampled++;
				cp->kernel += nk - pk == 1;
			}
			if (clean && read_k == k - 1 && ndt - dt == 1) {
				cp->dsampled++;
				cp->dkernel += ndk - dk == 1;
			}
			pk = nk;
			pt = nt;
			dk = ndk;
			dt = ndt;
			read_k = k;
		}
		last = t;
		if (ph < 0.45 || ph >= 0.95) {
			double tw = t;

			if (read(zero, buf, sizeof(buf)) < 0)
				break;
			/* tick k's expiry, the first seen, and in time */
			if (read(tfd, &n, sizeof(n)) == sizeof(n)) {
				fired += n;
				t = prf_now();
				if (n == 1 && (long)fired == k && ph < 0.45 &&
				    t - (t0 + k * period) < 0.4 * period)
					timely_k = k;
			}
			cp->kernel_s += prf_now() - tw;
		} else {
			/*
			 * Asleep to 0.5 P (then the tallies above), then to
			 * 0.95 P, the next kernel half.
			 */
			sleep_until(t0 + (k + (ph < 0.5 ? 0.5 : 0.95)) * period);
		}
	}
	cp->run_s = prf_now() - t0;
	EXPECT_EQ(0, prf_off(dflt));
	EXPECT_EQ(0, prf_off(locked));
	close(zero);
	close(tfd);
	ASSERT_EQ(0, prf_info(locked, li));
	ASSERT_EQ(0, prf_info(dflt, di));
}

/* The kernel share of what @info's instance took, logged. */
static double kernel_share(struct __test_metadata *_metadata,
			   const char *what, int cpu,
			   const struct prf_info *info)
{
	__u64 kernel = info->ticks_total - info->ticks_user - info->ticks_idle;
	double share = info->ticks_total ?
		(double)kernel / info->ticks_total : -1;

	TH_LOG("%s, %d Hz on CPU %d, kernel around each t0 + kP: "
	       "%.1f%% kernel of %llu taken (%llu user, %llu idle, %llu lost)",
	       what, LOCKED_HZ, cpu, 100 * share,
	       (unsigned long long)info->ticks_total,
	       (unsigned long long)info->ticks_user,
	       (unsigned long long)info->ticks_idle,
	       (unsigned long long)info->ticks_lost);
	return share;
}

/*
 * The default (/dev/prfc) sees both halves of a workload locked to t0 + kP
 * alike, where PRF_FLAG_FIXED (a private instance on CPU c), ON at t0 and
 * counting the same run, sees the kernel half: the construction does
 * separate the two.
 */
TEST_F_TIMEOUT(phase, periodic_workload_locks_fixed_not_default, 300)
{
	int cpu = self->ncpus > 1 ? 1 : 0, fixed;
	struct clean_periods cp;
	struct prf_info li, di;
	double locked, dflt, kshare;

	if (variant->flags)
		SKIP(return, "one variant is enough");
	PRF_SKIP_ON_DEBUG_KERNEL();
	if (self->cpu[cpu] < 0)
		SKIP(return, "no /dev/prf%d", cpu);
	fixed = prf_open_clone();
	ASSERT_LE(0, fixed) TH_LOG("open /dev/prfclone: %s", strerror(-fixed));
	ASSERT_EQ(0, prf_set_cpu(fixed, cpu));
	phase_locked_run(_metadata, cpu, fixed, self->cpu[cpu], LOCKED_HZ,
			 30.0, 220.0, 100, 60, &li, &di, &cp);
	close(fixed);
	locked = kernel_share(_metadata, "fixed (private instance)", cpu, &li);
	dflt = kernel_share(_metadata, "default (/dev/prfN)", cpu, &di);
	kshare = cp.run_s > 0 ? cp.kernel_s / cp.run_s : 0;
	TH_LOG("%d periods, %d clean (the vCPU ran across the tick), %d of "
	       "them timely (the timerfd's tick seen in the kernel half): fixed "
	       "sampled %d of those once, %d in the kernel; default %d, %d in "
	       "the kernel; ON took %.1f ms at most; the workload was in its "
	       "kernel half %.1f%% of the run",
	       cp.periods, cp.clean, cp.timely, cp.sampled, cp.kernel, cp.dsampled,
	       cp.dkernel, 1e3 * cp.on_s, 100 * kshare);
	/*
	 * 30 s, or up to 220 s until 100 and 60 timely periods were sampled
	 * (a guest on a host CPU shared with four busy loops had 51 and 29
	 * after 170 s: scripts/starved.sh).  Half the 150 periods at least,
	 * or the run says little.
	 */
	ASSERT_LE(75, di.ticks_total);
	ASSERT_LE(75, li.ticks_total);
	/*
	 * The default, over the whole run, within 20 points of the share of
	 * time the workload itself spent in its kernel half: half of each
	 * period less what its wake-ups came late (a guest on a busy host
	 * wakes from its sleep late: 37% measured beside three other guests
	 * on two host cores).
	 */
	EXPECT_LE(kshare - 0.20, dflt);
	EXPECT_GE(kshare + 0.20, dflt);
	/*
	 * Locked, every sample falls in the kernel part; but a guest
	 * descheduled by a busy host samples late, into the other half (74%
	 * measured at a host load of 10, under 70% at 20): the whole run's
	 * share measured the host.  So judge the periods the workload itself
	 * saw its vCPU run across the tick and a timer of the same tick fire
	 * in time (struct clean_periods): there a locked sample is in the
	 * kernel but for the user instructions between two reads (93% to
	 * 97% kernel measured, x86 and arm64, from a quiet host to one at
	 * load 16 that gave the guest a sixth of a CPU), where a sampler that
	 * is not locked to ON is in it half the time.  70% at C = 100: 4
	 * standard deviations (0.5 sqrt(C)) above a sampler not locked; at
	 * the fewest judged, C = 40, 2.5 above it.  (75% failed once: 90 of
	 * 122 on debian-6.1-arm64 in a warm make check, four lanes on two
	 * cores: the clean periods do not keep all of the host out.)
	 */
	ASSERT_LE(40, cp.sampled)
		TH_LOG("too few timely clean periods in %.0f s to judge", 220.0);
	EXPECT_LE(0.70 * cp.sampled, cp.kernel);
	/*
	 * The control: the default, on the same periods, is not locked, so
	 * the choice of periods does not pick kernel samples by itself (at
	 * the fewest judged, 30, 2.7 standard deviations above its half).
	 */
	ASSERT_LE(30, cp.dsampled);
	EXPECT_GT(0.75 * cp.dsampled, cp.dkernel);
	(void)locked;
}

TEST_HARNESS_MAIN
