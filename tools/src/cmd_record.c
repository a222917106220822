// SPDX-License-Identifier: GPL-2.0-only
/*
 * prf record: profile one command, one process or one cgroup, kernel and
 * user side, on a private instance (/dev/prfclone) of its own.
 *
 * -- COMMAND: the child is forked into a fresh cgroup v2 (under the caller's
 * cgroup, else under the cgroup v2 root; a tgid filter when there is no
 * writable cgroup v2) and runs under ptrace(2) until its program's entry
 * point: the exec has happened and the dynamic loader has mapped every
 * shared object the program needs, so /proc/PID/maps then names them all.
 * The table (its user functions, then the kernel's) is loaded, the filter
 * set, sampling turned on, the entry point's instruction put back and the
 * child let go.  Without ptrace (refused, or an architecture we do not
 * know), the user samples are counted in the user bucket alone.
 *
 * With the user objects table (a prf.ko that has it, the time mode) no
 * stop is needed: the kernel names every user PC by file and offset
 * (uobj.h), and with -g also counts each user sample's call chain, which
 * joins the kernel's stacks in the report.
 *
 * Those chains are walked by the unwind tables (--unwind cfi, the default
 * where prf.ko has them): the module copies the user stack at each sample
 * and walks the copy with the tables of the files mapped, which a thread of
 * ours builds and loads as the target maps them (unwind.h).  The command
 * is then stopped at its entry point all the same, its program's and
 * libraries' tables loaded before it runs, so that no sample of its start
 * waits for them.  --unwind fp: frame records, as before.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "pprof.h"
#include "source.h"
#include "stacks.h"
#include "irqoff.h"
#include "uobj.h"
#include "unwind.h"

#define TASKS_CAPACITY 4096	/* prf record --tasks: processes kept */
#define OPT_USER_OBJS 1960	/* --user-objs ENTRIES[:FILES] */
#define OPT_NO_USER_OBJS 1961	/* --no-user-objs */
#define OPT_UNWIND 1962		/* --unwind cfi|fp */
#define OPT_UNWIND_MAX 1963	/* --unwind-max MIB */

