/* SPDX-License-Identifier: MIT */
#ifndef PIPELINE_RUNNER_H
#define PIPELINE_RUNNER_H

/*
 * The --pipeline suites' runners (pipeline_runner.c): %R in a script's
 * template is "bash -o pipefail -c" (runner 0) or our pipebench -Q
 * --pipeline (runner 1), %F a file's name.
 */

#include <stddef.h>
#include <sys/types.h>

#include "spawn.h"

extern const char *runner[2];
void set_runners(void);
/* template with each %R replaced by runner r, %F by file. */
void script(char *out, size_t size, const char *template, int r,
	    const char *file);
/* bash -c SCRIPT, its stdout a pipe; the result in *r. */
void run_script(const char *text, struct spawn_result *r);
/* Both runners through template: the same stdout and status. */
void same_as_bash(const char *template, const char *file);
/*
 * fork() with the signals the cases send blocked until the child has
 * set them back to their defaults (the harness's handlers would signal
 * its own process group).
 */
pid_t fork_plain(void);

#endif
