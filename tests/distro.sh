#!/bin/sh
# SPDX-License-Identifier: MIT
# distro.sh SUITE SRCDIR [WORKDIR]: build SRCDIR (an unconfigured tree, as
# make distdir leaves it) in a fresh root of Debian's SUITE (tests/root.sh)
# with that release's compiler and --enable-werror, and run the whole
# Check suite there, against that release's GNU coreutils and catalogs.
# PTS=no runs it without /dev/pts, as a bare chroot or a container
# builder has it: the cases that need a terminal must skip, none fail.
# Needs root; exits 77 with its reason where it cannot run.
set -eu
suite=${1:?usage: distro.sh SUITE SRCDIR [WORKDIR]}
src=$(cd "${2:?usage: distro.sh SUITE SRCDIR [WORKDIR]}" && pwd)
work=${3:-/var/tmp/fastio-distro-$suite}
root=$work/root
here=$(cd "$(dirname "$0")" && pwd)

cleanup() {
	for m in dev/pts dev proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount "$root/$m"
	done
	return 0
}
trap cleanup EXIT

status=0
sh "$here/root.sh" "$suite" "$root" || exit $?
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
# Without /dev/pts in the root, posix_openpt fails (ENODEV) as it does
# in a chroot where nobody mounted it.
if [ "${PTS:-yes}" != no ] && mountpoint -q /dev/pts; then
	mount --bind /dev/pts "$root/dev/pts"
fi
mkdir -p "$root/tmp/src"
(cd "$src" && tar -c .) | tar -x -C "$root/tmp/src"
echo "distro.sh: $suite: $(chroot "$root" gcc --version | head -1)," \
	"$(chroot "$root" cat --version | head -1)"
chroot "$root" /bin/sh -c 'cd /tmp/src &&
	./configure --enable-werror >configure.log 2>&1 &&
	make -j"$(nproc)" >build.log 2>&1' || {
	tail -40 "$root/tmp/src/build.log" "$root/tmp/src/configure.log" >&2
	echo "distro.sh: $suite: the build failed" >&2
	exit 1
}
echo "distro.sh: $suite: built with --enable-werror"
chroot "$root" /bin/sh -c 'cd /tmp/src && make -j"$(nproc)" check' \
	>"$work/check.log" 2>&1 || status=$?
grep -h '^[0-9]*%: Checks' "$root"/tmp/src/tests/*.log || true
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$work/check.log" || true
if [ "$status" -ne 0 ]; then
	cat "$root/tmp/src/test-suite.log" >&2 2>/dev/null || true
	exit "$status"
fi
echo "distro.sh: $suite: make check passed${PTS:+ (PTS=$PTS)}"
