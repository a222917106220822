/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * prf - the /dev/prf kernel profiler device: the whole user ABI.
 *
 * /dev/prf (minor 255) profiles every CPU together; /dev/prfN profiles CPU N
 * alone (minor N for N < 255, minor N + 1 for N >= 255: prf_cpu_minor()).
 * Each minor is an independent profiler with its own table and counters.
 *
 * write(2) loads a table: an array of strictly ascending kernel text
 * addresses, each a __u64 on every architecture.  It must hold at least
 * PRF_MIN_ADDRS and at most PRF_GETMAX addresses, and sampling must be OFF.
 *
 *	E2BIG	fewer than PRF_MIN_ADDRS addresses, or a size that is not a
 *		multiple of sizeof(__u64).			state unchanged
 *	ENOSPC	more addresses than PRF_GETMAX.			state unchanged
 *	EBUSY	sampling is ON.					state unchanged
 *	EFAULT	the buffer cannot be read.			state unchanged
 *	EINVAL	not strictly ascending (a duplicate address counts as not
 *		ascending).	the instance is left NOT loaded (prf(7))
 *
 * The size checks (E2BIG, ENOSPC) are made before EBUSY, in that order.
 * A successful write zeroes every counter (including the extension counters
 * of struct prf_info) and returns the byte count.
 *
 * read(2) returns, from the start whatever the file position, the N addresses
 * followed by N + 2 counters, all __u64: counter i belongs to address i,
 * counter N counts user-mode ticks, counter N + 1 idle ticks.  It copies
 * min(count, (2N + 2) * 8) bytes and returns that number.  Unloaded: ENXIO,
 * buffer untouched.  While ON each counter is read atomically (never torn),
 * but the counters are not a snapshot of one instant.
 *
 * A kernel PC below the first loaded address is counted in none of the N + 2
 * counters but in prf_info.ticks_outside; a kernel PC at or above the last
 * address counts for the last address (load an end sentinel to avoid that).
 * Idle means what the scheduler counts as idle: the idle task interrupted
 * with no hardirq, softirq or NMI beneath the sampling interrupt.
 *
 * poll(2)/select(2) always report readable and writable.  lseek(2) succeeds
 * and has no effect on read(2) or write(2).
 *
 * Memory a caller sizes (a table, the per-process tally, the stack table,
 * PRF_GETSITES' copy) is charged to the caller's memory cgroup; when it
 * cannot be had the call fails with ENOMEM, quietly (no kernel warning, no
 * OOM killer), and changes nothing.
 *
 * Opening needs CAP_PERFMON or CAP_SYS_ADMIN (EPERM otherwise) and is refused
 * with EPERM under kernel lockdown (confidentiality); a minor with no CPU
 * behind it fails with ENXIO.
 *
 * What a descriptor may do follows how it was opened (beyond prf(7), which
 * says nothing of it): write(2) and every ioctl that changes the instance
 * (PRF_SETSTATE, PRF_SETHZ, PRF_CLEAR, PRF_SETFLAGS, PRF_SETCPU,
 * PRF_SETFILTER, PRF_SETTASKS, PRF_SETSTACKS, PRF_SETMODE, PRF_SETSOURCE)
 * need a file open for writing (O_WRONLY or O_RDWR): on a file open
 * O_RDONLY they fail with EBADF, as write(2) does, before anything else is
 * looked at (the argument is not read), and change nothing.  read(2) needs
 * a file open for reading; the other ioctls (the getters, PRF_GETINFO,
 * PRF_GETTASKS, PRF_GETSTACKS, PRF_GETSITES, PRF_GETSOURCE, PRF_GETEVENTS)
 * work on any descriptor.  A descriptor handed to a monitoring
 * process read-only can watch, not steer.
 */
#ifndef _UAPI_LINUX_PRF_H
#define _UAPI_LINUX_PRF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PRF_DEVICE		"/dev/prf"
#define PRF_CLASS		"prf"		/* /sys/class/prf/<dev>/ */
#define PRF_ALL_MINOR		255		/* minor of /dev/prf */

/* Minor of /dev/prfN: 255 means "all CPUs", so CPUs from 255 shift by one. */
static inline unsigned int prf_cpu_minor(unsigned int cpu)
{
	return cpu < PRF_ALL_MINOR ? cpu : cpu + 1;
}

#define PRF_MIN_ADDRS		3	/* fewer is E2BIG (prf(7)) */
#define PRF_NR_BUCKETS(n)	((n) + 2)	/* counters after N addresses */
#define PRF_USER_BUCKET(n)	(n)		/* index of the user counter */
#define PRF_IDLE_BUCKET(n)	((n) + 1)	/* index of the idle counter */

/* PRF_GETSTATUS bits */
#define PRF_STATUS_ON		0x1	/* sampling */
#define PRF_STATUS_LOADED	0x2	/* holds a valid table */

/* Sampling rate limits, Hz (PRF_SETHZ) */
#define PRF_HZ_MIN		1
#define PRF_HZ_MAX		10000
#define PRF_HZ_DEFAULT		100

#define PRF_IOC_MAGIC		0xB9	/* free in ioctl-number.rst */

/*
 * The four prf(7) commands.  GETSTATUS, GETSIZE and GETMAX store an int at
 * the user address arg (EFAULT if it cannot be written).  PRF_GETSIZE gives
 * 0 when no table is loaded.  PRF_SETSTATE takes its argument by value, as in
 * prf(7): bit 0 of arg set turns sampling ON, clear turns it OFF; the other
 * bits are ignored, and it has no effect (and succeeds) when no table is
 * loaded.  Turning ON can fail (beyond prf(7)) with ENOSPC: the sample
 * budget, below, has no room for the rate; the instance stays OFF with
 * everything as it was.  Any command not listed in this header fails with
 * EINVAL, as prf(7) says (not ENOTTY).
 */
#define PRF_GETSTATUS		_IOR(PRF_IOC_MAGIC, 1, int)
#define PRF_GETSIZE		_IOR(PRF_IOC_MAGIC, 2, int)
#define PRF_SETSTATE		_IO(PRF_IOC_MAGIC, 3)
#define PRF_GETMAX		_IOR(PRF_IOC_MAGIC, 4, int)

/*
 * Extensions beyond prf(7).
 *
 * PRF_GETHZ	stores the instance's sampling rate (Hz) as a __u32 at arg.
 * PRF_SETHZ	reads a __u32 rate from arg: PRF_HZ_MIN..PRF_HZ_MAX or EINVAL;
 *		EBUSY while ON.  Each instance keeps its own rate even when
 *		another instance samples the same CPU at another rate.  The
 *		rate survives loads and clears.
 * PRF_CLEAR	zeroes every counter of a loaded instance (the N + 2 and the
 *		extension counters), keeps the table and the state; allowed
 *		while ON.  ENXIO when not loaded.  While ON it is one instant
 *		for every count: a sample (or event) is counted wholly before
 *		it or wholly after it, so the sums below hold at the next OFF;
 *		samples and events due while it zeroes count nowhere, and it
 *		takes an RCU grace period (milliseconds) more than while OFF.
 * PRF_GETINFO	fills struct prf_info (below).  Its number encodes the size of
 *		version 1 whatever the structure has grown to since: the
 *		size that counts is the one in .size.
 * PRF_GETFLAGS	stores the instance's PRF_FLAG_* bits as a __u32 at arg.
 * PRF_SETFLAGS	reads a __u32 of PRF_FLAG_* bits from arg; unknown bits are
 *		EINVAL; EBUSY while ON.
 *
 * The sample budget: every instance ON in the time mode takes hz samples a
 * second on each CPU it samples, in hard interrupts.  Their sum on any one
 * CPU is held to the module parameter sample_budget (samples per second per
 * CPU; default 40000, four instances at PRF_HZ_MAX; root may change it in
 * /sys/module/prf/parameters/sample_budget, 0 refuses every ON).  Turning
 * an instance ON charges its rate to every CPU it samples, online or not
 * yet (/dev/prf and a private instance on all CPUs: every possible CPU but
 * the isolated ones unless PRF_FLAG_ISOLATED; /dev/prfN and a private
 * instance on CPU N: CPU N), so a CPU that comes online later needs no
 * check; turning it OFF gives the charge back.  An ON that would take one
 * of them past the budget fails with ENOSPC and changes nothing (sysfs
 * "start" and "startclr" too: "startclr" then clears nothing).  A sample is
 * one sample whatever it does (call stacks included).  A new value of the
 * parameter applies to the next ON: instances already ON stay ON, even
 * past it.  The event modes (PRF_SETMODE) take no samples, but their
 * probes run on every CPU where the events happen, as often as the events
 * do, which prf cannot bound without losing events: each instance ON in an
 * event mode charges every possible CPU (whatever its CPU and filter) a
 * fixed PRF_CHARGE_*, below, from ON to OFF, and is refused the same way.
 * The charge is nominal, a tenth of PRF_HZ_MAX: the budget bounds how many
 * event-mode instances run at once (40 at the default, fewer beside the
 * time mode's), not their rate.
 *
 * The PMU source (PRF_SETSOURCE) charges hz with .period 0 (perf adjusts
 * the period to about hz).  With a period the rate is the event's, which
 * prf cannot know ahead (cycles on an idle CPU, instructions, misses), so
 * the charge follows the rate measured, and each counter is held to it:
 * ON charges hz as a start; each counter may then take at most
 * charge * interval / 1000 samples (at least 1) until the next check,
 * after which perf stops it until that check.  The first check comes
 * PRF_PMU_HOLD_FIRST_MS after ON (the interval of the first allowance,
 * also of a CPU that comes online while ON), the others every
 * PRF_PMU_HOLD_MS (the interval of theirs).  Each check measures the
 * samples a second each CPU's counter took while it ran since the last
 * one, and raises the charge to the highest of them and a quarter more
 * (never lowers it while ON), as far as the budget allows, and gives every
 * counter its allowance of the next interval.  A counter whose allowance
 * ran out while the budget could not pay its rate is held: it takes no
 * samples until the next check, and prf_info.pmu_throttled counts it once
 * per check.  So a period too small for the budget runs at the budget's
 * rate, with its samples bunched at the start of each interval; another
 * instance's ON finds the budget full (ENOSPC).  PRF_GETINFO's
 * sample_budget and budget_used show the budget and its use (the charge
 * as it is now).
 */
#define PRF_CHARGE_ALLOC	1000	/* alloc-calls, alloc-bytes */
#define PRF_CHARGE_CALLS	1000	/* calls */
#define PRF_CHARGE_OFFCPU	1000	/* offcpu */
#define PRF_PMU_HOLD_FIRST_MS	20	/* the first check after ON */
#define PRF_PMU_HOLD_MS		100	/* the checks after it */

#define PRF_GETHZ		_IOR(PRF_IOC_MAGIC, 5, __u32)
#define PRF_SETHZ		_IOW(PRF_IOC_MAGIC, 6, __u32)
#define PRF_CLEAR		_IO(PRF_IOC_MAGIC, 7)
#define PRF_GETINFO		_IOC(_IOC_READ | _IOC_WRITE, PRF_IOC_MAGIC, 8, \
				     PRF_INFO_SIZE_V1)
