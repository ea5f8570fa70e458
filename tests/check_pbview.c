/* SPDX-License-Identifier: MIT */
/*
 * pipebench's live view (src/pipebench/view.c) on a terminal shared
 * with the stages, as a user sees it: what comes out of the pty goes
 * through a small terminal (a grid of cells with a cursor, a scrolling
 * region, saved cursor, line erase and deferred wrap, as a VT100's), and
 * the terminal at the end still holds every line a stage wrote, whether
 * our stdout is a file or that terminal; each frame keeps to the rows
 * the view holds at the bottom and never wraps at the terminal's width,
 * before and after a resize. Off a terminal, --progress writes a frame
 * a second at most, each line stamped. The final table keeps 80
 * columns, whatever its commands hold.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "pipeline_runner.h"
#include "spawn.h"

#define ROWS 40
#define COLS 200

/* The terminal: what a VT100 does with the sequences we send. */
struct term {
	char cell[ROWS][COLS + 1];
	int rows, cols, r, c, top, bot, saved_r, saved_c;
	char history[200][COLS + 1]; /* what scrolled off the top */
	int lost;		     /* lines scrolled off */
	int in_frame, bad;	     /* bad: a frame drew outside its rows */
	int erases; /* lines erased: a frame's lines each end so */
	int held;   /* the rows a frame may draw in */
	int trust;  /* frames after a resize before checking */
	unsigned char esc[32];
	size_t esc_len;
};

static void
term_init(struct term *t, int rows, int cols, int held)
{
	memset(t, 0, sizeof *t);
	memset(t->cell, ' ', sizeof t->cell);
	t->rows = rows;
	t->cols = cols;
	t->bot = rows - 1;
	t->held = held;
}

static void
line_feed(struct term *t)
{
	if (t->r != t->bot) {
		if (t->r < t->rows - 1)
			t->r++;
		return;
	}
	if (t->top == 0 && t->lost < 200)
		memcpy(t->history[t->lost++], t->cell[0], sizeof t->cell[0]);
	memmove(t->cell[t->top], t->cell[t->top + 1],
		(size_t)(t->bot - t->top) * sizeof t->cell[0]);
	memset(t->cell[t->bot], ' ', COLS);
}

/* ESC [ a ; b X */
static void
csi(struct term *t, const char *s, char final)
{
	int a = 0, b = 0;

	sscanf(s, "%d;%d", &a, &b);
	switch (final) {
	case 'r':
		t->top = a > 0 ? a - 1 : 0;
		t->bot = b > 0 ? b - 1 : t->rows - 1;
		t->r = t->c = 0;
		break;
	case 'H':
		t->r = a > 0 ? a - 1 : 0;
		t->c = b > 0 ? b - 1 : 0;
		/* A frame draws in the rows it holds, nowhere else. */
		if (t->in_frame && t->trust == 0 && t->r < t->rows - t->held)
			t->bad++;
		break;
	case 'A':
		t->r -= a > 0 ? a : 1;
		if (t->r < 0)
			t->r = 0;
		break;
	case 'K':
		t->erases++;
		if (t->c < t->cols)
			memset(t->cell[t->r] + t->c, ' ',
			       (size_t)(t->cols - t->c));
		break;
	}
}

static void
term_put(struct term *t, const char *p, size_t n)
{
	for (; n > 0; p++, n--) {
		unsigned char ch = (unsigned char)*p;

		if (t->esc_len > 0) {
			if (t->esc_len < sizeof t->esc - 1)
				t->esc[t->esc_len++] = ch;
			if (t->esc[1] == '[' && (ch < 0x40 || t->esc_len == 2))
				continue;
			t->esc[t->esc_len] = '\0';
			if (t->esc[1] == '7') {
				t->saved_r = t->r;
				t->saved_c = t->c;
				t->in_frame = 1;
			} else if (t->esc[1] == '8') {
				t->r = t->saved_r;
				t->c = t->saved_c;
				if (t->in_frame && t->trust > 0)
					t->trust--;
				t->in_frame = 0;
			} else if (t->esc[1] == '[') {
				csi(t, (const char *)t->esc + 2, (char)ch);
			}
			t->esc_len = 0;
		} else if (ch == 033) {
			t->esc[t->esc_len++] = ch;
		} else if (ch == '\r') {
			t->c = 0;
		} else if (ch == '\n') {
			line_feed(t);
		} else if (ch >= 0x20 && (ch & 0xc0) != 0x80) {
			if (t->c == t->cols) {
				/* A line wider than the terminal wraps. */
				t->bad += t->in_frame && t->trust == 0;
				t->c = 0;
				line_feed(t);
			}
			t->cell[t->r][t->c++] = ch < 0x80 ? (char)ch : '~';
		}
	}
}

