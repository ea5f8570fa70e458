/* SPDX-License-Identifier: MIT */
/*
 * libfastio's pump (src/fastio/pump.c): the strategy each pair of kinds
 * gets, the downgrade to read()/write() and the side of an error, limits,
 * the bytes a caller sees and keeps, gathering, signals, small files.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/pace.h"
#include "fastio/repeat.h"
#include "fastio/sys.h"
#include "fastio/tune.h"
#include "spawn.h"

static void
close_pipe(int p[2])
{
	close(p[0]);
	close(p[1]);
}

/* A pump from in_fd to out_fd, each classified into *in and *out. */
static void
pump_open(struct fio_pump *p, struct fio_fd *in, int in_fd, struct fio_fd *out,
	  int out_fd, char *buf, size_t size, uint64_t limit, unsigned flags)
{
	ck_assert_int_eq(fio_classify(in_fd, in), 0);
	ck_assert_int_eq(fio_classify(out_fd, out), 0);
	fio_pump_init(p, in, out, buf, size, limit, flags);
}

/* Everything the pump moves from in to out, with its steps' strategy. */
static enum fio_strategy
pump_all(struct fio_pump *p)
{
	enum fio_strategy first = FIO_STRATEGY_COUNT;
	ssize_t n;

	while ((n = fio_pump_fill(p)) > 0) {
		if (first == FIO_STRATEGY_COUNT)
			first = fio_pump_strategy(p);
		ck_assert_int_eq(fio_pump_flush(p), 0);
	}
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(fio_pump_flush_all(p), 0);
	return first;
}

/*
 * A pump from in to out through buf until in's end of file, as cat runs
 * it for one file: 0, or -1 with errno and *side telling whether reading
 * or writing failed. *used gets the strategy that moved the first bytes.
 */
static int
copy_all(const struct fio_fd *in, const struct fio_fd *out, void *buf,
	 size_t size, enum fio_strategy *used, enum fio_side *side)
{
	enum fio_strategy first = FIO_READ_WRITE;
	struct fio_pump p;
	ssize_t n;
	int rc = 0;

	fio_pump_init(&p, in, out, buf, size, FIO_FOREVER, 0);
	while ((n = fio_pump_fill(&p)) > 0) {
		if (p.got == (uint64_t)n)
			first = p.strategy;
		if (fio_pump_flush(&p) < 0) {
			rc = -1;
			break;
		}
	}
	if (n < 0)
		rc = -1;
	if (used != NULL)
		*used = first;
	if (side != NULL)
		*side = p.side;
	fio_pump_end(&p);
	return rc;
}

/*
 * A small file just opened is read whole in one read(), and when it held
 * exactly the st_size bytes fstat saw, the read that would return 0 is
 * skipped. A file that grew after fstat (st_size too small), a FUSE-like
 * file claiming size 0, and one that shrank must all come back whole.
 */
START_TEST(small_file_sizes)
{
	static const off_t claimed[] = {10, 0, 3, 100};
	const char *data = "0123456789";
	struct fio_fd in, out;
	struct fio_pump p;
	char buf[200], got[64];
	size_t len = 0, n;
	const char *held;
	int fd = spawn_temp_fd(data, 0), sink[2];

	ck_assert_int_eq(pipe(sink), 0);
	ck_assert_int_eq(fio_classify_opened(fd, O_RDONLY, &in), 0);
	ck_assert_int_eq(fio_classify(sink[1], &out), 0);
	in.st.st_size = claimed[_i];
	fio_pump_init(&p, &in, &out, buf, sizeof buf, FIO_FOREVER,
		      FIO_PUMP_USER);
	ck_assert_int_eq(fio_pump_strategy(&p),
			 claimed[_i] < 200 ? FIO_ONE_READ : FIO_READ_WRITE);
	while (fio_pump_fill(&p) > 0) {
		held = fio_pump_data(&p, &n);
		memcpy(got + len, held, n);
		len += n;
		fio_pump_keep(&p, 0);
		/* Only a file of exactly its size is known to end at once. */
		if (len == 10 && _i == 0)
			ck_assert_int_eq(p.eof, 1);
	}
	ck_assert_uint_eq(len, 10);
	ck_assert(memcmp(got, data, 10) == 0);
	fio_pump_end(&p);
	close(fd);
	close_pipe(sink);
}
END_TEST