#define PRF_GETFLAGS		_IOR(PRF_IOC_MAGIC, 9, __u32)
#define PRF_SETFLAGS		_IOW(PRF_IOC_MAGIC, 10, __u32)

/*
 * How samples are placed in time.  P = 1/hz; time is cut into periods of
 * exactly P from the instant sampling is turned ON (per CPU: from when that
 * CPU's timer starts).
 *
 * Default (no flag): stratified.  Exactly one sample in every period, at a
 * point drawn uniformly at random inside it, independently for each period
 * and each CPU.  The rate is exactly hz per CPU over any whole number of
 * periods, and no phase of the period is privileged, so sampling cannot run
 * in lock-step with the scheduler tick or any other periodic activity.
 *
 * PRF_FLAG_FIXED: phase-locked.  One sample every P exactly, the first at
 * P + s after ON, where the stagger s is 0 for /dev/prfN and
 * P * cpu / nr_cpu_ids on CPU cpu for /dev/prf (so the CPUs of /dev/prf do
 * not all sample at the same instant).  prf(7)'s classic behaviour.
 *
 * PRF_FLAG_JITTER: obsolete.  It asked for randomised periods with the mean
 * rate unchanged, which the default now gives; it is still accepted and read
 * back, and means the default.  With PRF_FLAG_FIXED it is EINVAL.
 *
 * PRF_FLAG_ISOLATED: /dev/prf also samples the CPUs isolated from kernel
 * housekeeping (isolcpus=, nohz_full=), which it leaves alone by default.
 * No effect on /dev/prfN: naming a CPU is asking for it, isolated or not.
 * prf_info.ncpus and the sysfs attribute "cpus" say which CPUs are covered.
 */
#define PRF_FLAG_JITTER		0x1
#define PRF_FLAG_FIXED		0x2
#define PRF_FLAG_ISOLATED	0x4

/*
 * PRF_FLAG_USERPC: a sample taken in user mode is looked up in the table
 * like a kernel PC (profil(2)/sprofil(2)) instead of going to the user
 * bucket.  User addresses sort below kernel ones, so one ascending table
 * holds the process's own regions (functions of its executable and shared
 * objects, with an end sentinel after each mapping: the entry that counts
 * PCs past the mapping, sprofil's overflow bin) followed by the kernel's.  A
 * user PC below the first address of the table counts in the user bucket
 * (counter N), as without the flag.  Only with a filter (PRF_SETFILTER):
 * the table describes the address spaces its builder chose, those of the
 * filter's process or cgroup.  SETFLAGS with it and no filter set is
 * EINVAL, and so is removing the filter while it is set; either filter,
 * set before or after the flag, is accepted.  A user PC is looked up by
 * its value whatever process it comes from: with a cgroup filter (or a
 * process that execs) the table is the union of the regions of several
 * address spaces, and every process's PCs count against the entry of the
 * largest table address not above them.  Processes mapping the same
 * object at the same address (children forked before exec) share its
 * entries, as they should; where the builder's regions of two processes
 * overlap it keeps one (prf(1): the first process's), and the other's PCs
 * there count against it.
 */
#define PRF_FLAG_USERPC		0x8
#define PRF_FLAGS_ALL		(PRF_FLAG_JITTER | PRF_FLAG_FIXED | \
				 PRF_FLAG_ISOLATED | PRF_FLAG_USERPC)

/*
 * Private instances (beyond prf(7)).  Each open(2) of /dev/prfclone (its own
 * minor in the same class, same permissions as /dev/prf) makes a new
 * instance that belongs to that open file and is freed with it: OFF,
 * unloaded, all CPUs, PRF_HZ_DEFAULT, no flags, no filter.  Everything of
 * prf(7) and of the extensions works on it.  At most max_private (a module
 * parameter) exist at once; the open past that fails with ENOSPC.
 *
 * PRF_SETCPU	(private instances only; EINVAL on the shared minors) reads
 *		a __s32 from arg: -1 samples every CPU (as /dev/prf), N
 *		samples CPU N alone (as /dev/prfN); EINVAL for a CPU that is
 *		not possible; EBUSY while ON.  Zeroes the counters.
 * PRF_GETCPU	stores the __s32 CPU profiled (-1: all) at arg.
 */
#define PRF_CLONE_NAME		"prfclone"	/* /dev/prfclone */
#define PRF_SETCPU		_IOW(PRF_IOC_MAGIC, 11, __s32)
#define PRF_GETCPU		_IOR(PRF_IOC_MAGIC, 12, __s32)

/*
 * Filters: which task's samples an instance counts.  A sample whose current
 * task does not match is counted in prf_info.ticks_filtered and in none of
 * the N + 2 counters.  Set while OFF (EBUSY while ON), on any instance; a
 * new filter zeroes the counters.
 *
 * PRF_SETFILTER reads a struct prf_filter from arg:
 *	PRF_FILTER_NONE		every task (the default; prf(7)).
 *	PRF_FILTER_TGID		every thread of the process whose ID, in the
 *				caller's PID namespace, is .id.  ESRCH when no
 *				such process exists.
 *	PRF_FILTER_CGROUP	every task in the cgroup v2 whose directory is
 *				open on file descriptor .id, or in any of its
 *				descendants.  EBADF for a bad descriptor,
 *				EINVAL (or the kernel's error) when it is not a
 *				cgroup v2 directory.
 *	EINVAL for another .type, or .flags not 0.  An error changes nothing.
 *	The input is checked before the state: a bad filter is refused with
 *	its own error while ON too, a good one with EBUSY.
 * PRF_FILTER_NONE while PRF_FLAG_USERPC is set is EINVAL (see above).
 * The instance holds a reference on the process's struct pid or on the
 * cgroup: a process that exits or a cgroup that is removed leaves the
 * filter in place, matching nothing (no task can enter them again).
 * The idle task matches no filter: its samples are filtered out.  On the
 * shared minors the sysfs attribute "filter" reads and sets the same
 * ("none", "tgid N", "cgroup PATH" from the cgroup v2 root); it is root's
 * alone (mode 0600), and so is "info" (0400), since they tell which process
 * or cgroup is profiled and how it runs.
 *
 * PRF_GETFILTER fills a struct prf_filter: .type, and .id the process ID in
 * the caller's PID namespace (0 once it has exited or is not visible there)
 * or the cgroup's ID (its inode number in cgroupfs).
 */
#define PRF_FILTER_NONE		0
#define PRF_FILTER_TGID		1
#define PRF_FILTER_CGROUP	2

struct prf_filter {
	__u32 type;		/* PRF_FILTER_* */
	__u32 flags;		/* 0 */
	__u64 id;		/* process ID, or cgroup directory fd / ID */
};

#define PRF_SETFILTER		_IOW(PRF_IOC_MAGIC, 13, struct prf_filter)
#define PRF_GETFILTER		_IOR(PRF_IOC_MAGIC, 14, struct prf_filter)

/*
 * Who burns the kernel: a per-process tally of an instance's samples, kept in
 * a fixed table in the kernel (no allocation while sampling).
 *
 * PRF_SETTASKS	reads a __u32 capacity from arg: the number of distinct
 *		processes kept, 0 (the default) for none; at most
 *		PRF_TASKS_MAX, else EINVAL; EBUSY while ON.  Allocates the
 *		table (ENOMEM).  Zeroes it.  PRF_CLEAR and a load zero it too
 *		(a clear while ON zeroes the counts and .dropped but keeps
 *		the processes already kept, which PRF_GETTASKS leaves out
 *		until they are sampled again).
 * PRF_GETTASKS	fills the caller's array: arg points to a struct prf_tasks
 *		whose .nr says how many struct prf_task .tasks has room for;
 *		the kernel sets .nr to the number it stored (in no particular
 *		order: the caller sorts), .dropped to the samples of processes
 *		that found the table full, and .capacity to the table's size.
 *		Processes past the caller's room are left out (.nr is then the
 *		room); EFAULT if the array cannot be written.
 * A process is its thread group: .pid is its ID in the initial PID
 * namespace, .comm its name as ps shows it, its main thread's when that
 * thread was last sampled (so a process that exec()s another program is
 * named by that program from its next sample on; until its main thread is
 * sampled, by the first thread that was).  Samples in the idle bucket are
 * not tallied; filtered-out ones are not either.
 */
#define PRF_TASKS_MAX		65536

struct prf_task {
	__s32 pid;		/* thread group ID, initial PID namespace */
	__u32 pad;
	__u64 kernel;		/* samples in kernel mode (not idle) */
	__u64 user;		/* samples in user mode */
	char comm[16];
};

struct prf_tasks {
	__u32 nr;		/* in: room in tasks[]; out: entries stored */
	__u32 capacity;		/* out: the table's size (PRF_SETTASKS) */
	__u64 dropped;		/* out: samples of processes not kept */
	__u64 tasks;		/* user pointer to struct prf_task[nr] */
};

