// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_user - what prf record, prfld -p/-G and the reports share for
 * profiling one process or one cgroup: the table of its user functions and
 * the kernel's (PRF_FLAG_USERPC), the filter, the names of user addresses
 * in snapshots, the per-process tally.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "usym.h"

/* The user entries of the last table built or found: names for snapshots. */
static struct symtab user_names;
static int have_user_names;

static void keep_user_names(const struct symtab *t)
{
	size_t i;

	symtab_free(&user_names);
	symtab_init(&user_names);
	have_user_names = 1;
	for (i = 0; i < t->n && usym_is_user_addr(t->v[i].addr); i++)
		if (symtab_add(&user_names, t->v[i].addr, t->v[i].size, t->v[i].name,
			       t->v[i].module, t->v[i].kind, t->v[i].rank))
			break;
}

int user_describe(uint64_t addr, char **name, char **module, int *kind)
{
	if (!have_user_names || !usym_is_user_addr(addr) || !user_names.n)
		return 0;
	return nl_describe(&user_names, addr, name, module, kind) ? -1 : 1;
}

int user_table(const struct common *c, const pid_t *pids, size_t npids, size_t max,
	       struct symtab *out)
{
	struct ld_opts lo = { 0 };
	struct symtab u, k;
	char err[512];
	int ret;

	if (usym_load_pids(pids, npids, &u, err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	if (err[0])
		msg("warning: user functions left out: %s", err);
	ret = build_table(c, &lo, 0, &k);
	if (ret) {
		symtab_free(&u);
		return ret;
	}
	if (usym_merge(&u, &k, out)) {
		symtab_free(&u);
		symtab_free(&k);
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	if (max && out->n > max) {
		msg("%zu addresses (user and kernel functions), the device holds at most %zu",
		    out->n, max);
		symtab_free(out);
		return 1;
	}
	keep_user_names(out);
	return 0;
}

int set_target_filter(struct prf *p, const char *dev, const struct target *tg)
{
	int ret;

	if (tg->cgroup)
		ret = prf_set_filter_cgroup(p, tg->cgroup);
	else if (tg->pid > 0)
		ret = prf_set_filter_tgid(p, tg->pid);
	else
		return 0;
	if (ret == -ESRCH)
		msg("%s: PRF_SETFILTER: no process %d", dev, (int)tg->pid);
	else if (ret && tg->cgroup)
		msg("%s: PRF_SETFILTER: cgroup %s: %s%s", dev, tg->cgroup, strerror(-ret),
		    ret == -EINVAL || ret == -ENOTDIR ? " (not a cgroup v2 directory)" : "");
	else if (ret)
		return dev_fail(dev, "PRF_SETFILTER", ret);
	return ret ? 1 : 0;
}

int load_target(struct prf *p, const struct common *c, const struct target *tg,
		size_t *nuser, size_t *ntotal)
{
	struct symtab t;
	pid_t *pids = NULL, one = tg->pid;
	size_t np = 1, i;
	uint32_t fl = 0;
	char err[512];
	int max = prf_get_max(p), ret;

	if (max < 0)
		return dev_fail(c->dev, "PRF_GETMAX", max);
	if (tg->cgroup) {
		if (usym_cgroup_pids(tg->cgroup, &pids, &np, err, sizeof(err))) {
			msg("%s", err);
			return 1;
		}
		if (!np) {
			msg("%s: no process in the cgroup: its user functions are unknown",
			    tg->cgroup);
			free(pids);
			return 1;
		}
	}
	ret = user_table(c, tg->cgroup ? pids : &one, np, (size_t)max, &t);
	free(pids);
	if (ret)
		return ret;
	/* The filter first: PRF_FLAG_USERPC wants one. */
	if ((ret = set_target_filter(p, c->dev, tg)) || (ret = load_table(p, c->dev, &t)))
		goto out;
	if ((ret = prf_get_flags(p, &fl)) || (ret = prf_set_flags(p, fl | PRF_FLAG_USERPC))) {
		ret = dev_fail(c->dev, "PRF_SETFLAGS", ret);
		goto out;
	}
	for (i = 0; i < t.n && usym_is_user_addr(t.v[i].addr); i++)
		;
	if (nuser)
		*nuser = i;
	if (ntotal)
		*ntotal = t.n;
out:
	symtab_free(&t);
	return ret;
}

/* nftw() has no context pointer: the search's state. */
static uint64_t want_ino;
static char *found_dir;

static int match_ino(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_D && (uint64_t)sb->st_ino == want_ino) {
		found_dir = strdup(path);
		return 1;
	}
	return 0;
}

char *cgroup_v2_root(void)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64];
	char *ret = NULL;

