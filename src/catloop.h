/* SPDX-License-Identifier: MIT */
#ifndef CATLOOP_H
#define CATLOOP_H

/*
 * What the formatter's loops share (catfmt.c, catnum.c): room in the
 * output buffer, and the line counter. Private to the formatter.
 */

#include <string.h>

#include "catfmt.h"

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

/* The same for a loop that keeps the output position in dst. */
static inline char *
room_at(struct catfmt *f, char *dst)
{
	f->out->o = dst;
	make_room(f);
	return f->out->o;
}

/* Carry into the next digits, in numbuf, and refresh num_word. */
void catnum_carry(struct catfmt *f);

/*
 * Write the line number and count one more. The counter lives as ASCII
 * digits; its first 16 bytes are also kept as two words, and the usual
 * increment (no carry) is one add to a word: a byte store followed by a
 * 16-byte load of the same bytes stalls the CPU on every line (20% of
 * `cat -n`'s time), word stores followed by word loads do not.
 */
static inline __attribute__((always_inline)) char *
put_number_at(struct catfmt *f, char *d)
{
	size_t len = (size_t)(NUM_LAST(f) + 2 - f->num_start), last = len - 2;
	unsigned shift = 8 * (unsigned)(last % 8), tens;
	uint64_t *w = &f->num_word[last / 8];

	memcpy(d, f->num_word, sizeof f->num_word);
	if (len > sizeof f->num_word) {
		memcpy(d + sizeof f->num_word,
		       f->num_start + sizeof f->num_word,
		       len - sizeof f->num_word);
		memcpy(f->num_start, f->num_word, sizeof f->num_word);
		catnum_carry(f);
		return d + len;
	}
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	shift = 56 - shift;
	tens = shift + 8;
#else
	tens = shift - 8;
#endif
	/*
	 * A carry into the tens digit, 9 lines in 100, is one add too when
	 * that digit is 0-8 in the same word (a space would need the
	 * number to widen): the slow path was 21% of cat -n.
	 */
	if ((*w >> shift & 0xff) != '9')
		*w += (uint64_t)1 << shift;
	else if (last % 8 != 0 && (*w >> tens & 0xff) - '0' < 9)
		*w += ((uint64_t)1 << tens) - ((uint64_t)9 << shift);
	else
		catnum_carry(f);
	return d + len;
}

/* The loop for -n or -b and no other option (catnum.c). */
void catnum_portable(struct catfmt *f, const char *p, const char *end);
#ifdef __x86_64__
void catnum_avx2(struct catfmt *f, const char *p, const char *end);
#endif

#endif