/* A file too big for the pump's buffer is not read in one go. */
START_TEST(small_file_bigger_than_buffer)
{
	struct fio_fd in, out;
	struct fio_pump p;
	char buf[4];
	int fd = spawn_temp_fd("0123456789", 0), sink[2];

	ck_assert_int_eq(pipe(sink), 0);
	ck_assert_int_eq(fio_classify_opened(fd, O_RDONLY, &in), 0);
	ck_assert_int_eq(fio_classify(sink[1], &out), 0);
	fio_pump_init(&p, &in, &out, buf, sizeof buf, FIO_FOREVER,
		      FIO_PUMP_USER);
	ck_assert_int_eq(fio_pump_strategy(&p), FIO_READ_WRITE);
	ck_assert_int_eq(fio_pump_fill(&p), 4);
	ck_assert_int_eq(p.eof, 0);
	fio_pump_end(&p);
	close(fd);
	close_pipe(sink);
}
END_TEST

/* --bytes: the pump stops after limit bytes, on every strategy. */
START_TEST(limit)
{
	static const char *const disable[] = {"", "all"};
	struct fio_fd in, out;
	struct fio_pump p;
	char buf[3], got[64];
	int fd = spawn_temp_fd("0123456789", 0), q[2];

	fio_reset();
	ck_assert_int_eq(fio_disable(disable[_i]), 0);
	ck_assert_int_eq(pipe(q), 0);
	pump_open(&p, &in, fd, &out, q[1], buf, sizeof buf, 7, 0);
	pump_all(&p);
	ck_assert_uint_eq(p.total, 7);
	ck_assert_uint_eq(p.left, 0);
	ck_assert_int_eq(read(q[0], got, sizeof got), 7);
	ck_assert(memcmp(got, "0123456", 7) == 0);
	fio_pump_end(&p);
	close(fd);
	close_pipe(q);
	fio_reset();
}
END_TEST

/* The user path: the caller sees each read and keeps a prefix of it. */
START_TEST(keep)
{
	struct fio_fd in, out;
	struct fio_pump p;
	const char *data;
	char buf[64], got[64];
	size_t n;
	int q[2], r[2];

	ck_assert_int_eq(pipe(q), 0);
	ck_assert_int_eq(pipe(r), 0);
	ck_assert_int_eq(write(q[1], "line 1\nline 2\n", 14), 14);
	close(q[1]);
	pump_open(&p, &in, q[0], &out, r[1], buf, sizeof buf, FIO_FOREVER,
		  FIO_PUMP_USER);
	ck_assert_int_eq(fio_pump_strategy(&p), FIO_READ_WRITE);
	ck_assert_int_eq(fio_pump_fill(&p), 14);
	data = fio_pump_data(&p, &n);
	ck_assert_uint_eq(n, 14);
	ck_assert(memcmp(data, "line 1\n", 7) == 0);
	fio_pump_keep(&p, 7);
	ck_assert_int_eq(fio_pump_flush(&p), 0);
	ck_assert_uint_eq(p.total, 7);
	ck_assert_int_eq(read(r[0], got, sizeof got), 7);
	fio_pump_end(&p);
	close(q[0]);
	close_pipe(r);
}
END_TEST

/*
 * FIO_PUMP_GATHER: small files wait in the buffer for the next ones; a
 * big file's kernel path sends them first; flush_all sends the rest.
 */
