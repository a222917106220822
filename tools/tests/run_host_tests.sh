#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Host-side tests of the prf tools (no kernel module needed): the unit tests,
# the command line against fixtures, valgrind, and the man pages.
# TAP output, then "N passed, N failed"; exit 1 when anything failed.
#
#   run_host_tests.sh BUILDDIR      (make -C tools test runs it)

B=$(cd "${1:?usage: run_host_tests.sh BUILDDIR}" && pwd)
T=$(cd "$(dirname "$0")" && pwd)
MAN=$T/../man
D=$T/data
E=$T/expected
W=$(mktemp -d /tmp/prf-host-test.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
export TZ=UTC LC_ALL=C
# no debug file fetched from a server the environment names (only
# tests/debuginfod_tests.sh sets one, command by command)
unset DEBUGINFOD_URLS

n=0
pass=0
fail=0

ok() {	# ok CONDITION-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}

diag() { sed 's/^/# /' "$@"; }

skip() {	# skip DESCRIPTION REASON: a TAP skip (counted as passed)
	n=$((n + 1))
	pass=$((pass + 1))
	echo "ok $n - $1 # SKIP $2"
}

# run EXPECTED-STATUS DESCRIPTION COMMAND...: status, stdout in $W/out, stderr in $W/err
run() {
	want=$1 desc=$2
	shift 2
	"$@" >"$W/out" 2>"$W/err"
	got=$?
	[ "$got" -eq "$want" ]
	r=$?
	ok $r "$desc (exit $got)"
	[ $r -eq 0 ] || { diag "$W/err"; }
	return $r
}

# same OUTFILE EXPECTEDFILE DESCRIPTION
same() {
	cmp -s "$1" "$2"
	r=$?
	ok $r "$3"
	[ $r -eq 0 ] || diff -u "$2" "$1" | diag
}

grep_err() {	# grep_err PATTERN DESCRIPTION
	grep -q -- "$1" "$W/err"
	ok $? "$2"
}

# sub_tap NAME CMD...: a test program's own TAP, renumbered into ours, then
# one result for its exit status.
sub_tap() {
	local name=$1 st line
	shift
	"$@" >"$W/$name.tap" 2>&1
	st=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok 0 "$name: ${line#* - }" ;;
		"not ok "*) ok 1 "$name: ${line#* - }" ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done <"$W/$name.tap"
	ok $st "$name: exit status"
}

# prf daemon's tests (tests/daemon_tests.sh) spend most of their 110 s
# waiting for its intervals: they run on their own from here, beside the
# others, and their TAP is folded in at the end.
bash "$T/daemon_tests.sh" "$B" >"$W/daemon.out" 2>&1 &
daemon_pid=$!
# ... and those of its web configuration (TLS, users, Prometheus; 30 s)
bash "$T/webconf_tests.sh" "$B" >"$W/webconf.out" 2>&1 &
webconf_pid=$!
trap 'kill "$daemon_pid" "$webconf_pid" 2>/dev/null; wait "$daemon_pid" "$webconf_pid" 2>/dev/null; rm -rf "$W"' EXIT INT TERM

# ---- unit tests ----
sub_tap unit "$B/unit_test" "$D" "$E" "$B/fakevmlinux" "$B/usym_pie" "$B/usym_nopie" "$B/usym_strip" \
	"$B/mapsymprog"
# prf daemon's per-function series, interval by interval: the newcomer at
# the bound, staleness, churn, the sums (tests/series_test.c)
sub_tap series "$B/series_test"
# ---- debug files from a debuginfod server (tests/debuginfod_tests.sh) ----
. "$T/debuginfod_tests.sh"

# ---- the command line ----
P=$B/prf
run 0 "prf --help" "$P" --help
run 1 "prf with no command: exit 1" "$P"
[ ! -s "$W/out" ] && grep -q "^Usage: prf COMMAND" "$W/err"
ok $? "prf with no command: the usage on stderr, nothing on stdout"
run 0 "prf help (no command): the general help" "$P" help
grep -q "^Usage: prf COMMAND" "$W/out"
ok $? "prf help prints the general help"
run 2 "prf help bogus" "$P" help bogus
run 2 "prfpr --bogus" "$B/prfpr" --bogus
[ ! -s "$W/out" ] && grep -q "Try 'prfpr --help'" "$W/err"
ok $? "a usage error goes to stderr alone"
# Output errors: exit 1 and said, for help, tables and reports alike.
for args in "--help" "help pr" "pr --help" "--version"; do
	run 1 "prf $args >/dev/full" sh -c "\"\$0\" $args >/dev/full" "$P"
	grep_err "write error on standard output: No space left on device" \
		"prf $args >/dev/full: the write error said"
done
run 1 "prfld --dry-run >/dev/full" sh -c '"$0" --dry-run --kallsyms "$1" --proc-modules "$2" "$1" >/dev/full' \
	"$B/prfld" "$D/kallsyms.txt" "$D/modules.txt"
grep_err "prfld: write error on standard output" "prfld --dry-run >/dev/full: said"
run 2 "prf bogus is a usage error" "$P" bogus
run 0 "prf --version" "$P" --version
for c in ld stat snap dc pr record top clear cfi; do
	run 0 "prf $c --help" "$P" $c --help
	grep -q "Usage: prf $c" "$W/out"
	ok $? "prf $c --help prints its usage"
	cp "$W/out" "$W/help.$c"
	run 0 "prf help $c" "$P" help $c
	same "$W/out" "$W/help.$c" "prf help $c prints what prf $c --help does"
done
# One option letter, one meaning: every "-X, --long" of every command's help.
for c in ld stat snap dc pr record top clear cfi; do
	sed -n 's/^ *\(-[A-Za-z0-9]\), \(--[a-z-]*\).*/\1 \2/p' "$W/help.$c"
done | sort -u >"$W/letters"
awk '{ n[$1]++ } END { for (l in n) if (n[l] > 1) print l }' "$W/letters" >"$W/clash"
[ -s "$W/letters" ] && [ ! -s "$W/clash" ]
ok $? "each short option means one thing in every command"
[ -s "$W/clash" ] && grep -F -f "$W/clash" "$W/letters" | diag
for pair in "-z --hz" "-l --list" "-n --count" "-c --cutoff" "-q --quiet" "-m --modules"; do
	set -- $pair
	[ "$(grep -c -- "^$1 $2\$" "$W/letters")" = 1 ]
	ok $? "option letter $1: $2"
done
run 2 "prf top -l is gone (--lines)" "$P" top -l 5
run 2 "prfld -n is gone (--dry-run)" "$B/prfld" -n
for c in prfld prfstat prfsnap prfdc prfpr; do
	run 0 "$c --help (link to prf)" "$B/$c" --help
	grep -q "^Usage: $c " "$W/out"
	ok $? "$c selects its command from argv[0]"
	run 2 "$c --no-such-option" "$B/$c" --no-such-option
	printf "%s: unrecognized option '--no-such-option'\nTry '%s --help'.\n" "$c" "$c" >"$W/want"
	same "$W/err" "$W/want" "$c --no-such-option: said once, as $c (not its path), and the help"
done
# The same for every command of prf, and a short option, and a missing argument.
for c in ld stat snap dc pr record top clear annotate daemon cfi; do
	run 2 "prf $c -Q" "$P" $c -Q
	printf "prf %s: invalid option -- 'Q'\nTry 'prf %s --help'.\n" "$c" "$c" >"$W/want"
	same "$W/err" "$W/want" "prf $c -Q: said once, as prf $c, and the help"
done
run 2 "prfpr --from (no argument)" "$B/prfpr" --from
printf "prfpr: option '--from' requires an argument\nTry 'prfpr --help'.\n" >"$W/want"
same "$W/err" "$W/want" "prfpr --from: the missing argument said once"
run 2 "prfstat maybe: usage error" "$B/prfstat" -f "$W/none" maybe
run 2 "prfld --step 0: usage error" "$B/prfld" --step 0
run 2 "prfdc with a bad off_hour" "$B/prfdc" "$W/x" 10 25
run 2 "prf record without a command" "$P" record
run 2 "prf record --unwind dwarf" "$P" record -g --unwind dwarf -- true
grep_err "prf record: --unwind dwarf: want cfi or fp" "prf record --unwind: the ways it knows said"
for v in 0 65 x; do
	run 2 "prf record --unwind-max $v" "$P" record -g --unwind-max $v -- true
	grep_err "prf record: --unwind-max $v: want MiB 1..64" "prf record --unwind-max $v: the range said"
done
run 2 "prf top -n 0" "$P" top -n 0

run 1 "prfld on a missing device" "$B/prfld" -f "$W/nodev"
grep_err "$W/nodev: No such file or directory" "prfld names the device and strerror"
run 1 "prfstat on a missing device" "$B/prfstat" -f "$W/nodev"
run 1 "prfsnap on a missing device" "$B/prfsnap" -f "$W/nodev" "$W/s.prf"
: >"$W/regular"
run 1 "prfstat on a regular file (not a prf device)" "$B/prfstat" -f "$W/regular"
grep_err "Inappropriate ioctl" "prfstat says ENOTTY in words"

KS="--kallsyms $D/kallsyms.txt --proc-modules $D/modules.txt"
run 0 "prfld -n kallsyms fixture" "$B/prfld" --dry-run $KS "$D/kallsyms.txt"
same "$W/out" "$E/table_kallsyms.txt" "prfld -n prints the expected table"
run 0 "prfld -n System.map fixture" "$B/prfld" --dry-run $KS -m kernel "$D/System.map"
head -6 "$E/table_kallsyms.txt" >"$W/kernel.txt"
same "$W/out" "$W/kernel.txt" "System.map with the KASLR offset gives the kernel part"
run 0 "prfld -n ELF vmlinux" "$B/prfld" --dry-run --kallsyms "$D/elf_kallsyms.txt" "$B/fakevmlinux"
grep -q "^ffffffff9a000000 function kernel f_one$" "$W/out"
ok $? "vmlinux: f_one relocated to the running _text"
tail -1 "$W/out" | grep -q "sentinel kernel"
ok $? "vmlinux: ends with the _etext sentinel"
run 0 "prfld -n --step" "$B/prfld" --dry-run $KS --step 0x400 "$D/kallsyms.txt"
cat >"$W/step.txt" <<'X'
ffffffff9a000000 bucket kernel -
ffffffff9a000400 bucket kernel -
ffffffff9a000800 bucket kernel -
ffffffff9a000c00 bucket kernel -
ffffffff9a001000 sentinel kernel -
X
same "$W/out" "$W/step.txt" "--step 0x400 over the kernel's text"
run 0 "prfld -n --step --range by names" "$B/prfld" --dry-run $KS --step 0x100 --range alpha-gamma "$D/kallsyms.txt"
[ "$(wc -l <"$W/out")" -eq 3 ] && head -1 "$W/out" | grep -q ffffffff9a000110
ok $? "--range alpha-gamma: two buckets and the end"
run 0 "prfld -n -m kvm --step 0x400" "$B/prfld" --dry-run $KS -m kvm --step 0x400 "$D/kallsyms.txt"
printf 'ffffffffc0003000 bucket kernel -\nffffffffc0003400 bucket kernel -\nffffffffc0003800 bucket kernel -\nffffffffc0003c00 bucket kernel -\nffffffffc0004000 sentinel kernel -\n' >"$W/kvmstep.txt"
same "$W/out" "$W/kvmstep.txt" "--step with -m: buckets over the module's text"
run 2 "--range without --step" "$B/prfld" --dry-run $KS --range 1-2 "$D/kallsyms.txt"
run 1 "prfld -m nosuch: too few addresses" "$B/prfld" --dry-run $KS -m nosuch "$D/kallsyms.txt"
grep_err "at least 3" "too few addresses said clearly"
run 1 "prfld refuses zeroed kallsyms" "$B/prfld" --dry-run --kallsyms "$D/zeroed_kallsyms.txt" "$D/zeroed_kallsyms.txt"
grep_err "kptr_restrict" "zeroed kallsyms: kptr_restrict named"
run 1 "prfld on a missing namelist" "$B/prfld" --dry-run $KS "$W/nonexistent.map"
grep_err "nonexistent.map: No such file" "missing namelist named with strerror"

# ---- prfpr on a fixture file ----
"$B/unit_test" --make-fixture "$W/fixture.prf"
ok $? "fixture snapshot file written"
cd "$W" || exit 1
run 0 "prfpr --from 2 --to 3" "$B/prfpr" --from 2 --to 3 fixture.prf
same "$W/out" "$E/report.txt" "prfpr text report as expected"
run 0 "prfpr --csv" "$B/prfpr" --csv --from 2 --to 3 fixture.prf
same "$W/out" "$E/report.csv" "prfpr --csv as expected"
run 0 "prfpr --json" "$B/prfpr" --json --from 2 --to 3 fixture.prf 1
same "$W/out" "$E/report.json" "prfpr --json as expected"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$W/out" >/dev/null 2>&1
	ok $? "prfpr --json is valid JSON"
fi
run 0 "prfpr --folded cutoff 0" "$B/prfpr" --folded --from 2 --to 3 fixture.prf 0
same "$W/out" "$E/report.folded" "prfpr --folded as expected"
# Percentages of kernel samples (1741: 1721 in the table + 20 outside) by
# default, of busy (+ 200 user) or all (+ 2000 idle) on request.
for of in "kernel 57.44 34.46 5.74 1.21 1741" "busy 51.52 30.91 5.15 1.08 1941" \
	"all 25.37 15.22 2.54 0.53 3941"; do
	set -- $of
	if [ "$1" = kernel ]; then
		run 0 "prfpr (percent of kernel samples by default)" "$B/prfpr" --from 2 --to 3 fixture.prf
	else
		run 0 "prfpr --of $1" "$B/prfpr" --of "$1" --from 2 --to 3 fixture.prf
	fi
	sed -n '5,9p;$p' "$W/out" | sed 's/ *#*$//' >"$W/of.got"
	w=$(printf '%%%s' "$1")
	cat >"$W/of.want" <<X
$(printf '%10s %7s  %-8s %s' samples "$w" function module)
      1000   $2  alpha    kernel
       600   $3  gamma    kernel
       100    $4  ext4_a   ext4
        21    $5  (3 more functions, each at or below 1.00%)
X
	case $1 in
	kernel) echo "%kernel: share of 1741 samples (kernel + outside); totals: share of all 3941" ;;
	busy) echo "%busy: share of 1941 samples (kernel + outside + user); totals: share of all 3941" ;;
	all) echo "%all: share of 3941 samples (all); totals: share of all 3941" ;;
	esac >>"$W/of.want"
	same "$W/of.got" "$W/of.want" "prfpr --of $1: rows, the line below the cutoff, what % is of"
	sed -n '/^kernel /,/^total /p' "$W/out" >"$W/of.tot"
	printf 'kernel           1721   43.67%%\nuser              200    5.07%%\nidle             2000   50.75%%\noutside            20    0.51%%  kernel PC outside every function (below the first address)\ntotal            3941  100.00%%\n' >"$W/of.totw"
	same "$W/of.tot" "$W/of.totw" "prfpr --of $1: the summary's kernel/user/idle split, of all"
done
run 2 "prfpr --of bogus" "$B/prfpr" --of bogus fixture.prf
grep_err "want kernel, busy or all" "--of bogus: said"
for k in "address alpha,beta,gamma,[outside kernel text],ext4_a,[outside ext4 text]" \
	"name [outside ext4 text],[outside kernel text],alpha,beta,ext4_a,gamma" \
	"module ext4_a,[outside ext4 text],alpha,gamma,beta,[outside kernel text]" \
	"samples alpha,gamma,ext4_a,beta,[outside kernel text],[outside ext4 text]"; do
	run 0 "prfpr --sort ${k%% *}" "$B/prfpr" --sort "${k%% *}" --csv -c 0 --from 2 --to 3 fixture.prf
	[ "$(awk -F, '$6 != "total" && $6 != "kind" { printf "%s%s", s, $3; s = "," }' "$W/out")" = "${k#* }" ]
	ok $? "prfpr --sort ${k%% *}: ${k#* }"
done
run 2 "prfpr --sort bogus" "$B/prfpr" --sort bogus fixture.prf
run 0 "prfpr -m ext4 --folded" "$B/prfpr" -m ext4 --folded -c 0 --from 2 --to 3 fixture.prf
printf 'ext4;ext4_a 100\next4;[outside ext4 text] 1\n' >"$W/m.want"
same "$W/out" "$W/m.want" "prfpr -m ext4: the module's rows alone"
run 0 "prfpr --module kernel,ext4 -c 5" "$B/prfpr" --module kernel,ext4 -c 5 --from 2 --to 3 fixture.prf
grep -q "^        21    1.21  (3 more functions, each at or below 5.00%)" "$W/out" &&
	[ "$(grep -c '#$' "$W/out")" = 3 ]
