/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vdso - the vDSO this process runs with (getauxval(AT_SYSINFO_EHDR)), the
 * image every 64-bit task of the running kernel maps, as a file the ELF
 * readers (usym.c's symbols, cfi.c's unwind table) open like any other:
 * its bytes copied once into a memfd (else an unlinked temporary file),
 * opened at "/proc/self/fd/N".  The user objects table counts a PC in the
 * vDSO against a file of its own (PRF_UOBJ_VDSO_IMAGE: uapi/linux/prf.h),
 * at the image's address, which this names; a table recorded on another
 * kernel is known by its build ID.
 */
#ifndef PRF_VDSO_H
#define PRF_VDSO_H

#include <stddef.h>

#define VDSO_NAME	"[vdso]"	/* its module (and the kernel's path) */
#define VDSO_OTHER	"[vdso] (another kernel's)"	/* another vDSO: unnamed */
#define VDSO_ID_MAX	128		/* hex digits of a build ID, at most */
#define VDSO_SIZE_MAX	(16U << 20)	/* an image larger is refused */

struct vdso {
	const unsigned char *image;	/* the image as mapped */
	size_t size;			/* its bytes: headers, sections, segments */
	int fd;				/* the copy's descriptor (kept open) */
	char path[32];			/* where the copy opens: /proc/self/fd/N */
	char build_id[VDSO_ID_MAX + 1];	/* its GNU build ID in hex, "" none */
};

/*
 * vdso_own - this process's vDSO, found and copied on the first call
 * (thread-safe), the same every call after.  NULL when there is none or it
 * cannot be had, with why in err (the same text every call): no
 * AT_SYSINFO_EHDR, not a 64-bit ELF image of this machine, larger than
 * VDSO_SIZE_MAX, no memfd nor temporary file.
 */
const struct vdso *vdso_own(char *err, size_t errlen);

/*
 * vdso_is_own - 1 when build_id (hex) is the build ID of this process's
 * vDSO (one it has); 0 otherwise, "" and NULL included.
 */
int vdso_is_own(const char *build_id);

/* vdso_id_valid - 1 when s is a build ID as recorded: 2 to VDSO_ID_MAX lower-case hex digits, even. */
int vdso_id_valid(const char *s);

#endif /* PRF_VDSO_H */
