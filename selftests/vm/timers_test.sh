#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/timers_test.sh [KERNEL] - the test bed's check that every
# guest CPU's timer fires before anything of prf's runs (selftests/vm/init),
# and the runner's answer to a CPU whose timer does not: the boot tried
# three times, each failed log kept, and a verdict that names the CPU.
# PRF_VM_DEAD_TIMER=1 plays the dead timer (a sleep on CPU 1 that never
# ends); a guest with no such CPU must pass.  That guest also checks the
# runner's --out DIR: a file the command writes to $OUT is on the host
# afterwards.  TAP.

set -u
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 2
k=${1:-debian-6.1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. ../../tools/tests/tap.sh	# ok, diag

./run --kernel "$k" --smp 2 --no-module --log "$out/dead.log" \
	--append PRF_VM_DEAD_TIMER=1 -- true >"$out/dead.out" 2>&1
rc=$?
diag "$out/dead.out" | grep -v '^# \[' | tail -n 12
[ $rc = 1 ]
ok $? "a CPU whose timer does not fire fails the run (exit status $rc, want 1)"
[ "$(grep -c "^vm-run: $k: the kernel stopped a CPU's timer (a 50 ms sleep did not end in 2 s on CPU 1) before the test bed's init ran (log .*\.boot[12]); booting again$" "$out/dead.out")" = 2 ]
ok $? "it is booted three times, the reason named each time"
[ -s "$out/dead.log.boot1" ] && [ -s "$out/dead.log.boot2" ]
ok $? "the failed boots' logs are kept"
grep -q "^PRF-VM: verdict FAIL (test bed: a CPU's timer does not fire)" "$out/dead.log" &&
	! grep -q '^PRF-VM: kernel ' "$out/dead.log" && ! grep -q '^PRF-VM: running' "$out/dead.log"
ok $? "the third boot's verdict names the timer, and nothing ran"

./run --kernel "$k" --smp 2 --no-module --log "$out/live.log" --out "$out/o" -- \
	sh -c 'echo "written in $(uname -r)" >"$OUT/f" && [ "$OUT" = "$1" ]' sh "$out/o" \
	>"$out/live.out" 2>&1
rc=$?
[ $rc = 0 ] && ! grep -q 'booting again' "$out/live.out" && ! grep -q '^PRF-VM: timers' "$out/live.log"
ok $? "every CPU's timer fires in a guest with no dead one (exit status $rc)"
guest=$(sed -n 's/^PRF-VM: kernel \([^ ]*\) .*/\1/p' "$out/live.log")
[ -n "$guest" ] && [ "$(cat "$out/o/f" 2>/dev/null)" = "written in $guest" ]
ok $? "--out DIR: the guest's file (\$OUT/f, \$OUT the same path) is in DIR on the host"
echo "1..$n"
[ "$fail" = 0 ]
