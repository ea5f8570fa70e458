/* SPDX-License-Identifier: MIT */
/*
 * pipebench's parts in-process (src/pb_*.c): the units of sizes and
 * rates, the durations, the JSON writer, the statistics, the checker's
 * line counts and its report of a mismatch.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipebench/pipebench.h"
#include "prog.h"
#include "spawn.h"

/* What pipebench/pipebench.c defines: the options, and where the status goes.
 */
static struct pb_options options;
const struct pb_options *pb_opt = &options;
FILE *pb_status;

START_TEST(amounts)
{
	static const struct {
		uint64_t v;
		int si, no_units;
		const char *want;
	} cases[] = {
	    {0, 0, 0, "   0.00 B"},
	    {1024, 0, 0, "1024.00 B"},
	    {1025, 0, 0, "   1.00 kB"},
	    {1048576, 0, 0, "1024.00 kB"},
	    {1001, 1, 0, "   1.00 kB"},
	    {123456, 0, 1, " 123456 B"},
	    /* Truncated, as 0.40 does (check_pb040 has the rest). */
	    {10000, 0, 0, "   9.76 kB"},
	    {1048575, 0, 0, "1023.99 kB"},
	};
	char buf[32];

	options.si = cases[_i].si;
	options.no_units = cases[_i].no_units;
	ck_assert_str_eq(pb_amount(buf, sizeof buf, cases[_i].v),
			 cases[_i].want);
}
END_TEST

START_TEST(durations)
{
	char buf[32];

	ck_assert_str_eq(pb_duration(buf, sizeof buf, 0), "00h00m00.00s");
	ck_assert_str_eq(pb_duration(buf, sizeof buf, 3661500000),
			 "01h01m01.50s");
	/* Hundredths truncate, as 0.40's do. */
	ck_assert_str_eq(pb_duration(buf, sizeof buf, 59999999),
			 "00h00m59.99s");
	ck_assert_str_eq(pb_duration(buf, sizeof buf, 360000000000),
			 "100h00m00.00s");
}
END_TEST

START_TEST(json_writer)
{
	char *text = NULL;
	size_t len = 0;
	struct pb_json j;
	FILE *f = open_memstream(&text, &len);

	pb_json_open(&j, f);
	pb_json_u64(&j, "bytes", 12);
	pb_json_string(&j, "name", "a \"b\"\\\n");
	pb_json_begin(&j, "rates", '[');
	pb_json_real(&j, NULL, 1.5, 1);
	pb_json_real(&j, NULL, 2, 0);
	pb_json_end(&j, ']');
	pb_json_begin(&j, "inner", '{');
	pb_json_bool(&j, "stopped", 1);
	pb_json_end(&j, '}');
	pb_json_close(&j);
	fclose(f);
	ck_assert_str_eq(text,
			 "{\"bytes\":12,\"name\":\"a \\\"b\\\"\\\\\\u000a\","
			 "\"rates\":[1.5,2],\"inner\":{\"stopped\":true}}"
			 "\n");
	free(text);
}
END_TEST

START_TEST(statistics)
{
	double v[] = {1, 2, 3, 4}, one[] = {7};

	ck_assert(pb_median(v, 4) == 2.5);
	ck_assert(pb_median(v, 3) == 2);
	ck_assert(pb_median(one, 1) == 7);
	ck_assert(pb_rank(v, 4, 0.5) == 2);
	ck_assert(pb_rank(v, 4, 0.9) == 4);
	ck_assert(pb_rank(v, 4, 0) == 1);
}
END_TEST

START_TEST(line_counts)
{
	static const char s[] = "a\nbb\n\nccc\n0123456789\nend";
	struct pb_expect e;
	size_t i;
	uint64_t naive = 0;

	for (i = 0; i < sizeof s - 1; i++) {
		ck_assert_uint_eq(pb_count_lines(s, i), naive);
		naive += s[i] == '\n';
	}
	ck_assert_int_eq(pb_expect_line(&e, "xy"), 0);
	ck_assert_uint_eq(pb_lines_before(&e, 0), 0);
	ck_assert_uint_eq(pb_lines_before(&e, 3), 1);
	ck_assert_uint_eq(pb_lines_before(&e, 3000000001), 1000000000);
	free(e.buf);
}
END_TEST

