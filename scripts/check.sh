#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check.sh - everything `make check` runs, in order:
#
#   1. scripts/deps.sh, and every test kernel (debug-7.x is built once and
#      cached: the long step of a cold run; it builds at the lowest CPU
#      priority while the other kernels are fetched and everything below
#      runs for every other kernel; its own lane waits for it)
#   2. builds of the tools and the selftests (also for each kernel of
#      another architecture: build/KERNEL/selftests, and its tools:
#      build/KERNEL/tools), then, in a lane of their own (below), the host
#      tests of tools/ (make -C tools test) and scripts/fresh-root.sh: the
#      README's commands, DKMS and the host build in a fresh debootstrapped
#      Debian 12
#   3. per kernel: prf.ko built from scratch with W=1 and sparse (C=2); any
#      warning or error text in the output fails it, and so does a build
#      in which sparse did not check every file
#   4. checkpatch.pl --strict from the 6.12 source on the module's sources
#      and the uapi header, one result per file (at the end of lane 2)
#   5. per kernel: the kselftest suite in a guest (selftests/vm/run)
#   6. per kernel: the rate test against an exact clock (selftests/vm/rate)
#      and the tools' prf record test (built in step 2 for a foreign guest);
#      the tools' other guest tests (debian-6.1) and the short stress run
#   7. the benchmarks' smoke run (make -C bench smoke)
#
# Steps 3 to 6 and the host tests run in four lanes at once after step 2
# (lane() below: which work goes in which lane, and why).
#
# Every static check counts as one result; the guest runs and the tools'
# tests count their TAP results.  The last line is "N passed, N failed";
# the exit status is non-zero when anything failed.  Logs: build/check/.

set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
LOGS=$TOP/build/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
# PRF_CHECK_KERNELS narrows the kernels (a quicker partial run while
# iterating; `make check` proper always means all of them);
# PRF_CHECK_FRESH=0 leaves out the fresh-machine test (likewise);
# PRF_CHECK_DEB13=1 adds the packages' test in a fresh Debian 13 root
# (deb13_root: not by default, for its time).
KERNELS=${PRF_CHECK_KERNELS:-$(scripts/kernel.sh list)}
FRESH=${PRF_CHECK_FRESH:-1}
DEB13=${PRF_CHECK_DEB13:-0}

passed=0
failed=0
start=$SECONDS

stamp() { printf '[%4ds]' $((SECONDS - start)); }

