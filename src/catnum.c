/* SPDX-License-Identifier: MIT */
/*
 * cat's line counter, and the loop for -n or -b with no other option:
 * the two users of cat's formatting meet most, and the only ones whose
 * every line needs the same work (a number, then the line as it is).
 */
#include "config.h"

#include <string.h>

#include "catloop.h"

void
catnum_carry(struct catfmt *f)
{
	char *d = NUM_LAST(f);

	memcpy(f->num_start, f->num_word, sizeof f->num_word);
	while (*d == '9')
		*d-- = '0';
	if (*d == ' ')
		*d = '1';
	else
		(*d)++;
	if (d < f->num_start)
		f->num_start = d;
	memcpy(f->num_word, f->num_start, sizeof f->num_word);
}

void
catfmt_number_from(struct catfmt *f, uint64_t first)
{
	char digits[24];
	int n = 0, i;

	do
		digits[n++] = (char)('0' + first % 10);
	while ((first /= 10) > 0);
	memset(f->numbuf, ' ', sizeof f->numbuf);
	NUM_LAST(f)[1] = '\t';
	for (i = 0; i < n; i++)
		NUM_LAST(f)[-i] = digits[i];
	f->num_start = n > 6 ? NUM_LAST(f) + 1 - n : NUM_LAST(f) - 5;
	memcpy(f->num_word, f->num_start, sizeof f->num_word);
}

/*
 * num_word in registers for the loop below. put_number_at keeps it in
 * memory, and its 16-byte load of the words that the previous line's
 * add had just stored cannot be forwarded from that store: the load
 * waits until the store buffer, full of the output's moves, drains (27%
 * of the loop's samples; fc-v669, 2026-11-25). Here a number is two
 * stores from registers, and counting one more adds one0/one1 (the one
 * that holds the last digit; the other is 0), or on a carry into a
 * tens digit 0-8 in the same word, ten0/ten1 minus 9 ones: memory only
 * on a carry past the tens (1 line in 100), or for numbers wider than
 * 16 columns (from 10^15), which go through put_number_at.
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
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
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

static inline __attribute__((always_inline)) char *
counter_put(struct catfmt *f, struct counter *c, char *d)
{
	unsigned tens;

	if (c->len > sizeof f->num_word) {
		d = put_number_at(f, d);
		counter_load(f, c);
		return d;
	}
	memcpy(d, &c->w0, sizeof c->w0);
	memcpy(d + sizeof c->w0, &c->w1, sizeof c->w1);
	d += c->len;
	if (++c->ones < 10) {
		c->w0 += c->one0;
		c->w1 += c->one1;
		return d;
	}
	tens = (unsigned)((c->one0 ? c->w0 : c->w1) >> c->tens_shift & 0xff);
	if ((c->ten0 | c->ten1) != 0 && tens - '0' < 9) {
		c->w0 += c->ten0 - 9 * c->one0;
		c->w1 += c->ten1 - 9 * c->one1;
		c->ones = 0;
		return d;
	}
	f->num_word[0] = c->w0;
	f->num_word[1] = c->w1;
	catnum_carry(f);
	counter_load(f, c);
	return d;
}

/*
 * With no option but -n or -b, a line's number can go out as soon as the
 * LF before it has: the byte after the LF is there, and (-b) is not an LF
 * itself. So each LF is one step with no branch on the line (copy up to
 * it in two 32-byte moves, then the number), where lines_with() in
 * catfmt.c asks of each line whether it is empty and which options are
 * on. newlines keeps catfmt.c's meaning: -1 once the line being written
 * has what it needs at its start, 0 at a line start that has nothing yet.
 * fc-v669 (2026-11-25), 500 MB of C headers on tmpfs to /dev/null, ms of
 * CPU, medians of 8 interleaved runs: -n 234 with lines_with(), 207 with
 * this loop; -b 229 and 211.
 */
static inline __attribute__((always_inline)) void
numbered_with(uint64_t (*lf_marks)(const char *, const struct wanted *),
	      struct catfmt *f, const char *p, const char *end)
{
	const struct wanted w = f->wanted;
	const int nonblank = f->opt.nonblank;
	char *dst = f->out->o, *const limit = f->out->limit;
	const char *seg = p, *nl, *chunk_end;
	int state = f->newlines;
	uint64_t bits;
	struct counter c;

	counter_load(f, &c);
	if (p < end && state >= 0 && (!nonblank || *p != '\n')) {
		dst = room_at(f, dst);
		dst = counter_put(f, &c, dst);
		state = -1;
	}
	for (; end - p >= 64; p = chunk_end) {
		chunk_end = p + 64;
		bits = lf_marks(p, &w);
		for (; bits != 0; bits &= bits - 1) {
			nl = p + __builtin_ctzll(bits);
			if (dst >= limit)
				dst = room_at(f, dst);
			/* seg is in this chunk: at most 64 bytes. */
			memcpy(dst, seg, 32);
			memcpy(dst + 32, seg + 32, 32);
			dst += nl + 1 - seg;
			seg = nl + 1;
			state = 0;
			if (seg == end)
				break;
			if (!nonblank || *seg != '\n') {
				dst = counter_put(f, &c, dst);
				state = -1;
			}
		}
		if (seg < chunk_end) {
			if (dst >= limit)
				dst = room_at(f, dst);
			memcpy(dst, seg, 32);
			memcpy(dst + 32, seg + 32, 32);
			dst += chunk_end - seg;
			seg = chunk_end;
			state = -1;
		}
	}
	/* Under 64 bytes left: a byte at a time. */
	for (; p < end; p++) {
		if (dst >= limit)
			dst = room_at(f, dst);
		if (state >= 0 && (!nonblank || *p != '\n'))
			dst = counter_put(f, &c, dst);
		*dst++ = *p;
		state = *p == '\n' ? 0 : -1;
	}
	f->num_word[0] = c.w0;
	f->num_word[1] = c.w1;
	f->out->o = dst;
	f->newlines = state;
}

void
catnum_portable(struct catfmt *f, const char *p, const char *end)
{
	numbered_with(marks_portable, f, p, end);
}

#ifdef __x86_64__
__attribute__((target("avx2"))) void
catnum_avx2(struct catfmt *f, const char *p, const char *end)
{
	numbered_with(marks_lf_avx2, f, p, end);
}
#endif