static void help_record(void)
{
	printf("Usage: %s [-p PID | -G CGROUP] [-o FILE] [--hz N] [--fixed] [-e EVENT[:P]]\n"
	       "       [-c CUTOFF] [--tasks] [--csv|--json|--folded] [-g [--callers|--callees FUNC]]\n"
	       "       [-- COMMAND [ARG...]]\n"
	       "Profile COMMAND and its children, or a running process (-p), or a\n"
	       "cgroup (-G), kernel and user side, on a private instance of its own\n"
	       "(/dev/prfclone): /dev/prf and its table, state and counters are left\n"
	       "alone.  User functions come from the ELF symbols of every executable\n"
	       "mapping (module column: the object's file name), kernel functions from\n"
	       "/proc/kallsyms.\n\n"
	       "  -- COMMAND        run it in a fresh cgroup v2 (beside prf's own, else\n"
	       "                    under the cgroup v2 root; removed afterwards) and\n"
	       "                    profile that cgroup from COMMAND's entry point to its\n"
	       "                    exit; without a writable cgroup v2, COMMAND's process\n"
	       "                    alone (its children are then missed)\n"
	       "  -p, --pid PID     profile process PID (its threads); until it exits, or\n"
	       "                    while COMMAND runs when one is given (e.g. -- sleep 5),\n"
	       "                    or until Ctrl-C\n"
	       "  -G, --cgroup DIR  profile the cgroup v2 DIR and its descendants; until it\n"
	       "                    is empty, COMMAND exits, or Ctrl-C\n"
	       "      --no-cgroup   COMMAND's process alone (a tgid filter), no cgroup\n"
	       "  -o, --output FILE keep the snapshot in FILE (appended)\n"
	       "  -z, --hz N        sampling rate, %d..%d Hz\n"
	       "      --fixed       phase-locked: a sample every 1/hz exactly (--no-jitter)\n"
	       "      --jitter      one sample at a random point of every period (the default)\n"
	       "  -e, --event E[:P] sample on a PMU counter of event E (cycles, instructions,\n"
	       "                    cache-misses, branch-misses, ref-cycles: 'prfstat --event\n"
	       "                    list'), every P events or about --hz a second\n"
	       "  -c, --cutoff P    report cutoff, percent of kernel samples (default 1)\n"
	       "  -m, --modules LIST  report only these modules' functions ('kernel': the kernel)\n"
	       "      --of WHAT     percentages of kernel (default), busy or all samples\n"
	       "      --sort KEY    samples (default), address, name or module\n"
	       "  -t, --tasks       also the samples of each process (pid, comm, kernel, user)\n"
	       "      --user-objs ENTRIES[:FILES]  the size of the user objects table (default\n"
	       "                    %d:%d): distinct (file, offset) entries and files\n"
	       "      --no-user-objs  no user objects table: user functions of the mappings\n"
	       "                    at the entry point alone (as with an older prf.ko)\n"
	       "  -g, --call-graph  also count call stacks (--folded: real stacks): the\n"
	       "                    kernel's, and with the user objects table each user\n"
	       "                    sample's call chain (%d frames, up to %d with\n"
	       "                    --stack-depth; the table then %d:%d unless --user-objs)\n"
	       "      --unwind HOW  with -g, how user chains are walked: cfi (the default\n"
	       "                    where prf.ko can): by the unwind tables of the call\n"
	       "                    frame information (.eh_frame, .debug_frame) of each\n"
	       "                    file the target maps, built and loaded as it maps\n"
	       "                    them, true without frame pointers; fp: by frame\n"
	       "                    records (code built with -fno-omit-frame-pointer)\n"
	       "      --unwind-max MIB  memory for those tables in the kernel (default %u;\n"
	       "                    a file past it gets none: its chains end there)\n"
	       "      --stack-depth D  frames kept per stack with -g, 1..%d (default %d)\n"
	       "      --callers FUNC  with -g: who calls FUNC (a kernel or user function),\n"
	       "                    instead of the report\n"
	       "      --callees FUNC  with -g: what FUNC calls ([self]: FUNC was sampled)\n"
	       "      --irqoff-to-caller  with -g: charge a sample where interrupts came\n"
	       "                    back on (a row marked *) to the caller that held them off\n"
	       "      --mode M      what to count: time (default), alloc-calls, alloc-bytes,\n"
	       "                    calls, or offcpu: the time COMMAND's tasks wait off the\n"
	       "                    CPU, by the kernel function where they blocked\n"
	       "      --csv, --json, --folded   report format\n"
	       "      --no-demangle user functions by their symbols (default: C++ and Rust\n"
	       "                    names demangled)\n"
	       "      --pprof OUT   also write the report to OUT as pprof's gzipped profile.proto\n"
	       "  -h, --help        this help\n\n"
	       "User functions (time mode): every user sample of the target's processes\n"
	       "(COMMAND, what it execs, all its children) is named in the kernel by the\n"
	       "file that maps its PC and the offset in that file (the user objects\n"
	       "table), then by that file's ELF symbols (.symtab, the debug file by\n"
	       "build ID under /usr/lib/debug, .dynsym); the module column is the\n"
	       "program.  A file deleted or replaced since is shown as such, unnamed;\n"
	       "\"[user, unnamed]\" counts the samples the table lost, dropped (full) or\n"
	       "found unmapped.  A per-program view follows the report.  With a prf.ko\n"
	       "without the table (or --no-user-objs), user names are those of the\n"
	       "processes' mappings when sampling starts (for COMMAND: at its entry point,\n"
	       "where ptrace(2) stops it); programs a child execs count in the user total.\n",
	       prog, PRF_HZ_MIN, PRF_HZ_MAX, UOBJ_CAPACITY, UOBJ_FILES, UOBJ_CHAIN_DEPTH,
	       PRF_UCHAIN_DEPTH_MAX, UOBJ_CHAIN_CAPACITY, UOBJ_FILES, UNWIND_BOUND_DEFAULT >> 20,
	       PRF_STACK_DEPTH_MAX, STACKS_DEFAULT_DEPTH);
}

struct record_opts {
	const char *out;
	double cutoff;
	struct target tg;
	int tasks, no_cgroup;
	const char *pprof;
	int mode;		/* --mode, -1: the device's */
	struct stacks_opt so;	/* -g, --stack-depth */
	int depth_given;
	struct source_opt src;	/* -e */
	int irqoff_to_caller;	/* --irqoff-to-caller */
	uint32_t uobj_cap, uobj_files;	/* --user-objs, 0: --no-user-objs */
	int uobj_given;		/* --user-objs given */
	int uobj_on;		/* the instance has the table */
	int uchains_on;		/* ... and user call chains (-g) */
	int unwind_fp;		/* --unwind fp */
	int unwind_given;	/* --unwind or --unwind-max given */
	uint64_t unwind_max;	/* --unwind-max, bytes */
	int cfi_on;		/* the chains walked by the tables */
	const char *neighbour;	/* --callers/--callees FUNC */
	int callees;
};

