/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/repeat.h"
#include "fastio/sys.h"
#include "fastio/tune.h"
#include "spawn.h"

static enum fio_kind
kind_of(int fd)
{
	struct fio_fd f;

	ck_assert_int_eq(fio_classify(fd, &f), 0);
	return f.kind;
}

/* Whether the regular file at path has a size to trust. */
static int
sized_path(const char *path)
{
	struct fio_fd f;
	int fd = open(path, O_RDONLY);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fio_classify(fd, &f), 0);
	close(fd);
	ck_assert_int_eq(f.kind, FIO_REGULAR);
	return fio_sized(&f);
}

static enum fio_kind
kind_of_path(const char *path)
{
	enum fio_kind k;
	int fd = open(path, O_RDONLY);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	k = kind_of(fd);
	close(fd);
	return k;
}

START_TEST(classify_files)
{
	static const char *const disks[] = {"/dev/vda", "/dev/sda",
					    "/dev/nvme0n1", "/dev/loop0"};
	int fd = spawn_temp_fd("data", 0);
	struct fio_fd f;
	struct stat st;
	size_t i;

	ck_assert_int_eq(kind_of(fd), FIO_REGULAR);
	ck_assert_int_eq(fio_classify(fd, &f), 0);
	ck_assert(fio_sized(&f));
	close(fd);
	fd = spawn_temp_fd(NULL, 0);
	ck_assert_int_eq(fio_classify(fd, &f), 0); /* empty: size untrusted */
	ck_assert(f.kind == FIO_REGULAR && !fio_sized(&f));
	close(fd);
	ck_assert(!sized_path("/proc/self/status"));
	ck_assert_int_eq(kind_of_path("/dev/null"), FIO_DEVNULL);
	ck_assert_int_eq(kind_of_path("/dev/zero"), FIO_CHAR);
	ck_assert_int_eq(kind_of_path("/tmp"), FIO_DIRECTORY);
	for (i = 0; i < sizeof disks / sizeof disks[0]; i++)
		if (stat(disks[i], &st) == 0 && S_ISBLK(st.st_mode)) {
			/* O_PATH: sandboxes refuse to open disks, not to stat.
			 */
			fd = open(disks[i], O_PATH);
			ck_assert_int_ge(fd, 0);
			ck_assert_int_eq(kind_of(fd), FIO_BLOCK);
			close(fd);
			break;
		}
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0)
		ck_assert(
		    !sized_path("/sys/kernel/mm/transparent_hugepage/enabled"));
}
END_TEST

START_TEST(classify_streams)
{
	struct fio_fd f;
	int p[2], m;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fio_classify(p[1], &f), 0);
	ck_assert_int_eq(f.kind, FIO_PIPE);
	ck_assert_uint_ge(f.pipe_size, 4096);
	ck_assert_uint_eq(f.flags & (FIO_READABLE | FIO_WRITABLE),
			  FIO_WRITABLE);
	ck_assert_int_eq(fio_classify(p[0], &f), 0);
	ck_assert_uint_eq(f.flags & (FIO_READABLE | FIO_WRITABLE),
			  FIO_READABLE);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	ck_assert_int_eq(fio_classify(p[1], &f), 0);
	ck_assert(f.flags & FIO_NONBLOCK);
	close(p[0]);
	close(p[1]);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
	ck_assert_int_eq(kind_of(p[0]), FIO_SOCKET);
	close(p[0]);
	close(p[1]);

	m = spawn_temp_fd("x", O_APPEND);
	ck_assert_int_eq(fio_classify(m, &f), 0);
	ck_assert(f.flags & FIO_APPEND);
	ck_assert(!(f.flags & FIO_NONBLOCK));
	close(m);
}
END_TEST

/* A terminal: needs one (a chroot without /dev/pts has none). */
START_TEST(classify_tty)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	ck_assert_int_ge(m, 0);
	ck_assert_int_eq(grantpt(m) | unlockpt(m), 0);
	ck_assert_int_eq(kind_of_path(ptsname(m)), FIO_TTY);
	close(m);
}
END_TEST

