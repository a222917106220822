// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf daemon: a collection kept ON for weeks, an interval recorded every
 * --interval into a bounded store (store.h), and, with --listen, HTTP for
 * scrapers (daemon_http.c).
 *
 * The store holds cumulative counters, as every snapshot file does, but
 * counted by the daemon: each interval adds what the device counted since
 * the interval before (all it counts, when the instance is new, the table
 * was reloaded or the module came back) to the totals of the store's last
 * snapshot of the same table.  So the counters of a table never go back,
 * across restarts of the daemon and of the module, and prfpr reports any
 * two snapshots of the store; a restart costs the samples of the interval
 * it cut.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "cmd.h"
#include "daemon.h"
#include "report.h"
#include "snapshot.h"
#include "stacks.h"
#include "unwind.h"
#include "store.h"
#include "uobj.h"
#include "webconf.h"

#define DAEMON_CONFIG	"/etc/prf/prf.conf"
#define DAEMON_DIR	"/var/lib/prf"
#define METRICS_TOP_MAX	1000
#define MODULES_POLL_SEC	1	/* /proc/modules read this often */
#define ACC_KEPT		2	/* earlier tables' totals kept */

/* The settings: defaults, then the configuration file, then the options. */
struct dconf {
	char *dir, *listen, *device;
	char *web_config;		/* --web-config: NULL, none */
	struct webconf web;		/* what it says, read by dconf_load */
	int insecure;			/* --insecure: another address without TLS and users */
	int kernel_addresses;		/* --kernel-addresses: the profiles carry them */
	int user_objs;			/* --user-objs: the user objects table (and chains) */
	int unwind_fp;			/* --unwind fp: chains by frame records */
	uint64_t unwind_max;		/* --unwind-max: bytes of unwind tables */
	uint64_t interval, retain, max_size, segment, metrics_top, metrics_window;
	uint64_t metrics_stale;	/* --metrics-stale: seconds out of the top before a series leaves */
	uint32_t hz;
	int mode;			/* -1: the device's */
	struct stacks_opt so;
};

static void dconf_free(struct dconf *f)
{
	free(f->dir);
	free(f->listen);
	free(f->device);
	free(f->web_config);
	webconf_free(&f->web);
	memset(f, 0, sizeof(*f));
}

static void dconf_defaults(struct dconf *f)
{
	memset(f, 0, sizeof(*f));
	f->dir = strdup(DAEMON_DIR);
	f->device = strdup("/dev/" PRF_CLONE_NAME);
	f->interval = 60;
	f->retain = 14 * 86400;
	f->max_size = 1024ULL << 20;
	f->metrics_top = 50;
	f->metrics_window = 600;
	f->metrics_stale = 300;
	f->mode = -1;
	f->unwind_max = UNWIND_BOUND_DEFAULT;
}

/* "90", "90s", "15m", "2h", "14d", "2w": seconds, 0 when bad. */
static uint64_t parse_duration(const char *s)
{
	uint64_t v, mul = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	if (*end && end[1])
		return 0;
	switch (*end) {
	case '\0': case 's': break;
	case 'm': mul = 60; break;
	case 'h': mul = 3600; break;
	case 'd': mul = 86400; break;
	case 'w': mul = 7 * 86400; break;
	default: return 0;
	}
	return v > UINT64_MAX / mul / 1000 ? 0 : v * mul;
}

/* "4096", "512K", "100M", "2G": bytes, 0 when bad. */
static uint64_t parse_size(const char *s)
{
	uint64_t v, shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || (*end && end[1]))
		return 0;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	default: return 0;
	}
	return v > (UINT64_MAX >> shift) ? 0 : v << shift;
}

/* yes/no, true/false, 1/0: 1 or 0, -1 when neither */
static int parse_bool(const char *v)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		return 0;
	return -1;
}

static int set_str(char **dst, const char *v)
{
	char *d = strdup(v);

	if (!d)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

/*
 * One setting, by its long option's name: 0, or -1 with why in err.  The
 * configuration file's keys are the same names.
 */
static int dconf_set(struct dconf *f, const char *key, const char *v, char *err, size_t errlen)
{
	uint64_t n;

	if (!strcmp(key, "dir")) {
		if (!*v)
			goto bad;
		return set_str(&f->dir, v);
	}
	if (!strcmp(key, "device"))
		return *v ? set_str(&f->device, v) : (snprintf(err, errlen, "device: empty"), -1);
	if (!strcmp(key, "listen")) {
		struct sockaddr_storage ss;
		socklen_t sl;

		if (*v && dhttp_parse_listen(v, &ss, &sl, NULL, 0))
			goto bad;
		return set_str(&f->listen, v);	/* empty: no HTTP */
	}
	if (!strcmp(key, "web-config") || !strcmp(key, "web_config")) {
		if (!*v) {	/* empty: none */
			free(f->web_config);
			f->web_config = NULL;
			return 0;
		}
		return set_str(&f->web_config, v);
	}
	if (!strcmp(key, "insecure") || !strcmp(key, "kernel-addresses") ||
	    !strcmp(key, "user-objs") || !strcmp(key, "user_objs")) {
		int b = parse_bool(v);

		if (b < 0)
			goto bad;
		*(key[0] == 'i' ? &f->insecure : key[0] == 'k' ? &f->kernel_addresses :
		  &f->user_objs) = b;
		return 0;
	}
	if (!strcmp(key, "unwind")) {
		if (unwind_parse_how(v, &f->unwind_fp))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "unwind-max")) {
		if (unwind_parse_max(v, &f->unwind_max))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "interval")) {
		n = parse_duration(v);
		if (!n || n > 86400)
			goto bad;
		f->interval = n;
		return 0;
	}
	if (!strcmp(key, "retain")) {
		if (!(n = parse_duration(v)))
			goto bad;
		f->retain = n;
		return 0;
	}
	if (!strcmp(key, "segment")) {
		if (!(n = parse_duration(v)))
			goto bad;
		f->segment = n;
		return 0;
	}
	if (!strcmp(key, "max-size")) {
		if (!(n = parse_size(v)))
			goto bad;
		f->max_size = n;
		return 0;
	}
	if (!strcmp(key, "metrics-top")) {
		if (parse_u64(v, &n, 10) || n > METRICS_TOP_MAX)
			goto bad;
		f->metrics_top = n;
		return 0;
	}
	if (!strcmp(key, "metrics-window")) {
		if (!(n = parse_duration(v)))
			goto bad;
		f->metrics_window = n;
		return 0;
	}
	if (!strcmp(key, "metrics-stale")) {
		if (!(n = parse_duration(v)))
			goto bad;
		f->metrics_stale = n;
		return 0;
	}
	if (!strcmp(key, "hz")) {
		if (parse_hz(v, &f->hz))
			goto bad;
		return 0;
	}
	if (!strcmp(key, "mode")) {
		int m = mode_parse(v);

		if (m < 0)
			goto bad;
		f->mode = m;
		return 0;
	}
	if (!strcmp(key, "stacks")) {
		struct stacks_opt so = { 0 };
		char *comma;

		if (parse_u64(v, &n, 10)) {
			comma = strchr(v, ',');
			if (!comma || comma == v)
				goto bad;
		}
		/* parse_stacks_opt says what is wrong itself (a usage error) */
		if (parse_stacks_opt(v, &so))
			goto bad;
		f->so = so;
		return 0;
	}
	snprintf(err, errlen, "unknown setting '%s'", key);
	return -1;
bad:
	snprintf(err, errlen, "%s: bad value '%s'", key, v);
	return -1;
}

/* The configuration file: "key = value" lines, '#' comments.  0, or -1 and err. */
static int dconf_read(struct dconf *f, const char *path, int must, char *err, size_t errlen)
{
	FILE *in = fopen(path, "re");
	char line[1024], e[256];
	int no = 0;

	if (!in) {
		if (errno == ENOENT && !must)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		char *k = line, *v, *eq, *end;

		no++;
		if (!strchr(line, '\n') && !feof(in)) {
			snprintf(err, errlen, "%s:%d: line too long", path, no);
			goto fail;
		}
		k += strspn(k, " \t");
		if (*k == '#' || *k == '\n' || !*k)
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: want KEY = VALUE", path, no);
			goto fail;
		}
		v = eq + 1;
		for (end = eq; end > k && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		v += strspn(v, " \t");
		end = v + strlen(v);
		while (end > v && strchr(" \t\r\n", end[-1]))
			end--;
		*end = '\0';
		if (dconf_set(f, k, v, e, sizeof(e))) {
			snprintf(err, errlen, "%s:%d: %s", path, no, e);
			goto fail;
		}
	}
	fclose(in);
	return 0;
fail:
	fclose(in);
	return -1;
}

