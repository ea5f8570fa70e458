/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "fastio.h"
#include "machine.h"
#include "pace.h"
#include "repeat.h"
#include "shape.h"
#include "sys.h"
#include "tune.h"

/*
 * The tee strategy of fio_repeat (repeat.c), after the stream's start:
 * tee() duplicates the page references of a private source pipe, filled
 * once and never written again, into the output, a round at a time.
 * Nothing of ours is handed to the kernel. Its shape (shape.h: the kind
 * of source, the path, the output pipe's size) is chosen by measuring
 * the reader as the stream goes (shape.c); a shape is changed only
 * between rounds, where the stream is at a whole pattern and the middle
 * pipe is empty, so no byte is lost, repeated or reordered.
 *
 * Whole blocks. A slot of a pipe holds one page at most, and a reader
 * that takes one read() as a block (dd without iflag=fullblock) gets a
 * short one wherever it catches up with a slot that holds less. So every
 * slot of a source holds whole patterns from a pattern's start and, for
 * a pattern whose length divides a page, a whole page: every read of
 * 512 B to a page is then whole, as GNU 9.10's 8 KiB writes give it.
 */

struct tee {
	struct repeat *r;
	int src[3][2];	   /* the sources: [0] written pages, [1] and [2]
			    * one hot page each; -1 where not built */
	size_t content[3]; /* the bytes each holds */
	unsigned turn;	   /* the hot source of the next round: 1 or 2 */
	int mid[2];	   /* the middle pipe, or -1 */
	size_t midcap;
	unsigned shape;	  /* the shape the pipes are in */
	unsigned refused; /* the shapes whose call the kernel refused */
};

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

/* What a source's slot holds: the whole patterns a page holds (0: a
 * pattern longer than a page). */
static size_t
slot_bytes(const struct repeat *r)
{
	return fio_page_size() / r->len * r->len;
}

/*
 * What the vmsplice() shape hands on a call, from a buffer of room
 * bytes: the whole patterns of FIO_VMSPLICE_CHUNK at most, or one longer
 * pattern. Its buffer starts on a page, so a pattern whose length
 * divides a page goes out in whole pages.
 */
static size_t
vm_bytes(const struct repeat *r, size_t room)
{
	size_t chunk = fio_min(room, FIO_VMSPLICE_CHUNK);

	return r->len <= chunk ? chunk / r->len * r->len : r->len;
}

/* The buffer the stream has paid for so far (repeat.h, the stages). */
static size_t
vm_room(const struct repeat *r)
{
	return r->sent <
		       fio_repeat_stage_end(FIO_STAGE_FIRST_GIFT, r->start_pipe)
		   ? FIO_VMSPLICE_FIRST
		   : FIO_VMSPLICE_CHUNK;
}

/*
 * The written source: cap bytes of distinct pages, which a reader that
 * splices wants. A pattern whose length divides a page is written want
 * bytes at a time (the plain buffer grown to it), each write whole
 * pages; any other a slot a write, so that each slot starts at a
 * pattern's start; one longer than a page in one write.
 */
static size_t
fill_written(struct repeat *r, int fd, size_t cap, size_t want)
{
	size_t page = fio_page_size(), slot = slot_bytes(r), chunk, content;

	if (slot == 0) {
		chunk =
		    fio_min(fio_repeat_plain(r, cap), cap) / r->len * r->len;
		cap = chunk;
	} else if (slot == page) {
		chunk = fio_min(fio_repeat_plain(r, want), cap) / page * page;
		cap = cap / page * page;
	} else {
		chunk = fio_repeat_plain(r, slot) >= slot ? slot : 0;
		cap = cap / page * slot;
	}
	if (chunk == 0)
		return 0;
	for (content = 0; content < cap; content += chunk) {
		chunk = fio_min(chunk, cap - content);
		if (fio_write_all(fd, r->buf, chunk, NULL, 0) < 0)
			return 0;
	}
	return content;
}

/*
 * A hot source: the same page in every slot, which a reader that
 * copies keeps in its cache. There are two, of a page each, and the
 * rounds take them in turn: each slot's reference is taken on the
 * page's one count by our tee() and dropped by the reader's release,
 * and with one page the two CPUs fought for that count's cache line
 * all the time, where with two each round's page is left to us while
 * the reader drops the last round's (yes | pv, BENCHMARKS.md,
 * "Strategies"). One page of patterns is written into a
 * helper pipe and doubled: the source tee()d into the helper and
 * spliced back: a write, a splice, and a tee() and a splice a doubling,
 * 18 calls for 256 slots.
 */
