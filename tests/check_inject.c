/* SPDX-License-Identifier: MIT */
/*
 * The fault matrix: every program and path, with a chosen call failing
 * (tests/inject.c, preloaded) with each errno or a short count, the first
 * time or a later time. Whatever happens, the output is a prefix of the
 * right output; the run either completes with exactly the right output and
 * nothing on stderr, or ends with status 1 and GNU's one message for the
 * failing side. Refusals before the first byte, EINTR, short counts and
 * failures of optional calls (pipe, F_SETPIPE_SZ, mmap) must complete.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define MIB ((size_t)1 << 20)

enum side { INPUT, OUTPUT, EITHER };

/* A program, a path through it, and the calls that path makes. */
struct setup {
	const char *name;
	const char *prog;
	const char *args[3]; /* after argv[0]; "@" is the input file */
	const char *env; /* FASTIO_DISABLE=... or FASTIO_FORCE=..., or NULL */
	enum spawn_in in;
	enum spawn_out out;
	size_t in_len;	      /* bytes of input (yes: bytes read back) */
	const char *calls[6]; /* calls this path reaches */
};

static const struct setup setups[] = {
    {"yes tee",
     "yes",
     {NULL},
     NULL,
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"tee", "splice", "pipe2", "fcntl", "mmap"}},
    {"yes tee hot",
     "yes",
     {NULL},
     "FASTIO_DISABLE=pages",
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"tee", "splice", "pipe2", "fcntl", "mmap", "write"}},
    {"yes vmsplice",
     "yes",
     {NULL},
     "FASTIO_DISABLE=tee",
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"vmsplice", "fcntl", "mmap"}},
    {"yes write",
     "yes",
     {NULL},
     "FASTIO_DISABLE=all",
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"write"}},
    {"yes file", "yes", {NULL}, NULL, IN_DEVNULL, OUT_FILE, 4 * MIB, {"write"}},
    {"cat file>pipe",
     "cat",
     {"@"},
     NULL,
     IN_DEVNULL,
     OUT_PIPE,
     3 * MIB,
     {"splice", "pipe2", "fcntl", "open"}},
    {"cat file>file",
     "cat",
     {"@"},
     NULL,
     IN_DEVNULL,
     OUT_FILE,
     3 * MIB,
     {"copy_file_range", "open"}},
    {"cat file>socket",
     "cat",
     {"@"},
     NULL,
     IN_DEVNULL,
     OUT_SOCKET,
     3 * MIB,
     {"sendfile"}},
    {"cat pipe>pipe",
     "cat",
     {NULL},
     NULL,
     IN_PIPE,
     OUT_PIPE,
     3 * MIB,
     {"splice"}},
    {"cat read/write",
     "cat",
     {"@"},
     "FASTIO_DISABLE=all",
     IN_DEVNULL,
     OUT_PIPE,
     3 * MIB,
     {"read", "write", "open"}},
    {"cat small file",
     "cat",
     {"@"},
     NULL,
     IN_DEVNULL,
     OUT_PIPE,
     9000,
     {"read", "write", "open"}},
    {"cat -n file",
     "cat",
     {"-n", "@"},
     NULL,
     IN_DEVNULL,
     OUT_PIPE,
     9 * MIB,
     {"read", "write", "open"}},
    {"cat -n file, writer's thread",
     "cat",
     {"-n", "@"},
     "FASTIO_FORCE=thread",
     IN_DEVNULL,
     OUT_PIPE,
     3 * MIB,
     {"read", "write", "open"}},
    {"cat -n pipe",
     "cat",
     {"-n"},
     NULL,
     IN_PIPE,
     OUT_PIPE,
     3 * MIB,
     {"read", "write"}},
    {"pipebench splice",
     "pipebench",
     {"-Q"},
     NULL,
     IN_PIPE,
     OUT_PIPE,
     3 * MIB,
     {"splice", "fcntl"}},
    {"pipebench copy",
     "pipebench",
     {"-Q", "--touch"},
     NULL,
     IN_PIPE,
     OUT_PIPE,
     3 * MIB,
     {"read", "write"}},
};
#define NSETUPS (int)(sizeof setups / sizeof setups[0])

static const struct {
	const char *name;
	int value; /* 0: short count */
} faults[] = {
    {"ENOSYS", ENOSYS}, {"EINVAL", EINVAL}, {"EBADF", EBADF},
    {"EXDEV", EXDEV},	{"EPERM", EPERM},   {"EOPNOTSUPP", EOPNOTSUPP},
    {"EFBIG", EFBIG},	{"EAGAIN", EAGAIN}, {"EINTR", EINTR},
    {"EIO", EIO},	{"ENOSPC", ENOSPC}, {"EPIPE", EPIPE},
    {"EMFILE", EMFILE}, {"short", 0},
};
#define NFAULTS (int)(sizeof faults / sizeof faults[0])

/* Which time the call fails: the first, or once bytes have moved. */
static const char *const when[] = {"1", "3"};

