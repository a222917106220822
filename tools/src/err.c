// SPDX-License-Identifier: GPL-2.0-only
/*
 * err - the error text the tools' parsers hand back to their callers.
 */
#include <stdarg.h>
#include <stdio.h>

#include "err.h"

void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
