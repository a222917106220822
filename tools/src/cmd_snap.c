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

/*
 * FILE can be appended to, checked before the snapshot is taken: naming the
 * table reads the kernel's symbols, a second or more in a slow guest (and
 * prf record runs its command first), all for nothing when FILE's directory
 * does not exist.  A file made here is removed again (the append makes it).
 */
int snap_file_check(const char *file)
{
	int fd = open(file, O_RDWR | O_APPEND | O_CLOEXEC), made = 0;

	if (fd < 0 && errno == ENOENT) {
		fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		made = fd >= 0;
	}
	if (fd < 0) {
		msg("%s: %s", file, strerror(errno));
		return 1;
	}
	close(fd);
	if (made)
		unlink(file);
	return 0;
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
	if (snap_file_check(argv[optind])) {
		prf_close(p);
		return 1;
	}
	ret = snap_to_file(p, &c, argv[optind], &t, NULL);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}