ok $? "prfpr --module kernel,ext4 -c 5: three rows, one line for the three below"
run 0 "prfpr -m kvm" "$B/prfpr" -m kvm --from 2 --to 3 fixture.prf
grep -q "(no function above 1.00% of kernel samples)" "$W/out"
ok $? "prfpr -m kvm: no row, said"
for c in pr record top; do
	"$P" $c --help | grep -q -- "--of" && "$P" $c --help | grep -q -- "--sort" &&
		"$P" $c --help | grep -q -- "-m, --modules"
	ok $? "prf $c --help names --of, --sort, -m"
done
"$P" pr --help | grep -q "share of the kernel's samples"
ok $? "prf pr --help says what the percentage is of"
# ---- pprof export, read by go tool pprof (golang-go) ----
# pprof_rows FILE [ARGS]: "name flat" lines of go tool pprof -top, sorted.
pprof_rows() {
	f=$1
	shift
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" "$f" 2>"$W/pp.err" |
		awk 'f { $2 = $3 = $4 = $5 = ""; sub(/^ +/, "", $0); n = $1; $1 = "";
			 sub(/^ +/, "", $0); print $0 " " n } / flat +flat% / { f = 1 }' | LC_ALL=C sort
}
# csv_rows ARGS: "name samples" of prfpr --csv -c 0 (functions, user, idle, outside), sorted.
csv_rows() {
	"$B/prfpr" --csv -c 0 "$@" | awk -F, '$6 != "total" && $6 != "rest" && NR > 1 { n[$3] += $1 }
		$3 == "[user]" || $3 == "[idle]" || $3 == "[outside]" { if ($1 != 0) n[$3] += $1 }
		END { for (f in n) print f " " n[f] }' | LC_ALL=C sort
}
# A user name from a stripped file's .dynsym alone (maybe the exported
# function below a static one) keeps its mark in every output.
"$B/unit_test" --make-dynsym "$W/dynsym.prf"
ok $? "dynsym: a fixture whose user row is 'qsort (dynsym)'"
"$B/prfpr" -c 0 dynsym.prf | grep -q ' qsort (dynsym) *libc\.so\.6 ' &&
	"$B/prfpr" --csv dynsym.prf | grep -qx '30,37.50,qsort (dynsym),libc.so.6,0x1129,function,busy,0,,qsort (dynsym)' &&
	"$B/prfpr" --json dynsym.prf | grep -q '{"function": "qsort (dynsym)", "module": "libc.so.6"' &&
	"$B/prfpr" --folded dynsym.prf | grep -qx 'libc.so.6;qsort (dynsym) 30' &&
	"$B/prfpr" --pprof dynsym.pb.gz dynsym.prf && gzip -dc dynsym.pb.gz | grep -aq 'qsort (dynsym)' &&
	"$B/prfpr" --html dynsym.html dynsym.prf && grep -q 'qsort (dynsym)' dynsym.html
ok $? "dynsym: text, CSV, JSON, folded, pprof and HTML name it 'qsort (dynsym)'"
run 0 "prfpr --pprof" "$B/prfpr" --pprof a.pb.gz --from 2 --to 3 fixture.prf
[ ! -s "$W/out" ] && [ "$(od -An -tx1 -N2 a.pb.gz | tr -d ' ')" = 1f8b ]
ok $? "prfpr --pprof: a gzip file, nothing on stdout"
run 0 "prfpr --pprof --all" "$B/prfpr" --pprof all.pb.gz --all fixture.prf
run 0 "prfpr --pprof --from 1 --to 2" "$B/prfpr" --pprof b.pb.gz --from 1 --to 2 fixture.prf
run 1 "prfpr --pprof /dev/full" "$B/prfpr" --pprof /dev/full --from 2 --to 3 fixture.prf
grep_err "/dev/full: No space left on device" "prfpr --pprof: a write error said"
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	export HOME="$W" PPROF_TMPDIR="$W" PPROF_BINARY_PATH="$W/none"
	for x in "a --from 2 --to 3" "all --all" "b --from 1 --to 2"; do
		set -- $x
		f=$1.pb.gz
		shift
		pprof_rows "$f" >"$W/pp.rows"
		csv_rows "$@" fixture.prf >"$W/csv.rows"
		[ -s "$W/pp.rows" ]
		ok $? "go tool pprof -top reads $f ($(wc -l <"$W/pp.rows") rows)"
		same "$W/pp.rows" "$W/csv.rows" "go tool pprof -top $f: every function's samples as prfpr's"
	done
	go tool pprof -top -sample_index=cpu a.pb.gz >"$W/out" 2>&1
	grep -q "Duration: 60s, Total samples = 39.41s" "$W/out"
	ok $? "go tool pprof -sample_index=cpu: 3941 samples x 10 ms, over 60 s"
	go tool pprof -raw a.pb.gz >"$W/raw" 2>&1
	grep -q "^PeriodType: cpu nanoseconds$" "$W/raw" && grep -q "^Period: 10000000$" "$W/raw" &&
		grep -q "^samples/count\[dflt\] cpu/nanoseconds$" "$W/raw" &&
		grep -q "^Duration: 1m0s$" "$W/raw" &&
		grep -q "^ *1000 10000000000: [0-9]* $" "$W/raw"
	ok $? "go tool pprof -raw: sample types, period, duration, values"
	grep -q "^1: 0xffffffff9a000000/0xffffffff9a000301/0x0 \[kernel.kallsyms\]  \[FN\]$" "$W/raw" &&
		grep -q "^2: 0xffffffff9b000400/0xffffffff9b000601/0x0 ext4  \[FN\]$" "$W/raw" &&
		grep -q "^3: .* \[user\]  \[FN\]$" "$W/raw" &&
		grep -q "0xffffffff9b000400 M=2 ext4_a " "$W/raw"
	ok $? "go tool pprof -raw: a mapping for the kernel, ext4 and user; named locations"
	pprof_rows a.pb.gz -diff_base b.pb.gz >"$W/pp.rows"
	csv_rows --from 1 --to 2 fixture.prf | sed 's/^/- /' >"$W/base.rows"
	csv_rows --from 2 --to 3 fixture.prf | sed 's/^/+ /' | cat "$W/base.rows" - |
		awk '{ s = $1; v = $NF; $1 = $NF = ""; gsub(/^ +| +$/, "", $0);
		       d[$0] += (s == "+" ? v : -v) }
		     END { for (x in d) if (d[x] != 0) print x " " d[x] }' |
		LC_ALL=C sort >"$W/diff.rows"
	same "$W/pp.rows" "$W/diff.rows" "go tool pprof -diff_base: the differences of two exports"
else
	skip "go tool pprof reads prfpr --pprof" "go not installed (scripts/deps.sh installs golang-go)"
fi
# ---- prfpr --diff ----
run 0 "prfpr --diff 1:2 --from 2 --to 3 -c 0" "$B/prfpr" --diff 1:2 --from 2 --to 3 -c 0 fixture.prf
cat >"$W/diff.want" <<'X'
base fixture.prf: snapshots 1 to 2, 978 kernel samples
new  fixture.prf: snapshots 2 to 3, 1741 kernel samples

  base%    new%    delta   ratio  function              module
  30.67    0.57   -30.10    0.02  beta                  kernel
  10.22   34.46   +24.24    3.37  gamma                 kernel
  51.12   57.44    +6.31    1.12  alpha                 kernel
   4.09    5.74    +1.65    1.40  ext4_a                ext4
   2.04    0.57    -1.47    0.28  [outside kernel text] kernel
   0.51    0.00    -0.51    0.00  ext4_b                ext4
   0.31    0.06    -0.25    0.19  [outside ext4 text]   ext4
%: share of each report's kernel samples; delta in points; ratio new/base
X
same "$W/out" "$W/diff.want" "prfpr --diff: shares, delta, ratio, largest change first"
run 0 "prfpr --diff 1:2 (cutoff 1)" "$B/prfpr" --diff 1:2 --from 2 --to 3 fixture.prf
tail -2 "$W/out" | head -1 | grep -qx "(2 more functions, at or below 1.00% in both)"
ok $? "prfpr --diff: the rows below the cutoff in both, counted"
cp fixture.prf other.prf
run 0 "prfpr --diff other.prf:1:2 --csv (two files)" "$B/prfpr" --diff other.prf:1:2 --from 2 --to 3 --csv fixture.prf
cat >"$W/diff.want" <<'X'
base_samples,new_samples,base_percent,new_percent,delta,ratio,function,module,percent_of
300,10,30.67,0.57,-30.10,0.02,beta,kernel,kernel
100,600,10.22,34.46,+24.24,3.37,gamma,kernel,kernel
500,1000,51.12,57.44,+6.31,1.12,alpha,kernel,kernel
40,100,4.09,5.74,+1.65,1.40,ext4_a,ext4,kernel
20,10,2.04,0.57,-1.47,0.28,[outside kernel text],kernel,kernel
X
same "$W/out" "$W/diff.want" "prfpr --diff FILE:I:J --csv: the other file's pair as the base"
run 0 "prfpr --diff --json --of all" "$B/prfpr" --diff other.prf:1:2 --to 3 --json --of all fixture.prf
grep -q '"base": {"file": "other.prf", "from": 1, "to": 2, "percent_base": 1978}' "$W/out" &&
	grep -q '"function": "gamma", "module": "kernel", "base_samples": 100, "new_samples": 600, "base_percent": 5.06, "new_percent": 15.22, "delta": 10.17, "ratio": 3.01' "$W/out"
ok $? "prfpr --diff --json --of all: the base file, shares of all samples"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$W/out" >/dev/null 2>&1
	ok $? "prfpr --diff --json is valid JSON"
fi
# two.prf: fixture.prf without its last record (3 snapshots: the last two are 2 and 3).
end=0
for i in 1 2 3 4; do
	end=$((end + 16 + $(od -An -tu4 -j $((end + 8)) -N4 fixture.prf)))
done
head -c "$end" fixture.prf >two.prf
run 0 "prfpr --diff two.prf (its last two) -m ext4" "$B/prfpr" --diff two.prf --to 3 -m ext4 -c 0 fixture.prf
[ "$(grep -c ' ext4$' "$W/out")" = 2 ] && grep -q '^   5.74    5.74    +0.00    1.00  ext4_a ' "$W/out" && ! grep -q ' kernel$' "$W/out"
ok $? "prfpr --diff -m ext4: the module's rows alone"
# one.prf: the table and snapshot 1 alone, as prf record writes a file.
end=0
for i in 1 2; do
	end=$((end + 16 + $(od -An -tu4 -j $((end + 8)) -N4 fixture.prf)))
done
head -c "$end" fixture.prf >one.prf
run 0 "prfpr --diff one.prf (its only snapshot, since the load)" "$B/prfpr" --diff one.prf --from 1 --to 2 -c 0 fixture.prf
grep -q '^base one.prf: snapshot 1 from the load, 0 kernel samples$' "$W/out" &&
	grep -q '^   0.00   51.12   +51.12     new  alpha ' "$W/out"
ok $? "prfpr --diff one.prf: counted from the load"
run 1 "prfpr --diff one.prf:1:2" "$B/prfpr" --diff one.prf:1:2 fixture.prf
run 2 "prfpr --diff 1:x" "$B/prfpr" --diff 1:x fixture.prf
grep_err "want I:J, FILE or FILE:I:J" "prfpr --diff with a bad BASE: said"
# --diff --folded: every path of either pair once, "path BASE NEW", the
# counts those of each pair's own --folded, the largest change first.
run 0 "prfpr --diff 1:2 --from 2 --to 3 --folded" "$B/prfpr" --diff 1:2 --from 2 --to 3 --folded fixture.prf
cp "$W/out" "$W/dfold.out"
"$B/prfpr" --folded -c 0 --from 1 --to 2 fixture.prf >"$W/dfold.a"
"$B/prfpr" --folded -c 0 --from 2 --to 3 fixture.prf >"$W/dfold.b"
awk 'FNR == 1 { k++ } { c = $NF; $NF = ""; sub(/ $/, ""); n[$0, k] = c; p[$0] = 1 }
     END { for (x in p) print x " " (n[x, 1] + 0) " " (n[x, 2] + 0) }' "$W/dfold.a" "$W/dfold.b" |
	LC_ALL=C sort >"$W/dfold.want"
LC_ALL=C sort "$W/dfold.out" >"$W/dfold.got"
same "$W/dfold.got" "$W/dfold.want" "prfpr --diff --folded: each path once with its count in the base pair and in the new"
awk '{ d = $NF - $(NF - 1); d = d < 0 ? -d : d; if (NR > 1 && d > last) bad = 1; last = d }
     END { exit bad || NR < 5 }' "$W/dfold.out"
ok $? "prfpr --diff --folded: the largest change first ($(wc -l <"$W/dfold.out") paths)"
grep -q '^kernel;beta 300 10$' "$W/dfold.out"
ok $? "prfpr --diff --folded: no cutoff (beta, 0.57 % in the new, has its 300 samples in the base and 10 in the new)"
run 2 "prfpr --diff with --pprof" "$B/prfpr" --diff 1:2 --pprof "$W/x.pb" fixture.prf
grep_err "goes with the text, --csv, --json and --folded reports alone" "prfpr --diff with --pprof: said"
run 1 "prfpr --diff missing.prf" "$B/prfpr" --diff missing.prf --to 3 fixture.prf
grep_err "missing.prf: No such file" "prfpr --diff: a missing base file said"
run 1 "prfpr default pair (3, 4) crosses a clear" "$B/prfpr" fixture.prf
grep_err "cleared or reloaded" "a clear between the snapshots is said"
run 0 "prfpr --from -4 --to -2 (from the end)" "$B/prfpr" --from -4 --to -2 fixture.prf
run 0 "prfpr --since-load --to 2" "$B/prfpr" --since-load --to 2 fixture.prf
run 2 "prfpr -z: not a letter of prfpr (-z is --hz)" "$B/prfpr" -z fixture.prf
run 0 "prfpr --list" "$B/prfpr" --list fixture.prf
grep -q "4 snapshots, 1 table" "$W/out"
ok $? "prfpr --list counts snapshots and tables"
run 0 "prfpr with a namelist renames" "$B/prfpr" --from 2 --to 3 fixture.prf 1 "$D/kallsyms.txt"
grep -q "startup_64" "$W/out"
ok $? "prfpr NAMELIST: names from the namelist"
run 0 "prfpr -f /dev/prf (the fixture's device)" "$B/prfpr" -f /dev/prf --from 2 --to 3 fixture.prf
same "$W/out" "$E/report.txt" "prfpr -f keeps the device's snapshots"
run 1 "prfpr -f /dev/prf3: no snapshot of that device" "$B/prfpr" -f /dev/prf3 fixture.prf
grep_err "0 snapshots" "prfpr -f: none of that device said"
run 2 "prfpr bad cutoff" "$B/prfpr" fixture.prf abc
head -c 600 fixture.prf >one.prf
"$B/unit_test" --make-fixture two.prf
head -c "$(($(wc -c <fixture.prf) - 1))" fixture.prf >cut.prf
run 0 "prfpr on a file whose last record is torn" "$B/prfpr" --from 2 --to 3 cut.prf
grep_err "^prfpr: cut.prf: record 5 at offset [0-9]* is torn ([0-9]* bytes: a write that did not complete): skipped; the 3 snapshots before it are read$" \
	"torn last record: said on stderr, with what was read"
sed 's/^cut.prf:/fixture.prf:/' "$W/out" >"$W/cut.out"
same "$W/cut.out" "$E/report.txt" "torn last record: the report of the good ones"
# Cut at every byte of the last record: the 3 snapshots before it, always.
last=0 pos=0 size=$(wc -c <fixture.prf)
while [ "$pos" -lt "$size" ]; do
	last=$pos
	pos=$((pos + 16 + $(od -An -tu4 -j $((pos + 8)) -N4 fixture.prf)))
done
bad=0 cuts=0 cut=$((last + 1))
while [ "$cut" -lt "$size" ]; do
	head -c "$cut" fixture.prf >torn.prf
	"$B/prfpr" --list torn.prf >"$W/out" 2>"$W/err" &&
		grep -q "torn.prf: 3 snapshots, 1 table" "$W/out" &&
		grep -q "record 5 at offset $last is torn ($((cut - last)) bytes" "$W/err" ||
		{ bad=$((bad + 1)); echo "# cut at $cut: $(cat "$W/err")"; }
	cuts=$((cuts + 1))
	cut=$((cut + 1))
