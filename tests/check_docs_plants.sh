#!/bin/sh
# SPDX-License-Identifier: MIT
# check_docs_plants.sh: check_docs.sh fails on each kind of wrong pointer.
# A small tree of its own (two sources, a guide, a report) and a file
# planted in it for each kind, holding one pointer that names something
# that is not where it says; check_docs.sh must fail on each and name
# the pointer. A file of right pointers of every kind must pass, so that
# the failures are the plants' and not the tree's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/src/lib" "$t/src/app" "$t/tests" "$t/bench" "$t/doc"
cat >"$t/src/lib/one.c" <<'EOF'
/* Where the bytes go. one_fn() hands them on; two_fn() is two.c's. */
#define ONE_SIZE 4096
int
one_fn(void)
{
	return ONE_SIZE;
}
EOF
cat >"$t/src/lib/two.c" <<'EOF'
/* The other half. */
int
two_fn(int n)
{
	return n + TWO_STEP;
}
EOF
cp "$t/src/lib/two.c" "$t/src/lib/three.c"
cp "$t/src/lib/two.c" "$t/src/app/three.c"
printf '# Guide\n\n## Part one\n\n### A detail\n' >"$t/doc/guide.md"
printf '# Report\n\n## Decisions\n\n### ONE_SIZE: 4 KiB\n' >"$t/BENCHMARKS.md"
: >"$t/README.md"
: >"$t/NEWS"
# A history of one commit, for the stamps.
commit=
if command -v git >/dev/null && git -C "$t" init -q 2>/dev/null &&
	git -C "$t" add -A && git -C "$t" -c user.name=t -c user.email=t@t commit -qm t; then
	commit=$(git -C "$t" rev-parse --short=7 HEAD)
fi

# The right pointers, one of each kind.
cat >"$t/doc/good.md" <<'EOF'
See doc/guide.md, "Part one", and BENCHMARKS.md, "Decisions", "ONE_SIZE";
one.c, "Where the bytes go"; one.c, one_fn(); two.c's two_fn();
`lib/one.c`, `one_fn`; src/lib/one.c, ONE_SIZE; TWO_STEP in two.c;
lib/two.c, two_fn() and `src/lib/two.c`; one_fn() (one.c), ONE_SIZE
(one.c); see two_fn() in two.c; one.c's one_fn; doc/guide.md, section
"A detail"; one.c's source, the loop (two.c).
EOF
[ -z "$commit" ] || printf 'A run of `%s`.\n' "$commit" >>"$t/doc/good.md"

status=0
run() { # file: check_docs.sh's output on it; its status in $rc
	got=$(FIO_SRCDIR=$t sh "$here/check_docs.sh" "$1" 2>&1)
	rc=$?
}
run "$t/doc/good.md"
if [ "$rc" != 0 ]; then
	echo "check_docs_plants: right pointers failed: $got"
	status=1
fi

# Each plant: what kind, the pointer. It must fail, naming the pointer.
cat >"$t/plants" <<'EOF'
a heading that is not there|doc/guide.md, "Part two"
a heading of a chain that is not there|BENCHMARKS.md, "Decisions", "TWO_STEP"
a quoted section of a source that is elsewhere|two.c, "Where the bytes go"
a function defined in another file|two.c, one_fn()
a function only a comment names|one.c, two_fn()
a name without parentheses|two.c, `one_fn`
a name with an underscore, without backticks|lib/two.c, one_fn
a constant the file does not use|two.c, ONE_SIZE
a constant named in a file that lacks it|ONE_SIZE in two.c
a file's function, in the possessive|two.c's one_fn()
a file at a wrong path|app/one.c, one_fn()
a bare name that two files share|three.c, two_fn()
a path to no file|`src/app/one.c`
a function named beside another file|two_fn() (one.c)
a constant named beside a file that lacks it|ONE_SIZE (two.c)
a function said to be in another file|one_fn() in two.c
a function of the tree's in the possessive, bare|two.c's one_fn
a line number|one.c:3
a section that is not there|doc/guide.md, section "Nonexistent heading"
EOF
[ -z "$commit" ] || echo 'a commit that is not in the history|`0123abc`' >>"$t/plants"
n=0
while IFS='|' read -r kind pointer; do
	n=$((n + 1))
	printf 'A pointer: %s.\n' "$pointer" >"$t/doc/plant-$n.md"
	run "$t/doc/plant-$n.md"
	if [ "$rc" = 0 ]; then
		echo "check_docs_plants: $kind: '$pointer' passed"
		status=1
	elif ! echo "$got" | tr -d '`' | grep -qF -- "$(echo "$pointer" | tr -d '`')"; then
		echo "check_docs_plants: $kind: '$pointer' failed without naming it: $got"
		status=1
	fi
done <"$t/plants"
[ "$status" = 0 ] && echo "check_docs_plants: $n wrong pointers failed, the right ones passed"
exit "$status"
