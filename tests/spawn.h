/* SPDX-License-Identifier: MIT */
#ifndef SPAWN_H
#define SPAWN_H

/*
 * The one helper every suite uses: run a program with a chosen kind of
 * standard input and output, collect what it wrote, how it ended and its
 * standard error; and compare output with what was expected line by line.
 */

#include <check.h>
#include <stddef.h>
#include <sys/types.h>

enum spawn_in {
	IN_DEVNULL,
	IN_PIPE, /* a pipe fed with in_data, then closed */
	IN_FILE, /* a regular file holding in_data */
	IN_CLOSED,
	IN_NONBLOCK_PIPE, /* a non-blocking pipe holding in_data, its write
			   * end open until the program has exited */
	IN_FD,		  /* the test's descriptor in_fd, as it is */
};

enum spawn_out {
	OUT_PIPE,	   /* a pipe the test read()s */
	OUT_SPLICE_PIPE,   /* a pipe the test splices into holding pipes and
			    * reads only after the producer wrote as much again */
	OUT_FILE,	   /* a regular file; RLIMIT_FSIZE = out_max if set */
	OUT_APPEND_FILE,   /* a regular file opened O_APPEND */
	OUT_DEVNULL,	   /* /dev/null; with out_max, killed after that many
			    * bytes were written (per /proc/PID/io) */
	OUT_DEVFULL,	   /* /dev/full */
	OUT_CLOSED,	   /* fd 1 closed */
	OUT_NONBLOCK_PIPE, /* a non-blocking pipe, read only after the exit */
	OUT_SOCKET,	   /* a Unix stream socketpair */
	OUT_PTY,	   /* a pseudo-terminal in raw mode */
	OUT_FD,		   /* the test's descriptor out_fd, as it is */
};

struct spawn {
	const char *prog;	 /* program under src/ of the build tree, or an
				  * absolute path */
	const char *const *argv; /* argv, argv[0] included; NULL: { prog } */
	const char *const *env;	 /* extra NAME=VALUE strings, NULL-ended */
	enum spawn_in in;
	const char *in_data;
	size_t in_len;
	enum spawn_out out;
	size_t out_max; /* stop after this many bytes (0: read to EOF) */
	size_t err_min; /* IN_PIPE: keep stdin open (after in_data) until
			 * standard error has this many bytes */
	int ignore_sigpipe;
	int signal; /* OUT_PIPE with out_max: send it once out_max bytes came,
		     * then read on to EOF */
	void (*midway)(void *); /* OUT_PIPE with out_max: call it once
				 * out_max bytes came, then read on to EOF */
	void *midway_arg;
	unsigned long vm_limit;	 /* RLIMIT_AS in bytes, 0 for none */
	unsigned long nofile;	 /* RLIMIT_NOFILE, 0 for unchanged */
	int in_fd, out_fd;	 /* for IN_FD and OUT_FD */
	unsigned uid;		 /* run as this user and group, if not 0 */
	const char *out_compare; /* OUT_PIPE, OUT_SOCKET: compare the output
				  * with this file as it comes instead of
				  * keeping it (out_len counts it) */
	unsigned short err_cols; /* stderr a terminal this wide (raw), not a
				  * pipe */
	int watch_rss;		 /* OUT_FILE with out_max: the peak RSS
				  * noted, killed at out_max as OUT_DEVNULL */
	int spend_pipe_quota;	 /* with uid: first hold pipes grown to 1 MiB
				  * until the user's soft pipe quota is spent
				  * (status 125 if it cannot be) */
	int err_closed;		 /* fd 2 closed: nothing of stderr kept */
};

struct spawn_result {
	int exited, status;   /* exit status when exited */
	int signaled, signal; /* terminating signal otherwise */
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
	unsigned long peak_rss_kb; /* VmHWM seen while it ran (OUT_DEVNULL) */
	unsigned long cpu_ms;	   /* user + system CPU time it used */
	long long out_differs;	   /* out_compare: first differing offset
				    * (the file's length if the output is
				    * longer), or -1 */
};

/*
 * Full path of a program of the build tree, from $FIO_BUILDDIR:
 * src/yes, src/cat/cat, src/pipebench/pipebench; an absolute path as it
 * is.
 */
const char *spawn_path(const char *prog);

/*
 * A copy of that program another user may run (the build tree may be out
 * of reach, under /root), in a directory of its own under /tmp removed
 * at exit; NULL on failure. Valid until the next call.
 */
const char *spawn_path_as_other(const char *prog);

