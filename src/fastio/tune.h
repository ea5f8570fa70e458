/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_TUNE_H
#define FASTIO_TUNE_H

/*
 * libfastio's measured constants, one table, in the manner of coreutils'
 * ioblksize.h: each with its value and why. The figures, the rule each
 * was chosen by (its worst ratio to the best choice over every placement,
 * reader and machine measured) and the `make bench-sweep SWEEP="NAME
 * VALUE..."` line that measures it again are in BENCHMARKS.md,
 * "Decisions", under the constant's name. The #ifndef guards exist only
 * so that bench/sweep.sh can build variants with -D. The programs' own
 * constants (CAT_BUF in cat/format.h, CAT_OUT in cat/cat.c) have entries there
 * too. Only the library includes this file: programs ask fastio.h.
 */

/* Project rule: no call that moves bytes asks for more than 1 GiB. */
#define FIO_MAX_IO ((size_t)1 << 30)

/*
 * A rule, not a measurement: the biggest block a reader that takes one
 * read() as a block (dd without iflag=fullblock) is given whole by GNU's
 * yes and cat (reads of 512 B to 4 KiB; GNU writes 8 KiB and 128 KiB).
 * Written bytes merge into a pipe's last page, so a writer whose writes
 * are whole blocks of it leaves whole blocks whatever the page size.
 */
#define FIO_WHOLE_BLOCK ((size_t)4096)

/* Transparent huge page size on x86-64: the vmsplice buffer's alignment. */
#define FIO_HUGE_PAGE ((size_t)2 << 20)

/*
 * Pipe size asked for with F_SETPIPE_SZ for our output pipes: a 64 KiB
 * pipe makes writer and reader take turns. Every slot counts against the
 * user's pipe quota (fs.pipe-user-pages-soft, 64 MiB) for as long as the
 * pipe lives: a cat from a file into a pipe holds this and half of it
 * (the private pipe of one chunk), yes its output pipe (this or
 * FIO_PIPE_GULP), a round's middle pipe and its source (the hot one is
 * two pipes), up to 1,024 pages (doc/design.md, "Pipes and the user's
 * quota"), pipebench its own size (PB_PIPE_SIZE).
 */
#ifndef FIO_PIPE_SIZE
#define FIO_PIPE_SIZE ((size_t)512 << 10)
#endif

/*
 * The output pipe of a reader that takes it whole, a splice at a time
 * (pv): such a reader is woken once a pipeful, and a pipeful of 512 KiB
 * wakes it twice as often as one of 1 MiB. cat grows its output pipe to
 * this on the reader's vote (FIO_VOTE_WHOLE); yes's tee strategy tries
 * it as one of its shapes (shape.h, FIO_SHAPE_GULP).
 */
#ifndef FIO_PIPE_GULP
#define FIO_PIPE_GULP ((size_t)1 << 20)
#endif

/*
 * vmsplice chunk = pipe capacity / this (GNU's development tree uses 4).
 * A pipeful a call is the fewest calls and never lost by much.
 */
#ifndef FIO_VMSPLICE_DIVISOR
#define FIO_VMSPLICE_DIVISOR 1
#endif

/*
 * write() size into a pipe when tee and vmsplice are refused: small
 * writes let writer and reader overlap and keep the source in L1. GNU's.
 */
#ifndef FIO_PIPE_WRITE_CHUNK
#define FIO_PIPE_WRITE_CHUNK ((size_t)8 << 10)
#endif

/*
 * The start of every repeated stream (repeat.c): write()s of whole
 * patterns filling FIO_START_CHUNK, GNU 9.1's BUFSIZ, until the reader
 * has taken FIO_START_BYTES more than the output pipe holds. Only then
 * are the pipe grown and the vmsplice or tee machinery built, with a
 * buffer of FIO_VMSPLICE_FIRST: a reader of a few lines, or of a pipeful,
 * never pays for it. A later start puts the set-up on the critical path
 * after GNU's development tree, grown at its first byte, has gained for
 * longer: 256 KiB cost up to 1.048x its time (at 420 KB), 128 KiB
 * 1.032x, 64 KiB 1.030x at 200 KB and at most 1.024x elsewhere (yes a |
 * head -c N, 400 runs, 6.18.44-fc-v1045; BENCHMARKS.md, "Decisions").
 */
