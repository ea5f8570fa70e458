/* SPDX-License-Identifier: MIT */
/*
 * What the --pipeline suites share (pipeline_runner.h): a pipeline run by
 * bash -o pipefail -c and by pipebench from the same script, and a fork
 * that leaves the harness's signal handlers behind.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pipeline_runner.h"
#include "spawn.h"

/* The two ways to run a pipeline in a script, %R in a template. */
const char *runner[2];

void
set_runners(void)
{
	static char pb[4200];

	snprintf(pb, sizeof pb, "%s -Q --pipeline", spawn_path("pipebench"));
	runner[0] = "bash -o pipefail -c";
	runner[1] = pb;
}

/* template with each %R replaced by runner r, %F by file. */
void
script(char *out, size_t size, const char *template, int r, const char *file)
{
	size_t n = 0;
	const char *t, *with;

	for (t = template; *t != '\0' && n + 1 < size; t++) {
		with = NULL;
		if (t[0] == '%' && t[1] == 'R')
			with = runner[r];
		else if (t[0] == '%' && t[1] == 'F')
			with = file;
		if (with == NULL) {
			out[n++] = *t;
			continue;
		}
		n += (size_t)snprintf(out + n, size - n, "%s", with);
		t++;
	}
	ck_assert_uint_lt(n, size - 1);
	out[n] = '\0';
}

/* bash -c SCRIPT, its stdout a pipe; the result in *r. */
void
run_script(const char *text, struct spawn_result *r)
{
	const char *argv[] = {"bash", "-c", text, NULL};
	struct spawn s = {0};

	spawn_init(&s, "/bin/bash", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, r), 0);
}

/* Both runners through template: the same stdout and status. */
void
same_as_bash(const char *template, const char *file)
{
	char text[2][8192];
	struct spawn_result r[2];
	int i;

	for (i = 0; i < 2; i++) {
		script(text[i], sizeof text[i], template, i, file);
		run_script(text[i], &r[i]);
	}
	ck_assert_msg(r[1].out_len == r[0].out_len &&
			  memcmp(r[1].out, r[0].out, r[0].out_len) == 0,
		      "%s\nbash gave '%s', pipebench '%s'", template, r[0].out,
		      r[1].out);
	ck_assert_msg(r[1].exited && r[0].exited && r[1].status == r[0].status,
		      "%s\nbash: status %d, pipebench: %d (%s)", template,
		      r[0].status, r[1].status, r[1].err);
	spawn_free(&r[0]);
	spawn_free(&r[1]);
}

/*
 * fork() with the signals the cases send blocked: the child has the
 * harness's handlers until it sets them back (Check's would signal the
 * harness's own process group), so it does that first; a signal sent at
 * once then waits for it, and kills it as it would kill the program.
 */
pid_t
fork_plain(void)
{
	sigset_t set, old;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGUSR1, SIG_DFL);
		signal(SIGUSR2, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}
