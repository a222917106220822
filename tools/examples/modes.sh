#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/examples/modes.sh - the reports of prf's three other modes (README,
# "Call stacks and modes"; prf(1), EXAMPLES), made on the real device:
#
#   alloc-bytes  the bytes each kernel call site allocated while files
#                were written to a tmpfs, then removed (frees, bytes held)
#   alloc-calls  the same workload, counted in allocations
#   calls        exact calls of the vfs_ and ksys_ functions during a dd
#                and an ls -R of /usr/share/doc
#
# Run it in a test-bed guest (prf.ko loaded, the tools built on the host):
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/examples/modes.sh
# It leaves /dev/prf off, in time mode, with the kernel's table.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T=${PRF_BIN:-tools/build}
W=$(mktemp -d /tmp/prf-modes.XXXXXX)
FILES=${MODES_FILES:-2000}

for c in prf prfld prfstat prfsnap prfpr; do
	[ -x "$T/$c" ] || { echo "modes: no $T/$c: run make -C tools on the host" >&2; exit 1; }
done
mkdir -p "$W/fs"
mount -t tmpfs none "$W/fs"

# files FILE_PREFIX: write $FILES small files and a directory of them, then
# remove them (what a build's temporary files do to a tmpfs).
files() {
	local i=0
	mkdir "$W/fs/$1"
	while [ $i -lt "$FILES" ]; do
		echo "$i" >"$W/fs/$1/f$i"
		i=$((i + 1))
	done
	rm -r "${W:?}/fs/$1"
}

echo "== prf's modes on $(uname -r), $(nproc) CPUs"
"$T/prfld" -q
for m in alloc-bytes alloc-calls; do
	echo
	echo "\$ prfstat --mode $m on; $FILES files written and removed in a tmpfs; prfpr -c 2"
	"$T/prfstat" -q --mode "$m" on
	"$T/prfsnap" "$W/$m.prf"
	files "$m"
	"$T/prfsnap" "$W/$m.prf"
	"$T/prfstat" -q off
	"$T/prfpr" -c 2 "$W/$m.prf"
done

# calls traces every function of the table (ftrace): a table of the vfs_
# and ksys_ functions, ended by _etext (the report's end sentinel).
grep -E ' [tT] (vfs|ksys)_[a-z_]+$| [A-Za-z] _etext$' /proc/kallsyms >"$W/vfs.syms"
"$T/prfld" -q -k 0 "$W/vfs.syms"
echo
echo "\$ prfld -k 0 vfs.syms ($(($(wc -l <"$W/vfs.syms") - 1)) vfs_ and ksys_ functions); prfstat --mode calls on;"
echo "  dd if=/dev/zero of=/dev/null bs=4k count=20000; ls -R /usr/share/doc >/dev/null; prfpr -c 1"
"$T/prfstat" -q --mode calls on
"$T/prfsnap" "$W/calls.prf"
dd if=/dev/zero of=/dev/null bs=4k count=20000 2>/dev/null
ls -R /usr/share/doc >/dev/null 2>&1 || true
"$T/prfsnap" "$W/calls.prf"
"$T/prfstat" -q off
"$T/prfpr" -c 1 "$W/calls.prf"

"$T/prfstat" -q --mode time >/dev/null
"$T/prfld" -q
umount "$W/fs"
rm -rf "$W"
