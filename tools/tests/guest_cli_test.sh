#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The prf commands against the real /dev/prf, inside a test guest with
# prf.ko loaded (selftests/vm/run --kernel debian-6.1 -- tools/tests/guest_cli_test.sh).
# Needs the tools built on the host first (make -C tools).  TAP output.
#
# Environment: PRF_BIN (default: tools/build beside this script), DD_COUNT
# (blocks of 64 KiB the workload zeroes, default 200000), PRF_VALGRIND=1 to
# also run the commands that use the device under valgrind (slow).
# It leaves sampling off, a kernel table loaded, 100 Hz and no flags.

T=$(cd "$(dirname "$0")" && pwd)
B=${PRF_BIN:-$T/../build}
B=$(cd "$B" 2>/dev/null && pwd)
DD_COUNT=${DD_COUNT:-200000}
# What the workload (dd from /dev/zero, reads of /proc) spends its time in.
WORK='clear_user|rep_stos|_copy_to_iter|iov_iter_zero|read_zero|__clear_user|copy_user|memset|clear_page'
W=$(mktemp -d /tmp/prf-guest-test.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
export LC_ALL=C

. "$(dirname "$0")/tap.sh"
has() {	# has PATTERN FILE DESC
	grep -Eq -- "$1" "$2"
	r=$?
	ok $r "$3"
	[ $r -eq 0 ] || diag "$2" | head -30
}
# The function rows of a text report (between the header and the totals).
rows() { awk '/^ +samples +%/ { on = 1; next } on && /^$/ { exit } on' "$1"; }
top_has_work() {	# top_has_work REPORT DESC: a workload function in the top 5
	rows "$1" | head -5 >"$W/top5"
	grep -Eq "$WORK" "$W/top5"
	r=$?
	ok $r "$2"
	[ $r -eq 0 ] || diag "$1" | head -30
}
workload() {
	dd if=/dev/zero of=/dev/null bs=64k count="$DD_COUNT" 2>/dev/null
	i=0
	while [ $i -lt 50 ]; do
		cat /proc/self/maps /proc/meminfo /proc/stat /proc/interrupts >/dev/null 2>&1
		i=$((i + 1))
	done
}

skip_unless_ready
P=$B/prf

run 0 "prfstat off (a known state)" "$B/prfstat" -q off
run 0 "prfstat --hz 100" "$B/prfstat" -q --hz 100
run 0 "prfld loads /proc/kallsyms" "$B/prfld"
has "loaded [0-9]+ addresses .* into /dev/prf" "$W/out" "prfld says how many addresses"
run 0 "prfld --dry-run: the table it would load" "$B/prfld" --dry-run
nsent=$(grep -c ' sentinel ' "$W/out")
grep ' sentinel ' "$W/out" | head -8 | diag
if grep -q . /proc/modules 2>/dev/null; then
	[ "$nsent" -ge 2 ]
	ok $? "prfld --dry-run: sentinels after the kernel and the modules ($nsent)"
else
	[ "$nsent" -eq 1 ]
	ok $? "prfld --dry-run: the kernel's sentinel"
fi
awk 'NR > 1 && $1 <= prev { bad = 1 } { prev = $1 } END { exit bad }' "$W/out"
ok $? "prfld --dry-run: strictly ascending"
"$B/prfld" --dry-run -m kernel | awk '{ print $1 }' | sort >"$W/ks.addrs"
# A System.map of the running kernel, moved by the KASLR offset, gives the
# same kernel table as kallsyms.
rel=$(uname -r)
map=
for m in /boot/System.map-"$rel" "${XDG_CACHE_HOME:-/root/.cache}"/prf/*/*/boot/System.map-"$rel"; do
	# Debian's own is a one-line stub pointing at the -dbg package.
	[ -r "$m" ] && grep -q ' _text$' "$m" && { map=$m; break; }
done
if [ -z "$map" ] && command -v python3 >/dev/null 2>&1; then
	# None: make one as the kernel build would have, from kallsyms, with the
	# kernel's addresses moved back to the unrandomized _text.
	map=$W/System.map
	python3 - "$map" <<'PY'
import sys
lines = [l.split() for l in open('/proc/kallsyms')]
text = next(int(l[0], 16) for l in lines if len(l) == 3 and l[2] == '_text')
off = text - 0xffffffff81000000
with open(sys.argv[1], 'w') as f:
    for l in lines:
        if len(l) == 3:
            f.write('%016x %s %s\n' % ((int(l[0], 16) - off) & (2**64 - 1), l[1], l[2]))
PY
	[ -s "$map" ] || map=
	diag_text=$(grep ' _text$' "$map" 2>/dev/null)
	echo "# made $map from /proc/kallsyms: $diag_text"
fi
if [ -n "$map" ]; then
	run 0 "prfld --dry-run -m kernel $map" "$B/prfld" --dry-run -m kernel "$map"
	awk '{ print $1 }' "$W/out" | sort >"$W/map.addrs"
	total=$(wc -l <"$W/ks.addrs")
	differ=$(comm -3 "$W/ks.addrs" "$W/map.addrs" | wc -l)
	[ "$total" -gt 1000 ] && [ "$differ" -le $((total / 100)) ]
	ok $? "System.map with the KASLR offset matches kallsyms ($differ of $total addresses differ)"
	[ "$(tail -1 "$W/ks.addrs")" = "$(tail -1 "$W/map.addrs")" ]
	ok $? "System.map: the same _etext sentinel"
else
	n=$((n + 1))
	echo "ok $n - # SKIP no System.map for $rel (Debian's is a stub) and no python3"
fi

# An ELF vmlinux of the running kernel (the test bed's own builds), read with
# libelf and moved by the KASLR offset.
vml=
for v in /boot/vmlinux-"$rel" /usr/lib/debug/boot/vmlinux-"$rel" "${XDG_CACHE_HOME:-/root/.cache}"/prf/*/vmlinux; do
	[ -r "$v" ] && head -c 4 "$v" | grep -q ELF && grep -qF "$(cat /proc/version)" "$v" &&
		{ vml=$v; break; }
done
if [ -n "$vml" ]; then
	run 0 "prfld --dry-run -m kernel $vml" "$B/prfld" --dry-run -m kernel "$vml"
	awk '{ print $1 }' "$W/out" | sort >"$W/vml.addrs"
	total=$(wc -l <"$W/ks.addrs")
	missing=$(comm -23 "$W/ks.addrs" "$W/vml.addrs" | wc -l)
	[ "$total" -gt 1000 ] && [ "$missing" -le $((total / 10)) ]
	ok $? "vmlinux with the KASLR offset: $missing of kallsyms' $total addresses not among its functions"
	[ "$(tail -1 "$W/ks.addrs")" = "$(tail -1 "$W/vml.addrs")" ]
	ok $? "vmlinux: the same _etext sentinel"
else
	n=$((n + 1))
	echo "ok $n - # SKIP no ELF vmlinux of $rel"
fi

run 0 "prfstat shows the state" "$B/prfstat"
has "sampling OFF, table loaded" "$W/out" "prfstat: OFF and loaded"
naddr=$(awk '$1 == "addresses" { print $2 }' "$W/out")
[ "${naddr:-0}" -gt 1000 ]
ok $? "prfstat: $naddr addresses loaded"
has "^maximum +[0-9]+" "$W/out" "prfstat: the maximum"
has "^ticks outside +[0-9]+" "$W/out" "prfstat: the info struct (ticks outside)"
has "^ticks lost +[0-9]+" "$W/out" "prfstat: lost ticks"
has "^time on +[0-9.]+ s" "$W/out" "prfstat: time on"
[ "$(cat /sys/class/prf/prf/size 2>/dev/null)" = "$naddr" ]
ok $? "sysfs size agrees with prfstat"

run 0 "prfstat -v --hz 250 on" "$B/prfstat" -v --hz 250 on
has "sampling ON" "$W/out" "prfstat on: ON"
has "rate +250 Hz" "$W/out" "prfstat --hz: rate 250 Hz"
has "^flags +none$" "$W/out" "prfstat on: no flag by default"
has "^sampling +randomized$" "$W/out" "prfstat on: the device's stratified default"
grep -q "^flags 0$" /sys/class/prf/prf/info 2>/dev/null
ok $? "sysfs info: flags 0"
[ -n "$(cat /sys/class/prf/prf/cpus 2>/dev/null)" ]
ok $? "sysfs cpus: $(cat /sys/class/prf/prf/cpus 2>/dev/null)"
[ "$(cat /sys/class/prf/prf/control 2>/dev/null)" = on ]
ok $? "sysfs control reads on"
run 1 "prfld refuses while ON" "$B/prfld"
has "sampling is ON" "$W/err" "prfld says sampling is ON"
run 1 "prfstat --hz while ON is refused" "$B/prfstat" --hz 200

S=$W/snaps.prf
run 0 "prfsnap: first snapshot" "$B/prfsnap" "$S"
run 0 "prfpr with one snapshot: since the load" "$B/prfpr" "$S"
has "^$S: snapshot 1, counted from the load or clear$" "$W/out" "prfpr, one snapshot: since the load, said"
has "^device /dev/prf .* on a host with no name set, Linux " "$W/out" \
	"prfpr: the guest's unset hostname, (none), said in words"
run 1 "prfpr --to 1 with one snapshot says two are needed" "$B/prfpr" --to 1 "$S"
has "needs two" "$W/err" "prfpr: two snapshots needed"
workload
run 0 "prfsnap: second snapshot" "$B/prfsnap" "$S"
run 0 "prfpr reports the workload" "$B/prfpr" "$S"
cp "$W/out" "$W/report.txt"
diag "$W/report.txt"
run 0 "prfpr cutoff 0" "$B/prfpr" "$S" 0
top_has_work "$W/out" "prfpr: the workload's kernel functions at the top"
has "^outside +[0-9]+" "$W/report.txt" "prfpr: outside figure"
has "^lost +[0-9]+" "$W/report.txt" "prfpr: lost figure"
has "^user +[0-9]+" "$W/report.txt" "prfpr: user total"
has "^idle +[0-9]+" "$W/report.txt" "prfpr: idle total"
has "250 Hz" "$W/report.txt" "prfpr: the rate recorded in the snapshots"
has "^ +samples +%kernel +function" "$W/report.txt" "prfpr: percentages of kernel samples by default"
[ "$(grep -c '#$' "$W/report.txt")" -ge 3 ]
ok $? "prfpr: the default report shows at least three kernel functions ($(grep -c '#$' "$W/report.txt"))"
has "^%kernel: share of [0-9]+ samples" "$W/report.txt" "prfpr: says what % is of"
run 0 "prfpr --of all" "$B/prfpr" --of all "$S"
has "^ +samples +%all +function" "$W/out" "prfpr --of all: of every sample"
run 0 "prfpr -m kernel --sort name -c 0" "$B/prfpr" -m kernel --sort name -c 0 "$S"
awk '/#$/ { print $3 }' "$W/out" >"$W/names"
LC_ALL=C sort -c "$W/names" && [ -s "$W/names" ] && ! awk '/#$/ && $4 != "kernel"' "$W/out" | grep -q .
ok $? "prfpr -m kernel --sort name: the kernel's functions, by name"
run 0 "prfpr --csv" "$B/prfpr" --csv "$S"
has "^samples,percent,function,module,address,kind" "$W/out" "csv header"
run 0 "prfpr --json" "$B/prfpr" --json "$S" 0.5
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$W/out" >/dev/null 2>&1
	ok $? "prfpr --json is valid JSON"
fi
run 0 "prfpr --folded" "$B/prfpr" --folded "$S" 0
has "^[^ ;]+;[^;]+ [0-9]+$" "$W/out" "folded lines: module;function count"
run 0 "prfpr --pprof" "$B/prfpr" --pprof "$W/real.pb.gz" "$S"
if command -v go >/dev/null 2>&1; then
	# go tool pprof -top agrees with prfpr --csv -c 0 to the sample.
	PPROF_TMPDIR=$W PPROF_BINARY_PATH=$W/none HOME=$W go tool pprof -top -nodecount=1000000 \
		-nodefraction=0 -edgefraction=0 "$W/real.pb.gz" 2>/dev/null |
		awk 'f { n = $1; $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, "", $0); print $0 " " n }
		     / flat +flat% / { f = 1 }' | LC_ALL=C sort >"$W/pp.rows"
	# (pprof merges functions of one name: static functions of the same name, summed)
	"$B/prfpr" --csv -c 0 "$S" | awk -F, 'NR > 1 && $6 != "total" && $6 != "rest" { n[$3] += $1 }
		($3 == "[user]" || $3 == "[idle]" || $3 == "[outside]") && $1 != 0 { n[$3] += $1 }
		END { for (f in n) print f " " n[f] }' | LC_ALL=C sort >"$W/csv.rows"
	[ "$(wc -l <"$W/pp.rows")" -gt 3 ] && cmp -s "$W/pp.rows" "$W/csv.rows"
	r=$?
	ok $r "go tool pprof -top: $(wc -l <"$W/pp.rows") functions, each with prfpr's samples"
	[ $r -eq 0 ] || diff "$W/csv.rows" "$W/pp.rows" | diag | head -20
else
	n=$((n + 1))
	echo "ok $n - go tool pprof -top agrees with prfpr # SKIP go not installed"
fi
run 0 "prfpr --list" "$B/prfpr" --list "$S"
has "2 snapshots, 1 table" "$W/out" "two snapshots share one table record"

run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prf clear" "$P" clear
run 0 "prfstat after clear" "$B/prfstat"
has "^ticks total +0$" "$W/out" "prf clear zeroes the counters"
run 0 "prfstat -v --no-jitter on" "$B/prfstat" -v --no-jitter on
has "^flags +fixed$" "$W/out" "prfstat --no-jitter on: fixed periods"
has "^sampling +fixed periods$" "$W/out" "prfstat --no-jitter on: says fixed periods"
run 0 "prfstat -v on while ON" "$B/prfstat" -v on
has "^flags +fixed$" "$W/out" "prfstat on while ON leaves the flags"
run 0 "prfstat -v off" "$B/prfstat" -v off
has "^flags +fixed$" "$W/out" "prfstat off leaves the flags"
run 0 "prfstat --hz 100" "$B/prfstat" -q --hz 100

# prf record: a private instance of its own; /dev/prf is left as it is.
R=$W/record.prf
run 0 "prf record -- dd" "$P" record -o "$R" --hz 500 -- dd if=/dev/zero of=/dev/null bs=64k count="$DD_COUNT"
cp "$W/out" "$W/record.txt"
diag "$W/record.txt"
top_has_work "$W/record.txt" "prf record: the workload's functions at the top"
has "500 Hz" "$W/record.txt" "prf record --hz 500"
has "/dev/prfclone" "$W/record.txt" "prf record: on a private instance"
run 0 "prfpr --list of the record file" "$B/prfpr" --list "$R"
has "1 snapshot" "$W/out" "prf record wrote one snapshot (counted from the load)"
run 0 "prfpr of the record file, no option" "$B/prfpr" -c 0 "$R"
"$B/prfpr" -c 0 --since-load "$R" >"$W/since.txt" 2>&1
cmp -s "$W/out" "$W/since.txt" && [ "$(head -n 1 "$W/out")" = "$R: snapshot 1, counted from the load or clear" ]
ok $? "prfpr of prf record's file: since the load (as --since-load), said in its header"
# A command that cannot run, on the real device: one line, no report, no file.
run 127 "prf record -- /no/such/command" "$P" record -o "$W/nocmd.prf" -- /no/such/command
[ "$(cat "$W/err")" = "prf record: /no/such/command: No such file or directory" ] &&
	[ ! -s "$W/out" ] && [ ! -e "$W/nocmd.prf" ]
ok $? "prf record -- /no/such/command: one line said, no report, no file"
# (a directory: a file without x bits is run by root over 9p, and then by sh)
run 126 "prf record -- a directory" "$P" record -- /etc
[ "$(cat "$W/err")" = "prf record: /etc: Permission denied" ] && [ ! -s "$W/out" ]
ok $? "prf record -- a directory: one line said, no report"
run 0 "prfstat after record" "$B/prfstat"
has "sampling OFF" "$W/out" "/dev/prf still OFF after prf record"
has "^rate +100 Hz" "$W/out" "/dev/prf's rate untouched by prf record --hz 500"
has "^flags +fixed$" "$W/out" "/dev/prf's flags (fixed) untouched by prf record"
run 0 "prf record --fixed -- true" "$P" record --fixed -- true
run 0 "prfstat after record --fixed" "$B/prfstat"
has "^flags +fixed$" "$W/out" "prf record --fixed: /dev/prf's flags untouched"
# prf record --pprof, and a diff of two records: dd against reads of /proc.
run 0 "prf record --pprof -- reads of /proc" "$P" record -o "$W/procreads.prf" \
	--pprof "$W/procreads.pb.gz" --hz 500 -- sh -c \
	'i=0; while [ $i -lt 100 ]; do cat /proc/self/maps /proc/meminfo /proc/stat /proc/interrupts >/dev/null; i=$((i + 1)); done'
if command -v go >/dev/null 2>&1; then
	# go tool pprof reads the export and agrees with the report's total.
	PPROF_TMPDIR=$W PPROF_BINARY_PATH=$W/none HOME=$W go tool pprof -raw \
		"$W/procreads.pb.gz" >"$W/pp.raw" 2>"$W/pp.err"
	ok $? "prf record --pprof: go tool pprof -raw reads it"
	pp=$(awk '/^Samples:/ { f = 1; next } /^Locations/ { f = 0 } f && $1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }' "$W/pp.raw")
	"$B/prfpr" --since-load --csv -c 0 "$W/procreads.prf" >"$W/pr.csv"
	# The report's total, and what its first section's rows add up to:
	# its functions (kernel and user) and the user samples no user row
	# holds, [idle] and [outside].  (The file keeps its user rows, so the
	# [user] total overlaps them, and the programs' section follows.)
	pr=$(awk -F, '$3 == "[total]" { print $1; exit }' "$W/pr.csv")
	rows=$(awk -F, '/^$/ { exit } NR > 1 && $6 != "total" && $6 != "rest" { s += $1; if ($9 != "") u += $1 }
		$3 == "[user]" { s += $1 - u } $3 == "[idle]" || $3 == "[outside]" { s += $1 }
		END { print s + 0 }' "$W/pr.csv")
	[ "$pp" -gt 0 ] && [ "$pp" = "$pr" ] && [ "$rows" = "$pr" ]
	ok $? "prf record --pprof: $pp samples in pprof, $pr in the report ($rows in its rows)"
else
	n=$((n + 2))
	echo "ok $((n - 1)) - prf record --pprof: go tool pprof reads it # SKIP go not installed"
	echo "ok $n - prf record --pprof: samples agree # SKIP go not installed"
fi
run 0 "prfpr --diff: dd's record against the reads' record" "$B/prfpr" --diff "$W/procreads.prf" \
	--since-load -c 0 "$R"
cp "$W/out" "$W/diff.txt"
first=$(awk '/^ +base% +new%/ { f = 1; next } f && $3 ~ /^\+/ { print $5; exit }' "$W/diff.txt")
echo "$first" | grep -Eq "$WORK"
ok $? "prfpr --diff: the function that gains most is dd's ($first)"
[ -n "$first" ] || diag "$W/diff.txt" | head -20

run 1 "prf record of a failing command" "$P" record -- false
has "exited with status 1" "$W/err" "prf record says the command failed"

# prfdc
run 0 "prfstat on" "$B/prfstat" -q on
D=$W/dc.prf
run 0 "prfdc with a 1 s period, 3 snapshots" "$B/prfdc" --period-seconds 1 --count 3 "$D"
run 0 "prfpr --list of prfdc's file" "$B/prfpr" --list "$D"
has "3 snapshots, 1 table" "$W/out" "prfdc wrote 3 snapshots"
D2=$W/dc2.prf
"$B/prfdc" --period-seconds 60 "$D2" 2>"$W/err" &
pid=$!
# Once its first snapshot is in, it has its signals in hand.
i=0
while [ $i -lt 120 ] && ! "$B/prfpr" --list "$D2" 2>/dev/null | grep -q '1 snapshot'; do
	sleep 0.5
	i=$((i + 1))
done
kill -TERM $pid
wait $pid
ok $? "prfdc exits 0 on SIGTERM"
"$B/prfpr" --list "$D2" >"$W/out" 2>&1
has "2 snapshots" "$W/out" "prfdc took a last snapshot on SIGTERM"
run 0 "prfpr --all of prfdc's file" "$B/prfpr" --all "$D"

# prf top, not on a terminal
run 0 "prf top -n 2 -d 0.5" "$P" top -n 2 -d 0.5 </dev/null
diag "$W/out"
[ "$(grep -c '^prf top' "$W/out")" -eq 2 ]
ok $? "prf top printed two frames"
have_pty() { script -qec tty /dev/null </dev/null 2>/dev/null | grep -q '^/dev/'; }
mounted_pts=0
if command -v script >/dev/null 2>&1 && ! have_pty && [ "$(id -u)" = 0 ]; then
	# A bare guest may have no devpts: mount one for this test.
	{ [ -d /dev/pts ] || mkdir /dev/pts; } 2>/dev/null &&
		mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts 2>/dev/null &&
		mounted_pts=1
	[ -e /dev/ptmx ] || { ln -s pts/ptmx /dev/ptmx 2>/dev/null; }
fi
if command -v script >/dev/null 2>&1 && have_pty; then
	# On a terminal: ANSI refresh, raw keyboard.
	script -qec "$P top -n 2 -d 0.5" /dev/null </dev/null >"$W/out" 2>&1
	r=$?
	ok $r "prf top on a pseudo-terminal"
	[ $r -eq 0 ] || diag "$W/out" | head -20
	grep -q "$(printf '\033\\[H\033\\[2J')" "$W/out"
	ok $? "prf top clears the screen on a terminal (no TERM: ANSI's)"
	if command -v tmux >/dev/null 2>&1; then
		# In a terminal of 80x24 and of 200x50: fits, keys work, q quits.
		# A server of its own for each size: kill-server returns before
		# the server has gone, and a new session on the same socket then
		# meets the dying server ("server exited unexpectedly").
		for size in 80x24 200x50; do
			TM="tmux -L prf-guest-$$-$size -f /dev/null"
			cols=${size%x*} lines=${size#*x}
			$TM new-session -d -s top -x "$cols" -y "$lines" \
				"env TERM=screen $P top -d 0.5; echo EXIT=\$?; sleep 60"
			ok $? "prf top in tmux at $size: the session starts"
			i=0
			while [ $i -lt 100 ] && ! $TM capture-pane -J -p -t top 2>/dev/null | grep -q "^kernel [0-9]"; do
				sleep 0.2
				i=$((i + 1))
			done
			sleep 1
			$TM capture-pane -J -p -t top >"$W/pane"
			head -1 "$W/pane" | grep -q "^prf top - " && sed -n 2p "$W/pane" | grep -q "^q quit  s sort: samples" &&
				grep -q "^kernel [0-9]* (" "$W/pane" &&
				[ "$(awk -v c="$cols" 'length($0) > c' "$W/pane" | wc -l)" = 0 ] &&
				[ "$(wc -l <"$W/pane")" -le "$lines" ]
			r=$?
			ok $r "prf top in tmux at $size: fits, nothing wraps"
			[ $r -eq 0 ] || diag "$W/pane"
			$TM send-keys -t top s
			sleep 1.2
			$TM capture-pane -J -p -t top | sed -n 2p | grep -q "s sort: address"
			ok $? "prf top in tmux at $size: s sorts by address"
			$TM send-keys -t top q
			sleep 1
			$TM capture-pane -J -p -t top | grep -q "^EXIT=0$"
			ok $? "prf top in tmux at $size: q quits"
			$TM kill-server 2>/dev/null
		done
	else
		n=$((n + 1))
		echo "ok $n - # SKIP prf top in tmux: no tmux"
	fi
else
	n=$((n + 1))
	echo "ok $n - # SKIP prf top on a terminal: no script(1) or no pseudo-terminals"
fi
[ $mounted_pts = 0 ] || umount /dev/pts 2>/dev/null
run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prfstat --fixed (OFF)" "$B/prfstat" -q --fixed
run 0 "prf top -n 1 from OFF" "$P" top -n 1 -d 0.2 </dev/null
run 0 "prfstat after prf top" "$B/prfstat"
has "sampling OFF" "$W/out" "prf top turned sampling back off"
has "^flags +none$" "$W/out" "prf top sampled with the device's default, not --fixed"

# --step and -m
run 0 "prfld --step 4096 over the kernel's text" "$B/prfld" --step 4096
run 0 "prfstat on (buckets)" "$B/prfstat" -q on
dd if=/dev/zero of=/dev/null bs=64k count=$((DD_COUNT / 4)) 2>/dev/null
run 0 "prfsnap (buckets)" "$B/prfsnap" -f /dev/prf "$W/step.prf"
run 0 "prfstat off" "$B/prfstat" -q off
run 0 "prfpr --since-load (buckets)" "$B/prfpr" --since-load "$W/step.prf"
has "\\+0x[0-9a-f]+ " "$W/out" "bucket rows are named function+offset"
run 1 "prfld --step 1: more buckets than PRF_GETMAX" "$B/prfld" --step 1
has "the device holds at most" "$W/err" "prfld says the table is too large"
run 1 "prfld -m nosuchmodule" "$B/prfld" -m nosuchmodule
run 0 "prfld -m kernel" "$B/prfld" -m kernel

# per-CPU device
if [ -c /dev/prf1 ] && command -v taskset >/dev/null 2>&1; then
	C=$W/cpu1.prf
	run 0 "prfld -f /dev/prf1" "$B/prfld" -f /dev/prf1
	run 0 "prfstat -f /dev/prf1 on" "$B/prfstat" -q -f /dev/prf1 on
	run 0 "prfsnap -f /dev/prf1" "$B/prfsnap" -f /dev/prf1 "$C"
	taskset -c 1 dd if=/dev/zero of=/dev/null bs=64k count="$DD_COUNT" 2>/dev/null
	run 0 "prfsnap -f /dev/prf1 again" "$B/prfsnap" -f /dev/prf1 "$C"
	run 0 "prfstat -f /dev/prf1 off" "$B/prfstat" -q -f /dev/prf1 off
	run 0 "prfpr of CPU 1" "$B/prfpr" "$C"
	cp "$W/out" "$W/cpu1.txt"
	has "device /dev/prf1 \\(CPU 1" "$W/cpu1.txt" "the report names CPU 1"
	top_has_work "$W/cpu1.txt" "CPU 1 alone saw the workload pinned to it"
else
	echo "ok $((n + 1)) - # SKIP no /dev/prf1 or no taskset"
	n=$((n + 1))
fi

# The library example
if [ -x "$B/prfcount" ]; then
	run 0 "examples/prfcount on /dev/prf" "$B/prfcount" /dev/prf
	has "addresses: kernel [0-9]+ user [0-9]+ idle [0-9]+" "$W/out" "prfcount prints the totals"
else
	n=$((n + 2))
	echo "ok $((n - 1)) - examples/prfcount on /dev/prf # SKIP no $B/prfcount (make -C tools builds it)"
	echo "ok $n - prfcount prints the totals # SKIP no $B/prfcount"
fi

# The device paths under valgrind (slow under emulation: PRF_VALGRIND=1).
if [ "${PRF_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible"
	"$B/prfld" -q && "$B/prfstat" -q on
	run 0 "valgrind: prfstat" $VG "$B/prfstat"
	run 0 "valgrind: prfsnap" $VG "$B/prfsnap" "$W/vg.prf"
	run 0 "valgrind: prfsnap again (table shared)" $VG "$B/prfsnap" "$W/vg.prf"
	run 0 "valgrind: prfpr" $VG "$B/prfpr" "$W/vg.prf"
	run 0 "valgrind: prf top -n 1" $VG "$P" top -n 1 -d 0.2
	"$B/prfstat" -q off
	run 0 "valgrind: prf record" $VG "$P" record -- true
	run 0 "valgrind: prf clear" $VG "$P" clear
fi

# Without privilege
if command -v setpriv >/dev/null 2>&1; then
	U=$(mktemp -d /tmp/prf-nobody.XXXXXX)
	cp "$B/prf" "$U/prf" && ln -s prf "$U/prfld" && chmod 755 "$U" "$U/prf"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$U/prfld" >"$W/out" 2>"$W/err"
	[ $? -eq 1 ]
	ok $? "prfld as nobody fails"
	has "(Permission denied|Operation not permitted)" "$W/err" "and says why"
	rm -rf "$U"
fi

"$B/prfstat" -q --hz 100 --jitter >/dev/null 2>&1
echo "1..$n"
[ "$fail" -eq 0 ]
