// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf ld, prfld: load the kernel's function addresses.
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
#include "usym.h"

/* ------------------------------------------------------------------ */
/* prfld                                                               */

static void help_ld(void)
{
	printf("Usage: %s [-f DEVICE] [-m MODULES] [--step BYTES [--range START-END]] [NAMELIST]\n"
	       "       %s [-f DEVICE] -p PID | -G CGROUP\n"
	       "Load the start address of every kernel text function into the profiler.\n"
	       "With -p or -G, the user functions of a process or of a cgroup's processes\n"
	       "first (from their mappings' ELF symbols, the object's file name as the\n"
	       "module), then the kernel's; only that process or cgroup is counted (a\n"
	       "filter) and its user PCs are looked up in the table (PRF_FLAG_USERPC).\n\n"
	       "  -p, --pid PID       a process (every thread of it)\n"
	       "  -G, --cgroup DIR    a cgroup v2 directory and its descendants: the user\n"
	       "                      functions of the processes in it now\n"
	       "                      (without -p or -G: every task, no user functions)\n"
	       "  NAMELIST            /proc/kallsyms (default), a System.map or an ELF vmlinux;\n"
	       "                      System.map and vmlinux are moved by the KASLR offset\n"
	       "                      measured from the running kernel's _text\n"
	       "  -f, --device DEV    the device (default /dev/prf; /dev/prfN: CPU N alone)\n"
	       "  -m, --modules LIST  only these modules, comma-separated; 'kernel' is the\n"
	       "                      kernel itself (e.g. -m kernel,ext4)\n"
	       "  -s, --step BYTES    fixed-width buckets of BYTES instead of functions\n"
	       "  -r, --range S-E     the buckets' range: hex addresses or function names\n"
	       "                      (default: the kernel's text, _stext to _etext; with -m,\n"
	       "                      the selected functions, first to last sentinel)\n"
	       "  -k, --kaslr-offset N  use this KASLR offset (hex) instead of measuring it\n"
	       "      --dry-run       print the table (address kind module name), load nothing\n"
	       "  -q, --quiet         say nothing when it worked\n"
	       "  -h, --help          this help\n", prog, prog);
}

static int ld_opt(void *ctx, int opt, const char *arg)
{
	struct ld_opts *o = ctx;
	uint64_t v;
	int neg;

	switch (opt) {
	case 'm': o->only = arg; break;
	case 's':
		if (parse_u64(arg, &o->step, 0) || !o->step)
			return usage_error("--step %s: want a positive byte count", arg);
		break;
	case 'r': o->range = arg; break;
	case 'k':
		neg = *arg == '-';
		if (parse_u64(arg + neg, &v, 16))
			return usage_error("--kaslr-offset %s: want a hex number", arg);
		o->have_off = 1;
		o->off = neg ? -(int64_t)v : (int64_t)v;
		break;
	case OPT_DRY_RUN: o->dry = 1; break;
	case 'q': o->quiet = 1; break;
	case 'p':
		if (parse_u64(arg, &v, 10) || !v || v > INT_MAX)
			return usage_error("-p %s: want a process ID", arg);
		o->pid = (pid_t)v;
		break;
	case 'G': o->cgroup = arg; break;
	}
	return 0;
}

/*
 * A kernel table counts every task: undo what prfld -p/-G set (USERPC
 * first, which the device wants with a filter).  Nothing on a device
 * without filters.
 */
static int every_task(struct prf *p, const char *dev)
{
	struct prf_filter f;
	uint32_t fl = 0;
	int ret;

	if (prf_get_filter(p, &f) || f.type == PRF_FILTER_NONE)
		return 0;
	if (!prf_get_flags(p, &fl) && (fl & PRF_FLAG_USERPC) &&
	    (ret = prf_set_flags(p, fl & ~(uint32_t)PRF_FLAG_USERPC)))
		return dev_fail(dev, "PRF_SETFLAGS", ret);
	if ((ret = prf_set_filter_none(p)))
		return dev_fail(dev, "PRF_SETFILTER", ret);
	return 0;
}

