#!/bin/sh
# SPDX-License-Identifier: MIT
# claims.sh [BENCHMARKS.md]: README's claims, from the verdict of the last
# run that BENCHMARKS.md records: the verdict's rows grouped by what they
# claim, each group's range of ratios and its count of targets met, tied
# and not met. make bench writes it into README.md, between
# "<!-- claims:begin -->" and "<!-- claims:end -->"; check_claims.sh
# fails when README's copy is not what the file's run gives, so a figure
# never outlives its run.
set -eu
file=${1:-BENCHMARKS.md}
sed -n '/^<!-- bench:begin -->/,/^<!-- bench:end -->/p' "$file" |
	sed -n '/^### Verdict/,/^[0-9]* targets:/p' | grep '^| ' | sed 1d |
	awk -F '|' '
	# The group a row belongs to, by its target text; "" for none.
	function group(t) {
		if (t ~ /^ yes → .*its ceiling/) return "3~`yes` into each reader, each placement, against its ceiling (bench/ceiling.c)~≥ 0.90x"
		if (t ~ /^ yes → /) return "2~`yes` into each reader (pipebench splicing and reading, dd, head -c, pv), each placement~≥ 0.95x best peer"
		if (t ~ /every N of 16 KiB/) return "4~`yes \\| head -c N`, every N from 16 KiB to 64 MiB (time)~≤ 1.05x faster GNU"
		if (t ~ /^ cat -. portable/) return "6~the same, the portable loops (every CPU but x86-64)~≥ 1.5x best peer"
		if (t ~ /^ cat -[a-zA-Z], /) return "5~`cat -n -b -s -v -A -E -T`, tmpfs and ext4~≥ 2x best peer"
		if (t ~ /^ cat (2 GB|file)/) return "7~plain `cat` of large files, into a pipe and file to file~≥ 1.0x best peer"
		if (t ~ /^ short: /) return "1~short pipelines: `yes \\| head -n1`, `yes n \\| rm -i`, `cat 20K \\| cat` ...~≥ 1.0x best peer"
		if (t ~ /peak RSS/) return "8~peak RSS of the producer of a short pipeline, and of `cat -n`~≤ GNU + 256 KiB to 1 MiB"
		if (t ~ /^ pipebench relay: .*pv/) return "9~pipebench'"'"'s relay against pv~≥ 2x"
		if (t ~ /^ pipebench relay: .*0\.40/) return "10~pipebench'"'"'s relay against pipebench 0.40~≥ 5x"
		if (t ~ /^ pipebench --pipeline /) return "11~`pipebench --pipeline`'"'"'s cost, each pipeline against itself alone~≥ 0.95x"
		if (t ~ /names .* as the slow stage/) return "12~the stage `--pipeline` names, in pipelines whose slow stage is known~every run"
		return ""
	}
	{
		v = $(NF - 1); cell = $(NF - 2); t = $2
		for (i = 3; i < NF - 2; i++) t = t "|" $i
		g = group(t)
		if (g == "") next
		n[g]++
		if (v ~ /not met/) no[g]++; else if (v ~ / met /) met[g]++; else tie[g]++
		if (match(cell, /[0-9.]+x/)) {
			r = substr(cell, RSTART, RLENGTH - 1) + 0
			if (!(g in lo) || r < lo[g]) lo[g] = r
			if (!(g in hi) || r > hi[g]) hi[g] = r
		} else if (match(cell, /[0-9]+ of [0-9]+/)) {
			of[g] = of[g] (of[g] == "" ? "" : ", ") substr(cell, RSTART, RLENGTH)
		}
	}
	END {
		print "| claim | target | ours / best | met, ties, not met |"
		print "|:--|:--|--:|--:|"
		for (k = 1; k <= 12; k++)
			for (g in n) {
				split(g, f, "~")
				if (f[1] != k) continue
				if (g in lo)
					range = lo[g] == hi[g] ? sprintf("%.2fx", lo[g]) : sprintf("%.2fx-%.2fx", lo[g], hi[g])
				else
					range = of[g] != "" ? of[g] : "see the table"
				printf "| %s | %s | %s | %d, %d, %d |\n", f[2], f[3], range, met[g], tie[g], no[g]
			}
	}'
