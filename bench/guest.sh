#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest.sh - the bench's driver, run INSIDE the guest (see bench.sh).
#
# Runs every contender at every rate on every workload, one at a time (never
# two samplers at once), and prints one "RESULT key=value..." line per run,
# "META key=value..." lines, and function distributions between
# "BEGIN-DIST tag rep=K" and "END-DIST" lines (every round's, so that a
# distance between two of them has a spread too).  bench.sh turns these into the
# table.  Settings come from the environment (bench.sh sets them):
#
#   BENCH_MODE        main | procprofile (the boot with profile=2)
#   BENCH_RATES       e.g. "100 1000 10000"
#   BENCH_WORKLOADS   e.g. "kernel user mixed"
#   BENCH_CONTENDERS  e.g. "none floor prf3 prffull perf bpf bpf1"; with
#                     stacks: prfstk16 prfstk64 (the full table and a
#                     stack table of that depth), perfg (perf record -g);
#                     user objects: prfuobj (prffull and the user objects
#                     table, UOBJ_CAP entries and UOBJ_FILES files),
#                     perfrep (perf record, then perf report --stdio of
#                     its file, timed apart: META perfrep); user call
#                     chains: prfuchain (prfuobj and the table's chains,
#                     PRF_UOBJ_CHAINS of depth UCHAIN_DEPTH), perfrepg
#                     (perf record -g, then perf report --stdio of its
#                     file, timed apart: META perfrepg);
#                     user chains end to end, each the strongest way its
#                     tool takes whole chains of a program, the
#                     workload the command it runs: prfrecfp (prf record
#                     -g --unwind fp: frame records; work keeps them),
#                     prfreccfi (prf record -g: unwind tables, a 4 KiB
#                     stack copy a sample), perfdwarf (perf record
#                     --call-graph dwarf: 8 KiB a sample into perf.data,
#                     then perf report --stdio timed apart: META
#                     perfdwarf); each run's samples of work and those
#                     whose chain is whole (through main) in META chains;
#                     the other modes, each on its own workload and at no
#                     rate: prfalloc and bpfalloc (allocations by call
#                     site, workload files), prfcalls and bpfcalls (calls
#                     of CALL_FUNCS, workload kernel); time off a CPU,
#                     workload switch, no rate: prfoffcpu (the offcpu
#                     mode on the full table), prfoffstk (the same and a
#                     stack table of depth 16), bpfoffcpu (bpftrace at
#                     sched_switch, OFFCPU_BT), perfsched (perf sched
#                     record)
#   BENCH_ITERS_<workload>  iterations per worker
#   BENCH_REPS        rounds of the contenders' list (runs of each contender,
#                     rate and workload, interleaved)
#   BENCH_DIST_RATE   the rate whose kernel-workload runs give the
#                     distributions compared (prf vs perf)
#   BENCH_SIZES       1: measure snapshot and perf.data sizes
#   BENCH_OFFCPU_SECONDS  the memory of prfoffcpu and perfsched after this
#                     many seconds of the switch workload (default "1 3": perf sched's file grows some 30 MB a second there, in a guest of 1 GiB)
#   BENCH_FLOOR_KO    path of prf_floor.ko
#   BENCH_TOOLS       directory of the prf tools (prfld, prfsnap), if built

B=$(cd "$(dirname "$0")" && pwd)/out
WORK=$B/work
CTL=$B/prfctl
fail=0

say() { echo "bench: $*" >&2; }
bad() { echo "BENCH-FAIL $*"; fail=1; }

iters() { eval echo "\${BENCH_ITERS_$1}"; }

# The functions the kernel workload calls, counted by the calls contenders.
CALL_FUNCS="ksys_read ksys_write vfs_read vfs_write read_zero pipe_read pipe_write"
STACK_CAP=16384
# The user objects table of prfuobj and prfuchain (PRF_SETUOBJS), the
# latter with user call chains of UCHAIN_DEPTH frames; off for every other.
UOBJ_CAP=${BENCH_UOBJ_CAP:-65536}
UOBJ_FILES=${BENCH_UOBJ_FILES:-4096}
UCHAIN_DEPTH=${BENCH_UCHAIN_DEPTH:-16}

# bpftrace's way of timing waits by kernel stack: at the switch, the task
# going out leaves its time and stack under its tid; the task coming in
# adds the time since to its saved stack.  The idle task (tid 0) is left
# out, as prf leaves it out.  END clears the per-task maps, so that what
# bpftrace prints is the stacks' sums only.
OFFCPU_BT='tracepoint:sched:sched_switch
{
	if (args->prev_pid != 0) {
		@out[args->prev_pid] = nsecs;
		@stk[args->prev_pid] = kstack;
	}
	$t = @out[args->next_pid];
	if ($t != 0) {
		@off[@stk[args->next_pid]] = sum(nsecs - $t);
		delete(@out[args->next_pid]);
		delete(@stk[args->next_pid]);
	}
}
END { clear(@out); clear(@stk); }'

