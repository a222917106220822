// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf clear: zero the counters.
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
/* prf clear                                                           */

static void help_clear(void)
{
	printf("Usage: %s [-f DEVICE]\n"
	       "Zero every counter of the loaded table; keep the table and the state.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf)\n"
	       "  -h, --help        this help\n", prog);
}

int cmd_clear(int argc, char **argv)
{
	static const struct cmd_opts co = { NULL, NULL, 0, help_clear, NULL, 0, 0, NULL };
	struct common c;
	struct prf *p;
	int ret;

	if ((ret = parse_opts(&co, &c, argc, argv, NULL)) != OPTS_OK)
		return ret;
	if (open_dev(c.dev, O_RDWR, &p))
		return 1;
	ret = prf_clear(p);
	if (ret)
		ret = dev_fail(c.dev, "PRF_CLEAR", ret);
	prf_close(p);
	return ret;
}
