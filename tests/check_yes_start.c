/* SPDX-License-Identifier: MIT */
/*
 * The start of a yes stream (src/fastio/repeat.c, repeat_start): what
 * the readers that take a few lines and close see, and that nothing of
 * the zero-copy machinery is built before the stream has shown that it
 * is long. Each first write holds what GNU 9.1's does, whole lines that
 * fill 8 KiB, or one line if longer: readers such as `dd bs=1K count=4`
 * without iflag=fullblock (dpkg's tests) or `tr -d '\n' | dd bs=250
 * count=1` (e2fsprogs') see what one write gave them.
 */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/tune.h"
#include "spawn.h"

#define MIB ((size_t)1 << 20)

/* Lines by length: GNU 9.1 writes BUFSIZ / len whole lines up to 4 KiB. */
static const size_t line_sizes[] = {2, 1, 4, 5, 4096, 4097, 5000, 8193, 20000};
#define NLINES (int)(sizeof line_sizes / sizeof line_sizes[0])

/* GNU 9.1's write for a line of len bytes (BUFSIZ = 8192). */
static size_t
gnu_write(size_t len)
{
	return len <= 4096 ? 8192 / len * len : len;
}

/* One operand making a len-byte line ("y" for the default). */
static char *
operand(size_t len)
{
	char *p = malloc(len);
	size_t i;

	for (i = 0; i + 1 < len; i++)
		p[i] = (char)('a' + i % 26);
	p[len - 1] = '\0';
	return p;
}

/* yes ARG (NULL: none) writing into a new pipe; its read end in *fd. */
static pid_t
start_yes(const char *arg, const char *disable, int *fd)
{
	const char *argv[] = {"yes", arg, NULL};
	char env[256];
	const char *envp[] = {env, NULL};

	snprintf(env, sizeof env, "FASTIO_DISABLE=%s", disable ? disable : "");
	return spawn_piped(spawn_path("yes"), argv, disable ? envp : NULL, -1,
			   fd);
}

static void
stop_yes(pid_t pid, int fd)
{
	int status;

	close(fd);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE,
		      "status %#x", status);
}

/* The line a len-byte operand repeats: the operand and a newline. */
static char *
line_of(const char *arg, size_t len)
{
	char *line = malloc(len);

	memcpy(line, arg, len - 1);
	line[len - 1] = '\n';
	return line;
}

/* The first read of an empty pipe: at least GNU 9.1's first write. */
START_TEST(first_write)
{
	size_t len = line_sizes[_i], bufsize = 256 * 1024;
	char *arg = len == 2 ? NULL : operand(len), *buf = malloc(bufsize);
	char *line = line_of(arg ? arg : "y", len), msg[512];
	ssize_t n;
	pid_t pid;
	int fd;

	pid = start_yes(arg, NULL, &fd);
	n = read(fd, buf, bufsize);
	ck_assert_msg(n >= (ssize_t)gnu_write(len),
		      "line of %zu bytes: first read %zd, GNU 9.1 writes %zu",
		      len, n, gnu_write(len));
	ck_assert_msg(
	    lines_check(buf, (size_t)n, line, len, 1, msg, sizeof msg) == 0,
	    "%s", msg);
	stop_yes(pid, fd);
	free(arg);
	free(buf);
	free(line);
}
END_TEST

/* Reads of 1 KiB, as dd bs=1K makes them: every one is whole. */
START_TEST(small_reads)
{
	char buf[1024], msg[512];
	const char *arg = _i ? "" : NULL;
	pid_t pid;
	int fd, k;

	pid = start_yes(arg, NULL, &fd);
	for (k = 0; k < 64; k++) {
		ck_assert_int_eq(read(fd, buf, sizeof buf), sizeof buf);
		ck_assert_msg(lines_check(buf, sizeof buf, _i ? "\n" : "y\n",
					  _i ? 1 : 2, 1, msg, sizeof msg) == 0,
			      "%s", msg);
	}
	stop_yes(pid, fd);
}
END_TEST

/*
 * Consumers as their projects' tests run them, through /bin/sh; "YES"
 * stands for our yes. Their output, exactly.
 */
