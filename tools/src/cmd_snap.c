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

/*
 * The instance's user objects table, its chains and their pairs with the
 * kernel stacks, when it has them (prfstat --user-objs set it up): read
 * for the snapshot's user objects record (type 8), which prfpr names; *u NULL when it has none (a prf.ko
 * without the table too).  0, or 1 said.
 */
static int snap_uobjs_read(struct prf *p, const char *dev, struct snap_uobjs **u)
{
	struct prf_uobjs h = { 0 };
	struct prf_uchains ch = { 0 };
	struct snap_uobjs *s;
	int ret, chains;

	*u = NULL;
	if (ioctl(prf_fd(p), PRF_GETUOBJS, &h) || !h.capacity)
		return 0;
	chains = !ioctl(prf_fd(p), PRF_GETUCHAINS, &ch) && ch.depth;
	s = calloc(1, sizeof(*s));
	if (!s) {
		msg("user objects: %s", strerror(ENOMEM));
		return 1;
	}
	/* the chains after the entries: the same files, at the same indices */
	ret = prf_read_uobjs(p, &s->h, &s->e, &s->f);
	if (ret) {
		snap_uobjs_free(s);
		return dev_fail(dev, "PRF_GETUOBJS", ret);
	}
	if (chains && (ret = prf_read_uchains(p, &s->ch, &s->recs, &s->cf))) {
		snap_uobjs_free(s);
		return dev_fail(dev, "PRF_GETUCHAINS", ret);
	}
	s->chains_on = chains && s->ch.depth;
	/* the pairs of kernel stacks and chains; a prf.ko before them: EINVAL */
	if (s->chains_on) {
		ret = prf_read_upairs(p, &s->ph, &s->precs, &s->pf);
		if (ret && ret != -EINVAL && ret != -ENOTTY) {
			snap_uobjs_free(s);
			return dev_fail(dev, "PRF_GETUPAIRS", ret);
		}
		s->pairs_on = !ret && s->ph.depth && s->ph.udepth;
	}
	*u = s;
	return 0;
}

int cmd_snap(int argc, char **argv)
{
	static const struct cmd_opts co = {
		NULL, NULL, CO_KALLSYMS | CO_MODULES, help_snap, NULL, 1, 1, "want one snapshot FILE",
	};
	struct common c;
	struct snap_table t = { 0 };
	struct snap_uobjs *u = NULL;
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
	ret = snap_uobjs_read(p, c.dev, &u);
	if (!ret)
		ret = snap_to_file_uobjs(p, &c, argv[optind], &t, NULL, u);
	snap_uobjs_free(u);
	snap_table_free(&t);
	prf_close(p);
	return ret;
}