START_TEST(classify_closed)
{
	struct fio_fd f;
	int fd = spawn_temp_fd(NULL, 0);

	close(fd);
	errno = 0;
	ck_assert_int_eq(fio_classify(fd, &f), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(f.kind, FIO_UNKNOWN);
	ck_assert_str_eq(fio_kind_name(f.kind), "unknown");
	ck_assert_str_eq(fio_kind_name(FIO_PIPE), "pipe");
}
END_TEST

START_TEST(disable_list)
{
	fio_reset();
	ck_assert(fio_enabled(FIO_VMSPLICE) && fio_enabled(FIO_TEE));
	ck_assert_int_eq(fio_disable("tee,splice"), 0);
	ck_assert(!fio_enabled(FIO_TEE) && !fio_enabled(FIO_SPLICE));
	ck_assert(fio_enabled(FIO_VMSPLICE));
	errno = 0;
	ck_assert_int_eq(fio_disable("vmsplice,bogus,,sendfile"), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(!fio_enabled(FIO_VMSPLICE) && !fio_enabled(FIO_SENDFILE));
	fio_reset();
	ck_assert_int_eq(fio_disable("all"), 0);
	ck_assert(!fio_enabled(FIO_COPY_FILE_RANGE));
	ck_assert(fio_enabled(FIO_READ_WRITE)); /* the last resort stays */
	fio_reset();
	ck_assert(fio_enabled(FIO_COPY_FILE_RANGE));
	/* Earlier releases' words still work: "hot" was both of these. */
	ck_assert_int_eq(fio_disable("hot,readfile,write"), 0);
	ck_assert(!fio_enabled(FIO_HOT_PAGE) && !fio_enabled(FIO_BITES) &&
		  !fio_enabled(FIO_ONE_READ) && fio_enabled(FIO_READ_WRITE));
	ck_assert(fio_enabled(FIO_PAGES) && fio_enabled(FIO_SPLICE));
	fio_reset();
	ck_assert_int_eq(fio_disable("hotpage,oneread"), 0);
	ck_assert(!fio_enabled(FIO_HOT_PAGE) && fio_enabled(FIO_BITES) &&
		  !fio_enabled(FIO_ONE_READ));
	fio_reset();
	setenv("FASTIO_DISABLE", "tee", 1);
	ck_assert_int_eq(fio_init(), 0);
	ck_assert(!fio_enabled(FIO_TEE));
	unsetenv("FASTIO_DISABLE");
	fio_reset();
}
END_TEST

/* Read everything from fd into a new buffer. */
static char *
slurp(int fd, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *b = malloc(cap);
	ssize_t k;

	while ((k = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)k;
		if (n == cap)
			b = realloc(b, cap *= 2);
	}
	*len = n;
	return b;
}

static void
assert_repeated(const char *got, size_t got_len, const char *pat, size_t plen,
		size_t want_len)
{
	char msg[512];

	ck_assert_uint_eq(got_len, want_len);
	ck_assert_msg(
	    lines_check(got, got_len, pat, plen, 1, msg, sizeof msg) == 0, "%s",
	    msg);
}

/* fio_repeat on a descriptor classified just before. */
static int
repeat_fd(int fd, const void *pat, size_t len, uint64_t limit,
	  enum fio_strategy *used)
{
	struct fio_fd f;

	(void)fio_classify(fd, &f);
	return fio_repeat(&f, pat, len, limit, used);
}

/* fio_repeat into a pipe read by a child; returns what arrived. */
static char *
repeat_through_pipe(const char *pat, size_t plen, size_t limit,
		    enum fio_strategy *used, size_t *got_len)
{
	int p[2], q[2];
	pid_t pid;
	char *got;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(q), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) { /* hold all of p, then pass it on through q */
		close(p[1]);
		close(q[0]);
		got = slurp(p[0], got_len);
		_exit(fio_write_all(q[1], got, *got_len, NULL, 0) == 0 ? 0 : 1);
	}
	close(p[0]);
	close(q[1]);
	ck_assert_int_eq(repeat_fd(p[1], pat, plen, limit, used), 0);
	close(p[1]);
	got = slurp(q[0], got_len);
	close(q[0]);
	waitpid(pid, NULL, 0);
	return got;
}

/*
 * Each strategy that applies to a pipe is the one used when allowed, once
 * the stream has outlasted its start (3 MB), or from the first byte; a
 * stream that ends within its start never leaves it.
 */
START_TEST(repeat_pipe_strategies)
{
	static const struct {
		const char *disable;
		size_t limit;
		enum fio_strategy expect;
	} cases[] = {
	    {"", 3000007, FIO_TEE},
	    {"vmsplice", 3000007, FIO_TEE}, /* tee needs no vmsplice() */
	    {"tee", 3000007, FIO_VMSPLICE},
	    {"all", 3000007, FIO_READ_WRITE},
	    {"start", 3000007, FIO_TEE},
	    {"start,tee", 3000007, FIO_VMSPLICE},
	    {"", 100003, FIO_START},
	    {"tee,vmsplice", FIO_START_BYTES - 5, FIO_START},
	    {"start", 100003, FIO_TEE},
	};
	static const char pat[] = "0123456789abcdef\n";
	enum fio_strategy used = FIO_STRATEGY_COUNT;
	size_t len, limit = cases[_i].limit;
	char *got;

	fio_reset();
	ck_assert_int_eq(fio_disable(cases[_i].disable), 0);
	got = repeat_through_pipe(pat, sizeof pat - 1, limit, &used, &len);
	ck_assert_int_eq(used, cases[_i].expect);
	assert_repeated(got, len, pat, sizeof pat - 1, limit);
	free(got);
	fio_reset();
}
END_TEST

/*
 * The start of a long stream ends where the bytes sent have paid for the
 * machinery's set-up (repeat.c, fio_repeat_stage_end): a pipeful and
 * FIO_START_BYTES in; the first vmsplice() buffer FIO_VMSPLICE_STEP
 * later; the machinery never.
 */
START_TEST(repeat_stages)
{
	static const struct {
		enum fio_stage stage;
		size_t pipe;
		uint64_t end;
	} cases[] = {
	    {FIO_STAGE_START, 65536, 65536 + FIO_START_BYTES},
	    {FIO_STAGE_START, 8192, 8192 + FIO_START_BYTES},
	    {FIO_STAGE_START, 32u << 20, (32u << 20) + FIO_START_BYTES},
	    {FIO_STAGE_FIRST_GIFT, 65536,
	     65536 + FIO_START_BYTES + FIO_VMSPLICE_STEP},
	    {FIO_STAGE_FIRST_GIFT, 8192,
	     8192 + FIO_START_BYTES + FIO_VMSPLICE_STEP},
	    {FIO_STAGE_MACHINERY, 65536, FIO_FOREVER},
	};
	size_t i, pipe;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(
		    fio_repeat_stage_end(cases[i].stage, cases[i].pipe) ==
			cases[i].end,
		    "case %zu", i);
	for (pipe = 4096; pipe <= (size_t)64 << 20; pipe *= 2)
		ck_assert(
		    fio_repeat_stage_end(FIO_STAGE_START, pipe) <
			fio_repeat_stage_end(FIO_STAGE_FIRST_GIFT, pipe) &&
		    fio_repeat_stage_end(FIO_STAGE_FIRST_GIFT, pipe) <
			fio_repeat_stage_end(FIO_STAGE_MACHINERY, pipe));
}
END_TEST

/* A regular file refuses vmsplice and tee: the fallback gives the bytes. */
START_TEST(repeat_file_falls_back)
{
	static const char pat[] = "abc\n";
	enum fio_strategy used = FIO_STRATEGY_COUNT;
	int fd = spawn_temp_fd(NULL, 0);
	size_t len;
	char *got;

	fio_reset();
	ck_assert_int_eq(repeat_fd(fd, pat, 4, 5000001, &used), 0);
	ck_assert_int_eq(used, FIO_READ_WRITE);
	lseek(fd, 0, SEEK_SET);
	got = slurp(fd, &len);
	assert_repeated(got, len, pat, 4, 5000001);
	free(got);
	close(fd);
}
END_TEST

/*
 * A pipe's read end: vmsplice() on it would fill our buffer from the pipe,
 * so no zero-copy strategy may touch it. The result is write()'s EBADF,
 * and the data waiting in the pipe is still there.
 */
START_TEST(repeat_read_end_untouched)
{
	int p[2];
	char b[8] = {0};

	fio_reset();
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "keep", 4), 4);
	errno = 0;
	ck_assert_int_eq(repeat_fd(p[0], "y\n", 2, 100, NULL), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(read(p[0], b, sizeof b), 4);
	ck_assert_str_eq(b, "keep");
	close(p[0]);
	close(p[1]);
}
END_TEST

