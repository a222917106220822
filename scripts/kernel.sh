#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel.sh - locate, unpack or build the test bed's kernels.
#
#   kernel.sh list              the kernel names (KERNELS below)
#   kernel.sh path KERNEL       the image to boot (unpacks/builds on demand)
#   kernel.sh kdir KERNEL       the tree out-of-tree modules build against
#   kernel.sh kbuild KERNEL ARGS...  run kbuild for KERNEL: make -C KDIR ARGS,
#                               cross-compiling or inside its build root
#   kernel.sh release KERNEL    its `uname -r`
#   kernel.sh modules KERNEL    its /lib/modules/<release> tree ("" if none)
#   kernel.sh arch KERNEL       x86_64 or arm64
#   kernel.sh src               the unpacked linux-source-6.12 tree (checkpatch.pl,
#                               the kselftest harness)
#   kernel.sh debian-abi        the ABI of Debian's kernel, e.g. 6.1.0-56-amd64
#   kernel.sh prepare KERNEL    make sure all of the above exist
#   kernel.sh sysroot ARCH      the libraries the tools link against, of
#                               another architecture (arm64), unpacked
#   kernel.sh qemu ARCH         the QEMU that boots guests of ARCH (x86_64,
#                               arm64): bookworm-backports', unpacked
#   kernel.sh perf ARCH         Debian 12's perf of another architecture
#                               (arm64) with the libraries it loads,
#                               unpacked: run DIR/perf (bench/pmu.sh)
#
# The kernels:
#   debian-6.1        Debian 12's distro kernel (linux-image-amd64)
#   debian-6.1-rt     its PREEMPT_RT flavour (linux-image-rt-amd64)
#   debian-6.1-arm64  its arm64 flavour, booted under qemu-system-aarch64;
#                     prf is cross-built with gcc-aarch64-linux-gnu
#   debug-7.x         built here from the newest linux-source-7.N of
#                     Debian's newer suites (selftests/vm/debug.config:
#                     KASAN, lockdep, DEBUG_PREEMPT, ...), in debian-7.x's
#                     build root with its gcc; prf is built there too
#   debian-7.x        the newest linux-image-amd64 of Debian's newer suites
#                     (trixie, trixie-backports, sid), found at run time;
#                     prf is built in a debootstrapped root of that suite,
#                     with its own compiler (gcc-14)
#   debian-6.12       Debian 13's distro kernel (trixie's linux-image-amd64),
#                     built against in the same root as debian-7.x
#   pnmi-7.x-arm64    arm64 with pseudo-NMI (the PMU's interrupt an NMI),
#                     built here from the debug kernel's source
#                     (selftests/vm/pnmi.config) by debian-7.x's gcc-N for
#                     aarch64, in a trixie root of its own (the cross
#                     compiler added); booted with -M virt,gic-version=3
#                     and irqchip.gicv3_pseudo_nmi=1 (selftests/vm/run);
#                     its userland is debian-6.1-arm64's busybox and bash
#
# Everything lives under the cache root ${XDG_CACHE_HOME:-$HOME/.cache}/prf,
# keyed so that a later run reuses it:
#   src/linux-source-<pkgver>/           the 6.12 source, unpacked once
#   src/linux-source-7.N_<pkgver>/       the debug kernel's source
#   debian-6.1/<image-pkg>_<pkgver>/     Debian's image package, unpacked
#   debian-abi                           the ABI, until apt's lists change
#   debug-7.x-<srcver>-<fraghash>/       O= build dir of the debug kernel
#                                        (.prf-done once built)
#   pnmi-7.x-arm64-<srcver>-<fraghash>/  the same of the pseudo-NMI kernel
#   debian-6.1-rt/, debian-6.1-arm64/, debian-7.x/, debian-6.12/
#                                        their packages, unpacked
#   apt/<name>/                          apt configurations of other suites
#                                        and architectures (the machine's
#                                        own apt is never touched)
#   roots/<suite>-<hash>/                debootstrapped build roots
#   sysroot/arm64-<hash>/                arm64 -dev packages of the tools'
#                                        libraries (hash of the package
#                                        list), for make -C tools ARCH=arm64
#   qemu/<pkgver>-<hash>/                bookworm-backports' QEMU, unpacked
#   perf/arm64-<hash>/                   arm64 linux-perf and its libraries
#                                        (hash of the package list)
# The host's packages come from scripts/deps.sh: run it first.
# Progress goes to stderr; stdout carries only the answer.

set -euo pipefail
# A command that fails under set -e ends the script: say which, since its
# own message may be as short as apt's "E: No packages found" (die has said
# why already).  An EXIT trap, not ERR: an ERR trap in every function
# (-E) also fires for the failures a command substitution lets through.
trap 'rc=$?; case $rc:$BASH_COMMAND in 0:* | *:exit*) ;;
	*) echo "kernel.sh: stopped (status $rc) at: $BASH_COMMAND" >&2 ;; esac' EXIT

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/prf
FRAGMENT=$TOP/selftests/vm/debug.config
PNMI_FRAGMENT=$TOP/selftests/vm/pnmi.config
JOBS=${PRF_KERNEL_JOBS:-3}

die() { echo "kernel.sh: $*" >&2; exit 1; }
say() { echo "kernel.sh: $*" >&2; }

# Serialise work on one cache entry: several engineers (or make -j) may ask
# for the same kernel at once, and only one of them must unpack or build it.
# Nests: a locked step may take another entry's lock.
locked() {
	local lock=$1 lockfd; shift
	mkdir -p "$CACHE"
	exec {lockfd}>"$CACHE/$lock.lock"
	flock "$lockfd"
	"$@"
	exec {lockfd}>&-
}

# put FILE VALUE: VALUE written to FILE whole (a rename): the memos and the
# apt configurations' files are read by other kernel.sh processes at any
# moment, and a file truncated and then written can be read empty.
put() { echo "$2" >"$1.$$" && mv "$1.$$" "$1"; }

pkgver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null | tr '~:' '__'; }

