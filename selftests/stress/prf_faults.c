// SPDX-License-Identifier: GPL-2.0
/*
 * prf_faults - allocation failures injected into prf (debug-7.x: failslab,
 * fail_page_alloc, the stack-trace filter).
 *
 * 1. Table writes and sysfs writes, with failslab and fail_page_alloc
 *    limited (require-start/require-end) to prf.ko's text: every write
 *    returns its byte count or ENOMEM; after ENOMEM the previous table is
 *    intact (GETSIZE, the addresses read back); sysfs writes give what
 *    uapi documents.
 * 2. Module loads (finit_module of $PRF_KO) with failslab on this task only
 *    (task-filter, /proc/self/make-it-fail): each load succeeds or fails
 *    with ENOMEM, and a failed one leaves no module behind.
 *
 * The kernel log must stay free of reports (the test bed checks it; so does
 * the scanner here).  Prints the figures: calls, failures injected.
 *
 * usage: prf_faults [--writes N] [--loads N] [--seed S]
 * Exit 4 (skip) without failslab (a kernel without FAULT_INJECTION_DEBUG_FS
 * and the stack-trace filter).
 */
#include "common.h"

#include <getopt.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#define DBG	"/sys/kernel/debug"
#define SLAB	DBG "/failslab"
#define PAGE	DBG "/fail_page_alloc"
#define SECT	"/sys/module/prf/sections"

static int fa_set(const char *dir, const char *attr, const char *val)
{
	char path[256];
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	r = write_str(path, val);
	if (r)
		tap_diag("%s = %s: %s", path, val, strerror(-r));
	return r;
}

static int fa_set_u(const char *dir, const char *attr, unsigned long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", v);
	return fa_set(dir, attr, b);
}

/* Failures injected so far: the attribute counts down from "times". */
static long long fa_times(const char *dir)
{
	char path[256], b[32];

	snprintf(path, sizeof(path), "%s/times", dir);
	if (read_str(path, b, sizeof(b)) < 0)
		return -1;
	return atoll(b);
}

static unsigned long long hexfile(const char *path)
{
	char b[64];

	if (read_str(path, b, sizeof(b)) < 0)
		return 0;
	return strtoull(b, NULL, 16);
}

/* prf's .text: [start, end), end being the next section up. */
static bool prf_text(unsigned long long *start, unsigned long long *end)
{
	char path[512];
	struct dirent *de;
	DIR *d;

	*start = hexfile(SECT "/.text");
	*end = ~0ULL;
	d = opendir(SECT);
	if (!*start || !d) {
		if (d)
			closedir(d);
		return false;
	}
	while ((de = readdir(d))) {
		unsigned long long a;

		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		snprintf(path, sizeof(path), SECT "/%s", de->d_name);
		a = hexfile(path);
		if (a > *start && a < *end)
			*end = a;
	}
	closedir(d);
	return *end != ~0ULL;
}

/*
 * Memory allocation profiling (the debug kernel has it for issue 15's
 * anchors) allocates a vector of its own on a slab's first allocation and
 * WARNs when that fails: failslab makes it fail from prf's call sites, a
 * report about the profiler, not about prf.  It is off while failslab is
 * armed, and back as it was after.
 */
#define MEM_PROFILING	"/proc/sys/vm/mem_profiling"
static char mem_profiling[8];

static void mem_profiling_off(void)
{
	FILE *f = fopen(MEM_PROFILING, "r");

	if (!f)
		return;
	if (!fgets(mem_profiling, sizeof(mem_profiling), f))
		mem_profiling[0] = '\0';
	fclose(f);
	f = fopen(MEM_PROFILING, "w");
	if (f) {
		fputs("0", f);
		fclose(f);
	}
}

static void mem_profiling_back(void)
{
	FILE *f;

	if (!mem_profiling[0] || !(f = fopen(MEM_PROFILING, "w")))
		return;
	fputs(mem_profiling, f);
	fclose(f);
	mem_profiling[0] = '\0';
}

/* One injector: @percent of the calls that pass the filters fail. */
static bool fa_arm(const char *dir, unsigned int percent, bool task_only,
		   unsigned long long start, unsigned long long end)
{
	bool ok = true;

	if (!strcmp(dir, SLAB))
		mem_profiling_off();

	/* the filters first: an injector armed without them fails anything */
	ok &= !fa_set_u(dir, "probability", 0);
	ok &= !fa_set_u(dir, "interval", 1);
	ok &= !fa_set(dir, "times", "1000000");
	ok &= !fa_set_u(dir, "space", 0);
	ok &= !fa_set_u(dir, "verbose", 0);
	ok &= !fa_set(dir, "ignore-gfp-wait", "N");
	ok &= !fa_set(dir, "task-filter", task_only ? "Y" : "N");
	if (!strcmp(dir, PAGE)) {
		ok &= !fa_set(dir, "ignore-gfp-highmem", "N");
		ok &= !fa_set_u(dir, "min-order", 0);
	}
	ok &= !fa_set_u(dir, "stacktrace-depth", 32);
	ok &= !fa_set_u(dir, "require-start", start);
	ok &= !fa_set_u(dir, "require-end", end);
	ok &= !fa_set_u(dir, "probability", percent);
	return ok;
}

