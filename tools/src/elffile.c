// SPDX-License-Identifier: GPL-2.0-only
/*
 * elffile - an ELF file opened for libelf (elffile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elffile.h"
#include "err.h"

Elf *elf_file_open(const char *path, Elf_Cmd cmd, int *fd, char *err, size_t errlen)
{
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		seterr(err, errlen, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	e = elf_begin(*fd, cmd, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		seterr(err, errlen, "%s: not an ELF file", path);
		if (e)
			elf_end(e);
		close(*fd);
		*fd = -1;
		return NULL;
	}
	return e;
}
