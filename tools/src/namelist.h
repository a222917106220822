/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * namelist - kernel symbol tables for prf: /proc/kallsyms, System.map and
 * ELF vmlinux files, module extents, sentinels and fixed-width buckets.
 */
#ifndef PRF_NAMELIST_H
#define PRF_NAMELIST_H

#include <stddef.h>
#include <stdint.h>

enum sym_kind {
	SYM_FUNC = 0,		/* a function's start */
	SYM_SENTINEL = 1,	/* the end of a text region */
	SYM_BUCKET = 2,		/* a fixed-width bucket or a PC inside a function */
	SYM_UNKNOWN = 3,	/* an address nothing names */
};

struct sym {
	uint64_t addr;
	uint64_t size;		/* 0 when unknown */
	char *name;
	char *module;		/* NULL: the kernel itself */
	unsigned char kind;	/* enum sym_kind */
	unsigned char rank;	/* alias preference: higher wins */
};

struct symtab {
	struct sym *v;
	size_t n, cap;
	uint64_t text;		/* _text of the namelist (relocated), 0 unknown */
	uint64_t stext;		/* _stext, 0 unknown */
	uint64_t etext;		/* _etext, 0 unknown */
};

struct module_ext {
	char *name;
	uint64_t base, size;
};

struct nl_opts {
	const char *kallsyms;	/* the running kernel's symbols (/proc/kallsyms) */
	const char *modules;	/* the running kernel's modules (/proc/modules) */
	const char *only;	/* -m list: "ext4,kvm", "kernel", NULL = all */
	int have_offset;	/* offset given, do not measure it */
	int64_t offset;		/* KASLR offset added to System.map/vmlinux */
	int keep_pseudo;	/* keep [bpf], [__builtin__*] symbols */
	uint64_t target_text;	/* relocate so that _text lands here (prfpr) */
};

#define NL_ERRLEN 512

/*
 * The kernel's modules (path NULL: /proc/modules) as one hash of each
 * line's name, size, state and base address: 0, or -1 when unreadable.
 */
int modules_sig(const char *path, uint64_t *sig);
/*
 * Keep the last text namelist nl_load() read, for the process, and use it
 * again while the file and the modules stay the same (on), or drop it and
 * keep none (off, the default).
 */
void nl_keep_text(int on);

void symtab_init(struct symtab *t);
void symtab_free(struct symtab *t);
int symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name,
	       const char *module, int kind, int rank);
/* Sort by address and keep one entry per address (the best alias). */
void symtab_sort_dedupe(struct symtab *t);
/* Index of the last entry whose address <= addr, or -1. t must be sorted. */
long symtab_find(const struct symtab *t, uint64_t addr);

/*
 * nl_mapping_symbol - is @name a mapping symbol, a label the ARM, arm64 and
 * RISC-V assemblers put where code or data starts ($a, $t, $x, $d, their
 * ".N" forms, RISC-V's "$x<ISA>" such as "$xrv64i2p1"), never a function?
 * They sit at function starts and inside functions, so every reader of
 * symbols (kallsyms, System.map, vmlinux, user ELF files) skips them: one
 * taken for a function would take the name of the function at its address
 * or split the samples of the one it sits in.
 */
int nl_mapping_symbol(const char *name);

/* What kind of namelist a file is: 0 text (kallsyms/System.map), 1 ELF. */
int nl_is_elf(const char *path);

/* Raw readers: every text symbol but the __pfx_/__cfi_ padding and mapping
 * symbols, unrelocated, unsorted. -1 and err on failure. */
int nl_read_text(const char *path, struct symtab *t, char *err, size_t errlen);
int nl_read_elf(const char *path, struct symtab *t, char *err, size_t errlen);
int nl_read_modules(const char *path, struct module_ext **mods, size_t *n,
		    char *err, size_t errlen);
void nl_free_modules(struct module_ext *mods, size_t n);

/* The running kernel's _text as the kallsyms file shows it: 0 and err when
 * it is missing or zeroed. */
int nl_runtime_text(const char *kallsyms, uint64_t *text, char *err, size_t errlen);
/*
 * nl_kernel_syms - the addresses of the kernel's own symbols names[0..n)
 * (the first line of each, module symbols left out) as the kallsyms file
 * shows them, zeros included.  0, or -1 and err when the file cannot be
 * read or a name is not in it.
 */
int nl_kernel_syms(const char *kallsyms, const char *const *names, uint64_t *addrs,
		   size_t n, char *err, size_t errlen);
/*
 * nl_sched_text - the scheduler's text, __sched_text_start and
 * __sched_text_end (what the offcpu mode needs): 0, or -1 and err when
 * either is missing, zeroed (kptr_restrict) or they are out of order.
 */
int nl_sched_text(const char *kallsyms, uint64_t *start, uint64_t *end, char *err,
		  size_t errlen);

/*
 * nl_load - the table prfld loads: every function start of the namelist
 * (relocated by the KASLR offset for System.map and vmlinux), restricted to
 * o->only, sorted, aliases merged, with end sentinels after the kernel's
 * text and after each module's text.  Returns 0, or -1 with err set.
 */
int nl_load(const char *path, const struct nl_opts *o, struct symtab *out,
	    char *err, size_t errlen);

/*
 * nl_buckets - fixed-width buckets: start, start + step, ... below end, then
 * end as a sentinel.  Returns 0 or -1 with err set.
 */
int nl_buckets(uint64_t start, uint64_t end, uint64_t step, size_t max,
	       struct symtab *out, char *err, size_t errlen);

/*
 * nl_describe - name an address with a resolved table (from nl_load):
 * exact function start, a sentinel ("[outside kernel text]"), "func+0x10"
 * for an address inside a function, or "0x..." when nothing matches.
 * *name is malloc'ed; *module is malloc'ed or NULL (kernel).
 */
int nl_describe(const struct symtab *t, uint64_t addr, char **name,
		char **module, int *kind);

/* "[outside kernel text]" / "[outside ext4 text]", malloc'ed. */
char *nl_sentinel_name(const char *module);

#endif /* PRF_NAMELIST_H */