/*
 * spawn_init: what every case sets: s runs prog with argv (NULL: { prog
 * }) and the extra environment env (NULL-ended, or NULL), its standard
 * output of the kind out. Other fields are left as they are (a case's
 * struct starts {0}: standard input /dev/null). spawn_feed: standard
 * input of the kind in, holding len bytes of data (IN_PIPE, IN_FILE,
 * IN_NONBLOCK_PIPE).
 */
void spawn_init(struct spawn *s, const char *prog, const char *const *argv,
		const char *const *env, enum spawn_out out);
void spawn_feed(struct spawn *s, enum spawn_in in, const char *data,
		size_t len);

/*
 * A pseudo-terminal in raw mode: its master and slave, or -1 (errno set;
 * the ends opened so far are in *master and *slave, -1 otherwise).
 */
int spawn_open_pty(int *master, int *slave);

/* Run s; returns 0, or -1 if the test's own setup failed (errno set). */
int spawn_run(const struct spawn *s, struct spawn_result *r);

/*
 * For a test that works with a program while it runs: spawn_start
 * starts s's program and returns at once; its standard input and output
 * as s says, the test's ends in c->to (IN_PIPE: nothing fed, a blocking
 * end) and c->from (OUT_PIPE, OUT_FILE, ...), -1 where it has none; its
 * standard error kept for the end. spawn_finish closes c->to, waits,
 * and gives how it ended, what c->from still held (a file: all of it)
 * and its standard error. Both return 0, or -1 if the test's own setup
 * failed.
 */
struct spawn_child {
	pid_t pid;
	int to, from, err;
};
int spawn_start(const struct spawn *s, struct spawn_child *c);
int spawn_finish(struct spawn_child *c, struct spawn_result *r);

/*
 * Nonzero once every thread of process pid sleeps (state S in /proc): a
 * program that reads an empty pipe has blocked in its read. Tests poll
 * it to act at that moment, and assert nothing about time.
 */
int spawn_waits(pid_t pid);

void spawn_free(struct spawn_result *r);

/*
 * len bytes of lines made by format from the line number (0, 1, ...), the
 * last one cut; malloc'd with room for 255 more bytes.
 */
char *spawn_lines(size_t len, const char *format);

/* A new file under /tmp holding len bytes of data: its path (malloc'd). */
char *spawn_temp_path(const char *data, size_t len);

/*
 * A descriptor of a new, already unlinked file under /tmp holding the
 * string data (NULL: empty), opened O_RDWR | flags at offset 0.
 */
int spawn_temp_fd(const char *data, int flags);

/*
 * The program at path started with argv (execv), its standard input in
 * (-1: ours), its standard output, if out is not NULL, a new pipe whose
 * read end comes back in *out (else ours), every other descriptor of
 * ours closed; each env entry put in its environment ("NAME=value"; a
 * bare "NAME" unsets it); SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGUSR1 and
 * SIGUSR2 as by default. Its pid; the test fails if it cannot fork.
 */
pid_t spawn_piped(const char *path, const char *const *argv,
		  const char *const *env, int in, int *out);

/*
 * A new pipe grown to 1 MiB, for the votes' readers; the test fails if
 * the size is refused (the suites run as root, above any pipe quota).
 */
void spawn_mib_pipe(int p[2]);

/*
 * For the votes' readers: wait until the pipe fd holds at least bytes. A
 * pipe has no "full" event to wait for: it looks again and again, leaving
 * the CPU to the producer in between (no timing is asserted). Returns
 * what it held then, or -1 if FIONREAD failed.
 */
ssize_t spawn_wait_pipe(int fd, size_t bytes);

/*
 * The smallest RLIMIT_AS (to 64 KiB) under which `prog --version` runs:
 * the base for tests that run a tool a little above it, as GNU's do.
 */
unsigned long spawn_version_needs(const char *prog);

/*
 * Compare got with want line by line. With repeat, want is a pattern and
 * got must be a prefix of it repeated forever; without, got must equal it.
 * Returns 0 on a match, else 1 with msg describing the first mismatching
 * line by number, expected and received text.
 */
int lines_check(const char *got, size_t got_len, const char *want,
		size_t want_len, int repeat, char *msg, size_t msg_size);

/* The whole file at path (malloc'd, a NUL after its *len bytes). */
char *spawn_slurp(const char *path, size_t *len);

/*
 * The run gave exactly want on stdout (line by line, the first mismatch
 * named), nothing on stderr, and status 0; what names it in a failure.
 */
