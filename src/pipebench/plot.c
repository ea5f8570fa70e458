/* SPDX-License-Identifier: MIT */
/*
 * --plot: the rate samples as a chart on the terminal, so that a stall or
 * a warm-up ramp shows at a glance; --export-csv: the same samples for
 * real plotting tools.
 */
#include "config.h"

#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipebench.h"

#define ROWS  8	 /* rows of the chart, eight levels each */
#define LABEL 13 /* "  1.20 GB/s " */

/*
 * The chart of n samples, width columns in all: a column per sample, or
 * per bucket of samples (their mean) when they do not fit; the top row
 * labelled with the highest rate, a line of seconds below. Block
 * characters in eighths in a UTF-8 locale, '.' and '#' otherwise.
 */
void
pb_plot(FILE *f, const struct pb_sample *s, size_t n, size_t width, int utf8)
{
	static const char *const blocks[] = {"▁", "▂", "▃", "▄",
					     "▅", "▆", "▇", "█"};
	size_t cols, c, i, from, to;
	double *v, top = 0;
	char a[32], label[LABEL + 8];
	int row, level;

	if (n == 0) {
		fputs("(no rate samples: the run took less than 0.1 s)\n", f);
		return;
	}
	cols = width > LABEL + 11 ? width - LABEL - 1 : 10;
	if (cols > n)
		cols = n;
	v = calloc(cols, sizeof *v);
	if (v == NULL)
		return;
	for (c = 0; c < cols; c++) {
		from = c * n / cols;
		to = (c + 1) * n / cols;
		for (i = from; i < to; i++)
			v[c] += s[i].rate;
		v[c] /= (double)(to - from);
		if (v[c] > top)
			top = v[c];
	}
	for (row = ROWS - 1; row >= 0; row--) {
		const char *t = pb_si(a, sizeof a, top);

		if (row == ROWS - 1)
			snprintf(label, sizeof label, "%*s/s ", LABEL - 3, t);
		else
			snprintf(label, sizeof label, "%*s", LABEL, "");
		fputs(label, f);
		fputs(utf8 ? "│" : "|", f);
		for (c = 0; c < cols; c++) {
			level = top > 0 ? (int)(v[c] / top * ROWS * 8 + 0.5) -
					      row * 8
					: 0;
			if (level <= 0)
				fputc(' ', f);
			else if (utf8)
				fputs(blocks[level > 8 ? 7 : level - 1], f);
			else
				fputc(level >= 8 ? '#' : '.', f);
		}
		fputc('\n', f);
	}
	fprintf(f, "%*s%s", LABEL, "", utf8 ? "└" : "+");
	for (c = 0; c < cols; c++)
		fputs(utf8 ? "─" : "-", f);
	snprintf(a, sizeof a, "%.1fs", s[n - 1].at);
	fprintf(f, "\n%*s0s%*s\n", LABEL, "", (int)cols - 1, a);
	free(v);
}

int
pb_samples_out(const struct pb_transfer *r, struct pb_export *csv)
{
	size_t n, i;
	struct pb_sample *s = pb_samples(r, &n);

	if (s == NULL)
		return 1;
	if (pb_opt->plot)
		pb_plot(pb_status, s, n, pb_columns(pb_status),
			strcmp(nl_langinfo(CODESET), "UTF-8") == 0);
	if (csv->f != NULL) {
		fputs("seconds,bytes,rate\n", csv->f);
		for (i = 0; i < n; i++)
			fprintf(csv->f, "%.3f,%llu,%.0f\n", s[i].at,
				(unsigned long long)s[i].bytes, s[i].rate);
	}
	free(s);
	return pb_export_commit(csv) < 0;
}