# run TAG CMD...: runs a workload command, prints its RESULT line
result() {
	tag=$1; shift
	out=$("$@" 2>/tmp/err | grep '^elapsed_ns=' | tail -n1)
	if [ -z "$out" ]; then
		bad "$tag: $(tail -n3 /tmp/err | tr '\n' ' ')"
		return 1
	fi
	echo "RESULT $tag $out"
	LAST=$out
}

# counted TAG CONTENDER RATE ITERS: the RESULT line just printed ($LAST)
# counted what its contender must, or BENCH-FAIL says what it counted.
# A sampling contender takes RATE samples a second on each CPU: at least
# half of RATE x CPUs x time must be in prf_total + prf_filtered (a guest's
# timer may run late; its missed periods are lost, counted apart).  With no
# filter nothing is filtered; prfcg (the workers, busy on every CPU, in its
# cgroup) keeps a quarter; prfnomatch filters at least half away.  An event
# contender counts one event a worker's round at least (a kernel round
# reads /dev/zero and a pipe, a files round creates a file).  The stack and
# mode contenders must run with their stack table and mode.
counted() {
	tag=$1 c=$2 r=$3 n=$4
	set -- $(echo "$LAST" | tr ' ' '\n' | awk -F= '
		{ v[$1] = $2 }
		END { printf "%.0f %.0f %.0f %.0f\n", v["elapsed_ns"] + 0, v["cpus"] + 0,
			v["prf_total"] + 0, v["prf_filtered"] + 0 }')
	ns=$1 cpus=$2 total=$3 filtered=$4
	nominal=$(awk -v r="$r" -v c="$cpus" -v ns="$ns" 'BEGIN { printf "%.0f", r * c * ns / 1e9 }')
	why=
	case $c in
	prf3|prffull|prfstk16|prfstk64|prfuobj|prfuchain)
		[ $((2 * (total + filtered))) -ge "$nominal" ] ||
			why="$total samples, $filtered filtered, of about $nominal"
		[ "$filtered" = 0 ] || why="$filtered samples filtered with no filter set" ;;
	prfcg)
		[ $((4 * total)) -ge "$nominal" ] ||
			why="$total samples of the cgroup's workers, of about $nominal" ;;
	prfnomatch)
		[ $((2 * filtered)) -ge "$nominal" ] ||
			why="$filtered samples filtered away, of about $nominal" ;;
	prfalloc|prfcalls)
		[ "$total" -ge $((n * cpus)) ] ||
			why="$total events in $((n * cpus)) rounds" ;;
	prfoffcpu|prfoffstk)
		[ "$total" -gt 0 ] || why="no time off a CPU"
		[ "$filtered" = 0 ] || why="$filtered ns filtered with no filter set" ;;
	esac
	case $c in
	prfstk16|prfstk64|prfoffcpu|prfoffstk)
		wd=${c#prfstk}
		case $c in prfoffcpu) wd=0 ;; prfoffstk) wd=16 ;; esac
		d=$("$CTL" info /dev/prf | sed -n 's/.* stack_depth=\([0-9]*\).*/\1/p')
		[ "$d" = "$wd" ] || why="stack depth $d, not $wd" ;;
	esac
	case $c in
	prfalloc|prfcalls|prfoffcpu|prfoffstk)
		m=$("$CTL" info /dev/prf | sed -n 's/.* mode=\([0-9]*\).*/\1/p')
		case $c in prfalloc) wm=1 ;; prfcalls) wm=3 ;; *) wm=4 ;; esac
		[ "$m" = $wm ] || why="mode $m, not $wm" ;;
	esac
	[ -z "$why" ] || bad "$tag: counted too little: $why"
}