void spawn_check_output(const struct spawn_result *r, const char *want,
			size_t want_len, const char *what);

/*
 * Run our pipebench with argv, as s says otherwise (its input, output
 * and environment); the case fails if the run could not be set up.
 */
void spawn_pipebench(struct spawn *s, struct spawn_result *r,
		     const char *const *argv);

/*
 * argv[1..] from the case's args (at most n, NULL-ended if fewer), each
 * "@" standing for path.
 */
void spawn_with_args(const char **argv, const char *const *args, int n,
		     const char *path);

/*
 * Fault injection (tests/inject.so): spawn_inject sets env[0..4) to
 * preload it with FIO_INJECT=spec (CALL:N:WHAT) and a log of its own
 * for case id, env[4] to NULL; spawn_inject_reached, after the run, says
 * whether an injection happened, and removes the log.
 */
struct spawn_inject {
	char preload[4200], inject[160], logpath[80], logenv[100];
};
void spawn_inject(struct spawn_inject *in, const char *spec, int id,
		  const char **env);
int spawn_inject_reached(struct spawn_inject *in);

/* The number after "key": in a line of JSON, or -1 if there is none. */
double spawn_json_number(const char *json, const char *key);

/*
 * Run a suite with Check's usual output; the exit status for automake:
 * 77 in a needs build (below) whose cases cannot run here, after a line
 * saying why.
 */
int suite_main(Suite *s);

/*
 * The length of our --help's out (len bytes) before the two lines of our
 * own that end it, where GNU's says where to report bugs: what must begin
 * GNU's --help. 0 if out does not end in a blank line and two more.
 */
size_t spawn_help_body(const char *out, size_t len);

/* Where the tests that use strace as a witness find it. */
#define SPAWN_STRACE "/usr/bin/strace"

/*
 * What a test case may need of the machine: each returns NULL where it
 * has it, else the reason it does not.
 *   spawn_need_native: the programs are this machine's own build, not
 *     one for another CPU (FIO_FOREIGN, set by tests/cross.sh): only then
 *     are a child's peak RSS, its syscalls under strace (qemu's, or a
 *     32-bit program's other names) and valgrind its own, and do this
 *     machine's programs (sh, pipebench 0.40) load our preloaded
 *     libraries.
 *   spawn_need_strace: SPAWN_STRACE, watching native programs.
 *   spawn_need_gnu_cat: GNU's cat as /usr/bin/cat.
 *   spawn_need_two_cpus: the process may run on two CPUs.
 *   spawn_need_unsanitized: a build without AddressSanitizer, whose
 *     shadow memory counts in the RSS and which reserves terabytes of
 *     address space.
 *   spawn_need_plain_build: a build as shipped, neither sanitized nor
 *     built for coverage (gcov's counters and code built without
 *     optimisation: about 300 KiB more resident in cat).
 *   spawn_need_root: root, who alone can run a program as an ordinary
 *     user (the pipe quota spares root and CAP_SYS_RESOURCE).
 *   spawn_need_pty: a pseudo-terminal (posix_openpt works: /dev/pts is
 *     mounted, as a bare chroot's is not).
 *   spawn_need_quiet: FIO_TIMING set (make check-timing): the case
 *     asserts how often something slept or woke, which a machine busy
 *     with other work changes; a plain make check never runs it, as
 *     GNU's RUN_EXPENSIVE_TESTS keeps such tests out of its own.
 */
typedef const char *spawn_need(void);
const char *spawn_need_native(void);
const char *spawn_need_strace(void);
const char *spawn_need_gnu_cat(void);
const char *spawn_need_two_cpus(void);
const char *spawn_need_unsanitized(void);
const char *spawn_need_plain_build(void);
const char *spawn_need_root(void);
const char *spawn_need_pty(void);
const char *spawn_need_quiet(void);

/*
 * Add a test case named name that loops test over [0, n) to s, with a
 * timeout of 60 s, needing what each of the NULL-ended needs asks. Such
 * cases run only where the suite is built with SPAWN_NEEDS (check_X_needs
 * beside check_X, from the same sources): the plain build leaves them
 * out, so that it never passes without them. The needs build runs those
 * whose needs this machine meets; if it had to leave any out, it says
 * which and why and exits 77 (automake's SKIP), never 0. Returns the
 * test case added (for its fixtures), or NULL.
 */
TCase *suite_add_needing(Suite *s, const char *name, const TTest *test, int n,
			 spawn_need *const *needs);

#endif
