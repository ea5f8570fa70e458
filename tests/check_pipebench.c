/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

/*
 * pipebench 0.40 blanks the running line before the summary: 79 spaces
 * and CR on stderr, and LF in a status file.
 */
#define BLANKS                                                                 \
	"                                                                    " \
	"           "
#define CLEAR	 BLANKS "\r"
#define CLEAR_LF BLANKS "\n"

/* Deterministic test data: numbered lines, printable (messages show them). */
#define DATA_LINE "line %u of the data\n"

/*
 * Check "HHhMMmSS.SSs" at p; returns the seconds, -1 if malformed.
 */
static double
parse_duration(const char *p)
{
	int h, m, n = 0;
	double s;

	if (sscanf(p, "%2dh%2dm%5lfs%n", &h, &m, &s, &n) != 3 || n != 12 ||
	    p[2] != 'h' || p[5] != 'm' || p[8] != '.')
		return -1;
	return h * 3600.0 + m * 60.0 + s;
}

/* Check "%7.2f UNIT" (or "%7llu B" with -u) at p; returns its length. */
static int
parse_amount(const char *p, int raw_units)
{
	static const char *const units[] = {"B ", "kB", "MB", "GB",
					    "TB", "PB", "EB"};
	double v;
	int n = 0, i;

	if (raw_units) {
		unsigned long long u;

		return sscanf(p, "%llu B%n", &u, &n) == 1 && n >= 9 ? n : -1;
	}
	if (p[4] != '.' || sscanf(p, "%7lf %n", &v, &n) != 1 || n != 8)
		return -1;
	for (i = 0; i < 7; i++)
		if (strncmp(p + 8, units[i], 2) == 0 || (i == 0 && p[8] == 'B'))
			return 8 + (i == 0 ? 1 : 2);
	return -1;
}

/*
 * The summary's amount as pipebench 0.40 prints it: %7.2f and a unit that
 * steps up only while the integer value is greater than the base.
 */
static const struct unit_case {
	size_t bytes;
	const char *flag, *amount;
} unit_cases[] = {
    {1023, NULL, "1023.00 B"},	   {1024, NULL, "1024.00 B"},
    {1025, NULL, "   1.00 kB"},	   {1048576, NULL, "1024.00 kB"},
    {1048577, NULL, "1024.00 kB"}, {1049600, NULL, "   1.00 MB"},
    {1050000, NULL, "   1.00 MB"}, {1025, "-I", "   1.02 kB"},
    {1000, "-I", "1000.00 B"},	   {1001, "-I", "   1.00 kB"},
    {1000001, "-I", "1000.00 kB"}, {1025, "-u", "   1025 B"},
    {0, NULL, "   0.00 B"},	   {1048576, "-u", "1048576 B"},
    {1025, "-e", "   1.00 kB"},
};
#define NUNITS (int)(sizeof unit_cases / sizeof unit_cases[0])

