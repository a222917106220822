/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * err - the error text the tools' parsers hand back to their callers.
 */
#ifndef PRF_TOOLS_ERR_H
#define PRF_TOOLS_ERR_H

#include <stddef.h>

/* Formats into err (errlen bytes, may be NULL/0: then nothing is written). */
void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