static void help_daemon(void)
{
	printf("Usage: %s [options]\n"
	       "Keep a collection ON and record an interval every --interval into a store\n"
	       "of bounded history under --dir (prfpr DIR reads it); with --listen, serve\n"
	       "/metrics (Prometheus) and /debug/pprof/profile?seconds=N over HTTP.\n"
	       "On a private instance the table follows the kernel's modules: /proc/modules\n"
	       "read every second; at a change, OFF, an interval of the old table, the new\n"
	       "table loaded, ON (the time OFF said, and in /metrics).\n"
	       "SIGHUP: an interval, then the configuration re-read and the collection\n"
	       "restarted with a fresh table; SIGTERM, SIGINT: a last interval, exit 0.\n\n"
	       "  -c, --config FILE     settings, 'key = value' lines (default %s;\n"
	       "                        a missing default file is no error); the options\n"
	       "                        below override it, and are its keys\n"
	       "      --dir DIR         the store (default %s)\n"
	       "      --interval T      seconds between intervals (default 60; 90, 5m, 1h)\n"
	       "      --retain T        history kept, by age (default 14d)\n"
	       "      --max-size B      store's bytes at most (default 1G; 512M, 2G)\n"
	       "      --segment T       a segment file's span (default: retain/8 within\n"
	       "                        [interval, 1d])\n"
	       "  -f, --device DEV      default /dev/prfclone, a private instance; /dev/prf\n"
	       "                        shares the device (ON and its table left as found)\n"
	       "  -z, --hz N            sampling rate (the device's default)\n"
	       "      --stacks D[,S]    call stacks of D frames, S kept (default S 4096)\n"
	       "      --mode M          time, alloc-calls, alloc-bytes, calls, offcpu\n"
	       "      --listen [A:]P    HTTP on address A (default 127.0.0.1), port P\n"
	       "      --web-config FILE TLS and basic authentication of the HTTP, as\n"
	       "                        Prometheus exporters' --web.config.file (YAML:\n"
	       "                        tls_server_config, basic_auth_users); re-read on\n"
	       "                        SIGHUP\n"
	       "      --insecure        allow --listen on an address other than loopback\n"
	       "                        without both TLS and users\n"
	       "      --kernel-addresses  the profiles carry the kernel's addresses (by\n"
	       "                        default: names and offsets only)\n"
	       "      --user-objs       the user objects table (time mode): the profiles'\n"
	       "                        user samples by file and function, with --stacks\n"
	       "                        their call chains (of at most 16 frames), walked\n"
	       "                        by the unwind tables of the files the table names,\n"
	       "                        loaded as they appear (where prf.ko can)\n"
	       "      --unwind HOW      cfi (default) or fp: user chains by frame records\n"
	       "      --unwind-max MIB  kernel memory for those tables (default %u, at most %d)\n"
	       "      --metrics-top N   per-function series of /metrics (default 50, at most\n"
	       "                        1000): a function among the N busiest of the last\n"
	       "                        --metrics-window gets a series at once, from 0 at\n"
	       "                        the end of that interval; a series leaves once out\n"
	       "                        of the top for --metrics-stale (its function's\n"
	       "                        samples then go to [other]; back, it goes on from\n"
	       "                        its value); at most 4N series: at the bound, the\n"
	       "                        one out of the top longest leaves early (evicted);\n"
	       "                        [other]: the kernel samples that no series counted\n"
	       "                        when counted\n"
	       "      --metrics-window T  the top's window (default 10m): samples weighted\n"
	       "                        by (1 - interval/T) per interval of age\n"
	       "      --metrics-stale T how long a series stays out of the top before it\n"
	       "                        leaves (default 5m; whole intervals, at least one)\n"
	       "  -h, --help            this help\n", prog, DAEMON_CONFIG, DAEMON_DIR,
	       UNWIND_BOUND_DEFAULT >> 20, PRF_UNWIND_BYTES_MAX >> 20);
}

/* The options given, replayed over the configuration file at each (re)load. */
struct dargs {
	const char *key[32], *val[32];
	int n;
	const char *config;
	int config_given;
};

enum { OPT_D_DIR = 1500, OPT_D_INTERVAL, OPT_D_RETAIN, OPT_D_MAXSIZE, OPT_D_SEGMENT,
       OPT_D_LISTEN, OPT_D_TOP, OPT_D_STACKS, OPT_D_MODE, OPT_D_WINDOW, OPT_D_WEBCONF,
       OPT_D_INSECURE, OPT_D_KADDR, OPT_D_STALE, OPT_D_UOBJS, OPT_D_UNWIND,
       OPT_D_UNWIND_MAX };

static int daemon_opt(void *ctx, int opt, const char *arg)
{
	static const char *const names[] = { "dir", "interval", "retain", "max-size", "segment",
					     "listen", "metrics-top", "stacks", "mode",
					     "metrics-window", "web-config", "insecure",
					     "kernel-addresses", "metrics-stale", "user-objs",
					     "unwind", "unwind-max" };
	struct dargs *a = ctx;
	struct dconf scratch;
	char err[256];
	const char *key;
	int bad;

	if (opt == 'c') {
		a->config = arg;
		a->config_given = 1;
		return 0;
	}
	if (opt < OPT_D_DIR || opt > OPT_D_UNWIND_MAX || a->n >= 32)
		return usage_error("bad option");
	key = names[opt - OPT_D_DIR];
	if (!arg)	/* a flag */
		arg = "yes";
	dconf_defaults(&scratch);
	bad = dconf_set(&scratch, key, arg, err, sizeof(err));
	dconf_free(&scratch);
	if (bad)
		return usage_error("--%s", err);
	a->key[a->n] = key;
	a->val[a->n++] = arg;
	return 0;
}

/* Defaults, the file, the options: 0, or -1 and err. */
static int dconf_load(struct dconf *f, const struct dargs *a, char *err, size_t errlen)
{
	int i;

	dconf_defaults(f);
	if (!f->dir || !f->device)
		goto oom;
	if (dconf_read(f, a->config, a->config_given, err, errlen))
		goto fail;
	for (i = 0; i < a->n; i++)
		if (dconf_set(f, a->key[i], a->val[i], err, errlen))
			goto fail;
	if (f->web_config && webconf_load(f->web_config, &f->web, err, errlen))
		goto fail;
	/*
	 * Anyone who reaches another address would read the kernel's profile:
	 * only over TLS to users who authenticate, unless said otherwise.
	 */
	if (f->listen && *f->listen && !dhttp_loopback(f->listen) && !f->insecure &&
	    !(f->web.tls && f->web.nusers)) {
		snprintf(err, errlen,
			 "--listen %s: not a loopback address, and no web configuration with "
			 "both tls_server_config and basic_auth_users (--web-config): "
			 "--insecure to serve it anyway", f->listen);
		goto fail;
	}
	return 0;
oom:
	snprintf(err, errlen, "%s", strerror(ENOMEM));
fail:
	dconf_free(f);
	return -1;
}

/* ------------------------------------------------------------------ */
/* The collection                                                      */

struct daemon {
	struct dconf cf;
	struct common c;
	struct dshared sh;
	struct snap_table t;		/* the names of the device's table */
	struct snapshot prev;		/* the last capture, raw */
	struct unwind_loader *unwind;	/* the instance's unwind tables, or NULL */
	uint64_t prev_gen, prev_filtered;
	struct prf_cpu_tally *prev_cpu;	/* its per-CPU tallies (prev_ncpu) */
	int prev_ncpu;
	int have_prev;
	/* the store's totals: its last snapshot's, of the table of acc_hash */
	uint64_t acc_hash;
	uint64_t *acc, acc_n2;		/* acc_t.n + 2 counters */
	uint64_t acc_total, acc_outside, acc_user, acc_idle, acc_lost, acc_on_ns;
	int have_acc;
	/*
	 * The totals of the tables counted before it (ACC_KEPT, the latest
	 * first): a table back (a module unloaded, or loaded again) goes on
	 * from its totals, so that any two snapshots of one table report.
	 */
	struct acc_kept {
		uint64_t hash, n2, *acc;
		uint64_t total, outside, user, idle, lost, on_ns;
	} kept[ACC_KEPT];
	int64_t seg_start;		/* the segment appended to, -1: a new one */
	int64_t *fn_of;			/* table entry -> dmetrics.fn index, -1 */
	size_t fn_of_n;
	uint64_t fn_of_hash;		/* the table fn_of and score are of */
	double *score;			/* table entry -> its weighted recent samples */
	uint64_t tick;			/* intervals counted into the metrics */
	char last_err[512];		/* said once until it changes */
	/*
	 * The store failing (a full disk, a quota, an I/O error): said once
	 * when it starts and once when an interval is written again; the
	 * intervals not written are in the totals of the next that is.
	 */
	int store_failing;
	uint64_t store_missed;		/* intervals not written, this episode */
	uint64_t append_bytes;		/* the most an append took (room to make) */
	/*
	 * The last snapshot appended (its counters, segment, the segment's
	 * size after it and its record's crc): the next append to the same
	 * segment is a delta record against it (tools/SNAPSHOT.md, type 5), its
	 * extension one against d->prev.ext (type 6).
	 */
	uint64_t *base;
	size_t base_n2;
	char *base_path;
	uint64_t base_len;
	uint32_t base_crc;
	/* the kernel's modules the table was built from (private instance only) */
	uint64_t mod_sig;
	int follow_modules;
	struct dhttp *http;
};

