/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon - what prf daemon's collection loop (cmd_daemon.c) shares with
 * its HTTP server (daemon_http.c).
 *
 * Threads: the main thread runs the collection (intervals, the store,
 * signals); libmicrohttpd runs one thread a connection, bounded by
 * HTTP_MAX_CONN.  Both take dshared.lock to touch the device (one
 * capture at a time on the one descriptor) and the metrics; nothing
 * holds it across a wait, so a slow client or a profile request of
 * five minutes never delays an interval by more than one capture.  A
 * request never changes the collection: it reads the metrics, or reads
 * the device's counters twice, N seconds apart.
 */
#ifndef PRF_DAEMON_H
#define PRF_DAEMON_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "cmd.h"
#include "snapshot.h"

#define HTTP_MAX_CONN		16	/* connections at once */
#define HTTP_MAX_PER_IP		8
#define HTTP_MAX_PROFILES	2	/* /debug/pprof/profile requests at once */
#define HTTP_MEMORY_LIMIT	(16 * 1024)	/* a request's line and headers */
#define HTTP_TIMEOUT_SEC	10	/* an idle connection is closed */
#define PROFILE_MAX_SEC		300
#define PROFILE_DEFAULT_SEC	30

/*
 * A function that has had a series of its own (--metrics-top): while live,
 * it counts the samples of its function; once retired (out of the top for
 * --metrics-stale, or evicted early at the cap: daemon_series.c), it is not
 * shown and its function's samples go to [other] until it is live again,
 * going on from the value it had.
 */
struct dfunc {
	char *name, *module;	/* module NULL: the kernel */
	uint64_t samples;
	uint64_t last_top;	/* the interval it was last among the top */
	int live;		/* shown, and counting */
};

/* One CPU's prf_cpu_samples_total{cpu,kind}: kernel, user, idle, lost, filtered. */
struct dcpu {
	uint32_t cpu;
	uint64_t v[5];
};

/* The counters /metrics shows: they only grow, whatever the device does. */
struct dmetrics {
	uint64_t kernel, user, idle, lost, filtered;	/* prf_samples_total{kind} */
	struct dcpu *cpu;	/* by ascending CPU: every CPU the device has named */
	size_t ncpu;
	uint64_t mode_dropped, stacks_dropped;
	struct dfunc *fn;	/* every function that has had a series */
	size_t nfn, nlive;	/* nlive of them live: at most cap */
	size_t top, cap;	/* --metrics-top, and the series' bound (DSERIES_CAP) */
	uint64_t other;		/* the kernel samples no live series counted */
	uint64_t series_created, series_retired;
	uint64_t series_evicted;	/* of those retired, the ones before stale */
	uint64_t intervals, table_loads, store_errors, device_errors, http_requests;
	uint64_t module_changes;	/* table reloads for the kernel's modules */
	uint64_t switch_ns;		/* the collection OFF during those */
	int64_t last_interval_ns;	/* CLOCK_REALTIME of the last interval stored */
	uint64_t store_bytes, store_segments;
	uint64_t store_segments_freed;	/* deleted early to make room on a full disk */
	int store_failing;		/* the last interval could not be written */
	int on;			/* the collection is ON now */
	uint32_t mode, hz, depth;
	char device[64];
};

struct dshared {
	pthread_mutex_t lock;
	pthread_cond_t stop_cond;	/* signalled when stopping */
	int stopping;
	struct dmetrics m;
	/* the device, under lock */
	struct prf *p;			/* NULL: no collection now */
	uint64_t gen;			/* each (re)start of the collection */
	const struct common *c;
	/*
	 * The names of the device's table (struct daemon's t), for the
	 * profiles to use under lock rather than name the table again (its
	 * largest allocation).  The collection's thread changes them only with
	 * lock held, and reads them without it; they name the device's current
	 * table while names_gen == gen (set by its capture; a new table, after
	 * a module switch or a restart, comes with gen + 1), and only then, on
	 * its private instance, may another thread's capture pass them to
	 * capture(), which then finds the same addresses and changes nothing.
	 */
	struct snap_table *names;
	uint64_t names_gen;
	struct snap_table http_t;	/* names for the profiles' captures otherwise */
	int profiles;			/* profile requests running */
	int kernel_addresses;		/* the profiles carry the kernel's addresses */
	int uobjs, uchains;		/* the instance has the user objects table, chains */
};

/* The live series at most for --metrics-top top. */
#define DSERIES_CAP(top)	(4 * (top))

/* n samples of m->fn[k]'s function (k -1: none) to its live series, else to [other]. */
void dseries_count(struct dmetrics *m, int64_t k, uint64_t n);
/*
 * dseries_choose - the series for interval tick, whose top is m->fn's
 * entries top[0..ntop) (distinct): each live from now on, the stale ones
 * (out of the top for stale intervals) retired, at most m->cap live
 * (daemon_series.c says the rule whole).
 */
void dseries_choose(struct dmetrics *m, const size_t *top, size_t ntop, uint64_t tick,
		    uint64_t stale);

/* The metrics in the Prometheus text format (malloc'ed): 0, or -1 (no memory). */
int daemon_metrics_text(struct dshared *sh, char **out, size_t *len);

/*
 * daemon_read_uobjs - the instance's user objects table (and chains, when
 * sh->uchains) as read now, into s->uobjs: the chains read after the
 * entries, as prf record reads them.  0 or -1.  sh->lock held (the
 * device's descriptor is shared).
 */
int daemon_read_uobjs(struct dshared *sh, struct snapshot *s);

/*
 * daemon_profile - the next secs seconds of sh's collection as pprof's
 * gzipped profile.proto (daemon_profile.c): 200 and *fd (a memfd, its
 * offset at 0), or an HTTP status (429, 500, 503) and why in text.
 */
int daemon_profile(struct dshared *sh, unsigned secs, int *fd, char *text, size_t textlen);

/*
 * What the HTTP server serves, given to it (it calls nothing of the
 * daemon by name): each called from a connection's thread, with ctx.
 */
struct dhttp_ops {
	void (*request)(void *ctx);	/* every request, counted */
	int (*metrics)(void *ctx, char **out, size_t *len);	/* as daemon_metrics_text */
	int (*profile)(void *ctx, unsigned secs, int *fd, char *text, size_t textlen);
};

struct dhttp;
struct webconf;

/* listen as dhttp_start() takes it, into *ss: 0, or -1 and err. */
int dhttp_parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *sl,
		       char *err, size_t errlen);
/* 1 when listen's address is a loopback one (127.0.0.0/8, ::1), else 0. */
int dhttp_loopback(const char *listen);
/*
 * dhttp_start - serve ops on listen ("PORT", "ADDR:PORT", "[ADDR6]:PORT";
 * 127.0.0.1 when no address is given), over TLS and with basic
 * authentication as web says (NULL: plain HTTP, anyone); web is taken
 * over (freed with the server, or at once when it cannot start).  NULL
 * and err when it cannot.
 */
struct dhttp *dhttp_start(const char *listen, struct webconf *web, const struct dhttp_ops *ops,
			  void *ctx, char *err, size_t errlen);
/*
 * dhttp_reload - web's users for h from now on, when its TLS is h's
 * (webconf_same_tls): web taken over, 0; else -1 (h unchanged, web not
 * taken): the server has to be started again.
 */
int dhttp_reload(struct dhttp *h, struct webconf *web);
void dhttp_stop(struct dhttp *h);

#endif /* PRF_DAEMON_H */
