# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of call stacks and modes (issues 13 and 15): sourced by
# run_host_tests.sh, whose ok/run/same/grep_err, $B, $T, $D, $E, $W, $KS
# and $P it uses.  The fixtures are stacks_test's (--make-stacks,
# --make-alloc: see tests/stacks_test.c); the device commands run on the
# LD_PRELOAD stand-in (tests/fakeprf.c).

# ---- unit tests ----
sub_tap "stacks unit" "$B/stacks_test"

SW=$W/stacks
mkdir -p "$SW"
"$B/stacks_test" --make-stacks "$SW/st.prf" && "$B/stacks_test" --make-alloc "$SW/al.prf"
ok $? "stacks and alloc fixtures written"
cd "$SW" || exit 1

# ---- reports of the stacks fixture ----
run 0 "prfpr --folded with stacks" "$B/prfpr" --folded st.prf
same "$W/out" "$E/stacks.folded" "prfpr --folded: real stacks, root first, [truncated], as expected"
run 0 "prfpr --folded -m ext4: stacks whose leaf is in ext4" "$B/prfpr" --folded -m ext4 st.prf
printf 'alpha;beta;ext4_a 90\n' >"$SW/m.want"
same "$W/out" "$SW/m.want" "prfpr --folded -m ext4: that stack alone, no totals"
run 0 "prfpr --folded with a NAMELIST" "$B/prfpr" --folded --kallsyms "$D/kallsyms.txt" st.prf 0 "$D/kallsyms.txt"
printf 'startup_64;alpha;beta 500\nstartup_64;alpha;ext4_a 90\n[truncated];alpha;ext4_a;beta 10\n' >"$SW/nl.want"
head -3 "$W/out" >"$SW/nl.got"
same "$SW/nl.got" "$SW/nl.want" "prfpr NAMELIST renames the frames too (a PC nothing names keeps its name)"
run 0 "prfpr --callers gamma" "$B/prfpr" --callers gamma st.prf
cat >"$SW/callers.want" <<'X'
callers of gamma: 510 samples in 3 stacks
   samples    %func  caller
       500    98.04  beta [kernel]
        10     1.96  ext4_a [ext4]
X
same "$W/out" "$SW/callers.want" "prfpr --callers gamma: samples and shares of gamma's, exact"
run 0 "prfpr --callees beta --csv" "$B/prfpr" --callees beta --csv st.prf
printf 'samples,percent,callee,module,of\n500,83.33,gamma,kernel,beta\n100,16.67,ext4_a,ext4,beta\n' >"$SW/callees.want"
same "$W/out" "$SW/callees.want" "prfpr --callees beta --csv: exact"
run 0 "prfpr --callers alpha --json" "$B/prfpr" --callers alpha --json st.prf
grep -q '"function": "\[root\]", "module": "", "samples": 590, "percent": 100.00' "$W/out" &&
	grep -q '"samples": 590,' "$W/out" && grep -q '"stacks": 3,' "$W/out"
ok $? "prfpr --callers alpha --json: the root, 590 samples in 3 stacks, 100%"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$W/out" >/dev/null 2>&1
	ok $? "prfpr --callers --json is valid JSON"
fi
run 1 "prfpr --callers of a function in no stack" "$B/prfpr" --callers nosuch st.prf
grep_err "nosuch is in no stack of snapshots 1 to 2" "--callers nosuch: said"
run 2 "prfpr --callers with --folded" "$B/prfpr" --callers gamma --folded st.prf
grep_err "go with the text, --csv and --json" "--callers --folded: said"
run 2 "prfpr --callers and --callees together" "$B/prfpr" --callers gamma --callees beta st.prf
"$B/unit_test" --make-fixture flat.prf
run 1 "prfpr --callers on a file without stacks" "$B/prfpr" --callers alpha --from 2 --to 3 flat.prf
grep_err "have no stacks (take them with stacks on" "--callers without stacks: said how to get them"
run 0 "prfpr --folded without stacks: the flat lines as before" "$B/prfpr" --folded --from 2 --to 3 flat.prf 0
same "$W/out" "$E/report.folded" "prfpr --folded of a file without stacks unchanged"
run 0 "prfpr --json with stacks" "$B/prfpr" --json st.prf
if command -v python3 >/dev/null 2>&1; then
	python3 - "$W/out" >"$SW/json.got" 2>&1 <<'X'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["stacks"]
