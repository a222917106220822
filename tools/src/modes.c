// SPDX-License-Identifier: GPL-2.0-only
/*
 * modes - what an instance counts (PRF_SETMODE): names, units, the names of
 * counters N and N + 1 per mode, and the alloc modes' per-site detail.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/prf.h>

#include "model.h"
#include "modes.h"
#include "snapshot.h"

static const struct {
	const char *name, *unit, *bucket[2];
} modes[] = {
	[PRF_MODE_TIME] = { "time", "samples", { "user", "idle" } },
	/*
	 * Counters N and N + 1 per mode (uapi/linux/prf.h): allocations whose
	 * call site is below the table, failed allocations; in the calls mode
	 * the table's addresses ftrace refused at ON (not calls), and nothing.
	 */
	[PRF_MODE_ALLOC_CALLS] = { "alloc-calls", "allocations", { "outside table", "failed" } },
	[PRF_MODE_ALLOC_BYTES] = { "alloc-bytes", "bytes", { "outside table", "failed" } },
	[PRF_MODE_CALLS] = { "calls", "calls", { "refused", "unused" } },
	/*
	 * Off the CPU: blocked time whose site is below the table or that has
	 * none, and the time tasks waited runnable for a CPU.
	 */
	[PRF_MODE_OFFCPU] = { "offcpu", "nanoseconds", { "outside table", "runnable" } },
};
#define NMODES (sizeof(modes) / sizeof(modes[0]))

const char *mode_name(uint32_t mode)
{
	return mode < NMODES ? modes[mode].name : NULL;
}

int mode_parse(const char *s)
{
	size_t i;

	for (i = 0; s && i < NMODES; i++)
		if (!strcmp(s, modes[i].name))
			return (int)i;
	return -1;
}

const char *mode_unit(uint32_t mode)
{
	return mode < NMODES ? modes[mode].unit : "events";
}

const char *mode_bucket_name(uint32_t mode, int which)
{
	return mode < NMODES ? modes[mode].bucket[which ? 1 : 0] : which ? "N+1" : "N";
}

uint32_t report_mode(const struct report *r)
{
	return r->b && r->b->ext ? r->b->ext->mode : r->mode;
}

const char *fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", v);
		return buf;
	}
	while (d >= 1024 && u < 3) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", d, unit[u]);
	return buf;
}

const char *fmt_time_ns(uint64_t v, char *buf, size_t len)
{
	if (v < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", v);
	else if (v < 1000000)
		snprintf(buf, len, "%.1f us", (double)v / 1e3);
	else if (v < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)v / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)v / 1e9);
	return buf;
}

