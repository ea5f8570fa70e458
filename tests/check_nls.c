/* SPDX-License-Identifier: MIT */
/*
 * Translations: in a German and a French locale, made with localedef in a
 * temporary LOCPATH, our cat and yes print the same standard error, byte
 * for byte, and exit with the same status as the newest GNU cat and yes
 * (through GNU's own catalogs, which we do not ship), in 27 error cases
 * each: the system's GNU's, except where the newest release prints
 * otherwise (closing); and, where the system's GNU is the newest layout
 * (9.10 or later), the same --help. Skipped (status 77, with a line saying why)
 * without the locales' sources (Debian's locales package), localedef, GNU's
 * catalogs, or a GNU /usr/bin/cat; and in builds without NLS.
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"

#ifndef ENABLE_NLS
#define ENABLE_NLS    0
#define GNU_LOCALEDIR ""
#endif

/*
 * Compiled locales hold numbers in the byte order of the libc that made
 * them: GNU's programs read locpath (this machine's order), ours ourpath
 * (our build's, which differs when it runs under qemu-user for s390x).
 */
static char locpath[PATH_MAX], ourpath[PATH_MAX + 8], infile[PATH_MAX];
static const char *const locales[] = {"de_DE.UTF-8", "fr_FR.UTF-8"};

/*
 * A case: a program's arguments and the kind of its stdout. "@" is a
 * readable file; a case with sh set runs through bash, where "@@" is
 * the program (run as its plain name, exec -a). closing: the write error
 * is found on closing stdout, where GNU 9.7 and later say "write error"
 * in English (9.1 translated it): ours must say what the newest GNU
 * says, with the system's strerror text, whatever GNU is installed.
 */