# prf_uobj_check TAG WORKLOAD DEPTH: after a prfuobj (DEPTH 0) or prfuchain
# run (OFF), the user objects table must have named the workers' user code
# (user and mixed workloads: entries whose counts sum > 0, some in the work
# binary) and account for every user sample: named + lost + dropped +
# unmapped = counter N (uapi).  Its chains must be those of the set-up
# (depth DEPTH, none with 0) and account for every named sample: chained +
# chain_dropped = named (uapi); on user and mixed some samples' chains must
# have 2 frames or more in work itself (bin2: work is built with frame
# pointers).
prf_uobj_check() {
	u=$("$CTL" uobjget /dev/prf "$WORK") || { bad "$1: prfctl uobjget"; return 1; }
	echo "META uobj $1 $u"
	set -- "$1" "$2" $(echo "$u" | tr ' ' '\n' | awk -F= '
		{ v[$1] = $2 }
		END { printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n",
			v["named"], v["lost"], v["dropped"], v["unmapped"],
			v["ticks_user"], v["capacity"], v["depth"], v["chained"],
			v["chain_dropped"], v["bin2"] }') "$3"
	# $3 named $4 lost $5 dropped $6 unmapped $7 counter N $8 capacity
	# $9 depth ${10} chained ${11} chain_dropped ${12} bin2 ${13} DEPTH
	why=
	[ "$8" = "$UOBJ_CAP" ] || why="capacity $8, not $UOBJ_CAP"
	[ $(($3 + $4 + $5 + $6)) = "$7" ] ||
		why="${why:+$why; }named $3 + lost $4 + dropped $5 + unmapped $6 != counter N $7"
	[ "$9" = "${13}" ] || why="${why:+$why; }chain depth $9, not ${13}"
	[ "${13}" = 0 ] || [ $((${10} + ${11})) = "$3" ] ||
		why="${why:+$why; }chained ${10} + chain_dropped ${11} != named $3"
	case $2 in
	user|mixed)
		[ "$3" -gt 0 ] || why="${why:+$why; }named nothing ($7 user samples)"
		case $u in
		*"top="*"/work:"*) ;;
		*) why="${why:+$why; }the work binary not among the top files" ;;
		esac
		[ "${13}" = 0 ] || [ "${12}" -gt 0 ] ||
			why="${why:+$why; }no chain of 2 frames or more in work" ;;
	esac
	[ -z "$why" ] || { bad "$1: user objects: $why"; return 1; }
}

# result_out TAG FILE COMMAND...: as result, COMMAND's standard output
# kept in FILE (a profiler's report, with the workload's elapsed_ns= line).
result_out() {
	tag=$1 f=$2
	shift 2
	"$@" >"$f" 2>/tmp/err
	out=$(grep '^elapsed_ns=' "$f" | tail -n1)
	if [ -z "$out" ]; then
		bad "$tag: $(tail -n3 /tmp/err | tr '\n' ' ')"
		return 1
	fi
	echo "RESULT $tag $out"
	LAST=$out
}