/* Errors after the first byte are errors, never a silent fallback. */
START_TEST(repeat_errors)
{
	int p[2], fd;

	fio_reset();
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	errno = 0;
	ck_assert_int_eq(repeat_fd(p[1], "y\n", 2, FIO_FOREVER, NULL), -1);
	ck_assert_int_eq(errno, EPIPE);
	close(p[1]);
	fd = open("/dev/full", O_WRONLY);
	ck_assert_int_eq(repeat_fd(fd, "y\n", 2, FIO_FOREVER, NULL), -1);
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
	errno = 0;
	ck_assert_int_eq(repeat_fd(fd, "y\n", 2, 10, NULL), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(repeat_fd(1, "", 0, 10, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Non-blocking pipe with no reader draining it: EAGAIN, not a hang. */
START_TEST(repeat_nonblocking)
{
	enum fio_strategy used = FIO_STRATEGY_COUNT;
	static const char *const disable[] = {"", "vmsplice", "tee", "all"};
	int p[2];
	size_t len;
	char *got;

	fio_reset();
	fio_disable(disable[_i]);
	ck_assert_int_eq(pipe(p), 0);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	errno = 0;
	ck_assert_int_eq(repeat_fd(p[1], "ab\n", 3, FIO_FOREVER, &used), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(p[1]);
	got = slurp(p[0], &len);
	ck_assert_uint_gt(len, 0);
	assert_repeated(got, len, "ab\n", 3, len);
	free(got);
	close(p[0]);
	fio_reset();
}
END_TEST

/*
 * F_SETPIPE_SZ past pipe-max-size fails for unprivileged users: never an
 * error, and the size reported is the one in effect. Runs as nobody.
 */
START_TEST(pipe_grow_unprivileged)
{
	struct passwd *pw = getpwnam("nobody");
	int p[2], status;
	pid_t pid;

	if (getuid() == 0 && pw == NULL)
		return;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t got;

		if (getuid() == 0 && setuid(pw->pw_uid) < 0)
			_exit(2);
		if (pipe(p) < 0)
			_exit(3);
		got = fio_pipe_grow(p[1], (size_t)1 << 30);
		_exit(got > 0 && got == (size_t)fcntl(p[1], F_GETPIPE_SZ) &&
			      got < ((size_t)1 << 30)
			  ? 0
			  : 1);
	}
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_ge(fio_pipe_grow(p[1], 1 << 20), 1 << 20);
	ck_assert_uint_eq(fio_pipe_grow(p[1], 4096), 1 << 20); /* no shrink */
	close(p[0]);
	close(p[1]);
	ck_assert_uint_eq(fio_pipe_grow(p[1], 1 << 20), 0); /* closed */
}
END_TEST

/*
 * Giving back what was grown: to the size asked for when the pipe holds
 * no more than that, else to the smallest power-of-two multiple of it
 * that holds what it holds (the kernel refuses a size below its
 * contents, EBUSY).
 */
START_TEST(pipe_give_back)
{
	static char data[100 << 10];
	long page = sysconf(_SC_PAGESIZE);
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_uint_eq(fio_pipe_grow(p[1], 1 << 20), 1 << 20);
	ck_assert_uint_eq(fio_pipe_give_back(p[1], 16 * page), 16 * page);
	ck_assert_uint_eq(fio_pipe_grow(p[1], 1 << 20), 1 << 20);
	ck_assert_int_eq(write(p[1], data, sizeof data), sizeof data);
	/* 25 pages of 4 KiB: 32 slots hold them, not 16. */
	if (page == 4096)
		ck_assert_uint_eq(fio_pipe_give_back(p[1], 16 * page),
				  32 * page);
	/* Never grown by it. */
	ck_assert_uint_eq(fio_pipe_give_back(p[1], 1 << 20),
			  (size_t)fcntl(p[1], F_GETPIPE_SZ));
	close(p[0]);
	close(p[1]);
	ck_assert_uint_eq(fio_pipe_give_back(p[1], 65536), 0); /* closed */
}
END_TEST

/* Short writes continue where they stopped. */
START_TEST(write_all_short)
{
	size_t n = 3 << 20, len, i;
	char *data = malloc(n), *got;
	int p[2];
	pid_t pid;

	for (i = 0; i < n; i++)
		data[i] = (char)(i * 131 + i / 4099);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) { /* 3 MiB into a 64 KiB pipe: many partial writes */
		close(p[0]);
		_exit(fio_write_all(p[1], data, n, NULL, 0) == 0 ? 0 : 1);
	}
	close(p[1]);
	got = slurp(p[0], &len);
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(got, data, n) == 0);
	free(got);
	free(data);
	waitpid(pid, NULL, 0);
}
END_TEST

/*
 * The vmsplice strategy's chunks are whole pages of its page-aligned
 * buffer for a pattern that divides a page; patterns of every kind of
 * length (dividing a page or not, longer than a page) come out exact.
 */
START_TEST(repeat_vmsplice_lengths)
{
	static const size_t lens[] = {1, 2, 3, 63, 64, 65, 100, 4095, 4097};
	enum fio_strategy used = FIO_STRATEGY_COUNT;
	size_t i, len, plen = lens[_i], limit = 2 * 1000 * 1000 + 13;
	char *pat = malloc(plen), *got;

	for (i = 0; i < plen; i++)
		pat[i] = (char)('a' + i % 26);
	pat[plen - 1] = '\n';
	fio_reset();
	ck_assert_int_eq(fio_disable("start,tee"), 0);
	got = repeat_through_pipe(pat, plen, limit, &used, &len);
	ck_assert_int_eq(used, FIO_VMSPLICE);
	assert_repeated(got, len, pat, plen, limit);
	free(got);
	free(pat);
	fio_reset();
}
END_TEST

/* Buffers for kernel copies: page-aligned and zeroed, whatever the size. */
START_TEST(buffer_alloc_aligned)
{
	static const size_t sizes[] = {1, 4096, (128 << 10) + 64};
	size_t i;
	char *b;

	b = fio_buffer_alloc(sizes[_i]);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq((uintptr_t)b % 4096, 0);
	for (i = 0; i < sizes[_i] && b[i] == 0; i++)
		;
	ck_assert_uint_eq(i, sizes[_i]);
	fio_buffer_free(b, sizes[_i]);
}
END_TEST

static spawn_need *const pty[] = {spawn_need_pty, NULL};

static Suite *
fastio_suite(void)
{
	Suite *s = suite_create("libfastio");
	TCase *tc = tcase_create("classify");

	tcase_add_test(tc, classify_files);
	tcase_add_test(tc, classify_streams);
	tcase_add_test(tc, classify_closed);
	tcase_add_test(tc, disable_list);
	suite_add_tcase(s, tc);

	tc = tcase_create("repeat");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, repeat_stages);
	tcase_add_loop_test(tc, repeat_pipe_strategies, 0, 9);
	tcase_add_test(tc, repeat_file_falls_back);
	tcase_add_test(tc, repeat_read_end_untouched);
	tcase_add_test(tc, repeat_errors);
	tcase_add_loop_test(tc, repeat_nonblocking, 0, 4);
	tcase_add_test(tc, pipe_grow_unprivileged);
	tcase_add_test(tc, pipe_give_back);
	tcase_add_test(tc, write_all_short);
	tcase_add_loop_test(tc, repeat_vmsplice_lengths, 0, 9);
	tcase_add_loop_test(tc, buffer_alloc_aligned, 0, 3);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "tty", classify_tty, 1, pty);
	return s;
}

int
main(void)
{
	return suite_main(fastio_suite());
}
