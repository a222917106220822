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
#include "source.h"
#include "stacks.h"
#include "term_str.h"
#include "irqoff.h"
#include "uobj.h"
#include "usym.h"

/* ------------------------------------------------------------------ */
/* prf top                                                             */

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

/*
 * The terminal while prf top runs: keys read one at a time without echo
 * when stdin is a terminal, Ctrl-C and SIGTERM ending the loop; both
 * restored by top_term_leave().
 */
struct top_term {
	struct termios tio;
	struct sigaction oint, oterm;
	int tty_in, tty_out;
};

static void top_term_enter(struct top_term *t)
{
	struct sigaction sa = { 0 };
	struct termios raw;

	t->tty_in = isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &t->tio);
	t->tty_out = isatty(STDOUT_FILENO);
	if (t->tty_in) {
		raw = t->tio;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	sa.sa_handler = top_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &t->oint);
	sigaction(SIGTERM, &sa, &t->oterm);
}

static void top_term_leave(struct top_term *t)
{
	if (t->tty_in)
		tcsetattr(STDIN_FILENO, TCSANOW, &t->tio);
	sigaction(SIGINT, &t->oint, NULL);
	sigaction(SIGTERM, &t->oterm, NULL);
}

static void help_top(void)
{
	printf("Usage: %s [-f DEVICE] [--hz N] [--fixed] [-e EVENT[:P]] [-d SECS] [-n COUNT]\n"
	       "       [--lines N]\n"
	       "Show the busiest kernel functions, refreshed every SECS (default 1),\n"
	       "until q or Ctrl-C, sized to the terminal.  Keys: s sort, m module,\n"
	       "o percent of, t total/interval, p pause, q quit.\n"
	       "Not on a terminal: one frame per interval.\n"
	       "Loads /proc/kallsyms when no table is loaded; turns sampling on and\n"
	       "back off at the end when it was off.\n\n"
	       "  -f, --device DEV     the device (default /dev/prf)\n"
	       "  -z, --hz N           sampling rate, %d..%d Hz\n"
	       "      --fixed          phase-locked: a sample every 1/hz exactly (--no-jitter)\n"
	       "      --jitter         one sample at a random point of every period (the default)\n"
	       "  -e, --event E[:P]    sample on a PMU counter of event E (cycles, ...: 'prfstat\n"
	       "                       --event list'), every P events or about --hz a second\n"
	       "                       (only while OFF; the device's source comes back at exit)\n"
	       "  -d, --delay SECS     refresh interval\n"
	       "  -n, --count N        stop after N frames (--iterations is the same)\n"
	       "  -m, --modules LIST   only these modules' functions ('kernel': the kernel)\n"
	       "      --of WHAT        percentages of kernel (default), busy or all samples\n"
	       "      --sort KEY       samples (default), address, name or module\n"
	       "      --lines N        functions per frame (default: fit the terminal, or 20)\n"
	       "  -t, --tasks          who burns the kernel: the processes with the most\n"
	       "                       samples in each interval (pid, comm, kernel and user\n"
	       "                       samples and shares), by kernel samples, on a private\n"
	       "                       instance (/dev/prfclone; /dev/prf is left alone)\n"
	       "  -g, --call-graph     count call stacks too and show the callers of the\n"
	       "                       selected function (keys j/k move the selection\n"
	       "                       down/up the rows by samples), from the stacks of\n"
	       "                       the interval (t: since sampling started)\n"
	       "      --stack-depth D  frames kept per stack with -g, 1..%d (default %d)\n"
	       "      --mode M         what to count: time (default), alloc-calls,\n"
	       "                       alloc-bytes, calls or offcpu (time waited off the\n"
	       "                       CPU) (only while OFF; the device's mode and stacks\n"
	       "                       come back at exit)\n"
	       "      --user-objs      every process's user code too, system-wide: each\n"
	       "                       user sample named by the kernel with its file and\n"
	       "                       offset (the user objects table, %d:%d; only while\n"
	       "                       OFF, off again at exit), then by the file's ELF\n"
	       "                       symbols; the module column is the program\n"
	       "  -h, --help           this help\n", prog, PRF_HZ_MIN, PRF_HZ_MAX,
	       PRF_STACK_DEPTH_MAX, STACKS_DEFAULT_DEPTH, UOBJ_CAPACITY, UOBJ_FILES);
}