struct scenario {
	int setup, call, fault, when;
};
static struct scenario *scenarios;
static int nscenarios;

static void
make_scenarios(void)
{
	int s, c, f, w;

	scenarios =
	    calloc((size_t)NSETUPS * 6 * NFAULTS * 2, sizeof *scenarios);
	for (s = 0; s < NSETUPS; s++)
		for (c = 0; c < 6 && setups[s].calls[c]; c++)
			for (f = 0; f < NFAULTS; f++)
				for (w = 0; w < 2; w++)
					scenarios[nscenarios++] =
					    (struct scenario){s, c, f, w};
}

/* Calls that are an optimisation: their failure must never show. */
static int
optional(const char *call)
{
	return strcmp(call, "pipe2") == 0 || strcmp(call, "fcntl") == 0 ||
	       strcmp(call, "mmap") == 0;
}

static int
zero_copy(const char *call)
{
	return strcmp(call, "splice") == 0 || strcmp(call, "vmsplice") == 0 ||
	       strcmp(call, "tee") == 0 ||
	       strcmp(call, "copy_file_range") == 0 ||
	       strcmp(call, "sendfile") == 0;
}

/* The errnos by which the kernel refuses a zero-copy call outright. */
static int
refusal(int e)
{
	return e == ENOSYS || e == EINVAL || e == EBADF || e == EXDEV ||
	       e == EPERM || e == EOPNOTSUPP;
}

/* Deterministic input: numbered lines with a tab and a control byte. */
#define INPUT_LINE "line %u\tof\001the input\n"

/* argv[1...]: the n or fewer args, "@" standing for path. */
static void
with_args(const char **argv, const char *const *args, int n, const char *path)
{
	int i;

	for (i = 0; i < n && args[i]; i++)
		argv[i + 1] = strcmp(args[i], "@") ? args[i] : path;
}

START_TEST(fault_matrix)
{
	const struct scenario *sc = &scenarios[_i];
	const struct setup *st = &setups[sc->setup];
	const char *call = st->calls[sc->call];
	int e = faults[sc->fault].value, is_yes = strcmp(st->prog, "yes") == 0;
	char preload[4200], inject[128], logpath[64], *file;
	char want_in[256], want_out[256], *data, *logtext;
	const char *argv[6] = {st->prog}, *env[6];
	struct spawn s = {0};
	struct spawn_result good, r;
	int complete, reached;
	size_t len;
	FILE *f;

	data = spawn_lines(st->in_len, INPUT_LINE);
	file = spawn_temp_path(data, st->in_len); /* operands named "@" */
	with_args(argv, st->args, 3, file);
	s.prog = st->prog;
	s.argv = argv;
	s.in = st->in;
	s.in_data = data;
	s.in_len = st->in == IN_PIPE ? st->in_len : 0;
	s.out = st->out;
	s.out_max = is_yes ? st->in_len : 0;
	env[0] = st->env ? st->env : "FASTIO_DISABLE=";
	env[1] = NULL;
	s.env = env;
	ck_assert_int_eq(spawn_run(&s, &good), 0); /* the right output */
	/* yes into a file stops at the size limit the helper sets. */
	ck_assert(good.err_len == 0 || is_yes);

	snprintf(logpath, sizeof logpath, "/tmp/check_inject.%d.log", _i);
	unlink(logpath);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s/tests/inject.so",
		 getenv("FIO_BUILDDIR"));
	snprintf(inject, sizeof inject, "FIO_INJECT=%s:%s:%s", call,
		 when[sc->when], faults[sc->fault].name);
	env[1] = preload;
	env[2] = inject;
	env[3] = "FIO_INJECT_LOG=";
	{
		static char logenv[80];

		snprintf(logenv, sizeof logenv, "FIO_INJECT_LOG=%s", logpath);
		env[3] = logenv;
	}
	/* Our library comes before the sanitizer runtime. */
	env[4] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[5] = NULL;
	ck_assert_int_eq(spawn_run(&s, &r), 0);

	f = fopen(logpath, "r");
	logtext = calloc(1, 256);
	reached = f != NULL && fread(logtext, 1, 255, f) > 0;
	if (f != NULL)
		fclose(f);
	unlink(logpath);
	unlink(file); /* the name is still needed for the messages */

	/* Never a wrong byte: the output is a prefix of the right one. */
	len = r.out_len < good.out_len ? r.out_len : good.out_len;
	ck_assert_msg(r.out_len <= good.out_len || is_yes,
		      "%s, %s %s at %s: %zu bytes, more than %zu", st->name,
		      call, faults[sc->fault].name, when[sc->when], r.out_len,
		      good.out_len);
	ck_assert_msg(memcmp(r.out, good.out, len) == 0,
		      "%s, %s %s at %s: output differs", st->name, call,
		      faults[sc->fault].name, when[sc->when]);

	/* As without the fault: the same bytes, stderr and end. */
	complete = r.out_len == good.out_len && strcmp(r.err, good.err) == 0 &&
		   r.exited == good.exited && r.status == good.status &&
		   r.signaled == good.signaled && r.signal == good.signal;
	if (!complete) {
		/* GNU's message for the failing side, and status 1. */
		if (is_yes) {
			snprintf(want_in, sizeof want_in, "-");
			snprintf(want_out, sizeof want_out,
				 "yes: standard output: %s\n", strerror(e));
		} else if (strcmp(st->prog, "cat") == 0) {
			snprintf(want_in, sizeof want_in, "cat: %s: %s\n",
				 st->in == IN_PIPE ? "-" : file, strerror(e));
			snprintf(want_out, sizeof want_out,
				 "cat: write error: %s\n", strerror(e));
		} else {
			snprintf(want_in, sizeof want_in,
				 "pipebench: standard input: %s\n",
				 strerror(e));
			snprintf(want_out, sizeof want_out,
				 "pipebench: write error: %s\n", strerror(e));
		}
		ck_assert_msg(
		    e != 0 && r.exited && r.status == 1 &&
			((strcmp(call, "write") != 0 &&
			  strcmp(r.err, want_in) == 0) ||
			 (strcmp(call, "read") != 0 &&
			  strcmp(call, "open") != 0 &&
			  strcmp(r.err, want_out) == 0)),
		    "%s, %s %s at %s: status %d/%d, %zu of %zu bytes, "
		    "stderr '%s'",
		    st->name, call, faults[sc->fault].name, when[sc->when],
		    r.exited ? r.status : -1, r.signaled ? r.signal : 0,
		    r.out_len, good.out_len, r.err);
	}
	/* What must be invisible. */
	if (e == 0 || (e == EINTR && strcmp(call, "open") != 0) ||
	    optional(call) || (zero_copy(call) && sc->when == 0 && refusal(e)))
		ck_assert_msg(complete,
			      "%s, %s %s at %s: must complete; status %d, "
			      "stderr '%s'",
			      st->name, call, faults[sc->fault].name,
			      when[sc->when], r.exited ? r.status : -1, r.err);
	/* The table names only calls the path makes: the first always. */
	if (sc->when == 0)
		ck_assert_msg(reached, "%s: %s not reached", st->name, call);
	free(logtext);
	free(file);
	spawn_free(&good);
	spawn_free(&r);
	free(data);
}
END_TEST

