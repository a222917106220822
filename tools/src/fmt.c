// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt - the output formats' smallest pieces, shared by every renderer: a
 * CSV field and a JSON string (fmt.h).
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"

void report_csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
}

void report_json_str(FILE *out, const char *s, int in_html)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || (in_html && (c == '<' || c == '>' || c == '&')))
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