struct top_opts {
	double delay;
	uint64_t iters, lines;
	int tasks;
	int mode;		/* --mode, -1: the device's */
	struct stacks_opt so;	/* -g, --stack-depth */
	int depth_given;
	struct source_opt src;	/* -e */
	int uobjs;		/* --user-objs */
};

#define OPT_USER_OBJS 1960

static int top_opt(void *ctx, int opt, const char *arg)
{
	struct top_opts *o = ctx;

	if (opt == 'e')
		return parse_event_opt("-e", arg, &o->src);
	if (opt == 'n')
		return parse_positive("-n", arg, &o->iters, "count");
	if (opt == OPT_LINES)
		return parse_positive("--lines", arg, &o->lines, "count");
	if (opt == 't') {
		o->tasks = 1;
		return 0;
	}
	if (opt == 'g') {
		o->so.set = 1;
		return 0;
	}
	if (opt == OPT_STACK_DEPTH) {
		o->depth_given = 1;
		return parse_stack_depth(arg, &o->so);
	}
	if (opt == OPT_MODE)
		return parse_mode_opt(arg, &o->mode);
	if (opt == OPT_USER_OBJS) {
		o->uobjs = 1;
		return 0;
	}
	if (parse_double(arg, &o->delay) || o->delay < 0.05 || o->delay > 3600)
		return usage_error("-d %s: want seconds, 0.05..3600", arg);
	return 0;
}

#define TOP_TASKS_CAPACITY 4096

/*
 * Waits SECS, or until a signal or q on the terminal; while *hold is set
 * (paused; NULL: never) it waits on.  Keys read meanwhile go to key (NULL:
 * q alone means something), which sets top_stop for q itself.
 */
static void top_wait(double secs, int tty_in, const int *hold,
		     void (*key)(char ch, void *ctx), void *ctx)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	struct timespec t0, t1;
	int ms = (int)(secs * 1000);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
				  (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (hold && *hold)
			left = 1000;
		if (left <= 0 || top_stop)
			return;
		if (tty_in && poll(&pfd, 1, left) > 0) {
			char ch;

			if (read(STDIN_FILENO, &ch, 1) != 1)
				continue;
			if (key)
				key(ch, ctx);
			else if (ch == 'q' || ch == 'Q')
				top_stop = 1;
		} else if (!tty_in) {
			struct timespec d = { left / 1000, (left % 1000) * 1000000L };

			nanosleep(&d, NULL);
		}
	}
}

/*
 * prf top --tasks: a private instance of every task, its per-process tally
 * read and cleared each interval.
 */
