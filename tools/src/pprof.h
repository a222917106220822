/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pprof - a report as pprof's profile.proto, gzipped (prfpr --pprof,
 * prf record --pprof), for go tool pprof, Parca, Pyroscope, Grafana.
 */
#ifndef PRF_PPROF_H
#define PRF_PPROF_H

#include <stddef.h>

#include "report.h"

/*
 * pprof_write - write r to path: every table entry with samples (of the
 * modules o->modules names, when it does), or with stacks a sample per
 * stack and user call chain (stacks.h), then [user], [idle] and [outside]
 * unless a module filter is given; sample types samples/count and
 * cpu/nanoseconds.  0, or -1 with err set.
 */
int pprof_write(const char *path, const struct report *r, const struct report_opts *o,
		char *err, size_t errlen);

/*
 * PPROF_NO_KERNEL_ADDRESSES: no kernel address in the profile (prf
 * daemon's, unless --kernel-addresses): the kernel's and its modules'
 * locations at address 0, their mappings without a range, each function
 * named, a stack frame's system_name its symbol and the PC's offset in it
 * (name+0xOFF); user locations keep their offsets in their files.
 */
#define PPROF_NO_KERNEL_ADDRESSES	1

/* pprof_write, with PPROF_* flags. */
int pprof_write_flags(const char *path, const struct report *r, const struct report_opts *o,
		      int flags, char *err, size_t errlen);

#endif /* PRF_PPROF_H */
