// SPDX-License-Identifier: GPL-2.0-only
/*
 * usym - user symbols for PRF_FLAG_USERPC tables.  See usym.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifndef PRF_NO_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "elffile.h"
#include "err.h"
#include "usym.h"

void usym_free_maps(struct umap *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].open_path);
	}
	free(v);
}

int usym_read_maps(const char *maps, struct umap **v, size_t *n, char *err, size_t errlen)
{
	FILE *f = fopen(maps, "re");
	char *line = NULL;
	size_t cap = 0, room = *n;
	int ret = 0;

	if (!f) {
		seterr(err, errlen, "%s: %s", maps, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off;
		char perms[8];
		int pos = 0, deleted;
		char *path, *nl;
		struct umap *nv;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
			   &pos) != 4 || !pos)
			continue;
		path = line + pos;
		nl = strchr(path, '\n');
		if (nl)
			*nl = '\0';
		if (!strchr(perms, 'x') || path[0] != '/' || end <= start)
			continue;
		deleted = strlen(path) > 10 && !strcmp(path + strlen(path) - 10, " (deleted)");
		if (deleted)
			path[strlen(path) - 10] = '\0';
		if (*n == room) {
			room = room ? 2 * room : 16;
			nv = realloc(*v, room * sizeof(**v));
			if (!nv) {
				ret = -1;
				break;
			}
			*v = nv;
		}
		(*v)[*n].start = start;
		(*v)[*n].end = end;
		(*v)[*n].offset = off;
		(*v)[*n].deleted = deleted;
		(*v)[*n].open_path = NULL;
		(*v)[*n].path = strdup(path);
		if (!(*v)[*n].path) {
			ret = -1;
			break;
		}
		(*n)++;
	}
	if (ret)
		seterr(err, errlen, "%s: %s", maps, strerror(ENOMEM));
	free(line);
	fclose(f);
	return ret;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Global before weak before local, fewer leading underscores. */
static int user_rank(const char *name, int bind)
{
	int u = 0;

	while (name[u] == '_' && u < 3)
		u++;
	return (bind == STB_GLOBAL ? 16 : bind == STB_WEAK ? 8 : 0) + (3 - u) + 1;
}

static int add_sentinel(struct symtab *t, uint64_t addr, const char *mod)
{
	char *nm = nl_sentinel_name(mod);
	int ret;

	if (!nm)
		return -ENOMEM;
	ret = symtab_add(t, addr, 0, nm, mod, SYM_SENTINEL, 0);
	free(nm);
	return ret;
}

/*
 * The load bias of e mapped as m: a PT_LOAD segment whose file bytes the
 * mapping covers (the executable one first) puts file offset p_offset at
 * p_vaddr + bias; the mapping puts file offset m->offset at m->start.
 */
static int load_bias(Elf *e, const struct umap *m, int64_t *bias)
{
	GElf_Ehdr eh;
	size_t i, nph;
	int pass;

	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph))
		return -1;
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (!pass && !(ph.p_flags & PF_X))
				continue;
			if (m->offset >= ph.p_offset + ph.p_filesz ||
			    m->offset + (m->end - m->start) <= ph.p_offset)
				continue;
			*bias = (int64_t)(m->start - ph.p_vaddr + ph.p_offset - m->offset);
			return 0;
		}
	return -1;
}

/* @e's GNU build ID in lowercase hex into @hex (@len bytes); 0, or -1 without one. */
static int elf_build_id(Elf *e, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, name, desc, i;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		for (off = 0; d && (off = gelf_getnote(d, off, &nh, &name, &desc)) > 0;) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name, "GNU", 4))
				continue;
			if (!nh.n_descsz || 2 * (size_t)nh.n_descsz + 1 > len)
				return -1;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x",
					 ((const unsigned char *)d->d_buf)[desc + i]);
			return 0;
		}
	}
	return -1;
}