/*
 * RLIMIT_NOFILE: 300 files through cat with 8 and 5 descriptors (cat
 * closes the files it read in batches: an open that runs out must close
 * the batch and try again), plain and formatted.
 */
START_TEST(few_descriptors_many_files)
{
	static const unsigned long limits[] = {8, 5};
	static const char *const flags[] = {NULL, "-n"};
	const char *argv[304] = {"cat"};
	char *paths[300], *want, *got_flag = NULL;
	size_t len = 0;
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512], line[64];
	int i, n = 1;

	want = malloc(300 * 64);
	if (flags[_i / 2])
		argv[n++] = got_flag = (char *)flags[_i / 2];
	for (i = 0; i < 300; i++) {
		snprintf(line, sizeof line, "file %d\n", i);
		paths[i] = spawn_temp_path(line, strlen(line));
		argv[n++] = paths[i];
		len += (size_t)(got_flag ? sprintf(want + len, "%6d\t%s", i + 1,
						   line)
					 : sprintf(want + len, "%s", line));
	}
	s.prog = "cat";
	s.argv = argv;
	s.in = IN_DEVNULL;
	s.out = OUT_PIPE;
	s.nofile = limits[_i % 2];
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "status %d: '%s'", r.status,
		      r.err);
	ck_assert_msg(
	    lines_check(r.out, r.out_len, want, len, 0, msg, sizeof msg) == 0,
	    "%s", msg);
	for (i = 0; i < 300; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	spawn_free(&r);
	free(want);
}
END_TEST

/*
 * So few descriptors that pipe() fails: the zero-copy paths that need a
 * pipe of their own fall back, the output is unchanged; pipebench --exec
 * cannot make its pipe and says so.
 */
START_TEST(no_pipe_left)
{
	static const struct {
		const char *prog, *args[4];
		unsigned long nofile;
		enum spawn_out out;
		const char *err; /* NULL: the output must be complete */
	} cases[] = {
	    {"cat", {"@"}, 4, OUT_PIPE, NULL},
	    {"cat", {"@"}, 4, OUT_SOCKET, NULL},
	    {"cat", {"-A", "@"}, 4, OUT_PIPE, NULL},
	    {"yes", {NULL}, 4, OUT_PIPE, NULL},
	    {"yes", {NULL}, 5, OUT_PIPE, NULL},
	    {"pipebench",
	     {"-Q", "--exec", "--", "true"},
	     4,
	     OUT_PIPE,
	     "pipebench: true: Too many open files\n"},
	};
	const char *argv[6] = {cases[_i].prog};
	size_t len = 3 * MIB;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	int is_yes = strcmp(cases[_i].prog, "yes") == 0;
	struct spawn s = {0}, plain;
	struct spawn_result r, good;

	with_args(argv, cases[_i].args, 4, path);
	s.prog = cases[_i].prog;
	s.argv = argv;
	s.in = IN_DEVNULL;
	s.out = cases[_i].out;
	s.out_max = is_yes ? 4 * MIB : 0;
	plain = s;
	s.nofile = cases[_i].nofile;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	if (cases[_i].err) {
		ck_assert_str_eq(r.err, cases[_i].err);
		ck_assert(r.exited && r.status == 1);
	} else {
		ck_assert_int_eq(spawn_run(&plain, &good), 0);
		ck_assert_msg(r.err_len == 0, "'%s'", r.err);
		ck_assert_uint_eq(r.out_len, good.out_len);
		ck_assert(memcmp(r.out, good.out, r.out_len) == 0);
		spawn_free(&good);
	}
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
}
END_TEST

