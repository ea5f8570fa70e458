/* SPDX-License-Identifier: MIT */
/*
 * libfastio's writer (src/fastio/writer.c): when its thread starts and
 * when it never does, the bytes in order through every state, the
 * reader's vote that stops it, write errors and SIGPIPE from the thread.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/tune.h"
#include "spawn.h"

#define CAP ((size_t)256 << 10)

static void
force(const char *disable, const char *force)
{
	fio_reset();
	if (disable != NULL)
		setenv("FASTIO_DISABLE", disable, 1);
	else
		unsetenv("FASTIO_DISABLE");
	if (force != NULL)
		setenv("FASTIO_FORCE", force, 1);
	else
		unsetenv("FASTIO_FORCE");
	fio_init();
}

/* The byte at offset i of the stream. */
static char
byte_at(uint64_t i)
{
	return (char)(i * 13 + (i >> 12));
}

/* Fill buf with the stream's next n bytes from *at. */
static void
fill(char *buf, size_t n, uint64_t *at)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = byte_at(*at + i);
	*at += n;
}

/* Put the stream's next n bytes, as a caller of the writer does. */
static char *
put(struct fio_writer *w, char *buf, size_t n, int bulk, uint64_t *at)
{
	fill(buf, n, at);
	return fio_writer_put(w, buf, n, bulk);
}

/* Whether the file at fd holds exactly the stream's first len bytes. */
static void
check_file(int fd, uint64_t len)
{
	static char b[1 << 16];
	uint64_t at = 0;
	ssize_t k, i;

	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	while ((k = read(fd, b, sizeof b)) > 0) {
		/* One assertion per block: Check records each one it runs. */
		for (i = 0; i < k && b[i] == byte_at(at + (uint64_t)i); i++)
			;
		ck_assert_msg(i == k, "byte %llu differs",
			      (unsigned long long)(at + (uint64_t)i));
		at += (uint64_t)k;
	}
	ck_assert_int_eq(k, 0);
	ck_assert_uint_eq(at, len);
}

/*
 * Where the thread may start: never into /dev/null, never with
 * FASTIO_DISABLE=thread; into a file once FIO_WRITER_START bytes went
 * out, and only for bulk; at the first put when forced. Every byte in
 * order. The entries from ONE_CPU on start the thread, which needs two
 * CPUs (start_rule_two).
 */
static const struct {
	const char *disable, *force;
	int devnull, bulk;
	enum fio_writer_state at_init, after_start;
} starts[] = {
    {NULL, NULL, 1, 1, FIO_WRITER_ONE_NOW, FIO_WRITER_ONE_NOW},
    {"thread", NULL, 0, 1, FIO_WRITER_ONE_NOW, FIO_WRITER_ONE_NOW},
    {NULL, NULL, 0, 0, FIO_WRITER_ONE, FIO_WRITER_ONE},
    {"thread", "thread", 0, 1, FIO_WRITER_ONE_NOW, FIO_WRITER_ONE_NOW},
    {NULL, NULL, 0, 1, FIO_WRITER_ONE, FIO_WRITER_TWO},
    {NULL, "thread", 0, 1, FIO_WRITER_ONE, FIO_WRITER_TWO},
};
#define NSTARTS (int)(sizeof starts / sizeof starts[0])
#define ONE_CPU 4

static void
start_case(int i)
{
	int fd = spawn_temp_fd(NULL, 0);
	struct fio_fd out;
	struct fio_writer w;
	char *buf = fio_buffer_alloc(CAP);
	uint64_t at = 0, before;
	int forced = starts[i].force && !starts[i].disable;

	force(starts[i].disable, starts[i].force);
	if (starts[i].devnull) {
		close(fd);
		fd = open("/dev/null", O_WRONLY);
	}
	ck_assert_int_eq(fio_classify(fd, &out), 0);
	fio_writer_init(&w, &out, buf, CAP);
	ck_assert_int_eq(w.state, starts[i].at_init);
	/* Small puts first: the forced thread starts at the first. */
	buf = put(&w, buf, 1, starts[i].bulk, &at);
	buf = put(&w, buf, 0, starts[i].bulk, &at);
	ck_assert_int_eq(w.state, forced ? FIO_WRITER_TWO : starts[i].at_init);
	while (at + CAP < FIO_WRITER_START) {
		ck_assert_ptr_nonnull(
		    buf = put(&w, buf, CAP, starts[i].bulk, &at));
		if (!forced)
			ck_assert_int_eq(w.state, starts[i].at_init);
	}
	before = at;
	while (at < before + 8 * CAP)
		ck_assert_ptr_nonnull(
		    buf = put(&w, buf, CAP, starts[i].bulk, &at));
	ck_assert_int_eq(w.state, starts[i].after_start);
	/* A put that is not bulk writes all that waits, then its own. */
	ck_assert_ptr_nonnull(buf = put(&w, buf, 100, 0, &at));
	ck_assert_ptr_nonnull(buf = put(&w, buf, CAP, starts[i].bulk, &at));
	ck_assert_int_eq(fio_writer_drain(&w), 0);
	if (!starts[i].devnull)
		check_file(fd, at);
	ck_assert_int_eq(fio_writer_end(&w), 0);
	close(fd);
	fio_reset();
}

START_TEST(start_rule)
{
	start_case(_i);
}
END_TEST

START_TEST(start_rule_two)
{
	start_case(ONE_CPU + _i);
}
END_TEST

/*
 * The child: reads len bytes of the stream, 128 KiB only from a full
 * pipe (a reader slower than its writer). Exits 0 if every byte is right
 * and EOF follows.
 */