int usym_build_id(const char *path, char *hex, size_t len)
{
	int fd, ret = -1;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		ret = elf_build_id(e, hex, len);
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* @fmt noted in @dbg as the candidate refused, unless one is already. */
static void __attribute__((format(printf, 2, 3)))
refuse(struct usym_debug *dbg, const char *fmt, ...)
{
	va_list ap;

	if (dbg->refused)
		return;
	va_start(ap, fmt);
	if (vasprintf(&dbg->refused, fmt, ap) < 0)
		dbg->refused = NULL;
	va_end(ap);
}

/*
 * @fd's ELF (the file at @path) when its build ID is @id (the object's: a
 * debug file of another build would name the wrong code); else NULL, @fd
 * closed, the file noted as refused in @dbg.
 */
static Elf *elf_of_build(int fd, const char *id, const char *path, struct usym_debug *dbg)
{
	char id2[2 * 64 + 1] = "";
	Elf *d = elf_begin(fd, ELF_C_READ, NULL);

	if (d && elf_kind(d) == ELF_K_ELF && !elf_build_id(d, id2, sizeof(id2)) &&
	    !strcmp(id, id2))
		return d;
	refuse(dbg, "%s: build ID %s, not the file's", path, *id2 ? id2 : "none");
	if (d)
		elf_end(d);
	close(fd);
	return NULL;
}

#ifndef PRF_NO_DEBUGINFOD
/*
 * Debug files fetched from the debuginfod servers $DEBUGINFOD_URLS names,
 * by build ID, through libdebuginfod (which keeps them in its cache,
 * $DEBUGINFOD_CACHE_PATH or ~/.cache/debuginfod_client, and answers from
 * it first).  Every query of the process shares one time limit,
 * $DEBUGINFOD_TIMEOUT seconds, else USYM_DEBUGINFOD_LIMIT_S, counted from
 * its first query: the progress callback ends a transfer past it, and once
 * it is spent no query is made again, so a dead or slow server costs a
 * report the limit once, not once a file.  A prf process makes one report
 * (prf top's refreshes share the limit).  The files the limit left
 * unnamed (their query cut, or not made) are counted once each, by build
 * ID; usym_debuginfod_note() says how many, and the process says it on
 * stderr once, at its exit (dinfo_atexit).  The client, the deadline and
 * the count are the process's, under dinfo_lock (a query holds it: they
 * run one at a time).
 */
#define USYM_DEBUGINFOD_LIMIT_S 5
/* Build IDs remembered to count each file left unnamed once (then "more than"). */
#define USYM_DEBUGINFOD_MISSED_MAX 4096

static pthread_mutex_t dinfo_lock = PTHREAD_MUTEX_INITIALIZER;
static debuginfod_client *dinfo;
static struct timespec dinfo_deadline;
static long dinfo_secs;
static int dinfo_started, dinfo_spent, dinfo_timed_out;
static pid_t dinfo_pid;			/* who says it at exit (not a forked child) */
static uint64_t *dinfo_missed;		/* hashes of the build IDs left unnamed */
static size_t dinfo_nmissed;
static int dinfo_more;			/* missed more than USYM_DEBUGINFOD_MISSED_MAX */

/* At exit: the note on stderr, when the limit left a file unnamed. */
static void dinfo_atexit(void)
{
	char buf[160];

	if (getpid() == dinfo_pid && usym_debuginfod_note(buf, sizeof(buf)))
		fprintf(stderr, "%s\n", buf);
}

/* Build ID @id left unnamed by the limit: counted once (dinfo_lock held). */
static void dinfo_miss(const char *id)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	uint64_t *nv;
	size_t i;

	if (!dinfo_timed_out) {
		dinfo_timed_out = 1;
		dinfo_pid = getpid();
		atexit(dinfo_atexit);
	}
	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 1099511628211ull;
	for (i = 0; i < dinfo_nmissed; i++)
		if (dinfo_missed[i] == h)
			return;
	if (dinfo_nmissed == USYM_DEBUGINFOD_MISSED_MAX) {
		dinfo_more = 1;
		return;
	}
	nv = realloc(dinfo_missed, (dinfo_nmissed + 1) * sizeof(*nv));
	if (!nv) {
		dinfo_more = 1;
		return;
	}
	dinfo_missed = nv;
	dinfo_missed[dinfo_nmissed++] = h;
}

int usym_debuginfod_note(char *buf, size_t len)
{
	long secs;
	size_t n;
	int more;

	pthread_mutex_lock(&dinfo_lock);
	n = dinfo_nmissed;
	more = dinfo_more;
	secs = dinfo_secs;
	pthread_mutex_unlock(&dinfo_lock);
	if (!n && !more)
		return 0;
	snprintf(buf, len, "debuginfod: no answer within %ld s (DEBUGINFOD_TIMEOUT); %s%zu %s",
		 secs, more ? "more than " : "", n,
		 n == 1 && !more ? "file left unnamed" : "files left unnamed");
	return 1;
}