print(d["mode"], d["unit"], s["depth"], s["samples"], s["dropped"], len(s["stacks"]))
for st in sorted(s["stacks"], key=lambda x: -x["samples"]):
    print(st["samples"], st["truncated"], ";".join(f["function"] for f in st["frames"]),
          ",".join(f["module"] for f in st["frames"]))
X
	cat >"$SW/json.want" <<'X'
time samples 3 600 7 4
300 False alpha;beta;gamma kernel,kernel,kernel
200 False alpha;beta;gamma kernel,kernel,kernel
90 False alpha;beta;ext4_a kernel,kernel,ext4
10 True beta;ext4_a;gamma kernel,ext4,kernel
X
	same "$SW/json.got" "$SW/json.want" "prfpr --json: mode, depth, samples, dropped, each stack root first"
fi
grep -q '"address": "0xffffffff9a000230"' "$W/out"
ok $? "prfpr --json: frames carry their addresses"
run 0 "prfpr --html of a file with stacks (no --stacks FILE)" "$B/prfpr" --html st.html st.prf
sed -n '/^"stacks":\[/,/\]\],$/p' st.html >"$SW/html.got"
printf '"stacks":[\n["alpha;beta;gamma",500],\n["alpha;beta;ext4_a",90],\n["[truncated];beta;ext4_a;gamma",10],\n["[stack dropped]",7]],\n' >"$SW/html.want"
same "$SW/html.got" "$SW/html.want" "prfpr --html: the flame graph from the file's own stacks (of the kernel's samples)"
run 0 "prfpr --html --of all of a file with stacks" "$B/prfpr" --html st.html --of all st.prf
sed -n '/^"stacks":\[/,/\]\],$/p' st.html >"$SW/html.got"
printf '"stacks":[\n["alpha;beta;gamma",500],\n["alpha;beta;ext4_a",90],\n["[truncated];beta;ext4_a;gamma",10],\n["[user]",10],\n["[idle]",40],\n["[stack dropped]",7]],\n' >"$SW/html.want"
same "$SW/html.got" "$SW/html.want" "prfpr --html --of all: [user] and [idle] in the flame graph too"
# Snapshot files: the stacks are a record of their own (type 3, version 3).
[ "$(od -An -tu2 -j$((16 + $(od -An -tu4 -j8 -N4 st.prf) + 16 + $(od -An -tu4 -j$((16 + $(od -An -tu4 -j8 -N4 st.prf) + 8)) -N4 st.prf) + 4)) -N4 st.prf | tr -s ' ')" = " 3 3" ]
ok $? "the third record of the stacks fixture is of version 3, type 3"

# ---- pprof with stacks ----
run 0 "prfpr --pprof with stacks" "$B/prfpr" --pprof st.pb.gz st.prf
if command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; then
	go tool pprof -raw st.pb.gz >"$SW/raw" 2>&1
	# Each sample: its value and its locations' names, leaf first.
	awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0; l = 1; next } /^Mappings/ { l = 0 }
		s && /^ *[0-9]+ +[0-9]+:/ { v = $1; sub(/^[^:]*: */, ""); smp[++n] = v " " $0 }
		l && /^ *[0-9]+: 0x/ { id = $1; sub(":", "", id); n4 = $0; sub(/^.* M=[0-9]+ /, "", n4);
			sub(/ :0 s=0.*$/, "", n4); gsub(/ /, "_", n4); name[id] = n4 }
		END { for (i = 1; i <= n; i++) { split(smp[i], a, " "); line = a[1];
			for (k = 2; k in a; k++) line = line " " name[a[k]]; print line } }' "$SW/raw" |
		sort >"$SW/pp.got"
	cat >"$SW/pp.want" <<'X'
