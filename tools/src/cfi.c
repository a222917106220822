// SPDX-License-Identifier: GPL-2.0-only
/*
 * cfi - compact unwind tables from an ELF file's call frame information.
 * See cfi.h.
 *
 * libdw reads the CFI (dwarf_getcfi_elf: .eh_frame; dwarf_getcfi of the
 * file's DWARF: .debug_frame; and of its separate debug file's) and
 * answers, for an address, the row of rules that holds there and the range
 * it holds over (dwarf_cfi_addrframe, dwarf_frame_info).  Walking each
 * executable PT_LOAD from its first byte, one row's end is the next address
 * asked; where no FDE covers an address the walk steps by the machine's
 * instruction alignment.  The sources are asked in order (.eh_frame first),
 * and a row of a later one ends where an earlier one covers a byte again.
 * The debug file is looked for at the first byte the file's own CFI leaves
 * uncovered (a file whose own CFI covers its code costs no lookup).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/prf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "cfi.h"
#include "elffile.h"
#include "err.h"
#include "usym.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

const char *cfi_machine_name(int machine)
{
	switch (machine) {
	case EM_X86_64: return "x86-64";
	case EM_AARCH64: return "arm64";
	}
	return "?";
}

const char *cfi_flag_name(unsigned int i)
{
	static const char *const names[CFI_NFLAGS] = {
		"cfa-expr", "cfa-other", "ra-other", "fp-other", "signal",
	};

	return i < CFI_NFLAGS ? names[i] : "?";
}

void cfi_free(struct cfi_table *t)
{
	free(t->rows);
	free(t->dfile_path);
	free(t->dfile_note);
	memset(t, 0, sizeof(*t));
}

/* The module's rules are the table's own (uapi/linux/prf.h). */
_Static_assert(sizeof(struct prf_unwind_row) == sizeof(struct cfi_row),
	       "a row is 24 bytes both sides");
_Static_assert(PRF_UNWIND_SAME == CFI_RULE_SAME && PRF_UNWIND_AT == CFI_RULE_AT &&
	       PRF_UNWIND_UNDEF == CFI_RULE_UNDEF && PRF_UNWIND_CFA_FP == CFI_BASE_FP,
	       "the rule values are the table's");

size_t cfi_unwind_rows(const struct cfi_table *t, struct prf_unwind_row *out)
{
	size_t i, stops = 0;

	for (i = 0; i < t->n; i++) {
		const struct cfi_row *r = &t->rows[i];
		struct prf_unwind_row *u = &out[i];
		int stop = r->flags ||
			   (CFI_ROW_RA(r) == CFI_RULE_AT && r->ra_off % 8) ||
			   (CFI_ROW_FP(r) == CFI_RULE_AT && r->fp_off % 8);

		memset(u, 0, sizeof(*u));
		u->start = r->start;
		u->len = r->len;
		/* a signal frame's CFA is an expression: the module knows the frame */
		if (r->flags & CFI_F_SIGNAL) {
			u->flags = PRF_UNWIND_ROW_SIGNAL;
			continue;
		}
		if (stop) {
			u->flags = PRF_UNWIND_ROW_STOP;
			stops++;
			continue;
		}
		u->cfa_off = r->cfa_off;
		u->ra_off = r->ra_off;
		u->fp_off = r->fp_off;
		u->rules = PRF_UNWIND_RULES(CFI_ROW_BASE(r) == CFI_BASE_FP ?
					    PRF_UNWIND_CFA_FP : 0,
					    CFI_ROW_RA(r), CFI_ROW_FP(r));
	}
	return stops;
}

uint64_t cfi_fp_bytes(const struct cfi_table *t)
{
	uint64_t fp = 0;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!t->rows[i].flags && CFI_ROW_BASE(&t->rows[i]) == CFI_BASE_FP)
			fp += t->rows[i].len;
	return fp;
}

int cfi_keeps_frame_pointers(const struct cfi_table *t)
{
	if (t->machine != EM_X86_64 || !t->covered)
		return 0;
	return cfi_fp_bytes(t) * 100 >= t->covered * CFI_FRAMEPTR_PCT;
}

/* The machine's DWARF register numbers and instruction alignment. */
struct arch {
	int sp, fp;
	unsigned int step;
};

/* A stretch of arm64 code under one rule (plt_spans(), leaf_spans()). */
struct plt_span {
	uint64_t vaddr, len;	/* [vaddr, vaddr + len) */
	int saved;		/* past PLT0's push of x16 and x30 */
	int src;		/* CFI_SRC_PLT or CFI_SRC_LEAF */
	int sig;		/* a signal return trampoline (sig_spans()) */
};

/* One walk's state. */
struct walk {
	struct cfi_table *t;
	size_t max_rows, room;
	Dwarf_CFI *cfi[CFI_NDWARF];	/* by CFI_SRC_* */
	struct plt_span *plt;	/* arm64's PLT code, by address (plt_spans()) */
	size_t nplt;
	struct arch a;
	char *err;
	size_t errlen;
	const char *path;
	Elf *e;			/* the file, */
	int fd;			/* its descriptor, */
	const char *lookup;	/* and the path its debug file is looked up by */
	int dtried;		/* its debug file looked for (dfile_open()) */
	struct usym_debug dbg;	/* the one found */
	Dwarf *ddw;		/* its DWARF, when its .debug_frame is read */
};

