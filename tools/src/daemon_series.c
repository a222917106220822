// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon_series - which functions have a series of their own in prf
 * daemon's /metrics (--metrics-top), and where each interval's samples
 * are counted.  The rule, whole:
 *
 *  - a function of the top chosen for interval tick has a live series
 *    from that interval on, at once: made at 0 when new, going on from
 *    its value when it had one before;
 *  - a live series leaves (is retired) once its function has been out of
 *    the top for stale whole intervals (--metrics-stale), not before;
 *  - at most cap live series (DSERIES_CAP: 4 x --metrics-top).  A
 *    function entering the top when cap are live takes the place of the
 *    series out of the top the longest, which leaves early (evicted,
 *    counted apart); never one of the top.  So a function of the top
 *    never waits, and labels stay bounded.
 *
 * The caller holds dshared.lock (cmd_daemon.c's collection thread); no
 * allocation here, so nothing fails.
 */
#include "daemon.h"

void dseries_count(struct dmetrics *m, int64_t k, uint64_t n)
{
	if (k >= 0 && (size_t)k < m->nfn && m->fn[k].live)
		m->fn[k].samples += n;
	else
		m->other += n;
}

static void leave(struct dmetrics *m, size_t k, int early)
{
	m->fn[k].live = 0;
	m->nlive--;
	m->series_retired++;
	if (early)
		m->series_evicted++;
}

/* The live series not in the top of tick out of it the longest (ties: the first). */
static size_t stalest(const struct dmetrics *m, uint64_t tick)
{
	size_t k, best = m->nfn;

	for (k = 0; k < m->nfn; k++)
		if (m->fn[k].live && m->fn[k].last_top < tick &&
		    (best == m->nfn || m->fn[k].last_top < m->fn[best].last_top))
			best = k;
	return best;
}

void dseries_choose(struct dmetrics *m, const size_t *top, size_t ntop, uint64_t tick,
		    uint64_t stale)
{
	size_t i, k;

	if (!stale)
		stale = 1;
	for (i = 0; i < ntop; i++)
		m->fn[top[i]].last_top = tick;
	/*
	 * Out of the top for stale intervals: a series last in the top of
	 * interval t has been out of it since the end of t, so stale whole
	 * intervals by the choice made at the end of t + stale (tick t +
	 * stale + 1).
	 */
	for (k = 0; k < m->nfn; k++)
		if (m->fn[k].live && m->fn[k].last_top + stale < tick)
			leave(m, k, 0);
	/* Fewer allowed (SIGHUP lowered --metrics-top): the stalest first. */
	while (m->nlive > m->cap && (k = stalest(m, tick)) < m->nfn)
		leave(m, k, 1);
	for (i = 0; i < ntop; i++) {
		struct dfunc *f = &m->fn[top[i]];

		if (f->live)
			continue;
		if (m->nlive >= m->cap) {
			k = stalest(m, tick);
			if (k == m->nfn)	/* cap below the top: it waits */
				continue;
			leave(m, k, 1);
		}
		f->live = 1;
		m->nlive++;
		m->series_created++;
	}
}
