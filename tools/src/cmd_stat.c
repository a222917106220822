// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf stat, prfstat: switch sampling on or off, show the state.
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
#include "source.h"
#include "stacks.h"
#include "uobj.h"

/* ------------------------------------------------------------------ */
/* prfstat                                                             */

static void help_stat(void)
{
	printf("Usage: %s [-f DEVICE] [--hz N] [--fixed|--jitter] [--event E[:P]] [on|off]\n"
	       "Switch sampling on or off; with no argument, show the profiler's state.\n\n"
	       "  -f, --device DEV  the device (default /dev/prf; /dev/prfN: CPU N alone)\n"
	       "  -z, --hz N        set the sampling rate, %d..%d Hz (only while OFF)\n"
	       "  -e, --event E[:P] sample on a PMU counter of event E (cycles, instructions,\n"
	       "                    cache-misses, branch-misses, ref-cycles): every P events,\n"
	       "                    or about --hz a second without P; 'timer' samples on the\n"
	       "                    timer again (only while OFF); 'list': this machine's events\n"
	       "      --fixed       phase-locked: a sample every 1/hz exactly\n"
	       "                    (--no-jitter is the same)\n"
	       "      --jitter      stratified: one sample at a random point of every\n"
	       "                    period, same rate (what 'on' sets unless --fixed)\n"
	       "      --stacks D[,S] keep call stacks of up to D frames (1..%d; 0: off),\n"
	       "                    S distinct stacks (default %d) (only while OFF)\n"
	       "      --mode M      what to count: time (samples, the default), alloc-calls,\n"
	       "                    alloc-bytes (kernel allocations by call site), calls\n"
	       "                    (calls of the table's functions), offcpu (time tasks\n"
	       "                    wait off the CPU, by where they blocked) (only while OFF)\n"
	       "      --user-objs E[:F]  every user sample of any process named by the kernel\n"
	       "                    by file and offset, in a table of E (file, offset)\n"
	       "                    entries and F files (default %d:%d; 'off' frees it)\n"
	       "                    (only while OFF; prf top --user-objs names them)\n"
	       "      --user-chains D  the table also counts each user sample's call chain,\n"
	       "                    up to D frames (2..%d; 0: none, the table kept): the\n"
	       "                    table of --user-objs, else the one set up (none:\n"
	       "                    %d:%d); with --stacks, a sample in the kernel for a\n"
	       "                    process also as its chain joined to its kernel stack,\n"
	       "                    which prfsnap keeps (only while OFF; code built with\n"
	       "                    frame pointers)\n"
	       "  -q, --quiet       print nothing after switching\n"
	       "  -v, --verbose     after on or off, the whole state (default: its first line)\n"
	       "  -h, --help        this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX,
	       PRF_STACK_DEPTH_MAX, STACKS_DEFAULT_CAPACITY, UOBJ_CAPACITY, UOBJ_FILES,
	       PRF_UCHAIN_DEPTH_MAX, UOBJ_CAPACITY, UOBJ_FILES);
}

/*
 * The user objects table's line (nothing from a prf.ko without it), and
 * after a ';' its call chains' when it keeps them.
 */
static void uobj_status(struct prf *p)
{
	struct prf_uobjs h;
	struct prf_uchains ch;

	memset(&h, 0, sizeof(h));
	memset(&ch, 0, sizeof(ch));
	if (ioctl(prf_fd(p), PRF_GETUOBJS, &h))
		return;
	if (!h.capacity) {
		printf("%-15s off\n", "user objects");
		return;
	}
	printf("%-15s entries %u/%u, files %u/%u, lost %" PRIu64 ", dropped %" PRIu64
	       ", unmapped %" PRIu64, "user objects", h.used, h.capacity, h.files_used,
	       h.files_max, (uint64_t)h.lost, (uint64_t)h.dropped, (uint64_t)h.unmapped);
	/* a prf.ko without chains: EINVAL; with, and none set up: depth 0 */
	if (!ioctl(prf_fd(p), PRF_GETUCHAINS, &ch) && ch.depth)
		printf("; chains %u/%u of %u frames, dropped %" PRIu64, ch.used, ch.capacity,
		       ch.depth, (uint64_t)ch.dropped);
	putchar('\n');
}

