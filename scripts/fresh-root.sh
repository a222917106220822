#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/fresh-root.sh - the README's commands on a machine that has none of
# the project's packages: a fresh Debian 12 (debootstrap --variant=minbase
# with git, make and ca-certificates only, as a new machine of this kind),
# the project cloned into it, everything run there with chroot.
#
#   1. make demo                      the README's first command, which must
#                                     install every package it needs itself
#   2. apt-get install dkms headers,  as the README says, against Debian's
#      dkms add/build/install         6.1 headers; the module DKMS installed
#                                     is then loaded in a debian-6.1 guest
#                                     and profiles the demo's workload there
#   3. make KERNEL=host KDIR=... module tools
#                                     the README's build for a running kernel
#   4. make KERNEL=debian-7.x module  make check's build for the newest
#                                     Debian kernel (W=1 C=2), in its own
#                                     trixie root inside the fresh one
#                                     (this machine's copy of that root and
#                                     of the 7.x packages, when it has them)
#   5. make deb, the packages installed scripts/deb-test.sh: prf-dkms,
#      and purged                     prf, libprf-dev from install (an
#                                     upgrade from 1.0~test; DKMS builds
#                                     for 6.1 and, its headers installed
#                                     afterwards, 6.1 rt) to remove and
#                                     purge; the 6.1 guest booted with the
#                                     module DKMS built runs the suite's
#                                     fast subset, a libprf program and
#                                     the packaged prf record
#
# Each prints one TAP line; the last line is
#   vm-run: fresh-root: PASS|FAIL: N ok, N not ok, 0 skipped
# (the form scripts/check.sh counts).  Logs: $PRF_FRESH_LOGS (default
# build/fresh-root/).  The clone is of HEAD: uncommitted changes are not in
# it (the script says so).  The bootstrap tarball, and a tar of the root
# debootstrap made from it, are cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/prf/fresh/; the root itself is made anew
# every run and removed afterwards (PRF_FRESH_KEEP=1 keeps it).
# Mounts live in a mount namespace of their own: nothing stays mounted.
#
#   scripts/fresh-root.sh [--suite SUITE] --run 'CMD'
# makes the same fresh root and clone but runs CMD there instead (in
# /root/prf, output on stdout, its exit status the script's): how a release
# is tried the brief's way, e.g. --run 'make check; make demo'.  --suite
# makes the root of another Debian suite (its own cached tarballs beside
# bookworm's): --suite trixie --run scripts/deb-test.sh tests the packages
# on Debian 13.

set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/prf
LOGS=${PRF_FRESH_LOGS:-$TOP/build/fresh-root}
MIRROR=http://deb.debian.org/debian

say() { echo "fresh-root: $*" >&2; }
n=0
nok=0
nnot=0
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		nok=$((nok + 1))
		echo "ok $n - $2"
	else
		nnot=$((nnot + 1))
		# A guest's own verdict, where the step ran one, says why on
		# the same line (make check's list of failures shows that line).
		why=$(grep -E '^vm-run: [^:]+: FAIL: ' "$3" 2>/dev/null | tail -n 1 | cut -c1-200)
		echo "not ok $n - $2 (log: $3)${why:+ [$why]}"
		tail -n 25 "$3" | sed 's/^/#   /'
	fi
}
remove_root() {
	if [ "${PRF_FRESH_KEEP:-0}" != 1 ] && [ -n "${ROOT:-}" ]; then
		! mountpoint -q "$ROOT" || umount "$ROOT"
		# --one-file-system: never into a /dev or /proc still bound there
		rm -rf --one-file-system "$ROOT"
	fi
}
finish() {
	local v=PASS
	[ $nnot = 0 ] || v=FAIL
	echo "vm-run: fresh-root: $v: $nok ok, $nnot not ok, 0 skipped"
	remove_root
	[ $nnot = 0 ]
	exit
}

