/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report - the report model (model.h) printed as text, CSV, JSON and folded
 * lines: what prfpr, prf record and prf top print (report.c).
 */
#ifndef PRF_REPORT_H
#define PRF_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "fmt.h"
#include "model.h"
#include "snapshot.h"

void report_print(FILE *out, const struct report *r, const struct report_opts *o);

/*
 * report_print_diff - base against cur, function by function (matched by
 * module and name): the share of each (of o->of), the change in points and
 * the ratio, largest change first; rows whose share is above o->cutoff in
 * either.  Text, CSV or JSON.
 */
void report_print_diff(FILE *out, const struct report *base, const struct report *cur,
		       const struct report_opts *o);

/*
 * report_print_diff_folded - base against cur, stack by stack: each folded
 * line of either (report_print's --folded form, no cutoff) as "path BASE
 * CUR", 0 where one has no such line, the largest change first (then by
 * path).
 * 0, or -1 out of memory (nothing printed).
 */
int report_print_diff_folded(FILE *out, const struct report *base, const struct report *cur,
			     const struct report_opts *o);

/*
 * next_off_time - the first time after now at which the local clock reads
 * hour:00:00 (prfdc's off_hour, 0..24; 24 is midnight, as 0).
 */
time_t next_off_time(time_t now, int hour);

#endif /* PRF_REPORT_H */
