#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prf record's user objects (every user sample named by the file and offset
# that the kernel resolved, then by the tools' ELF symbols) against the real
# device, in a test guest with prf.ko loaded:
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/tests/guest_uobj_test.sh
# Needs the tools built on the host first (make -C tools: prf and the
# programs uobj_alpha, uobj_beta, uobj_gamma, uobj_chain and
# libuobj_delta.so of tests/uobjprog.c, and tests/jitprog.c's jitprog).  TAP.
#
# Each program spins a known CPU time in a function of its own name
# (spin_alpha ...).  Checked: a program started through taskset and env,
# and through sh -c, is named by its function; a make-like parent that
# forks and execs uobj_alpha for 0.6 s then uobj_beta for 0.3 s has both
# named, spin_alpha's share of the two 2/3 within 0.1 and the share of the
# periods a late timer lost (the samples: about 0.9 s x 100 Hz, a binomial's
# standard deviation 0.05; six runs gave 0.59 to 0.70, with 12 to 70 periods
# lost under TCG on a shared host) and each one's samples
# its CPU time x HZ within 25 % (at most 25 % above; at least 25 % below with
# the periods a late timer missed, tens of them a run under TCG); a
# busy process outside the command (uobj_gamma on the other CPU) counted
# nowhere, as filtered; the per-program view and "[user, unnamed]" add up
# to the user total; a program deleted while it runs is reported deleted,
# never by its functions; a shared object loaded with dlopen(3) once the
# program runs, and unloaded before it exits, is named with its function
# (not on arm64, whose test programs are static: no libuobj_delta.so);
# code generated at run time (jitprog) named by its /tmp/perf-PID.map, its
# two functions' shares within 2 points of its own clock's, in the CSV,
# the snapshot (prfpr), -g --folded and --pprof, and without a map said so;
# Node's --perf-basic-prof: a hot JavaScript function named;
# with -g, the user call chains: uobj_chain (built with frame pointers)
# spinning in spin_chain through chain_outer and chain_middle has at least
# 80 % of its samples in folded lines ending main;chain_outer;chain_middle;
# spin_chain (root first, under the program), the samples of no chain
# ([user]) at most a tenth; uobj_chain reading /dev/zero from read_zero,
# called by sys_loop: with a prf.ko that pairs kernel stacks with user
# chains, at least 80 % of the samples whose kernel stack went through
# vfs_read in lines uobj_chain;...;main;sys_loop;read_zero;...;vfs_read...
# (one line a sample's whole path), the same lines from prfpr --folded of
# its -o file, and read_zero the first caller of the kernel's outermost
# frame in prfpr --callers;
# prf top --user-objs names a busy process's
# function system-wide, and without the option names none; prfstat
# --stacks 8 --user-chains 8 on /dev/prf (depths 1 and 33, and while ON,
# refused, said, nothing changed): prfsnap keeps the pairs, prfpr --folded
# joins uobj_chain sys's reads to its chain; prf daemon
# --user-objs --stacks stores uobj_chain's chain, which prfpr DIR gives.
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
W=$(mktemp -d /tmp/prf-uobj-test.XXXXXX)
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
export LC_ALL=C
HZ=100

skip_unless_ready
# arm64's programs are static (tools/Makefile): no shared object to dlopen
case ${PRF_ARCH:-$(uname -m)} in
arm64 | aarch64) lib= ;;
*) lib=libuobj_delta.so ;;
esac
for p in uobj_alpha uobj_beta uobj_gamma uobj_chain jitprog $lib; do
	if [ ! -x "$B/$p" ]; then
		echo "1..0 # SKIP $B/$p is missing: run make -C tools on the host first"
		exit 0
	fi
done
if ! grep -q cgroup2 /proc/mounts; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
fi

# The samples of the CSV report's function rows named $2 (module $3).
samples_of() {
	awk -F, -v f="$2" -v m="$3" '$3 == f && (m == "" || $4 == m) && $6 != "total" { s += $1 }
		END { print s + 0 }' "$1"
}
# The user total of the CSV report.
user_of() { awk -F, '$3 == "[user]" && $6 == "total" { print $1; exit }' "$1"; }
# The sum of the per-program view's rows (after the "samples,percent_of_user" header).
programs_sum() { awk -F, '/^samples,percent_of_user,/ { on = 1; next } on && NF >= 3 { s += $1 } END { print s + 0 }' "$1"; }
# within GOT WANT PCT: GOT within PCT % of WANT
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { exit !(b > 0 && a >= b * (1 - p / 100) && a <= b * (1 + p / 100)) }'; }
# The periods a late timer missed (the report's [lost]): under emulation a
# few tens a run, and any of them may have been a sample of the function.
lost_of() { awk -F, '$3 == "[lost]" { print $1; exit }' "$1"; }
# near CSV GOT WANT: GOT at most 25 % above WANT, and GOT with the lost
# periods at least 25 % below it
near() { awk -v a="$2" -v b="$3" -v l="$(lost_of "$1")" 'BEGIN { exit !(b > 0 && a <= 1.25 * b && a + l >= 0.75 * b) }'; }