/* A message unless it is the last one said again (the device gone for hours). */
static void say_once(struct daemon *d, const char *text)
{
	if (!strcmp(d->last_err, text))
		return;
	snprintf(d->last_err, sizeof(d->last_err), "%s", text);
	msg("%s", text);
}

/*
 * A table's identity: a 64-bit FNV-1a of what snap_table_equal() compares
 * (kept instead of a copy of the table: its names are most of the memory).
 */
static uint64_t table_hash(const struct snap_table *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

#define MIX(p, len) do { const unsigned char *q_ = (const void *)(p); size_t k_; \
		for (k_ = 0; k_ < (len); k_++) { h ^= q_[k_]; h *= 0x100000001b3ULL; } } while (0)
	MIX(&t->n, sizeof(t->n));
	MIX(&t->text, sizeof(t->text));
	for (i = 0; i < t->n; i++) {
		const char *nm = t->e[i].name ? t->e[i].name : "", *md = t->e[i].module ? t->e[i].module : "";

		MIX(&t->e[i].addr, sizeof(t->e[i].addr));
		MIX(&t->e[i].kind, sizeof(t->e[i].kind));
		MIX(nm, strlen(nm) + 1);
		MIX(md, strlen(md) + 1);
	}
#undef MIX
	return h;
}

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

/* The store's last snapshot as the totals to go on from. */
static void restore_totals(struct daemon *d)
{
	struct store_seg *v;
	struct snapfile f;
	struct snapshot *s;
	char err[SNAP_ERRLEN];
	size_t n, i;

	d->seg_start = -1;
	if (store_list(d->cf.dir, &v, &n, err, sizeof(err)))
		return;
	for (i = n; i-- > 0;) {
		if (!v[i].bytes)	/* created, never written (a crash, a full disk) */
			continue;
		if (snapfile_read(v[i].path, &f, err, sizeof(err))) {
			msg("warning: %s (a new segment is started)", err);
			break;
		}
		if (f.torn_len) {
			snapfile_torn_note(&f, v[i].path, err, sizeof(err));
			msg("%s: the interval being written when the daemon stopped is lost", err);
		}
		if (!f.nsnaps) {
			snapfile_free(&f);
			continue;
		}
		s = &f.snaps[f.nsnaps - 1];
		d->acc_hash = table_hash(&f.tables[s->table_id]);
		d->acc = s->counts;
		d->acc_n2 = s->n + 2;
		s->counts = NULL;
		d->acc_total = s->ticks_total;
		d->acc_outside = s->ticks_outside;
		d->acc_user = s->ticks_user;
		d->acc_idle = s->ticks_idle;
		d->acc_lost = s->ticks_lost;
		d->acc_on_ns = s->on_ns;
		d->have_acc = 1;
		if (i == n - 1 && !f.torn_len)
			d->seg_start = v[i].start;
		snapfile_free(&f);
		break;
	}
	store_list_free(v, n);
}

/* Open the device and turn the collection ON: 0, or 1 (said). */
/*
 * --user-objs: the user objects table on the daemon's private instance
 * (ours; never on a shared /dev/prf), in the time mode, as prf record sets it (with --stacks, the call chains
 * of prf record -g: at most UOBJ_CHAIN_DEPTH frames, UOBJ_CHAIN_CAPACITY
 * of them); then, set up here or by /dev/prf's owner, what the instance
 * has: *uo the table, *uc its chains.  An older prf.ko is said once and
 * the profiles keep user time as one total.  0, or 1 (said).
 */
static int uobjs_setup(struct daemon *d, struct prf *p, int ours, int *uo, int *uc)
{
	struct prf_uobjs h = { 0 };
	struct prf_uchains ch = { 0 };
	int ret = 0;

	*uo = *uc = 0;
	unwind_free(d->unwind);	/* a collection that did not start kept it */
	d->unwind = NULL;
	if (!d->cf.user_objs)
		return 0;
	if (ours && (d->cf.mode < 0 || d->cf.mode == PRF_MODE_TIME)) {
		uint32_t depth = d->cf.so.depth < UOBJ_CHAIN_DEPTH ? d->cf.so.depth :
				 UOBJ_CHAIN_DEPTH;

		ret = -EINVAL;
		if (d->cf.so.set && depth >= 2 && !d->cf.unwind_fp) {
			ret = prf_set_uobjs_cfi(p, UOBJ_CHAIN_CAPACITY, UOBJ_FILES, depth);
			if (!ret && !(d->unwind = unwind_new(p, d->cf.unwind_max)))
				ret = -ENOMEM;
			if (ret && uobj_unsupported(ret))
				say_once(d, "--user-objs: this prf.ko walks user chains by frame "
					 "records alone (no PRF_UOBJ_CFI)");
		}
		if (ret && d->cf.so.set && depth >= 2 && !d->unwind)
			ret = prf_set_uobjs_chains(p, UOBJ_CHAIN_CAPACITY, UOBJ_FILES, depth);
		if (ret && uobj_unsupported(ret))
			ret = prf_set_uobjs(p, UOBJ_CAPACITY, UOBJ_FILES);
		if (ret && !uobj_unsupported(ret))
			return dev_fail(d->c.dev, "PRF_SETUOBJS", ret);
	}
	if (ioctl(prf_fd(p), PRF_GETUOBJS, &h) || !h.capacity) {
		say_once(d, "--user-objs: no user objects table on this instance (an older "
			 "prf.ko, another mode, or /dev/prf set up without one): user time "
			 "is one total");
		return 0;
	}
	*uo = 1;
	*uc = !ioctl(prf_fd(p), PRF_GETUCHAINS, &ch) && ch.depth;
	return 0;
}

static int start_collection(struct daemon *d)
{
	struct snap_table names = { 0 };
	struct common *c = &d->c;
	struct prf *p;
	int st, ret, shared = !!strcmp(d->cf.device, "/dev/" PRF_CLONE_NAME), uo = 0, uc = 0;

	c->dev = d->cf.device;
	/* Why not, said once while it stays so (the module unloaded for hours). */
	ret = prf_open(c->dev, O_RDWR, &p);
	if (ret) {
		char why[512];

		snprintf(why, sizeof(why), "%s: %s%s: tried again every interval", c->dev,
			 strerror(-ret), ret == -ENOENT ? " (is the prf module loaded?)" :
			 ret == -EPERM || ret == -EACCES ?
			 " (needs CAP_PERFMON or CAP_SYS_ADMIN, and the device's group)" : "");
		say_once(d, why);
		return 1;
	}
	st = prf_get_status(p);
	if (st < 0) {
		prf_close(p);
		return dev_fail(c->dev, "PRF_GETSTATUS", st);
	}
	/*
	 * The modules as the table is built from them: a private instance's
	 * table follows them (interval()); /dev/prf's is its owner's.
	 */
	d->follow_modules = !shared && !modules_sig(d->c.modules, &d->mod_sig);
	if (!shared || !(st & PRF_STATUS_ON)) {
		/* the names of the table loaded now: no second namelist read to name it */
		if ((ret = set_hz_flags(p, c->dev, d->cf.hz, fixed_on(c))) ||
		    (ret = ensure_loaded_names(p, c, 0, &names)) ||
		    ((d->cf.mode >= 0 || d->cf.so.set) &&
		     (ret = apply_mode_stacks(p, c, d->cf.mode, &d->cf.so))) ||
		    (ret = uobjs_setup(d, p, !shared, &uo, &uc)) ||
		    (ret = set_state(p, c->dev, 1))) {
			snap_table_free(&names);
			prf_close(p);
			return 1;
		}
	} else if (uobjs_setup(d, p, 0, &uo, &uc)) {
		prf_close(p);
		return 1;
	}
	pthread_mutex_lock(&d->sh.lock);
	d->sh.p = p;
	d->sh.uobjs = uo;
	d->sh.uchains = uc;
	d->sh.gen++;
	/*
	 * A private instance's table is ours, from the whole namelist
	 * (ensure_loaded); under the lock, as the profiles read it.
	 */
	c->table_whole = !shared;
	if (names.e) {
		snap_table_free(&d->t);
		d->t = names;
		d->sh.names_gen = d->sh.gen;
	}
	d->sh.m.table_loads++;
	d->sh.m.on = 1;
	snprintf(d->sh.m.device, sizeof(d->sh.m.device), "%s", c->dev);
	pthread_mutex_unlock(&d->sh.lock);
	d->last_err[0] = '\0';
	msg("collecting on %s (%d addresses), an interval every %" PRIu64 " s into %s",
	    c->dev, prf_get_size(p), d->cf.interval, d->cf.dir);
	return 0;
}

