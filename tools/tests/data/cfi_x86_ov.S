/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi: the same five bytes of code described twice.
 * Built as is, f_ov's CFI is in .eh_frame and the two bytes before it
 * (g_pad) have none; built with -DDFILE (the debug file's build: the same
 * layout), one FDE of .debug_frame covers g_pad and f_ov together, with
 * other rules.  Read together, .eh_frame wins over f_ov and the debug
 * file's rows end where it begins.
 */
#ifdef DFILE
	.cfi_sections .debug_frame
#endif
	.text
	.globl	g_pad
	.type	g_pad, @function
g_pad:
#ifdef DFILE
	.cfi_startproc
#endif
	nop				/* +0 */
	nop				/* +1 */
#ifndef DFILE
	.size	g_pad, .-g_pad
	.globl	f_ov
	.type	f_ov, @function
f_ov:
	.cfi_startproc
#endif
	pushq	%rbp			/* g_pad+2, f_ov+0 */
	.cfi_def_cfa_offset 16
#ifdef DFILE
	.cfi_offset %rbp, -16
#endif
	popq	%rbp			/* g_pad+3, f_ov+1 */
	.cfi_def_cfa_offset 8
	ret				/* g_pad+4, f_ov+2 */
	.cfi_endproc
#ifdef DFILE
	.size	g_pad, .-g_pad
#else
	.size	f_ov, .-f_ov
#endif

	.section .note.GNU-stack, "", @progbits
