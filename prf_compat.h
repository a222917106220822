/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prf - one source for every supported kernel (6.1 to 7.x).
 *
 * Each difference between kernels is decided by a PRF_HAVE_<FEATURE> macro
 * that Kbuild defines after reading the target kernel's own headers, never
 * by LINUX_VERSION_CODE: distribution kernels backport, so a version number
 * says little about the API.  Everything version-dependent lives here.
 */
#ifndef PRF_COMPAT_H
#define PRF_COMPAT_H

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <asm/ptrace.h>
#ifdef PRF_HAVE_UNWIND_REGS
#include <asm/unwind.h>
#endif

/*
 * The system's unbound workqueue: system_dfl_wq where the kernel has it
 * (queueing on system_unbound_wq there warns once that it is deprecated),
 * system_unbound_wq before.
 */
#ifdef PRF_HAVE_SYSTEM_DFL_WQ
#define prf_unbound_wq system_dfl_wq
#else
#define prf_unbound_wq system_unbound_wq
#endif

/*
 * The path a mapped file was opened by, as /proc/PID/maps names it: a
 * file of a stacked file system (overlayfs) is mapped through a backing
 * file of the layer below, whose f_path is the layer's since 6.8 (and the
 * user's path is file_user_path()'s); before, its f_path was the user's.
 */
static inline const struct path *prf_file_user_path(const struct file *f)
{
#ifdef PRF_HAVE_FILE_USER_PATH
	return file_user_path(f);
#else
	return &f->f_path;
#endif
}

/*
 * A timer with its callback.  hrtimer_setup() (6.13) sets both at once;
 * hrtimer_init() (removed in 6.15) left the callback to be assigned, which
 * newer kernels forbid (hrtimer.function is __private).
 */
static inline void prf_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef PRF_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Return addresses the stack walk of the sampling interrupt may hold below
 * the interrupted frame (arm64, the walk from here), past the depth kept.
 */
#define PRF_WALK_ENTRIES	(PRF_STACK_DEPTH_MAX + 48)

/*
 * The kernel call stack a sample interrupted (@regs, kernel mode): @pc[0]
 * the interrupted PC, then the return addresses of its callers, outward,
 * at most @max in all; *@more is set when the stack went on beyond them.
 * Returns the number stored, at least 1.  @walk is scratch of
 * PRF_WALK_ENTRIES.
 *
 * With an unwinder that starts from registers (x86: ORC, frame pointers),
 * the walk starts at the interrupted frame.  Otherwise (arm64) the walk
 * starts here, in the sampling interrupt: the interrupted PC is in it (the
 * frame record of the exception entry holds it) and what is below it is the
 * interrupted stack; a walk in which it is not found gives the PC alone.
 *
 * The x86 walk is almost all of what a stack costs (the table is a tenth),
 * so it leaves out two things the unwinder's own loop does that change
 * nothing here (bench/README.md, "Stacks"; 300 ns of 1400 a sample):
 * - the kernel-text test of every return address, while the unwinder is on
 *   ORC data (no error): such an address is one a call pushed where the
 *   data says.  Once it guesses (code without ORC data, such as BPF, walked
 *   by frame pointer: unwind_error()), every address is tested as before.
 * - the step past the frame whose stack reaches the registers saved at the
 *   top of the task's stack (the syscall or exception entry's, for a task
 *   that came from user mode): nothing older is on that stack.  The step
 *   would find the user's registers, and a user address that the text test
 *   walks every kind of kernel text to refuse.  Where the stack ends
 *   otherwise the unwinder says so (done, or user registers).
 */
#ifdef PRF_HAVE_UNWIND_REGS
static inline bool prf_walk_at_stack_top(struct unwind_state *state)
{
#ifdef CONFIG_UNWINDER_ORC
	if (state->stack_info.type == STACK_TYPE_TASK &&
	    state->sp >= (unsigned long)task_pt_regs(current))
		return true;
#endif
	return false;
}

static inline unsigned long prf_walk_addr(struct unwind_state *state)
{
#ifdef CONFIG_UNWINDER_ORC
	if (!unwind_error(state))
		return state->ip;
#endif
	return unwind_get_return_address(state);
}
#endif