static int top_tasks(struct common *c, const struct top_opts *o)
{
	struct top_term ts;
	struct prf *p;
	uint64_t done = 0;
	int ret, tty_in, tty_out;

	if (strcmp(c->dev, PRF_DEVICE))
		return usage_error("-f: prf top --tasks runs on a private instance of its own");
	c->dev = "/dev/" PRF_CLONE_NAME;
	if (open_dev(c->dev, O_RDWR, &p))
		return 1;
	if ((ret = ensure_loaded(p, c, 0)) || (ret = set_hz_flags(p, c->dev, c->hz, fixed_on(c))))
		goto out;
	if ((ret = prf_set_tasks(p, TOP_TASKS_CAPACITY))) {
		ret = dev_fail(c->dev, "PRF_SETTASKS", ret);
		goto out;
	}
	if ((ret = set_state(p, c->dev, 1)))
		goto out;
	top_term_enter(&ts);
	tty_in = ts.tty_in;
	tty_out = ts.tty_out;
	while (!top_stop) {
		struct prf_task *v;
		struct winsize ws;
		struct prf_info info = { 0 };
		size_t n, rows = o->lines ? (size_t)o->lines : 20;
		uint64_t dropped;
		time_t now;
		struct tm tm;
		char tb[32] = "";

		top_wait(o->delay, tty_in, NULL, NULL, NULL);
		if (top_stop)
			break;
		if ((ret = read_tasks(p, c->dev, &v, &n, &dropped)))
			break;
		prf_get_info(p, &info);
		if ((ret = prf_clear(p))) {
			free(v);
			ret = dev_fail(c->dev, "PRF_CLEAR", ret);
			break;
		}
		if (!o->lines && tty_out && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 5)
			rows = (size_t)ws.ws_row - 4;
		if (tty_out)
			fputs("\033[H\033[2J", stdout);
		now = time(NULL);
		if (localtime_r(&now, &tm))
			strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
		printf("prf top --tasks - %s - %u Hz - every %.2f s - idle %" PRIu64 "%s\n\n", tb,
		       info.hz, o->delay, (uint64_t)info.ticks_idle, tty_in ? " - q quits" : "");
		print_tasks(stdout, v, n, rows, dropped, FMT_TEXT);
		if (!tty_out)
			printf("\n");
		fflush(stdout);
		free(v);
		if (o->iters && ++done >= o->iters)
			break;
	}
	top_term_leave(&ts);
	{
		int rc = set_state(p, c->dev, 0);

		if (!ret)
			ret = rc;
	}
out:
	prf_close(p);
	return ret;
}

/* What the screen shows, changed by keys. */
struct top_view {
	struct report_opts ro;
	char module[64];	/* ro.modules points here when filtering */
	int total;		/* counts since the load, not of the interval */
	int paused;
	size_t lines;		/* --lines, 0: fit the terminal */
	int graph;		/* -g: the callers of row sel (by samples) */
	size_t sel;
	struct stackview sv;	/* the stacks of the interval */
	struct stackview sv_total;	/* the stacks since sampling started */
	struct snap_ext *ext;	/* the last capture: both views' frames, the next interval's start */
};

/* terminfo's clear-screen string, when the output is a terminal. */
static const char *clear_str = "";

static void term_init(void)
{
	clear_str = term_clear(STDOUT_FILENO);
}

/* The module after cur in table order: "kernel", then each module; NULL after the last. */
static const char *next_module(const struct snap_table *t, const char *cur)
{
	size_t i = 0;

	if (!cur)
		return t->n ? report_module(t, 0) : NULL;
	while (i < t->n && strcmp(report_module(t, i), cur))
		i++;
	while (i < t->n && !strcmp(report_module(t, i), cur))
		i++;
	return i < t->n ? report_module(t, i) : NULL;
}

/* A key: 1 when the screen should be drawn again. */
static int top_key(struct top_view *v, const struct snap_table *t, char ch)
{
	const char *m;

	switch (ch) {
	case 'q': case 'Q':
		top_stop = 1;
		return 0;
	case 's':
		v->ro.sort = (enum report_sort)((v->ro.sort + 1) % 4);
		return 1;
	case 'o':
		v->ro.of = (enum report_of)((v->ro.of + 1) % 3);
		v->ro.of_given = 1;	/* the reader's choice from now on */
		return 1;
	case 't':
		v->total = !v->total;
		return 1;
	case 'p': case ' ':
		v->paused = !v->paused;
		return 1;
	case 'j': case '+':
		v->sel += v->graph;
		return v->graph;
	case 'k': case '-':
		v->sel -= v->graph && v->sel;
		return v->graph;
	case 'm':
		m = next_module(t, v->ro.modules);
		if (m)
			snprintf(v->module, sizeof(v->module), "%s", m);
		v->ro.modules = m ? v->module : NULL;
		return 1;
	default:
		return 0;
	}
}