static void stop_collection(struct daemon *d)
{
	/* its tables go with the instance */
	unwind_free(d->unwind);
	d->unwind = NULL;
	pthread_mutex_lock(&d->sh.lock);
	if (d->sh.p)
		prf_close(d->sh.p);	/* a private instance ends with its descriptor */
	d->sh.p = NULL;
	d->sh.m.on = 0;
	pthread_mutex_unlock(&d->sh.lock);
}

/* Label names: the table entry idx of fn, found by name and module. */
static int same_fn(const struct dfunc *f, const struct snap_entry *e)
{
	return !strcmp(f->name, e->name ? e->name : "") &&
	       !strcmp(f->module ? f->module : "", e->module ? e->module : "");
}

/*
 * The table's entries mapped to the functions that have had a series, and
 * their scores started afresh (after a table change): 0, or -1 (no memory).
 */
static int map_functions(struct daemon *d, uint64_t hash)
{
	struct dmetrics *m = &d->sh.m;
	size_t i, k;

	free(d->fn_of);
	free(d->score);
	d->fn_of = malloc((d->t.n ? d->t.n : 1) * sizeof(*d->fn_of));
	d->score = calloc(d->t.n ? d->t.n : 1, sizeof(*d->score));
	d->fn_of_n = d->fn_of && d->score ? d->t.n : 0;
	d->fn_of_hash = hash;
	if (!d->fn_of || !d->score) {
		free(d->fn_of);
		free(d->score);
		d->fn_of = NULL;
		d->score = NULL;
		return -1;
	}
	for (i = 0; i < d->t.n; i++) {
		d->fn_of[i] = -1;
		if (d->t.e[i].kind != SYM_FUNC || !d->t.e[i].name)
			continue;
		for (k = 0; k < m->nfn; k++)
			if (same_fn(&m->fn[k], &d->t.e[i])) {
				d->fn_of[i] = (int64_t)k;
				break;
			}
	}
	return 0;
}

/* Entries by score, the highest first (qsort's context through a static). */
static const double *score_of;

static int by_score(const void *a, const void *b)
{
	double x = score_of[*(const size_t *)a], y = score_of[*(const size_t *)b];

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The entry of m->fn for table entry i's function, found or added (not
 * live: dseries_choose makes it so).  -1 without memory.
 */
static int64_t fn_for(struct daemon *d, size_t i, size_t n)
{
	struct dmetrics *m = &d->sh.m;
	int64_t k = d->fn_of[i];
	struct dfunc *nf;
	size_t j;

	if (k >= 0)
		return k;
	nf = realloc(m->fn, (m->nfn + 1) * sizeof(*nf));
	if (!nf)
		return -1;
	m->fn = nf;
	nf += m->nfn;
	memset(nf, 0, sizeof(*nf));
	nf->name = strdup(d->t.e[i].name);
	nf->module = d->t.e[i].module ? strdup(d->t.e[i].module) : NULL;
	if (!nf->name || (d->t.e[i].module && !nf->module)) {
		free(nf->name);
		free(nf->module);
		return -1;
	}
	k = (int64_t)m->nfn++;
	/* Every entry of the same name and module counts for it. */
	for (j = 0; j < n; j++)
		if (d->fn_of[j] < 0 && d->t.e[j].kind == SYM_FUNC && d->t.e[j].name &&
		    same_fn(nf, &d->t.e[j]))
			d->fn_of[j] = k;
	return k;
}

/*
 * The running top: each entry's score is its samples weighted by w per
 * interval of age (w = 1 - interval/window, 0 when the window is one
 * interval or less); the top functions of the scores are given to
 * dseries_choose (daemon_series.c): each gets a live series at once, which
 * counts from the next interval on, and a series leaves once out of the
 * top for --metrics-stale (whole intervals, at least one).
 */
static void choose_series(struct daemon *d, const uint64_t *delta, size_t n)
{
	struct dmetrics *m = &d->sh.m;
	double w = d->cf.metrics_window > d->cf.interval ?
		   1.0 - (double)d->cf.interval / (double)d->cf.metrics_window : 0.0;
	uint64_t stale = (d->cf.metrics_stale + d->cf.interval - 1) / d->cf.interval;
	size_t *idx, nidx = 0, i, ntop = 0;

	for (i = 0; i < n; i++) {
		d->score[i] = d->score[i] * w + (double)delta[i];
		if (d->score[i] < 0.5)	/* less than half a sample: none */
			d->score[i] = 0;
	}
	idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return;
	for (i = 0; i < n && m->top; i++)
		if (d->score[i] > 0 && d->t.e[i].kind == SYM_FUNC && d->t.e[i].name)
			idx[nidx++] = i;
	score_of = d->score;
	qsort(idx, nidx, sizeof(*idx), by_score);
	/*
	 * The top's functions as entries of m->fn (an entry whose function is
	 * already in this top is skipped: last_top marks them for the check).
	 */
	for (i = 0; i < nidx && ntop < m->top; i++) {
		int64_t k = fn_for(d, idx[i], n);

		if (k < 0 || m->fn[k].last_top == d->tick + 1)
			continue;
		m->fn[k].last_top = d->tick + 1;
		idx[ntop++] = (size_t)k;
	}
	dseries_choose(m, idx, ntop, d->tick + 1, stale);
	free(idx);
}

/*
 * The metrics of one interval's counts (delta: n + 2) of the table of
 * hash: each function's samples to its live series, else to [other]; then
 * the running top updated (choose_series).  So every series and [other]
 * only grow, and all of them together, live or retired, add up to the
 * kernel samples.
 */
static void metrics_add(struct daemon *d, const uint64_t *delta, size_t n, uint64_t outside,
			uint64_t lost, uint64_t filtered, const struct snapshot *cur,
			uint64_t hash)
{
	struct dmetrics *m = &d->sh.m;
	uint64_t kernel = outside;
	size_t i;

	if (!d->fn_of || d->fn_of_n != n || d->fn_of_hash != hash)
		map_functions(d, hash);
	for (i = 0; i < n; i++) {
		kernel += delta[i];
		dseries_count(m, d->fn_of ? d->fn_of[i] : -1, delta[i]);
	}
	dseries_count(m, -1, outside);
	if (d->fn_of)
		choose_series(d, delta, n);
	d->tick++;
	m->kernel += kernel;
	m->user += delta[n];
	m->idle += delta[n + 1];
	m->lost += lost;
	m->filtered += filtered;
	m->hz = cur->hz;
	if (cur->ext) {
		m->mode = cur->ext->mode;
		m->depth = cur->ext->depth;
	} else {
		m->mode = PRF_MODE_TIME;
		m->depth = 0;
	}
}

/*
 * The totals of table hash (n2 counters) made current: the current ones
 * kept (or dropped, the oldest kept going), then those kept of hash taken
 * back unless fresh is set, else zeros.  d->acc NULL without memory.
 */
static void acc_switch(struct daemon *d, uint64_t hash, uint64_t n2, int fresh)
{
	struct acc_kept cur = { d->acc_hash, d->acc_n2, d->acc, d->acc_total, d->acc_outside,
				d->acc_user, d->acc_idle, d->acc_lost, d->acc_on_ns };
	struct acc_kept back = { 0 };
	int k, j;

	/* The kept totals of hash taken out (fresh: dropped), the rest closed up. */
	for (k = 0; k < ACC_KEPT; k++) {
		if (!d->kept[k].acc || d->kept[k].hash != hash)
			continue;
		if (!fresh && d->kept[k].n2 == n2)
			back = d->kept[k];
		else
			free(d->kept[k].acc);
		for (j = k; j + 1 < ACC_KEPT; j++)
			d->kept[j] = d->kept[j + 1];
		memset(&d->kept[ACC_KEPT - 1], 0, sizeof(d->kept[0]));
		break;
	}
	/* The current ones first: an entry of the same table replaced. */
	if (d->have_acc && d->acc && cur.hash != hash) {
		for (k = 0; k < ACC_KEPT - 1 && d->kept[k].acc && d->kept[k].hash != cur.hash; k++)
			;
		free(d->kept[k].acc);
		for (j = k; j > 0; j--)
			d->kept[j] = d->kept[j - 1];
		d->kept[0] = cur;
	} else {
		free(d->acc);
	}
	d->acc = back.acc ? back.acc : calloc(n2, sizeof(*d->acc));
	d->acc_n2 = n2;
	d->acc_total = back.total;
	d->acc_outside = back.outside;
	d->acc_user = back.user;
	d->acc_idle = back.idle;
	d->acc_lost = back.lost;
	d->acc_on_ns = back.on_ns;
}

static uint64_t sub_or_all(uint64_t cur, uint64_t prev, int reset)
{
	return reset ? cur : cur - prev;
}

/* @cpu's counters in m->cpu, made (in CPU order) the first time: NULL, no memory. */
static struct dcpu *dcpu_of(struct dmetrics *m, uint32_t cpu)
{
	struct dcpu *v;
	size_t i;

