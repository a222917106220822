// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf - the profiler(1M) commands for /dev/prf: prfld, prfstat, prfsnap,
 * prfdc, prfpr, and prf record, prf top, prf clear.
 *
 * One binary; the classic names are links to it and choose the command
 * from argv[0].  Exit status: 0 ok, 1 runtime error, 2 usage.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"

struct command {
	const char *name;	/* prf NAME */
	const char *classic;	/* the profiler(1M) name, a link to prf */
	int (*fn)(int, char **);
	const char *what;
};

static const struct command commands[] = {
	{ "ld", "prfld", cmd_ld, "load the kernel's function addresses" },
	{ "stat", "prfstat", cmd_stat, "switch sampling on or off, show the state" },
	{ "snap", "prfsnap", cmd_snap, "append a snapshot to a file" },
	{ "dc", "prfdc", cmd_dc, "append snapshots periodically" },
	{ "pr", "prfpr", cmd_pr, "report from a snapshot file" },
	{ "record", NULL, cmd_record, "profile while a command runs" },
	{ "top", NULL, cmd_top, "live view of the busiest functions" },
	{ "clear", NULL, cmd_clear, "zero the counters" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void help_main(void)
{
	size_t i;

	printf("Usage: prf COMMAND [options] [args]\n"
	       "The /dev/prf kernel profiler (prf(4)).\n\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		printf("  %-8s %-9s %s\n", commands[i].name,
		       commands[i].classic ? commands[i].classic : "", commands[i].what);
	printf("\nThe classic names (prfld, prfstat, prfsnap, prfdc, prfpr) are links\n"
	       "to prf.  'prf COMMAND --help' describes each command.\n"
	       "Exit status: 0 ok, 1 error, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	static char name[64];
	size_t i;

	base = base ? base + 1 : (argv[0] ? argv[0] : "prf");
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].classic && !strcmp(base, commands[i].classic)) {
			prog = commands[i].classic;
			return commands[i].fn(argc, argv);
		}
	if (argc < 2) {
		help_main();
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		help_main();
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("prf %s (libprf %s)\n", PRF_VERSION, LIBPRF_VERSION);
		return 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name) ||
		    (commands[i].classic && !strcmp(argv[1], commands[i].classic))) {
			snprintf(name, sizeof(name), "prf %s", commands[i].name);
			prog = name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	fprintf(stderr, "prf: unknown command '%s'\nTry 'prf --help'.\n", argv[1]);
	return EXIT_USAGE;
}
