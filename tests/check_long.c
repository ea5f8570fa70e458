/* SPDX-License-Identifier: MIT */
/*
 * make check-long: a sparse file of 5 GiB with text around the 1, 2 and
 * 4 GiB marks read completely through every path, each compared byte for
 * byte with the file (cmp) or, formatted, with GNU cat's output; and 5 GiB
 * of yes checked by pipebench. Minutes, not seconds: make check skips
 * it, make check-long runs it.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "spawn.h"

#define GIB  (1ull << 30)
#define SIZE (5 * GIB + 12345)

static char sparse[PATH_MAX], scratch[PATH_MAX + 8];

/* In the build tree: a copy of 5 GiB must not land in a RAM /tmp. */
static void
make_sparse(void)
{
	static const unsigned long long marks[] = {
	    0, GIB - 3, 2 * GIB, 4 * GIB - 5, 4 * GIB + 7, SIZE - 40,
	};
	const char *dir = getenv("FIO_BUILDDIR");
	char text[64];
	size_t i;
	int fd, n;

	snprintf(sparse, sizeof sparse, "%s/tests/long-sparse-%d",
		 dir ? dir : ".", (int)getpid());
	snprintf(scratch, sizeof scratch, "%s.out", sparse);
	fd = open(sparse, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)SIZE), 0);
	for (i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		n = snprintf(text, sizeof text, "mark %zu at %llu\n\n\tx\n", i,
			     marks[i]);
		ck_assert(pwrite(fd, text, (size_t)n, (off_t)marks[i]) == n);
	}
	close(fd);
}

static void
remove_sparse(void)
{
	unlink(sparse);
	unlink(scratch);
}

/*
 * Shell scripts over $CAT, $PB (pipebench), $F (the file), $O (scratch).
 * A program's failure reaches stderr, which must stay empty.
 */
static const char *const scripts[] = {
    /* file -> pipe: splice through cat's own pipe */
    "{ \"$CAT\" \"$F\" || echo cat failed >&2; } | cmp - \"$F\"",
    /* read()/write() */
    "{ FASTIO_DISABLE=all \"$CAT\" \"$F\" || echo cat failed >&2; } | "
    "cmp - \"$F\"",
    /* stdin a file; pipe -> pipe splice in a second cat */
    "{ \"$CAT\" < \"$F\" || echo cat failed >&2; } | "
    "{ \"$CAT\" || echo cat 2 failed >&2; } | cmp - \"$F\"",
    /* file -> file: copy_file_range */
    "\"$CAT\" \"$F\" > \"$O\" && cmp \"$O\" \"$F\" && rm -f \"$O\"",
    /* formatting, with the default loop and the general portable one */
    "a=$({ \"$CAT\" -n \"$F\" || echo cat failed >&2; } | cksum); "
    "b=$(/bin/cat -n \"$F\" | cksum); [ \"$a\" = \"$b\" ] || "
    "echo \"$a != $b\" >&2",
    "a=$({ FASTIO_CAT_SCAN=16 \"$CAT\" -vE \"$F\" || "
    "echo cat failed >&2; } | cksum); b=$(/bin/cat -vE \"$F\" | cksum); "
    "[ \"$a\" = \"$b\" ] || echo \"$a != $b\" >&2",
    /* pipebench: splice file -> pipe, and copying (--touch) */
    "{ \"$PB\" -Q < \"$F\" || echo pipebench failed >&2; } | cmp - \"$F\"",
    "{ \"$PB\" -Q --touch < \"$F\" || echo pipebench failed >&2; } | "
    "cmp - \"$F\"",
    /* yes: 5 GiB checked line by line */
    "\"$PB\" -Q --expect-line=y --bytes=5G --exec -- \"$YES\" "
    ">/dev/null",
};

START_TEST(five_gib)
{
	char env_f[PATH_MAX + 8], env_o[PATH_MAX + 16], env_cat[PATH_MAX + 8],
	    env_pb[PATH_MAX + 8], env_yes[PATH_MAX + 8];
	const char *argv[] = {"sh", "-c", scripts[_i], NULL};
	const char *env[] = {env_f, env_o, env_cat, env_pb, env_yes, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	snprintf(env_f, sizeof env_f, "F=%s", sparse);
	snprintf(env_o, sizeof env_o, "O=%s", scratch);
	snprintf(env_cat, sizeof env_cat, "CAT=%s", spawn_path("cat"));
	snprintf(env_pb, sizeof env_pb, "PB=%s", spawn_path("pipebench"));
	snprintf(env_yes, sizeof env_yes, "YES=%s", spawn_path("yes"));
	spawn_init(&s, "/bin/sh", argv, env, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0 && r.err_len == 0,
		      "script %d: status %d, %s%s", _i, r.status, r.err, r.out);
	spawn_free(&r);
}
END_TEST

/*
 * Paths a shell cannot reach: a Unix socket as output (sendfile), and the
 * same again with only read()/write(); compared with the file as it comes.
 */
START_TEST(five_gib_socket)
{
	const char *argv[] = {"cat", sparse, NULL};
	const char *env[] = {_i ? "FASTIO_DISABLE=all" : NULL, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "cat", argv, env, OUT_SOCKET);
	s.out_compare = sparse;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.out_differs < 0, "differs at byte %lld", r.out_differs);
	ck_assert_uint_eq(r.out_len, SIZE);
	ck_assert_str_eq(r.err, "");
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
}
END_TEST

static Suite *
long_suite(void)
{
	Suite *s = suite_create("long");
	TCase *tc = tcase_create("five_gib");

	tcase_set_timeout(tc, 900);
	tcase_add_unchecked_fixture(tc, make_sparse, remove_sparse);
	tcase_add_loop_test(tc, five_gib, 0,
			    (int)(sizeof scripts / sizeof scripts[0]));
	tcase_add_loop_test(tc, five_gib_socket, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const char *dir = getenv("FIO_BUILDDIR");
	struct statvfs fs;

	if (getenv("FIO_LONG") == NULL) {
		printf("check_long: skipped: minutes long, run by make "
		       "check-long\n");
		return 77;
	}
	/* The copy to a file takes 5 GiB of disk where holes are filled. */
	if (statvfs(dir ? dir : ".", &fs) == 0 &&
	    (unsigned long long)fs.f_bavail * fs.f_frsize < SIZE + GIB) {
		printf("check_long: skipped: under 6 GiB free in the build "
		       "tree\n");
		return 77;
	}
	return suite_main(long_suite());
}
