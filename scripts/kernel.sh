#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel.sh - locate, unpack or build the test bed's kernels.
#
#   kernel.sh list              the kernel names: debian-6.1 debug-6.12
#   kernel.sh path KERNEL       the bzImage to boot (unpacks/builds on demand)
#   kernel.sh kdir KERNEL       the tree out-of-tree modules build against
#   kernel.sh release KERNEL    its `uname -r`
#   kernel.sh modules KERNEL    its /lib/modules/<release> tree ("" if none)
#   kernel.sh src               the unpacked linux-source-6.12 tree
#   kernel.sh debian-abi        the ABI of Debian's kernel, e.g. 6.1.0-56-amd64
#   kernel.sh prepare KERNEL    make sure all of the above exist
#
# Everything lives under the cache root ${XDG_CACHE_HOME:-$HOME/.cache}/prf,
# keyed so that a later run reuses it:
#   src/linux-source-<pkgver>/           the 6.12 source, unpacked once
#   debian-6.1/<image-pkg>_<pkgver>/     Debian's image package, unpacked
#   debian-abi                           the ABI, until apt's lists change
#   debug-6.12-<srcver>-<fraghash>/      O= build dir of the debug kernel
# The packages themselves come from scripts/deps.sh: run it first.
# Progress goes to stderr; stdout carries only the answer.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/prf
FRAGMENT=$TOP/selftests/vm/debug.config
JOBS=${PRF_KERNEL_JOBS:-3}

die() { echo "kernel.sh: $*" >&2; exit 1; }
say() { echo "kernel.sh: $*" >&2; }

# Serialise work on one cache entry: several engineers (or make -j) may ask
# for the same kernel at once, and only one of them must unpack or build it.
locked() {
	local lock=$1; shift
	mkdir -p "$CACHE"
	exec {lockfd}>"$CACHE/$lock.lock"
	flock "$lockfd"
	"$@"
	exec {lockfd}>&-
}

pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | tr '~:' '__'; }

# ---- Debian's distro kernel -------------------------------------------------

# The ABI (e.g. 6.1.0-56-amd64) is whatever linux-image-amd64 points at in the
# archive: never hard-coded.  apt-cache takes seconds on a loaded machine, so
# the answer is remembered until apt's package lists change.
debian_abi() {
	local memo=$CACHE/debian-abi dep
	if [ -s "$memo" ] && [ "$memo" -nt /var/lib/apt/lists ]; then
		cat "$memo"
		return 0
	fi
	dep=$(apt-cache depends linux-image-amd64 2>/dev/null |
	      sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
	[ -n "$dep" ] || die "cannot find linux-image-amd64's dependency (apt-get update?)"
	mkdir -p "$CACHE"
	echo "$dep" >"$memo.$$" && mv "$memo.$$" "$memo"
	echo "$dep"
}

# The image is unpacked at exactly the version of the installed headers, so
# that modules built against those headers match the kernel that boots.
debian_ver() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$1" 2>/dev/null) ||
		die "linux-headers-$1 is not installed (scripts/deps.sh)"
	echo "$ver"
}

debian_dir() {
	echo "$CACHE/debian-6.1/linux-image-${1}_$(debian_ver "$1" | tr '~:' '__')"
}

# Unpack the image package with dpkg-deb instead of installing it: no
# initramfs rebuild, nothing written to the host's /boot.
debian_unpack() {
	local abi=$1 dir=$2 tmp
	[ -f "$dir/.prf-done" ] && return 0
	say "unpacking linux-image-$abi into $dir"
	tmp=$(mktemp -d "$CACHE/debian-6.1/unpack.XXXXXX")
	(cd "$tmp" && apt-get download -q "linux-image-$abi=$(debian_ver "$abi")" >/dev/null) ||
		die "apt-get download linux-image-$abi failed"
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$dir"
	rm -rf "$tmp"
	[ -f "$dir/boot/vmlinuz-$abi" ] || die "no vmlinuz-$abi in the package"
	touch "$dir/.prf-done"
}

# Sets ABI and DEBIAN_DIR.
debian_prepare() {
	ABI=$(debian_abi)
	DEBIAN_DIR=$(debian_dir "$ABI")
	mkdir -p "$CACHE/debian-6.1"
	locked debian-6.1 debian_unpack "$ABI" "$DEBIAN_DIR"
	[ -f "/usr/src/linux-headers-$ABI/Makefile" ] ||
		die "no /usr/src/linux-headers-$ABI: run scripts/deps.sh"
}

# ---- The 6.12 source and the debug kernel -----------------------------------

src_dir() {
	local ver
	ver=$(pkgver linux-source-6.12)
	[ -n "$ver" ] || die "linux-source-6.12 is not installed (scripts/deps.sh)"
	echo "$CACHE/src/linux-source-$ver"
}

