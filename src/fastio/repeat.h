/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_REPEAT_H
#define FASTIO_REPEAT_H

/*
 * A pattern repeated (fio_repeat): the state its strategies share,
 * the start, vmsplice and write (repeat.c), and the rounds (tee.c).
 * Not part of the API: programs use fastio.h.
 */

#include <stddef.h>
#include <stdint.h>

#include "fastio.h"

struct repeat {
	struct fio_fd out;
	const char *pattern; /* the caller's, len bytes */
	size_t len;
	char *buf; /* the pattern repeated from offset 0, bufsize bytes:
		    * what write() and tee's sources copy from */
	size_t bufsize;
	char *gift; /* vmsplice's buffer (read-only), giftsize bytes: the
		     * pattern repeated from its first byte */
	size_t giftsize;
	int gifted;    /* vmsplice took pages of gift: never unmapped */
	size_t phase;  /* offset within the pattern of the next byte to send */
	uint64_t left; /* bytes still to send, or FIO_FOREVER */
	uint64_t sent; /* bytes that reached the output */
	unsigned splice_flags;
	struct fio_pace pace; /* the output pipe's reader (pace.c) */
	size_t grown_from;    /* the output pipe's size before we grew it */
	size_t start_pipe;    /* the output pipe's size at the start */
};

/* n bytes reached the output. */
void fio_repeat_advance(struct repeat *r, size_t n);

/*
 * The stages of a long stream (repeat.c): GNU's writes (the start), then
 * the machinery with a small vmsplice() buffer (the first gift), then
 * with its full one. fio_repeat_stage_end: the bytes sent by which a
 * stage ends, into an output pipe of pipe_size bytes at the start. Each
 * begins only once the bytes sent have paid for what it builds. Pure: no
 * syscall.
 */
enum fio_stage { FIO_STAGE_START, FIO_STAGE_FIRST_GIFT, FIO_STAGE_MACHINERY };
uint64_t fio_repeat_stage_end(enum fio_stage stage, size_t pipe_size);

/*
 * A zero-copy call failed, errno saying why: FIO_UNSUPPORTED where the
 * kernel refused it (sys.h, fio_refused), at the first call or any later
 * one, FIO_ERROR otherwise. The caller leaves nothing in flight first.
 */
enum fio_status fio_repeat_failed(void);

/*
 * Make the plain buffer hold at least size bytes of patterns, if memory
 * allows; returns its size, which may stay smaller (0: none yet).
 */
size_t fio_repeat_plain(struct repeat *r, size_t size);

/*
 * The vmsplice() shape's buffer (tee.c), if there is none yet or it is
 * smaller: size bytes of patterns in pages of their own (not a huge page:
 * one page's count taken and dropped by both sides, for every slot, cost
 * the reader), read-only, in r->gift. A smaller one that vmsplice() took
 * pages of stays mapped: a pipe may still hold them. Returns 0, or -1
 * with errno, the buffer as it was.
 */
int fio_repeat_map_pages(struct repeat *r, size_t size);

/* Grow the output pipe to size; its capacity afterwards. */
size_t fio_repeat_grow_out(struct repeat *r, size_t size);

/* Nonzero if the output is a pipe's write end. */
static inline int
fio_repeat_pipe(const struct repeat *r)
{
	return r->out.kind == FIO_PIPE && (r->out.flags & FIO_WRITABLE);
}

/* The rounds of vmsplice() and tee(), the tee strategy (tee.c). */
enum fio_status fio_repeat_tee(struct repeat *r);

#endif
