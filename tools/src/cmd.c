// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd - what the prf commands share: messages, option parsing, the device,
 * the tables prfld loads, capturing a snapshot.
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
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "cmd.h"
#include "demangle.h"
#include "store.h"

const char *prog = "prf";

/* "prog: " and the message on stderr, without the newline. */
static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
}

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return EXIT_USAGE;
}

int parse_u64(const char *s, uint64_t *v, int base)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

int parse_hz(const char *s, uint32_t *hz)
{
	uint64_t v;

	if (parse_u64(s, &v, 10) || v < PRF_HZ_MIN || v > PRF_HZ_MAX)
		return -1;
	*hz = (uint32_t)v;
	return 0;
}

int parse_double(const char *s, double *d)
{
	char *end;

	errno = 0;
	*d = strtod(s, &end);
	return !*s || *end || errno || *d < 0 ? -1 : 0;
}

/* Open the device, saying why not in words. */
int open_dev(const char *dev, int oflags, struct prf **p)
{
	int ret = prf_open(dev, oflags, p);

	if (!ret)
		return 0;
	if (ret == -EPERM || ret == -EACCES)
		msg("%s: %s (needs root: CAP_PERFMON or CAP_SYS_ADMIN, and no kernel lockdown)",
		    dev, strerror(-ret));
	else if (ret == -ENOENT)
		msg("%s: %s (is the prf module loaded?)", dev, strerror(-ret));
	else if (ret == -ENXIO)
		msg("%s: %s (no such CPU)", dev, strerror(-ret));
	else
		msg("%s: %s", dev, strerror(-ret));
	return 1;
}

int dev_fail(const char *dev, const char *what, int ret)
{
	if (ret == -EBUSY)
		msg("%s: %s: %s (sampling is ON: run 'prfstat -f %s off' first)",
		    dev, what, strerror(-ret), dev);
	else if (ret == -ENXIO)
		msg("%s: %s: %s (no table loaded: run prfld first)", dev, what,
		    strerror(-ret));
	else if (ret == -EBADF)
		msg("%s: %s: %s (the device is open read-only)", dev, what, strerror(-ret));
	else
		msg("%s: %s: %s", dev, what, strerror(-ret));
	return 1;
}

/* Open the device and read its state; 0, or 1 (said, closed). */
int open_status(const char *dev, int oflags, struct prf **p, int *st)
{
	if (open_dev(dev, oflags, p))
		return 1;
	*st = prf_get_status(*p);
	if (*st >= 0)
		return 0;
	dev_fail(dev, "PRF_GETSTATUS", *st);
	prf_close(*p);
	*p = NULL;
	return 1;
}

/*
 * Whether a command that switches sampling on asks for fixed periods:
 * only with --fixed (or --no-jitter).  Otherwise it asks for the device's
 * stratified default (one sample at a random point of every period): a
 * fixed period that divides the scheduler tick's samples at one phase
 * after each tick and over- or under-counts what runs there.
 */
