# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of prf daemon's web configuration (--web-config, issue 36
# item 7): TLS and basic authentication as Prometheus exporters take them,
# the refusal of a non-loopback --listen without them, and profiles that
# carry no kernel address unless --kernel-addresses.  The device is the
# LD_PRELOAD stand-in (tests/fakeprf.c); certificates are made here with
# openssl (a CA of the test's own and a server certificate for 127.0.0.1);
# every server (prf daemon, Prometheus) listens on 127.0.0.1 alone.
# Clients: curl, Debian's prometheus (a scrape over TLS with basic auth,
# its API asked for the series), go tool pprof (user:password@ in the URL,
# the CA through SSL_CERT_FILE: go 1.19's pprof fetches with Go's own
# client, which takes no -tls_ca).  Every wait is bounded.
#
#   bash tools/tests/webconf_tests.sh tools/build
#
# TAP on stdout; exit status 0 when all passed.  run_host_tests.sh runs it
# beside the others and folds its TAP in.

B=$(cd "${1:?usage: webconf_tests.sh BUILDDIR}" && pwd)
T=$(cd "$(dirname "$0")" && pwd)
D=$T/data
W=$(mktemp -d /tmp/prf-webconf-test.XXXXXX)
export TZ=UTC LC_ALL=C
. "$T/tap.sh"
. "$T/waits.sh"
skip() { ok 0 "$1 # SKIP $2"; }
# wait_until SECONDS CMD...: here bounded by the clock, not by a count of
# tries (a try that runs a program may take seconds on a loaded host)
wait_until() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep 0.2
	done
}
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
bcrypt() {	# bcrypt PASSWORD: its $2b$ hash (crypt(3) through Python)
	python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))' "$1"
}

printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 6\naddrs 0\n' >"$W/prf"
DKS="--kallsyms $D/kallsyms.txt --proc-modules $D/modules.txt"
DFK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$W/prf FAKEPRF_CLONE=$W/clone FAKEPRF_LOG=$W/log FAKEPRF_GROW=1"
PORT=$(free_port)
U=https://127.0.0.1:$PORT

# ---- certificates: a CA, and a server certificate for 127.0.0.1 ----
(cd "$W" &&
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=prf-test-ca \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign,cRLSign \
		-keyout ca.key -out ca.crt &&
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key \
		-out server.csr &&
	printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >ext.cnf &&
	openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
		-extfile ext.cnf -out server.crt) >"$W/openssl.log" 2>&1
ok $? "openssl: a CA and a server certificate for 127.0.0.1"
H1=$(bcrypt secret)
H2=$(bcrypt other)
case $H1 in '$2b$10$'*) r=0 ;; *) r=1 ;; esac
ok $r "bcrypt hashes made ($H1)"

# web FILE USERHASH: a web configuration of TLS and the user alice
web() {
	cat >"$1" <<EOF
# prf daemon's web configuration
tls_server_config:
  cert_file: server.crt
  key_file: $W/server.key
  min_version: TLS12
basic_auth_users:
  alice: '$2'
EOF
}
web "$W/web.yml" "$H1"

# ---- bad files: refused at start, with their line ----
# bad NAME LINE TEXT...: prf daemon with web config NAME (its text the
# lines given) must exit 2 saying NAME:LINE
bad() {
	name=$1 line=$2
	shift 2
	printf '%s\n' "$@" >"$W/$name"
	$DFK timeout 20 "$B/prf" daemon -c /dev/null $DKS --dir "$W/store-$name" --listen "$PORT" \
		--web-config "$W/$name" >"$W/bad.out" 2>"$W/bad.err"
	st=$?
	[ $st -eq 2 ] && grep -q "$W/$name:$line: " "$W/bad.err" && [ ! -e "$W/store-$name" ]
	ok $? "a web config with $name: refused at start, exit 2, its line $line said ($(head -c 160 "$W/bad.err"))"
}
bad unknown-key 3 "tls_server_config:" "  cert_file: server.crt" "  certfile: server.key"
bad unknown-top 2 "basic_auth_users: {}" "basic_auth_user:" "  alice: x"
bad bad-hash 3 "# users" "basic_auth_users:" "  alice: secret"
bad client-ca 4 "tls_server_config:" "  cert_file: server.crt" "  key_file: server.key" \
	"  client_ca_file: ca.crt"
bad no-key 2 "tls_server_config:" "  cert_file: server.crt"
bad bad-version 4 "tls_server_config:" "  cert_file: server.crt" "  key_file: server.key" \
	"  min_version: TLS14"
bad no-cert-file 2 "tls_server_config:" "  cert_file: missing.crt" "  key_file: server.key"
# libyaml finds the flow sequence unclosed at the end: the line after it
bad not-yaml 3 "basic_auth_users:" "  alice: [unclosed"
bad twice 3 "basic_auth_users:" "  alice: '$H1'" "  alice: '$H2'"