# chains_meta TAG FOLDED: the samples of work in folded lines (root first,
# a count last) and those whose chain is whole (main;child in it), as META
# chains; a run that named no chain of work fails.
chains_meta() {
	set -- "$1" $(awk '/^work;/ { c = $NF; n += c; if ($0 ~ /;main;child;/) w += c }
		END { printf "%.0f %.0f\n", n, w }' "$2")
	echo "META chains $1 samples=$2 whole=$3"
	[ "${3:-0}" -gt 0 ] || bad "$1: no whole chain of work ($2 samples)"
}

# perf_report TAG KIND: perf report --stdio of the perf.data just recorded
# (KIND perfrep: perf record; perfrepg: perf record -g, whose report shows
# each entry's callers and, by default, its children's share), its CPU time
# (prfctl run: user + system, what it costs; its guest time also holds the
# idle waits that -icount sleep=off skips to the next timer); the samples
# in the file (-n, summed: an entry's own, with or without the Children
# column) and those perf names in work's own code ([.] lines of comm work,
# dso work), and the lines of call chains printed.  META KIND.
perf_report() {
	t=$("$CTL" run /tmp/perfrep.out perf report --stdio -n -i /tmp/perf.data 2>/tmp/perfrep.err) ||
		{ bad "$1: perf report: $(tail -n2 /tmp/perfrep.err | tr '\n' ' ')"; return 1; }
	set -- "$1" "$2" $(awk '/^#/ { next } { n = 0; c = d = k = "" }
		$1 ~ /%$/ && $2 ~ /%$/ { n = $3; c = $4; d = $5; k = $6 }
		$1 ~ /%$/ && $2 ~ /^[0-9]+$/ { n = $2; c = $3; d = $4; k = $5 }
		$1 !~ /%$/ { if (NF) g++; next }
		{ s += n } c == "work" && d == "work" && k == "[.]" { w += n }
		END { printf "%.0f %.0f %.0f\n", s, w, g }' /tmp/perfrep.out)
	echo "META $2 $1 $t file_samples=$3 work_user_samples=$4 chain_lines=$5 out_bytes=$(wc -c </tmp/perfrep.out)"
	[ "$3" -gt 0 ] || { bad "$1: perf report: no samples"; return 1; }
}

# "count name" lines of the second dump less the first's, summed by name
# (two addresses may carry one name), the names left at 0 left out
dist_diff() {
	awk '{ k = substr($0, index($0, " ") + 1) }
	     NR == FNR { c[k] += $1; next } { d[k] += $1 }
	     END { for (k in d) if (d[k] - c[k] > 0) print d[k] - c[k], k }' "$1" "$2"
}

dist() {
	echo "BEGIN-DIST $1 rep=$rep"
	cat "$2"
	echo "END-DIST"
}

# perf script lines "comm pid ip sym" -> "count sym" for kernel addresses
# only, with the idle task (pid 0) apart as prf counts it, and without the
# perf tool's own samples (its work exists only because perf runs)
perf_dist() {
	perf script -i /tmp/perf.data -F comm,pid,ip,sym 2>/dev/null |
		awk '{ sym = $NF; ip = $(NF - 1); pid = $(NF - 2); comm = $1 }
		     ip !~ /^ffff/ { next }
		     pid == 0 { idle++; next }
		     comm == "perf" { self++; next }
		     { n[sym]++ }
		     END { for (s in n) print n[s], s; print idle + 0, "[idle]"
			   print self + 0, "[perf-self]" }'
}

prf_full_load() {
	if [ -x "$BENCH_TOOLS/prfld" ]; then
		t0=$(date +%s%N)
		"$BENCH_TOOLS/prfld" -q || { bad "prfld failed"; return 1; }
		t1=$(date +%s%N)
		n=$("$CTL" info | sed 's/.*naddrs=\([0-9]*\).*/\1/')
		echo "META loader=prfld naddrs=$n load_ns=$((t1 - t0))"
	else
		echo "META loader=prfctl $("$CTL" loadall)" ||
			{ bad "prfctl loadall failed"; return 1; }
	fi
	echo "META full_table $("$CTL" info)"
}

# prf_offcpu_sites TAG: where prf put the time off a CPU of the switch
# workload ($LAST is its RESULT).  Of each CPU's pair of workers one is
# always off the CPU: their waits add up to about elapsed x CPUs, blocked
# in pipe_read() (its table entry) or runnable (counter N + 1, "[idle]" in
# the dump; the writer is often preempted by the reader it woke).  Other
# tasks' waits count too (kernel threads, work itself in wait()), so the
# check is on the workers' part: pipe_read + runnable at least half of
# elapsed x CPUs, pipe_read at least a tenth of it.  Counter N ("[user]")
# is blocked time with no site.
prf_offcpu_sites() {
	"$CTL" dump /dev/prf >/tmp/offdump || { bad "$1: prfctl dump"; return 1; }
	set -- "$1" $(awk '$2 == "pipe_read" { p += $1 } $2 == "[idle]" { r = $1 }
		$2 == "[user]" { u = $1 } { t += $1 }
		END { printf "%.0f %.0f %.0f %.0f\n", t, p, r, u }' /tmp/offdump) \
		$(echo "$LAST" | tr ' ' '\n' | awk -F= '$1 == "elapsed_ns" { e = $2 }
		$1 == "cpus" { c = $2 } END { printf "%.0f\n", e * c }')
	top=$(grep -v '^[0-9]* \[' /tmp/offdump | sort -rn | head -n3 |
		awk '{ printf "%s:%s,", $2, $1 }')
	echo "META offcpu $1 total_ns=$2 pipe_read_ns=$3 runnable_ns=$4 nosite_ns=$5 workers_off_ns=$6 top=${top%,}"
	[ $((2 * ($3 + $4))) -ge "$6" ] && [ $((10 * $3)) -ge "$6" ] ||
		{ bad "$1: pipe_read $3 ns, runnable $4 ns, of about $6 ns the workers wait"; return 1; }
}

# bpf_offcpu_sites TAG: bpftrace's map of stacks must not be empty, and the
# stacks through pipe_read() must hold time.
bpf_offcpu_sites() {
	set -- "$1" $(awk '/^@off\[/ { n++; p = 0 } /pipe_read/ { p = 1 }
		/^\]: [0-9]+$/ { t += $2; if (p) pr += $2 }
		END { printf "%d %.0f %.0f\n", n, t, pr }' /tmp/bpfoff.out)
	echo "META bpfoffcpu $1 stacks=$2 total_ns=$3 pipe_read_ns=$4 out_bytes=$(wc -c </tmp/bpfoff.out)"
	[ "$2" -gt 0 ] && [ "$4" -gt 0 ] ||
		{ bad "$1: bpftrace's map: $2 stacks, $4 ns through pipe_read"; return 1; }
}

# perf_sched_switches TAG: the size of perf sched's file, and the workers'
# switches perf sched latency finds in it (none fails the run).
perf_sched_switches() {
	sz=$(wc -c </tmp/perf.data)
	sw=$(perf sched latency -i /tmp/perf.data 2>/dev/null |
		awk -F'|' '$1 ~ /^ *work:/ { s += $3 } END { print s + 0 }')
	echo "META perfsched $1 bytes=$sz work_switches=$sw"
	[ "$sw" -gt 0 ] || { bad "$1: no switch of the workers in perf.data"; return 1; }
}

run_one() {	# contender rate workload rep
	c=$1 r=$2 w=$3 rep=$4
	n=$(iters "$w")
	tag="contender=$c rate=$r workload=$w rep=$rep"
	case $c in
	none)
		result "$tag" "$WORK" "$w" "$n" ;;
	floor)
		insmod "$BENCH_FLOOR_KO" hz="$r" || { bad "$tag: insmod"; return; }
		result "$tag" "$WORK" -c /sys/module/prf_floor/parameters/ticks "$w" "$n"
		rmmod prf_floor ;;
	prf3|prffull|prfstk16|prfstk64)
		# the table counts every run since the contender's set-up: its
		# distribution for this run is the dump after less the one before
		d=
		[ "$c" = prffull ] && [ "$w" = kernel ] && d=1
		[ -z "$d" ] || "$CTL" dump /dev/prf >/tmp/dist0 ||
			{ bad "$tag: prfctl dump"; return; }
		"$CTL" hz /dev/prf "$r" && "$CTL" on /dev/prf ||
			{ bad "$tag: prf hz/on"; return; }
		result "$tag" "$WORK" -p /dev/prf "$w" "$n" &&
			counted "$tag" "$c" "$r" "$n"
		"$CTL" off /dev/prf
		if [ -n "$d" ]; then
			"$CTL" dump /dev/prf >/tmp/dist1 &&
				dist_diff /tmp/dist0 /tmp/dist1 >/tmp/dist &&
				dist "prf@$r" /tmp/dist
		fi ;;
	prfuobj|prfuchain)	# prffull and the user objects table (with
		# chains); -u: resolved in time
		"$CTL" hz /dev/prf "$r" && "$CTL" on /dev/prf ||
			{ bad "$tag: prf hz/on"; return; }
		result "$tag" "$WORK" -p /dev/prf -u "$w" "$n" &&
			counted "$tag" "$c" "$r" "$n"
		"$CTL" off /dev/prf
		d=0
		[ "$c" = prfuchain ] && d=$UCHAIN_DEPTH
		prf_uobj_check "$tag" "$w" "$d" ;;
	prfcg)	# a cgroup filter matching every worker (they run inside it)
		"$CTL" hz /dev/prf "$r" && "$CTL" on /dev/prf ||
			{ bad "$tag: prf hz/on"; return; }
		result "$tag" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' \
			sh "$CG" "$WORK" -p /dev/prf "$w" "$n" &&
			counted "$tag" "$c" "$r" "$n"
		"$CTL" off /dev/prf ;;
	prfnomatch)	# a tgid filter on a sleeping process: never matches
		"$CTL" hz /dev/prf "$r" && "$CTL" on /dev/prf ||
			{ bad "$tag: prf hz/on"; return; }
		result "$tag" "$WORK" -p /dev/prf "$w" "$n" &&
			counted "$tag" "$c" "$r" "$n"
		"$CTL" off /dev/prf ;;
	prfalloc|prfcalls)	# the mode is set: events counted, no rate
		"$CTL" on /dev/prf || { bad "$tag: prf on"; return; }
		result "$tag" "$WORK" -p /dev/prf "$w" "$n" &&
			counted "$tag" "$c" "$r" "$n"
		"$CTL" off /dev/prf ;;
	prfoffcpu|prfoffstk)	# the offcpu mode: nanoseconds off a CPU, no rate
		"$CTL" on /dev/prf || { bad "$tag: prf on"; return; }
		result "$tag" "$WORK" -p /dev/prf "$w" "$n" &&
			counted "$tag" "$c" "$r" "$n" && prf_offcpu_sites "$tag"
		"$CTL" off /dev/prf ;;
	bpfoffcpu)
		rm -f /tmp/bpfoff.out
		result "$tag" bpftrace -o /tmp/bpfoff.out -e "$OFFCPU_BT" \
			-c "$WORK $w $n" && bpf_offcpu_sites "$tag" ;;
	perfsched)
		rm -f /tmp/perf.data
		result "$tag" perf sched record -q -o /tmp/perf.data -- "$WORK" "$w" "$n" &&
			perf_sched_switches "$tag" ;;
	bpfalloc)
		result "$tag" bpftrace -e 'tracepoint:kmem:kmalloc,tracepoint:kmem:kmem_cache_alloc { @[ksym(args->call_site)] = count(); }' \
			-c "$WORK $w $n" ;;
	bpfcalls)
		p=$(echo $CALL_FUNCS | sed 's/\([^ ]*\)/kprobe:\1/g; s/ /,/g')
		result "$tag" bpftrace -e "$p { @[func] = count(); }" \
			-c "$WORK $w $n" ;;
	perfg)
		rm -f /tmp/perf.data
		result "$tag" perf record -q -g -e cpu-clock -a -F "$r" \
			-o /tmp/perf.data -- "$WORK" "$w" "$n" ;;
	perf)
		rm -f /tmp/perf.data
		result "$tag" perf record -q -e cpu-clock -a -F "$r" \
			-o /tmp/perf.data -- "$WORK" "$w" "$n"
		if [ "$w" = kernel ]; then
			perf_dist >/tmp/dist && dist "perf@$r" /tmp/dist
		fi ;;
	perfrep)	# perf as a user runs it to name code: record, then report
		rm -f /tmp/perf.data
		result "$tag" perf record -q -e cpu-clock -a -F "$r" \
			-o /tmp/perf.data -- "$WORK" "$w" "$n" &&
			perf_report "$tag" perfrep ;;
	prfrecfp|prfreccfi)	# prf record -g of the command, on its own instance
		u=cfi
		[ "$c" = prfrecfp ] && u=fp
		result_out "$tag" /tmp/prfrec.out "$BENCH_TOOLS/prf" record -g --unwind $u \
			--folded -z "$r" -- "$WORK" "$w" "$n" &&
			chains_meta "$tag" /tmp/prfrec.out
		grep '^prf: unwind tables' /tmp/err | sed "s/^/META unwind $tag /" ;;
	perfdwarf)	# perf's whole chains without frame pointers, then its report
		rm -f /tmp/perf.data
		result "$tag" perf record -q --call-graph dwarf -e cpu-clock -F "$r" \
			-o /tmp/perf.data -- "$WORK" "$w" "$n" || return
		echo "META perfdata $tag bytes=$(stat -c %s /tmp/perf.data)"
		perf_report "$tag" perfdwarf
		perf script -i /tmp/perf.data -F comm,ip,sym --no-inline 2>/dev/null | awk '
			/^[^ \t]/ { if (n) emit(); comm = $1; n = 0; next }
			NF >= 2 { fr[++n] = $2 }
			function emit(  i, l) { l = comm; for (i = n; i >= 1; i--) l = l ";" fr[i]
				c[l]++; n = 0 }
			END { if (n) emit(); for (l in c) print l, c[l] }' >/tmp/perf.folded
		chains_meta "$tag" /tmp/perf.folded ;;
	perfrepg)	# the same with call chains: record -g, then report
		rm -f /tmp/perf.data
		result "$tag" perf record -q -g -e cpu-clock -a -F "$r" \
			-o /tmp/perf.data -- "$WORK" "$w" "$n" &&
			perf_report "$tag" perfrepg ;;
	bpf|bpf1)
		if [ "$c" = bpf ]; then k=kstack; else k='kstack(1)'; fi
		result "$tag" bpftrace -e "profile:hz:$r { @[$k] = count(); }" \
			-c "$WORK $w $n" ;;
	procprofile)
		c0=$("$CTL" profile)
		result "$tag" "$WORK" "$w" "$n"
		c1=$("$CTL" profile)
		echo "META procprofile workload=$w rep=$rep kernel_ticks=$((c1 - c0))"
		if [ "$w" = kernel ] && [ "$rep" = 1 ]; then
			echo 0 >/proc/profile	# resets the counters
			"$WORK" "$w" "$n" >/dev/null
			"$CTL" profdump >/tmp/dist && dist "procprofile" /tmp/dist
		fi ;;
	*)
		bad "unknown contender $c" ;;
	esac
}