START_TEST(gather)
{
	struct fio_fd a, b, big, out;
	struct fio_pump p;
	char buf[256], *data = malloc(200000), *got = malloc(300000);
	int fa = spawn_temp_fd("first\n", 0), fb = spawn_temp_fd("second\n", 0),
	    fbig, q[2];
	size_t i, len = 0;
	ssize_t n;

	for (i = 0; i < 199999; i++)
		data[i] = i % 50 == 49 ? '\n' : 'x';
	data[199999] = '\0';
	fbig = spawn_temp_fd(data, 0);
	ck_assert_int_eq(pipe(q), 0);
	fcntl(q[0], F_SETFL, O_NONBLOCK);
	fio_pipe_grow(q[1], 1 << 20);
	ck_assert_int_eq(fio_classify_opened(fa, O_RDONLY, &a), 0);
	ck_assert_int_eq(fio_classify_opened(fb, O_RDONLY, &b), 0);
	ck_assert_int_eq(fio_classify(fbig, &big), 0);
	ck_assert_int_eq(fio_classify(q[1], &out), 0);
	fio_pump_init(&p, &a, &out, buf, sizeof buf, FIO_FOREVER,
		      FIO_PUMP_GATHER);
	while (fio_pump_fill(&p) > 0)
		ck_assert_int_eq(fio_pump_flush(&p), 0);
	fio_pump_next(&p, &b, FIO_FOREVER);
	while (fio_pump_fill(&p) > 0)
		ck_assert_int_eq(fio_pump_flush(&p), 0);
	/* Both small files still wait, in order. */
	ck_assert_uint_eq(p.held, 13);
	ck_assert_int_eq(read(q[0], got, 10), -1);
	fio_pump_next(&p, &big, FIO_FOREVER);
	ck_assert_int_eq(pump_all(&p), FIO_SPLICE);
	while ((n = read(q[0], got + len, 300000 - len)) > 0)
		len += (size_t)n;
	ck_assert_uint_eq(len, 13 + 199999);
	ck_assert(memcmp(got, "first\nsecond\n", 13) == 0);
	ck_assert(memcmp(got + 13, data, 199999) == 0);
	fio_pump_end(&p);
	free(data);
	free(got);
	close(fa);
	close(fb);
	close(fbig);
	close_pipe(q);
}
END_TEST

/* An O_APPEND output, which copy_file_range refuses, goes by read() and
 * write() from the first byte. */
START_TEST(refusal_downgrades)
{
	struct fio_fd in, out;
	struct fio_pump p;
	char buf[16], got[64];
	int fd = spawn_temp_fd("0123456789", 0),
	    o = spawn_temp_fd("", O_APPEND);

	pump_open(&p, &in, fd, &out, o, buf, sizeof buf, FIO_FOREVER, 0);
	ck_assert_int_eq(fio_pump_strategy(&p), FIO_READ_WRITE);
	pump_all(&p);
	ck_assert_int_eq(fio_pump_strategy(&p), FIO_READ_WRITE);
	ck_assert_int_eq(pread(o, got, sizeof got, 0), 10);
	ck_assert(memcmp(got, "0123456789", 10) == 0);
	fio_pump_end(&p);
	close(fd);
	close(o);
}
END_TEST

static void
on_alarm(int sig)
{
	(void)sig;
}

/*
 * FIO_PUMP_SIGNALS: a read waiting on an empty pipe returns -1/EINTR when
 * a signal comes; without the flag the pump waits on. The signal is sent
 * by a child once the test is blocked, seen through /proc (no sleep).
 */
