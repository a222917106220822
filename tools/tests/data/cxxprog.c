// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions under C++ and Rust mangled names (the names given by asm
 * labels: no C++ compiler needed) and a C one, for the demangling tests:
 *   _Z18ggc_internal_allocmPFvPvEmm  ggc_internal_alloc(unsigned long,
 *                                     void (*)(void*), unsigned long, unsigned long)
 *   _ZN3prf5Table4findEPKc            prf::Table::find(char const*)
 *   _RNvCs1234_7mycrate3foo           mycrate::foo (Rust v0)
 *   c_plain                           itself
 */
#define NOI __attribute__((noinline, used))

NOI unsigned long cxx_alloc(unsigned long a, void (*f)(void *), unsigned long b,
			    unsigned long c) __asm__("_Z18ggc_internal_allocmPFvPvEmm");
NOI unsigned long cxx_alloc(unsigned long a, void (*f)(void *), unsigned long b,
			    unsigned long c)
{
	return a * 3 + (f ? 1 : 0) + b * c;
}

NOI int cxx_find(const char *s) __asm__("_ZN3prf5Table4findEPKc");
NOI int cxx_find(const char *s)
{
	int n = 0;

	while (s && s[n])
		n++;
	return n;
}

NOI int rust_foo(int x) __asm__("_RNvCs1234_7mycrate3foo");
NOI int rust_foo(int x)
{
	return x * 7 + 1;
}

NOI int c_plain(int x)
{
	return x + 2;
}

int main(int argc, char **argv)
{
	return (int)cxx_alloc((unsigned long)argc, 0, 1, 2) + cxx_find(argv[0]) +
	       rust_foo(argc) + c_plain(argc);
}
