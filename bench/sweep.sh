#!/bin/sh
# SPDX-License-Identifier: MIT
# sweep.sh BUILDDIR NAME VALUE VALUE...: one constant (those of
# src/fastio/tune.h, and cat's CAT_BUF and CAT_OUT) measured at each VALUE (a plain
# number) by the rule every constant is chosen by: its worst
# ratio to the best value of the same table, over every table. yes and
# cat are built again with -DNAME=VALUE from a copy of the sources as
# make dist takes them (uncommitted changes included); each runs in every
# placement (free, split, same) into a reader that splices to /dev/null
# and one that read()s (--touch), cat on a 2 GB cached file on the disk
# file system and on tmpfs. The reader is BUILDDIR's pipebench. Prints
# Markdown, machine line first, so that a figure keeps its machine (make
# bench-sweep SWEEP="NAME VALUE..."). Environment: RUNS (default 7),
# WORKLOADS (any of yes, cat, fmt: cat -n and -v of 500 MB of text
# from both file systems, copy: cat of 500 MB file to file on both, and
# short: yes into readers that stop after 1 MiB to 256 MiB, whole
# pipelines timed; default "yes cat"), DATA (default
# /var/tmp/fastio-bench), TMPFS (default /dev/shm).
set -eu
[ $# -ge 4 ] || {
	echo "usage: sweep.sh BUILDDIR NAME VALUE VALUE..." >&2
	exit 2
}
top=$(cd "$1" && pwd)
name=$2
shift 2
pb=$top/src/pipebench/pipebench
runs=${RUNS:-7}
data=${DATA:-/var/tmp/fastio-bench}
shm=${TMPFS:-/dev/shm}/fastio-sweep
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$shm"' EXIT
mkdir -p "$data" "$shm"

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# The tables' ratios are the first value's over each.
first=first

# One build tree per value; a variant is "VALUE=its src directory", and
# a table's template names the program after the @.
make -s -C "$top" distdir distdir="$tmp/src" >/dev/null
variants="" i=0
for v in "$@"; do
	case $v in
	'' | *[!0-9]*)
		echo "sweep.sh: $v: not a plain number" >&2
		exit 2
		;;
	esac
	i=$((i + 1))
	mkdir "$tmp/v$i"
	(cd "$tmp/v$i" && "$tmp/src/configure" -q CPPFLAGS="-D$name=$v" &&
		make -s src/yes src/cat/cat) >"$tmp/build.log" 2>&1 ||
		{ cat "$tmp/build.log" >&2; exit 1; }
	variants="$variants $v=$tmp/v$i/src"
done

# A table over the variants (lib.sh's table); each row's ratio to the
# table's best median goes to $tmp/ratios as "VALUE RATIO TABLE".
over() { # id title options... -- template
	# shellcheck disable=SC2086 # the variants are words
	table "$@" $variants
	medians "$tmp/$1.err" | awk -F '\t' -v id="$1" '
		{ m[NR] = $1; n[NR] = $2; if ($1 > best) best = $1 }
		END { for (i = 1; i <= NR; i++) printf "%s %.2f %s\n", n[i], m[i] / best, id }' \
		>>"$tmp/ratios"
}

sweep_yes() {
	for p in free split same; do
		place $p
		over "yes-splice-$p" "yes into pipebench splicing to /dev/null, 10 GiB, placement $p" \
			--bytes 10G -- "$on0@/yes"
		over "yes-read-$p" "yes into pipebench --touch, 4 GiB, placement $p" \
			--bytes 4G --touch -- "$on0@/yes"
		# pv itself as the reader, placed as pipebench would be.
		on1=$reader reader=""
		if command -v pv >/dev/null; then
			over "yes-pv-$p" "yes into pv -q -S -s 8G, wall time, placement $p" \
				--wall --size 8G -- "$on0@/yes | $on1 pv -q -S -s 8G >/dev/null"
		fi
		reader=$on1
	done
}

sweep_cat() {
	big=$data/big-2g
	[ -s "$big" ] || head -c 2000000000 /dev/urandom >"$big"
	cp "$big" "$shm/big-2g"
	for f in "$big" "$shm/big-2g"; do
		fs=$(stat -f -c %T "$f") # "ext2/ext3" for ext4
		fsid=$(echo "$fs" | tr -c 'a-z0-9\n' -)
		cat "$f" >/dev/null # into the page cache
		for p in free split same; do
			place $p
			over "cat-splice-$fsid-$p" "cat of 2 GB cached ($fs) into pipebench splicing to /dev/null, placement $p" \
				-- "$on0@/cat/cat $f"
			over "cat-read-$fsid-$p" "cat of 2 GB cached ($fs) into pipebench --touch, placement $p" \
				--touch -- "$on0@/cat/cat $f"
		done
	done
}

