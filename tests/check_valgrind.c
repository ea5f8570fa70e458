/* SPDX-License-Identifier: MIT */
/*
 * The programs under valgrind memcheck: every path of cat, yes and
 * pipebench the other suites exercise most, each run checked for its
 * output and its status, and failed (status 99, or memcheck's report on
 * stderr) on any memory error or leak. Skipped (77) without valgrind or in
 * a sanitizer build, which valgrind cannot run.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

#define VALGRIND "/usr/bin/valgrind"
#define MAX_ARGS 16

/* A run of prog args... under memcheck; stdin and stdout as in s. */
static void
memcheck(struct spawn *s, struct spawn_result *r, const char *prog,
	 const char *const *args)
{
	const char *argv[MAX_ARGS + 8] = {
	    "valgrind",
	    "-q",
	    "--error-exitcode=99",
	    "--leak-check=full",
	    "--show-leak-kinds=definite,indirect,possible",
	    "--errors-for-leak-kinds=definite,indirect,possible",
	    "--child-silent-after-fork=no",
	    spawn_path(prog),
	};
	int n = 8;

	for (; args && *args && n < MAX_ARGS + 7; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	s->prog = VALGRIND;
	s->argv = argv;
	ck_assert_int_eq(spawn_run(s, r), 0);
	ck_assert_msg(strstr(r->err, "==") == NULL, "memcheck: %s", r->err);
}

#define INPUT_LINE "line %u of memcheck's input\n"

/* cat over a file: splice, copy_file_range, sendfile, read/write. */
START_TEST(cat_paths)
{
	static const enum spawn_out outs[] = {OUT_PIPE, OUT_FILE, OUT_SOCKET,
					      OUT_PIPE};
	size_t len = 3u << 20;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	const char *args[] = {path, NULL};
	const char *env[] = {_i == 3 ? "FASTIO_DISABLE=all" : NULL, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	s.env = env;
	s.out = outs[_i];
	memcheck(&s, &r, "cat", args);
	ck_assert(r.exited && r.status == 0);
	ck_assert_uint_eq(r.out_len, len);
	ck_assert(memcmp(r.out, data, len) == 0);
	spawn_free(&r);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/* Formatting a 6 MiB file (48 reads), through each loop. */
START_TEST(cat_formatting)
{
	static const char *const opts[] = {"-n", "-A", "-s", "-bE", "-vT"};
	static const char *const envs[] = {NULL, "FASTIO_CAT_SCAN=8",
					   "FASTIO_CAT_SCAN=16"};
	size_t len = 6u << 20;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	const char *args[] = {opts[_i % 5], path, NULL};
	const char *env[] = {envs[_i / 5], NULL};
	struct spawn s = {0};
	struct spawn_result r;

	s.env = env;
	s.out = OUT_PIPE;
	memcheck(&s, &r, "cat", args);
	ck_assert(r.exited && r.status == 0);
	ck_assert_uint_ge(r.out_len, len);
	spawn_free(&r);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/* Many small files (one read each, descriptors closed in batches), a
 * missing one and a directory among them; stdin twice. */
START_TEST(cat_many_files)
{
	const char *args[MAX_ARGS];
	char *paths[10];
	struct spawn s = {0};
	struct spawn_result r;
	int i, n = 0;

	for (i = 0; i < 10; i++) {
		paths[i] = spawn_temp_path("0123456789\n", 11);
		args[n++] = paths[i];
	}
	args[n++] = "/nonexistent";
	args[n++] = "/";
	args[n++] = "-";
	args[n++] = "-";
	args[n] = NULL;
	spawn_feed(&s, IN_PIPE, "stdin\n", 6);
	s.out = OUT_PIPE;
	memcheck(&s, &r, "cat", args);
	ck_assert(r.exited && r.status == 1);
	ck_assert_uint_eq(r.out_len, 10 * 11 + 6);
	ck_assert_ptr_nonnull(strstr(r.err, "/nonexistent: No such file"));
	ck_assert_ptr_nonnull(strstr(r.err, "/: Is a directory"));
	spawn_free(&r);
	for (i = 0; i < 10; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
}
END_TEST

/* yes: into a pipe (tee/vmsplice) until EPIPE, into a file until
 * RLIMIT_FSIZE, with a long line, without the zero-copy calls. */
START_TEST(yes_paths)
{
	const char *args[] = {_i == 2 ? "a long line of text" : NULL, NULL};
	const char *env[] = {_i == 3 ? "FASTIO_DISABLE=all" : NULL, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	s.env = env;
	s.out = _i == 1 ? OUT_FILE : OUT_PIPE;
	s.out_max = 4u << 20;
	s.ignore_sigpipe = 1;
	memcheck(&s, &r, "yes", args);
	ck_assert(r.exited && r.status == 1);
	ck_assert_uint_ge(r.out_len, 4u << 20);
	ck_assert_ptr_nonnull(
	    strstr(r.err, _i == 1 ? "File too large" : "Broken pipe"));
	spawn_free(&r);
}
END_TEST

/* pipebench: splice and copy pass-through, --expect-line, --exec with
 * --json, --compare (threads: the ticker). */
START_TEST(pipebench_paths)
{
	static const char *const sets[][8] = {
	    {"-q", NULL},
	    {"-q", "--touch", NULL},
	    {"-q", "--expect-line=y", "--bytes=3M", NULL},
	    {"-q", "--lines=1000", "-b", "7", NULL},
	    {"--json", "--bytes=2M", "--exec", "--", "yes", NULL},
	    {"--compare", "--runs=2", "--size=1M", "--", "yes | head -c 1M",
	     "head -c 1M /dev/zero", NULL},
	};
	size_t len = 2u << 20, i;
	char *data = malloc(len);
	struct spawn s = {0};
	struct spawn_result r;

	for (i = 0; i < len; i++)
		data[i] = i % 2 ? '\n' : 'y';
	spawn_feed(&s, IN_PIPE, data, len);
	s.out = _i == 0 ? OUT_PIPE : OUT_DEVNULL;
	memcheck(&s, &r, "pipebench", sets[_i]);
	ck_assert_msg(r.exited && r.status == 0, "set %d: %s", (int)_i, r.err);
	if (_i == 0) {
		ck_assert_uint_eq(r.out_len, len);
		ck_assert(memcmp(r.out, data, len) == 0);
	}
	spawn_free(&r);
	free(data);
}
END_TEST

static Suite *
valgrind_suite(void)
{
	Suite *s = suite_create("valgrind");
	TCase *tc = tcase_create("memcheck");

	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, cat_paths, 0, 4);
	tcase_add_loop_test(tc, cat_formatting, 0, 15);
	tcase_add_test(tc, cat_many_files);
	tcase_add_loop_test(tc, yes_paths, 0, 4);
	tcase_add_loop_test(tc, pipebench_paths, 0, 6);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const char *why = spawn_need_unsanitized();

	if (why == NULL && access(VALGRIND, X_OK) != 0)
		why = "no " VALGRIND;
	if (why == NULL)
		why = spawn_need_native();
	if (why != NULL) {
		printf("check_valgrind: skipped: %s\n", why);
		return 77;
	}
	return suite_main(valgrind_suite());
}
