#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# User call chains by the unwind tables through prf record -g (issue 38,
# item 1), judged against a known truth, in a test guest with prf.ko:
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/tests/guest_unwind_test.sh
# Needs the tools built on the host first (make -C tools; arm64: its own).
# TAP.
#
# The truth: cfiprog (tests/cfiprog.c), built -O2 -fomit-frame-pointer,
# spins in cfi_spin called main -> cfi_a -> cfi_b -> cfi_c -> cfi_d ->
# the C library's qsort (Debian's, without frame pointers; on arm64 the
# static one) -> cfi_cmp -> cfi_spin.  Checked:
#   - at least 95 % of the samples ending in cfi_spin have that whole chain,
#     from the C library's start (_start) down, no frame marked truncated;
#   - no sample of cfiprog shows a user frame outside the true chain (the
#     start code, the five functions, the C library's sorting code, and
#     the free() its qsort_r calls on leaving);
#   - prf says which files it loaded tables for (cfiprog's among them);
#   - the same through taskset, which execs cfiprog: the samples not
#     whole at most those of 20 ms and of the time this guest takes to
#     build cfiprog's table (the watcher finds the exec within 10 ms);
#   - prf daemon --user-objs --stacks, which loads the tables of the files
#     its table names as they appear: after a few intervals, the same
#     whole chains, 95 % of cfi_spin's samples between two intervals;
#   - with --unwind fp (frame records, the old walk) the whole chain is
#     not found: the tables are what make it whole;
#   - cfiprog plt, strlen called through the program's PLT (x86-64's
#     lazy PLT, arm64's static program's IRELATIVE entry): the samples in
#     the PLT's entry have the whole chain from _start (x86-64: its CFA
#     expression made rows; arm64: rows read from its instructions);
#   - cfiprog vdso, clock_gettime called in a loop (the C library's, which
#     calls the vDSO's): the samples in the vDSO are named by its
#     function (x86-64 __vdso_clock_gettime, arm64 __kernel_clock_gettime)
#     under [vdso], none [anonymous/JIT], at least 95 % of them with the
#     whole chain from _start through main, cfi_vdso and the C library's
#     clock_gettime (arm64, whose kernel keeps no CFI in the vDSO: by
#     rows read from its leaf functions' instructions); prf says it
#     loaded the vDSO's table;
#   - cfiprog signal, a SIGPROF handler spinning on top of interrupted
#     code: at least 95 % of the handler's samples have the whole chain
#     from _start through the interrupted cfi_e, the signal return
#     trampoline and the handler (the module reads the signal frame);
#   - beside it, in the same boot, perf record --call-graph dwarf of the
#     same program (where the guest has a perf for its kernel): each chain
#     of cfi_spin (names made one: aliases, versions, GCC's clones) has
#     the same share of the samples in both, within 5 points or 4 standard
#     deviations of two samplings, whichever is more;
#   - Debian's python3 (no frame pointers) running a pure Python loop: of
#     its samples in the interpreter's eval loop, at most 5 % have a chain
#     that stopped before the depth of 32 frames, and at least half the
#     whole chain from _start (Debian's main is a tail call to
#     Py_BytesMain) through _PyEval_EvalFrameDefault; the rest, the start's
#     imports, are cut at the depth, marked (x86-64 guests, which run the
#     host's programs).
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
W=$(mktemp -d /tmp/prf-unwind-test.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
export LC_ALL=C
HZ=250
SECS=4

skip_unless_ready
if [ ! -x "$B/cfiprog" ]; then
	echo "1..0 # SKIP $B/cfiprog is missing: run make -C tools on the host first"
	exit 0
fi
if ! grep -q cgroup2 /proc/mounts; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
fi

# chain_share FILE PATTERN MIN OP PCT: spin, FILE's samples in cfi_spin,
# and whole, those of lines matching PATTERN; true when spin >= MIN and
# whole OP (ge, le) PCT % of spin.
chain_share() {
	spin=$(folded_of "$1" ';cfi_spin(;|$)')
	whole=$(folded_of "$1" "$2")
	awk -v w="$whole" -v s="$spin" -v m="$3" -v op="$4" -v p="$5" \
		'BEGIN { exit !(s >= m && (op == "ge" ? w >= p * s / 100 : w <= p * s / 100)) }'
}
# The true chain of cfi_spin, as the folded lines name it: the program,
# the start code, main, the five functions, the C library's sorting
# functions (qsort_r, msort_with_tmp.part.0, ...), cfi_cmp, cfi_spin.
START='_start( \\(dynsym\\))?;__libc_start_main[^;]*;__libc_start_call_main;'
SORT='(_*(qsort|msort|quicksort)[^;]*;)+'
WHOLE="^cfiprog;${START}main;cfi_a;cfi_b;cfi_c;cfi_d;${SORT}cfi_cmp;cfi_spin(;|\$)"
# The user frames of cfiprog's samples under cfi_a that are not in the
# true chain: after main, up to the first kernel function (the folded
# lines join the kernel's stack after the user chain).
strays() {
	awk 'FNR == NR { k[$3] = 1; next }
		{ c = $NF; s = substr($0, 1, length($0) - length(c) - 1)
		if (s !~ /^cfiprog;.*;main;cfi_a(;|$)/) next
		n = split(s, f, ";")
		for (i = 1; i <= n && f[i] != "main"; i++) ;
		for (i++; i <= n; i++) {
			# (the sort copies elements with memcpy on some machines)
			if (f[i] ~ /^(cfi_[abcd]|cfi_cmp|cfi_spin|_*(qsort|msort|quicksort|memcpy|memmove)[^;]*)$/) continue
			# (and qsort_r frees its buffer on leaving: free(NULL)
			# when the buffer was on its stack, as here)
			if (f[i] ~ /^_*(libc_)?free( \(dynsym\))?$/ &&
			    f[i - 1] ~ /^_*qsort/) continue
			# (and the sort reaches its copies through the PLT
			# of the C library: an IFUNC entry, *ABS*+0x...@plt)
			if (f[i] ~ /^[*]ABS[*][+]0x[0-9a-f]+@plt$/ &&
			    f[i - 1] ~ /^_*(qsort|msort|quicksort)/) continue
			if (f[i] in k) break
			bad[f[i]] += c
		}
	} END { for (b in bad) print bad[b], b }' /proc/kallsyms "$1"
}
# A chain's frames with the names the C library's symbol tables give
# differently to perf and prf made one (aliases, @@versions, GCC's .part
# clones), up to cfi_spin: "frames count".
chains_of_spin() {
	awk '{ c = $NF; s = substr($0, 1, length($0) - length(c) - 1)
		if (s !~ /;cfi_spin(;|$)/) next
		sub(/;cfi_spin;.*/, ";cfi_spin", s)
		n = split(s, f, ";"); o = ""
		for (i = 2; i <= n; i++) {
			x = f[i]; sub(/ \(dynsym\)$/, "", x); sub(/@.*/, "", x)
			sub(/^__GI_/, "", x); sub(/^_+/, "", x)
			gsub(/\.(part|constprop|isra|cold)\.[0-9]+/, "", x); sub(/_impl$/, "", x)
			o = o (o == "" ? "" : ";") x
		}
		t[o] += c
	} END { for (o in t) print o, t[o] }' "$1" | sort
}

