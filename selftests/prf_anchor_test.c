// SPDX-License-Identifier: GPL-2.0
/*
 * prf_anchor_test - the modes against the kernel's own accounting, on
 * kernels that have it (the debug kernel of the test bed has both; the
 * others skip what they lack):
 *
 *   /proc/allocinfo (CONFIG_MEM_ALLOC_PROFILING) counts, per allocation
 *   call site, the calls and bytes still allocated.  Its change over an
 *   interval is what the alloc modes call allocations minus frees of the
 *   same interval, per function.
 *
 *   ftrace's function profiler (CONFIG_FUNCTION_PROFILER) counts the hits
 *   of the functions in set_ftrace_filter.  Over the same interval the
 *   calls mode must count exactly as many.
 *
 * Each anchor is checked twice: on the test module (selftests/kmod), whose
 * numbers are known in advance, and on a real workload (files in a tmpfs of
 * the test's own), whose numbers only the kernel's accounting knows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "prf_fixture.h"

#define MODES		"/proc/prf_test_kmod_modes"
#define ALLOCINFO	"/proc/allocinfo"
#define MEM_PROFILING	"/proc/sys/vm/mem_profiling"
#define TRACING		"/sys/kernel/tracing"
#define ANCHOR_SIZE	1024	/* PRF_TEST_KMOD_ANCHOR */
/* The profiler's trace_stat shows the first 30 characters of a name. */
#define PROFILER_NAME_MAX	30
/* Seconds for pending RCU callbacks to run (a grace period or more). */
#define SETTLE_S	2.0

PRF_FIXTURE(anchor);

/* ---- per-function tallies ------------------------------------------------ */

struct tally {
	char *name;
	long long calls;
	long long bytes;
};

struct tallies {
	size_t n, cap;
	struct tally *v;
};

static int tally_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tally *)a)->name,
		      ((const struct tally *)b)->name);
}

static int tally_add(struct tallies *t, const char *name, long long calls,
		     long long bytes)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct tally *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].name = strdup(name);
	if (!t->v[t->n].name)
		return -ENOMEM;
	t->v[t->n].calls = calls;
	t->v[t->n].bytes = bytes;
	t->n++;
	return 0;
}

/* Sort by name and sum the rows of one name (allocinfo has one per line). */
static void tally_merge(struct tallies *t)
{
	size_t i, o = 0;

	qsort(t->v, t->n, sizeof(*t->v), tally_cmp);
	for (i = 0; i < t->n; i++) {
		if (o && !strcmp(t->v[o - 1].name, t->v[i].name)) {
			t->v[o - 1].calls += t->v[i].calls;
			t->v[o - 1].bytes += t->v[i].bytes;
			free(t->v[i].name);
			continue;
		}
		t->v[o++] = t->v[i];
	}
	t->n = o;
}

static const struct tally *tally_find(const struct tallies *t,
				      const char *name)
{
	struct tally key = { .name = (char *)name };

	return t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), tally_cmp) :
		      NULL;
}

