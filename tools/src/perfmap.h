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

/* The function of m holding pc, or NULL. */
const struct perfmap_sym *perfmap_find(const struct perfmap *m, uint64_t pc);

void perfmap_free(struct perfmap *m);

#endif /* PRF_PERFMAP_H */