# ---- the tables: every sample of cfi_spin whole ----
# (cfiprog run directly: its tables are loaded at its entry point, where
# prf record holds it; a program it would exec gets its table from the
# watcher, UNWIND_WATCH_MS later)
run 0 "prf record -g --stack-depth 32 --folded -- cfiprog $SECS" "$B/prf" record -g \
	--stack-depth 32 --folded -z $HZ -- "$B/cfiprog" $SECS
cp "$W/out" "$W/cfi.folded"
cp "$W/err" "$W/cfi.err"
if grep -q "walks user chains by frame records alone\|no user call chains" "$W/err"; then
	echo "1..$n # SKIP this prf.ko has no unwind tables"
	exit 0
fi
chain_share "$W/cfi.folded" "$WHOLE" 50 ge 95
r=$?
ok $r "--unwind cfi: $whole of the $spin samples in cfi_spin have the whole chain _start ... main;cfi_a;cfi_b;cfi_c;cfi_d;qsort ...;cfi_cmp;cfi_spin (at least 95 %)"
[ $r -eq 0 ] || diag "$W/cfi.folded"
grep ';cfi_spin' "$W/cfi.folded" | sort -t' ' -k2 -nr 2>/dev/null | head -3 | diag
stray=$(strays "$W/cfi.folded")
[ -z "$stray" ]
ok $? "--unwind cfi: no sample of cfiprog shows a user frame outside the true chain${stray:+ (}${stray}${stray:+)}"
tr=$(folded_of "$W/cfi.folded" '^cfiprog;\\[truncated\\];(.*;)?cfi_spin(;|$)')
awk -v t="$tr" -v s="$spin" 'BEGIN { exit !(t <= 0.05 * s) }'
ok $? "--unwind cfi: $tr samples of cfi_spin marked truncated (at most 5 %)"
grep -q "^prf: unwind tables: [1-9][0-9]* files" "$W/cfi.err"
ok $? "--unwind cfi: prf says which tables it loaded"
grep "^prf: unwind tables" "$W/cfi.err" | diag

