# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tools/tests/waits.sh - helpers of the daemon's tests, host and guest
# (sourced): a condition waited for, and a series read from /metrics.

# val SERIES FILE: the value of a series in a Prometheus text answer (/metrics)
val() { awk -v k="$1" 'index($0, k " ") == 1 { print $NF }' "$2"; }
# wait_until SECONDS CMD...: true as soon as CMD is, false after SECONDS
wait_until() {
	_limit=$(($1 * 10)) _i=0
	shift
	until "$@"; do
		[ $_i -ge $_limit ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
