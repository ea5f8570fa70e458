#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh BUILDDIR WORKLOAD...: the project's benchmarks against the peers
# installed here (bench/peers.sh --install). Workloads: short (the wall
# time of short pipelines, bench/short.c, and the producers' peak RSS),
# curve (yes | head -c N over N, against GNU's), yes, cat, pipebench
# (transfers measured by our pipebench --compare:
# runs interleaved (A B C A B C ...), medians and min-max, each rate
# divided by the first row's, ours). All four (make bench) end in a
# verdict: each of the project's targets, ours over the best peer's
# median, met, a tie or not met; with UPDATE=FILE (BENCHMARKS.md) the
# run, stamped with the commit, the date and the machine, replaces FILE's
# generated part. Fewer (make bench-cat) go to OUT (default
# bench-WORKLOADS.md), never into FILE. Environment: RUNS (default 5),
# SHORT_RUNS (default 300), CURVE_RUNS (default 300), CURVE_PLACES
# (default free; any of free, split, same), RSS_RUNS (default
# 5), RUNS_WIDE (default 15:
# a table whose rows spread wide is measured again with these), DATA
# (directory for test files on a disk file system, default
# /var/tmp/fastio-bench, kept), TMPFS (a tmpfs directory, default
# /dev/shm), GNU_HEAD (a directory holding GNU's development tree's cat
# and yes, if you built them).
set -eu
top=$(cd "${1:-.}" && pwd)
shift
pb=$top/src/pipebench/pipebench
runs=${RUNS:-5}
data=${DATA:-/var/tmp/fastio-bench}
shm=${TMPFS:-/dev/shm}/fastio-bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$shm"' EXIT
mkdir -p "$data" "$shm"

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

reader=""

# bench/ceiling.c, built once into $c.
ceiling() {
	c=$tmp/ceiling
	[ -x "$c" ] || ${CC:-cc} -O2 -o "$c" "$(dirname "$0")/ceiling.c"
}

# The readers of yes: pipebench splicing and reading (--touch), pipebench
# grown its input pipe to 1 MiB as a meter should; and, timed whole, GNU
# dd reading 64 KiB, 128 KiB and 1 MiB at a time and GNU head -c reading
# 8 KiB, which keep the pipe yes gives them. Each table has the ceilings
# (bench/ceiling.c) at both output pipes yes may have, 512 KiB and 1 MiB.
workload_yes() {
	ceiling
	for p in free split same; do
		place $p
		if [ $p = free ]; then
			set -- $(peers yes)
		else
			set -- $(peers yes strong)
		fi
		for k in 512 1024; do
			set -- "$@" "ceiling:tee-$k=$c tee $k" \
				"ceiling:direct-$k=$c direct $k" \
				"ceiling:turn-$k=$c turn $k" \
				"ceiling:dturn-$k=$c dturn $k" \
				"ceiling:pages-$k=$c pages $k" \
				"ceiling:dpages-$k=$c dpages $k"
		done
		set -- "$@" "ceiling:spin=$c spin"
		table "yes-splice-$p" "yes into pipebench splicing to /dev/null, 10 GiB, placement $p" \
			--bytes 10G -- "$on0@" "$@"
		table "yes-read-$p" "yes into pipebench --touch (read() and write() to /dev/null), 4 GiB, placement $p" \
			--bytes 4G --touch -- "$on0@" "$@"
		on1=$reader
		reader=""
		for bs in 64K:32768 128K:16384 1M:2048; do
			table "yes-dd${bs%:*}-$p" "yes into dd bs=${bs%:*} iflag=fullblock, 2 GiB, wall time, placement $p" \
				--wall --size 2G -- "$on0@ | $on1 dd bs=${bs%:*} count=${bs#*:} iflag=fullblock of=/dev/null 2>/dev/null" "$@"
		done
		table "yes-head-$p" "yes into head -c 2G (reads of 8 KiB), wall time, placement $p" \
			--wall --size 2G -- "$on0@ | $on1 head -c 2G >/dev/null" "$@"
		# pv itself, which splices and keeps its pipe.
		command -v pv >/dev/null &&
			table "yes-pv-$p" "yes into pv -q -S -s 8G, wall time, placement $p" \
				--wall --size 8G -- "$on0@ | $on1 pv -q -S -s 8G >/dev/null" "$@"
		reader=$on1
	done
	place free
	# busybox writes one line per call (0.13 GiB/s): a table of its own.
	if command -v busybox >/dev/null; then
		table yes-busybox "yes against busybox, 500 MiB, splicing reader" \
			--bytes 500M -- "@" "fastio=$top/src/yes" "busybox=busybox yes"
	fi
}

