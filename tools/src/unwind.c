// SPDX-License-Identifier: GPL-2.0-only
/*
 * unwind - tables for the files a target runs, loaded as they appear
 * (unwind.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../lib/libprf.h"
#include "cfi.h"
#include "cmd.h"
#include "unwind.h"
#include "usym.h"
#include "vdso.h"

/* A file tried: how maps knows it, and what became of it. */
struct ufile {
	unsigned int major, minor;
	uint64_t ino;
	int reason;		/* -1 loaded, else UNWIND_* */
	char *path;		/* as maps names it */
	char *why;		/* the reason said (malloc'ed), or NULL */
};

/* A process of the target as the watcher last saw it, and its program. */
struct seen {
	pid_t pid;
	dev_t dev;
	ino_t ino;
	int young;	/* scans left that read its maps again (its loader's libraries) */
};
#define UNWIND_YOUNG	5

struct unwind_loader {
	struct prf *p;
	uint64_t bound;
	pthread_mutex_t lock;	/* everything below; held while a scan loads */
	struct ufile *v;
	size_t n, room;
	struct unwind_stats st;
	int vdso_tried;		/* the vDSO's table (unwind_load_vdso) */
	/* the watcher */
	pthread_t thread;
	pthread_cond_t wake;
	int running, stop;
	pid_t pid;
	char *cgroup;
	struct seen *seen;	/* the watcher's own */
	size_t nseen;
};

int unwind_parse_how(const char *v, int *fp)
{
	if (strcmp(v, "cfi") && strcmp(v, "fp"))
		return -1;
	*fp = !strcmp(v, "fp");
	return 0;
}

int unwind_parse_max(const char *v, uint64_t *bytes)
{
	uint64_t n;

	if (parse_u64(v, &n, 10) || !n || n > (PRF_UNWIND_BYTES_MAX >> 20))
		return -1;
	*bytes = n << 20;
	return 0;
}

struct unwind_loader *unwind_new(struct prf *p, uint64_t bound)
{
	struct unwind_loader *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->p = p;
	u->bound = bound;
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->wake, NULL);
	return u;
}

void unwind_free(struct unwind_loader *u)
{
	size_t i;

	if (!u)
		return;
	unwind_watch_stop(u);
	for (i = 0; i < u->n; i++) {
		free(u->v[i].path);
		free(u->v[i].why);
	}
	free(u->v);
	free(u->cgroup);
	free(u->seen);
	pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static struct ufile *find(struct unwind_loader *u, unsigned int major, unsigned int minor,
			  uint64_t ino)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (u->v[i].ino == ino && u->v[i].major == major && u->v[i].minor == minor)
			return &u->v[i];
	return NULL;
}

static struct ufile *add(struct unwind_loader *u, unsigned int major, unsigned int minor,
			 uint64_t ino, const char *path)
{
	struct ufile *f;

	if (u->n == u->room) {
		size_t room = u->room ? 2 * u->room : 32;
		struct ufile *nv = realloc(u->v, room * sizeof(*nv));

		if (!nv)
			return NULL;
		u->v = nv;
		u->room = room;
	}
	f = &u->v[u->n];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	f->major = major;
	f->minor = minor;
	f->ino = ino;
	f->reason = UNWIND_UNOPENED;
	u->n++;
	return f;
}

static void skip(struct unwind_loader *u, struct ufile *f, int reason, const char *why)
{
	f->reason = reason;
	f->why = why ? strdup(why) : NULL;
	u->st.skipped[reason]++;
}

/*
 * f's table built from the ELF file at path and handed to the module for
 * fd (an open file, or PRF_UNWIND_VDSO), within the bound: 0 (loaded, or
 * not: counted in f), 1 when a module before the vDSO's table refused
 * PRF_UNWIND_VDSO (EBADF; nothing counted), or -ENOMEM.
 */
