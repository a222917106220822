#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/vm.sh - the bench's own minimal QEMU launcher, used only while
# selftests/vm/run (the shared test bed) is missing or lacks --icount.
#
#   vm.sh [--smp N] [--icount SPEC] [--append ARGS] [--timeout S] -- cmd args
#
# Boots Debian's 6.1 kernel (scripts/kernel.sh path debian-6.1) under TCG
# with a busybox initramfs that mounts the host's root read-only over 9p,
# chroots into it (same paths as on the host, /tmp a tmpfs), loads $PRF_KO
# if set, and runs the command in the current directory.  The guest's
# console is copied to stdout; the exit status is the command's.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/prf/bench-vm
SMP=2 ICOUNT="" APPEND="" TIMEOUT=1800 MEM=1024

while [ $# -gt 0 ]; do
	case $1 in
	--smp) SMP=$2; shift 2 ;;
	--icount) ICOUNT=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--kernel) [ "$2" = debian-6.1 ] || { echo "vm.sh: only debian-6.1" >&2; exit 2; }; shift 2 ;;
	--) shift; break ;;
	*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: vm.sh [opts] -- cmd args" >&2; exit 2; }

KERNEL=$("$TOP/scripts/kernel.sh" path debian-6.1)
MODS=$("$TOP/scripts/kernel.sh" modules debian-6.1)

# The base initramfs: busybox, the 9p stack, /init.  Rebuilt when this
# script changes.
mkdir -p "$CACHE"
BASE=$CACHE/base-$(sha256sum "$0" | cut -c1-12)-$(basename "$MODS").cpio
if [ ! -f "$BASE" ]; then
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,dev,proc,sys,host,mods}
	cp /bin/busybox "$root/bin/busybox"
	for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
		 virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
		f=$(find "$MODS/kernel" -name "$m.ko" | head -n1)
		[ -n "$f" ] || { echo "vm.sh: no $m.ko" >&2; exit 1; }
		cp "$f" "$root/mods/$m.ko"
	done
	cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
	 virtio_pci netfs fscache 9pnet 9pnet_virtio 9p; do
	insmod /mods/$m.ko || echo "init: insmod $m failed"
done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 hostroot /host
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mount -t tmpfs tmp /host/tmp
mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null
cp /job.sh /host/tmp/.job.sh
# The command's output goes to a writable 9p share, not to the serial
# console: under -icount the emulated UART is slow (see README.md).
mkdir -p /host/tmp/.out
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 benchout /host/tmp/.out; then
	chroot /host /bin/sh /tmp/.job.sh >/host/tmp/.out/console.txt 2>&1
	echo "VM-EXIT-STATUS $?" >>/host/tmp/.out/console.txt
	umount /host/tmp/.out
else
	chroot /host /bin/sh /tmp/.job.sh
	echo "VM-EXIT-STATUS $?"
fi
poweroff -f
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$BASE.tmp"
	mv "$BASE.tmp" "$BASE"
	rm -rf "$root"
fi

# The job: a second cpio archive appended to the base one.
job=$(mktemp -d)
trap 'rm -rf "$job"' EXIT
{
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/tmp TERM=dumb"
	[ -n "${PRF_KO:-}" ] && echo "export PRF_KO='$PRF_KO'; insmod \"\$PRF_KO\" || exit 99"
	echo "cd '$PWD' || exit 98"
	printf 'exec'
	printf ' %q' "$@"
	echo
} >"$job/job.sh"
(cd "$job" && echo job.sh | cpio -o -H newc --quiet) >"$job/job.cpio"
cat "$BASE" "$job/job.cpio" >"$job/initrd"

mkdir -p "$job/out"
args=(-accel tcg -smp "$SMP" -m "$MEM" -kernel "$KERNEL" -initrd "$job/initrd"
      -append "console=ttyS0 ${VM_QUIET-quiet} panic=-1 $APPEND"
      -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
      -virtfs local,path=$job/out,mount_tag=benchout,security_model=none
      -rtc clock=vm -display none -monitor none -serial stdio -no-reboot -nic none)
[ -n "$ICOUNT" ] && args+=(-icount "$ICOUNT")

# The test bed's QEMU (bookworm-backports', scripts/kernel.sh qemu), not
# Debian 12's 7.2.
QEMU=$("$TOP/scripts/kernel.sh" qemu x86_64)
timeout "$TIMEOUT" "$QEMU" "${args[@]}" </dev/null >"$job/serial" 2>&1 || true
tr -d '\r' <"$job/serial" >"$job/console"
[ -f "$job/out/console.txt" ] && cat "$job/out/console.txt" >>"$job/console"
cat "$job/console"
st=$(sed -n 's/^VM-EXIT-STATUS \([0-9]*\).*/\1/p' "$job/console" | tail -n1)
[ -n "$st" ] || { echo "vm.sh: the guest did not finish (timeout or crash)" >&2; exit 124; }
exit "$st"
