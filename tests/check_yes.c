/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/tune.h"
#include "spawn.h"

#define MIB ((size_t)1 << 20)
/* Bytes verified line by line per stream: many pipefuls of 1 MiB. */
#define STREAM	 (16 * MIB)
#define MAX_ARGS 4100

/*
 * Each strategy forced in turn; NULL leaves libfastio's own choice: the
 * start's write()s, then the rounds' first shape, vmsplice(). Each
 * zero-copy strategy also from the first byte ("start" disabled). The
 * rounds' shapes too (shape.h): vmsplice() held (the probe off), the two
 * tee() sources, each through the middle pipe and straight into the
 * output, and a new shape every round (FASTIO_FORCE=probe; its changes
 * under strace: shape_changes below), again with the 64 KiB pages of
 * ppc64el (FASTIO_PAGE_SIZE).
 */
static const char *const forced[][3] = {
    {NULL, NULL, NULL},
    {"FASTIO_DISABLE=start", NULL, NULL},
    {"FASTIO_DISABLE=tee", NULL, NULL},
    {"FASTIO_DISABLE=start,tee", NULL, NULL},
    {"FASTIO_DISABLE=all", NULL, NULL},
    {"FASTIO_DISABLE=probe", NULL, NULL},
    {"FASTIO_DISABLE=hotpage,vmsplice", NULL, NULL},
    {"FASTIO_DISABLE=pages", NULL, NULL},
    {"FASTIO_DISABLE=hotpage,middle,vmsplice", NULL, NULL},
    {"FASTIO_DISABLE=pages,direct", NULL, NULL},
    {"FASTIO_FORCE=probe", NULL, NULL},
    {"FASTIO_DISABLE=probe", "FASTIO_PAGE_SIZE=65536", NULL},
    {"FASTIO_DISABLE=hotpage,vmsplice", "FASTIO_PAGE_SIZE=65536", NULL},
    {"FASTIO_DISABLE=pages", "FASTIO_PAGE_SIZE=65536", NULL},
    {"FASTIO_FORCE=probe", "FASTIO_PAGE_SIZE=65536", NULL},
};
#define NFORCED (int)(sizeof forced / sizeof forced[0])

static const char *
forced_name(int i)
{
	static const char *const names[NFORCED] = {
	    "start-rounds",   "rounds",	      "start-vmsplice",
	    "vmsplice",	      "write",	      "vmsplice-shape",
	    "tee-pages",      "tee-hot",      "tee-pages-direct",
	    "tee-hot-middle", "probe-forced", "vmsplice-shape-64k",
	    "tee-pages-64k",  "tee-hot-64k",  "probe-forced-64k"};
	return names[i];
}

struct yes_run {
	const char *argv[MAX_ARGS + 2];
	char *storage;
	char *line; /* what one repetition should be */
	size_t line_len;
};

/* argv for yes with n arguments (or one argument making a size-byte line). */
static void
yes_args(struct yes_run *y, size_t size, int nargs)
{
	size_t i, len = 0;
	char *p;
	int a;

	y->argv[0] = "yes";
	if (nargs == 0) { /* one argument, size - 1 varied bytes */
		y->storage = p = malloc(size);
		for (i = 0; i + 1 < size; i++)
			p[i] = (char)('a' + (i * 7 + i / 26) % 26);
		p[size - 1] = '\0';
		y->argv[1] = p;
		y->argv[2] = NULL;
		nargs = 1;
	} else {
		y->storage = p = malloc((size_t)nargs * 8);
		for (a = 0; a < nargs; a++) {
			y->argv[a + 1] = p;
			p += sprintf(p, "w%d", a) + 1;
		}
		y->argv[nargs + 1] = NULL;
	}
	for (a = 1; a <= nargs; a++)
		len += strlen(y->argv[a]) + 1;
	y->line = p = malloc(len);
	for (a = 1; a <= nargs; a++) {
		i = strlen(y->argv[a]);
		memcpy(p, y->argv[a], i);
		p += i;
		*p++ = a == nargs ? '\n' : ' ';
	}
	y->line_len = len;
}

static void
yes_free(struct yes_run *y)
{
	free(y->storage);
	free(y->line);
}