sizes() {	# prf snapshot and perf.data after 1 s and 60 s of sampling
	for s in 1 60; do
		if [ -x "$BENCH_TOOLS/prfsnap" ]; then
			"$CTL" hz /dev/prf 1000 && "$CTL" on /dev/prf
			"$WORK" mixed "$(iters mixed)" >/dev/null &
			sleep "$s"
			"$CTL" off /dev/prf
			wait
			rm -f /tmp/snap
			"$BENCH_TOOLS/prfsnap" /tmp/snap ||
				bad "prfsnap failed"
			echo "META size what=prfsnap seconds=$s bytes=$(wc -c </tmp/snap)"
		fi
		rm -f /tmp/perf.data
		"$WORK" mixed "$(iters mixed)" >/dev/null &
		perf record -q -e cpu-clock -a -F 1000 -o /tmp/perf.data -- sleep "$s" ||
			bad "perf record for sizes failed"
		wait
		echo "META size what=perf.data seconds=$s bytes=$(wc -c </tmp/perf.data)"
		case " $BENCH_CONTENDERS " in *" perfg "*) ;; *) continue ;; esac
		rm -f /tmp/perf.data
		"$WORK" mixed "$(iters mixed)" >/dev/null &
		perf record -q -g -e cpu-clock -a -F 1000 -o /tmp/perf.data -- sleep "$s" ||
			bad "perf record -g for sizes failed"
		wait
		echo "META size what=perf.data-g seconds=$s bytes=$(wc -c </tmp/perf.data)"
	done
	# The stack table is allocated once: its size does not depend on time.
	case " $BENCH_CONTENDERS " in *" prfstk64 "*) ;; *) return ;; esac
	"$CTL" stacks /dev/prf 64 $STACK_CAP && "$CTL" hz /dev/prf 1000 &&
		"$CTL" on /dev/prf || { bad "stacks for sizes"; return; }
	"$WORK" mixed "$(iters mixed)" >/dev/null
	"$CTL" off /dev/prf
	echo "META size what=prf-stacks-64 $("$CTL" info)"
	"$CTL" stacks /dev/prf 0 0
}

