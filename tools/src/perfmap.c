// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfmap - /tmp/perf-PID.map read.  See perfmap.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfmap.h"

/* "START SIZE name" into s (name not copied: *name, *len); 0, or -1 not one. */
static int parse_line(char *line, struct perfmap_sym *s, char **name, size_t *len)
{
	unsigned long long start, size;
	char *p = line, *end;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!isxdigit((unsigned char)*p))
		return -1;
	errno = 0;
	start = strtoull(p, &end, 16);
	if (errno || end == p || (*end != ' ' && *end != '\t'))
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!isxdigit((unsigned char)*p))
		return -1;
	size = strtoull(p, &end, 16);
	if (errno || end == p || (*end != ' ' && *end != '\t') || !size ||
	    start + size < start)
		return -1;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' ||
		     p[n - 1] == '\t'))
		n--;
	if (!n)
		return -1;
	s->start = start;
	s->end = start + size;
	*name = p;
	*len = n;
	return 0;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct perfmap_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int perfmap_parse(FILE *f, struct perfmap *m, size_t max_bytes)
{
	char buf[PERFMAP_MAX_LINE + 2];
	size_t cap = 0, got = 0, line = 0;

	m->v = NULL;
	m->n = 0;
	m->bad = 0;
	m->truncated = 0;
	while (fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf), nlen;
		struct perfmap_sym s;
		char *name;

		got += len;
		if (got > max_bytes) {
			m->truncated = 1;
			break;
		}
		line++;
		if (len && buf[len - 1] != '\n' && !feof(f)) {
			/* longer than a line may be: skipped whole */
			int c;

			while ((c = getc(f)) != EOF && c != '\n')
				got++;
			m->bad++;
			if (got > max_bytes) {
				m->truncated = 1;
				break;
			}
			continue;
		}
		if (parse_line(buf, &s, &name, &nlen)) {
			m->bad++;
			continue;
		}
		if (m->n == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			struct perfmap_sym *nv = realloc(m->v, ncap * sizeof(*nv));

			if (!nv)
				goto nomem;
			m->v = nv;
			cap = ncap;
		}
		s.line = line;
		s.name = strndup(name, nlen);
		if (!s.name)
			goto nomem;
		m->v[m->n++] = s;
	}
	qsort(m->v, m->n, sizeof(*m->v), cmp_sym);
	return 0;
nomem:
	perfmap_free(m);
	return -ENOMEM;
}

/* How far back from the last start <= pc a covering function is looked for. */
#define PERFMAP_BACK	64

const struct perfmap_sym *perfmap_find(const struct perfmap *m, uint64_t pc)
{
	const struct perfmap_sym *best = NULL;
	size_t lo = 0, hi = m->n, k;

	if (m->state != PERFMAP_OK)
		return NULL;
	/* the first start > pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* code reused: of the functions that hold pc, the last written */
	for (k = lo; k > 0 && lo - k < PERFMAP_BACK; k--) {
		const struct perfmap_sym *s = &m->v[k - 1];

		if (pc < s->end && (!best || s->line > best->line))
			best = s;
	}
	return best;
}

void perfmap_free(struct perfmap *m)
{
	size_t i;

	for (i = 0; m->v && i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* The process's start in clock ticks since boot (its stat's field 22), or 0: not running. */
static unsigned long long proc_ticks(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	int i;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* after the name: field 3 (state) on; starttime is field 22 */
	for (i = 3, p++; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &start) != 1)
		return 0;
	return start;
}

/* The start of the process (ticks since boot) in seconds since the epoch, or -1. */
static double proc_start(unsigned long long ticks)
{
	char buf[256];
	unsigned long long btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;

	if (!ticks || hz <= 0)
		return -1;
	f = fopen("/proc/stat", "re");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	if (!btime)
		return -1;
	return (double)btime + (double)ticks / (double)hz;
}

/* The process's pid in its own pid namespace (NSpid's last), or 0. */
static int ns_pid(int pid)
{
	char path[64], buf[512];
	int nspid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		char *p = buf + 6, *end;

		if (strncmp(buf, "NSpid:", 6))
			continue;
		for (;;) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			nspid = (int)v;
			p = end;
		}
		break;
	}
	fclose(f);
	return nspid;
}

/* Where pid's map is looked for (perfmap_load) into path. */
static void map_path(char *path, size_t len, int pid, const char *dir)
{
	int nspid = strcmp(dir, "/tmp") ? 0 : ns_pid(pid);

	if (nspid > 0 && nspid != pid)
		snprintf(path, len, "/proc/%d/root/tmp/perf-%d.map", pid, nspid);
	else
		snprintf(path, len, "%s/perf-%d.map", dir, pid);
}