static void tally_free(struct tallies *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ---- /proc/allocinfo ------------------------------------------------------ */

/*
 * Allocation profiling is there and counting: NULL, else why not.  A kernel
 * built with it but booted with it off is switched on (sysctl); the deltas
 * the tests take start after that.
 */
/*
 * KFENCE (the debug kernel has it) serves one allocation now and then from
 * its own pool, and on 7.3 allocinfo does not count those: 2 of the 1000
 * kmalloc()s below, 18 of 3000 d_alloc()s, where prf counts them all (the
 * truth by construction).  The tests that hold prf to allocinfo turn KFENCE
 * off while they run (a sample interval of 0 stops it; the old interval
 * starts it again) and back on at their end.
 */
#define KFENCE_INTERVAL	"/sys/module/kfence/parameters/sample_interval"
static char kfence_was[32];

static void kfence_pause(void)
{
	if (prf_read_file(KFENCE_INTERVAL, kfence_was, sizeof(kfence_was)) <= 0 ||
	    !strcmp(kfence_was, "0\n") || prf_write_file(KFENCE_INTERVAL, "0"))
		kfence_was[0] = 0;
}

static void kfence_resume(void)
{
	if (kfence_was[0])
		prf_write_file(KFENCE_INTERVAL, kfence_was);
}

static const char *allocinfo_ready(void)
{
	char buf[8];

	if (access(ALLOCINFO, R_OK))
		return "no " ALLOCINFO " (CONFIG_MEM_ALLOC_PROFILING)";
	kfence_pause();
	if (prf_read_file(MEM_PROFILING, buf, sizeof(buf)) > 0 && buf[0] == '1')
		return NULL;
	if (prf_write_file(MEM_PROFILING, "1"))
		return "memory allocation profiling is off and cannot be "
		       "switched on (vm.mem_profiling)";
	return NULL;
}

/* Every line "BYTES CALLS FILE:LINE [MODULE] func:NAME ...", summed per NAME. */
static int allocinfo_read(struct tallies *t)
{
	char line[1024];
	FILE *f = fopen(ALLOCINFO, "re");
	int r = 0;

	memset(t, 0, sizeof(*t));
	if (!f)
		return -errno;
	while (!r && fgets(line, sizeof(line), f)) {
		long long bytes, calls;
		char *fn = strstr(line, " func:");

		if (!fn || sscanf(line, "%lld %lld", &bytes, &calls) != 2)
			continue;
		fn += strlen(" func:");
		fn[strcspn(fn, " \t\n")] = '\0';
		r = tally_add(t, fn, calls, bytes);
	}
	fclose(f);
	if (!r)
		tally_merge(t);
	return r;
}

/* after - before, per name (a name only in after counts from zero). */
static int tally_delta(const struct tallies *before,
		       const struct tallies *after, struct tallies *d)
{
	size_t i;
	int r = 0;

	memset(d, 0, sizeof(*d));
	for (i = 0; !r && i < after->n; i++) {
		const struct tally *a = &after->v[i];
		const struct tally *b = tally_find(before, a->name);

		r = tally_add(d, a->name, a->calls - (b ? b->calls : 0),
			      a->bytes - (b ? b->bytes : 0));
	}
	return r;
}

/* ---- ftrace's function profiler ----------------------------------------- */

/* The profiler is there (tracefs mounted if need be): NULL, else why not. */
static const char *profiler_ready(void)
{
	if (access(TRACING "/function_profile_enabled", W_OK))
		mount("nodev", TRACING, "tracefs", 0, NULL);
	if (access(TRACING "/function_profile_enabled", W_OK))
		return "no function profiler (CONFIG_FUNCTION_PROFILER)";
	return NULL;
}

/* Replace set_ftrace_filter with @names (blank-separated; "" clears it). */
static int profiler_filter(const char *names)
{
	int fd = open(TRACING "/set_ftrace_filter", O_WRONLY | O_TRUNC);
	size_t len = strlen(names), done = 0;

	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t w = write(fd, names + done, len - done);

		if (w <= 0) {
			close(fd);
			return -EIO;
		}
		done += w;
	}
	return close(fd) ? -errno : 0;
}

static int profiler_enable(bool on)
{
	return prf_write_file(TRACING "/function_profile_enabled",
			      on ? "1" : "0");
}

/* The hits of every function, summed over the CPUs' trace_stat files. */
static int profiler_hits(struct tallies *t)
{
	char path[64], line[512];
	int cpu, r = 0;

	memset(t, 0, sizeof(*t));
	for (cpu = 0; !r && cpu < PRF_MAX_CPUS; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), TRACING "/trace_stat/function%d",
			 cpu);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (!r && fgets(line, sizeof(line), f)) {
			char name[256];
			long long hits;

			if (sscanf(line, "%255s %lld", name, &hits) == 2)
				r = tally_add(t, name, hits, 0);
		}
		fclose(f);
	}
	if (!r)
		tally_merge(t);
	return r;
}

/* ---- the prf side ----------------------------------------------------------- */

static int set_mode(int fd, __u32 mode)
{
	return ioctl(fd, PRF_SETMODE, &mode) ? -errno : 0;
}

