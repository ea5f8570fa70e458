/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_PACE_H
#define FASTIO_PACE_H

/*
 * Pacing a pipe's reader (pace.c): the decision, arithmetic on what each
 * look at the pipe saw, and the act, which looks and sleeps. Not part of
 * the API: programs use fastio.h.
 */

#include <stddef.h>
#include <stdint.h>

#include "fastio.h"

/* What one look at the pipe saw. */
struct fio_pace_look {
	size_t size;   /* the pipe's capacity */
	uint64_t sent; /* bytes written into it so far */
	size_t want;   /* room wanted for the next splice */
	size_t queued; /* bytes it held (FIONREAD) */
	uint64_t now;  /* CLOCK_MONOTONIC, ns */
};

/* One call's looks so far; all zero before the first. */
struct fio_pace_call {
	unsigned looks;
	uint64_t at;	 /* the last look's clock */
	uint64_t before; /* bytes the reader had taken by then */
	uint64_t wait;	 /* the sleep asked after it */
};

/*
 * fio_pace_begin: whether this call looks at the pipe at all: 0 while a
 * reader that outran the timer is left to the kernel (pc->skip counts
 * those calls down), else 1.
 */
int fio_pace_begin(struct fio_pace *pc);

/*
 * fio_pace_next: after look l of call c, how long to sleep before the
 * next look, in ns; 0 to stop looking and splice (the pipe has room, the
 * reader stalls or outruns the timer, or is too slow for wake-ups to
 * matter). Learns the reader's pace and counts its strikes in pc. Pure:
 * no clock, no syscall.
 */
uint64_t fio_pace_next(struct fio_pace *pc, struct fio_pace_call *c,
		       const struct fio_pace_look *l);

/*
 * fio_spin_begin: the call just found the pipe full: 1 to retry it
 * without sleeping for FIO_SPIN_NS at most, 0 while full pipes are left
 * to the kernel (pc->idle counts those down). fio_spin_end: the spin
 * ended with room (hit) or with the time up; two that ended so in a row
 * leave the next FIO_SPIN_SKIP to the kernel. Pure: no clock, no syscall.
 */
int fio_spin_begin(struct fio_pace *pc);
void fio_spin_end(struct fio_pace *pc, int hit);

/*
 * fio_pace: before writing want bytes into the pipe fd of size bytes,
 * sent bytes written into it so far: look at most FIO_PACE_LOOKS times,
 * sleeping as fio_pace_next says. Nothing when size is 0 or FIO_PACE is
 * disabled.
 */
void fio_pace(struct fio_pace *pc, int fd, size_t size, uint64_t sent,
	      size_t want);

/*
 * Move len bytes on to the pipe to, of size bytes, *sent bytes written
 * into it so far (advanced here), pacing its reader (fio_pace) before
 * each call after the first; *calls counts the calls, for the reader's
 * vote. The bytes come from the pipe from (ours), spliced out of it with
 * align 0, or tee()d from it with align the bytes of a pattern, stopping
 * early (without an error) after a call that ended within a pattern;
 * or, with user not NULL, from user, a read-only buffer of align bytes
 * (whole patterns, the first at its first byte) handed on by vmsplice(),
 * at most align bytes a call, from where the stream stands in it.
 * A call that finds the pipe full spins first (fio_spin_begin), unless
 * interruptible: the source is ours and never waits, so only the
 * reader's room is waited for. Returns the bytes moved: len, fewer so
 * stopped, or fewer with errno from the call that moved nothing (ENOSPC
 * for a 0). The one paced loop of cat's pump and of yes's rounds,
 * whatever their source.
 */
size_t fio_splice_paced(struct fio_pace *pc, int from, int to, size_t size,
			uint64_t *sent, size_t len, unsigned flags,
			int interruptible, size_t align, const char *user,
			unsigned *calls);

#endif