# ---- a program started through taskset and env ----
run 0 "prf record -- taskset -c 0 env UOBJ=1 uobj_alpha 0.5" \
	"$B/prf" record --csv -c 0 -z $HZ -- taskset -c 0 env UOBJ=1 "$B/uobj_alpha" 0.5
cp "$W/out" "$W/env.csv"
if grep -q "no user objects table" "$W/err"; then
	echo "1..$n # SKIP this prf.ko has no user objects table"
	exit 0
fi
a=$(samples_of "$W/env.csv" spin_alpha uobj_alpha)
u=$(user_of "$W/env.csv")
near "$W/env.csv" "$a" $((HZ / 2))
r=$?
ok $r "taskset+env: spin_alpha of uobj_alpha named, $a samples for 0.5 s at $HZ Hz (within 25 %, $(lost_of "$W/env.csv") periods lost)"
[ $r -eq 0 ] || diag "$W/env.csv"
awk -v a="$a" -v u="${u:-0}" 'BEGIN { exit !(u > 0 && a >= 0.8 * u) }'
ok $? "taskset+env: spin_alpha is most of the user samples ($a of ${u:-none})"
s=$(programs_sum "$W/env.csv")
[ -n "$u" ] && [ "$s" -eq "$u" ]
r=$?
ok $r "taskset+env: the programs and [user, unnamed] add up to the user total ($s, $u)"
[ $r -eq 0 ] || diag "$W/env.csv"

# ---- through sh -c ----
run 0 "prf record -- sh -c 'uobj_beta 0.3; true'" \
	"$B/prf" record --csv -c 0 -z $HZ -- sh -c "taskset -c 0 $B/uobj_beta 0.3; true"
cp "$W/out" "$W/sh.csv"
b=$(samples_of "$W/sh.csv" spin_beta uobj_beta)
near "$W/sh.csv" "$b" $((HZ * 3 / 10))
r=$?
ok $r "sh -c: spin_beta of uobj_beta named, $b samples for 0.3 s at $HZ Hz (within 25 %, $(lost_of "$W/sh.csv") periods lost)"
[ $r -eq 0 ] || diag "$W/sh.csv"

# ---- a shared object loaded with dlopen once running, unloaded before exit ----
if [ -z "$lib" ]; then
	ok 0 "dlopen # SKIP static test programs (${PRF_ARCH:-$(uname -m)})"
else
	run 0 "prf record -- uobj_alpha dlopen libuobj_delta.so 0.4" \
		"$B/prf" record --csv -c 0 -z $HZ -- taskset -c 0 \
		"$B/uobj_alpha" dlopen "$B/libuobj_delta.so" 0.4
	cp "$W/out" "$W/dl.csv"
	d=$(samples_of "$W/dl.csv" spin_delta libuobj_delta.so)
	near "$W/dl.csv" "$d" $((HZ * 4 / 10))
	r=$?
	ok $r "dlopen: spin_delta of libuobj_delta.so named, $d samples for 0.4 s at $HZ Hz (within 25 %, $(lost_of "$W/dl.csv") periods lost)"
	[ $r -eq 0 ] || diag "$W/dl.csv"
	all=$(samples_of "$W/dl.csv" spin_delta)
	[ "$all" -eq "$d" ]
	ok $? "dlopen: spin_delta under no other file ($all in all)"
fi

# ---- a make-like parent, and a busy process outside the command ----
taskset -c 1 "$B/uobj_gamma" 30 &
outside=$!
sleep 0.2
run 0 "prf record -- uobj_alpha make uobj_alpha 0.6 uobj_beta 0.3 (uobj_gamma busy outside)" \
	"$B/prf" record --csv -c 0 -z $HZ -- taskset -c 0 \
	"$B/uobj_alpha" make "$B/uobj_alpha" 0.6 "$B/uobj_beta" 0.3