#define PRF_SETTASKS		_IOW(PRF_IOC_MAGIC, 15, __u32)
#define PRF_GETTASKS		_IOWR(PRF_IOC_MAGIC, 16, struct prf_tasks)

/*
 * Call stacks (beyond prf(7)): an opt-in, fixed-size table of distinct
 * kernel call stacks per instance, counted in the kernel as samples arrive.
 *
 * PRF_SETSTACKS reads a struct prf_stack_conf from arg: .depth 0 turns
 *		stacks off and frees the table (.capacity must then be 0);
 *		.depth 1..PRF_STACK_DEPTH_MAX frames with .capacity
 *		1..PRF_STACKS_MAX distinct stacks kept.  EINVAL otherwise
 *		(.flags or .pad not 0 too); EBUSY while ON; ENOMEM.  Allocates
 *		the table (never while sampling) and zeroes it, and the user
 *		objects table too (its pairs name the stacks: PRF_GETUPAIRS).
 *		A load, PRF_CLEAR, a filter and PRF_SETCPU zero it too; its
 *		set-up survives them.  (A clear while ON zeroes the counts and
 *		.dropped but keeps the stacks already kept, which
 *		PRF_GETSTACKS leaves out until they are sampled again.)
 * PRF_GETSTACKS fills the caller's buffer: arg points to a struct
 *		prf_stacks whose .nr says how many records .stacks has room
 *		for; a record is struct prf_stack followed by .depth __u64 PCs
 *		(PRF_STACK_RECORD_SIZE(depth) bytes, with the set-up's depth,
 *		which a call with .nr = 0 returns).  The kernel sets .nr to
 *		the records stored (no particular order), .depth and .capacity
 *		to the set-up, .dropped to the samples whose stack found the
 *		table full.  Stacks past the room are left out.  EFAULT if the
 *		buffer cannot be written; EINVAL if .flags is not 0.  With
 *		stacks off: .nr = 0, .depth = 0.
 * Which samples have a stack: every sample counted in one of counters
 * 0..N-1 (so, per function, the counts of the stacks whose leaf falls in it
 * add up to its counter when nothing was dropped).  pc[0] is the sampled
 * PC, pc[1] the return address into its caller (the instruction after
 * the call: look it up at pc[1] - 1), and so on outward; .nr_pcs <= depth,
 * and the PCs past .nr_pcs are 0.
 * PRF_STACK_TRUNCATED: the stack had more frames than depth (or, on an
 * architecture whose walk starts in the sampling interrupt, arm64, the
 * interrupted PC was not found in it: pc[0] alone).
 * PRF_STACK_USER: a user-mode sample counted in the table (PRF_FLAG_USERPC):
 * one frame, the user PC.
 */
#define PRF_STACK_DEPTH_MAX	64
#define PRF_STACKS_MAX		1048576	/* 2^20 */
#define PRF_STACK_TRUNCATED	0x1
#define PRF_STACK_USER		0x2

struct prf_stack_conf {
	__u32 depth;		/* frames kept, 0 = off */
	__u32 capacity;		/* distinct stacks kept */
	__u32 flags;		/* 0 */
	__u32 pad;		/* 0 */
};

struct prf_stack {
	__u64 count;		/* samples with this stack */
	__u32 nr_pcs;		/* PCs in pc[] that are used */
	__u32 flags;		/* PRF_STACK_* */
	/* followed by __u64 pc[depth] */
};

#define PRF_STACK_RECORD_SIZE(depth) (sizeof(struct prf_stack) + 8 * (depth))

struct prf_stacks {
	__u32 nr;		/* in: room in records; out: records stored */
	__u32 depth;		/* out: the set-up's depth */
	__u32 capacity;		/* out: the set-up's capacity */
	__u32 flags;		/* in: 0 */
	__u64 dropped;		/* out: samples whose stack was not kept */
	__u64 stacks;		/* user pointer to the records */
};

#define PRF_SETSTACKS		_IOW(PRF_IOC_MAGIC, 17, struct prf_stack_conf)
#define PRF_GETSTACKS		_IOWR(PRF_IOC_MAGIC, 18, struct prf_stacks)

/*
 * User objects (beyond prf(7)): every user-mode sample counted in the user
 * bucket (counter N), whatever process it comes from, resolved to the file
 * that maps its PC and the offset in that file, and counted per (file,
 * offset) in a fixed table in the kernel.  Programs that exec, children and
 * processes that live a few milliseconds are named like any other, without
 * a record per sample.
 *
 * PRF_SETUOBJS reads a struct prf_uobj_conf from arg: .capacity 0 turns it
 *		off and frees the table (.files, .flags and .depth must then
 *		be 0); else .capacity 1..PRF_UOBJS_MAX distinct (file,
 *		offset) entries and .files 1..PRF_UOBJ_FILES_MAX distinct
 *		files, and with PRF_UOBJ_CHAINS in .flags as many distinct
 *		user call chains (below) of at most .depth frames, 2 to
 *		PRF_UCHAIN_DEPTH_MAX (.depth 0 without it), walked by the
 *		unwind tables with PRF_UOBJ_CFI too (below), and with
 *		PRF_UOBJ_VDSO the vDSO named as a file of its own (below).
 *		EINVAL otherwise (other .flags, PRF_UOBJ_CFI without
 *		PRF_UOBJ_CHAINS); EBUSY while ON; ENOMEM.
 *		Allocates the table (charged to the caller) and zeroes it.  A
 *		load, PRF_CLEAR, a filter, PRF_SETCPU, a mode and a source zero
 *		it too; its set-up survives them.  (A clear while ON zeroes the
 *		counts but keeps the entries and files already kept; entries
 *		whose count is 0 are left out.)
 * PRF_GETUOBJS fills the caller's buffers: arg points to a struct prf_uobjs
 *		whose .nr and .nfiles say how many entries and files .entries
 *		and .files have room for.  The kernel sets .nr and .nfiles to
 *		those stored, .used and .files_used to those in the table (a
 *		caller with less room calls again with more), .capacity and
 *		.files_max to the set-up, and the three counts below.  Entries
 *		name files by their index in .files.  EFAULT if a buffer cannot
 *		be written; EINVAL if .flags or .pad is not 0; EAGAIN if the
 *		table was zeroed while being read, three times over (another
 *		file loading the instance meanwhile); EINTR on a fatal
 *		signal.  With the table off, everything 0.
 * How: the sampling interrupt (hard irq or NMI) cannot take the address
 * space's lock, so it notes the PC with a reference on the address space
 * (mm_users, which keeps its mappings even after the process exits) in a
 * per-CPU ring of PRF_UOBJ_RING notes; a worker resolves them in process
 * context every 10 to 100 ms (the time a quarter of a ring takes to fill
 * at the instance's rate; 10 ms with the PMU source), and drops the
 * references; PRF_GETUOBJS first resolves what is pending.  The mapping
 * seen is the one at resolution: code unmapped in between (dlclose,
 * munmap) counts in .unmapped, or against what was mapped there since.
 * Each user-bucket sample ends in exactly one of: an entry, .lost,
 * .dropped or .unmapped, so once OFF and read
 *	sum of the entries' counts + lost + dropped + unmapped = counter N
 * counted since the last zeroing.
 * .lost:	samples whose CPU's ring was full (PRF_UOBJ_RING notes
 *		pending on it; with PRF_UOBJ_CFI, or PRF_UOBJ_WINDOWS stack
 *		copies).
 * .dropped:	samples whose file or (file, offset) found the table full.
 * .unmapped:	samples whose PC no mapping covered when resolved.
 * A file is its inode (the one of the path the mapping was opened by, as
 * /proc/PID/maps names it: on overlayfs the overlay's, not a layer's):
 * .major, .minor and .ino are what stat(2) of that path gives (st_dev's
 * major and minor, st_ino), asked when PRF_GETUOBJS runs, which is not
 * always the file system's device (a btrfs subvolume's st_dev is its own,
 * an overlay's the overlay's); .path its name as seen from the
 * reader's root when PRF_GETUOBJS runs (d_path()): a file deleted by then
 * ends in " (deleted)", and PRF_UOBJ_DELETED is set.  A path of
 * PRF_UOBJ_PATH_MAX bytes or more is not given: .path holds its last
 * component and PRF_UOBJ_LONGPATH is set.  A file replaced (a new inode at
 * the path) is a different file: a reader checks .major, .minor and .ino
 * against the path before naming offsets with the file it finds there.
 * The table holds a reference on each file it names, as an open file
 * would, until it is zeroed or freed: until then a deleted file's blocks
 * stay allocated and its file system stays busy.  Zeroing while OFF (a
 * load, PRF_CLEAR, a filter...) lets them go when it returns, or, if a
 * reader or the worker is in the table at that moment, a few milliseconds
 * later, once that one is done.
 * .offset is the byte offset in the file of the PC (its mapping's file
 * offset plus the PC's distance from the mapping's start).
 * The vDSO (PRF_UOBJ_VDSO set up): a PC in the vDSO a 64-bit task runs
 * (its "[vdso]" mapping; not a 32-bit task's, whose image is another) is
 * counted against a file entry of its own, PRF_UOBJ_VDSO_IMAGE in its
 * .flags, .path "[vdso]", .major, .minor and .ino 0: no file names it.
 * Its .offset is the PC's distance from the mapping's start, which is the
 * address in the kernel's vDSO image (an ELF linked at 0: its symbols'
 * values); .pid is 0, as for a file: every 64-bit process maps the same
 * image.  A reader names it from the vDSO the kernel gives the reader
 * itself (getauxval(AT_SYSINFO_EHDR)) when it runs on the same kernel.
 * Without PRF_UOBJ_VDSO the vDSO is code of no file (next).
 * A PC in a mapping of no file (anonymous memory, JIT code, the vDSO
 * without PRF_UOBJ_VDSO, a 32-bit task's vDSO) has .file
 * PRF_UOBJ_ANON, .offset the PC itself and .pid the process's: such
 * code is one process's own, so two processes with code at one address
 * count apart.  .pid is the process's tgid as the initial pid namespace
 * numbers it (as taken when sampled: once the process is gone, another
 * may have it), which is not the pid a process in another pid namespace
 * (a container) sees itself by; it is 0 in an entry of a file, and was 0
 * in every entry from modules before it was given (a reader takes 0 as
 * "not known").  A runtime that writes
 * /tmp/perf-PID.map names its code with it (prf(1)).
 *
 * User call chains (PRF_UOBJ_CHAINS): each sample counted in an entry also
 * counts its user call chain, in a table of distinct chains.  frame[0] is
 * the entry's own (file, offset); frame[1] the return address into its
 * caller (the instruction after the call: look it up at .offset - 1), and
 * so on outward (a signal frame's two frames are given so too:
 * PRF_UNWIND_ROW_SIGNAL below); a frame in code of no file has the
 * process's .pid as an entry has.  The sampling interrupt walks the user
 * stack's frame
 * records (x86-64 and arm64: the caller's frame pointer, then the return
 * address, 16 bytes at the frame pointer), reading user memory without
 * faulting, so only code built with frame pointers gives whole chains; the
 * walk stops at a frame pointer of 0, one that does not grow toward the
 * stack's base, one not 8-byte aligned or one whose frame cannot be read
 * (not resident), and the chain ends there.  A 32-bit task's chain is its
 * PC alone.  On arm64 a leaf function that keeps its return address in the
 * link register alone has no frame record: its caller is missing from the
 * chain (gcc's -mno-omit-leaf-frame-pointer keeps it).  Return addresses
 * are resolved with the PC, by the worker (above): a return address that
 * no mapping covers by then ends the chain.
 * PRF_GETUCHAINS fills the caller's buffers: arg points to a struct
 *		prf_uchains whose .nr says how many records .chains has room
 *		for (a record is struct prf_uchain followed by .depth struct
 *		prf_uframe: PRF_UCHAIN_RECORD_SIZE(depth) bytes, with the
 *		set-up's depth, which a call with .nr = 0 returns) and
 *		.nfiles how many struct prf_uobj_file .files has room for.
 *		Frames name files by their index in .files, filled as by
 *		PRF_GETUOBJS in the same call (indices of one call are not
 *		those of another once the table was zeroed).  The kernel
 *		sets .nr and .nfiles to those stored, .used and .files_used
 *		to those in the table, .depth and .capacity to the set-up,
 *		and .dropped.  The frames past .nr_frames are 0.  Errors as
 *		PRF_GETUOBJS'.  Without chains (or the table), everything 0.
 * Each entry's samples are its chains' (sum of the chains' counts +
 * .dropped = sum of the entries' counts, since the last zeroing).
 * .dropped:	samples whose chain found the chain table full, or one of
 *		whose frames' files found the file table full.
 * PRF_UCHAIN_TRUNCATED: the walk went on past .depth frames, or met a
 *		return address in a mapping that is not executable (a frame
 *		pointer register holding data, in code built without frame
 *		pointers): no call is there, so the chain ends before it and
 *		what called is not known.
 *
 * Chains by the unwind tables (PRF_UOBJ_CFI, with PRF_UOBJ_CHAINS; what
 * prf record -g sets up): the sampling interrupt walks nothing; it copies the
 * user stack from the stack pointer up (PRF_UOBJ_STACK bytes at most, up to
 * the first page it cannot read without faulting; on a process's main
 * stack, up to just past where the exec put argc, above every frame) with
 * the registers the
 * walk starts from (SP, FP; arm64's link register), into a per-CPU ring of
 * PRF_UOBJ_WINDOWS copies, and the worker walks the copy with the tables
 * loaded by PRF_SETUNWIND (below): for each frame, the mapping of its PC
 * gives the file and the offset, the file's row there the caller's CFA, RA
 * and FP.  The chain ends, PRF_UCHAIN_TRUNCATED, where no row covers a PC
 * (but for a return address in a file loaded with PRF_UNWIND_FRAMEPTR,
 * whose frame record is followed), at a row PRF_UNWIND_ROW_STOP, at a
 * saved register outside the copy, at a CFA that does not move up the
 * stack, at a return address in no executable mapping, and past .depth
 * frames; it ends whole at a row whose return address is undefined
 * (whatever its CFA: arm64's _start has SP + 0), or at a return address
 * of 0.  So a chain
 * shows no caller that did not call, as long as the tables are the
 * files' own.  A sample whose CPU has PRF_UOBJ_WINDOWS copies pending
 * counts in .lost, as a full ring does (a pair's in the pairs' .dropped).
 * The drain runs often enough that a quarter of the copies fill between
 * two passes at the instance's rate (every 1 to 100 ms, a jiffy at least:
 * at 10 kHz and HZ=250, 40 copies a pass).  Memory:
 * PRF_UOBJ_WINDOWS * (PRF_UOBJ_STACK + 32) bytes a possible CPU, charged
 * to the caller with the table.
 */
