/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_VOTE_H
#define FASTIO_VOTE_H

/*
 * The reader's vote (strategy.c), one rule for cat's splices from a file
 * (pump.c) and the writer's thread (writer.c).
 * Not part of the API: programs use fastio.h.
 */

#include "fastio.h"

/*
 * fio_vote_count: count one round of ours; sign if the reader showed the
 * sign the caller asks about (for the pump, a round
 * took FIO_VOTE_BITE splices or more to go out: a reader that read()s
 * frees a few slots at a time; for the writer, a round found the pipe too
 * full to take it), whole if the round went out in one splice (a reader
 * that splices takes the whole pipe at a time). Of the first
 * FIO_VOTE_ROUNDS rounds, if half or more showed the sign: FIO_VOTE_SIGN,
 * once, on the round that decides it; else if more than half went out
 * whole: FIO_VOTE_WHOLE; else 0. Counted, not timed, and taken once: it
 * cannot oscillate.
 */
#define FIO_VOTE_SIGN  1
#define FIO_VOTE_WHOLE 2
int fio_vote_count(struct fio_vote *v, int sign, int whole);

#endif
