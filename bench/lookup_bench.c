// SPDX-License-Identifier: GPL-2.0
/*
 * lookup_bench - prf's sample path, lookup and count, on the host's real
 * caches: what -icount (every instruction costs the same) cannot show.
 *
 *	lookup_bench [KALLSYMS]		(default /proc/kallsyms, as root)
 *
 * The table is built as prf_table_index() builds it (prf_table.c: buckets
 * of 2^shift bytes, at most 2n of them, a u32 index of the last address
 * <= each bucket start) and looked up as prf_lookup() does; this file
 * mirrors that code, it does not include it (prf_table.c is kernel code).
 *
 * Each case takes PCs from the kernel's text and reports nanoseconds per
 * lookup + atomic increment:
 *	warm	back-to-back lookups: table in the caches (10 kHz, busy CPU)
 *	cold	the table is flushed (clflush) from every cache level before
 *		each lookup (a sampler at 100 Hz finds its table evicted:
 *		each sample pays the misses)
 * for three layouts: prf's (struct prf_slot: {addr, count} pairs, plus the
 * index), the split arrays prf had before (addrs[], index[], counts[]
 * apart), and the floor (no lookup at all).
 * It also times an atomic increment of one counter shared by two threads
 * (prf's user and idle buckets) against a per-thread counter.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

struct table {
	uint32_t n, nbuckets;
	unsigned int shift;
	uint64_t *addrs;
	uint32_t *index;
	_Atomic uint64_t *counts;
	struct pair { uint64_t addr; _Atomic uint64_t count; } *pairs;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* as prf_table_index() */
static void build_index(struct table *t)
{
	const uint64_t *a = t->addrs;
	uint64_t span = a[t->n - 1] - a[0];
	uint32_t i = 0, b;

	t->shift = 0;
	while ((span >> t->shift) > 2 * (uint64_t)t->n - 1)
		t->shift++;
	t->nbuckets = (uint32_t)(span >> t->shift) + 1;
	t->index = malloc((2 * (size_t)t->n + 1) * sizeof(*t->index));
	for (b = 0; b < t->nbuckets; b++) {
		uint64_t start = (uint64_t)b << t->shift;

		while (i + 1 < t->n && a[i + 1] - a[0] <= start)
			i++;
		t->index[b] = i;
	}
	t->index[t->nbuckets] = t->n - 1;
}

static inline uint64_t addr_split(const struct table *t, uint32_t i)
{
	return t->addrs[i];
}

static inline uint64_t addr_pair(const struct table *t, uint32_t i)
{
	return t->pairs[i].addr;
}