static const struct {
	const char *prog, *args[4];
	enum spawn_out out;
	const char *sh;
	int closing;
} cases[] = {
    {"cat", {"/nonexistent"}, OUT_PIPE, NULL, 0},
    {"cat", {"."}, OUT_PIPE, NULL, 0},
    {"cat", {"--foo"}, OUT_PIPE, NULL, 0},
    {"cat", {"-x"}, OUT_PIPE, NULL, 0},
    {"cat", {"--number=3"}, OUT_PIPE, NULL, 0},
    {"cat", {"--show"}, OUT_PIPE, NULL, 0},
    {"cat", {"@"}, OUT_DEVFULL, NULL, 0},
    {"cat", {"-n", "@"}, OUT_DEVFULL, NULL, 0},
    {"cat", {"/nonexistent", "@"}, OUT_PIPE, NULL, 0},
    {"cat", {"-A", "/nonexistent", "."}, OUT_PIPE, NULL, 0},
    {"cat", {"@"}, OUT_CLOSED, NULL, 0},
    {"cat", {"--help"}, OUT_DEVFULL, NULL, 1},
    {"cat", {"--version"}, OUT_DEVFULL, NULL, 1},
    {"cat", {"--help"}, OUT_CLOSED, NULL, 1},
    {"cat", {"--version"}, OUT_CLOSED, NULL, 1},
    {"cat", {NULL}, OUT_PIPE, "cp \"$F\" f && @@ f >> f", 0},
    {"cat", {NULL}, OUT_PIPE, "cp \"$F\" f && @@ -n - < f >> f", 0},
    {"yes", {"--foo"}, OUT_PIPE, NULL, 0},
    {"yes", {"-x"}, OUT_PIPE, NULL, 0},
    {"yes", {NULL}, OUT_DEVFULL, NULL, 0},
    {"yes", {"--help"}, OUT_DEVFULL, NULL, 1},
    {"yes", {"--version"}, OUT_DEVFULL, NULL, 1},
    {"yes", {"--help"}, OUT_CLOSED, NULL, 1},
    {"yes", {"--version"}, OUT_CLOSED, NULL, 1},
    {"yes", {NULL}, OUT_CLOSED, NULL, 0},
    {"yes", {"--he"}, OUT_DEVFULL, NULL, 1},
    {"yes", {"--", "--foo"}, OUT_DEVFULL, NULL, 0},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static void
run(const char *exe, const char *where, int c, const char *locale,
    struct spawn_result *r)
{
	char lp[PATH_MAX + 16], lang[64], fenv[PATH_MAX + 8],
	    script[PATH_MAX + 256];
	const char *env[] = {lp, lang, fenv, "TERM=dumb", NULL};
	const char *argv[8] = {cases[c].prog};
	const char *p;
	struct spawn s = {0};
	int n = 1, i;

	snprintf(lp, sizeof lp, "LOCPATH=%s", where);
	snprintf(lang, sizeof lang, "LANG=%s", locale);
	snprintf(fenv, sizeof fenv, "F=%s", infile);
	spawn_init(&s, exe, argv, env, cases[c].out);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	if (cases[c].sh != NULL) {
		/* @@ becomes: exec -a PROG EXE (one command per script). */
		p = strstr(cases[c].sh, "@@");
		snprintf(script, sizeof script,
			 "cd /tmp && %.*sexec -a %s %s%s",
			 (int)(p - cases[c].sh), cases[c].sh, cases[c].prog,
			 exe, p + 2);
		argv[0] = "bash";
		argv[1] = "-c";
		argv[2] = script;
		argv[3] = NULL;
		s.prog = "/bin/bash";
	} else {
		for (i = 0; i < 4 && cases[c].args[i]; i++)
			argv[n++] = strcmp(cases[c].args[i], "@") == 0
					? infile
					: cases[c].args[i];
		argv[n] = NULL;
	}
	ck_assert_int_eq(spawn_run(&s, r), 0);
}

START_TEST(as_gnu)
{
	int c = _i % NCASES;
	const char *locale = locales[_i / NCASES];
	char gnu[32];
	struct spawn_result ours, theirs;

	char want[512];
	const char *why;

	snprintf(gnu, sizeof gnu, "/usr/bin/%s", cases[c].prog);
	run(spawn_path(cases[c].prog), ourpath, c, locale, &ours);
	run(gnu, locpath, c, locale, &theirs);
	if (cases[c].closing) {
		/* "PROG: write error: STRERROR", STRERROR the system's. */
		why = strrchr(theirs.err, ':');
		ck_assert_ptr_nonnull(why);
		snprintf(want, sizeof want, "%s: write error%s", cases[c].prog,
			 why);
	} else {
		snprintf(want, sizeof want, "%s", theirs.err);
	}
	ck_assert_msg(strcmp(ours.err, want) == 0,
		      "%s, case %d: ours '%s', the newest GNU's '%s'", locale,
		      c, ours.err, want);
	ck_assert_msg(ours.exited == theirs.exited &&
			  ours.status == theirs.status &&
			  ours.signal == theirs.signal,
		      "%s, case %d: status %d/%d, GNU's %d/%d", locale, c,
		      ours.status, ours.signal, theirs.status, theirs.signal);
	/* The catalog was found: the message is not the English one. */
	if (c == 0)
		ck_assert(strstr(ours.err, "No such file") == NULL);
	spawn_free(&ours);
	spawn_free(&theirs);
}
END_TEST

/*
 * --help as GNU 9.10 prints it (its pieces, one an option, each through
 * the catalog; with TERM a terminal's, each option bold and linked),
 * where the system's GNU is 9.10 or later: an older one has other pieces
 * and layout, which the newest GNU does not print. Ours ends with two
 * lines of its own where GNU's says where to report bugs: the rest must
 * begin GNU's. _i: program, TERM, locale.
 */
static const char *const help_progs[] = {"cat", "yes"};
static const char *const terms[] = {"TERM=dumb", "TERM=xterm-256color"};

static void
help_of(const char *exe, const char *prog, const char *where,
	const char *locale, const char *term, struct spawn_result *r)
{
	char lp[PATH_MAX + 16], lang[64];
	const char *env[] = {lp, lang, term, NULL};
	const char *argv[] = {prog, "--help", NULL};
	struct spawn s = {0};

	snprintf(lp, sizeof lp, "LOCPATH=%s", where);
	snprintf(lang, sizeof lang, "LANG=%s", locale);
	spawn_init(&s, exe, argv, env, OUT_PIPE);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
	ck_assert_int_eq(spawn_run(&s, r), 0);
}

START_TEST(help_as_gnu)
{
	const char *prog = help_progs[_i % 2], *term = terms[_i / 2 % 2];
	const char *locale = locales[_i / 4];
	struct spawn_result ours, theirs;
	char gnu[32];
	size_t len;

	snprintf(gnu, sizeof gnu, "/usr/bin/%s", prog);
	help_of(spawn_path(prog), prog, ourpath, locale, term, &ours);
	help_of(gnu, prog, locpath, locale, term, &theirs);
	ck_assert(ours.exited && ours.status == 0);
	len = spawn_help_body(ours.out, ours.out_len);
	ck_assert_uint_gt(len, 0);
	ck_assert_msg(len <= theirs.out_len &&
			  memcmp(ours.out, theirs.out, len) == 0,
		      "%s --help, %s, %s: ours\n%.*s\nGNU's\n%s", prog, term,
		      locale, (int)len, ours.out, theirs.out);
	spawn_free(&ours);
	spawn_free(&theirs);
}
END_TEST

/* GNU's version as /usr/bin/cat prints it, as a number: 9.10 is 910. */
static int
gnu_version(void)
{
	FILE *f = popen("/usr/bin/cat --version", "r");
	int major = 0, minor = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "cat (GNU coreutils) %d.%d", &major, &minor) != 2)
		major = minor = 0;
	pclose(f);
	return major * 100 + minor;
}