static int build_load(struct unwind_loader *u, struct ufile *f, const char *path, int fd)
{
	struct prf_unwind_row *rows;
	struct cfi_table t;
	char err[512];
	uint64_t bytes;
	uint32_t flags;
	int ret;

	if (cfi_build(path, PRF_UNWIND_ROWS_MAX, &t, err, sizeof(err))) {
		skip(u, f, UNWIND_NO_CFI, err);
		return 0;
	}
	bytes = (uint64_t)t.n * sizeof(*rows);
	if (u->st.bytes + bytes > u->bound) {
		snprintf(err, sizeof(err), "%zu rows, %" PRIu64 " bytes: past the bound (%" PRIu64
			 " of %" PRIu64 " bytes used)", t.n, bytes, u->st.bytes, u->bound);
		skip(u, f, UNWIND_OVER_BOUND, err);
		cfi_free(&t);
		return 0;
	}
	rows = calloc(t.n ? t.n : 1, sizeof(*rows));
	if (!rows) {
		cfi_free(&t);
		return -ENOMEM;
	}
	cfi_unwind_rows(&t, rows);
	flags = cfi_keeps_frame_pointers(&t) ? PRF_UNWIND_FRAMEPTR : 0;
	ret = prf_unwind_load(u->p, fd, (uint32_t)t.machine, flags, rows, (uint32_t)t.n);
	if (ret == -EBADF && fd == PRF_UNWIND_VDSO) {
		ret = 1;
	} else if (ret) {
		snprintf(err, sizeof(err), "PRF_SETUNWIND: %s", strerror(-ret));
		skip(u, f, UNWIND_REFUSED, err);
		ret = 0;
	} else {
		f->reason = -1;
		u->st.files++;
		u->st.rows += t.n;
		u->st.bytes += bytes;
		u->st.frameptr += !!flags;
	}
	cfi_free(&t);
	free(rows);
	return ret;
}

/*
 * f's table: the file opened through map_files (the mapping's own file),
 * else at its path under the process's root when that is the file maps
 * names; with pid 0, at its path.  0, or -ENOMEM.
 */
static int load_one(struct unwind_loader *u, struct ufile *f, pid_t pid, uint64_t start,
		    uint64_t end)
{
	char mf[96], *rp = NULL;
	struct stat sb, ps;
	const char *path;
	int fd, ret = 0;

	/* pid 0: the path itself (prf daemon: a path the kernel named) */
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start, end);
	if (pid ? asprintf(&rp, "/proc/%d/root%s", (int)pid, f->path) < 0 :
		  !(rp = strdup(f->path)))
		return -ENOMEM;
	fd = pid ? open(mf, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		fd = open(rp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || (uint64_t)sb.st_ino != f->ino) {
		skip(u, f, UNWIND_UNOPENED, fd < 0 ? strerror(errno) : "replaced since mapped");
		goto out;
	}
	/* the path (its debug file beside it) when it is that file still */
	path = !pid || (!stat(rp, &ps) && ps.st_ino == sb.st_ino && ps.st_dev == sb.st_dev) ?
	       rp : mf;
	ret = build_load(u, f, path, fd);
out:
	if (fd >= 0)
		close(fd);
	free(rp);
	return ret < 0 ? ret : 0;
}

/*
 * The vDSO's table, once (unwind_load_vdso); the lock held.  A module
 * before PRF_UNWIND_VDSO (EBADF) leaves no trace: the vDSO's chains end
 * at it, as before.
 */
static int load_vdso_locked(struct unwind_loader *u)
{
	const struct vdso *v;
	size_t before = u->st.files;
	struct ufile *f;
	char err[256];
	int ret = 0;

	if (u->vdso_tried)
		return 0;
	u->vdso_tried = 1;
	f = add(u, 0, 0, 0, VDSO_NAME);
	if (!f)
		return -ENOMEM;
	v = vdso_own(err, sizeof(err));
	if (!v)
		skip(u, f, UNWIND_UNOPENED, err);
	else
		ret = build_load(u, f, v->path, PRF_UNWIND_VDSO);
	if (ret == 1) {
		free(f->path);
		u->n--;
		ret = 0;
	}
	u->st.vdso = u->st.files > before;
	return ret < 0 ? ret : u->st.files > before;
}

int unwind_load_vdso(struct unwind_loader *u)
{
	int ret;

	pthread_mutex_lock(&u->lock);
	ret = load_vdso_locked(u);
	pthread_mutex_unlock(&u->lock);
	return ret;
}

