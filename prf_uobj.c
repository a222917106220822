// SPDX-License-Identifier: GPL-2.0
/*
 * prf - user objects (PRF_SETUOBJS, uapi/linux/prf.h): the user-mode samples
 * of any process, named by the file that maps their PC and the offset in it.
 *
 * Contexts, locking and lifetimes, decided here:
 *
 * - prf_uobj_note() runs in the sampling callback: hard irq (the timers, on
 *   PREEMPT_RT too) or NMI (the PMU source), on the CPU sampled, with the
 *   sampled task as current, interrupted in user mode.  It may take no lock,
 *   the address space's least of all, so it takes a reference on
 *   current->mm (mmget(): one atomic increment, which NMI allows; a task
 *   running in user mode holds its mm, so the count is not 0) and pushes
 *   (mm, pc, current's tgid: a plain field) on this CPU's ring, with the
 *   user call chain's return addresses when the table keeps chains (read
 *   from the user stack by copy_from_user_nofault(), which neither faults
 *   nor sleeps, and refuses in an NMI whose CPU is between address
 *   spaces).  With PRF_UOBJ_CFI it walks nothing: it copies the user stack
 *   from SP up (PRF_UOBJ_STACK bytes at most, a page at a time with
 *   copy_from_user_nofault(), up to the first page it cannot read) and the
 *   registers the walk starts from into this CPU's ring of copies
 *   (struct prf_uobj_wring, beside the notes' ring, with one producer and
 *   one consumer as theirs; a full ring makes the sample lost), and the
 *   consumer walks the copy with the unwind tables (prf_unwind.c): the
 *   interrupt never touches the tables, the consumer reads them under
 *   their lock and keeps each file's rows by reference while it walks.
 *   prf_uobj_note_pair() runs in the same callback for a sample
 *   interrupted in the kernel whose stack the stack table kept: when
 *   current entered the kernel from user mode (task_pt_regs(), the user
 *   state saved on entry; not a kernel thread) and holds its mm, it pushes
 *   that user state the same way, with the stack's entry number, for the
 *   worker to count the pair.  A ring has one producer: an instance
 *   samples from one source, its timer on a CPU does not nest, and the PMU
 *   source samples from its NMI handler alone.  The producer alone writes
 *   ->head, the consumer alone ->tail, each published with release and read
 *   with acquire: a note is whole before it is seen, and its slot is free
 *   before it is reused.
 *
 * - The consumer is prf_uobj_drain(), in process context with ut->lock (a
 *   mutex) held: from the table's delayed work (every 10 to 100 ms from ON,
 *   by the rate, and once after OFF) and from PRF_GETUOBJS.  It
 *   takes each noted address space's mmap_read_lock(), looks the PC up
 *   (and asks a mapping of no file its name, under that lock as
 *   /proc/PID/maps does, to tell the vDSO: PRF_UOBJ_VDSO, whose 64-bit-ness
 *   the note took from current's registers and flags in the interrupt),
 *   counts it (and its chain), and drops the reference with mmput(), which
 *   frees the
 *   address space of a process that exited meanwhile: that is why none of
 *   it happens in the interrupt.  The entry, chain and file tables are
 *   written only under ut->lock, so their fields are plain; .lost and
 *   .pairs_lost are the producers' (atomic64_t).  A pair names its kernel
 *   stack by the stack table's entry number, which stays that stack's until
 *   the stack table is zeroed while OFF or replaced: both zero this table
 *   too (prf_counts.c, prf_set_stacks()), under inst->lock, so the notes
 *   and pairs of an old numbering are gone before a new one is used.
 *
 * - Zeroing (a load, a clear, a filter...) runs under inst->lock and the
 *   hotplug lock, which must not wait for an address space's lock, so it
 *   does not wait for ut->lock: it notes how far each ring is to be
 *   discarded (its head at that moment) and what to forget, and the
 *   consumer applies both under ut->lock before it takes anything else.
 *   While OFF nothing pushes, so that is exact; a clear while ON can lose,
 *   besides, the notes the consumer took between the clear and its next
 *   pass (a few samples, in counter N but in no entry).  While OFF the
 *   files go too, and their references with them, at once: a clear must
 *   let their file systems unmount and deleted files free their blocks,
 *   and no drain comes while OFF unless asked.  So zeroing while OFF
 *   applies it itself when ut->lock is free (mutex_trylock(), which never
 *   waits: no consumer is in it), and otherwise queues the work, which
 *   applies it right after that consumer (prf_uobjs_zero()).  The
 *   path_put()s then run in the zeroing's process context, under
 *   inst->lock and the hotplug lock: they may sleep (a deleted file's last
 *   reference frees its blocks; a mount's last is put off to task work).
 *
 * - A file's device and inode number (as stat(2) gives them) are asked of
 *   its file system when a reader copies the files out, in the reader's
 *   process context with a reference of its own on the path and no lock
 *   held: a getattr may sleep (prf_uobj_describe()).
 *
 * - The table is reference counted like the stack table (prf.h): the
 *   instance's reference is installed and replaced under inst->lock while
 *   OFF; PRF_GETUOBJS takes one under inst->lock and reads after unlocking.
 *   The rings are written only while the instance is ON, and turning OFF
 *   waits for running callbacks (hrtimer_cancel(), or the PMU counters
 *   closed), so the last put, in process context, finds no producer: it
 *   cancels the work synchronously and discards what is left.  The work
 *   belongs to the table, so the module cannot go while one is pending:
 *   every table is put before prf_exit() returns.
 *
 * - Lock order: ut->lock, then an mm's mmap lock, then the unwind tables'
 *   prf_unwind_lock (taken and dropped to get a file's rows, innermost);
 *   inst->lock is never held with either (ON and OFF only queue the work)
 *   but while zeroing OFF, which only tries ut->lock, and, when it has it,
 *   takes no mmap lock.
 *   Nothing under ut->lock waits on user space: copies to the caller are
 *   made from snapshots after unlocking.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/path.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stat.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "prf.h"
#include "prf_compat.h"

/*
 * How often the worker drains the rings while ON: a quarter of a ring's
 * notes at the instance's rate, between 10 and 100 ms (at 10 kHz, 12 ms:
 * a ring fills in 51 ms); with the stack copies (PRF_UOBJ_CFI), a quarter
 * of their PRF_UOBJ_WINDOWS, from 1 ms (a jiffy: at 3 kHz 16 copies of 64
 * a pass, where a 10 ms floor lost a third of them).  The PMU source's
 * rate is the event's: 10 ms, or 1 ms with the copies.
 */
#define PRF_UOBJ_DRAIN_MS	100
#define PRF_UOBJ_DRAIN_MIN_MS	10
#define PRF_UOBJ_DRAIN_CFI_MS	1
#define PRF_UOBJ_PROBE		64	/* the tables are at most half full */

/* What zeroing asks of the consumer */
#define PRF_UOBJ_ZERO_COUNTS	1	/* counts and pending notes */
#define PRF_UOBJ_ZERO_ALL	2	/* entries and files too */

struct prf_uobj_note {
	struct mm_struct *mm;	/* a reference (mm_users) */
	u64 pc;
	u32 nret;		/* return addresses in the table's ->rets */
	u32 flags;		/* PRF_UCHAIN_TRUNCATED */
	u32 pid;		/* the sampled process's tgid (init pid ns) */
	s32 stack;		/* a pair's kernel stack entry, or -1 */
	bool win;		/* PRF_UOBJ_CFI: a stack copy, number ->wseq */
	bool vdso64;		/* PRF_UOBJ_VDSO: a 64-bit task's vDSO is named */
	u32 wseq;
};

/*
 * A copy of the user stack (PRF_UOBJ_CFI): @len bytes from @sp, and the
 * registers the walk starts from.  32 bytes before the copy (uapi).
 */
struct prf_uobj_win {
	u64 sp;
	u64 fp;
	u64 lr;			/* arm64's x30; 0 elsewhere */
	u32 len;
	u32 pad;
	u8 data[PRF_UOBJ_STACK];
};

/*
 * A CPU's copies: a ring of its own beside the notes' (one producer, one
 * consumer, as theirs).  A copy is pushed with its note and taken with it:
 * the consumer frees copies in the order the notes came, publishing
 * ->tail with release as it does the notes'.
 */
