/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "shape.h"

/*
 * Choosing the tee strategy's shape by measuring the reader. No fixed
 * shape is best for every reader on every machine: a splicing reader on
 * one EPYC took the pages fastest tee()d straight into its pipe, a
 * read() reader on a Xeon from one hot page in a 1 MiB pipe, and each
 * was far from its best in the other's shape (BENCHMARKS.md,
 * "Strategies"). So the stream is measured as it goes, a window of
 * FIO_SHAPE_WINDOW_BYTES bytes at a time, and the shape follows the
 * fastest. This is the probe's one description; the others point here.
 *
 * A probe walks one choice at a time from the choice (coordinate by
 * coordinate: five tries, not sixteen), each try FIO_SHAPE_WINDOWS
 * windows judged by their median, so that one window that a wake-up or
 * another process made slow or fast decides nothing. Its first try is
 * the shape already in use: a stream that ends within it has built
 * nothing more. The next is the best known of the other source
 * (vmsplice() or tee()), whose best neighbours differ in more than one
 * bit; then one bit of the other three at a time. A challenger wins
 * only where its median beats the
 * best's by FIO_SHAPE_MARGIN percent: a shape's windows swing in
 * stretches, and a choice made in a fast one loses the rest of the
 * stream. A try ends as soon as it cannot win: once more than half its
 * windows were no faster than that, its median cannot be, and every
 * window of a shape that loses is what a probe costs. The first probe
 * after a choice comes FIO_SHAPE_GAP windows later and each next one
 * twice as late, so that what they cost a long stream stays small; a
 * reader that changed its mind in FIO_SHAPE_FLIPS probes in a row is
 * left with the last choice. A choice that, settled, falls behind the
 * shape it replaced is looked at again beside it (fell_behind): a probe
 * is a few windows, and a reader may be fast in a shape for that long
 * only, or slow in every shape for a while. A
 * shape the caller cannot build is skipped (fio_shape_refused), a path
 * the kernel refuses dropped for good (fio_shape_drop).
 */

#define SETTLED (FIO_SHAPE_BITS + 1u)

void
fio_shape_begin(struct fio_shapes *st, unsigned allowed, unsigned first,
		unsigned other)
{
	unsigned i;

	st->allowed = allowed | 1u << first;
	st->shape = st->best = st->before = first;
	st->other = other;
	st->recheck = FIO_SHAPES;
	st->bit = 0;
	st->windows = 0;
	st->flips = 0;
	st->best_rate = st->before_rate = 0;
	st->wait = 0;
	st->gap = FIO_SHAPE_GAP;
	for (i = 0; i < FIO_SHAPE_WINDOWS; i++)
		st->rate[i] = 0;
	/* One shape to choose from: nothing to measure. */
	st->done = (st->allowed & (st->allowed - 1)) == 0;
}

/* The median of the try's windows (its middle one, sorted). */
static uint64_t
median(const uint64_t *v)
{
	uint64_t s[FIO_SHAPE_WINDOWS], t;
	unsigned i, j;

	for (i = 0; i < FIO_SHAPE_WINDOWS; i++)
		for (s[i] = v[i], j = i; j > 0 && s[j - 1] > s[j]; j--)
			t = s[j], s[j] = s[j - 1], s[j - 1] = t;
	return s[FIO_SHAPE_WINDOWS / 2];
}

/* The try so far can no longer beat the best: more than half its windows
 * (enough to hold its median) were no faster than the best's median by
 * FIO_SHAPE_MARGIN percent. */
static int
beaten(const struct fio_shapes *st)
{
	unsigned i, slower = 0;

	for (i = 0; i < st->windows; i++)
		slower += st->rate[i] * 100 <=
			  st->best_rate * (100 + FIO_SHAPE_MARGIN);
	return slower > FIO_SHAPE_WINDOWS / 2;
}

/* Nonzero if shapes a and b take their pages from the same source. */
static int
same_source(unsigned a, unsigned b)
{
	return ((a ^ b) & FIO_SHAPE_VMSPLICE) == 0;
}

/* The k-th try from the best: 0 the other source's best, 1 to 3 the best
 * with bit k - 1 flipped; in a second look, only the shape looked at. */
static unsigned
candidate(const struct fio_shapes *st, unsigned k)
{
	if (st->recheck < FIO_SHAPES)
		return k == 0 ? st->recheck : FIO_SHAPES;
	return k == 0 ? st->other : st->best ^ 1u << (k - 1);
}

/* The best is now s: the other source's best is the old one, if s
 * changed the source. */
static void
set_best(struct fio_shapes *st, unsigned s)
{
	if (!same_source(s, st->best))
		st->other = st->best;
	st->best = s;
}

/* The next try of this probe: the other source's best, or the best so
 * far with one more bit flipped; none left: settle on the best. */
