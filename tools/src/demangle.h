/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * demangle - user functions' names as people read them: C++ (and Rust)
 * symbols demangled by libiberty's cplus_demangle(), as perf, gdb and
 * binutils do.  Only user names are demangled: the kernel's are C.  The
 * tables and snapshot files keep the raw (mangled) names; the reports
 * demangle when they print (--no-demangle: the raw names).
 */
#ifndef PRF_DEMANGLE_H
#define PRF_DEMANGLE_H

#include <stdint.h>

/* 1 (default): reports show user names demangled; 0: --no-demangle. */
extern int sym_demangle_on;

/*
 * sym_demangle - name demangled (C++ Itanium ABI, Rust legacy and v0), a
 * malloc'ed string; NULL when name is not a mangled name (a C name) or on
 * no memory.
 */
char *sym_demangle(const char *name);

/*
 * sym_shown - the name a report prints for a table entry or frame at addr:
 * a user one (usym_is_user_addr) demangled when sym_demangle_on, else
 * name itself.  The demangled string is kept (one per distinct name) until
 * sym_shown_free(); NULL name gives NULL.
 */
const char *sym_shown(const char *name, uint64_t addr);
void sym_shown_free(void);

#endif /* PRF_DEMANGLE_H */
