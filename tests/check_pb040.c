/* SPDX-License-Identifier: MIT */
/*
 * Our pipebench against pipebench 0.40, byte for byte, where scripts read
 * them: the summary on stderr and in -s/-S files, under every flag of
 * 0.40 that shapes it, for sizes from 0 to 2^50 bytes and durations from
 * 0 to 100 hours. tests/fakeio.so makes both believe the sizes and
 * durations (see there). Each case's 0.40 output is committed under
 * tests/golden/pb040/, so the suite checks the format where 0.40 is not
 * installed; where it is (Debian's pipebench package), 0.40 runs too and
 * must still agree. FIO_PB040_WRITE=1 rewrites the goldens from 0.40.
 *
 * Left out, as README says: the running line (0.40 prints one after every
 * buffer, ours one a second) and -r's rates, which depend on timing.
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

#define PB040 "/usr/bin/pipebench"

struct pbcase {
	const char *flags[4];
	uint64_t bytes;
	long long usec, phase;
	int status; /* 0: stderr; 1: -s FILE; 2: -S FILE with a line in it */
};

static struct pbcase cases[400];
static int ncases;

static void
add(const char *f0, const char *f1, uint64_t bytes, long long usec,
    long long phase, int status)
{
	cases[ncases++] =
	    (struct pbcase){{f0, f1, NULL, NULL}, bytes, usec, phase, status};
}

/* Sizes on both sides of every unit step, in both bases. */
static const uint64_t sizes[] = {
    0,
    1,
    999,
    1000,
    1001,
    1023,
    1024,
    1025,
    10000,
    102399,
    102400,
    102401,
    1000000,
    1048575,
    1048576,
    1048577,
    10000000,
    1000000000,
    1073741823,
    1073741824,
    1073741825,
    1099511627775,
    1099511627776,
    1099511627777,
    1000000000000,
    1125899906842623,
};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

/* Durations across the second, minute, hour and day, in microseconds. */
static const long long durations[] = {
    0,		1,	    9999,	 10000,	      999999,
    1000000,	59999999,   60000000,	 3599990000,  3599999999,
    3600000000, 3600010000, 86399990000, 86400000000, 360000500000,
};
#define NDURATIONS (int)(sizeof durations / sizeof durations[0])

static void
make_cases(void)
{
	static const char *const units[] = {"-q", "-qI", "-qu", "-qIu"};
	int u, i, p;

	for (u = 0; u < 4; u++)
		for (i = 0; i < NSIZES; i++)
			add(units[u], NULL, sizes[i], 1234567, 250000, 0);
	for (i = 0; i < NDURATIONS; i++)
		for (p = 0; p < 3; p++)
			add("-q", NULL, 10000000, durations[i],
			    p == 0   ? 0
			    : p == 1 ? 999999
				     : 500000,
			    0);
	add("-q", "-e", 10000, 1234567, 0, 0);
	add("-q", "-b7", 10000, 1234567, 0, 0);
	add("-q", NULL, 10000, 1234567, 0, 1);
	add("-q", NULL, 10000, 1234567, 0, 2);
	add("-qI", NULL, 1048576, 3600010000, 0, 1);
	add("-o", "-q", 10000, 1234567, 0, 0);
	add("-Q", NULL, 10000, 1234567, 0, 0);
	add("-Q", NULL, 10000, 1234567, 0, 1);
	add("-qo", NULL, 10000, 1234567, 0, 2);
}

/* Run prog on case c; stderr, and the status file's contents if any. */
static char *
run_case(const char *prog, const struct pbcase *c, char **status)
{
	char preload[PATH_MAX + 32], bytes[48], usec[48], phase[48],
	    path[] = "/tmp/fastio-pb040-XXXXXX", sflag[4];
	/* Our preload before the sanitizer runtime, in sanitizer builds. */
	const char *env[] = {
	    preload, bytes,	 usec,
	    phase,   "LC_ALL=C", "ASAN_OPTIONS=verify_asan_link_order=0",
	    NULL};
	const char *argv[10] = {"pipebench"};
	struct spawn s = {0};
	struct spawn_result r;
	char *out;
	int n = 1, i, fd = -1;
	FILE *f;
	size_t len;

	snprintf(preload, sizeof preload, "LD_PRELOAD=%s/tests/fakeio.so",
		 getenv("FIO_BUILDDIR"));
	snprintf(bytes, sizeof bytes, "FAKE_BYTES=%llu",
		 (unsigned long long)c->bytes);
	snprintf(usec, sizeof usec, "FAKE_USEC=%lld", c->usec);
	snprintf(phase, sizeof phase, "FAKE_PHASE=%lld", c->phase);
	for (i = 0; i < 4 && c->flags[i]; i++)
		argv[n++] = c->flags[i];
	/* Big sizes in few reads; the buffer's size shows nowhere. */
	if (c->bytes > 100000000)
		argv[n++] = "-b1000000000";
	if (c->status) {
		fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		if (c->status == 2)
			ck_assert_int_eq(write(fd, "previous\n", 9), 9);
		close(fd);
		snprintf(sflag, sizeof sflag, "-%c",
			 c->status == 1 ? 's' : 'S');
		argv[n++] = sflag;
		argv[n++] = path;
	}
	argv[n] = NULL;
	spawn_init(&s, prog, argv, env, OUT_DEVNULL);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "%s: status %d, '%s'", prog,
		      r.status, r.err);
	*status = NULL;
	if (c->status) {
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		*status = calloc(1, 4096);
		len = fread(*status, 1, 4095, f);
		(*status)[len] = '\0';
		fclose(f);
		unlink(path);
	}
	out = strdup(r.err);
	spawn_free(&r);
	return out;
}