START_TEST(summary_units)
{
	const struct unit_case *c = &unit_cases[_i];
	const char *argv[] = {"pipebench", "-q", c->flag, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char want[128], *data = spawn_lines(c->bytes, DATA_LINE);
	const char *p;
	int n;

	spawn_feed(&s, IN_PIPE, data, c->bytes);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	ck_assert_uint_eq(r.out_len, c->bytes);
	ck_assert(memcmp(r.out, data, c->bytes) == 0);
	snprintf(want, sizeof want, CLEAR "Summary:\nPiped %s in ", c->amount);
	ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0,
		      "case %d: got '%s'", _i, r.err);
	/* "00h00m00.00s: RATE UNIT/second\n", the last line */
	p = r.err + strlen(want);
	ck_assert(parse_duration(p) >= 0);
	ck_assert(p[12] == ':' && p[13] == ' ');
	n = parse_amount(p + 14, c->flag && strcmp(c->flag, "-u") == 0);
	ck_assert_msg(n > 0, "case %d: rate in '%s'", _i, p);
	ck_assert_msg(strcmp(p + 14 + n, "/second\n") == 0, "case %d: '%s'", _i,
		      p + 14 + n);
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * The running line, driven by the one-second timer: stdin stays open
 * until a line came, so no test waits on a clock. -s /dev/stderr makes the
 * status file a pipe the test can watch.
 */
static const struct running_case {
	const char *argv[6];
	int shape;   /* 0 Habets, 1 raw, 2 progress, 3 progress with ETA */
	int summary; /* a summary follows */
} running_cases[] = {
    {{"-p"}, 2, 1},
    {{"-p", "-o"}, 2, 0},
    {{"-p", "--size=1M"}, 3, 1},
    {{"-r"}, 1, 0},
    {{"-s", "/dev/stderr"}, 0, 1},
    {{"-S", "/dev/stderr", "-I"}, 0, 1},
    {{"-s", "/dev/stderr", "-p", "-u"}, 2, 1},
    {{"-r", "-s", "/dev/stderr"}, 1, 0},
};
#define NRUNNING (int)(sizeof running_cases / sizeof running_cases[0])

START_TEST(running_line)
{
	const struct running_case *c = &running_cases[_i];
	const char *argv[8] = {"pipebench"};
	struct spawn s = {0};
	struct spawn_result r;
	int i, n, raw_units = 0, file = 0;
	char *p, *end, eol;

	for (i = 0; i < 6 && c->argv[i]; i++) {
		argv[i + 1] = c->argv[i];
		raw_units |= strcmp(c->argv[i], "-u") == 0;
		file |= c->argv[i][1] == 's' || c->argv[i][1] == 'S';
	}
	spawn_feed(&s, IN_PIPE, "0123456789", 10);
	s.err_min = 1;
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	ck_assert_uint_eq(r.out_len, 10);
	eol = file || c->shape == 1 ? '\n' : '\r';
	for (p = r.err; *p != '\0' && strncmp(p, BLANKS, 79) != 0; p++) {
		if (c->shape == 1) { /* -r: integers */
			strtoull(p, &end, 10);
			ck_assert_msg(end > p && *end == eol, "'%s'", p);
			p = end;
			continue;
		}
		ck_assert_msg(parse_duration(p) >= 1 && p[12] == ':',
			      "case %d: '%s'", _i, p);
		n = parse_amount(p + 14, raw_units);
		ck_assert_msg(n > 0, "case %d: '%s'", _i, p);
		p += 14 + n;
		ck_assert(*p == ' ');
		n = parse_amount(p + 1, raw_units);
		ck_assert_msg(n > 0, "case %d: '%s'", _i, p);
		p += 1 + n;
		if (c->shape == 0) {
			/* "/second (Sat Nov 21 19:12:31 2026)" */
			ck_assert_msg(
			    strncmp(p, "/second (", 9) == 0 && p[12] == ' ' &&
				p[16] == ' ' && p[19] == ' ' && p[22] == ':' &&
				p[25] == ':' && p[28] == ' ' && p[33] == ')',
			    "case %d: '%s'", _i, p);
			p += 34;
		} else {
			ck_assert(strncmp(p, "/second now, ", 13) == 0);
			n = parse_amount(p + 13, raw_units);
			ck_assert(n > 0);
			p += 13 + n;
			ck_assert_msg(strncmp(p, "/second average", 15) == 0,
				      "'%s'", p);
			p += 15;
			if (c->shape == 3) {
				ck_assert_msg(strncmp(p, ",   0%, ETA ", 12) ==
						  0,
					      "'%s'", p);
				ck_assert(parse_duration(p + 12) >= 0);
				p += 24;
			}
		}
		ck_assert_msg(*p == eol, "case %d: '%s'", _i, p);
	}
	ck_assert_msg(p > r.err, "case %d: no running line", _i);
	if (c->summary)
		ck_assert_msg(strncmp(p,
				      file ? CLEAR_LF "Summary:\nPiped "
					   : CLEAR "Summary:\nPiped ",
				      95) == 0,
			      "case %d: '%s'", _i, p);
	else
		ck_assert_msg(*p == '\0', "case %d: '%s'", _i, p);
	spawn_free(&r);
}
END_TEST

/* Input kinds x output kinds x forced strategies x modes: unchanged. */
static const enum spawn_out outs[] = {OUT_PIPE, OUT_FILE, OUT_APPEND_FILE,
				      OUT_SOCKET, OUT_SPLICE_PIPE};

START_TEST(pass_through)
{
	static const char *const env[][2] = {{NULL, NULL},
					     {"FASTIO_DISABLE=splice", NULL}};
	static const char *const argv[][5] = {
	    {"pipebench", "-Q", NULL},
	    {"pipebench", "-Q", "--touch", NULL},
	    {"pipebench", "-q", "-b", "7", NULL},
	};
	int in = _i % 2, out = _i / 2 % 5, force = _i / 10 % 2, a = _i / 20;
	/* -b 7 makes one pipe slot per 7 bytes: keep it within the
	 * splice reader's holding pipes (64 x 256 slots). */
	size_t len = a == 2 ? 70001 : (size_t)9 << 20;
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512], *data = spawn_lines(len, DATA_LINE);

	spawn_feed(&s, in ? IN_FILE : IN_PIPE, data, len);
	s.env = env[force];
	s.out = outs[out];
	s.out_max = outs[out] == OUT_SPLICE_PIPE ? len : 0;
	spawn_pipebench(&s, &r, argv[a]);
	ck_assert_msg(
	    lines_check(r.out, r.out_len, data, len, 0, msg, sizeof msg) == 0,
	    "case %d: %s", _i, msg);
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	free(data);
}
END_TEST