static void
assert_stream(const struct spawn_result *r, const struct yes_run *y,
	      size_t expect_len)
{
	char msg[512];

	ck_assert_msg(lines_check(r->out, r->out_len, y->line, y->line_len, 1,
				  msg, sizeof msg) == 0,
		      "%s", msg);
	if (expect_len)
		ck_assert_uint_eq(r->out_len, expect_len);
}

/* Line sizes that straddle pages, pipe slots and chunk boundaries. */
static const size_t sizes[] = {1,    2,	   3,	 4095,	4096,
			       4097, 8191, 8192, 65537, 131071};
#define NSIZES	  (int)(sizeof sizes / sizeof sizes[0])
#define NPATTERNS (NSIZES + 2) /* + 1 argument "y" default + 4000 args */

static void
pattern_case(struct yes_run *y, int k)
{
	if (k < NSIZES)
		yes_args(y, sizes[k], 0);
	else if (k == NSIZES)
		yes_args(y, 0, 4000);
	else {
		yes_args(y, 2, 0); /* overwritten: no operand at all */
		y->argv[1] = NULL;
		memcpy(y->line, "y\n", 2);
	}
}

START_TEST(stream_matrix)
{
	int kind = _i % 2, strategy = _i / 2 % NFORCED,
	    pattern = _i / 2 / NFORCED;
	struct spawn s = {0};
	struct spawn_result r;
	struct yes_run y;

	pattern_case(&y, pattern);
	spawn_init(&s, "yes", y.argv, forced[strategy],
		   kind ? OUT_SPLICE_PIPE : OUT_PIPE);
	s.out_max = STREAM;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.signaled && r.signal == SIGPIPE,
		      "strategy %s, pattern %d: not killed by SIGPIPE",
		      forced_name(strategy), pattern);
	ck_assert_str_eq(r.err, "");
	assert_stream(&r, &y, STREAM);
	spawn_free(&r);
	yes_free(&y);
}
END_TEST

/*
 * Outputs that are not plain pipes, with the default strategy: _i / 2 is
 * the kind, _i % 2 the line's length. A terminal (the last kind) is a
 * case of its own: a chroot without /dev/pts has none.
 */
static const enum spawn_out other_kinds[] = {OUT_SOCKET, OUT_FILE,
					     OUT_NONBLOCK_PIPE, OUT_PTY};
#define NOTHER (int)(sizeof other_kinds / sizeof other_kinds[0])

static void
other_output(int i)
{
	static const char *const errors[] = {
	    "",
	    "yes: standard output: File too large\n",
	    "yes: standard output: Resource temporarily unavailable\n",
	    "yes: standard output: Input/output error\n",
	};
	const enum spawn_out *kinds = other_kinds;
	int k = i / 2;
	struct spawn s = {0};
	struct spawn_result r;
	struct yes_run y;

	yes_args(&y, i % 2 ? 4097 : 2, 0);
	spawn_init(&s, "yes", y.argv, NULL, kinds[k]);
	s.out_max = kinds[k] == OUT_NONBLOCK_PIPE ? 0 : STREAM;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	/*
	 * A Unix socket closed with unread data resets the connection: the
	 * writer sees ECONNRESET rather than EPIPE, depending on timing, and
	 * reports it as GNU does. Once (in hundreds of runs) yes exited after
	 * an EPIPE that came without its SIGPIPE; GNU makes the same write
	 * and would print the same, so that is accepted too.
	 */
	if (kinds[k] == OUT_SOCKET && r.exited)
		ck_assert_msg(
		    strcmp(
			r.err,
			"yes: standard output: Connection reset by peer\n") ==
			    0 ||
			strcmp(r.err, "yes: standard output: Broken pipe\n") ==
			    0,
		    "'%s'", r.err);
	else
		ck_assert_str_eq(r.err, errors[k]);
	if (kinds[k] == OUT_SOCKET)
		ck_assert((r.signaled && r.signal == SIGPIPE) ||
			  (r.exited && r.status == 1));
	else
		ck_assert(r.exited && r.status == 1);
	assert_stream(&r, &y, kinds[k] == OUT_NONBLOCK_PIPE ? 0 : STREAM);
	/* Non-blocking: it wrote until the pipe was full, then gave up. */
	if (kinds[k] == OUT_NONBLOCK_PIPE)
		ck_assert_uint_ge(r.out_len, 4096);
	spawn_free(&r);
	yes_free(&y);
}