static int get_sites(int fd, struct prf_site *sites, __u32 room)
{
	struct prf_sites s = { .nr = room, .sites = (uintptr_t)sites };

	if (ioctl(fd, PRF_GETSITES, &s))
		return -errno;
	return s.nr;
}

static int kmod_cmd(const char *cmd, unsigned int n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s %u", cmd, n);
	return prf_write_file(MODES, buf);
}

/* A scratch tmpfs of the test's own (the guest's /tmp may be one too). */
static char *tmpfs_make(char *dir)
{
	strcpy(dir, "/tmp/prf-anchor.XXXXXX");
	if (!mkdtemp(dir))
		return NULL;
	if (mount("prf-anchor", dir, "tmpfs", 0, "size=64m")) {
		rmdir(dir);
		return NULL;
	}
	return dir;
}

static void tmpfs_drop(const char *dir)
{
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

/* @n rounds in @dir: a file of two pages, a link to it, a directory. */
static int tmpfs_rounds(const char *dir, int n)
{
	static char page2[8192];
	char path[128], link[128];
	int i, fd, bad;

	memset(page2, 'a', sizeof(page2));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", dir, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		bad = write(fd, page2, sizeof(page2)) != sizeof(page2);
		close(fd);
		snprintf(link, sizeof(link), "%s/l%05d", dir, i);
		if (bad || symlink(path, link))
			return -EIO;
		snprintf(path, sizeof(path), "%s/d%05d", dir, i);
		if (mkdir(path, 0700))
			return -errno;
	}
	return 0;
}

/* Create, write, read back and remove @n files of 8 KiB in @dir. */
static int files_churn(const char *dir, int n)
{
	static char buf[8192];
	char path[128];
	int i, fd;

	memset(buf, 'p', sizeof(buf));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%05d", dir, i);
		fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    pread(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
		    ftruncate(fd, 100)) {
			close(fd);
			return -EIO;
		}
		close(fd);
		if (unlink(path))
			return -errno;
	}
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The index of @addr in @k (k->n if it is not a symbol's address). */
static size_t ksym_index(const struct prf_ksyms *k, __u64 addr)
{
	const __u64 *p = bsearch(&addr, k->addrs, k->n, sizeof(addr), u64_cmp);

	return p ? (size_t)(p - k->addrs) : k->n;
}

/* The first of the blank-separated names of one address. */
static void first_name(const char *names, char *out, size_t len)
{
	snprintf(out, len, "%.*s", (int)strcspn(names, " "), names);
}

/*
 * The kernel's accounting (@ready says why not) and the test module's
 * function @fn, [@s, @e), or the test is skipped.
 */
#define NEED_KMOD_FN(ready, fn, s, e)					\
	do {								\
		const char *why_ = ready();				\
									\
		if (!why_)						\
			why_ = prf_kmod_load(MODES);			\
		if (why_)						\
			SKIP(return, "%s", why_);			\
		ASSERT_EQ(0, prf_kmod_fn_extent(fn, true, &(s), &(e)));	\
	} while (0)

/* ---- alloc modes against /proc/allocinfo ---------------------------------- */

/*
 * 1000 kmalloc()s of 1 KiB from prf_test_kmod_anchor(), 400 of them freed,
 * all while ON: prf's allocations, frees and bytes of that function are
 * allocinfo's change, exactly (bytes: the slab object size both report).
 */
TEST_F(anchor, kmalloc_site_as_allocinfo)
{
	const unsigned int n = 1000, m = 400;
	struct tallies before, after, d;
	struct prf_site sites[5];
	const struct tally *a;
	struct prf_snap s;
	__u64 start, end, t[3];

	NEED_KMOD_FN(allocinfo_ready, "prf_test_kmod_anchor", start, end);
	t[0] = start;
	t[1] = end;
	t[2] = end + 1;
	ASSERT_EQ(0, prf_load(self->fd, t, 3));
	ASSERT_EQ(0, set_mode(self->fd, PRF_MODE_ALLOC_BYTES));
	ASSERT_EQ(0, allocinfo_read(&before));
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, kmod_cmd("anchor", n));
	ASSERT_EQ(0, kmod_cmd("unanchor", m));
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, allocinfo_read(&after));
	ASSERT_EQ(0, kmod_cmd("unanchor", n - m));
	ASSERT_EQ(5, get_sites(self->fd, sites, 5));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	ASSERT_EQ(0, tally_delta(&before, &after, &d));
	a = tally_find(&d, "prf_test_kmod_anchor");
	ASSERT_NE(NULL, a) TH_LOG(ALLOCINFO " has no line of prf_test_kmod_anchor");
	TH_LOG("allocinfo: %lld calls, %lld bytes; prf: %llu allocs - %llu frees, %llu - %llu bytes",
	       a->calls, a->bytes, (unsigned long long)sites[0].allocs,
	       (unsigned long long)sites[0].frees,
	       (unsigned long long)sites[0].bytes_alloc,
	       (unsigned long long)sites[0].bytes_freed);
	EXPECT_EQ(n, sites[0].allocs);
	EXPECT_EQ(m, sites[0].frees);
	EXPECT_EQ((__u64)n * ANCHOR_SIZE, sites[0].bytes_req);
	EXPECT_EQ(n - m, a->calls);
	EXPECT_EQ(sites[0].allocs - sites[0].frees, (__u64)a->calls);
	EXPECT_EQ(sites[0].bytes_alloc - sites[0].bytes_freed, (__u64)a->bytes);
	EXPECT_EQ(sites[0].bytes_alloc, s.counts[0]);
	prf_snap_free(&s);
	tally_free(&before);
	tally_free(&after);
	kfence_resume();
	tally_free(&d);
}

