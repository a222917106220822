#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Call stacks and modes (issues 13 and 15) through the tools, against the real
# device, in a test guest with prf.ko loaded:
#   selftests/vm/run --kernel debian-6.1 -- tools/tests/guest_stacks_test.sh
# Needs the tools built on the host first (make -C tools).  TAP output.
#
# Stacks: reads of /dev/zero with stacks of 16 frames must give folded lines
# with vfs_read calling read_zero (or read_iter_zero), root first (the
# syscall entry before vfs_read), the zeroing function after it; the stacks
# must add up to the kernel's flat samples (with the dropped ones);
# --callers/--callees must name vfs_read and read_zero; a depth of 2 must
# cut stacks and mark them [truncated].
# Modes: calls of vfs_read while dd reads N blocks (at least N); kernel
# allocations while files are created in a tmpfs (non-zero sites, allocs
# and bytes).
#
# Environment: PRF_BIN (default: tools/build beside this script), HZ
# (default 1000), BLOCKS (dd's reads, default 200000).

T=$(cd "$(dirname "$0")" && pwd)
B=${PRF_BIN:-$T/../build}
B=$(cd "$B" 2>/dev/null && pwd)
HZ=${HZ:-1000}
BLOCKS=${BLOCKS:-200000}
# What reads of /dev/zero spend their kernel time in, below read_zero.
ZERO='clear_user|rep_stos|iov_iter_zero|__clear_user|memset|_copy_to_iter|fault_in|copy_user|clear_page'
# The read(2) entry below vfs_read, on x86-64 and arm64.
ENTRY='entry_SYSCALL_64|do_syscall_64|__x64_sys_read|ksys_read|el0_svc|invoke_syscall|__arm64_sys_read'
W=$(mktemp -d /tmp/prf-stacks-test.XXXXXX)
cleanup() {
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
export LC_ALL=C

. "$(dirname "$0")/tap.sh"

if [ ! -c /dev/prf ]; then
	echo "1..0 # SKIP /dev/prf is missing (prf.ko not loaded)"
	exit 0
fi
if [ ! -x "$B/prf" ] || ! "$B/prf" --version >/dev/null 2>&1; then
	echo "1..0 # SKIP $B/prf missing or not for this machine: run make -C tools on the host first"
	exit 0
fi
P=$B/prf

# The folded lines of stacks (not [user], [idle], [outside], [stack dropped]).
stack_lines() { grep -v '^\[[a-z ]*\] [0-9]*$' "$1"; }
# The samples of the folded lines matching an extended regex.
folded_sum() { grep -E "$2" "$1" | awk '{ s += $NF } END { print s + 0 }'; }
# A total of the text report ("kernel", "total", ...).
total_of() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# A row of a --csv report: its first column (samples/calls/...) for function $2.
csv_count() { awk -F, -v f="$2" '$3 == f { s += $1 } END { print s + 0 }' "$1"; }

run 0 "prfld (every kernel function)" "$B/prfld" -q
run 0 "prfstat off" "$B/prfstat" -q off
if ! "$B/prfstat" --stacks 16 >"$W/probe" 2>&1; then
	if grep -q "no stack table" "$W/probe"; then
		echo "1..$n # SKIP prf.ko without stacks (struct prf_info before version 4)"
		exit 0
	fi
	diag "$W/probe"
fi

# ---- stacks of reads of /dev/zero ----
# Both snapshots while OFF: a snapshot reads the counters and the stacks one
# after the other, so only then do they hold the same samples.
run 0 "prfstat --hz $HZ --stacks 16" "$B/prfstat" -q --hz "$HZ" --stacks 16
run 0 "prfstat: stacks set up" "$B/prfstat"
grep -q "^stacks  *depth 16, capacity 4096," "$W/out"
ok $? "prfstat shows depth 16, capacity 4096"
run 0 "prfsnap (before)" "$B/prfsnap" "$W/z.prf"
run 0 "prfstat on" "$B/prfstat" -q on
run 0 "dd if=/dev/zero of=/dev/null bs=64k count=$BLOCKS" dd if=/dev/zero of=/dev/null bs=64k count="$BLOCKS"
run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prfsnap (after)" "$B/prfsnap" "$W/z.prf"
run 0 "prfpr --folded" "$P" pr --folded "$W/z.prf"
cp "$W/out" "$W/z.folded"
sort -t' ' -k2 -rn "$W/z.folded" | head -20 | diag
grep -Eq '(^|;)vfs_read;(read_zero|read_iter_zero)(;| )' "$W/z.folded"
ok $? "folded: vfs_read calls read_zero (or read_iter_zero)"
grep -Eq "(^|;)($ENTRY);.*vfs_read;(read_zero|read_iter_zero)" "$W/z.folded"
ok $? "folded: root first, the syscall entry before vfs_read"
grep -Eq "(read_zero|read_iter_zero);.*($ZERO)" "$W/z.folded"
ok $? "folded: the zeroing function after read_zero, leaf last"
zs=$(folded_sum "$W/z.folded" 'vfs_read;(read_zero|read_iter_zero)')
[ "$zs" -gt $((HZ / 20)) ]
ok $? "folded: $zs samples in vfs_read -> read_zero"
# Stacks add up: every sample counted against the table has a stack, or is
# counted as dropped.
run 0 "prfpr -c 0 (flat)" "$P" pr -c 0 "$W/z.prf"
cp "$W/out" "$W/z.txt"
# (the kernel total less the PCs below the table's first address, which
# are in no counter and have no stack: uapi)
kern=$(total_of "$W/z.txt" kernel)
outside=$(total_of "$W/z.txt" outside)
st=$(stack_lines "$W/z.folded" | awk '{ s += $NF } END { print s + 0 }')
dr=$(awk '/^\[stack dropped\] / { print $3 }' "$W/z.folded")
[ -n "$kern" ] && [ -n "$outside" ] &&
	[ "$((st + ${dr:-0}))" -eq "$((kern - outside))" ]
ok $? "stacks add up: $st in stacks + ${dr:-0} dropped = $kern kernel - ${outside:-?} outside"
run 0 "prfpr --callers read_zero" "$P" pr --callers read_zero "$W/z.prf"
cp "$W/out" "$W/callers.txt"
diag "$W/callers.txt" | head -8
awk 'NR > 2 && $3 == "vfs_read"' "$W/callers.txt" | grep -q .
ok $? "--callers read_zero lists vfs_read"
run 0 "prfpr --callees vfs_read" "$P" pr --callees vfs_read "$W/z.prf"
awk 'NR > 2 && ($3 == "read_zero" || $3 == "read_iter_zero")' "$W/out" | grep -q .
ok $? "--callees vfs_read lists read_zero"
run 0 "prfpr --json" "$P" pr --json "$W/z.prf"
grep -q '"stacks": {"depth": 16,' "$W/out"
ok $? "--json carries the stacks"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$W/out" >/dev/null 2>&1
	ok $? "--json is valid JSON"
fi

# ---- a depth of 2: every stack cut, marked ----
run 0 "prfstat --stacks 2,64 on" "$B/prfstat" -q --stacks 2,64 on
run 0 "prfsnap (before)" "$B/prfsnap" "$W/d.prf"
run 0 "dd (depth 2)" dd if=/dev/zero of=/dev/null bs=64k count=$((BLOCKS / 4))
run 0 "prfsnap (after)" "$B/prfsnap" "$W/d.prf"
run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prfpr --folded (depth 2)" "$P" pr --folded "$W/d.prf"
cp "$W/out" "$W/d.folded"
stack_lines "$W/d.folded" | awk '{ sub(/ [0-9]+$/, ""); sub(/^\[truncated\];/, ""); if (split($0, f, ";") > 2) bad = 1 } END { exit bad }'
ok $? "depth 2: no stack of more than 2 frames"
grep -q '^\[truncated\];' "$W/d.folded"
ok $? "depth 2: the cut stacks have a [truncated] root"
run 0 "prfstat --stacks 0 (off)" "$B/prfstat" -q --stacks 0
run 0 "prfstat" "$B/prfstat"
grep -q "^stacks  *off$" "$W/out"
ok $? "prfstat: stacks off"

# ---- calls: vfs_read while dd reads ----
# A table of a few functions: traced, every call of theirs costs (a table of
# every kernel function traces them all, and under TCG the guest's kernel
# then runs many times slower).  _etext is no function: refused, said.
CALLS=2000
# (_etext last: the report names the kernel's last address its end sentinel)
grep -E ' [tT] (vfs_read|vfs_write|ksys_read|read_zero)$| [A-Za-z] _etext$' /proc/kallsyms >"$W/few.syms"
run 0 "prfld (vfs_read, vfs_write, ksys_read, read_zero, _etext)" "$B/prfld" -q -k 0 "$W/few.syms"
if run 0 "prfstat --mode calls on" "$B/prfstat" --mode calls on; then
	grep -Eq "^prfstat: /dev/prf: calls mode: [1-9][0-9]* of [0-9]+ addresses refused " "$W/err"
	ok $? "calls: prfstat on says how many addresses ftrace refused (_etext at least)"
	run 0 "prfsnap (before)" "$B/prfsnap" "$W/c.prf"
	run 0 "dd bs=512 count=$CALLS" dd if=/dev/zero of=/dev/null bs=512 count=$CALLS
	run 0 "prfsnap (after)" "$B/prfsnap" "$W/c.prf"
	run 0 "prfstat off" "$B/prfstat" -q off
	run 0 "prfpr --csv -c 0 (calls)" "$P" pr --csv -c 0 "$W/c.prf"
	cp "$W/out" "$W/c.csv"
	vr=$(csv_count "$W/c.csv" vfs_read)
	rz=$(csv_count "$W/c.csv" read_zero)
	[ "$vr" -ge "$CALLS" ]
	ok $? "calls: vfs_read called $vr times (>= $CALLS reads of dd)"
	[ "$rz" -ge "$CALLS" ] && [ "$rz" -le "$vr" ]
	ok $? "calls: read_zero called $rz times (>= $CALLS, <= vfs_read's)"
	run 0 "prfpr (calls, text)" "$P" pr "$W/c.prf"
	grep -q "^mode calls: counts calls" "$W/out" && grep -q "^ *calls %kernel" "$W/out"
	ok $? "calls: the report says the mode and counts calls"
fi

# ---- alloc-calls: files created in a tmpfs ----
run 0 "prfld (every kernel function again)" "$B/prfld" -q
FILES=300
TMPFS=$W/tmpfs
mkdir -p "$TMPFS"
mount -t tmpfs none "$TMPFS" 2>/dev/null || TMPFS=$W
if run 0 "prfstat --mode alloc-calls on" "$B/prfstat" -q --mode alloc-calls on; then
	run 0 "prfsnap (before)" "$B/prfsnap" "$W/a.prf"
	i=0
	while [ $i -lt $FILES ]; do
		: >"$TMPFS/f$i"
		i=$((i + 1))
	done
	rm -f "$TMPFS"/f*
	run 0 "prfsnap (after)" "$B/prfsnap" "$W/a.prf"
	run 0 "prfstat off" "$B/prfstat" -q off
	run 0 "prfpr --csv -c 0 (alloc-calls)" "$P" pr --csv -c 0 "$W/a.prf"
	cp "$W/out" "$W/a.csv"
	diag "$W/a.csv" | head -12
	allocs=$(awk -F, '$6 == "function" || $6 == "bucket" { s += $1 } END { print s + 0 }' "$W/a.csv")
	[ "$allocs" -ge "$FILES" ]
	ok $? "alloc-calls: $allocs allocations counted against table entries (>= $FILES files)"
	sed -n '/^site,/,$p' "$W/a.csv" >"$W/sites.csv"
	awk -F, 'NR > 1 && $3 > 0 && $5 > 0' "$W/sites.csv" | grep -q .
	ok $? "alloc-calls: per-site rows with allocations and bytes allocated"
	! awk -F, 'NR > 1 && $5 < $4' "$W/sites.csv" | grep -q .
	ok $? "alloc-calls: no site allocated fewer bytes than it requested"
	# The inode and dentry caches' call sites are among them.
	grep -Eq '^(alloc_inode|shmem_alloc_inode|__d_alloc|d_alloc|kmem_cache_alloc[a-z_]*|alloc_empty_file|shmem_get_inode|__shmem_get_inode|security_[a-z_]*)[,+]' "$W/sites.csv"
	ok $? "alloc-calls: an inode/dentry/file allocation site among the sites"
	run 0 "prfstat --mode alloc-bytes (while OFF)" "$B/prfstat" -q --mode alloc-bytes
	run 0 "prfstat --mode alloc-bytes on" "$B/prfstat" -q on
	run 0 "prfsnap (before)" "$B/prfsnap" "$W/b.prf"
	i=0
	while [ $i -lt $FILES ]; do
		echo x >"$TMPFS/g$i"
		i=$((i + 1))
	done
	run 0 "prfsnap (after)" "$B/prfsnap" "$W/b.prf"
	run 0 "prfstat off" "$B/prfstat" -q off
	rm -f "$TMPFS"/g*
	run 0 "prfpr (alloc-bytes)" "$P" pr "$W/b.prf"
	grep -q "^mode alloc-bytes: counts bytes" "$W/out" && grep -Eq "^ +[0-9.]+ (B|KiB|MiB) +[0-9.]+  " "$W/out"
	ok $? "alloc-bytes: rows in B/KiB/MiB"
fi
[ "$TMPFS" != "$W" ] && umount "$TMPFS" 2>/dev/null

# Back to time, no stacks, a plain table, for whoever comes next.
run 0 "prfstat --mode time --stacks 0" "$B/prfstat" -q --mode time --stacks 0
run 0 "prfld (kernel table again)" "$B/prfld" -q
run 0 "prfstat --hz 100" "$B/prfstat" -q --hz 100

echo "1..$n"
[ "$fail" -eq 0 ]
