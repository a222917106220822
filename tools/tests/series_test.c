// SPDX-License-Identifier: GPL-2.0-only
/*
 * series_test - unit tests of prf daemon's per-function series
 * (src/daemon_series.c), interval by interval, no clock and no device:
 *
 *  - a function entering the top while every slot is held (the top's N,
 *    and the whole bound) has its series from that interval on;
 *  - a series whose function left the top stays for the staleness window
 *    (stale whole intervals), then leaves, with room to spare under the
 *    bound;
 *  - under churn (5 of 100 functions in the top, changing every
 *    interval) never more than the bound, every function of the top
 *    live, a series gone early only at the bound and the stalest one,
 *    counted as evicted; with less churn than the bound, none evicted;
 *  - the samples add up: each interval's samples go to exactly one shown
 *    series ([other] included), and every series ever made and [other]
 *    together hold every sample counted.
 *
 *   series_test     (TAP; tests/daemon_tests.sh runs it)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

#include "tap.h"

/* A dmetrics of nfn functions (fn0 .. fnN-1), none live, top and its bound. */
static void setup(struct dmetrics *m, size_t nfn, size_t top)
{
	memset(m, 0, sizeof(*m));
	m->fn = calloc(nfn, sizeof(*m->fn));
	if (!m->fn) {
		perror("calloc");
		exit(2);
	}
	m->nfn = nfn;
	m->top = top;
	m->cap = DSERIES_CAP(top);
}

static size_t live(const struct dmetrics *m)
{
	size_t k, n = 0;

	for (k = 0; k < m->nfn; k++)
		n += m->fn[k].live != 0;
	return n;
}

/* The top of one interval: the functions given, then the choice of tick. */
static void choose(struct dmetrics *m, uint64_t tick, uint64_t stale, size_t ntop, ...)
{
	size_t top[16], i;
	va_list ap;

	va_start(ap, ntop);
	for (i = 0; i < ntop && i < 16; i++)
		top[i] = va_arg(ap, size_t);
	va_end(ap);
	dseries_choose(m, top, ntop, tick, stale);
}

/* The bound held by old series: a newcomer of the top gets its own at once. */
static void test_newcomer(void)
{
	struct dmetrics m;
	uint64_t t, before;
	size_t k;
	int held = 1;

	setup(&m, 10, 2);	/* top 2: at most 8 series */
	/* fn0..fn7 through the top two by two: 8 series, none stale (5 intervals) */
	for (t = 1; t <= 4; t++)
		choose(&m, t, 5, 2, (size_t)(2 * t - 2), (size_t)(2 * t - 1));
	for (k = 0; k < 8; k++)
		held &= m.fn[k].live;
	ok(held && m.nlive == 8 && m.nlive == m.cap,
	   "newcomer: the bound held (%zu of %zu series), none stale", m.nlive, m.cap);
	/* fn8 and fn9 enter the top (both slots held by fn6, fn7 before) */
	choose(&m, 5, 5, 2, (size_t)8, (size_t)9);
	ok(m.fn[8].live && m.fn[9].live,
	   "newcomer: functions entering the top at the bound have their series in the same interval (fn8 %d, fn9 %d)",
	   m.fn[8].live, m.fn[9].live);
	ok(!m.fn[0].live && !m.fn[1].live && m.fn[2].live && m.nlive == 8 &&
	   m.series_evicted == 2 && m.series_retired == 2 && m.series_created == 10,
	   "newcomer: the two series out of the top the longest (fn0, fn1) evicted for them, counted (evicted %" PRIu64
	   ", retired %" PRIu64 ", created %" PRIu64 ")", m.series_evicted, m.series_retired,
	   m.series_created);
	/* it counts from the next interval on */
	before = m.other;
	dseries_count(&m, 8, 7);
	dseries_count(&m, 0, 3);
	ok(m.fn[8].samples == 7 && m.other == before + 3,
	   "newcomer: its samples of the next interval are its own (7), an evicted one's go to [other] (3)");
	/* back in the top: its series again, going on from its value */
	m.fn[0].samples = 11;
	choose(&m, 6, 5, 2, (size_t)0, (size_t)8);
	dseries_count(&m, 0, 1);
	ok(m.fn[0].live && m.fn[0].samples == 12,
	   "newcomer: a retired function back in the top goes on from its value (12)");
	free(m.fn);
}

/* Below the bound a series stays for the staleness window, then leaves. */
static void test_stale(void)
{
	struct dmetrics m;
	uint64_t t, stale = 3;
	int early = 0, late = 0;

	setup(&m, 6, 1);	/* top 1: at most 4 series */
	choose(&m, 1, stale, 1, (size_t)0);	/* fn0 the top of interval 1 */
	/*
	 * fn1, fn2, fn0's successors: fn0 out of the top from the end of
	 * interval 1, so for stale whole intervals at the end of interval
	 * 1 + stale, the choice of tick 2 + stale.
	 */
	for (t = 2; t <= 8; t++) {
		choose(&m, t, stale, 1, (size_t)(t < 4 ? t - 1 : 2));
		if (t <= 1 + stale && !m.fn[0].live)
			early = 1;
		if (t >= 2 + stale && m.fn[0].live)
			late = 1;
	}
	ok(!early, "stale: a series stays while its function has been out of the top less than --metrics-stale (3 intervals), other functions entering meanwhile");
	ok(!late && m.series_retired == 2 && m.series_evicted == 0,
	   "stale: then it leaves, gone stale, not evicted (retired %" PRIu64 ", evicted %" PRIu64 ")",
	   m.series_retired, m.series_evicted);
	ok(!m.fn[1].live && m.fn[2].live && m.nlive == 1,
	   "stale: fn1 gone stale too, fn2 (the top) left alone (%zu live)", m.nlive);
	free(m.fn);
	/* --metrics-stale below an interval: one interval */
	setup(&m, 2, 1);
	choose(&m, 1, 0, 1, (size_t)0);
	choose(&m, 2, 0, 1, (size_t)1);
	early = !m.fn[0].live;
	choose(&m, 3, 0, 1, (size_t)1);
	ok(!early && !m.fn[0].live, "stale: a window under an interval keeps a series one interval");
	free(m.fn);
}