/* A changed byte: its offset, its line, both lines shown. */
START_TEST(mismatch_report)
{
	char *text = NULL;
	size_t len = 0;
	struct pb_expect e;

	prog_init("pipebench");
	ck_assert_int_eq(pb_expect_line(&e, "y"), 0);
	e.err = open_memstream(&text, &len);
	ck_assert_int_eq(pb_verify(&e, "y\ny\n", 4, 0), 0);
	ck_assert_int_eq(pb_verify(&e, "y\nn\n", 4, 4), -1);
	fclose(e.err);
	ck_assert_str_eq(text, "pipebench: mismatch at byte 6, line 4\n"
			       "pipebench: expected: \"y\"\n"
			       "pipebench: received: \"n\"\n");
	free(text);
	free(e.buf);
}
END_TEST

/* Fixed data through --compare's statistics and hyperfine's rule. */
START_TEST(compare_statistics)
{
	static const double flat[] = {10, 10, 10, 10, 10},
			    rates[] = {1, 2, 3, 4, 5}, even[] = {1, 1, 1, 1, 1},
			    slow_first[] = {5, 1, 1.01, 0.99, 1},
			    outlier[] = {1, 1, 1.01, 0.99, 3},
			    spread[] = {1.0, 1.1, 0.9, 1.05, 0.95};
	struct pb_stats st;

	pb_stats(flat, even, 5, &st);
	ck_assert(st.mean == 10 && st.sd == 0 && st.median == 10);
	ck_assert(!st.outliers && !st.slow_first);
	pb_stats(rates, spread, 4, &st);
	ck_assert(st.mean == 2.5 && st.median == 2.5);
	ck_assert(st.min == 1 && st.max == 4);
	ck_assert(st.sd > 1.29099 && st.sd < 1.29100); /* sqrt(5/3) */
	ck_assert(!st.outliers && !st.slow_first);
	pb_stats(rates, slow_first, 5, &st);
	ck_assert(st.slow_first && st.outliers);
	pb_stats(rates, outlier, 5, &st);
	ck_assert(!st.slow_first && st.outliers);
	/* No spread at all: any other value is an outlier. */
	pb_stats(rates, (const double[]){1, 1, 1, 1, 2}, 5, &st);
	ck_assert(!st.slow_first && st.outliers);
	pb_stats(rates, (const double[]){1}, 1, &st);
	ck_assert(st.sd == 0 && !st.outliers);
}
END_TEST

/* The chart of four samples, in ASCII and in block characters. */
START_TEST(plot)
{
	static const struct pb_sample s[] = {
	    {0.1, 100, 10}, {0.2, 200, 30}, {0.3, 400, 70}, {0.4, 0, 70}};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	options.si = options.no_units = 0;
	pb_plot(f, s, 4, 80, 0);
	pb_plot(f, s, 4, 80, 1);
	fclose(f);
	ck_assert_str_eq(text, "  400.00 B/s |  # \n"
			       "             |  # \n"
			       "             |  # \n"
			       "             |  # \n"
			       "             | ## \n"
			       "             | ## \n"
			       "             |### \n"
			       "             |### \n"
			       "             +----\n"
			       "             0s0.4s\n"
			       "  400.00 B/s │  █ \n"
			       "             │  █ \n"
			       "             │  █ \n"
			       "             │  █ \n"
			       "             │ ██ \n"
			       "             │ ██ \n"
			       "             │███ \n"
			       "             │███ \n"
			       "             └────\n"
			       "             0s0.4s\n");
	free(text);
}
END_TEST

/*
 * Samples that do not fit are averaged in buckets, and eighths show: 100
 * samples in 26 columns, the rate halved after the 52nd. The column that
 * holds both averages them to 6 5/8 of the 8 rows (six full blocks and a
 * five-eighths one above); the half rate fills rows 5 to 8 and nothing
 * above.
 */
