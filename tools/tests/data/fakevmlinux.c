/* A tiny program whose symbols stand in for a vmlinux in the tests. */
__attribute__((noinline, used)) int f_one(int x)
{
	return x * 3;
}

__attribute__((noinline, used)) int f_two(int x)
{
	return x + 7;
}

/* Referenced, so that the linker defines it as it does for the kernel. */
extern char _etext[];
char *volatile etext_seen;

int main(void)
{
	etext_seen = _etext;
	return f_one(1) + f_two(2) - 16;
}

/* The kernel's _text: here, the start of f_one. */
__asm__(".globl _text\n.set _text, f_one\n");
