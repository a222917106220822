// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side unit tests of libprf, the namelist readers, the snapshot file
 * and the report.  No kernel module needed.  TAP output.
 *
 *   unit_test DATADIR EXPECTDIR FAKEVMLINUX
 *   unit_test --make-fixture FILE     (write the report fixture file)
 *   unit_test --make-series FILE N STEP [HOST]  (N snapshots STEP s apart)
 *   unit_test --dump-vdso FILE        (this process's vDSO image, as prf finds it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cfi.h"
#include "demangle.h"
#include "elffile.h"
#include "libprf.h"
#include "namelist.h"
#include "perfmap.h"
#include "report.h"
#include "snapshot.h"
#include "usym.h"
#include "uobj.h"
#include "vdso.h"

#include "tap.h"

static const char *datadir, *expectdir, *fakevmlinux, *usym_pie, *usym_nopie, *usym_strip;
static const char *mapsymprog;
static char tmpdir[] = "/tmp/prf-unit-XXXXXX";


static char *path_in(const char *dir, const char *name)
{
	static char buf[8][1024];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n + 1);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		} else if (p) {
			p[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return p;
}

/* Print text as TAP diagnostics, "# " before each line. */
static void diag_text(const char *s)
{
	while (*s) {
		size_t l = strcspn(s, "\n");

		printf("# %.*s\n", (int)l, s);
		s += l;
		if (*s)
			s++;
	}
}

static const struct sym *find_name(const struct symtab *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

static int ascending(const struct symtab *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		if (t->v[i].addr <= t->v[i - 1].addr)
			return 0;
	return 1;
}

/* "addr kind module name" per line, as prfld -n prints. */
static char *dump(const struct symtab *t)
{
	char *s = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&s, &len);

	for (i = 0; i < t->n; i++)
		fprintf(f, "%016" PRIx64 " %s %s %s\n", t->v[i].addr,
			report_kind(t->v[i].kind), t->v[i].module ? t->v[i].module : "kernel",
			t->v[i].name);
	fclose(f);
	return s;
}

/* ---- libprf against a regular file ---- */

static void test_libprf(void)
{
	struct prf *p = NULL;
	char *file = path_in(tmpdir, "fakedev");
	uint64_t a[3] = { 1, 2, 3 }, buf[16], addrs[3], cnt[5];
	struct prf_info info;
	uint32_t hz;
	int fd, r;

	ok(prf_open("/nonexistent/prf", O_RDONLY, &p) == -ENOENT && !p,
	   "libprf: prf_open of a missing path is -ENOENT");
	fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0600);
	close(fd);
	ok(prf_open(file, O_RDWR, &p) == 0 && p, "libprf: prf_open of a regular file");
	ok(prf_fd(p) >= 0 && !strcmp(prf_path(p), file), "libprf: prf_fd, prf_path");
	ok(prf_get_status(p) == -ENOTTY, "libprf: ioctl on a non-device is -ENOTTY");
	ok(prf_get_hz(p, &hz) == -ENOTTY && prf_clear(p) == -ENOTTY &&
	   prf_set_state(p, 1) == -ENOTTY && prf_get_info(p, &info) == -ENOTTY,
	   "libprf: extension calls return -errno");
	ok(prf_load(p, a, 3) == 0, "libprf: prf_load writes the table in one call");
	r = (int)prf_read_raw(p, buf, sizeof(buf));
	ok(r == 0, "libprf: prf_read_raw returns the byte count (0 at EOF)");
	lseek(prf_fd(p), 0, SEEK_SET);
	r = (int)prf_read_raw(p, buf, sizeof(buf));
	ok(r == 24 && buf[0] == 1 && buf[2] == 3, "libprf: table bytes as written");
	/* A file of 8 words reads as a table of N = 3 (3 + 5). */
	lseek(prf_fd(p), 0, SEEK_SET);
	{
		uint64_t w[8] = { 10, 20, 30, 1, 2, 3, 4, 5 };

		ok(ftruncate(prf_fd(p), 0) == 0 && prf_load(p, w, 8) == 0, "libprf: load 8 words");
	}
	lseek(prf_fd(p), 0, SEEK_SET);
	r = prf_read(p, addrs, cnt, 3);
	ok(r == 0 && addrs[0] == 10 && addrs[2] == 30 && cnt[0] == 1 && cnt[4] == 5,
	   "libprf: prf_read splits addresses and N + 2 counters");
	lseek(prf_fd(p), 0, SEEK_SET);
	ok(prf_read(p, addrs, cnt, 2) == -ESTALE, "libprf: prf_read of the wrong N is -ESTALE");
	prf_close(p);
	prf_close(NULL);
	ok(prf_get_size(NULL) == -EBADF, "libprf: NULL handle is -EBADF");
	ok(prf_cpu_of_path("/dev/prf") == -1 && prf_cpu_of_path("/dev/prf7") == 7 &&
	   prf_cpu_of_path("prf12") == 12 && prf_cpu_of_path("/dev/null") == -EINVAL &&
	   prf_cpu_of_path("/dev/prf1x") == -EINVAL, "libprf: prf_cpu_of_path");
	unlink(file);
}

/* ---- namelists ---- */

/* Writes a four-line namelist naming its function fn (3 characters). */
static void write_namelist(const char *path, const char *fn)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fprintf(f, "ffffffff9a000000 T _text\nffffffff9a000000 T _stext\n"
		   "ffffffff9a000010 T %s\nffffffff9a001000 T _etext\n", fn);
	fclose(f);
}

/* Rewrites path with fn, keeping its size and modification time. */
static void rewrite_namelist_in_place(const char *path, const char *fn)
{
	struct stat st;
	struct timespec ts[2];

	if (stat(path, &st))
		return;
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	write_namelist(path, fn);
	utimensat(AT_FDCWD, path, ts, 0);
}

/*
 * A text namelist's fields: blanks or tabs, any run of them; the address in
 * hexadecimal of either case, with a 0x prefix or leading zeros past 16
 * digits; and each malformed line refused by its number, shown as read.
 */
static void test_namelist_fields(void)
{
	static const char *const bad[] = {
		"ffffffff9a00zz00 t x",		/* not hexadecimal */
		"1ffffffff9a000000 t x",	/* 17 significant digits */
		"ffffffff9a000000 tt x",	/* a type of two letters */
		"ffffffff9a000000 t",		/* no name */
		"ffffffff9a000000 t x m",	/* a module not in brackets */
		"ffffffff9a000000 t x [m] y",	/* a fifth field */
	};
	char *path = strdup(path_in(tmpdir, "fields-kallsyms"));
	char err[NL_ERRLEN], want[160];
	const struct sym *s;
	struct symtab t;
	size_t i;
	FILE *f;
	int r;

	f = fopen(path, "w");
	if (f) {
		fprintf(f, "FFFFFFFF9A000000 T _text\n"
			   "\t0xffffffff9a000010\tt  \tUpper_Hex  \n"
			   "\n"
			   "00000000ffffffff9a000020 t zeros\t[mod]\r\n");
		fclose(f);
	}
	symtab_init(&t);
	r = nl_read_text(path, &t, err, sizeof(err));
	ok(r == 0 && t.n == 3, "namelist fields: three functions read (%s)", r ? err : "ok");
	ok(!r && (s = find_name(&t, "_text")) && s->addr == 0xffffffff9a000000ULL,
	   "namelist fields: upper-case hexadecimal");
	ok(!r && (s = find_name(&t, "Upper_Hex")) && s->addr == 0xffffffff9a000010ULL &&
	   !s->module, "namelist fields: a 0x prefix, tabs and runs of blanks");
	ok(!r && (s = find_name(&t, "zeros")) && s->addr == 0xffffffff9a000020ULL &&
	   s->module && !strcmp(s->module, "mod"),
	   "namelist fields: 24 digits with leading zeros, a module, CR LF");
	symtab_free(&t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "ffffffff9a000000 T _text\n%s\n", bad[i]);
			fclose(f);
		}
		symtab_init(&t);
		r = nl_read_text(path, &t, err, sizeof(err));
		snprintf(want, sizeof(want), "%s:2: not a namelist line (want \"ADDRESS TYPE NAME "
			 "[MODULE]\"): \"%s\"", path, bad[i]);
		ok(r == -1 && !strcmp(err, want), "namelist fields: \"%s\" refused at line 2 (%s)",
		   bad[i], r ? err : "loaded");
		symtab_free(&t);
	}
	unlink(path);
	free(path);
}

static int names_fn(const char *path, const struct nl_opts *o, const char *fn)
{
	char err[NL_ERRLEN];
	struct symtab t;
	int r = nl_load(path, o, &t, err, sizeof(err));

	r = !r && find_name(&t, fn) && find_name(&t, "[outside kernel text]");
	symtab_free(&t);
	return r;
}

/*
 * nl_keep_text(1), a command's: a text namelist is read once while the file
 * and the modules stay the same, and read again when either changes;
 * nl_keep_text(0), the daemon's: read every time.
 */
static void test_kept_namelist(void)
{
	char *ks = strdup(path_in(tmpdir, "kept-kallsyms"));
	char *mods = strdup(path_in(tmpdir, "kept-modules"));
	struct nl_opts o = { 0 };
	struct timespec later[2] = { { 0, UTIME_OMIT }, { 2000000000, 0 } };
	FILE *f;

	o.kallsyms = ks;
	o.modules = mods;
	f = fopen(mods, "w");
	if (f) {
		fprintf(f, "kvm 1000 0 - Live 0xffffffffc0000000\n");
		fclose(f);
	}
	write_namelist(ks, "aaa");
	nl_keep_text(1);
	ok(names_fn(ks, &o, "aaa"), "kept namelist: the first load reads the file");
	rewrite_namelist_in_place(ks, "bbb");
	ok(names_fn(ks, &o, "aaa"), "kept namelist: the same file again is not read again");
	utimensat(AT_FDCWD, ks, later, 0);
	ok(names_fn(ks, &o, "bbb"), "kept namelist: a file modified since is read again");
	rewrite_namelist_in_place(ks, "ccc");
	f = fopen(mods, "a");
	if (f) {
		fprintf(f, "ext4 2000 0 - Live 0xffffffffc0010000\n");
		fclose(f);
	}
	ok(names_fn(ks, &o, "ccc"), "kept namelist: a module loaded since: read again");
	rewrite_namelist_in_place(ks, "ddd");
	nl_keep_text(0);
	ok(names_fn(ks, &o, "ddd"), "kept namelist: none kept once off: read every time");
	rewrite_namelist_in_place(ks, "eee");
	ok(names_fn(ks, &o, "eee"), "kept namelist: off, a second load reads it again");
	unlink(ks);
	unlink(mods);
	free(ks);
	free(mods);
}

static void test_kallsyms(void)
{
	struct nl_opts o = { 0 };
	struct symtab t;
	char err[NL_ERRLEN], *d;
	const char *ks = path_in(datadir, "kallsyms.txt");
	const struct sym *s;
	size_t len;
	int r;

	o.kallsyms = ks;
	o.modules = path_in(datadir, "modules.txt");
	r = nl_load(ks, &o, &t, err, sizeof(err));
	ok(r == 0, "kallsyms: loads (%s)", r ? err : "ok");
	if (r)
		return;
	ok(ascending(&t), "kallsyms: strictly ascending");
	d = dump(&t);
	{
		char *want = slurp(path_in(expectdir, "table_kallsyms.txt"), &len);

		ok(want && !strcmp(d, want), "kallsyms: table equals expected/table_kallsyms.txt");
		if (want && strcmp(d, want)) {
			printf("# got:\n");
			diag_text(d);
		}
		free(want);
	}
	free(d);
	ok(!find_name(&t, "__pfx_alpha") && !find_name(&t, "__pfx_kvm_b"),
	   "kallsyms: __pfx_ padding symbols dropped");
	ok(!find_name(&t, "alpha_alias") && find_name(&t, "alpha") &&
	   !find_name(&t, "__beta") && find_name(&t, "beta") &&
	   (s = find_name(&t, "startup_64")) && s->addr == 0xffffffff9a000000ULL,
	   "kallsyms: aliases merged, global names without underscores win");
	ok(!find_name(&t, "init_thing") && !find_name(&t, "some_data"),
	   "kallsyms: init text past _etext and data left out");
	ok(!find_name(&t, "bpf_prog_abc") && !find_name(&t, "ftrace_tramp"),
	   "kallsyms: [bpf] and [__builtin__*] left out by default");
	s = find_name(&t, "[outside kernel text]");
	ok(s && s->addr == 0xffffffff9a001000ULL && s->kind == SYM_SENTINEL,
	   "kallsyms: sentinel at _etext");
	s = find_name(&t, "[outside kvm text]");
	ok(s && s->addr == 0xffffffffc0004000ULL && s->kind == SYM_SENTINEL,
	   "kallsyms: kvm sentinel at base + size from /proc/modules");
	ok(!find_name(&t, "[outside ext4 text]") && (s = find_name(&t, "kvm_a")) &&
	   s->kind == SYM_FUNC,
	   "kallsyms: ext4's end falls on kvm_a: the function wins over the sentinel");
	ok(t.n == 11, "kallsyms: 11 entries (got %zu)", t.n);
	symtab_free(&t);

	o.only = "ext4";
	r = nl_load(ks, &o, &t, err, sizeof(err));
	ok(r == 0 && t.n == 3 && !strcmp(t.v[2].name, "[outside ext4 text]") &&
	   t.v[2].addr == 0xffffffffc0003000ULL,
	   "-m ext4: two functions and the sentinel clamped to the next module");
	symtab_free(&t);
	o.only = "kernel";
	r = nl_load(ks, &o, &t, err, sizeof(err));
	ok(r == 0 && t.n == 6 && t.v[5].kind == SYM_SENTINEL, "-m kernel: 5 functions + _etext");
	symtab_free(&t);
	o.only = "kernel,kvm";
	r = nl_load(ks, &o, &t, err, sizeof(err));
	ok(r == 0 && t.n == 9, "-m kernel,kvm: 9 entries (got %zu)", t.n);
	symtab_free(&t);
	o.only = "bpf";
	r = nl_load(ks, &o, &t, err, sizeof(err));
	ok(r == 0 && t.n == 1 && !strcmp(t.v[0].name, "bpf_prog_abc"),
	   "-m bpf: pseudo-modules on request (no extent: no sentinel)");
	symtab_free(&t);
	o.only = NULL;

	/* No /proc/modules: no module sentinels, the kernel's stays. */
	o.modules = "/nonexistent/modules";
	r = nl_load(ks, &o, &t, err, sizeof(err));
	ok(r == 0 && !find_name(&t, "[outside kvm text]") && find_name(&t, "[outside kernel text]"),
	   "kallsyms: without /proc/modules only the kernel sentinel");
	symtab_free(&t);

	o.kallsyms = path_in(datadir, "zeroed_kallsyms.txt");
	r = nl_load(o.kallsyms, &o, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "zeroed") && strstr(err, "kptr_restrict") &&
	   strstr(err, "CAP_SYSLOG"),
	   "kallsyms: zeroed addresses refused, kptr_restrict and CAP_SYSLOG named: %s", err);
	r = nl_load(path_in(datadir, "modules.txt"), &o, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "modules.txt:1:"), "garbage namelist refused with file:line: %s",
	   err);
	r = nl_load("/nonexistent/namelist", &o, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "/nonexistent/namelist") && strstr(err, strerror(ENOENT)),
	   "missing namelist: file name and strerror: %s", err);
}

/*
 * Mapping symbols (issue 39): arm64's kallsyms holds $x, $d and their .N
 * forms at function starts and inside functions.  The module's first
 * function (local, like $x, and after it in name order) keeps its name, and
 * every PC of a function is its own, whatever mapping symbol sits inside.
 */
static void test_mapping_symbols(void)
{
	static const char *const yes[] = { "$x", "$d", "$a", "$t", "$x.12", "$d.3", "$a.5",
					   "$t.1", "$xrv64i2p1", "$xrv64i2p1_m2p0" };
	static const char *const no[] = { "$", "$y", "$xy", "$dx", "$x1", "x", "x$x",
					  "demo_round", "" };
	static const struct {
		uint64_t pc;
		const char *name;
	} pcs[] = {
		{ 0xffff800008010000ULL, "primary_entry" },
		{ 0xffff800008010104ULL, "gic_handle_irq" },
		{ 0xffff800008010180ULL, "gic_handle_irq" },
		{ 0xffff800008010188ULL, "gic_handle_irq" },
		{ 0xffff800008010300ULL, "gic_handle_irq" },
		{ 0xffff80000801fffcULL, "gic_handle_irq" },
		{ 0xffff800079296000ULL, "demo_irqoff_body.constprop.0" },
		{ 0xffff800079296040ULL, "demo_irqoff_body.constprop.0" },
		{ 0xffff800079296050ULL, "demo_irqoff_body.constprop.0" },
		{ 0xffff8000792960d4ULL, "demo_round" },
		{ 0xffff800079296100ULL, "demo_round" },
		{ 0xffff800079296124ULL, "demo_round" },
		{ 0xffff800079296200ULL, "demo_round" },
		{ 0xffff800079299ffcULL, "demo_round" },
	};
	struct nl_opts o = { 0 };
	struct symtab t;
	char err[NL_ERRLEN];
	size_t i, bad = 0;
	int r;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!nl_mapping_symbol(yes[i])) {
			ok(0, "mapping symbols: %s is one", yes[i]);
			bad++;
		}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (nl_mapping_symbol(no[i])) {
			ok(0, "mapping symbols: \"%s\" is not one", no[i]);
			bad++;
		}
	ok(!bad, "mapping symbols: $a $d $t $x, .N and $xrv forms, nothing else");

	o.kallsyms = path_in(datadir, "arm64_kallsyms.txt");
	o.modules = path_in(datadir, "arm64_modules.txt");
	r = nl_load(o.kallsyms, &o, &t, err, sizeof(err));
	ok(r == 0, "arm64 kallsyms: loads (%s)", r ? err : "ok");
	if (r)
		return;
	for (i = bad = 0; i < t.n; i++)
		if (t.v[i].name[0] == '$') {
			ok(0, "arm64 kallsyms: no %s row (at %#" PRIx64 ")", t.v[i].name,
			   t.v[i].addr);
			bad++;
		}
	ok(!bad && t.n == 6, "arm64 kallsyms: 4 functions and 2 sentinels, no mapping symbol "
	   "(got %zu entries)", t.n);
	for (i = bad = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++) {
		long j = symtab_find(&t, pcs[i].pc);

		if (j < 0 || strcmp(t.v[j].name, pcs[i].name)) {
			ok(0, "arm64 kallsyms: %#" PRIx64 " is %s's (got %s)", pcs[i].pc,
			   pcs[i].name, j < 0 ? "nothing" : t.v[j].name);
			bad++;
		}
	}
	ok(!bad, "arm64 kallsyms: the module's first function keeps its name, every PC of a "
	   "function is its own");
	symtab_free(&t);
}

static void test_system_map(void)
{
	struct nl_opts o = { 0 };
	struct symtab t, k;
	char err[NL_ERRLEN];
	int r;
	size_t i, same = 1;

	o.kallsyms = path_in(datadir, "kallsyms.txt");
	o.modules = path_in(datadir, "modules.txt");
	r = nl_load(path_in(datadir, "System.map"), &o, &t, err, sizeof(err));
	ok(r == 0, "System.map: loads (%s)", r ? err : "ok");
	if (r)
		return;
	o.only = "kernel";
	r = nl_load(o.kallsyms, &o, &k, err, sizeof(err));
	if (r || t.n != k.n)
		same = 0;
	for (i = 0; same && i < t.n; i++)
		if (t.v[i].addr != k.v[i].addr || strcmp(t.v[i].name, k.v[i].name))
			same = 0;
	ok(same, "System.map: KASLR offset from kallsyms _text gives the kernel's table");
	ok(t.text == 0xffffffff9a000000ULL, "System.map: _text relocated");
	symtab_free(&t);
	symtab_free(&k);
	o.only = NULL;
	o.have_offset = 1;
	o.offset = 0x1000;
	r = nl_load(path_in(datadir, "System.map"), &o, &t, err, sizeof(err));
	ok(r == 0 && find_name(&t, "alpha") && find_name(&t, "alpha")->addr == 0xffffffff81001110ULL,
	   "System.map: --kaslr-offset used as given");
	symtab_free(&t);
	o.have_offset = 0;
	o.kallsyms = path_in(datadir, "zeroed_kallsyms.txt");
	r = nl_load(path_in(datadir, "System.map"), &o, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "zeroed"), "System.map: no offset without a readable _text: %s",
	   err);
}

static void test_elf(void)
{
	struct nl_opts o = { 0 };
	struct symtab raw, t;
	char err[NL_ERRLEN];
	const struct sym *one, *two, *m;
	uint64_t elf_text, elf_etext;
	int r;

	ok(nl_is_elf(fakevmlinux) && !nl_is_elf(path_in(datadir, "System.map")),
	   "ELF: detected by its magic");
	symtab_init(&raw);
	r = nl_read_elf(fakevmlinux, &raw, err, sizeof(err));
	ok(r == 0 && raw.text && raw.etext > raw.text, "ELF: _text and _etext read with libelf (%s)",
	   r ? err : "ok");
	elf_text = raw.text;
	elf_etext = raw.etext;
	one = find_name(&raw, "f_one");
	ok(one && one->addr == elf_text && one->size > 0, "ELF: f_one at _text with its size");
	symtab_free(&raw);

	o.kallsyms = path_in(datadir, "elf_kallsyms.txt");
	o.modules = "/nonexistent";
	r = nl_load(fakevmlinux, &o, &t, err, sizeof(err));
	ok(r == 0, "ELF: nl_load (%s)", r ? err : "ok");
	if (r)
		return;
	one = find_name(&t, "f_one");
	two = find_name(&t, "f_two");
	m = find_name(&t, "main");
	ok(one && one->addr == 0xffffffff9a000000ULL,
	   "ELF: relocated so that _text lands on the running kernel's _text");
	ok(two && m && two->addr > one->addr && two->addr - one->addr < 0x10000,
	   "ELF: f_two and main kept, offsets preserved");
	ok(ascending(&t) && t.v[t.n - 1].kind == SYM_SENTINEL &&
	   t.v[t.n - 1].addr == t.etext && t.etext - 0xffffffff9a000000ULL == elf_etext - elf_text,
	   "ELF: last entry the _etext sentinel");
	ok(!find_name(&t, "_start"), "ELF: functions below _text left out");
	symtab_free(&t);
	r = nl_read_elf(path_in(datadir, "System.map"), &raw, err, sizeof(err));
	ok(r == -1 && strstr(err, "not an ELF"), "ELF: a text file is not ELF: %s", err);
	symtab_free(&raw);
}

