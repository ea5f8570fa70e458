/* SPDX-License-Identifier: MIT */
/*
 * cat's line counter, and the loop for -n or -b with no other option:
 * the two users of cat's formatting meet most, and the only ones whose
 * every line needs the same work (a number, then the line as it is).
 */
#include "config.h"

#include <string.h>

#include "loop.h"

void
catnum_carry(struct catfmt *f)
{
	char *d = NUM_LAST(f);

	words_store(f);
	while (*d == '9')
		*d-- = '0';
	if (*d == ' ')
		*d = '1';
	else
		(*d)++;
	if (d < f->num_start)
		f->num_start = d;
	words_load(f);
}

char *
catnum_put_wide(struct catfmt *f, char *d)
{
	size_t len = (size_t)(NUM_LAST(f) + 2 - f->num_start);

	words_store(f);
	memcpy(d, f->num_start, len);
	catnum_carry(f);
	return d + len;
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
	words_load(f);
}

/*
 * With no option but -n or -b, a line's number can go out as soon as the
 * LF before it has: the byte after the LF is there, and (-b) is not an LF
 * itself. So each LF is one step with no branch on the line (copy up to
 * it in two 32-byte moves, then the number), where lines_with() in
 * format.c asks of each line whether it is empty and which options are
 * on. newlines keeps format.c's meaning: -1 once the line being written
 * has what it needs at its start, 0 at a line start that has nothing yet
 * (a chunk's bytes after its last LF are never such a start: that LF's
 * step numbered them, or the next LF is one of them). It took a tenth
 * less CPU than lines_with() for -n and -b (BENCHMARKS.md, "Decisions",
 * "The -n and -b loop").
 */
/* GNU's rule for -n and -b: which lines get a number, by their first byte. */
static inline __attribute__((always_inline)) int
numbered(int nonblank, char first)
{
	return !nonblank || first != '\n';
}

static inline __attribute__((always_inline)) void
numbered_with(uint64_t (*lf_marks)(const char *, const struct wanted *),
	      void (*copy64)(char *, const char *), struct catfmt *f,
	      const char *p, const char *end)
{
	const struct wanted w = f->wanted;
	const int nonblank = f->opt.nonblank;
	char *dst = f->out->o, *limit = f->out->limit;
	const char *seg = p, *nl, *chunk_end;
	int state = f->newlines;
	uint64_t bits;
	struct counter c;

	counter_load(f, &c);
	if (p < end && state >= 0 && numbered(nonblank, *p)) {
		dst = room_at(f, dst, &limit);
		dst = counter_put(f, &c, dst);
		state = -1;
	}
	for (; end - p >= 64; p = chunk_end) {
		chunk_end = p + 64;
		bits = lf_marks(p, &w);
		for (; bits != 0; bits &= bits - 1) {
			nl = p + __builtin_ctzll(bits);
			if (dst >= limit)
				dst = room_at(f, dst, &limit);
			/* seg is in this chunk: at most 64 bytes. */
			copy64(dst, seg);
			dst += nl + 1 - seg;
			seg = nl + 1;
			state = 0;
			if (seg == end)
				break;
			if (numbered(nonblank, *seg)) {
				dst = counter_put(f, &c, dst);
				state = -1;
			}
		}
		if (seg < chunk_end) {
			if (dst >= limit)
				dst = room_at(f, dst, &limit);
			copy64(dst, seg);
			dst += chunk_end - seg;
			seg = chunk_end;
		}
	}
	/* Under 64 bytes left: a byte at a time. */
	for (; p < end; p++) {
		if (dst >= limit)
			dst = room_at(f, dst, &limit);
		if (state >= 0 && numbered(nonblank, *p))
			dst = counter_put(f, &c, dst);
		*dst++ = *p;
		state = *p == '\n' ? 0 : -1;
	}
	counter_save(f, &c);
	f->out->o = dst;
	f->newlines = state;
}

void
catnum_portable(struct catfmt *f, const char *p, const char *end)
{
	numbered_with(marks_portable, copy64_portable, f, p, end);
}

#ifdef __x86_64__
__attribute__((target("avx2"))) void
catnum_avx2(struct catfmt *f, const char *p, const char *end)
{
	numbered_with(marks_lf_avx2, copy64_avx2, f, p, end);
}
#endif
