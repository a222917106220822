// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf cfi: the compact unwind table prf builds from an ELF file's call
 * frame information (cfi.h), row by row, and how much of the file's code
 * it covers.  No device: it reads the file alone; --load hands the table
 * to the module (PRF_SETUNWIND) through a private instance, to see that
 * it takes it, and lets it go with the instance.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "cmd.h"
#include "cfi.h"
#include "vdso.h"

#define CFI_ROWS_DEFAULT (1U << 20)
#define CFI_ROWS_MAX (1U << 26)

static void help_cfi(void)
{
	printf("Usage: %s [options] FILE\n"
	       "       %s [options] --vdso\n"
	       "The unwind table prf builds from FILE's call frame information (.eh_frame,\n"
	       "and .debug_frame where .eh_frame says nothing, and where neither does, its\n"
	       "separate debug file's .debug_frame), read by libdw: one row a range of file\n"
	       "offsets of the code, with its rules\n"
	       "  CFA  sp+N or fp+N (the caller's stack pointer)\n"
	       "  RA   cfa+N (saved there), same (still in its register), undef (outermost)\n"
	       "  FP   cfa+N (saved there), same (unchanged), undef\n"
	       "and the flags of what that form cannot say (the unwinder stops there):\n"
	       "cfa-expr, cfa-other, ra-other, fp-other, signal; the source: eh, debug, dfile\n"
	       "(the debug file).  Then a summary: the bytes each source covers, the debug\n"
	       "file (by build ID, .gnu_debuglink or debuginfod, as for symbols), the rows,\n"
	       "the bytes they take, the bytes of code covered, the rows flagged.\n"
	       "x86-64 and arm64 files, on any host.\n\n"
	       "      --csv          the rows as CSV (start,end,cfa,ra,fp,source,flags),\n"
	       "                     no summary\n"
	       "      --summary      the summary alone\n"
	       "      --max-rows N   refuse a table of more than N rows (default %u)\n"
	       "      --load         hand the table to the module (/dev/prfclone) and say\n"
	       "                     what it holds then; it goes with the instance\n"
	       "      --vdso         no FILE: the vDSO prf runs with, the running kernel's\n"
	       "                     (its offsets the image's addresses; --load: as the\n"
	       "                     vDSO's table, PRF_UNWIND_VDSO)\n"
	       "  -h, --help         this help\n", prog, prog, CFI_ROWS_DEFAULT);
}

enum { OPT_SUMMARY = 2000, OPT_MAX_ROWS, OPT_LOAD, OPT_VDSO };

struct cfi_opts {
	int summary;
	int load;
	int vdso;
	uint64_t max_rows;
};

static int cfi_opt(void *ctx, int opt, const char *arg)
{
	struct cfi_opts *o = ctx;

	switch (opt) {
	case OPT_SUMMARY:
		o->summary = 1;
		return 0;
	case OPT_LOAD:
		o->load = 1;
		return 0;
	case OPT_VDSO:
		o->vdso = 1;
		return 0;
	case OPT_MAX_ROWS:
		if (parse_u64(arg, &o->max_rows, 10) || !o->max_rows ||
		    o->max_rows > CFI_ROWS_MAX)
			return usage_error("--max-rows %s: want 1..%u", arg, CFI_ROWS_MAX);
		return 0;
	}
	return usage_error("bad option");
}

/* A saved register's rule: "cfa-8", "same", "undef", "other" (flagged). */
static const char *reg_str(char *buf, size_t len, unsigned int rule, int off, int flagged)
{
	if (flagged)
		return "other";
	if (rule == CFI_RULE_SAME)
		return "same";
	if (rule == CFI_RULE_UNDEF)
		return "undef";
	snprintf(buf, len, "cfa%+d", off);
	return buf;
}

static const char *src_name(unsigned int src)
{
	switch (src) {
	case CFI_SRC_EH: return "eh";
	case CFI_SRC_DEBUG: return "debug";
	case CFI_SRC_DFILE: return "dfile";
	case CFI_SRC_PLT: return "plt";
	case CFI_SRC_LEAF: return "leaf";
	}
	return "?";
}