# ---- a program a wrapper execs: its tables within milliseconds ----
# prf record holds taskset at its entry point; cfiprog, which it execs, is
# found by the watcher (a process running another program, every 10 ms)
# and its table built and loaded then.  Its samples before that end at
# its code, truncated: at most those of 10 ms of polling, 10 ms of slack
# and the time this guest takes to build cfiprog's table (prf cfi, timed
# here), at HZ, and 2 more.  (The 200 ms scans alone left 40 to 80 ms.)
# (five builds timed by /proc/uptime, whose hundredths every shell reads)
cs() { awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime; }
t0=$(cs)
for i in 1 2 3 4 5; do "$B/prf" cfi --summary "$B/cfiprog" >/dev/null 2>&1; done
build_ms=$((($(cs) - t0) * 10 / 5 + 2))
allowed=$(((build_ms + 20) * HZ / 1000 + 2))
run 0 "prf record -g --stack-depth 32 --folded -- taskset -c 0 cfiprog 0.5" "$B/prf" record -g \
	--stack-depth 32 --folded -z $HZ -- taskset -c 0 "$B/cfiprog" 0.5
# (at least 15 samples of cfi_spin, an eighth of the nominal 125: a guest
# beside three other lanes on two cores took 33)
chain_share "$W/out" "$WHOLE" 15 ge 0
r=$?
[ $r -eq 0 ] && [ $((spin - whole)) -le $allowed ]
r=$?
ok $r "--unwind cfi through taskset: $whole of the $spin samples in cfi_spin whole, $((spin - whole)) not (at most $allowed: the exec found within 10 ms, the table built in $build_ms ms)"
[ $r -eq 0 ] || diag "$W/out"

# ---- prf daemon --user-objs --stacks: tables loaded as files appear ----
# The daemon profiles every process: it loads the tables of the files its
# user objects table names, at each interval (cfiprog's at the first, the C
# library's once a chain reaches it, the next).  From the fifth snapshot
# on, prfpr of the last two has cfiprog's whole chains.
"$B/cfiprog" 600 &
daemon_snaps "$W/dstore" 7 $! --user-objs --stacks 32
r=$?
ok $r "prf daemon --user-objs --stacks 32: 7 intervals stored, exit 0 at SIGTERM (exit $dst)"
[ $dst -eq 0 ] || diag "$W/dstore.err"
grep -q "^prf: unwind tables: [1-9][0-9]* files" "$W/dstore.err"
ok $? "prf daemon: says the tables it loaded ($(grep "^prf: unwind tables" "$W/dstore.err" | tail -1))"
run 0 "prfpr --from -3 --folded DIR of prf daemon --user-objs" "$B/prfpr" --from -3 --folded "$W/dstore"
# (the daemon keeps 16 frames: the deepest sorts' chains lose _start, cut
# at the depth, marked truncated)
chain_share "$W/out" "^cfiprog;(_start|\\\\[truncated\\\\]);__libc_start_main[^;]*;__libc_start_call_main;main;cfi_a;cfi_b;cfi_c;cfi_d;${SORT}cfi_cmp;cfi_spin(;|\$)" 20 ge 95
r=$?
ok $r "prf daemon: $whole of the $spin samples in cfi_spin of its last two intervals have the whole chain from __libc_start_main (at least 95 %)"
[ $r -eq 0 ] || { diag "$W/out"; diag "$W/dstore.err"; }

# ---- frame records alone: the chain is not whole ----
run 0 "prf record -g --unwind fp --folded -- cfiprog 2" "$B/prf" record -g --unwind fp \
	--folded -z $HZ -- taskset -c 0 "$B/cfiprog" 2
