// SPDX-License-Identifier: GPL-2.0
/*
 * prfctl - the bench's own small prf loader and reader.
 *
 *	prfctl load3 DEV	a 3-address table: _stext, the middle, _etext
 *	prfctl loadall DEV	every kernel and module text symbol of
 *				/proc/kallsyms (unique, ascending)
 *	prfctl hz DEV R		PRF_SETHZ
 *	prfctl on|off DEV	PRF_SETSTATE
 *	prfctl filter DEV none|tgid PID|cgroup DIR
 *				PRF_SETFILTER (DIR: a cgroup v2 directory)
 *	prfctl loadnames DEV NAME...
 *				the named kernel functions, each followed by
 *				the next text symbol (its end), ascending
 *	prfctl stacks DEV D S	PRF_SETSTACKS (depth D, S stacks; 0 0: off)
 *	prfctl mode DEV M	PRF_SETMODE (time|alloc-calls|alloc-bytes|calls|
 *				offcpu)
 *	prfctl schedtext DEV	PRF_SETSCHEDTEXT from /proc/kallsyms'
 *				__sched_text_start and __sched_text_end (fails
 *				if either is missing or 0); prints them
 *	prfctl uobjs DEV C F [D]
 *				PRF_SETUOBJS (C entries, F files; 0 0: off);
 *				D > 0: PRF_UOBJ_CHAINS, user call chains of
 *				at most D frames
 *	prfctl uobjget DEV [BIN]
 *				PRF_GETUOBJS and PRF_GETINFO's ticks_user as
 *				key=value: entries and files used, named= (the
 *				entries' counts summed), lost=, dropped=,
 *				unmapped=, ticks_user= (counter N), and top=
 *				the three files named most (path:count); then
 *				PRF_GETUCHAINS: depth= (0: no chains), chains=
 *				(records), chained= (their counts summed),
 *				chain_dropped=, chained2= (samples whose chain
 *				has 2 frames or more), truncated= (samples
 *				whose walk went past the depth), maxframes=,
 *				and with BIN bin2= (samples whose chain has 2
 *				frames or more in BIN, by device and inode)
 *	prfctl run OUT CMD...	runs CMD, its stdout to OUT, and prints its
 *				CPU time (wait4's rusage: cpu_ns= user + system,
 *				user_ns=, sys_ns=) and wall_ns=: what a command
 *				costs, without the guest time that idle waits
 *				(-icount sleep=off) skip to the next timer
 *	prfctl info DEV		PRF_GETINFO as key=value
 *	prfctl dump DEV		"count name" for every kernel address with a
 *				non-zero counter (names from /proc/kallsyms)
 *	prfctl profile		the sum of /proc/profile's counters
 *	prfctl profdump		"count name" from /proc/profile
 *
 * Loading prints naddrs= and load_ns= (reading kallsyms, sorting and
 * writing the table).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/prf.h>

struct sym {
	uint64_t addr;
	char *name;
};

static uint64_t stext, etext;	/* _stext and _etext, whatever their type */

static void die(const char *what)
{
	fprintf(stderr, "prfctl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int sym_cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols of /proc/kallsyms, sorted by address, duplicates removed. */
static struct sym *read_kallsyms(size_t *np)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct sym *s = NULL;
	size_t n = 0, cap = 0, i, j;
	char line[512], name[256], type;
	unsigned long long a;

	if (!f)
		die("/proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			stext = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
		if ((type != 't' && type != 'T') || !a)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			s = realloc(s, cap * sizeof(*s));
			if (!s)
				die("realloc");
		}
		s[n].addr = a;
		s[n].name = strdup(name);
		n++;
	}
	fclose(f);
	if (!n) {
		errno = ENOENT;
		die("/proc/kallsyms: no text symbols (kptr_restrict?)");
	}
	qsort(s, n, sizeof(*s), sym_cmp);
	for (i = 1, j = 1; i < n; i++)
		if (s[i].addr != s[j - 1].addr)
			s[j++] = s[i];
	*np = j;
	return s;
}

static void need_text_bounds(void)
{
	if (!stext || !etext || etext <= stext) {
		errno = ENOENT;
		die("/proc/kallsyms: _stext/_etext");
	}
}

/* The symbol at or below addr. */
static const char *name_of(const struct sym *s, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	if (!n || addr < s[0].addr)
		return "?";
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return s[lo].name;
}

static int open_dev(const char *dev, int flags)
{
	int fd = open(dev, flags);

	if (fd < 0)
		die(dev);
	return fd;
}

