/* SPDX-License-Identifier: MIT */
/*
 * --pipeline's report: a table of the stages in 80 columns (the wide
 * one with --verbose), the stage that held the rest back and the
 * evidence (verdict.c), or the status of a pipeline that failed; the
 * same in --json and --export-csv, with each command whole.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/* What went into and out of stage i: a relay's bytes, or -1 unwatched. */
int64_t
pb_stage_bytes_in(const struct pb_pipeline *pl, int i)
{
	if (pl->watched)
		return pl->stage[i].io_in;
	return pl->relay[i].from >= 0
		   ? (int64_t)atomic_load(&pl->relay[i].bytes)
		   : -1;
}

int64_t
pb_stage_bytes_out(const struct pb_pipeline *pl, int i)
{
	off_t now;

	if (pl->watched)
		return pl->stage[i].io_out;
	/* The last stage wrote our file itself: its offset moved on. */
	if (i == pl->n - 1 && pl->out_at >= 0) {
		now = lseek(STDOUT_FILENO, 0, SEEK_CUR);
		return now >= pl->out_at ? (int64_t)(now - pl->out_at) : -1;
	}
	return pl->relay[i + 1].from >= 0
		   ? (int64_t)atomic_load(&pl->relay[i + 1].bytes)
		   : -1;
}

/* What stage i gave, or took where its output is not watched; -1: neither. */
static int64_t
moved(const struct pb_pipeline *pl, int i)
{
	return pb_stage_bytes_out(pl, i) >= 0 ? pb_stage_bytes_out(pl, i)
					      : pb_stage_bytes_in(pl, i);
}

/* Whether stage i's input is watched: a relay's pipe, or for the first
 * our standard input if it is a pipe (which the stage reads itself: its
 * bytes are not counted). */
static int
in_watched(const struct pb_pipeline *pl, int i)
{
	return pl->relay[i].from >= 0 || (i == 0 && pl->in_watch != -1);
}

/* A share of the looks, or -1 where the pipe is not watched. */
static double
in_full(const struct pb_pipeline *pl, int i)
{
	const struct pb_stage *st = &pl->stage[i];

	return !in_watched(pl, i) || st->samples == 0
		   ? -1
		   : (double)st->in_full / st->samples;
}

static double
out_empty(const struct pb_pipeline *pl, int i)
{
	const struct pb_stage *st = &pl->stage[i];

	return pl->relay[i + 1].from < 0 || st->samples == 0
		   ? -1
		   : (double)st->out_empty / st->samples;
}

static const char *
amount(char *buf, size_t size, int64_t v)
{
	return v < 0 ? "-" : pb_si(buf, size, (double)v);
}

/* A stage's status as a shell shows it: the exit status, or 128 + N. */
static int
shown_status(int w)
{
	return WIFSIGNALED(w) ? 128 + WTERMSIG(w) : WEXITSTATUS(w);
}

/*
 * The pipeline's status as bash's `set -o pipefail` gives it: the
 * rightmost stage that failed; 0 if none did.
 */
static int
pipefail_status(const struct pb_pipeline *pl)
{
	int i;

	for (i = pl->n - 1; i >= 0; i--)
		if (shown_status(pl->stage[i].wstatus) != 0)
			return shown_status(pl->stage[i].wstatus);
	return 0;
}

static double
cpu(const struct timeval *t)
{
	return (double)t->tv_sec + (double)t->tv_usec / 1e6;
}

static const char *
share(char *buf, size_t size, double v)
{
	if (v < 0)
		return "-";
	snprintf(buf, size, "%.0f%%", 100 * v);
	return buf;
}

/* The average rate into or out of a stage over its time, -1 where not
 * watched; rate(): what it gave, or took where its output is not. */
static double
per_second(int64_t bytes, double secs)
{
	return bytes >= 0 && secs > 0 ? (double)bytes / secs : -1;
}

static double
rate(const struct pb_pipeline *pl, int i)
{
	return per_second(moved(pl, i), pl->stage[i].secs);
}

/* A stage's status, "-" where --watch cannot know it. */
static const char *
status_cell(char *buf, size_t size, const struct pb_pipeline *pl, int i)
{
	if (pl->watched)
		return "-";
	snprintf(buf, size, "%d", shown_status(pl->stage[i].wstatus));
	return buf;
}

/* The share of the run in which stage i's own work held the rest. */
static double
busy(const struct pb_pipeline *pl, int i)
{
	return pl->looks > 0 ? pl->stage[i].held / pl->looks : -1;
}

/*
 * A command in width characters (a UTF-8 character one), padded to them
 * for a column: cut with an ellipsis, its newlines and tabs as spaces (the
 * JSON and the CSV have it whole).
 */