/*
 * The table's addresses and counters (either NULL: not wanted): 0; 1 when
 * the table was reloaded with another size meanwhile (start over); -1 said.
 */
static int top_read(struct prf *p, const char *dev, uint64_t *addrs, uint64_t *counts, int n)
{
	int rc = prf_read(p, addrs, counts, (size_t)n);

	if (rc == -ESTALE)
		return 1;
	if (rc) {
		dev_fail(dev, "read", rc);
		return -1;
	}
	return 0;
}

/* What a key needs to redraw the screen at once (top_wait's ctx). */
struct top_screen {
	struct top_view *v;
	const struct snap_table *t;
	const struct common *c;
	const struct top_opts *o;
	const struct report *r, *rt;	/* the interval's, the total's */
	const struct prf_info *info;
	const int *have;		/* r and rt are built */
	int tty_in, tty_out;
};

static void draw(struct top_view *v, const struct common *c, const struct top_opts *o,
		 const struct report *r, const struct prf_info *in, int tty_in, int tty_out);

static void top_screen_key(char ch, void *ctx)
{
	struct top_screen *s = ctx;

	if (top_key(s->v, s->t, ch) && *s->have)
		draw(s->v, s->c, s->o, s->v->total ? s->rt : s->r, s->info,
		     s->tty_in, s->tty_out);
}

static const char *const sort_key_names[] = { "samples", "address", "name", "module" };