static void load(const char *dev, int all)
{
	uint64_t t0 = now_ns(), *a;
	struct sym *s;
	size_t n, i, na;
	int fd;

	s = read_kallsyms(&n);
	if (all) {
		na = n;
		a = malloc(na * sizeof(*a));
		if (!a)
			die("malloc");
		for (i = 0; i < n; i++)
			a[i] = s[i].addr;
	} else {
		uint64_t lo = stext, hi = etext;

		need_text_bounds();

		na = 3;
		a = malloc(na * sizeof(*a));
		if (!a)
			die("malloc");
		a[0] = lo;
		a[1] = lo + (hi - lo) / 2;
		a[2] = hi;
	}
	fd = open_dev(dev, O_RDWR);
	if (write(fd, a, na * sizeof(*a)) != (ssize_t)(na * sizeof(*a)))
		die("write table");
	printf("naddrs=%zu load_ns=%llu\n", na,
	       (unsigned long long)(now_ns() - t0));
	close(fd);
}

/* Each named function and the symbol after it (its end), ascending. */
static void load_names(const char *dev, char **names, int nn)
{
	uint64_t *a = calloc(2 * nn + 1, sizeof(*a));
	size_t n, i, na = 0;
	struct sym *s;
	int k, fd;

	if (!a)
		die("calloc");
	s = read_kallsyms(&n);
	for (i = 0; i + 1 < n; i++)
		for (k = 0; k < nn; k++)
			if (!strcmp(s[i].name, names[k])) {
				a[na++] = s[i].addr;
				a[na++] = s[i + 1].addr;
			}
	if (na < 2 * (size_t)nn) {
		errno = ENOENT;
		die("loadnames: a name is not a kernel text symbol");
	}
	qsort(a, na, sizeof(*a), sym_cmp_u64);
	for (i = 1, k = 1; i < na; i++)	/* an end may be the next start */
		if (a[i] != a[k - 1])
			a[k++] = a[i];
	na = k;
	while (na < PRF_MIN_ADDRS) {	/* pad with addresses past the last */
		a[na] = a[na - 1] + 1;
		na++;
	}
	fd = open_dev(dev, O_RDWR);
	if (write(fd, a, na * sizeof(*a)) != (ssize_t)(na * sizeof(*a)))
		die("write table");
	printf("naddrs=%zu\n", na);
	close(fd);
	free(a);
}

static void stacks(const char *dev, const char *d, const char *cap)
{
	struct prf_stack_conf c = {
		.depth = strtoul(d, NULL, 0), .capacity = strtoul(cap, NULL, 0),
	};
	int fd = open_dev(dev, O_RDWR);

	if (ioctl(fd, PRF_SETSTACKS, &c))
		die("PRF_SETSTACKS");
	close(fd);
}

static void mode(const char *dev, const char *m)
{
	static const char *const names[] = {
		[PRF_MODE_TIME] = "time",
		[PRF_MODE_ALLOC_CALLS] = "alloc-calls",
		[PRF_MODE_ALLOC_BYTES] = "alloc-bytes",
		[PRF_MODE_CALLS] = "calls",
		[PRF_MODE_OFFCPU] = "offcpu",
	};
	uint32_t v;
	int fd;

	for (v = 0; v < sizeof(names) / sizeof(names[0]); v++)
		if (!strcmp(names[v], m))
			break;
	if (v == sizeof(names) / sizeof(names[0])) {
		errno = EINVAL;
		die(m);
	}
	fd = open_dev(dev, O_RDWR);
	if (ioctl(fd, PRF_SETMODE, &v))
		die("PRF_SETMODE");
	close(fd);
}

/* The scheduler's text, as the offcpu mode needs it to find a wait's site. */
static void schedtext(const char *dev)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct prf_text_range r = { 0, 0 };
	char line[512], name[256], type;
	unsigned long long a;
	int fd;

	if (!f)
		die("/proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "__sched_text_start"))
			r.start = a;
		else if (!strcmp(name, "__sched_text_end"))
			r.end = a;
	}
	fclose(f);
	if (!r.start || !r.end || r.end <= r.start) {
		errno = ENOENT;
		die("/proc/kallsyms: __sched_text_start/__sched_text_end missing, 0 or out of order");
	}
	fd = open_dev(dev, O_RDWR);
	if (ioctl(fd, PRF_SETSCHEDTEXT, &r))
		die("PRF_SETSCHEDTEXT");
	printf("sched_text_start=%#llx sched_text_end=%#llx\n",
	       (unsigned long long)r.start, (unsigned long long)r.end);
	close(fd);
}

