/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "fastio.h"
#include "pace.h"
#include "sys.h"
#include "vote.h"
#include "tune.h"

/*
 * The one place that picks how an input's bytes move (doc/design.md,
 * "Moving an input"). An input whose size cannot be trusted (FIO_UNSIZED:
 * procfs, sysfs, an empty file) is read with read() to its end; an
 * output is a file whatever its size.
 */
static enum fio_strategy
pick(const struct fio_pump *p)
{
	const struct fio_fd *in = p->in, *out = p->out;
	int out_file = out->kind == FIO_REGULAR;

	if (fio_sized(in) && (in->flags & FIO_AT_START) &&
	    (uint64_t)in->st.st_size < FIO_SMALL_FILE &&
	    (size_t)in->st.st_size < p->size && fio_enabled(FIO_ONE_READ))
		return FIO_ONE_READ;
	if (p->flags & FIO_PUMP_USER)
		return FIO_READ_WRITE;
	if (fio_sized(in)) {
		if (out_file && !(out->flags & FIO_APPEND) &&
		    fio_enabled(FIO_COPY_FILE_RANGE))
			return FIO_COPY_FILE_RANGE;
		if (out->kind == FIO_PIPE && fio_enabled(FIO_SPLICE))
			return FIO_SPLICE;
		if (out->kind == FIO_SOCKET && fio_enabled(FIO_SENDFILE))
			return FIO_SENDFILE;
	}
	/*
	 * Not from a pipe into a socket: that splice holds the pipe's lock
	 * while it waits for room in the socket, so a process that both
	 * feeds the pipe and reads the socket would wait for itself. Not
	 * into a file: a splice from a pipe takes the file's offset when it
	 * starts and waits for input holding it, then writes there, over
	 * what another writer of a shared description (`{ a | cat & b; } >
	 * log`) put there meanwhile; read() waits holding nothing, and
	 * write() takes the offset when it writes, under the description's
	 * lock (and ran faster: BENCHMARKS.md, "Strategies").
	 */
	if (in->kind == FIO_PIPE && fio_enabled(FIO_SPLICE) &&
	    (out->kind == FIO_PIPE || out->kind == FIO_DEVNULL))
		return FIO_SPLICE;
	return FIO_READ_WRITE;
}

/* A signal ends a waiting call (FIO_PUMP_SIGNALS). */
static int
interruptible(const struct fio_pump *p)
{
	return (p->flags & FIO_PUMP_SIGNALS) != 0;
}

static int
user_path(const struct fio_pump *p)
{
	return p->strategy == FIO_READ_WRITE || p->strategy == FIO_ONE_READ;
}

/* A regular file through a private pipe into a pipe. */
static int
through_mid(const struct fio_pump *p)
{
	return p->strategy == FIO_SPLICE && p->in->kind == FIO_REGULAR;
}

static void
taken(struct fio_pump *p, size_t n)
{
	p->got += n;
	if (p->left != FIO_FOREVER)
		p->left -= n;
}

/*
 * Splices into a pipe move half of it a call, so the processes on either
 * side work while we do (FIO_SPLICE_CHUNK in tune.h, which is also the
 * most); from a pipe into anything else, what the input pipe holds. A
 * reader that takes small bites gets smaller chunks from files.
 */
static void
set_chunk(struct fio_pump *p)
{
	size_t pipe =
	    p->out->kind == FIO_PIPE ? p->out_pipe_size / 2 : p->in->pipe_size;

	p->chunk =
	    pipe == 0 ? FIO_SPLICE_CHUNK : fio_min(FIO_SPLICE_CHUNK, pipe);
	if (p->small && through_mid(p))
		p->chunk = fio_min(p->chunk, FIO_SPLICE_BITE);
}

/*
 * The output pipe is grown to size, and the chunks with it. Every slot
 * counts against the user's pipe quota for as long as the pipe lives, so
 * fio_pump_end gives back what was grown. Only ours to grow: an input
 * pipe is its writer's business.
 */
static void
grow_out(struct fio_pump *p, size_t size)
{
	size_t was = p->out_pipe_size;

	if (p->out->kind != FIO_PIPE || was >= size ||
	    (p->flags & FIO_PUMP_KEEP_PIPES))
		return;
	p->out_pipe_size = fio_pipe_grow(p->out->fd, size);
	if (p->out_pipe_size > was && p->grown_from == 0)
		p->grown_from = was;
	set_chunk(p);
}

