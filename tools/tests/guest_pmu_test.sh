#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The PMU source (issue 24) through the tools, against the real device, in
# a test guest with prf.ko loaded:
#   selftests/vm/run --kernel debian-6.1 --smp 2 -- tools/tests/guest_pmu_test.sh
#   selftests/vm/run --kernel debian-6.1-arm64 --smp 2 -- tools/tests/guest_pmu_test.sh
# Needs the tools built on the host first (make -C tools; for arm64, make
# -C tools ARCH=arm64 OUT=build/debian-6.1-arm64/tools).  TAP output.
#
# Without a PMU (every x86 guest of QEMU's TCG): prfstat --event list, ON
# and prf record -e refuse in the words of the issue, nothing is left ON,
# and the timer still works.  With one (arm64 -cpu max: PMUv3's cycle
# counter): a report of cycles names the source and counts in cycles;
# whether the samples came as NMIs is said as the kernel's log says (the
# PMU driver's ", using NMIs"); and the test module's irq-off spin
# (/proc/prf_test_irqoff, $PRF_TEST_KMOD) is seen only from an NMI: without
# one its time lands in its caller, where interrupts come back on.  On every
# guest: no table or report names a mapping symbol ($x, $d: issue 39).
#
# Environment: PRF_BIN (default: build/$PRF_KERNEL/tools when it exists,
# else tools/build beside this script).