cp "$W/out" "$W/make.csv"
kill "$outside" 2>/dev/null
wait "$outside" 2>/dev/null
a=$(samples_of "$W/make.csv" spin_alpha uobj_alpha)
b=$(samples_of "$W/make.csv" spin_beta uobj_beta)
near "$W/make.csv" "$a" $((HZ * 6 / 10)) && near "$W/make.csv" "$b" $((HZ * 3 / 10))
r=$?
ok $r "make-like: spin_alpha $a samples for 0.6 s, spin_beta $b for 0.3 s at $HZ Hz (each within 25 %, $(lost_of "$W/make.csv") periods lost)"
[ $r -eq 0 ] || diag "$W/make.csv"
# within 0.1, widened by the share of periods lost (any of them may have been either's)
l=$(lost_of "$W/make.csv")
awk -v a="$a" -v b="$b" -v l="${l:-0}" 'BEGIN { t = 0.1 + l / (a + b + l)
	exit !(a + b > 0 && a / (a + b) >= 2 / 3 - t && a / (a + b) <= 2 / 3 + t) }'
ok $? "make-like: spin_alpha's share of the two is 2/3 within 0.1 + the lost share ($a / ($a + $b), $l lost)"
g=$(awk -F, '$3 == "spin_gamma" || $4 ~ /^uobj_gamma/ || $3 ~ /uobj_gamma/ { s += $1 } END { print s + 0 }' "$W/make.csv")
[ "$g" -eq 0 ]
ok $? "make-like: nothing of uobj_gamma, busy outside the command ($g samples)"
grep -q "^uobj_gamma\|,uobj_gamma," "$W/make.csv"
[ $? -ne 0 ]
ok $? "make-like: uobj_gamma not in the per-program view"
grep -q "^[0-9]*,[0-9.]*,uobj_alpha,named,.*/uobj_alpha$" "$W/make.csv" &&
	grep -q "^[0-9]*,[0-9.]*,uobj_beta,named,.*/uobj_beta$" "$W/make.csv"
r=$?
ok $r "make-like: the per-program view names both programs by their paths"
[ $r -eq 0 ] || diag "$W/make.csv"
u=$(user_of "$W/make.csv")
s=$(programs_sum "$W/make.csv")
[ -n "$u" ] && [ "$s" -eq "$u" ]
ok $? "make-like: the programs and [user, unnamed] add up to the user total ($s, $u)"

# ---- the text report: user functions beside the kernel's ----
run 0 "prf record (text) -- uobj_beta 0.2" "$B/prf" record -z $HZ -- taskset -c 0 "$B/uobj_beta" 0.2
grep -q "^ *[0-9][0-9]* *[0-9.]* *spin_beta  *uobj_beta " "$W/out" &&
	grep -q "^ *user  *%user  *program  *state  *path$" "$W/out"
r=$?
ok $r "text: spin_beta in the function rows with its program, and the per-program view"
[ $r -eq 0 ] || diag "$W/out"

# ---- --json: the functions, and the programs under "user_objects" ----
run 0 "prf record --json -- uobj_beta 0.2" "$B/prf" record --json -z $HZ -- taskset -c 0 "$B/uobj_beta" 0.2
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["functions"] if x["function"] == "spin_beta" and x["module"] == "uobj_beta"]
p = [x for x in r["user_objects"]["programs"] if x["program"] == "uobj_beta" and x["state"] == "named"]
u = r["user_objects"]
s = sum(x["samples"] for x in u["programs"]) + u["unnamed"]
sys.exit(not (f and p and f[0]["samples"] > 0 and s == r["totals"]["user"]))
' "$W/out"
	r=$?
else
	grep -q '"function": "spin_beta", "module": "uobj_beta"' "$W/out" &&
		grep -q '"program": "uobj_beta", "path": ".*", "state": "named"' "$W/out"
	r=$?
fi
ok $r "--json: spin_beta of uobj_beta, the program named, programs + unnamed = the user total"
[ $r -eq 0 ] || diag "$W/out"

# ---- -g --folded: the user samples' call chains beside the kernel's stacks ----
# (uobj_beta has no frame pointers: its chains end in spin_beta, whatever
# frames a walk of the stack finds before it)
run 0 "prf record -g --folded -- uobj_beta 0.3" "$B/prf" record -g --folded -z $HZ -- taskset -c 0 "$B/uobj_beta" 0.3
fb=$(folded_of "$W/out" '^uobj_beta;(.*;)?spin_beta$')
fu=$(folded_of "$W/out" '^\\[user\\]$')
awk -v a="${fb:-0}" -v u="${fu:-0}" 'BEGIN { exit !(a > 0 && a >= 4 * u) }'
r=$?
ok $r "-g --folded: uobj_beta's lines ending in spin_beta ${fb:-none}, the user samples of no chain ${fu:-0}"
[ $r -eq 0 ] || diag "$W/out"

