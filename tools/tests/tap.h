/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tools/tests/tap.h - the TAP results of the C unit tests: ok() prints one,
 * tap_end() the plan and the exit status.  Included once per test program.
 */
#ifndef PRF_TESTS_TAP_H
#define PRF_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int ntest, nfail;

static int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (!cond)
		nfail++;
	printf("%s %d - ", cond ? "ok" : "not ok", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return cond;
}

static int tap_end(void)
{
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

#endif