#define PRF_UOBJS_MAX		1048576	/* 2^20 */
#define PRF_UOBJ_FILES_MAX	65536
#define PRF_UOBJ_PATH_MAX	256
#define PRF_UOBJ_RING		512
#define PRF_UOBJ_ANON		0xffffffffU

#define PRF_UOBJ_DELETED	0x1	/* prf_uobj_file.flags */
#define PRF_UOBJ_LONGPATH	0x2
#define PRF_UOBJ_VDSO_IMAGE	0x4	/* not a file: the vDSO (above) */

#define PRF_UOBJ_CHAINS		0x1	/* prf_uobj_conf.flags */
#define PRF_UOBJ_CFI		0x2	/* with CHAINS: unwind by the tables */
#define PRF_UOBJ_VDSO		0x4	/* the vDSO as a file of its own */
#define PRF_UOBJ_STACK		8192	/* bytes of user stack a CFI sample */
#define PRF_UOBJ_WINDOWS	64	/* CFI samples pending a CPU, at most */
#define PRF_UCHAIN_DEPTH_MAX	32
#define PRF_UCHAIN_TRUNCATED	0x1	/* prf_uchain.flags */

struct prf_uobj_conf {
	__u32 capacity;		/* distinct (file, offset) entries, 0 = off */
	__u32 files;		/* distinct files */
	__u32 flags;		/* PRF_UOBJ_CHAINS, | _CFI; | _VDSO */
	__u32 depth;		/* frames of a chain (PRF_UOBJ_CHAINS), or 0 */
};

struct prf_uobj {
	__u64 count;		/* samples at this offset of this file */
	__u64 offset;		/* byte offset in the file (or the PC) */
	__u32 file;		/* index in prf_uobjs.files, or PRF_UOBJ_ANON */
	__u32 pid;		/* PRF_UOBJ_ANON: the process (tgid), else 0 */
};

struct prf_uobj_file {
	__u32 major;		/* device of the file system */
	__u32 minor;
	__u64 ino;		/* inode number */
	__u32 flags;		/* PRF_UOBJ_DELETED, _LONGPATH, _VDSO_IMAGE */
	__u32 pad;
	char path[PRF_UOBJ_PATH_MAX];	/* NUL-terminated */
};

struct prf_uobjs {
	__u32 nr;		/* in: room in entries; out: entries stored */
	__u32 nfiles;		/* in: room in files; out: files stored */
	__u32 used;		/* out: entries in the table */
	__u32 files_used;	/* out: files in the table */
	__u32 capacity;		/* out: the set-up's .capacity */
	__u32 files_max;	/* out: the set-up's .files */
	__u32 flags;		/* in: 0 */
	__u32 pad;		/* in: 0 */
	__u64 lost;		/* out: see above */
	__u64 dropped;
	__u64 unmapped;
	__u64 entries;		/* user pointer to struct prf_uobj[nr] */
	__u64 files;		/* user pointer to struct prf_uobj_file[nfiles] */
};

struct prf_uframe {
	__u64 offset;		/* byte offset in the file (or the address) */
	__u32 file;		/* index in prf_uchains.files, or PRF_UOBJ_ANON */
	__u32 pid;		/* PRF_UOBJ_ANON: the process (tgid), else 0 */
};

struct prf_uchain {
	__u64 count;		/* samples with this chain */
	__u32 nr_frames;	/* frames in frame[] that are used, >= 1 */
	__u32 flags;		/* PRF_UCHAIN_TRUNCATED */
	/* followed by struct prf_uframe frame[depth] */
};

#define PRF_UCHAIN_RECORD_SIZE(depth) \
	(sizeof(struct prf_uchain) + sizeof(struct prf_uframe) * (depth))

struct prf_uchains {
	__u32 nr;		/* in: room in records; out: records stored */
	__u32 nfiles;		/* in: room in files; out: files stored */
	__u32 used;		/* out: chains in the table */
	__u32 files_used;	/* out: files in the table */
	__u32 depth;		/* out: the set-up's .depth */
	__u32 capacity;		/* out: the set-up's .capacity */
	__u32 flags;		/* in: 0 */
	__u32 pad;		/* in: 0 */
	__u64 dropped;		/* out: see above */
	__u64 chains;		/* user pointer to the records */
	__u64 files;		/* user pointer to struct prf_uobj_file[nfiles] */
};

#define PRF_SETUOBJS		_IOW(PRF_IOC_MAGIC, 24, struct prf_uobj_conf)
#define PRF_GETUOBJS		_IOWR(PRF_IOC_MAGIC, 25, struct prf_uobjs)
#define PRF_GETUCHAINS		_IOWR(PRF_IOC_MAGIC, 35, struct prf_uchains)