const char *
pb_column(char *out, size_t size, const char *text, int width, int pad)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t n = 0, last = 0;
	int cols = 0;

	while (*p && n + 4 < size) {
		if ((*p & 0xc0) != 0x80) {
			if (cols == width)
				break;
			cols++;
			last = n;
		}
		out[n++] = (char)(*p < 0x20 || *p == 0x7f ? ' ' : *p);
		p++;
	}
	if (*p && width > 1) {
		n = last;
		memcpy(out + n, "\xe2\x80\xa6", 3); /* the ellipsis */
		n += 3;
	}
	while (pad && cols++ < width && n + 1 < size)
		out[n++] = ' ';
	out[n] = '\0';
	return out;
}

static const char *
rate_cell(char *buf, size_t size, double v)
{
	return v < 0 ? "-" : pb_si(buf, size, v);
}

/* The 80-column table: each stage's bytes and rates in and out, its CPU
 * time, the share of the run its own work held the rest, its status. */
static void
table(const struct pb_pipeline *pl)
{
	char a[32], b[32], c[32], d[32], e[16], f[16], cmd[512];
	int i;

	fprintf(pb_status, "%2s %-19s %9s %9s %9s %9s %6s %4s %3s\n", "#",
		"Command", "In", "Out", "In/s", "Out/s", "CPU", "Busy", "St");
	for (i = 0; i < pl->n; i++) {
		const struct pb_stage *st = &pl->stage[i];

		fprintf(
		    pb_status, "%2d %s %9s %9s %9s %9s %5.1fs %4s %3s\n", i + 1,
		    pb_column(cmd, sizeof cmd, st->text, 19, 1),
		    amount(a, sizeof a, pb_stage_bytes_in(pl, i)),
		    amount(b, sizeof b, pb_stage_bytes_out(pl, i)),
		    rate_cell(c, sizeof c,
			      per_second(pb_stage_bytes_in(pl, i), st->secs)),
		    rate_cell(d, sizeof d,
			      per_second(pb_stage_bytes_out(pl, i), st->secs)),
		    cpu(&st->ru.ru_utime) + cpu(&st->ru.ru_stime),
		    share(e, sizeof e, busy(pl, i)),
		    status_cell(f, sizeof f, pl, i));
		if (st->note[0] != '\0')
			fprintf(pb_status, "   %s\n", st->note);
	}
	fputs("Sizes and rates: " PB_SI_LABEL "; --verbose for each stage's "
	      "times and pipes\n",
	      pb_status);
}

/* --verbose's wide table: each stage's times and how its pipes looked. */
static void
wide_table(const struct pb_pipeline *pl)
{
	char a[32], b[32], c[32], d[16], e[16], cmd[512];
	int i;

	fprintf(pb_status,
		"%-5s %-24s %11s %11s %13s %9s %8s %8s %7s %9s %6s\n", "Stage",
		"Command", "In", "Out", "Rate", "Wall", "User", "System",
		"In full", "Out empty", "Status");
	for (i = 0; i < pl->n; i++) {
		const struct pb_stage *st = &pl->stage[i];
		double r = rate(pl, i);

		fprintf(pb_status,
			"%5d %s %11s %11s %11s/s %8.3fs %7.3fs %7.3fs %7s "
			"%9s %6d\n",
			i + 1, pb_column(cmd, sizeof cmd, st->text, 24, 1),
			amount(a, sizeof a, pb_stage_bytes_in(pl, i)),
			amount(b, sizeof b, pb_stage_bytes_out(pl, i)),
			r < 0 ? "-" : pb_si(c, sizeof c, r), st->secs,
			cpu(&st->ru.ru_utime), cpu(&st->ru.ru_stime),
			share(d, sizeof d, in_full(pl, i)),
			share(e, sizeof e, out_empty(pl, i)),
			shown_status(st->wstatus));
	}
}

/*
 * The verdict's line: a pipeline that failed says so, its status being
 * what went wrong; else the stage whose own work set the time, with the
 * evidence, or the source outside.
 */
static void
verdict_line(const struct pb_pipeline *pl, int held, int status)
{
	char a[16], b[16], cmd[512];
	int i;

	if (status != 0) {
		for (i = pl->n - 1; i > 0; i--)
			if (shown_status(pl->stage[i].wstatus) != 0)
				break;
		fprintf(pb_status, "Failed: status %d, stage %d, %s\n", status,
			i + 1,
			pb_column(cmd, sizeof cmd, pl->stage[i].text, 32, 0));
		return;
	}
	if (held < 0) {
		fputs("Held back by: none: the source is the limit\n",
		      pb_status);
		return;
	}
	fprintf(pb_status, "Held back by: stage %d, %s: %s of the run %s",
		held + 1,
		pb_column(cmd, sizeof cmd, pl->stage[held].text, 32, 0),
		share(a, sizeof a, busy(pl, held)),
		pb_verdict_kind(&pl->stage[held]));
	if (in_full(pl, held) >= 0)
		fprintf(pb_status, ", its input full %s",
			share(b, sizeof b, in_full(pl, held)));
	fputc('\n', pb_status);
}

/* A share or a count for JSON: null where the pipe is not watched. */
static void
json_or_null(struct pb_json *j, const char *key, double v, int decimals)
{
	if (v >= 0)
		pb_json_real(j, key, v, decimals);
	else
		pb_json_null(j, key);
}

