/* SPDX-License-Identifier: MIT */
/*
 * cat against GNU's bytes (tests/golden): every set of the formatting
 * options over the small inputs and every kind of input and output, each
 * strategy forced in turn; outputs that refuse the kernel's calls, a
 * broken pipe; every error message, option parsing; line numbers that
 * widen, a CR at a read's end.
 */
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

#include "check_cat.h"
#include "spawn.h"

#define TRY	 "Try 'cat --help' for more information.\n"
#define MAX_ARGV 24

static const char *const big_sets[] = {"A", "nsE", "T"};

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
	want = spawn_slurp(golden_path("out", golden), &want_len);
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	snprintf(what, sizeof what, "cat %s, %s", set,
		 env[0] ? env[0] : "default loop");
	spawn_check_output(&r, want, want_len, what);
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
		want = golden_joined(small_inputs, &want_len);
		part = golden_joined(big_inputs, &n);
		want = realloc(want, want_len + n);
		memcpy(want + want_len, part, n);
		want_len += n;
		free(part);
	} else {
		argv[nargs++] = set == 1 ? "-A" : "-nsE";
		want = spawn_slurp(
		    golden_path("out", set == 1 ? "small-A" : "big-nsE"),
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
			part = golden_joined(lists[l], &n);
			data = realloc(data, len + n);
			memcpy(data + len, part, n);
			len += n;
			free(part);
		}
	}
	argv[nargs] = NULL;
	spawn_init(&s, "cat", argv, forced[force], out);
	spawn_feed(&s,
		   in == 0   ? IN_DEVNULL
		   : in == 1 ? IN_FILE
			     : IN_PIPE,
		   data, len);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	snprintf(what, sizeof what, "set %d, input %d, output %d, forced %d",
		 set, in, (int)out, force);
	spawn_check_output(&r, want, want_len, what);
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
	want = spawn_slurp(golden_path("out", golden), &want_len);
	data = golden_joined(big_inputs, &len);
	argv[1] = opt;
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	spawn_feed(&s, IN_PIPE, data, len);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	spawn_check_output(&r, want, want_len, golden);
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
		big = golden_joined(big_inputs, &len);
		big = realloc(big, len * 28);
		for (i = 1; i < 28; i++)
			memcpy(big + len * (size_t)i, big, len);
		argv[n++] = "-";
		spawn_feed(&s, IN_FILE, big, len * 28);
	}
	argv[n] = NULL;
	spawn_init(&s, "cat", argv, forced[force], c->out);
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

	data = golden_joined(big_inputs, &len);
	data = realloc(data, len * 28);
	for (i = 1; i < 28; i++)
		memcpy(data + len * (size_t)i, data, len);
	spawn_init(&s, "cat", argv, forced[force], OUT_PIPE);
	spawn_feed(&s, IN_FILE, data, len * 28);
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
	spawn_init(&s, "/bin/sh", argv, env, OUT_PIPE);
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
	spawn_init(&s, "cat", argv, c->posixly_correct ? env : NULL, OUT_PIPE);
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
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	spawn_feed(&s, IN_FILE, in, 2 * LINES);
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
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
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

static spawn_need *const pty[] = {spawn_need_pty, NULL};

static Suite *
cat_suite(void)
{
	Suite *s = suite_create("cat");
	TCase *tc = tcase_create("cat");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, option_matrix, 0, 4 * 67);
	tcase_add_loop_test(tc, cr_at_read_end, 0, 4);
	tcase_add_loop_test(tc, numbers_widen, 0, 6);
	tcase_add_loop_test(tc, kinds_matrix, 0, NKINDS);
	tcase_add_loop_test(tc, big_lines, 0, 12);
	tcase_add_loop_test(tc, refusing_outputs, 0, NOUT_CASES * 2 * NFORCED);
	tcase_add_loop_test(tc, broken_pipe, 0, 4 * NFORCED);
	tcase_add_loop_test(tc, errors, 0, NERRORS * NFORCED);
	tcase_add_loop_test(tc, options, 0, NOPTIONS);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "tty", tty_kinds, 3 * 3 * NFORCED, pty);
	return s;
}

int
main(void)
{
	return suite_main(cat_suite());
}
