// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf dc, prfdc: append snapshots periodically.
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
/* prfdc                                                               */

static void help_dc(void)
{
	printf("Usage: %s [-f DEVICE] FILE [PERIOD [OFF_HOUR]]\n"
	       "Append a snapshot to FILE now and every PERIOD minutes (default 10);\n"
	       "at OFF_HOUR (0-24, local time) turn sampling off and stop.\n"
	       "SIGINT or SIGTERM: a last snapshot, then exit 0.\n\n"
	       "  -f, --device DEV        the device (default /dev/prf)\n"
	       "      --period-seconds S  the period in seconds (for tests)\n"
	       "  -n, --count N           stop after N snapshots\n"
	       "  -h, --help              this help\n", prog);
}

struct dc_opts {
	uint64_t period, count;
	int period_set;
};

static int dc_opt(void *ctx, int opt, const char *arg)
{
	struct dc_opts *o = ctx;

	if (opt == 'n')
		return parse_positive("--count", arg, &o->count, "number");
	o->period_set = 1;
	return parse_positive("--period-seconds", arg, &o->period, "number");
}

int cmd_dc(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "period-seconds", required_argument, NULL, OPT_PERIOD_SEC },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"n:", lo, CO_KALLSYMS | CO_MODULES, help_dc, dc_opt, 1, 3,
		"want FILE [PERIOD [OFF_HOUR]]",
	};
	struct common c;
	struct snap_table t = { 0 };
	struct prf *p;
	struct dc_opts o = { 600, 0, 0 };
	uint64_t period, v, done = 0;
	int ret, off_hour = -1, st;
	const char *file;
	sigset_t set, old;
	time_t off_at = 0;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	period = o.period;
	file = argv[optind];
	if (argc - optind >= 2) {
		if (parse_u64(argv[optind + 1], &v, 10) || !v || v > 525600)
			return usage_error("period %s: want minutes, 1..525600", argv[optind + 1]);
		if (!o.period_set)
			period = v * 60;
	}
	if (argc - optind == 3) {
		if (parse_u64(argv[optind + 2], &v, 10) || v > 24)
			return usage_error("off_hour %s: want 0..24", argv[optind + 2]);
		off_hour = (int)v;
	}
	if (open_dev(c.dev, off_hour >= 0 ? O_RDWR : O_RDONLY, &p))
		return 1;
	st = prf_get_status(p);
	if (st >= 0 && !(st & PRF_STATUS_ON))
		msg("warning: %s: sampling is OFF ('prfstat -f %s on' starts it)", c.dev, c.dev);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (off_hour >= 0)
		off_at = next_off_time(time(NULL), off_hour);
	for (;;) {
		struct timespec to;
		time_t now;
		uint64_t wait = period;
		int sig;

		ret = snap_to_file(p, &c, file, &t, NULL);
		if (ret)
			break;
		done++;
		if (o.count && done >= o.count)
			break;
		now = time(NULL);
		if (off_at) {
			if (now >= off_at) {
				ret = set_state(p, c.dev, 0);
				break;
			}
			if ((uint64_t)(off_at - now) < wait)
				wait = (uint64_t)(off_at - now);
		}
		to.tv_sec = (time_t)wait;
		to.tv_nsec = 0;
		sig = sigtimedwait(&set, NULL, &to);
		if (sig > 0) {
			ret = snap_to_file(p, &c, file, &t, NULL);
			break;
		}
		if (off_at && time(NULL) >= off_at) {
			ret = snap_to_file(p, &c, file, &t, NULL);
			if (!ret)
				ret = set_state(p, c.dev, 0);
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}
