/* SPDX-License-Identifier: MIT */
/*
 * pipebench --pipeline in scripts (src/pipebench/pipeline.c, parse.c,
 * relay.c): it runs a pipeline as bash -o pipefail -c runs the same
 * string, apart from its report. Each case runs both, from the same
 * script, and compares what a script sees: the bytes, the status or the
 * signal, what is left of standard input, what a stage finds open.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline_runner.h"
#include "spawn.h"

/*
 * What is left of standard input for the next command: the first stage
 * reads our standard input itself, so a seekable one keeps the offset it
 * leaves, and nothing is read that no stage asked for.
 */
static const char *const stdin_left[] = {
    "{ %R 'head -n1 | cat'; cat; } < %F",
    "{ %R 'true | cat'; cat; } < %F",
    "{ %R 'head -c 3 | tr a-z A-Z'; cat; } < %F",
    "printf 'a\\nb\\n' | { %R 'head -n1 | cat'; cat; }",
};
#define NSTDIN (int)(sizeof stdin_left / sizeof stdin_left[0])

START_TEST(input_left)
{
	char *file = spawn_temp_path("one\ntwo\nthree\nfour\nfive\n", 24);

	set_runners();
	same_as_bash(stdin_left[_i], file);
	unlink(file);
	free(file);
}
END_TEST

/*
 * Split as the shell splits: the | of $(...), `...`, ( ), { }, ${...},
 * compounds and comments stay inside a stage; |& sends standard error
 * too. What would make more than one pipeline is refused, named, status
 * 2, before anything runs (%F would be made).
 */
static const char *const parsed[] = {
    "echo $(echo a | tr a b) | cat",
    "echo `echo a | tr a b` | cat",
    "(echo a | tr a b) | cat",
    "{ echo a | tr a b; } | cat",
    "echo a | cat # x|y",
    "sh -c 'echo err >&2' |& cat",
    "for i in 1 2; do echo $i | tr 12 ab; done | cat",
    "if true; then echo a | tr a b; fi | cat",
    "case a in a) echo x | tr x y;; esac | cat",
    "echo \"a|b\" 'c|d' e\\|f ${HOME:+|} | cat",
    "echo a 2>&1 | cat >&1",
    "echo a |\n cat",
};
#define NPARSED (int)(sizeof parsed / sizeof parsed[0])

START_TEST(parsed_as_the_shell)
{
	char template[512];
	const char *p;
	size_t n;

	set_runners();
	/* The pipeline single-quoted for the script, each ' in it as '\''. */
	n = (size_t)snprintf(template, sizeof template, "%%R '");
	for (p = parsed[_i]; *p; p++)
		n += (size_t)snprintf(template + n, sizeof template - n,
				      *p == '\'' ? "'\\''" : "%c", *p);
	snprintf(template + n, sizeof template - n, "'");
	same_as_bash(template, "");
}
END_TEST

static const struct {
	const char *pipeline, *err;
} lists[] = {
    {"touch %F || echo x | cat", "'||' makes a list of pipelines"},
    {"touch %F && echo x | cat", "'&&' makes a list of pipelines"},
    {"touch %F; echo x | cat", "';' makes a list of pipelines"},
    {"touch %F & echo x | cat", "'&' runs a command in the background"},
    {"touch %F\necho x | cat", "a newline ends the pipeline"},
    {"touch %F | cat \\", "a trailing backslash"},
    /* What the shell refuses, in bash's words. */
    {"touch %F | cat $(echo", "unexpected EOF"},
    {"touch %F | cat )", "syntax error"},
    {"touch %F | cat <<EOF\nx\nEOF", "a here-document (<<)"},
};
#define NLISTS (int)(sizeof lists / sizeof lists[0])

