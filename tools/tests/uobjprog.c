// SPDX-License-Identifier: GPL-2.0-only
/*
 * uobjprog - the guest user objects test's workload (guest_uobj_test.sh):
 * built four times by the tools' Makefile, as uobj_alpha, uobj_beta,
 * uobj_gamma and uobj_chain (with frame pointers), each with a busy
 * function of its own name (spin_alpha, ...).
 *   uobj_X SECONDS         spins SECONDS of its own CPU time in spin_X
 *   uobj_X make A SA B SB  a make-like parent: forks and execs program A
 *                          for SA seconds, waits for it, then B for SB
 *   uobj_X dlopen LIB S    loads the shared object LIB once running (built
 *                          from this file with -DUOBJ_LIB -DWHICH=delta:
 *                          libuobj_delta.so), spins S seconds in its
 *                          spin_delta, and unloads it before exiting
 *   uobj_X chain SECONDS   spins in spin_X called through chain_outer and
 *                          chain_middle: main;chain_outer;chain_middle;
 *                          spin_X (uobj_chain, built with frame pointers,
 *                          for the user call chains)
 *   uobj_X sys SECONDS     reads /dev/zero for SECONDS of its CPU time,
 *                          the system call made in read_zero() (not libc's
 *                          wrapper, which keeps no frame record) called by
 *                          sys_loop(): main;sys_loop;read_zero, then the
 *                          kernel's read (the pairs of -g --folded)
 * The CPU time is the thread's (CLOCK_THREAD_CPUTIME_ID), read every 200000
 * rounds: the function's share of the samples is then its known busy time,
 * whatever else the machine runs.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef WHICH
#define WHICH alpha
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define SPIN CAT(spin_, WHICH)

static volatile unsigned long spins;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) void SPIN(double s)
{
	double end = cpu_now() + s;
	unsigned long i;

	do {
		for (i = 0; i < 200000; i++)
			spins++;
	} while (cpu_now() < end);
}

#ifndef UOBJ_LIB
/*
 * SPIN two calls down.  Each call is followed by work of the caller's: a
 * tail call would leave no return address into it, and the chain would
 * miss its frame.
 */
__attribute__((noinline)) void chain_middle(double s)
{
	SPIN(s);
	spins++;
}

__attribute__((noinline)) void chain_outer(double s)
{
	chain_middle(s);
	spins++;
}

static char zero_buf[65536];

/* read(2) of /dev/zero, the system call made here, in a frame of its own. */
__attribute__((noinline)) long read_zero(int fd)
{
	long ret;

	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
#if defined(__x86_64__)
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(zero_buf),
			   "d"(sizeof(zero_buf))
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	{
		register long x8 __asm__("x8") = SYS_read;
		register long x0 __asm__("x0") = fd;
		register long x1 __asm__("x1") = (long)zero_buf;
		register long x2 __asm__("x2") = sizeof(zero_buf);

		__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
		ret = x0;
	}
#else
	ret = read(fd, zero_buf, sizeof(zero_buf));
#endif
	spins++;
	return ret;
}

__attribute__((noinline)) int sys_loop(double s)
{
	int fd = open("/dev/zero", O_RDONLY);
	double end = cpu_now() + s;

	if (fd < 0)
		return 1;
	do {
		if (read_zero(fd) <= 0)
			return 1;
	} while (cpu_now() < end);
	spins++;
	return close(fd);
}

static int run(const char *prog, const char *secs)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execl(prog, prog, secs, (char *)NULL);
		perror(prog);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/*
 * LIB's spin_delta for @secs seconds, LIB loaded and unloaded around it.
 * Not in a static build (arm64's), whose dlopen() would need that
 * architecture's C library in the guest.
 */
static int run_lib(const char *lib, const char *secs)
{
#ifdef UOBJ_STATIC
	fprintf(stderr, "%s %s: no dlopen in a static build\n", lib, secs);
	return 1;
#else
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void (*spin)(double);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&spin = dlsym(h, "spin_delta");
	if (!spin) {
		fprintf(stderr, "%s\n", dlerror());
		dlclose(h);
		return 1;
	}
	spin(atof(secs));
	return dlclose(h) ? 1 : 0;
#endif
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "make"))
		return run(argv[2], argv[3]) || run(argv[4], argv[5]) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "dlopen"))
		return run_lib(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "chain")) {
		chain_outer(atof(argv[2]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "sys"))
		return sys_loop(atof(argv[2])) ? 1 : 0;
	if (argc != 2) {
		fprintf(stderr, "usage: %s SECONDS | make PROG_A SECS_A PROG_B SECS_B | dlopen LIB SECONDS"
			" | chain SECONDS | sys SECONDS\n", argv[0]);
		return 2;
	}
	SPIN(atof(argv[1]));
	return 0;
}
#endif /* UOBJ_LIB */
