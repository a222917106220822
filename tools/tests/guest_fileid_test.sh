#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Which file a user sample is in, where a file system's inode numbers or
# devices are not what (superblock device, inode number) would say, through
# prf record against the real device, in a test guest with prf.ko and the
# file systems loaded:
#   selftests/vm/run --kernel debian-6.1 --smp 2 \
#	--modules "crc32c_generic loop overlay btrfs" \
#	-- tools/tests/guest_fileid_test.sh
# Needs the tools built on the host first (make -C tools: prf, uobj_alpha
# and uobj_beta of tests/uobjprog.c) and, for btrfs, btrfs-progs (its
# mkfs.btrfs and btrfs, run in the guest from the host's root).  TAP.
#
# - btrfs: two subvolumes of one file system, uobj_alpha in one and
#   uobj_beta in the other, each the first file of its subvolume, so both
#   have inode number 257 (checked), on one superblock, while stat(2) gives
#   each subvolume a device of its own (checked).  Both run at once under
#   one prf record: each one's function is named under its own program
#   (spin_alpha under uobj_alpha, spin_beta under uobj_beta), each program
#   is "named" by its own path in the per-program view, and nothing is
#   "(replaced)".
# - overlayfs, a container's root: uobj_alpha in the lower layer, uobj_beta
#   written through the overlay (so in the upper one), both run from the
#   overlay, where stat(2) gives the overlay's device (checked: not the
#   layers'): each named, by its path in the overlay, nothing "(replaced)".
# A kernel without btrfs or overlayfs (neither built in nor loaded: the
# debug and pseudo-NMI kernels) skips that part.
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
W=$(mktemp -d /tmp/prf-fileid-test.XXXXXX)
cleanup() {
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	umount "$W/ovl/merged" 2>/dev/null
	umount "$W/btrfs" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
export LC_ALL=C
HZ=100
SECS=0.5

skip_unless_ready
for p in uobj_alpha uobj_beta; do
	if [ ! -x "$B/$p" ]; then
		echo "1..0 # SKIP $B/$p is missing: run make -C tools on the host first"
		exit 0
	fi
done

# prf record follows the command's processes by a cgroup of its own
if ! grep -q cgroup2 /proc/mounts; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
fi

# The samples of the CSV report's function rows named $2 of module $3.
samples_of() {
	awk -F, -v f="$2" -v m="$3" '$3 == f && $4 == m && $6 != "total" { s += $1 }
		END { print s + 0 }' "$1"
}
# The samples of program $2 in the CSV report's per-program view.
program_of() {
	awk -F, -v p="$2" '/^samples,percent_of_user,/ { on = 1; next }
		on && $3 == p { s += $1 } END { print s + 0 }' "$1"
}
# mostly GOT ALL: GOT is at least 5 and 80 % of ALL (a program's samples,
# most of them in its spin function; one misnamed has none there)
mostly() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 5 && a >= 0.8 * b) }'; }
has_fs() { grep -qw "$1" /proc/filesystems; }

# both PREFIX A B: prf record of $A/uobj_alpha and $B/uobj_beta at once;
# each named under its own program by its own path, nothing "(replaced)"
both() {
	run 0 "$1: prf record -- uobj_alpha & uobj_beta, $SECS s each, at once" \
		"$B/prf" record --csv -c 0 -z $HZ -- \
		sh -c "$2/uobj_alpha $SECS & $3/uobj_beta $SECS; wait"
	cp "$W/out" "$W/$1.csv"
	a=$(samples_of "$W/$1.csv" spin_alpha uobj_alpha)
	b=$(samples_of "$W/$1.csv" spin_beta uobj_beta)
	pa=$(program_of "$W/$1.csv" uobj_alpha)
	pb=$(program_of "$W/$1.csv" uobj_beta)
	mostly "$a" "$pa" && mostly "$b" "$pb"
	r=$?
	ok $r "$1: spin_alpha under uobj_alpha $a samples of its $pa, spin_beta under uobj_beta $b of its $pb (each at least 5 and 80 %)"
	[ $r -eq 0 ] || diag "$W/$1.csv"
	grep -q "^[0-9]*,[0-9.]*,uobj_alpha,named,$2/uobj_alpha\$" "$W/$1.csv" &&
		grep -q "^[0-9]*,[0-9.]*,uobj_beta,named,$3/uobj_beta\$" "$W/$1.csv"
	r=$?
	ok $r "$1: the per-program view names each program by its own path"
	[ $r -eq 0 ] || diag "$W/$1.csv"
	! grep -q "replaced" "$W/$1.csv"
	r=$?
	ok $r "$1: no file \"(replaced)\""
	[ $r -eq 0 ] || grep "replaced" "$W/$1.csv" | diag
}

