/* SPDX-License-Identifier: MIT */
/*
 * --pipeline's report: a line a stage while the bytes flow (on a
 * terminal, or with --progress), then a table of the stages, the one
 * that held the rest back, and the same in --json and --export-csv.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/*
 * A stage held the rest back when its input was full and its output
 * empty in more than this share of the looks while it ran: it took less
 * than the stages before it gave and gave less than the ones after took.
 */
#define PB_HELD_BACK 0.5

/* What went into and out of stage i: a relay's bytes, or -1 unwatched. */
static int64_t
bytes_in(const struct pb_pipeline *pl, int i)
{
	return pl->relay[i].from >= 0
		   ? (int64_t)atomic_load(&pl->relay[i].bytes)
		   : -1;
}

static int64_t
bytes_out(const struct pb_pipeline *pl, int i)
{
	off_t now;

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
	return bytes_out(pl, i) >= 0 ? bytes_out(pl, i) : bytes_in(pl, i);
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

/*
 * The stage that held the rest back: its input usually full and its
 * output usually empty (or not watched: the last stage on a terminal);
 * of several, the one most so. -1: none, the source is the limit.
 */
static int
bottleneck(const struct pb_pipeline *pl)
{
	double full, empty, score, best = 0;
	int i, at = -1;

	for (i = 0; i < pl->n; i++) {
		full = in_full(pl, i);
		empty = out_empty(pl, i);
		if (full <= PB_HELD_BACK ||
		    (empty >= 0 && empty <= PB_HELD_BACK))
			continue;
		score = empty < 0 ? full : full < empty ? full : empty;
		if (score > best) {
			best = score;
			at = i;
		}
	}
	return at;
}

/* Whether descriptors a and b are the same terminal. */
static int
same_terminal(int a, int b)
{
	struct stat x, y;

	return isatty(a) && isatty(b) && fstat(a, &x) == 0 &&
	       fstat(b, &y) == 0 && x.st_rdev == y.st_rdev;
}

/*
 * The live lines, on a terminal or with --progress; never on the
 * terminal the last stage writes to, where moving the cursor up to draw
 * them again would write over what the stage printed.
 */
int
pb_pipeline_display(void)
{
	const struct pb_options *opt = pb_opt;

	if (opt->quiet || same_terminal(STDOUT_FILENO, fileno(pb_status)))
		return 0;
	return opt->progress || isatty(fileno(pb_status));
}

static const char *
amount(char *buf, size_t size, int64_t v)
{
	return v < 0 ? "-" : pb_si(buf, size, (double)v);
}

/* How full a watched pipe is now, "-" for one not watched. */
static const char *
fill(char *buf, size_t size, int watched, int queued, size_t capacity)
{
	if (!watched || capacity == 0)
		return "-";
	snprintf(buf, size, "%d%%", (int)(100 * (size_t)queued / capacity));
	return buf;
}

/*
 * A line a stage: its bytes out (in for the last), its rate since the
 * last frame and on average, and how full the pipes into and out of it
 * are now. On a terminal the lines are drawn over the last ones.
 */
void
pb_pipeline_draw(struct pb_pipeline *pl, int again)
{
	int tty = isatty(fileno(pb_status)), i;
	char a[32], b[32], c[32], d[16], e[16];
	struct timespec now;
	double secs, s, step;
	int64_t bytes;

	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = pb_seconds(&pl->start, &now);
	if (again && tty)
		fprintf(pb_status, "\033[%dA", pl->n);
	for (i = 0; i < pl->n; i++) {
		struct pb_stage *st = &pl->stage[i];

		s = atomic_load(&st->running) ? secs : st->secs;
		bytes = moved(pl, i);
		step = s - st->drawn_at;
		fprintf(pb_status,
			"%s%2d %-22.22s %10s %10s/s %10s/s avg  in %4s  out "
			"%4s%s\n",
			tty ? "\r" : "", i + 1, st->text,
			amount(a, sizeof a, bytes),
			bytes >= 0 && step > 0
			    ? pb_si(b, sizeof b,
				    (double)(bytes - st->drawn_bytes) / step)
			    : "-",
			bytes >= 0 && s > 0
			    ? pb_si(c, sizeof c, (double)bytes / s)
			    : "-",
			fill(d, sizeof d, in_watched(pl, i), st->in_queued,
			     pl->relay[i].size),
			fill(e, sizeof e, pl->relay[i + 1].from >= 0,
			     st->out_queued, pl->relay[i + 1].in.pipe_size),
			tty ? "\033[K" : "");
		st->drawn_bytes = bytes;
		st->drawn_at = s;
	}
	fflush(pb_status);
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

/* The average rate of stage i: what it gave (or took) over its time. */
static double
rate(const struct pb_pipeline *pl, int i)
{
	int64_t bytes = moved(pl, i);

	return bytes >= 0 && pl->stage[i].secs > 0
		   ? (double)bytes / pl->stage[i].secs
		   : -1;
}

static void
table(const struct pb_pipeline *pl, int held)
{
	char a[32], b[32], c[32], d[16], e[16];
	int i;

	fprintf(pb_status,
		"%-5s %-24s %11s %11s %13s %9s %8s %8s %7s %9s %6s\n", "Stage",
		"Command", "In", "Out", "Rate", "Wall", "User", "System",
		"In full", "Out empty", "Status");
	for (i = 0; i < pl->n; i++) {
		const struct pb_stage *st = &pl->stage[i];
		double r = rate(pl, i);

		fprintf(pb_status,
			"%5d %-24.24s %11s %11s %11s/s %8.3fs %7.3fs %7.3fs "
			"%7s %9s %6d\n",
			i + 1, st->text, amount(a, sizeof a, bytes_in(pl, i)),
			amount(b, sizeof b, bytes_out(pl, i)),
			r < 0 ? "-" : pb_si(c, sizeof c, r), st->secs,
			cpu(&st->ru.ru_utime), cpu(&st->ru.ru_stime),
			share(d, sizeof d, in_full(pl, i)),
			share(e, sizeof e, out_empty(pl, i)),
			shown_status(st->wstatus));
	}
	fputs("Sizes and rates: " PB_SI_LABEL "\n", pb_status);
	if (held < 0)
		fputs("Held back by: none: the source is the limit\n",
		      pb_status);
	else
		fprintf(pb_status,
			"Held back by: stage %d, %s (its input full %s of its "
			"time, its output empty %s)\n",
			held + 1, pl->stage[held].text,
			share(d, sizeof d, in_full(pl, held)),
			share(e, sizeof e, out_empty(pl, held)));
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
		json_or_null(&j, "bytes_in", (double)bytes_in(pl, i), 0);
		json_or_null(&j, "bytes_out", (double)bytes_out(pl, i), 0);
		json_or_null(&j, "rate", rate(pl, i), 0);
		pb_json_real(&j, "seconds", st->secs, 6);
		pb_json_real(&j, "user", cpu(&st->ru.ru_utime), 6);
		pb_json_real(&j, "system", cpu(&st->ru.ru_stime), 6);
		json_or_null(&j, "input_full", in_full(pl, i), 4);
		json_or_null(&j, "output_empty", out_empty(pl, i), 4);
		pb_json_u64(&j, "status", (uint64_t)shown_status(st->wstatus));
		pb_json_end(&j, '}');
	}
	pb_json_end(&j, ']');
	if (held >= 0)
		pb_json_u64(&j, "held_back_by", (uint64_t)held + 1);
	else
		pb_json_u64(&j, "held_back_by", 0);
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

	if (e->f == NULL)
		return 0;
	fputs("stage,command,bytes_in,bytes_out,rate,seconds,user,system,"
	      "input_full,output_empty,status,held_back\n",
	      e->f);
	for (i = 0; i < pl->n; i++) {
		const struct pb_stage *st = &pl->stage[i];

		fprintf(e->f, "%d,", i + 1);
		csv_text(e->f, st->text);
		csv_number(e->f, (double)bytes_in(pl, i), 0);
		csv_number(e->f, (double)bytes_out(pl, i), 0);
		csv_number(e->f, rate(pl, i), 0);
		csv_number(e->f, st->secs, 6);
		csv_number(e->f, cpu(&st->ru.ru_utime), 6);
		csv_number(e->f, cpu(&st->ru.ru_stime), 6);
		csv_number(e->f, in_full(pl, i), 4);
		csv_number(e->f, out_empty(pl, i), 4);
		fprintf(e->f, ",%d,%d\n", shown_status(st->wstatus), i == held);
	}
	return pb_export_commit(e);
}

int
pb_pipeline_report(const struct pb_pipeline *pl, struct pb_export *e)
{
	int held = bottleneck(pl), rc = pipefail_status(pl), i;

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
	(void)csv(pl, held, e);
	if (!pb_opt->no_summary)
		table(pl, held);
	if (pb_opt->json)
		json(pl, held, rc);
	return rc;
}