static int dinfo_past_deadline(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > dinfo_deadline.tv_sec ||
	       (now.tv_sec == dinfo_deadline.tv_sec && now.tv_nsec >= dinfo_deadline.tv_nsec);
}

/* libdebuginfod's progress callback: nonzero ends the transfer. */
static int dinfo_progress(debuginfod_client *c, long a, long b)
{
	(void)c;
	(void)a;
	(void)b;
	return dinfo_past_deadline();
}

/* The debug file of build ID @id from a debuginfod server, into @dbg (else @dbg->e NULL). */
static void debuginfod_elf(const char *id, struct usym_debug *dbg)
{
	const char *urls = getenv("DEBUGINFOD_URLS"), *lim;
	char *end, *path = NULL;
	long secs;
	Elf *d = NULL;
	int fd;

	if (!urls || !*urls)
		return;
	pthread_mutex_lock(&dinfo_lock);
	if (dinfo_spent)
		goto missed;
	if (!dinfo_started) {
		dinfo_started = 1;
		lim = getenv("DEBUGINFOD_TIMEOUT");
		secs = lim ? strtol(lim, &end, 10) : 0;
		if (!lim || end == lim || *end || secs <= 0 || secs > 86400)
			secs = USYM_DEBUGINFOD_LIMIT_S;
		clock_gettime(CLOCK_MONOTONIC, &dinfo_deadline);
		dinfo_deadline.tv_sec += secs;
		dinfo_secs = secs;
		dinfo = debuginfod_begin();
		if (dinfo)
			debuginfod_set_progressfn(dinfo, dinfo_progress);
	}
	if (!dinfo)
		goto out;
	if (dinfo_past_deadline()) {
		dinfo_spent = 1;
		goto missed;
	}
	fd = debuginfod_find_debuginfo(dinfo, (const unsigned char *)id, 0, &path);
	if (dinfo_past_deadline())
		dinfo_spent = 1;
	if (fd >= 0) {
		d = elf_of_build(fd, id, path ? path : "debuginfod", dbg);
		if (d) {
			dbg->e = d;
			dbg->fd = fd;
			dbg->how = USYM_DEBUG_FETCHED;
			dbg->path = path;
			path = NULL;
		}
	}
	free(path);
	if (d || !dinfo_spent)
		goto out;
missed:
	dinfo_miss(id);
out:
	pthread_mutex_unlock(&dinfo_lock);
}
#else
static void debuginfod_elf(const char *id, struct usym_debug *dbg)
{
	(void)id;
	(void)dbg;
}

int usym_debuginfod_note(char *buf, size_t len)
{
	(void)buf;
	(void)len;
	return 0;
}
#endif

/*
 * The separate debug file of @e, as gdb and perf find it: by build ID,
 * DIR/.build-id/xx/rest.debug, where DIR is $PRF_DEBUG_DIR or else
 * /usr/lib/debug under @root (Debian's -dbgsym packages install there).
 * Only a file with the same build ID is taken (one of another build of the
 * object would name the wrong code): into @dbg (else @dbg->e NULL).
 */
static void debug_elf(Elf *e, const char *root, struct usym_debug *dbg)
{
	const char *dir = getenv("PRF_DEBUG_DIR");
	char id[2 * 64 + 1], *path = NULL;
	Elf *d;
	int fd;

	if (elf_build_id(e, id, sizeof(id)) || strlen(id) < 4)
		return;
	if (asprintf(&path, "%s%s/.build-id/%.2s/%s.debug", dir ? "" : root ? root : "",
		     dir ? dir : "/usr/lib/debug", id, id + 2) < 0)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	d = fd < 0 ? NULL : elf_of_build(fd, id, path, dbg);
	if (!d) {
		free(path);
		return;
	}
	dbg->e = d;
	dbg->fd = fd;
	dbg->how = USYM_DEBUG_BUILD_ID;
	dbg->path = path;
}

