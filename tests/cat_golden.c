/* SPDX-License-Identifier: MIT */
/*
 * The golden inputs and outputs of GNU's cat (tests/golden, made by
 * tests/golden/generate.sh), for the cat suites.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_cat.h"
#include "spawn.h"

/* The operand lists of tests/golden/generate.sh, in its order. */
const char *const small_inputs[] = {
    "s01-empty",	 "s02-no-newline", "s03-continues",
    "s04-only-newlines", "s05-crlf",	   "s06-lf-after-cr",
    "s07-blank-runs",	 "s08-all-bytes",  "s09-all-bytes-twice",
    "s10-mixed",	 "s11-cr-at-end",  NULL,
};
const char *const big_inputs[] = {"b01-long-line", "b02-zeros", NULL};

char *
golden_path(const char *dir, const char *name)
{
	const char *top = getenv("FIO_SRCDIR");
	char path[4096];

	/* Kept for the whole test (argv holds many); the process ends soon. */
	snprintf(path, sizeof path, "%s/tests/golden/%s/%s", top ? top : ".",
		 dir, name);
	return strdup(path);
}

char *
golden_joined(const char *const *names, size_t *len)
{
	char *all = NULL, *one;
	size_t n;

	*len = 0;
	for (; *names != NULL; names++) {
		one = spawn_slurp(golden_path("in", *names), &n);
		all = realloc(all, *len + n + 1);
		memcpy(all + *len, one, n);
		*len += n;
		free(one);
	}
	return all;
}
