/* SPDX-License-Identifier: MIT */
/*
 * Closed standard descriptors. A program started with 0, 1 or 2 closed
 * finds its first descriptors of its own there: a pipe of ours that
 * landed on 1 would take our output. pipebench opens /dev/null on them
 * first and then runs as bash does with that descriptor closed (stages
 * get it closed; its own reads and writes fail with EBADF); cat and yes
 * give GNU's bytes, messages and status, compared with GNU's own where
 * /usr/bin has them.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

enum closed { IN, OUT, ERR };
static const char *const closed_names[] = {"stdin", "stdout", "stderr"};

/* s with descriptor c closed, and its input data where it has one. */
static void
close_one(struct spawn *s, enum closed c, const char *data, size_t len)
{
	spawn_feed(s, c == IN ? IN_CLOSED : IN_PIPE, data, c == IN ? 0 : len);
	if (c == OUT)
		s->out = OUT_CLOSED;
	s->err_closed = c == ERR;
}

static void
same_end(const struct spawn_result *a, const struct spawn_result *b,
	 const char *what)
{
	char msg[512];

	ck_assert_msg(a->exited == b->exited && a->status == b->status &&
			  a->signaled == b->signaled && a->signal == b->signal,
		      "%s: status %d/%d, GNU or bash %d/%d", what,
		      a->exited ? a->status : -1, a->signal,
		      b->exited ? b->status : -1, b->signal);
	ck_assert_msg(lines_check(a->out, a->out_len, b->out, b->out_len, 0,
				  msg, sizeof msg) == 0,
		      "%s: stdout: %s", what, msg);
	ck_assert_msg(strcmp(a->err, b->err) == 0,
		      "%s: stderr '%s', GNU or bash '%s'", what, a->err,
		      b->err);
}

/* --pipeline, against bash -o pipefail -c on the same string. */
static const char *const pipelines[] = {
    "yes | head -n1",
    "seq 100000 | cat",
    "cat | wc -c",
    "echo hi | tee /dev/stderr | wc -l",
};
#define NPIPELINES (int)(sizeof pipelines / sizeof pipelines[0])

START_TEST(pipeline_closed)
{
	const char *line = pipelines[_i / 3];
	enum closed c = (enum closed)(_i % 3);
	const char *pb[] = {"pipebench", "-Q", "--pipeline", line, NULL};
	const char *sh[] = {"bash", "-o", "pipefail", "-c", line, NULL};
	struct spawn s = {0};
	struct spawn_result ours, bash;
	char what[256];

	snprintf(what, sizeof what, "'%s' with %s closed", line,
		 closed_names[c]);
	spawn_init(&s, "pipebench", pb, NULL, OUT_PIPE);
	close_one(&s, c, "a\nb\n", 4);
	ck_assert_int_eq(spawn_run(&s, &ours), 0);
	spawn_init(&s, "/bin/bash", sh, NULL, OUT_PIPE);
	close_one(&s, c, "a\nb\n", 4);
	ck_assert_int_eq(spawn_run(&s, &bash), 0);
	same_end(&ours, &bash, what);
	spawn_free(&ours);
	spawn_free(&bash);
}
END_TEST

/* pipebench as a filter: what it cannot read or write is said, as any
 * other failing input or output; its stderr closed changes nothing. */
START_TEST(filter_closed)
{
	static const struct {
		const char *err;
		int status;
	} want[] = {
	    {"pipebench: standard input: Bad file descriptor\n", 1},
	    {"pipebench: write error: Bad file descriptor\n", 1},
	    {"", 0},
	};
	enum closed c = (enum closed)_i;
	const char *argv[] = {"pipebench", "-q", NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	close_one(&s, c, "hi\n", 3);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == want[c].status,
		      "%s closed: status %d", closed_names[c], r.status);
	ck_assert_msg(c == ERR ? strcmp(r.out, "hi\n") == 0 : r.out_len == 0,
		      "%s closed: '%s'", closed_names[c], r.out);
	ck_assert_msg(strcmp(r.err, want[c].err) == 0 ||
			  (c == IN && strstr(r.err, want[c].err) == r.err),
		      "%s closed: '%s'", closed_names[c], r.err);
	spawn_free(&r);
}
END_TEST

/* cat and yes against GNU's, each descriptor closed in turn. */
static const struct {
	const char *prog, *args[3];
} invocations[] = {
    {"cat", {"@"}},	 {"cat", {NULL}},     {"cat", {"-n", "@"}},
    {"cat", {"@", "-"}}, {"cat", {"@", "@"}}, {"cat", {"-A"}},
    {"yes", {NULL}},	 {"yes", {"abc"}},
};
#define NINVOCATIONS (int)(sizeof invocations / sizeof invocations[0])

START_TEST(gnu_closed)
{
	int k = _i / 3;
	enum closed c = (enum closed)(_i % 3);
	const char *prog = invocations[k].prog, *argv[5] = {prog};
	size_t len = 300000;
	char *data = spawn_lines(len, "line %u\tof the input\n"),
	     *path = spawn_temp_path(data, len), gnu[64], what[256];
	struct spawn s = {0};
	struct spawn_result ours, theirs;
	int yes = strcmp(prog, "yes") == 0, i;

	snprintf(gnu, sizeof gnu, "/usr/bin/%s", prog);
	spawn_with_args(argv, invocations[k].args, 3, path);
	snprintf(what, sizeof what, "%s %s with %s closed", prog,
		 argv[1] ? argv[1] : "", closed_names[c]);
	for (i = 0; i < 2; i++) {
		spawn_init(&s, i ? gnu : prog, argv, NULL, OUT_PIPE);
		close_one(&s, c, data, len);
		s.out_max = yes ? 1 << 20 : 0;
		ck_assert_int_eq(spawn_run(&s, i ? &theirs : &ours), 0);
	}
	same_end(&ours, &theirs, what);
	spawn_free(&ours);
	spawn_free(&theirs);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

static spawn_need *const gnu[] = {spawn_need_gnu_cat, spawn_need_native, NULL};
static spawn_need *const native[] = {spawn_need_native, NULL};

static Suite *
closed_suite(void)
{
	Suite *s = suite_create("closed");
	TCase *tc = tcase_create("pipebench");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, filter_closed, 0, 3);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "pipeline", pipeline_closed, 3 * NPIPELINES,
			  native);
	suite_add_needing(s, "gnu", gnu_closed, 3 * NINVOCATIONS, gnu);
	return s;
}

int
main(void)
{
	return suite_main(closed_suite());
}