# The memory of the offcpu contenders after S seconds of the switch
# workload (work runs until killed: its workers die with it): prf's
# instance (mem_bytes) and its waits table (offcpu_slots x 40 bytes), both
# allocated before ON; perf sched's file, which grows with every switch.
offcpu_sizes() {
	big=1000000000
	slots=$(cat /sys/module/prf/parameters/offcpu_slots 2>/dev/null || echo 16384)
	for s in ${BENCH_OFFCPU_SECONDS:-1 3}; do
		case " $BENCH_CONTENDERS " in *" prfoffcpu "*)
			"$CTL" stacks /dev/prf 0 0 && "$CTL" mode /dev/prf time &&
				prf_full_load >/dev/null && "$CTL" filter /dev/prf none &&
				"$CTL" schedtext /dev/prf >/dev/null &&
				"$CTL" mode /dev/prf offcpu && "$CTL" on /dev/prf ||
				{ bad "offcpu for sizes"; return; }
			"$WORK" -w 0 switch $big >/dev/null &
			wp=$!
			sleep "$s"
			"$CTL" off /dev/prf
			kill "$wp"; wait "$wp" 2>/dev/null
			i=$("$CTL" info /dev/prf)
			mb=$(echo "$i" | sed -n 's/.* mem_bytes=\([0-9]*\).*/\1/p')
			tt=$(echo "$i" | sed -n 's/.* ticks_total=\([0-9]*\).*/\1/p')
			echo "META size what=prf-offcpu seconds=$s bytes=$((mb + 40 * slots)) mem_bytes=$mb offcpu_slots=$slots ticks_total=$tt"
			"$CTL" mode /dev/prf time ;;
		esac
		case " $BENCH_CONTENDERS " in *" perfsched "*)
			rm -f /tmp/perf.data
			"$WORK" -w 0 switch $big >/dev/null &
			wp=$!
			perf sched record -q -o /tmp/perf.data -- sleep "$s" ||
				bad "perf sched record for sizes failed"
			kill "$wp"; wait "$wp" 2>/dev/null
			echo "META size what=perf-sched seconds=$s bytes=$(wc -c </tmp/perf.data)"
			rm -f /tmp/perf.data ;;
		esac
	done
}

