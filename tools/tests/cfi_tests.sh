# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of prf cfi (issue 38, item 1, first step: src/cfi.c): the
# unwind table of known truth, assembled from .cfi_* directives
# (data/cfi_x86.S, data/cfi_x86_dbg.S, data/cfi_arm64.S when the cross
# compiler is there), row by row; its bound and errors; Debian's own
# /bin/ls and libc against readelf's reading of the same CFI; and the
# .debug_frame of a separate debug file (.gnu_debuglink, build ID;
# data/cfi_x86_ov.S: the file's own .eh_frame wins where both cover).  Sourced by
# run_host_tests.sh, whose ok/run/same/grep_err/skip, $B, $T, $D, $W, $P
# and $VG it uses.

CW=$W/cfi
mkdir -p "$CW"

# cfi_expect FILE TEMPLATE: TEMPLATE's rows with "sym+N" turned into the
# file offset of symbol sym plus N (its virtual address taken back through
# the PT_LOAD that holds it), as prf cfi --csv prints them.
cfi_expect() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print "seg", $2, $3, $5 }' >"$CW/syms"
	nm "$1" | awk '{ print "sym", $3, $1 }' >>"$CW/syms"
	awk -F, -v OFS=, '
	function hex(s,   i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function foff(ref,   p, v, i) {
		p = index(ref, "+")
		v = addr[substr(ref, 1, p - 1)] + substr(ref, p + 1)
		for (i = 0; i < ns; i++)
			if (v >= sv[i] && v < sv[i] + sz[i] + 1)
				return sprintf("%#x", v - sv[i] + so[i])
		return "?"
	}
	BEGIN { ns = 0 }
	FILENAME == ARGV[1] {
		split($0, f, " ")
		if (f[1] == "seg") { so[ns] = hex(f[2]); sv[ns] = hex(f[3]); sz[ns] = hex(f[4]); ns++ }
		else addr[f[2]] = hex(f[3])
		next
	}
	FNR == 1 { print; next }
	{ $1 = foff($1); $2 = foff($2); print }' "$CW/syms" "$2"
}

# plt_bytes FILE: the size in bytes of FILE's .plt section (readelf), 0
# without one.
plt_bytes() {
	set -- "$(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \.plt  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')"
	echo $((0x${1:-0}))
}

# ---- frame pointers kept or not (PRF_UNWIND_FRAMEPTR): one program built both ways ----
for fp in omit no-omit; do
	${CC:-cc} -O2 -f$fp-frame-pointer -o "$CW/fp-$fp" "$T/data/usymprog.c" 2>"$CW/cc.err" ||
		cat "$CW/cc.err" >&2
done
run 0 "prf cfi --summary of a program built -fno-omit-frame-pointer" "$P" cfi --summary "$CW/fp-no-omit"
grep -q "^frame ptr:  kept (the CFA off rbp in \(6[0-9]\|[7-9][0-9]\|100\)\.[0-9]% of the covered, kept from 60%)\$" "$W/out"
ok $? "prf cfi: a program built with frame pointers keeps them ($(sed -n 's/^frame ptr: *//p' "$W/out"))"
run 0 "prf cfi --summary of the program built -fomit-frame-pointer" "$P" cfi --summary "$CW/fp-omit"
grep -q "^frame ptr:  not kept (the CFA off rbp in [0-9]\.[0-9]% of the covered, kept from 60%)\$" "$W/out"
ok $? "prf cfi: the same program built without them does not ($(sed -n 's/^frame ptr: *//p' "$W/out"))"

# ---- x86-64: the known truth ----
X86=$B/cfi_x86.so
cat >"$CW/x86.tmpl" <<'X'
start,end,cfa,ra,fp,source,flags
f_frame+0,f_frame+1,sp+8,cfa-8,same,eh,
f_frame+1,f_frame+4,sp+16,cfa-8,cfa-16,eh,
f_frame+4,f_frame+6,fp+16,cfa-8,cfa-16,eh,
f_frame+6,f_leaf2+3,sp+8,cfa-8,same,eh,
f_big+0,f_big+1,sp+8,cfa-8,same,eh,
f_big+1,f_big+8,sp+16,cfa-8,same,eh,
f_big+8,f_big+16,sp+4112,cfa-8,same,eh,
f_big+16,f_big+17,sp+16,cfa-8,same,eh,
f_big+17,f_big+18,sp+8,cfa-8,same,eh,
f_plt+0,f_plt+1,sp+16,cfa-8,same,eh,
f_plt+1,f_plt+2,sp+24,cfa-8,same,eh,
f_plt+2,f_plt+5,expr,cfa-8,same,eh,cfa-expr
f_signal+0,f_signal+2,sp+8,cfa-8,same,eh,signal
f_start+0,f_start+3,sp+8,undef,same,eh,
f_rareg+0,f_rareg+1,sp+8,cfa-8,same,eh,
f_rareg+1,f_rareg+3,sp+0,other,same,eh,ra-other
f_dbg+0,f_dbg+1,sp+8,cfa-8,same,debug,
f_dbg+1,f_dbg+2,sp+16,cfa-8,cfa-16,debug,
f_dbg+2,f_dbg+3,sp+8,cfa-8,cfa-16,debug,
X
cfi_expect "$X86" "$CW/x86.tmpl" >"$CW/x86.want"
! grep -q '?' "$CW/x86.want"
ok $? "prf cfi: the x86-64 truth's symbols found (file offsets, not addresses)"
run 0 "prf cfi --csv of the x86-64 truth" "$P" cfi --csv "$X86"
same "$W/out" "$CW/x86.want" "prf cfi: every x86-64 row exact (by file offset; push/mov rbp, a big frame, the PLT's expression flagged, signal, outermost, RA in a register, .debug_frame, three functions' identical rows merged, no row for code without CFI)"
run 0 "prf cfi --summary of the x86-64 truth" "$P" cfi --summary "$X86"
cat >"$CW/x86.sum" <<X
file:       $X86 (x86-64)
sources:    .eh_frame read, 43 bytes; .debug_frame read, 3 bytes
debug file: none found
rows:       19 (456 bytes, 24 a row)
covered:    46 of 50 bytes of the code sections (92.0%)
flagged:    3 rows, 7 bytes (15.2% of the covered): cfa-expr 1, ra-other 1, signal 1
frame ptr:  not kept (the CFA off rbp in 4.3% of the covered, kept from 60%)
X
same "$W/out" "$CW/x86.sum" "prf cfi --summary: sources, no debug file (no build ID, no .gnu_debuglink), rows and bytes, coverage (f_bare's 4 bytes not), flagged rows by kind"
run 0 "prf cfi (text)" "$P" cfi "$X86"
head -1 "$W/out" | grep -q '^ *START  *END  CFA  *RA  *FP  *SOURCE FLAGS$' &&
	[ "$(grep -c '^ *0x' "$W/out")" = 19 ] && tail -7 "$W/out" | cmp -s - "$CW/x86.sum"
