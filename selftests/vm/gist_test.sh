#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/gist_test.sh - selftests/vm/run --gist on the console logs
# of selftests/vm/gist/: each *.log's gist must be its *.want, byte for
# byte (an empty .want: a log with no kernel report has no gist).  TAP.

set -u
cd "$(dirname "${BASH_SOURCE[0]}")" || exit 2
n=0 bad=0
for log in gist/*.log; do
	n=$((n + 1))
	want=${log%.log}.want
	if got=$(./run --gist "$log") && [ "$got" = "$(cat "$want")" ]; then
		echo "ok $n ${log#gist/}"
	else
		echo "not ok $n ${log#gist/}: got \"$got\", want \"$(cat "$want")\""
		bad=$((bad + 1))
	fi
done
echo "1..$n"
[ "$n" -gt 0 ] && [ "$bad" = 0 ]