static void test_dedupe_find(void)
{
	struct symtab t;
	char *name, *mod;
	int kind;

	symtab_init(&t);
	symtab_add(&t, 300, 0, "c", NULL, SYM_FUNC, 5);
	symtab_add(&t, 100, 0, "a", NULL, SYM_FUNC, 5);
	symtab_add(&t, 200, 0, "b2", NULL, SYM_FUNC, 5);
	symtab_add(&t, 200, 0, "b1", NULL, SYM_FUNC, 5);
	symtab_add(&t, 200, 0, "[outside x text]", "x", SYM_SENTINEL, 0);
	symtab_add(&t, 400, 0, "[outside kernel text]", NULL, SYM_SENTINEL, 0);
	symtab_add(&t, 100, 0, "a_low", NULL, SYM_FUNC, 1);
	symtab_sort_dedupe(&t);
	ok(t.n == 4 && t.v[0].addr == 100 && !strcmp(t.v[0].name, "a") &&
	   !strcmp(t.v[1].name, "b1") && t.v[1].kind == SYM_FUNC && t.v[3].kind == SYM_SENTINEL,
	   "dedupe: sorted, one per address, function over sentinel, rank then name");
	ok(symtab_find(&t, 50) == -1 && symtab_find(&t, 100) == 0 && symtab_find(&t, 299) == 1 &&
	   symtab_find(&t, 1000) == 3, "symtab_find: last entry at or below");
	nl_describe(&t, 210, &name, &mod, &kind);
	ok(!strcmp(name, "b1+0xa") && kind == SYM_BUCKET, "describe: inside a function: %s", name);
	free(name);
	free(mod);
	nl_describe(&t, 400, &name, &mod, &kind);
	ok(!strcmp(name, "[outside kernel text]") && kind == SYM_SENTINEL,
	   "describe: a sentinel is named as such");
	free(name);
	free(mod);
	nl_describe(&t, 500, &name, &mod, &kind);
	ok(!strcmp(name, "0x1f4") && kind == SYM_UNKNOWN, "describe: past a sentinel: unknown");
	free(name);
	free(mod);
	nl_describe(&t, 10, &name, &mod, &kind);
	ok(!strcmp(name, "0xa") && kind == SYM_UNKNOWN && !mod, "describe: below everything");
	free(name);
	free(mod);
	symtab_free(&t);
}

static void test_buckets(void)
{
	struct symtab t;
	char err[NL_ERRLEN];
	int r;

	r = nl_buckets(0x1000, 0x1100, 0x40, 0, &t, err, sizeof(err));
	ok(r == 0 && t.n == 5 && t.v[0].addr == 0x1000 && t.v[3].addr == 0x10c0 &&
	   t.v[4].addr == 0x1100 && t.v[4].kind == SYM_SENTINEL && ascending(&t),
	   "--step 0x40 over 0x1000-0x1100: 4 buckets + end sentinel");
	symtab_free(&t);
	r = nl_buckets(0x1000, 0x1101, 0x40, 0, &t, err, sizeof(err));
	ok(r == 0 && t.n == 6 && t.v[4].addr == 0x1100 && t.v[5].addr == 0x1101,
	   "--step: a partial last bucket");
	symtab_free(&t);
	r = nl_buckets(0x1000, 0x2000, 0x10, 100, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "257") && strstr(err, "at most 100"),
	   "--step: more buckets than the device holds refused: %s", err);
	r = nl_buckets(0x2000, 0x1000, 0x10, 0, &t, err, sizeof(err));
	ok(r == -1 && strstr(err, "empty range"), "--step: empty range refused");
	r = nl_buckets(0x1000, 0x2000, 0, 0, &t, err, sizeof(err));
	ok(r == -1, "--step 0 refused");
}

/* ---- snapshots ---- */

static void make_table(struct snap_table *t, size_t n, uint64_t base)
{
	static const char *names[] = { "alpha", "beta", "gamma", "[outside kernel text]",
				       "ext4_a", "ext4_b", "[outside ext4 text]" };
	size_t i;

	memset(t, 0, sizeof(*t));
	t->text = 0xffffffff9a000000ULL;
	t->n = n;
	t->e = calloc(n, sizeof(*t->e));
	for (i = 0; i < n; i++) {
		t->e[i].addr = base + 0x100 * i + (i >= 4 ? 0x1000000 : 0);
		t->e[i].name = strdup(names[i % 7]);
		t->e[i].module = i >= 4 ? strdup("ext4") : NULL;
		t->e[i].kind = (i == 3 || i == 6) ? SYM_SENTINEL : SYM_FUNC;
	}
}

static void make_snap(struct snapshot *s, size_t n, int64_t t, const uint64_t *c,
		      uint64_t outside, uint64_t lost)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->cpu = -1;
	s->ncpus = 2;
	s->online = 2;
	s->hz = 100;
	s->usec_per_tick = 10000;
	s->status = 3;
	s->time_ns = t;
	s->n = n;
	s->info_size = PRF_INFO_SIZE_V1;
	s->max_addrs = 1 << 20;
	s->ticks_outside = outside;
	s->ticks_lost = lost;
	s->counts = calloc(n + 2, sizeof(uint64_t));
	for (i = 0; i < n + 2; i++)
		s->counts[i] = c[i];
	for (i = 0; i < n + 2; i++)
		s->ticks_total += c[i];
	s->ticks_total += outside;
	s->ticks_user = c[n];
	s->ticks_idle = c[n + 1];
	s->on_ns = (uint64_t)(t - 1795000000000000000LL);
	s->device = strdup("/dev/prf");
	s->host = strdup("testhost");
	s->release = strdup("6.1.0-test");
}

/* The report fixture: 3 snapshots of a 7-entry table, the 3rd cleared. */
static const uint64_t fx0[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };
static const uint64_t fx1[9] = { 500, 300, 100, 20, 40, 5, 3, 400, 600 };
static const uint64_t fx2[9] = { 1500, 310, 700, 30, 140, 5, 4, 600, 2600 };
static const uint64_t fx3[9] = { 10, 0, 0, 0, 0, 0, 0, 1, 2 };

static int write_fixture(const char *file)
{
	struct snap_table t;
	struct snapshot s;
	char err[SNAP_ERRLEN];
	const uint64_t *c[4] = { fx0, fx1, fx2, fx3 };
	const uint64_t out[4] = { 0, 10, 30, 0 }, lost[4] = { 0, 1, 3, 0 };
	int i, r = 0;

	make_table(&t, 7, 0xffffffff9a000000ULL);
	for (i = 0; i < 4 && !r; i++) {
		make_snap(&s, 7, 1795000000000000000LL + (int64_t)i * 60000000000LL, c[i],
			  out[i], lost[i]);
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		if (r)
			fprintf(stderr, "%s\n", err);
		snapshot_free(&s);
	}
	snap_table_free(&t);
	return r;
}

/*
 * unit_test --make-dynsym FILE: two snapshots of a table whose user row was
 * named from a stripped libc's .dynsym alone ("qsort (dynsym)") beside a
 * kernel row: each output keeps the mark (run_host_tests.sh).
 */
static int write_dynsym_fixture(const char *file)
{
	struct snap_entry e[2] = {
		{ .addr = 0x1129, .kind = SYM_FUNC, .name = (char *)"qsort" USYM_DYNSYM_MARK,
		  .module = (char *)"libc.so.6" },
		{ .addr = UINT64_C(0xffffffff81000000), .kind = SYM_FUNC,
		  .name = (char *)"do_idle", .module = NULL },
	};
	struct snap_table t = { 1, 0, 2, e };
	static const uint64_t c0[4] = { 0, 0, 0, 0 }, c1[4] = { 30, 20, 30, 0 };
	const uint64_t *c[2] = { c0, c1 };
	char err[SNAP_ERRLEN];
	struct snapshot s;
	int i, r = 0;

	for (i = 0; i < 2 && !r; i++) {
		make_snap(&s, 2, 1795000000000000000LL + (int64_t)i * 60000000000LL, c[i], 0, 0);
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		if (r)
			fprintf(stderr, "%s\n", err);
		snapshot_free(&s);
	}
	return r;
}

/*
 * unit_test --make-series FILE N STEP [HOST]: N snapshots of the fixture's table,
 * STEP seconds apart from the fixture's first time, each counting the
 * fixture's second snapshot once more (a daemon's store segment when FILE
 * is DIR/seg-1795000000.prf), taken on HOST (default testhost).
 */
static int write_series(const char *file, int n, int step, const char *host)
{
	struct snap_table t;
	struct snapshot s;
	char err[SNAP_ERRLEN];
	uint64_t c[9];
	int i, j, r = 0;

	make_table(&t, 7, 0xffffffff9a000000ULL);
	for (i = 0; i < n && !r; i++) {
		for (j = 0; j < 9; j++)
			c[j] = fx1[j] * (uint64_t)i;
		make_snap(&s, 7, 1795000000000000000LL + (int64_t)i * step * 1000000000LL, c,
			  (uint64_t)i * 10, (uint64_t)i);
		if (host) {
			free(s.host);
			s.host = strdup(host);
		}
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		if (r)
			fprintf(stderr, "%s\n", err);
		snapshot_free(&s);
	}
	snap_table_free(&t);
	return r;
}

/*
 * unit_test --densify IN OUT: IN's snapshots (a file, the daemon's delta
 * records resolved) appended to OUT as full records, for the tests that
 * compare reports; says on stdout how IN's snapshot records were written:
 * "full F delta D delta_bytes B ext_delta E last delta|full" (E: extension
 * records written against the one before, type 6).
 */