/* @e's debug file from a debuginfod server, by its build ID (debuginfod_elf()). */
static void fetched_debug_elf(Elf *e, struct usym_debug *dbg)
{
	char id[2 * 64 + 1];

	if (elf_build_id(e, id, sizeof(id)) || strlen(id) < 4)
		return;
	debuginfod_elf(id, dbg);
}

/* The CRC-32 (zlib's, as .gnu_debuglink records it) of the file at @fd. */
static int file_crc32(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	off_t off = 0;
	ssize_t r;

	while ((r = pread(fd, buf, sizeof(buf), off)) > 0) {
		c = crc32(c, buf, (uInt)r);
		off += r;
	}
	if (r < 0)
		return -1;
	*crc = (uint32_t)c;
	return 0;
}

/*
 * @e's .gnu_debuglink: the debug file's name (in @e's data) and the CRC-32
 * of its bytes, stored after the name's NUL at the next 4-byte boundary, in
 * @e's byte order; NULL without a well-formed one.
 */
static const char *debuglink_of(Elf *e, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	size_t shstr, len, at;
	GElf_Shdr sh;
	Elf_Data *d;
	unsigned char *b;
	const char *sn;

	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		sn = elf_strptr(e, shstr, sh.sh_name);
		if (!sn || strcmp(sn, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return NULL;
		b = d->d_buf;
		len = strnlen((const char *)b, d->d_size);
		at = (len + 4) & ~(size_t)3;
		if (!len || len == d->d_size || at + 4 > d->d_size || memchr(b, '/', len))
			return NULL;
		if (elf_getident(e, NULL)[EI_DATA] == ELFDATA2MSB)
			*crc = (uint32_t)b[at] << 24 | (uint32_t)b[at + 1] << 16 |
			       (uint32_t)b[at + 2] << 8 | b[at + 3];
		else
			*crc = (uint32_t)b[at + 3] << 24 | (uint32_t)b[at + 2] << 16 |
			       (uint32_t)b[at + 1] << 8 | b[at];
		return (const char *)b;
	}
	return NULL;
}

/*
 * The debug file @e's .gnu_debuglink names, where gdb and elfutils look for
 * it: beside the object (@path, as the process sees it, under @root), in a
 * .debug directory there, and under the global debug directory
 * ($PRF_DEBUG_DIR, else root + /usr/lib/debug) followed by the object's own
 * directory.  Only a file whose CRC-32 is the one the link records is taken
 * (another build's file would name the wrong code; one of another CRC is
 * noted as refused), never the object itself (@self: its descriptor).  Into
 * @dbg (else @dbg->e NULL).
 */
static void debuglink_elf(Elf *e, int self, const char *root, const char *path,
			  struct usym_debug *dbg)
{
	const char *gdir = getenv("PRF_DEBUG_DIR"), *name, *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path) : 0, i, fd;
	struct stat ss, st;
	uint32_t want, crc;
	char *cand;
	Elf *d;

	name = debuglink_of(e, &want);
	if (!name || !slash || fstat(self, &ss))
		return;
	if (!root)
		root = "";
	for (i = 0; i < 3; i++) {
		int r;

		if (i == 0)
			r = asprintf(&cand, "%s%.*s/%s", root, dlen, path, name);
		else if (i == 1)
			r = asprintf(&cand, "%s%.*s/.debug/%s", root, dlen, path, name);
		else
			r = asprintf(&cand, "%s%s%.*s/%s", gdir ? "" : root,
				     gdir ? gdir : "/usr/lib/debug", dlen, path, name);
		if (r < 0)
			return;
		fd = open(cand, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) ||
		    (st.st_dev == ss.st_dev && st.st_ino == ss.st_ino) || file_crc32(fd, &crc))
			goto next;
		if (crc != want) {
			refuse(dbg, "%s: CRC-32 %08x, not the .gnu_debuglink's %08x", cand,
			       crc, want);
			goto next;
		}
		d = elf_begin(fd, ELF_C_READ, NULL);
		if (d && elf_kind(d) == ELF_K_ELF) {
			dbg->e = d;
			dbg->fd = fd;
			dbg->how = USYM_DEBUG_LINK;
			dbg->path = cand;
			return;
		}
		if (d)
			elf_end(d);
next:
		if (fd >= 0)
			close(fd);
		free(cand);
	}
}