/*
 * Kernel stacks joined to user call chains (beyond prf(7)): with a stack
 * table (PRF_SETSTACKS) and a user objects table that keeps chains
 * (PRF_UOBJ_CHAINS), a sample counted in counters 0..N-1 that interrupted a
 * task in the kernel on behalf of its user code (a system call, a fault, an
 * interrupt; not a kernel thread, not a task whose address space is gone)
 * is also counted as a pair: its kernel stack, as PRF_GETSTACKS gives it,
 * and the user call chain of where that task entered the kernel (frame[0]
 * the user PC the kernel returns to, then its callers, walked and resolved
 * as the chains above).  A flame graph's path of one sample is the pair's
 * user frames, outermost first, then its kernel PCs, outermost first.  The
 * pairs are kept in a table of their own, of the chain table's capacity,
 * zeroed with the user objects table; PRF_SETSTACKS zeroes both, since the
 * pairs name its stacks.
 * PRF_GETUPAIRS fills the caller's buffers: arg points to a struct
 *		prf_upairs whose .nr says how many records .pairs has room for
 *		(a record is struct prf_upair followed by .depth __u64 kernel
 *		PCs, then .udepth struct prf_uframe: PRF_UPAIR_RECORD_SIZE(depth,
 *		udepth) bytes, with the set-ups' depths, which a call with .nr
 *		= 0 returns) and .nfiles how many struct prf_uobj_file .files
 *		has room for, filled as by PRF_GETUCHAINS.  The kernel sets .nr
 *		and .nfiles to those stored, .used and .files_used to those in
 *		the tables, .depth, .udepth and .capacity to the set-ups, and
 *		.dropped.  PCs past .nr_pcs and frames past .nr_frames are 0.
 *		EFAULT if a buffer cannot be written; EINVAL if .flags, .pad
 *		or .pad2 is not 0; EAGAIN and EINTR as PRF_GETUOBJS.  Without either
 *		table (or chains), everything 0.
 * Each such sample whose kernel stack was kept (not in PRF_GETSTACKS'
 * .dropped) ends in exactly one of: a pair, or .dropped, so once OFF and
 * read, for samples of tasks with a user context (a filter on a process
 * makes that every sample of it)
 *	sum of the pairs' counts + .dropped = sum of the kernel stacks' counts
 * since the last zeroing.
 * .dropped:	samples whose pair found the pair table full, whose CPU's
 *		ring was full, whose user PC no mapping covered when resolved,
 *		or one of whose frames' files found the file table full.
 * .nr_pcs, .kflags: the kernel stack's (struct prf_stack's .nr_pcs and
 *		.flags); .nr_frames, .uflags: the user chain's (struct
 *		prf_uchain's, .nr_frames >= 1).
 */
struct prf_upair {
	__u64 count;		/* samples with this pair */
	__u32 nr_pcs;		/* kernel PCs used */
	__u32 kflags;		/* PRF_STACK_TRUNCATED */
	__u32 nr_frames;	/* user frames used, >= 1 */
	__u32 uflags;		/* PRF_UCHAIN_TRUNCATED */
	/* followed by __u64 pc[depth], then struct prf_uframe frame[udepth] */
};

#define PRF_UPAIR_RECORD_SIZE(depth, udepth) \
	(sizeof(struct prf_upair) + 8 * (depth) + \
	 sizeof(struct prf_uframe) * (udepth))

struct prf_upairs {
	__u32 nr;		/* in: room in records; out: records stored */
	__u32 nfiles;		/* in: room in files; out: files stored */
	__u32 used;		/* out: pairs in the table */
	__u32 files_used;	/* out: files in the table */
	__u32 depth;		/* out: the stack set-up's .depth */
	__u32 udepth;		/* out: the chain set-up's .depth */
	__u32 capacity;		/* out: pairs kept at most */
	__u32 flags;		/* in: 0 */
	__u32 pad;		/* in: 0 */
	__u32 pad2;		/* in: 0 */
	__u64 dropped;		/* out: see above */
	__u64 pairs;		/* user pointer to the records */
	__u64 files;		/* user pointer to struct prf_uobj_file[nfiles] */
};

#define PRF_GETUPAIRS		_IOWR(PRF_IOC_MAGIC, 36, struct prf_upairs)

/*
 * Unwind tables (beyond prf(7)): how to find the caller of code of a file,
 * row by row, from the file's call frame information (what `prf cfi FILE`
 * shows), so that user call chains (PRF_UOBJ_CHAINS) can be walked through
 * code built without frame pointers.  A table belongs to a file (its inode:
 * the one of the path it was opened by, as the user objects table keys
 * files) and is shared by every instance: the store holds at most one table
 * a file, and a load replaces the file's table for all of them (a file's
 * CFI is the same whoever reads it).  An instance that loads a file's table
 * holds it; a table lives while an instance holds it: until each that
 * loaded it unloads it (one file, or all the instance holds), or is freed
 * (a /dev/prfclone instance with its file; every instance when the module
 * goes).  A table holds a reference on its file, as an open file would:
 * until it goes, a deleted file's blocks stay allocated.
 *
 * PRF_SETUNWIND reads a struct prf_unwind_load from arg.
 *	.fd an open file, .nr 1..PRF_UNWIND_ROWS_MAX rows at .rows: loads
 *		them as the file's table (replacing any), held by this
 *		instance.  .machine is the ELF e_machine the rows were
 *		built for, which must be the kernel's (EM_X86_64 62 on
 *		x86-64, EM_AARCH64 183 on arm64).  .flags
 *		PRF_UNWIND_FRAMEPTR says the file's code keeps frame
 *		pointers where no row covers it (below).
 *	.fd an open file, .nr 0 (.rows, .machine and .flags 0): this
 *		instance lets the file's table go (the store frees it once
 *		no instance holds it).  ENOENT if this instance holds none.
 *	.fd -1, .nr 0 (the rest 0): this instance lets every table it holds
 *		go.  Never fails but with EINVAL (other fields not 0).
 *	.fd PRF_UNWIND_VDSO: as for a file, the table of the vDSO of 64-bit
 *		tasks, which no file holds (PRF_UOBJ_VDSO): rows at the
 *		image's addresses (its offsets, as the user objects give
 *		them), built from the vDSO the kernel maps into the loader
 *		(getauxval(AT_SYSINFO_EHDR)), which is every 64-bit task's;
 *		.nr 0 lets it go (ENOENT if this instance holds none).  A
 *		module before it answers EBADF.
 *	Rows are sorted by .start, do not overlap, and cover [.start,
 *	.start + .len), .len > 0, without wrapping; in .rules bits 5-7 are 0,
 *	the RA rule is PRF_UNWIND_SAME, _AT or _UNDEF and the FP rule too;
 *	an _AT rule's offset is a multiple of 8; .flags is 0,
 *	PRF_UNWIND_ROW_STOP or PRF_UNWIND_ROW_SIGNAL (whose row's offsets
 *	and rules are 0), and .pad is 0.
 *	EBADF	.fd is not an open file (and, as for every setter, the
 *		prf descriptor not open for writing).
 *	EINVAL	.fd not a regular file, .flags or .machine wrong, a row
 *		that breaks the rules above, a field not 0 that must be.
 *	E2BIG	.nr above PRF_UNWIND_ROWS_MAX.
 *	ENOSPC	the store would pass PRF_UNWIND_BYTES_MAX bytes of rows
 *		(.nr * sizeof(struct prf_unwind_row) a table, summed over
 *		the tables loaded) or PRF_UNWIND_FILES_MAX tables.
 *	ENOMEM	memory (charged to the caller) could not be had: the
 *		rows, and an index a lookup starts from, at most a byte a
 *		row (not counted in the store's bytes).
 *	EFAULT	the rows cannot be read.
 *	EINTR	a fatal signal while the rows were read.
 *	On any error nothing changes.  Loading works ON or OFF; the chains
 *	of samples resolved after it use it.
 * PRF_GETUNWIND fills a struct prf_unwind_stat: in .fd a file (or -1, or
 *	PRF_UNWIND_VDSO: the vDSO's table);
 *	out, for that file, .nr its table's rows (0: none), .flags its
 *	PRF_UNWIND_FRAMEPTR, and PRF_UNWIND_HELD when this instance holds it,
 *	.users the instances that hold it; and .files the tables this
 *	instance holds, .store_files and .store_bytes the store's (bytes as
 *	counted against PRF_UNWIND_BYTES_MAX).  EBADF if .fd is not -1,
 *	PRF_UNWIND_VDSO nor an open file; EINVAL if .pad is not 0.  A
 *	read-only descriptor may ask.
 * A row says, for the code at file offsets [.start, .start + .len), where
 * the caller's frame is: the CFA (the caller's stack pointer at the call)
 * = SP, or FP with PRF_UNWIND_CFA_FP, + .cfa_off; the return address saved
 * at CFA + .ra_off (PRF_UNWIND_AT), still in the link register (arm64,
 * PRF_UNWIND_SAME) or undefined (PRF_UNWIND_UNDEF: the outermost frame, the
 * chain is whole); the caller's FP saved at CFA + .fp_off, unchanged, or
 * not known.  FP is rbp on x86-64, x29 on arm64.  PRF_UNWIND_ROW_STOP: the
 * rules cannot be said so (a CFA computed by an expression; x86-64's PLT,
 * whose expression is rows of its entries' two parts in the tools'
 * tables): the walk stops there, the chain truncated.
 * PRF_UNWIND_ROW_SIGNAL (its .cfa_off, .ra_off, .fp_off and .rules 0): the
 * code is a signal return trampoline, where a signal handler returns to
 * (x86-64: the C library's __restore_rt; arm64: the vDSO's
 * __kernel_rt_sigreturn), and SP points at the signal frame the kernel
 * wrote (x86-64: its struct ucontext; arm64: its siginfo, then its struct
 * ucontext).  The interrupted frame's PC, SP, FP (and arm64's link
 * register) are read from the frame's saved registers, and the walk goes
 * on from there as from the interrupted frame: its code looked up at its
 * PC, not one less, and its return address possibly still in the link
 * register.  The chain stops, truncated, where the saved registers are
 * outside the stack copy (a frame larger than the copy leaves, or a
 * handler on an alternate signal stack whose interrupted frame is on
 * another one) or the saved SP is not above the trampoline's.  Neither
 * the trampoline nor the interrupted frame is a call: in a chain both are
 * given as their address + 1, so that a reader that takes one from every
 * frame after the first finds the trampoline's first instruction and the
 * interrupted PC.  A module before PRF_UNWIND_ROW_SIGNAL refuses such a
 * row (EINVAL): the tools then load it as PRF_UNWIND_ROW_STOP.
 * PRF_UNWIND_FRAMEPTR: where no row covers a return address of the file,
 * the caller is found by its frame record (as without tables); without it,
 * and in a file with no table, the walk stops there, truncated.
 */
