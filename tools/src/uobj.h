/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uobj - the user objects table (PRF_SETUOBJS/PRF_GETUOBJS) named: each
 * (file, offset) entry the kernel counted, by the function of the file that
 * holds the offset, aggregated per function (name and program) and per
 * program (file), and put into a report beside the kernel's functions;
 * and its user call chains (PRF_GETUCHAINS), each frame named the same way,
 * which the report's stacks take in (stacks.c).
 */
#ifndef PRF_UOBJ_H
#define PRF_UOBJ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/prf.h>

struct report;
struct snap_frame;
struct snap_table;
struct snap_uobjs;

#define UOBJ_CAPACITY	65536	/* prf record's default (file, offset) entries */
#define UOBJ_FILES	4096	/* ... and files */
/* prf record -g: the table's entries and chains, and a chain's frames, by default */
#define UOBJ_CHAIN_CAPACITY	16384
#define UOBJ_CHAIN_DEPTH	16

/* What became of a file of the table when it was named. */
enum uobj_state {
	UOBJ_OK,		/* opened at its path, the same inode: its symbols */
	UOBJ_NOSYMS,		/* the same inode, but no ELF symbols read */
	UOBJ_REPLACED,		/* another inode (or nothing) at its path now */
	UOBJ_DELETED,		/* deleted (PRF_UOBJ_DELETED) */
	UOBJ_LONGPATH,		/* its path was too long to be given */
	UOBJ_ANON,		/* anonymous memory, JIT code, the vDSO of an older prf.ko */
	UOBJ_VDSO_OTHER,	/* the vDSO (PRF_UOBJ_VDSO_IMAGE) of another kernel */
};

/* A function (or a file's unnamed part) and its samples. */
struct uobj_row {
	char *name;		/* the function (its ELF symbol), or "[...]" */
	char *module;		/* the program: its file name, with " (deleted)" ... */
	char *path;		/* the file's path as the kernel gave it; NULL: anonymous */
	uint64_t offset;	/* named: the function's start, an offset in path */
	uint64_t count;
	int named;		/* a function of the file's symbols */
};

/* A program (a file of the table, or the anonymous mappings). */
struct uobj_prog {
	char *module;		/* as in the rows */
	char *path;		/* the path the kernel gave */
	uint64_t count;
	enum uobj_state state;
};

/* A user call chain named: frames into uobj_res.frames, leaf first. */
struct uobj_chain {
	uint64_t count;
	uint32_t flags;		/* PRF_UCHAIN_TRUNCATED */
	uint32_t nr;		/* frames, >= 1 */
	uint32_t *f;
};

/*
 * A kernel stack and the user chain of the same samples (PRF_GETUPAIRS):
 * the kernel's PCs, leaf first, and the user frames into uobj_res.frames.
 */
struct uobj_pair {
	uint64_t count;
	uint32_t kflags;	/* PRF_STACK_TRUNCATED */
	uint32_t nr_pcs;
	uint64_t *pcs;
	uint32_t uflags;	/* PRF_UCHAIN_TRUNCATED */
	uint32_t nr;		/* user frames, >= 1 */
	uint32_t *f;
};

struct uobj_res {
	struct uobj_row *rows;	/* sorted: most samples first */
	size_t nrows;
	struct uobj_prog *progs;	/* sorted: most samples first */
	size_t nprogs;
	uint64_t entries;	/* the sum of the entries' counts */
	uint64_t named;		/* ... of those named by a function */
	uint64_t lost, dropped, unmapped;
	uint32_t used, capacity, files_used, files_max;
	/* the call chains (uobj_resolve_chains), none unless chains_on */
	int chains_on;
	struct snap_frame *frames;	/* distinct (file, offset) frames, named */
	size_t nframes;
	struct uobj_chain *chains;	/* those with samples */
	size_t nchains;
	uint64_t chained;		/* their samples */
	uint64_t chains_dropped;	/* the entries' samples that have no chain */
	uint32_t chains_used, chain_capacity, chain_depth;
	/* the JIT maps (/tmp/perf-PID.map) read to name code of no file */
	size_t jit_maps;		/* read */
	size_t jit_bad;			/* their lines skipped: not "START SIZE name" */
	size_t jit_truncated;		/* those cut at PERFMAP_MAX_BYTES */
	/* the pairs (prf record -g: uobj_resolve_snap of its snap_uobjs) */
	int pairs_on;
	struct uobj_pair *pairs;	/* those with samples */
	size_t npairs;
	uint64_t paired;		/* their samples */
	uint64_t pairs_dropped;		/* kernel samples whose pair was not kept */
};

/*
 * uobj_set_perfmap_dir - where the JIT maps perf-PID.map are looked for
 * (NULL: /tmp, the default; the tests give a directory of fixtures).
 */
void uobj_set_perfmap_dir(const char *dir);