/* The summary names the mode that moved the bytes, and the pipe sizes. */
START_TEST(mode_line)
{
	static const struct {
		const char *flag, *env;
		enum spawn_in in;
		enum spawn_out out;
		const char *mode;
	} cases[] = {
	    {NULL, NULL, IN_PIPE, OUT_PIPE,
	     "Mode: splice, input pipe of 1048576 bytes, output pipe of "
	     "1048576 bytes\n"},
	    {NULL, NULL, IN_FILE, OUT_PIPE,
	     "Mode: splice, input regular, output pipe of 1048576 bytes\n"},
	    {"--touch", NULL, IN_PIPE, OUT_PIPE,
	     "Mode: copy, input pipe of 1048576 bytes, output pipe of "
	     "1048576 bytes\n"},
	    /* cat's strategy too: a pipe goes into a file by read() and
	     * write(), which take no offset while they wait. */
	    {NULL, NULL, IN_PIPE, OUT_FILE,
	     "Mode: copy, input pipe of 1048576 bytes, output regular\n"},
	    {NULL, "FASTIO_DISABLE=splice", IN_FILE, OUT_PIPE,
	     "Mode: copy, input regular, output pipe of 1048576 bytes\n"},
	    {NULL, NULL, IN_PIPE, OUT_DEVNULL,
	     "Mode: splice, input pipe of 1048576 bytes, output devnull\n"},
	    {NULL, NULL, IN_PIPE, OUT_SOCKET,
	     "Mode: copy, input pipe of 1048576 bytes, output socket\n"},
	    /* The call that did the work, whichever it was. */
	    {NULL, NULL, IN_FILE, OUT_FILE,
	     "Mode: copy_file_range, input regular, output regular\n"},
	    {NULL, NULL, IN_FILE, OUT_SOCKET,
	     "Mode: sendfile, input regular, output socket\n"},
	    {NULL, "FASTIO_DISABLE=copy_file_range,sendfile", IN_FILE,
	     OUT_SOCKET, "Mode: copy, input regular, output socket\n"},
	};
	const char *argv[] = {"pipebench", "-q", "--verbose", cases[_i].flag,
			      NULL};
	const char *env[] = {cases[_i].env, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char *data = spawn_lines(300000, DATA_LINE);
	const char *m;

	spawn_feed(&s, cases[_i].in, data, 300000);
	s.env = env;
	s.out = cases[_i].out;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	m = strstr(r.err, "Mode: ");
	ck_assert_msg(m != NULL && strcmp(m, cases[_i].mode) == 0,
		      "case %d: '%s'", _i, r.err);
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * --bytes and --lines stop exactly, from a pipe or a file, with long and
 * short reads.
 */
START_TEST(limits)
{
	static const struct {
		const char *argv[6];
		size_t bytes, lines; /* what passes */
	} cases[] = {
	    {{"--bytes=1000"}, 1000, 0},
	    {{"--bytes", "3M"}, (size_t)3 << 20, 0},
	    {{"--bytes=3MiB", "--touch"}, (size_t)3 << 20, 0},
	    {{"--bytes=1MB"}, 1000000, 0},
	    {{"--bytes=2k", "-b", "7"}, 2048, 0},
	    {{"--bytes=1b"}, 512, 0},
	    {{"--lines=3"}, 0, 3},
	    {{"--lines", "2K"}, 0, 2048},
	    {{"--lines=1", "-b", "5"}, 0, 1},
	    {{"--lines=1000", "-b", "7"}, 0, 1000},
	    {{"--lines=99999", "--bytes=4000"}, 4000, 0},
	    {{"--lines=10", "--bytes=4000"}, 0, 10},
	    {{"--bytes=100M"}, (size_t)8 << 20, 0}, /* EOF first */
	    {{"--lines=1G"}, (size_t)8 << 20, 0},
	};
	const char *argv[8] = {"pipebench", "-Q"};
	int c = _i / 4, i;
	size_t len = (size_t)8 << 20, want = cases[c].bytes;
	struct spawn s = {0};
	struct spawn_result r;
	char *data = spawn_lines(len, DATA_LINE), *p;

	for (i = 0; i < 6 && cases[c].argv[i]; i++)
		argv[i + 2] = cases[c].argv[i];
	if (cases[c].lines) {
		for (p = data, i = 0; i < (int)cases[c].lines; i++)
			p = strchr(p, '\n') + 1;
		want = (size_t)(p - data);
	}
	spawn_feed(&s, _i % 2 ? IN_FILE : IN_PIPE, data, len);
	s.out = _i / 2 % 2 ? OUT_FILE : OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert_msg(r.out_len == want, "case %d: %zu bytes, want %zu", _i,
		      r.out_len, want);
	ck_assert(memcmp(r.out, data, want) == 0);
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	free(data);
}
END_TEST

/* Invalid counts are usage errors. */
START_TEST(bad_counts)
{
	static const char *const bad[] = {
	    "0", "x", "-1", "1X", "1KBB", "99999999999999999999", "1Ei", "20E"};
	static const char *const opts[] = {"--bytes", "--lines", "--size"};
	const char *argv[] = {"pipebench", opts[_i % 3], bad[_i / 3], NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char want[160];

	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	snprintf(want, sizeof want,
		 "pipebench: invalid number of %s: %s\n"
		 "Try 'pipebench --help' for more information.\n",
		 _i % 3 == 1 ? "lines" : "bytes",
		 strcmp(bad[_i / 3], "-1") == 0 ? "-1" : bad[_i / 3]);
	ck_assert_str_eq(r.err, want);
	ck_assert(r.exited && r.status == 1);
	spawn_free(&r);
}
END_TEST

/* Errors: reported, unlike pipebench 0.40. */
struct error_case {
	const char *argv[4];
	enum spawn_out out;
	int ignore_sigpipe;
	const char *err;
	int status; /* -1: killed by SIGPIPE */
};

#define TRY "Try 'pipebench --help' for more information.\n"
static const struct error_case error_cases[] = {
    {{"-Q"},
     OUT_DEVFULL,
     0,
     "pipebench: write error: No space left on device\n",
     1},
    {{"-Q", "--touch"},
     OUT_DEVFULL,
     0,
     "pipebench: write error: No space left on device\n",
     1},
    {{"-Q"}, OUT_CLOSED, 0, "pipebench: write error: Bad file descriptor\n", 1},
    {{"-Q"}, OUT_PIPE, 1, "pipebench: write error: Broken pipe\n", 1},
    {{"-Q", "--touch"},
     OUT_PIPE,
     1,
     "pipebench: write error: Broken pipe\n",
     1},
    {{"-Q"}, OUT_PIPE, 0, "", -1},
    {{"-Q", "--touch"}, OUT_PIPE, 0, "", -1},
    {{"-Q"},
     OUT_NONBLOCK_PIPE,
     0,
     "pipebench: write error: Resource temporarily unavailable\n",
     1},
    {{"-b", "0"}, OUT_PIPE, 0, "pipebench: invalid buffer size: 0\n" TRY, 1},
    {{"-b", "x"}, OUT_PIPE, 0, "pipebench: invalid buffer size: x\n" TRY, 1},
    {{"-b", "-5"}, OUT_PIPE, 0, "pipebench: invalid buffer size: -5\n" TRY, 1},
    {{"-s", "/nonexistent/dir/f"},
     OUT_PIPE,
     0,
     "pipebench: /nonexistent/dir/f: No such file or directory\n",
     1},
    {{"--expect-file=/nonexistent"},
     OUT_PIPE,
     0,
     "pipebench: /nonexistent: No such file or directory\n",
     1},
    {{"-x"}, OUT_PIPE, 0, "pipebench: invalid option -- 'x'\n" TRY, 1},
    {{"operand"}, OUT_PIPE, 0, "pipebench: extra operand operand\n" TRY, 1},
    {{"--exec"}, OUT_PIPE, 0, "pipebench: missing command\n" TRY, 1},
    {{"--compare"}, OUT_PIPE, 0, "pipebench: missing command\n" TRY, 1},
    {{"--exec", "--compare", "x"},
     OUT_PIPE,
     0,
     "pipebench: --exec, --compare, --pipeline and --watch are "
     "exclusive\n" TRY,
     1},
    {{"--runs=0", "--compare", "x"},
     OUT_PIPE,
     0,
     "pipebench: invalid number of runs: 0\n" TRY,
     1},
    {{"--expect-line=y", "--expect-file=f"},
     OUT_PIPE,
     0,
     "pipebench: --expect-line and --expect-file are exclusive\n" TRY,
     1},
    {{"--exec", "--", "/nonexistent/producer"},
     OUT_PIPE,
     0,
     "pipebench: /nonexistent/producer: No such file or directory\n"
     "pipebench: /nonexistent/producer: exit status 127\n",
     127},
    {{"-Q", "--exec", "--", "false"},
     OUT_PIPE,
     0,
     "pipebench: false: exit status 1\n",
     1},
};
#define NERRORS (int)(sizeof error_cases / sizeof error_cases[0])

START_TEST(errors)
{
	const struct error_case *c = &error_cases[_i];
	const char *argv[6] = {"pipebench"};
	size_t len = (size_t)16 << 20;
	struct spawn s = {0};
	struct spawn_result r;
	char *data = spawn_lines(len, DATA_LINE), *nl;
	int i;

	for (i = 0; i < 4 && c->argv[i]; i++)
		argv[i + 1] = c->argv[i];
	spawn_feed(&s, IN_FILE, data, len);
	s.out = c->out;
	/* A reader that goes away after 4 KiB. */
	s.out_max = c->out == OUT_PIPE && (c->status == -1 || c->ignore_sigpipe)
			? 4096
			: 0;
	s.ignore_sigpipe = c->ignore_sigpipe;
	spawn_pipebench(&s, &r, argv);
	if (c->status == 127) { /* the summary of nothing comes between */
		nl = strstr(r.err, "Summary:");
		ck_assert(nl != NULL);
		ck_assert(strncmp(r.err, c->err, strcspn(c->err, "\n") + 1) ==
			  0);
		ck_assert(strstr(nl, strchr(c->err, '\n') + 1) != NULL);
	} else {
		ck_assert_msg(strcmp(r.err, c->err) == 0, "case %d: '%s'", _i,
			      r.err);
	}
	if (c->status < 0)
		ck_assert(r.signaled && r.signal == SIGPIPE);
	else
		ck_assert_msg(r.exited && r.status == c->status,
			      "case %d: status %d", _i, r.status);
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * -h: pipebench 0.40's usage (check_pb040 has all of it); --help: ours on
 * stdout; --version.
 */
START_TEST(help)
{
	static const char *const flags[] = {"-h", "--help", "--version"};
	const char *argv[] = {"pipebench", flags[_i], NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *want = _i == 0   ? "Pipebench 0.40, by Thomas Habets"
			   : _i == 1 ? "Usage: pipebench [OPTION]...\n"
				     : "pipebench (" PACKAGE_NAME
				       ") " PACKAGE_VERSION "\n";

	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	ck_assert_str_eq(r.err, "");
	ck_assert_msg(strncmp(r.out, want, strlen(want)) == 0, "'%s'", r.out);
	if (_i == 1)
		ck_assert(strstr(r.out, "\n  -b SIZE ") != NULL &&
			  strstr(r.out, "\n      --compare ") != NULL &&
			  strstr(r.out, "\n      --export-json=F ") != NULL);
	spawn_free(&r);
}
END_TEST

/* A read error ends the run with a message naming the input. */
START_TEST(read_error)
{
	const char *argv[] = {"pipebench", "-Q", NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_feed(&s, IN_CLOSED, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert_str_eq(r.err,
			 "pipebench: standard input: Bad file descriptor\n");
	ck_assert(r.exited && r.status == 1);
	spawn_free(&r);
}
END_TEST

/* SIGINT: the summary of what passed, then death by SIGINT. */
START_TEST(interrupt)
{
	static const char *const modes[] = {NULL, "--touch"};
	const char *argv[] = {"pipebench", "-q", modes[_i], NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *p;

	spawn_feed(&s, IN_PIPE, "hello\n", 6);
	s.err_min = (size_t)-1; /* stdin stays open */
	s.out = OUT_PIPE;
	s.out_max = 6;
	s.signal = SIGINT;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.signaled && r.signal == SIGINT);
	ck_assert_uint_eq(r.out_len, 6);
	p = CLEAR "Summary:\nPiped    6.00 B in 00h00m";
	ck_assert_msg(strncmp(r.err, p, strlen(p)) == 0, "'%s'", r.err);
	spawn_free(&r);
}
END_TEST

/* -s/-S FILE: the summary goes to the file; -Q writes nothing there. */
START_TEST(status_file)
{
	static const char *const flags[] = {"-s", "-S", "-s", "-S"};
	char *path = spawn_temp_path("old\n", 4), buf[512];
	const char *argv[] = {"pipebench", "-q", flags[_i], path, NULL};
	const char *want = _i % 2 ? "old\n" CLEAR_LF
				    "Summary:\nPiped    4.88 kB in "
				  : CLEAR_LF "Summary:\nPiped    4.88 kB in ";
	struct spawn s = {0};
	struct spawn_result r;
	char *data = spawn_lines(5000, DATA_LINE);
	FILE *f;
	size_t n;

	if (_i >= 2) {
		argv[1] = "-Q";
		want = _i % 2 ? "old\n" : "";
	}
	spawn_feed(&s, IN_PIPE, data, 5000);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	ck_assert_str_eq(r.err, "");
	f = fopen(path, "r");
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (_i >= 2)
		ck_assert_str_eq(buf, want);
	else
		ck_assert_msg(strncmp(buf, want, strlen(want)) == 0, "'%s'",
			      buf);
	spawn_free(&r);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/* --json: the last line of stderr (or the -s file) describes the run. */
START_TEST(json)
{
	const char *argv[] = {
	    "pipebench",	   "-q", "--json", "--lines=1000",
	    _i ? "--touch" : NULL, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char *data = spawn_lines(1 << 20, DATA_LINE), *j;
	size_t want = (size_t)(strstr(data, "line 1000 ") - data);

	spawn_feed(&s, IN_PIPE, data, 1 << 20);
	s.out = OUT_PIPE;
	if (_i == 0)
		argv[3] = NULL; /* no limit: splice, no lines */
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	j = strstr(r.err, "\n{");
	ck_assert(j != NULL && strchr(j + 1, '\n')[1] == '\0');
	ck_assert(spawn_json_number(j, "bytes") ==
		  (_i ? (double)want : 1 << 20));
	ck_assert(spawn_json_number(j, "lines") == (_i ? 1000 : -1));
	ck_assert(spawn_json_number(j, "seconds") >= 0);
	ck_assert(spawn_json_number(j, "rate") >= 0);
	/* The pipes grow once more than the input pipe holds has passed:
	 * 1 MiB did, the first 1000 lines did not. */
	ck_assert(spawn_json_number(j, "input_pipe_size") ==
		  (_i ? 16.0 * sysconf(_SC_PAGESIZE) : 1048576));
	ck_assert(spawn_json_number(j, "output_pipe_size") ==
		  (_i ? 16.0 * sysconf(_SC_PAGESIZE) : 1048576));
	ck_assert(strstr(j, _i ? "\"mode\":\"copy\"" : "\"mode\":\"splice\"") !=
		  NULL);
	ck_assert(strstr(j, "\"stopped\":") != NULL);
	ck_assert(strstr(j, "\"samples\":{\"interval\":0.100,\"count\":") !=
		  NULL);
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * On a terminal: the progress display, redrawn in place, sized to the
 * terminal, its last frame left on a line of its own before 0.40's
 * summary. fakeio.so makes the run 10,000,000 bytes in one second, so the
 * final frame is exact: with --size a bar, percentage, rate and ETA;
 * without, bytes, rate and elapsed time; cut to a narrow terminal.
 */
START_TEST(progress_display)
{
	static const struct {
		unsigned short cols;
		const char *size, *frame;
	} cases[] = {
	    {60, "--size=10000000",
	     "100% [===================] 10.00 MB 10.00 MB/s ETA 00:00:00"},
	    {80, "--size=20000000",
	     " 50% [===================>                   ] 10.00 MB "
	     "10.00 MB/s ETA 00:00:01"},
	    {60, NULL, "10.00 MB 10.00 MB/s 00:00:01"},
	    {30, "--size=10000000", "100% 10.00 MB 10.00 MB/s ETA "},
	};
	char preload[PATH_MAX + 32];
	const char *env[] = {preload, "FAKE_BYTES=10000000",
			     "FAKE_USEC=1000000",
			     "ASAN_OPTIONS=verify_asan_link_order=0", NULL};
	const char *argv[] = {"pipebench", cases[_i].size, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *lf, *line;

	snprintf(preload, sizeof preload, "LD_PRELOAD=%s/tests/fakeio.so",
		 getenv("FIO_BUILDDIR"));
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.env = env;
	s.out = OUT_DEVNULL;
	s.err_cols = cases[_i].cols;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 0);
	/* The screen's line: what the last carriage return left. */
	lf = strchr(r.err, '\n');
	ck_assert_ptr_nonnull(lf);
	for (line = lf; line > r.err && line[-1] != '\r'; line--)
		;
	ck_assert_msg((size_t)(lf - line) == strlen(cases[_i].frame) &&
			  strncmp(line, cases[_i].frame, (size_t)(lf - line)) ==
			      0,
		      "case %d: '%.*s'", _i, (int)(lf - line), line);
	ck_assert_uint_le((size_t)(lf - line), cases[_i].cols - 1u);
	ck_assert(strstr(lf, "\rSummary:\nPiped    9.53 MB in "
			     "00h00m01.00s:    9.53 MB/second\n") != NULL);
	spawn_free(&r);
}
END_TEST

/* progress_display: a terminal (a chroot without /dev/pts has none). */
static spawn_need *const pty[] = {spawn_need_pty, NULL};

static Suite *
pipebench_suite(void)
{
	Suite *s = suite_create("pipebench");
	TCase *tc = tcase_create("pipebench");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, summary_units, 0, NUNITS);
	tcase_add_loop_test(tc, running_line, 0, NRUNNING);
	tcase_add_loop_test(tc, pass_through, 0, 60);
	tcase_add_loop_test(tc, mode_line, 0, 10);
	tcase_add_loop_test(tc, limits, 0, 4 * 14);
	tcase_add_loop_test(tc, bad_counts, 0, 24);
	tcase_add_loop_test(tc, errors, 0, NERRORS);
	tcase_add_loop_test(tc, help, 0, 3);
	tcase_add_test(tc, read_error);
	tcase_add_loop_test(tc, interrupt, 0, 2);
	tcase_add_loop_test(tc, status_file, 0, 4);
	tcase_add_loop_test(tc, json, 0, 2);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "tty", progress_display, 4, pty);
	return s;
}

int
main(void)
{
	return suite_main(pipebench_suite());
}