/* A register's rule into *rule and *off; 0, or -1 when the compact form cannot say it. */
static int reg_rule(Dwarf_Frame *f, int regno, uint8_t *rule, int16_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t v;

	if (dwarf_frame_register(f, regno, mem, &ops, &nops) < 0)
		return -1;
	*off = 0;
	if (!nops) {
		/* libdw: no ops and a NULL *ops is "same value", else "undefined" */
		*rule = ops ? CFI_RULE_UNDEF : CFI_RULE_SAME;
		return 0;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa || nops > 2)
		return -1;
	if (nops == 1) {
		v = 0;
	} else if (ops[1].atom == DW_OP_plus_uconst) {
		/* a negative offset wraps: address arithmetic is modulo 2^64 */
		v = (int64_t)ops[1].number;
	} else {
		return -1;
	}
	if (v < INT16_MIN || v > INT16_MAX)
		return -1;
	*rule = CFI_RULE_AT;
	*off = (int16_t)v;
	return 0;
}

/* The frame's rules into r (start and len left to the caller). */
static void frame_rules(const struct walk *w, Dwarf_Frame *f, int ra, bool sig,
			int src, struct cfi_row *r)
{
	uint8_t base = CFI_BASE_SP, ra_rule = CFI_RULE_SAME, fp_rule = CFI_RULE_SAME;
	Dwarf_Op *ops;
	size_t nops;

	r->cfa_off = 0;
	r->ra_off = 0;
	r->fp_off = 0;
	r->flags = sig ? CFI_F_SIGNAL : 0;
	if (dwarf_frame_cfa(f, &ops, &nops) < 0 || !nops) {
		r->flags |= CFI_F_CFA_REG;
	} else if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		int64_t off = (int64_t)ops[0].number2;

		if (ops[0].number == (Dwarf_Word)w->a.fp)
			base = CFI_BASE_FP;
		else if (ops[0].number != (Dwarf_Word)w->a.sp)
			r->flags |= CFI_F_CFA_REG;
		if (off < INT32_MIN || off > INT32_MAX)
			r->flags |= CFI_F_CFA_REG;
		else
			r->cfa_off = (int32_t)off;
	} else {
		r->flags |= CFI_F_CFA_EXPR;
	}
	if (reg_rule(f, ra, &ra_rule, &r->ra_off))
		r->flags |= CFI_F_RA;
	if (reg_rule(f, w->a.fp, &fp_rule, &r->fp_off))
		r->flags |= CFI_F_FP;
	r->rules = base | ra_rule << 1 | fp_rule << 3 | src << 5;
}

/*
 * x86-64's lazy PLT: the linker's FDE for the entries after PLT0 gives the
 * CFA as rsp + 8, plus 8 once the PC is K bytes or more into its 16-byte
 * entry (past the push of the entry's index), as one expression: breg7 +8;
 * breg16 +0; lit15; and; litK; ge; lit3; shl; plus.  The PC's place in
 * its entry is its address's low 4 bits, the same in the file as in the
 * process (a load moves a file by whole pages).  Where a row of whole,
 * aligned entries [s, e) says exactly that, its K (1 to 15): the rows the
 * compact form can say, two an entry; else 0 (flagged, as any other
 * expression).
 */
static unsigned int plt_cut(const struct walk *w, Dwarf_Frame *f, Dwarf_Addr s, Dwarf_Addr e)
{
	static const uint8_t shape[] = {
		DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
		DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	};
	Dwarf_Op *ops;
	size_t nops, i;

	if (w->t->machine != EM_X86_64 || e <= s || s % 16 || (e - s) % 16)
		return 0;
	if (dwarf_frame_cfa(f, &ops, &nops) < 0 || nops != sizeof(shape))
		return 0;
	for (i = 0; i < nops; i++)
		if (i != 4 && ops[i].atom != shape[i])
			return 0;
	if (ops[0].number != 8 || ops[1].number != 0 ||
	    ops[4].atom < DW_OP_lit1 || ops[4].atom > DW_OP_lit15)
		return 0;
	return ops[4].atom - DW_OP_lit0;
}

static int same_rules(const struct cfi_row *a, const struct cfi_row *b)
{
	return a->cfa_off == b->cfa_off && a->ra_off == b->ra_off &&
	       a->fp_off == b->fp_off && a->rules == b->rules && a->flags == b->flags;
}

/* Append r, or merge it into the last row; 0 or -1 (err set). */
static int add_row(struct walk *w, const struct cfi_row *r)
{
	struct cfi_table *t = w->t;
	struct cfi_row *last = t->n ? &t->rows[t->n - 1] : NULL;

	if (last && last->start + last->len == r->start && same_rules(last, r) &&
	    (uint64_t)last->len + r->len <= UINT32_MAX) {
		last->len += r->len;
		return 0;
	}
	if (t->n == w->max_rows) {
		seterr(w->err, w->errlen, "%s: more than %zu rows (the bound)", w->path,
		       w->max_rows);
		return -1;
	}
	if (t->n == w->room) {
		size_t room = w->room ? 2 * w->room : 256;
		struct cfi_row *nv;

		if (room > w->max_rows)
			room = w->max_rows;
		nv = realloc(t->rows, room * sizeof(*nv));
		if (!nv) {
			seterr(w->err, w->errlen, "%s: %s", w->path, strerror(ENOMEM));
			return -1;
		}
		t->rows = nv;
		w->room = room;
	}
	t->rows[t->n++] = *r;
	return 0;
}

static void dfile_open(struct walk *w);

