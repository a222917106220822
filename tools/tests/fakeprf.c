// SPDX-License-Identifier: GPL-2.0-only
/*
 * fakeprf.so - a /dev/prf stand-in for the host tests, by LD_PRELOAD: the
 * real prf binary and libprf run against it, no module needed.
 *
 *   FAKEPRF=PATH      the device: opening PATH opens the fake, whose state
 *                     is the text file PATH itself (empty: OFF, 100 Hz,
 *                     flags 0, nothing loaded), rewritten after each change:
 *                         on 0|1 / hz N / flags N / max N / version N /
 *                         addrs N A1 A2 ...
 *                     (version 1: a device of struct prf_info version 1,
 *                     which knows PRF_FLAG_JITTER alone; default: this
 *                     header's PRF_INFO_VERSION)
 *   FAKEPRF_LOG=FILE  one line per call that changes the device, appended:
 *                     LOAD n, SETSTATE 0|1, SETHZ n, SETFLAGS n, CLEAR
 *
 * It answers what uapi/linux/prf.h says the device answers: EBUSY for
 * SETHZ/SETFLAGS/write while ON, EINVAL for unknown flags (and for JITTER
 * with FIXED), rates or
 * commands, E2BIG/ENOSPC/EINVAL for bad tables, ENXIO when unloaded.
 * The counters are zero, or, with FAKEPRF_GROW set, entry i's grows by
 * (i + 1)^2 at each read of the process (user by 5, idle by 50).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/prf.h>

#define MAX_FD 1024

struct state {
	int on;
	uint32_t hz, flags, version;
	uint64_t max, n;
	uint64_t *addrs;
};

/* O_ACCMODE bits + 1 of each descriptor open on the fake, 0 for the others. */
static unsigned char fake[MAX_FD];

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "fakeprf: no %s\n", name);
		abort();
	}
	return f;
}

static int fake_mode(int fd)
{
	return fd >= 0 && fd < MAX_FD ? fake[fd] : 0;
}

static int is_fake_path(const char *path)
{
	const char *dev = getenv("FAKEPRF");

	return dev && path && !strcmp(dev, path);
}

