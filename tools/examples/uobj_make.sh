#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/examples/uobj_make.sh - the README's "prf record -- make -j2"
# (section "Every program's user code"), made on the real device: two
# generated C files of 150 small functions each compiled by gcc -O2 under
# make -j2, user functions named through the user objects table.
#
# Run it in a test-bed guest (prf.ko loaded, the tools built on the host):
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/examples/uobj_make.sh
# Environment: PRF_BIN (default: tools/build beside this script).
T=$(cd "$(dirname "$0")" && pwd)
B=${PRF_BIN:-$T/../build}
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
W=$(mktemp -d /tmp/prf-uobj-make.XXXXXX) && cd "$W" || exit 1
for f in a b; do
	awk -v f=$f 'BEGIN { for (i = 0; i < 150; i++)
		printf "int %s%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d ^ (s >> 3); return s; }\n", f, i, i + 1 }' >$f.c
done
printf 'all: a.o b.o\n%%.o: %%.c\n\tgcc -O2 -c -o $@ $<\n' >Makefile
"$B/prf" record -c 0.5 -- make -j2
