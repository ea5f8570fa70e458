/* SPDX-License-Identifier: MIT */
/*
 * Files are shared. `{ a | cat & b; } > log 2>&1` gives cat's standard
 * output and b's one open file description, one offset: every byte must
 * land where write() would put it, at the offset of the moment it is
 * written, never over what another writer put there while we waited.
 * Each case's bytes are those GNU 9.10's read() and write() give: the
 * other writer's first when it wrote first, both writers' whole when
 * they run at once, with and without O_APPEND, into a file opened for
 * reading and writing (`1<>file`) or at an offset.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

/* The programs that take a pipe into our output: each waits for input. */
static const struct {
	const char *prog, *args[4];
} waiters[] = {
    {"cat", {NULL}},
    {"cat", {"-A"}},
    {"pipebench", {"-Q"}},
    {"pipebench", {"-Q", "--pipeline", "/bin/cat | /bin/cat"}},
};
#define NWAITERS (int)(sizeof waiters / sizeof waiters[0])

/* The whole file behind fd, from its start. */
static char *
contents(int fd, size_t *len)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return spawn_slurp(path, len);
}

/*
 * The program waits on an empty pipe, its output our file. We write a
 * line into the same description, then give it its input: ours must stay
 * and its bytes come after, as GNU's cat gives (a splice that waited
 * holding the offset wrote over it). _i: waiter, and O_APPEND or not.
 */
START_TEST(waiting_writer)
{
	int w = _i / 2, append = _i % 2,
	    fd = spawn_temp_fd(NULL, append ? O_APPEND : 0);
	const char *argv[6] = {waiters[w].prog}, *mine = "warning\n";
	const char *want = w == 1 ? "warning\ndata$\n" : "warning\ndata\n";
	struct spawn s = {0};
	struct spawn_child c;
	struct spawn_result r;
	char *got;
	size_t len;
	int k;

	for (k = 0; k < 4 && waiters[w].args[k]; k++)
		argv[k + 1] = waiters[w].args[k];
	spawn_init(&s, waiters[w].prog, argv, NULL, OUT_FD);
	spawn_feed(&s, IN_PIPE, NULL, 0);
	s.out_fd = fd;
	ck_assert_int_eq(spawn_start(&s, &c), 0);
	while (!spawn_waits(c.pid))
		sched_yield();
	ck_assert_int_eq(write(fd, mine, strlen(mine)), (int)strlen(mine));
	ck_assert_int_eq(write(c.to, "data\n", 5), 5);
	ck_assert_int_eq(spawn_finish(&c, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "%s: status %d: %s",
		      waiters[w].prog, r.status, r.err);
	got = contents(fd, &len);
	ck_assert_msg(len == strlen(want) && memcmp(got, want, len) == 0,
		      "%s %s%s: '%.*s'", waiters[w].prog,
		      waiters[w].args[0] ? waiters[w].args[0] : "",
		      append ? ", O_APPEND" : "", (int)len, got);
	free(got);
	spawn_free(&r);
	close(fd);
}
END_TEST

/*
 * Into a file that holds bytes already, opened for reading and writing
 * (`1<>file`, offset 0) or at an offset: the input replaces what it
 * covers and nothing else, from a pipe and from a file (whose copy goes
 * by copy_file_range). _i: the program, the input, the offset.
 */
START_TEST(in_place)
{
	static const char *const progs[][2] = {{"cat", NULL},
					       {"pipebench", "-Q"}};
	int p = _i / 4, from_file = _i / 2 % 2;
	size_t at = _i % 2 ? 1000 : 0, old_len = 100 * KIB, in_len = 40 * KIB,
	       len;
	char *old = spawn_lines(old_len, "old %u\n"),
	     *in = spawn_lines(in_len, "new line %u\n"), *want, *got,
	     *path = spawn_temp_path(in, in_len);
	const char *argv[4] = {progs[p][0], progs[p][1]};
	struct spawn s = {0};
	struct spawn_result r;
	int fd = spawn_temp_fd(NULL, 0);

	ck_assert_int_eq(write(fd, old, old_len), (int)old_len);
	ck_assert_int_eq(lseek(fd, (off_t)at, SEEK_SET), (off_t)at);
	if (from_file && p == 0)
		argv[1] = path;
	spawn_init(&s, progs[p][0], argv, NULL, OUT_FD);
	s.out_fd = fd;
	spawn_feed(&s, from_file && p == 1 ? IN_FILE : IN_PIPE, in, in_len);
	if (from_file && p == 0)
		s.in = IN_DEVNULL;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "status %d: %s", r.status,
		      r.err);
	want = malloc(old_len);
	memcpy(want, old, old_len);
	memcpy(want + at, in, in_len);
	got = contents(fd, &len);
	ck_assert_uint_eq(len, old_len);
	ck_assert_msg(memcmp(got, want, len) == 0, "%s, %s, at %zu",
		      progs[p][0], from_file ? "a file" : "a pipe", at);
	/* The description's offset is where the input ended. */
	ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), (off_t)(at + in_len));
	unlink(path);
	free(path);
	free(old);
	free(in);
	free(want);
	free(got);
	spawn_free(&r);
	close(fd);
}
END_TEST

