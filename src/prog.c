/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <ctype.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "prog.h"

const char *program_name = "?";

void
prog_init(const char *argv0)
{
	if (argv0 != NULL && *argv0 != '\0')
		program_name = argv0;
}

/*
 * The locale matters only to messages (strerror, getopt's, quoting
 * names), so it is loaded before the first one: setlocale(LC_ALL, "")
 * opens and maps the locale's files, which every start would pay, and
 * `xargs cat` per process.
 */
static const char *domain;

void
prog_textdomain(const char *name)
{
	domain = name;
}

void
prog_locale(void)
{
	static int done;

	if (done)
		return;
	setlocale(LC_ALL, "");
#if ENABLE_NLS
	if (domain != NULL) {
		bindtextdomain(domain, GNU_LOCALEDIR);
		textdomain(domain);
	}
#endif
	done = 1;
}

static void
report(int err, const char *msg)
{
	prog_locale();
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
	prog_locale();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, _(fmt), ap);
	va_end(ap);
	report(err, msg);
}

/* Bytes that make gnulib's shell quoting wrap a name in quotes. */
static int
shell_special(unsigned char c, size_t i, size_t len)
{
	switch (c) {
	case '{':
	case '}':
		return len == 1;
	case '#':
	case '~':
		return i == 0;
	case ' ':
	case '!':
	case '"':
	case '$':
	case '&':
	case '(':
	case ')':
	case '*':
	case ';':
	case '<':
	case '=':
	case '>':
	case '[':
	case '^':
	case '`':
	case '|':
	case '\\':
	case '?':
	case '\'':
	case ':': /* quotef's "colon" variant: names end in ": " */
		return 1;
	}
	return 0;
}

/*
 * Bytes that still read the same inside double quotes: when a name needs
 * quoting only for its single quotes, gnulib prefers "...".
 */
static int
double_quotable(unsigned char c, size_t i, size_t len)
{
	if (c == ' ' || c == '\'' || c == ':' || isalnum(c) ||
	    strchr("%+,-./]_", c) != NULL)
		return 1;
	if (c == '{' || c == '}')
		return len == 1;
	if (c == '#' || c == '~')
		return i == 0;
	return !shell_special(c, i, len) && c >= 0x20 && c < 0x7f;
}

/* Length of the printable character at s (1 for ASCII), or 0. */
static size_t
printable(const char *s, size_t left, mbstate_t *st)
{
	unsigned char c = (unsigned char)*s;
	wchar_t w;
	size_t m;

	if (c < 0x80 || MB_CUR_MAX == 1)
		return isprint(c) ? 1 : 0;
	m = mbrtowc(&w, s, left, st);
	if (m == (size_t)-1 || m == (size_t)-2 || m == 0) {
		memset(st, 0, sizeof *st);
		return 0;
	}
	return iswprint((wint_t)w) ? m : 0;
}

static void
put_escape(char **o, unsigned char c)
{
	static const char named[] = "a\ab\bf\fn\nr\rt\tv\v";
	const char *n = c != 0 ? strchr(named, c) : NULL;

	*(*o)++ = '\\';
	if (n != NULL && (n - named) % 2 == 1) {
		*(*o)++ = n[-1];
		return;
	}
	*(*o)++ = (char)('0' + (c >> 6));
	*(*o)++ = (char)('0' + ((c >> 3) & 7));
	*(*o)++ = (char)('0' + (c & 7));
}