	for (i = 0; i < m->ncpu && m->cpu[i].cpu <= cpu; i++)
		if (m->cpu[i].cpu == cpu)
			return &m->cpu[i];
	v = realloc(m->cpu, (m->ncpu + 1) * sizeof(*v));
	if (!v)
		return NULL;
	m->cpu = v;
	memmove(&v[i + 1], &v[i], (m->ncpu - i) * sizeof(*v));
	memset(&v[i], 0, sizeof(*v));
	v[i].cpu = cpu;
	m->ncpu++;
	return &v[i];
}

/* @t's tallies as struct dcpu's kinds: kernel, user, idle, lost, filtered. */
static void cpu_kinds(const struct prf_cpu_tally *t, uint64_t v[5])
{
	v[0] = t->sampled - t->filtered - t->user - t->idle;
	v[1] = t->user;
	v[2] = t->idle;
	v[3] = t->lost;
	v[4] = t->filtered;
}

/*
 * The time mode's per-CPU tallies of this capture (@n of them, or none)
 * added to prf_cpu_samples_total: what each CPU counted since the last
 * capture, or since the collection started when @reset (or a CPU new, or
 * a tally that went back).  Kernel: samples in the table or outside it.
 * Under sh.lock.
 */
static void metrics_add_cpus(struct daemon *d, const struct prf_cpu_tally *t, int n,
			     int reset)
{
	int i, j, k;

	for (i = 0; i < n; i++) {
		const struct prf_cpu_tally *p = NULL;
		uint64_t now[5], was[5] = { 0 };
		struct dcpu *c = dcpu_of(&d->sh.m, t[i].cpu);

		if (!c)
			return;
		for (j = 0; !reset && j < d->prev_ncpu; j++)
			if (d->prev_cpu[j].cpu == t[i].cpu)
				p = &d->prev_cpu[j];
		/* none before (@reset, a new CPU) or one gone back: all of it counts */
		if (p && p->sampled > t[i].sampled)
			p = NULL;
		cpu_kinds(&t[i], now);
		if (p)
			cpu_kinds(p, was);
		for (k = 0; k < 5; k++)
			c->v[k] += sub_or_all(now[k], was[k], !p);
	}
}

/* The segment to append to now (a new one every segment length). */
static int64_t segment_for(struct daemon *d, int64_t now)
{
	uint64_t len = d->cf.segment;

	if (!len) {
		len = d->cf.retain / 8;
		if (len < d->cf.interval)
			len = d->cf.interval;
		if (len > 86400)
			len = 86400;
	}
	if (d->seg_start < 0 || now - d->seg_start >= (int64_t)len || now < d->seg_start)
		d->seg_start = now;
	return d->seg_start;
}

/*
 * The history bounded: segments older than --retain deleted; those older
 * than half of it thinned to their last snapshot (a coarser interval);
 * then the oldest deleted while the store is above --max-size, or would be
 * with extra bytes more (room for an interval on a full disk: what the
 * bound would delete after it, deleted before).  The segment being
 * appended to is kept whatever its size.  The segments deleted.
 */
static size_t maintain(struct daemon *d, int64_t now, uint64_t extra)
{
	struct store_seg *v;
	char err[SNAP_ERRLEN];
	uint64_t bytes = 0;
	size_t n, i, first = 0, gone = 0, early = 0;
	struct stat st;

	if (store_list(d->cf.dir, &v, &n, err, sizeof(err))) {
		say_once(d, err);
		return 0;
	}
	for (i = 0; i + 1 < n; i++) {
		int64_t end = v[i + 1].start;

		if (v[i].start == d->seg_start)
			continue;
		if (end + (int64_t)d->cf.retain <= now) {
			gone += !unlink(v[i].path);
			v[i].bytes = 0;
			first = i + 1;
		} else if (end + (int64_t)(d->cf.retain / 2) <= now) {
			/* (a full disk is said once by interval()) */
			if (store_thin(v[i].path, err, sizeof(err)) && !d->store_failing)
				say_once(d, err);
			v[i].bytes = stat(v[i].path, &st) ? 0 : (uint64_t)st.st_size;
		}
	}
	for (i = first; i < n; i++)
		bytes += v[i].bytes;
	for (i = first; i < n && (bytes > d->cf.max_size || bytes + extra > d->cf.max_size); i++) {
		if (v[i].start == d->seg_start)
			continue;
		if (!unlink(v[i].path)) {
			gone++;
			early += bytes <= d->cf.max_size;
		}
		bytes -= v[i].bytes;
		first = i + 1;
	}
	pthread_mutex_lock(&d->sh.lock);
	d->sh.m.store_segments_freed += early;
	d->sh.m.store_bytes = bytes;
	d->sh.m.store_segments = 0;
	for (i = 0; i < n; i++)
		if (!access(v[i].path, F_OK))
			d->sh.m.store_segments++;
	pthread_mutex_unlock(&d->sh.lock);
	store_list_free(v, n);
	return gone;
}

/* Keep out (appended to path, which d then owns) as the next delta's base; -1 no memory. */
static int remember_base(struct daemon *d, char *path, const struct snapshot *out)
{
	size_t n2 = (size_t)out->n + 2;

	if (d->base_n2 != n2) {
		uint64_t *v = realloc(d->base, n2 * sizeof(*v));

		if (!v)
			return -1;
		d->base = v;
		d->base_n2 = n2;
	}
	memcpy(d->base, out->counts, n2 * sizeof(*d->base));
	d->base_path = path;
	d->base_len = out->rec_end;
	d->base_crc = out->rec_crc;
	return 0;
}

/*
 * The snapshot out appended to the store at time now: 0 (or a note said),
 * or -1 and err with errno the failure's.  A segment this append created
 * and could not write is removed (no empty file a restart would stop at),
 * and the next append starts a new one.  On a full disk (ENOSPC, EDQUOT)
 * the room --retain and --max-size can make is made, and the append tried
 * once more.
 */
static int store_append(struct daemon *d, int64_t now, struct snapshot *out,
			char *err, size_t errlen)
{
	int64_t seg;
	char *path;
	struct stat st;
	uint64_t before;
	int ret, e, existed, tries;

	for (tries = 0;; tries++) {
		seg = segment_for(d, now);
		path = store_seg_path(d->cf.dir, seg);
		if (!path) {
			snprintf(err, errlen, "%s", strerror(ENOMEM));
			errno = ENOMEM;
			return -1;
		}
		existed = !stat(path, &st);
		before = existed ? (uint64_t)st.st_size : 0;
		out->delta_base = NULL;
		out->delta_ext = NULL;
		if (d->base && d->base_path && !strcmp(d->base_path, path) &&
		    d->base_n2 == d->t.n + 2) {
			out->delta_base = d->base;
			out->delta_len = d->base_len;
			out->delta_crc = d->base_crc;
			/* d->prev: the capture that append stored (its stacks, sites) */
			out->delta_ext = d->have_prev ? d->prev.ext : NULL;
		}
		ret = snapfile_append(path, &d->t, out, err, errlen);
		e = errno;
		free(d->base_path);
		d->base_path = NULL;
		if (ret >= 0) {
			if (!stat(path, &st) && (uint64_t)st.st_size > before &&
			    (uint64_t)st.st_size - before > d->append_bytes)
				d->append_bytes = (uint64_t)st.st_size - before;
			if (remember_base(d, path, out))
				free(path);	/* no memory: the next append a full record */
			return ret;
		}
		if (!existed || !before) {
			if (!stat(path, &st) && !st.st_size)
				unlink(path);
			d->seg_start = -1;
		}
		free(path);
		if (tries || (e != ENOSPC && e != EDQUOT) ||
		    !maintain(d, now, d->append_bytes ? d->append_bytes : 4096))
			break;
	}
	errno = e;
	return -1;
}

/*
 * After a table switch, once the old table's interval is stored: the new
 * table's names (names_of_symtab) in d->t, or none (the next capture names
 * it).  Under the lock: the profiles use d->t (sh.names).
 */
static void switch_names(struct daemon *d, struct snap_table *nn)
{
	pthread_mutex_lock(&d->sh.lock);
	snap_table_free(&d->t);
	if (nn->e && d->sh.p) {
		d->t = *nn;
		d->sh.names_gen = d->sh.gen;
		memset(nn, 0, sizeof(*nn));
	}
	pthread_mutex_unlock(&d->sh.lock);
	snap_table_free(nn);
}

/*
 * The unwind tables of the files the user objects table and its chains
 * name that have none yet (unwind.h; the vDSO's from prf's own vDSO),
 * within --unwind-max: a file's samples walk through it from the next
 * interval on.  Each one loaded is said, with the account, once an
 * interval.
 */
