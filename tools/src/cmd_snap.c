// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf snap, prfsnap: append a snapshot to a file.
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
/* prfsnap                                                             */

static void help_snap(void)
{
	printf("Usage: %s [-f DEVICE] FILE\n"
	       "Append one snapshot of every counter, with the symbol names, to FILE.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf; /dev/prfN: CPU N alone)\n"
	       "  -h, --help        this help\n", prog);
}

int cmd_snap(int argc, char **argv)
{
	static const struct cmd_opts co = {
		NULL, NULL, CO_KALLSYMS | CO_MODULES, help_snap, NULL, 1, 1, "want one snapshot FILE",
	};
	struct common c;
	struct snap_table t = { 0 };
	struct prf *p;
	int ret;

	if ((ret = parse_opts(&co, &c, argc, argv, NULL)) != OPTS_OK)
		return ret;
	if (open_dev(c.dev, O_RDONLY, &p))
		return 1;
	ret = snap_to_file(p, &c, argv[optind], &t, NULL);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}