T=$(cd "$(dirname "$0")" && pwd)
. "$T/tap.sh"
B=$(tools_dir "$T")
W=$(mktemp -d /tmp/prf-pmu-test.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
export LC_ALL=C
NOPMU='no hardware PMU here (a virtual machine?): use the timer'

skip_unless_ready
P=$B/prf

run 0 "prfstat --event list" "$B/prfstat" --event list
cp "$W/out" "$W/list"
run 0 "prfld (every kernel function)" "$B/prfld" -q
run 0 "prfstat off, the timer" "$B/prfstat" -q --event timer off

# Mapping symbols (issue 39): arm64's assembler puts "$x" at the start of
# every text section and "$d"/"$x.N" around data in code, and
# /proc/kallsyms lists them.  No table names one, and the test module's
# prf_test_first_spin (local, alone in a section: "$x" at its address)
# holds its samples under its own name in prf record's report.
if [ -n "${PRF_TEST_KMOD:-}" ] && { [ -e /proc/prf_test_first ] || insmod "$PRF_TEST_KMOD"; } &&
	[ -e /proc/prf_test_first ]; then
	MAPSYM='^\$[adtx](\.|rv|$)'
	run 0 "prfld --dry-run (every kernel function)" "$B/prfld" --dry-run
	! awk '{ print $4 }' "$W/out" | grep -Eq "$MAPSYM" && [ -s "$W/out" ]
	r=$?
	ok $r "prfld: no mapping symbol (\$x, \$d ...) in the table"
	[ $r -eq 0 ] || awk '{ print $4 }' "$W/out" | grep -E "$MAPSYM" | sort | uniq -c | head | diag
	run 0 "prf record --csv -- 1 s in prf_test_first_spin" "$P" record -c 0 --csv -- \
		sh -c 'echo 1000 > /proc/prf_test_first'
	cp "$W/out" "$W/first"
	first=$(awk -F, '$3 == "prf_test_first_spin" && $4 == "prf_test_kmod" { print $1 }' "$W/first")
	rest=$(awk -F, 'NR > 1 && $4 == "prf_test_kmod" && $3 != "prf_test_first_spin" { s += $1 }
		END { print s + 0 }' "$W/first")
	[ "${first:-0}" -gt 0 ] 2>/dev/null && [ "$first" -gt $((4 * rest)) ] &&
		! cut -d, -f3 "$W/first" | grep -Eq "$MAPSYM"
	r=$?
	ok $r "prf record: prf_test_first_spin named (${first:-0} samples, $rest elsewhere in the module), no mapping symbol"
	[ $r -eq 0 ] || head -n 15 "$W/first" | diag
else
	echo "ok $((n + 1)) - mapping symbols # SKIP no test module (PRF_TEST_KMOD)"
	n=$((n + 1))
fi

if ! grep -qx cycles "$W/list"; then
	# ---- no PMU: the refusals ----
	printf '%s\n' "$NOPMU" >"$W/want"
	cmp -s "$W/list" "$W/want"
	ok $? "prfstat --event list: '$NOPMU'"
	run 0 "prfstat --event cycles (set while OFF)" "$B/prfstat" -q --event cycles
	run 1 "prfstat on with the PMU source" "$B/prfstat" on
	grep -q "sampling on cycles: $NOPMU" "$W/err"
	ok $? "prfstat on: the refusal in words"
	run 0 "prfstat" "$B/prfstat"
	grep -q "sampling OFF" "$W/out" &&
		grep -q "^source  *PMU cycles, about 100 samples a second$" "$W/out"
	ok $? "prfstat: still OFF, the source kept"
	run 1 "prf record -e cycles -- echo RAN" "$P" record -e cycles -- sh -c 'echo RAN >&2'
	grep -q "cycles: $NOPMU" "$W/err" && ! grep -q RAN "$W/err"
	ok $? "prf record -e cycles: refused in words, the command not run"
	run 0 "prfstat --event timer on" "$B/prfstat" -q --event timer on
	sleep 1
	run 0 "prfstat off" "$B/prfstat" -q off
	run 0 "prfstat" "$B/prfstat"
	[ "$(awk '$1 == "ticks" && $2 == "total" { print $3 }' "$W/out")" -gt 0 ] 2>/dev/null
	ok $? "the timer samples after the refusal"
	echo "1..$n"
	[ "$fail" -eq 0 ]
	exit
fi

# ---- a PMU ----
nmi=0
if dmesg 2>/dev/null | grep -q "counters available, using NMIs"; then
	nmi=1
fi
echo "# the PMU interrupts $([ $nmi = 1 ] && echo by NMI || echo as an ordinary interrupt)"
S=$W/s.prf
run 0 "prfstat --event cycles:1000000 on" "$B/prfstat" -q --event cycles:1000000 on
run 0 "prfsnap" "$B/prfsnap" "$S"
dd if=/dev/zero of=/dev/null bs=64k count=20000 2>/dev/null
run 0 "prfsnap again" "$B/prfsnap" "$S"
run 0 "prfstat (ON)" "$B/prfstat"
grep -q "^source  *PMU cycles, a sample every 1000000 cycles$" "$W/out" &&
	grep -q "^counters  *[1-9]" "$W/out"
ok $? "prfstat: the source, a counter per CPU"
if [ $nmi = 1 ]; then
	! grep -q "not NMIs" "$W/out"
	ok $? "prfstat: samples in NMI, nothing said against them"
else
	grep -q "^samples in NMI  *0 of [1-9][0-9]* (not NMIs: code that runs with interrupts off is not seen)$" "$W/out"
	ok $? "prfstat: the samples were not NMIs, and what that means"
fi
run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prfpr" "$B/prfpr" "$S"
grep -q "^source: PMU cycles, a sample every 1000000 cycles; counts in cycles (1000000 a sample)$" \
	"$W/out" && grep -q "^    cycles %kernel" "$W/out"
ok $? "prfpr: the source in the header, the column in cycles"
run 0 "prfpr --json" "$B/prfpr" --json "$S"
grep -q '"unit": "cycles",' "$W/out" && grep -q '"source": {"kind": "pmu", "event": "cycles"' "$W/out"
ok $? "prfpr --json: the unit and the source"
run 0 "prf record -e cycles:1000000 -- dd" "$P" record -e cycles:1000000 -- \
	dd if=/dev/zero of=/dev/null bs=64k count=20000
grep -q "^    cycles  *%[a-z]* *function" "$W/out" && grep -q "^source: PMU cycles" "$W/out"
ok $? "prf record -e: the report counts cycles"
run 0 "prf top -e cycles -n 1" "$P" top -e cycles -n 1 -d 1 --lines 5
grep -q "PMU cycles, about 100 samples a second" "$W/out" && grep -q "^    cycles %kernel" "$W/out"
ok $? "prf top -e: the title names the source, the column counts cycles"
run 0 "prfstat after prf top" "$B/prfstat"
grep -q "sampling OFF" "$W/out" && grep -q "^source  *PMU cycles, a sample every 1000000 cycles$" "$W/out"
ok $? "prf top -e: the device's source and state back at exit"

# The irq-off spin of the test module: its own function, or its caller.
if [ -n "${PRF_TEST_KMOD:-}" ] && { [ -e /proc/prf_test_irqoff ] || insmod "$PRF_TEST_KMOD"; } &&
	[ -e /proc/prf_test_irqoff ]; then
	run 0 "prfld -m prf_test_kmod,kernel" "$B/prfld" -q -m prf_test_kmod,kernel
	S=$W/irqoff.prf
	run 0 "prfstat --event cycles:1000000 on" "$B/prfstat" -q --event cycles:1000000 on
	run 0 "prfsnap" "$B/prfsnap" "$S"
	run 0 "3 s of the irq-off spin" sh -c 'echo 3000 > /proc/prf_test_irqoff'
	run 0 "prfsnap again" "$B/prfsnap" "$S"
	run 0 "prfstat off" "$B/prfstat" -q off
	run 0 "prfpr -m prf_test_kmod -c 0" "$B/prfpr" -m prf_test_kmod -c 0 "$S"
	cp "$W/out" "$W/irqoff"
	diag "$W/irqoff"
	spin=$(awk '$3 == "prf_test_irqoff_spin" { print $1 }' "$W/irqoff")
	caller=$(awk '$3 == "prf_test_irqoff_run" { print $1 }' "$W/irqoff")
	if [ $nmi = 1 ]; then
		[ -n "$spin" ]
		ok $? "prfpr: the spin itself holds cycles (NMI)"
	else
		[ -z "$spin" ] && [ -n "$caller" ]
		ok $? "prfpr: none in the spin, its time in the caller (no NMI)"
	fi
else
	echo "ok $((n + 1)) - the irq-off spin # SKIP no test module (PRF_TEST_KMOD)"
	n=$((n + 1))
fi
echo "1..$n"
[ "$fail" -eq 0 ]