# ---- -g: whole user call chains, with frame pointers ----
# (--unwind fp: the frame records' walk, which needs no table; the tables'
# walk, and a program a wrapper such as taskset execs, are
# guest_unwind_test.sh's: until the watcher has built its table, a few
# tens of milliseconds in a loaded guest, such a program's chains end at
# its code)
run 0 "prf record -g --unwind fp --folded -- uobj_chain chain 0.4" "$B/prf" record -g --unwind fp \
	--folded -z $HZ -- \
	taskset -c 0 "$B/uobj_chain" chain 0.4
cp "$W/out" "$W/chain.folded"
if grep -q "no user call chains" "$W/err"; then
	ok 0 "-g: user call chains # SKIP this prf.ko has none"
else
	c=$(folded_of "$W/chain.folded" '^uobj_chain;(.*;)?main;chain_outer;chain_middle;spin_chain$')
	# of the samples in spin_chain: 14 of 48 were elsewhere in the
	# program in a loaded arm64 guest, most likely its start-up (a static
	# binary's, all in its file), whose first run under TCG draws the
	# samples due while its code is translated; not the chain judged here
	all=$(folded_of "$W/chain.folded" '^uobj_chain;(.*;)?spin_chain$')
	fu=$(folded_of "$W/chain.folded" '^\\[user\\]$')
	# (a floor of 5 samples: a loaded host's guest loses many periods)
	awk -v c="$c" -v a="$all" -v u="$fu" 'BEGIN { exit !(c >= 5 && c >= 0.8 * (a + u)) }'
	r=$?
	ok $r "-g --folded: main;chain_outer;chain_middle;spin_chain root first under uobj_chain, $c of its $all samples in spin_chain and the $fu of no chain (at least 80 %)"
	[ $r -eq 0 ] || diag "$W/chain.folded"
	# what the chains look like, in the log
	grep -E '^uobj_chain;|^\[user\] ' "$W/chain.folded" | head -4 | diag
	awk -v a="$all" -v u="$fu" 'BEGIN { exit !(u <= 2 || u <= 0.1 * (a + u)) }'
	r=$?
	ok $r "-g --folded: the user samples of no chain ([user]) $fu, at most a tenth"
	[ $r -eq 0 ] || diag "$W/chain.folded"
fi

# ---- code generated at run time, named by its /tmp/perf-PID.map ----
# jitprog spins in two functions it copied into anonymous memory, three
# quarters and a quarter of its CPU time by its own clock, and names them
# in its map: each named (module perf-PID.map), jit_spin_a's share of the
# two's samples within 2 points of the truth the program measured: its
# share of the rounds the two ran (the same loop: their split of the time
# the CPU ran them) and of their CPU clock.  On a quiet host the two agree;
# on a busy one the guest's clock also counts time its vCPU was held off,
# which prf's late timer counts as a single sample (the periods missed are
# lost), so the truth of what prf saw lies between the two shares, and the
# samples' share must too, within 2 points (see tests/jitprog.c).  Then in
# the snapshot (prfpr, record type 8 with the pid), -g --folded and pprof.
# 6 s at 2000 Hz: a starved guest's late timer gives one sample for a
# stall however long, the rest of the time a sample a period; the more
# periods, the less those stalls weigh (four runs at 1000 Hz for 4 s, 4100
# to 5600 periods lost, gave 0.1 to 1.8 points off).
run 0 "prf record -o -- jitprog 6" "$B/prf" record --csv -c 0 -z 2000 -o "$W/jit.prf" -- \
	taskset -c 0 "$B/jitprog" 6 "$W/jit.res"
cp "$W/out" "$W/jit.csv"
read -r jpid ja jb ra rb <"$W/jit.res"
sa=$(samples_of "$W/jit.csv" jit_spin_a "perf-$jpid.map")
sb=$(samples_of "$W/jit.csv" jit_spin_b "perf-$jpid.map")
[ "$sa" -gt 0 ] && [ "$sb" -gt 0 ]
r=$?
ok $r "jit: jit_spin_a and jit_spin_b of perf-$jpid.map named ($sa, $sb samples)"
[ $r -eq 0 ] || diag "$W/jit.csv"
# pct A B: A's share of A + B, in percent
pct() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b); else print "none" }'; }
# between S's share of rounds W and of CPU clock C, within 2 points
awk -v s="$(pct "$sa" "$sb")" -v w="$(pct "$ra" "$rb")" -v c="$(pct "$ja" "$jb")" 'BEGIN {
	if (s == "none" || w == "none" || c == "none")
		exit 1
	lo = w < c ? w : c; hi = w < c ? c : w
	exit !(s >= lo - 2 && s <= hi + 2) }'
