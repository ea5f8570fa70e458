/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define TRY	 "Try 'cat --help' for more information.\n"
#define MAX_ARGV 24

/* The operand lists of tests/golden/generate.sh, in its order. */
static const char *const small_inputs[] = {
    "s01-empty",	 "s02-no-newline", "s03-continues",
    "s04-only-newlines", "s05-crlf",	   "s06-lf-after-cr",
    "s07-blank-runs",	 "s08-all-bytes",  "s09-all-bytes-twice",
    "s10-mixed",	 "s11-cr-at-end",  NULL,
};
static const char *const big_inputs[] = {"b01-long-line", "b02-zeros", NULL};
static const char *const big_sets[] = {"A", "nsE", "T"};

/*
 * Each strategy forced in turn, and each formatting scanner; the writer's
 * thread (fastio.h) from the first byte with the default scanner.
 */
static const char *const forced[][3] = {
    {NULL, NULL, NULL},
    {"FASTIO_DISABLE=oneread", "FASTIO_FORCE=thread", NULL},
    {"FASTIO_DISABLE=oneread,copy_file_range,splice,sendfile",
     "FASTIO_CAT_SCAN=8", NULL},
    {"FASTIO_DISABLE=all", "FASTIO_CAT_SCAN=16", NULL},
};
#define NFORCED (int)(sizeof forced / sizeof forced[0])

static char *
golden_path(const char *dir, const char *name)
{
	const char *top = getenv("FIO_SRCDIR");
	char path[4096];

	/* Kept for the whole test (argv holds many); the process ends soon. */
	snprintf(path, sizeof path, "%s/tests/golden/%s/%s", top ? top : ".",
		 dir, name);
	return strdup(path);
}

static char *
slurp(const char *path, size_t *len)
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
			data = realloc(data, cap);
		}
		n = read(fd, data + *len, cap - *len);
		ck_assert(n >= 0);
		*len += (size_t)n;
	} while (n > 0);
	close(fd);
	return data;
}

/* The inputs of a list concatenated: what cat reads from a stream. */
static char *
joined(const char *const *names, size_t *len)
{
	char *all = NULL, *one;
	size_t n;

	*len = 0;
	for (; *names != NULL; names++) {
		one = slurp(golden_path("in", *names), &n);
		all = realloc(all, *len + n + 1);
		memcpy(all + *len, one, n);
		*len += n;
		free(one);
	}
	return all;
}

/* The option set of matrix row i, named as generate.sh names it. */
static const char *
set_name(int i, char *buf)
{
	static const char letters[] = "bEnsTv";
	char *p = buf;
	int bit;

	if (i >= 64)
		return i == 64 ? "A" : i == 65 ? "e" : "t";
	for (bit = 0; bit < 6; bit++)
		if (i >> bit & 1)
			*p++ = letters[bit];
	*p = '\0';
	return p == buf ? "none" : buf;
}

static void
check_output(const struct spawn_result *r, const char *want, size_t want_len,
	     const char *what)
{
	char msg[512];

	ck_assert_msg(lines_check(r->out, r->out_len, want, want_len, 0, msg,
				  sizeof msg) == 0,
		      "%s: %s", what, msg);
	ck_assert_msg(strcmp(r->err, "") == 0, "%s: stderr %s", what, r->err);
	ck_assert_msg(r->exited && r->status == 0, "%s: status", what);
}

/*
 * Every option combination over the small inputs, given as operands,
 * through each formatting loop: the one the CPU gets, the portable one,
 * the portable general one, AVX2's where the CPU also has AVX-512's.
 */
static const char *const scanners[] = {
    NULL, "FASTIO_CAT_SCAN=8", "FASTIO_CAT_SCAN=16", "FASTIO_CAT_SCAN=32"};

START_TEST(option_matrix)
{
	const char *argv[MAX_ARGV] = {"cat"};
	const char *env[] = {scanners[_i / 67], NULL};
	char buf[8], opt[9], what[64];
	const char *set = set_name(_i % 67, buf);
	struct spawn s = {0};
	struct spawn_result r;
	size_t want_len;
	char golden[32], *want;
	int n = 1, i;

	if (strcmp(set, "none") != 0) {
		snprintf(opt, sizeof opt, "-%s", set);
		argv[n++] = opt;
	}
	for (i = 0; small_inputs[i] != NULL; i++)
		argv[n++] = golden_path("in", small_inputs[i]);
	argv[n] = NULL;
	snprintf(golden, sizeof golden, "small-%s", set);
	want = slurp(golden_path("out", golden), &want_len);
	s.prog = "cat";
	s.argv = argv;
	s.env = env;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	snprintf(what, sizeof what, "cat %s, %s", set,
		 env[0] ? env[0] : "default loop");
	check_output(&r, want, want_len, what);
	spawn_free(&r);
	free(want);
}
END_TEST

/*
 * Input and output kinds, each strategy and scanner forced in turn. Row:
 * option set (plain over small+big, -A over small, -nsE over big) x input
 * (operands, stdin file, stdin pipe) x output kind x forced. A terminal
 * is a case of its own (tty_kinds): a chroot without /dev/pts has none.
 */