/* Resized, as a terminal is: rows added at the bottom, the region all. */
static void
term_resize(struct term *t, int master, int rows, int cols)
{
	struct winsize w = {(unsigned short)rows, (unsigned short)cols, 0, 0};

	ck_assert_int_eq(ioctl(master, TIOCSWINSZ, &w), 0);
	t->rows = rows;
	t->cols = cols;
	t->top = 0;
	t->bot = rows - 1;
	/* A frame drawn for the old size may still be on its way. */
	t->trust = 2;
}

/*
 * Whether the terminal shows text at the start of some row, on the
 * screen or scrolled off the top (a terminal keeps those lines).
 */
static int
shows(const struct term *t, const char *text)
{
	for (int i = 0; i < t->rows; i++)
		if (strncmp(t->cell[i], text, strlen(text)) == 0)
			return 1;
	for (int i = 0; i < t->lost; i++)
		if (strncmp(t->history[i], text, strlen(text)) == 0)
			return 1;
	return 0;
}

/* The screen, for a failure's message. */
static const char *
screen(const struct term *t)
{
	static char out[ROWS * (COLS + 2) + 1];
	size_t n = 0;

	for (int i = 0; i < t->rows; i++) {
		int end = t->cols;

		while (end > 0 && t->cell[i][end - 1] == ' ')
			end--;
		memcpy(out + n, t->cell[i], (size_t)end);
		n += (size_t)end;
		out[n++] = '\n';
	}
	out[n] = '\0';
	return out;
}

/* Feed what the pty gives for up to ms; -1 once it is closed. */
static int
pump(struct term *t, int master, int ms)
{
	struct pollfd p = {master, POLLIN, 0};
	char buf[4096];
	ssize_t n;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = read(master, buf, sizeof buf);
	if (n <= 0)
		return -1;
	term_put(t, buf, (size_t)n);
	return 1;
}

/*
 * Pump until the terminal has shown one more whole frame: as many more
 * lines erased as the view has lines, however it moves to them.
 */
static void
next_frame(struct term *t, int master)
{
	int want = t->erases + t->held;

	while (t->erases < want)
		ck_assert_msg(pump(t, master, 30000) == 1,
			      "no frame in 30 s:\n%s", screen(t));
}

/*
 * pipebench --pipeline PIPELINE, its stdin our pipe, stderr the pty's
 * slave (stdout too if on_tty, else /dev/null); the pty as a terminal
 * does it (a newline begins the next line).
 */
static pid_t
start(int *master, int *in, const char *pipeline, int on_tty, int rows,
      int cols)
{
	const char *argv[] = {"pipebench", "--pipeline", pipeline, NULL};
	struct winsize w = {(unsigned short)rows, (unsigned short)cols, 0, 0};
	struct termios tio;
	int slave, p[2];
	pid_t pid;

	ck_assert_int_eq(spawn_open_pty(master, &slave), 0);
	ck_assert_int_eq(tcgetattr(slave, &tio), 0);
	tio.c_oflag |= OPOST | ONLCR;
	ck_assert_int_eq(tcsetattr(slave, TCSANOW, &tio), 0);
	ck_assert_int_eq(ioctl(slave, TIOCSWINSZ, &w), 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork_plain();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(p[0], 0);
		int out = on_tty ? slave : open("/dev/null", O_WRONLY);

		dup2(out, 1);
		dup2(slave, 2);
		execv(spawn_path("pipebench"), (char *const *)argv);
		_exit(127);
	}
	close(p[0]);
	close(slave);
	*in = p[1];
	return pid;
}

/* A stage that says each line it reads, as out<line> and err<line>. */
#define ECHOES "sh -c 'while read x; do echo out$x; echo err$x >&2; done' | cat"

static const struct {
	int on_tty, cols, resize_to; /* 0: no resize */
} views[] = {
    {0, 80, 0}, {0, 50, 0}, {1, 80, 0}, {1, 50, 0}, {0, 50, 70}, {1, 80, 60},
};
#define NVIEWS (int)(sizeof views / sizeof views[0])

/*
 * Five lines from the stage, a frame drawn after each; the screen at the
 * end holds all of them (and the stage's stdout too, on the terminal).
 */