struct prf_uobj_wring {
	u32 head;		/* the producer's */
	u32 tail;		/* the consumer's */
	struct prf_uobj_win win[PRF_UOBJ_WINDOWS];
};

struct prf_uobj_ring {
	u32 head;		/* the producer's: notes pushed */
	u32 tail;		/* the consumer's: notes taken */
	u32 discard_to;		/* zeroing's: notes before it are dropped */
	struct prf_uobj_note note[PRF_UOBJ_RING];
};

struct prf_uobj_ent {
	u64 offset;
	u64 count;
	u32 file;		/* PRF_UOBJ_ANON, or an index in ->files */
	u32 pid : 31;		/* PRF_UOBJ_ANON's process (tgid), else 0 */
	u32 used : 1;
};

/* A chain: .depth frames follow, those past .nr_frames 0 (uapi record) */
struct prf_uchain_ent {
	struct prf_uchain h;
	struct prf_uframe frame[];
};

/* A pair: a kernel stack's entry number, and a chain (its frames follow) */
struct prf_upair_ent {
	u64 count;
	u32 stack;
	u32 nr_frames;
	u32 flags;		/* PRF_UCHAIN_TRUNCATED */
	u32 pad;
	struct prf_uframe frame[];
};

/*
 * A file is its inode: the one of the path a mapping was opened by (as
 * /proc/PID/maps names it), which the path's reference pins, so no other
 * file has it while the entry lives.  Not (s_dev, i_ino): btrfs subvolumes
 * share a superblock and each numbers its inodes from 256.  The vDSO
 * (PRF_UOBJ_VDSO) is the entry whose key is NULL, with no path.
 */
struct prf_uobj_kfile {
	struct path path;	/* a reference, until zeroed (uapi); vDSO: none */
	const struct inode *inode;	/* path.dentry's: the key */
};

struct prf_uobjtab {
	struct kref ref;	/* the instance's, and each PRF_GETUOBJS */
	struct mutex lock;	/* the consumer's (above) */
	struct delayed_work work;
	bool running;		/* the instance is ON: the work rearms */
	bool vdso;		/* PRF_UOBJ_VDSO: the vDSO is a file (uapi) */
	unsigned long period;	/* jiffies between passes while ON */
	atomic_t zero;		/* PRF_UOBJ_ZERO_* pending (zeroing, above) */
	u32 gen;		/* ZERO_ALL applied so many times */
	u32 capacity;
	u32 files_max;
	u32 nslots;		/* entry slots, a power of two */
	u32 fslots;		/* file index slots, a power of two */
	u32 used;		/* entries claimed */
	u32 files_used;		/* ->files[0 .. files_used - 1] */
	atomic64_t lost;
	u64 dropped;
	u64 unmapped;
	struct prf_uobj_ring __percpu *rings;
	struct prf_uobj_wring *wrings;	/* PRF_UOBJ_CFI: nr_cpu_ids, or NULL */
	struct prf_uobj_ent *ent;	/* nslots */
	u32 *findex;		/* fslots: index + 1 in ->files, 0 free */
	struct prf_uobj_kfile *files;	/* files_max */
	/* chains (PRF_UOBJ_CHAINS; depth 0 without) */
	u32 depth;
	u32 chains_used;
	size_t cstride;		/* bytes of a chain entry */
	u64 chains_dropped;
	u64 *rets;		/* each CPU's ring's notes' depth - 1 */
	struct prf_uchain_ent *chains;	/* capacity entries of cstride */
	u32 *cindex;		/* nslots: index + 1 in ->chains, 0 free */
	struct prf_uframe *scratch;	/* depth: the chain being resolved */
	/* pairs (with chains): capacity entries of pstride, nslots index */
	u32 pairs_used;
	size_t pstride;
	u64 pairs_dropped;
	atomic64_t pairs_lost;
	struct prf_upair_ent *pairs;
	u32 *pindex;		/* nslots: index + 1 in ->pairs, 0 free */
};

static struct prf_upair_ent *prf_upair_ent(const struct prf_uobjtab *ut,
					   u32 i)
{
	return (void *)ut->pairs + (size_t)i * ut->pstride;
}

static struct prf_uchain_ent *prf_uchain_ent(const struct prf_uobjtab *ut,
					     u32 i)
{
	return (void *)ut->chains + (size_t)i * ut->cstride;
}

/* CPU @cpu's copies (PRF_UOBJ_CFI). */
static struct prf_uobj_wring *prf_uobj_wring(const struct prf_uobjtab *ut,
					     unsigned int cpu)
{
	return &ut->wrings[cpu];
}

/* Note @n's stack copy, on CPU @cpu's ring, or NULL. */
static const struct prf_uobj_win *prf_uobj_win_of(const struct prf_uobjtab *ut,
						  unsigned int cpu,
						  const struct prf_uobj_note *n)
{
	if (!n->win)
		return NULL;
	return &prf_uobj_wring(ut, cpu)->win[n->wseq % PRF_UOBJ_WINDOWS];
}

/* Note @n taken: its stack copy is free for the producer from here. */
static void prf_uobj_win_done(struct prf_uobjtab *ut, unsigned int cpu,
			      const struct prf_uobj_note *n)
{
	struct prf_uobj_wring *wr = prf_uobj_wring(ut, cpu);

	if (!n->win)
		return;
	/* pairs with the producer's acquire: the copy read before reuse */
	smp_store_release(&wr->tail, n->wseq + 1);
}

/* A note's return addresses: (depth - 1) of them in ->rets. */
static u64 *prf_uobj_rets(const struct prf_uobjtab *ut, unsigned int cpu,
			  u32 slot)
{
	return ut->rets + ((size_t)cpu * PRF_UOBJ_RING + slot) * (ut->depth - 1);
}

/*
 * The user call chain above the interrupted PC: return addresses read from
 * the frame records, outward, at most @max (uapi: where the walk stops).
 * Hard irq or NMI, current's user memory, no fault taken.
 */
