/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * usym - the user part of a prf table (PRF_FLAG_USERPC): the functions of a
 * process's executable and shared objects, read from /proc/PID/maps and the
 * objects' ELF symbols (.symtab, else a debug file's: by build ID, by
 * .gnu_debuglink, from a debuginfod server; else .dynsym, marked),
 * relocated by where each
 * object is mapped, with an end sentinel after each mapping.
 */
#ifndef PRF_USYM_H
#define PRF_USYM_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "namelist.h"

/*
 * The end of a user function's name that came from its object's .dynsym
 * alone (no .symtab, no debug file found): it may be the nearest exported
 * symbol below a static function rather than the function itself.
 */
#define USYM_DYNSYM_MARK " (dynsym)"

/* One file-backed executable mapping of a process. */
struct umap {
	uint64_t start, end;	/* [start, end) */
	uint64_t offset;	/* file offset of start */
	char *path;		/* the object, as maps names it ("(deleted)" cut) */
	int deleted;		/* maps said "(deleted)": path names another file now */
	char *open_path;	/* NULL, or where to read a deleted object */
};

/*
 * usym_read_maps - the executable mappings of a maps file (/proc/PID/maps):
 * file-backed ("/..."), 'x' in the permissions.  A mapping whose file was
 * deleted (or replaced: the path is another file now) has deleted set and
 * "(deleted)" cut from its path; open_path is left NULL.  Appended to *v
 * (*n entries).  0, or -1 with err set.
 */
int usym_read_maps(const char *maps, struct umap **v, size_t *n, char *err, size_t errlen);
void usym_free_maps(struct umap *v, size_t n);

/*
 * usym_add_mapping - add the functions of m's object that lie in the
 * mapping to t: each function's start (SYM_FUNC, module = the object's file
 * name), a SYM_SENTINEL "[outside OBJ text]" at m->end, and another at
 * m->start when no function starts there (PCs before the first function,
 * e.g. the PLT).  The object is opened at root + m->path (root "" or
 * "/proc/PID/root"); a deleted one (m->deleted) at m->open_path alone, and
 * its module is "NAME (deleted)": without an open_path it gets its
 * sentinels and no function, since its path names another file now.  A PIE executable or a shared object (ET_DYN) is moved
 * by its load bias: the PT_LOAD segment holding the mapping's file offset
 * tells which virtual address m->start stands for.  The functions come
 * from the object's .symtab; a stripped object's (.dynsym alone) from its
 * separate debug file when one with the same build ID is installed
 * ($PRF_DEBUG_DIR, else root + /usr/lib/debug: .build-id/xx/rest.debug),
 * else the one its .gnu_debuglink names with the CRC-32 it records (beside
 * the object, in .debug/ there, or under the debug directory followed by
 * the object's directory), else the one of its build ID a debuginfod
 * server holds when $DEBUGINFOD_URLS names one (one time limit for the
 * process: usym.c), else from its .dynsym, those names ending in
 * USYM_DYNSYM_MARK.  t is left unsorted.  Returns the number of
 * functions added, or -1 with err set (an object without symbols adds its
 * two sentinels and returns 0).
 */
int usym_add_mapping(struct symtab *t, const struct umap *m, const char *root,
		     char *err, size_t errlen);

/*
 * usym_add_file - the functions of the ELF file at path, by file offset
 * (user objects: the kernel names a PC by the file that maps it and the
 * offset in that file): each function's virtual address taken back to its
 * file offset through the PT_LOAD segment that holds it, module mod; a
 * SYM_SENTINEL "[outside MOD text]" at the end of every executable
 * segment's bytes, and at its start when no function starts there.  The
 * symbols as usym_add_mapping finds them (.symtab, else the debug file by
 * build ID under $PRF_DEBUG_DIR or /usr/lib/debug, else by .gnu_debuglink,
 * else .dynsym, marked).  t is
 * left unsorted.  The number of functions added, or -1 with err set.
 */
int usym_add_file(struct symtab *t, const char *path, const char *mod, char *err,
		  size_t errlen);

/*
 * usym_debuginfod_note - when the process's debuginfod time limit (usym.c)
 * left files unnamed: "debuginfod: no answer within N s (DEBUGINFOD_TIMEOUT);
 * M files left unnamed" into buf, and 1; else 0.  The process also says it
 * on stderr once, at its exit.
 */
int usym_debuginfod_note(char *buf, size_t len);

/* How usym_debug_file() found a debug file. */
enum { USYM_DEBUG_NONE, USYM_DEBUG_BUILD_ID, USYM_DEBUG_LINK, USYM_DEBUG_FETCHED };

/* A separate debug file (usym_debug_file()), ended by usym_debug_end(). */
struct usym_debug {
	Elf *e;			/* NULL: none found */
	int fd;			/* its descriptor, or -1 */
	int how;		/* USYM_DEBUG_* */
	char *path;		/* where it was found (malloc'ed), or NULL */
	char *refused;		/* NULL, or the first candidate refused and why
				 * ("PATH: CRC-32 ... not the .gnu_debuglink's ...") */
};

/*
 * usym_debug_file - the separate debug file of the ELF e (descriptor fd;
 * path: the object as the process sees it, under root, "" or NULL for the
 * host's): by build ID under $PRF_DEBUG_DIR or root + /usr/lib/debug
 * (.build-id/xx/rest.debug, its build ID the same), else the one its
 * .gnu_debuglink names with the CRC-32 the link records (beside the
 * object, in .debug/ there, or under the debug directory followed by the
 * object's directory), else the one of its build ID a debuginfod server
 * holds when $DEBUGINFOD_URLS names one (within the process's time limit).
 * Into *d: its ELF, descriptor, path and how it was found; d->e NULL when
 * none, d->refused naming a candidate turned down either way.
 */
void usym_debug_file(Elf *e, int fd, const char *root, const char *path,
		     struct usym_debug *d);
void usym_debug_end(struct usym_debug *d);

/* usym_build_id - the GNU build ID of the ELF file path, in hex; 0 or -1. */
int usym_build_id(const char *path, char *hex, size_t len);

/*
 * usym_load_pids - the user table of processes: the executable mappings of
 * each (in order), a mapping skipped when it overlaps one already taken
 * (another process's different object at the same addresses: the first
 * process wins), identical ones taken once.  Sorted, aliases merged.
 * maps_fmt is "/proc/%d/maps" (tests give another).  Processes that are
 * gone are skipped; 0 when at least one was read, else -1 with err set.
 * Objects that cannot be read are skipped; their names are put in err
 * (a warning) while the call succeeds.
 */
int usym_load_pids(const pid_t *pids, size_t npids, struct symtab *t,
		   char *err, size_t errlen);

/*
 * usym_cgroup_pids - the processes of a cgroup v2 directory and its
 * descendants (cgroup.procs of each).  0, or -1 with err set.
 */
int usym_cgroup_pids(const char *dir, pid_t **pids, size_t *n, char *err, size_t errlen);

/*
 * usym_merge - out = user entries (each below kernel's first address; the
 * others are dropped) followed by kernel's.  Both sorted.  user and kernel
 * are emptied (their entries move to out).  0 or -ENOMEM.
 */
int usym_merge(struct symtab *user, struct symtab *kernel, struct symtab *out);

/* Is this table entry a user one (of a USERPC table)? */
int usym_is_user_addr(uint64_t addr);

#endif /* PRF_USYM_H */
