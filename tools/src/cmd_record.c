// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf record: profile while a command runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "pprof.h"

/* ------------------------------------------------------------------ */
/* prf record                                                          */

static void help_record(void)
{
	printf("Usage: %s [-f DEVICE] [-o FILE] [--hz N] [--fixed] [-c CUTOFF] -- COMMAND [ARG...]\n"
	       "Profile the kernel while COMMAND runs, then print the report.\n"
	       "Loads /proc/kallsyms when no table is loaded, clears the counters,\n"
	       "samples while COMMAND runs, stops, and snapshots before and after.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf)\n"
	       "  -o, --output FILE keep the snapshots in FILE (appended)\n"
	       "  -z, --hz N        sampling rate, %d..%d Hz\n"
	       "      --fixed       phase-locked: a sample every 1/hz exactly (--no-jitter)\n"
	       "      --jitter      one sample at a random point of every period (the default)\n"
	       "  -c, --cutoff P    report cutoff, percent of kernel samples (default 1)\n"
	       "  -m, --modules LIST  report only these modules' functions ('kernel': the kernel)\n"
	       "      --of WHAT     percentages of kernel (default), busy or all samples\n"
	       "      --sort KEY    samples (default), address, name or module\n"
	       "      --csv, --json, --folded   report format\n"
	       "      --pprof OUT   also write the report to OUT as pprof's gzipped profile.proto\n"
	       "  -h, --help        this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX);
}

struct record_opts {
	const char *out;
	double cutoff;
	const char *pprof;
};

static int record_opt(void *ctx, int opt, const char *arg)
{
	struct record_opts *o = ctx;

	if (opt == 'o') {
		o->out = arg;
		return 0;
	}
	if (opt == OPT_PPROF) {
		o->pprof = arg;
		return 0;
	}
	return parse_cutoff(arg, &o->cutoff);
}

int cmd_record(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cutoff", required_argument, NULL, 'c' },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"+o:c:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING | CO_FORMAT | CO_REPORT, help_record,
		record_opt, 1, INT_MAX, "want a COMMAND to run",
	};
	struct common c;
	struct record_opts o = { NULL, 1.0, NULL };
	struct report_opts ro = { 0 };
	struct snap_table t = { 0 };
	struct prf *p;
	struct snapfile f;
	struct report r;
	char tmp[] = "/tmp/prf-record-XXXXXX", err[SNAP_ERRLEN];
	const char *out;
	int ret, st, status = 0, tmpfd = -1;
	pid_t pid;
	struct sigaction ign = { 0 }, oint, oquit;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	out = o.out;
	ro.cutoff = o.cutoff;
	report_opts_from(&c, &ro);
	if (open_status(c.dev, O_RDWR, &p, &st))
		return 1;
	if ((st & PRF_STATUS_ON) && (ret = set_state(p, c.dev, 0)))
		goto out;
	if ((ret = ensure_loaded(p, &c, 1)))
		goto out;
	if ((ret = set_hz_flags(p, c.dev, c.hz, fixed_on(&c))))
		goto out;
	if ((ret = prf_clear(p))) {
		ret = dev_fail(c.dev, "PRF_CLEAR", ret);
		goto out;
	}
	if (!out) {
		tmpfd = mkstemp(tmp);
		if (tmpfd < 0) {
			msg("%s: %s", tmp, strerror(errno));
			ret = 1;
			goto out;
		}
		close(tmpfd);
		out = tmp;
	}
	if ((ret = snap_to_file(p, &c, out, &t, NULL)))
		goto out;
	/* Like time(1): the command gets the terminal's signals, not us. */
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	if ((ret = set_state(p, c.dev, 1)))
		goto restore;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[optind], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		prf_set_state(p, 0);
		ret = 1;
		goto restore;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if ((ret = set_state(p, c.dev, 0)))
		goto restore;
	if ((ret = snap_to_file(p, &c, out, &t, NULL)))
		goto restore;
	if (read_snapfile(out, &f)) {
		ret = 1;
		goto restore;
	}
	if (report_from_file(&r, &f, (long)f.nsnaps - 1, (long)f.nsnaps, err, sizeof(err))) {
		msg("%s: %s", out, err);
		ret = 1;
	} else {
		ro.file = tmpfd >= 0 ? NULL : out;
		report_print(stdout, &r, &ro);
		if (o.pprof && pprof_write(o.pprof, &r, &ro, err, sizeof(err))) {
			msg("%s", err);
			ret = 1;
		}
		report_free(&r);
	}
	snapfile_free(&f);
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		msg("%s exited with status %d", argv[optind], WEXITSTATUS(status));
		ret = 1;
	} else if (WIFSIGNALED(status)) {
		msg("%s killed by signal %d (%s)", argv[optind], WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		ret = 1;
	}
restore:
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
out:
	if (tmpfd >= 0)
		unlink(tmp);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}