# Peak RSS (KiB) of each cat -n over the text, median of 3: GNU time's %M.
# Into a pipe: there our cat's writer runs its thread and its buffers.
peak_rss() { # file name=command...
	f=$1
	shift
	printf '\n#### Peak RSS of `cat -n` on 500 MB of C headers into a pipe\n\n'
	printf '| command | peak RSS (KiB, median of 3) |\n|:--|--:|\n'
	for spec in "$@"; do
		for i in 1 2 3; do
			/usr/bin/time -o "$tmp/m" -f %M ${spec#*=} -n "$f" |
				cat >/dev/null
			tail -1 "$tmp/m"
		done | sort -n | sed -n 2p >"$tmp/rss"
		printf '| %s | %s |\n' "${spec%%=*}" "$(cat "$tmp/rss")"
		echo "${spec%%=*} $(cat "$tmp/rss")" >>"$tmp/rss.txt"
	done
}

workload_cat() {
	set -- $(peers cat)
	command -v busybox >/dev/null && set -- "$@" "busybox=busybox cat"
	command -v toybox >/dev/null && set -- "$@" "toybox=toybox cat"
	big=$data/big-2g mid=$data/mid-500m
	[ -s "$big" ] || head -c 2000000000 /dev/urandom >"$big"
	[ -s "$mid" ] || head -c 500000000 "$big" >"$mid"
	cat "$big" "$mid" >/dev/null # into the page cache
	table cat-splice "2 GB cached file into pipebench splicing to /dev/null" \
		-- "@ $big" "$@"
	table cat-read "2 GB cached file into pipebench --touch" \
		--touch -- "@ $big" "$@"
	# Wall time from start to exit, the output truncated by the shell
	# (part of every command's time alike). A copy is slowed by what the
	# one before it left behind (page cache to free, writeback): a new
	# random order each round.
	table cat-file "500 MB file to a file on the same filesystem ($(stat -f -c %T "$data")), rate = 500 MB / wall time" \
		--wall --shuffle --size 500000000 -- "@ $mid > $data/copy-out" "$@"
	rm -f "$data/copy-out"

	tiny=$shm/tiny
	mkdir -p "$tiny"
	# 100,000 files of 20-30 bytes in 100 directories.
	awk -v d="$tiny" 'BEGIN { for (i = 0; i < 100000; i++) {
		f = sprintf("%s/%02d/f%06d", d, i % 100, i);
		if (i < 100) system("mkdir -p " d "/" sprintf("%02d", i));
		printf "file %d of the tiny set\n", i > f; close(f) } }'
	(cd "$tiny" && find . -type f | sort >"$tmp/list")
	table cat-tiny "100,000 tiny files on tmpfs through xargs into pipebench, wall time" \
		--wall --shuffle -- "cd $tiny && xargs @ < $tmp/list" "$@"
	rm -rf "$tiny"

	text=$data/text-500m small=$data/text-12m tiny_text=$data/text-1m
	make_text "$text"
	[ -s "$small" ] || head -c 12500000 "$text" >"$small"
	[ -s "$tiny_text" ] || head -c 1250000 "$text" >"$tiny_text"
	cp "$text" "$shm/text-500m"
	cat "$text" >/dev/null
	for fs in tmpfs ext4; do
		f=$text
		[ $fs = tmpfs ] && f=$shm/text-500m
		for o in -n -b -s -v -A -E -T; do
			# Peers that lack the option, or fail on this input, sit out.
			set -- $(for spec in $(peers cat strong); do
				${spec#*=} $o "$small" >/dev/null 2>&1 && echo "$spec"
			done)
			# Where cat/wide.c's AVX-512 loop runs, also the AVX2 loops
			# it replaces, so that each machine says which wins there.
			case $o in -v | -A | -E | -T)
				grep -qw avx512_vbmi2 /proc/cpuinfo &&
					set -- "$@" "fastio-avx2=env FASTIO_CAT_SCAN=32 $top/src/cat/cat"
				;;
			esac
			# The loops of every CPU without one of its own (arm64,
			# ppc64el, s390x, ...): generic vectors, SSE2 here.
			set -- "$@" "fastio-portable=env FASTIO_CAT_SCAN=8 $top/src/cat/cat"
			table "cat$o-$fs" "cat $o on 500 MB of C headers ($fs) into pipebench" \
				-- "@ $o $f" "$@"
		done
	done
	# busybox formats at 0.06 GB/s (12.5 MB), toybox at 0.0005 (1.25 MB).
	for o in -v -e -t; do
		for t in busybox toybox; do
			in=$small
			[ $t = toybox ] && in=$tiny_text
			command -v $t >/dev/null && $t cat $o "$in" >/dev/null 2>&1 &&
				table "cat$o-$t" "cat $o on $(($(stat -c %s "$in") / 1000)) kB of C headers, against $t" \
					-- "@ $o $in" "fastio=$top/src/cat/cat" "$t=$t cat"
		done
	done
	if [ -x /usr/bin/time ]; then
		peak_rss "$text" $(peers cat strong)
	fi
	rm -f "$shm/text-500m"
}

