#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deps.sh - install every Debian package the project needs.
#
# Idempotent and silent when everything is installed: dpkg-query decides,
# and `apt-get update` runs only when something is missing (or when apt has
# no package lists yet, which the kernel ABI lookup below needs).
#
# Debian's kernel image is NOT installed: scripts/kernel.sh downloads and
# unpacks it into the cache (no initramfs rebuild, nothing in /boot).  Its
# headers are installed, for the exact ABI linux-image-amd64 points at.
#
# PRF_DEPS_DRY=1 prints what would be installed and installs nothing.

set -eEuo pipefail
# Any command that fails says so: which line, which command, which status.
trap 'echo "deps.sh: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR

PKGS=(
	# build the module, the tools (zlib) and the selftests (gcc-12-multilib
	# for the 32-bit compat test: not gcc-multilib, which Debian 12 declares
	# in conflict with every cross compiler, gcc-aarch64-linux-gnu included)
	gcc make libc6-dev libelf-dev kmod zlib1g-dev gcc-12-multilib
	# build the debug kernel from Debian's 6.12 source
	linux-source-6.12 flex bison bc libssl-dev openssl dwarves cpio
	xz-utils perl
	# static checks
	sparse
	# the QEMU test bed (x86_64 and arm64 guests)
	qemu-system-x86 qemu-system-arm busybox-static
	# arm64: cross compiler and C library for prf.ko and the test programs
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	# ... and for the compat (AArch32) test program on arm64
	gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
	# the fresh-machine test and the trixie root that builds for Debian 7.x
	debootstrap
	# DKMS, tested as the README says to use it
	dkms
	# benchmarks inside guests
	linux-perf bpftrace
	# man page checks
	groff-base man-db
)

APT=(apt-get -q -y -o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0)
export DEBIAN_FRONTEND=noninteractive

# apt-get, quiet unless it fails: then its last lines say why.
apt_logged() {
	local log rc=0
	log=$(mktemp)
	"${APT[@]}" "$@" >"$log" 2>&1 || rc=$?
	if [ $rc != 0 ]; then
		echo "deps.sh: apt-get $1 failed (exit $rc):" >&2
		tail -n 15 "$log" | sed 's/^/deps.sh: | /' >&2
	fi
	rm -f "$log"
	return $rc
}

updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	echo "deps.sh: apt-get update" >&2
	apt_logged update
	updated=1
}

# The ABI of Debian's current distro kernel, e.g. 6.1.0-56-amd64 (kernel.sh
# remembers it until apt's lists change).
abi() { "$(dirname "${BASH_SOURCE[0]}")/kernel.sh" debian-abi 2>/dev/null; }

# find_missing: sets ABI and `missing`, the packages not installed.  The
# kernel headers follow the ABI apt knows now.
find_missing() {
	local ok p all
	ABI=$(abi) || ABI=""
	all=("${PKGS[@]}")
	# Headers of Debian's 6.1 and of its PREEMPT_RT flavour, same ABI.
	[ -z "$ABI" ] || all+=("linux-headers-$ABI" "linux-headers-${ABI%-amd64}-rt-amd64")
	# One dpkg-query for all of them; those not "ii" (installed) are
	# missing.  dpkg-query exits 1 when any of them is unknown to dpkg (a
	# fresh machine): that is an answer, not a failure.
	ok=" $({ dpkg-query -W -f='${db:Status-Abbrev}|${Package}\n' "${all[@]}" 2>/dev/null || :; } |
		sed -n 's/^ii *|//p' | tr '\n' ' ') "
	missing=()
	for p in "${all[@]}"; do
		case $ok in *" $p "*) ;; *) missing+=("$p") ;; esac
	done
}

find_missing
[ -n "$ABI" ] && [ ${#missing[@]} = 0 ] && exit 0
# Something is to be installed: first bring apt's lists up to date, and
# only then decide the kernel ABI.  A new machine's lists (debootstrap's:
# the release alone, no security updates) name an older kernel than the
# updated lists do, whose headers kernel.sh would then not find.
if [ "${PRF_DEPS_DRY:-0}" = 1 ]; then
	echo "deps.sh: would update apt's lists and install: ${missing[*]}"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "deps.sh: need root to install: ${missing[*]}" >&2; exit 1; }
apt_update
find_missing
[ -n "$ABI" ] || { echo "deps.sh: no linux-image-amd64 in apt" >&2; exit 1; }
[ ${#missing[@]} = 0 ] && exit 0

echo "deps.sh: installing ${missing[*]}" >&2
# No recommends: they would drag in GUIs and firmware nobody here uses.
apt_logged install --no-install-recommends "${missing[@]}"
for p in "${missing[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) || st=""
	[ "$st" = "ii " ] || { echo "deps.sh: $p did not install" >&2; exit 1; }
done