int unwind_load_file(struct unwind_loader *u, const char *path, unsigned int major,
		     unsigned int minor, uint64_t ino)
{
	size_t before;
	struct ufile *f;
	struct stat sb;
	int ret = 0;

	pthread_mutex_lock(&u->lock);
	if (find(u, major, minor, ino))
		goto out;
	f = add(u, major, minor, ino, path);
	if (!f) {
		ret = -ENOMEM;
		goto out;
	}
	before = u->st.files;
	/* the file the table names, not another one at its path now */
	if (stat(path, &sb) || (uint64_t)sb.st_ino != ino || major(sb.st_dev) != major ||
	    minor(sb.st_dev) != minor) {
		skip(u, f, UNWIND_UNOPENED, "another file at that path now, or none");
		goto out;
	}
	ret = load_one(u, f, 0, 0, 0);
	if (!ret)
		ret = u->st.files > before;
out:
	pthread_mutex_unlock(&u->lock);
	return ret;
}

static int load_pid_locked(struct unwind_loader *u, pid_t pid)
{
	unsigned long long start, end, off, ino;
	unsigned int major, minor;
	char maps[64], *line = NULL, perms[8];
	size_t cap = 0, before = u->st.files;
	int ret = 0, at;
	FILE *fp;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	fp = fopen(maps, "re");
	if (!fp)
		return 0;	/* gone meanwhile */
	while (!ret && getline(&line, &cap, fp) > 0) {
		struct ufile *f;
		char *path, *nl;

		at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &major, &minor, &ino, &at) < 7 || !at)
			continue;
		path = line + at;
		nl = strchr(path, '\n');
		if (nl)
			*nl = '\0';
		/* the vDSO: its table, the same for every process, once */
		if (!strcmp(path, VDSO_NAME)) {
			ret = load_vdso_locked(u);
			ret = ret < 0 ? ret : 0;
			continue;
		}
		/* executable, of a file (not "(deleted)": its path is another's) */
		if (!strchr(perms, 'x') || path[0] != '/' || !ino)
			continue;
		if (find(u, major, minor, ino))
			continue;
		f = add(u, major, minor, ino, path);
		if (!f) {
			ret = -ENOMEM;
			break;
		}
		ret = load_one(u, f, pid, start, end);
	}
	free(line);
	fclose(fp);
	return ret ? ret : (int)(u->st.files - before);
}

int unwind_load_pid(struct unwind_loader *u, pid_t pid)
{
	int ret;

	pthread_mutex_lock(&u->lock);
	ret = load_pid_locked(u, pid);
	pthread_mutex_unlock(&u->lock);
	return ret;
}

/* The program process pid runs now, by its device and inode (0: gone). */
static void exe_of(pid_t pid, struct seen *s)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	s->pid = pid;
	s->dev = 0;
	s->ino = 0;
	if (!stat(path, &sb)) {
		s->dev = sb.st_dev;
		s->ino = sb.st_ino;
	}
}

/*
 * The target's processes: every one's mappings read when @full, else
 * those of a process new since the last scan or running another program
 * (an exec: wrappers such as taskset, env and sh -c run the program of
 * interest so), whose tables are wanted before its first samples, and
 * again for UNWIND_YOUNG scans after (its dynamic loader maps its
 * libraries meanwhile).  The processes and their programs are kept for
 * the next scan.
 */
static void scan(struct unwind_loader *u, int full)
{
	pid_t *pids = NULL, one = u->pid;
	struct seen *now;
	size_t n = 0, i, k;
	char err[256];

	if (one > 0) {
		pids = &one;
		n = 1;
	} else if (usym_cgroup_pids(u->cgroup, &pids, &n, err, sizeof(err))) {
		return;	/* removed: the recording ends */
	}
	now = calloc(n ? n : 1, sizeof(*now));
	for (i = 0; now && i < n; i++) {
		exe_of(pids[i], &now[i]);
		for (k = 0; k < u->nseen; k++)
			if (u->seen[k].pid == pids[i])
				break;
		/* new, or another program: read again while its loader maps */
		if (k == u->nseen || u->seen[k].dev != now[i].dev ||
		    u->seen[k].ino != now[i].ino)
			now[i].young = UNWIND_YOUNG;
		else if (u->seen[k].young)
			now[i].young = u->seen[k].young - 1;
		else if (!full)
			continue;
		if (unwind_load_pid(u, pids[i]) == -ENOMEM)
			break;
	}
	if (now) {
		free(u->seen);
		u->seen = now;
		u->nseen = n;
	}
	if (pids != &one)
		free(pids);
}