void usym_debug_file(Elf *e, int fd, const char *root, const char *path,
		     struct usym_debug *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	debug_elf(e, root, d);
	if (!d->e)
		debuglink_elf(e, fd, root, path, d);
	if (!d->e)
		fetched_debug_elf(e, d);
}

void usym_debug_end(struct usym_debug *d)
{
	if (d->e)
		elf_end(d->e);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d->refused);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

/* @e's .symtab, else its .dynsym (NULL: neither); its header into @sh. */
static Elf_Scn *symbols_of(Elf *e, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *found = NULL;
	GElf_Shdr h;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &h))
			continue;
		if (h.sh_type == SHT_SYMTAB || (h.sh_type == SHT_DYNSYM && !found)) {
			found = scn;
			*sh = h;
		}
	}
	return found;
}

/* The function symbols that name an object's code (funcsyms_of()). */
struct funcsyms {
	Elf *se;		/* the ELF whose string table names them */
	GElf_Shdr sh;
	Elf_Data *data;		/* NULL: none */
	size_t n;
	int dynsym;		/* from .dynsym alone: names marked (usym_mark()) */
};

/*
 * @e's .symtab, else its debug file's (usym_debug_file(): @path is the
 * object as the process sees it under @root, @fd its descriptor; @dbg then
 * holds it, for the caller to end with usym_debug_end()), else its
 * .dynsym.  A stripped object's .dynsym names its exported functions
 * alone; its debug file names them all, at the same link-time addresses.
 */
static void funcsyms_of(Elf *e, int fd, const char *root, const char *path,
			struct funcsyms *fs, struct usym_debug *dbg)
{
	Elf_Scn *scn, *dscn;
	GElf_Shdr dsh;

	memset(fs, 0, sizeof(*fs));
	memset(dbg, 0, sizeof(*dbg));
	dbg->fd = -1;
	fs->se = e;
	scn = symbols_of(e, &fs->sh);
	if (!scn || fs->sh.sh_type != SHT_SYMTAB) {
		usym_debug_file(e, fd, root, path, dbg);
		dscn = dbg->e ? symbols_of(dbg->e, &dsh) : NULL;
		if (dscn && dsh.sh_type == SHT_SYMTAB) {
			scn = dscn;
			fs->sh = dsh;
			fs->se = dbg->e;
		}
	}
	fs->data = scn ? elf_getdata(scn, NULL) : NULL;
	fs->n = fs->data && fs->sh.sh_entsize ? fs->sh.sh_size / fs->sh.sh_entsize : 0;
	fs->dynsym = scn && fs->sh.sh_type == SHT_DYNSYM;
}

/*
 * Add @name as @fs found it: a name from .dynsym alone ends in
 * USYM_DYNSYM_MARK, in every output, since it may be the nearest exported
 * symbol below a static function rather than the function.
 */
static int add_func(struct symtab *t, const struct funcsyms *fs, uint64_t addr,
		    const GElf_Sym *s, const char *name, const char *mod)
{
	char *marked = NULL;
	int ret;

	if (fs->dynsym && asprintf(&marked, "%s" USYM_DYNSYM_MARK, name) < 0)
		return -ENOMEM;
	ret = symtab_add(t, addr, s->st_size, marked ? marked : name, mod, SYM_FUNC,
			 user_rank(name, GELF_ST_BIND(s->st_info)));
	free(marked);
	return ret;
}

/*
 * Is symbol @s, of no type, code: sized, not local, in a section of code
 * (what assembly without .type declares: the vDSO's
 * __kernel_rt_sigreturn on arm64)?
 */