/* A small deterministic generator (xorshift). */
static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * Churn: each interval nf functions' samples counted, then a top of 5 of
 * them chosen at random.  The rule checked after every choice; the sums
 * after every interval's counting.  The number of series evicted returned.
 */
static uint64_t churn(size_t nf, uint64_t stale, uint64_t ticks, const char *what)
{
	struct dmetrics m;
	uint64_t t, total = 0;
	int *was_live = calloc(nf, sizeof(*was_live));
	int over = 0, top_dead = 0, early = 0, unfair = 0, lost = 0, lost_shown = 0, counted = 0;
	size_t top[5], i, k, n;

	if (!was_live) {
		perror("calloc");
		exit(2);
	}
	setup(&m, nf, 5);
	for (t = 1; t <= ticks; t++) {
		uint64_t shown = m.other, all, ev = m.series_evicted, in = 0, stalest;
		int pressed;

		/* the interval's samples: each function 0..9, outside the table 0..4 */
		for (k = 0; k < nf; k++)
			if (m.fn[k].live)
				shown += m.fn[k].samples;
		for (k = 0; k < nf; k++) {
			n = rnd() % 10;
			dseries_count(&m, (int64_t)k, n);
			in += n;
		}
		n = rnd() % 5;
		dseries_count(&m, -1, n);
		in += n;
		total += in;
		/* every sample of the interval in a series shown during it */
		{
			uint64_t now = m.other;

			for (k = 0; k < nf; k++)
				if (m.fn[k].live)
					now += m.fn[k].samples;
			lost_shown |= now - shown != in;
		}
		all = m.other;
		for (k = 0; k < nf; k++)
			all += m.fn[k].samples;
		lost |= all != total;
		/* the top: 5 distinct at random */
		for (i = 0; i < 5; i++) {
			size_t j;

			do {
				top[i] = rnd() % nf;
				for (j = 0; j < i && top[j] != top[i]; j++)
					;
			} while (j < i);
		}
		for (k = 0; k < nf; k++)
			was_live[k] = m.fn[k].live;
		pressed = m.nlive + 5 > m.cap;
		dseries_choose(&m, top, 5, t, stale);
		over |= m.nlive > m.cap || live(&m) != m.nlive ||
			m.series_created - m.series_retired != m.nlive;
		for (i = 0; i < 5; i++)
			top_dead |= !m.fn[top[i]].live;
		/* the live ones not of this top: the stalest kept is no staler than any evicted */
		for (k = 0, stalest = t; k < nf; k++)
			if (m.fn[k].live && m.fn[k].last_top < t && m.fn[k].last_top < stalest)
				stalest = m.fn[k].last_top;
		for (k = 0, n = 0; k < nf; k++) {
			if (!was_live[k] || m.fn[k].live)
				continue;
			if (m.fn[k].last_top + stale >= t) {	/* gone before stale */
				n++;
				early |= !pressed;
				unfair |= m.fn[k].last_top > stalest;
			}
		}
		early |= n != m.series_evicted - ev || (n && m.nlive != m.cap);
		counted++;
	}
	ok(!over && counted == (int)ticks,
	   "churn (%s): never more than 4 x --metrics-top series (%zu live at the end, %" PRIu64
	   " made, %" PRIu64 " retired)", what, m.nlive, m.series_created, m.series_retired);
	ok(!top_dead, "churn (%s): every function of the top has its series in the interval it enters", what);
	ok(!early, "churn (%s): a series leaves before stale only at the bound, each one counted as evicted (%" PRIu64 ")",
	   what, m.series_evicted);
	ok(!unfair, "churn (%s): the one evicted is the series out of the top the longest", what);
	ok(!lost_shown, "churn (%s): each interval's samples all in the series shown during it and [other]", what);
	ok(!lost, "churn (%s): every series made and [other] add up to every sample counted (%" PRIu64 ")",
	   what, total);
	free(m.fn);
	free(was_live);
	return m.series_evicted;
}

int main(void)
{
	uint64_t ev;

	test_newcomer();
	test_stale();
	/* 5 of 100 in the top, 4 intervals' window: ~25 wanted, 20 allowed */
	ev = churn(100, 4, 500, "100 functions");
	ok(ev > 0, "churn (100 functions): the bound reached, series evicted (%" PRIu64 ")", ev);
	/* 5 of 12, 1 interval: at most 5 + 5 wanted, never the bound */
	ev = churn(12, 1, 500, "12 functions");
	ok(ev == 0, "churn (12 functions): below the bound no series evicted (%" PRIu64 ")", ev);
	return tap_end();
}
