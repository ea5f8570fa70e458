#!/bin/sh
# SPDX-License-Identifier: MIT
# smallfiles.sh BUILDDIR [N...]: cat of N tiny files (default 100000 and
# 500000; seed-style, "hogeK\n") on tmpfs and on a disk file system,
# into pipebench, wall time, 5 interleaved runs (RUNS): through xargs
# (its 128 KiB of arguments hold 11,000-12,500 of these names an exec),
# and with as many operands per exec as ARG_MAX allows. Rows: ours, the
# peers as native binaries (a wrapper's shell and ld.so would be paid
# per exec; uutils 0.12 runs through its ld.so, which its glibc needs),
# and bench/smallfiles.c's four ways to read the files in one process
# (what io_uring batching would gain). Then one exec of `cat`
# of one tiny file, 1,000 runs (hyperfine), and the 500,000-file case
# under hyperfine too. Prints Markdown (make
# bench-smallfiles). Environment: RUNS, FS (default "tmpfs disk"), TMPFS
# (default /dev/shm), DATA (default /var/tmp/fastio-bench), GNU_HEAD.
set -eu
top=$(cd "${1:-.}" && pwd)
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 100000 500000
pb=$top/src/pipebench/pipebench
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "${TMPFS:-/dev/shm}/fastio-small" "${DATA:-/var/tmp/fastio-bench}/small"' EXIT
${CC:-cc} -O2 -o "$tmp/smallfiles" "$(dirname "$0")/smallfiles.c" -luring

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# hyperfine's Markdown without its Relative column (a ratio of times,
# where every other ratio of BENCHMARKS.md is of speeds).
no_relative() { awk -F '|' -v OFS='|' 'NF > 2 { NF -= 2; $0 = $0 "|" } { print }' "$1"; }

# The peers as native binaries, one "name=command" a line (bench/peers.sh's
# entries are wrapper scripts).
root=$peers_dir/root
native() {
	echo "fastio=$top/src/cat/cat"
	[ -n "$head" ] && [ -x "$head/cat" ] && echo "gnu-head=$head/cat"
	echo "gnu-$(version /usr/bin/cat)=/usr/bin/cat"
	[ -x "$root/usr/lib/cargo/bin/coreutils/cat" ] &&
		echo "uutils-$(version "$peers_dir/bin/uutils/cat")=$root/usr/lib64/ld-linux-x86-64.so.2 --library-path $root/usr/lib/x86_64-linux-gnu $root/usr/lib/cargo/bin/coreutils/cat"
	command -v busybox >/dev/null && echo "busybox=busybox cat"
	for m in syscalls uring uring-stat uring-statx; do
		echo "proto:$m=$tmp/smallfiles $m"
	done
}

# A table: title, then the command template (@: each program).
table() { # title template
	printf '\n#### %s\n\n' "$1"
	ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2046 # one peer a line
	set -- "$2" $(native)
	IFS=$ifs
	compare "--wall --shuffle --runs $runs" "$@" >"$tmp/t" 2>&1 ||
		{ cat "$tmp/t" >&2; return 1; }
	sed -n '/^| command/,/^$/p' "$tmp/t"
}

make_files() { # dir n
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$1" && awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++) {
		f = "hoge" i; printf "hoge%d\n", i > f; close(f) } }')
	(cd "$1" && ls -U >"$tmp/list")
}

machine
echo
printf '%s\n' 'Files seed-style ("hogeK\n", 6-12 bytes); output into pipebench.'
max=$(($(getconf ARG_MAX) / 2))
for n in "$@"; do
	for fs in ${FS:-tmpfs disk}; do
		case $fs in
		tmpfs) d=${TMPFS:-/dev/shm}/fastio-small ;;
		disk) d=${DATA:-/var/tmp/fastio-bench}/small ;;
		esac
		make_files "$d" "$n"
		kind=$(df --output=fstype "$d" | tail -1)
		table "$n tiny files on $kind through xargs, wall time" \
			"cd $d && xargs @ < $tmp/list"
		table "$n tiny files on $kind, xargs -s $max (operands per exec as ARG_MAX allows), wall time" \
			"cd $d && xargs -s $max @ < $tmp/list"
		rm -rf "$d"
	done
done

d=${TMPFS:-/dev/shm}/fastio-small
make_files "$d" 1
printf '\n#### One exec of `cat hoge0` (tmpfs), 1,000 runs, hyperfine -N\n\n'
hyperfine -N -w 50 -r 1000 --export-markdown "$tmp/h.md" \
	-n fastio "$top/src/cat/cat $d/hoge0" -n gnu-head "$head/cat $d/hoge0" \
	-n gnu-9.1 "/usr/bin/cat $d/hoge0" -n busybox "busybox cat $d/hoge0" \
	>/dev/null 2>&1
no_relative "$tmp/h.md"
make_files "$d" 500000
printf '\n#### 500000 files on tmpfs, `xargs cat < list > /dev/null`, hyperfine\n\n'
hyperfine -w 1 -r 10 --export-markdown "$tmp/h.md" \
	-n fastio "cd $d && xargs $top/src/cat/cat < $tmp/list > /dev/null" \
	-n gnu-head "cd $d && xargs $head/cat < $tmp/list > /dev/null" \
	-n busybox "cd $d && xargs busybox cat < $tmp/list > /dev/null" \
	>/dev/null 2>&1
no_relative "$tmp/h.md"
