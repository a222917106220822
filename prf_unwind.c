// SPDX-License-Identifier: GPL-2.0
/*
 * prf - unwind tables (PRF_SETUNWIND, uapi/linux/prf.h): per file, rows
 * that say where the caller's frame is, built by the tools from the file's
 * call frame information, for the user call chains of PRF_UOBJ_CHAINS to
 * be walked through code without frame pointers (issue 38, item 1).
 *
 * Contexts, locking and lifetimes, decided here:
 *
 * - The store is one hash table of files (struct prf_unwind_file), keyed
 *   by the inode of the path the file was opened by (prf_file_user_path(),
 *   as the user objects table keys files: a mapping of the file finds the
 *   same inode), each holding a reference on that path, so no other file
 *   has the inode while the entry lives.  The vDSO's table (uapi:
 *   PRF_UNWIND_VDSO), which no file holds, is the entry keyed NULL, with
 *   no path; the user objects find it so (prf_unwind_get(NULL)) for a PC
 *   in a 64-bit task's vDSO.  prf_unwind_lock (a mutex) guards
 *   the store, its counts, every file's ->users and ->rows, and every
 *   instance's list of the files it holds (inst->unwind: struct
 *   prf_unwind_use).  It is the innermost lock: nothing is taken under it,
 *   not even memory (a load allocates before locking, and frees what it
 *   did not use after), and nothing waits on a file system under it:
 *   path_put() runs after unlocking.
 *
 * - The rows of a file (struct prf_unwind_rows) are reference counted: the
 *   file's entry holds one, and each reader (the user objects worker, in
 *   process context under its ut->lock and an address space's mmap lock:
 *   lock order ut->lock, mmap lock, prf_unwind_lock) takes one under the
 *   lock and reads without it.  A load replaces a file's rows whole; a
 *   reader keeps the old ones until it puts them, and the last put frees
 *   them (process context: kvfree()).  Rows never change once installed.
 *
 * - A file's entry lives while an instance holds it (->users): an
 *   instance holds what it loaded until it unloads it (one file, or all),
 *   or is destroyed (prf_unwind_release(), from prf_inst_destroy(): a
 *   private instance when its file is closed, the shared ones when the
 *   module goes, so the store is empty when prf_exit() returns).
 *
 * - A load reads and checks every row, user-sized input, before taking
 *   the lock, a chunk at a time (cond_resched(), a fatal signal stops it:
 *   EINTR); all of it is charged to the caller, and fails quietly
 *   (__GFP_NOWARN: ENOMEM).  Nothing changes until it cannot fail.
 */
#include <linux/elf-em.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/path.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>

#include "prf.h"
#include "prf_compat.h"

/*
 * Where a signal return trampoline's SP points (uapi, PRF_UNWIND_ROW_SIGNAL)
 * and the interrupted frame's saved registers from there: on x86-64 the
 * frame's ucontext (the handler's return into the trampoline popped the
 * return address below it); on arm64 the frame itself, its siginfo then
 * its ucontext.
 */
#if defined(CONFIG_X86_64)
#define PRF_UNWIND_MACHINE	EM_X86_64
#define PRF_SIG_REGS		offsetof(struct ucontext, uc_mcontext)
#define PRF_SIG_PC		(PRF_SIG_REGS + offsetof(struct sigcontext_64, ip))
#define PRF_SIG_SP		(PRF_SIG_REGS + offsetof(struct sigcontext_64, sp))
#define PRF_SIG_FP		(PRF_SIG_REGS + offsetof(struct sigcontext_64, bp))
#elif defined(CONFIG_ARM64)
#define PRF_UNWIND_MACHINE	EM_AARCH64
#define PRF_SIG_REGS		(ALIGN(sizeof(siginfo_t), __alignof__(struct ucontext)) + \
				 offsetof(struct ucontext, uc_mcontext))
#define PRF_SIG_PC		(PRF_SIG_REGS + offsetof(struct sigcontext, pc))
#define PRF_SIG_SP		(PRF_SIG_REGS + offsetof(struct sigcontext, sp))
#define PRF_SIG_FP		(PRF_SIG_REGS + offsetof(struct sigcontext, regs[29]))
#define PRF_SIG_LR		(PRF_SIG_REGS + offsetof(struct sigcontext, regs[30]))
#else
#define PRF_UNWIND_MACHINE	EM_NONE		/* every load refused */
#endif