static u32 prf_uobj_walk(struct pt_regs *regs, u64 *ret, u32 max, u32 *flags)
{
	unsigned long fp = prf_user_fp(regs);
	u64 frame[2];		/* the caller's frame pointer, the return address */
	u32 n = 0;

	while (fp && IS_ALIGNED(fp, 8)) {
		if (copy_from_user_nofault(frame, (const void __user *)fp,
					   sizeof(frame)) || !frame[1])
			break;
		if (n == max) {
			*flags |= PRF_UCHAIN_TRUNCATED;
			break;
		}
		ret[n++] = prf_user_ret(frame[1]);
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

/*
 * Current's user stack from @sp up, into @dst: the bytes copied, at most
 * PRF_UOBJ_STACK, a page at a time up to the first that cannot be read
 * without faulting (the stack's top, or not resident).  On the main
 * thread's stack the copy ends PRF_UOBJ_STACK_SLACK bytes past
 * mm->start_stack (where argc lies at the exec: every frame, the
 * outermost's included, is below it), so a shallow stack costs what it
 * holds; a thread's stack lies elsewhere and is copied whole.  Hard irq
 * or NMI (start_stack is a plain field, set at the exec).
 */
#define PRF_UOBJ_STACK_SLACK	64
static u32 prf_uobj_copy_stack(unsigned long sp, u8 *dst)
{
	unsigned long top = current->mm->start_stack;
	u32 len = 0, max = PRF_UOBJ_STACK, n;

	if (top > sp && top - sp < PRF_UOBJ_STACK - PRF_UOBJ_STACK_SLACK)
		max = top - sp + PRF_UOBJ_STACK_SLACK;
	while (len < max) {
		n = min_t(u32, max - len,
			  PAGE_SIZE - offset_in_page(sp + len));
		if (copy_from_user_nofault(dst + len,
					   (const void __user *)(sp + len), n))
			break;
		len += n;
	}
	return len;
}

/*
 * A copy of current's user stack and registers @regs for note @n
 * (PRF_UOBJ_CFI): false when this CPU's copies are all pending.  A 32-bit
 * task gets none: its chain is its PC (uapi).  Hard irq or NMI.
 */
static bool prf_uobj_window(struct prf_uobjtab *ut, struct pt_regs *regs,
			    struct prf_uobj_note *n)
{
	struct prf_uobj_wring *wr = prf_uobj_wring(ut, smp_processor_id());
	u32 head = wr->head;
	struct prf_uobj_win *w;

	if (!prf_user_fp_mode(regs))
		return true;
	/* pairs with the consumer's release of ->tail: the copy is free */
	if (head - smp_load_acquire(&wr->tail) >= PRF_UOBJ_WINDOWS)
		return false;
	w = &wr->win[head % PRF_UOBJ_WINDOWS];
	w->sp = user_stack_pointer(regs);
	w->fp = prf_user_fp(regs);
	w->lr = prf_user_lr(regs);
	w->len = prf_uobj_copy_stack(w->sp, w->data);
	n->win = true;
	n->wseq = head;
	/* the consumer sees the copy through the note's release */
	wr->head = head + 1;
	return true;
}

/*
 * The user state @regs of current, for a user-mode sample (@stack -1) or a
 * pair's (@stack its kernel stack's entry): false when it could not be
 * pushed.  Hard irq or NMI, no lock (above).
 */
static bool prf_uobj_push(struct prf_uobjtab *ut, struct pt_regs *regs,
			  int stack)
{
	struct prf_uobj_ring *r = this_cpu_ptr(ut->rings);
	struct mm_struct *mm = current->mm;
	u32 head = r->head, tail;
	struct prf_uobj_note *n;

	/* pairs with the consumer's release of ->tail: the slot is free */
	tail = smp_load_acquire(&r->tail);
	if (unlikely(!mm) || head - tail >= PRF_UOBJ_RING)
		return false;
	n = &r->note[head % PRF_UOBJ_RING];
	n->win = false;
	if (ut->wrings && !prf_uobj_window(ut, regs, n))
		return false;
	mmget(mm);
	n->mm = mm;
	n->pc = instruction_pointer(regs);
	n->nret = 0;
	n->flags = 0;
	n->vdso64 = ut->vdso && prf_user_vdso64(regs);
	/*
	 * The process, for code of no file (uapi): its tgid as the initial
	 * pid namespace numbers it, a plain field of current, which is
	 * running and so not reaped; PID_MAX_LIMIT fits the entry's 31 bits.
	 */
	n->pid = current->tgid;
	n->stack = stack;
	if (ut->depth && !ut->wrings)
		n->nret = prf_uobj_walk(regs,
					prf_uobj_rets(ut, smp_processor_id(),
						      head % PRF_UOBJ_RING),
					ut->depth - 1, &n->flags);
	/* the note is whole before the consumer sees it */
	smp_store_release(&r->head, head + 1);
	return true;
}

/* A user-mode sample; hard irq or NMI, no lock (above). */
void prf_uobj_note(struct prf_uobjtab *ut, struct pt_regs *regs)
{
	if (!prf_uobj_push(ut, regs, -1))
		atomic64_inc(&ut->lost);
}

/*
 * A sample in the kernel whose stack is entry @stack of the stack table:
 * its pair, if current came in from user mode (above).  A task without an
 * address space (exiting) has no user side: no pair, nothing counted.
 */
void prf_uobj_note_pair(struct prf_uobjtab *ut, int stack)
{
	struct pt_regs *uregs;

	if (!ut->depth || (current->flags & PF_KTHREAD) || !current->mm)
		return;
	uregs = task_pt_regs(current);
	if (!user_mode(uregs))
		return;
	if (!prf_uobj_push(ut, uregs, stack))
		atomic64_inc(&ut->pairs_lost);
}

/*
 * The index in ->files of @file's inode (struct prf_uobj_kfile), added on
 * first sight with a reference on its path; -1 when the file table is
 * full.  The path is named, and its device and inode number given as
 * stat(2) gives them, when read (prf_uobj_copy_files()).  @file NULL: the
 * vDSO's entry, keyed NULL, with no path.
 */
static int prf_uobj_file(struct prf_uobjtab *ut, struct file *file)
{
	const struct path *path = file ? prf_file_user_path(file) : NULL;
	const struct inode *inode = path ? d_inode(path->dentry) : NULL;
	struct prf_uobj_kfile *kf;
	u32 h, i, *slot;

	h = hash_ptr(inode, ilog2(ut->fslots));
	for (i = 0; i < PRF_UOBJ_PROBE; i++) {
		slot = &ut->findex[(h + i) & (ut->fslots - 1)];
		if (!*slot)
			break;
		kf = &ut->files[*slot - 1];
		if (kf->inode == inode)
			return *slot - 1;
	}
	if (i == PRF_UOBJ_PROBE || ut->files_used == ut->files_max)
		return -1;
	kf = &ut->files[ut->files_used];
	kf->inode = inode;
	if (path) {
		kf->path = *path;
		path_get(&kf->path);
	} else {
		kf->path = (struct path){};
	}
	*slot = ++ut->files_used;
	return *slot - 1;
}

/*
 * Counts (@file, @offset, @pid): @pid is 0 but for PRF_UOBJ_ANON, whose
 * code is the process's own.  false when the table was full (counted in
 * .dropped).
 */
static bool prf_uobj_count(struct prf_uobjtab *ut, u32 file, u64 offset,
			   u32 pid)
{
	struct prf_uobj_ent *e;
	u32 h, i;

	h = hash_64(offset ^ ((u64)file << 40) ^ ((u64)pid << 20),
		    ilog2(ut->nslots));
	for (i = 0; i < PRF_UOBJ_PROBE; i++) {
		e = &ut->ent[(h + i) & (ut->nslots - 1)];
		if (e->used && e->file == file && e->offset == offset &&
		    e->pid == pid)
			goto found;
		if (!e->used)
			break;
	}
	if (i == PRF_UOBJ_PROBE || ut->used == ut->capacity) {
		ut->dropped++;
		return false;
	}
	e->used = 1;
	e->file = file;
	e->offset = offset;
	e->pid = pid;
	ut->used++;
found:
	e->count++;
	return true;
}

/*
 * The mappings last looked up, each with its file's index in ->files (or
 * PRF_UOBJ_ANON, or -1 when the file table was full; @file_ok once
 * looked up: a mapping that is not executable keeps none) and, with
 * PRF_UOBJ_CFI, its file's unwind rows (a reference, or NULL; @rows_ok
 * once looked up): valid while the address space's mmap lock is held
 * without a break, no mapping changes meanwhile.  A chain's frames go back
 * and forth between a few mappings (the program, the C library) and a
 * process's consecutive samples repeat them: the lookup, the file's hash
 * and the store's lock are most of what resolving a frame costs.  @cur is
 * the entry of the frame resolved last, @next the one a miss replaces.
 */
#define PRF_UOBJ_VCACHE	4
struct prf_uobj_vent {
	struct vm_area_struct *vma;
	int file;
	bool file_ok, rows_ok;
	bool vdso;		/* the vDSO's mapping (prf_vma_is_vdso()) */
	bool vfile_ok;		/* @vfile looked up */
	int vfile;		/* the vDSO's index in ->files, or -1 (full) */
	struct prf_unwind_rows *rows;
};

struct prf_uobj_vcache {
	struct prf_uobj_vent ent[PRF_UOBJ_VCACHE];
	unsigned int cur, next;
};

/* Every entry forgotten (a new lock, or the drain's end), its rows put. */
static void prf_uobj_vcache_reset(struct prf_uobj_vcache *vc)
{
	unsigned int i;

	for (i = 0; i < PRF_UOBJ_VCACHE; i++)
		prf_unwind_put(vc->ent[i].rows);
	memset(vc, 0, sizeof(*vc));
}

/* The entry of @at's mapping, looked up on a miss: NULL when none maps it. */
static struct prf_uobj_vent *prf_uobj_vent(struct mm_struct *mm, u64 at,
					   struct prf_uobj_vcache *vc)
{
	struct vm_area_struct *vma;
	struct prf_uobj_vent *e;
	unsigned int i;

	for (i = 0; i < PRF_UOBJ_VCACHE; i++) {
		e = &vc->ent[(vc->cur + i) % PRF_UOBJ_VCACHE];
		if (e->vma && at >= e->vma->vm_start && at < e->vma->vm_end) {
			vc->cur = e - vc->ent;
			return e;
		}
	}
	vma = vma_lookup(mm, at);
	if (!vma)
		return NULL;
	vc->cur = vc->next;
	vc->next = (vc->next + 1) % PRF_UOBJ_VCACHE;
	e = &vc->ent[vc->cur];
	prf_unwind_put(e->rows);
	e->vma = vma;
	e->file_ok = false;
	e->rows_ok = false;
	e->vdso = !vma->vm_file && prf_vma_is_vdso(vma);
	e->vfile_ok = false;
	e->rows = NULL;
	return e;
}

/*
 * The offset of @at in the mapping of entry @e: in its file, or, in the
 * vDSO, in its image (the distance from the mapping's start: uapi).
 */
static u64 prf_uobj_voff(const struct prf_uobj_vent *e, u64 at)
{
	if (e->vdso)
		return at - e->vma->vm_start;
	return at - e->vma->vm_start + ((u64)e->vma->vm_pgoff << PAGE_SHIFT);
}

/*
 * Whether the PCs of note @n in the mapping of entry @e are the vDSO's
 * image (uapi: a 64-bit task's, PRF_UOBJ_VDSO set up), and so counted
 * against its entry rather than as code of no file.
 */
static bool prf_uobj_in_vdso(const struct prf_uobj_vent *e,
			     const struct prf_uobj_note *n)
{
	return e->vdso && n->vdso64;
}

/*
 * @addr of @mm (its mmap lock held read), a PC or return address of note
 * @n's process, as a frame (code of no file keeps its pid: uapi; the vDSO
 * is a file of its own, for a 64-bit task set up so): 0, or -ENOENT when no
 * mapping covers @at (@addr, or a return address less one: the call),
 * -EFAULT when a return address's mapping is not executable (a frame
 * pointer walk that left the frame records: no call is there), -ENOSPC
 * when its file found the file table full.
 */
static int prf_uobj_frame(struct prf_uobjtab *ut, struct mm_struct *mm,
			  const struct prf_uobj_note *n, u64 addr, u64 at,
			  struct prf_uframe *f, struct prf_uobj_vcache *vc)
{
	struct prf_uobj_vent *e = prf_uobj_vent(mm, at, vc);
	struct vm_area_struct *vma;

	if (!e)
		return -ENOENT;
	vma = e->vma;
	/* before its file is kept: no frame will be counted in it */
	if (at != addr && !(vma->vm_flags & VM_EXEC))
		return -EFAULT;
	if (!e->file_ok) {
		e->file = vma->vm_file ? prf_uobj_file(ut, vma->vm_file) :
					 (int)PRF_UOBJ_ANON;
		e->file_ok = true;
	}
	f->pid = 0;
	/* the vDSO's entry: apart, since the note decides whether it counts */
	if (prf_uobj_in_vdso(e, n)) {
		if (!e->vfile_ok) {
			e->vfile = prf_uobj_file(ut, NULL);
			e->vfile_ok = true;
		}
		if (e->vfile < 0)
			return -ENOSPC;
		f->file = e->vfile;
		f->offset = prf_uobj_voff(e, addr);
		return 0;
	}
	if (e->file == (int)PRF_UOBJ_ANON) {
		f->file = PRF_UOBJ_ANON;
		f->offset = addr;
		f->pid = n->pid;
		return 0;
	}
	if (e->file < 0)
		return -ENOSPC;
	f->file = e->file;
	f->offset = prf_uobj_voff(e, addr);
	return 0;
}

/* Counts the chain in ut->scratch[0 .. @nr - 1]; ut->lock held. */
static void prf_uchain_count(struct prf_uobjtab *ut, u32 nr, u32 flags)
{
	size_t bytes = nr * sizeof(*ut->scratch);
	struct prf_uchain_ent *c;
	u32 h, i, *slot;

	h = jhash2((u32 *)ut->scratch, bytes / sizeof(u32), nr ^ (flags << 8));
	for (i = 0; i < PRF_UOBJ_PROBE; i++) {
		slot = &ut->cindex[(h + i) & (ut->nslots - 1)];
		if (!*slot)
			break;
		c = prf_uchain_ent(ut, *slot - 1);
		if (c->h.nr_frames == nr && c->h.flags == flags &&
		    !memcmp(c->frame, ut->scratch, bytes))
			goto found;
	}
	if (i == PRF_UOBJ_PROBE || ut->chains_used == ut->capacity) {
		ut->chains_dropped++;
		return;
	}
	/* a slot a zeroing freed holds an old chain: its count, its frames */
	c = prf_uchain_ent(ut, ut->chains_used);
	memset(c, 0, ut->cstride);
	c->h.nr_frames = nr;
	c->h.flags = flags;
	memcpy(c->frame, ut->scratch, bytes);
	*slot = ++ut->chains_used;
found:
	c->h.count++;
}

/* Counts the pair of @stack and the chain in ut->scratch; ut->lock held. */
static void prf_upair_count(struct prf_uobjtab *ut, u32 stack, u32 nr,
			    u32 flags)
{
	size_t bytes = nr * sizeof(*ut->scratch);
	struct prf_upair_ent *p;
	u32 h, i, *slot;

	h = jhash2((u32 *)ut->scratch, bytes / sizeof(u32),
		   stack ^ (nr << 21) ^ (flags << 27));
	for (i = 0; i < PRF_UOBJ_PROBE; i++) {
		slot = &ut->pindex[(h + i) & (ut->nslots - 1)];
		if (!*slot)
			break;
		p = prf_upair_ent(ut, *slot - 1);
		if (p->stack == stack && p->nr_frames == nr &&
		    p->flags == flags && !memcmp(p->frame, ut->scratch, bytes))
			goto found;
	}
	if (i == PRF_UOBJ_PROBE || ut->pairs_used == ut->capacity) {
		ut->pairs_dropped++;
		return;
	}
	/* a slot a zeroing freed holds an old pair: its count, its frames */
	p = prf_upair_ent(ut, ut->pairs_used);
	memset(p, 0, ut->pstride);
	p->stack = stack;
	p->nr_frames = nr;
	p->flags = flags;
	memcpy(p->frame, ut->scratch, bytes);
	*slot = ++ut->pairs_used;
found:
	p->count++;
}

/*
 * The return addresses @ret of note @n resolved into ut->scratch[1 ..]
 * (its PC is in ut->scratch[0]), the mmap lock held read: the frames
 * resolved, with *@flags updated, or -ENOSPC when a frame's file found the
 * file table full.
 */
static int prf_uobj_resolve_rets(struct prf_uobjtab *ut, struct mm_struct *mm,
				 const struct prf_uobj_note *n, const u64 *ret,
				 struct prf_uobj_vcache *vc, u32 *flags)
{
	struct prf_uframe *f = ut->scratch;
	u32 i;
	int err;

	for (i = 0; i < n->nret; i++) {
		err = prf_uobj_frame(ut, mm, n, ret[i], ret[i] - 1,
				     &f[i + 1], vc);
		if (err == -ENOSPC)
			return err;
		if (err == -EFAULT) {	/* astray: what called is unknown */
			*flags |= PRF_UCHAIN_TRUNCATED;
			break;
		}
		if (err) {	/* unmapped since: the chain ends here */
			*flags &= ~PRF_UCHAIN_TRUNCATED;
			break;
		}
	}
	return i + 1;
}

/*
 * The unwind rows of the file the mapping of entry @e maps (the vDSO's for
 * note @n in it), or NULL (none loaded, no file), looked up once an entry,
 * with a reference the entry puts.
 */
static const struct prf_unwind_rows *prf_uobj_vrows(struct prf_uobj_vent *e,
						    const struct prf_uobj_note *n)
{
	struct file *file = e->vma->vm_file;

	if (!file && !prf_uobj_in_vdso(e, n))
		return NULL;
	if (!e->rows_ok) {
		e->rows = prf_unwind_get(file ? d_inode(prf_file_user_path(file)->dentry) :
					 NULL);
		e->rows_ok = true;
	}
	return e->rows;
}

/*
 * Note @n's chain walked over its stack copy @w with the unwind tables
 * (PRF_UOBJ_CFI, uapi) into ut->scratch[1 ..] (its PC resolved in
 * ut->scratch[0], vc's current entry the mapping of it), the mmap lock held read:
 * the frames, with *@flags updated, or -ENOSPC when a frame's file found
 * the file table full.  Each step's code is looked up at its PC (the
 * first, and a frame a signal interrupted) or its return address less one
 * (the call: a return address may be the first byte of the next function,
 * or past the end of the code).  Through a signal frame, the trampoline's
 * frame and the interrupted one are given as their address + 1 (uapi).
 */
static int prf_uobj_unwind(struct prf_uobjtab *ut, struct mm_struct *mm,
			   const struct prf_uobj_note *n,
			   const struct prf_uobj_win *w,
			   struct prf_uobj_vcache *vc, u32 *flags)
{
	const struct prf_unwind_stack stk = {
		.sp = w->sp, .data = w->data, .len = w->len,
	};
	struct prf_unwind_regs st = {
		.sp = w->sp, .fp = w->fp, .lr = w->lr, .floor = w->sp,
		.sp_ok = true, .fp_ok = true, .lr_ok = IS_ENABLED(CONFIG_ARM64),
		.first = true,
	};
	const struct prf_unwind_rows *rows;
	const struct prf_unwind_row *row;
	struct prf_uobj_vent *e;
	u64 at = n->pc, ra;
	bool record;
	u32 nr = 1;
	int step, err;

	for (;;) {
		e = &vc->ent[vc->cur];
		rows = prf_uobj_vrows(e, n);
		row = rows ? prf_unwind_find(rows, prf_uobj_voff(e, at)) : NULL;
		/* a frame record, only at a call (uapi) */
		record = !st.first && rows &&
			 (rows->flags & PRF_UNWIND_FRAMEPTR);
		step = prf_unwind_step(row, record, &st, &stk, &ra);
		if (step == PRF_UNWIND_END)
			return nr;
		if (step == PRF_UNWIND_STOP || nr == ut->depth) {
			*flags |= PRF_UCHAIN_TRUNCATED;
			return nr;
		}
		ra = prf_user_ret(ra);
		if (step == PRF_UNWIND_SIGNAL) {
			/* no call: the PC itself, and the trampoline's start */
			if (nr > 1)
				ut->scratch[nr - 1].offset++;
			at = ra;
			ra++;
		} else {
			at = ra - 1;
		}
		err = prf_uobj_frame(ut, mm, n, ra, at, &ut->scratch[nr], vc);
		if (err == -ENOSPC)
			return err;
		if (err) {	/* no call there: the tables are astray */
			*flags |= PRF_UCHAIN_TRUNCATED;
			return nr;
		}
		nr++;
	}
}

/*
 * The chain of note @n, its PC resolved in ut->scratch[0]: by its stack
 * copy @w and the tables, or by the return addresses @ret of its frame
 * records.
 */
static int prf_uobj_chain(struct prf_uobjtab *ut, struct mm_struct *mm,
			  const struct prf_uobj_note *n, const u64 *ret,
			  const struct prf_uobj_win *w,
			  struct prf_uobj_vcache *vc, u32 *flags)
{
	if (w)
		return prf_uobj_unwind(ut, mm, n, w, vc, flags);
	return prf_uobj_resolve_rets(ut, mm, n, ret, vc, flags);
}

/*
 * A pair's note (uapi: counted in a pair or in the pairs' .dropped), its
 * address space's mmap lock held read.  Its PC is where the task entered
 * the kernel: not a user-mode sample, so in no entry and no chain.
 */
static void prf_upair_resolve(struct prf_uobjtab *ut, struct mm_struct *mm,
			      const struct prf_uobj_note *n, const u64 *ret,
			      const struct prf_uobj_win *w,
			      struct prf_uobj_vcache *vc)
{
	u32 flags = n->flags;
	int nr;

	if (prf_uobj_frame(ut, mm, n, n->pc, n->pc, ut->scratch, vc)) {
		ut->pairs_dropped++;
		return;
	}
	nr = prf_uobj_chain(ut, mm, n, ret, w, vc, &flags);
	if (nr < 0) {
		ut->pairs_dropped++;
		return;
	}
	prf_upair_count(ut, n->stack, nr, flags);
}

/*
 * One note, its address space's mmap lock held read: its PC counted in an
 * entry (uapi: or in .unmapped or .dropped), and then, with chains, its
 * chain of the PC and the return addresses @ret.
 */
static void prf_uobj_resolve(struct prf_uobjtab *ut, struct mm_struct *mm,
			     const struct prf_uobj_note *n, const u64 *ret,
			     const struct prf_uobj_win *w,
			     struct prf_uobj_vcache *vc)
{
	struct prf_uframe *f = ut->depth ? ut->scratch : &(struct prf_uframe){};
	u32 flags = n->flags;
	int err, nr;

	if (n->stack >= 0) {
		prf_upair_resolve(ut, mm, n, ret, w, vc);
		return;
	}
	err = prf_uobj_frame(ut, mm, n, n->pc, n->pc, f, vc);
	if (err == -ENOENT) {
		ut->unmapped++;
		return;
	}
	if (err) {
		ut->dropped++;
		return;
	}
	if (!prf_uobj_count(ut, f->file, f->offset, f->pid) || !ut->depth)
		return;
	nr = prf_uobj_chain(ut, mm, n, ret, w, vc, &flags);
	if (nr < 0) {
		ut->chains_dropped++;
		return;
	}
	prf_uchain_count(ut, nr, flags);
}

/* Applies what zeroing asked (above); ut->lock held. */
static void prf_uobj_apply_zero(struct prf_uobjtab *ut)
{
	int zero = atomic_xchg(&ut->zero, 0);
	struct prf_uobj_ring *r;
	unsigned int cpu;
	u32 to, i;

	if (!zero)
		return;
	for_each_possible_cpu(cpu) {
		r = per_cpu_ptr(ut->rings, cpu);
		to = READ_ONCE(r->discard_to);
		for (; (s32)(to - r->tail) > 0; r->tail++) {
			prf_uobj_win_done(ut, cpu,
					  &r->note[r->tail % PRF_UOBJ_RING]);
			mmput_async(r->note[r->tail % PRF_UOBJ_RING].mm);
		}
		/* the slots are free for the producer from here */
		smp_store_release(&r->tail, r->tail);
	}
	if (zero == PRF_UOBJ_ZERO_ALL) {
		for (i = 0; i < ut->files_used; i++)
			path_put(&ut->files[i].path);
		memset(ut->ent, 0, ut->nslots * sizeof(*ut->ent));
		memset(ut->findex, 0, ut->fslots * sizeof(*ut->findex));
		ut->used = 0;
		ut->files_used = 0;
		if (ut->depth) {
			memset(ut->cindex, 0, ut->nslots * sizeof(*ut->cindex));
			ut->chains_used = 0;
			memset(ut->pindex, 0, ut->nslots * sizeof(*ut->pindex));
			ut->pairs_used = 0;
		}
		ut->gen++;
	} else {
		for (i = 0; i < ut->nslots; i++)
			ut->ent[i].count = 0;
		for (i = 0; i < ut->chains_used; i++)
			prf_uchain_ent(ut, i)->h.count = 0;
		for (i = 0; i < ut->pairs_used; i++)
			prf_upair_ent(ut, i)->count = 0;
	}
	ut->dropped = 0;
	ut->unmapped = 0;
	ut->chains_dropped = 0;
	ut->pairs_dropped = 0;
}

/*
 * Takes every note pending on every CPU, resolves and counts it; ut->lock
 * held.  Consecutive notes of one address space share one mmap read lock,
 * given up now and then.  A fatal signal (of PRF_GETUOBJS' caller; the
 * worker has none) stops it, leaving the rest to the next pass.
 */
static void prf_uobj_drain(struct prf_uobjtab *ut)
{
	struct prf_uobj_vcache vc = {};
	struct mm_struct *locked = NULL;
	struct prf_uobj_ring *r;
	struct prf_uobj_note *n;
	bool stop = false;
	unsigned int cpu;
	u32 tail, head;

	lockdep_assert_held(&ut->lock);
	prf_uobj_apply_zero(ut);
	for_each_possible_cpu(cpu) {
		r = per_cpu_ptr(ut->rings, cpu);
		/* pairs with the producer's release: notes up to head whole */
		head = smp_load_acquire(&r->head);
		for (tail = r->tail; tail != head; tail++) {
			n = &r->note[tail % PRF_UOBJ_RING];
			if (locked && (locked != n->mm || !(tail % 64))) {
				mmap_read_unlock(locked);
				mmput(locked);
				locked = NULL;
				cond_resched();
			}
			if (!locked) {
				if (mmap_read_lock_killable(n->mm)) {
					stop = true;
					break;
				}
				locked = n->mm;		/* with its reference */
				prf_uobj_vcache_reset(&vc);	/* a lock of its own */
			} else {
				mmput(n->mm);	/* not the last: locked's */
			}
			prf_uobj_resolve(ut, locked, n, ut->depth ?
					 prf_uobj_rets(ut, cpu, tail % PRF_UOBJ_RING) :
					 NULL, prf_uobj_win_of(ut, cpu, n), &vc);
			prf_uobj_win_done(ut, cpu, n);
		}
		/* the slots taken are free for the producer from here */
		smp_store_release(&r->tail, tail);
		if (stop)
			break;
	}
	if (locked) {
		mmap_read_unlock(locked);
		mmput(locked);
	}
	prf_uobj_vcache_reset(&vc);
}

static void prf_uobj_work(struct work_struct *work)
{
	struct prf_uobjtab *ut = container_of(to_delayed_work(work),
					      struct prf_uobjtab, work);

	mutex_lock(&ut->lock);
	prf_uobj_drain(ut);
	if (READ_ONCE(ut->running))
		queue_delayed_work(prf_unbound_wq, &ut->work,
				   READ_ONCE(ut->period));
	mutex_unlock(&ut->lock);
}

/*
 * ON, at @hz samples a second per CPU (0: the PMU source's event rate): the
 * work runs from now on.  Under inst->lock.
 */
void prf_uobj_start(struct prf_uobjtab *ut, u32 hz)
{
	u32 lo, ms;

	if (!ut)
		return;
	lo = ut->wrings ? PRF_UOBJ_DRAIN_CFI_MS : PRF_UOBJ_DRAIN_MIN_MS;
	ms = lo;
	if (hz)
		ms = clamp_t(u32, (ut->wrings ? PRF_UOBJ_WINDOWS : PRF_UOBJ_RING) /
			     4 * 1000 / hz, lo, PRF_UOBJ_DRAIN_MS);
	WRITE_ONCE(ut->period, max(msecs_to_jiffies(ms), 1UL));
	WRITE_ONCE(ut->running, true);
	mod_delayed_work(prf_unbound_wq, &ut->work, ut->period);
}

/*
 * OFF, after the callbacks stopped: one more pass takes what they left, and
 * the work does not rearm.  Under inst->lock; does not wait for the work.
 */
void prf_uobj_stop(struct prf_uobjtab *ut)
{
	if (!ut)
		return;
	WRITE_ONCE(ut->running, false);
	mod_delayed_work(prf_unbound_wq, &ut->work, 0);
}

/*
 * Zeroing asked of the consumer (above): the notes pending go; with @on
 * only the counts, else the entries and files too.
 */
static void prf_uobj_ask_zero(struct prf_uobjtab *ut, bool on)
{
	unsigned int cpu;
	int old;

	for_each_possible_cpu(cpu) {
		struct prf_uobj_ring *r = per_cpu_ptr(ut->rings, cpu);

		/* pairs with the producer's release: whole notes only */
		WRITE_ONCE(r->discard_to, smp_load_acquire(&r->head));
	}
	atomic64_set(&ut->lost, 0);
	atomic64_set(&ut->pairs_lost, 0);
	/* ZERO_ALL wins over a ZERO_COUNTS not applied yet */
	old = atomic_read(&ut->zero);
	do {
		if (old == PRF_UOBJ_ZERO_ALL)
			break;
	} while (!atomic_try_cmpxchg(&ut->zero, &old,
				     on ? PRF_UOBJ_ZERO_COUNTS :
					  PRF_UOBJ_ZERO_ALL));
}

static void prf_uobj_free(struct prf_uobjtab *ut)
{
	mutex_destroy(&ut->lock);
	free_percpu(ut->rings);
	kvfree(ut->ent);
	kvfree(ut->findex);
	kvfree(ut->files);
	kvfree(ut->rets);
	kvfree(ut->chains);
	kvfree(ut->cindex);
	kvfree(ut->pairs);
	kvfree(ut->pindex);
	kvfree(ut->wrings);
	kfree(ut->scratch);
	kfree(ut);
}

static void prf_uobj_release(struct kref *ref)
{
	struct prf_uobjtab *ut = container_of(ref, struct prf_uobjtab, ref);

	WRITE_ONCE(ut->running, false);
	cancel_delayed_work_sync(&ut->work);
	prf_uobj_ask_zero(ut, false);
	prf_uobj_apply_zero(ut);	/* no one else holds it: unlocked */
	prf_uobj_free(ut);
}

void prf_uobjs_put(struct prf_uobjtab *ut)
{
	if (ut)
		kref_put(&ut->ref, prf_uobj_release);
}

/*
 * Sizes come from user space: a failure is ENOMEM, without a warning and
 * without the OOM killer.  The chains and the pairs: at most PRF_UOBJS_MAX
 * entries of PRF_UCHAIN_RECORD_SIZE(PRF_UCHAIN_DEPTH_MAX) bytes (a pair's
 * 8 more), under INT_MAX.
 */
static int prf_uchain_alloc(struct prf_uobjtab *ut, u32 depth, gfp_t gfp)
{
	ut->depth = depth;
	ut->cstride = PRF_UCHAIN_RECORD_SIZE(depth);
	ut->rets = kvmalloc_array((size_t)nr_cpu_ids * PRF_UOBJ_RING,
				  (depth - 1) * sizeof(u64), gfp);
	ut->chains = kvzalloc((size_t)ut->capacity * ut->cstride, gfp);
	/* as many chains as entries: the entries' number of slots */
	ut->cindex = kvcalloc(ut->nslots, sizeof(*ut->cindex), gfp);
	ut->scratch = kcalloc(depth, sizeof(*ut->scratch), GFP_KERNEL_ACCOUNT);
	/* the pairs: as many as chains, each a chain's frames */
	ut->pstride = struct_size(ut->pairs, frame, depth);
	ut->pairs = kvzalloc((size_t)ut->capacity * ut->pstride, gfp);
	ut->pindex = kvcalloc(ut->nslots, sizeof(*ut->pindex), gfp);
	return ut->rets && ut->chains && ut->cindex && ut->scratch &&
	       ut->pairs && ut->pindex ? 0 : -ENOMEM;
}

static struct prf_uobjtab *prf_uobj_alloc(u32 capacity, u32 files, u32 depth,
					  bool cfi)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	struct prf_uobjtab *ut;

	ut = kzalloc(sizeof(*ut), GFP_KERNEL_ACCOUNT);
	if (!ut)
		return NULL;
	kref_init(&ut->ref);
	mutex_init(&ut->lock);
	INIT_DELAYED_WORK(&ut->work, prf_uobj_work);
	ut->capacity = capacity;
	ut->files_max = files;
	ut->nslots = roundup_pow_of_two(2 * capacity);
	ut->fslots = roundup_pow_of_two(2 * files);
	ut->rings = alloc_percpu_gfp(struct prf_uobj_ring,
				     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	ut->ent = kvcalloc(ut->nslots, sizeof(*ut->ent), gfp);
	ut->findex = kvcalloc(ut->fslots, sizeof(*ut->findex), gfp);
	ut->files = kvcalloc(files, sizeof(*ut->files), gfp);
	/* the stack copies: PRF_UOBJ_WINDOWS of a CPU (uapi) */
	if (cfi)
		ut->wrings = kvcalloc(nr_cpu_ids, sizeof(*ut->wrings), gfp);
	if (!ut->rings || !ut->ent || !ut->findex || !ut->files ||
	    (cfi && !ut->wrings) ||
	    (depth && prf_uchain_alloc(ut, depth, gfp))) {
		prf_uobj_free(ut);
		return NULL;
	}
	return ut;
}

/*
 * For a new table, a clear, a filter, a CPU, a mode or a source (prf.h),
 * under inst->lock: the notes pending go; while OFF the entries and files
 * too, at once or by the work queued (above), while ON (PRF_CLEAR) only
 * the counts, by the work's next pass (or PRF_GETUOBJS).
 */
void prf_uobjs_zero(struct prf_uobjtab *ut, bool on)
{
	if (!ut)
		return;
	prf_uobj_ask_zero(ut, on);
	if (on)
		return;
	if (mutex_trylock(&ut->lock)) {
		prf_uobj_apply_zero(ut);
		mutex_unlock(&ut->lock);
	} else {
		/* the consumer in it: a pass of the work after it */
		mod_delayed_work(prf_unbound_wq, &ut->work, 0);
	}
}

int prf_set_uobjs(struct prf_inst *inst, const struct prf_uobj_conf *conf)
{
	struct prf_uobjtab *ut = NULL, *old;
	int ret = 0;

	bool chains = conf->flags & PRF_UOBJ_CHAINS;
	bool cfi = conf->flags & PRF_UOBJ_CFI;

	if ((conf->flags & ~(PRF_UOBJ_CHAINS | PRF_UOBJ_CFI | PRF_UOBJ_VDSO)) ||
	    (cfi && !chains) || conf->capacity > PRF_UOBJS_MAX ||
	    conf->files > PRF_UOBJ_FILES_MAX ||
	    !conf->capacity != !conf->files || (conf->flags && !conf->capacity) ||
	    (chains ? conf->depth < 2 || conf->depth > PRF_UCHAIN_DEPTH_MAX :
		      conf->depth))
		return -EINVAL;
	if (conf->capacity) {
		ut = prf_uobj_alloc(conf->capacity, conf->files, conf->depth,
				    cfi);
		if (!ut)
			return -ENOMEM;
		ut->vdso = conf->flags & PRF_UOBJ_VDSO;
	}
	mutex_lock(&inst->lock);
	if (inst->on) {
		ret = -EBUSY;
		old = ut;	/* not installed */
	} else {
		old = inst->uobjs;
		inst->uobjs = ut;
	}
	mutex_unlock(&inst->lock);
	prf_uobjs_put(old);
	return ret;
}

#define PRF_UOBJ_CHUNK	16

/*
 * What a reader copies out (prf_uobj_records()): from *@next on, at most
 * @room records into @out (@arg: the gatherer's); ut->lock held.  Returns
 * the records stored.
 */
typedef u32 (*prf_uobj_gather_fn)(struct prf_uobjtab *ut, u32 *next,
				  void *out, u32 room, const void *arg);

/* Entries from slot *@next on, at most @room, into @buf; ut->lock held. */
static u32 prf_uobj_gather(struct prf_uobjtab *ut, u32 *next, void *buf,
			   u32 room, const void *arg)
{
	struct prf_uobj *out = buf;
	struct prf_uobj_ent *e;
	u32 n = 0;

	for (; *next < ut->nslots && n < room; (*next)++) {
		e = &ut->ent[*next];
		if (!e->used || !e->count)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].count = e->count;
		out[n].offset = e->offset;
		out[n].file = e->file;
		out[n].pid = e->pid;
		n++;
	}
	return n;
}

/*
 * A file's record: @path named by d_path() from the reader's root at the
 * time of reading (a file deleted since ends in " (deleted)"), its device
 * and inode number as stat(2) gives them for that path (uapi), which is
 * not always the superblock's device and the inode's number: on btrfs
 * st_dev is the subvolume's device, on overlayfs the overlay's.  The
 * file system's getattr may sleep and wait on I/O: the caller holds a
 * reference of its own on @path, and no lock (prf_uobj_copy_files()).
 * AT_STATX_DONT_SYNC: a network file system answers from what it has.
 * Should it fail, the superblock's device and the inode's number stand
 * in, which a reader's stat() of the path may not match (not named: uapi).
 */
static void prf_uobj_describe(const struct path *path,
			      struct prf_uobj_file *f, char *buf)
{
	struct name_snapshot name;
	struct kstat st;
	const char *p;

	if (vfs_getattr_nosec(path, &st, STATX_INO, AT_STATX_DONT_SYNC)) {
		st.dev = d_inode(path->dentry)->i_sb->s_dev;
		st.ino = d_inode(path->dentry)->i_ino;
	}
	f->major = MAJOR(st.dev);
	f->minor = MINOR(st.dev);
	f->ino = st.ino;
	if (d_unlinked(path->dentry))
		f->flags |= PRF_UOBJ_DELETED;
	p = d_path(path, buf, PATH_MAX);
	if (IS_ERR(p) || strlen(p) >= sizeof(f->path)) {
		f->flags |= PRF_UOBJ_LONGPATH;
		take_dentry_name_snapshot(&name, path->dentry);
		strscpy(f->path, name.name.name, sizeof(f->path));
		release_dentry_name_snapshot(&name);
	} else {
		strscpy(f->path, p, sizeof(f->path));
	}
}

/*
 * The first @nr files into @dst, each described (above) with a reference
 * on its path taken under ut->lock, in generation @gen, and used after
 * unlocking: the record is that file's even if the table is zeroed
 * meanwhile (the entries read before are of @gen too).  The reader's
 * path_put() may be the file's last: process context, no lock held.
 */
static int prf_uobj_copy_files(struct prf_uobjtab *ut,
			       struct prf_uobj_file __user *dst, u32 nr,
			       u32 gen)
{
	struct prf_uobj_file *f;
	struct path path;
	char *buf;
	int ret = 0;
	u32 i;

	f = kmalloc(sizeof(*f), GFP_KERNEL);
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!f || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr && !ret; i++) {
		memset(f, 0, sizeof(*f));
		mutex_lock(&ut->lock);
		if (ut->gen != gen) {
			mutex_unlock(&ut->lock);
			ret = -EAGAIN;
			break;
		}
		path = ut->files[i].path;
		path_get(&path);
		mutex_unlock(&ut->lock);
		if (path.dentry) {
			prf_uobj_describe(&path, f, buf);
			path_put(&path);
		} else {	/* the vDSO (uapi) */
			f->flags = PRF_UOBJ_VDSO_IMAGE;
			strscpy(f->path, "[vdso]", sizeof(f->path));
		}
		if (copy_to_user(dst + i, f, sizeof(*f)))
			ret = -EFAULT;
		else if (fatal_signal_pending(current))
			ret = -EINTR;
	}
out:
	kfree(buf);
	kfree(f);
	return ret;
}