START_TEST(signals)
{
	struct sigaction sa;
	struct fio_fd in, out;
	struct fio_pump p;
	char buf[64];
	int q[2], r[2];
	pid_t parent = getpid(), pid;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGUSR1, &sa, NULL);
	ck_assert_int_eq(pipe(q), 0);
	ck_assert_int_eq(pipe(r), 0);
	pump_open(&p, &in, q[0], &out, r[1], buf, sizeof buf, FIO_FOREVER,
		  FIO_PUMP_SIGNALS | (_i ? FIO_PUMP_USER : 0));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char path[64], state[256] = "";
		FILE *f;

		snprintf(path, sizeof path, "/proc/%d/stat", (int)parent);
		/* Wait for the parent to sleep (state S) in the pump. */
		while (strstr(state, ") S ") == NULL) {
			f = fopen(path, "r");
			if (f == NULL || fgets(state, sizeof state, f) == NULL)
				_exit(1);
			fclose(f);
		}
		kill(parent, SIGUSR1);
		_exit(0);
	}
	ck_assert_int_eq(fio_pump_fill(&p), -1);
	ck_assert_int_eq(errno, EINTR);
	waitpid(pid, NULL, 0);
	ck_assert_int_eq(write(q[1], "x", 1), 1);
	ck_assert_int_eq(fio_pump_fill(&p), 1);
	fio_pump_end(&p);
	close_pipe(q);
	close_pipe(r);
	signal(SIGUSR1, SIG_DFL);
}
END_TEST