static void unwind_files(struct daemon *d, const struct snap_uobjs *u)
{
	const struct prf_uobj_file *lists[2] = { u->f, u->chains_on ? u->cf : NULL };
	uint32_t counts[2] = { u->h.nfiles, u->chains_on ? u->ch.nfiles : 0 };
	struct unwind_stats st;
	size_t before, k;
	uint32_t i;

	unwind_get_stats(d->unwind, &st);
	before = st.files;
	for (k = 0; k < 2; k++)
		for (i = 0; lists[k] && i < counts[k]; i++) {
			const struct prf_uobj_file *f = &lists[k][i];

			/* the vDSO: its table from prf's own, once */
			if (f->flags & PRF_UOBJ_VDSO_IMAGE) {
				if (unwind_load_vdso(d->unwind) == -ENOMEM)
					return;
				continue;
			}
			if (f->flags & (PRF_UOBJ_DELETED | PRF_UOBJ_LONGPATH) || f->path[0] != '/')
				continue;
			if (unwind_load_file(d->unwind, f->path, f->major, f->minor,
					     f->ino) == -ENOMEM)
				return;
		}
	unwind_get_stats(d->unwind, &st);
	if (st.files > before)
		unwind_print(stderr, d->unwind, 0);
}

/*
 * One interval: the device read, what it counted since the last added to
 * the totals, a snapshot of them appended (written whole and fsync'd by
 * snapfile_append), the history bounded.  Errors are said and counted;
 * the collection goes on (a device gone is reopened next interval).
 */
static void interval(struct daemon *d)
{
	struct snapshot cur, out;
	struct prf_info in;
	struct symtab nt;
	struct snap_table new_names = { 0 };
	struct timespec off_at, on_at;
	char err[SNAP_ERRLEN];
	uint64_t *delta = NULL, gen, filtered = 0, n2, i, hash, sig = 0, off_ns = 0;
	int reset, ret, same_table, sw = 0, sw_failed = 0, ncpu, uo_failed;
	struct prf_cpu_tally *tal = NULL;
	int64_t now = now_s();

	if (!d->sh.p && start_collection(d)) {
		pthread_mutex_lock(&d->sh.lock);
		d->sh.m.device_errors++;
		pthread_mutex_unlock(&d->sh.lock);
		return;
	}
	/*
	 * The kernel's modules changed since the table was built: the new
	 * table built now, while the old one counts; then OFF, the old table's
	 * counts captured for this interval, the new table loaded, ON.  Only
	 * the time OFF is lost.
	 */
	if (d->follow_modules && !modules_sig(d->c.modules, &sig) && sig != d->mod_sig) {
		struct ld_opts lo = { 0 };
		int max;

		pthread_mutex_lock(&d->sh.lock);
		max = prf_get_max(d->sh.p);
		pthread_mutex_unlock(&d->sh.lock);
		/* A table that cannot be built is said (by build_table) once a change. */
		d->mod_sig = sig;
		sw = max > 0 && !build_table(&d->c, &lo, (size_t)max, &nt);
	}
	pthread_mutex_lock(&d->sh.lock);
	if (sw) {
		clock_gettime(CLOCK_MONOTONIC, &off_at);
		sw_failed = set_state(d->sh.p, d->c.dev, 0);
	}
	ret = capture(d->sh.p, &d->c, &d->t, &cur);
	if (!ret)
		d->sh.names_gen = d->sh.gen;	/* d->t names the device's table */
	/* the user objects table as the device has it, stored with the capture */
	uo_failed = !ret && d->sh.uobjs && daemon_read_uobjs(&d->sh, &cur);
	if (!ret && !prf_get_info(d->sh.p, &in) && in.size >= PRF_INFO_SIZE_V3)
		filtered = in.ticks_filtered;
	/* -EINVAL from a module without them: no per-CPU series */
	ncpu = ret ? -1 : prf_read_cpu_tallies(d->sh.p, &tal);
	gen = d->sh.gen;
	if (ret)
		d->sh.m.device_errors++;
	if (sw && !sw_failed) {
		sw_failed = load_table(d->sh.p, d->c.dev, &nt) || set_state(d->sh.p, d->c.dev, 1);
		/* the new table's names, for when this interval of the old is stored */
		if (!sw_failed)
			names_of_symtab(&nt, &new_names);
		clock_gettime(CLOCK_MONOTONIC, &on_at);
		off_ns = (uint64_t)((on_at.tv_sec - off_at.tv_sec) * 1000000000LL +
				    (on_at.tv_nsec - off_at.tv_nsec));
		/* What this capture counted is the old table's: the next starts afresh. */
		d->sh.gen++;
		d->sh.m.table_loads++;
		d->sh.m.module_changes++;
		d->sh.m.switch_ns += off_ns;
	}
	pthread_mutex_unlock(&d->sh.lock);
	if (sw) {
		if (sw_failed)
			msg("the kernel's modules changed: the table could not be reloaded: "
			    "the collection restarts");
		else if (!ret && (!cur.ext || cur.ext->mode == PRF_MODE_TIME))
			msg("the kernel's modules changed: table reloaded (%zu addresses, was %" PRIu64
			    "); the collection was OFF for %.3f ms, about %.0f samples lost "
			    "(%u Hz on %u CPUs)", nt.n, cur.n, (double)off_ns / 1e6,
			    (double)off_ns / 1e9 * cur.hz * (cur.ncpus ? cur.ncpus : 1), cur.hz,
			    cur.ncpus ? cur.ncpus : 1);
		else
			msg("the kernel's modules changed: table reloaded (%zu addresses); the "
			    "collection was OFF for %.3f ms", nt.n, (double)off_ns / 1e6);
		symtab_free(&nt);
	}
	if (uo_failed)
		say_once(d, "user objects: PRF_GETUOBJS or PRF_GETUCHAINS failed: intervals "
			 "stored without the user objects table meanwhile");
	if (!ret && !uo_failed && d->unwind && cur.uobjs)
		unwind_files(d, cur.uobjs);
	if (ret || sw_failed) {
		/* The module unloaded, the instance gone: start again next time. */
		stop_collection(d);
		if (ret) {
			if (sw)
				switch_names(d, &new_names);
			return;
		}
	}
	n2 = cur.n + 2;
	reset = !d->have_prev || d->prev_gen != gen || d->prev.n != cur.n ||
		cur.ticks_outside < d->prev.ticks_outside || cur.ticks_lost < d->prev.ticks_lost ||
		cur.on_ns < d->prev.on_ns;
	for (i = 0; !reset && i < n2; i++)
		reset = cur.counts[i] < d->prev.counts[i];
	delta = malloc(n2 * sizeof(*delta));
	/*
	 * With stacks (or the alloc modes' sites, or the user objects table)
	 * a reset starts the totals afresh: the stored stacks (and user
	 * objects) are the device's own, which cannot be added up here, and
	 * must stay those of the stored counters: a report between two
	 * snapshots takes the difference of their user tables
	 * (uobj_snap_delta).
	 */
	hash = table_hash(&d->t);
	same_table = d->have_acc && d->acc_hash == hash && !(reset && (cur.ext || cur.uobjs));
	if (!delta) {
		msg("%s", strerror(ENOMEM));
		free(tal);
		snapshot_free(&cur);
		if (sw)
			switch_names(d, &new_names);
		return;
	}
	if (!same_table) {
		acc_switch(d, hash, n2, reset && (cur.ext || cur.uobjs));
		if (!d->acc) {
			free(delta);
			free(tal);
			snapshot_free(&cur);
			if (sw)
				switch_names(d, &new_names);
			return;
		}
		d->have_acc = 1;
		d->acc_hash = hash;
	}
	for (i = 0; i < n2; i++) {
		delta[i] = sub_or_all(cur.counts[i], reset ? 0 : d->prev.counts[i], reset);
		d->acc[i] += delta[i];
	}
	d->acc_total += sub_or_all(cur.ticks_total, d->prev.ticks_total, reset);
	d->acc_user += sub_or_all(cur.ticks_user, d->prev.ticks_user, reset);
	d->acc_idle += sub_or_all(cur.ticks_idle, d->prev.ticks_idle, reset);
	d->acc_on_ns += sub_or_all(cur.on_ns, d->prev.on_ns, reset);
	pthread_mutex_lock(&d->sh.lock);
	metrics_add(d, delta, (size_t)cur.n,
		    sub_or_all(cur.ticks_outside, d->prev.ticks_outside, reset),
		    sub_or_all(cur.ticks_lost, d->prev.ticks_lost, reset),
		    reset ? filtered : filtered - d->prev_filtered, &cur, hash);
	if (!cur.ext || cur.ext->mode == PRF_MODE_TIME)
		metrics_add_cpus(d, tal, ncpu, reset);
	pthread_mutex_unlock(&d->sh.lock);
	free(d->prev_cpu);
	d->prev_cpu = ncpu > 0 ? tal : NULL;
	d->prev_ncpu = ncpu > 0 ? ncpu : 0;
	if (ncpu <= 0)
		free(tal);
	d->acc_outside += sub_or_all(cur.ticks_outside, d->prev.ticks_outside, reset);
	d->acc_lost += sub_or_all(cur.ticks_lost, d->prev.ticks_lost, reset);
	free(delta);

	/* The snapshot stored: the capture with the totals for its counters. */
	out = cur;
	out.counts = d->acc;
	out.ticks_total = d->acc_total;
	out.ticks_outside = d->acc_outside;
	out.ticks_user = d->acc_user;
	out.ticks_idle = d->acc_idle;
	out.ticks_lost = d->acc_lost;
	out.on_ns = d->acc_on_ns;
	ret = store_append(d, now, &out, err, sizeof(err));
	pthread_mutex_lock(&d->sh.lock);
	if (ret < 0) {
		d->sh.m.store_errors++;
	} else {
		d->sh.m.intervals++;
		d->sh.m.last_interval_ns = cur.time_ns;
	}
	d->sh.m.store_failing = ret < 0;
	pthread_mutex_unlock(&d->sh.lock);
	if (ret < 0) {
		/* Said once: the totals keep counting, the next interval tries again. */
		if (!d->store_failing)
			msg("%s: the store cannot be written: sampling goes on, each interval "
			    "tried again (its samples in the next one written)", err);
		d->store_failing = 1;
		d->store_missed++;
	} else {
		if (d->store_failing)
			msg("the store is written again: %" PRIu64 " interval%s could not be, "
			    "their samples are in this one", d->store_missed,
			    d->store_missed == 1 ? "" : "s");
		d->store_failing = 0;
		d->store_missed = 0;
		if (ret > 0)
			msg("%s", err);	/* a torn record cut before appending */
	}
	snapshot_free(&d->prev);
	d->prev = cur;
	d->prev_gen = gen;
	d->prev_filtered = filtered;
	d->have_prev = 1;
	/*
	 * A new table takes its own names now, even at the same addresses (a
	 * module loaded where another was): never the old table's.
	 */
	if (sw)
		switch_names(d, &new_names);
	maintain(d, now, 0);
	/* What the interval freed (the capture's, the segment's) back to the system. */
	malloc_trim(0);
}

