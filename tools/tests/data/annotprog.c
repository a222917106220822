/*
 * A program whose functions stand in for kernel functions in the prf
 * annotate tests: its PT_LOAD segments play /proc/kcore, its symbols
 * /proc/kallsyms (and a vmlinux's symbol table).
 */
__attribute__((noinline, used)) long hot_loop(const long *a, long n)
{
	long s = 0, i;

	for (i = 0; i < n; i++)
		s += a[i] * 3 + (a[i] >> 2);
	return s;
}

__attribute__((noinline, used)) long cold_fn(long x)
{
	return x * 7 + 1;
}

/* Referenced, so that the linker defines it as it does for the kernel. */
extern char _etext[];
char *volatile etext_seen;

long main(void)
{
	static const long v[4] = { 1, 2, 3, 4 };

	etext_seen = _etext;
	return hot_loop(v, 4) + cold_fn(1);
}
