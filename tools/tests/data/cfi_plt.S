/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi's rows of x86-64's lazy PLT (tests/cfi_tests.sh):
 * a PLT as the linker lays it out and describes it, 16-byte entries from
 * a 16-byte boundary, PLT0 first, one FDE for all of it: after PLT0 the
 * CFA is rsp + 8, plus 8 from the 11th byte of each entry on (past its
 * push), one DWARF expression.  Then the same expression over 24 bytes,
 * not whole entries, which stays an expression (flagged).  The bytes are
 * nops of the instructions' sizes: only the CFI is read.
 */
	.text
	.p2align 4
	.globl	f_plt0
	.type	f_plt0, @function
f_plt0:
	.cfi_startproc
	.cfi_def_cfa_offset 16
	.skip	6, 0x90			/* +0: pushq GOT+8(%rip) */
	.cfi_def_cfa_offset 24
	.skip	10, 0x90		/* +6: jmp *GOT+16(%rip); nopl */
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	.globl	f_plt1
f_plt1:
	.skip	16, 0x90		/* jmp *GOT+n(%rip) (6); push $i (5); jmp PLT0 (5) */
	.globl	f_plt2
f_plt2:
	.skip	16, 0x90
	.globl	f_plt3
f_plt3:
	.skip	16, 0x90
	.cfi_endproc
	.size	f_plt0, .-f_plt0

	.p2align 4
	.globl	f_odd
	.type	f_odd, @function
f_odd:
	.cfi_startproc
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	.skip	24, 0x90
	.cfi_endproc
	.size	f_odd, .-f_odd
