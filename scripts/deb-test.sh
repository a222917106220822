#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/deb-test.sh - the Debian packages from install to purge, as root
# in a fresh Debian 12 or 13 (scripts/fresh-root.sh runs it there, in the
# clone; never on a machine of one's own: it installs and purges).
#
#   1. make deb (which installs its build dependencies and runs lintian),
#      and a second set of the same packages at the lower version
#      1.0~test, built from a scratch copy of the same sources
#   2. dkms, Debian's 6.1 headers and pkgconf installed; the root's file
#      list taken
#   3. apt-get install of the 1.0~test packages (DKMS builds prf/1.0~test),
#      /etc/prf/prf.conf changed as an administrator would
#   4. the upgrade: apt-get install ./build/deb/{prf-dkms,prf,libprf-dev}_*.deb:
#      the changed conffile kept, DKMS holds prf at the new version only
#      (1.0~test's module and sources removed) and built prf.ko for the
#      6.1 kernel (its MODULE_VERSION the package's); group prf, the udev
#      rule, man pages, the unit (not enabled), the conffiles where the
#      packages put them; the README's library example built with
#      pkg-config --cflags --libs libprf
#   4b. the guest: Debian's 6.1 (the kernel of those headers) booted with
#      the prf.ko DKMS built, the kselftest suite's fast subset, a C
#      program built with pkg-config --cflags --libs libprf sampling
#      through /dev/prf, and prf record with the packaged /usr/bin/prf
#      (selftests/vm/deb-guest)
#   5. a second kernel's headers installed afterwards (6.1's PREEMPT_RT
#      flavour, make check's debian-6.1-rt): DKMS's autoinstall builds prf
#      for it too; both builds' DKMS logs printed
#   6. apt-get remove of the three: the conffiles stay, the module is gone
#      from DKMS and from both kernels' module trees
#   7. apt-get purge of the three (and of the second kernel's headers):
#      the file list as before, but for what is listed below as staying
#      (stays())
#
# DEB_GUEST names the test bed's kernel step 4b boots (default debian-6.1;
# "none": no guest); its release must be the root's linux-image-amd64's.
# DEB_QEMU: the QEMU it boots with (selftests/vm/run --qemu), where the
# test bed's (bookworm-backports') does not run: Debian 13's own 10.0.
# The root's suite is whatever its apt says: Debian 13 (trixie) too,
# where the kernel is 6.12 (scripts/fresh-root.sh --suite trixie).
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
# The test bed's kernel booted with the module DKMS built (that of the
# root's linux-image-amd64: debian-6.1 in Debian 12), or none.
guest=${DEB_GUEST:-debian-6.1}
old=1.0~test
make --no-print-directory deb
abi=$(scripts/kernel.sh debian-abi)
rtabi=${abi%-amd64}-rt-amd64

# The previous version: make deb's clean copy of the sources, the version
# rewritten where it lives (VERSION, dkms.conf, the changelog's top line),
# built the same way (no lintian: the same files).
rm -rf /tmp/prf-old && mkdir -p /tmp/prf-old
cp -a build/deb/src /tmp/prf-old/src
(
	cd /tmp/prf-old/src
	echo "$old" >VERSION
	sed -i "s/^PACKAGE_VERSION=\".*\"/PACKAGE_VERSION=\"$old\"/" dkms.conf
	sed -i "1s/^prf ([^)]*)/prf ($old)/" debian/changelog
	dpkg-buildpackage -us -uc -b >/tmp/prf-old/build.log 2>&1 ||
		{ tail -n 30 /tmp/prf-old/build.log; exit 1; }
)
olddebs=(/tmp/prf-old/prf-dkms_"$old"_all.deb /tmp/prf-old/prf_"$old"_*.deb /tmp/prf-old/libprf-dev_"$old"_*.deb)
ls "${olddebs[@]}" >/dev/null