static const struct {
	const char *script, *out;
} consumers[] = {
    {"YES | dd bs=1K count=4 2>/dev/null | wc -c", "4096\n"},
    {"YES | tr -d '\\n' | dd bs=250 count=1 2>/dev/null | wc -c", "250\n"},
    {"YES a | dd bs=1k count=2048 iflag=fullblock 2>/dev/null | md5sum", NULL},
    {"YES | head -n 3", "y\ny\ny\n"},
    {"YES '' | head -c 5 | od -An -c | tr -s ' '", " \\n \\n \\n \\n \\n\n"},
    /* GNU's test harness asks this before four of its tests. */
    {"(trap '' PIPE && YES | :) 2>&1 | grep -cF 'Broken pipe'", "1\n"},
    {"YES | (read a; read b; echo \"$a$b\")", "yy\n"},
};
#define NCONSUMERS (int)(sizeof consumers / sizeof consumers[0])

START_TEST(consumer_shapes)
{
	const char *script = consumers[_i].script, *yes = spawn_path("yes");
	const char *argv[] = {"sh", "-c", NULL, NULL};
	char cmd[512];
	const char *at;
	struct spawn s = {0};
	struct spawn_result r;

	at = strstr(script, "YES");
	snprintf(cmd, sizeof cmd, "%.*s%s%s", (int)(at - script), script, yes,
		 at + 3);
	argv[2] = cmd;
	spawn_init(&s, "/bin/sh", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 0, "%s: status %d: %s", cmd,
		      r.status, r.err);
	if (consumers[_i].out != NULL)
		ck_assert_str_eq(r.out, consumers[_i].out);
	else /* 2 MiB of "a\n", its MD5 */
		ck_assert_str_eq(r.out,
				 "e114651808dc646cf7a7662bba4d2214  -\n");
	spawn_free(&r);
}
END_TEST

/*
 * Under strace: a reader that takes a little less than FIO_START_BYTES
 * and closes sees no pipe made or grown, no tee, splice or vmsplice and
 * no huge page asked for, and every write() that went through held
 * FIO_START_CHUNK of whole lines, as GNU 9.1's 8 KiB; one that
 * takes 8 MiB sees the tee rounds start. The switch comes once the
 * reader has taken FIO_START_BYTES more than the pipe holds: a reader of
 * that much may or may not see it, as it closes before or after yes has
 * filled the pipe again; one of a chunk less never does.
 */
START_TEST(machinery_when_long)
{
	size_t want = _i ? 8 * MIB : FIO_START_BYTES - FIO_START_CHUNK, got = 0;
	char *log = spawn_temp_path("", 0), *buf = malloc(MIB), line[512];
	const char *argv[] = {
	    "strace",
	    "-qq",
	    "-o",
	    log,
	    "-e",
	    "trace=pipe2,fcntl,tee,splice,vmsplice,madvise,write",
	    spawn_path("yes"),
	    NULL};
	const char *env[] = {"ASAN_OPTIONS=detect_leaks=0", NULL};
	int fd, status, machinery = 0, writes = 0;
	long written;
	ssize_t n;
	pid_t pid;
	FILE *f;

	pid = spawn_piped(SPAWN_STRACE, argv, env, -1, &fd);
	while (got < want &&
	       (n = read(fd, buf, want - got < MIB ? want - got : MIB)) > 0)
		got += (size_t)n;
	ck_assert_uint_eq(got, want);
	close(fd);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	f = fopen(log, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "write(1,", 8) == 0 && !machinery &&
		    sscanf(strrchr(line, '=') + 1, "%ld", &written) == 1 &&
		    written >= 0) {
			ck_assert_msg(written == FIO_START_CHUNK, "%s", line);
			writes++;
		}
		if (strstr(line, "pipe2(") || strstr(line, "F_SETPIPE_SZ") ||
		    strstr(line, "tee(") || strstr(line, "splice(") ||
		    strstr(line, "MADV_HUGEPAGE")) {
			if (!_i)
				ck_abort_msg("%zu bytes read: %s", want, line);
			machinery = 1;
		}
	}
	fclose(f);
	ck_assert_int_eq(machinery, _i);
	/* What the reader took, at the least. */
	ck_assert_int_ge(
	    writes, (int)((want < FIO_START_BYTES ? want : FIO_START_BYTES) /
			  FIO_START_CHUNK) -
			1);
	unlink(log);
	free(log);
	free(buf);
}
END_TEST

static spawn_need *const strace[] = {spawn_need_strace, NULL};

static Suite *
start_suite(void)
{
	Suite *s = suite_create("yes_start");
	TCase *tc = tcase_create("reads");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, first_write, 0, NLINES);
	tcase_add_loop_test(tc, small_reads, 0, 2);
	tcase_add_loop_test(tc, consumer_shapes, 0, NCONSUMERS);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "strace", machinery_when_long, 2, strace);
	return s;
}

int
main(void)
{
	return suite_main(start_suite());
}