static int densify(const char *in, const char *out)
{
	struct snapfile f;
	char err[SNAP_ERRLEN];
	size_t i, nd = 0, bytes = 0, ne = 0;
	int r = 0, last;

	if (snapfile_read(in, &f, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	last = f.nsnaps && f.snaps[f.nsnaps - 1].delta;
	for (i = 0; i < f.nsnaps && !r; i++) {
		struct snapshot *s = &f.snaps[i];

		if (s->delta) {
			size_t end = i + 1 < f.nsnaps ? (size_t)f.snaps[i + 1].offset : f.good_len;

			nd++;
			bytes += end - (size_t)s->offset;
		}
		ne += s->ext_delta;
		r = snapfile_append(out, &f.tables[s->table_id], s, err, sizeof(err));
		if (r < 0 || s->delta)
			fprintf(stderr, "%s\n", r < 0 ? err : "densify: a delta record written");
	}
	printf("full %zu delta %zu delta_bytes %zu ext_delta %zu last %s\n", f.nsnaps - nd, nd,
	       bytes, ne, last ? "delta" : "full");
	snapfile_free(&f);
	return r < 0 ? -1 : 0;
}

static int truncate_copy(const char *src, const char *dst, long len, long flip)
{
	size_t n;
	char *p = slurp(src, &n);
	FILE *f;

	if (!p)
		return -1;
	if (flip >= 0 && (size_t)flip < n)
		p[flip] ^= 0x40;
	f = fopen(dst, "wb");
	if (!f) {
		free(p);
		return -1;
	}
	fwrite(p, 1, len >= 0 && (size_t)len < n ? (size_t)len : n, f);
	fclose(f);
	free(p);
	return 0;
}

/* Set a record's length, closing size and CRC again after its payload was edited. */
static void reseal(unsigned char *raw, size_t plen)
{
	uLong crc;
	int i;

	for (i = 0; i < 4; i++) {
		raw[8 + i] = (unsigned char)(plen >> (8 * i));
		raw[SNAP_HDR_SIZE + plen - 4 + i] = (unsigned char)((SNAP_HDR_SIZE + plen) >> (8 * i));
	}
	crc = crc32(crc32(0L, Z_NULL, 0), raw, 12);
	crc = crc32(crc, raw + SNAP_HDR_SIZE, (uInt)plen);
	for (i = 0; i < 4; i++)
		raw[12 + i] = (unsigned char)(crc >> (8 * i));
}

/* Write len bytes of p to path; 0 or -1. */
static int spit(const char *path, const unsigned char *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int r;

	if (!f)
		return -1;
	r = fwrite(p, 1, len, f) == len ? 0 : -1;
	return fclose(f) ? -1 : r;
}

/* A file of a user objects table: its identity and path. */
static struct prf_uobj_file ufile(uint32_t minor, uint64_t ino, const char *path)
{
	struct prf_uobj_file f = { .major = 8, .minor = minor, .ino = ino };

	snprintf(f.path, sizeof(f.path), "%s", path);
	return f;
}

/* Chain k of u's records (depth 2): count, flags and two frames (nr 1 or 2). */
static void uchain_set(struct snap_uobjs *u, uint32_t k, uint64_t count, uint32_t flags,
		       uint32_t nr, uint32_t f0, uint64_t o0, uint32_t f1, uint64_t o1)
{
	struct prf_uchain *c = (void *)((char *)u->recs + k * PRF_UCHAIN_RECORD_SIZE(2));
	struct prf_uframe *fr = (void *)(c + 1);

	c->count = count;
	c->flags = flags;
	c->nr_frames = nr;
	fr[0] = (struct prf_uframe){ .offset = o0, .file = f0 };
	if (nr > 1)
		fr[1] = (struct prf_uframe){ .offset = o1, .file = f1 };
}

static uint64_t uchain_count(const struct snap_uobjs *u, uint32_t k)
{
	return prf_uchain_at(u->recs, u->ch.depth, k)->count;
}

/*
 * uobj_snap_delta: the difference of two reads of one table (prf daemon's
 * profiles).  The files come at other indices in the later read (a file
 * renamed keeps its identity): entries match by (device, inode, offset),
 * chains by their frames' files and offsets and their truncation; an
 * entry at 0 is left out, one that went down (the table zeroed between)
 * counts whole, as do the counts lost, dropped and unmapped.
 */
/* Two processes' anonymous code at one address: each less its own. */
static void test_uobj_snap_delta_pids(void)
{
	struct snap_uobjs prev = { 0 }, cur = { 0 }, *d = NULL;
	struct prf_uobj pe[2], ce[2];
	const uint32_t ANON = PRF_UOBJ_ANON;
	int r;

	pe[0] = (struct prf_uobj){ .count = 2, .offset = 0x7000, .file = ANON, .pid = 10 };
	pe[1] = (struct prf_uobj){ .count = 5, .offset = 0x7000, .file = ANON, .pid = 11 };
	ce[0] = (struct prf_uobj){ .count = 9, .offset = 0x7000, .file = ANON, .pid = 11 };
	ce[1] = (struct prf_uobj){ .count = 3, .offset = 0x7000, .file = ANON, .pid = 10 };
	prev.h = (struct prf_uobjs){ .nr = 2 };
	prev.e = pe;
	cur.h = (struct prf_uobjs){ .nr = 2 };
	cur.e = ce;
	r = uobj_snap_delta(&cur, &prev, &d);
	ok(!r && d && d->h.nr == 2 &&
	   d->e[0].pid == 11 && d->e[0].count == 4 &&
	   d->e[1].pid == 10 && d->e[1].count == 1,
	   "uobj_snap_delta: two processes' code at one address, each less its own (4 and 1)");
	snap_uobjs_free(d);
}

static void test_uobj_snap_delta(void)
{
	struct snap_uobjs prev = { 0 }, cur = { 0 }, *d = NULL;
	struct prf_uobj_file pf[2], cf[3];
	struct prf_uobj pe[4], ce[6];
	const uint32_t A = 2, B = 0, C = 1, ANON = PRF_UOBJ_ANON;
	int r, good;

	pf[0] = ufile(1, 100, "/a");
	pf[1] = ufile(1, 200, "/b");
	cf[B] = pf[1];
	cf[C] = ufile(1, 300, "/c");
	cf[A] = ufile(1, 100, "/a.renamed");
	pe[0] = (struct prf_uobj){ .count = 5, .offset = 0x10, .file = 0 };
	pe[1] = (struct prf_uobj){ .count = 3, .offset = 0x20, .file = 1 };
	pe[2] = (struct prf_uobj){ .count = 2, .offset = 0x7000, .file = ANON };
	pe[3] = (struct prf_uobj){ .count = 10, .offset = 0x50, .file = 0 };
	ce[0] = (struct prf_uobj){ .count = 9, .offset = 0x10, .file = A };
	ce[1] = (struct prf_uobj){ .count = 3, .offset = 0x20, .file = B };
	ce[2] = (struct prf_uobj){ .count = 7, .offset = 0x7000, .file = ANON };
	ce[3] = (struct prf_uobj){ .count = 4, .offset = 0x10, .file = C };
	ce[4] = (struct prf_uobj){ .count = 1, .offset = 0x30, .file = B };
	ce[5] = (struct prf_uobj){ .count = 3, .offset = 0x50, .file = A };
	prev.h = (struct prf_uobjs){ .nr = 4, .nfiles = 2, .lost = 1, .dropped = 5 };
	prev.e = pe;
	prev.f = pf;
	cur.h = (struct prf_uobjs){ .nr = 6, .nfiles = 3, .used = 6, .capacity = 64,
				    .lost = 4, .dropped = 2, .unmapped = 0 };
	cur.e = ce;
	cur.f = cf;
	prev.chains_on = cur.chains_on = 1;
	prev.ch = (struct prf_uchains){ .nr = 2, .nfiles = 2, .depth = 2, .dropped = 1 };
	prev.cf = pf;
	prev.recs = calloc(2, PRF_UCHAIN_RECORD_SIZE(2));
	cur.ch = (struct prf_uchains){ .nr = 4, .nfiles = 3, .depth = 2, .dropped = 3 };
	cur.cf = cf;
	cur.recs = calloc(4, PRF_UCHAIN_RECORD_SIZE(2));
	if (!prev.recs || !cur.recs) {
		ok(0, "uobj_snap_delta: %s", strerror(ENOMEM));
		goto out;
	}
	uchain_set(&prev, 0, 4, 0, 2, 0, 0x10, 1, 0x20);
	uchain_set(&prev, 1, 1, PRF_UCHAIN_TRUNCATED, 1, 0, 0x10, 0, 0);
	uchain_set(&cur, 0, 3, 0, 2, C, 0x10, ANON, 0x99);
	uchain_set(&cur, 1, 1, PRF_UCHAIN_TRUNCATED, 1, A, 0x10, 0, 0);
	uchain_set(&cur, 2, 2, 0, 1, A, 0x10, 0, 0);
	uchain_set(&cur, 3, 6, 0, 2, A, 0x10, B, 0x20);

	r = uobj_snap_delta(&cur, &prev, &d);
	good = !r && d && d->h.nr == 5 && d->h.nfiles == 3 && d->h.capacity == 64 &&
	       !memcmp(d->f, cf, sizeof(cf)) &&
	       d->e[0].count == 4 && d->e[0].file == A && d->e[0].offset == 0x10 &&
	       d->e[1].count == 5 && d->e[1].file == ANON &&
	       d->e[2].count == 4 && d->e[2].file == C &&
	       d->e[3].count == 1 && d->e[3].file == B && d->e[3].offset == 0x30 &&
	       d->e[4].count == 3 && d->e[4].file == A && d->e[4].offset == 0x50 &&
	       d->h.lost == 3 && d->h.dropped == 2 && d->h.unmapped == 0;
	ok(good, "uobj_snap_delta: entries by (file identity, offset) across indices and a "
	   "rename, 0 left out, one that went down whole; lost, dropped the same");
	good = !r && d && d->chains_on && d->ch.nr == 3 && d->ch.depth == 2 &&
	       d->ch.nfiles == 3 && !memcmp(d->cf, cf, sizeof(cf)) && d->ch.dropped == 2 &&
	       uchain_count(d, 0) == 3 && uchain_count(d, 1) == 2 && uchain_count(d, 2) == 2 &&
	       !(prf_uchain_at(d->recs, 2, 1)->flags & PRF_UCHAIN_TRUNCATED) &&
	       prf_uchain_frames(prf_uchain_at(d->recs, 2, 2))[1].file == B;
	ok(good, "uobj_snap_delta: chains by their frames' files and offsets, a truncated "
	   "chain apart from the same frames whole, 0 left out");
	snap_uobjs_free(d);
	d = NULL;
	r = uobj_snap_delta(&cur, NULL, &d);
	good = !r && d && d->h.nr == 6 && !memcmp(d->e, ce, sizeof(ce)) && d->ch.nr == 4 &&
	       !memcmp(d->recs, cur.recs, 4 * PRF_UCHAIN_RECORD_SIZE(2)) && d->h.lost == 4 &&
	       d->ch.dropped == 3;
	ok(good, "uobj_snap_delta: with no earlier read, the table whole");
	snap_uobjs_free(d);
	d = NULL;
	cur.chains_on = 0;
	r = uobj_snap_delta(&cur, &prev, &d);
	ok(!r && d && !d->chains_on && !d->recs && d->h.nr == 5,
	   "uobj_snap_delta: a table without chains: the entries alone");
	snap_uobjs_free(d);
out:
	free(prev.recs);
	free(cur.recs);
}

/*
 * The user objects record of a snapshot file's bytes raw (len of them):
 * its offset in *at and its payload's size in *rlen, the records before
 * it stepped over by their headers (raw NULL: nothing).
 */
static void uobjs_record(const unsigned char *raw, size_t len, size_t *at, size_t *rlen)
{
	while (raw && *at + SNAP_HDR_SIZE <= len) {
		*rlen = (size_t)raw[*at + 8] | (size_t)raw[*at + 9] << 8 |
			(size_t)raw[*at + 10] << 16;
		if (raw[*at + 6] == SNAP_REC_UOBJS)
			break;
		*at += SNAP_HDR_SIZE + *rlen;
	}
}

/*
 * The user objects record (type 8, version 8): the table as the device gave
 * it (files, entries, chains) reads back the same; a reader of version 7
 * refuses it by its version; a file index past the files, and a record cut
 * short, are corrupt records, named.
 */
static void test_snapshot_uobjs(void)
{
	char *file = path_in(tmpdir, "u.prf");
	const size_t n = 7;
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	struct snap_uobjs *u = calloc(1, sizeof(*u));
	const struct snap_uobjs *g;
	char err[SNAP_ERRLEN];
	unsigned char *raw = NULL, *cp = NULL;
	size_t len = 0, at = 0, rlen = 0, rs = PRF_UCHAIN_RECORD_SIZE(4);
	uint64_t c[9] = { 1, 2, 3, 0, 4, 5, 0, 20, 6 };
	struct prf_uchain *ch;
	struct prf_uframe *fr;
	int r, same = 0;

	make_table(&t, n, 0xffffffff9a000000ULL);
	u->h.nr = 3;
	u->h.nfiles = 2;
	u->h.used = 3;
	u->h.capacity = 100;
	u->h.files_used = 2;
	u->h.files_max = 10;
	u->h.lost = 1;
	u->h.dropped = 2;
	u->h.unmapped = 3;
	u->f = calloc(2, sizeof(*u->f));
	u->f[0].major = 8;
	u->f[0].minor = 1;
	u->f[0].ino = 123456789012ULL;
	strcpy(u->f[0].path, "/usr/bin/prog");
	u->f[1].flags = PRF_UOBJ_DELETED;
	u->f[1].ino = 7;
	strcpy(u->f[1].path, "/tmp/gone.so");
	u->e = calloc(3, sizeof(*u->e));
	u->e[0] = (struct prf_uobj){ .count = 9, .offset = 0x1234, .file = 0 };
	u->e[1] = (struct prf_uobj){ .count = 4, .offset = 0x10, .file = 1 };
	u->e[2] = (struct prf_uobj){ .count = 1, .offset = 0x7fff0000, .file = PRF_UOBJ_ANON };
	u->chains_on = 1;
	u->ch.nr = 2;
	u->ch.nfiles = 1;
	u->ch.used = 2;
	u->ch.capacity = 50;
	u->ch.depth = 4;
	u->ch.files_used = 1;
	u->ch.dropped = 5;
	u->cf = calloc(1, sizeof(*u->cf));
	u->cf[0] = u->f[0];
	u->recs = calloc(2, rs);
	ch = u->recs;
	fr = (void *)(ch + 1);
	ch->count = 8;
	ch->nr_frames = 2;
	fr[0] = (struct prf_uframe){ .offset = 0x1234, .file = 0 };
	fr[1] = (struct prf_uframe){ .offset = 0x99, .file = PRF_UOBJ_ANON };
	ch = (void *)((char *)u->recs + rs);
	fr = (void *)(ch + 1);
	ch->count = 1;
	ch->flags = PRF_UCHAIN_TRUNCATED;
	ch->nr_frames = 4;
	fr[0] = fr[1] = fr[2] = fr[3] = (struct prf_uframe){ .offset = 0x40, .file = 0 };

	unlink(file);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	s.uobjs = u;
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	g = !r && f.nsnaps == 1 ? f.snaps[0].uobjs : NULL;
	if (g)
		same = g->h.nr == 3 && g->h.nfiles == 2 && g->h.used == 3 && g->h.capacity == 100 &&
		       g->h.files_used == 2 && g->h.files_max == 10 && g->h.lost == 1 &&
		       g->h.dropped == 2 && g->h.unmapped == 3 &&
		       !memcmp(g->f, u->f, 2 * sizeof(*u->f)) &&
		       !memcmp(g->e, u->e, 3 * sizeof(*u->e)) && g->chains_on &&
		       g->ch.nr == 2 && g->ch.nfiles == 1 && g->ch.used == 2 &&
		       g->ch.capacity == 50 && g->ch.depth == 4 && g->ch.files_used == 1 &&
		       g->ch.dropped == 5 && !memcmp(g->cf, u->cf, sizeof(*u->cf)) &&
		       !memcmp(g->recs, u->recs, 2 * rs);
	ok(same, "snapshot: the user objects record reads back the table as given "
	   "(files, identities, entries, chains) %s", r ? err : "");
	snapfile_free(&f);
	s.uobjs = NULL;
	snapshot_free(&s);
	snap_uobjs_free(u);
	raw = (unsigned char *)slurp(file, &len);
	/* an append after it finds the table (the record repeats its id and crc) */
	make_snap(&s, n, 1795000060000000000LL, c, 0, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	ok(!r && f.ntables == 1 && f.nsnaps == 2 && f.snaps[0].uobjs && !f.snaps[1].uobjs,
	   "snapshot: an append after a user objects record refers to the same table %s",
	   r ? err : "");
	snapfile_free(&f);
	snapshot_free(&s);
	snap_table_free(&t);

	/* the records: table, snapshot, user objects (the last) */
	uobjs_record(raw, len, &at, &rlen);
	ok(raw && at + SNAP_HDR_SIZE + rlen == len && raw[at + 4] == SNAP_VERSION_UOBJS &&
	   raw[at + 6] == SNAP_REC_UOBJS,
	   "snapshot: the user objects are a record of their own after the snapshot (type 8, version 8)");
	snprintf(err, sizeof(err), "u.prf: record 3 at offset %zu has format version 8, this prf "
		 "reads versions 1 to 7", at);
	{
		char want[SNAP_ERRLEN];

		memcpy(want, err, sizeof(want));
		r = raw ? snapfile_parse_max(raw, len, "u.prf", &f, err, sizeof(err), 7) : -2;
		ok(r == -1 && strstr(err, want),
		   "snapshot: a version 7 reader refuses the user objects record: %s", err);
		/* an entry naming file 3 of 2 (its index byte, CRC made to match) */
		cp = raw ? malloc(len) : NULL;
		if (cp) {
			/* table id, crc, 4 counts, 3 u64, nfiles, file 0 (4+4+8+4+2+13), file 1 (4+4+8+4+2+12), nr */
			size_t e0 = at + SNAP_HDR_SIZE + 8 + 16 + 24 + 1 + 35 + 34 + 1;

			memcpy(cp, raw, len);
			cp[e0] = 3;
			reseal(cp + at, rlen);
		}
		r = cp ? snapfile_parse(cp, len, "u.prf", &f, err, sizeof(err)) : -2;
		snprintf(want, sizeof(want), "u.prf: corrupt: record 3 at offset %zu: payload does "
			 "not match its length", at);
		ok(r == -1 && strstr(err, want),
		   "snapshot: a user objects entry naming a file past the files is refused: %s", err);
		/* the record cut short by 10 bytes (length, size and CRC made to match) */
		if (cp) {
			memcpy(cp, raw, len);
			memcpy(cp + at + SNAP_HDR_SIZE + rlen - 14, cp + at + SNAP_HDR_SIZE + rlen - 4, 4);
			reseal(cp + at, rlen - 10);
		}
		r = cp ? snapfile_parse(cp, len - 10, "u.prf", &f, err, sizeof(err)) : -2;
		ok(r == -1 && strstr(err, want),
		   "snapshot: a user objects record cut short is refused: %s", err);
		/* one that does not follow a snapshot: a second one after it */
		free(cp);
		cp = raw ? malloc(len + SNAP_HDR_SIZE + rlen) : NULL;
		if (cp) {
			memcpy(cp, raw, len);
			memcpy(cp + len, raw + at, SNAP_HDR_SIZE + rlen);
		}
		r = cp ? snapfile_parse(cp, len + SNAP_HDR_SIZE + rlen, "u.prf", &f, err,
					sizeof(err)) : -2;
		snprintf(want, sizeof(want), "u.prf: corrupt: user objects record 4 at offset %zu "
			 "does not follow a snapshot record", len);
		ok(r == -1 && strstr(err, want),
		   "snapshot: a second user objects record of one snapshot is refused: %s", err);
	}
	free(cp);
	free(raw);
}

/*
 * A kernel-sized table of n functions, 64 bytes apart from _text, its last
 * nmod in ext4: the bytes of its plain payload's entries.
 */
static size_t big_table(struct snap_table *t, size_t n, size_t nmod)
{
	char name[64];
	size_t i, plain = 0;

	memset(t, 0, sizeof(*t));
	t->text = 0xffffffff9a000000ULL;
	t->n = n;
	t->e = calloc(n, sizeof(*t->e));
	for (i = 0; t->e && i < n; i++) {
		snprintf(name, sizeof(name), "subsystem_function_%05zu", i);
		t->e[i].addr = 0xffffffff9a000000ULL + 0x40 * i;
		t->e[i].name = strdup(name);
		t->e[i].module = i >= n - nmod ? strdup("ext4") : NULL;
		t->e[i].kind = SYM_FUNC;
		plain += 8 + 1 + 1 + 2 + strlen(name) + 2 + (i >= n - nmod ? 4 : 0);
	}
	return plain;
}

/*
 * A table of a kernel's size is written compressed (type 7, version 7),
 * reads back the same, is found again by an append (fast and slow way),
 * and a stream that does not inflate to its length is refused, named.
 */
static void test_snapshot_ztable(void)
{
	char *file = path_in(tmpdir, "z.prf");
	const size_t n = 3000;
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	char err[SNAP_ERRLEN];
	unsigned char *raw, *cp;
	size_t len, plain = 24, rlen, same = 0;
	uint64_t c[3002] = { 0 };
	int r;

	plain += big_table(&t, n, 100);
	c[7] = 5;
	c[2999] = 9;
	unlink(file);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	snapshot_free(&s);
	raw = (unsigned char *)slurp(file, &len);
	rlen = raw ? (size_t)raw[8] | (size_t)raw[9] << 8 | (size_t)raw[10] << 16 : 0;
	ok(r == 0 && raw && raw[4] == SNAP_VERSION_TABLE_Z && raw[6] == SNAP_REC_TABLE_Z &&
	   plain >= SNAP_TABLE_Z_MIN && SNAP_HDR_SIZE + rlen < plain / 4,
	   "snapshot: a %zu-entry table is one compressed record (type 7, version 7): "
	   "%zu bytes, its plain payload %zu", n, SNAP_HDR_SIZE + rlen, plain);
	r = snapfile_read(file, &f, err, sizeof(err));
	if (!r && f.ntables == 1 && f.tables[0].n == n && f.nsnaps == 1)
		same = snap_table_equal(&f.tables[0], &t) && f.snaps[0].counts[7] == 5 &&
		       f.snaps[0].counts[2999] == 9 && f.tables[0].text == t.text;
	ok(same, "snapshot: the compressed table reads back the same (addresses, names, "
	   "modules, _text) %s", r ? err : "");
	snapfile_free(&f);

	/* an append finds it: the fast way (after a snapshot) */
	make_snap(&s, n, 1795000060000000000LL, c, 0, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	ok(r == 0 && s.table_id == 0, "snapshot: an append refers to the compressed table");
	snapshot_free(&s);
	/* and the slow way: past a torn last record, reading the table record itself */
	free(raw);
	raw = (unsigned char *)slurp(file, &len);
	cp = raw ? realloc(raw, len + 9) : NULL;
	if (cp) {
		raw = cp;
		memcpy(raw + len, "PRFS\x02\x00\x02\x00\x40", 9);
		spit(file, raw, len + 9);
	}
	make_snap(&s, n, 1795000120000000000LL, c, 0, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	ok(r == 1 && s.table_id == 0 && !snapfile_read(file, &f, err, sizeof(err)) &&
	   f.ntables == 1 && f.nsnaps == 3,
	   "snapshot: past a torn record, an append reads the compressed table and keeps it");
	snapshot_free(&s);
	snapfile_free(&f);

	/* a reader of version 6 refuses it by its version */
	r = raw ? snapfile_parse_max(raw, len, "z.prf", &f, err, sizeof(err), 6) : -2;
	ok(r == -1 && strstr(err, "z.prf: record 1 at offset 0 has format version 7, this "
			     "prf reads versions 1 to 6"),
	   "snapshot: a version 6 reader refuses the compressed table: %s", err);

	/* a byte of the stream changed (and the CRC made to match): zlib says */
	cp = raw ? malloc(len) : NULL;
	if (cp) {
		memcpy(cp, raw, len);
		cp[SNAP_HDR_SIZE + 4 + rlen / 2] ^= 0x55;
		reseal(cp, rlen);
	}
	r = cp ? snapfile_parse(cp, len, "zbad.prf", &f, err, sizeof(err)) : -2;
	ok(r == -1 && strstr(err, "zbad.prf: corrupt: compressed table record 1 at offset 0: "
			     "its stream does not inflate"),
	   "snapshot: a corrupt compressed table is refused: %s", err);
	/* the stream cut short (record length, size and CRC made to match) */
	if (cp) {
		memcpy(cp, raw, SNAP_HDR_SIZE + rlen);
		memcpy(cp + SNAP_HDR_SIZE + rlen - 4 - 100, cp + SNAP_HDR_SIZE + rlen - 4, 4);
		reseal(cp, rlen - 100);
	}
	r = cp ? snapfile_parse(cp, SNAP_HDR_SIZE + rlen - 100, "zbad.prf", &f, err,
				sizeof(err)) : -2;
	ok(r == -1 && strstr(err, "zbad.prf: corrupt: compressed table record 1 at offset 0: "
			     "its stream does not inflate"),
	   "snapshot: a cut compressed table is refused: %s", err);
	/* a length the stream cannot hold: refused before allocating it */
	if (cp) {
		memcpy(cp, raw, SNAP_HDR_SIZE + rlen);
		memcpy(cp + SNAP_HDR_SIZE, "\xff\xff\xff\xff", 4);
		reseal(cp, rlen);
	}
	r = cp ? snapfile_parse(cp, SNAP_HDR_SIZE + rlen, "zbad.prf", &f, err, sizeof(err)) : -2;
	ok(r == -1 && strstr(err, "compressed table record 1 at offset 0: a length its "
			     "stream cannot hold"),
	   "snapshot: a compressed table's impossible length is refused: %s", err);
	/* a length one byte short of the stream's */
	if (cp) {
		memcpy(cp, raw, SNAP_HDR_SIZE + rlen);
		cp[SNAP_HDR_SIZE] = (unsigned char)(cp[SNAP_HDR_SIZE] - 1);
		reseal(cp, rlen);
	}
	r = cp ? snapfile_parse(cp, SNAP_HDR_SIZE + rlen, "zbad.prf", &f, err, sizeof(err)) : -2;
	ok(r == -1 && strstr(err, "compressed table record 1 at offset 0: its stream "
			     "inflates to more than its length"),
	   "snapshot: a compressed table longer than it says is refused: %s", err);
	free(cp);
	free(raw);
	snap_table_free(&t);
	unlink(file);
}

/*
 * snap_table_z(0), prf record's for a report file of its own: the same
 * kernel-sized table written plain (type 1), and read back the same; on
 * again, compressed.
 */
static void test_snapshot_plain_table(void)
{
	char *file = path_in(tmpdir, "plain.prf");
	const size_t n = 3000;
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	char err[SNAP_ERRLEN];
	unsigned char *raw;
	size_t len;
	uint64_t c[3002] = { 0 };
	int r, same = 0;

	big_table(&t, n, 0);
	c[11] = 3;
	unlink(file);
	snap_table_z(0);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	snapshot_free(&s);
	snap_table_z(1);
	raw = (unsigned char *)slurp(file, &len);
	ok(r == 0 && raw && len > 40000 && raw[6] == SNAP_REC_TABLE,
	   "snapshot: tables not compressed: a %zu-entry table is a plain record (type %d)",
	   n, raw ? raw[6] : -1);
	free(raw);
	r = snapfile_read(file, &f, err, sizeof(err));
	if (!r && f.ntables == 1 && f.nsnaps == 1)
		same = snap_table_equal(&f.tables[0], &t) && f.snaps[0].counts[11] == 3;
	ok(same, "snapshot: the plain kernel-sized table reads back the same %s", r ? err : "");
	snapfile_free(&f);
	unlink(file);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	snapshot_free(&s);
	raw = (unsigned char *)slurp(file, &len);
	ok(r == 0 && raw && raw[6] == SNAP_REC_TABLE_Z,
	   "snapshot: compressed again once switched back (type %d)", raw ? raw[6] : -1);
	free(raw);
	snap_table_free(&t);
	unlink(file);
}

/* ---- the PLT's entries named (elf_plt_entries) ---- */

struct plt_seen {
	char lines[4096][224];
	size_t n;
};

static int plt_seen_add(void *arg, uint64_t addr, uint64_t size, const char *name)
{
	struct plt_seen *p = arg;

	(void)size;
	if (p->n < 4096 && strcmp(name, ".plt"))
		snprintf(p->lines[p->n++], sizeof(p->lines[0]), "%" PRIx64 " %s", addr, name);
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * Every entry of @path's PLT named as objdump (@objdump) names it: its
 * address and relocation's symbol, or *ABS*+ADDEND for an IFUNC.  The
 * number of entries into *n.
 */
static int plt_as_objdump(const char *objdump, const char *path, size_t *n)
{
	static struct plt_seen mine, od;
	char cmd[512], line[256], name[200];
	unsigned long long a;
	int fd, same;
	FILE *f;
	Elf *e;

	mine.n = od.n = 0;
	*n = 0;
	e = elf_file_open(path, ELF_C_READ, &fd, line, sizeof(line));
	if (!e)
		return 0;
	elf_plt_entries(e, plt_seen_add, &mine);
	elf_end(e);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s -d -j .plt -j .plt.sec %s 2>/dev/null", objdump, path);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx <%199[^>]>:", &a, name) == 2 && strstr(name, "@plt") &&
		    !strchr(name, '-') && od.n < 4096)
			snprintf(od.lines[od.n++], sizeof(od.lines[0]), "%llx %s", a, name);
	pclose(f);
	qsort(mine.lines, mine.n, sizeof(mine.lines[0]), cmp_line);
	qsort(od.lines, od.n, sizeof(od.lines[0]), cmp_line);
	same = mine.n == od.n && mine.n > 0;
	for (size_t i = 0; same && i < mine.n; i++)
		same = !strcmp(mine.lines[i], od.lines[i]);
	*n = mine.n;
	return same;
}

static int plt_print(void *arg, uint64_t addr, uint64_t size, const char *name)
{
	(void)arg;
	printf("%#" PRIx64 " %" PRIu64 " %s\n", addr, size, name);
	return 0;
}

/*
 * unit_test --plt-names FILE: elf_plt_entries() of FILE, "ADDR SIZE NAME" a
 * line (tests/cfi_tests.sh: a static arm64 program's PLT).
 */
static int plt_names(const char *path)
{
	char err[256];
	int fd, ret;
	Elf *e;

	e = elf_file_open(path, ELF_C_READ, &fd, err, sizeof(err));
	if (!e) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ret = elf_plt_entries(e, plt_print, NULL);
	elf_end(e);
	close(fd);
	return ret ? 1 : 0;
}

static void test_plt_names(void)
{
	static const char *const libs[][3] = {
		{ "x86-64", "objdump", "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ "arm64", "aarch64-linux-gnu-objdump", "/usr/aarch64-linux-gnu/lib/libc.so.6" },
	};
	char err[256], od[64];
	struct symtab t;
	size_t i, n;
	int same;
	long k;

	for (i = 0; i < 2; i++) {
		snprintf(od, sizeof(od), "command -v %s >/dev/null", libs[i][1]);
		if (access(libs[i][2], R_OK) || system(od)) {
			ok(1, "PLT names of Debian's %s libc # SKIP no %s or no %s", libs[i][0],
			   libs[i][2], libs[i][1]);
			continue;
		}
		same = plt_as_objdump(libs[i][1], libs[i][2], &n);
		ok(same, "PLT names: every one of the %zu entries of Debian's %s libc as objdump "
		   "names it (relocations' symbols; IFUNCs' *ABS*+ADDEND, on x86-64 not in "
		   ".rela.plt's order)", n, libs[i][0]);
	}
	if (!usym_pie)
		return;
	same = plt_as_objdump("objdump", usym_pie, &n);
	ok(same, "PLT names: the %zu entries of usym_pie as objdump names them", n);
	/* a PC in an entry is the entry's, not the symbol before the PLT (_init) */
	symtab_init(&t);
	if (usym_add_file(&t, usym_pie, "usym_pie", err, sizeof(err)) > 0)
		symtab_sort_dedupe(&t);
	for (k = -1, i = 0; i < t.n; i++)
		if (!strcmp(t.v[i].name, "fopen@plt"))
			k = (long)i;
	ok(k >= 0 && t.v[k].size == 16 && symtab_find(&t, t.v[k].addr + 15) == k,
	   "PLT names: usym_pie's fopen@plt, 16 bytes, holds its entry's last byte (file offset "
	   "%#" PRIx64 ")", k >= 0 ? t.v[k].addr : 0);
	symtab_free(&t);
}

/*
 * The module's rows of a table (cfi_unwind_rows()): a row of rules as it
 * is, a signal frame's row (its CFA an expression) PRF_UNWIND_ROW_SIGNAL
 * with no rules, any other flagged row a stop.  And Debian's C library:
 * exactly one signal row, over its rt_sigreturn trampoline (the byte
 * before it, then mov $15, %rax; syscall).
 */
static void test_cfi_unwind_rows(void)
{
	static const unsigned char tramp[] = {
		0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05,
	};
	struct cfi_row rows[3] = {
		{ .start = 0x10, .len = 4, .cfa_off = 16, .ra_off = -8,
		  .rules = CFI_RULE_AT << 1 | CFI_SRC_EH << 5 },
		{ .start = 0x14, .len = 9, .rules = CFI_SRC_EH << 5,
		  .flags = CFI_F_SIGNAL | CFI_F_CFA_EXPR | CFI_F_RA },
		{ .start = 0x20, .len = 16, .flags = CFI_F_CFA_EXPR },
	};
	struct cfi_table t = { .rows = rows, .n = 3, .machine = EM_X86_64 };
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct prf_unwind_row out[3], *all;
	unsigned char code[sizeof(tramp)];
	size_t stops, i, sigs = 0, at = 0;
	char err[256];
	FILE *f;

	stops = cfi_unwind_rows(&t, out);
	ok(stops == 1 && !out[0].flags && out[0].cfa_off == 16 && out[0].ra_off == -8 &&
	   out[0].rules == PRF_UNWIND_RULES(0, PRF_UNWIND_AT, PRF_UNWIND_SAME) &&
	   out[1].flags == PRF_UNWIND_ROW_SIGNAL && !out[1].rules && !out[1].cfa_off &&
	   out[1].start == 0x14 && out[1].len == 9 && out[2].flags == PRF_UNWIND_ROW_STOP,
	   "cfi rows: rules kept, a signal frame's row PRF_UNWIND_ROW_SIGNAL without rules, "
	   "another flagged row a stop (%zu stops)", stops);
	memset(&t, 0, sizeof(t));
	if (access(libc, R_OK) || cfi_build(libc, PRF_UNWIND_ROWS_MAX, &t, err, sizeof(err))) {
		ok(1, "cfi rows: Debian's libc # SKIP %s", access(libc, R_OK) ? libc : err);
		return;
	}
	all = calloc(t.n, sizeof(*all));
	if (all) {
		cfi_unwind_rows(&t, all);
		for (i = 0; i < t.n; i++)
			if (all[i].flags & PRF_UNWIND_ROW_SIGNAL) {
				sigs++;
				at = i;
			}
	}
	f = fopen(libc, "rb");
	ok(all && sigs == 1 && all[at].len == 1 + sizeof(tramp) && f &&
	   !fseek(f, (long)all[at].start + 1, SEEK_SET) &&
	   fread(code, 1, sizeof(code), f) == sizeof(code) && !memcmp(code, tramp, sizeof(code)),
	   "cfi rows: Debian's libc has %zu signal row (1), over its rt_sigreturn trampoline "
	   "and the byte before it", sigs);
	if (f)
		fclose(f);
	free(all);
	cfi_free(&t);
}

static void test_snapshots(void)
{
	char *file = path_in(tmpdir, "snap.prf"), *bad = path_in(tmpdir, "bad.prf");
	struct snapfile f;
	struct snap_table t, t2;
	struct snapshot s;
	char err[SNAP_ERRLEN];
	struct stat st1, st2, st3, st4;
	unsigned char *raw;
	size_t len;
	int r;

	unlink(file);
	make_table(&t, 7, 0xffffffff9a000000ULL);
	make_snap(&s, 7, 1795000000000000000LL, fx1, 10, 1);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	ok(r == 0 && s.table_id == 0, "snapshot: first append creates the file");
	snapshot_free(&s);
	stat(file, &st1);
	raw = (unsigned char *)slurp(file, &len);
	ok(raw && len > 32 && !memcmp(raw, "PRFS", 4) && raw[4] == 2 && raw[5] == 0 &&
	   raw[6] == SNAP_REC_TABLE && raw[7] == 0 &&
	   raw[SNAP_HDR_SIZE + 8] == 0x00 && raw[SNAP_HDR_SIZE + 15] == 0xff &&
	   raw[SNAP_HDR_SIZE + 11] == 0x9a,
	   "snapshot: little-endian on disk (magic, version 2, table record, _text bytes)");
	free(raw);

	make_snap(&s, 7, 1795000060000000000LL, fx2, 30, 3);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	ok(r == 0 && s.table_id == 0, "snapshot: same table is referred to, not repeated");
	snapshot_free(&s);
	stat(file, &st2);
	make_snap(&s, 7, 1795000120000000000LL, fx2, 30, 3);
	snapfile_append(file, &t, &s, err, sizeof(err));
	snapshot_free(&s);
	stat(file, &st3);
	ok(st3.st_size - st2.st_size == st2.st_size - st1.st_size - 0 &&
	   st3.st_size - st2.st_size < st1.st_size,
	   "snapshot: each snapshot adds the same size, smaller than a table record");

	make_table(&t2, 5, 0xffffffff9b000000ULL);
	{
		uint64_t c5[7] = { 1, 2, 3, 4, 5, 6, 7 };

		make_snap(&s, 5, 1795000180000000000LL, c5, 0, 0);
		r = snapfile_append(file, &t2, &s, err, sizeof(err));
		ok(r == 0 && s.table_id == 1, "snapshot: a new table gets a new table record");
		snapshot_free(&s);
	}
	stat(file, &st4);
	r = snapfile_read(file, &f, err, sizeof(err));
	ok(r == 0 && f.ntables == 2 && f.nsnaps == 4, "snapshot: read back 2 tables, 4 snapshots");
	if (!r) {
		ok(snap_table_equal(&f.tables[0], &t) && f.snaps[1].counts[2] == 700 &&
		   f.snaps[1].ticks_outside == 30 && f.snaps[1].ticks_lost == 3 &&
		   f.snaps[0].cpu == -1 && f.snaps[0].hz == 100 && f.snaps[0].ncpus == 2 &&
		   !strcmp(f.snaps[0].device, "/dev/prf") && !strcmp(f.snaps[0].host, "testhost") &&
		   f.snaps[3].table_id == 1 && f.snaps[3].counts[6] == 7 &&
		   f.tables[0].e[4].module && !strcmp(f.tables[0].e[4].module, "ext4") &&
		   !f.tables[0].e[0].module && f.tables[0].e[3].kind == SYM_SENTINEL &&
		   f.snaps[1].time_ns == 1795000060000000000LL,
		   "snapshot: every field survives the round trip");
		snapfile_free(&f);
	}

	/* Corruption */
	truncate_copy(file, bad, (long)st4.st_size - 1, -1);
	r = snapfile_read(bad, &f, err, sizeof(err));
	if (!r)
		snapfile_torn_note(&f, "bad.prf", err, sizeof(err));
	ok(r == 0 && f.nsnaps == 3 && f.ntables == 2 &&
	   f.good_len + f.torn_len == (size_t)st4.st_size - 1 && f.torn_rec == 6 && strstr(err, "bad.prf: record 6 at offset") && strstr(err, "torn"),
	   "snapshot: one byte cut: the torn last record skipped, the rest read: %s", err);
	snapfile_free(&f);
	truncate_copy(file, bad, -1, -1);
	{
		FILE *fa = fopen(bad, "ab");

		fwrite("PRFS\1\0", 1, 6, fa);
		fclose(fa);
	}
	r = snapfile_read(bad, &f, err, sizeof(err));
	ok(r == 0 && f.nsnaps == 4 && f.torn_len == 6 && f.good_len == (size_t)st4.st_size,
	   "snapshot: a cut header after the last record: torn, skipped");
	snapfile_free(&f);
	truncate_copy(file, bad, -1, 100);
	r = snapfile_read(bad, &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "CRC32") && strstr(err, "record 1"),
	   "snapshot: a flipped byte: %s", err);
	truncate_copy(file, bad, -1, (long)st2.st_size + 40);
	r = snapfile_read(bad, &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "CRC32") && strstr(err, "record 4"),
	   "snapshot: a flipped byte in a later record names it: %s", err);
	truncate_copy(file, bad, -1, 1);
	r = snapfile_read(bad, &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "magic"), "snapshot: bad magic: %s", err);
	truncate_copy(file, bad, -1, 4);
	r = snapfile_read(bad, &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "CRC32"), "snapshot: a flipped version byte is corruption");
	{
		/* A well-formed record of a later version. */
		char later[32];
		size_t blen;
		unsigned char *b = (unsigned char *)slurp(file, &blen);
		uint32_t plen = (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 |
				(uint32_t)b[11] << 24;
		uLong crc;
		FILE *fv;

		b[4] = SNAP_VERSION_MAX + 1;
		crc = crc32(crc32(0L, Z_NULL, 0), b, 12);
		crc = crc32(crc, b + SNAP_HDR_SIZE, plen);
		b[12] = (unsigned char)crc;
		b[13] = (unsigned char)(crc >> 8);
		b[14] = (unsigned char)(crc >> 16);
		b[15] = (unsigned char)(crc >> 24);
		fv = fopen(bad, "wb");
		fwrite(b, 1, blen, fv);
		fclose(fv);
		free(b);
		r = snapfile_read(bad, &f, err, sizeof(err));
		snprintf(later, sizeof(later), "format version %d", SNAP_VERSION_MAX + 1);
		ok(r == -1 && strstr(err, later), "snapshot: a later version: %s", err);
	}
	make_snap(&s, 7, 0, fx1, 0, 0);
	{
		FILE *fx = fopen(bad, "wb");

		fputs("not a snapshot file, but long enough to hold a record header\n", fx);
		fclose(fx);
	}
	r = snapfile_append(bad, &t, &s, err, sizeof(err));
	ok(r == -1 && strstr(err, "refusing to append") && strstr(err, "magic"),
	   "snapshot: no append to a file that is not a snapshot file");
	truncate_copy(file, bad, -1, 100);
	r = snapfile_append(bad, &t2, &s, err, sizeof(err));
	ok(r == 0, "snapshot: appending reads the last record alone (a byte flipped in the first "
	   "is not seen)");
	r = snapfile_read(bad, &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "CRC32") && strstr(err, "record 1"),
	   "snapshot: ... and the reader still finds it: %s", err);
	snapshot_free(&s);
	{
		FILE *fe = fopen(bad, "wb");

		fclose(fe);
		r = snapfile_read(bad, &f, err, sizeof(err));
		ok(r == 0 && f.nsnaps == 0, "snapshot: an empty file holds no snapshot");
		snapfile_free(&f);
	}
	r = snapfile_read("/nonexistent/x.prf", &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "/nonexistent/x.prf") && strstr(err, strerror(ENOENT)),
	   "snapshot: missing file named with strerror");
	snap_table_free(&t);
	snap_table_free(&t2);
	unlink(file);
	unlink(bad);
}