START_TEST(lists_refused)
{
	char *mark = spawn_temp_path("", 0), pipeline[1024];
	const char *argv[] = {"pipebench", "-Q", "--pipeline", pipeline, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	unlink(mark);
	script(pipeline, sizeof pipeline, lists[_i].pipeline, 0, mark);
	spawn_init(&s, "pipebench", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg((strncmp(r.err, "pipebench: --pipeline: ", 23) == 0 ||
		       strncmp(r.err, "/bin/bash: -c: ", 15) == 0) &&
			  strstr(r.err, lists[_i].err) != NULL,
		      "%s: %s", pipeline, r.err);
	ck_assert(r.exited && r.status == 2);
	ck_assert_int_ne(access(mark, F_OK), 0);
	spawn_free(&r);
	free(mark);
}
END_TEST

/*
 * Statuses as pipefail's: our own write error is 1 with GNU's message,
 * as the last stage's own would be in a shell; a link buffers what one
 * shell pipe does, so a stage that would block in a shell and then die
 * of SIGPIPE does so here; SIGCHLD left ignored by the caller changes
 * nothing; and 60 stages run with 64 descriptors, as in bash.
 */
static const char *const statuses[] = {
    "%R 'seq 100000 | cat' > /dev/full",
    "%R 'seq 20000 | head -n1'",
    "%R 'seq 20000 | cat | head -n1'",
    "trap '' CHLD; %R 'exit 3 | true'",
    "trap '' CHLD; %R 'sh -c \"kill -TERM \\$\\$\" | true'",
    "ulimit -n 64; %R 'echo hello%F'",
};
#define NSTATUSES (int)(sizeof statuses / sizeof statuses[0])

START_TEST(status_as_pipefail)
{
	char sixty[60 * 6 + 1] = "";
	int k;

	set_runners();
	for (k = 1; k < 60; k++)
		strcat(sixty, " | cat");
	same_as_bash(statuses[_i], sixty);
}
END_TEST

/* Our write error says so, as GNU's tools do. */
START_TEST(write_error_message)
{
	const char *argv[] = {"pipebench", "-Q", "--pipeline",
			      "seq 100000 | cat", NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "pipebench", argv, NULL, OUT_DEVFULL);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err,
			 "pipebench: write error: No space left on device\n");
	ck_assert(r.exited && r.status == 1);
	spawn_free(&r);
}
END_TEST

/*
 * What a stage finds open: its standard descriptors, as from a shell,
 * and nothing of ours (an --export-csv file, our pipes), with --exec too.
 */
START_TEST(descriptors_seen)
{
	static const char *const ways[] = {
	    "--pipeline 'ls /proc/self/fd | cat'",
	    "--exec -- ls /proc/self/fd"};
	char *csv = spawn_temp_path("", 0), text[8192];
	struct spawn_result r;
	size_t i;

	set_runners();
	same_as_bash("%R 'ls /proc/self/fd | cat'", "");
	for (i = 0; i < sizeof ways / sizeof ways[0]; i++) {
		snprintf(text, sizeof text, "%s -Q --export-csv=%s %s",
			 spawn_path("pipebench"), csv, ways[i]);
		run_script(text, &r);
		ck_assert_msg(strcmp(r.out, "0\n1\n2\n3\n") == 0, "%s: %s",
			      ways[i], r.out);
		spawn_free(&r);
	}
	unlink(csv);
	free(csv);
}
END_TEST

/*
 * A stage's background child holds its output pipe, as in a shell; with
 * no stage left to read it, the run ends when the stages have, as bash's
 * does, not when the child lets the pipe go (it sleeps longer than the
 * case may last).
 */
START_TEST(background_child)
{
	char *pidfile = spawn_temp_path("", 0), text[8192], *pid;
	struct spawn_result r;
	size_t len;

	snprintf(text, sizeof text,
		 "%s -Q --pipeline 'sh -c \"sleep 1000 2>/dev/null & echo "
		 "\\$! > %s\" | true'",
		 spawn_path("pipebench"), pidfile);
	run_script(text, &r);
	ck_assert_uint_eq(r.out_len, 0);
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	pid = spawn_slurp(pidfile, &len);
	ck_assert_int_gt(atoi(pid), 1);
	kill(atoi(pid), SIGKILL);
	free(pid);
	unlink(pidfile);
	free(pidfile);
}
END_TEST

/*
 * A stage that handles the signal, behind one that ignores it: both read
 * on to the end of their input (the trap ends a read it interrupts, with
 * a status over 128, and the loop takes the next), so neither dies of
 * it, and bash's status is known (it dies of SIGINT only where the last
 * of its children to end died of it). Behind a cat that died of it, the
 * handler's stage could end before that cat was reaped, and bash's own
 * status was a race: 1 run in 40 died of SIGINT, the rest exited 130.
 */
#define CATCHER                                                                \
	"bash -c \"trap \\\"\\\" INT TERM; exec cat\" | "                      \
	"bash -c \"trap \\\"echo caught\\\" INT TERM; "                        \
	"while :; do if read x; then echo got \\$x; "                          \
	"elif [ \\$? -le 128 ]; then break; fi; done\""

/*
 * A signal mid-run. Each of bash and pipebench runs 'cat | cat' as the
 * leader of a process group of its own, from a pipe the case writes; once
 * a line has come through (the stages run), the signal goes to the whole
 * group, as a terminal's Ctrl-C or `kill -- -PGID` sends it, or to the
 * runner alone. Then its input closes. What came out and how the runner
 * ended must be bash's. pipebench's report comes first.
 */
static const struct {
	int sig, group;
	const char *pipeline;
} signals[] = {
    {SIGINT, 1, "cat | cat"},
    {SIGTERM, 1, "cat | cat"},
    {SIGHUP, 1, "cat | cat"},
    {SIGTERM, 1, "cat | wc -c"},
    {SIGTERM, 0, "cat | cat"},
    {SIGHUP, 0, "cat | cat"},
    {SIGUSR1, 0, "cat | cat"},
    {SIGUSR2, 0, "cat | cat"},
    /* The group's signal reached the stages: a stage that handles it
     * runs its handler once, not once more from pipebench. */
    {SIGINT, 1, CATCHER},
    {SIGTERM, 1, CATCHER},
};
#define NSIGNALS (int)(sizeof signals / sizeof signals[0])

struct ended {
	char out[256];
	int wstatus;
};

static void
signalled(int runner_i, int c, struct ended *e)
{
	int in[2], out[2], n = 0, k;
	char text[8192], line[8];
	pid_t pid;

	script(text, sizeof text, "exec %R '%F'", runner_i,
	       signals[c].pipeline);
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	pid = fork_plain();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl("/bin/bash", "bash", "-c", text, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	ck_assert_int_eq(write(in[1], "1\n", 2), 2);
	if (strstr(signals[c].pipeline, "wc") == NULL)
		ck_assert_int_eq(
		    read(out[0], line,
			 strstr(signals[c].pipeline, "got") ? 6 : 2),
		    strstr(signals[c].pipeline, "got") ? 6 : 2);
	ck_assert_int_eq(kill(signals[c].group ? -pid : pid, signals[c].sig),
			 0);
	close(in[1]);
	while (n < (int)sizeof e->out - 1 &&
	       (k = (int)read(out[0], e->out + n,
			      sizeof e->out - 1 - (size_t)n)) > 0)
		n += k;
	e->out[n] = '\0';
	close(out[0]);
	ck_assert_int_eq(waitpid(pid, &e->wstatus, 0), pid);
}

START_TEST(signal_mid_run)
{
	struct ended bash, pb;

	set_runners();
	signalled(0, _i, &bash);
	signalled(1, _i, &pb);
	ck_assert_msg(strcmp(bash.out, pb.out) == 0,
		      "bash '%s', pipebench '%s'", bash.out, pb.out);
	ck_assert_msg(pb.wstatus == bash.wstatus, "bash %#x, pipebench %#x",
		      bash.wstatus, pb.wstatus);
}
END_TEST

/*
 * SIGTERM to pipebench alone, twenty times: every stage ends at once,
 * the last first, and no end of file is passed on after it, so the last
 * stage never commits a count cut short by the first one's death (bash
 * itself dies and leaves the stages to finish: 2).
 */
START_TEST(term_never_cuts)
{
	const char *argv[] = {"pipebench", "-Q", "--pipeline", NULL, NULL};
	char *file = spawn_temp_path("", 0), line[512], *got;
	int in[2], k, wstatus;
	size_t len;
	pid_t pid;

	snprintf(line, sizeof line,
		 "while read l; do echo $l; sleep .01; done | wc -l > %s",
		 file);
	argv[3] = line;
	for (k = 0; k < 20; k++) {
		unlink(file);
		ck_assert_int_eq(pipe(in), 0);
		pid = spawn_piped(spawn_path("pipebench"), argv, NULL, in[0],
				  NULL);
		close(in[0]);
		ck_assert_int_eq(write(in[1], "1\n", 2), 2);
		/* The stages run once the file is made. */
		while (access(file, F_OK) != 0)
			sched_yield();
		kill(pid, SIGTERM);
		ck_assert_int_eq(write(in[1], "2\n", 2), 2);
		close(in[1]);
		ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
		ck_assert(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM);
		got = spawn_slurp(file, &len);
		ck_assert_msg(len == 0 || strcmp(got, "2\n") == 0,
			      "run %d: the count '%s'", k, got);
		free(got);
	}
	unlink(file);
	free(file);
}
END_TEST

/*
 * A signal before the stages have even started is not lost: it is passed
 * on once they have, and pipebench dies of it, every time.
 */
START_TEST(signal_at_once)
{
	const char *argv[] = {"pipebench", "-Q", "--pipeline",
			      "sleep 100 | cat", NULL};
	int k, wstatus;
	pid_t pid;

	for (k = 0; k < 20; k++) {
		pid = fork_plain();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			execv(spawn_path("pipebench"), (char *const *)argv);
			_exit(127);
		}
		kill(pid, k % 2 ? SIGTERM : SIGINT);
		ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
		ck_assert_msg(WIFSIGNALED(wstatus) &&
				  WTERMSIG(wstatus) ==
				      (k % 2 ? SIGTERM : SIGINT),
			      "run %d: %#x", k, wstatus);
	}
}
END_TEST

static Suite *
shell_suite(void)
{
	Suite *s = suite_create("pipeline_shell");
	TCase *tc = tcase_create("shell");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, input_left, 0, NSTDIN);
	tcase_add_loop_test(tc, parsed_as_the_shell, 0, NPARSED);
	tcase_add_loop_test(tc, lists_refused, 0, NLISTS);
	tcase_add_loop_test(tc, status_as_pipefail, 0, NSTATUSES);
	tcase_add_test(tc, write_error_message);
	tcase_add_test(tc, descriptors_seen);
	tcase_add_test(tc, background_child);
	tcase_add_loop_test(tc, signal_mid_run, 0, NSIGNALS);
	tcase_add_test(tc, term_never_cuts);
	tcase_add_test(tc, signal_at_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(shell_suite());
}