"${APT[@]}" install --no-install-recommends dkms "linux-headers-$abi" pkgconf gcc libc6-dev
# the guest of step 4 (QEMU, busybox: make demo's packages, there already
# after fresh-root.sh's make demo) and the suite's kselftest_harness.h:
# this machine's copy of Debian's 6.12 source when fresh-root.sh put one
# here, else the two headers out of linux-source-6.12 (not the whole tree)
ksft=
if [ "$guest" != none ]; then
	make --no-print-directory deps-demo
	# and what the guest's kernel needs (debian-6.12: debootstrap)
	scripts/deps.sh kernel "$guest"
	for h in "$HOME"/.cache/prf/src/linux-source-*/tools/testing/selftests/kselftest_harness.h; do
		[ -f "$h" ] && ksft=${h%/*} && break
	done
fi
if [ "$guest" != none ] && [ -z "$ksft" ]; then
	"${APT[@]}" install --no-install-recommends linux-source-6.12
	mkdir -p build/deb-test/ksft
	tar -xf /usr/src/linux-source-6.12.tar.xz -C build/deb-test/ksft \
		--wildcards 'linux-source-6.12/tools/testing/selftests/kselftest*.h'
	ksft=$PWD/build/deb-test/ksft/linux-source-6.12/tools/testing/selftests
fi
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

# the module DKMS installed for kernel $1 (updates/dkms with DKMS 3, extra
# with older ones: dkms.conf's DEST_MODULE_LOCATION); find fails on the
# one that does not exist
ko_of() {
	{ find "/lib/modules/$1/updates" "/lib/modules/$1/extra" -name 'prf.ko*' 2>/dev/null || :; } | sed -n 1p
}

# ---- the previous version, then the upgrade ----
"${APT[@]}" install "${olddebs[@]}"
say "dkms status (1.0~test): $(dkms status prf)"
test "$(dkms status prf)" = "prf/$old, $abi, x86_64: installed"
test "$(modinfo -F version "$(ko_of "$abi")")" = "$old"
echo '# changed before the upgrade' >>/etc/prf/prf.conf
cp /etc/prf/prf.conf /tmp/prf.conf.changed

debs=(./build/deb/prf-dkms_"$v"_all.deb ./build/deb/prf_"$v"_*.deb ./build/deb/libprf-dev_"$v"_*.deb)
"${APT[@]}" install "${debs[@]}"

say "dkms status (upgraded): $(dkms status prf)"
test "$(dkms status prf)" = "prf/$v, $abi, x86_64: installed"
test ! -e "/usr/src/prf-$old" && test ! -e "/var/lib/dkms/prf/$old"
cmp /etc/prf/prf.conf /tmp/prf.conf.changed
say "upgrade $old -> $v: the changed /etc/prf/prf.conf kept, DKMS holds prf/$v only"
ko=$(ko_of "$abi")
test -n "$ko"
say "DKMS built $ko: version $(modinfo -F version "$ko"), vermagic $(modinfo -F vermagic "$ko")"
test "$(modinfo -F version "$ko")" = "$v"
modinfo -F vermagic "$ko" | grep -q "^$abi "
test "$(find /lib/modules/ -name 'prf.ko*' | wc -l)" = 1
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

# programs of one's own against the installed library, copied away from
# the tree's headers: the README's example, and the guest's deb-libprf
# (where the guest sees it: not under /tmp)
mkdir -p build/deb-test
cp tools/examples/prfcount.c selftests/vm/deb-libprf.c /tmp/
# shellcheck disable=SC2046
gcc -Wall -Werror -o /tmp/prfcount /tmp/prfcount.c $(pkg-config --cflags --libs libprf)
# shellcheck disable=SC2046
gcc -Wall -Werror -o build/deb-test/deb-libprf /tmp/deb-libprf.c $(pkg-config --cflags --libs libprf)
test "$(pkg-config --modversion libprf)" = "$v"
say "built /tmp/prfcount and build/deb-test/deb-libprf with pkg-config --cflags --libs libprf: $(pkg-config --cflags --libs libprf)"

# ---- the guest: Debian's 6.1 booted with the module the package built ----
# The test bed's debian-6.1 is the kernel of the headers DKMS built for
# (the same ABI); the module loaded is DKMS's file, not the tree's; the
# suite's fast subset (the whole suite is 17 minutes of a make check's
# guest: selftests/vm/suite's programs of the device's ABI, about 30 s),
# deb-libprf, and prf record with the packaged /usr/bin/prf
# (selftests/vm/deb-guest).
if [ "$guest" = none ]; then
	say "no guest (DEB_GUEST=none): the module DKMS built is not booted"
else
rel=$(scripts/kernel.sh release "$guest")
say "$guest guest kernel: $(scripts/kernel.sh path "$guest") (release $rel)"
test "$rel" = "$abi"
case $ko in /lib/modules/"$abi"/updates/dkms/prf.ko*) ;; *) never "DKMS's module $ko not in updates/dkms" ;; esac
# DKMS compresses the module where the kernel's are (Debian 13: xz); the
# guest loads it decompressed (as kmod would; finit_module(2) of the
# compressed file wants a flag the test programs that reload it do not
# pass), and checks that the bytes it loaded are DKMS's file's
gko=$ko
case $ko in
*.xz) gko=$PWD/build/deb-test/prf.ko && xz -dc "$ko" >"$gko" ;;
*.zst) gko=$PWD/build/deb-test/prf.ko && zstd -qdc "$ko" >"$gko" ;;
*.gz) gko=$PWD/build/deb-test/prf.ko && gzip -dc "$ko" >"$gko" ;;
esac
suite=(prf_open_test prf_ioctl_test prf_read_test prf_rdonly_test prf_poll_test
	prf_lifetime_test prf_sysfs_test)
make -s -C selftests KSFT_DIR="$ksft" "${suite[@]/#/$PWD/selftests/}"
start=$SECONDS
qemu=()
[ -z "${DEB_QEMU:-}" ] || qemu=(--qemu "$DEB_QEMU")
selftests/vm/run --kernel "$guest" --ko "$gko" --smp 2 --timeout 900 "${qemu[@]}" \
	--env DEB_VERSION="$v" --env DEB_KO="$ko" --env DEB_SUITE="${suite[*]}" \
	--env DEB_TOOL="$PWD/build/deb-test/deb-libprf" \
	-- selftests/vm/deb-guest >build/deb-test/guest.log 2>&1 ||
	{ tail -n 40 build/deb-test/guest.log; say "the guest failed (build/deb-test/guest.log)"; exit 1; }
grep -E '^(not )?ok [0-9]+ - (deb-guest|libprf)|^# [0-9]+ reads|^# suite: .*exit status' build/deb-test/guest.log |
	sed 's/^/deb-test:   /'
grep -q "^vm-run: $guest: PASS" build/deb-test/guest.log
say "guest ($((SECONDS - start)) s): $(tail -n 1 build/deb-test/guest.log)"
fi

# ---- a second kernel: its headers installed afterwards ----
# (what it brings, purged at the end: Debian 13's headers bring their
# kernel's image, which apt's autoremove never takes)
dpkg-query -W -f='${Package}\n' | sort >/tmp/pkgs.before-rt
"${APT[@]}" install --no-install-recommends "linux-headers-$rtabi"
dpkg-query -W -f='${Package}\n' | sort | comm -13 /tmp/pkgs.before-rt - >/tmp/pkgs.rt
say "the second kernel's headers brought: $(tr '\n' ' ' </tmp/pkgs.rt)"
# (grep -q of a pipe would end dkms with SIGPIPE, a failure under pipefail)
st=$(dkms status prf)
say "dkms status (two kernels): $(tr '\n' ';' <<<"$st")"
grep -qx "prf/$v, $abi, x86_64: installed" <<<"$st"
grep -qx "prf/$v, $rtabi, x86_64: installed" <<<"$st"
rtko=$(ko_of "$rtabi")
test -n "$rtko"
test "$(modinfo -F version "$rtko")" = "$v"
say "DKMS built $rtko: version $(modinfo -F version "$rtko"), vermagic $(modinfo -F vermagic "$rtko")"
# (its ABI has a "+" in Debian 13: matched as a string, not a pattern)
case "$(modinfo -F vermagic "$rtko")" in
"$rtabi SMP preempt "* | "$rtabi SMP preempt_rt "*) ;;
*) never "the rt module's vermagic is not a preemptible $rtabi's" ;;
esac
for k in "$abi" "$rtabi"; do
	log=/var/lib/dkms/prf/$v/$k/x86_64/log/make.log
	test -s "$log"
	say "DKMS build log for $k ($log):"
	sed 's/^/deb-test:   /' "$log"
done

# ---- remove: conffiles stay, the module goes ----
"${APT[@]}" remove prf-dkms prf libprf-dev
# removed, their conffiles kept ("rc"); libprf-dev has none, so dpkg
# forgets it at once
for p in prf-dkms prf; do
	test "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p")" = "rc "
done
dpkg -l libprf-dev 2>/dev/null | grep -E '^(ii|rc) ' && never libprf-dev left
cmp /etc/prf/prf.conf /tmp/prf.conf.changed
grep -qx '#prf' /etc/modules-load.d/prf.conf
test -z "$(dkms status prf)" || never DKMS holds prf
test ! -e "/usr/src/prf-$v" && test ! -e /var/lib/dkms/prf
test "$(find /lib/modules/ -name 'prf.ko*' | wc -l)" = 0
say "remove: the conffiles stay (the change too), DKMS and both kernels hold no prf"

# (libprf-dev went at remove: apt-get would not know the name)
"${APT[@]}" purge prf-dkms prf
mapfile -t rtpkgs </tmp/pkgs.rt
"${APT[@]}" purge "${rtpkgs[@]}"
# What stays, each named: by policy the system group prf (in /etc/group
# and /etc/gshadow; addgroup leaves the backup /etc/gshadow-), files may
# still be the group's; DKMS's own signing key, made at its first build
# (DKMS's, kept for the next module it signs); and depmod's indexes of the
# two kernels, whose images this root lacks (the headers alone: on a
# machine the image's package has them already; the second kernel's
# directory made by DKMS's install for it).
stays() {
	echo /etc/gshadow-
	echo "/usr/lib/modules/$rtabi"
	for k in "$abi" "$rtabi"; do
		for f in alias alias.bin builtin.alias.bin builtin.bin dep dep.bin \
			devname softdep symbols symbols.bin; do
			echo "/usr/lib/modules/$k/modules.$f"
		done
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
test -z "$(dkms status prf)" || never DKMS holds prf
dpkg -l prf-dkms prf libprf-dev 2>/dev/null | grep -E '^(ii|rc) ' && never packages left
say "PASS: install $old, upgrade to $v, DKMS builds for $abi and $rtabi, remove, purge"