const char *
prog_quote(const char *name)
{
	static char *buf;
	size_t len = strlen(name), i, m;
	int quote = len == 0, single = 0, dq = 1, in_escape = 0;
	mbstate_t st;
	char *o, *nbuf;

	prog_locale();
	memset(&st, 0, sizeof st);
	for (i = 0; i < len; i += m) {
		unsigned char c = (unsigned char)name[i];

		m = printable(name + i, len - i, &st);
		if (m == 0) {
			quote = 1;
			dq = 0;
			m = 1;
			continue;
		}
		if (m > 1)
			continue;
		single |= c == '\'';
		quote |= shell_special(c, i, len);
		dq &= double_quotable(c, i, len);
	}
	if (!quote)
		return name;
	/* Worst case: every byte becomes '$'\ooo'' or '\''. */
	nbuf = realloc(buf, 8 * len + 3);
	if (nbuf == NULL)
		return name;
	buf = o = nbuf;
	if (single && dq) {
		*o++ = '"';
		memcpy(o, name, len);
		o += len;
		*o++ = '"';
		*o = '\0';
		return buf;
	}
	*o++ = '\'';
	memset(&st, 0, sizeof st);
	for (i = 0; i < len; i += m) {
		m = printable(name + i, len - i, &st);
		if (m == 0) {
			if (!in_escape) {
				memcpy(o, "'$'", 3);
				o += 3;
				in_escape = 1;
			}
			put_escape(&o, (unsigned char)name[i]);
			m = 1;
		} else if (name[i] == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
			in_escape = 0;
		} else {
			if (in_escape) {
				memcpy(o, "''", 2);
				o += 2;
				in_escape = 0;
			}
			memcpy(o, name + i, m);
			o += m;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return buf;
}

void
prog_try_help(void)
{
	prog_locale();
	fprintf(stderr, _("Try '%s --help' for more information.\n"),
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

/*
 * GNU 9.7 and later report a failure found on closing stdout (after
 * --help, say) with gnulib's message, which GNU's catalog does not
 * translate: "write error" stays English in every locale, while the
 * programs' own write errors are translated (GNU 9.1 translated both).
 */
int
prog_close_stdout(void)
{
	if (close_stream(stdout) < 0) {
		prog_locale();
		report(errno, "write error");
		return 1;
	}
	if (close_stream(stderr) < 0)
		return 1;
	return 0;
}

int
prog_common_option(int c, const char *command, int (*usage)(int))
{
	if (c == 'h')
		return usage(EXIT_SUCCESS);
	if (c == 'V') {
		prog_version(command);
		return prog_close_stdout();
	}
	return usage(EXIT_FAILURE);
}

/*
 * Where TERM names a terminal (set, not empty, not "dumb"; GNU does not
 * ask whether stdout is one, as its --help is often piped into less),
 * GNU 9.10 shows each option of --help in bold and as a hyperlink to its
 * entry in GNU's manual. The option's text starts at its first '-' and
 * ends at a tab, two spaces or a newline, or, once a long option has
 * begun, at a space not followed by '-' (some translations put one space
 * between option and description). Without a '-', or with one that comes
 * after two spaces (inside a description), it is the first word.
 */
void
prog_option(const char *command, const char *text)
{
	const char *term = getenv("TERM"), *first, *opt, *end, *p;
	int spaces = 0, double_space = 1;
	size_t anchor;

	if (term == NULL || *term == '\0' || strcmp(term, "dumb") == 0) {
		fputs(text, stdout);
		return;
	}
	first = text + strspn(text, " \t\n");
	opt = strchr(text, '-');
	if (opt != NULL && opt != first)
		for (p = first; p < opt && spaces < 2; p++)
			spaces += isspace((unsigned char)*p) != 0;
	if (opt == NULL || spaces == 2) {
		opt = first;
		double_space = 0;
	}
	anchor = strcspn(opt, ",= [\n");
	for (end = opt + anchor; *end != '\0' && *end != '\n'; end++) {
		if (end[0] == '-' && end[1] == '-')
			double_space = 0;
		if (isspace((unsigned char)*end) &&
		    (*end == '\t' || isspace((unsigned char)end[1]) ||
		     (!double_space && end[1] != '-')))
			break;
	}
	fwrite(text, 1, (size_t)(first - text), stdout);
	if (strncmp(opt, "--help", 6) == 0 || strncmp(opt, "--version", 9) == 0)
		printf(
		    "\033]8;;https://www.gnu.org/software/coreutils/%s#%s%.*s",
		    command, command, (int)anchor, opt);
	else
		printf("\033]8;;https://www.gnu.org/software/coreutils/manual/"
		       "coreutils.html#%s%.*s",
		       command, (int)anchor, opt);
	fputs("\033\\\033[1m", stdout);
	fwrite(first, 1, (size_t)(end - first), stdout);
	fputs("\033[0m\033]8;;\033\\", stdout);
	fputs(end, stdout);
}

void
prog_help_version(const char *command)
{
	prog_option(command, _("      --help\n"
			       "         display this help and exit\n"));
	prog_option(command,
		    _("      --version\n"
		      "         output version information and exit\n"));
}