RUN=
SUITE=bookworm
if [ "${1:-}" = --suite ] && [ $# -ge 2 ]; then
	SUITE=$2
	shift 2
fi
if [ "${1:-}" = --run ] && [ $# = 2 ]; then
	RUN=$2
elif [ $# != 0 ] || { [ "$SUITE" != bookworm ] && [ -z "$RUN" ]; }; then
	echo "usage: scripts/fresh-root.sh [--run 'CMD'] | --suite SUITE --run 'CMD'" >&2
	exit 2
fi
TARBALL=$CACHE/fresh/$SUITE-minbase.tgz
ROOTBALL=$CACHE/fresh/$SUITE-minbase-root.tar

[ "$(id -u)" = 0 ] || { echo "fresh-root: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-root: no debootstrap (scripts/deps.sh)" >&2; exit 2; }
rm -rf "$LOGS"
mkdir -p "$LOGS" "$CACHE/fresh"
[ -z "$(git -C "$TOP" status --porcelain --untracked-files=no)" ] ||
	say "the work tree has uncommitted changes: the fresh root gets HEAD"

# ---- the root ----------------------------------------------------------------
if [ ! -s "$TARBALL" ]; then
	say "downloading a minbase $SUITE into $TARBALL"
	tmp=$(mktemp -d "$CACHE/fresh/mk.XXXXXX")
	if debootstrap --variant=minbase --include=git,make,ca-certificates \
		--make-tarball="$TARBALL.tmp" "$SUITE" "$tmp" "$MIRROR" \
		>"$LOGS/tarball.log" 2>&1; then
		mv "$TARBALL.tmp" "$TARBALL"
	fi
	rm -rf "$tmp" "$TARBALL.tmp"
fi
ROOT=$(mktemp -d "$CACHE/fresh/root.XXXXXX")
chmod 755 "$ROOT"
trap 'finish' INT TERM
# The root as debootstrap leaves it, before anything else touches it, is
# kept as a tar beside the packages' tarball: the same files every time the
# same packages are installed, without installing them again (debootstrap
# took 170 s of a make check's lane).  Made anew whenever the packages'
# tarball is.
if [ -s "$ROOTBALL" ] && [ "$ROOTBALL" -nt "$TARBALL" ]; then
	say "unpacking the debootstrapped root $ROOTBALL into $ROOT"
	if ! tar -C "$ROOT" --numeric-owner --xattrs -xpf "$ROOTBALL" \
		>"$LOGS/debootstrap.log" 2>&1; then
		tap 1 "unpack a fresh Debian 12" "$LOGS/debootstrap.log"
		finish
	fi
else
	say "debootstrap into $ROOT"
	from=()
	[ ! -s "$TARBALL" ] || from=(--unpack-tarball="$TARBALL")
	if ! debootstrap --variant=minbase --include=git,make,ca-certificates \
		"${from[@]}" "$SUITE" "$ROOT" "$MIRROR" \
		>"$LOGS/debootstrap.log" 2>&1; then
		tap 1 "debootstrap a fresh Debian 12" "$LOGS/debootstrap.log"
		finish
	fi
	if [ -s "$TARBALL" ] &&
		tar -C "$ROOT" --numeric-owner --xattrs -cf "$ROOTBALL.tmp" . \
			2>>"$LOGS/debootstrap.log"; then
		mv "$ROOTBALL.tmp" "$ROOTBALL"
	fi
	rm -f "$ROOTBALL.tmp"
fi
# The machine's own Debian sources (point releases and security updates
# decide which 6.1 kernel is current), name resolution, and the project.
# Another suite keeps debootstrap's sources: the release alone, whose
# kernel is the test bed's (debian-6.12 is trixie's, without its updates).
if [ "$SUITE" = bookworm ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
	cp /etc/apt/sources.list.d/debian.sources "$ROOT/etc/apt/sources.list.d/"
	: >"$ROOT/etc/apt/sources.list"
fi
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
git clone -q "$TOP" "$ROOT/root/prf" >"$LOGS/clone.log" 2>&1 ||
	{ tap 1 "git clone into the fresh root" "$LOGS/clone.log"; finish; }

# The kselftest headers of this machine's copy of Debian's 6.12 source
# (make check's checkpatch step has unpacked it), the three alone: what
# scripts/deb-test.sh's guest builds its suite programs with.  Without
# them deb-test.sh takes them out of the linux-source-6.12 package.
for h in "$CACHE"/src/linux-source-6.12*/tools/testing/selftests/kselftest_harness.h; do
	[ -f "$h" ] || continue
	d=$ROOT/root/.cache/prf/src/linux-source-6.12-kselftest/tools/testing/selftests
	mkdir -p "$d" && cp "${h%/*}"/kselftest*.h "$d/"
	break
done

# A Debian 13 root runs scripts/deb-test.sh with the test bed's debian-6.12
# (trixie's kernel): its image and modules, the apt lists that picked it
# and its finished build root (where kernel.sh looks for its headers),
# copied from this machine's cache when it has them, as step 4 below does
# (never across a mount: cp -x).  Not the test bed's QEMU (bookworm-
# backports' 10.0: `--version` printed nothing in a trixie root), but
# trixie's own, also 10.0 (deb-test.sh's DEB_QEMU).
# seed_cache LOG GLOB ITEM...: copies into the root's cache the ITEMs of
# this machine's cache and its finished build roots named roots/GLOB (not
# one being made, roots/*.tmp, which has the host's /proc mounted in it,
# nor the cross-compiling one); never across a mount (cp -x).
seed_cache() {
	local log=$1 glob=$2 d
	shift 2
	local seed=("$@")
	for d in "$CACHE"/roots/$glob/; do
		d=${d%/}
		case $d in *.tmp | *-cross-*) continue ;; esac
		[ -f "$d/.prf-done" ] && seed+=("roots/${d##*/}")
	done
	for d in "${seed[@]}"; do
		[ -d "$CACHE/$d" ] || continue
		mkdir -p "$ROOT/root/.cache/prf/$(dirname "$d")"
		cp -a -x "$CACHE/$d" "$ROOT/root/.cache/prf/$d" 2>>"$log" || true
	done
}
if [ "$SUITE" = trixie ]; then
	seed_cache "$LOGS/seed.log" 'trixie-*' apt/debian-new debian-6.12
fi

# in_root LOG CMD: run a shell command in the root, in /root/prf, as a new
# user would (HOME=/root, nothing cached), in a private mount namespace;
# its output goes to LOG, or to this script's stdout for LOG "-".
in_root() {
	local log=$1
	shift
	if [ "$log" = - ]; then
		in_root_ "$@" 2>&1
	else
		in_root_ "$@" >"$log" 2>&1
	fi
}
in_root_() {
	# A private mount namespace, so that nothing mounted for the root is
	# seen outside it.  Inside a chroot "/" is no mount point and cannot be
	# made private: the root is then bound onto itself and that is made
	# private (finish() undoes what a shared parent copied outside).
	unshare -m --propagation unchanged /bin/sh -c '
		root=$1; shift
		mount --make-rprivate / 2>/dev/null ||
			{ mount --bind "$root" "$root" &&
			  mount --make-rprivate "$root"; } || exit 1
		mount --rbind /dev "$root/dev" &&
		mount -t proc proc "$root/proc" &&
		mount -t sysfs sysfs "$root/sys" &&
		mount -t tmpfs tmpfs "$root/tmp" &&
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			/bin/bash -c "cd /root/prf && $*"' sh "$ROOT" "$@"
}

if [ -n "$RUN" ]; then
	say "running in $ROOT/root/prf: $RUN"
	in_root - "$RUN"
	rc=$?
	say "exit status $rc"
	remove_root
	exit $rc
fi

# ---- 1. make demo ----------------------------------------------------------------
start=$SECONDS
in_root "$LOGS/demo.log" "make demo"
rc=$?
grep -q '^vm-run: debian-6.1: PASS' "$LOGS/demo.log" || rc=1
tap $rc "make demo on a fresh Debian 12 ($((SECONDS - start)) s)" "$LOGS/demo.log"
[ $rc = 0 ] || finish

# ---- 2. DKMS ------------------------------------------------------------------------
start=$SECONDS
in_root "$LOGS/dkms.log" '
	set -e
	abi=$(scripts/kernel.sh debian-abi)
	# the README: the packages, then dkms add and dkms install
	DEBIAN_FRONTEND=noninteractive apt-get install -q -y dkms "linux-headers-$abi"
	dkms add .
	dkms install "prf/$(cat VERSION)" -k "$abi"
	ko=$(find "/lib/modules/$abi/updates" -name "prf.ko*" | sed -n 1p)
	test -n "$ko"
	echo "dkms installed $ko, signed by: $(modinfo -F signer "$ko")"
	# signed with DKMS'"'"'s own key, the one the README says to enroll
	modinfo -F sig_id "$ko" | grep -q PKCS
	openssl x509 -in /var/lib/dkms/mok.pub -inform DER -noout -subject
	# the installed module profiles: the demo (tools built by make demo)
	selftests/vm/run --kernel debian-6.1 --ko "$ko" --env DEMO_SECONDS=2 -- selftests/vm/demo'
rc=$?
grep -q '^vm-run: debian-6.1: PASS' "$LOGS/dkms.log" || rc=1
tap $rc "dkms add/build/install, the installed module in a guest ($((SECONDS - start)) s)" \
	"$LOGS/dkms.log"

# ---- 3. the README's build for the running kernel ---------------------------
start=$SECONDS
in_root "$LOGS/host-build.log" '
	set -e
	abi=$(scripts/kernel.sh debian-abi)
	make KERNEL=host KDIR=/lib/modules/$abi/build module tools
	modinfo -F vermagic build/host/prf.ko | grep -q "^$abi "
	test -x tools/prfld'
tap $? "make KERNEL=host KDIR=/lib/modules/ABI/build module tools ($((SECONDS - start)) s)" \
	"$LOGS/host-build.log"

# ---- 4. the newest Debian kernel's build, from inside the fresh root --------
# make check's build for debian-7.x: the newest kernel's packages through an
# apt configuration of its own, a trixie root for its gcc-14, and kbuild run
# inside that root in a mount namespace, here inside a chroot (where / is no
# mount point).  make demo touches none of it.  What that build fetches and
# makes before it runs kbuild (the newer suites' package lists, the 7.x
# packages, the debootstrapped trixie root: 330 s of a make check's lane)
# is copied from this machine's cache when it has them (make check's step 1
# has made them): this step is about kbuild in a root inside a chroot;
# fetching them on a machine that has nothing is what a cold make check
# does, the --run way above.
# Only finished roots (.prf-done), not the cross-compiling one, and never
# across a mount (cp -x): a root debootstrap is making (roots/*.tmp) has
# the host's /proc mounted in it, whose kcore alone would fill the disk.
start=$SECONDS
seed_cache "$LOGS/newest-seed.log" '*' apt/debian-new debian-7.x
in_root "$LOGS/newest-build.log" '
	set -e
	make --no-print-directory KERNEL=debian-7.x EXTRA="W=1 C=2" module
	test -f build/debian-7.x/prf.ko'
rc=$?
! grep -Eiq 'warning|error' "$LOGS/newest-build.log" || rc=1
tap $rc "make KERNEL=debian-7.x module (W=1 C=2, its own trixie root) ($((SECONDS - start)) s)" \
	"$LOGS/newest-build.log"

# ---- 5. the Debian packages, install to purge --------------------------------
# make deb (its build dependencies installed as a user's would be, lintian
# clean), the three packages installed beside Debian's 6.1 headers over
# their 1.0~test versions (DKMS builds prf.ko; then for the rt headers
# too), the guest booted with DKMS's prf.ko (selftests/vm/deb-guest),
# checked, removed, purged: scripts/deb-test.sh.
start=$SECONDS
in_root "$LOGS/deb.log" 'scripts/deb-test.sh'
rc=$?
grep -q '^deb-test: PASS' "$LOGS/deb.log" || rc=1
tap $rc "make deb, install 1.0~test, upgrade, DKMS builds for two kernels, remove, purge (scripts/deb-test.sh) ($((SECONDS - start)) s)" \
	"$LOGS/deb.log"

finish