/*
 * A transfer gains from a bigger pipe once it is bigger than the pipe:
 * the bytes known to come (a file's size) or that have come (a pipe's).
 * One that fits gains nothing, and a grown pipe stays grown, and counted
 * against the user's quota, for as long as its reader runs
 * (BENCHMARKS.md, "Strategies").
 */
static void
grow_for(struct fio_pump *p, uint64_t bytes)
{
	if (!p->grown && bytes > p->out_pipe_size) {
		p->grown = 1;
		grow_out(p, FIO_PIPE_SIZE);
	}
}

size_t
fio_pump_grow(struct fio_pump *p, size_t size)
{
	grow_out(p, size);
	if (p->strategy == FIO_SPLICE)
		set_chunk(p);
	return p->out_pipe_size;
}

void
fio_pump_next(struct fio_pump *p, const struct fio_fd *in, uint64_t limit)
{
	p->in = in;
	p->left = limit;
	p->got = 0;
	p->eof = 0;
	p->full = 0;
	p->strategy = pick(p);
	p->chunk = FIO_MAX_IO;
	/* Read-ahead in big steps (GNU cat's 2010 change: ~5% on flash). */
	if (in->kind == FIO_REGULAR && p->strategy != FIO_ONE_READ)
		(void)posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (p->strategy != FIO_SPLICE)
		return;
	set_chunk(p);
	if (fio_sized(in))
		grow_for(p, (uint64_t)in->st.st_size < limit
				? (uint64_t)in->st.st_size
				: limit);
}

void
fio_pump_init(struct fio_pump *p, const struct fio_fd *in,
	      const struct fio_fd *out, char *buf, size_t size, uint64_t limit,
	      unsigned flags)
{
	p->out = out;
	p->flags = flags;
	p->buf = buf;
	p->size = size;
	p->held = 0;
	p->total = 0;
	p->mid[0] = p->mid[1] = -1;
	p->in_mid = p->mid_size = 0;
	p->out_pipe_size = out->kind == FIO_PIPE ? out->pipe_size : 0;
	p->grown = 0;
	p->grown_from = 0;
	p->vote = (struct fio_vote){0, 0, 0};
	p->small = 0;
	p->full = 0;
	p->pace = (struct fio_pace){0};
	p->side = FIO_SIDE_INPUT;
	p->in = NULL;
	p->left = 0;
	p->strategy = FIO_READ_WRITE;
	if (in != NULL)
		fio_pump_next(p, in, limit);
}

static int
write_held(struct fio_pump *p)
{
	size_t done;
	int rc;

	rc =
	    fio_write_all(p->out->fd, p->buf, p->held, &done, interruptible(p));
	p->total += done;
	p->held -= done;
	if (rc < 0) {
		/* What the output did not take stays, in order, at the front.
		 */
		memmove(p->buf, p->buf + done, p->held);
		p->side = FIO_SIDE_OUTPUT;
	}
	return rc;
}

/* Bytes still in the private pipe go out by read()/write(), whose
 * errors say which side failed. */
static int
drain_mid(struct fio_pump *p)
{
	ssize_t n;

	while (p->in_mid > 0) {
		n = fio_read(p->mid[0], p->buf, fio_min(p->size, p->in_mid), 0);
		if (n <= 0) {
			/* Our own pipe holding bytes cannot fail a read. */
			p->side = FIO_SIDE_INPUT;
			return -1;
		}
		p->in_mid -= (size_t)n;
		p->held = (size_t)n;
		if (write_held(p) < 0)
			return -1;
	}
	return 0;
}

/*
 * The reader's vote on a full chunk that took calls splices: one that
 * takes small bites gets smaller chunks from files from now on, one that
 * takes the pipe whole a bigger pipe (FIO_VOTE_ROUNDS in tune.h).
 */
static void
vote(struct fio_pump *p, unsigned calls)
{
	switch (fio_vote_count(&p->vote, calls >= FIO_VOTE_BITE, calls == 1)) {
	case FIO_VOTE_SIGN:
		if (fio_enabled(FIO_BITES)) {
			p->small = 1;
			p->chunk = fio_min(p->chunk, FIO_SPLICE_BITE);
		}
		break;
	case FIO_VOTE_WHOLE:
		grow_out(p, FIO_PIPE_GULP);
		break;
	}
}

