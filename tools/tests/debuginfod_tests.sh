# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of debug files fetched from a debuginfod server (issue 38):
# sourced by run_host_tests.sh, whose ok/diag/skip, $B, $T and $W it uses.
#
# usym_link (tools/Makefile: usymprog exported, stripped) runs from a
# directory without its debug file; Debian's debuginfod serves that file
# from a directory of its own on a free port, asked on 127.0.0.1 (0.188
# has no option to listen on loopback alone; it serves only that file,
# for the few seconds of the test).  Through
# unit_test --usym-names (usym's names of addresses, in one process):
#   - served: usym_static (a local function) and usym_one named;
#   - the server stopped: named again, from the client's cache;
#   - a server that accepts and never answers: the names degrade to the
#     .dynsym's, marked, and naming two programs' addresses (two debug
#     files to ask for, three lookups) costs the time limit once: the
#     default 5 s, and $DEBUGINFOD_TIMEOUT when set; the command says once
#     on stderr that the limit left the two files unnamed.
# And prf cfi of the x86-64 truth (data/cfi_x86.S, cfi_x86_dbg.S) stripped
# of its .debug_frame: f_dbg's rows from the served debug file's.

DW=$W/debuginfod
mkdir -p "$DW/prog" "$DW/srv" "$DW/strip"

# A free TCP port on 127.0.0.1 (the kernel picks it).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# now_ms: a monotonic clock in milliseconds.
now_ms() {
	python3 -c 'import time; print(int(time.monotonic() * 1000))'
}

# dead_start: a server that accepts connections on 127.0.0.1 and never
# answers, its port in $dport, its pid in $dead (kill it when done).
dead_start() {
	dport=$(free_port)
	python3 - "$dport" >"$DW/dead.log" 2>&1 <<'X' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(64)
print("listening", flush=True)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
X
	dead=$!
	for _ in $(seq 100); do
		grep -q listening "$DW/dead.log" && break
		sleep 0.1
	done
}

if ! command -v debuginfod >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip "debuginfod: a served debug file names a stripped program" \
		"no debuginfod or python3 (scripts/deps.sh installs them)"
else
	mkdir -p "$DW/cfi"
	${CC:-cc} -nostdlib -shared -Wl,--build-id=sha1 -o "$DW/cfi.full" \
		"$T/data/cfi_x86.S" "$T/data/cfi_x86_dbg.S" &&
		objcopy --only-keep-debug "$DW/cfi.full" "$DW/srv/cfi.debug" 2>/dev/null &&
		objcopy --strip-debug "$DW/cfi.full" "$DW/cfi/t.so" 2>/dev/null
	ok $? "debuginfod: the x86-64 CFI truth built, its .debug_frame split off"
	cp "$B/usym_link" "$DW/prog/usym_link" && cp "$B/usym_link.debug" "$DW/srv/" &&
		cp "$B/usym_strip" "$DW/strip/usym_strip" &&
		"$DW/prog/usym_link" "$DW/link.maps" >"$DW/link.out" &&
		"$DW/strip/usym_strip" "$DW/strip.maps" >"$DW/strip.out"
	ok $? "debuginfod: the stripped programs ran, their debug files elsewhere"
	one=$(sed -n 's/^usym_one //p' "$DW/link.out")
	st=$(sed -n 's/^usym_static //p' "$DW/link.out")
	sone=$(sed -n 's/^usym_one //p' "$DW/strip.out")

	# Without a server: not named (usym_one by its .dynsym, marked).
	env -u DEBUGINFOD_URLS PRF_DEBUG_DIR="$DW/none" \
		"$B/unit_test" --usym-names "$DW/link.maps:$st" "$DW/link.maps:$one" >"$DW/out" 2>&1
	printf '(no symbol)\nusym_one (dynsym)\n' | cmp -s - "$DW/out"
	ok $? "debuginfod: not configured, usym_static unnamed, 'usym_one (dynsym)'"
	diag "$DW/out"

	port=$(free_port)
	debuginfod -F -p "$port" -d "$DW/db.sqlite" -t 0 -g 0 -c 1 "$DW/srv" \
		>"$DW/server.log" 2>&1 &
	srv=$!
	id=$(readelf -n "$B/usym_link" | sed -n 's/.*Build ID: *//p')
	cid=$(readelf -n "$DW/cfi.full" | sed -n 's/.*Build ID: *//p')
	# Its scan done: the debug files served by build ID.
	python3 - "$port" "$id" "$cid" <<'X'
import sys, time, urllib.request
for bid in sys.argv[2:]:
    url = "http://127.0.0.1:%s/buildid/%s/debuginfo" % (sys.argv[1], bid)
    for _ in range(600):
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    break
        except Exception:
            pass
        time.sleep(0.1)
    else:
        sys.exit(1)