/*
 * At most @want records of @size bytes, gathered by @gather, to @dst, a
 * chunk at a time through @chunk (PRF_UOBJ_CHUNK records): the lock is
 * not held while copying to the caller.  *@nr is set to the records
 * copied.  -EAGAIN when the table was zeroed since generation @gen.
 */
static int prf_uobj_records(struct prf_uobjtab *ut, u32 gen,
			    prf_uobj_gather_fn gather, const void *arg,
			    void *chunk, size_t size, void __user *dst,
			    u32 want, u32 *nr)
{
	u32 next = 0, got;
	int ret;

	for (*nr = 0; *nr < want; *nr += got) {
		mutex_lock(&ut->lock);
		got = ut->gen != gen ? 0 :
		      gather(ut, &next, chunk,
			     min_t(u32, want - *nr, PRF_UOBJ_CHUNK), arg);
		ret = ut->gen != gen ? -EAGAIN : 0;
		mutex_unlock(&ut->lock);
		if (ret)
			return ret;
		if (!got)
			break;
		if (copy_to_user(dst + (size_t)*nr * size, chunk, got * size))
			return -EFAULT;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * One reading of the table into the caller's buffers: -EAGAIN when it was
 * zeroed meanwhile (a load or a filter from another file, applied by the
 * worker), which the caller's caller retries.
 */
static int prf_uobj_read(struct prf_uobjtab *ut, struct prf_uobjs *req,
			 void *chunk)
{
	u32 nr, nfiles, gen;
	int ret;

	mutex_lock(&ut->lock);
	prf_uobj_drain(ut);
	gen = ut->gen;
	req->used = ut->used;
	req->files_used = ut->files_used;
	req->capacity = ut->capacity;
	req->files_max = ut->files_max;
	req->lost = atomic64_read(&ut->lost);
	req->dropped = ut->dropped;
	req->unmapped = ut->unmapped;
	nfiles = min(req->nfiles, ut->files_used);
	mutex_unlock(&ut->lock);

	ret = prf_uobj_records(ut, gen, prf_uobj_gather, NULL, chunk,
			       sizeof(struct prf_uobj),
			       u64_to_user_ptr(req->entries), req->nr, &nr);
	if (ret)
		return ret;
	ret = prf_uobj_copy_files(ut, u64_to_user_ptr(req->files), nfiles,
				  gen);
	req->nr = nr;
	req->nfiles = nfiles;
	return ret;
}

/*
 * The instance's table, with a reference (prf_uobjs_put() it), or NULL:
 * none, or with @chains none that keeps chains.  inst->lock taken.
 */
static struct prf_uobjtab *prf_uobj_get(struct prf_inst *inst, bool chains)
{
	struct prf_uobjtab *ut;

	mutex_lock(&inst->lock);
	ut = inst->uobjs;
	if (ut && (!chains || ut->depth))
		kref_get(&ut->ref);
	else
		ut = NULL;
	mutex_unlock(&inst->lock);
	return ut;
}

int prf_get_uobjs(struct prf_inst *inst, struct prf_uobjs __user *uu)
{
	struct prf_uobj chunk[PRF_UOBJ_CHUNK];
	struct prf_uobjtab *ut;
	struct prf_uobjs req, in;
	int ret, try;

	if (copy_from_user(&in, uu, sizeof(in)))
		return -EFAULT;
	if (in.flags || in.pad)
		return -EINVAL;

	ut = prf_uobj_get(inst, false);
	if (!ut) {
		memset(&req, 0, sizeof(req));
		return copy_to_user(uu, &req, sizeof(req)) ? -EFAULT : 0;
	}
	for (try = 0; try < 3; try++) {
		req = in;
		ret = prf_uobj_read(ut, &req, chunk);
		if (ret != -EAGAIN)
			break;
	}
	prf_uobjs_put(ut);
	if (ret)
		return ret;
	return copy_to_user(uu, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * Chains from *@next on, at most @room, into @out (records of ut->cstride
 * bytes); ut->lock held.
 */
static u32 prf_uchain_gather(struct prf_uobjtab *ut, u32 *next, void *out,
			     u32 room, const void *arg)
{
	struct prf_uchain_ent *c;
	u32 n = 0;

	for (; *next < ut->chains_used && n < room; (*next)++) {
		c = prf_uchain_ent(ut, *next);
		if (!c->h.count)
			continue;
		memcpy(out + (size_t)n * ut->cstride, c, ut->cstride);
		n++;
	}
	return n;
}

/* As prf_uobj_read(), for the chains. */
static int prf_uchain_read(struct prf_uobjtab *ut, struct prf_uchains *req,
			   void *chunk)
{
	u32 nr, nfiles, gen;
	int ret;

	mutex_lock(&ut->lock);
	prf_uobj_drain(ut);
	gen = ut->gen;
	req->used = ut->chains_used;
	req->files_used = ut->files_used;
	req->depth = ut->depth;
	req->capacity = ut->capacity;
	req->dropped = ut->chains_dropped;
	nfiles = min(req->nfiles, ut->files_used);
	mutex_unlock(&ut->lock);

	ret = prf_uobj_records(ut, gen, prf_uchain_gather, NULL, chunk,
			       ut->cstride,
			       u64_to_user_ptr(req->chains), req->nr, &nr);
	if (ret)
		return ret;
	ret = prf_uobj_copy_files(ut, u64_to_user_ptr(req->files), nfiles,
				  gen);
	req->nr = nr;
	req->nfiles = nfiles;
	return ret;
}

int prf_get_uchains(struct prf_inst *inst, struct prf_uchains __user *uu)
{
	struct prf_uchains req, in;
	struct prf_uobjtab *ut;
	void *chunk;
	int ret, try;

	if (copy_from_user(&in, uu, sizeof(in)))
		return -EFAULT;
	if (in.flags || in.pad)
		return -EINVAL;

	ut = prf_uobj_get(inst, true);
	if (!ut) {
		memset(&req, 0, sizeof(req));
		return copy_to_user(uu, &req, sizeof(req)) ? -EFAULT : 0;
	}
	chunk = kmalloc_array(PRF_UOBJ_CHUNK, ut->cstride, GFP_KERNEL);
	ret = chunk ? 0 : -ENOMEM;
	for (try = 0; chunk && try < 3; try++) {
		req = in;
		ret = prf_uchain_read(ut, &req, chunk);
		if (ret != -EAGAIN)
			break;
	}
	kfree(chunk);
	prf_uobjs_put(ut);
	if (ret)
		return ret;
	return copy_to_user(uu, &req, sizeof(req)) ? -EFAULT : 0;
}

/*
 * Pairs from *@next on, at most @room, into @out (PRF_UPAIR_RECORD_SIZE()
 * records), each with its kernel stack from @arg, the stack table, whose
 * entries do not change while this table names them (prf_stack_read());
 * ut->lock held.
 */
static u32 prf_upair_gather(struct prf_uobjtab *ut, u32 *next, void *out,
			    u32 room, const void *arg)
{
	struct prf_stacktab *st = (struct prf_stacktab *)arg;
	size_t kbytes = st->depth * sizeof(u64);
	size_t size = PRF_UPAIR_RECORD_SIZE(st->depth, ut->depth);
	struct prf_upair_ent *p;
	struct prf_upair *rec;
	u32 n = 0;

	for (; *next < ut->pairs_used && n < room; (*next)++) {
		p = prf_upair_ent(ut, *next);
		if (!p->count)
			continue;
		rec = out + (size_t)n * size;
		if (!prf_stack_read(st, p->stack, (u64 *)(rec + 1),
				    &rec->nr_pcs, &rec->kflags))
			continue;
		rec->count = p->count;
		rec->nr_frames = p->nr_frames;
		rec->uflags = p->flags;
		memcpy((void *)(rec + 1) + kbytes, p->frame,
		       ut->depth * sizeof(*p->frame));
		n++;
	}
	return n;
}

/* As prf_uchain_read(), for the pairs. */
static int prf_upair_read(struct prf_uobjtab *ut, struct prf_stacktab *st,
			  struct prf_upairs *req, void *chunk)
{
	u32 nr, nfiles, gen;
	int ret;

	mutex_lock(&ut->lock);
	prf_uobj_drain(ut);
	gen = ut->gen;
	req->used = ut->pairs_used;
	req->files_used = ut->files_used;
	req->depth = st->depth;
	req->udepth = ut->depth;
	req->capacity = ut->capacity;
	req->dropped = ut->pairs_dropped + atomic64_read(&ut->pairs_lost);
	nfiles = min(req->nfiles, ut->files_used);
	mutex_unlock(&ut->lock);

	ret = prf_uobj_records(ut, gen, prf_upair_gather, st, chunk,
			       PRF_UPAIR_RECORD_SIZE(req->depth, req->udepth),
			       u64_to_user_ptr(req->pairs), req->nr, &nr);
	if (ret)
		return ret;
	ret = prf_uobj_copy_files(ut, u64_to_user_ptr(req->files), nfiles,
				  gen);
	req->nr = nr;
	req->nfiles = nfiles;
	return ret;
}

/*
 * Both tables are pinned under inst->lock and read after unlocking: the
 * stack table, should PRF_SETSTACKS replace it meanwhile, is the one this
 * table's pairs name until that zeroes it (the worker's next pass, before
 * which a reader finds the generation changed: EAGAIN).
 */
int prf_get_upairs(struct prf_inst *inst, struct prf_upairs __user *uu)
{
	struct prf_upairs req, in;
	struct prf_stacktab *st;
	struct prf_uobjtab *ut;
	void *chunk;
	int ret, try;

	if (copy_from_user(&in, uu, sizeof(in)))
		return -EFAULT;
	if (in.flags || in.pad || in.pad2)
		return -EINVAL;

	mutex_lock(&inst->lock);
	ut = inst->uobjs;
	st = inst->stacks;
	if (ut && ut->depth && st) {
		kref_get(&ut->ref);
		kref_get(&st->ref);
	} else {
		ut = NULL;
	}
	mutex_unlock(&inst->lock);
	if (!ut) {
		memset(&req, 0, sizeof(req));
		return copy_to_user(uu, &req, sizeof(req)) ? -EFAULT : 0;
	}
	chunk = kmalloc_array(PRF_UOBJ_CHUNK,
			      PRF_UPAIR_RECORD_SIZE(st->depth,
						    ut->depth), GFP_KERNEL);
	ret = chunk ? 0 : -ENOMEM;
	for (try = 0; chunk && try < 3; try++) {
		req = in;
		ret = prf_upair_read(ut, st, &req, chunk);
		if (ret != -EAGAIN)
			break;
	}
	kfree(chunk);
	prf_uobjs_put(ut);
	prf_stacks_put(st);
	if (ret)
		return ret;
	return copy_to_user(uu, &req, sizeof(req)) ? -EFAULT : 0;
}