# ---- btrfs: two subvolumes, a program in each, one inode number ----
if ! has_fs btrfs || ! command -v mkfs.btrfs >/dev/null 2>&1; then
	for t in "same inode number" "at once" "named" "own paths" "replaced"; do
		ok 0 "btrfs: $t # SKIP no btrfs in this kernel or no mkfs.btrfs"
	done
else
	# a sparse image in the guest's /tmp (tmpfs); mkfs.btrfs's minimum
	# for one device is about 110 MiB
	truncate -s 256M "$W/btrfs.img"
	mkdir "$W/btrfs"
	mkfs.btrfs -q "$W/btrfs.img" >"$W/mkfs" 2>&1 &&
		mount -o loop "$W/btrfs.img" "$W/btrfs" &&
		btrfs -q subvolume create "$W/btrfs/one" >/dev/null &&
		btrfs -q subvolume create "$W/btrfs/two" >/dev/null &&
		cp "$B/uobj_alpha" "$W/btrfs/one/" && cp "$B/uobj_beta" "$W/btrfs/two/"
	r=$?
	[ $r -eq 0 ] || diag "$W/mkfs"
	ia=$(stat -c %i "$W/btrfs/one/uobj_alpha" 2>/dev/null)
	ib=$(stat -c %i "$W/btrfs/two/uobj_beta" 2>/dev/null)
	da=$(stat -c %d "$W/btrfs/one/uobj_alpha" 2>/dev/null)
	db=$(stat -c %d "$W/btrfs/two/uobj_beta" 2>/dev/null)
	[ $r -eq 0 ] && [ -n "$ia" ] && [ "$ia" = "$ib" ] && [ "$da" != "$db" ]
	ok $? "btrfs: the two programs have one inode number ($ia, $ib), two st_dev ($da, $db)"
	both btrfs "$W/btrfs/one" "$W/btrfs/two"
	umount "$W/btrfs"
fi

# ---- overlayfs: a container's root, a program in each layer ----
if ! has_fs overlay; then
	for t in "st_dev" "at once" "named" "own paths" "replaced"; do
		ok 0 "overlay: $t # SKIP no overlayfs in this kernel"
	done
else
	o=$W/ovl
	mkdir -p "$o/lower" "$o/upper" "$o/work" "$o/merged"
	cp "$B/uobj_alpha" "$o/lower/" &&
		mount -t overlay overlay -o \
			"lowerdir=$o/lower,upperdir=$o/upper,workdir=$o/work" "$o/merged" &&
		cp "$B/uobj_beta" "$o/merged/" && [ -f "$o/upper/uobj_beta" ]
	r=$?
	dm=$(stat -c %d "$o/merged/uobj_alpha" 2>/dev/null)
	dl=$(stat -c %d "$o/lower/uobj_alpha" 2>/dev/null)
	[ $r -eq 0 ] && [ -n "$dm" ] && [ "$dm" != "$dl" ]
	ok $? "overlay: uobj_alpha below, uobj_beta above; st_dev in the overlay $dm, below $dl"
	both overlay "$o/merged" "$o/merged"
	umount "$o/merged"
fi

echo "1..$n"
[ "$fail" -eq 0 ]
