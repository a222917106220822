#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/truth-guest.sh - the truth bench's driver, run INSIDE the guest
# (bench/truth.sh boots it).  For every variant of the workload (truth.c)
# and every contender, one after the other in this boot:
#
#   start the worker (pinned to CPU 1, blocked on a FIFO), start the
#   contender on it, release the worker for TRUTH_SECS, stop the contender,
#   print what it counted for the worker and what the worker measured:
#
#   BEGIN-TRUTH variant=V contender=C
#   TRUTH key=value...          the worker's own measure (the truth)
#   N name                      samples of the worker, by function
#   END-TRUTH
#
# Contenders (TRUTH_CONTENDERS): prf (the default, stratified), prffixed
# (PRF_FLAG_FIXED), both with PRF_FLAG_USERPC and a tgid filter on the
# worker; perf (perf record -e cpu-clock -F HZ -a, the worker's samples
# from perf script); bpf (bpftrace profile:hz:HZ with a pid filter, the
# interrupted PC's kernel or user symbol).  A contender that fails to run
# prints TRUTH-FAIL; truth_report.py fails the run on it and on a
# contender that counted less than half its nominal samples.

B=$(cd "$(dirname "$0")" && pwd)/out
T=$B/truth
HZ=${TRUTH_HZ:-1000}
SECS=${TRUTH_SECS:-4}
# prf's default places each sample at random in its period: its error is
# sampling noise, which only more samples shrink (the others' is a bias)
SECS_PRF=${TRUTH_SECS_PRF:-16}
FIFO=/tmp/truth.fifo
fail=0

bad() { echo "TRUTH-FAIL $*"; fail=1; }

# Booted with maxcpus=1 (see bench/README.md): bring the other CPUs up.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat "$f")" = 1 ] || echo 1 >"$f" || bad "cannot online $f"
done
echo "META kernel=$(uname -r) cpus=$(nproc) hz=$HZ secs=$SECS secs_prf=$SECS_PRF clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
[ -e /dev/prf ] || bad "/dev/prf missing (prf.ko not loaded)"
if [ ! -e /proc/prf_test_kmod ]; then
	[ -n "$PRF_TEST_KMOD" ] && insmod "$PRF_TEST_KMOD" ||
		bad "cannot load the test module (PRF_TEST_KMOD=$PRF_TEST_KMOD)"
fi

# perf script lines "pid ip sym" -> "count sym" for the worker's samples
perf_counts() {
	perf script -i /tmp/perf.data -F pid,ip,sym 2>/dev/null |
		awk -v w="$1" '$1 == w { s = (NF >= 3) ? $3 : "[unknown]"; n[s]++ }
			END { for (s in n) print n[s], s }'
}

# bpftrace "@[ksym, usym]: N" -> "count sym": the kernel symbol when the
# PC was the kernel's, else the user one
bpf_counts() {
	sed -n 's/^@\[\(.*\), \(.*\)\]: \([0-9]*\)$/\3 \1 \2/p' "$1" |
		awk '{ s = ($2 ~ /^0x/) ? $3 : $2; sub(/\+[0-9]+$/, "", s); n[s] += $1 }
			END { for (s in n) print n[s], s }'
}

run_one() {	# variant contender
	v=$1 c=$2
	rm -f "$FIFO" "$FIFO.out" /tmp/counts
	mkfifo "$FIFO" "$FIFO.out" || { bad "$v $c: mkfifo"; return; }
	# the worker's line comes through a FIFO: waiting for it costs no CPU
	secs=$SECS
	[ "$c" = prf ] && secs=$SECS_PRF
	"$T" work "$v" "$secs" "$FIFO" >"$FIFO.out" 2>/tmp/truth.err &
	w=$!
	exec 4<"$FIFO.out"
	p=
	case $c in
	prf)	"$T" prfon "$w" strat "$HZ" || bad "$v $c: prfon" ;;
	prffixed) "$T" prfon "$w" fixed "$HZ" || bad "$v $c: prfon" ;;
	perf)	rm -f /tmp/perf.data
		perf record -q -e cpu-clock -F "$HZ" -a -o /tmp/perf.data \
			2>/tmp/contender.err &
		p=$! ;;
	bpf)	bpftrace -e "profile:hz:$HZ /pid == $w/ { @[ksym(reg(\"ip\")), usym(reg(\"ip\"))] = count(); }" \
			>/tmp/bpf.out 2>/tmp/contender.err &
		p=$!
		i=0
		until grep -q Attaching /tmp/bpf.out || [ $i -ge 600 ]; do
			sleep 0.1; i=$((i + 1))
		done ;;
	*)	bad "unknown contender $c" ;;
	esac
	sleep 1		# the contender's start-up over before the work starts
	exec 3>"$FIFO"	# the worker opens it after its warm-up
	echo go >&3
	line=
	read -r line <&4
	exec 4<&-
	case $c in
	prf|prffixed)
		"$T" prfoff >/tmp/counts 2>/tmp/contender.err ||
			bad "$v $c: prfoff: $(cat /tmp/contender.err)"
		echo "META $v $c $(cat /tmp/contender.err)" ;;
	perf)	# perf record's status after SIGINT is not 0 on every version:
		# its samples are what is checked
		kill -INT "$p"; wait "$p"
		echo "META $v $c perf record exit $?"
		perf_counts "$w" >/tmp/counts ;;
	bpf)	kill -INT "$p"; wait "$p" || bad "$v $c: bpftrace: $(tail -n2 /tmp/contender.err)"
		bpf_counts /tmp/bpf.out >/tmp/counts ;;
	esac
	echo end >&3
	exec 3>&-
	wait "$w" || bad "$v $c: the worker failed: $(cat /tmp/truth.err)"
	echo "BEGIN-TRUTH variant=$v contender=$c"
	case $line in
	"TRUTH "*) echo "$line" ;;
	*) bad "$v $c: no TRUTH line: $line $(cat /tmp/truth.err)" ;;
	esac
	cat /tmp/counts
	echo "END-TRUTH"
}

for v in ${TRUTH_VARIANTS:-mixed phase}; do
	for c in ${TRUTH_CONTENDERS:-prf prffixed perf bpf}; do
		echo "truth: $v $c" >&2
		run_one "$v" "$c"
	done
done
echo "TRUTH-DONE fail=$fail"
exit $fail
