// SPDX-License-Identifier: GPL-2.0-only
/*
 * irqoff_test - unit tests of the re-enable points (src/irqoff.c) and the
 * fixture the CLI tests read (tests/irqoff_tests.sh):
 *
 *   irqoff_test                      the tests (TAP)
 *   irqoff_test --make FILE          2 snapshots with stacks, time mode
 *
 * The fixture's kernel samples between its two snapshots (1000 with the
 * 20 outside), the re-enable points marked '*':
 *	clear_user_rep_good 400, _raw_spin_unlock_irqrestore* 300,
 *	finish_task_switch.isra.0* 100, _raw_spin_unlock_irq* 50,
 *	try_to_wake_up 40, handle_softirqs* 30, _raw_spin_unlock_bh 25,
 *	__schedule 20, __wake_up_common_lock 10, sysvec_apic_timer_interrupt 5
 * so 480 of 1000 (48.0%) landed on re-enable points; user 100, idle 880.
 * Its stacks (leaf last; 35 samples had none kept):
 *	__wake_up_common_lock;try_to_wake_up;_raw_spin_unlock_irqrestore 200
 *	__wake_up_common_lock;_raw_spin_unlock_irqrestore 90
 *	_raw_spin_unlock_irqrestore 10			(no caller)
 *	schedule;__schedule;_raw_spin_unlock_irq 50
 *	schedule;__schedule;finish_task_switch.isra.0 100
 *	sysvec_apic_timer_interrupt;__irq_exit_rcu;handle_softirqs 25
 *	__irq_exit_rcu;handle_softirqs 5		(helpers alone above it)
 *	__wake_up_common_lock;try_to_wake_up 40
 *	vfs_read;clear_user_rep_good 400
 *	vfs_read;clear_user_rep_good;_raw_spin_unlock_bh 25
 * --irqoff-to-caller moves 465 samples: 200 to try_to_wake_up, 90 to
 * __wake_up_common_lock, 150 to __schedule, 25 to the interrupt's handler;
 * the 15 without such a caller stay (1.5%).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/prf.h>

#include "irqoff.h"
#include "namelist.h"
#include "report.h"
#include "snapshot.h"
#include "stacks.h"

#include "tap.h"

#define TEXT 0xffffffff9a000000ULL

/* The table: a function every 0x100 bytes from _text, then the end. */
static const char *const fn[] = {
	"try_to_wake_up",		/* 0 */
	"__wake_up_common_lock",	/* 1 */
	"_raw_spin_unlock_irqrestore",	/* 2 */
	"_raw_spin_unlock_irq",		/* 3 */
	"finish_task_switch.isra.0",	/* 4 */
	"__schedule",			/* 5 */
	"schedule",			/* 6 */
	"handle_softirqs",		/* 7 */
	"__irq_exit_rcu",		/* 8 */
	"sysvec_apic_timer_interrupt",	/* 9 */
	"clear_user_rep_good",		/* 10 */
	"_raw_spin_unlock_bh",		/* 11 */
	"vfs_read",			/* 12 */
	"[outside kernel text]",	/* 13 */
};
#define NFN (sizeof(fn) / sizeof(fn[0]))

/* Counters of the two snapshots: the table's, then user and idle. */
static const uint64_t ca[NFN + 2] = { 10, 0, 50, 0, 20, 0, 0, 0, 0, 0, 100, 0, 0, 0, 50, 120 };
static const uint64_t cb[NFN + 2] = { 50, 10, 350, 50, 120, 20, 0, 30, 0, 5, 500, 25, 0, 0,
				      150, 1000 };

/* The frames of the stacks: a PC in a function (index into fn), ascending. */
static const struct { int fn; unsigned off; } frames[] = {
	{ 0, 0x44 },	/* 0 try_to_wake_up+0x44 */
	{ 1, 0x20 },	/* 1 __wake_up_common_lock+0x20 */
	{ 2, 0x10 },	/* 2 _raw_spin_unlock_irqrestore+0x10 */
	{ 3, 0x10 },	/* 3 _raw_spin_unlock_irq+0x10 */
	{ 4, 0x30 },	/* 4 finish_task_switch.isra.0+0x30 */
	{ 5, 0x80 },	/* 5 __schedule+0x80 */
	{ 5, 0x90 },	/* 6 __schedule+0x90 */
	{ 6, 0x10 },	/* 7 schedule+0x10 */
	{ 7, 0x10 },	/* 8 handle_softirqs+0x10 */
	{ 8, 0x08 },	/* 9 __irq_exit_rcu+0x8 */
	{ 9, 0x40 },	/* 10 sysvec_apic_timer_interrupt+0x40 */
	{ 10, 0x10 },	/* 11 clear_user_rep_good+0x10 */
	{ 11, 0x10 },	/* 12 _raw_spin_unlock_bh+0x10 */
	{ 12, 0x30 },	/* 13 vfs_read+0x30 */
};
#define NFRAMES (sizeof(frames) / sizeof(frames[0]))

