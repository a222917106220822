/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elffile - an ELF file opened for libelf, the one way every reader of the
 * tools (kernel names, user symbols, unwind tables, disassembly) opens one.
 */
#ifndef PRF_TOOLS_ELFFILE_H
#define PRF_TOOLS_ELFFILE_H

#include <libelf.h>
#include <stddef.h>

/*
 * elf_file_open - @path opened read-only and begun with libelf (@cmd:
 * ELF_C_READ, or ELF_C_READ_MMAP for a file read all over): its handle,
 * and its descriptor in *fd, both the caller's to end (elf_end(), close()).
 * NULL with nothing left open and err set: "libelf: ...", "PATH: <errno's
 * text>" or "PATH: not an ELF file" (an archive or any other kind too).
 */
Elf *elf_file_open(const char *path, Elf_Cmd cmd, int *fd, char *err, size_t errlen);

#endif
