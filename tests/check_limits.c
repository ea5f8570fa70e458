/* SPDX-License-Identifier: MIT */
/*
 * Resource limits and non-blocking descriptors, for every program: so few
 * descriptors that a file or a pipe cannot be had (RLIMIT_NOFILE), a file
 * size limit (RLIMIT_FSIZE: GNU's "File too large" after exactly the bytes
 * allowed), an address space a little above what --version needs (ulimit
 * -v, as GNU's tests run), and pipes nobody reads or writes (GNU's EAGAIN
 * message, never a hang or a spin).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define MIB	   ((size_t)1 << 20)
#define INPUT_LINE "line %u\tof\001the input\n"

/*
 * RLIMIT_NOFILE: 300 files through cat with 8 and 5 descriptors (cat
 * closes the files it read in batches: an open that runs out must close
 * the batch and try again), plain and formatted.
 */
START_TEST(few_descriptors_many_files)
{
	static const unsigned long limits[] = {8, 5};
	static const char *const flags[] = {NULL, "-n"};
	const char *argv[304] = {"cat"};
	char *paths[300], *want, *got_flag = NULL;
	size_t len = 0;
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512], line[64];
	int i, n = 1;

	want = malloc(300 * 64);
	if (flags[_i / 2])
		argv[n++] = got_flag = (char *)flags[_i / 2];
	for (i = 0; i < 300; i++) {
		snprintf(line, sizeof line, "file %d\n", i);
		paths[i] = spawn_temp_path(line, strlen(line));
		argv[n++] = paths[i];
		len += (size_t)(got_flag ? sprintf(want + len, "%6d\t%s", i + 1,
						   line)
					 : sprintf(want + len, "%s", line));
	}
	spawn_init(&s, "cat", argv, NULL, OUT_PIPE);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.nofile = limits[_i % 2];
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "status %d: '%s'", r.status,
		      r.err);
	ck_assert_msg(
	    lines_check(r.out, r.out_len, want, len, 0, msg, sizeof msg) == 0,
	    "%s", msg);
	for (i = 0; i < 300; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	spawn_free(&r);
	free(want);
}
END_TEST

/*
 * So few descriptors that pipe() fails: the zero-copy paths that need a
 * pipe of their own fall back, the output is unchanged; pipebench --exec
 * cannot make its pipe and says so.
 */
START_TEST(no_pipe_left)
{
	static const struct {
		const char *prog, *args[4];
		unsigned long nofile;
		enum spawn_out out;
		const char *err; /* NULL: the output must be complete */
	} cases[] = {
	    {"cat", {"@"}, 4, OUT_PIPE, NULL},
	    {"cat", {"@"}, 4, OUT_SOCKET, NULL},
	    {"cat", {"-A", "@"}, 4, OUT_PIPE, NULL},
	    {"yes", {NULL}, 4, OUT_PIPE, NULL},
	    {"yes", {NULL}, 5, OUT_PIPE, NULL},
	    {"pipebench",
	     {"-Q", "--exec", "--", "true"},
	     4,
	     OUT_PIPE,
	     "pipebench: true: Too many open files\n"},
	};
	const char *argv[6] = {cases[_i].prog};
	size_t len = 3 * MIB;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	int is_yes = strcmp(cases[_i].prog, "yes") == 0;
	struct spawn s = {0}, plain;
	struct spawn_result r, good;

	spawn_with_args(argv, cases[_i].args, 4, path);
	spawn_init(&s, cases[_i].prog, argv, NULL, cases[_i].out);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	s.out_max = is_yes ? 4 * MIB : 0;
	plain = s;
	s.nofile = cases[_i].nofile;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	if (cases[_i].err) {
		ck_assert_str_eq(r.err, cases[_i].err);
		ck_assert(r.exited && r.status == 1);
	} else {
		ck_assert_int_eq(spawn_run(&plain, &good), 0);
		ck_assert_msg(r.err_len == 0, "'%s'", r.err);
		ck_assert_uint_eq(r.out_len, good.out_len);
		ck_assert(memcmp(r.out, good.out, r.out_len) == 0);
		spawn_free(&good);
	}
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
}
END_TEST