static void log_op(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_op(const char *fmt, ...)
{
	const char *path = getenv("FAKEPRF_LOG");
	va_list ap;
	FILE *f;

	if (!path || !(f = fopen(path, "a")))
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int load_state(struct state *s)
{
	FILE *f = fopen(getenv("FAKEPRF"), "r");
	char key[16];
	unsigned long long v;
	uint64_t i;

	memset(s, 0, sizeof(*s));
	s->hz = PRF_HZ_DEFAULT;
	s->max = 4096;
	s->version = PRF_INFO_VERSION;
	if (!f)
		return -errno;
	while (fscanf(f, "%15s %llu", key, &v) == 2) {
		if (!strcmp(key, "on"))
			s->on = !!v;
		else if (!strcmp(key, "hz"))
			s->hz = (uint32_t)v;
		else if (!strcmp(key, "flags"))
			s->flags = (uint32_t)v;
		else if (!strcmp(key, "max"))
			s->max = v;
		else if (!strcmp(key, "version"))
			s->version = (uint32_t)v;
		else if (!strcmp(key, "addrs") && v <= s->max) {
			s->addrs = calloc(v ? v : 1, sizeof(*s->addrs));
			if (!s->addrs)
				break;
			s->n = v;
			for (i = 0; i < v && fscanf(f, "%llx", &v) == 1; i++)
				s->addrs[i] = v;
		}
	}
	fclose(f);
	return 0;
}

/* What SETFLAGS refuses with EINVAL on a device of this version. */
static int bad_flags(const struct state *s, uint32_t v)
{
	if (s->version < 2)
		return !!(v & ~(uint32_t)PRF_FLAG_JITTER);
	return (v & ~(uint32_t)PRF_FLAGS_ALL) ||
	       ((v & PRF_FLAG_JITTER) && (v & PRF_FLAG_FIXED));
}

static void save_state(const struct state *s)
{
	FILE *f = fopen(getenv("FAKEPRF"), "w");
	uint64_t i;

	if (!f)
		return;
	fprintf(f, "on %d\nhz %u\nflags %u\nmax %llu\nversion %u\naddrs %llu", s->on, s->hz,
		s->flags, (unsigned long long)s->max, s->version, (unsigned long long)s->n);
	for (i = 0; i < s->n; i++)
		fprintf(f, " %llx", (unsigned long long)s->addrs[i]);
	fputc('\n', f);
	fclose(f);
}

static int fake_open(const char *path, int flags)
{
	int (*real)(const char *, int, ...) = next("open");
	int fd = real(path, O_RDONLY | (flags & O_CLOEXEC));

	if (fd >= MAX_FD) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	if (fd >= 0)
		fake[fd] = (unsigned char)((flags & O_ACCMODE) + 1);
	return fd;
}

int open(const char *path, int flags, ...)
{
	int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (is_fake_path(path))
		return fake_open(path, flags);
	real = next("open");
	va_start(ap, flags);
	if (__OPEN_NEEDS_MODE(flags))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return real(path, flags, mode);
}

int __open_2(const char *path, int flags)
{
	int (*real)(const char *, int) = next("__open_2");

	return is_fake_path(path) ? fake_open(path, flags) : real(path, flags);
}

/* The same on 64-bit (what _FILE_OFFSET_BITS=64 or fortified code calls). */
extern __typeof(open) open64 __attribute__((alias("open")));
int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

int close(int fd)
{
	int (*real)(int) = next("close");

	if (fake_mode(fd))
		fake[fd] = 0;
	return real(fd);
}

static ssize_t fake_read(void *buf, size_t count)
{
	struct state s;
	uint64_t *words;
	size_t want;
	int ret = load_state(&s);

	if (!ret && !s.n)
		ret = -ENXIO;
	want = (size_t)(2 * s.n + 2) * sizeof(uint64_t);
	words = ret ? NULL : calloc(1, want);
	if (!ret && !words)
		ret = -ENOMEM;
	if (ret) {
		free(s.addrs);
		errno = -ret;
		return -1;
	}
	/* The addresses, then N + 2 counters: zero, or growing (FAKEPRF_GROW). */
	memcpy(words, s.addrs, (size_t)s.n * sizeof(uint64_t));
	if (getenv("FAKEPRF_GROW")) {
		static uint64_t reads;
		uint64_t i;

		reads++;
		for (i = 0; i < s.n; i++)
			words[s.n + i] = reads * (i + 1) * (i + 1);
		words[2 * s.n] = reads * 5;
		words[2 * s.n + 1] = reads * 50;
	}
	if (count > want)
		count = want;
	memcpy(buf, words, count);
	free(words);
	free(s.addrs);
	return (ssize_t)count;
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t (*real)(int, void *, size_t) = next("read");

	return fake_mode(fd) ? fake_read(buf, count) : real(fd, buf, count);
}

ssize_t __read_chk(int fd, void *buf, size_t count, size_t buflen)
{
	(void)buflen;
	return read(fd, buf, count);
}

static ssize_t fake_write(int accmode, const void *buf, size_t count)
{
	const uint64_t *a = buf;
	struct state s;
	size_t k, n = count / sizeof(uint64_t);
	int ret;

	if (accmode == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	if ((ret = load_state(&s))) {
		errno = -ret;
		return -1;
	}
	free(s.addrs);
	s.addrs = NULL;
	if (count % sizeof(uint64_t) || n < PRF_MIN_ADDRS)
		ret = E2BIG;
	else if (n > s.max)
		ret = ENOSPC;
	else if (s.on)
		ret = EBUSY;
	for (k = 1; !ret && k < n; k++)
		if (a[k] <= a[k - 1])
			ret = EINVAL;
	if (ret && ret != EINVAL) {
		errno = ret;
		return -1;
	}
	s.n = 0;
	if (!ret) {
		s.addrs = malloc(count);
		if (!s.addrs) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(s.addrs, a, count);
		s.n = n;
	}
	save_state(&s);
	free(s.addrs);
	log_op("LOAD %zu%s", n, ret ? " EINVAL" : "");
	if (ret) {
		errno = ret;
		return -1;
	}
	return (ssize_t)count;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	ssize_t (*real)(int, const void *, size_t) = next("write");
	int m = fake_mode(fd);

	return m ? fake_write(m - 1, buf, count) : real(fd, buf, count);
}

/* One command on the state s; 1 when s changed, 0 when not, or -errno. */
static int fake_cmd(struct state *s, unsigned long cmd, unsigned long arg)
{
	void *p = (void *)arg;
	uint32_t v;

	switch (cmd) {
	case PRF_GETSTATUS:
		*(int *)p = (s->on ? PRF_STATUS_ON : 0) | (s->n ? PRF_STATUS_LOADED : 0);
		return 0;
	case PRF_GETSIZE:
		*(int *)p = (int)s->n;
		return 0;
	case PRF_GETMAX:
		*(int *)p = (int)s->max;
		return 0;
	case PRF_SETSTATE:
		if (!s->n)
			return 0;
		s->on = (int)(arg & 1);
		log_op("SETSTATE %d", s->on);
		return 1;
	case PRF_GETHZ:
		*(uint32_t *)p = s->hz;
		return 0;
	case PRF_CLEAR:
		if (!s->n)
			return -ENXIO;
		log_op("CLEAR");
		return 0;
	case PRF_GETFLAGS:
		*(uint32_t *)p = s->flags;
		return 0;
	case PRF_SETHZ:
	case PRF_SETFLAGS:
		v = *(uint32_t *)p;
		if (cmd == PRF_SETHZ ? v < PRF_HZ_MIN || v > PRF_HZ_MAX : bad_flags(s, v))
			return -EINVAL;
		if (s->on)
			return -EBUSY;
		*(cmd == PRF_SETHZ ? &s->hz : &s->flags) = v;
		log_op("%s %u", cmd == PRF_SETHZ ? "SETHZ" : "SETFLAGS", v);
		return 1;
	case PRF_GETINFO: {
		struct prf_info in = { 0 };
		uint32_t size = ((struct prf_info *)p)->size;

		if (size < PRF_INFO_SIZE_V1)
			return -EINVAL;
		in.size = s->version < 2 ? PRF_INFO_SIZE_V1 : (uint32_t)sizeof(in);
		if (size < in.size)
			in.size = size;
		in.version = s->version;
		in.status = (s->on ? PRF_STATUS_ON : 0) | (s->n ? PRF_STATUS_LOADED : 0);
		in.flags = s->flags;
		in.hz = s->hz;
		in.usec_per_tick = 1000000 / s->hz;
		in.cpu = -1;
		in.ncpus = 1;
		in.naddrs = s->n;
		in.max_addrs = s->max;
		memcpy(p, &in, in.size);
		return 0;
	}
	default:
		return -EINVAL;
	}
}

int ioctl(int fd, unsigned long cmd, ...)
{
	int (*real)(int, unsigned long, ...) = next("ioctl");
	struct state s;
	unsigned long arg;
	va_list ap;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (!fake_mode(fd))
		return real(fd, cmd, arg);
	if ((ret = load_state(&s)) || (ret = fake_cmd(&s, cmd, arg)) <= 0) {
		free(s.addrs);
		if (!ret)
			return 0;
		errno = -ret;
		return -1;
	}
	save_state(&s);
	free(s.addrs);
	return 0;
}
