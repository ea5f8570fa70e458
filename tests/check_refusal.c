/* SPDX-License-Identifier: MIT */
/*
 * A refusal is never fatal. Sandboxes (container and service profiles)
 * refuse calls with EPERM or ENOSYS, and the kernel refuses some with
 * EINVAL, at any call, not only the first. Each call a path makes that
 * the programs could do without (tee, vmsplice, splice, copy_file_range,
 * sendfile, a pipe's growth by F_SETPIPE_SZ, a second thread) is refused
 * with each of the three at its first call and every later one, at its
 * second alone, and from a late one on, in every shape of yes's rounds
 * (the probe off, on and forced), its vmsplice, cat plain,
 * formatting, many small files and from a pipe, and pipebench's relays:
 * each run must give the bytes and the end of the same run without the
 * refusal, and nothing on stderr. The refusals are counted calls of
 * tests/inject.so; and, as a sandbox makes them, a seccomp filter
 * (tests/sandbox.c) refuses whole sets of calls from the first.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"

#define MIB	((size_t)1 << 20)
#define NFILES	300 /* many small files: the read-ahead thread's */
#define MAXARGS (NFILES + 8)

/* What a path's input is: nothing (yes), a file, a pipe, many files. */
enum input { NONE, FILE_ARG, PIPE_IN, FILES };

struct setup {
	const char *name;
	const char *prog;
	const char *args[4]; /* after argv[0]; "@" is the input file, "%"
				a --pipeline that reads it */
	const char *env;     /* FASTIO_DISABLE=... or FASTIO_FORCE=... */
	enum input in;
	enum spawn_out out;
	size_t len;	      /* bytes of input; yes: bytes read back */
	const char *calls[4]; /* the calls this path makes of its own */
	int sandboxed;	      /* run under each sandbox too */
};

#define YES(name, env, sandboxed, ...)                                         \
	{                                                                      \
		name, "yes", {NULL}, env, NONE, OUT_PIPE, 8 * MIB,             \
		    {__VA_ARGS__}, sandboxed                                   \
	}

static const struct setup setups[] = {
    /* Every shape of the tee rounds, held (the probe off). */
    YES("yes hot middle gulp", "FASTIO_DISABLE=probe,pages,direct", 0, "tee",
	"splice", "fcntl"),
    YES("yes hot middle", "FASTIO_DISABLE=probe,pages,direct,gulp", 0, "tee",
	"splice", "fcntl"),
    YES("yes hot direct gulp", "FASTIO_DISABLE=probe,pages,middle", 0, "tee",
	"splice", "fcntl"),
    YES("yes hot direct", "FASTIO_DISABLE=probe,pages,middle,gulp", 0, "tee",
	"splice", "fcntl"),
    YES("yes pages middle gulp", "FASTIO_DISABLE=probe,hotpage,direct", 0,
	"tee", "splice", "fcntl"),
    YES("yes pages middle", "FASTIO_DISABLE=probe,hotpage,direct,gulp", 0,
	"tee", "splice", "fcntl"),
    YES("yes pages direct gulp", "FASTIO_DISABLE=probe,hotpage,middle,vmsplice",
	0, "tee", "fcntl"),
    YES("yes pages direct", "FASTIO_DISABLE=probe,hotpage,middle,gulp,vmsplice",
	0, "tee", "fcntl"),
    YES("yes vmsplice shape", "FASTIO_DISABLE=probe", 0, "vmsplice", "fcntl"),
    /* As it runs (its first shape, vmsplice()), and changing the shape
     * every round. */
    YES("yes probe", NULL, 1, "vmsplice", "fcntl"),
    YES("yes probe forced", "FASTIO_FORCE=probe", 1, "vmsplice", "tee",
	"splice", "fcntl"),
    YES("yes vmsplice", "FASTIO_DISABLE=tee", 1, "vmsplice", "fcntl"),
    {"cat file>pipe",
     "cat",
     {"@"},
     NULL,
     FILE_ARG,
     OUT_PIPE,
     3 * MIB,
     {"splice", "fcntl"},
     1},
    /* Three of copy_file_range's ranges (FIO_COPY_CHUNK, 64 MiB). */
    {"cat file>file",
     "cat",
     {"@"},
     NULL,
     FILE_ARG,
     OUT_FILE,
     136 * MIB,
     {"copy_file_range"},
     1},
    {"cat file>socket",
     "cat",
     {"@"},
     NULL,
     FILE_ARG,
     OUT_SOCKET,
     3 * MIB,
     {"sendfile"},
     1},
    {"cat pipe>pipe",
     "cat",
     {"-"},
     NULL,
     PIPE_IN,
     OUT_PIPE,
     3 * MIB,
     {"splice", "fcntl"},
     1},
    {"cat -n, writer's thread",
     "cat",
     {"-n", "@"},
     "FASTIO_FORCE=thread",
     FILE_ARG,
     OUT_PIPE,
     3 * MIB,
     {"pthread_create", "fcntl"},
     1},
    {"cat many small files, read ahead",
     "cat",
     {NULL},
     "FASTIO_FORCE=ahead",
     FILES,
     OUT_PIPE,
     NFILES * 100,
     {"pthread_create", "unshare"},
     1},
    {"pipebench relay",
     "pipebench",
     {"-Q"},
     NULL,
     PIPE_IN,
     OUT_PIPE,
     3 * MIB,
     {"splice", "fcntl"},
     1},
    {"pipebench --pipeline relays",
     "pipebench",
     {"-Q", "--pipeline", "%"},
     NULL,
     FILE_ARG,
     OUT_PIPE,
     3 * MIB,
     {"splice", "pthread_create"},
     1},
};
#define NSETUPS (int)(sizeof setups / sizeof setups[0])

