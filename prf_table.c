// SPDX-License-Identifier: GPL-2.0
/*
 * prf - the address table: allocation, the addresses of a write(), the
 * lookup index and the lookup of a PC, its counters and its references.
 * Locking and lifetimes: prf.h.
 */
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "prf.h"

/* Tables */

/*
 * The lookup index has at most 2n + 1 entries: each bucket then holds about
 * half an address on average, so a lookup is one index read and a short
 * binary search, and the index costs less memory than the addresses.
 */
static size_t prf_index_entries(u32 n)
{
	return 2 * (size_t)n + 1;
}

/*
 * n is at most PRF_MAX_ADDRS_LIMIT.  The size comes from user space: a
 * failure is reported as ENOMEM, without a warning, and must not wake the
 * OOM killer.
 */
struct prf_table *prf_table_alloc(u32 n)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_table *tab;

	tab = kzalloc(sizeof(*tab), GFP_KERNEL_ACCOUNT);
	if (!tab)
		return NULL;
	kref_init(&tab->ref);
	tab->n = n;
	tab->slot = kvcalloc(n, sizeof(*tab->slot), gfp);
	tab->index = kvmalloc_array(prf_index_entries(n), sizeof(*tab->index),
				    gfp);
	if (!tab->slot || !tab->index) {
		prf_table_put(tab);
		return NULL;
	}
	tab->mem = sizeof(*tab) + n * sizeof(*tab->slot) +
		   prf_index_entries(n) * sizeof(*tab->index);
	return tab;
}

/* Copies the n addresses of a write() into the table's slots. */
int prf_table_fill(struct prf_table *tab, const u64 __user *addrs)
{
	u64 chunk[32];
	u32 i, j, nr;

	for (i = 0; i < tab->n; i += nr) {
		nr = min_t(u32, ARRAY_SIZE(chunk), tab->n - i);
		if (copy_from_user(chunk, addrs + i, nr * sizeof(*chunk)))
			return -EFAULT;
		for (j = 0; j < nr; j++)
			tab->slot[i + j].addr = chunk[j];
	}
	return 0;
}

static void prf_table_release(struct kref *ref)
{
	struct prf_table *tab = container_of(ref, struct prf_table, ref);

	kvfree(tab->index);
	kvfree(tab->slot);
	kfree(tab);
}

/* Another reference to a table the caller holds one of (see prf.h). */
void prf_table_get(struct prf_table *tab)
{
	kref_get(&tab->ref);
}

/* Drops a reference (none for NULL); the last one frees the table. */
void prf_table_put(struct prf_table *tab)
{
	if (tab)
		kref_put(&tab->ref, prf_table_release);
}

/* A new table's counters start at 0 (kvcalloc); this is for PRF_CLEAR. */
void prf_table_zero(struct prf_table *tab)
{
	u32 i;

	for (i = 0; i < tab->n; i++)
		atomic64_set(&tab->slot[i].count, 0);
}

/*
 * Checks that the addresses are strictly ascending and builds the lookup
 * index: buckets of 2^shift bytes from the first address, the smallest power
 * of two that needs no more than 2n buckets to reach the last.
 */
bool prf_table_index(struct prf_table *tab)
{
	const struct prf_slot *a = tab->slot;
	u32 n = tab->n, i, b;
	u64 span;

	for (i = 1; i < n; i++)
		if (a[i].addr <= a[i - 1].addr)
			return false;

	span = a[n - 1].addr - a[0].addr;
	tab->shift = 0;
	while ((span >> tab->shift) > 2 * (u64)n - 1)
		tab->shift++;
	tab->nbuckets = (u32)(span >> tab->shift) + 1;

	i = 0;
	for (b = 0; b < tab->nbuckets; b++) {
		u64 start = (u64)b << tab->shift;	/* offset from a[0] */

		while (i + 1 < n && a[i + 1].addr - a[0].addr <= start)
			i++;
		tab->index[b] = i;
	}
	tab->index[tab->nbuckets] = n - 1;
	return true;
}

/* The slot of the largest address <= pc; pc >= the first address. */
struct prf_slot *prf_table_lookup(const struct prf_table *tab, u64 pc)
{
	const struct prf_slot *slot = tab->slot;
	u64 b = (pc - slot[0].addr) >> tab->shift;
	u32 lo, hi, mid;

	if (b >= tab->nbuckets)
		return &tab->slot[tab->n - 1];
	lo = tab->index[b];
	hi = tab->index[b + 1];
	while (lo < hi) {
		mid = hi - (hi - lo) / 2;
		if (slot[mid].addr <= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	return &tab->slot[lo];
}