/*
 * The user's soft pipe quota spent (as nobody: root has none): every pipe
 * a program makes starts with two slots, and none can grow. Every
 * strategy still gives the output it gives with the quota free. (A
 * failing F_SETPIPE_SZ needs fs.pipe-user-pages-hard, a global setting a
 * test should not change: the fault matrix fails it with EPERM and EBUSY.)
 */
static const struct {
	const char *prog, *args[3], *env;
} quota_cases[] = {
    {"cat", {"@"}, NULL},
    {"cat", {"@"}, "FASTIO_DISABLE=splice"},
    {"cat", {"-n", "@"}, NULL},
    {"cat", {"-n", "@"}, "FASTIO_FORCE=thread"},
    {"cat", {"-"}, NULL},
    {"cat", {"-"}, "FASTIO_DISABLE=splice"},
    {"yes", {NULL}, NULL},
    {"yes", {"longer line"}, NULL},
    {"yes", {NULL}, "FASTIO_DISABLE=pages"},
    {"yes", {NULL}, "FASTIO_DISABLE=tee"},
    {"yes", {NULL}, "FASTIO_DISABLE=all"},
    {"pipebench", {"-Q"}, NULL},
    {"pipebench", {"-Q", "--touch"}, NULL},
};
#define NQUOTA (int)(sizeof quota_cases / sizeof quota_cases[0])

