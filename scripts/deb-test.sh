#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deb-test.sh - the Debian packages from install to purge, as root
# in a fresh Debian 12 (scripts/fresh-root.sh runs it there, in the
# clone; never on a machine of one's own: it installs and purges).
#
#   1. make deb (which installs its build dependencies and runs lintian)
#   2. dkms, Debian's 6.1 headers and pkgconf installed; the root's file
#      list taken
#   3. apt-get install ./build/deb/{prf-dkms,prf,libprf-dev}_*.deb: DKMS
#      built prf.ko for the 6.1 kernel (its MODULE_VERSION the package's);
#      group prf, the udev rule, man pages, the unit (not enabled), the
#      conffiles where the packages put them; the README's library
#      example built with pkg-config --cflags --libs libprf
#   4. apt-get purge of the three: the file list as before, but for what
#      is listed below as staying (stays())
#
# Exits non-zero at the first check that fails, saying which.

set -eEuo pipefail
trap 'echo "deb-test: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR
say() { echo "deb-test: $*"; }
# a check that something does NOT hold (a bare "! cmd" would not stop set -e)
never() { say "line ${BASH_LINENO[0]}: should not hold: $*"; exit 1; }
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -q -y -o DPkg::Lock::Timeout=600)

v=$(cat VERSION)
make --no-print-directory deb
abi=$(scripts/kernel.sh debian-abi)
"${APT[@]}" install --no-install-recommends dkms "linux-headers-$abi" pkgconf gcc libc6-dev
# a DKMS prf of the tree's own (fresh-root.sh's step 2) goes first
dkms remove "prf/$v" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/prf-$v"

# The root's files, but those apt, dpkg and the logs change by themselves.
files() {
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run \
		-o -path /tmp -o -path /root -o -path /var/cache -o -path /var/log \
		-o -path /var/lib/apt -o -path /var/lib/dpkg \) -prune -o -print | sort
}
files >/tmp/files.before

debs=(./build/deb/prf-dkms_"$v"_all.deb ./build/deb/prf_"$v"_*.deb ./build/deb/libprf-dev_"$v"_*.deb)
"${APT[@]}" install "${debs[@]}"

say "dkms status: $(dkms status prf)"
dkms status prf | grep -q "^prf/$v, $abi, x86_64: installed"
# updates/dkms (DKMS 3) or extra (dkms.conf's DEST_MODULE_LOCATION, older
# DKMS); find fails on the one that does not exist
ko=$( { find "/lib/modules/$abi/updates" "/lib/modules/$abi/extra" -name 'prf.ko*' 2>/dev/null || :; } | sed -n 1p)
test -n "$ko"
say "DKMS built $ko: version $(modinfo -F version "$ko"), vermagic $(modinfo -F vermagic "$ko")"
test "$(modinfo -F version "$ko")" = "$v"
modinfo -F vermagic "$ko" | grep -q "^$abi "
test -f "/usr/src/prf-$v/dkms.conf" && test -f "/usr/src/prf-$v/Kbuild"
grep -q "^PACKAGE_VERSION=\"$v\"" "/usr/src/prf-$v/dkms.conf"

getent group prf
test -f /usr/lib/udev/rules.d/60-prf.rules
test -f /usr/share/man/man1/prf.1.gz && test -f /usr/share/man/man4/prf.4.gz
test -f /usr/share/man/man1/prfld.1.gz
test -f /usr/lib/systemd/system/prf.service
# installed, not enabled
find /etc/systemd -name prf.service | grep -q . && never prf.service enabled
test -f /etc/prf/prf.conf
grep -qx '#prf' /etc/modules-load.d/prf.conf
grep -qx prf /etc/modules-load.d/prf.conf && never prf loaded at boot
test "$(readlink /usr/bin/prfld)" = prf
test "$(prf --version | cut -d' ' -f2)" = "$v"
dpkg-query -W -f='${Conffiles}\n' prf | grep -q /etc/prf/prf.conf
dpkg-query -W -f='${Conffiles}\n' prf-dkms | grep -q /etc/modules-load.d/prf.conf

# a program of one's own against the installed library (the README's
# example, copied away from the tree's headers)
cp tools/examples/prfcount.c /tmp/
# shellcheck disable=SC2046
gcc -Wall -Werror -o /tmp/prfcount /tmp/prfcount.c $(pkg-config --cflags --libs libprf)
test "$(pkg-config --modversion libprf)" = "$v"
say "built /tmp/prfcount with pkg-config --cflags --libs libprf: $(pkg-config --cflags --libs libprf)"

"${APT[@]}" purge prf-dkms prf libprf-dev
# What stays, each named: by policy the system group prf (in /etc/group
# and /etc/gshadow; addgroup leaves the backup /etc/gshadow-), files may
# still be the group's; DKMS's own signing key, made at its first build
# (DKMS's, kept for the next module it signs); and depmod's indexes of the
# 6.1 kernel, whose image this root lacks (the headers alone: on a machine
# the image's package has them already).
stays() {
	echo /etc/gshadow-
	for f in alias alias.bin builtin.alias.bin builtin.bin dep dep.bin \
		devname softdep symbols symbols.bin; do
		echo "/usr/lib/modules/$abi/modules.$f"
	done
	echo /var/lib/dkms/mok.key
	echo /var/lib/dkms/mok.pub
}
files | grep -vxF -f <(stays) >/tmp/files.after
if ! diff -u <(grep -vxF -f <(stays) /tmp/files.before) /tmp/files.after; then
	say "purge left the root different from before install (above)"
	exit 1
fi
getent group prf >/dev/null
dkms status prf | grep -q . && never DKMS holds prf
say "PASS: install, DKMS build for $abi, purge"
