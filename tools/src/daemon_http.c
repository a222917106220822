// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon_http - prf daemon's HTTP server for scrapers (libmicrohttpd):
 * GET /metrics, GET /debug/pprof/profile?seconds=N.  Read only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "err.h"
#include "pprof.h"
#include "report.h"

/* listen: [ADDR:]PORT, ADDR6 in brackets; into *ss. 0, or -1 and err. */
int dhttp_parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *sl,
			char *err, size_t errlen)
{
	struct addrinfo hints = { 0 }, *ai = NULL;
	char host[128], *colon;
	const char *port = listen, *h = "127.0.0.1";
	int ret;

	if (strlen(listen) >= sizeof(host))
		goto bad;
	strcpy(host, listen);
	if (host[0] == '[') {
		colon = strstr(host, "]:");
		if (!colon)
			goto bad;
		*colon = '\0';
		h = host + 1;
		port = colon + 2;
	} else if ((colon = strrchr(host, ':'))) {
		*colon = '\0';
		h = host;
		port = colon + 1;
	}
	if (!*port || strspn(port, "0123456789") != strlen(port) || atoi(port) > 65535)
		goto bad;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(h, port, &hints, &ai);
	if (ret) {
		seterr(err, errlen, "--listen %s: %s", listen, gai_strerror(ret));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
bad:
	seterr(err, errlen, "--listen %s: want PORT, ADDR:PORT or [ADDR6]:PORT (numeric)",
	       listen);
	return -1;
}

#ifdef PRF_NO_HTTP

struct dhttp *dhttp_start(const char *listen, struct dshared *sh, char *err, size_t errlen)
{
	(void)listen;
	(void)sh;
	seterr(err, errlen, "this prf was built without HTTP (libmicrohttpd)");
	return NULL;
}

void dhttp_stop(struct dhttp *h)
{
	(void)h;
}

#else

#include <microhttpd.h>

struct dhttp {
	struct MHD_Daemon *d;
	struct dshared *sh;
};

/* A plain-text answer; MHD_YES when queued. */
static enum MHD_Result answer(struct MHD_Connection *conn, unsigned code, const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result metrics(struct dhttp *h, struct MHD_Connection *conn)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *text;
	size_t len;

	if (daemon_metrics_text(h->sh, &text, &len))
		return answer(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n");
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* The daemon's names name the device's table now (dshared.names); lock held. */
static int names_current(const struct dshared *sh, uint64_t gen)
{
	return sh->c->table_whole && sh->names && sh->names->e && sh->names_gen == gen &&
	       sh->gen == gen;
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
	}
	pthread_mutex_unlock(&sh->lock);
	return ret;
}

/* seconds=N: 1..PROFILE_MAX_SEC, PROFILE_DEFAULT_SEC when not given; else 0. */
static unsigned profile_seconds(struct MHD_Connection *conn)
{
	const char *v = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "seconds");
	char *end;
	unsigned long n;

	if (!v)
		return PROFILE_DEFAULT_SEC;
	if (*v < '0' || *v > '9')
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < 1 || n > PROFILE_MAX_SEC)
		return 0;
	return (unsigned)n;
}

/*
 * The next N seconds as pprof's gzipped profile.proto: the counters read
 * now and N seconds later (a wait that gives the lock back; stopping the
 * daemon ends it with 503), their difference as prfpr --pprof writes it.
 */
static enum MHD_Result profile(struct dhttp *h, struct MHD_Connection *conn)
{
	struct dshared *sh = h->sh;
	struct snapshot s[2];
	struct snapfile f = { 0 };
	struct report r;
	struct report_opts ro = { 0 };
	struct MHD_Response *resp;
	struct timespec until;
	struct stat st;
	char err[SNAP_ERRLEN], path[64];
	unsigned secs = profile_seconds(conn);
	uint64_t gen[2] = { 0, 0 };
	enum MHD_Result ret;
	int fd, rc, busy;