static const char *const refusals[] = {"EPERM", "ENOSYS", "EINVAL"};
#define NREFUSALS 3
/* Its first call and every later one, its second alone, a late one on. */
static const char *const whens[] = {"1+", "2", "6+"};
#define NWHENS 3

/* Each setup's input and its run without a refusal, made once. */
static struct {
	char *data, *file, *pipeline;
	char *names[NFILES];
	struct spawn_result good;
} clean[NSETUPS];

/*
 * Built for another CPU (under qemu) or with the sanitizers, where a run
 * costs several native ones, the matrix runs one refusal of the three:
 * they take one path (fio_refused), and the whole matrix runs natively.
 */
static int
quick(void)
{
#ifdef FIO_SANITIZED
	return 1;
#else
	return spawn_need_native() != NULL;
#endif
}

static void
setup_spawn(int i, struct spawn *s, const char **argv, const char **env)
{
	const struct setup *st = &setups[i];
	int n = 1, k;

	memset(s, 0, sizeof *s);
	memset(argv, 0, MAXARGS * sizeof *argv);
	argv[0] = st->prog;
	for (k = 0; k < 4 && st->args[k]; k++)
		argv[n++] = strcmp(st->args[k], "@") == 0   ? clean[i].file
			    : strcmp(st->args[k], "%") == 0 ? clean[i].pipeline
							    : st->args[k];
	if (st->in == FILES)
		for (k = 0; k < NFILES; k++)
			argv[n++] = clean[i].names[k];
	spawn_init(s, st->prog, argv, NULL, st->out);
	spawn_feed(s, st->in == PIPE_IN ? IN_PIPE : IN_DEVNULL, clean[i].data,
		   st->in == PIPE_IN ? st->len : 0);
	s->out_max = st->in == NONE ? st->len : 0;
	env[0] = st->env ? st->env : "FASTIO_DISABLE=";
	env[1] = NULL;
	s->env = env;
}

static void
make_clean_runs(void)
{
	const char *argv[MAXARGS], *env[8];
	char line[128];
	struct spawn s;
	size_t off;
	int i, k;

	for (i = 0; i < NSETUPS; i++) {
		const struct setup *st = &setups[i];

		clean[i].data = spawn_lines(st->len, "line %u\tof the input\n");
		clean[i].file = spawn_temp_path(clean[i].data, st->len);
		snprintf(line, sizeof line, "/bin/cat %s | /bin/cat",
			 clean[i].file);
		clean[i].pipeline = strdup(line);
		for (k = 0; st->in == FILES && k < NFILES; k++) {
			off = (size_t)k * (st->len / NFILES);
			clean[i].names[k] = spawn_temp_path(clean[i].data + off,
							    st->len / NFILES);
		}
		setup_spawn(i, &s, argv, env);
		ck_assert_int_eq(spawn_run(&s, &clean[i].good), 0);
		ck_assert_msg(clean[i].good.err_len == 0, "%s: %s", st->name,
			      clean[i].good.err);
		if (st->in == NONE)
			ck_assert_uint_eq(clean[i].good.out_len, st->len);
		else if (st->args[0] == NULL || strcmp(st->args[0], "-n") != 0)
			ck_assert(clean[i].good.out_len == st->len &&
				  memcmp(clean[i].good.out, clean[i].data,
					 st->len) == 0);
	}
}

static void
remove_clean_runs(void)
{
	int i, k;

	for (i = 0; i < NSETUPS; i++) {
		unlink(clean[i].file);
		free(clean[i].file);
		free(clean[i].pipeline);
		free(clean[i].data);
		for (k = 0; k < NFILES && clean[i].names[k]; k++) {
			unlink(clean[i].names[k]);
			free(clean[i].names[k]);
		}
		spawn_free(&clean[i].good);
	}
}

/* The scenarios: setup, call, refusal, when. */
struct scenario {
	int setup, call, refusal, when;
};
static struct scenario scenarios[NSETUPS * 4 * NREFUSALS * NWHENS];
static int nscenarios;

static void
make_scenarios(void)
{
	int s, c, e, w;

	for (s = 0; s < NSETUPS; s++)
		for (c = 0; c < 4 && setups[s].calls[c]; c++)
			for (e = 0; e < (quick() ? 1 : NREFUSALS); e++)
				for (w = 0; w < NWHENS; w++)
					if (!quick() || w != 1)
						scenarios[nscenarios++] =
						    (struct scenario){s, c, e,
								      w};
}

