#!/bin/sh
# SPDX-License-Identifier: MIT
# root.sh SUITE DIR: a fresh root of Debian's SUITE (bookworm, trixie or
# sid) in DIR, with what building and testing fastio-utils needs
# (build-essential, autoconf, automake, pkg-config, check, debhelper,
# valgrind, strace, locales, pipebench). Made once by mmdebstrap into a
# tarball kept in $FASTIO_ROOTS (default /var/tmp/fastio-roots) and
# unpacked from it afterwards: a root is a minute of downloads, an unpack
# a few seconds. Needs root and Debian's archive; exits 77 with its
# reason where it cannot. tests/distro.sh and tests/package.sh use it.
set -eu
suite=${1:?usage: root.sh SUITE DIR}
dir=${2:?usage: root.sh SUITE DIR}
roots=${FASTIO_ROOTS:-/var/tmp/fastio-roots}
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
packages=build-essential,autoconf,automake,pkg-config,check,debhelper,valgrind,strace,locales,pipebench

skip() {
	echo "root.sh: $suite: $*" >&2
	exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root"
command -v mmdebstrap >/dev/null || apt-get install -y mmdebstrap >/dev/null ||
	skip "no mmdebstrap, and it cannot be installed"
tarball=$roots/$suite.tar
if [ ! -f "$tarball" ] || [ ! -s "$tarball" ]; then
	mkdir -p "$roots"
	rm -rf "$tarball" "$tarball.new"
	# A mirror's snapshot of sid may be past its Release file's
	# Valid-Until: the date is the snapshot's, the signature still holds.
	mmdebstrap --quiet --format=tar --variant=minbase --include="$packages" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		"$suite" "$tarball.new" "deb $mirror $suite main" >&2 ||
		{ rm -f "$tarball.new"; skip "mmdebstrap failed"; }
	mv "$tarball.new" "$tarball"
fi
rm -rf "$dir"
mkdir -p "$dir"
tar -x -C "$dir" -f "$tarball" || skip "cannot unpack $tarball"
