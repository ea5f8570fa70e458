/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fastio.h"
#include "machine.h"
#include "repeat.h"
#include "sys.h"
#include "tune.h"

/*
 * A pattern repeated: fio_repeat() starts every stream the way GNU's yes
 * does (repeat_start), and only a stream that outlasts that start gets
 * the machinery of a zero-copy strategy: rounds of vmsplice() or tee()
 * in the shape the reader takes fastest (tee.c), else vmsplice() of a
 * mapped buffer, else write().
 */

void
fio_repeat_advance(struct repeat *r, size_t n)
{
	r->phase = (size_t)((r->phase + (uint64_t)n) % r->len);
	r->sent += n;
	if (r->left != FIO_FOREVER)
		r->left -= n;
}

enum fio_status
fio_repeat_failed(void)
{
	return fio_refused(errno) ? FIO_UNSUPPORTED : FIO_ERROR;
}

/* A chunk that is a whole number of patterns keeps every call page-aligned. */
static size_t
whole_patterns(size_t chunk, size_t len)
{
	return len <= chunk ? chunk / len * len : chunk;
}

/* The pattern repeated from p's first byte to its size-th. */
static void
fill(char *p, size_t size, const char *pattern, size_t len)
{
	size_t filled = 0, n;

	while (filled < size) {
		n = filled == 0 ? len : filled;
		if (n > size - filled)
			n = size - filled;
		memcpy(p + filled, filled == 0 ? pattern : p, n);
		filled += n;
	}
}

size_t
fio_repeat_plain(struct repeat *r, size_t size)
{
	char *p;

	if (size <= r->bufsize)
		return r->bufsize;
	p = malloc(size);
	if (p == NULL)
		return r->bufsize;
	fill(p, size, r->pattern, r->len);
	free(r->buf);
	r->buf = p;
	r->bufsize = size;
	return size;
}

/*
 * write() chunks of the plain buffer until sent reaches until or the
 * limit. Where memory is too short for the buffer asked, smaller writes
 * do (GNU's own tests run yes under a tight `ulimit -v`).
 */
static enum fio_status
pump_write(struct repeat *r, size_t chunk, uint64_t until)
{
	size_t n;
	ssize_t k;

	if (fio_repeat_plain(r, chunk + r->len) < r->len) {
		errno = ENOMEM;
		return FIO_ERROR;
	}
	if (chunk > r->bufsize - r->len + 1)
		chunk = r->bufsize - r->len + 1;
	chunk = whole_patterns(chunk, r->len);
	while (r->sent < until && (n = fio_min(chunk, r->left)) > 0) {
		k = fio_write(r->out.fd, r->buf + r->phase, n, 0);
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			/* write() is the last resort: its errors are final. */
			return FIO_ERROR;
		}
		fio_repeat_advance(r, (size_t)k);
	}
	return FIO_DONE;
}

/*
 * The start. Most yes that users run are read a few lines and closed
 * (`yes | rm -i`, `yes '' | openssl req`, `yes | head -n1`), and what
 * counts there is what the process costs before it is gone. So every
 * stream starts as GNU's yes sends one: write()s of whole lines that
 * fill FIO_START_CHUNK (a reader such as `dd bs=1K count=4` without
 * iflag=fullblock sees what one write gave it), or of one line if it is
 * longer, from a buffer that size. A pipe, a private pipe or a mapping
 * is paid for only once the reader has taken FIO_START_BYTES more than
 * the output pipe holds: the stream has shown it is long.
 */
static enum fio_status
repeat_start(struct repeat *r)
{
	size_t chunk = r->len > FIO_START_CHUNK
			   ? r->len
			   : whole_patterns(FIO_START_CHUNK, r->len);

	return pump_write(
	    r, chunk, fio_repeat_stage_end(FIO_STAGE_START, r->out.pipe_size));
}

uint64_t
fio_repeat_stage_end(enum fio_stage stage, size_t pipe_size)
{
	uint64_t start = (uint64_t)pipe_size + FIO_START_BYTES;

	switch (stage) {
	case FIO_STAGE_START:
		return start;
	case FIO_STAGE_FIRST_GIFT:
		return start + FIO_VMSPLICE_STEP;
	default:
		return FIO_FOREVER;
	}
}

static enum fio_status
pump_vmsplice(struct repeat *r, size_t chunk)
{
	struct iovec iov;
	ssize_t k;

	chunk = whole_patterns(chunk, r->len);
	while ((iov.iov_len = fio_min(chunk, r->left)) > 0) {
		iov.iov_base = r->gift + r->phase;
		k = fio_vmsplice(r->out.fd, &iov, 1, r->splice_flags);
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return fio_repeat_failed();
		}
		r->gifted = 1;
		fio_repeat_advance(r, (size_t)k);
	}
	return FIO_DONE;
}

static void *
map_aligned(size_t size)
{
	size_t span = size + FIO_HUGE_PAGE;
	char *raw, *p;

	raw = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)raw + FIO_HUGE_PAGE - 1) &
		     ~(uintptr_t)(FIO_HUGE_PAGE - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + span > p + size)
		munmap(p + size, (size_t)(raw + span - (p + size)));
	return p;
}

/* The mapping p of size bytes, filled with patterns and made read-only,
 * is vmsplice()'s buffer; 0, or -1 (unmapped) where it cannot be made
 * read-only. */
static int
keep_gift(struct repeat *r, char *p, size_t size)
{
	fill(p, size, r->pattern, r->len);
	if (mprotect(p, size, PROT_READ) < 0) {
		munmap(p, size);
		return -1;
	}
	r->gift = p;
	r->giftsize = size;
	return 0;
}