/* The run ended as the run without a refusal did, with its bytes. */
static void
same_as_clean(const struct spawn_result *r, int i, const char *what)
{
	const struct spawn_result *good = &clean[i].good;
	char msg[512];

	ck_assert_msg(strcmp(r->err, "") == 0, "%s: stderr '%s'", what, r->err);
	ck_assert_msg(r->exited == good->exited && r->status == good->status &&
			  r->signaled == good->signaled &&
			  r->signal == good->signal,
		      "%s: status %d, signal %d", what,
		      r->exited ? r->status : -1, r->signaled ? r->signal : 0);
	ck_assert_msg(lines_check(r->out, r->out_len, good->out, good->out_len,
				  0, msg, sizeof msg) == 0,
		      "%s: %s", what, msg);
}

START_TEST(refused_call)
{
	const struct scenario *sc = &scenarios[_i];
	const struct setup *st = &setups[sc->setup];
	const char *call = st->calls[sc->call], *argv[MAXARGS], *env[8];
	char spec[128], what[256];
	struct spawn_inject in;
	struct spawn s;
	struct spawn_result r;
	int reached;

	setup_spawn(sc->setup, &s, argv, env);
	snprintf(spec, sizeof spec, "%s:%s:%s", call, whens[sc->when],
		 refusals[sc->refusal]);
	spawn_inject(&in, spec, _i, env + 1);
	snprintf(what, sizeof what, "%s, %s %s from call %s", st->name, call,
		 refusals[sc->refusal], whens[sc->when]);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	reached = spawn_inject_reached(&in);
	/* The table names only calls the path makes. */
	ck_assert_msg(sc->when != 0 || reached, "%s: never called", what);
	same_as_clean(&r, sc->setup, what);
	spawn_free(&r);
}
END_TEST

/*
 * Sandboxes as they are made: a seccomp filter refusing sets of calls
 * from the first, with EPERM or ENOSYS in turn (the matrix above has
 * every errno for every call), over the setups marked.
 */
static const char *const profiles[] = {
    "splice",
    "tee,vmsplice",
    "splice,tee,vmsplice",
    "copy_file_range,sendfile",
    "setpipe",
    "clone3",
    "splice,tee,vmsplice,copy_file_range,sendfile,setpipe,clone3",
};
#define NPROFILES     (int)(sizeof profiles / sizeof profiles[0])
#define YES_SANDBOXED (64 * MIB)

/* The setups run under each sandbox: yes's held shapes are the
 * matrix's alone. */
static int sandboxed_setups[NSETUPS], nsandboxed;

START_TEST(sandboxed)
{
	int setup = sandboxed_setups[_i % nsandboxed],
	    profile = _i / nsandboxed, e = profile % 2;
	const struct setup *st = &setups[setup];
	const char *argv[MAXARGS + 3], *env[8];
	char sandbox[4200], what[256], msg[512];
	struct spawn s;
	struct spawn_result r;

	setup_spawn(setup, &s, argv + 3, env);
	snprintf(sandbox, sizeof sandbox, "%s/tests/sandbox",
		 getenv("FIO_BUILDDIR"));
	argv[0] = sandbox;
	argv[1] = refusals[e];
	argv[2] = profiles[profile];
	argv[3] = spawn_path(st->prog);
	s.argv = argv;
	s.prog = sandbox;
	snprintf(what, sizeof what, "%s, sandbox refusing %s with %s", st->name,
		 profiles[profile], refusals[e]);
	/* yes past its first probe's switches, where a sandbox's refusal
	 * once ended it after 49 MiB. */
	if (st->in == NONE)
		s.out_max = YES_SANDBOXED;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	if (r.exited && r.status == 77)
		ck_abort_msg("%s: %s", what, r.err);
	if (st->in == NONE) {
		ck_assert_msg(r.err_len == 0, "%s: stderr '%s'", what, r.err);
		ck_assert_msg(r.out_len == YES_SANDBOXED && r.signaled &&
				  r.signal == SIGPIPE,
			      "%s: %zu bytes, status %d", what, r.out_len,
			      r.status);
		ck_assert_msg(lines_check(r.out, r.out_len, "y\n", 2, 1, msg,
					  sizeof msg) == 0,
			      "%s: %s", what, msg);
	} else {
		same_as_clean(&r, setup, what);
	}
	spawn_free(&r);
}
END_TEST

static spawn_need *const native[] = {spawn_need_native, NULL};

static Suite *
refusal_suite(void)
{
	Suite *s = suite_create("refusal");
	TCase *tc = tcase_create("refused_call");
	int i;

	make_scenarios();
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, make_clean_runs, remove_clean_runs);
	tcase_add_loop_test(tc, refused_call, 0, nscenarios);
	suite_add_tcase(s, tc);
	for (i = 0; i < NSETUPS; i++)
		if (setups[i].sandboxed)
			sandboxed_setups[nsandboxed++] = i;
	tc = suite_add_needing(s, "sandbox", sandboxed, nsandboxed * NPROFILES,
			       native);
	if (tc != NULL)
		tcase_add_unchecked_fixture(tc, make_clean_runs,
					    remove_clean_runs);
	return s;
}

int
main(void)
{
	return suite_main(refusal_suite());
}
