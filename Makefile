# SPDX-License-Identifier: GPL-2.0
#
# prf top-level Makefile.
#
#   make                      prf.ko for $(KERNEL) (default debian-6.1) + tools
#   make module               prf.ko only: build/$(KERNEL)/prf.ko
#   make KERNEL=debug-7.x module
#   make KDIR=/lib/modules/$(uname -r)/build KERNEL=host module
#                             any other kernel tree (KERNEL names build/<dir>)
#   make modules              prf.ko for every test-bed kernel (scripts/kernel.sh list)
#   make check                every test (scripts/check.sh); ends "N passed, N failed"
#   make demo                 profile a kernel-heavy workload in a debian-6.1 guest
#   make stress               the long stress run in the guests (run-long.sh)
#   make bench                prf against the floor, perf, bpftrace (bench/RESULTS.md)
#   make deb                  Debian packages prf-dkms, prf, libprf-dev into build/deb/
#                             (from HEAD plus the tracked files' changes), lintian-checked
#   make install              tools (make -C tools install)
#   make modules_install      prf.ko into KDIR's /lib/modules (the running kernel's)
#   make clean
#
# Each kernel gets its own copy of the module sources in build/<kernel>/, so
# two kernels never share object files and the work tree stays clean.
# EXTRA passes extra kbuild variables, e.g. EXTRA="W=1 C=2".

KERNEL ?= debian-6.1
KERNELS := debian-6.1 debug-7.x debian-7.x debian-6.12 debian-6.1-rt debian-6.1-arm64
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# The test-bed kernels' trees come from scripts/kernel.sh (which may build
# debug-7.x on first use, and knows how to cross-build for arm64 or build in
# the trixie root of debian-7.x, debian-6.12 and debug-7.x); KDIR on the
# command line wins.
ifeq ($(origin KDIR),undefined)
# Evaluated once, on first use (make clean does not need it).
KDIR = $(eval KDIR := $(shell $(TOP)/scripts/kernel.sh kdir $(KERNEL)))$(KDIR)
KBUILD = $(TOP)/scripts/kernel.sh kbuild $(KERNEL)
# Only the test-bed kernels need the test bed's packages (those of that
# kernel alone): a build against a tree of the user's own (KDIR=...)
# installs nothing.
MODULE_DEPS := deps-kernel
else
KBUILD = $(MAKE) -C $(KDIR)
endif

MODSRC := Kbuild VERSION $(wildcard prf_*.c prf_*.h) prf.h
UAPI := uapi/linux/prf.h
BUILD := build/$(KERNEL)
# Most bytes of static per-CPU data prf.ko may have (make module checks).
PERCPU_MAX := 64

.PHONY: all module modules check demo stress bench deb deps-deb install modules_install clean deps deps-demo deps-kernel tools FORCE

all: module tools

# scripts/deps.sh: every package (check, bench, stress), the demo's only, or
# those of building for and booting $(KERNEL).
deps:
	@scripts/deps.sh
deps-demo:
	@scripts/deps.sh demo
deps-kernel:
	@scripts/deps.sh kernel $(KERNEL)
deps-deb:
	@scripts/deps.sh deb

tools:
	@if [ -f tools/Makefile ]; then $(MAKE) -s -C tools; fi

module: $(MODULE_DEPS)
	@mkdir -p $(BUILD)/uapi/linux
	@# cp -p keeps the times, so kbuild recompiles only what changed.
	@cp -p $(MODSRC) $(BUILD)/
	@cp -p $(UAPI) $(BUILD)/uapi/linux/
	@test -d "$(KDIR)" || { echo "no kernel tree KDIR=$(KDIR)" >&2; exit 1; }
	$(KBUILD) M=$(TOP)/$(BUILD) $(EXTRA) modules
	@# Static per-CPU data (DEFINE_PER_CPU) comes out of the few KiB the
	@# kernel reserves for every module's together: prf allocates its
	@# buffers with alloc_percpu() instead, and keeps this section small.
	@size=$$(readelf -S -W $(BUILD)/prf.ko | \
		awk '{ for (i = 1; i < NF; i++) if ($$i == ".data..percpu") print $$(i + 4) }'); \
	size=$$((0x$${size:-0})); \
	if [ $$size -gt $(PERCPU_MAX) ]; then \
		echo "$(BUILD)/prf.ko: $$size bytes of static per-CPU data (.data..percpu), more than $(PERCPU_MAX)" >&2; \
		exit 1; \
	fi
	@ln -sf $(BUILD)/prf.ko prf.ko

modules:
	@for k in $(KERNELS); do $(MAKE) --no-print-directory KERNEL=$$k module || exit 1; done

check:
	@scripts/check.sh

demo: deps-demo
	@$(MAKE) --no-print-directory KERNEL=debian-6.1 module
	@$(MAKE) --no-print-directory tools
	selftests/vm/run --kernel debian-6.1 --timeout 600 -- selftests/vm/demo

stress: deps
	@selftests/stress/run-long.sh

bench: deps
	@$(MAKE) --no-print-directory KERNEL=debian-6.1 module
	@$(MAKE) --no-print-directory tools
	$(MAKE) -C bench bench

# The packages are built from a clean copy of the tree (git archive of the
# work tree's tracked files: untracked files are left out, as a release
# would), never from the tree itself with its build/ and objects.
# dpkg-buildpackage writes the .debs beside the copy, in build/deb/.
deb: deps-deb
	@rm -rf build/deb
	@mkdir -p build/deb/src
	@git archive "$$(git stash create 2>/dev/null | grep . || echo HEAD)" | tar -x -C build/deb/src
	cd build/deb/src && dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning build/deb/*.changes

install: tools
	$(MAKE) -C tools install

modules_install: module
	$(MAKE) -C $(KDIR) M=$(TOP)/$(BUILD) modules_install

clean:
	rm -rf build prf.ko
	@if [ -f tools/Makefile ]; then $(MAKE) -s -C tools clean; fi
	@if [ -f selftests/Makefile ]; then $(MAKE) -s -C selftests clean; fi
