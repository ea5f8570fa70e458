/* SPDX-License-Identifier: MIT */
/*
 * The helpers every suite shares besides running programs (spawn.c):
 * test data (lines, temporary files), the line-by-line comparison that
 * names the first mismatch, and the Check harness: the suite's main and
 * the cases that need something of the machine.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/machine.h"
#include "spawn.h"

char *
spawn_lines(size_t len, const char *format)
{
	char *d = malloc(len + 256);
	size_t n = 0;
	unsigned i = 0;

	ck_assert_ptr_nonnull(d);
	while (n < len)
		n += (size_t)sprintf(d + n, format, i++);
	return d;
}

char *
spawn_temp_path(const char *data, size_t len)
{
	char *path = strdup("/tmp/fastio-test.XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	ck_assert(fd >= 0);
	ck_assert(write(fd, data, len) == (ssize_t)len);
	close(fd);
	return path;
}

int
spawn_temp_fd(const char *data, int flags)
{
	char *path = spawn_temp_path(data ? data : "", data ? strlen(data) : 0);
	int fd = open(path, O_RDWR | flags);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	free(path);
	return fd;
}

char *
spawn_slurp(const char *path, size_t *len)
{
	char *data = NULL;
	size_t cap = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	*len = 0;
	do {
		if (cap - *len < 65536) {
			cap = cap * 2 + 65536;
			data = realloc(data, cap + 1);
			ck_assert_ptr_nonnull(data);
		}
		n = read(fd, data + *len, cap - *len);
		ck_assert(n >= 0);
		*len += (size_t)n;
	} while (n > 0);
	close(fd);
	data[*len] = '\0';
	return data;
}

void
spawn_check_output(const struct spawn_result *r, const char *want,
		   size_t want_len, const char *what)
{
	char msg[512];

	ck_assert_msg(lines_check(r->out, r->out_len, want, want_len, 0, msg,
				  sizeof msg) == 0,
		      "%s: %s", what, msg);
	ck_assert_msg(strcmp(r->err, "") == 0, "%s: stderr %s", what, r->err);
	ck_assert_msg(r->exited && r->status == 0, "%s: status", what);
}

void
spawn_pipebench(struct spawn *s, struct spawn_result *r,
		const char *const *argv)
{
	spawn_init(s, "pipebench", argv, s->env, s->out);
	ck_assert_int_eq(spawn_run(s, r), 0);
}

void
spawn_with_args(const char **argv, const char *const *args, int n,
		const char *path)
{
	int i;

	for (i = 0; i < n && args[i]; i++)
		argv[i + 1] = strcmp(args[i], "@") ? args[i] : path;
}

double
spawn_json_number(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	p = strstr(json, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

static size_t
line_end(const char *p, size_t from, size_t len)
{
	const char *nl = memchr(p + from, '\n', len - from);

	return nl ? (size_t)(nl - p) : len;
}

/* Expected byte i of want, repeated or not; -1 past its end. */
static int
want_at(const char *want, size_t want_len, int repeat, size_t i)
{
	if (repeat)
		return (unsigned char)want[i % want_len];
	return i < want_len ? (unsigned char)want[i] : -1;
}

static size_t
first_mismatch(const char *got, size_t got_len, const char *want,
	       size_t want_len, int repeat)
{
	size_t i = 0, n;

	/*
	 * A repeat of short lines would be a memcmp() a line: instead, the
	 * first line matches and the output repeats itself one line later.
	 * The slow way below finds the byte only where this fails.
	 */
	if (repeat && got_len > want_len && memcmp(got, want, want_len) == 0 &&
	    memcmp(got + want_len, got, got_len - want_len) == 0)
		return got_len;
	while (i < got_len) {
		size_t off = repeat ? i % want_len : i;

		if (!repeat && off >= want_len)
			return i;
		n = want_len - off;
		if (n > got_len - i)
			n = got_len - i;
		if (memcmp(got + i, want + off, n) != 0)
			break;
		i += n;
	}
	while (i < got_len &&
	       want_at(want, want_len, repeat, i) == (unsigned char)got[i])
		i++;
	return i;
}

