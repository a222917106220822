// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf - the profiler(1M) commands for /dev/prf: prfld, prfstat, prfsnap,
 * prfdc, prfpr, and prf record, prf top, prf clear, prf daemon.
 *
 * One binary; the classic names are links to it and choose the command
 * from argv[0].  Exit status: 0 ok, 1 runtime error, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "demangle.h"

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
	{ "annotate", NULL, cmd_annotate, "one function's samples, instruction by instruction" },
	{ "daemon", NULL, cmd_daemon, "collect for weeks into a store, serve /metrics" },
	{ "cfi", NULL, cmd_cfi, "a file's unwind table, from its call frame information" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void help_main(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: prf COMMAND [options] [args]\n"
		"The /dev/prf kernel profiler (prf(4)).\n\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s %-9s %s\n", commands[i].name,
			commands[i].classic ? commands[i].classic : "", commands[i].what);
	fprintf(out, "\nThe classic names (prfld, prfstat, prfsnap, prfdc, prfpr) are links\n"
		"to prf.  'prf help COMMAND' or 'prf COMMAND --help' describes each command.\n"
		"Exit status: 0 ok, 1 error (prf alone: the usage, on stderr), 2 usage error.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name) ||
		    (commands[i].classic && !strcmp(name, commands[i].classic)))
			return &commands[i];
	return NULL;
}

/*
 * Standard output is flushed and closed here, once, for every command: a
 * write error (a full disk, /dev/full, a closed pipe) is said and turns
 * a success into exit status 1.
 */
static int finish(int ret)
{
	int bad, err;

	sym_shown_free();
	errno = 0;
	bad = fflush(stdout) != 0;
	err = errno;
	if (ferror(stdout))
		bad = 1;
	if (fclose(stdout) && !bad) {
		bad = 1;
		err = errno;
	}
	if (!bad)
		return ret;
	msg("write error on standard output: %s", strerror(err ? err : EIO));
	return ret ? ret : 1;
}

static int run(const struct command *cmd, int argc, char **argv)
{
	static char name[64];

	snprintf(name, sizeof(name), "prf %s", cmd->name);
	prog = name;
	argv[0] = name;	/* getopt's messages name it */
	return finish(cmd->fn(argc, argv));
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	const struct command *cmd;
	size_t i;

	base = base ? base + 1 : (argv[0] ? argv[0] : "prf");
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].classic && !strcmp(base, commands[i].classic)) {
			prog = commands[i].classic;
			argv[0] = (char *)prog;	/* getopt's messages: prfld, not its path */
			return finish(commands[i].fn(argc, argv));
		}
	if (argc < 2) {
		help_main(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *hargv[] = { argv[2], "--help", NULL };

		cmd = find_command(argv[2]);
		if (!cmd) {
			fprintf(stderr, "prf: unknown command '%s'\nTry 'prf --help'.\n", argv[2]);
			return EXIT_USAGE;
		}
		optind = 1;
		return run(cmd, 2, hargv);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		help_main(stdout);
		return finish(0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("prf %s (libprf %s)\n", PRF_VERSION, LIBPRF_VERSION);
		return finish(0);
	}
	cmd = find_command(argv[1]);
	if (cmd)
		return run(cmd, argc - 1, argv + 1);
	fprintf(stderr, "prf: unknown command '%s'\nTry 'prf --help'.\n", argv[1]);
	return EXIT_USAGE;
}
