// SPDX-License-Identifier: GPL-2.0-only
/*
 * elffile - an ELF file opened for libelf (elffile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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

Elf_Scn *elf_section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif
#ifndef R_AARCH64_JUMP_SLOT
#define R_AARCH64_JUMP_SLOT 1026
#endif
#ifndef R_AARCH64_IRELATIVE
#define R_AARCH64_IRELATIVE 1032
#endif

/* A relocation of .rela.plt: its GOT slot and index. */
struct plt_rel {
	uint64_t slot;
	size_t i;
};

static int cmp_plt_rel(const void *pa, const void *pb)
{
	const struct plt_rel *a = pa, *b = pb;

	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

uint32_t le32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The GOT slot the PLT entry at @addr jumps through, read from its first
 * instructions @p (16 bytes), or 0: on x86-64 "jmp *disp32(%rip)" (ff 25),
 * after an endbr64 and a bnd prefix where the entry has them; on arm64
 * "adrp x16, PAGE; ldr x17, [x16, #OFF]" (the psABIs' PLT entries).  The
 * entries are not in the relocations' order (the C library's IFUNCs'
 * come first in its PLT, last in .rela.plt): the slot says whose each is.
 */
static uint64_t plt_slot(int machine, uint64_t addr, const unsigned char *p)
{
	size_t k = 0;

	if (machine == EM_X86_64) {
		if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
			k = 4;
		if (p[k] == 0xf2)
			k++;
		if (p[k] != 0xff || p[k + 1] != 0x25)
			return 0;
		return addr + k + 6 + (uint64_t)(int64_t)(int32_t)le32_at(p + k + 2);
	} else {
		uint32_t adrp = le32_at(p), ldr = le32_at(p + 4);
		uint64_t imm;

		if ((adrp & 0x9f00001fU) != 0x90000010U || (ldr & 0xffc003ffU) != 0xf9400211U)
			return 0;
		imm = (uint64_t)((adrp >> 5) & 0x7ffff) << 2 | ((adrp >> 29) & 3);
		if (imm & (1ULL << 20))
			imm |= ~0ULL << 21;	/* 21 bits, signed: pages */
		return (addr & ~0xfffULL) + (imm << 12) + ((ldr >> 10) & 0xfff) * 8;
	}
}

int elf_plt_entries(Elf *e, int (*cb)(void *arg, uint64_t addr, uint64_t size, const char *name),
		    void *arg)
{
	GElf_Shdr plt, sec, rel, dsh, *code;
	Elf_Scn *rscn, *dscn, *pscn, *cscn;
	Elf_Data *rd, *dd, *cd;
	struct plt_rel *v = NULL;
	GElf_Ehdr eh;
	uint64_t plt0, first, n, i;
	unsigned int jump, irel;
	char name[160];
	int ret;

	if (!gelf_getehdr(e, &eh))
		return 0;
	if (eh.e_machine == EM_X86_64) {
		plt0 = 16;
		jump = R_X86_64_JUMP_SLOT;
		irel = R_X86_64_IRELATIVE;
	} else if (eh.e_machine == EM_AARCH64) {
		plt0 = 32;
		jump = R_AARCH64_JUMP_SLOT;
		irel = R_AARCH64_IRELATIVE;
	} else {
		return 0;
	}
	rscn = elf_section_named(e, ".rela.plt", &rel);
	pscn = elf_section_named(e, ".plt", &plt);
	if (!pscn || !rscn || rel.sh_type != SHT_RELA || !rel.sh_entsize ||
	    plt.sh_type != SHT_PROGBITS)
		return 0;
	n = rel.sh_size / rel.sh_entsize;
	rd = elf_getdata(rscn, NULL);
	/* the symbols of JUMP_SLOT relocations: none in a static program */
	dscn = rel.sh_link ? elf_getscn(e, rel.sh_link) : NULL;
	dd = dscn && gelf_getshdr(dscn, &dsh) ? elf_getdata(dscn, NULL) : NULL;
	if (!rd || !n)
		return 0;
	/* a static program's PLT: its IFUNCs' IRELATIVE entries, no PLT0 */
	if (plt.sh_size == n * 16 && !elf_section_named(e, ".dynamic", &sec))
		plt0 = 0;
	else if (plt.sh_size != plt0 + n * 16)
		return 0;
	/* the entries in .plt.sec (x86-64's IBT layout), or after PLT0 */
	cscn = pscn;
	code = &plt;
	first = plt.sh_addr + plt0;
	if (eh.e_machine == EM_X86_64 && (cscn = elf_section_named(e, ".plt.sec", &sec))) {
		if (sec.sh_type != SHT_PROGBITS || sec.sh_size != n * 16)
			return 0;
		code = &sec;
		first = sec.sh_addr;
	} else {
		cscn = pscn;
	}
	cd = elf_getdata(cscn, NULL);
	if (!cd || !cd->d_buf || cd->d_size < code->sh_size)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		GElf_Rela r;

		if (!gelf_getrela(rd, (int)i, &r)) {
			free(v);
			return 0;
		}
		v[i].slot = r.r_offset;
		v[i].i = i;
	}
	qsort(v, n, sizeof(*v), cmp_plt_rel);
	ret = plt0 ? cb(arg, plt.sh_addr, plt0, ".plt") : 0;
	for (i = 0; i < n && !ret; i++) {
		uint64_t at = first + i * 16;
		const unsigned char *p = (const unsigned char *)cd->d_buf + (at - code->sh_addr);
		struct plt_rel key = { .slot = plt_slot(eh.e_machine, at, p) }, *hit;
		const char *sn = NULL;
		GElf_Rela r;
		GElf_Sym s;

		hit = key.slot ? bsearch(&key, v, n, sizeof(*v), cmp_plt_rel) : NULL;
		if (!hit || !gelf_getrela(rd, (int)hit->i, &r)) {
			/* whose it is not known: the PLT's, not a neighbour's */
			ret = cb(arg, at, 16, ".plt");
			continue;
		}
		if (GELF_R_TYPE(r.r_info) == jump && dd &&
		    gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s))
			sn = elf_strptr(e, dsh.sh_link, s.st_name);
		if (sn && *sn)
			snprintf(name, sizeof(name), "%s@plt", sn);
		else if (GELF_R_TYPE(r.r_info) == irel)
			snprintf(name, sizeof(name), "*ABS*+0x%" PRIx64 "@plt", (uint64_t)r.r_addend);
		else
			snprintf(name, sizeof(name), ".plt");
		ret = cb(arg, at, 16, name);
	}
	free(v);
	return ret;
}
