// SPDX-License-Identifier: GPL-2.0-only
/*
 * cfiprog - a known call chain through the C library, in code without frame
 * pointers (built -O2 -fomit-frame-pointer, and the C library Debian's, built
 * so too): the truth prf record -g --unwind cfi is judged against
 * (tests/guest_unwind_test.sh).
 *
 *   cfiprog SECONDS   main -> cfi_a -> cfi_b -> cfi_c -> cfi_d -> qsort
 *                     (the C library's, through its own internal functions)
 *                     -> cfi_cmp -> cfi_spin, sorting again until SECONDS
 *                     have passed; nearly all the time in cfi_spin.
 *
 *   cfiprog plt SECONDS
 *                     main -> cfi_plt -> strlen of an empty string, called
 *                     through the program's PLT (x86-64's lazy PLT, whose
 *                     entries' CFA is a DWARF expression; arm64's static
 *                     build, an IFUNC's IRELATIVE entry without CFI), until
 *                     SECONDS have passed: a share of the samples in the
 *                     PLT entry.
 *
 *   cfiprog vdso SECONDS
 *                     main -> cfi_vdso -> clock_gettime (the C library's,
 *                     which calls the vDSO's: x86-64 __vdso_clock_gettime,
 *                     arm64 __kernel_clock_gettime), until SECONDS have
 *                     passed (the coarse clock: the vDSO answers it
 *                     without the kernel, whatever the clock source):
 *                     most of the samples in the vDSO.
 *
 *   cfiprog signal SECONDS
 *                     main -> cfi_sigmain -> cfi_e, spinning, interrupted
 *                     after every 5 ms of its CPU time by SIGPROF, whose
 *                     handler cfi_handler -> cfi_hspin spins, arms the
 *                     next signal, and returns through the C library's
 *                     restorer (x86-64
 *                     __restore_rt) or the vDSO's (arm64
 *                     __kernel_rt_sigreturn), until SECONDS have passed:
 *                     most of the samples in cfi_hspin, whose whole chain
 *                     goes through the signal frame into cfi_e.
 *
 * Every function of the chain is kept out of line and calls the next one
 * other than as its last act, so no frame is inlined or replaced by a
 * tail call: the chain the CPU runs is the one above.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE void cfi_spin(void)
{
	unsigned int i;

	for (i = 0; i < 20000; i++)
		sink += i;
}

NOINLINE int cfi_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	cfi_spin();
	sink++;
	return (a > b) - (a < b);
}

NOINLINE int cfi_d(int *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (int)((i * 7919u) % n);
	qsort(v, n, sizeof(*v), cfi_cmp);
	sink++;
	return v[0];
}

NOINLINE int cfi_c(int *v, size_t n)
{
	int r = cfi_d(v, n);

	sink++;
	return r + 1;
}

NOINLINE int cfi_b(int *v, size_t n)
{
	int r = cfi_c(v, n);

	sink++;
	return r + 1;
}

NOINLINE int cfi_a(int *v, size_t n)
{
	int r = cfi_b(v, n);

	sink++;
	return r + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* not known to the compiler: strlen is called, through the PLT */
static const char *volatile plt_str = "";

NOINLINE void cfi_plt(double end)
{
	unsigned int i;

	do
		for (i = 0; i < 1000; i++)
			sink += strlen(plt_str);
	while (now() < end);
	sink++;
}

NOINLINE void cfi_vdso(double end)
{
	struct timespec ts;
	unsigned int i;

	do
		for (i = 0; i < 1000; i++) {
			clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
			sink += (unsigned long)ts.tv_nsec;
		}
	while (now() < end);
	sink++;
}

NOINLINE void cfi_hspin(void)
{
	unsigned int i;

	for (i = 0; i < 2000000; i++)
		sink += i;
}

/* SIGPROF once, after 5 ms more of the process's CPU time */
static void cfi_arm(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 5000 } };

	setitimer(ITIMER_PROF, &it, NULL);
}

/* armed again as it leaves: the interrupted code runs on between signals */
NOINLINE void cfi_handler(int sig)
{
	cfi_hspin();
	cfi_arm();
	sink += (unsigned long)sig;
}

NOINLINE void cfi_e(double end)
{
	unsigned int i;

	do
		for (i = 0; i < 1000000; i++)
			sink += i;
	while (now() < end);
	sink++;
}

NOINLINE int cfi_sigmain(double end)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cfi_handler;
	if (sigaction(SIGPROF, &sa, NULL))
		return 1;
	cfi_arm();
	cfi_e(end);
	sink++;
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[argc - 1]) : 1, end = now() + secs;
	int v[64];

	if (argc > 2 && !strcmp(argv[1], "plt")) {
		cfi_plt(end);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "vdso")) {
		cfi_vdso(end);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "signal")) {
		sink += (unsigned long)cfi_sigmain(end);
		return (int)(sink & 0);
	}
	do
		sink += (unsigned long)cfi_a(v, 64);
	while (now() < end);
	return 0;
}
