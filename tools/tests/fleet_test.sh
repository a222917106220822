#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# prf daemon in a fleet of two (issue 26), from the host:
#
#   tools/tests/fleet_test.sh
#
# Two debian-6.1 guests (selftests/vm/run --hostfwd), each running
# tools/tests/guest_fleet.sh: the test module busy in a function of its own
# (guest a: prf_test_kmod_spin; guest b: the chain prf_test_a/b/c) and
# prf daemon --listen on it.  A real Prometheus (Debian 12's package, its
# .deb unpacked into the cache: nothing installed, no service started),
# with a configuration and a data directory of its own, scrapes both every
# 2 s; then, over its HTTP API,
#	topk by (instance) (3, sum by (instance, function)
#		(rate(prf_function_samples_total[30s])))
# must name each guest's workload function under that guest's instance
# label and not the other's, and `go tool pprof -top` of each guest's
# /debug/pprof/profile?seconds=5 must show the same.  Stopping Prometheus
# tells the guests to end (they watch its /-/healthy); each guest's own
# verdict (its TAP lines, no kernel report) counts too.  TAP output; the
# PromQL answer is printed as comments (the README quotes one).
#
# Host ports: three free ones (PRF_FLEET_PORT=P: P + 1, P + 2, P + 9).
# The last line, "vm-run: fleet: PASS|FAIL: N ok, ...", is the form
# scripts/check.sh counts.

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/prf
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
if [ -n "${PRF_FLEET_PORT:-}" ]; then
	P0=$PRF_FLEET_PORT
	PA=$((P0 + 1)) PB=$((P0 + 2)) PP=$((P0 + 9))
else
	PA=$(free_port) PB=$(free_port) PP=$(free_port)
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/prf-fleet.XXXXXX")
pids=()
cleanup() {
	[ -z "${PROM_PID:-}" ] || kill "$PROM_PID" 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

n=0 fail=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
		fail=$((fail + 1)); echo "not ok $n - $2"; fi
}
diag() { sed 's/^/# /' "$@"; }
finish() {
	echo "1..$n"
	echo "vm-run: fleet: $([ "$fail" = 0 ] && echo PASS || echo FAIL): $((n - fail)) ok, $fail not ok, 0 skipped"
	[ "$fail" -eq 0 ]
	exit
}