static void uobjs(const char *dev, const char *cap, const char *files,
		  const char *depth)
{
	struct prf_uobj_conf c = {
		.capacity = strtoul(cap, NULL, 0),
		.files = strtoul(files, NULL, 0),
		.depth = depth ? strtoul(depth, NULL, 0) : 0,
	};
	int fd = open_dev(dev, O_RDWR);

	if (c.depth)
		c.flags = PRF_UOBJ_CHAINS;
	if (ioctl(fd, PRF_SETUOBJS, &c))
		die("PRF_SETUOBJS");
	close(fd);
}

/*
 * The user call chains (PRF_GETUCHAINS), summed, after what uobjget
 * printed: asks for the sizes first (.nr = 0), then reads everything with
 * room (again if the table grew meanwhile).  The uapi's invariant: chained
 * + chain_dropped = the entries' counts summed (named).  With @bin,
 * bin2= the samples whose chain has 2 frames or more in that file.
 */
static void uchainget(int fd, const char *bin)
{
	struct prf_uchains c;
	struct prf_uobj_file *f = NULL;
	unsigned long long chained = 0, chained2 = 0, trunc = 0, inbin = 0;
	unsigned char *rec = NULL;
	uint32_t k, j, maxframes = 0, depth = 0, nbin;
	size_t rsize;
	struct stat st;
	int tries;

	if (bin && stat(bin, &st))
		die(bin);
	memset(&c, 0, sizeof(c));
	if (ioctl(fd, PRF_GETUCHAINS, &c)) {
		if (errno == ENOTTY)	/* a module without chains */
			return;
		die("PRF_GETUCHAINS");
	}
	for (tries = 0; c.depth && tries < 5; tries++) {
		uint32_t nr = c.used + 16, nf = c.files_used + 16;

		depth = c.depth;
		free(rec);
		free(f);
		rec = calloc(nr, PRF_UCHAIN_RECORD_SIZE(depth));
		f = calloc(nf, sizeof(*f));
		if (!rec || !f)
			die("calloc");
		memset(&c, 0, sizeof(c));
		c.nr = nr;
		c.nfiles = nf;
		c.chains = (uintptr_t)rec;
		c.files = (uintptr_t)f;
		if (ioctl(fd, PRF_GETUCHAINS, &c))
			die("PRF_GETUCHAINS");
		/* chains whose count is 0 are left out: room is what says */
		if (c.depth == depth && nr >= c.used && nf >= c.files_used)
			break;
	}
	if (c.depth != depth) {	/* set up anew five times over */
		errno = EAGAIN;
		die("PRF_GETUCHAINS");
	}
	rsize = PRF_UCHAIN_RECORD_SIZE(depth);
	for (k = 0; depth && k < c.nr; k++) {
		const struct prf_uchain *h = (const void *)(rec + k * rsize);
		const struct prf_uframe *fr = (const void *)(h + 1);

		chained += h->count;
		if (h->nr_frames >= 2)
			chained2 += h->count;
		if (h->flags & PRF_UCHAIN_TRUNCATED)
			trunc += h->count;
		if (h->nr_frames > maxframes)
			maxframes = h->nr_frames;
		if (!bin)
			continue;
		for (j = 0, nbin = 0; j < h->nr_frames && j < depth; j++)
			if (fr[j].file < c.nfiles &&
			    f[fr[j].file].major == major(st.st_dev) &&
			    f[fr[j].file].minor == minor(st.st_dev) &&
			    f[fr[j].file].ino == st.st_ino)
				nbin++;
		if (nbin >= 2)
			inbin += h->count;
	}
	printf(" depth=%u chains=%u chained=%llu chain_dropped=%llu "
	       "chained2=%llu truncated=%llu maxframes=%u", depth, c.nr,
	       chained, (unsigned long long)c.dropped, chained2, trunc,
	       maxframes);
	if (bin)
		printf(" bin2=%llu", inbin);
	free(rec);
	free(f);
}

/*
 * The user objects table, summed: what the bench checks (uapi: once OFF,
 * named + lost + dropped + unmapped = counter N).  Asks for the sizes
 * first, then reads everything (again if the table grew meanwhile).
 */
