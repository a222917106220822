/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unwind - the unwind tables of the files a target's processes run,
 * built (cfi.c) and handed to the module (PRF_SETUNWIND) as the files
 * appear, within a bound of bytes of rows the user sets, so that the
 * module's PRF_UOBJ_CFI chains are walked with them.
 *
 * A loader belongs to one prf instance, and every table it loads is held
 * by that instance (freed with it, or shared with other instances that
 * loaded the same file).  Each file is tried once: a file is known by the
 * device and inode /proc/PID/maps gives, opened through
 * /proc/PID/map_files (the very file mapped, whatever mount namespace or
 * rename), its tables built from the path maps names when that path is
 * still the same file (its debug file then found beside it too).
 *
 * prf daemon, which profiles every process, loads instead the tables of the
 * files its user objects table names, at each interval (unwind_load_file).
 *
 * The watcher is a thread that scans the target's processes' mappings
 * every UNWIND_WATCH_MS, so that a library loaded with dlopen() gets its
 * table within that time, and every UNWIND_EXEC_MS those of a process
 * new or running another program (an exec) than at the scan before, so
 * that a program a wrapper or a child runs has its tables within about
 * that time and the time to build them (a target of more than
 * UNWIND_EXEC_PIDS processes: every UNWIND_WATCH_MS alone); the caller's
 * thread may use the loader only while no watcher runs.
 */
#ifndef PRF_UNWIND_H
#define PRF_UNWIND_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct prf;
struct target;

#define UNWIND_WATCH_MS		200
#define UNWIND_EXEC_MS		10	/* new processes and execs looked for */
#define UNWIND_EXEC_PIDS	64	/* ... in a target of at most so many */
#define UNWIND_BOUND_DEFAULT	(32U << 20)	/* bytes of rows, prf record */

/* Why a file has no table (the loader's tally). */
enum {
	UNWIND_NO_CFI = 0,	/* cfi_build refused it: not ELF, no CFI, ... */
	UNWIND_OVER_BOUND,	/* its rows would pass the user's bound */
	UNWIND_REFUSED,		/* the module refused it (store full, ...) */
	UNWIND_UNOPENED,	/* the file could not be opened */
	UNWIND_NREASONS
};

struct unwind_stats {
	size_t files;		/* tables loaded */
	uint64_t rows, bytes;	/* their rows, and the rows' bytes */
	size_t frameptr;	/* of them, loaded PRF_UNWIND_FRAMEPTR */
	int vdso;		/* of them, the vDSO's (PRF_UNWIND_VDSO) */
	size_t skipped[UNWIND_NREASONS];
};

struct unwind_loader;

/*
 * The values of --unwind (cfi or fp: *fp 0 or 1) and --unwind-max (MiB,
 * 1..PRF_UNWIND_BYTES_MAX >> 20: *bytes), for prf record and prf daemon
 * alike.  0, or -1 when the value is not one of those.
 */
int unwind_parse_how(const char *v, int *fp);
int unwind_parse_max(const char *v, uint64_t *bytes);

/* A loader for instance p, bound bytes of rows at most.  NULL: no memory. */
struct unwind_loader *unwind_new(struct prf *p, uint64_t bound);
void unwind_free(struct unwind_loader *u);

/*
 * Tables for every executable file mapping of process pid not tried yet,
 * and the vDSO's (unwind_load_vdso) when it maps one.
 * The number of tables loaded, or -ENOMEM (nothing else stops it: a file
 * without a table is counted, and said by unwind_print).
 */
int unwind_load_pid(struct unwind_loader *u, pid_t pid);

/*
 * The table of the file at path, if it is still the file the user objects
 * table names (device major:minor as stat(2) gives it, inode ino) and was
 * not tried yet: 1 loaded, 0 not (counted, and said by unwind_print), or
 * -ENOMEM.
 */
int unwind_load_file(struct unwind_loader *u, const char *path, unsigned int major,
		     unsigned int minor, uint64_t ino);

/*
 * The table of the vDSO (PRF_UNWIND_VDSO), which every 64-bit process maps
 * and no file holds, built from this process's own (vdso.h), once: when a
 * process's mappings show "[vdso]" (unwind_load_pid), or when the user
 * objects table names it (prf daemon).  1 loaded, 0 not (tried before,
 * or counted and said by unwind_print; a module before PRF_UNWIND_VDSO,
 * EBADF, quietly), or -ENOMEM.
 */
int unwind_load_vdso(struct unwind_loader *u);

/* The watcher over tg (a process, or a cgroup and its descendants). */
int unwind_watch_start(struct unwind_loader *u, const struct target *tg);
void unwind_watch_stop(struct unwind_loader *u);

void unwind_get_stats(struct unwind_loader *u, struct unwind_stats *st);

/*
 * The loader's account, a line, and a line for each file without a table
 * (at most max of them; 0: the count alone), prefixed "prf: ".
 */
void unwind_print(FILE *out, struct unwind_loader *u, size_t max);

#endif /* PRF_UNWIND_H */
