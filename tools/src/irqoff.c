// SPDX-License-Identifier: GPL-2.0-only
/*
 * irqoff - the re-enable points of the kernel, and what the reports say of
 * them (irqoff.h).
 *
 * A timer sample is a hardware interrupt.  When it falls due while the CPU
 * runs with interrupts disabled, it is taken at the first instruction after
 * they come back on (x86: after sti, or the popf of a restore; arm64:
 * after msr daifclr or the msr daif of a restore).  Where that instruction
 * is in a function of its own, its samples hold the time of the section
 * before it.  Which functions those are is decided here, by name, for
 * every report.  The names come from the text of the kernels prf is tested
 * on, disassembled after boot (/proc/kcore, alternatives applied) or from
 * the image: the functions that hold such an instruction.  Debian 6.1 has
 * 391 of them on x86-64 (446 sti), 7.3 502; most enable interrupts after a
 * short section of their own (local_irq_save() around a counter), and
 * their samples are mostly their own.  Marked are those whose samples are
 * dominated by the moment interrupts come back on after a section run
 * before them:
 *
 *  - the lock releases that restore or enable interrupts, by the kernel's
 *    naming: every "*_irqrestore" (_raw_spin_unlock_irqrestore,
 *    _raw_read/write_unlock_irqrestore, rcu_nocb_unlock_irqrestore,
 *    rcu_preempt_deferred_qs_irqrestore, __bpf_spin_unlock_irqrestore),
 *    "*_unlock_irq" (_raw_spin/read/write_unlock_irq) and 7.x's
 *    "*_unlock_irq_enable".  On x86 only the release is out of line; the
 *    spin_lock_irqsave() ... unlock section is the caller's.
 *  - arch_local_irq_enable() and arch_local_irq_restore(): Debian's arm64
 *    kernels inline the lock functions (CONFIG_INLINE_SPIN_UNLOCK_IRQRESTORE)
 *    and instead keep these two out of line, a copy in each of 14 and 20
 *    files of 6.1 (finish_task_switch() and handle_softirqs() call one).
 *    Their x86 versions are always inline.  There a lock's irq-off section
 *    lands in the function that held the lock, after its inline unlock:
 *    the right function, but not marked (the demo's workload in a 6.1
 *    arm64 guest: 8% of the kernel's samples marked, against 84% on x86,
 *    prepare_to_swait_event() and swake_up_one() heading the report).
 *  - the context switch: finish_task_switch() enables interrupts after the
 *    switch __schedule() made with the runqueue locked and them off.
 *  - the exits of a hardware interrupt: handle_softirqs() (__do_softirq()
 *    before 6.10; Debian's 6.1 has the new name) turns them on to run the
 *    softirqs a handler raised, preempt_schedule_irq() to preempt the
 *    interrupted task; the handler's own time lands there.
 *    net_rps_action_and_irq_enable() ends net_rx_action()'s irq-off part.
 *  - the kernel's entry and exit, run with interrupts off: on x86 the
 *    system call's entry (syscall_enter_from_user_mode(_prepare)() in 6.1,
 *    do_syscall_64() itself in 7.x), a page fault's (do_user_addr_fault())
 *    and the work before returning to user mode (exit_to_user_mode_prepare()
 *    in 6.1, exit_to_user_mode_loop() in 7.x), where a handler's time lands
 *    when it set need_resched; on arm64 el0_svc_common() (system calls),
 *    el0_da(), el0_ia() and el1_abort() (faults) and do_notify_resume().
 *  - the paravirtual enable itself when it is a call (Xen PV):
 *    pv_native_irq_enable(), xen_irq_enable(), xen_irq_enable_direct(),
 *    xen_restore_fl_direct().
 *
 * Not marked: the idle loop (default_idle() and the like enable interrupts
 * to wait; prf counts idle apart), trace_hardirqs_on() (called before the
 * enable, which is its caller's), the *_irq_enable() of interrupt lines
 * (irq_enable(), gpiochip_irq_enable()), the *_bh releases (they enable
 * softirqs, not interrupts), *_irqsave and *_lock_irq (they disable), and
 * the functions that enable interrupts after a section of their own
 * (___slab_alloc(), mod_memcg_state(), __napi_schedule() ...).  prf annotate
 * shows any function's samples instruction by instruction: those on the
 * instruction after an enable are irq-off time, whatever the function.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/prf.h>

#include "irqoff.h"
#include "namelist.h"
#include "model.h"
#include "modes.h"
#include "source.h"
#include "stackview.h"
#include "usym.h"

static const char *const reenable_suffixes[] = {
	"_irqrestore", "_unlock_irq", "_unlock_irq_enable",
};

static const char *const reenable_names[] = {
	"arch_local_irq_enable", "arch_local_irq_restore",
	"finish_task_switch",
	"handle_softirqs", "__do_softirq", "preempt_schedule_irq",
	"net_rps_action_and_irq_enable",
	"syscall_enter_from_user_mode", "syscall_enter_from_user_mode_prepare",
	"do_syscall_64", "do_user_addr_fault", "exit_to_user_mode_prepare",
	"exit_to_user_mode_loop",
	"el0_svc_common", "el0_da", "el0_ia", "el1_abort", "do_notify_resume",
	"pv_native_irq_enable", "xen_irq_enable", "xen_irq_enable_direct",
	"xen_restore_fl_direct",
};

/*
 * The frames --irqoff-to-caller passes over besides the re-enable points:
 * the lock and interrupt helpers between a re-enable point and the code
 * that held interrupts off.  Lock primitives by prefix; the interrupt
 * exit's path to handle_softirqs() by name, so that its charge goes to the
 * interrupt's handler (sysvec_*() or common_interrupt() on x86, the el1/el0
 * ones on arm64).
 */