ok $? "prf cfi: the rows under their heading, then the summary"

# ---- x86-64's lazy PLT: its CFA expression as two rows an entry ----
PLT=$B/cfi_plt.so
cat >"$CW/plt.tmpl" <<'X'
start,end,cfa,ra,fp,source,flags
f_plt0+0,f_plt0+6,sp+16,cfa-8,same,eh,
f_plt0+6,f_plt1+0,sp+24,cfa-8,same,eh,
f_plt1+0,f_plt1+11,sp+8,cfa-8,same,eh,
f_plt1+11,f_plt2+0,sp+16,cfa-8,same,eh,
f_plt2+0,f_plt2+11,sp+8,cfa-8,same,eh,
f_plt2+11,f_plt3+0,sp+16,cfa-8,same,eh,
f_plt3+0,f_plt3+11,sp+8,cfa-8,same,eh,
f_plt3+11,f_odd+0,sp+16,cfa-8,same,eh,
f_odd+0,f_odd+24,expr,cfa-8,same,eh,cfa-expr
X
cfi_expect "$PLT" "$CW/plt.tmpl" >"$CW/plt.want"
run 0 "prf cfi --csv of the PLT truth" "$P" cfi --csv "$PLT"
same "$W/out" "$CW/plt.want" "prf cfi: the PLT's entries as rows (rsp + 8 to the 11th byte, rsp + 16 past the push), PLT0's own rows; the same expression over 24 bytes (not whole entries) flagged"

# Without section headers (e_shoff, e_shnum, e_shstrndx zeroed): the
# executable segment walked whole, .eh_frame found through PT_GNU_EH_FRAME,
# no .debug_frame (a section): f_dbg's 3 bytes uncovered, its 3 rows gone.
cp "$X86" "$CW/nosh.so"
printf '\000\000\000\000\000\000\000\000' | dd of="$CW/nosh.so" bs=1 seek=40 conv=notrunc 2>/dev/null
printf '\000\000\000\000' | dd of="$CW/nosh.so" bs=1 seek=60 conv=notrunc 2>/dev/null
run 0 "prf cfi of the truth without section headers" "$P" cfi --summary "$CW/nosh.so"
grep -qx "covered:    43 of 50 bytes of the executable segments (86.0%)" "$W/out" &&
	grep -qx "rows:       16 (384 bytes, 24 a row)" "$W/out" &&
	grep -qx "sources:    .eh_frame read, 43 bytes; .debug_frame absent, 0 bytes" "$W/out"
