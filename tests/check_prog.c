/* SPDX-License-Identifier: MIT */
/*
 * src/prog.c, in-process: GNU's quoting of names (the expected forms are
 * GNU cat 9.1's messages for the same names), the messages' shapes, and
 * closing stdout as GNU's close_stdout does.
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
stderr_of(void (*f)(void))
{
	static char got[4096];
	int p[2], saved = dup(2);
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	dup2(p[1], 2);
	f();
	fflush(stderr);
	dup2(saved, 2);
	close(p[1]);
	n = read(p[0], got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	close(p[0]);
	close(saved);
	return got;
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

static Suite *
prog_suite(void)
{
	Suite *s = suite_create("prog");
	TCase *tc = tcase_create("prog");

	tcase_add_loop_test(tc, quote, 0, NNAMES);
	tcase_add_test(tc, messages);
	tcase_add_loop_test(tc, close_stdout, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(prog_suite());
}