static void
excerpt(char *dst, size_t size, const char *p, size_t len)
{
	size_t i, j = 0;

	for (i = 0; i < len && j + 5 < size; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 32 && c < 127 && c != '\\')
			dst[j++] = (char)c;
		else
			j += (size_t)snprintf(dst + j, size - j, "\\%03o", c);
	}
	if (i < len && j + 4 < size)
		j += (size_t)snprintf(dst + j, size - j, "...");
	dst[j < size ? j : size - 1] = '\0';
}

int
lines_check(const char *got, size_t got_len, const char *want, size_t want_len,
	    int repeat, char *msg, size_t msg_size)
{
	char w[160], g[160], wline[80];
	size_t m, start, line = 1, i, wend, gend;

	m = first_mismatch(got, got_len, want, want_len, repeat);
	if (m == got_len && (repeat || got_len == want_len))
		return 0;
	for (i = 0; i < m; i++)
		if (got[i] == '\n')
			line++;
	start = 0;
	for (i = m; i > 0; i--)
		if (got[i - 1] == '\n') {
			start = i;
			break;
		}
	gend = line_end(got, start, got_len);
	for (wend = start, i = 0; i < sizeof wline; i++, wend++) {
		int c = want_at(want, want_len, repeat, wend);

		if (c < 0 || c == '\n')
			break;
		wline[i] = (char)c;
	}
	excerpt(w, 60, wline, i);
	excerpt(g, 60, got + start, gend - start);
	snprintf(msg, msg_size,
		 "line %zu (byte %zu of %zu) differs: expected \"%s\"%s, got "
		 "\"%s\"%s",
		 line, m, got_len, w,
		 want_at(want, want_len, repeat, wend) == '\n' ? "+LF" : "", g,
		 gend < got_len ? "+LF"
				: (m == got_len ? " (output ends)" : ""));
	return 1;
}

size_t
spawn_help_body(const char *out, size_t len)
{
	int lines = 0;

	while (len > 0 && lines < 3)
		lines += out[--len] == '\n';
	return lines == 3 ? len + 1 : 0;
}

#ifdef SPAWN_NEEDS
/* The cases added, those left out, and the last need this machine lacked. */
static int needy_cases, needy_left;
static const char *needy_missing;
#endif

int
suite_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

#ifdef SPAWN_NEEDS
	if (needy_cases == 0) {
		printf("%s: skipped: %s\n", program_invocation_short_name,
		       needy_missing ? needy_missing
				     : "no case needs anything");
		srunner_free(sr);
		return 77;
	}
#endif
	/* A program that exits before reading all its input must not kill
	 * the test feeding it; the children get SIGPIPE back (child()). */
	signal(SIGPIPE, SIG_IGN);
#ifdef SPAWN_NEEDS
	srunner_run_tagged(sr, NULL, NULL, "needs", NULL, CK_NORMAL);
#else
	srunner_run_all(sr, CK_NORMAL);
#endif
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
#ifdef SPAWN_NEEDS
	/* What could run passed, but not all could: not a pass. */
	if (!failed && needy_left > 0) {
		printf("%s: %d of %d cases skipped, as said above\n",
		       program_invocation_short_name, needy_left,
		       needy_left + needy_cases);
		return 77;
	}
#endif
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

const char *
spawn_need_native(void)
{
	const char *e = getenv("FIO_FOREIGN");

	return e != NULL && *e != '\0'
		   ? "the programs are built for another CPU (FIO_FOREIGN)"
		   : NULL;
}

const char *
spawn_need_strace(void)
{
	if (access(SPAWN_STRACE, X_OK) != 0)
		return "no " SPAWN_STRACE;
	return spawn_need_native();
}