#define PRF_UNWIND_CHUNK	4096	/* rows read and checked at a time */
#define PRF_UNWIND_IDX_ROWS	4	/* rows a lookup bucket at least */
#define PRF_UNWIND_HASH_BITS	8

/* A file (above): its inode is the key. */
struct prf_unwind_file {
	struct hlist_node node;		/* in prf_unwind_hash */
	const struct inode *inode;	/* path.dentry's */
	struct path path;		/* a reference */
	u32 users;			/* instances that hold it */
	struct prf_unwind_rows *rows;	/* a reference; replaced whole */
	struct list_head dead;		/* freed after unlocking */
};

/* An instance's hold on a file's table, on inst->unwind. */
struct prf_unwind_use {
	struct list_head node;
	struct prf_unwind_file *uf;
};

static DEFINE_MUTEX(prf_unwind_lock);
static DEFINE_HASHTABLE(prf_unwind_hash, PRF_UNWIND_HASH_BITS);
static u32 prf_unwind_files;	/* entries in the store */
static u64 prf_unwind_bytes;	/* their rows' bytes (uapi) */

static size_t prf_unwind_row_bytes(u32 nr)
{
	return (size_t)nr * sizeof(struct prf_unwind_row);
}

static void prf_unwind_rows_free(struct kref *ref)
{
	struct prf_unwind_rows *r = container_of(ref, struct prf_unwind_rows,
						 ref);

	kvfree(r->idx);
	kvfree(r->row);
	kfree(r);
}

void prf_unwind_put(struct prf_unwind_rows *r)
{
	if (r)
		kref_put(&r->ref, prf_unwind_rows_free);
}

/* The inode a file is keyed by (above); NULL: the vDSO's. */
static const struct inode *prf_unwind_inode(struct file *file)
{
	return file ? d_inode(prf_file_user_path(file)->dentry) : NULL;
}

/* The store's entry of @inode, or NULL; prf_unwind_lock held. */
static struct prf_unwind_file *prf_unwind_lookup(const struct inode *inode)
{
	struct prf_unwind_file *uf;

	lockdep_assert_held(&prf_unwind_lock);
	hash_for_each_possible(prf_unwind_hash, uf, node, (unsigned long)inode)
		if (uf->inode == inode)
			return uf;
	return NULL;
}

/* @inst's hold on @uf, or NULL; prf_unwind_lock held. */
static struct prf_unwind_use *prf_unwind_use_of(struct prf_inst *inst,
						const struct prf_unwind_file *uf)
{
	struct prf_unwind_use *use;

	list_for_each_entry(use, &inst->unwind, node)
		if (use->uf == uf)
			return use;
	return NULL;
}

/*
 * The rows of the file of @inode (NULL: the vDSO's), with a reference
 * (prf_unwind_put() them), or NULL: no table.  Process context (the user
 * objects worker).
 */
struct prf_unwind_rows *prf_unwind_get(const struct inode *inode)
{
	struct prf_unwind_file *uf;
	struct prf_unwind_rows *r = NULL;

	mutex_lock(&prf_unwind_lock);
	uf = prf_unwind_lookup(inode);
	if (uf) {
		r = uf->rows;
		kref_get(&r->ref);
	}
	mutex_unlock(&prf_unwind_lock);
	return r;
}

/*
 * The row covering file offset @off, or NULL (rows sorted, not
 * overlapping: a binary search).  The index narrows it to the rows that
 * can cover @off's bucket: from the first that ends past the bucket's
 * start to the first that ends past the next bucket's start (any later
 * one starts past that), a few rows where the search of a whole table of
 * a C library took 15 steps, each a likely cache miss.
 */
const struct prf_unwind_row *prf_unwind_find(const struct prf_unwind_rows *r,
					     u64 off)
{
	u32 lo = 0, hi = r->nr, mid;
	const struct prf_unwind_row *row;
	u64 b;

	if (r->idx) {
		if (off < r->base)
			return NULL;
		b = (off - r->base) >> r->shift;
		if (b >= r->nidx)
			return NULL;
		lo = r->idx[b];
		if (b + 1 < r->nidx)
			hi = min(r->idx[b + 1] + 1, r->nr);
	}

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		row = &r->row[mid];
		if (off < row->start)
			hi = mid;
		else if (off - row->start >= row->len)
			lo = mid + 1;
		else
			return row;
	}
	return NULL;
}