/* The flags by name: "none", or e.g. "fixed isolated". */
static void print_flags(const struct prf_info *in)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ PRF_FLAG_JITTER, "jitter" },
		{ PRF_FLAG_FIXED, "fixed" },
		{ PRF_FLAG_ISOLATED, "isolated" },
	};
	size_t i;
	int any = 0;

	printf("%-15s", "flags");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (in->flags & names[i].bit) {
			printf(" %s", names[i].name);
			any = 1;
		}
	printf("%s\n", any ? "" : " none");
	printf("%-15s %s\n", "sampling", in->flags & PRF_FLAG_FIXED ? "fixed periods" :
	       in->version >= 2 || (in->flags & PRF_FLAG_JITTER) ? "randomized" :
	       "fixed periods");
}

/* The state: its first line alone unless verbose. */
static void print_status(struct prf *p, const char *dev, int verbose)
{
	struct prf_info in;
	int st = prf_get_status(p), n = prf_get_size(p), mx = prf_get_max(p);
	uint32_t hz = 0;

	printf("%s: sampling %s, %s\n", dev, st >= 0 && (st & PRF_STATUS_ON) ? "ON" : "OFF",
	       st >= 0 && (st & PRF_STATUS_LOADED) ? "table loaded" : "no table loaded");
	if (!verbose)
		return;
	printf("%-15s %d\n", "addresses", n < 0 ? 0 : n);
	printf("%-15s %d\n", "maximum", mx < 0 ? 0 : mx);
	if (prf_get_info(p, &in)) {
		if (!prf_get_hz(p, &hz))
			printf("%-15s %u Hz\n", "rate", hz);
		return;
	}
	printf("%-15s %u Hz (%u us per tick)\n", "rate", in.hz, in.usec_per_tick);
	print_flags(&in);
	if (in.cpu < 0)
		printf("%-15s all (%u covered)\n", "cpus", in.ncpus);
	else
		printf("%-15s CPU %d\n", "cpus", in.cpu);
	if (in.version >= 4 && in.size >= PRF_INFO_SIZE_V4 && in.mode == PRF_MODE_OFFCPU) {
		/* nanoseconds off the CPU: the times as times too */
		char t[32];

		printf("%-15s %" PRIu64 " ns (%s)\n", "ticks total", (uint64_t)in.ticks_total,
		       fmt_time_ns(in.ticks_total, t, sizeof(t)));
		printf("%-15s %" PRIu64 " ns (%s)\n", mode_bucket_name(in.mode, 0),
		       (uint64_t)in.ticks_user, fmt_time_ns(in.ticks_user, t, sizeof(t)));
		printf("%-15s %" PRIu64 " ns (%s)\n", mode_bucket_name(in.mode, 1),
		       (uint64_t)in.ticks_idle, fmt_time_ns(in.ticks_idle, t, sizeof(t)));
	} else if (in.version >= 4 && in.size >= PRF_INFO_SIZE_V4 && in.mode != PRF_MODE_TIME) {
		printf("%-15s %" PRIu64 "\n", "ticks total", (uint64_t)in.ticks_total);
		/* Counters N and N + 1 count other things in the other modes. */
		printf("%-15s %" PRIu64 "\n", mode_bucket_name(in.mode, 0), (uint64_t)in.ticks_user);
		printf("%-15s %" PRIu64 "\n", mode_bucket_name(in.mode, 1), (uint64_t)in.ticks_idle);
	} else {
		printf("%-15s %" PRIu64 "\n", "ticks total", (uint64_t)in.ticks_total);
		printf("%-15s %" PRIu64 "\n", "ticks user", (uint64_t)in.ticks_user);
		printf("%-15s %" PRIu64 "\n", "ticks idle", (uint64_t)in.ticks_idle);
	}
	printf("%-15s %" PRIu64 "\n", "ticks outside", (uint64_t)in.ticks_outside);
	printf("%-15s %" PRIu64 "\n", "ticks lost", (uint64_t)in.ticks_lost);
	if (in.version >= 2)
		printf("%-15s %" PRIu64 "\n", "ticks noregs", (uint64_t)in.ticks_noregs);
	printf("%-15s %.3f s\n", "time on", (double)in.on_ns / 1e9);
	printf("%-15s %" PRIu64 " bytes\n", "memory", (uint64_t)in.mem_bytes);
	if (in.version < 4 || in.size < PRF_INFO_SIZE_V4)
		return;
	printf("%-15s %s (%s)\n", "mode", mode_name(in.mode) ? mode_name(in.mode) : "?",
	       mode_unit(in.mode));
	if (in.mode != PRF_MODE_TIME)
		printf("%-15s %" PRIu64 "%s\n", "mode dropped", (uint64_t)in.mode_dropped,
		       in.mode == PRF_MODE_OFFCPU ? " waits (the table of waiting tasks full)" : "");
	if (in.mode == PRF_MODE_OFFCPU) {
		uint64_t start = 0, end = 0;

		if (prf_get_sched_text(p, &start, &end))
			printf("%-15s ?\n", "sched text");
		else if (!start && !end)
			printf("%-15s unset (waits count at the scheduler's functions)\n",
			       "sched text");
		else
			printf("%-15s %" PRIx64 "-%" PRIx64 "\n", "sched text", start, end);
	}
	if (in.stack_depth)
		printf("%-15s depth %u, capacity %u, dropped %" PRIu64 "\n", "stacks",
		       in.stack_depth, in.stack_capacity, (uint64_t)in.stacks_dropped);
	else
		printf("%-15s off\n", "stacks");
	if (in.version >= 5 && in.size >= PRF_INFO_SIZE_V5)
		printf("%-15s %u samples/s per CPU, %u in use (busiest CPU)\n", "budget",
		       in.sample_budget, in.budget_used);
	source_status(stdout, &in);
	uobj_status(p);
}