/*
 * RLIMIT_FSIZE: GNU's "File too large" from every writing path, after
 * exactly the bytes the limit allows.
 */
START_TEST(file_size_limit)
{
	static const struct {
		const char *prog, *args[3], *disable, *err;
		enum spawn_in in;
	} cases[] = {
	    {"cat",
	     {"@"},
	     NULL,
	     "cat: write error: File too large\n",
	     IN_DEVNULL},
	    {"cat",
	     {"@"},
	     "all",
	     "cat: write error: File too large\n",
	     IN_DEVNULL},
	    {"cat",
	     {"-n", "@"},
	     NULL,
	     "cat: write error: File too large\n",
	     IN_DEVNULL},
	    {"cat",
	     {NULL},
	     NULL,
	     "cat: write error: File too large\n",
	     IN_PIPE},
	    {"pipebench",
	     {"-Q"},
	     NULL,
	     "pipebench: write error: File too large\n",
	     IN_PIPE},
	    {"yes",
	     {NULL},
	     NULL,
	     "yes: standard output: File too large\n",
	     IN_DEVNULL},
	};
	const char *argv[5] = {cases[_i].prog}, *env[2] = {NULL, NULL};
	size_t len = 3 * MIB, limit = MIB + 12345;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	char disable[64], *want = data;
	struct spawn s = {0};
	struct spawn_result r, all;

	spawn_with_args(argv, cases[_i].args, 3, path);
	spawn_init(&s, cases[_i].prog, argv, NULL, OUT_PIPE);
	spawn_feed(&s, cases[_i].in, data, len);
	if (cases[_i].disable) {
		snprintf(disable, sizeof disable, "FASTIO_DISABLE=%s",
			 cases[_i].disable);
		env[0] = disable;
		s.env = env;
	}
	/* The whole output, for -n and yes. */
	s.out = OUT_PIPE;
	s.out_max = strcmp(cases[_i].prog, "yes") == 0 ? 2 * MIB : 0;
	ck_assert_int_eq(spawn_run(&s, &all), 0);
	want = all.out;
	ck_assert(all.out_len >= limit);
	s.out = OUT_FILE;
	s.out_max = limit;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert(r.exited && r.status == 1);
	ck_assert_uint_eq(r.out_len, limit);
	ck_assert(memcmp(r.out, want, limit) == 0);
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
	spawn_free(&all);
}
END_TEST

/*
 * `ulimit -v` 15 MB above what --version needs: every path of cat and
 * pipebench still works (GNU's tests run tools so).
 */
START_TEST(address_space_limit)
{
	static const struct {
		const char *prog, *args[3];
		enum spawn_in in;
	} cases[] = {
	    {"cat", {"@"}, IN_DEVNULL},	    {"cat", {"-n", "@"}, IN_DEVNULL},
	    {"cat", {"-A"}, IN_PIPE},	    {"cat", {NULL}, IN_PIPE},
	    {"pipebench", {"-q"}, IN_PIPE}, {"pipebench", {"--touch"}, IN_PIPE},
	    {"pipebench", {"-q"}, IN_FILE},
	};
	const char *argv[5] = {cases[_i].prog};
	unsigned long hi;
	size_t len = 9 * MIB;
	char *data, *path;
	struct spawn s = {0};
	struct spawn_result r, good;

#ifdef FIO_SANITIZED
	/* AddressSanitizer reserves terabytes of address space. */
	return;
#endif
	hi = spawn_version_needs(cases[_i].prog);
	data = spawn_lines(len, INPUT_LINE);
	path = spawn_temp_path(data, len);
	spawn_with_args(argv, cases[_i].args, 3, path);
	spawn_init(&s, cases[_i].prog, argv, NULL, OUT_PIPE);
	spawn_feed(&s, cases[_i].in, data, len);
	ck_assert_int_eq(spawn_run(&s, &good), 0);
	s.vm_limit = hi + 15 * 1000 * 1000;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "limit %lu: '%s'", s.vm_limit,
		      r.err);
	ck_assert_uint_eq(r.out_len, good.out_len);
	ck_assert(memcmp(r.out, good.out, r.out_len) == 0);
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
	spawn_free(&good);
}
END_TEST

