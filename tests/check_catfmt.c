/* SPDX-License-Identifier: MIT */
/*
 * cat's formatter (src/cat/format.c) in-process: GNU's output for known
 * inputs, the same output wherever the input is cut into buffers and
 * however small the output buffer, through every loop.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat/format.h"
#include "spawn.h"

static const enum catfmt_scan scans[] = {CATFMT_SCAN_BEST, CATFMT_SCAN_PORTABLE,
					 CATFMT_SCAN_GENERAL, CATFMT_SCAN_AVX2};
#define NSCANS 4

/*
 * An output buffer collecting everything flushed into a growing string.
 * Each flush hands the formatter the other of two buffers, as cat's
 * writer does (fastio.h), and fills the one given back with junk: a loop
 * that kept a pointer into it shows.
 */
struct sink {
	struct cat_out out;
	char *all, *two[2];
	size_t len, flushes, cap;
};

static void
collect(struct cat_out *b)
{
	struct sink *k = (struct sink *)b;
	size_t n = (size_t)(b->o - b->buf);

	k->all = realloc(k->all, k->len + n + 1);
	ck_assert_ptr_nonnull(k->all);
	memcpy(k->all + k->len, b->buf, n);
	k->len += n;
	k->all[k->len] = '\0';
	k->flushes++;
	memset(b->buf, '#', k->cap);
	b->buf = b->buf == k->two[0] ? k->two[1] : k->two[0];
	b->o = b->buf;
	b->limit = b->buf + k->cap - CATFMT_SLACK;
}

static void
sink_init(struct sink *k, size_t cap)
{
	memset(k, 0, sizeof *k);
	k->cap = cap;
	k->two[0] = malloc(cap);
	k->two[1] = malloc(cap);
	ck_assert_ptr_nonnull(k->two[0]);
	ck_assert_ptr_nonnull(k->two[1]);
	k->out.buf = k->out.o = k->two[0];
	k->out.limit = k->out.buf + cap - CATFMT_SLACK;
	k->out.flush = collect;
}

/*
 * Format in[0..len) given as buffers that end at the offsets in cuts
 * (each copied to its own allocation with the overread bytes as junk).
 */
static char *
format(const struct cat_options *opt, enum catfmt_scan scan, const char *in,
       size_t len, const size_t *cuts, size_t ncuts, size_t cap,
       size_t *out_len, size_t *flushes)
{
	struct catfmt f;
	struct sink k;
	size_t at = 0, i, end;
	char *buf;

	sink_init(&k, cap);
	catfmt_init(&f, opt, &k.out, scan);
	for (i = 0; i <= ncuts; i++) {
		end = i < ncuts ? cuts[i] : len;
		if (end <= at)
			continue;
		buf = malloc(end - at + CATFMT_OVERREAD);
		ck_assert_ptr_nonnull(buf);
		memcpy(buf, in + at, end - at);
		memset(buf + end - at, '\n', CATFMT_OVERREAD);
		catfmt_buffer(&f, buf, buf + (end - at));
		free(buf);
		at = end;
	}
	catfmt_finish(&f);
	collect(&k.out);
	free(k.two[0]);
	free(k.two[1]);
	*out_len = k.len;
	if (flushes != NULL)
		*flushes = k.flushes;
	return k.all;
}

/* GNU cat 9.1's output for one small input, per option set. */
static const char known_in[] = "a\tb\r\n\n\n\nc\001\377d\r\nlast";
static const struct {
	struct cat_options opt;
	const char *want;
} known[] = {
    {{1, 0, 0, 0, 0, 0},
     "     1\ta\tb\r\n     2\t\n     3\t\n     4\t\n     5\tc\001\377d\r\n"
     "     6\tlast"},
    {{1, 1, 0, 0, 0, 0},
     "     1\ta\tb\r\n\n\n\n     2\tc\001\377d\r\n     3\tlast"},
    {{0, 0, 1, 0, 0, 0}, "a\tb\r\n\nc\001\377d\r\nlast"},
    {{0, 0, 0, 1, 0, 0}, "a\tb^M$\n$\n$\n$\nc\001\377d^M$\nlast"},
    {{0, 0, 0, 0, 1, 0}, "a^Ib\r\n\n\n\nc\001\377d\r\nlast"},
    {{0, 0, 0, 0, 0, 1}, "a\tb^M\n\n\n\nc^AM-^?d^M\nlast"},
    {{0, 0, 0, 1, 1, 1}, "a^Ib^M$\n$\n$\n$\nc^AM-^?d^M$\nlast"},
    {{1, 0, 1, 1, 0, 0},
     "     1\ta\tb^M$\n     2\t$\n     3\tc\001\377d^M$\n     4\tlast"},
};
#define NKNOWN (int)(sizeof known / sizeof known[0])

