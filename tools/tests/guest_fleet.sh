#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# One guest of the fleet of two (tools/tests/fleet_test.sh, the host's side):
# the test module busy in one function of its own (FLEET_WORK: "kmod" spins
# in prf_test_kmod_spin, "chain" in prf_test_a/b/c), and prf daemon on the
# real device serving /metrics and pprof on 0.0.0.0:FLEET_PORT, which the
# runner's --hostfwd forwards to the host.  The guest stays up while the
# host's Prometheus is healthy (at http://10.0.2.2:FLEET_PROM, the host's
# loopback as QEMU's user networking shows it), from its first answer until
# the host stops it, at most FLEET_MAX seconds; then SIGTERM, a last
# interval, exit 0.  TAP output.

T=$(cd "$(dirname "$0")" && pwd)
PORT=${FLEET_PORT:-9464}
PROM=${FLEET_PROM:-9090}
MAX=${FLEET_MAX:-400}
W=$(mktemp -d /tmp/prf-fleet.XXXXXX)
trap 'kill -9 $DPID $LPID 2>/dev/null; rm -rf "$W"' EXIT INT TERM

. "$T/tap.sh"
B=$(tools_dir "$T")
skip_unless_ready
[ -n "${PRF_TEST_KMOD:-}" ] || { echo "1..0 # SKIP no test module (make -C selftests/kmod)"; exit 0; }

run 0 "insmod the test module" insmod "$PRF_TEST_KMOD"
case ${FLEET_WORK:-kmod} in
kmod)	F=/proc/prf_test_kmod ;;
*)	F=/proc/prf_test_chain ;;
esac
# the workload: 200 ms spins back to back, for the whole run
( while :; do echo 200 >"$F"; done ) 2>/dev/null &
LPID=$!

# --insecure: plain HTTP on 0.0.0.0, which the guest's one network (QEMU's
# user network) makes reachable only through the forward on the host's
# loopback
"$B/prf" daemon -c /dev/null --dir "$W/store" --interval 2 \
	--listen "0.0.0.0:$PORT" --insecure >"$W/daemon.log" 2>&1 &
DPID=$!
ok 0 "prf daemon started on 0.0.0.0:$PORT"

healthy() { curl -s -o /dev/null -m 5 "http://10.0.2.2:$PROM/-/healthy"; }
start=$(cut -d. -f1 /proc/uptime)
seen=0
while :; do
	now=$(cut -d. -f1 /proc/uptime)
	[ $((now - start)) -lt "$MAX" ] || break
	kill -0 $DPID 2>/dev/null || break
	if healthy; then
		seen=1
	elif [ $seen = 1 ]; then
		break		# the host is done with us
	fi
	sleep 2
done
ok $((1 - seen)) "the host's Prometheus answered, then stopped"
kill -TERM $DPID
wait $DPID
ok $? "prf daemon exits 0 on SIGTERM"
kill $LPID 2>/dev/null
wait $LPID 2>/dev/null
sleep 0.5
run 0 "rmmod the test module" rmmod prf_test_kmod
diag "$W/daemon.log"
echo "1..$n"
[ "$fail" -eq 0 ]