START_TEST(pipe_quota)
{
	const char *argv[5] = {quota_cases[_i].prog};
	const char *env[2] = {quota_cases[_i].env, NULL};
	size_t len = 3 * MIB;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	int is_yes = strcmp(quota_cases[_i].prog, "yes") == 0;
	struct spawn s = {0}, plain;
	struct spawn_result r, good;

	with_args(argv, quota_cases[_i].args, 3, path);
	ck_assert_int_eq(chmod(path, 0644), 0);
	s.prog = quota_cases[_i].prog;
	s.argv = argv;
	s.env = env;
	s.in = IN_PIPE;
	s.in_data = data;
	s.in_len = len;
	s.out = OUT_PIPE;
	s.out_max = is_yes ? 4 * MIB : 0;
	s.uid = 65534;
	plain = s;
	s.spend_pipe_quota = 1;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_int_eq(spawn_run(&plain, &good), 0);
	ck_assert_uint_eq(r.out_len, good.out_len);
	ck_assert(memcmp(r.out, good.out, r.out_len) == 0);
	if (is_yes) {
		ck_assert_msg(r.signaled && r.signal == SIGPIPE, "status %d",
			      r.status);
	} else {
		ck_assert_msg(r.exited && r.status == 0, "status %d: %s",
			      r.status, r.err);
		ck_assert_str_eq(r.err, good.err);
	}
	spawn_free(&r);
	spawn_free(&good);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/*
 * Many copies at once, as one ordinary user, each stopped by a full pipe
 * that nobody reads (`cat BIG | sleep`, `yes | sleep`): the pipe slots
 * they hold count against the user's soft pipe quota, and must leave a
 * new pipe of that user its default sixteen. A cat that grew its output
 * pipe and its private one to 1 MiB each failed at 32 copies, GNU HEAD's
 * (512 KiB each) fails at 64, and a yes holding three pipes of 1 MiB
 * failed at 32. The user is one of its own (from the pid), so that no
 * other test's pipes count.
 */
static const struct {
	const char *prog;
	int copies;
} crowds[] = {
    {"cat", 64},
    {"yes", 32},
};
#define CROWD_FILE (8 * MIB)
#define CROWD_MAX  64

/* The child, as uid: the crowd, then a new pipe's size to report. */
static _Noreturn void
crowd(int report, const char *exe, const char *file, int copies, uid_t uid)
{
	int out[CROWD_MAX], i, p[2], size = -1, queued, cap, status;
	pid_t pids[CROWD_MAX];

	if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0)
		_exit(2);
	for (i = 0; i < copies; i++) {
		if (pipe(p) < 0)
			_exit(3);
		pids[i] = fork();
		if (pids[i] == 0) {
			dup2(p[1], STDOUT_FILENO);
			close(p[0]);
			close(p[1]);
			execl(exe, exe, file, (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		out[i] = p[0];
	}
	/* Each has grown what it grows once its pipe is full: it then
	 * waits there (a full pipe of tee's slots holds 32 bytes less a
	 * page). One that ended instead is a failure too. */
	for (i = 0; i < copies; i++)
		for (;;) {
			cap = fcntl(out[i], F_GETPIPE_SZ);
			if (ioctl(out[i], FIONREAD, &queued) < 0 || cap <= 0)
				_exit(4);
			if (queued >= cap - cap / 64)
				break;
			if (waitpid(pids[i], &status, WNOHANG) == pids[i])
				_exit(5);
			usleep(100);
		}
	if (pipe(p) == 0)
		size = fcntl(p[1], F_GETPIPE_SZ);
	for (i = 0; i < copies; i++) {
		kill(pids[i], SIGKILL);
		close(out[i]);
		waitpid(pids[i], &status, 0);
	}
	_exit(write(report, &size, sizeof size) == sizeof size ? 0 : 6);
}

START_TEST(quota_many)
{
	char *data = spawn_lines(CROWD_FILE, INPUT_LINE),
	     *path = spawn_temp_path(data, CROWD_FILE);
	const char *exe = spawn_path_as_other(crowds[_i].prog);
	uid_t uid = 3000000000u + (uid_t)getpid() % 1000000u;
	long page = sysconf(_SC_PAGESIZE);
	int report[2], size = 0, status;
	pid_t pid;

	ck_assert_ptr_nonnull(exe);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(pipe(report), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(report[0]);
		crowd(report[1], exe,
		      strcmp(crowds[_i].prog, "cat") == 0 ? path : "y",
		      crowds[_i].copies, uid);
	}
	close(report[1]);
	ck_assert_int_eq(read(report[0], &size, sizeof size), sizeof size);
	close(report[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the crowd's child: status %#x", status);
	ck_assert_msg(size == 16 * page,
		      "%d concurrent %s: a new pipe of their user holds %d "
		      "bytes, not %ld",
		      crowds[_i].copies, crowds[_i].prog, size, 16 * page);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/*
 * RLIMIT_FSIZE: GNU's "File too large" from every writing path, after
 * exactly the bytes the limit allows.
 */
START_TEST(file_size_limit)
{
	static const struct {
		const char *prog, *args[3], *disable, *err;
		enum spawn_in in;
	} cases[] = {
	    {"cat",
	     {"@"},
	     NULL,
	     "cat: write error: File too large\n",
	     IN_DEVNULL},
	    {"cat",
	     {"@"},
	     "all",
	     "cat: write error: File too large\n",
	     IN_DEVNULL},
	    {"cat",
	     {"-n", "@"},
	     NULL,
	     "cat: write error: File too large\n",
	     IN_DEVNULL},
	    {"cat",
	     {NULL},
	     NULL,
	     "cat: write error: File too large\n",
	     IN_PIPE},
	    {"pipebench",
	     {"-Q"},
	     NULL,
	     "pipebench: write error: File too large\n",
	     IN_PIPE},
	    {"yes",
	     {NULL},
	     NULL,
	     "yes: standard output: File too large\n",
	     IN_DEVNULL},
	};
	const char *argv[5] = {cases[_i].prog}, *env[2] = {NULL, NULL};
	size_t len = 3 * MIB, limit = MIB + 12345;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	char disable[64], *want = data;
	struct spawn s = {0};
	struct spawn_result r, all;

	with_args(argv, cases[_i].args, 3, path);
	s.prog = cases[_i].prog;
	s.argv = argv;
	s.in = cases[_i].in;
	s.in_data = data;
	s.in_len = len;
	if (cases[_i].disable) {
		snprintf(disable, sizeof disable, "FASTIO_DISABLE=%s",
			 cases[_i].disable);
		env[0] = disable;
		s.env = env;
	}
	/* The whole output, for -n and yes. */
	s.out = OUT_PIPE;
	s.out_max = strcmp(cases[_i].prog, "yes") == 0 ? 2 * MIB : 0;
	ck_assert_int_eq(spawn_run(&s, &all), 0);
	want = all.out;
	ck_assert(all.out_len >= limit);
	s.out = OUT_FILE;
	s.out_max = limit;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert(r.exited && r.status == 1);
	ck_assert_uint_eq(r.out_len, limit);
	ck_assert(memcmp(r.out, want, limit) == 0);
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
	spawn_free(&all);
}
END_TEST

/*
 * `ulimit -v` 15 MB above what --version needs: every path of cat and
 * pipebench still works (GNU's tests run tools so).
 */
START_TEST(address_space_limit)
{
	static const struct {
		const char *prog, *args[3];
		enum spawn_in in;
	} cases[] = {
	    {"cat", {"@"}, IN_DEVNULL},	    {"cat", {"-n", "@"}, IN_DEVNULL},
	    {"cat", {"-A"}, IN_PIPE},	    {"cat", {NULL}, IN_PIPE},
	    {"pipebench", {"-q"}, IN_PIPE}, {"pipebench", {"--touch"}, IN_PIPE},
	    {"pipebench", {"-q"}, IN_FILE},
	};
	const char *argv[5] = {cases[_i].prog};
	unsigned long hi;
	size_t len = 9 * MIB;
	char *data, *path;
	struct spawn s = {0};
	struct spawn_result r, good;

#ifdef FIO_SANITIZED
	/* AddressSanitizer reserves terabytes of address space. */
	return;
#endif
	hi = spawn_version_needs(cases[_i].prog);
	data = spawn_lines(len, INPUT_LINE);
	path = spawn_temp_path(data, len);
	with_args(argv, cases[_i].args, 3, path);
	s.prog = cases[_i].prog;
	s.argv = argv;
	s.in = cases[_i].in;
	s.in_data = data;
	s.in_len = len;
	s.out = OUT_PIPE;
	ck_assert_int_eq(spawn_run(&s, &good), 0);
	s.vm_limit = hi + 15 * 1000 * 1000;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "limit %lu: '%s'", s.vm_limit,
		      r.err);
	ck_assert_uint_eq(r.out_len, good.out_len);
	ck_assert(memcmp(r.out, good.out, r.out_len) == 0);
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
	spawn_free(&good);
}
END_TEST

/*
 * Non-blocking stdin (nothing more to read, no EOF) and non-blocking
 * stdout (nobody reads): never a hang, never a busy loop (little CPU),
 * GNU's EAGAIN message after the bytes that could move.
 */
START_TEST(nonblocking)
{
	static const struct {
		const char *prog, *args[3];
		enum spawn_in in;
		enum spawn_out out;
		const char *out_data, *err;
	} cases[] = {
	    {"cat",
	     {NULL},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "cat: -: Resource temporarily unavailable\n"},
	    {"cat",
	     {"-n"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "     1\tabc\n",
	     "cat: -: Resource temporarily unavailable\n"},
	    {"cat",
	     {"-", "-"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "cat: -: Resource temporarily unavailable\n"
	     "cat: -: Resource temporarily unavailable\n"},
	    {"pipebench",
	     {"-Q"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "pipebench: standard input: Resource temporarily unavailable\n"},
	    {"pipebench",
	     {"-Q", "--touch"},
	     IN_NONBLOCK_PIPE,
	     OUT_PIPE,
	     "abc\n",
	     "pipebench: standard input: Resource temporarily unavailable\n"},
	    {"yes",
	     {NULL},
	     IN_NONBLOCK_PIPE,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "yes: standard output: Resource temporarily unavailable\n"},
	    {"cat",
	     {"@"},
	     IN_DEVNULL,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "cat: write error: Resource temporarily unavailable\n"},
	    {"cat",
	     {"-v", "@"},
	     IN_DEVNULL,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "cat: write error: Resource temporarily unavailable\n"},
	    {"pipebench",
	     {"-Q"},
	     IN_FILE,
	     OUT_NONBLOCK_PIPE,
	     NULL,
	     "pipebench: write error: Resource temporarily unavailable\n"},
	};
	const char *argv[5] = {cases[_i].prog};
	size_t len = 8 * MIB;
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	struct spawn s = {0};
	struct spawn_result r;

	with_args(argv, cases[_i].args, 3, path);
	s.prog = cases[_i].prog;
	s.argv = argv;
	s.in = cases[_i].in;
	s.in_data = cases[_i].in == IN_FILE ? data : "abc\n";
	s.in_len = cases[_i].in == IN_FILE ? len : 4;
	s.out = cases[_i].out;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert(r.exited && r.status == 1);
	if (cases[_i].out_data) {
		ck_assert_uint_eq(r.out_len, strlen(cases[_i].out_data));
		ck_assert(memcmp(r.out, cases[_i].out_data, r.out_len) == 0);
	} else if (strcmp(cases[_i].prog, "yes") != 0) {
		/* What fitted in the pipe: a prefix of the right output. */
		ck_assert(r.out_len > 0 && r.out_len < len);
		ck_assert(cases[_i].args[1] != NULL ||
			  memcmp(r.out, data, r.out_len) == 0);
	}
	/* Generous for a slow machine; a spinning loop takes seconds. */
	ck_assert_msg(r.cpu_ms < 1000, "%lu ms of CPU", r.cpu_ms);
	unlink(path);
	free(path);
	free(data);
	spawn_free(&r);
}
END_TEST

/* A file of n bytes of "y\n" under /tmp, for the storm tests. */
static char *
y_file(size_t n)
{
	char *chunk = malloc(MIB), *path;
	size_t i;
	FILE *f;

	for (i = 0; i < MIB; i += 2)
		memcpy(chunk + i, "y\n", 2);
	path = spawn_temp_path("", 0);
	f = fopen(path, "w");
	for (i = 0; i < n; i += MIB)
		ck_assert(fwrite(chunk, 1, MIB, f) == MIB);
	ck_assert(fclose(f) == 0);
	free(chunk);
	return path;
}

/*
 * A storm of signals (SIGALRM, SIGPROF and SIGCHLD every 200 us, no
 * SA_RESTART) while each path moves its share: pipebench --expect-line
 * checks every byte (it is under the storm too) and --json counts them.
 * The share is sized by the work it takes, not by the storm: 1 GiB where
 * the kernel moves page references, 128 MiB where every byte is copied
 * through user space, checked and counted (seconds even under the
 * sanitizers on a slow machine; still some 10,000 signals a run).
 */
#define NSTORMS 7 /* storm()'s cases; the last one runs through /bin/sh */

static void
storm(int k)
{
	static const struct {
		const char *disable, *cmd[3];
		int file;     /* the producer reads a file of "y\n" */
		unsigned mib; /* bytes to move */
	} cases[] = {
	    {NULL, {"yes"}, 0, 1024},		  /* tee */
	    {"tee", {"yes"}, 0, 1024},		  /* vmsplice */
	    {"all", {"yes"}, 0, 128},		  /* write */
	    {NULL, {"cat", "@"}, 1, 1024},	  /* splice through a pipe */
	    {"all", {"cat", "@"}, 1, 128},	  /* read/write */
	    {NULL, {"cat", "-v", "@"}, 1, 128},	  /* formatting */
	    {NULL, {"pipebench", "-Q"}, 1, 1024}, /* splice file to pipe */
	};
	_Static_assert(sizeof cases / sizeof cases[0] == NSTORMS, "NSTORMS");
	size_t bytes = (size_t)cases[k].mib << 20;
	char limit[32], want[64];
	const char *argv[12] = {"pipebench", "-Q",     "--expect-line=y",
				limit,	     "--json", "--exec",
				"--"};
	const char *env[5] = {NULL};
	char preload[4200], disable[64], *path = NULL, *prog, shell[4200];
	struct spawn s = {0};
	struct spawn_result r;
	int i, n = 7, e = 0;

	snprintf(limit, sizeof limit, "--bytes=%zu", bytes);
	snprintf(want, sizeof want, "{\"bytes\":%zu,\"lines\":%zu,", bytes,
		 bytes / 2);
	if (cases[k].file)
		path = y_file(bytes);
	prog = strdup(spawn_path(cases[k].cmd[0]));
	if (strcmp(cases[k].cmd[0], "pipebench") == 0) {
		/*
		 * Its stdin is the file: through a shell, which forks it (an
		 * exec would keep the storm's timers running into a program
		 * that has no handlers yet).
		 */
		snprintf(shell, sizeof shell, "%s -Q < %s; exit $?", prog,
			 path);
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = shell;
	} else {
		argv[n++] = prog;
		for (i = 1; i < 3 && cases[k].cmd[i]; i++)
			argv[n++] = strcmp(cases[k].cmd[i], "@")
					? cases[k].cmd[i]
					: path;
	}
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s/tests/inject.so",
		 getenv("FIO_BUILDDIR"));
	env[e++] = preload;
	env[e++] = "FIO_SIGNAL_STORM=200";
	env[e++] = "ASAN_OPTIONS=verify_asan_link_order=0";
	if (cases[k].disable) {
		snprintf(disable, sizeof disable, "FASTIO_DISABLE=%s",
			 cases[k].disable);
		env[e++] = disable;
	}
	s.prog = "pipebench";
	s.argv = argv;
	s.env = env;
	s.in = IN_DEVNULL;
	s.out = OUT_DEVNULL;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "case %d: status %d: '%s'", k,
		      r.status, r.err);
	ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0, "case %d: '%s'",
		      k, r.err);
	if (path) {
		unlink(path);
		free(path);
	}
	free(prog);
	spawn_free(&r);
}

START_TEST(signal_storm)
{
	storm(_i);
}
END_TEST

/*
 * The last case runs pipebench through /bin/sh, which inherits inject.so
 * in LD_PRELOAD: under qemu-user that shell is this machine's program,
 * and cannot load ours.
 */
START_TEST(signal_storm_shell)
{
	storm(NSTORMS - 1);
}
END_TEST

/*
 * strace -e inject as a second witness: the same faults from the kernel's
 * side of the calls, independent of inject.so. strace's log must show the
 * injection, the output must be the fault-free one (refusals) or end
 * with GNU's message (a failing write).
 */
static const struct {
	const char *prog, *inject, *args[3], *env;
	enum spawn_out out;
	const char *err; /* the message after the program's path */
} witnesses[] = {
    {"cat", "splice:error=EINVAL:when=1", {"@"}, NULL, OUT_PIPE, ""},
    {"cat", "splice:error=EXDEV:when=1+", {"@"}, NULL, OUT_PIPE, ""},
    {"cat", "copy_file_range:error=EXDEV:when=1", {"@"}, NULL, OUT_FILE, ""},
    {"cat", "sendfile:error=EINVAL:when=1", {"@"}, NULL, OUT_SOCKET, ""},
    {"cat", "splice:error=ENOSYS:when=1+", {"-", "@"}, NULL, OUT_PIPE, ""},
    {"cat",
     "write:error=ENOSPC:when=1",
     {"@"},
     "FASTIO_DISABLE=all",
     OUT_PIPE,
     ": write error: No space left on device\n"},
    {"yes",
     "vmsplice:error=EINVAL:when=1+",
     {NULL},
     "FASTIO_DISABLE=tee",
     OUT_PIPE,
     ""},
    {"yes", "tee:error=EOPNOTSUPP:when=1+", {NULL}, NULL, OUT_PIPE, ""},
    {"pipebench", "splice:error=EINVAL:when=1", {"-q"}, NULL, OUT_PIPE, ""},
};
#define NWITNESSES (int)(sizeof witnesses / sizeof witnesses[0])

START_TEST(strace_witness)
{
	const char *argv[16] = {"strace", "-qq", "-o", NULL,
				"-e",	  NULL,	 "-e", NULL};
	/* LeakSanitizer stops the world with ptrace, which strace holds. */
	const char *env[] = {"ASAN_OPTIONS=detect_leaks=0", witnesses[_i].env,
			     NULL};
	char trace[64], inject[128], *log = spawn_temp_path("", 0), line[512];
	size_t len = 300000, err_len = strlen(witnesses[_i].err);
	char *data = spawn_lines(len, INPUT_LINE),
	     *path = spawn_temp_path(data, len);
	int yes = strcmp(witnesses[_i].prog, "yes") == 0, injected = 0;
	struct spawn s = {0};
	struct spawn_result r;
	FILE *f;

	snprintf(trace, sizeof trace, "trace=%.*s",
		 (int)strcspn(witnesses[_i].inject, ":"), witnesses[_i].inject);
	snprintf(inject, sizeof inject, "inject=%s", witnesses[_i].inject);
	argv[3] = log;
	argv[5] = trace;
	argv[7] = inject;
	argv[8] = spawn_path(witnesses[_i].prog);
	with_args(argv + 8, witnesses[_i].args, 3, path);
	s.prog = SPAWN_STRACE;
	s.argv = argv;
	s.env = env;
	s.in = IN_FILE;
	s.in_data = data;
	s.in_len = len;
	s.out = witnesses[_i].out;
	s.out_max = yes ? 1u << 20 : 0;
	ck_assert_int_eq(spawn_run(&s, &r), 0);

	f = fopen(log, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		injected |= strstr(line, "(INJECTED)") != NULL;
	fclose(f);
	ck_assert_msg(injected, "%s: nothing injected", witnesses[_i].inject);
	if (yes) {
		ck_assert_uint_ge(r.out_len, 1u << 20);
		ck_assert(r.signaled && r.signal == SIGPIPE);
		for (size_t i = 0; i < r.out_len; i++)
			ck_assert(r.out[i] == (i % 2 ? '\n' : 'y'));
	} else if (err_len == 0) {
		size_t want =
		    strcmp(witnesses[_i].args[0], "-") ? len : 2 * len;

		ck_assert_msg(r.exited && r.status == 0, "%s: %s",
			      witnesses[_i].inject, r.err);
		ck_assert_uint_eq(r.out_len, want);
		ck_assert(memcmp(r.out, data, len) == 0);
		ck_assert(memcmp(r.out + want - len, data, len) == 0);
	} else {
		ck_assert(r.exited && r.status == 1);
		ck_assert_msg(r.err_len > err_len &&
				  strcmp(r.err + r.err_len - err_len,
					 witnesses[_i].err) == 0,
			      "%s", r.err);
	}
	spawn_free(&r);
	unlink(path);
	unlink(log);
	free(path);
	free(log);
	free(data);
}
END_TEST

static spawn_need *const strace[] = {spawn_need_strace, NULL};
static spawn_need *const native[] = {spawn_need_native, NULL};
static spawn_need *const root[] = {spawn_need_root, NULL};

static Suite *
inject_suite(void)
{
	Suite *s = suite_create("inject");
	TCase *tc = tcase_create("fault_matrix");

	make_scenarios();
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, fault_matrix, 0, nscenarios);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, few_descriptors_many_files, 0, 4);
	tcase_add_loop_test(tc, no_pipe_left, 0, 6);
	tcase_add_loop_test(tc, file_size_limit, 0, 6);
	tcase_add_loop_test(tc, address_space_limit, 0, 7);
	tcase_add_loop_test(tc, nonblocking, 0, 9);
	tcase_add_loop_test(tc, signal_storm, 0, NSTORMS - 1);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "strace", strace_witness, NWITNESSES, strace);
	suite_add_needing(s, "storm", signal_storm_shell, 1, native);
	suite_add_needing(s, "quota", pipe_quota, NQUOTA, root);
	suite_add_needing(s, "crowd", quota_many, 2, root);
	return s;
}

int
main(void)
{
	return suite_main(inject_suite());
}
