/* SPDX-License-Identifier: MIT */
/*
 * Whole blocks for a reader that takes one read() as a block, as dd
 * without iflag=fullblock does: what such a reader gets depends on where
 * the writer's bytes sit in the pipe, and GNU 9.10's yes and cat's
 * formatter make it whole. A read of a pipe returns what the pipe holds,
 * up to the count asked; it comes back short only when the reader has
 * caught up with the writer. So the reader here catches up on purpose,
 * at points spread over the stream: it stops the writer (SIGSTOP, all
 * its threads) wherever it is, even inside a call that fills the pipe,
 * and takes what the pipe holds in blocks of 512 B, 1 KiB and 4 KiB by
 * non-blocking reads. Every read must be whole, but the last of a
 * stream that ended. Nothing here depends on timing: a writer that
 * leaves a part of a block in the pipe at any moment fails wherever it
 * is stopped.
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

#include "spawn.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

static const size_t blocks[] = {512, 1024, 4096};
#define NBLOCKS (int)(sizeof blocks / sizeof blocks[0])

/* What one run saw. */
struct seen {
	uint64_t bytes;	   /* read in all */
	unsigned stops;	   /* times the writer was stopped and caught up */
	uint64_t short_at; /* the offset of a short read, or UINT64_MAX */
	size_t short_len;
};

/* The writer: prog with args, its environment plus env, its standard
 * output the pipe's write end. */
static pid_t
start(const char *prog, const char *const *argv, const char *const *env,
      int p[2])
{
	pid_t pid;
	size_t i;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL); /* the harness may ignore it */
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		for (i = 0; env != NULL && env[i] != NULL; i++)
			putenv((char *)env[i]);
		execv(spawn_path(prog), (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	return pid;
}

/* One read of a block, as dd makes it; notes a short one. */
static ssize_t
take(int fd, char *buf, size_t bs, struct seen *s)
{
	ssize_t n;

	do
		n = read(fd, buf, bs);
	while (n < 0 && errno == EINTR);
	if (n > 0 && (size_t)n < bs && s->short_at == UINT64_MAX) {
		s->short_at = s->bytes;
		s->short_len = (size_t)n;
	}
	if (n > 0)
		s->bytes += (size_t)n;
	return n;
}

/*
 * Read the writer's stream in blocks of bs until limit bytes (0: its
 * end), stopping it every stride bytes to take all the pipe holds. A
 * short read counts unless the stream ended right after it.
 */
static void
read_blocks(pid_t pid, int fd, size_t bs, uint64_t limit, uint64_t stride,
	    struct seen *s)
{
	char *buf = malloc(bs);
	uint64_t next = stride;
	int status, ended = 0, flags = fcntl(fd, F_GETFL);
	ssize_t n;

	ck_assert_ptr_nonnull(buf);
	memset(s, 0, sizeof *s);
	s->short_at = UINT64_MAX;
	while (limit == 0 || s->bytes < limit) {
		if (s->bytes >= next && !ended) {
			next += stride;
			ck_assert_int_eq(kill(pid, SIGSTOP), 0);
			ck_assert_int_eq(waitpid(pid, &status, WUNTRACED), pid);
			ended = !WIFSTOPPED(status);
			fcntl(fd, F_SETFL, flags | O_NONBLOCK);
			while ((n = take(fd, buf, bs, s)) > 0)
				;
			fcntl(fd, F_SETFL, flags);
			if (!ended) {
				s->stops++;
				ck_assert_int_eq(kill(pid, SIGCONT), 0);
			}
			if (n == 0)
				break;
			continue;
		}
		n = take(fd, buf, bs, s);
		if (n <= 0)
			break;
	}
	/* A short read that ended the stream is its tail. */
	if (s->short_at != UINT64_MAX &&
	    s->short_at + s->short_len == s->bytes &&
	    (limit == 0 || s->bytes < limit))
		s->short_at = UINT64_MAX;
	close(fd);
	if (!ended)
		waitpid(pid, &status, 0);
	free(buf);
}

/*
 * yes: every strategy and every shape of the tee strategy, each change
 * of shape (FASTIO_FORCE=probe: a new one every round), the start's
 * write()s; patterns whose length divides a page: "y", "" and 16-byte
 * lines.
 */
static const char *const yes_env[][3] = {
    {NULL},
    {"FASTIO_DISABLE=start", NULL},
    {"FASTIO_FORCE=probe", NULL},
    {"FASTIO_FORCE=probe", "FASTIO_DISABLE=start", NULL},
    {"FASTIO_DISABLE=start,hotpage,direct", NULL},
    {"FASTIO_DISABLE=start,pages,middle", NULL},
    {"FASTIO_DISABLE=tee", NULL},
    {"FASTIO_DISABLE=start,tee", NULL},
    {"FASTIO_DISABLE=all", NULL},
};
#define NYES_ENV (int)(sizeof yes_env / sizeof yes_env[0])
static const char *const yes_args[][3] = {
    {"yes", NULL},
    {"yes", "", NULL},
    {"yes", "0123456789abcde", NULL},
};
#define NYES_ARGS (int)(sizeof yes_args / sizeof yes_args[0])

START_TEST(yes_blocks)
{
	int env = _i % NYES_ENV, args = _i / NYES_ENV % NYES_ARGS,
	    bs = _i / NYES_ENV / NYES_ARGS;
	struct seen s;
	int p[2];
	pid_t pid = start("yes", yes_args[args], yes_env[env], p);

	/* Stops every 700 KiB and a bit: at every kind of place. */
	read_blocks(pid, p[0], blocks[bs], 24 * MIB, 700 * KIB + 4321, &s);
	ck_assert_uint_ge(s.bytes, 24 * MIB);
	/* A stop a stride, or a pipeful more where a stop took a pipeful. */
	ck_assert_uint_ge(s.stops, 24 * MIB / (700 * KIB + 4321 + MIB));
	ck_assert_msg(s.short_at == UINT64_MAX,
		      "yes '%s' with %s, reads of %zu: %zu bytes at %llu",
		      yes_args[args][1] ? yes_args[args][1] : "y",
		      yes_env[env][0] ? yes_env[env][0] : "nothing", blocks[bs],
		      s.short_len, (unsigned long long)s.short_at);
}
END_TEST

static Suite *
blocks_suite(void)
{
	Suite *s = suite_create("blocks");
	TCase *tc = tcase_create("yes");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, yes_blocks, 0, NYES_ENV * NYES_ARGS * NBLOCKS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(blocks_suite());
}