/* The state's words in the reports. */
const char *uobj_state_name(enum uobj_state s);

/*
 * uobj_resolve - name the table read by prf_read_uobjs: each file opened at
 * its path (from our root) and taken only when its device and inode are
 * the entry's (else "replaced": never named by another file's symbols);
 * deleted files and anonymous mappings without symbols.  The vDSO
 * (PRF_UOBJ_VDSO_IMAGE), never opened at a path, is named VDSO_NAME by the
 * symbols of this process's own vDSO (vdso.h), the running kernel's.  0,
 * or -1 with err set (out of memory).
 */
int uobj_resolve(const struct prf_uobjs *h, const struct prf_uobj *e,
		 const struct prf_uobj_file *f, struct uobj_res *out, char *err, size_t errlen);
void uobj_res_free(struct uobj_res *u);

/*
 * uobj_resolve_chains - uobj_resolve, and the call chains read by
 * prf_read_uchains (ch, its records and files cf): every frame named as
 * the entries are (the same file checks and symbols; each file opened
 * once for both), a return address (a frame past the leaf) at its offset
 * less 1, which is in the call; chains_on set.  0, or -1 with err set.
 */
int uobj_resolve_chains(const struct prf_uobjs *h, const struct prf_uobj *e,
			const struct prf_uobj_file *f, const struct prf_uchains *ch,
			const void *recs, const struct prf_uobj_file *cf, struct uobj_res *out,
			char *err, size_t errlen);

/*
 * uobj_resolve_snap - uobj_resolve_chains of the table a snapshot file
 * holds (record type 8), as prf record read it from the device.  Its vDSO
 * is named as the running kernel's when u->vdso_id is NULL (read from this
 * machine's device) or that vDSO's build ID; otherwise it is VDSO_OTHER,
 * state UOBJ_VDSO_OTHER, and none of its functions named.
 */
int uobj_resolve_snap(const struct snap_uobjs *u, struct uobj_res *out, char *err,
		      size_t errlen);

/*
 * uobj_snap_delta - *out = cur less prev, two reads of one instance's
 * table (prev NULL: all of cur): each entry of cur less the entry of prev
 * at the same (file, offset), a file being its identity (device and
 * inode; anonymous memory one file per process), whatever its index in
 * either read; each chain of cur less prev's chain of the same frames (files by
 * identity, offsets) and truncation; lost, dropped and unmapped, and the
 * chains' dropped, the same.  A count below prev's (the table zeroed
 * between) counts whole.  With pairs (record version 10), each pair of cur
 * less prev's of the same kernel PCs (and truncation) and user frames (as
 * the chains'), and their dropped the same.  Entries, chains and pairs
 * left at 0 are left out; the files are cur's, at cur's indices.  0 or -ENOMEM (*out NULL); free *out
 * with snap_uobjs_free.
 */
int uobj_snap_delta(const struct snap_uobjs *cur, const struct snap_uobjs *prev,
		    struct snap_uobjs **out);

/*
 * uobj_res_delta - out = cur less prev (prf top's interval): each row's
 * count less that of prev's row of the same function and program (0 when
 * it went down: a clear), and the same for the totals.  0 or -ENOMEM.
 */
int uobj_res_delta(const struct uobj_res *cur, const struct uobj_res *prev,
		   struct uobj_res *out);

/*
 * uobj_inject - r (built on table t, user counter N in r->user) again,
 * with a row of its own for each function of u and one "[user, unnamed]"
 * for counter N's samples that u does not name (N minus the entries' sum:
 * the lost, dropped and unmapped ones).  The new table goes to *nt (user
 * rows first, at addresses 1, 2, ...: below every kernel address; each
 * with uobj set, its file and the function's offset in it: the address
 * the reports give) and must outlive r; free it with snap_table_free.
 * 0 or -ENOMEM (r as it was).
 */
int uobj_inject(struct report *r, const struct uobj_res *u, struct snap_table *nt);

/*
 * uobj_print_programs - the per-program view: samples, share of user
 * samples, state and path of each program, then the counts lost, dropped
 * and unmapped when not 0, and the table's use; with call chains, their
 * samples, number and table.  user: counter N's total.
 */
void uobj_print_programs(FILE *out, const struct uobj_res *u, uint64_t user, int csv);

/*
 * uobj_print_json - the same as JSON members of a report ("user_objects":
 * the programs, the counts and the table's use, with call chains
 * "chains": their counts and table, then a comma and newline).
 */
void uobj_print_json(FILE *out, const struct uobj_res *u, uint64_t user);

/*
 * uobj_unsupported - say once that this prf.ko has no user objects
 * table (PRF_SETUOBJS: EINVAL/ENOTTY) and that user time stays one total.
 * 1 when ret is such an answer, else 0.
 */
int uobj_unsupported(int ret);

#endif /* PRF_UOBJ_H */