/* A rule of the uapi's (RA or FP). */
static bool prf_unwind_rule_ok(u32 rule, s16 off)
{
	switch (rule) {
	case PRF_UNWIND_AT:
		return IS_ALIGNED(off, 8);
	case PRF_UNWIND_SAME:
	case PRF_UNWIND_UNDEF:
		return true;
	default:
		return false;
	}
}

/* Row @row after one ending at *@end (0: the first): valid (uapi)? */
static bool prf_unwind_row_ok(const struct prf_unwind_row *row, u64 *end,
			      bool first)
{
	if (!row->len || row->pad || row->flags > PRF_UNWIND_ROW_SIGNAL ||
	    (row->flags == PRF_UNWIND_ROW_SIGNAL &&
	     (row->rules || row->cfa_off || row->ra_off || row->fp_off)) ||
	    (row->rules & ~0x1f) || row->start + row->len < row->start ||
	    (!first && row->start < *end) ||
	    !prf_unwind_rule_ok(PRF_UNWIND_RA(row->rules), row->ra_off) ||
	    !prf_unwind_rule_ok(PRF_UNWIND_FP(row->rules), row->fp_off))
		return false;
	*end = row->start + row->len;
	return true;
}

/*
 * The index of checked rows @r (above): buckets of the least power of two
 * bytes (16 at least) that makes at most one for every PRF_UNWIND_IDX_ROWS
 * rows (so at most .nr bytes, charged to the caller with the rows), each
 * the first row that ends past the bucket's start.  None below 2 buckets.
 * 0, or -ENOMEM, -EINTR.
 */