static char *
golden_path(int i, const char *what)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/tests/golden/pb040/%03d.%s",
		 getenv("FIO_SRCDIR"), i, what);
	return path;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t len;

	ck_assert_msg(f != NULL, "no golden %s", path);
	buf = calloc(1, 4096);
	len = fread(buf, 1, 4095, f);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static void
spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void
describe(char *buf, size_t size, const struct pbcase *c)
{
	snprintf(buf, size, "%s %s, %llu bytes in %lld us (phase %lld)%s",
		 c->flags[0], c->flags[1] ? c->flags[1] : "",
		 (unsigned long long)c->bytes, c->usec, c->phase,
		 c->status == 1	  ? ", -s"
		 : c->status == 2 ? ", -S"
				  : "");
}

START_TEST(against_040)
{
	const struct pbcase *c = &cases[_i];
	char *ours, *ours_status, *theirs, *theirs_status, *want,
	    *want_status = NULL, what[160];
	int have040 = access(PB040, X_OK) == 0 && spawn_need_native() == NULL;

	describe(what, sizeof what, c);
	ours = run_case("pipebench", c, &ours_status);
	if (have040) {
		theirs = run_case(PB040, c, &theirs_status);
		if (getenv("FIO_PB040_WRITE") != NULL) {
			spit(golden_path(_i, "err"), theirs);
			if (theirs_status)
				spit(golden_path(_i, "status"), theirs_status);
		}
		ck_assert_msg(strcmp(ours, theirs) == 0,
			      "%s: stderr '%s', 0.40 '%s'", what, ours, theirs);
		ck_assert_msg(!c->status ||
				  strcmp(ours_status, theirs_status) == 0,
			      "%s: file '%s', 0.40 '%s'", what, ours_status,
			      theirs_status);
		free(theirs);
		free(theirs_status);
	}
	want = slurp(golden_path(_i, "err"));
	ck_assert_msg(strcmp(ours, want) == 0, "%s: stderr '%s', golden '%s'",
		      what, ours, want);
	if (c->status) {
		want_status = slurp(golden_path(_i, "status"));
		ck_assert_msg(strcmp(ours_status, want_status) == 0,
			      "%s: file '%s', golden '%s'", what, ours_status,
			      want_status);
	}
	free(want);
	free(want_status);
	free(ours);
	free(ours_status);
}
END_TEST

/* -h: 0.40's two lines on stdout, status 0. */
START_TEST(usage_040)
{
	const char *argv[] = {"pipebench", "-h", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char *want = slurp(golden_path(999, "out"));

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert(r.exited && r.status == 0);
	ck_assert_str_eq(r.out, want);
	spawn_free(&r);
	if (access(PB040, X_OK) == 0) {
		spawn_init(&s, PB040, argv, NULL, OUT_PIPE);
		ck_assert_int_eq(spawn_run(&s, &r), 0);
		ck_assert_str_eq(r.out, want);
		spawn_free(&r);
	}
	free(want);
}
END_TEST

static Suite *
pb040_suite(void)
{
	Suite *s = suite_create("pb040");
	TCase *tc = tcase_create("pb040");

	make_cases();
	/* Under qemu-user 0.40 is this machine's program, which cannot
	 * preload the fakeio.so built for ours. */
	if (access(PB040, X_OK) != 0 || spawn_need_native() != NULL)
		printf("check_pb040: %s: ours against the committed "
		       "goldens only\n",
		       spawn_need_native() ? spawn_need_native() : "no " PB040);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, against_040, 0, ncases);
	tcase_add_test(tc, usage_040);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(pb040_suite());
}