/* Does a source before src hold a row for addr? */
static int earlier_covers(const struct walk *w, int src, Dwarf_Addr addr)
{
	Dwarf_Frame *f;
	Dwarf_Addr s, e;
	bool sig;
	int i, hit;

	for (i = 0; i < src; i++) {
		if (!w->cfi[i] || dwarf_cfi_addrframe(w->cfi[i], addr, &f))
			continue;
		hit = dwarf_frame_info(f, &s, &e, &sig) >= 0 && s <= addr && addr < e;
		free(f);
		if (hit)
			return 1;
	}
	return 0;
}

/*
 * arm64's PLTs: the linker writes no CFI for them, and their code is a
 * few fixed forms.  An entry (adrp x16; ldr x17, [x16, #n]; add x16, x16,
 * #n; br x17, with bti c or autia1716/autib1716 in the hardened forms, and
 * nops) touches neither SP nor x30: the return address is still in x30 and
 * the CFA is SP (CFA = SP + 0, RA unchanged), a frame the unwinder takes
 * only as the innermost one, which it is (an entry jumps, it never calls).
 * PLT0, the lazy resolver's entry, first pushes x16 and x30 (stp x16, x30,
 * [sp, #-16]!): after that the CFA is SP + 16 and the return address at
 * CFA - 8, up to its br x17.  Each .plt or .iplt section (a static
 * program's IFUNC calls) is read instruction by instruction; one holding
 * any other instruction, or writing a register other than x16 and x17,
 * gets no rows (a chain through it stops, marked): no row guesses.  Sets
 * w->plt and w->nplt; 0, or -1 out of memory.
 */
