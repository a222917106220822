// SPDX-License-Identifier: GPL-2.0
/*
 * deb-libprf - a program of one's own against the installed libprf-dev,
 * run in a guest by selftests/vm/deb-guest (scripts/deb-test.sh builds it
 * with `pkg-config --cflags --libs libprf`, away from the tree's headers).
 *
 * It does what a user's tool does with /dev/prf: loads a table of every
 * kernel text address of /proc/kallsyms, sets 1000 Hz, clears, switches
 * sampling on, reads /dev/zero for a second of its own CPU time, switches
 * off and reads the counters.  TAP on stdout; exit status 1 if any check
 * fails: each call returns 0, the table holds what was loaded, the status
 * says on while on, and the kernel's counters sum to more than zero.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libprf.h>

static int n_test, failed;

static void ok(int cond, const char *what, long long ret)
{
	n_test++;
	if (!cond)
		failed = 1;
	printf("%sok %d - libprf: %s (%lld)\n", cond ? "" : "not ", n_test, what, ret);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every distinct kernel text (t/T) address, ascending, in *out. */
static size_t kallsyms_text(uint64_t **out)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long a;
	size_t n = 0, room = 0, i, u = 0;
	uint64_t *v = NULL, *nv;
	char type, line[512];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &a, &type) != 2 || !a ||
		    (type != 't' && type != 'T') || strchr(line, '['))
			continue;
		if (n == room) {
			room = room ? 2 * room : 65536;
			nv = realloc(v, room * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n++] = a;
	}
	fclose(f);
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		if (!u || v[i] != v[u - 1])
			v[u++] = v[i];
	*out = v;
	return u;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	static char buf[65536];
	uint64_t *addrs = NULL, *counts;
	unsigned long long kernel = 0, reads = 0;
	struct prf *p = NULL;
	size_t n, i;
	double t0;
	int r, zero;

	printf("TAP version 13\n");
	r = prf_open(PRF_DEVICE, O_RDWR, &p);
	ok(r == 0, "prf_open(" PRF_DEVICE ", O_RDWR)", r);
	if (r)
		return 1;
	n = kallsyms_text(&addrs);
	ok(n > 1000, "kernel text addresses in /proc/kallsyms", n);
	if (n <= 1000)
		return 1;
	counts = calloc(n + 2, sizeof(*counts));
	if (!counts)
		return 1;

	prf_set_state(p, 0);
	r = prf_load(p, addrs, n);
	ok(r == 0, "prf_load of the table", r);
	r = prf_get_size(p);
	ok(r == (int)n, "prf_get_size is the table's length", r);
	r = prf_set_hz(p, 1000);
	ok(r == 0, "prf_set_hz(1000)", r);
	r = prf_clear(p);
	ok(r == 0, "prf_clear", r);
	r = prf_set_state(p, 1);
	ok(r == 0, "prf_set_state(on)", r);
	r = prf_get_status(p);
	ok(r >= 0 && (r & PRF_STATUS_ON), "prf_get_status says on", r);

	zero = open("/dev/zero", O_RDONLY);
	t0 = cpu_seconds();
	while (zero >= 0 && cpu_seconds() - t0 < 1.0 &&
	       read(zero, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		reads++;
	if (zero >= 0)
		close(zero);

	r = prf_set_state(p, 0);
	ok(r == 0, "prf_set_state(off)", r);
	r = prf_read(p, NULL, counts, n);
	ok(r == 0, "prf_read of the counters", r);
	for (i = 0; i < n; i++)
		kernel += counts[i];
	printf("# %llu reads of 64 KiB; samples: kernel %llu user %llu idle %llu\n",
	       reads, kernel, (unsigned long long)counts[n],
	       (unsigned long long)counts[n + 1]);
	ok(reads > 0, "reads of /dev/zero done", reads);
	ok(kernel > 0, "kernel samples counted", kernel);
	prf_close(p);
	free(counts);
	free(addrs);
	printf("1..%d\n", n_test);
	return failed;
}