	if (!secs)
		return answer(conn, MHD_HTTP_BAD_REQUEST,
			      "seconds: want a whole number, 1..300\n");
	pthread_mutex_lock(&sh->lock);
	busy = sh->profiles >= HTTP_MAX_PROFILES;
	if (!busy)
		sh->profiles++;
	pthread_mutex_unlock(&sh->lock);
	if (busy)
		return answer(conn, MHD_HTTP_TOO_MANY_REQUESTS,
			      "profiles already running: try again later\n");
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
	pthread_mutex_lock(&sh->lock);
	sh->profiles--;
	pthread_mutex_unlock(&sh->lock);
	if (rc) {
		snapshot_free(&s[0]);
		snapshot_free(&s[1]);
		return answer(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
			      rc == 2 ? "the daemon is stopping\n" :
			      rc == 3 ? "the collection was restarted during the profile\n" :
			      "no collection now (the device is gone or busy)\n");
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
	f.tables = names_current(sh, gen[0]) ? sh->names : &sh->http_t;
	if (!f.tables->e || f.tables->n != s[0].n || f.tables->n != s[1].n) {
		snprintf(err, sizeof(err), "the table changed during the profile");
		rc = -1;
	} else {
		rc = report_from_file(&r, &f, 1, 2, err, sizeof(err));
	}
	if (!rc) {
		report_default_of(&r, &ro);
		rc = fd < 0 ? -1 : pprof_write(path, &r, &ro, err, sizeof(err));
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
	if (rc || fstat(fd, &st)) {
		char text[SNAP_ERRLEN + 2];

		if (fd >= 0)
			close(fd);
		snprintf(text, sizeof(text), "%s\n", err);
		return answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, text);
	}
	resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
	MHD_add_response_header(resp, "Content-Disposition", "attachment; filename=\"profile\"");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * Every request: GET or HEAD of /metrics or /debug/pprof/profile; anything
 * else is answered at its first call, before any body is read (MHD then
 * closes the connection): 405 another method, 413 a body, 404 another path.
 */
static enum MHD_Result request(void *cls, struct MHD_Connection *conn, const char *url,
			       const char *method, const char *version,
			       const char *upload_data, size_t *upload_data_size, void **ctx)
{
	struct dhttp *h = cls;
	const char *cl;

	(void)version;
	(void)upload_data;
	(void)ctx;
	pthread_mutex_lock(&h->sh->lock);
	h->sh->m.http_requests++;
	pthread_mutex_unlock(&h->sh->lock);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if ((cl && strcmp(cl, "0")) || *upload_data_size ||
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return answer(conn, MHD_HTTP_CONTENT_TOO_LARGE, "no body is accepted\n");
	if (!strcmp(url, "/metrics"))
		return metrics(h, conn);
	if (!strcmp(url, "/debug/pprof/profile"))
		return profile(h, conn);
	return answer(conn, MHD_HTTP_NOT_FOUND,
		      "not found: GET /metrics or /debug/pprof/profile?seconds=N\n");
}

struct dhttp *dhttp_start(const char *listen, struct dshared *sh, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct dhttp *h;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_ERROR_LOG | MHD_USE_ITC;

	if (dhttp_parse_listen(listen, &ss, &sl, err, errlen))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		seterr(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	h->sh = sh;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONN,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_MAX_PER_IP,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_SEC,
				MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024),
				MHD_OPTION_END);
	if (!h->d) {
		seterr(err, errlen, "--listen %s: cannot serve there (%s)", listen,
		       errno ? strerror(errno) : "libmicrohttpd refused");
		free(h);
		return NULL;
	}
	return h;
}

/*
 * Stopping: no new connection, then up to a second for those in progress
 * (a profile woken by sh->stopping sends its 503) before all are closed.
 */
void dhttp_stop(struct dhttp *h)
{
	const union MHD_DaemonInfo *in;
	int i;

	if (!h)
		return;
	MHD_quiesce_daemon(h->d);
	for (i = 0; i < 100; i++) {
		in = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!in || !in->num_connections)
			break;
		usleep(10000);
	}
	MHD_stop_daemon(h->d);
	free(h);
}

#endif /* PRF_NO_HTTP */
