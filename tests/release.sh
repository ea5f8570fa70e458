#!/bin/bash
# SPDX-License-Identifier: MIT
# release.sh BUILDDIR: make release-check, what a release must pass on top
# of CI (doc/releasing.md): the heavy suites CI leaves out, in two lanes
# on the two CPUs, each stage timed and logged in BUILDDIR/release-logs
# (tests/stages.sh):
#   lane A: make check-long (5 GiB runs); make fuzz (libFuzzer, 60 s a
#     harness); make dist and the RPMs of its tarball, rpmlint-checked;
#     the release's reproducibility (tests/reproducible.sh); the whole
#     suite for armhf under qemu-user, ppc64el and arm64 built
#     (tests/cross.sh); cat and yes built with musl against GNU's bytes.
#   lane B: the Debian packages in Debian 12 and 13 roots, built,
#     installed, replaced, purged and their as-installed tests
#     (tests/package.sh); the whole suite in a Debian 13 root without
#     /dev/pts and in an unstable root (tests/distro.sh); the whole suite
#     for s390x under qemu-user and for i386 natively.
# Needs root, Debian 12, Debian's archive, and a git checkout as the
# source tree (the packages and the reproducibility are built from the
# commit). Prints each stage's time, the Check cases' totals and the
# whole time.
set -euo pipefail
build=$(cd "${1:?usage: release.sh BUILDDIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
logs=$build/release-logs
work=$build/release-work
who=release
# As in CI: a kernel that runs no 32-bit x86 program builds the i386
# suites only (cross.sh exits 77, saying so).
may_skip=cross-i386
# shellcheck source=tests/stages.sh
. "$src/tests/stages.sh"
export DEBIAN_FRONTEND=noninteractive
[ "$(id -u)" = 0 ] || { echo "release.sh: needs root" >&2; exit 1; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "release.sh: $src is not a git checkout" >&2; exit 1; }
sh "$src/tests/tags.sh" "$src" || exit 1
rm -rf "$logs" "$work"
mkdir -p "$logs" "$work"
start=$SECONDS

extra="autoconf automake pkg-config check gcc make valgrind strace
	pipebench locales debhelper mmdebstrap qemu-user-static musl-tools
	clang libclang-rt-dev gcc-s390x-linux-gnu gcc-arm-linux-gnueabihf
	gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu gcc-i686-linux-gnu
	libc6-dev-s390x-cross libc6-dev-armhf-cross libc6-dev-arm64-cross
	libc6-dev-ppc64el-cross libc6-dev-i386-cross reprotest disorderfs
	faketime diffoscope-minimal rpm rpmlint"
# shellcheck disable=SC2086 # a list of package names
stage packages apt-get install -y -o DPkg::Lock::Timeout=600 $extra
tree=$work/tree
stage tree make -C "$build" distdir distdir="$tree"
export CK_TIMEOUT_MULTIPLIER=3

lane_a() {
	stage check-long bash -c "cd '$build' && { make check-long || { cat test-suite.log; exit 1; }; }" &&
		stage fuzz make -C "$build" fuzz FUZZ_SECONDS=60 &&
		stage rpm bash -c "cd '$work' && make -C '$build' dist >/dev/null &&
			mv '$build'/fastio-utils-*.tar.gz . && top=\$(mktemp -d) &&
			{ rpmbuild -ta --nodeps --define \"_topdir \$top\" fastio-utils-*.tar.gz >\"\$top/build.log\" 2>&1 ||
			{ tail -60 \"\$top/build.log\"; exit 1; }; } &&
			rpmlint -r '$src/fastio-utils.rpmlintrc' \"\$top\"/RPMS/*/*.rpm \"\$top\"/SRPMS/*.rpm; status=\$?
			rm -rf \"\$top\"; exit \$status" &&
		stage reproducible sh "$src/tests/reproducible.sh" &&
		stage cross-armhf sh "$src/tests/cross.sh" armhf "$tree" "$work/cross-armhf" &&
		CHECK=no stage cross-ppc64el sh "$src/tests/cross.sh" ppc64el "$tree" "$work/cross-ppc64el" &&
		CHECK=no stage cross-arm64 sh "$src/tests/cross.sh" arm64 "$tree" "$work/cross-arm64" &&
		stage cross-musl sh "$src/tests/cross.sh" musl "$tree" "$work/cross-musl"
}
lane_b() {
	stage package-bookworm sh "$src/tests/package.sh" bookworm &&
		stage package-trixie sh "$src/tests/package.sh" trixie &&
		PTS=no stage trixie-no-pts sh "$src/tests/distro.sh" trixie "$tree" "$work/trixie" &&
		stage sid sh "$src/tests/distro.sh" sid "$tree" "$work/sid" &&
		stage cross-s390x sh "$src/tests/cross.sh" s390x "$tree" "$work/cross-s390x" &&
		stage cross-i386 sh "$src/tests/cross.sh" i386 "$tree" "$work/cross-i386"
}
status=0
lane_a &
a=$!
lane_b &
b=$!
wait "$a" || status=1
wait "$b" || status=1

echo "release: Check cases passed, failed:" \
	"long $(count "$build"/tests/check_long.log)," \
	"trixie $(count "$work"/trixie/root/tmp/src/tests/check_*.log)," \
	"sid $(count "$work"/sid/root/tmp/src/tests/check_*.log)," \
	"s390x $(count "$work"/cross-s390x/tests/check_*.log)," \
	"armhf $(count "$work"/cross-armhf/tests/check_*.log)," \
	"i386 $(count "$work"/cross-i386/tests/check_*.log)"
echo "release: stage times (s): $(times)"
echo "release: $((SECONDS - start)) s in all: $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"