static size_t
fill_hot(struct repeat *r, const int src[2], size_t cap)
{
	size_t slot = slot_bytes(r), content = 0, n;
	int two[2];

	if (slot == 0 || fio_repeat_plain(r, slot) < slot ||
	    pipe2(two, O_CLOEXEC) < 0)
		return 0;
	cap = cap / fio_page_size();
	if (fio_pipe_grow(two[1], cap / 2 * fio_page_size()) >=
		cap / 2 * fio_page_size() &&
	    fio_write_all(two[1], r->buf, slot, NULL, 0) == 0 &&
	    fio_splice(two[0], src[1], slot, SPLICE_F_NONBLOCK, 0) ==
		(ssize_t)slot)
		content = slot;
	while (content > 0 && content / slot < cap) {
		n = fio_min(content, (cap - content / slot) * slot);
		if (fio_tee(src[0], two[1], n, SPLICE_F_NONBLOCK) !=
			(ssize_t)n ||
		    fio_splice(two[0], src[1], n, SPLICE_F_NONBLOCK, 0) !=
			(ssize_t)n)
			content = 0;
		else
			content += n;
	}
	close(two[0]);
	close(two[1]);
	return content;
}

static void
close_pair(int p[2])
{
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	p[0] = p[1] = -1;
}

/* Source i (the written one, or a hot one), if not built yet. */
static int
build_one(struct tee *t, unsigned i)
{
	int *p = t->src[i];
	size_t cap;

	if (p[0] >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0) {
		p[0] = p[1] = -1;
		return -1;
	}
	/* A round fills the output pipe at most: its slots count against
	 * the user's pipe quota. */
	cap = fio_min(fio_pipe_grow(p[1], FIO_TEE_ROUND), FIO_TEE_ROUND);
	t->content[i] = i > 0 ? fill_hot(t->r, p, cap)
			      : fill_written(t->r, p[1], cap, FIO_WRITE_CHUNK);
	if (t->content[i] == 0) {
		close_pair(p);
		return -1;
	}
	return 0;
}

/* A source of each kind is built when a shape first needs it; where the
 * second hot page cannot be had (the quota), the first serves alone. */
static int
build_source(struct tee *t, unsigned hot)
{
	if (build_one(t, hot) < 0)
		return -1;
	if (hot)
		(void)build_one(t, 2);
	return 0;
}

/* The source of this round: the written one, or the hot ones in turn
 * (a vmsplice() shape is never hot: shapes_allowed). */
static unsigned
round_source(struct tee *t)
{
	unsigned i = t->turn;

	if (!(t->shape & FIO_SHAPE_HOT))
		return 0;
	if (t->src[2][0] < 0)
		return 1;
	t->turn = 3 - i;
	return i;
}

/* The middle pipe holds a round: as much as the output pipe. */
static int
build_mid(struct tee *t)
{
	size_t want = t->r->out.pipe_size ? t->r->out.pipe_size : FIO_TEE_ROUND;

	if (t->mid[0] < 0 && pipe2(t->mid, O_CLOEXEC) < 0) {
		t->mid[0] = t->mid[1] = -1;
		return -1;
	}
	t->midcap = fio_pipe_grow(t->mid[1], fio_min(want, FIO_TEE_ROUND));
	return t->midcap > 0 ? 0 : -1;
}

/*
 * The output pipe back from FIO_PIPE_GULP to FIO_PIPE_SIZE: the kernel
 * refuses while the pipe holds more than the smaller size, so we wait
 * for the reader to take the excess, as long as it keeps taking (which
 * it does while we would otherwise wait on a full pipe), a few of
 * pacing's shortest sleeps; a reader slower than that keeps the big pipe.
 */
static int
shrink_out(struct repeat *r)
{
	struct timespec ts = {0, (long)FIO_PACE_MIN_NS};
	int queued, before = -1, tries;

	for (tries = 0; tries < FIO_PACE_LOOKS; tries++) {
		if (ioctl(r->out.fd, FIONREAD, &queued) < 0)
			return -1;
		if ((size_t)queued <= FIO_PIPE_SIZE &&
		    fcntl(r->out.fd, F_SETPIPE_SZ, (int)FIO_PIPE_SIZE) >= 0) {
			r->out.pipe_size = FIO_PIPE_SIZE;
			return 0;
		}
		if (queued == before)
			return -1; /* the reader takes nothing now */
		before = queued;
		(void)nanosleep(&ts, NULL);
	}
	return -1;
}

