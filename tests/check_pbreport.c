/* SPDX-License-Identifier: MIT */
/*
 * pipebench keeps its measurement and its report says what it means: a
 * reader that stops early still gets the summary of what passed (and
 * the -s file's) before pipebench dies of SIGPIPE, as 0.40's status; a
 * stderr that is closed or full never changes --pipeline's status,
 * which is the stages'; --json's line is the last one whatever comes
 * with it, and valid UTF-8 whatever a command holds; our own tables say
 * their units (GB = 10^9 B) and read a rate as a rate; sizes take pv's
 * lowercase suffixes.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

/* Our yes, where spawn_path's buffer is needed again by spawn_run. */
static const char *
yes_path(void)
{
	static char path[4096];

	snprintf(path, sizeof path, "%s", spawn_path("yes"));
	return path;
}

/* The last line of text, without its LF. */
static const char *
last_line(char *text)
{
	size_t n = strlen(text);
	char *p;

	if (n > 0 && text[n - 1] == '\n')
		text[--n] = '\0';
	p = strrchr(text, '\n');
	return p != NULL ? p + 1 : text;
}

/*
 * `yes | pipebench | head -c 1M`: the summary of what passed, in 0.40's
 * form, then death by SIGPIPE; with -s, in the file. _i: to stderr, to
 * the -s file.
 */
START_TEST(early_reader)
{
	char *status = _i ? spawn_temp_path("", 0) : NULL, opt[128];
	const char *argv[] = {"pipebench", _i ? opt : "-q", "--exec",
			      "--",	   yes_path(),	    NULL};
	struct spawn s = {0};
	struct spawn_result r;
	size_t len = 0;
	char *text;

	if (_i)
		snprintf(opt, sizeof opt, "-s%s", status);
	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	s.out_max = 1 << 20;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.signaled && r.signal == SIGPIPE, "status %d: %s",
		      r.status, r.err);
	text = _i ? spawn_slurp(status, &len) : r.err;
	ck_assert_msg(strstr(text, "Summary:\nPiped ") != NULL &&
			  strstr(text, "/second\n") != NULL,
		      "no summary: '%s'", text);
	if (_i) {
		free(text);
		unlink(status);
		free(status);
	}
	spawn_free(&r);
}
END_TEST

/*
 * --pipeline's status is the stages', whatever becomes of our report:
 * stderr closed, full (/dev/full, through a shell), or fine. _i: the
 * pipeline, and which stderr.
 */
START_TEST(status_is_the_stages)
{
	static const struct {
		const char *line;
		int status;
	} lines[] = {
	    {"seq 3 | cat", 0},
	    {"seq 3 | (cat; exit 2)", 2},
	    {"seq 3 | sh -c 'cat; exit 126'", 126},
	};
	int k = _i / 3, how = _i % 3;
	char cmd[512];
	const char *sh[] = {"sh", "-c", cmd, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	snprintf(cmd, sizeof cmd, "exec %s --pipeline \"%s\" %s",
		 spawn_path("pipebench"), lines[k].line,
		 how == 1 ? "2>/dev/full" : "");
	spawn_init(&s, "/bin/sh", sh, NULL, OUT_PIPE);
	s.err_closed = how == 2;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == lines[k].status,
		      "'%s', stderr %s: status %d", lines[k].line,
		      how == 0	 ? "fine"
		      : how == 1 ? "full"
				 : "closed",
		      r.status);
	ck_assert_str_eq(r.out, "1\n2\n3\n");
	spawn_free(&r);
}
END_TEST

/* --json's line last: with --plot, after a producer's failure, in
 * --compare and --pipeline. */
START_TEST(json_last)
{
	const char *const cases[][10] = {
	    {"pipebench", "--json", "--plot", "--bytes=8M", "--exec", "--",
	     NULL},
	    {"pipebench", "--json", "--exec", "--", "/bin/sh", "-c",
	     "head -c 1000000 /dev/zero; exit 3", NULL},
	    {"pipebench", "--json", "--compare", "--runs=2", "--warmup=0",
	     "--bytes=8M", NULL},
	    {"pipebench", "--json", "--pipeline", "seq 1000 | cat", NULL},
	};
	const char *argv[10];
	struct spawn s = {0};
	struct spawn_result r;
	const char *last;
	int i;

	for (i = 0; cases[_i][i] != NULL; i++)
		argv[i] = cases[_i][i];
	if (_i == 0 || _i == 2)
		argv[i++] = yes_path();
	argv[i] = NULL;
	spawn_init(&s, "pipebench", argv, NULL, OUT_DEVNULL);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	last = last_line(r.err);
	ck_assert_msg(last[0] == '{' && last[strlen(last) - 1] == '}',
		      "case %d: the last line is '%s'", _i, last);
	spawn_free(&r);
}
END_TEST

/* A command's bytes that are not UTF-8 are U+FFFD in the JSON. */
START_TEST(json_utf8)
{
	const char *argv[] = {"pipebench",
			      "--json",
			      "-Q",
			      "--pipeline",
			      "echo caf\xc3\xa9 \xff\xfe\xe2\x82 | cat",
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *last;

	spawn_init(&s, "pipebench", argv, NULL, OUT_DEVNULL);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	last = last_line(r.err);
	ck_assert_msg(strstr(last, "\"echo caf\xc3\xa9 "
				   "\\ufffd\\ufffd\\ufffd\\ufffd\"") != NULL,
		      "'%s'", last);
	spawn_free(&r);
}
END_TEST

/* --compare's table: decimal units, said, and a rate read as a rate:
 * "1.23 ± 0.04 GB/s"; pv's lowercase suffixes. */
START_TEST(units)
{
	const char *argv[] = {"pipebench",  "--compare",   "--runs=2",
			      "--warmup=0", "--bytes=64m", yes_path(),
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char unit[8];
	double a, b;
	const char *row;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "%s", r.err);
	ck_assert_msg(strstr(r.out, "(GB = 10^9 B)") != NULL, "%s", r.out);
	row = strstr(r.out, "\n| `");
	ck_assert_ptr_nonnull(row);
	ck_assert_msg(
	    sscanf(row, "\n| `%*[^`]` | %lf ± %lf %7s |", &a, &b, unit) == 3 &&
		strstr(unit, "B/s") != NULL,
	    "%s", row);
	/* What the JSON's bytes say: 64 MiB is 67.11 MB. */
	ck_assert_msg(strstr(r.err, ": 67.11 MB in ") != NULL, "%s", r.err);
	spawn_free(&r);
}
END_TEST

static Suite *
report_suite(void)
{
	Suite *s = suite_create("pbreport");
	TCase *tc = tcase_create("report");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, early_reader, 0, 2);
	tcase_add_loop_test(tc, status_is_the_stages, 0, 9);
	tcase_add_loop_test(tc, json_last, 0, 4);
	tcase_add_test(tc, json_utf8);
	tcase_add_test(tc, units);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(report_suite());
}
