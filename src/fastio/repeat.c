/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fastio.h"
#include "tune.h"

struct repeat {
	struct fio_fd out;
	char *buf;	/* the pattern repeated from offset 0; read-only */
	size_t bufsize; /* bytes mapped at buf */
	size_t len;	/* pattern length */
	size_t phase;	/* offset within the pattern of the next byte to send */
	uint64_t left;	/* bytes still to send, or FIO_FOREVER */
	int moved;	/* a byte reached the output: no more fallback */
	int gifted;	/* vmsplice took pages of buf: it must never be unmapped */
	unsigned splice_flags;
};

static size_t
min_size(size_t a, uint64_t b)
{
	return b < a ? (size_t)b : a;
}

static void
advance(struct repeat *r, size_t n)
{
	r->phase = (size_t)((r->phase + (uint64_t)n) % r->len);
	if (r->left != FIO_FOREVER)
		r->left -= n;
	r->moved = 1;
}

/*
 * The errnos that mean "this strategy cannot serve this fd" when they come
 * before any byte moved: EBADF and EINVAL (not a pipe, or a pipe end open
 * only for reading), ENOSYS and EPERM (old kernels, seccomp filters and LSMs
 * that block the call), ENOMEM (pages could not be pinned; write() copies
 * instead). Anything else, such as EPIPE or EAGAIN, is the output's answer
 * and would come back from write() just the same.
 */
static enum fio_status
failed(const struct repeat *r)
{
	if (r->moved)
		return FIO_ERROR;
	switch (errno) {
	case EBADF:
	case EINVAL:
	case ENOSYS:
	case EPERM:
	case ENOMEM:
		return FIO_UNSUPPORTED;
	default:
		return FIO_ERROR;
	}
}

/* A chunk that is a whole number of patterns keeps every call page-aligned. */
static size_t
whole_patterns(size_t chunk, size_t len)
{
	return len <= chunk ? chunk / len * len : chunk;
}

static int
pipe_output(const struct repeat *r)
{
	return r->out.kind == FIO_PIPE && (r->out.flags & FIO_WRITABLE);
}

static enum fio_status
pump_write(struct repeat *r, size_t chunk)
{
	size_t n;
	ssize_t k;

	chunk = whole_patterns(chunk, r->len);
	while ((n = min_size(chunk, r->left)) > 0) {
		k = fio_write(r->out.fd, r->buf + r->phase, n);
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			/* write() is the last resort: its errors are final. */
			return FIO_ERROR;
		}
		advance(r, (size_t)k);
	}
	return FIO_DONE;
}

/*
 * The segments for one vmsplice() of n bytes. Batch shape: one run of the
 * big buffer. Hot shape: the same page-sized run of whole patterns over and
 * over, so a reader that copies the data always copies from one cache-hot
 * page; the first segment starts at the current phase, which works because
 * every run begins with a whole pattern.
 */
static size_t
segments(const struct repeat *r, struct iovec *iov, size_t n, size_t hot)
{
	size_t i, len, total = 0;

	if (hot == 0) {
		iov[0].iov_base = r->buf + r->phase;
		iov[0].iov_len = n;
		return 1;
	}
	for (i = 0; total < n && i < FIO_HOT_SEGMENTS; i++) {
		len = hot - (i == 0 ? r->phase : 0);
		if (len > n - total)
			len = n - total;
		iov[i].iov_base = r->buf + (i == 0 ? r->phase : 0);
		iov[i].iov_len = len;
		total += len;
	}
	return i;
}

/*
 * vmsplice() returns short when the reader drains the pipe a little at a
 * time, as read() consumers do; a splicing reader empties it whole. Every
 * FIO_HOT_WINDOW calls, an average under half a chunk picks the hot shape,
 * over it the batch shape (see tune.h for each shape with each reader).
 */
static enum fio_status
pump_vmsplice(struct repeat *r, size_t chunk)
{
	struct iovec iov[FIO_HOT_SEGMENTS];
	size_t n, hot_region = 0, count;
	uint64_t window = 0;
	unsigned calls = 0;
	int hot = 0;
	ssize_t k;

	if (r->len <= FIO_HOT_REGION)
		hot_region = FIO_HOT_REGION / r->len * r->len;
	chunk = whole_patterns(chunk, r->len);
	while ((n = min_size(chunk, r->left)) > 0) {
		count = segments(r, iov, n, hot ? hot_region : 0);
		k = fio_vmsplice(r->out.fd, iov, count, r->splice_flags);
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return failed(r);
		}
		r->gifted = 1;
		advance(r, (size_t)k);
		window += (size_t)k;
		if (++calls == FIO_HOT_WINDOW) {
			hot = hot_region > 0 && window < FIO_HOT_WINDOW * chunk / 2;
			window = 0;
			calls = 0;
		}
	}
	return FIO_DONE;
}

static size_t
capacity(const struct repeat *r)
{
	size_t room = r->bufsize - r->len + 1;

	return r->out.pipe_size && r->out.pipe_size < room ? r->out.pipe_size
							    : room;
}

static enum fio_status
repeat_vmsplice(struct repeat *r)
{
	if (!pipe_output(r))
		return FIO_UNSUPPORTED;
	return pump_vmsplice(r, capacity(r) / FIO_VMSPLICE_DIVISOR);
}