/* Put the pipes in shape s; -1 where one of them cannot be had. */
static int
apply(struct tee *t, unsigned s)
{
	struct repeat *r = t->r;
	unsigned hot = s & FIO_SHAPE_HOT ? 1 : 0;

	if ((s & FIO_SHAPE_GULP) && r->out.pipe_size < FIO_PIPE_GULP &&
	    fio_repeat_grow_out(r, FIO_PIPE_GULP) < FIO_PIPE_GULP)
		return -1;
	if (!(s & FIO_SHAPE_GULP) && r->out.pipe_size > FIO_PIPE_SIZE &&
	    shrink_out(r) < 0)
		return -1;
	if (s & FIO_SHAPE_VMSPLICE) {
		if (fio_repeat_map_pages(r, vm_bytes(r, vm_room(r))) < 0)
			return -1;
	} else if (build_source(t, hot) < 0 ||
		   (!(s & FIO_SHAPE_DIRECT) && build_mid(t) < 0)) {
		return -1;
	}
	t->shape = s;
	return 0;
}

/* Settled: the pipes the choice does not use go (they count against the
 * user's quota); a later probe builds them again. */
static void
tidy(struct tee *t)
{
	if (t->shape & FIO_SHAPE_VMSPLICE) {
		close_pair(t->src[0]);
		close_pair(t->src[1]);
		close_pair(t->src[2]);
	} else if (t->shape & FIO_SHAPE_HOT) {
		close_pair(t->src[0]);
	} else {
		close_pair(t->src[1]);
		close_pair(t->src[2]);
	}
	if (t->shape & FIO_SHAPE_DIRECT)
		close_pair(t->mid);
}

/* The shapes that make the calls of shape s: vmsplice(), or tee() (and
 * splice) through the middle pipe, or tee() straight. */
static unsigned
same_calls(unsigned s)
{
	unsigned set = 0, c,
		 kind = FIO_SHAPE_VMSPLICE |
			(s & FIO_SHAPE_VMSPLICE ? 0 : FIO_SHAPE_DIRECT);

	for (c = 0; c < FIO_SHAPES; c++)
		if ((c & kind) == (s & kind))
			set |= 1u << c;
	return set;
}

/*
 * A call of the round failed. A refusal (a sandbox may refuse splice and
 * allow tee, at any call) leaves nothing in flight: what the middle pipe
 * still holds goes out by read() and write(), and the shapes that make
 * the refused call are refused, so the stream goes on from where it
 * stands by another. Any other failure is the output's.
 */
static enum fio_status
round_failed(struct tee *t, size_t in_mid)
{
	struct repeat *r = t->r;
	int err = errno;
	ssize_t k;

	if (fio_repeat_failed() == FIO_ERROR)
		return FIO_ERROR;
	while (in_mid > 0) {
		k = fio_read(t->mid[0], r->buf, fio_min(r->bufsize, in_mid), 0);
		if (k <= 0) {
			errno = EIO; /* our own pipe, holding bytes */
			return FIO_ERROR;
		}
		if (fio_write_all(r->out.fd, r->buf, (size_t)k, NULL, 0) < 0)
			return FIO_ERROR;
		fio_repeat_advance(r, (size_t)k);
		in_mid -= (size_t)k;
	}
	t->refused |= same_calls(t->shape);
	errno = err;
	return FIO_UNSUPPORTED;
}

/*
 * One round: a round of the source into the output, through the middle
 * pipe or straight. A splice or tee() that comes back short found the
 * output full: the reader is paced (pace.c) as cat's is, so that a
 * reader of a page a read wakes us once a chunk.
 */