/* copy_all says which side failed, whichever strategy was moving bytes. */
START_TEST(copy_error_side)
{
	static const char *const disable[] = {"", "all"};
	struct fio_fd in, out;
	enum fio_side side;
	char buf[4096];
	int fd = spawn_temp_fd("some bytes", 0), full, dir;

	fio_reset();
	ck_assert_int_eq(fio_disable(disable[_i]), 0);
	lseek(fd, 0, SEEK_SET);
	full = open("/dev/full", O_WRONLY);
	ck_assert_int_eq(fio_classify(fd, &in), 0);
	ck_assert_int_eq(fio_classify(full, &out), 0);
	ck_assert_int_eq(copy_all(&in, &out, buf, sizeof buf, NULL, &side), -1);
	ck_assert_int_eq(errno, ENOSPC);
	ck_assert_int_eq(side, FIO_SIDE_OUTPUT);

	dir = open("/", O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(fio_classify(dir, &in), 0);
	ck_assert_int_eq(copy_all(&in, &out, buf, sizeof buf, NULL, &side), -1);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_int_eq(side, FIO_SIDE_INPUT);
	close(dir);
	close(full);
	close(fd);
	fio_reset();
}
END_TEST

/* The strategy each pair of kinds gets, and what it moved. */
START_TEST(copy_strategies)
{
	int p[2], fd = spawn_temp_fd("0123456789", 0),
		  out = spawn_temp_fd(NULL, 0);
	enum fio_strategy used;
	struct fio_fd fin, fout;
	char buf[64];

	fio_reset();
	ck_assert_int_eq(pipe(p), 0);
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(fio_classify(fd, &fin), 0);
	ck_assert_int_eq(fio_classify(out, &fout), 0);
	ck_assert_int_eq(copy_all(&fin, &fout, buf, sizeof buf, &used, NULL),
			 0);
	ck_assert_int_eq(used, FIO_COPY_FILE_RANGE);
	ck_assert_int_eq(pread(out, buf, sizeof buf, 0), 10);

	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(fio_classify(p[1], &fout), 0);
	ck_assert_int_eq(copy_all(&fin, &fout, buf, sizeof buf, &used, NULL),
			 0);
	ck_assert_int_eq(used, FIO_SPLICE);
	ck_assert_int_eq(read(p[0], buf, sizeof buf), 10);
	ck_assert(memcmp(buf, "0123456789", 10) == 0);

	fio_disable("splice");
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(copy_all(&fin, &fout, buf, sizeof buf, &used, NULL),
			 0);
	ck_assert_int_eq(used, FIO_READ_WRITE);
	ck_assert_int_eq(read(p[0], buf, sizeof buf), 10);
	fio_reset();
	close_pipe(p);
	close(fd);
	close(out);
}
END_TEST

/*
 * The reader's vote on the splices from a file (pump.c, vote), made
 * independent of timing by the reader: "bites" waits for a full pipe and
 * read()s 128 KiB, so each of the pump's chunks goes out in several
 * splices; "gulps" waits for a full pipe and splices it out whole, which
 * holds the pipe's lock, so a chunk goes in one. The bitten bytes are
 * checked across the switch, and a second file in the same pump starts
 * with the chunk voted for.
 */
#define MIB	    ((size_t)1 << 20)
#define VOTE_FIRST  (24 * MIB)
#define VOTE_SECOND MIB

static const struct {
	int bites;
	const char *disable;
	int small;
} bite_votes[] = {
    {1, NULL, 1},
    {0, NULL, 0},
    {1, "bites", 0},
};

/* The byte at offset i of the first file, then of the second. */
static unsigned char
vote_byte(size_t i)
{
	return (unsigned char)(i * 7 + i / 4093);
}

static int
vote_file(size_t len, size_t from)
{
	int fd = spawn_temp_fd(NULL, 0);
	char *b = malloc(len);
	size_t i;

	ck_assert_ptr_nonnull(b);
	for (i = 0; i < len; i++)
		b[i] = (char)vote_byte(from + i);
	ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	free(b);
	return fd;
}

/* The child: takes VOTE_FIRST + VOTE_SECOND bytes; exits 0 if right. */
static _Noreturn void
vote_reader(int in, int bites)
{
	static unsigned char buf[MIB / 8];
	size_t moved = 0, want, i;
	int devnull = open("/dev/null", O_WRONLY);
	ssize_t k;

	while (moved < VOTE_FIRST + VOTE_SECOND) {
		want = VOTE_FIRST + VOTE_SECOND - moved;
		if (want > MIB)
			want = MIB;
		spawn_wait_pipe(in, want);
		if (bites) {
			k = read(in, buf,
				 want < sizeof buf ? want : sizeof buf);
			for (i = 0; k > 0 && i < (size_t)k; i++)
				if (buf[i] != vote_byte(moved + i))
					_exit(2);
		} else {
			k = splice(in, NULL, devnull, NULL, want, 0);
		}
		if (k <= 0)
			_exit(3);
		moved += (size_t)k;
	}
	_exit(read(in, buf, 1) == 0 ? 0 : 4);
}

START_TEST(bite_vote)
{
	int p[2], first, second, status;
	struct fio_fd in, in2, out;
	struct fio_pump pump;
	char buf[64];
	pid_t pid;

	fio_reset();
	if (bite_votes[_i].disable != NULL)
		fio_disable(bite_votes[_i].disable);
	spawn_mib_pipe(p);
	first = vote_file(VOTE_FIRST, 0);
	second = vote_file(VOTE_SECOND, VOTE_FIRST);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[1]);
		vote_reader(p[0], bite_votes[_i].bites);
	}
	close(p[0]);
	ck_assert_int_eq(fio_classify(first, &in), 0);
	ck_assert_int_eq(fio_classify(second, &in2), 0);
	ck_assert_int_eq(fio_classify(p[1], &out), 0);
	fio_pump_init(&pump, &in, &out, buf, sizeof buf, FIO_FOREVER, 0);
	ck_assert_int_eq(fio_pump_strategy(&pump), FIO_SPLICE);
	ck_assert_uint_eq(pump.chunk, FIO_SPLICE_CHUNK);
	pump_all(&pump);
	ck_assert_int_eq(pump.small, bite_votes[_i].small);
	ck_assert_uint_eq(pump.vote.rounds, FIO_VOTE_ROUNDS);
	fio_pump_next(&pump, &in2, FIO_FOREVER);
	ck_assert_uint_eq(pump.chunk, bite_votes[_i].small ? FIO_SPLICE_BITE
							   : FIO_SPLICE_CHUNK);
	pump_all(&pump);
	fio_pump_end(&pump);
	close(p[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "reader: status %#x", status);
	close(first);
	close(second);
	fio_reset();
}
END_TEST

