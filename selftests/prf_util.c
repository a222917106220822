// SPDX-License-Identifier: GPL-2.0
/*
 * prf_util.c - helpers shared by the prf kselftests (see prf_util.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "prf_util.h"

/* ---- CPUs ---------------------------------------------------------------- */

/* Highest id + 1 in a cpulist such as "0-3,5". */
static int cpulist_span(const char *path)
{
	char buf[256], *p;
	int hi = -1;

	if (prf_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > hi)
			hi = v;
		p = end;
		if (*p == '-' || *p == ',')
			p++;
		else
			break;
	}
	return hi + 1;
}

int prf_nr_possible(void)
{
	int n = cpulist_span("/sys/devices/system/cpu/possible");

	return n > 0 ? n : (int)sysconf(_SC_NPROCESSORS_CONF);
}

int prf_nr_online(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int prf_cpu_online(int cpu)
{
	char path[64], buf[16];
	int r;

	if (cpu == 0)
		return 1;	/* usually has no "online" file */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	r = prf_read_file(path, buf, sizeof(buf));
	if (r == -ENOENT) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		return access(path, F_OK) == 0;
	}
	if (r < 0)
		return r;
	return buf[0] == '1';
}

int prf_cpulist_has(const char *list, int cpu)
{
	const char *p = list;
	char *end;
	long lo, hi;

	while (*p >= '0' && *p <= '9') {
		lo = strtol(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			p = end;
		}
		if (cpu >= lo && cpu <= hi)
			return 1;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

int prf_cpu_isolated(int cpu)
{
	static const char *const lists[] = {
		"/sys/devices/system/cpu/isolated",
		"/sys/devices/system/cpu/nohz_full",
	};
	char buf[1024];
	size_t i;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (prf_read_file(lists[i], buf, sizeof(buf)) > 0 &&
		    prf_cpulist_has(buf, cpu))
			return 1;
	return 0;
}

int prf_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* ---- devices ------------------------------------------------------------- */

const char *prf_dev_path(int cpu, char *buf, size_t len)
{
	if (cpu == PRF_ALL)
		snprintf(buf, len, "%s", PRF_DEVICE);
	else
		snprintf(buf, len, "%s%d", PRF_DEVICE, cpu);
	return buf;
}

unsigned int prf_minor(int cpu)
{
	return cpu == PRF_ALL ? PRF_ALL_MINOR : prf_cpu_minor(cpu);
}

int prf_open(int cpu, int flags)
{
	char path[32];
	int fd = open(prf_dev_path(cpu, path, sizeof(path)), flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ---- ioctls -------------------------------------------------------------- */

static int get_int(int fd, unsigned long cmd)
{
	int v = -1;

	return ioctl(fd, cmd, &v) ? -errno : v;
}

int prf_status(int fd) { return get_int(fd, PRF_GETSTATUS); }
int prf_size(int fd) { return get_int(fd, PRF_GETSIZE); }
int prf_max(int fd) { return get_int(fd, PRF_GETMAX); }

int prf_set_state(int fd, unsigned long arg)
{
	return ioctl(fd, PRF_SETSTATE, arg) ? -errno : 0;
}

int prf_on(int fd) { return prf_set_state(fd, 1); }
int prf_off(int fd) { return prf_set_state(fd, 0); }

int prf_get_hz(int fd, __u32 *hz)
{
	return ioctl(fd, PRF_GETHZ, hz) ? -errno : 0;
}

int prf_set_hz(int fd, __u32 hz)
{
	return ioctl(fd, PRF_SETHZ, &hz) ? -errno : 0;
}

int prf_get_flags(int fd, __u32 *flags)
{
	return ioctl(fd, PRF_GETFLAGS, flags) ? -errno : 0;
}

int prf_set_flags(int fd, __u32 flags)
{
	return ioctl(fd, PRF_SETFLAGS, &flags) ? -errno : 0;
}

int prf_clear(int fd)
{
	return ioctl(fd, PRF_CLEAR, 0) ? -errno : 0;
}

int prf_info(int fd, struct prf_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, PRF_GETINFO, info) ? -errno : 0;
}

int prf_set_cpu(int fd, __s32 cpu)
{
	return ioctl(fd, PRF_SETCPU, &cpu) ? -errno : 0;
}

int prf_get_cpu(int fd, __s32 *cpu)
{
	return ioctl(fd, PRF_GETCPU, cpu) ? -errno : 0;
}

int prf_set_filter(int fd, __u32 type, __u64 id)
{
	struct prf_filter f = { .type = type, .id = id };

	return ioctl(fd, PRF_SETFILTER, &f) ? -errno : 0;
}

int prf_get_filter(int fd, struct prf_filter *f)
{
	memset(f, 0xa5, sizeof(*f));
	return ioctl(fd, PRF_GETFILTER, f) ? -errno : 0;
}

int prf_set_tasks(int fd, __u32 capacity)
{
	return ioctl(fd, PRF_SETTASKS, &capacity) ? -errno : 0;
}

int prf_get_tasks(int fd, struct prf_task *tasks, __u32 room,
		  struct prf_tasks *out)
{
	memset(out, 0, sizeof(*out));
	out->nr = room;
	out->tasks = (__u64)(uintptr_t)tasks;
	return ioctl(fd, PRF_GETTASKS, out) ? -errno : 0;
}

int prf_open_clone(void)
{
	int fd = open("/dev/" PRF_CLONE_NAME, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ---- tables -------------------------------------------------------------- */

int prf_load(int fd, const __u64 *addrs, size_t n)
{
	ssize_t r = write(fd, addrs, n * sizeof(*addrs));

	if (r < 0)
		return -errno;
	return (size_t)r == n * sizeof(*addrs) ? 0 : -EIO;
}

__u64 *prf_make_table(size_t n, __u64 base, __u64 step)
{
	__u64 *t = malloc((n ? n : 1) * sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++)
		t[i] = base + i * step;
	return t;
}

int prf_unload(int fd)
{
	static const __u64 descending[PRF_MIN_ADDRS] = {
		0xffffffff81000300ULL, 0xffffffff81000200ULL,
		0xffffffff81000100ULL,
	};
	int r;

	r = prf_off(fd);
	if (r)
		return r;
	r = prf_load(fd, descending, PRF_MIN_ADDRS);
	if (r != -EINVAL)
		return r ? r : -EPROTO;
	r = prf_status(fd);
	if (r < 0)
		return r;
	return r == 0 ? 0 : -EPROTO;
}

int prf_reset(int fd)
{
	int r;

	r = prf_unload(fd);
	if (r)
		return r;
	r = prf_set_hz(fd, PRF_HZ_DEFAULT);
	if (r)
		return r;
	r = prf_set_flags(fd, 0);
	if (r)
		return r;
	r = prf_set_filter(fd, PRF_FILTER_NONE, 0);
	if (r)
		return r;
	if (ioctl(fd, PRF_SETMODE, &(__u32){ PRF_MODE_TIME }))
		return -errno;
	r = prf_set_tasks(fd, 0);
	if (r)
		return r;
	r = prf_set_source(fd, PRF_SOURCE_TIMER, 0, 0);
	if (r)
		return r;
	if (ioctl(fd, PRF_SETSCHEDTEXT, &(struct prf_text_range){ 0 }))
		return -errno;
	if (ioctl(fd, PRF_SETUOBJS, &(struct prf_uobj_conf){ 0 }))
		return -errno;
	return ioctl(fd, PRF_SETSTACKS, &(struct prf_stack_conf){ 0 }) ?
	       -errno : 0;
}

int prf_set_source(int fd, __u32 source, __u32 event, __u64 period)
{
	struct prf_source src = {
		.source = source, .event = event, .period = period,
	};

	return ioctl(fd, PRF_SETSOURCE, &src) ? -errno : 0;
}

int prf_get_source(int fd, struct prf_source *src)
{
	memset(src, 0xa5, sizeof(*src));
	return ioctl(fd, PRF_GETSOURCE, src) ? -errno : 0;
}

int prf_get_events(int fd, __u32 *mask)
{
	return ioctl(fd, PRF_GETEVENTS, mask) ? -errno : 0;
}

int prf_reset_all(void)
{
	int cpu, n = prf_nr_possible(), first = 0;

	for (cpu = PRF_ALL; cpu < n; cpu++) {
		int fd = prf_open(cpu, O_RDWR), r;

		if (fd < 0) {
			if (!first)
				first = fd;
			continue;
		}
		r = prf_reset(fd);
		if (r && !first)
			first = r;
		close(fd);
	}
	return first;
}

int prf_snap(int fd, struct prf_snap *s)
{
	size_t bytes;
	ssize_t r;
	int n;

	memset(s, 0, sizeof(*s));
	n = prf_size(fd);
	if (n < 0)
		return n;
	bytes = (2 * (size_t)n + 2) * sizeof(__u64);
	s->buf = malloc(bytes);
	if (!s->buf)
		return -ENOMEM;
	r = read(fd, s->buf, bytes);
	if (r < 0) {
		int e = -errno;

		prf_snap_free(s);
		return e;
	}
	if ((size_t)r != bytes) {
		prf_snap_free(s);
		return -EIO;
	}
	s->n = n;
	s->addrs = s->buf;
	s->counts = s->buf + n;
	return 0;
}

void prf_snap_free(struct prf_snap *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

__u64 prf_snap_total(const struct prf_snap *s)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < PRF_NR_BUCKETS(s->n); i++)
		sum += s->counts[i];
	return sum;
}

__u64 prf_snap_kernel(const struct prf_snap *s)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		sum += s->counts[i];
	return sum;
}

/* ---- /proc/kallsyms ------------------------------------------------------ */

/* FNV-1a of @n bytes at @p, going on from @h. */
static __u64 hash_bytes(__u64 h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

static __u64 hash_str(__u64 h, const char *s)
{
	return hash_bytes(h, s, strlen(s));
}

/* ... over the contents of @path (nothing when it cannot be read). */
static __u64 hash_file(__u64 h, const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return h;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = hash_bytes(h, buf, (size_t)n);
	close(fd);
	return h;
}

/* Each module's name, size and address: not its users, which come and go. */
static __u64 hash_modules(__u64 h)
{
	char line[1024], name[256], size[32], addr[32];
	FILE *m = fopen("/proc/modules", "re");

	while (m && fgets(line, sizeof(line), m))
		if (sscanf(line, "%255s %31s %*s %*s %*s %31s", name, size,
			   addr) == 3) {
			h = hash_str(h, name);
			h = hash_str(h, size);
			h = hash_str(h, addr);
		}
	if (m)
		fclose(m);
	return h;
}

/*
 * /proc/kallsyms, or a copy of it made earlier in this boot: one read of it
 * takes a TCG guest 0.7 to 1.5 s, and the suite read it some hundred times
 * (the off-CPU fixture alone five times a test).  The copy is named by
 * what decides the file's contents: the boot, the modules loaded, their
 * sizes and where (/proc/modules), and what may see the addresses
 * (kptr_restrict, perf_event_paranoid, lockdown, this process's ids,
 * capabilities and user namespace).  Trampolines and BPF programs come and
 * go without a trace there, so a caller that needs those reads
 * /proc/kallsyms itself.
 */
FILE *prf_kallsyms_open(void)
{
	char path[64], tmp[80], ns[64] = "", line[256];
	__u64 h = 0xcbf29ce484222325ULL;
	FILE *st = fopen("/proc/self/status", "re"), *out, *in;
	ssize_t n;
	size_t len;

	h = hash_file(h, "/proc/sys/kernel/random/boot_id");
	h = hash_modules(h);
	h = hash_file(h, "/proc/sys/kernel/kptr_restrict");
	h = hash_file(h, "/proc/sys/kernel/perf_event_paranoid");
	h = hash_file(h, "/sys/kernel/security/lockdown");
	n = readlink("/proc/self/ns/user", ns, sizeof(ns) - 1);
	if (n > 0)
		ns[n] = '\0';
	h = hash_str(h, ns);
	while (st && fgets(line, sizeof(line), st))
		if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4) ||
		    !strncmp(line, "Cap", 3))
			h = hash_str(h, line);
	if (st)
		fclose(st);
	snprintf(path, sizeof(path), "/tmp/prf-kallsyms-%016llx",
		 (unsigned long long)h);
	out = fopen(path, "re");
	if (out)
		return out;
	in = fopen("/proc/kallsyms", "re");
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	out = in ? fopen(tmp, "we") : NULL;
	if (!out)
		return in;
	while ((len = fread(line, 1, sizeof(line), in)) > 0)
		if (fwrite(line, 1, len, out) != len)
			break;
	if (ferror(in) || fclose(out) || rename(tmp, path)) {
		unlink(tmp);
		rewind(in);
		return in;
	}
	fclose(in);
	out = fopen(path, "re");
	return out ? out : fopen("/proc/kallsyms", "re");
}

/*
 * One line of /proc/kallsyms, "ADDR TYPE NAME[\t[MODULE]]", split in place:
 * 0, or -1 when it is not such a line.  @mod is "" for the kernel's own.
 * (sscanf() took a TCG guest 0.6 s a pass over 7.x's 213,000 lines.)
 */
int prf_ksym_line(char *line, __u64 *addr, char *type, char **name,
		  char **mod)
{
	char *p = line, *e;

	*addr = strtoull(p, &e, 16);
	if (e == p || *e != ' ' || !e[1] || e[2] != ' ')
		return -1;
	*type = e[1];
	*name = p = e + 3;
	p += strcspn(p, " \t\n");
	*mod = "";
	if (*p == '\t' && p[1] == '[') {
		*mod = p + 2;
		e = strchr(*mod, ']');
		if (e)
			*e = '\0';
	}
	if (p == *name)
		return -1;
	*p = '\0';
	return 0;
}

struct ksym {
	__u64 addr;
	char *name;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

long prf_load_first_and_above(int fd, size_t n)
{
	const __u64 above = 0xfffffffff0000000ULL;
	__u64 first = prf_ktext_first(), *tab;
	int max = prf_max(fd), ret;

	if (max < 0)
		return max;
	if (!first || first >= above)
		return -ENODATA;
	if (n > (size_t)max)
		n = max;
	tab = prf_make_table(n, above - 16, 16);
	if (!tab)
		return -ENOMEM;
	tab[0] = first;
	ret = prf_load(fd, tab, n);
	free(tab);
	return ret ? ret : (long)n;
}

__u64 prf_ktext_first(void)
{
	char line[512], type, *name, *mod;
	__u64 addr = 0;
	FILE *f = prf_kallsyms_open();

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (prf_ksym_line(line, &addr, &type, &name, &mod) ||
		    (type != 't' && type != 'T') || !addr || *mod) {
			addr = 0;
			continue;
		}
		break;
	}
	fclose(f);
	return addr;
}

int prf_ksyms_load(struct prf_ksyms *k)
{
	struct ksym *v = NULL;
	size_t n = 0, cap = 0, i, j;
	char line[512];
	FILE *f;

	memset(k, 0, sizeof(*k));
	f = prf_kallsyms_open();
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char type, *name, *mod;
		__u64 addr;

		if (prf_ksym_line(line, &addr, &type, &name, &mod))
			continue;
		if ((type != 't' && type != 'T') || !addr)
			continue;
		if (n == cap) {
			struct ksym *nv;

			cap = cap ? 2 * cap : 65536;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
		}
		v[n].addr = addr;
		v[n].name = strdup(name);
		if (!v[n].name)
			goto nomem;
		n++;
	}
	fclose(f);
	f = NULL;
	if (!n) {
		free(v);
		return -ENODATA;	/* kptr_restrict hides the addresses */
	}
	qsort(v, n, sizeof(*v), ksym_cmp);

	k->addrs = malloc(n * sizeof(*k->addrs));
	k->names = calloc(n, sizeof(*k->names));
	if (!k->addrs || !k->names)
		goto nomem;
	for (i = 0; i < n; i = j) {
		size_t len = 0;
		char *s;

		for (j = i; j < n && v[j].addr == v[i].addr; j++)
			len += strlen(v[j].name) + 1;
		s = calloc(1, len + 1);
		if (!s)
			goto nomem;
		for (j = i; j < n && v[j].addr == v[i].addr; j++) {
			if (j > i)
				strcat(s, " ");
			strcat(s, v[j].name);
		}
		k->addrs[k->n] = v[i].addr;
		k->names[k->n] = s;
		k->n++;
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return 0;
nomem:
	if (f)
		fclose(f);
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	prf_ksyms_free(k);
	return -ENOMEM;
}

void prf_ksyms_free(struct prf_ksyms *k)
{
	size_t i;

	if (k->names)
		for (i = 0; i < k->n; i++)
			free(k->names[i]);
	free(k->names);
	free(k->addrs);
	memset(k, 0, sizeof(*k));
}

static bool name_in(const char *names, const char *name)
{
	size_t len = strlen(name);
	const char *p = names;

	while ((p = strstr(p, name))) {
		if ((p == names || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

bool prf_ksyms_match(const struct prf_ksyms *k, size_t i,
		     const char *const *set)
{
	for (; *set; set++)
		if (name_in(k->names[i], *set))
			return true;
	return false;
}

__u64 prf_ksyms_addr(const struct prf_ksyms *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (name_in(k->names[i], name))
			return k->addrs[i];
	return 0;
}

/* ---- workloads ----------------------------------------------------------- */

static void __attribute__((noreturn)) work_loop(enum prf_work work)
{
	static char buf[65536];
	volatile unsigned long spin = 0;
	int fd;

	switch (work) {
	case PRF_WORK_ZERO:
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0)
			_exit(2);
		for (;;)
			if (read(fd, buf, sizeof(buf)) < 0)
				_exit(3);
	case PRF_WORK_OPEN:
		for (;;)
			close(open("/dev/null", O_RDONLY | O_CLOEXEC));
	case PRF_WORK_SPIN:
	default:
		for (;;)
			spin++;
	}
}

pid_t prf_start(int cpu, enum prf_work work)
{
	int p[2], err = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		err = prf_pin_self(cpu);
		if (!err && sched_getcpu() != cpu)
			sched_yield();
		if (!err && sched_getcpu() != cpu)
			err = -EAGAIN;
		if (write(p[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		close(p[1]);
		if (err)
			_exit(1);
		work_loop(work);
	}
	close(p[1]);
	if (read(p[0], &err, sizeof(err)) != sizeof(err))
		err = -ECHILD;
	close(p[0]);
	if (err) {
		prf_stop(pid);
		return err;
	}
	return pid;
}

void prf_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int prf_clear_amid(int fd, enum prf_work work, int from, double *clear_s)
{
	pid_t kids[PRF_MAX_CPUS] = { 0 };
	int ncpus = prf_nr_online(), cpu, ret, off;
	double t;

	ret = prf_on(fd);
	for (cpu = from; !ret && cpu < ncpus && cpu < PRF_MAX_CPUS; cpu++) {
		kids[cpu] = prf_start(cpu, work);
		if (kids[cpu] < 0)
			ret = kids[cpu];
	}
	if (!ret) {
		prf_sleep(0.05);
		t = prf_now();
		ret = prf_clear(fd);
		if (clear_s)
			*clear_s = prf_now() - t;
		prf_sleep(0.01);
	}
	for (cpu = from; cpu < ncpus && cpu < PRF_MAX_CPUS; cpu++)
		prf_stop(kids[cpu]);
	off = prf_off(fd);
	return ret ? ret : off;
}

/* ---- time ---------------------------------------------------------------- */

double prf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void prf_sleep(double s)
{
	struct timespec ts;
	double end = prf_now() + s;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	/* nanosleep may return early on a misbehaving clock: top it up. */
	while (prf_now() < end) {
		double left = end - prf_now();

		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
}

/* ---- privileges ---------------------------------------------------------- */

static int set_caps(__u64 keep)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (__u32)keep;
	d[1].effective = d[1].permitted = (__u32)(keep >> 32);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static int open_as(const char *path, int flags, int uid, int gid, __u64 keep)
{
	gid_t groups[1] = { gid };
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 255;
	if (pid == 0) {
		if (uid >= 0) {
			if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
			    setgroups(gid >= 0 ? 1 : 0, groups) ||
			    setgid(uid) || setuid(uid))
				_exit(255);
		}
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		if (set_caps(keep))
			_exit(255);
		fd = open(path, flags);
		if (fd >= 0) {
			close(fd);
			_exit(0);
		}
		_exit(errno > 0 && errno < 255 ? errno : 254);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

int prf_open_as_member(const char *path, int uid, int gid, __u64 keep)
{
	return open_as(path, O_RDWR, uid, gid, keep);
}

int prf_open_as(const char *path, int uid, __u64 keep)
{
	return open_as(path, O_RDWR, uid, -1, keep);
}

int prf_open_flags_as(const char *path, int flags, int uid, __u64 keep)
{
	return open_as(path, flags, uid, -1, keep);
}

/* ---- nodes --------------------------------------------------------------- */

dev_t prf_rdev(int cpu)
{
	char path[32];
	struct stat st;

	if (stat(prf_dev_path(cpu, path, sizeof(path)), &st) ||
	    !S_ISCHR(st.st_mode))
		return 0;
	return st.st_rdev;
}

int prf_mknod(dev_t rdev, mode_t mode, char *path, size_t len)
{
	static const char *const dirs[] = { "/tmp", "/dev", NULL };
	const char *const *d;
	int err = -ENOENT;

	for (d = dirs; *d; d++) {
		int fd;

		snprintf(path, len, "%s/prf-test-%u-%u.%d", *d, major(rdev),
			 minor(rdev), (int)getpid());
		unlink(path);
		if (mknod(path, S_IFCHR | mode, rdev)) {
			err = -errno;
			continue;
		}
		chmod(path, mode);
		/* A nodev mount refuses every open with EACCES: try another. */
		fd = open(path, O_RDWR);
		if (fd < 0 && errno == EACCES) {
			err = -EACCES;
			unlink(path);
			continue;
		}
		if (fd >= 0)
			close(fd);
		return 0;
	}
	return err;
}

/* ---- sysfs --------------------------------------------------------------- */

const char *prf_sysfs_path(int cpu, const char *attr, char *buf, size_t len)
{
	if (cpu == PRF_ALL)
		snprintf(buf, len, "/sys/class/%s/prf/%s", PRF_CLASS, attr);
	else
		snprintf(buf, len, "/sys/class/%s/prf%d/%s", PRF_CLASS, cpu, attr);
	return buf;
}

int prf_sysfs_read(int cpu, const char *attr, char *buf, size_t len)
{
	char path[128];

	return prf_read_file(prf_sysfs_path(cpu, attr, path, sizeof(path)),
			     buf, len);
}

int prf_sysfs_write(int cpu, const char *attr, const char *s)
{
	char path[128];

	return prf_write_file(prf_sysfs_path(cpu, attr, path, sizeof(path)), s);
}

/* ---- files --------------------------------------------------------------- */

int prf_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s));
	if (r < 0)
		err = -errno;
	else if ((size_t)r != strlen(s))
		err = -EIO;
	close(fd);
	return err;
}

int prf_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (r == 0)
			break;
		got += r;
	}
	buf[got] = 0;
	close(fd);
	return (int)got;
}

/* ---- The test module ---------------------------------------------------- */

const char *prf_kmod_load(const char *needs)
{
	const char *ko = getenv("PRF_TEST_KMOD");
	int fd, r;

	if (!access(needs, F_OK))
		return NULL;
	if (!ko || !*ko)
		return "PRF_TEST_KMOD not set (selftests/kmod/Makefile builds it)";
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "PRF_TEST_KMOD cannot be opened";
	r = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	if (r && errno != EEXIST)
		return "finit_module(PRF_TEST_KMOD) failed";
	if (access(needs, F_OK))
		return "the test module loaded lacks what the test needs (an old build?)";
	return NULL;
}

bool prf_debug_kernel(void)
{
	const char *k = getenv("PRF_KERNEL");

	return k && !strncmp(k, "debug-", 6);
}

int prf_kmod_fn_extent(const char *fn, bool skip_pfx, __u64 *start, __u64 *end)
{
	char line[512], type, *name, *mod;
	__u64 a;
	FILE *f = prf_kallsyms_open();

	if (!f)
		return -errno;
	*start = 0;
	while (fgets(line, sizeof(line), f))
		if (!prf_ksym_line(line, &a, &type, &name, &mod) &&
		    !strcmp(name, fn) && !strcmp(mod, PRF_TEST_KMOD_NAME))
			*start = a;
	if (!*start) {
		fclose(f);
		return -ENOENT;
	}
	*end = ~0ULL;
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (!prf_ksym_line(line, &a, &type, &name, &mod) &&
		    a > *start && a < *end &&
		    !(skip_pfx && !strncmp(name, "__pfx_", 6)))
			*end = a;
	fclose(f);
	return *end == ~0ULL ? -ENOENT : 0;
}

/* The cgroup v2 mount point: found in /proc/self/mounts, else mounted. */
int prf_cgroup2_root(char *root, size_t len)
{
	char line[512], dev[128], dir[256], type[64];
	FILE *m = fopen("/proc/self/mounts", "r");

	while (m && fgets(line, sizeof(line), m)) {
		if (sscanf(line, "%127s %255s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", dir);
			fclose(m);
			return 0;
		}
	}
	if (m)
		fclose(m);
	snprintf(root, len, "/tmp/prf-cgroup2");
	mkdir(root, 0755);
	if (mount("none", root, "cgroup2", 0, NULL))
		return -errno;
	return 0;
}

int prf_wait_user(int fd, __u64 n, double limit)
{
	double end = prf_now() + limit;
	struct prf_info info;
	__u64 from;
	int ret = prf_info(fd, &info);

	if (ret)
		return ret;
	from = info.ticks_user;
	for (;;) {
		if (info.ticks_user - from >= n)
			return 0;
		if (prf_now() >= end)
			return -ETIMEDOUT;
		prf_sleep(0.05);
		ret = prf_info(fd, &info);
		if (ret)
			return ret;
	}
}

int prf_load_kernel_text(int fd)
{
	struct prf_ksyms ks;
	__u64 *t, base;
	int ret = prf_ksyms_load(&ks);

	if (ret)
		return ret;
	base = prf_ksyms_addr(&ks, "_stext");
	if (!base)
		base = prf_ksyms_addr(&ks, "_text");
	prf_ksyms_free(&ks);
	if (!base)
		return -ENOENT;
	t = prf_make_table(5, base, 0x40);
	if (!t)
		return -ENOMEM;
	ret = prf_load(fd, t, 5);
	free(t);
	return ret;
}

__u64 prf_code_offset(unsigned long pc)
{
	unsigned long lo, hi, foff;
	char line[512], path[256];
	FILE *m = fopen("/proc/self/maps", "r");
	__u64 off = ~0ULL;

	if (!m)
		return off;
	while (fgets(line, sizeof(line), m))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &lo, &hi,
			   &foff, path) == 4 && pc >= lo && pc < hi)
			off = pc - lo + foff;
	fclose(m);
	return off;
}

double prf_share_tol(double p, double n1, double n2)
{
	double v = p * (1 - p) > 0.05 ? p * (1 - p) : 0.05;

	return 5 * sqrt(v / n1 + v / n2);
}

int prf_cpu_times(int cpu, struct prf_cpu_times *t)
{
	char line[512], want[32];
	FILE *f = fopen("/proc/stat", "r");
	int ret = -ENOENT;
	size_t len;

	if (!f)
		return -errno;
	if (cpu == PRF_ALL)
		snprintf(want, sizeof(want), "cpu ");
	else
		snprintf(want, sizeof(want), "cpu%d ", cpu);
	len = strlen(want);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[7];

		if (strncmp(line, want, len))
			continue;
		if (sscanf(line + len, "%llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6]) != 7) {
			ret = -EINVAL;
			break;
		}
		t->user = v[0];
		t->nice = v[1];
		t->system = v[2];
		t->idle = v[3];
		t->iowait = v[4];
		t->irq = v[5];
		t->softirq = v[6];
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}
