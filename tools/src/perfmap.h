/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfmap - the map a runtime that generates code writes of it:
 * /tmp/perf-PID.map, a line "START SIZE name" per function (START and
 * SIZE in hex, with or without 0x; the name the rest of the line), as
 * Node's --perf-basic-prof, Python's -X perf, perf-map-agent, LuaJIT and
 * .NET write it.  It names the user objects table's code of no file
 * (PRF_UOBJ_ANON, by its process: uapi/linux/prf.h).
 */
#ifndef PRF_PERFMAP_H
#define PRF_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* Bounds of one map: bytes read, and the length of a line. */
#define PERFMAP_MAX_BYTES	(256u << 20)
#define PERFMAP_MAX_LINE	4096

enum perfmap_state {
	PERFMAP_OK,		/* read (maybe in part: truncated) */
	PERFMAP_MISSING,	/* no map for the process (or not readable) */
	PERFMAP_STALE,		/* older than the process: another's, of its pid */
};

struct perfmap_sym {
	uint64_t start, end;	/* [start, end) */
	size_t line;		/* 1-based: of two that hold a PC, the later wins */
	char *name;
};

struct perfmap {
	int pid;
	enum perfmap_state state;
	char path[96];		/* where it was looked for, as the reports say it */
	struct perfmap_sym *v;	/* by start */
	size_t n;
	size_t bad;		/* lines skipped: not "START SIZE name", too long */
	int truncated;		/* stopped at max bytes */
	/* what was read (not MISSING): the file, and its process's start */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	unsigned long long ticks;	/* clock ticks after boot; 0: not running */
};

/*
 * perfmap_parse - the functions of the map read from f into m (state and
 * path untouched): at most max_bytes read (then m->truncated), bad lines
 * skipped and counted in m->bad.  0, or -ENOMEM (m freed).
 */
int perfmap_parse(FILE *f, struct perfmap *m, size_t max_bytes);

/*
 * perfmap_load - process pid's map, from dir ("/tmp" unless a test says
 * otherwise): DIR/perf-PID.map, or for a process in another pid namespace
 * that still runs (/proc/PID/status NSpid), its own root's
 * /tmp/perf-NSPID.map (dir "/tmp" only).  A map whose modification time is
 * older than the process's start (while the process runs) is STALE and
 * not read: it is another process's of the same pid, or written before
 * the code it would name.  0, or -ENOMEM.
 */
int perfmap_load(struct perfmap *m, int pid, const char *dir);

/*
 * perfmap_get - perfmap_load's map of pid, kept by the process for the
 * next call (prf top's refreshes, the daemon's reports): read again only
 * when its file changed (another device, inode, size or modification
 * time: a JIT appends as it generates code) or its process did (another
 * start: the pid reused), else the same map.  Shared: the caller names
 * with it, never changes it, and gives it back with perfmap_put().  NULL:
 * no memory.  Thread-safe.
 */
const struct perfmap *perfmap_get(int pid, const char *dir);
void perfmap_put(const struct perfmap *m);

/*
 * perfmap_cache_sweep - forget the maps of the processes that are gone
 * (so the maps kept are those of processes alive; a gone one's still
 * named is read again), freed once their users put them back.
 * perfmap_cache_clear forgets them all.
 */
void perfmap_cache_sweep(void);
void perfmap_cache_clear(void);

/* perfmap_cache_stats - maps parsed by the process so far, and kept now (the tests). */
void perfmap_cache_stats(unsigned long *reads, size_t *entries);

/* The function of m holding pc, or NULL. */
const struct perfmap_sym *perfmap_find(const struct perfmap *m, uint64_t pc);

void perfmap_free(struct perfmap *m);

#endif /* PRF_PERFMAP_H */
