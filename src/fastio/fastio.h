/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_H
#define FASTIO_H

/*
 * libfastio: classify file descriptors once, then move bytes between them
 * with the fastest strategy the kernel accepts for that pair of kinds.
 *
 * Contract shared by every strategy: it returns FIO_DONE when the job is
 * finished, FIO_UNSUPPORTED when the kernel refused it before the first byte
 * moved (the caller tries the next strategy, output is unaffected), or
 * FIO_ERROR with errno set once bytes have moved or on a real error.
 *
 * No function here prints or exits; failures come back as -1 with errno.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

enum fio_kind {
	FIO_UNKNOWN, /* fstat failed (closed fd): plain read/write only */
	FIO_REGULAR,
	FIO_SPECIAL, /* regular file whose st_size lies: procfs, sysfs, ... */
	FIO_PIPE,    /* pipe or FIFO */
	FIO_TTY,
	FIO_SOCKET,
	FIO_DEVNULL,
	FIO_CHAR, /* any other character device */
	FIO_BLOCK,
	FIO_DIRECTORY,
	FIO_OTHER
};

/* Bits of fio_fd.flags. */
#define FIO_READABLE 0x1u
#define FIO_WRITABLE 0x2u
#define FIO_APPEND   0x4u
#define FIO_NONBLOCK 0x8u

struct fio_fd {
	int fd;
	enum fio_kind kind;
	unsigned flags;
	struct stat st;	  /* valid unless kind is FIO_UNKNOWN */
	size_t pipe_size; /* capacity in bytes for FIO_PIPE, else 0 */
};

enum fio_status { FIO_DONE, FIO_UNSUPPORTED, FIO_ERROR };

enum fio_strategy {
	FIO_WRITE, /* read()/write(): always enabled, the last resort */
	FIO_VMSPLICE,
	FIO_TEE,
	FIO_SPLICE,
	FIO_COPY_FILE_RANGE,
	FIO_SENDFILE,
	FIO_READFILE,
	FIO_STRATEGY_COUNT
};

/* Marks a byte count as unlimited. */
#define FIO_FOREVER UINT64_MAX

/*
 * fio_classify: fill *f for fd. Returns 0, or -1 with errno from fstat (the
 * record is still filled, as FIO_UNKNOWN, so callers may go on and let the
 * first read or write report the error the way GNU tools do).
 */
int fio_classify(int fd, struct fio_fd *f);

/*
 * fio_classify_opened: the same for a descriptor the caller opened itself
 * with open_flags, saving the fcntl(F_GETFL) (one syscall per file counts
 * when cat reads thousands of small files).
 */
int fio_classify_opened(int fd, int open_flags, struct fio_fd *f);

/* fio_kind_name: a short lower-case name for a kind ("pipe", "tty", ...). */
const char *fio_kind_name(enum fio_kind kind);

/*
 * fio_disable: disable the strategies named in a comma-separated list
 * ("vmsplice,tee", or "all" for everything but write). Returns 0, or -1 with
 * errno EINVAL if a name is unknown (the known names are still applied).
 */
int fio_disable(const char *list);

/* fio_reset: enable every strategy again (for tests). */
void fio_reset(void);

/*
 * fio_init: apply the FASTIO_DISABLE environment variable. Returns what
 * fio_disable returns; programs ignore the result so that a typo in a
 * debugging variable never changes their output.
 */
int fio_init(void);

/* fio_enabled: nonzero if strategy s may be tried. */
int fio_enabled(enum fio_strategy s);

/* fio_strategy_name: the name fio_disable accepts for s. */
const char *fio_strategy_name(enum fio_strategy s);

/*
 * fio_pipe_grow: try to make the pipe fd hold at least want bytes. Failure
 * (EPERM, EBUSY, per-user quota) is not an error: the return value is the
 * capacity actually in effect afterwards, or 0 if it cannot be known.
 */
size_t fio_pipe_grow(int fd, size_t want);

/*
 * Lowest layer: each moves at most FIO_MAX_IO bytes per call (vmsplice: and
 * at most IOV_MAX segments) and retries EINTR; nothing above this layer sees
 * EINTR. Return as the syscall does.
 */
ssize_t fio_read(int fd, void *buf, size_t len);
ssize_t fio_write(int fd, const void *buf, size_t len);
ssize_t fio_vmsplice(int fd, const struct iovec *iov, size_t count,
		     unsigned flags);
ssize_t fio_tee(int in, int out, size_t len, unsigned flags);
ssize_t fio_splice(int in, loff_t *in_off, int out, loff_t *out_off, size_t len,
		   unsigned flags);
ssize_t fio_copy_file_range(int in, int out, size_t len);
ssize_t fio_sendfile(int out, int in, size_t len);

/*
 * fio_refused: nonzero if err, from a zero-copy call (vmsplice, tee,
 * splice, copy_file_range, sendfile) that moved nothing yet, means the
 * kernel cannot serve these descriptors that way, so read()/write() should
 * take over; zero if it is the input's or output's own error, which
 * read()/write() would report just the same.
 */
int fio_refused(int err);

/*
 * fio_write_all: write all len bytes, continuing after short writes from
 * where they stopped. Returns 0, or -1 with errno (a write that returns 0 is
 * reported as ENOSPC, as GNU's full_write does).
 */
int fio_write_all(int fd, const void *buf, size_t len);

/*
 * fio_repeat: write the len-byte pattern to fd again and again, limit bytes
 * in all (FIO_FOREVER: until an error). The stream is exactly the pattern
 * repeated, whatever the chunk and pattern sizes. Pipes get zero-copy
 * strategies; a buffer handed to the kernel is never written or unmapped
 * afterwards. If used is not NULL it receives the strategy that moved the
 * bytes. Returns 0 when limit bytes went out, or -1 with errno.
 */
int fio_repeat(int fd, const void *pattern, size_t len, uint64_t limit,
	       enum fio_strategy *used);

/* Which end of a copy failed. */
enum fio_side { FIO_SIDE_INPUT, FIO_SIDE_OUTPUT };

/*
 * fio_copy: copy in to out, from the current offsets to in's end of file.
 * Picks by the pair of kinds: copy_file_range (regular to regular), splice
 * (regular to pipe, pipe to pipe, regular file or socket), sendfile
 * (regular to socket); a strategy refused before its first byte, and
 * every other pair, uses read()/write() through buf (size bytes). Returns
 * 0, or -1 with errno and *side telling whether reading or writing failed.
 * If used is not NULL it receives the strategy that moved the bulk of the
 * bytes (FIO_WRITE if only read()/write() did).
 */
int fio_copy(const struct fio_fd *in, const struct fio_fd *out, void *buf,
	     size_t size, enum fio_strategy *used, enum fio_side *side);

/*
 * fio_readfile: read a small regular file that is at offset 0 into buf
 * (room bytes) with as few read() calls as its size allows: usually one,
 * without the read that returns 0 (see copy.c for why that is safe). Sets
 * *eof when the whole file was read. Returns the bytes read, or -1 with
 * errno if the first read failed; a later error shows as a short count
 * without *eof, and the next read reports it again.
 */
ssize_t fio_readfile(const struct fio_fd *in, void *buf, size_t room, int *eof);

#endif
