/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disasm - a function's machine code and its instructions, for prf
 * annotate: the bytes from /proc/kcore (or any ELF file's PT_LOAD segments)
 * or from a symbol of an ELF file (vmlinux, a module's .ko), disassembled by
 * objdump (binutils) over a raw copy of them.
 */
#ifndef PRF_DISASM_H
#define PRF_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DISASM_ERRLEN 512

struct insn {
	uint64_t addr;
	unsigned len;		/* bytes */
	char *bytes;		/* "48 89 e5" */
	char *text;		/* "mov %rsp,%rbp" ("(bytes)" when objdump gave none) */
};

struct disasm {
	struct insn *v;
	size_t n;
};

void disasm_free(struct disasm *d);

/*
 * disasm_parse - objdump's "ADDR:<tab>BYTES<tab>TEXT" lines (a line of
 * bytes alone continues the instruction before it), kept when ADDR is in
 * [start, end).  The instructions must cover [start, end) without a gap.
 * 0, or -1 and err.
 */
int disasm_parse(FILE *in, uint64_t start, uint64_t end, struct disasm *d,
		 char *err, size_t errlen);

/*
 * disasm_run - objdump (path, e.g. "objdump") over len bytes of code that
 * run at vma, for machine ("i386:x86-64", "aarch64").  0, or -1 and err.
 */
int disasm_run(const char *objdump, const char *machine, const unsigned char *code,
	       size_t len, uint64_t vma, struct disasm *d, char *err, size_t errlen);

/*
 * code_from_core - len bytes at virtual address addr of an ELF file's
 * PT_LOAD segments (/proc/kcore, or an executable).  *machine is objdump's
 * name of the file's architecture.  0, or -1 and err.
 */
int code_from_core(const char *path, uint64_t addr, size_t len, unsigned char *buf,
		   const char **machine, char *err, size_t errlen);

/*
 * code_from_elf - the bytes of function name in an ELF file's symbol table
 * (a vmlinux, a module's .ko): len bytes from its start, fewer when its
 * section ends first (*got).  0, or -1 and err.
 */
int code_from_elf(const char *path, const char *name, size_t len, unsigned char *buf,
		  size_t *got, const char **machine, char *err, size_t errlen);

#endif /* PRF_DISASM_H */
