#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/examples/offcpu.sh - the README's report of the offcpu mode ("Call
# stacks and modes"), made on the real device: prf record --mode offcpu of a
# command that waits on files (read from the 9p root with the page cache
# dropped) and on a pipe (a reader whose writer answers 0.3 s later), then
# the same waits as folded stacks.
#
# Run it in a test-bed guest (prf.ko loaded, the tools built on the host):
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/examples/offcpu.sh
# It leaves /dev/prf off, in time mode.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T=${PRF_BIN:-tools/build}
W=$(mktemp -d /tmp/prf-offcpu.XXXXXX)

for c in prf prfpr; do
	[ -x "$T/$c" ] || { echo "offcpu: no $T/$c: run make -C tools on the host" >&2; exit 1; }
done
# A cgroup v2, so that prf record follows the command's children.
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup

cmd='sync; echo 3 >/proc/sys/vm/drop_caches; cat /usr/bin/perl /usr/lib/x86_64-linux-gnu/libc.so.6 >/dev/null; (sleep 0.3; echo done) | cat >/dev/null'
echo "\$ prf record --mode offcpu -g -- sh -c '$cmd'"
"$T/prf" record --mode offcpu -g -o "$W/rec.prf" -- sh -c "$cmd"
echo
echo "\$ prfpr --folded --since-load rec.prf | sort -t' ' -k2 -nr | head -5"
"$T/prfpr" --folded --since-load "$W/rec.prf" | sort -t' ' -k2 -nr | head -5 |
	cut -c1-160
rm -rf "$W"