static enum fio_status
one_round(struct tee *t)
{
	struct repeat *r = t->r;
	unsigned src = round_source(t), calls;
	size_t n = fio_min(t->shape & FIO_SHAPE_VMSPLICE ? FIO_TEE_ROUND
							 : t->content[src],
			   r->left),
	       moved = 0, round;
	uint64_t sent = r->sent;
	ssize_t k;

	if (realign(r) < 0)
		return FIO_ERROR;
	/* A round fills the output pipe at most (FIO_TEE_ROUND), and ends
	 * where the stream is at a multiple of a round. A reader of a
	 * pipeful a read (dd bs=1M) whose blocks our rounds straddle (the
	 * stream's start leaves it anywhere) stays out of step for good: two
	 * splices, two reads and their wake-ups a block. */
	if (r->out.pipe_size >= r->len && n > r->out.pipe_size)
		n = r->out.pipe_size / r->len * r->len;
	round = fio_min(r->out.pipe_size, FIO_TEE_ROUND);
	if (slot_bytes(r) == fio_page_size() && round > 0 &&
	    round % fio_page_size() == 0)
		n = fio_min(n, round - (size_t)(r->sent % round));
	if (t->shape & FIO_SHAPE_VMSPLICE) {
		/* The full buffer, once paid for (until then the call keeps
		 * the one there is); where it cannot be had, the first one
		 * goes on. */
		(void)fio_repeat_map_pages(r, vm_bytes(r, vm_room(r)));
		moved =
		    fio_splice_paced(&r->pace, -1, r->out.fd, r->out.pipe_size,
				     &sent, n, r->splice_flags, 0,
				     vm_bytes(r, r->giftsize), r->gift, &calls);
		if (moved > 0) {
			r->gifted = 1;
			fio_repeat_advance(r, moved);
		}
		return moved == n ? FIO_DONE : round_failed(t, 0);
	}
	if (!(t->shape & FIO_SHAPE_DIRECT)) {
		n = fio_min(n, t->midcap);
		k = fio_tee(t->src[src][0], t->mid[1], n, 0);
		if (k <= 0) {
			if (k == 0)
				errno = EIO; /* our own source pipe ran dry */
			return round_failed(t, 0);
		}
		moved = fio_splice_paced(&r->pace, t->mid[0], r->out.fd,
					 r->out.pipe_size, &sent, (size_t)k,
					 r->splice_flags, 0, 0, NULL, &calls);
		if (moved > 0)
			fio_repeat_advance(r, moved);
		return moved == (size_t)k ? FIO_DONE
					  : round_failed(t, (size_t)k - moved);
	}
	/* Straight: each tee() starts at the source's first slot again, at
	 * a pattern's start, where the stream is after realign(). */
	moved = fio_splice_paced(&r->pace, t->src[src][0], r->out.fd,
				 r->out.pipe_size, &sent, n, r->splice_flags, 0,
				 r->len, NULL, &calls);
	if (moved > 0)
		fio_repeat_advance(r, moved);
	return moved == n || r->phase != 0 ? FIO_DONE : round_failed(t, 0);
}

/* FASTIO_FORCE=probe: the next shape allowed after s, in turn. */
static unsigned
next_allowed(unsigned allowed, unsigned s)
{
	unsigned i, c;

	for (i = 1; i <= FIO_SHAPES; i++) {
		c = (s + i) % FIO_SHAPES;
		if (allowed & 1u << c)
			return c;
	}
	return s;
}

/*
 * Shape want, or where it cannot be built the next the choice allows
 * (fio_shape_refused), or in forced probing the next allowed in turn.
 */
static void
change(struct tee *t, struct fio_shapes *st, unsigned want, int forced)
{
	while (want != t->shape && apply(t, want) < 0) {
		if (forced) {
			st->allowed &= ~(1u << want);
			want = next_allowed(st->allowed, t->shape);
		} else {
			want = fio_shape_refused(st, t->shape);
		}
	}
}

/*
 * After a refusal in a round: the shapes of the refused path go, and the
 * nearest one left that can be built runs next. -1: none is left.
 */
static int
leave_path(struct tee *t, struct fio_shapes *st)
{
	unsigned want, drop = t->refused;

	for (;;) {
		want = fio_shape_drop(st, drop);
		if (want >= FIO_SHAPES)
			return -1;
		if (apply(t, want) == 0)
			return 0;
		drop = 1u << want;
	}
}

/*
 * The rounds, a window of FIO_SHAPE_WINDOW_BYTES bytes at a time, each timed:
 * after a window, shape.c says which shape the next runs. With
 * FASTIO_FORCE=probe every round runs the next shape allowed, in turn,
 * so that the tests see every change of shape.
 */
static enum fio_status
rounds(struct tee *t, unsigned allowed, unsigned other)
{
	struct repeat *r = t->r;
	struct fio_shapes st;
	int forced = fio_forced(FIO_PROBE), tidied = 0;
	uint64_t mark = r->sent, t0 = fio_now_ns();
	enum fio_status status;

	fio_shape_begin(&st, allowed, t->shape, other);
	for (;;) {
		status = one_round(t);
		if (status == FIO_UNSUPPORTED && leave_path(t, &st) == 0)
			status = FIO_DONE;
		if (status != FIO_DONE || r->left == 0)
			return status;
		if (!forced && r->sent - mark < FIO_SHAPE_WINDOW_BYTES)
			continue;
		if (forced)
			change(t, &st, next_allowed(st.allowed, t->shape), 1);
		else
			change(t, &st,
			       fio_shape_next(&st, r->sent - mark,
					      fio_now_ns() - t0),
			       0);
		if (!forced && fio_shape_settled(&st) != tidied) {
			if (!tidied)
				tidy(t);
			tidied = !tidied;
		}
		mark = r->sent;
		t0 = fio_now_ns();
	}
}