# bench/short.c, the timer of whole pipelines, built once a run.
short_tool() {
	[ -x "$tmp/short" ] || ${CC:-cc} -O2 -o "$tmp/short" "$(dirname "$0")/short.c"
}

# One row of the short pipelines: TEMPLATE (each @ the tool as one of
# the peers, all through bench/short.c: SHORT_RUNS runs, default 300,
# interleaved) against every peer of TOOL; its cells, median and
# quartiles in ms, and ours over the best peer (its median time over
# ours: higher is faster); the medians go to $tmp/short.tsv.
short_row() { # title tool template
	title=$1 tool=$2 template=$3
	set --
	for spec in $(peers "$tool") busybox="busybox $tool"; do
		name=${spec%%=*} cmd=$(direct "${spec#*=}")
		[ "$name" = busybox ] && ! command -v busybox >/dev/null && continue
		set -- "$@" "$name=$(echo "$template" | sed "s#@#$cmd#g")"
	done
	"$tmp/short" "${SHORT_RUNS:-300}" "$@" >"$tmp/short-row.tsv" ||
		{ echo "bench.sh: a short pipeline failed: $title" >&2; return 1; }
	awk -F '\t' -v title="$title" -v head="$tmp/short-head" '
		{ n[NR] = $1; m[NR] = $2; lo[NR] = $3; hi[NR] = $4 }
		$1 == "fastio" { us = NR }
		$1 != "fastio" && (!best || $2 < m[best]) { best = NR }
		END {
			if ((getline h < head) <= 0) {
				for (i = 1; i <= NR; i++)
					h = h " " n[i] " |"
				print h > head
				printf "| pipeline |%s ours / best peer |\n|:--|", h
				for (i = 1; i <= NR; i++)
					printf "--:|"
				printf "--:|\n"
			}
			printf "| %s |", title
			for (i = 1; i <= NR; i++)
				printf " %.2f (%.2f-%.2f) |", m[i], lo[i], hi[i]
			printf " %.2fx (%s) |\n", m[best] / m[us], n[best]
			printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", title, m[us], lo[us], hi[us],
				n[best], m[best], hi[best] >> "'"$tmp/short.tsv"'"
		}' "$tmp/short-row.tsv"
}

# Peak RSS (KiB) of the producer alone in a pipeline, median of RSS_RUNS
# (default 5): GNU time's %M around the first command. Ours, GNU HEAD
# (if built), GNU 9.10 and GNU 9.1, a column each.
rss_row() { # title tool template
	title=$1 tool=$2 template=$3 names='' values='' rules=''
	for spec in $(peers "$tool"); do
		name=${spec%%=*} cmd=$(direct "${spec#*=}")
		case $name in fastio | gnu-9.1* | gnu-head) ;; *) continue ;; esac
		kib=$(for i in $(seq "${RSS_RUNS:-5}"); do
			sh -c "$(echo "$template" | sed "s#@#/usr/bin/time -o $tmp/m -f %M $cmd#")" \
				>/dev/null 2>&1
			tail -1 "$tmp/m"
		done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		names="$names $name |" values="$values $kib |" rules="$rules--:|"
		echo "$title	$name	$kib" >>"$tmp/short-rss.tsv"
	done
	if [ "$rss_headed" != yes ]; then
		printf '| pipeline |%s\n|:--|%s\n' "$names" "$rules"
		rss_headed=yes
	fi
	printf '| %s |%s\n' "$title" "$values"
}

# What users type: a yes read a few lines and closed, a cat of a small
# file. Whole pipelines, start to exit, through /bin/sh.
workload_short() {
	short_tool
	d=$tmp/short-files
	mkdir -p "$d/rm"
	for i in $(seq 40); do : >"$d/rm/f$i"; done
	make_text "$data/text-500m"
	head -c 20000 "$data/text-500m" >"$d/20k"
	head -c 1000000 "$data/text-500m" >"$d/1m"
	for i in 1 2 3; do echo "tiny file $i" >"$d/tiny$i"; done
	: >"$tmp/short.tsv"
	: >"$tmp/short-rss.tsv"
	printf '\n#### Short pipelines: wall time of the whole pipeline, ms, median (quartiles) of %s interleaved runs\n\n' \
		"${SHORT_RUNS:-300}"
	printf 'The last column is the best peer'"'"'s median time over ours (higher is faster). GNU 9.10 and uutils run through their own root'"'"'s loader, which adds its start to theirs.\n\n'
	rm -f "$tmp/short-head"
	short_row '`yes | head -n1`' yes '@ | head -n1'
	short_row '`yes | head -n1000`' yes '@ | head -n1000'
	short_row "\`yes '' | head -c 64K\`" yes "@ '' | head -c 64K"
	short_row '`yes n | rm -i` of 40 files' yes "@ n | rm -i $d/rm/f* 2>/dev/null"
	short_row '`yes a | head -c 200000`' yes '@ a | head -c 200000'
	short_row '`yes | head -c 1M`' yes '@ | head -c 1M'
	short_row '`yes | head -c 4M`' yes '@ | head -c 4M'
	short_row '`echo x | cat | cat`' cat 'echo x | @ | @'
	short_row '`cat 20K | cat`' cat "@ $d/20k | @"
	short_row '`cat 1MB | wc -l`' cat "@ $d/1m | wc -l"
	short_row '`cat` of three tiny files to a file' cat "@ $d/tiny1 $d/tiny2 $d/tiny3 > $d/out"
	short_row '`cat -n 20K | cat`' cat "@ -n $d/20k | @"
	[ -x /usr/bin/time ] || return 0
	printf '\n#### Peak RSS of the producer in a short pipeline, KiB, median of %s\n\n' "${RSS_RUNS:-5}"
	rss_headed=no
	rss_row '`yes | head -n1`' yes '@ | head -n1'
	rss_row '`yes | head -c 4G`' yes '@ | head -c 4G'
	rss_row '`cat 20K | cat`' cat "@ $d/20k | cat"
	rm -rf "$d"
}

