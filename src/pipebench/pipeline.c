/* SPDX-License-Identifier: MIT */
/*
 * --pipeline: a whole pipeline run by us, stage by stage, each stage's
 * input and output on a pipe we watch, so that the stage that holds the
 * rest back can be named. This file reads the pipeline (a command line
 * split at its unquoted |, or argv lists split at a lone |), starts the
 * stages and waits for them; relay.c moves the bytes and watches the
 * pipes, stages.c reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/* Bad input: said, nothing started, status 2. */
#define PB_PIPELINE_USAGE 2

static int
bad(const char *what)
{
	prog_warn(0, "--pipeline: %s", what);
	return -1;
}

/* A stage of text from..to, its blanks trimmed; -1 if it is empty. */
static int
add_text(struct pb_pipeline *pl, const char *from, const char *to)
{
	while (from < to && (*from == ' ' || *from == '\t' || *from == '\n'))
		from++;
	while (to > from && (to[-1] == ' ' || to[-1] == '\t' || to[-1] == '\n'))
		to--;
	if (from == to)
		return bad("a stage is empty");
	if (pl->n == PB_MAX_STAGES)
		return bad("more than 64 stages");
	pl->stage[pl->n].text = strndup(from, (size_t)(to - from));
	if (pl->stage[pl->n].text == NULL)
		return bad("memory exhausted");
	pl->n++;
	return 0;
}

/*
 * The command line split at each | that the shell would take for a pipe:
 * not inside quotes, not escaped by a backslash. Each stage is run by
 * sh -c as it is written.
 */
static int
split_text(struct pb_pipeline *pl, const char *s)
{
	const char *start = s;
	char quote = 0;

	for (; *s != '\0'; s++) {
		if (quote == '\'') {
			if (*s == '\'')
				quote = 0;
		} else if (*s == '\\') {
			if (s[1] == '\0')
				break;
			s++;
		} else if (quote == '"') {
			if (*s == '"')
				quote = 0;
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else if (*s == '|') {
			if (add_text(pl, start, s) < 0)
				return -1;
			start = s + 1;
		}
	}
	if (quote != 0)
		return bad("unbalanced quotes");
	return add_text(pl, start, s);
}

/* The words of argv[from..to) joined by spaces, for the table. */
static char *
joined(char **argv, int from, int to)
{
	size_t len = 1, k;
	char *text, *p;
	int i;

	for (i = from; i < to; i++)
		len += strlen(argv[i]) + 1;
	text = p = malloc(len);
	if (text == NULL)
		return NULL;
	for (i = from; i < to; i++) {
		if (i > from)
			*p++ = ' ';
		k = strlen(argv[i]);
		memcpy(p, argv[i], k);
		p += k;
	}
	*p = '\0';
	return text;
}

/* argv lists, each stage ending at a lone "|": run as they are. */
static int
split_argv(struct pb_pipeline *pl, char **argv, int argc)
{
	int i, first = 0;

	for (i = 0; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "|") != 0)
			continue;
		if (i == first)
			return bad("a stage is empty");
		if (pl->n == PB_MAX_STAGES)
			return bad("more than 64 stages");
		pl->stage[pl->n].argv = argv + first;
		pl->stage[pl->n].text = joined(argv, first, i);
		if (pl->stage[pl->n].text == NULL)
			return bad("memory exhausted");
		if (i < argc)
			argv[i] = NULL; /* the stage's argv ends there */
		pl->n++;
		first = i + 1;
	}
	return 0;
}

/* A stage's child: its ends in place, then the command. */
static _Noreturn void
stage_child(const struct pb_stage *st, int in, int out)
{
	if (in >= 0)
		dup2(in, STDIN_FILENO);
	if (out >= 0)
		dup2(out, STDOUT_FILENO);
	signal(SIGINT, SIG_DFL);
	pb_exec(st->argv != NULL ? NULL : st->text, st->argv);
}

/*
 * The pipes: one into each stage and one out of each, but where our own
 * standard input or output is a terminal, which the first or last stage
 * then has as it would in a shell. Every end we keep is close-on-exec.
 */