static void uobjget(const char *dev, const char *bin)
{
	struct prf_info i = { .size = sizeof(i) };
	struct prf_uobjs u;
	struct prf_uobj *e = NULL;
	struct prf_uobj_file *f = NULL;
	unsigned long long named = 0, *perfile = NULL;
	uint32_t k, top[3] = { 0, 0, 0 }, ntop = 0, j;
	int fd = open_dev(dev, O_RDONLY), tries;

	memset(&u, 0, sizeof(u));
	if (ioctl(fd, PRF_GETUOBJS, &u))
		die("PRF_GETUOBJS");
	for (tries = 0; tries < 5; tries++) {
		uint32_t ne = u.used + 16, nf = u.files_used + 16;

		free(e);
		free(f);
		e = calloc(ne, sizeof(*e));
		f = calloc(nf, sizeof(*f));
		if (!e || !f)
			die("calloc");
		memset(&u, 0, sizeof(u));
		u.nr = ne;
		u.nfiles = nf;
		u.entries = (uintptr_t)e;
		u.files = (uintptr_t)f;
		if (ioctl(fd, PRF_GETUOBJS, &u))
			die("PRF_GETUOBJS");
		/* entries whose count is 0 are left out: room is what says */
		if (ne >= u.used && nf >= u.files_used)
			break;
	}
	if (ioctl(fd, PRF_GETINFO, &i))
		die("PRF_GETINFO");
	perfile = calloc(u.nfiles + 1, sizeof(*perfile));
	if (!perfile)
		die("calloc");
	for (k = 0; k < u.nr; k++) {
		named += e[k].count;
		if (e[k].file == PRF_UOBJ_ANON)
			perfile[u.nfiles] += e[k].count;
		else if (e[k].file < u.nfiles)
			perfile[e[k].file] += e[k].count;
	}
	/* the three files (or anon, index nfiles) named most */
	for (k = 0; k <= u.nfiles; k++) {
		if (!perfile[k])
			continue;
		for (j = ntop; j > 0 && perfile[top[j - 1]] < perfile[k]; j--)
			if (j < 3)
				top[j] = top[j - 1];
		if (j < 3) {
			top[j] = k;
			if (ntop < 3)
				ntop++;
		}
	}
	printf("used=%u files_used=%u capacity=%u files_max=%u named=%llu "
	       "lost=%llu dropped=%llu unmapped=%llu ticks_user=%llu top=",
	       u.used, u.files_used, u.capacity, u.files_max, named,
	       (unsigned long long)u.lost, (unsigned long long)u.dropped,
	       (unsigned long long)u.unmapped,
	       (unsigned long long)i.ticks_user);
	for (j = 0; j < ntop; j++)
		printf("%s%s:%llu", j ? "," : "",
		       top[j] == u.nfiles ? "[anon]" : f[top[j]].path,
		       perfile[top[j]]);
	uchainget(fd, bin);
	printf("\n");
	free(perfile);
	free(e);
	free(f);
	close(fd);
}