# ---- Prometheus: Debian 12's package, unpacked, not installed --------------
PROM=$CACHE/prometheus/usr/bin/prometheus
if [ ! -x "$PROM" ]; then
	mkdir -p "$CACHE/prometheus.dl"
	(cd "$CACHE/prometheus.dl" && rm -f ./*.deb &&
		apt-get download -q prometheus >"$W/dl.log" 2>&1 &&
		dpkg-deb -x ./prometheus_*.deb "$CACHE/prometheus.new") &&
		rm -rf "$CACHE/prometheus" && mv "$CACHE/prometheus.new" "$CACHE/prometheus"
fi
[ -x "$PROM" ]
ok $? "Prometheus unpacked from Debian's package ($("$PROM" --version 2>&1 | sed -n '1s/ (.*//p'))"
command -v go >/dev/null
ok $? "go tool pprof available (golang-go)"
[ "$fail" -eq 0 ] || finish

# ---- The fleet ----------------------------------------------------------------
[ -f build/debian-6.1/prf.ko ] && [ -f build/debian-6.1/kmod/prf_test_kmod.ko ] &&
	[ -x tools/build/prf ]
ok $? "prf.ko, the test module and the tools are built"
[ "$fail" -eq 0 ] || finish
guest() {	# guest NAME HOSTPORT WORK
	selftests/vm/run --kernel debian-6.1 --smp 1 --timeout 600 \
		--hostfwd "$2:9464" --env FLEET_WORK="$3" --env FLEET_PROM="$PP" \
		--log "$W/$1.console" -- tools/tests/guest_fleet.sh >"$W/$1.out" 2>&1
}
guest a "$PA" kmod & pids+=($!)
guest b "$PB" chain & pids+=($!)

up() { curl -s -m 5 "http://127.0.0.1:$1/metrics" | grep -q '^prf_function_samples_total'; }
for port in "$PA" "$PB"; do
	i=0
	until up "$port" || [ $i -ge 150 ]; do sleep 2; i=$((i + 1)); done
	up "$port"
	ok $? "the guest on host port $port serves /metrics"
done
[ "$fail" -eq 0 ] || { diag "$W/a.out" "$W/b.out"; finish; }

cat >"$W/prometheus.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 2s
scrape_configs:
  - job_name: prf
    static_configs:
      - targets: ['127.0.0.1:$PA', '127.0.0.1:$PB']
EOF
"$PROM" --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/data" \
	--web.listen-address="127.0.0.1:$PP" >"$W/prom.log" 2>&1 &
PROM_PID=$!
api() { curl -s -m 10 "http://127.0.0.1:$PP/api/v1/$1" "${@:2}"; }
i=0
until api targets | grep -q '"health":"up".*"health":"up"' || [ $i -ge 60 ]; do
	sleep 2; i=$((i + 1))
done
api targets | grep -q '"health":"up".*"health":"up"'
ok $? "Prometheus scrapes both guests"

# 30 s of scrapes, then the question a fleet's owner asks.
sleep 36
Q='topk by (instance) (3, sum by (instance, function) (rate(prf_function_samples_total[30s])))'
api query --data-urlencode "query=$Q" >"$W/answer.json"
echo "# PromQL: $Q"
grep -o '"metric":{[^}]*},"value":\[[^]]*\]' "$W/answer.json" |
	sed 's/"metric":{\(.*\)},"value":\[[^,]*,"\(.*\)"\]/\1 \2/' | diag
names() {	# names PORT: the functions of the answer under that guest
	grep -o '"metric":{[^}]*}' "$W/answer.json" | grep "\"instance\":\"127.0.0.1:$1\"" |
		sed -n 's/.*"function":"\([^"]*\)".*/\1/p'
}
names "$PA" | grep -qx prf_test_kmod_spin
ok $? "guest a's top functions (PromQL) name its workload, prf_test_kmod_spin"
names "$PB" | grep -qx 'prf_test_[abc]'
ok $? "guest b's top functions (PromQL) name its workload, prf_test_a/b/c"
! names "$PA" | grep -qx 'prf_test_[abc]' && ! names "$PB" | grep -qx prf_test_kmod_spin
ok $? "neither guest's top has the other's workload"

for g in "a $PA prf_test_kmod_spin" "b $PB prf_test_[abc]"; do
	set -- $g
	# up to three tries: a guest under TCG on a loaded host can answer
	# past pprof's own deadline (each try's output is kept for the log)
	for try in 1 2 3; do
		go tool pprof -top "http://127.0.0.1:$2/debug/pprof/profile?seconds=5" \
			>"$W/pprof.$1" 2>&1
		grep -Eq " $3\$" "$W/pprof.$1"
		r=$?
		[ $r = 0 ] && break
		echo "# try $try:"; head -5 "$W/pprof.$1" | diag
	done
	ok $r "go tool pprof -top of guest $1's profile shows $3"
	[ $r = 0 ] || head -20 "$W/pprof.$1" | diag
done

# Prometheus stopped: the guests end their runs, each with its verdict.
kill "$PROM_PID"
wait "$PROM_PID" 2>/dev/null
PROM_PID=
for i in 0 1; do
	wait "${pids[$i]}"
	r=$?
	name=$([ $i = 0 ] && echo a || echo b)
	ok $r "guest $name: $(tail -n 1 "$W/$name.out")"
	[ $r = 0 ] || grep -E '^(not ok|#)' "$W/$name.out" | head -30 | diag
done
pids=()
finish