static const enum spawn_out out_kinds[] = {
    OUT_PIPE,
    OUT_FILE,
    OUT_APPEND_FILE,
    OUT_SOCKET,
};
#define NOUTS  (int)(sizeof out_kinds / sizeof out_kinds[0])
#define NKINDS (3 * 3 * NOUTS * NFORCED)

static void
kinds_case(int set, int in, enum spawn_out out, int force)
{
	const char *const *lists[2] = {small_inputs, big_inputs};
	const char *argv[MAX_ARGV] = {"cat"};
	struct spawn s = {0};
	struct spawn_result r;
	char *want, *data, *part, what[96];
	size_t want_len, len, n;
	int nargs = 1, l, i;

	/* Which lists go in, and what comes out. */
	if (set == 0) {
		want = joined(small_inputs, &want_len);
		part = joined(big_inputs, &n);
		want = realloc(want, want_len + n);
		memcpy(want + want_len, part, n);
		want_len += n;
		free(part);
	} else {
		argv[nargs++] = set == 1 ? "-A" : "-nsE";
		want =
		    slurp(golden_path("out", set == 1 ? "small-A" : "big-nsE"),
			  &want_len);
	}
	data = NULL;
	len = 0;
	for (l = 0; l < 2; l++) {
		if ((set == 1 && l == 1) || (set == 2 && l == 0))
			continue;
		if (in == 0) {
			for (i = 0; lists[l][i] != NULL; i++)
				argv[nargs++] = golden_path("in", lists[l][i]);
		} else {
			part = joined(lists[l], &n);
			data = realloc(data, len + n);
			memcpy(data + len, part, n);
			len += n;
			free(part);
		}
	}
	argv[nargs] = NULL;
	s.prog = "cat";
	s.argv = argv;
	s.env = forced[force];
	s.in = in == 0 ? IN_DEVNULL : in == 1 ? IN_FILE : IN_PIPE;
	s.in_data = data;
	s.in_len = len;
	s.out = out;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	snprintf(what, sizeof what, "set %d, input %d, output %d, forced %d",
		 set, in, (int)out, force);
	check_output(&r, want, want_len, what);
	spawn_free(&r);
	free(want);
	free(data);
}

START_TEST(kinds_matrix)
{
	kinds_case(_i % 3, _i / 3 % 3, out_kinds[_i / 9 % NOUTS],
		   _i / 9 / NOUTS);
}
END_TEST

START_TEST(tty_kinds)
{
	kinds_case(_i % 3, _i / 3 % 3, OUT_PTY, _i / 9);
}
END_TEST

/* Lines longer than any buffer and NUL runs, through every scanner. */
START_TEST(big_lines)
{
	static const char *const scan[] = {NULL, "FASTIO_CAT_SCAN=8",
					   "FASTIO_CAT_SCAN=16",
					   "FASTIO_CAT_SCAN=32"};
	const char *set = big_sets[_i % 3];
	const char *env[] = {scan[_i / 3], NULL};
	const char *argv[MAX_ARGV] = {"cat"};
	struct spawn s = {0};
	struct spawn_result r;
	char opt[8], golden[16], *want, *data;
	size_t want_len, len;

	snprintf(opt, sizeof opt, "-%s", set);
	snprintf(golden, sizeof golden, "big-%s", set);
	want = slurp(golden_path("out", golden), &want_len);
	data = joined(big_inputs, &len);
	argv[1] = opt;
	s.prog = "cat";
	s.argv = argv;
	s.env = env;
	s.in = IN_PIPE;
	s.in_data = data;
	s.in_len = len;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	check_output(&r, want, want_len, golden);
	spawn_free(&r);
	free(want);
	free(data);
}
END_TEST

/*
 * Outputs that refuse or discard: exact GNU messages and statuses, for
 * plain and formatted copies, each strategy forced.
 */
struct out_case {
	enum spawn_out out;
	int big, ignore_sigpipe;
	const char *err;
	int status;
};

static const struct out_case out_cases[] = {
    {OUT_DEVNULL, 1, 0, "", 0},
    {OUT_DEVFULL, 0, 0, "cat: write error: No space left on device\n", 1},
    {OUT_DEVFULL, 1, 0, "cat: write error: No space left on device\n", 1},
    {OUT_CLOSED, 0, 0, "cat: standard output: Bad file descriptor\n", 1},
    {OUT_NONBLOCK_PIPE, 0, 0, "", 0},
    {OUT_NONBLOCK_PIPE, 1, 0,
     "cat: write error: Resource temporarily unavailable\n", 1},
};
#define NOUT_CASES (int)(sizeof out_cases / sizeof out_cases[0])

