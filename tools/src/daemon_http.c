// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon_http - prf daemon's HTTP server for scrapers (libmicrohttpd):
 * GET /metrics, GET /debug/pprof/profile?seconds=N.  Read only.  What it
 * serves comes through the struct dhttp_ops it is given (daemon.h); over
 * libmicrohttpd's TLS (GnuTLS) and with basic authentication when the web
 * configuration (webconf.h) asks for them.
 *
 * Threads: the users are read by every connection's thread and replaced
 * on SIGHUP by the main thread (dhttp_reload), under users_lock; the
 * bcrypt check runs under its read side, so checks run side by side.
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
#include "webconf.h"

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

/* 1 when listen's address is a loopback one, else 0 (a bad one too). */
int dhttp_loopback(const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;

	if (dhttp_parse_listen(listen, &ss, &sl, NULL, 0))
		return 0;
	if (ss.ss_family == AF_INET)
		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	if (ss.ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) ||
		       (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127);
	return 0;
}

#ifdef PRF_NO_HTTP

struct dhttp *dhttp_start(const char *listen, struct webconf *web, const struct dhttp_ops *ops,
			  void *ctx, char *err, size_t errlen)
{
	(void)listen;
	(void)ops;
	(void)ctx;
	webconf_free(web);
	seterr(err, errlen, "this prf was built without HTTP (libmicrohttpd)");
	return NULL;
}

int dhttp_reload(struct dhttp *h, struct webconf *web)
{
	(void)h;
	(void)web;
	return -1;
}

void dhttp_stop(struct dhttp *h)
{
	(void)h;
}

#else

#include <microhttpd.h>

struct dhttp {
	struct MHD_Daemon *d;
	const struct dhttp_ops *ops;
	void *ctx;
	pthread_rwlock_t users_lock;
	struct webconf web;	/* its cert and key: MHD's until it stops */
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

	if (h->ops->metrics(h->ctx, &text, &len))
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

/* The next N seconds as pprof's gzipped profile.proto (ops->profile). */
static enum MHD_Result profile(struct dhttp *h, struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	struct stat st;
	char text[SNAP_ERRLEN + 2];
	unsigned secs = profile_seconds(conn);
	enum MHD_Result ret;
	int fd = -1, code;

	if (!secs)
		return answer(conn, MHD_HTTP_BAD_REQUEST,
			      "seconds: want a whole number, 1..300\n");
	code = h->ops->profile(h->ctx, secs, &fd, text, sizeof(text));
	if (code != MHD_HTTP_OK)
		return answer(conn, (unsigned)code, text);
	if (fstat(fd, &st)) {
		snprintf(text, sizeof(text), "%s\n", strerror(errno));
		close(fd);
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
 * Basic authentication, when the web configuration has users: 1 when the
 * request's user and password are one of them, else 0.
 */
static int authorized(struct dhttp *h, struct MHD_Connection *conn)
{
	char *user, *pass = NULL;
	int ok;

	pthread_rwlock_rdlock(&h->users_lock);
	if (!h->web.nusers) {
		pthread_rwlock_unlock(&h->users_lock);
		return 1;
	}
	user = MHD_basic_auth_get_username_password(conn, &pass);
	ok = user && pass && webconf_check(&h->web, user, pass);
	pthread_rwlock_unlock(&h->users_lock);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/* 401 with the challenge: no more than that said. */
static enum MHD_Result unauthorized(struct MHD_Connection *conn)
{
	static const char text[] = "unauthorized\n";
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	ret = MHD_queue_basic_auth_fail_response(conn, "prf", r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * Every request: GET or HEAD of /metrics or /debug/pprof/profile; anything
 * else is answered at its first call, before any body is read (MHD then
 * closes the connection): 401 without the credentials the configuration
 * asks for, 405 another method, 413 a body, 404 another path.
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
	h->ops->request(h->ctx);
	if (!authorized(h, conn))
		return unauthorized(conn);
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

struct dhttp *dhttp_start(const char *listen, struct webconf *web, const struct dhttp_ops *ops,
			  void *ctx, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct dhttp *h;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_ERROR_LOG | MHD_USE_ITC;

	if (dhttp_parse_listen(listen, &ss, &sl, err, errlen)) {
		webconf_free(web);
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		webconf_free(web);
		seterr(err, errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	h->ops = ops;
	h->ctx = ctx;
	if (web) {
		h->web = *web;
		memset(web, 0, sizeof(*web));
	}
	pthread_rwlock_init(&h->users_lock, NULL);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (h->web.tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		seterr(err, errlen, "%s: this libmicrohttpd has no TLS", h->web.path);
		goto fail;
	}
	if (h->web.tls)
		flags |= MHD_USE_TLS;
	/* Without TLS, the TLS options are left out: MHD_OPTION_END comes first. */
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONN,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)HTTP_MAX_PER_IP,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_SEC,
				MHD_OPTION_THREAD_STACK_SIZE, (size_t)(512 * 1024),
				h->web.tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END,
				h->web.key,
				MHD_OPTION_HTTPS_MEM_CERT, h->web.cert,
				MHD_OPTION_HTTPS_PRIORITIES, h->web.priorities,
				MHD_OPTION_END);
	if (!h->d) {
		seterr(err, errlen, "--listen %s: cannot serve there (%s)", listen,
		       h->web.tls ? "libmicrohttpd refused: the address, the certificate or its key" :
		       errno ? strerror(errno) : "libmicrohttpd refused");
		goto fail;
	}
	return h;
fail:
	pthread_rwlock_destroy(&h->users_lock);
	webconf_free(&h->web);
	free(h);
	return NULL;
}

int dhttp_reload(struct dhttp *h, struct webconf *web)
{
	struct webuser *users;
	size_t nusers;

	if (!h || !webconf_same_tls(&h->web, web))
		return -1;
	/* the users alone: MHD keeps the certificate and key it was given */
	pthread_rwlock_wrlock(&h->users_lock);
	users = h->web.users;
	nusers = h->web.nusers;
	h->web.users = web->users;
	h->web.nusers = web->nusers;
	pthread_rwlock_unlock(&h->users_lock);
	web->users = users;
	web->nusers = nusers;
	webconf_free(web);
	return 0;
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
	pthread_rwlock_destroy(&h->users_lock);
	webconf_free(&h->web);
	free(h);
}

#endif /* PRF_NO_HTTP */