START_TEST(other_outputs)
{
	other_output(_i);
}
END_TEST

START_TEST(tty_output)
{
	other_output(_i + 2 * (NOTHER - 1));
}
END_TEST

/*
 * /dev/null gets real writes (no special case: spawn stops yes once
 * /proc/PID/io counts 256 MiB written), and memory stays small (memory:
 * its peak RSS, which only a native run shows).
 */
static void
devnull_run(int memory)
{
	struct spawn s = {0};
	struct spawn_result r;

	s.prog = "yes";
	s.out = OUT_DEVNULL;
	s.out_max = 256 * MIB;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert(r.signaled && r.signal == SIGTERM);
	ck_assert_str_eq(r.err, "");
	if (memory) {
		ck_assert_uint_gt(r.peak_rss_kb, 0);
		ck_assert_uint_lt(r.peak_rss_kb, 16 * 1024);
	}
	spawn_free(&r);
}

START_TEST(devnull_writes)
{
	devnull_run(0);
}
END_TEST

START_TEST(devnull_memory)
{
	devnull_run(1);
}
END_TEST

static const struct error_case {
	const char *arg;
	enum spawn_out out;
	int ignore_sigpipe;
	const char *err; /* NULL: killed by SIGPIPE, nothing printed */
} error_cases[] = {
    {NULL, OUT_DEVFULL, 0, "yes: standard output: No space left on device\n"},
    {NULL, OUT_CLOSED, 0, "yes: standard output: Bad file descriptor\n"},
    {NULL, OUT_PIPE, 1, "yes: standard output: Broken pipe\n"},
    {NULL, OUT_PIPE, 0, NULL},
    {NULL, OUT_SPLICE_PIPE, 1, "yes: standard output: Broken pipe\n"},
    {"--help", OUT_DEVFULL, 0, "yes: write error: No space left on device\n"},
    {"--help", OUT_CLOSED, 0, "yes: write error: Bad file descriptor\n"},
    {"--version", OUT_DEVFULL, 0,
     "yes: write error: No space left on device\n"},
    {"--version", OUT_CLOSED, 0, "yes: write error: Bad file descriptor\n"},
};
#define NERRORS (int)(sizeof error_cases / sizeof error_cases[0])

START_TEST(errors)
{
	const struct error_case *c = &error_cases[_i / NFORCED];
	const char *argv[] = {"yes", c->arg, NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "yes", argv, forced[_i % NFORCED], c->out);
	s.out_max = 64 * 1024;
	s.ignore_sigpipe = c->ignore_sigpipe;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	if (c->err == NULL) {
		ck_assert(r.signaled && r.signal == SIGPIPE);
		ck_assert_str_eq(r.err, "");
	} else {
		ck_assert_str_eq(r.err, c->err);
		ck_assert(r.exited && r.status == 1);
	}
	spawn_free(&r);
}
END_TEST

#define HELP_TAIL                                                              \
	"Repeatedly output a line with all specified STRING(s), or 'y'.\n"     \
	"\n"                                                                   \
	"      --help\n"                                                       \
	"         display this help and exit\n"                                \
	"      --version\n"                                                    \
	"         output version information and exit\n"                       \
	"\n"                                                                   \
	"This yes is part of fastio-utils, a faster drop-in for GNU "          \
	"coreutils' yes.\n"                                                    \
	"Full documentation: man " YES_PAGE "\n"
#define HELP "Usage: yes [STRING]...\n  or:  yes OPTION\n" HELP_TAIL
#define VERSION_TEXT                                                           \
	"yes (fastio-utils) " PACKAGE_VERSION "\n"                             \
	"Copyright (C) 2026 the fastio-utils authors.\n"                       \
	"License MIT: <https://opensource.org/licenses/MIT>.\n"                \
	"This is free software: you are free to change and redistribute it.\n" \
	"There is NO WARRANTY, to the extent permitted by law.\n"
#define TRY "Try 'yes --help' for more information.\n"

