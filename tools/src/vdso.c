// SPDX-License-Identifier: GPL-2.0-only
/*
 * vdso - this process's vDSO as a file.  See vdso.h.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "usym.h"
#include "vdso.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct vdso own = { .fd = -1 };
static int own_ok;
static char own_err[256];

#if defined(__x86_64__)
#define VDSO_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define VDSO_MACHINE EM_AARCH64
#endif

/*
 * The image's bytes from its ELF header: past its program headers, its
 * section headers and every segment's file bytes.  0 when it is not an
 * ELF image of this machine, 64-bit, little-endian, of sane headers.
 */
static size_t image_size(const unsigned char *p)
{
	const Elf64_Ehdr *eh = (const void *)p;
	const Elf64_Phdr *ph;
	uint64_t end = sizeof(*eh), e;
	unsigned int i;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_phentsize != sizeof(*ph) ||
	    (eh->e_shnum && eh->e_shentsize != sizeof(Elf64_Shdr)))
		return 0;
#ifdef VDSO_MACHINE
	if (eh->e_machine != VDSO_MACHINE)
		return 0;
#endif
	if (eh->e_phoff > VDSO_SIZE_MAX || eh->e_shoff > VDSO_SIZE_MAX)
		return 0;
	e = eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(*ph);
	end = e > end ? e : end;
	e = eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	end = e > end ? e : end;
	if (end > VDSO_SIZE_MAX)
		return 0;
	ph = (const void *)(p + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_offset > VDSO_SIZE_MAX || ph[i].p_filesz > VDSO_SIZE_MAX)
			return 0;
		e = ph[i].p_offset + ph[i].p_filesz;
		end = e > end ? e : end;
	}
	return end > VDSO_SIZE_MAX ? 0 : (size_t)end;
}

/* A descriptor of a file of no name: a memfd, else an unlinked temporary file. */
static int anon_file(void)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd = memfd_create("prf-vdso", MFD_CLOEXEC);

	if (fd >= 0)
		return fd;
	snprintf(tmpl, sizeof(tmpl), "%s/prf-vdso.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmpl);
	return fd;
}

static void find_own(void)
{
	const unsigned char *p = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t size, done = 0;
	ssize_t w;
	int fd;

	if (!p) {
		seterr(own_err, sizeof(own_err), "no vDSO (AT_SYSINFO_EHDR)");
		return;
	}
	size = image_size(p);
	if (!size) {
		seterr(own_err, sizeof(own_err),
		       "the vDSO is not a 64-bit ELF image of this machine, or larger than %u bytes",
		       VDSO_SIZE_MAX);
		return;
	}
	fd = anon_file();
	if (fd < 0) {
		seterr(own_err, sizeof(own_err), "vDSO: no memfd nor temporary file: %s",
		       strerror(errno));
		return;
	}
	while (done < size && (w = write(fd, p + done, size - done)) > 0)
		done += (size_t)w;
	if (done < size) {
		seterr(own_err, sizeof(own_err), "vDSO: its copy: %s",
		       done ? "short write" : strerror(errno));
		close(fd);
		return;
	}
	own.image = p;
	own.size = size;
	own.fd = fd;
	snprintf(own.path, sizeof(own.path), "/proc/self/fd/%d", fd);
	if (usym_build_id(own.path, own.build_id, sizeof(own.build_id)))
		own.build_id[0] = '\0';
	own_ok = 1;
}

const struct vdso *vdso_own(char *err, size_t errlen)
{
	pthread_once(&once, find_own);
	if (!own_ok) {
		seterr(err, errlen, "%s", own_err);
		return NULL;
	}
	return &own;
}

int vdso_is_own(const char *build_id)
{
	const struct vdso *v = vdso_own(NULL, 0);

	return v && build_id && v->build_id[0] && !strcmp(v->build_id, build_id);
}

int vdso_id_valid(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > VDSO_ID_MAX || n % 2)
		return 0;
	return strspn(s, "0123456789abcdef") == n;
}
