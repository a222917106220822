// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libprf - the /dev/prf device from C.  See libprf.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "libprf.h"

struct prf {
	int fd;
	char *path;
};

int prf_open(const char *path, int oflags, struct prf **out)
{
	struct prf *p;
	int fd;

	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->path = strdup(path);
	if (!p->path) {
		free(p);
		return -ENOMEM;
	}
	fd = open(path, (oflags & O_ACCMODE) | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		free(p->path);
		free(p);
		return -err;
	}
	p->fd = fd;
	*out = p;
	return 0;
}

int prf_open_cpu(int cpu, int oflags, struct prf **out)
{
	char path[32];

	if (cpu < 0)
		return prf_open(PRF_DEVICE, oflags, out);
	snprintf(path, sizeof(path), PRF_DEVICE "%d", cpu);
	return prf_open(path, oflags, out);
}

void prf_close(struct prf *p)
{
	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	free(p->path);
	free(p);
}

int prf_fd(const struct prf *p)
{
	return p ? p->fd : -EBADF;
}

const char *prf_path(const struct prf *p)
{
	return p ? p->path : NULL;
}

static int get_int(struct prf *p, unsigned long cmd)
{
	int v = 0;

	if (!p)
		return -EBADF;
	if (ioctl(p->fd, cmd, &v) < 0)
		return -errno;
	if (v < 0)
		return -ERANGE;
	return v;
}

int prf_get_status(struct prf *p)
{
	return get_int(p, PRF_GETSTATUS);
}

int prf_get_size(struct prf *p)
{
	return get_int(p, PRF_GETSIZE);
}

int prf_get_max(struct prf *p)
{
	return get_int(p, PRF_GETMAX);
}

int prf_set_state(struct prf *p, int on)
{
	if (!p)
		return -EBADF;
	/* By value, as prf(7) has it: bit 0 is the new state. */
	if (ioctl(p->fd, PRF_SETSTATE, (unsigned long)(on ? 1 : 0)) < 0)
		return -errno;
	return 0;
}

int prf_load(struct prf *p, const uint64_t *addrs, size_t n)
{
	size_t bytes;
	ssize_t w;

	if (!p)
		return -EBADF;
	if (!addrs && n)
		return -EFAULT;
	if (n > SSIZE_MAX / sizeof(uint64_t))
		return -ENOSPC;
	bytes = n * sizeof(uint64_t);
	/* The table is written in one call: the device takes it whole. */
	do
		w = write(p->fd, addrs, bytes);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno;
	if ((size_t)w != bytes)
		return -EIO;
	return 0;
}

ssize_t prf_read_raw(struct prf *p, void *buf, size_t bytes)
{
	ssize_t r;

	if (!p)
		return -EBADF;
	do
		r = read(p->fd, buf, bytes);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r;
}

int prf_read(struct prf *p, uint64_t *addrs, uint64_t *counts, size_t n)
{
	size_t words, want;
	uint64_t *buf;
	ssize_t r;

	if (!p)
		return -EBADF;
	if (n > (SSIZE_MAX / sizeof(uint64_t) - 3) / 2)
		return -ENOMEM;
	/* One word more than expected tells a table that grew meanwhile. */
	words = 2 * n + 3;
	want = (2 * n + 2) * sizeof(uint64_t);
	buf = malloc(words * sizeof(uint64_t));
	if (!buf)
		return -ENOMEM;
	r = prf_read_raw(p, buf, words * sizeof(uint64_t));
	if (r < 0) {
		free(buf);
		return (int)r;
	}
	if ((size_t)r != want) {
		free(buf);
		return -ESTALE;
	}
	if (addrs)
		memcpy(addrs, buf, n * sizeof(uint64_t));
	if (counts)
		memcpy(counts, buf + n, (n + 2) * sizeof(uint64_t));
	free(buf);
	return 0;
}

static int ioctl_ptr(struct prf *p, unsigned long cmd, void *arg)
{
	if (!p)
		return -EBADF;
	if (ioctl(p->fd, cmd, arg) < 0)
		return -errno;
	return 0;
}

int prf_get_hz(struct prf *p, uint32_t *hz)
{
	__u32 v = 0;
	int ret = ioctl_ptr(p, PRF_GETHZ, &v);

	if (!ret && hz)
		*hz = v;
	return ret;
}