/* prfld -p PID / -G CGROUP. */
static int ld_target(const struct common *c, const struct ld_opts *o)
{
	struct target tg = { o->pid, o->cgroup };
	struct prf *p = NULL;
	size_t nu = 0, nt = 0, i;
	int ret, st;

	if (o->dry) {
		struct symtab t;
		pid_t *pids = NULL, one = o->pid;
		size_t np = 1;
		char err[512];

		if (o->cgroup && usym_cgroup_pids(o->cgroup, &pids, &np, err, sizeof(err))) {
			msg("%s", err);
			return 1;
		}
		ret = user_table(c, o->cgroup ? pids : &one, np, DRY_RUN_MAX, &t);
		free(pids);
		if (ret)
			return ret;
		for (i = 0; i < t.n; i++)
			printf("%016" PRIx64 " %s %s %s\n", t.v[i].addr, report_kind(t.v[i].kind),
			       t.v[i].module ? t.v[i].module : "kernel",
			       t.v[i].name[0] ? t.v[i].name : "-");
		symtab_free(&t);
		return 0;
	}
	if (open_status(c->dev, O_RDWR, &p, &st))
		return 1;
	if (st & PRF_STATUS_ON) {
		msg("%s: sampling is ON: run 'prfstat -f %s off' before loading", c->dev, c->dev);
		prf_close(p);
		return 1;
	}
	ret = load_target(p, c, &tg, &nu, &nt);
	if (!ret && !o->quiet) {
		printf("%s: loaded %zu addresses (%zu user, %zu kernel) into %s; ", prog, nt, nu,
		       nt - nu, c->dev);
		if (o->cgroup)
			printf("counting cgroup %s alone\n", o->cgroup);
		else
			printf("counting process %d alone\n", (int)o->pid);
	}
	prf_close(p);
	return ret;
}

int cmd_ld(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "modules", required_argument, NULL, 'm' },
		{ "step", required_argument, NULL, 's' },
		{ "range", required_argument, NULL, 'r' },
		{ "kaslr-offset", required_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"m:s:r:k:qp:G:", lo, CO_KALLSYMS | CO_MODULES, help_ld, ld_opt, 0, 1, NULL,
	};
	struct common c;
	struct ld_opts o = { 0 };
	struct prf *p = NULL;
	struct symtab t;
	int ret, max = 0, st;
	size_t i, nf = 0, ns = 0;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	if (o.range && !o.step)
		return usage_error("--range needs --step");
	if (optind < argc)
		o.namelist = argv[optind];
	if (o.pid && o.cgroup)
		return usage_error("-p and -G exclude each other");
	if ((o.pid || o.cgroup) && (o.namelist || o.step || o.only || o.have_off))
		return usage_error("-p and -G load the running kernel's functions: not with "
				   "-m, --step, --kaslr-offset or a NAMELIST");
	if (o.pid || o.cgroup)
		return ld_target(&c, &o);
	if (!o.dry) {
		if (open_dev(c.dev, O_RDWR, &p))
			return 1;
		max = prf_get_max(p);
		if (max < 0) {
			ret = dev_fail(c.dev, "PRF_GETMAX", max);
			prf_close(p);
			return ret;
		}
		st = prf_get_status(p);
		if (st >= 0 && (st & PRF_STATUS_ON)) {
			msg("%s: sampling is ON: run 'prfstat -f %s off' before loading",
			    c.dev, c.dev);
			prf_close(p);
			return 1;
		}
	}
	/* No device to ask: a bound all the same (no runaway --step). */
	ret = build_table(&c, &o, o.dry ? DRY_RUN_MAX : (size_t)max, &t);
	if (ret) {
		prf_close(p);
		return ret;
	}
	for (i = 0; i < t.n; i++) {
		if (t.v[i].kind == SYM_SENTINEL)
			ns++;
		else
			nf++;
	}
	if (o.dry) {
		for (i = 0; i < t.n; i++)
			printf("%016" PRIx64 " %s %s %s\n", t.v[i].addr,
			       report_kind(t.v[i].kind),
			       t.v[i].module ? t.v[i].module : "kernel",
			       t.v[i].name[0] ? t.v[i].name : "-");
	} else {
		ret = load_table(p, c.dev, &t);
		if (!ret)
			ret = every_task(p, c.dev);
		if (!ret && !o.quiet)
			printf("%s: loaded %zu addresses (%zu %s, %zu end sentinel%s) into %s\n",
			       prog, t.n, nf, o.step ? "buckets" : "functions", ns,
			       ns == 1 ? "" : "s", c.dev);
	}
	symtab_free(&t);
	prf_close(p);
	return ret;
}
