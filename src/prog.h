/* SPDX-License-Identifier: MIT */
#ifndef PROG_H
#define PROG_H

/* Program-side helpers shared by the tools: messages and stdout's close. */

#if ENABLE_NLS
#include <libintl.h>
/* A message of GNU's, translated by GNU's catalog where one has it. */
#define _(msgid) gettext(msgid)
#else
#define _(msgid) (msgid)
#endif

/* argv[0] as invoked, which is what GNU's messages show. */
extern const char *program_name;

void prog_init(const char *argv0);

/*
 * Load the locale (setlocale(LC_ALL, "")) once, and the text domain
 * given to prog_textdomain(). Messages load it themselves; call it before
 * getopt, whose messages do not.
 */
void prog_locale(void);

/*
 * Translate _() messages with domain's catalogs in GNU's locale
 * directory: "coreutils" for cat and yes, whose messages are GNU's. A
 * program that never calls it (pipebench) stays in English.
 */
void prog_textdomain(const char *domain);

/*
 * Print "PROG: MESSAGE" and, when err is not 0, ": strerror(err)". fmt is
 * translated first (_()), so GNU's messages pass GNU's msgid as it is.
 */
void prog_warn(int err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * name quoted as GNU's quotef() does (gnulib shell-escape quoting, colon
 * variant, in the current locale): unchanged when harmless, else '...'
 * with $'\ooo' escapes. Returns name itself or a buffer reused by the next
 * call.
 */
const char *prog_quote(const char *name);

/*
 * One option's lines of --help (text already translated), as GNU 9.10
 * prints them: in bold and linked to command's entry in GNU's manual
 * where TERM names a terminal, as they are otherwise.
 */
void prog_option(const char *command, const char *text);

/* --help's lines for --help and --version, GNU's (its catalog has them). */
void prog_help_version(const char *command);

/* GNU's second line after an option error. */
void prog_try_help(void);

/* GNU-shaped --version text for command (its fixed name, not argv[0]). */
void prog_version(const char *command);

/*
 * Flush and close stdout and stderr as GNU's close_stdout does. Returns 0,
 * or 1 after printing "PROG: write error: ..." when stdout failed ("write
 * error" in English, as GNU 9.7 and later print it there).
 */
int prog_close_stdout(void);

/*
 * What getopt's c does when it is --help ('h'), --version ('V') or an
 * option getopt did not know, for command, whose usage(status) prints its
 * help or GNU's hint: the exit status.
 */
int prog_common_option(int c, const char *command, int (*usage)(int));

#endif