static const struct option_case {
	const char *argv[5];
	int posixly_correct;
	const char *out; /* exact text, or the line repeated if it ends "\n" and
			  * repeat is set */
	int repeat;
	const char *err;
	int status; /* -1: killed by SIGPIPE */
} option_cases[] = {
    {{"--help"}, 0, HELP, 0, "", 0},
    {{"--h"}, 0, HELP, 0, "", 0},
    {{"--he"}, 0, HELP, 0, "", 0},
    {{"--version"}, 0, VERSION_TEXT, 0, "", 0},
    {{"--v"}, 0, VERSION_TEXT, 0, "", 0},
    {{"--ver"}, 0, VERSION_TEXT, 0, "", 0},
    {{"a", "--help", "b"}, 0, HELP, 0, "", 0},
    {{"--help", "-n"}, 0, HELP, 0, "", 0},
    {{"--version", "--help"}, 0, VERSION_TEXT, 0, "", 0},
    {{"-n", "--help"}, 0, "", 0, "yes: invalid option -- 'n'\n" TRY, 1},
    {{"-n"}, 0, "", 0, "yes: invalid option -- 'n'\n" TRY, 1},
    {{"--foo"}, 0, "", 0, "yes: unrecognized option '--foo'\n" TRY, 1},
    {{"--help=x"},
     0,
     "",
     0,
     "yes: option '--help' doesn't allow an argument\n" TRY,
     1},
    {{"--versionx"},
     0,
     "",
     0,
     "yes: unrecognized option '--versionx'\n" TRY,
     1},
    {{NULL}, 0, "y\n", 1, "", -1},
    {{"--"}, 0, "y\n", 1, "", -1},
    {{"-"}, 0, "-\n", 1, "", -1},
    {{"a", "--", "b"}, 0, "a b\n", 1, "", -1},
    {{"--", "--help"}, 0, "--help\n", 1, "", -1},
    {{"a", "--", "--", "b"}, 0, "a -- b\n", 1, "", -1},
    {{"a", "--", "b", "--help"}, 0, "a b --help\n", 1, "", -1},
    {{"a", "", "b"}, 0, "a  b\n", 1, "", -1},
    {{""}, 0, "\n", 1, "", -1},
    {{"a b", "c\nd"}, 0, "a b c\nd\n", 1, "", -1},
    {{"a", "--help"}, 1, "a --help\n", 1, "", -1},
    {{"--help", "a"}, 1, HELP, 0, "", 0},
    {{"a", "-n"}, 1, "a -n\n", 1, "", -1},
};
#define NOPTIONS (int)(sizeof option_cases / sizeof option_cases[0])

START_TEST(options)
{
	const struct option_case *c = &option_cases[_i];
	const char *argv[7] = {"yes"};
	const char *env[] = {"POSIXLY_CORRECT=1", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512];
	int i;

	for (i = 0; i < 5 && c->argv[i]; i++)
		argv[i + 1] = c->argv[i];
	spawn_init(&s, "yes", argv, c->posixly_correct ? env : NULL, OUT_PIPE);
	s.out_max = c->repeat ? 65536 : 0;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(lines_check(r.out, r.out_len, c->out, strlen(c->out),
				  c->repeat, msg, sizeof msg) == 0,
		      "case %d: %s", _i, msg);
	ck_assert_str_eq(r.err, c->err);
	if (c->status < 0)
		ck_assert(r.signaled && r.signal == SIGPIPE);
	else
		ck_assert(r.exited && r.status == c->status);
	spawn_free(&r);
}
END_TEST

/* Messages name the program as invoked, as GNU's do. */
START_TEST(program_name_as_invoked)
{
	const char *argv[] = {"/some/where/yes", "-x", NULL};
	struct spawn s = {0};
	struct spawn_result r;

	spawn_init(&s, "yes", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, "/some/where/yes: invalid option -- 'x'\n"
				"Try '/some/where/yes --help' for more "
				"information.\n");
	spawn_free(&r);
	argv[1] = NULL;
	s.out = OUT_DEVFULL;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, "/some/where/yes: standard output: No space "
				"left on device\n");
	spawn_free(&r);
}
END_TEST

/*
 * GNU's own tests run yes under `ulimit -v` a little above what --version
 * needs. Ours must still work there; with only 1 MiB of headroom the big
 * mapping is refused and the small-buffer write() path takes over, into a
 * pipe and into a file (whose bigger write size must not outrun it).
 */
