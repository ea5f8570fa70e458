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
 * input the file in (NULL: as it is), its standard output a pipe whose
 * read end comes back in *fd. */
static pid_t
start(const char *prog, const char *const *argv, const char *const *env,
      const char *in, int *fd)
{
	int from = -1;
	pid_t pid;

	if (in != NULL)
		ck_assert_int_ge(from = open(in, O_RDONLY | O_CLOEXEC), 0);
	pid = spawn_piped(spawn_path(prog), argv, env, from, fd);
	if (from >= 0)
		close(from);
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
 * lines; 16 MiB each.
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
	/* Past the start and through many rounds and changes of shape;
	 * under qemu, where each read costs many, fewer. */
	uint64_t len = spawn_need_native() == NULL ? 16 * MIB : 4 * MIB;
	struct seen s;
	int fd;
	pid_t pid = start("yes", yes_args[args], yes_env[env], NULL, &fd);

	/* Stops every 300 KiB and a bit: at every kind of place. */
	read_blocks(pid, fd, blocks[bs], len, 300 * KIB + 4321, &s);
	ck_assert_uint_ge(s.bytes, len);
	/* A stop a stride, or a pipeful more where a stop took a pipeful. */
	ck_assert_uint_ge(s.stops, len / (300 * KIB + 4321 + MIB));
	ck_assert_msg(s.short_at == UINT64_MAX,
		      "yes '%s' with %s, reads of %zu: %zu bytes at %llu",
		      yes_args[args][1] ? yes_args[args][1] : "y",
		      yes_env[env][0] ? yes_env[env][0] : "nothing", blocks[bs],
		      s.short_len, (unsigned long long)s.short_at);
}
END_TEST

/*
 * cat's formatting options, each and mixed, on a single regular file
 * (TEXT): text lines of many lengths, blank runs, tabs, control bytes
 * and bytes from 0x80 up, so that every option changes something. Through
 * each formatting loop (FASTIO_CAT_SCAN: this CPU's own, VBMI2 or AVX2;
 * 32 the AVX2 loops; 16 the general one; 8 the portable ones of every
 * other CPU) and with the writer's thread from the first byte.
 */
static const char *const cat_opts[] = {"-A", "-E", "-b",  "-v",	  "-s",
				       "-T", "-n", "-nE", "-bsT", "-vET"};
#define NCAT_OPTS (int)(sizeof cat_opts / sizeof cat_opts[0])
static const char *const cat_env[][2] = {
    {NULL},
    {"FASTIO_CAT_SCAN=32", NULL},
    {"FASTIO_CAT_SCAN=16", NULL},
    {"FASTIO_CAT_SCAN=8", NULL},
    {"FASTIO_FORCE=thread", NULL},
};
#define NCAT_ENV (int)(sizeof cat_env / sizeof cat_env[0])
/*
 * 3 MB: the writer's buffers many times over, and more than its pipe
 * can hold (1 MiB at most) by many strides, so that the writer cannot
 * have ended before the reader's second stop. Under qemu too: with 1 MB
 * a writer that grew its pipe was now and then gone at the first.
 */
#define TEXT 3000000u
static char *text_path;

static void
make_text(void)
{
	size_t i = 0, n;
	char *t = malloc(TEXT);
	unsigned r = 1;

	ck_assert_ptr_nonnull(t);
	while (i < TEXT) {
		r = r * 1103515245u + 12345u;
		n = r >> 16 & 0xff;
		if (n < 40) /* a run of blank lines */
			for (n = n % 4 + 1; n > 0 && i < TEXT; n--)
				t[i++] = '\n';
		else /* a line: letters, a tab, now and then a byte shown */
			for (n = n % 120; i < TEXT; n--) {
				r = r * 1103515245u + 12345u;
				t[i++] = n == 0	       ? '\n'
					 : n % 17 == 0 ? '\t'
					 : n % 53 == 0 ? (char)(r >> 24)
						       : (char)('a' + n % 26);
				if (n == 0)
					break;
			}
	}
	text_path = spawn_temp_path(t, TEXT);
	free(t);
}

static void
remove_text(void)
{
	unlink(text_path);
	free(text_path);
}

START_TEST(cat_blocks)
{
	int opts = _i % NCAT_OPTS, env = _i / NCAT_OPTS % NCAT_ENV,
	    bs = _i / NCAT_OPTS / NCAT_ENV;
	const char *argv[] = {"cat", cat_opts[opts], text_path, NULL};
	struct seen s;
	int fd;
	pid_t pid = start("cat", argv, cat_env[env], NULL, &fd);

	read_blocks(pid, fd, blocks[bs], 0, 150 * KIB + 1234, &s);
	ck_assert_uint_gt(s.bytes, TEXT / 2); /* -s takes blank runs away */
	ck_assert_uint_ge(s.stops, 2);
	ck_assert_msg(s.short_at == UINT64_MAX,
		      "cat %s with %s, reads of %zu: %zu bytes at %llu",
		      cat_opts[opts],
		      cat_env[env][0] ? cat_env[env][0] : "nothing", blocks[bs],
		      s.short_len, (unsigned long long)s.short_at);
}
END_TEST

/*
 * The other writers into a pipe, from a single regular file: plain cat
 * (splice from the page cache, whole pages), its read()/write() path
 * (reads of a file are whole but the last), and pipebench's relay,
 * splicing and copying (--touch).
 */
static const struct {
	const char *prog, *argv[4], *env[2];
	int stdin_file;
} others[] = {
    {"cat", {"cat", "@", NULL}, {NULL}, 0},
    {"cat", {"cat", "@", NULL}, {"FASTIO_DISABLE=splice,oneread", NULL}, 0},
    {"pipebench", {"pipebench", "-Q", NULL}, {NULL}, 1},
    {"pipebench", {"pipebench", "-Q", "--touch", NULL}, {NULL}, 1},
};
#define NOTHERS (int)(sizeof others / sizeof others[0])

START_TEST(other_blocks)
{
	int w = _i % NOTHERS, bs = _i / NOTHERS;
	const char *argv[4];
	struct seen s;
	int fd, i;
	pid_t pid;

	for (i = 0; i < 4; i++)
		argv[i] =
		    others[w].argv[i] && strcmp(others[w].argv[i], "@") == 0
			? text_path
			: others[w].argv[i];
	pid = start(others[w].prog, argv, others[w].env,
		    others[w].stdin_file ? text_path : NULL, &fd);
	read_blocks(pid, fd, blocks[bs], 0, 150 * KIB + 1234, &s);
	ck_assert_uint_eq(s.bytes, TEXT);
	ck_assert_msg(s.short_at == UINT64_MAX,
		      "%s %s, reads of %zu: %zu bytes at %llu", argv[0],
		      others[w].env[0] ? others[w].env[0] : "", blocks[bs],
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
	tc = tcase_create("cat");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, make_text, remove_text);
	tcase_add_loop_test(tc, cat_blocks, 0, NCAT_OPTS * NCAT_ENV * NBLOCKS);
	tcase_add_loop_test(tc, other_blocks, 0, NOTHERS * NBLOCKS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(blocks_suite());
}
