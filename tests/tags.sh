#!/bin/sh
# SPDX-License-Identifier: MIT
# tags.sh SRCDIR: every release NEWS names is tagged v<version> on a
# commit this one descends from, except the one being released (the
# version configure.ac gives, tagged once make release-check passes on
# it, doc/releasing.md); an entry not numbered yet ("?.?.?") is none.
# make release-check refuses to run otherwise: a release untagged cannot
# be found again.
set -eu
src=${1:-.}
version=$(sed -n 's/^AC_INIT(\[[^]]*\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
bad=0
for v in $(sed -n 's/^\* Noteworthy changes in release \([0-9][0-9.]*\) .*/\1/p' "$src/NEWS"); do
	if ! c=$(git -C "$src" rev-parse -q --verify "refs/tags/v$v^{commit}"); then
		[ "$v" = "$version" ] && continue
		echo "tags.sh: release $v (NEWS) has no tag v$v" >&2
		bad=1
	elif ! git -C "$src" merge-base --is-ancestor "$c" HEAD; then
		echo "tags.sh: v$v is not an ancestor of HEAD" >&2
		bad=1
	fi
done
exit "$bad"