/*
 * The shapes this output may have, the first and the other source's
 * first (*other, FIO_SHAPES: none). The first is GNU's development
 * tree's way, vmsplice() of pages of its own straight into an output
 * pipe of FIO_PIPE_SIZE: from one CPU it is the fastest, and any
 * stream of a few MB is what it costs GNU's yes. The tee() shapes start
 * with one hot page through the middle pipe into FIO_PIPE_GULP, the
 * tee() shape with the best worst case, which the first probe tries
 * next (BENCHMARKS.md, "Strategies"). An output pipe that came at
 * FIO_PIPE_GULP or more has one size only.
 */
static unsigned
shapes_allowed(const struct repeat *r, unsigned *first, unsigned *other)
{
	/* The first shape of each source, or the nearest allowed: the
	 * middle pipe before the straight path, the hot page before
	 * written pages. */
	static const unsigned order[] = {
	    FIO_SHAPE_VMSPLICE | FIO_SHAPE_DIRECT,
	    FIO_SHAPE_VMSPLICE | FIO_SHAPE_DIRECT | FIO_SHAPE_GULP,
	    FIO_SHAPE_HOT | FIO_SHAPE_GULP,
	    FIO_SHAPE_HOT,
	    FIO_SHAPE_GULP,
	    0,
	    FIO_SHAPE_HOT | FIO_SHAPE_DIRECT | FIO_SHAPE_GULP,
	    FIO_SHAPE_HOT | FIO_SHAPE_DIRECT,
	    FIO_SHAPE_DIRECT | FIO_SHAPE_GULP,
	    FIO_SHAPE_DIRECT,
	};
	unsigned allowed = 0, s, i;

	for (s = 0; s < FIO_SHAPES; s++) {
		if ((s & FIO_SHAPE_HOT) ? !fio_enabled(FIO_HOT_PAGE)
					: !fio_enabled(FIO_PAGES))
			continue;
		if ((s & FIO_SHAPE_DIRECT) ? !fio_enabled(FIO_DIRECT)
					   : !fio_enabled(FIO_MIDDLE))
			continue;
		if ((s & FIO_SHAPE_GULP) ? !fio_enabled(FIO_GULP)
					 : r->out.pipe_size >= FIO_PIPE_GULP)
			continue;
		/* vmsplice() hands on pages of its own, straight. */
		if ((s & FIO_SHAPE_VMSPLICE) &&
		    (!fio_enabled(FIO_VMSPLICE) || (s & FIO_SHAPE_HOT) ||
		     !(s & FIO_SHAPE_DIRECT)))
			continue;
		allowed |= 1u << s;
	}
	*first = *other = FIO_SHAPES;
	for (i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (!(allowed & 1u << order[i]))
			continue;
		if (*first == FIO_SHAPES)
			*first = order[i];
		else if (*other == FIO_SHAPES &&
			 ((order[i] ^ *first) & FIO_SHAPE_VMSPLICE))
			*other = order[i];
	}
	if (!fio_enabled(FIO_PROBE) && !fio_forced(FIO_PROBE)) {
		allowed &= *first < FIO_SHAPES ? 1u << *first : 0;
		*other = FIO_SHAPES;
	}
	return allowed;
}

enum fio_status
fio_repeat_tee(struct repeat *r)
{
	struct tee t = {
	    r, {{-1, -1}, {-1, -1}, {-1, -1}}, {0, 0, 0}, 1, {-1, -1}, 0, 0, 0};
	enum fio_status st = FIO_UNSUPPORTED;
	unsigned allowed, first, other;

	if (!fio_repeat_pipe(r))
		return FIO_UNSUPPORTED;
	allowed = shapes_allowed(r, &first, &other);
	/* Nothing has moved yet: a shape that cannot be built is passed. */
	while (allowed && apply(&t, first) < 0) {
		allowed &= ~(1u << first);
		if (first == other)
			other = FIO_SHAPES;
		first = next_allowed(allowed, first);
	}
	if (other < FIO_SHAPES && !(allowed & 1u << other))
		other = FIO_SHAPES;
	if (allowed)
		st = rounds(&t, allowed, other);
	close_pair(t.src[0]);
	close_pair(t.src[1]);
	close_pair(t.src[2]);
	close_pair(t.mid);
	return st;
}