/*
 * A reader that takes the pipe whole (it waits for a full pipe, then
 * splices all of it: pv's way) gets a bigger pipe once it has voted so:
 * the pump starts with FIO_PIPE_SIZE, grown from the kernel's 64 KiB for
 * a big file, and after FIO_VOTE_ROUNDS chunks taken in one splice each it
 * is FIO_PIPE_GULP, with chunks of half that. The bytes are checked.
 */
#define GULP_FILE (24 * MIB)

static _Noreturn void
gulp_reader(int in)
{
	static unsigned char buf[MIB];
	int devnull = open("/dev/null", O_WRONLY), size, queued;
	size_t moved = 0, i;
	ssize_t k;

	while (moved < GULP_FILE) {
		size = fcntl(in, F_GETPIPE_SZ);
		if (size <= 0)
			_exit(2);
		if (GULP_FILE - moved >= (size_t)size)
			spawn_wait_pipe(in, (size_t)size);
		if (ioctl(in, FIONREAD, &queued) < 0)
			_exit(3);
		/* The last bytes are read and checked, the rest spliced. */
		if (moved + (size_t)queued < GULP_FILE - MIB) {
			k = splice(in, NULL, devnull, NULL, (size_t)queued, 0);
		} else {
			k = read(in, buf, sizeof buf);
			for (i = 0; k > 0 && i < (size_t)k; i++)
				if (buf[i] != vote_byte(moved + i))
					_exit(4);
		}
		if (k <= 0)
			_exit(5);
		moved += (size_t)k;
	}
	_exit(read(in, buf, 1) == 0 ? 0 : 6);
}

START_TEST(gulp_vote)
{
	int p[2], fd, status;
	struct fio_fd in, out;
	struct fio_pump pump;
	char buf[64];
	pid_t pid;

	fio_reset();
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_lt(fcntl(p[1], F_GETPIPE_SZ), (int)FIO_PIPE_SIZE);
	fd = vote_file(GULP_FILE, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[1]);
		gulp_reader(p[0]);
	}
	close(p[0]);
	pump_open(&pump, &in, fd, &out, p[1], buf, sizeof buf, FIO_FOREVER, 0);
	ck_assert_int_eq(fio_pump_strategy(&pump), FIO_SPLICE);
	ck_assert_uint_eq(pump.out_pipe_size, FIO_PIPE_SIZE);
	ck_assert_uint_eq(pump.chunk, FIO_PIPE_SIZE / 2);
	pump_all(&pump);
	ck_assert_uint_eq(pump.vote.rounds, FIO_VOTE_ROUNDS);
	ck_assert_uint_eq(pump.out_pipe_size, FIO_PIPE_GULP);
	ck_assert_uint_eq(pump.chunk, FIO_PIPE_GULP / 2);
	ck_assert_int_eq(pump.small, 0);
	fio_pump_end(&pump);
	close(p[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "reader: status %#x", status);
	close(fd);
}
END_TEST

/*
 * From a pipe into /dev/null, whose writer grows the pipe once the
 * stream is long (yes, pv, pipebench do): the chunks follow it after
 * FIO_VOTE_ROUNDS full ones, not staying at the 64 KiB the input came
 * with (pipebench's pass-through of yes: sixteen times the calls, a
 * third of pv's rate).
 */
