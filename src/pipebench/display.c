/* SPDX-License-Identifier: MIT */
/*
 * What pipebench shows while data flows: pipebench 0.40's running line
 * (on a non-terminal and in -s/-S files), its -r rates, our -p line, and
 * on a terminal a progress display redrawn in place up to 10 times a
 * second, sized to the terminal.
 */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "pipebench.h"

enum show { SHOW_NONE, SHOW_RAW, SHOW_HABETS, SHOW_LINE, SHOW_BAR };

static enum show show;
static size_t drawn; /* columns of the last frame on the terminal */
static volatile sig_atomic_t resized;

static void
on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

int
pb_display_setup(void)
{
	const struct pb_options *opt = pb_opt;
	int tty = !opt->status_file && isatty(fileno(pb_status));
	struct sigaction sa;

	show = opt->quiet      ? SHOW_NONE
	       : opt->raw      ? SHOW_RAW
	       : tty	       ? SHOW_BAR
	       : opt->progress ? SHOW_LINE
			       : SHOW_HABETS;
	drawn = 0;
	if (show == SHOW_BAR) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_winch;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGWINCH, &sa, NULL);
	}
	return show != SHOW_NONE;
}

/* Every tick the bar, every second the lines. */
int
pb_display_every_tick(void)
{
	return show == SHOW_BAR;
}

/* "hh:mm:ss", hours unbounded. */
static const char *
clock_of(char *buf, size_t size, int64_t usec)
{
	long long s = (long long)(usec / 1000000);

	snprintf(buf, size, "%02lld:%02lld:%02lld", s / 3600, s / 60 % 60,
		 s % 60);
	return buf;
}

size_t
pb_columns(FILE *f)
{
	struct winsize w;

	if (ioctl(fileno(f), TIOCGWINSZ, &w) == 0 && w.ws_col > 0)
		return w.ws_col;
	return 80;
}

/*
 * The terminal's frame: with a known size "42% [=====>    ] 1.20 GB
 * 3.45 GB/s ETA 00:00:12", else "1.20 GB 3.45 GB/s 00:00:12"; at most one
 * column short of the width (a full line would wrap), the bar taking what
 * the text leaves.
 */
static size_t
frame_of(char *out, size_t width, uint64_t size, uint64_t bytes, int64_t usec)
{
	char a[32], b[32], c[32], text[160];
	double avg = usec > 0 ? (double)bytes * 1e6 / (double)usec : 0;
	size_t n, bar, fill, i;
	unsigned pct;

	if (width > 512)
		width = 512;
	if (width > 0)
		width--;
	if (size == 0) {
		n = (size_t)snprintf(text, sizeof text, "%s %s/s %s",
				     pb_si(a, sizeof a, (double)bytes),
				     pb_si(b, sizeof b, avg),
				     clock_of(c, sizeof c, usec));
		n = n < width ? n : width;
		memcpy(out, text, n);
		return n;
	}
	pct = bytes >= size ? 100 : (unsigned)(100 * (double)bytes / size);
	n = (size_t)snprintf(
	    text, sizeof text, " %s %s/s ETA %s",
	    pb_si(a, sizeof a, (double)bytes), pb_si(b, sizeof b, avg),
	    clock_of(c, sizeof c,
		     avg > 0 && bytes < size
			 ? (int64_t)((double)(size - bytes) / avg * 1e6)
			 : 0));
	/* "100% [" and "]" around the bar; ten columns at the least. */
	if (width < n + 7 + 10) {
		n = (size_t)snprintf(out, width + 1, "%3u%%%s", pct, text);
		return n < width ? n : width;
	}
	bar = width - n - 7;
	fill = (size_t)((double)bar * pct / 100);
	i = (size_t)sprintf(out, "%3u%% [", pct);
	memset(out + i, '=', fill);
	if (fill < bar)
		out[i + fill++] = '>';
	memset(out + i + fill, ' ', bar - fill);
	i += bar;
	out[i++] = ']';
	memcpy(out + i, text, n);
	return i + n;
}

static void
draw(const struct pb_transfer *r, int64_t usec, uint64_t bytes)
{
	char frame[520];
	size_t n = frame_of(frame, pb_columns(pb_status), r->size, bytes, usec);

	/*
	 * After a resize (SIGWINCH) the last frame may have wrapped: the new
	 * one starts on a line of its own. Else it overwrites the last,
	 * blanking what a longer one left.
	 */
	if (resized) {
		resized = 0;
		if (drawn > 0)
			fputc('\n', pb_status);
		drawn = 0;
	}
	fprintf(pb_status, "\r%.*s%*s", (int)n, frame,
		(int)(drawn > n ? drawn - n : 0), "");
	drawn = n;
	fflush(pb_status);
}

/* The running line: Habets' format, or ours with -p. */
static void
line(const struct pb_transfer *r, int64_t usec, uint64_t bytes, uint64_t speed)
{
	char a[32], b[32], c[32], d[32];
	time_t now = time(NULL);
	struct tm tm;
	double avg = usec > 0 ? (double)bytes * 1e6 / (double)usec : 0, left;
	char end = pb_opt->status_file ? '\n' : '\r';

	if (show == SHOW_HABETS) {
		localtime_r(&now, &tm);
		strftime(d, sizeof d, "%a %b %e %H:%M:%S %Y", &tm);
		fprintf(pb_status, "%s: %s %s/second (%s)%c",
			pb_duration(a, sizeof a, usec),
			pb_amount(b, sizeof b, bytes),
			pb_amount(c, sizeof c, speed), d, end);
		return;
	}
	fprintf(pb_status, "%s: %s %s/second now, %s/second average",
		pb_duration(a, sizeof a, usec), pb_amount(b, sizeof b, bytes),
		pb_amount(c, sizeof c, speed),
		pb_amount(d, sizeof d, (uint64_t)avg));
	if (r->size && avg > 0) {
		left = bytes < r->size ? (double)(r->size - bytes) : 0;
		fprintf(pb_status, ", %3d%%, ETA %s",
			(int)(100.0 * (double)bytes / (double)r->size),
			pb_duration(a, sizeof a, (int64_t)(left / avg * 1e6)));
	}
	fputc(end, pb_status);
}

void
pb_display(const struct pb_transfer *r, int64_t usec, uint64_t bytes,
	   uint64_t speed)
{
	switch (show) {
	case SHOW_RAW:
		fprintf(pb_status, "%llu\n", (unsigned long long)speed);
		break;
	case SHOW_HABETS:
	case SHOW_LINE:
		line(r, usec, bytes, speed);
		break;
	case SHOW_BAR:
		draw(r, usec, bytes);
		break;
	default:
		return;
	}
	fflush(pb_status);
}

/* The terminal keeps the last frame, complete, on a line of its own. */
void
pb_display_end(const struct pb_transfer *r)
{
	if (show != SHOW_BAR)
		return;
	draw(r, pb_usec(&r->end) - pb_usec(&r->start), r->bytes);
	fputc('\n', pb_status);
	signal(SIGWINCH, SIG_DFL);
}
