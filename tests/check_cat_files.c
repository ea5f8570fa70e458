/* SPDX-License-Identifier: MIT */
/*
 * cat on files beyond the ordinary: past 2 GiB and larger than any
 * buffer, read cold from a disk without reading further ahead than its
 * pipes hold, /proc and sysfs files whose size says nothing, a FIFO whose
 * writer waits for the line it wrote to come out; and cat -n's peak RSS.
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_cat.h"
#include "spawn.h"

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

	spawn_init(&s, "cat", argv, forced[_i % NFORCED],
		   _i / NFORCED ? OUT_FILE : OUT_PIPE);
	spawn_feed(&s, _i / NFORCED ? IN_FILE : IN_DEVNULL, NULL, 0);
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
	want = spawn_slurp(path, &len);
	spawn_init(&s, "cat", argv, forced[_i], _i % 2 ? OUT_FILE : OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	spawn_check_output(&r, want, len, path);
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
	const char *argv[] = {"cat", opt, NULL},
		   *env[] = {"FASTIO_DISABLE", NULL};
	int in[2], out, status;
	pid_t pid;

	ck_assert(pipe(in) == 0);
	pid = spawn_piped(spawn_path("cat"), argv, env, in[0], &out);
	close(in[0]);
	ck_assert(write(in[1], "one\n", 4) == 4);
	ck_assert_msg(await(out, _i ? "     1\tone\n" : "one\n"),
		      "line 1 did not arrive before line 2 was sent");
	ck_assert(write(in[1], "two\n", 4) == 4);
	ck_assert(await(out, _i ? "     2\ttwo\n" : "two\n"));
	close(in[1]);
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(out);
}
END_TEST

/* A file of n copies of the small inputs, returned as a path. */
static char *
big_file(int copies, char **data, size_t *len)
{
	char *one;
	size_t n;
	int i;

	one = golden_joined(small_inputs, &n);
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
	spawn_init(&s, "/bin/sh", argv, NULL, OUT_PIPE);
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
	spawn_init(&s, "/bin/sh", argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&s, &from_file), 0);
	spawn_init(&p, "cat", piped, NULL, OUT_PIPE);
	spawn_feed(&p, IN_PIPE, data + skip, len - skip);
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
 * cat -n's peak RSS stays within 1.5 MiB of GNU cat's (the system's
 * /usr/bin/cat), both stopped after 32 MiB of output of a 48 MiB file:
 * into /dev/null, and into a file, where our writer's thread and its
 * buffers run from 8 MiB on (FIO_WRITER_START). The target is 1 MiB over
 * GNU HEAD's cat (BENCHMARKS.md, "What the targets mean"); Debian 12's
 * cat (9.1) holds about 500 KiB less than 9.10 on this file. Each side
 * is the median of three runs: a run's peak moves by 200 KiB with how
 * far the writer's thread lags.
 */
static unsigned long
median_rss(struct spawn *s, const char *prog)
{
	unsigned long kb[3], lo, hi;
	struct spawn_result r;
	int i;

	s->prog = prog;
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(spawn_run(s, &r), 0);
		kb[i] = r.peak_rss_kb;
		spawn_free(&r);
		ck_assert_uint_gt(kb[i], 0);
	}
	/* The third clamped between the other two. */
	lo = kb[0] < kb[1] ? kb[0] : kb[1];
	hi = kb[0] < kb[1] ? kb[1] : kb[0];
	return kb[2] < lo ? lo : kb[2] > hi ? hi : kb[2];
}

START_TEST(peak_rss)
{
	size_t len = 48u << 20;
	char *data, *path;
	const char *argv[] = {"cat", "-n", NULL, NULL};
	struct spawn s = {0};
	unsigned long ours, gnu;
	int i;

	data = spawn_lines(len, "%u: a line of text\n");
	path = spawn_temp_path(data, len);
	argv[2] = path;
	s.argv = argv;
	s.out_max = 32u << 20;
	s.watch_rss = 1;
	for (i = 0; i < 2; i++) {
		s.out = i == 0 ? OUT_DEVNULL : OUT_FILE;
		gnu = median_rss(&s, "/usr/bin/cat");
		ours = median_rss(&s, "cat");
		ck_assert_msg(ours <= gnu + 1536,
			      "%s: peak RSS %lu KiB, GNU's %lu KiB",
			      i == 0 ? "/dev/null" : "file", ours, gnu);
	}
	unlink(path);
	free(path);
	free(data);
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
	int fd, i, tries, warm;

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
	iov.iov_base = &byte;
	iov.iov_len = 1;
	/* A drop skips a page that reclaim or another CPU's batch holds at
	 * that moment, as a busy machine's may: drop again before taking
	 * the file system for one that keeps files in memory. */
	for (tries = 0, warm = 1; why == NULL && warm && tries < 8; tries++)
		if (fsync(fd) != 0 ||
		    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
			why = "the build tree's file system cannot drop pages";
		else
			warm = preadv2(fd, &iov, 1, 0, RWF_NOWAIT) == 1;
	if (why == NULL && warm)
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
	const char *why = cold_file(COLD_MIB);
	unsigned long long ours, plain;
	size_t pipe_size;

	ck_assert_msg(why == NULL, "a file of %d MiB: %s", COLD_MIB, why);
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

/* peak_rss: GNU's cat to compare with, a native run and a build as
 * shipped, whose RSS is the one users get. */
static spawn_need *const rss[] = {spawn_need_gnu_cat, spawn_need_native,
				  spawn_need_plain_build, NULL};

static Suite *
cat_files_suite(void)
{
	Suite *s = suite_create("cat_files");
	TCase *tc = tcase_create("cat_files");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, large_files, 0, 6);
	tcase_add_loop_test(tc, past_2gib, 0, 4);
	tcase_add_loop_test(tc, pseudo_files, 0, 2 * NFORCED);
	tcase_add_loop_test(tc, sysfs_file, 0, NFORCED);
	tcase_add_loop_test(tc, interactive_flush, 0, 2);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "rss", peak_rss, 1, rss);
	suite_add_needing(s, "cold", cold_window, 1, cold);
	return s;
}

int
main(void)
{
	return suite_main(cat_files_suite());
}
