# SPDX-License-Identifier: GPL-2.0-only
# prf annotate on the host (sourced by run_host_tests.sh: its ok/run/same,
# $B, $W, $P).  build/annotprog stands in for the kernel: its segments for
# /proc/kcore, its symbols for /proc/kallsyms and a vmlinux; the fake device
# (tests/fakeprf.c) counts the PCs of FAKEPRF_PCS as the device would.

A=$W/annot
mkdir -p "$A"
AP=$B/annotprog
nm -n "$AP" | awk '$2 ~ /^[tT]$/ { if (!n++) { print $1, "T _text"; print $1, "T _stext" } print $1, $2, $3 }' \
	>"$A/kallsyms"
AKS="--kallsyms $A/kallsyms --proc-modules /dev/null"
# The reference: objdump -d over the ELF file and its symbols (not prf's way,
# which is objdump -b binary over the bytes alone): "address bytes mnemonic".
objdump -d -w --disassemble=hot_loop "$AP" |
	awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/^ */, "", a); sub(/:$/, "", a)
		b = $2; gsub(/ +$/, "", b); split($3, m, " "); print a, b, m[1] }' >"$A/ref"
start=$(awk '$3 == "hot_loop" { print $1 }' "$A/kallsyms")
end=$(awk '$3 == "cold_fn" { print $1 }' "$A/kallsyms")
# Kernel addresses: above what sh arithmetic holds, so on their low 32 bits.
ka() { printf 'ffffffff%08x' $((0x${1#ffffffff} + $2)); }	# ka ADDR N: ADDR + N
size=$((0x${end#ffffffff} - 0x${start#ffffffff}))
ninsn=$(wc -l <"$A/ref")
[ "$ninsn" -gt 8 ] && [ "$(head -1 "$A/ref" | cut -d' ' -f1)" = "${start#ffffffff}" -o \
	"$(head -1 "$A/ref" | cut -d' ' -f1)" = "$start" ]
ok $? "annotate fixture: hot_loop at $start, $size bytes, $ninsn instructions (objdump -d)"
ia() { sed -n "${1}p" "$A/ref" | cut -d' ' -f1; }	# the address of instruction N
# Samples: 5 at instruction 3, 9 at instruction 11, 2 one byte into
# instruction 7 (inside it), 4 in cold_fn: the function holds 16 of 20.
i3=$(ia 3) i7=$(ia 7) i11=$(ia 11)
PCS="$i3:5,$i11:9,$(ka "$i7" 1):2,$end:4"
CL=$A/clone
AFK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$A/prf FAKEPRF_CLONE=$CL FAKEPRF_LOG=$A/log FAKEPRF_PCS=$PCS"
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$A/prf"
: >"$A/log"

# The expected CSV: every instruction with its samples, % of 16, rank.
awk -v s="$start" -v i3="$i3" -v i7="$i7" -v i11="$i11" '
	function hex(h,   i, v) { v = 0; h = substr(tolower(h), 9); for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
	BEGIN { print "address,offset,samples,percent,rank,bytes" }
	{ c = $1 == i3 ? 5 : $1 == i11 ? 9 : $1 == i7 ? 2 : 0
	  r = $1 == i11 ? 1 : $1 == i3 ? 2 : $1 == i7 ? 3 : ""
	  b = $0; sub(/^[^ ]+ /, "", b); sub(/ [^ ]+$/, "", b)
	  a = $1; if (length(a) < 16) a = "ffffffff" a
	  printf "0x%s,%d,%d,%.2f,%s,%s\n", a, hex(a) - hex(s), c, 100 * c / 16, r, b }' "$A/ref" >"$A/want.csv"
csv_cols() { cut -d, -f1-6 "$1"; }	# the CSV without the instruction's text
run 0 "prf annotate -d 0.1 --csv (fake device, --kcore an ELF)" $AFK "$P" annotate $AKS --kcore "$AP" -d 0.1 --csv hot_loop
csv_cols "$W/out" >"$A/got.csv"
same "$A/got.csv" "$A/want.csv" "prf annotate --csv: each instruction's address, offset, samples, %, rank and bytes"
sed -e 1d -e 's/^\([^,]*,\)\{6\}"\{0,1\}//' -e 's/ .*//' "$W/out" >"$A/got.mn"
awk '{ print $NF }' "$A/ref" >"$A/want.mn"
same "$A/got.mn" "$A/want.mn" "prf annotate: objdump -b binary's mnemonics are objdump -d's"
printf 'clone LOAD %d\nclone SETSTATE 1\nclone SETSTATE 0\n' $((size + 3)) >"$A/want.log"
same "$A/log" "$A/want.log" "prf annotate -d: a private instance, $size bytes + cold_fn, main, _etext loaded, on, off"
tr ' ' '\n' <"$CL" | awk '/^addrs$/ { on = 1; next } on' | sed -n 2,$((size + 1))p >"$A/bytes"
i=0
while [ $i -lt "$size" ]; do ka "$start" $i; echo; i=$((i + 1)); done >"$A/bytes.want"
same "$A/bytes" "$A/bytes.want" "prf annotate: the table holds every byte of hot_loop (step 1)"
run 0 "prf annotate (text)" $AFK "$P" annotate $AKS --kcore "$AP" -d 0.1 hot_loop
printf 'hot_loop [kernel] at %s, %d bytes, %d instructions\n16 samples in the function: 80.00%% of 20 kernel samples\n' \
	"$start" "$size" "$ninsn" >"$A/want.hdr"
head -2 "$W/out" | sed 's/ (.*//' >"$A/got.hdr"
same "$A/got.hdr" "$A/want.hdr" "prf annotate: the function, its size, its samples and their share of the kernel's"
grep -E '^ +9 +56\.25 +#1  0*'"$i11"' ' "$W/out" >/dev/null &&
	grep -E '^ +5 +31\.25 +#2  0*'"$i3"' ' "$W/out" >/dev/null &&
	grep -E '^ +2 +12\.50 +#3  0*'"$i7"' ' "$W/out" >/dev/null &&
	[ "$(grep -c '^ *\. *\. ' "$W/out")" = $((ninsn - 3)) ]
ok $? "prf annotate: the hottest marked #1 #2 #3, the others '.'"
grep -q "^2 of the samples fell inside an instruction" "$W/out"
ok $? "prf annotate: samples inside an instruction said"
run 0 "prf annotate --mark 1 --json" $AFK "$P" annotate $AKS --kcore "$AP" -d 0.1 --mark 1 --json hot_loop
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); i = d["instructions"]
assert d["samples"] == 16 and d["kernel_samples"] == 20 and d["inside_instructions"] == 2, d
assert sum(x["samples"] for x in i) == 16 and [x["rank"] for x in i if x["rank"]] == [1]
assert len(i) == int(sys.argv[2]) and i[0]["offset"] == 0' "$W/out" "$ninsn" 2>&1 | diag
	ok $? "prf annotate --json: valid, counts add up to the function's, --mark 1 marks one"
fi
run 0 "prf annotate --vmlinux (the code from the ELF's symbol)" $AFK "$P" annotate $AKS --vmlinux "$AP" -d 0.1 --csv hot_loop
csv_cols "$W/out" >"$A/got.csv"
same "$A/got.csv" "$A/want.csv" "prf annotate --vmlinux: the same as from the segments"
run 0 "prf annotate by address inside it" $AFK "$P" annotate $AKS --kcore "$AP" -d 0.1 --csv "0x$i7"
csv_cols "$W/out" >"$A/got.csv"
same "$A/got.csv" "$A/want.csv" "prf annotate 0xADDR: the function holding the address"

# -- COMMAND: a filter on the command's process; --all-tasks: none.
: >"$A/log"
run 0 "prf annotate -- true" $AFK "$P" annotate $AKS --kcore "$AP" hot_loop -- true
sed 's/^\(clone SETFILTER 1\) [0-9]*$/\1 X/' "$A/log" >"$A/got.log"
printf 'clone LOAD %d\nclone SETFILTER 1 X\nclone SETSTATE 1\nclone SETSTATE 0\n' $((size + 3)) >"$A/want.log"
same "$A/got.log" "$A/want.log" "prf annotate -- COMMAND: load, the command's filter, on, off"
: >"$A/log"
run 0 "prf annotate --all-tasks -- true" $AFK "$P" annotate $AKS --kcore "$AP" --all-tasks hot_loop -- true
printf 'clone LOAD %d\nclone SETSTATE 1\nclone SETSTATE 0\n' $((size + 3)) >"$A/want.log"
same "$A/log" "$A/want.log" "prf annotate --all-tasks -- COMMAND: no filter"
run 1 "prf annotate -- false" $AFK "$P" annotate $AKS --kcore "$AP" hot_loop -- false
grep_err "false exited with status 1" "prf annotate: the command's failure said"
# A command that cannot run: one line (the child's), no report, a shell's status.
run 127 "prf annotate -- /no/such/command" $AFK "$P" annotate $AKS --kcore "$AP" hot_loop -- /no/such/command
[ "$(cat "$W/err")" = "prf annotate: /no/such/command: No such file or directory" ] && [ ! -s "$W/out" ]
ok $? "prf annotate -- /no/such/command: one line said, no report"
run 126 "prf annotate -- a file not executable" $AFK "$P" annotate $AKS --kcore "$AP" hot_loop -- "$A/kallsyms"
[ "$(cat "$W/err")" = "prf annotate: $A/kallsyms: Permission denied" ] && [ ! -s "$W/out" ]
ok $? "prf annotate -- a file not executable: one line said, no report"
# -f: a shared device.
: >"$A/log"
run 0 "prf annotate -f DEV" $AFK "$P" annotate $AKS --kcore "$AP" -f "$A/prf" -d 0.1 --csv -o "$A/keep.prf" hot_loop
csv_cols "$W/out" >"$A/got.csv"
same "$A/got.csv" "$A/want.csv" "prf annotate -f DEV: the same counts"
printf 'LOAD %d\nSETSTATE 1\nSETSTATE 0\n' $((size + 3)) >"$A/want.log"
same "$A/log" "$A/want.log" "prf annotate -f DEV: loads that device"
# -i FILE: a kept snapshot (-o), and a table of prfld --step 1 + prfsnap.
run 0 "prf annotate -i (the -o file)" "$P" annotate $AKS --kcore "$AP" -i "$A/keep.prf" --csv hot_loop
csv_cols "$W/out" >"$A/got.csv"
same "$A/got.csv" "$A/want.csv" "prf annotate -i FILE: the kept snapshot gives the same counts"
run 0 "prfld --step 1 --range hot_loop-cold_fn (fake)" $AFK "$B/prfld" -q -f "$A/prf" $AKS --step 1 --range hot_loop-cold_fn
run 0 "prfsnap of that table" $AFK "$B/prfsnap" -f "$A/prf" $AKS "$A/step.prf"
run 0 "prf annotate -i (prfld --step 1 table)" "$P" annotate $AKS --vmlinux "$AP" -i "$A/step.prf" --csv hot_loop
csv_cols "$W/out" | awk -F, -v OFS=, 'NR > 1 { $4 = sprintf("%.2f", 100 * $3 / 16) } 1' >"$A/got.csv"
same "$A/got.csv" "$A/want.csv" "prf annotate -i: a prfld --step 1 table counts the same"
run 0 "prfld (functions alone, fake)" $AFK "$B/prfld" -q -f "$A/prf" $AKS
run 0 "prfsnap of a functions table" $AFK "$B/prfsnap" -f "$A/prf" $AKS "$A/fn.prf"
run 1 "prf annotate -i (no address per instruction)" "$P" annotate $AKS --kcore "$AP" -i "$A/fn.prf" hot_loop
grep_err "the table has no address at $((ninsn - 1)) of hot_loop's $ninsn instructions" \
	"prf annotate -i: a table that cannot count instructions apart, said"

# objdump's output parsed: a stand-in objdump (--objdump) prints a header,
# a label, "...", and an instruction continued on a line of its own.
cat >"$A/objdump" <<'X'
#!/bin/sh
for a; do case $a in --adjust-vma=*) v=${a#--adjust-vma=0x} ;; esac; done
at() { printf 'ffffffff%08x' $((0x${v#ffffffff} + $1)); }
printf '\nx:     file format binary\n\nDisassembly of section .data:\n\n%s <.data>:\n' "$v"
printf '%s:\t55                   \tpush   %%rbp\n' "$v"
printf '%s:\t48 8d 84 24 00 00\tlea    0x0(%%rsp),%%rax\n' "$(at 1)"
printf '%s:\t00 00\n' "$(at 7)"
printf '\t...\n'
printf '%s:\tc3                   \tret    \n' "$(at 9)"
[ "$FAKE_OBJDUMP_GAP" = 1 ] || printf '%s:\tcc\tint3\n' "$(at 10)"
[ "$FAKE_OBJDUMP_FAIL" = 1 ] && exit 3
exit 0
X
chmod +x "$A/objdump"
printf '%s T _text\n%s T _stext\n%s T tiny\n%s T after\n%s T _etext\n' "$start" "$start" "$start" \
	"$(ka "$start" 11)" "$(ka "$start" 16)" >"$A/ks.tiny"
run 0 "prf annotate --objdump (a stand-in)" $AFK "$P" annotate --kallsyms "$A/ks.tiny" --proc-modules /dev/null \
	--kcore "$AP" --objdump "$A/objdump" -d 0.1 --csv tiny
printf 'address,offset,samples,percent,rank,bytes,instruction\n0x%s,0,0,0.00,,55,push %%rbp\n0x%s,1,5,100.00,1,48 8d 84 24 00 00 00 00,"lea 0x0(%%rsp),%%rax"\n0x%s,9,0,0.00,,c3,ret\n0x%s,10,0,0.00,,cc,int3\n' \
	"$start" "$(ka "$start" 1)" "$(ka "$start" 9)" "$(ka "$start" 10)" >"$A/want.tiny"
# (FAKEPRF_PCS's sample at instruction 3 of hot_loop lands inside tiny's lea.)
same "$W/out" "$A/want.tiny" "objdump's output: headers skipped, a continued instruction joined, spaces squeezed"
run 1 "prf annotate: objdump leaves a gap" $AFK FAKE_OBJDUMP_GAP=1 "$P" annotate --kallsyms "$A/ks.tiny" \
	--proc-modules /dev/null --kcore "$AP" --objdump "$A/objdump" -d 0.1 tiny
grep_err "the instructions stop at" "a gap at the end said"
run 1 "prf annotate: objdump fails" $AFK FAKE_OBJDUMP_FAIL=1 "$P" annotate --kallsyms "$A/ks.tiny" \
	--proc-modules /dev/null --kcore "$AP" --objdump "$A/objdump" -d 0.1 tiny
grep_err "failed (exit status 3)" "objdump's exit status said"
run 1 "prf annotate: no objdump" $AFK "$P" annotate $AKS --kcore "$AP" --objdump "$A/none" -d 0.1 hot_loop
grep_err "none: No such file or directory (binutils)" "a missing objdump said"

# Errors.
run 1 "prf annotate nosuch" $AFK "$P" annotate $AKS --kcore "$AP" -d 0.1 nosuch
grep_err "nosuch: no such kernel function" "an unknown function said"
run 1 "prf annotate: no kcore" $AFK "$P" annotate $AKS --kcore "$A/missing" -d 0.1 hot_loop
grep_err "missing: No such file or directory" "an unreadable kcore said"
run 1 "prf annotate --vmlinux without the function" $AFK "$P" annotate $AKS --vmlinux "$B/fakevmlinux" -d 0.1 hot_loop
grep_err "no function hot_loop in its symbol table" "a vmlinux without the function said"
run 2 "prf annotate --folded" "$P" annotate --folded hot_loop
run 2 "prf annotate -i F -- cmd" "$P" annotate -i x hot_loop -- true
run 2 "prf annotate -d 1 -- cmd" "$P" annotate -d 1 hot_loop -- true
run 2 "prf annotate (no function)" "$P" annotate
run 0 "prf annotate --help" "$P" annotate --help
grep -q -- "--vmlinux" "$W/out" && grep -q -- "-i, --input" "$W/out"
ok $? "prf annotate --help: the options"
run 0 "prf help annotate" "$P" help annotate
if [ "${VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null 2>&1; then
	VGA="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --show-leak-kinds=definite,indirect,possible"
	$VGA "$P" annotate $AKS --kcore "$AP" -i "$A/keep.prf" --json hot_loop >"$W/vg.out" 2>&1
	ok $? "valgrind: prf annotate -i --kcore (objdump parsed, instructions counted)"
	[ $? -eq 0 ] || tail -20 "$W/vg.out" | diag
	$VGA "$P" annotate $AKS --vmlinux "$AP" -i "$A/step.prf" hot_loop >"$W/vg.out" 2>&1
	ok $? "valgrind: prf annotate -i --vmlinux (libelf)"
	[ $? -eq 0 ] || tail -20 "$W/vg.out" | diag
fi