/* ---- reports ---- */

static char *render(const struct report *r, enum report_format fmt, double cutoff)
{
	struct report_opts o = { 0 };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	o.format = fmt;
	o.cutoff = cutoff;
	o.file = "fixture.prf";
	report_print(f, r, &o);
	fclose(f);
	return s;
}

static void compare(const char *got, const char *name)
{
	char *want = slurp(path_in(expectdir, name), NULL);

	ok(want && !strcmp(got, want), "report: output equals expected/%s", name);
	if (!want || strcmp(got, want)) {
		printf("# got:\n");
		diag_text(got);
	}
	free(want);
}

static void test_report(void)
{
	char *file = path_in(tmpdir, "fixture.prf"), *out;
	struct snapfile f;
	struct report r;
	char err[SNAP_ERRLEN];
	int ret;

	unlink(file);
	ok(write_fixture(file) == 0, "report: fixture written");
	if (snapfile_read(file, &f, err, sizeof(err))) {
		ok(0, "report: fixture read: %s", err);
		return;
	}
	ret = report_from_file(&r, &f, 2, 3, err, sizeof(err));
	ok(ret == 0, "report: snapshots 2 to 3 (%s)", ret ? err : "ok");
	if (!ret) {
		/* deltas: 1000 10 600 10 100 0 1 | user 200 idle 2000 | outside 20 */
		ok(r.kernel == 1721 && r.user == 200 && r.idle == 2000 && r.outside == 20 &&
		   r.lost == 2 && r.all == 3941 && r.in_sentinels == 11,
		   "report: deltas and totals");
		ok(r.nrows == 6 && r.rows[0].samples == 1000 && r.rows[1].samples == 600 &&
		   r.rows[2].samples == 100 && r.rows[5].samples == 1,
		   "report: rows sorted by samples, zero rows left out");
		ok(r.rows[0].pct > 25.37 && r.rows[0].pct < 25.38, "report: percent of all samples");
		ok(r.seconds == 60.0, "report: 60 s between the snapshots");
		out = render(&r, FMT_TEXT, 1.0);
		compare(out, "report.txt");
		free(out);
		out = render(&r, FMT_TEXT, 0);
		ok(strstr(out, "[outside ext4 text]") && strstr(out, "beta") &&
		   !strstr(out, "ext4_b"), "report: cutoff 0 shows every nonzero row");
		free(out);
		out = render(&r, FMT_TEXT, 40);
		ok(strstr(out, "alpha") && !strstr(out, "gamma") &&
		   strstr(out, "721   41.41  (5 more functions, each at or below 40.00%)"),
		   "report: cutoff 40 (of kernel samples) keeps one row, says what it left");
		free(out);
		out = render(&r, FMT_CSV, 1.0);
		compare(out, "report.csv");
		free(out);
		out = render(&r, FMT_JSON, 1.0);
		compare(out, "report.json");
		free(out);
		out = render(&r, FMT_FOLDED, 0);
		compare(out, "report.folded");
		free(out);
		report_free(&r);
	}
	ret = report_from_file(&r, &f, 1, 3, err, sizeof(err));
	ok(ret == 0 && r.kernel == 2689 && r.user == 600 && r.idle == 2600,
	   "report: the whole span 1 to 3");
	report_free(&r);
	ret = report_from_file(&r, &f, 0, 2, err, sizeof(err));
	ok(ret == 0 && r.kernel == 968 && !r.a, "report: since the load");
	report_free(&r);
	ret = report_from_file(&r, &f, 3, 4, err, sizeof(err));
	ok(ret == -1 && strstr(err, "cleared or reloaded"), "report: counters backwards: %s", err);
	ret = report_from_file(&r, &f, 3, 2, err, sizeof(err));
	ok(ret == -1 && strstr(err, "not before"), "report: pair out of order refused");
	ret = report_from_file(&r, &f, 1, 9, err, sizeof(err));
	ok(ret == -1 && strstr(err, "no snapshot 9"), "report: missing snapshot refused");
	snapfile_free(&f);
	unlink(file);
}

static void test_name_last(void)
{
	struct snap_table t;

	make_table(&t, 6, 0x1000);	/* ... ext4_a, ext4_b (a function) */
	report_name_last(&t);
	ok(!strcmp(t.e[5].name, "[outside ext4 text]") && t.e[5].kind == SYM_SENTINEL &&
	   !strcmp(t.e[5].module, "ext4"),
	   "last entry on another's function is named as the sentinel it is");
	snap_table_free(&t);
	make_table(&t, 4, 0x1000);	/* ends with [outside kernel text] */
	report_name_last(&t);
	ok(!strcmp(t.e[3].name, "[outside kernel text]") && !t.e[3].module,
	   "a sentinel at the end stays as it is");
	t.e[2].kind = SYM_BUCKET;
	t.e[3].kind = SYM_BUCKET;
	report_name_last(&t);
	ok(!strcmp(t.e[3].name, "[past the last bucket]") && t.e[3].kind == SYM_SENTINEL,
	   "the end of a bucket range");
	snap_table_free(&t);
}

static void test_off_hour(void)
{
	/* TZ=UTC (main sets it): 2026-11-18 11:07:40 */
	time_t now = 1795000060;

	tzset();
	ok(next_off_time(now, 12) == 1795000060 - 40 - 7 * 60 + 3600,
	   "prfdc off_hour 12 at 11:07:40: today 12:00");
	ok(next_off_time(now, 11) == 1795000060 - 40 - 7 * 60 + 86400,
	   "prfdc off_hour 11 at 11:07:40: tomorrow 11:00");
	ok(next_off_time(now, 24) == next_off_time(now, 0) &&
	   next_off_time(now, 0) == 1795000060 - 40 - 7 * 60 - 11 * 3600 + 86400,
	   "prfdc off_hour 24 and 0: next midnight");
}

/* The entry of t exactly at addr, or NULL. */
static const struct sym *sym_at(const struct symtab *t, uint64_t addr)
{
	long i = symtab_find(t, addr);

	return i >= 0 && t->v[i].addr == addr ? &t->v[i] : NULL;
}

static int strictly_ascending(const struct symtab *t)
{
	size_t i;

	for (i = 1; i < t->n; i++)
		if (t->v[i].addr <= t->v[i - 1].addr)
			return 0;
	return 1;
}

static void test_uobj(const char *prog, const char *mod);
static void test_uobj_gap(void);

/* Run prog, which saves its maps and prints its functions' addresses. */
static void test_usym_prog(const char *prog, const char *mod, int pie)
{
	char maps[1100], outf[1100], cmd[3400], line[256], err[512];
	unsigned long one = 0, two = 0, gp = 0;
	struct umap *v = NULL;
	struct symtab t;
	const struct sym *s;
	size_t n = 0, i, exe = 0;
	FILE *f;
	int ret = 0, found_exe = 0;

	snprintf(maps, sizeof(maps), "%s/%s.maps", tmpdir, mod);
	snprintf(outf, sizeof(outf), "%s/%s.out", tmpdir, mod);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' > '%s'", prog, maps, outf);
	if (!ok(system(cmd) == 0, "usym %s: the test program ran", mod))
		return;
	f = fopen(outf, "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "usym_one %lx", &one);
		sscanf(line, "usym_two %lx", &two);
		sscanf(line, "getpid %lx", &gp);
	}
	if (f)
		fclose(f);
	ok(one && two && gp, "usym %s: its addresses printed", mod);
	ok(!usym_read_maps(maps, &v, &n, err, sizeof(err)) && n >= 2,
	   "usym %s: executable mappings read (%zu)", mod, n);
	for (i = 0; i < n; i++) {
		const char *b = strrchr(v[i].path, '/');

		if (b && !strcmp(b + 1, mod)) {
			found_exe++;
			exe = i;
		}
	}
	ok(found_exe == 1, "usym %s: one executable mapping of the program itself", mod);
	symtab_init(&t);
	for (i = 0; i < n; i++)
		if (usym_add_mapping(&t, &v[i], "", err, sizeof(err)) < 0)
			ret = -1;
	ok(!ret, "usym %s: every mapping's object read%s%s", mod, ret ? ": " : "",
	   ret ? err : "");
	symtab_sort_dedupe(&t);
	ok(strictly_ascending(&t), "usym %s: the table is strictly ascending", mod);
	s = sym_at(&t, one);
	ok(s && s->kind == SYM_FUNC && !strcmp(s->name, "usym_one") && s->module &&
	   !strcmp(s->module, mod), "usym %s: usym_one at %#lx, module %s (got %s %s)", mod,
	   one, mod, s ? s->name : "nothing", s && s->module ? s->module : "-");
	s = sym_at(&t, two);
	ok(s && s->kind == SYM_FUNC && !strcmp(s->name, "usym_two"),
	   "usym %s: usym_two at %#lx", mod, two);
	s = sym_at(&t, two + 1);
	ok(!s, "usym %s: nothing inside usym_two", mod);
	if (found_exe) {
		char *nm = nl_sentinel_name(mod);

		s = sym_at(&t, v[exe].end);
		ok(s && s->kind == SYM_SENTINEL && nm && !strcmp(s->name, nm),
		   "usym %s: sentinel %s at the mapping's end %#" PRIx64, mod, nm ? nm : "?",
		   v[exe].end);
		free(nm);
		ok(t.n && usym_is_user_addr(t.v[t.n - 1].addr) && !usym_is_user_addr(UINT64_C(0xffffffff81000000)),
		   "usym %s: user addresses sort below kernel ones", mod);
	}
	if (pie) {
		/* The PIE took getpid from libc: a shared object, relocated too. */
		s = sym_at(&t, gp);
		ok(s && s->kind == SYM_FUNC && s->module && !strncmp(s->module, "libc", 4),
		   "usym %s: getpid in libc at %#lx (got %s %s)", mod, gp, s ? s->name : "nothing",
		   s && s->module ? s->module : "-");
	}
	symtab_free(&t);
	usym_free_maps(v, n);
	if (pie) {
		test_uobj(prog, mod);	/* on the same run */
		test_uobj_gap();
	}
	unlink(maps);
	unlink(outf);
}

/* The mapping of prog's own code in maps (its first executable one), or NULL. */
static const struct umap *exe_mapping(const struct umap *v, size_t n, const char *mod)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *b = strrchr(v[i].path, '/');

		if (b && !strcmp(b + 1, mod))
			return &v[i];
	}
	return NULL;
}

/* The name usym gives addr in m's object with $PRF_DEBUG_DIR set to dir. */
static char *name_with_debug_dir(const struct umap *m, uint64_t addr, const char *dir)
{
	struct symtab t;
	const struct sym *s;
	char err[512], *name = NULL;

	setenv("PRF_DEBUG_DIR", dir, 1);
	symtab_init(&t);
	if (usym_add_mapping(&t, m, "", err, sizeof(err)) >= 0) {
		symtab_sort_dedupe(&t);
		s = sym_at(&t, addr);
		name = strdup(s ? s->name : "(no symbol)");
	}
	symtab_free(&t);
	unsetenv("PRF_DEBUG_DIR");
	return name;
}

/*
 * A stripped PIE (prog) whose symbols are in prog.debug: named from the
 * debug file found by its build ID in $PRF_DEBUG_DIR, not from a file of
 * another build put under that name, not without one.
 */
/* A row of u by name and module, or NULL. */
static const struct uobj_row *uobj_row_of(const struct uobj_res *u, const char *name,
					  const char *module)
{
	size_t i;

	for (i = 0; i < u->nrows; i++)
		if (!strcmp(u->rows[i].name, name) && !strcmp(u->rows[i].module, module))
			return &u->rows[i];
	return NULL;
}

/* The chain of u whose count is count (counts are distinct here), or NULL. */
static const struct uobj_chain *chain_of(const struct uobj_res *u, uint64_t count)
{
	size_t i;

	for (i = 0; i < u->nchains; i++)
		if (u->chains[i].count == count)
			return &u->chains[i];
	return NULL;
}

static int frame_is_named(const struct uobj_res *u, const struct uobj_chain *c, uint32_t k,
			  const char *name, const char *module)
{
	const struct snap_frame *f;

	if (!c || k >= c->nr)
		return 0;
	f = &u->frames[c->f[k]];
	return f->user && !strcmp(f->name, name) && !strcmp(f->module, module);
}

/*
 * User call chains (uobj_resolve_chains) on test_uobj's table: frames
 * named as the entries are (usym_one, usym_two; anonymous code; a replaced
 * or deleted file unnamed, never by the file now at its path), a return
 * address at its offset - 1 (the start of usym_two, returned to, is not
 * usym_two), the chains' files matched with the entries' whatever their
 * order and a file of the chains alone opened; frames shared, chains of
 * no sample left out; then the folded lines of a report with them.
 */