static _Noreturn void
reader(int in, uint64_t len)
{
	static char buf[CAP / 2];
	uint64_t at = 0;
	ssize_t k, i;

	while (at < len) {
		if (len - at >= CAP * 4)
			spawn_wait_pipe(in, CAP * 4);
		k = read(in, buf, sizeof buf);
		if (k <= 0)
			_exit(3);
		for (i = 0; i < k; i++)
			if (buf[i] != byte_at(at + (uint64_t)i))
				_exit(2);
		at += (uint64_t)k;
	}
	_exit(read(in, buf, 1) == 0 ? 0 : 4);
}

/*
 * The reader's vote, independent of timing: a reader that takes 128 KiB
 * only from a full 1 MiB pipe leaves at least 896 KiB in it once it was
 * full, too full for a whole buffer at every write, so the thread stops
 * after exactly FIO_VOTE_ROUNDS writes, and the caller writes on; forced,
 * it never votes. Every byte checked by the reader.
 */
START_TEST(vote_stops)
{
	const int forced = _i;
	const uint64_t len = FIO_WRITER_START + (FIO_VOTE_ROUNDS + 8) * CAP;
	struct fio_fd out;
	struct fio_writer w;
	char *buf = fio_buffer_alloc(CAP);
	uint64_t at = 0;
	int p[2], status;
	pid_t pid;

	spawn_mib_pipe(p);
	force(NULL, forced ? "thread" : NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[1]);
		reader(p[0], len);
	}
	close(p[0]);
	ck_assert_int_eq(fio_classify(p[1], &out), 0);
	fio_writer_init(&w, &out, buf, CAP);
	while (at < len) {
		ck_assert_ptr_nonnull(buf = put(&w, buf, CAP, 1, &at));
		if (at < FIO_WRITER_START && !forced)
			ck_assert_int_eq(w.state, FIO_WRITER_ONE);
		else
			ck_assert_int_ne(w.state, FIO_WRITER_ONE);
	}
	/*
	 * The caller sees the vote at its put after the thread's 32nd write
	 * (at most FIO_WRITER_BUFS - 1 behind it): 40 puts are enough.
	 */
	ck_assert_int_eq(w.state, forced ? FIO_WRITER_TWO : FIO_WRITER_ONE_NOW);
	ck_assert_int_eq(fio_writer_end(&w), 0);
	/* Read once the thread is gone. Sync writes left the pipe full. */
	ck_assert_uint_eq(w.vote.rounds, forced ? 0 : FIO_VOTE_ROUNDS);
	ck_assert_uint_eq(w.vote.signs, forced ? 0 : FIO_VOTE_ROUNDS);
	close(p[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "reader: status %#x", status);
	fio_reset();
}
END_TEST

/*
 * A write error in the thread comes back from a later put (or the drain)
 * with its errno, and stays: /dev/full, and a pipe without a reader with
 * SIGPIPE ignored.
 */
START_TEST(write_error)
{
	struct fio_fd out;
	struct fio_writer w;
	char *buf = fio_buffer_alloc(CAP), *next;
	uint64_t at = 0;
	int fd, p[2], i, want = _i == 0 ? ENOSPC : EPIPE;

	force(NULL, "thread");
	if (_i == 0) {
		fd = open("/dev/full", O_WRONLY);
	} else {
		signal(SIGPIPE, SIG_IGN);
		ck_assert_int_eq(pipe(p), 0);
		close(p[0]);
		fd = p[1];
	}
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fio_classify(fd, &out), 0);
	fio_writer_init(&w, &out, buf, CAP);
	/* The first buffer may be queued; the thread fails it meanwhile. */
	for (i = 0; i < FIO_WRITER_BUFS + 1; i++) {
		errno = 0;
		next = put(&w, buf, CAP, 1, &at);
		if (next == NULL)
			break;
		buf = next;
	}
	ck_assert_msg(next == NULL, "no error after %d puts", i);
	ck_assert_int_eq(errno, want);
	ck_assert_int_eq(fio_writer_drain(&w), -1);
	ck_assert_int_eq(errno, want);
	ck_assert_ptr_null(fio_writer_put(&w, buf, 1, 1));
	ck_assert_int_eq(fio_writer_end(&w), -1);
	ck_assert_int_eq(errno, want);
	close(fd);
	fio_reset();
}
END_TEST

/* SIGPIPE in the thread ends the process by it, as GNU's cat ends. */
START_TEST(sigpipe_kills)
{
	int p[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct fio_fd out;
		struct fio_writer w;
		char *buf = fio_buffer_alloc(CAP);
		uint64_t at = 0;
		int i;

		signal(SIGPIPE, SIG_DFL);
		close(p[0]);
		force(NULL, "thread");
		fio_classify(p[1], &out);
		fio_writer_init(&w, &out, buf, CAP);
		for (i = 0; i < 8 && buf != NULL; i++)
			buf = put(&w, buf, CAP, 1, &at);
		fio_writer_drain(&w);
		_exit(9);
	}
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
		      "status %#x", status);
}
END_TEST

static spawn_need *const two[] = {spawn_need_two_cpus, NULL};

static Suite *
writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("writer");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, start_rule, 0, ONE_CPU);
	tcase_add_loop_test(tc, write_error, 0, 2);
	tcase_add_test(tc, sigpipe_kills);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "two", start_rule_two, NSTARTS - ONE_CPU, two);
	suite_add_needing(s, "vote", vote_stops, 2, two);
	return s;
}

int
main(void)
{
	return suite_main(writer_suite());
}