/* count in a, count in b, frames leaf first (-1 ends) */
static const struct { uint64_t a, b; int f[4]; } stacks[] = {
	{ 0, 200, { 2, 0, 1, -1 } },
	{ 40, 130, { 2, 1, -1, -1 } },
	{ 10, 20, { 2, -1, -1, -1 } },
	{ 0, 50, { 3, 5, 7, -1 } },
	{ 20, 120, { 4, 6, 7, -1 } },
	{ 0, 25, { 8, 9, 10, -1 } },
	{ 0, 5, { 8, 9, -1, -1 } },
	{ 10, 50, { 0, 1, -1, -1 } },
	{ 100, 500, { 11, 13, -1, -1 } },
	{ 0, 25, { 12, 11, 13, -1 } },
};
#define NSTACKS (sizeof(stacks) / sizeof(stacks[0]))

static void make_table(struct snap_table *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->text = TEXT;
	t->n = NFN;
	t->e = calloc(NFN, sizeof(*t->e));
	for (i = 0; i < NFN; i++) {
		t->e[i].addr = TEXT + 0x100 * i;
		t->e[i].name = strdup(fn[i]);
		t->e[i].kind = i == NFN - 1 ? SYM_SENTINEL : SYM_FUNC;
	}
}

static void make_snap(struct snapshot *s, int which)
{
	const uint64_t *c = which ? cb : ca;
	struct snap_ext *x = calloc(1, sizeof(*x));
	size_t i, k;

	memset(s, 0, sizeof(*s));
	s->cpu = -1;
	s->ncpus = 2;
	s->online = 2;
	s->hz = 100;
	s->usec_per_tick = 10000;
	s->status = 3;
	s->time_ns = 1795000000000000000LL + which * 10000000000LL;
	s->n = NFN;
	s->info_size = PRF_INFO_SIZE_V4;
	s->max_addrs = 1 << 20;
	s->counts = calloc(NFN + 2, sizeof(uint64_t));
	for (i = 0; i < NFN + 2; i++) {
		s->counts[i] = c[i];
		s->ticks_total += c[i];
	}
	s->ticks_outside = which ? 25 : 5;
	s->ticks_total += s->ticks_outside;
	s->ticks_user = c[NFN];
	s->ticks_idle = c[NFN + 1];
	s->on_ns = (uint64_t)(s->time_ns - 1794999990000000000LL);
	s->device = strdup("/dev/prf");
	s->host = strdup("testhost");
	s->release = strdup("6.1.0-test");
	x->mode = PRF_MODE_TIME;
	x->depth = 8;
	x->capacity = 64;
	x->stacks_dropped = which ? 35 : 0;
	x->nframes = NFRAMES;
	x->frames = calloc(NFRAMES, sizeof(*x->frames));
	for (i = 0; i < NFRAMES; i++) {
		x->frames[i].addr = TEXT + 0x100 * (unsigned)frames[i].fn + frames[i].off;
		x->frames[i].name = strdup(fn[frames[i].fn]);
	}
	x->stacks = calloc(NSTACKS, sizeof(*x->stacks));
	for (i = 0; i < NSTACKS; i++) {
		struct snap_stack *st = &x->stacks[x->nstacks];

		if (!(which ? stacks[i].b : stacks[i].a))
			continue;
		st->count = which ? stacks[i].b : stacks[i].a;
		st->f = calloc(4, sizeof(uint32_t));
		for (k = 0; k < 4 && stacks[i].f[k] >= 0; k++)
			st->f[k] = (uint32_t)stacks[i].f[k];
		st->nr = (uint32_t)k;
		x->nstacks++;
	}
	s->ext = x;
}

static int write_fixture(const char *file)
{
	struct snap_table t;
	struct snapshot s;
	char err[SNAP_ERRLEN];
	int i, r = 0;

	make_table(&t);
	for (i = 0; i < 2 && !r; i++) {
		make_snap(&s, i);
		r = snapfile_append(file, &t, &s, err, sizeof(err));
		if (r)
			fprintf(stderr, "%s\n", err);
		snapshot_free(&s);
	}
	snap_table_free(&t);
	return r;
}

