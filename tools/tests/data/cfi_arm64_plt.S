/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Known truth for prf cfi's rows of arm64's PLT (tests/cfi_tests.sh): a
 * .plt as the linker lays it out, with no CFI (the linker writes none):
 * PLT0, which pushes x16 and x30 before it jumps to the resolver, then a
 * plain entry and a hardened one (bti c, autia1716).  The rows are read
 * from the instructions.  Built with -DODD, the last entry also writes
 * x30, which no PLT does: the section gets no rows at all.  A function
 * with CFI after it, so that the file has some.
 */
	.section .plt, "ax", %progbits
	.p2align 4
	.globl	f_plt0
	.type	f_plt0, %function
f_plt0:
	stp	x16, x30, [sp, #-16]!	/* +0 */
	adrp	x16, .Lgot		/* +4: CFA sp + 16, RA at CFA - 8 */
	ldr	x17, [x16, #8]
	add	x16, x16, #8
	br	x17			/* +16 */
	nop				/* +20: back to sp + 0 */
	nop
	nop
	.globl	f_plt1
f_plt1:
	adrp	x16, .Lgot
	ldr	x17, [x16, #16]
	add	x16, x16, #16
	br	x17
	.globl	f_plt2
f_plt2:
	bti	c
	adrp	x16, .Lgot
	ldr	x17, [x16, #24]
	add	x16, x16, #24
	autia1716
	br	x17
#ifdef ODD
	mov	x30, x0
#else
	nop
#endif
	nop
	.globl	f_pltend
f_pltend:

	.text
	.globl	f_text
	.type	f_text, %function
f_text:
	.cfi_startproc
	nop
	ret
	.cfi_endproc
	.size	f_text, .-f_text

	.data
.Lgot:
	.quad	0, 0, 0, 0

	.section .note.GNU-stack, "", %progbits