static int prf_unwind_index(struct prf_unwind_rows *r)
{
	const struct prf_unwind_row *last = &r->row[r->nr - 1];
	u64 span = last->start + last->len - r->row[0].start, at;
	u32 cap = r->nr / PRF_UNWIND_IDX_ROWS, b, j = 0;
	u32 shift = 4;

	if (cap < 2)
		return 0;
	/* ends by 63 at the latest: span >> 63 is at most 1 */
	while ((span >> shift) + 1 > cap)
		shift++;
	r->nidx = (span >> shift) + 1;
	r->idx = kvmalloc_array(r->nidx, sizeof(*r->idx),
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!r->idx)
		return -ENOMEM;
	r->base = r->row[0].start;
	r->shift = shift;
	for (b = 0; b < r->nidx; b++) {
		at = r->base + ((u64)b << shift);
		while (j < r->nr && r->row[j].start + r->row[j].len <= at)
			j++;
		r->idx[b] = j;
		if (!(b % PRF_UNWIND_CHUNK)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

/*
 * @nr rows from @src, read and checked a chunk at a time (above) into new
 * rows with the given @flags, and indexed: 0, or -ENOMEM, -EFAULT, -EINTR,
 * -EINVAL.
 */
static int prf_unwind_read(const struct prf_unwind_row __user *src, u32 nr,
			   u32 flags, struct prf_unwind_rows **out)
{
	struct prf_unwind_rows *r;
	u64 end = 0;
	u32 i, n;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!r)
		return -ENOMEM;
	kref_init(&r->ref);
	r->nr = nr;
	r->flags = flags;
	r->row = kvmalloc_array(nr, sizeof(*r->row),
				GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!r->row) {
		kfree(r);
		return -ENOMEM;
	}
	for (i = 0; i < nr; ) {
		n = min_t(u32, nr - i, PRF_UNWIND_CHUNK);
		if (copy_from_user(&r->row[i], src + i,
				   prf_unwind_row_bytes(n))) {
			prf_unwind_put(r);
			return -EFAULT;
		}
		for (n += i; i < n; i++)
			if (!prf_unwind_row_ok(&r->row[i], &end, !i)) {
				prf_unwind_put(r);
				return -EINVAL;
			}
		if (fatal_signal_pending(current)) {
			prf_unwind_put(r);
			return -EINTR;
		}
		cond_resched();
	}
	err = prf_unwind_index(r);
	if (err) {
		prf_unwind_put(r);
		return err;
	}
	*out = r;
	return 0;
}

/*
 * Entries whose last holder went, taken off the store under the lock:
 * their rows and paths put after unlocking (path_put() may sleep on the
 * file system, a deleted file's last reference freeing its blocks).
 */
static void prf_unwind_free_dead(struct list_head *dead)
{
	struct prf_unwind_file *uf, *tmp;

	list_for_each_entry_safe(uf, tmp, dead, dead) {
		prf_unwind_put(uf->rows);
		path_put(&uf->path);
		kfree(uf);
	}
}

/* @use let go: its entry onto @dead if it was the last; lock held. */
static void prf_unwind_drop(struct prf_unwind_use *use, struct list_head *dead)
{
	struct prf_unwind_file *uf = use->uf;

	list_del(&use->node);
	kfree(use);
	if (--uf->users)
		return;
	hash_del(&uf->node);
	prf_unwind_files--;
	prf_unwind_bytes -= prf_unwind_row_bytes(uf->rows->nr);
	list_add(&uf->dead, dead);
}

/* Every table @inst holds let go (uapi: .fd -1; the instance freed). */
void prf_unwind_release(struct prf_inst *inst)
{
	struct prf_unwind_use *use, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&prf_unwind_lock);
	list_for_each_entry_safe(use, tmp, &inst->unwind, node)
		prf_unwind_drop(use, &dead);
	mutex_unlock(&prf_unwind_lock);
	prf_unwind_free_dead(&dead);
}

/* @inst lets @file's (NULL: the vDSO's) table go: 0, or -ENOENT. */
static int prf_unwind_unload(struct prf_inst *inst, struct file *file)
{
	const struct inode *inode = prf_unwind_inode(file);
	struct prf_unwind_use *use = NULL;
	struct prf_unwind_file *uf;
	LIST_HEAD(dead);

	mutex_lock(&prf_unwind_lock);
	uf = prf_unwind_lookup(inode);
	if (uf)
		use = prf_unwind_use_of(inst, uf);
	if (use)
		prf_unwind_drop(use, &dead);
	mutex_unlock(&prf_unwind_lock);
	prf_unwind_free_dead(&dead);
	return use ? 0 : -ENOENT;
}

/*
 * @r installed as @file's rows (@file NULL: the vDSO's), held by @inst: 0,
 * or -ENOSPC (the store's bounds) or -ENOMEM, nothing changed.  The entry
 * and the hold are allocated before locking, and freed if not needed.
 */
static int prf_unwind_install(struct prf_inst *inst, struct file *file,
			      struct prf_unwind_rows *r)
{
	const struct inode *inode = prf_unwind_inode(file);
	struct prf_unwind_file *uf, *nuf;
	struct prf_unwind_rows *old = NULL;
	struct prf_unwind_use *nuse;
	u64 bytes;
	int ret = 0;

	nuf = kzalloc(sizeof(*nuf), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	nuse = kzalloc(sizeof(*nuse), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!nuf || !nuse) {
		kfree(nuf);
		kfree(nuse);
		return -ENOMEM;
	}
	mutex_lock(&prf_unwind_lock);
	uf = prf_unwind_lookup(inode);
	bytes = prf_unwind_bytes + prf_unwind_row_bytes(r->nr);
	if (uf)
		bytes -= prf_unwind_row_bytes(uf->rows->nr);
	if (bytes > PRF_UNWIND_BYTES_MAX ||
	    (!uf && prf_unwind_files >= PRF_UNWIND_FILES_MAX)) {
		ret = -ENOSPC;
		goto out;
	}
	if (!uf) {
		uf = nuf;
		nuf = NULL;
		uf->inode = inode;
		if (file) {
			uf->path = *prf_file_user_path(file);
			path_get(&uf->path);
		}
		hash_add(prf_unwind_hash, &uf->node, (unsigned long)uf->inode);
		prf_unwind_files++;
	}
	if (!prf_unwind_use_of(inst, uf)) {
		nuse->uf = uf;
		list_add(&nuse->node, &inst->unwind);
		uf->users++;
		nuse = NULL;
	}
	old = uf->rows;
	uf->rows = r;
	prf_unwind_bytes = bytes;
out:
	mutex_unlock(&prf_unwind_lock);
	prf_unwind_put(old);
	kfree(nuf);
	kfree(nuse);
	return ret;
}

int prf_set_unwind(struct prf_inst *inst, const struct prf_unwind_load *ld)
{
	struct prf_unwind_rows *r;
	struct file *file;
	int ret;

	if (ld->fd == -1) {
		if (ld->nr || ld->rows || ld->machine || ld->flags)
			return -EINVAL;
		prf_unwind_release(inst);
		return 0;
	}
	if (!ld->nr && (ld->rows || ld->machine || ld->flags))
		return -EINVAL;
	/* a machine of EM_NONE: an architecture without an unwinder */
	if (ld->nr && ((ld->flags & ~PRF_UNWIND_FRAMEPTR) ||
		       ld->machine != PRF_UNWIND_MACHINE || !ld->machine))
		return -EINVAL;
	if (ld->nr > PRF_UNWIND_ROWS_MAX)
		return -E2BIG;
	/* the vDSO's table: file NULL (above) */
	file = ld->fd < 0 ? NULL : fget(ld->fd);
	if (!file && ld->fd != PRF_UNWIND_VDSO)
		return -EBADF;
	if (file && !S_ISREG(file_inode(file)->i_mode)) {
		ret = -EINVAL;
	} else if (!ld->nr) {
		ret = prf_unwind_unload(inst, file);
	} else {
		ret = prf_unwind_read(u64_to_user_ptr(ld->rows), ld->nr,
				      ld->flags, &r);
		if (!ret) {
			ret = prf_unwind_install(inst, file, r);
			if (ret)
				prf_unwind_put(r);
		}
	}
	if (file)
		fput(file);
	return ret;
}

int prf_get_unwind(struct prf_inst *inst, struct prf_unwind_stat __user *us)
{
	struct prf_unwind_stat st;
	struct prf_unwind_file *uf;
	struct prf_unwind_use *use;
	struct file *file = NULL;
	s32 fd;

	if (get_user(fd, &us->fd) || get_user(st.pad, &us->pad))
		return -EFAULT;
	if (st.pad)
		return -EINVAL;
	if (fd != -1 && fd != PRF_UNWIND_VDSO) {
		file = fd < 0 ? NULL : fget(fd);
		if (!file)
			return -EBADF;
	}
	memset(&st, 0, sizeof(st));
	st.fd = fd;
	mutex_lock(&prf_unwind_lock);
	uf = file || fd == PRF_UNWIND_VDSO ?
	     prf_unwind_lookup(prf_unwind_inode(file)) : NULL;
	if (uf) {
		st.nr = uf->rows->nr;
		st.flags = uf->rows->flags;
		st.users = uf->users;
		if (prf_unwind_use_of(inst, uf))
			st.flags |= PRF_UNWIND_HELD;
	}
	list_for_each_entry(use, &inst->unwind, node)
		st.files++;
	st.store_files = prf_unwind_files;
	st.store_bytes = prf_unwind_bytes;
	mutex_unlock(&prf_unwind_lock);
	if (file)
		fput(file);
	return copy_to_user(us, &st, sizeof(st)) ? -EFAULT : 0;
}

/* The 8 bytes at user address @addr, from the copy @stk: false if outside. */
static bool prf_unwind_peek(const struct prf_unwind_stack *stk, u64 addr,
			    u64 *val)
{
	if (addr < stk->sp || addr - stk->sp > stk->len ||
	    stk->len - (addr - stk->sp) < sizeof(*val))
		return false;
	memcpy(val, stk->data + (addr - stk->sp), sizeof(*val));
	return true;
}

/*
 * By the frame record at FP (a file loaded with PRF_UNWIND_FRAMEPTR, a
 * return address no row covers): the caller's FP, then the return address.
 * On x86-64 the record sits right below the CFA (rbp pushed after the call
 * pushed the return address); on arm64 anywhere in the frame, so the
 * caller's SP is not known after it.
 */
static int prf_unwind_record(struct prf_unwind_regs *st,
			     const struct prf_unwind_stack *stk, u64 *ra)
{
	u64 fp;

	if (!st->fp_ok || st->fp < st->floor ||
	    !prf_unwind_peek(stk, st->fp, &fp) ||
	    !prf_unwind_peek(stk, st->fp + 8, ra))
		return PRF_UNWIND_STOP;
	st->floor = st->fp + 16;
	st->sp = st->fp + 16;
	st->sp_ok = IS_ENABLED(CONFIG_X86_64);
	st->fp = fp;
	st->lr_ok = false;
	st->first = false;
	return *ra ? PRF_UNWIND_NEXT : PRF_UNWIND_END;
}

/*
 * Through a signal frame (a row PRF_UNWIND_ROW_SIGNAL, uapi): the
 * interrupted frame's registers, read from the frame at SP, become @st as
 * the interrupted frame's own (its return address may still be in the link
 * register, its CFA may be its SP); *@pc its PC.
 */
static int prf_unwind_signal(struct prf_unwind_regs *st,
			     const struct prf_unwind_stack *stk, u64 *pc)
{
	u64 sp, fp, lr = 0;

	if (!st->sp_ok || !prf_unwind_peek(stk, st->sp + PRF_SIG_PC, pc) ||
	    !prf_unwind_peek(stk, st->sp + PRF_SIG_SP, &sp) ||
	    !prf_unwind_peek(stk, st->sp + PRF_SIG_FP, &fp))
		return PRF_UNWIND_STOP;
#ifdef PRF_SIG_LR
	if (!prf_unwind_peek(stk, st->sp + PRF_SIG_LR, &lr))
		return PRF_UNWIND_STOP;
#endif
	/* the interrupted frame lies above the signal frame, or not here */
	if (sp <= st->sp || !*pc)
		return PRF_UNWIND_STOP;
	st->sp = sp;
	st->fp = fp;
	st->lr = lr;
	st->floor = sp;
	st->sp_ok = true;
	st->fp_ok = true;
	st->lr_ok = IS_ENABLED(CONFIG_ARM64);
	st->first = true;
	return PRF_UNWIND_SIGNAL;
}

/*
 * One step of the walk (uapi, PRF_UOBJ_CFI): from the frame whose code
 * @row covers (NULL: none; @frame_record: follow the frame record there),
 * with registers @st, to its caller's: *@ra the return address, @st the
 * caller's registers.  PRF_UNWIND_NEXT; PRF_UNWIND_SIGNAL, through a
 * signal frame: *@ra the interrupted PC, @st its frame's registers;
 * PRF_UNWIND_END, the chain whole (the return address undefined, or 0);
 * PRF_UNWIND_STOP, truncated (what called is not known).  Reads only the
 * copy @stk.  Any context.
 */
int prf_unwind_step(const struct prf_unwind_row *row, bool frame_record,
		    struct prf_unwind_regs *st,
		    const struct prf_unwind_stack *stk, u64 *ra)
{
	u64 base, cfa;

	if (!row)
		return frame_record ? prf_unwind_record(st, stk, ra) :
				      PRF_UNWIND_STOP;
	if (row->flags & PRF_UNWIND_ROW_STOP)
		return PRF_UNWIND_STOP;
	if (row->flags & PRF_UNWIND_ROW_SIGNAL)
		return prf_unwind_signal(st, stk, ra);
	/* the outermost frame, whatever its CFA (arm64's _start: SP + 0) */
	if (PRF_UNWIND_RA(row->rules) == PRF_UNWIND_UNDEF)
		return PRF_UNWIND_END;
	if (row->rules & PRF_UNWIND_CFA_FP) {
		if (!st->fp_ok)
			return PRF_UNWIND_STOP;
		base = st->fp;
	} else {
		if (!st->sp_ok)
			return PRF_UNWIND_STOP;
		base = st->sp;
	}
	cfa = base + (s64)row->cfa_off;
	/* up the stack: the interrupted frame's CFA may be its SP (a leaf) */
	if (st->first ? cfa < st->floor : cfa <= st->floor)
		return PRF_UNWIND_STOP;
	switch (PRF_UNWIND_RA(row->rules)) {
	case PRF_UNWIND_AT:
		if (!prf_unwind_peek(stk, cfa + (s64)row->ra_off, ra))
			return PRF_UNWIND_STOP;
		break;
	case PRF_UNWIND_SAME:	/* still in the link register: the first */
		if (!st->lr_ok || !st->first)
			return PRF_UNWIND_STOP;
		*ra = st->lr;
		break;
	default:		/* undefined: ended above */
		return PRF_UNWIND_END;
	}
	switch (PRF_UNWIND_FP(row->rules)) {
	case PRF_UNWIND_AT:
		if (!prf_unwind_peek(stk, cfa + (s64)row->fp_off, &st->fp))
			return PRF_UNWIND_STOP;
		st->fp_ok = true;
		break;
	case PRF_UNWIND_UNDEF:
		st->fp_ok = false;
		break;
	}
	st->sp = cfa;
	st->sp_ok = true;
	st->floor = cfa;
	st->lr_ok = false;
	st->first = false;
	return *ra ? PRF_UNWIND_NEXT : PRF_UNWIND_END;
}