ok $? "prf cfi without section headers: the segment whole, .eh_frame by its program header"
# The code sections alone are walked: Debian's arm64 libc keeps its
# read-only data in its executable segment (1.6 MB of it, 1.1 MB code).
AL=/usr/aarch64-linux-gnu/lib/libc.so.6
if [ -r "$AL" ]; then
	run 0 "prf cfi --summary of Debian's arm64 libc" "$P" cfi --summary "$AL"
	grep -q "^covered:    [0-9]* of [0-9]* bytes of the code sections (9[5-9]\.[0-9]%)\$" "$W/out"
	ok $? "prf cfi of Debian's arm64 libc: 95 % or more of its code sections covered"
	[ $? -eq 0 ] || diag "$W/out"
	# its PLT (PLT0 and an entry for each of its calls out) has no CFI:
	# every byte of it in rows read from its instructions
	pltsz=$(plt_bytes "$AL")
	run 0 "prf cfi --csv of Debian's arm64 libc" "$P" cfi --csv "$AL"
	pltrows=0
	for r in $(awk -F, '$6 == "plt" { print $1 "," $2 }' "$W/out"); do
		pltrows=$((pltrows + ${r#*,} - ${r%,*}))
	done
	[ "$pltsz" -gt 32 ] && [ "$pltrows" = "$pltsz" ]
	ok $? "prf cfi of Debian's arm64 libc: its whole PLT in rows read from its code ($pltrows of $pltsz bytes)"
else
	skip "prf cfi of Debian's arm64 libc" "no $AL (libc6-arm64-cross)"
	skip "prf cfi of Debian's arm64 libc's PLT" "no $AL (libc6-arm64-cross)"
fi

# ---- the bound, errors ----
run 0 "prf cfi --max-rows 19 (exactly the rows)" "$P" cfi --csv --max-rows 19 "$X86"
run 1 "prf cfi --max-rows 18: refused" "$P" cfi --csv --max-rows 18 "$X86"
[ ! -s "$W/out" ] && grep -qx "prf cfi: $X86: more than 18 rows (the bound)" "$W/err"
ok $? "prf cfi --max-rows 18: the bound said, nothing printed"
run 2 "prf cfi --max-rows 0: usage" "$P" cfi --max-rows 0 "$X86"
run 2 "prf cfi --csv --summary: usage" "$P" cfi --csv --summary "$X86"
run 2 "prf cfi without a file: usage" "$P" cfi
grep_err "want one FILE" "prf cfi without a file: said"
run 1 "prf cfi of a text file" "$P" cfi "$T/cfi_tests.sh"
grep -qx "prf cfi: $T/cfi_tests.sh: not an ELF file" "$W/err" && [ ! -s "$W/out" ]
ok $? "prf cfi of a text file: not an ELF file, said"
run 1 "prf cfi of a missing file" "$P" cfi "$CW/none"
grep -qx "prf cfi: $CW/none: No such file or directory" "$W/err"
ok $? "prf cfi of a missing file: strerror said"
objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr \
	--remove-section .debug_frame "$X86" "$CW/nocfi.so" 2>/dev/null
run 1 "prf cfi of a file without CFI" "$P" cfi "$CW/nocfi.so"
grep -qx "prf cfi: $CW/nocfi.so: no call frame information (.eh_frame, .debug_frame)" "$W/err"
ok $? "prf cfi of a file without CFI: said"
if echo 'int f(void) { return 0; }' | ${CC:-cc} -m32 -c -x c -o "$CW/i386.o" - 2>/dev/null; then
	run 1 "prf cfi of an i386 object" "$P" cfi "$CW/i386.o"
	grep -qx "prf cfi: $CW/i386.o: machine 3 not supported (x86-64, arm64)" "$W/err"
	ok $? "prf cfi of an i386 object: the machine said"
else
	skip "prf cfi of an i386 object" "no ${CC:-cc} -m32"
fi

${CC:-cc} -c -o "$CW/rel.o" "$T/data/cfi_x86.S"
run 1 "prf cfi of an object file (no segments)" "$P" cfi "$CW/rel.o"
grep -qx "prf cfi: $CW/rel.o: no executable PT_LOAD segment" "$W/err"
ok $? "prf cfi of an object file: no executable segment, said"
# The executable PT_LOAD's p_filesz (at e_phoff + 56 * index + 32) made
# 16 TiB: refused, not walked.
phx=$(readelf -lW "$X86" | awk '/^Program Headers/ { p = 1; next }
	p && $1 == "LOAD" && / R E / { print i; exit } p && NF && $1 != "Type" { i++ }')
cp "$X86" "$CW/bigseg.so"
printf '\000\000\000\000\000\020\000\000' |
	dd of="$CW/bigseg.so" bs=1 seek=$((64 + 56 * phx + 32)) conv=notrunc 2>/dev/null
run 1 "prf cfi of a segment larger than its file" timeout 60 "$P" cfi "$CW/bigseg.so"
grep -qx "prf cfi: $CW/bigseg.so: PT_LOAD $phx lies past the end of the file" "$W/err"
ok $? "prf cfi of a segment larger than its file: refused, said"

# ---- corrupt and truncated CFI: refused or read, never a crash ----
# 200 copies of the truth, each with 4 bytes of its .eh_frame_hdr,
# .eh_frame and .debug_frame overwritten (a fixed series: awk's srand of
# the copy's number), and the file cut at 10 places: each is refused
# (exit 1, said) or read into rows that keep the table's rules (sorted,
# not overlapping, none empty); one copy in 20 under valgrind, clean.
# CSV rows: sorted, not overlapping, none empty
cfi_rows_sane() {
	awk -F, 'function hex(s,   i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	NR > 1 { s = hex($1); e = hex($2); if (e <= s || s < last) bad = 1; last = e }
	END { exit bad }' "$1"
}
# cfi_fuzz_one FILE WHAT: prf cfi --csv of FILE refused (said) or sane;
# cfi_bad counts what was not
cfi_fuzz_one() {
	"$P" cfi --csv "$1" >"$CW/fz.out" 2>"$CW/fz.err"
	st=$?
	case $st in
	0) cfi_rows_sane "$CW/fz.out" || st=9 ;;
	1) [ -s "$CW/fz.err" ] || st=9 ;;
	esac
	[ $st -le 1 ] || { cfi_bad=$((cfi_bad + 1)); echo "# $2: exit $st (9: rows broken or nothing said)"; }
}
set -- $(readelf -SW "$X86" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
	awk '$1 ~ /^\.(eh_frame|eh_frame_hdr|debug_frame)$/ { print $4, $5 }')
cfi_bad=0
if [ $# = 6 ]; then
	for seed in $(seq 1 200); do
		cp "$X86" "$CW/fuzz.so"
		awk -v seed="$seed" -v secs="$*" '
		function hex(x,   i, v) {
			v = 0
			for (i = 1; i <= length(x); i++)
				v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return v
		}
		BEGIN {
			srand(seed); n = split(secs, s, " ")
			for (k = 0; k < 4; k++) {
				i = 2 * int(rand() * n / 2) + 1
				printf "%d %d\n", hex(s[i]) + int(rand() * hex(s[i + 1])), int(rand() * 256)
			}
		}' | while read -r off val; do
			# shellcheck disable=SC2059
			printf "$(printf '\\%03o' "$val")" |
				dd of="$CW/fuzz.so" bs=1 seek="$off" conv=notrunc 2>/dev/null
		done
		cfi_fuzz_one "$CW/fuzz.so" "seed $seed"
		if [ -n "${VG:-}" ] && [ $((seed % 20)) = 0 ]; then
			$VG "$P" cfi --summary "$CW/fuzz.so" >"$CW/fz.vg" 2>&1
			[ $? -le 1 ] || { cfi_bad=$((cfi_bad + 1)); tail -20 "$CW/fz.vg" | diag; }
		fi
	done
	size=$(stat -c %s "$X86")
	for cut in 1 2 3 4 5 6 7 8 9 10; do
		head -c $((size * cut / 11)) "$X86" >"$CW/cut.so"
		cfi_fuzz_one "$CW/cut.so" "cut at $cut/11"
	done
	[ "$cfi_bad" = 0 ]
	ok $? "prf cfi of 200 corrupt and 10 truncated copies: each refused (said) or read into sane rows, never a crash${VG:+; 10 of them clean under valgrind}"
else
	ok 1 "prf cfi fuzz: the truth's three CFI sections found ($*)"
fi

# ---- arm64: the known truth, read on this host ----
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
	aarch64-linux-gnu-gcc -nostdlib -shared -Wl,--build-id=none \
		-o "$CW/cfi_arm64.so" "$T/data/cfi_arm64.S" 2>"$CW/as.err"; then
	cat >"$CW/arm64.tmpl" <<'X'
start,end,cfa,ra,fp,source,flags
f_frame+0,f_frame+4,sp+0,same,same,eh,
f_frame+4,f_frame+8,sp+32,cfa-24,cfa-32,eh,
f_frame+8,f_frame+16,fp+32,cfa-24,cfa-32,eh,
f_frame+16,f_leaf+8,sp+0,same,same,eh,
f_start+0,f_start+8,sp+0,undef,same,eh,
f_other+0,f_other+8,other,same,same,eh,cfa-other
X
	cfi_expect "$CW/cfi_arm64.so" "$CW/arm64.tmpl" >"$CW/arm64.want"
	run 0 "prf cfi --csv of the arm64 truth" "$P" cfi --csv "$CW/cfi_arm64.so"
	same "$W/out" "$CW/arm64.want" "prf cfi: every arm64 row exact (frame record, a leaf's RA in x30, outermost, merged, a CFA off x9 flagged)"
	run 0 "prf cfi --summary of the arm64 truth" "$P" cfi --summary "$CW/cfi_arm64.so"
	grep -qx "file:       $CW/cfi_arm64.so (arm64)" "$W/out" &&
		grep -qx "rows:       6 (144 bytes, 24 a row)" "$W/out" &&
		grep -qx "flagged:    1 rows, 8 bytes (18.2% of the covered): cfa-other 1" "$W/out" &&
		grep -qx "frame ptr:  not judged (arm64's CFI reads the same with and without)" "$W/out"
	ok $? "prf cfi --summary: an arm64 file's machine, rows, its flagged row (the first kind after a colon), frame pointers not judged"
else
	skip "prf cfi of the arm64 truth" "no aarch64-linux-gnu-gcc"
fi

# ---- arm64's PLT: no CFI, rows read from its instructions ----
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
	aarch64-linux-gnu-gcc -nostdlib -shared -Wl,--build-id=none \
		-o "$CW/cfi_arm64_plt.so" "$T/data/cfi_arm64_plt.S" 2>"$CW/as.err" &&
	aarch64-linux-gnu-gcc -DODD -nostdlib -shared -Wl,--build-id=none \
		-o "$CW/cfi_arm64_odd.so" "$T/data/cfi_arm64_plt.S" 2>"$CW/as.err"; then
	cat >"$CW/arm64plt.tmpl" <<'X'
start,end,cfa,ra,fp,source,flags
f_plt0+0,f_plt0+4,sp+0,same,same,plt,
f_plt0+4,f_plt0+20,sp+16,cfa-8,same,plt,
f_plt0+20,f_pltend+0,sp+0,same,same,plt,
f_text+0,f_text+8,sp+0,same,same,eh,
X
	cfi_expect "$CW/cfi_arm64_plt.so" "$CW/arm64plt.tmpl" >"$CW/arm64plt.want"
	run 0 "prf cfi --csv of the arm64 PLT truth" "$P" cfi --csv "$CW/cfi_arm64_plt.so"
	same "$W/out" "$CW/arm64plt.want" "prf cfi: arm64's PLT as rows (PLT0: sp + 0, then sp + 16 with the RA at cfa - 8 from its push to its br; the entries, plain and hardened, sp + 0 with the RA in x30)"
	run 0 "prf cfi --summary of the arm64 PLT truth" "$P" cfi --summary "$CW/cfi_arm64_plt.so"
	grep -qx "sources:    .eh_frame read, 8 bytes; .debug_frame absent, 0 bytes; the PLT read from its instructions, 80 bytes" "$W/out" &&
		grep -qx "covered:    88 of 88 bytes of the code sections (100.0%)" "$W/out"
	ok $? "prf cfi --summary: the PLT's bytes counted as its own source"
	head -1 "$CW/arm64plt.tmpl" >"$CW/arm64odd.tmpl"
	tail -1 "$CW/arm64plt.tmpl" >>"$CW/arm64odd.tmpl"
	cfi_expect "$CW/cfi_arm64_odd.so" "$CW/arm64odd.tmpl" >"$CW/arm64odd.want"
	run 0 "prf cfi --csv of a PLT that writes x30" "$P" cfi --csv "$CW/cfi_arm64_odd.so"
	same "$W/out" "$CW/arm64odd.want" "prf cfi: a PLT with an instruction of no known PLT form (mov x30, x0) gets no rows at all"
	# A static program's PLT: its C library's IFUNCs (strlen...), one
	# IRELATIVE entry each, no PLT0, no CFI.  Rows for all of it, and each
	# entry named by its relocation's addend, as readelf lists them.
	if aarch64-linux-gnu-gcc -static -O2 -o "$CW/cfiprog_static" "$T/cfiprog.c" 2>"$CW/cc.err"; then
		run 0 "prf cfi --summary of a static arm64 program" "$P" cfi --summary "$CW/cfiprog_static"
		pltsz=$(plt_bytes "$CW/cfiprog_static")
		[ "$pltsz" -gt 0 ] &&
			grep -q "; the PLT read from its instructions, $pltsz bytes\$" "$W/out"
		ok $? "prf cfi: a static arm64 program's PLT ($pltsz bytes) all in rows read from its code"
		"$B/unit_test" --plt-names "$CW/cfiprog_static" >"$CW/plt.names" 2>&1
		readelf -rW "$CW/cfiprog_static" | awk '$3 == "R_AARCH64_IRELATIVE" { print "*ABS*+0x" $4 "@plt" }' |
			sed 's/+0x0*/+0x/' | sort >"$CW/plt.irel"
		awk '{ print $3 }' "$CW/plt.names" | sort >"$CW/plt.mine"
		# the entries one after the other, 16 bytes each
		r=0 i=0 first=
		while read -r a sz name; do
			[ -n "$first" ] || first=$a
			[ "$((a))" = "$((first + 16 * i))" ] && [ "$sz" = 16 ] || r=1
			i=$((i + 1))
		done <"$CW/plt.names"
		[ -s "$CW/plt.irel" ] && cmp -s "$CW/plt.irel" "$CW/plt.mine" || r=1
		ok $r "PLT names: a static arm64 program's $(wc -l <"$CW/plt.irel") IFUNC entries, each named *ABS*+ADDEND@plt by its relocation"
		[ $r -eq 0 ] || { cat "$CW/plt.names"; cat "$CW/plt.irel"; } | diag
	else
		skip "prf cfi of a static arm64 program" "no static arm64 C library"
		skip "PLT names of a static arm64 program" "no static arm64 C library"
	fi
else
	skip "prf cfi of arm64's PLT truth" "no aarch64-linux-gnu-gcc"
	skip "prf cfi of a static arm64 program" "no aarch64-linux-gnu-gcc"
	skip "PLT names of a static arm64 program" "no aarch64-linux-gnu-gcc"
	skip "prf cfi --summary of arm64's PLT truth" "no aarch64-linux-gnu-gcc"
	skip "prf cfi of an odd arm64 PLT" "no aarch64-linux-gnu-gcc"
fi

# ---- arm64 leaf functions of a file with no CFI (the vDSO's case) ----
# Rows read from the instructions of the functions that keep their
# entry's frame throughout and return; none for the six that break one
# condition each (tests/data/cfi_arm64_leaf.S says which); a signal row for
# each of its two signal return trampolines.
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 &&
	aarch64-linux-gnu-gcc -nostdlib -shared -Wl,--build-id=none \
		-o "$CW/cfi_arm64_leaf.so" "$T/data/cfi_arm64_leaf.S" 2>"$CW/as.err"; then
	cat >"$CW/arm64leaf.tmpl" <<'X'
start,end,cfa,ra,fp,source,flags
f_plain+0,f_bl+0,sp+0,same,same,leaf,
f_pac+0,f_push+0,sp+0,same,same,leaf,
f_svc+0,f_subsp+0,sp+0,same,same,leaf,
f_noret+0,f_noret+8,sp+0,same,same,leaf,signal
f_sigpad+0,f_sigret+8,sp+0,same,same,leaf,signal
X
	cfi_expect "$CW/cfi_arm64_leaf.so" "$CW/arm64leaf.tmpl" >"$CW/arm64leaf.want"
	run 0 "prf cfi --csv of the arm64 leaf truth" "$P" cfi --csv "$CW/cfi_arm64_leaf.so"
	same "$W/out" "$CW/arm64leaf.want" "prf cfi: a file of no CFI gets rows for its arm64 leaf functions alone (sp + 0, the RA in x30: a plain one, one with paciasp/autiasp, one making a system call), none for one that calls, pushes a frame record, moves SP, writes x29, loads x30 or branches out; its signal return trampolines (mov x8, #139; svc #0) a signal row each, with the nop before one"
	run 0 "prf cfi --summary of the arm64 leaf truth" "$P" cfi --summary "$CW/cfi_arm64_leaf.so"
	grep -qx "sources:    .eh_frame absent, 0 bytes; .debug_frame absent, 0 bytes; leaf functions read from their instructions, 88 bytes" "$W/out"
	ok $? "prf cfi --summary: the leaf functions' bytes counted as their own source"
	# a sized symbol of no type in code (the vDSO's __kernel_rt_sigreturn)
	# names its code: the file mapped at 0x400000 from offset 0
	dev=$(stat -c %d "$CW/cfi_arm64_leaf.so")
	printf '400000-401000 r-xp 00000000 %02x:%02x %s %s\n' $((dev >> 8)) $((dev & 255)) \
		"$(stat -c %i "$CW/cfi_arm64_leaf.so")" "$CW/cfi_arm64_leaf.so" >"$CW/leaf.maps"
	sa=$(nm "$CW/cfi_arm64_leaf.so" | awk '$3 == "f_sigret" { print $1 }')
	"$B/unit_test" --usym-names "$CW/leaf.maps:$(printf %x $((0x400000 + 0x$sa)))" >"$W/out" 2>&1
	[ "$(cat "$W/out")" = f_sigret ]
	ok $? "a sized global symbol of no type in a code section names its code (f_sigret: $(cat "$W/out"))"
else
	skip "prf cfi of the arm64 leaf truth" "no aarch64-linux-gnu-gcc"
	skip "prf cfi --summary of the arm64 leaf truth" "no aarch64-linux-gnu-gcc"
	skip "a sized global symbol of no type names its code" "no aarch64-linux-gnu-gcc"
fi

# ---- Debian's own files against readelf's reading of the same CFI ----
# Every 37th row of readelf --debug-dump=frames-interp's FDE tables: the
# row of prf cfi holding its address (as a file offset) has the same CFA,
# RA and FP rules.  readelf's u is a register not saved: FP unchanged; RA
# undefined on x86-64 (its CIEs all save it, but _start's), on arm64
# still in x30 (or undefined).
# cfi_crosscheck FILE SP FP [EVERY [CFI-FILE]]: SP and FP as readelf names
# them; every EVERYth row (37), of CFI-FILE's CFI (FILE's: its debug file).
cfi_crosscheck() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print "seg", $2, $3, $5 }' >"$CW/segs"
	"$P" cfi --csv "$1" >"$CW/real.csv" || return 1
	# (readelf's status: 1 after a warning of its own on Debian's libc)
	readelf --debug-dump=frames-interp "${5:-$1}" >"$CW/real.fi" 2>/dev/null
	awk -F, -v sp="$2" -v fp="$3" -v every="${4:-37}" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function rule(s, what) {
		if (s == "" || s == "u" || s == "s")
			return what == "ra" && s == "u" ? (sp == "sp" ? "same|undef" : "undef") : "same"
		if (s ~ /^c[-+][0-9]+$/)
			return "cfa" substr(s, 2)
		return "other"
	}
	function is(got, want) {
		return index("|" want "|", "|" got "|") > 0
	}
	BEGIN { ns = 0; nr = 0; n = 0; bad = 0 }
	FILENAME == ARGV[1] {
		split($0, f, " ")
		so[ns] = hex(f[2]); sv[ns] = hex(f[3]); sz[ns] = hex(f[4]); ns++
		next
	}
	FILENAME == ARGV[2] {
		if (FNR > 1) { rs[nr] = hex($1); re[nr] = hex($2); rc[nr] = $3; rr[nr] = $4; rf[nr] = $5; nr++ }
		next
	}
	{ FS = " "; $0 = $0 }
	/ FDE cie=/ { fde = 1; next }
	/ CIE / { fde = 0; next }
	$1 == "LOC" { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
	fde && length($1) == 16 && $1 ~ /^[0-9a-f]+$/ && ("CFA" in col) {
		if (++seen % every)
			next
		a = hex($1); off = -1
		for (i = 0; i < ns; i++)
			if (a >= sv[i] && a < sv[i] + sz[i])
				off = a - sv[i] + so[i]
		cfa = $(col["CFA"])
		if (index(cfa, sp) == 1 && substr(cfa, length(sp) + 1) ~ /^[-+]/)
			cfa = "sp" substr(cfa, length(sp) + 1)
		else if (index(cfa, fp) == 1 && substr(cfa, length(fp) + 1) ~ /^[-+]/)
			cfa = "fp" substr(cfa, length(fp) + 1)
		else if (cfa == "exp") cfa = "expr"
		else cfa = "other"
		ra = rule(("ra" in col) ? $(col["ra"]) : "", "ra")
		fpr = rule((fp in col) ? $(col[fp]) : "", "fp")
		for (i = 0; i < nr; i++)
			if (off >= rs[i] && off < re[i])
				break
		n++
		# readelf shows a row of the PLT expression where it begins:
		# at the first byte of an entry, which prf says as rsp + 8
		if (i == nr || !(rc[i] == cfa || (cfa == "expr" && rc[i] == "sp+8")) ||
		    !is(rr[i], ra) || rf[i] != fpr) {
			bad++
			printf "%s: readelf %s,%s,%s; prf %s\n", $1, cfa, ra, fpr, \
				i == nr ? "no row" : rc[i] "," rr[i] "," rf[i]
		}
	}
	END { printf "checked %d bad %d\n", n, bad }' "$CW/segs" "$CW/real.csv" "$CW/real.fi"
}
# (Debian's arm64 libc: libc6-arm64-cross, for the cross compiler)
for f in /bin/ls /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/aarch64-linux-gnu/lib/libc.so.6; do
	case $(readelf -h "$f" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
	*X86-64*) regs="rsp rbp" ;;
	AArch64) regs="sp x29" ;;
	*) skip "prf cfi against readelf: $f" "no such file"; continue ;;
	esac
	# shellcheck disable=SC2086
	cfi_crosscheck "$f" $regs >"$CW/cross.out" 2>&1
	tail -1 "$CW/cross.out" | awk '$1 == "checked" && $2 >= 20 && $4 == 0 { ok = 1 } END { exit !ok }'
	ok $? "prf cfi of $f: $(tail -1 "$CW/cross.out") sampled rows against readelf --debug-dump=frames-interp"
	[ $? -eq 0 ] || head -20 "$CW/cross.out" | diag