# ---- another address than loopback needs TLS and users, or --insecure ----
# (the store's directory cannot be made: a daemon that let the address
# pass would end there, exit 1, before it opens any socket)
printf 'basic_auth_users:\n  alice: %s\n' "'$H1'" >"$W/users-only.yml"
for cf in none "$W/users-only.yml"; do
	set -- --listen "0.0.0.0:$PORT"
	[ "$cf" = none ] || set -- "$@" --web-config "$cf"
	$DFK timeout 20 "$B/prf" daemon -c /dev/null $DKS --dir /proc/prf-no/store "$@" \
		>"$W/bad.out" 2>"$W/bad.err"
	st=$?
	[ $st -eq 2 ] && grep -q "not a loopback address.*--insecure" "$W/bad.err"
	ok $? "--listen 0.0.0.0 with web config $(basename "$cf"): refused, exit 2 ($st)"
done
# --insecure passes that check: the run ends at the store's directory
# (which cannot be made) before any socket is opened
$DFK timeout 20 "$B/prf" daemon -c /dev/null $DKS --dir /proc/prf-no/store \
	--listen "0.0.0.0:$PORT" --insecure >"$W/bad.out" 2>"$W/bad.err"
st=$?
[ $st -eq 1 ] && ! grep -q "loopback" "$W/bad.err" && grep -q "/proc/prf-no" "$W/bad.err"
ok $? "--listen 0.0.0.0 --insecure: not refused for its address (exit $st at the store)"

# ---- the daemon over TLS with users, its settings in a prf.conf ----
printf 'listen = 127.0.0.1:%s\ninterval = 1\nstacks = 8\nweb_config = %s\n' \
	"$PORT" "$W/web.yml" >"$W/prf.conf"
$DFK "$B/prf" daemon -c "$W/prf.conf" $DKS --dir "$W/store" >"$W/d.out" 2>"$W/d.err" &
DPID=$!
pids="$pids $DPID"
get() {	# get USER:PASS PATH [CURL ARGS]: the body in $W/body, the status on stdout
	c=$1 p=$2
	shift 2
	if [ -n "$c" ]; then set -- -u "$c" "$@"; fi
	curl -s -m 20 --cacert "$W/ca.crt" -o "$W/body" -w '%{http_code}' "$@" "$U$p"
}
up() { [ "$(get alice:secret /metrics)" = 200 ]; }
wait_until 20 up
ok $? "prf daemon serves /metrics over TLS to alice"
grep -q '^prf_samples_total{kind="kernel"}' "$W/body"
ok $? "... the series"

code=$(get alice:wrong /metrics)
[ "$code" = 401 ] && [ "$(cat "$W/body")" = unauthorized ]
ok $? "a wrong password: 401 and nothing else ($code, $(head -c 40 "$W/body"))"
code=$(get "" /metrics -D "$W/hdr")
[ "$code" = 401 ] && [ "$(cat "$W/body")" = unauthorized ] &&
	grep -qi '^WWW-Authenticate: Basic realm="prf"' "$W/hdr"
ok $? "no password: 401 and the challenge ($code)"
code=$(get bob:secret /debug/pprof/profile?seconds=1)
[ "$code" = 401 ] && [ "$(cat "$W/body")" = unauthorized ]
ok $? "an unknown user: 401 for the profile too ($code)"
code=$(curl -s -m 10 -o "$W/body" -w '%{http_code}' -u alice:secret "http://127.0.0.1:$PORT/metrics")
[ "$code" = 000 ] && ! grep -q prf_ "$W/body" 2>/dev/null
ok $? "plain HTTP to the TLS port: no answer ($code)"
code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -u alice:secret "$U/metrics")
[ "$code" = 000 ]
ok $? "TLS without trusting the test's CA: refused by the client ($code)"
for p in allocs block goroutine mutex; do
	code=$(get alice:secret /debug/pprof/$p)
	[ "$code" = 404 ] && grep -q '^not found' "$W/body" && ! grep -q prf_ "$W/body"
	ok $? "GET /debug/pprof/$p (Parca's defaults): a clean 404 ($code)"
done

# ---- the profile: no kernel address, names kept ----
has_kaddr() { grep -Eq '(0x)?ffff[0-9a-f]{8}' "$1"; }	# has_kaddr FILE
if command -v go >/dev/null 2>&1; then
	SSL_CERT_FILE=$W/ca.crt HOME=$W GOCACHE=$W/gocache timeout 120 go tool pprof -raw \
		"https://alice:secret@127.0.0.1:$PORT/debug/pprof/profile?seconds=1" \
		>"$W/raw" 2>"$W/raw.err"
	r=$?
	[ $r -eq 0 ] && grep -q ' kvm_b ' "$W/raw" && grep -q '^Duration: 1' "$W/raw"
	ok $? "go tool pprof with credentials reads the profile over TLS (kvm_b, 1 s)"
	[ $r -eq 0 ] || diag "$W/raw.err"
	! has_kaddr "$W/raw" && grep -q '^     1: 0x0 ' "$W/raw"
	ok $? "the profile's locations: names at address 0, no kernel address (-raw)"
	has_kaddr "$W/raw" && diag "$W/raw"
