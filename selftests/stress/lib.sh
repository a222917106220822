# SPDX-License-Identifier: GPL-2.0
#
# selftests/stress/lib.sh - shared by run-short.sh and run-long.sh.
#
# Inside a test-bed guest (PRF_KERNEL set by selftests/vm/run) the drivers run
# the stress programs one after the other, TAP passed through as is, adding a
# result of their own only where a program's output would hide a failure
# (as selftests/vm/suite does).  On the host they build the programs and boot
# one guest per kernel running themselves, plus a guest booted with
# lockdown=confidentiality for prf_access --lockdown.

STRESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$STRESS/../.." && pwd)

n=0
failed=0

# run_prog PROGRAM ARGS...: one program inside the guest.
run_prog() {
	local prog=$1 out rc results t0=$SECONDS
	shift
	n=$((n + 1))
	out=$(mktemp)
	echo "# stress: $prog $*"
	if [ ! -x "$STRESS/$prog" ]; then
		echo "not ok $n $prog # not built (make -C selftests/stress on the host)"
		failed=1
		return
	fi
	"$STRESS/$prog" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	results=$(grep -Ec '^[# ]*(not )?ok [0-9]+' "$out")
	if [ "$rc" = 4 ]; then
		echo "# stress: $prog skipped (exit status 4)"
	elif [ "$rc" != 0 ]; then
		failed=1
		grep -Eq '^[# ]*not ok [0-9]+' "$out" ||
			echo "not ok $n $prog # exit status $rc without a failed test"
	elif [ "$results" = 0 ]; then
		failed=1
		echo "not ok $n $prog # printed no TAP result"
	fi
	echo "# stress: $prog: exit status $rc, $((SECONDS - t0)) s"
	rm -f "$out"
}

# host_run MODE TIMEOUT_PER_GUEST: build, then a guest per kernel and the
# lockdown guest.  PRF_STRESS_KERNELS overrides the kernel list.
host_run() {
	local mode=$1 timeout=$2 k rc=0 kernels
	kernels=${PRF_STRESS_KERNELS:-"debug-7.x debian-6.1"}
	make -s -C "$STRESS" || return 1
	for k in $kernels; do
		if [ ! -f "$TOP/build/$k/prf.ko" ] && [ -f "$TOP/Makefile" ]; then
			make -s -C "$TOP" KERNEL="$k" module || rc=1
		fi
		"$TOP/selftests/vm/run" --kernel "$k" --timeout "$timeout" \
			-- "$STRESS/run-$mode.sh" || rc=1
	done
	case " $kernels " in
	*" debug-7.x "*)
		"$TOP/selftests/vm/run" --kernel debug-7.x --timeout 300 \
			--append "lockdown=confidentiality" \
			-- "$STRESS/prf_access" --lockdown || rc=1 ;;
	esac
	return $rc
}
