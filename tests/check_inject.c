/* SPDX-License-Identifier: MIT */
/*
 * The fault matrix: every program and path, with a chosen call failing
 * (tests/inject.c, preloaded) with each errno or a short count, the first
 * time or a later time. Whatever happens, the output is a prefix of the
 * right output; the run either completes with exactly the right output and
 * nothing on stderr, or ends with status 1 and GNU's one message for the
 * failing side. Refusals of a zero-copy call at any call (check_refusal
 * has the whole matrix of them), EINTR, short counts and failures of
 * optional calls (pipe, F_SETPIPE_SZ, mmap) must complete.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    {"yes rounds",
     "yes",
     {NULL},
     NULL,
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"vmsplice", "pipe2", "fcntl", "mmap", "write"}},
    {"yes tee",
     "yes",
     {NULL},
     "FASTIO_DISABLE=vmsplice",
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"tee", "splice", "pipe2", "fcntl", "write"}},
    {"yes tee hot",
     "yes",
     {NULL},
     "FASTIO_DISABLE=pages",
     IN_DEVNULL,
     OUT_PIPE,
     4 * MIB,
     {"tee", "splice", "pipe2", "fcntl", "write"}},
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

/*
 * The faults, each marked where it stands for its kind: the refusals
 * take one path, the other failures another, and EAGAIN, EINTR, EPIPE
 * and a short count each their own. Built for another CPU (under qemu)
 * or with the sanitizers, where a run costs several native ones, the
 * matrix runs the kinds alone: the paths are the same C, and the whole
 * matrix runs in every plain native build (make check, coverage).
 */
