// SPDX-License-Identifier: GPL-2.0-only
/*
 * namelist - read kernel symbol tables and build the tables prfld loads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elffile.h"
#include "err.h"
#include "namelist.h"

void symtab_init(struct symtab *t)
{
	memset(t, 0, sizeof(*t));
}

void symtab_free(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].module);
	}
	free(t->v);
	symtab_init(t);
}

int symtab_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name,
	       const char *module, int kind, int rank)
{
	struct sym *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	s = &t->v[t->n];
	s->addr = addr;
	s->size = size;
	s->kind = (unsigned char)kind;
	s->rank = (unsigned char)rank;
	s->name = strdup(name ? name : "");
	s->module = module ? strdup(module) : NULL;
	if (!s->name || (module && !s->module)) {
		free(s->name);
		free(s->module);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

/* Which of two entries at one address names it: functions beat sentinels,
 * then the higher rank, then the smaller name (so the choice is stable). */
static int better(const struct sym *a, const struct sym *b)
{
	int c;

	if ((a->kind == SYM_SENTINEL) != (b->kind == SYM_SENTINEL))
		return b->kind == SYM_SENTINEL;
	if (a->rank != b->rank)
		return a->rank > b->rank;
	c = strcmp(a->name, b->name);
	return c < 0;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (better(a, b))
		return -1;
	if (better(b, a))
		return 1;
	return 0;
}

void symtab_sort_dedupe(struct symtab *t)
{
	size_t i, j = 0;

	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	for (i = 1; i < t->n; i++) {
		if (t->v[i].addr == t->v[j].addr) {
			/* The first of a run is the best: drop this alias. */
			if (!t->v[j].size)
				t->v[j].size = t->v[i].size;
			free(t->v[i].name);
			free(t->v[i].module);
			continue;
		}
		t->v[++j] = t->v[i];
	}
	t->n = j + 1;
}

long symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	/* First entry above addr, minus one. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* Alias preference: global over local, fewer leading underscores. */
static int alias_rank(const char *name, int global)
{
	int u = 0;

	while (name[u] == '_' && u < 3)
		u++;
	return (global ? 8 : 0) + (3 - u) + 1;
}

static int is_special(const char *name)
{
	return !strcmp(name, "_text") || !strcmp(name, "_stext") ||
	       !strcmp(name, "_etext");
}

static void note_special(struct symtab *t, const char *name, uint64_t addr)
{
	if (!strcmp(name, "_text"))
		t->text = addr;
	else if (!strcmp(name, "_stext"))
		t->stext = addr;
	else if (!strcmp(name, "_etext"))
		t->etext = addr;
}

int nl_is_elf(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	int elf = 0;

	if (!f)
		return 0;
	if (fread(m, 1, 4, f) == 4 && !memcmp(m, ELFMAG, SELFMAG))
		elf = 1;
	fclose(f);
	return elf;
}

/*
 * The padding before a function that kernels with call-depth tracking or
 * CFI emit (__pfx_NAME, __cfi_NAME): never a function of its own, and as many
 * as the functions on such a kernel, so the readers leave them out rather
 * than hold twice the symbols only for nl_load to drop half.
 */
static int padding(const char *name)
{
	return !strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6);
}

int nl_mapping_symbol(const char *name)
{
	if (name[0] != '$' || !name[1] || !strchr("adtx", name[1]))
		return 0;
	return !name[2] || name[2] == '.' ||
	       (name[1] == 'x' && name[2] == 'r' && name[3] == 'v');
}

/*
 * The next blank-separated field of the line at *p, NUL-terminated in
 * place, or NULL at its end: strtok_r(" \t") without its strspn and
 * strcspn, which with strtoull were half of prfld's own time in a guest
 * (a kernel's namelist is 150,000 lines and more).
 */
static char *next_field(char **p)
{
	char *s = *p, *e;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		*p = s;
		return NULL;
	}
	for (e = s; *e && *e != ' ' && *e != '\t'; e++)
		;
	if (*e)
		*e++ = '\0';
	*p = e;
	return s;
}

/*
 * The address field a, in hexadecimal: 1 to 16 digits read here, anything
 * else (a 0x prefix, a sign, too many digits) as strtoull(a, &end, 16)
 * reads it.  0, or -1 when the field is not a whole number.
 */
