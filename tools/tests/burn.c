// SPDX-License-Identifier: GPL-2.0-only
/*
 * burn - a workload whose profile is known, for the guest tests of
 * prf record (tools/tests/guest_record_test.sh).
 *
 *   burn [-s DELAY] [-w FILE] [-S FILE] [-D FILE] [-t SECS] [-z SECS]
 *	after DELAY seconds (default 0) and once FILE exists (-w), creates
 *	the file of -S, then SECS seconds (default 2) of user
 *	work split 2:1 between burn_two() and burn_one() (the same loop,
 *	twice as many turns in burn_two), then SECS seconds (default 1) of
 *	read(2)s of /dev/zero (the kernel's zeroing path); then it creates
 *	the file of -D.
 *   burn --spin SECS [-w FILE] [-u FILE]
 *	the other process: named "spinner" from the start; once FILE exists
 *	(-w), SECS seconds of getppid(2) calls and a user loop in
 *	spin_other(), or until the file of -u exists (then idle until
 *	killed, its CPU time still readable).  Under an instruction
 *	clock a busy CPU slows every other CPU's work many times over, so the
 *	test has it spin only while sampling is on.
 *
 * The loop's speed is measured first in calibrate(), which is neither of
 * the two functions whose ratio the test checks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The loop itself, copied into each function that runs it. */
static inline __attribute__((always_inline)) void spin(unsigned long turns)
{
	unsigned long i, x = sink;

	for (i = 0; i < turns; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

__attribute__((noinline)) void burn_one(unsigned long turns)
{
	spin(turns);
}

__attribute__((noinline)) void burn_two(unsigned long turns)
{
	spin(2 * turns);
}

/* Turns per second of the loop. */
__attribute__((noinline)) double calibrate(void)
{
	unsigned long turns = 1000, done = 0;
	double t0 = now(), t;

	do {
		spin(turns);
		done += turns;
		turns *= 2;
	} while ((t = now() - t0) < 0.2);
	return (double)done / t;
}

static void create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static void wait_file(const char *path)
{
	while (path && access(path, F_OK)) {
		struct timespec d = { 0, 10 * 1000000L };

		nanosleep(&d, NULL);
	}
}

__attribute__((noinline)) void spin_other(double secs, const char *until)
{
	double end = now() + secs;

	while (now() < end && (!until || access(until, F_OK))) {
		int i;

		for (i = 0; i < 200; i++)
			sink += (unsigned long)getppid();
		spin(20000);
	}
}

static void read_zero(double secs)
{
	static char buf[65536];
	int fd = open("/dev/zero", O_RDONLY);
	double end = now() + secs;

	if (fd < 0) {
		perror("/dev/zero");
		exit(1);
	}
	while (now() < end)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("read /dev/zero");
			exit(1);
		}
	close(fd);
}

int main(int argc, char **argv)
{
	double delay = 0, user = 2, kern = 1, spin_secs = -1, rate;
	const char *wait_for = NULL, *started = NULL, *done = NULL, *until = NULL;
	unsigned long unit;
	int i, rounds = 20;

	for (i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--spin"))
			spin_secs = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-u"))
			until = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "-S"))
			started = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "-s"))
			delay = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-t"))
			user = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-z"))
			kern = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "-w"))
			wait_for = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "-D"))
			done = argv[++i];
		else {
			fprintf(stderr, "usage: burn [-s DELAY] [-w FILE] [-S FILE] [-D FILE] [-t SECS] "
				"[-z SECS] | burn --spin SECS [-w FILE] [-u FILE]\n");
			return 2;
		}
	}
	if (spin_secs >= 0) {
		prctl(PR_SET_NAME, "spinner", 0, 0, 0);
		wait_file(wait_for);
		spin_other(spin_secs, until);
		/* Stopped by -u: alive (its CPU time readable) until killed. */
		while (until)
			pause();
		return 0;
	}
	if (delay > 0) {
		struct timespec d = { (time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9) };

		nanosleep(&d, NULL);
	}
	wait_file(wait_for);
	if (started)
		create(started);
	rate = calibrate();
	/* rounds of burn_two (2 units) then burn_one (1 unit): 3 units a round */
	unit = (unsigned long)(rate * user / 3 / rounds);
	if (!unit)
		unit = 1;
	for (i = 0; i < rounds; i++) {
		burn_two(unit);
		burn_one(unit);
	}
	read_zero(kern);
	printf("burn: %lu turns a unit, %d rounds\n", unit, rounds);
	if (done)
		create(done);
	return 0;
}