static int untyped_code(const struct funcsyms *fs, const GElf_Sym *s)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (!s->st_size || GELF_ST_BIND(s->st_info) == STB_LOCAL ||
	    s->st_shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(fs->se, s->st_shndx);
	/* (a separate debug file's code sections are NOBITS, flags kept) */
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Symbol @i into @s, and its name when it is a defined function (else NULL,
 * mapping symbols too: nl_mapping_symbol()). */
static const char *funcsym(const struct funcsyms *fs, size_t i, GElf_Sym *s)
{
	const char *name;
	int type;

	if (!gelf_getsym(fs->data, (int)i, s) || s->st_shndx == SHN_UNDEF || !s->st_value)
		return NULL;
	type = GELF_ST_TYPE(s->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC &&
	    (type != STT_NOTYPE || !untyped_code(fs, s)))
		return NULL;
	name = elf_strptr(fs->se, fs->sh.sh_link, s->st_name);
	return name && *name && !nl_mapping_symbol(name) ? name : NULL;
}

/*
 * A PLT entry into the table (elf_plt_entries()'s callback): at its
 * link-time address moved by .bias, where .lo <= it < .hi (a mapping's
 * addresses); or, with .ph, at its file offset, through the executable
 * PT_LOAD that holds it.  -1 out of memory.
 */
struct plt_add {
	struct symtab *t;
	const char *mod;
	int64_t bias;
	uint64_t lo, hi;
	const GElf_Phdr *ph;
	size_t nph;
	int added;
};

static int plt_add(void *arg, uint64_t addr, uint64_t size, const char *name)
{
	struct plt_add *p = arg;
	uint64_t a = addr + (uint64_t)p->bias;
	size_t j;

	if (p->ph) {
		for (j = 0; j < p->nph; j++)
			if (p->ph[j].p_type == PT_LOAD && (p->ph[j].p_flags & PF_X) &&
			    addr >= p->ph[j].p_vaddr && addr < p->ph[j].p_vaddr + p->ph[j].p_filesz)
				break;
		if (j == p->nph)
			return 0;
		a = addr - p->ph[j].p_vaddr + p->ph[j].p_offset;
	} else if (a < p->lo || a >= p->hi) {
		return 0;
	}
	if (symtab_add(p->t, a, size, name, p->mod, SYM_FUNC, user_rank(name, STB_LOCAL)))
		return -1;
	p->added++;
	return 0;
}

int usym_add_mapping(struct symtab *t, const struct umap *m, const char *root,
		     char *err, size_t errlen)
{
	const char *mod = base_name(m->path);
	char *path = NULL, *dmod = NULL;
	struct usym_debug dbg = { .fd = -1 };
	struct funcsyms fs;
	int64_t bias = 0;
	Elf *e = NULL;
	size_t i;
	int fd = -1, added = 0, at_start = 0, ret = -1;

	if (m->deleted) {
		/* its name says so; only the mapped file itself names its code */
		if (asprintf(&dmod, "%s (deleted)", mod) < 0) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			return -1;
		}
		mod = dmod;
		if (!m->open_path) {
			seterr(err, errlen, "%s: deleted since it was mapped", m->path);
			goto out;
		}
	}
	if (asprintf(&path, "%s%s", m->deleted ? "" : root ? root : "",
		     m->deleted ? m->open_path : m->path) < 0) {
		seterr(err, errlen, "%s", strerror(ENOMEM));
		free(dmod);
		return -1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		seterr(err, errlen, "libelf: %s", elf_errmsg(-1));
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", m->path, strerror(errno));
		goto out;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		seterr(err, errlen, "%s: not an ELF file", m->path);
		goto out;
	}
	if (load_bias(e, m, &bias)) {
		seterr(err, errlen, "%s: no program headers: %s", m->path, elf_errmsg(-1));
		goto out;
	}
	funcsyms_of(e, fd, root, m->path, &fs, &dbg);
	for (i = 0; i < fs.n; i++) {
		GElf_Sym s;
		const char *name = funcsym(&fs, i, &s);
		uint64_t a;

		if (!name)
			continue;
		a = s.st_value + (uint64_t)bias;
		if (a < m->start || a >= m->end)
			continue;
		if (add_func(t, &fs, a, &s, name, mod)) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			goto out;
		}
		if (a == m->start)
			at_start = 1;
		added++;
	}
	/* the PLT's entries: the code of no function symbol */
	{
		struct plt_add p = { .t = t, .mod = mod, .bias = bias, .lo = m->start,
				     .hi = m->end };

		if (elf_plt_entries(e, plt_add, &p) < 0) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			goto out;
		}
		added += p.added;
	}
	ret = added;
out:
	/* The sentinels even for an object we cannot read: its PCs stay its own. */
	if ((!at_start && add_sentinel(t, m->start, mod)) || add_sentinel(t, m->end, mod)) {
		seterr(err, errlen, "%s", strerror(ENOMEM));
		ret = -1;
	}
	usym_debug_end(&dbg);
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(path);
	free(dmod);
	return ret;
}