int prf_set_hz(struct prf *p, uint32_t hz)
{
	__u32 v = hz;

	return ioctl_ptr(p, PRF_SETHZ, &v);
}

int prf_clear(struct prf *p)
{
	if (!p)
		return -EBADF;
	if (ioctl(p->fd, PRF_CLEAR, 0UL) < 0)
		return -errno;
	return 0;
}

int prf_get_flags(struct prf *p, uint32_t *flags)
{
	__u32 v = 0;
	int ret = ioctl_ptr(p, PRF_GETFLAGS, &v);

	if (!ret && flags)
		*flags = v;
	return ret;
}

int prf_set_flags(struct prf *p, uint32_t flags)
{
	__u32 v = flags;

	return ioctl_ptr(p, PRF_SETFLAGS, &v);
}

int prf_get_info(struct prf *p, struct prf_info *info)
{
	struct prf_info tmp;
	int ret;

	if (!info)
		return -EFAULT;
	memset(&tmp, 0, sizeof(tmp));
	tmp.size = sizeof(tmp);
	ret = ioctl_ptr(p, PRF_GETINFO, &tmp);
	if (ret)
		return ret;
	if (tmp.size < PRF_INFO_SIZE_V1 || tmp.size > sizeof(tmp))
		return -EPROTO;
	*info = tmp;
	return 0;
}

int prf_open_clone(int oflags, struct prf **out)
{
	return prf_open("/dev/" PRF_CLONE_NAME, oflags, out);
}

int prf_set_cpu(struct prf *p, int cpu)
{
	__s32 v = cpu;

	return ioctl_ptr(p, PRF_SETCPU, &v);
}

int prf_get_cpu(struct prf *p, int *cpu)
{
	__s32 v = 0;
	int ret = ioctl_ptr(p, PRF_GETCPU, &v);

	if (!ret && cpu)
		*cpu = v;
	return ret;
}

static int set_filter(struct prf *p, __u32 type, __u64 id)
{
	struct prf_filter f;

	memset(&f, 0, sizeof(f));
	f.type = type;
	f.id = id;
	return ioctl_ptr(p, PRF_SETFILTER, &f);
}

int prf_set_filter_tgid(struct prf *p, pid_t pid)
{
	if (pid <= 0)
		return -ESRCH;
	return set_filter(p, PRF_FILTER_TGID, (__u64)pid);
}

int prf_set_filter_cgroup(struct prf *p, const char *path)
{
	int fd, ret;

	if (!p)
		return -EBADF;
	if (!path)
		return -EFAULT;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = set_filter(p, PRF_FILTER_CGROUP, (__u64)fd);
	close(fd);
	return ret;
}

int prf_set_filter_none(struct prf *p)
{
	return set_filter(p, PRF_FILTER_NONE, 0);
}

int prf_get_filter(struct prf *p, struct prf_filter *f)
{
	struct prf_filter tmp;
	int ret;

	if (!f)
		return -EFAULT;
	memset(&tmp, 0, sizeof(tmp));
	ret = ioctl_ptr(p, PRF_GETFILTER, &tmp);
	if (!ret)
		*f = tmp;
	return ret;
}

int prf_set_tasks(struct prf *p, uint32_t capacity)
{
	__u32 v = capacity;

	return ioctl_ptr(p, PRF_SETTASKS, &v);
}

int prf_get_tasks(struct prf *p, struct prf_task *tasks, uint32_t room,
		  uint32_t *capacity, uint64_t *dropped)
{
	struct prf_tasks t;
	int ret;

	if (!tasks && room)
		return -EFAULT;
	memset(&t, 0, sizeof(t));
	t.nr = room;
	t.tasks = (__u64)(uintptr_t)tasks;
	ret = ioctl_ptr(p, PRF_GETTASKS, &t);
	if (ret)
		return ret;
	if (t.nr > room)
		return -EPROTO;
	if (capacity)
		*capacity = t.capacity;
	if (dropped)
		*dropped = t.dropped;
	return (int)t.nr;
}

int prf_set_stacks(struct prf *p, uint32_t depth, uint32_t capacity)
{
	struct prf_stack_conf c;

	memset(&c, 0, sizeof(c));
	c.depth = depth;
	c.capacity = capacity;
	return ioctl_ptr(p, PRF_SETSTACKS, &c);
}

