// SPDX-License-Identifier: GPL-2.0
/*
 * prf_attrib_test - exact attribution of kernel PCs to table slots.
 *
 * The test module selftests/kmod/prf_test_kmod.ko (built per kernel, path in
 * $PRF_TEST_KMOD; every test SKIPs without it) spins in a function of its
 * own, prf_test_kmod_spin(), for as long as /proc/prf_test_kmod is told.
 * Its start S and end E (the next symbol) come from /proc/kallsyms, so a
 * table can put addresses one byte before, at and after each end, and the
 * samples taken while it spins must land exactly in the slot of the largest
 * address <= PC: a lookup off by one slot moves them to a neighbour.  Then
 * a table of one address per byte of the function, with the lookup index's
 * bucket boundaries moved onto the hottest PCs: the same PCs must come out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "prf_fixture.h"

#define KMOD		"prf_test_kmod"
#define SPIN_FN		"prf_test_kmod_spin"
#define SPIN_MS		"500"
#define HZ		1000
#define NEED		300	/* samples in the spin */
#define NEED_SECS	90.0

PRF_FIXTURE(attrib);


/* Samples counted in [@S, @E) by the slots of @s. */
static __u64 in_spin(const struct prf_snap *s, __u64 S, __u64 E)
{
	__u64 in = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->addrs[i] >= S && s->addrs[i] < E)
			in += s->counts[i];
	return in;
}

/*
 * Samples @fd (loaded with @t) at HZ while this process spins in the
 * module on @cpu, in spins of SPIN_MS, until the function [@S, @E) holds
 * NEED samples (one spin on a quiet host; more when the host starves the
 * guest, whose timer then comes less often) or NEED_SECS have passed;
 * fills @s and @info.
 */
static void spin_sampled(struct __test_metadata *_metadata, int fd, int cpu,
			 const __u64 *t, size_t n, __u64 S, __u64 E,
			 struct prf_snap *s, struct prf_info *info)
{
	double t0 = prf_now();

	ASSERT_EQ(0, prf_pin_self(cpu));
	ASSERT_EQ(0, prf_load(fd, t, n));
	ASSERT_EQ(0, prf_set_hz(fd, HZ));
	ASSERT_EQ(0, prf_on(fd));
	for (;;) {
		ASSERT_EQ(0, prf_write_file("/proc/" KMOD, SPIN_MS));
		ASSERT_EQ(0, prf_snap(fd, s));
		if (in_spin(s, S, E) >= NEED || prf_now() - t0 > NEED_SECS)
			break;
		prf_snap_free(s);
	}
	prf_snap_free(s);
	ASSERT_EQ(0, prf_off(fd));
	ASSERT_EQ(0, prf_snap(fd, s));
	ASSERT_EQ(0, prf_info(fd, info));
	ASSERT_EQ(n, s->n);
	TH_LOG("%llu samples in the spin after %.1f s",
	       (unsigned long long)in_spin(s, S, E), prf_now() - t0);
}

#define NEED_KMOD(start, end, cpu)					\
	do {								\
		const char *why = prf_kmod_load("/proc/" KMOD);		\
									\
		if (why)						\
			SKIP(return, "%s", why);			\
		ASSERT_EQ(0, prf_kmod_fn_extent(SPIN_FN, false, &(start), &(end))); \
		cpu = self->ncpus > 1 ? 1 : 0;				\
		PRF_NEED_CPU(cpu);					\
	} while (0)

/*
 * Slots at S - 1, S, S + 1, E - 1, E and E + 1: the spin is in [S + 1,
 * E - 1), so nearly every sample is S + 1's.  S and E - 1 are one byte each
 * (the entry, a padding or return byte: at most the odd sample), and so are
 * S - 1 and E, which belong to other functions.
 */
TEST_F_TIMEOUT(attrib, function_ends_to_the_byte, 120)
{
	struct prf_snap s;
	struct prf_info info;
	__u64 S, E, t[6];
	int cpu, i;

	NEED_KMOD(S, E, cpu);
	TH_LOG(SPIN_FN " at 0x%llx, %llu bytes", (unsigned long long)S,
	       (unsigned long long)(E - S));
	ASSERT_LT(4, E - S);
	t[0] = S - 1; t[1] = S; t[2] = S + 1;
	t[3] = E - 1; t[4] = E; t[5] = E + 1;
	spin_sampled(_metadata, self->cpu[cpu], cpu, t, 6, S, E, &s, &info);
	TH_LOG("S-1 %llu S %llu S+1 %llu E-1 %llu E %llu E+1 %llu of %llu taken",
	       (unsigned long long)s.counts[0], (unsigned long long)s.counts[1],
	       (unsigned long long)s.counts[2], (unsigned long long)s.counts[3],
	       (unsigned long long)s.counts[4], (unsigned long long)s.counts[5],
	       (unsigned long long)info.ticks_total);
	EXPECT_LE(100, s.counts[2]);
	EXPECT_LE(0.5 * info.ticks_total, s.counts[2]);
	for (i = 0; i < 6; i++)
		if (i != 2 && i != 5)	/* E + 1 takes all the text above */
			EXPECT_GE(2, s.counts[i]) TH_LOG("slot %d", i);
	prf_snap_free(&s);
}