int usym_add_file(struct symtab *t, const char *path, const char *mod, char *err,
		  size_t errlen)
{
	struct usym_debug dbg = { .fd = -1 };
	struct funcsyms fs;
	GElf_Phdr *ph = NULL;
	size_t i, j, nph = 0;
	int fd, added = 0, ret = -1;
	Elf *e;

	e = elf_file_open(path, ELF_C_READ, &fd, err, errlen);
	if (!e)
		return -1;
	if (elf_getphdrnum(e, &nph) || !nph || !(ph = calloc(nph, sizeof(*ph)))) {
		seterr(err, errlen, "%s: no program headers", path);
		goto out;
	}
	for (i = 0; i < nph; i++)
		if (!gelf_getphdr(e, (int)i, &ph[i]))
			ph[i].p_type = PT_NULL;
	funcsyms_of(e, fd, "", path, &fs, &dbg);
	for (i = 0; i < fs.n; i++) {
		GElf_Sym s;
		const char *name = funcsym(&fs, i, &s);

		if (!name)
			continue;
		/* The executable segment whose file bytes hold it. */
		for (j = 0; j < nph; j++)
			if (ph[j].p_type == PT_LOAD && (ph[j].p_flags & PF_X) &&
			    s.st_value >= ph[j].p_vaddr &&
			    s.st_value < ph[j].p_vaddr + ph[j].p_filesz)
				break;
		if (j == nph)
			continue;
		if (add_func(t, &fs, s.st_value - ph[j].p_vaddr + ph[j].p_offset, &s, name,
			     mod)) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			goto out;
		}
		added++;
	}
	{
		struct plt_add p = { .t = t, .mod = mod, .ph = ph, .nph = nph };

		if (elf_plt_entries(e, plt_add, &p) < 0) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			goto out;
		}
		added += p.added;
	}
	ret = added;
out:
	/* The sentinels even for a file without symbols: its offsets stay its own. */
	for (j = 0; ret >= 0 && j < nph; j++) {
		if (ph[j].p_type != PT_LOAD || !(ph[j].p_flags & PF_X))
			continue;
		if (add_sentinel(t, ph[j].p_offset + ph[j].p_filesz, mod)) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			ret = -1;
		}
	}
	for (j = 0; ret >= 0 && j < nph; j++) {
		long k;
		int starts = 0;

		if (ph[j].p_type != PT_LOAD || !(ph[j].p_flags & PF_X))
			continue;
		for (k = 0; k < (long)t->n && !starts; k++)
			starts = t->v[k].kind == SYM_FUNC && t->v[k].addr == ph[j].p_offset &&
				 t->v[k].module && !strcmp(t->v[k].module, mod);
		if (!starts && add_sentinel(t, ph[j].p_offset, mod)) {
			seterr(err, errlen, "%s", strerror(ENOMEM));
			ret = -1;
		}
	}
	free(ph);
	usym_debug_end(&dbg);
	elf_end(e);
	close(fd);
	return ret;
}

static int overlaps(const struct umap *taken, size_t n, const struct umap *m, int *same)
{
	size_t i;

	*same = 0;
	for (i = 0; i < n; i++) {
		if (m->start >= taken[i].end || m->end <= taken[i].start)
			continue;
		*same = m->start == taken[i].start && m->end == taken[i].end &&
			m->offset == taken[i].offset && !strcmp(m->path, taken[i].path);
		return 1;
	}
	return 0;
}

