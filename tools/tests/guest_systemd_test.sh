#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# prf.service as installed, under a real systemd (issue 26): in a guest
# whose PID 1 is systemd (selftests/vm/run --kernel debian-6.1 --smp 2
# --systemd -- tools/tests/guest_systemd_test.sh), prf installed by make -C
# tools install into the guest's writable root, the group prf, the udev
# rule applied by systemd-udevd, prf.service enabled, started, reloaded and
# stopped through systemctl, the test module busy under it; what the
# sandbox leaves the daemon checked from outside.  Needs the tools built on
# the host (make -C tools) and the test module (PRF_TEST_KMOD: make -C
# selftests/kmod KERNEL=...).  TAP output; every result is counted against
# the plan, so a run that checked less than it should fails.

T=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/prf-guest-systemd.XXXXXX)
PORT=19465
U=http://127.0.0.1:$PORT
PLAN=28
export LC_ALL=C
trap 'rm -rf "$W"' EXIT
# shellcheck source=tools/tests/tap.sh
. "$T/tap.sh"
# shellcheck source=tools/tests/waits.sh
. "$T/waits.sh"

wait_for() { wait_until 60 "$@"; }	# TCG is slow
prop() { systemctl show -P "$1" prf; }
# the daemon's journal, its own lines
dlog() { journalctl -q -o cat -u prf --no-pager; }
# intervals in the store, as prfpr counts them
nsnaps() { /usr/local/bin/prfpr --list /var/lib/prf 2>/dev/null | awk 'NR == 1 { n = $2 } END { print n + 0 }'; }

[ "$(cat /proc/1/comm)" = systemd ] && [ -c /dev/prf ] && [ -n "${PRF_TEST_KMOD:-}" ]
ok $? "systemd is PID 1, prf.ko loaded, the test module given (${PRF_TEST_KMOD:-none})"

# ---- the install, as an administrator does it ----
run 0 "make -C tools install" make -s -C "$T/.." install
[ -x /usr/local/bin/prf ] && [ -f /usr/local/lib/systemd/system/prf.service ] &&
	[ -f /usr/local/lib/udev/rules.d/60-prf.rules ] && [ -f /etc/prf/prf.conf ]
ok $? "installed: /usr/local/bin/prf, prf.service, 60-prf.rules, /etc/prf/prf.conf"
run 0 "groupadd --system prf" groupadd --system prf
GID=$(getent group prf | cut -d: -f3)
# The device nodes were made before the group existed: udev applies the
# rule again when told (as after the install on a running machine).
run 0 "udevadm: rules reloaded, the prf devices triggered and settled" sh -c \
	'udevadm control --reload && udevadm trigger --action=add --subsystem-match=prf --settle'
nodes=0 bad=""
for f in /dev/prf*; do
	nodes=$((nodes + 1))
	[ "$(stat -c %G:%a "$f")" = prf:660 ] || bad="$bad $(stat -c '%n %G:%a' "$f")"
done
[ -z "$bad" ] && [ -c /dev/prfclone ]
ok $? "udev: /dev/prf* of group prf, mode 0660 ($nodes nodes)${bad:+:$bad}"

# The settings: HTTP on the loopback, an interval a second.
printf 'listen = 127.0.0.1:%s\ninterval = 1\n' "$PORT" >>/etc/prf/prf.conf
# The workload's module before the start: the first table names it.
insmod "$PRF_TEST_KMOD"
ok $? "insmod prf_test_kmod.ko"
run 0 "systemctl enable prf" systemctl enable prf
run 0 "systemctl start prf" systemctl start prf
wait_for curl -sf -o /dev/null "$U/metrics"
ok $? "prf.service serves /metrics on 127.0.0.1:$PORT"
[ "$(systemctl is-active prf)" = active ]
ok $? "prf.service active ($(prop SubState))"
dlog | diag

# ---- what the sandbox leaves the daemon ----
PID=$(prop MainPID)
st=/proc/$PID/status
uid=$(awk '/^Uid:/ { print $2 }' "$st")
[ -n "$uid" ] && [ "$uid" != 0 ] && awk -v g="$GID" '/^Groups:/ {
	for (i = 2; i <= NF; i++) if ($i == g) f = 1 } END { exit !f }' "$st"
ok $? "main process $PID: uid $uid (not root), in group prf ($GID): $(grep ^Groups: "$st" | tr -s '\t ' ' ' | sed 's/ $//')"
# CAP_SYSLOG (34) and CAP_PERFMON (38), nothing else, nothing to gain back
caps=$(awk '/^Cap(Prm|Eff|Bnd|Amb):/ { sub(/:$/, "", $1); printf "%s%s=%s", s, $1, $2; s = " " }' "$st")
[ "$caps" = "CapPrm=0000004400000000 CapEff=0000004400000000 CapBnd=0000004400000000 CapAmb=0000004400000000" ]
ok $? "its capabilities: CAP_PERFMON and CAP_SYSLOG only ($caps)"
[ "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")" = 1 ] &&
	[ "$(awk '/^Seccomp:/ { print $2 }' "$st")" = 2 ]
