/* SPDX-License-Identifier: MIT */
/*
 * The fuzz harnesses (fuzz_cat.c, fuzz_expect.c) in make check: the
 * committed corpus replayed, a fixed pseudo-random series, and -n's
 * counter seeded past 32 bits. `make fuzz` runs the same harnesses under
 * libFuzzer.
 */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spawn.h"

typedef int harness(const uint8_t *, size_t, char *, size_t);

/* Run every file of tests/corpus/NAME through h; returns how many. */
static int
replay(const char *name, harness *h)
{
	const char *src = getenv("FIO_SRCDIR");
	char dir[4096], path[4096 + 256], why[1024];
	struct dirent *e;
	unsigned char *data;
	int files = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "%s/tests/corpus/%s", src ? src : ".", name);
	d = opendir(dir);
	ck_assert_msg(d != NULL, "no corpus at %s", dir);
	data = malloc(1 << 20);
	ck_assert_ptr_nonnull(data);
	while ((e = readdir(d)) != NULL) {
		FILE *f;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		ck_assert_msg(f != NULL, "%s", path);
		n = fread(data, 1, 1 << 20, f);
		fclose(f);
		ck_assert_msg(h(data, n, why, sizeof why) == 0, "%s: %s", path,
			      why);
		files++;
	}
	closedir(d);
	free(data);
	return files;
}

START_TEST(corpus_cat)
{
	ck_assert_int_ge(replay("cat", fuzz_cat_one), 20);
}
END_TEST

START_TEST(corpus_expect)
{
	ck_assert_int_ge(replay("expect", fuzz_expect_one), 20);
}
END_TEST

/* Inputs from a fixed seed: the same series on every run. */
static void
series(harness *h, uint64_t seed, int runs, size_t max_len)
{
	unsigned char *data = malloc(max_len);
	char why[1024];
	uint64_t s = seed, r;
	size_t n, i;
	int k;

	ck_assert_ptr_nonnull(data);
	for (k = 0; k < runs; k++) {
		n = 9 + fuzz_rand(&s) % (max_len - 9);
		/* Bytes from a small alphabet make lines, blank runs and
		 * CR LF pairs; the rest are anything. */
		for (i = 0; i < n; i++) {
			r = fuzz_rand(&s);
			data[i] = i < 9 || r % 4 == 0
				      ? (unsigned char)(r >> 8)
				      : (unsigned char)"\n\n\n\r\tab\x80\xff"
					    [(r >> 8) % 9];
		}
		ck_assert_msg(h(data, n, why, sizeof why) == 0, "run %d: %s", k,
			      why);
	}
	free(data);
}

START_TEST(series_cat)
{
	series(fuzz_cat_one, 1, 20000, 3000);
}
END_TEST

START_TEST(series_expect)
{
	series(fuzz_expect_one, 2, 2000, 600);
}
END_TEST

/*
 * -n past 32 bits (GNU keeps the counter as digits, so it never wraps):
 * every loop, from a seeded start, gives exactly these lines.
 */
static const struct {
	uint64_t first;
	const char *opts, *in, *out;
} counters[] = {
    {4294967295u, "n", "a\nb\n", "4294967295\ta\n4294967296\tb\n"},
    {4294967295u, "b", "a\n\nb\n", "4294967295\ta\n\n4294967296\tb\n"},
    {4294967295u, "nE", "\n\n", "4294967295\t$\n4294967296\t$\n"},
    {999999, "n", "a\nb\nc", "999999\ta\n1000000\tb\n1000001\tc"},
    {99, "n", "x\n", "    99\tx\n"},
    {9999999999999999u, "n", "a\nb\n",
     "9999999999999999\ta\n10000000000000000\tb\n"},
    {9999999999999999999u, "n", "a\nb\n",
     "9999999999999999999\ta\n10000000000000000000\tb\n"},
};

START_TEST(line_counter)
{
	static const int scans[] = {8, 16, 0, 32};
	const unsigned char *in = (const unsigned char *)counters[_i].in;
	size_t len = strlen(counters[_i].in), got_len, want_len;
	struct cat_run r = {{0}, 0, counters[_i].first, 1 << 16, 0};
	char *got, *want;
	int k;

	r.opt.n = strchr(counters[_i].opts, 'n') != NULL;
	r.opt.b = strchr(counters[_i].opts, 'b') != NULL;
	r.opt.E = strchr(counters[_i].opts, 'E') != NULL;
	want = fuzz_cat_reference(&r, in, len, &want_len);
	ck_assert_str_eq(want, counters[_i].out);
	for (k = 0; k < 4; k++) {
		r.scan = scans[k];
		got = fuzz_cat_engine(&r, in, len, &got_len);
		got[got_len] = '\0';
		ck_assert_msg(strcmp(got, counters[_i].out) == 0,
			      "scan %d: got \"%s\"", r.scan, got);
		free(got);
	}
	free(want);
}
END_TEST

static Suite *
fuzz_suite(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("corpus");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, corpus_cat);
	tcase_add_test(tc, corpus_expect);
	tcase_add_test(tc, series_cat);
	tcase_add_test(tc, series_expect);
	suite_add_tcase(s, tc);

	tc = tcase_create("counter");
	tcase_add_loop_test(tc, line_counter, 0,
			    (int)(sizeof counters / sizeof counters[0]));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(fuzz_suite());
}
