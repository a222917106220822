#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/unwind-where.sh - where the kernel's time goes while prf record -g
# walks user chains, by frame records (fp) and by unwind tables (cfi):
# /dev/prf samples the whole kernel at 2 kHz while prf record -g samples
# cfiprog at 10 kHz, and prints the kernel's functions and prf's own.  The
# sampling interrupt's own work (the stack copy) runs with interrupts off,
# where the timer cannot see it: bench/unwind.sh measures that.  In a
# one-CPU test guest with prf.ko, the tools built on the host:
#
#   selftests/vm/run --kernel debian-6.1 --smp 1 -- bench/unwind-where.sh
set -u
B=${PRF_BIN:-$(cd "$(dirname "$0")/../tools/build" && pwd)}
T=$(mktemp -d /tmp/prf-unwind-where.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
for how in fp cfi; do
	"$B/prf" stat off >/dev/null 2>&1
	"$B/prf" ld >/dev/null || { echo "prf ld failed" >&2; exit 1; }
	"$B/prf" stat -z 2000 >/dev/null || exit 1
	"$B/prf" snap "$T/k.$how" >/dev/null || exit 1
	"$B/prf" stat on >/dev/null || exit 1
	"$B/prf" record -g --unwind "$how" -z 10000 --stack-depth 32 --folded \
		-- "$B/cfiprog" 6 >"$T/u.$how" 2>"$T/e.$how" || { cat "$T/e.$how" >&2; exit 1; }
	"$B/prf" stat off >/dev/null
	"$B/prf" snap "$T/k.$how" >/dev/null || exit 1
	echo "=== --unwind $how: the kernel while prf record -g ran"
	"$B/prf" pr -c 0.7 "$T/k.$how"
	echo "=== --unwind $how: prf's own functions"
	"$B/prf" pr -c 0 -m prf "$T/k.$how" | grep ' prf  '
	awk '{ n += $NF } END { print "prf record -g counted " n " samples of cfiprog" }' "$T/u.$how"
done
