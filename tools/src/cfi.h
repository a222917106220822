/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cfi - compact unwind tables of one ELF file, from its call frame
 * information (.eh_frame, and .debug_frame where .eh_frame says nothing,
 * and where neither does, the .debug_frame of its separate debug file),
 * read by elfutils' libdw.  Issue 38, item 1, first step: the tools build
 * the tables; handing them to the module and unwinding with them come next.
 *
 * A table is keyed by FILE OFFSET, as the module's user-objects table keys
 * code (file identity + offset in the file): the code sections (SHF_EXECINSTR)
 * of every executable PT_LOAD are walked (the PT_LOADs whole in a file
 * without section headers), each row covers [start, end) of the file and says how
 * to find the caller's frame there, in a form an unwinder can apply with
 * no DWARF interpreter:
 *
 *	CFA = SP or FP + cfa_off
 *	RA  = at CFA + ra_off, or still in its register (arm64's LR in a
 *	      leaf), or undefined (the outermost frame: the chain ends)
 *	FP  = at CFA + fp_off, or unchanged
 *
 * Whatever that cannot say sets a flag (CFI_F_*), and the unwinder stops
 * there with the chain marked truncated.  Rows are sorted, do not overlap,
 * and adjacent rows with the same rules are merged; bytes no CFI covers
 * have no row.  Register numbers are the file's machine's (e_machine:
 * x86-64, arm64), so any file is read on any host.
 */
#ifndef PRF_CFI_H
#define PRF_CFI_H

#include <stddef.h>
#include <stdint.h>

/* The CFA's base register. */
enum { CFI_BASE_SP = 0, CFI_BASE_FP = 1 };

/* Where the caller's RA or FP is. */
enum {
	CFI_RULE_SAME = 0,	/* unchanged: still in its register */
	CFI_RULE_AT = 1,	/* saved at CFA + off */
	CFI_RULE_UNDEF = 2,	/* undefined: for RA, the outermost frame */
};

/* What the compact form cannot say: the unwinder stops (truncated). */
enum {
	CFI_F_CFA_EXPR = 1 << 0,	/* the CFA is a DWARF expression (x86-64's PLT) */
	CFI_F_CFA_REG = 1 << 1,		/* the CFA is off another register, or undefined */
	CFI_F_RA = 1 << 2,		/* RA: an expression, another register, a value */
	CFI_F_FP = 1 << 3,		/* FP: the same */
	CFI_F_SIGNAL = 1 << 4,		/* a signal frame ('S' augmentation) */
};

#define CFI_NFLAGS 5

/* Where a row's rules came from, the first that covers its bytes winning. */
enum {
	CFI_SRC_EH = 0,		/* the file's .eh_frame */
	CFI_SRC_DEBUG = 1,	/* the file's .debug_frame */
	CFI_SRC_DFILE = 2,	/* its separate debug file's .debug_frame */
	CFI_SRC_PLT = 3,	/* arm64's PLT, read from its instructions (no CFI) */
	CFI_SRC_LEAF = 4,	/* arm64 leaf functions of a file of no CFI, read so */
};

#define CFI_NSRC 5
#define CFI_NDWARF 3		/* the sources libdw reads: EH, DEBUG, DFILE */

/* What became of the separate debug file (cfi_table.dfile). */
enum {
	CFI_DFILE_UNNEEDED = 0,	/* not looked for: the file's own CFI covers its code */
	CFI_DFILE_NONE,		/* none found (dfile_note: a candidate refused, or NULL) */
	CFI_DFILE_UNUSED,	/* found, not read (dfile_note says why) */
	CFI_DFILE_READ,		/* its .debug_frame read */
};

/*
 * One row: 24 bytes, the size the summary counts.  ra_off and fp_off are
 * 16 bits: a save farther from the CFA is flagged (CFI_F_RA, CFI_F_FP).
 */
struct cfi_row {
	uint64_t start;		/* first file offset covered */
	uint32_t len;		/* bytes covered: [start, start + len) */
	int32_t cfa_off;
	int16_t ra_off;		/* CFI_RULE_AT: RA at CFA + ra_off */
	int16_t fp_off;		/* CFI_RULE_AT: FP at CFA + fp_off */
	/* CFA base (bit 0), RA rule (bits 1-2), FP rule (bits 3-4), source (bits 5-7) */
	uint8_t rules;
	uint8_t flags;		/* CFI_F_* */
};