/*
 * Non-blocking stdin (nothing more to read, no EOF) and non-blocking
 * stdout (nobody reads): never a hang, never a busy loop (little CPU),
 * GNU's EAGAIN message after the bytes that could move.
 */
START_TEST(nonblocking)
{
	static const struct {
		const char *prog, *args[3];
		enum spawn_in in;
		enum spawn_out out;
		const char *out_data, *err;
	} cases[] = {
	    {"cat",
	     {NULL},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "cat: -: Resource temporarily unavailable\n"},
	    {"cat",
	     {"-n"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "     1\tabc\n",
	     "cat: -: Resource temporarily unavailable\n"},
	    {"cat",
	     {"-", "-"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "cat: -: Resource temporarily unavailable\n"
	     "cat: -: Resource temporarily unavailable\n"},
	    {"pipebench",
	     {"-Q"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "pipebench: standard input: Resource temporarily unavailable\n"},
	    {"pipebench",
	     {"-Q", "--touch"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "pipebench: standard input: Resource temporarily unavailable\n"},
	    {"yes",
	     {NULL},
	     IN_NONBLOCK_PIPE,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "yes: standard output: Resource temporarily unavailable\n"},
	    {"cat",
	     {"@"},
	     IN_DEVNULL,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "cat: write error: Resource temporarily unavailable\n"},
	    {"cat",
	     {"-v", "@"},
	     IN_DEVNULL,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "cat: write error: Resource temporarily unavailable\n"},
	    {"pipebench",
	     {"-Q"},
	     IN_FILE,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "pipebench: write error: Resource temporarily unavailable\n"},
	};
	const char *argv[5] = {cases[_i].prog};
	size_t len = 8 * MIB;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	struct spawn s = {0};
	struct spawn_result r;

	spawn_with_args(argv, cases[_i].args, 3, path);
	spawn_init(&s, cases[_i].prog, argv, NULL, cases[_i].out);
	spawn_feed(&s, cases[_i].in, cases[_i].in == IN_FILE ? data : "abc\n",
		   cases[_i].in == IN_FILE ? len : 4);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert(r.exited && r.status == 1);
	if (cases[_i].out_data) {
		ck_assert_uint_eq(r.out_len, strlen(cases[_i].out_data));
		ck_assert(memcmp(r.out, cases[_i].out_data, r.out_len) == 0);
	} else if (strcmp(cases[_i].prog, "yes") != 0) {
		/* What fitted in the pipe: a prefix of the right output. */
		ck_assert(r.out_len > 0 && r.out_len < len);
		ck_assert(cases[_i].args[1] != NULL ||
			  memcmp(r.out, data, r.out_len) == 0);
	}
	/* Generous for a slow machine; a spinning loop takes seconds. */
	ck_assert_msg(r.cpu_ms < 1000, "%lu ms of CPU", r.cpu_ms);
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
}
END_TEST

static Suite *
limits_suite(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("limits");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, few_descriptors_many_files, 0, 4);
	tcase_add_loop_test(tc, no_pipe_left, 0, 6);
	tcase_add_loop_test(tc, file_size_limit, 0, 6);
	tcase_add_loop_test(tc, address_space_limit, 0, 7);
	tcase_add_loop_test(tc, nonblocking, 0, 9);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(limits_suite());
}