r=$?
ok $r "jit: jit_spin_a's share $(pct "$sa" "$sb") % of the two's samples, between $(pct "$ra" "$rb") % of their rounds and $(pct "$ja" "$jb") % of their CPU clock within 2 points ($(lost_of "$W/jit.csv") periods lost)"
[ $r -eq 0 ] || diag "$W/jit.res"
run 0 "prfpr of prf record -o's snapshot" "$B/prfpr" --csv -c 0 "$W/jit.prf"
pa=$(samples_of "$W/out" jit_spin_a "perf-$jpid.map")
[ "$pa" -gt 0 ] && [ "$pa" -eq "$sa" ]
r=$?
ok $r "jit: prfpr names jit_spin_a from the snapshot's record as prf record did ($pa, $sa)"
[ $r -eq 0 ] || diag "$W/out"
rm -f "/tmp/perf-$jpid.map"
run 0 "prf record -g --folded --pprof -- jitprog 0.5" "$B/prf" record -g --folded -z $HZ \
	--pprof "$W/jit.pb.gz" -- taskset -c 0 "$B/jitprog" 0.5 "$W/jit2.res"
read -r jpid ja jb ra rb <"$W/jit2.res"
jf=$(folded_of "$W/out" ';jit_spin_a$')
[ "$jf" -gt 0 ]
r=$?
ok $r "jit: -g --folded: lines ending in jit_spin_a ($jf samples)"
[ $r -eq 0 ] || diag "$W/out"
zcat "$W/jit.pb.gz" | grep -aq jit_spin_a
ok $? "jit: --pprof: jit_spin_a among the profile's strings"
rm -f "/tmp/perf-$jpid.map"
run 0 "prf record -- jitprog 0.3 nomap" "$B/prf" record --csv -c 0 -z $HZ -- \
	taskset -c 0 "$B/jitprog" 0.3 "$W/jit3.res" nomap
read -r jpid ja jb ra rb <"$W/jit3.res"
n3=$(samples_of "$W/out" "[anonymous/JIT] (no /tmp/perf-$jpid.map)" "[anonymous]")
[ "$n3" -gt 0 ]
r=$?
ok $r "jit: without its map: [anonymous/JIT] (no /tmp/perf-$jpid.map), $n3 samples"
[ $r -eq 0 ] || diag "$W/out"

# ---- Node's JIT (--perf-basic-prof): a hot JavaScript function named ----
# hotLoop, called from the script's loop for 3 s (not inlined into it:
# --no-turbo-inlining, so that its samples are its own): its rows (the
# tiers V8 compiled it to, JS:*hotLoop ..., of module perf-PID.map) hold
# more samples than any other user function.
if ! command -v node >/dev/null 2>&1; then
	ok 0 "node --perf-basic-prof # SKIP no node in this guest (scripts/deps.sh installs nodejs; arm64's guest has its initramfs alone)"
else
	run 0 "prf record -- node --perf-basic-prof (hotLoop for 3 s)" \
		"$B/prf" record --csv -c 0 -z $HZ -- taskset -c 0 node --perf-basic-prof \
		--no-turbo-inlining -e 'function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }
			const end = Date.now() + 3000; let x = 0; while (Date.now() < end) x += hotLoop(1e6);'
	cp "$W/out" "$W/node.csv"
	# hotLoop's samples, and the most any other user function has
	awk -F, '$6 == "function" && ($4 ~ /^perf-[0-9]+\.map$/ || $9 != "") {
			if ($3 ~ /hotLoop/ && $4 ~ /^perf-/) h += $1; else if ($1 > o) o = $1 }
		END { print h + 0, o + 0 }' "$W/node.csv" >"$W/node.n"
	read -r h o <"$W/node.n"
	[ "$h" -ge 10 ] && [ "$h" -gt "$o" ]
	r=$?
	ok $r "node --perf-basic-prof: hotLoop named from its map, $h samples, more than any other user function ($o)"
	[ $r -eq 0 ] || grep -E 'hotLoop|perf-|\[user' "$W/node.csv" | head -20 | diag
	rm -f /tmp/perf-*.map
fi

# ---- -g: a system call's kernel stack joined to its user chain ----
rm -f "$W/sys.prf"
# (frame records: see above)
run 0 "prf record -g --unwind fp --folded -o FILE -- uobj_chain sys 0.4" "$B/prf" record -g \
	--unwind fp --folded -z $HZ -o "$W/sys.prf" -- taskset -c 0 "$B/uobj_chain" sys 0.4
cp "$W/out" "$W/sys.folded"
if grep -q "no user call chains" "$W/err"; then
	ok 0 "-g: a system call joined to its user chain # SKIP this prf.ko has no chains"