static const char *const helper_prefixes[] = {
	"_raw_", "__raw_", "do_raw_", "queued_", "native_queued_", "__pv_queued_",
};

static const char *const helper_names[] = {
	"irq_exit", "irq_exit_rcu", "__irq_exit_rcu", "invoke_softirq", "do_softirq",
	"do_softirq_own_stack", "____do_softirq", "__local_bh_enable_ip", "_local_bh_enable",
	"local_bh_enable", "irqentry_exit", "irqentry_exit_to_user_mode",
	"call_on_irqstack", "call_on_stack", "call_on_irq_stack",
	"arm64_preempt_schedule_irq",
};

/* The function's name: no "+0x..." offset, no ".isra.0"-like suffix. */
static size_t base_len(const char *name)
{
	size_t n = strcspn(name, "+.");

	/* A name that starts with '.' or '+' is kept whole. */
	return n ? n : strlen(name);
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t l = strlen(suffix);

	return n >= l && !memcmp(s + n - l, suffix, l);
}

static int is_named(const char *s, size_t n, const char *const *names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (strlen(names[i]) == n && !memcmp(s, names[i], n))
			return 1;
	return 0;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

int irqoff_reenable(const char *name)
{
	size_t n, i;

	if (!name || !*name)
		return 0;
	n = base_len(name);
	for (i = 0; i < COUNT(reenable_suffixes); i++)
		if (ends_with(name, n, reenable_suffixes[i]) && n > strlen(reenable_suffixes[i]))
			return 1;
	return is_named(name, n, reenable_names, COUNT(reenable_names));
}

int irqoff_helper(const char *name)
{
	size_t n, i;

	if (!name || !*name)
		return 0;
	n = base_len(name);
	for (i = 0; i < COUNT(helper_prefixes); i++)
		if (!strncmp(name, helper_prefixes[i], strlen(helper_prefixes[i])))
			return 1;
	return is_named(name, n, helper_names, COUNT(helper_names));
}

int irqoff_applies(const struct report *r)
{
	return report_mode(r) == PRF_MODE_TIME && !report_all_nmi(r);
}

int irqoff_entry(const struct report *r, size_t idx)
{
	const struct snap_entry *e = &r->t->e[idx];

	return e->kind != SYM_SENTINEL && !usym_is_user_addr(e->addr) &&
	       irqoff_reenable(e->name);
}

uint64_t irqoff_samples(const struct report *r)
{
	uint64_t n = 0;
	size_t i;

	if (!irqoff_applies(r))
		return 0;
	for (i = 0; i < r->nrows; i++)
		if (irqoff_entry(r, r->rows[i].idx))
			n += r->rows[i].samples;
	return n;
}

double irqoff_share(const struct report *r)
{
	uint64_t base = report_base(r, OF_KERNEL);

	return base ? 100.0 * (double)irqoff_samples(r) / (double)base : 0.0;
}

char *irqoff_sentence(const struct report *r)
{
	char *s = NULL;

	if (!irqoff_samples(r))
		return NULL;
	if (asprintf(&s, "%.1f%% of kernel samples landed where interrupts are re-enabled "
		     "(marked %s): %s", irqoff_share(r), IRQOFF_MARK, IRQOFF_NOTE) < 0)
		return NULL;
	return s;
}

char *irqoff_moved_sentence(const struct report *r)
{
	char *s = NULL;

	if (!irqoff_applies(r) || !r->irqoff_to_caller)
		return NULL;
	if (asprintf(&s, "--irqoff-to-caller: %" PRIu64 " sample%s at re-enable points charged "
		     "to the first caller that is not a lock or interrupt helper, the one that "
		     "held interrupts off.", r->irqoff_moved, r->irqoff_moved == 1 ? "" : "s") < 0)
		return NULL;
	return s;
}

static void put(FILE *out, const char *s, int width)
{
	if (width > 0 && strlen(s) > (size_t)width)
		fprintf(out, "%.*s\n", width, s);
	else
		fprintf(out, "%s\n", s);
}

int irqoff_print(FILE *out, const struct report *r, int width)
{
	char *moved = irqoff_moved_sentence(r), *line = irqoff_sentence(r);
	int n = 0;

	if (moved) {
		put(out, moved, width);
		n++;
	}
	if (line) {
		put(out, line, width);
		n++;
	}
	free(moved);
	free(line);
	return n;
}

int irqoff_lines(const struct report *r)
{
	return (irqoff_applies(r) && r->irqoff_to_caller) + (irqoff_samples(r) > 0);
}

/* ---- --irqoff-to-caller ---- */

uint32_t irqoff_charged(const struct sv_stack *s)
{
	char buf[512];
	/* a joined stack's kernel frames alone: its user side is never cut */
	uint32_t k, nk = s->flags & SV_STACK_JOINED ? s->nk : s->nr;

	if (nk < 2 || (s->flags & PRF_STACK_USER) ||
	    !irqoff_reenable(frame_func(s->f[0], buf, sizeof(buf))))
		return 0;
	for (k = 1; k < nk; k++) {
		const char *n = frame_func(s->f[k], buf, sizeof(buf));

		if (!irqoff_reenable(n) && !irqoff_helper(n))
			return k;
	}
	return 0;
}

void irqoff_cut_stacks(struct stackview *sv)
{
	size_t i;

	sv->irqoff_to_caller = 1;
	sv->irqoff_moved = 0;
	for (i = 0; i < sv->n; i++) {
		struct sv_stack *s = &sv->v[i];
		uint32_t k = irqoff_charged(s);

		if (!k)
			continue;
		memmove(s->f, s->f + k, (s->nr - k) * sizeof(*s->f));
		s->nr -= k;
		if (s->flags & SV_STACK_JOINED)
			s->nk -= k;
		sv->irqoff_moved += s->count;
	}
}

/* The table entry holding addr (the last at or below it), or n. */
static size_t entry_of(const struct snap_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->n || addr < t->e[0].addr)
		return t->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->e[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static const struct snap_table *rows_table;

/* As report_build() orders them: most samples first, then by address. */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct report_row *a = pa, *b = pb;
	uint64_t xa = rows_table->e[a->idx].addr, xb = rows_table->e[b->idx].addr;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return xa < xb ? -1 : xa > xb;
}

int irqoff_to_caller(struct report *r, char *err, size_t errlen)
{
	const struct snap_table *t = r->t;
	struct stackview sv;
	size_t i, k, *pos;
	int ret;

	r->irqoff_to_caller = 0;
	ret = stackview_build(r, &sv, err, errlen);
	if (ret <= 0)
		return ret < 0 ? -1 : 1;
	/* Each entry's row; rows for the callers that had none (room: t->n). */
	pos = malloc((t->n ? t->n : 1) * sizeof(*pos));
	if (!pos) {
		stackview_free(&sv);
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	for (i = 0; i < t->n; i++)
		pos[i] = SIZE_MAX;
	for (i = 0; i < r->nrows; i++)
		pos[r->rows[i].idx] = i;
	r->irqoff_moved = 0;
	for (i = 0; i < sv.n; i++) {
		const struct sv_stack *s = &sv.v[i];
		uint32_t c = irqoff_charged(s);
		size_t from, to;
		uint64_t n;

		if (!c)
			continue;
		from = entry_of(t, s->f[0]->addr);
		to = entry_of(t, s->f[c]->addr);
		if (from == t->n || to == t->n || from == to || pos[from] == SIZE_MAX ||
		    !irqoff_entry(r, from) || t->e[to].kind == SYM_SENTINEL ||
		    usym_is_user_addr(t->e[to].addr))
			continue;
		n = s->count < r->rows[pos[from]].samples ? s->count :
		    r->rows[pos[from]].samples;
		if (!n)
			continue;
		if (pos[to] == SIZE_MAX) {
			pos[to] = r->nrows++;
			r->rows[pos[to]].idx = to;
			r->rows[pos[to]].samples = 0;
		}
		r->rows[pos[from]].samples -= n;
		r->rows[pos[to]].samples += n;
		r->irqoff_moved += n;
	}
	free(pos);
	stackview_free(&sv);
	/* Rows left empty go; the shares and the order follow the counts. */
	for (i = 0, k = 0; i < r->nrows; i++) {
		if (!r->rows[i].samples)
			continue;
		r->rows[k] = r->rows[i];
		r->rows[k].pct = r->all ? 100.0 * (double)r->rows[k].samples / (double)r->all : 0;
		k++;
	}
	r->nrows = k;
	rows_table = t;
	qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_rows);
	r->irqoff_to_caller = 1;
	return 0;
}
