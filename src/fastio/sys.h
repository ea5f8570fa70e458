/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_SYS_H
#define FASTIO_SYS_H

/*
 * libfastio's calls that move bytes (io.c): every byte of a stream that
 * a program of the tree moves goes through them. (The one other read()
 * is verify.c's, pb_expect_file(): pipebench reading an --expect-file
 * reference whole before the stream starts.)
 * Each moves at most FIO_MAX_IO bytes (vmsplice: and at most IOV_MAX
 * segments) and retries EINTR, unless interruptible is set: then -1 with
 * EINTR comes back, for a caller that waits for a signal. They return as
 * the syscall does. Not part of the API: programs use fastio.h.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

ssize_t fio_read(int fd, void *buf, size_t len, int interruptible);
ssize_t fio_write(int fd, const void *buf, size_t len, int interruptible);
ssize_t fio_vmsplice(int fd, const struct iovec *iov, size_t count,
		     unsigned flags);
ssize_t fio_tee(int in, int out, size_t len, unsigned flags);
ssize_t fio_splice(int in, int out, size_t len, unsigned flags,
		   int interruptible);
/* copy_file_range from in's offset to out's byte *at (advanced); a
 * signal never ends it: it fills a range of the output taken before. */
ssize_t fio_copy_file_range(int in, int out, off_t *at, size_t len);
ssize_t fio_sendfile(int out, int in, size_t len, int interruptible);

/*
 * Write all len bytes, continuing after short writes from where they
 * stopped; *done (if not NULL) counts the bytes written, also on failure.
 * Returns 0, or -1 with errno (a write that returns 0 is reported as
 * ENOSPC, as GNU's full_write does).
 */
int fio_write_all(int fd, const void *buf, size_t len, size_t *done,
		  int interruptible);

/* Write all len bytes at the file's byte at (pwrite), as fio_write_all
 * does; the file's own offset does not move. */
int fio_pwrite_all(int fd, const void *buf, size_t len, off_t at);

/* The smaller of a size and a count that may be bigger than any size. */
static inline size_t
fio_min(size_t a, uint64_t b)
{
	return b < a ? (size_t)b : a;
}

/*
 * Nonzero if err, from a zero-copy call (vmsplice, tee, splice,
 * copy_file_range, sendfile), means the kernel cannot serve these
 * descriptors that way, so read()/write() should take over from where
 * the stream stands, at the first call or any later one; zero if it is
 * the input's or output's own error, which read()/write() would report
 * just the same.
 */
int fio_refused(int err);

#endif
