#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/piuparts.sh - Debian's piuparts on the packages make deb built:
# a minimal bookworm chroot of its own (debootstrap from the mirror), the
# three packages installed together, adequate's checks, then purged, and
# the chroot's files compared before and after.  The upgrade test needs
# an archive that holds an older prf: scripts/deb-test.sh does that one
# (1.0~test to 1.1), with DKMS builds and the guest.
#
#   scripts/piuparts.sh [LOGDIR]       (root; installs piuparts if absent)
#
# Not in make check: deb-test.sh makes the same file-list checks in the
# fresh root, and piuparts' own chroot inside that root is not tried.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGDIR=${1:-$TOP/build/piuparts}
MIRROR=${PRF_MIRROR:-http://deb.debian.org/debian}

command -v piuparts >/dev/null ||
	apt-get -o DPkg::Lock::Timeout=900 install -y piuparts >/dev/null
make -C "$TOP" deb
mkdir -p "$LOGDIR"
cd "$TOP/build/deb"
debs=(prf_*_amd64.deb prf-dkms_*_all.deb libprf-dev_*_amd64.deb)
piuparts -d bookworm -m "$MIRROR" --no-eatmydata --warn-on-leftovers-after-purge \
	-l "$LOGDIR/piuparts.log" "${debs[@]}" >"$LOGDIR/out.txt" 2>&1 || {
	grep -E 'ERROR|FAIL' "$LOGDIR/out.txt" | tail -n 20 >&2
	echo "piuparts: FAIL (log: $LOGDIR/piuparts.log)" >&2
	exit 1
}
grep -E 'INFO: (PASS|Can.t test)' "$LOGDIR/out.txt"
echo "piuparts: PASS (log: $LOGDIR/piuparts.log)"
