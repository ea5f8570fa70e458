/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <time.h>

#include "fastio.h"
#include "sys.h"
#include "tune.h"

/*
 * Pacing a pipe for its reader. A writer that blocks on a full pipe is
 * woken by the reader's next read(), and a reader that reads a page at a
 * time (mawk, a Python line loop) then wakes it once a page, and pays
 * for each wake-up: mawk spent 0.29-0.53 s of system time on 500 MB
 * from a pipe, 0.06-0.10 s reading the file itself (6.18.44-fc-v782,
 * AMD EPYC, wake-up 5.3-6.1 us). So when the pipe lacks room for the
 * next chunk, the writer sleeps for the time the reader needs to make
 * that room, and is then woken by its own timer, once a chunk. Where the
 * reader stalls, or is so fast or so slow that wake-ups cost little, the
 * blocking call waits as before. Timing only decides when to look again:
 * no byte depends on it.
 *
 * The reader's pace is learnt only between two looks of one call, when
 * the pipe held bytes throughout. Between calls the writer was away (a
 * cold file's pages, a slow input), and the reader may have waited on an
 * empty pipe: a pace taken across that wait is too slow, and sleeping by
 * it starved `wc -l` of a cold file for up to 4 ms a time (0.287 s
 * against 0.256 unpaced, fc-v782). Until a pace is known, the first look
 * sleeps FIO_PACE_MIN_NS to learn it.
 *
 * Only a reader of small bites is paced. One that has freed half the
 * pipe by the first look, just after a splice found the pipe full, or
 * that takes half a pipe within FIO_PACE_MIN_NS and twice our last
 * sleep's lateness (a sleep lasts 50-150 us more than asked on a virtual
 * machine), or that empties it within one of our sleeps, outruns the
 * timer and is left alone for a while:
 * sleeping for such a reader starved `yes | pipebench --touch` (0.47x),
 * and looking at its pipe after every short splice cost a splicing
 * reader 0.88x (fc-v782).
 */

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * The reader outran the timer. Twice in a row (once may be our own
 * lateness), and it is waited for in the kernel for the next
 * FIO_PACE_SKIP calls without a look (a look takes the pipe's lock from
 * the reader), then learnt anew.
 */
static void
too_fast(struct fio_pace *pc)
{
	if (++pc->fast < 2)
		return;
	pc->fast = 0;
	pc->skip = FIO_PACE_SKIP;
	pc->taken = 0;
}

void
fio_pace(struct fio_pace *pc, int fd, size_t size, uint64_t sent, size_t want)
{
	struct timespec ts;
	uint64_t t, taken, at = 0, before = 0, wait = 0;
	int queued, i;

	/* size 0: a pipe whose size we do not know. */
	if (size == 0 || !fio_enabled(FIO_PACE))
		return;
	if (pc->skip > 0) {
		pc->skip--;
		return;
	}
	/* Half a pipe left is the reader's margin for our lateness. */
	if (want > size / 2)
		want = size / 2;
	for (i = 0; i < FIO_PACE_LOOKS; i++) {
		if (ioctl(fd, FIONREAD, &queued) < 0 || queued < 0 ||
		    (size_t)queued > size)
			return;
		t = now_ns();
		taken = sent - (uint64_t)queued;
		if (i > 0) {
			if (taken == before)
				return; /* the reader stalls */
			pc->late = t - at > wait ? t - at - wait : 0;
			/* Emptied within our sleep: a pace taken from it
			 * would be too slow, and the next sleep would
			 * starve the reader again. */
			if (queued == 0) {
				pc->taken = 0;
				too_fast(pc);
				return;
			}
			pc->ns = t - at;
			pc->taken = taken - before;
		}
		at = t;
		before = taken;
		/* Half a pipe free just after a splice found it full: the
		 * reader takes big bites quickly. */
		if (i == 0 && size - (size_t)queued >= size / 2) {
			too_fast(pc);
			return;
		}
		if (size - (size_t)queued >= want)
			return;
		if (pc->taken == 0) {
			wait = FIO_PACE_MIN_NS;
		} else if ((uint64_t)(size / 2) * pc->ns / pc->taken <
			   FIO_PACE_MIN_NS + 2 * pc->late) {
			/* Half a pipe lasts it less than a sleep of ours.
			 * A second strike needs a pace learnt anew: one late
			 * sleep of ours would otherwise count twice. */
			pc->taken = 0;
			too_fast(pc);
			return;
		} else {
			wait = (uint64_t)(want - (size - (size_t)queued)) *
			       pc->ns / pc->taken;
			pc->fast = 0;
		}
		if (wait < FIO_PACE_MIN_NS || wait > FIO_PACE_MAX_NS)
			return;
		ts.tv_sec = (time_t)(wait / 1000000000u);
		ts.tv_nsec = (long)(wait % 1000000000u);
		if (nanosleep(&ts, NULL) < 0)
			return;
	}
}

size_t
fio_splice_paced(struct fio_pace *pc, int from, int to, size_t size,
		 uint64_t *sent, size_t len, unsigned flags, int interruptible,
		 unsigned *calls)
{
	size_t moved = 0;
	ssize_t n;

	for (*calls = 0; moved < len; ++*calls) {
		/* Only a pipe that just filled is looked at: a look takes
		 * the pipe's lock, which a splicing reader holds; and a
		 * non-blocking output's splices never wait. */
		if (*calls > 0 && !(flags & SPLICE_F_NONBLOCK))
			fio_pace(pc, to, size, *sent, len - moved);
		n = fio_splice(from, to, len - moved, flags, interruptible);
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
