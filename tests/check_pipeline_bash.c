/* SPDX-License-Identifier: MIT */
/*
 * pipebench --pipeline speaks bash: what users type in bash means what it
 * means there (the stages run with bash -o pipefail -c), the last stage
 * sees what bash gives it, and a line is split as bash reads it. Each
 * case runs by bash -o pipefail -c and by pipebench from the same script
 * (tests/pipeline_runner.c) and compares the bytes and the status.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pipeline_runner.h"
#include "spawn.h"

/*
 * bash's language in a stage and around the pipeline: what dash read
 * as something else (echo's escapes, ==, brace expansion, $'...',
 * $RANDOM, &>) or refused ([[ ]], <<<, ${v^^}, **, <( ), an exported
 * function), a leading ! and a compound stage's own pipefail.
 */
static const char *const language[] = {
    "%R 'echo -e \"a\\tb\" | cat -A'",
    "%R 'echo \"a\\nb\" | cat -A'",
    "%R 'echo a | while read l; do [ \"$l\" == a ] && echo same; done'",
    "%R 'echo {1..3} | cat'",
    "%R \"echo \\$'a\\\\tb' | cat -A\"",
    "%R 'echo $RANDOM | grep -c \"^[0-9][0-9]*$\"'",
    "%R 'echo x &>/dev/null | cat'",
    "%R 'echo a | while read v; do [[ $v == a ]] && echo same; done'",
    "%R 'cat <<< hello | tr a-z A-Z'",
    "%R 'echo abc | while read v; do echo ${v^^}; done'",
    "%R 'echo $((2**10)) | cat'",
    "%R 'cat <(echo x) | cat'",
    "f() { echo fn; }; export -f f; %R 'f | cat'",
    "%R '! true | false'; echo $?",
    "%R '! false | true'; echo $?",
    "%R '{ false | true; } | cat'; echo $?",
    "%R '(exit 3) | cat'; echo $?",
};
#define NLANGUAGE (int)(sizeof language / sizeof language[0])

START_TEST(bash_language)
{
	set_runners();
	same_as_bash(language[_i], "");
}
END_TEST

/*
 * What the last stage sees: our standard output itself where it is a
 * file, so that cat finds its input is its output; a background child
 * of the last stage writes after the stages have ended, and its lines
 * reach the reader (which reads to the end, whenever that comes); a
 * caller's ignored SIGPIPE stays ignored for the stages (write errors
 * instead of deaths).
 */
static const char *const last_stage[] = {
    "echo abc > %F; %R 'true | cat %F' >> %F; echo $?; cat %F",
    "echo abc > %F; %R 'echo x | cat - %F' > %F; echo $?; cat %F",
    "%R 'echo hi | { cat; (sleep .2; echo late) & }'",
    "trap '' PIPE; %R 'yes | head -n1' 2>%F; echo $?; cat %F",
    "trap '' PIPE; %R 'seq 100000 | head -n1' 2>%F; echo $?; cat %F",
};
#define NLAST (int)(sizeof last_stage / sizeof last_stage[0])

START_TEST(last_stage_sees)
{
	char *file = spawn_temp_path("", 0);

	set_runners();
	same_as_bash(last_stage[_i], file);
	unlink(file);
	free(file);
}
END_TEST

/* Read as bash reads: a comment line after a |, a [[ ]] whose || is a
 * test's. */
static const char *const read_as_bash[] = {
    "%R 'echo a |\n# a comment\n cat'",
    "%R 'echo a |\n  # a comment\n\n tr a b # and one more\n'",
    "%R 'true | [[ -n a || -z b ]]'; echo $?",
    "%R 'true | [[ -z a && -n b ]]'; echo $?",
};
#define NREAD (int)(sizeof read_as_bash / sizeof read_as_bash[0])

START_TEST(read_as_bash_reads)
{
	set_runners();
	same_as_bash(read_as_bash[_i], "");
}
END_TEST

static Suite *
bash_suite(void)
{
	Suite *s = suite_create("pipeline_bash");
	TCase *tc = tcase_create("bash");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, bash_language, 0, NLANGUAGE);
	tcase_add_loop_test(tc, last_stage_sees, 0, NLAST);
	tcase_add_loop_test(tc, read_as_bash_reads, 0, NREAD);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(bash_suite());
}