static void test_uobj_chains(const char *prog, const char *mod, const struct prf_uobjs *h,
			     const struct prf_uobj *ents, const struct prf_uobj_file *files,
			     uint64_t off1, uint64_t off2)
{
	enum { DEPTH = 4, NCH = 6 };
	struct prf_uobj_file cf[4];
	union {
		unsigned char b[NCH * PRF_UCHAIN_RECORD_SIZE(DEPTH)];
		uint64_t align;
	} rec;
	struct prf_uchains ch;
	struct uobj_res u;
	const struct uobj_chain *c0, *c1, *c2, *c3;
	char err[1200], line[1200], repl[300], del[300];
	size_t i;

	memset(&rec, 0, sizeof(rec));
	memset(&ch, 0, sizeof(ch));
	/* the entries' files in another order, and prog under another path */
	cf[0] = files[2];
	cf[1] = files[0];
	cf[2] = files[1];
	cf[3] = files[0];
	snprintf(line, sizeof(line), "%s", prog);
	{
		char *slash = strrchr(line, '/');

		if (slash)
			snprintf(cf[3].path, sizeof(cf[3].path), "%.*s/./%s", (int)(slash - line),
				 line, slash + 1);
	}
#define CH(i) ((struct prf_uchain *)(rec.b + (i) * PRF_UCHAIN_RECORD_SIZE(DEPTH)))
#define FR(i, k, fi, o) (((struct prf_uframe *)(CH(i) + 1))[k] = (struct prf_uframe){ (o), (fi), 0 })
	*CH(0) = (struct prf_uchain){ 5, 3, 0 };
	FR(0, 0, 1, off1 + 1);
	FR(0, 1, 1, off2 + 1);
	FR(0, 2, PRF_UOBJ_ANON, 0x7fff2000);
	*CH(1) = (struct prf_uchain){ 3, 2, 0 };
	FR(1, 0, 1, off2);
	FR(1, 1, 1, off2);		/* returns to usym_two's first byte */
	*CH(2) = (struct prf_uchain){ 7, 2, 0 };
	FR(2, 0, 2, off1);		/* the replaced file */
	FR(2, 1, 3, off1 + 1);		/* prog, under another path */
	*CH(3) = (struct prf_uchain){ 2, 2, PRF_UCHAIN_TRUNCATED };
	FR(3, 0, 0, off1);		/* the deleted file */
	FR(3, 1, 0, off2 + 1);
	*CH(4) = (struct prf_uchain){ 0, 1, 0 };	/* zeroed: left out */
	FR(4, 0, 1, off2 + 4);
	*CH(5) = (struct prf_uchain){ 1, 1, 0 };	/* c0's leaf frame alone */
	FR(5, 0, 1, off1 + 1);
#undef FR
#undef CH
	ch.nr = NCH;
	ch.nfiles = 4;
	ch.used = NCH;
	ch.files_used = 4;
	ch.depth = DEPTH;
	ch.capacity = 100;
	ch.dropped = 1;
	if (!ok(!uobj_resolve_chains(h, ents, files, &ch, rec.b, cf, &u, err, sizeof(err)),
		"uchains %s: resolved", mod))
		return;
	snprintf(repl, sizeof(repl), "%s (replaced)", mod);
	snprintf(del, sizeof(del), "%s (deleted)", mod);
	c0 = chain_of(&u, 5);
	c1 = chain_of(&u, 3);
	c2 = chain_of(&u, 7);
	c3 = chain_of(&u, 2);
	ok(u.chains_on && u.nchains == 5 && u.chained == 18 && u.chains_dropped == 1 &&
	   u.chain_depth == DEPTH && u.chain_capacity == 100 && u.nframes == 9 &&
	   u.chains[0].count == 7 && u.nrows == 5,
	   "uchains %s: 5 chains of 18 samples (the zeroed one left out, most first), 9 "
	   "distinct frames, dropped 1, depth 4; the rows as without chains (%zu, %" PRIu64
	   ", %zu)", mod, u.nchains, u.chained, u.nframes);
	ok(c0 && c0->nr == 3 && frame_is_named(&u, c0, 0, "usym_one", mod) &&
	   frame_is_named(&u, c0, 1, "usym_two", mod) &&
	   frame_is_named(&u, c0, 2, "[anonymous/JIT]", "[anonymous]") &&
	   u.frames[c0->f[0]].addr == off1 + 1 && u.frames[c0->f[0]].file &&
	   !strcmp(u.frames[c0->f[0]].file, prog) && !u.frames[c0->f[2]].file,
	   "uchains %s: usym_one called from usym_two called from anonymous code, leaf first; "
	   "a frame keeps its offset and file", mod);
	ok(c1 && c1->nr == 2 && frame_is_named(&u, c1, 0, "usym_two", mod) &&
	   !frame_is_named(&u, c1, 1, "usym_two", mod) && c1->f[0] != c1->f[1],
	   "uchains %s: a return address is looked up at offset - 1: usym_two's first byte "
	   "as a leaf is usym_two, as a return address not (%s)", mod,
	   c1 && c1->nr == 2 ? u.frames[c1->f[1]].name : "?");
	snprintf(line, sizeof(line), "[%s]", repl);
	ok(c2 && frame_is_named(&u, c2, 0, line, repl) && frame_is_named(&u, c2, 1, "usym_one", mod),
	   "uchains %s: a replaced file's frame unnamed, never by the file at its path; a file "
	   "of the chains alone opened and named", mod);
	snprintf(line, sizeof(line), "[%s]", del);
	ok(c3 && (c3->flags & PRF_UCHAIN_TRUNCATED) && frame_is_named(&u, c3, 0, line, del) &&
	   frame_is_named(&u, c3, 1, line, del),
	   "uchains %s: a deleted file's frames unnamed, the chain's truncation kept", mod);
	for (i = 0; i < u.nchains && !(u.chains[i].count == 1 && u.chains[i].nr == 1 &&
					c0 && u.chains[i].f[0] == c0->f[0]); i++)
		;
	ok(i < u.nchains, "uchains %s: the same leaf in two chains is one frame", mod);
	{
		/* A report of them: counter N 27 (test_uobj's), stacks on, none of the kernel's. */
		struct snap_entry ke[1] = {
			{ .addr = UINT64_C(0xffffffff81000000), .kind = SYM_FUNC,
			  .name = (char *)"kfun_a", .module = NULL },
		};
		struct snap_table kt = { 1, 0, 1, ke }, nt;
		uint64_t cb[3] = { 10, 27, 5 };
		struct snap_ext x;
		struct snapshot b;
		struct report rep;
		struct report_opts ro = { 0 };
		char *s = NULL;
		size_t len = 0;
		FILE *m;

		memset(&x, 0, sizeof(x));
		memset(&b, 0, sizeof(b));
		x.depth = 8;
		b.ext = &x;
		if (ok(!report_build(&rep, &kt, NULL, cb, 0, 0) && !uobj_inject(&rep, &u, &nt),
		       "uchains %s: a report with the user rows", mod)) {
			rep.b = &b;
			rep.uobjs = &u;
			m = open_memstream(&s, &len);
			ro.format = FMT_FOLDED;
			if (m) {
				report_print(m, &rep, &ro);
				fclose(m);
			}
			snprintf(line, sizeof(line), "%s;[anonymous/JIT];usym_two;usym_one 5\n", mod);
			snprintf(err, sizeof(err), "%s;[truncated];[%s];[%s] 2\n", del, del, del);
			snprintf(repl, sizeof(repl), "\n%s;usym_one 1\n", mod);
			/* usym_two's row, 3, as a one-frame line: not with chains */
			snprintf(del, sizeof(del), "\n%s;usym_two 3\n", mod);
			ok(s && strstr(s, line) && strstr(s, err) && strstr(s, repl) &&
			   strstr(s, "\n[user] 9\n") && !strstr(s, "[user, unnamed]") &&
			   strncmp(s, del + 1, strlen(del + 1)) && !strstr(s, del),
			   "uchains %s: folded, root first under the leaf's program, [truncated] "
			   "after it; [user] 9 = 27 - 18 chained; no one-frame line of a row:\n%s",
			   mod, s ? s : "");
			free(s);
			report_free(&rep);
			snap_table_free(&nt);
		}
	}
	uobj_res_free(&u);
}

/*
 * The user objects table named (uobj.c), after test_usym_prog ran prog:
 * usym_one's and usym_two's file offsets (from its maps) name them; the
 * same path under another inode is "replaced" and a deleted file is
 * "deleted", both unnamed; anonymous code is "[anonymous/JIT]"; the report
 * rebuilt with the user rows keeps every total, and "[user, unnamed]" is
 * counter N less the entries.
 */
static void test_uobj(const char *prog, const char *mod)
{
	char maps[1100], outf[1100], line[256], err[512];
	unsigned long one = 0, two = 0;
	uint64_t off1 = 0, off2 = 0;
	struct umap *v = NULL;
	struct prf_uobj_file files[3];
	struct prf_uobj ents[6];
	struct prf_uobjs h;
	struct uobj_res u;
	const struct uobj_row *r1, *r2, *rr, *rd, *ra;
	struct stat st;
	size_t n = 0, i;
	FILE *f;

	snprintf(maps, sizeof(maps), "%s/%s.maps", tmpdir, mod);
	snprintf(outf, sizeof(outf), "%s/%s.out", tmpdir, mod);
	f = fopen(outf, "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "usym_one %lx", &one);
		sscanf(line, "usym_two %lx", &two);
	}
	if (f)
		fclose(f);
	if (!ok(one && two && !usym_read_maps(maps, &v, &n, err, sizeof(err)) &&
		!stat(prog, &st), "uobj %s: the program's addresses and maps", mod))
		return;
	for (i = 0; i < n; i++) {
		if (one >= v[i].start && one < v[i].end)
			off1 = one - v[i].start + v[i].offset;
		if (two >= v[i].start && two < v[i].end)
			off2 = two - v[i].start + v[i].offset;
	}
	usym_free_maps(v, n);
	memset(files, 0, sizeof(files));
	memset(ents, 0, sizeof(ents));
	memset(&h, 0, sizeof(h));
	for (i = 0; i < 3; i++) {
		files[i].major = major(st.st_dev);
		files[i].minor = minor(st.st_dev);
		files[i].ino = st.st_ino;
		snprintf(files[i].path, sizeof(files[i].path), "%s", prog);
	}
	files[1].ino = st.st_ino + 1;		/* another inode at the path now */
	files[2].flags = PRF_UOBJ_DELETED;	/* deleted since */
	snprintf(files[2].path, sizeof(files[2].path), "%s (deleted)", prog);
	ents[0] = (struct prf_uobj){ 5, off1 + 1, 0, 0 };
	ents[1] = (struct prf_uobj){ 3, off2, 0, 0 };
	ents[2] = (struct prf_uobj){ 7, off1, 1, 0 };
	ents[3] = (struct prf_uobj){ 2, off1, 2, 0 };
	ents[4] = (struct prf_uobj){ 4, 0x7fff1000, PRF_UOBJ_ANON, 0 };
	ents[5] = (struct prf_uobj){ 0, off2, 0, 0 };	/* zeroed: left out */
	h.nr = 6;
	h.nfiles = 3;
	h.lost = 1;
	h.dropped = 2;
	h.unmapped = 3;
	if (!ok(!uobj_resolve(&h, ents, files, &u, err, sizeof(err)), "uobj %s: resolved", mod))
		return;
	r1 = uobj_row_of(&u, "usym_one", mod);
	r2 = uobj_row_of(&u, "usym_two", mod);
	snprintf(line, sizeof(line), "%s (replaced)", mod);
	rr = uobj_row_of(&u, "[usym_pie (replaced)]", line);
	snprintf(line, sizeof(line), "%s (deleted)", mod);
	rd = uobj_row_of(&u, "[usym_pie (deleted)]", line);
	ra = uobj_row_of(&u, "[anonymous/JIT]", "[anonymous]");
	ok(off1 && off2 && r1 && r1->count == 5 && r1->named && r2 && r2->count == 3,
	   "uobj %s: usym_one (offset %#" PRIx64 ") and usym_two (%#" PRIx64 ") named by "
	   "their file offsets", mod, off1, off2);
	ok(r1 && r1->offset == off1 && r1->path && !strcmp(r1->path, prog) &&
	   r2 && r2->offset == off2 && r2->path && !strcmp(r2->path, prog),
	   "uobj %s: a named row keeps its file's path and the function's offset in it "
	   "(%#" PRIx64 ", entry at +1)", mod, r1 ? r1->offset : 0);
	ok(rr && rr->count == 7 && !rr->named && !uobj_row_of(&u, "usym_one", line),
	   "uobj %s: the same path under another inode: replaced, never named", mod);
	ok(rd && rd->count == 2 && !rd->named, "uobj %s: a deleted file: deleted, unnamed", mod);
	ok(ra && ra->count == 4, "uobj %s: anonymous code: [anonymous/JIT]", mod);
	ok(u.nrows == 5 && u.entries == 21 && u.named == 8 && u.lost == 1 && u.dropped == 2 &&
	   u.unmapped == 3, "uobj %s: 5 rows, entries 21, named 8, lost/dropped/unmapped kept "
	   "(%zu, %" PRIu64 ", %" PRIu64 ")", mod, u.nrows, u.entries, u.named);
	ok(u.nprogs == 4 && u.progs[0].count == 8 && u.progs[0].state == UOBJ_OK &&
	   u.progs[1].count == 7 && u.progs[1].state == UOBJ_REPLACED,
	   "uobj %s: the programs: %zu, the named one first (8 samples)", mod, u.nprogs);
	{
		/* A report of two kernel functions (10, 20) and counter N 27. */
		struct snap_entry ke[2] = {
			{ .addr = UINT64_C(0xffffffff81000000), .kind = SYM_FUNC,
			  .name = (char *)"kfun_a", .module = NULL },
			{ .addr = UINT64_C(0xffffffff81001000), .kind = SYM_FUNC,
			  .name = (char *)"kfun_b", .module = NULL },
		};
		struct snap_table kt = { 1, 0, 2, ke }, nt;
		uint64_t cb[4] = { 10, 20, 27, 5 };
		struct report rep;
		size_t k, un = 0, user_rows = 0;

		ok(!report_build(&rep, &kt, NULL, cb, 0, 0) && !uobj_inject(&rep, &u, &nt),
		   "uobj %s: the report rebuilt with the user rows", mod);
		for (k = 0; k < rep.nrows; k++) {
			const struct snap_entry *e = &rep.t->e[rep.rows[k].idx];

			if (!strcmp(e->name, "[user, unnamed]"))
				un = rep.rows[k].samples;
			if (usym_is_user_addr(e->addr))
				user_rows++;
		}
		ok(rep.kernel == 30 && rep.user == 27 && rep.idle == 5 && un == 6 && user_rows == 6,
		   "uobj %s: kernel 30, user 27, idle 5 kept; [user, unnamed] 6 = 27 - 21; "
		   "6 user rows (got %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %zu, %zu)", mod,
		   rep.kernel, rep.user, rep.idle, un, user_rows);
		{
			/* The address the reports give: usym_one's offset in prog, and its file. */
			struct report_opts ro = { 0 };
			char *s = NULL, want[1300], wantj[1300];
			size_t len = 0;
			FILE *m = open_memstream(&s, &len);

			ro.format = FMT_CSV;
			ro.of = OF_ALL;
			report_print(m, &rep, &ro);
			ro.format = FMT_JSON;
			report_print(m, &rep, &ro);
			fclose(m);
			snprintf(want, sizeof(want), ",usym_one,%s,0x%" PRIx64 ",function,all,0,%s,usym_one\n",
				 mod, off1, prog);
			snprintf(wantj, sizeof(wantj), "{\"function\": \"usym_one\", \"module\": \"%s\", "
				 "\"address\": \"0x%" PRIx64 "\", \"file\": \"%s\", \"symbol\": \"usym_one\"",
				 mod, off1, prog);
			ok(s && strstr(s, ",file,symbol\n") && strstr(s, want) &&
			   strstr(s, wantj) && strstr(s, "\"address\": null, \"file\": ") &&
			   strstr(s, "[anonymous/JIT],[anonymous],,unknown"),
			   "uobj %s: CSV and JSON give a user row its function's offset in its file, "
			   "the file and the symbol; none for a file's unnamed part:\n%s", mod,
			   s ? s : "");
			free(s);
		}
		report_free(&rep);
		snap_table_free(&nt);
	}
	uobj_res_free(&u);
	test_uobj_chains(prog, mod, &h, ents, files, off1, off2);
}

/*
 * An offset past a function's st_size, before the next function (code its
 * symbols do not name, as a stripped file's static functions are when only
 * its .dynsym is read) is the file's, "[libc.so.6]", never the function
 * below.  The first such gap of our libc's symbols stands for it.
 */
static void test_uobj_gap(void)
{
	char path[PRF_UOBJ_PATH_MAX] = "", line[512], err[256];
	struct prf_uobj_file file;
	struct prf_uobj ents[2];
	struct prf_uobjs h;
	struct uobj_res u;
	struct symtab t;
	struct stat st;
	const struct sym *below = NULL;
	uint64_t gap = 0;
	size_t i;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s", p);
			break;
		}
	}
	if (f)
		fclose(f);
	symtab_init(&t);
	if (!ok(path[0] && !stat(path, &st) &&
		usym_add_file(&t, path, "libc.so.6", err, sizeof(err)) > 0,
		"uobj gap: libc's functions by file offset (%s)", path))
		return;
	symtab_sort_dedupe(&t);
	for (i = 0; i + 1 < t.n && !gap; i++)
		if (t.v[i].kind == SYM_FUNC && t.v[i].size &&
		    t.v[i].addr + t.v[i].size < t.v[i + 1].addr) {
			below = &t.v[i];
			gap = t.v[i].addr + t.v[i].size;
		}
	memset(&file, 0, sizeof(file));
	file.major = major(st.st_dev);
	file.minor = minor(st.st_dev);
	file.ino = st.st_ino;
	snprintf(file.path, sizeof(file.path), "%s", path);
	memset(&h, 0, sizeof(h));
	ents[0] = (struct prf_uobj){ 3, gap, 0, 0 };
	ents[1] = (struct prf_uobj){ 2, below ? below->addr : 0, 0, 0 };
	h.nr = 2;
	h.nfiles = 1;
	if (ok(below && !uobj_resolve(&h, ents, &file, &u, err, sizeof(err)),
	       "uobj gap: a gap after %s at %#" PRIx64, below ? below->name : "?", gap)) {
		const struct uobj_row *in = uobj_row_of(&u, below->name, "libc.so.6");
		const struct uobj_row *out = uobj_row_of(&u, "[libc.so.6]", "libc.so.6");

		ok(in && in->count == 2 && out && out->count == 3 && !out->named,
		   "uobj gap: its start is %s (2), past its st_size the file's [libc.so.6] (3)",
		   below->name);
		uobj_res_free(&u);
	}
	symtab_free(&t);
}

/* The name of the function of m at pc, or "-" (none). */
static const char *perfmap_name(const struct perfmap *m, uint64_t pc)
{
	const struct perfmap_sym *s = perfmap_find(m, pc);

	return s ? s->name : "-";
}

/*
 * The JIT map parser on the fixture (tools/tests/data/perfmap): its good
 * lines, in any order, 0x or not, names with spaces; its bad lines skipped
 * and counted; of two functions that hold a PC the later written; the
 * bounds (a line too long skipped, a map past its bytes cut).
 */
static void test_perfmap(void)
{
	char path[PATH_MAX], big[PERFMAP_MAX_LINE + 100];
	struct perfmap m;
	FILE *f;
	int i, r;

	snprintf(path, sizeof(path), "%s/perfmap", datadir);
	r = perfmap_load(&m, 2000000000, path);
	ok(!r && m.state == PERFMAP_OK && m.n == 3 && m.bad == 5 && !m.truncated,
	   "perfmap: the fixture's 3 functions read, its 5 bad lines skipped and counted "
	   "(%zu, %zu)", m.n, m.bad);
	ok(!strcmp(perfmap_name(&m, 0x7f0000001000), "jit_hot_recompiled") &&
	   !strcmp(perfmap_name(&m, 0x7f0000001040), "jit_hot") &&
	   !strcmp(perfmap_name(&m, 0x7f00000010ff), "jit_hot") &&
	   !strcmp(perfmap_name(&m, 0x7f0000001100), "LazyCompile:*spin /app/x.js:3") &&
	   !strcmp(perfmap_name(&m, 0x7f000000117f), "LazyCompile:*spin /app/x.js:3"),
	   "perfmap: each PC's function: the later written of two, the start in, a name "
	   "with spaces");
	ok(!strcmp(perfmap_name(&m, 0x7f0000001180), "-") &&
	   !strcmp(perfmap_name(&m, 0x7f0000000fff), "-") &&
	   !strcmp(perfmap_name(&m, 0x7f0000004000), "-") && !strcmp(perfmap_name(&m, 0), "-"),
	   "perfmap: the end out, nothing before the first, a bad line names nothing");
	perfmap_free(&m);
	ok(!perfmap_load(&m, 2000000001, path) && m.state == PERFMAP_MISSING && !m.n &&
	   !strcmp(m.path + strlen(path), "/perf-2000000001.map"),
	   "perfmap: no map is MISSING, with the path looked at (%s)", m.path);
	perfmap_free(&m);

	/* a line longer than PERFMAP_MAX_LINE between two good ones */
	snprintf(path, sizeof(path), "%s/perfmap-long", tmpdir);
	f = fopen(path, "w");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	if (f) {
		fprintf(f, "1000 10 a\n2000 10 %s\n3000 10 c\n", big);
		fclose(f);
	}
	f = fopen(path, "r");
	memset(&m, 0, sizeof(m));
	r = f ? perfmap_parse(f, &m, PERFMAP_MAX_BYTES) : -1;
	ok(!r && m.n == 2 && m.bad == 1 &&
	   !strcmp(perfmap_name(&m, 0x3000), "c") && !strcmp(perfmap_name(&m, 0x2000), "-"),
	   "perfmap: a line of %zu bytes is skipped and counted, the next one read (%zu, %zu)",
	   sizeof(big), m.n, m.bad);
	if (f)
		fclose(f);
	perfmap_free(&m);
	/* a map past its bound of bytes: cut, what came before it read */
	f = fopen(path, "w");
	for (i = 0; f && i < 1000; i++)
		fprintf(f, "%x 10 f%d\n", 0x10000 + 0x10 * i, i);
	if (f)
		fclose(f);
	f = fopen(path, "r");
	r = f ? perfmap_parse(f, &m, 1000) : -1;
	ok(!r && m.truncated && m.n > 50 && m.n < 100 &&
	   !strcmp(perfmap_name(&m, 0x10000), "f0") && !strcmp(perfmap_name(&m, 0x10000 + 0x10 * 500), "-"),
	   "perfmap: a map past its bound (1000 bytes) is cut there, its first %zu functions "
	   "read", m.n);
	if (f)
		fclose(f);
	perfmap_free(&m);
	unlink(path);
}

/* The row of u named name (any module), or NULL. */
static const struct uobj_row *uobj_row_named(const struct uobj_res *u, const char *name)
{
	size_t i;

	for (i = 0; i < u->nrows; i++)
		if (!strcmp(u->rows[i].name, name))
			return &u->rows[i];
	return NULL;
}

/* uobj_resolve of h's first n entries: the name of its only row, or "-". */
static const char *jit_row(struct prf_uobjs *h, const struct prf_uobj *ents, uint32_t n,
			   char *buf, size_t len)
{
	char err[256];
	struct uobj_res u;

	h->nr = n;
	snprintf(buf, len, "-");
	if (!uobj_resolve(h, ents, NULL, &u, err, sizeof(err))) {
		if (u.nrows == 1)
			snprintf(buf, len, "%s", u.rows[0].name);
		uobj_res_free(&u);
	}
	return buf;
}

/*
 * The JIT maps kept between resolves (prf top's refreshes): our map
 * (mine, ents[0] in it) not read again while unchanged, read again once
 * appended to (its new function named); a child's map kept while the
 * child runs and forgotten once it is gone.
 */
