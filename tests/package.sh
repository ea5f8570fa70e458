#!/bin/sh
# SPDX-License-Identifier: MIT
# package.sh [SUITE]: in a fresh root of Debian's SUITE (tests/root.sh;
# default bookworm; trixie and sid too), build the Debian packages from the
# committed tree with that release's tools (dpkg-buildpackage, its
# dh_auto_test included), check them with its lintian, then install
# fastio-utils, install fastio-utils-replace, reinstall coreutils under it
# (GNU's new file goes to cat.gnu, ours stays), and purge both, checking
# at each step which cat and yes run, that /usr/bin/cat and /usr/bin/yes
# are never missing and, at the end, that they are GNU's bytes again;
# then Debian's as-installed tests (debian/tests) by autopkgtest inside
# the root. STEPS=build stops once the packages are built and
# lintian-clean (CI's stage); the whole is make release-check's, for
# Debian 12 and 13. Needs root and Debian's archive. By hand:
# sh tests/package.sh trixie
set -eu
suite=${1:-bookworm}
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/fastio-package.XXXXXX)
root=$work/root
cleanup() {
	[ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null || true
	for m in dev/pts dev proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount "$root/$m"
	done
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "package.sh: $suite: $*" >&2
	exit 1
}
run() { chroot "$root" /bin/sh -c "$1"; }

sh "$src/tests/root.sh" "$suite" "$root" || exit $?
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
echo "package.sh: $suite: building from $(git -C "$src" rev-parse --short HEAD) and the files git sees beside it"
mkdir -p "$root/tmp/build/src"
(cd "$src" && git ls-files -z -c -o --exclude-standard | xargs -0 tar -c --no-recursion) |
	tar -x -C "$root/tmp/build/src"
run 'cd /tmp/build/src && dpkg-buildpackage -us -uc -b' >"$work/build.log" 2>&1 ||
	{ tail -40 "$work/build.log"; fail "dpkg-buildpackage failed"; }
run 'apt-get update && apt-get install -y --no-install-recommends lintian' >"$work/lintian-install.log" 2>&1 ||
	{ tail -20 "$work/lintian-install.log"; fail "cannot install lintian in the root"; }
run 'lintian --fail-on error,warning /tmp/build/*.changes' ||
	fail "lintian found errors or warnings"
if [ "${STEPS:-all}" = build ]; then
	echo "package.sh: $suite: fastio-utils and fastio-utils-replace built and lintian-clean (STEPS=build)"
	exit 0
fi
mv "$root"/tmp/build/fastio-utils_*.deb "$root"/tmp/build/fastio-utils-replace_*.deb "$root/tmp/"
expect() { # what command
	got=$(run "$2" 2>&1) || fail "$1: '$2' failed: $got"
	[ "$got" = "$1" ] || fail "'$2' gave '$got', not '$1'"
}
has() { # text command
	run "$2" 2>&1 | grep -qF "$1" || fail "'$2' does not say '$1'"
}

before=$(run 'sha256sum /usr/bin/cat /usr/bin/yes')
# Any moment without /usr/bin/cat or /usr/bin/yes, from here on, is noted.
chroot "$root" /bin/sh -c 'while :; do
	[ -e /usr/bin/cat ] && [ -e /usr/bin/yes ] || echo gap >>/tmp/gaps
done' &
watcher=$!

run 'dpkg -i /tmp/fastio-utils_*.deb' >/dev/null
has 'Piped    2.00 MB' 'yes | head -c 2097152 | pipebench -q 2>&1 >/dev/null'
has 'fastio-utils' '/usr/lib/fastio-utils/bin/cat --version'
expect 'y y y' '/usr/lib/fastio-utils/bin/yes | head -n 3 | xargs'
has 'GNU coreutils' 'cat --version'

run 'dpkg -i /tmp/fastio-utils-replace_*.deb' >/dev/null
has 'fastio-utils' 'cat --version'
has 'fastio-utils' 'yes --version'
has 'fastio-utils' '/bin/cat --version'
has 'GNU coreutils' '/usr/bin/cat.gnu --version'
has 'GNU coreutils' '/usr/bin/yes.gnu --version'
expect 'y y y' 'yes | head -n 3 | xargs'
expect "$(printf '     1\ta\n     2\tb')" 'cd /tmp && echo a >a && echo b >b && cat a b >c && cat -n c'
expect 'ok' 'printf "#!/bin/sh\ncat /tmp/a /tmp/b | cat -s >/dev/null && echo ok\n" >/tmp/s && sh /tmp/s'
has 'fastio-utils-replace' 'dpkg-divert --list'
# A reinstall (or upgrade) of coreutils writes GNU's new files to the
# .gnu names; ours stay, under both aliases.
run 'apt-get install -y --reinstall coreutils' >"$work/reinstall.log" 2>&1 ||
	{ tail -20 "$work/reinstall.log"; fail "cannot reinstall coreutils"; }
has 'fastio-utils' 'cat --version'
has 'fastio-utils' '/bin/cat --version'
has 'fastio-utils' '/usr/bin/yes --version'
has 'GNU coreutils' '/usr/bin/cat.gnu --version'
[ "$(run 'sha256sum </usr/bin/cat.gnu')" = "$(echo "$before" | awk '$2 == "/usr/bin/cat" { print $1 "  -" }')" ] ||
	fail "cat.gnu is not GNU's reinstalled file"
run 'dpkg -i /tmp/fastio-utils-replace_*.deb' >/dev/null
has 'fastio-utils' 'yes --version'

run 'dpkg --purge fastio-utils-replace' >/dev/null
after=$(run 'sha256sum /usr/bin/cat /usr/bin/yes')
[ "$before" = "$after" ] || fail "GNU's files not back: '$after', before '$before'"
run 'test ! -e /usr/bin/cat.gnu && test ! -e /usr/bin/yes.gnu' ||
	fail "the .gnu names remain"
run 'dpkg-divert --list | grep -q fastio' && fail "diversions remain"
has 'GNU coreutils' 'cat --version'
run 'dpkg --purge fastio-utils' >/dev/null
run 'test ! -e /usr/bin/pipebench' || fail "pipebench remains"

# Debian's as-installed tests (debian/tests), run by autopkgtest inside
# the root: it installs each test's packages from the .debs built above,
# fastio-utils-replace last, with the watcher still looking for gaps.
run 'apt-get install -y --no-install-recommends autopkgtest' >"$work/autopkgtest-install.log" 2>&1 ||
	{ tail -20 "$work/autopkgtest-install.log"; fail "cannot install autopkgtest in the root"; }
run 'cd /tmp && autopkgtest --output-dir=/tmp/autopkgtest-out /tmp/fastio-utils_*.deb /tmp/fastio-utils-replace_*.deb /tmp/build/src/ -- null' >"$work/autopkgtest.log" 2>&1 ||
	{ grep -v '^make\|^gcc' "$work/autopkgtest.log" | tail -100; fail "autopkgtest failed"; }
sed -n '/@@@@ summary/,/^autopkgtest/p' "$work/autopkgtest.log"
run 'dpkg --purge fastio-utils-replace fastio-utils' >/dev/null
after=$(run 'sha256sum /usr/bin/cat /usr/bin/yes')
[ "$before" = "$after" ] || fail "GNU's files not back after autopkgtest"

kill "$watcher"
wait "$watcher" 2>/dev/null || true
watcher=
[ ! -e "$root/tmp/gaps" ] || fail "cat or yes went missing $(wc -l <"$root/tmp/gaps") times"
echo "package.sh: $suite: fastio-utils and fastio-utils-replace built, lintian-clean, installed, replaced, kept across a reinstall of coreutils, rolled back, purged, and their as-installed tests passed"
