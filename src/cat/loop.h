/* SPDX-License-Identifier: MIT */
#ifndef CATLOOP_H
#define CATLOOP_H

/*
 * What the formatter's loops share (format.c, number.c, show.c,
 * wide.c): room in the output buffer, a chunk shown mark by mark, and
 * the line counter. Private to the formatter.
 */

#include <string.h>

#include "format.h"

#define NUM_LAST(f) ((f)->numbuf + 22) /* the last digit; the TAB follows */

/* Room for one more step of a loop (see CATFMT_SLACK). */
static inline void
make_room(struct catfmt *f)
{
	struct cat_out *out = f->out;
	char last;

	if (out->o < out->limit)
		return;
	/* The last byte stays: it may be a CR that an LF turns into ^M. */
	last = *--out->o;
	out->flush(out);
	*out->o++ = last;
}

/*
 * The same for a loop that keeps the output position in dst and the
 * buffer's limit in *limit: a flush may hand over another buffer (the
 * writer's, in fastio.h).
 */
static inline char *
room_at(struct catfmt *f, char *dst, char **limit)
{
	f->out->o = dst;
	make_room(f);
	*limit = f->out->limit;
	return f->out->o;
}

/*
 * One 64-byte chunk at p whose marks are bits (begin: the start of the
 * buffer, for -E's CR LF when crlf): the bytes between marks in two
 * 32-byte moves, each mark as shown[] says. Shared by shown_with() in
 * format.c and show.c's chunks with bytes from 0x80 up.
 */
static inline __attribute__((always_inline)) char *
show_chunk(const struct catfmt *f, char *dst, const char *p, uint64_t bits,
	   const char *begin, int crlf)
{
	const char *seg = p, *at;
	unsigned char c;

	for (; bits != 0; bits &= bits - 1, seg = at + 1) {
		at = p + __builtin_ctzll(bits);
		copy64_portable(dst, seg);
		dst += at - seg;
		c = (unsigned char)*at;
		/* GNU shows CR LF as ^M$, even without -v. */
		if (crlf && c == '\n' && at > begin && at[-1] == '\r') {
			dst[-1] = '^';
			*dst++ = 'M';
		}
		memcpy(dst, f->shown[c].s, 4);
		dst += f->shown[c].len;
	}
	copy64_portable(dst, seg);
	return dst + (p + 64 - seg);
}

/* Each byte of [p, end) as shown[] says. */
static inline char *
show_bytes(const struct catfmt *f, char *dst, const char *p, const char *end)
{
	unsigned char c;

	for (; p < end; p++) {
		c = (unsigned char)*p;
		memcpy(dst, f->shown[c].s, 4);
		dst += f->shown[c].len;
	}
	return dst;
}

/*
 * show.c and wide.c send a chunk with bytes from 0x80 up (-v) one
 * step per byte to show (show_chunk) while they are at most this many,
 * as in Western text in UTF-8, and one byte at a time past that.
 */
#define SHOW_FEW 24

/* Carry into the next digits, in numbuf, and refresh num_word. */
void catnum_carry(struct catfmt *f);

/* Write a number wider than num_word (from 10^15) and count one more. */
char *catnum_put_wide(struct catfmt *f, char *d);

/*
 * The counter's words hold their digits in memory's order, so their
 * arithmetic depends on byte order (WORDS_BIG). A test build with
 * CATFMT_SWAPPED loads and stores them byte-reversed and takes the other
 * order's arithmetic, so that amd64 runs s390x's too.
 */
#if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != defined(CATFMT_SWAPPED)
#define WORDS_BIG 1
#else
#define WORDS_BIG 0
#endif

static inline __attribute__((always_inline)) uint64_t
word_load(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof w);
#ifdef CATFMT_SWAPPED
	w = __builtin_bswap64(w);
#endif
	return w;
}

static inline __attribute__((always_inline)) void
word_store(char *p, uint64_t w)
{
#ifdef CATFMT_SWAPPED
	w = __builtin_bswap64(w);
#endif
	memcpy(p, &w, sizeof w);
}

/* numbuf's 16 bytes from num_start to num_word, and back. */
static inline void
words_load(struct catfmt *f)
{
	f->num_word[0] = word_load(f->num_start);
	f->num_word[1] = word_load(f->num_start + 8);
}

static inline void
words_store(struct catfmt *f)
{
	word_store(f->num_start, f->num_word[0]);
	word_store(f->num_start + 8, f->num_word[1]);
}

