/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmd - what the prf commands share, and the commands themselves (cmd_*.c),
 * which prf.c dispatches to.  Exit status: 0 ok, 1 runtime error, 2 usage.
 *
 * The shared part stands in floors, each calling only those below it and
 * none of the commands: cmd.c (messages, options, the device, running a
 * command), cmd_table.c (the tables prfld loads), cmd_source.c (the source,
 * turning ON), cmd_user.c (one process or cgroup), cmd_stacks.c (the
 * snapshot's extension), cmd_capture.c (a snapshot from the device).
 */
#ifndef PRF_CMD_H
#define PRF_CMD_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "libprf.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"

/* PRF_VERSION: the file VERSION at the top of the tree (tools/Makefile). */
#ifndef PRF_VERSION
#error "PRF_VERSION: built by tools/Makefile, which reads ../VERSION"
#endif
#define EXIT_USAGE 2
#define DRY_RUN_MAX (1U << 24)	/* prfld -n: table size bound without a device */
#define OPTS_OK (-1)

/* The command's name in messages: "prfpr", "prf pr", ... */
extern const char *prog;

/* Options every command knows (long-only ones are for tests and experts). */
struct common {
	const char *dev;
	const char *kallsyms;
	const char *modules;
	uint32_t hz;			/* CO_SAMPLING: --hz, 0 when not given */
	int fixed;			/* CO_SAMPLING: 1 --fixed (--no-jitter), 0 --jitter, -1 neither */
	enum report_format format;	/* CO_FORMAT */
	enum report_of of;		/* CO_REPORT: --of */
	int of_given;			/* --of was given */
	enum report_sort sort;		/* CO_REPORT: --sort */
	const char *only;		/* CO_REPORT: -m/--modules, NULL all */
	/*
	 * The device's table is this program's own, built from the whole
	 * namelist (build_table without -m or --step, on a private instance
	 * no one else loads): every function of the text it covers is an
	 * entry, so its names name the stacks' frames too (capture_ext).
	 */
	int table_whole;
};

enum {
	OPT_KALLSYMS = 1000, OPT_MODULES, OPT_KASLR, OPT_STEP, OPT_RANGE,
	OPT_PERIOD_SEC, OPT_COUNT, OPT_CSV, OPT_JSON, OPT_FOLDED, OPT_TEXT,
	OPT_FROM, OPT_TO, OPT_JITTER, OPT_NOJITTER, OPT_PRINT, OPT_LIST,
	OPT_HZ, OPT_FIXED, OPT_SINCE_LOAD, OPT_LINES, OPT_DRY_RUN, OPT_NO_CGROUP,
	OPT_TASKS, OPT_OF, OPT_SORT, OPT_PPROF, OPT_DIFF,
	OPT_HTML = 1900, OPT_STACKS,	/* prfpr --html, --stacks (html.c) */
	/* every command: user names as the files have them (demangle.h); 1970: the
	 * commands number their own options 1100..1961 and 2000.. */
	OPT_NO_DEMANGLE = 1970,
};

/* The shared options a command takes besides -f DEVICE and -h. */
enum {
	CO_KALLSYMS = 1 << 0,	/* --kallsyms FILE */
	CO_MODULES = 1 << 1,	/* --proc-modules FILE */
	CO_SAMPLING = 1 << 2,	/* -z/--hz N, --fixed, --jitter, --no-jitter */
	CO_FORMAT = 1 << 3,	/* --csv, --json, --folded */
	CO_TEXT = 1 << 4,	/* --text */
	CO_DEV_FILTER = 1 << 5,	/* -f only selects: no default device */
	CO_REPORT = 1 << 6,	/* --of, --sort, -m/--modules (--module) */
};

/* What a command states of its own: the rest is parse_opts(). */
struct cmd_opts {
	const char *shortopts;		/* a leading '+' stops at the first operand */
	const struct option *lo;	/* NULL-terminated, or NULL */
	unsigned common;		/* CO_* */
	void (*help)(void);
	/* One of its own options: 0, or the exit status (usage_error()). */
	int (*opt)(void *ctx, int opt, const char *arg);
	int min_args, max_args;		/* operands */
	const char *args_error;		/* said outside them (default "too many arguments") */
};

struct ld_opts {
	const char *namelist;
	const char *only;
	uint64_t step;
	const char *range;
	int have_off;
	int64_t off;
	int dry, quiet;		/* prfld --dry-run, -q */
	pid_t pid;		/* prfld -p: a process's table */
	const char *cgroup;	/* prfld -G: a cgroup's */
};

/* "prog: ..." on stderr. */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* msg() and a hint at --help; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int parse_u64(const char *s, uint64_t *v, int base);
int parse_hz(const char *s, uint32_t *hz);
int parse_double(const char *s, double *d);
/* A cutoff in percent, from an option or an operand: 0 or EXIT_USAGE (said). */
int parse_cutoff(const char *s, double *cutoff);
/* A positive number given to option name: 0 or EXIT_USAGE (said). */
int parse_positive(const char *name, const char *s, uint64_t *v, const char *what);

/*
 * Parse argv into c (defaults first) and, through co->opt, the command's
 * own ctx.  OPTS_OK to go on, or the exit status.
 */
int parse_opts(const struct cmd_opts *co, struct common *c, int argc, char **argv,
	       void *ctx);

/* The device: each returns 0, or 1 after saying why not. */
int open_dev(const char *dev, int oflags, struct prf **p);
int dev_fail(const char *dev, const char *what, int ret);
int open_status(const char *dev, int oflags, struct prf **p, int *st);
int set_state(struct prf *p, const char *dev, int on);	/* cmd_source.c */
int set_hz_flags(struct prf *p, const char *dev, uint32_t hz, int fixed);
int fixed_on(const struct common *c);
/* The report options of CO_REPORT and CO_FORMAT into ro (the rest left). */
void report_opts_from(const struct common *c, struct report_opts *ro);

/* Tables (cmd_table.c): 0, 1 (runtime error, said) or 2 (usage, said). */
int build_table(const struct common *c, const struct ld_opts *o, size_t max,
		struct symtab *out);
int load_table(struct prf *p, const char *dev, const struct symtab *t);
int ensure_loaded(struct prf *p, const struct common *c, int verbose);
int ensure_loaded_names(struct prf *p, const struct common *c, int verbose,
			struct snap_table *names);
int names_of_symtab(const struct symtab *t, struct snap_table *out);

/* Snapshots (cmd_capture.c). */
void resolve_table(const struct common *c, const uint64_t *addrs, size_t n,
		   struct snap_table *t);
int capture(struct prf *p, const struct common *c, struct snap_table *t,
	    struct snapshot *s);
/*
 * Running a command as time(1) does: while it runs, SIGINT and SIGQUIT are
 * the command's (ignored here; handled by @on_stop when there is none) and
 * SIGTERM goes to @on_stop.  cmd_signals_restore() puts back what was.
 */
struct cmd_signals {
	struct sigaction oint, oquit, oterm;
};
void cmd_signals_take(struct cmd_signals *s, int have_cmd, void (*on_stop)(int));
void cmd_signals_restore(const struct cmd_signals *s);
/*
 * Forks @argv, held: the child gets back the signals of @s and waits for one
 * byte on a socket pair, then execs (after ptrace(PTRACE_TRACEME) when the
 * byte is 't'; it exits 126 when that is refused, 127 when the socket closes
 * with no byte).  An exec that fails is said by the child, which sends its
 * errno back and exits as a shell does: 127 not found, else 126.  Returns
 * the child's pid with *go the socket's end to write that byte to (and read
 * the errno from: cmd_exec_error()), or -1 after saying why.
 */
pid_t cmd_spawn_held(char **argv, const struct cmd_signals *s, int *go);
/* After the child of cmd_spawn_held() ended: the errno of its failed exec, or 0. */
int cmd_exec_error(int go);
/* mkstemp(@tmpl), closed: >= 0 (unlink @tmpl when done), or -1 (said). */
int cmd_mktemp(char *tmpl);
/* waitpid() through EINTR; the status. */
int cmd_wait(pid_t pid);
/* A command's failure said ("exited with status N", "killed by signal"); *ret 1 then. */
void cmd_report_status(const char *cmd, int status, int *ret);
/*
 * The end of a command run with cmd_spawn_held(), whatever happened: a
 * child still there (@pid > 0) killed and reaped, the pipe's end (@go >= 0)
 * closed, the signals of @s put back.
 */
void cmd_spawn_end(pid_t pid, int go, const struct cmd_signals *s);

int snap_to_file(struct prf *p, const struct common *c, const char *file,
		 struct snap_table *t, uint64_t *total);
/* The same, with the user objects table u (NULL: none) in a record of its own. */
int snap_to_file_uobjs(struct prf *p, const struct common *c, const char *file,
		       struct snap_table *t, uint64_t *total, struct snap_uobjs *u);
/* FILE can be appended to (cmd_snap.c): 0, or 1 after saying why not. */
int snap_file_check(const char *file);
/* Read a snapshot file, saying why not, or that a torn last record was skipped: 0 or 1. */
int read_snapfile(const char *file, struct snapfile *f);

/*
 * One process or one cgroup to profile (cmd_user.c): pid > 0, or cgroup a
 * cgroup v2 directory; neither: everything.
 */
struct target {
	pid_t pid;
	const char *cgroup;
};

/*
 * user_table - the table of a PRF_FLAG_USERPC instance: the user functions
 * of pids (usym_load_pids) followed by the kernel's (build_table).  Keeps
 * the user part to name snapshots' addresses.  0, 1 or 2 (said).
 */
int user_table(const struct common *c, const pid_t *pids, size_t npids, size_t max,
	       struct symtab *out);
/* PRF_SETFILTER for tg (nothing when tg is empty); 0 or 1 (said). */
int set_target_filter(struct prf *p, const char *dev, const struct target *tg);
/*
 * load_target - on an OFF instance: the filter of tg, the table of its
 * processes (a cgroup's: every process in it now), PRF_FLAG_USERPC.  The
 * counts of user and all entries loaded go to *nuser, *ntotal (NULL: not
 * wanted).  0, 1 or 2 (said).
 */
int load_target(struct prf *p, const struct common *c, const struct target *tg,
		size_t *nuser, size_t *ntotal);
/* The user names: 1 and the name of addr when it is a user address known, else 0. */
int user_describe(uint64_t addr, char **name, char **module, int *kind);
/* Find the user names of a loaded USERPC table from the instance's filter. */
void user_names_from_filter(struct prf *p);
/* The mount point of cgroup v2 (malloc'ed), or NULL. */
char *cgroup_v2_root(void);
/* The per-process tally: PRF_GETTASKS whole (0, or 1 said), and printed sorted. */
int read_tasks(struct prf *p, const char *dev, struct prf_task **v, size_t *n,
	       uint64_t *dropped);
void print_tasks(FILE *out, struct prf_task *v, size_t n, size_t max_rows,
		 uint64_t dropped, enum report_format fmt);

/* The commands: argv[0] is the command's name. */
int cmd_ld(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_snap(int argc, char **argv);
int cmd_dc(int argc, char **argv);
int cmd_pr(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_annotate(int argc, char **argv);	/* cmd_annotate.c */
int cmd_daemon(int argc, char **argv);		/* cmd_daemon.c */
int cmd_cfi(int argc, char **argv);		/* cmd_cfi.c */

#endif /* PRF_CMD_H */