int fixed_on(const struct common *c)
{
	return c->fixed < 0 ? 0 : c->fixed;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

static const struct {
	struct option o;
	unsigned need;
} common_lo[] = {
	{ { "device", required_argument, NULL, 'f' }, 0 },
	{ { "help", no_argument, NULL, 'h' }, 0 },
	{ { "kallsyms", required_argument, NULL, OPT_KALLSYMS }, CO_KALLSYMS },
	{ { "proc-modules", required_argument, NULL, OPT_MODULES }, CO_MODULES },
	{ { "hz", required_argument, NULL, OPT_HZ }, CO_SAMPLING },
	{ { "fixed", no_argument, NULL, OPT_FIXED }, CO_SAMPLING },
	{ { "jitter", no_argument, NULL, OPT_JITTER }, CO_SAMPLING },
	{ { "no-jitter", no_argument, NULL, OPT_NOJITTER }, CO_SAMPLING },
	{ { "text", no_argument, NULL, OPT_TEXT }, CO_TEXT },
	{ { "csv", no_argument, NULL, OPT_CSV }, CO_FORMAT },
	{ { "json", no_argument, NULL, OPT_JSON }, CO_FORMAT },
	{ { "folded", no_argument, NULL, OPT_FOLDED }, CO_FORMAT },
	{ { "of", required_argument, NULL, OPT_OF }, CO_REPORT },
	{ { "sort", required_argument, NULL, OPT_SORT }, CO_REPORT },
	{ { "modules", required_argument, NULL, 'm' }, CO_REPORT },
	{ { "module", required_argument, NULL, 'm' }, CO_REPORT },
	{ { "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE }, 0 },
};
#define NCOMMON (sizeof(common_lo) / sizeof(common_lo[0]))

/*
 * Parse argv into c (defaults first) and, through co->opt, the command's
 * own ctx; check the number of operands, which start at argv[optind].
 * Returns OPTS_OK to go on, or the exit status: 0 after the help, 2 after
 * a usage error (said).
 */
int parse_opts(const struct cmd_opts *co, struct common *c, int argc, char **argv,
		      void *ctx)
{
	const char *own = co->shortopts ? co->shortopts : "";
	struct option lo[48];
	char so[64];
	size_t i, n = 0;
	int opt, ret, plus = *own == '+';

	c->dev = co->common & CO_DEV_FILTER ? NULL : PRF_DEVICE;
	/* A command reads the namelist once (prf daemon turns this off). */
	nl_keep_text(1);
	c->kallsyms = "/proc/kallsyms";
	c->modules = "/proc/modules";
	c->hz = 0;
	c->fixed = -1;
	c->format = FMT_TEXT;
	c->of = OF_KERNEL;
	c->of_given = 0;
	c->sort = SORT_SAMPLES;
	c->only = NULL;
	c->table_whole = 0;
	sym_demangle_on = 1;
	snprintf(so, sizeof(so), "%s%s%s%sf:h", plus ? "+" : "", own + plus,
		 co->common & CO_SAMPLING ? "z:" : "", co->common & CO_REPORT ? "m:" : "");
	for (i = 0; co->lo && co->lo[i].name && n < sizeof(lo) / sizeof(lo[0]) - NCOMMON - 1; i++)
		lo[n++] = co->lo[i];
	for (i = 0; i < NCOMMON; i++)
		if (!common_lo[i].need || (co->common & common_lo[i].need))
			lo[n++] = common_lo[i].o;
	memset(&lo[n], 0, sizeof(lo[n]));
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (opt == 'z' && (co->common & CO_SAMPLING))
			opt = OPT_HZ;
		switch (opt) {
		case 'f': c->dev = optarg; break;
		case 'h': co->help(); return 0;
		case '?':	/* said by getopt, as argv[0]: prog (prf.c) */
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return EXIT_USAGE;
		case OPT_KALLSYMS: c->kallsyms = optarg; break;
		case OPT_MODULES: c->modules = optarg; break;
		case OPT_HZ:
			if (parse_hz(optarg, &c->hz))
				return usage_error("--hz %s: want %d..%d", optarg, PRF_HZ_MIN,
						   PRF_HZ_MAX);
			break;
		case OPT_JITTER: c->fixed = 0; break;
		case OPT_FIXED:
		case OPT_NOJITTER: c->fixed = 1; break;
		case OPT_TEXT: c->format = FMT_TEXT; break;
		case OPT_CSV: c->format = FMT_CSV; break;
		case OPT_JSON: c->format = FMT_JSON; break;
		case OPT_FOLDED: c->format = FMT_FOLDED; break;
		case OPT_NO_DEMANGLE: sym_demangle_on = 0; break;
		case OPT_OF:
			if ((ret = report_of_parse(optarg)) < 0)
				return usage_error("--of %s: want kernel, busy or all", optarg);
			c->of = (enum report_of)ret;
			c->of_given = 1;
			break;
		case OPT_SORT:
			if ((ret = report_sort_parse(optarg)) < 0)
				return usage_error("--sort %s: want samples, address, name or module",
						   optarg);
			c->sort = (enum report_sort)ret;
			break;
		case 'm':
			if (!(co->common & CO_REPORT))
				goto own;
			c->only = optarg;
			break;
		default:
own:
			ret = co->opt ? co->opt(ctx, opt, optarg) : usage_error("bad option");
			if (ret)
				return ret;
		}
	}
	if (argc - optind < co->min_args || argc - optind > co->max_args)
		return usage_error("%s", co->args_error ? co->args_error : "too many arguments");
	return OPTS_OK;
}

/* A cutoff in percent, from an option or an operand. */
int parse_cutoff(const char *s, double *cutoff)
{
	if (parse_double(s, cutoff) || *cutoff > 100)
		return usage_error("cutoff %s: want a percentage, 0..100", s);
	return 0;
}

/* A positive number given to option name. */
int parse_positive(const char *name, const char *s, uint64_t *v, const char *what)
{
	if (parse_u64(s, v, 10) || !*v)
		return usage_error("%s %s: want a positive %s", name, s, what);
	return 0;
}

/*
 * Sets the rate (@hz unless 0) and, unless @fixed < 0, asks for fixed
 * periods (1) or randomized ones (0), leaving other flags alone.  A device
 * of struct prf_info version 2 randomizes by default (stratified) and
 * knows PRF_FLAG_FIXED; an older one has fixed periods by default and
 * randomizes with PRF_FLAG_JITTER.  The flags are only written when they
 * change.
 */
int set_hz_flags(struct prf *p, const char *dev, uint32_t hz, int fixed)
{
	struct prf_info in;
	uint32_t fl = 0, want;
	int ret;

	if (hz && (ret = prf_set_hz(p, hz)))
		return dev_fail(dev, "PRF_SETHZ", ret);
	if (fixed < 0)
		return 0;
	if ((ret = prf_get_flags(p, &fl)))
		return dev_fail(dev, "PRF_GETFLAGS", ret);
	want = fl & ~(uint32_t)(PRF_FLAG_JITTER | PRF_FLAG_FIXED);
	if (!prf_get_info(p, &in) && in.version >= 2)
		want |= fixed ? PRF_FLAG_FIXED : 0;
	else
		want |= fixed ? 0 : PRF_FLAG_JITTER;
	if (want != fl && (ret = prf_set_flags(p, want)))
		return dev_fail(dev, "PRF_SETFLAGS", ret);
	return 0;
}

void report_opts_from(const struct common *c, struct report_opts *ro)
{
	ro->format = c->format;
	ro->of = c->of;
	ro->of_given = c->of_given;
	ro->sort = c->sort;
	ro->modules = c->only;
}

int read_snapfile(const char *file, struct snapfile *f)
{
	char err[SNAP_ERRLEN];
	struct stat st;

	/* A prf daemon's store (store.h): its segments as one file. */
	if (!stat(file, &st) && S_ISDIR(st.st_mode)) {
		char notes[4096];
		char *line, *save = NULL;

		if (store_read(file, f, notes, sizeof(notes), err, sizeof(err))) {
			msg("%s", err);
			return 1;
		}
		for (line = strtok_r(notes, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			msg("%s: skipped (at most the interval being written when the daemon "
			    "stopped is lost)", line);
		return 0;
	}
	if (snapfile_read(file, f, err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	if (f->torn_len) {
		snapfile_torn_note(f, file, err, sizeof(err));
		msg("%s: skipped; the %zu snapshot%s before it are read", err, f->nsnaps,
		    f->nsnaps == 1 ? "" : "s");
	}
	return 0;
}

/* ---- Running a command ----------------------------------------------------- */

void cmd_signals_take(struct cmd_signals *s, int have_cmd, void (*on_stop)(int))
{
	struct sigaction ign = { 0 }, sa = { 0 };

	ign.sa_handler = have_cmd ? SIG_IGN : on_stop;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &s->oint);
	sigaction(SIGQUIT, &ign, &s->oquit);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &s->oterm);
}

void cmd_signals_restore(const struct cmd_signals *s)
{
	sigaction(SIGINT, &s->oint, NULL);
	sigaction(SIGQUIT, &s->oquit, NULL);
	sigaction(SIGTERM, &s->oterm, NULL);
}

pid_t cmd_spawn_held(char **argv, const struct cmd_signals *s, int *go)
{
	int pfd[2], e;
	pid_t pid;
	char b;

	/* both ways: the go byte to the child, an exec's errno back */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pfd)) {
		msg("socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		cmd_signals_restore(s);
		close(pfd[1]);
		if (read(pfd[0], &b, 1) != 1)
			_exit(127);
		if (b == 't' && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		execvp(argv[0], argv);
		e = errno;
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(e));
		send(pfd[0], &e, sizeof(e), MSG_NOSIGNAL);
		_exit(e == ENOENT ? 127 : 126);	/* as a shell */
	}
	close(pfd[0]);
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		close(pfd[1]);
		return -1;
	}
	*go = pfd[1];
	return pid;
}

int cmd_exec_error(int go)
{
	int e = 0;

	return go >= 0 && recv(go, &e, sizeof(e), MSG_DONTWAIT) == sizeof(e) ? e : 0;
}

int cmd_wait(pid_t pid)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

void cmd_report_status(const char *cmd, int status, int *ret)
{
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		msg("%s exited with status %d", cmd, WEXITSTATUS(status));
		*ret = 1;
	} else if (WIFSIGNALED(status)) {
		msg("%s killed by signal %d (%s)", cmd, WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
		*ret = 1;
	}
}

void cmd_spawn_end(pid_t pid, int go, const struct cmd_signals *s)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		cmd_wait(pid);
	}
	if (go >= 0)
		close(go);
	cmd_signals_restore(s);
}

int cmd_mktemp(char *tmpl)
{
	int fd = mkstemp(tmpl);

	if (fd < 0) {
		msg("%s: %s", tmpl, strerror(errno));
		return -1;
	}
	close(fd);
	return fd;
}
