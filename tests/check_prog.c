/* SPDX-License-Identifier: MIT */
/*
 * src/prog.c, in-process: GNU's quoting of names (the expected forms are
 * GNU cat 9.1's messages for the same names), the messages' shapes, and
 * closing stdout as GNU's close_stdout does; and --help as the newest GNU
 * prints it.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog.h"
#include "spawn.h"

static const struct {
	const char *locale, *name, *quoted;
} names[] = {
    {"C", "plain", "plain"},
    {"C", "a b", "'a b'"},
    {"C", "it's", "\"it's\""},
    {"C", "it's ok", "\"it's ok\""},
    {"C", "a'b\"c", "'a'\\''b\"c'"},
    {"C", "a\nb", "'a'$'\\n''b'"},
    {"C", "tab\there", "'tab'$'\\t''here'"},
    {"C", "x:y", "'x:y'"},
    {"C", "\377", "''$'\\377'"},
    {"C", "", "''"},
    {"C", "{", "'{'"},
    {"C", "}", "'}'"},
    {"C", "#x", "'#x'"},
    {"C", "x#", "x#"},
    {"C", "~x", "'~x'"},
    {"C", "a~", "a~"},
    {"C", "$HOME", "'$HOME'"},
    {"C", "\303\251", "''$'\\303\\251'"},
    {"C", "a\303\251 b", "'a'$'\\303\\251'' b'"},
    {"C.UTF-8", "\303\251", "\303\251"},
    {"C.UTF-8", "\303", "''$'\\303'"},
};
#define NNAMES (int)(sizeof names / sizeof names[0])

START_TEST(quote)
{
	setenv("LC_ALL", names[_i].locale, 1);
	prog_locale();
	ck_assert_msg(strcmp(prog_quote(names[_i].name), names[_i].quoted) == 0,
		      "%s: got %s, want %s", names[_i].locale,
		      prog_quote(names[_i].name), names[_i].quoted);
}
END_TEST

/* What fd 2 receives while f runs, NUL-terminated (static). */
static const char *
output_of(int fd, void (*f)(void))
{
	static char got[4096];
	int p[2], saved = dup(fd);
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	dup2(p[1], fd);
	f();
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(p[1]);
	n = read(p[0], got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	close(p[0]);
	close(saved);
	return got;
}

static const char *
stderr_of(void (*f)(void))
{
	return output_of(2, f);
}

static void
warn_enoent(void)
{
	prog_warn(ENOENT, "%s", prog_quote("a b"));
}

static void
warn_plain(void)
{
	prog_warn(0, "input file is output file");
}

START_TEST(messages)
{
	setenv("LC_ALL", "C", 1);
	prog_init("cat");
	ck_assert_str_eq(stderr_of(warn_enoent),
			 "cat: 'a b': No such file or directory\n");
	ck_assert_str_eq(stderr_of(warn_plain),
			 "cat: input file is output file\n");
	ck_assert_str_eq(stderr_of(prog_try_help),
			 "Try 'cat --help' for more information.\n");
	prog_init("");
	ck_assert_str_eq(stderr_of(prog_try_help),
			 "Try 'cat --help' for more information.\n");
}
END_TEST

static void
close_full(void)
{
	int full = open("/dev/full", O_WRONLY);

	dup2(full, 1);
	close(full);
	fputs("lost", stdout);
	ck_assert_int_eq(prog_close_stdout(), 1);
}

static void
close_closed(void)
{
	close(1);
	ck_assert_int_eq(prog_close_stdout(), 0);
}

/*
 * A write error at the close is reported once, as GNU's; a stdout that
 * was closed and never written to is no error.
 */
START_TEST(close_stdout)
{
	setenv("LC_ALL", "C", 1);
	prog_init("yes");
	ck_assert_str_eq(stderr_of(_i ? close_closed : close_full),
			 _i ? ""
			    : "yes: write error: No space left on device\n");
}
END_TEST

static void
version_of_cat(void)
{
	prog_version("cat");
}

/* The first line of path that contains key, in buf; NULL if none. */
static const char *
line_with(const char *path, const char *key, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	const char *found = NULL;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (found == NULL && fgets(buf, (int)size, f) != NULL)
		if (strstr(buf, key) != NULL)
			found = buf;
	fclose(f);
	return found;
}

/* The second line of path that holds key, into buf. */
static char *
line_with_after(const char *path, const char *key, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	char *found = NULL;
	int seen = 0;

	if (f == NULL)
		return NULL;
	while (found == NULL && fgets(buf, (int)size, f) != NULL)
		if (strstr(buf, key) != NULL && seen++ == 1)
			found = buf;
	fclose(f);
	return found;
}

/*
 * One version everywhere: configure.ac's (PACKAGE_VERSION) is the one
 * --version prints, NEWS's newest release, and the man pages' footers.
 */
START_TEST(one_version)
{
	static const char *const pages[] = {"man/cat.1", "man/yes.1",
					    "man/pipebench.1"};
	const char *src = getenv("FIO_SRCDIR"), *build = getenv("FIO_BUILDDIR");
	const char *version;
	char path[4096], line[512], want[128];
	size_t i;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(build);
	snprintf(path, sizeof path, "%s/NEWS", src);
	snprintf(want, sizeof want, "release %s (", PACKAGE_VERSION);
	/* The newest release: an entry not numbered yet ("?.?.?", the
	 * changes since) is none. */
	ck_assert_ptr_nonnull(line_with(path, "Noteworthy changes in release ",
					line, sizeof line));
	if (strstr(line, "release ?") != NULL)
		ck_assert_ptr_nonnull(line_with_after(
		    path, "Noteworthy changes in release ", line, sizeof line));
	ck_assert_msg(strstr(line, want) != NULL, "NEWS opens with %s", line);
	snprintf(want, sizeof want, "\"fastio-utils %s\"", PACKAGE_VERSION);
	for (i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", build, pages[i]);
		ck_assert_ptr_nonnull(
		    line_with(path, ".TH ", line, sizeof line));
		ck_assert_msg(strstr(line, want) != NULL, "%s: %s", pages[i],
			      line);
	}
	snprintf(want, sizeof want, "cat (fastio-utils) %s\n", PACKAGE_VERSION);
	version = output_of(1, version_of_cat);
	ck_assert_msg(strncmp(version, want, strlen(want)) == 0,
		      "--version: %s", version);
}
END_TEST

/*
 * --help as the newest GNU prints it in the C locale (tests/golden/out,
 * GNU 9.10's), plain and where TERM names a terminal: each option bold
 * and linked to GNU's manual. Ours ends with two lines of its own where
 * GNU's says where to report bugs; the rest must begin GNU's. _i:
 * program, then TERM.
 */
START_TEST(help_as_gnu)
{
	static const char *const progs[] = {"cat", "yes"};
	const char *prog = progs[_i % 2], *src = getenv("FIO_SRCDIR");
	const char *env[] = {_i / 2 ? "TERM=xterm" : "TERM=dumb", "LC_ALL=C",
			     NULL};
	const char *argv[] = {prog, "--help", NULL};
	char path[4096], want[8192];
	struct spawn s = {0};
	struct spawn_result r;
	size_t len, want_len;
	int fd;

	snprintf(path, sizeof path, "%s/tests/golden/out/help-%s%s",
		 src ? src : ".", prog, _i / 2 ? "-term" : "");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	want_len = (size_t)read(fd, want, sizeof want);
	close(fd);
	spawn_init(&s, prog, argv, env, OUT_PIPE);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert(r.exited && r.status == 0 && r.err_len == 0);
	len = spawn_help_body(r.out, r.out_len);
	ck_assert_uint_gt(len, 0);
	ck_assert_msg(len <= want_len && memcmp(r.out, want, len) == 0,
		      "%s --help: ours\n%.*s\nGNU's\n%.*s", prog, (int)len,
		      r.out, (int)want_len, want);
	spawn_free(&r);
}
END_TEST

static Suite *
prog_suite(void)
{
	Suite *s = suite_create("prog");
	TCase *tc = tcase_create("prog");

	tcase_add_loop_test(tc, quote, 0, NNAMES);
	tcase_add_test(tc, messages);
	tcase_add_loop_test(tc, close_stdout, 0, 2);
	tcase_add_test(tc, one_version);
	tcase_add_loop_test(tc, help_as_gnu, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(prog_suite());
}