#ifndef FIO_START_CHUNK
#define FIO_START_CHUNK ((size_t)8 << 10)
#endif
#ifndef FIO_START_BYTES
#define FIO_START_BYTES ((uint64_t)64 << 10)
#endif

/*
 * The bytes of one vmsplice() of yes's vmsplice() shape (tee.c, shape.h),
 * GNU's development tree's size: the whole output pipe a call lost to it
 * with every reader measured.
 */
#ifndef FIO_VMSPLICE_CHUNK
#define FIO_VMSPLICE_CHUNK ((size_t)128 << 10)
#endif

/*
 * The first buffer of the vmsplice() shape is FIO_VMSPLICE_FIRST, and the
 * one of FIO_VMSPLICE_CHUNK is made only once the stream has sent
 * FIO_VMSPLICE_STEP more (repeat.h, the stages): each new page costs a
 * fault of 2.5-3 us where a VM backs them (32 pages are 3% of a 300 KB
 * yes | head on 6.18.44-fc-v1045), and smaller calls cost about that
 * again each MB (BENCHMARKS.md, "Decisions").
 */
#ifndef FIO_VMSPLICE_FIRST
#define FIO_VMSPLICE_FIRST ((size_t)32 << 10)
#endif
#ifndef FIO_VMSPLICE_STEP
#define FIO_VMSPLICE_STEP ((uint64_t)2 << 20)
#endif

/*
 * write() size for outputs that are not pipes. Measurements were
 * inconclusive (the time is the kernel's); GNU cat's size, the smaller.
 */
#ifndef FIO_WRITE_CHUNK
#define FIO_WRITE_CHUNK ((size_t)128 << 10)
#endif

/*
 * Bytes per tee() round: a round that fills the output pipe wakes the
 * reader once a pipeful; smaller rounds wake it once a round, and a
 * wake-up is what some machines make dear.
 */
#ifndef FIO_TEE_ROUND
#define FIO_TEE_ROUND ((size_t)1 << 20)
#endif

/*
 * The reader's vote (vote.h, fio_vote_count): of the first FIO_VOTE_ROUNDS
 * rounds, half or more took FIO_VOTE_BITE splices or more to go out, and
 * the reader takes small bites: cat's file splices shrink to
 * FIO_SPLICE_BITE (pump.c). A count, not a timing: FIONREAD at a round's
 * start cannot tell the readers apart.
 */
#ifndef FIO_VOTE_ROUNDS
#define FIO_VOTE_ROUNDS 32u
#endif
#define FIO_VOTE_BITE 3u

/*
 * The probe that chooses the tee strategy's shape (shape.c describes
 * it): the bytes a window times, the windows a try, the windows before
 * the first probe after a choice, the probes a reader may flip in.
 */
#ifndef FIO_SHAPE_WINDOW_BYTES
#define FIO_SHAPE_WINDOW_BYTES ((uint64_t)16 << 20)
#endif
#ifndef FIO_SHAPE_WINDOWS
#define FIO_SHAPE_WINDOWS 3u
#endif
#ifndef FIO_SHAPE_GAP
#define FIO_SHAPE_GAP ((uint64_t)128)
#endif
#define FIO_SHAPE_FLIPS 3u
/* The percent a challenger's median must beat the best's by (shape.c). */
#ifndef FIO_SHAPE_MARGIN
#define FIO_SHAPE_MARGIN 15u
#endif

/*
 * splice() size per call from a pipe, and from a file into the private
 * pipe. Where a wake-up costs 30 us, a call that empties one pipe and
 * fills the next leaves both neighbours asleep until it ends; where it
 * costs 6 us, a pipeful a call wins. Half a pipe loses least on both.
 */
#ifndef FIO_SPLICE_CHUNK
#define FIO_SPLICE_CHUNK ((size_t)512 << 10)
#endif

