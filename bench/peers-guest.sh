#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/peers-guest.sh - prf's event modes against their strongest peers,
# run INSIDE one guest (bench/peers.sh boots it), one contender at a time.
#
# Prints "RESULT part=P contender=C rep=R elapsed_ns=... counted=N
# expected=M" lines, META lines, and "BENCH-DONE fail=F".  A contender
# that fails to run or counts fewer events than the workload made is a
# BENCH-FAIL line (and fail=1).
#
#   PEERS_CALLS   calls contenders (workload kernel), any of:
#                   none      the workload alone
#                   prf       prf's calls mode on a table of exactly CALL_FUNCS
#                   fentry    bpftrace kfunc: (fentry, BPF trampolines) probes
#                   kprobe    bpftrace kprobe: probes (as bench/guest.sh's bpfcalls)
#                 both bpftrace ones count @[probe] (bpftrace 0.17 has no func
#                 builtin in kfunc: probes; the bench's bpfcalls keys on func)
#                   funcprof  ftrace's function profiler (function_profile_enabled)
#   PEERS_ALLOC   alloc contenders (workload files), any of:
#                   none      the workload, /proc/sys/vm/mem_profiling 0
#                   allocinfo the workload, mem_profiling 1 (/proc/allocinfo)
#                   prfalloc  prf's alloc-calls mode (full table), mem_profiling 0
#   PEERS_REPS    rounds over each list (contenders interleaved; medians)
#   PEERS_ITERS_kernel, PEERS_ITERS_files   iterations per worker
#
# Every calls contender counts the same functions; a kernel round calls
# CALLS_PER_ROUND of them (read of /dev/zero: ksys_read, vfs_read,
# read_zero; write to the pipe: ksys_write, vfs_write, pipe_write; read of
# the pipe: ksys_read, vfs_read, pipe_read), so each must count at least
# CALLS_PER_ROUND x iterations x CPUs calls (the guest's other tasks add a
# few).  A files round makes several allocations: prfalloc must count at
# least one a round; allocinfo's counts are of live allocations, so its
# check is apart (META allocinfo_check): files kept in a tmpfs while it is
# on must raise the live counts at their inode and dentry call sites (by
# 90 % of the files at least: other tasks free meanwhile).

B=$(cd "$(dirname "$0")" && pwd)/out
WORK=$B/work
CTL=$B/prfctl
PCTL=$B/peersctl
CALL_FUNCS="ksys_read ksys_write vfs_read vfs_write read_zero pipe_read pipe_write"
# 6.15 renamed the pipe's read and write (anon_pipe_read, anon_pipe_write)
if ! grep -q ' [tT] pipe_read$' /proc/kallsyms; then
	CALL_FUNCS=$(echo $CALL_FUNCS | sed 's/pipe_read/anon_pipe_read/; s/pipe_write/anon_pipe_write/')
fi
CALLS_PER_ROUND=9
: "${PEERS_CALLS:=none prf fentry kprobe}" "${PEERS_ALLOC:=}" "${PEERS_REPS:=3}"
: "${PEERS_ITERS_kernel:=5000}" "${PEERS_ITERS_files:=300}"
fail=0

say() { echo "peers: $*" >&2; }
bad() { echo "BENCH-FAIL $*"; fail=1; }

T=/sys/kernel/tracing
[ -e $T/set_ftrace_filter ] || T=/sys/kernel/debug/tracing
MP=/proc/sys/vm/mem_profiling

# key VALUE-LIST KEY: the value of KEY= in a line of key=value words
key() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -n1; }

# The known state every contender starts from: prf OFF in time mode with
# no filter, ftrace's profiler off and its filter empty, no bpftrace.
known_state() {
	"$CTL" off /dev/prf 2>/dev/null
	"$CTL" mode /dev/prf time || bad "prf mode time"
	"$CTL" filter /dev/prf none || bad "prf filter none"
	if [ -e $T/function_profile_enabled ]; then
		echo 0 >$T/function_profile_enabled
		: >$T/set_ftrace_filter
	fi
	pidof bpftrace >/dev/null && bad "a bpftrace still runs"
}

