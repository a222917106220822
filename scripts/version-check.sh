#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/version-check.sh - the version has one home, the file VERSION:
# debian/changelog's latest entry, dkms.conf's PACKAGE_VERSION, prf
# --version (tools/build/prf, when built) and the MODULE_VERSION of each
# prf.ko named as an argument must all say the same.
#
#   scripts/version-check.sh [KO...]  TAP, then
# "N passed, N failed".

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 2
v=$(cat VERSION)
n=0
bad=0
check() { # NAME GOT
	n=$((n + 1))
	if [ "$2" = "$v" ]; then
		echo "ok $n - $1 says $v"
	else
		bad=$((bad + 1))
		echo "not ok $n - $1 says '$2', VERSION says '$v'"
	fi
}
check debian/changelog "$(sed -n '1s/^prf (\([^)]*\)).*/\1/p' debian/changelog)"
check dkms.conf "$(. ./dkms.conf && echo "$PACKAGE_VERSION")"
if [ -x tools/build/prf ]; then
	check "prf --version" "$(tools/build/prf --version | sed -n '1s/^prf \([^ ]*\) .*/\1/p')"
fi
for ko in "$@"; do
	check "$ko MODULE_VERSION" "$(/sbin/modinfo -F version "$ko")"
done
echo "$((n - bad)) passed, $bad failed"
[ $bad = 0 ]