static void test_uobj_jit_cache(struct prf_uobjs *h, struct prf_uobj *ents, const char *mine)
{
	unsigned long r0, r1;
	size_t n0, n1;
	char name[256], cmap[PATH_MAX];
	pid_t child;
	FILE *f;

	perfmap_cache_stats(&r0, &n0);
	jit_row(h, ents, 1, name, sizeof(name));
	perfmap_cache_stats(&r1, &n1);
	ok(!strcmp(name, "mine") && r1 == r0 && n1 == 1,
	   "uobj jit cache: an unchanged map named again without reading it (%lu reads, "
	   "%zu kept: %s)", r1 - r0, n1, name);
	f = fopen(mine, "a");
	if (f) {
		fprintf(f, "7f0000002000 100 appended\n");
		fclose(f);
	}
	ents[0].offset = 0x7f0000002010;
	jit_row(h, ents, 1, name, sizeof(name));
	perfmap_cache_stats(&r1, &n1);
	ok(!strcmp(name, "appended") && r1 == r0 + 1 && n1 == 1,
	   "uobj jit cache: the map appended to is read again, its new function named "
	   "(%lu reads: %s)", r1 - r0, name);
	jit_row(h, ents, 1, name, sizeof(name));
	perfmap_cache_stats(&r0, &n0);
	ok(!strcmp(name, "appended") && r0 == r1, "uobj jit cache: ... once (%lu more)",
	   r0 - r1);

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	if (!ok(child > 0, "uobj jit cache: a child forked"))
		return;
	snprintf(cmap, sizeof(cmap), "%s/perf-%d.map", tmpdir, (int)child);
	f = fopen(cmap, "w");
	if (f) {
		fprintf(f, "7f0000002000 100 childs\n");
		fclose(f);
	}
	ents[1] = ents[0];
	ents[1].pid = (uint32_t)child;
	ents[1].count = 1;
	h->nr = 2;
	jit_row(h, ents, 2, name, sizeof(name));
	perfmap_cache_stats(&r0, &n0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	jit_row(h, ents, 1, name, sizeof(name));
	perfmap_cache_stats(&r1, &n1);
	ok(n0 == 2 && n1 == 1 && r1 == r0,
	   "uobj jit cache: a child's map kept while it runs (%zu kept), forgotten once it is "
	   "gone (%zu kept)", n0, n1);
	unlink(cmap);
	perfmap_cache_clear();
	perfmap_cache_stats(&r1, &n1);
	ok(n1 == 0, "uobj jit cache: cleared, none kept");
}

/*
 * Code of no file named by its process's JIT map in the rows and in the
 * chains' frames: a function of the map; a PC in none; no map; a map
 * older than the process (ours, its time set back an hour); no process
 * known (pid 0: "[anonymous/JIT]" as before).
 */
static void test_uobj_jit(void)
{
	enum { DEPTH = 2 };
	char dir[PATH_MAX], mine[PATH_MAX], want[PATH_MAX + 128], err[256] = "";
	union {
		unsigned char b[PRF_UCHAIN_RECORD_SIZE(DEPTH)];
		uint64_t align;
	} rec;
	struct prf_uobj ents[5];
	struct prf_uchain *c = (void *)rec.b;
	struct prf_uframe *fr = (void *)(c + 1);
	struct prf_uchains ch;
	struct timeval tv[2];
	struct prf_uobjs h;
	struct uobj_res u;
	const struct uobj_row *r;
	uint32_t me = (uint32_t)getpid();
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/perfmap", datadir);
	uobj_set_perfmap_dir(dir);
	memset(&h, 0, sizeof(h));
	ents[0] = (struct prf_uobj){ 6, 0x7f0000001050, PRF_UOBJ_ANON, 2000000000 };
	ents[1] = (struct prf_uobj){ 2, 0x7f0000001060, PRF_UOBJ_ANON, 2000000000 };
	ents[2] = (struct prf_uobj){ 3, 0x7f0000009000, PRF_UOBJ_ANON, 2000000000 };
	ents[3] = (struct prf_uobj){ 4, 0x7f0000001050, PRF_UOBJ_ANON, 2000000001 };
	ents[4] = (struct prf_uobj){ 5, 0x7f0000001050, PRF_UOBJ_ANON, 0 };
	h.nr = 5;
	memset(&ch, 0, sizeof(ch));
	memset(&rec, 0, sizeof(rec));
	*c = (struct prf_uchain){ 8, 2, 0 };
	fr[0] = (struct prf_uframe){ 0x7f0000001100, PRF_UOBJ_ANON, 2000000000 };
	fr[1] = (struct prf_uframe){ 0x7f0000001001, PRF_UOBJ_ANON, 2000000000 };
	ch.nr = 1;
	ch.depth = DEPTH;
	if (!ok(!uobj_resolve_chains(&h, ents, NULL, &ch, rec.b, NULL, &u, err, sizeof(err)),
		"uobj jit: resolved %s", err))
		goto out;
	r = uobj_row_named(&u, "jit_hot");
	ok(r && r->count == 8 && !strcmp(r->module, "perf-2000000000.map") && r->named &&
	   u.named == 8 && u.jit_maps == 1 && u.jit_bad == 5,
	   "uobj jit: two PCs of jit_hot are one row of 8, module perf-2000000000.map, named; "
	   "1 map read, 5 bad lines");
	snprintf(want, sizeof(want), "[anonymous/JIT] (not in %s/perf-2000000000.map)", dir);
	r = uobj_row_named(&u, want);
	ok(r && r->count == 3 && !strcmp(r->module, "[anonymous]") && !r->named,
	   "uobj jit: a PC in none of the map's functions: %s", want);
	snprintf(want, sizeof(want), "[anonymous/JIT] (no %s/perf-2000000001.map)", dir);
	r = uobj_row_named(&u, want);
	ok(r && r->count == 4, "uobj jit: a process with no map: %s", want);
	r = uobj_row_named(&u, "[anonymous/JIT]");
	ok(r && r->count == 5, "uobj jit: no process known (pid 0): [anonymous/JIT], as before");
	ok(u.nchains == 1 && u.chains[0].nr == 2 &&
	   !strcmp(u.frames[u.chains[0].f[0]].name, "LazyCompile:*spin /app/x.js:3") &&
	   !strcmp(u.frames[u.chains[0].f[1]].name, "jit_hot_recompiled") &&
	   !strcmp(u.frames[u.chains[0].f[1]].module, "perf-2000000000.map"),
	   "uobj jit: a chain's frames named by the map, a return address at itself less 1");
	uobj_res_free(&u);

	/* our own map, an hour older than we are: stale, not read */
	uobj_set_perfmap_dir(tmpdir);
	snprintf(mine, sizeof(mine), "%s/perf-%u.map", tmpdir, me);
	f = fopen(mine, "w");
	if (f) {
		fprintf(f, "7f0000001000 100 mine\n");
		fclose(f);
	}
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= 3600;
	tv[1] = tv[0];
	ok(!utimes(mine, tv), "uobj jit: our map set an hour back");
	ents[0].pid = me;
	h.nr = 1;
	if (ok(!uobj_resolve(&h, ents, NULL, &u, err, sizeof(err)), "uobj jit: resolved")) {
		snprintf(want, sizeof(want), "[anonymous/JIT] (stale: %s, older than the process)",
			 mine);
		ok(u.nrows == 1 && !strcmp(u.rows[0].name, want) && !u.jit_maps,
		   "uobj jit: a map older than its process is not read: %s", u.nrows ?
		   u.rows[0].name : "");
		uobj_res_free(&u);
	}
	ok(!utimes(mine, NULL) && !uobj_resolve(&h, ents, NULL, &u, err, sizeof(err)) &&
	   u.nrows == 1 && !strcmp(u.rows[0].name, "mine") && u.jit_maps == 1,
	   "uobj jit: the same map written since the process started names it");
	uobj_res_free(&u);
	test_uobj_jit_cache(&h, ents, mine);
	unlink(mine);
out:
	uobj_set_perfmap_dir(NULL);
}

/*
 * A user objects record whose code of no file has its process: version 9,
 * the pids read back; a reader of version 8 refuses it by its version.
 */
static void test_snapshot_uobjs_pid(void)
{
	const char *file = path_in(tmpdir, "uobjpid.prf");
	const size_t n = 4, rs = PRF_UCHAIN_RECORD_SIZE(2);
	struct snap_uobjs *u = calloc(1, sizeof(*u));
	uint64_t c[6] = { 1, 2, 3, 4, 10, 0 };
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	const struct snap_uobjs *g;
	struct prf_uchain *chn;
	struct prf_uframe *fr;
	char err[SNAP_ERRLEN], want[SNAP_ERRLEN];
	unsigned char *raw;
	size_t len = 0, at = 0, rlen = 0;
	int r;

	make_table(&t, n, 0xffffffff9a000000ULL);
	u->h.nr = 2;
	u->h.used = 2;
	u->h.capacity = 100;
	u->h.files_max = 10;
	u->e = calloc(2, sizeof(*u->e));
	u->e[0] = (struct prf_uobj){ 7, 0x7f0000001050, PRF_UOBJ_ANON, 4242 };
	u->e[1] = (struct prf_uobj){ 3, 0x7f0000001050, PRF_UOBJ_ANON, 1000000 };
	u->chains_on = 1;
	u->ch.nr = 1;
	u->ch.used = 1;
	u->ch.capacity = 100;
	u->ch.depth = 2;
	u->recs = calloc(1, rs);
	chn = u->recs;
	fr = (void *)(chn + 1);
	*chn = (struct prf_uchain){ 10, 2, 0 };
	fr[0] = (struct prf_uframe){ 0x7f0000001050, PRF_UOBJ_ANON, 4242 };
	fr[1] = (struct prf_uframe){ 0x7f0000002000, PRF_UOBJ_ANON, 4242 };
	unlink(file);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	s.uobjs = u;
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	g = !r && f.nsnaps == 1 ? f.snaps[0].uobjs : NULL;
	ok(g && g->h.nr == 2 && !memcmp(g->e, u->e, 2 * sizeof(*u->e)) && g->chains_on &&
	   g->ch.nr == 1 && !memcmp(g->recs, u->recs, rs),
	   "snapshot: the processes of code of no file read back (entries, frames) %s",
	   r ? err : "");
	if (!r)
		snapfile_free(&f);
	s.uobjs = NULL;
	snapshot_free(&s);
	snap_uobjs_free(u);
	snap_table_free(&t);
	raw = (unsigned char *)slurp(file, &len);
	uobjs_record(raw, len, &at, &rlen);
	ok(raw && at + SNAP_HDR_SIZE + rlen == len && raw[at + 4] == SNAP_VERSION_UOBJS_PID,
	   "snapshot: user objects with processes are written with version 9");
	snprintf(want, sizeof(want), "u.prf: record 3 at offset %zu has format version 9, this "
		 "prf reads versions 1 to 8", at);
	r = raw ? snapfile_parse_max(raw, len, "u.prf", &f, err, sizeof(err), 8) : -2;
	ok(r == -1 && strstr(err, want), "snapshot: a version 8 reader refuses them: %s", err);
	free(raw);
	unlink(file);
}

/* ---- the vDSO (vdso.c) and its naming ---- */

/*
 * The value of the vDSO's clock_gettime (x86-64 __vdso_clock_gettime,
 * arm64 __kernel_clock_gettime) in the image at path, read by libelf from
 * its .dynsym, and that name in *name; 0 when not found.
 */
static uint64_t vdso_clock_gettime(const char *path, const char **name)
{
	static const char *const names[] = { "__vdso_clock_gettime", "__kernel_clock_gettime" };
	Elf_Scn *scn = NULL;
	uint64_t v = 0;
	char err[256];
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i, k;
	Elf *e;
	int fd;

	e = elf_file_open(path, ELF_C_READ, &fd, err, sizeof(err));
	if (!e)
		return 0;
	while (!v && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && !v && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *nm;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			nm = elf_strptr(e, sh.sh_link, sym.st_name);
			for (k = 0; nm && k < 2; k++)
				if (!strcmp(nm, names[k])) {
					v = sym.st_value;
					*name = names[k];
				}
		}
	}
	elf_end(e);
	close(fd);
	return v;
}

static int dump_vdso(const char *file)
{
	char err[256];
	const struct vdso *v = vdso_own(err, sizeof(err));
	FILE *f;

	if (!v) {
		fprintf(stderr, "unit_test: %s\n", err);
		return 1;
	}
	f = fopen(file, "wb");
	if (!f || fwrite(v->image, 1, v->size, f) != v->size || fclose(f)) {
		perror(file);
		return 1;
	}
	return 0;
}

/*
 * A table of one vDSO file (PRF_UOBJ_VDSO_IMAGE) with entries at
 * clock_gettime's address and past the image's code, and a chain from it.
 */
static struct snap_uobjs *vdso_table(uint64_t at, const char *id)
{
	struct snap_uobjs *u = calloc(1, sizeof(*u));
	const size_t rs = PRF_UCHAIN_RECORD_SIZE(2);
	struct prf_uchain *c;
	struct prf_uframe *fr;

	u->h = (struct prf_uobjs){ .nr = 2, .nfiles = 1, .used = 2, .files_used = 1,
				   .capacity = 64, .files_max = 8 };
	u->f = calloc(1, sizeof(*u->f));
	u->e = calloc(2, sizeof(*u->e));
	u->f[0].flags = PRF_UOBJ_VDSO_IMAGE;
	strcpy(u->f[0].path, "[vdso]");
	u->e[0] = (struct prf_uobj){ 5, at + 4, 0, 0 };
	u->e[1] = (struct prf_uobj){ 2, 0x10, 0, 0 };	/* the ELF header: no function */
	u->chains_on = 1;
	u->ch = (struct prf_uchains){ .nr = 1, .nfiles = 1, .used = 1, .capacity = 64,
				      .depth = 2, .files_used = 1 };
	u->cf = calloc(1, sizeof(*u->cf));
	u->cf[0] = u->f[0];
	u->recs = calloc(1, rs);
	c = u->recs;
	fr = (void *)(c + 1);
	*c = (struct prf_uchain){ 5, 1, 0 };
	fr[0] = (struct prf_uframe){ at + 4, 0, 0 };
	u->vdso_id = id ? strdup(id) : NULL;
	return u;
}

/* The row of u named name in module mod: its count, or -1. */
static int64_t uobj_row_count(const struct uobj_res *u, const char *name, const char *mod)
{
	size_t i;

	for (i = 0; i < u->nrows; i++)
		if (!strcmp(u->rows[i].name, name) && !strcmp(u->rows[i].module, mod))
			return (int64_t)u->rows[i].count;
	return -1;
}

/*
 * The vDSO prf runs with: found, copied whole, its build ID; its functions
 * named in a table's vDSO file, the chains' too, never by a path "[vdso]";
 * a snapshot's vDSO named only when its build ID is ours; the record of
 * version 11, refused by a reader of version 10; a record before it that
 * flags a vDSO file, and a build ID not hex, refused as corrupt.
 */
static void test_vdso(void)
{
	const char *file = path_in(tmpdir, "vdso.prf");
	const size_t n = 4;
	uint64_t c[6] = { 1, 2, 3, 4, 10, 0 };
	char err[SNAP_ERRLEN], want[SNAP_ERRLEN], name[128];
	const struct vdso *v = vdso_own(err, sizeof(err));
	const char *fn = NULL;
	struct uobj_res res;
	struct snap_uobjs *u;
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	unsigned char *raw;
	size_t len = 0, at = 0, rlen = 0;
	uint64_t cg;
	char *copy;
	int r;

	if (!getauxval(AT_SYSINFO_EHDR)) {
		ok(1, "vdso # SKIP no vDSO in this process (AT_SYSINFO_EHDR)");
		return;
	}
	ok(v && v->size > 64 && v->size <= VDSO_SIZE_MAX && vdso_id_valid(v->build_id) &&
	   v->image == (const void *)getauxval(AT_SYSINFO_EHDR),
	   "vdso: the own image found, %zu bytes, build ID %s %s", v ? v->size : 0,
	   v ? v->build_id : "-", v ? "" : err);
	if (!v)
		return;
	copy = slurp(v->path, &len);
	ok(copy && len == v->size && !memcmp(copy, v->image, len) && vdso_own(NULL, 0) == v,
	   "vdso: its copy at %s holds the image's bytes, the same every call", v->path);
	free(copy);
	ok(vdso_is_own(v->build_id) && !vdso_is_own("00ff") && !vdso_is_own("") &&
	   !vdso_is_own(NULL) && !vdso_id_valid("0") && !vdso_id_valid("0A") &&
	   !vdso_id_valid("0g") && vdso_id_valid("0a"),
	   "vdso: its build ID is its own, others and \"\" not; hex checked");
	cg = vdso_clock_gettime(v->path, &fn);
	ok(cg != 0, "vdso: %s in its .dynsym at %#" PRIx64, fn ? fn : "clock_gettime", cg);
	if (!cg)
		return;
	snprintf(name, sizeof(name), "%s" USYM_DYNSYM_MARK, fn);

	/* the table read from this machine's device (vdso_id NULL) */
	u = vdso_table(cg, NULL);
	r = uobj_resolve_snap(u, &res, err, sizeof(err));
	ok(!r && uobj_row_count(&res, name, VDSO_NAME) == 5 &&
	   uobj_row_count(&res, VDSO_NAME, VDSO_NAME) == 2 && res.named == 5 &&
	   res.nprogs == 1 && res.progs[0].state == UOBJ_OK &&
	   !strcmp(res.progs[0].path, "[vdso]") && !strcmp(res.progs[0].module, VDSO_NAME),
	   "vdso: a table's vDSO file named [vdso]: %s 5 samples, its unnamed bytes [vdso] 2",
	   name);
	ok(!r && res.nchains == 1 && res.nframes == 1 && !strcmp(res.frames[0].name, name) &&
	   !strcmp(res.frames[0].module, VDSO_NAME),
	   "vdso: a chain's frame in the vDSO named the same");
	if (!r)
		uobj_res_free(&res);

	/* written: version 11, our build ID; read back, named */
	make_table(&t, n, 0xffffffff9a000000ULL);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	s.uobjs = u;
	unlink(file);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	if (!r) {
		const struct snap_uobjs *g = f.nsnaps == 1 ? f.snaps[0].uobjs : NULL;
		int named = g && g->vdso_id && !strcmp(g->vdso_id, v->build_id) &&
			    !uobj_resolve_snap(g, &res, err, sizeof(err));

		ok(named && uobj_row_count(&res, name, VDSO_NAME) == 5 && g->ch.nr == 1,
		   "vdso: a snapshot's vDSO read back with our build ID, named: %s", name);
		if (named)
			uobj_res_free(&res);
		snapfile_free(&f);
	} else {
		ok(0, "vdso: a snapshot's vDSO read back: %s", err);
	}
	raw = (unsigned char *)slurp(file, &len);
	uobjs_record(raw, len, &at, &rlen);
	ok(raw && at + SNAP_HDR_SIZE + rlen == len && raw[at + 4] == SNAP_VERSION_UOBJS_VDSO,
	   "vdso: user objects with a vDSO file are written with version 11");
	snprintf(want, sizeof(want), "v.prf: record 3 at offset %zu has format version 11, this "
		 "prf reads versions 1 to 10", at);
	r = raw ? snapfile_parse_max(raw, len, "v.prf", &f, err, sizeof(err), 10) : -2;
	ok(r == -1 && strstr(err, want), "vdso: a version 10 reader refuses them: %s", err);
	free(raw);

	/* another kernel's vDSO: not named, said */
	free(u->vdso_id);
	u->vdso_id = strdup("00ff00ff");
	r = uobj_resolve_snap(u, &res, err, sizeof(err));
	ok(!r && uobj_row_count(&res, VDSO_OTHER, VDSO_OTHER) == 7 && !res.named &&
	   res.nprogs == 1 && res.progs[0].state == UOBJ_VDSO_OTHER &&
	   !strcmp(uobj_state_name(res.progs[0].state), "another kernel's") &&
	   res.nframes == 1 && !strcmp(res.frames[0].name, VDSO_OTHER),
	   "vdso: another kernel's vDSO (its build ID not ours): no function, \"%s\"",
	   VDSO_OTHER);
	if (!r)
		uobj_res_free(&res);

	/* a build ID that is not hex: corrupt */
	free(u->vdso_id);
	u->vdso_id = strdup("not-hex");
	unlink(file);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	ok(r == -1 && strstr(err, "corrupt"), "vdso: a build ID not hex is corruption: %s", err);
	if (!r)
		snapfile_free(&f);

	/* a record before version 11 (8 here) that flags a vDSO file: corrupt */
	free(u->vdso_id);
	u->vdso_id = NULL;
	u->chains_on = 0;
	u->f[0].flags = 0;
	unlink(file);
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	raw = r ? NULL : (unsigned char *)slurp(file, &len);
	for (at = 0; raw && at + SNAP_HDR_SIZE <= len; at += SNAP_HDR_SIZE + rlen) {
		rlen = (size_t)raw[at + 8] | (size_t)raw[at + 9] << 8 | (size_t)raw[at + 10] << 16;
		if (raw[at + 6] == SNAP_REC_UOBJS)
			break;
	}
	if (raw && at + SNAP_HDR_SIZE + rlen == len && raw[at + 4] == SNAP_VERSION_UOBJS) {
		/* the file's flags: after ids, counts, F (1 byte), major, minor, inode */
		unsigned char *fl = raw + at + SNAP_HDR_SIZE + 48 + 1 + 16;
		uLong crc;

		fl[0] = PRF_UOBJ_VDSO_IMAGE;
		crc = crc32(crc32(0L, Z_NULL, 0), raw + at, 12);
		crc = crc32(crc, raw + at + SNAP_HDR_SIZE, (uInt)rlen);
		raw[at + 12] = (unsigned char)crc;
		raw[at + 13] = (unsigned char)(crc >> 8);
		raw[at + 14] = (unsigned char)(crc >> 16);
		raw[at + 15] = (unsigned char)(crc >> 24);
		r = snapfile_parse(raw, len, "v8.prf", &f, err, sizeof(err));
		ok(r == -1 && strstr(err, "corrupt") && strstr(err, "record 3"),
		   "vdso: a version 8 record that flags a vDSO file is corruption: %s", err);
		if (!r)
			snapfile_free(&f);
	} else {
		ok(0, "vdso: a version 8 record written to flag a vDSO file in (%s)", err);
	}
	free(raw);
	s.uobjs = NULL;
	snapshot_free(&s);
	snap_uobjs_free(u);
	snap_table_free(&t);
	unlink(file);
}

/* Pair k of u's records (depths 3 and 2): its count, kernel PCs and user frames. */
static void upair_set(struct snap_uobjs *u, uint32_t k, uint64_t count, uint32_t kflags,
		      uint32_t np, uint64_t pc0, uint64_t pc1, uint32_t uflags, uint32_t nf,
		      struct prf_uframe f0, struct prf_uframe f1)
{
	struct prf_upair *c = (void *)((char *)u->precs + k * PRF_UPAIR_RECORD_SIZE(3, 2));
	__u64 *pc = (__u64 *)(c + 1);
	struct prf_uframe *fr = (void *)(pc + 3);

	*c = (struct prf_upair){ .count = count, .nr_pcs = np, .kflags = kflags,
				 .nr_frames = nf, .uflags = uflags };
	pc[0] = pc0;
	if (np > 1)
		pc[1] = pc1;
	fr[0] = f0;
	if (nf > 1)
		fr[1] = f1;
}

static uint64_t upair_count(const struct snap_uobjs *u, uint32_t k)
{
	return prf_upair_at(u->precs, u->ph.depth, u->ph.udepth, k)->count;
}

/*
 * uobj_snap_delta with pairs: each pair less the earlier one of the same
 * kernel PCs and user frames, files by identity at other indices, code of
 * no file by its process; a truncated side apart; 0 left out, one that
 * went down whole, dropped the same.
 */