static unsigned
next_try(struct fio_shapes *st)
{
	unsigned s;

	while (st->bit < FIO_SHAPE_BITS) {
		s = candidate(st, st->bit++);
		if (s < FIO_SHAPES && s != st->best && (st->allowed & 1u << s))
			return s;
	}
	st->bit = SETTLED;
	st->flips = st->best != st->before ? st->flips + 1 : 0;
	st->done = st->done || st->flips >= FIO_SHAPE_FLIPS;
	/* A second look is no probe: the next comes when it was due. */
	if (st->recheck == FIO_SHAPES) {
		st->wait = st->gap;
		st->gap = st->gap * 2 > st->gap ? st->gap * 2 : st->gap;
	}
	st->recheck = FIO_SHAPES;
	return st->best;
}

/*
 * Settled on a challenger: has it fallen behind the shape it replaced?
 * Its last FIO_SHAPE_WINDOWS windows, by their median, against that
 * shape's median in the probe, by FIO_SHAPE_MARGIN percent. A reader's
 * rate in a shape may swing in stretches longer than a probe: pv 1.6
 * splicing pages tee()d straight into its pipe took them at 90 GB/s or
 * at 30 by turns, for whole seconds, where through the middle pipe it
 * took a steady 50 (fc-v782). A probe that ran in a fast stretch chose
 * the swinging shape; kept, it lost the slow stretches. But a slow
 * stretch may be the reader's, whatever the shape: pv took every shape
 * at 11-20 GB/s or at 65-87 by turns (fc-v857), and going back at once
 * kept the slower shape. So one that fell behind is looked at again,
 * side by side: the choice for a try, then the shape it replaced, and
 * the faster by the margin stays. Only a shape of the same source is
 * looked at again: between the sources a reader's rates differ by two
 * to five times, which a probe does not mistake.
 */
static int
fell_behind(struct fio_shapes *st, uint64_t rate)
{
	st->rate[st->windows++ % FIO_SHAPE_WINDOWS] = rate;
	return st->windows >= FIO_SHAPE_WINDOWS &&
	       median(st->rate) * (100 + FIO_SHAPE_MARGIN) <
		   st->before_rate * 100;
}

unsigned
fio_shape_next(struct fio_shapes *st, uint64_t bytes, uint64_t ns)
{
	uint64_t rate = ns > 0 ? bytes * 1000 / ns : bytes * 1000;
	int lost;

	/* Even where probing has stopped: a choice that fell behind the
	 * shape before it is looked at again beside it. */
	if (st->bit == SETTLED && st->best != st->before &&
	    same_source(st->best, st->before) &&
	    (st->allowed & 1u << st->before) && fell_behind(st, rate)) {
		st->recheck = st->before;
		st->before = st->best;
		st->bit = 0;
		st->windows = 0;
		return st->shape;
	}
	if (st->done && st->recheck == FIO_SHAPES)
		return st->shape;
	if (st->bit == SETTLED) {
		if (--st->wait > 0)
			return st->shape;
		/* A new probe, its first try the choice itself. */
		st->bit = 0;
		st->windows = 0;
		st->before = st->best;
		return st->shape;
	}
	st->rate[st->windows++] = rate;
	lost = st->shape != st->best && beaten(st);
	if (!lost && st->windows < FIO_SHAPE_WINDOWS)
		return st->shape;
	st->windows = 0;
	/* Whole and not lost: the choice's own try, or one whose median
	 * beat it (more than half its windows were faster). */
	if (!lost) {
		set_best(st, st->shape);
		st->best_rate = median(st->rate);
		if (st->shape == st->before)
			st->before_rate = st->best_rate;
	}
	st->shape = next_try(st);
	return st->shape;
}

unsigned
fio_shape_refused(struct fio_shapes *st, unsigned in_use)
{
	st->allowed &= ~(1u << st->shape);
	st->allowed |= 1u << in_use;
	st->windows = 0;
	if (st->bit == SETTLED || st->shape == st->best) {
		/* Back to the choice failed: what runs is the choice now. */
		set_best(st, in_use);
		st->shape = in_use;
		return in_use;
	}
	st->shape = next_try(st);
	return st->shape;
}

/* The allowed shape nearest to s: fewest bits flipped, the lowest first. */
static unsigned
nearest(unsigned allowed, unsigned s)
{
	unsigned flips, m, best = FIO_SHAPES, bits = FIO_SHAPE_BITS + 1, n;

	for (m = 0; m < FIO_SHAPES; m++) {
		if (!(allowed & 1u << (s ^ m)))
			continue;
		for (flips = m, n = 0; flips; flips &= flips - 1)
			n++;
		if (n < bits) {
			bits = n;
			best = s ^ m;
		}
	}
	return best;
}

unsigned
fio_shape_drop(struct fio_shapes *st, unsigned drop)
{
	unsigned s = FIO_SHAPES;

	st->allowed &= ~drop;
	/* The best gone, the other source's best is the nearest choice. */
	if (!(st->allowed & 1u << st->best) && st->other < FIO_SHAPES &&
	    (st->allowed & 1u << st->other))
		s = st->other;
	if (s == FIO_SHAPES)
		s = nearest(st->allowed, st->best);
	if (s == FIO_SHAPES)
		return FIO_SHAPES;
	set_best(st, s);
	st->shape = st->before = st->best;
	st->windows = 0;
	st->bit = SETTLED;
	st->wait = st->gap;
	st->done = st->done || (st->allowed & (st->allowed - 1)) == 0;
	return st->shape;
}