/* Print at most width columns of a line (0: all of it), then a newline. */
static void put_cut(int width, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_cut(int width, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (width > 0 && (size_t)width < sizeof(buf))
		buf[width] = '\0';
	printf("%s\n", buf);
}

/* -g: the callers of the selected row (of the rows by samples). */
static void draw_callers(struct top_view *v, const struct report *r, int width)
{
	const char *name;
	char buf[512];

	printf("\n");
	if (!r->nrows) {
		put_cut(width, "callers: no function sampled");
		return;
	}
	if (v->sel >= r->nrows)
		v->sel = r->nrows - 1;
	name = r->t->e[r->rows[v->sel].idx].name;
	snprintf(buf, sizeof(buf), "%s", name);
	if (strstr(buf, "+0x"))
		*strstr(buf, "+0x") = '\0';
	if (stacks_print_neighbours(stdout, v->total ? &v->sv_total : &v->sv, buf, 0,
				    FMT_TEXT, 8, width))
		put_cut(width, "callers of %s (row %zu; j/k select): in no stack %s", buf,
			v->sel + 1, v->total ? "yet" : "of the interval");
}

/*
 * -g: the device's stacks now.  With build, the interval's (since the last
 * capture; since the clear when the device was cleared meanwhile, as the
 * counters are) into v->sv and those since sampling started into
 * v->sv_total.  The capture becomes the next interval's start.
 */
static void top_stacks(struct top_view *v, struct prf *p, const struct common *c,
		       const struct snap_table *t, const struct prf_info *info, size_t n,
		       int build)
{
	struct snapshot s = { 0 }, start = { 0 };
	struct report rr = { 0 };
	char err[256];

	stackview_free(&v->sv);
	stackview_free(&v->sv_total);
	s.n = n;
	if (capture_ext(p, c, t, info, &s)) {
		snap_ext_free(s.ext);
		s.ext = NULL;
	}
	rr.b = &s;
	if (build && s.ext && stacks_of_report(&rr, &v->sv_total, err, sizeof(err)) > 0) {
		start.ext = v->ext;
		rr.a = v->ext ? &start : NULL;
		if (stacks_of_report(&rr, &v->sv, err, sizeof(err)) < 0 && rr.a) {
			rr.a = NULL;
			stacks_of_report(&rr, &v->sv, err, sizeof(err));
		}
		start.ext = NULL;
	}
	/* The views' frames live in the capture: keep it with them. */
	snap_ext_free(v->ext);
	v->ext = s.ext;
	s.ext = NULL;
	snapshot_free(&s);
}

static void draw(struct top_view *v, const struct common *c, const struct top_opts *o,
		 const struct report *r, const struct prf_info *in, int tty_in, int tty_out)
{
	char src[128], note[160];
	struct winsize ws;
	int width = 0, rows = 0, irq, dnote;
	time_t now = time(NULL);
	struct tm tm;
	char tb[32] = "";

	if (tty_out && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws)) {
		width = ws.ws_col;
		rows = ws.ws_row;
	}
	/* user rows (--user-objs) share the base of busy samples, as in prf pr */
	report_default_of(r, &v->ro);
	/*
	 * title, keys, blank, column header, rest, blank, totals: 7 lines, and
	 * the last one left for the cursor (a newline there would scroll); the
	 * lines on re-enable points (irqoff.h) below the totals when there are,
	 * and a line when the debuginfod time limit left files unnamed (usym.c).
	 */
	dnote = usym_debuginfod_note(note, sizeof(note));
	irq = irqoff_lines(r) + dnote;
	v->ro.max_rows = v->lines ? v->lines : rows > 9 + irq ? (size_t)(rows - 8 - irq) :
			 rows ? 1 : 20;
	if (v->graph && !v->lines)
		v->ro.max_rows = rows > 18 + irq ? (size_t)(rows - 17 - irq) : rows ? 1 : 20;
	v->ro.width = width;
	v->ro.compact = 1;
	if (tty_out)
		fputs(clear_str, stdout);
	if (localtime_r(&now, &tm))
		strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
	if (in->version >= 6 && in->source == PRF_SOURCE_PMU)
		source_describe(in->source, in->event, in->period, in->hz, src, sizeof(src));
	else
		snprintf(src, sizeof(src), "%u Hz", in->hz);
	put_cut(width, "prf top%s - %s - %s - %s %.2f s - %s", v->paused ? " PAUSED" : "",
		tb, src, v->total ? "since the load, every" : "every", o->delay, c->dev);
	if (tty_in)
		put_cut(width, "q quit  s sort: %s  m module: %s  o %%of: %s  t %s  p pause%s",
			sort_key_names[v->ro.sort], v->ro.modules ? v->ro.modules : "all",
			report_of_name(v->ro.of), v->total ? "total" : "interval",
			v->graph ? "  j/k select" : "");
	printf("\n");
	report_print(stdout, r, &v->ro);
	if (dnote)
		put_cut(width, "%s", note);
	if (v->graph)
		draw_callers(v, r, width);
	if (!tty_out)
		printf("\n");
	fflush(stdout);
}

/*
 * --user-objs: the table set up while OFF (ours: off again at exit), or,
 * while ON, the one the device has.  An older prf.ko: said, kernel only.
 * Without it, the table the instance has already (prfstat --user-objs set
 * it up), if any, names the user rows all the same.
 */
static int uobjs_setup(struct prf *p, const char *dev, int want, int was_on, int *on, int *ours)
{
	struct prf_uobjs h;
	int ret;

	if (*on)
		return 0;
	if (!want) {
		memset(&h, 0, sizeof(h));
		*on = !ioctl(prf_fd(p), PRF_GETUOBJS, &h) && h.capacity;
		return 0;
	}
	if (was_on) {
		memset(&h, 0, sizeof(h));
		ret = ioctl(prf_fd(p), PRF_GETUOBJS, &h) ? -errno : 0;
		if (!ret && h.capacity) {
			*on = 1;
			return 0;
		}
		if (ret && uobj_unsupported(ret)) {
			msg("note: this prf.ko has no user objects table (PRF_GETUOBJS: %s): "
			    "kernel functions alone", strerror(-ret));
			return 0;
		}
		msg("%s: --user-objs: sampling is ON without the user objects table: turn it "
		    "off first", dev);
		return 1;
	}
	ret = prf_set_uobjs(p, UOBJ_CAPACITY, UOBJ_FILES);
	if (!ret) {
		*on = *ours = 1;
		return 0;
	}
	if (uobj_unsupported(ret)) {
		msg("note: this prf.ko has no user objects table (PRF_SETUOBJS: %s): kernel "
		    "functions alone", strerror(-ret));
		return 0;
	}
	return dev_fail(dev, "PRF_SETUOBJS", ret);
}