#define PRF_UNWIND_ROWS_MAX	1048576		/* 2^20 rows a table */
#define PRF_UNWIND_BYTES_MAX	(64 << 20)	/* of rows, every table */
#define PRF_UNWIND_FILES_MAX	16384		/* tables in the store */

#define PRF_UNWIND_FRAMEPTR	0x1	/* prf_unwind_load.flags */
#define PRF_UNWIND_HELD		0x2	/* prf_unwind_stat.flags, out */
#define PRF_UNWIND_VDSO		(-2)	/* .fd: the vDSO's table */

#define PRF_UNWIND_CFA_FP	0x1	/* rules bit 0: CFA off FP, not SP */
#define PRF_UNWIND_SAME		0	/* RA (bits 1-2), FP (bits 3-4) rules */
#define PRF_UNWIND_AT		1
#define PRF_UNWIND_UNDEF	2
#define PRF_UNWIND_RA(rules)	(((rules) >> 1) & 3)
#define PRF_UNWIND_FP(rules)	(((rules) >> 3) & 3)
#define PRF_UNWIND_RULES(cfa_fp, ra, fp) \
	((cfa_fp) | ((ra) << 1) | ((fp) << 3))
#define PRF_UNWIND_ROW_STOP	0x1	/* prf_unwind_row.flags */
#define PRF_UNWIND_ROW_SIGNAL	0x2	/* a signal return trampoline */

struct prf_unwind_row {
	__u64 start;		/* first file offset covered */
	__u32 len;		/* bytes covered, > 0 */
	__s32 cfa_off;		/* CFA = SP or FP + cfa_off */
	__s16 ra_off;		/* PRF_UNWIND_AT: RA at CFA + ra_off */
	__s16 fp_off;		/* PRF_UNWIND_AT: FP at CFA + fp_off */
	__u8 rules;		/* PRF_UNWIND_RULES() */
	__u8 flags;		/* PRF_UNWIND_ROW_STOP or _SIGNAL */
	__u16 pad;		/* 0 */
};

struct prf_unwind_load {
	__s32 fd;		/* the file, -1 (every table, .nr 0), _VDSO */
	__u32 machine;		/* ELF e_machine of the rows */
	__u32 flags;		/* PRF_UNWIND_FRAMEPTR */
	__u32 nr;		/* rows, 0: let the table go */
	__u64 rows;		/* user pointer to struct prf_unwind_row[nr] */
};

struct prf_unwind_stat {
	__s32 fd;		/* in: a file, -1, or PRF_UNWIND_VDSO */
	__u32 nr;		/* out: rows of its table, 0: none */
	__u32 flags;		/* out: PRF_UNWIND_FRAMEPTR, PRF_UNWIND_HELD */
	__u32 users;		/* out: instances that hold its table */
	__u32 files;		/* out: tables this instance holds */
	__u32 store_files;	/* out: tables in the store */
	__u64 store_bytes;	/* out: their rows' bytes */
	__u32 pad;		/* in: 0 */
	__u32 pad2;		/* out: 0 */
};

#define PRF_SETUNWIND		_IOW(PRF_IOC_MAGIC, 37, struct prf_unwind_load)
#define PRF_GETUNWIND		_IOWR(PRF_IOC_MAGIC, 38, struct prf_unwind_stat)

/*
 * Per-CPU tallies (beyond prf(7)): struct prf_info's sample tallies, CPU by
 * CPU, for a scraper's per-CPU series.
 *
 * PRF_GETCPUTALLIES fills the caller's array: arg points to a struct
 *		prf_cpu_tallies whose .nr says how many struct prf_cpu_tally
 *		.cpus has room for (0 to ask the number).  One entry per CPU
 *		the instance samples or may sample: every possible CPU for
 *		/dev/prf and a private instance on all CPUs, online or not;
 *		CPU N alone for /dev/prfN and a private instance set to it.
 *		Ascending CPU order.  The kernel sets .ncpus to that number
 *		and .nr to the entries stored (at most the room).  EINVAL if
 *		.flags or .pad is not 0; EFAULT if the array cannot be
 *		written.  A read-only descriptor may ask.
 * Each tally is the CPU's share of prf_info's (the same ticks_* summed
 * over the entries), read without stopping sampling: while ON the entries
 * are not one instant.  In PRF_MODE_TIME the samples counted in counters
 * 0..N-1 on a CPU (its kernel samples in the table) are .sampled -
 * .filtered - .user - .idle - .outside; in the other modes the tallies mean
 * what prf_info's do there.
 */
struct prf_cpu_tally {
	__u32 cpu;
	__u32 pad;
	__u64 sampled;		/* samples taken (prf_info.ticks_sampled) */
	__u64 filtered;		/* of them, of tasks the filter left out */
	__u64 user;		/* counted in counter N */
	__u64 idle;		/* counted in counter N + 1 */
	__u64 outside;		/* kernel PCs below the first address */
	__u64 lost;		/* periods a late timer missed */
	__u64 noregs;		/* periods whose tick found no registers */
	__u64 nmi;		/* samples taken in NMI (the PMU source) */
};

struct prf_cpu_tallies {
	__u32 nr;		/* in: room in cpus; out: entries stored */
	__u32 ncpus;		/* out: the entries the instance has */
	__u32 flags;		/* in: 0 */
	__u32 pad;		/* in: 0 */
	__u64 cpus;		/* user pointer to struct prf_cpu_tally[nr] */
};

#define PRF_GETCPUTALLIES	_IOWR(PRF_IOC_MAGIC, 26, struct prf_cpu_tallies)

/*
 * Modes (beyond prf(7); prof(3)'s other two): what an instance counts
 * against its table.  Set while OFF (EBUSY while ON), EINVAL for an unknown
 * mode; a new mode zeroes the counters.  The table, read(2)'s layout and
 * every ioctl keep their meaning; only the events counted change.
 *	PRF_MODE_TIME		samples of the PC (prf(7); the default).
 *	PRF_MODE_ALLOC_CALLS	kernel allocations, counted against the table
 *				entry of their call site.
 *	PRF_MODE_ALLOC_BYTES	the same, in bytes allocated.
 *	PRF_MODE_CALLS		calls of the table's functions (ftrace).
 * What counters N and N + 1 count in each mode: see below (their meaning in
 * PRF_MODE_TIME is prf(7)'s: user and idle ticks).
 *
 * PRF_GETSITES (alloc modes) fills the caller's array with the details of
 *		every counter: arg points to a struct prf_sites whose .nr says
 *		how many entries .sites has room for; entry i belongs to
 *		counter i of read(2) (so N + 2 entries in all).  An entry is a
 *		struct prf_site, or with PRF_SITES_V2 in .flags a struct
 *		prf_site2 (the same five counts, then the frees prf did not
 *		see); other .flags bits are EINVAL.  The kernel sets .nr to the
 *		entries stored (min(room, N + 2)).  ENXIO when not loaded,
 *		EINVAL in the other modes, EFAULT if the array cannot be
 *		written, ENOMEM when the kernel's copy of the entries cannot
 *		be allocated.  The bytes the allocations made while counting still
 *		hold, as far as prf can tell:
 *			bytes_held = bytes_alloc - bytes_freed - bytes_unseen
 *		(struct prf_site has no bytes_unseen: what its caller takes
 *		as held includes the frees prf did not see).
 */
struct prf_site {
	__u64 allocs;		/* allocations */
	__u64 bytes_req;	/* bytes requested */
	__u64 bytes_alloc;	/* bytes allocated (slab object size) */
	__u64 frees;		/* frees of these allocations seen */
	__u64 bytes_freed;	/* bytes_alloc of those */
};

/*
 * frees_unseen counts the allocations of the entry whose free prf did not
 * see, found when their address was allocated again (see "The modes in
 * detail": which frees those are); bytes_unseen is their bytes_alloc.
 */
struct prf_site2 {
	__u64 allocs;		/* as struct prf_site */
	__u64 bytes_req;
	__u64 bytes_alloc;
	__u64 frees;
	__u64 bytes_freed;
	__u64 frees_unseen;	/* allocations freed where prf could not see */
	__u64 bytes_unseen;	/* bytes_alloc of those */
};

#define PRF_SITES_V2		0x1	/* prf_sites.flags: struct prf_site2 */

struct prf_sites {
	__u32 nr;		/* in: room in sites; out: entries stored */
	__u32 flags;		/* in: 0 or PRF_SITES_V2 */
	__u64 sites;		/* user pointer to struct prf_site[nr] or */
				/* struct prf_site2[nr] (PRF_SITES_V2) */
};

#define PRF_GETSITES		_IOWR(PRF_IOC_MAGIC, 21, struct prf_sites)