/* ---- the rule ---- */

static void test_names(void)
{
	static const char *const yes[] = {
		"_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq", "_raw_read_unlock_irqrestore",
		"_raw_read_unlock_irq", "_raw_write_unlock_irqrestore", "_raw_write_unlock_irq",
		"__raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq_enable",
		"rcu_nocb_unlock_irqrestore.part.0", "rcu_preempt_deferred_qs_irqrestore",
		"__bpf_spin_unlock_irqrestore", "bpf_res_spin_unlock_irqrestore",
		"regmap_unlock_hwlock_irqrestore", "unlock_page_lruvec_irqrestore",
		"finish_task_switch", "finish_task_switch.isra.0", "handle_softirqs",
		"__do_softirq", "preempt_schedule_irq", "net_rps_action_and_irq_enable",
		"syscall_enter_from_user_mode", "syscall_enter_from_user_mode_prepare",
		"do_syscall_64", "do_user_addr_fault", "exit_to_user_mode_prepare",
		"exit_to_user_mode_loop", "arch_local_irq_enable", "arch_local_irq_restore",
		"el0_svc_common.constprop.0", "el0_da", "el0_ia", "el1_abort", "do_notify_resume",
		"pv_native_irq_enable", "xen_irq_enable_direct", "xen_restore_fl_direct",
		"_raw_spin_unlock_irqrestore+0x40",
	};
	static const char *const no[] = {
		"_raw_spin_lock_irqsave", "_raw_spin_lock_irq", "_raw_spin_unlock",
		"_raw_spin_unlock_bh", "_raw_read_unlock_bh", "_raw_write_unlock_bh",
		"_raw_spin_trylock_bh", "queued_spin_lock_slowpath", "do_idle", "default_idle",
		"default_idle_call", "cpuidle_enter_state", "mwait_idle", "acpi_idle_do_entry",
		"trace_hardirqs_on", "irq_enable", "gpiochip_irq_enable", "amd_gpio_irq_enable",
		"regmap_irq_enable", "rtc_alarm_irq_enable", "__schedule", "schedule",
		"try_to_wake_up", "___slab_alloc", "mod_memcg_state.constprop.0", "__napi_schedule",
		"clear_user_rep_good", "_irqrestore", "_unlock_irq", "", ".isra.0",
		"spin_unlock_irqrestore_count", "arch_local_irq_save", "arch_local_irq_disable",
		"irqentry_exit", "__irq_exit_rcu",
	};
	size_t i;
	int bad;

	for (i = 0, bad = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!irqoff_reenable(yes[i]) && ++bad)
			printf("# not a re-enable point: %s\n", yes[i]);
	ok(!bad, "rule: %zu functions that turn interrupts back on are re-enable points",
	   sizeof(yes) / sizeof(yes[0]));
	for (i = 0, bad = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (irqoff_reenable(no[i]) && ++bad)
			printf("# a re-enable point: %s\n", no[i]);
	ok(!bad, "rule: %zu others are not (idle, the _bh releases, irqsave, interrupt lines, "
	   "trace_hardirqs_on, the callers)", sizeof(no) / sizeof(no[0]));
	ok(!irqoff_reenable(NULL), "rule: no name, no re-enable point");
	ok(irqoff_helper("__irq_exit_rcu") && irqoff_helper("irq_exit_rcu") &&
	   irqoff_helper("____do_softirq") && irqoff_helper("call_on_irq_stack") &&
	   irqoff_helper("_raw_spin_lock") && irqoff_helper("queued_spin_unlock") &&
	   irqoff_helper("do_raw_spin_unlock") && irqoff_helper("__local_bh_enable_ip") &&
	   irqoff_helper("irqentry_exit"),
	   "helpers: the lock primitives and the interrupt exit's path");
	ok(!irqoff_helper("__schedule") && !irqoff_helper("try_to_wake_up") &&
	   !irqoff_helper("sysvec_apic_timer_interrupt") &&
	   !irqoff_helper("__wake_up_common_lock") && !irqoff_helper("schedule") &&
	   !irqoff_helper(NULL), "helpers: not the code that holds interrupts off");
}

/* ---- reports of the fixture ---- */

static char *render(const struct report *r, enum report_format fmt)
{
	struct report_opts o = { 0 };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	o.format = fmt;
	o.cutoff = 1.0;
	report_print(f, r, &o);
	fclose(f);
	return s;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), l = strlen(end);

	return n >= l && !strcmp(s + n - l, end);
}

static uint64_t row_of(const struct report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->t->e[r->rows[i].idx].name, name))
			return r->rows[i].samples;
	return 0;
}

