/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>

#include "fastio.h"
#include "machine.h"
#include "pace.h"
#include "sys.h"
#include "tune.h"

/*
 * Pacing a pipe for its reader. A writer that blocks on a full pipe is
 * woken by the reader's next read(), and a reader that reads a page at a
 * time (mawk, a Python line loop) then wakes it once a page, and pays
 * for each wake-up (BENCHMARKS.md, "FIO_PACE_LOOKS"). So when the pipe
 * lacks room for the next chunk, the writer sleeps for the time the
 * reader needs to make that room, and is then woken by its own timer,
 * once a chunk. Where the reader stalls, or is so fast or so slow that
 * wake-ups cost little, the blocking call waits as before. Timing only
 * decides when to look again: no byte depends on it.
 *
 * The reader's pace is learnt only between two looks of one call, when
 * the pipe held bytes throughout. Between calls the writer was away (a
 * cold file's pages, a slow input), and the reader may have waited on an
 * empty pipe: a pace taken across that wait is too slow, and sleeping by
 * it starved `wc -l` of a cold file. Until a pace is known, the first
 * look sleeps FIO_PACE_MIN_NS to learn it.
 *
 * Only a reader of small bites is paced. One that has freed half the
 * pipe by the first look, just after a splice found the pipe full, or
 * that takes half a pipe within FIO_PACE_MIN_NS and twice our last
 * sleep's lateness (a sleep lasted 50-150 us more than asked on a
 * virtual machine: BENCHMARKS.md, "FIO_PACE_LOOKS"), or that empties it
 * within one of our sleeps, outruns the timer: a strike. Two strikes in
 * a row (one may be our own lateness) leave it to the kernel for
 * FIO_PACE_SKIP calls, and its pace is then learnt anew. Sleeping for
 * such a reader starved it, and looking at its pipe after every short
 * splice cost a splicing reader.
 *
 * The decision (fio_pace_begin, fio_pace_next) is arithmetic on what a
 * look saw; fio_pace() makes the looks and the sleeps.
 *
 * A reader that empties the pipe sooner than a sleeping writer wakes
 * (pv's splice of all it holds, dd bs=1M) is not paced, and the pipe is
 * full again at our next call: the writer sleeps on it, the reader wakes
 * it, finds the pipe empty and sleeps in turn, and each pipeful costs
 * two wake-ups. Where a wake-up costs tens of microseconds (an idle
 * virtual CPU is woken by its host) that is most of the time: `yes | pv`
 * ran at 10-20 GB/s in such stretches and at 70 between them. So a call
 * that finds the pipe full is retried at once, without sleeping, the CPU
 * yielded between tries (a reader on our CPU runs in them), for
 * FIO_SPIN_NS at most, and only then made to sleep: the room comes while
 * we are awake, and the reader, fed at once, never finds the pipe empty
 * (BENCHMARKS.md, "FIO_SPIN_NS"). A reader that takes longer than that
 * is left to the kernel (fio_spin_begin).
 */

/* One more in a row: 1 at the second, the row then begun anew. */
static int
second_in_row(unsigned *row)
{
	if (++*row < 2)
		return 0;
	*row = 0;
	return 1;
}

/* The reader outran the timer: a strike; two in a row and it is left alone. */
static void
strike(struct fio_pace *pc)
{
	if (!second_in_row(&pc->fast))
		return;
	pc->skip = FIO_PACE_SKIP;
	pc->taken = 0;
}

/* 1 if nothing is left to skip, else one fewer to skip and 0. */
static int
skipped_all(unsigned *left)
{
	if (*left == 0)
		return 1;
	--*left;
	return 0;
}

int
fio_spin_begin(struct fio_pace *pc)
{
	return skipped_all(&pc->idle);
}

void
fio_spin_end(struct fio_pace *pc, int hit)
{
	if (hit)
		pc->missed = 0;
	else if (second_in_row(&pc->missed))
		pc->idle = FIO_SPIN_SKIP;
}

int
fio_pace_begin(struct fio_pace *pc)
{
	return skipped_all(&pc->skip);
}

uint64_t
fio_pace_next(struct fio_pace *pc, struct fio_pace_call *c,
	      const struct fio_pace_look *l)
{
	uint64_t taken = l->sent - l->queued, wait;
	size_t room = l->size - l->queued,
	       want = l->want > l->size / 2 ? l->size / 2 : l->want;

	if (c->looks++ > 0) {
		if (taken == c->before)
			return 0; /* the reader stalls */
		pc->late =
		    l->now - c->at > c->wait ? l->now - c->at - c->wait : 0;
		/* Emptied within our sleep: a pace taken from it would be
		 * too slow, and the next sleep would starve the reader. */
		if (l->queued == 0) {
			pc->taken = 0;
			strike(pc);
			return 0;
		}
		pc->ns = l->now - c->at;
		pc->taken = taken - c->before;
	}
	c->at = l->now;
	c->before = taken;
	/* Half a pipe free just after a splice found it full: the reader
	 * takes big bites quickly. */
	if (c->looks == 1 && room >= l->size / 2) {
		strike(pc);
		return 0;
	}
	/* Half a pipe left is the reader's margin for our lateness. */
	if (room >= want)
		return 0;
	if (pc->taken == 0) {
		wait = FIO_PACE_MIN_NS;
	} else if ((uint64_t)(l->size / 2) * pc->ns / pc->taken <
		   FIO_PACE_MIN_NS + 2 * pc->late) {
		/* Half a pipe lasts it less than a sleep of ours. A second
		 * strike needs a pace learnt anew: one late sleep of ours
		 * would otherwise count twice. */
		pc->taken = 0;
		strike(pc);
		return 0;
	} else {
		wait = (uint64_t)(want - room) * pc->ns / pc->taken;
		pc->fast = 0;
	}
	if (wait < FIO_PACE_MIN_NS || wait > FIO_PACE_MAX_NS)
		return 0;
	c->wait = wait;
	return wait;
}

