/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi (tests/cfi_tests.sh): arm64 functions whose call
 * frame information the .cfi_* directives state.  Every instruction is 4
 * bytes.
 */
	.text

/* stp x29, x30, [sp, -32]!; mov x29, sp; nop; ldp x29, x30, [sp], 32; ret */
	.globl	f_frame
	.type	f_frame, %function
f_frame:
	.cfi_startproc
	stp	x29, x30, [sp, -32]!	/* +0 */
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp			/* +4 */
	.cfi_def_cfa_register 29
	nop				/* +8 */
	ldp	x29, x30, [sp], 32	/* +12 */
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret				/* +16 */
	.cfi_endproc
	.size	f_frame, .-f_frame

/* a leaf: the return address still in x30, the CFA the SP */
	.globl	f_leaf
	.type	f_leaf, %function
f_leaf:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size	f_leaf, .-f_leaf

/* the outermost frame: RA undefined */
	.globl	f_start
	.type	f_start, %function
f_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, 0
	brk	0
	.cfi_endproc
	.size	f_start, .-f_start

/* the CFA off another register (x9): not expressible */
	.globl	f_other
	.type	f_other, %function
f_other:
	.cfi_startproc
	.cfi_def_cfa x9, 16
	nop
	ret
	.cfi_endproc
	.size	f_other, .-f_other

	.section .note.GNU-stack, "", %progbits