else
	j=$(folded_of "$W/sys.folded" '^uobj_chain;(.*;)?main;sys_loop;read_zero;(.*;)?vfs_read(;|$)')
	k=$(folded_of "$W/sys.folded" '(^|;)vfs_read(;|$)')
	awk -v j="${j:-0}" -v k="${k:-0}" 'BEGIN { exit !(j > 0 && j * 100 >= k * 80) }'
	r=$?
	ok $r "-g --folded: $j of the $k samples in vfs_read on one line with uobj_chain;main;sys_loop;read_zero (at least 80 %)"
	[ $r -eq 0 ] || diag "$W/sys.folded"
	grep -E '^uobj_chain;.*read_zero;' "$W/sys.folded" | head -3 | diag
	# the pairs kept in the file: prfpr gives the same lines, line for line
	run 0 "prfpr --folded FILE of prf record -g -o" "$B/prfpr" --folded "$W/sys.prf"
	cmp -s "$W/out" "$W/sys.folded"
	r=$?
	ok $r "prfpr --folded FILE of prf record -g -o: the joined lines prf record printed"
	[ $r -eq 0 ] || diff "$W/sys.folded" "$W/out" | head -20 | diag
	# the other views join too: vfs_read's outermost kernel caller (the
	# arch's entry from user mode) has for caller the user function that
	# made the system call
	case $(uname -m) in
	aarch64) entry=el0t_64_sync ;;
	*) entry=entry_SYSCALL_64_after_hwframe ;;
	esac
	run 0 "prfpr --csv --callers $entry FILE" "$B/prfpr" --csv \
		--callers "$entry" "$W/sys.prf"
	sed -n 2p "$W/out" | grep -q '^[0-9]*,[0-9.]*,read_zero,uobj_chain,'
	r=$?
	ok $r "prfpr --callers $entry: read_zero of uobj_chain its first caller"
	[ $r -eq 0 ] || diag "$W/out"
fi

# ---- a program deleted while it runs: deleted, never named ----
# (removed once it runs: rm before taskset's exec failed the exec, 0 samples)
cp "$B/uobj_beta" "$W/gone"
run 0 "prf record -- sh -c 'gone 0.4 & rm gone; wait'" \
	"$B/prf" record --csv -c 0 -z $HZ -- sh -c "taskset -c 0 $W/gone 0.4 & p=\$!
		until grep -qx gone /proc/\$p/comm 2>/dev/null; do sleep 0.02; done
		rm $W/gone; wait \$p"
cp "$W/out" "$W/gone.csv"
d=$(samples_of "$W/gone.csv" "[gone (deleted)]" "gone (deleted)")
nb=$(awk -F, '$3 == "spin_beta" { s += $1 } END { print s + 0 }' "$W/gone.csv")
near "$W/gone.csv" "$d" $((HZ * 4 / 10)) && [ "$nb" -eq 0 ] &&
	grep -q "^[0-9]*,[0-9.]*,gone (deleted),deleted," "$W/gone.csv"
r=$?
ok $r "deleted: its $d samples as [gone (deleted)] ($(lost_of "$W/gone.csv") periods lost), state deleted, no function named ($nb spin_beta)"
[ $r -eq 0 ] || diag "$W/gone.csv"

# ---- --no-user-objs: as before, the exec'd program in the user total ----
run 0 "prf record --no-user-objs -- sh -c 'uobj_beta 0.2'" \
	"$B/prf" record --csv -c 0 -z $HZ --no-user-objs -- sh -c "taskset -c 0 $B/uobj_beta 0.2; true"
nb=$(awk -F, '$3 == "spin_beta" { s += $1 } END { print s + 0 }' "$W/out")
[ "$nb" -eq 0 ] && ! grep -q "^samples,percent_of_user" "$W/out"
ok $? "--no-user-objs: no user objects (spin_beta $nb, no per-program view)"

# ---- prf top --user-objs: every process's user code, system-wide ----
"$B/prfstat" -f /dev/prf -q off 2>/dev/null
taskset -c 1 "$B/uobj_gamma" 30 &
busy=$!
sleep 0.2
run 0 "prf top --user-objs -n 2 -d 1 (uobj_gamma busy, no command)" \
	"$B/prf" top --user-objs -n 2 -d 1 --lines 40
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null
cp "$W/out" "$W/top.txt"
# the last frame: spin_gamma of uobj_gamma, about a CPU's worth of samples of the interval
grep -q "spin_gamma  *uobj_gamma" "$W/top.txt"
r=$?
ok $r "prf top --user-objs: spin_gamma of uobj_gamma named, system-wide"
[ $r -eq 0 ] || diag "$W/top.txt"
run 0 "prf top without --user-objs: the table off again at exit" \
	"$B/prf" top -n 1 -d 0.5 --lines 40