static int plt_spans(struct walk *w, Elf *e, const GElf_Ehdr *eh)
{
	static const char *const names[] = { ".plt", ".iplt" };
	size_t room = 0, k;

	if (eh->e_machine != EM_AARCH64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		size_t first = w->nplt, i;
		int saved = 0, bad = 0;
		Elf_Scn *scn;
		Elf_Data *d;
		GElf_Shdr sh;

		scn = elf_section_named(e, names[k], &sh);
		if (!scn || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size || sh.sh_size % 4 ||
		    sh.sh_addr % 4 || sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			continue;
		for (i = 0; i < sh.sh_size; i += 4) {
			uint32_t insn = le32_at((const unsigned char *)d->d_buf + i);
			struct plt_span *last = w->nplt > first ? &w->plt[w->nplt - 1] : NULL;
			int next = saved, wr = -1;

			if (insn == 0xa9bf7bf0)			/* stp x16, x30, [sp, #-16]! */
				bad = saved, next = 1;
			else if ((insn & 0xfffffc1f) == 0xd61f0000 ||	/* br xn */
				 (insn & 0xfffff800) == 0xd71f0800)	/* braa, brab */
				next = 0;
			else if ((insn & 0x9f000000) == 0x90000000 ||	/* adrp */
				 (insn & 0xffc00000) == 0xf9400000 ||	/* ldr xt, [xn, #n] */
				 (insn & 0xff800000) == 0x91000000)	/* add xd, xn, #n */
				wr = (int)(insn & 31);
			else if (insn != 0xd503201f &&			/* nop */
				 (insn & 0xffffff3f) != 0xd503241f &&	/* bti */
				 insn != 0xd503219f && insn != 0xd50321df)	/* autia1716, autib1716 */
				bad = 1;
			if (wr >= 0 && wr != 16 && wr != 17)
				bad = 1;
			if (bad)
				break;
			if (last && last->saved == saved &&
			    last->vaddr + last->len == sh.sh_addr + i) {
				last->len += 4;
			} else {
				if (w->nplt == room) {
					struct plt_span *nv;

					room = room ? 2 * room : 16;
					nv = realloc(w->plt, room * sizeof(*nv));
					if (!nv)
						return -1;
					w->plt = nv;
				}
				w->plt[w->nplt++] = (struct plt_span){ sh.sh_addr + i, 4, saved,
								       CFI_SRC_PLT, 0 };
			}
			saved = next;
		}
		if (bad || saved)
			w->nplt = first;	/* not a PLT of the known forms */
	}
	return 0;
}

/*
 * The row of arm64's PLT code at addr, where no CFI covers it: to the end
 * of its span, of the range [.., end) at vaddr (file offset off), or to
 * the first instruction some CFI covers.  Added, and its end returned; 0
 * when addr is in no PLT span; -1 with err set (the rows' bound, memory).
 */
static Dwarf_Addr plt_row(struct walk *w, Dwarf_Addr addr, Dwarf_Addr end, uint64_t vaddr,
			  uint64_t off)
{
	const struct plt_span *sp = NULL;
	struct cfi_row r = { 0 };
	Dwarf_Addr e, p;
	size_t i;

	for (i = 0; i < w->nplt && !sp; i++)
		if (addr >= w->plt[i].vaddr && addr - w->plt[i].vaddr < w->plt[i].len)
			sp = &w->plt[i];
	if (!sp)
		return 0;
	e = sp->vaddr + sp->len < end ? sp->vaddr + sp->len : end;
	for (p = addr + 4; p < e; p += 4)
		if (earlier_covers(w, CFI_NDWARF, p))
			e = p;
	r.start = addr - vaddr + off;
	r.len = (uint32_t)(e - addr);
	r.cfa_off = sp->saved ? 16 : 0;
	r.ra_off = sp->saved ? -8 : 0;
	r.rules = CFI_BASE_SP | (sp->saved ? CFI_RULE_AT : CFI_RULE_SAME) << 1 |
		  CFI_RULE_SAME << 3 | (unsigned int)sp->src << 5;
	if (sp->sig) {
		r.cfa_off = 0;
		r.ra_off = 0;
		r.rules = (uint8_t)(sp->src << 5);
		r.flags = CFI_F_SIGNAL;
	}
	if (add_row(w, &r))
		return (Dwarf_Addr)-1;
	w->t->covered += r.len;
	w->t->src_bytes[sp->src] += r.len;
	return e;
}

/* Is arm64 register number reg (an instruction's 5-bit field) x29 or x30? */
static int a64_fp_lr(uint32_t reg)
{
	return reg == 29 || reg == 30;
}

/* Is the branch at pc, its offset off instructions, to [lo, hi)? */
static int a64_inside(uint64_t pc, int64_t off, uint64_t lo, uint64_t hi)
{
	uint64_t to = pc + (uint64_t)(off * 4);

	return to >= lo && to < hi;
}

/*
 * Does the arm64 instruction insn at pc, in the function [lo, hi), keep a
 * leaf's frame as it was at the function's entry (SP, x29 and x30 not
 * written, nothing called, no way out but a return)?  1 yes, 0 no or not
 * known, and *ret set when it is a return.  Every encoding not known to
 * keep it is refused, so a function is taken only when all of it is
 * known: the instruction classes of the A64 encoding (data processing,
 * loads and stores, branches, system), a destination of 29 or 30 refused
 * wherever it names a general register, 31 wherever it names SP.
 */
static int a64_keeps_leaf(uint32_t insn, uint64_t pc, uint64_t lo, uint64_t hi, int *ret)
{
	uint32_t rd = insn & 31, rn = (insn >> 5) & 31;

	*ret = 0;
	/* branches, exceptions, system (op0 101) */
	if ((insn & 0x1c000000) == 0x14000000) {
		if ((insn & 0xfffffc1f) == 0xd65f0000 && rn == 30)	/* ret */
			return *ret = 1;
		if (insn == 0xd65f0bff || insn == 0xd65f0fff)		/* retaa, retab */
			return *ret = 1;
		if ((insn & 0xfc000000) == 0x14000000)			/* b */
			return a64_inside(pc, (int32_t)(insn << 6) >> 6, lo, hi);
		if ((insn & 0xff000010) == 0x54000000 ||		/* b.cond */
		    (insn & 0x7e000000) == 0x34000000)			/* cbz, cbnz */
			return a64_inside(pc, (int32_t)(insn << 8) >> 13, lo, hi);
		if ((insn & 0x7e000000) == 0x36000000)			/* tbz, tbnz */
			return a64_inside(pc, (int32_t)(insn << 13) >> 18, lo, hi);
		if ((insn & 0xffe0001f) == 0xd4000001)			/* svc */
			return 1;
		if ((insn & 0xfffff01f) == 0xd503201f ||		/* hints: nop, */
		    (insn & 0xfffff01f) == 0xd503301f)			/* pac, bti; barriers */
			return 1;
		if ((insn & 0xfff00000) == 0xd5300000)			/* mrs xt */
			return !a64_fp_lr(rd);
		return 0;	/* bl, blr, br, eret, brk, msr...: not a leaf's */
	}
	/* data processing, immediate (op0 100) */
	if ((insn & 0x1c000000) == 0x10000000) {
		if (a64_fp_lr(rd))
			return 0;
		if ((insn & 0x1f000000) == 0x11000000)		/* add/sub: rd 31 is SP */
			return rd != 31 || (insn & 0x20000000);	/* but for adds, subs */
		if ((insn & 0x1f800000) == 0x12000000)		/* logical: as add */
			return rd != 31 || (insn & 0x60000000) == 0x60000000;	/* ands */
		return (insn & 0x1f000000) == 0x10000000 ||	/* adr, adrp */
		       (insn & 0x1f800000) == 0x12800000 ||	/* movn, movz, movk */
		       (insn & 0x1f800000) == 0x13000000 ||	/* bitfield */
		       (insn & 0x1f800000) == 0x13800000;	/* extract */
	}
	/* data processing, register (op0 x101) */
	if ((insn & 0x0e000000) == 0x0a000000) {
		if (a64_fp_lr(rd))
			return 0;
		/* add/sub extended register: rd 31 is SP, but for the S forms */
		if ((insn & 0x1f200000) == 0x0b200000 && rd == 31 && !(insn & 0x20000000))
			return 0;
		return 1;
	}
	/* SIMD and floating point (op0 x111): rd a V register, or a general one */
	if ((insn & 0x0e000000) == 0x0e000000)
		return !a64_fp_lr(rd);
	/* loads and stores (op0 x1x0) */
	if ((insn & 0x0a000000) == 0x08000000) {
		uint32_t rt2 = (insn >> 10) & 31, v = insn & 0x04000000;

		if ((insn & 0x3a000000) == 0x28000000) {	/* pairs */
			uint32_t idx = (insn >> 23) & 3, load = insn & 0x00400000;

			if ((idx == 1 || idx == 3) && (rn == 31 || a64_fp_lr(rn)))
				return 0;	/* writes SP, x29 or x30 back */
			return !load || v || (!a64_fp_lr(rd) && !a64_fp_lr(rt2));
		}
		if ((insn & 0x3b000000) == 0x38000000 ||	/* register, unscaled, */
		    (insn & 0x3b000000) == 0x39000000) {	/* unsigned offset */
			uint32_t opc = (insn >> 22) & 3;

			if ((insn & 0x3b200400) == 0x38000400 &&	/* pre or post index */
			    (rn == 31 || a64_fp_lr(rn)))
				return 0;
			if ((insn & 0x3b200c00) == 0x38200000)	/* atomics: rt written */
				return v || !a64_fp_lr(rd);
			return v || opc == 0 || !a64_fp_lr(rd);
		}
		if ((insn & 0x3b000000) == 0x18000000)	/* ldr literal */
			return v || !a64_fp_lr(rd);
		/* exclusives, SIMD structures, the rest: none naming x29-x31 */
		return !a64_fp_lr(rd) && !a64_fp_lr(rt2) && !a64_fp_lr((insn >> 16) & 31) &&
		       rn != 31 && !a64_fp_lr(rn);
	}
	return 0;	/* reserved, SVE, SME: not known */
}

/* Adds the span [vaddr, vaddr + len) of source src: 0, or -1 out of memory. */
static int add_span(struct walk *w, size_t *room, uint64_t vaddr, uint64_t len, int src)
{
	if (w->nplt == *room) {
		struct plt_span *nv;

		*room = *room ? 2 * *room : 16;
		nv = realloc(w->plt, *room * sizeof(*nv));
		if (!nv)
			return -1;
		w->plt = nv;
	}
	w->plt[w->nplt++] = (struct plt_span){ vaddr, len, 0, src, 0 };
	return 0;
}

/*
 * The code of symbol @sym of @e: its section's bytes, with *@at the
 * symbol's offset in them, when the symbol is defined in a code section
 * whose bytes are in the file and @len bytes from it lie in that section;
 * else NULL.  (sig_spans(), leaf_spans())
 */
static const unsigned char *sym_code(Elf *e, const GElf_Sym *sym, uint64_t len,
				     uint64_t *at)
{
	Elf_Scn *cs;
	GElf_Shdr csh;
	Elf_Data *cd;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return NULL;
	cs = elf_getscn(e, sym->st_shndx);
	if (!cs || !gelf_getshdr(cs, &csh) || csh.sh_type != SHT_PROGBITS ||
	    !(csh.sh_flags & SHF_EXECINSTR) || sym->st_value < csh.sh_addr ||
	    sym->st_value - csh.sh_addr > csh.sh_size ||
	    len > csh.sh_size - (sym->st_value - csh.sh_addr))
		return NULL;
	cd = elf_rawdata(cs, NULL);
	if (!cd || !cd->d_buf || cd->d_size != csh.sh_size)
		return NULL;
	*at = sym->st_value - csh.sh_addr;
	return cd->d_buf;
}

/*
 * arm64 signal return trampolines of a file with no CFI at all (the
 * vDSO's __kernel_rt_sigreturn, which its .eh_frame marked a signal frame
 * before the kernel's linker script dropped it): a symbol of .symtab or
 * .dynsym, of any type, whose code is `mov x8, #139; svc #0`, with the
 * nop before it when there is one (a handler's return address less 4 lies
 * there).  Each a span whose row is CFI_F_SIGNAL (the module reads the
 * signal frame).  Adds to w->plt; 0, or -1 out of memory.
 */
static int sig_spans(struct walk *w, Elf *e, const GElf_Ehdr *eh)
{
	size_t room = w->nplt, first = w->nplt, i, j, n;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym sym;

	if (eh->e_machine != EM_AARCH64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			const unsigned char *code;
			uint64_t at, start;
			int dup = 0;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_value % 4 ||
			    !(code = sym_code(e, &sym, 8, &at)) ||
			    le32_at(code + at) != 0xd2801168 ||		/* mov x8, #139 */
			    le32_at(code + at + 4) != 0xd4000001)		/* svc #0 */
				continue;
			start = sym.st_value;
			if (at >= 4 && le32_at(code + at - 4) == 0xd503201f)	/* nop */
				start -= 4;
			/* the same code by another symbol (.symtab and .dynsym) */
			for (j = first; j < w->nplt && !dup; j++)
				dup = w->plt[j].vaddr == start;
			if (dup)
				continue;
			if (add_span(w, &room, start, sym.st_value + 8 - start, CFI_SRC_LEAF))
				return -1;
			w->plt[w->nplt - 1].sig = 1;
		}
	}
	return 0;
}

