// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon_profile - what prf daemon's /debug/pprof/profile serves: the
 * collection's counters read twice, N seconds apart, their difference as
 * prfpr --pprof writes it; with the user objects table (--user-objs), the
 * table read with each, its difference the profile's user rows and chains.  The HTTP server (daemon_http.c) is given it
 * through struct dhttp_ops; it knows nothing of HTTP but the status it
 * answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "pprof.h"
#include "report.h"
#include "uobj.h"

/* The daemon's names name the device's table now (dshared.names); lock held. */
static int names_current(const struct dshared *sh, uint64_t gen)
{
	return sh->c->table_whole && sh->names && sh->names->e && sh->names_gen == gen &&
	       sh->gen == gen;
}

int daemon_read_uobjs(struct dshared *sh, struct snapshot *s)
{
	struct snap_uobjs *u = calloc(1, sizeof(*u));

	if (!u || prf_read_uobjs(sh->p, &u->h, &u->e, &u->f) ||
	    (sh->uchains && prf_read_uchains(sh->p, &u->ch, &u->recs, &u->cf))) {
		snap_uobjs_free(u);
		return -1;
	}
	u->chains_on = sh->uchains && u->ch.depth;
	s->uobjs = u;
	return 0;
}

/* A capture of the collection for a profile: 0, 1 (none now), -1 (failed). */
static int profile_capture(struct dshared *sh, struct snapshot *s, uint64_t *gen)
{
	int ret = 1;

	pthread_mutex_lock(&sh->lock);
	if (sh->p) {
		*gen = sh->gen;
		ret = capture(sh->p, sh->c, names_current(sh, *gen) ? sh->names : &sh->http_t,
			      s) ? -1 : 0;
		if (!ret && sh->uobjs && daemon_read_uobjs(sh, s))
			ret = -1;
	}
	pthread_mutex_unlock(&sh->lock);
	return ret;
}

/*
 * The user objects of the profile: the second capture's table less the
 * first's (uobj_snap_delta), named from the files (outside the lock: it
 * reads their symbols).  0 (*named set when there are any), or -1 and err.
 */
static int profile_uobjs(const struct snapshot *s, struct uobj_res *u, int *named, char *err,
			 size_t errlen)
{
	struct snap_uobjs *d = NULL;
	int ret;

	*named = 0;
	if (!s[0].uobjs || !s[1].uobjs)
		return 0;
	if (uobj_snap_delta(s[1].uobjs, s[0].uobjs, &d)) {
		snprintf(err, errlen, "user objects: %s", strerror(ENOMEM));
		return -1;
	}
	ret = uobj_resolve_snap(d, u, err, errlen);
	snap_uobjs_free(d);
	*named = !ret;
	return ret;
}

/*
 * The counters read now and secs seconds later (a wait that gives the lock
 * back; stopping the daemon ends it with 503).  Without kernel_addresses,
 * the profile's kernel locations are names and offsets alone (pprof.h).
 */
int daemon_profile(struct dshared *sh, unsigned secs, int *fdp, char *text, size_t textlen)
{
	struct snapshot s[2];
	struct snapfile f = { 0 };
	struct report r;
	struct report_opts ro = { 0 };
	struct uobj_res ures = { 0 };
	struct snap_table ut = { 0 };
	struct timespec until;
	char err[SNAP_ERRLEN], path[64];
	uint64_t gen[2] = { 0, 0 };
	int fd, rc, busy, flags, uo = 0;

	pthread_mutex_lock(&sh->lock);
	busy = sh->profiles >= HTTP_MAX_PROFILES;
	if (!busy)
		sh->profiles++;
	pthread_mutex_unlock(&sh->lock);
	if (busy) {
		snprintf(text, textlen, "profiles already running: try again later\n");
		return 429;
	}
	memset(s, 0, sizeof(s));
	rc = profile_capture(sh, &s[0], &gen[0]);
	if (!rc) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += secs;
		pthread_mutex_lock(&sh->lock);
		while (!sh->stopping &&
		       pthread_cond_timedwait(&sh->stop_cond, &sh->lock, &until) != ETIMEDOUT)
			;
		rc = sh->stopping ? 2 : 0;
		pthread_mutex_unlock(&sh->lock);
		if (!rc)
			rc = profile_capture(sh, &s[1], &gen[1]);
		if (!rc && gen[0] != gen[1])
			rc = 3;
	}
	if (!rc && profile_uobjs(s, &ures, &uo, err, sizeof(err)))
		rc = 4;
	pthread_mutex_lock(&sh->lock);
	sh->profiles--;
	pthread_mutex_unlock(&sh->lock);
	if (rc) {
		snapshot_free(&s[0]);
		snapshot_free(&s[1]);
		uobj_res_free(&ures);
		if (rc == 4) {
			snprintf(text, textlen, "%s\n", err);
			return 500;
		}
		snprintf(text, textlen, "%s",
			 rc == 2 ? "the daemon is stopping\n" :
			 rc == 3 ? "the collection was restarted during the profile\n" :
			 "no collection now (the device is gone or busy)\n");
		return 503;
	}
	/*
	 * The two captures as a snapshot file of one table: the daemon's names
	 * while they are the device's table's (both captures were of it, gen
	 * unchanged), else those the captures made.
	 */
	f.ntables = 1;
	f.snaps = s;
	f.nsnaps = 2;
	fd = memfd_create("prf-profile", MFD_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	pthread_mutex_lock(&sh->lock);	/* the names are shared with the other profile */
	flags = sh->kernel_addresses ? 0 : PPROF_NO_KERNEL_ADDRESSES;
	f.tables = names_current(sh, gen[0]) ? sh->names : &sh->http_t;
	if (!f.tables->e || f.tables->n != s[0].n || f.tables->n != s[1].n) {
		snprintf(err, sizeof(err), "the table changed during the profile");
		rc = -1;
	} else {
		rc = report_from_file(&r, &f, 1, 2, err, sizeof(err));
	}
	/* the user rows, named, as prfpr gives those of a snapshot file */
	if (!rc && uo) {
		if (uobj_inject(&r, &ures, &ut)) {
			snprintf(err, sizeof(err), "user objects: %s", strerror(ENOMEM));
			report_free(&r);
			rc = -1;
		} else {
			r.uobjs = &ures;
		}
	}
	if (!rc) {
		report_default_of(&r, &ro);
		rc = fd < 0 ? -1 : pprof_write_flags(path, &r, &ro, flags, err, sizeof(err));
		if (fd < 0)
			snprintf(err, sizeof(err), "memfd_create: %s", strerror(errno));
		report_free(&r);
	}
	/* The names are the daemon's largest allocation: kept only while in use. */
	if (!sh->profiles)
		snap_table_free(&sh->http_t);
	pthread_mutex_unlock(&sh->lock);
	snapshot_free(&s[0]);
	snapshot_free(&s[1]);
	snap_table_free(&ut);
	uobj_res_free(&ures);
	if (rc) {
		if (fd >= 0)
			close(fd);
		snprintf(text, textlen, "%s\n", err);
		return 500;
	}
	*fdp = fd;
	return 200;
}
