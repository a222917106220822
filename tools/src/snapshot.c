// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot - write, append and read prf snapshot files.
 *
 * Every integer is little-endian whatever the host; every record carries
 * its length and a CRC32 (zlib's, the ISO-HDLC one) over its header and
 * payload, so truncation and corruption are told apart from a good file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "err.h"
#include "libprf.h"
#include <linux/prf.h>

#include "snapshot.h"
#include "vdso.h"

/* Strings equal, NULL as "" (a frame's or an entry's module). */
static int streq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* ---- encoding ---- */

void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static unsigned char *buf_room(struct buf *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

/*
 * Room for n more bytes, allocated exactly: for a record whose size is known
 * before it is written (a table of the whole kallsyms is megabytes, and
 * buf_room's doubling would take up to twice that at the daemon's peak).
 */
static void buf_reserve(struct buf *b, size_t n)
{
	unsigned char *p;

	if (b->oom || b->len + n <= b->cap)
		return;
	p = realloc(b->p, b->len + n);
	if (!p) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = b->len + n;
}

static void put_le(struct buf *b, uint64_t v, int bytes)
{
	unsigned char *p = buf_room(b, (size_t)bytes);
	int i;

	if (!p)
		return;
	for (i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u8(struct buf *b, unsigned v) { put_le(b, v, 1); }
static void put_u16(struct buf *b, unsigned v) { put_le(b, v, 2); }
static void put_u32(struct buf *b, uint32_t v) { put_le(b, v, 4); }
static void put_u64(struct buf *b, uint64_t v) { put_le(b, v, 8); }

static void put_str(struct buf *b, const char *s)
{
	size_t l = s ? strlen(s) : 0;
	unsigned char *p;

	if (l > 0xffff)
		l = 0xffff;
	put_u16(b, (unsigned)l);
	p = buf_room(b, l);
	if (p && l)
		memcpy(p, s, l);
}

/* LEB128: 7 bits a byte, low first, the top bit set on all but the last. */
static void put_varint(struct buf *b, uint64_t v)
{
	do {
		put_u8(b, (unsigned)(v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Start a record; returns its offset for finish_record. */
static size_t start_record_v(struct buf *b, unsigned type, unsigned version)
{
	size_t at = b->len;
	unsigned char *p = buf_room(b, 4);

	if (p)
		memcpy(p, SNAP_MAGIC, 4);
	put_u16(b, version);
	put_u16(b, type);
	put_u32(b, 0);		/* payload length, set below */
	put_u32(b, 0);		/* CRC32, set below */
	return at;
}

static size_t start_record(struct buf *b, unsigned type)
{
	return start_record_v(b, type, SNAP_VERSION);
}

static void finish_record(struct buf *b, size_t at)
{
	uint64_t plen;
	uLong crc;
	unsigned char *h;
	int i;

	put_u32(b, (uint32_t)(b->len + 4 - at));	/* the record's size, last */
	if (b->oom)
		return;
	h = b->p + at;
	plen = b->len - at - SNAP_HDR_SIZE;
	if (plen > 0xffffffffu) {
		b->oom = 1;
		return;
	}
	for (i = 0; i < 4; i++)
		h[8 + i] = (unsigned char)(plen >> (8 * i));
	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, 12);
	crc = crc32(crc, h + SNAP_HDR_SIZE, (uInt)plen);
	for (i = 0; i < 4; i++)
		h[12 + i] = (unsigned char)(crc >> (8 * i));
}

/* put_str's size of s: its length (at most 0xffff) and the bytes. */
static size_t str_size(const char *s)
{
	size_t l = s ? strlen(s) : 0;

	return 2 + (l > 0xffff ? 0xffff : l);
}

/* The plain table record (type 1, version 2) of t, appended to b. */
static void encode_table_plain(struct buf *b, const struct snap_table *t)
{
	size_t at, i, need = SNAP_HDR_SIZE + 4 + 4 + 8 + 8 + 4;

	/* the header, id, pad, text, n, the entries, the size at the end */
	for (i = 0; i < t->n; i++)
		need += 8 + 1 + 1 + str_size(t->e[i].name) + str_size(t->e[i].module);
	buf_reserve(b, need);
	at = start_record(b, SNAP_REC_TABLE);

	put_u32(b, t->id);
	put_u32(b, 0);
	put_u64(b, t->text);
	put_u64(b, t->n);
	for (i = 0; i < t->n; i++) {
		put_u64(b, t->e[i].addr);
		put_u8(b, t->e[i].kind);
		put_u8(b, 0);
		put_str(b, t->e[i].name);
		put_str(b, t->e[i].module);
	}
	finish_record(b, at);
}

static int table_z = 1;

/*
 * Whether this process writes a kernel-sized table compressed (the
 * default) or plain: prf record's report file, when it makes one of its
 * own, is read back at once and removed, where deflating and inflating
 * it was all cost.
 */
void snap_table_z(int on)
{
	table_z = on;
}

/*
 * The table record of t, appended to b: the plain one (type 1), or when its
 * payload takes SNAP_TABLE_Z_MIN bytes or more (a kernel's names: 1.6 MB
 * for 48,000 of them) and snap_table_z() left compression on, the
 * compressed one (type 7, version 7): the plain
 * payload but its closing size, as a zlib stream (RFC 1950) after its
 * length.  Small tables stay readable by a reader of version 2.  Returns
 * the crc of the plain record, which is what a snapshot names its table by
 * whichever was written (SNAPSHOT.md), so that an append finds the same
 * table whatever zlib made of it.  0 with b->oom set on failure.  Level
 * SNAP_ZLEVEL: prfsnap, prfdc and prf record write a table each run, and
 * the table's deflate was a third of their start in a guest.  Measured on
 * a host kernel's 4.4 MB table payload, deflate at levels 1, 4, 6 and 9
 * took 40, 46, 95 and 589 ms and gave 996, 828, 863 and 883 KB: 4 is
 * twice as fast as zlib's default and smaller than it here.
 */
static uint32_t encode_table(struct buf *b, const struct snap_table *t)
{
	struct buf plain = { 0 };
	uint32_t crc;
	size_t at, raw;
	uLongf zlen;

	encode_table_plain(&plain, t);
	if (plain.oom) {
		b->oom = 1;
		return 0;
	}
	crc = (uint32_t)get_le(plain.p + 12, 4);
	raw = plain.len - SNAP_HDR_SIZE - 4;
	if (raw < SNAP_TABLE_Z_MIN || !table_z) {
		unsigned char *p = buf_room(b, plain.len);

		if (p)
			memcpy(p, plain.p, plain.len);
		buf_free(&plain);
		return crc;
	}
	zlen = compressBound((uLong)raw);
	buf_reserve(b, SNAP_HDR_SIZE + 4 + zlen + 4);
	at = start_record_v(b, SNAP_REC_TABLE_Z, SNAP_VERSION_TABLE_Z);
	put_u32(b, (uint32_t)raw);
	if (!buf_room(b, zlen) ||
	    compress2(b->p + b->len - zlen, &zlen, plain.p + SNAP_HDR_SIZE, (uLong)raw,
		      SNAP_ZLEVEL) != Z_OK) {
		b->oom = 1;
		buf_free(&plain);
		return 0;
	}
	b->len -= compressBound((uLong)raw) - zlen;
	finish_record(b, at);
	buf_free(&plain);
	return crc;
}

void snap_encode_table(struct buf *b, const struct snap_table *t)
{
	encode_table(b, t);
}

static int site_zero(const struct snap_site *si)
{
	return !si->allocs && !si->frees && !si->bytes_alloc && !si->bytes_req &&
	       !si->bytes_freed && !si->frees_unseen && !si->bytes_unseen;
}

/* The fields an extension record and a delta extension record both start with. */
static void put_ext_head(struct buf *b, const struct snapshot *s)
{
	const struct snap_ext *x = s->ext;

	put_u32(b, s->table_id);
	put_u32(b, s->table_crc);
	put_u32(b, x->mode);
	put_u32(b, x->depth);
	put_u32(b, x->capacity);
	put_u32(b, 0);
	put_u64(b, x->mode_dropped);
	put_u64(b, x->stacks_dropped);
}

/* A stack: count, flags, its number of frames, their indices. */
static void put_stack(struct buf *b, const struct snap_stack *st)
{
	uint32_t k;

	put_varint(b, st->count);
	put_varint(b, st->flags);
	put_varint(b, st->nr);
	for (k = 0; k < st->nr; k++)
		put_varint(b, st->f[k]);
}

/*
 * The extension record (type 3, version 3): it belongs to the snapshot
 * record just before it.  A reader of version 2 refuses it by its version.
 * Version 4 when a site has frees prf did not see (their two counts follow
 * each site's five), so that a file without any stays readable by a reader
 * of version 3.
 */
static void encode_ext(struct buf *b, const struct snapshot *s)
{
	const struct snap_ext *x = s->ext;
	unsigned version = SNAP_VERSION_EXT;
	size_t at, i, nz, last;

	for (i = 0; i < x->nsites; i++)
		if (x->sites[i].frees_unseen || x->sites[i].bytes_unseen)
			version = SNAP_VERSION_UNSEEN;
	at = start_record_v(b, SNAP_REC_EXT, version);

	put_ext_head(b, s);
	put_varint(b, x->nframes);
	for (i = 0; i < x->nframes; i++) {
		put_u64(b, x->frames[i].addr);
		put_str(b, x->frames[i].name);
		put_str(b, x->frames[i].module);
	}
	put_varint(b, x->nstacks);
	for (i = 0; i < x->nstacks; i++)
		put_stack(b, &x->stacks[i]);
	put_varint(b, x->nsites);
	for (i = 0, nz = 0; i < x->nsites; i++)
		nz += !site_zero(&x->sites[i]);
	put_varint(b, nz);
	for (i = 0, last = 0; i < x->nsites; i++) {
		const struct snap_site *si = &x->sites[i];

		if (site_zero(si))
			continue;
		put_varint(b, i - last);
		put_varint(b, si->allocs);
		put_varint(b, si->bytes_req);
		put_varint(b, si->bytes_alloc);
		put_varint(b, si->frees);
		put_varint(b, si->bytes_freed);
		if (version >= SNAP_VERSION_UNSEEN) {
			put_varint(b, si->frees_unseen);
			put_varint(b, si->bytes_unseen);
		}
		last = i + 1;
	}
	finish_record(b, at);
}

/* ---- the delta extension record (type 6) ---- */

/*
 * What a delta extension record holds of x against its base b: which of
 * x's frames are new, each base stack's increase (every base stack is one
 * of x's), which of x's stacks are new.
 */
struct ext_plan {
	unsigned char *fnew;	/* x->nframes: not a frame of b */
	size_t nfnew;
	uint64_t *grow;		/* b->nstacks, by rank: the stack's increase */
	size_t ngrow;		/* of them not 0 */
	unsigned char *snew;	/* x->nstacks: not a stack of b */
	size_t nsnew;
};

static void ext_plan_free(struct ext_plan *p)
{
	free(p->fnew);
	free(p->grow);
	free(p->snew);
	memset(p, 0, sizeof(*p));
}

/* Stack a of x against b of y: by flags, depth, then their frames' addresses. */
static int stack_cmp(const struct snap_ext *x, const struct snap_stack *a,
		     const struct snap_ext *y, const struct snap_stack *b)
{
	uint32_t k;

	if (a->flags != b->flags)
		return a->flags < b->flags ? -1 : 1;
	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	for (k = 0; k < a->nr; k++) {
		uint64_t fa = x->frames[a->f[k]].addr, fb = y->frames[b->f[k]].addr;

		if (fa != fb)
			return fa < fb ? -1 : 1;
	}
	return 0;
}

/* qsort_r's form of stack_cmp, over indices into arg's stacks. */
static int stack_order(const void *pa, const void *pb, void *arg)
{
	const struct snap_ext *x = arg;

	return stack_cmp(x, &x->stacks[*(const size_t *)pa], x, &x->stacks[*(const size_t *)pb]);
}

/*
 * x's stacks in stack_order (NULL: no memory): a delta extension record
 * names its base's stacks by their rank in it, whatever order either side
 * holds them in.
 */
static size_t *stacks_ranked(const struct snap_ext *x)
{
	size_t *v = malloc((x->nstacks ? x->nstacks : 1) * sizeof(*v)), i;

	if (!v)
		return NULL;
	for (i = 0; i < x->nstacks; i++)
		v[i] = i;
	qsort_r(v, x->nstacks, sizeof(*v), stack_order, (void *)x);
	return v;
}

static int site_below(const struct snap_site *x, const struct snap_site *b)
{
	return x->allocs < b->allocs || x->bytes_req < b->bytes_req ||
	       x->bytes_alloc < b->bytes_alloc || x->frees < b->frees ||
	       x->bytes_freed < b->bytes_freed || x->frees_unseen < b->frees_unseen ||
	       x->bytes_unseen < b->bytes_unseen;
}

/* x's frames against b's: every one of b's among them, named the same. */
static int plan_frames(const struct snap_ext *x, const struct snap_ext *b, struct ext_plan *p)
{
	size_t i, j = 0;

	p->fnew = calloc(x->nframes ? x->nframes : 1, 1);
	if (!p->fnew)
		return 0;
	for (i = 0; i < x->nframes; i++) {
		if (j < b->nframes && b->frames[j].addr < x->frames[i].addr)
			return 0;	/* a frame of b's no stack of x's has */
		if (j < b->nframes && b->frames[j].addr == x->frames[i].addr) {
			if (!streq(b->frames[j].name, x->frames[i].name) ||
			    !streq(b->frames[j].module, x->frames[i].module))
				return 0;	/* named otherwise (another BPF program) */
			j++;
		} else {
			p->fnew[i] = 1;
			p->nfnew++;
		}
	}
	return j == b->nframes;
}

/*
 * x's stacks against b's, both walked in stack_order: every one of b's
 * among them, none counting less, and none of b's twice (its rank would
 * not say which).
 */
static int plan_stacks(const struct snap_ext *x, const struct snap_ext *b, struct ext_plan *p)
{
	size_t *xr = stacks_ranked(x), *br = stacks_ranked(b), i = 0, j = 0;
	int ok = 0;

	p->grow = calloc(b->nstacks ? b->nstacks : 1, sizeof(*p->grow));
	p->snew = calloc(x->nstacks ? x->nstacks : 1, 1);
	if (!xr || !br || !p->grow || !p->snew)
		goto out;
	while (j < b->nstacks) {
		const struct snap_stack *bs = &b->stacks[br[j]], *xs;
		int c = i < x->nstacks ? stack_cmp(x, &x->stacks[xr[i]], b, bs) : 1;

		if (c < 0) {
			p->snew[xr[i++]] = 1;
			p->nsnew++;
			continue;
		}
		if (c > 0)
			goto out;	/* gone: the table was cleared */
		xs = &x->stacks[xr[i]];
		if (xs->count < bs->count || (j && !stack_cmp(b, &b->stacks[br[j - 1]], b, bs)))
			goto out;	/* counting less (a reset), or twice */
		p->grow[j] = xs->count - bs->count;
		p->ngrow += p->grow[j] != 0;
		i++;
		j++;
	}
	for (; i < x->nstacks; i++) {
		p->snew[xr[i]] = 1;
		p->nsnew++;
	}
	ok = 1;
out:
	free(xr);
	free(br);
	return ok;
}

/*
 * Can x be written against b (b's record written, so b needs one)?  1 and
 * the plan, or 0: a full extension record (no memory for the plan either).
 */
static int ext_delta_plan(const struct snap_ext *x, const struct snap_ext *b, struct ext_plan *p)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	if (b->nsites && x->nsites != b->nsites)
		return 0;
	for (i = 0; b->nsites && i < x->nsites; i++)
		if (site_below(&x->sites[i], &b->sites[i]))
			return 0;
	if (!plan_frames(x, b, p) || !plan_stacks(x, b, p)) {
		ext_plan_free(p);
		return 0;
	}
	return 1;
}

/* A site's seven counts less its base's (zeros: none). */
static void put_site_delta(struct buf *b, const struct snap_site *x, const struct snap_site *base)
{
	static const struct snap_site none;

	if (!base)
		base = &none;
	put_varint(b, x->allocs - base->allocs);
	put_varint(b, x->bytes_req - base->bytes_req);
	put_varint(b, x->bytes_alloc - base->bytes_alloc);
	put_varint(b, x->frees - base->frees);
	put_varint(b, x->bytes_freed - base->bytes_freed);
	put_varint(b, x->frees_unseen - base->frees_unseen);
	put_varint(b, x->bytes_unseen - base->bytes_unseen);
}

static int site_changed(const struct snap_ext *x, const struct snap_ext *base, size_t i)
{
	return base->nsites ? memcmp(&x->sites[i], &base->sites[i], sizeof(x->sites[i])) != 0 :
			      !site_zero(&x->sites[i]);
}

/*
 * The delta extension record (type 6, version 6) of a delta record: the
 * extension's fixed fields, then only what changed since base, the
 * extension of the snapshot the delta record counts from (SNAPSHOT.md).
 * x's frames are base's and the new ones, both ascending, so a new stack's
 * frame indices are x's own.
 */
static void encode_ext_delta(struct buf *b, const struct snapshot *s,
			     const struct snap_ext *base, const struct ext_plan *p)
{
	const struct snap_ext *x = s->ext;
	size_t at = start_record_v(b, SNAP_REC_EXT_DELTA, SNAP_VERSION_EXT_DELTA);
	size_t i, nz, last;

	put_ext_head(b, s);
	put_varint(b, p->nfnew);
	for (i = 0; i < x->nframes; i++) {
		if (!p->fnew[i])
			continue;
		put_u64(b, x->frames[i].addr);
		put_str(b, x->frames[i].name);
		put_str(b, x->frames[i].module);
	}
	put_varint(b, p->ngrow);
	for (i = 0, last = 0; i < base->nstacks; i++) {
		if (!p->grow[i])
			continue;
		put_varint(b, i - last);
		put_varint(b, p->grow[i]);
		last = i + 1;
	}
	put_varint(b, p->nsnew);
	for (i = 0; i < x->nstacks; i++)
		if (p->snew[i])
			put_stack(b, &x->stacks[i]);
	put_varint(b, x->nsites);
	for (i = 0, nz = 0; i < x->nsites; i++)
		nz += site_changed(x, base, i);
	put_varint(b, nz);
	for (i = 0, last = 0; i < x->nsites; i++) {
		if (!site_changed(x, base, i))
			continue;
		put_varint(b, i - last);
		put_site_delta(b, &x->sites[i], base->nsites ? &base->sites[i] : NULL);
		last = i + 1;
	}
	finish_record(b, at);
}

/*
 * The source record (type 4, version 3): the PMU source of the snapshot
 * before it (after its extension record when it has one).  A record of
 * its own, so that the extension's layout is left alone; a reader that
 * does not know the type refuses the file, naming it.
 */
static void encode_source(struct buf *b, const struct snapshot *s)
{
	const struct snap_ext *x = s->ext;
	size_t at = start_record_v(b, SNAP_REC_SOURCE, SNAP_VERSION_EXT);

	put_u32(b, s->table_id);
	put_u32(b, s->table_crc);
	put_u32(b, x->source);
	put_u32(b, x->event);
	put_u64(b, x->period);
	put_u64(b, x->pmu_count);
	put_u64(b, x->pmu_enabled_ns);
	put_u64(b, x->pmu_running_ns);
	put_u64(b, x->samples_nmi);
	put_u64(b, x->ticks_sampled);
	put_u64(b, x->pmu_throttled);
	finish_record(b, at);
}

/* A file of the user objects table: its identity, flags and path. */
static void put_uobj_file(struct buf *b, const struct prf_uobj_file *f)
{
	put_u32(b, f->major);
	put_u32(b, f->minor);
	put_u64(b, f->ino);
	put_u32(b, f->flags);
	put_str(b, f->path);
}

/* Whether some entry or frame of code of no file has its process (.pid). */
static int uobjs_have_pid(const struct snap_uobjs *u)
{
	uint32_t i, j;

	for (i = 0; i < u->h.nr; i++)
		if (u->e[i].file == PRF_UOBJ_ANON && u->e[i].pid)
			return 1;
	for (i = 0; u->chains_on && i < u->ch.nr; i++) {
		const struct prf_uchain *c = (const void *)((const char *)u->recs +
			(size_t)i * PRF_UCHAIN_RECORD_SIZE(u->ch.depth));
		const struct prf_uframe *fr = (const void *)(c + 1);

		for (j = 0; j < c->nr_frames; j++)
			if (fr[j].file == PRF_UOBJ_ANON && fr[j].pid)
				return 1;
	}
	return 0;
}

/* Whether some file of the table, its chains' or its pairs' is the vDSO. */
static int uobjs_have_vdso(const struct snap_uobjs *u)
{
	uint32_t i;

	for (i = 0; i < u->h.nfiles; i++)
		if (u->f[i].flags & PRF_UOBJ_VDSO_IMAGE)
			return 1;
	for (i = 0; u->chains_on && i < u->ch.nfiles; i++)
		if (u->cf[i].flags & PRF_UOBJ_VDSO_IMAGE)
			return 1;
	for (i = 0; u->chains_on && u->pairs_on && i < u->ph.nfiles; i++)
		if (u->pf[i].flags & PRF_UOBJ_VDSO_IMAGE)
			return 1;
	return 0;
}

/* A user frame: its file index + 1 (0 no file, then its pid), its offset. */
static void put_uframe(struct buf *b, const struct prf_uframe *fr)
{
	put_varint(b, fr->file == PRF_UOBJ_ANON ? 0 : (uint64_t)fr->file + 1);
	if (fr->file == PRF_UOBJ_ANON)
		put_varint(b, fr->pid);
	put_varint(b, fr->offset);
}

/*
 * The pairs of a kernel stack and a chain (version 10, after the chains):
 * the table's counts, its own files, then each pair: its count, the
 * kernel side (flags, PCs as 8 bytes each, leaf first), the user side
 * (flags, frames as the chains', leaf first).
 */
static void encode_upairs(struct buf *b, const struct snap_uobjs *u)
{
	const struct prf_upairs *ph = &u->ph;
	uint32_t i, j;

	put_u32(b, ph->used);
	put_u32(b, ph->capacity);
	put_u32(b, ph->depth);
	put_u32(b, ph->udepth);
	put_u32(b, ph->files_used);
	put_u64(b, ph->dropped);
	put_varint(b, ph->nfiles);
	for (i = 0; i < ph->nfiles; i++)
		put_uobj_file(b, &u->pf[i]);
	put_varint(b, ph->nr);
	for (i = 0; i < ph->nr; i++) {
		const struct prf_upair *c = prf_upair_at(u->precs, ph->depth, ph->udepth, i);
		const __u64 *pc = prf_upair_pcs(c);
		const struct prf_uframe *fr = prf_upair_frames(c, ph->depth);
		uint32_t np = c->nr_pcs < ph->depth ? c->nr_pcs : ph->depth;
		uint32_t nf = c->nr_frames < ph->udepth ? c->nr_frames : ph->udepth;

		put_varint(b, c->count);
		put_varint(b, c->kflags);
		put_varint(b, np);
		for (j = 0; j < np; j++)
			put_u64(b, pc[j]);
		put_varint(b, c->uflags);
		put_varint(b, nf);
		for (j = 0; j < nf; j++)
			put_uframe(b, &fr[j]);
	}
}

/*
 * The user objects record (type 8, version 8) of the snapshot before it,
 * after its extension and source records: the table as the device gave it,
 * named when read.  A file index is written as index + 1, 0 for
 * PRF_UOBJ_ANON.  A reader of version 7 or older refuses it by its version.
 * Version 9 when code of no file has its process (the JIT maps are named
 * by it): such an entry's and frame's index is followed by the pid; a
 * reader of version 8 refuses it by its version.  Version 10 (the pids as
 * in 9) when the chains have their pairs with kernel stacks (prf record
 * -g, prfsnap): the pairs follow the chains; a reader of version 9 refuses
 * it by its version.  Version 11 (pids as in 9) when a file is the vDSO
 * (PRF_UOBJ_VDSO_IMAGE): after the chains a word says whether the pairs
 * follow, and the vDSO's build ID ends it (the table's, else this
 * process's: read from the device of the kernel it runs on), so that a
 * reader names its functions only when its own vDSO is that one; a reader
 * of version 10 refuses it by its version.
 */
static void encode_uobjs(struct buf *b, const struct snapshot *s)
{
	const struct snap_uobjs *u = s->uobjs;
	int pairs = u->chains_on && u->pairs_on;
	int vdso = uobjs_have_vdso(u);
	int pid = vdso || pairs || uobjs_have_pid(u);
	size_t at = start_record_v(b, SNAP_REC_UOBJS,
				   vdso ? SNAP_VERSION_UOBJS_VDSO :
				   pairs ? SNAP_VERSION_UOBJS_PAIRS :
				   pid ? SNAP_VERSION_UOBJS_PID : SNAP_VERSION_UOBJS);
	uint32_t i, j;

	put_u32(b, s->table_id);
	put_u32(b, s->table_crc);
	put_u32(b, u->h.used);
	put_u32(b, u->h.capacity);
	put_u32(b, u->h.files_used);
	put_u32(b, u->h.files_max);
	put_u64(b, u->h.lost);
	put_u64(b, u->h.dropped);
	put_u64(b, u->h.unmapped);
	put_varint(b, u->h.nfiles);
	for (i = 0; i < u->h.nfiles; i++)
		put_uobj_file(b, &u->f[i]);
	put_varint(b, u->h.nr);
	for (i = 0; i < u->h.nr; i++) {
		put_varint(b, u->e[i].file == PRF_UOBJ_ANON ? 0 : (uint64_t)u->e[i].file + 1);
		if (pid && u->e[i].file == PRF_UOBJ_ANON)
			put_varint(b, u->e[i].pid);
		put_varint(b, u->e[i].offset);
		put_varint(b, u->e[i].count);
	}
	put_u32(b, u->chains_on ? 1 : 0);
	if (u->chains_on) {
		put_u32(b, u->ch.used);
		put_u32(b, u->ch.capacity);
		put_u32(b, u->ch.depth);
		put_u32(b, u->ch.files_used);
		put_u64(b, u->ch.dropped);
		put_varint(b, u->ch.nfiles);
		for (i = 0; i < u->ch.nfiles; i++)
			put_uobj_file(b, &u->cf[i]);
		put_varint(b, u->ch.nr);
		for (i = 0; i < u->ch.nr; i++) {
			const struct prf_uchain *c = (const void *)((const char *)u->recs +
				(size_t)i * PRF_UCHAIN_RECORD_SIZE(u->ch.depth));
			const struct prf_uframe *fr = (const void *)(c + 1);

			put_varint(b, c->count);
			put_varint(b, c->flags);
			put_varint(b, c->nr_frames);
			for (j = 0; j < c->nr_frames; j++) {
				put_varint(b, fr[j].file == PRF_UOBJ_ANON ? 0 :
					   (uint64_t)fr[j].file + 1);
				if (pid && fr[j].file == PRF_UOBJ_ANON)
					put_varint(b, fr[j].pid);
				put_varint(b, fr[j].offset);
			}
		}
	}
	if (vdso)
		put_u32(b, pairs ? 1 : 0);
	if (pairs)
		encode_upairs(b, u);
	if (vdso) {
		const struct vdso *v = u->vdso_id ? NULL : vdso_own(NULL, 0);

		put_str(b, u->vdso_id ? u->vdso_id : v ? v->build_id : "");
	}
	finish_record(b, at);
}

/*
 * Whether a snapshot needs its extension record: what it holds beyond the
 * source (the time mode, no stacks, no sites and nothing dropped is none).
 */
static int ext_needed(const struct snap_ext *x)
{
	return !x->has_source || x->mode != PRF_MODE_TIME || x->depth || x->nsites ||
	       x->nstacks || x->mode_dropped || x->stacks_dropped;
}

/* Can s be written as deltas against s->delta_base (no counter went back)? */
static int delta_ok(const struct snapshot *s)
{
	uint64_t i;

	if (!s->delta_base)
		return 0;
	for (i = 0; i < s->n + 2; i++)
		if (s->counts[i] < s->delta_base[i])
			return 0;
	return 1;
}

/*
 * The snapshot record (type 2), or, when s->delta_base is set and no
 * counter is below it, the delta record (type 5, version 5): the same
 * fields, the crc of the snapshot record before it, and the counters that
 * changed as (index gap, increase).  A reader of version 4 refuses it by
 * its version.
 */
void snap_encode_snapshot(struct buf *b, const struct snapshot *s)
{
	int delta = delta_ok(s);
	size_t at = delta ? start_record_v(b, SNAP_REC_DELTA, SNAP_VERSION_DELTA) :
			    start_record(b, SNAP_REC_SNAP);
	const uint64_t *base = s->delta_base;
	uint64_t i, nz, last;

	put_u32(b, s->table_id);
	put_u32(b, (uint32_t)s->cpu);
	put_u32(b, s->ncpus);
	put_u32(b, s->online);
	put_u32(b, s->hz);
	put_u32(b, s->usec_per_tick);
	put_u32(b, s->status);
	put_u32(b, s->flags);
	put_u64(b, (uint64_t)s->time_ns);
	put_u64(b, s->n);
	put_u32(b, s->info_size);
	put_u32(b, s->table_crc);
	put_u64(b, s->max_addrs);
	put_u64(b, s->ticks_total);
	put_u64(b, s->ticks_outside);
	put_u64(b, s->ticks_user);
	put_u64(b, s->ticks_idle);
	put_u64(b, s->ticks_lost);
	put_u64(b, s->on_ns);
	put_u64(b, s->mem_bytes);
	put_str(b, s->device);
	put_str(b, s->host);
	put_str(b, s->release);
	if (delta) {
		/* Sparse: the counters that grew, each as (index gap, increase). */
		put_u32(b, s->delta_crc);
		for (i = 0, nz = 0; i < s->n + 2; i++)
			nz += s->counts[i] != base[i];
		put_varint(b, nz);
		for (i = 0, last = 0; i < s->n + 2; i++) {
			if (s->counts[i] == base[i])
				continue;
			put_varint(b, i - last);
			put_varint(b, s->counts[i] - base[i]);
			last = i + 1;
		}
		finish_record(b, at);
	} else {
		/* Sparse: the nonzero counters, each as (index gap, value). */
		for (i = 0, nz = 0; i < s->n + 2; i++)
			nz += s->counts[i] != 0;
		put_varint(b, nz);
		for (i = 0, last = 0; i < s->n + 2; i++) {
			if (!s->counts[i])
				continue;
			put_varint(b, i - last);
			put_varint(b, s->counts[i]);
			last = i + 1;
		}
		finish_record(b, at);
	}
	if (s->ext && ext_needed(s->ext)) {
		struct ext_plan p;

		if (delta && s->delta_ext && ext_needed(s->delta_ext) &&
		    ext_delta_plan(s->ext, s->delta_ext, &p)) {
			encode_ext_delta(b, s, s->delta_ext, &p);
			ext_plan_free(&p);
		} else {
			encode_ext(b, s);
		}
	}
	if (s->ext && s->ext->has_source)
		encode_source(b, s);
	if (s->uobjs)
		encode_uobjs(b, s);
}

/* ---- decoding ---- */

struct rd {
	const unsigned char *p;
	size_t len, pos;
	int bad;
};

static uint64_t rd_le(struct rd *r, int bytes)
{
	uint64_t v;

	if (r->bad || r->len - r->pos < (size_t)bytes) {
		r->bad = 1;
		return 0;
	}
	v = get_le(r->p + r->pos, bytes);
	r->pos += (size_t)bytes;
	return v;
}

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0, c;

	do {
		c = (unsigned)rd_le(r, 1);
		if (r->bad || shift > 63 || (shift == 63 && (c & 0x7e))) {
			r->bad = 1;
			return 0;
		}
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

static char *rd_str(struct rd *r, int nullable)
{
	size_t l = (size_t)rd_le(r, 2);
	char *s;

	if (r->bad || r->len - r->pos < l) {
		r->bad = 1;
		return NULL;
	}
	if (!l && nullable)
		return NULL;
	s = malloc(l + 1);
	if (!s) {
		r->bad = 2;
		return NULL;
	}
	memcpy(s, r->p + r->pos, l);
	s[l] = '\0';
	if (memchr(s, '\0', l))
		r->bad = 1;
	r->pos += l;
	return s;
}

void snap_table_free(struct snap_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n && t->e; i++) {
		free(t->e[i].name);
		free(t->e[i].module);
		free(t->e[i].file);
	}
	free(t->e);
	memset(t, 0, sizeof(*t));
}

void snap_ext_free(struct snap_ext *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nframes && x->frames; i++) {
		free(x->frames[i].name);
		free(x->frames[i].module);
	}
	for (i = 0; i < x->nstacks && x->stacks; i++)
		free(x->stacks[i].f);
	free(x->frames);
	free(x->stacks);
	free(x->sites);
	free(x);
}

void snap_uobjs_free(struct snap_uobjs *u)
{
	if (!u)
		return;
	free(u->e);
	free(u->f);
	free(u->recs);
	free(u->cf);
	free(u->precs);
	free(u->pf);
	free(u->vdso_id);
	free(u);
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	snap_ext_free(s->ext);
	snap_uobjs_free(s->uobjs);
	free(s->device);
	free(s->host);
	free(s->release);
	free(s->counts);
	memset(s, 0, sizeof(*s));
}

void snapfile_free(struct snapfile *f)
{
	size_t i;

	for (i = 0; i < f->ntables; i++)
		snap_table_free(&f->tables[i]);
	for (i = 0; i < f->nsnaps; i++)
		snapshot_free(&f->snaps[i]);
	free(f->tables);
	free(f->snaps);
	memset(f, 0, sizeof(*f));
}

static int parse_table(struct rd *r, struct snap_table *t)
{
	uint64_t n, i;

	t->id = (uint32_t)rd_le(r, 4);
	rd_le(r, 4);
	t->text = rd_le(r, 8);
	n = rd_le(r, 8);
	/* Each entry takes at least 14 bytes: a bound before allocating. */
	if (r->bad || n > (r->len - r->pos) / 14)
		return -1;
	t->e = calloc(n ? n : 1, sizeof(*t->e));
	if (!t->e)
		return -2;
	t->n = (size_t)n;
	for (i = 0; i < n && !r->bad; i++) {
		t->e[i].addr = rd_le(r, 8);
		t->e[i].kind = (unsigned)rd_le(r, 1);
		rd_le(r, 1);
		t->e[i].name = rd_str(r, 0);
		t->e[i].module = rd_str(r, 1);
		if (i && t->e[i].addr <= t->e[i - 1].addr && !r->bad)
			r->bad = 1;	/* never written so */
	}
	return r->bad ? -r->bad : 0;
}

/*
 * A compressed table record's payload (type 7) inflated: the plain table
 * payload, in a fresh *out the caller frees.  0; -1 when it does not
 * inflate to exactly the length it says (a corrupt or cut stream; why in
 * *why); -2 no memory.  The length is bounded by what zlib can make of the
 * stream's bytes (at most 1032 to 1) before anything is allocated.
 */
static int inflate_table(struct rd *r, unsigned char **out, struct rd *plain, const char **why)
{
	uint64_t raw = rd_le(r, 4);
	size_t zlen = r->len - r->pos;
	uLongf got;
	int z;

	*out = NULL;
	*why = "no length";
	if (r->bad)
		return -1;
	*why = "a length its stream cannot hold";
	if (raw < 24 || raw > 1032 * (uint64_t)zlen + 64)
		return -1;
	*out = malloc((size_t)raw);
	if (!*out)
		return -2;
	got = (uLongf)raw;
	z = uncompress(*out, &got, r->p + r->pos, (uLong)zlen);
	if (z == Z_MEM_ERROR)
		return -2;
	if (z != Z_OK || got != raw) {
		*why = z == Z_BUF_ERROR ? "its stream inflates to more than its length" :
		       z == Z_OK ? "its stream inflates to less than its length" :
		       "its stream does not inflate (corrupt or cut)";
		return -1;
	}
	r->pos = r->len;
	plain->p = *out;
	plain->len = (size_t)raw;
	plain->pos = 0;
	plain->bad = 0;
	return 0;
}

/*
 * A snapshot record's payload.  f: the tables read so far (the counters are
 * only allocated for a table that exists, of the same N).  0, -1 malformed,
 * -2 no memory, -3 no such table.
 */
static int parse_snap(struct rd *r, struct snapshot *s, const struct snapfile *f)
{
	uint64_t i, nz, idx;

	s->table_id = (uint32_t)rd_le(r, 4);
	s->cpu = (int32_t)(uint32_t)rd_le(r, 4);
	s->ncpus = (uint32_t)rd_le(r, 4);
	s->online = (uint32_t)rd_le(r, 4);
	s->hz = (uint32_t)rd_le(r, 4);
	s->usec_per_tick = (uint32_t)rd_le(r, 4);
	s->status = (uint32_t)rd_le(r, 4);
	s->flags = (uint32_t)rd_le(r, 4);
	s->time_ns = (int64_t)rd_le(r, 8);
	s->n = rd_le(r, 8);
	s->info_size = (uint32_t)rd_le(r, 4);
	s->table_crc = (uint32_t)rd_le(r, 4);	/* version 1: reserved, 0 */
	s->max_addrs = rd_le(r, 8);
	s->ticks_total = rd_le(r, 8);
	s->ticks_outside = rd_le(r, 8);
	s->ticks_user = rd_le(r, 8);
	s->ticks_idle = rd_le(r, 8);
	s->ticks_lost = rd_le(r, 8);
	s->on_ns = rd_le(r, 8);
	s->mem_bytes = rd_le(r, 8);
	s->device = rd_str(r, 0);
	s->host = rd_str(r, 0);
	s->release = rd_str(r, 0);
	if (r->bad)
		return -r->bad;
	if (s->table_id >= f->ntables || f->tables[s->table_id].n != s->n)
		return -3;
	if (s->version == 1 && (s->n > (r->len - r->pos) / 8 - 2 || (r->len - r->pos) / 8 < 2))
		return -1;
	s->counts = calloc(s->n + 2, sizeof(uint64_t));
	if (!s->counts)
		return -2;
	if (s->version == 1) {
		for (i = 0; i < s->n + 2; i++)
			s->counts[i] = rd_le(r, 8);
		return r->bad ? -r->bad : 0;
	}
	if (s->delta) {
		/* The snapshot before it, of the same table, is its base. */
		const struct snapshot *b = f->nsnaps >= 2 ? &f->snaps[f->nsnaps - 2] : NULL;
		uint32_t crc = (uint32_t)rd_le(r, 4);

		if (r->bad)
			return -r->bad;
		if (!b || b->table_id != s->table_id || b->n != s->n || b->rec_crc != crc)
			return -4;
		memcpy(s->counts, b->counts, (s->n + 2) * sizeof(uint64_t));
	}
	nz = rd_varint(r);
	if (nz > s->n + 2)
		return -1;
	for (i = 0, idx = 0; i < nz && !r->bad; i++) {
		uint64_t v;

		idx += rd_varint(r);
		if (idx >= s->n + 2)
			return -1;
		v = rd_varint(r);
		if (s->delta && s->counts[idx] + v < v)
			return -1;
		s->counts[idx++] += v;
	}
	return r->bad ? -r->bad : 0;
}

/* put_ext_head's fields into x: 0, or -1 when they are not snapshot s's. */
static int rd_ext_head(struct rd *r, const struct snapshot *s, struct snap_ext *x)
{
	if ((uint32_t)rd_le(r, 4) != s->table_id)
		return -1;
	rd_le(r, 4);	/* table crc: the snapshot's, for appenders */
	x->mode = (uint32_t)rd_le(r, 4);
	x->depth = (uint32_t)rd_le(r, 4);
	x->capacity = (uint32_t)rd_le(r, 4);
	rd_le(r, 4);
	x->mode_dropped = rd_le(r, 8);
	x->stacks_dropped = rd_le(r, 8);
	return 0;
}

/* A stack as put_stack wrote it, its frames below nframes: 0, -1 malformed, -2 no memory. */
static int rd_stack(struct rd *r, struct snap_stack *st, size_t nframes)
{
	uint64_t k, idx;

	st->count = rd_varint(r);
	st->flags = (uint32_t)rd_varint(r);
	k = rd_varint(r);
	if (r->bad || k > 1024 || k > r->len - r->pos)
		return -1;
	st->f = calloc(k ? k : 1, sizeof(*st->f));
	if (!st->f)
		return -2;
	st->nr = (uint32_t)k;
	for (k = 0; k < st->nr; k++) {
		idx = rd_varint(r);
		if (idx >= nframes)
			return -1;
		st->f[k] = (uint32_t)idx;
	}
	return 0;
}

/*
 * An extension record's payload, for snapshot s (the record before it).
 * 0, -1 malformed, -2 no memory, -3 not the snapshot's.
 */
static int parse_ext(struct rd *r, struct snapshot *s, unsigned version)
{
	struct snap_ext *x = calloc(1, sizeof(*x));
	uint64_t i, n, nz, idx;
	int ret = 0;

	if (!x)
		return -2;
	s->ext = x;
	if (rd_ext_head(r, s, x))
		return -3;
	n = rd_varint(r);
	/* A frame takes at least 12 bytes, a stack 3, a site 6: bounds first. */
	if (r->bad || n > (r->len - r->pos) / 12)
		return -1;
	x->frames = calloc(n ? n : 1, sizeof(*x->frames));
	if (!x->frames)
		return -2;
	x->nframes = (size_t)n;
	for (i = 0; i < n && !r->bad; i++) {
		x->frames[i].addr = rd_le(r, 8);
		x->frames[i].name = rd_str(r, 0);
		x->frames[i].module = rd_str(r, 1);
	}
	n = rd_varint(r);
	if (r->bad || n > (r->len - r->pos) / 3)
		return r->bad ? -r->bad : -1;
	x->stacks = calloc(n ? n : 1, sizeof(*x->stacks));
	if (!x->stacks)
		return -2;
	x->nstacks = (size_t)n;
	for (i = 0; i < n && !r->bad && !ret; i++)
		ret = rd_stack(r, &x->stacks[i], x->nframes);
	if (ret)
		return ret;
	n = rd_varint(r);
	if (r->bad || (n && n != s->n + 2))
		return -1;
	x->sites = calloc(n ? n : 1, sizeof(*x->sites));
	if (!x->sites)
		return -2;
	x->nsites = (size_t)n;
	nz = rd_varint(r);
	if (nz > n)
		return -1;
	for (i = 0, idx = 0; i < nz && !r->bad; i++) {
		struct snap_site *si;

		idx += rd_varint(r);
		if (idx >= n)
			return -1;
		si = &x->sites[idx++];
		si->allocs = rd_varint(r);
		si->bytes_req = rd_varint(r);
		si->bytes_alloc = rd_varint(r);
		si->frees = rd_varint(r);
		si->bytes_freed = rd_varint(r);
		if (version >= SNAP_VERSION_UNSEEN) {
			si->frees_unseen = rd_varint(r);
			si->bytes_unseen = rd_varint(r);
		}
	}
	return r->bad ? -r->bad : 0;
}

/*
 * A delta extension record's new frames merged into base's (x->frames,
 * ascending), map[i] the index base's frame i takes.  0, -1 malformed (out
 * of order, or one of base's again), -2 no memory.
 */
static int merge_frames(struct rd *r, struct snap_ext *x, const struct snap_ext *b,
			uint32_t *map)
{
	uint64_t n = rd_varint(r), i, j = 0, k = 0;
	struct snap_frame *nf;
	int ret = 0;

	/* A frame takes at least 12 bytes: bound first. */
	if (r->bad || n > (r->len - r->pos) / 12)
		return -1;
	nf = calloc(n ? n : 1, sizeof(*nf));
	x->frames = calloc(b->nframes + n ? b->nframes + n : 1, sizeof(*x->frames));
	if (!nf || !x->frames) {
		free(nf);
		return -2;
	}
	x->nframes = (size_t)(b->nframes + n);
	for (i = 0; i < n && !r->bad; i++) {
		nf[i].addr = rd_le(r, 8);
		nf[i].name = rd_str(r, 0);
		nf[i].module = rd_str(r, 1);
		if (i && nf[i].addr <= nf[i - 1].addr)
			ret = -1;
	}
	if (r->bad)
		ret = -r->bad;
	for (i = 0; !ret && (i < b->nframes || j < n); k++) {
		struct snap_frame *f = &x->frames[k];

		if (j < n && (i == b->nframes || nf[j].addr < b->frames[i].addr)) {
			*f = nf[j];
			nf[j].name = NULL;
			nf[j].module = NULL;
			j++;
			continue;
		}
		if (j < n && nf[j].addr == b->frames[i].addr) {
			ret = -1;
			break;
		}
		f->addr = b->frames[i].addr;
		f->name = strdup(b->frames[i].name);
		f->module = b->frames[i].module ? strdup(b->frames[i].module) : NULL;
		if (!f->name || (b->frames[i].module && !f->module))
			ret = -2;
		map[i++] = (uint32_t)k;
	}
	for (i = 0; i < n; i++) {
		free(nf[i].name);
		free(nf[i].module);
	}
	free(nf);
	return ret;
}

/*
 * Base's stacks, each with its increase (named by its rank in
 * stack_order), then the new ones.  0, -1 malformed, -2 no memory.
 */
static int merge_stacks(struct rd *r, struct snap_ext *x, const struct snap_ext *b,
			const uint32_t *map)
{
	uint64_t g = rd_varint(r), n, i, k, idx, *inc;
	size_t *rank;
	int ret = 0;

	if (r->bad || g > b->nstacks)
		return -1;
	inc = calloc(b->nstacks ? b->nstacks : 1, sizeof(*inc));
	rank = stacks_ranked(b);
	if (!inc || !rank) {
		free(inc);
		free(rank);
		return -2;
	}
	for (i = 0, idx = 0; i < g && !r->bad; i++) {
		idx += rd_varint(r);
		if (idx >= b->nstacks) {
			free(inc);
			free(rank);
			return -1;
		}
		inc[rank[idx++]] = rd_varint(r);
	}
	free(rank);
	n = rd_varint(r);
	/* A stack takes at least 3 bytes. */
	if (r->bad || n > (r->len - r->pos) / 3) {
		free(inc);
		return r->bad ? -r->bad : -1;
	}
	x->stacks = calloc(b->nstacks + n ? b->nstacks + n : 1, sizeof(*x->stacks));
	if (!x->stacks) {
		free(inc);
		return -2;
	}
	x->nstacks = (size_t)(b->nstacks + n);
	for (i = 0; i < b->nstacks && !ret; i++) {
		const struct snap_stack *bs = &b->stacks[i];
		struct snap_stack *st = &x->stacks[i];

		st->count = bs->count + inc[i];
		if (st->count < inc[i])
			ret = -1;	/* overflows */
		st->flags = bs->flags;
		st->f = calloc(bs->nr ? bs->nr : 1, sizeof(*st->f));
		if (!st->f) {
			ret = -2;
			break;
		}
		st->nr = bs->nr;
		for (k = 0; k < bs->nr; k++)
			st->f[k] = map[bs->f[k]];
	}
	free(inc);
	for (i = b->nstacks; i < x->nstacks && !ret && !r->bad; i++)
		ret = rd_stack(r, &x->stacks[i], x->nframes);
	return ret ? ret : r->bad ? -r->bad : 0;
}

/* v += d, or -1 when it overflows. */
static int add_over(uint64_t *v, uint64_t d)
{
	if (*v + d < d)
		return -1;
	*v += d;
	return 0;
}

/* Base's sites (zeros: none) with the increases of those that changed. */
static int merge_sites(struct rd *r, struct snap_ext *x, const struct snap_ext *b,
		       const struct snapshot *s)
{
	uint64_t n = rd_varint(r), nz, i, idx;
	int bad = 0;

	if (r->bad || (n && n != s->n + 2) || (b->nsites && n != b->nsites))
		return -1;
	x->sites = calloc(n ? n : 1, sizeof(*x->sites));
	if (!x->sites)
		return -2;
	x->nsites = (size_t)n;
	if (b->nsites)
		memcpy(x->sites, b->sites, n * sizeof(*x->sites));
	nz = rd_varint(r);
	if (nz > n)
		return -1;
	for (i = 0, idx = 0; i < nz && !r->bad && !bad; i++) {
		struct snap_site *si;

		idx += rd_varint(r);
		if (idx >= n)
			return -1;
		si = &x->sites[idx++];
		bad |= add_over(&si->allocs, rd_varint(r));
		bad |= add_over(&si->bytes_req, rd_varint(r));
		bad |= add_over(&si->bytes_alloc, rd_varint(r));
		bad |= add_over(&si->frees, rd_varint(r));
		bad |= add_over(&si->bytes_freed, rd_varint(r));
		bad |= add_over(&si->frees_unseen, rd_varint(r));
		bad |= add_over(&si->bytes_unseen, rd_varint(r));
	}
	return bad ? -1 : r->bad ? -r->bad : 0;
}

/*
 * A delta extension record's payload, for the delta record s, against
 * base, the snapshot s counts from (its extension resolved already; none
 * counts as no stacks, no sites).  0, -1 malformed, -2 no memory, -3 not
 * the snapshot's.
 */
static int parse_ext_delta(struct rd *r, struct snapshot *s, const struct snapshot *base)
{
	static const struct snap_ext none;
	const struct snap_ext *b = base->ext ? base->ext : &none;
	struct snap_ext *x = calloc(1, sizeof(*x));
	uint32_t *map;
	int ret;

	if (!x)
		return -2;
	s->ext = x;
	if (rd_ext_head(r, s, x))
		return -3;
	map = calloc(b->nframes ? b->nframes : 1, sizeof(*map));
	if (!map)
		return -2;
	ret = merge_frames(r, x, b, map);
	if (!ret)
		ret = merge_stacks(r, x, b, map);
	free(map);
	if (!ret)
		ret = merge_sites(r, x, b, s);
	return ret ? ret : r->bad ? -r->bad : 0;
}

/*
 * A source record's payload, for snapshot s (the snapshot record before
 * it, or its extension's).  0, -1 malformed, -2 no memory, -3 not the
 * snapshot's.
 */
static int parse_source(struct rd *r, struct snapshot *s)
{
	struct snap_ext *x = s->ext;

	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -2;
		s->ext = x;
	}
	if ((uint32_t)rd_le(r, 4) != s->table_id)
		return -3;
	rd_le(r, 4);	/* table crc: the snapshot's, for appenders */
	x->has_source = 1;
	x->source = (uint32_t)rd_le(r, 4);
	x->event = (uint32_t)rd_le(r, 4);
	x->period = rd_le(r, 8);
	x->pmu_count = rd_le(r, 8);
	x->pmu_enabled_ns = rd_le(r, 8);
	x->pmu_running_ns = rd_le(r, 8);
	x->samples_nmi = rd_le(r, 8);
	x->ticks_sampled = rd_le(r, 8);
	x->pmu_throttled = rd_le(r, 8);
	return r->bad ? -r->bad : 0;
}

/* A file of a user objects record; 0, or r->bad set. */
static void rd_uobj_file(struct rd *r, struct prf_uobj_file *f)
{
	char *path;

	f->major = (uint32_t)rd_le(r, 4);
	f->minor = (uint32_t)rd_le(r, 4);
	f->ino = rd_le(r, 8);
	f->flags = (uint32_t)rd_le(r, 4);
	path = rd_str(r, 0);
	if (path && strlen(path) >= PRF_UOBJ_PATH_MAX)
		r->bad = 1;
	else if (path)
		strcpy(f->path, path);
	free(path);
}

/* A file index (index + 1, 0 anonymous) below n; PRF_UOBJ_ANON, or r->bad set. */
static uint32_t rd_uobj_index(struct rd *r, uint32_t n)
{
	uint64_t v = rd_varint(r);

	if (v > n) {
		r->bad = 1;
		return 0;
	}
	return v ? (uint32_t)(v - 1) : PRF_UOBJ_ANON;
}

/*
 * A count of elements of at least min bytes each that the rest of the
 * record can hold, at most max; r->bad set otherwise.
 */
static uint32_t rd_count(struct rd *r, size_t min, uint64_t max)
{
	uint64_t v = rd_varint(r);

	if (r->bad || v > max || v > (r->len - r->pos) / min) {
		r->bad = 1;
		return 0;
	}
	return (uint32_t)v;
}

/* The pid after an anonymous index (version 9), below 2^31; r->bad set otherwise. */
static uint32_t rd_uobj_pid(struct rd *r, uint32_t file, int pid)
{
	uint64_t v;

	if (!pid || file != PRF_UOBJ_ANON)
		return 0;
	v = rd_varint(r);
	if (v > INT32_MAX) {
		r->bad = 1;
		return 0;
	}
	return (uint32_t)v;
}

/*
 * The pairs after the chains (version 10) into u; 0, -1 malformed (a
 * depth out of its range, a pair of no user frame or more PCs or frames
 * than the depths, a file index past the pairs' files), -2 no memory.
 */
static int parse_upairs(struct rd *r, struct snap_uobjs *u)
{
	struct prf_upairs *ph = &u->ph;
	uint32_t i, j;
	size_t rs;

	ph->used = (uint32_t)rd_le(r, 4);
	ph->capacity = (uint32_t)rd_le(r, 4);
	ph->depth = (uint32_t)rd_le(r, 4);
	ph->udepth = (uint32_t)rd_le(r, 4);
	ph->files_used = (uint32_t)rd_le(r, 4);
	ph->dropped = rd_le(r, 8);
	if (r->bad || !ph->depth || ph->depth > PRF_STACK_DEPTH_MAX || !ph->udepth ||
	    ph->udepth > PRF_UCHAIN_DEPTH_MAX)
		return -1;
	ph->nfiles = rd_count(r, 22, PRF_UOBJ_FILES_MAX);
	if (!r->bad && !(u->pf = calloc(ph->nfiles + 1, sizeof(*u->pf))))
		return -2;
	for (i = 0; i < ph->nfiles && !r->bad; i++)
		rd_uobj_file(r, &u->pf[i]);
	/* a pair takes 7 bytes or more: count, flags, 0 PCs, flags, 1 frame of 2 */
	ph->nr = rd_count(r, 7, PRF_UOBJS_MAX);
	rs = PRF_UPAIR_RECORD_SIZE(ph->depth, ph->udepth);
	if (!r->bad && !(u->precs = calloc((size_t)ph->nr + 1, rs)))
		return -2;
	for (i = 0; i < ph->nr && !r->bad; i++) {
		struct prf_upair *c = (void *)((char *)u->precs + (size_t)i * rs);
		__u64 *pc = (__u64 *)(c + 1);
		struct prf_uframe *fr = (void *)(pc + ph->depth);
		uint64_t kflags, np, uflags, nf;

		c->count = rd_varint(r);
		kflags = rd_varint(r);
		np = rd_varint(r);
		if (r->bad || kflags > UINT32_MAX || np > ph->depth)
			return -1;
		c->kflags = (uint32_t)kflags;
		c->nr_pcs = (uint32_t)np;
		for (j = 0; j < c->nr_pcs; j++)
			pc[j] = rd_le(r, 8);
		uflags = rd_varint(r);
		nf = rd_varint(r);
		if (r->bad || uflags > UINT32_MAX || !nf || nf > ph->udepth)
			return -1;
		c->uflags = (uint32_t)uflags;
		c->nr_frames = (uint32_t)nf;
		for (j = 0; j < c->nr_frames && !r->bad; j++) {
			fr[j].file = rd_uobj_index(r, ph->nfiles);
			fr[j].pid = rd_uobj_pid(r, fr[j].file, 1);
			fr[j].offset = rd_varint(r);
		}
	}
	if (r->bad)
		return -1;
	u->pairs_on = 1;
	return 0;
}

/*
 * The chains of a user objects record into u (after its chains word);
 * 0, -1 malformed, -2 no memory.
 */
static int parse_uchains(struct rd *r, struct snap_uobjs *u, int pid)
{
	uint32_t i, j;
	size_t rs;

	u->ch.used = (uint32_t)rd_le(r, 4);
	u->ch.capacity = (uint32_t)rd_le(r, 4);
	u->ch.depth = (uint32_t)rd_le(r, 4);
	u->ch.files_used = (uint32_t)rd_le(r, 4);
	u->ch.dropped = rd_le(r, 8);
	if (r->bad || !u->ch.depth || u->ch.depth > PRF_UCHAIN_DEPTH_MAX)
		return -1;
	u->ch.nfiles = rd_count(r, 22, PRF_UOBJ_FILES_MAX);
	if (!r->bad && !(u->cf = calloc(u->ch.nfiles + 1, sizeof(*u->cf))))
		return -2;
	for (i = 0; i < u->ch.nfiles && !r->bad; i++)
		rd_uobj_file(r, &u->cf[i]);
	u->ch.nr = rd_count(r, 4, PRF_UOBJS_MAX);
	rs = PRF_UCHAIN_RECORD_SIZE(u->ch.depth);
	if (!r->bad && !(u->recs = calloc((size_t)u->ch.nr + 1, rs)))
		return -2;
	for (i = 0; i < u->ch.nr && !r->bad; i++) {
		struct prf_uchain *c = (void *)((char *)u->recs + (size_t)i * rs);
		struct prf_uframe *fr = (void *)(c + 1);
		uint64_t flags, nr;

		c->count = rd_varint(r);
		flags = rd_varint(r);
		nr = rd_varint(r);
		if (r->bad || flags > UINT32_MAX || !nr || nr > u->ch.depth)
			return -1;
		c->flags = (uint32_t)flags;
		c->nr_frames = (uint32_t)nr;
		for (j = 0; j < c->nr_frames && !r->bad; j++) {
			fr[j].file = rd_uobj_index(r, u->ch.nfiles);
			fr[j].pid = rd_uobj_pid(r, fr[j].file, pid);
			fr[j].offset = rd_varint(r);
		}
	}
	return r->bad ? -1 : 0;
}

/*
 * The vDSO's build ID that ends a record of version 11: "" (not known) or
 * 2 to VDSO_ID_MAX lower-case hex digits.  0, -1 malformed, -2 no memory.
 */
static int parse_vdso_id(struct rd *r, struct snap_uobjs *u)
{
	u->vdso_id = rd_str(r, 0);
	if (r->bad == 2)
		return -2;
	if (r->bad || !u->vdso_id || (*u->vdso_id && !vdso_id_valid(u->vdso_id)))
		return -1;
	return 0;
}

/*
 * A user objects record's payload (of version @version), for snapshot s.
 * 0, -1 malformed, -2 no memory, -3 not the snapshot's.
 */
static int parse_uobjs(struct rd *r, struct snapshot *s, unsigned version)
{
	int pid = version >= SNAP_VERSION_UOBJS_PID;
	int pairs = version == SNAP_VERSION_UOBJS_PAIRS;
	int vdso = version >= SNAP_VERSION_UOBJS_VDSO;
	struct snap_uobjs *u = calloc(1, sizeof(*u));
	uint32_t i;
	int ret;

	if (!u)
		return -2;
	s->uobjs = u;
	if ((uint32_t)rd_le(r, 4) != s->table_id)
		return -3;
	rd_le(r, 4);	/* table crc: the snapshot's, for appenders */
	u->h.used = (uint32_t)rd_le(r, 4);
	u->h.capacity = (uint32_t)rd_le(r, 4);
	u->h.files_used = (uint32_t)rd_le(r, 4);
	u->h.files_max = (uint32_t)rd_le(r, 4);
	u->h.lost = rd_le(r, 8);
	u->h.dropped = rd_le(r, 8);
	u->h.unmapped = rd_le(r, 8);
	/* a file takes 22 bytes or more, an entry 3, a chain 4, a frame 2 */
	u->h.nfiles = rd_count(r, 22, PRF_UOBJ_FILES_MAX);
	if (!r->bad && !(u->f = calloc(u->h.nfiles + 1, sizeof(*u->f))))
		return -2;
	for (i = 0; i < u->h.nfiles && !r->bad; i++)
		rd_uobj_file(r, &u->f[i]);
	u->h.nr = rd_count(r, 3, PRF_UOBJS_MAX);
	if (!r->bad && !(u->e = calloc(u->h.nr + 1, sizeof(*u->e))))
		return -2;
	for (i = 0; i < u->h.nr && !r->bad; i++) {
		u->e[i].file = rd_uobj_index(r, u->h.nfiles);
		u->e[i].pid = rd_uobj_pid(r, u->e[i].file, pid);
		u->e[i].offset = rd_varint(r);
		u->e[i].count = rd_varint(r);
	}
	u->chains_on = (int)rd_le(r, 4);
	if (r->bad || u->chains_on > 1 || (pairs && !u->chains_on))
		return -1;	/* the pairs need the chains */
	if (u->chains_on && (ret = parse_uchains(r, u, pid)))
		return ret;
	if (vdso) {
		/* version 11: whether the pairs follow (they need the chains) */
		uint32_t p = (uint32_t)rd_le(r, 4);

		if (r->bad || p > 1 || (p && !u->chains_on))
			return -1;
		pairs = (int)p;
	}
	if (pairs && (ret = parse_upairs(r, u)))
		return ret;
	return vdso ? parse_vdso_id(r, u) : uobjs_have_vdso(u) ? -1 : 0;
}

/* Room for one more zeroed element at the end of the array v of n; NULL: no memory. */
static void *grow(void *v, size_t n, size_t size)
{
	unsigned char *nv = realloc(v, (n + 1) * size);

	if (nv)
		memset(nv + n * size, 0, size);
	return nv;
}

/* Check one record's header and CRC at buf[pos]; says what is wrong in err. */
enum rec_state { REC_OK, REC_TORN, REC_BAD };

static enum rec_state check_record(const unsigned char *buf, size_t len, size_t pos,
				   size_t rec, const char *name, char *err, size_t errlen)
{
	const unsigned char *h = buf + pos;
	uint64_t plen;
	uLong crc;

	if (len - pos < SNAP_HDR_SIZE) {
		seterr(err, errlen, "%s: record %zu at offset %zu is torn: %zu of its %d "
		       "header bytes", name, rec, pos, len - pos, SNAP_HDR_SIZE);
		/* A cut header, or what a crash left: torn if it could be one. */
		return memcmp(h, SNAP_MAGIC, len - pos < 4 ? len - pos : 4) ? REC_BAD : REC_TORN;
	}
	if (memcmp(h, SNAP_MAGIC, 4)) {
		seterr(err, errlen,
		       "%s: not a prf snapshot file or corrupt: bad magic in record %zu at offset %zu",
		       name, rec, pos);
		return REC_BAD;
	}
	plen = get_le(h + 8, 4);
	if (len - pos - SNAP_HDR_SIZE < plen) {
		seterr(err, errlen, "%s: record %zu at offset %zu is torn: %zu of its %" PRIu64
		       " payload bytes", name, rec, pos, len - pos - SNAP_HDR_SIZE, plen);
		return REC_TORN;
	}
	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, 12);
	crc = crc32(crc, h + SNAP_HDR_SIZE, (uInt)plen);
	if ((uint32_t)crc != (uint32_t)get_le(h + 12, 4)) {
		seterr(err, errlen, "%s: corrupt: CRC32 mismatch in record %zu at offset %zu",
		       name, rec, pos);
		/* The last record, failing its CRC: a write that did not complete. */
		return pos + SNAP_HDR_SIZE + plen == len ? REC_TORN : REC_BAD;
	}
	return REC_OK;
}

void snapfile_torn_note(const struct snapfile *f, const char *name, char *buf, size_t len)
{
	seterr(buf, len, "%s: record %zu at offset %zu is torn (%zu bytes: a write that "
	       "did not complete)", name, f->torn_rec, f->good_len, f->torn_len);
}

int snapfile_parse(const unsigned char *buf, size_t len, const char *name,
		   struct snapfile *f, char *err, size_t errlen)
{
	return snapfile_parse_max(buf, len, name, f, err, errlen, SNAP_VERSION_MAX);
}

int snapfile_parse_max(const unsigned char *buf, size_t len, const char *name,
		       struct snapfile *f, char *err, size_t errlen, unsigned max_version)
{
	size_t pos = 0, rec = 0;
	unsigned prev_type = 0;

	memset(f, 0, sizeof(*f));
	while (pos < len) {
		const unsigned char *h = buf + pos;
		unsigned version, type;
		uint64_t plen;
		struct rd r;
		int ret;

		rec++;
		switch (check_record(buf, len, pos, rec, name, err, errlen)) {
		case REC_OK:
			break;
		case REC_TORN:
			f->good_len = pos;
			f->torn_len = len - pos;
			f->torn_rec = rec;
			return 0;
		default:
			goto fail;
		}
		version = (unsigned)get_le(h + 4, 2);
		type = (unsigned)get_le(h + 6, 2);
		plen = get_le(h + 8, 4);
		if (version < SNAP_VERSION_MIN || version > max_version) {
			seterr(err, errlen,
			       "%s: record %zu at offset %zu has format version %u, this prf reads "
			       "versions %d to %u", name, rec, pos, version, SNAP_VERSION_MIN,
			       max_version);
			goto fail;
		}
		r.p = h + SNAP_HDR_SIZE;
		r.len = (size_t)plen;
		r.pos = 0;
		r.bad = 0;
		if (version >= 2) {
			/* The record's size closes it. */
			if (plen < 4 || get_le(r.p + plen - 4, 4) != SNAP_HDR_SIZE + plen) {
				seterr(err, errlen, "%s: corrupt: record %zu at offset %zu: its "
				       "size does not close it", name, rec, pos);
				goto fail;
			}
			r.len -= 4;
		}
		if (type == SNAP_REC_TABLE ||
		    (type == SNAP_REC_TABLE_Z && version >= SNAP_VERSION_TABLE_Z)) {
			struct snap_table *t, *v = grow(f->tables, f->ntables, sizeof(*v));
			unsigned char *raw = NULL;
			struct rd plain;
			const char *why;

			if (!v)
				goto oom;
			f->tables = v;
			t = &v[f->ntables++];
			if (type == SNAP_REC_TABLE_Z) {
				ret = inflate_table(&r, &raw, &plain, &why);
				if (ret == -1) {
					free(raw);
					seterr(err, errlen, "%s: corrupt: compressed table record %zu "
					       "at offset %zu: %s", name, rec, pos, why);
					goto fail;
				}
				if (!ret) {
					ret = parse_table(&plain, t);
					if (!ret && plain.pos != plain.len)
						ret = -1;
				}
				free(raw);
			} else {
				ret = parse_table(&r, t);
			}
			if (!ret && t->id != f->ntables - 1) {
				seterr(err, errlen,
				       "%s: corrupt: table record %zu at offset %zu has id %u, expected %zu",
				       name, rec, pos, t->id, f->ntables - 1);
				goto fail;
			}
		} else if (type == SNAP_REC_SNAP ||
			   (type == SNAP_REC_DELTA && version >= SNAP_VERSION_DELTA)) {
			struct snapshot *s, *v = grow(f->snaps, f->nsnaps, sizeof(*v));

			if (!v)
				goto oom;
			f->snaps = v;
			s = &v[f->nsnaps++];
			s->offset = pos;
			s->version = version;
			s->delta = type == SNAP_REC_DELTA;
			s->rec_crc = (uint32_t)get_le(h + 12, 4);
			ret = parse_snap(&r, s, f);
			if (ret == -3) {
				seterr(err, errlen,
				       "%s: corrupt: snapshot record %zu at offset %zu refers to "
				       "table %u of %" PRIu64 " addresses, which no earlier record holds",
				       name, rec, pos, s->table_id, s->n);
				goto fail;
			}
			if (ret == -4) {
				seterr(err, errlen,
				       "%s: corrupt: delta record %zu at offset %zu does not follow "
				       "the snapshot it counts from (same table, its crc)",
				       name, rec, pos);
				goto fail;
			}
		} else if (type == SNAP_REC_EXT && version >= SNAP_VERSION_EXT) {
			struct snapshot *s = f->nsnaps ? &f->snaps[f->nsnaps - 1] : NULL;

			if (prev_type != SNAP_REC_SNAP || !s || s->ext) {
				seterr(err, errlen,
				       "%s: corrupt: extension record %zu at offset %zu does not "
				       "follow a snapshot record", name, rec, pos);
				goto fail;
			}
			ret = parse_ext(&r, s, version);
			if (ret == -3) {
				seterr(err, errlen,
				       "%s: corrupt: extension record %zu at offset %zu is not its "
				       "snapshot's (table id)", name, rec, pos);
				goto fail;
			}
		} else if (type == SNAP_REC_EXT_DELTA && version >= SNAP_VERSION_EXT_DELTA) {
			struct snapshot *s = f->nsnaps ? &f->snaps[f->nsnaps - 1] : NULL;

			if (prev_type != SNAP_REC_SNAP || !s || s->ext || !s->delta) {
				seterr(err, errlen,
				       "%s: corrupt: delta extension record %zu at offset %zu does "
				       "not follow a delta record", name, rec, pos);
				goto fail;
			}
			/* parse_snap checked that the delta record's base is just before it */
			ret = parse_ext_delta(&r, s, &f->snaps[f->nsnaps - 2]);
			s->ext_delta = 1;
			if (ret == -3) {
				seterr(err, errlen,
				       "%s: corrupt: delta extension record %zu at offset %zu is not "
				       "its snapshot's (table id)", name, rec, pos);
				goto fail;
			}
		} else if (type == SNAP_REC_SOURCE && version >= SNAP_VERSION_EXT) {
			struct snapshot *s = f->nsnaps ? &f->snaps[f->nsnaps - 1] : NULL;

			if ((prev_type != SNAP_REC_SNAP && prev_type != SNAP_REC_EXT) || !s ||
			    (s->ext && s->ext->has_source)) {
				seterr(err, errlen,
				       "%s: corrupt: source record %zu at offset %zu does not "
				       "follow a snapshot record", name, rec, pos);
				goto fail;
			}
			ret = parse_source(&r, s);
			if (ret == -3) {
				seterr(err, errlen,
				       "%s: corrupt: source record %zu at offset %zu is not its "
				       "snapshot's (table id)", name, rec, pos);
				goto fail;
			}
		} else if (type == SNAP_REC_UOBJS && version >= SNAP_VERSION_UOBJS) {
			struct snapshot *s = f->nsnaps ? &f->snaps[f->nsnaps - 1] : NULL;

			if ((prev_type != SNAP_REC_SNAP && prev_type != SNAP_REC_EXT &&
			     prev_type != SNAP_REC_SOURCE) || !s || s->uobjs) {
				seterr(err, errlen,
				       "%s: corrupt: user objects record %zu at offset %zu does not "
				       "follow a snapshot record", name, rec, pos);
				goto fail;
			}
			ret = parse_uobjs(&r, s, version);
			if (ret == -3) {
				seterr(err, errlen,
				       "%s: corrupt: user objects record %zu at offset %zu is not "
				       "its snapshot's (table id)", name, rec, pos);
				goto fail;
			}
		} else {
			seterr(err, errlen,
			       "%s: record %zu at offset %zu has unknown type %u",
			       name, rec, pos, type);
			goto fail;
		}
		prev_type = type == SNAP_REC_DELTA ? SNAP_REC_SNAP :
			    type == SNAP_REC_EXT_DELTA ? SNAP_REC_EXT : type;
		if (ret == -2)
			goto oom;
		if (ret || r.pos != r.len) {
			seterr(err, errlen,
			       "%s: corrupt: record %zu at offset %zu: payload does not match its length",
			       name, rec, pos);
			goto fail;
		}
		pos += SNAP_HDR_SIZE + (size_t)plen;
	}
	f->good_len = len;
	return 0;
oom:
	seterr(err, errlen, "%s: %s", name, strerror(ENOMEM));
fail:
	snapfile_free(f);
	return -1;
}

static int read_fd(int fd, unsigned char **out, size_t *len)
{
	unsigned char *p = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;

	for (;;) {
		if (n == cap) {
			unsigned char *np;

			cap = cap ? cap * 2 : 65536;
			np = realloc(p, cap);
			if (!np) {
				free(p);
				return -ENOMEM;
			}
			p = np;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(p);
			return -e;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	*out = p;
	*len = n;
	return 0;
}

int snapfile_read(const char *path, struct snapfile *f, char *err, size_t errlen)
{
	unsigned char *p = NULL;
	size_t len = 0;
	int fd, ret;

	memset(f, 0, sizeof(*f));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = read_fd(fd, &p, &len);
	close(fd);
	if (ret) {
		seterr(err, errlen, "%s: %s", path, strerror(-ret));
		return -1;
	}
	ret = snapfile_parse(p, len, path, f, err, errlen);
	free(p);
	return ret;
}

int snap_table_equal(const struct snap_table *a, const struct snap_table *b)
{
	size_t i;

	if (a->n != b->n || a->text != b->text)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->e[i].addr != b->e[i].addr || a->e[i].kind != b->e[i].kind ||
		    !streq(a->e[i].name, b->e[i].name) ||
		    !streq(a->e[i].module, b->e[i].module))
			return 0;
	return 1;
}

/* pread all of len bytes at off: 0, or -errno (-EIO: the file ended). */
static int pread_all(int fd, void *p, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)p + done, len - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* What an appender needs to know of a file's end. */
struct tail {
	size_t len;		/* bytes of good records */
	size_t torn;		/* bytes of a torn last record after them */
	int fast;		/* ends with a version 2 snapshot: */
	uint32_t snap_table;	/*   its table id */
	uint32_t snap_crc;	/*   and its table_crc */
	size_t ntables;		/* else: table records in the good part */
	off_t table_off;	/*   the last one's offset */
	size_t table_size;	/*   and size */
};

/* Read one whole record at off (size bytes) into a fresh buffer; NULL: error in err. */
static unsigned char *read_record(int fd, off_t off, size_t size, const char *path,
				  char *err, size_t errlen)
{
	unsigned char *p = malloc(size ? size : 1);
	int r;

	if (!p) {
		seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return NULL;
	}
	r = pread_all(fd, p, size, off);
	if (r) {
		seterr(err, errlen, "%s: %s", path, strerror(-r));
		free(p);
		return NULL;
	}
	return p;
}

/*
 * The fast way: the file ends with a whole version 2 snapshot record, found
 * from the size that closes it.  1 when it does (t filled), 0 when not.
 */
static int tail_fast(int fd, size_t size, const char *path, struct tail *t)
{
	unsigned char sz[4], *p;
	size_t rsize;
	char err[SNAP_ERRLEN];
	int ok = 0;

	if (size < SNAP_HDR_SIZE + 4 || pread_all(fd, sz, 4, (off_t)(size - 4)))
		return 0;
	rsize = (size_t)get_le(sz, 4);
	if (rsize < SNAP_HDR_SIZE + 16 || rsize > size)
		return 0;
	p = read_record(fd, (off_t)(size - rsize), rsize, path, err, sizeof(err));
	if (!p)
		return 0;
	if (check_record(p, rsize, 0, 1, path, err, sizeof(err)) == REC_OK &&
	    get_le(p + 8, 4) + SNAP_HDR_SIZE == rsize) {
		/* A snapshot, or its extension (which repeats table id and crc). */
		if (((get_le(p + 4, 2) == 2 && get_le(p + 6, 2) == SNAP_REC_SNAP) ||
		     (get_le(p + 4, 2) == SNAP_VERSION_DELTA &&
		      get_le(p + 6, 2) == SNAP_REC_DELTA)) &&
		    rsize >= SNAP_HDR_SIZE + 64) {
			t->snap_crc = (uint32_t)get_le(p + SNAP_HDR_SIZE + 52, 4);
			ok = 1;
		} else if (((get_le(p + 4, 2) >= SNAP_VERSION_EXT &&
			     get_le(p + 4, 2) <= SNAP_VERSION_MAX &&
			     get_le(p + 6, 2) == SNAP_REC_EXT) ||
			    (get_le(p + 4, 2) == SNAP_VERSION_EXT_DELTA &&
			     get_le(p + 6, 2) == SNAP_REC_EXT_DELTA) ||
			    (get_le(p + 4, 2) == SNAP_VERSION_EXT &&
			     get_le(p + 6, 2) == SNAP_REC_SOURCE) ||
			    (get_le(p + 4, 2) >= SNAP_VERSION_UOBJS &&
			     get_le(p + 4, 2) <= SNAP_VERSION_UOBJS_VDSO &&
			     get_le(p + 6, 2) == SNAP_REC_UOBJS)) &&
			   rsize >= SNAP_HDR_SIZE + 12) {
			t->snap_crc = (uint32_t)get_le(p + SNAP_HDR_SIZE + 4, 4);
			ok = 1;
		}
		if (ok) {
			t->len = size;
			t->fast = 1;
			t->snap_table = (uint32_t)get_le(p + SNAP_HDR_SIZE, 4);
		}
	}
	free(p);
	return ok;
}

/*
 * The slow way (a version 1 file, or a torn end): walk the record headers,
 * check the last whole record's CRC.  0, or -1 with err (not a snapshot file).
 */
static int tail_walk(int fd, size_t size, const char *path, struct tail *t,
		     char *err, size_t errlen)
{
	unsigned char h[SNAP_HDR_SIZE], *p;
	size_t pos = 0, last = 0, rec = 0, plen, prev_size = 0;
	off_t prev_off = 0;
	int bad;

	while (pos < size) {
		rec++;
		if (size - pos < SNAP_HDR_SIZE || pread_all(fd, h, SNAP_HDR_SIZE, (off_t)pos))
			break;	/* torn */
		if (memcmp(h, SNAP_MAGIC, 4)) {
			seterr(err, errlen, "%s: not a prf snapshot file or corrupt: bad magic in "
			       "record %zu at offset %zu", path, rec, pos);
			return -1;
		}
		plen = (size_t)get_le(h + 8, 4);
		if (size - pos - SNAP_HDR_SIZE < plen)
			break;	/* torn */
		if (get_le(h + 6, 2) == SNAP_REC_TABLE || get_le(h + 6, 2) == SNAP_REC_TABLE_Z) {
			prev_off = t->table_off;
			prev_size = t->table_size;
			t->ntables++;
			t->table_off = (off_t)pos;
			t->table_size = SNAP_HDR_SIZE + plen;
		}
		last = pos;
		pos += SNAP_HDR_SIZE + plen;
	}
	if (pos > 0) {
		/* The last whole record must pass its CRC, or it is torn too. */
		p = read_record(fd, (off_t)last, pos - last, path, err, errlen);
		if (!p)
			return -1;
		bad = check_record(p, pos - last, 0, rec, path, err, errlen) != REC_OK;
		free(p);
		if (bad) {
			if (t->ntables && t->table_off == (off_t)last) {
				t->ntables--;
				t->table_off = prev_off;
				t->table_size = prev_size;
			}
			pos = last;
		}
	}
	t->len = pos;
	t->torn = size - pos;
	return 0;
}

/* Is the table record at off (size bytes) t?  1 yes, 0 no, -1 error (err). */
static int table_is(int fd, off_t off, size_t size, const struct snap_table *t,
		    const char *path, char *err, size_t errlen)
{
	struct snap_table rt = { 0 };
	struct rd r, plain;
	unsigned char *p, *raw = NULL;
	const char *why;
	int eq;

	p = read_record(fd, off, size, path, err, errlen);
	if (!p)
		return -1;
	r.p = p + SNAP_HDR_SIZE;
	r.len = size - SNAP_HDR_SIZE - (get_le(p + 4, 2) >= 2 ? 4 : 0);
	r.pos = 0;
	r.bad = 0;
	/* a table that does not read is not t: the append writes t anew */
	if (get_le(p + 6, 2) == SNAP_REC_TABLE_Z)
		eq = !inflate_table(&r, &raw, &plain, &why) && !parse_table(&plain, &rt) &&
		     snap_table_equal(&rt, t);
	else
		eq = !parse_table(&r, &rt) && snap_table_equal(&rt, t);
	snap_table_free(&rt);
	free(raw);
	free(p);
	return eq;
}

/*
 * Encode t as table id into b (emptied first), plain: the record's crc
 * field, what a snapshot names its table by.  Only the table an append
 * writes is compressed (encode_table), not the one it compares.
 */
static uint32_t encode_table_crc(struct buf *b, const struct snap_table *t, uint32_t id)
{
	struct snap_table tw = *t;

	b->len = 0;
	tw.id = id;
	encode_table_plain(b, &tw);
	return b->oom ? 0 : (uint32_t)get_le(b->p + 12, 4);
}

static int write_all(int fd, const struct buf *b)
{
	size_t off = 0;

	while (off < b->len) {
		ssize_t w = write(fd, b->p + off, b->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		off += (size_t)w;
	}
	return 0;
}

int snapfile_append(const char *path, const struct snap_table *t,
		    struct snapshot *s, char *err, size_t errlen)
{
	struct buf b = { 0 };
	struct tail tl;
	struct stat st;
	uint32_t id = 0;
	size_t at, next;
	int fd, ret = -1, same = 0, note = 0, r, e = 0;

	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	memset(&tl, 0, sizeof(tl));
	if (!tail_fast(fd, (size_t)st.st_size, path, &tl) &&
	    tail_walk(fd, (size_t)st.st_size, path, &tl, err, errlen)) {
		size_t l = strlen(err);

		snprintf(err + l, errlen - l, " (refusing to append to it)");
		goto out;
	}
	if (tl.torn) {
		if (ftruncate(fd, (off_t)tl.len) < 0) {
			seterr(err, errlen, "%s: cutting a torn last record: %s", path,
			       strerror(errno));
			goto out;
		}
		seterr(err, errlen, "%s: the last record, at offset %zu, was torn (%zu bytes: "
		       "a write that did not complete): cut before appending", path, tl.len,
		       tl.torn);
		note = 1;
	}
	if (tl.fast) {
		id = tl.snap_table;
		same = encode_table_crc(&b, t, id) == tl.snap_crc && !b.oom;
	} else if (tl.ntables) {
		id = (uint32_t)(tl.ntables - 1);
		same = table_is(fd, tl.table_off, tl.table_size, t, path, err, errlen);
		if (same < 0)
			goto out;
	}
	if (!same && (tl.fast || tl.ntables))
		id++;
	s->table_crc = encode_table_crc(&b, t, id);
	b.len = 0;	/* the file has it, or it is written as encode_table has it */
	if (!same) {
		struct snap_table tw = *t;

		tw.id = id;
		encode_table(&b, &tw);
	}
	s->table_id = id;
	s->n = t->n;
	/*
	 * A delta only against the caller's last append, where the file still
	 * ends (nothing appended or cut since) and the table is the same.
	 */
	if (s->delta_base && (!same || tl.torn || tl.len != s->delta_len))
		s->delta_base = NULL;
	at = b.len;
	snap_encode_snapshot(&b, s);
	if (b.oom) {
		seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
		goto out;
	}
	/*
	 * One append: records of a crashed writer are cut, never interleaved.
	 * A write that failed (a full disk: perhaps after part of the record)
	 * is cut back to the good records; so is one whose fsync failed, whose
	 * pages may never reach the disk (and read back as zeros after a crash).
	 */
	r = write_all(fd, &b);
	if (!r && fsync(fd) < 0 && errno != EINVAL) {
		e = errno;
		seterr(err, errlen, "%s: fsync: %s", path, strerror(e));
	} else if (r) {
		e = -r;
		seterr(err, errlen, "%s: write: %s", path, strerror(e));
	}
	if (e) {
		if (ftruncate(fd, (off_t)tl.len) < 0) {
			/* the next reader says it is torn, the next append cuts it */
		}
		goto out;
	}
	s->delta = get_le(b.p + at + 6, 2) == SNAP_REC_DELTA;
	s->rec_crc = (uint32_t)get_le(b.p + at + 12, 4);
	next = at + SNAP_HDR_SIZE + (size_t)get_le(b.p + at + 8, 4);
	s->ext_delta = next + SNAP_HDR_SIZE <= b.len &&
		       get_le(b.p + next + 6, 2) == SNAP_REC_EXT_DELTA;
	s->rec_end = tl.len + b.len;
	ret = note;
out:
	if (ret < 0 && !e)
		e = errno;
	buf_free(&b);
	close(fd);
	if (ret < 0)
		errno = e;	/* the failure's, for the caller (ENOSPC, EDQUOT, EIO) */
	return ret;
}