done

# ---- the separate debug file's .debug_frame ----
# The truth linked with a build ID, its debug file split off
# (objcopy --only-keep-debug) and its own .debug_frame stripped
# (--strip-debug): f_dbg's rows come from the debug file (source dfile),
# found through .gnu_debuglink (beside it, its CRC-32 checked) or by build
# ID under the debug directory ($PRF_DEBUG_DIR: an empty one unless the
# test puts the file there, so the host's /usr/lib/debug is not read).
mkdir -p "$CW/dl" "$CW/none" "$CW/bid" "$CW/nolink" "$CW/bad"
cfi_truth() {	# cfi_truth OUT LDFLAGS...: the x86-64 truth linked
	o=$1
	shift
	${CC:-cc} -nostdlib -shared "$@" -o "$o" "$T/data/cfi_x86.S" "$T/data/cfi_x86_dbg.S"
}
cfi_truth "$CW/t.full" -Wl,--build-id=sha1 -Wl,--section-start=.text=0x5000
objcopy --only-keep-debug "$CW/t.full" "$CW/dl/t.so.debug" 2>/dev/null
objcopy --strip-debug --add-gnu-debuglink="$CW/dl/t.so.debug" "$CW/t.full" "$CW/dl/t.so" 2>/dev/null
objcopy --strip-debug "$CW/t.full" "$CW/nolink/t.so" 2>/dev/null
sed 's/,debug,/,dfile,/' "$CW/x86.tmpl" >"$CW/dl.tmpl"
cfi_expect "$CW/dl/t.so" "$CW/dl.tmpl" >"$CW/dl.want"
run 0 "prf cfi --csv of the truth, .debug_frame in its .gnu_debuglink file" \
	env PRF_DEBUG_DIR="$CW/none" "$P" cfi --csv "$CW/dl/t.so"
