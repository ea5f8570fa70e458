/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "fastio.h"
#include "tune.h"

static enum fio_strategy
pick(const struct fio_fd *in, const struct fio_fd *out)
{
	/*
	 * A size of 0 makes a file FIO_SPECIAL because it says nothing about
	 * what reading it gives; for an output (freshly truncated, say) it
	 * does not matter, and a pseudo file refuses on the first call.
	 */
	int out_file = out->kind == FIO_REGULAR || out->kind == FIO_SPECIAL;

	if (in->kind == FIO_REGULAR) {
		if (out_file && fio_enabled(FIO_COPY_FILE_RANGE))
			return FIO_COPY_FILE_RANGE;
		if (out->kind == FIO_PIPE && fio_enabled(FIO_SPLICE))
			return FIO_SPLICE;
		if (out->kind == FIO_SOCKET && fio_enabled(FIO_SENDFILE))
			return FIO_SENDFILE;
	}
	if (in->kind == FIO_PIPE && fio_enabled(FIO_SPLICE) &&
	    (out->kind == FIO_PIPE || out_file || out->kind == FIO_SOCKET))
		return FIO_SPLICE;
	return FIO_WRITE;
}

static ssize_t
step(enum fio_strategy s, const struct fio_fd *in, const struct fio_fd *out,
     size_t chunk, unsigned flags)
{
	switch (s) {
	case FIO_COPY_FILE_RANGE:
		return fio_copy_file_range(in->fd, out->fd, chunk);
	case FIO_SENDFILE:
		return fio_sendfile(out->fd, in->fd, chunk);
	default:
		return fio_splice(in->fd, NULL, out->fd, NULL, chunk, flags);
	}
}

/*
 * Move bytes with strategy s until it returns 0 or fails. Returns the
 * bytes moved, or -1 if s refused the pair before the first byte.
 */
static int64_t
zero_copy(enum fio_strategy s, const struct fio_fd *in,
	  const struct fio_fd *out)
{
	size_t chunk = FIO_MAX_IO;
	unsigned flags = SPLICE_F_MOVE;
	int64_t moved = 0;
	ssize_t n;

	if (s == FIO_SPLICE) {
		size_t pipe = out->kind == FIO_PIPE
				  ? fio_pipe_grow(out->fd, FIO_PIPE_SIZE)
				  : in->pipe_size;
		chunk = pipe >= FIO_SPLICE_CHUNK || pipe == 0 ? FIO_SPLICE_CHUNK
							      : pipe;
		if ((in->flags | out->flags) & FIO_NONBLOCK)
			flags |= SPLICE_F_NONBLOCK;
	}
	for (;;) {
		n = step(s, in, out, chunk, flags);
		if (n > 0) {
			moved += n;
			continue;
		}
		if (n < 0 && moved == 0 && fio_refused(errno))
			return -1;
		return moved;
	}
}

/*
 * Every exit from the zero-copy loop, success or failure, ends here. A
 * failed splice, sendfile or copy_file_range moved nothing in that call
 * and the file offsets say exactly where it stopped, so read()/write()
 * resume there: after an error they repeat the failing step with calls
 * whose errors belong to one side (which the zero-copy calls cannot tell),
 * and after a 0 they confirm the end of file with a read, because these
 * calls return 0 early on procfs, sysfs and FUSE files.
 */
static int
read_write(const struct fio_fd *in, const struct fio_fd *out, void *buf,
	   size_t size, enum fio_side *side)
{
	ssize_t n;

	for (;;) {
		n = fio_read(in->fd, buf, size);
		if (n == 0)
			return 0;
		if (n < 0) {
			*side = FIO_SIDE_INPUT;
			return -1;
		}
		if (fio_write_all(out->fd, buf, (size_t)n) < 0) {
			*side = FIO_SIDE_OUTPUT;
			return -1;
		}
	}
}

/* Write the bytes left in the middle pipe with read()/write(). */
static int
drain(int mid, size_t left, int out, void *buf, size_t size,
      enum fio_side *side)
{
	ssize_t n;

