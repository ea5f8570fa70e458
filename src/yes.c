/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "prog.h"

static int
usage(int status)
{
	if (status != EXIT_SUCCESS) {
		prog_try_help();
		return status;
	}
	/* In GNU 9.10's pieces, so that its catalog translates them. */
	printf(_("Usage: %s [STRING]...\n"
		 "  or:  %s OPTION\n"),
	       program_name, program_name);
	fputs(_("Repeatedly output a line with all specified STRING(s), or "
		"'y'.\n\n"),
	      stdout);
	prog_help_version("yes");
	fputs("\n"
	      "This yes is part of fastio-utils, a faster drop-in for GNU "
	      "coreutils' yes.\n"
	      "Full documentation: man " YES_PAGE "\n",
	      stdout);
	return prog_close_stdout();
}

/* The operands joined by spaces, newline-terminated, in one new buffer. */
static char *
join(char **args, int n, size_t *lenp)
{
	size_t len = 0, k;
	char *line, *p;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(args[i]) + 1;
	line = malloc(len);
	if (line == NULL)
		return NULL;
	p = line;
	for (i = 0; i < n; i++) {
		k = strlen(args[i]);
		memcpy(p, args[i], k);
		p += k;
		*p++ = ' ';
	}
	line[len - 1] = '\n';
	*lenp = len;
	return line;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	static char *default_args[] = {"y"};
	struct fio_fd out;
	char **args;
	char *line;
	size_t len;
	int nargs, c;

	prog_init(argv[0]);
	prog_textdomain("coreutils");
	prog_locale();
	/*
	 * GNU yes makes a single getopt_long call: the first option found
	 * anywhere before "--" decides, and permutation moves the operands
	 * behind a "--" wherever it stands (POSIXLY_CORRECT stops at the
	 * first operand instead).
	 */
	c = getopt_long(argc, argv, "", longopts, NULL);
	if (c != -1)
		return prog_common_option(c, "yes", usage);
	argc -= optind;
	argv += optind;

	args = argc > 0 ? argv : default_args;
	nargs = argc > 0 ? argc : 1;
	line = join(args, nargs, &len);
	if (line == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	(void)fio_init();
	(void)fio_classify(STDOUT_FILENO, &out);
	if (fio_repeat(&out, line, len, FIO_FOREVER, NULL) < 0)
		prog_warn(errno, "standard output");
	/* Never vmspliced: fio_repeat hands the kernel copies of it. */
	free(line);
	return EXIT_FAILURE;
}