# yes read for N bytes, whole pipelines timed, for N from 16 KiB to 64
# MiB on a grid of 1.5x steps, against every GNU of the peers: where the
# start and the machinery take turns, no length may cost more than the
# faster GNU's (CURVE_RUNS runs, default 300, interleaved: a point's
# times fall in two heaps, as the scheduler puts the two processes on
# one CPU or on two, and the medians of four names for the same yes, 150
# runs each, lay 3.5% apart on fc-v857). A table, and ours over the faster GNU's time against N
# as a chart (CURVE_SVG, beside UPDATE: doc/yes-curve.svg), 1.05x marked.
workload_curve() {
	short_tool
	: >"$tmp/curve.tsv"
	# Against GNU 9.1 (the system's) and GNU's development tree, the two
	# a stream's start follows.
	set --
	for spec in $(peers yes); do
		case $spec in fastio=* | gnu-head=* | */usr/bin/yes)
			set -- "$@" "$spec" ;;
		esac
	done
	sizes="" n=16384
	while [ "$n" -lt 67108864 ]; do
		sizes="$sizes $n"
		n=$((n * 3 / 2))
	done
	# CURVE_PLACES (default free): also pinned, as the yes tables are.
	for p in ${CURVE_PLACES:-free}; do
		place $p
		printf '
#### yes | head -c N: wall time of the whole pipeline, ms, median of %s interleaved runs%s

' \
			"${CURVE_RUNS:-300}" "$([ $p = free ] || echo ", placement $p")"
		printf 'The last column is ours over the faster GNU'"'"'s median time (lower is faster; the target, at most 1.05x).\n\n'
		printf '| N | line |'
		for spec; do printf ' %s |' "${spec%%=*}"; done
		printf ' ours / faster GNU |\n|--:|:--|'
		for spec; do printf -- '--:|'; done
		printf -- '--:|\n'
		for n in $sizes 67108864; do
			for line in y a; do
				arg=$([ "$line" = a ] && echo a || echo "")
				cmds=""
				for spec; do
					cmds="$cmds
${spec%%=*}=$on0$(direct "${spec#*=}") $arg | ${reader:+$reader }head -c $n"
				done
				echo "$cmds" | sed 1d | tr '\n' '\0' |
					xargs -0 "$tmp/short" "${CURVE_RUNS:-300}" >"$tmp/curve-row.tsv" ||
					{ echo "bench.sh: yes | head -c $n failed" >&2; return 1; }
				awk -F '\t' -v n="$n" -v line="$line" -v p="$p" -v tsv="$tmp/curve.tsv" '
					{ name[NR] = $1; m[NR] = $2 }
					$1 == "fastio" { us = $2 }
					$1 ~ /^gnu/ && (!best || $2 < best) { best = $2 }
					END {
						printf "| %d | `%s` |", n, line == "y" ? "yes" : "yes a"
						for (i = 1; i <= NR; i++)
							printf " %.2f |", m[i]
						printf " %.3fx |\n", us / best
						printf "%s\t%s\t%.4f\t%s\n", n, line, us / best, p >> tsv
					}' "$tmp/curve-row.tsv"
			done
		done
		awk -F '\t' -v p="$p" '$4 == p && $3 > w { w = $3; at = $1; l = $2 }
			END { printf "\nWorst point: %.3fx, `%s | head -c %d`.\n", w, l == "y" ? "yes" : "yes a", at }' \
			"$tmp/curve.tsv"
	done
	reader=""
	# The chart is of the curve as users get it, placed by the scheduler.
	grep -q "	free$" "$tmp/curve.tsv" || return 0
	grep "	free$" "$tmp/curve.tsv" | curve_svg >"${CURVE_SVG:-bench-curve.svg}"
	printf '\n![yes | head -c N: ours over the faster GNU'"'"'s time, against N](%s)\n' \
		"${CURVE_LINK:-bench-curve.svg}"
}

