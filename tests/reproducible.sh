#!/bin/sh
# SPDX-License-Identifier: MIT
# reproducible.sh: the release's bytes do not depend on who builds it,
# where or when. Two `make dist` tarballs of the committed tree, made in
# two clones at other paths, times, umasks, locales and time zones, are
# identical; and so are the Debian packages built twice by reprotest,
# which varies the build path, the time (faketime), the umask, the
# locale, the time zone, the environment, the number of CPUs, ASLR, the
# home directory and the order in which the build sees files
# (disorderfs). Where bytes differ, diffoscope says where. Needs root,
# git, reprotest, disorderfs, faketime and diffoscope (.ci/run installs
# them). By hand: sh tests/reproducible.sh
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/fastio-repro.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() {
	echo "reproducible.sh: $*" >&2
	exit 1
}
differ() { # a b
	command -v diffoscope >/dev/null && diffoscope --text - "$1" "$2" | head -80
	fail "$1 and $2 differ"
}

# Two tarballs: the second clone sits deeper, a second later, with
# another umask, locale and time zone.
dist() { # n path umask locale tz
	git clone -q "$src" "$2"
	(cd "$2" && umask "$3" && export LC_ALL="$4" TZ="$5" &&
		autoreconf -fi >/dev/null 2>&1 && ./configure >/dev/null &&
		make dist >/dev/null) || fail "make dist $1 failed"
}
dist 1 "$work/a" 022 C.UTF-8 UTC
sleep 1
dist 2 "$work/bb/c/fastio-utils" 077 C Pacific/Kiritimati
set -- "$work"/a/fastio-utils-*.tar.gz
a=$1
set -- "$work"/bb/c/fastio-utils/fastio-utils-*.tar.gz
cmp -s "$a" "$1" || differ "$a" "$1"
echo "reproducible.sh: make dist twice: $(basename "$a"), identical ($(sha256sum <"$a" | cut -c1-16))"

# The .debs, built twice under reprotest's variations. Users and host
# names are left alone (they need accounts and namespaces a CI machine
# may lack); the kernel's name too (setarch cannot change it for the
# compiler's view, and nothing here reads it).
mkdir "$work/deb"
(cd "$work/a" && git ls-files -z | xargs -0 tar -c --no-recursion) | tar -x -C "$work/deb"
cd "$work/deb"
reprotest --verbosity=1 --vary=+all,-user_group,-domain_host,-kernel \
	--store-dir="$work/out" . -- null >"$work/reprotest.log" 2>&1 || {
	tail -60 "$work/reprotest.log"
	fail "the Debian packages differ between two builds"
}
grep -q '^Reproduction successful' "$work/reprotest.log" ||
	fail "reprotest did not say the build reproduced"
echo "reproducible.sh: the .debs built twice are identical; the second build varied:"
sed -n 's/^INFO:reprotest:build "experiment-1": //p' "$work/reprotest.log"
sed -n 's/^INFO:reprotest.build:\(.* variation: .*\)/  \1/p' "$work/reprotest.log" | sort -u