static void test_uobj_snap_delta_pairs(void)
{
	struct snap_uobjs prev = { 0 }, cur = { 0 }, *d = NULL;
	struct prf_uobj_file pf[2], cf[2];
	const uint64_t K1 = 0xffffffff9a000211ULL, K2 = 0xffffffff9a000111ULL;
	const uint32_t ANON = PRF_UOBJ_ANON;
	const size_t rs = PRF_UPAIR_RECORD_SIZE(3, 2);
	struct prf_uframe a10 = { .offset = 0x10, .file = 0 }, b20 = { .offset = 0x20, .file = 1 };
	struct prf_uframe c10 = { .offset = 0x10, .file = 1 }, c20 = { .offset = 0x20, .file = 0 };
	struct prf_uframe j7 = { .offset = 0x7000, .file = ANON, .pid = 7 };
	struct prf_uframe j8 = { .offset = 0x7000, .file = ANON, .pid = 8 };
	int r;

	/* the earlier read's files /a, /b; the later's the same, swapped */
	pf[0] = ufile(1, 100, "/a");
	pf[1] = ufile(1, 200, "/b");
	cf[0] = pf[1];
	cf[1] = pf[0];
	prev.chains_on = cur.chains_on = 1;
	prev.ch.depth = cur.ch.depth = 2;
	prev.pairs_on = cur.pairs_on = 1;
	prev.ph = (struct prf_upairs){ .nr = 4, .nfiles = 2, .depth = 3, .udepth = 2,
				       .dropped = 2 };
	prev.pf = pf;
	prev.precs = calloc(4, rs);
	cur.ph = (struct prf_upairs){ .nr = 6, .nfiles = 2, .depth = 3, .udepth = 2,
				      .used = 6, .capacity = 64, .dropped = 5 };
	cur.pf = cf;
	cur.precs = calloc(6, rs);
	if (!prev.precs || !cur.precs) {
		ok(0, "uobj_snap_delta pairs: %s", strerror(ENOMEM));
		goto out;
	}
	upair_set(&prev, 0, 4, 0, 2, K1, K2, 0, 2, a10, b20);
	upair_set(&prev, 1, 3, 0, 1, K1, 0, 0, 1, j7, j7);
	upair_set(&prev, 2, 9, 0, 2, K1, K2, 0, 1, a10, a10);
	upair_set(&prev, 3, 1, PRF_STACK_TRUNCATED, 2, K1, K2, 0, 2, a10, b20);
	/* 0: the same pair (/a then /b, at the files' new indices): 10 - 4 */
	upair_set(&cur, 0, 10, 0, 2, K1, K2, 0, 2, c10, c20);
	/* 1: process 8's code at process 7's address: new, whole */
	upair_set(&cur, 1, 2, 0, 1, K1, 0, 0, 1, j8, j8);
	/* 2: process 7's: 5 - 3 */
	upair_set(&cur, 2, 5, 0, 1, K1, 0, 0, 1, j7, j7);
	/* 3: 9 earlier, went down (the table zeroed between): 3 whole */
	upair_set(&cur, 3, 3, 0, 2, K1, K2, 0, 1, c10, c10);
	/* 4: the kernel side truncated, unchanged (1): left out */
	upair_set(&cur, 4, 1, PRF_STACK_TRUNCATED, 2, K1, K2, 0, 2, c10, c20);
	/* 5: the user side truncated: no earlier one, whole */
	upair_set(&cur, 5, 6, 0, 2, K1, K2, PRF_UCHAIN_TRUNCATED, 2, c10, c20);
	r = uobj_snap_delta(&cur, &prev, &d);
	ok(!r && d && d->pairs_on && d->ph.nr == 5 && d->ph.nfiles == 2 &&
	   d->ph.capacity == 64 && d->ph.dropped == 3 && !memcmp(d->pf, cf, sizeof(cf)) &&
	   upair_count(d, 0) == 6 && upair_count(d, 1) == 2 && upair_count(d, 2) == 2 &&
	   upair_count(d, 3) == 3 && upair_count(d, 4) == 6 &&
	   prf_upair_frames(prf_upair_at(d->precs, 3, 2, 1), 3)[0].pid == 8 &&
	   (prf_upair_at(d->precs, 3, 2, 4)->uflags & PRF_UCHAIN_TRUNCATED),
	   "uobj_snap_delta: pairs by kernel PCs and user frames (files by identity, code of "
	   "no file by process), a truncated side apart, 0 left out, one that went down whole");
	snap_uobjs_free(d);
	d = NULL;
	r = uobj_snap_delta(&cur, NULL, &d);
	ok(!r && d && d->ph.nr == 6 && d->ph.dropped == 5 && !memcmp(d->precs, cur.precs, 6 * rs),
	   "uobj_snap_delta: with no earlier read, the pairs whole");
	snap_uobjs_free(d);
	d = NULL;
	prev.pairs_on = 0;
	r = uobj_snap_delta(&cur, &prev, &d);
	ok(!r && d && d->ph.nr == 6 && upair_count(d, 0) == 10,
	   "uobj_snap_delta: an earlier read without pairs: the later pairs whole");
	snap_uobjs_free(d);
out:
	free(prev.precs);
	free(cur.precs);
}

/*
 * The pairs in the user objects record (version 10): read back as given;
 * a reader of version 9 refuses the record by its version; a pair's frame
 * naming a file past the pairs' files, and the record cut short, are
 * corrupt records, named.
 */
static void test_snapshot_upairs(void)
{
	const char *file = path_in(tmpdir, "upairs.prf");
	const size_t n = 4, rs = PRF_UCHAIN_RECORD_SIZE(2), ps = PRF_UPAIR_RECORD_SIZE(3, 2);
	struct snap_uobjs *u = calloc(1, sizeof(*u));
	uint64_t c[6] = { 1, 2, 3, 4, 10, 0 };
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	const struct snap_uobjs *g;
	char err[SNAP_ERRLEN], want[SNAP_ERRLEN];
	unsigned char *raw, *cp = NULL;
	size_t len = 0, at = 0, rlen = 0;
	int r;

	make_table(&t, n, 0xffffffff9a000000ULL);
	u->h.nr = 1;
	u->h.used = 1;
	u->h.capacity = 100;
	u->h.nfiles = 1;
	u->f = calloc(1, sizeof(*u->f));
	u->f[0] = ufile(1, 100, "/usr/bin/prog");
	u->e = calloc(1, sizeof(*u->e));
	u->e[0] = (struct prf_uobj){ .count = 10, .offset = 0x40, .file = 0 };
	u->chains_on = 1;
	u->ch = (struct prf_uchains){ .nr = 1, .nfiles = 1, .used = 1, .capacity = 100,
				      .depth = 2 };
	u->cf = calloc(1, sizeof(*u->cf));
	u->cf[0] = u->f[0];
	u->recs = calloc(1, rs);
	uchain_set(u, 0, 10, 0, 1, 0, 0x40, 0, 0);
	u->pairs_on = 1;
	u->ph = (struct prf_upairs){ .nr = 2, .nfiles = 1, .used = 2, .files_used = 1,
				     .depth = 3, .udepth = 2, .capacity = 100, .dropped = 4 };
	u->pf = calloc(1, sizeof(*u->pf));
	u->pf[0] = u->f[0];
	u->precs = calloc(2, ps);
	if (!u->f || !u->e || !u->cf || !u->recs || !u->pf || !u->precs) {
		ok(0, "snapshot pairs: %s", strerror(ENOMEM));
		snap_uobjs_free(u);
		snap_table_free(&t);
		return;
	}
	upair_set(u, 0, 5, 0, 2, 0xffffffff9a000211ULL, 0xffffffff9a000111ULL, 0, 2,
		  (struct prf_uframe){ .offset = 0x7000, .file = PRF_UOBJ_ANON, .pid = 4242 },
		  (struct prf_uframe){ .offset = 0x30, .file = 0 });
	upair_set(u, 1, 1, PRF_STACK_TRUNCATED, 1, 0xffffffff9a000211ULL, 0,
		  PRF_UCHAIN_TRUNCATED, 1, (struct prf_uframe){ .offset = 0x40, .file = 0 },
		  (struct prf_uframe){ 0 });
	unlink(file);
	make_snap(&s, n, 1795000000000000000LL, c, 0, 0);
	s.uobjs = u;
	r = snapfile_append(file, &t, &s, err, sizeof(err));
	r = r ? r : snapfile_read(file, &f, err, sizeof(err));
	g = !r && f.nsnaps == 1 ? f.snaps[0].uobjs : NULL;
	ok(g && g->pairs_on && g->ph.nr == 2 && g->ph.nfiles == 1 && g->ph.used == 2 &&
	   g->ph.files_used == 1 && g->ph.depth == 3 && g->ph.udepth == 2 &&
	   g->ph.capacity == 100 && g->ph.dropped == 4 && !memcmp(g->pf, u->pf, sizeof(*u->pf)) &&
	   !memcmp(g->precs, u->precs, 2 * ps) && g->ch.nr == 1 && !memcmp(g->recs, u->recs, rs),
	   "snapshot: the pairs of kernel stacks and chains read back as given %s",
	   r ? err : "");
	if (!r)
		snapfile_free(&f);
	s.uobjs = NULL;
	snapshot_free(&s);
	snap_uobjs_free(u);
	snap_table_free(&t);
	raw = (unsigned char *)slurp(file, &len);
	uobjs_record(raw, len, &at, &rlen);
	ok(raw && at + SNAP_HDR_SIZE + rlen == len && raw[at + 4] == SNAP_VERSION_UOBJS_PAIRS,
	   "snapshot: user objects with pairs are written with version 10");
	snprintf(want, sizeof(want), "p.prf: record 3 at offset %zu has format version 10, this "
		 "prf reads versions 1 to 9", at);
	r = raw ? snapfile_parse_max(raw, len, "p.prf", &f, err, sizeof(err), 9) : -2;
	ok(r == -1 && strstr(err, want), "snapshot: a version 9 reader refuses them: %s", err);
	/* the last pair's frame (file 0 + 1, offset 0x40, then the size) names file 2 of 1 */
	cp = raw ? malloc(len) : NULL;
	if (cp) {
		memcpy(cp, raw, len);
		cp[at + SNAP_HDR_SIZE + rlen - 6] = 2;
		reseal(cp + at, rlen);
	}
	r = cp ? snapfile_parse(cp, len, "p.prf", &f, err, sizeof(err)) : -2;
	snprintf(want, sizeof(want), "p.prf: corrupt: record 3 at offset %zu: payload does not "
		 "match its length", at);
	ok(r == -1 && strstr(err, want),
	   "snapshot: a pair's frame naming a file past the pairs' files is refused: %s", err);
	/* the last pair's number of user frames (before its frame) 127, of 2 */
	if (cp) {
		memcpy(cp, raw, len);
		memcpy(cp + at + SNAP_HDR_SIZE + rlen - 7, "\x7f", 1);
		reseal(cp + at, rlen);
	}
	r = cp ? snapfile_parse(cp, len, "p.prf", &f, err, sizeof(err)) : -2;
	ok(r == -1 && strstr(err, want),
	   "snapshot: a pair with more frames than the user depth is refused: %s", err);
	/* cut short by 10 bytes (length, size and CRC made to match) */
	if (cp) {
		memcpy(cp, raw, len);
		memcpy(cp + at + SNAP_HDR_SIZE + rlen - 14, cp + at + SNAP_HDR_SIZE + rlen - 4, 4);
		reseal(cp + at, rlen - 10);
	}
	r = cp ? snapfile_parse(cp, len - 10, "p.prf", &f, err, sizeof(err)) : -2;
	ok(r == -1 && strstr(err, want), "snapshot: a record of pairs cut short is refused: %s",
	   err);
	free(cp);
	free(raw);
	unlink(file);
}

static void test_usym_debug_file(const char *prog)
{
	char maps[1100], outf[1100], cmd[3400], line[256], err[512], id[129];
	char dir[1100], sub[1200], dbg[1400], *nm;
	unsigned long one = 0;
	struct umap *v = NULL;
	const struct umap *m;
	size_t n = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "%s/strip.maps", tmpdir);
	snprintf(outf, sizeof(outf), "%s/strip.out", tmpdir);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' > '%s'", prog, maps, outf);
	if (!ok(system(cmd) == 0, "usym debug file: the stripped program ran"))
		return;
	f = fopen(outf, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "usym_one %lx", &one);
	if (f)
		fclose(f);
	ok(one && !usym_read_maps(maps, &v, &n, err, sizeof(err)) &&
	   (m = exe_mapping(v, n, "usym_strip")) != NULL,
	   "usym debug file: usym_one's address and the program's mapping read");
	m = exe_mapping(v, n, "usym_strip");
	if (!m || !one)
		goto out;
	ok(!usym_build_id(prog, id, sizeof(id)) && strlen(id) == 40,
	   "usym debug file: the program's build ID (%s)", id);
	snprintf(dir, sizeof(dir), "%s/debug", tmpdir);
	snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, id);
	snprintf(dbg, sizeof(dbg), "%s/%s.debug", sub, id + 2);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", sub);
	ok(system(cmd) == 0, "usym debug file: the build-id directory made");

	nm = name_with_debug_dir(m, one, dir);
	ok(nm && strcmp(nm, "usym_one"),
	   "usym debug file: none installed, usym_one is not named (got %s)", nm ? nm : "error");
	free(nm);

	/* the same code's debug file of another build ID, under the program's */
	snprintf(cmd, sizeof(cmd), "cp '%s.other' '%s'", prog, dbg);
	ok(system(cmd) == 0, "usym debug file: another build's installed under its build ID");
	nm = name_with_debug_dir(m, one, dir);
	ok(nm && strcmp(nm, "usym_one"),
	   "usym debug file: one of another build ID is not used (got %s)", nm ? nm : "error");
	free(nm);

	snprintf(cmd, sizeof(cmd), "cp '%s.debug' '%s'", prog, dbg);
	ok(system(cmd) == 0, "usym debug file: installed under .build-id");
	nm = name_with_debug_dir(m, one, dir);
	ok(nm && !strcmp(nm, "usym_one"),
	   "usym debug file: usym_one named from it at %#lx (got %s)", one, nm ? nm : "error");
	free(nm);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
out:
	usym_free_maps(v, n);
	unlink(maps);
	unlink(outf);
}

/*
 * A stripped PIE whose global functions are exported (prog: usym_link, its
 * debug file prog.debug named by its .gnu_debuglink, no build ID): without
 * the debug file its names come from .dynsym and are marked, usym_static
 * (a local function) no better than its exported neighbour; with the debug
 * file beside it, in .debug/ there, or under $PRF_DEBUG_DIR followed by its
 * directory, named right, by address and by file offset; a file of that
 * name whose CRC-32 is not the link's is not used.
 */
static void test_usym_debuglink(const char *prog)
{
	char dir[1100], exe[1200], maps[1200], outf[1200], cmd[9000], line[256], err[512];
	char gdir[1100], *nm;
	unsigned long one = 0, st = 0;
	struct umap *v = NULL;
	const struct umap *m;
	const struct sym *s;
	struct symtab t;
	size_t n = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/dl", tmpdir);
	snprintf(gdir, sizeof(gdir), "%s/dlglobal", tmpdir);
	snprintf(exe, sizeof(exe), "%s/usym_link", dir);
	snprintf(maps, sizeof(maps), "%s/link.maps", tmpdir);
	snprintf(outf, sizeof(outf), "%s/link.out", tmpdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s' && cp '%s' '%s' && '%s' '%s' > '%s'", dir,
		 gdir, prog, exe, exe, maps, outf);
	if (!ok(system(cmd) == 0, "usym debuglink: the stripped program ran from %s", dir))
		return;
	f = fopen(outf, "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "usym_one %lx", &one);
		sscanf(line, "usym_static %lx", &st);
	}
	if (f)
		fclose(f);
	ok(one && st && !usym_read_maps(maps, &v, &n, err, sizeof(err)) &&
	   exe_mapping(v, n, "usym_link"),
	   "usym debuglink: usym_one's and usym_static's addresses and the mapping read");
	m = exe_mapping(v, n, "usym_link");
	if (!m || !one || !st)
		goto out;

	/* no debug file anywhere: .dynsym, marked */
	nm = name_with_debug_dir(m, one, gdir);
	ok(nm && !strcmp(nm, "usym_one" USYM_DYNSYM_MARK),
	   "usym debuglink: without its debug file, 'usym_one (dynsym)' (got %s)",
	   nm ? nm : "error");
	free(nm);
	nm = name_with_debug_dir(m, st, gdir);
	ok(nm && strcmp(nm, "usym_static"),
	   "usym debuglink: without it, usym_static is not named (got %s)", nm ? nm : "error");
	free(nm);

	/* beside the program */
	snprintf(cmd, sizeof(cmd), "cp '%s.debug' '%s/'", prog, dir);
	ok(system(cmd) == 0, "usym debuglink: the debug file put beside the program");
	nm = name_with_debug_dir(m, st, gdir);
	ok(nm && !strcmp(nm, "usym_static"),
	   "usym debuglink: beside it, usym_static named (got %s)", nm ? nm : "error");
	free(nm);
	nm = name_with_debug_dir(m, one, gdir);
	ok(nm && !strcmp(nm, "usym_one"),
	   "usym debuglink: beside it, usym_one named, unmarked (got %s)", nm ? nm : "error");
	free(nm);
	symtab_init(&t);
	err[0] = '\0';
	setenv("PRF_DEBUG_DIR", gdir, 1);
	ok(usym_add_file(&t, exe, "usym_link", err, sizeof(err)) > 0,
	   "usym debuglink: the file's functions by offset (%s)", err);
	unsetenv("PRF_DEBUG_DIR");
	symtab_sort_dedupe(&t);
	s = sym_at(&t, st - m->start + m->offset);
	ok(s && !strcmp(s->name, "usym_static"),
	   "usym debuglink: by file offset too, usym_static (got %s)", s ? s->name : "nothing");
	symtab_free(&t);

	/* the same name, another CRC: one byte more */
	snprintf(cmd, sizeof(cmd), "printf x >> '%s/usym_link.debug'", dir);
	ok(system(cmd) == 0, "usym debuglink: the file beside it changed (its CRC-32 too)");
	nm = name_with_debug_dir(m, one, gdir);
	ok(nm && !strcmp(nm, "usym_one" USYM_DYNSYM_MARK),
	   "usym debuglink: a debug file of another CRC-32 is not used (got %s)",
	   nm ? nm : "error");
	free(nm);

	/* in .debug/ beside the program */
	snprintf(cmd, sizeof(cmd), "rm '%s/usym_link.debug' && mkdir '%s/.debug' && "
		 "cp '%s.debug' '%s/.debug/'", dir, dir, prog, dir);
	ok(system(cmd) == 0, "usym debuglink: the debug file put in .debug/");
	nm = name_with_debug_dir(m, st, gdir);
	ok(nm && !strcmp(nm, "usym_static"),
	   "usym debuglink: from .debug/, usym_static named (got %s)", nm ? nm : "error");
	free(nm);

	/* under the debug directory, followed by the program's directory */
	snprintf(cmd, sizeof(cmd), "rm -r '%s/.debug' && mkdir -p '%s%s' && cp '%s.debug' '%s%s/'",
		 dir, gdir, dir, prog, gdir, dir);
	ok(system(cmd) == 0, "usym debuglink: the debug file put under the debug directory");
	nm = name_with_debug_dir(m, st, gdir);
	ok(nm && !strcmp(nm, "usym_static"),
	   "usym debuglink: from $PRF_DEBUG_DIR%s, usym_static named (got %s)", dir,
	   nm ? nm : "error");
	free(nm);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, gdir);
	(void)!system(cmd);
	usym_free_maps(v, n);
	unlink(maps);
	unlink(outf);
}

/*
 * unit_test --usym-names MAPS:ADDR...: for each, the name usym gives the
 * hex address ADDR in the table of every executable mapping of the maps
 * file MAPS ("(no symbol)" when none starts there), a line each, in one
 * process (the debuginfod tests, tests/debuginfod_tests.sh).
 */