10 [user]
10 gamma ext4_a beta
200 gamma beta alpha
300 gamma beta alpha
40 [idle]
7 [stack_dropped]
90 ext4_a beta alpha
X
	same "$SW/pp.got" "$SW/pp.want" "go tool pprof -raw: a sample per stack, its locations leaf first"
	go tool pprof -top -nodecount=100 st.pb.gz 2>/dev/null |
		awk '$NF == "gamma" || $NF == "ext4_a" || $NF == "alpha" { print $NF, $1, $4 }' |
		sort >"$SW/top.got"
	printf 'alpha 0 590\next4_a 90 100\ngamma 510 510\n' >"$SW/top.want"
	same "$SW/top.got" "$SW/top.want" "go tool pprof -top: flat = the leaf samples, cum = the stacks through it"
	(cd "$SW" && "$B/prfpr" --pprof al.pb.gz al.prf && go tool pprof -raw al.pb.gz) >"$SW/alraw" 2>&1
	grep -q "^bytes/bytes\[dflt\]$" "$SW/alraw" && grep -q "^    3145728: 1 $" "$SW/alraw" &&
		grep -q "^PeriodType: bytes bytes$" "$SW/alraw"
	ok $? "go tool pprof -raw of alloc-bytes: one value, bytes, alpha's 3145728"
else
	skip "go tool pprof reads stacks" "go not installed"
fi

# ---- modes: the alloc-bytes fixture ----
run 0 "prfpr of an alloc-bytes file" "$B/prfpr" al.prf
grep -q "^mode alloc-bytes: counts bytes; counter N: outside table, N + 1: failed$" "$W/out"
ok $? "alloc-bytes: the mode and its counters in the header"
grep -q "^     bytes %kernel  function module$" "$W/out" &&
	grep -q "^   3.0 MiB   99.93  alpha    kernel" "$W/out" &&
	grep -q "^   2.0 KiB    0.07  (2 more functions, each at or below 1.00%)$" "$W/out"
ok $? "alloc-bytes: rows in bytes (MiB, KiB)"
grep -q "^outside table        100    0.00%$" "$W/out" && grep -q "^%kernel: share of 3147776 bytes (kernel); totals" "$W/out"
ok $? "alloc-bytes: counter N named, the base in bytes, of the kernel's counts"
! grep -Eq "^(outside|lost) +[0-9]|kernel PC|late timer" "$W/out"
ok $? "alloc-bytes: no time-mode lines (a PC outside every function, late periods)"
sed -n '/^per call site/,$p' "$W/out" >"$SW/sites.got"
cat >"$SW/sites.want" <<'X'
per call site (alloc-bytes): allocations, bytes requested and allocated, frees seen and not seen, bytes still held
    allocs  requested  allocated    frees   unseen       held  site
         3    2.9 MiB    3.0 MiB        1        1    1.0 MiB  alpha [kernel]
         3    1.5 KiB    1.5 KiB        3        0        0 B  beta [kernel]
         1      500 B      512 B        0        0      512 B  gamma [kernel]
         2       90 B      100 B        0        0      100 B  [outside table]
