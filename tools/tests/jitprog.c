// SPDX-License-Identifier: GPL-2.0-only
/*
 * jitprog - code generated at run time, named by its own perf map: for
 * tests/guest_uobj_test.sh.
 *
 *   jitprog SECONDS OUT [nomap]
 *
 * Copies two small spin functions (machine code, x86-64 or arm64: a count
 * down to 0) into anonymous executable memory, jit_spin_a at its start and
 * jit_spin_b 256 bytes on, writes /tmp/perf-PID.map naming them (unless
 * "nomap"), and runs them for SECONDS of its CPU time in all, calling
 * whichever is behind its share (a: three quarters of the time, b: one
 * quarter), a few milliseconds a call.  Each call is timed by the thread's
 * CPU clock, and its loop's rounds counted; OUT gets "PID A_NS B_NS
 * A_ROUNDS B_ROUNDS": what each took as the program measured it, which the
 * test weighs prf's samples against.  The two run the same instructions,
 * so their rounds split as their time on the CPU does.  The CPU clock of a
 * guest under emulation also runs while its virtual CPU is held off by a
 * busy host, time in which prf's timer is late and counts a single sample
 * (the periods missed are lost); and a call so stretched puts the clock's
 * split ahead of the rounds', since the other function then runs to catch
 * up.  On a quiet host the two splits agree; on a busy one what prf saw
 * lies between them, and the test takes both.  The map is left for the
 * report (prf names the code after the program exits); the test removes it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* mov %rdi,%rax; 1: sub $1,%rax; jnz 1b; ret */
static const unsigned char spin_code[] = {
	0x48, 0x89, 0xf8, 0x48, 0x83, 0xe8, 0x01, 0x75, 0xfa, 0xc3,
};
#elif defined(__aarch64__)
/* 1: subs x0, x0, #1; b.ne 1b; ret */
static const unsigned char spin_code[] = {
	0x00, 0x04, 0x00, 0xf1, 0xe1, 0xff, 0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6,
};
#else
#error "jitprog: x86-64 or arm64"
#endif

#define B_AT	256

typedef void (*spin_fn)(unsigned long n);

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The time of one call of f(n), in ns of this thread's CPU time. */
static long long timed(spin_fn f, unsigned long n)
{
	long long t0 = cpu_ns();

	f(n);
	return cpu_ns() - t0;
}

int main(int argc, char **argv)
{
	unsigned char *code;
	long long a = 0, b = 0, want, t;
	unsigned long n = 1000, ra = 0, rb = 0;
	spin_fn fa, fb;
	char map[64];
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: jitprog SECONDS OUT [nomap]\n");
		return 2;
	}
	want = (long long)(atof(argv[1]) * 1e9);
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("jitprog: mmap");
		return 1;
	}
	memcpy(code, spin_code, sizeof(spin_code));
	memcpy(code + B_AT, spin_code, sizeof(spin_code));
	__builtin___clear_cache((char *)code, (char *)code + 4096);
	fa = (spin_fn)(void *)code;
	fb = (spin_fn)(void *)(code + B_AT);
	if (argc < 4 || strcmp(argv[3], "nomap")) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(map, "w");
		if (!f || fprintf(f, "%lx %zx jit_spin_a\n%lx %zx jit_spin_b\n",
				  (unsigned long)fa, sizeof(spin_code),
				  (unsigned long)fb, sizeof(spin_code)) < 0 || fclose(f)) {
			perror("jitprog: the map");
			return 1;
		}
	}
	/* a call of about 2 ms: n grown until one takes that long */
	while ((t = timed(fa, n)) < 2000000 && n < (1UL << 40)) {
		a += t;
		ra += n;
		n *= 2;
	}
	a += t;
	ra += n;
	while (a + b < want) {
		if (a <= 3 * b) {
			a += timed(fa, n);
			ra += n;
		} else {
			b += timed(fb, n);
			rb += n;
		}
	}
	f = fopen(argv[2], "w");
	if (!f || fprintf(f, "%d %lld %lld %lu %lu\n", (int)getpid(), a, b, ra, rb) < 0 ||
	    fclose(f)) {
		perror("jitprog: the result");
		return 1;
	}
	return 0;
}
