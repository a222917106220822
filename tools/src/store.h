/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store - the prf daemon's history (prf daemon --dir): a directory of
 * segments, each a snapshot file (tools/SNAPSHOT.md) named
 * seg-SECONDS.prf after the time of its first snapshot (ten digits, so
 * that the names sort as the times).  The daemon appends a snapshot of
 * cumulative counters every interval to the newest segment and starts a
 * new one every segment length; a reader merges the segments into one
 * snapfile, in order, so that any two snapshots of the same table make a
 * report.  Old segments are thinned to their last snapshot (the coarser
 * interval between it and the segment before) and then deleted by age
 * (--retain) and by size (--max-size), whole.
 */
#ifndef PRF_STORE_H
#define PRF_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "snapshot.h"

#define STORE_PREFIX	"seg-"
#define STORE_SUFFIX	".prf"

struct store_seg {
	char *path;
	int64_t start;		/* seconds, from the name */
	uint64_t bytes;
};

/* The segments of dir, oldest first: 0, or -1 and err (dir unreadable). */
int store_list(const char *dir, struct store_seg **v, size_t *n, char *err, size_t errlen);
void store_list_free(struct store_seg *v, size_t n);

/*
 * store_read - every segment of dir merged into f (the tables of equal
 * consecutive ones shared).  A torn last record of a segment is skipped
 * and said in notes (one line each, "" when none).  0, or -1 and err (a
 * segment that is not a snapshot file, or no segment at all).
 */
int store_read(const char *dir, struct snapfile *f, char *notes, size_t noteslen,
	       char *err, size_t errlen);

/*
 * store_thin - rewrite segment path with its last snapshot alone (and its
 * table), through a temporary file renamed over it after fsync.  0 (or
 * nothing to do), or -1 and err.
 */
int store_thin(const char *path, char *err, size_t errlen);

/* The segment file of start time t in dir (malloc'ed), NULL without memory. */
char *store_seg_path(const char *dir, int64_t t);

#endif /* PRF_STORE_H */
