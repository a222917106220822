# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of the vDSO named and unwound through (issue 38): prf finds
# the vDSO it runs with (src/vdso.c), the image every 64-bit task of the
# running kernel maps; a user objects table's vDSO file
# (PRF_UOBJ_VDSO_IMAGE, the fake's "[vdso]" path) is named by its symbols
# under "[vdso]" in the reports, the folded stacks, a snapshot read back
# (record version 11, with the vDSO's build ID) and prf top; a snapshot of
# another kernel's vDSO names none of its functions and says so; a prf.ko
# before PRF_UOBJ_VDSO (EINVAL) is asked again without it; prf cfi --vdso
# builds its unwind table.  The truth: this host's vDSO dumped
# (unit_test --dump-vdso), read by nm -D and readelf.  Sourced by
# run_host_tests.sh, whose ok/run/same/skip/diag, $B, $T, $W, $P, $FK,
# $FKC, $FL, $F, $KS and foff it uses.

VW=$W/vdso
mkdir -p "$VW/nodebug"
# (no debug file of the vDSO from the host's /usr/lib/debug: its names are
# those of its own .dynsym, marked so)
export PRF_DEBUG_DIR=$VW/nodebug
if ! "$B/unit_test" --dump-vdso "$VW/vdso.so" 2>"$VW/dump.err"; then
	skip "vDSO: named, unwound" "no vDSO here: $(cat "$VW/dump.err")"