chain_share "$W/out" "$WHOLE" 20 le 5
r=$?
ok $r "--unwind fp: $whole of the $spin samples in cfi_spin whole (frame records cannot find its callers)"
[ $r -eq 0 ] || diag "$W/out"
! grep -q "^prf: unwind tables" "$W/err"
ok $? "--unwind fp: no tables loaded"

# ---- the PLT: the chain carried through its entries ----
# cfiprog plt: main -> cfi_plt -> strlen("") through cfiprog's PLT, at
# 1000 Hz (a few percent of the samples fall in the PLT's entry).  On
# x86-64 the entry is strlen@plt, by its relocation, and its rows are its
# CFA expression's two parts.  On arm64 cfiprog is static: strlen is an
# IFUNC reached through an IRELATIVE entry, *ABS*+0xADDR@plt, which has no
# CFI at all; its row (the return address still in x30) is read from its
# instructions.  Such a sample has the whole chain.  Without those rows
# the walk stops at the entry, marked truncated.  TCG takes an interrupt
# only between its blocks of translated code, and on arm64 fewer samples
# land in the entry (20 to 95 in 4 s, against 72 to 107 on x86-64): it
# runs twice as long there.
case ${PRF_ARCH:-$(uname -m)} in
x86_64) ENTRY='strlen@plt' PLTSECS=$SECS ;;
*) ENTRY='[*]ABS[*][+]0x[0-9a-f]+@plt' PLTSECS=$((2 * SECS)) ;;
esac
run 0 "prf record -g --folded -z 1000 -- cfiprog plt $PLTSECS" "$B/prf" record -g \
	--stack-depth 32 --folded -z 1000 -- "$B/cfiprog" plt $PLTSECS
pltall=$(folded_of "$W/out" ";$ENTRY\$")
pltwhole=$(folded_of "$W/out" "^cfiprog;${START}main;cfi_plt;$ENTRY\$")
awk -v w="$pltwhole" -v a="$pltall" 'BEGIN { exit !(a >= 10 && w >= 0.95 * a) }'
r=$?
ok $r "--unwind cfi: of the $pltall samples in cfiprog's PLT entry $ENTRY (at least 10), $pltwhole have the whole chain _start ... main;cfi_plt;$ENTRY (at least 95 %)"
[ $r -eq 0 ] || diag "$W/out"

# ---- the vDSO: named, and the chain carried through it ----
# cfiprog vdso: main -> cfi_vdso -> clock_gettime (the C library's; a
# static program's on arm64) -> the vDSO's, at 1000 Hz.  prf asks for the
# vDSO as a file of its own (PRF_UOBJ_VDSO) and loads its table
# (PRF_UNWIND_VDSO), built from prf's own vDSO, the same image (x86-64:
# from its .eh_frame; arm64, whose kernel drops the vDSO's .eh_frame:
# rows read from its leaf functions' instructions).  A sample in the vDSO
# is a user chain whose line starts with its leaf's program, [vdso], and
# ends with the vDSO's function; between, the whole chain from _start
# (the C library's clock_gettime, by any of its names, where it is a
# frame of its own).
case ${PRF_ARCH:-$(uname -m)} in
x86_64) VFN='__vdso_clock_gettime' ;;
*) VFN='__kernel_clock_gettime' ;;
esac
run 0 "prf record -g --folded -z 1000 -- cfiprog vdso $SECS" "$B/prf" record -g \
	--stack-depth 32 --folded -z 1000 -- "$B/cfiprog" vdso $SECS