unseen: frees prf cannot see, found when the address was allocated again (not held): 1, 1.0 MiB
(kmem_cache_free_bulk(), kfree_bulk() and kfree_rcu()'s batches fire no free tracepoint: until its address is allocated again, such an allocation counts as held)
X
same "$SW/sites.got" "$SW/sites.want" "alloc-bytes: per site allocs, bytes requested/allocated, frees seen and unseen, held, and what prf cannot see"
run 0 "prfpr --csv of an alloc-bytes file" "$B/prfpr" --csv al.prf
sed -n '/^site,/,$p' "$W/out" >"$SW/csv.got"
printf 'site,module,allocs,bytes_requested,bytes_allocated,frees,bytes_freed,bytes_held,frees_unseen,bytes_unseen\nalpha,kernel,3,3000000,3145728,1,1048576,1048576,1,1048576\nbeta,kernel,3,1500,1536,3,1536,0,0,0\ngamma,kernel,1,500,512,0,0,512,0,0\n[outside table],,2,90,100,0,0,100,0,0\n' >"$SW/csv.want"
same "$SW/csv.got" "$SW/csv.want" "alloc-bytes --csv: the sites, exact"
run 0 "prfpr --json of an alloc-bytes file" "$B/prfpr" --json al.prf
grep -q '"mode": "alloc-bytes",' "$W/out" && grep -q '"unit": "bytes",' "$W/out" &&
	grep -q '{"site": "alpha", "module": "kernel", "allocs": 3, "bytes_requested": 3000000, "bytes_allocated": 3145728, "frees": 1, "bytes_freed": 1048576, "frees_unseen": 1, "bytes_unseen": 1048576, "bytes_held": 1048576}' "$W/out"
ok $? "alloc-bytes --json: mode, unit, sites"
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$W/out" >/dev/null 2>&1
	ok $? "alloc-bytes --json is valid JSON"
fi
cd - >/dev/null || exit 1

# ---- the options on the stand-in device ----
SF=$W/stacks/prf
SL=$W/stacks/log
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$SF"
SK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$SF FAKEPRF_LOG=$SL"
slogged() {	# slogged EXPECTED DESCRIPTION
	printf '%s\n' "$1" | sed '/^$/d' >"$SW/log.want"
	same "$SL" "$SW/log.want" "$2"
	: >"$SL"
}
$SK "$B/prfld" -q -f "$SF" $KS "$D/kallsyms.txt"
: >"$SL"
for bad in 65 x 0,5 16,0 16,1048577 -1 ""; do
	run 2 "prfstat --stacks '$bad': usage error" $SK "$B/prfstat" -f "$SF" --stacks "$bad"
	grep_err "want DEPTH\[,CAPACITY\]: a depth of 1..64 frames (0: off) and 1..1048576 stacks kept (default 4096)" \
		"prfstat --stacks '$bad': the ranges said"
done
run 2 "prfstat --mode bogus" $SK "$B/prfstat" -f "$SF" --mode bogus
grep_err "mode bogus: want time, alloc-calls, alloc-bytes, calls or offcpu" "--mode bogus: the modes named"
[ ! -s "$SL" ]
ok $? "bad --stacks/--mode: no call made"
run 0 "prfstat -v --stacks 16 on" $SK "$B/prfstat" -v -f "$SF" --stacks 16 on
slogged "SETSTACKS 16 4096
SETSTATE 1" "prfstat --stacks 16 on: depth 16, the default 4096 stacks, then on"
grep -q "^stacks  *depth 16, capacity 4096, dropped 0$" "$W/out" && grep -q "^mode  *time (samples)$" "$W/out"
ok $? "prfstat shows the stack set-up and the mode"
run 1 "prfstat --stacks 8 while ON" $SK "$B/prfstat" -f "$SF" --stacks 8
grep_err "PRF_SETSTACKS: Device or resource busy (sampling is ON" "--stacks while ON: EBUSY said"
# the calls mode on a table of thousands of addresses: set, with a warning
CF=$W/stacks/prfcalls
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$CF"
CK="env LD_PRELOAD=$B/fakeprf.so FAKEPRF=$CF FAKEPRF_LOG=$W/stacks/calls.log"
$CK "$B/prfld" -q -f "$CF" $KS --step 2 "$D/kallsyms.txt"
run 0 "prfstat --mode calls, a table of 2049 addresses (2048 buckets and the end)" $CK "$B/prfstat" -q -f "$CF" --mode calls
grep_err "warning: $CF: the calls mode traces every address of its table (2049 here): every call of them costs" \
	"--mode calls on 2049 addresses: warned"
! grep -q "minutes" "$W/err"
ok $? "--mode calls on 2049 addresses: no word of minutes to turn on (it takes seconds)"
grep -q '^SETMODE 3$' "$W/stacks/calls.log"
ok $? "--mode calls on 2049 addresses: set all the same"
run 0 "prfstat -v on in the calls mode" $CK FAKEPRF_REFUSED=512 "$B/prfstat" -v -f "$CF" on
grep_err "^prfstat: $CF: calls mode: 512 of 2049 addresses refused (no traceable function starts there: not counted)$" \
	"prfstat on in the calls mode: says how many addresses ftrace refused"
grep -q "^refused  *512$" "$W/out"
ok $? "prfstat on in the calls mode: the status shows them as refused"
run 0 "prfstat -q off" $CK "$B/prfstat" -q -f "$CF" off
run 0 "prfstat -q on in the calls mode" $CK FAKEPRF_REFUSED=512 "$B/prfstat" -q -f "$CF" on
[ ! -s "$W/err" ]
ok $? "prfstat -q on in the calls mode: quiet"
run 0 "prfstat -q off" $CK "$B/prfstat" -q -f "$CF" off
$CK "$B/prfld" -q -f "$CF" $KS "$D/kallsyms.txt"
run 0 "prfstat --mode calls, a table of functions" $CK "$B/prfstat" -q -f "$CF" --mode calls
[ ! -s "$W/err" ]
ok $? "--mode calls on a few functions: no warning"
run 1 "prfstat --mode calls while ON" $SK "$B/prfstat" -f "$SF" --mode calls
grep_err "PRF_SETMODE: Device or resource busy" "--mode while ON: EBUSY said"
: >"$SL"
run 0 "prfstat --mode alloc-calls --stacks 4,100 off then on" $SK "$B/prfstat" -q -f "$SF" off
run 0 "prfstat --mode alloc-calls --stacks 4,100 on" $SK "$B/prfstat" -q -f "$SF" --mode alloc-calls --stacks 4,100 on
slogged "SETSTATE 0
SETMODE 1
SETSTACKS 4 100
SETSTATE 1" "prfstat --mode alloc-calls --stacks 4,100 on: the mode, the stacks, on"
run 0 "prfstat --mode alloc-calls again (unchanged: not set)" $SK "$B/prfstat" -q -f "$SF" off
run 0 "prfstat --mode alloc-calls --stacks 0" $SK "$B/prfstat" -q -f "$SF" --mode alloc-calls --stacks 0
slogged "SETSTATE 0
SETSTACKS 0 0" "the same mode is not set again (it would zero the counters); --stacks 0 turns them off"
# prfsnap with stacks: the synthetic stacks of the fake (A[i] + 4 called from A[0] + 0x11).
$SK "$B/prfstat" -q -f "$SF" --mode time --stacks 8 on
rm -f "$SW/snap.prf"
run 0 "prfsnap with stacks on" $SK FAKEPRF_GROW=1 "$B/prfsnap" -f "$SF" $KS "$SW/snap.prf"
run 0 "prfpr --folded --since-load of it" "$B/prfpr" --folded --since-load "$SW/snap.prf"
grep -q "^startup_64;kvm_b 100$" "$W/out" && grep -q "^startup_64;alpha 4$" "$W/out" &&
	grep -q "^startup_64 1$" "$W/out" && grep -q "^\[idle\] 50$" "$W/out"
ok $? "prfsnap wrote the device's stacks, named from kallsyms, root first"
run 0 "prfpr --callers kvm_b of it" "$B/prfpr" --callers kvm_b --since-load "$SW/snap.prf"
grep -q "^       100   100.00  startup_64 \[kernel\]$" "$W/out"
ok $? "prfpr --callers kvm_b: the synthetic caller, 100%"
# A table someone loaded by buckets skips functions: each frame is named
# by the whole namelist (alpha and gamma), never by the bucket at or below
# it that starts at a function (startup_64 and beta).
$SK "$B/prfstat" -q -f "$SF" off
run 0 "prfld --step 512: buckets at startup_64, beta, weak_delta and between" \
	$SK "$B/prfld" -q -f "$SF" $KS --step 512 "$D/kallsyms.txt"
$SK "$B/prfstat" -q -f "$SF" on
rm -f "$SW/buckets.prf"
run 0 "prfsnap with stacks over a table of buckets" $SK \
	FAKEPRF_STACKS="3:0:ffffffff9a000310,ffffffff9a000121" "$B/prfsnap" -f "$SF" $KS "$SW/buckets.prf"
run 0 "prfpr --folded --since-load of it" "$B/prfpr" --folded --since-load "$SW/buckets.prf"
grep -q "^alpha;gamma 3$" "$W/out"
ok $? "prfsnap over a table of buckets: frames named by the namelist's functions"
$SK "$B/prfstat" -q -f "$SF" off
$SK "$B/prfld" -q -f "$SF" $KS "$D/kallsyms.txt"
$SK "$B/prfstat" -q -f "$SF" on
# prfsnap in an alloc mode: the sites with the frees prf did not see
# (PRF_SITES_V2), and from a module without them (their counts 0).
$SK "$B/prfstat" -q -f "$SF" --mode alloc-calls --stacks 0 off
rm -f "$SW/sites.prf" "$SW/sites1.prf"
run 0 "prfsnap in alloc-calls mode" $SK FAKEPRF_SITES=0:5:500:640:2:256:3:384 "$B/prfsnap" -f "$SF" $KS "$SW/sites.prf"
run 0 "prfpr --csv --since-load of it" "$B/prfpr" --csv --since-load "$SW/sites.prf"
grep -q ',kernel,5,500,640,2,256,0,3,384$' "$W/out"
ok $? "prfsnap: the sites with the frees not seen, none held"
run 0 "prfsnap in alloc-calls mode, a module without PRF_SITES_V2" $SK FAKEPRF_SITES_V1=1 FAKEPRF_SITES=0:5:500:640:2:256:3:384 "$B/prfsnap" -f "$SF" $KS "$SW/sites1.prf"
run 0 "prfpr --csv --since-load of it" "$B/prfpr" --csv --since-load "$SW/sites1.prf"
grep -q ',kernel,5,500,640,2,256,384,0,0$' "$W/out"
ok $? "prfsnap of a module without PRF_SITES_V2: its sites, no frees not seen"
$SK "$B/prfstat" -q -f "$SF" --mode time
# A device of version 3: no stacks, no modes, said.
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 3\naddrs 0\n' >"$SF"
run 1 "prfstat --stacks 8 on a version 3 device" $SK "$B/prfstat" -f "$SF" --stacks 8
grep_err "has no stack table (a prf module before version 4" "--stacks on an old module: said"
run 1 "prfstat --mode calls on a version 3 device" $SK "$B/prfstat" -f "$SF" --mode calls
grep_err "has no modes (a prf module before version 4" "--mode on an old module: said"

# ---- prf record and prf top ----
run 2 "prf record --stack-depth 65" "$P" record -g --stack-depth 65 -- true
grep_err "stack-depth 65: want 1..64 frames" "record --stack-depth 65: said"
run 2 "prf record --stack-depth without -g" "$P" record --stack-depth 8 -- true
grep_err "stack-depth goes with -g" "record --stack-depth without -g: said"
run 2 "prf record --mode bogus" "$P" record --mode bogus -- true
run 2 "prf top --stack-depth 0" "$P" top -g --stack-depth 0
run 2 "prf top --tasks -g" "$P" top --tasks -g
SC=$W/stacks/clone
: >"$SL"
run 0 "prf record -g --stack-depth 12 --mode calls -- true" $SK FAKEPRF_CLONE="$SC" "$P" record $KS --no-cgroup -g --stack-depth 12 --mode calls -- true
sed -e 's/^clone //' -e 's/^\(SETFILTER [0-9]\) [0-9]*$/\1 X/' -e 's/^LOAD [0-9]*$/LOAD X/' "$SL" >"$SW/rec.got"
printf 'SETFILTER 1 X\nLOAD X\nSETFLAGS 8\nSETMODE 3\nSETSTACKS 12 4096\nSETSTATE 1\nSETSTATE 0\n' >"$SW/rec.want"
same "$SW/rec.got" "$SW/rec.want" "prf record -g --mode calls: mode and stacks set on its instance before ON"
grep -q "^     calls %kernel" "$W/out" && grep -q "^mode calls: counts calls" "$W/out"
ok $? "prf record --mode calls: the report counts calls"
run 0 "prf record --mode calls -- true, 7 addresses refused" $SK FAKEPRF_CLONE="$SC" FAKEPRF_REFUSED=7 "$P" record $KS --no-cgroup --mode calls -- true
grep_err "^prf record: /dev/prfclone: calls mode: 7 of [0-9]* addresses refused (no traceable function starts there: not counted)$" \
	"prf record --mode calls: says how many addresses ftrace refused"
printf 'on 0\nhz 100\nflags 0\nmax 4096\nversion 4\naddrs 0\n' >"$SF"
$SK "$B/prfld" -q -f "$SF" $KS "$D/kallsyms.txt"
: >"$SL"
run 0 "prf top -g -n 1 (not a terminal)" $SK FAKEPRF_GROW=1 FAKEPRF_LOG="$SL" "$P" top -f "$SF" $KS -g -n 1 -d 0.1 --lines 3
grep -q "^callers of \[outside kvm text\] (row 1; j/k select): in no stack of the interval$" "$W/out"
ok $? "prf top -g: the callers panel of the selected (first) row, none in the stacks"
grep -E '^(SETSTACKS|SETSTATE|SETMODE)' "$SL" | tr '\n' ' ' >"$SW/top.log"
[ "$(cat "$SW/top.log")" = "SETSTACKS 32 4096 SETSTATE 1 SETSTATE 0 SETSTACKS 0 0 " ] &&
	! grep -q "^depth [1-9]" "$SF"
ok $? "prf top -g: stacks of the default depth 32 set before ON, the device's own (none) back at exit ($(cat "$SW/top.log"))"
$SK "$B/prfstat" -q -f "$SF" --stacks 32
run 0 "prf top -g with stacks whose leaf is the first row" $SK FAKEPRF_GROW=1 \
	FAKEPRF_STACKS="7:0:ffffffffc0004000,ffffffff9a000211;3:0:ffffffffc0004000,ffffffff9a000311" \
	"$P" top -f "$SF" $KS -g -n 1 -d 0.1 --lines 3
sed -n '/^callers of/,$p' "$W/out" | sed '/^$/d' >"$SW/topc.got"
# The fake's stack counts are the listed ones times its reads: 2 before
# the interval, 3 at its end, so the interval has 7 and 3 (21 and 9 since ON).
printf 'callers of [outside kvm text]: 10 samples in 2 stacks\n   samples    %%func  caller\n         7    70.00  beta [kernel]\n         3    30.00  gamma [kernel]\n' >"$SW/topc.want"
same "$SW/topc.got" "$SW/topc.want" "prf top -g: the selected row's callers in the interval (return addresses named as the call)"
# In a terminal: j selects the second row (kvm_b), whose callers show.
if command -v tmux >/dev/null 2>&1; then
	TMS="tmux -L prf-stacks-test-$$ -f /dev/null"
	spane() {	# spane PATTERN: the screen in $SW/pane once it shows PATTERN (10 s at most)
		i=0
		while [ $i -lt 100 ]; do
			$TMS capture-pane -J -p -t top >"$SW/pane" 2>/dev/null && grep -q -- "$1" "$SW/pane" && break
			sleep 0.1
			i=$((i + 1))
		done
	}
	$TMS new-session -d -s top -x 100 -y 40 \
		"env TERM=screen LD_PRELOAD=$B/fakeprf.so FAKEPRF=$SF FAKEPRF_GROW=1 FAKEPRF_STACKS=5:0:ffffffffc0003094,ffffffff9a000211 $P top -f $SF $KS -g -d 0.2; echo EXIT=\$?; sleep 30"
	spane "^callers of \[outside kvm text\]"
	sed -n 2p "$SW/pane" | grep -q "  p pause  j/k select$"
	ok $? "prf top -g in a terminal: the keys line names j/k"
	$TMS send-keys -t top j
	spane "^callers of kvm_b:"
	grep -q "^callers of kvm_b: 5 samples in 1 stack$" "$SW/pane" &&
		grep -q "^ *5   100.00  beta \[kernel\]$" "$SW/pane"
	r=$?
	ok $r "prf top -g: j selects the next row (kvm_b): its caller beta, 100%, 5 samples in the interval"
	[ $r -eq 0 ] || diag "$SW/pane"
	# t: the stacks since sampling started (5 times the reads, at least 3).
	$TMS send-keys -t top t
	spane "  t total  "
	sleep 0.5
	spane "^callers of kvm_b:"
	n=$(sed -n 's/^callers of kvm_b: \([0-9]*\) samples in 1 stack$/\1/p' "$SW/pane")
	[ -n "$n" ] && [ "$n" -ge 15 ] && [ $((n % 5)) -eq 0 ]
	r=$?
	ok $r "prf top -g: t shows the callers since sampling started ($n samples)"
	[ $r -eq 0 ] || diag "$SW/pane"
	$TMS send-keys -t top t
	spane "  t interval  "
	$TMS send-keys -t top k
	spane "^callers of \[outside kvm text\]"
	grep -q "^callers of \[outside kvm text\] (row 1; j/k select): in no stack of the interval$" "$SW/pane"
	ok $? "prf top -g: k back to the first row"
	$TMS send-keys -t top q
	spane "^EXIT="
	grep -q "^EXIT=0$" "$SW/pane"
	ok $? "prf top -g: q quits (exit 0)"
	$TMS kill-server 2>/dev/null
else
	skip "prf top -g in tmux" "tmux not installed"
fi
: >"$SL"
run 0 "prf top --mode alloc-bytes -n 1" $SK FAKEPRF_GROW=1 FAKEPRF_LOG="$SL" "$P" top -f "$SF" $KS --mode alloc-bytes -n 1 -d 0.1 --lines 2
grep -q "^     bytes %kernel  function" "$W/out" && grep -q "^     121 B   23.91  \[outside kvm text\]" "$W/out" &&
	grep -q "outside table 5 (0.9%)  failed 50 (8.9%)$" "$W/out"
ok $? "prf top --mode alloc-bytes: bytes, counters N/N+1 named by the mode, no time-mode counts after them"
grep -E '^(SETMODE|SETSTATE)' "$SL" | tr '\n' ' ' >"$SW/top.log"
[ "$(cat "$SW/top.log")" = "SETMODE 2 SETSTATE 1 SETSTATE 0 SETMODE 0 " ] && ! grep -q "^mode [1-9]" "$SF"
ok $? "prf top --mode alloc-bytes: set on the device for the view, the time mode back at exit ($(cat "$SW/top.log"))"

# ---- valgrind ----
if [ -n "$VG" ]; then
	$VG "$B/stacks_test" >"$SW/vg.out" 2>&1
	ok $? "valgrind: stacks_test leak-free and clean"
	(cd "$SW" && $VG "$B/prfpr" --folded st.prf && $VG "$B/prfpr" --json st.prf &&
		$VG "$B/prfpr" --callers gamma st.prf && $VG "$B/prfpr" --pprof vg.pb.gz st.prf &&
		$VG "$B/prfpr" --csv al.prf) >"$SW/vg.out" 2>&1
	ok $? "valgrind: prfpr --folded, --json, --callers, --pprof with stacks, alloc sites"
	$SK FAKEPRF_GROW=1 $VG "$B/prfsnap" -f "$SF" $KS "$SW/vg.prf" >"$SW/vg.out" 2>&1
	ok $? "valgrind: prfsnap with stacks and a mode"
	[ $? -eq 0 ] || diag "$SW/vg.out"
fi

# More stacks than libprf's first room (4096): it grows to the capacity.
printf 'on 0\nhz 100\nflags 0\nmax 8192\nversion 4\naddrs 0\n' >"$SF"
$SK "$B/prfld" -q -f "$SF" $KS --step 1 -m kernel "$D/kallsyms.txt"
$SK "$B/prfstat" -q -f "$SF" --stacks 2,8192 on
rm -f "$SW/big.prf"
run 0 "prfsnap of 4097 stacks" $SK FAKEPRF_GROW=1 "$B/prfsnap" -f "$SF" $KS "$SW/big.prf"
run 0 "prfpr --json of them" "$B/prfpr" --json --since-load "$SW/big.prf"
[ "$(grep -c '"truncated"' "$W/out")" = 4097 ]
ok $? "all 4097 stacks read (libprf's room grown past 4096)"
$SK "$B/prfstat" -q -f "$SF" off
$SK "$B/prfstat" -q -f "$SF" --stacks 2,4096 on
rm -f "$SW/big.prf"
run 0 "prfsnap of a full table of 4096 stacks" $SK FAKEPRF_GROW=1 "$B/prfsnap" -f "$SF" $KS "$SW/big.prf"
run 0 "prfpr --json of them" "$B/prfpr" --json --since-load "$SW/big.prf"
[ "$(grep -c '"truncated"' "$W/out")" = 4096 ]
ok $? "a table of capacity 4096, full: its 4096 stacks read"