static const struct {
	const char *name;
	int value; /* 0: short count */
	int kind;  /* stands for its kind */
} faults[] = {
    {"ENOSYS", ENOSYS, 0}, {"EINVAL", EINVAL, 1}, {"EBADF", EBADF, 0},
    {"EXDEV", EXDEV, 0},   {"EPERM", EPERM, 0},	  {"EOPNOTSUPP", EOPNOTSUPP, 0},
    {"EFBIG", EFBIG, 0},   {"EAGAIN", EAGAIN, 1}, {"EINTR", EINTR, 1},
    {"EIO", EIO, 1},	   {"ENOSPC", ENOSPC, 0}, {"EPIPE", EPIPE, 1},
    {"EMFILE", EMFILE, 0}, {"short", 0, 1},
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

#ifdef FIO_SANITIZED
	int kinds_only = 1;
#else
	int kinds_only = spawn_need_native() != NULL;
#endif

	scenarios =
	    calloc((size_t)NSETUPS * 6 * NFAULTS * 2, sizeof *scenarios);
	for (s = 0; s < NSETUPS; s++)
		for (c = 0; c < 6 && setups[s].calls[c]; c++)
			for (f = 0; f < NFAULTS; f++)
				for (w = 0; w < 2; w++)
					if (faults[f].kind || !kinds_only)
						scenarios[nscenarios++] =
						    (struct scenario){s, c, f,
								      w};
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

/*
 * Each setup's input and its fault-free run, made once in the runner
 * before the cases fork: every fault of a setup is compared with the
 * same run, and the cases spawn once each instead of twice.
 */
static struct {
	char *data, *file; /* the input, and a file holding it */
	struct spawn_result good;
} clean[NSETUPS];

static void
setup_spawn(int i, struct spawn *s, const char *argv[5], const char **env)
{
	const struct setup *st = &setups[i];

	memset(s, 0, sizeof *s);
	memset(argv, 0, 5 * sizeof *argv);
	argv[0] = st->prog;
	spawn_with_args(argv, st->args, 3, clean[i].file);
	spawn_init(s, st->prog, argv, NULL, st->out);
	spawn_feed(s, st->in, clean[i].data,
		   st->in == IN_PIPE ? st->in_len : 0);
	s->out_max = strcmp(st->prog, "yes") == 0 ? st->in_len : 0;
	env[0] = st->env ? st->env : "FASTIO_DISABLE=";
	env[1] = NULL;
	s->env = env;
}

static void
make_clean_runs(void)
{
	const char *argv[5], *env[2];
	struct spawn s;
	int i;

	for (i = 0; i < NSETUPS; i++) {
		clean[i].data = spawn_lines(setups[i].in_len, INPUT_LINE);
		clean[i].file =
		    spawn_temp_path(clean[i].data, setups[i].in_len);
		setup_spawn(i, &s, argv, env);
		ck_assert_int_eq(spawn_run(&s, &clean[i].good), 0);
		/* yes into a file stops at the size limit the helper sets. */
		ck_assert(clean[i].good.err_len == 0 ||
			  strcmp(setups[i].prog, "yes") == 0);
	}
}

static void
remove_clean_runs(void)
{
	int i;

	for (i = 0; i < NSETUPS; i++) {
		if (clean[i].file)
			unlink(clean[i].file);
		free(clean[i].file);
		free(clean[i].data);
		spawn_free(&clean[i].good);
	}
}

START_TEST(fault_matrix)
{
	const struct scenario *sc = &scenarios[_i];
	const struct setup *st = &setups[sc->setup];
	const char *call = st->calls[sc->call];
	int e = faults[sc->fault].value, is_yes = strcmp(st->prog, "yes") == 0;
	char spec[128], want_in[256], want_out[256];
	const char *file = clean[sc->setup].file, *argv[5], *env[6];
	const struct spawn_result *good = &clean[sc->setup].good;
	struct spawn_inject in;
	struct spawn s;
	struct spawn_result r;
	int complete, reached;
	size_t len;

	setup_spawn(sc->setup, &s, argv, env);
	snprintf(spec, sizeof spec, "%s:%s:%s", call, when[sc->when],
		 faults[sc->fault].name);
	spawn_inject(&in, spec, _i, env + 1);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	reached = spawn_inject_reached(&in);

	/* Never a wrong byte: the output is a prefix of the right one. */
	len = r.out_len < good->out_len ? r.out_len : good->out_len;
	ck_assert_msg(r.out_len <= good->out_len || is_yes,
		      "%s, %s %s at %s: %zu bytes, more than %zu", st->name,
		      call, faults[sc->fault].name, when[sc->when], r.out_len,
		      good->out_len);
	ck_assert_msg(memcmp(r.out, good->out, len) == 0,
		      "%s, %s %s at %s: output differs", st->name, call,
		      faults[sc->fault].name, when[sc->when]);

	/* As without the fault: the same bytes, stderr and end. */
	complete = r.out_len == good->out_len &&
		   strcmp(r.err, good->err) == 0 && r.exited == good->exited &&
		   r.status == good->status && r.signaled == good->signaled &&
		   r.signal == good->signal;
	/* pipebench takes its output's EPIPE for its reader gone: the
	 * summary (none with -Q), then death by SIGPIPE, as 0.40's status. */
	if (!complete && e == EPIPE && strcmp(st->prog, "pipebench") == 0 &&
	    strcmp(call, "read") != 0 && r.signaled && r.signal == SIGPIPE)
		complete = 1;
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
		    r.out_len, good->out_len, r.err);
	}
	/* What must be invisible: a refusal at any call included. */
	if (e == 0 || (e == EINTR && strcmp(call, "open") != 0) ||
	    optional(call) || (zero_copy(call) && refusal(e)))
		ck_assert_msg(complete,
			      "%s, %s %s at %s: must complete; status %d, "
			      "stderr '%s'",
			      st->name, call, faults[sc->fault].name,
			      when[sc->when], r.exited ? r.status : -1, r.err);
	/* The table names only calls the path makes: the first always. */
	if (sc->when == 0)
		ck_assert_msg(reached, "%s: %s not reached", st->name, call);
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
	spawn_init(&s, "pipebench", argv, env, OUT_DEVNULL);
	spawn_feed(&s, IN_DEVNULL, NULL, 0);
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
    {"yes", "vmsplice:error=EPERM:when=1+", {NULL}, NULL, OUT_PIPE, ""},
    {"yes",
     "tee:error=EOPNOTSUPP:when=1+",
     {NULL},
     "FASTIO_DISABLE=vmsplice",
     OUT_PIPE,
     ""},
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
	spawn_with_args(argv + 8, witnesses[_i].args, 3, path);
	spawn_init(&s, SPAWN_STRACE, argv, env, witnesses[_i].out);
	spawn_feed(&s, IN_FILE, data, len);
	/* yes: past its start, into the strategy the fault is for. */
	s.out_max = yes ? 4u << 20 : 0;
	ck_assert_int_eq(spawn_run(&s, &r), 0);

	f = fopen(log, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		injected |= strstr(line, "(INJECTED)") != NULL;
	fclose(f);
	ck_assert_msg(injected, "%s: nothing injected", witnesses[_i].inject);
	if (yes) {
		ck_assert_uint_ge(r.out_len, 4u << 20);
		ck_assert(r.signaled && r.signal == SIGPIPE);
		ck_assert_msg(lines_check(r.out, r.out_len, "y\n", 2, 1, line,
					  sizeof line) == 0,
			      "%s", line);
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

static Suite *
inject_suite(void)
{
	Suite *s = suite_create("inject");
	TCase *tc = tcase_create("fault_matrix");

	make_scenarios();
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, make_clean_runs, remove_clean_runs);
	tcase_add_loop_test(tc, fault_matrix, 0, nscenarios);
	suite_add_tcase(s, tc);
	tc = tcase_create("signals");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, signal_storm, 0, NSTORMS - 1);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "strace", strace_witness, NWITNESSES, strace);
	suite_add_needing(s, "storm", signal_storm_shell, 1, native);
	return s;
}

int
main(void)
{
	return suite_main(inject_suite());
}
