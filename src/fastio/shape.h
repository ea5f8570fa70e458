/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_SHAPE_H
#define FASTIO_SHAPE_H

/*
 * The shape of yes's tee strategy (tee.c), chosen by measuring the reader
 * (shape.c): the decision, arithmetic on how fast each window of rounds
 * went out. Not part of the API: programs use fastio.h.
 */

#include <stdint.h>

#include "tune.h"

/*
 * A shape is four choices, one bit each. Its source: pages of a private
 * pipe tee()d into the output, one page in every slot (HOT; two such
 * pipes of a page each, the rounds in turn), which a reader that copies
 * keeps in its cache, or a page of its own in every
 * slot, written once; or (VMSPLICE) a read-only buffer of pages of its
 * own handed to the output by vmsplice(), as GNU's development tree
 * does. Its path: straight into the output (DIRECT), or into a middle
 * pipe spliced on to the output. Its output pipe: FIO_PIPE_GULP (GULP)
 * or FIO_PIPE_SIZE. A vmsplice() shape goes straight from pages of its
 * own: with HOT or without DIRECT it is none the caller builds. Which
 * is fastest flips by machine, by reader and by where the scheduler
 * puts the two (BENCHMARKS.md, "Strategies").
 */
#define FIO_SHAPE_HOT	   0x1u
#define FIO_SHAPE_DIRECT   0x2u
#define FIO_SHAPE_GULP	   0x4u
#define FIO_SHAPE_VMSPLICE 0x8u
#define FIO_SHAPE_BITS	   4u
#define FIO_SHAPES	   (1u << FIO_SHAPE_BITS)

/*
 * The state of the choice. A probe tries the shape in use, then the best
 * known of the other source (vmsplice() for a tee() shape, and back),
 * then each shape one of the other three bits away from the best so far,
 * FIO_SHAPE_WINDOWS windows a try (fewer for one that can no longer win),
 * and keeps the fastest by the median of its windows. Then it settles
 * for a gap of windows that doubles after each probe, and probes again:
 * a reader can change (pv paused, a consumer that goes from parsing to
 * skipping). A new choice that falls behind the shape it replaced while
 * settled is looked at again beside it. A reader whose choice changed in
 * FIO_SHAPE_FLIPS probes in a row never settles: probing stops.
 */
struct fio_shapes {
	unsigned allowed; /* bit s set: shape s can be built here */
	unsigned shape;	  /* the shape the next window runs */
	unsigned best;	  /* the fastest so far (settled: the choice) */
	unsigned before;  /* the choice when this probe began */
	unsigned other;	  /* the best known of the other source, or
			   * FIO_SHAPES: none */
	unsigned recheck; /* looked at again beside the choice, or
			   * FIO_SHAPES */
	unsigned bit;	  /* probing: the next bit to flip; FIO_SHAPE_BITS + 1:
			   * settled */
	unsigned windows; /* windows of the try so far */
	unsigned flips;	  /* probes in a row that changed the choice */
	int done;	  /* probing has stopped for good */
	/* The try's windows, bytes/us (settled on a challenger: its last). */
	uint64_t rate[FIO_SHAPE_WINDOWS];
	uint64_t best_rate;   /* the median of the best try, this probe */
	uint64_t before_rate; /* the median of before's try, this probe */
	uint64_t wait;	      /* settled: windows until the next probe */
	uint64_t gap;	      /* the next settled stretch, in windows */
};

/* Settled: the choice is made until the next probe (or for good). */
static inline int
fio_shape_settled(const struct fio_shapes *st)
{
	return (st->done && st->recheck == FIO_SHAPES) ||
	       st->bit > FIO_SHAPE_BITS;
}

/*
 * fio_shape_begin: a new stream running shape first, where the shapes of
 * allowed (bit s: shape s) can be built; other is the shape of the other
 * source to try first (FIO_SHAPES: none). The first probe begins at
 * once, with first as its first try: a stream that ends before that try
 * is over never builds another shape.
 */
void fio_shape_begin(struct fio_shapes *st, unsigned allowed, unsigned first,
		     unsigned other);

/*
 * fio_shape_next: a window of FIO_SHAPE_WINDOW_BYTES bytes of st->shape moved
 * bytes in ns nanoseconds; returns the shape for the next window (also
 * in st->shape). Pure: no clock, no syscall.
 */
unsigned fio_shape_next(struct fio_shapes *st, uint64_t bytes, uint64_t ns);

/*
 * fio_shape_refused: the caller could not build st->shape (a pipe, a
 * growth the quota refused, a shrink the pipe's contents forbade) and
 * runs in_use instead. That shape is never asked for again; a try of it
 * is skipped, and where it was the choice, in_use becomes the choice.
 * Returns the shape for the next window.
 */
unsigned fio_shape_refused(struct fio_shapes *st, unsigned in_use);

/*
 * fio_shape_drop: the kernel refused a call that the shapes of drop (bit
 * s: shape s) make, in the middle of the stream (a sandbox that refuses
 * splice, say): they are never asked for again. The probe in progress
 * ends; the choice is the best shape if it is left, else the other
 * source's best, else the nearest allowed to it (fewest bits flipped,
 * the lowest bit first). Returns the shape for the next window, or
 * FIO_SHAPES when none is left.
 */
unsigned fio_shape_drop(struct fio_shapes *st, unsigned drop);

#endif