	if (!f)
		return NULL;
	while (fscanf(f, "%255s %4095s %63s %*s %*d %*d", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			ret = strdup(dir);
			break;
		}
	fclose(f);
	return ret;
}

/* The names of a table's user addresses, from the instance's filter. */
void user_names_from_filter(struct prf *p)
{
	struct prf_filter fl;
	struct symtab u;
	pid_t *pids = NULL, one;
	size_t np = 0;
	char err[512], *root;

	if (have_user_names)
		return;
	have_user_names = 1;
	symtab_init(&user_names);
	if (prf_get_filter(p, &fl))
		return;
	if (fl.type == PRF_FILTER_TGID && fl.id) {
		one = (pid_t)fl.id;
		if (!usym_load_pids(&one, 1, &u, err, sizeof(err)))
			user_names = u;
		return;
	}
	if (fl.type != PRF_FILTER_CGROUP || !(root = cgroup_v2_root()))
		return;
	want_ino = fl.id;
	found_dir = NULL;
	nftw(root, match_ino, 16, FTW_PHYS | FTW_MOUNT);
	free(root);
	if (found_dir && !usym_cgroup_pids(found_dir, &pids, &np, err, sizeof(err)) && np &&
	    !usym_load_pids(pids, np, &u, err, sizeof(err)))
		user_names = u;
	free(pids);
	free(found_dir);
	found_dir = NULL;
}

/* ------------------------------------------------------------------ */
/* The per-process tally                                               */

static int cmp_task(const void *pa, const void *pb)
{
	const struct prf_task *a = pa, *b = pb;

	if (a->kernel != b->kernel)
		return a->kernel > b->kernel ? -1 : 1;
	if (a->user != b->user)
		return a->user > b->user ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static double share(uint64_t part, uint64_t all)
{
	return all ? 100.0 * (double)part / (double)all : 0.0;
}

void print_tasks(FILE *out, struct prf_task *v, size_t n, size_t max_rows,
		 uint64_t dropped, enum report_format fmt)
{
	uint64_t tk = 0, tu = 0;
	size_t i, rows = max_rows && max_rows < n ? max_rows : n;

	qsort(v, n, sizeof(*v), cmp_task);
	for (i = 0; i < n; i++) {
		tk += v[i].kernel;
		tu += v[i].user;
	}
	if (fmt == FMT_CSV) {
		fprintf(out, "pid,comm,kernel,kernel_percent,user,user_percent\n");
		for (i = 0; i < rows; i++)
			fprintf(out, "%d,%.16s,%" PRIu64 ",%.2f,%" PRIu64 ",%.2f\n", v[i].pid,
				v[i].comm, (uint64_t)v[i].kernel, share(v[i].kernel, tk),
				(uint64_t)v[i].user, share(v[i].user, tu));
		return;
	}
	fprintf(out, "%8s  %-16s %10s %7s %10s %7s\n", "pid", "comm", "kernel", "%", "user", "%");
	for (i = 0; i < rows; i++)
		fprintf(out, "%8d  %-16.16s %10" PRIu64 " %6.2f%% %10" PRIu64 " %6.2f%%\n",
			v[i].pid, v[i].comm, (uint64_t)v[i].kernel, share(v[i].kernel, tk),
			(uint64_t)v[i].user, share(v[i].user, tu));
	fprintf(out, "%zu process%s, %" PRIu64 " kernel and %" PRIu64 " user samples",
		n, n == 1 ? "" : "es", tk, tu);
	if (rows < n)
		fprintf(out, " (top %zu shown)", rows);
	if (dropped)
		fprintf(out, "; %" PRIu64 " samples of processes the table had no room for",
			dropped);
	fputc('\n', out);
}

int read_tasks(struct prf *p, const char *dev, struct prf_task **v, size_t *n,
	       uint64_t *dropped)
{
	uint32_t cap = 0;
	int ret = prf_get_tasks(p, NULL, 0, &cap, dropped);

	*v = NULL;
	*n = 0;
	if (ret < 0)
		return dev_fail(dev, "PRF_GETTASKS", ret);
	*v = calloc(cap ? cap : 1, sizeof(**v));
	if (!*v) {
		msg("%s", strerror(ENOMEM));
		return 1;
	}
	ret = prf_get_tasks(p, *v, cap, NULL, dropped);
	if (ret < 0) {
		free(*v);
		*v = NULL;
		return dev_fail(dev, "PRF_GETTASKS", ret);
	}
	*n = (size_t)ret;
	return 0;
}