START_TEST(grown_input)
{
	static char block[FIO_PIPE_GULP];
	int p[2], null, round;
	struct fio_fd in, out;
	struct fio_pump pump;
	size_t queued;
	char buf[64];
	ssize_t n;

	fio_reset();
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_ge(null = open("/dev/null", O_WRONLY), 0);
	pump_open(&pump, &in, p[0], &out, null, buf, sizeof buf, FIO_FOREVER,
		  0);
	ck_assert_int_eq(fio_pump_strategy(&pump), FIO_SPLICE);
	ck_assert_uint_eq(pump.chunk, fio_min(in.pipe_size, FIO_SPLICE_CHUNK));
	if (in.pipe_size >= FIO_SPLICE_CHUNK ||
	    fio_pipe_grow(p[1], FIO_PIPE_GULP) < FIO_PIPE_GULP) {
		fio_pump_end(&pump);
		return; /* no bigger pipe to be had here */
	}
	/* Pipefuls, each taken whole (never a call on an empty pipe). */
	for (round = 0; round < 4; round++) {
		ck_assert_int_eq(write(p[1], block, sizeof block),
				 (ssize_t)sizeof block);
		for (queued = sizeof block; queued > 0; queued -= (size_t)n)
			ck_assert_int_gt(n = fio_pump_fill(&pump), 0);
	}
	ck_assert_uint_eq(pump.chunk, FIO_SPLICE_CHUNK);
	fio_pump_end(&pump);
	close(p[0]);
	close(p[1]);
	close(null);
}
END_TEST

/*
 * A reader of page-sized bites that does some work on each byte (a
 * hash through a chain of multiplies, so the compiler cannot hurry it)
 * runs at a few hundred MB/s, like mawk. Into it a child moves PACED
 * bytes: the pump from a file (cat), or fio_repeat with a 53-byte line
 * (yes). The child's voluntary context switches say how often it slept.
 * Paced (pace.c), it sleeps about once a chunk; unpaced, the reader's
 * reads of a full pipe wake it nearly once a read. Unpaced means left
 * to the kernel's wake-ups: the spin on a full pipe (spin_call) is off
 * too, or the writer would yield instead of sleeping and the control
 * would show nothing. _i: bit 0 unpaced, bit 1 fio_repeat.
 *
 * fio_repeat's start (repeat.c, FIO_STAGE_START) writes as GNU's yes
 * does, into the pipe as the kernel made it, unpaced: each of the
 * reader's reads there may wake it. Those reads are allowed a sleep
 * each; the bound holds for the rest.
 *
 * A sleep of ours on a virtual machine now and then lasts a millisecond
 * more than asked, and two such in a row rightly leave the reader to
 * the kernel for a while (1000 wake-ups more in a run, about 1 run in
 * 60 here): the best of PACED_TRIES runs is held to the bound.
 */
#define PACED	    (32 * MIB)
#define PACED_TRIES 3

static const char paced_line[] =
    "00000001 00000002 00000003 00000004 2015-07-28T14:23:18\n";

static unsigned char
paced_byte(int repeat, size_t i)
{
	return repeat ? (unsigned char)paced_line[i % (sizeof paced_line - 1)]
		      : vote_byte(i);
}

/* One run of variant i; the child's sleeps, its reader's reads in
 * *reads, and those of the start in *start. */
static long
paced_run(int i, unsigned *reads, unsigned *start)
{
	static unsigned char buf[4096];
	int repeat = i >> 1;
	unsigned h = 0;
	struct fio_fd in, out;
	struct rusage ru;
	size_t got = 0, j;
	char small[64];
	int p[2], fd, status, rc;
	ssize_t k;
	pid_t pid;

	*reads = 0;
	fd = vote_file(PACED, 0);
	ck_assert_int_eq(pipe(p), 0);
	*start = repeat ? (unsigned)(fio_repeat_stage_end(
					 FIO_STAGE_START,
					 (size_t)fcntl(p[1], F_GETPIPE_SZ)) /
				     sizeof buf)
			: 0;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		fio_reset();
		if (i & 1)
			fio_disable("pace,spin");
		if (fio_classify(fd, &in) != 0 || fio_classify(p[1], &out) != 0)
			_exit(1);
		rc = repeat
			 ? fio_repeat(&out, paced_line, sizeof paced_line - 1,
				      PACED, NULL)
			 : copy_all(&in, &out, small, sizeof small, NULL, NULL);
		_exit(rc == 0 ? 0 : 2);
	}
	close(p[1]);
	close(fd);
	while ((k = read(p[0], buf, sizeof buf)) > 0) {
		if (got + (size_t)k > PACED)
			break;
		for (j = 0; j < (size_t)k; j++) {
			if (buf[j] != paced_byte(repeat, got + j))
				break;
			h = h * 31 + buf[j];
		}
		if (j < (size_t)k)
			break;
		got += (size_t)k;
		++*reads;
	}
	close(p[0]);
	ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_eq(got, PACED);
	ck_assert_uint_ne(h, 1); /* the work is used */
	return ru.ru_nvcsw;
}

