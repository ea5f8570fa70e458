/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fastio.h"
#include "repeat.h"
#include "machine.h"
#include "pace.h"
#include "sys.h"
#include "vote.h"
#include "tune.h"

/* The tee strategy of fio_repeat (repeat.c), after the stream's start. */

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
	fio_repeat_advance(r, n);
	return 0;
}

/*
 * The two sources of the tee strategy: each fills an empty pipe once with
 * whole patterns from phase 0 and returns how many bytes it holds (0 on
 * failure). fill_pages writes it, so every slot holds a page of its own,
 * which a reader that splices wants; fill_hot puts one page in every
 * slot, which a reader that copies keeps in its cache. That page is the
 * kernel's: a page of patterns written into a one-slot pipe and tee()d
 * into each slot. Nothing of ours is handed to the kernel. The source
 * starts written, as uutils' does, and turns hot only when the reader
 * votes for small bites (FIO_VOTE_ROUNDS): one hot page slowed a splicing
 * reader by half on one machine (BENCHMARKS.md, "Strategies").
 *
 * Where bytes sit within their pages. The kernel copies between a pipe's
 * or the page cache's pages and a reader's buffer with `rep movsb`, and
 * on some AMD EPYCs that copy runs several times slower when the buffer
 * starts 16 bytes into a page (where glibc's malloc() puts a large
 * buffer) while the data starts at the top of its pages (as it does when
 * a pipe is filled by write() or from the page cache). A constant phase
 * only moves the trouble to other buffers, and a read that ends on a slot
 * puts it back; so a slot holds FIO_SLOT_SHORT bytes less than a page and
 * the stream drifts against the pages: at most one slot in 4096 / 32
 * meets the slow case, whatever the reader's buffer and bites
 * (BENCHMARKS.md, "FIO_SLOT_SHORT"). The vmsplice strategy shifts its
 * stream by FIO_STREAM_PHASE instead.
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
	size_t slot = slot_bytes(r), slots = cap / fio_page_size(), content = 0;

	if (slot == 0) { /* a pattern longer than a page: one write */
		slot = fio_min(fio_repeat_plain(r, cap), cap) / r->len * r->len;
		slots = 1;
	} else if (fio_repeat_plain(r, slot) < slot) {
		return 0;
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

	if (page == 0 || fio_repeat_plain(r, page) < page ||
	    pipe2(one, O_CLOEXEC) < 0)
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
	size_t round = fio_min(FIO_TEE_ROUND,
			       fio_repeat_grow_out(r, FIO_PIPE_GULP)),
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
		fio_repeat_advance(r, n);
	return n == k ? FIO_DONE : fio_repeat_failed(r);
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
			return fio_repeat_failed(r);
		n = fio_min(content, r->left);
		if (n == 0)
			return FIO_DONE;
		k = fio_tee(src[0], mid[1], n, 0);
		if (k <= 0) {
			if (k == 0)
				errno = EIO; /* our own source pipe ran dry */
			return fio_repeat_failed(r);
		}
		st = splice_out(r, mid[0], (size_t)k, &calls);
		if (st != FIO_DONE)
			return st;
		switch (fio_vote_count(&votes, calls >= FIO_VOTE_BITE,
				       calls == 1)) {
		case FIO_VOTE_SIGN:
			if (hot)
				content = turn_hot(r, src, content);
			break;
		case FIO_VOTE_WHOLE:
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
enum fio_status
fio_repeat_tee(struct repeat *r)
{
	enum fio_status st = FIO_UNSUPPORTED;
	size_t round, cap, midcap, content;
	int src[2], mid[2];

	if (!fio_repeat_pipe(r))
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