/*
 * arm64 leaf functions of a file with no CFI at all (the vDSO, whose
 * .eh_frame the kernel's linker script drops): a function (a sized
 * STT_FUNC symbol of .symtab, else .dynsym, in a code section) each of
 * whose instructions keeps the frame it was entered with (a64_keeps_leaf():
 * SP, x29 and x30 never written, nothing called, every branch within it),
 * and that returns, has at each of its instructions the frame of its
 * entry: CFA = SP + 0, the return address still in x30, x29 unchanged,
 * the rule of a PLT entry (the unwinder takes it as the innermost frame
 * only, which a leaf always is).  Pointer authentication's paciasp and
 * autiasp sign x30 in place: the unwinder strips the signature.  Any
 * other function gets no row (a chain through it stops, marked).  Adds to
 * w->plt; 0, or -1 out of memory.
 */
static int leaf_spans(struct walk *w, Elf *e, const GElf_Ehdr *eh)
{
	static const Elf64_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	size_t room = w->nplt, k, first = w->nplt;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (eh->e_machine != EM_AARCH64 || eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	for (k = 0; k < 2 && w->nplt == first; k++) {
		for (scn = NULL; (scn = elf_nextscn(e, scn));) {
			Elf_Data *d;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[k] || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			n = d ? d->d_size / sh.sh_entsize : 0;
			for (i = 0; i < n; i++) {
				const unsigned char *code;
				GElf_Sym sym;
				uint64_t at;
				int ret = 0, ok = 1, r;
				size_t j;

				if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
				    !sym.st_size || sym.st_size % 4 || sym.st_value % 4 ||
				    !(code = sym_code(e, &sym, sym.st_size, &at)))
					continue;
				/* an alias of a function already taken, or overlapping one */
				for (j = 0; j < w->nplt && ok; j++)
					ok = sym.st_value >= w->plt[j].vaddr + w->plt[j].len ||
					     sym.st_value + sym.st_size <= w->plt[j].vaddr;
				code += at;
				for (at = 0; ok && at < sym.st_size; at += 4) {
					ok = a64_keeps_leaf(le32_at(code + at), sym.st_value + at,
							    sym.st_value, sym.st_value + sym.st_size,
							    &r);
					ret |= r;
				}
				if (ok && ret && add_span(w, &room, sym.st_value, sym.st_size,
							  CFI_SRC_LEAF))
					return -1;
			}
		}
	}
	return 0;
}