static int
flush_mid(struct fio_pump *p)
{
	unsigned flags = p->out->flags & FIO_NONBLOCK ? SPLICE_F_NONBLOCK : 0;
	int full = p->in_mid == p->chunk;
	unsigned calls;

	p->in_mid -= fio_splice_paced(&p->pace, p->mid[0], p->out->fd,
				      p->out_pipe_size, &p->total, p->in_mid,
				      flags, interruptible(p), 0, NULL, &calls);
	if (p->in_mid == 0) {
		if (full)
			vote(p, calls);
		return 0;
	}
	if (errno == EINTR) {
		p->side = FIO_SIDE_OUTPUT;
		return -1;
	}
	/* The output refuses splice, or failed: write() tells. */
	p->strategy = FIO_READ_WRITE;
	return drain_mid(p);
}

int
fio_pump_flush_all(struct fio_pump *p)
{
	if (p->in_mid > 0 && flush_mid(p) < 0)
		return -1;
	return p->held > 0 ? write_held(p) : 0;
}

int
fio_pump_put(struct fio_pump *p, const void *data, size_t len)
{
	if ((p->in_mid > 0 || p->size - p->held < len) &&
	    fio_pump_flush_all(p) < 0)
		return -1;
	if (len > p->size - p->held) {
		p->side = FIO_SIDE_OUTPUT;
		if (fio_write_all(p->out->fd, data, len, NULL, 0) < 0)
			return -1;
		p->total += len;
		return 0;
	}
	memcpy(p->buf + p->held, data, len);
	p->held += len;
	if ((p->flags & FIO_PUMP_GATHER) && p->held < p->size / 2)
		return 0;
	return fio_pump_flush_all(p);
}

int
fio_pump_flush(struct fio_pump *p)
{
	/* Small files gather into few big writes; nothing read can block. */
	if ((p->flags & FIO_PUMP_GATHER) && p->in->kind == FIO_REGULAR &&
	    p->held < p->size / 2 && p->in_mid == 0)
		return 0;
	return fio_pump_flush_all(p);
}

/*
 * read() into buf. Held bytes go out first when the read may block (an
 * interactive reader sees them at once) or when there is no room.
 */
static ssize_t
user_fill(struct fio_pump *p)
{
	const struct fio_fd *in = p->in;
	int whole = p->strategy == FIO_ONE_READ && p->got == 0;
	size_t need = whole ? (size_t)in->st.st_size + 1 : 1, want;
	ssize_t n;

	if (p->held > 0 &&
	    (in->kind != FIO_REGULAR || p->size - p->held < need) &&
	    fio_pump_flush_all(p) < 0)
		return -1;
	want = fio_min(p->size - p->held, p->left);
	if (whole && want > need)
		want = need;
	/*
	 * A regular file's reads come back whole but the last: asked to end
	 * on a whole block (FIO_WHOLE_BLOCK) of what is held, they leave whole
	 * blocks to write, as GNU's reads and writes of 128 KiB do, for a
	 * reader that takes one read as a block.
	 */
	else if (in->kind == FIO_REGULAR && want > FIO_WHOLE_BLOCK)
		want -= (p->held + want) % FIO_WHOLE_BLOCK;
	n = fio_read(in->fd, p->buf + p->held, want, interruptible(p));
	if (n < 0) {
		p->side = FIO_SIDE_INPUT;
		return -1;
	}
	if (n == 0) {
		p->eof = 1;
		return 0;
	}
	p->held += (size_t)n;
	taken(p, (size_t)n);
	/*
	 * A regular file's read stops short only at its end (a read error
	 * after some bytes also stops it short, but then the count is below
	 * st_size and the next read reports it). So when a small file held
	 * exactly the st_size bytes fstat saw, the read that would return 0
	 * is skipped: one syscall per file. A file that grew meanwhile
	 * filled the extra byte asked for and is read on; procfs and sysfs
	 * files are FIO_UNSIZED and never come here, and a FUSE file claiming
	 * size 0 also fills the extra byte.
	 */
	if (whole && (size_t)n < want && (off_t)n == in->st.st_size)
		p->eof = 1;
	return n;
}