static void print_row(const struct cfi_row *r, int csv)
{
	/* flags: room for the five names and their separators (43 bytes) */
	char cfa[24], ra[24], fp[24], flags[64] = "";
	unsigned int b;

	if (r->flags & CFI_F_CFA_EXPR)
		snprintf(cfa, sizeof(cfa), "expr");
	else if (r->flags & CFI_F_CFA_REG)
		snprintf(cfa, sizeof(cfa), "other");
	else
		snprintf(cfa, sizeof(cfa), "%s%+" PRId32,
			 CFI_ROW_BASE(r) == CFI_BASE_FP ? "fp" : "sp", r->cfa_off);
	for (b = 0; b < CFI_NFLAGS; b++)
		if (r->flags & 1U << b) {
			if (*flags)
				strcat(flags, csv ? ";" : ",");
			strcat(flags, cfi_flag_name(b));
		}
	if (!*flags && !csv)
		snprintf(flags, sizeof(flags), "-");
	printf(csv ? "%#" PRIx64 ",%#" PRIx64 ",%s,%s,%s,%s,%s\n" :
		     "%#12" PRIx64 " %#12" PRIx64 "  %-10s %-8s %-8s %-6s %s\n",
	       r->start, r->start + r->len, cfa,
	       reg_str(ra, sizeof(ra), CFI_ROW_RA(r), r->ra_off, r->flags & CFI_F_RA),
	       reg_str(fp, sizeof(fp), CFI_ROW_FP(r), r->fp_off, r->flags & CFI_F_FP),
	       src_name(CFI_ROW_SRC(r)), flags);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_summary(const char *file, const struct cfi_table *t)
{
	unsigned int b;
	const char *sep = ":";

	printf("file:       %s (%s)\n", file, cfi_machine_name(t->machine));
	printf("sources:    .eh_frame %s, %" PRIu64 " bytes; .debug_frame %s, %" PRIu64
	       " bytes", t->has_eh ? "read" : "absent", t->src_bytes[CFI_SRC_EH],
	       t->has_debug ? "read" : "absent", t->src_bytes[CFI_SRC_DEBUG]);
	if (t->src_bytes[CFI_SRC_PLT])
		printf("; the PLT read from its instructions, %" PRIu64 " bytes",
		       t->src_bytes[CFI_SRC_PLT]);
	if (t->src_bytes[CFI_SRC_LEAF])
		printf("; leaf functions read from their instructions, %" PRIu64 " bytes",
		       t->src_bytes[CFI_SRC_LEAF]);
	printf("\n");
	printf("debug file: ");
	switch (t->dfile) {
	case CFI_DFILE_UNNEEDED:
		printf("not looked for (the file's own CFI covers its code)\n");
		break;
	case CFI_DFILE_NONE:
		printf("none found%s%s\n", t->dfile_note ? "; refused " : "",
		       t->dfile_note ? t->dfile_note : "");
		break;
	case CFI_DFILE_UNUSED:
		printf("%s (%s) not used: %s\n", t->dfile_path, t->dfile_how,
		       t->dfile_note ? t->dfile_note : "?");
		break;
	default:
		printf("%s (%s), .debug_frame read, %" PRIu64 " bytes\n", t->dfile_path,
		       t->dfile_how, t->src_bytes[CFI_SRC_DFILE]);
	}
	printf("rows:       %zu (%zu bytes, %zu a row)\n", t->n, t->n * sizeof(*t->rows),
	       sizeof(*t->rows));
	printf("covered:    %" PRIu64 " of %" PRIu64 " bytes of the %s (%.1f%%)\n",
	       t->covered, t->exec_bytes,
	       t->sections ? "code sections" : "executable segments",
	       pct(t->covered, t->exec_bytes));
	printf("flagged:    %zu rows, %" PRIu64 " bytes (%.1f%% of the covered)",
	       t->flagged, t->flagged_bytes, pct(t->flagged_bytes, t->covered));
	for (b = 0; b < CFI_NFLAGS; b++)
		if (t->by_flag[b]) {
			printf("%s %s %zu", sep, cfi_flag_name(b), t->by_flag[b]);
			sep = ",";
		}
	printf("\n");
	if (t->machine != EM_X86_64)
		printf("frame ptr:  not judged (%s's CFI reads the same with and without)\n",
		       cfi_machine_name(t->machine));
	else
		printf("frame ptr:  %s (the CFA off rbp in %.1f%% of the covered, kept from %d%%)\n",
		       cfi_keeps_frame_pointers(t) ? "kept" : "not kept",
		       pct(cfi_fp_bytes(t), t->covered), CFI_FRAMEPTR_PCT);
}

/*
 * The table of @file (@t) handed to the module through a private instance
 * (PRF_SETUNWIND), what the store holds then said (PRF_GETUNWIND); the
 * table goes with the instance.  @vdso: as the vDSO's (PRF_UNWIND_VDSO),
 * @file the copy of prf's own.  0, or 1 with a message.
 */
static int cfi_load(const char *file, const struct cfi_table *t, int vdso)
{
	struct prf_unwind_row *rows = calloc(t->n ? t->n : 1, sizeof(*rows));
	struct prf_unwind_stat st = { 0 };
	struct prf *p = NULL;
	size_t stops, sigs = 0, i;
	int ret = 1, err, fd;

	if (!rows) {
		msg("%s: out of memory", file);
		return 1;
	}
	stops = cfi_unwind_rows(t, rows);
	for (i = 0; i < t->n; i++)
		sigs += !!(rows[i].flags & PRF_UNWIND_ROW_SIGNAL);
	fd = vdso ? PRF_UNWIND_VDSO : open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && !vdso) {
		msg("%s: %s", file, strerror(errno));
		goto out;
	}
	err = prf_open_clone(O_RDWR, &p);
	if (err) {
		msg("/dev/%s: %s", PRF_CLONE_NAME, strerror(-err));
		goto out;
	}
	st.fd = fd;
	err = prf_unwind_load(p, fd, (uint32_t)t->machine, 0, rows, (uint32_t)t->n);
	if (!err && ioctl(prf_fd(p), PRF_GETUNWIND, &st))
		err = -errno;
	if (err) {
		msg("%s: the module refused the table: %s%s", vdso ? VDSO_NAME : file,
		    strerror(-err), vdso && err == -EBADF ?
		    " (a prf.ko before the vDSO's table, PRF_UNWIND_VDSO)" : "");
		goto out;
	}
	printf("loaded:     %u rows (%zu of them stops, %zu signal frames), %" PRIu64
	       " bytes of rows; the store: %u tables, %" PRIu64 " bytes\n",
	       st.nr, stops, sigs, (uint64_t)st.nr * sizeof(*rows), st.store_files,
	       (uint64_t)st.store_bytes);
	ret = 0;
out:
	if (p)
		prf_close(p);
	if (fd >= 0 && !vdso)
		close(fd);
	free(rows);
	return ret;
}