/* as prf_lookup(), over either layout (at() is inlined: a constant) */
static inline uint32_t lookup(const struct table *t, uint64_t pc,
			      uint64_t (*at)(const struct table *, uint32_t))
{
	uint64_t b = (pc - at(t, 0)) >> t->shift;
	uint32_t lo, hi, mid;

	if (b >= t->nbuckets)
		return t->n - 1;
	lo = t->index[b];
	hi = t->index[b + 1];
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (at(t, mid) <= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void clflush_range(const void *p, size_t len)
{
	const char *c = p;
	size_t i;

	for (i = 0; i < len; i += 64)
		_mm_clflush(c + i);
}

static void spin_ns(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

/* Evicts every line of the table from every cache level. */
static const struct table *flush_t;
static void flush_caches(void)
{
	const struct table *t = flush_t;

	clflush_range(t->addrs, t->n * sizeof(*t->addrs));
	clflush_range(t->index, (2 * (size_t)t->n + 1) * sizeof(*t->index));
	clflush_range(t->counts, (t->n + 2) * sizeof(*t->counts));
	clflush_range(t->pairs, t->n * sizeof(*t->pairs));
	clflush_range(t, sizeof(*t));
	_mm_mfence();
	spin_ns(100000);	/* let the flushes drain before the timed part */
}

enum { SPLIT, PAIRS, FLOOR };

static double run(struct table *t, const uint64_t *pcs, size_t npcs, int layout,
		  int cold)
{
	uint64_t total = 0, t0, t1;
	unsigned int aux;
	size_t k;

	for (k = 0; k < npcs; k++) {
		uint64_t pc = pcs[k];

		if (cold)
			flush_caches();
		t0 = __rdtscp(&aux);
		if (layout == SPLIT)
			atomic_fetch_add(&t->counts[lookup(t, pc, addr_split)], 1);
		else if (layout == PAIRS)
			atomic_fetch_add(&t->pairs[lookup(t, pc, addr_pair)].count, 1);
		else
			atomic_fetch_add(&t->counts[0], 1);
		t1 = __rdtscp(&aux);
		total += t1 - t0;
	}
	return (double)total / npcs;
}

static double tsc_per_ns(void)
{
	struct timespec a, b;
	uint64_t t0, t1;
	unsigned int aux;

	clock_gettime(CLOCK_MONOTONIC, &a);
	t0 = __rdtscp(&aux);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 200000000L);
	t1 = __rdtscp(&aux);
	return (double)(t1 - t0) /
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
}

static _Atomic uint64_t shared_ctr;
static _Atomic uint64_t private_ctr[2][8];	/* one line each */
static int use_shared;

static void *incr(void *arg)
{
	long id = (long)arg, i;

	for (i = 0; i < 20000000; i++) {
		if (use_shared)
			atomic_fetch_add(&shared_ctr, 1);
		else
			atomic_fetch_add(&private_ctr[id][0], 1);
	}
	return NULL;
}

static double contended(int shared)
{
	struct timespec a, b;
	pthread_t th[2];
	long i;

	use_shared = shared;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, incr, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 20000000.0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/proc/kallsyms";
	FILE *f = fopen(path, "r");
	uint64_t stext = 0, etext = 0, *pcs;
	size_t cap = 1 << 17, n = 0, i, j, npcs = 300;
	struct table t = { 0 };
	char line[512], name[256], type;
	unsigned long long a;
	double tpn;
	int layout, cold;
	static const char *const lname[] = {
		"split arrays (old)", "{addr,count} (prf)", "floor (count only)"
	};

	if (!f) {
		perror(path);
		return 1;
	}
	t.addrs = malloc(cap * sizeof(*t.addrs));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_stext"))
			stext = a;
		if (!strcmp(name, "_etext"))
			etext = a;
		if ((type != 't' && type != 'T') || !a || strchr(line, '['))
			continue;	/* the kernel's own text, as prfld -m kernel */
		if (n == cap)
			t.addrs = realloc(t.addrs, (cap *= 2) * sizeof(*t.addrs));
		t.addrs[n++] = a;
	}
	fclose(f);
	if (n < 3 || !stext || etext <= stext) {
		fprintf(stderr, "%s: no kernel text (run as root?)\n", path);
		return 1;
	}
	qsort(t.addrs, n, sizeof(*t.addrs), cmp_u64);
	for (i = 1, j = 1; i < n; i++)
		if (t.addrs[i] != t.addrs[j - 1])
			t.addrs[j++] = t.addrs[i];
	t.n = j;
	build_index(&t);
	t.counts = calloc(t.n + 2, sizeof(*t.counts));
	t.pairs = calloc(t.n, sizeof(*t.pairs));
	for (i = 0; i < t.n; i++)
		t.pairs[i].addr = t.addrs[i];
	flush_t = &t;

	srand(1);
	pcs = malloc(npcs * sizeof(*pcs));
	for (i = 0; i < npcs; i++)
		pcs[i] = stext + ((uint64_t)rand() * 4099) % (etext - stext);

	tpn = tsc_per_ns();
	printf("table: %u addresses, shift %u, %u buckets; %.1f MB (addrs %zu KB, index %zu KB, counts %zu KB)\n",
	       t.n, t.shift, t.nbuckets,
	       (t.n * 8.0 + (2.0 * t.n + 1) * 4 + (t.n + 2) * 8.0) / 1e6,
	       (size_t)t.n * 8 / 1024, (2 * (size_t)t.n + 1) * 4 / 1024,
	       (size_t)(t.n + 2) * 8 / 1024);
	printf("%-22s %10s %10s\n", "ns per lookup+count", "warm", "cold");
	for (layout = SPLIT; layout <= FLOOR; layout++) {
		double r[2];

		for (cold = 0; cold <= 1; cold++) {
			run(&t, pcs, npcs, layout, cold);	/* warm-up */
			r[cold] = run(&t, pcs, npcs, layout, cold) / tpn;
		}
		printf("%-22s %10.1f %10.1f\n", lname[layout], r[0], r[1]);
	}
	printf("atomic increment, 2 threads: one shared counter %.1f ns, one counter each %.1f ns\n",
	       contended(1), contended(0));
	return 0;
}