/*
 * A real workload: in a tmpfs, 1000 times a file of two pages, a symbolic
 * link to it and a directory, all kept.  Each costs the same few slab
 * objects (inodes, dentries, the link's text, the page cache's index
 * node), so the call sites that make one per round stand far above the
 * machine's background; every other site is noise (and a site's frees of
 * objects older than the interval are allocinfo's alone).
 *
 * The two name a call site differently where an allocation goes through
 * a wrapper or an inlined function: the tracepoints report the caller of
 * the slab allocator's entry (for kvmalloc(), __kvmalloc_node_noprof),
 * allocinfo the function where the allocation macro was expanded (the
 * caller of kvmalloc(), or an inlined function prf never sees).  So every
 * site of either side with at least half a round's count is compared
 * where both name it (allocinfo has a line of that function and prf saw it
 * allocate): the same net count within 1 %, and at least 3 such sites.
 * Page allocations (the files' data, new slabs) are allocinfo's alone.
 * A thousand rounds of tmpfs file work on the debug kernel under TCG, beside
 * the test bed's other guests, took 23.5 s of the default 30: not a hang.
 */
TEST_F_TIMEOUT(anchor, tmpfs_sites_as_allocinfo, 300)
{
	const int rounds = 1000;
	struct tallies before, after, d, p, big;
	struct prf_ksyms k;
	struct prf_site *sites;
	const char *why;
	char dir[64], name[256];
	size_t i, compared = 0;
	int max;

	why = allocinfo_ready();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, prf_ksyms_load(&k));
	max = prf_max(self->fd);
	if (max > 0 && k.n > (size_t)max)
		SKIP(goto out_k, "%zu kernel functions, prf takes %d", k.n, max);
	ASSERT_EQ(0, prf_load(self->fd, k.addrs, k.n));
	ASSERT_EQ(0, set_mode(self->fd, PRF_MODE_ALLOC_CALLS));
	ASSERT_NE(NULL, tmpfs_make(dir));
	sites = calloc(k.n + 2, sizeof(*sites));
	ASSERT_NE(NULL, sites);

	ASSERT_EQ(0, allocinfo_read(&before));
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(0, tmpfs_rounds(dir, rounds));
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, allocinfo_read(&after));
	tmpfs_drop(dir);
	ASSERT_EQ((int)k.n + 2, get_sites(self->fd, sites, k.n + 2));
	ASSERT_EQ(0, tally_delta(&before, &after, &d));

	/*
	 * prf's net allocations (allocations minus their frees seen) of
	 * every function it saw allocate, by the function's first name.
	 */
	memset(&p, 0, sizeof(p));
	for (i = 0; i < k.n; i++) {
		if (!sites[i].allocs)
			continue;
		first_name(k.names[i], name, sizeof(name));
		ASSERT_EQ(0, tally_add(&p, name,
				       sites[i].allocs - sites[i].frees, 0));
	}
	tally_merge(&p);

	/* the big sites of either side, once each */
	memset(&big, 0, sizeof(big));
	for (i = 0; i < p.n; i++)
		if (p.v[i].calls >= rounds / 2)
			ASSERT_EQ(0, tally_add(&big, p.v[i].name, 0, 0));
	for (i = 0; i < d.n; i++)
		if (d.v[i].calls >= rounds / 2)
			ASSERT_EQ(0, tally_add(&big, d.v[i].name, 0, 0));
	tally_merge(&big);

	for (i = 0; i < big.n; i++) {
		const struct tally *a = tally_find(&d, big.v[i].name);
		const struct tally *q = tally_find(&p, big.v[i].name);

		if (!a || !q) {
			TH_LOG("%-28s allocinfo %6lld  prf %6lld  (%s)",
			       big.v[i].name, a ? a->calls : 0, q ? q->calls : 0,
			       a ? "allocinfo's only: pages, or a site prf names by the allocator's caller" :
				   "prf's only: allocinfo names it by its macro's site");
			continue;
		}
		TH_LOG("%-28s allocinfo %6lld  prf %6lld", big.v[i].name,
		       a->calls, q->calls);
		if (!strcmp(big.v[i].name, "alloc_slab_obj_exts")) {
			/*
			 * The allocation profiler's own vectors: those of
			 * slabs made before the interval are freed with their
			 * slabs during it; allocinfo subtracts them, prf
			 * cannot (it never saw them allocated).
			 */
			EXPECT_LE(a->calls, q->calls);
			continue;
		}
		EXPECT_TRUE(prf_within(q->calls, a->calls, 0.01));
		compared++;
	}
	EXPECT_LE(3, compared);

	free(sites);
	tally_free(&before);
	tally_free(&after);
	tally_free(&d);
	tally_free(&p);
	tally_free(&big);
