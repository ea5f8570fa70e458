/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_SYS_H
#define FASTIO_SYS_H

/*
 * libfastio's internal layer: the only place that makes a syscall moving
 * bytes. Each call moves at most FIO_MAX_IO bytes (vmsplice: and at most
 * IOV_MAX segments) and retries EINTR, unless interruptible is set: then -1
 * with EINTR comes back, for a caller that waits for a signal. They return as
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
ssize_t fio_copy_file_range(int in, int out, size_t len, int interruptible);
ssize_t fio_sendfile(int out, int in, size_t len, int interruptible);

/*
 * Write all len bytes, continuing after short writes from where they
 * stopped; *done (if not NULL) counts the bytes written, also on failure.
 * Returns 0, or -1 with errno (a write that returns 0 is reported as
 * ENOSPC, as GNU's full_write does).
 */
int fio_write_all(int fd, const void *buf, size_t len, size_t *done,
		  int interruptible);

/* The smaller of a size and a count that may be bigger than any size. */
static inline size_t
fio_min(size_t a, uint64_t b)
{
	return b < a ? (size_t)b : a;
}

/*
 * Nonzero if err, from a zero-copy call (vmsplice, tee, splice,
 * copy_file_range, sendfile) that moved nothing yet, means the kernel
 * cannot serve these descriptors that way, so read()/write() should take
 * over; zero if it is the input's or output's own error, which
 * read()/write() would report just the same.
 */
int fio_refused(int err);

/*
 * The reader's vote, one rule for yes's tee source (repeat.c), cat's
 * splices from a file (pump.c) and the writer's thread (writer.c): count
 * one round of ours, aye if the reader showed the sign asked about there
 * (a round took FIO_HOT_BITE splices or more to go out: a reader that
 * read()s frees a few slots at a time; or a round found the pipe too
 * full to take it), gulp if it went out in one splice (a reader that
 * splices takes the whole pipe at a time). Of the first FIO_HOT_PROBE
 * rounds, if half or more were aye: FIO_VOTE_BITES, once, on the round
 * that decides it; else if more than half were gulps: FIO_VOTE_GULPS;
 * else 0. Counted, not timed, and taken once: it cannot oscillate.
 */
#define FIO_VOTE_BITES 1
#define FIO_VOTE_GULPS 2
int fio_vote_count(struct fio_vote *v, int aye, int gulp);

/*
 * Before writing want bytes into the pipe fd of size bytes, sent bytes
 * written into it so far: sleep while its reader makes room, if that is
 * cheaper than being woken by each of its reads (pace.c). Nothing when
 * size is 0 or FIO_PACE is disabled.
 */
void fio_pace(struct fio_pace *pc, int fd, size_t size, uint64_t sent,
	      size_t want);

/*
 * Move len bytes that the pipe from holds (ours) on to the pipe to, of
 * size bytes, *sent bytes written into it so far (advanced here), pacing
 * its reader (fio_pace) before each splice after the first; *calls
 * counts the splices, for the reader's vote. Returns the bytes moved:
 * len, or fewer with errno from the splice that moved nothing (ENOSPC
 * for a 0). The one paced loop of cat's pump and yes's tee rounds.
 */
size_t fio_splice_paced(struct fio_pace *pc, int from, int to, size_t size,
			uint64_t *sent, size_t len, unsigned flags,
			int interruptible, unsigned *calls);

/*
 * Nonzero if the process may run on two CPUs at once; otherwise a second
 * thread (writer.c, ahead.c) only takes turns with the caller.
 */
int fio_two_cpus(void);

/*
 * The size of a page, and so of what one slot of a pipe holds: the
 * kernel's (4 KiB on x86, s390x and armhf; 64 KiB on ppc64el and some
 * arm64 kernels), or FASTIO_PAGE_SIZE's (strategy.c).
 */
size_t fio_page_size(void);

#endif
