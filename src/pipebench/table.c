/* SPDX-License-Identifier: MIT */
/*
 * --compare's report: a Markdown table of each command's rates (mean and
 * standard deviation, median, extremes, the median time, the ratio to the
 * reference) on stdout and in --export-markdown, hyperfine's warnings on
 * stderr, the results as JSON with --json and, run by run, in
 * --export-json.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pipebench.h"
#include "prog.h"

const char *
pb_command_name(char **cmds, int i)
{
	return i < pb_opt->nnames ? pb_opt->names[i] : cmds[i];
}

/* A Markdown table cell: '|' escaped; commands as code. */
static void
cell(FILE *f, const char *s, int code)
{
	if (code)
		fputc('`', f);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	if (code)
		fputc('`', f);
}

struct row {
	struct pb_stats st;
	double time; /* median seconds */
};

static void
table(FILE *f, char **cmds, int n, int ref, const struct row *rows)
{
	char a[32], b[32], c[32], d[32], e[32];
	int i;

	fputs("| command | rate, mean ± σ (" PB_SI_LABEL ") | median | "
	      "min - max | time (median) | vs ",
	      f);
	cell(f, pb_opt->reference ? pb_command_name(cmds, ref) : "first", 0);
	fputs(" |\n|:--|--:|--:|--:|--:|--:|\n", f);
	for (i = 0; i < n; i++) {
		const struct pb_stats *s = &rows[i].st;
		double base = rows[ref].st.median;

		fputs("| ", f);
		cell(f, pb_command_name(cmds, i), i >= pb_opt->nnames);
		fprintf(f,
			" | %s ± %s %s/s | %s/s | %s - %s %s/s | %.3f s | "
			"%.2f |\n",
			pb_si_in(a, sizeof a, s->mean, s->mean),
			pb_si_in(b, sizeof b, s->sd, s->mean),
			pb_si_unit(s->mean), pb_si(c, sizeof c, s->median),
			pb_si_in(d, sizeof d, s->min, s->max),
			pb_si_in(e, sizeof e, s->max, s->max),
			pb_si_unit(s->max), rows[i].time,
			base > 0 ? s->median / base : 0);
	}
}

/* hyperfine's two warnings, on stderr after the table. */
static void
warnings(char **cmds, int n, const struct row *rows, const struct pb_run *runs)
{
	int i;

	for (i = 0; i < n; i++) {
		if (rows[i].st.slow_first)
			prog_warn(0,
				  "warning: %s: the first run was much slower "
				  "than the rest (%.3f s): caches not yet "
				  "filled? More --warmup runs may help",
				  pb_command_name(cmds, i),
				  runs[(size_t)i * pb_opt->runs].secs);
		else if (rows[i].st.outliers)
			prog_warn(0,
				  "warning: %s: statistical outliers among "
				  "the runs: another program busy meanwhile? "
				  "Compare on a quiet machine",
				  pb_command_name(cmds, i));
	}
}

/* Each run as --export-json has it. */
static void
json_runs(struct pb_json *j, const struct pb_run *r, unsigned n)
{
	unsigned k;

	pb_json_begin(j, "runs", '[');
	for (k = 0; k < n; k++, r++) {
		pb_json_begin(j, NULL, '{');
		pb_json_real(j, "rate", r->rate, 0);
		pb_json_real(j, "seconds", r->secs, 6);
		pb_json_u64(j, "bytes", r->bytes);
		if (WIFSIGNALED(r->wstatus))
			pb_json_u64(j, "signal",
				    (uint64_t)WTERMSIG(r->wstatus));
		else
			pb_json_u64(j, "exit_status",
				    (uint64_t)WEXITSTATUS(r->wstatus));
		pb_json_u64(j, "peak_rss_kb", (uint64_t)r->rss_kb);
		pb_json_end(j, '}');
	}
	pb_json_end(j, ']');
}

static void
json(FILE *f, char **cmds, int n, int ref, const struct row *rows,
     const struct pb_run *runs, int each_run)
{
	const unsigned per = pb_opt->runs;
	struct pb_json j;
	unsigned k;
	int i;

	pb_json_open(&j, f);
	pb_json_string(&j, "reference", pb_command_name(cmds, ref));
	pb_json_begin(&j, "results", '[');
	for (i = 0; i < n; i++) {
		const struct pb_stats *s = &rows[i].st;

		pb_json_begin(&j, NULL, '{');
		pb_json_string(&j, "command", cmds[i]);
		if (i < pb_opt->nnames)
			pb_json_string(&j, "name", pb_opt->names[i]);
		pb_json_real(&j, "median", s->median, 0);
		pb_json_real(&j, "min", s->min, 0);
		pb_json_real(&j, "max", s->max, 0);
		pb_json_real(&j, "ratio",
			     rows[ref].st.median > 0
				 ? s->median / rows[ref].st.median
				 : 0,
			     4);
		pb_json_begin(&j, "rates", '[');
		for (k = 0; k < per; k++)
			pb_json_real(&j, NULL, runs[(size_t)i * per + k].rate,
				     0);
		pb_json_end(&j, ']');
		pb_json_real(&j, "mean", s->mean, 0);
		pb_json_real(&j, "stddev", s->sd, 0);
		if (each_run)
			json_runs(&j, runs + (size_t)i * per, per);
		pb_json_end(&j, '}');
	}
	pb_json_end(&j, ']');
	pb_json_close(&j);
}

int
pb_report_comparison(char **cmds, int n, int ref, const struct pb_run *runs,
		     struct pb_export *json_out, struct pb_export *md)
{
	const unsigned per = pb_opt->runs;
	struct row *rows = calloc((size_t)n, sizeof *rows);
	double *rate = malloc(per * sizeof *rate),
	       *secs = malloc(per * sizeof *secs);
	unsigned k;
	int i, rc = 0;

	if (rows == NULL || rate == NULL || secs == NULL) {
		prog_warn(0, "memory exhausted");
		rc = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < per; k++) {
			rate[k] = runs[(size_t)i * per + k].rate;
			secs[k] = runs[(size_t)i * per + k].secs;
		}
		pb_stats(rate, secs, per, &rows[i].st);
		qsort(secs, per, sizeof *secs, pb_cmp_double);
		rows[i].time = pb_median(secs, per);
	}
	table(stdout, cmds, n, ref, rows);
	warnings(cmds, n, rows, runs);
	if (json_out->f != NULL)
		json(json_out->f, cmds, n, ref, rows, runs, 1);
	if (md->f != NULL)
		table(md->f, cmds, n, ref, rows);
	/* The exports' messages before --json's line: it comes last. */
	rc |= pb_export_commit(json_out) < 0;
	rc |= pb_export_commit(md) < 0;
	if (pb_opt->json)
		json(pb_status, cmds, n, ref, rows, runs, 0);
out:
	pb_export_abort(json_out);
	pb_export_abort(md);
	free(rows);
	free(rate);
	free(secs);
	return rc;
}