same "$W/out" "$CW/dl.want" "prf cfi: f_dbg's rows from the debug file .gnu_debuglink names (source dfile), every other row from .eh_frame as before"
[ ! -s "$W/err" ]
ok $? "prf cfi: a debug file used, nothing said on stderr"
run 0 "prf cfi --summary, the .gnu_debuglink file" env PRF_DEBUG_DIR="$CW/none" "$P" cfi --summary "$CW/dl/t.so"
grep -qx "sources:    .eh_frame read, 43 bytes; .debug_frame absent, 0 bytes" "$W/out" &&
	grep -qx "debug file: $CW/dl/t.so.debug (.gnu_debuglink), .debug_frame read, 3 bytes" "$W/out" &&
	grep -qx "covered:    46 of 50 bytes of the code sections (92.0%)" "$W/out"
ok $? "prf cfi --summary: the debug file's path, how it was found, the bytes it covers"
[ $? -eq 0 ] || diag "$W/out"

# A debug file of another CRC-32 where the link points (a byte appended):
# refused, f_dbg without rows, said.
cp "$CW/dl/t.so" "$CW/bad/t.so"
cp "$CW/dl/t.so.debug" "$CW/bad/t.so.debug"
printf x >>"$CW/bad/t.so.debug"
grep -v ',dfile,' "$CW/dl.want" >"$CW/bad.want"
run 0 "prf cfi --csv, a .gnu_debuglink file of another CRC-32" \
	env PRF_DEBUG_DIR="$CW/none" "$P" cfi --csv "$CW/bad/t.so"
