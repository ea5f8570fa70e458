/* SPDX-License-Identifier: MIT */
/*
 * pipebench --pipeline (src/pipebench/pipeline.c, relay.c, stages.c):
 * the bytes that come out of a metered pipeline are the pipeline's; the
 * stage that holds the rest back is named, wherever it stands, and none
 * when the source is the limit, by --watch (watch.c) as by --pipeline;
 * a failed pipeline's report is its status; the status is bash's
 * pipefail status; a pipeline that cannot run is refused before
 * anything starts.
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"

#define MIB ((size_t)1 << 20)

/* A test helper's path: tests/throttle.c, tests/busy.c. */
static const char *
helper(const char *name, char *path, size_t size)
{
	ck_assert_int_lt(
	    snprintf(path, size, "%s/tests/%s", getenv("FIO_BUILDDIR"), name),
	    (int)size);
	return path;
}

/*
 * A template's "%T" becomes the throttle's path (a stage of known
 * speed), "%B" busy's (a stage of known work on the CPU).
 */
static void
fill(char *out, size_t size, const char *template)
{
	char path[4096];
	size_t n = 0;

	for (const char *t = template; *t != '\0'; t++) {
		const char *add = NULL;

		if (t[0] == '%' && t[1] == 'T')
			add = helper("throttle", path, sizeof path);
		else if (t[0] == '%' && t[1] == 'B')
			add = helper("busy", path, sizeof path);
		if (add == NULL) {
			ck_assert_uint_lt(n + 1, size);
			out[n++] = *t;
			continue;
		}
		ck_assert_uint_lt(n + strlen(add), size);
		memcpy(out + n, add, strlen(add));
		n += strlen(add);
		t++;
	}
	out[n] = '\0';
}

/*
 * The same pipeline through bash -o pipefail and through pipebench: the
 * same bytes and the same status.
 */
static const char *const same_bytes[] = {
    "yes | head -c 1000",
    "yes | head -c 64M | md5sum",
    "yes abc | head -n 100000 | tr a-c x-z | sort | uniq -c",
    "printf 'a|b\\n' | cat | cat",
    "echo '|' \"|\" \\| | cat",
};
#define NSAME (int)(sizeof same_bytes / sizeof same_bytes[0])

START_TEST(bytes_as_the_shell_gives)
{
	const char *sh[] = {"bash", "-o",	    "pipefail",
			    "-c",   same_bytes[_i], NULL};
	const char *pb[] = {"pipebench", "-q", "--pipeline", same_bytes[_i],
			    NULL};
	struct spawn s = {0};
	struct spawn_result want, got;

	spawn_init(&s, "/bin/bash", sh, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &want), 0);
	spawn_init(&s, "pipebench", pb, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &got), 0);
	ck_assert_uint_gt(want.out_len, 0);
	ck_assert_uint_eq(got.out_len, want.out_len);
	ck_assert(memcmp(got.out, want.out, want.out_len) == 0);
	ck_assert_msg(got.exited && want.exited && got.status == want.status,
		      "%s: status %d, the shell's %d", same_bytes[_i],
		      got.status, want.status);
	/* A failed pipeline's report is its status. */
	ck_assert_ptr_nonnull(got.status == 0
				  ? strstr(got.err, "Held back by")
				  : strstr(got.err, "Failed: status "));
	spawn_free(&want);
	spawn_free(&got);
}
END_TEST

/* The same with argv lists, each stage run as it is, without a shell. */
START_TEST(argv_lists)
{
	const char *pb[] = {"pipebench", "-q",	"--pipeline", "--", "yes",
			    "a b",	 "|",	"head",	      "-n", "3",
			    "|",	 "cat", NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "pipebench", pb, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.out, "a b\na b\na b\n");
	ck_assert(r.exited && r.status == 128 + SIGPIPE);
	ck_assert_ptr_nonnull(strstr(r.err, "\n 2 head -n 3 "));
	spawn_free(&r);
}
END_TEST

