/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi: a function whose call frame information is in
 * .debug_frame alone (linked after cfi_x86.S's).
 */
	.cfi_sections .debug_frame
	.text
	.globl	f_dbg
	.type	f_dbg, @function
f_dbg:
	.cfi_startproc
	pushq	%rbp			/* +0 */
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	popq	%rbp			/* +1 */
	.cfi_def_cfa_offset 8
	ret				/* +2 */
	.cfi_endproc
	.size	f_dbg, .-f_dbg

	.section .note.GNU-stack, "", @progbits