START_TEST(stage_lines_kept)
{
	static struct term t;
	char line[16];
	int master, in, status, rows = 24;
	pid_t pid;

	term_init(&t, rows, views[_i].cols, 2);
	pid =
	    start(&master, &in, ECHOES, views[_i].on_tty, rows, views[_i].cols);
	for (int k = 1; k <= 5; k++) {
		if (k == 3 && views[_i].resize_to > 0)
			term_resize(&t, master, rows = 30, views[_i].resize_to);
		snprintf(line, sizeof line, "%d\n", k);
		ck_assert_int_eq(write(in, line, strlen(line)),
				 (ssize_t)strlen(line));
		snprintf(line, sizeof line, "err%d", k);
		while (!shows(&t, line))
			ck_assert_msg(pump(&t, master, 30000) == 1,
				      "no %s in 30 s", line);
		next_frame(&t, master);
		next_frame(&t, master);
	}
	close(in);
	while (pump(&t, master, 60000) >= 0)
		;
	close(master);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_ge(t.erases, 10 * t.held);
	ck_assert_msg(t.bad == 0, "%d frames drew outside their rows", t.bad);
	for (int k = 1; k <= 5; k++) {
		snprintf(line, sizeof line, "err%d", k);
		ck_assert_msg(shows(&t, line), "%s drawn over:\n%s", line,
			      screen(&t));
		snprintf(line, sizeof line, "out%d", k);
		ck_assert_msg(!views[_i].on_tty || shows(&t, line),
			      "%s drawn over:\n%s", line, screen(&t));
	}
	ck_assert_msg(shows(&t, "Held back by"), "no verdict");
}
END_TEST

/*
 * Off a terminal, --progress: at most a frame a second (and the last),
 * each line stamped with the seconds since the start, nothing to move a
 * cursor.
 */
START_TEST(log_frames)
{
	char pipeline[4096];
	const char *argv[] = {"pipebench", "-p", "--pipeline", pipeline, NULL};
	size_t len = 3000000;
	char *data = spawn_lines(len, "line %u\n"), *p;
	struct spawn s = {0};
	struct spawn_result r;
	struct timespec a, b;
	double secs, last = -1;
	int frames = 0;

	snprintf(pipeline, sizeof pipeline, "%s/tests/throttle 2000000 | cat",
		 getenv("FIO_BUILDDIR"));
	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	spawn_feed(&s, IN_PIPE, data, len);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert(r.exited && r.status == 0);
	ck_assert_uint_eq(r.out_len, len);
	ck_assert_ptr_null(strchr(r.err, '\033'));
	for (p = r.err; *p == '['; p = strchr(p, '\n') + 1) {
		double at;

		ck_assert_int_eq(sscanf(p, "[%lfs] ", &at), 1);
		if (at != last)
			frames++;
		last = at;
	}
	ck_assert_msg(strncmp(p, " # Command", 10) == 0, "%s", r.err);
	secs = (double)(b.tv_sec - a.tv_sec) +
	       (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	ck_assert_msg(frames >= 1 && frames <= secs + 2, "%d frames in %.1f s",
		      frames, secs);
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * The table keeps 80 columns: a long command ends in an ellipsis, a
 * newline in one is a space; JSON holds the whole text.
 */
START_TEST(table_width)
{
	const char *pipeline = "echo 'a long argument, longer than any "
			       "column could hold\nand a newline' | cat";
	const char *argv[] = {"pipebench", "--json", "--pipeline", pipeline,
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char *line, *next;
	int rows = 0;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert(r.exited && r.status == 0);
	for (line = r.err; *line != '{'; line = next + 1) {
		int cols = 0;

		ck_assert_ptr_nonnull(next = strchr(line, '\n'));
		for (char *q = line; q < next; q++)
			cols += ((unsigned char)*q & 0xc0) != 0x80;
		ck_assert_msg(cols <= 80 || strncmp(line, "Held", 4) == 0,
			      "%d columns: %.*s", cols, (int)(next - line),
			      line);
		rows += strncmp(line, " 1 echo ", 8) == 0 ||
			strncmp(line, " 2 cat ", 7) == 0;
	}
	ck_assert_int_eq(rows, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "\xe2\x80\xa6"));
	ck_assert_ptr_nonnull(strstr(r.err, "could hold\\u000aand a newline'"));
	spawn_free(&r);
}
END_TEST

static spawn_need *const pty[] = {spawn_need_pty, NULL};

static Suite *
view_suite(void)
{
	Suite *s = suite_create("pbview");
	TCase *tc = tcase_create("log");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, log_frames);
	tcase_add_test(tc, table_width);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "tty", stage_lines_kept, NVIEWS, pty);
	return s;
}

int
main(void)
{
	return suite_main(view_suite());
}
