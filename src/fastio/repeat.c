/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fastio.h"
#include "sys.h"
#include "tune.h"

struct repeat {
	struct fio_fd out;
	char *buf;	/* the pattern repeated from offset 0; read-only */
	size_t bufsize; /* bytes mapped at buf */
	size_t len;	/* pattern length */
	size_t phase;	/* offset within the pattern of the next byte to send */
	size_t shift;  /* vmsplice's start, whole patterns (FIO_STREAM_PHASE) */
	uint64_t left; /* bytes still to send, or FIO_FOREVER */
	int moved;     /* a byte reached the output: no more fallback */
	int gifted; /* vmsplice took pages of buf: it must never be unmapped */
	unsigned splice_flags;
	uint64_t sent;	      /* bytes that reached the output */
	struct fio_pace pace; /* the output pipe's reader (pace.c) */
	size_t grown_from;    /* the output pipe's size before we grew it */
};

static void
advance(struct repeat *r, size_t n)
{
	r->phase = (size_t)((r->phase + (uint64_t)n) % r->len);
	r->sent += n;
	if (r->left != FIO_FOREVER)
		r->left -= n;
	r->moved = 1;
}

/* A failed call: a refusal is only a refusal before the first byte. */
static enum fio_status
failed(const struct repeat *r)
{
	return !r->moved && fio_refused(errno) ? FIO_UNSUPPORTED : FIO_ERROR;
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
	while ((n = fio_min(chunk, r->left)) > 0) {
		k = fio_write(r->out.fd, r->buf + r->phase, n, 0);
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

static enum fio_status
pump_vmsplice(struct repeat *r, size_t chunk)
{
	struct iovec iov;
	ssize_t k;

	chunk = whole_patterns(chunk, r->len);
	while ((iov.iov_len = fio_min(chunk, r->left)) > 0) {
		iov.iov_base = r->buf + r->shift + r->phase;
		k = fio_vmsplice(r->out.fd, &iov, 1, r->splice_flags);
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return failed(r);
		}
		r->gifted = 1;
		advance(r, (size_t)k);
	}
	return FIO_DONE;
}

static size_t
capacity(const struct repeat *r)
{
	size_t room = r->bufsize - r->shift - r->len + 1;

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
	size_t chunk =
	    r->out.kind == FIO_PIPE ? FIO_PIPE_WRITE_CHUNK : FIO_WRITE_CHUNK;

	/* capacity() also bounds the small buffer of a tight RLIMIT_AS. */
	return pump_write(r, chunk < capacity(r) ? chunk : capacity(r));
}

/* After a tee() that split a pattern, bring the phase back to 0 by write(). */
static int
realign(struct repeat *r)
{
	size_t n;

	if (r->phase == 0)
		return 0;
	n = fio_min(r->len - r->phase, r->left);
	if (fio_write_all(r->out.fd, r->buf + r->phase, n, NULL, 0) < 0)
		return -1;
	advance(r, n);
	return 0;
}

/*
 * The two sources of the tee strategy: each fills an empty pipe once with
 * whole patterns from phase 0 and returns how many bytes it holds (0 on
 * failure). fill_pages writes it, so every slot holds a page of its own,
 * which a reader that splices wants; fill_hot puts one page in every
 * slot, which a reader that copies keeps in its cache. That page is the
 * kernel's: a page of patterns written into a one-slot pipe and tee()d
 * into each slot. Nothing of ours is handed to the kernel.
 *
 * The tee source. Written pages are the default, as uutils' are: one hot
 * page keeps a read() reader's copies in L1, but on a Xeon it halved a
 * splicing reader (14.7 against 31.2 GB/s, free), while 64-256 distinct
 * vmspliced pages, 1-64 written pages tee()d into every slot, or part of
 * the slots written helped little. So the source starts written and
 * turns hot only when the reader votes for small bites (FIO_HOT_PROBE):
 * worst ratio over the readers measured, written 0.60x, voting 0.65x
 * (BENCHMARKS.md, "Strategies").
 *
 * Where bytes sit within their pages. The kernel copies between a pipe's
 * or the page cache's pages and a reader's buffer with `rep movsb`, and
 * on some AMD EPYCs that copy runs at 1.4-2 GB/s instead of 9-20 when the
 * buffer starts 16 bytes into a page (where glibc's malloc() puts a large
 * buffer) while the data starts at the top of its pages (as it does when
 * a pipe is filled by write() or from the page cache). A constant phase
 * only moves the trouble to other buffers, and a read that ends on a slot
 * puts it back; so a slot holds FIO_SLOT_SHORT bytes less than a page and
 * the stream drifts against the pages: at most one slot in 4096 / 32
 * meets the slow case, whatever the reader's buffer and bites
 * (pipebench --touch 1.87 GB/s with full slots, 15.50 short by 32;
 * BENCHMARKS.md, "FIO_SLOT_SHORT"). The vmsplice strategy
 * shifts its stream by FIO_STREAM_PHASE instead.
 */
static size_t
slot_bytes(const struct repeat *r)
{
	size_t page = fio_page_size();
	size_t n = (page - FIO_SLOT_SHORT) / r->len * r->len;

	return n ? n : page / r->len * r->len;
}

static size_t
fill_pages(struct repeat *r, int fd, size_t cap)
{
	size_t slot = slot_bytes(r), slots, content = 0;

	cap = cap < r->bufsize ? cap : r->bufsize;
	slots = cap / fio_page_size();
	if (slot == 0) { /* a pattern longer than a page */
		slot = cap / r->len * r->len;
		slots = 1;
	}
	/* One write a slot: too big for the last page's room, it starts one. */
	for (; slot > 0 && slots > 0; slots--, content += slot)
		if (fio_write_all(fd, r->buf, slot, NULL, 0) < 0)
			return 0;
	return content;
}

static size_t
fill_hot(struct repeat *r, int fd, size_t cap)
{
	size_t page = slot_bytes(r), content = 0;
	int one[2];

	if (page == 0 || pipe2(one, O_CLOEXEC) < 0)
		return 0;
	/* Non-blocking: a slot fewer than cap promised ends the filling. */
	if (fio_write_all(one[1], r->buf, page, NULL, 0) == 0)
		while (content + page <= cap &&
		       fio_tee(one[0], fd, page, SPLICE_F_NONBLOCK) ==
			   (ssize_t)page)
			content += page;
	close(one[0]);
	close(one[1]);
	return content;
}

/* fresh takes src's place if ok; else fresh goes and src stays. */
static void
replace_source(int src[2], int fresh[2], int ok)
{
	int *gone = ok ? src : fresh;

	close(gone[0]);
	close(gone[1]);
	if (ok) {
		src[0] = fresh[0];
		src[1] = fresh[1];
	}
}

/*
 * The vote went to the hot source: a new source pipe of the same content,
 * or the old one kept if any step fails (nothing has reached the output
 * through the new one yet, so the stream is not touched either way).
 */
static size_t
turn_hot(struct repeat *r, int src[2], size_t content)
{
	size_t n = 0;
	int hot[2];

	if (pipe2(hot, O_CLOEXEC) < 0)
		return content;
	if (fio_pipe_grow(hot[1], content) >= content)
		n = fill_hot(r, hot[1], content);
	replace_source(src, hot, n > 0);
	return n > 0 ? n : content;
}

/* The output pipe grown to size; its new capacity. */
static size_t
grow_out(struct repeat *r, size_t size)
{
	size_t was = r->out.pipe_size;

	r->out.pipe_size = fio_pipe_grow(r->out.fd, size);
	if (r->out.pipe_size > was && r->grown_from == 0)
		r->grown_from = was;
	return r->out.pipe_size;
}

/*
 * The vote went to gulps: a reader that takes the pipe whole gets a
 * bigger one (FIO_PIPE_GULP), and rounds that fill it, from a new source
 * of written pages and a middle pipe that holds a round. If any step
 * fails, the old ones are kept: nothing has gone out through the new
 * source yet.
 */
static size_t
turn_big(struct repeat *r, int src[2], int mid[2], size_t content)
{
	size_t round = fio_min(FIO_TEE_ROUND, grow_out(r, FIO_PIPE_GULP)),
	       n = 0;
	int big[2];

	if (round <= content || pipe2(big, O_CLOEXEC) < 0)
		return content;
	if (fio_pipe_grow(big[1], round) >= round &&
	    fio_pipe_grow(mid[1], round) >= round)
		n = fill_pages(r, big[1], round);
	replace_source(src, big, n > content);
	return n > content ? n : content;
}

/*
 * Move k bytes that tee() put in our middle pipe on to the output; *calls
 * counts the splices it took: one or two when the reader empties the
 * pipe in big moves, more when it takes small bites. A splice that came
 * back short found the pipe full: the reader is paced (pace.c) as cat's
 * is, so that a reader of a page a read wakes us once a chunk.
 */
static enum fio_status
splice_out(struct repeat *r, int mid, size_t k, unsigned *calls)
{
	uint64_t sent = r->sent;
	size_t n = fio_splice_paced(&r->pace, mid, r->out.fd, r->out.pipe_size,
				    &sent, k, r->splice_flags, 0, calls);

	if (n > 0)
		advance(r, n);
	return n == k ? FIO_DONE : failed(r);
}

/*
 * The rounds. The reader votes (fio_vote_count): if it takes small bites
 * and hot is set (a written source, and FIO_HOT_PAGE enabled), the source
 * turns hot for the rest of the stream; if it takes the pipe whole, the
 * pipe and the rounds grow.
 */
static enum fio_status
tee_loop(struct repeat *r, int src[2], int mid[2], size_t content, int hot)
{
	enum fio_status st;
	struct fio_vote votes = {0, 0, 0};
	unsigned calls;
	ssize_t k;
	size_t n;

	for (;;) {
		if (realign(r) < 0)
			return failed(r);
		n = fio_min(content, r->left);
		if (n == 0)
			return FIO_DONE;
		k = fio_tee(src[0], mid[1], n, 0);
		if (k <= 0) {
			if (k == 0)
				errno = EIO; /* our own source pipe ran dry */
			return failed(r);
		}
		st = splice_out(r, mid[0], (size_t)k, &calls);
		if (st != FIO_DONE)
			return st;
		switch (
		    fio_vote_count(&votes, calls >= FIO_HOT_BITE, calls == 1)) {
		case FIO_VOTE_BITES:
			if (hot)
				content = turn_hot(r, src, content);
			break;
		case FIO_VOTE_GULPS:
			content = turn_big(r, src, mid, content);
			break;
		}
	}
}

/*
 * tee() duplicates the page references of a private source pipe, filled
 * once and never written again (but replaced once by a hot one if the
 * reader votes for it), into a private middle pipe; splice() then
 * moves them to the output in bulk without touching page refcounts, which
 * is what makes it faster than tee() straight into the output
 * (BENCHMARKS.md, "Strategies").
 * The middle pipe is always drained before the next tee(), so the stream
 * stays in order; a tee() that stops inside a pattern is followed by
 * realign(), since the next tee() starts again at the source's first byte.
 */
static enum fio_status
repeat_tee(struct repeat *r)
{
	enum fio_status st = FIO_UNSUPPORTED;
	size_t round, cap, midcap, content;
	int src[2], mid[2];

	if (!pipe_output(r))
		return FIO_UNSUPPORTED;
	if (pipe2(src, O_CLOEXEC) < 0)
		return FIO_UNSUPPORTED;
	if (pipe2(mid, O_CLOEXEC) < 0) {
		close(src[0]);
		close(src[1]);
		return FIO_UNSUPPORTED;
	}
	/*
	 * A round fills the output pipe at most (FIO_TEE_ROUND), and one
	 * tee() must fit in the middle pipe: it gets the source's size. Both
	 * are no bigger than that, as their slots count against the user's
	 * pipe quota.
	 */
	round = r->out.pipe_size ? fio_min(FIO_TEE_ROUND, r->out.pipe_size)
				 : FIO_TEE_ROUND;
	cap = fio_min(fio_pipe_grow(src[1], round), round);
	midcap = fio_pipe_grow(mid[1], cap);
	if (midcap < cap)
		cap = midcap;
	if (fio_enabled(FIO_PAGES))
		content = fill_pages(r, src[1], cap);
	else if (fio_enabled(FIO_HOT_PAGE))
		content = fill_hot(r, src[1], cap);
	else
		content = 0;
	if (content > 0)
		st = tee_loop(r, src, mid, content,
			      fio_enabled(FIO_PAGES) &&
				  fio_enabled(FIO_HOT_PAGE));
	close(src[0]);
	close(src[1]);
	close(mid[0]);
	close(mid[1]);
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
setup_buffer(struct repeat *r, const char *pattern, size_t want)
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
		memcpy(p + filled, filled == 0 ? pattern : p, n);
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
    /* Order from bench/ measurements: BENCHMARKS.md, "Strategies". */
    {FIO_TEE, repeat_tee},
    {FIO_VMSPLICE, repeat_vmsplice},
    {FIO_READ_WRITE, repeat_write},
};

int
fio_repeat(const struct fio_fd *out, const void *pattern, size_t len,
	   uint64_t limit, enum fio_strategy *used)
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
	r.out = *out;
	/* As cat's (pump.c, grow_for): only for a stream that gains. */
	if (r.out.kind == FIO_PIPE && limit > r.out.pipe_size)
		grow_out(&r, FIO_PIPE_SIZE);
	if (r.out.flags & FIO_NONBLOCK)
		r.splice_flags = SPLICE_F_NONBLOCK;
	r.len = len;
	r.shift = FIO_STREAM_PHASE / len * len;
	r.left = limit;
	/* A pipe someone made larger still gets chunks of our size: the
	 * buffer, hence RSS, stays at one huge page for short patterns. */
	want =
	    r.out.pipe_size > FIO_PIPE_SIZE ? FIO_PIPE_SIZE : r.out.pipe_size;
	if (want < FIO_WRITE_CHUNK)
		want = FIO_WRITE_CHUNK;
	if (setup_buffer(&r, pattern, want) < 0)
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
	if (r.grown_from > 0)
		(void)fio_pipe_give_back(r.out.fd, r.grown_from);
	errno = saved;
	return st == FIO_DONE ? 0 : -1;
}