static int record_opt(void *ctx, int opt, const char *arg)
{
	struct record_opts *o = ctx;
	uint64_t v;

	switch (opt) {
	case 'o':
		o->out = arg;
		return 0;
	case 'p':
		if (parse_u64(arg, &v, 10) || !v || v > INT_MAX)
			return usage_error("-p %s: want a process ID", arg);
		o->tg.pid = (pid_t)v;
		return 0;
	case 'G':
		o->tg.cgroup = arg;
		return 0;
	case 't':
		o->tasks = 1;
		return 0;
	case OPT_NO_CGROUP:
		o->no_cgroup = 1;
		return 0;
	case 'g':
		o->so.set = 1;
		return 0;
	case OPT_STACK_DEPTH:
		o->depth_given = 1;
		return parse_stack_depth(arg, &o->so);
	case OPT_MODE:
		return parse_mode_opt(arg, &o->mode);
	case 'e':
		return parse_event_opt("-e", arg, &o->src);
	case OPT_IRQOFF_TO_CALLER:
		o->irqoff_to_caller = 1;
		return 0;
	case OPT_CALLERS:
	case OPT_CALLEES:
		if (o->neighbour)
			return usage_error("--callers and --callees: one of them, once");
		o->neighbour = arg;
		o->callees = opt == OPT_CALLEES;
		return 0;
	case OPT_NO_USER_OBJS:
		o->uobj_cap = o->uobj_files = 0;
		return 0;
	case OPT_UNWIND:
		if (unwind_parse_how(arg, &o->unwind_fp))
			return usage_error("--unwind %s: want cfi or fp", arg);
		o->unwind_given = 1;
		return 0;
	case OPT_UNWIND_MAX:
		if (unwind_parse_max(arg, &o->unwind_max))
			return usage_error("--unwind-max %s: want MiB 1..%d", arg,
					   PRF_UNWIND_BYTES_MAX >> 20);
		o->unwind_given = 1;
		return 0;
	case OPT_USER_OBJS: {
		char *colon = strchr(arg, ':'), *a = strdup(arg);
		uint64_t f = o->uobj_files;

		if (!a)
			return usage_error("%s", strerror(ENOMEM));
		if (colon)
			a[colon - arg] = '\0';
		if (parse_u64(a, &v, 10) || !v || v > PRF_UOBJS_MAX ||
		    (colon && (parse_u64(colon + 1, &f, 10) || !f || f > PRF_UOBJ_FILES_MAX))) {
			free(a);
			return usage_error("--user-objs %s: want ENTRIES 1..%d[:FILES 1..%d]", arg,
					   PRF_UOBJS_MAX, PRF_UOBJ_FILES_MAX);
		}
		free(a);
		o->uobj_cap = (uint32_t)v;
		o->uobj_files = (uint32_t)f ? (uint32_t)f : UOBJ_FILES;
		o->uobj_given = 1;
		return 0;
	}
	}
	if (opt == OPT_PPROF) {
		o->pprof = arg;
		return 0;
	}
	return parse_cutoff(arg, &o->cutoff);
}

/*
 * --callers/--callees FUNC: the view of r's stacks (the kernel's and the
 * user call chains) instead of the report.  0, or 1 (said).
 */
#define RECORD_TOP_STACKS 5	/* stacks shown by -g's text report */

static int record_neighbours(const struct report *r, const struct record_opts *o,
			     const struct report_opts *ro)
{
	struct stackview sv;
	char err[SNAP_ERRLEN];
	int ret = stacks_of_report(r, &sv, err, sizeof(err));

	if (ret < 0) {
		msg("%s", err);
		return 1;
	}
	if (!ret) {
		msg("no stacks were taken");
		return 1;
	}
	ret = stacks_print_neighbours(stdout, &sv, o->neighbour, o->callees, ro->format,
				      ro->max_rows, 0);
	stackview_free(&sv);
	if (ret > 0)
		msg("%s is in no stack%s", o->neighbour, o->uchains_on ? "" :
		    " (the kernel's alone: no user call chains were taken)");
	return ret ? 1 : 0;
}

/* The text report's count of the samples the filter left out. */
static void print_filtered(struct prf *p)
{
	struct prf_info in;

	if (!prf_get_info(p, &in) && in.size >= PRF_INFO_SIZE_V3)
		printf("%-10s %10" PRIu64 "  %s of other processes, left out by the "
		       "filter\n", "filtered", (uint64_t)in.ticks_filtered,
		       in.version >= 4 && in.size >= PRF_INFO_SIZE_V4 ?
		       mode_unit(in.mode) : "samples");
}

/* -g's text report: the top stacks after the flat table (none: nothing). */
static void record_top_stacks(const struct report *r)
{
	struct stackview sv;
	char err[SNAP_ERRLEN];
	int ret = stacks_of_report(r, &sv, err, sizeof(err));

	if (ret < 0) {
		msg("%s", err);
		return;
	}
	if (ret) {
		printf("\n");
		stacks_print_top(stdout, &sv, RECORD_TOP_STACKS);
		stackview_free(&sv);
	}
}