else
	# clock_gettime of the vDSO: x86-64's __vdso_clock_gettime, arm64's
	# __kernel_clock_gettime (nm -D: "ADDR T NAME@@VERSION")
	set -- $(nm -D --defined-only "$VW/vdso.so" | awk '
		{ n = $3; sub(/@.*/, "", n) }
		n == "__vdso_clock_gettime" || n == "__kernel_clock_gettime" { print $1, n; exit }')
	VA=$(printf %x "0x${1:-0}") VF=${2:-}
	BID=$(readelf -n "$VW/vdso.so" | sed -n 's/^ *Build ID: *//p')
	[ -n "$VF" ] && [ "$VA" != 0 ] && [ -n "$BID" ]
	ok $? "vDSO: dumped, $VF at 0x$VA, build ID $BID (nm -D, readelf -n)"
	VN="$VF (dynsym)"
	VE=$(printf %x $((0x$VA + 4)))
	X=$B/cxxprog
	VM=$(foff main)
	VC="5:0:[vdso]@$VE|$X@$(printf %x $((0x$VM + 5)))"
	FKV="$FKC FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_VDSO=1 FAKEPRF_UOBJ_ENTRIES=[vdso]:$VE:5,$X:$VM:3"

	# ---- prf record: the vDSO's file named from prf's own vDSO ----
	: >"$FL"
	run 0 "prf record -- true, a table with the vDSO's file" $FKV "$P" record $KS --no-cgroup -- true
	cp "$W/out" "$VW/rec.txt"
	grep -q "^ *5  *62.50  $VN \[vdso\]  *#" "$W/out" && grep -q "^ *3  *37.50  main  *cxxprog  *#" "$W/out" &&
		grep -q "^ *5  *[0-9.]*%  \[vdso\]  *named  *\[vdso\]\$" "$W/out" && ! grep -q "anonymous" "$W/out"
	r=$?
	ok $r "prf record: the vDSO's samples named $VN in [vdso], its program [vdso] named"
	[ $r -eq 0 ] || diag "$W/out"
	grep -q "^clone SETUOBJS 65536 4096 vdso\$" "$FL" && [ ! -s "$W/err" ]
	ok $? "prf record: asks the module for the vDSO as a file of its own (PRF_UOBJ_VDSO), nothing said"
	run 0 "prf record --csv -- true, the vDSO" $FKV "$P" record $KS --no-cgroup --csv -- true
	grep -qx "5,62.50,$VN,\[vdso\],0x$VA,function,busy,0,\[vdso\],$VN" "$W/out"
	ok $? "prf record --csv: the vDSO's function at its address in the image, 0x$VA"
	[ $? -eq 0 ] || diag "$W/out"
	run 0 "prf record --json -- true, the vDSO" $FKV "$P" record $KS --no-cgroup --json -- true
	grep -qF "{\"program\": \"[vdso]\", \"path\": \"[vdso]\", \"state\": \"named\", \"samples\": 5" "$W/out"
	ok $? "prf record --json: the program [vdso], named"

	# ---- a module before PRF_UOBJ_VDSO: asked again without it ----
	: >"$FL"
	run 0 "prf record -- true, a prf.ko before PRF_UOBJ_VDSO" $FKC FAKEPRF_UOBJS=1 \
		FAKEPRF_UOBJ_ENTRIES="$X:$VM:3" "$P" record $KS --no-cgroup -- true
	grep -q "^ *3  *100.00  main  *cxxprog  *#" "$W/out" && grep -q "^clone SETUOBJS 65536 4096\$" "$FL" &&
		[ "$(grep -c SETUOBJS "$FL")" = 1 ] && [ ! -s "$W/err" ]
	ok $? "prf record, a prf.ko before PRF_UOBJ_VDSO (EINVAL): the table set up without it, nothing said"
	[ $? -eq 0 ] || diag "$FL"
	: >"$FL"
	run 0 "prf record -g -- true, chains, a prf.ko before PRF_UOBJ_VDSO" $FKC FAKEPRF_UOBJS=1 \
		FAKEPRF_UOBJ_ENTRIES="$X:$VM:3" FAKEPRF_UCHAINS="3:0:$X@$VM" "$P" record $KS --no-cgroup \
		-g --folded -- true
	grep -qx "cxxprog;main 3" "$W/out" && grep -q "^clone SETUOBJS 16384 4096 chains 16\$" "$FL"
	ok $? "prf record -g, a prf.ko before PRF_UOBJ_VDSO: chains set up without it"

	# ---- call chains through the vDSO: folded, and a snapshot of them ----
	rm -f "$VW/v.prf"
	run 0 "prf record -g --folded -o FILE -- true, a chain from main into the vDSO" $FKV \
		FAKEPRF_UCHAINS="$VC" "$P" record $KS --no-cgroup -g --folded -o "$VW/v.prf" -- true
	cp "$W/out" "$VW/v.folded"
	printf '%s\n' "[vdso];main;$VN 5" "[user] 3" >"$VW/v.want"
	same "$VW/v.folded" "$VW/v.want" "prf record -g --folded: main's call into the vDSO, the leaf named $VN"
	run 0 "prfpr --folded FILE, the vDSO" "$B/prfpr" --folded "$VW/v.prf"
	same "$W/out" "$VW/v.folded" "prfpr --folded FILE: the vDSO named as prf record named it"
	run 0 "prfpr FILE, the vDSO" "$B/prfpr" "$VW/v.prf"
	grep -q "^ *5  *62.50  $VN \[vdso\]  *#" "$W/out" && grep -q "^ *5  *[0-9.]*%  \[vdso\]  *named  *\[vdso\]\$" "$W/out"
	ok $? "prfpr FILE: the vDSO's row and program named"
	# the record's version and the build ID it ends with
	command -v python3 >/dev/null 2>&1 && python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
at = len(b) - struct.unpack("<I", b[-4:])[0]
bid = sys.argv[2].encode()
sys.exit(struct.unpack("<HH", b[at + 4:at + 8]) != (11, 8) or
         b[len(b) - 4 - len(bid) - 2:len(b) - 4] != struct.pack("<H", len(bid)) + bid)' "$VW/v.prf" "$BID"
	ok $? "prf record -o: the user objects record of version 11, ending with the vDSO's build ID"
	if command -v python3 >/dev/null 2>&1; then
		# the same file as another kernel's: its build ID's digits
		# turned to 0 (the CRC made again); then one not hex
		vdso_patch() {	# vdso_patch IN OUT CHAR
			python3 -c 'import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
at = len(b) - struct.unpack("<I", b[-4:])[0]
n = len(sys.argv[3])
b[len(b) - 4 - n:len(b) - 4] = sys.argv[4].encode() * n
plen = struct.unpack("<I", b[at + 8:at + 12])[0]
crc = zlib.crc32(bytes(b[at:at + 12]) + bytes(b[at + 16:at + 16 + plen]))
b[at + 12:at + 16] = struct.pack("<I", crc)
open(sys.argv[2], "wb").write(b)' "$1" "$2" "$BID" "$3"
		}
		vdso_patch "$VW/v.prf" "$VW/other.prf" 0
		run 0 "prfpr FILE, another kernel's vDSO" "$B/prfpr" "$VW/other.prf"
		grep -q "^ *5  *62.50  \[vdso\] (another kernel's) \[vdso\] (anot" "$W/out" &&
			grep -q "^ *5  *[0-9.]*%  \[vdso\] (another kernel's) *another kernel's  *\[vdso\]\$" "$W/out" &&
			! grep -q "$VF" "$W/out"
		r=$?
		ok $r "prfpr FILE of another kernel's vDSO (build ID not ours): no function named, said so"
		[ $r -eq 0 ] || diag "$W/out"
		run 0 "prfpr --folded FILE, another kernel's vDSO" "$B/prfpr" --folded "$VW/other.prf"
		grep -qx "\[vdso\] (another kernel's);main;\[vdso\] (another kernel's) 5" "$W/out"
		ok $? "prfpr --folded FILE of another kernel's vDSO: its frame unnamed, said so"
		vdso_patch "$VW/v.prf" "$VW/bad.prf" g
		run 1 "prfpr FILE, a vDSO build ID not hex" "$B/prfpr" "$VW/bad.prf"
		grep -q "bad.prf: corrupt: record [0-9]* at offset [0-9]*: " "$W/err"
		r=$?
		ok $r "prfpr FILE of a vDSO build ID not hex: corrupt, the record named"
		[ $r -eq 0 ] || diag "$W/err"
	else
		skip "prfpr FILE of another kernel's vDSO" "no python3"
	fi
	run 0 "prfpr --html OUT FILE, the vDSO" "$B/prfpr" --html "$VW/v.html" "$VW/v.prf"
	grep -qF "$VN" "$VW/v.html" && grep -qF "[vdso]" "$VW/v.html"
	ok $? "prfpr --html: the vDSO's function in the page"

	# ---- pprof: the vDSO's function in a mapping [vdso] of its build ID ----
	if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
		run 0 "prf record --pprof -- true, the vDSO" $FKV "$P" record $KS --no-cgroup \
			--pprof "$VW/v.pb.gz" -- true
		go tool pprof -raw "$VW/v.pb.gz" >"$VW/v.raw" 2>&1
		# "L: 0xADDR M=MAP NAME ...", the mapping "MAP: START/LIMIT/OFFSET PATH BUILDID"
		set -- $(sed -n "s/^ *[0-9]*: 0x0*$VA M=\([0-9]*\) $VF .*/\1/p" "$VW/v.raw")
		[ $# = 1 ] && grep -q "^ *$1: 0x[0-9a-f/x]* \[vdso\] $BID\( \|\$\)" "$VW/v.raw"
		r=$?
		ok $r "prf record --pprof: $VF at 0x$VA in the mapping [vdso] of its build ID"
		[ $r -eq 0 ] || diag "$VW/v.raw"
	else
		skip "prf record --pprof: the vDSO's mapping" "no go"
	fi

	# ---- prf top: the vDSO named on every refresh ----
	run 0 "prf top -n 1, the vDSO" $FK FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_VDSO=1 \
		FAKEPRF_UOBJ_ENTRIES="[vdso]:$VE:2,$X:$VM:1" "$P" top -f "$F" $KS -n 1 -d 0.05 </dev/null
	grep -q "^ *2  *66.67  $VN \[vdso\]  *#" "$W/out"
	r=$?
	ok $r "prf top: the vDSO's samples named $VN in [vdso]"
	[ $r -eq 0 ] || diag "$W/out"

	# ---- prf cfi --vdso: the unwind table of the own vDSO ----
	run 0 "prf cfi --vdso --csv" "$P" cfi --vdso --csv
	cp "$W/out" "$VW/cfi.csv"
	awk -F, -v a=$((0x$VA)) '
		function hex(s,   i, v) {
			v = 0; sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		NR > 1 && hex($1) <= a && a < hex($2) { hit = 1 }
		END { exit !(NR > 2 && hit) }' "$VW/cfi.csv"
	ok $? "prf cfi --vdso: rows, one covering $VF (0x$VA)"
	run 0 "prf cfi --csv of the dumped image" "$P" cfi --csv "$VW/vdso.so"
	same "$VW/cfi.csv" "$W/out" "prf cfi --vdso: the rows of the image as a file"
	run 0 "prf cfi --vdso --summary" "$P" cfi --vdso --summary
	grep -q "^file:       \[vdso\] (\(x86-64\|arm64\))\$" "$W/out"
	ok $? "prf cfi --vdso --summary: the file is [vdso]"
	run 2 "prf cfi --vdso FILE" "$P" cfi --vdso "$VW/vdso.so"
	grep -q "^prf cfi: --vdso: no FILE" "$W/err"
	ok $? "prf cfi --vdso FILE: a usage error"
fi
unset PRF_DEBUG_DIR