/*
 * The line counter lives as ASCII digits in numbuf; its first 16 bytes are
 * also kept as two words, num_word, and a loop holds them in registers as
 * a struct counter. A number is then two 8-byte stores, and counting one
 * more adds one0/one1 (the one that holds the last digit; the other is
 * 0), or on a carry into a tens digit 0-8 in the same word ten0/ten1
 * minus 9 ones: numbuf is touched only on a carry past the tens (1 line
 * in 100) or for numbers wider than 16 columns. Memory is the enemy here:
 * a 16-byte load of the words that the previous line's 8-byte add had
 * just stored cannot be forwarded from that store, and waits until the
 * store buffer, full of the output's moves, drains; a byte store followed
 * by such a load does the same. Either was a fifth or more of cat -n's
 * time (BENCHMARKS.md, "Decisions", "The -n and -b loop").
 */
struct counter {
	uint64_t w0, w1, one0, one1, ten0, ten1;
	size_t len;
	unsigned ones, tens_shift;
};

static inline __attribute__((always_inline)) void
counter_load(const struct catfmt *f, struct counter *c)
{
	size_t last;
	unsigned shift;

	c->w0 = f->num_word[0];
	c->w1 = f->num_word[1];
	c->len = (size_t)(NUM_LAST(f) + 2 - f->num_start);
	last = c->len - 2;
	shift = 8 * (unsigned)(last % 8);
#if WORDS_BIG
	shift = 56 - shift;
	c->tens_shift = shift + 8;
#else
	c->tens_shift = shift - 8;
#endif
	c->one0 = last < 8 ? (uint64_t)1 << shift : 0;
	c->one1 = last < 8 ? 0 : (uint64_t)1 << shift;
	/* A tens digit in the other word takes the slow path. */
	c->ten0 = last < 8 && last % 8 != 0 ? (uint64_t)1 << c->tens_shift : 0;
	c->ten1 = last >= 8 && last % 8 != 0 ? (uint64_t)1 << c->tens_shift : 0;
	c->ones = (unsigned)((last < 8 ? c->w0 : c->w1) >> shift & 0xff) - '0';
}

static inline __attribute__((always_inline)) void
counter_save(struct catfmt *f, const struct counter *c)
{
	f->num_word[0] = c->w0;
	f->num_word[1] = c->w1;
}

/* Write the line number at d and count one more; returns past it. */
static inline __attribute__((always_inline)) char *
counter_put(struct catfmt *f, struct counter *c, char *d)
{
	unsigned tens;

	if (c->len > sizeof f->num_word) {
		d = catnum_put_wide(f, d);
		counter_load(f, c);
		return d;
	}
	word_store(d, c->w0);
	word_store(d + 8, c->w1);
	d += c->len;
	if (++c->ones < 10) {
		c->w0 += c->one0;
		c->w1 += c->one1;
		return d;
	}
	/* Only then is tens_shift inside the word. */
	if ((c->ten0 | c->ten1) != 0) {
		tens = (unsigned)((c->one0 ? c->w0 : c->w1) >> c->tens_shift &
				  0xff);
		if (tens - '0' < 9) {
			c->w0 += c->ten0 - 9 * c->one0;
			c->w1 += c->ten1 - 9 * c->one1;
			c->ones = 0;
			return d;
		}
	}
	counter_save(f, c);
	catnum_carry(f);
	counter_load(f, c);
	return d;
}

/*
 * The same for a loop that keeps no counter of its own: num_word comes
 * from memory in two 8-byte loads, which the two 8-byte stores of the
 * line before do forward.
 */
static inline __attribute__((always_inline)) char *
put_number_at(struct catfmt *f, char *d)
{
	struct counter c;

	counter_load(f, &c);
	d = counter_put(f, &c, d);
	counter_save(f, &c);
	return d;
}

/* The loop for -v or -T without line state (show.c), and its table. */
void catshow_spread_init(struct catfmt *f);
#ifdef __x86_64__
void catshow_avx2(struct catfmt *f, const char *p, const char *end);
#endif

/* The loop for -v, -E, -T without line state on AVX-512 (wide.c). */
#ifdef __x86_64__
void catwide_avx512(struct catfmt *f, const char *p, const char *end);
#endif

/* The loop for -n or -b and no other option (number.c). */
void catnum_portable(struct catfmt *f, const char *p, const char *end);
#ifdef __x86_64__
void catnum_avx2(struct catfmt *f, const char *p, const char *end);
#endif

#endif