/*
 * The kernel paths, one step each, under the contract of every strategy:
 * FIO_DONE with *n bytes taken, FIO_UNSUPPORTED when this path cannot take
 * this step (refused, failed, or a 0 that only a read can confirm as the
 * end), FIO_ERROR with errno (a signal, with FIO_PUMP_SIGNALS). A failed
 * call moved nothing and the offsets say where it stopped, so read() and
 * write() redo the step from there and their errors name the side.
 */
static enum fio_status
mid_step(struct fio_pump *p, ssize_t *n)
{
	size_t want;

	if (p->in_mid > 0 && flush_mid(p) < 0)
		return FIO_ERROR;
	if (p->mid[0] < 0) {
		if (pipe2(p->mid, O_CLOEXEC) < 0) {
			p->mid[0] = p->mid[1] = -1;
			return FIO_UNSUPPORTED;
		}
		p->mid_size = 0;
	}
	/* The private pipe holds one chunk, no more: its slots count
	 * against the user's pipe quota too. */
	if (p->mid_size < p->chunk) {
		p->mid_size = fio_pipe_grow(p->mid[1], p->chunk);
		if (p->mid_size == 0)
			p->mid_size = 64 << 10;
	}
	/* Half the output pipe from the file, not a pipeful: FIO_SPLICE_CHUNK
	 * in tune.h says why.
	 */
	want = fio_min(fio_min(p->chunk, p->mid_size), p->left);
	*n = fio_splice(p->in->fd, p->mid[1], want, 0, interruptible(p));
	if (*n > 0) {
		p->in_mid = (size_t)*n;
		taken(p, (size_t)*n);
		return FIO_DONE;
	}
	p->side = FIO_SIDE_INPUT;
	return *n < 0 && errno == EINTR ? FIO_ERROR : FIO_UNSUPPORTED;
}

/*
 * The rest of a taken range that copy_file_range left: read() and
 * pwrite() into it, each failure its side's. Returns the bytes moved,
 * fewer than len where the input ended early, or -1 with errno and
 * p->side.
 */