static void
json(const struct pb_pipeline *pl, int held, int status)
{
	struct pb_json j;
	int i;

	pb_json_open(&j, pb_status);
	pb_json_begin(&j, "stages", '[');
	for (i = 0; i < pl->n; i++) {
		const struct pb_stage *st = &pl->stage[i];

		pb_json_begin(&j, NULL, '{');
		pb_json_u64(&j, "stage", (uint64_t)i + 1);
		pb_json_string(&j, "command", st->text);
		json_or_null(&j, "bytes_in", (double)pb_stage_bytes_in(pl, i),
			     0);
		json_or_null(&j, "bytes_out", (double)pb_stage_bytes_out(pl, i),
			     0);
		json_or_null(&j, "rate", rate(pl, i), 0);
		json_or_null(&j, "rate_in",
			     per_second(pb_stage_bytes_in(pl, i), st->secs), 0);
		json_or_null(&j, "rate_out",
			     per_second(pb_stage_bytes_out(pl, i), st->secs),
			     0);
		pb_json_real(&j, "seconds", st->secs, 6);
		pb_json_real(&j, "user", cpu(&st->ru.ru_utime), 6);
		pb_json_real(&j, "system", cpu(&st->ru.ru_stime), 6);
		json_or_null(&j, "input_full", in_full(pl, i), 4);
		json_or_null(&j, "output_empty", out_empty(pl, i), 4);
		json_or_null(&j, "busy", busy(pl, i), 4);
		if (pl->watched) /* not our child: its status unknown */
			pb_json_null(&j, "status");
		else
			pb_json_u64(&j, "status",
				    (uint64_t)shown_status(st->wstatus));
		pb_json_end(&j, '}');
	}
	pb_json_end(&j, ']');
	if (held >= 0)
		pb_json_u64(&j, "held_back_by", (uint64_t)held + 1);
	else
		pb_json_u64(&j, "held_back_by", 0);
	if (pl->watched)
		pb_json_null(&j, "status");
	else
		pb_json_u64(&j, "status", (uint64_t)status);
	pb_json_close(&j);
}

/* A CSV field: quoted, its quotes doubled. */
static void
csv_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
csv_number(FILE *f, double v, int decimals)
{
	if (v >= 0)
		fprintf(f, ",%.*f", decimals, v);
	else
		fputc(',', f);
}

static int
csv(const struct pb_pipeline *pl, int held, struct pb_export *e)
{
	int i;

	if (e == NULL || e->f == NULL)
		return 0;
	fputs("stage,command,bytes_in,bytes_out,rate,seconds,user,system,"
	      "input_full,output_empty,status,held_back,busy\n",
	      e->f);
	for (i = 0; i < pl->n; i++) {
		const struct pb_stage *st = &pl->stage[i];

		fprintf(e->f, "%d,", i + 1);
		csv_text(e->f, st->text);
		csv_number(e->f, (double)pb_stage_bytes_in(pl, i), 0);
		csv_number(e->f, (double)pb_stage_bytes_out(pl, i), 0);
		csv_number(e->f, rate(pl, i), 0);
		csv_number(e->f, st->secs, 6);
		csv_number(e->f, cpu(&st->ru.ru_utime), 6);
		csv_number(e->f, cpu(&st->ru.ru_stime), 6);
		csv_number(e->f, in_full(pl, i), 4);
		csv_number(e->f, out_empty(pl, i), 4);
		if (pl->watched)
			fprintf(e->f, ",,%d", i == held);
		else
			fprintf(e->f, ",%d,%d", shown_status(st->wstatus),
				i == held);
		csv_number(e->f, busy(pl, i), 4);
		fputc('\n', e->f);
	}
	return pb_export_commit(e);
}

int
pb_pipeline_report(const struct pb_pipeline *pl, struct pb_export *e)
{
	int held = pb_verdict(pl), rc = pipefail_status(pl), i;

	/* `! a | b`: bash negates the pipeline's status. */
	if (pl->negate)
		rc = rc == 0;

	for (i = 0; i <= pl->n; i++)
		if (pl->relay[i].err != 0) {
			prog_warn(pl->relay[i].err, "%s",
				  pl->relay[i].side == FIO_SIDE_OUTPUT
				      ? "write error"
				      : "read error");
			/* Our own output failed: the last stage died of the
			 * SIGPIPE that made, where in a shell it would have met
			 * the error itself and failed with 1. */
			if (rc == 0 || i == pl->n)
				rc = EXIT_FAILURE;
		}
	/* Our own report lost (the file said) leaves the stages' status as
	 * it is; the JSON comes last, where a script takes it. */
	/* A failed pipeline's report is its status, not a bottleneck. */
	if (rc != 0)
		held = -1;
	(void)csv(pl, held, e);
	if (!pb_opt->no_summary) {
		if (pb_opt->verbose)
			wide_table(pl);
		else
			table(pl);
		verdict_line(pl, held, rc);
	}
	if (pb_opt->json)
		json(pl, held, rc);
	return rc;
}
