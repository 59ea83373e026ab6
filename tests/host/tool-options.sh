#!/bin/bash
# The tools read as one suite: a short option means the same in every one
# (tests/tools/bench.h: -m mode, -f file, -s MiB, -n pages, -t threads, -d
# seconds, -w warm-up, -p passes, -c create), everything else is a long
# option, and a bad number is refused with a message that names the
# option (exit 2).  lufctl keeps its own letters (-j, -v, -i, -r, -h, -V),
# none of which a benchmark uses.
#   tests/host/tool-options.sh [<tools build dir>]
# Prints PASS/FAIL lines.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bin=${1:-$LUF_TOOLS}
top=$LUF_TOP
shared=mfsntdwpc
tools=(tierbench migbench allocbench writebench fragbench lufstress luflost lufwp)

# The file of a tool that parses its options: <tool>.c, or main.c of a
# tool of several files (tests/tools/<tool>/).
src() {
	if [ -d "$top/tests/tools/$1" ]; then
		echo "$top/tests/tools/$1/main.c"
	else
		echo "$top/tests/tools/$1.c"
	fi
}

# Which short letters each tool's getopt takes, from its source.
bad=
for t in "${tools[@]}"; do
	opts=$(grep -o 'getopt_long(argc, argv, "[^"]*"' "$(src "$t")" | sed 's/.*"\(.*\)"/\1/' | tr -d ':')
	if [ -z "$opts" ]; then
		bad="$bad $t: no getopt_long;"
		continue
	fi
	extra=$(tr -d "$shared" <<<"$opts")
	[ -z "$extra" ] || bad="$bad $t: -$extra;"
done
lopts=$(grep -o 'getopt_long(argc, argv, "[^"]*"' "$top/tools/lufctl/main.c" | sed 's/.*"\(.*\)"/\1/' | tr -d ':')
clash=$(tr -cd "$shared" <<<"$lopts")
[ -z "$clash" ] || bad="$bad lufctl: -$clash means something else in the benchmarks;"
if [ -z "$bad" ]; then
	echo "PASS tool-options-letters (${#tools[@]} tools use only -$shared; lufctl -$lopts)"
else
	echo "FAIL tool-options-letters:$bad"
fi

# A bad number is refused with the option's name, exit 2; so is an
# unknown option, with the usage text.
bad=
for t in "${tools[@]}"; do
	err=$("$bin/$t" -t x 2>&1 >/dev/null)
	rc=$?
	want="-t wants a whole number"
	# A tool without -t (fragbench): a usage error.
	grep -q 'getopt_long(argc, argv, "[^"]*t' "$(src "$t")" || want="usage:"
	if [ $rc -ne 2 ]; then
		bad="$bad $t -t x: exit $rc;"
	elif [ -n "$want" ] && ! grep -qF -- "$want" <<<"$err"; then
		bad="$bad $t -t x: '$err';"
	fi
	err=$("$bin/$t" --no-such-option 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && grep -q '^usage:' <<<"$err" || bad="$bad $t --no-such-option: exit $rc;"
done
if [ -z "$bad" ]; then
	echo "PASS tool-options-errors (bad numbers and unknown options: exit 2 with a message)"
else
	echo "FAIL tool-options-errors:$bad"
fi