# The curve as an SVG chart: N on a log scale, ours over the faster GNU's
# time on the other, the two lines, and 1.05x dashed.
curve_svg() { # the curve's rows on standard input
	awk -F '\t' '
		{ x = log($1) / log(2); r = $3
		  if (r > top) top = r
		  pts[$2] = pts[$2] sprintf(" %.1f,%%Y%.4f%%", 60 + (x - 14) * 50, r) }
		END {
			hi = top > 1.3 ? top + 0.05 : 1.3; lo = 0.8
			printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"360\" font-family=\"sans-serif\" font-size=\"12\">\n"
			printf "<rect width=\"720\" height=\"360\" fill=\"white\"/>\n"
			for (v = lo; v <= hi + 1e-9; v += 0.1) {
				y = 320 - (v - lo) / (hi - lo) * 280
				printf "<line x1=\"60\" x2=\"710\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"55\" y=\"%.1f\" text-anchor=\"end\">%.1fx</text>\n", y, y, y + 4, v
			}
			y = 320 - (1.05 - lo) / (hi - lo) * 280
			printf "<line x1=\"60\" x2=\"710\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"red\" stroke-dasharray=\"6,4\"/><text x=\"705\" y=\"%.1f\" text-anchor=\"end\" fill=\"red\">1.05x</text>\n", y, y, y - 4
			for (k = 14; k <= 26; k += 2)
				printf "<text x=\"%.1f\" y=\"340\" text-anchor=\"middle\">%s</text>\n", 60 + (k - 14) * 50, k < 20 ? 2^(k - 10) " KiB" : 2^(k - 20) " MiB"
			printf "<text x=\"385\" y=\"356\" text-anchor=\"middle\">N (bytes read by head -c)</text>\n"
			split("y a", names, " "); split("#1f77b4 #ff7f0e", colors, " ")
			for (i = 1; i <= 2; i++) {
				s = pts[names[i]]
				while (match(s, /%Y[0-9.]+%/)) {
					v = substr(s, RSTART + 2, RLENGTH - 3)
					s = substr(s, 1, RSTART - 1) sprintf("%.1f", 320 - (v - lo) / (hi - lo) * 280) substr(s, RSTART + RLENGTH)
				}
				printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>\n", colors[i], s
				printf "<text x=\"80\" y=\"%d\" fill=\"%s\">%s | head -c N</text>\n", 20 + 16 * i, colors[i], i == 1 ? "yes" : "yes a"
			}
			printf "<text x=\"60\" y=\"16\">ours / faster GNU (time)</text>\n</svg>\n"
		}'
}

workload_pipebench() {
	yes=$top/src/yes
	set -- "fastio=$top/src/pipebench/pipebench -Q"
	command -v pv >/dev/null && set -- "$@" "pv $(pv --version | sed -n '1s/^pv \([^ ]*\).*/\1/p')=pv -q"
	[ -x /usr/bin/pipebench ] && set -- "$@" "pipebench 0.40=/usr/bin/pipebench -Q"
	ceiling
	set -- "$@" "cat (reference)=$top/src/cat/cat" "ceiling:relay=$c relay"
	table pb-splice "Pass-through: our yes into each, into pipebench splicing to /dev/null, 8 GiB" \
		--bytes 8G -- "$yes | @" "$@"
	table pb-read "Pass-through: our yes into each, into pipebench --touch, 4 GiB" \
		--bytes 4G --touch -- "$yes | @" "$@"
	# Straight to /dev/null, each stopping by itself; pipebench 0.40
	# cannot stop and is left out.
	set -- "fastio=$top/src/pipebench/pipebench -Q --bytes 20G"
	command -v pv >/dev/null && set -- "$@" "pv $(pv --version | sed -n '1s/^pv \([^ ]*\).*/\1/p')=pv -q -S -s 20G"
	table pb-null "Pass-through of our yes to /dev/null, 20 GiB, wall time" \
		--wall --size 20G -- "$yes | @ > /dev/null" "$@"
	meter_cost
	names
}