static void fa_disarm(const char *dir)
{
	fa_set_u(dir, "probability", 0);
	fa_set(dir, "times", "1");
	fa_set_u(dir, "require-start", 0);
	fa_set_u(dir, "require-end", ~0UL);
	fa_set(dir, "task-filter", "N");
	if (!strcmp(dir, SLAB))
		mem_profiling_back();
}

/* ---- 1. table and sysfs writes ------------------------------------------- */

static void writes(struct rng *r, unsigned long nwrites, const __u64 *text,
		   size_t ntext)
{
	struct prf_dev devs[MAX_DEVS];
	unsigned long ok = 0, nomem = 0, bad = 0, intact = 0, sys = 0, i;
	long long before_s, before_p;
	unsigned long long start = 0, end = 0;
	int ndev = prf_devices(devs, MAX_DEVS), fd[2];
	size_t cur[2] = { 0, 0 };
	__u64 *back = malloc((2 * ntext + 2) * 8);
	const __u64 *tab[2] = { NULL, NULL };
	char path[256];

	if (!tap_ok(ndev >= 1 && back && prf_text(&start, &end),
		    "devices and prf's .text found"))
		return;
	/*
	 * Fault the read-back buffer in now: a page fault inside prf_read()'s
	 * copy has prf on the stack, so the injector would fail it (EFAULT).
	 */
	memset(back, 0, (2 * ntext + 2) * 8);
	tap_diag("prf .text 0x%llx-0x%llx", start, end);
	fd[0] = open(devs[0].path, O_RDWR | O_CLOEXEC);
	fd[1] = open(devs[ndev > 1 ? 1 : 0].path, O_RDWR | O_CLOEXEC);
	if (!tap_ok(fd[0] >= 0 && fd[1] >= 0, "open the devices"))
		return;
	tap_ok(fa_arm(SLAB, 20, false, start, end) &&
	       fa_arm(PAGE, 20, false, start, end),
	       "failslab and fail_page_alloc armed for prf's text, 20%%");
	before_s = fa_times(SLAB);
	before_p = fa_times(PAGE);
	for (i = 0; i < nwrites; i++) {
		int d = rng_below(r, 2);
		/* small tables (slab) and large ones (vmalloc) */
		size_t n = rng_chance(r, 30) ? ntext : 3 + rng_below(r, 600);
		size_t off = rng_below(r, ntext - (n < ntext ? n : ntext) + 1);
		ssize_t w;
		int e;

		if (n > ntext)
			n = ntext;
		w = write(fd[d], text + off, n * 8);
		e = errno;
		if (w == (ssize_t)(n * 8)) {
			ok++;
			tab[d] = text + off;
			cur[d] = n;
		} else if (w < 0 && e == ENOMEM) {
			nomem++;
			/* the previous table, untouched */
			if (cur[d] &&
			    ioctl(fd[d], PRF_GETSIZE, &e) == 0 && (size_t)e == cur[d] &&
			    read(fd[d], back, cur[d] * 8) == (ssize_t)(cur[d] * 8) &&
			    !memcmp(back, tab[d], cur[d] * 8))
				intact++;
			else if (!cur[d])
				intact++;
			else
				tap_diag("ENOMEM on %s: size %d, %zu before", devs[d ? (ndev > 1) : 0].path,
					 ioctl(fd[d], PRF_GETSIZE, &e) ? -errno : e, cur[d]);
		} else {
			bad++;
			if (bad < 5)
				tap_diag("write of %zu addresses: %zd (%s)", n, w,
					 strerror(e));
		}
		/* sysfs: hz and control, whatever the injector does */
		if (rng_chance(r, 30)) {
			const char *attr = rng_chance(r, 50) ? "hz" : "control";
			const char *val = attr[0] == 'h' ? "250" :
					  rng_chance(r, 50) ? "clear" : "stop";
			int rr;

			snprintf(path, sizeof(path), "/sys/class/%s/%s/%s",
				 PRF_CLASS, devs[d ? (ndev > 1) : 0].name, attr);
			rr = write_str(path, val);
			sys++;
			check_result(OP_SYSFS_W, rr ? -1 : 0, -rr, path);
		}
	}
	tap_diag("%lu writes: %lu loaded, %lu ENOMEM (%lu with the previous table intact), %lu other; %lu sysfs writes",
		 nwrites, ok, nomem, intact, bad, sys);
	tap_diag("failures injected: failslab %lld, fail_page_alloc %lld",
		 before_s - fa_times(SLAB), before_p - fa_times(PAGE));
	fa_disarm(SLAB);
	fa_disarm(PAGE);
	tap_ok(bad == 0, "every table write returned its byte count or ENOMEM");
	tap_ok(intact == nomem, "every ENOMEM left the previous table intact");
	tap_ok(nomem > 0 && ok > 0, "failures were injected, and loads got through");
	set_state(fd[0], 0);
	set_state(fd[1], 0);
	close(fd[0]);
	close(fd[1]);
	free(back);
}