/* The rows of one range of code: [vaddr, vaddr + len) at file offset off. */
static int walk_range(struct walk *w, uint64_t vaddr, uint64_t len, uint64_t off)
{
	uint64_t end = vaddr + len, addr = vaddr;

	while (addr < end) {
		Dwarf_Frame *f = NULL;
		Dwarf_Addr s, e, fe, p, q, cut;
		struct cfi_row r;
		unsigned int k;
		bool sig;
		int src, ra;

		for (src = CFI_SRC_EH; src < CFI_NDWARF; src++) {
			if (src == CFI_SRC_DFILE && !w->dtried)
				dfile_open(w);
			if (w->cfi[src] && !dwarf_cfi_addrframe(w->cfi[src], addr, &f))
				break;
		}
		ra = f ? dwarf_frame_info(f, &s, &e, &sig) : -1;
		if (ra < 0 || e <= addr) {
			free(f);
			/* no CFI here: arm64's PLT code has rows of its own */
			p = plt_row(w, addr, end, vaddr, off);
			if (p == (Dwarf_Addr)-1)
				return -1;
			if (p) {
				addr = p;
				continue;
			}
			/* no row here: the next instruction (a range at the top of
			 * the address space ends rather than wraps) */
			if (end - addr <= w->a.step)
				break;
			addr += w->a.step;
			continue;
		}
		fe = e;		/* the row's own end, before the cuts below */
		if (e > end)
			e = end;
		if (e - addr > UINT32_MAX)
			e = addr + UINT32_MAX;
		/* an earlier source wins where both cover */
		for (p = addr + w->a.step; src > CFI_SRC_EH && p < e; p += w->a.step)
			if (earlier_covers(w, src, p))
				e = p;
		frame_rules(w, f, ra, sig, src, &r);
		k = r.flags == CFI_F_CFA_EXPR ? plt_cut(w, f, s, fe) : 0;
		free(f);
		for (q = addr; q < e; q = cut) {
			/* a PLT entry's two parts, or the row whole */
			cut = e;
			if (k) {
				Dwarf_Addr entry = q & ~(Dwarf_Addr)15;

				r.flags = 0;
				r.cfa_off = q < entry + k ? 8 : 16;
				cut = q < entry + k ? entry + k : entry + 16;
				if (cut > e)
					cut = e;
			}
			r.start = q - vaddr + off;
			r.len = (uint32_t)(cut - q);
			if (add_row(w, &r))
				return -1;
			w->t->covered += r.len;
			w->t->src_bytes[src] += r.len;
		}
		addr = e;
	}
	return 0;
}

/* Is there a section of this name, with bytes in the file? */
static int has_section(Elf *e, const char *name)
{
	GElf_Shdr sh;

	return elf_section_named(e, name, &sh) && sh.sh_type != SHT_NOBITS;
}

static void count_flags(struct cfi_table *t)
{
	size_t i;
	unsigned int b;

	for (i = 0; i < t->n; i++) {
		if (!t->rows[i].flags)
			continue;
		t->flagged++;
		t->flagged_bytes += t->rows[i].len;
		for (b = 0; b < CFI_NFLAGS; b++)
			if (t->rows[i].flags & 1U << b)
				t->by_flag[b]++;
	}
}

/* A range of code: [vaddr, vaddr + len) at file offset off. */
struct range {
	uint64_t vaddr, len, off;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/*
 * The code sections (allocated, SHF_EXECINSTR, bytes in the file) that lie
 * wholly inside one of the executable segments segs[0..nseg), sorted, an
 * overlapping one left out: *out (malloc'ed) and *nout, 0 when the file
 * has no section headers or no such section.  0, or -1 out of memory.
 */
static int code_sections(Elf *e, const struct range *segs, size_t nseg,
			 struct range **out, size_t *nout)
{
	Elf_Scn *scn = NULL;
	struct range *v = NULL;
	size_t n = 0, room = 0, i, k;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
		    !sh.sh_size || sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		for (i = 0; i < nseg; i++)
			if (sh.sh_addr >= segs[i].vaddr &&
			    sh.sh_addr + sh.sh_size <= segs[i].vaddr + segs[i].len)
				break;
		if (i == nseg)
			continue;
		if (n == room) {
			struct range *nv;

			room = room ? 2 * room : 16;
			nv = realloc(v, room * sizeof(*v));
			if (!nv) {
				free(v);
				return -1;
			}
			v = nv;
		}
		v[n].vaddr = sh.sh_addr;
		v[n].len = sh.sh_size;
		v[n].off = sh.sh_addr - segs[i].vaddr + segs[i].off;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_range);
	for (i = k = 0; i < n; i++)
		if (!k || v[i].vaddr >= v[k - 1].vaddr + v[k - 1].len)
			v[k++] = v[i];
	*out = v;
	*nout = k;
	return 0;
}

