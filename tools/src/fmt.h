/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fmt - the output formats' smallest pieces (fmt.c).
 */
#ifndef PRF_FMT_H
#define PRF_FMT_H

#include <stdio.h>

/*
 * A JSON string (in_html: also safe inside <script>, no "</" nor "<!--"),
 * and a CSV field (quoted when it holds a comma, a quote or a line break).
 */
void report_json_str(FILE *out, const char *s, int in_html);
void report_csv_field(FILE *out, const char *s);

#endif /* PRF_FMT_H */
