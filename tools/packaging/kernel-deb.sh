#!/bin/bash
# make kernel-deb: the pinned 6.12 source with core-hooks.patch, built as
# Debian packages (linux-image-<release>, linux-headers-<release>) with the
# local version -luf, by the kernel's own bindeb-pkg.
#
#   tools/packaging/kernel-deb.sh [--config debian|test|<file>]
#                                 [--lsmod <file>] [--out <dir>] [--jobs <n>]
#
# --config debian  Debian's own 6.12 config (the amd64 flavour of the
#                  linux-config-6.12 package, fetched with apt-get download:
#                  trixie has it, and bookworm's security archive has the
#                  pinned 6.12.117-1~deb12u1), the default
# --config test    the test kernel's config (make check's debug kernel)
# --config <file>  any kernel config
# --lsmod <file>   trim the config to the modules in <file>, the output of
#                  lsmod on the host that will run the kernel
#                  (localmodconfig); Debian's full config takes hours on
#                  two cores, a trimmed one a fraction of that
# --out <dir>      where the packages go (default build/kernel-deb)
# --jobs <n>       make -j (default: the number of CPUs)
#
# In every case CONFIG_LUF=y is set (and checked after olddefconfig), and
# module signing is left to a key made for the build, as a locally built
# Debian kernel does.  The build directory lives in the kernel cache next
# to the test kernels' (ccache reuses their objects where they match).
# Prints the packages with their sizes.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
config=debian lsmod= out=$top/build/kernel-deb jobs=$(nproc)
usage() { echo "usage: kernel-deb.sh [--config debian|test|FILE] [--lsmod FILE] [--out DIR] [--jobs N]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--config) config=${2:?}; shift 2 ;;
	--lsmod) lsmod=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "kernel-deb.sh: --jobs wants a positive number" >&2; exit 2; }
if [ -n "$lsmod" ]; then
	[ -r "$lsmod" ] || { echo "kernel-deb.sh: cannot read $lsmod" >&2; exit 2; }
	# localmodconfig reads it from the build directory.
	lsmod=$(realpath "$lsmod")
fi
log() { echo "kernel-deb: $*" >&2; }
cache=${LUF_CACHE:-$HOME/.cache/luf}

# What a distribution config needs beyond the test kernels: pahole for
# BTF (without it olddefconfig quietly drops DEBUG_INFO_BTF) and openssl
# for the module signing key.  Not for the test config: pahole's presence
# is part of a config, and would change the test kernels' next build.
need=()
[ "$config" = test ] || for p in dwarves openssl; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	[ "$(id -u)" -eq 0 ] && sudo= || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi

src=$("$top/tests/kernel/build.sh" patched source)
read -r pkgver _ < <("$top/tests/kernel/fetch.sh")
lufver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
# bindeb-pkg writes its packages into the source tree, where every
# kernel-deb build (any config) leaves and collects them: one at a time.
exec 9>"$src/.kernel-deb.lock"
if ! flock -n 9; then
	log "waiting for another kernel-deb build of this source tree"
	flock 9
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $config in
debian)
	# Debian's config for its amd64 flavour, from the package of the
	# same kernel series.
	cfgdeb=$cache/linux-config
	mkdir -p "$cfgdeb"
	if ! ls "$cfgdeb"/linux-config-6.12_*.deb >/dev/null 2>&1; then
		log "fetching linux-config-6.12"
		(cd "$cfgdeb" && { apt-get download linux-config-6.12 ||
			apt-get download -t bookworm-backports linux-config-6.12; }) >&2 || {
			echo "kernel-deb.sh: cannot download linux-config-6.12 (bookworm has it in bookworm-security and bookworm-backports)" >&2
			exit 1
		}
	fi
	deb=$(ls "$cfgdeb"/linux-config-6.12_*.deb | sort -V | tail -n 1)
	rm -rf "$cfgdeb/x" && dpkg-deb -x "$deb" "$cfgdeb/x"
	base=$cfgdeb/config.amd64
	xzcat "$cfgdeb"/x/usr/src/linux-config-6.12/config.amd64_none_amd64.xz > "$base"
	name=debian ;;
test)
	base=$("$top/tests/kernel/build.sh" patched debug)/.config
	name=test ;;
*)
	[ -r "$config" ] || { echo "kernel-deb.sh: cannot read config $config" >&2; exit 2; }
	base=$config
	name=custom ;;
esac
[ -n "$lsmod" ] && name=$name-lsmod
# Under the source tree, as the test kernels' build directories: the
# compiler then sees the same relative paths and ccache can reuse objects.
obj=$src/build-deb-$name
mkdir -p "$obj"
# The test config shares the test kernels' compiler cache; any other gets
# one of its own, so that a distribution build does not evict them.
ccache_dir=$cache/ccache
[ "$name" = test ] || ccache_dir=$cache/ccache-kernel-deb
export CCACHE_DIR=$ccache_dir CCACHE_NOHASHDIR=true CCACHE_COMPILERCHECK=content
export KBUILD_BUILD_USER=luf KBUILD_BUILD_HOST=luf
mk=(make -C "$src" O="$obj" -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc")
cp "$base" "$obj/.config"
cfg=("$src/scripts/config" --file "$obj/.config")
"${cfg[@]}" --enable LUF --set-str LOCALVERSION -luf --disable LOCALVERSION_AUTO \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str MODULE_SIG_KEY certs/signing_key.pem
"${mk[@]}" -s olddefconfig >/dev/null
if [ -n "$lsmod" ]; then
	log "trimming the config to the modules in $lsmod"
	# Every new question answered with its default; yes ends on SIGPIPE.
	{ yes '' || :; } | "${mk[@]}" -s LSMOD="$lsmod" localmodconfig \
		>"$out/localmodconfig.log" 2>&1 || {
		echo "kernel-deb.sh: localmodconfig failed; see $out/localmodconfig.log" >&2
		tail -n 10 "$out/localmodconfig.log" >&2
		exit 1
	}
	"${cfg[@]}" --enable LUF
	"${mk[@]}" -s olddefconfig >/dev/null
fi
for sym in CONFIG_LUF=y CONFIG_NET=y; do
	grep -qx "$sym" "$obj/.config" ||
		{ echo "kernel-deb.sh: $sym did not survive olddefconfig" >&2; exit 1; }
done
rel=$("${mk[@]}" -s kernelrelease)
log "building $rel ($name config, make -j$jobs, ccache)"
start=$(date +%s)
rm -f "$src"/*.deb "$src"/*.buildinfo "$src"/*.changes
# The package version says which Debian source and which luf it holds
# (instead of bindeb-pkg's build counter): 6.12.117-1~deb12u1+luf0.2.
"${mk[@]}" -s KDEB_PKGVERSION="$pkgver+luf$lufver" bindeb-pkg >"$out/build.log" 2>&1 || {
	echo "kernel-deb.sh: bindeb-pkg failed; the end of $out/build.log:" >&2
	tail -n 30 "$out/build.log" >&2
	exit 1
}
log "built in $(( $(date +%s) - start )) s"
# bindeb-pkg leaves the packages in the parent of the build directory.
rm -f "$out"/linux-*.deb
mv "$src"/linux-*.deb "$out/"
rm -f "$src"/*.buildinfo "$src"/*.changes
for f in "$out"/linux-*.deb; do
	echo "$f $(stat -c %s "$f") bytes"
done
