/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * modes - the modes (PRF_SETMODE) in the reports (modes.c): their names,
 * what one count is, counts as shown, and the alloc modes' per-site detail.
 */
#ifndef PRF_MODES_H
#define PRF_MODES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* "time", "alloc-calls", "alloc-bytes", "calls", "offcpu"; NULL when unknown. */
const char *mode_name(uint32_t mode);
/* PRF_MODE_* of a name, or -1. */
int mode_parse(const char *s);
/* What one count is: "samples", "allocations", "bytes", "calls", "nanoseconds". */
const char *mode_unit(uint32_t mode);
/* The names of counters N and N + 1 in that mode ("user", "idle" in time). */
const char *mode_bucket_name(uint32_t mode, int which);
/* The mode of a report (its last snapshot's). */
uint32_t report_mode(const struct report *r);
/*
 * A count as shown: bytes as B/KiB/MiB/GiB (alloc-bytes), nanoseconds as
 * ns/us/ms/s (offcpu), else the number.
 */
const char *fmt_count(uint32_t mode, uint64_t v, char *buf, size_t len);
const char *fmt_bytes(uint64_t v, char *buf, size_t len);
const char *fmt_time_ns(uint64_t v, char *buf, size_t len);
/* The per-site detail of the alloc modes, after a report: text, CSV, JSON. */
void sites_print(FILE *out, const struct report *r, const struct report_opts *o);
/* The "mode" line of the text header (nothing in time mode). */
void mode_header(FILE *out, const struct report *r);

#endif /* PRF_MODES_H */
