/* SPDX-License-Identifier: MIT */
/*
 * pipebench --exec and --compare (src/pipebench/compare.c, table.c):
 * producers on pipes of our own, exit statuses, interleaved runs, the
 * table and its ratios, --export-json, --export-markdown, --reference,
 * the bad uses refused before any run; --plot and --export-csv.
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
#define TRY	  "Try 'pipebench --help' for more information.\n"

/* --exec: the producer's status is ours; its output passes through. */
START_TEST(exec)
{
	char *yes = strdup(spawn_path("yes"));
	const char *argv[][9] = {
	    {"pipebench", "-q", "--json", "--bytes=3000000", "--exec", "--",
	     yes, "abc", NULL},
	    {"pipebench", "-Q", "--json", "--exec", "--", "sh", "-c",
	     "printf 'a\\nb\\n'; exit 3", NULL},
	    {"pipebench", "-Q", "--json", "--exec", "--", "sh", "-c",
	     "kill -TERM $$", NULL},
	};
	static const int status[] = {0, 3, 128 + SIGTERM};
	struct spawn s = {0};
	struct spawn_result r;
	char msg[256];

	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv[_i]);
	ck_assert_msg(r.exited && r.status == status[_i], "status %d: '%s'",
		      r.status, r.err);
	if (_i == 0) {
		ck_assert(lines_check(r.out, r.out_len, "abc\n", 4, 1, msg,
				      sizeof msg) == 0);
		ck_assert_uint_eq(r.out_len, 3000000);
		ck_assert(spawn_json_number(r.err, "producer_signal") ==
			  SIGPIPE);
		ck_assert(spawn_json_number(r.err, "input_pipe_size") ==
			  1048576);
	} else if (_i == 1) {
		ck_assert(r.out_len == 4 && memcmp(r.out, "a\nb\n", 4) == 0);
		ck_assert(
		    strncmp(r.err, "pipebench: sh: exit status 3\n{", 30) == 0);
		ck_assert(spawn_json_number(r.err, "producer_status") == 3);
	} else {
		ck_assert(strncmp(r.err,
				  "pipebench: sh: killed by signal 15\n{",
				  35) == 0);
		ck_assert(spawn_json_number(r.err, "producer_signal") ==
			  SIGTERM);
	}
	spawn_free(&r);
	free(yes);
}
END_TEST

/*
 * --compare: every command runs warmup + runs times, interleaved; one
 * table row each, in order, the first with ratio 1.00.
 */
/*
 * "| NAME | MEAN ± SD/s | MEDIAN/s | MIN - MAX/s | T s | RATIO |": the
 * median in bytes, and the ratio.
 */
static double
row_rate(const char *row, double *ratio)
{
	const char *median = strstr(strstr(row, " | ") + 3, " | ") + 3, *p;
	double v = strtod(median, NULL);

	for (p = strstr(row, " |\n") - 1; *p != ' '; p--)
		;
	*ratio = strtod(p, NULL);
	p = strstr(median, "B/s");
	/* Our tables' units are decimal: GB = 10^9 B. */
	switch (p[-1]) {
	case 'k':
		return v * 1e3;
	case 'M':
		return v * 1e6;
	case 'G':
		return v * 1e9;
	case 'T':
		return v * 1e12;
	default:
		return v;
	}
}

/*
 * --compare: every command runs warmup + runs times, interleaved (or
 * shuffled); one table row each, in order, the first with ratio 1.00.
 */
