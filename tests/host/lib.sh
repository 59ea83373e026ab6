# Sourced by the host tests, tests/host/*.sh.
#
# tests/check.sh runs, in name order and with no arguments, every host test
# whose header has the line "# check: host": adding a test means adding a
# file.  What a test needs comes from the variables below, which check.sh
# exports once its builds are done; a test given arguments uses those
# instead (its header says which), and run by hand after a make check it
# finds that run's builds.  Tests that check.sh runs at another step say
# "# check: guests" (beside the short guests) and are called from there.
#
# Each test prints one verdict line per check, "PASS <name>", "FAIL <name>:
# <reason>" or "SKIP <name>: <reason>", and check.sh counts them; a test
# that prints none is counted as a failure.
[ -n "${BASH_VERSION:-}" ] || { echo "tests/host/lib.sh: bash only" >&2; exit 2; }
LUF_TOP=${LUF_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
LUF_BUILD=${LUF_BUILD:-$LUF_TOP/build}
LUF_OUT=${LUF_OUT:-$LUF_BUILD/check}
LUF_TOOLS=${LUF_TOOLS:-$LUF_BUILD/tools}
# luf.ko as make module builds it (in the tree), and the debug build.
LUF_MOD_RELEASE=${LUF_MOD_RELEASE:-$LUF_TOP}
LUF_MOD_DEBUG=${LUF_MOD_DEBUG:-$LUF_BUILD/luf-debug}

# The kernel build directories: the cached debug kernels of make check (a
# kernel not built yet is built, which takes a while).
luf_kernel() {	# luf_kernel <patched|vanilla>
	local v=LUF_K${1:0:1}
	v=${v^^}
	if [ -z "${!v:-}" ]; then
		printf -v "$v" '%s' "$("$LUF_TOP/tests/kernel/build.sh" "$1" debug | tail -n 1)"
		export "${v?}"
	fi
	echo "${!v}"
}

# luf_verify_units <root> <unit file>...: systemd-analyze verify on copies
# of the units in which luf's own paths (/usr/bin/lufctl, /usr/libexec/luf/)
# point into <root>, where a package was unpacked or the tree staged, and
# whose man page (Documentation=man:lufctl(8)) is looked up there.  Every
# other program they run must be on this host (/sbin/modprobe: kmod).
# Prints what systemd-analyze says and a missing file's name; status 0
# only if it says nothing.
luf_verify_units() {
	local root=$1 dir f out rc p
	shift
	dir=$(mktemp -d)
	for f in "$@"; do
		sed -e "s#/usr/bin/lufctl\b#$root/usr/bin/lufctl#g" \
			-e "s#/usr/libexec/luf/#$root/usr/libexec/luf/#g" "$f" > "$dir/${f##*/}"
	done
	# Each path a unit runs, as the unit names it, must exist.
	for p in $(sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\(\/[^ ]*\).*/\1/p' "$dir"/*); do
		[ -x "$p" ] || echo "$p: not an executable file"
	done
	out=$(cd "$dir" && MANPATH=$root/usr/share/man systemd-analyze verify "${@##*/}" 2>&1)
	rc=$?
	rm -rf "$dir"
	[ -n "$out" ] && echo "$out"
	[ $rc -eq 0 ] && [ -z "$out" ]
}