out_k:
	prf_ksyms_free(&k);
	kfence_resume();
}

/* ---- the calls mode against ftrace's function profiler ------------------- */

/*
 * prf_test_kmod_counted() called 25000 times: prf and the profiler both
 * count 25000, switched on and off around the same calls.  300 s, like its
 * siblings: on debug-7.x under a loaded host ftrace's patching alone ran
 * past the harness's default 30.
 */
TEST_F_TIMEOUT(anchor, kmod_calls_as_function_profiler, 300)
{
	const unsigned int n = 25000;
	struct tallies hits;
	const struct tally *h;
	struct prf_snap s;
	__u64 start, end, t[3];

	NEED_KMOD_FN(profiler_ready, "prf_test_kmod_counted", start, end);
	/* one byte before: no function's entry (counter N counts it) */
	t[0] = start - 1;
	t[1] = start;
	t[2] = end;
	ASSERT_EQ(0, prf_load(self->fd, t, 3));
	if (set_mode(self->fd, PRF_MODE_CALLS) == -EOPNOTSUPP)
		SKIP(return, "no calls mode (CONFIG_DYNAMIC_FTRACE)");
	ASSERT_EQ(0, profiler_filter("prf_test_kmod_counted"));
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, profiler_enable(true));
	EXPECT_EQ(0, kmod_cmd("call", n));
	ASSERT_EQ(0, profiler_enable(false));
	ASSERT_EQ(0, prf_off(self->fd));
	ASSERT_EQ(0, profiler_hits(&hits));
	EXPECT_EQ(0, profiler_filter(""));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	h = tally_find(&hits, "prf_test_kmod_counted");
	ASSERT_NE(NULL, h);
	EXPECT_EQ(n, h->calls);
	EXPECT_EQ(n, s.counts[1]);
	prf_snap_free(&s);
	tally_free(&hits);
}

