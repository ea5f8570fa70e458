/* SPDX-License-Identifier: MIT */
/*
 * Hostile and changing inputs: files that grow, shrink or are replaced
 * while cat reads them, a FIFO whose writer stalls, eventfds, memfds,
 * endless devices, and the names and files GNU has exact messages for.
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
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"

/* What cat (with -n if number) makes of in[0..len), malloc'd. */
static char *
cat_output(const char *in, size_t len, int number, size_t *out_len)
{
	size_t i, start = 0, line = 1, lines = 1;
	char *out, *d;

	for (i = 0; i < len; i++)
		lines += in[i] == '\n';
	d = out = malloc(len + (number ? 24 * lines : 0) + 1);
	ck_assert_ptr_nonnull(out);
	if (!number) {
		memcpy(out, in, len);
		*out_len = len;
		return out;
	}
	for (i = 0; i <= len; i++) {
		if (i < len && in[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		d += sprintf(d, "%6zu\t", line++);
		memcpy(d, in + start, i - start + (i < len));
		d += i - start + (i < len);
		start = i + 1;
	}
	*out_len = (size_t)(d - out);
	return out;
}

/*
 * A 32 MiB file changes once 1 MiB of cat's output has come: cat has then
 * read at most its pipes and its buffers (about 3 MiB), so every change
 * below lands ahead of it and the result is exact.
 */
#define BIG	  (32u << 20)
#define GROWTH	  (1u << 20)
#define TRUNCATED ((16u << 20) + 100 * 1000)

struct change {
	const char *path;
	int kind; /* 0 append, 1 truncate, 2 rename another file over it */
	const char *extra;
	size_t extra_len;
};

static void
apply(void *arg)
{
	const struct change *c = arg;
	char tmp[PATH_MAX];
	int fd;

	switch (c->kind) {
	case 0:
		fd = open(c->path, O_WRONLY | O_APPEND);
		ck_assert(fd >= 0 && write(fd, c->extra, c->extra_len) ==
					 (ssize_t)c->extra_len);
		close(fd);
		break;
	case 1:
		ck_assert_int_eq(truncate(c->path, TRUNCATED), 0);
		break;
	default:
		snprintf(tmp, sizeof tmp, "%s.new", c->path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ck_assert(fd >= 0 && write(fd, c->extra, c->extra_len) ==
					 (ssize_t)c->extra_len);
		close(fd);
		ck_assert_int_eq(rename(tmp, c->path), 0);
	}
}

/* The paths cat reads a regular file through. */
static const struct {
	const char *opt, *env;
} readers[] = {
    {NULL, NULL},		  /* splice through its own pipe */
    {NULL, "FASTIO_DISABLE=all"}, /* read()/write() */
    {"-n", NULL},		  /* formatting, the 64-byte loop */
    {"-n", "FASTIO_CAT_SCAN=8"},  /* the portable loops */
    {"-v", "FASTIO_CAT_SCAN=16"}, /* the general loop */
};
#define NREADERS (int)(sizeof readers / sizeof readers[0])

START_TEST(file_changes)
{
	int kind = _i / NREADERS, r_ = _i % NREADERS;
	const char *argv[4] = {"cat"}, *env[] = {readers[r_].env, NULL};
	char *data = spawn_lines(BIG + GROWTH, "%u: a line of the file\n");
	char *other = spawn_lines(BIG, "%u: a line of its replacement\n");
	char *path = spawn_temp_path(data, BIG), *want, msg[512];
	struct change c = {path, kind, NULL, 0};
	size_t len, want_len;
	struct spawn s = {0};
	struct spawn_result r;
	int k = 1;

	if (readers[r_].opt)
		argv[k++] = readers[r_].opt;
	argv[k] = path;
	/* Appended lines continue the numbering: the tail of the 33 MiB. */
	if (kind == 0) {
		c.extra = data + BIG;
		c.extra_len = GROWTH;
	} else if (kind == 2) {
		c.extra = other;
		c.extra_len = BIG;
	}
	len = kind == 0 ? BIG + GROWTH : kind == 1 ? TRUNCATED : BIG;
	want = cat_output(
	    data, len, readers[r_].opt && readers[r_].opt[1] == 'n', &want_len);
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	s.out_max = 1 << 20;
	s.midway = apply;
	s.midway_arg = &c;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(lines_check(r.out, r.out_len, want, want_len, 0, msg,
				  sizeof msg) == 0,
		      "change %d, reader %d: %s", kind, r_, msg);
	ck_assert_str_eq(r.err, "");
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	free(want);
	unlink(path);
	free(path);
	free(data);
	free(other);
}
END_TEST

/*
 * A file truncated at any offset while cat reads it: once 128 KiB of
 * output has come (cat has read at most its pipes and buffers by then,
 * under 2.5 MiB), the 8 MiB file is cut at an offset on either side of a
 * read buffer's end (128 KiB multiples), of the splice path's chunk
 * (512 KiB multiples, FIO_SPLICE_CHUNK) and of its pipeful (1 MiB
 * multiples). The output must be GNU cat's for the file cut there:
 * every byte up to the cut, no NUL from a vanished page, no message,
 * status 0.
 */
#define CUT_FILE (8u << 20)
static const size_t cuts[] = {
    (3u << 20) - 1, /* a pipeful's end */
    (3u << 20),
    (3u << 20) + 1,
    (7u << 19) - 1, /* a splice chunk's end */
    (7u << 19) + 1,
    (25u << 17) - 1, /* a read buffer's end */
    (25u << 17) + 1,
    (4u << 20) + 4096,
    (4u << 20) + 64 * 1000 + 63,
};
#define NCUTS (int)(sizeof cuts / sizeof cuts[0])
static const struct {
	const char *opt, *env;
} cut_readers[] = {
    {NULL, NULL},		  /* splice through its own pipe */
    {NULL, "FASTIO_DISABLE=all"}, /* read()/write() */
    {"-n", NULL},
    {"-v", NULL},
    {"-A", "FASTIO_CAT_SCAN=16"},
};
#define NCUT_READERS (int)(sizeof cut_readers / sizeof cut_readers[0])

struct cut_point {
	const char *path;
	size_t at;
};

static void
cut(void *arg)
{
	const struct cut_point *p = arg;

	ck_assert_int_eq(truncate(p->path, (off_t)p->at), 0);
}

START_TEST(truncated_at)
{
	int c = _i % NCUTS, k = _i / NCUTS;
	const char *opt = cut_readers[k].opt;
	const char *argv[4] = {"cat"}, *env[] = {cut_readers[k].env, NULL};
	const char *gnu_argv[4] = {"cat"};
	char *data = spawn_lines(CUT_FILE, "%u: a\tline \x01 of the file\n");
	char *path = spawn_temp_path(data, CUT_FILE);
	char *prefix = spawn_temp_path(data, cuts[c]), msg[512];
	struct cut_point arg = {path, cuts[c]};
	struct spawn s = {0}, g = {0};
	struct spawn_result r, want;
	int n = 1;

	if (opt)
		argv[n] = gnu_argv[n] = opt, n++;
	argv[n] = path;
	gnu_argv[n] = prefix;
	spawn_init(&g, "/bin/cat", gnu_argv, NULL, OUT_PIPE);
	ck_assert_int_eq(spawn_run(&g, &want), 0);
	ck_assert(want.exited && want.status == 0);
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	s.out_max = 128 << 10;
	s.midway = cut;
	s.midway_arg = &arg;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(lines_check(r.out, r.out_len, want.out, want.out_len, 0,
				  msg, sizeof msg) == 0,
		      "cut at %zu, %s %s: %s", cuts[c], opt ? opt : "",
		      env[0] ? env[0] : "", msg);
	ck_assert(memchr(r.out, '\0', r.out_len) == NULL);
	ck_assert_str_eq(r.err, "");
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	spawn_free(&want);
	unlink(path);
	unlink(prefix);
	free(path);
	free(prefix);
	free(data);
}
END_TEST

/*
 * A FIFO whose writer wrote one line and waits for it to come out before
 * it writes the rest: a cat that held the line back for a fuller buffer
 * would never finish (Check's timeout fails the test).
 */
struct fifo_writer {
	int fd;
};

static void
write_rest(void *arg)
{
	struct fifo_writer *w = arg;

	ck_assert_int_eq(write(w->fd, "second\tline\n", 12), 12);
	close(w->fd);
}

START_TEST(fifo_stalled_writer)
{
	static const struct {
		const char *opt, *env, *first, *all;
	} cases[] = {
	    {NULL, NULL, "first\n", "first\nsecond\tline\n"},
	    {NULL, "FASTIO_DISABLE=all", "first\n", "first\nsecond\tline\n"},
	    {"-n", NULL, "     1\tfirst\n",
	     "     1\tfirst\n     2\tsecond\tline\n"},
	    {"-A", NULL, "first$\n", "first$\nsecond^Iline$\n"},
	    {"-s", "FASTIO_CAT_SCAN=8", "first\n", "first\nsecond\tline\n"},
	};
	const char *argv[4] = {"cat"}, *env[] = {cases[_i].env, NULL};
	char path[64] = "/tmp/fastio-fifo-XXXXXX";
	struct fifo_writer w;
	struct spawn s = {0};
	struct spawn_result r;
	int k = 1;

	ck_assert_ptr_nonnull(mkdtemp(path));
	strcat(path, "/f");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	/* Opened read-write, it never blocks and stays the only writer. */
	w.fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(w.fd, 0);
	ck_assert_int_eq(write(w.fd, "first\n", 6), 6);
	if (cases[_i].opt)
		argv[k++] = cases[_i].opt;
	argv[k] = path;
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	s.out_max = strlen(cases[_i].first);
	s.midway = write_rest;
	s.midway_arg = &w;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_int_eq(r.out_len, strlen(cases[_i].all));
	ck_assert(memcmp(r.out, cases[_i].all, r.out_len) == 0);
	ck_assert_str_eq(r.err, "");
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}
END_TEST

/*
 * eventfds: a read gives the 8-byte counter, then EAGAIN (non-blocking);
 * a write of anything but 8 bytes is EINVAL. GNU's messages, GNU's bytes.
 */
START_TEST(eventfds)
{
	static const struct {
		const char *prog, *arg;
		int in; /* eventfd as stdin, else as stdout */
		const char *err;
	} cases[] = {
	    {"cat", NULL, 1, "cat: -: Resource temporarily unavailable\n"},
	    {"cat", "-n", 1, "cat: -: Resource temporarily unavailable\n"},
	    {"cat", "FILE", 0, "cat: write error: Invalid argument\n"},
	    {"cat", "-E", 0, "cat: write error: Invalid argument\n"},
	    {"yes", NULL, 0, "yes: standard output: Invalid argument\n"},
	    {"pipebench", "-q", 1,
	     "pipebench: standard input: Resource temporarily "
	     "unavailable\n"},
	};
	const char *argv[3] = {cases[_i].prog, cases[_i].arg, NULL};
	static const char counter[8] = {5};
	char *path = spawn_temp_path("a file\n", 7);
	struct spawn s = {0};
	struct spawn_result r;
	int efd = eventfd(5, EFD_NONBLOCK | EFD_CLOEXEC);

	ck_assert_int_ge(efd, 0);
	if (cases[_i].arg && strcmp(cases[_i].arg, "FILE") == 0)
		argv[1] = path;
	spawn_init(&s, cases[_i].prog, argv, NULL, OUT_PIPE);
	if (cases[_i].in) {
		spawn_feed(&s, IN_FD, NULL, 0);
		s.in_fd = efd;
		s.out = OUT_PIPE;
	} else {
		spawn_feed(&s, IN_PIPE, "x\n", 2);
		s.out = OUT_FD;
		s.out_fd = efd;
	}
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert(r.exited && r.status == 1);
	if (cases[_i].in && !cases[_i].arg) {
		ck_assert_int_eq(r.out_len, 8);
		ck_assert(memcmp(r.out, counter, 8) == 0);
	}
	spawn_free(&r);
	close(efd);
	unlink(path);
	free(path);
}
END_TEST

/* memfds in and out: regular files on another filesystem (shmem). */
START_TEST(memfds)
{
	const char *argv[] = {"cat", _i % 2 ? "-n" : "-", NULL};
	char *data = spawn_lines(3u << 20, "%u: a line of the memfd\n"), *want;
	size_t want_len, len = 3u << 20;
	int mfd = memfd_create("input", MFD_CLOEXEC);
	struct spawn s = {0};
	struct spawn_result r;
	char msg[512];

	ck_assert(mfd >= 0 && write(mfd, data, len) == (ssize_t)len);
	ck_assert_int_eq(lseek(mfd, 0, SEEK_SET), 0);
	want = cat_output(data, len, _i % 2, &want_len);
	spawn_init(&s, "cat", argv, NULL, OUT_PIPE);
	if (_i < 2) { /* memfd stdin, pipe out */
		spawn_feed(&s, IN_FD, NULL, 0);
		s.in_fd = mfd;
		s.out = OUT_PIPE;
		ck_assert_int_eq(spawn_run(&s, &r), 0);
	} else { /* file stdin, memfd out: read the memfd back */
		int out = memfd_create("output", MFD_CLOEXEC);

		spawn_feed(&s, IN_FILE, data, len);
		s.out = OUT_FD;
		s.out_fd = out;
		ck_assert_int_eq(spawn_run(&s, &r), 0);
		free(r.out);
		r.out_len = (size_t)lseek(out, 0, SEEK_END);
		r.out = malloc(r.out_len + 1);
		ck_assert(pread(out, r.out, r.out_len, 0) ==
			  (ssize_t)r.out_len);
		close(out);
	}
	ck_assert_msg(lines_check(r.out, r.out_len, want, want_len, 0, msg,
				  sizeof msg) == 0,
		      "case %d: %s", _i, msg);
	ck_assert_str_eq(r.err, "");
	ck_assert(r.exited && r.status == 0);
	spawn_free(&r);
	free(want);
	free(data);
	close(mfd);
}
END_TEST

/* Endless devices: exactly what was read came, and SIGPIPE ended it. */
START_TEST(endless_devices)
{
	static const char *const devs[] = {"/dev/zero", "/dev/urandom"};
	const char *argv[] = {"cat", devs[_i % 2], NULL};
	const char *env[] = {_i / 2 ? "FASTIO_DISABLE=all" : NULL, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	size_t i, zeros = 0;

	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	s.out_max = 3u << 20;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_uint_ge(r.out_len, 3u << 20);
	for (i = 0; i < r.out_len; i++)
		zeros += r.out[i] == 0;
	if (_i % 2 == 0)
		ck_assert_uint_eq(zeros, r.out_len);
	else /* random bytes: about 1 in 256 is 0 */
		ck_assert_uint_lt(zeros, r.out_len / 128);
	ck_assert(r.signaled && r.signal == SIGPIPE);
	ck_assert_str_eq(r.err, "");
	spawn_free(&r);
}
END_TEST

/*
 * Operands GNU names in its messages: quoting per the locale, symlink
 * loops, directories, unreadable files (run as nobody), and a later good
 * operand still copied.
 */
START_TEST(odd_names)
{
	static const struct {
		const char *locale, *name, *err;
	} cases[] = {
	    {"C", "a\nb", "cat: 'a'$'\\n''b': No such file or directory\n"},
	    {"C", "\xff", "cat: ''$'\\377': No such file or directory\n"},
	    {"C", "\xc3\xa9",
	     "cat: ''$'\\303\\251': No such file or directory\n"},
	    {"C.UTF-8", "\xc3\xa9",
	     "cat: \xc3\xa9: No such file or directory\n"},
	    {"C.UTF-8", "\xff", "cat: ''$'\\377': No such file or directory\n"},
	    {"C.UTF-8", "a\tb",
	     "cat: 'a'$'\\t''b': No such file or directory\n"},
	    {"C", "loop", "cat: loop: Too many levels of symbolic links\n"},
	    {"C", "dir", "cat: dir: Is a directory\n"},
	    {"C", "it's", "cat: \"it's\": Permission denied\n"},
	};
	char dir[] = "/tmp/fastio-names-XXXXXX", cwd[PATH_MAX], lc[64];
	const char *argv[] = {"cat", cases[_i].name, "ok", NULL};
	const char *env[] = {lc, NULL};
	struct spawn s = {0};
	struct spawn_result r;
	int fd;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(symlink("loop", "loop"), 0);
	ck_assert_int_eq(mkdir("dir", 0755), 0);
	fd = open("it's", O_WRONLY | O_CREAT, 0600);
	ck_assert(fd >= 0 && write(fd, "secret\n", 7) == 7);
	close(fd);
	fd = open("ok", O_WRONLY | O_CREAT, 0644);
	ck_assert(fd >= 0 && write(fd, "ok\n", 3) == 3);
	close(fd);
	snprintf(lc, sizeof lc, "LC_ALL=%s", cases[_i].locale);
	spawn_init(&s, "cat", argv, env, OUT_PIPE);
	/* Root reads every file: the unreadable one needs another user. */
	s.uid = strcmp(cases[_i].name, "it's") == 0 ? 65534 : 0;
	if (s.uid && geteuid() != 0)
		goto out; /* only root can become another user */
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_str_eq(r.err, cases[_i].err);
	ck_assert_int_eq(r.out_len, 3);
	ck_assert(memcmp(r.out, "ok\n", 3) == 0);
	ck_assert(r.exited && r.status == 1);
	spawn_free(&r);
out:
	unlink("loop");
	rmdir("dir");
	unlink("it's");
	unlink("ok");
	ck_assert_int_eq(chdir(cwd), 0);
	rmdir(dir);
}
END_TEST

static Suite *
hostile_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("changing");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, file_changes, 0, 3 * NREADERS);
	tcase_add_loop_test(tc, truncated_at, 0, NCUTS * NCUT_READERS);
	tcase_add_loop_test(tc, fifo_stalled_writer, 0, 5);
	suite_add_tcase(s, tc);

	tc = tcase_create("kinds");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, eventfds, 0, 6);
	tcase_add_loop_test(tc, memfds, 0, 4);
	tcase_add_loop_test(tc, endless_devices, 0, 4);
	tcase_add_loop_test(tc, odd_names, 0, 9);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(hostile_suite());
}