/*
 * The modes in detail.
 *
 * Alloc modes (PRF_MODE_ALLOC_CALLS, PRF_MODE_ALLOC_BYTES): every kernel
 * slab allocation (kmalloc(), kmem_cache_alloc() and their node and large
 * variants: the kmalloc and kmem_cache_alloc tracepoints) made while ON is
 * counted against the entry of the largest table address <= its call site
 * (the caller of the allocator, as the tracepoints report it): one per
 * allocation, or its bytes allocated.  Counter N: allocations whose call
 * site is below the table's first address; counter N + 1: failed
 * allocations (in bytes: the bytes requested).  bytes_alloc is what the
 * kmalloc tracepoint reports (the slab's object stride) for kmalloc(); for
 * kmem_cache_alloc() it is the cache's object size (kmem_cache_size()),
 * without debugging metadata, as a module cannot see more.  Frees (kfree(),
 * kmem_cache_free()) are matched to their allocation by its pointer in a
 * hash of the allocations made while ON (module parameter live_slots,
 * default 65536 slots of 24 bytes per instance in an alloc mode, allocated
 * by PRF_SETMODE; at most 16 probes per allocation and per free): a free
 * counts in .frees and .bytes_freed of its allocation's entry, whatever
 * task or CPU frees it.  Allocations of an earlier ON period or before a
 * PRF_CLEAR are forgotten at ON and at the clear: their frees count
 * nowhere.  mode_dropped counts the allocations counted that found the
 * hash full (their free will not be seen, so bytes_held overstates).
 * /dev/prfN counts the allocations made on CPU N; the filter applies to
 * the allocating task.
 *
 * Frees prf cannot see: those that fire neither the kfree nor the
 * kmem_cache_free tracepoint.  On the kernels read for it (6.1, 6.12 and
 * 7.3) they are kmem_cache_free_bulk() and kfree_bulk(); kfree_rcu() and
 * kvfree_rcu() when their batch is freed by kfree_bulk() or, on 7.3,
 * through the cache's RCU sheaf (only objects queued one by one on their
 * rcu_head, when no batch page could be had, end in kfree() and are seen);
 * and on 7.3 kfree_nolock() (of kmalloc_nolock() objects, whose allocation
 * fires no tracepoint either, like kmem_cache_alloc_bulk()'s).  Such an
 * allocation stays live in the hash until its address is allocated again:
 * any allocation the tracepoints report at an address that is live,
 * counted or not (another CPU's, a task the filter leaves out), ends the
 * old allocation there, which counts in .frees_unseen and .bytes_unseen of
 * its entry (once: an address is live in the hash at most once, so the
 * next free of it is the new allocation's).  Until then bytes_held counts
 * it.  An allocation that fires no tracepoint (kmem_cache_alloc_bulk()) at
 * such an address takes nothing over, and its free, when seen, counts as
 * the old allocation's.
 *
 * PRF_MODE_CALLS: every call of a function whose entry is a table address
 * is counted against it (an ftrace_ops filtered to the table's addresses:
 * addresses that are no traceable function's first byte are not traced,
 * and a bucket table counts the calls of the function each bucket starts).
 * Counter N (and ticks_user): the number of table addresses ftrace refused
 * (no traceable function's entry: init, entry and noinstr text, notrace
 * functions, padding), found at ON; not calls, so ticks_sampled ==
 * ticks_total + ticks_filtered - counter N; PRF_CLEAR while ON keeps it,
 * while OFF zeroes it.  Counter N + 1: 0.  /dev/prfN counts the calls made
 * on CPU N; the filter applies to the calling task (the idle task and code
 * RCU does not watch match no cgroup filter).  The cost of ON is linear in
 * the table (a table of every kernel function, tens of thousands of
 * addresses: seconds in an emulated guest, most of them ftrace's patching
 * of the call sites), and a fatal signal stops it: PRF_SETSTATE then fails
 * with EINTR, leaving the instance OFF as it was.  EAGAIN: the traceable
 * functions changed (a module unloaded) while ON was being set up, three
 * times in a row; nothing changed.
 *
 * PRF_MODE_OFFCPU: the time tasks spend off a CPU, in nanoseconds of
 * CLOCK_MONOTONIC.  A wait starts when a task the filter passes is switched
 * out (the sched_switch tracepoint) on a CPU the instance covers and ends
 * when it is next switched in, on any CPU.  A task switched out while
 * runnable (preempted, yielding, or left runnable by a signal pending as
 * it went to sleep) waits for a CPU only: the whole wait
 * counts in counter N + 1.  A task switched out blocked (sleeping, waiting
 * for a lock, I/O, a page) is blocked until the wake-up that makes it
 * runnable (the sched_wakeup tracepoint), then waits for a CPU: the
 * blocked part counts against the entry of the largest table address <=
 * its blocking site, the runnable part in counter N + 1.  The blocking site
 * is the first return address on the task's kernel stack, walking outward
 * from the switch, that is outside the scheduler's text (PRF_SETSCHEDTEXT)
 * and outside prf: for msleep(), the return address in msleep() of its
 * call of schedule_timeout().  Counter N: blocked time whose site is below
 * the table's first address, or that has none: no such frame in the first
 * 112, or no scheduler's text given (PRF_SETSCHEDTEXT), since a module
 * cannot read it.  With a
 * stack table (PRF_SETSTACKS) the blocked part counts also against the
 * kernel stack from the site outward (a stack's count is then nanoseconds;
 * runnable waits have no stack).  The idle task never waits; a task exiting is not
 * counted after its last switch.  Waits in progress at OFF, ON or
 * PRF_CLEAR count nowhere.  /dev/prfN counts the waits that start on CPU
 * N.  A waiting task is held in a table of the instance (module parameter
 * offcpu_slots, default 16384 tasks of 40 bytes, allocated by PRF_SETMODE);
 * a wait that finds it full is not counted, and counts in mode_dropped
 * (waits, not nanoseconds).  Only the waits of tasks the filter passes take
 * a place in it: with a filter, the machine's other sleeping tasks,
 * however many, leave room for the filtered ones.  ticks_sampled is the
 * nanoseconds of the waits that ended (both parts); ticks_filtered is 0,
 * since a task the filter leaves out is not timed (ticks_sampled ==
 * ticks_total + ticks_filtered holds, as in the other event modes).
 *
 * PRF_SETSCHEDTEXT: the scheduler's text, [start, end): the kernel's
 *		__sched_text_start and __sched_text_end (/proc/kallsyms), the
 *		functions the kernel marks as waiting for others.  While OFF
 *		(EBUSY while ON); EINVAL when start > end, or when only one of
 *		them is 0; both 0 unset it.  It survives loads, clears and
 *		PRF_SETMODE.  PRF_GETSCHEDTEXT reads it back.
 *
 * In every mode but time, prf_info's ticks_* count events in the mode's
 * unit (allocations, bytes, calls, nanoseconds): ticks_sampled the events
 * seen on the CPUs covered, ticks_filtered those the filter left out,
 * ticks_user and ticks_idle counters N and N + 1, ticks_outside, ticks_lost
 * and ticks_noregs 0, and ticks_total the sum of the N + 2 counters.
 *
 * What a kernel lacks: PRF_SETMODE fails with EOPNOTSUPP for the alloc
 * and offcpu modes without CONFIG_TRACEPOINTS and for the calls mode
 * without CONFIG_DYNAMIC_FTRACE; turning ON fails with the kernel's error
 * when the probes cannot be registered (ENODEV: ftrace disabled, or no
 * sched_switch or sched_wakeup tracepoint), leaving it OFF.
 */
#define PRF_MODE_TIME		0
#define PRF_MODE_ALLOC_CALLS	1
#define PRF_MODE_ALLOC_BYTES	2
#define PRF_MODE_CALLS		3
#define PRF_MODE_OFFCPU		4

struct prf_text_range {
	__u64 start;		/* first byte */
	__u64 end;		/* one past the last byte */
};

#define PRF_SETSCHEDTEXT	_IOW(PRF_IOC_MAGIC, 22, struct prf_text_range)
#define PRF_GETSCHEDTEXT	_IOR(PRF_IOC_MAGIC, 23, struct prf_text_range)

#define PRF_SETMODE		_IOW(PRF_IOC_MAGIC, 19, __u32)
#define PRF_GETMODE		_IOR(PRF_IOC_MAGIC, 20, __u32)

/*
 * Sources (beyond prf(7)): what takes the samples of PRF_MODE_TIME.  The
 * event modes count their own events whatever the source.
 *	PRF_SOURCE_TIMER	a per-CPU timer, hz (PRF_SETHZ) samples a second
 *				placed as the flags say (prf(7); the default).
 *	PRF_SOURCE_PMU		a hardware performance counter per CPU,
 *				through the kernel's perf events: one sample
 *				every .period events of .event counted on
 *				that CPU or, with .period 0, about hz a second
 *				(the kernel adjusts the period as it goes, as
 *				perf record -F does; PRF_FLAG_FIXED and the
 *				stagger do not apply).  A table, the filter,
 *				the per-process tally, stacks and PRF_SETCPU
 *				work as with the timer.
 * The PMU's overflow interrupt is an NMI on x86 and on arm64 kernels with
 * pseudo-NMI (CONFIG_ARM64_PSEUDO_NMI, irqchip.gicv3_pseudo_nmi=1): then
 * code that runs with interrupts disabled is sampled where it runs, which
 * the timer cannot do (its samples land where interrupts come back on).
 * Elsewhere (arm64 without pseudo-NMI) the overflow is an ordinary
 * interrupt, held off like the timer's: prf_info.samples_nmi says which.
 * The events (PRF_EVENT_*) are perf's generic hardware events of the same
 * names: CPU cycles, instructions retired, cache misses (last level),
 * branches mispredicted, reference cycles (a clock that does not scale with
 * the CPU's frequency; x86).  Cycles stop while a CPU sleeps in its idle
 * state on most hardware, so idle gets few samples.
 *
 * PRF_SETSOURCE reads a struct prf_source from arg: for PRF_SOURCE_TIMER
 *		.event and .period 0; for PRF_SOURCE_PMU .event one of
 *		PRF_EVENT_* and .period 0 or PRF_PERIOD_MIN..PRF_PERIOD_MAX;
 *		.flags and .pad 0.  EINVAL otherwise; EBUSY while ON (the
 *		input is checked first).  Zeroes the counters; the source
 *		survives loads, clears, PRF_SETHZ and PRF_SETMODE.  Whether
 *		the machine has the event is found at ON.
 * PRF_GETSOURCE fills a struct prf_source with the instance's set-up.
 * PRF_GETEVENTS stores a __u32 at arg: bit (1 << PRF_EVENT_x) set for each
 *		event this machine's PMU can sample (a counter of it is made on
 *		an online CPU and released); 0 with no PMU.
 *
 * Turning ON with the PMU source (PRF_SETSTATE, sysfs "start") makes a
 * counter on every CPU the instance samples, and a CPU that comes online
 * while ON gets its own (its counter is released when it goes offline).
 * When a counter cannot be made, ON fails and the instance stays OFF with
 * nothing else changed:
 *	ENODEV		no PMU of this machine counts the event: a virtual
 *			machine without a PMU (every x86 guest of QEMU's
 *			TCG), or an event this PMU does not have.
 *	EOPNOTSUPP	the PMU counts the event but cannot interrupt on its
 *			overflow, or the kernel has no perf events
 *			(CONFIG_PERF_EVENTS).
 *	other		the kernel's error (ENOMEM, ...).
 * The counters are not pinned: other users of the PMU (perf record, perf
 * stat) share it, and while the kernel multiplexes a prf counter out it
 * counts nothing.  prf_info says for how long (pmu_enabled_ns against
 * pmu_running_ns), and how often perf's limit on the rate of samples
 * (kernel.perf_event_max_sample_rate) stopped a counter until the CPU's
 * next scheduler tick, or the sample budget held one with a period until
 * its next check ("The sample budget", above) (pmu_throttled): time in
 * which no sample was taken.
 */