cp "$W/out" "$W/vdso.folded"
cp "$W/err" "$W/vdso.err"
VLEAF="$VFN"'( \\(dynsym\\))?$'
VPROG='^\\[vdso\\];'
vall=$(folded_of "$W/vdso.folded" "$VPROG(.*;)?$VLEAF")
vwhole=$(folded_of "$W/vdso.folded" "$VPROG${START}main;cfi_vdso;([^;]*clock_gettime[^;]*;)?$VLEAF")
vanon=$(folded_of "$W/vdso.folded" '\\[anonymous/JIT\\]')
awk -v w="$vwhole" -v a="$vall" -v x="$vanon" 'BEGIN { exit !(a >= 100 && w >= 0.95 * a && x == 0) }'
r=$?
ok $r "vDSO: of the $vall samples in $VFN under [vdso] (at least 100), $vwhole have the whole chain _start ... main;cfi_vdso;clock_gettime;$VFN (at least 95 %); $vanon [anonymous/JIT] (none)"
[ $r -eq 0 ] || diag "$W/vdso.folded"
awk '{ print $NF, $0 }' "$W/vdso.folded" | sort -nr | head -4 | cut -d' ' -f2- | diag
grep -q "^prf: unwind tables: [1-9][0-9]* files.*, the vDSO's among them" "$W/vdso.err"
ok $? "vDSO: prf says it loaded the vDSO's table"
grep "^prf: unwind tables" "$W/vdso.err" | diag

# ---- a signal frame: the chain goes on into the interrupted code ----
# cfiprog signal: main -> cfi_sigmain -> cfi_e spinning, interrupted by
# SIGPROF every 2 ms of its CPU time; the handler cfi_handler ->
# cfi_hspin spins longer, and returns through the signal return
# trampoline (x86-64: the C library's __restore_rt, whose CFI marks it a
# signal frame; arm64: the vDSO's __kernel_rt_sigreturn, read from its
# instructions).  The module reads the interrupted frame's registers from
# the signal frame: a sample in cfi_hspin has the whole chain from _start
# through main, cfi_sigmain, cfi_e, the trampoline (named as the file's
# symbols can: Debian's C library keeps no name for it), cfi_handler.
case ${PRF_ARCH:-$(uname -m)} in
x86_64) TRAMP='[^;]+' ;;
*) TRAMP='__kernel_rt_sigreturn( \\(dynsym\\))?' ;;
esac
run 0 "prf record -g --folded -z 1000 -- cfiprog signal $SECS" "$B/prf" record -g \
	--stack-depth 32 --folded -z 1000 -- "$B/cfiprog" signal $SECS
cp "$W/out" "$W/signal.folded"
sall=$(folded_of "$W/signal.folded" ';cfi_handler;cfi_hspin(;|$)')
swhole=$(folded_of "$W/signal.folded" "^cfiprog;${START}main;cfi_sigmain;cfi_e;$TRAMP;cfi_handler;cfi_hspin(;|\$)")
awk -v w="$swhole" -v a="$sall" 'BEGIN { exit !(a >= 100 && w >= 0.95 * a) }'
r=$?
ok $r "signal frame: of the $sall samples in cfi_hspin under cfi_handler (at least 100), $swhole have the whole chain _start ... main;cfi_sigmain;cfi_e;(trampoline);cfi_handler;cfi_hspin (at least 95 %)"
awk '{ print $NF, $0 }' "$W/signal.folded" | sort -nr | head -4 | cut -d' ' -f2- | diag