START_TEST(compare)
{
	const char *argv[] = {"pipebench",
			      "--compare",
			      "--runs=3",
			      "--warmup=1",
			      "--json",
			      "head -c 300000 /dev/zero",
			      "--name=zeros",
			      "--name=two lines",
			      "echo one; echo two",
			      _i == 1 ? "--expect-line=one" : "--bytes=1M",
			      _i == 2 ? "--shuffle" : NULL,
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *p;
	double ratio;
	int runs = 0;

	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	if (_i == 1) { /* neither stream is "one" repeated */
		ck_assert(r.exited && r.status == 1);
		ck_assert(strstr(r.err,
				 "pipebench: mismatch at byte 0, line "
				 "1\npipebench: expected: \"one\"\n"
				 "pipebench: received: \"\\x00") != NULL);
		ck_assert(strstr(r.err,
				 "pipebench: mismatch at byte 4, line "
				 "2\npipebench: expected: \"one\"\n"
				 "pipebench: received: \"two\"\n") != NULL);
		spawn_free(&r);
		return;
	}
	ck_assert_msg(r.exited && r.status == 0, "'%s'", r.err);
	for (p = r.err; (p = strstr(p, "\nrun ")) != NULL; p++)
		runs++;
	ck_assert_int_eq(runs, 6);
	ck_assert(strstr(r.err, "warmup 1/1: echo one; echo two: 8.00 B in") !=
		  NULL);
	ck_assert(strstr(r.err, "run 3/3: head -c 300000 /dev/zero: 300.00 kB "
				"in") != NULL);
	p = "| command | rate, mean ± σ (GB = 10^9 B) | median | min - max | "
	    "time (median) | vs first |\n|:--|--:|--:|--:|--:|--:|\n| zeros | ";
	ck_assert_msg(strncmp(r.out, p, strlen(p)) == 0, "'%s'", r.out);
	ck_assert(row_rate(r.out + strlen(p) - 10, &ratio) > 0 && ratio == 1.0);
	p = strstr(r.out, " | 1.00 |\n| two lines | ");
	ck_assert_msg(p != NULL, "'%s'", r.out);
	/* The second row's ratio is its rate over the first's. */
	{
		double first = row_rate(strstr(r.out, "| zeros"), &ratio);
		double second = row_rate(p + 10, &ratio);

		ck_assert_msg(ratio >= 0 && ratio < 1 &&
				  ratio > second / first * 0.9 - 0.006 &&
				  ratio < second / first * 1.1 + 0.006,
			      "'%s'", r.out);
	}
	p = strchr(p + 10, '\n');
	ck_assert(p != NULL && p[1] == '\0');
	p = strstr(r.err, "{\"reference\":\"zeros\",\"results\":[{\"command\":"
			  "\"head -c 300000 /dev/zero\",\"name\":\"zeros\","
			  "\"median\":");
	ck_assert(p != NULL);
	ck_assert(strstr(p, "\"ratio\":1.0000,\"rates\":[") != NULL);
	ck_assert(strstr(p, "\"name\":\"zeros\"") != NULL);
	ck_assert(strstr(p, "},{\"command\":\"echo one; echo two\","
			    "\"name\":\"two lines\"") != NULL);
	spawn_free(&r);
}
END_TEST

/* --wall --size: commands that write elsewhere are timed start to exit. */
START_TEST(compare_wall)
{
	const char *argv[] = {"pipebench", "--compare",	 "-q",
			      "--runs=1",  "--warmup=0", "--wall",
			      "--size=1M", "true",	 NULL};
	struct spawn s = {0};
	struct spawn_result r;
	double ratio;

	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert_msg(r.exited && r.status == 0 && r.err[0] == '\0', "'%s'",
		      r.err);
	ck_assert(strstr(r.out, "| `true` | ") != NULL);
	ck_assert(row_rate(strstr(r.out, "| `true` | "), &ratio) > 0);
	ck_assert(ratio == 1.0);
	spawn_free(&r);
}
END_TEST

/*
 * --export-json: every run of every command, with its exit status and
 * its producer's peak RSS; --export-markdown: the table of stdout;
 * --reference: the ratios to the command it names.
 */
START_TEST(compare_exports)
{
	char json[] = "/tmp/fastio-export-XXXXXX", md[64], jopt[96], mopt[96];
	const char *argv[] = {"pipebench",
			      "--compare",
			      "-q",
			      "--runs=3",
			      "--warmup=0",
			      jopt,
			      mopt,
			      "--name=zeros",
			      "head -c 300000 /dev/zero",
			      "--name=fails",
			      "head -c 1000 /dev/zero; exit 3",
			      "--reference=fails",
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char *j, *m, *p;
	size_t len;
	int runs = 0, fd = mkstemp(json);

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(md, sizeof md, "%s.md", json);
	snprintf(jopt, sizeof jopt, "--export-json=%s", json);
	snprintf(mopt, sizeof mopt, "--export-markdown=%s", md);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited && r.status == 1);
	ck_assert(strstr(r.err, "pipebench: head -c 1000 /dev/zero; exit 3: "
				"exit status 3\n") != NULL);
	ck_assert(strstr(r.out, "| time (median) | vs fails |\n") != NULL);
	ck_assert(strstr(r.out, "| fails | ") != NULL);
	p = strstr(r.out, "| fails | ");
	ck_assert(strstr(p, " | 1.00 |\n") != NULL);
	m = spawn_slurp(md, &len);
	ck_assert_str_eq(m, r.out);
	j = spawn_slurp(json, &len);
	p = "{\"reference\":\"fails\",\"results\":[";
	ck_assert(strncmp(j, p, strlen(p)) == 0);
	for (p = j; (p = strstr(p, "{\"rate\":")) != NULL; p++)
		runs++;
	ck_assert_int_eq(runs, 6);
	ck_assert(strstr(j, "\"bytes\":300000,\"exit_status\":0,"
			    "\"peak_rss_kb\":") != NULL);
	ck_assert(strstr(j, "\"bytes\":1000,\"exit_status\":3,"
			    "\"peak_rss_kb\":") != NULL);
	ck_assert(strstr(j, "\"mean\":") && strstr(j, "\"stddev\":"));
	ck_assert(j[strlen(j) - 1] == '\n');
	unlink(json);
	unlink(md);
	free(j);
	free(m);
	spawn_free(&r);
}
END_TEST

/*
 * Bad uses of the new options: GNU-style message, status 1 (2 for an
 * export that cannot be written), no run made and no file half-written.
 */
START_TEST(export_errors)
{
	static const struct {
		const char *args[4], *err;
	} cases[] = {
	    {{"--export-json=/nonexistent/x.json", "--compare", "true"},
	     "pipebench: /nonexistent/x.json: No such file or directory\n"},
	    {{"--export-markdown=/nonexistent/x.md", "--compare", "true"},
	     "pipebench: /nonexistent/x.md: No such file or directory\n"},
	    {{"--export-csv=/nonexistent/x.csv"},
	     "pipebench: /nonexistent/x.csv: No such file or directory\n"},
	    {{"--reference=nothere", "--compare", "true"},
	     "pipebench: --reference: no command named nothere\n"},
	    {{"--export-json=x.json"},
	     "pipebench: --export-json, --export-markdown and --reference "
	     "need --compare\n" TRY},
	    {{"--plot", "--compare", "true"},
	     "pipebench: --plot and --export-csv are for a single run\n" TRY},
	    {{"--runs=x", "--compare", "true"},
	     "pipebench: invalid number of runs: x\n" TRY},
	};
	const char *argv[6] = {"pipebench"};
	struct spawn s = {0};
	struct spawn_result r;
	int i;

	for (i = 0; i < 4 && cases[_i].args[i]; i++)
		argv[i + 1] = cases[_i].args[i];
	spawn_feed(&s, IN_PIPE, "data\n", 5);
	s.out = OUT_PIPE;
	spawn_pipebench(&s, &r, argv);
	ck_assert(r.exited &&
		  r.status == (strstr(r.err, "nonexistent") != NULL ? 2 : 1));
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert_uint_eq(r.out_len, 0);
	spawn_free(&r);
}
END_TEST

/*
 * --plot and --export-csv after a single run (of our yes, through
 * --exec, for long enough to give samples): the chart, in ASCII under
 * LC_ALL=C, follows the summary; the CSV has its header and samples.
 */
START_TEST(plot_and_csv)
{
	char csv[] = "/tmp/fastio-csv-XXXXXX", copt[64],
	     *yes = strdup(spawn_path("yes"));
	const char *argv[] = {"pipebench",  "-q",      "--plot", copt,
			      "--bytes=3G", "--touch", "--exec", "--",
			      yes,	    NULL};
	const char *env[] = {"LC_ALL=C", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *chart;
	char *text;
	size_t len;
	int fd = mkstemp(csv);

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(copt, sizeof copt, "--export-csv=%s", csv);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.env = env;
	s.out = OUT_DEVNULL;
	spawn_pipebench(&s, &r, argv);
	ck_assert_msg(r.exited && r.status == 0, "'%s'", r.err);
	ck_assert_msg(strstr(r.err, "Summary:\nPiped    3.00 GB in ") != NULL,
		      "'%s'", r.err);
	/* The samples depend on how long the run took: the chart shows them
	 * all, or says there were none, as the CSV does. */
	chart = strstr(r.err, "/second\n") + 8;
	text = spawn_slurp(csv, &len);
	ck_assert(strncmp(text, "seconds,bytes,rate\n", 19) == 0);
	if (text[19] == '\0')
		ck_assert_str_eq(chart, "(no rate samples: the run took less "
					"than 0.1 s)\n");
	else
		ck_assert_msg(strncmp(chart + 10, "/s |", 4) == 0 &&
				  strstr(chart, "\n             +-") != NULL &&
				  strstr(chart, "\n             0s") != NULL,
			      "'%s'", r.err);
	free(text);
	free(yes);
	unlink(csv);
	spawn_free(&r);
}
END_TEST

static Suite *
pbcompare_suite(void)
{
	Suite *s = suite_create("pbcompare");
	TCase *tc = tcase_create("pbcompare");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, exec, 0, 3);
	tcase_add_loop_test(tc, compare, 0, 3);
	tcase_add_test(tc, compare_wall);
	tcase_add_test(tc, compare_exports);
	tcase_add_loop_test(tc, export_errors, 0, 7);
	tcase_add_test(tc, plot_and_csv);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(pbcompare_suite());
}