int usym_load_pids(const pid_t *pids, size_t npids, struct symtab *t,
		   char *err, size_t errlen)
{
	struct umap *taken = NULL, *v = NULL;
	size_t ntaken = 0, k, i, n;
	char maps[64], root[64], e1[256], warn[512] = "";
	int got = 0, ret = 0;

	symtab_init(t);
	for (k = 0; k < npids; k++) {
		v = NULL;
		n = 0;
		snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pids[k]);
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pids[k]);
		if (usym_read_maps(maps, &v, &n, e1, sizeof(e1))) {
			if (npids == 1)
				seterr(err, errlen, "%s", e1);
			usym_free_maps(v, n);
			continue;
		}
		got = 1;
		for (i = 0; i < n; i++) {
			struct umap *nt;
			int same;

			if (overlaps(taken, ntaken, &v[i], &same))
				continue;
			/*
			 * A deleted object is still the process's: the kernel
			 * keeps it open for the mapping, under map_files
			 * (reading it takes CAP_SYS_ADMIN, as prf's users have).
			 */
			if (v[i].deleted &&
			    asprintf(&v[i].open_path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
				     (int)pids[k], v[i].start, v[i].end) < 0) {
				v[i].open_path = NULL;
				ret = -1;
				seterr(err, errlen, "%s", strerror(ENOMEM));
				break;
			}
			if (usym_add_mapping(t, &v[i], root, e1, sizeof(e1)) < 0) {
				size_t l = strlen(warn);

				if (!strcmp(e1, strerror(ENOMEM))) {
					ret = -1;
					seterr(err, errlen, "%s", e1);
					break;
				}
				if (l + 3 < sizeof(warn))
					snprintf(warn + l, sizeof(warn) - l, "%s%s", l ? "; " : "", e1);
			}
			nt = realloc(taken, (ntaken + 1) * sizeof(*taken));
			if (!nt) {
				ret = -1;
				seterr(err, errlen, "%s", strerror(ENOMEM));
				break;
			}
			taken = nt;
			taken[ntaken] = v[i];
			v[i].path = NULL;
			v[i].open_path = NULL;
			ntaken++;
		}
		usym_free_maps(v, n);
		if (ret)
			break;
	}
	usym_free_maps(taken, ntaken);
	if (ret) {
		symtab_free(t);
		return -1;
	}
	if (!got) {
		if (npids != 1)
			seterr(err, errlen, "no process to read the maps of");
		symtab_free(t);
		return -1;
	}
	symtab_sort_dedupe(t);
	seterr(err, errlen, "%s", warn);
	return 0;
}

static int add_pids_of(const char *dir, pid_t **pids, size_t *n, size_t *room)
{
	char *path = NULL;
	FILE *f;
	int pid, ret = 0;
	DIR *d;
	struct dirent *de;

	if (asprintf(&path, "%s/cgroup.procs", dir) < 0)
		return -ENOMEM;
	f = fopen(path, "re");
	free(path);
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1) {
		if (*n == *room) {
			pid_t *np;

			*room = *room ? 2 * *room : 16;
			np = realloc(*pids, *room * sizeof(**pids));
			if (!np) {
				fclose(f);
				return -ENOMEM;
			}
			*pids = np;
		}
		(*pids)[(*n)++] = pid;
	}
	fclose(f);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		ret = add_pids_of(path, pids, n, room);
		if (ret == -ENOENT)
			ret = 0;	/* removed meanwhile */
		free(path);
	}
	closedir(d);
	return ret;
}

int usym_cgroup_pids(const char *dir, pid_t **pids, size_t *n, char *err, size_t errlen)
{
	size_t room = 0;
	int ret;

	*pids = NULL;
	*n = 0;
	ret = add_pids_of(dir, pids, n, &room);
	if (ret) {
		seterr(err, errlen, "%s: %s%s", dir, strerror(-ret),
		       ret == -ENOENT ? " (not a cgroup v2 directory?)" : "");
		free(*pids);
		*pids = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int usym_is_user_addr(uint64_t addr)
{
	/* Every supported 64-bit architecture: kernel text in the top half. */
	return addr < (UINT64_C(1) << 63);
}

int usym_merge(struct symtab *user, struct symtab *kernel, struct symtab *out)
{
	uint64_t first = kernel->n ? kernel->v[0].addr : UINT64_MAX;
	size_t i, keep = 0;
	struct sym *v;

	for (i = 0; i < user->n && user->v[i].addr < first; i++)
		keep++;
	v = malloc((keep + kernel->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	symtab_init(out);
	memcpy(v, user->v, keep * sizeof(*v));
	memcpy(v + keep, kernel->v, kernel->n * sizeof(*v));
	for (i = keep; i < user->n; i++) {
		free(user->v[i].name);
		free(user->v[i].module);
	}
	out->v = v;
	out->n = out->cap = keep + kernel->n;
	out->text = kernel->text;
	out->stext = kernel->stext;
	out->etext = kernel->etext;
	free(user->v);
	free(kernel->v);
	symtab_init(user);
	symtab_init(kernel);
	return 0;
}