START_TEST(refusing_outputs)
{
	const struct out_case *c = &out_cases[_i % NOUT_CASES];
	int formatted = _i / NOUT_CASES % 2, force = _i / NOUT_CASES / 2;
	const char *argv[MAX_ARGV] = {"cat"};
	struct spawn s = {0};
	struct spawn_result r;
	size_t len;
	char *big = NULL;
	int n = 1, i;

	if (formatted)
		argv[n++] = "-v";
	argv[n++] = golden_path("in", "s02-no-newline");
	if (c->big) {
		/* More than any pipe holds: 8 MiB through a file. */
		big = joined(big_inputs, &len);
		big = realloc(big, len * 28);
		for (i = 1; i < 28; i++)
			memcpy(big + len * (size_t)i, big, len);
		argv[n++] = "-";
		s.in = IN_FILE;
		s.in_data = big;
		s.in_len = len * 28;
	}
	argv[n] = NULL;
	s.prog = "cat";
	s.argv = argv;
	s.env = forced[force];
	s.out = c->out;
	s.ignore_sigpipe = c->ignore_sigpipe;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(strcmp(r.err, c->err) == 0, "case %d: stderr '%s'", _i,
		      r.err);
	ck_assert_msg(r.exited && r.status == c->status, "case %d: status", _i);
	if (c->out == OUT_NONBLOCK_PIPE && c->status == 0)
		ck_assert(r.out_len == 1 && r.out[0] == 'c');
	spawn_free(&r);
	free(big);
}
END_TEST