# ---- Debian's distro kernels ------------------------------------------------

KERNELS="debian-6.1 debug-7.x debian-7.x debian-6.12 debian-6.1-rt debian-6.1-arm64 pnmi-7.x-arm64"
DEBIAN_MIRROR=http://deb.debian.org/debian

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
	      sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | sed -n 1p)
	[ -n "$dep" ] || die "cannot find linux-image-amd64's dependency (apt-get update?)"
	mkdir -p "$CACHE"
	put "$memo" "$dep"
	echo "$dep"
}

# Every 6.1 flavour is taken at exactly the version of the installed headers,
# so that modules built against those headers match the kernel that boots.
debian_ver() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$1" 2>/dev/null) ||
		die "linux-headers-$1 is not installed (scripts/deps.sh)"
	echo "$ver"
}

# Another suite or architecture through an apt configuration of its own
# under the cache: its lists, its archives, an empty dpkg status.
#   alt_apt NAME apt-get|apt-cache ARGS...
# NAME's sources are written by alt_apt_init; its lists are refreshed when
# older than a day (`kernel.sh` finds "the newest kernel" with them).
# Release files past their Valid-Until date are accepted (sid's and the
# backports' expire within days, and a mirror that is a frozen copy, as on
# the test machines, serves them so): their signatures are still checked.
# The lists live under root's home, which apt's sandbox user cannot enter.
alt_apt_opts() {
	local d=$CACHE/apt/$1
	echo "-o Dir::Etc::sourcelist=$d/sources.list -o Dir::Etc::sourceparts=-" \
	     "-o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache" \
	     "-o Dir::State::status=$d/status -o APT::Architecture=$2" \
	     "-o APT::Architectures=$2 -o Debug::NoLocking=1" \
	     "-o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root"
}
alt_apt_init() {
	local name=$1 arch=$2 d=$CACHE/apt/$1
	shift 2
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	touch "$d/status"
	printf '%s\n' "$@" >"$d/sources.list.new.$$"
	cmp -s "$d/sources.list.new.$$" "$d/sources.list" || {
		mv "$d/sources.list.new.$$" "$d/sources.list"
		rm -f "$d/updated"
	}
	rm -f "$d/sources.list.new.$$"
	# Other processes' alt_apt read the architecture at any moment: one
	# read it empty as it was rewritten, and apt-cache with no
	# architecture answered "E: No packages found" (the debug kernel of a
	# CI run stopped so).  Written only when it changes, and then whole.
	[ "$(cat "$d/arch" 2>/dev/null)" = "$arch" ] || put "$d/arch" "$arch"
	if [ -z "$(find "$d/updated" -mmin -1440 2>/dev/null)" ]; then
		say "apt-get update for $name ($arch)"
		# shellcheck disable=SC2046
		apt-get -q $(alt_apt_opts "$name" "$arch") update >"$d/update.log" 2>&1 ||
			{ tail -n 20 "$d/update.log" >&2; die "apt-get update for $name failed"; }
		touch "$d/updated"
	fi
}
alt_apt() {
	local name=$1 tool=$2
	shift 2
	# shellcheck disable=SC2046
	"$tool" -q $(alt_apt_opts "$name" "$(cat "$CACHE/apt/$name/arch")") "$@"
}