/* The PCs of the spin with at least 5% of its samples, by offset from S. */
static int hot_pcs(const struct prf_snap *s, __u64 S, __u64 E, __u64 *hot,
		   int max)
{
	__u64 in = in_spin(s, S, E);
	size_t i;
	int nr = 0;

	for (i = 0; i < s->n && nr < max; i++)
		if (s->addrs[i] >= S && s->addrs[i] < E &&
		    s->counts[i] * 20 >= in && s->counts[i] > 0)
			hot[nr++] = s->addrs[i] - S;
	return nr;
}

/* The lookup index's shift for a table spanning @span with @n addresses. */
static unsigned int index_shift(__u64 span, __u64 n)
{
	unsigned int shift = 0;

	while ((span >> shift) > 2 * n - 1)
		shift++;
	return shift;
}

/*
 * One address per byte from S - 1 to E + 1 gives each PC its own slot.
 * First alone (the index has a bucket per byte), then after a first address
 * placed so that a bucket boundary of the index falls on a hot PC, on the
 * byte after it and on the byte before it: the hot PCs must be the same,
 * and S - 1 and E must stay (nearly) empty.
 */
TEST_F_TIMEOUT(attrib, bucket_boundaries_keep_every_pc_in_its_slot, 400)
{
	struct prf_snap s;
	struct prf_info info;
	__u64 S, E, *t, *seen, hot0[16], hot[16], p;
	size_t n, len, i;
	int cpu, nr0, nr, v, j, k;
	size_t top;

	NEED_KMOD(S, E, cpu);
	len = E - S + 3;	/* S - 1 .. E + 1 */
	t = calloc(len + 1, sizeof(*t));
	ASSERT_NE(NULL, t);

	for (i = 0; i < len; i++)
		t[i] = S - 1 + i;
	spin_sampled(_metadata, self->cpu[cpu], cpu, t, len, S, E, &s,
		     &info);
	EXPECT_GE(2, s.counts[0]);		/* S - 1 */
	EXPECT_GE(2, s.counts[len - 2]);	/* E */
	nr0 = hot_pcs(&s, S, E, hot0, 16);
	/* kept: which bytes were ever a PC, and the hottest */
	seen = malloc(len * sizeof(*seen));
	ASSERT_NE(NULL, seen);
	memcpy(seen, s.counts, len * sizeof(*seen));
	top = 1;
	for (i = 1; i < len - 2; i++)
		if (seen[i] > seen[top])
			top = i;
	prf_snap_free(&s);
	ASSERT_LT(0, nr0);
	for (j = 0; j < nr0; j++)
		TH_LOG("hot PC S+%llu", (unsigned long long)hot0[j]);

	/* boundaries on the hottest PC, one byte after and one before it */
	for (v = 0; v < 3; v++) {
		p = S - 1 + top + (v == 1) - (v == 2);
		n = len + 1;
		/* a first address 64 KiB - ish below: buckets of 2^shift */
		t[0] = p - 65536;
		for (i = 0; i < len; i++)
			t[i + 1] = S - 1 + i;
		k = index_shift(t[n - 1] - t[0], n);
		ASSERT_GE(16, k);
		ASSERT_EQ(0, (p - t[0]) % (1ULL << k));
		TH_LOG("variant %d: bucket boundary at S+%lld (buckets of %d bytes)",
		       v, (long long)(p - S), 1 << k);
		spin_sampled(_metadata, self->cpu[cpu], cpu, t, n, S, E, &s,
			     &info);
		EXPECT_GE(2, s.counts[1]);		/* S - 1 */
		EXPECT_GE(2, s.counts[n - 2]);		/* E */
		nr = hot_pcs(&s, S, E, hot, 16);
		EXPECT_LT(0, nr);
		/* a hot PC now was a PC before (its slot is byte S - 1 + i) */
		for (j = 0; j < nr; j++)
			EXPECT_LT(0, seen[hot[j] + 1])
				TH_LOG("S+%llu a PC only with a boundary at S+%lld",
				       (unsigned long long)hot[j],
				       (long long)(p - S));
		/* and the hottest PC before is still one of them */
		for (j = 0; j < nr && hot[j] != top - 1; j++)
			;
		EXPECT_LT(j, nr) TH_LOG("S+%zu no longer hot", top - 1);
		prf_snap_free(&s);
	}
	free(seen);
	free(t);
}

TEST_HARNESS_MAIN