static inline u32 prf_stack_walk(struct pt_regs *regs, u64 *pc, u32 max,
				 unsigned long *walk, bool *more)
{
#ifdef PRF_HAVE_UNWIND_REGS
	struct unwind_state state;
	struct pt_regs *entry;
	unsigned long addr;
	u32 nr = 1;

	pc[0] = instruction_pointer(regs);
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		entry = unwind_get_entry_regs(&state, NULL);
		if (entry && user_mode(entry))
			break;
		addr = prf_walk_addr(&state);
		if (!addr)
			break;
		if (nr == max) {
			*more = true;
			break;
		}
		pc[nr++] = addr;
		if (prf_walk_at_stack_top(&state))
			break;
	}
	return nr;
#else
	unsigned long ip = instruction_pointer(regs);
	u32 n = 0, i = 0, nr;

#ifdef CONFIG_STACKTRACE
	n = stack_trace_save(walk, PRF_WALK_ENTRIES, 0);
	while (i < n && walk[i] != ip)
		i++;
#endif
	if (i == n) {
		pc[0] = ip;
		*more = true;
		return 1;
	}
	nr = min_t(u32, n - i, max);
	/* a full walk may have left frames out */
	*more = n - i > max || n == PRF_WALK_ENTRIES;
	for (n = 0; n < nr; n++)
		pc[n] = walk[i + n];
	return nr;
#endif
}

/*
 * The user call chain's walk (prf_uobj.c): the frame pointer of the user
 * code a sample interrupted (@regs, user mode), or 0 where its frame
 * records are not the 64-bit pair the walk reads (the caller's frame
 * pointer, then the return address) that x86-64 and arm64 share: a 32-bit
 * task, another architecture.
 */
static inline unsigned long prf_user_fp(struct pt_regs *regs)
{
#if defined(CONFIG_X86_64)
	return user_64bit_mode(regs) ? regs->bp : 0;
#elif defined(CONFIG_ARM64)
	return compat_user_mode(regs) ? 0 : regs->regs[29];
#else
	return 0;
#endif
}

/*
 * A 64-bit user state whose stack the unwind tables can walk (x86-64,
 * arm64; not a 32-bit task's).
 */
static inline bool prf_user_fp_mode(struct pt_regs *regs)
{
#if defined(CONFIG_X86_64)
	return user_64bit_mode(regs);
#elif defined(CONFIG_ARM64)
	return !compat_user_mode(regs);
#else
	return false;
#endif
}

/*
 * A user state that runs the vDSO of 64-bit tasks (uapi: PRF_UOBJ_VDSO):
 * a 64-bit task's, not a 32-bit one's nor, on x86-64, an x32 task's (64-bit
 * mode, a 32-bit address space: an image of its own).  Hard irq or NMI:
 * a flag of current.
 */
static inline bool prf_user_vdso64(struct pt_regs *regs)
{
#if defined(CONFIG_X86_64)
	return user_64bit_mode(regs) && !test_thread_flag(TIF_ADDR32);
#elif defined(CONFIG_ARM64)
	return !compat_user_mode(regs);
#else
	return false;
#endif
}

/*
 * Whether @vma is a vDSO's text ("[vdso]" in /proc/PID/maps: the name its
 * special mapping gives, on every kernel from 6.1).  Its mm's mmap lock
 * held, as /proc/PID/maps asks it.
 */
static inline bool prf_vma_is_vdso(struct vm_area_struct *vma)
{
	const char *name;

	if (!vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, "[vdso]");
}

/* The user link register (arm64's x30), where a leaf keeps its return. */
static inline u64 prf_user_lr(struct pt_regs *regs)
{
#ifdef CONFIG_ARM64
	return regs->regs[30];
#else
	return 0;
#endif
}

/*
 * A return address read from a user frame record, as the PC it returns
 * to: on arm64 code built with pointer authentication signs it in the bits
 * above the user address space, which go.
 */
static inline u64 prf_user_ret(u64 ret)
{
#ifdef CONFIG_ARM64
	return ret & (TASK_SIZE_64 - 1);
#else
	return ret;
#endif
}

#endif /* PRF_COMPAT_H */
