// SPDX-License-Identifier: GPL-2.0-only
/*
 * disasm - a function's machine code and objdump's instructions for it.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disasm.h"
#include "elffile.h"
#include "err.h"

void disasm_free(struct disasm *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].bytes);
		free(d->v[i].text);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

/* Spaces and tabs off both ends, runs of them inside made one space. */
static char *squeeze(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	int space = 0;

	if (!out)
		return NULL;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	for (; len; s++, len--) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			space = 1;
			continue;
		}
		if (space && o > out)
			*o++ = ' ';
		space = 0;
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* The hexadecimal byte pairs of s: their count, or -1 when s is not that. */
static int count_bytes(const char *s)
{
	int n = 0;

	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		if (!s[1] || !strchr("0123456789abcdef", s[0]) || !strchr("0123456789abcdef", s[1]) ||
		    (s[2] && s[2] != ' '))
			return -1;
		n++;
		s += 2;
	}
	return n;
}

int disasm_parse(FILE *in, uint64_t start, uint64_t end, struct disasm *d,
		 char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0, room = 0;
	ssize_t len;
	uint64_t next = start;

	d->v = NULL;
	d->n = 0;
	while ((len = getline(&line, &cap, in)) > 0) {
		char *colon, *tab1, *tab2, *bytes, *end_p;
		unsigned long long a;
		int nb;

		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		/* "  ffffffff81000000:\t55 \tpush   %rbp" */
		errno = 0;
		a = strtoull(line, &end_p, 16);
		colon = end_p;
		if (errno || end_p == line || *colon != ':' || colon[1] != '\t')
			continue;	/* headers, "<sym>:" labels, "..." */
		tab1 = colon + 1;
		tab2 = strchr(tab1 + 1, '\t');
		bytes = squeeze(tab1 + 1, tab2 ? (size_t)(tab2 - tab1 - 1) : strlen(tab1 + 1));
		if (!bytes)
			goto nomem;
		nb = count_bytes(bytes);
		if (nb <= 0) {
			free(bytes);
			continue;
		}
		if (a < start || a >= end) {
			free(bytes);
			continue;
		}
		if (!tab2 && d->n && a == d->v[d->n - 1].addr + d->v[d->n - 1].len) {
			/* Bytes alone: the rest of the instruction above. */
			struct insn *p = &d->v[d->n - 1];
			char *joined = NULL;

			if (asprintf(&joined, "%s %s", p->bytes, bytes) < 0) {
				free(bytes);
				goto nomem;
			}
			free(p->bytes);
			free(bytes);
			p->bytes = joined;
			p->len += (unsigned)nb;
			next = p->addr + p->len;
			continue;
		}
		if (a != next) {
			free(bytes);
			seterr(err, errlen, "objdump: an instruction at %llx, expected one at %" PRIx64,
			       a, next);
			goto fail;
		}
		if (d->n == room) {
			size_t nr = room ? 2 * room : 64;
			struct insn *v = realloc(d->v, nr * sizeof(*v));

			if (!v) {
				free(bytes);
				goto nomem;
			}
			d->v = v;
			room = nr;
		}
		d->v[d->n].addr = a;
		d->v[d->n].len = (unsigned)nb;
		d->v[d->n].bytes = bytes;
		d->v[d->n].text = tab2 ? squeeze(tab2 + 1, strlen(tab2 + 1)) : strdup("(bytes)");
		if (!d->v[d->n].text) {
			free(bytes);
			goto nomem;
		}
		d->n++;
		next = a + (uint64_t)nb;
	}
	free(line);
	line = NULL;
	if (!d->n) {
		seterr(err, errlen, "objdump: no instruction between %" PRIx64 " and %" PRIx64,
		       start, end);
		goto fail;
	}
	if (next < end) {
		seterr(err, errlen, "objdump: the instructions stop at %" PRIx64 ", before %" PRIx64,
		       next, end);
		goto fail;
	}
	return 0;
nomem:
	seterr(err, errlen, "%s", strerror(ENOMEM));
fail:
	free(line);
	disasm_free(d);
	return -1;
}