/*
 * The executable PT_LOADs, each within the file (a hostile size is not
 * walked): *segs (malloc'ed, sorted) and *nseg.  0, or -1 with err set.
 */
static int exec_segments(struct walk *w, Elf *e, struct range **segs, size_t *nseg)
{
	size_t i, n = 0, nph, fsize;
	struct range *v;

	if (!elf_rawfile(e, &fsize) || elf_getphdrnum(e, &nph)) {
		seterr(w->err, w->errlen, "%s: %s", w->path, elf_errmsg(-1));
		return -1;
	}
	v = calloc(nph ? nph : 1, sizeof(*v));
	if (!v) {
		seterr(w->err, w->errlen, "%s: %s", w->path, strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		if (ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr) {
			seterr(w->err, w->errlen, "%s: PT_LOAD %zu lies past the end of the file",
			       w->path, i);
			free(v);
			return -1;
		}
		v[n].vaddr = ph.p_vaddr;
		v[n].len = ph.p_filesz;
		v[n].off = ph.p_offset;
		n++;
	}
	if (!n) {
		seterr(w->err, w->errlen, "%s: no executable PT_LOAD segment", w->path);
		free(v);
		return -1;
	}
	qsort(v, n, sizeof(*v), cmp_range);
	*segs = v;
	*nseg = n;
	return 0;
}

/*
 * Does the debug file d put e's code where e has it?  Each code section of
 * e (allocated, executable) at the same address and size in d, under the
 * same name (a debug file keeps them, without their bytes); in a file
 * without section headers, each executable PT_LOAD at the same address and
 * size among d's.  NULL, or what differs (malloc'ed; "?" out of memory).
 */
static char *layout_differs(Elf *e, Elf *d, int sections)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, i, j, nph, dnph;
	GElf_Shdr sh, dsh;
	GElf_Phdr ph, dph;
	char *why = NULL;

	if (sections && !elf_getshdrstrndx(e, &shstrndx)) {
		while (!why && (scn = elf_nextscn(e, scn))) {
			const char *n;

			if (!gelf_getshdr(scn, &sh) || !sh.sh_size ||
			    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
			    (SHF_ALLOC | SHF_EXECINSTR))
				continue;
			n = elf_strptr(e, shstrndx, sh.sh_name);
			if (!n)
				continue;
			if (!elf_section_named(d, n, &dsh)) {
				if (asprintf(&why, "no %s section", n) < 0)
					why = NULL;
			} else if (dsh.sh_addr != sh.sh_addr || dsh.sh_size != sh.sh_size) {
				if (asprintf(&why, "its %s at %#" PRIx64 " (%#" PRIx64
					     " bytes), the file's at %#" PRIx64 " (%#" PRIx64
					     " bytes)", n, (uint64_t)dsh.sh_addr,
					     (uint64_t)dsh.sh_size, (uint64_t)sh.sh_addr,
					     (uint64_t)sh.sh_size) < 0)
					why = NULL;
			} else {
				continue;
			}
			return why ? why : strdup("?");
		}
		return NULL;
	}
	if (elf_getphdrnum(e, &nph) || elf_getphdrnum(d, &dnph))
		return strdup("no program headers");
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		for (j = 0; j < dnph; j++)
			if (gelf_getphdr(d, (int)j, &dph) && dph.p_type == PT_LOAD &&
			    dph.p_vaddr == ph.p_vaddr && dph.p_memsz == ph.p_memsz)
				break;
		if (j < dnph)
			continue;
		if (asprintf(&why, "no PT_LOAD at %#" PRIx64 " (%#" PRIx64 " bytes) as the file's",
			     (uint64_t)ph.p_vaddr, (uint64_t)ph.p_memsz) < 0)
			why = NULL;
		return why ? why : strdup("?");
	}
	return NULL;
}

/*
 * The file's separate debug file (usym_debug_file()), looked for once: its
 * .debug_frame becomes the walk's CFI_SRC_DFILE when it puts the file's
 * code where the file has it.  What became of it goes into the table
 * (dfile, dfile_path, dfile_how, dfile_note).
 */
static void dfile_open(struct walk *w)
{
	static const char *const how[] = {
		[USYM_DEBUG_BUILD_ID] = "build ID",
		[USYM_DEBUG_LINK] = ".gnu_debuglink",
		[USYM_DEBUG_FETCHED] = "debuginfod",
	};
	struct cfi_table *t = w->t;

	w->dtried = 1;
	t->dfile = CFI_DFILE_NONE;
	usym_debug_file(w->e, w->fd, "", w->lookup, &w->dbg);
	if (!w->dbg.e) {
		t->dfile_note = w->dbg.refused;
		w->dbg.refused = NULL;
		return;
	}
	t->dfile = CFI_DFILE_UNUSED;
	t->dfile_path = w->dbg.path;
	w->dbg.path = NULL;
	t->dfile_how = w->dbg.how > USYM_DEBUG_NONE && w->dbg.how <= USYM_DEBUG_FETCHED ?
		       how[w->dbg.how] : "?";
	t->dfile_note = layout_differs(w->e, w->dbg.e, t->sections);
	if (t->dfile_note)
		return;
	if (has_section(w->dbg.e, ".debug_frame"))
		w->ddw = dwarf_begin_elf(w->dbg.e, DWARF_C_READ, NULL);
	if (w->ddw)
		w->cfi[CFI_SRC_DFILE] = dwarf_getcfi(w->ddw);
	if (!w->cfi[CFI_SRC_DFILE]) {
		t->dfile_note = strdup("no .debug_frame");
		return;
	}
	t->dfile = CFI_DFILE_READ;
}

