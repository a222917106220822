/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi's rows of arm64 leaf functions in a file with no
 * CFI at all, as the kernel's vDSO is (tests/cfi_tests.sh): a function
 * each of whose instructions keeps the frame it was entered with (SP, x29
 * and x30 never written, nothing called, every branch within it) and that
 * returns has the rule of its entry throughout: CFA = SP + 0, the return
 * address in x30.  f_plain, f_pac (pointer authentication signs x30 in
 * place) and f_svc (a system call, as the vDSO's fallback makes) are such;
 * each function between them breaks one condition and gets no row, so the
 * rows stay apart.  f_alias names f_plain's code again.  f_noret and
 * f_sigret (the vDSO's __kernel_rt_sigreturn: a symbol of no type, a nop
 * before it) are signal return trampolines, `mov x8, #139; svc #0`: a
 * row that says so each, the nop before f_sigret in its row.
 */
	.text
	.p2align 4

	.globl	f_plain
	.hidden	f_plain			/* called and jumped to: no PLT */
	.type	f_plain, %function
f_plain:
	ldr	x1, [x0]
	add	x2, x1, #8
	cmp	x2, x0
	b.ne	1f
	mov	x0, xzr
1:	stp	x1, x2, [x0]
	ldp	x3, x4, [x0, #16]
	ret
	.size	f_plain, . - f_plain
	.globl	f_alias
	.type	f_alias, %function
	.set	f_alias, f_plain
	.size	f_alias, 32

	.globl	f_bl
	.type	f_bl, %function
f_bl:					/* calls: x30 written */
	bl	f_plain
	ret
	.size	f_bl, . - f_bl

	.globl	f_pac
	.type	f_pac, %function
f_pac:
	paciasp
	ldr	x1, [x0]
	cbz	x1, 2f
	str	x1, [x0, #8]
2:	autiasp
	ret
	.size	f_pac, . - f_pac

	.globl	f_push
	.type	f_push, %function
f_push:					/* a frame record: SP written back */
	stp	x29, x30, [sp, #-16]!
	ldp	x29, x30, [sp], #16
	ret
	.size	f_push, . - f_push

	.globl	f_svc
	.type	f_svc, %function
f_svc:
	mov	x8, #113
	svc	#0
	ret
	.size	f_svc, . - f_svc

	.globl	f_subsp
	.type	f_subsp, %function
f_subsp:				/* SP moved */
	sub	sp, sp, #16
	add	sp, sp, #16
	ret
	.size	f_subsp, . - f_subsp

	.globl	f_fp
	.type	f_fp, %function
f_fp:					/* x29 written */
	mov	x29, sp
	ret
	.size	f_fp, . - f_fp

	.globl	f_ldlr
	.type	f_ldlr, %function
f_ldlr:					/* x30 loaded */
	ldr	x30, [x0]
	ret
	.size	f_ldlr, . - f_ldlr

	.globl	f_tail
	.type	f_tail, %function
f_tail:					/* leaves by a branch out of it */
	add	x0, x0, #1
	b	f_plain
	.size	f_tail, . - f_tail

	.globl	f_noret
	.type	f_noret, %function
f_noret:				/* never returns: a signal trampoline */
	mov	x8, #139
	svc	#0
	.size	f_noret, . - f_noret

	.p2align 4
	.globl	f_sigpad
f_sigpad:
	nop				/* a handler's return address less 4 */
	.globl	f_sigret
f_sigret:				/* the vDSO's: a symbol of no type */
	mov	x8, #139
	svc	#0
	.size	f_sigret, . - f_sigret

	.globl	f_end
f_end:
	nop
