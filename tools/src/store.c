// SPDX-License-Identifier: GPL-2.0-only
/*
 * store - the prf daemon's directory of snapshot segments (store.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "store.h"

char *store_seg_path(const char *dir, int64_t t)
{
	char *p;

	if (asprintf(&p, "%s/" STORE_PREFIX "%010" PRId64 STORE_SUFFIX, dir, t) < 0)
		return NULL;
	return p;
}

/* seg-NNNNNNNNNN.prf: its time, or -1. */
static int64_t seg_time(const char *name)
{
	size_t pl = strlen(STORE_PREFIX), sl = strlen(STORE_SUFFIX), len = strlen(name), i;
	int64_t t = 0;

	if (len != pl + 10 + sl || strncmp(name, STORE_PREFIX, pl) ||
	    strcmp(name + pl + 10, STORE_SUFFIX))
		return -1;
	for (i = pl; i < pl + 10; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		t = t * 10 + (name[i] - '0');
	}
	return t;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct store_seg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void store_list_free(struct store_seg *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

int store_list(const char *dir, struct store_seg **v, size_t *n, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct store_seg *a = NULL;
	size_t cnt = 0, cap = 0;

	*v = NULL;
	*n = 0;
	if (!d) {
		seterr(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		int64_t t = seg_time(de->d_name);
		struct stat st;

		if (t < 0)
			continue;
		if (cnt == cap) {
			struct store_seg *na = realloc(a, (cap ? cap * 2 : 16) * sizeof(*a));

			if (!na)
				goto oom;
			a = na;
			cap = cap ? cap * 2 : 16;
		}
		a[cnt].start = t;
		a[cnt].path = store_seg_path(dir, t);
		if (!a[cnt].path)
			goto oom;
		a[cnt].bytes = stat(a[cnt].path, &st) ? 0 : (uint64_t)st.st_size;
		cnt++;
	}
	closedir(d);
	if (cnt)
		qsort(a, cnt, sizeof(*a), seg_cmp);
	*v = a;
	*n = cnt;
	return 0;
oom:
	closedir(d);
	store_list_free(a, cnt);
	seterr(err, errlen, "%s: %s", dir, strerror(ENOMEM));
	return -1;
}

/* Move g's tables and snapshots to the end of f; g is left empty. */
static int merge(struct snapfile *f, struct snapfile *g)
{
	struct snap_table *nt;
	struct snapshot *ns;
	uint32_t *map;
	size_t i;

	map = calloc(g->ntables ? g->ntables : 1, sizeof(*map));
	nt = realloc(f->tables, (f->ntables + g->ntables + 1) * sizeof(*nt));
	if (nt)
		f->tables = nt;
	ns = realloc(f->snaps, (f->nsnaps + g->nsnaps + 1) * sizeof(*ns));
	if (ns)
		f->snaps = ns;
	if (!map || !nt || !ns) {
		free(map);
		return -1;
	}
	for (i = 0; i < g->ntables; i++) {
		/* The same table as the last merged (a segment's first record): one. */
		if (f->ntables && snap_table_equal(&f->tables[f->ntables - 1], &g->tables[i])) {
			map[i] = (uint32_t)(f->ntables - 1);
			snap_table_free(&g->tables[i]);
			continue;
		}
		map[i] = (uint32_t)f->ntables;
		f->tables[f->ntables] = g->tables[i];
		f->tables[f->ntables].id = map[i];
		f->ntables++;
	}
	for (i = 0; i < g->nsnaps; i++) {
		f->snaps[f->nsnaps] = g->snaps[i];
		f->snaps[f->nsnaps].table_id = map[g->snaps[i].table_id];
		f->nsnaps++;
	}
	free(map);
	free(g->tables);
	free(g->snaps);
	memset(g, 0, sizeof(*g));
	return 0;
}

int store_read(const char *dir, struct snapfile *f, char *notes, size_t noteslen,
	       char *err, size_t errlen)
{
	struct store_seg *v;
	size_t n, i, used = 0;

	memset(f, 0, sizeof(*f));
	if (notes && noteslen)
		*notes = '\0';
	if (store_list(dir, &v, &n, err, errlen))
		return -1;
	if (!n) {
		seterr(err, errlen, "%s: no segment (" STORE_PREFIX "*" STORE_SUFFIX
		       "): not a prf daemon's store, or nothing recorded yet", dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct snapfile g;

		if (snapfile_read(v[i].path, &g, err, errlen)) {
			/* A segment created and not yet written (the power cut). */
			if (v[i].bytes == 0)
				continue;
			snapfile_free(f);
			store_list_free(v, n);
			return -1;
		}
		if (g.torn_len && notes && used + 1 < noteslen) {
			char line[SNAP_ERRLEN];

			snapfile_torn_note(&g, v[i].path, line, sizeof(line));
			used += (size_t)snprintf(notes + used, noteslen - used, "%s%s",
						 used ? "\n" : "", line);
			if (used >= noteslen)
				used = noteslen - 1;
		}
		if (merge(f, &g)) {
			snapfile_free(&g);
			snapfile_free(f);
			store_list_free(v, n);
			seterr(err, errlen, "%s: %s", dir, strerror(ENOMEM));
			return -1;
		}
	}
	store_list_free(v, n);
	return 0;
}

int store_thin(const char *path, char *err, size_t errlen)
{
	struct snapfile g;
	struct snapshot *s;
	char *tmp = NULL, *slash, *dir;
	int ret, fd;

	if (snapfile_read(path, &g, err, errlen))
		return -1;
	if (g.nsnaps <= 1 && !g.torn_len) {
		snapfile_free(&g);
		return 0;
	}
	if (!g.nsnaps) {	/* only a torn record: nothing worth keeping */
		snapfile_free(&g);
		return unlink(path) ? (seterr(err, errlen, "%s: %s", path, strerror(errno)), -1) : 0;
	}
	if (asprintf(&tmp, "%s.thin", path) < 0) {
		snapfile_free(&g);
		seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	unlink(tmp);
	s = &g.snaps[g.nsnaps - 1];
	ret = snapfile_append(tmp, &g.tables[s->table_id], s, err, errlen);
	snapfile_free(&g);
	if (ret < 0 || rename(tmp, path)) {
		if (ret >= 0)
			seterr(err, errlen, "%s: rename: %s", tmp, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	/* The rename made durable: the directory's entry synced. */
	dir = strdup(path);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash) {
		*slash = '\0';
		fd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	free(dir);
	return 0;
}