/* --irqoff-to-caller on the report: 0, or 1 after saying why not (it prints as it is). */
static int record_irqoff(const char *file, struct report *r)
{
	char err[SNAP_ERRLEN];
	int ret;

	if (!irqoff_applies(r)) {
		msg("%s: --irqoff-to-caller: the instance counted %s, not time", file,
		    mode_unit(report_mode(r)));
		return 1;
	}
	ret = irqoff_to_caller(r, err, sizeof(err));
	if (ret)
		msg("%s: --irqoff-to-caller: %s", file, ret < 0 ? err : "no stacks were taken");
	return ret ? 1 : 0;
}

static volatile sig_atomic_t record_stop;

static void record_signal(int sig)
{
	(void)sig;
	record_stop = 1;
}

/* ------------------------------------------------------------------ */
/* The fresh cgroup of -- COMMAND                                      */

/* Create a cgroup for the command; its path (malloc'ed) or NULL. */
static char *make_cgroup(void)
{
	char *root = cgroup_v2_root(), *dir = NULL, line[4096];
	FILE *f;
	int pass;

	if (!root)
		return NULL;
	line[0] = '\0';
	f = fopen("/proc/self/cgroup", "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3))
				break;
		fclose(f);
	}
	if (strncmp(line, "0::", 3))
		line[3] = '\0';
	line[strcspn(line, "\n")] = '\0';
	/* Beside us (under our own cgroup), else under the root. */
	for (pass = 0; pass < 2; pass++) {
		const char *under = pass ? "" : line + 3;

		if (pass && !strcmp(line + 3, "/"))
			break;
		if (asprintf(&dir, "%s%s%sprf-record-%d", root, under,
			     under[0] && strcmp(under, "/") ? "/" : "/", (int)getpid()) < 0) {
			dir = NULL;
			break;
		}
		if (!mkdir(dir, 0755))
			break;
		free(dir);
		dir = NULL;
	}
	free(root);
	return dir;
}

static int join_cgroup(const char *dir, pid_t pid)
{
	char *procs = NULL;
	FILE *f;
	int ok;

	if (asprintf(&procs, "%s/cgroup.procs", dir) < 0)
		return -1;
	f = fopen(procs, "we");
	free(procs);
	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)pid);
	ok = fclose(f) == 0;
	return ok ? 0 : -1;
}

/* Remove the cgroup once empty (processes left behind keep it). */
static void remove_cgroup(const char *dir)
{
	int i;

	for (i = 0; i < 50 && rmdir(dir) && errno == EBUSY; i++) {
		struct timespec d = { 0, 20 * 1000000L };

		nanosleep(&d, NULL);
	}
	if (i == 50)
		msg("warning: %s: %s (processes of the command still run in it)", dir,
		    strerror(EBUSY));
}

/* ------------------------------------------------------------------ */
/* Stopping the command at its entry point                             */

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_ENTRY_STOP 1

static uint64_t auxv_entry(pid_t pid)
{
	char path[64];
	uint64_t kv[2], entry = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fread(kv, sizeof(kv), 1, f) == 1 && kv[0] != AT_NULL)
		if (kv[0] == AT_ENTRY)
			entry = kv[1];
	fclose(f);
	return entry;
}

static int get_pc(pid_t pid, struct user_regs_struct *r, uint64_t *pc)
{
	struct iovec io = { r, sizeof(*r) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io))
		return -1;
#ifdef __x86_64__
	*pc = r->rip;
#else
	*pc = r->pc;
#endif
	return 0;
}

static int set_pc(pid_t pid, struct user_regs_struct *r, uint64_t pc)
{
	struct iovec io = { r, sizeof(*r) };

#ifdef __x86_64__
	r->rip = pc;
#else
	r->pc = pc;
#endif
	return ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &io) ? -1 : 0;
}

/*
 * The child is stopped after its exec: run it to its entry point with a
 * breakpoint there.  0 stopped at the entry with the instruction restored,
 * 1 it died (status in *status), -1 no breakpoint possible (still stopped
 * after the exec).
 */
static int run_to_entry(pid_t pid, int *status)
{
	uint64_t entry = auxv_entry(pid), pc = 0;
	struct user_regs_struct r;
	long word, bp;
	int sig = 0;

	if (!entry)
		return -1;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno)
		return -1;
#ifdef __x86_64__
	bp = (long)(((unsigned long)word & ~0xffUL) | 0xccUL);		/* int3 */
#else
	bp = (long)(((unsigned long)word & ~0xffffffffUL) | 0xd4200000UL);	/* brk #0 */
#endif
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)bp))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig))
			return -1;
		while (waitpid(pid, status, 0) < 0)
			if (errno != EINTR)
				return -1;
		if (!WIFSTOPPED(*status))
			return 1;
		sig = WSTOPSIG(*status);
		if (sig != SIGTRAP)
			continue;	/* the program's own signal: deliver it */
		if (get_pc(pid, &r, &pc))
			return -1;
#ifdef __x86_64__
		if (pc == entry + 1)
			break;
#else
		if (pc == entry)
			break;
