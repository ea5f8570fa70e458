/* SPDX-License-Identifier: MIT */
/*
 * --pipeline's (and --watch's) live view: a line a stage, its bytes in
 * and out and their rates now, and what it reads from a file. On a terminal the
 * lines keep the bottom rows, below a scrolling region that holds
 * everything else (what the stages write to the same terminal scrolls
 * there, never under our lines); a frame is one write, drawn where the
 * cursor is not, which it leaves where it was; the view follows the
 * terminal's width and height. Elsewhere, with --progress, a frame a
 * second, each line stamped with the seconds since the start, as a log
 * can hold them.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pipebench.h"

static struct {
	int on, tty, rows, cols, lines; /* lines: the rows we hold */
	double next;			/* off a terminal: the next frame */
	FILE *f;
} view;

/* The rows and columns of our terminal; 0 where unknown. */
static void
size_of(int *rows, int *cols)
{
	struct winsize w;

	*rows = *cols = 0;
	if (ioctl(fileno(view.f), TIOCGWINSZ, &w) == 0) {
		*rows = w.ws_row;
		*cols = w.ws_col;
	}
}

/*
 * Hold the bottom lines: make room below the cursor, then a scrolling
 * region above them, the cursor kept (setting a region homes it). After
 * what first, in the same write: stderr is unbuffered, and a stage's
 * line written between our newlines and our move back up would be
 * under the cursor we restore, and overwritten by the next.
 */
static void
hold(int n, const char *first)
{
	char out[PB_MAX_STAGES + 128];
	size_t len;
	int i;

	size_of(&view.rows, &view.cols);
	len = (size_t)snprintf(out, sizeof out, "%s", first);
	if (view.rows < n + 3 || view.cols < 20) {
		view.lines = 0;
	} else {
		view.lines = n;
		for (i = 0; i < n; i++)
			out[len++] = '\n';
		snprintf(out + len, sizeof out - len,
			 "\033[%dA\0337\033[1;%dr\0338", n, view.rows - n);
	}
	fputs(out, view.f);
	fflush(view.f);
}

int
pb_view_setup(struct pb_pipeline *pl)
{
	view.f = pb_status;
	view.tty = isatty(fileno(view.f));
	view.on = !pb_opt->quiet && (view.tty || pb_opt->progress);
	if (view.on && view.tty)
		hold(pl->n, "");
	view.next = 0;
	return view.on;
}

/* Bytes moved so far, "-" where not watched. */
static const char *
bytes(char *buf, size_t size, int64_t n)
{
	if (n < 0)
		return "-";
	return pb_si(buf, size, (double)n);
}

/* A rate of bytes moved since the last frame, "-" where not watched. */
static const char *
rate_now(char *buf, size_t size, int64_t n, int64_t before, double step)
{
	char b[32];

	if (n < 0 || step <= 0)
		return "-";
	snprintf(buf, size, "%s/s",
		 pb_si(b, sizeof b, (double)(n - before) / step));
	return buf;
}

static void
frame(struct pb_pipeline *pl, double secs, char *out, size_t size)
{
	char cmd[512], line[1024], a[32], b[32], c[32], d[32], stamp[32] = "";
	int i, width = view.tty && view.cols > 0 ? view.cols : 80;
	size_t n = 0;
	double s, step;

	if (view.tty)
		n += (size_t)snprintf(out, size, "\0337");
	else
		snprintf(stamp, sizeof stamp, "[%8.1fs] ", secs);
	for (i = 0; i < pl->n && (!view.tty || i < view.lines); i++) {
		struct pb_stage *st = &pl->stage[i];
		int64_t in = pb_stage_bytes_in(pl, i),
			outb = pb_stage_bytes_out(pl, i);

		s = atomic_load(&st->running) ? secs : st->secs;
		step = s - st->drawn_at;
		pb_column(cmd, sizeof cmd, st->text, 22, 1);
		snprintf(line, sizeof line,
			 "%s%2d %s in %9s %11s  out %9s %11s  %s", stamp, i + 1,
			 cmd, bytes(a, sizeof a, in),
			 rate_now(b, sizeof b, in, st->drawn_in, step),
			 bytes(c, sizeof c, outb),
			 rate_now(d, sizeof d, outb, st->drawn_bytes, step),
			 st->note);
		/* No wider than the terminal: a line that wraps would push
		 * the next one off our rows. */
		pb_column(line, sizeof line, line, view.tty ? width - 1 : 400,
			  0);
		if (view.tty)
			n += (size_t)snprintf(out + n, size - n, "\033[%d;1H",
					      view.rows - view.lines + 1 + i);
		n += (size_t)snprintf(out + n, size - n, "%s%s", line,
				      view.tty ? "\033[K" : "\n");
		st->drawn_in = in;
		st->drawn_bytes = outb;
		st->drawn_at = s;
		if (n + 600 > size)
			break;
	}
	if (view.tty)
		n += (size_t)snprintf(out + n, size - n, "\0338");
	out[n] = '\0';
}

void
pb_view_frame(struct pb_pipeline *pl, int last)
{
	static char out[PB_MAX_STAGES * 640 + 64];
	struct timespec now;
	int rows, cols;
	double secs;

	if (!view.on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = pb_seconds(&pl->start, &now);
	if (!view.tty) {
		/* A frame a second, and the last. */
		if (!last && secs < view.next)
			return;
		view.next = secs + 1;
	} else {
		size_of(&rows, &cols);
		if (rows != view.rows || cols != view.cols) {
			/* Resized: the region again, for the new size. */
			hold(pl->n, "\0337\033[r\0338");
		}
		if (view.lines == 0)
			return;
	}
	frame(pl, secs, out, sizeof out);
	fputs(out, view.f);
	fflush(view.f);
}

void
pb_view_end(struct pb_pipeline *pl)
{
	if (!view.on)
		return;
	pb_view_frame(pl, 1);
	if (view.tty && view.lines > 0) {
		char out[PB_MAX_STAGES * 16 + 16] = "\0337\033[r";
		size_t n = strlen(out);
		int i;

		/* The whole screen scrolls again; our rows cleared and the
		 * cursor where the stages left it, so that the table follows
		 * their last line. One write, as in hold(). */
		for (i = 0; i < view.lines; i++)
			n += (size_t)snprintf(out + n, sizeof out - n,
					      "\033[%d;1H\033[K",
					      view.rows - view.lines + 1 + i);
		snprintf(out + n, sizeof out - n, "\0338");
		fputs(out, view.f);
		fflush(view.f);
	}
	view.on = 0;
}