# ---- perf --call-graph dwarf of the same program, in the same boot ----
if perf record -q -o "$W/perf.data" -e cpu-clock -F $HZ true >/dev/null 2>&1; then
	perf record -q -o "$W/perf.data" -e cpu-clock -F $HZ --call-graph dwarf -- \
		"$B/cfiprog" $SECS >/dev/null 2>"$W/perf.err"
	# perf script's chains (leaf first; inlined functions left out, as the
	# tables know only real frames) turned into folded lines, root first
	perf script -i "$W/perf.data" -F comm,ip,sym --no-inline 2>/dev/null | awk '
		/^[^ \t]/ { if (n) emit(); comm = $1; n = 0; next }
		NF >= 2 { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); fr[++n] = s }
		function emit(  i, l) { l = comm; for (i = n; i >= 1; i--) l = l ";" fr[i]; c[l]++; n = 0 }
		END { if (n) emit(); for (l in c) print l, c[l] }' >"$W/perf.folded"
	chains_of_spin "$W/perf.folded" >"$W/perf.chains"
	chains_of_spin "$W/cfi.folded" >"$W/prf.chains"
	# the shares of each chain of cfi_spin, side by side: within 5 points,
	# or 4 standard deviations of two samplings of that share (about 1.7
	# points at 17 % of 1000 samples each), whichever is more
	cmpout=$(awk 'FNR == NR { a[$1] = $2; sa += $2; next } { b[$1] = $2; sb += $2 }
		END { for (k in a) u[k] = 1; for (k in b) u[k] = 1
			for (k in u) { d = 100 * a[k] / sa - 100 * b[k] / sb
				p = (a[k] + b[k]) / (sa + sb)
				t = 400 * sqrt(p * (1 - p) * (1 / sa + 1 / sb)); if (t < 5) t = 5
				if (d > t || d < -t) { print "apart:", k, a[k] + 0, b[k] + 0; bad = 1 } }
			print "chains:", length(u), "prf samples:", sa, "perf samples:", sb
			exit bad || sa < 50 || sb < 50 }' "$W/prf.chains" "$W/perf.chains")
	r=$?
	ok $r "prf and perf --call-graph dwarf agree: every chain of cfi_spin has the same share of its samples within 5 points or 4 sampling deviations (${cmpout##*chains: })"
	[ $r -eq 0 ] || { echo "$cmpout"; echo "prf:"; cat "$W/prf.chains"; echo "perf:"; cat "$W/perf.chains"; } | diag
	pspin=$(folded_of "$W/perf.folded" ';cfi_spin$')
	pwhole=$(folded_of "$W/perf.folded" "^cfiprog;_start;__libc_start_main[^;]*;__libc_start_call_main;main;cfi_a;cfi_b;cfi_c;cfi_d;[^;]*qsort[^;]*;${SORT}cfi_cmp;cfi_spin\$")
	echo "perf: $pwhole of $pspin samples of cfi_spin whole" | diag
else
	ok 0 "prf and perf --call-graph dwarf agree # SKIP no perf for this kernel in the guest"
fi

# ---- Debian's python3, without frame pointers ----
PY=$(command -v python3)
case ${PRF_ARCH:-$(uname -m)} in
arm64 | aarch64) PY= ;;
esac
if [ -n "$PY" ]; then
	run 0 "prf record -g --folded -- python3 (a pure Python loop)" "$B/prf" record -g \
		--stack-depth 32 --folded -z $HZ -- "$PY" -c '
import time
def f(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
end = time.time() + 3
while time.time() < end:
    f(10000)'
	prog=$(basename "$(readlink -f "$PY")")
	all=$(folded_of "$W/out" "^$prog;")
	ev=$(folded_of "$W/out" "^$prog;(.*;)?_PyEval_EvalFrameDefault[ ;]")
	whole=$(folded_of "$W/out" "^$prog;${START}Py_BytesMain[^;]*;(.*;)?_PyEval_EvalFrameDefault[ ;]")
	# The others are cut at the depth (32 user frames: the imports of the
	# interpreter's start, a share that grows as a loaded guest slows it)
	# or stopped early (an unwinder's failure, or a stack deeper than the
	# copy): hardly any.  User frames: those before the first kernel
	# function.
	early=$(awk 'FNR == NR { k[$3] = 1; next }
		{ c = $NF; s = substr($0, 1, length($0) - length(c) - 1) }
		s !~ /_PyEval_EvalFrameDefault/ || s !~ /^[^;]*;\[truncated\];/ { next }
		{ n = split(s, f, ";"); u = 0
		  for (i = 3; i <= n && !(f[i] in k); i++) u++
		  if (u < 32) e += c }
		END { print e + 0 }' /proc/kallsyms "$W/out")
	awk -v w="$whole" -v e="$ev" -v a="$all" -v x="$early" \
		'BEGIN { exit !(a >= 50 && e >= 0.5 * a && w >= 0.5 * e && x <= 0.05 * e) }'
	r=$?
	ok $r "python3: of its $ev samples in the eval loop ($all in all), $whole have the whole chain _start ... Py_BytesMain ... _PyEval_EvalFrameDefault (at least half), $((ev - whole - early)) are cut at the depth of 32, $early stopped early (at most 5 %)"
	[ $r -eq 0 ] || diag "$W/out"
	awk '{ print $NF, $0 }' "$W/out" | sort -nr | head -2 | cut -d' ' -f2- | diag
	# the eval loop's samples without the whole chain, in the log
	grep "_PyEval_EvalFrameDefault" "$W/out" | grep -v "^$prog;_start" |
		awk '{ print $NF, $0 }' | sort -nr | head -4 | cut -d' ' -f2- | diag
else
	ok 0 "python3 # SKIP no python3 in this guest"
fi

echo "1..$n"
[ "$fail" -eq 0 ]