/* ------------------------------------------------------------------ */
/* /metrics                                                            */

static void label(FILE *o, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', o);
		if (*s == '\n')
			fputs("\\n", o);
		else
			fputc(*s, o);
	}
}

static void head(FILE *o, const char *name, const char *type, const char *help)
{
	fprintf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

int daemon_metrics_text(struct dshared *sh, char **out, size_t *len)
{
	static const char *const kinds[] = { "kernel", "user", "idle", "lost", "filtered" };
	struct dmetrics *m = &sh->m;
	FILE *o;
	size_t i;
	int bad;

	*out = NULL;
	o = open_memstream(out, len);
	if (!o)
		return -1;
	pthread_mutex_lock(&sh->lock);
	head(o, "prf_samples_total", "counter",
	     "Samples of the collection by kind, summed over its CPUs.");
	for (i = 0; i < 5; i++) {
		const uint64_t v[] = { m->kernel, m->user, m->idle, m->lost, m->filtered };

		fprintf(o, "prf_samples_total{kind=\"%s\"} %" PRIu64 "\n", kinds[i], v[i]);
	}
	if (m->ncpu) {
		size_t k;

		head(o, "prf_cpu_samples_total", "counter",
		     "Samples of the collection by CPU and kind, in the time mode (kernel: in "
		     "the table or outside it); a series for every CPU the device has.");
		for (i = 0; i < m->ncpu; i++)
			for (k = 0; k < 5; k++)
				fprintf(o, "prf_cpu_samples_total{cpu=\"%u\",kind=\"%s\"} %" PRIu64
					"\n", m->cpu[i].cpu, kinds[k], m->cpu[i].v[k]);
	}
	head(o, "prf_function_samples_total", "counter",
	     "Kernel samples by function, counted from when its series was made: a function "
	     "among the --metrics-top busiest of --metrics-window gets one at once, kept "
	     "until out of the top for --metrics-stale, at most four times --metrics-top at "
	     "once; function=\"[other]\": the samples no series counted.");
	for (i = 0; i < m->nfn; i++) {
		if (!m->fn[i].live)
			continue;
		fputs("prf_function_samples_total{function=\"", o);
		label(o, m->fn[i].name);
		fputs("\",module=\"", o);
		label(o, m->fn[i].module ? m->fn[i].module : "kernel");
		fprintf(o, "\"} %" PRIu64 "\n", m->fn[i].samples);
	}
	fprintf(o, "prf_function_samples_total{function=\"[other]\",module=\"\"} %" PRIu64 "\n",
		m->other);
	head(o, "prf_daemon_function_series", "gauge",
	     "Series of prf_function_samples_total now, [other] left out.");
	fprintf(o, "prf_daemon_function_series %zu\n", m->nlive);
	head(o, "prf_daemon_function_series_max", "gauge",
	     "The most series of prf_function_samples_total at once, [other] left out.");
	fprintf(o, "prf_daemon_function_series_max %zu\n", m->cap);
	head(o, "prf_daemon_function_series_created_total", "counter",
	     "Series of prf_function_samples_total made (new, or a retired one back).");
	fprintf(o, "prf_daemon_function_series_created_total %" PRIu64 "\n", m->series_created);
	head(o, "prf_daemon_function_series_retired_total", "counter",
	     "Series of prf_function_samples_total retired (gone stale, or evicted).");
	fprintf(o, "prf_daemon_function_series_retired_total %" PRIu64 "\n", m->series_retired);
	head(o, "prf_daemon_function_series_evicted_total", "counter",
	     "Series of prf_function_samples_total retired before stale, to make room at "
	     "the bound for a function entering the top.");
	fprintf(o, "prf_daemon_function_series_evicted_total %" PRIu64 "\n", m->series_evicted);
	head(o, "prf_collection_on", "gauge", "1 while the collection is ON.");
	fprintf(o, "prf_collection_on %d\n", m->on);
	head(o, "prf_collection_info", "gauge", "The collection's device, mode, rate and stack depth.");
	fputs("prf_collection_info{device=\"", o);
	label(o, m->device);
	fprintf(o, "\",mode=\"%s\",hz=\"%u\",stack_depth=\"%u\"} 1\n",
		mode_name(m->mode) ? mode_name(m->mode) : "unknown", m->hz, m->depth);
	head(o, "prf_daemon_intervals_total", "counter", "Intervals recorded into the store.");
	fprintf(o, "prf_daemon_intervals_total %" PRIu64 "\n", m->intervals);
	head(o, "prf_daemon_last_interval_timestamp_seconds", "gauge",
	     "When the last interval was recorded (Unix time).");
	fprintf(o, "prf_daemon_last_interval_timestamp_seconds %.3f\n",
		(double)m->last_interval_ns / 1e9);
	head(o, "prf_daemon_store_bytes", "gauge", "Bytes of the store's segments.");
	fprintf(o, "prf_daemon_store_bytes %" PRIu64 "\n", m->store_bytes);
	head(o, "prf_daemon_store_segments", "gauge", "Segment files in the store.");
	fprintf(o, "prf_daemon_store_segments %" PRIu64 "\n", m->store_segments);
	head(o, "prf_daemon_table_loads_total", "counter",
	     "Tables loaded (the start, SIGHUP, the device back, the kernel's modules changed).");
	fprintf(o, "prf_daemon_table_loads_total %" PRIu64 "\n", m->table_loads);
	head(o, "prf_daemon_module_changes_total", "counter",
	     "Table reloads because the kernel's modules changed (each also in "
	     "prf_daemon_table_loads_total).");
	fprintf(o, "prf_daemon_module_changes_total %" PRIu64 "\n", m->module_changes);
	head(o, "prf_daemon_table_switch_seconds_total", "counter",
	     "Time the collection was OFF for those reloads (nothing counted then).");
	fprintf(o, "prf_daemon_table_switch_seconds_total %.6f\n", (double)m->switch_ns / 1e9);
	head(o, "prf_daemon_store_errors_total", "counter",
	     "Intervals the store could not write (a full disk, a quota, an I/O error); "
	     "their samples go into the next interval written.");
	fprintf(o, "prf_daemon_store_errors_total %" PRIu64 "\n", m->store_errors);
	head(o, "prf_daemon_store_write_failing", "gauge",
	     "1 when the last interval could not be written to the store.");
	fprintf(o, "prf_daemon_store_write_failing %d\n", m->store_failing);
	head(o, "prf_daemon_store_segments_freed_total", "counter",
	     "The store's oldest segments deleted early, as --max-size would after the "
	     "interval, to make room for it on a full disk.");
	fprintf(o, "prf_daemon_store_segments_freed_total %" PRIu64 "\n", m->store_segments_freed);
	head(o, "prf_daemon_device_errors_total", "counter",
	     "Intervals without a collection (the device gone or busy).");
	fprintf(o, "prf_daemon_device_errors_total %" PRIu64 "\n", m->device_errors);
	head(o, "prf_daemon_http_requests_total", "counter", "HTTP requests received.");
	fprintf(o, "prf_daemon_http_requests_total %" PRIu64 "\n", m->http_requests);
	pthread_mutex_unlock(&sh->lock);
	bad = ferror(o);
	if (fclose(o) || bad) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */

static void http_request(void *ctx)
{
	struct dshared *sh = ctx;

	pthread_mutex_lock(&sh->lock);
	sh->m.http_requests++;
	pthread_mutex_unlock(&sh->lock);
}

static int http_metrics(void *ctx, char **out, size_t *len)
{
	return daemon_metrics_text(ctx, out, len);
}

static int http_profile(void *ctx, unsigned secs, int *fd, char *text, size_t textlen)
{
	return daemon_profile(ctx, secs, fd, text, textlen);
}

/* What the HTTP server serves, on the struct dshared it is given. */
static const struct dhttp_ops http_ops = {
	.request = http_request,
	.metrics = http_metrics,
	.profile = http_profile,
};

/* The server, with the web configuration of d->cf (moved into it). */
static int start_http(struct daemon *d)
{
	char err[512];

	if (!d->cf.listen || !*d->cf.listen)
		return 0;
	d->http = dhttp_start(d->cf.listen, d->cf.web_config ? &d->cf.web : NULL, &http_ops,
			      &d->sh, err, sizeof(err));
	if (!d->http) {
		msg("%s", err);
		return 1;
	}
	return 0;
}

static void metrics_free(struct dmetrics *m)
{
	size_t i;

	for (i = 0; i < m->nfn; i++) {
		free(m->fn[i].name);
		free(m->fn[i].module);
	}
	free(m->fn);
	free(m->cpu);
}

int cmd_daemon(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dir", required_argument, NULL, OPT_D_DIR },
		{ "interval", required_argument, NULL, OPT_D_INTERVAL },
		{ "retain", required_argument, NULL, OPT_D_RETAIN },
		{ "max-size", required_argument, NULL, OPT_D_MAXSIZE },
		{ "segment", required_argument, NULL, OPT_D_SEGMENT },
		{ "listen", required_argument, NULL, OPT_D_LISTEN },
		{ "metrics-top", required_argument, NULL, OPT_D_TOP },
		{ "metrics-window", required_argument, NULL, OPT_D_WINDOW },
		{ "metrics-stale", required_argument, NULL, OPT_D_STALE },
		{ "stacks", required_argument, NULL, OPT_D_STACKS },
		{ "mode", required_argument, NULL, OPT_D_MODE },
		{ "web-config", required_argument, NULL, OPT_D_WEBCONF },
		{ "insecure", no_argument, NULL, OPT_D_INSECURE },
		{ "kernel-addresses", no_argument, NULL, OPT_D_KADDR },
		{ "user-objs", no_argument, NULL, OPT_D_UOBJS },
		{ "unwind", required_argument, NULL, OPT_D_UNWIND },
		{ "unwind-max", required_argument, NULL, OPT_D_UNWIND_MAX },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"c:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING, help_daemon, daemon_opt, 0, 0,
		"prf daemon takes no operand",
	};
	static struct daemon d;
	struct dargs a = { .config = DAEMON_CONFIG };
	char err[512], hzs[16];
	sigset_t set, old;
	struct timespec next, nowts;
	int ret, i, dev_given = 0;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "-f", 2) || !strncmp(argv[i], "--device", 8))
			dev_given = 1;
	if ((ret = parse_opts(&co, &d.c, argc, argv, &a)) != OPTS_OK)
		return ret;
	/*
	 * It runs for weeks: the namelist is read when it is needed, never
	 * kept (kernel_names keeps the stacks' names, by the same rule).
	 */
	nl_keep_text(0);
	if (dev_given && a.n < 32) {
		a.key[a.n] = "device";
		a.val[a.n++] = d.c.dev;
	}
	if (d.c.hz && a.n < 32) {
		snprintf(hzs, sizeof(hzs), "%u", d.c.hz);
		a.key[a.n] = "hz";
		a.val[a.n++] = hzs;
	}
	if (dconf_load(&d.cf, &a, err, sizeof(err))) {
		msg("%s", err);
		return EXIT_USAGE;
	}
	if (mkdir(d.cf.dir, 0755) && errno != EEXIST) {
		msg("%s: %s", d.cf.dir, strerror(errno));
		dconf_free(&d.cf);
		return 1;
	}
	/*
	 * One arena: what the HTTP threads allocate (a profile's report) reuses
	 * the collection's free memory rather than keeping an arena of its own.
	 */
	mallopt(M_ARENA_MAX, 1);
	pthread_mutex_init(&d.sh.lock, NULL);
	pthread_cond_init(&d.sh.stop_cond, NULL);
	d.sh.c = &d.c;
	d.sh.names = &d.t;
	d.sh.m.top = d.cf.metrics_top;
	d.sh.m.cap = DSERIES_CAP(d.cf.metrics_top);
	d.sh.kernel_addresses = d.cf.kernel_addresses;
	restore_totals(&d);
	/* Signals waited for, not caught: blocked here and in the HTTP threads. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	start_collection(&d);	/* failing, said; tried again every interval */
	if (start_http(&d)) {
		ret = 1;
		goto out;
	}
	interval(&d);	/* the first snapshot: where the first interval starts */
	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += (time_t)d.cf.interval;
	ret = 0;
	for (;;) {
		struct timespec to;
		int64_t left;
		int sig, poll;

		clock_gettime(CLOCK_MONOTONIC, &nowts);
		left = (int64_t)(next.tv_sec - nowts.tv_sec) * 1000000000 +
		       (next.tv_nsec - nowts.tv_nsec);
		if (left < 0)
			left = 0;
		/* The modules looked at every MODULES_POLL_SEC between intervals. */
		poll = left > (int64_t)MODULES_POLL_SEC * 1000000000 && d.follow_modules && d.sh.p;
		if (poll)
			left = (int64_t)MODULES_POLL_SEC * 1000000000;
		to.tv_sec = (time_t)(left / 1000000000);
		to.tv_nsec = (long)(left % 1000000000);
		sig = sigtimedwait(&set, NULL, &to);
		if (sig < 0) {
			uint64_t msig;

			if (errno == EINTR)
				continue;
			if (poll) {
				/* A change: an interval now, its table's last; the next as planned. */
				if (!modules_sig(d.c.modules, &msig) && msig != d.mod_sig)
					interval(&d);
				continue;
			}
			interval(&d);
			next.tv_sec += (time_t)d.cf.interval;
			clock_gettime(CLOCK_MONOTONIC, &nowts);
			if (next.tv_sec < nowts.tv_sec)	/* suspended: no burst to catch up */
				next = nowts, next.tv_sec += (time_t)d.cf.interval;
			continue;
		}
		interval(&d);
		if (sig != SIGHUP)
			break;
		/* SIGHUP: the settings again, a fresh collection and table. */
		{
			struct dconf nf;
			char *old_listen = d.cf.listen ? strdup(d.cf.listen) : NULL;
			char *old_dir = strdup(d.cf.dir);

			if (dconf_load(&nf, &a, err, sizeof(err))) {
				msg("SIGHUP: %s: the settings are kept", err);
				free(old_listen);
				free(old_dir);
				continue;
			}
			dconf_free(&d.cf);
			d.cf = nf;
			stop_collection(&d);
			pthread_mutex_lock(&d.sh.lock);
			d.sh.m.top = d.cf.metrics_top;
			d.sh.m.cap = DSERIES_CAP(d.cf.metrics_top);
			d.sh.kernel_addresses = d.cf.kernel_addresses;
			pthread_mutex_unlock(&d.sh.lock);
			/*
			 * The server again for another address or TLS; the same
			 * TLS keeps it running, with the users read now.
			 */
			if (strcmp(old_listen ? old_listen : "", d.cf.listen ? d.cf.listen : "") ||
			    !d.http || dhttp_reload(d.http, &d.cf.web)) {
				dhttp_stop(d.http);
				d.http = NULL;
				start_http(&d);
			}
			free(old_listen);
			msg("SIGHUP: settings re-read; the collection restarts");
			if (mkdir(d.cf.dir, 0755) && errno != EEXIST)
				msg("%s: %s", d.cf.dir, strerror(errno));
			/* the same segment goes on unless the store moved */
			if (!old_dir || strcmp(old_dir, d.cf.dir))
				d.seg_start = -1;
			free(old_dir);
			interval(&d);
			clock_gettime(CLOCK_MONOTONIC, &next);
			next.tv_sec += (time_t)d.cf.interval;
		}
	}
out:
	pthread_mutex_lock(&d.sh.lock);
	d.sh.stopping = 1;
	pthread_cond_broadcast(&d.sh.stop_cond);
	pthread_mutex_unlock(&d.sh.lock);
	dhttp_stop(d.http);
	stop_collection(&d);
	sigprocmask(SIG_SETMASK, &old, NULL);
	snapshot_free(&d.prev);
	free(d.prev_cpu);
	free(d.base);
	free(d.base_path);
	snap_table_free(&d.t);
	snap_table_free(&d.sh.http_t);
	free(d.acc);
	for (i = 0; i < ACC_KEPT; i++)
		free(d.kept[i].acc);
	free(d.fn_of);
	free(d.score);
	metrics_free(&d.sh.m);
	dconf_free(&d.cf);
	return ret;
}
