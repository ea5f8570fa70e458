#!/bin/sh
# SPDX-License-Identifier: MIT
# cross.sh ARCH SRCDIR [BUILDDIR]: build SRCDIR (an unconfigured tree with
# its configure script, as make distdir leaves it) for Debian's ARCH with
# --enable-werror, then run the whole Check suite there: under qemu-user
# for arm64, armhf, ppc64el and s390x, natively for i386 (a 32-bit x86
# binary runs on an x86-64 kernel; only built on one that runs none).
# CHECK=no builds only; SUITES=foreign runs only FOREIGN_TESTS
# (Makefile.am), the suites that catch what another CPU breaks. ARCH musl builds the programs with musl-gcc, as
# Alpine would, and compares them with GNU's (tests/differential.sh:
# there is no Check for musl).
#
# Needs root and Debian 12: it installs the cross compiler, qemu-user-static
# and mmdebstrap if they are missing, and takes Check and its libc headers
# from a root of ARCH's own packages (mmdebstrap --variant=extract, kept in
# $CROSS_ROOTS, default /var/tmp/fastio-cross). Exits 77 with its reason
# where it cannot run. The suites see FIO_FOREIGN=1: what only this
# machine's own build can show (peak RSS under qemu, strace's view of the
# syscalls, valgrind, this machine's programs loading our preloaded
# libraries) skips there, and says why.
set -eu
arch=${1:?usage: cross.sh ARCH SRCDIR [BUILDDIR]}
src=$(cd "${2:?usage: cross.sh ARCH SRCDIR [BUILDDIR]}" && pwd)
build=${3:-$src/_cross-$arch}
roots=${CROSS_ROOTS:-/var/tmp/fastio-cross}
mirror=${CROSS_MIRROR:-http://deb.debian.org/debian}

skip() {
	echo "cross.sh: $arch: $*" >&2
	exit 77
}

# make TARGET... in $build into build.log; a failure shows its errors.
make_it() {
	make -j"$(nproc)" "$@" >>build.log 2>&1 || {
		grep -B2 -A8 -E 'error|warning' build.log | head -60 >&2
		exit 1
	}
}

# configure with the arguments given in a new $build, then make; each
# failure shows its log's tail.
build_it() {
	rm -rf "$build"
	mkdir -p "$build"
	cd "$build"
	"$src/configure" --enable-werror "$@" >configure.log || {
		tail -20 configure.log >&2
		exit 1
	}
	make_it
	echo "cross.sh: $arch: built with --enable-werror"
}

if [ "$arch" = musl ]; then
	[ "$(id -u)" = 0 ] || command -v musl-gcc >/dev/null ||
		skip "no musl-gcc, and not root to install musl-tools"
	command -v musl-gcc >/dev/null || apt-get install -y musl-tools >/dev/null ||
		skip "cannot install musl-tools"
	build_it CC=musl-gcc --disable-tests
	[ "${CHECK:-yes}" = no ] && exit 0
	exec sh "$src/tests/differential.sh" "$build/src/cat/cat" "$build/src/yes"
fi

case $arch in
amd64) triplet=x86_64-linux-gnu qemu= ;;
arm64) triplet=aarch64-linux-gnu qemu=aarch64 ;;
armhf) triplet=arm-linux-gnueabihf qemu=arm ;;
i386) triplet=i686-linux-gnu qemu= ;;
ppc64el) triplet=powerpc64le-linux-gnu qemu=ppc64le ;;
s390x) triplet=s390x-linux-gnu qemu=s390x ;;
*)
	echo "cross.sh: no such architecture here: $arch" \
		"(amd64, arm64, armhf, i386, ppc64el, s390x, musl)" >&2
	exit 2
	;;
esac
# Debian's i386 libraries are in the multiarch directory i386-linux-gnu.
multiarch=$triplet
[ "$arch" = i386 ] && multiarch=i386-linux-gnu

[ "$(id -u)" = 0 ] || skip "needs root (packages, binfmt_misc)"
need=
command -v "$triplet-gcc" >/dev/null || need="$need gcc-$triplet"
[ -f "/usr/$triplet/include/stdio.h" ] || need="$need libc6-dev-$arch-cross"
command -v mmdebstrap >/dev/null || need="$need mmdebstrap"
[ -z "$qemu" ] || [ -x "/usr/bin/qemu-$qemu-static" ] ||
	need="$need qemu-user-static"
if [ -n "$need" ]; then
	# shellcheck disable=SC2086 # a list of package names
	apt-get install -y $need >/dev/null ||
		skip "cannot install$need"
fi

