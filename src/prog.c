/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "prog.h"

const char *program_name = "?";

void
prog_init(const char *argv0)
{
	if (argv0 != NULL && *argv0 != '\0')
		program_name = argv0;
}

static void
report(int err, const char *msg)
{
	if (err != 0)
		fprintf(stderr, "%s: %s: %s\n", program_name, msg,
			strerror(err));
	else
		fprintf(stderr, "%s: %s\n", program_name, msg);
}

void
prog_warn(int err, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	/* As GNU's error(): what stdout holds goes out before the message. */
	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	report(err, msg);
}

void
prog_try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n",
		program_name);
}

void
prog_version(const char *command)
{
	printf("%s (%s) %s\n", command, PACKAGE_NAME, PACKAGE_VERSION);
	fputs("Copyright (C) 2026 the fastio-utils authors.\n"
	      "License MIT: <https://opensource.org/licenses/MIT>.\n"
	      "This is free software: you are free to change and "
	      "redistribute it.\n"
	      "There is NO WARRANTY, to the extent permitted by law.\n",
	      stdout);
}

/*
 * Like gnulib's close_stream: a failed fclose matters if output was pending
 * or the error is not EBADF, so that a tool that never wrote to a closed
 * stdout is not blamed for it.
 */
static int
close_stream(FILE *f)
{
	int pending = __fpending(f) != 0;
	int prev_fail = ferror(f) != 0;
	int close_fail = fclose(f) != 0;

	if (prev_fail || (close_fail && (pending || errno != EBADF))) {
		if (!close_fail)
			errno = 0;
		return -1;
	}
	return 0;
}

int
prog_close_stdout(void)
{
	if (close_stream(stdout) < 0) {
		report(errno, "write error");
		return 1;
	}
	if (close_stream(stderr) < 0)
		return 1;
	return 0;
}
