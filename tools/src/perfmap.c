// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfmap - /tmp/perf-PID.map read.  See perfmap.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
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

/* The process's start (seconds since the epoch), or -1: not running. */
static double proc_start(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0, btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || hz <= 0)
		return -1;
	/* after the name: field 3 (state) on; starttime is field 22 */
	for (i = 3, p++; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &start) != 1)
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
	return (double)btime + (double)start / (double)hz;
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

int perfmap_load(struct perfmap *m, int pid, const char *dir)
{
	double start;
	struct stat st;
	int nspid = strcmp(dir, "/tmp") ? 0 : ns_pid(pid);
	FILE *f;
	int ret;

	memset(m, 0, sizeof(*m));
	m->pid = pid;
	if (nspid > 0 && nspid != pid)
		snprintf(m->path, sizeof(m->path), "/proc/%d/root/tmp/perf-%d.map", pid, nspid);
	else
		snprintf(m->path, sizeof(m->path), "%s/perf-%d.map", dir, pid);
	f = fopen(m->path, "re");
	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		m->state = PERFMAP_MISSING;
		return 0;
	}
	/*
	 * btime is whole seconds: a process started in the second the map
	 * was written is not judged.
	 */
	start = proc_start(pid);
	if (start > 0 && (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 < start - 1.0) {
		fclose(f);
		m->state = PERFMAP_STALE;
		return 0;
	}
	ret = perfmap_parse(f, m, PERFMAP_MAX_BYTES);
	fclose(f);
	m->state = PERFMAP_OK;
	return ret;
}
