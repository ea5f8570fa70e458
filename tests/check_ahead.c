/* SPDX-License-Identifier: MIT */
/*
 * Reading small files ahead (src/fastio/ahead.c), through cat: forced on
 * (batches of two names, so both threads take turns), off, and left to
 * choose over enough names to start; every kind of operand and of output,
 * as nobody when root (so that a file can be unreadable); stdout, stderr
 * and status against GNU's cat run the same way. Then faults in the reads
 * ahead, which must cost nothing but time.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#define GNU_CAT "/usr/bin/cat"
#define NTINY	150 /* with the others, more than FIO_AHEAD_MIN */

/* Around FIO_SMALL_FILE (16 KiB), and the room a forced batch has. */
static const size_t sizes[] = {0, 1, 4095, 16383, 16384, 16385, 40000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static const char *const others[] = {
    "dir", "fifo", "missing", "noperm", "/proc/version", "io", "-", NULL,
};

static const char *const modes[] = {
    "FASTIO_FORCE=ahead", "FASTIO_DISABLE=ahead",
    "FASTIO_DISABLE=", /* left to choose: NTINY names start it */
};
#define NMODES 3

enum out { TO_PIPE, TO_IO, TO_NULL, TO_FULL, NOUTS };
#define NROTATE 3

static char dir[] = "/tmp/fastio-ahead-XXXXXX";
static char *names[NSIZES + NTINY + 8];
/*
 * Where a coverage build run as nobody writes its counters: where it
 * may, or it says on stderr that it cannot (and GNU's cat does not).
 */
static char gcov[64];
static size_t nnames;

static void
put_file(const char *name, const char *data, size_t len, mode_t mode)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ck_assert_msg(fd >= 0, "%s: %s", name, strerror(errno));
	ck_assert(len == 0 || write(fd, data, len) == (ssize_t)len);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* The operands, rotated by r; every file in dir, the cwd. */
static void
setup(int r)
{
	static char text[40000];
	char name[32];
	size_t i, n = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chdir(dir), 0);
	for (i = 0; i < sizeof text; i++)
		text[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	for (i = 0; i < NSIZES; i++) {
		snprintf(name, sizeof name, "s%zu", sizes[i]);
		put_file(name, text, sizes[i], 0644);
		names[n++] = strdup(name);
	}
	ck_assert_int_eq(mkdir("dir", 0755), 0);
	ck_assert_int_eq(mkfifo("fifo", 0666), 0);
	ck_assert_int_eq(mkdir("gcov", 0777), 0);
	ck_assert_int_eq(chmod("gcov", 0777), 0);
	snprintf(gcov, sizeof gcov, "GCOV_PREFIX=%s/gcov", dir);
	put_file("noperm", "secret\n", 7, 0);
	for (i = 0; others[i] != NULL; i++)
		names[n++] = strdup(others[i]);
	for (i = 0; i < NTINY; i++) {
		snprintf(name, sizeof name, "hoge%zu", i);
		snprintf(text, sizeof text, "hoge%zu\n", i);
		put_file(name, text, strlen(text), 0644);
		names[n++] = strdup(name);
	}
	nnames = n;
	/* Rotated so each kind meets the batches' edges elsewhere. */
	for (i = 0; i < (size_t)r * 5; i++) {
		char *first = names[0];

		memmove(names, names + 1, (n - 1) * sizeof *names);
		names[n - 1] = first;
	}
}

static void
teardown(void)
{
	char cmd[128];

	ck_assert_int_eq(chdir("/"), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/fastio-ahead-XXXXXX");
	while (nnames > 0)
		free(names[--nnames]);
}

/* A writer for the FIFO, killed after the run if cat never opened it. */
static pid_t
fifo_writer(void)
{
	pid_t pid = fork();
	int fd;

	ck_assert(pid >= 0);
	if (pid == 0) {
		fd = open("fifo", O_WRONLY | O_CLOEXEC);
		_exit(fd >= 0 && write(fd, "fifo\n", 5) == 5 ? 0 : 1);
	}
	return pid;
}

/*
 * Run s with the operands after argv[0..at), standard input a file, and a
 * writer waiting at the FIFO.
 */
static void
run_operands(struct spawn *s, const char **argv, size_t at,
	     struct spawn_result *r)
{
	size_t i;
	pid_t w;

	for (i = 0; i < nnames; i++)
		argv[at + i] = names[i];
	argv[at + i] = NULL;
	s->argv = argv;
	spawn_feed(s, IN_FILE, "stdin\n", 6);
	w = fifo_writer();
	ck_assert_int_eq(spawn_run(s, r), 0);
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
}

struct run {
	struct spawn_result r;
	char *out;
	size_t out_len;
};

static void
run_cat(const char *prog, const char *env, enum out to, struct run *x)
{
	const char *argv[NSIZES + NTINY + 10], *envv[] = {gcov, env, NULL};
	struct spawn s = {0};
	int io;

	argv[0] = "cat";
	put_file("io", "io\n", 3, 0666);
	spawn_init(&s, prog, argv, envv,
		   to == TO_PIPE   ? OUT_PIPE
		   : to == TO_IO   ? OUT_FD
		   : to == TO_NULL ? OUT_DEVNULL
				   : OUT_DEVFULL);
	/* Root reads every file: the unreadable one needs another user. */
	s.uid = geteuid() == 0 ? 65534 : 0;
	io = open("io", O_WRONLY | O_APPEND | O_CLOEXEC);
	ck_assert(io >= 0);
	s.out_fd = io;
	run_operands(&s, argv, 1, &x->r);
	close(io);
	x->out = x->r.out;
	x->out_len = x->r.out_len;
	if (to == TO_IO) {
		struct stat st;

		io = open("io", O_RDONLY | O_CLOEXEC);
		ck_assert(io >= 0 && fstat(io, &st) == 0);
		x->out = malloc((size_t)st.st_size + 1);
		x->out_len = (size_t)read(io, x->out, (size_t)st.st_size);
		close(io);
	}
}

START_TEST(against_gnu)
{
	int mode = _i % NMODES, r = _i / NMODES % NROTATE;
	enum out to = (enum out)(_i / NMODES / NROTATE);
	struct run ours, gnu;
	char msg[512];

	setup(r);
	run_cat("cat", modes[mode], to, &ours);
	run_cat(GNU_CAT, NULL, to, &gnu);
	ck_assert_msg(lines_check(ours.out, ours.out_len, gnu.out, gnu.out_len,
				  0, msg, sizeof msg) == 0,
		      "case %d (%s, output %d): %s", _i, modes[mode], to, msg);
	ck_assert_msg(strcmp(ours.r.err, gnu.r.err) == 0,
		      "case %d: stderr '%s', GNU's '%s'", _i, ours.r.err,
		      gnu.r.err);
	ck_assert_msg(
	    ours.r.exited && gnu.r.exited && ours.r.status == gnu.r.status,
	    "case %d: status %d, GNU's %d", _i, ours.r.status, gnu.r.status);
	if (to == TO_IO) {
		free(ours.out);
		free(gnu.out);
	}
	spawn_free(&ours.r);
	spawn_free(&gnu.r);
	teardown();
}
END_TEST

/*
 * Standard error into the same pipe as the output: each message comes
 * after the output of the operands before it and before the next's, as
 * GNU's do. Both found through PATH as "cat", so the messages agree.
 */
static void
run_merged(const char *cat, const char *env, struct spawn_result *r)
{
	char bin[64], link[96], path[128];
	const char *argv[NSIZES + NTINY + 16], *envv[] = {path, env, NULL};
	struct spawn s = {0};

	snprintf(bin, sizeof bin, "%s/bin", dir);
	snprintf(link, sizeof link, "%s/cat", bin);
	(void)unlink(link);
	(void)mkdir(bin, 0755);
	ck_assert_int_eq(symlink(cat, link), 0);
	snprintf(path, sizeof path, "PATH=%s:/usr/bin:/bin", bin);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = "exec cat \"$@\" 2>&1";
	argv[3] = "sh";
	put_file("io", "io\n", 3, 0666);
	spawn_init(&s, "/bin/sh", argv, envv, OUT_PIPE);
	run_operands(&s, argv, 4, r);
}

START_TEST(interleaved)
{
	struct spawn_result ours, gnu;
	char msg[512];

	setup(_i / NMODES);
	run_merged(spawn_path("cat"), modes[_i % NMODES], &ours);
	run_merged(GNU_CAT, NULL, &gnu);
	ck_assert_msg(lines_check(ours.out, ours.out_len, gnu.out, gnu.out_len,
				  0, msg, sizeof msg) == 0,
		      "case %d (%s): %s", _i, modes[_i % NMODES], msg);
	ck_assert(ours.exited && gnu.exited && ours.status == gnu.status);
	spawn_free(&ours);
	spawn_free(&gnu);
	teardown();
}
END_TEST

/*
 * A read or open ahead that fails, or a read that stops short (a file
 * that shrank), hands the file to cat's own path, which reads it well:
 * all bytes, no message. The same fault without reading ahead is cat's
 * own and GNU's message. Reading ahead refused (no memory) leaves cat's
 * own path alone, and a thread refused a table of its own (a container's
 * seccomp) reads ahead in the shared one.
 */
static const struct {
	const char *inject, *env, *err;
	int status;
} faults[] = {
    {"read:3:EIO", "FASTIO_FORCE=ahead", "", 0},
    {"read:3:short", "FASTIO_FORCE=ahead", "", 0},
    {"open:3:EMFILE", "FASTIO_FORCE=ahead", "", 0},
    {"mmap:2:ENOMEM", "FASTIO_FORCE=ahead", "", 0},
    {"unshare:1:EPERM", "FASTIO_FORCE=ahead", "", 0},
    {"read:3:EIO", "FASTIO_DISABLE=ahead", "cat: hoge2: Input/output error\n",
     1},
};
#define NFAULTS (int)(sizeof faults / sizeof faults[0])

START_TEST(faults_ahead)
{
	char preload[PATH_MAX + 32], inject[64], logenv[96], logpath[64];
	char want[2048], got_log[256] = "";
	const char *argv[12] = {"cat"}, *env[6];
	struct spawn s = {0};
	struct spawn_result r;
	size_t len = 0;
	FILE *f;
	int i;

	setup(0);
	for (i = 0; i < 10; i++) {
		argv[i + 1] = names[NSIZES + 7 + (size_t)i];
		len += (size_t)snprintf(want + len, sizeof want - len,
					"hoge%d\n", i);
	}
	/* The pid too: another build's suite may run beside this one. */
	snprintf(logpath, sizeof logpath, "/tmp/check_ahead.%ld.%d.log",
		 (long)getpid(), _i);
	unlink(logpath);
	snprintf(preload, sizeof preload, "LD_PRELOAD=%s/tests/inject.so",
		 getenv("FIO_BUILDDIR"));
	snprintf(inject, sizeof inject, "FIO_INJECT=%s", faults[_i].inject);
	snprintf(logenv, sizeof logenv, "FIO_INJECT_LOG=%s", logpath);
	env[0] = faults[_i].env;
	env[1] = preload;
	env[2] = inject;
	env[3] = logenv;
	env[4] = "ASAN_OPTIONS=verify_asan_link_order=0";
	env[5] = NULL;
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	f = fopen(logpath, "r");
	ck_assert_msg(f != NULL && fread(got_log, 1, sizeof got_log - 1, f) > 0,
		      "case %d: the fault was not reached", _i);
	fclose(f);
	unlink(logpath);
	ck_assert_str_eq(r.err, faults[_i].err);
	ck_assert(r.exited && r.status == faults[_i].status);
	if (faults[_i].status == 0)
		ck_assert(r.out_len == len && memcmp(r.out, want, len) == 0);
	spawn_free(&r);
	teardown();
}
END_TEST

static spawn_need *const gnu[] = {spawn_need_gnu_cat, NULL};

static Suite *
ahead_suite(void)
{
	Suite *s = suite_create("ahead");
	TCase *tc = tcase_create("ahead");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, faults_ahead, 0, NFAULTS);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "gnu", against_gnu, NMODES * NROTATE * NOUTS, gnu);
	suite_add_needing(s, "interleaved", interleaved, NMODES * NROTATE, gnu);
	return s;
}

int
main(void)
{
	return suite_main(ahead_suite());
}