#define OPT_USER_OBJS_SETUP 1960
#define OPT_USER_CHAINS 1961

struct stat_opts {
	int quiet, verbose, mode;
	int uobjs;		/* --user-objs given */
	uint32_t ucap, ufiles;	/* its sizes, 0 0: off */
	int udepth;		/* --user-chains' depth, 0: none; -1: not given */
	struct stacks_opt so;
	struct source_opt src;
};

static int stat_opt(void *ctx, int opt, const char *arg)
{
	struct stat_opts *o = ctx;

	switch (opt) {
	case 'q': o->quiet = 1; break;
	case 'v': o->verbose = 1; break;
	case OPT_STACK_SETUP: return parse_stacks_opt(arg, &o->so);
	case OPT_MODE: return parse_mode_opt(arg, &o->mode);
	case 'e': return parse_event_opt("--event", arg, &o->src);
	case OPT_USER_OBJS_SETUP: {
		unsigned long e = 0, f = UOBJ_FILES;
		char *end;

		o->uobjs = 1;
		if (!strcmp(arg, "off")) {
			o->ucap = o->ufiles = 0;
			return 0;
		}
		errno = 0;
		e = strtoul(arg, &end, 10);
		if (!errno && *end == ':')
			f = strtoul(end + 1, &end, 10);
		if (errno || *end || !e || e > PRF_UOBJS_MAX || !f || f > PRF_UOBJ_FILES_MAX ||
		    arg[0] == '-')
			return usage_error("--user-objs %s: want ENTRIES 1..%d[:FILES 1..%d] or "
					   "off", arg, PRF_UOBJS_MAX, PRF_UOBJ_FILES_MAX);
		o->ucap = (uint32_t)e;
		o->ufiles = (uint32_t)f;
		return 0;
	}
	case OPT_USER_CHAINS: {
		uint64_t d;

		/* a chain of one frame is the entry itself: the kernel refuses it */
		if (parse_u64(arg, &d, 10) || d == 1 || d > PRF_UCHAIN_DEPTH_MAX)
			return usage_error("--user-chains %s: want DEPTH 2..%d (frames of a user "
					   "call chain) or 0 (none)", arg, PRF_UCHAIN_DEPTH_MAX);
		o->udepth = (int)d;
		return 0;
	}
	}
	return 0;
}

/*
 * --user-objs and --user-chains: PRF_SETUOBJS with the sizes --user-objs
 * gives, else (--user-chains alone) the table's own, or the defaults when
 * there is none; chains of --user-chains' depth, none without it (as
 * --user-objs always did).  --user-chains 0 alone without a table sets
 * none (capacity 0), which still refuses while ON, as every set-up does.
 * 0, or 1 said.
 */