# Which stage --pipeline names in pipelines whose bottleneck is known:
# sort, which works after its input ends; a CPU-bound filter behind a
# cat that does almost nothing; a rate-limited pv. NAME_RUNS (default
# 10) runs of each; the verdict asks for all of them.
names() {
	n=${NAME_RUNS:-10}
	make_text "$data/text-500m"
	[ -s "$data/text-50m" ] || head -c 50000000 "$data/text-500m" >"$data/text-50m"
	[ -s "$data/text-50m.gz" ] || gzip -1 -c "$data/text-50m" >"$data/text-50m.gz"
	printf '\n#### The stage named: `pipebench --pipeline` on pipelines whose slow stage is known, %s runs each\n\n| pipeline | slow stage | named it | named instead |\n|:--|:--|--:|:--|\n' "$n"
	: >"$tmp/names.txt"
	for t in "sort	zcat text-50m.gz | sort | uniq -c" \
		"python3	cat text-50m | python3 -c 'import sys; sys.stdout.writelines(map(str.upper, sys.stdin))' | gzip -1 | md5sum" \
		"pv	cat text-50m | pv -q -L 25m | wc -l"; do
		want=${t%%	*} p=${t#*	} i=0 got=0 other=''
		command -v "$want" >/dev/null || continue
		while [ "$i" -lt "$n" ]; do
			(cd "$data" && "$pb" --pipeline "$p" >/dev/null 2>"$tmp/names.err") || true
			name=$(sed -n 's/^Held back by: stage [0-9]*, \([^ :]*\).*/\1/p; s/^Held back by: \(none\).*/\1/p' "$tmp/names.err")
			if [ "$name" = "$want" ]; then got=$((got + 1)); else other="$other ${name:-?}"; fi
			i=$((i + 1))
		done
		printf '| `%s` | %s | %s of %s |%s |\n' "$p" "$want" "$got" "$n" "$other"
		printf '%s\t%s\t%s\n' "$want" "$got" "$n" >>"$tmp/names.txt"
	done
}

# What --pipeline costs the pipeline it meters: each pipeline as sh runs
# it, under pipebench --pipeline, with pv -q between its stages (the
# meter people insert by hand) and with bench/ceiling.c's relay that
# keeps the pipes between them (the least any such relay costs); wall
# time of the whole, PIPE_RUNS (default 9) interleaved runs
# (bench/short.c). The ratios are speed ratios: the plain run's median
# time over each (1.00: free; below, the meter slows the pipeline).
meter_cost() {
	ceiling
	short_tool
	printf '\n#### The meter'"'"'s cost: each pipeline alone, under `pipebench -Q --pipeline`, with `pv -q` and with a relay of splices between its stages; wall time (s), median (quartiles) of %s interleaved runs\n\n' "${PIPE_RUNS:-9}"
	printf '| pipeline | alone | metered | pv -q | ceiling: relays | speed metered / alone | speed of the ceiling / alone |\n|:--|--:|--:|--:|--:|--:|--:|\n'
	make_text "$data/text-500m"
	[ -s "$data/text-50m" ] || head -c 50000000 "$data/text-500m" >"$data/text-50m"
	for p in "$top/src/yes | head -c 4G | md5sum" \
		"$top/src/yes | head -c 4G | wc -l" \
		"$top/src/cat/cat $data/text-50m | tr a-z A-Z | sort | uniq -c | wc -l"; do
		# --pipeline's status is pipefail's: 141 where yes dies of
		# the SIGPIPE that ends it.
		"$tmp/short" "${PIPE_RUNS:-9}" "alone=$p" \
			"metered=$pb -Q --pipeline '$p' || [ \$? = 141 ]" \
			"pv=$(echo "$p" | sed 's/ | / | pv -q | /g')" \
			"ceiling=$(echo "$p" | sed "s# | # | $c keep | #g")" >"$tmp/meter.tsv"
		awk -F '\t' -v p="$p" -v top="$top/src/" -v data="$data/" '
			{ m[$1] = $2; lo[$1] = $3; hi[$1] = $4 }
			END {
				gsub(top, "", p)
				gsub(data, "", p)
				printf "| `%s` |", p
				split("alone metered pv ceiling", k, " ")
				for (i = 1; i <= 4; i++)
					printf " %.2f (%.2f-%.2f) |", m[k[i]] / 1000, lo[k[i]] / 1000, hi[k[i]] / 1000
				printf " %.3fx | %.3fx |\n", m["alone"] / m["metered"], m["alone"] / m["ceiling"]
				printf "%s\t%s\t%s\t%s\t%s\t%s\n", p, m["alone"], m["metered"], lo["metered"], m["ceiling"], hi["ceiling"] >> "'"$tmp/meter.txt"'"
			}' "$tmp/meter.tsv"
	done
}

# One verdict row: target text, table id, the pattern of the rows it is
# against, the ratio ours must reach [, our row's name]. The ratio is
# ours' median over the best such row's median (rates: higher is
# faster). Met when it reaches the target; a tie when it does not but the
# spreads overlap once the best row's is scaled by the target (ours'
# fastest run reaches target x that row's slowest); else not met.
verdict_row() { # text id pattern target [ours]
	ranges "$tmp/$2.err" | awk -F '\t' -v text="$1" -v pat="$3" -v t="$4" \
		-v us="${5:-fastio}" '
		$4 == us { m = $1; hi = $3 }
		$4 !~ /^fastio/ && $4 ~ pat && $1 > best { best = $1; blo = $2; name = $4 }
		END {
			if (!m || !best) exit
			r = m / best
			v = r >= t ? "met" : hi >= t * blo ? "tie" : "**not met**"
			printf "| %s | %.2fx (%s) | %s |\n", text, r, name, v
		}'
}

workload_verdict() {
	verdict_rows >"$tmp/verdict.rows"
	printf '\n| target | ours / best (median rates) | |\n|:--|--:|:--|\n'
	cat "$tmp/verdict.rows"
	# The verdict is the last cell: a target's text may hold a |.
	awk -F '|' '{ n++; v = $(NF - 1); if (v ~ /not met/) ; else if (v ~ / met /) m++; else if (v ~ /tie/) t++ }
		END { printf "\n%d targets: %d met, %d ties, %d not met.\n", n, m, t, n - m - t }' \
		"$tmp/verdict.rows"
}

verdict_rows() {
	peer='^(gnu|uutils|busybox|toybox)'
	# yes into each reader in each placement: against the best ceiling
	# that does not spin, and against the best peer.
	for p in free split same; do
		for r in "splice:pipebench splicing" "read:pipebench --touch" \
			"dd64K:dd bs=64K" "dd128K:dd bs=128K" "dd1M:dd bs=1M" \
			"head:head -c (8 KiB reads)" "pv:pv"; do
			verdict_row "yes → ${r#*:}, $p: ≥ 0.90x its ceiling" "yes-${r%%:*}-$p" '^ceiling:[a-z]*-' 0.90
			verdict_row "yes → ${r#*:}, $p: ≥ 0.95x best peer" "yes-${r%%:*}-$p" "$peer" 0.95
		done
	done
	verdict_row "cat 2 GB → splice reader: ≥ 1.0x best peer" cat-splice "$peer" 1.0
	verdict_row "cat 2 GB → read() reader: ≥ 1.0x best peer" cat-read "$peer" 1.0
	verdict_row "cat file → file: ≥ 1.0x best peer" cat-file "$peer" 1.0
	for fs in tmpfs ext4; do
		for o in -n -b -s -v -A -E -T; do
			verdict_row "cat $o, $fs: ≥ 2x best peer" "cat$o-$fs" "$peer" 2.0
		done
	done
	for fs in tmpfs ext4; do
		for o in -n -b -s -v -A -E -T; do
			verdict_row "cat $o portable, $fs: ≥ 1.5x best peer" "cat$o-$fs" "$peer" 1.5 fastio-portable
		done
	done
	# Where the CPU has AVX-512 VBMI2 (wide.c) its loops run, chosen by
	# the rule for constants: their worst ratio to the better of the two
	# over the eight tables against the AVX2 loops' worst.
	for fs in tmpfs ext4; do
		for o in -v -A -E -T; do
			ranges "$tmp/cat$o-$fs.err"
		done
	done | awk -F '\t' '
		$4 == "fastio" { v = $1 } $4 == "fastio-avx2" { a = $1 }
		$4 == "fastio-portable" && v && a {
			b = v > a ? v : a; rv = v / b; ra = a / b
			if (!n++ || rv < wv) wv = rv
			if (n == 1 || ra < wa) wa = ra
			v = a = 0
		}
		END {
			if (n) printf "| cat -v -A -E -T: the VBMI2 loops by their worst case, ≥ the AVX2 loops'"'"' | %.2fx, AVX2 %.2fx (%d tables) | %s |\n",
				wv, wa, n, (wv >= wa ? "met" : "**not met**")
		}'
	verdict_row "pipebench relay: ≥ 2x pv" pb-splice '^pv' 2.0
	[ ! -s "$tmp/names.txt" ] || awk -F '\t' '{ printf "| --pipeline names %s as the slow stage: %s runs of %s | %s of %s | %s |\n", $1, $3, $3, $2, $3, ($2 == $3 ? "met" : "**not met**") }' "$tmp/names.txt"
	# --pipeline's cost: the metered pipeline's speed over the plain
	# one's (its median time over the metered one's), at least 0.95x (a
	# time of at most 1.05x); a tie at the ceiling where the metered
	# one's first quartile is within the relays' third.
	[ -s "$tmp/meter.txt" ] && awk -F '\t' -v top="$top/src/" -v data="$data/" '{
		p = $1; gsub(top, "", p); gsub(data, "", p); r = $2 / $3
		v = r >= 1 / 1.05 ? "met" : $4 <= $6 ? "a tie at the ceiling" : "**not met**"
		printf "| pipebench --pipeline `%s`: ≥ 0.95x the speed alone | %.3fx (ceiling %.3fx) | %s |\n", p, r, $2 / $5, v
	}' "$tmp/meter.txt"
	verdict_row "pipebench relay: ≥ 5x pipebench 0.40" pb-splice '^pipebench' 5.0
	# The length curve: its worst point, ours over the faster GNU's time.
	[ -s "$tmp/curve.tsv" ] && awk -F '\t' '
		!($4 in w) { order[++n] = $4 }
		!($4 in w) || $3 > w[$4] { w[$4] = $3; at[$4] = $1; l[$4] = $2 }
		END { for (i = 1; i <= n; i++) { p = order[i]
			printf "| yes | head -c N, every N of 16 KiB to 64 MiB (1.5x steps)%s: ≤ 1.05x the faster GNU'"'"'s time | %.3fx at %d (`%s`) | %s |\n",
			p == "free" ? "" : ", placement " p, w[p], at[p], l[p] == "y" ? "yes" : "yes a", w[p] <= 1.05 ? "met" : "**not met**" } }' "$tmp/curve.tsv"
	# Short pipelines: the best peer's median time over ours, met at
	# 1.0x; a tie where ours' first quartile is within that peer's third.
	[ -s "$tmp/short.tsv" ] && awk -F '\t' '{
		r = $6 / $2
		v = r >= 1.0 ? "met" : $3 <= $7 ? "tie" : "**not met**"
		printf "| short: %s: ≥ 1.0x best peer (median times) | %.2fx (%s) | %s |\n", $1, r, $5, v
	}' "$tmp/short.tsv"
	[ -s "$tmp/short-rss.tsv" ] && awk -F '\t' '
		{ rss[$1, $2] = $3; titles[$1] = 1 }
		END {
			t = "`yes | head -n1`"; o = rss[t, "fastio"]; g = rss[t, "gnu-9.1"]
			if (o && g) printf "| %s peak RSS: ≤ GNU 9.1 + 256 KiB | %d KiB, GNU 9.1 %d | %s |\n",
				t, o, g, (o <= g + 256 ? "met" : "**not met**")
			t = "`yes | head -c 4G`"; o = rss[t, "fastio"]; g = rss[t, "gnu-head"]
			if (o && g) printf "| %s peak RSS: ≤ GNU HEAD + 1024 KiB | %d KiB, GNU HEAD %d | %s |\n",
				t, o, g, (o <= g + 1024 ? "met" : "**not met**")
		}' "$tmp/short-rss.tsv"
	if [ -s "$tmp/rss.txt" ]; then
		awk '$1 == "fastio" { ours = $2 } $1 == "gnu-head" { gnu = $2 }
			END { if (ours && gnu) printf "| cat -n peak RSS: ≤ GNU HEAD + 1024 KiB | %d KiB, GNU HEAD %d | %s |\n",
				ours, gnu, (ours <= gnu + 1024 ? "met" : "**not met**") }' "$tmp/rss.txt"
	fi
	return 0
}