# Booted with maxcpus=1 (see bench.sh): bring the other CPUs up now.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$f")" = 1 ] || echo 1 >"$f" || bad "cannot online $f"
done
echo "META kernel=$(uname -r) cpus=$(nproc) mode=$BENCH_MODE cmdline=$(cat /proc/cmdline | tr ' ' ',')"
[ -e /dev/prf ] || bad "/dev/prf missing (prf.ko not loaded)"

if [ "$BENCH_MODE" = procprofile ]; then
	[ -e /proc/profile ] || bad "/proc/profile missing (boot with profile=2)"
	for w in $BENCH_WORKLOADS; do
		rep=1
		while [ $rep -le "$BENCH_REPS" ]; do
			run_one procprofile 250 "$w" $rep
			rep=$((rep + 1))
		done
	done
	echo "BENCH-DONE fail=$fail"
	exit $fail
fi

# The filtered contenders: a cgroup v2 holding the workers, a sleeper.
CG=
SLEEPER=
# cgroup v2 mounted (at /tmp/cgroup2 when nowhere), its root in CG2.
CG2=
cg2_root() {
	[ -z "$CG2" ] || return 0
	CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -z "$CG2" ] || return 0
	CG2=/tmp/cgroup2
	mkdir -p "$CG2" && mount -t cgroup2 none "$CG2" ||
		{ bad "cannot mount cgroup2"; CG2=; return 1; }
}
filter_setup() {
	c=$1
	case $c in
	prfrecfp|prfreccfi)	# prf record's instance: its command in a cgroup of its own
		cg2_root || return 1
		"$CTL" filter /dev/prf none || bad "filter none" ;;
	prfcg)
		if [ -z "$CG" ]; then
			cg2_root || return 1
			CG=$CG2/prf-bench
			mkdir -p "$CG" || { bad "mkdir $CG"; return 1; }
		fi
		"$CTL" filter /dev/prf cgroup "$CG" || bad "filter cgroup" ;;
	prfnomatch)
		if [ -z "$SLEEPER" ]; then
			sleep 100000 &
			SLEEPER=$!
		fi
		"$CTL" filter /dev/prf tgid "$SLEEPER" || bad "filter tgid" ;;
	*)
		"$CTL" filter /dev/prf none || bad "filter none" ;;
	esac
}