static enum fio_status
repeat_write(struct repeat *r)
{
	return pump_write(r, r->out.kind == FIO_PIPE ? capacity(r)
						     : FIO_WRITE_CHUNK);
}

/* Bring the phase back to 0 with write(), after a tee() that split a pattern. */
static int
realign(struct repeat *r)
{
	size_t n;

	if (r->phase == 0)
		return 0;
	n = min_size(r->len - r->phase, r->left);
	if (fio_write_all(r->out.fd, r->buf + r->phase, n) < 0)
		return -1;
	advance(r, n);
	return 0;
}

static enum fio_status
tee_loop(struct repeat *r, int src, size_t content)
{
	ssize_t k;
	size_t n;

	for (;;) {
		if (realign(r) < 0)
			return failed(r);
		n = min_size(content, r->left);
		if (n == 0)
			return FIO_DONE;
		k = fio_tee(src, r->out.fd, n, r->splice_flags);
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return failed(r);
		}
		advance(r, (size_t)k);
	}
}

/*
 * tee() duplicates the pages of a private pipe, filled once with whole
 * patterns from phase 0 and never written again, so the reader's pages are
 * never modified. tee() may link fewer bytes than asked, ending inside a
 * pattern; realign() then finishes that pattern so the next tee(), which
 * always starts at the private pipe's first byte, continues the stream.
 */
static enum fio_status
repeat_tee(struct repeat *r)
{
	enum fio_status st;
	size_t content;
	int p[2];

	if (!pipe_output(r))
		return FIO_UNSUPPORTED;
	if (pipe2(p, O_CLOEXEC) < 0)
		return FIO_UNSUPPORTED;
	content = fio_pipe_grow(p[1], FIO_PIPE_SIZE);
	if (content > r->bufsize)
		content = r->bufsize;
	content = content / r->len * r->len;
	if (content == 0 || fio_write_all(p[1], r->buf, content) < 0) {
		close(p[0]);
		close(p[1]);
		return FIO_UNSUPPORTED;
	}
	close(p[1]);
	st = tee_loop(r, p[0], content);
	close(p[0]);
	return st;
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

/*
 * Map the buffer, fill it with the pattern repeated and make it read-only:
 * once vmsplice() has handed its pages to a pipe, the reader (or whoever it
 * splices them on to) sees any later change, and PROT_READ turns such a
 * change into a crash instead of corrupt data.
 */
static int
setup_buffer(struct repeat *r, size_t want)
{
	size_t size, filled, n;
	char *p;

	size = (r->len + want + FIO_HUGE_PAGE - 1) & ~(FIO_HUGE_PAGE - 1);
	p = map_aligned(size);
	if (p != NULL) {
		(void)madvise(p, size, MADV_HUGEPAGE);
	} else {
		/* Under a tight RLIMIT_AS: a small buffer, small writes. */
		size = r->len + FIO_SMALL_CHUNK;
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
	}
	filled = 0;
	while (filled < size) {
		n = filled == 0 ? r->len : filled;
		if (n > size - filled)
			n = size - filled;
		memcpy(p + filled, filled == 0 ? r->buf : p, n);
		filled += n;
	}
	if (mprotect(p, size, PROT_READ) < 0) {
		munmap(p, size);
		return -1;
	}
	r->buf = p;
	r->bufsize = size;
	return 0;
}

static const struct {
	enum fio_strategy id;
	enum fio_status (*run)(struct repeat *);
} repeat_strategies[] = {
	/* Order from bench/ measurements, see tune.h. */
	{ FIO_VMSPLICE, repeat_vmsplice },
	{ FIO_TEE, repeat_tee },
	{ FIO_WRITE, repeat_write },
};

int
fio_repeat(int fd, const void *pattern, size_t len, uint64_t limit,
	   enum fio_strategy *used)
{
	struct repeat r;
	enum fio_status st = FIO_UNSUPPORTED;
	size_t i, want;
	int saved;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&r, 0, sizeof r);
	(void)fio_classify(fd, &r.out);
	if (r.out.kind == FIO_PIPE)
		r.out.pipe_size = fio_pipe_grow(fd, FIO_PIPE_SIZE);
	if (r.out.flags & FIO_NONBLOCK)
		r.splice_flags = SPLICE_F_NONBLOCK;
	r.len = len;
	r.left = limit;
	r.buf = (char *)pattern;
	want = r.out.pipe_size > FIO_WRITE_CHUNK ? r.out.pipe_size
						 : FIO_WRITE_CHUNK;
	if (setup_buffer(&r, want) < 0)
		return -1;
	for (i = 0; i < sizeof repeat_strategies / sizeof repeat_strategies[0];
	     i++) {
		if (!fio_enabled(repeat_strategies[i].id))
			continue;
		st = repeat_strategies[i].run(&r);
		if (st != FIO_UNSUPPORTED) {
			if (used != NULL)
				*used = repeat_strategies[i].id;
			break;
		}
	}
	saved = errno;
	if (!r.gifted)
		munmap(r.buf, r.bufsize);
	errno = saved;
	return st == FIO_DONE ? 0 : -1;
}
