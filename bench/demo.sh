#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILDDIR: a short side by side of our yes and cat and the
# system's, measured by our pipebench (3 interleaved runs, medians): into
# a reader that splices, then one that read()s every byte.
set -eu
top=$(cd "${1:-.}" && pwd)
pb="$top/src/pipebench --compare -q --runs 3"
yes=$(command -v yes) cat=$(command -v cat)
tmp=$(mktemp -d /var/tmp/fastio-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "yes, 10 GiB into a splicing reader:"
$pb --bytes 10G --name fastio "$top/src/yes" --name "$yes" "$yes"
echo
echo "yes, 3 GiB into a reader that read()s:"
$pb --bytes 3G --touch --name fastio "$top/src/yes" --name "$yes" "$yes"

head -c 1000000000 /dev/urandom >"$tmp/data"
find /usr/include -name '*.h' | head -2000 | xargs cat >"$tmp/text"
for i in 1 2 3; do cat "$tmp/text" "$tmp/text"; done >"$tmp/text6"
cat "$tmp/data" "$tmp/text6" >/dev/null
echo
echo "cat of a 1 GB cached file into a splicing reader:"
$pb --name fastio "$top/src/cat $tmp/data" --name "$cat" "$cat $tmp/data"
echo
echo "cat -n of $(($(stat -c %s "$tmp/text6") / 1000000)) MB of C headers:"
$pb --name fastio "$top/src/cat -n $tmp/text6" --name "$cat" "$cat -n $tmp/text6"