/*
 * `{ cat a & cat b; } > log`: two copies at once into one description,
 * from files (copy_file_range) or from pipes: every byte of both, as
 * GNU's writes give, whatever the order. _i: files or pipes, O_APPEND.
 */
START_TEST(two_writers)
{
	int pipes = _i / 2, fd = spawn_temp_fd(NULL, _i % 2 ? O_APPEND : 0);
	size_t len = 24 * MIB, got_len, i, n[2] = {0, 0};
	char *data[2], *path[2], *got;
	const char *argv[2][3];
	struct spawn s[2];
	struct spawn_child c[2];
	struct spawn_result r;
	int k;

	for (k = 0; k < 2; k++) {
		data[k] = malloc(len);
		memset(data[k], k ? 'b' : 'a', len);
		path[k] = spawn_temp_path(data[k], len);
		argv[k][0] = "cat";
		argv[k][1] = pipes ? NULL : path[k];
		argv[k][2] = NULL;
		memset(&s[k], 0, sizeof s[k]);
		spawn_init(&s[k], "cat", argv[k], NULL, OUT_FD);
		s[k].out_fd = fd;
		spawn_feed(&s[k], pipes ? IN_PIPE : IN_DEVNULL, NULL, 0);
	}
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(spawn_start(&s[k], &c[k]), 0);
	/* Fed side by side, a pipeful at a time. */
	for (i = 0; pipes && i < len; i += 64 * KIB)
		for (k = 0; k < 2; k++)
			ck_assert_int_eq(write(c[k].to, data[k] + i, 64 * KIB),
					 (int)(64 * KIB));
	for (k = 0; k < 2; k++) {
		ck_assert_int_eq(spawn_finish(&c[k], &r), 0);
		ck_assert_msg(r.exited && r.status == 0, "status %d: %s",
			      r.status, r.err);
		spawn_free(&r);
	}
	got = contents(fd, &got_len);
	for (i = 0; i < got_len; i++)
		if (got[i] == 'a' || got[i] == 'b')
			n[got[i] == 'b']++;
	ck_assert_msg(got_len == 2 * len && n[0] == len && n[1] == len,
		      "%zu bytes: %zu of a, %zu of b, of %zu each", got_len,
		      n[0], n[1], len);
	for (k = 0; k < 2; k++) {
		unlink(path[k]);
		free(path[k]);
		free(data[k]);
	}
	free(got);
	close(fd);
}
END_TEST

static Suite *
shared_suite(void)
{
	Suite *s = suite_create("shared");
	TCase *tc = tcase_create("shared");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, waiting_writer, 0, 2 * NWAITERS);
	tcase_add_loop_test(tc, in_place, 0, 8);
	tcase_add_loop_test(tc, two_writers, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(shared_suite());
}
