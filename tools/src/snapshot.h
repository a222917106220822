/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot - the prf snapshot file: versioned, little-endian records with a
 * CRC32 each (see tools/SNAPSHOT.md).
 */
#ifndef PRF_SNAPSHOT_H
#define PRF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/prf.h>

#define SNAP_MAGIC		"PRFS"
#define SNAP_VERSION		2	/* written */
#define SNAP_VERSION_MIN	1	/* oldest read */
#define SNAP_HDR_SIZE		16
#define SNAP_REC_TABLE		1
#define SNAP_REC_SNAP		2
#define SNAP_REC_EXT		3	/* stacks, mode, sites of the snapshot before it */
#define SNAP_REC_SOURCE		4	/* the PMU source of the snapshot before it */
#define SNAP_VERSION_EXT	3	/* the version extension records are written with */
#define SNAP_VERSION_UNSEEN	4	/* ... when a site has frees prf did not see */
#define SNAP_REC_DELTA		5	/* a snapshot as deltas against the one before it */
#define SNAP_VERSION_DELTA	5	/* the version delta records are written with */
#define SNAP_REC_EXT_DELTA	6	/* a delta record's extension, against its base's */
#define SNAP_VERSION_EXT_DELTA	6	/* the version those are written with */
#define SNAP_REC_TABLE_Z	7	/* a table record's payload, zlib-compressed */
#define SNAP_VERSION_TABLE_Z	7	/* the version those are written with */
#define SNAP_TABLE_Z_MIN	16384	/* payload bytes from which a table is compressed */
#define SNAP_ZLEVEL	4	/* zlib's level for it (encode_table) */
#define SNAP_REC_UOBJS		8	/* the user objects and call chains of the snapshot before it */
#define SNAP_VERSION_UOBJS	8	/* the version those are written with */
#define SNAP_VERSION_UOBJS_PID	9	/* ... when code of no file has its process */
#define SNAP_VERSION_UOBJS_PAIRS 10	/* ... with the pairs of kernel stacks and chains */
#define SNAP_VERSION_UOBJS_VDSO	11	/* ... with the vDSO's build ID (PRF_UOBJ_VDSO_IMAGE) */
#define SNAP_VERSION_MAX	11	/* newest read */
#define SNAP_ERRLEN		512

struct snap_entry {
	uint64_t addr;
	char *name;
	char *module;		/* NULL: the kernel */
	/*
	 * A row of the user objects table (uobj_inject: in memory only, never
	 * in a snapshot file), where addr is the row's ordinal: uobj set; file
	 * the ELF file's path (NULL: anonymous memory, or no file), offset the
	 * function's start as an offset in that file (kind SYM_FUNC).
	 */
	char *file;
	uint64_t offset;
	unsigned kind;		/* enum sym_kind */
	int uobj;
};

struct snap_table {
	uint32_t id;
	uint64_t text;		/* the running kernel's _text when resolved, 0 unknown */
	size_t n;
	struct snap_entry *e;
};

/* A frame of the stacks: a PC, named when the snapshot was taken. */
struct snap_frame {
	uint64_t addr;
	char *name;		/* the function (no offset), or "0x..." */
	char *module;		/* NULL: the kernel */
	/*
	 * A frame of a user call chain (uobj.c: in memory only, never in a
	 * snapshot file): user set, addr its offset in file (NULL: no file,
	 * addr the address itself), name the function's symbol or "[PROGRAM]"
	 * as the user rows have them, module the program.
	 */
	int user;
	char *file;
};

struct snap_stack {
	uint64_t count;
	uint32_t flags;		/* PRF_STACK_* */
	uint32_t nr;		/* frames */
	uint32_t *f;		/* indices into snap_ext.frames, leaf first */
};

/* The alloc modes' detail of one counter (struct prf_site2). */
struct snap_site {
	uint64_t allocs, bytes_req, bytes_alloc, frees, bytes_freed;
	uint64_t frees_unseen, bytes_unseen;	/* extension record version 4 */
};

/* What a snapshot holds beyond prf(7)'s counters (record type 3). */
struct snap_ext {
	uint32_t mode;			/* PRF_MODE_* */
	uint32_t depth, capacity;	/* the stack table's set-up, 0: none */
	uint64_t mode_dropped, stacks_dropped;
	size_t nframes;
	struct snap_frame *frames;	/* distinct PCs, ascending */
	size_t nstacks;
	struct snap_stack *stacks;
	size_t nsites;			/* 0, or N + 2 */
	struct snap_site *sites;
	/* a source record (type 4): the PMU source and its prf_info fields */
	int has_source;
	uint32_t source, event;		/* PRF_SOURCE_*, PRF_EVENT_* */
	uint64_t period;		/* events a sample, 0: about hz a second */
	uint64_t pmu_count, pmu_enabled_ns, pmu_running_ns, pmu_throttled;
	uint64_t samples_nmi, ticks_sampled;
};

/*
 * The user objects table of a snapshot (record type 8) as the device gave
 * it (PRF_GETUOBJS, PRF_GETUCHAINS): named when the file is read
 * (uobj_resolve_chains), from the files' paths and identities.
 */