START_TEST(address_space_limit)
{
	static const unsigned long headroom[] = {15 * 1000 * 1000, MIB};
	unsigned long hi;
	struct spawn s = {0};
	struct spawn_result r;
	struct yes_run y;

#ifdef FIO_SANITIZED
	/* AddressSanitizer reserves terabytes of address space: no limit
	 * near --version's needs can hold, so nothing to check here. */
	return;
#endif
	hi = spawn_version_needs("yes");
	yes_args(&y, 4097, 0);
	spawn_init(&s, "yes", y.argv, NULL, _i / 2 ? OUT_FILE : OUT_PIPE);
	s.out_max = 4 * MIB;
	s.vm_limit = hi + headroom[_i % 2];
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, s.out == OUT_FILE
				    ? "yes: standard output: File too large\n"
				    : "");
	assert_stream(&r, &y, 4 * MIB);
	spawn_free(&r);
	yes_free(&y);
}
END_TEST

/*
 * The tee() shapes (tee.c, shape.h; vmsplice() off), changed at every round by
 * FASTIO_FORCE=probe, under strace (its seccomp filter stops only at tee
 * and pipe2), into two readers made independent of timing: "bites" reads
 * 128 KiB at a time, and only from a full pipe; "gulps" waits for a full
 * pipe and empties it in one splice. The bitten bytes are checked across
 * every change of shape. strace shows the hot source being built (a
 * non-blocking tee() into a pipe of its own, its filling) first, as the first
 * shape has it, the written source being filled (writes of many pages into a
 * pipe of its own) and the rounds tee()d straight into standard output;
 * FASTIO_DISABLE takes each kind away. A change that fails (strace injects the
 * failure into a pipe2 the change makes) keeps the stream whole.
 */
#define SHAPE_BYTES (40 * MIB)
/* A full 1 MiB pipe: every slot a whole page. */
#define FULL MIB

enum hot_when { NEVER, FROM_START, ANY };

