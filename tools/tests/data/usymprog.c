// SPDX-License-Identifier: GPL-2.0-only
/*
 * usymprog - a program whose function addresses the unit test knows: it
 * copies its /proc/self/maps to argv[1] and prints where three of its
 * functions (one static) and getpid(2)'s libc wrapper are, then exits.  Built as a PIE
 * and as a non-PIE executable by the tools' Makefile.  With "--gone" after
 * the file it first deletes its own executable (argv[0]), and after
 * printing waits for its standard input to close: a process whose program
 * was deleted while it runs.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) int usym_one(int x)
{
	return x * 3 + 1;
}

/* Local: no .dynsym names it, even exported (-rdynamic); a debug file does. */
static __attribute__((noinline)) int usym_static(int x)
{
	return x * 7 - 2;
}

__attribute__((noinline)) int usym_two(int x)
{
	return usym_one(x) ^ usym_static(x);
}

int main(int argc, char **argv)
{
	FILE *in = fopen("/proc/self/maps", "r"), *out;
	int (*volatile gp)(void) = getpid;
	char buf[4096];
	size_t n;

	int gone = argc == 3 && !strcmp(argv[2], "--gone");

	if ((argc != 2 && !gone) || !in || !(out = fopen(argv[1], "w")))
		return 1;
	if (gone && unlink(argv[0]))
		return 1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out))
		return 1;
	printf("usym_one %lx\nusym_two %lx\nusym_static %lx\ngetpid %lx\nvalue %d\n",
	       (unsigned long)usym_one, (unsigned long)usym_two, (unsigned long)usym_static,
	       (unsigned long)gp,
	       usym_two(argc) + gp() * 0);
	if (gone) {
		fflush(stdout);
		while (read(0, buf, sizeof(buf)) > 0)
			;
	}
	return 0;
}