/* The two locales into a temporary LOCPATH; 0, or -1 with why. */
static int
make_locales(const char **why)
{
	char cmd[3 * PATH_MAX + 128];
	size_t i;

	if (!ENABLE_NLS) {
		*why = "built without NLS";
		return -1;
	}
	if (access("/usr/share/i18n/locales/de_DE", R_OK) != 0 ||
	    access("/usr/share/i18n/locales/fr_FR", R_OK) != 0) {
		*why = "no locale sources (Debian's locales package)";
		return -1;
	}
	/* Without GNU's catalogs both would print English: nothing tested. */
	if (access(GNU_LOCALEDIR "/de/LC_MESSAGES/coreutils.mo", R_OK) != 0 ||
	    access(GNU_LOCALEDIR "/fr/LC_MESSAGES/coreutils.mo", R_OK) != 0) {
		*why = "GNU's catalogs (coreutils.mo) are not installed";
		return -1;
	}
	snprintf(locpath, sizeof locpath, "/tmp/fastio-locales-XXXXXX");
	if (mkdtemp(locpath) == NULL) {
		*why = "no temporary directory";
		return -1;
	}
	snprintf(ourpath, sizeof ourpath, "%s/ours", locpath);
	if (mkdir(ourpath, 0755) != 0) {
		*why = "no temporary directory";
		return -1;
	}
	for (i = 0; i < sizeof locales / sizeof locales[0]; i++) {
		snprintf(cmd, sizeof cmd,
			 "localedef -i %.5s -f UTF-8 %s/%s >/dev/null 2>&1 && "
			 "localedef --%s-endian -i %.5s -f UTF-8 %s/%s "
			 ">/dev/null 2>&1",
			 locales[i], locpath, locales[i],
			 __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "big"
								: "little",
			 locales[i], ourpath, locales[i]);
		if (system(cmd) != 0) {
			*why = "localedef failed";
			return -1;
		}
	}
	return 0;
}

/* Whether /usr/bin/cat and yes are GNU's (not ours, say, diverted in). */
static int
system_is_gnu(void)
{
	return system("/usr/bin/cat --version | grep -q 'GNU coreutils' && "
		      "/usr/bin/yes --version | grep -q 'GNU coreutils'") == 0;
}

int
main(void)
{
	const char *why = "the system's cat and yes are not GNU's";
	Suite *s = suite_create("nls");
	TCase *tc = tcase_create("nls");
	char cmd[PATH_MAX + 16];
	int rc, fd;

	/* LANG alone chooses the locale of each run. */
	unsetenv("LC_ALL");
	unsetenv("LC_MESSAGES");
	unsetenv("LANGUAGE");
	if (!system_is_gnu() || make_locales(&why) < 0) {
		printf("check_nls: skipped: %s\n", why);
		return 77;
	}
	snprintf(infile, sizeof infile, "/tmp/fastio-nls-XXXXXX");
	fd = mkstemp(infile);
	if (fd < 0 || write(fd, "a line\n", 7) != 7 || close(fd) != 0)
		return 99;
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, as_gnu, 0, NCASES * 2);
	if (gnu_version() >= 910)
		tcase_add_loop_test(tc, help_as_gnu, 0, 8);
	else
		printf("check_nls: --help is compared where the system's GNU "
		       "is 9.10 or later (its pieces and layout); here it is "
		       "older\n");
	suite_add_tcase(s, tc);
	rc = suite_main(s);
	unlink(infile);
	snprintf(cmd, sizeof cmd, "rm -rf %s", locpath);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