ok $? "no new privileges, a seccomp filter ($(grep -E '^(NoNewPrivs|Seccomp):' "$st" | tr -s '\t\n' ' '))"
# As its user in its mount namespace: the store is writable, nothing else.
as_it() { nsenter -t "$PID" -m -S "$uid" -G "$(awk '/^Gid:/ { print $2 }' "$st")" "$@"; }
as_it touch /var/lib/prf/probe && as_it rm /var/lib/prf/probe &&
	! as_it touch /etc/prf/probe 2>"$W/e1" && ! as_it touch /var/lib/probe 2>>"$W/e1" &&
	grep -q 'Read-only file system' "$W/e1"
ok $? "its mount namespace: the store writable, /etc and /var/lib not ($(head -1 "$W/e1"))"
# What stands in for ProtectKernelTunables= and ProtectKernelLogs= (which
# close /proc/kallsyms, or take CAP_SYSLOG): the kernel's tunables
# read-only even to root there, /proc/kmsg and /proc/kcore covered.
f=/proc/sys/kernel/printk_ratelimit
! nsenter -t "$PID" -m sh -c "cat $f >$f" 2>"$W/e2" && grep -q 'Read-only file system' "$W/e2" &&
	[ "$(awk '$5 == "/proc/kmsg" || $5 == "/proc/kcore"' "/proc/$PID/mountinfo" | wc -l)" = 2 ]
ok $? "its /proc and /sys read-only ($(head -1 "$W/e2")), /proc/kmsg and /proc/kcore covered"

# ---- the collection: kallsyms readable, the store written ----
KS='prf_function_samples_total{function="prf_test_kmod_spin",module="prf_test_kmod"}'
has_series() { curl -s -o "$W/mk" "$U/metrics" && grep -q "^$KS " "$W/mk"; }
i=0
while [ $i -lt 10 ] && ! has_series; do
	echo 2000 >/proc/prf_test_kmod
	i=$((i + 1))
done
s=$(val "$KS" "$W/mk")
[ -n "$s" ] && [ "$s" -gt 0 ]
r=$?
ok $r "GET /metrics: the workload by its kernel name, prf_test_kmod_spin ($s samples; $i spins of 2 s)"
[ $r -eq 0 ] || grep '^prf_function_samples_total' "$W/mk" | sort -t' ' -k2 -n -r | head -5 | diag
[ -L /var/lib/prf ] && [ "$(stat -c %u "/var/lib/private/prf")" = "$uid" ] &&
	[ "$(nsnaps)" -ge 3 ]
ok $? "the store: /var/lib/prf -> private/prf, the daemon's, $(nsnaps) intervals that prfpr reads"

# ---- reload: the settings re-read (fewer series, a long interval) ----
[ "$(val prf_daemon_function_series_max "$W/mk")" = 200 ]
ok $? "before the reload: 200 series at most (metrics-top 50)"
printf 'metrics-top = 5\ninterval = 3600\n' >>/etc/prf/prf.conf
run 0 "systemctl reload prf" systemctl reload prf
series_max() { curl -s -o "$W/mr" "$U/metrics" && [ "$(val prf_daemon_function_series_max "$W/mr")" = 20 ]; }
wait_for series_max && dlog | grep -q 'SIGHUP: settings re-read' && [ "$(prop MainPID)" = "$PID" ]
ok $? "reload: SIGHUP to the same process, settings re-read: 20 series at most ($(val prf_daemon_function_series_max "$W/mr"))"

# ---- stop: a last interval, exit 0 ----
sleep 3	# the reload's own interval written
n0=$(nsnaps)
sleep 2
n1=$(nsnaps)
run 0 "systemctl stop prf" systemctl stop prf
n2=$(nsnaps)
[ "$n1" = "$n0" ] && [ "$n2" = $((n1 + 1)) ]
ok $? "stop: a last interval ($n0, $n1 after 2 s of a 1 h interval, $n2 after the stop)"
res="$(prop Result) $(prop ExecMainCode) $(prop ExecMainStatus)"
[ "$res" = "success 1 0" ]
ok $? "stop: Result=success, exited with status 0 (Result ExecMainCode ExecMainStatus: $res)"
dlog | tail -5 | diag
run 0 "prfpr --all /var/lib/prf: the whole store reads" /usr/local/bin/prfpr --all /var/lib/prf
grep -q 'prf_test_kmod_spin' "$W/out"
ok $? "prfpr --all: the workload's function in the store"
rmmod prf_test_kmod
ok $? "rmmod prf_test_kmod"

[ "$n" -eq $((PLAN - 1)) ]
ok $? "all $PLAN results given ($((n + 1)))"
echo "1..$n"
[ "$fail" -eq 0 ]
