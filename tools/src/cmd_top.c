// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf top: live view of the busiest functions.
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

/* ------------------------------------------------------------------ */
/* prf top                                                             */

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void help_top(void)
{
	printf("Usage: %s [-f DEVICE] [--hz N] [--fixed] [-d SECS] [-n COUNT] [--lines N]\n"
	       "Show the busiest kernel functions, refreshed every SECS (default 1),\n"
	       "until q or Ctrl-C.  Not on a terminal: one frame per interval.\n"
	       "Loads /proc/kallsyms when no table is loaded; turns sampling on and\n"
	       "back off at the end when it was off.\n\n"
	       "  -f, --device DEV     the device (default /dev/prf)\n"
	       "  -z, --hz N           sampling rate, %d..%d Hz\n"
	       "      --fixed          phase-locked: a sample every 1/hz exactly (--no-jitter)\n"
	       "      --jitter         one sample at a random point of every period (the default)\n"
	       "  -d, --delay SECS     refresh interval\n"
	       "  -n, --count N        stop after N frames (--iterations is the same)\n"
	       "  -m, --modules LIST   only these modules' functions ('kernel': the kernel)\n"
	       "      --of WHAT        percentages of kernel (default), busy or all samples\n"
	       "      --sort KEY       samples (default), address, name or module\n"
	       "      --lines N        functions per frame (default: fit the terminal, or 20)\n"
	       "  -h, --help           this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX);
}

struct top_opts {
	double delay;
	uint64_t iters, lines;
};

static int top_opt(void *ctx, int opt, const char *arg)
{
	struct top_opts *o = ctx;

	if (opt == 'n')
		return parse_positive("-n", arg, &o->iters, "count");
	if (opt == OPT_LINES)
		return parse_positive("--lines", arg, &o->lines, "count");
	if (parse_double(arg, &o->delay) || o->delay < 0.05 || o->delay > 3600)
		return usage_error("-d %s: want seconds, 0.05..3600", arg);
	return 0;
}

int cmd_top(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "lines", required_argument, NULL, OPT_LINES },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"d:n:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING | CO_REPORT, help_top, top_opt, 0, 0, NULL,
	};
	struct common c;
	struct snap_table t = { 0 };
	struct report_opts ro = { 0 };
	struct top_opts o = { 1.0, 0, 0 };
	struct prf *p;
	struct termios tio, raw;
	struct sigaction sa = { 0 }, oint, oterm;
	uint64_t *prev = NULL, *cur = NULL, *addrs = NULL, done = 0;
	uint64_t prev_out = 0, prev_lost = 0;
	int ret, st, was_on, tty_in, tty_out, n;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	ret = 0;
	if (open_status(c.dev, O_RDWR, &p, &st))
		return 1;
	was_on = st & PRF_STATUS_ON;
	if (was_on && (c.hz || c.fixed >= 0)) {
		/* Not ours to switch: the rate and the flags stay as they are. */
		msg("%s: %s: sampling is ON: turn it off first", c.dev,
		    c.hz ? "--hz" : c.fixed ? "--fixed" : "--jitter");
		prf_close(p);
		return 1;
	}
	if (!was_on && ((ret = ensure_loaded(p, &c, 0)) ||
			(ret = set_hz_flags(p, c.dev, c.hz, fixed_on(&c))) ||
			(ret = set_state(p, c.dev, 1)))) {
		prf_close(p);
		return ret;
	}
	tty_in = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &tio);
	tty_out = isatty(STDOUT_FILENO);
	if (tty_in) {
		raw = tio;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	sa.sa_handler = top_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	report_opts_from(&c, &ro);
	ro.cutoff = 0;
	n = 0;
	while (!top_stop) {
		struct prf_info info = { 0 };
		struct report r;
		struct winsize ws;
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int sz = prf_get_size(p), rc, ms = (int)(o.delay * 1000);
		struct timespec t0, t1;

		if (sz <= 0) {
			ret = sz < 0 ? dev_fail(c.dev, "PRF_GETSIZE", sz) :
				       (msg("%s: the table was unloaded", c.dev), 1);
			break;
		}
		if (sz != n) {
			/* (Re)loaded: start over. */
			free(prev);
			free(cur);
			free(addrs);
			n = sz;
			prev = calloc((size_t)n + 2, sizeof(*prev));
			cur = calloc((size_t)n + 2, sizeof(*cur));
			addrs = calloc((size_t)n, sizeof(*addrs));
			if (!prev || !cur || !addrs) {
				msg("%s", strerror(ENOMEM));
				ret = 1;
				break;
			}
			if ((rc = prf_read(p, addrs, prev, (size_t)n))) {
				if (rc == -ESTALE) {
					n = 0;
					continue;
				}
				ret = dev_fail(c.dev, "read", rc);
				break;
			}
			/* Name first: reading kallsyms is kernel work of our own. */
			resolve_table(&c, addrs, (size_t)n, &t);
			if ((rc = prf_read(p, NULL, prev, (size_t)n))) {
				if (rc == -ESTALE) {
					n = 0;
					continue;
				}
				ret = dev_fail(c.dev, "read", rc);
				break;
			}
			if (!prf_get_info(p, &info)) {
				prev_out = info.ticks_outside;
				prev_lost = info.ticks_lost;
			}
		}
		/* Wait one interval, or a key. */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			int left;

			clock_gettime(CLOCK_MONOTONIC, &t1);
			left = ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
					  (t1.tv_nsec - t0.tv_nsec) / 1000000);
			if (left <= 0 || top_stop)
				break;
			if (tty_in && poll(&pfd, 1, left) > 0) {
				char ch;

				if (read(STDIN_FILENO, &ch, 1) == 1 && (ch == 'q' || ch == 'Q'))
					top_stop = 1;
			} else if (!tty_in) {
				struct timespec d = { left / 1000, (left % 1000) * 1000000L };

				nanosleep(&d, NULL);
			}
		}
		if (top_stop)
			break;
		if ((rc = prf_read(p, NULL, cur, (size_t)n))) {
			if (rc == -ESTALE) {
				n = 0;
				continue;
			}
			ret = dev_fail(c.dev, "read", rc);
			break;
		}
		memset(&info, 0, sizeof(info));
		prf_get_info(p, &info);
		if (report_build(&r, &t, prev, cur,
				 info.ticks_outside >= prev_out ? info.ticks_outside - prev_out : 0,
				 info.ticks_lost >= prev_lost ? info.ticks_lost - prev_lost : 0)) {
			/* cleared meanwhile: count from zero */
			if (report_build(&r, &t, NULL, cur, info.ticks_outside, info.ticks_lost)) {
				ret = 1;
				break;
			}
		}
		ro.max_rows = o.lines ? (size_t)o.lines : 20;
		if (!o.lines && tty_out && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 14)
			ro.max_rows = (size_t)ws.ws_row - 13;
		if (tty_out)
			fputs("\033[H\033[2J", stdout);
		{
			time_t now = time(NULL);
			struct tm tm;
			char tb[32] = "";

			if (localtime_r(&now, &tm))
				strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
			printf("prf top - %s - %s - %u Hz - every %.2f s%s\n\n", c.dev, tb,
			       info.hz, o.delay, tty_in ? " - q quits" : "");
		}
		report_print(stdout, &r, &ro);
		if (!tty_out)
			printf("\n");
		fflush(stdout);
		report_free(&r);
		memcpy(prev, cur, ((size_t)n + 2) * sizeof(*cur));
		prev_out = info.ticks_outside;
		prev_lost = info.ticks_lost;
		if (o.iters && ++done >= o.iters)
			break;
	}
	if (tty_in)
		tcsetattr(STDIN_FILENO, TCSANOW, &tio);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	if (!was_on) {
		int rc = set_state(p, c.dev, 0);

		if (!ret)
			ret = rc;
	}
	free(prev);
	free(cur);
	free(addrs);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}