# unpack_debs DIR APT PKG=VER...: download the packages (APT: "host" or an
# alt_apt name) and unpack them all into DIR, without installing anything:
# no maintainer scripts, no initramfs, nothing outside the cache.
unpack_debs() {
	local dir=$1 apt=$2 tmp p
	shift 2
	[ -f "$dir/.prf-done" ] && return 0
	say "unpacking $* into $dir"
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$(dirname "$dir")/unpack.XXXXXX")
	chmod 755 "$tmp"	# apt's download sandbox user must write there
	if [ "$apt" = host ]; then
		(cd "$tmp" && apt-get download -q "$@" >"$tmp/log" 2>&1)
	else
		(cd "$tmp" && alt_apt "$apt" apt-get download "$@" >"$tmp/log" 2>&1)
	fi || { cat "$tmp/log" >&2; rm -rf "$tmp"; die "apt-get download $* failed"; }
	rm -rf "$dir"
	mkdir -p "$dir"
	for p in "$tmp"/*.deb; do
		dpkg-deb -x "$p" "$dir"
	done
	rm -rf "$tmp"
	touch "$dir/.prf-done"
}

# Sets, for a kernel of the 6.1 family: ABI (its uname -r), VER (package
# version), DIR (unpacked packages), KDIR, IMAGE, MODTREE.
debian61_prepare() {
	local base
	base=$(debian_abi)
	base=${base%-amd64}
	VER=$(debian_ver "$base-common")
	case $1 in
	debian-6.1)
		ABI=$base-amd64
		DIR=$CACHE/debian-6.1/linux-image-${ABI}_$(tr '~:' '__' <<<"$VER")
		locked debian-6.1 unpack_debs "$DIR" host "linux-image-$ABI=$VER"
		KDIR=/usr/src/linux-headers-$ABI ;;
	debian-6.1-rt)
		ABI=$base-rt-amd64
		DIR=$CACHE/debian-6.1-rt/linux-image-${ABI}_$(tr '~:' '__' <<<"$VER")
		locked debian-6.1-rt unpack_debs "$DIR" host "linux-image-$ABI=$VER"
		KDIR=/usr/src/linux-headers-$ABI ;;
	debian-6.1-arm64)
		ABI=$base-arm64
		DIR=$CACHE/debian-6.1-arm64/linux-${ABI}_$(tr '~:' '__' <<<"$VER")
		locked debian-6.1-arm64 arm64_unpack
		KDIR=$DIR/usr/src/linux-headers-$ABI ;;
	esac
	IMAGE=$DIR/boot/vmlinuz-$ABI
	MODTREE=$DIR/lib/modules/$ABI
	[ -f "$IMAGE" ] || die "no $IMAGE"
	[ -f "$KDIR/Makefile" ] || die "no $KDIR: run scripts/deps.sh"
}

# The one arm64 apt configuration (the kernel's and the tools' sysroot),
# its lists refreshed by one user at a time (under lock apt-bookworm-arm64).
arm64_apt_init() {
	alt_apt_init bookworm-arm64 arm64 \
		"deb [arch=arm64] $DEBIAN_MIRROR bookworm main" \
		"deb [arch=arm64] $DEBIAN_MIRROR bookworm-updates main" \
		"deb [arch=arm64] ${DEBIAN_MIRROR}-security bookworm-security main"
}

# arm64: Debian 12's arm64 image and headers at the version of the host's
# (arch-independent) -common headers, and arm64 busybox and bash for the
# guest's initramfs, all through an arm64 apt configuration.  The headers'
# links to the kbuild tools point at the host's (amd64) linux-kbuild-6.1.
arm64_unpack() {
	local l
	[ -f "$DIR/.prf-done" ] && return 0
	locked apt-bookworm-arm64 arm64_apt_init
	unpack_debs "$DIR" bookworm-arm64 "linux-image-$ABI=$VER" \
		"linux-headers-$ABI=$VER" busybox-static bash-static
	rm -f "$DIR/.prf-done"
	for l in scripts tools; do
		ln -sfn "/usr/lib/linux-kbuild-6.1/$l" "$DIR/usr/src/linux-headers-$ABI/$l"
	done
	[ -x "$DIR/bin/busybox" ] && [ -x "$DIR/bin/bash-static" ] ||
		die "no arm64 busybox or bash-static in $DIR"
	touch "$DIR/.prf-done"
}

# ---- QEMU -------------------------------------------------------------------

# The guests run on the QEMU of bookworm-backports, not on Debian 12's own
# (7.2): multi-threaded TCG before 8.1 can link a translation made from code
# another vCPU is patching after that code was invalidated, so a vCPU runs
# the int3 of a text_poke_bp that has finished ("Oops: int3" at static key
# and tracepoint sites; fixed in 8.1.0 by "accel/tcg: Always lock pages
# before translation").  Its packages (the x86 and arm binaries, their
# common files, the firmware) are unpacked into the cache like a kernel's;
# the machine's apt stays on bookworm.  The binaries use the libraries that
# Debian 12's own qemu-system-x86 and qemu-system-arm pull in (deps.sh
# installs those).  A wrapper beside them points QEMU at its own firmware
# and modules instead of the host's 7.2 ones.
#   qemu/<pkgver>-<hash>/       the unpacked packages (hash of QEMU_PKGS),
#                               .prf-done when whole
#   qemu/<pkgver>-<hash>/prf-bin/qemu-system-{x86_64,aarch64}   the wrappers
#   qemu/newest                 "<pkgver>" picked from the lists, for a day
# qemu-system-modules-opengl: QEMU loads its ui-opengl module even with no
# display, and finds the host's 7.2 one when its own is not there ("Only
# modules from the same build can be loaded", after the foreign module's
# constructors ran).  That module needs libepoxy and libgbm only, which
# Debian 12's qemu-system-common pulls in.
QEMU_PKGS="qemu-system-x86 qemu-system-arm qemu-system-common qemu-system-data
qemu-system-modules-opengl qemu-system-modules-spice"

qemu_apt_init() {
	alt_apt_init bookworm-backports amd64 \
		"deb [arch=amd64] $DEBIAN_MIRROR bookworm-backports main"
}

# The version to use: the newest qemu-system-x86 of bookworm-backports,
# looked up at most daily.  When the lookup fails (no network, a mirror
# having a bad moment) the newest version already unpacked serves, so that
# a test run does not fail for the mirror's sake.
qemu_pick() {
	local memo=$CACHE/qemu/newest best="" v
	if [ -n "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
		cat "$memo"
		return 0
	fi
	mkdir -p "$CACHE/qemu"
	if (locked apt-bookworm-backports qemu_apt_init) >&2; then
		for v in $(alt_apt bookworm-backports apt-cache show qemu-system-x86 |
			   sed -n 's/^Version: //p'); do
			if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
				best=$v
			fi
		done
	fi
	if [ -z "$best" ]; then
		v=$(sed -n 's/^# Written by .*: QEMU \(.*\), unpacked here\.$/\1/p' \
			"$CACHE"/qemu/*-"$(echo $QEMU_PKGS | sha256sum | cut -c1-8)"/prf-bin/qemu-system-x86_64 \
			2>/dev/null | sort -V | tail -n1)
		[ -n "$v" ] || die "no qemu-system-x86 in bookworm-backports, and none unpacked"
		say "bookworm-backports not reachable: using the unpacked QEMU $v"
		echo "$v"
		return 0
	fi
	put "$memo" "$best"
	echo "$best"
}

# qemu_unpack DIR VERSION: the packages at VERSION (the firmware, SeaBIOS,
# at the newest the suite has), and the wrappers.
qemu_unpack() {
	local dir=$1 ver=$2 p b a
	[ -f "$dir/.prf-done" ] && return 0
	locked apt-bookworm-backports qemu_apt_init
	p=()
	for b in $QEMU_PKGS; do p+=("$b=$ver"); done
	unpack_debs "$dir" bookworm-backports "${p[@]}" seabios
	rm -f "$dir/.prf-done"
	mkdir -p "$dir/prf-bin"
	for a in x86_64 aarch64; do
		[ -x "$dir/usr/bin/qemu-system-$a" ] || die "no qemu-system-$a in $dir"
		# -L: its own firmware first (usr/share/qemu's links name
		# ../seabios/...), the host's never.  QEMU_MODULE_DIR: modules
		# of its own build (QEMU refuses another build's anyway).
		cat >"$dir/prf-bin/qemu-system-$a" <<WRAP
#!/bin/sh
# Written by prf's scripts/kernel.sh: QEMU $ver, unpacked here.
QEMU_MODULE_DIR='$dir/usr/lib/x86_64-linux-gnu/qemu'
export QEMU_MODULE_DIR
exec '$dir/usr/bin/qemu-system-$a' -L '$dir/usr/share/qemu' -L '$dir/usr/share/seabios' "\$@"
WRAP
		chmod 755 "$dir/prf-bin/qemu-system-$a"
	done
	touch "$dir/.prf-done"
}

# qemu ARCH (x86_64, arm64 or aarch64): the QEMU binary (its wrapper) that
# boots the guests of ARCH, unpacked on first use.  The first use also
# makes the test bed's machine, paused, and quits: that must print nothing.
# It catches libraries the binary or its modules lack (scripts/deps.sh
# installs them with Debian 12's QEMU of the same architecture) and a module
# taken from the host's QEMU.
qemu_path() {
	local a=$1 ver dir bin m
	case $a in
	x86_64) m="" ;;
	arm64|aarch64) a=aarch64 m="-M virt -cpu max" ;;
	*) die "no QEMU for '$a' (x86_64, arm64)" ;;
	esac
	ver=$(qemu_pick)
	dir=$CACHE/qemu/$(tr '~:' '__' <<<"$ver")-$(echo $QEMU_PKGS | sha256sum | cut -c1-8)
	[ -f "$dir/.prf-done" ] || locked "qemu-$(basename "$dir")" qemu_unpack "$dir" "$ver"
	bin=$dir/prf-bin/qemu-system-$a
	if [ ! -f "$dir/.prf-ok-$a" ]; then
		# shellcheck disable=SC2086
		echo quit | timeout 60 "$bin" $m -accel tcg -display none -nic none -S \
			-monitor stdio >/dev/null 2>"$dir/.prf-err-$a" &&
			[ ! -s "$dir/.prf-err-$a" ] || {
			cat "$dir/.prf-err-$a" >&2
			die "$bin does not start cleanly (missing libraries? scripts/deps.sh" \
			    "kernel $([ $a = aarch64 ] && echo debian-6.1-arm64 || echo debian-6.1))"
		}
		touch "$dir/.prf-ok-$a"
	fi
	echo "$bin"
}

# ---- The tools' libraries for another architecture ---------------------------

# What tools/Makefile links prf with (-ldw -lelf -lz -lprotobuf-c -ltinfo
# -liberty -lyaml -lcrypt -llzma -lbz2, static; -lmicrohttpd, shared), as
# -dev packages (headers, libraries) and their run-time libraries.
# Bookworm's libelf needs zlib only, its libdw liblzma and libbz2 too;
# libiberty-dev is a static library alone (no run-time package).
# libmicrohttpd is linked shared: Debian builds it with GnuTLS, whose
# libgnutls.a needs p11-kit, which Debian ships no static library of; so
# the arm64 prf is dynamic, and carries these run-time libraries (GnuTLS's
# and its own: nettle, gmp, libtasn1, libidn2, libunistring, p11-kit,
# libffi) and libc6's loader and C library (tools/Makefile, ARCH=arm64).
SYSROOT_PKGS_arm64="libelf-dev libelf1 zlib1g-dev zlib1g libprotobuf-c-dev
libprotobuf-c1 libncurses-dev libncurses6 libtinfo6 libiberty-dev
libmicrohttpd-dev libmicrohttpd12 libgnutls30 libnettle8 libhogweed6 libgmp10
libtasn1-6 libidn2-0 libunistring2 libp11-kit0 libffi8 libc6 libgcc-s1
libyaml-dev libyaml-0-2 libcrypt-dev libcrypt1 libdw-dev liblzma-dev libbz2-dev"

# arm64_unpacked NAME MARKER FN PKG...: prints $CACHE/NAME/arm64-HASH (HASH
# of the package list), which FN DIR PKG... fills under lock NAME-arm64
# unless it holds the file MARKER already.
arm64_unpacked() {
	local name=$1 mark=$2 fn=$3 dir
	shift 3
	dir=$CACHE/$name/arm64-$(echo "$@" | sha256sum | cut -c1-12)
	[ -f "$dir/$mark" ] || locked "$name-arm64" "$fn" "$dir" "$@"
	echo "$dir"
}

# sysroot ARCH: prints the directory the packages are unpacked in, fetched
# through the kernel's apt configuration of that architecture on first use.
sysroot() {
	[ "${1:-}" = arm64 ] || die "no sysroot for '${1:-}' (known: arm64)"
	# shellcheck disable=SC2086
	arm64_unpacked sysroot .prf-done sysroot_unpack $SYSROOT_PKGS_arm64
}
sysroot_unpack() {
	local dir=$1
	shift
	[ -f "$dir/.prf-done" ] && return 0
	locked apt-bookworm-arm64 arm64_apt_init
	unpack_debs "$dir" bookworm-arm64 "$@"
	[ -f "$dir/usr/lib/aarch64-linux-gnu/libelf.a" ] ||
		die "no arm64 libelf.a in $dir"
	[ -f "$dir/usr/lib/aarch64-linux-gnu/libiberty.a" ] ||
		die "no arm64 libiberty.a in $dir"
	[ -f "$dir/usr/lib/aarch64-linux-gnu/libmicrohttpd.so" ] ||
		die "no arm64 libmicrohttpd.so in $dir"
	[ -f "$dir/usr/lib/aarch64-linux-gnu/libyaml.a" ] ||
		die "no arm64 libyaml.a in $dir"
	[ -f "$dir/usr/lib/aarch64-linux-gnu/libcrypt.a" ] ||
		die "no arm64 libcrypt.a in $dir"
	for a in libdw liblzma libbz2; do
		[ -f "$dir/usr/lib/aarch64-linux-gnu/$a.a" ] ||
			die "no arm64 $a.a in $dir"
	done
	[ -f "$dir/lib/ld-linux-aarch64.so.1" ] ||
		die "no arm64 ld-linux-aarch64.so.1 in $dir"
}

# ---- perf for another architecture ------------------------------------------

# perf_arm64: prints the directory holding Debian 12's arm64 perf and every
# shared library it loads (linux-perf's dependencies, recursively, the
# library packages alone: no perl or python programs), fetched through the arm64
# apt configuration on first use.  DIR/perf runs it through that
# directory's own loader, so an arm64 guest with nothing but busybox can.
perf_arm64() {
	local pkgs
	locked apt-bookworm-arm64 arm64_apt_init
	pkgs=$(alt_apt bookworm-arm64 apt-cache depends --recurse --no-recommends \
		--no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
		--no-pre-depends linux-perf | grep -E '^(lib[a-z0-9]|zlib1g$|linux-perf$)' |
		sort -u | tr '\n' ' ')
	[ -n "$pkgs" ] || die "no arm64 linux-perf in the arm64 apt configuration"
	# shellcheck disable=SC2086
	arm64_unpacked perf .prf-ready perf_unpack $pkgs
}
perf_unpack() {
	local dir=$1
	shift
	[ -f "$dir/.prf-ready" ] && return 0
	unpack_debs "$dir" bookworm-arm64 "$@"
	[ -x "$dir/usr/bin/perf" ] || die "no usr/bin/perf in $dir"
	printf '%s\n' '#!/bin/sh' \
		'# perf run through the loader and libraries beside it' \
		'd=$(dirname "$0")' \
		'exec "$d/lib/ld-linux-aarch64.so.1" --library-path "$d/usr/lib/aarch64-linux-gnu:$d/lib/aarch64-linux-gnu" "$d/usr/bin/perf" "$@"' \
		>"$dir/perf"
	chmod 755 "$dir/perf"
	touch "$dir/.prf-ready"
}

# ---- Debian 13's kernels (debian-7.x, debian-6.12) --------------------------

NEW_SUITES="trixie trixie-backports sid"

new_apt_init_() {
	local s lines=()
	for s in $NEW_SUITES; do
		lines+=("deb [arch=amd64] $DEBIAN_MIRROR $s main")
	done
	alt_apt_init debian-new amd64 "${lines[@]}"
}
# Three kernels (debian-7.x, debian-6.12, debug-7.x) read this one
# configuration, from lanes of make check that run at once: one writer of
# its sources and lists at a time (two at once lost a sources.list.new to
# the other's mv, and debian-7.x's build with it).
new_apt_init() { locked apt-debian-new new_apt_init_; }

# "VERSION SUITE" for every version of PKG in the newer suites (a version
# in two suites gives two lines).
new_versions() {
	alt_apt debian-new apt-cache policy "$1" | awk '
		{ sub(/^ *\*\*\* /, "    ") }
		NF == 2 && $2 ~ /^-?[0-9]+$/ { v = $1; next }
		v != "" && /http/ { split($3, s, "/"); print v, s[1] }'
}

# highest_of: the highest of the "VERSION ..." lines on stdin, whole line.
highest_of() {
	local best="" line v
	while read -r line; do
		v=${line%% *}
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "${best%% *}"; then
			best=$line
		fi
	done
	echo "$best"
}

# "ABI VERSION SUITE" of a kernel's linux-image-amd64, remembered for a day:
#   debian-7.x   the highest in the newer suites (trixie, its backports, sid)
#   debian-6.12  the one of Debian 13's release suite (trixie)
# The build root's suite is the one the kernel comes from (a backport builds
# in its base suite).
new_pick() {
	local k=$1 memo=$CACHE/$1/newest best dep suite
	if [ -n "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
		cat "$memo"
		return 0
	fi
	new_apt_init
	case $k in
	debian-7.x) best=$(new_versions linux-image-amd64 | highest_of) ;;
	debian-6.12) best=$(new_versions linux-image-amd64 | awk '$2 == "trixie"' | highest_of) ;;
	esac
	[ -n "$best" ] || die "no linux-image-amd64 for $k in $NEW_SUITES"
	read -r best suite <<<"$best"
	dep=$(alt_apt debian-new apt-cache show "linux-image-amd64=$best" |
	      grep -o 'linux-image-[0-9][^ ]*-amd64' | sed -n 1p)
	[ -n "$dep" ] || die "linux-image-amd64 $best names no image"
	suite=${suite%-backports}
	mkdir -p "$(dirname "$memo")"
	put "$memo" "${dep#linux-image-} $best $suite"
	cat "$memo"
}

# Packages the build root needs besides the kernel's headers: out-of-tree
# modules (make .. python3), and the debug kernel built in it from source
# (flex .. cpio; libssl-dev and openssl sign its modules).  The compiler
# (gcc-N) is the one the headers ask for.  The list's hash names the root.
ROOT_PKGS=make,libc6-dev,libelf-dev,dwarves,bc,sparse,kmod,python3,flex,bison,libssl-dev,openssl,perl,cpio

# A debootstrapped root of SUITE (minbase plus ROOT_PKGS, or PKGS), kept in
# the cache.
root_make() {
	local suite=$1 root=$2 pkgs=${3:-$ROOT_PKGS} tmp log
	[ -f "$root/.prf-done" ] && return 0
	say "debootstrap $suite into $root"
	rm -rf "$root"
	tmp=$root.tmp
	log=$CACHE/roots/$(basename "$root").log
	rm -rf "$tmp"
	mkdir -p "$CACHE/roots"
	# debootstrap mounts /proc and /sys in the root it makes: in a mount
	# namespace of its own, so that nothing else walking the cache (a
	# copy of it) ever meets them.
	unshare -m --propagation unchanged sh -c \
		'mount --make-rprivate / 2>/dev/null; exec "$@"' sh \
		debootstrap --variant=minbase --include="$pkgs" "$suite" "$tmp" \
		"$DEBIAN_MIRROR" >"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "debootstrap $suite failed (log: $log)"; }
	mv "$tmp" "$root"
	ROOT=$root newest_sparse
	touch "$root/.prf-done"
}

# Sets GCC and ROOT (made if missing) for the kernel whose pick is ABI VER
# SUITE: the root of SUITE with the gcc-N its headers ask for.
# The gcc-N is remembered per headers version, which never changes its
# dependencies: every kernel.sh call for these kernels (each guest, each
# build) asked apt-cache, 1.1 s of CPU over the newer suites' lists, 64
# times in a warm make check (85 s of CPU).
new_root() {
	local suite=$1 hash memo
	memo=$CACHE/roots/gcc-of-$ABI-$(tr '~:' '__' <<<"$VER")
	if [ -s "$memo" ]; then
		GCC=$(cat "$memo")
	else
		new_apt_init
		GCC=$(alt_apt debian-new apt-cache show "linux-headers-$ABI=$VER" |
		      sed -n 's/^Depends: //p' | grep -o 'gcc-[0-9][0-9]*' | sed -n 1p)
		[ -n "$GCC" ] || die "linux-headers-$ABI names no gcc-N"
		mkdir -p "$CACHE/roots"
		put "$memo" "$GCC"
	fi
	hash=$(sha256sum <<<"$GCC,$ROOT_PKGS" | cut -c1-8)
	ROOT=$CACHE/roots/$suite-$hash
	locked "root-$suite" root_make "$suite" "$ROOT"
}

# Sets ABI, VER, DIR, KDIR (inside ROOT), HOST_KDIR, ROOT, GCC, IMAGE,
# MODTREE for debian-7.x or debian-6.12.
new_prepare() {
	local k=$1 pick suite base m
	pick=$(new_pick "$k")
	read -r ABI VER suite <<<"$pick"
	base=${ABI%-amd64}
	new_root "$suite"
	DIR=$CACHE/$k/linux-${ABI}_$(tr '~:' '__' <<<"$VER")
	locked "$k" new_unpack "$k" "$base"
	KDIR=/usr/src/linux-headers-$ABI
	HOST_KDIR=$ROOT$KDIR
	# 7.x packages the image with the modules; before, it is in /boot.
	IMAGE=$DIR/usr/lib/modules/$ABI/vmlinuz
	[ -f "$IMAGE" ] || IMAGE=$DIR/boot/vmlinuz-$ABI
	[ -f "$IMAGE" ] || die "no kernel image in $DIR"
	MODTREE=""
	for m in "$DIR/usr/lib/modules/$ABI" "$DIR/lib/modules/$ABI"; do
		[ -d "$m/kernel" ] && MODTREE=$m && break
	done
	[ -n "$MODTREE" ] || die "no modules of $ABI in $DIR"
	[ -f "$ROOT$KDIR/Makefile" ] || die "no $KDIR in $ROOT"
}

# The image and modules (linux-binary-, linux-modules-, or before 7.x all in
# linux-image-) unpacked into DIR; the headers and their kbuild into ROOT.
new_unpack() {
	local k=$1 base=$2 pkgs=() p hdr=$ROOT/.prf-headers-$ABI hd
	if [ ! -f "$DIR/.prf-done" ]; then
		if alt_apt debian-new apt-cache show "linux-binary-$ABI=$VER" >/dev/null 2>&1; then
			pkgs=("linux-binary-$ABI=$VER" "linux-modules-$ABI=$VER")
		else
			pkgs=("linux-image-$ABI=$VER")
		fi
		unpack_debs "$DIR" debian-new "${pkgs[@]}"
	fi
	[ -f "$hdr" ] && return 0
	pkgs=("linux-headers-$ABI=$VER" "linux-headers-$base-common=$VER")
	for p in "linux-kbuild-$base" "linux-kbuild-${base%%-*}"; do
		if alt_apt debian-new apt-cache show "$p=$VER" >/dev/null 2>&1; then
			pkgs+=("$p=$VER")
			break
		fi
	done
	hd=$CACHE/$k/headers-${ABI}_$(tr '~:' '__' <<<"$VER")
	unpack_debs "$hd" debian-new "${pkgs[@]}"
	cp -a "$hd/usr/." "$ROOT/usr/"
	checker_valid "$ROOT/usr/src/linux-headers-$base-common/scripts/checker-valid.sh"
	touch "$hdr"
}

# 7.x headers use __typeof_unqual__, which trixie's sparse (0.6.4) cannot
# parse; the newest sparse of the newer suites can (0.6.5~rc1 in sid).  Its
# program needs only libc: it replaces the root's /usr/bin/sparse.
newest_sparse() {
	local best d
	best=$(alt_apt debian-new apt-cache show sparse | sed -n 's/^Version: //p' | highest_of)
	[ -n "$best" ] || die "no sparse in $NEW_SUITES"
	d=$CACHE/debian-7.x/sparse_$(tr '~:' '__' <<<"$best")
	unpack_debs "$d" debian-new "sparse=$best"
	cp "$d/usr/bin/sparse" "$ROOT/usr/bin/sparse"
}

# Debian's 7.x headers lack the script kbuild runs to decide whether the
# checker (sparse, for C=1/C=2) works; without it kbuild quietly turns the
# checker off.  Ours answers 1 when the checker runs on a trivial file with
# the flags it is given.
checker_valid() {
	[ -e "$1" ] && return 0
	cat >"$1" <<'SH'
#!/bin/sh
# Written by prf's scripts/kernel.sh: is the checker "$@" usable?
printf 'int prf_checker_probe;\n' | "$@" - >/dev/null 2>&1 && echo 1
exit 0
SH
	chmod 755 "$1"
}

# root_run DIR... -- CMD...: CMD inside the build root, with each DIR bound
# into the root at the same path, in a mount namespace of its own that
# disappears with the command, so nothing stays mounted whatever happens.
root_run() {
	local dirs=() d
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		dirs+=("$1")
		shift
	done
	shift
	for d in "${dirs[@]}"; do
		[ -d "$d" ] || die "no directory $d to bind into $ROOT"
		mkdir -p "$ROOT$d"
	done
	# A private mount namespace: /, or where / is no mount point (inside a
	# chroot, such as scripts/fresh-root.sh's: unshare cannot make it
	# private) the root bound onto itself, made private before anything is
	# mounted in it.
	unshare -m --propagation unchanged sh -c '
		root=$1 n=$2; shift 2
		mount --make-rprivate / 2>/dev/null ||
			{ mount --bind "$root" "$root" && mount --make-rprivate "$root"; } ||
			exit 1
		while [ "$n" -gt 0 ]; do
			mount --bind "$1" "$root$1" || exit 1
			shift; n=$((n - 1))
		done
		mount -t proc proc "$root/proc" &&
		exec chroot "$root" env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
		sh "$ROOT" "${#dirs[@]}" "${dirs[@]}" "$@"
}

# kbuild inside the build root: the module's directory (M=) and, for a tree
# built here (debug-7.x), the build and source trees are bound in.
root_kbuild() {
	local m="" a
	for a in "$@"; do
		case $a in M=*) m=${a#M=} ;; esac
	done
	[ -n "$m" ] && [ -d "$m" ] || die "kbuild in $ROOT needs M=<existing dir>"
	root_run "$m" ${BINDS[@]+"${BINDS[@]}"} -- make -C "$KDIR" ${MKVARS[@]+"${MKVARS[@]}"} "$@"
}

# Sets everything above for any kernel of the list.
prepare() {
	case $1 in
	debian-6.1|debian-6.1-rt|debian-6.1-arm64) debian61_prepare "$1" ;;
	debian-7.x|debian-6.12) new_prepare "$1" ;;
	debug-7.x)
		debug_prepare
		ABI=$(cat "$(debug_dir)/include/config/kernel.release")
		KDIR=$(debug_dir)
		BINDS=("$KDIR" "$(readlink -f "$KDIR/source")")
		MKVARS=(CC="$GCC" HOSTCC="$GCC")
		IMAGE=$KDIR/arch/x86/boot/bzImage
		MODTREE="" ;;
	pnmi-7.x-arm64)
		pnmi_prepare
		ABI=$(cat "$(pnmi_dir)/include/config/kernel.release")
		KDIR=$(pnmi_dir)
		BINDS=("$KDIR" "$(readlink -f "$KDIR/source")")
		MKVARS=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC="aarch64-linux-gnu-$GCC"
			HOSTCC="$GCC")
		IMAGE=$KDIR/prf-boot/boot/Image
		MODTREE="" ;;
	esac
}

arch_of() {
	case $1 in *-arm64) echo arm64 ;; *) echo x86_64 ;; esac
}

# ---- The sources: 6.12's for checkpatch.pl and the kselftest harness --------

src_dir() {
	local ver
	ver=$(pkgver linux-source-6.12)
	[ -n "$ver" ] || die "linux-source-6.12 is not installed (scripts/deps.sh)"
	echo "$CACHE/src/linux-source-$ver"
}

src_unpack() {
	local dir=$1 tar tmp
	[ -f "$dir/.prf-done" ] && return 0
	tar=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | sed -n 1p)
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

# ---- The debug kernel (debug-7.x): the newest linux-source-7.N -----------------

# "PACKAGE VERSION SUITE" of the highest linux-source-7.N in the newer
# suites, remembered for a day.
src7_pick() {
	local memo=$CACHE/debug-7.x/source best p v s
	if [ -n "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
		cat "$memo"
		return 0
	fi
	new_apt_init
	best=$(for p in $(alt_apt debian-new apt-cache pkgnames linux-source-7.); do
		new_versions "$p" | sed "s/\$/ $p/"
	done | highest_of)
	[ -n "$best" ] || die "no linux-source-7.N in $NEW_SUITES"
	mkdir -p "$(dirname "$memo")"
	read -r v s p <<<"$best"
	put "$memo" "$p $v $s"
	cat "$memo"
}

# Debian's linux-source-7.N package unpacked (dpkg-deb), then the tarball in
# it, into DIR; the package itself is not kept.
src7_unpack() {
	local dir=$1 pkg=$2 ver=$3 tar tmp
	[ -f "$dir/.prf-done" ] && return 0
	unpack_debs "$dir.deb" debian-new "$pkg=$ver"
	tar=$(ls "$dir.deb/usr/src/$pkg".tar.* 2>/dev/null | sed -n 1p)
	[ -n "$tar" ] || die "no /usr/src/$pkg.tar.* in $pkg $ver"
	say "unpacking $tar into $dir"
	tmp=$(mktemp -d "$CACHE/src/unpack.XXXXXX")
	tar -xf "$tar" -C "$tmp"
	rm -rf "$dir"
	mv "$tmp/$pkg" "$dir"
	rmdir "$tmp"
	rm -rf "$dir.deb"
	touch "$dir/.prf-done"
}

# Sets SRC7 (the unpacked tree) and SRC7_VER (its version, for file names).
src7_prepare() {
	local pick pkg ver
	pick=$(src7_pick)
	read -r pkg ver _ <<<"$pick"
	SRC7_VER=$(tr '~:' '__' <<<"$ver")
	SRC7=$CACHE/src/${pkg}_$SRC7_VER
	mkdir -p "$CACHE/src"
	locked "src-$pkg" src7_unpack "$SRC7" "$pkg" "$ver"
}

# The build dir's key: source package version + the fragment's content, so a
# changed fragment gets a fresh build and an unchanged one is reused.
# Only the option lines count: editing a comment must not cost a rebuild.
fragment_hash() {
	grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set$)' "${2:-$FRAGMENT}" |
		sha256sum | cut -c1-${1:-64}
}

debug_dir() {
	[ -n "${SRC7_VER:-}" ] || src7_prepare
	echo "$CACHE/debug-7.x-$SRC7_VER-$(fragment_hash 12)"
}

# Every CONFIG_X=v line of the fragment must be in .config verbatim and every
# "# CONFIG_X is not set" line must have no CONFIG_X= in .config.  Kconfig
# silently drops options whose dependencies are unmet, so this is the only
# way to know the kernel really has what the tests rely on.
debug_verify_config() {
	local cfg=$1 frag=${2:-$FRAGMENT} line sym bad=0
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
	done <"$frag"
	[ $bad = 0 ] || die "the kernel's .config lost options of $frag"
}

# Built in the build root of debian-7.x (trixie, its gcc-N), the source and
# build trees bound in at their own paths.
debug_build() {
	local o=$1 src=$2 hash log
	[ -f "$o/.prf-done" ] && return 0
	hash=$(fragment_hash)
	mkdir -p "$o"
	log=$o/build.log
	say "building debug-7.x in $o with $GCC in $ROOT (log: $log; 2 cores: 15-25 min)"
	local start=$SECONDS
	local mk=(root_run "$src" "$o" -- make -C "$src" O="$o" ARCH=x86_64
		  CC="$GCC" HOSTCC="$GCC" -j"$JOBS")
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
	say "debug-7.x built in $((SECONDS - start)) s"
}

# Sets ROOT and GCC (debian-7.x's root), SRC7, and builds the kernel.
debug_prepare() {
	local o suite
	read -r ABI VER suite <<<"$(new_pick debian-7.x)"
	new_root "$suite"
	src7_prepare
	o=$(debug_dir)
	# The lock is named after the real directory, should the cache entry be
	# a link to another one.
	locked "$(basename "$(readlink -f "$o")")" debug_build "$o" "$SRC7"
}

# ---- The pseudo-NMI kernel (pnmi-7.x-arm64): arm64, the same source ----------

pnmi_dir() {
	[ -n "${SRC7_VER:-}" ] || src7_prepare
	echo "$CACHE/pnmi-7.x-arm64-$SRC7_VER-$(fragment_hash 12 "$PNMI_FRAGMENT")"
}

# Cross-built like the debug kernel is built, at nice 19 (it shares the
# machine with the guests), by aarch64-linux-gnu-gcc-N: `make all` is the
# Image, the modules and Module.symvers, so that out-of-tree modules build
# against it.  prf-boot/ is what selftests/vm/run boots: boot/Image, and
# bin/ with debian-6.1-arm64's busybox and bash-static (USERLAND).
pnmi_build() {
	local o=$1 src=$2 userland=$3 hash log start=$SECONDS
	[ -f "$o/.prf-done" ] && return 0
	hash=$(fragment_hash 64 "$PNMI_FRAGMENT")
	mkdir -p "$o"
	log=$o/build.log
	say "building pnmi-7.x-arm64 in $o with aarch64-linux-gnu-$GCC in $ROOT (log: $log)"
	local mk=(root_run "$src" "$o" -- nice -n 19 make -C "$src" O="$o" ARCH=arm64
		  CROSS_COMPILE=aarch64-linux-gnu- CC="aarch64-linux-gnu-$GCC" HOSTCC="$GCC"
		  -j"$JOBS")
	{
		if [ "$(cat "$o/.prf-configured" 2>/dev/null)" != "$hash" ]; then
			"${mk[@]}" tinyconfig
			cat "$PNMI_FRAGMENT" >>"$o/.config"
			"${mk[@]}" olddefconfig
			echo "$hash" >"$o/.prf-configured"
		fi
	} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed"; }
	debug_verify_config "$o/.config" "$PNMI_FRAGMENT"
	"${mk[@]}" all >>"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; die "building failed (log: $log)"; }
	[ -f "$o/arch/arm64/boot/Image" ] || die "no Image after the build"
	mkdir -p "$o/prf-boot/boot"
	ln -sfn ../../arch/arm64/boot/Image "$o/prf-boot/boot/Image"
	ln -sfn "$userland/bin" "$o/prf-boot/bin"
	touch "$o/.prf-done"
	say "pnmi-7.x-arm64 built in $((SECONDS - start)) s"
}

# Sets ROOT and GCC (a trixie root with debian-7.x's gcc-N and its aarch64
# cross compiler), SRC7, and builds the kernel.
pnmi_prepare() {
	local o suite pkgs hash userland
	userland=$(dirname "$(dirname "$("$0" path debian-6.1-arm64)")")
	read -r ABI VER suite <<<"$(new_pick debian-7.x)"
	new_root "$suite"
	pkgs=$ROOT_PKGS,$GCC,$GCC-aarch64-linux-gnu
	hash=$(sha256sum <<<"$GCC,$pkgs" | cut -c1-8)
	ROOT=$CACHE/roots/$suite-cross-$hash
	locked "root-$suite-cross" root_make "$suite" "$ROOT" "$pkgs"
	src7_prepare
	o=$(pnmi_dir)
	locked "$(basename "$o")" pnmi_build "$o" "$SRC7" "$userland"
}

# ---- Commands ---------------------------------------------------------------

check_kernel() {
	case " $KERNELS " in
	*" ${1:-} "*) ;;
	*) die "unknown kernel '${1:-}' (known: $KERNELS)" ;;
	esac
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
list)
	echo $KERNELS ;;
debian-abi)
	debian_abi ;;
src)
	src_prepare ;;
prepare|path|kdir|release|modules)
	check_kernel "${1:-}"
	prepare "$1"
	case $cmd in
	path) echo "$IMAGE" ;;
	kdir) echo "${HOST_KDIR:-$KDIR}" ;;
	release) echo "$ABI" ;;
	modules) echo "$MODTREE" ;;
	esac ;;
arch)
	check_kernel "${1:-}"
	arch_of "$1" ;;
sysroot)
	sysroot "${1:-}" ;;
qemu)
	qemu_path "${1:-x86_64}" ;;
perf)
	[ "${1:-}" = arm64 ] || die "no perf for '${1:-}' (known: arm64)"
	perf_arm64 ;;
kbuild)
	check_kernel "${1:-}"
	k=$1
	shift
	prepare "$k"
	case $k in
	debian-7.x|debian-6.12|debug-7.x|pnmi-7.x-arm64) root_kbuild "$@" ;;
	*-arm64) exec make -C "$KDIR" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@" ;;
	*) exec make -C "$KDIR" "$@" ;;
	esac ;;
*)
	sed -n '4,24s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2 ;;
esac