# What was measured, and where, opens the output: the commit as the run
# starts (the programs are built from it), the date, the machine.
described=$(git -C "$(dirname "$0")" describe --dirty --always 2>/dev/null || echo unknown)
stamp() {
	printf 'Run of `%s` (`git describe --dirty` as it started), %s.\n' \
		"$described" "$(date -u +%Y-%m-%d)"
	machine
}

# The workloads' tables, each under its own heading, after the verdict
# of the same run; a full run (make bench) replaces the lines between
# "<!-- bench:begin -->" and "<!-- bench:end -->" of UPDATE, a partial one
# (make bench-cat) goes to OUT (default bench-WORKLOADS.md here), never
# into UPDATE, whose verdict needs every table of one run.
full="short curve yes cat pipebench"
for w in "$@"; do
	"workload_$w" >"$tmp/$w.md"
done
{
	stamp
	if [ "$*" = "$full" ]; then
		printf '\n### Verdict\n'
		workload_verdict
	fi
	for w in "$@"; do
		printf '\n### %s\n' "$w"
		cat "$tmp/$w.md"
	done
} >"$tmp/run.md"
# Replace what lies between file's "<!-- NAME:begin -->" and
# "<!-- NAME:end -->" lines with the file text.
put_between() { # file name text
	awk -v f="$3" -v b="<!-- $2:begin -->" -v e="<!-- $2:end -->" '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$1" >"$tmp/put"
	cat "$tmp/put" >"$1"
}

if [ "$*" = "$full" ] && [ -n "${UPDATE:-}" ]; then
	put_between "$UPDATE" bench "$tmp/run.md"
	echo "bench.sh: $UPDATE rewritten from this run"
	# README's claims, from the same run (bench/claims.sh).
	readme=$(dirname "$UPDATE")/README.md
	if [ -f "$readme" ]; then
		sh "$(dirname "$0")/claims.sh" "$UPDATE" >"$tmp/claims.md"
		put_between "$readme" claims "$tmp/claims.md"
		echo "bench.sh: $readme's claims rewritten from this run"
	fi
else
	out=${OUT:-bench-$(echo "$*" | tr ' ' '-').md}
	cp "$tmp/run.md" "$out"
	cat "$out"
	echo "bench.sh: written to $out"
fi
