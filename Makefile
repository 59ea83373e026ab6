# luf: lazy unmap flush.  Entry points:
#
#   make demo          boot the patched kernel in the two-tier VM, load luf,
#                      run the tiering workload with luf off and on, print
#                      the comparison
#   make check         every test (host and guest), ends with "N passed, N failed"
#   make bench         every benchmark (tiering, migration, allocator), A/B;
#                      report, JSON/CSV and plot under build/bench/
#   make kernel        build the vanilla and patched test kernels (cached)
#   make module        build luf.ko against the patched test kernel
#   make tools         build the userspace tools and guest helpers
#   make dkms-install  install the source for dkms (/usr/src/luf-<version>)
#   make deb           Debian packages luf-dkms and luf-tools, in build/deb/
#   make kernel-deb    the patched kernel as Debian packages (linux-image,
#                      linux-headers; local version -luf), in build/kernel-deb/,
#                      from Debian's 6.12 config (KCONFIG=debian, the default),
#                      the test config (KCONFIG=test) or a file (KCONFIG=path);
#                      LSMOD=<lsmod output> trims it to a host's modules
#   make check-one T=<test> [SUITE=<suite>]  one guest test's lines alone
#   make check-suite SUITE=<suite>  one whole guest suite, no host tests
#   make check-series  core-hooks.patch as a series: checkpatch and git am per
#                      patch, and the tree builds after each one
#
# Kernel trees and ccache live in $(LUF_CACHE) (default ~/.cache/luf);
# everything else this Makefile builds goes under build/.

LUF_CACHE ?= $(HOME)/.cache/luf
export LUF_CACHE
BUILD := $(CURDIR)/build
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC ?= /usr/src/luf-$(VERSION)
KBUILD_VARIANT ?= debug

# The patched kernel build directory, built on demand (cheap when cached).
patched_kdir = $$(tests/kernel/build.sh patched $(KBUILD_VARIANT))

.PHONY: all setup kernel module tools check check-one check-suite soak demo bench dkms-source dkms-install deb kernel-deb check-series clean

all: module tools

setup:
	@tests/setup.sh

kernel: setup
	@tests/kernel/build.sh vanilla debug >/dev/null
	@tests/kernel/build.sh patched debug >/dev/null

# KDIR=<kernel build dir> builds against another kernel (for example a
# distribution kernel carrying core-hooks.patch).
module: setup
	@kdir=$${KDIR:-$(patched_kdir)} && $(MAKE) -C "$$kdir" M=$(CURDIR) modules

# lufctl (tools/) and the programs the tests run (tests/tools/), all in
# build/tools/.
tools: setup
	@$(MAKE) -C tools
	@$(MAKE) -C tests/tools

check:
	@tests/check.sh

# One guest test alone: make check-one T=<test>[,<test>...]
# [SUITE=vanilla|...]: the same builds as make check, then only those
# tests' lines of the suite (patched by default) in one guest; no host
# tests, no other guests.
check-one:
	@[ -n "$(T)" ] || { echo "usage: make check-one T=<test in tests/guest/t/>[,<test>...] [SUITE=<suite>]" >&2; exit 2; }
	@LUF_ONLY='$(T)' LUF_SUITE='$(SUITE)' tests/check.sh

# One whole guest suite alone: make check-suite SUITE=patched|vanilla|...
check-suite:
	@[ -n "$(SUITE)" ] || { echo "usage: make check-suite SUITE=<tests/guest/<suite>.list>" >&2; exit 2; }
	@[ -f 'tests/guest/$(SUITE).list' ] || { echo "make check-suite: no tests/guest/$(SUITE).list" >&2; exit 2; }
	@LUF_SUITE='$(SUITE)' tests/check.sh

# make soak [SOAK_MIN=120]: the patched debug kernel, the invariant checker
# on, every detector, the selftests under moveall, tiering, reclaim,
# toggling and reloads mixed for SOAK_MIN minutes (tests/guest/t/soak).
# Not part of make check.
SOAK_MIN ?= 120
soak:
	@case '$(SOAK_MIN)' in ''|*[!0-9]*) echo "make soak: SOAK_MIN must be a number of minutes" >&2; exit 2 ;; esac
	@LUF_SUITE=soak LUF_SOAK_MIN='$(SOAK_MIN)' tests/check.sh

demo:
	@tests/demo.sh

bench:
	@tests/bench/bench.sh all

# The module's source: in a git checkout the files git knows of or would
# (not those .gitignore names: what a build left in module/); elsewhere
# module/ without build products.
dkms-source:
	@rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	@cp Kbuild dkms.conf $(DKMS_SRC)/
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard module | \
			xargs -0 cp --parents -t $(DKMS_SRC); \
	else \
		rsync -a --exclude='*.o' --exclude='.*.cmd' --exclude='*.ko' \
			--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.d' \
			module/ $(DKMS_SRC)/module/; \
	fi

deb: setup
	@tools/packaging/deb.sh $(BUILD)/deb

KCONFIG ?= debian
kernel-deb: setup
	@tools/packaging/kernel-deb.sh --config $(KCONFIG) $(if $(LSMOD),--lsmod $(LSMOD)) --out $(BUILD)/kernel-deb

check-series: setup
	@tools/maint/check-series.sh

dkms-install: dkms-source
	dkms add -m luf -v $(VERSION)
	dkms build -m luf -v $(VERSION)
	dkms install -m luf -v $(VERSION)

clean:
	rm -rf $(BUILD)
	rm -f luf.ko *.o *.mod *.mod.c *.order Module.symvers .*.cmd module/*.o module/.*.cmd \
		module/netlink/*.o module/netlink/.*.cmd
	@$(MAKE) -C tools clean
	@$(MAKE) -C tests/tools clean