else
	skip "go tool pprof reads the profile" "go missing (golang-go)"
	skip "no kernel address in the profile (-raw)" "go missing"
fi
code=$(get alice:secret '/debug/pprof/profile?seconds=1')
gzip -dc "$W/body" >"$W/prof.pb" 2>/dev/null
[ "$code" = 200 ] && [ -s "$W/prof.pb" ] && grep -aq kvm_b "$W/prof.pb" &&
	! LC_ALL=C grep -aq "$(printf '\377\377\377\377')" "$W/prof.pb" &&
	! LC_ALL=C grep -aEq 'ffff[0-9a-f]{8}' "$W/prof.pb"
ok $? "the profile's bytes: no kernel address, as a number or as a name"

# ---- Prometheus scrapes it over TLS with basic auth ----
PROM=$(command -v prometheus)
[ -n "$PROM" ] || PROM=${XDG_CACHE_HOME:-$HOME/.cache}/prf/prometheus/usr/bin/prometheus
if [ -x "$PROM" ]; then
	PP=$(free_port)
	printf 'secret' >"$W/pw"
	printf 'wrong' >"$W/pw-wrong"
	cat >"$W/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: prf
    scheme: https
    tls_config:
      ca_file: $W/ca.crt
    basic_auth:
      username: alice
      password_file: $W/pw
    static_configs:
      - targets: ['127.0.0.1:$PORT']
  - job_name: prf-wrong
    scheme: https
    tls_config:
      ca_file: $W/ca.crt
    basic_auth:
      username: alice
      password_file: $W/pw-wrong
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	"$PROM" --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/promdata" \
		--web.listen-address="127.0.0.1:$PP" >"$W/prom.log" 2>&1 &
	PROM_PID=$!
	pids="$pids $PROM_PID"
	api() { curl -s -m 10 "http://127.0.0.1:$PP/api/v1/$1" "${@:2}"; }
	scraped() {
		api query --data-urlencode 'query=prf_samples_total{job="prf",kind="kernel"}' \
			>"$W/answer.json" && grep -q '"value":\[' "$W/answer.json"
	}
	wait_until 60 scraped
	ok $? "Prometheus scrapes over TLS with basic auth: prf_samples_total{kind=\"kernel\"} answered"
	echo "# PromQL: prf_samples_total{job=\"prf\",kind=\"kernel\"}"
	diag "$W/answer.json"
	echo
	# the wrong job's target once scraped: down, for its 401
	wrong_down() {
		api targets >"$W/targets.json" &&
			grep -o '"scrapePool":"prf-wrong"[^{}]*' "$W/targets.json" |
			grep -q '"lastError":"[^"]*401 Unauthorized".*"health":"down"'
	}
	wait_until 30 wrong_down
	ok $? "the job with a wrong password: down, 401"
	wrong_down || diag "$W/targets.json"
	api query --data-urlencode 'query=prf_samples_total{job="prf-wrong"}' >"$W/wrong.json"
	grep -q '"result":\[\]' "$W/wrong.json"
	ok $? "... and no series of it"
	kill "$PROM_PID" 2>/dev/null
	wait "$PROM_PID" 2>/dev/null
else
	skip "Prometheus scrapes over TLS with basic auth" "no prometheus (Debian's package)"
	skip "a wrong password's job is down" "no prometheus"
	skip "... and no series of it" "no prometheus"
fi

# ---- SIGHUP: the file read again ----
web "$W/web.yml" "$H2"
printf 'kernel-addresses = yes\n' >>"$W/prf.conf"
kill -HUP "$DPID"
newpw() { [ "$(get alice:other /metrics)" = 200 ]; }
wait_until 20 newpw
ok $? "SIGHUP: the new password is taken"
code=$(get alice:secret /metrics)
[ "$code" = 401 ]
ok $? "... the old one refused ($code)"
code=$(get alice:other '/debug/pprof/profile?seconds=1')
gzip -dc "$W/body" >"$W/prof.pb" 2>/dev/null
[ "$code" = 200 ] && LC_ALL=C grep -aq "$(printf '\377\377\377\377')" "$W/prof.pb"
ok $? "kernel-addresses = yes: the profile carries the kernel's addresses ($code)"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  alice: %s\n  bob: plain\n' \
	"'$H1'" >"$W/web.yml"
kill -HUP "$DPID"
said() { grep -q "SIGHUP: $W/web.yml:6: " "$W/d.err"; }
wait_until 20 said
ok $? "SIGHUP with a bad web config: refused with its line ($(grep -m1 "SIGHUP: $W" "$W/d.err"))"
code=$(get alice:other /metrics)
[ "$code" = 200 ] && kill -0 "$DPID"
ok $? "... the previous settings kept: served as before ($code)"

kill -TERM "$DPID"
wait "$DPID"
ok $? "SIGTERM: exit 0"
echo "1..$n"
[ "$fail" -eq 0 ]