const char *
spawn_need_gnu_cat(void)
{
	const char *argv[] = {"cat", "--version", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	int gnu;

	if (access("/usr/bin/cat", X_OK) != 0)
		return "no /usr/bin/cat";
	s.prog = "/usr/bin/cat";
	s.argv = argv;
	s.out = OUT_PIPE;
	if (spawn_run(&s, &r) != 0)
		return "/usr/bin/cat --version did not run";
	gnu = strstr(r.out, "GNU coreutils") != NULL;
	spawn_free(&r);
	return gnu ? NULL : "/usr/bin/cat is not GNU's";
}

/* The writer's own rule for starting its thread (writer.c). */
const char *
spawn_need_two_cpus(void)
{
	return fio_two_cpus() ? NULL : "one CPU: a second thread never starts";
}

const char *
spawn_need_unsanitized(void)
{
#ifdef FIO_SANITIZED
	return "a sanitizer build: shadow memory in the RSS, terabytes "
	       "of address space reserved";
#else
	return NULL;
#endif
}

const char *
spawn_need_plain_build(void)
{
#ifdef FIO_COVERAGE
	return "a coverage build: gcov's counters and unoptimised code in "
	       "the RSS";
#else
	return spawn_need_unsanitized();
#endif
}

const char *
spawn_need_root(void)
{
	return geteuid() == 0 ? NULL
			      : "not root: only root can run a program as "
				"an ordinary user";
}

const char *
spawn_need_pty(void)
{
	int master = -1, slave = -1, ok = spawn_open_pty(&master, &slave) == 0;

	if (master >= 0)
		close(master);
	if (slave >= 0)
		close(slave);
	return ok ? NULL : "no pseudo-terminal here (is /dev/pts mounted?)";
}

const char *
spawn_need_quiet(void)
{
	const char *e = getenv("FIO_TIMING");

	return e != NULL && *e != '\0'
		   ? NULL
		   : "it asserts wake-ups, which a busy machine changes: "
		     "make check-timing runs it";
}

TCase *
suite_add_needing(Suite *s, const char *name, const TTest *test, int n,
		  spawn_need *const *needs)
{
#ifdef SPAWN_NEEDS
	const char *missing = NULL;
	TCase *tc;

	for (; *needs != NULL && missing == NULL; needs++)
		missing = (*needs)();
	if (missing != NULL) {
		printf("%s: %s skipped: %s\n", program_invocation_short_name,
		       name, missing);
		needy_missing = missing;
		needy_left++;
		return NULL;
	}
	needy_cases++;
	tc = tcase_create(name);
	tcase_set_tags(tc, "needs");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test, 0, n);
	suite_add_tcase(s, tc);
	return tc;
#else
	(void)s;
	(void)name;
	(void)test;
	(void)n;
	(void)needs;
	return NULL;
#endif
}

void
spawn_inject(struct spawn_inject *in, const char *spec, int id,
	     const char **env)
{
	/* The pid too: another build's suite may run beside this one. */
	snprintf(in->logpath, sizeof in->logpath, "/tmp/fastio-inject.%ld.%d",
		 (long)getpid(), id);
	unlink(in->logpath);
	snprintf(in->preload, sizeof in->preload,
		 "LD_PRELOAD=%s/tests/inject.so", getenv("FIO_BUILDDIR"));
	snprintf(in->inject, sizeof in->inject, "FIO_INJECT=%s", spec);
	snprintf(in->logenv, sizeof in->logenv, "FIO_INJECT_LOG=%s",
		 in->logpath);
	env[0] = in->preload;
	env[1] = in->inject;
	env[2] = in->logenv;
	/* Our library comes before the sanitizer runtime. */
	env[3] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[4] = NULL;
}

int
spawn_inject_reached(struct spawn_inject *in)
{
	int reached = access(in->logpath, F_OK) == 0;

	unlink(in->logpath);
	return reached;
}