static int hex_field(const char *a, uint64_t *addr)
{
	uint64_t v = 0;
	const char *s;
	char *end;

	for (s = a; s - a < 16; s++) {
		unsigned int c = (unsigned char)*s, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		v = v << 4 | d;
	}
	if (s > a && !*s) {
		*addr = v;
		return 0;
	}
	errno = 0;
	*addr = strtoull(a, &end, 16);
	return *end || errno ? -1 : 0;
}

int nl_read_text(const char *path, struct symtab *t, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	FILE *f;
	ssize_t len;
	size_t i;
	int ret = 0;

	f = fopen(path, "r");
	if (!f) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *rest = line, *a, *ty, *name, *mod, shown[72];
		uint64_t addr;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		a = next_field(&rest);
		if (!a)
			continue;	/* blank line */
		ty = next_field(&rest);
		name = next_field(&rest);
		mod = next_field(&rest);
		if (!ty || !name || hex_field(a, &addr) || ty[1] ||
		    next_field(&rest) ||
		    (mod && (strlen(mod) < 3 || mod[0] != '[' ||
			     mod[strlen(mod) - 1] != ']'))) {
			/* the line as read: next_field cut it at its blanks */
			for (i = 0; i < (size_t)len; i++)
				if (!line[i])
					line[i] = ' ';
			snprintf(shown, sizeof(shown), "%s", line);
			seterr(err, errlen,
			       "%s:%lu: not a namelist line (want \"ADDRESS TYPE NAME [MODULE]\"): \"%s\"",
			       path, lineno, shown);
			ret = -1;
			break;
		}
		if (mod) {
			size_t ml = strlen(mod);

			mod[ml - 1] = '\0';
			mod++;
		}
		if (!mod && is_special(name))
			note_special(t, name, addr);
		if (!strchr("tTwW", ty[0]) || padding(name) || nl_mapping_symbol(name))
			continue;
		if (symtab_add(t, addr, 0, name, mod, SYM_FUNC,
			       alias_rank(name, ty[0] == 'T' || ty[0] == 'W'))) {
			seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

int nl_read_elf(const char *path, struct symtab *t, char *err, size_t errlen)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	size_t shnum, i, nsyms;
	Elf_Data *data;
	int fd, ret = -1;

	e = elf_file_open(path, ELF_C_READ, &fd, err, errlen);
	if (!e)
		return -1;
	if (elf_getshdrnum(e, &shnum)) {
		seterr(err, errlen, "%s: %s", path, elf_errmsg(-1));
		goto out;
	}
	/* The full symbol table; the dynamic one only when stripped. */
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB ||
		    (sh.sh_type == SHT_DYNSYM && !symscn)) {
			symscn = scn;
			symsh = sh;
		}
	}
	if (!symscn) {
		seterr(err, errlen, "%s: no symbol table (stripped?)", path);
		goto out;
	}
	data = elf_getdata(symscn, NULL);
	if (!data || !symsh.sh_entsize) {
		seterr(err, errlen, "%s: unreadable symbol table: %s", path,
		       elf_errmsg(-1));
		goto out;
	}
	nsyms = symsh.sh_size / symsh.sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym s;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &s))
			continue;
		name = elf_strptr(e, symsh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (is_special(name) && s.st_shndx != SHN_UNDEF)
			note_special(t, name, s.st_value);
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type != STT_FUNC || padding(name) || nl_mapping_symbol(name) ||
		    s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= shnum || s.st_shndx >= SHN_LORESERVE)
			continue;
		scn = elf_getscn(e, s.st_shndx);
		if (!scn || !gelf_getshdr(scn, &sh) ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (symtab_add(t, s.st_value, s.st_size, name, NULL, SYM_FUNC,
			       alias_rank(name, bind == STB_GLOBAL))) {
			seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
			goto out;
		}
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

void nl_free_modules(struct module_ext *mods, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(mods[i].name);
	free(mods);
}

int nl_read_modules(const char *path, struct module_ext **mods, size_t *n,
		    char *err, size_t errlen)
{
	struct module_ext *v = NULL;
	size_t cnt = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	*mods = NULL;
	*n = 0;
	f = fopen(path, "r");
	if (!f) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) >= 0) {
		char name[256], addr[64];
		unsigned long long size, base;
		struct module_ext *nv;

		/* name size refcount deps state address */
		if (sscanf(line, "%255s %llu %*s %*s %*s %63s", name, &size, addr) != 3)
			continue;
		base = strtoull(addr, NULL, 16);
		nv = realloc(v, (cnt + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[cnt].name = strdup(name);
		if (!v[cnt].name)
			break;
		v[cnt].base = base;
		v[cnt].size = size;
		cnt++;
	}
	free(line);
	fclose(f);
	*mods = v;
	*n = cnt;
	return 0;
}

int nl_kernel_syms(const char *kallsyms, const char *const *names, uint64_t *addrs,
		   size_t n, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, i, left = n;
	unsigned char *found = calloc(n ? n : 1, 1);
	FILE *f;

	if (!found) {
		seterr(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	f = fopen(kallsyms, "r");
	if (!f) {
		seterr(err, errlen, "%s: %s", kallsyms, strerror(errno));
		free(found);
		return -1;
	}
	while (left && getline(&line, &cap, f) >= 0) {
		unsigned long long a;
		char ty, name[128];
		int end = 0;

		/* the kernel's own symbols: no "[module]" after the name */
		if (sscanf(line, "%llx %c %127s%n", &a, &ty, name, &end) != 3 ||
		    strchr(line + end, '['))
			continue;
		for (i = 0; i < n; i++)
			if (!found[i] && !strcmp(name, names[i])) {
				addrs[i] = a;
				found[i] = 1;
				left--;
			}
	}
	free(line);
	fclose(f);
	for (i = 0; i < n && found[i]; i++)
		;
	free(found);
	if (i < n) {
		seterr(err, errlen, "%s: no %s symbol", kallsyms, names[i]);
		return -1;
	}
	return 0;
}

int nl_runtime_text(const char *kallsyms, uint64_t *text, char *err, size_t errlen)
{
	static const char *const name[] = { "_text" };

	*text = 0;
	if (nl_kernel_syms(kallsyms, name, text, 1, err, errlen))
		return -1;
	if (!*text) {
		seterr(err, errlen,
		       "%s shows zeroed addresses (kernel.kptr_restrict, or no CAP_SYSLOG): "
		       "run as root, or with CAP_SYSLOG, and kptr_restrict below 2", kallsyms);
		return -1;
	}
	return 0;
}

int nl_sched_text(const char *kallsyms, uint64_t *start, uint64_t *end, char *err,
		  size_t errlen)
{
	static const char *const names[] = { "__sched_text_start", "__sched_text_end" };
	uint64_t a[2] = { 0, 0 };

	*start = *end = 0;
	if (nl_kernel_syms(kallsyms, names, a, 2, err, errlen))
		return -1;
	if (!a[0] || !a[1]) {
		seterr(err, errlen,
		       "%s shows zeroed addresses (kernel.kptr_restrict, or no CAP_SYSLOG): "
		       "run as root, or with CAP_SYSLOG, and kptr_restrict below 2", kallsyms);
		return -1;
	}
	if (a[0] > a[1]) {
		seterr(err, errlen, "%s: __sched_text_start (%llx) above __sched_text_end (%llx)",
		       kallsyms, (unsigned long long)a[0], (unsigned long long)a[1]);
		return -1;
	}
	*start = a[0];
	*end = a[1];
	return 0;
}

char *nl_sentinel_name(const char *module)
{
	char *s = NULL;

	if (asprintf(&s, "[outside %s text]", module ? module : "kernel") < 0)
		return NULL;
	return s;
}

/* Is module (NULL: the kernel) selected by the -m list? */
static int selected(const char *only, const char *module, int keep_pseudo)
{
	const char *want = module ? module : "kernel";
	size_t wl = strlen(want);
	const char *p;

	if (!only) {
		if (module && !keep_pseudo &&
		    (!strncmp(module, "__builtin__", 11) || !strcmp(module, "bpf")))
			return 0;
		return 1;
	}
	for (p = only; *p;) {
		size_t l = strcspn(p, ",");

		if (l == wl && !strncmp(p, want, l))
			return 1;
		p += l;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int cmp_addr_only(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return 0;
}

static int same_mod(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/*
 * The kernel's modules (path: --proc-modules; NULL: /proc/modules) as one
 * hash of each line's name, size, state and base address (not its
 * references, which change all the time): 0, or -1 when unreadable.
 */
int modules_sig(const char *path, uint64_t *sig)
{
	FILE *f = fopen(path ? path : "/proc/modules", "re");
	char *line = NULL;
	size_t cap = 0;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		char name[256], size[32], state[32], addr[64];
		const char *parts[4] = { name, size, state, addr };
		size_t i;

		/* name size refcount deps state address */
		if (sscanf(line, "%255s %31s %*s %*s %31s %63s", name, size, state, addr) != 4)
			continue;
		for (i = 0; i < 4; i++) {
			const unsigned char *q = (const void *)parts[i];

			do {
				h ^= *q;
				h *= 0x100000001b3ULL;
			} while (*q++);
		}
	}
	free(line);
	fclose(f);
	*sig = h;
	return 0;
}

/*
 * The last text namelist read, kept for the process while nl_keep_text()
 * says so.  prf record reads /proc/kallsyms for its table, again to name
 * it, and again for its stacks: each read of a kernel's 200,000 lines is a
 * tenth of a second of system time on a real machine, a second or more
 * under QEMU's TCG.  The symbols are used again while the file is the same
 * (device, inode, size and modification time: a file given with --kallsyms
 * that changed is read again) and the kernel's modules are the same
 * (modules_sig: a module loaded or removed changes /proc/kallsyms, whose
 * own times say nothing).  Symbols that come without a module of their own
 * (a BPF program loaded meanwhile) are seen at the next module change or
 * the next command.  The daemon, which runs for weeks, keeps none.
 *
 * One for the process, under kept.lock, which nl_load() holds from the
 * lookup until it is done with the symbols it borrowed (their strings are
 * the cache's).
 */
static struct {
	pthread_mutex_t lock;
	int on;
	char *path;
	struct stat st;
	uint64_t sig;
	struct symtab t;
} kept = { .lock = PTHREAD_MUTEX_INITIALIZER };

void nl_keep_text(int on)
{
	pthread_mutex_lock(&kept.lock);
	kept.on = on;
	if (!on) {
		symtab_free(&kept.t);
		free(kept.path);
		kept.path = NULL;
	}
	pthread_mutex_unlock(&kept.lock);
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
 * nl_read_text() into raw, or the kept copy's symbols lent to it (*lent
 * set, kept.lock held until unlend_text()).
 */
static int read_text_kept(const char *path, const char *modules, struct symtab *raw,
			  int *lent, char *err, size_t errlen)
{
	struct stat st;
	uint64_t sig = 0;

	*lent = 0;
	pthread_mutex_lock(&kept.lock);
	if (!kept.on || stat(path, &st)) {
		pthread_mutex_unlock(&kept.lock);
		return nl_read_text(path, raw, err, errlen);
	}
	if (modules_sig(modules, &sig))
		sig = 0;	/* none readable: the same none each time */
	if (!kept.path || strcmp(kept.path, path) || !same_file(&kept.st, &st) ||
	    kept.sig != sig) {
		symtab_free(&kept.t);
		free(kept.path);
		kept.path = NULL;
		if (nl_read_text(path, &kept.t, err, errlen)) {
			symtab_free(&kept.t);
			pthread_mutex_unlock(&kept.lock);
			return -1;
		}
		kept.path = strdup(path);
		kept.st = st;
		kept.sig = sig;
	}
	*raw = kept.t;
	raw->v = malloc((kept.t.n ? kept.t.n : 1) * sizeof(*raw->v));
	if (!raw->v) {
		symtab_init(raw);
		pthread_mutex_unlock(&kept.lock);
		seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -1;
	}
	memcpy(raw->v, kept.t.v, kept.t.n * sizeof(*raw->v));
	raw->cap = kept.t.n;
	*lent = 1;
	return 0;
}

/* Gives back what read_text_kept() lent (the array is raw's own). */
static void unlend_text(struct symtab *raw)
{
	free(raw->v);
	symtab_init(raw);
	pthread_mutex_unlock(&kept.lock);
}

int nl_load(const char *path, const struct nl_opts *o, struct symtab *out,
	    char *err, size_t errlen)
{
	struct symtab raw;
	struct module_ext *mods = NULL;
	size_t nmods = 0, i, j;
	int elf, zero = 1, ret = -1, is_ref, lent = 0;
	int64_t off = 0;
	uint64_t lo, hi;
	const char *ref = o && o->kallsyms ? o->kallsyms : "/proc/kallsyms";
	const char *only = o ? o->only : NULL;
	int keep_pseudo = o ? o->keep_pseudo : 0;
	char merr[NL_ERRLEN];

	symtab_init(&raw);
	symtab_init(out);
	elf = nl_is_elf(path);
	if (elf ? nl_read_elf(path, &raw, err, errlen) :
		  read_text_kept(path, o ? o->modules : NULL, &raw, &lent, err, errlen))
		goto done;
	for (i = 0; i < raw.n && zero; i++)
		if (raw.v[i].addr)
			zero = 0;
	if (zero) {
		if (!raw.n)
			seterr(err, errlen, "%s: no text symbols", path);
		else
			seterr(err, errlen,
			       "%s shows zeroed addresses (kernel.kptr_restrict, or no CAP_SYSLOG): "
			       "run as root, or with CAP_SYSLOG, and kptr_restrict below 2", path);
		goto done;
	}
	/* The KASLR offset: nothing to do for the running kallsyms itself. */
	is_ref = !elf && !strcmp(path, ref);
	if (o && o->have_offset) {
		off = o->offset;
	} else if (o && o->target_text) {
		if (!raw.text) {
			seterr(err, errlen, "%s: no _text symbol, cannot relocate it", path);
			goto done;
		}
		off = (int64_t)(o->target_text - raw.text);
	} else if (!is_ref) {
		uint64_t rt;

		if (!raw.text) {
			seterr(err, errlen,
			       "%s: no _text symbol, cannot apply the KASLR offset "
			       "(give it with --kaslr-offset)", path);
			goto done;
		}
		if (nl_runtime_text(ref, &rt, err, errlen))
			goto done;
		off = (int64_t)(rt - raw.text);
	}
	if (raw.text)
		raw.text += off;
	if (raw.stext)
		raw.stext += off;
	if (raw.etext)
		raw.etext += off;
	lo = raw.stext ? raw.stext : raw.text;
	hi = raw.etext;
	out->text = raw.text;
	out->stext = raw.stext;
	out->etext = raw.etext;

	/* Relocate the kernel's own symbols (module ones are where they are). */
	for (i = 0; i < raw.n; i++)
		if (!raw.v[i].module)
			raw.v[i].addr += off;
	qsort(raw.v, raw.n, sizeof(*raw.v), cmp_addr_only);

	if (o && o->modules && nl_read_modules(o->modules, &mods, &nmods,
					       merr, sizeof(merr)))
		nmods = 0;	/* no module extents: no module sentinels */

	for (i = 0; i < raw.n; i++) {
		const struct sym *s = &raw.v[i];

		if (!s->module && ((lo && s->addr < lo) || (hi && s->addr >= hi)))
			continue;	/* init text, entry trampolines past _etext */
		if (!selected(only, s->module, keep_pseudo))
			continue;
		if (symtab_add(out, s->addr, s->size, s->name, s->module, SYM_FUNC,
			       s->rank))
			goto nomem;
	}

	/* The kernel's sentinel: _etext, else the end of the last function. */
	if (selected(only, NULL, keep_pseudo)) {
		uint64_t end = hi;

		if (!end)
			for (i = 0; i < out->n; i++)
				if (!out->v[i].module && out->v[i].size &&
				    out->v[i].addr + out->v[i].size > end)
					end = out->v[i].addr + out->v[i].size;
		if (end) {
			char *nm = nl_sentinel_name(NULL);

			if (!nm || symtab_add(out, end, 0, nm, NULL, SYM_SENTINEL, 0)) {
				free(nm);
				goto nomem;
			}
			free(nm);
		}
	}

	/* One sentinel after each module's text. */
	for (i = 0; i < raw.n; i = j) {
		const char *m = raw.v[i].module;
		uint64_t last = 0, end = 0, next = 0;
		size_t k;

		/* Symbols are address-sorted; a module's text may be split. */
		for (j = i; j < raw.n && same_mod(raw.v[j].module, m); j++)
			;
		if (!m || !selected(only, m, keep_pseudo))
			continue;
		/* Done already when an earlier run of this module was seen. */
		for (k = 0; k < i; k++)
			if (same_mod(raw.v[k].module, m))
				break;
		if (k < i)
			continue;
		for (k = i; k < raw.n; k++) {
			if (!same_mod(raw.v[k].module, m))
				continue;
			if (raw.v[k].addr >= last)
				last = raw.v[k].addr;
			if (raw.v[k].size && raw.v[k].addr + raw.v[k].size > end)
				end = raw.v[k].addr + raw.v[k].size;
		}
		for (k = 0; k < nmods; k++) {
			if (!strcmp(mods[k].name, m) && mods[k].base <= last &&
			    mods[k].base + mods[k].size > last) {
				end = mods[k].base + mods[k].size;
				break;
			}
		}
		if (end <= last)
			continue;	/* extent unknown: no sentinel */
		/* Never past the next symbol of someone else. */
		for (k = 0; k < raw.n; k++)
			if (raw.v[k].addr > last && !same_mod(raw.v[k].module, m) &&
			    (!next || raw.v[k].addr < next))
				next = raw.v[k].addr;
		if (next && end > next)
			end = next;
		{
			char *nm = nl_sentinel_name(m);

			if (!nm || symtab_add(out, end, 0, nm, m, SYM_SENTINEL, 0)) {
				free(nm);
				goto nomem;
			}
			free(nm);
		}
	}
	symtab_sort_dedupe(out);
	ret = 0;
	goto done;
nomem:
	seterr(err, errlen, "%s: %s", path, strerror(ENOMEM));
	symtab_free(out);
done:
	nl_free_modules(mods, nmods);
	if (lent)
		unlend_text(&raw);
	else
		symtab_free(&raw);
	return ret;
}

int nl_buckets(uint64_t start, uint64_t end, uint64_t step, size_t max,
	       struct symtab *out, char *err, size_t errlen)
{
	uint64_t a, count;

	symtab_init(out);
	if (!step) {
		seterr(err, errlen, "--step: the bucket size must be positive");
		return -1;
	}
	if (end <= start) {
		seterr(err, errlen, "--range: empty range 0x%" PRIx64 "-0x%" PRIx64,
		       start, end);
		return -1;
	}
	count = (end - start + step - 1) / step + 1;
	if (max && count > max) {
		seterr(err, errlen,
		       "--step %" PRIu64 " over 0x%" PRIx64 "-0x%" PRIx64
		       " needs %" PRIu64 " addresses, the device holds at most %zu: "
		       "use a larger step or a smaller range",
		       step, start, end, count, max);
		return -1;
	}
	for (a = start; a < end; a += step) {
		if (symtab_add(out, a, step, "", NULL, SYM_BUCKET, 0))
			goto nomem;
		if (a + step < a)
			break;	/* wrapped */
	}
	if (symtab_add(out, end, 0, "", NULL, SYM_SENTINEL, 0))
		goto nomem;
	return 0;
nomem:
	seterr(err, errlen, "%s", strerror(ENOMEM));
	symtab_free(out);
	return -1;
}

int nl_describe(const struct symtab *t, uint64_t addr, char **name,
		char **module, int *kind)
{
	long i = t ? symtab_find(t, addr) : -1;
	const struct sym *s = i >= 0 ? &t->v[i] : NULL;
	int r;

	*name = NULL;
	*module = NULL;
	if (s && s->addr == addr) {
		*kind = s->kind;
		*name = strdup(s->name);
	} else if (s && s->kind == SYM_FUNC) {
		*kind = SYM_BUCKET;
		r = asprintf(name, "%s+0x%" PRIx64, s->name, addr - s->addr);
		if (r < 0)
			*name = NULL;
	} else {
		s = NULL;
		*kind = SYM_UNKNOWN;
		r = asprintf(name, "0x%" PRIx64, addr);
		if (r < 0)
			*name = NULL;
	}
	if (!*name)
		return -ENOMEM;
	if (s && s->module) {
		*module = strdup(s->module);
		if (!*module) {
			free(*name);
			*name = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}
