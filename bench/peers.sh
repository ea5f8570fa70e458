#!/bin/sh
# SPDX-License-Identifier: MIT
# peers.sh --install [DIR]: install the peers make bench, make demo and
# the other benchmarks compare with, all from Debian's archive: busybox,
# toybox, pv and pipebench 0.40 (Debian 12's packages, on this machine),
# and the newest GNU coreutils and uutils that Debian has (unstable's
# coreutils and rust-coreutils, in a minimal root under DIR, default
# /opt/peers, run through that root's own loader): DIR/bin/gnu/{cat,yes}
# and DIR/bin/uutils/{cat,yes}. Needs root and Debian's archive.
# peers.sh (no argument): what the benchmarks would find here.
#
# GNU's development tree is not in Debian: build its cat and yes yourself
# (./bootstrap && ./configure && make src/cat src/yes in a clone of GNU
# coreutils) and name their directory in GNU_HEAD for the benchmarks.
set -eu
dir=${2:-${PEERS_DIR:-/opt/peers}}
root=$dir/root

list() {
	for p in "$dir/bin/gnu/cat" "$dir/bin/uutils/cat" /usr/bin/cat \
		/usr/lib/cargo/bin/coreutils/cat; do
		[ -x "$p" ] && echo "$p: $("$p" --version 2>/dev/null | head -1)"
	done
	for p in busybox toybox pv pipebench; do
		command -v "$p" >/dev/null && echo "$(command -v "$p")"
	done
	if [ -n "${GNU_HEAD:-}" ] && [ -x "$GNU_HEAD/cat" ]; then
		echo "GNU_HEAD: $("$GNU_HEAD/cat" --version | head -1)"
	fi
	return 0
}

case ${1:-} in
--install) ;;
'') list; exit 0 ;;
*)
	echo "usage: peers.sh [--install [DIR]]" >&2
	exit 2
	;;
esac

[ "$(id -u)" = 0 ] || { echo "peers.sh: installing needs root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get install -y busybox toybox pv pipebench mmdebstrap hyperfine >/dev/null ||
	{ echo "peers.sh: apt-get install failed" >&2; exit 1; }
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
if [ ! -x "$root/usr/bin/cat" ] || [ ! -x "$root/usr/lib/cargo/bin/coreutils/cat" ]; then
	rm -rf "$root"
	mkdir -p "$dir"
	# A mirror's snapshot of sid may be past its Release file's
	# Valid-Until: the date is the snapshot's, the signature still holds.
	mmdebstrap --quiet --variant=minbase --include=coreutils,rust-coreutils \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		sid "$root" "deb $mirror sid main" ||
		{ echo "peers.sh: mmdebstrap of unstable failed" >&2; exit 1; }
fi
# The root's programs with its own loader and libraries, on this
# machine's paths, named as they are invoked (--argv0).
loader=$(ls "$root"/usr/lib64/ld-linux-x86-64.so.2 "$root"/lib64/ld-linux-x86-64.so.2 2>/dev/null | head -1)
libs=$root/usr/lib/x86_64-linux-gnu
mkdir -p "$dir/bin/gnu" "$dir/bin/uutils"
for p in cat yes; do
	printf '#!/bin/sh\nexec %s --library-path %s --argv0 %s %s "$@"\n' \
		"$loader" "$libs" "$p" "$root/usr/bin/$p" >"$dir/bin/gnu/$p"
	printf '#!/bin/sh\nexec %s --library-path %s --argv0 %s %s "$@"\n' \
		"$loader" "$libs" "$p" "$root/usr/lib/cargo/bin/coreutils/$p" \
		>"$dir/bin/uutils/$p"
	chmod 755 "$dir/bin/gnu/$p" "$dir/bin/uutils/$p"
done
list