src_unpack() {
	local dir=$1 tar tmp
	[ -f "$dir/.prf-done" ] && return 0
	tar=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
	[ -n "$tar" ] || die "no /usr/src/linux-source-6.12.tar.*"
	say "unpacking $tar into $dir"
	mkdir -p "$CACHE/src"
	tmp=$(mktemp -d "$CACHE/src/unpack.XXXXXX")
	tar -xf "$tar" -C "$tmp"
	rm -rf "$dir"
	mv "$tmp"/linux-source-6.12 "$dir"
	rmdir "$tmp"
	touch "$dir/.prf-done"
}

src_prepare() {
	local dir
	dir=$(src_dir)
	locked src src_unpack "$dir"
	echo "$dir"
}

# The build dir's key: source package version + the fragment's content, so a
# changed fragment gets a fresh build and an unchanged one is reused.
# Only the option lines count: editing a comment must not cost a rebuild.
fragment_hash() {
	grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set$)' "$FRAGMENT" | sha256sum | cut -c1-${1:-64}
}

debug_dir() {
	local ver
	ver=$(pkgver linux-source-6.12)
	echo "$CACHE/debug-6.12-$ver-$(fragment_hash 12)"
}

# Every CONFIG_X=v line of the fragment must be in .config verbatim and every
# "# CONFIG_X is not set" line must have no CONFIG_X= in .config.  Kconfig
# silently drops options whose dependencies are unmet, so this is the only
# way to know the kernel really has what the tests rely on.
debug_verify_config() {
	local cfg=$1 line sym bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			if ! grep -qxF -- "$line" "$cfg"; then
				sym=${line%%=*}
				say "MISSING: $line (have: $(grep -E "^(# )?$sym[= ]" "$cfg" || echo nothing))"
				bad=1
			fi ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			if grep -q "^$sym=" "$cfg"; then
				say "UNWANTED: $(grep "^$sym=" "$cfg") (fragment says: $line)"
				bad=1
			fi ;;
		esac
	done <"$FRAGMENT"
	[ $bad = 0 ] || die "the debug kernel's .config lost options of $FRAGMENT"
}

debug_build() {
	local o=$1 src=$2 hash log
	[ -f "$o/.prf-done" ] && return 0
	hash=$(fragment_hash)
	mkdir -p "$o"
	log=$o/build.log
	say "building debug-6.12 in $o (log: $log; 2 cores: about 40 min when busy)"
	local start=$SECONDS
	local mk=(make -C "$src" O="$o" ARCH=x86_64 -j"$JOBS")
	{
		# A build interrupted after configuring resumes without
		# reconfiguring, so finished objects are kept.
		if [ "$(cat "$o/.prf-configured" 2>/dev/null)" != "$hash" ]; then
			"${mk[@]}" tinyconfig
			cat "$FRAGMENT" >>"$o/.config"
			"${mk[@]}" olddefconfig
			echo "$hash" >"$o/.prf-configured"
		fi
	} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed"; }
	debug_verify_config "$o/.config"
	# `make all` = vmlinux + bzImage + modules: it also writes Module.symvers
	# and the modules_prepare output, so out-of-tree modules build against
	# $o (KDIR=$o) without warnings.
	"${mk[@]}" all >>"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; die "building failed (log: $log)"; }
	[ -f "$o/arch/x86/boot/bzImage" ] || die "no bzImage after the build"
	touch "$o/.prf-done"
	say "debug-6.12 built in $((SECONDS - start)) s"
}

debug_prepare() {
	local src o
	src=$(src_prepare)
	o=$(debug_dir)
	# The lock is named after the real directory, should the cache entry be
	# a link to another one.
	locked "$(basename "$(readlink -f "$o")")" debug_build "$o" "$src"
}

# ---- Commands ---------------------------------------------------------------

check_kernel() {
	case ${1:-} in
	debian-6.1|debug-6.12) ;;
	*) die "unknown kernel '${1:-}' (known: debian-6.1 debug-6.12)" ;;
	esac
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
list)
	echo debian-6.1 debug-6.12 ;;
debian-abi)
	debian_abi ;;
src)
	src_prepare ;;
prepare)
	check_kernel "${1:-}"
	if [ "$1" = debian-6.1 ]; then debian_prepare; else debug_prepare; fi ;;
path)
	check_kernel "${1:-}"
	if [ "$1" = debian-6.1 ]; then
		debian_prepare
		echo "$DEBIAN_DIR/boot/vmlinuz-$ABI"
	else
		debug_prepare
		echo "$(debug_dir)/arch/x86/boot/bzImage"
	fi ;;
kdir)
	check_kernel "${1:-}"
	if [ "$1" = debian-6.1 ]; then
		echo "/usr/src/linux-headers-$(debian_abi)"
	else
		debug_prepare
		debug_dir
	fi ;;
release)
	check_kernel "${1:-}"
	if [ "$1" = debian-6.1 ]; then
		debian_abi
	else
		debug_prepare
		cat "$(debug_dir)/include/config/kernel.release"
	fi ;;
modules)
	check_kernel "${1:-}"
	if [ "$1" = debian-6.1 ]; then
		debian_prepare
		echo "$DEBIAN_DIR/lib/modules/$ABI"
	else
		echo ""	# everything the guest needs is built in
	fi ;;
*)
	sed -n '4,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2 ;;
esac