static void *watch(void *arg)
{
	struct unwind_loader *u = arg;
	struct timespec ts;
	unsigned int tick = 0;
	long ms;

	pthread_mutex_lock(&u->lock);
	while (!u->stop) {
		int full = !(tick++ % (UNWIND_WATCH_MS / UNWIND_EXEC_MS));

		pthread_mutex_unlock(&u->lock);
		scan(u, full);
		pthread_mutex_lock(&u->lock);
		/* a target of many processes: its mappings every UNWIND_WATCH_MS alone */
		ms = u->nseen > UNWIND_EXEC_PIDS ? UNWIND_WATCH_MS : UNWIND_EXEC_MS;
		if (ms == UNWIND_WATCH_MS)
			tick = 0;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += ms * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		while (!u->stop && pthread_cond_timedwait(&u->wake, &u->lock, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

int unwind_watch_start(struct unwind_loader *u, const struct target *tg)
{
	int ret;

	if (u->running)
		return -EBUSY;
	u->pid = tg->pid;
	free(u->cgroup);
	u->cgroup = tg->cgroup ? strdup(tg->cgroup) : NULL;
	if (tg->cgroup && !u->cgroup)
		return -ENOMEM;
	u->stop = 0;
	ret = pthread_create(&u->thread, NULL, watch, u);
	if (ret)
		return -ret;
	u->running = 1;
	return 0;
}

void unwind_watch_stop(struct unwind_loader *u)
{
	if (!u->running)
		return;
	pthread_mutex_lock(&u->lock);
	u->stop = 1;
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	pthread_join(u->thread, NULL);
	u->running = 0;
}

void unwind_get_stats(struct unwind_loader *u, struct unwind_stats *st)
{
	pthread_mutex_lock(&u->lock);
	*st = u->st;
	pthread_mutex_unlock(&u->lock);
}

static const char *const reason_name[UNWIND_NREASONS] = {
	[UNWIND_NO_CFI] = "no table",
	[UNWIND_OVER_BOUND] = "past --unwind-max",
	[UNWIND_REFUSED] = "refused by prf.ko",
	[UNWIND_UNOPENED] = "not opened",
};

void unwind_print(FILE *out, struct unwind_loader *u, size_t max)
{
	size_t i, shown = 0, none = 0;

	pthread_mutex_lock(&u->lock);
	for (i = 0; i < UNWIND_NREASONS; i++)
		none += u->st.skipped[i];
	fprintf(out, "prf: unwind tables: %zu files, %" PRIu64 " rows, %" PRIu64 " KiB of %" PRIu64
		" KiB (--unwind-max)", u->st.files, u->st.rows, (u->st.bytes + 1023) >> 10,
		u->bound >> 10);
	if (u->st.frameptr)
		fprintf(out, ", %zu of them with frame pointers", u->st.frameptr);
	if (u->st.vdso)
		fprintf(out, ", the vDSO's among them");
	if (none)
		fprintf(out, "; %zu files without one: chains end at their code, "
			"[truncated]", none);
	fprintf(out, "\n");
	for (i = 0; i < u->n && shown < max; i++) {
		const struct ufile *f = &u->v[i];

		if (f->reason < 0)
			continue;
		fprintf(out, "prf:   %s: %s%s%s\n", f->path, reason_name[f->reason],
			f->why ? ": " : "", f->why ? f->why : "");
		shown++;
	}
	if (none > shown)
		fprintf(out, "prf:   and %zu more\n", none - shown);
	pthread_mutex_unlock(&u->lock);
}