/* A reader that goes away: SIGPIPE by default, GNU's message without. */
START_TEST(broken_pipe)
{
	int ignore = _i % 2, formatted = _i / 2 % 2, force = _i / 4;
	const char *argv[] = {"cat", formatted ? "-n" : "-u", "-", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char *data;
	size_t len;
	int i;

	data = joined(big_inputs, &len);
	data = realloc(data, len * 28);
	for (i = 1; i < 28; i++)
		memcpy(data + len * (size_t)i, data, len);
	s.prog = "cat";
	s.argv = argv;
	s.env = forced[force];
	s.in = IN_FILE;
	s.in_data = data;
	s.in_len = len * 28;
	s.out = OUT_PIPE;
	s.out_max = 4096;
	s.ignore_sigpipe = ignore;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	if (ignore) {
		ck_assert_str_eq(r.err, "cat: write error: Broken pipe\n");
		ck_assert(r.exited && r.status == 1);
	} else {
		ck_assert_str_eq(r.err, "");
		ck_assert(r.signaled && r.signal == SIGPIPE);
	}
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * Error cases run through sh, for redirections and files made on the spot
 * in a fresh directory; $CAT is the cat under test.
 */
struct error_case {
	const char *script;
	const char *out, *err;
	int status;
};

static const struct error_case error_cases[] = {
    {"printf x > f; $CAT nosuch f 'a b' '' \"x'y\" 'a:b' f", "xx",
     "cat: nosuch: No such file or directory\n"
     "cat: 'a b': No such file or directory\n"
     "cat: '': No such file or directory\n"
     "cat: \"x'y\": No such file or directory\n"
     "cat: 'a:b': No such file or directory\n",
     1},
    {"$CAT \"$(printf 'n\\nl')\" \"$(printf '\\001')\" 'a\\b' '#x' 'x#'", "",
     "cat: 'n'$'\\n''l': No such file or directory\n"
     "cat: ''$'\\001': No such file or directory\n"
     "cat: 'a\\b': No such file or directory\n"
     "cat: '#x': No such file or directory\n"
     "cat: x#: No such file or directory\n",
     1},
    {"mkdir d; printf x > f; $CAT f d f", "xx", "cat: d: Is a directory\n", 1},
    {"printf x > f; $CAT -n f d f 2>&1; mkdir d",
     "     1\txcat: d: No such "
     "file or directory\nx",
     "", 0},
    {"$CAT /proc/self/mem", "", "cat: /proc/self/mem: Input/output error\n", 1},
    {"$CAT -u - <&-", "",
     "cat: -: Bad file descriptor\n"
     "cat: closing standard input: Bad file descriptor\n",
     1},
    {"printf x > f; $CAT f - f <&-", "xx",
     "cat: -: Bad file descriptor\n"
     "cat: closing standard input: Bad file descriptor\n",
     1},
    {"printf x > f; $CAT f >&-", "",
     "cat: standard output: Bad file descriptor\n", 1},
    /* Input is output, by GNU's current rule. */
    {"printf abc > f; $CAT f >> f; $CAT f", "abc",
     "cat: f: input file is output file\n", 0},
    {"printf abc > f; $CAT -n f >> f; $CAT f", "abc",
     "cat: f: input file is output file\n", 0},
    {": > e; $CAT e >> e; echo $?", "0\n", "", 0},
    {"printf abc > doc; printf x > doc.end; $CAT doc doc.end > doc; "
     "$CAT doc",
     "x", "", 0},
    {"printf abc > f; $CAT f 1<> f; $CAT f", "abc", "", 0},
    {"printf abc > f; printf d > g; $CAT g f 1<> f; $CAT f", "dbc",
     "cat: f: input file is output file\n", 0},
    /* Output pending in cat's buffer goes out before each message. */
    {"printf x > f; $CAT f nosuch f 2>&1",
     "xcat: nosuch: No such file or directory\nx", "", 1},
    {"printf 'a\\n' > f; $CAT -E f nosuch f 2>&1",
     "a$\ncat: nosuch: No such file or directory\na$\n", "", 1},
    /* Standard input read again, without rewinding, at each "-". */
    {"printf 'a\\n' > f; printf 'in\\n' | $CAT - f -", "in\na\n", "", 0},
    {"printf 'a\\n' > f; $CAT - f - < f", "a\na\n", "", 0},
    /* A Unix socket on the file system cannot be opened. */
    {"$SOCKET_MAKER", "", "cat: sock: No such device or address\n", 1},
};
#define NERRORS (int)(sizeof error_cases / sizeof error_cases[0])

static char *
make_temp_dir(void)
{
	char *dir = strdup("/tmp/check_cat.XXXXXX");

	ck_assert(mkdtemp(dir) != NULL);
	return dir;
}

static void
remove_dir(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(errors)
{
	const struct error_case *c = &error_cases[_i % NERRORS];
	char *dir = make_temp_dir(), script[1024], path_env[4200], link[4200];
	const char *argv[] = {"sh", "-c", script, NULL};
	const char *env[4] = {"CAT=cat", path_env, forced[_i / NERRORS][0],
			      NULL};
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512];
	int sock = -1;

	if (strcmp(c->script, "$SOCKET_MAKER") == 0) {
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock", dir);
		sock = socket(AF_UNIX, SOCK_STREAM, 0);
		ck_assert(bind(sock, (struct sockaddr *)&sa, sizeof sa) == 0);
		snprintf(script, sizeof script, "cd '%s' && $CAT sock", dir);
	} else {
		snprintf(script, sizeof script, "cd '%s' && %s", dir,
			 c->script);
	}
	/* Found through PATH, so messages name it "cat" as GNU's would. */
	snprintf(link, sizeof link, "%s/bin", dir);
	ck_assert_int_eq(mkdir(link, 0700), 0);
	snprintf(link, sizeof link, "%s/bin/cat", dir);
	ck_assert_int_eq(symlink(spawn_path("cat"), link), 0);
	snprintf(path_env, sizeof path_env, "PATH=%s/bin:/usr/bin:/bin", dir);
	s.prog = "/bin/sh";
	s.argv = argv;
	s.env = env;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(lines_check(r.out, r.out_len, c->out, strlen(c->out), 0,
				  msg, sizeof msg) == 0,
		      "case %d: %s", _i, msg);
	ck_assert_msg(strcmp(r.err, c->err) == 0, "case %d: stderr '%s'", _i,
		      r.err);
	ck_assert_msg(r.exited && r.status == c->status, "case %d: status %d",
		      _i, r.status);
	spawn_free(&r);
	if (sock >= 0)
		close(sock);
	remove_dir(dir);
	free(dir);
}
END_TEST

/* Option parsing: GNU's messages, abbreviations and permutation. */
struct option_case {
	const char *argv[5];
	int posixly_correct;
	const char *out, *err;
	int status;
};

static const struct option_case option_cases[] = {
    {{"-x"}, 0, "", "cat: invalid option -- 'x'\n" TRY, 1},
    {{"--foo"}, 0, "", "cat: unrecognized option '--foo'\n" TRY, 1},
    {{"--nu"},
     0,
     "",
     "cat: option '--nu' is ambiguous; possibilities: '--number-nonblank' "
     "'--number'\n" TRY,
     1},
    {{"--sh"},
     0,
     "",
     "cat: option '--sh' is ambiguous; possibilities: '--show-nonprinting' "
     "'--show-ends' '--show-tabs' '--show-all'\n" TRY,
     1},
    {{"--help=x"},
     0,
     "",
     "cat: option '--help' doesn't allow an argument\n" TRY,
     1},
    {{"--number-n", "F"}, 0, "     1\ta\n\n     2\tb\n", "", 0},
    {{"--number", "F"}, 0, "     1\ta\n     2\t\n     3\tb\n", "", 0},
    {{"--numb", "F"},
     0,
     "",
     "cat: option '--numb' is ambiguous; possibilities: '--number-nonblank' "
     "'--number'\n" TRY,
     1},
    {{"F", "-b"}, 0, "     1\ta\n\n     2\tb\n", "", 0},
    {{"-b", "-n", "F"}, 0, "     1\ta\n\n     2\tb\n", "", 0},
    {{"-n", "-b", "F"}, 0, "     1\ta\n\n     2\tb\n", "", 0},
    {{"-u", "F"}, 0, "a\n\nb\n", "", 0},
    {{"-vET", "F"}, 0, "a$\n$\nb$\n", "", 0},
    {{"--show-all", "--squeeze-blank", "F"}, 0, "a$\n$\nb$\n", "", 0},
    {{"--", "-n"}, 0, "", "cat: -n: No such file or directory\n", 1},
    {{"F", "-n"}, 1, "a\n\nb\n", "cat: -n: No such file or directory\n", 1},
    {{"--version"}, 0, "cat (" PACKAGE_NAME ") " PACKAGE_VERSION "\n", "", 0},
    {{"--help"}, 0, "Usage: cat [OPTION]... [FILE]...\n", "", 0},
    {{"-n", "--help", "F"}, 0, "Usage: cat [OPTION]... [FILE]...\n", "", 0},
};
#define NOPTIONS (int)(sizeof option_cases / sizeof option_cases[0])

START_TEST(options)
{
	const struct option_case *c = &option_cases[_i];
	const char *argv[7] = {"cat"};
	const char *env[] = {"POSIXLY_CORRECT=1", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512], *file = spawn_temp_path("a\n\nb\n", 5);
	size_t first;
	int i;

	for (i = 0; i < 5 && c->argv[i]; i++)
		argv[i + 1] = strcmp(c->argv[i], "F") == 0 ? file : c->argv[i];
	s.prog = "cat";
	s.argv = argv;
	s.env = c->posixly_correct ? env : NULL;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	/* --help and --version: the first line is checked exactly. */
	first = strlen(c->out);
	if (strncmp(c->argv[0], "--help", 7) == 0 ||
	    strcmp(c->argv[0], "--version") == 0 ||
	    (c->argv[1] && strcmp(c->argv[1], "--help") == 0)) {
		ck_assert_msg(r.out_len > first, "case %d: short output", _i);
		r.out_len = first;
	}
	ck_assert_msg(lines_check(r.out, r.out_len, c->out, strlen(c->out), 0,
				  msg, sizeof msg) == 0,
		      "case %d: %s", _i, msg);
	ck_assert_msg(strcmp(r.err, c->err) == 0, "case %d: stderr '%s'", _i,
		      r.err);
	ck_assert(r.exited && r.status == c->status);
	spawn_free(&r);
	unlink(file);
	free(file);
}
END_TEST

/*
 * Files whose size lies: /proc says 0 and copy_file_range or splice may
 * return 0 at once; sysfs says 4096. Every strategy must still read them.
 */
START_TEST(pseudo_files)
{
	const char *argv[] = {"cat", "/proc/self/cmdline", "-", NULL};
	const char want[] = "cat\0/proc/self/cmdline\0-\0";
	struct spawn s = {0};
	struct spawn_result r;

	s.prog = "cat";
	s.argv = argv;
	s.env = forced[_i % NFORCED];
	s.in = _i / NFORCED ? IN_FILE : IN_DEVNULL;
	s.out = _i / NFORCED ? OUT_FILE : OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_uint_eq(r.out_len, sizeof want - 1);
	ck_assert(memcmp(r.out, want, sizeof want - 1) == 0);
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
}
END_TEST

START_TEST(sysfs_file)
{
	const char *path = "/sys/kernel/mm/transparent_hugepage/enabled";
	const char *argv[] = {"cat", path, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	size_t len;
	char *want;

	if (access(path, R_OK) != 0)
		return;
	want = slurp(path, &len);
	s.prog = "cat";
	s.argv = argv;
	s.env = forced[_i];
	s.out = _i % 2 ? OUT_FILE : OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	check_output(&r, want, len, path);
	spawn_free(&r);
	free(want);
}
END_TEST

/* Read from fd until want arrives or five seconds pass; 1 if it did. */
static int
await(int fd, const char *want)
{
	char buf[256];
	size_t got = 0, len = strlen(want);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t n;

	while (got < len && poll(&p, 1, 5000) == 1) {
		n = read(fd, buf + got, sizeof buf - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got == len && memcmp(buf, want, len) == 0;
}

/*
 * Interactive use: each line shows before the next one is written, with
 * the formatting path (-n) and the plain one, from a pipe.
 */
START_TEST(interactive_flush)
{
	const char *opt = _i ? "-n" : "-u";
	int in[2], out[2], status;
	pid_t pid;

	ck_assert(pipe(in) == 0 && pipe(out) == 0);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		unsetenv("FASTIO_DISABLE");
		execl(spawn_path("cat"), "cat", opt, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	ck_assert(write(in[1], "one\n", 4) == 4);
	ck_assert_msg(await(out[0], _i ? "     1\tone\n" : "one\n"),
		      "line 1 did not arrive before line 2 was sent");
	ck_assert(write(in[1], "two\n", 4) == 4);
	ck_assert(await(out[0], _i ? "     2\ttwo\n" : "two\n"));
	close(in[1]);
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(out[0]);
}
END_TEST

/* A file of n copies of the small inputs, returned as a path. */
static char *
big_file(int copies, char **data, size_t *len)
{
	char *one;
	size_t n;
	int i;

	one = joined(small_inputs, &n);
	*data = malloc(n * (size_t)copies);
	for (i = 0; i < copies; i++)
		memcpy(*data + n * (size_t)i, one, n);
	*len = n * (size_t)copies;
	free(one);
	return spawn_temp_path(*data, *len);
}

/*
 * Files of many read buffers, from offset 0 and from an odd offset in
 * stdin (left there by the shell's read), give what the same bytes give
 * through a pipe, whose reads end at other places.
 */
/*
 * A file past 2 GiB (a sparse one: 2 GiB of holes, then "tail\n"),
 * plain and -n, given as an operand and as stdin at its last line: a
 * 32-bit off_t (armhf, i386 without large-file support) refuses to open
 * it with EOVERFLOW. Only the start and, from stdin, the end are read.
 */
START_TEST(past_2gib)
{
	const char *dir = getenv("FIO_BUILDDIR");
	char path[4200], script[8600];
	const char *argv[] = {"sh", "-c", script, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	int fd;

	snprintf(path, sizeof path, "%s/tests/sparse-%d", dir ? dir : ".",
		 (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "tail\n", 5, (off_t)1 << 31), 5);
	close(fd);
	if (_i / 2)
		snprintf(script, sizeof script,
			 "exec < %s && tail -c 5 >/dev/null && exec %s %s",
			 path, spawn_path("cat"), _i % 2 ? "-n" : "");
	else
		snprintf(script, sizeof script,
			 "%s %s %s | head -c 10 | od -An -c", spawn_path("cat"),
			 _i % 2 ? "-n" : "", path);
	s.prog = "/bin/sh";
	s.argv = argv;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	unlink(path);
	ck_assert_msg(r.exited && r.status == 0, "case %d: status %d, '%s'", _i,
		      r.status, r.err);
	ck_assert_str_eq(r.err, "");
	ck_assert_str_eq(r.out, _i / 2 ? ""
				: _i % 2
				    ? "                       1  \\t  \\0  "
				      "\\0  \\0\n"
				    : "  \\0  \\0  \\0  \\0  \\0  \\0  "
				      "\\0  \\0  \\0  \\0\n");
	spawn_free(&r);
}
END_TEST

START_TEST(large_files)
{
	static const char *const sets[] = {"-n", "-A", "-s"};
	const char *set = sets[_i % 3];
	char script[512], *path, *data;
	const char *argv[] = {"sh", "-c", script, NULL};
	const char *piped[] = {"cat", set, NULL};
	struct spawn s = {0}, p = {0};
	struct spawn_result from_file, from_pipe;
	char msg[512];
	size_t len, skip = 0;

	path = big_file(1400, &data, &len); /* about 9.7 MiB */
	if (_i / 3) {
		snprintf(script, sizeof script,
			 "exec < %s && read -r x && exec %s %s", path,
			 spawn_path("cat"), set);
		skip = (size_t)((char *)memchr(data, '\n', len) - data) + 1;
	} else {
		snprintf(script, sizeof script, "exec %s %s %s",
			 spawn_path("cat"), set, path);
	}
	s.prog = "/bin/sh";
	s.argv = argv;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &from_file), 0);
	p.prog = "cat";
	p.argv = piped;
	p.in = IN_PIPE;
	p.in_data = data + skip;
	p.in_len = len - skip;
	p.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&p, &from_pipe), 0);
	ck_assert(from_pipe.out_len > len / 2);
	ck_assert_msg(lines_check(from_file.out, from_file.out_len,
				  from_pipe.out, from_pipe.out_len, 0, msg,
				  sizeof msg) == 0,
		      "%s: %s", set, msg);
	ck_assert_str_eq(from_file.err, "");
	ck_assert(from_file.exited && from_file.status == 0);
	spawn_free(&from_file);
	spawn_free(&from_pipe);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/*
 * cat -n's peak RSS stays within 1 MiB of GNU cat's (the system's
 * /usr/bin/cat), both stopped after 32 MiB of output of a 48 MiB file:
 * into /dev/null, and into a file, where our writer's thread and its
 * buffers run from 8 MiB on (FIO_WRITER_START).
 */
START_TEST(peak_rss)
{
	size_t len = 48u << 20;
	char *data, *path;
	const char *argv[] = {"cat", "-n", NULL, NULL};
	struct spawn s = {0};
	struct spawn_result ours, gnu;
	int i;

	data = spawn_lines(len, "%u: a line of text\n");
	path = spawn_temp_path(data, len);
	argv[2] = path;
	s.argv = argv;
	s.out_max = 32u << 20;
	s.watch_rss = 1;
	for (i = 0; i < 2; i++) {
		s.out = i == 0 ? OUT_DEVNULL : OUT_FILE;
		s.prog = "/usr/bin/cat";
		ck_assert_int_eq(spawn_run(&s, &gnu), 0);
		s.prog = "cat";
		ck_assert_int_eq(spawn_run(&s, &ours), 0);
		ck_assert_uint_gt(gnu.peak_rss_kb, 0);
		ck_assert_msg(ours.peak_rss_kb <= gnu.peak_rss_kb + 1024,
			      "%s: peak RSS %lu KiB, GNU's %lu KiB",
			      i == 0 ? "/dev/null" : "file", ours.peak_rss_kb,
			      gnu.peak_rss_kb);
		spawn_free(&ours);
		spawn_free(&gnu);
	}
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/*
 * Line numbers past 999999 widen the column; the counter is carried in
 * words with a byte-wise slow path, so every carry pattern up to seven
 * digits passes here, through each loop and both input paths.
 */
START_TEST(numbers_widen)
{
	const char *argv[] = {"cat", _i % 2 ? "-n" : "-b", "-", NULL};
	const char *env[] = {scanners[_i / 2], NULL};
	enum { LINES = 2500000 };
	struct spawn s = {0};
	struct spawn_result r;
	char *in = malloc(2 * LINES), *want = malloc(16 * (size_t)LINES);
	char msg[512];
	size_t len = 0;
	int i;

	for (i = 0; i < LINES; i++) {
		in[2 * i] = 'x';
		in[2 * i + 1] = '\n';
		len += (size_t)sprintf(want + len, "%6d\tx\n", i + 1);
	}
	s.prog = "cat";
	s.argv = argv;
	s.env = env;
	s.in = IN_FILE;
	s.in_data = in;
	s.in_len = 2 * LINES;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(
	    lines_check(r.out, r.out_len, want, len, 0, msg, sizeof msg) == 0,
	    "%s: %s", env[0] ? env[0] : "default", msg);
	spawn_free(&r);
	free(in);
	free(want);
}
END_TEST

/*
 * -E shows CR LF as ^M$ also when the CR ends a read (128 KiB, a multiple
 * of the 64-byte block): found by the fuzz harness, the 64-byte loop wrote
 * "\r$" there.
 */
START_TEST(cr_at_read_end)
{
	static const size_t crs[] = {63, 131071, 262143, 4194303, 4325375};
	const char *argv[] = {"cat", "-E", NULL, NULL};
	const char *env[] = {scanners[_i], NULL};
	size_t len = 4325376 + 1000, i, k = 0, n = 0;
	char *in = malloc(len), *want = malloc(2 * len), *path, msg[512];
	struct spawn s = {0};
	struct spawn_result r;

	for (i = 0; i < len; i++)
		in[i] = i % 100 == 99 ? '\n' : 'x';
	for (k = 0; k < sizeof crs / sizeof crs[0]; k++) {
		in[crs[k]] = '\r';
		in[crs[k] + 1] = '\n';
	}
	for (i = 0; i < len; i++) {
		if (in[i] == '\r' && in[i + 1] == '\n') {
			want[n++] = '^';
			want[n++] = 'M';
		} else if (in[i] == '\n') {
			want[n++] = '$';
			want[n++] = '\n';
		} else {
			want[n++] = in[i];
		}
	}
	path = spawn_temp_path(in, len);
	argv[2] = path;
	s.prog = "cat";
	s.argv = argv;
	s.env = env;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(
	    lines_check(r.out, r.out_len, want, n, 0, msg, sizeof msg) == 0,
	    "case %d: %s", _i, msg);
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	unlink(path);
	free(path);
	free(in);
	free(want);
}
END_TEST

/*
 * A file of mib MiB on the build tree's disk, out of the page cache
 * (POSIX_FADV_DONTNEED drops its clean pages); NULL with *why where the
 * file system keeps it in memory anyway (tmpfs).
 */
#define COLD_MIB 128
static char cold_path[4200];

static const char *
cold_file(int mib)
{
	static char block[1 << 16];
	const char *dir = getenv("FIO_BUILDDIR"), *why = NULL;
	struct iovec iov;
	char byte;
	int fd, i;

	snprintf(cold_path, sizeof cold_path, "%s/tests/cold-%d",
		 dir ? dir : ".", (int)getpid());
	fd = open(cold_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return "cannot make a file in the build tree";
	for (i = 0; i < (int)sizeof block; i++)
		block[i] = (char)(i * 7 + i / 251);
	for (i = 0; i < mib * 16 && why == NULL; i++)
		if (write(fd, block, sizeof block) != (ssize_t)sizeof block)
			why = "no room for the file in the build tree";
	if (why == NULL && (fsync(fd) != 0 ||
			    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0))
		why = "the build tree's file system cannot drop a file's pages";
	iov.iov_base = &byte;
	iov.iov_len = 1;
	if (why == NULL && preadv2(fd, &iov, 1, 0, RWF_NOWAIT) == 1)
		why = "the build tree's file system keeps files in memory";
	close(fd);
	if (why != NULL)
		unlink(cold_path);
	return why;
}

/*
 * Drops the cold file from the page cache. Pages still being read ahead
 * for an earlier run cannot be dropped, so the first quarter of the file
 * is read through first: that waits for them.
 */
static void
cold_again(void)
{
	static char buf[1 << 16];
	int fd = open(cold_path, O_RDONLY | O_CLOEXEC);
	size_t i;

	ck_assert_int_ge(fd, 0);
	for (i = 0; i < ((size_t)COLD_MIB << 20) / 4; i += sizeof buf)
		ck_assert_int_eq(read(fd, buf, sizeof buf),
				 (ssize_t)sizeof buf);
	ck_assert_int_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
}

/*
 * Bytes a plain reader takes from the disk to get to offset end: the
 * cold file opened with POSIX_FADV_SEQUENTIAL, as GNU's cat and ours
 * open it, and read in 512 KiB steps. What the kernel reads ahead of
 * such a reader is the kernel's own window, which no cat can shrink.
 */
static unsigned long long
disk_bytes_reading_to(size_t end)
{
	static char buf[1 << 19];
	struct rusage ru;
	size_t at;
	int fd, status;
	pid_t pid;

	cold_again();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fd = open(cold_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 ||
		    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) != 0)
			_exit(1);
		for (at = 0; at < end; at += sizeof buf)
			if (read(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
				_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return (unsigned long long)ru.ru_inblock * 512;
}

/*
 * Bytes our cat read from the disk (its rusage's blocks) in
 * `cat FILE | head -c 1M`, the file out of the page cache first, and in
 * *pipe_size the size cat gave its output pipe.
 */
static unsigned long long
disk_bytes_for_1mib(size_t *pipe_size)
{
	static char buf[1 << 16];
	struct rusage ru;
	size_t got = 0;
	ssize_t n;
	int p[2], status;
	pid_t pid;

	cold_again();
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(spawn_path("cat"), "cat", cold_path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (got < (1u << 20) &&
	       (n = read(p[0], buf,
			 (1u << 20) - got < sizeof buf ? (1u << 20) - got
						       : sizeof buf)) > 0)
		got += (size_t)n;
	*pipe_size = (size_t)fcntl(p[0], F_GETPIPE_SZ);
	close(p[0]);
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	ck_assert_uint_eq(got, 1u << 20);
	return (unsigned long long)ru.ru_inblock * 512;
}

/*
 * What cat reads of a cold file stays bounded by what its output takes.
 * As `head -c 1M` stops after 1 MiB of a 128 MiB file, our cat can have
 * read no further than that 1 MiB, its full output pipe and its private
 * pipe of the same size. It may take from the disk what a plain
 * sequential reader that got as far takes (the kernel's read-ahead,
 * which grows with the position: 6 MiB at 2 MiB, 14 MiB at 2.5 MiB with
 * read_ahead_kb 8192), plus room for one window of 2 MiB of its own, and
 * never a quarter of the file.
 */
START_TEST(cold_window)
{
	unsigned long long ours, plain;
	size_t pipe_size;

	ck_assert_ptr_null(cold_file(COLD_MIB));
	ours = disk_bytes_for_1mib(&pipe_size);
	ck_assert_uint_gt(pipe_size, 0);
	plain = disk_bytes_reading_to((1u << 20) + 2 * pipe_size);
	unlink(cold_path);
	ck_assert_msg(ours <= plain + (2u << 20) &&
			  ours < ((unsigned long long)COLD_MIB << 20) / 4,
		      "read %llu bytes from the disk for 1 MiB; a plain "
		      "reader %llu",
		      ours, plain);
}
END_TEST

static const char *
need_disk(void)
{
	/* 1 MiB shows whether the file system drops a file's pages. */
	const char *why = cold_file(1);

	unlink(cold_path);
	return why;
}

/* cold_window: a file system on a disk and a native run. */
static spawn_need *const cold[] = {need_disk, spawn_need_native, NULL};
static spawn_need *const pty[] = {spawn_need_pty, NULL};

/* peak_rss: GNU's cat to compare with, a native run and real RSS. */
static spawn_need *const rss[] = {spawn_need_gnu_cat, spawn_need_native,
				  spawn_need_unsanitized, NULL};

static Suite *
cat_suite(void)
{
	Suite *s = suite_create("cat");
	TCase *tc = tcase_create("cat");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, option_matrix, 0, 4 * 67);
	tcase_add_loop_test(tc, large_files, 0, 6);
	tcase_add_loop_test(tc, past_2gib, 0, 4);
	tcase_add_loop_test(tc, cr_at_read_end, 0, 4);
	tcase_add_loop_test(tc, numbers_widen, 0, 6);
	tcase_add_loop_test(tc, kinds_matrix, 0, NKINDS);
	tcase_add_loop_test(tc, big_lines, 0, 12);
	tcase_add_loop_test(tc, refusing_outputs, 0, NOUT_CASES * 2 * NFORCED);
	tcase_add_loop_test(tc, broken_pipe, 0, 4 * NFORCED);
	tcase_add_loop_test(tc, errors, 0, NERRORS * NFORCED);
	tcase_add_loop_test(tc, options, 0, NOPTIONS);
	tcase_add_loop_test(tc, pseudo_files, 0, 2 * NFORCED);
	tcase_add_loop_test(tc, sysfs_file, 0, NFORCED);
	tcase_add_loop_test(tc, interactive_flush, 0, 2);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "rss", peak_rss, 1, rss);
	suite_add_needing(s, "cold", cold_window, 1, cold);
	suite_add_needing(s, "tty", tty_kinds, 3 * 3 * NFORCED, pty);
	return s;
}

int
main(void)
{
	return suite_main(cat_suite());
}
