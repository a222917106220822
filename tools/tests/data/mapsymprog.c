// SPDX-License-Identifier: GPL-2.0-only
/*
 * mapsymprog - a program whose symbol table holds mapping-symbol names
 * (issue 39) where arm64's assembler puts them: "$x" at the start of a
 * local function, "$d.1", "$x.2" and RISC-V's "$xrv64i2p1" inside it.
 * Typed as functions, so that only their names tell them apart (arm64's
 * own are untyped): the unit test reads its table with usym_add_file().
 * "nop" and "ret" assemble on x86 and arm64 alike.
 */
__asm__(".text\n"
	".type mapsym_fn, %function\n"
	"mapsym_fn:\n"
	"\"$x\":\n"
	"	nop\n"
	"\"$d.1\":\n"
	"	nop\n"
	"\"$x.2\":\n"
	"	nop\n"
	"\"$xrv64i2p1\":\n"
	"	ret\n"
	".size mapsym_fn, . - mapsym_fn\n"
	".type \"$x\", %function\n"
	".type \"$d.1\", %function\n"
	".type \"$x.2\", %function\n"
	".type \"$xrv64i2p1\", %function\n");

void mapsym_fn(void);

int main(void)
{
	mapsym_fn();
	return 0;
}