	while (left > 0) {
		n = fio_read(mid, buf, left < size ? left : size);
		if (n <= 0) {
			/* Our own pipe holding bytes cannot fail a read. */
			*side = FIO_SIDE_INPUT;
			return -1;
		}
		if (fio_write_all(out, buf, (size_t)n) < 0) {
			*side = FIO_SIDE_OUTPUT;
			return -1;
		}
		left -= (size_t)n;
	}
	return 0;
}

/*
 * Regular file into a pipe: splice the file into a private pipe, then that
 * pipe into the output. Splicing the file straight into the output makes
 * every call wait on the reader for room (15 GiB/s here against 66 through
 * the middle pipe, which moves a full pipe of page references per call),
 * and it gives each error a side: a failure filling our pipe is the
 * input's, a failure emptying it the output's. Bytes already in the
 * middle pipe when the output refuses splice go out through write(),
 * which then reports the output's real error.
 */
static int
splice_through_pipe(const struct fio_fd *in, const struct fio_fd *out,
		    void *buf, size_t size, enum fio_strategy *used,
		    enum fio_side *side)
{
	unsigned flags = out->flags & FIO_NONBLOCK ? SPLICE_F_NONBLOCK : 0;
	int mid[2], rc = 0;
	size_t room, left;
	ssize_t n;

	if (pipe2(mid, O_CLOEXEC) < 0)
		return 0;
	room = fio_pipe_grow(mid[1], FIO_PIPE_SIZE);
	(void)fio_pipe_grow(out->fd, FIO_PIPE_SIZE);
	if (room == 0)
		room = 64 << 10;
	for (;;) {
		n = fio_splice(in->fd, NULL, mid[1], NULL, room, 0);
		if (n <= 0)
			break;
		*used = FIO_SPLICE;
		for (left = (size_t)n; left > 0; left -= (size_t)n) {
			n = fio_splice(mid[0], NULL, out->fd, NULL, left,
				       flags);
			if (n <= 0) {
				rc = drain(mid[0], left, out->fd, buf, size,
					   side);
				break;
			}
		}
		if (rc < 0 || left > 0)
			break;
	}
	close(mid[0]);
	close(mid[1]);
	return rc;
}

int
fio_copy(const struct fio_fd *in, const struct fio_fd *out, void *buf,
	 size_t size, enum fio_strategy *used, enum fio_side *side)
{
	enum fio_strategy s = pick(in, out), ignored_strategy;
	enum fio_side ignored;

	if (side == NULL)
		side = &ignored;
	if (used == NULL)
		used = &ignored_strategy;
	*used = FIO_WRITE;
	if (s == FIO_SPLICE && in->kind == FIO_REGULAR) {
		if (splice_through_pipe(in, out, buf, size, used, side) < 0)
			return -1;
	} else if (s != FIO_WRITE && zero_copy(s, in, out) > 0) {
		*used = s;
	}
	return read_write(in, out, buf, size, side);
}
ssize_t
fio_readfile(const struct fio_fd *in, void *buf, size_t room, int *eof)
{
	size_t total = 0, want;
	ssize_t n;

	*eof = 0;
	want = in->st.st_size >= 0 && (uint64_t)in->st.st_size < room
		   ? (size_t)in->st.st_size + 1
		   : room;
	while (total < room) {
		n = fio_read(in->fd, (char *)buf + total, want - total);
		if (n < 0)
			return total > 0 ? (ssize_t)total : -1;
		if (n == 0) {
			*eof = 1;
			break;
		}
		total += (size_t)n;
		/*
		 * A regular file's read stops short only at its end (a read
		 * error after some bytes also stops it short, but then the
		 * total is below st_size and the next read reports it). So
		 * when the file holds exactly the st_size bytes fstat saw,
		 * the read that would return 0 is skipped: it saves one
		 * syscall per small file. A file that grew in between filled
		 * the extra byte we asked for and is read on; procfs and
		 * sysfs files are FIO_SPECIAL and never come here, and a
		 * FUSE file claiming size 0 also fills the extra byte.
		 */
		if (total < want && total == (uint64_t)in->st.st_size) {
			*eof = 1;
			break;
		}
		want = room;
	}
	return (ssize_t)total;
}