/* The user rows of the interval (r) and of the total (rt), from the table. */
static int top_uobjs(struct prf *p, const char *dev, struct uobj_res *cur,
		     struct uobj_res *prev, struct uobj_res *delta, struct report *r,
		     struct report *rt, struct snap_table *ut_r, struct snap_table *ut_rt)
{
	struct prf_uobjs h;
	struct prf_uobj *e = NULL;
	struct prf_uobj_file *f = NULL;
	char err[256];
	int ret = prf_read_uobjs(p, &h, &e, &f);

	if (ret)
		return dev_fail(dev, "PRF_GETUOBJS", ret);
	ret = uobj_resolve(&h, e, f, cur, err, sizeof(err));
	free(e);
	free(f);
	if (ret) {
		msg("user objects: %s", err);
		return 1;
	}
	if (uobj_res_delta(cur, prev, delta) || uobj_inject(r, delta, ut_r) ||
	    uobj_inject(rt, cur, ut_rt)) {
		uobj_res_free(delta);
		uobj_res_free(cur);
		msg("user objects: %s", strerror(ENOMEM));
		return 1;
	}
	uobj_res_free(delta);
	uobj_res_free(prev);
	*prev = *cur;
	memset(cur, 0, sizeof(*cur));
	return 0;
}

int cmd_top(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "lines", required_argument, NULL, OPT_LINES },
		{ "tasks", no_argument, NULL, 't' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "stack-depth", required_argument, NULL, OPT_STACK_DEPTH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "event", required_argument, NULL, 'e' },
		{ "user-objs", no_argument, NULL, OPT_USER_OBJS },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cmd_opts co = {
		"d:n:tge:", lo, CO_KALLSYMS | CO_MODULES | CO_SAMPLING | CO_REPORT, help_top, top_opt, 0, 0, NULL,
	};
	struct common c;
	struct snap_table t = { 0 };
	struct top_view v;
	struct report r, rt;
	struct prf_info info = { 0 };
	struct stacks_opt old_so = { 0 };
	struct source_opt old_src = { 0 };
	struct snap_ext srcx;
	int have = 0, old_mode = -1;
	struct top_screen scr;
	struct top_opts o = { 1.0, 0, 0, 0, -1,
			      { 0, STACKS_DEFAULT_DEPTH, STACKS_DEFAULT_CAPACITY }, 0, { 0 }, 0 };
	struct uobj_res uprev = { 0 }, ucur = { 0 }, udelta = { 0 };
	struct snap_table ut_r = { 0 }, ut_rt = { 0 };
	int uobj_on = 0, uobj_ours = 0;
	struct prf *p;
	struct top_term ts;
	uint64_t *prev = NULL, *cur = NULL, *addrs = NULL, done = 0;
	uint64_t prev_out = 0, prev_lost = 0;
	int ret, st, was_on, tty_in, tty_out, n;

	if ((ret = parse_opts(&co, &c, argc, argv, &o)) != OPTS_OK)
		return ret;
	if (o.depth_given && !o.so.set)
		return usage_error("--stack-depth goes with -g");
	if (o.tasks && (o.so.set || o.mode >= 0 || o.src.set || o.uobjs))
		return usage_error("--tasks goes without -g, -e, --mode and --user-objs");
	if (o.uobjs && o.mode >= 0 && o.mode != PRF_MODE_TIME)
		return usage_error("--user-objs goes with the time mode");
	if (o.src.list)
		return usage_error("-e list: see 'prfstat --event list'");
	if (o.tasks)
		return top_tasks(&c, &o);
	ret = 0;
	if (open_status(c.dev, O_RDWR, &p, &st))
		return 1;
	was_on = st & PRF_STATUS_ON;
	if (was_on && (c.hz || c.fixed >= 0 || o.mode >= 0 || o.src.set)) {
		/* Not ours to switch: the rate and the flags stay as they are. */
		msg("%s: %s: sampling is ON: turn it off first", c.dev,
		    c.hz ? "--hz" : o.mode >= 0 ? "--mode" : o.src.set ? "-e" :
		    c.fixed ? "--fixed" : "--jitter");
		prf_close(p);
		return 1;
	}
	if (was_on && o.so.set && (prf_get_info(p, &info) || !info.stack_depth)) {
		msg("%s: -g: sampling is ON without stacks: turn it off first, or set them "
		    "with prfstat --stacks", c.dev);
		prf_close(p);
		return 1;
	}
	/*
	 * A mode or a stack table top sets up is its own: what the device had
	 * comes back at exit (as sampling goes back OFF).
	 */
	if (!was_on && (o.mode >= 0 || o.so.set)) {
		uint32_t m = 0;

		if (!prf_get_mode(p, &m))
			old_mode = (int)m;
		if (!prf_get_stacks_conf(p, &old_so.depth, &old_so.capacity, NULL))
			old_so.set = 1;
	}
	/* The source top sets is its own too: the device's comes back at exit. */
	if (!was_on && o.src.set) {
		struct prf_source was;

		if (!prf_get_source(p, &was)) {
			old_src.set = 1;
			old_src.source = was.source;
			old_src.event = was.event;
			old_src.period = was.period;
		}
	}
	if (!was_on && ((ret = ensure_loaded(p, &c, 0)) ||
			(ret = set_hz_flags(p, c.dev, c.hz, fixed_on(&c))) ||
			(ret = source_check(p, c.dev, &o.src)) ||
			(ret = apply_source(p, c.dev, &o.src)) ||
			((o.mode >= 0 || (o.so.set && !info.stack_depth)) &&
			 (ret = apply_mode_stacks(p, &c, o.mode, &o.so))) ||
			(ret = uobjs_setup(p, c.dev, o.uobjs, was_on, &uobj_on, &uobj_ours)) ||
			(ret = set_state(p, c.dev, 1)))) {
		if (uobj_ours)
			prf_set_uobjs(p, 0, 0);
		prf_close(p);
		return ret;
	}
	if (was_on && (ret = uobjs_setup(p, c.dev, o.uobjs, was_on, &uobj_on, &uobj_ours))) {
		prf_close(p);
		return ret;
	}
	top_term_enter(&ts);
	tty_in = ts.tty_in;
	tty_out = ts.tty_out;
	memset(&v, 0, sizeof(v));
	report_opts_from(&c, &v.ro);
	v.ro.cutoff = 0;
	if (c.only)
		snprintf(v.module, sizeof(v.module), "%s", c.only);
	v.ro.modules = c.only ? v.module : NULL;
	v.lines = (size_t)o.lines;
	v.graph = o.so.set;
	if (tty_out) {
		term_init();
		/* A frame in one write: no half-drawn screen. */
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	}
	scr = (struct top_screen){ &v, &t, &c, &o, &r, &rt, &info, &have, tty_in, tty_out };
	n = 0;
	while (!top_stop) {
		int sz = prf_get_size(p), rc;

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
			if ((rc = top_read(p, c.dev, addrs, prev, n))) {
				if (rc < 0) {
					ret = 1;
					break;
				}
				n = 0;
				continue;
			}
			/* Name first: reading kallsyms is kernel work of our own. */
			resolve_table(&c, addrs, (size_t)n, &t);
			if ((rc = top_read(p, c.dev, NULL, prev, n))) {
				if (rc < 0) {
					ret = 1;
					break;
				}
				n = 0;
				continue;
			}
			if (!prf_get_info(p, &info)) {
				prev_out = info.ticks_outside;
				prev_lost = info.ticks_lost;
				/* the first interval's stacks start with its counters */
				if (v.graph)
					top_stacks(&v, p, &c, &t, &info, (size_t)n, 0);
			}
		}
		/* Wait one interval (or until unpaused), or a key. */
		top_wait(o.delay, tty_in, &v.paused, top_screen_key, &scr);
		if (top_stop)
			break;
		if ((rc = top_read(p, c.dev, NULL, cur, n))) {
			if (rc < 0) {
				ret = 1;
				break;
			}
			n = 0;
			continue;
		}
		memset(&info, 0, sizeof(info));
		prf_get_info(p, &info);
		if (have) {
			report_free(&r);
			report_free(&rt);
			snap_table_free(&ut_r);
			snap_table_free(&ut_rt);
			have = 0;
		}
		if (report_build(&r, &t, prev, cur,
				 info.ticks_outside >= prev_out ? info.ticks_outside - prev_out : 0,
				 info.ticks_lost >= prev_lost ? info.ticks_lost - prev_lost : 0) &&
		    /* cleared meanwhile: count from zero */
		    report_build(&r, &t, NULL, cur, info.ticks_outside, info.ticks_lost)) {
			ret = 1;
			break;
		}
		if (report_build(&rt, &t, NULL, cur, info.ticks_outside, info.ticks_lost)) {
			report_free(&r);
			ret = 1;
			break;
		}
		have = 1;
		r.mode = rt.mode = info.mode;
		/* the source, as a snapshot's extension would hold it (source.h) */
		memset(&srcx, 0, sizeof(srcx));
		if (info.version >= 6 && info.size >= PRF_INFO_SIZE_V6) {
			srcx.has_source = 1;
			srcx.source = info.source;
			srcx.event = info.event;
			srcx.period = info.period;
			srcx.pmu_count = info.pmu_count;
			srcx.ticks_sampled = info.ticks_sampled;
			srcx.samples_nmi = info.samples_nmi;
			srcx.pmu_enabled_ns = info.pmu_enabled_ns;
			srcx.pmu_running_ns = info.pmu_running_ns;
		}
		r.src = rt.src = &srcx;
		if (uobj_on && top_uobjs(p, c.dev, &ucur, &uprev, &udelta, &r, &rt, &ut_r, &ut_rt)) {
			ret = 1;
			break;
		}
		if (v.graph)
			top_stacks(&v, p, &c, &t, &info, (size_t)n, 1);
		draw(&v, &c, &o, v.total ? &rt : &r, &info, tty_in, tty_out);
		memcpy(prev, cur, ((size_t)n + 2) * sizeof(*cur));
		prev_out = info.ticks_outside;
		prev_lost = info.ticks_lost;
		if (o.iters && ++done >= o.iters)
			break;
	}
	if (have) {
		report_free(&r);
		report_free(&rt);
	}
	snap_table_free(&ut_r);
	snap_table_free(&ut_rt);
	uobj_res_free(&uprev);
	stackview_free(&v.sv);
	stackview_free(&v.sv_total);
	snap_ext_free(v.ext);
	top_term_leave(&ts);
	if (!was_on) {
		int rc = set_state(p, c.dev, 0);

		if (!rc && (old_mode >= 0 || old_so.set))
			rc = apply_mode_stacks(p, &c, old_mode, &old_so);
		if (!rc)
			rc = apply_source(p, c.dev, &old_src);
		if (!rc && uobj_ours && (rc = prf_set_uobjs(p, 0, 0)))
			rc = dev_fail(c.dev, "PRF_SETUOBJS", rc);
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