const char *fmt_count(uint32_t mode, uint64_t v, char *buf, size_t len)
{
	if (mode == PRF_MODE_ALLOC_BYTES)
		return fmt_bytes(v, buf, len);
	if (mode == PRF_MODE_OFFCPU)
		return fmt_time_ns(v, buf, len);
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

void mode_header(FILE *out, const struct report *r)
{
	const struct snap_ext *x = r->b ? r->b->ext : NULL;
	uint32_t m = report_mode(r);

	if (!x)
		return;
	if (m != PRF_MODE_TIME)
		fprintf(out, "mode %s: counts %s; counter N: %s, N + 1: %s\n",
			mode_name(m) ? mode_name(m) : "?", mode_unit(m), mode_bucket_name(m, 0),
			mode_bucket_name(m, 1));
	if (x->depth)
		fprintf(out, "stacks: depth %u, capacity %u\n", x->depth, x->capacity);
}

/* One site's detail between the report's two snapshots. */
static struct snap_site site_delta(const struct report *r, size_t i)
{
	const struct snap_ext *xa = r->a ? r->a->ext : NULL, *xb = r->b->ext;
	struct snap_site d = xb->sites[i];

	if (xa && xa->nsites == xb->nsites) {
		const struct snap_site *a = &xa->sites[i];

		d.allocs -= a->allocs <= d.allocs ? a->allocs : d.allocs;
		d.bytes_req -= a->bytes_req <= d.bytes_req ? a->bytes_req : d.bytes_req;
		d.bytes_alloc -= a->bytes_alloc <= d.bytes_alloc ? a->bytes_alloc : d.bytes_alloc;
		d.frees -= a->frees <= d.frees ? a->frees : d.frees;
		d.bytes_freed -= a->bytes_freed <= d.bytes_freed ? a->bytes_freed : d.bytes_freed;
		d.frees_unseen -= a->frees_unseen <= d.frees_unseen ? a->frees_unseen :
				  d.frees_unseen;
		d.bytes_unseen -= a->bytes_unseen <= d.bytes_unseen ? a->bytes_unseen :
				  d.bytes_unseen;
	}
	return d;
}

/* What the allocations of a site still hold as far as prf can tell. */
static uint64_t site_held(const struct snap_site *d)
{
	uint64_t gone = d->bytes_freed + d->bytes_unseen;

	return d->bytes_alloc > gone ? d->bytes_alloc - gone : 0;
}

static const char *site_name(const struct report *r, size_t i)
{
	if (i < r->t->n)
		return r->t->e[i].name;
	return i == r->t->n ? "[outside table]" : "[failed]";
}

static int cmp_site(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;	/* bytes_alloc, allocs, index */

	if (a[0] != b[0])
		return a[0] > b[0] ? -1 : 1;
	if (a[1] != b[1])
		return a[1] > b[1] ? -1 : 1;
	return a[2] < b[2] ? -1 : a[2] > b[2];
}

void sites_print(FILE *out, const struct report *r, const struct report_opts *o)
{
	const struct snap_ext *x = r->b ? r->b->ext : NULL;
	uint64_t (*k)[3], unseen = 0, unseen_bytes = 0;
	size_t i, n = 0;
	char b[32];

	if (!x || !x->nsites || x->nsites != r->t->n + 2)
		return;
	k = calloc(x->nsites, sizeof(*k));
	if (!k)
		return;
	for (i = 0; i < x->nsites; i++) {
		struct snap_site d = site_delta(r, i);

		if (!d.allocs && !d.frees && !d.frees_unseen)
			continue;
		if (o->modules && i < r->t->n && !report_in_list(o->modules, report_module(r->t, i)))
			continue;
		k[n][0] = d.bytes_alloc;
		k[n][1] = d.allocs;
		k[n][2] = i;
		n++;
		unseen += d.frees_unseen;
		unseen_bytes += d.bytes_unseen;
	}
	qsort(k, n, sizeof(*k), cmp_site);
	if (o->max_rows && n > o->max_rows)
		n = o->max_rows;
	if (o->format == FMT_CSV)
		fprintf(out, "site,module,allocs,bytes_requested,bytes_allocated,frees,bytes_freed,"
			"bytes_held,frees_unseen,bytes_unseen\n");
	else if (o->format == FMT_JSON)
		fprintf(out, "  \"sites\": [");
	else
		fprintf(out, "\nper call site (%s): allocations, bytes requested and allocated, "
			"frees seen and not seen, bytes still held\n%10s %10s %10s %8s %8s %10s  %s\n",
			mode_name(x->mode) ? mode_name(x->mode) : "?", "allocs", "requested",
			"allocated", "frees", "unseen", "held", "site");
	for (i = 0; i < n; i++) {
		size_t idx = (size_t)k[i][2];
		struct snap_site d = site_delta(r, idx);
		uint64_t held = site_held(&d);
		const char *name = site_name(r, idx);
		const char *mod = idx < r->t->n ? report_module(r->t, idx) : "";
		char b1[32], b2[32], b3[32];

		if (o->format == FMT_CSV) {
			fprintf(out, "%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", name, mod, d.allocs,
				d.bytes_req, d.bytes_alloc, d.frees, d.bytes_freed, held,
				d.frees_unseen, d.bytes_unseen);
		} else if (o->format == FMT_JSON) {
			fprintf(out, "%s\n    {\"site\": \"", i ? "," : "");
			for (; *name; name++)
				fprintf(out, *name == '"' || *name == '\\' ? "\\%c" : "%c", *name);
			fprintf(out, "\", \"module\": \"%s\", \"allocs\": %" PRIu64
				", \"bytes_requested\": %" PRIu64 ", \"bytes_allocated\": %" PRIu64
				", \"frees\": %" PRIu64 ", \"bytes_freed\": %" PRIu64
				", \"frees_unseen\": %" PRIu64 ", \"bytes_unseen\": %" PRIu64
				", \"bytes_held\": %" PRIu64 "}", mod, d.allocs, d.bytes_req,
				d.bytes_alloc, d.frees, d.bytes_freed, d.frees_unseen,
				d.bytes_unseen, held);
		} else {
			fprintf(out, "%10" PRIu64 " %10s %10s %8" PRIu64 " %8" PRIu64 " %10s  %s%s%s%s\n",
				d.allocs, fmt_bytes(d.bytes_req, b1, sizeof(b1)),
				fmt_bytes(d.bytes_alloc, b2, sizeof(b2)), d.frees, d.frees_unseen,
				fmt_bytes(held, b3, sizeof(b3)), name, *mod ? " [" : "", mod,
				*mod ? "]" : "");
		}
	}
	if (o->format == FMT_JSON) {
		fprintf(out, "%s],\n", n ? "\n  " : "");
	} else if (o->format != FMT_CSV) {
		fprintf(out, "unseen: frees prf cannot see, found when the address was allocated "
			"again (not held): %" PRIu64 ", %s\n(kmem_cache_free_bulk(), kfree_bulk() and "
			"kfree_rcu()'s batches fire no free tracepoint: until its address is allocated "
			"again, such an allocation counts as held)\n", unseen,
			fmt_bytes(unseen_bytes, b, sizeof(b)));
	}
	free(k);
}
