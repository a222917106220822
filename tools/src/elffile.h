/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elffile - an ELF file opened for libelf, the one way every reader of the
 * tools (kernel names, user symbols, unwind tables, disassembly) opens one.
 */
#ifndef PRF_TOOLS_ELFFILE_H
#define PRF_TOOLS_ELFFILE_H

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/*
 * elf_file_open - @path opened read-only and begun with libelf (@cmd:
 * ELF_C_READ, or ELF_C_READ_MMAP for a file read all over): its handle,
 * and its descriptor in *fd, both the caller's to end (elf_end(), close()).
 * NULL with nothing left open and err set: "libelf: ...", "PATH: <errno's
 * text>" or "PATH: not an ELF file" (an archive or any other kind too).
 */
Elf *elf_file_open(const char *path, Elf_Cmd cmd, int *fd, char *err, size_t errlen);

/* le32_at - the little-endian 32-bit word at @p (an instruction, a displacement). */
uint32_t le32_at(const unsigned char *p);

/* elf_section_named - @e's section of that name, its header into *sh; NULL without one. */
Elf_Scn *elf_section_named(Elf *e, const char *name, GElf_Shdr *sh);

/*
 * elf_plt_entries - the entries of @e's PLT, as the linker's relocations
 * name them: "strlen@plt", or for an IFUNC the C library resolves by
 * address, "*ABS*+0x9d4e0@plt"; PLT0, the resolver's entry, ".plt".  For
 * each, @cb(@arg, its link-time address, its size, its name); a non-zero
 * return stops the walk and is returned.  The lazy PLT of x86-64 (16-byte
 * entries after a PLT0 of 16, in .plt or .plt.sec) and of arm64 (16-byte
 * entries after a PLT0 of 32), and a static program's (its IFUNCs'
 * entries alone, no PLT0, no symbols), each named by the relocation of
 * .rela.plt whose GOT slot its first instructions jump through (an entry
 * whose slot no relocation has is ".plt").  A PLT of another layout (its
 * size not PLT0's and the relocations' entries) is not named: 0, no call;
 * -1 out of memory.
 */
int elf_plt_entries(Elf *e, int (*cb)(void *arg, uint64_t addr, uint64_t size, const char *name),
		    void *arg);

#endif