static int usym_names(int n, char **args)
{
	int i, ret = 0;

	for (i = 0; i < n; i++) {
		char *colon = strrchr(args[i], ':'), err[512];
		struct umap *v = NULL;
		const struct sym *s;
		struct symtab t;
		size_t nm = 0, k;

		if (!colon)
			return 2;
		*colon = '\0';
		if (usym_read_maps(args[i], &v, &nm, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		symtab_init(&t);
		for (k = 0; k < nm; k++)
			if (usym_add_mapping(&t, &v[k], "", err, sizeof(err)) < 0 &&
			    !strcmp(err, strerror(ENOMEM)))
				ret = 1;
		symtab_sort_dedupe(&t);
		s = sym_at(&t, strtoull(colon + 1, NULL, 16));
		printf("%s\n", s ? s->name : "(no symbol)");
		symtab_free(&t);
		usym_free_maps(v, nm);
	}
	return ret;
}

/*
 * A process whose program was deleted while it runs, then replaced at its
 * path by another program: read through /proc/PID/map_files, its code is
 * named as its own, in module "usym_gone (deleted)"; from its maps alone
 * (no way to the mapped file) nothing is taken from the file at the path.
 */
static void test_usym_deleted(void)
{
	char exe[1100], maps[1100], cmd[2400], line[256], err[512];
	int in[2], outp[2], status;
	unsigned long one = 0;
	struct umap *v = NULL;
	const struct umap *m;
	const struct sym *s;
	struct symtab t;
	size_t n = 0;
	FILE *f;
	pid_t pid;

	snprintf(exe, sizeof(exe), "%s/usym_gone", tmpdir);
	snprintf(maps, sizeof(maps), "%s/gone.maps", tmpdir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", usym_pie, exe);
	if (!ok(system(cmd) == 0 && !pipe(in) && !pipe(outp), "usym deleted: the program copied"))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		close(in[1]);
		close(outp[0]);
		execl(exe, exe, maps, "--gone", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	f = fdopen(outp[0], "r");
	while (f && fgets(line, sizeof(line), f) && !strstr(line, "value"))
		sscanf(line, "usym_one %lx", &one);
	ok(pid > 0 && one && access(exe, F_OK), "usym deleted: running, its program deleted");
	/* another program at the path now */
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", usym_nopie, exe);
	ok(system(cmd) == 0, "usym deleted: another program put at its path");

	ok(!usym_load_pids(&pid, 1, &t, err, sizeof(err)), "usym deleted: its table read (%s)",
	   err);
	s = sym_at(&t, one);
	ok(s && !strcmp(s->name, "usym_one") && s->module &&
	   !strcmp(s->module, "usym_gone (deleted)"),
	   "usym deleted: usym_one named from the mapped file, module 'usym_gone (deleted)' "
	   "(got %s %s)", s ? s->name : "nothing", s && s->module ? s->module : "-");
	symtab_free(&t);

	ok(!usym_read_maps(maps, &v, &n, err, sizeof(err)) &&
	   (m = exe_mapping(v, n, "usym_gone")) && m->deleted,
	   "usym deleted: its maps say so, the path without '(deleted)'");
	m = exe_mapping(v, n, "usym_gone");
	if (m) {
		symtab_init(&t);
		ok(usym_add_mapping(&t, m, "", err, sizeof(err)) == -1 && strstr(err, "deleted"),
		   "usym deleted: without the mapped file, no functions, and said (%s)", err);
		symtab_sort_dedupe(&t);
		s = sym_at(&t, m->end);
		ok(t.n <= 2 && s && s->kind == SYM_SENTINEL && s->module &&
		   !strcmp(s->module, "usym_gone (deleted)"),
		   "usym deleted: its sentinels named as deleted, nothing from the new file");
		symtab_free(&t);
	}
	usym_free_maps(v, n);
	close(in[1]);
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	unlink(exe);
	unlink(maps);
}

/*
 * A user program's mapping symbols (issue 39): tests/data/mapsymprog.c's
 * local mapsym_fn starts at "$x" and holds "$d.1", "$x.2" and "$xrv64i2p1":
 * the function keeps its name and each of its bytes, no "$" entry.
 */
static void test_usym_mapping_symbols(const char *prog)
{
	struct symtab t;
	const struct sym *f;
	char err[512];
	size_t i, bad = 0;
	int r;

	symtab_init(&t);
	r = usym_add_file(&t, prog, "mapsymprog", err, sizeof(err));
	ok(r > 0, "usym mapping symbols: %s read (%s)", prog, r > 0 ? "ok" : err);
	if (r <= 0) {
		symtab_free(&t);
		return;
	}
	symtab_sort_dedupe(&t);
	for (i = 0; i < t.n; i++)
		if (t.v[i].name[0] == '$') {
			ok(0, "usym mapping symbols: no %s entry (at %#" PRIx64 ")", t.v[i].name,
			   t.v[i].addr);
			bad++;
		}
	ok(!bad, "usym mapping symbols: none in the table");
	f = find_name(&t, "mapsym_fn");
	ok(f && f->size == 4, "usym mapping symbols: mapsym_fn named, its 4 bytes long");
	for (i = 0; f && i < f->size; i++) {
		long j = symtab_find(&t, f->addr + i);

		if (j < 0 || strcmp(t.v[j].name, "mapsym_fn")) {
			ok(0, "usym mapping symbols: mapsym_fn+%zu is mapsym_fn's (got %s)", i,
			   j < 0 ? "nothing" : t.v[j].name);
			bad++;
		}
	}
	ok(f && !bad, "usym mapping symbols: every byte of mapsym_fn is its own");
	symtab_free(&t);

	/* The same file as an ELF namelist (a vmlinux's reader). */
	symtab_init(&t);
	r = nl_read_elf(prog, &t, err, sizeof(err));
	for (i = bad = 0; !r && i < t.n; i++)
		bad += t.v[i].name[0] == '$';
	ok(!r && !bad && find_name(&t, "mapsym_fn"),
	   "nl_read_elf: mapsym_fn read, no mapping symbol (%zu of %zu)", bad, t.n);
	symtab_free(&t);
}

static void test_usym(void)
{
	struct symtab u, k, m;
	pid_t self = getpid(), gone = 0x3ffffff0;
	char err[512];
	const struct sym *s;
	pid_t *pids = NULL;
	size_t np = 0;

	{
		/* A USERPC table: its user functions count as user samples. */
		struct snap_entry e[4] = {
			{ .addr = 0x401000, .kind = SYM_FUNC,
			  .name = "burn_two", .module = "burn" },
			{ .addr = 0x402000, .kind = SYM_SENTINEL,
			  .name = "[outside burn text]", .module = "burn" },
			{ .addr = UINT64_C(0xffffffff81000000), .kind = SYM_FUNC,
			  .name = "clear_user", .module = NULL },
			{ .addr = UINT64_C(0xffffffff81001000), .kind = SYM_SENTINEL,
			  .name = "[outside kernel text]", .module = NULL },
		};
		struct snap_table st = { 1, 0, 4, e };
		uint64_t cnt[6] = { 20, 3, 10, 1, 5, 7 };
		struct report r;
		int rb = report_build(&r, &st, NULL, cnt, 0, 0);

		ok(!rb && r.user == 28 && r.kernel == 11 &&
		   r.in_sentinels == 1 && r.all == 46 && r.nrows == 4,
		   "report: user functions of a USERPC table in the user total (user %" PRIu64
		   ", kernel %" PRIu64 ")", r.user, r.kernel);
		{
			struct report_opts o = { 0 };

			report_default_of(&r, &o);
			ok(o.of == OF_BUSY && report_base(&r, o.of) == 28 + 11,
			   "report: user function rows make busy samples the default base");
			o.of = OF_KERNEL;
			o.of_given = 1;
			report_default_of(&r, &o);
			ok(o.of == OF_KERNEL, "report: --of kernel given stays kernel");
		}
		report_free(&r);
	}
	if (usym_pie)
		test_usym_prog(usym_pie, "usym_pie", 1);
	if (usym_nopie)
		test_usym_prog(usym_nopie, "usym_nopie", 0);
	if (usym_strip) {
		char link[1100];
		const char *sl = strrchr(usym_strip, '/');

		test_usym_debug_file(usym_strip);
		/* usym_link: built beside usym_strip */
		snprintf(link, sizeof(link), "%.*susym_link", sl ? (int)(sl - usym_strip + 1) : 0,
			 usym_strip);
		test_usym_debuglink(link);
	}
	if (mapsymprog)
		test_usym_mapping_symbols(mapsymprog);
	if (usym_pie && usym_nopie)
		test_usym_deleted();
	/* Our own process, by PID. */
	ok(!usym_load_pids(&self, 1, &u, err, sizeof(err)), "usym: /proc/self's table read");
	s = sym_at(&u, (uint64_t)(uintptr_t)test_usym);
	ok(s && !strcmp(s->name, "test_usym") && s->module && !strcmp(s->module, "unit_test"),
	   "usym: test_usym found in unit_test");
	ok(strictly_ascending(&u), "usym: pid table strictly ascending");
	/* Merged below a kernel part. */
	symtab_init(&k);
	symtab_add(&k, UINT64_C(0xffffffff81000000), 0, "_stext", NULL, SYM_FUNC, 1);
	symtab_add(&k, UINT64_C(0xffffffff81000100), 0, "schedule", NULL, SYM_FUNC, 1);
	symtab_add(&k, UINT64_C(0xffffffff81000200), 0, "[outside kernel text]", NULL,
		   SYM_SENTINEL, 0);
	{
		size_t nu = u.n;

		ok(!usym_merge(&u, &k, &m) && m.n == nu + 3 && strictly_ascending(&m) &&
		   m.v[nu].addr == UINT64_C(0xffffffff81000000),
		   "usym: merged table: user part, then kernel part (%zu + 3)", nu);
	}
	symtab_free(&m);
	ok(usym_load_pids(&gone, 1, &u, err, sizeof(err)) == -1 && strstr(err, "maps"),
	   "usym: a process that is gone: error names its maps (%s)", err);
	ok(usym_cgroup_pids("/nonexistent/cg", &pids, &np, err, sizeof(err)) == -1 &&
	   strstr(err, "/nonexistent/cg"), "usym: a missing cgroup directory is named");
	free(pids);
	{
		char dir[1100], sub[1200], procs[1300];
		FILE *f;

		/* A cgroup tree as directories: the processes of all of it. */
		snprintf(dir, sizeof(dir), "%s/cg", tmpdir);
		snprintf(sub, sizeof(sub), "%s/child", dir);
		mkdir(dir, 0755);
		mkdir(sub, 0755);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		f = fopen(procs, "w");
		if (f) {
			fprintf(f, "11\n12\n");
			fclose(f);
		}
		snprintf(procs, sizeof(procs), "%s/child/cgroup.procs", dir);
		f = fopen(procs, "w");
		if (f) {
			fprintf(f, "13\n");
			fclose(f);
		}
		ok(!usym_cgroup_pids(dir, &pids, &np, err, sizeof(err)) && np == 3 &&
		   pids[0] == 11 && pids[1] == 12 && pids[2] == 13,
		   "usym: a cgroup's processes include its descendants' (%zu)", np);
		free(pids);
		unlink(procs);
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
		unlink(procs);
		rmdir(sub);
		rmdir(dir);
	}
}

/* Bytes this process has read(2) so far (/proc/self/io rchar), -1 unknown. */
static long long rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	long long v = -1;
	char line[128];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/*
 * What a day of prfdc costs: 144 snapshots (every 10 minutes) of a
 * 50,000-function table.  The model: 10,000 functions are ever hit, the
 * j-th busiest 6000/(j+1) times per 10 minutes (about 59,000 kernel samples
 * per snapshot: 4 CPUs at 100 Hz, a quarter of them in the kernel), counted
 * from the load.  Version 1 stored (N + 2) x 8 bytes each.
 */
static void test_day_size(void)
{
	enum { N = 50000, HIT = 10000, SNAPS = 144 };
	char *file = path_in(tmpdir, "day.prf"), err[SNAP_ERRLEN];
	uint64_t *c = calloc(N + 2, sizeof(*c));
	struct snap_table t;
	struct snapshot s;
	struct snapfile f;
	struct stat st;
	long long r0 = -1, r1 = -1;
	size_t i, v1;
	int k, r = 0;

	unlink(file);
	big_table(&t, N, 0);
	for (k = 1; k <= SNAPS && !r; k++) {
		for (i = 0; i < HIT; i++)
			/* spread over the table: hot functions are not neighbours */
			c[(i * 7919) % N] = (uint64_t)k * 6000 / (i + 1);
		c[N] = (uint64_t)k * 20000;
		c[N + 1] = (uint64_t)k * 160000;
		make_snap(&s, N, 1795000000000000000LL + (int64_t)k * 600000000000LL, c, 0, 0);
		if (k == SNAPS)
			r0 = rchar();
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		if (k == SNAPS)
			r1 = rchar();
		snapshot_free(&s);
	}
	ok(r == 0, "day: 144 snapshots appended (%s)", r ? err : "ok");
	stat(file, &st);
	v1 = SNAPS * ((N + 2) * 8 + 150) + N * 38;
	printf("# day of 10-minute snapshots, 50,000 functions, 10,000 hit: %.2f MB "
	       "(version 1: %.1f MB); the 144th append read %lld bytes\n",
	       (double)st.st_size / 1e6, (double)v1 / 1e6, r1 - r0 - 0);
	ok(st.st_size < 8000000, "day: under 8 MB (%.2f MB)", (double)st.st_size / 1e6);
	/* O(snapshot): the 144th append reads its last record, not the file. */
	if (r0 >= 0 && r1 >= 0)
		ok(r1 - r0 < st.st_size / 50, "day: the 144th append read %lld bytes of %lld",
		   r1 - r0, (long long)st.st_size);
	else
		printf("# /proc/self/io unreadable: bytes read by an append not measured\n");
	r = snapfile_read(file, &f, err, sizeof(err));
	ok(r == 0 && f.nsnaps == SNAPS && f.ntables == 1 && f.snaps[SNAPS - 1].counts[0] ==
	   (uint64_t)SNAPS * 6000 && f.snaps[SNAPS - 1].counts[N + 1] == (uint64_t)SNAPS * 160000, "day: read back, one table, the counters exact");
	if (!r)
		snapfile_free(&f);
	snap_table_free(&t);
	free(c);
	unlink(file);
}

/*
 * User names demangled by libiberty (demangle.c): C++ and Rust names read
 * as people write them, a C name as it is, a kernel name never touched;
 * --no-demangle (sym_demangle_on 0) the raw names; the reports print them
 * so, with the raw symbol beside in CSV and JSON.
 */
static void test_demangle(void)
{
	static const struct { const char *raw, *want; } v[] = {
		{ "_Z18ggc_internal_allocmPFvPvEmm",
		  "ggc_internal_alloc(unsigned long, void (*)(void*), unsigned long, unsigned long)" },
		{ "_ZN3prf5Table4findEPKc", "prf::Table::find(char const*)" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
		/* a name from .dynsym alone keeps its mark */
		{ "_ZN3prf5Table4findEPKc" USYM_DYNSYM_MARK,
		  "prf::Table::find(char const*)" USYM_DYNSYM_MARK },
	};
	struct snap_entry e[2] = {
		{ .addr = 0x1129, .kind = SYM_FUNC,
		  .name = (char *)"_ZN3prf5Table4findEPKc", .module = (char *)"prog" },
		{ .addr = UINT64_C(0xffffffff81000000), .kind = SYM_FUNC,
		  .name = (char *)"_ZN3prf5Table4findEPKc", .module = NULL },
	};
	struct snap_table t = { 1, 0, 2, e };
	uint64_t cb[4] = { 3, 2, 0, 0 };
	struct report r;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *d = sym_demangle(v[i].raw);

		ok(d && !strcmp(d, v[i].want), "demangle: %s -> %s (got %s)", v[i].raw, v[i].want,
		   d ? d : "NULL");
		free(d);
	}
	ok(!sym_demangle("c_plain") && !sym_demangle("main") && !sym_demangle("_Zfoo") &&
	   !sym_demangle("") && !sym_demangle("_Zfoo" USYM_DYNSYM_MARK),
	   "demangle: C names (and a broken _Z one, marked or not) are not mangled names");
	ok(!strcmp(sym_shown("c_plain", 0x1000), "c_plain") &&
	   !strcmp(sym_shown(v[0].raw, 0x1000), v[0].want) &&
	   sym_shown(v[0].raw, 0x1000) == sym_shown(v[0].raw, 0x2000) &&
	   !strcmp(sym_shown(v[0].raw, UINT64_C(0xffffffff81000000)), v[0].raw),
	   "demangle: a user name shown demangled (once for all its uses), a kernel one as it is");
	if (!ok(!report_build(&r, &t, NULL, cb, 0, 0), "demangle: a report of a user and a kernel row"))
		return;
	for (i = 0; i < 2; i++) {
		struct report_opts ro = { 0 };
		char *s = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&s, &len);

		sym_demangle_on = !i;
		ro.of = OF_ALL;
		ro.format = FMT_TEXT;
		report_print(m, &r, &ro);
		ro.format = FMT_CSV;
		report_print(m, &r, &ro);
		ro.format = FMT_JSON;
		report_print(m, &r, &ro);
		ro.format = FMT_FOLDED;
		report_print(m, &r, &ro);
		fclose(m);
		if (!i)
			ok(s && strstr(s, " prf::Table::find(char const*) ") &&
			   strstr(s, "\n3,60.00,prf::Table::find(char const*),prog,0x1129,function,all,0,,"
				  "_ZN3prf5Table4findEPKc\n") &&
			   strstr(s, "{\"function\": \"prf::Table::find(char const*)\", \"module\": "
				  "\"prog\", \"address\": \"0x1129\", \"symbol\": \"_ZN3prf5Table4findEPKc\"") &&
			   strstr(s, "\nprog;prf::Table::find(char const*) 3\n") &&
			   strstr(s, "\n2,40.00,_ZN3prf5Table4findEPKc,kernel,0xffffffff81000000,") &&
			   strstr(s, "\nkernel;_ZN3prf5Table4findEPKc 2\n"),
			   "demangle: text, CSV (the symbol beside), JSON and folded show the user row "
			   "demangled, the kernel's as it is:\n%s", s ? s : "");
		else
			ok(s && !strstr(s, "prf::Table") &&
			   strstr(s, "\n3,60.00,_ZN3prf5Table4findEPKc,prog,0x1129,function,all,0,,"
				  "_ZN3prf5Table4findEPKc\n") &&
			   strstr(s, "\nprog;_ZN3prf5Table4findEPKc 3\n"),
			   "demangle: --no-demangle: the raw names everywhere:\n%s", s ? s : "");
		free(s);
	}
	sym_demangle_on = 1;
	report_free(&r);
	sym_shown_free();
}

/*
 * Delta records (type 5): a file of them reads back to the same counters
 * as one of full records; small when few counters change; a counter that
 * goes back, or a file changed behind the writer, gets a full record; a
 * reader of version 4 refuses them; a torn one is skipped, one whose base
 * is gone is corruption.
 */
static void test_delta(void)
{
	enum { N = 50000, SNAPS = 30, HOT = 200 };
	char *full = strdup(path_in(tmpdir, "full.prf")), *dl = strdup(path_in(tmpdir, "delta.prf"));
	char *cut = strdup(path_in(tmpdir, "cut.prf")), err[SNAP_ERRLEN];
	uint64_t *c = calloc(N + 2, sizeof(*c)), *base = calloc(N + 2, sizeof(*c));
	uint64_t base_len = 0;
	uint32_t base_crc = 0;
	struct snap_table t;
	struct snapshot s;
	struct snapfile fa, fb;
	struct stat st1, st2;
	unsigned char *raw;
	size_t i, len, ndelta = 0, same = 1;
	int k, r = 0, ra, rb;
	FILE *o;

	unlink(full);
	unlink(dl);
	big_table(&t, N, 0);
	for (k = 1; k <= SNAPS && !r; k++) {
		/* HOT functions spread over the table grow; the rest stay. */
		for (i = 0; i < HOT; i++)
			c[(i * 7919 + (size_t)k % 3) % N] += (uint64_t)(i % 50) * 3 + 1;
		c[N] += 500;
		c[N + 1] += 4000;
		make_snap(&s, N, 1795000000000000000LL + (int64_t)k * 60000000000LL, c, 0, 0);
		r = snapfile_append(full, &t, &s, err, sizeof(err));
		if (k == 2)
			stat(dl, &st1);
		if (!r) {
			s.delta_base = k > 1 ? base : NULL;
			s.delta_len = base_len;
			s.delta_crc = base_crc;
			r = snapfile_append(dl, &t, &s, err, sizeof(err));
			ndelta += s.delta;
			memcpy(base, c, (N + 2) * sizeof(*c));
			base_len = s.rec_end;
			base_crc = s.rec_crc;
		}
		snapshot_free(&s);
	}
	ok(r == 0 && ndelta == SNAPS - 1, "delta: %d snapshots appended, all but the first "
	   "as deltas (%zu) %s", SNAPS, ndelta, r ? err : "");
	stat(dl, &st2);
	printf("# delta: %d snapshots of a %d-entry table, %d counters growing: %.0f bytes a "
	       "delta record, the first %.0f\n", SNAPS, N, HOT,
	       (double)(st2.st_size - st1.st_size) / (SNAPS - 2), (double)st1.st_size);
	ok((st2.st_size - st1.st_size) / (SNAPS - 2) < 1500,
	   "delta: under 1,500 bytes an interval with %d counters changed", HOT);
	ra = snapfile_read(full, &fa, err, sizeof(err));
	rb = snapfile_read(dl, &fb, err, sizeof(err));
	ok(!ra && !rb && fa.nsnaps == SNAPS && fb.nsnaps == SNAPS, "delta: both files read");
	if (!ra && !rb) {
		for (k = 0; k < SNAPS && same; k++)
			same = !memcmp(fa.snaps[k].counts, fb.snaps[k].counts,
				       (N + 2) * sizeof(*c)) &&
			       fa.snaps[k].ticks_total == fb.snaps[k].ticks_total &&
			       fa.snaps[k].time_ns == fb.snaps[k].time_ns &&
			       fb.snaps[k].delta == (k > 0);
		ok(same, "delta: every snapshot's counters the same as the full file's");
	}
	raw = (unsigned char *)slurp(dl, &len);
	{
		struct snapfile f4;

		/* (its table, of N names, is compressed: version 7 comes first) */
		ok(raw && snapfile_parse_max(raw, len, "delta.prf", &f4, err, sizeof(err), 4) &&
		   strstr(err, "has format version ") &&
		   strstr(err, ", this prf reads versions 1 to 4"),
		   "delta: a reader of version 4 refuses it clearly: %s", err);
	}
	/* Torn: the last delta record one byte short. */
	o = fopen(cut, "w");
	if (o && raw) {
		fwrite(raw, 1, len - 1, o);
		fclose(o);
	}
	{
		struct snapfile f;

		r = snapfile_read(cut, &f, err, sizeof(err));
		ok(r == 0 && f.nsnaps == SNAPS - 1 && f.torn_len && f.torn_rec == SNAPS + 1 &&
		   !memcmp(f.snaps[SNAPS - 2].counts, fa.snaps[SNAPS - 2].counts,
			   (N + 2) * sizeof(*c)), "delta: a torn delta record skipped, the rest exact");
		if (!r)
			snapfile_free(&f);
	}
	/* An append after the cut (the file is not where the writer left it): full. */
	make_snap(&s, N, 1795000000000000000LL + (int64_t)(SNAPS + 1) * 60000000000LL, c, 0, 0);
	s.delta_base = base;
	s.delta_len = base_len;
	s.delta_crc = base_crc;
	r = snapfile_append(cut, &t, &s, err, sizeof(err));
	ok(r == 1 && !s.delta && strstr(err, "torn"),
	   "delta: a file cut behind the writer gets a full record (%s)", err);
	snapshot_free(&s);
	/* A counter that went back: a full record. */
	c[0] = 0;	/* hot: above 0 in the base */
	make_snap(&s, N, 1795000000000000000LL + (int64_t)(SNAPS + 1) * 60000000000LL, c, 0, 0);
	s.delta_base = base;
	s.delta_len = base_len;
	s.delta_crc = base_crc;
	r = snapfile_append(dl, &t, &s, err, sizeof(err));
	ok(r == 0 && !s.delta, "delta: a counter below its base: a full record");
	snapshot_free(&s);
	/* The base of a delta gone (its record spliced out): corruption. */
	if (!rb && raw && fb.nsnaps >= 3) {
		size_t a = (size_t)fb.snaps[1].offset, b = (size_t)fb.snaps[2].offset;
		struct snapfile f;

		o = fopen(cut, "w");
		if (o) {
			fwrite(raw, 1, a, o);
			fwrite(raw + b, 1, len - b, o);
			fclose(o);
		}
		r = snapfile_read(cut, &f, err, sizeof(err));
		ok(r < 0 && strstr(err, "corrupt: delta record 3 at offset") &&
		   strstr(err, "does not follow the snapshot it counts from"),
		   "delta: a delta whose base is gone is corruption: %s", err);
		if (!r)
			snapfile_free(&f);
	}
	free(raw);
	if (!ra)
		snapfile_free(&fa);
	if (!rb)
		snapfile_free(&fb);
	snap_table_free(&t);
	free(c);
	free(base);
	unlink(full);
	unlink(dl);
	unlink(cut);
	free(full);
	free(dl);
	free(cut);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--densify"))
		return densify(argv[2], argv[3]) ? 1 : 0;
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "--make-series"))
		return write_series(argv[2], atoi(argv[3]), atoi(argv[4]),
				    argc == 6 ? argv[5] : NULL) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "--make-fixture"))
		return write_fixture(argv[2]) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "--dump-vdso"))
		return dump_vdso(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--make-dynsym"))
		return write_dynsym_fixture(argv[2]) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "--plt-names"))
		return plt_names(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "--usym-names"))
		return usym_names(argc - 2, argv + 2);
	if (argc != 4 && argc != 6 && argc != 7 && argc != 8) {
		fprintf(stderr, "usage: unit_test DATADIR EXPECTDIR FAKEVMLINUX "
			"[USYM_PIE USYM_NOPIE [USYM_STRIP [MAPSYMPROG]]]\n");
		return 2;
	}
	datadir = argv[1];
	expectdir = argv[2];
	fakevmlinux = argv[3];
	if (argc >= 6) {
		usym_pie = argv[4];
		usym_nopie = argv[5];
	}
	if (argc >= 7)
		usym_strip = argv[6];
	if (argc == 8)
		mapsymprog = argv[7];
	/* no debug file from a server the environment names */
	unsetenv("DEBUGINFOD_URLS");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("TZ", "UTC", 1);
	test_libprf();
	test_kallsyms();
	test_namelist_fields();
	test_kept_namelist();
	test_mapping_symbols();
	test_system_map();
	test_elf();
	test_plt_names();
	test_cfi_unwind_rows();
	test_dedupe_find();
	test_buckets();
	test_snapshots();
	test_snapshot_ztable();
	test_snapshot_plain_table();
	test_snapshot_uobjs();
	test_uobj_snap_delta();
	test_uobj_snap_delta_pairs();
	test_uobj_snap_delta_pids();
	test_snapshot_uobjs_pid();
	test_snapshot_upairs();
	test_vdso();
	test_delta();
	if (!getenv("PRF_UNIT_QUICK"))
		test_day_size();
	test_report();
	test_off_hour();
	test_name_last();
	test_usym();
	test_perfmap();
	test_uobj_jit();
	test_demangle();
	rmdir(tmpdir);
	return tap_end();
}