static void test_reports(const char *dir)
{
	char file[512], err[SNAP_ERRLEN], *out;
	struct snapfile f;
	struct report r;
	struct stackview sv;
	uint64_t sum = 0;
	size_t i;
	int ret, sorted = 1;

	snprintf(file, sizeof(file), "%s/irqoff.prf", dir);
	unlink(file);
	ok(!write_fixture(file), "fixture written");
	ret = snapfile_read(file, &f, err, sizeof(err));
	ok(!ret && f.nsnaps == 2, "fixture read: 2 snapshots");
	if (ret)
		return;
	ret = report_from_file(&r, &f, 1, 2, err, sizeof(err));
	ok(!ret && r.kernel + r.outside == 1000 && r.user == 100 && r.idle == 880,
	   "report: 1000 kernel samples (20 outside), 100 user, 880 idle");
	ok(irqoff_applies(&r) && irqoff_samples(&r) == 480 && irqoff_share(&r) == 48.0,
	   "report: 480 samples on re-enable points, 48%% of the kernel's (%" PRIu64 ")",
	   irqoff_samples(&r));
	out = render(&r, FMT_TEXT);
	ok(out && ends_with(out, "\n48.0% of kernel samples landed where interrupts are "
			    "re-enabled (marked *): time spent with interrupts off in code before "
			    "them, which the timer cannot sample; a PMU (NMI) source places it.\n"),
	   "text: ends with the line on re-enable points");
	ok(out && strstr(out, "  _raw_spin_unlock_irqrestore* kernel ") &&
	   strstr(out, "  finish_task_switch.isra.0*   kernel ") &&
	   strstr(out, "  clear_user_rep_good          kernel ") &&
	   strstr(out, "  _raw_spin_unlock_bh          kernel "),
	   "text: re-enable points marked *, the others not, the column wide enough");
	free(out);
	ret = irqoff_to_caller(&r, err, sizeof(err));
	ok(!ret && r.irqoff_to_caller && r.irqoff_moved == 465,
	   "--irqoff-to-caller: 465 samples moved (%" PRIu64 ")", r.irqoff_moved);
	ok(row_of(&r, "try_to_wake_up") == 240 && row_of(&r, "__wake_up_common_lock") == 100 &&
	   row_of(&r, "__schedule") == 170 && row_of(&r, "sysvec_apic_timer_interrupt") == 30 &&
	   row_of(&r, "_raw_spin_unlock_irqrestore") == 10 && row_of(&r, "handle_softirqs") == 5 &&
	   row_of(&r, "_raw_spin_unlock_irq") == 0 && row_of(&r, "finish_task_switch.isra.0") == 0 &&
	   row_of(&r, "clear_user_rep_good") == 400 && row_of(&r, "_raw_spin_unlock_bh") == 25,
	   "--irqoff-to-caller: each caller's row gets its samples, exact");
	for (i = 0; i < r.nrows; i++) {
		sum += r.rows[i].samples;
		if (i && r.rows[i].samples > r.rows[i - 1].samples)
			sorted = 0;
	}
	ok(sum == 980 && sorted && r.nrows == 8 && r.kernel == 980,
	   "--irqoff-to-caller: no sample lost, empty rows gone, still by samples (%zu rows)",
	   r.nrows);
	ok(irqoff_samples(&r) == 15, "--irqoff-to-caller: 15 samples with no such caller stay");
	ret = stacks_of_report(&r, &sv, err, sizeof(err));
	ok(ret == 1 && sv.irqoff_to_caller && sv.irqoff_moved == 465 && sv.total == 945,
	   "--irqoff-to-caller: the stacks of the report are cut too (%" PRIu64 ")",
	   sv.irqoff_moved);
	if (ret == 1) {
		for (i = 0, ret = 0; i < sv.n; i++) {
			char b[512];

			if (sv.v[i].nr && irqoff_reenable(frame_func(sv.v[i].f[0], b, sizeof(b))) &&
			    sv.v[i].count != 10 && sv.v[i].count != 5)
				ret++;
		}
		ok(!ret, "--irqoff-to-caller: no stack left whose leaf re-enabled, but those "
		   "without a caller");
		stackview_free(&sv);
	}
	report_free(&r);
	snapfile_free(&f);
	unlink(file);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/prf-irqoff-XXXXXX";

	if (argc == 3 && !strcmp(argv[1], "--make"))
		return write_fixture(argv[2]) ? 1 : 0;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_names();
	test_reports(dir);
	rmdir(dir);
	return tap_end();
}