/*
 * copy_file_range() between files takes its range of the output first
 * (pump.c, copy_step), at most this much: smaller ranges cost the copy
 * (1 MiB lost a tenth on ext4), and a shared output's other writers wait
 * behind a range of ours for no longer than one copy of it.
 */
#ifndef FIO_COPY_CHUNK
#define FIO_COPY_CHUNK ((size_t)64 << 20)
#endif

/*
 * The chunk from a regular file into a pipe once the reader has voted
 * for small bites: a reader that read()s 128 KiB at a time keeps its
 * writer busy instead of asleep on a full pipe.
 */
#ifndef FIO_SPLICE_BITE
#define FIO_SPLICE_BITE ((size_t)128 << 10)
#endif

/*
 * Regular files smaller than this, just opened, are read with one read()
 * into the pump's buffer (FIO_ONE_READ); larger ones go through the
 * kernel's zero-copy calls, whose setup costs more than a small copy.
 */
#ifndef FIO_SMALL_FILE
#define FIO_SMALL_FILE ((size_t)16 << 10)
#endif

/*
 * Reading small files ahead in a second thread (ahead.c): names a batch,
 * the window of batches in which the thread claims from the far end (at
 * most DEPTH - 1 wait), bytes of room a name (files larger on average
 * are left to the caller; DEPTH * FILES * ROOM bounds the memory at
 * 2 MiB), and the fewest names worth a thread.
 */
#ifndef FIO_AHEAD_FILES
#define FIO_AHEAD_FILES 64
#endif
#define FIO_AHEAD_DEPTH 16
#define FIO_AHEAD_ROOM	((size_t)2 << 10)
#ifndef FIO_AHEAD_MIN
#define FIO_AHEAD_MIN (2 * FIO_AHEAD_FILES)
#endif

/*
 * The writer's thread (writer.c) starts once FIO_WRITER_START bytes have
 * gone out: the thread and its spare buffers cost about 0.2 ms, which a
 * file of a few MB does not win back. The caller wakes it once
 * FIO_WRITER_WAKE buffers wait and, when all are taken, sleeps until
 * FIO_WRITER_LOW wait: half the wake-ups of one each.
 */
#ifndef FIO_WRITER_START
#define FIO_WRITER_START ((uint64_t)8 << 20)
#endif
#ifndef FIO_WRITER_WAKE
#define FIO_WRITER_WAKE 2u
#endif
#ifndef FIO_WRITER_LOW
#define FIO_WRITER_LOW 1u
#endif

/*
 * Pacing a pipe (pace.c, for cat and yes): at most FIO_PACE_LOOKS sleeps
 * before one splice, each between FIO_PACE_MIN_NS (the kernel's default
 * timer slack: a shorter sleep lasts that long anyway; also the one
 * sleep that learns a new reader's pace) and FIO_PACE_MAX_NS (a reader
 * that needs longer to take half a 512 KiB pipe reads under 13 MB/s and
 * wakes us too rarely to matter).
 */
#ifndef FIO_PACE_LOOKS
#define FIO_PACE_LOOKS 4
#endif
#define FIO_PACE_MIN_NS 50000u
#define FIO_PACE_MAX_NS 20000000u
/* Calls a reader that outran the timer twice in a row is left alone:
 * one look a thousand short splices costs a splicing reader nothing
 * measurable, and a reader of small bites, at 100 or more short splices
 * a chunk, is learnt again within a few chunks. */
#ifndef FIO_PACE_SKIP
#define FIO_PACE_SKIP 1024u
#endif

/*
 * A full pipe (pace.c): retried without sleeping, the CPU yielded between
 * tries, for FIO_SPIN_NS at most, about what the wake-up the sleep would
 * cost (2-36 us on the machines measured, BENCHMARKS.md, "FIO_SPIN_NS"),
 * so that a spin that fails costs at most what it could have saved. Two
 * that fail in a row (a reader slower than that, or one asleep) leave the
 * next FIO_SPIN_SKIP full pipes to the kernel.
 */
#ifndef FIO_SPIN_NS
#define FIO_SPIN_NS 50000u
#endif
#define FIO_SPIN_SKIP 1024u

#endif
