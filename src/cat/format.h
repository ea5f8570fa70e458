/* SPDX-License-Identifier: MIT */
#ifndef CATFMT_H
#define CATFMT_H

/*
 * cat's formatting engine: -n -b -s -v -E -T (and -A -e -t) applied to
 * buffers of input, one after another, exactly as GNU cat applies them
 * (line numbers and squeezing go on from one buffer and one file to the
 * next). It knows nothing of files: cat.c reads, this formats into an
 * output buffer and calls its flush when the buffer fills.
 */

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

/*
 * cat's read() size, and the size at which its output buffer is written:
 * GNU cat's 128 KiB, which stays in L2 beside the output buffer; larger
 * was faster on one machine but costs peak RSS past GNU HEAD's plus 1 MiB
 * (BENCHMARKS.md, "CAT_BUF").
 */
#ifndef CAT_BUF /* a guard only for bench/sweep.sh's variants */
#define CAT_BUF ((size_t)128 << 10)
#endif

/*
 * Bytes a loop may read past the end of the buffer it is given: one
 * 32-byte block read from the last byte, or two 32-byte moves from the
 * last byte of a 64-byte chunk. Callers allocate them, readable.
 */
#define CATFMT_OVERREAD 64

/*
 * Bytes one step of a loop may write past the point where it checked for
 * room: the most is the loop without line state, whose 64-byte chunk may
 * hold 64 bytes shown in 4 each (M-^A) and end with two 32-byte moves,
 * 320 bytes; a line number (at most 24 columns, moved as 16 + the rest)
 * with ^M$ and a 64-byte segment stays under it too. 512 is the next power
 * of two.
 */
#define CATFMT_SLACK 512

/* cat's output buffer: cat.c writes it, the engine fills it. */
struct cat_out {
	char *buf, *o; /* buf[0..o) waits for the output */
	char *limit;   /* the last point a step may start: size - SLACK */
	void (*flush)(struct cat_out *); /* write buf[0..o); then buf may be
					  * another buffer, o = buf */
};

/* The formatting options, as the letters set them (-b sets number too). */
struct cat_options {
	int number, nonblank, squeeze, ends, tabs, nonprint;
};

struct catfmt {
	struct cat_options opt;
	struct cat_out *out;
	int newlines;	/* -1 inside a line, else empty lines in a row */
	int pending_cr; /* -E: a CR ended the last buffer; an LF may follow */
	char numbuf[24 + 16]; /* "     1\t", right-aligned; then padding */
	char *num_start;      /* first printed column (widens past 999999) */
	uint64_t num_word[2]; /* the 16 bytes from num_start, see loop.h */
	struct {
		char s[4];
		unsigned char len;
	} shown[256]; /* how each byte shows (-v, -T; an LF for -E) */
	unsigned char spread[256][16]; /* show.c's shuffles */
	struct wanted wanted;
	void (*format)(struct catfmt *, const char *, const char *);
};

/*
 * Loops catfmt_init may be asked for (FASTIO_CAT_SCAN, the tests), so that
 * amd64 runs every loop that some CPU runs.
 */
enum catfmt_scan {
	CATFMT_SCAN_BEST = 0,	  /* AVX-512 or AVX2 where the CPU has it */
	CATFMT_SCAN_PORTABLE = 8, /* the loops of every other CPU */
	CATFMT_SCAN_GENERAL = 16, /* the portable general loop for all */
	CATFMT_SCAN_AVX2 = 32	  /* AVX2's loops also where AVX-512's is */
};

/* Set f up for opt, writing to out, with the loops scan asks for. */
void catfmt_init(struct catfmt *f, const struct cat_options *opt,
		 struct cat_out *out, enum catfmt_scan scan);

/* Number the next line first (the tests; catfmt_init starts at 1). */
void catfmt_number_from(struct catfmt *f, uint64_t first);

/*
 * Format [p, end), with CATFMT_OVERREAD readable bytes past end. A CR that
 * ends it is held back until the next buffer shows whether an LF follows.
 */
void catfmt_buffer(struct catfmt *f, const char *p, const char *end);

/* End of all input: a CR held back goes out as it is. */
void catfmt_finish(struct catfmt *f);

#endif
