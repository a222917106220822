/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi (tests/cfi_tests.sh): x86-64 functions whose
 * call frame information the .cfi_* directives state, so each row's range
 * and rules are known from the symbols.  No alignment between functions:
 * adjacent rows are adjacent bytes.
 */
	.text

/* push rbp; mov rsp, rbp; nop; pop rbp; ret */
	.globl	f_frame
	.type	f_frame, @function
f_frame:
	.cfi_startproc
	pushq	%rbp			/* +0, 1 byte */
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp		/* +1, 3 bytes */
	.cfi_def_cfa_register %rbp
	nop				/* +4 */
	popq	%rbp			/* +5 */
	.cfi_restore %rbp
	.cfi_def_cfa %rsp, 8
	ret				/* +6 */
	.cfi_endproc
	.size	f_frame, .-f_frame

/* two leaves with the rules of a call's entry: one merged row */
	.globl	f_leaf1
	.type	f_leaf1, @function
f_leaf1:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size	f_leaf1, .-f_leaf1

	.globl	f_leaf2
	.type	f_leaf2, @function
f_leaf2:
	.cfi_startproc
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	f_leaf2, .-f_leaf2

/* no CFI: bytes no row covers */
	.globl	f_bare
	.type	f_bare, @function
f_bare:
	nop
	nop
	nop
	ret
	.size	f_bare, .-f_bare

/* push rbx; sub $0x1000, rsp: a large frame */
	.globl	f_big
	.type	f_big, @function
f_big:
	.cfi_startproc
	pushq	%rbx			/* +0, 1 byte */
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	subq	$0x1000, %rsp		/* +1, 7 bytes */
	.cfi_def_cfa_offset 4112
	nop				/* +8 */
	addq	$0x1000, %rsp		/* +9, 7 bytes */
	.cfi_def_cfa_offset 16
	popq	%rbx			/* +16 */
	.cfi_def_cfa_offset 8
	ret				/* +17 */
	.cfi_endproc
	.size	f_big, .-f_big

/*
 * A PLT's rules: after its two pushes the CFA is rsp + 8, plus 8 when the
 * PC is past the 11th byte of its 16-byte entry (the expression the
 * linker writes for .plt).
 */
	.globl	f_plt
	.type	f_plt, @function
f_plt:
	.cfi_startproc
	.cfi_def_cfa_offset 16
	nop				/* +0 */
	.cfi_def_cfa_offset 24
	nop				/* +1 */
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	nop				/* +2 */
	nop
	ret				/* +4 */
	.cfi_endproc
	.size	f_plt, .-f_plt

/* a signal frame's trampoline ('S' augmentation) */
	.globl	f_signal
	.type	f_signal, @function
f_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop
	ret
	.cfi_endproc
	.size	f_signal, .-f_signal

/* the outermost frame: RA undefined, the chain ends here */
	.globl	f_start
	.type	f_start, @function
f_start:
	.cfi_startproc
	.cfi_undefined %rip
	xorl	%ebp, %ebp
	hlt
	.cfi_endproc
	.size	f_start, .-f_start

/* the return address kept in another register: not expressible */
	.globl	f_rareg
	.type	f_rareg, @function
f_rareg:
	.cfi_startproc
	popq	%rax			/* +0 */
	.cfi_def_cfa_offset 0
	.cfi_register %rip, %rax
	jmp	*%rax			/* +1 */
	.cfi_endproc
	.size	f_rareg, .-f_rareg

	.section .note.GNU-stack, "", @progbits