static int run(const char *out, char **argv)
{
	uint64_t t0 = now_ns(), t1, u, k;
	struct rusage ru;
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			die(out);
		execvp(argv[0], argv);
		die(argv[0]);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		die("wait4");
	t1 = now_ns();
	u = ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull;
	k = ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
	printf("cpu_ns=%llu user_ns=%llu sys_ns=%llu wall_ns=%llu\n",
	       (unsigned long long)(u + k), (unsigned long long)u,
	       (unsigned long long)k, (unsigned long long)(t1 - t0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void info(const char *dev)
{
	struct prf_info i = { .size = sizeof(i) };
	int fd = open_dev(dev, O_RDONLY);

	if (ioctl(fd, PRF_GETINFO, &i))
		die("PRF_GETINFO");
	printf("naddrs=%llu hz=%u ticks_total=%llu ticks_outside=%llu "
	       "ticks_user=%llu ticks_idle=%llu ticks_lost=%llu on_ns=%llu "
	       "mem_bytes=%llu stacks_dropped=%llu stack_depth=%u "
	       "stack_capacity=%u mode=%u mode_dropped=%llu\n",
	       (unsigned long long)i.naddrs, i.hz,
	       (unsigned long long)i.ticks_total,
	       (unsigned long long)i.ticks_outside,
	       (unsigned long long)i.ticks_user,
	       (unsigned long long)i.ticks_idle,
	       (unsigned long long)i.ticks_lost,
	       (unsigned long long)i.on_ns, (unsigned long long)i.mem_bytes,
	       (unsigned long long)i.stacks_dropped, i.stack_depth,
	       i.stack_capacity, i.mode, (unsigned long long)i.mode_dropped);
	close(fd);
}

static void dump(const char *dev)
{
	int fd = open_dev(dev, O_RDONLY), size;
	struct sym *s;
	uint64_t *buf;
	size_t n, i, len;

	if (ioctl(fd, PRF_GETSIZE, &size) || size <= 0)
		die("PRF_GETSIZE");
	len = (2 * (size_t)size + 2) * sizeof(*buf);
	buf = malloc(len);
	if (!buf)
		die("malloc");
	if (read(fd, buf, len) != (ssize_t)len)
		die("read");
	s = read_kallsyms(&n);
	for (i = 0; i < (size_t)size; i++)
		if (buf[size + i])
			printf("%llu %s\n", (unsigned long long)buf[size + i],
			       name_of(s, n, buf[i]));
	printf("%llu [user]\n%llu [idle]\n",
	       (unsigned long long)buf[2 * size],
	       (unsigned long long)buf[2 * size + 1]);
	close(fd);
}

/* /proc/profile: a u32 step (bytes per counter, as a shift of 1 <<), then counters. */
static void profile(int names)
{
	int fd = open("/proc/profile", O_RDONLY);
	static uint32_t buf[1 << 16];
	unsigned long long sum = 0;
	uint64_t idx = 0;
	struct sym *s = NULL;
	uint32_t step = 0;
	size_t n = 0, i;
	ssize_t r;
	int first = 1;

	if (fd < 0)
		die("/proc/profile");
	if (names) {
		s = read_kallsyms(&n);
		need_text_bounds();
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		if (first)
			step = buf[0];
		for (i = first; i < (size_t)r / 4; i++, idx++) {
			sum += buf[i];
			if (names && buf[i])
				printf("%u %s\n", buf[i],
				       name_of(s, n, stext + idx * step));
		}
		first = 0;
	}
	if (r < 0)
		die("read /proc/profile");
	if (!names)
		printf("%llu\n", sum);
	close(fd);
}

static void filter(const char *dev, const char *type, const char *arg)
{
	struct prf_filter f = { .type = PRF_FILTER_NONE };
	int fd = open_dev(dev, O_RDWR), dir = -1;

	if (!strcmp(type, "tgid") && arg) {
		f.type = PRF_FILTER_TGID;
		f.id = strtoull(arg, NULL, 0);
	} else if (!strcmp(type, "cgroup") && arg) {
		dir = open(arg, O_RDONLY | O_DIRECTORY);
		if (dir < 0)
			die(arg);
		f.type = PRF_FILTER_CGROUP;
		f.id = dir;
	} else if (strcmp(type, "none")) {
		errno = EINVAL;
		die("filter");
	}
	if (ioctl(fd, PRF_SETFILTER, &f))
		die("PRF_SETFILTER");
	if (dir >= 0)
		close(dir);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	const char *dev = argc > 2 ? argv[2] : PRF_DEVICE;
	int fd;

	if (!strcmp(cmd, "load3") || !strcmp(cmd, "loadall")) {
		load(dev, cmd[4] == 'a');
	} else if (!strcmp(cmd, "hz") && argc == 4) {
		uint32_t hz = strtoul(argv[3], NULL, 0);

		fd = open_dev(dev, O_RDWR);
		if (ioctl(fd, PRF_SETHZ, &hz))
			die("PRF_SETHZ");
		close(fd);
	} else if (!strcmp(cmd, "on") || !strcmp(cmd, "off")) {
		fd = open_dev(dev, O_RDWR);
		if (ioctl(fd, PRF_SETSTATE, cmd[1] == 'n'))
			die("PRF_SETSTATE");
		close(fd);
	} else if (!strcmp(cmd, "filter") && argc >= 4) {
		filter(dev, argv[3], argc > 4 ? argv[4] : NULL);
	} else if (!strcmp(cmd, "loadnames") && argc >= 4) {
		load_names(dev, argv + 3, argc - 3);
	} else if (!strcmp(cmd, "stacks") && argc == 5) {
		stacks(dev, argv[3], argv[4]);
	} else if (!strcmp(cmd, "mode") && argc == 4) {
		mode(dev, argv[3]);
	} else if (!strcmp(cmd, "schedtext")) {
		schedtext(dev);
	} else if (!strcmp(cmd, "uobjs") && (argc == 5 || argc == 6)) {
		uobjs(dev, argv[3], argv[4], argc == 6 ? argv[5] : NULL);
	} else if (!strcmp(cmd, "uobjget") && argc <= 4) {
		uobjget(dev, argc == 4 ? argv[3] : NULL);
	} else if (!strcmp(cmd, "run") && argc >= 4) {
		return run(argv[2], argv + 3);
	} else if (!strcmp(cmd, "info")) {
		info(dev);
	} else if (!strcmp(cmd, "dump")) {
		dump(dev);
	} else if (!strcmp(cmd, "profile")) {
		profile(0);
	} else if (!strcmp(cmd, "profdump")) {
		profile(1);
	} else {
		fprintf(stderr, "usage: prfctl load3|loadall|loadnames|hz|on|off|filter|stacks|mode|schedtext|uobjs|uobjget|info|dump [DEV [ARGS]] | run OUT CMD... | profile | profdump\n");
		return 2;
	}
	return 0;
}