# Every failure, one line each, named: result, vm, fresh_root, host_tests
# and stress_short add to it from whichever lane they run in (appends of a
# short line each, whole); finish prints it last, just above the totals,
# where the end of a long log (all CI shows) still has it.
FAILURES=$LOGS/failures
: >"$FAILURES"
# failed_in NAME LOG: NAME's failed TAP results in LOG, one line each (none
# found: NAME's own verdict line, or NAME alone).
failed_in() {
	local lines
	# each "not ok" with the last harness diagnostic ("file.c:LINE:...")
	# of the 20 lines before it, if any
	lines=$(awk '/\.(c|sh):[0-9]+:/ { diag = $0; at = NR }
		/(^|[# ])not ok [0-9]+/ && !/# *TODO/ {
			line = $0; sub(/^[# ]*/, "", line)
			if (diag != "" && NR - at <= 20) {
				d = diag; sub(/^[# ]*/, "", d); line = line " (" d ")"
			}
			print line; diag = ""
		}' "$2" | head -n 20)
	[ -n "$lines" ] ||
		lines=$(grep -E '^vm-run: [^:]+: FAIL: ' "$2" | sed 's/^vm-run: //' | head -n 5)
	[ -n "$lines" ] || lines="failed"
	sed "s|^|$1: |" <<<"$lines" >>"$FAILURES"
}

# result NAME OK [LOG]: count one static result; show the log's end on failure.
result() {
	if [ "$2" = 1 ]; then
		passed=$((passed + 1))
		echo "$(stamp) check: PASS $1"
	else
		failed=$((failed + 1))
		echo "$1${3:+ (log: $3)}" >>"$FAILURES"
		echo "$(stamp) check: FAIL $1${3:+ (log: $3)}"
		[ -z "${3:-}" ] || tail -n 40 "$3" | sed 's/^/    | /'
	fi
}

# step NAME LOG CMD...: run a command into a log, count it as one result;
# fails when the command did.
step() {
	local name=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then result "$name" 1; else result "$name" 0 "$log"; return 1; fi
}

# put FILE VALUE: VALUE written to FILE whole (a rename), for the files other
# lanes poll (wait_rc): a file created and then written can be seen empty,
# which reads as a failure.
put() { echo "$2" >"$1.$$" && mv "$1.$$" "$1"; }

# Seconds spent per kernel (preparing it and in its guests).
declare -A ksecs
ktime() { ksecs[$1]=$(( ${ksecs[$1]:-0} + $2 )); }

# guest_cpu K: the host CPU seconds of K's guests in vm-run's lines on stdin.
guest_cpu() {
	sed -nE "s/^vm-run: $1: guest ran [0-9]+s \(host CPU ([0-9]+)s\).*/\1/p" |
		awk '{ s += $1 } END { printf "%d", s }'
}

finish() {
	local k ran
	# vm-run's "guest ran" lines, read once: each guest's host CPU (the
	# fresh-machine test's guests print theirs in its own logs,
	# build/fresh-root/, not in fresh-root.log)
	ran=$(cat "$LOGS"/*.log 2>/dev/null | grep -E '^vm-run: [^:]+: guest ran ')
	for k in $KERNELS; do
		echo "$(stamp) check: time for $k: ${ksecs[$k]:-0} s (its guests: $(guest_cpu "$k" <<<"$ran") s of host CPU)"
	done
	[ ! -f "$LOGS/fresh-root.log" ] ||
		echo "$(stamp) check: the fresh-machine test's guests: $(cat "$TOP"/build/fresh-root/*.log 2>/dev/null | guest_cpu '[^:]+') s of host CPU"
	echo "$(stamp) check: done in $((SECONDS - start)) s, logs in $LOGS"
	if [ -s "$FAILURES" ]; then
		echo "check: what failed ($FAILURES):"
		head -n 30 "$FAILURES" | sed 's/^/  /'
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

# Add the TAP counts of every "vm-run: K: PASS|FAIL: N ok, N not ok, ..."
# line in a file.  A FAIL with no "not ok" (a splat, a timeout, no verdict)
# counts as one failure of its own.
count_vm_runs() {
	local line ok notok
	while IFS= read -r line; do
		echo "$(stamp) $line"
		ok=$(sed -E 's/.*: (PASS|FAIL): ([0-9]+) ok, ([0-9]+) not ok.*/\2/' <<<"$line")
		notok=$(sed -E 's/.*: (PASS|FAIL): ([0-9]+) ok, ([0-9]+) not ok.*/\3/' <<<"$line")
		passed=$((passed + ok))
		failed=$((failed + notok))
		case $line in *": FAIL: "*) [ "$notok" != 0 ] || failed=$((failed + 1)) ;; esac
	done < <(grep -E '^vm-run: [^:]+: (PASS|FAIL): [0-9]+ ok, [0-9]+ not ok' "$1")
}

# vm NAME LOG CMD...: a guest run (selftests/vm/run or a script that runs
# it); its console goes to LOG only, and the TAP failures and kernel reports
# are shown here.
vm() {
	local name=$1 log=$2 rc t0=$SECONDS k last
	shift 2
	echo "$(stamp) check: guest: $name"
	"$@" >"$log" 2>&1
	rc=$?
	k=${name##* on }
	[ "$k" = "$name" ] || ktime "$k" $((SECONDS - t0))
	# No verdict line: the runner stopped before a guest's end (a set-up
	# error); its last line says why.
	grep -E '^vm-run: [^:]+: (PASS|FAIL): [0-9]+ ok' "$log" >/dev/null || {
		last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c1-160)
		echo "vm-run: $name: FAIL: 0 ok, 0 not ok, 0 skipped: runner exit status $rc${last:+ ($last)}" >>"$log"
	}
	count_vm_runs "$log"
	[ $rc = 0 ] || { show_failures "$log"; failed_in "$name" "$log"; }
}

# show_failures LOG: the failed TAP results and kernel reports of a guest
# run, with the lines just before each (the test's own diagnostics).
show_failures() {
	grep -B 3 -E '(^|[# ])not ok [0-9]+|\] (WARNING|BUG|Kernel panic|KASAN|UBSAN)|PRF-VM: verdict|suspected memory leak' \
		"$1" | head -n 60 | sed 's/^/    | /'
	echo "    | (whole console: $1)"
}

# ---- 1. packages and kernels ------------------------------------------------
echo "$(stamp) check: packages"
if ! scripts/deps.sh; then
	result "scripts/deps.sh" 0
	finish
fi
declare -A have
# kernel K: fetch/unpack/build it into the cache (timed).
kernel() {
	local t0=$SECONDS
	if scripts/kernel.sh prepare "$1" >"$LOGS/kernel-$1.log" 2>&1; then
		have[$1]=1
	else
		result "kernel $1" 0 "$LOGS/kernel-$1.log"
	fi
	ktime "$1" $((SECONDS - t0))
	echo "$(stamp) check: kernel $1 ready in $((SECONDS - t0)) s"
}
# bg_prepare K: scripts/kernel.sh prepare K in the background, at the
# lowest priority: the guests' timing tests run beside it and must not feel
# it; it takes the CPU they leave (they often sleep).  Its time is its own,
# start to end, whatever ran meanwhile.  Its lane is another process: the end comes
# back in files, the seconds first (kernel-K.secs), then the exit status
# (kernel-K.rc).  $! is its pid.
bg_prepare() {
	echo "$(stamp) check: kernel $1 (building in the background)"
	{
		t0=$(date +%s)
		nice -n 19 scripts/kernel.sh prepare "$1"
		rc=$?
		put "$LOGS/kernel-$1.secs" $(($(date +%s) - t0))
		put "$LOGS/kernel-$1.rc" $rc
		exit $rc
	} >"$LOGS/kernel-$1.log" 2>&1 &
}
# The debug kernel and the pseudo-NMI kernel (arm64, cross-built) build
# side by side while the others download and unpack and the fresh-machine
# test installs packages: in a cold run the two took 31 and 32 minutes so
# (make check 52 minutes).  One after the other (the debug kernel 35
# minutes, the guests of lanes 1-3 beside it, then the pseudo-NMI kernel)
# put lane 3, which waits for both, past 60 minutes (2026-11-26).
debug_pid="" pnmi_pid=""
case " $KERNELS " in
*" debug-7.x "*) bg_prepare debug-7.x; debug_pid=$! ;;
esac
case " $KERNELS " in
*" pnmi-7.x-arm64 "*) bg_prepare pnmi-7.x-arm64; pnmi_pid=$! ;;
esac
for k in $KERNELS; do
	[ "$k" = debug-7.x ] || [ "$k" = pnmi-7.x-arm64 ] || kernel "$k"
done
# fresh_root: scripts/fresh-root.sh (a lane's work).
fresh_root() {
	echo "$(stamp) check: scripts/fresh-root.sh (a fresh Debian 12, make demo, DKMS)"
	local rc
	scripts/fresh-root.sh >"$LOGS/fresh-root.log" 2>&1
	rc=$?
	count_vm_runs "$LOGS/fresh-root.log"
	grep -E '^not ok' "$LOGS/fresh-root.log" | sed 's/^/    | /'
	# an exit before any TAP (no root, no debootstrap) is a failure too
	if [ $rc != 0 ] && ! grep -q ': FAIL: ' "$LOGS/fresh-root.log"; then
		result "scripts/fresh-root.sh (exit status $rc)" 0 "$LOGS/fresh-root.log"
	elif [ $rc != 0 ]; then
		failed_in "fresh-root.sh" "$LOGS/fresh-root.log"
	fi
}
# deb13_root: scripts/deb-test.sh in a fresh Debian 13 (trixie) root, the
# debian-6.12 guest booted with the module DKMS built there: trixie's
# debhelper, dh-dkms and lintian, its 6.12 headers and their rt flavour.
# Opt-in (PRF_CHECK_DEB13=1): 7 minutes of lane 3 (the run of 2026-11-29
# beside the Debian 12 one, load 15), which a warm make check has no room
# for.
deb13_root() {
	echo "$(stamp) check: scripts/deb-test.sh in a fresh Debian 13 root"
	step "the Debian packages in a fresh Debian 13 root, debian-6.12 guest (scripts/fresh-root.sh --suite trixie)" \
		"$LOGS/deb13.log" env PRF_FRESH_LOGS="$LOGS/fresh-root-trixie" \
		scripts/fresh-root.sh --suite trixie \
		--run 'DEB_GUEST=debian-6.12 DEB_QEMU=/usr/bin/qemu-system-x86_64 scripts/deb-test.sh'
}
# wait_rc FILE [PID]: waits for the status file (an exit status) that the
# debug kernel's background build or another lane writes, until PID is gone
# without it or, with no PID, for at most an hour; true when it holds 0.
# Lanes are children of this shell as the build is: they cannot wait(1)
# for their siblings.
wait_rc() {
	local t=0
	while [ ! -f "$1" ]; do
		if [ -n "${2:-}" ]; then
			kill -0 "$2" 2>/dev/null || break
		elif [ $t -ge 3600 ]; then
			break
		fi
		sleep 2
		t=$((t + 2))
	done
	[ "$(cat "$1" 2>/dev/null)" = 0 ]
}
# debug_ready: waits for the debug kernel's build (started above), true when
# it was built (the build gone without a status file: failed).
debug_ready() {
	[ -n "$debug_pid" ] && wait_rc "$LOGS/kernel-debug-7.x.rc" "$debug_pid"
}
# module_ready K: waits until K's lane has built prf.ko and the test
# module (kernel_steps), true when it has prf.ko.  Without it the short
# stress run, whose lane also waits for the debug kernel, built
# build/debug-7.x at the same time as the debug lane's W=1 C=2 build
# emptied and rebuilt it (a cold run failed so).
module_ready() {
	wait_rc "$LOGS/module-$1.rc"
}
# debug_usable: in a lane other than the debug kernel's own, waits for its
# build and its lane's prf.ko, and marks it usable here (have); true when
# it is.
debug_usable() {
	! debug_ready || ! module_ready debug-7.x || have[debug-7.x]=1
	[ -n "${have[debug-7.x]:-}" ]
}
# wait_pnmi: the pseudo-NMI kernel's build, counted (its lane's step).
wait_pnmi() {
	[ -n "$pnmi_pid" ] || return 0
	local secs
	if wait_rc "$LOGS/kernel-pnmi-7.x-arm64.rc" "$pnmi_pid"; then
		have[pnmi-7.x-arm64]=1
	else
		result "kernel pnmi-7.x-arm64" 0 "$LOGS/kernel-pnmi-7.x-arm64.log"
	fi
	secs=$(cat "$LOGS/kernel-pnmi-7.x-arm64.secs" 2>/dev/null || echo 0)
	ktime pnmi-7.x-arm64 "$secs"
	echo "$(stamp) check: kernel pnmi-7.x-arm64 ready (prepared in $secs s)"
}
# wait_debug: debug_ready, counted (once: the debug kernel's own lane).
wait_debug() {
	[ -n "$debug_pid" ] || return 0
	local secs
	if debug_ready; then
		have[debug-7.x]=1
	else
		result "kernel debug-7.x" 0 "$LOGS/kernel-debug-7.x.log"
	fi
	secs=$(cat "$LOGS/kernel-debug-7.x.secs" 2>/dev/null || echo 0)
	ktime debug-7.x "$secs"
	echo "$(stamp) check: kernel debug-7.x ready (prepared in $secs s)"
}

# ---- 2. host-side tests and builds ------------------------------------------
# host_tests: make -C tools test (a lane's work, once the tools are built).
host_tests() {
	[ -f tools/Makefile ] && grep -q '^test:' tools/Makefile || return 0
	local rc line p f=0
	echo "$(stamp) check: make -C tools test"
	make -C tools test >"$LOGS/tools-test.log" 2>&1
	rc=$?
	line=$(grep -E '^[A-Za-z]*:? ?[0-9]+ passed, [0-9]+ failed' "$LOGS/tools-test.log" | tail -n1)
	if [ -n "$line" ]; then
		p=$(grep -Eo '[0-9]+ passed' <<<"$line" | cut -d' ' -f1)
		f=$(grep -Eo '[0-9]+ failed' <<<"$line" | cut -d' ' -f1)
		passed=$((passed + p))
		failed=$((failed + f))
		echo "$(stamp) check: tools: $line"
	fi
	if [ $rc != 0 ] && { [ -z "$line" ] || [ "$f" = 0 ]; }; then
		result "make -C tools test (exit status $rc)" 0 "$LOGS/tools-test.log"
	elif [ $rc != 0 ]; then
		grep -E '^not ok' "$LOGS/tools-test.log" | head -n 20 | sed 's/^/    | /'
		failed_in "make -C tools test" "$LOGS/tools-test.log"
	fi
}
# Nothing else runs yet on a warm run (the lanes start after these): one
# job a core.
J=-j$(nproc)
[ ! -f tools/Makefile ] || step "make -C tools" "$LOGS/tools.log" make $J -C tools
# One version: VERSION, debian/changelog, dkms.conf, prf --version (the
# module's MODULE_VERSION: fresh-root.sh checks the one DKMS built).
step "one version (scripts/version-check.sh)" "$LOGS/version.log" scripts/version-check.sh
[ ! -f selftests/Makefile ] || step "make -C selftests" "$LOGS/selftests.log" make $J -C selftests
# Test programs for the guests of another architecture, static, built once
# an architecture: a second kernel of it (pnmi-7.x-arm64 after
# debian-6.1-arm64) gets a copy, the same bytes (the programs name no path
# of the build; its own build took 31 s of both cores in the warm run's
# serial start, 2026-11-30).  Its tools are built again: they carry their
# own directory as loader path and RPATH.
# copy_selftests FROM TO: TO replaced by a copy of FROM.
copy_selftests() { rm -rf "$2" && mkdir -p "$(dirname "$2")" && cp -a "$1" "$2"; }
declare -A selftests_of=()
for k in $KERNELS; do
	a=$(scripts/kernel.sh arch "$k")
	[ "$a" != "$(uname -m)" ] && [ -f selftests/Makefile ] || continue
	if [ -n "${selftests_of[$a]:-}" ]; then
		step "the test programs for $k: a copy of ${selftests_of[$a]}'s ($a)" \
			"$LOGS/selftests-$k.log" \
			copy_selftests "build/${selftests_of[$a]}/selftests" "build/$k/selftests"
	elif step "make -C selftests ARCH=$a (for $k)" "$LOGS/selftests-$k.log" \
		make $J -C selftests ARCH="$a" OUT="$TOP/build/$k/selftests"; then
		selftests_of[$a]=$k
	fi
	# ... and the tools, for its prf record test (step 6)
	[ ! -x tools/tests/guest_record_test.sh ] ||
		step "make -C tools ARCH=$a (for $k)" "$LOGS/tools-$k.log" \
			make $J -C tools ARCH="$a" OUT="$TOP/build/$k/tools"
	# ... and the rows the host's prf cfi reads from the C library that
	# prf carries there: its own prf cfi (libdw linked in) must read the
	# same rows in the guest (guest_uobj_test.sh)
	[ ! -x tools/build/prf ] || [ ! -f "$TOP/build/$k/tools/lib/libc.so.6" ] ||
		step "prf cfi of $k's C library, on the host" "$LOGS/cfi-$k.log" \
			sh -c 'tools/build/prf cfi --csv "$1" >"$2"' - \
			"$TOP/build/$k/tools/lib/libc.so.6" "$TOP/build/$k/tools/cfi-libc.csv"
done
[ ! -f selftests/stress/Makefile ] ||
	step "make -C selftests/stress" "$LOGS/stress-build.log" make $J -C selftests/stress
# What a failed guest's verdict says of a kernel report (its gist).
[ ! -x selftests/vm/gist_test.sh ] ||
	step "the runner's gist of kernel reports" "$LOGS/gist.log" selftests/vm/gist_test.sh

# ---- 3, 5, 6 per kernel: its module, its suite, its guest tests ------------
# From scratch, so every file is compiled (and warned about) again.
module_build() {
	local k=$1 log=$2
	# Everything but the test programs and tools built for a foreign guest.
	[ ! -d "build/$k" ] ||
		find "build/$k" -mindepth 1 -maxdepth 1 ! -name selftests ! -name tools \
			-exec rm -rf {} +
	make --no-print-directory KERNEL="$k" EXTRA="W=1 C=2" module >"$log" 2>&1 || return 1
	[ -f "build/$k/prf.ko" ] || return 1
	# Sparse and the compiler both say "warning:"/"error:"; kbuild's own
	# complaints (e.g. a missing Module.symvers) say "WARNING:".
	! grep -Eiq 'warning|error' "$log" || return 1
	# kbuild turns sparse off with a bare message when it finds it
	# unusable: every C file must have been checked.
	local c
	for c in prf_*.c; do
		grep -Eq "^ +CHECK +(.*/)?$c\$" "$log" ||
			{ echo "check: sparse did not check $c" >>"$log"; return 1; }
	done
}
module_build_kmod() {
	make -C selftests/kmod KERNEL="$1" EXTRA="W=1 C=2" >"$2" 2>&1 &&
		[ -f "build/$1/kmod/prf_test_kmod.ko" ] &&
		! grep -Eiq 'warning|error' "$2"
}

# kernel_steps K: steps 3 (the W=1 C=2 builds), 5 (the kselftest suite) and
# 6 (the exact-clock rate test, the tools' prf record test; isolcpus= on the
# kernels that have it) for one kernel.
kernel_steps() {
	local k=$1 mem skip
	if [ -n "${have[$k]:-}" ]; then
		step "W=1 C=2 (sparse) build of prf.ko for $k" "$LOGS/module-$k.log" \
			module_build "$k" "$LOGS/module-$k.log"
		[ -f "build/$k/prf.ko" ] || unset "have[$k]"
	fi
	if [ -n "${have[$k]:-}" ] && [ -f selftests/kmod/Makefile ]; then
		step "W=1 C=2 build of the test module for $k" "$LOGS/kmod-$k.log" \
			module_build_kmod "$k" "$LOGS/kmod-$k.log"
	fi
	# prf.ko and the test module are built (or not): the guests of other
	# lanes that load them wait for this (module_ready): the short stress
	# run before it builds or loads build/debug-7.x/prf.ko, the second half
	# of the debug suite, whose attribution tests skip without the test
	# module (three of them did, begun 3 s before it was built), systemd's
	# and CPU 255's guests.
	[ -n "${have[$k]:-}" ]
	put "$LOGS/module-$k.rc" $?
	if [ -z "${have[$k]:-}" ]; then
		result "suite in $k (no kernel or no prf.ko)" 0
		return
	fi
	# The pseudo-NMI kernel runs the PMU source's tests alone (with NMIs,
	# without, and through the tools): selftests/vm/pnmi.
	if [ "$k" = pnmi-7.x-arm64 ]; then
		vm "pseudo-NMI on $k" "$LOGS/pnmi-$k.log" selftests/vm/pnmi "$k"
		return
	fi
	# debian-6.1's guest has the memory for prf_offcpu_test's 20,480
	# sleeping threads (630 MiB of them; it skips with less): a minute
	# of guest time on a busy host, paid on one kernel.
	mem=1024
	[ "$k" != debian-6.1 ] || mem=2048
	if [ "$k" = debug-7.x ]; then
		# half its suite here, the other half in debug_suite2
		vm "suite (part 1 of 2: ${DEBUG_PART1[*]}) on $k" "$LOGS/suite-$k.log" \
			selftests/vm/run --kernel "$k" --timeout $DEBUG_SUITE_TIMEOUT --mem $mem \
			-- selftests/vm/suite "${DEBUG_PART1[@]}"
	else
		# selftests/vm/rate: prf_rate_test in a guest whose clock is
		# QEMU's instruction count, where ticks taken must be within 2%
		# of rate x time.  Not on the debug kernel, which judges
		# safety, not the timer's exactness (the six others measure
		# that): its 80 s of host CPU went to a warm make check's
		# longest lane.  Where it runs, the suite leaves prf_rate_test
		# out: the same program against the guest's wall clock, with
		# the tolerances a loaded host needs, is the weaker test of the
		# two (28 s of guest CPU a kernel, 2026-11-30).
		skip=()
		[ ! -x selftests/vm/rate ] || skip=(--env PRF_SUITE_SKIP=prf_rate_test)
		vm "suite on $k" "$LOGS/suite-$k.log" \
			selftests/vm/run --kernel "$k" --timeout 1500 --mem $mem "${skip[@]}"
		[ ${#skip[@]} = 0 ] ||
			vm "rate (icount clock) on $k" "$LOGS/rate-$k.log" selftests/vm/rate "$k"
	fi
	# prf record, -p, -G and top --tasks against the real device, on
	# every kernel.  Ratios of guest time: an instruction-count clock,
	# whatever the host's load.  shift=2 (4 ns an instruction, nearer
	# TCG's real speed than shift=0: a guest second costs a quarter of the
	# instructions).  On a debug kernel (not in make check) run it at
	# shift=0 with BURN_SECS=0.5: under shift=2 the clock of debug-6.12
	# (the debug kernel before debug-7.x) leapt minutes ahead while prf
	# record turned sampling on (twice in two runs; an RCU stall report
	# followed), and debug-7.x took no less host CPU at shift=2 (383 and
	# 388 s, four guests on the host, against 223 s at shift=0); 300 to
	# 500 samples of burn still tell 2:1 from 1:1.  A guest of another
	# architecture runs the tools built for it in step 2 (the test
	# programs static, prf with its shared libraries and loader beside it).
	# The debug kernel's isolcpus= guest is debug_guests'; it runs no
	# prf record guest (debug_guests says why).  Three kernels run it:
	# record_guest says which, and why.
	record_guest "$k"
	fileid_guest "$k"
	# The PMU source through the tools where a PMU samples: arm64's PMUv3
	# (the tools built for it in step 2).
	if [ "$k" = debian-6.1-arm64 ] && [ -x tools/tests/guest_pmu_test.sh ]; then
		vm "PMU source on $k" "$LOGS/pmu-guest-$k.log" \
			selftests/vm/run --kernel "$k" --smp 2 --timeout 900 \
			-- tools/tests/guest_pmu_test.sh
	fi
	# User call chains by the unwind tables (issue 38), judged against
	# cfiprog's known chain through the C library without frame pointers,
	# on 7.x and arm64 as on debian-6.1 (guest_tools; 40 to 70 s).
	if { [ "$k" = debian-7.x ] || [ "$k" = debian-6.1-arm64 ]; } &&
		[ -x tools/tests/guest_unwind_test.sh ]; then
		vm "unwind tables through prf record on $k" "$LOGS/unwind-guest-$k.log" \
			selftests/vm/run --kernel "$k" --smp 2 --timeout 900 \
			-- tools/tests/guest_unwind_test.sh
	fi
	# User objects and call chains through prf record on arm64 (its
	# static programs: no dlopen case), as on debian-6.1 (guest_tools).
	if [ "$k" = debian-6.1-arm64 ] && [ -x tools/tests/guest_uobj_test.sh ]; then
		vm "user objects on $k" "$LOGS/uobj-guest-$k.log" \
			selftests/vm/run --kernel "$k" --smp 2 --timeout 900 \
			-- tools/tests/guest_uobj_test.sh
	fi
	# prf daemon's HTTP on arm64 (its prf linked with Debian's
	# libmicrohttpd, shared, carried with its loader): guest_daemon_test.sh
	# with busybox's wget as the client, the profile it fetched read by
	# the host's go tool pprof (33 to 53 s).
	if [ "$k" = debian-6.1-arm64 ] && [ -x tools/tests/foreign_daemon_test.sh ]; then
		vm "prf daemon on $k" "$LOGS/daemon-guest-$k.log" \
			tools/tests/foreign_daemon_test.sh "$k"
	fi
	[ "$k" = debug-7.x ] || iso_guest "$k"
}

# record_guest K: prf record, -p, -G and top --tasks on K (kernel_steps),
# where K is the tools' kernel (debian-6.1, where every other tools guest
# runs), the newest (debian-7.x) or the other architecture's: what the
# guest asks of the kernel (tables, task and cgroup filters, user
# objects, ON and OFF) is a test of the suite on every kernel, and what it
# judges besides is the tools.  It ran on debian-6.12 and debian-6.1-rt
# too until 2026-11-30: 78 to 121 s of host CPU each, an instruction-clock
# guest, for the same tools twice more.
record_guest() {
	local k=$1
	case $k in debian-6.1 | debian-7.x | debian-6.1-arm64) ;; *) return 0 ;; esac
	[ -x tools/tests/guest_record_test.sh ] || return 0
	vm "prf record on $k" "$LOGS/record-guest-$k.log" \
		selftests/vm/run --kernel "$k" --smp 2 \
		--icount=shift=2,sleep=off --append maxcpus=1 \
		--timeout 1800 -- tools/tests/guest_record_test.sh
}

# fileid_guest K: user objects in files whose identity is not (superblock
# device, inode number): two btrfs subvolumes holding programs of one inode
# number, and an overlayfs root (tools/tests/guest_fileid_test.sh), through
# prf record.  On the kernels that have btrfs: Debian's x86 ones, as
# modules (the debug and pseudo-NMI kernels have neither file system, nor
# loop devices; the arm64 guest has no mkfs.btrfs).  About 70 s a guest.
fileid_guest() {
	local k=$1 m
	[ -x tools/tests/guest_fileid_test.sh ] || return 0
	[ "$(scripts/kernel.sh arch "$k")" = "$(uname -m)" ] || return 0
	m=$(scripts/kernel.sh modules "$k" 2>/dev/null)
	[ -n "$m" ] && [ -n "$(find "$m/kernel" -name 'btrfs.ko*' -print -quit)" ] ||
		return 0
	vm "btrfs and overlayfs files on $k" "$LOGS/fileid-guest-$k.log" \
		selftests/vm/run --kernel "$k" --smp 2 --timeout 600 \
		--modules "crc32c_generic loop overlay btrfs" \
		-- tools/tests/guest_fileid_test.sh
}

# The debug kernel's suite is the longest guest of make check (1680 s in a
# warm run of four lanes, 646 s at the end of a cold one, after its
# kernel's build): it runs as two guests, DEBUG_PART1's programs (about
# half of what its test programs took: 475 of 959 s of their CPU in a warm
# run of 2026-11-30; with the first six alone, 277, part 2 ended 150 s
# after part 1 at the end of a cold run) in the debug lane (kernel_steps)
# and every other program in debug_suite2, so that at the end of a cold
# run, when every other lane is done, the two halves use both cores.  A
# program not named here (a new one) is part 2's.
DEBUG_PART1=(prf_anchor_test prf_lifetime_test prf_mode_test prf_offcpu_test
	prf_stack_test prf_unwind_test prf_uobj_test prf_ext_test)
# Each half's timeout: 3600 s (the whole suite's first twelve programs took
# 1065 s in a make check on a host at load 15-28, eight times debian-6.1's,
# and 1500 s, the other kernels' timeout, cut it halfway).
DEBUG_SUITE_TIMEOUT=3600

# debug_suite2: the debug kernel's suite but DEBUG_PART1, run by whichever
# of lanes 3 (before its stress run, which also waits for the debug kernel)
# and 4 (after part 1) comes to it first (mkdir claims it).
debug_suite2() {
	debug_usable || return 0
	mkdir "$LOGS/claim-debug-suite2" 2>/dev/null || return 0
	echo "$(stamp) check: this lane runs debug-7.x's suite, part 2"
	vm "suite (part 2 of 2: the other programs) on debug-7.x" "$LOGS/suite-debug-7.x-2.log" \
		selftests/vm/run --kernel debug-7.x --timeout $DEBUG_SUITE_TIMEOUT \
		--env "PRF_SUITE_SKIP=${DEBUG_PART1[*]}"
}

# debug_guests: the debug kernel's isolcpus= guest, run by whichever of
# lanes 3 and 4 comes to it first (mkdir claims it): on a warm run lane 4
# ends its suite first, on a cold one lane 3 (its stress run starts as the
# debug kernel is ready, beside lane 4's suite of 1000 s and more).  It
# needs the debug kernel and its prf.ko.  The debug kernel runs no prf
# record guest: that guest judges ratios of time (burn's 2:1 through
# -- COMMAND, -p, -G, prfld -p), which the debug kernel does not judge
# (PRF_SKIP_ON_DEBUG_KERNEL, no rate guest), and what it asks of the
# kernel (tables, task and cgroup filters, ON and OFF) is each one a test
# of the suite there; three kernels run it (record_guest).  It was the longest guest of
# make check after the debug suite (539 s at the end of lane 4 in CI's run
# of 2026-11-29, 214 to 547 s in earlier runs: an instruction clock at
# shift=0 on a kernel eight times slower).
debug_guests() {
	debug_usable || return 0
	mkdir "$LOGS/claim-debug-iso" 2>/dev/null || return 0
	echo "$(stamp) check: this lane runs debug-7.x's iso guest"
	iso_guest debug-7.x
}

# iso_guest K: /dev/prf leaves isolated CPUs alone unless asked: a guest
# with CPU 3 isolated, on each kernel that has isolcpus= (the x86 ones; the
# suite's run of the same program skips these cases without an isolated
# CPU).
iso_guest() {
	local k=$1
	[ "$(scripts/kernel.sh arch "$k")" = "$(uname -m)" ] || return 0
	vm "isolcpus=3 on $k" "$LOGS/isolated-$k.log" selftests/vm/run --kernel "$k" \
		--smp 4 --append isolcpus=3 --timeout 600 -- selftests/prf_isolated_test
}

# ---- 4. checkpatch -------------------------------------------------------------
# checkpatch_all: one perl process a file, one after the other: lane 2's
# last work (the lane that ends first), not the serial start's, where it
# left a core idle for its 16 s (2026-11-30).
checkpatch_all() {
	local src f log
	src=$(scripts/kernel.sh src 2>"$LOGS/checkpatch-src.log")
	if [ -z "$src" ] || [ ! -f "$src/scripts/checkpatch.pl" ]; then
		result "checkpatch.pl available" 0 "$LOGS/checkpatch-src.log"
		return
	fi
	for f in prf_*.c prf_*.h prf.h uapi/linux/prf.h selftests/kmod/*.[ch]; do
		[ -f "$f" ] || continue
		log=$LOGS/checkpatch-${f//\//_}.log
		# --no-tree: not inside a kernel tree; the script still finds its
		# spelling.txt and const_structs.checkpatch beside itself.  The
		# file is named by its full path, as checkpatch sees files in a
		# kernel tree: named "prf.h" bare, it mistakes prf.h's include of
		# uapi/linux/prf.h for the file naming itself (EMBEDDED_FILENAME).
		step "checkpatch --strict $f" "$log" \
			perl "$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
			--no-summary --show-types --file "$TOP/$f"
	done
}

# guest_tools: the tools against the real device, on debian-6.1.
guest_tools() {
	[ -n "${have[debian-6.1]:-}" ] || return 0
	[ ! -x tools/tests/guest_cli_test.sh ] ||
		vm "tools on debian-6.1" "$LOGS/tools-guest.log" selftests/vm/run \
			--kernel debian-6.1 --timeout 900 -- tools/tests/guest_cli_test.sh
	# The README's quickstart shell: selftests/vm/run --shell typed at on
	# a pseudo-terminal (a prompt, a typed line, prfld, exit's status).
	vm "quickstart shell on debian-6.1" "$LOGS/shell-guest.log" \
		selftests/vm/shell-test debian-6.1
	# prf annotate on the known loop (reads of /dev/zero), prfpr --html of
	# prfdc's snapshots.
	[ ! -x tools/tests/guest_annotate_test.sh ] ||
		vm "prf annotate on debian-6.1" "$LOGS/annotate-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 900 \
			-- tools/tests/guest_annotate_test.sh
	# Call stacks (folded, callers, callees, truncation) and the other
	# modes (calls, allocations) through the commands.
	[ ! -x tools/tests/guest_stacks_test.sh ] ||
		vm "stacks and modes on debian-6.1" "$LOGS/stacks-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 900 \
			-- tools/tests/guest_stacks_test.sh
	# The offcpu mode through prf record: a sleep and a FIFO read of
	# known length (the kernel side runs in every kernel's suite).
	[ ! -x tools/tests/guest_offcpu_test.sh ] ||
		vm "offcpu mode on debian-6.1" "$LOGS/offcpu-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 600 \
			-- tools/tests/guest_offcpu_test.sh
	# User objects through prf record: programs started through taskset,
	# env and sh -c, a make-like parent execing two programs, a busy
	# process outside the command, a program deleted while it runs, a
	# shared object loaded with dlopen once running, JIT code named by its
	# /tmp/perf-PID.map.
	[ ! -x tools/tests/guest_uobj_test.sh ] ||
		vm "user objects on debian-6.1" "$LOGS/uobj-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 600 \
			-- tools/tests/guest_uobj_test.sh
	# Unwind tables (issue 38): prf cfi --load of Debian's libc, ld.so and
	# python3, the module holding exactly the summary's rows (about 10 s).
	[ ! -x tools/tests/guest_cfi_test.sh ] ||
		vm "unwind tables on debian-6.1" "$LOGS/cfi-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 600 \
			-- tools/tests/guest_cfi_test.sh
	# User call chains by the unwind tables through prf record -g: a
	# known chain through Debian's libc without frame pointers (against
	# perf --call-graph dwarf in the same boot), Debian's python3 (about 40 s).
	[ ! -x tools/tests/guest_unwind_test.sh ] ||
		vm "unwind tables through prf record on debian-6.1" "$LOGS/unwind-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 600 \
			-- tools/tests/guest_unwind_test.sh
	# prf daemon on the real device: /metrics and a pprof profile over
	# HTTP from inside the guest, SIGHUP, SIGTERM, /dev/prf untouched.
	[ ! -x tools/tests/guest_daemon_test.sh ] ||
		vm "prf daemon on debian-6.1" "$LOGS/daemon-guest.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 600 \
			-- tools/tests/guest_daemon_test.sh
	# The PMU source through the tools: no PMU in an x86 guest of TCG, so
	# the refusal in words (debian-6.1-arm64 runs the sampling side).
	[ ! -x tools/tests/guest_pmu_test.sh ] ||
		vm "PMU source (refused) on debian-6.1" "$LOGS/pmu-guest-debian-6.1.log" \
			selftests/vm/run --kernel debian-6.1 --smp 2 --timeout 600 \
			-- tools/tests/guest_pmu_test.sh
}

# fleet_guests: a fleet of two (issue 26): two debian-6.1 guests' daemons
# scraped by a real Prometheus on the host (PromQL names each one's
# workload) and read by go tool pprof over a forwarded port.  Lane 2's,
# which ends first: lane 1 builds debian-6.1's prf.ko at its start.
fleet_guests() {
	[ ! -x tools/tests/fleet_test.sh ] ||
		vm "fleet of two on debian-6.1" "$LOGS/fleet.log" \
			tools/tests/fleet_test.sh
}

# systemd_guest: prf.service as installed, under a real systemd as PID 1
# (issue 26): make -C tools install, the group prf, the udev rule, the
# unit started, reloaded and stopped through systemctl, its sandbox looked
# at from outside (tools/tests/guest_systemd_test.sh in a guest of
# selftests/vm/run --systemd).  It loads debian-6.1's prf.ko and test
# module, which lane 1 builds at its start: waited for.
systemd_guest() {
	[ -x tools/tests/guest_systemd_test.sh ] && [ -n "${have[debian-6.1]:-}" ] || return 0
	module_ready debian-6.1 || return 0
	vm "prf.service under systemd on debian-6.1" "$LOGS/systemd-guest.log" \
		selftests/vm/run --kernel debian-6.1 --smp 2 --systemd --timeout 900 \
		-- tools/tests/guest_systemd_test.sh
}

# cpu255_guest: prf on CPU 255 (minor 256), absent, hot-added through
# QMP, online and offline, in a debian-6.1 guest of 255 vCPUs with 2
# online (selftests/vm/cpu255, single-threaded: 152 s of host CPU, 617 s
# beside another such guest and a make check, most of it booting the
# vCPUs).  It loads debian-6.1's prf.ko, which lane 1 builds
# at its start: waited for.  Run by whichever of lanes 1 and 4 comes to
# it first (mkdir claims it): in the warm run of 2026-12-01 lane 4 was
# done at 1332 s and lane 1, which had it at its end, at 1504.
cpu255_guest() {
	[ -x selftests/vm/cpu255 ] && [ -n "${have[debian-6.1]:-}" ] || return 0
	mkdir "$LOGS/claim-cpu255" 2>/dev/null || return 0
	module_ready debian-6.1 || return 0
	vm "CPU 255 hot-added on debian-6.1" "$LOGS/cpu255-guest.log" \
		selftests/vm/cpu255 debian-6.1
}

# timers_check: the test bed's own check that every guest CPU's timer
# fires before prf.ko is loaded, and the runner's new boots when one does
# not (selftests/vm/timers_test.sh: four debian-6.1 boots, 30 s).
timers_check() {
	[ ! -x selftests/vm/timers_test.sh ] ||
		step "the test bed's check of guest timers" "$LOGS/timers.log" \
			selftests/vm/timers_test.sh debian-6.1
}

# bench_smoke: a short make bench (one rate, one workload, a few
# contenders) so the bench cannot rot; it fails only when a contender cannot
# run, never on numbers (which a guest beside it would skew anyway).
bench_smoke() {
	[ ! -f bench/Makefile ] ||
		step "bench smoke (make -C bench smoke)" "$LOGS/bench-smoke.log" \
			make -C bench smoke
}

# stress_short: the short stress run on debug-7.x (and its lockdown boot)
# only: the kernel that judges (KASAN, lockdep, kmemleak, fault injection);
# make stress runs every kernel.
stress_short() {
	[ -x selftests/stress/run-short.sh ] && [ -n "${have[debug-7.x]:-}" ] || return 0
	local rc t0=$SECONDS
	echo "$(stamp) check: selftests/stress/run-short.sh"
	PRF_STRESS_KERNELS=${PRF_STRESS_KERNELS:-debug-7.x} \
		selftests/stress/run-short.sh >"$LOGS/stress.log" 2>&1
	rc=$?
	ktime debug-7.x $((SECONDS - t0))
	count_vm_runs "$LOGS/stress.log"
	if [ $rc != 0 ] && ! grep -q ': FAIL: ' "$LOGS/stress.log"; then
		result "selftests/stress/run-short.sh (exit status $rc)" 0 "$LOGS/stress.log"
	elif [ $rc != 0 ]; then
		failed_in "stress run" "$LOGS/stress.log"
	fi
	[ $rc = 0 ] || show_failures "$LOGS/stress.log"
}

# lane LOG WORK...: each WORK in turn in a subshell of its own, output to
# LOG: a kernel's steps, or "tools" (the tools' guests on debian-6.1),
# "fresh" (fresh_root), "host" (host_tests), "stress" (stress_short),
# "smoke" (bench_smoke), "fleet" (fleet_guests), "timers" (timers_check),
# "checkpatch" (checkpatch_all),
# "debug-guests" (debug_guests), "debug-suite2" (debug_suite2), "systemd"
# (systemd_guest), "cpu255" (cpu255_guest).  Its
# counts and seconds come back in its last lines ("lane: passed failed"
# and "lane-time: KERNEL SECONDS"), for add_lane.
lane() {
	local log=$1 w
	shift
	(
		# its own counts and seconds only (the parent's are the parent's)
		passed=0 failed=0 ksecs=()
		for w in "$@"; do
			case $w in
			tools) guest_tools ;;
			fleet) fleet_guests ;;
			systemd) systemd_guest ;;
			cpu255) cpu255_guest ;;
			timers) timers_check ;;
			smoke) bench_smoke ;;
			debug-guests) debug_guests ;;
			debug-suite2) debug_suite2 ;;
			fresh) fresh_root ;;
			deb13) deb13_root ;;
			host) host_tests ;;
			checkpatch) checkpatch_all ;;
			stress) debug_usable; stress_short ;;
			debug-7.x) wait_debug; kernel_steps "$w" ;;
			pnmi-7.x-arm64) wait_pnmi; kernel_steps "$w" ;;
			*) kernel_steps "$w" ;;
			esac
		done
		echo "$(stamp) check: lane done: $*"
		for w in "${!ksecs[@]}"; do echo "lane-time: $w ${ksecs[$w]}"; done
		echo "lane: $passed $failed"
	) >"$log" 2>&1
}
add_lane() {
	local line k secs
	grep -Ev '^lane(-time)?: ' "$1"
	while read -r line k secs; do
		ktime "$k" "$secs"
	done < <(grep '^lane-time: ' "$1")
	line=$(grep '^lane: ' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		result "a lane ended early (log: $1)" 0 "$1"
		return
	fi
	set -- $line
	passed=$((passed + $2))
	failed=$((failed + $3))
}

# ---- 3, 5, 6 and the host tests: four lanes at once ------------------------------
# Most of a lane's time is guests under TCG, and every guest timed by an
# instruction clock (the rate and prf record tests) keeps one host thread
# busy, not two: four lanes fill the 2 cores where two left one idle half
# the time.  The guests' timing tests hold beside three other guests
# (their tolerances are for a host busy with other guests, load 10 and
# more); the debug kernel may still be building meanwhile, at nice 19, and
# the work that needs it waits for it.  A warm run is bound by the host
# CPU its guests take (2935 s of it in the warm run of 2026-11-26, on 2
# cores), so the lanes are cut to about the same length (wall seconds of
# that run in brackets, debug-7.x's suite less its calls test's cut):
#   1. debian-6.1 and the tools' guests on it [874], debian-6.1-rt [461]
#   2. debian-7.x [848], debian-6.12 [493], the fleet of two [110], the
#      test bed's timer check [30] (and now the host tests: below)
#   3. the fresh-machine test [284], debian-6.1-arm64 [566], the host
#      tests [66] (no longer), pnmi-7.x-arm64 (its PMU tests only: selftests/vm/pnmi)
#      [155], the short stress run [259] (those two wait for their
#      kernels' builds on a cold run)
#   4. the bench smoke [116] (on a cold run, while the debug kernel
#      builds), then debug-7.x: its builds and suite [~1030] (and now
#      prf.service under systemd: below)
#   3 or 4, whichever comes first: debug-7.x's isolcpus= guest [89]
#      (debug_guests; its prf record guest [250] no longer runs)
# (that run, lanes as they were before: lane 1 ended at 1809 s, 2 at
# 1419, 3 at 1135 and 4 at 1716).  The fleet of two [110] then went from
# lane 1's end to lane 2's: in the warm run of 2026-11-26 at 377eacd
# lane 1 ended at 1773 s, 2 at 1526, 3 at 1745 and 4 at 1763.
# Since every guest runs single-threaded (selftests/vm/run --tcg-thread)
# the guests of a warm run take 2373 s of host CPU, and the lanes of the
# warm run of 2026-11-26 at 98cf7fa ended at 1401 s, 1352, 1500 and 1478
# (lane 4: the bench smoke 161, debug-7.x's suite 897 and its prf record
# guest 400; lane 3: the short stress run 468).  The bench smoke at the
# end of lane 2 and the timer check at the end of lane 4 instead gave
# 1504 s (lanes at 1375, 1453, 1476 and 1504: debug-7.x's prf record
# guest, an instruction-clock guest, took 503 s beside the others), so the
# smoke stays here, where a cold run waits for the debug kernel anyway.
# Since user call chains (issue 25) debian-6.1-arm64 runs the user objects'
# tools guest too (about 30 s), and the host tests (70 s, 1183 of them) went
# from lane 3 to the end of lane 2, the one with the most room; debug-7.x's
# prf record guest burns half as long (record_guest), and the bench smoke
# measures the offcpu contender's memory after 1 s only (bench.sh).
# prf.service under systemd (a guest of 33 s alone, 26 s of host CPU
# with its boot, 2026-11-27) went to the end of lane 4, the one with the most room
# in the warm run at fbc72f5 (lanes 1-4 ended at 1178 s, 1277, 1174 and
# 1149): it needs debian-6.1's prf.ko and test module from lane 1, long
# built by then.
# debian-6.1-arm64 runs prf daemon's HTTP guest too (issue 26: 33 s, 21 s
# of host CPU, in a make check of that kernel alone), in lane 3 with its
# other tools guests.
# The host tests grew to 188 s at the end of lane 2 (the warm run at
# a22a588), most of it prf daemon's tests waiting for its intervals with
# the other lanes done; those now run beside the other host tests
# (run_host_tests.sh): 118 s for all of them, 2026-11-27.
# The CPU 255 guest (selftests/vm/cpu255: 255 vCPUs, 152 s of host CPU,
# 2026-11-29) went to the end of lane 1, whose first step builds the
# debian-6.1 prf.ko it loads: lane 4 (the debug kernel's) ended last in
# CI's run of 2026-11-29 (2275 s).
# The warm run of 2026-11-30 at 5f9410c (each prf command reading
# /proc/kallsyms once, prf_rate_test once a kernel, the prf record guest on
# three kernels) ended its lanes at 1829 s, 1758, 1890 and 1772 (the
# debian-6.1 tools guests 622 s of lane 1, 1060 before): balanced.  Since
# then the debug suite is two guests (DEBUG_PART1), the second in lane 3 or
# 4, whichever comes to it first.
# A kernel no lane names (a new one in kernel.sh list) goes in lane 2.
want() { case " $KERNELS " in *" $1 "*) return 0 ;; esac; return 1; }
l1=() l2=() l3=() l4=()
! want debian-6.1 || l1+=(debian-6.1 tools)
! want debian-6.1-rt || l1+=(debian-6.1-rt)
! want debian-6.1 || l1+=(cpu255)
! want debian-7.x || l2+=(debian-7.x)
! want debian-6.12 || l2+=(debian-6.12)
! want debian-6.1 || l2+=(fleet timers)
l2+=(host checkpatch)
[ "$FRESH" != 1 ] || l3+=(fresh)
[ "$DEB13" != 1 ] || l3+=(deb13)
! want debian-6.1-arm64 || l3+=(debian-6.1-arm64)
! want pnmi-7.x-arm64 || l3+=(pnmi-7.x-arm64)
! want debug-7.x || l3+=(debug-suite2 stress debug-guests)
l4+=(smoke)
! want debug-7.x || l4+=(debug-7.x debug-suite2 debug-guests)
! want debian-6.1 || l4+=(systemd cpu255)
for k in $KERNELS; do
	case $k in
	debian-6.1 | debian-6.12 | debian-7.x | debian-6.1-rt | debian-6.1-arm64 | debug-7.x | pnmi-7.x-arm64) ;;
	*) l2+=("$k") ;;
	esac
done
pids=()
for i in 1 2 3 4; do
	eval "work=(\"\${l$i[@]}\")"
	[ ${#work[@]} = 0 ] && continue
	echo "$(stamp) check: lane $i: ${work[*]}"
	lane "$LOGS/lane-$i.log" "${work[@]}" &
	pids+=($!)
done
wait "${pids[@]}"
[ -z "$debug_pid" ] || wait "$debug_pid" 2>/dev/null
[ -z "$pnmi_pid" ] || wait "$pnmi_pid" 2>/dev/null
for i in 1 2 3 4; do
	[ ! -f "$LOGS/lane-$i.log" ] || add_lane "$LOGS/lane-$i.log"
done

finish
