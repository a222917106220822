// SPDX-License-Identifier: GPL-2.0
/*
 * peersctl - the table of bench/peers.sh's calls comparison.
 *
 *	peersctl calltable DEV NAME...
 *
 * Loads a table whose buckets start exactly at the named kernel functions
 * (ascending), padded to PRF_MIN_ADDRS with addresses one byte past the
 * last entry, which are no function's first byte and so are never traced.
 * prf's calls mode then counts the calls of these functions and of nothing
 * else, the same set the peers (ftrace's profiler, bpftrace) are given.
 * (bench/prfctl's loadnames also loads each function's end, the next
 * symbol, which the calls mode traces too.)  Prints naddrs=.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/prf.h>

static void die(const char *what)
{
	fprintf(stderr, "peersctl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The address of each name in /proc/kallsyms' text symbols, or exit. */
static void lookup(char **names, int nn, uint64_t *a)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long v;
	int k, found = 0;

	if (!f)
		die("/proc/kallsyms");
	memset(a, 0, nn * sizeof(*a));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &v, &type, name) != 3 ||
		    (type != 't' && type != 'T') || !v)
			continue;
		for (k = 0; k < nn; k++)
			if (!a[k] && !strcmp(name, names[k])) {
				a[k] = v;
				found++;
			}
	}
	fclose(f);
	for (k = 0; k < nn; k++)
		if (!a[k]) {
			errno = ENOENT;
			die(names[k]);
		}
	if (found != nn) {
		errno = EINVAL;
		die("a name given twice");
	}
}

int main(int argc, char **argv)
{
	uint64_t *a;
	size_t na, i;
	int nn, fd;

	if (argc < 4 || strcmp(argv[1], "calltable")) {
		fprintf(stderr, "usage: peersctl calltable DEV NAME...\n");
		return 2;
	}
	nn = argc - 3;
	a = calloc(nn + PRF_MIN_ADDRS, sizeof(*a));
	if (!a)
		die("calloc");
	lookup(argv + 3, nn, a);
	qsort(a, nn, sizeof(*a), cmp_u64);
	for (i = 1; i < (size_t)nn; i++)
		if (a[i] == a[i - 1]) {
			errno = EINVAL;
			die("two names at one address");
		}
	na = nn;
	while (na < PRF_MIN_ADDRS || na == (size_t)nn) {
		a[na] = a[na - 1] + 1;	/* the last bucket ends past its entry */
		na++;
	}
	fd = open(argv[2], O_RDWR);
	if (fd < 0)
		die(argv[2]);
	if (write(fd, a, na * sizeof(*a)) != (ssize_t)(na * sizeof(*a)))
		die("write table");
	printf("naddrs=%zu\n", na);
	close(fd);
	free(a);
	return 0;
}