START_TEST(plot_buckets)
{
	struct pb_sample s[100];
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	for (i = 0; i < 100; i++)
		s[i] = (struct pb_sample){0.1 * (double)(i + 1),
					  i < 52 ? 1000 : 500, 0};
	pb_plot(f, s, 100, 40, 1);
	fclose(f);
	ck_assert_str_eq(text, "   1.00 kB/s │█████████████             \n"
			       "             │█████████████▅            \n"
			       "             │██████████████            \n"
			       "             │██████████████            \n"
			       "             │██████████████████████████\n"
			       "             │██████████████████████████\n"
			       "             │██████████████████████████\n"
			       "             │██████████████████████████\n"
			       "             └──────────────────────────\n"
			       "             0s                    10.0s\n");
	free(text);
}
END_TEST

/*
 * The verdict (verdict.c, pb_verdict_decide): each stage's share of the
 * looks in which it worked (shared where several did), the source's
 * (looks in which none did, the first stage waiting on our standard
 * input), and the looks: the stage whose own work held most of them,
 * and at least a quarter; else the source. Made-up counts of the shapes
 * that matter: a filter on the CPU behind a cat that only waits, sort
 * working after its input ended, a throttled source outside, a slow
 * sink, a sleeping stage (pv -L), two stages working side by side.
 */
START_TEST(verdicts)
{
	static const struct {
		const char *what;
		int n;
		double held[4], source;
		unsigned looks;
		int want;
	} cases[] = {
	    {"cat | python | gzip | md5sum", 4, {1, 90, 8, 1}, 0, 100, 1},
	    {"zcat | sort | uniq: sort after its input",
	     3,
	     {20, 70, 10},
	     0,
	     100,
	     1},
	    {"a throttled source outside", 3, {2, 3, 1}, 94, 100, -1},
	    {"a slow sink", 3, {5, 5, 90}, 0, 100, 2},
	    {"pv -L between", 3, {1, 98, 1}, 0, 100, 1},
	    {"two side by side: the larger", 2, {45, 55}, 0, 100, 1},
	    {"none held a quarter", 4, {20, 20, 20, 20}, 20, 100, -1},
	    {"the source and a stage: the larger", 2, {40, 5}, 55, 100, -1},
	    {"no look at all", 2, {0, 0}, 0, 0, -1},
	};
	int i;

	for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
		ck_assert_msg(pb_verdict_decide(
				  cases[i].held, cases[i].n, cases[i].source,
				  cases[i].looks) == cases[i].want,
			      "%s", cases[i].what);
}
END_TEST

/* The fields of a stat line, numbered as proc(5) numbers them, after a
 * command that holds spaces and ")": written to a file and read back as
 * pb_stat_fields reads /proc. */
START_TEST(stat_fields)
{
	char path[] = "/tmp/pbstat.XXXXXX", line[512];
	const char *p;
	FILE *f;
	int fd;

	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	fputs("4242 (a b) c) S 17 4242 4242 0 -1 4194560 1 2 3 4 55 66 "
	      "0 0 20 0 3 0 99\n",
	      f);
	fclose(f);
	p = pb_stat_fields(path, line, sizeof line);
	unlink(path);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(*p, 'S');
	ck_assert_uint_eq(pb_stat_field(p, PB_STAT_PPID), 17);
	ck_assert_uint_eq(pb_stat_field(p, PB_STAT_UTIME), 55);
	ck_assert_uint_eq(pb_stat_field(p, PB_STAT_STIME), 66);
	ck_assert_uint_eq(pb_stat_field(p, PB_STAT_THREADS), 3);
	ck_assert_uint_eq(pb_stat_field(p, 40), 0);
}
END_TEST

static Suite *
pbparts_suite(void)
{
	Suite *s = suite_create("pbparts");
	TCase *tc = tcase_create("pbparts");

	tcase_add_loop_test(tc, amounts, 0, 8);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, json_writer);
	tcase_add_test(tc, statistics);
	tcase_add_test(tc, line_counts);
	tcase_add_test(tc, mismatch_report);
	tcase_add_test(tc, compare_statistics);
	tcase_add_test(tc, plot);
	tcase_add_test(tc, plot_buckets);
	tcase_add_test(tc, stat_fields);
	tcase_add_test(tc, verdicts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(pbparts_suite());
}