#endif
		sig = 0;	/* another trap of ours (none expected) */
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) || set_pc(pid, &r, entry))
		return -1;
	return 0;
}
#else
#define HAVE_ENTRY_STOP 0
#endif

/* ------------------------------------------------------------------ */

/* Is pid a live process (not gone, not a zombie waiting for its parent)? */
static int alive(pid_t pid)
{
	char path[64], buf[512], *rp;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* Until the target is gone (its processes exited), or a signal. */
static void wait_target(const struct target *tg)
{
	struct timespec d = { 0, 100 * 1000000L };

	while (!record_stop) {
		if (tg->pid > 0 && !alive(tg->pid))
			break;
		if (tg->cgroup) {
			char *procs = NULL;
			FILE *f;
			int pid, any = 0;

			if (asprintf(&procs, "%s/cgroup.procs", tg->cgroup) < 0)
				break;
			f = fopen(procs, "re");
			free(procs);
			while (f && !any && fscanf(f, "%d", &pid) == 1)
				any = alive(pid);
			if (f)
				fclose(f);
			if (!any)
				break;
		}
		nanosleep(&d, NULL);
	}
}

/*
 * The unwind tables of tg's processes (u NULL: none wanted): those of
 * held (a process stopped at its entry point, or the -p target) loaded
 * now, then the watcher's, every UNWIND_WATCH_MS until it is stopped.
 */
#define UNWIND_SAID 8	/* files without a table named after the run */
static void unwind_begin(struct unwind_loader *u, const struct target *tg, pid_t held)
{
	int ret;

	if (!u)
		return;
	if (held > 0 && unwind_load_pid(u, held) == -ENOMEM)
		msg("unwind tables: %s", strerror(ENOMEM));
	ret = unwind_watch_start(u, tg);
	if (ret)
		msg("warning: unwind tables: no thread to load them as files are mapped (%s)",
		    strerror(-ret));
}

/* Turn ON with everything set: the filter, the table, the tally. */
static int start(struct prf *p, const struct common *c, const struct target *tg,
		 const struct record_opts *o, int userpc)
{
	int ret;

	if (userpc && !o->uobj_on) {
		size_t nu = 0, nt = 0;

		if ((ret = load_target(p, c, tg, &nu, &nt)))
			return ret;
	} else {
		if ((ret = set_target_filter(p, c->dev, tg)) || (ret = ensure_loaded(p, c, 0)))
			return ret;
	}
	if (o->tasks && (ret = prf_set_tasks(p, TASKS_CAPACITY)))
		return dev_fail(c->dev, "PRF_SETTASKS", ret);
	if ((o->mode >= 0 || o->so.set) && (ret = apply_mode_stacks(p, c, o->mode, &o->so)))
		return ret;
	if ((ret = set_state(p, c->dev, 1)))
		return ret;
	calls_refused_note(p, c->dev);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cutoff", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "tasks", no_argument, NULL, 't' },
		{ "no-cgroup", no_argument, NULL, OPT_NO_CGROUP },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "stack-depth", required_argument, NULL, OPT_STACK_DEPTH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "event", required_argument, NULL, 'e' },
		{ "irqoff-to-caller", no_argument, NULL, OPT_IRQOFF_TO_CALLER },
		{ "user-objs", required_argument, NULL, OPT_USER_OBJS },
		{ "no-user-objs", no_argument, NULL, OPT_NO_USER_OBJS },
		{ "callers", required_argument, NULL, OPT_CALLERS },
		{ "callees", required_argument, NULL, OPT_CALLEES },
		{ "unwind", required_argument, NULL, OPT_UNWIND },
		{ "unwind-max", required_argument, NULL, OPT_UNWIND_MAX },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"+o:c:p:G:tge:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING | CO_FORMAT | CO_REPORT,
		help_record, record_opt, 0, INT_MAX, NULL,
	};
	struct common c;
	struct record_opts o = { NULL, 1.0, { 0, NULL }, 0, 0, NULL, -1,
				 { 0, STACKS_DEFAULT_DEPTH, STACKS_DEFAULT_CAPACITY }, 0,
				 { 0 }, 0, UOBJ_CAPACITY, UOBJ_FILES, 0, 0, 0,
				 0, 0, UNWIND_BOUND_DEFAULT, 0, NULL, 0 };
	struct unwind_loader *uw = NULL;	/* the tables' loader (--unwind cfi) */
	struct uobj_res ures = { 0 };
	struct snap_uobjs *su = NULL;	/* the table as read (--user-objs) */
	struct snap_table ut = { 0 };
	uint64_t user_total = 0;
	struct report_opts ro = { 0 };
	struct snap_table t = { 0 };
	struct target tg;
	struct prf *p = NULL;
	struct snapfile f;
	struct report r;
	struct cmd_signals sg;
	char tmp[] = "/tmp/prf-record-XXXXXX", err[SNAP_ERRLEN], *cg = NULL;
	const char *out, *dev_name = "/dev/" PRF_CLONE_NAME;
	int ret, status = 0, tmpfd = -1, have_cmd, gofd = -1, traced = 0, on = 0;
	int exec_err = 0;	/* the command's exec failed (the child said it) */
	pid_t pid = -1;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	have_cmd = optind < argc;
	if (o.tg.pid && o.tg.cgroup)
		return usage_error("-p and -G exclude each other");
	if (!have_cmd && !o.tg.pid && !o.tg.cgroup)
		return usage_error("want -p PID, -G CGROUP or a COMMAND to run");
	if (o.depth_given && !o.so.set)
		return usage_error("--stack-depth goes with -g");
	if (o.src.list)
		return usage_error("-e list: see 'prfstat --event list'");
	if (o.irqoff_to_caller && (!o.so.set || (o.mode >= 0 && o.mode != PRF_MODE_TIME)))
		return usage_error("--irqoff-to-caller goes with -g, in the time mode");
	if (o.neighbour && !o.so.set)
		return usage_error("--callers/--callees go with -g");
	if (strcmp(c.dev, PRF_DEVICE))
		return usage_error("-f: prf record runs on a private instance of its own");
	c.dev = dev_name;
	tg = o.tg;
	out = o.out;
	ro.cutoff = o.cutoff;
	report_opts_from(&c, &ro);
	if (o.neighbour && (o.pprof || ro.format == FMT_FOLDED))
		return usage_error("--callers/--callees go with the text, --csv and --json "
				   "reports alone");
	if (out && snap_file_check(out))
		return 1;	/* before the command runs */
	if (open_dev(c.dev, O_RDWR, &p)) {
		return 1;
	}
	/* the event checked before COMMAND runs, and set on the fresh instance */
	if ((ret = set_hz_flags(p, c.dev, c.hz, fixed_on(&c))) ||
	    (ret = source_check(p, c.dev, &o.src)) || (ret = apply_source(p, c.dev, &o.src)))
		goto out;
	/*
	 * The user objects table, in the time mode: every user sample of the
	 * target named by its file and offset, whatever process or program.
	 * Set on the fresh instance (a filter or a mode set later zeroes it
	 * and keeps its set-up).  An older prf.ko: said once, as before.
	 * With -g, each user sample's call chain too, of the depth asked (at
	 * most PRF_UCHAIN_DEPTH_MAX; a depth of 1 is the entry itself): a
	 * prf.ko without chains refuses the flag, which is said once when the
	 * table alone is taken.
	 */
	if (o.uobj_cap && (o.mode < 0 || o.mode == PRF_MODE_TIME)) {
		uint32_t max = o.depth_given ? PRF_UCHAIN_DEPTH_MAX : UOBJ_CHAIN_DEPTH;
		uint32_t d = o.so.depth < max ? o.so.depth : max;
		int chains = o.so.set && d >= 2, refused = 0;

		/*
		 * The kernel keeps as many chains as entries, each of the
		 * depth's frames (16 bytes a frame), and as many pairs of a
		 * kernel stack and a chain: unless given, a table of
		 * UOBJ_CHAIN_CAPACITY (4.5 MB of chains at 16 frames, as much
		 * again of pairs, where the default table with 32 frames
		 * would take 35 MB of each).
		 */
		if (chains && !o.uobj_given)
			o.uobj_cap = UOBJ_CHAIN_CAPACITY;

		if (chains && !o.unwind_fp) {
			ret = prf_set_uobjs_cfi(p, o.uobj_cap, o.uobj_files, d);
			if (!ret)
				o.cfi_on = 1;
			else if (uobj_unsupported(ret))
				msg("note: this prf.ko walks user chains by frame records alone "
				    "(PRF_UOBJ_CFI: %s): callers of code built without frame "
				    "pointers are not known", strerror(-ret));
		}
		if (chains && !o.cfi_on)
			ret = prf_set_uobjs_chains(p, o.uobj_cap, o.uobj_files, d);
		if (chains) {
			if (!ret)
				o.uchains_on = 1;
			else if (uobj_unsupported(ret))
				refused = ret;
		}
		if (refused && !o.uobj_given)
			o.uobj_cap = UOBJ_CAPACITY;	/* no chains: the default table */
		if (!chains || refused)
			ret = prf_set_uobjs(p, o.uobj_cap, o.uobj_files);
		if (!ret && refused)
			msg("note: this prf.ko has no user call chains (PRF_SETUOBJS with "
			    "PRF_UOBJ_CHAINS: %s): user functions without their callers",
			    strerror(-refused));
		if (!ret) {
			o.uobj_on = 1;
		} else if (uobj_unsupported(ret)) {
			msg("note: this prf.ko has no user objects table (PRF_SETUOBJS: %s): user "
			    "functions of the mappings at the start alone, as before", strerror(-ret));
			ret = 0;
		} else {
			ret = dev_fail(c.dev, "PRF_SETUOBJS", ret);
			goto out;
		}
	}
	if (o.cfi_on && !(uw = unwind_new(p, o.unwind_max))) {
		msg("unwind tables: %s", strerror(ENOMEM));
		ret = 1;
		goto out;
	}
	if (o.unwind_given && !o.cfi_on)
		msg("note: --unwind%s: %s", o.unwind_fp ? " fp" : "-max",
		    o.uchains_on || !o.so.set ? "no unwind tables to load" :
		    "no user chains here");
	if (!out) {
		tmpfd = cmd_mktemp(tmp);
		if (tmpfd < 0) {
			ret = 1;
			goto out;
		}
		out = tmp;
	}
	/* Like time(1): a command gets the terminal's signals, not us. */
	cmd_signals_take(&sg, have_cmd, record_signal);

	if (!tg.pid && !tg.cgroup) {
		/* -- COMMAND: a cgroup of its own, ptrace to its entry point. */
		char go;
		int st;

		/* no entry stop needed when the kernel names every user PC */
		/* ... but the tables wanted before the command runs (--unwind cfi) */
		int trace = o.uobj_on && !o.cfi_on ? 0 : HAVE_ENTRY_STOP;

		cg = o.no_cgroup ? NULL : make_cgroup();
spawn:
		pid = cmd_spawn_held(argv + optind, &sg, &gofd);
		if (pid < 0) {
			ret = 1;
			goto restore;
		}
		if (cg && join_cgroup(cg, pid)) {
			msg("warning: %s: cannot move the command there (%s): its process alone "
			    "is profiled", cg, strerror(errno));
			rmdir(cg);
			free(cg);
			cg = NULL;
		}
		if (cg)
			tg.cgroup = cg;
		else
			tg.pid = pid;
		go = trace ? 't' : 'n';
		if (go == 'n') {
			/* No entry stop: sampling starts before the exec. */
			if ((ret = start(p, &c, &tg, &o, 0))) {
				kill(pid, SIGKILL);
				goto reap;
			}
			on = 1;
			unwind_begin(uw, &tg, 0);
			if (!o.uobj_on)
				msg("warning: %s: user PCs not binned (no ptrace stop at its entry "
				    "point)", argv[optind]);
		}
		if (write(gofd, &go, 1) != 1) {
			msg("pipe: %s", strerror(errno));
			ret = 1;
			goto reap;
		}
		/* gofd kept open: a failed exec's errno comes back on it */
		if (go == 't') {
			st = cmd_wait(pid);
			if (!WIFSTOPPED(st)) {
				/* exec failed (said by the child) or ptrace refused */
				if ((exec_err = cmd_exec_error(gofd))) {
					status = st;
					pid = -1;
					goto restore;
				}
				if (WIFEXITED(st) && WEXITSTATUS(st) == 126) {
					/* Nothing of the command ran: again, untraced. */
					msg("warning: ptrace(PTRACE_TRACEME): not permitted "
					    "(kernel.yama.ptrace_scope?)");
					pid = -1;
					tg.pid = 0;
					trace = 0;
					close(gofd);
					gofd = -1;
					goto spawn;
				}
				status = st;
				pid = -1;
				ret = 1;
				goto restore;
			}
#if HAVE_ENTRY_STOP
			ret = run_to_entry(pid, &st);
			if (ret == 1) {
				status = st;
				pid = -1;
				ret = 0;
				msg("%s ended before its entry point: nothing sampled", argv[optind]);
				goto restore;
			}
			traced = 1;
			if (ret < 0)
				msg("warning: %s: no breakpoint at the entry point: its shared "
				    "objects are named as mapped at the exec", argv[optind]);
#endif
		}
		if (traced) {
			unwind_begin(uw, &tg, pid);
			ret = start(p, &c, &tg, &o, 1);
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
			if (ret) {
				kill(pid, SIGKILL);
				goto reap;
			}
			on = 1;
		}
reap:
		/* Until the command exits: children it leaves behind are not waited for. */
		status = cmd_wait(pid);
		if (uw)
			unwind_watch_stop(uw);
		exec_err = cmd_exec_error(gofd);
		pid = -1;
	} else {
		unwind_begin(uw, &tg, tg.pid);
		if ((ret = start(p, &c, &tg, &o, 1)))
			goto restore;
		on = 1;
		if (have_cmd) {
			pid = cmd_spawn_held(argv + optind, &sg, &gofd);
			if (pid < 0) {
				ret = 1;
			} else {
				if (write(gofd, "n", 1) != 1)
					msg("pipe: %s", strerror(errno));
				status = cmd_wait(pid);
				exec_err = cmd_exec_error(gofd);
			}
			pid = -1;
		} else {
			wait_target(&tg);
		}
		if (uw)
			unwind_watch_stop(uw);
	}
	if (uw)
		unwind_print(stderr, uw, UNWIND_SAID);
	if (on) {
		int rc = set_state(p, c.dev, 0);

		if (!ret)
			ret = rc;
	}
	if (ret || !on || exec_err)
		goto restore;
	if (o.uobj_on) {
		/* read the chains after the entries: the same files, at the same indices */
		su = calloc(1, sizeof(*su));
		if (!su) {
			msg("user objects: %s", strerror(ENOMEM));
			ret = 1;
			goto restore;
		}
		ret = prf_read_uobjs(p, &su->h, &su->e, &su->f);
		if (ret) {
			ret = dev_fail(c.dev, "PRF_GETUOBJS", ret);
			goto restore;
		}
		if (o.uchains_on && (ret = prf_read_uchains(p, &su->ch, &su->recs, &su->cf))) {
			ret = dev_fail(c.dev, "PRF_GETUCHAINS", ret);
			goto restore;
		}
		su->chains_on = o.uchains_on && su->ch.depth;
		/*
		 * The kernel stacks joined to the chains of the same samples
		 * (--folded): a prf.ko before them answers EINVAL, and the
		 * stacks and the chains stay apart.
		 */
		if (su->chains_on) {
			ret = prf_read_upairs(p, &su->ph, &su->precs, &su->pf);
			if (ret && ret != -EINVAL && ret != -ENOTTY) {
				ret = dev_fail(c.dev, "PRF_GETUPAIRS", ret);
				goto restore;
			}
			su->pairs_on = !ret && su->ph.depth && su->ph.udepth;
			ret = 0;
		}
		ret = uobj_resolve_snap(su, &ures, err, sizeof(err));
		if (ret) {
			msg("user objects: %s", err);
			ret = 1;
			goto restore;
		}
	}
	/* the table as read goes into the file, named again by prfpr */
	snap_table_z(tmpfd < 0);
	if ((ret = snap_to_file_uobjs(p, &c, out, &t, NULL, su)))
		goto restore;
	if (read_snapfile(out, &f)) {
		ret = 1;
		goto restore;
	}
	if (report_from_file(&r, &f, 0, (long)f.nsnaps, err, sizeof(err))) {
		msg("%s: %s", out, err);
		ret = 1;
	} else {
		ro.file = tmpfd >= 0 ? NULL : out;
		user_total = r.user;
		if (o.uobj_on && uobj_inject(&r, &ures, &ut)) {
			msg("user objects: %s", strerror(ENOMEM));
			ret = 1;
		} else if (o.uobj_on) {
			r.uobjs = &ures;
		}
		report_default_of(&r, &ro);
		if (o.irqoff_to_caller && record_irqoff(ro.file ? ro.file : "the report", &r))
			ret = 1;
		if (o.neighbour) {
			if (record_neighbours(&r, &o, &ro))
				ret = 1;
		} else {
			report_print(stdout, &r, &ro);
			if (ro.format == FMT_TEXT) {
				print_filtered(p);
				record_top_stacks(&r);
			}
			if (ro.format == FMT_FOLDED && ures.pairs_on && ures.pairs_dropped)
				msg("%" PRIu64 " kernel samples of user processes are folded "
				    "without their user side: the kernel dropped their "
				    "pairs (table or ring full, see prf(4) PRF_GETUPAIRS)",
				    ures.pairs_dropped);
		}
		if (o.pprof && pprof_write(o.pprof, &r, &ro, err, sizeof(err))) {
			msg("%s", err);
			ret = 1;
		}
		report_free(&r);
	}
	snapfile_free(&f);
	if (o.uobj_on && !o.neighbour && (c.format == FMT_TEXT || c.format == FMT_CSV)) {
		printf("\n");
		uobj_print_programs(stdout, &ures, user_total, c.format == FMT_CSV);
	}
	if (o.tasks) {
		struct prf_task *v;
		size_t n;
		uint64_t dropped;

		if (!read_tasks(p, c.dev, &v, &n, &dropped)) {
			printf("\n");
			print_tasks(stdout, v, n, 0, dropped, c.format == FMT_CSV ? FMT_CSV : FMT_TEXT);
			free(v);
		} else {
			ret = 1;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		msg("standard output: %s", strerror(errno));
		ret = 1;
	}
	if (have_cmd)
		cmd_report_status(argv[optind], status, &ret);
restore:
	cmd_spawn_end(pid, gofd, &sg);
	if (cg) {
		remove_cgroup(cg);
		free(cg);
	}
out:
	if (tmpfd >= 0)
		unlink(tmp);
	if (exec_err)	/* no report: the shell's status, 127 not found, else 126 */
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 127;
	snap_table_free(&t);
	snap_table_free(&ut);
	uobj_res_free(&ures);
	snap_uobjs_free(su);
	unwind_free(uw);
	prf_close(p);
	return ret;
}