START_TEST(known_outputs)
{
	int k = _i % NKNOWN;
	size_t len;
	char *got = format(&known[k].opt, scans[_i / NKNOWN], known_in,
			   sizeof known_in - 1, NULL, 0, CAT_BUF, &len, NULL);

	ck_assert_uint_eq(len, strlen(known[k].want));
	ck_assert_msg(memcmp(got, known[k].want, len) == 0, "set %d: %s", k,
		      got);
	free(got);
}
END_TEST

/*
 * Cut in two at every offset, and with a 1-byte output room past the
 * slack (a flush at every step): the output of one buffer each time. The
 * input runs past 64 bytes so that every loop's chunks are used, and is
 * drawn from the bytes that need work, so that lines, CR LF pairs and
 * runs of empty lines end up on both sides of every chunk and cut.
 */
START_TEST(any_cut)
{
	static const char alphabet[] = "aaaa\r\n\n\t\001\377";
	int k = _i % NKNOWN;
	char in[400];
	size_t len = sizeof in, whole_len, got_len, flushes, cut, i;
	char *whole, *got;
	uint32_t r = 12345;

	for (i = 0; i < len; i++) {
		r = r * 1103515245u + 12345u;
		in[i] = alphabet[(r >> 16) % (sizeof alphabet - 1)];
	}
	whole = format(&known[k].opt, scans[_i / NKNOWN], in, len, NULL, 0,
		       CAT_BUF, &whole_len, NULL);
	for (cut = 1; cut < len; cut++) {
		got = format(&known[k].opt, scans[_i / NKNOWN], in, len, &cut,
			     1, CATFMT_SLACK + 1, &got_len, &flushes);
		ck_assert_msg(got_len == whole_len &&
				  memcmp(got, whole, got_len) == 0,
			      "set %d cut at %zu", k, cut);
		ck_assert_uint_gt(flushes, 2);
		free(got);
	}
	free(whole);
}
END_TEST

/* The counter widens past 999999 and carries through every digit. */
START_TEST(number_widens)
{
	static const struct cat_options n = {1, 0, 0, 0, 0, 0};
	struct catfmt f;
	struct sink k;
	char in[6 + CATFMT_OVERREAD] = "x\nx\nx\n";

	sink_init(&k, CAT_BUF);
	catfmt_init(&f, &n, &k.out, scans[_i]);
	catfmt_number_from(&f, 999999);
	catfmt_buffer(&f, in, in + 6);
	catfmt_number_from(&f, 99999999999);
	catfmt_buffer(&f, in, in + 2);
	catfmt_finish(&f);
	collect(&k.out);
	ck_assert_str_eq(k.all, "999999\tx\n1000000\tx\n1000001\tx\n"
				"99999999999\tx\n");
	free(k.two[0]);
	free(k.two[1]);
	free(k.all);
}
END_TEST

/*
 * Every line's number equals printf's, across each carry into the tens
 * (one add inside a word) and beyond, for a run of 1,100,000 lines and
 * around numbers whose digits straddle the counter's two words; with -n
 * and with -b, whose input has an empty line after each numbered one.
 */
START_TEST(number_counts)
{
	static const struct cat_options opts[] = {{1, 0, 0, 0, 0, 0},
						  {1, 1, 0, 0, 0, 0}};
	static const long long from[] = {1,
					 999990,
					 9999999990,
					 99999999999990,
					 999999999999990,
					 9999999999999990};
	int nonblank = _i / 6 % 2;
	const char *line = nonblank ? "x\n\n" : "x\n";
	size_t step = strlen(line);
	long long first = from[_i % 6], count = _i % 6 ? 300 : 1100000, i;
	struct catfmt f;
	struct sink k;
	char *in, want[32], *p;
	size_t len;

	in = malloc((size_t)count * step + CATFMT_OVERREAD);
	ck_assert_ptr_nonnull(in);
	for (i = 0; i < count; i++)
		memcpy(in + step * (size_t)i, line, step);
	sink_init(&k, CAT_BUF);
	catfmt_init(&f, &opts[nonblank], &k.out, scans[_i / 12]);
	catfmt_number_from(&f, first);
	catfmt_buffer(&f, in, in + step * (size_t)count);
	catfmt_finish(&f);
	collect(&k.out);
	p = k.all;
	for (i = first; i < first + count; i++) {
		len = (size_t)snprintf(want, sizeof want, "%6lld\tx\n%s", i,
				       nonblank ? "\n" : "");
		/* Check records every assertion it passes: fail alone. */
		if (strncmp(p, want, len) != 0)
			ck_abort_msg("line %lld: '%.*s'", i, (int)len, p);
		p += len;
	}
	ck_assert(*p == '\0');
	free(in);
	free(k.two[0]);
	free(k.two[1]);
	free(k.all);
}
END_TEST

