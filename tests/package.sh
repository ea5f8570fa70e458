#!/bin/sh
# SPDX-License-Identifier: MIT
# package.sh: build the Debian packages from the committed tree, check them
# with lintian, then in a throwaway Debian 12 root (debootstrap, never this
# machine's /usr/bin) install fastio-utils, install fastio-utils-replace,
# reinstall coreutils under it, and purge both, checking at each step which
# cat and yes run, and that /usr/bin/cat and /usr/bin/yes are never
# missing; then Debian's as-installed tests (debian/tests) by autopkgtest
# inside the root. Needs root, debhelper, lintian, debootstrap and
# Debian's archive. .ci/run runs it; by hand: sh tests/package.sh
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/fastio-package.XXXXXX)
root=$work/root
cleanup() {
	[ -n "${watcher:-}" ] && kill "$watcher" 2>/dev/null || true
	mountpoint -q "$root/proc" 2>/dev/null && umount "$root/proc"
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "package.sh: $*" >&2
	exit 1
}

echo "package.sh: building from $(git -C "$src" rev-parse --short HEAD) and the files git sees beside it"
mkdir "$work/src"
(cd "$src" && git ls-files -z -c -o --exclude-standard | xargs -0 tar -c --no-recursion) |
	tar -x -C "$work/src"
(cd "$work/src" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
	{ tail -40 "$work/build.log"; fail "dpkg-buildpackage failed"; }
lintian --fail-on error,warning "$work"/*.changes ||
	fail "lintian found errors or warnings"

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
echo "package.sh: debootstrap bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
	{ tail -20 "$work/debootstrap.log"; fail "debootstrap failed"; }
mount -t proc proc "$root/proc"
cp "$work"/fastio-utils_*.deb "$work"/fastio-utils-replace_*.deb "$root/tmp/"
run() { chroot "$root" /bin/sh -c "$1"; }
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
# An upgrade of coreutils goes to the .gnu names; ours stay.
if run 'ls /var/cache/apt/archives/coreutils_*.deb' >/dev/null 2>&1; then
	run 'dpkg -i /var/cache/apt/archives/coreutils_*.deb' >/dev/null
	has 'fastio-utils' 'cat --version'
	has 'GNU coreutils' '/usr/bin/cat.gnu --version'
else
	echo "package.sh: no coreutils .deb in the root: its reinstall is not tried"
fi
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
mkdir "$root/tmp/src"
(cd "$work/src" && tar -c debian) | tar -x -C "$root/tmp/src"
run 'cd /tmp && autopkgtest --output-dir=/tmp/autopkgtest-out /tmp/fastio-utils_*.deb /tmp/fastio-utils-replace_*.deb /tmp/src/ -- null' >"$work/autopkgtest.log" 2>&1 ||
	{ grep -v '^make\|^gcc' "$work/autopkgtest.log" | tail -100; fail "autopkgtest failed"; }
sed -n '/@@@@ summary/,/^autopkgtest/p' "$work/autopkgtest.log"
run 'dpkg --purge fastio-utils-replace fastio-utils' >/dev/null
after=$(run 'sha256sum /usr/bin/cat /usr/bin/yes')
[ "$before" = "$after" ] || fail "GNU's files not back after autopkgtest"

kill "$watcher"
wait "$watcher" 2>/dev/null || true
watcher=
[ ! -e "$root/tmp/gaps" ] || fail "cat or yes went missing $(wc -l <"$root/tmp/gaps") times"
echo "package.sh: fastio-utils and fastio-utils-replace built, lintian-clean, installed, replaced, rolled back, purged, and their as-installed tests passed"