static int set_uobjs(struct prf *p, const char *dev, const struct stat_opts *o)
{
	const char *opt = o->udepth >= 0 ? "--user-chains" : "--user-objs";
	uint32_t cap = o->ucap, files = o->ufiles, depth = o->udepth > 0 ? (uint32_t)o->udepth : 0;
	struct prf_uobjs h;
	int ret;

	memset(&h, 0, sizeof(h));
	if (!o->uobjs) {
		ret = ioctl(prf_fd(p), PRF_GETUOBJS, &h) ? -errno : 0;
		if (ret && uobj_unsupported(ret)) {
			msg("%s: %s: this prf.ko has no user objects table", dev, opt);
			return 1;
		}
		if (ret)
			return dev_fail(dev, "PRF_GETUOBJS", ret);
		if (h.capacity) {
			cap = h.capacity;
			files = h.files_max;
		} else if (depth) {
			cap = UOBJ_CAPACITY;
			files = UOBJ_FILES;
		}
	}
	ret = prf_set_uobjs_chains(p, cap, files, depth);
	if (!ret)
		return 0;
	if (uobj_unsupported(ret) && cap) {
		/* which one is missing: the table answers PRF_GETUOBJS */
		if (depth && !ioctl(prf_fd(p), PRF_GETUOBJS, &h))
			msg("%s: --user-chains: this prf.ko has no user call chains", dev);
		else
			msg("%s: %s: this prf.ko has no user objects table", dev, opt);
		return 1;
	}
	return dev_fail(dev, "PRF_SETUOBJS", ret);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "stacks", required_argument, NULL, OPT_STACK_SETUP },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "event", required_argument, NULL, 'e' },
		{ "user-objs", required_argument, NULL, OPT_USER_OBJS_SETUP },
		{ "user-chains", required_argument, NULL, OPT_USER_CHAINS },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = { "qve:", lo, CO_SAMPLING | CO_KALLSYMS, help_stat,
					    stat_opt, 0, 1, NULL };
	struct common c;
	struct prf *p;
	struct stat_opts o = { .mode = -1, .udepth = -1 };
	int fixed, quiet, want = -1, ret, st, setup;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	quiet = o.quiet;
	setup = o.mode >= 0 || o.so.set || o.src.set;
	if (o.udepth > 0 && o.uobjs && !o.ucap)
		return usage_error("--user-chains %d: chains are kept in the user objects table, "
				   "which --user-objs off frees", o.udepth);
	if (o.src.list) {
		if (o.src.set || o.mode >= 0 || o.so.set || optind < argc)
			return usage_error("--event list takes nothing else");
		if (open_dev(c.dev, O_RDONLY, &p))
			return 1;
		ret = print_events(p, c.dev);
		prf_close(p);
		return ret;
	}
	if (optind < argc) {
		if (!strcmp(argv[optind], "on"))
			want = 1;
		else if (!strcmp(argv[optind], "off"))
			want = 0;
		else
			return usage_error("%s: want 'on' or 'off'", argv[optind]);
	}
	if (open_status(c.dev, want >= 0 || c.hz || c.fixed >= 0 || setup || o.uobjs ||
			o.udepth >= 0 ?
			O_RDWR : O_RDONLY,
			&p, &st))
		return 1;
	/* Only what switches sampling on from OFF takes the default. */
	fixed = c.fixed;
	if (want == 1 && (st & PRF_STATUS_LOADED) && !(st & PRF_STATUS_ON))
		fixed = fixed_on(&c);
	if ((want == 0 && (ret = set_state(p, c.dev, 0))) ||
	    (ret = set_hz_flags(p, c.dev, c.hz, fixed)) ||
	    (setup && (ret = apply_mode_stacks(p, &c, o.mode, &o.so))) ||
	    (ret = apply_source(p, c.dev, &o.src)))
		goto out;
	if ((o.uobjs || o.udepth >= 0) && (ret = set_uobjs(p, c.dev, &o)))
		goto out;
	if (want == 1) {
		if (!(st & PRF_STATUS_LOADED)) {
			msg("%s: no table loaded: run prfld first", c.dev);
			ret = 1;
			goto out;
		}
		if ((ret = set_state(p, c.dev, 1)))
			goto out;
		if (!quiet)
			calls_refused_note(p, c.dev);
	}
	/* on, off: a line to confirm (-v: the whole state); else the state */
	if (!quiet || want < 0)
		print_status(p, c.dev, want < 0 || o.verbose);
out:
	prf_close(p);
	return ret;
}