int disasm_run(const char *objdump, const char *machine, const unsigned char *code,
	       size_t len, uint64_t vma, struct disasm *d, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char path[4096], vmaopt[64], *argv[16];
	int fd, pfd[2], status, ret, argc = 0;
	size_t off = 0;
	pid_t pid;
	FILE *in;

	snprintf(path, sizeof(path), "%s/prf-code-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t w = write(fd, code + off, len - off);

		if (w <= 0) {
			seterr(err, errlen, "%s: %s", path, strerror(w ? errno : EIO));
			close(fd);
			unlink(path);
			return -1;
		}
		off += (size_t)w;
	}
	close(fd);
	snprintf(vmaopt, sizeof(vmaopt), "--adjust-vma=0x%" PRIx64, vma);
	argv[argc++] = (char *)objdump;
	argv[argc++] = "-D";
	argv[argc++] = "-z";
	argv[argc++] = "-w";
	argv[argc++] = "--insn-width=16";
	argv[argc++] = "-b";
	argv[argc++] = "binary";
	argv[argc++] = "-m";
	argv[argc++] = (char *)machine;
	argv[argc++] = vmaopt;
	argv[argc++] = path;
	argv[argc] = NULL;
	if (pipe2(pfd, O_CLOEXEC)) {
		seterr(err, errlen, "pipe: %s", strerror(errno));
		unlink(path);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		execvp(objdump, argv);
		fprintf(stderr, "%s: %s (binutils)\n", objdump, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		seterr(err, errlen, "fork: %s", strerror(errno));
		close(pfd[0]);
		unlink(path);
		return -1;
	}
	in = fdopen(pfd[0], "r");
	ret = in ? disasm_parse(in, vma, vma + len, d, err, errlen) : -1;
	if (!in) {
		seterr(err, errlen, "%s", strerror(errno));
		close(pfd[0]);
	} else {
		fclose(in);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	unlink(path);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!ret)
			disasm_free(d);
		seterr(err, errlen, "%s %s failed (%s %d)", objdump, machine,
		       WIFEXITED(status) ? "exit status" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	return ret;
}

static const char *machine_name(unsigned em)
{
	switch (em) {
	case EM_X86_64:
		return "i386:x86-64";
	case EM_AARCH64:
		return "aarch64";
	case EM_386:
		return "i386";
	default:
		return NULL;
	}
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, off + (off_t)got);

		if (r <= 0)
			return r ? -errno : -EIO;
		got += (size_t)r;
	}
	return 0;
}

int code_from_core(const char *path, uint64_t addr, size_t len, unsigned char *buf,
		   const char **machine, char *err, size_t errlen)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	unsigned i;

	if (fd < 0) {
		seterr(err, errlen, "%s: %s%s", path, strerror(errno),
		       errno == EACCES || errno == EPERM ?
		       " (needs root; under kernel lockdown give --vmlinux)" : "");
		return -1;
	}
	ret = pread_all(fd, &eh, sizeof(eh), 0);
	if (ret || memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph)) {
		seterr(err, errlen, "%s: %s", path, ret ? strerror(-ret) : "not a 64-bit ELF file");
		close(fd);
		return -1;
	}
	*machine = machine_name(eh.e_machine);
	for (i = 0; i < eh.e_phnum; i++) {
		ret = pread_all(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph)));
		if (ret)
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz ||
		    ph.p_filesz - (addr - ph.p_vaddr) < len)
			continue;
		ret = pread_all(fd, buf, len, (off_t)(ph.p_offset + (addr - ph.p_vaddr)));
		close(fd);
		if (ret) {
			seterr(err, errlen, "%s: reading %zu bytes at %" PRIx64 ": %s", path, len,
			       addr, strerror(-ret));
			return -1;
		}
		if (!*machine) {
			seterr(err, errlen, "%s: machine %u: not one prf annotate knows", path,
			       eh.e_machine);
			return -1;
		}
		return 0;
	}
	close(fd);
	seterr(err, errlen, "%s: %s", path, ret ? strerror(-ret) :
	       "no segment holds the function's address");
	return -1;
}

int code_from_elf(const char *path, const char *name, size_t len, unsigned char *buf,
		  size_t *got, const char **machine, char *err, size_t errlen)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int fd, found = 0;

	e = elf_file_open(path, ELF_C_READ, &fd, err, errlen);
	if (!e)
		return -1;
	if (!gelf_getehdr(e, &eh)) {
		seterr(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	*machine = machine_name(eh.e_machine);
	if (!*machine) {
		seterr(err, errlen, "%s: machine %u: not one prf annotate knows", path, eh.e_machine);
		goto out;
	}
	while (!found && (scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		size_t i, nsym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		nsym = data ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; i < nsym && !found; i++) {
			GElf_Sym s;
			const char *sn;
			Elf_Scn *tscn;
			GElf_Shdr tsh;
			Elf_Data *td;
			uint64_t off;

			if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
				continue;
			sn = elf_strptr(e, sh.sh_link, s.st_name);
			if (!sn || strcmp(sn, name))
				continue;
			tscn = elf_getscn(e, s.st_shndx);
			if (!tscn || !gelf_getshdr(tscn, &tsh) || tsh.sh_type != SHT_PROGBITS)
				continue;
			td = elf_rawdata(tscn, NULL);
			/* A .ko (ET_REL): st_value is the offset in the section. */
			off = eh.e_type == ET_REL ? s.st_value : s.st_value - tsh.sh_addr;
			if (!td || off >= td->d_size)
				continue;
			*got = td->d_size - off < len ? td->d_size - off : len;
			memcpy(buf, (const char *)td->d_buf + off, *got);
			found = 1;
		}
	}
	if (!found)
		seterr(err, errlen, "%s: no function %s in its symbol table", path, name);
out:
	if (e)
		elf_end(e);
	close(fd);
	return found ? 0 : -1;
}