#define CFI_ROW_BASE(r)		((r)->rules & 1)
#define CFI_ROW_RA(r)		(((r)->rules >> 1) & 3)
#define CFI_ROW_FP(r)		(((r)->rules >> 3) & 3)
#define CFI_ROW_SRC(r)		(((r)->rules >> 5) & 7)

struct cfi_table {
	struct cfi_row *rows;	/* sorted by start, no overlap */
	size_t n;
	int machine;		/* e_machine: EM_X86_64 or EM_AARCH64 */
	int has_eh, has_debug;	/* .eh_frame, .debug_frame present */
	int sections;		/* 1: the code sections walked, 0: the segments whole */
	uint64_t exec_bytes;	/* bytes walked: of the code sections inside the
				 * executable PT_LOADs, else of those PT_LOADs */
	uint64_t covered;	/* of them, in a row */
	uint64_t src_bytes[CFI_NSRC];	/* covered, by CFI_SRC_* */
	size_t flagged;		/* rows with flags */
	uint64_t flagged_bytes;
	size_t by_flag[CFI_NFLAGS];	/* rows with each flag */
	int dfile;		/* CFI_DFILE_* */
	char *dfile_path;	/* the debug file found (malloc'ed), or NULL */
	const char *dfile_how;	/* how: "build ID", ".gnu_debuglink", "debuginfod" */
	char *dfile_note;	/* why none was used (malloc'ed), or NULL */
};

/*
 * cfi_build - the table of the ELF file at path, at most max_rows rows
 * (merged).  Where the file's own CFI leaves code uncovered (or it has
 * none), its separate debug file is looked for as usym_debug_file() finds
 * one (by build ID, by .gnu_debuglink and its CRC-32, from debuginfod),
 * and its .debug_frame read for the bytes the file's own CFI does not
 * cover, when the debug file puts the file's code sections (without
 * section headers: its executable PT_LOADs) at the same addresses.  0; or
 * -1 with err set: not an ELF file, a machine other than x86-64 and arm64,
 * no CFI (no .eh_frame, .debug_frame, nor a debug file's), no executable
 * PT_LOAD or one past the end of the file, more than max_rows rows, out of
 * memory, the CFI unreadable.  Bytes no CFI covers are probed one
 * instruction alignment at a time (1 byte on x86-64, 4 on arm64).
 */
int cfi_build(const char *path, size_t max_rows, struct cfi_table *t,
	      char *err, size_t errlen);
void cfi_free(struct cfi_table *t);

struct prf_unwind_row;

/*
 * The rows of @t as the module takes them (PRF_SETUNWIND, uapi/linux/prf.h:
 * the same layout and rule values): into @out (t->n of them), the source
 * bits cleared, a row with any CFI_F_* flag, or a save at an offset not a
 * multiple of 8, PRF_UNWIND_ROW_STOP (the module's walk stops there).
 * Returns the rows marked so.
 */
size_t cfi_unwind_rows(const struct cfi_table *t, struct prf_unwind_row *out);

/*
 * Does @t's code keep frame pointers (PRF_UNWIND_FRAMEPTR: the module
 * may follow frame records where no row covers a return address)?  On
 * x86-64, when the CFA is off rbp in at least CFI_FRAMEPTR_PCT of the
 * bytes the rows cover: code built with frame pointers has it so from the
 * prologue's third instruction to the epilogue, code built without them
 * only in functions with a variable frame (alloca).  Never on arm64,
 * whose CFI has the CFA off sp whether x29 holds a frame record or not.
 */
#define CFI_FRAMEPTR_PCT 60
int cfi_keeps_frame_pointers(const struct cfi_table *t);
/* The bytes @t's rows cover with the CFA off FP (rows without flags). */
uint64_t cfi_fp_bytes(const struct cfi_table *t);

/* "x86-64", "arm64". */
const char *cfi_machine_name(int machine);
/* The flag's name ("cfa-expr", ...) for bit i < CFI_NFLAGS. */
const char *cfi_flag_name(unsigned int i);

#endif /* PRF_CFI_H */