#define PRF_SOURCE_TIMER	0
#define PRF_SOURCE_PMU		1

#define PRF_EVENT_CYCLES	0
#define PRF_EVENT_INSTRUCTIONS	1
#define PRF_EVENT_CACHE_MISSES	2
#define PRF_EVENT_BRANCH_MISSES	3
#define PRF_EVENT_REF_CYCLES	4
#define PRF_NR_EVENTS		5

#define PRF_PERIOD_MIN		10000		/* events a sample, at least */
#define PRF_PERIOD_MAX		0x10000000000ULL	/* 2^40 */

struct prf_source {
	__u32 source;		/* PRF_SOURCE_* */
	__u32 event;		/* PRF_EVENT_*: PMU only */
	__u64 period;		/* events a sample; 0: about hz a second */
	__u32 flags;		/* 0 */
	__u32 pad;		/* 0 */
};

#define PRF_SETSOURCE		_IOW(PRF_IOC_MAGIC, 32, struct prf_source)
#define PRF_GETSOURCE		_IOR(PRF_IOC_MAGIC, 33, struct prf_source)
#define PRF_GETEVENTS		_IOR(PRF_IOC_MAGIC, 34, __u32)

#define PRF_INFO_VERSION	6

/*
 * struct prf_info - what an instance knows about itself (kprof(3)'s header).
 *
 * The caller sets .size to sizeof(struct prf_info) as it knows it (at least
 * PRF_INFO_SIZE_V1, else EINVAL); the kernel fills min(.size, its own size)
 * bytes and sets .size to the number of bytes it filled, so old programs keep
 * working when fields are appended.
 *
 * Counts are ticks since the table was loaded, last cleared, or given a
 * filter or a CPU, summed over the CPUs covered.  When OFF they satisfy
 *	ticks_total == sum of the N + 2 counters + ticks_outside
 * with ticks_user and ticks_idle equal to counters N and N + 1.  ticks_lost
 * counts periods in which no sample was taken because the timer ran late
 * (or the PMU's interrupt: version 6)
 * (those whose sample was due when sampling was turned OFF included);
 * ticks_noregs (version 2) counts periods whose timer ran but found no
 * interrupted register state to sample (get_irq_regs() gave nothing);
 * ticks_filtered (version 3) counts samples of tasks the filter left out
 * (always 0 without a filter): all three are in no other count, so every
 * period covered is in exactly one of ticks_total, ticks_filtered,
 * ticks_lost and ticks_noregs.  ticks_sampled (version 2) counts the samples
 * taken, separately: once per sample, before the filter and before its PC is
 * attributed to a counter, so when OFF
 *	ticks_sampled == ticks_total + ticks_filtered
 * checks that every sample landed in exactly one counter.  tasks_dropped
 * (version 3) is prf_tasks.dropped (0 without a per-process tally).
 * Version 4: stacks_dropped, stack_depth and stack_capacity describe the
 * stack table (PRF_SETSTACKS; all 0 without one), mode is PRF_GETMODE's
 * and mode_dropped counts events of the alloc modes whose allocation could
 * not be tracked until its free (0 in the other modes).  on_ns
 * is the time sampling has been ON since the load or the last clear (summed
 * once, not per CPU).  ncpus is the number of online CPUs the instance
 * samples: for /dev/prf (and a private instance on all CPUs) the online CPUs
 * less the isolated ones unless PRF_FLAG_ISOLATED; for /dev/prfN (and a
 * private instance on CPU N) 1 while CPU N is online, else 0.
 *
 * Version 5: sample_budget is the module parameter sample_budget (samples
 * per second per CPU) and budget_used the samples per second charged to
 * the busiest of the CPUs the instance samples (those charged while it is
 * ON in the time mode, its own rate included, else those it would charge
 * at ON): it can be turned ON at a rate up to sample_budget - budget_used.
 *
 * mem_bytes (0 when not loaded) is 24 N + 4 bytes of addresses, counters and
 * lookup index, a table header of less than 128 bytes, and the counts kept
 * outside the table, a set of at most 64 bytes (8 per count): one set for
 * /dev/prfN, one per possible CPU for /dev/prf, both for a private instance
 * (whatever its CPU).  /dev/prfN holds nothing per CPU.  The per-process
 * tally (PRF_SETTASKS) is not counted, nor is the stack table
 * (PRF_SETSTACKS: PRF_STACK_RECORD_SIZE(depth) bytes per stack of its
 * capacity, and an index of 4 to 8 bytes per stack).
 *
 * Version 6: source, event and period are PRF_GETSOURCE's.  samples_nmi
 * counts the samples of ticks_sampled whose interrupt was an NMI (the PMU
 * source where its overflow is one; see "Sources").  With the PMU source,
 * pmu_count is the events the counters counted while ON, pmu_enabled_ns
 * the time they were on, summed over the CPUs, and pmu_running_ns the part
 * of it they counted in: the rest they were multiplexed out by other perf
 * users, and took no sample (and, with a period, the sample budget's hold
 * does not count as on).  pmu_throttled counts the times perf's rate
 * limit stopped a counter until its CPU's next tick, and the budget's
 * checks that found a counter held ("The sample budget"); pmu_cpus is
 * the number of CPUs with a counter now (ncpus while ON, unless a CPU that
 * came online could not have one; 0 while OFF).  With the PMU source and a period,
 * ticks_lost is the periods counted with no sample, pmu_count / period less
 * ticks_sampled: the overflow interrupt came a period or more after the
 * overflow (held off by code that runs with interrupts disabled, where it
 * is no NMI), and the periods it missed had no sample; so every period
 * counted is still in one of ticks_total, ticks_filtered and ticks_lost.
 * With a rate instead (period 0) the periods vary, and ticks_lost stays 0.
 * ticks_noregs stays 0.  With the timer the pmu_* fields are 0.
 */
struct prf_info {
	__u32 size;		/* in: caller's sizeof; out: bytes filled */
	__u32 version;		/* PRF_INFO_VERSION */
	__u32 status;		/* PRF_STATUS_* */
	__u32 flags;		/* PRF_FLAG_* */
	__u32 hz;		/* sampling rate */
	__u32 usec_per_tick;	/* 1000000 / hz, rounded down */
	__s32 cpu;		/* CPU profiled, or -1 for all CPUs */
	__u32 ncpus;		/* online CPUs sampled (see above) */
	__u64 naddrs;		/* N (0 when not loaded) */
	__u64 max_addrs;	/* PRF_GETMAX */
	__u64 ticks_total;	/* samples taken */
	__u64 ticks_outside;	/* kernel PC below the first address */
	__u64 ticks_user;	/* = counter N */
	__u64 ticks_idle;	/* = counter N + 1 */
	__u64 ticks_lost;	/* periods missed by a late timer */
	__u64 on_ns;		/* time spent ON */
	__u64 mem_bytes;	/* kernel memory held by the table and counters */
	/* version 2 */
	__u64 ticks_sampled;	/* samples taken, counted before attribution */
	__u64 ticks_noregs;	/* periods with no interrupted registers */
	/* version 3 */
	__u64 ticks_filtered;	/* samples of tasks the filter left out */
	__u64 tasks_dropped;	/* samples not tallied: PRF_GETTASKS full */
	/* version 4 */
	__u64 stacks_dropped;	/* = prf_stacks.dropped */
	__u32 stack_depth;	/* PRF_SETSTACKS set-up, 0 = off */
	__u32 stack_capacity;
	__u32 mode;		/* PRF_MODE_* */
	__u32 pad4;		/* 0 */
	__u64 mode_dropped;	/* events the mode could not track (per mode) */
	/* version 5 */
	__u32 sample_budget;	/* module parameter: samples/s per CPU */
	__u32 budget_used;	/* samples/s charged to its busiest CPU */
	/* version 6 */
	__u32 source;		/* PRF_SOURCE_* (PRF_GETSOURCE) */
	__u32 event;		/* PRF_EVENT_* of the PMU source */
	__u64 period;		/* events a sample, 0: about hz a second */
	__u64 samples_nmi;	/* of ticks_sampled, those taken in NMI */
	__u64 pmu_count;	/* events the counters counted while ON */
	__u64 pmu_enabled_ns;	/* time the counters were on, all CPUs */
	__u64 pmu_running_ns;	/* of which they counted */
	__u64 pmu_throttled;	/* times a counter was stopped: perf, budget */
	__u32 pmu_cpus;		/* CPUs with a counter now */
	__u32 pad5;		/* 0 */
};

#define PRF_INFO_SIZE_V1	104	/* sizeof(struct prf_info) of version 1 */
#define PRF_INFO_SIZE_V2	120	/* sizeof(struct prf_info) of version 2 */
#define PRF_INFO_SIZE_V3	136	/* sizeof(struct prf_info) of version 3 */
#define PRF_INFO_SIZE_V4	168	/* sizeof(struct prf_info) of version 4 */
#define PRF_INFO_SIZE_V5	176	/* sizeof(struct prf_info) of version 5 */
#define PRF_INFO_SIZE_V6	240	/* sizeof(struct prf_info) of version 6 */

#endif /* _UAPI_LINUX_PRF_H */