static ssize_t
fill_range(struct fio_pump *p, off_t at, size_t len)
{
	size_t done = 0;
	ssize_t k;

	while (done < len) {
		k = fio_read(p->in->fd, p->buf, fio_min(p->size, len - done),
			     0);
		if (k < 0) {
			p->side = FIO_SIDE_INPUT;
			return -1;
		}
		if (k == 0)
			break;
		if (fio_pwrite_all(p->out->fd, p->buf, (size_t)k, at) < 0) {
			p->side = FIO_SIDE_OUTPUT;
			return -1;
		}
		at += k;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

/*
 * copy_file_range between regular files, into a range of the output taken
 * first. The output's description may be shared (`{ cat a & cat b; } >
 * log`): write() takes the file's offset under the description's position
 * lock at the moment it writes, but copy_file_range, like splice, reads
 * it unlocked when it starts and sets it when it ends, over whatever
 * another writer put there meanwhile. lseek() takes that lock: moving the
 * offset past the range first makes the range ours, and every other
 * writer writes after it. The range is what the input still holds, at
 * most FIO_COPY_CHUNK; a refusal leaves its rest to read() and pwrite()
 * and the next steps to read() and write().
 */
static enum fio_status
copy_step(struct fio_pump *p, ssize_t *n)
{
	off_t in_at = lseek(p->in->fd, 0, SEEK_CUR), end, at;
	size_t len, done = 0;
	ssize_t k = 0;

	/* At or past the size fstat saw: read() tells the end, or reads
	 * what the file grew by. */
	if (in_at < 0 || in_at >= p->in->st.st_size)
		return FIO_UNSUPPORTED;
	len = fio_min(fio_min(FIO_COPY_CHUNK, p->left),
		      (uint64_t)(p->in->st.st_size - in_at));
	end = lseek(p->out->fd, (off_t)len, SEEK_CUR);
	if (end < 0)
		return FIO_UNSUPPORTED;
	at = end - (off_t)len;
	while (done < len && (k = fio_copy_file_range(p->in->fd, p->out->fd,
						      &at, len - done)) > 0)
		done += (size_t)k;
	if (done < len) {
		p->strategy = FIO_READ_WRITE;
		k = fill_range(p, at, len - done);
		if (k > 0) {
			done += (size_t)k;
			at += k;
		}
	}
	taken(p, done);
	p->total += done;
	*n = (ssize_t)done;
	/* The input ended early (a file that shrank) or failed: the rest
	 * of the range is given back, unless another writer wrote after
	 * it. */
	if (done < len && lseek(p->out->fd, 0, SEEK_CUR) == end)
		(void)lseek(p->out->fd, at, SEEK_SET);
	if (k < 0)
		return FIO_ERROR;
	if (done < len)
		p->eof = 1;
	return FIO_DONE;
}

/*
 * From a pipe into a file or /dev/null a call takes what the input pipe
 * holds, as big as it was when this input began; its writer may grow it
 * later (yes, pipebench, pv do, once the stream is long). After
 * FIO_VOTE_ROUNDS full chunks in a row the pipe's size is looked at
 * again: one fcntl a few MiB, where a 64 KiB chunk from a pipe grown to
 * 1 MiB made sixteen times the calls (pipebench's pass-through of yes:
 * 22 GB/s against 59, fc-v782).
 */
static void
follow_input_pipe(struct fio_pump *p, size_t moved)
{
	int size;

	if (p->in->kind != FIO_PIPE || p->out->kind == FIO_PIPE ||
	    p->chunk >= FIO_SPLICE_CHUNK || moved < p->chunk) {
		p->full = 0;
		return;
	}
	if (++p->full < FIO_VOTE_ROUNDS)
		return;
	p->full = 0;
	size = fcntl(p->in->fd, F_GETPIPE_SZ);
	if (size > 0 && (size_t)size > p->chunk)
		p->chunk = fio_min(FIO_SPLICE_CHUNK, (size_t)size);
}

/* sendfile, splice from a pipe: in to out in one call. */
static enum fio_status
direct_step(struct fio_pump *p, ssize_t *n)
{
	size_t len;
	unsigned flags = (p->in->flags | p->out->flags) & FIO_NONBLOCK
			     ? SPLICE_F_NONBLOCK
			     : 0;

	if (p->strategy == FIO_SPLICE)
		grow_for(p, p->total);
	len = fio_min(p->chunk, p->left);
	if (p->strategy == FIO_SENDFILE)
		*n = fio_sendfile(p->out->fd, p->in->fd, len, interruptible(p));
	else
		*n = fio_splice(p->in->fd, p->out->fd, len,
				flags | SPLICE_F_MOVE, interruptible(p));
	if (*n > 0 && p->strategy == FIO_SPLICE)
		follow_input_pipe(p, (size_t)*n);
	if (*n > 0) {
		taken(p, (size_t)*n);
		p->total += (size_t)*n;
		return FIO_DONE;
	}
	p->side = FIO_SIDE_INPUT;
	return *n < 0 && errno == EINTR ? FIO_ERROR : FIO_UNSUPPORTED;
}

ssize_t
fio_pump_fill(struct fio_pump *p)
{
	enum fio_status st;
	ssize_t n;

	if (p->eof || p->left == 0)
		return 0;
	if (user_path(p))
		return user_fill(p);
	/* Bytes read earlier go out before the kernel moves newer ones. */
	if (p->held > 0 && write_held(p) < 0)
		return -1;
	st = p->strategy == FIO_COPY_FILE_RANGE ? copy_step(p, &n)
	     : through_mid(p)			? mid_step(p, &n)
						: direct_step(p, &n);
	if (st == FIO_UNSUPPORTED) {
		/* read()/write() go on from the same offsets. */
		p->strategy = FIO_READ_WRITE;
		return user_fill(p);
	}
	return st == FIO_DONE ? n : -1;
}

void
fio_pump_keep(struct fio_pump *p, size_t n)
{
	if (n < p->held)
		p->held = n;
}

const char *
fio_pump_data(const struct fio_pump *p, size_t *len)
{
	*len = p->held;
	return p->held > 0 || user_path(p) ? p->buf : NULL;
}

enum fio_strategy
fio_pump_strategy(const struct fio_pump *p)
{
	return p->strategy;
}

void
fio_pump_end(struct fio_pump *p)
{
	if (p->grown_from > 0)
		(void)fio_pipe_give_back(p->out->fd, p->grown_from);
	p->grown_from = 0;
	if (p->mid[0] >= 0) {
		close(p->mid[0]);
		close(p->mid[1]);
	}
	p->mid[0] = p->mid[1] = -1;
	p->in_mid = 0;
	p->held = 0;
}