done
[ "$bad" -eq 0 ] && [ "$cuts" -gt 50 ]
ok $? "prfpr --list, the last record cut at each of its $cuts bytes: 3 snapshots read, the tear said"
head -c "$last" fixture.prf >clean.prf
run 0 "prfpr --list on the file cut at a record's end" "$B/prfpr" --list clean.prf
[ ! -s "$W/err" ]
ok $? "a file cut between records is not torn: nothing said"
# Version 1 (tests/data/fixture_v1.prf, written by prf 1.0): still read.
cp "$D/fixture_v1.prf" v1.prf
[ "$(od -An -tu2 -j4 -N2 v1.prf | tr -d ' ')" = 1 ]
ok $? "fixture_v1.prf is a version 1 file"
run 0 "prfpr on a version 1 file" "$B/prfpr" --from 2 --to 3 v1.prf
sed 's/^v1.prf:/fixture.prf:/' "$W/out" >"$W/v1.out"
same "$W/v1.out" "$E/report.txt" "version 1 file: the same report as version 2"
[ "$(wc -c <fixture.prf)" -lt "$(wc -c <v1.prf)" ]
ok $? "version 2 is smaller than version 1 ($(wc -c <fixture.prf) < $(wc -c <v1.prf) bytes)"
cp fixture.prf flip.prf
printf 'X' | dd of=flip.prf bs=1 seek=720 conv=notrunc 2>/dev/null
run 1 "prfpr on a corrupt file" "$B/prfpr" flip.prf
grep_err "flip.prf: corrupt: CRC32 mismatch" "corrupt file: named and said"
run 1 "prfpr on a missing file" "$B/prfpr" missing.prf
grep_err "missing.prf: No such file" "missing file: named with strerror"
# A file with a single snapshot: the table record and the first snapshot.
python3 - fixture.prf single.prf <<'X' 2>/dev/null || cp "$E/report.txt" single.prf
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos, out = 0, b''
for _ in range(2):
    l = struct.unpack_from('<I', b, pos + 8)[0]
    out += b[pos:pos + 16 + l]
    pos += 16 + l
open(sys.argv[2], 'wb').write(out)
X
# As prf record writes a file: reported from the load, as --since-load, said.
run 0 "prfpr with one snapshot" "$B/prfpr" single.prf
"$B/prfpr" --since-load single.prf >"$W/zero.out" 2>&1
same "$W/out" "$W/zero.out" "one snapshot: the report since the load (as --since-load)"
[ "$(head -n 1 "$W/out")" = "single.prf: snapshot 1, counted from the load or clear" ] && [ ! -s "$W/err" ]
ok $? "one snapshot: the header says it counts from the load"
run 1 "prfpr --to 1 with one snapshot: a pair asked" "$B/prfpr" --to 1 single.prf
grep_err "a report needs two" "one snapshot and --to: says two are needed"
# A daemon's store: its last hour by default (5 h at 10 min: snapshots 25 to
# 31), or all of it when shorter; said in the text header; --from as before.
mkdir week short
"$B/unit_test" --make-series week/seg-1795000000.prf 31 600 &&
	"$B/unit_test" --make-series short/seg-1795000000.prf 4 600
ok $? "two stores written (5 h and 30 min, every 10 min)"
run 0 "prfpr DIR (a store of 5 h)" "$B/prfpr" week
"$B/prfpr" --from 25 --to 31 week | sed '1s/^week:/week (the last hour):/' >"$W/hour.want"
same "$W/out" "$W/hour.want" "prfpr DIR: its last hour, snapshots 25 to 31, said in the header"
sed -n 3p "$W/out" | grep -q ": 3600.00 s, sampling on 3600.00 s$"
ok $? "prfpr DIR: the last hour spans 3600 s"
run 0 "prfpr DIR (a store of 30 min)" "$B/prfpr" short
[ "$(head -n 1 "$W/out")" = "short (the whole store): snapshots 1 to 4" ]
ok $? "prfpr DIR shorter than an hour: the whole store, said"
run 0 "prfpr --csv DIR" "$B/prfpr" --csv week
"$B/prfpr" --csv --from 25 week >"$W/hour.want"
same "$W/out" "$W/hour.want" "prfpr --csv DIR: the last hour too, the format untouched"
# A guest's kernel with no hostname set names it "(none)": said in words.
"$B/unit_test" --make-series nohost.prf 2 60 "(none)"
run 0 "prfpr on a host with no name" "$B/prfpr" nohost.prf
sed -n 2p "$W/out" | grep -q "^device /dev/prf (all CPUs, 2 covered; 2 online) on a host with no name set, Linux "
ok $? "prfpr: an unset hostname, (none), said as such in the header"
run 0 "prfpr --html on a host with no name" "$B/prfpr" --html nohost.html nohost.prf
grep -q " on a host with no name set, Linux " nohost.html && ! grep -q "(none)" nohost.html
ok $? "prfpr --html: the same words"
run 0 "prfpr --from -2 DIR" "$B/prfpr" --from -2 week
[ "$(head -n 1 "$W/out")" = "week: snapshots 30 to 31" ]
ok $? "prfpr --from -2 DIR: the pair asked, as before"
cd - >/dev/null || exit 1

# ---- the device commands on a stand-in device (tests/fakeprf.c, LD_PRELOAD) ----
# The fake's state is the text file $F ("on 0", "flags 1", ...); $FL logs each
# call that changes it (LOAD n, SETSTATE 0|1, SETHZ n, SETFLAGS n, CLEAR).
mkdir "$W/fake"
F=$W/fake/prf
FL=$W/fake/log
# (max: the module's default is 2^20; 65536 holds prfld -p's table of a
# sleep, its C library named by the host's debug file: 4120 entries with
# the PLTs' in 2026-11)
printf 'on 0\nhz 100\nflags 0\nmax 65536\nversion 2\naddrs 0\n' >"$F"
FK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$F FAKEPRF_LOG=$FL"
key() { awk -v k="$1" '$1 == k { print $2 }' "$F"; }
setdev() {	# setdev ON FLAGS [VERSION]: the fake's state (version 2 by default); a fresh log
	sed -i -e "s/^on .*/on $1/" -e "s/^flags .*/flags $2/" \
		-e "s/^version .*/version ${3:-2}/" "$F"
	: >"$FL"
}
logged() {	# logged EXPECTED DESCRIPTION: the calls made, in order
	printf '%s\n' "$1" | sed '/^$/d' >"$W/fake/want"
	same "$FL" "$W/fake/want" "$2"
}
flags_are() {	# flags_are N DESCRIPTION
	[ "$(key flags)" = "$1" ]
	ok $? "$2 (flags $(key flags))"
}
# Flags: 1 PRF_FLAG_JITTER (obsolete, the default), 2 PRF_FLAG_FIXED,
# 4 PRF_FLAG_ISOLATED.  A version 1 device knows only 1, and exact periods
# are its default.
run 0 "fake device: prfstat shows it" $FK "$B/prfstat" -f "$F"
grep -q "flags  *none" "$W/out"
ok $? "fake device: flags none at first"
grep -q "sampling  *randomized" "$W/out"
ok $? "fake device: randomized sampling at first"
run 1 "prfstat on without a table" $FK "$B/prfstat" -f "$F" on
grep_err "no table loaded" "prfstat on: no table said"
flags_are 0 "prfstat on without a table leaves the flags"
run 0 "prfld into the fake device" $FK "$B/prfld" -q -f "$F" $KS "$D/kallsyms.txt"
setdev 0 0
run 0 "prfstat -v on (OFF, flags 0)" $FK "$B/prfstat" -v -f "$F" on
logged "SETSTATE 1" "prfstat on: the device's default (stratified) needs no flag"
grep -q "flags  *none" "$W/out" && grep -q "sampling  *randomized" "$W/out"
ok $? "prfstat on says flags none, sampling randomized"
setdev 0 3
run 0 "prfstat on (flags JITTER|FIXED)" $FK "$B/prfstat" -q -f "$F" on
logged "SETFLAGS 0
SETSTATE 1" "prfstat on: back to the default, set before switching on"
setdev 0 4
run 0 "prfstat -v --fixed on (flags ISOLATED)" $FK "$B/prfstat" -v -f "$F" --fixed on
logged "SETFLAGS 6
SETSTATE 1" "prfstat --fixed on: PRF_FLAG_FIXED, other flags kept"
grep -q "flags  *fixed isolated" "$W/out" && grep -q "sampling  *fixed periods" "$W/out"
ok $? "prfstat --fixed on says flags fixed isolated, fixed periods"
setdev 0 0
run 0 "prfstat --no-jitter on (flags 0)" $FK "$B/prfstat" -q -f "$F" --no-jitter on
logged "SETFLAGS 2
SETSTATE 1" "prfstat --no-jitter on: the same as --fixed"
[ "$(key on)" = 1 ] && [ "$(key flags)" = 2 ]
ok $? "prfstat --no-jitter on: ON with flags 2"
setdev 0 2
run 0 "prfstat --jitter on (flags 2)" $FK "$B/prfstat" -q -f "$F" --jitter on
flags_are 0 "prfstat --jitter on: still accepted, the default"
setdev 1 0
run 0 "prfstat on while ON" $FK "$B/prfstat" -q -f "$F" on
logged "SETSTATE 1" "prfstat on while ON: sets no flags"
setdev 0 0
run 0 "prfstat (state)" $FK "$B/prfstat" -f "$F"
run 0 "prfstat --hz 200" $FK "$B/prfstat" -q -f "$F" --hz 200
logged "SETHZ 200" "prfstat and prfstat --hz do not touch the flags"
setdev 1 0
run 0 "prfstat off" $FK "$B/prfstat" -f "$F" off
logged "SETSTATE 0" "prfstat off does not touch the flags"
[ "$(cat "$W/out")" = "$F: sampling OFF, table loaded" ]
ok $? "prfstat off: one line to confirm it"
run 0 "prfstat on" $FK "$B/prfstat" -f "$F" on
[ "$(cat "$W/out")" = "$F: sampling ON, table loaded" ] && [ "$(key on)" = 1 ]
ok $? "prfstat on: one line to confirm it (the state with -v)"
run 0 "prfstat -q off" $FK "$B/prfstat" -q -f "$F" off
[ ! -s "$W/out" ]
ok $? "prfstat -q off: nothing printed"
setdev 0 0
run 0 "prfstat --fixed (no on)" $FK "$B/prfstat" -q -f "$F" --fixed
logged "SETFLAGS 2" "prfstat --fixed alone sets the flag it was told"
setdev 0 2
run 0 "prfstat --jitter (no on)" $FK "$B/prfstat" -q -f "$F" --jitter
logged "SETFLAGS 0" "prfstat --jitter alone clears PRF_FLAG_FIXED"
setdev 0 0 1
run 0 "prfstat on (version 1 device, flags 0)" $FK "$B/prfstat" --verbose -f "$F" on
logged "SETFLAGS 1
SETSTATE 1" "prfstat on, version 1 device: PRF_FLAG_JITTER, its way to randomize"
grep -q "sampling  *randomized" "$W/out"
ok $? "prfstat on, version 1 device: says randomized"
setdev 0 1 1
run 0 "prfstat --fixed on (version 1 device, flags 1)" $FK "$B/prfstat" -q -f "$F" --fixed on
logged "SETFLAGS 0
SETSTATE 1" "prfstat --fixed on, version 1 device: exact periods, its default"
setdev 0 0
# The sample budget (version 5): prfstat shows it; an ON past it is refused
# (ENOSPC) and said with the budget, the use and the module parameter.
setdev 0 0 5
run 0 "prfstat (version 5 device): the budget" $FK "$B/prfstat" -f "$F"
grep -q "^budget  *40000 samples/s per CPU, 0 in use (busiest CPU)" "$W/out"
ok $? "prfstat shows the sample budget and its use"
sed -i -e 's/^hz .*/hz 100/' -e 's/^addrs /budget 1000\nused 950\naddrs /' "$F"
run 1 "prfstat on past the sample budget" $FK "$B/prfstat" -f "$F" on
grep_err "cannot turn sampling on: 100 Hz would take a CPU past the sample budget, 1000 samples/s per CPU, of which 950 are in use" \
	"prfstat on: the budget and its use said"
grep_err "module parameter sample_budget (/sys/module/prf/parameters/sample_budget)" \
	"prfstat on: the module parameter named"
[ "$(key on)" = 0 ]
ok $? "prfstat on past the budget: still OFF"
run 1 "prfstat --hz 600 on past the sample budget" $FK "$B/prfstat" -f "$F" --hz 600 on
grep_err "600 Hz would take a CPU past" "prfstat --hz 600 on: the rate said"
run 0 "prfstat --hz 50 on, exactly the budget" $FK "$B/prfstat" -q -f "$F" --hz 50 on
[ "$(key on)" = 1 ]
ok $? "prfstat --hz 50 on: ON within the budget"
run 0 "prfstat off" $FK "$B/prfstat" -q -f "$F" off
# An event mode charges its PRF_CHARGE_*: said as such, not as the rate.
setdev 0 0 6
sed -i -e 's/^addrs /mode 4\naddrs /' "$F"
run 1 "prfstat on in the offcpu mode past the sample budget" $FK "$B/prfstat" -f "$F" on
grep_err "cannot turn sampling on: the offcpu mode (1000 samples/s) would take a CPU past the sample budget, 1000 samples/s per CPU, of which 950 are in use; turn another profile off" \
	"prfstat on, offcpu mode: its charge said"
[ "$(key on)" = 0 ]
ok $? "prfstat on in the offcpu mode past the budget: still OFF"
sed -i -e '/^mode /d' -e '/^depth /d' -e '/^scap /d' "$F"
sed -i -e '/^budget /d' -e '/^used /d' "$F"
setdev 0 0 6
# prfstat --user-objs and --user-chains: PRF_SETUOBJS while OFF, with the
# sizes given, else the table's own (none: the defaults); the status line
# as before without chains, their use appended with (a version 6 device:
# the whole status).  Bad input and ON are refused, saying why, and change
# nothing.
UC="$FK FAKEPRF_UOBJS=1 FAKEPRF_UCHAINS="
ukeys() { grep -E '^(on|ucap|ufiles|udepth) ' "$F" | tr '\n' ' '; }
uline() {	# uline EXPECTED-TAIL DESCRIPTION: the status's user objects line
	grep "^user objects" "$W/out" >"$W/uline"
	printf '%-15s %s\n' "user objects" "$1" >"$W/uline.want"
	same "$W/uline" "$W/uline.want" "$2"
}
run 0 "prfstat --user-objs 1000:100" $UC "$B/prfstat" -f "$F" --user-objs 1000:100
uline "entries 0/1000, files 0/100, lost 0, dropped 0, unmapped 0" \
	"prfstat --user-objs 1000:100: the user objects line, no chains"
logged "SETUOBJS 1000 100" "prfstat --user-objs 1000:100: the table set, without chains"
: >"$FL"
run 0 "prfstat --user-chains 8 (the table on)" $UC "$B/prfstat" -f "$F" --user-chains 8
uline "entries 0/1000, files 0/100, lost 0, dropped 0, unmapped 0; chains 0/1000 of 8 frames, dropped 0" \
	"prfstat --user-chains 8: the chains' use, capacity and depth after the table's"
logged "SETUOBJS 1000 100 chains 8" "prfstat --user-chains 8: the table's own sizes kept, chains of 8 frames"
for bad in 1 33 x -2 ""; do
	before=$(ukeys)
	: >"$FL"
	run 2 "prfstat --user-chains '$bad': refused" $UC "$B/prfstat" -f "$F" --user-chains "$bad"
	[ "$(head -n 1 "$W/err")" = "prfstat: --user-chains $bad: want DEPTH 2..32 (frames of a user call chain) or 0 (none)" ] &&
		[ ! -s "$FL" ] && [ "$(ukeys)" = "$before" ]
	ok $? "prfstat --user-chains '$bad': said, nothing set, the state as it was ($before)"
done
: >"$FL"
run 2 "prfstat --user-objs off --user-chains 8: refused" $UC "$B/prfstat" -f "$F" --user-objs off --user-chains 8
[ "$(head -n 1 "$W/err")" = "prfstat: --user-chains 8: chains are kept in the user objects table, which --user-objs off frees" ] &&
	[ ! -s "$FL" ]
ok $? "prfstat --user-objs off --user-chains 8: said, nothing set"
setdev 1 0 6
before=$(ukeys)
run 1 "prfstat --user-chains 4 while ON" $UC "$B/prfstat" -f "$F" --user-chains 4
[ "$(cat "$W/err")" = "prfstat: $F: PRF_SETUOBJS: Device or resource busy (sampling is ON: run 'prfstat -f $F off' first)" ] &&
	[ ! -s "$FL" ] && [ "$(ukeys)" = "$before" ]
ok $? "prfstat --user-chains 4 while ON: EBUSY said, the chains as they were ($before)"
run 0 "prfstat --user-chains 4 off (ON)" $UC "$B/prfstat" -q -f "$F" --user-chains 4 off
logged "SETSTATE 0
SETUOBJS 1000 100 chains 4" "prfstat --user-chains 4 off: OFF first, then the chains"
: >"$FL"
run 0 "prfstat --user-chains 0" $UC "$B/prfstat" -f "$F" --user-chains 0
uline "entries 0/1000, files 0/100, lost 0, dropped 0, unmapped 0" \
	"prfstat --user-chains 0: the line without chains again"