# yes into a reader that stops after N bytes, whole pipelines timed by
# bench/short.c (SHORT_RUNS runs, default 60, interleaved): GNU head -c
# (8 KiB reads), pipebench splicing and --touch, SHORT_SIZES (default
# "line", head -n1 alone, and 1 MiB to 256 MiB), in every placement. Each value's ratio is the table's best median time
# over its own (higher is faster, as for rates).
sweep_short() {
	${CC:-cc} -O2 -o "$tmp/short" "$(dirname "$0")/short.c"
	for n in ${SHORT_SIZES:-line 1M 4M 16M 64M 256M}; do
		readers="\"head -c $n\" \"$pb -Q --bytes $n\" \"$pb -Q --touch --bytes $n\""
		# "line": the commonest yes of all, read a line and closed.
		[ "$n" = line ] && readers='"head -n1"'
		eval "set -- $readers"
		for r; do
			for p in free split same; do
				place $p
				set --
				for v in $variants; do
					set -- "$@" "${v%%=*}=$on0${v#*=}/yes | ${reader:+$reader }$r"
				done
				id=$(echo "short-$n-${r##*/}-$p" | tr -c 'A-Za-z0-9\n' -)
				printf '\n#### yes | %s, placement %s: wall time (ms), median (quartiles)\n\n' \
					"${r##*/}" "$p"
				"$tmp/short" "${SHORT_RUNS:-60}" "$@" >"$tmp/$id.tsv"
				printf '| value | median | quartiles |\n|--:|--:|--:|\n'
				awk -F '\t' '{ printf "| %s | %.2f | %.2f-%.2f |\n", $1, $2, $3, $4 }' "$tmp/$id.tsv"
				awk -F '\t' -v id="$id" '
					{ m[NR] = $2; n[NR] = $1; if (!best || $2 < best) best = $2 }
					END { for (i = 1; i <= NR; i++) printf "%s %.2f %s\n", n[i], best / m[i], id }' \
					"$tmp/$id.tsv" >>"$tmp/ratios"
			done
		done
	done
}

# cat of 500 MB from a file to a file on the same file system (the disk's
# and tmpfs), whole runs timed, a new order each round: copy_file_range's
# ranges (FIO_COPY_CHUNK).
sweep_copy() {
	mid=$data/mid-500m
	[ -s "$mid" ] || head -c 500000000 /dev/urandom >"$mid"
	cp "$mid" "$shm/mid-500m"
	for f in "$mid" "$shm/mid-500m"; do
		fs=$(stat -f -c %T "$f")
		fsid=$(echo "$fs" | tr -c 'a-z0-9\n' -)
		cat "$f" >/dev/null
		over "copy-$fsid" "cat of 500 MB to a file on the same file system ($fs), rate = 500 MB / wall time" \
			--wall --shuffle --size 500000000 -- "@/cat/cat $f > ${f%/*}/copy-out"
		rm -f "${f%/*}/copy-out"
	done
}

# cat -n (cat/number.c's loop) and -v (cat/show.c's with AVX2) on the
# text, from both file systems.
sweep_fmt() {
	text=$data/text-500m
	make_text "$text"
	cp "$text" "$shm/text-500m"
	for f in "$text" "$shm/text-500m"; do
		fs=$(stat -f -c %T "$f")
		fsid=$(echo "$fs" | tr -c 'a-z0-9\n' -)
		cat "$f" >/dev/null
		for o in -n -v; do
			for p in free split same; do
				place $p
				over "cat$o-$fsid-$p" "cat $o of 500 MB of C headers ($fs) into pipebench, placement $p" \
					-- "$on0@/cat/cat $o $f"
			done
		done
	done
}

printf '### %s\n\n' "$name: $*"
machine
: >"$tmp/ratios"
for w in ${WORKLOADS:-yes cat}; do
	"sweep_$w"
done

# Each value's worst table; the value whose worst is best wins.
printf '\n#### %s by its worst case\n\n' "$name"
printf '| value | worst ratio to the best value of a table | in |\n|--:|--:|:--|\n'
for v in "$@"; do
	awk -v v="$v" '$1 == v' "$tmp/ratios" | sort -k2,2n | head -1
done | tee "$tmp/worst" | awk '{ printf "| %s | %.2fx | %s |\n", $1, $2, $3 }'
sort -k2,2nr "$tmp/worst" | awk 'NR == 1 { printf "\nBy the worst case: %s (%.2fx).\n", $1, $2 }'