/* A CR ending the last buffer is held back, then written as it is. */
START_TEST(final_cr)
{
	static const struct cat_options e = {0, 0, 0, 1, 0, 0};
	size_t len;
	char *got =
	    format(&e, scans[_i], "a\r", 2, NULL, 0, CAT_BUF, &len, NULL);

	ck_assert_uint_eq(len, 2);
	ck_assert(memcmp(got, "a\r", 2) == 0);
	free(got);
}
END_TEST

/*
 * The loops without line state, every scanner against the portable one
 * (which known_outputs holds to GNU's), for each mix of -v, -E and -T:
 * on runs of 8 bytes giving every pattern of bytes shown as two at each
 * of the four 8-byte places of a 32-byte block, on text with rare
 * control bytes (whole blocks with none), on bytes of every value, and
 * on lines of every length to 129 bytes ending in LF or CR LF, then empty
 * lines.
 */
START_TEST(shown_agree)
{
	static const struct cat_options opts[] = {
	    {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 1, 0, 0},
	    {0, 0, 0, 1, 0, 1}, {0, 0, 0, 0, 1, 1}, {0, 0, 0, 1, 1, 0},
	    {0, 0, 0, 1, 1, 1}};
	static const char shown2[] = "\n\t\001\177\r";
	const struct cat_options *op = &opts[_i / 4];
	size_t len = 0, want_len, got_len, i;
	char *in = malloc(20000), *want, *got;
	uint32_t r = 2024u + (uint32_t)_i, m, shift;
	int scan;

	ck_assert_ptr_nonnull(in);
	switch (_i % 4) {
	case 0:
		for (shift = 0; shift < 4; shift++) {
			memset(in + len, 'a', 8 * shift);
			len += 8 * shift;
			for (m = 0; m < 256; m++)
				for (i = 0; i < 8; i++)
					in[len++] = m >> i & 1
							? shown2[(m + i) % 5]
							: 'a';
		}
		break;
	case 1:
	case 2:
		for (len = 0; len < 4 * (24 + 256 * 8); len++) {
			r = r * 1103515245u + 12345u;
			m = r >> 16 & 0xff;
			in[len] = _i % 4 == 2 ? (char)m
				  : m < 4     ? shown2[m]
				  : m == 4    ? '\377'
					      : (char)('a' + m % 26);
		}
		break;
	case 3:
		/*
		 * Lines of every length up to two chunks, ending in LF or CR
		 * LF, now and then with a lone CR: CR LF on both sides of each
		 * chunk boundary; then 200 empty lines, chunks of 64 LFs.
		 */
		for (m = 0; m < 130; m++)
			for (shift = 0; shift < 2; shift++) {
				memset(in + len, 'a', m);
				if (m % 7 == 3)
					in[len + m / 2] = '\r';
				len += m;
				if (shift)
					in[len++] = '\r';
				in[len++] = '\n';
			}
		memset(in + len, '\n', 200);
		len += 200;
		break;
	}
	want = format(op, CATFMT_SCAN_PORTABLE, in, len, NULL, 0, CAT_BUF,
		      &want_len, NULL);
	for (scan = 0; scan < NSCANS; scan++) {
		got = format(op, scans[scan], in, len, NULL, 0, CAT_BUF,
			     &got_len, NULL);
		ck_assert_msg(
		    got_len == want_len && memcmp(got, want, want_len) == 0,
		    "options %d, input %d, scanner %d", _i / 4, _i % 4, scan);
		free(got);
	}
	free(want);
	free(in);
}
END_TEST

/*
 * cat/wide.c's loop runs only where the CPU has AVX-512 VBMI2: there the
 * best loop (scans[0]) is it, and the needs build runs the known outputs
 * and the cuts through it again, on its own, so that a machine without
 * it says so.
 */
static const char *
need_avx512(void)
{
#ifdef __x86_64__
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512vbmi2") &&
	    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"))
		return NULL;
	return "this CPU lacks AVX-512 VBMI2: cat/wide.c's loop cannot run";
#else
	return "not x86-64: there is no AVX-512 loop";
#endif
}

static spawn_need *const avx512[] = {need_avx512, NULL};

static Suite *
catfmt_suite(void)
{
	Suite *s = suite_create("catfmt");
	TCase *tc = tcase_create("catfmt");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, known_outputs, 0, NKNOWN * NSCANS);
	tcase_add_loop_test(tc, any_cut, 0, NKNOWN * NSCANS);
	tcase_add_loop_test(tc, number_widens, 0, NSCANS);
	tcase_add_loop_test(tc, number_counts, 0, 12 * NSCANS);
	tcase_add_loop_test(tc, final_cr, 0, NSCANS);
	tcase_add_loop_test(tc, shown_agree, 0, 7 * 4);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "avx512", known_outputs, NKNOWN, avx512);
	suite_add_needing(s, "avx512_cuts", any_cut, NKNOWN, avx512);
	return s;
}

int
main(void)
{
	return suite_main(catfmt_suite());
}