# none also runs the workloads of the other modes' contenders.
extra_w=
case " $BENCH_CONTENDERS " in *" prfalloc "*|*" bpfalloc "*) extra_w=files ;; esac
case " $BENCH_CONTENDERS " in
*" prfoffcpu "*|*" prfoffstk "*|*" bpfoffcpu "*|*" perfsched "*)
	extra_w="$extra_w switch" ;;
esac
loaded= stk=0 mode=time uo=unknown
# BENCH_REPS rounds of the whole list, interleaved: repetition k of every
# contender is in round k, each from the state the list sets up (the
# table, stacks, mode, filter, user objects: a contender sets what it
# needs and undoes what it does not), so that a round's ratios compare
# runs of the same minutes and their spread over the rounds shows.
round=1
while [ $round -le "$BENCH_REPS" ]; do
	for c in $BENCH_CONTENDERS; do
		# the user objects table: prfuobj's (no chains), prfuchain's (chains
		# of UCHAIN_DEPTH frames), off for every other (set the first time
		# whatever the module's state, then on each change)
		want=off
		case $c in prfuobj) want=0 ;; prfuchain) want=$UCHAIN_DEPTH ;; esac
		if [ "$want" != "$uo" ]; then
			if [ "$want" = off ]; then
				"$CTL" uobjs /dev/prf 0 0 || bad "uobjs off"
			else
				"$CTL" uobjs /dev/prf "$UOBJ_CAP" "$UOBJ_FILES" "$want" ||
					bad "uobjs $UOBJ_CAP $UOBJ_FILES $want"
			fi
			uo=$want
		fi
		# the stack table and the mode of the contender (both off otherwise)
		want=0
		case $c in prfstk16|prfoffstk) want=16 ;; prfstk64) want=64 ;; esac
		if [ "$want" != "$stk" ]; then
			if [ "$want" = 0 ]; then
				"$CTL" stacks /dev/prf 0 0 || bad "stacks off"
			else
				"$CTL" stacks /dev/prf "$want" $STACK_CAP || bad "stacks $want"
			fi
			stk=$want
		fi
		want=time
		case $c in
		prfalloc) want=alloc-calls ;; prfcalls) want=calls ;;
		prfoffcpu|prfoffstk) want=offcpu ;;
		esac
		case $c in
		prf3) "$CTL" load3 /dev/prf >/dev/null || bad "load3"; loaded= ;;
		prffull|prfcg|prfnomatch|prfstk16|prfstk64|prfuobj|prfuchain|prfalloc|prfoffcpu|prfoffstk)
			[ "$loaded" = full ] ||
				{ "$CTL" mode /dev/prf time; mode=time; prf_full_load; }
			loaded=full ;;
		prfcalls)
			"$CTL" mode /dev/prf time; mode=time
			"$CTL" loadnames /dev/prf $CALL_FUNCS >/dev/null || bad "loadnames"
			loaded=calls ;;
		esac
		if [ "$want" != "$mode" ]; then
			"$CTL" mode /dev/prf "$want" || bad "mode $want"
			mode=$want
		fi
		# Every prf contender from a known state: the filter is its own (none
		# but for prfcg and prfnomatch), as the stack table and mode above.
		case $c in
		prf*) filter_setup "$c" ;;
		esac
		# the offcpu mode finds a wait's site past the scheduler's text
		case $c in
		prfoffcpu|prfoffstk)
			st=$("$CTL" schedtext /dev/prf) || bad "prfctl schedtext"
			echo "META schedtext $st" ;;
		esac
		rates=$BENCH_RATES
		workloads=$BENCH_WORKLOADS
		case $c in
		none)	rates=0
			workloads=$(for x in $BENCH_WORKLOADS $extra_w; do echo $x; done |
				awk '!seen[$0]++')
			;;
		prfalloc|bpfalloc) rates=0; workloads=files ;;
		prfcalls|bpfcalls) rates=0; workloads=kernel ;;
		prfoffcpu|prfoffstk|bpfoffcpu|perfsched) rates=0; workloads=switch ;;
		esac
		for r in $rates; do
			case " $BENCH_SKIP " in *" $c@$r "*) continue ;; esac
			for w in $workloads; do
				say "$c $r Hz $w #$round"
				run_one "$c" "$r" "$w" $round
			done
		done
	done
	round=$((round + 1))
done
[ "$mode" = time ] || "$CTL" mode /dev/prf time
[ "$stk" = 0 ] || "$CTL" stacks /dev/prf 0 0
[ "$uo" = off ] || [ "$uo" = unknown ] || "$CTL" uobjs /dev/prf 0 0
[ -n "$SLEEPER" ] && kill "$SLEEPER"
"$CTL" filter /dev/prf none 2>/dev/null
[ "${BENCH_SIZES:-0}" = 1 ] && sizes
case " $BENCH_CONTENDERS " in *" prfoffcpu "*|*" perfsched "*) offcpu_sizes ;; esac
echo "BENCH-DONE fail=$fail"
exit $fail