! grep -q "spin_gamma\|uobj_gamma" "$W/out"
ok $? "prf top: no user names without --user-objs"

# ---- prfstat --user-objs: the table on /dev/prf, read by prf top while ON ----
run 0 "prfstat --user-objs 1000:100" "$B/prfstat" -f /dev/prf --user-objs 1000:100
grep -q "^user objects  *entries 0/1000, files 0/100, lost 0, dropped 0, unmapped 0$" "$W/out"
r=$?
ok $r "prfstat: the user objects line (0/1000 entries, 0/100 files)"
[ $r -eq 0 ] || diag "$W/out"
"$B/prfstat" -f /dev/prf -q on
taskset -c 1 "$B/uobj_gamma" 30 &
busy=$!
run 0 "prf top --user-objs -n 1 -d 1, ON with prfstat's table" "$B/prf" top --user-objs -n 1 -d 1 --lines 40
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null
grep -q "spin_gamma  *uobj_gamma" "$W/out"
r=$?
ok $r "prf top --user-objs while ON: the device's own table names spin_gamma"
[ $r -eq 0 ] || diag "$W/out"
"$B/prfstat" -f /dev/prf -q off
run 0 "prfstat (status)" "$B/prfstat" -f /dev/prf
grep "^user objects" "$W/out" | awk '{ split($4, e, "/"); exit !(e[1] > 0 && $4 ~ /\/1000,$/) }'
r=$?
ok $r "prfstat: the table's entries used ($(grep "^user objects" "$W/out"))"
run 0 "prfstat --user-objs off" "$B/prfstat" -f /dev/prf --user-objs off
grep -q "^user objects  *off$" "$W/out"
ok $? "prfstat --user-objs off: the table freed"

# ---- prfstat --user-chains: chains and pairs on /dev/prf, kept by prfsnap ----
# Bad depths and a set-up while ON are refused, said, the state unchanged.
# Then stacks and chains of 8 frames on /dev/prf (the default table's
# sizes: none was left), ON while uobj_chain reads /dev/zero on CPU 0
# until it has spent 0.5 s in the kernel (however long the guest takes),
# OFF: prfsnap keeps the pairs, and prfpr --folded of the file has the
# read's kernel stack joined to uobj_chain's user chain on one line.
"$B/prfld" -q -f /dev/prf
ustate() { "$B/prfstat" -f /dev/prf | grep -E "^(sampling|stacks|user objects) " >"$1"; }
ustate "$W/us.before"
for d in 1 33; do
	run 2 "prfstat --stacks 8 --user-chains $d" "$B/prfstat" -f /dev/prf --stacks 8 --user-chains $d
	ustate "$W/us.after"
	[ "$(head -n 1 "$W/err")" = "prfstat: --user-chains $d: want DEPTH 2..32 (frames of a user call chain) or 0 (none)" ] &&
		cmp -s "$W/us.before" "$W/us.after"
	r=$?
	ok $r "prfstat --user-chains $d: refused, said, stacks and table unchanged"
	[ $r -eq 0 ] || { diag "$W/err"; diag "$W/us.after"; }
done
run 0 "prfstat --stacks 8 --user-chains 8" "$B/prfstat" -f /dev/prf --stacks 8 --user-chains 8
grep -q "^user objects  *entries 0/65536, files 0/4096, lost 0, dropped 0, unmapped 0; chains 0/65536 of 8 frames, dropped 0$" "$W/out" &&
	grep -q "^stacks  *depth 8, " "$W/out"
r=$?
ok $r "prfstat --stacks 8 --user-chains 8: the default table with chains of 8 frames, stacks of 8"
[ $r -eq 0 ] || diag "$W/out"
"$B/prfstat" -f /dev/prf -q on
taskset -c 0 "$B/uobj_chain" sys 600 &
busy=$!
# its system time, in clock ticks (field 15 of /proc/PID/stat, after the
# command's closing parenthesis), until 50 ticks (0.5 s) or 10 minutes
stime() { sed 's/.*) //' "/proc/$busy/stat" 2>/dev/null | awk '{ print $13 + 0 }'; }
i=0
until [ "$(stime)" -ge 50 ] 2>/dev/null || [ $i -ge 6000 ]; do
	sleep 0.1
	i=$((i + 1))
done
ustate "$W/us.on"
run 1 "prfstat --user-chains 4 while ON" "$B/prfstat" -f /dev/prf --user-chains 4
ustate "$W/us.on2"
[ "$(cat "$W/err")" = "prfstat: /dev/prf: PRF_SETUOBJS: Device or resource busy (sampling is ON: run 'prfstat -f /dev/prf off' first)" ] &&
	grep -q "^user objects .*; chains [0-9]*/65536 of 8 frames, " "$W/us.on2" &&
	grep -q "^stacks  *depth 8, " "$W/us.on2"