START_TEST(paced_reader)
{
	unsigned reads, start, best_reads = 0;
	long sleeps, best = -1;
	int try;

	for (try = 0; try < PACED_TRIES; try++) {
		sleeps = paced_run(_i, &reads, &start);
		if (_i & 1 ? (unsigned long)sleeps > reads / 4
			   : (unsigned long)sleeps < start + reads / 16)
			return;
		if (best < 0 || (_i & 1 ? sleeps > best : sleeps < best)) {
			best = sleeps;
			best_reads = reads;
		}
	}
	ck_abort_msg("%s: %ld sleeps for %u reads, the best of %d runs",
		     _i & 1 ? "unpaced" : "paced", best, best_reads,
		     PACED_TRIES);
}
END_TEST

/*
 * The reader's pace is learnt only between two looks of one call, while
 * the pipe held bytes: bytes taken between calls may include a wait on
 * an empty pipe while the writer was away, and a pace taken across it
 * would be too slow and starve a fast reader. Here the pipe is full and
 * nobody reads during the calls; between them the reader takes bytes.
 */
START_TEST(pace_learns_within_a_call)
{
	struct fio_pace pc = {0};
	static char buf[64 << 10];
	uint64_t sent = 0;
	size_t size;
	ssize_t k;
	int p[2], round;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	k = fcntl(p[1], F_GETPIPE_SZ);
	ck_assert_int_gt(k, 0);
	size = (size_t)k;
	for (round = 0; round < 3; round++) {
		while ((k = write(p[1], buf, sizeof buf)) > 0)
			sent += (uint64_t)k;
		ck_assert_int_eq(errno, EAGAIN);
		fio_pace(&pc, p[1], size, sent, size);
		ck_assert_uint_eq(pc.taken, 0);
		ck_assert_int_eq(read(p[0], buf, sizeof buf), sizeof buf);
	}
	close_pipe(p);
}
END_TEST

/* paced_reader: a quiet machine (the sleeps it counts depend on what
 * else runs), two CPUs (the reader's work and the pump at once) and a
 * native run (an emulator's own threads would count). */
static spawn_need *const paced[] = {spawn_need_quiet, spawn_need_two_cpus,
				    spawn_need_native, NULL};

static Suite *
pump_suite(void)
{
	Suite *s = suite_create("pump");
	TCase *tc = tcase_create("pump");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, small_file_sizes, 0, 4);
	tcase_add_test(tc, small_file_bigger_than_buffer);
	tcase_add_loop_test(tc, limit, 0, 2);
	tcase_add_test(tc, keep);
	tcase_add_test(tc, gather);
	tcase_add_test(tc, refusal_downgrades);
	tcase_add_loop_test(tc, signals, 0, 2);
	tcase_add_loop_test(tc, copy_error_side, 0, 2);
	tcase_add_test(tc, copy_strategies);
	tcase_add_loop_test(tc, bite_vote, 0, 3);
	tcase_add_test(tc, gulp_vote);
	tcase_add_test(tc, grown_input);
	tcase_add_test(tc, pace_learns_within_a_call);
	suite_add_tcase(s, tc);
	suite_add_needing(s, "pace", paced_reader, 4, paced);
	return s;
}

int
main(void)
{
	return suite_main(pump_suite());
}
