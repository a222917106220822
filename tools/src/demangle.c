// SPDX-License-Identifier: GPL-2.0-only
/*
 * demangle - user names demangled by libiberty.  See demangle.h.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include) && !__has_include(<libiberty/demangle.h>)
#error "prf needs libiberty (Debian: libiberty-dev; scripts/deps.sh demo installs it)"
#endif
#include <libiberty/demangle.h>

#include "demangle.h"
#include "usym.h"

int sym_demangle_on = 1;

char *sym_demangle(const char *name)
{
	/* Only names that say they are mangled: C++/Rust legacy _Z, Rust v0 _R. */
	size_t len, mark = strlen(USYM_DYNSYM_MARK);
	char *raw, *dem, *out = NULL;

	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	len = strlen(name);
	if (len <= mark || strcmp(name + len - mark, USYM_DYNSYM_MARK))
		return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	/* a name from .dynsym alone: demangled, still marked */
	raw = strndup(name, len - mark);
	dem = raw ? cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO) : NULL;
	if (dem && asprintf(&out, "%s%s", dem, USYM_DYNSYM_MARK) < 0)
		out = NULL;
	free(dem);
	free(raw);
	return out;
}

/*
 * raw -> shown, an open hash: the names a report prints, each once, kept
 * until sym_shown_free() (the strings never move).  Under a lock: prf
 * daemon's HTTP threads name profiles too.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
struct shown {
	char *raw, *dem;	/* dem NULL: raw is not mangled */
};
static struct shown *cache;
static size_t ncache, capcache;	/* capcache: a power of two */

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int grow(void)
{
	size_t ncap = capcache ? 2 * capcache : 1024, i, s;
	struct shown *nc = calloc(ncap, sizeof(*nc));

	if (!nc)
		return -1;
	for (i = 0; i < capcache; i++) {
		if (!cache[i].raw)
			continue;
		s = hash(cache[i].raw) & (ncap - 1);
		while (nc[s].raw)
			s = (s + 1) & (ncap - 1);
		nc[s] = cache[i];
	}
	free(cache);
	cache = nc;
	capcache = ncap;
	return 0;
}

static const char *shown_locked(const char *name)
{
	size_t s;
	char *dem;

	if (2 * (ncache + 1) > capcache && grow())
		return name;
	s = hash(name) & (capcache - 1);
	for (; cache[s].raw; s = (s + 1) & (capcache - 1))
		if (!strcmp(cache[s].raw, name))
			return cache[s].dem ? cache[s].dem : name;
	dem = sym_demangle(name);
	cache[s].raw = strdup(name);
	if (!cache[s].raw) {
		free(dem);
		return name;
	}
	cache[s].dem = dem;
	ncache++;
	return dem ? dem : name;
}

const char *sym_shown(const char *name, uint64_t addr)
{
	const char *r;

	if (!name || !sym_demangle_on || !usym_is_user_addr(addr) || name[0] != '_' ||
	    (name[1] != 'Z' && name[1] != 'R'))
		return name;
	pthread_mutex_lock(&lock);
	r = shown_locked(name);
	pthread_mutex_unlock(&lock);
	return r;
}

void sym_shown_free(void)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < capcache; i++) {
		free(cache[i].raw);
		free(cache[i].dem);
	}
	free(cache);
	cache = NULL;
	ncache = capcache = 0;
	pthread_mutex_unlock(&lock);
}
