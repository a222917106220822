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

set -euo pipefail

PKGS=(
	# build the module, the tools (zlib) and the selftests (gcc-multilib for
	# the 32-bit compat test)
	gcc make libc6-dev libelf-dev kmod zlib1g-dev gcc-multilib
	# build the debug kernel from Debian's 6.12 source
	linux-source-6.12 flex bison bc libssl-dev openssl dwarves cpio
	xz-utils perl
	# static checks
	sparse
	# the QEMU test bed
	qemu-system-x86 busybox-static
	# benchmarks inside guests
	linux-perf bpftrace
	# man page checks
	groff-base man-db
)

APT=(apt-get -q -y -o DPkg::Lock::Timeout=600 -o Dpkg::Use-Pty=0)
export DEBIAN_FRONTEND=noninteractive

updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	echo "deps.sh: apt-get update" >&2
	"${APT[@]}" update >/dev/null
	updated=1
}

# The ABI of Debian's current distro kernel, e.g. 6.1.0-56-amd64 (kernel.sh
# remembers it until apt's lists change).
abi() { "$(dirname "${BASH_SOURCE[0]}")/kernel.sh" debian-abi 2>/dev/null; }

ABI=$(abi) || true
if [ -z "$ABI" ]; then
	apt_update
	ABI=$(abi) || { echo "deps.sh: no linux-image-amd64 in apt" >&2; exit 1; }
fi
PKGS+=("linux-headers-$ABI")

# One dpkg-query for all of them; those not "ii" (installed) are missing.
ok=" $(dpkg-query -W -f='${db:Status-Abbrev}|${Package}\n' "${PKGS[@]}" 2>/dev/null |
	sed -n 's/^ii *|//p' | tr '\n' ' ') "
missing=()
for p in "${PKGS[@]}"; do
	case $ok in *" $p "*) ;; *) missing+=("$p") ;; esac
done
[ ${#missing[@]} = 0 ] && exit 0

if [ "${PRF_DEPS_DRY:-0}" = 1 ]; then
	echo "deps.sh: would install: ${missing[*]}"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "deps.sh: need root to install: ${missing[*]}" >&2; exit 1; }
apt_update
echo "deps.sh: installing ${missing[*]}" >&2
# No recommends: they would drag in GUIs and firmware nobody here uses.
"${APT[@]}" install --no-install-recommends "${missing[@]}" >/dev/null
for p in "${missing[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) || st=""
	[ "$st" = "ii " ] || { echo "deps.sh: $p did not install" >&2; exit 1; }
done