struct snap_uobjs {
	struct prf_uobjs h;		/* counts; entries and files below */
	struct prf_uobj *e;		/* h.nr */
	struct prf_uobj_file *f;	/* h.nfiles */
	int chains_on;			/* PRF_GETUCHAINS was read */
	struct prf_uchains ch;		/* counts; records and files below */
	void *recs;			/* ch.nr records of PRF_UCHAIN_RECORD_SIZE(ch.depth) */
	struct prf_uobj_file *cf;	/* ch.nfiles */
	/*
	 * The pairs of a kernel stack and a chain (PRF_GETUPAIRS), with the
	 * chains alone: prf record's and prfsnap's, written in the user
	 * objects record's version 10.
	 */
	int pairs_on;
	struct prf_upairs ph;
	void *precs;			/* ph.nr records */
	struct prf_uobj_file *pf;	/* ph.nfiles */
	/*
	 * The vDSO its PRF_UOBJ_VDSO_IMAGE files are: NULL, the running
	 * kernel's (read from this machine's device; written with this
	 * process's vDSO's build ID); else the build ID (hex) a snapshot
	 * file recorded with them (record version 11), "" not known.
	 */
	char *vdso_id;
};

void snap_uobjs_free(struct snap_uobjs *u);

struct snapshot {
	uint32_t table_id;
	int32_t cpu;		/* -1: all CPUs */
	uint32_t ncpus;		/* CPUs covered (prf_info.ncpus) */
	uint32_t online;	/* CPUs online on the machine */
	uint32_t hz, usec_per_tick, status, flags;
	int64_t time_ns;	/* CLOCK_REALTIME */
	uint64_t n;		/* addresses */
	uint32_t info_size;	/* bytes of struct prf_info the kernel filled, 0 none */
	uint64_t max_addrs, ticks_total, ticks_outside, ticks_user, ticks_idle,
		 ticks_lost, on_ns, mem_bytes;
	char *device, *host, *release;
	uint64_t *counts;	/* n + 2 */
	uint64_t offset;	/* where the record starts in the file */
	uint32_t table_crc;	/* version 2: the crc field of its table record */
	unsigned version;	/* of the record read */
	struct snap_ext *ext;	/* NULL: none (time mode, no stacks, the timer) */
	/*
	 * A delta record (type 5): snapfile_append writes s as deltas against
	 * delta_base, the counters (n + 2) of the caller's last append to the
	 * same file, when the file still ends where that append left it
	 * (delta_len bytes, its snapshot record's crc delta_crc), the table is
	 * the same and no counter went back; otherwise a full record.
	 */
	const uint64_t *delta_base;	/* NULL: a full record */
	uint64_t delta_len;
	uint32_t delta_crc;
	int delta;		/* read or written as a delta record */
	/*
	 * With a delta record, its extension as a delta extension record (type
	 * 6) against delta_ext, the extension of the snapshot delta_base came
	 * from (NULL, or one that needed no record: a full extension record),
	 * when every stack of it is in s's, none counting less, its frames
	 * named the same and no site gone back; otherwise a full one.
	 */
	const struct snap_ext *delta_ext;
	int ext_delta;		/* read or written as a delta extension record */
	struct snap_uobjs *uobjs;	/* NULL: none (record type 8) */
	uint32_t rec_crc;	/* the crc of its snapshot (or delta) record */
	uint64_t rec_end;	/* snapfile_append: the file's size after it */
};

struct snapfile {
	struct snap_table *tables;
	size_t ntables;
	struct snapshot *snaps;
	size_t nsnaps;
	/*
	 * A torn last record (cut short, or failing its CRC where it ends the
	 * file: a write that did not complete) is skipped: torn_len bytes from
	 * good_len, record number torn_rec.  0 when the file ends cleanly.
	 */
	size_t good_len, torn_len, torn_rec;
};

void snap_table_free(struct snap_table *t);
void snap_table_z(int on);
void snapshot_free(struct snapshot *s);
void snapfile_free(struct snapfile *f);

/*
 * Parse a whole file image; name is used in messages.  0 (a torn last
 * record skipped: f->torn_len), or -1 and err.
 */
int snapfile_parse(const unsigned char *buf, size_t len, const char *name,
		   struct snapfile *f, char *err, size_t errlen);
/* The same as a reader of versions up to max_version alone (the tests). */
int snapfile_parse_max(const unsigned char *buf, size_t len, const char *name,
		       struct snapfile *f, char *err, size_t errlen, unsigned max_version);
void snap_ext_free(struct snap_ext *x);
/* Read and parse path.  A missing file is an error. */
int snapfile_read(const char *path, struct snapfile *f, char *err, size_t errlen);

/* What a torn last record was ("NAME: record N at offset X is torn ..."). */
void snapfile_torn_note(const struct snapfile *f, const char *name, char *buf, size_t len);

/* Do two tables name the same addresses the same way? */
int snap_table_equal(const struct snap_table *a, const struct snap_table *b);

/*
 * snapfile_append - append snapshot s of table t to path (created 0644 when
 * missing), under an exclusive flock, reading only the file's last record
 * when it is a version 2 snapshot (else its record headers, its last record
 * and its last table record).  A torn last record is cut first, said in err
 * (return 1); a file that is not a snapshot file is refused.  t is written
 * as a new table record unless the file's last table is equal to it.
 * s->table_id is set.  0, 1 (appended, err holds a note) or -1 (err, and
 * errno the failure's).  A record whose write or fsync failed is cut off
 * again: the file keeps its good records alone.
 */
int snapfile_append(const char *path, const struct snap_table *t,
		    struct snapshot *s, char *err, size_t errlen);

/* Encoders, exposed for the tests. */
struct buf {
	unsigned char *p;
	size_t len, cap;
	int oom;
};
void buf_free(struct buf *b);
void snap_encode_table(struct buf *b, const struct snap_table *t);
/* The snapshot record, and its extension record after it when s->ext. */
void snap_encode_snapshot(struct buf *b, const struct snapshot *s);

#endif /* PRF_SNAPSHOT_H */