static const struct {
	int bites;
	const char *disable, *inject;
	enum hot_when hot;
	int written; /* the written source filled: 1, 0, -1 either */
	int direct;  /* rounds tee()d straight into standard output: 1 some,
		      * 0 none, -1 either */
} shapes[] = {
    {1, NULL, NULL, FROM_START, 1, 1},
    {0, NULL, NULL, FROM_START, 1, 1},
    {1, "hotpage", NULL, NEVER, 1, 1},
    {0, "pages", NULL, FROM_START, 0, 1},
    {1, "direct", NULL, FROM_START, 1, 0},
    {0, "direct,hotpage", NULL, NEVER, 1, 0},
    {1, NULL, "inject=pipe2:error=EMFILE:when=5", ANY, -1, -1},
    {0, NULL, "inject=pipe2:error=ENFILE:when=6+", ANY, -1, -1},
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

struct traced {
	unsigned rounds_before; /* tees before the hot source's first */
	unsigned hot;		/* the hot source's tees */
	unsigned written;	/* writes of the written source's filling */
	unsigned direct;	/* tees into standard output */
	unsigned injected;
};

static void
read_log(const char *log, struct traced *t)
{
	char line[512], *call, *eq;
	FILE *f = fopen(log, "r");
	int out;

	ck_assert_ptr_nonnull(f);
	memset(t, 0, sizeof *t);
	while (fgets(line, sizeof line, f)) {
		call = line + strspn(line, "0123456789 ");
		eq = strrchr(call, '=');
		if (strstr(line, "(INJECTED)") != NULL) {
			t->injected++;
		} else if (strncmp(call, "write(", 6) == 0) {
			/* Many pages at once into a pipe of its own. */
			if (strncmp(call, "write(1,", 8) != 0 && eq != NULL &&
			    atol(eq + 1) >= 65536)
				t->written++;
		} else if (strncmp(call, "tee(", 4) == 0) {
			/* A round into a full pipe is tried non-blocking
			 * too (the spin): the filling's tees go elsewhere. */
			out = strncmp(call + 4 + strcspn(call + 4, ","), ", 1,",
				      4) == 0;
			if (!out && strstr(call, "SPLICE_F_NONBLOCK") != NULL)
				t->hot++;
			else if (t->hot == 0)
				t->rounds_before++;
			if (out)
				t->direct++;
		}
	}
	fclose(f);
}

/* The child: yes under strace, its stdout the pipe's end out. */
static _Noreturn void
traced_yes(int out, int in, int i, const char *log)
{
	const char *argv[16] = {"strace", "-f", "-qq", "--seccomp-bpf",
				"-o",	  log,	"-e",  "trace=tee,pipe2,write"};
	char disable[64];
	int n = 8;

	signal(SIGPIPE, SIG_DFL); /* the harness may ignore it */
	dup2(out, 1);
	close(out);
	close(in);
	/* The tee() rounds from the first byte, a new shape every round. */
	snprintf(disable, sizeof disable, "start,vmsplice,%s",
		 shapes[i].disable ? shapes[i].disable : "");
	setenv("FASTIO_DISABLE", disable, 1);
	setenv("FASTIO_FORCE", "probe", 1);
	/* LeakSanitizer stops the world with ptrace, which strace holds. */
	setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
	if (shapes[i].inject != NULL) {
		argv[n++] = "-e";
		argv[n++] = shapes[i].inject;
	}
	argv[n++] = spawn_path("yes");
	argv[n] = NULL;
	execv(SPAWN_STRACE, (char *const *)argv);
	_exit(127);
}

START_TEST(shape_changes)
{
	int p[2], devnull, status;
	char *log, *buf, msg[256];
	size_t moved = 0;
	struct traced t;
	ssize_t k, held;
	pid_t pid;

	spawn_mib_pipe(p);
	log = spawn_temp_path("", 0);
	buf = malloc(MIB / 8);
	ck_assert_ptr_nonnull(buf);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		traced_yes(p[1], p[0], _i, log);
	close(p[1]);
	devnull = open("/dev/null", O_WRONLY);
	ck_assert_int_ge(devnull, 0);
	while (moved < SHAPE_BYTES) {
		held = spawn_wait_pipe(p[0], FULL);
		ck_assert_int_eq(held, (ssize_t)FULL);
		if (shapes[_i].bites) {
			k = read(p[0], buf, FULL / 8);
			ck_assert_int_eq(k, (ssize_t)(FULL / 8));
			if (lines_check(buf, FULL / 8, "y\n", 2, 1, msg,
					sizeof msg) != 0)
				break;
		} else {
			k = splice(p[0], NULL, devnull, NULL, MIB, 0);
			ck_assert_int_eq(k, (ssize_t)held);
		}
		moved += (size_t)k;
	}
	ck_assert_msg(moved >= SHAPE_BYTES, "at byte %zu: %s", moved, msg);
	close(p[0]);
	close(devnull);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	read_log(log, &t);
	ck_assert_uint_eq(t.injected > 0, shapes[_i].inject != NULL);
	switch (shapes[_i].hot) {
	case FROM_START:
		ck_assert_uint_eq(t.rounds_before, 0);
		ck_assert_uint_gt(t.hot, 0);
		break;
	case NEVER:
		ck_assert_uint_eq(t.hot, 0);
		break;
	case ANY:
		break;
	}
	if (shapes[_i].written >= 0)
		ck_assert_msg((t.written > 0) == shapes[_i].written,
			      "%u writes of the written source", t.written);
	if (shapes[_i].direct >= 0)
		ck_assert_msg((t.direct > 0) == shapes[_i].direct,
			      "%u tees into standard output", t.direct);
	unlink(log);
	free(log);
	free(buf);
}
END_TEST

/*
 * The hot source's rounds take its two pages in turn (tee.c, fill_hot):
 * one shape only (hot, through the middle pipe), under strace, the
 * rounds' tee()s (blocking, into the middle pipe; the filling's are
 * non-blocking) come from two source pipes, never the same one twice in
 * a row. Then the pipe2() that made the second is failed: the first
 * serves alone, and the stream is whole either way.
 */
#define TURN_BYTES (24 * MIB)

struct turns {
	int fd[2];	  /* the rounds' sources, in order of first use */
	unsigned rounds;  /* the rounds' tee()s */
	unsigned repeats; /* rounds from the source of the round before */
	unsigned second;  /* the pipe2() call (from 1) that made fd[1] */
	unsigned injected;
};

static void
read_turns(const char *log, struct turns *t)
{
	char line[512], *call;
	unsigned pipes = 0, made[64] = {0}; /* made[fd]: its pipe2() */
	int last = -1, a, r, w;
	FILE *f = fopen(log, "r");

	ck_assert_ptr_nonnull(f);
	memset(t, 0, sizeof *t);
	t->fd[0] = t->fd[1] = -1;
	while (fgets(line, sizeof line, f)) {
		call = line + strspn(line, "0123456789 ");
		if (strstr(line, "(INJECTED)") != NULL) {
			t->injected++;
			pipes++;
		} else if (sscanf(call, "pipe2([%d, %d]", &r, &w) == 2) {
			pipes++;
			if (r >= 0 && r < 64)
				made[r] = pipes;
		} else if (sscanf(call, "tee(%d,", &a) == 1 &&
			   strstr(call, "SPLICE_F_NONBLOCK") == NULL) {
			t->rounds++;
			t->repeats += a == last;
			last = a;
			if (t->fd[0] < 0) {
				t->fd[0] = a;
			} else if (t->fd[1] < 0 && a != t->fd[0]) {
				t->fd[1] = a;
				t->second = a < 64 ? made[a] : 0;
			}
		}
	}
	fclose(f);
}

/* yes under strace, one shape, the nth pipe2() failed if n > 0. */
static void
run_turns(unsigned n, struct turns *t)
{
	static const char *const env[] = {
	    "FASTIO_DISABLE=start,vmsplice,pages,direct,probe",
	    "ASAN_OPTIONS=detect_leaks=0", NULL};
	const char *argv[12] = {"strace", "-f", "-qq", "--seccomp-bpf",
				"-o",	  NULL, "-e",  "trace=tee,pipe2"};
	char inject[64], msg[256], *log = spawn_temp_path("", 0), *buf;
	size_t moved = 0;
	int out, status, i = 8;
	ssize_t k;
	pid_t pid;

	buf = malloc(MIB / 8);
	ck_assert_ptr_nonnull(buf);
	argv[5] = log;
	snprintf(inject, sizeof inject, "inject=pipe2:error=EMFILE:when=%u", n);
	if (n > 0) {
		argv[i++] = "-e";
		argv[i++] = inject;
	}
	argv[i] = spawn_path("yes");
	pid = spawn_piped(SPAWN_STRACE, argv, env, -1, &out);
	while (moved < TURN_BYTES && (k = read(out, buf, MIB / 8)) > 0 &&
	       k % 2 == 0) {
		ck_assert_msg(lines_check(buf, (size_t)k, "y\n", 2, 1, msg,
					  sizeof msg) == 0,
			      "at byte %zu: %s", moved, msg);
		moved += (size_t)k;
	}
	ck_assert_uint_ge(moved, TURN_BYTES);
	close(out);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	read_turns(log, t);
	unlink(log);
	free(log);
	free(buf);
}

START_TEST(hot_turns)
{
	struct turns t, one;

	run_turns(0, &t);
	ck_assert_uint_ge(t.rounds, 10);
	ck_assert_int_ge(t.fd[1], 0);
	ck_assert_uint_eq(t.repeats, 0);
	ck_assert_uint_gt(t.second, 0);
	run_turns(t.second, &one);
	ck_assert_uint_eq(one.injected, 1);
	ck_assert_uint_ge(one.rounds, 10);
	ck_assert_int_lt(one.fd[1], 0);
}
END_TEST

static spawn_need *const strace[] = {spawn_need_strace, NULL};
static spawn_need *const native[] = {spawn_need_native, NULL};
static spawn_need *const pty[] = {spawn_need_pty, NULL};

static Suite *
yes_suite(void)
{
	Suite *s = suite_create("yes");
	TCase *tc;

	tc = tcase_create("streams");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, stream_matrix, 0, 2 * NFORCED * NPATTERNS);
	tcase_add_loop_test(tc, other_outputs, 0, 2 * (NOTHER - 1));
	tcase_add_test(tc, devnull_writes);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, errors, 0, NERRORS * NFORCED);
	tcase_add_loop_test(tc, options, 0, NOPTIONS);
	tcase_add_test(tc, program_name_as_invoked);
	tcase_add_loop_test(tc, address_space_limit, 0, 4);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "shapes", shape_changes, NSHAPES, strace);
	suite_add_needing(s, "hot turns", hot_turns, 1, strace);
	suite_add_needing(s, "memory", devnull_memory, 1, native);
	suite_add_needing(s, "tty", tty_output, 2, pty);
	return s;
}

int
main(void)
{
	return suite_main(yes_suite());
}