static int
make_pipes(struct pb_pipeline *pl, int ends[][2])
{
	int i, p[2];

	for (i = 0; i <= pl->n; i++) {
		pl->relay[i].from = pl->relay[i].to = -1;
		ends[i][0] = ends[i][1] = -1;
	}
	for (i = 0; i <= pl->n; i++) {
		if ((i == 0 && isatty(STDIN_FILENO)) ||
		    (i == pl->n && isatty(STDOUT_FILENO)))
			continue;
		if (i == 0) {
			pl->relay[0].from = STDIN_FILENO;
		} else {
			if (pipe2(p, O_CLOEXEC) < 0)
				return -1;
			pl->relay[i].from = p[0];
			ends[i - 1][1] = p[1]; /* stage i - 1's output */
		}
		if (i == pl->n) {
			pl->relay[i].to = STDOUT_FILENO;
		} else {
			if (pipe2(p, O_CLOEXEC) < 0)
				return -1;
			pl->relay[i].to = p[1];
			ends[i][0] = p[0]; /* stage i's input */
		}
	}
	return 0;
}

static int
start_stages(struct pb_pipeline *pl)
{
	int ends[PB_MAX_STAGES + 1][2], i;

	if (make_pipes(pl, ends) < 0) {
		prog_warn(errno, "pipe");
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &pl->start);
	for (i = 0; i < pl->n; i++) {
		pl->stage[i].pid = fork();
		if (pl->stage[i].pid == 0)
			stage_child(&pl->stage[i], ends[i][0], ends[i][1]);
		if (ends[i][0] >= 0)
			close(ends[i][0]);
		if (ends[i][1] >= 0)
			close(ends[i][1]);
		if (pl->stage[i].pid < 0) {
			prog_warn(errno, "fork");
			return -1;
		}
		atomic_store(&pl->stage[i].running, 1);
	}
	return 0;
}

/*
 * A signal to a stage and to every process below it: a stage's shell
 * waits for its command and dies of the command's SIGINT, not of its
 * own. The kernel lists a task's children in /proc (without it, the
 * stage alone gets the signal).
 */
static void
signal_tree(pid_t pid, int sig, int depth)
{
	char path[64];
	long child;
	FILE *f;

	kill(pid, sig);
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid,
		 (long)pid);
	if (depth > 16 || (f = fopen(path, "re")) == NULL)
		return;
	while (fscanf(f, "%ld", &child) == 1)
		signal_tree((pid_t)child, sig, depth + 1);
	fclose(f);
}

/*
 * Wait for every stage, its rusage and its time; a SIGINT to us goes on
 * to every stage still running (once), and the wait goes on. (From a
 * terminal, the stages have it already: they are in our process group.)
 */
static void
wait_stages(struct pb_pipeline *pl)
{
	struct timespec now;
	int left = pl->n, i, forwarded = 0, wstatus;
	struct rusage ru;
	pid_t pid;

	while (left > 0) {
		pid = wait4(-1, &wstatus, 0, &ru);
		if (pid < 0) {
			if (errno != EINTR)
				return;
			if (pb_interrupted && !forwarded) {
				forwarded = 1;
				for (i = 0; i < pl->n; i++)
					if (atomic_load(&pl->stage[i].running))
						signal_tree(pl->stage[i].pid,
							    SIGINT, 0);
			}
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (i = 0; i < pl->n; i++)
			if (pl->stage[i].pid == pid)
				break;
		if (i == pl->n)
			continue;
		pl->stage[i].wstatus = wstatus;
		pl->stage[i].ru = ru;
		pl->stage[i].secs = pb_seconds(&pl->start, &now);
		atomic_store(&pl->stage[i].running, 0);
		left--;
	}
}

static void
free_pipeline(struct pb_pipeline *pl)
{
	int i;

	for (i = 0; i < pl->n; i++)
		free(pl->stage[i].text);
	free(pl);
}

int
pb_pipeline(char **argv, int argc, struct pb_export *csv)
{
	struct pb_pipeline *pl = calloc(1, sizeof *pl);
	int rc, split;

	if (pl == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	split =
	    argc == 1 ? split_text(pl, argv[0]) : split_argv(pl, argv, argc);
	if (split == 0 && pl->n == 1)
		split = bad("a pipeline has two stages or more; for one "
			    "command, use --exec");
	if (split < 0) {
		free_pipeline(pl);
		pb_export_abort(csv);
		return PB_PIPELINE_USAGE;
	}
	/* A stage that goes away leaves its relay an EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (start_stages(pl) < 0) {
		/* Those started see their pipes close, and end. */
		pb_relays_close(pl);
		wait_stages(pl);
		free_pipeline(pl);
		pb_export_abort(csv);
		return EXIT_FAILURE;
	}
	pb_relays_start(pl);
	wait_stages(pl);
	pb_relays_end(pl);
	rc = pb_pipeline_report(pl, csv);
	free_pipeline(pl);
	return rc;
}