# Check, its headers and libsubunit as ARCH's packages build them. The
# compiler gets a directory holding only Check's check.h: -I on the root's whole
# /usr would take its libc headers before the cross compiler's.
root=$roots/$arch
if [ ! -f "$root/usr/include/check.h" ]; then
	rm -rf "$root"
	mkdir -p "$roots"
	mmdebstrap --quiet --arch="$arch" --variant=extract \
		--include=check,libc6-dev,libsubunit-dev bookworm "$root" \
		"$mirror" >&2 || skip "mmdebstrap of $arch failed"
fi
mkdir -p "$roots/include-$arch"
cp "$root/usr/include/check.h" "$root/usr/include/check_stdint.h" \
	"$roots/include-$arch/"
lib=$root/usr/lib/$multiarch

# i386 natively: its loader and libc are the cross compiler's. Some
# kernels run no 32-bit x86 program (a guest without IA32 emulation says
# "Exec format error"). There the programs and suites are built, not
# run, and the script exits 77: under qemu-i386 the signal storms of
# check_inject hang or crash now and then where they pass on x86-64 and
# under qemu-arm, and armhf runs the suites for a 32-bit CPU.
ldflags='' no_ia32=no
if [ "$arch" = i386 ]; then
	ldflags="-Wl,--dynamic-linker=/usr/$triplet/lib/$(basename \
		"$(ls /usr/"$triplet"/lib/ld-linux*.so.* | head -1)") \
		-Wl,-rpath,/usr/$triplet/lib"
	probe=$(mktemp)
	# shellcheck disable=SC2086 # the linker's flags, split
	echo 'int main(void) { return 0; }' |
		"$triplet-gcc" -x c - -o "$probe" $ldflags ||
		skip "the cross compiler cannot link a program"
	"$probe" 2>/dev/null || no_ia32=yes
	rm -f "$probe"
fi

# The programs run where the suites spawn them: through binfmt_misc and
# qemu for a foreign CPU, with the cross compiler's libc.
if [ -n "$qemu" ]; then
	mis=/proc/sys/fs/binfmt_misc
	[ -f "$mis/register" ] || mount -t binfmt_misc binfmt_misc "$mis" ||
		skip "cannot mount binfmt_misc"
	# Debian's entry opens the program for qemu (flag O), which puts
	# its file on a closed stdin: ours leaves that to qemu, which
	# closes it again. The newest entry that matches is the one used.
	if [ ! -e "$mis/fastio-$qemu" ]; then
		sed 's/^:qemu-[^:]*:/:fastio-'"$qemu"':/; s/:[A-Z]*$/:PF/' \
			"/usr/lib/binfmt.d/qemu-$qemu.conf" >"$mis/register" ||
			skip "cannot register qemu-$qemu with binfmt_misc"
	fi
	QEMU_LD_PREFIX=/usr/$triplet
	export QEMU_LD_PREFIX
	# The system's compiled locales are in this CPU's byte order, which
	# a big-endian libc rejects: C.UTF-8 in its own (check_nls makes its
	# locales in each program's order itself).
	if [ "$arch" = s390x ]; then
		LOCPATH=$roots/locale-big-endian
		[ -d "$LOCPATH/C.UTF-8" ] || {
			mkdir -p "$LOCPATH" &&
				localedef --big-endian -i C -f UTF-8 \
					"$LOCPATH/C.UTF-8"
		} || skip "localedef --big-endian failed"
		export LOCPATH
	fi
fi

# What only this machine's own build can show skips (tests/spawn.h).
if [ "$arch" != amd64 ]; then
	FIO_FOREIGN=1
	export FIO_FOREIGN
fi
build_it --host="$triplet" LDFLAGS="$ldflags" \
	CHECK_CFLAGS="-I$roots/include-$arch" \
	CHECK_LIBS="$lib/libcheck.a $lib/libsubunit.a -lm -lrt -lpthread"
[ "${CHECK:-yes}" = no ] && exit 0
if [ "$no_ia32" = yes ]; then
	make_it check TESTS=
	skip "built with its suites; this kernel runs no 32-bit x86 program"
fi
status=0
if [ "${SUITES:-all}" = foreign ]; then
	# shellcheck disable=SC2016 # make expands it
	make -j"$(nproc)" check 'TESTS=$(FOREIGN_TESTS)' >check.log 2>&1 || status=$?
else
	make -j"$(nproc)" check >check.log 2>&1 || status=$?
fi
grep -h '^[0-9]*%: Checks' tests/*.log || true
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' check.log || true
if [ "$status" -ne 0 ]; then
	cat test-suite.log >&2 2>/dev/null || true
	exit "$status"
fi
echo "cross.sh: $arch: make check passed${SUITES:+ (SUITES=$SUITES)}"