# timed TAG CMD...: runs CMD (a workload, possibly under a tool), keeps its
# whole output in /tmp/out and its elapsed_ns line in $LAST
timed() {
	tag=$1; shift
	"$@" >/tmp/out 2>/tmp/err
	LAST=$(grep '^elapsed_ns=' /tmp/out | tail -n1)
	[ -n "$LAST" ] || { bad "$tag: $(tail -n3 /tmp/err | tr '\n' ' ')"; return 1; }
}

# emit PART C REP COUNTED EXPECTED: the RESULT line, and the check
emit() {
	echo "RESULT part=$1 contender=$2 rep=$3 $LAST counted=$4 expected=$5"
	[ "$4" -ge "$5" ] || bad "part=$1 contender=$2 rep=$3: counted $4, the workload made at least $5"
}

# bpftrace's "@[name]: N" lines, summed
bpf_sum() { sed -n 's/^@\[[^]]*\]: *\([0-9]*\)$/\1/p' /tmp/out | awk '{ s += $1 } END { print s + 0 }'; }

calls_one() {	# contender rep
	c=$1 rep=$2 n=$PEERS_ITERS_kernel
	known_state
	cpus=$(nproc)
	exp=$((CALLS_PER_ROUND * n * cpus))
	case $c in
	none)
		timed "$c" "$WORK" kernel "$n" && emit calls "$c" "$rep" "$exp" "$exp" ;;
	prf)
		"$PCTL" calltable /dev/prf $CALL_FUNCS >/dev/null 2>/tmp/err &&
			"$CTL" mode /dev/prf calls 2>>/tmp/err && "$CTL" on /dev/prf 2>>/tmp/err ||
			{ bad "prf calls: table, mode or on: $(tr '\n' ' ' </tmp/err)"; return; }
		timed "$c" "$WORK" -p /dev/prf kernel "$n" &&
			emit calls "$c" "$rep" "$(key "$LAST" prf_total)" "$exp"
		"$CTL" off /dev/prf ;;
	fentry|kprobe)
		k=$c
		[ $c = fentry ] && k=kfunc	# bpftrace 0.17's name for fentry
		p=$(echo $CALL_FUNCS | sed "s/\([^ ]*\)/$k:\1/g; s/ /,/g")
		timed "$c" bpftrace -e "$p { @[probe] = count(); }" -c "$WORK kernel $n" &&
			emit calls "$c" "$rep" "$(bpf_sum)" "$exp" ;;
	funcprof)
		[ -e $T/function_profile_enabled ] ||
			{ bad "no function profiler (CONFIG_FUNCTION_PROFILER)"; return; }
		for f in $CALL_FUNCS; do echo "$f" >>$T/set_ftrace_filter; done
		[ "$(grep -c . $T/set_ftrace_filter)" = "$(echo $CALL_FUNCS | wc -w)" ] ||
			{ bad "set_ftrace_filter: $(cat $T/set_ftrace_filter | tr '\n' ' ')"; return; }
		echo 1 >$T/function_profile_enabled || { bad "function_profile_enabled"; return; }
		timed "$c" "$WORK" kernel "$n"
		rc=$?
		echo 0 >$T/function_profile_enabled
		[ $rc = 0 ] || return
		hits=$(cat $T/trace_stat/function* | awk -v fs=" $CALL_FUNCS " '
			index(fs, " " $1 " ") && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }')
		: >$T/set_ftrace_filter
		emit calls "$c" "$rep" "$hits" "$exp" ;;
	*)
		bad "unknown calls contender $c" ;;
	esac
}

# live LINE-PATTERN: the sum of /proc/allocinfo's live-call counts of the
# lines matching the pattern
live() { grep -E "$1" /proc/allocinfo | awk '{ s += $2 } END { print s + 0 }'; }