/*
 * Every traceable shmem_* function of one name, on a tmpfs workload
 * (create, write, read, truncate, remove): prf's count of each is the
 * profiler's hits, exactly.  Patching 73 functions in and out twice (prf's
 * ops and the profiler's), two RCU settles and 200 traced rounds take the
 * debug kernel under TCG tens of seconds when alone, more beside the test
 * bed's other guests: the default 30 s is not a hang.
 */
TEST_F_TIMEOUT(anchor, shmem_calls_as_function_profiler, 300)
{
	struct tallies hits, names;
	struct prf_ksyms k;
	struct prf_snap s;
	const char *why;
	char line[512], dir[64], *filter;
	size_t i, n = 0, flen = 0, counted = 0;
	__u64 *t;
	FILE *f;

	why = profiler_ready();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, prf_ksyms_load(&k));
	/* the names ftrace can trace, once each */
	memset(&names, 0, sizeof(names));
	f = fopen(TRACING "/available_filter_functions", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = '\0';
		if (!strncmp(line, "shmem_", 6))
			ASSERT_EQ(0, tally_add(&names, line, 1, 0));
	}
	fclose(f);
	tally_merge(&names);
	t = calloc(names.n, sizeof(*t));
	filter = calloc(names.n, 258);
	ASSERT_TRUE(t && filter);
	for (i = 0; i < names.n; i++) {
		__u64 addr;

		if (names.v[i].calls != 1)
			continue;	/* two functions of one name */
		if ((i && !strncmp(names.v[i - 1].name, names.v[i].name,
				   PROFILER_NAME_MAX)) ||
		    (i + 1 < names.n && !strncmp(names.v[i + 1].name,
						 names.v[i].name,
						 PROFILER_NAME_MAX)))
			continue;	/* the profiler shows them alike */
		addr = prf_ksyms_addr(&k, names.v[i].name);
		if (!addr)
			continue;
		t[n++] = addr;
		flen += sprintf(filter + flen, "%s ", names.v[i].name);
	}
	ASSERT_LE(10, n) TH_LOG("only %zu shmem_* functions", n);
	qsort(t, n, sizeof(*t), u64_cmp);
	ASSERT_EQ(0, prf_load(self->fd, t, n));
	if (set_mode(self->fd, PRF_MODE_CALLS) == -EOPNOTSUPP)
		SKIP(goto out, "no calls mode (CONFIG_DYNAMIC_FTRACE)");
	ASSERT_EQ(0, profiler_filter(filter));
	ASSERT_NE(NULL, tmpfs_make(dir));

	/*
	 * Freed inodes are freed for good in RCU callbacks, whenever they
	 * run: none may be pending while one counter runs without the
	 * other, so the grace periods are waited for on both sides.
	 */
	prf_sleep(SETTLE_S);
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, profiler_enable(true));
	EXPECT_EQ(0, files_churn(dir, 200));
	prf_sleep(SETTLE_S);
	ASSERT_EQ(0, profiler_enable(false));
	ASSERT_EQ(0, prf_off(self->fd));

	tmpfs_drop(dir);
	ASSERT_EQ(0, profiler_hits(&hits));
	EXPECT_EQ(0, profiler_filter(""));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(0, s.counts[n]);	/* ftrace took every address */
	for (i = 0; i < n; i++) {
		char name[256];
		const struct tally *h;
		size_t j;

		j = ksym_index(&k, t[i]);
		ASSERT_LT(j, k.n);
		first_name(k.names[j], name, sizeof(name));
		name[PROFILER_NAME_MAX] = '\0';
		h = tally_find(&hits, name);
		EXPECT_EQ(h ? h->calls : 0, (long long)s.counts[i])
			TH_LOG("%s: profiler %lld, prf %llu", name,
			       h ? h->calls : 0,
			       (unsigned long long)s.counts[i]);
		counted += s.counts[i] != 0;
	}
	TH_LOG("%zu shmem_* functions traced, %zu called", n, counted);
	EXPECT_LE(10, counted);
	prf_snap_free(&s);
	tally_free(&hits);
out:
	free(t);
	free(filter);
	tally_free(&names);
	prf_ksyms_free(&k);
}

TEST_HARNESS_MAIN