/*
 * Stages whose work is known: throttled to 2 MB/s, 3 MB through it (a
 * sleeping stage: first, in the middle, a slow sink last), a filter on
 * the CPU (tests/busy.c), one that works after its input ended (as sort
 * does); every other stage is hundreds of times faster, so the verdict
 * never depends on how busy the machine is. In one shape the source is
 * throttled, outside: none is named.
 */
static const struct {
	const char *pipeline; /* %T: the throttle, %B: busy */
	const char *source;   /* a shell's command before it, or NULL */
	int held;	      /* the stage named; 0: none */
} shapes[] = {
    {"%T 2000000 | cat | cat", NULL, 1},
    {"cat | %T 2000000 | cat", NULL, 2},
    {"cat | cat | %T 2000000", NULL, 3},
    {"cat | tr a b | cat", "%T 2000000 <", 0},
    {"cat | %B filter 500 | cat", NULL, 2},
    {"cat | %B after 1500 | cat", NULL, 2},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

START_TEST(held_back)
{
	size_t len = 3000000;
	char *data = spawn_lines(len, "line %u of the input\n");
	char *path = spawn_temp_path(data, len), pipeline[8192], cmd[20000],
	     source[8192], want[64];
	const char *argv[] = {"pipebench",  "-q",     "--json",
			      "--pipeline", pipeline, NULL};
	const char *sh[] = {"sh", "-c", cmd, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	fill(pipeline, sizeof pipeline, shapes[_i].pipeline);
	spawn_feed(&s, IN_FILE, data, len);
	if (shapes[_i].source != NULL) {
		fill(source, sizeof source, shapes[_i].source);
		ck_assert_int_lt(
		    snprintf(cmd, sizeof cmd,
			     "%s %s | %s -q --json --pipeline '%s'", source,
			     path, spawn_path("pipebench"), pipeline),
		    (int)sizeof cmd);
		spawn_init(&s, "/bin/sh", sh, NULL, OUT_PIPE);
	} else {
		spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	}
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "status %d: %s", r.status,
		      r.err);
	ck_assert_uint_eq(r.out_len, len);
	ck_assert(memcmp(r.out, data, len) == 0);
	snprintf(want, sizeof want, "\"held_back_by\":%d,", shapes[_i].held);
	ck_assert_msg(strstr(r.err, want) != NULL, "%s: not %s in\n%s",
		      pipeline, want, r.err);
	if (shapes[_i].held)
		snprintf(want, sizeof want, "Held back by: stage %d, ",
			 shapes[_i].held);
	else
		snprintf(want, sizeof want,
			 "Held back by: none: the source is the limit\n");
	ck_assert_msg(strstr(r.err, want) != NULL, "%s", r.err);
	spawn_free(&r);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/*
 * Once the pipeline's last stage, the child of bash that writes out, is
 * past its exec, and every other child still there is too: bash forks
 * the stages in order and sets up each one's descriptors before its
 * exec, so all are then stages as the watch will find them. Not a count
 * of children: a first stage whose reader took all it had may be gone
 * before the last one starts. Bash's program is known by its path, not
 * read from the shell's process, which may not have reached its own exec
 * yet. Polled, nothing assumed about time.
 */
static void
wait_stages(pid_t pid, const char *out)
{
	char path[64], bash[PATH_MAX], exe[PATH_MAX], list[4096];
	struct stat want, sb;
	ssize_t len;

	ck_assert_ptr_nonnull(realpath("/bin/bash", bash));
	ck_assert_int_eq(stat(out, &want), 0);
	for (;;) {
		char *p = list, *end;
		size_t got;
		int last = 0, ready = 1;
		FILE *f;

		snprintf(path, sizeof path, "/proc/%ld/task/%ld/children",
			 (long)pid, (long)pid);
		ck_assert_ptr_nonnull(f = fopen(path, "r"));
		got = fread(list, 1, sizeof list - 1, f);
		fclose(f);
		list[got] = '\0';
		for (long c; (c = strtol(p, &end, 10)) > 0; p = end) {
			snprintf(path, sizeof path, "/proc/%ld/exe", c);
			len = readlink(path, exe, sizeof exe - 1);
			if (len <= 0 ||
			    ((void)(exe[len] = '\0'), strcmp(exe, bash) == 0)) {
				ready = 0;
				continue;
			}
			snprintf(path, sizeof path, "/proc/%ld/fd/1", c);
			if (stat(path, &sb) == 0 && sb.st_dev == want.st_dev &&
			    sb.st_ino == want.st_ino)
				last = 1;
		}
		if (last && ready)
			return;
		poll(NULL, 0, 5);
	}
}

/* The name of the program that starts the k-th stage (from 1) of a
 * shell's pipeline, past its redirections, in buf. */
static void
stage_program(const char *pipeline, int k, char *buf, size_t size)
{
	const char *p = pipeline, *end, *slash;

	for (; k > 1 && (p = strstr(p, " | ")) != NULL; k--)
		p += 3;
	ck_assert_ptr_nonnull(p);
	p += strspn(p, " ");
	while (*p == '<' || *p == '>') {
		p += 1 + strspn(p + 1, " ");
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	end = p + strcspn(p, " |");
	for (slash = p; slash < end; slash++)
		if (*slash == '/')
			p = slash + 1;
	ck_assert_uint_lt((size_t)(end - p), size);
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = '\0';
}

/*
 * The same shapes started by bash, and watched from outside: --watch
 * names the stage --pipeline names (the outside source, now a stage of
 * the watched pipeline, is named itself), and leaves the pipeline as it
 * was: its bytes, its status, no descriptor of ours keeping a pipe open.
 * The stage is known by its program: a first cat whose reader took all
 * it had may be gone before the watch begins, and the stages after it
 * are then numbered from one less.
 */
START_TEST(watched_as_run)
{
	size_t len = 3000000, got_len;
	char *data = spawn_lines(len, "line %u of the input\n");
	char *path = spawn_temp_path(data, len), *out = spawn_temp_path("", 0),
	     pipeline[8192], source[8192], cmd[20000], pid[32], want[64], *got;
	const char *sh[] = {"bash", "-c", cmd, NULL};
	const char *argv[] = {"pipebench", "-q", "--json",
			      "--watch",   pid,	 NULL};
	struct spawn s = {0}, w = {0};
	struct spawn_child c;
	struct spawn_result r, rw;
	int held = shapes[_i].source != NULL ? 1 : shapes[_i].held, k;
	char named[64], got_program[256];
	const char *at;

	fill(pipeline, sizeof pipeline, shapes[_i].pipeline);
	if (shapes[_i].source != NULL) {
		fill(source, sizeof source, shapes[_i].source);
		snprintf(cmd, sizeof cmd, "%s %s | %s > %s", source, path,
			 pipeline, out);
	} else {
		snprintf(cmd, sizeof cmd, "< %s %s > %s", path, pipeline, out);
	}
	spawn_init(&s, "/bin/bash", sh, NULL, OUT_DEVNULL);
	ck_assert_int_eq(spawn_start(&s, &c), 0);
	wait_stages(c.pid, out);
	snprintf(pid, sizeof pid, "%ld", (long)c.pid);
	spawn_init(&w, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&w, &rw), 0);
	ck_assert_int_eq(spawn_finish(&c, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "%s: %s", cmd, r.err);
	got = spawn_slurp(out, &got_len);
	ck_assert_uint_eq(got_len, len);
	ck_assert(memcmp(got, data, len) == 0);
	ck_assert_msg(rw.exited && rw.status == 0, "%s", rw.err);
	stage_program(cmd, held, want, sizeof want);
	snprintf(named, sizeof named, "\"held_back_by\":");
	ck_assert_msg((at = strstr(rw.err, named)) != NULL &&
			  sscanf(at + strlen(named), "%d", &k) == 1 && k > 0,
		      "%s: no stage named in\n%s", cmd, rw.err);
	snprintf(named, sizeof named, "{\"stage\":%d,\"command\":\"", k);
	ck_assert_msg((at = strstr(rw.err, named)) != NULL,
		      "%s: no stage %d in\n%s", cmd, k, rw.err);
	stage_program(at + strlen(named), 1, got_program, sizeof got_program);
	got_program[strcspn(got_program, "\"")] = '\0';
	ck_assert_msg(strcmp(got_program, want) == 0,
		      "%s: stage %d (%s) named, not %s, in\n%s", cmd, k,
		      got_program, want, rw.err);
	spawn_free(&r);
	spawn_free(&rw);
	unlink(path);
	unlink(out);
	free(got);
	free(path);
	free(out);
	free(data);
}
END_TEST

/* A failed pipeline's report is its status and the stage that failed. */
START_TEST(failed_named)
{
	const char *argv[] = {"pipebench",
			      "-q",
			      "--json",
			      "--pipeline",
			      "yes | head -c 3M | no-such-command-here | cat",
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert(r.exited && r.status == 127);
	ck_assert_msg(strstr(r.err, "Failed: status 127, stage 3, "
				    "no-such-command-here\n") != NULL,
		      "%s", r.err);
	ck_assert_ptr_null(strstr(r.err, "Held back by"));
	ck_assert_ptr_nonnull(strstr(r.err, "\"held_back_by\":0,"));
	spawn_free(&r);
}
END_TEST

/* bash's pipefail: the rightmost stage that failed, 128 + N if killed. */
static const struct {
	const char *pipeline;
	int status;
} statuses[] = {
    {"true | true", 0},
    {"yes | head -c 10", 128 + SIGPIPE},
    {"yes | sh -c 'head -c 10; exit 3' | cat", 3},
    {"false | true", 1},
    {"exit 4 | exit 5 | true", 5},
    {"true | no-such-command-here", 127},
};
#define NSTATUSES (int)(sizeof statuses / sizeof statuses[0])

START_TEST(pipefail_status)
{
	const char *argv[] = {"pipebench", "-Q", "--pipeline",
			      statuses[_i].pipeline, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == statuses[_i].status,
		      "%s: status %d", statuses[_i].pipeline, r.status);
	spawn_free(&r);
}
END_TEST

/* Whether needle is in [at, end). */
static int
within(const char *at, const char *end, const char *needle)
{
	const char *p = strstr(at, needle);

	return p != NULL && p < end;
}

/*
 * The live lines, asked for with -p where standard error is no terminal:
 * a line a stage, stamped, with its bytes in and out and their rates
 * now, no terminal's escapes; the last frame, drawn once every stage
 * ended, holds every byte. Standard input stays open until frames have
 * come, so they come however fast the machine.
 */
START_TEST(live_lines)
{
	const char *argv[] = {"pipebench", "-p", "--pipeline", "cat | cat",
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;
	const char *table, *last = NULL, *at;
	int k;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	spawn_feed(&s, IN_PIPE, "hello\n", 6);
	s.err_min = 200;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert(r.exited && r.status == 0);
	ck_assert_str_eq(r.out, "hello\n");
	ck_assert_ptr_null(strchr(r.err, '\033'));
	ck_assert_ptr_null(strchr(r.err, '\r'));
	table = strstr(r.err, " # Command ");
	ck_assert_ptr_nonnull(table);
	for (at = r.err; (at = strstr(at, "s]  1 cat ")) != NULL && at < table;
	     at++)
		last = at;
	ck_assert_ptr_nonnull(last);
	for (k = 1, at = last; k <= 2; k++, at = strchr(at, '\n') + 1) {
		char head[16];
		const char *end = strchr(at, '\n');

		snprintf(head, sizeof head, "%2d cat ", k);
		ck_assert_msg(end != NULL && within(at, end, head) &&
				  within(at, end, "out    6.00 B ") &&
				  within(at, end, "/s"),
			      "the last frame: %.*s", (int)(table - last),
			      last);
	}
	ck_assert_ptr_eq(at, table);
	spawn_free(&r);
}
END_TEST

/* SIGINT to pipebench stops every stage; the summary still comes, and
 * then pipebench dies of the SIGINT, so that its caller sees it. */
START_TEST(interrupted)
{
	const char *argv[] = {"pipebench", "-q", "--pipeline", "yes | cat",
			      NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	s.out_max = MIB;
	s.signal = SIGINT;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.signaled && r.signal == SIGINT, "status %d: %s",
		      r.status, r.err);
	ck_assert_msg(strstr(r.err, " # Command ") != NULL &&
			  strstr(r.err, "Failed: status ") != NULL,
		      "%s", r.err);
	spawn_free(&r);
}
END_TEST

/* Refused, status 2, and nothing started (the first stage would make a
 * file); what the shell would refuse, in bash's words (SHELL_SAYS). */
#define SHELL_SAYS "/bin/bash: -c: line "
static const struct {
	const char *pipeline, *err;
} refused[] = {
    {"touch %F | | cat", SHELL_SAYS},
    {"touch %F |", SHELL_SAYS},
    {"touch %F", "pipebench: --pipeline: a pipeline has two stages or "
		 "more; for one command, use --exec\n"},
    {"touch %F | cat '", SHELL_SAYS},
    {"touch %F | cat \"x", SHELL_SAYS},
    {NULL, "pipebench: --pipeline: more than 64 stages\n"},
};
#define NREFUSED (int)(sizeof refused / sizeof refused[0])

START_TEST(refused_before_start)
{
	char *mark = spawn_temp_path("", 0), pipeline[1024];
	const char *argv[] = {"pipebench", "--pipeline", pipeline, NULL};
	const char *t = refused[_i].pipeline;
	struct spawn s = {0};
	struct spawn_result r;
	int k;

	unlink(mark);
	if (t == NULL) {
		snprintf(pipeline, sizeof pipeline, "touch %s", mark);
		for (k = 1; k < 65; k++)
			strcat(pipeline, " | cat");
	} else {
		ck_assert_int_lt(snprintf(pipeline, sizeof pipeline, "%.*s%s%s",
					  (int)(strstr(t, "%F") - t), t, mark,
					  strstr(t, "%F") + 2),
				 (int)sizeof pipeline);
	}
	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	if (strcmp(refused[_i].err, SHELL_SAYS) == 0)
		ck_assert_msg(strncmp(r.err, SHELL_SAYS, strlen(SHELL_SAYS)) ==
				  0,
			      "%s", r.err);
	else
		ck_assert_str_eq(r.err, refused[_i].err);
	ck_assert(r.exited && r.status == 2);
	ck_assert_uint_eq(r.out_len, 0);
	ck_assert_int_ne(access(mark, F_OK), 0);
	spawn_free(&r);
	free(mark);
}
END_TEST

/* Sixty-four stages is the most, and runs. */
START_TEST(most_stages)
{
	char pipeline[1024] = "echo hello";
	const char *argv[] = {"pipebench", "-Q", "--pipeline", pipeline, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	int k;

	for (k = 1; k < 64; k++)
		strcat(pipeline, " | cat");
	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.out, "hello\n");
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
}
END_TEST

static Suite *
pipeline_suite(void)
{
	Suite *s = suite_create("pipeline");
	TCase *tc = tcase_create("pipeline");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, bytes_as_the_shell_gives, 0, NSAME);
	tcase_add_test(tc, argv_lists);
	tcase_add_loop_test(tc, held_back, 0, NSHAPES);
	tcase_add_loop_test(tc, watched_as_run, 0, NSHAPES);
	tcase_add_test(tc, failed_named);
	tcase_add_loop_test(tc, pipefail_status, 0, NSTATUSES);
	tcase_add_test(tc, live_lines);
	tcase_add_test(tc, interrupted);
	tcase_add_loop_test(tc, refused_before_start, 0, NREFUSED);
	tcase_add_test(tc, most_stages);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(pipeline_suite());
}