/* ---- 2. module loads ----------------------------------------------------- */

static bool prf_loaded(void)
{
	return access("/sys/module/prf", F_OK) == 0;
}

static int load_prf(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	r = syscall(SYS_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	return r;
}

/* The address of a kernel symbol in /proc/kallsyms, 0 if absent. */
static unsigned long long ksym(const char *name)
{
	char line[512], n[256];
	unsigned long long a, found = 0;
	char t;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, n) == 3 && !strcmp(n, name))
			found = a;
	fclose(f);
	return found;
}

/*
 * Module loads: only allocations made with module code on the stack (prf's
 * init, and what it calls) may fail, not the loader's own (whose failures
 * warn): the filter spans the module area around prf's current text, from
 * above the kernel's text, and this task only.
 */
static void loads(unsigned long nloads)
{
	unsigned long long start = 0, end = 0, etext = ksym("_etext");
	const char *ko = getenv("PRF_KO");
	unsigned long ok = 0, nomem = 0, bad = 0, ghost = 0, i;
	long long before;
	int r;

	if (!ko) {
		tap_skip("module loads: PRF_KO not set");
		return;
	}
	if (!tap_ok(prf_text(&start, &end) && etext, "prf's text and _etext"))
		return;
	start = start - (256ULL << 20) > etext ? start - (256ULL << 20) : etext;
	end = start + (512ULL << 20);
	tap_diag("module loads: failures for stacks through 0x%llx-0x%llx", start, end);
	if (!tap_ok(!syscall(SYS_delete_module, "prf", O_NONBLOCK),
		    "prf unloaded for the load test"))
		return;
	tap_ok(fa_arm(SLAB, 1, true, start, end),
	       "failslab armed for this task and module code, 1%%");
	before = fa_times(SLAB);
	for (i = 0; i < nloads; i++) {
		write_str("/proc/self/make-it-fail", "1");
		r = load_prf(ko);
		write_str("/proc/self/make-it-fail", "0");
		if (!r) {
			ok++;
			if (syscall(SYS_delete_module, "prf", O_NONBLOCK))
				bad++;
		} else if (r == ENOMEM) {
			nomem++;
			if (prf_loaded())
				ghost++;
		} else {
			bad++;
			if (bad < 5)
				tap_diag("finit_module: %s", strerror(r));
			if (prf_loaded())
				syscall(SYS_delete_module, "prf", O_NONBLOCK);
		}
	}
	tap_diag("%lu loads: %lu loaded, %lu ENOMEM, %lu other; failslab injected %lld",
		 nloads, ok, nomem, bad, before - fa_times(SLAB));
	fa_disarm(SLAB);
	tap_ok(bad == 0, "every load succeeded or failed with ENOMEM");
	tap_ok(ghost == 0, "no failed load left the module behind");
	tap_ok(!load_prf(ko), "prf loads again without failures");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "writes", required_argument, NULL, 'w' },
		{ "loads", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long nwrites = 2000, nloads = 50;
	uint64_t seed = seed_from_clock();
	struct rng r;
	bool synthetic;
	__u64 *text;
	size_t ntext;
	int c, kfd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'w': nwrites = strtoul(optarg, NULL, 0); break;
		case 'l': nloads = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [--writes N] [--loads N] [--seed S]\n",
				argv[0]);
			return 2;
		}
	}
	tap_begin();
	if (access(SLAB, F_OK))
		mount("debugfs", DBG, "debugfs", 0, NULL);
	if (access(SLAB "/require-start", F_OK) || access(PAGE, F_OK)) {
		tap_skip("no failslab/fail_page_alloc with a stack-trace filter in " DBG);
		tap_end();
		return KSFT_SKIP;
	}
	tap_diag("prf_faults --seed %llu", (unsigned long long)seed);
	r.s = seed;
	kfd = kmsg_open_tail();
	ntext = kernel_text(&text, &synthetic);
	if (!tap_ok(ntext >= 3, "a table of kernel text addresses"))
		return tap_end();
	if (ntext > 20000)
		ntext = 20000;
	writes(&r, nwrites, text, ntext);
	loads(nloads);
	/*
	 * kmemleak saying that its own allocation, failed by the injector with
	 * prf on the stack, made it scan an object whole is the injection
	 * working, not a report.
	 */
	tap_ok(kmsg_scan_ignoring(kfd, NULL,
				  "kmemleak: Cannot allocate a scan area") == 0,
	       "no kernel report");
	print_results();
	free(text);
	return tap_end();
}