/*
 * vmsplice()'s buffer: a pipeful of patterns (at most FIO_PIPE_SIZE: a
 * pipe someone made larger still gets chunks of our size), aligned to a
 * huge page and made read-only once filled. Once vmsplice() has handed
 * its pages to a pipe, the reader (or whoever it splices them on to) sees
 * any later change, and PROT_READ turns such a change into a crash
 * instead of corrupt data.
 */
static int
map_gift(struct repeat *r)
{
	size_t want = r->out.pipe_size, size;
	char *p;

	if (want > FIO_PIPE_SIZE)
		want = FIO_PIPE_SIZE;
	if (want < FIO_WRITE_CHUNK)
		want = FIO_WRITE_CHUNK;
	size = (r->len + want + FIO_HUGE_PAGE - 1) & ~(FIO_HUGE_PAGE - 1);
	p = map_aligned(size);
	if (p == NULL)
		return -1;
	(void)madvise(p, size, MADV_HUGEPAGE);
	return keep_gift(r, p, size);
}

int
fio_repeat_map_pages(struct repeat *r, size_t size)
{
	size_t page = fio_page_size();
	char *p, *was = r->gift;
	size_t wassize = r->giftsize;

	if (r->gift != NULL && r->giftsize >= size)
		return 0;
	size = (size + page - 1) / page * page;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || keep_gift(r, p, size) < 0)
		return -1;
	if (was != NULL && !r->gifted)
		munmap(was, wassize);
	r->gifted = 0;
	return 0;
}

/*
 * The vmsplice chunk: a pipeful, or the whole pages the buffer holds past
 * a pattern's length (the most a phase needs). The buffer starts on a
 * page, so a pattern whose length divides a page goes out in whole pages
 * from phase 0, and every slot the reader meets is a whole page.
 */
static size_t
capacity(const struct repeat *r)
{
	size_t page = fio_page_size(),
	       room = (r->giftsize - r->len) / page * page;

	return r->out.pipe_size && r->out.pipe_size < room ? r->out.pipe_size
							   : room;
}

static enum fio_status
repeat_vmsplice(struct repeat *r)
{
	if (!fio_repeat_pipe(r))
		return FIO_UNSUPPORTED;
	/* No mapping under a tight RLIMIT_AS: write() takes over. */
	if (r->gift == NULL && map_gift(r) < 0)
		return FIO_UNSUPPORTED;
	return pump_vmsplice(r, capacity(r) / FIO_VMSPLICE_DIVISOR);
}

static enum fio_status
repeat_write(struct repeat *r)
{
	size_t chunk =
	    r->out.kind == FIO_PIPE ? FIO_PIPE_WRITE_CHUNK : FIO_WRITE_CHUNK;

	return pump_write(r, chunk, FIO_FOREVER);
}

size_t
fio_repeat_grow_out(struct repeat *r, size_t size)
{
	size_t was = r->out.pipe_size;

	r->out.pipe_size = fio_pipe_grow(r->out.fd, size);
	if (r->out.pipe_size > was && r->grown_from == 0)
		r->grown_from = was;
	return r->out.pipe_size;
}

static const struct {
	enum fio_strategy id;
	enum fio_status (*run)(struct repeat *);
} repeat_strategies[] = {
    /* Order from bench/ measurements: BENCHMARKS.md, "Strategies". */
    {FIO_TEE, fio_repeat_tee},
    {FIO_VMSPLICE, repeat_vmsplice},
    {FIO_READ_WRITE, repeat_write},
};

/* After the start: the first strategy the kernel accepts. */
static enum fio_status
machinery(struct repeat *r, enum fio_strategy *used)
{
	enum fio_status st = FIO_UNSUPPORTED;
	size_t i;

	/* The stream has shown it is long: the pipe is grown, as cat's is
	 * (pump.c, grow_for), only for a stream that gains. */
	if (r->out.kind == FIO_PIPE && r->left > r->out.pipe_size)
		fio_repeat_grow_out(r, FIO_PIPE_SIZE);
	for (i = 0; i < sizeof repeat_strategies / sizeof repeat_strategies[0];
	     i++) {
		if (!fio_enabled(repeat_strategies[i].id))
			continue;
		/* A refusal, at a strategy's first call or a later one,
		 * leaves the stream where it stands, nothing in flight: the
		 * next one goes on from there. */
		st = repeat_strategies[i].run(r);
		if (st != FIO_UNSUPPORTED) {
			*used = repeat_strategies[i].id;
			break;
		}
	}
	return st;
}

int
fio_repeat(const struct fio_fd *out, const void *pattern, size_t len,
	   uint64_t limit, enum fio_strategy *used)
{
	struct repeat r;
	enum fio_status st = FIO_DONE;
	enum fio_strategy by = FIO_START;
	int saved;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.out = *out;
	r.pattern = pattern;
	r.len = len;
	if (r.out.flags & FIO_NONBLOCK)
		r.splice_flags = SPLICE_F_NONBLOCK;
	r.left = limit;
	r.start_pipe = r.out.pipe_size;
	if (fio_enabled(FIO_START))
		st = repeat_start(&r);
	if (st == FIO_DONE && r.left > 0)
		st = machinery(&r, &by);
	if (used != NULL)
		*used = by;
	saved = errno;
	free(r.buf);
	if (r.gift != NULL && !r.gifted)
		munmap(r.gift, r.giftsize);
	if (r.grown_from > 0)
		(void)fio_pipe_give_back(r.out.fd, r.grown_from);
	errno = saved;
	return st == FIO_DONE ? 0 : -1;
}