/* "PATH: no call frame information ...", with what became of a debug file. */
static void no_cfi_error(struct walk *w)
{
	const struct cfi_table *t = w->t;
	const char *note = t->dfile_note ? t->dfile_note : "?";

	if (t->dfile == CFI_DFILE_UNUSED)
		seterr(w->err, w->errlen, "%s: no call frame information (.eh_frame, "
		       ".debug_frame); its debug file %s (%s) not used: %s", w->path,
		       t->dfile_path, t->dfile_how, note);
	else if (t->dfile == CFI_DFILE_NONE && t->dfile_note)
		seterr(w->err, w->errlen, "%s: no call frame information (.eh_frame, "
		       ".debug_frame); no debug file (refused %s)", w->path, note);
	else
		seterr(w->err, w->errlen, "%s: no call frame information (.eh_frame, .debug_frame)",
		       w->path);
}

static int walk_file(struct walk *w, Elf *e)
{
	struct range *segs = NULL, *secs = NULL, *walk;
	struct cfi_table *t = w->t;
	size_t i, nseg, nsec, nwalk;
	int ret = -1;
	GElf_Ehdr eh;

	if (!gelf_getehdr(e, &eh)) {
		seterr(w->err, w->errlen, "%s: %s", w->path, elf_errmsg(-1));
		return -1;
	}
	t->machine = eh.e_machine;
	if (eh.e_machine == EM_X86_64) {
		w->a = (struct arch){ .sp = 7, .fp = 6, .step = 1 };
	} else if (eh.e_machine == EM_AARCH64) {
		w->a = (struct arch){ .sp = 31, .fp = 29, .step = 4 };
	} else {
		seterr(w->err, w->errlen, "%s: machine %u not supported (x86-64, arm64)",
		       w->path, eh.e_machine);
		return -1;
	}
	if (exec_segments(w, e, &segs, &nseg))
		return -1;
	if (plt_spans(w, e, &eh)) {
		seterr(w->err, w->errlen, "%s: %s", w->path, strerror(ENOMEM));
		goto out;
	}
	/*
	 * The code sections where the file has them: an executable segment
	 * also holds headers, and on arm64 the read-only data, which no FDE
	 * covers.  Without section headers, the segments whole.
	 */
	if (code_sections(e, segs, nseg, &secs, &nsec)) {
		seterr(w->err, w->errlen, "%s: %s", w->path, strerror(ENOMEM));
		goto out;
	}
	t->sections = nsec > 0;
	/* no CFI of its own: its debug file's, or none */
	if (!w->cfi[CFI_SRC_EH] && !w->cfi[CFI_SRC_DEBUG])
		dfile_open(w);
	if (!w->cfi[CFI_SRC_EH] && !w->cfi[CFI_SRC_DEBUG] && !w->cfi[CFI_SRC_DFILE]) {
		size_t before = w->nplt;

		/*
		 * no CFI at all: arm64's signal trampolines and leaf
		 * functions read from their code
		 */
		if (sig_spans(w, e, &eh) || leaf_spans(w, e, &eh)) {
			seterr(w->err, w->errlen, "%s: %s", w->path, strerror(ENOMEM));
			goto out;
		}
		if (w->nplt == before) {
			no_cfi_error(w);
			goto out;
		}
	}
	walk = nsec ? secs : segs;
	nwalk = nsec ? nsec : nseg;
	for (i = 0; i < nwalk; i++) {
		t->exec_bytes += walk[i].len;
		if (walk_range(w, walk[i].vaddr, walk[i].len, walk[i].off))
			goto out;
	}
	count_flags(t);
	ret = 0;
out:
	free(secs);
	free(segs);
	return ret;
}

int cfi_build(const char *path, size_t max_rows, struct cfi_table *t,
	      char *err, size_t errlen)
{
	struct walk w = { .t = t, .max_rows = max_rows, .err = err, .errlen = errlen,
			  .path = path, .dbg = { .fd = -1 } };
	char *real = realpath(path, NULL);
	Dwarf *dw = NULL;
	Elf *e = NULL;
	int fd, ret = -1;

	memset(t, 0, sizeof(*t));
	e = elf_file_open(path, ELF_C_READ_MMAP, &fd, err, errlen);
	if (!e) {
		free(real);
		return -1;
	}
	/* a .gnu_debuglink's file is looked for in the file's directory */
	w.e = e;
	w.fd = fd;
	w.lookup = real ? real : path;
	w.cfi[CFI_SRC_EH] = dwarf_getcfi_elf(e);
	if (has_section(e, ".debug_frame")) {
		dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
		if (dw)
			w.cfi[CFI_SRC_DEBUG] = dwarf_getcfi(dw);
	}
	t->has_eh = !!w.cfi[CFI_SRC_EH];
	t->has_debug = !!w.cfi[CFI_SRC_DEBUG];
	ret = walk_file(&w, e);
	if (w.cfi[CFI_SRC_EH])
		dwarf_cfi_end(w.cfi[CFI_SRC_EH]);
	if (dw)
		dwarf_end(dw);
	if (w.ddw)
		dwarf_end(w.ddw);
	usym_debug_end(&w.dbg);
	free(w.plt);
	elf_end(e);
	close(fd);
	free(real);
	if (ret)
		cfi_free(t);
	return ret;
}