/*
 * Sleep for *ts (0), or until the pipe's reader is gone (1) or a signal
 * came (-1). A pipeline lasts until its last process exits, and a writer
 * asleep on its timer when its reader exits adds the rest of its sleep
 * to it (`yes a | head -c 280K` took 1.14x GNU's time so: BENCHMARKS.md,
 * "FIO_PACE_LOOKS"). poll() asked for no event still reports POLLERR,
 * the reader's close; the room a read() makes wakes only those that
 * asked for POLLOUT, and a splicing reader's wake-up makes poll() look
 * again, not return. A refused ppoll() sleeps as before.
 */
static int
sleep_on(int fd, const struct timespec *ts)
{
	struct pollfd p = {fd, 0, 0};
	int n = ppoll(&p, 1, ts, NULL);

	if (n < 0 && errno != EINTR)
		n = nanosleep(ts, NULL);
	return n;
}

void
fio_pace(struct fio_pace *pc, int fd, size_t size, uint64_t sent, size_t want)
{
	struct fio_pace_call c = {0, 0, 0, 0};
	struct fio_pace_look l = {size, sent, want, 0, 0};
	struct timespec ts;
	uint64_t wait;
	int queued;

	/* size 0: a pipe whose size we do not know. */
	if (size == 0 || !fio_enabled(FIO_PACE) || !fio_pace_begin(pc))
		return;
	while (c.looks < FIO_PACE_LOOKS) {
		if (ioctl(fd, FIONREAD, &queued) < 0 || queued < 0 ||
		    (size_t)queued > size)
			return;
		l.queued = (size_t)queued;
		l.now = fio_now_ns();
		wait = fio_pace_next(pc, &c, &l);
		if (wait == 0)
			return;
		ts.tv_sec = (time_t)(wait / 1000000000u);
		ts.tv_nsec = (long)(wait % 1000000000u);
		if (sleep_on(fd, &ts) != 0)
			return;
	}
}

/* One call: the source's kind of call (see fio_splice_paced). */
static ssize_t
one_call(int from, int to, size_t len, unsigned flags, int interruptible,
	 size_t align, struct iovec *iov)
{
	if (iov)
		return fio_vmsplice(to, iov, 1, flags);
	if (align)
		return fio_tee(from, to, len, flags);
	return fio_splice(from, to, len, flags, interruptible);
}

/*
 * One call into a pipe that may be full: tried without blocking; if full,
 * retried so, the CPU yielded between tries, until FIO_SPIN_NS have
 * passed (fio_spin_begin says whether to), and then made as asked. A
 * non-blocking output is never waited on: its EAGAIN is the caller's.
 * Nor is a call that a signal must end (pipebench's relay): a signal
 * that came during the spin would not end the sleep after it.
 */
static ssize_t
spin_call(struct fio_pace *pc, int from, int to, size_t len, unsigned flags,
	  int interruptible, size_t align, struct iovec *iov)
{
	uint64_t until = 0;
	ssize_t n;

	if ((flags & SPLICE_F_NONBLOCK) || interruptible ||
	    !fio_enabled(FIO_SPIN))
		return one_call(from, to, len, flags, interruptible, align,
				iov);
	for (;;) {
		n = one_call(from, to, len, flags | SPLICE_F_NONBLOCK,
			     interruptible, align, iov);
		if (n >= 0 || errno != EAGAIN) {
			if (until > 0)
				fio_spin_end(pc, 1);
			return n;
		}
		if (until == 0) {
			if (!fio_spin_begin(pc))
				break;
			until = fio_now_ns() + FIO_SPIN_NS;
		} else if (fio_now_ns() >= until) {
			fio_spin_end(pc, 0);
			break;
		}
		(void)sched_yield();
	}
	return one_call(from, to, len, flags, interruptible, align, iov);
}

size_t
fio_splice_paced(struct fio_pace *pc, int from, int to, size_t size,
		 uint64_t *sent, size_t len, unsigned flags, int interruptible,
		 size_t align, const char *user, unsigned *calls)
{
	size_t moved = 0, at, asked = 0;
	struct iovec iov;
	ssize_t n = 0;

	/* A tee() source starts each call at its first byte again: after
	 * a short one that ended within a pattern, the next would repeat
	 * the wrong bytes, so the caller realigns first. */
	for (*calls = 0; moved < len && (user || !align || moved % align == 0);
	     ++*calls) {
		/* Only a pipe that just filled (the last call moved less
		 * than it asked) is looked at: a look takes the pipe's lock,
		 * which a splicing reader holds; and a non-blocking output's
		 * splices never wait. */
		if (*calls > 0 && (size_t)n < asked &&
		    !(flags & SPLICE_F_NONBLOCK))
			fio_pace(pc, to, size, *sent, len - moved);
		asked = len - moved;
		if (user) {
			at = moved % align;
			iov.iov_base = (void *)(user + at);
			iov.iov_len = asked = fio_min(align - at, asked);
		}
		n = spin_call(pc, from, to, asked, flags, interruptible, align,
			      user ? &iov : NULL);
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			break;
		}
		moved += (size_t)n;
		*sent += (uint64_t)n;
	}
	return moved;
}