int cmd_cfi(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "max-rows", required_argument, NULL, OPT_MAX_ROWS },
		{ "load", no_argument, NULL, OPT_LOAD },
		{ "vdso", no_argument, NULL, OPT_VDSO },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = { NULL, lo, 0, help_cfi, cfi_opt, 0, 1,
					    "want one FILE" };
	struct cfi_opts o = { .max_rows = CFI_ROWS_DEFAULT };
	struct cfi_table t;
	struct common c;
	char err[512];
	const char *file;
	size_t i;
	int ret, csv;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	csv = c.format == FMT_CSV;
	if (csv && o.summary)
		return usage_error("--csv and --summary: choose one");
	if (o.vdso == (optind < argc))
		return usage_error(o.vdso ? "--vdso: no FILE" : "want one FILE");
	file = o.vdso ? NULL : argv[optind];
	if (o.vdso) {
		const struct vdso *v = vdso_own(err, sizeof(err));

		if (!v) {
			msg("%s", err);
			return 1;
		}
		file = v->path;
	}
	if (cfi_build(file, o.max_rows, &t, err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	/* the summary says it; --csv has none */
	if (csv && t.dfile == CFI_DFILE_UNUSED)
		msg("%s: debug file %s (%s) not used: %s", file, t.dfile_path, t.dfile_how,
		    t.dfile_note ? t.dfile_note : "?");
	else if (csv && t.dfile == CFI_DFILE_NONE && t.dfile_note)
		msg("%s: no debug file (refused %s)", file, t.dfile_note);
	if (!o.summary) {
		if (csv)
			printf("start,end,cfa,ra,fp,source,flags\n");
		else
			printf("%12s %12s  %-10s %-8s %-8s %-6s %s\n", "START", "END", "CFA",
			       "RA", "FP", "SOURCE", "FLAGS");
		for (i = 0; i < t.n; i++)
			print_row(&t.rows[i], csv);
	}
	if (!csv) {
		if (!o.summary)
			printf("\n");
		print_summary(o.vdso ? VDSO_NAME : file, &t);
	}
	ret = o.load ? cfi_load(file, &t, o.vdso) : 0;
	cfi_free(&t);
	return ret;
}