same "$W/out" "$CW/bad.want" "prf cfi: the debug file of a wrong CRC-32 not read (f_dbg has no rows)"
grep -Eqx "prf cfi: $CW/bad/t.so: no debug file \(refused $CW/bad/t.so.debug: CRC-32 [0-9a-f]{8}, not the .gnu_debuglink's [0-9a-f]{8}\)" "$W/err"
ok $? "prf cfi --csv: the refused debug file and its CRC-32 said on stderr"
run 0 "prf cfi --summary, a .gnu_debuglink file of another CRC-32" \
	env PRF_DEBUG_DIR="$CW/none" "$P" cfi --summary "$CW/bad/t.so"
grep -Eqx "debug file: none found; refused $CW/bad/t.so.debug: CRC-32 [0-9a-f]{8}, not the .gnu_debuglink's [0-9a-f]{8}" "$W/out" &&
	grep -qx "covered:    43 of 50 bytes of the code sections (86.0%)" "$W/out"
ok $? "prf cfi --summary: the refused debug file said, f_dbg's 3 bytes uncovered"

# By build ID under the debug directory (no .gnu_debuglink).
bid=$(readelf -nW "$CW/t.full" | sed -n 's/.*Build ID: *//p')
mkdir -p "$CW/bid/.build-id/${bid%"${bid#??}"}"
bidf=$CW/bid/.build-id/${bid%"${bid#??}"}/${bid#??}.debug
cp "$CW/dl/t.so.debug" "$bidf"
run 0 "prf cfi --csv of the truth, .debug_frame in its build ID's debug file" \
	env PRF_DEBUG_DIR="$CW/bid" "$P" cfi --csv "$CW/nolink/t.so"
same "$W/out" "$CW/dl.want" "prf cfi: f_dbg's rows from the debug file of its build ID under \$PRF_DEBUG_DIR"
run 0 "prf cfi --summary, the build ID's debug file" env PRF_DEBUG_DIR="$CW/bid" "$P" cfi --summary "$CW/nolink/t.so"
grep -qx "debug file: $bidf (build ID), .debug_frame read, 3 bytes" "$W/out"
ok $? "prf cfi --summary: the build ID's debug file named"
# The debug file of the same build ID with .text elsewhere: not read.
cfi_truth "$CW/o.full" -Wl,--build-id=0x0123456789abcdef -Wl,--section-start=.text=0x6000
objcopy --only-keep-debug "$CW/o.full" "$CW/o.debug" 2>/dev/null
cfi_truth "$CW/o2.full" -Wl,--build-id=0x0123456789abcdef -Wl,--section-start=.text=0x5000
objcopy --strip-debug "$CW/o2.full" "$CW/nolink/o.so" 2>/dev/null
mkdir -p "$CW/bid/.build-id/01"
cp "$CW/o.debug" "$CW/bid/.build-id/01/23456789abcdef.debug"
run 0 "prf cfi --summary, a debug file whose .text is elsewhere" \
	env PRF_DEBUG_DIR="$CW/bid" "$P" cfi --summary "$CW/nolink/o.so"
grep -qx "debug file: $CW/bid/.build-id/01/23456789abcdef.debug (build ID) not used: its .text at 0x6000 (0x32 bytes), the file's at 0x5000 (0x32 bytes)" "$W/out" &&
	grep -qx "covered:    43 of 50 bytes of the code sections (86.0%)" "$W/out"
ok $? "prf cfi: a debug file that puts the code elsewhere not read, said"
[ $? -eq 0 ] || diag "$W/out"

# Both cover f_ov (data/cfi_x86_ov.S): its own .eh_frame's rows, and the
# debug file's FDE, which starts two bytes before it, cut where it begins.
${CC:-cc} -nostdlib -shared -DDFILE -Wl,--build-id=none -Wl,--section-start=.text=0x5000 \
	-o "$CW/ov.full" "$T/data/cfi_x86_ov.S"
objcopy --only-keep-debug "$CW/ov.full" "$CW/dl/ov.debug" 2>/dev/null
${CC:-cc} -nostdlib -shared -Wl,--build-id=none -Wl,--section-start=.text=0x5000 \
	-o "$CW/ov.tmp" "$T/data/cfi_x86_ov.S"
objcopy --add-gnu-debuglink="$CW/dl/ov.debug" "$CW/ov.tmp" "$CW/dl/ov.so" 2>/dev/null
cat >"$CW/ov.tmpl" <<'X'
start,end,cfa,ra,fp,source,flags
g_pad+0,g_pad+2,sp+8,cfa-8,same,dfile,
f_ov+0,f_ov+1,sp+8,cfa-8,same,eh,
f_ov+1,f_ov+2,sp+16,cfa-8,same,eh,
f_ov+2,f_ov+3,sp+8,cfa-8,same,eh,
X
cfi_expect "$CW/dl/ov.so" "$CW/ov.tmpl" >"$CW/ov.want"
run 0 "prf cfi --csv, a function both .eh_frame and the debug file cover" \
	env PRF_DEBUG_DIR="$CW/none" "$P" cfi --csv "$CW/dl/ov.so"
same "$W/out" "$CW/ov.want" "prf cfi: the file's own .eh_frame wins where the debug file's .debug_frame covers too (its row cut at f_ov)"

# No CFI of its own (.eh_frame, its header and .debug_frame removed): the
# debug file's alone; with its CRC-32 wrong, an error that says so.
objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr --strip-debug \
	--add-gnu-debuglink="$CW/dl/t.so.debug" "$CW/t.full" "$CW/dl/bare.so" 2>/dev/null
{ head -1 "$CW/dl.want"; grep ',dfile,' "$CW/dl.want"; } >"$CW/bare.want"
run 0 "prf cfi --csv of a file whose CFI is its debug file's alone" \
	env PRF_DEBUG_DIR="$CW/none" "$P" cfi --csv "$CW/dl/bare.so"
same "$W/out" "$CW/bare.want" "prf cfi: a file without CFI of its own, f_dbg's rows from its debug file"
objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr --strip-debug \
	--add-gnu-debuglink="$CW/bad/t.so.debug" "$CW/t.full" "$CW/bad/bare.so" 2>/dev/null
printf y >>"$CW/bad/t.so.debug"
run 1 "prf cfi of a file without CFI, its debug file of another CRC-32" \
	env PRF_DEBUG_DIR="$CW/none" "$P" cfi --csv "$CW/bad/bare.so"
grep -Eqx "prf cfi: $CW/bad/bare.so: no call frame information \(.eh_frame, .debug_frame\); no debug file \(refused $CW/bad/t.so.debug: CRC-32 [0-9a-f]{8}, not the .gnu_debuglink's [0-9a-f]{8}\)" "$W/err" &&
	[ ! -s "$W/out" ]
ok $? "prf cfi: no CFI and the debug file refused: an error that names it"
[ $? -eq 0 ] || diag "$W/err"

# A file its own CFI covers whole: no debug file looked for.
${CC:-cc} -nostdlib -shared -Wl,--build-id=none -o "$CW/dbgonly.so" "$T/data/cfi_x86_dbg.S"
run 0 "prf cfi --summary of a file its own CFI covers" "$P" cfi --summary "$CW/dbgonly.so"
grep -qx "debug file: not looked for (the file's own CFI covers its code)" "$W/out" &&
	grep -qx "covered:    3 of 3 bytes of the code sections (100.0%)" "$W/out"
ok $? "prf cfi: code covered whole, no debug file looked for (said)"

# A C program built without .eh_frame of its own (-fno-asynchronous-unwind-
# tables -g: its functions' CFI in .debug_frame, crt1's _start in
# .eh_frame), stripped whole, its debug file linked: every row readelf
# reads from the debug file's .debug_frame is prf's, with .eh_frame's.
${CC:-cc} -O1 -g -fno-asynchronous-unwind-tables -Wl,--build-id=sha1 -o "$CW/p.full" \
	"$T/data/usymprog.c"
objcopy --only-keep-debug "$CW/p.full" "$CW/dl/p.debug" 2>/dev/null
objcopy --strip-all --add-gnu-debuglink="$CW/dl/p.debug" "$CW/p.full" "$CW/dl/p" 2>/dev/null
PRF_DEBUG_DIR=$CW/none cfi_crosscheck "$CW/dl/p" rsp rbp 1 "$CW/dl/p.debug" >"$CW/cross.out" 2>&1
tail -1 "$CW/cross.out" | awk '$1 == "checked" && $2 >= 15 && $4 == 0 { ok = 1 } END { exit !ok }' &&
	grep -q ',dfile,' "$CW/real.csv" && grep -q ',eh,' "$CW/real.csv"
ok $? "prf cfi of a stripped -fno-asynchronous-unwind-tables program: $(tail -1 "$CW/cross.out") rows of its debug file's .debug_frame (readelf) against prf's"
[ $? -eq 0 ] || head -20 "$CW/cross.out" | diag

if [ -n "${VG:-}" ]; then
	$VG "$P" cfi --summary /usr/lib/x86_64-linux-gnu/libc.so.6 >"$CW/vg.out" 2>&1 &&
		$VG "$P" cfi --csv "$X86" >>"$CW/vg.out" 2>&1
	ok $? "valgrind: prf cfi of libc and of the truth clean, no leak"
	[ $? -eq 0 ] || tail -30 "$CW/vg.out" | diag
	$VG "$P" cfi --max-rows 3 "$X86" >"$CW/vg.out" 2>&1
	[ $? -eq 1 ]
	ok $? "valgrind: prf cfi past its bound clean, no leak"
	env PRF_DEBUG_DIR="$CW/none" $VG "$P" cfi "$CW/dl/p" >"$CW/vg.out" 2>&1 &&
		env PRF_DEBUG_DIR="$CW/bid" $VG "$P" cfi --csv "$CW/nolink/t.so" >>"$CW/vg.out" 2>&1 &&
		env PRF_DEBUG_DIR="$CW/bid" $VG "$P" cfi --summary "$CW/nolink/o.so" >>"$CW/vg.out" 2>&1 &&
		env PRF_DEBUG_DIR="$CW/none" $VG "$P" cfi --csv "$CW/bad/t.so" >>"$CW/vg.out" 2>&1
	ok $? "valgrind: prf cfi with a debug file (.gnu_debuglink, build ID), one refused (CRC-32, layout) clean, no leak"
	[ $? -eq 0 ] || tail -30 "$CW/vg.out" | diag
	env PRF_DEBUG_DIR="$CW/none" $VG "$P" cfi "$CW/bad/bare.so" >"$CW/vg.out" 2>&1
	[ $? -eq 1 ]
	ok $? "valgrind: prf cfi without CFI, its debug file refused, clean, no leak"
fi