/* Maps parsed by the process (perfmap_cache_stats()), under cache_lock. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long nreads;

/* pid's map at m->path (set) into m, with the identity of the file read. */
static int load_path(struct perfmap *m, int pid)
{
	struct stat st;
	double start;
	FILE *f;
	int ret;

	m->pid = pid;
	f = fopen(m->path, "re");
	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		m->state = PERFMAP_MISSING;
		return 0;
	}
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->size = st.st_size;
	m->mtime = st.st_mtim;
	/*
	 * btime is whole seconds: a process started in the second the map
	 * was written is not judged.
	 */
	m->ticks = proc_ticks(pid);
	start = proc_start(m->ticks);
	if (start > 0 && (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 < start - 1.0) {
		fclose(f);
		m->state = PERFMAP_STALE;
		return 0;
	}
	ret = perfmap_parse(f, m, PERFMAP_MAX_BYTES);
	fclose(f);
	m->state = PERFMAP_OK;
	pthread_mutex_lock(&cache_lock);
	nreads++;
	pthread_mutex_unlock(&cache_lock);
	return ret;
}

int perfmap_load(struct perfmap *m, int pid, const char *dir)
{
	memset(m, 0, sizeof(*m));
	map_path(m->path, sizeof(m->path), pid, dir);
	return load_path(m, pid);
}

/*
 * The maps kept between reports (perfmap_get), a list under cache_lock.
 * Each entry is shared by whoever got it, by reference count (the cache
 * holds one while the entry is listed): a map replaced or swept while
 * another thread names with it (the daemon resolves outside its lock, a
 * thread a connection) is freed by the last perfmap_put().  A listed
 * entry is never changed: a changed file makes a new one.
 */
struct pm_entry {
	struct perfmap m;	/* first: perfmap_put() takes it back */
	unsigned int refs;
	struct pm_entry *next;
};

static struct pm_entry *cache;

static void entry_put(struct pm_entry *e)
{
	if (--e->refs)
		return;
	perfmap_free(&e->m);
	free(e);
}

/* Is e's map what is at its path now (same file, size, time; same process)? */
static int entry_current(const struct pm_entry *e)
{
	struct stat st;

	if (stat(e->m.path, &st))
		return e->m.state == PERFMAP_MISSING;
	return e->m.state != PERFMAP_MISSING && st.st_dev == e->m.dev &&
	       st.st_ino == e->m.ino && st.st_size == e->m.size &&
	       st.st_mtim.tv_sec == e->m.mtime.tv_sec &&
	       st.st_mtim.tv_nsec == e->m.mtime.tv_nsec && proc_ticks(e->m.pid) == e->m.ticks;
}

/* The link to pid's listed entry for @path (*link NULL: none), under cache_lock. */
static struct pm_entry **cache_find(int pid, const char *path)
{
	struct pm_entry **pp;

	for (pp = &cache; *pp; pp = &(*pp)->next)
		if ((*pp)->m.pid == pid && !strcmp((*pp)->m.path, path))
			break;
	return pp;
}

const struct perfmap *perfmap_get(int pid, const char *dir)
{
	struct pm_entry *e, **pp, *n = NULL;
	char path[sizeof(n->m.path)];

	map_path(path, sizeof(path), pid, dir);
	pthread_mutex_lock(&cache_lock);
	e = *cache_find(pid, path);
	if (e && entry_current(e)) {
		e->refs++;
		goto out;
	}
	pthread_mutex_unlock(&cache_lock);
	/* read outside the lock; the list looked at again after */
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	memcpy(n->m.path, path, sizeof(path));
	if (load_path(&n->m, pid)) {
		free(n);
		return NULL;
	}
	n->refs = 2;		/* the caller's and the cache's */
	pthread_mutex_lock(&cache_lock);
	pp = cache_find(pid, path);
	e = *pp;
	if (e) {
		/* replaced (by ours, the later read) */
		*pp = e->next;
		entry_put(e);
	}
	n->next = cache;
	cache = n;
	e = n;
out:
	pthread_mutex_unlock(&cache_lock);
	return &e->m;
}

void perfmap_put(const struct perfmap *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&cache_lock);
	entry_put((struct pm_entry *)m);
	pthread_mutex_unlock(&cache_lock);
}

/* Drop the listed entries for which gone(pid) holds. */
static void cache_drop(int (*gone)(int pid))
{
	struct pm_entry *e, **pp;

	pthread_mutex_lock(&cache_lock);
	for (pp = &cache; (e = *pp);) {
		if (!gone(e->m.pid)) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		entry_put(e);
	}
	pthread_mutex_unlock(&cache_lock);
}

static int pid_gone(int pid)
{
	return pid <= 0 || (kill(pid, 0) && errno == ESRCH);
}

static int any_pid(int pid)
{
	(void)pid;
	return 1;
}

void perfmap_cache_sweep(void)
{
	cache_drop(pid_gone);
}

void perfmap_cache_clear(void)
{
	cache_drop(any_pid);
}

void perfmap_cache_stats(unsigned long *reads, size_t *entries)
{
	const struct pm_entry *e;
	size_t n = 0;

	pthread_mutex_lock(&cache_lock);
	for (e = cache; e; e = e->next)
		n++;
	*reads = nreads;
	*entries = n;
	pthread_mutex_unlock(&cache_lock);
}