logged "SETUOBJS 1000 100" "prfstat --user-chains 0: chains off, the table kept"
: >"$FL"
run 0 "prfstat --user-objs 500:50 --user-chains 16" $UC "$B/prfstat" -q -f "$F" --user-objs 500:50 --user-chains 16
run 0 "prfstat --user-objs off" $UC "$B/prfstat" -q -f "$F" --user-objs off
logged "SETUOBJS 500 50 chains 16
SETUOBJS 0 0" "prfstat --user-objs 500:50 --user-chains 16: the sizes given; off frees"
: >"$FL"
run 0 "prfstat --user-chains 32, no table" $UC "$B/prfstat" -f "$F" --user-chains 32
logged "SETUOBJS 65536 4096 chains 32" "prfstat --user-chains 32 without a table: the default table"
run 0 "prfstat --user-objs 2000 (chains on)" $UC "$B/prfstat" -q -f "$F" --user-objs 2000
run 0 "prfstat --user-objs off" $UC "$B/prfstat" -q -f "$F" --user-objs off
logged "SETUOBJS 65536 4096 chains 32
SETUOBJS 2000 4096
SETUOBJS 0 0" "prfstat --user-objs 2000 with chains on: the table anew without chains, as before"
: >"$FL"
run 0 "prfstat --user-chains 0, no table" $UC "$B/prfstat" -f "$F" --user-chains 0
grep -q "^user objects  *off$" "$W/out"
ok $? "prfstat --user-chains 0 without a table: still none"
run 1 "prfstat --user-chains 8, a prf.ko without chains" $FK FAKEPRF_UOBJS=1 "$B/prfstat" -f "$F" --user-chains 8
[ "$(cat "$W/err")" = "prfstat: $F: --user-chains: this prf.ko has no user call chains" ]
ok $? "prfstat --user-chains 8, a prf.ko without chains: said"
run 1 "prfstat --user-chains 8, a prf.ko without the table" $FK "$B/prfstat" -f "$F" --user-chains 8
[ "$(cat "$W/err")" = "prfstat: $F: --user-chains: this prf.ko has no user objects table" ]
ok $? "prfstat --user-chains 8, a prf.ko without the table: said"
sed -i -e '/^ucap /d' -e '/^ufiles /d' -e '/^udepth /d' "$F"
setdev 0 0
# prf record: a private instance of its own (/dev/prfclone); /dev/prf untouched.
C=$W/fake/clone
FKC="$FK FAKEPRF_CLONE=$C"
ckey() { awk -v k="$1" '$1 == k { print $2 }' "$C"; }
clogged() {	# clogged EXPECTED DESCRIPTION: the private instance's calls (PIDs, sizes as X)
	sed -e 's/^clone //' -e 's/^\(SETFILTER [0-9]\) [0-9]*$/\1 X/' -e 's/^LOAD [0-9]*$/LOAD X/' \
		"$FL" >"$W/fake/got"
	printf '%s\n' "$1" | sed '/^$/d' >"$W/fake/want"
	same "$W/fake/got" "$W/fake/want" "$2"
}
shared_untouched() {	# shared_untouched DESCRIPTION: no call on /dev/prf, its state as before
	! grep -qv '^clone ' "$FL" && cmp -s "$F" "$W/fake/prf.before"
	ok $? "$1: /dev/prf untouched (no call, same state)"
}
setdev 1 2
cp "$F" "$W/fake/prf.before"
run 0 "prf record --no-cgroup -- true (/dev/prf ON, fixed)" $FKC "$P" record $KS --no-cgroup -- true
shared_untouched "prf record"
clogged "SETFILTER 1 X
LOAD X
SETFLAGS 8
SETSTATE 1
SETSTATE 0" "prf record: a task filter on the command, its table, PRF_FLAG_USERPC, on, off"
grep -q "no function above" "$W/out" && grep -q "^filtered  *0 " "$W/out"
ok $? "prf record on the fake prints its report and the filtered-out count"
# The table: the command's user functions first (libc's among them), then the kernel's.
tr ' ' '\n' <"$C" | awk '/^addrs$/ { on = 1; next } on' >"$W/fake/addrs"
first=$(sed -n 2p "$W/fake/addrs")
lastaddr=$(tail -n 1 "$W/fake/addrs")
nuser=$(awk 'length($1) < 16 || $1 < "8" { n++ } END { print n + 0 }' "$W/fake/addrs")
[ "$nuser" -gt 100 ] && [ ${#first} -lt 16 ] && [ "$lastaddr" = "$(tail -n 1 "$D/kallsyms.txt" | cut -d' ' -f1 | sed 's/^0*//')" -o ${#lastaddr} -eq 16 ]
ok $? "prf record: $nuser user addresses below the kernel's in the table"
awk '{ a = sprintf("%16s", $1); gsub(/ /, "0", a) } NR > 1 && a <= prev { bad = 1 } { prev = a } END { exit bad }' "$W/fake/addrs"
ok $? "prf record: the table is ascending"
: >"$FL"
run 0 "prf record --no-cgroup --hz 500 --fixed -- true" $FKC "$P" record $KS --no-cgroup --hz 500 --fixed -- true
clogged "SETHZ 500
SETFLAGS 2
SETFILTER 1 X
LOAD X
SETFLAGS 10
SETSTATE 1
SETSTATE 0" "prf record --hz 500 --fixed: rate and flags on its own instance"
shared_untouched "prf record --hz 500 --fixed"
: >"$FL"
# A command that cannot run: one line (the child's), no report, no file, the
# status a shell gives (127 not found, 126 not executable), both when the
# command is traced to its entry (the fake's default) and when it is not
# (a module with user objects; without, the older module's note comes first).
for u in "" FAKEPRF_UOBJS=1; do
	how=${u:+, user objects}
	run 127 "prf record -- /no/such/command$how" $FKC $u "$P" record $KS --no-cgroup \
		-o "$W/fake/x.prf" -- /no/such/command
	[ "$(grep -v '^prf record: note: ' "$W/err")" = \
		"prf record: /no/such/command: No such file or directory" ] &&
		[ ! -s "$W/out" ] && [ ! -e "$W/fake/x.prf" ]
	ok $? "prf record -- /no/such/command$how: one line said, no report, no file"
	run 126 "prf record -- a file not executable$how" $FKC $u "$P" record $KS --no-cgroup \
		-- "$D/kallsyms.txt"
	[ "$(grep -v '^prf record: note: ' "$W/err")" = \
		"prf record: $D/kallsyms.txt: Permission denied" ] && [ ! -s "$W/out" ]
	ok $? "prf record -- a file not executable$how: one line said, no report"
done
: >"$FL"
# The user objects table: an older module (the fake's default) said once, as before.
run 0 "prf record -- true, a module without user objects" $FKC "$P" record $KS --no-cgroup -- true
[ "$(grep -c "no user objects table (PRF_SETUOBJS: Invalid argument)" "$W/err")" -eq 1 ]
ok $? "prf record: an older prf.ko's missing user objects table said once"
: >"$FL"
run 0 "prf record -- true, a module with user objects" $FKC FAKEPRF_UOBJS=1 "$P" record $KS --no-cgroup -- true
clogged "SETUOBJS 65536 4096
SETFILTER 1 X
LOAD X
SETSTATE 1
SETSTATE 0" "prf record: the user objects table set (65536:4096), a kernel table, no USERPC"
[ "$(tail -n 1 "$W/out")" = "user objects: no user sample" ] && ! grep -q "program  *state" "$W/out" &&
	! grep -q "no user objects" "$W/err"
ok $? "prf record with user objects, no user sample: one line says so (no empty table), no note"
# A stripped program's user objects, its debug file asked of a debuginfod
# server that never answers (tests/debuginfod_tests.sh's dead_start): the
# per-program view and stderr each say once that the limit (1 s here)
# left the file unnamed.
if command -v python3 >/dev/null 2>&1; then
	dead_start
	: >"$FL"
	run 0 "prf record -- true, a stripped program's user objects, debuginfod not answering" \
		$FKC FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES="$B/usym_strip:1000:5" \
		DEBUGINFOD_URLS="http://127.0.0.1:$dport" DEBUGINFOD_TIMEOUT=1 \
		DEBUGINFOD_CACHE_PATH="$W/dcache" PRF_DEBUG_DIR="$W/none" \
		"$P" record $KS --no-cgroup -- true
	note="debuginfod: no answer within 1 s (DEBUGINFOD_TIMEOUT); 1 file left unnamed"
	[ "$(grep -cxF "$note" "$W/out")" -eq 1 ] && [ "$(grep -cxF "$note" "$W/err")" -eq 1 ]
	r=$?
	ok $r "prf record: the per-program view and stderr say once that the debuginfod limit left 1 file unnamed"
	[ $r -eq 0 ] || { diag "$W/out"; diag "$W/err"; }
	# prf top: each refresh under its table (the limit spent in the
	# first), and stderr once at the exit
	run 0 "prf top --user-objs -n 2, a stripped program's user objects, debuginfod not answering" \
		$FKC FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES="$B/usym_strip:1000:5" \
		DEBUGINFOD_URLS="http://127.0.0.1:$dport" DEBUGINFOD_TIMEOUT=1 \
		DEBUGINFOD_CACHE_PATH="$W/dcache2" PRF_DEBUG_DIR="$W/none" \
		"$P" top -f "$F" $KS --user-objs -n 2 -d 0.2 </dev/null
	[ "$(grep -cxF "$note" "$W/out")" -eq 2 ] && [ "$(grep -cxF "$note" "$W/err")" -eq 1 ]
	r=$?
	ok $r "prf top: each refresh says that the debuginfod limit left 1 file unnamed, stderr once"
	[ $r -eq 0 ] || { diag "$W/out"; diag "$W/err"; }
	kill "$dead" 2>/dev/null
	wait "$dead" 2>/dev/null
fi
# -g's text report: the top stacks (merged as folded lines, five at most,
# outermost frame first, indented by depth) after the totals, one line on
# the other views; no user call chains line when no chain was taken.
: >"$FL"
run 0 "prf record -g -- true, stacks" $FKC FAKEPRF_UOBJS=1 \
	FAKEPRF_STACKS="7:0:ffffffff9a000211,ffffffff9a000111;3:0:ffffffff9a000111,ffffffff9a000011;2:1:ffffffff9a000011;1:0:ffffffff9a000011;1:0:ffffffff9a000211;1:0:ffffffff9a000111;1:0:ffffffff9a000311" \
	"$P" record $KS --no-cgroup -g -- true
sed -n '/^filtered /,$p' "$W/out" >"$W/got"
cat >"$W/want" <<'X'
filtered            0  samples of other processes, left out by the filter

top call stacks (5 of 7, outermost frame first; 16 samples in stacks):
         7  43.75%  alpha
                      beta
         3  18.75%  startup_64
                      alpha
         2  12.50%  [truncated]
                      startup_64
         1   6.25%  alpha
         1   6.25%  beta
every stack: --folded (a flame graph's lines); a function's callers: --callers FUNC; a page: -o FILE, then prfpr --html OUT FILE

user objects: no user sample
X
same "$W/got" "$W/want" "prf record -g: the five top stacks, their frames indented, one line on --folded, --callers, --html; no empty table"
: >"$FL"
run 0 "prf record --user-objs 100:10 -- true" $FKC FAKEPRF_UOBJS=1 "$P" record $KS --user-objs 100:10 --no-cgroup -- true
grep -q "^clone SETUOBJS 100 10$" "$FL"
ok $? "prf record --user-objs 100:10: the table's size"
: >"$FL"
run 0 "prf record --no-user-objs -- true" $FKC FAKEPRF_UOBJS=1 "$P" record $KS --no-user-objs --no-cgroup -- true
! grep -q "SETUOBJS" "$FL" && grep -q "^clone SETFLAGS 8$" "$FL"
ok $? "prf record --no-user-objs: no table, the USERPC table as before"
# User objects named from a file whose functions have C++ and Rust mangled
# names (tests/data/cxxprog.c): demangled in every format, raw with
# --no-demangle; a user row's address is the function's offset in its file,
# with the file (and the raw symbol) beside it in CSV and JSON.
X=$B/cxxprog
foff() {	# foff SYMBOL: its file offset in $X, hex without 0x (objdump -F)
	objdump -d -F --disassemble="$1" "$X" 2>/dev/null |
		sed -n "s/^[0-9a-f]* <$1> (File Offset: 0x\([0-9a-f]*\)):\$/\1/p" | sed 's/^0*//'
}
OA=$(foff _Z18ggc_internal_allocmPFvPvEmm) OF=$(foff _ZN3prf5Table4findEPKc)
OR=$(foff _RNvCs1234_7mycrate3foo) OC=$(foff c_plain)
if [ -n "$OA" ] && [ -n "$OF" ] && [ -n "$OR" ] && [ -n "$OC" ]; then
	UE="$X:$OA:5,$X:$(printf %x $((0x$OA + 2))):2,$X:$OF:3,$X:$OR:4,$X:$OC:1,$X:1:1"
	FKU="$FKC FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES=$UE"
	run 0 "prf record -- true, C++ and Rust user objects" $FKU "$P" record $KS --no-cgroup -- true
	grep -q "  ggc_internal_alloc(unsigned long, void (\*)(void\*" "$W/out" &&
		grep -q "  prf::Table::find(char const\*) " "$W/out" && grep -q "  mycrate::foo " "$W/out" &&
		grep -q "  c_plain " "$W/out" && ! grep -q "_Z\|_RNv" "$W/out"
	ok $? "prf record: user functions demangled in the text report (C++, Rust), a C one as it is"
	run 0 "prf record --csv -- true, C++ and Rust user objects" $FKU "$P" record $KS --no-cgroup --csv -- true
	grep -q "^samples,percent,function,module,address,kind,percent_of,irq_reenable,file,symbol\$" "$W/out" &&
		grep -qx "7,[0-9.]*,\"ggc_internal_alloc(unsigned long, void (\*)(void\*), unsigned long, unsigned long)\",cxxprog,0x$OA,function,busy,0,$X,_Z18ggc_internal_allocmPFvPvEmm" "$W/out" &&
		grep -qx "3,[0-9.]*,prf::Table::find(char const\*),cxxprog,0x$OF,function,busy,0,$X,_ZN3prf5Table4findEPKc" "$W/out" &&
		grep -qx "4,[0-9.]*,mycrate::foo,cxxprog,0x$OR,function,busy,0,$X,_RNvCs1234_7mycrate3foo" "$W/out" &&
		grep -qx "1,[0-9.]*,c_plain,cxxprog,0x$OC,function,busy,0,$X,c_plain" "$W/out" &&
		grep -qx "1,[0-9.]*,\[cxxprog\],cxxprog,,unknown,busy,0,$X," "$W/out"
	ok $? "prf record --csv: demangled, the address the function's offset in its file, the file and the symbol beside"
	[ $? -eq 0 ] || diag "$W/out"
	run 0 "prf record --json -- true, C++ and Rust user objects" $FKU "$P" record $KS --no-cgroup --json -- true
	grep -qF "{\"function\": \"prf::Table::find(char const*)\", \"module\": \"cxxprog\", \"address\": \"0x$OF\", \"file\": \"$X\", \"symbol\": \"_ZN3prf5Table4findEPKc\", \"kind\": \"function\"" "$W/out" &&
		grep -qF "{\"function\": \"[cxxprog]\", \"module\": \"cxxprog\", \"address\": null, \"file\": \"$X\", \"kind\": \"unknown\"" "$W/out"
	ok $? "prf record --json: demangled, address, file and symbol; a file's unnamed part has no address"
	run 0 "prf record --folded -- true, C++ and Rust user objects" $FKU "$P" record $KS --no-cgroup --folded -- true
	grep -qx "cxxprog;mycrate::foo 4" "$W/out" && grep -qx "cxxprog;prf::Table::find(char const\*) 3" "$W/out" &&
		! grep -q '^\[user\] ' "$W/out"
	ok $? "prf record --folded: demangled, and no [user] line repeating the user rows' samples"
	[ $? -eq 0 ] || diag "$W/out"
	run 0 "prf record --no-demangle --csv -- true" $FKU "$P" record $KS --no-cgroup --no-demangle --csv -- true
	grep -qx "3,[0-9.]*,_ZN3prf5Table4findEPKc,cxxprog,0x$OF,function,busy,0,$X,_ZN3prf5Table4findEPKc" "$W/out" &&
		! grep -q "prf::Table" "$W/out"
	ok $? "prf record --no-demangle: the raw names"
	if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
		run 0 "prf record --pprof -- true, C++ and Rust user objects" $FKU "$P" record $KS --no-cgroup --pprof "$W/cxx.pb.gz" -- true
		go tool pprof -top "$W/cxx.pb.gz" >"$W/cxx.top" 2>&1
		grep -q "prf::Table::find(char const\*)" "$W/cxx.top" && grep -q "mycrate::foo" "$W/cxx.top"
		ok $? "prf record --pprof: go tool pprof shows the functions demangled"
		[ $? -eq 0 ] || diag "$W/cxx.top"
		# With call stacks: the kernel's stacks, and the user objects
		# table's functions beside them (the kernel keeps no stack of
		# a user sample: the function, in its file's mapping), none
		# left out.
		run 0 "prf record -g --pprof -- true, user objects and a kernel stack" $FKU \
			FAKEPRF_STACKS="7:0:ffffffff9a000211,ffffffff9a000111" "$P" record $KS \
			--no-cgroup -g --pprof "$W/cxxg.pb.gz" -- true
		pprof_rows "$W/cxxg.pb.gz" >"$W/cxxg.rows"
		grep -qx "prf::Table::find(char const\*) 3" "$W/cxxg.rows" &&
			grep -qx "mycrate::foo 4" "$W/cxxg.rows" && grep -qx "c_plain 1" "$W/cxxg.rows" &&
			grep -qx "beta 7" "$W/cxxg.rows" && ! grep -q "^\[user\] " "$W/cxxg.rows"
		r=$?
		ok $r "prf record -g --pprof: the user objects' functions beside the kernel stacks, no [user] repeating them"
		[ $r -eq 0 ] || diag "$W/cxxg.rows"
		go tool pprof -raw "$W/cxxg.pb.gz" >"$W/cxxg.raw" 2>&1
		# "L: 0xADDR M=MAP mycrate::foo ...", then the sample "4 NS: L" and
		# the mapping "MAP: START/LIMIT/OFFSET PATH"
		set -- $(sed -n 's/^ *\([0-9]*\): 0x[0-9a-f]* M=\([0-9]*\) mycrate::foo .*/\1 \2/p' "$W/cxxg.raw")
		[ $# = 2 ] && grep -q "^ *4 *[0-9]*: $1 *\$" "$W/cxxg.raw" &&
			grep -q "^ *$2: 0x[0-9a-f/x]* $X " "$W/cxxg.raw"
		r=$?
		ok $r "prf record -g --pprof: a user function is a one-frame sample in its file's mapping (its path)"
		[ $r -eq 0 ] || diag "$W/cxxg.raw"
	else
		skip "prf record --pprof: go tool pprof shows the functions demangled" "no go"
	fi
	# User call chains (-g with a prf.ko that has them, FAKEPRF_UCHAINS):
	# each frame named as the rows are, a return address at its offset - 1
	# ($OF, find's first byte, returns into ggc_internal_alloc, which calls
	# there), root first under the leaf's program; a truncated chain;
	# anonymous code; the user samples of no chain (12 - 11) in [user].
	OM=$(foff main)
	UC="6:0:$X@$OC|$X@$OF|$X@$(printf %x $((0x$OM + 5)));1:1:$X@$OC|$X@$(printf %x $((0x$OM + 9)));4:0:$X@$OR|@7fff0010"
	FKCH="$FKC FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES=$X:$OC:8,$X:$OR:4 FAKEPRF_UCHAINS=$UC FAKEPRF_UCHAINS_DROPPED=1"
	GA="ggc_internal_alloc(unsigned long, void (*)(void*), unsigned long, unsigned long)"
	: >"$FL"
	run 0 "prf record -g --folded -- true, user call chains" $FKCH "$P" record $KS --no-cgroup -g --folded -- true
	printf '%s\n' "cxxprog;main;$GA;c_plain 6" "cxxprog;[anonymous/JIT];mycrate::foo 4" \
		"cxxprog;[truncated];main;c_plain 1" "[user] 1" >"$W/uc.want"
	same "$W/out" "$W/uc.want" "prf record -g --folded: the user chains root first under the program, a return address named at offset - 1, [user] the samples of no chain"
	grep -q "^clone SETUOBJS 16384 4096 chains 16$" "$FL" && ! grep -q "no user call chains" "$W/err"
	ok $? "prf record -g: chains of 16 frames (not the stack depth's 32) in a table of 16384, no note"
	# Pairs (FAKEPRF_UPAIRS): 7 samples of a kernel stack (alpha called
	# beta), 5 of them taken in c_plain's system call, called by main: one
	# line a sample's path, the program, its user frames, then the
	# kernel's; the 2 others the kernel's line as before, the lines adding
	# up to the stack's 7.  A truncated user side, and the pairs the
	# kernel dropped said on stderr.
	KP="ffffffff9a000211,ffffffff9a000111"
	run 0 "prf record -g --folded -- true, pairs" $FKCH FAKEPRF_STACKS="7:0:$KP" \
		FAKEPRF_UPAIRS="4:0:$KP=0:$X@$OC|$X@$(printf %x $((0x$OM + 9)));1:0:$KP=1:$X@$OC" \
		FAKEPRF_UPAIRS_DROPPED=2 "$P" record $KS --no-cgroup -g --folded -- true
	cp "$W/out" "$W/up.out"
	grep -vF -e "cxxprog;main;$GA;" -e "cxxprog;[anonymous/JIT];" -e "cxxprog;[truncated];main;c_plain 1" \
		-e "[user] " "$W/out" >"$W/up.got"
	printf '%s\n' "cxxprog;main;c_plain;alpha;beta 4" "alpha;beta 2" "cxxprog;[truncated];c_plain;alpha;beta 1" >"$W/up.want"
	same "$W/up.got" "$W/up.want" "prf record -g --folded: a kernel stack's samples joined to their user chains under the program, the rest as before, adding up"
	grep -q "^prf record: 2 kernel samples of user processes are folded without their user side" "$W/err"
	ok $? "prf record -g --folded: the pairs the kernel dropped said"
	run 0 "prf record -g --folded -- true, a module before pairs" $FKCH FAKEPRF_STACKS="7:0:$KP" \
		"$P" record $KS --no-cgroup -g --folded -- true
	grep -qx "alpha;beta 7" "$W/out" && ! grep -q "PRF_GETUPAIRS" "$W/err"
	ok $? "prf record -g --folded: without pairs (EINVAL) the kernel's stack alone, as before"
	[ "$(awk '{ s += $NF } END { print s }' "$W/up.out")" = "$(awk '{ s += $NF } END { print s }' "$W/out")" ]
	ok $? "prf record -g --folded: the lines add up to the same samples with pairs as without"
	# the pairs kept in prf record -o's file (user objects record version
	# 10): prfpr --folded of it gives the lines prf record printed
	rm -f "$W/up.prf"
	run 0 "prf record -g --folded -o FILE -- true, pairs" $FKCH FAKEPRF_STACKS="7:0:$KP" \
		FAKEPRF_UPAIRS="4:0:$KP=0:$X@$OC|$X@$(printf %x $((0x$OM + 9)));1:0:$KP=1:$X@$OC" \
		FAKEPRF_UPAIRS_DROPPED=2 "$P" record $KS --no-cgroup -g --folded -o "$W/up.prf" -- true
	cp "$W/out" "$W/upo.rec"
	same "$W/upo.rec" "$W/up.out" "prf record -g --folded -o FILE: the same joined lines as without -o"
	run 0 "prfpr --folded FILE of prf record -g -o, pairs" "$B/prfpr" --folded "$W/up.prf"
	same "$W/out" "$W/upo.rec" "prfpr --folded FILE of prf record -g -o: the joined lines prf record printed, line for line"
	command -v python3 >/dev/null 2>&1 && python3 -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
at = len(b) - struct.unpack("<I", b[-4:])[0]
sys.exit(struct.unpack("<HH", b[at + 4:at + 8]) != (10, 8))' "$W/up.prf"
	ok $? "prf record -g -o: the pairs in the user objects record, version 10"
	# The other views of the stacks show the joined paths too: the top
	# stacks of the text report, JSON, callers and callees, the HTML
	# page's flame graph, pprof; prf record's and prfpr's of its file the
	# same.  The samples add up as in --folded: a kernel stack's paired
	# samples (5) under their user frames, its 2 others alone.
	UPE="FAKEPRF_STACKS=7:0:$KP FAKEPRF_UPAIRS=4:0:$KP=0:$X@$OC|$X@$(printf %x $((0x$OM + 9)));1:0:$KP=1:$X@$OC FAKEPRF_UPAIRS_DROPPED=2"
	run 0 "prf record -g -- true, pairs: the text report's top stacks" $FKCH $UPE "$P" record $KS \
		--no-cgroup -g -- true
	sed -n '/^top call stacks/,/^every stack:/p' "$W/out" >"$W/upt.got"
	same "$W/upt.got" "$E/upairs_top.txt" "prf record -g: the top stacks are the sample paths, user frames then the kernel's"
	run 0 "prf record -g --json -- true, pairs" $FKCH $UPE "$P" record $KS --no-cgroup -g --json -- true
	cp "$W/out" "$W/upj.rec"
	# each stack: samples, flags, its functions root first
	jstacks() {
		python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["stacks"]["stacks"]:
    print(s["samples"], s["truncated"], s["user"], s.get("user_frames"), s.get("user_truncated"),
          ";".join(f["function"] for f in s["frames"]))' "$1" | LC_ALL=C sort
	}
	if command -v python3 >/dev/null 2>&1; then
		jstacks "$W/upj.rec" >"$W/upj.got"
		same "$W/upj.got" "$E/upairs_json.txt" "prf record -g --json: a kernel stack's paired samples as joined stacks (user_frames, user_truncated), the rest alone"
	else
		skip "prf record -g --json: joined stacks" "no python3"
	fi
	run 0 "prfpr --json FILE of prf record -g -o, pairs" "$B/prfpr" --json "$W/up.prf"
	if command -v python3 >/dev/null 2>&1; then
		jstacks "$W/out" >"$W/upj.pr"
		same "$W/upj.pr" "$W/upj.got" "prfpr --json FILE of prf record -g -o: the same joined stacks"
	else
		skip "prfpr --json: joined stacks" "no python3"
	fi
	run 0 "prf record -g --csv --callers alpha -- true, pairs" $FKCH $UPE "$P" record $KS \
		--no-cgroup -g --csv --callers alpha -- true
	printf '%s\n' "samples,percent,caller,module,of" "5,71.43,c_plain,cxxprog,alpha" \
		"2,28.57,[root],,alpha" >"$W/upc.want"
	same "$W/out" "$W/upc.want" "prf record -g --callers alpha: the user function that entered the kernel its caller in the paired samples"
	run 0 "prfpr --csv --callers alpha FILE of prf record -g -o" "$B/prfpr" --csv --callers alpha "$W/up.prf"
	same "$W/out" "$W/upc.want" "prfpr --callers alpha FILE of prf record -g -o: the same callers"
	run 0 "prf record -g --csv --callees c_plain -- true, pairs" $FKCH $UPE "$P" record $KS \
		--no-cgroup -g --csv --callees c_plain -- true
	printf '%s\n' "samples,percent,callee,module,of" "7,58.33,[self],,c_plain" \
		"5,41.67,alpha,kernel,c_plain" >"$W/upe.want"
	same "$W/out" "$W/upe.want" "prf record -g --callees c_plain: its own samples and the kernel it called"
	run 0 "prfpr --html FILE of prf record -g -o, pairs" "$B/prfpr" --html "$W/up.html" "$W/up.prf"
	grep -qF '["cxxprog;main;c_plain;alpha;beta",4]' "$W/up.html" &&
		grep -qF '["alpha;beta",2]' "$W/up.html" &&
		grep -qF '["cxxprog;[truncated];c_plain;alpha;beta",1]' "$W/up.html"
	ok $? "prfpr --html FILE of prf record -g -o: the flame graph's paths joined, the rest alone"
	if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
		run 0 "prf record -g --pprof -- true, pairs" $FKCH $UPE "$P" record $KS \
			--no-cgroup -g --pprof "$W/up.pb.gz" -- true
		go tool pprof -traces "$W/up.pb.gz" 2>&1 | awk '/^-+\+/ { if (t != "") print t; t = ""; on = 1; next }
			on && NF { sub(/^ +/, ""); t = t (t == "" ? "" : ";") $0 } END { if (t != "") print t }' |
			sed 's/  */ /' | LC_ALL=C sort >"$W/up.traces"
		printf '%s\n' "1 [user]" "1 beta;alpha;c_plain" "1 c_plain;main" "2 beta;alpha" \
			"4 beta;alpha;c_plain;main" "4 mycrate::foo;[anonymous/JIT]" "6 c_plain;$GA;main" \
			>"$W/up.want"
		same "$W/up.traces" "$W/up.want" "prf record -g --pprof: a paired sample's locations the kernel's leaf first, then its user frames"
	else
		skip "prf record -g --pprof: joined samples" "no go"
	fi
	: >"$FL"
	run 0 "prf record -g --stack-depth 32 --user-objs 1000:10 -- true" $FKCH "$P" record $KS \
		--no-cgroup -g --stack-depth 32 --user-objs 1000:10 --folded -- true
	grep -q "^clone SETUOBJS 1000 10 chains 32$" "$FL"
	ok $? "prf record -g --stack-depth 32 --user-objs 1000:10: chains of the depth given, the table given"
	: >"$FL"
	run 0 "prf record -g --stack-depth 2 --folded -- true, user call chains" $FKCH "$P" record $KS \
		--no-cgroup -g --stack-depth 2 --folded -- true
	grep -q "^clone SETUOBJS 16384 4096 chains 2$" "$FL" &&
		grep -qxF "cxxprog;[truncated];$GA;c_plain 6" "$W/out"
	ok $? "prf record -g --stack-depth 2: chains of 2 frames, the longer one truncated"
	: >"$FL"
	run 0 "prf record -g --folded -- true, chains read again after EAGAIN" $FKCH FAKEPRF_UCHAINS_EAGAIN=14 \
		"$P" record $KS --no-cgroup -g --folded -- true
	same "$W/out" "$W/uc.want" "prf record -g: the chains read whole after 14 EAGAINs (a table zeroed while read; 16 tries in all)"
	run 1 "prf record -g -- true, EAGAIN at every read of the chains" $FKCH FAKEPRF_UCHAINS_EAGAIN=16 \
		"$P" record $KS --no-cgroup -g --folded -- true
	grep_err "PRF_GETUCHAINS: Resource temporarily unavailable" "prf record -g: 16 EAGAINs in a row said"
	run 0 "prf record -g --stack-depth 1 --folded -- true" $FKCH "$P" record $KS \
		--no-cgroup -g --stack-depth 1 --folded -- true
	grep -q "^clone SETUOBJS 65536 4096$" "$FL" && grep -qx "cxxprog;c_plain 8" "$W/out" &&
		! grep -q "no user call chains" "$W/err"
	ok $? "prf record -g --stack-depth 1: no chains asked (one frame is the entry), the rows as one-frame stacks"
	: >"$FL"
	run 0 "prf record --folded -- true, a module with chains, no -g" $FKCH "$P" record $KS --no-cgroup --folded -- true
	grep -q "^clone SETUOBJS 65536 4096$" "$FL" && grep -qx "cxxprog;c_plain 8" "$W/out"
	ok $? "prf record without -g: the table without chains, as before"
	run 0 "prf record -g --callers c_plain -- true" $FKCH "$P" record $KS --no-cgroup -g --callers c_plain -- true
	printf '%s\n' "callers of c_plain: 7 samples in 2 stacks" "   samples    %func  caller" \
		"         6    85.71  $GA [cxxprog]" "         1    14.29  main [cxxprog]" >"$W/ucc.want"
	same "$W/out" "$W/ucc.want" "prf record -g --callers c_plain: its callers in the user chains, instead of the report"
	run 0 "prf record -g --callees main --csv -- true" $FKCH "$P" record $KS --no-cgroup -g --callees main --csv -- true
	printf '%s\n' "samples,percent,callee,module,of" "6,85.71,\"$GA\",cxxprog,main" \
		"1,14.29,c_plain,cxxprog,main" >"$W/ucc.want"
	same "$W/out" "$W/ucc.want" "prf record -g --callees main --csv: a name with commas quoted"
	run 1 "prf record -g --callers nothere -- true" $FKCH "$P" record $KS --no-cgroup -g --callers nothere -- true
	grep_err "nothere is in no stack" "prf record -g --callers: a function in no stack said"
	run 2 "prf record --callers c_plain without -g" $FKCH "$P" record $KS --no-cgroup --callers c_plain -- true
	run 2 "prf record -g --callers c_plain --folded" $FKCH "$P" record $KS --no-cgroup -g --folded --callers c_plain -- true
	run 0 "prf record -g --json -- true, user call chains" $FKCH "$P" record $KS --no-cgroup -g --json -- true
	grep -qF "{\"samples\": 6, \"truncated\": false, \"user\": true, \"frames\": [{\"function\": \"main\", \"module\": \"cxxprog\", \"address\": \"0x$(printf %x $((0x$OM + 5)))\", \"file\": \"$X\"}, {\"function\": \"$GA\", \"module\": \"cxxprog\", \"address\": \"0x$OF\", \"file\": \"$X\"}, {\"function\": \"c_plain\", \"module\": \"cxxprog\", \"address\": \"0x$OC\", \"file\": \"$X\"}]}" "$W/out" &&
		grep -qF "\"chains\": {\"samples\": 11, \"chains\": 3, \"unchained\": 1, \"dropped\": 1, \"depth\": 16, \"used\": 3, \"capacity\": 65536}" "$W/out"
	r=$?
	ok $r "prf record -g --json: a user chain in the stacks (user, its frames' offsets and file), the chains' counts under user_objects"
	[ $r -eq 0 ] || diag "$W/out"
	# prf record -o FILE keeps the user objects table (record type 8):
	# prfpr FILE gives the user rows, %busy and the programs prf record
	# printed, named again from the files; its chains, CSV and HTML too.
	rm -f "$W/uo.prf"
	run 0 "prf record -g -o FILE -- true, user call chains" $FKCH "$P" record $KS --no-cgroup \
		-g -o "$W/uo.prf" -- true
	# prf record's own lines apart (the device's filtered count, its top
	# stacks), prfpr prints what prf record printed, line for line
	sed '/^filtered  /,/^every stack: /d' "$W/out" >"$W/uo.rec"
	run 0 "prfpr FILE of prf record -g -o" "$B/prfpr" "$W/uo.prf"
	grep -q "^ *8  *66.67  c_plain  *cxxprog" "$W/uo.rec" && grep -q "mycrate::foo" "$W/uo.rec" &&
		grep -q "^ *12 .* cxxprog  *named  *$X\$" "$W/uo.rec"
	ok $? "prf record -g -o: its text report has the user rows (%busy) and programs"
	same "$W/out" "$W/uo.rec" "prfpr FILE of prf record -o: the same report, user rows, %busy and programs as prf record printed"
	run 0 "prf record -g -o FILE --csv -- true" $FKCH "$P" record $KS --no-cgroup -g --csv -o "$W/uo2.prf" -- true
	cp "$W/out" "$W/uo.rec"
	run 0 "prfpr --csv FILE of prf record -g -o" "$B/prfpr" --csv "$W/uo2.prf"
	same "$W/out" "$W/uo.rec" "prfpr --csv FILE of prf record -o: the same CSV as prf record printed"
	run 0 "prfpr --folded FILE of prf record -g -o" "$B/prfpr" --folded "$W/uo.prf"
	same "$W/out" "$W/uc.want" "prfpr --folded FILE of prf record -g -o: the user chains as prf record gave them"
	run 0 "prfpr --html FILE of prf record -g -o" "$B/prfpr" --html "$W/uo.html" "$W/uo.prf"
	# the rows in the page's data, its functions (not the flame graph's
	# stacks, which name them too): name, module, offset, samples
	sed -n '/^"functions":\[$/,/\]\],$/p' "$W/uo.html" >"$W/uo.fn"
	printf '%s\n' '"functions":[' "[\"c_plain\",\"cxxprog\",\"$(printf %016x 0x$OC)\",8,0]," \
		"[\"mycrate::foo\",\"cxxprog\",\"$(printf %016x 0x$OR)\",4,0]]," >"$W/uo.fnw"
	same "$W/uo.fn" "$W/uo.fnw" "prfpr --html FILE of prf record -o: the page's functions are the user rows"
	# its user objects record (the last) cut by 10 bytes, its length, size
	# and CRC made to match: corrupt, named, exit 1 as any bad record
	if command -v python3 >/dev/null 2>&1; then
		at=$(python3 - "$W/uo.prf" "$W/uocut.prf" <<'X' 2>/dev/null
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read()
at = len(b) - struct.unpack('<I', b[-4:])[0]
assert b[at:at + 4] == b'PRFS' and struct.unpack('<HH', b[at + 4:at + 8]) == (8, 8)
n = struct.unpack('<I', b[at + 8:at + 12])[0] - 10
p = b[at + 16:at + 16 + n - 4] + struct.pack('<I', 16 + n)
h = b'PRFS' + struct.pack('<HHI', 8, 8, n)
open(sys.argv[2], 'wb').write(b[:at] + h + struct.pack('<I', zlib.crc32(h + p)) + p)
print(at)
X
)
		[ -n "$at" ]
		ok $? "prf record -o: the file ends with a user objects record (type 8, version 8)"
		run 1 "prfpr of a prf record file whose user objects record is cut" "$B/prfpr" "$W/uocut.prf"
		grep_err "uocut.prf: corrupt: record [0-9]* at offset $at: payload does not match its length" \
			"prfpr: a user objects record cut short is corrupt, named"
	else
		skip "prfpr: a user objects record cut short is corrupt, named" "no python3"
	fi
	if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
		run 0 "prf record -g --pprof -- true, user call chains" $FKCH "$P" record $KS \
			--no-cgroup -g --pprof "$W/uc.pb.gz" -- true
		# each trace on a line: "COUNT leaf;...;root"
		go tool pprof -traces "$W/uc.pb.gz" 2>&1 | awk '/^-+\+/ { if (t != "") print t; t = ""; on = 1; next }
			on && NF { sub(/^ +/, ""); t = t (t == "" ? "" : ";") $0 } END { if (t != "") print t }' |
			sed 's/  */ /' | LC_ALL=C sort >"$W/uc.traces"
		printf '%s\n' "1 [user]" "1 c_plain;main" "4 mycrate::foo;[anonymous/JIT]" "6 c_plain;$GA;main" \
			>"$W/uc.want"
		same "$W/uc.traces" "$W/uc.want" "prf record -g --pprof: a sample per user chain (leaf first), [user] the rest"
		go tool pprof -raw "$W/uc.pb.gz" >"$W/uc.raw" 2>&1
		# every location of the chains in the mapping of their file, by path
		set -- $(sed -n 's/^ *[0-9]*: 0x[0-9a-f]* M=\([0-9]*\) \(c_plain\|main\|mycrate::foo\) .*/\1/p' "$W/uc.raw" | sort -u)
		[ $# = 1 ] && grep -q "^ *$1: 0x[0-9a-f/x]* $X " "$W/uc.raw"
		r=$?
		ok $r "prf record -g --pprof: the chains' locations in their file's mapping, named by its path"
		[ $r -eq 0 ] || diag "$W/uc.raw"
	else
		skip "prf record -g --pprof: user call chains" "no go"
	fi
	# A prf.ko with the table and no chains: said once, the table alone.
	: >"$FL"
	run 0 "prf record -g --folded -- true, a module without chains" $FKU "$P" record $KS --no-cgroup -g --folded -- true
	[ "$(grep -c "no user call chains (PRF_SETUOBJS with PRF_UOBJ_CHAINS: Invalid argument)" "$W/err")" -eq 1 ] &&
		grep -q "^clone SETUOBJS 65536 4096$" "$FL" && grep -qx "cxxprog;mycrate::foo 4" "$W/out"
	ok $? "prf record -g, a prf.ko without chains: said once, the table alone, its rows as one-frame stacks"
	: >"$FL"
	run 0 "prf record -g -- true, a module without user objects" $FKC "$P" record $KS --no-cgroup -g -- true
	grep -q "no user objects table" "$W/err" && ! grep -q "no user call chains" "$W/err"
	ok $? "prf record -g, a prf.ko without the table: that said, not the chains"
	: >"$FL"
	run 0 "prf record -g --no-user-objs -- true" $FKCH "$P" record $KS --no-cgroup -g --no-user-objs -- true
	! grep -q "SETUOBJS" "$FL"
	ok $? "prf record -g --no-user-objs: no table, no chains"
	# shellcheck source=tools/tests/waits.sh
	. "$T/waits.sh"
	DUC="2:0:$X@$OC|$X@$OF|$X@$(printf %x $((0x$OM + 5)));1:0:$X@$OR|@7fff0010"
	# prf daemon --user-objs: its profiles' user samples by file and
	# function, with --stacks their chains as pprof stacks (leaf first),
	# the user samples of no chain in [user].  The device's counts grow
	# at each read (FAKEPRF_GROW: user 5, c_plain 2, mycrate::foo 1 a
	# read); a profile reads it twice (--interval 1h: no interval between).
	if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
		# dprof NAME ENV... -- ARGS...: the daemon of ENV on a fresh
		# private instance, a 1 s profile into $W/NAME.pb.gz, its log $W/NAME.log
		dprof() {
			dn=$1
			shift
			de=""
			while [ "$1" != -- ]; do de="$de $1"; shift; done
			shift
			dport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
			: >"$FL"
			rm -f "$C" "$W/$dn.pb.gz"
			# shellcheck disable=SC2086
			$FKC FAKEPRF_GROW=1 $de "$P" daemon -c /dev/null $KS --dir "$W/$dn.store" \
				--interval 1h --listen "$dport" "$@" >"$W/$dn.out" 2>"$W/$dn.err" &
			dpid=$!
			wait_until 10 grep -q "collecting on" "$W/$dn.err"
			curl -s -o "$W/$dn.pb.gz" "http://127.0.0.1:$dport/debug/pprof/profile?seconds=1"
			kill "$dpid"
			wait "$dpid"
			cp "$FL" "$W/$dn.log"
		}
		DUO="FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES=$X:$OC:2,$X:$OR:1 FAKEPRF_UCHAINS=$DUC"
		dprof duc $DUO -- --user-objs --stacks 8
		grep -q "^clone SETUOBJS 16384 4096 chains 8$" "$W/duc.log"
		ok $? "prf daemon --user-objs --stacks 8: the table with chains of 8 frames"
		go tool pprof -traces "$W/duc.pb.gz" 2>&1 | awk '/^-+\+/ { if (t != "") print t; t = ""; on = 1; next }
			on && NF { sub(/^ +/, ""); t = t (t == "" ? "" : ";") $0 } END { if (t != "") print t }' |
			sed 's/  */ /' | grep -v startup_64 | LC_ALL=C sort >"$W/duc.traces"
		printf '%s\n' "1 mycrate::foo;[anonymous/JIT]" "2 [user]" "2 c_plain;$GA;main" "50 [idle]" \
			>"$W/duc.want"
		same "$W/duc.traces" "$W/duc.want" "prf daemon --user-objs --stacks: the profile's user samples a stack per chain (leaf first), [user] the rest"
		go tool pprof -raw "$W/duc.pb.gz" >"$W/duc.raw" 2>&1
		set -- $(sed -n "s/^ *[0-9]*: 0x0*$OC M=\([0-9]*\) c_plain .*/\1/p" "$W/duc.raw")
		bid=$(readelf -n "$X" 2>/dev/null | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
		[ $# = 1 ] && [ -n "$bid" ] && grep -q "^ *$1: 0x[0-9a-f/x]* $X $bid " "$W/duc.raw" &&
			grep -q "^ *[0-9]*: 0x0 M=[0-9]* kvm_b " "$W/duc.raw" &&
			! grep -Eq '0x(0*)ffff[0-9a-f]{8}' "$W/duc.raw"
		r=$?
		ok $r "prf daemon --user-objs: a user location at its offset in its file's mapping (the path, its build ID), no kernel address"
		[ $r -eq 0 ] || diag "$W/duc.raw"
		dprof duo $DUO -- --user-objs
		pprof_rows "$W/duo.pb.gz" >"$W/duo.rows"
		grep -q "^clone SETUOBJS 65536 4096$" "$W/duo.log" && grep -qx "c_plain 2" "$W/duo.rows" &&
			grep -qx "mycrate::foo 1" "$W/duo.rows" && grep -qx "\[user, unnamed\] 2" "$W/duo.rows"
		r=$?
		ok $r "prf daemon --user-objs without --stacks: the table alone, a user function a one-frame sample, [user] the rest"
		[ $r -eq 0 ] || diag "$W/duo.rows"
		dprof dno $DUO -- --stacks 8
		pprof_rows "$W/dno.pb.gz" >"$W/dno.rows"
		! grep -q "SETUOBJS" "$W/dno.log" && grep -qx "\[user\] 5" "$W/dno.rows" &&
			! grep -q c_plain "$W/dno.rows"
		ok $? "prf daemon without --user-objs: no table, user time one total as before"
		dprof dold -- --user-objs --stacks 8
		pprof_rows "$W/dold.pb.gz" >"$W/dold.rows"
		grep -qx "\[user\] 5" "$W/dold.rows" &&
			[ "$(grep -c -- "--user-objs: no user objects table on this instance" "$W/dold.err")" = 1 ]
		ok $? "prf daemon --user-objs, a prf.ko without the table: said once, the profile's user time one total"
	else
		skip "prf daemon --user-objs: user samples in the profile" "no go"
	fi
	# prf daemon --user-objs's store: each interval keeps the device's user
	# table (record type 8); prfpr DIR between two snapshots gives the user
	# rows and chains of the later table less the earlier (an interval is
	# one read: 2, 1 and 5 user samples of no chain).
	: >"$FL"
	rm -rf "$C" "$W/dus.store"
	$FKC FAKEPRF_GROW=1 FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES="$X:$OC:2,$X:$OR:1" FAKEPRF_UCHAINS="$DUC" \
		"$P" daemon -c /dev/null $KS --dir "$W/dus.store" --interval 1 --user-objs --stacks 8 \
		>"$W/dus.out" 2>"$W/dus.err" &
	dpid=$!
	dsnaps() { [ "$("$B/prfpr" -l "$W/dus.store" 2>/dev/null | awk 'NR == 1 { print $2 }')" -ge 4 ] 2>/dev/null; }
	wait_until 20 dsnaps
	kill "$dpid"
	wait "$dpid"
	run 0 "prfpr --from 2 --to 4 --folded DIR of prf daemon --user-objs --stacks 8" "$B/prfpr" \
		--from 2 --to 4 --folded "$W/dus.store"
	grep -v '^startup_64\|^\[idle\] ' "$W/out" >"$W/dus.got"
	printf '%s\n' "cxxprog;main;$GA;c_plain 4" "cxxprog;[anonymous/JIT];mycrate::foo 2" "[user] 4" \
		>"$W/dus.want"
	same "$W/dus.got" "$W/dus.want" "prfpr DIR of prf daemon --user-objs: the user chains between two snapshots (the later table less the earlier)"
	run 0 "prfpr --from 2 --to 4 --csv DIR of prf daemon --user-objs" "$B/prfpr" --from 2 --to 4 --csv -c 0 \
		"$W/dus.store"
	grep -q "^4,[0-9.]*,c_plain,cxxprog,0x$OC,function,busy,0,$X,c_plain\$" "$W/out" &&
		grep -q "^2,[0-9.]*,mycrate::foo,cxxprog,0x$OR,function,busy,0,$X,_RNvCs1234_7mycrate3foo\$" "$W/out"
	r=$?
	ok $r "prfpr --csv DIR of prf daemon --user-objs: the user rows between two snapshots, by file and function"
	[ $r -eq 0 ] || diag "$W/out"
else
	skip "prf record: C++ and Rust user objects" "objdump -F found no offsets in $X"
fi
: >"$FL"
run 2 "prf record --user-objs 0 -- true" $FKC "$P" record $KS --user-objs 0 -- true
run 2 "prf record --user-objs 10:70000 -- true" $FKC "$P" record $KS --user-objs 10:70000 -- true
: >"$FL"
run 1 "prf record --no-cgroup -- false" $FKC "$P" record $KS --no-cgroup -- false
grep_err "false exited with status 1" "prf record: the command's exit status said"
run 127 "prf record -- a missing command" $FKC "$P" record $KS --no-cgroup -- "$W/nonexistent"
grep_err "nonexistent: No such file" "prf record: a command that cannot run is named"
if command -v strace >/dev/null 2>&1; then
	# Traced already (by strace), the command cannot PTRACE_TRACEME: run once, untraced.
	: >"$FL"
	run 0 "prf record, ptrace refused to the command" strace -f -o /dev/null $FKC "$P" record $KS \
		--no-cgroup -- sh -c 'echo ran >>"$1"' sh "$W/fake/ran"
	[ "$(cat "$W/fake/ran")" = ran ]
	ok $? "prf record, ptrace refused: the command ran once"
	grep_err "PTRACE_TRACEME): not permitted" "prf record, ptrace refused: said"
	clogged "SETFILTER 1 X
LOAD X
SETSTATE 1
SETSTATE 0" "prf record, ptrace refused: a kernel table, no USERPC"
else
	ok 0 "# SKIP strace missing: ptrace refused to prf record's command"
fi
run 2 "prf record -f /dev/prf1 -- true" $FKC "$P" record -f /dev/prf1 -- true
grep_err "private instance" "prf record -f: refused, said why"
run 2 "prf record -p 1 -G /x" $FKC "$P" record -p 1 -G /x
run 2 "prf record -p zero" $FKC "$P" record -p 0
sleep 30 &
SPID=$!
: >"$FL"
run 0 "prf record -p PID -- true" $FKC "$P" record $KS -p $SPID -- true
clogged "SETFILTER 1 X
LOAD X
SETFLAGS 8
SETSTATE 1
SETSTATE 0" "prf record -p: the process's filter, its table, USERPC"
[ "$(awk '$1 == "filter" { print $3 }' "$C")" = "$SPID" ]
ok $? "prf record -p: the filter names the process"
shared_untouched "prf record -p"
mkdir -p "$W/cg/sub"
echo $SPID >"$W/cg/cgroup.procs"
: >"$W/cg/sub/cgroup.procs"
: >"$FL"
run 0 "prf record -G DIR -- true" $FKC "$P" record $KS -G "$W/cg" -- true
clogged "SETFILTER 2 X
LOAD X
SETFLAGS 8
SETSTATE 1
SETSTATE 0" "prf record -G: the cgroup's filter, its processes' table, USERPC"
[ "$(awk '$1 == "filter" { print $3 }' "$C")" = "$(stat -c %i "$W/cg")" ]
ok $? "prf record -G: the filter holds the cgroup directory"
run 1 "prf record -G on an empty cgroup" $FKC "$P" record $KS -G "$W/cg/sub" -- true
grep_err "no process in the cgroup" "prf record -G empty: said"
run 1 "prf record -p on a process that is gone" $FKC "$P" record $KS -p 1073741800 -- true
grep_err "1073741800/maps" "prf record -p gone: the process named"
: >"$FL"
run 0 "prf record --tasks" $FKC FAKEPRF_TASKS="10:burn:100:300,11:spin:500:20" "$P" record $KS --no-cgroup --tasks -- true
grep -q "SETTASKS 4096" "$FL"
ok $? "prf record --tasks: a per-process tally"
awk '$1 == "pid" { on = 1; next } on && NF == 6 { print $1, $2, $3, $5 }' "$W/out" >"$W/fake/tasks"
printf '11 spin 500 20\n10 burn 100 300\n' >"$W/fake/tasks.want"
same "$W/fake/tasks" "$W/fake/tasks.want" "prf record --tasks: processes by kernel samples"
# prfld -p / -G: such a table on a shared device, for the classic commands.
setdev 0 0
: >"$FL"
run 0 "prfld -p PID" $FK "$B/prfld" -f "$F" $KS -p $SPID
grep -q "^prfld: loaded [0-9]* addresses ([0-9]* user, 11 kernel) into $F; counting process $SPID alone" "$W/out"
ok $? "prfld -p: says what it loaded and counts"
sed -e 's/^\(SETFILTER 1\) [0-9]*$/\1 X/' -e 's/^LOAD [0-9]*$/LOAD X/' "$FL" >"$W/fake/got"
printf 'SETFILTER 1 X\nLOAD X\nSETFLAGS 8\n' >"$W/fake/want"
same "$W/fake/got" "$W/fake/want" "prfld -p: filter, table, PRF_FLAG_USERPC"
run 0 "prfld --dry-run -p PID" "$B/prfld" $KS --dry-run -p $SPID
grep -q " function libc.so.6 " "$W/out" && grep -q "sentinel sleep \\[outside sleep text\\]" "$W/out" &&
	awk '$3 == "kernel" { k = 1 } k && $3 ~ /sleep|libc/ { bad = 1 } END { exit bad || !k }' "$W/out"
ok $? "prfld --dry-run -p: the process's objects, then the kernel"
run 2 "prfld -p with a NAMELIST" "$B/prfld" $KS -p $SPID "$D/System.map"
setdev 1 0
run 1 "prfld -p while ON" $FK "$B/prfld" -f "$F" $KS -p $SPID
grep_err "sampling is ON" "prfld -p while ON: refused, said"
setdev 0 8
run 0 "prfld after prfld -p" $FK "$B/prfld" -q -f "$F" $KS
logged "LOAD 11
SETFLAGS 0
SETFILTER 0 0" "prfld (a kernel table) after prfld -p: every task again, USERPC off first"
setdev 0 0
kill $SPID 2>/dev/null
wait $SPID 2>/dev/null
# prf top --tasks: the per-process view, on a private instance.
: >"$FL"
run 0 "prf top --tasks -n 1" $FKC FAKEPRF_TASKS="12:idle:0:1,10:burn:100:300,11:spin:500:20" "$P" top --tasks $KS -n 1 -d 0.05 </dev/null
awk '$1 == "pid" { on = 1; next } on && NF == 6 { print $1, $2, $3, $4, $5, $6 }' "$W/out" >"$W/fake/tasks"
printf '11 spin 500 83.33%% 20 6.23%%\n10 burn 100 16.67%% 300 93.46%%\n12 idle 0 0.00%% 1 0.31%%\n' >"$W/fake/tasks.want"
same "$W/fake/tasks" "$W/fake/tasks.want" "prf top --tasks: sorted by kernel samples, with shares"
clogged "LOAD X
SETTASKS 4096
SETSTATE 1
CLEAR
SETSTATE 0" "prf top --tasks: its own instance, a tally, cleared after each frame"
run 0 "prf top --tasks --lines 1" $FKC FAKEPRF_TASKS="10:burn:100:300,11:spin:500:20" "$P" top --tasks $KS --lines 1 -n 1 -d 0.05 </dev/null
grep -q "top 1 shown" "$W/out" && ! grep -q " burn " "$W/out"
ok $? "prf top --tasks --lines 1: the top process alone"
for c in record top; do
	"$P" $c --help | grep -q -- "--tasks"
	ok $? "prf $c --help names --tasks"
done
setdev 0 0
run 0 "prf top -n 1 (OFF, flags 0)" $FK "$P" top -f "$F" $KS -n 1 -d 0.05 </dev/null
logged "SETSTATE 1
SETSTATE 0" "prf top: the device's default while it has sampling on"
setdev 0 1
run 0 "prf top --fixed -n 1 (flags 1)" $FK "$P" top -f "$F" $KS --fixed -n 1 -d 0.05 </dev/null
flags_are 2 "prf top --fixed: fixed periods"
setdev 1 0
run 0 "prf top -n 1 while ON (flags 0)" $FK "$P" top -f "$F" $KS -n 1 -d 0.05 </dev/null
logged "" "prf top while ON: sampling and flags left as they are"
run 1 "prf top --no-jitter while ON" $FK "$P" top -f "$F" $KS --no-jitter -n 1 -d 0.05 </dev/null
grep_err "fixed: sampling is ON" "prf top --no-jitter while ON: refused, said"
setdev 0 0
run 0 "prfld again" $FK "$B/prfld" -q -f "$F" $KS "$D/kallsyms.txt"
run 0 "prf clear" $FK "$P" clear -f "$F"
run 0 "prfsnap" $FK "$B/prfsnap" -f "$F" $KS "$W/fake/s.prf"
# A FILE that cannot be written: said before the symbols are read (a FIFO
# for kallsyms that nobody writes would block that read for ever).
mkfifo "$W/fake/kfifo"
run 1 "prfsnap into a missing directory" $FK timeout 10 "$B/prfsnap" -f "$F" \
	--kallsyms "$W/fake/kfifo" "$W/nodir/s.prf"
[ "$(cat "$W/err")" = "prfsnap: $W/nodir/s.prf: No such file or directory" ]
ok $? "prfsnap into a missing directory: said at once, in one line"
run 1 "prf record -o into a missing directory" $FKC "$P" record $KS --no-cgroup \
	-o "$W/nodir/r.prf" -- sh -c 'echo ran >"$1"' sh "$W/fake/ran-o"
[ "$(cat "$W/err")" = "prf record: $W/nodir/r.prf: No such file or directory" ] &&
	[ ! -e "$W/fake/ran-o" ]
ok $? "prf record -o into a missing directory: said before the command runs"
run 0 "prfdc -n 1" $FK "$B/prfdc" -f "$F" $KS --period-seconds 1 -n 1 "$W/fake/s.prf"
logged "LOAD 11
CLEAR" "prfld, prf clear, prfsnap, prfdc do not touch the flags"
if [ -n "$OC" ] && [ -n "$OR" ] && [ -n "$DUC" ]; then
	# An instance with the user objects table (and chains, udepth): prfsnap
	# writes its record (type 8), and prfpr FILE names the user rows and
	# counts the chains as for prf record -o; none without the table.
	rm -f "$W/fake/su.prf" "$W/fake/sn.prf"
	printf 'udepth 8\n' >>"$F"
	run 0 "prfsnap, an instance with the user objects table and chains" $FK FAKEPRF_UOBJS=1 \
		FAKEPRF_UOBJ_ENTRIES="$X:$OC:2,$X:$OR:1" FAKEPRF_UCHAINS="$DUC" "$B/prfsnap" -f "$F" $KS \
		"$W/fake/su.prf"
	sed -i '/^udepth /d' "$F"
	run 0 "prfpr --csv -c 0 of prfsnap's file with user objects" "$B/prfpr" --csv -c 0 "$W/fake/su.prf"
	grep -q "^2,[0-9.]*,c_plain,cxxprog,0x$OC,function,busy,0,$X,c_plain\$" "$W/out" &&
		grep -q "^1,[0-9.]*,mycrate::foo,cxxprog,0x$OR,function,busy,0,$X,_RNvCs1234_7mycrate3foo\$" "$W/out"
	r=$?
	ok $r "prfsnap: the user objects table in the file, prfpr names its rows"
	[ $r -eq 0 ] || diag "$W/out"
	run 0 "prfpr of prfsnap's file with user chains" "$B/prfpr" "$W/fake/su.prf"
	grep -qx "user call chains: 3 samples in 2 chains of up to 8 frames (2/65536 in the table), 0 dropped (a table full)" "$W/out" &&
		grep -q "^ *3 .* cxxprog  *named  *$X\$" "$W/out"
	ok $? "prfsnap: the user chains in the file too, prfpr counts them; the program named"
	run 0 "prfsnap, an instance without the table" $FK "$B/prfsnap" -f "$F" $KS "$W/fake/sn.prf"
	run 0 "prfpr --csv of prfsnap's file without user objects" "$B/prfpr" --csv -c 0 "$W/fake/sn.prf"
	! grep -q "c_plain" "$W/out"
	ok $? "prfsnap, a prf.ko without the table: no user rows, as before"
	# An instance with stacks, chains and their pairs (a version 6
	# device, depth 32, udepth 8): prfsnap writes the pairs (the encoder
	# prf record -o uses), prfpr of its one snapshot joins them as prf
	# record's report does.  Two snapshots: the joined paths between them
	# the later pairs less the earlier, exactly (a kernel stack 19 - 7, of
	# which paired 10 - 4 and truncated 2 - 1, the 5 left alone; a new
	# stack of gamma, all 3 paired; the chains 5 - 2 and 1 - 1).
	cp "$F" "$W/fake/prf.saved"
	sed -i 's/^version .*/version 6/' "$F"
	printf 'udepth 8\ndepth 32\nscap 4096\n' >>"$F"
	M9=$X@$(printf %x $((0x$OM + 9)))
	SU="FAKEPRF_UOBJS=1 FAKEPRF_UOBJ_ENTRIES=$X:$OC:2,$X:$OR:1"
	rm -f "$W/fake/sp.prf"
	run 0 "prfsnap, an instance with stacks, chains and pairs" $FK $SU FAKEPRF_UCHAINS="$DUC" \
		FAKEPRF_STACKS="7:0:$KP" FAKEPRF_UPAIRS="4:0:$KP=0:$X@$OC|$M9;1:0:$KP=1:$X@$OC" \
		"$B/prfsnap" -f "$F" $KS "$W/fake/sp.prf"
	run 0 "prfpr --folded of prfsnap's file with pairs" "$B/prfpr" --folded "$W/fake/sp.prf"
	printf '%s\n' "cxxprog;main;c_plain;alpha;beta 4" "alpha;beta 2" "cxxprog;main;$GA;c_plain 2" \
		"cxxprog;[anonymous/JIT];mycrate::foo 1" "cxxprog;[truncated];c_plain;alpha;beta 1" >"$W/sp.want"
	same "$W/out" "$W/sp.want" "prfsnap: the pairs in the file, prfpr --folded joins each paired sample's user frames to its kernel stack"
	cp "$W/fake/sp.prf" "$W/fake/sp1.prf"
	run 0 "prfpr --csv --callers alpha of prfsnap's file with pairs" "$B/prfpr" --csv --callers alpha "$W/fake/sp.prf"
	printf '%s\n' "samples,percent,caller,module,of" "5,71.43,c_plain,cxxprog,alpha" \
		"2,28.57,[root],,alpha" >"$W/sp.want"
	same "$W/out" "$W/sp.want" "prfsnap: prfpr --callers alpha of its file, the user function that entered the kernel the caller"
	run 0 "prfsnap again, the stacks, chains and pairs grown" $FK $SU \
		FAKEPRF_UCHAINS="5:0:$X@$OC|$X@$OF|$X@$(printf %x $((0x$OM + 5)));1:0:$X@$OR|@7fff0010" \
		FAKEPRF_STACKS="19:0:$KP;3:0:ffffffff9a000311" \
		FAKEPRF_UPAIRS="10:0:$KP=0:$X@$OC|$M9;2:0:$KP=1:$X@$OC;3:0:ffffffff9a000311=0:$X@$OR" \
		"$B/prfsnap" -f "$F" $KS "$W/fake/sp.prf"
	run 0 "prfpr --folded of prfsnap's two snapshots with pairs" "$B/prfpr" --folded "$W/fake/sp.prf"
	printf '%s\n' "cxxprog;main;c_plain;alpha;beta 6" "alpha;beta 5" "cxxprog;main;$GA;c_plain 3" \
		"cxxprog;mycrate::foo;gamma 3" "cxxprog;[truncated];c_plain;alpha;beta 1" >"$W/sp.want"
	same "$W/out" "$W/sp.want" "prfpr --folded between two snapshots with pairs: each joined path the later count less the earlier"
	run 0 "prfpr --csv --callers alpha of two snapshots with pairs" "$B/prfpr" --csv --callers alpha \
		--from 1 --to 2 "$W/fake/sp.prf"
	printf '%s\n' "samples,percent,caller,module,of" "7,58.33,c_plain,cxxprog,alpha" \
		"5,41.67,[root],,alpha" >"$W/sp.want"
	same "$W/out" "$W/sp.want" "prfpr --callers alpha between two snapshots with pairs: the differences"
	run 0 "prfpr --since-load --folded of the later snapshot" "$B/prfpr" --since-load --folded "$W/fake/sp.prf"
	printf '%s\n' "cxxprog;main;c_plain;alpha;beta 10" "alpha;beta 7" "cxxprog;main;$GA;c_plain 5" \
		"cxxprog;mycrate::foo;gamma 3" "cxxprog;[truncated];c_plain;alpha;beta 2" \
		"cxxprog;[anonymous/JIT];mycrate::foo 1" >"$W/sp.want"
	same "$W/out" "$W/sp.want" "prfpr --since-load of the later snapshot: its pairs whole"
	# --diff --folded of the first snapshot (since its load) against the
	# pair of the two: the joined paths of each side, named alike.
	run 0 "prfpr --diff sp1.prf --folded sp.prf" "$B/prfpr" --diff "$W/fake/sp1.prf" --folded \
		"$W/fake/sp.prf"
	printf '%s\n' "alpha;beta 2 5" "cxxprog;mycrate::foo;gamma 0 3" \
		"cxxprog;main;c_plain;alpha;beta 4 6" "cxxprog;[anonymous/JIT];mycrate::foo 1 0" \
		"cxxprog;main;$GA;c_plain 2 3" "cxxprog;[truncated];c_plain;alpha;beta 1 1" >"$W/sp.want"
	same "$W/out" "$W/sp.want" "prfpr --diff FILE --folded with pairs: each joined path's samples in the base and in the new, the largest change first"
	cp "$W/fake/prf.saved" "$F"
	# prf top without --user-objs on an instance that has the table
	# (prfstat --user-objs): the user rows named, the table left as found.
	: >"$FL"
	run 0 "prf top -n 1, an instance with the user objects table" $FK FAKEPRF_UOBJS=1 \
		FAKEPRF_UOBJ_ENTRIES="$X:$OC:2,$X:$OR:1" "$P" top -f "$F" $KS -n 1 -d 0.05 </dev/null
	grep -q "^ *2  *66.67  c_plain  *cxxprog  *#" "$W/out" &&
		grep -q "^ *1  *33.33  mycrate::foo cxxprog  *#" "$W/out" && ! grep -q SETUOBJS "$FL"
	r=$?
	ok $r "prf top, an instance with the user objects table: its user rows named without --user-objs, the table left as found"
	[ $r -eq 0 ] || diag "$W/out"
fi
# A torn last record is cut, said, before appending: at each of its bytes.
bad=0 cuts=0 cut=$((last + 1))
while [ "$cut" -lt "$size" ]; do
	head -c "$cut" "$W/fixture.prf" >"$W/fake/torn.prf"
	$FK "$B/prfsnap" -f "$F" $KS "$W/fake/torn.prf" 2>"$W/err" &&
		grep -q "^prfsnap: $W/fake/torn.prf: the last record, at offset $last, was torn ($((cut - last)) bytes: a write that did not complete): cut before appending$" "$W/err" &&
		"$B/prfpr" --list "$W/fake/torn.prf" >"$W/out" 2>"$W/err2" && [ ! -s "$W/err2" ] &&
		grep -q "torn.prf: 4 snapshots, 2 tables" "$W/out" ||
		{ bad=$((bad + 1)); echo "# cut at $cut: $(cat "$W/err" "$W/err2")"; }
	cuts=$((cuts + 1))
	cut=$((cut + 1))
done
[ "$bad" -eq 0 ] && [ "$cuts" -gt 50 ]
ok $? "prfsnap after a tear at each of $cuts bytes: cut, said, appended; the file reads clean"
head -c $((last + 9)) "$W/fixture.prf" >"$W/fake/torn.prf"
run 0 "prfdc -n 1 on a torn file" $FK "$B/prfdc" -f "$F" $KS --period-seconds 1 -n 1 "$W/fake/torn.prf"
grep_err "^prfdc: .*torn.prf: the last record, at offset $last, was torn (9 bytes" "prfdc: the tear cut and said"
# Appending to a version 1 file: version 2 records after the old ones.
cp "$D/fixture_v1.prf" "$W/fake/v1.prf"
run 0 "prfsnap onto a version 1 file" $FK "$B/prfsnap" -f "$F" $KS "$W/fake/v1.prf"
run 0 "prfsnap again (the fast way: the last record)" $FK "$B/prfsnap" -f "$F" $KS "$W/fake/v1.prf"
run 0 "prfpr --list: both versions" "$B/prfpr" --list "$W/fake/v1.prf"
grep -q "v1.prf: 6 snapshots, 2 tables" "$W/out" && [ ! -s "$W/err" ]
ok $? "version 1 then version 2 records: 6 snapshots, 2 tables, read clean"
run 0 "prfpr --from 2 --to 3 on the mixed file" "$B/prfpr" --from 2 --to 3 "$W/fake/v1.prf"
run 0 "prfpr --from 5 --to 6 on the mixed file" "$B/prfpr" --from 5 --to 6 "$W/fake/v1.prf"
# prf top in a terminal (tmux): sized to it, keys, no wrapping.
if command -v tmux >/dev/null 2>&1; then
	TM="tmux -L prf-host-test-$$ -f /dev/null"
	pane() {	# pane FILE PATTERN: the screen (wrapped lines joined) once it shows PATTERN (10 s at most)
		i=0
		while [ $i -lt 100 ]; do
			# a whole frame (its totals drawn) that shows PATTERN
			$TM capture-pane -J -p -t top >"$1" 2>/dev/null && grep -q -- "$2" "$1" &&
				grep -q "^kernel [0-9]\\|^EXIT=" "$1" && break
			sleep 0.1
			i=$((i + 1))
		done
	}
	for size in 80x24 200x50; do
		cols=${size%x*} lines=${size#*x}
		setdev 0 0
		$TM new-session -d -s top -x "$cols" -y "$lines" \
			"env TERM=screen LD_PRELOAD=$B/fakeprf.so FAKEPRF=$F FAKEPRF_GROW=1 $P top -f $F $KS -d 0.2; echo EXIT=\$?; sleep 30"
		pane "$W/pane" "^kernel [0-9]"
		head -1 "$W/pane" | grep -q "^prf top - [0-9:]* - [0-9]* Hz - every 0.20 s - " &&
			sed -n 2p "$W/pane" | grep -q "^q quit  s sort: samples  m module: all  o %of: kernel  t interval  p pause$" &&
			grep -q "^ *121  *23.91  \[outside kvm text\] *kvm  *#" "$W/pane" &&
			grep -q "^kernel [0-9]* ([0-9.]*%)  user [0-9]* " "$W/pane" &&
			[ "$(awk -v c="$cols" 'length($0) > c' "$W/pane" | wc -l)" = 0 ] &&
			[ "$(wc -l <"$W/pane")" -le "$lines" ]
		r=$?
		ok $r "prf top at $size: title, keys, rows and totals fit, nothing wraps"
		[ $r -eq 0 ] || diag "$W/pane"
		$TM send-keys -t top s
		pane "$W/pane" "s sort: address"
		sed -n 2p "$W/pane" | grep -q "s sort: address" &&
			[ "$(awk '/#$/ { print $3 }' "$W/pane" | head -2 | tr '\n' ' ')" = "startup_64 alpha " ]
		ok $? "prf top at $size: s sorts by address"
		$TM send-keys -t top m m
		pane "$W/pane" "m module: ext4"
		sed -n 2p "$W/pane" | grep -q "m module: ext4" && grep -q "ext4_a" "$W/pane" &&
			! grep -q " kvm  *#\| kernel  *#" "$W/pane"
		ok $? "prf top at $size: m m filters to the second module (ext4)"
		$TM send-keys -t top t
		pane "$W/pane" "since the load"
		head -1 "$W/pane" | grep -q "since the load, every" && sed -n 2p "$W/pane" | grep -q " t total "
		ok $? "prf top at $size: t switches to the total since the load"
		$TM send-keys -t top p
		pane "$W/pane" "^prf top PAUSED"
		head -1 "$W/pane" | grep -q "^prf top PAUSED - "
		ok $? "prf top at $size: p pauses"
		$TM send-keys -t top q
		pane "$W/pane" "^EXIT="
		grep -q "^EXIT=0$" "$W/pane" && [ "$(key on)" = 0 ]
		ok $? "prf top at $size: q quits (exit 0), sampling back off"
		$TM kill-server 2>/dev/null
		sleep 0.2
	done
	# More functions than lines: the rows shrink, the title stays on top.
	setdev 0 0
	$TM new-session -d -s top -x 80 -y 12 \
		"env TERM=screen LD_PRELOAD=$B/fakeprf.so FAKEPRF=$F FAKEPRF_GROW=1 $P top -f $F $KS -d 0.2; echo EXIT=\$?; sleep 30"
	pane "$W/pane" "more functions"
	head -1 "$W/pane" | grep -q "^prf top - " && [ "$(grep -c '#$' "$W/pane")" = 4 ] &&
		grep -q "^ *[0-9]*  *[0-9.]*  (7 more functions)$" "$W/pane" &&
		[ "$(wc -l <"$W/pane")" -le 12 ]
	r=$?
	ok $r "prf top at 80x12: 4 rows, a line for the 7 others, the title not scrolled away"
	[ $r -eq 0 ] || diag "$W/pane"
	$TM send-keys -t top q
	pane "$W/pane" "^EXIT="
	$TM kill-server 2>/dev/null
else
	skip "prf top in tmux" "tmux not installed"
fi
for c in stat record top; do
	"$P" $c --help | grep -q -- "--fixed" && "$P" $c --help | grep -q -- "--no-jitter"
	ok $? "prf $c --help names --fixed and --no-jitter"
done

# ---- the example ----
run 1 "examples/prfcount on a missing device" "$B/prfcount" "$W/nodev"
grep_err "nodev: No such file" "prfcount says why"

awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' "$T/../../README.md" >"$W/snippet.c"
same "$W/snippet.c" "$T/../examples/prfcount.c" "README.md shows examples/prfcount.c as compiled"

# ---- make install into a DESTDIR, then build the example against it ----
make -s -C "$T/.." install DESTDIR="$W/inst" PREFIX=/usr O="$B" >"$W/out" 2>&1
ok $? "make install DESTDIR= PREFIX=/usr"
for f in bin/prf bin/prfld bin/prfstat bin/prfsnap bin/prfdc bin/prfpr lib/libprf.a \
	include/libprf.h include/linux/prf.h share/man/man1/prf.1 share/man/man1/prfpr.1 \
	share/man/man4/prf.4; do
	[ -e "$W/inst/usr/$f" ] || { echo "# missing $f"; false; } || break
done
ok $? "install: binary, links, library, headers, man pages"
[ "$(readlink "$W/inst/usr/bin/prfld")" = prf ]
ok $? "install: prfld is a relative link to prf"
${CC:-cc} -o "$W/prfcount" "$T/../examples/prfcount.c" -I"$W/inst/usr/include" \
	-L"$W/inst/usr/lib" -lprf >"$W/out" 2>&1
ok $? "the README example builds against the installed header and library"

# ---- valgrind ----
if [ "${VALGRIND:-1}" != 0 ] && command -v valgrind >/dev/null 2>&1; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --show-leak-kinds=definite,indirect,possible"
	PRF_UNIT_QUICK=1 $VG "$B/unit_test" "$D" "$E" "$B/fakevmlinux" "$B/usym_pie" "$B/usym_nopie" "$B/usym_strip" \
	"$B/mapsymprog" >"$W/vg.out" 2>&1
	ok $? "valgrind: unit tests leak-free and clean"
	[ $? -eq 0 ] || tail -30 "$W/vg.out" | diag
	$VG "$B/series_test" >"$W/vg.out" 2>&1
	ok $? "valgrind: the series unit tests (daemon_series.c) clean"
	[ $? -eq 0 ] || tail -30 "$W/vg.out" | diag
	(cd "$W" && $VG "$B/prfpr" --json --all fixture.prf 0 "$D/kallsyms.txt") >"$W/vg.out" 2>&1
	ok $? "valgrind: prfpr --all with a namelist"
	$VG "$B/prfld" --dry-run $KS "$D/kallsyms.txt" >"$W/vg.out" 2>&1
	ok $? "valgrind: prfld -n"
	$VG "$B/prfld" --dry-run --kallsyms "$D/elf_kallsyms.txt" "$B/fakevmlinux" >"$W/vg.out" 2>&1
	ok $? "valgrind: prfld -n vmlinux (libelf)"
	$VG "$B/prfstat" -f "$W/regular" >"$W/vg.out" 2>&1
	[ $? -eq 1 ]
	ok $? "valgrind: prfstat error path"
	(cd "$W" && $VG "$B/prfpr" flip.prf) >"$W/vg.out" 2>&1
	[ $? -eq 1 ]
	ok $? "valgrind: prfpr on a corrupt file"
	(cd "$W" && $VG "$B/prfpr" --pprof vg.pb.gz -m kernel,ext4 --from 2 --to 3 fixture.prf) >"$W/vg.out" 2>&1
	ok $? "valgrind: prfpr --pprof"
	(cd "$W" && $VG "$B/prfpr" --diff other.prf:1:2 --json --to 3 fixture.prf) >"$W/vg.out" 2>&1
	ok $? "valgrind: prfpr --diff FILE:I:J"
	(cd "$W" && $VG "$B/prfpr" --list torn.prf) >"$W/vg.out" 2>&1
	ok $? "valgrind: prfpr on a torn file"
	(cd "$W" && $VG "$B/prfpr" --sort name -c 0 --from 2 --to 3 v1.prf) >"$W/vg.out" 2>&1
	ok $? "valgrind: prfpr --sort name on a version 1 file"
	if [ -n "${FKCH:-}" ]; then
		# the user call chains resolved and joined to the stacks (JSON, pprof)
		$FKCH $VG "$P" record $KS --no-cgroup -g --json --pprof "$W/vgc.pb.gz" -- true >"$W/vg.out" 2>&1
		ok $? "valgrind: prf record -g --json --pprof with user call chains"
		[ $? -eq 0 ] || tail -30 "$W/vg.out" | diag
		# the pairs read and joined to the kernel stacks (--folded)
		$FKCH FAKEPRF_STACKS="7:0:$KP" FAKEPRF_UPAIRS="4:0:$KP=0:$X@$OC|$X@$OC" \
			$VG "$P" record $KS --no-cgroup -g --folded -- true >"$W/vg.out" 2>&1
		ok $? "valgrind: prf record -g --folded with pairs"
		[ $? -eq 0 ] || tail -30 "$W/vg.out" | diag
		# kept in its file (version 10), read back, joined in every view
		rm -f "$W/vgp.prf"
		$FKCH FAKEPRF_STACKS="7:0:$KP" FAKEPRF_UPAIRS="4:0:$KP=0:$X@$OC|$X@$OC" \
			$VG "$P" record $KS --no-cgroup -g --json --pprof "$W/vgp.pb.gz" -o "$W/vgp.prf" \
			-- true >"$W/vg.out" 2>&1 &&
			$VG "$B/prfpr" --folded "$W/vgp.prf" >>"$W/vg.out" 2>&1 &&
			$VG "$B/prfpr" --callers alpha "$W/vgp.prf" >>"$W/vg.out" 2>&1
		ok $? "valgrind: prf record -g -o with pairs (JSON, pprof), prfpr --folded and --callers of its file"
		[ $? -eq 0 ] || tail -30 "$W/vg.out" | diag
		# prfsnap's two snapshots with pairs: the later less the earlier
		if [ -s "$W/fake/sp.prf" ]; then
			$VG "$B/prfpr" --folded "$W/fake/sp.prf" >"$W/vg.out" 2>&1 &&
				$VG "$B/prfpr" --json "$W/fake/sp.prf" >>"$W/vg.out" 2>&1
			ok $? "valgrind: prfpr --folded and --json between two snapshots with pairs"
			[ $? -eq 0 ] || tail -30 "$W/vg.out" | diag
		fi
	fi
else
	echo "# valgrind skipped"
fi

# ---- prf annotate, prfpr --html (files of their own) ----
. "$T/host_annotate.sh"
. "$T/host_html.sh"

# ---- call stacks and modes (tests/stacks_tests.sh) ----
. "$T/stacks_tests.sh"

# ---- unwind tables from the call frame information (tests/cfi_tests.sh) ----
. "$T/cfi_tests.sh"

# ---- the vDSO named and unwound through (tests/vdso_tests.sh) ----
. "$T/vdso_tests.sh"

# ---- the offcpu mode (tests/offcpu_tests.sh) ----
. "$T/offcpu_tests.sh"
# ---- the PMU source (tests/source_tests.sh) ----
. "$T/source_tests.sh"
# ---- what the timer cannot see: re-enable points (tests/irqoff_tests.sh) ----
. "$T/irqoff_tests.sh"

# ---- prf daemon: its store, HTTP and unit (tests/daemon_tests.sh, above) ----
daemon_done() {
	local st

	wait "$daemon_pid"
	st=$?
	cat "$W/daemon.out"
	return $st
}
sub_tap daemon daemon_done
webconf_done() {
	local st

	wait "$webconf_pid"
	st=$?
	cat "$W/webconf.out"
	return $st
}
sub_tap webconf webconf_done

# ---- man pages ----
for m in prf.1 prf.4; do
	if command -v groff >/dev/null 2>&1; then
		groff -ww -man -Tutf8 "$MAN/$m" >/dev/null 2>"$W/groff.err"
		[ $? -eq 0 ] && [ ! -s "$W/groff.err" ]
		ok $? "groff -ww -man -Tutf8 $m: no warnings"
		diag "$W/groff.err"
	fi
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man --warnings -l "$MAN/$m" >/dev/null 2>"$W/man.err"
		[ $? -eq 0 ] && [ ! -s "$W/man.err" ]
		ok $? "man --warnings -l $m: no warnings"
		diag "$W/man.err"
	fi
done

# ---- udev rules ----
# systemd 252 (Debian 12) has no "udevadm verify": a line-by-line check of
# the syntax udev accepts (KEY[{attr}]OP"value", comma separated), then the
# keys this rule needs.
R=$T/../../udev/60-prf.rules
if command -v udevadm >/dev/null 2>&1 && udevadm verify --help >/dev/null 2>&1; then
	udevadm verify "$R" >"$W/udev.err" 2>&1
	ok $? "udevadm verify 60-prf.rules"
	diag "$W/udev.err"
fi
kv='[A-Z_]+(\{[^}]+\})?(==|!=|=|\+=|-=|:=)"[^"]*"'
grep -Ev '^[[:space:]]*(#|$)' "$R" | grep -Evx "$kv(, *$kv)*" >"$W/udev.err"
[ ! -s "$W/udev.err" ]
ok $? "60-prf.rules: every rule line is KEY OP \"value\", comma separated"
diag "$W/udev.err"
grep -Eq '^SUBSYSTEM=="prf", KERNEL=="prf\*", .*GROUP="prf", MODE="0660"' "$R"
ok $? "60-prf.rules: class prf, group prf, mode 0660"

echo "1..$n"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