allocinfo_check() {	# files kept while mem_profiling is 1 raise the live counts
	k=200
	echo 1 >$MP
	d=/tmp/peers-kept
	mkdir -p $d
	i0=$(live 'func:shmem_alloc_inode')
	d0=$(live 'func:__d_alloc')
	i=0
	while [ $i -lt $k ]; do : >$d/f$i; i=$((i + 1)); done
	i1=$(live 'func:shmem_alloc_inode')
	d1=$(live 'func:__d_alloc')
	rm -rf $d
	echo 0 >$MP
	echo "META allocinfo_check files=$k shmem_alloc_inode=$((i1 - i0)) __d_alloc=$((d1 - d0))"
	# live counts: other tasks may free one of these meanwhile
	[ $((10 * (i1 - i0))) -ge $((9 * k)) ] && [ $((10 * (d1 - d0))) -ge $((9 * k)) ] ||
		bad "allocinfo counted $((i1 - i0)) inodes and $((d1 - d0)) dentries for $k files kept"
}

alloc_one() {	# contender rep
	c=$1 rep=$2 n=$PEERS_ITERS_files
	known_state
	cpus=$(nproc)
	case $c in
	none)
		echo 0 >$MP
		timed "$c" "$WORK" files "$n" && emit alloc "$c" "$rep" "$n" "$n" ;;
	allocinfo)
		echo 1 >$MP
		timed "$c" "$WORK" files "$n" && emit alloc "$c" "$rep" "$n" "$n"
		echo 0 >$MP ;;
	prfalloc)
		echo 0 >$MP
		"$CTL" mode /dev/prf alloc-calls && "$CTL" on /dev/prf ||
			{ bad "prf alloc-calls: mode or on"; return; }
		timed "$c" "$WORK" -p /dev/prf files "$n" &&
			emit alloc "$c" "$rep" "$(key "$LAST" prf_total)" "$((n * cpus))"
		"$CTL" off /dev/prf ;;
	*)
		bad "unknown alloc contender $c" ;;
	esac
}

# Booted with maxcpus=1 (as bench.sh): bring the other CPUs up now.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$f")" = 1 ] || echo 1 >"$f" || bad "cannot online $f"
done
echo "META funcs=$(echo $CALL_FUNCS | tr ' ' ,)"
echo "META kernel=$(uname -r) cpus=$(nproc) reps=$PEERS_REPS iters_kernel=$PEERS_ITERS_kernel iters_files=$PEERS_ITERS_files calls_per_round=$CALLS_PER_ROUND"
[ -e /dev/prf ] || bad "/dev/prf missing (prf.ko not loaded)"
known_state

# rounds WHAT FN CONTENDER...: PEERS_REPS rounds, each running FN once for
# every contender in turn (interleaved, so that a drift of the guest
# touches them all alike).
rounds() {
	what=$1 fn=$2
	shift 2
	rep=1
	while [ $rep -le "$PEERS_REPS" ]; do
		for c in "$@"; do
			say "$what $c #$rep"
			"$fn" "$c" $rep
		done
		rep=$((rep + 1))
	done
}

if [ -n "$PEERS_CALLS" ]; then
	"$WORK" kernel "$PEERS_ITERS_kernel" >/dev/null	# warm-up, untimed
	rounds calls calls_one $PEERS_CALLS
fi

if [ -n "$PEERS_ALLOC" ]; then
	[ -w $MP ] || bad "$MP missing or read-only (CONFIG_MEM_ALLOC_PROFILING)"
	echo "META mem_profiling_at_boot=$(cat $MP)"
	case " $PEERS_ALLOC " in *" prfalloc "*)
		echo "META table $("$CTL" loadall /dev/prf)" || bad "prfctl loadall" ;;
	esac
	case " $PEERS_ALLOC " in *" allocinfo "*) allocinfo_check ;; esac
	echo 0 >$MP
	"$WORK" files "$PEERS_ITERS_files" >/dev/null	# warm-up, untimed
	rounds alloc alloc_one $PEERS_ALLOC
	echo 1 >$MP	# as booted
fi
known_state
echo "BENCH-DONE fail=$fail"
exit $fail
