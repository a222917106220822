#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prf cfi --load against the real device (issue 38, item 1): the unwind
# tables prf builds from Debian's own libc, dynamic loader and python3
# handed to the module (PRF_SETUNWIND) through a private instance, in a
# test guest with prf.ko loaded:
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/tests/guest_cfi_test.sh
# Needs the tools built on the host first (make -C tools).  TAP.
#
# Checked, for each file: prf cfi --summary --load exits 0, and its
# "loaded:" line says the module holds exactly the rows of the summary's
# "rows:" line, with as many bytes as the module counts (24 a row).  Then
# a file that is not ELF: exit 1, nothing loaded.  An arm64 guest has no
# Debian root (its initramfs, static programs): the whole script is one
# SKIP there (guest_uobj_test.sh checks its prf cfi, guest_unwind_test.sh
# its chains).
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
W=$(mktemp -d /tmp/prf-cfi-test.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
export LC_ALL=C

skip_unless_ready
case ${PRF_ARCH:-$(uname -m)} in
arm64 | aarch64)
	echo "1..0 # SKIP no Debian libc, ld.so or python3 in an arm64 guest"
	exit 0 ;;
esac

for f in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	/usr/bin/python3; do
	f=$(readlink -f "$f")
	run 0 "prf cfi --summary --load $f" "$B/prf" cfi --summary --load "$f" ||
		continue
	rows=$(sed -n 's/^rows: *\([0-9]*\) .*/\1/p' "$W/out")
	loaded=$(sed -n 's/^loaded: *\([0-9]*\) rows.*/\1/p' "$W/out")
	bytes=$(sed -n 's/^loaded:.*), \([0-9]*\) bytes of rows.*/\1/p' "$W/out")
	[ -n "$rows" ] && [ "$rows" -gt 0 ] && [ "$loaded" = "$rows" ] &&
		[ "$bytes" = "$((rows * 24))" ]
	r=$?
	ok $r "prf cfi --load $f: the module holds the summary's $rows rows ($bytes bytes)"
	[ $r -eq 0 ] || diag "$W/out"
done

printf 'not an ELF file\n' >"$W/text"
run 1 "prf cfi --load of a file that is not ELF" "$B/prf" cfi --load "$W/text"
! grep -q '^loaded:' "$W/out"
ok $? "prf cfi --load of a file that is not ELF: nothing loaded"

echo "1..$n"
[ "$fail" -eq 0 ]
