/* SPDX-License-Identifier: MIT */
/*
 * pipebench --expect-line and --expect-file (src/pipebench/verify.c)
 * through the program: a changed byte found at the start, middle and end
 * and across read boundaries, with its offset and line; a long correct
 * stream never reported; a file equal, short, changed and long.
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

#define DATA_LINE "line %u of the data\n"

/*
 * --expect-line: a correct stream passes; one changed byte at the start,
 * in the middle, at the end, and on both sides of read() boundaries (128
 * KiB by default, 7 bytes with -b 7) is reported with offset and line.
 */
START_TEST(expect_line)
{
	static const size_t flips[] = {0,	1,	131071,	 131072,
				       131073,	262143, 5000001, 9999998,
				       9999999, 1000000};
	const char *argv[] = {"pipebench", "-Q", "--expect-line=y",
			      NULL,	   NULL, NULL};
	size_t len = 10000000, at = 0, nflips = sizeof flips / sizeof *flips;
	struct spawn s = {0};
	struct spawn_result r;
	char *data = malloc(len), want[160];
	int flip = _i % ((int)nflips + 1), i;

	for (i = 0; i < (int)len; i += 2)
		memcpy(data + i, "y\n", 2);
	if (flip > 0) {
		at = flips[flip - 1];
		data[at] = data[at] == 'y' ? 'Y' : '\r';
	}
	if (_i / (int)(nflips + 1) == 1) {
		argv[3] = "-b";
		argv[4] = "7";
		len = 1000002; /* -b 7 is slow; flips past it stay unseen */
		if (at >= len)
			at = 0, data[0] = 'Y';
	}
	spawn_feed(&s, _i % 2 ? IN_FILE : IN_PIPE, data, len);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	if (flip == 0) {
		ck_assert_str_eq(r.err, "");
		ck_assert(r.exited && r.status == 0);
		ck_assert_uint_eq(r.out_len, len);
		ck_assert(memcmp(r.out, data, len) == 0);
	} else {
		/* The received line as far as the read that brought it. */
		snprintf(want, sizeof want,
			 "pipebench: mismatch at byte %zu, line %zu\n"
			 "pipebench: expected: \"y\"\n"
			 "pipebench: received: \"%s",
			 at, at / 2 + 1, at % 2 ? "" : "Y");
		ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0,
			      "flip at %zu: '%s'", at, r.err);
		if (at % 2)
			ck_assert(strstr(r.err, "\\x0d") != NULL);
		ck_assert(strchr(r.err + strlen(want), '\n')[1] == '\0');
		ck_assert(r.exited && r.status == 1);
		ck_assert(r.out_len <= at);
		ck_assert(memcmp(r.out, data, r.out_len) == 0);
	}
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * A correct stream of over 1 GiB from our yes (run by --exec) is never
 * reported, whatever the line; a longer line through pipe boundaries too.
 */
START_TEST(expect_long_stream)
{
	static const char *const order[] = {"min", "p50", "p90", "p99", "max"};
	int k;
	static const char *const lines[] = {"y", "a somewhat longer line", ""};
	char *yes = strdup(spawn_path("yes")), opt[64];
	const char *argv[] = {"pipebench", "-Q", opt, "--bytes=1100M", "--json",
			      "--exec",	   "--", yes, lines[_i],       NULL};
	struct spawn s = {0};
	struct spawn_result r;

	snprintf(opt, sizeof opt, "--expect-line=%s", lines[_i]);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_DEVNULL;
	spawn_pipebench(&s, &r, argv);
	ck_assert_msg(r.exited && r.status == 0, "'%s'", r.err);
	ck_assert_msg(strncmp(r.err, "{\"bytes\":1153433600,\"lines\":", 28) ==
			  0,
		      "'%s'", r.err);
	ck_assert(strtoull(r.err + 28, NULL, 10) ==
		  1153433600 / (strlen(lines[_i]) + 1));
	/* Interval rates, when the run spanned any: ordered statistics. */
	for (k = 1; spawn_json_number(r.err, "count") > 0 && k < 5; k++)
		ck_assert_msg(spawn_json_number(r.err, order[k - 1]) <=
				  spawn_json_number(r.err, order[k]),
			      "%s > %s: '%s'", order[k - 1], order[k], r.err);
	ck_assert(spawn_json_number(r.err, "count") == 0 ||
		  (spawn_json_number(r.err, "avg") >=
		       spawn_json_number(r.err, "min") &&
		   spawn_json_number(r.err, "avg") <=
		       spawn_json_number(r.err, "max")));
	spawn_free(&r);
	free(yes);
}
END_TEST

static size_t
lines_in(const char *p, size_t n)
{
	size_t c = 0;

	while (n--)
		c += *p++ == '\n';
	return c;
}

/*
 * --expect-file: equal passes; one byte short, one changed, one too many
 * are reported with offset, line and the lines (received as far as the
 * read that brought it).
 */
START_TEST(expect_file)
{
	size_t len = 300000, at = 123456, start;
	char *data = spawn_lines(len, DATA_LINE),
	     *path = spawn_temp_path(data, len), arg[64];
	const char *argv[] = {"pipebench", "-Q", arg, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char want[512];

	snprintf(arg, sizeof arg, "--expect-file=%s", path);
	for (start = at; data[start - 1] != '\n'; start--)
		;
	switch (_i % 4) {
	case 0:
		want[0] = '\0';
		break;
	case 1:
		snprintf(want, sizeof want,
			 "pipebench: stream ended at byte %zu, line %zu: %s is "
			 "longer\n",
			 len - 1, lines_in(data, len - 1) + 1, path);
		break;
	case 2:
		snprintf(want, sizeof want,
			 "pipebench: mismatch at byte %zu, line %zu\n"
			 "pipebench: expected: \"%.*s\"\n"
			 "pipebench: received: \"",
			 at, lines_in(data, at) + 1,
			 (int)(strchr(data + at, '\n') - data - start),
			 data + start);
		data[at] ^= 1;
		break;
	case 3:
		snprintf(want, sizeof want,
			 "pipebench: mismatch at byte %zu, line %zu: %s has "
			 "ended\n",
			 len, lines_in(data, len) + 1, path);
		data[len] = 'x';
		break;
	}
	spawn_feed(&s, _i / 4 ? IN_FILE : IN_PIPE, data,
		   len - (_i % 4 == 1) + (_i % 4 == 3));
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0 &&
			  (_i % 4 == 2 || r.err[strlen(want)] == '\0'),
		      "case %d: '%s'", _i, r.err);
	ck_assert(r.exited && r.status == (_i % 4 != 0));
	ck_assert(r.out_len <= at || _i % 4 != 2);
	unlink(path);
	free(path);
	spawn_free(&r);
	free(data);
}
END_TEST

static Suite *
pbverify_suite(void)
{
	Suite *s = suite_create("pbverify");
	TCase *tc = tcase_create("pbverify");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, expect_line, 0, 22);
	tcase_add_loop_test(tc, expect_long_stream, 0, 3);
	tcase_add_loop_test(tc, expect_file, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(pbverify_suite());
}
