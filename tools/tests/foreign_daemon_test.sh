#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# prf daemon's HTTP in a guest of another architecture, from the host:
#
#   tools/tests/foreign_daemon_test.sh [KERNEL]    (default debian-6.1-arm64)
#
# Boots KERNEL (selftests/vm/run --smp 2) running
# tools/tests/guest_daemon_test.sh with the tools built for it
# (build/KERNEL/tools: make -C tools ARCH=arm64 OUT=...; prf with Debian's
# libmicrohttpd), whose HTTP client there is busybox's wget.  The guest's
# initramfs has no go, so the guest prints the pprof profile it fetched in
# base64 on the console ("# pprof-base64| " lines), and this script decodes
# it and runs the host's `go tool pprof -top` on it: the workload's
# function must be among its rows.  A lean run (TCG emulates arm64
# slowly): half the workload's blocks, its cost measured over 5 s.  The
# guest's console and verdict come first; then this script's TAP and its
# own line, "vm-run: KERNEL pprof: PASS|FAIL: N ok, ...", the form
# scripts/check.sh counts.  PRF_BIN, when set, names other tools to test
# (passed on to the guest).

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
K=${1:-debian-6.1-arm64}
W=$(mktemp -d "${TMPDIR:-/tmp}/prf-foreign-daemon.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
# what reads of /dev/zero run in (guest_daemon_test.sh's WORK)
WORK='clear_user|rep_stos|_copy_to_iter|iov_iter_zero|read_zero|__clear_user|copy_user|memset|clear_page'

selftests/vm/run --kernel "$K" --smp 2 --timeout 900 ${PRF_BIN:+--env "PRF_BIN=$PRF_BIN"} \
	--env PRF_DAEMON_DD_DIV=2 --env PRF_DAEMON_COST_SECS=5 -- tools/tests/guest_daemon_test.sh |
	tee "$W/console"
vm=${PIPESTATUS[0]}

n=0 fail=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		fail=$((fail + 1)); echo "not ok $n - $2"; fi
}
diag() { sed "s/^/# /"; }
sed -n 's/^# pprof-base64| //p' "$W/console" | base64 -d >"$W/p.pb.gz" 2>"$W/b64.err" &&
	[ -s "$W/p.pb.gz" ] && gzip -t "$W/p.pb.gz"
ok $? "the guest's profile, from its console: base64 of a gzipped file ($(wc -c <"$W/p.pb.gz") bytes)"
if ! command -v go >/dev/null; then
	ok 0 "go tool pprof -top # SKIP no go on the host (golang-go)"
else
	HOME=$W GOCACHE=$W/gocache GOTOOLCHAIN=local go tool pprof -top "$W/p.pb.gz" >"$W/p.top" 2>&1
	grep -Eq "$WORK" "$W/p.top"
	r=$?
	ok $r "go tool pprof -top of the profile served in the $K guest: the workload's function ($(grep -Eo -m1 "[^ ]*($WORK)[^ ]*" "$W/p.top"))"
	head -n 12 "$W/p.top" | diag
fi
echo "1..$n"
echo "vm-run: $K pprof: $([ "$fail" = 0 ] && echo PASS || echo FAIL): $((n - fail)) ok, $fail not ok, 0 skipped"
[ "$fail" = 0 ] && [ "$vm" = 0 ]