int prf_get_stacks_conf(struct prf *p, uint32_t *depth, uint32_t *capacity,
			uint64_t *dropped)
{
	struct prf_stacks s;
	int ret;

	memset(&s, 0, sizeof(s));
	ret = ioctl_ptr(p, PRF_GETSTACKS, &s);
	if (ret)
		return ret;
	if (depth)
		*depth = s.depth;
	if (capacity)
		*capacity = s.capacity;
	if (dropped)
		*dropped = s.dropped;
	return 0;
}

int prf_read_cpu_tallies(struct prf *p, struct prf_cpu_tally **out)
{
	struct prf_cpu_tallies t;
	struct prf_cpu_tally *v;
	uint32_t room;
	int ret;

	if (!out)
		return -EFAULT;
	*out = NULL;
	memset(&t, 0, sizeof(t));
	ret = ioctl_ptr(p, PRF_GETCPUTALLIES, &t);
	if (ret)
		return ret;
	/*
	 * The number asked, then the entries: a PRF_SETCPU in between stores
	 * fewer, or as many as the room, and .nr says which.
	 */
	room = t.ncpus;
	v = calloc(room ? room : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	t.nr = room;
	t.cpus = (__u64)(uintptr_t)v;
	ret = ioctl_ptr(p, PRF_GETCPUTALLIES, &t);
	if (!ret && t.nr > room)
		ret = -EPROTO;
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	return (int)t.nr;
}

/*
 * PRF_SETUOBJS of c, the vDSO named as a file of its own (PRF_UOBJ_VDSO)
 * when the table is on; a module before it answers -EINVAL to the flag:
 * then again without it (its vDSO code of no file, as before).
 */
static int set_uobjs(struct prf *p, struct prf_uobj_conf *c)
{
	int ret;

	if (!c->capacity)
		return ioctl_ptr(p, PRF_SETUOBJS, c);
	c->flags |= PRF_UOBJ_VDSO;
	ret = ioctl_ptr(p, PRF_SETUOBJS, c);
	if (ret != -EINVAL)
		return ret;
	c->flags &= ~(uint32_t)PRF_UOBJ_VDSO;
	return ioctl_ptr(p, PRF_SETUOBJS, c);
}

int prf_set_uobjs(struct prf *p, uint32_t capacity, uint32_t files)
{
	struct prf_uobj_conf c;

	memset(&c, 0, sizeof(c));
	c.capacity = capacity;
	c.files = files;
	return set_uobjs(p, &c);
}

int prf_read_uobjs(struct prf *p, struct prf_uobjs *hdr, struct prf_uobj **entries,
		   struct prf_uobj_file **files)
{
	struct prf_uobj *e = NULL;
	struct prf_uobj_file *f = NULL;
	uint32_t room = 0, froom = 0;
	int ret, tries;

	if (!hdr || !entries || !files)
		return -EFAULT;
	*entries = NULL;
	*files = NULL;
	for (tries = 0; tries < 16; tries++) {
		memset(hdr, 0, sizeof(*hdr));
		hdr->nr = room;
		hdr->nfiles = froom;
		hdr->entries = (__u64)(uintptr_t)e;
		hdr->files = (__u64)(uintptr_t)f;
		ret = ioctl_ptr(p, PRF_GETUOBJS, hdr);
		if (ret == -EAGAIN)
			continue;	/* zeroed while the kernel read it: again */
		if (ret)
			break;
		if (hdr->nr > room || hdr->nfiles > froom) {
			ret = -EPROTO;
			break;
		}
		/* Everything in the table was stored: done. */
		if (hdr->used <= room && hdr->files_used <= froom) {
			*entries = e;
			*files = f;
			return 0;
		}
		free(e);
		free(f);
		/* The sizes asked, and a margin for what is added meanwhile. */
		room = hdr->used + hdr->used / 8 + 64;
		froom = hdr->files_used + hdr->files_used / 8 + 16;
		if (hdr->capacity && room > hdr->capacity)
			room = hdr->capacity;
		if (hdr->files_max && froom > hdr->files_max)
			froom = hdr->files_max;
		e = calloc(room, sizeof(*e));
		f = calloc(froom, sizeof(*f));
		if (!e || !f) {
			free(e);
			free(f);
			return -ENOMEM;
		}
	}
	if (!ret)
		ret = -EAGAIN;
	free(e);
	free(f);
	return ret;
}

int prf_set_uobjs_chains(struct prf *p, uint32_t capacity, uint32_t files, uint32_t depth)
{
	struct prf_uobj_conf c;

	memset(&c, 0, sizeof(c));
	c.capacity = capacity;
	c.files = files;
	c.flags = depth ? PRF_UOBJ_CHAINS : 0;
	c.depth = depth;
	return set_uobjs(p, &c);
}

int prf_set_uobjs_cfi(struct prf *p, uint32_t capacity, uint32_t files, uint32_t depth)
{
	struct prf_uobj_conf c;

	memset(&c, 0, sizeof(c));
	c.capacity = capacity;
	c.files = files;
	c.flags = PRF_UOBJ_CHAINS | PRF_UOBJ_CFI;
	c.depth = depth;
	return set_uobjs(p, &c);
}

int prf_unwind_load(struct prf *p, int fd, uint32_t machine, uint32_t flags,
		    const struct prf_unwind_row *rows, uint32_t nr)
{
	struct prf_unwind_row *old;
	struct prf_unwind_load ld;
	uint32_t i;
	int ret;

	memset(&ld, 0, sizeof(ld));
	ld.fd = fd;
	ld.machine = machine;
	ld.flags = flags;
	ld.nr = nr;
	ld.rows = (__u64)(uintptr_t)rows;
	ret = ioctl_ptr(p, PRF_SETUNWIND, &ld);
	if (ret != -EINVAL)
		return ret;
	/* a module before signal frames: those rows stop the walk instead */
	for (i = 0; i < nr && !(rows[i].flags & PRF_UNWIND_ROW_SIGNAL); i++)
		;
	if (i == nr)
		return ret;
	old = malloc((size_t)nr * sizeof(*old));
	if (!old)
		return -ENOMEM;
	memcpy(old, rows, (size_t)nr * sizeof(*old));
	for (; i < nr; i++)
		if (old[i].flags & PRF_UNWIND_ROW_SIGNAL)
			old[i].flags = PRF_UNWIND_ROW_STOP;
	ld.rows = (__u64)(uintptr_t)old;
	ret = ioctl_ptr(p, PRF_SETUNWIND, &ld);
	free(old);
	return ret;
}

int prf_read_uchains(struct prf *p, struct prf_uchains *hdr, void **chains,
		     struct prf_uobj_file **files)
{
	struct prf_uobj_file *f = NULL;
	uint32_t room = 0, froom = 0, d = 0;
	void *c = NULL;
	int ret, tries;

	if (!hdr || !chains || !files)
		return -EFAULT;
	*chains = NULL;
	*files = NULL;
	for (tries = 0; tries < 16; tries++) {
		memset(hdr, 0, sizeof(*hdr));
		hdr->nr = room;
		hdr->nfiles = froom;
		hdr->chains = (__u64)(uintptr_t)c;
		hdr->files = (__u64)(uintptr_t)f;
		ret = ioctl_ptr(p, PRF_GETUCHAINS, hdr);
		if (ret == -EAGAIN)
			continue;	/* zeroed while the kernel read it: again */
		if (ret)
			break;
		if (hdr->nr > room || hdr->nfiles > froom) {
			ret = -EPROTO;
			break;
		}
		/*
		 * Everything stored, in records of the depth our room was
		 * sized for (a table set up again meanwhile has another).
		 */
		if (hdr->used <= room && hdr->files_used <= froom && (!room || hdr->depth == d)) {
			*chains = c;
			*files = f;
			return 0;
		}
		free(c);
		free(f);
		d = hdr->depth;
		/* The sizes asked, and a margin for what is added meanwhile. */
		room = hdr->used + hdr->used / 8 + 64;
		froom = hdr->files_used + hdr->files_used / 8 + 16;
		if (hdr->capacity && room > hdr->capacity)
			room = hdr->capacity;
		if (froom > PRF_UOBJ_FILES_MAX)
			froom = PRF_UOBJ_FILES_MAX;
		if (!d)
			room = 0;	/* no chains: the files alone */
		/*
		 * Records of the deepest kind: a table set up again between
		 * two calls (another descriptor of the instance) cannot write
		 * past the buffer; pages the kernel does not write are never
		 * touched.
		 */
		c = room ? calloc(room, PRF_UCHAIN_RECORD_SIZE(PRF_UCHAIN_DEPTH_MAX)) : NULL;
		f = calloc(froom, sizeof(*f));
		if ((room && !c) || !f) {
			free(c);
			free(f);
			return -ENOMEM;
		}
	}
	if (!ret)
		ret = -EAGAIN;
	free(c);
	free(f);
	return ret;
}

int prf_read_upairs(struct prf *p, struct prf_upairs *hdr, void **pairs,
		    struct prf_uobj_file **files)
{
	struct prf_uobj_file *f = NULL;
	uint32_t room = 0, froom = 0, d = 0, ud = 0;
	void *c = NULL;
	int ret, tries;

	if (!hdr || !pairs || !files)
		return -EFAULT;
	*pairs = NULL;
	*files = NULL;
	for (tries = 0; tries < 16; tries++) {
		memset(hdr, 0, sizeof(*hdr));
		hdr->nr = room;
		hdr->nfiles = froom;
		hdr->pairs = (__u64)(uintptr_t)c;
		hdr->files = (__u64)(uintptr_t)f;
		ret = ioctl_ptr(p, PRF_GETUPAIRS, hdr);
		if (ret == -EAGAIN)
			continue;	/* zeroed while the kernel read it: again */
		if (ret)
			break;
		if (hdr->nr > room || hdr->nfiles > froom) {
			ret = -EPROTO;
			break;
		}
		/* everything stored, in records of the depths our room was sized for */
		if (hdr->used <= room && hdr->files_used <= froom &&
		    (!room || (hdr->depth == d && hdr->udepth == ud))) {
			*pairs = c;
			*files = f;
			return 0;
		}
		free(c);
		free(f);
		d = hdr->depth;
		ud = hdr->udepth;
		room = hdr->used + hdr->used / 8 + 64;
		froom = hdr->files_used + hdr->files_used / 8 + 16;
		if (hdr->capacity && room > hdr->capacity)
			room = hdr->capacity;
		if (froom > PRF_UOBJ_FILES_MAX)
			froom = PRF_UOBJ_FILES_MAX;
		if (!d || !ud)
			room = 0;	/* no pairs: the files alone */
		/* records of the deepest kind, as prf_read_uchains' */
		c = room ? calloc(room, PRF_UPAIR_RECORD_SIZE(PRF_STACK_DEPTH_MAX,
							      PRF_UCHAIN_DEPTH_MAX)) : NULL;
		f = calloc(froom ? froom : 1, sizeof(*f));
		if ((room && !c) || !f) {
			free(c);
			free(f);
			return -ENOMEM;
		}
	}
	if (!ret)
		ret = -EAGAIN;
	free(c);
	free(f);
	return ret;
}

int prf_read_stacks(struct prf *p, void **out, uint32_t *nr, uint32_t *depth,
		    uint64_t *dropped)
{
	struct prf_stacks s;
	void *buf = NULL;
	uint32_t room = 0, d = 0;
	int ret, tries;

	if (!out || !nr || !depth)
		return -EFAULT;
	*out = NULL;
	*nr = 0;
	*depth = 0;
	/*
	 * Room for 4096 stacks first, doubled while the kernel fills it all,
	 * up to the table's capacity: a table of 1M stacks of 64 frames would
	 * otherwise cost 528 MB here whatever it holds.
	 */
	for (tries = 0; tries < 64; tries++) {
		memset(&s, 0, sizeof(s));
		s.nr = room;
		s.stacks = (__u64)(uintptr_t)buf;
		ret = ioctl_ptr(p, PRF_GETSTACKS, &s);
		if (ret) {
			free(buf);
			return ret;
		}
		if (s.nr > room) {
			free(buf);
			return -EPROTO;
		}
		if (!s.depth || !s.capacity) {
			free(buf);
			if (dropped)
				*dropped = s.dropped;
			return 0;
		}
		if (room && s.depth == d && (s.nr < room || room >= s.capacity)) {
			*out = buf;
			*nr = s.nr;
			*depth = d;
			if (dropped)
				*dropped = s.dropped;
			return 0;
		}
		/* First call, full, or set up again meanwhile: more room. */
		if (s.depth != d)
			room = 0;
		d = s.depth;
		room = room ? room * 2 : 4096;
		if (room > s.capacity)
			room = s.capacity;
		free(buf);
		buf = malloc((size_t)room * PRF_STACK_RECORD_SIZE(d));
		if (!buf)
			return -ENOMEM;
	}
	free(buf);
	return -ESTALE;
}

int prf_set_mode(struct prf *p, uint32_t mode)
{
	__u32 v = mode;

	return ioctl_ptr(p, PRF_SETMODE, &v);
}

int prf_get_mode(struct prf *p, uint32_t *mode)
{
	__u32 v = 0;
	int ret;

	if (!mode)
		return -EFAULT;
	ret = ioctl_ptr(p, PRF_GETMODE, &v);
	if (!ret)
		*mode = v;
	return ret;
}

int prf_set_sched_text(struct prf *p, uint64_t start, uint64_t end)
{
	struct prf_text_range r = { .start = start, .end = end };

	return ioctl_ptr(p, PRF_SETSCHEDTEXT, &r);
}

int prf_get_sched_text(struct prf *p, uint64_t *start, uint64_t *end)
{
	struct prf_text_range r = { 0 };
	int ret;

	if (!start || !end)
		return -EFAULT;
	ret = ioctl_ptr(p, PRF_GETSCHEDTEXT, &r);
	if (!ret) {
		*start = r.start;
		*end = r.end;
	}
	return ret;
}

int prf_set_source(struct prf *p, uint32_t source, uint32_t event, uint64_t period)
{
	struct prf_source src;

	memset(&src, 0, sizeof(src));
	src.source = source;
	src.event = event;
	src.period = period;
	return ioctl_ptr(p, PRF_SETSOURCE, &src);
}

int prf_get_source(struct prf *p, struct prf_source *src)
{
	if (!src)
		return -EFAULT;
	memset(src, 0, sizeof(*src));
	return ioctl_ptr(p, PRF_GETSOURCE, src);
}

int prf_get_events(struct prf *p, uint32_t *mask)
{
	__u32 v = 0;
	int ret;

	if (!mask)
		return -EFAULT;
	ret = ioctl_ptr(p, PRF_GETEVENTS, &v);
	if (!ret)
		*mask = v;
	return ret;
}

int prf_get_sites(struct prf *p, struct prf_site *sites, uint32_t room)
{
	struct prf_sites s;
	int ret;

	if (!sites && room)
		return -EFAULT;
	memset(&s, 0, sizeof(s));
	s.nr = room;
	s.sites = (__u64)(uintptr_t)sites;
	ret = ioctl_ptr(p, PRF_GETSITES, &s);
	if (ret)
		return ret;
	if (s.nr > room)
		return -EPROTO;
	return (int)s.nr;
}

int prf_get_sites2(struct prf *p, struct prf_site2 *sites, uint32_t room)
{
	struct prf_sites s;
	int ret;
	uint32_t i;

	if (!sites && room)
		return -EFAULT;
	memset(&s, 0, sizeof(s));
	s.nr = room;
	s.flags = PRF_SITES_V2;
	s.sites = (__u64)(uintptr_t)sites;
	ret = ioctl_ptr(p, PRF_GETSITES, &s);
	if (ret == -EINVAL && prf_get_mode(p, &i) == 0 &&
	    (i == PRF_MODE_ALLOC_CALLS || i == PRF_MODE_ALLOC_BYTES)) {
		/* a module before PRF_SITES_V2: struct prf_site, spread out */
		ret = prf_get_sites(p, (struct prf_site *)sites, room);
		if (ret < 0)
			return ret;
		for (i = (uint32_t)ret; i-- > 0;) {
			struct prf_site v = ((struct prf_site *)sites)[i];

			memset(&sites[i], 0, sizeof(sites[i]));
			memcpy(&sites[i], &v, sizeof(v));
		}
		return ret;
	}
	if (ret)
		return ret;
	if (s.nr > room)
		return -EPROTO;
	return (int)s.nr;
}

int prf_cpu_of_path(const char *path)
{
	const char *base, *s;
	long cpu = 0;

	if (!path)
		return -EINVAL;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "prf", 3) != 0)
		return -EINVAL;
	s = base + 3;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || cpu > INT_MAX / 10)
			return -EINVAL;
		cpu = cpu * 10 + (*s - '0');
	}
	return (int)cpu;
}