r=$?
ok $r "prfstat --user-chains 4 while ON: EBUSY said, chains of 8 frames kept"
[ $r -eq 0 ] || { diag "$W/err"; diag "$W/us.on2"; }
"$B/prfstat" -f /dev/prf -q off
kill "$busy" 2>/dev/null
wait "$busy" 2>/dev/null
run 0 "prfstat (user chains used)" "$B/prfstat" -f /dev/prf
grep "^user objects" "$W/out" | awk '{ split($14, c, "/"); exit !($13 == "chains" && c[1] > 0) }'
r=$?
ok $r "prfstat: the chains used shown ($(grep "^user objects" "$W/out"))"
rm -f "$W/uc.prf"
run 0 "prfsnap of /dev/prf with stacks and chains" "$B/prfsnap" -f /dev/prf "$W/uc.prf"
run 0 "prfpr --since-load --folded of prfsnap's file" "$B/prfpr" --since-load --folded "$W/uc.prf"
cp "$W/out" "$W/uc.folded"
j=$(folded_of "$W/uc.folded" '^uobj_chain;(.*;)?main;sys_loop;read_zero;(.*;)?vfs_read(;|$)')
k=$(folded_of "$W/uc.folded" '(^|;)vfs_read(;|$)')
awk -v j="${j:-0}" -v k="${k:-0}" 'BEGIN { exit !(j > 0 && j * 100 >= k * 50) }'
r=$?
ok $r "prfstat --user-chains, prfsnap: $j of the $k samples in vfs_read joined to uobj_chain;main;sys_loop;read_zero (at least half)"
[ $r -eq 0 ] || { diag "$W/uc.folded"; diag "$W/err"; }
grep -E '^uobj_chain;.*read_zero;' "$W/uc.folded" | head -3 | diag
run 0 "prfstat --stacks 0 --user-objs off" "$B/prfstat" -f /dev/prf -q --stacks 0 --user-objs off

# ---- prf daemon --user-objs --stacks: the store's user call chains ----
# A private instance with the table and chains, an interval a second while
# uobj_chain spins on CPU 0: prfpr DIR from the first snapshot to the last
# (the later table less the earlier) has its chain, root first. The program
# spins until the fourth snapshot is stored, however long the daemon takes
# to start (a starved guest took more than the 6 s it once had).
taskset -c 0 "$B/uobj_chain" chain 600 &
daemon_snaps "$W/dstore" 4 $! --user-objs --stacks 8 --unwind fp
r=$?
ok $r "prf daemon --user-objs --stacks 8: 4 intervals stored, exit 0 at SIGTERM (exit $dst)"
[ $dst -eq 0 ] || diag "$W/dstore.err"
run 0 "prfpr --all --folded DIR of prf daemon --user-objs" "$B/prfpr" --all --folded "$W/dstore"
c=$(folded_of "$W/out" '^uobj_chain;(.*;)?main;chain_outer;chain_middle;spin_chain$')
[ "${c:-0}" -gt 0 ]
r=$?
ok $r "prf daemon --user-objs: prfpr DIR has uobj_chain's main;chain_outer;chain_middle;spin_chain between two snapshots (${c:-0} samples)"
[ $r -eq 0 ] || { diag "$W/out"; "$B/prfpr" -l "$W/dstore" 2>&1 | diag; }

# ---- prf cfi on the guest's architecture ----
# Where prf carries its own C library (arm64: tools/Makefile), the host's
# prf cfi read that file's rows into cfi-libc.csv (scripts/check.sh): this
# machine's prf cfi, with its own libdw, reads the same.
if [ -f "$B/lib/libc.so.6" ]; then
	if [ -f "$B/cfi-libc.csv" ]; then
		run 0 "prf cfi --csv of the C library beside prf" "$B/prf" cfi --csv "$B/lib/libc.so.6"
		cmp -s "$W/out" "$B/cfi-libc.csv"
		r=$?
		ok $r "prf cfi on ${PRF_ARCH:-$(uname -m)}: the C library's $(($(wc -l <"$B/cfi-libc.csv") - 1)) rows, as the host's prf cfi reads them"
		[ $r -eq 0 ] || { diff "$B/cfi-libc.csv" "$W/out" | head -5 | diag; }
	else
		ok 0 "prf cfi of the C library beside prf # SKIP no $B/cfi-libc.csv (scripts/check.sh writes it on the host)"
	fi
fi

echo "1..$n"
[ "$fail" -eq 0 ]