X
	ok $? "debuginfod: the server on 127.0.0.1:$port serves usym_link.debug (build ID $id) and cfi.debug"

	URLS=http://127.0.0.1:$port
	env DEBUGINFOD_URLS="$URLS" DEBUGINFOD_CACHE_PATH="$DW/cache" PRF_DEBUG_DIR="$DW/none" \
		"$B/unit_test" --usym-names "$DW/link.maps:$st" "$DW/link.maps:$one" >"$DW/out" 2>&1
	printf 'usym_static\nusym_one\n' | cmp -s - "$DW/out"
	ok $? "debuginfod: served, usym_static and usym_one named"
	diag "$DW/out"
	env DEBUGINFOD_URLS="$URLS" DEBUGINFOD_CACHE_PATH="$DW/cache" PRF_DEBUG_DIR="$DW/none" \
		"$B/prf" cfi --summary "$DW/cfi/t.so" >"$DW/out" 2>&1
	grep -qx "debug file: $DW/cache/$cid/debuginfo (debuginfod), .debug_frame read, 3 bytes" \
		"$DW/out" && grep -qx "covered:    46 of 50 bytes of the code sections (92.0%)" "$DW/out"
	ok $? "debuginfod: prf cfi reads the served debug file's .debug_frame (f_dbg's 3 bytes)"
	diag "$DW/out"

	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	env DEBUGINFOD_URLS="$URLS" DEBUGINFOD_CACHE_PATH="$DW/cache" PRF_DEBUG_DIR="$DW/none" \
		"$B/unit_test" --usym-names "$DW/link.maps:$st" "$DW/link.maps:$one" >"$DW/out" 2>&1
	printf 'usym_static\nusym_one\n' | cmp -s - "$DW/out"
	ok $? "debuginfod: the server stopped, named again from the cache"
	diag "$DW/out"

	# A server that accepts connections and never answers.
	dead_start
	# The programs' own mappings alone: the host's C library and loader,
	# stripped too, would be asked for as well, and counted.
	grep -F "$DW/prog/usym_link" "$DW/link.maps" >"$DW/link1.maps"
	grep -F "$DW/strip/usym_strip" "$DW/strip.maps" >"$DW/strip1.maps"
	# dead_run CACHE [DEBUGINFOD_TIMEOUT]: the three lookups' time, in ms,
	# into $DW/ms, their names into $DW/out, stderr into $DW/err (CACHE
	# "-": no server named)
	dead_run() {
		local t0 t1 urls=http://127.0.0.1:$dport

		[ "$1" != - ] || urls=
		t0=$(now_ms)
		env DEBUGINFOD_URLS="$urls" DEBUGINFOD_CACHE_PATH="$DW/cache-$1" \
			${2:+DEBUGINFOD_TIMEOUT=$2} PRF_DEBUG_DIR="$DW/none" \
			"$B/unit_test" --usym-names "$DW/link1.maps:$st" "$DW/link1.maps:$one" \
			"$DW/strip1.maps:$sone" >"$DW/out" 2>"$DW/err"
		t1=$(now_ms)
		echo $((t1 - t0)) >"$DW/ms"
	}
	# The same lookups without a server, on this machine now: what the
	# limit adds is weighed against that.
	dead_run -
	base=$(cat "$DW/ms")
	[ ! -s "$DW/err" ]
	ok $? "debuginfod: no server named, nothing said of a time limit"
	diag "$DW/err"
	dead_run default
	ms=$(($(cat "$DW/ms") - base))
	printf '(no symbol)\nusym_one (dynsym)\n(no symbol)\n' | cmp -s - "$DW/out"
	ok $? "debuginfod: a server that never answers: the .dynsym's names, marked"
	diag "$DW/out"
	# said once, at the end: the two programs' debug files, each counted
	# once (three lookups)
	echo "debuginfod: no answer within 5 s (DEBUGINFOD_TIMEOUT); 2 files left unnamed" |
		cmp -s - "$DW/err"
	ok $? "debuginfod: ... and the command says once on stderr that the limit left 2 files unnamed"
	diag "$DW/err"
	# 5 s once, ended within libdebuginfod's 1 s between progress calls
	# and 1 s of client start-up (curl, TLS) under load
	# (two files asked for: once a file would be 10 s)
	[ "$ms" -ge 4500 ] && [ "$ms" -le 7000 ]
	ok $? "debuginfod: ... costs the default limit (5 s) once for the report: ${ms} ms more than without a server (${base} ms)"
	dead_run timeout 2
	ms=$(($(cat "$DW/ms") - base))
	[ "$ms" -ge 1500 ] && [ "$ms" -le 4000 ]
	ok $? "debuginfod: ... and DEBUGINFOD_TIMEOUT=2, 2 s once: ${ms} ms more"
	echo "debuginfod: no answer within 2 s (DEBUGINFOD_TIMEOUT); 2 files left unnamed" |
		cmp -s - "$DW/err"
	ok $? "debuginfod: ... said with its limit, 2 s"
	diag "$DW/err"
	kill "$dead" 2>/dev/null
	wait "$dead" 2>/dev/null
fi
