/* SPDX-License-Identifier: MIT */
/*
 * The loop for -v and -T without -n, -b or -s (so also -A, -e, -t, -vE,
 * -vT), on CPUs with AVX2. On ASCII every byte they change shows as two:
 * a control byte c as '^' and c ^ 0x40 (DEL as "^?", a TAB as "^I"), an
 * LF under -E as "$\n". So a 32-byte block becomes a body (its bytes,
 * with c ^ 0x40 where they show as ^X) and a prefix ('^' or '$'), and a
 * shuffle per 8 bytes, from a table indexed by which of them show as
 * two, interleaves the two: no branch per byte shown, where shown_with()
 * in format.c takes a step per byte and a mispredicted exit per 64. A
 * 64-byte chunk with bytes from 0x80 up (-v: M-..., 3 or 4 bytes) goes
 * shown_with()'s way, or a byte at a time where they are dense. It
 * was faster than shown_with() on every text measured and never slower
 * (dense bytes from 0x80 up are its worst case: parity). -E without -v
 * stays with shown_with(): its LFs are in most blocks, and the look for
 * CR LF made this loop the slower. The figures: BENCHMARKS.md,
 * "Decisions", "The -v and -T loop". Where the CPU has AVX-512 VBMI2,
 * wide.c's loop runs instead, for -E too.
 */
#include "config.h"

#include <string.h>

#include "loop.h"

void
catshow_spread_init(struct catfmt *f)
{
	unsigned m, i, k;

	/* Lanes 0-7 hold the body of 8 bytes, lanes 8-15 their prefixes. */
	for (m = 0; m < 256; m++) {
		for (i = k = 0; i < 8; i++) {
			if (m >> i & 1)
				f->spread[m][k++] = (unsigned char)(8 + i);
			f->spread[m][k++] = (unsigned char)i;
		}
		for (; k < 16; k++)
			f->spread[m][k] = 0x80;
	}
}

#ifdef __x86_64__
#include <immintrin.h>

#define AVX2 __attribute__((always_inline, target("avx2,popcnt"))) inline

/*
 * The constants classify() compares with, made once: left to itself the
 * compiler rebuilt some in the loop, 2 or 3 instructions each a block.
 */
struct bytes {
	__m256i lf, tab, space, del, x40, caret, dollar;
};

/*
 * Which bytes of the 32 at p show as two, as a bit mask; their body and
 * prefix; *high, under -v, the bytes from 0x80 up.
 */
static AVX2 uint32_t
classify(const char *p, const struct bytes *k, int nonprint, int ends, int tabs,
	 __m256i *body, __m256i *prefix, uint32_t *high)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i lf = _mm256_cmpeq_epi8(v, k->lf);
	__m256i tab = _mm256_cmpeq_epi8(v, k->tab);
	__m256i ctl = tabs ? tab : _mm256_setzero_si256();

	*high = 0;
	if (nonprint) {
		/* Signed: also 0x80-0xff, which *high sends the slow way. */
		ctl = _mm256_or_si256(_mm256_cmpgt_epi8(k->space, v),
				      _mm256_cmpeq_epi8(v, k->del));
		ctl = _mm256_andnot_si256(tabs ? lf : _mm256_or_si256(lf, tab),
					  ctl);
		*high = (uint32_t)_mm256_movemask_epi8(v);
	}
	if (!ends)
		lf = _mm256_setzero_si256();
	*body = _mm256_xor_si256(v, _mm256_and_si256(ctl, k->x40));
	*prefix = _mm256_xor_si256(k->caret, _mm256_and_si256(lf, k->dollar));
	return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(ctl, lf));
}

/* The shuffles for bytes 8a-8a+7 and 8b-8b+7 of the block, one a lane. */
static AVX2 __m256i
spread2(const struct catfmt *f, uint32_t m, unsigned a, unsigned b)
{
	return _mm256_inserti128_si256(
	    _mm256_castsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)
				    f->spread[(size_t)(m >> 8 * a & 0xff)])),
	    _mm_loadu_si128((const __m128i *)(const void *)
				f->spread[(size_t)(m >> 8 * b & 0xff)]),
	    1);
}

/*
 * Write the block, 8 bytes and their prefixes at a time: each 16-byte
 * store may run 8 bytes past what it adds, which the next one, or the
 * slack of CATFMT_SLACK, takes.
 */
static AVX2 char *
put_block(const struct catfmt *f, char *dst, uint32_t m, __m256i body,
	  __m256i prefix)
{
	/* unpack: lane 0 holds bytes 0-7 or 8-15, lane 1 16-23 or 24-31. */
	__m256i even = _mm256_shuffle_epi8(_mm256_unpacklo_epi64(body, prefix),
					   spread2(f, m, 0, 2));
	__m256i odd = _mm256_shuffle_epi8(_mm256_unpackhi_epi64(body, prefix),
					  spread2(f, m, 1, 3));

	_mm_storeu_si128((__m128i *)(void *)dst, _mm256_castsi256_si128(even));
	dst += 8 + (size_t)__builtin_popcount(m & 0xff);
	_mm_storeu_si128((__m128i *)(void *)dst, _mm256_castsi256_si128(odd));
	dst += 8 + (size_t)__builtin_popcount(m >> 8 & 0xff);
	_mm_storeu_si128((__m128i *)(void *)dst,
			 _mm256_extracti128_si256(even, 1));
	dst += 8 + (size_t)__builtin_popcount(m >> 16 & 0xff);
	_mm_storeu_si128((__m128i *)(void *)dst,
			 _mm256_extracti128_si256(odd, 1));
	return dst + 8 + (size_t)__builtin_popcount(m >> 24);
}

/* Whether the 64 bytes at p hold one from 0x80 up. */
static AVX2 int
high_in(const char *p)
{
	return _mm256_movemask_epi8(_mm256_or_si256(
		   _mm256_loadu_si256((const __m256i *)(const void *)p),
		   _mm256_loadu_si256(
		       (const __m256i *)(const void *)(p + 32)))) != 0;
}

/* A block without bytes from 0x80 up. */
static AVX2 char *
put_ascii(const struct catfmt *f, char *dst, const char *p,
	  const struct bytes *k, int nonprint, int ends)
{
	__m256i body, prefix;
	uint32_t high, m;

	m = classify(p, k, nonprint, ends, f->opt.tabs, &body, &prefix, &high);
	if (!ends && m == 0) {
		memcpy(dst, p, 32);
		return dst + 32;
	}
	return put_block(f, dst, m, body, prefix);
}

/*
 * 64 bytes a step, so that a chunk with bytes from 0x80 up costs one
 * loop exit, as in shown_with(). Without -E, where bytes to show are
 * rare, a block with none is copied as it is.
 */
static AVX2 void
shown_blocks(struct catfmt *f, const char *p, const char *end, int nonprint,
	     int ends)
{
	char *dst = f->out->o, *limit = f->out->limit;
	struct bytes k;
	__m256i body, prefix;
	uint32_t m0, m1, high0, high1;
	uint64_t bits;

	k.lf = _mm256_set1_epi8('\n');
	k.tab = _mm256_set1_epi8('\t');
	k.space = _mm256_set1_epi8(0x20);
	k.del = _mm256_set1_epi8(0x7f);
	k.x40 = _mm256_set1_epi8(0x40);
	k.caret = _mm256_set1_epi8('^');
	k.dollar = _mm256_set1_epi8('^' ^ '$');
	__asm__(""
		: "+x"(k.lf), "+x"(k.tab), "+x"(k.space), "+x"(k.del),
		  "+x"(k.x40), "+x"(k.caret), "+x"(k.dollar));
	for (; end - p >= 64; p += 64) {
		if (dst >= limit)
			dst = room_at(f, dst, &limit);
		if (!nonprint || !high_in(p)) {
			dst = put_ascii(f, dst, p, &k, nonprint, ends);
			dst = put_ascii(f, dst, p + 32, &k, nonprint, ends);
			continue;
		}
		m0 = classify(p, &k, 1, ends, f->opt.tabs, &body, &prefix,
			      &high0);
		m1 = classify(p + 32, &k, 1, ends, f->opt.tabs, &body, &prefix,
			      &high1);
		bits = (uint64_t)(m1 | high1) << 32 | (m0 | high0);
		if (__builtin_popcountll(bits) <= SHOW_FEW)
			dst = show_chunk(f, dst, p, bits, p, 0);
		else
			dst = show_bytes(f, dst, p, p + 64);
	}
	if (dst >= limit)
		dst = room_at(f, dst, &limit);
	f->out->o = show_bytes(f, dst, p, end);
}

/* -T alone, or -v with or without others but -n, -b, -s. */
__attribute__((target("avx2,popcnt"))) void
catshow_avx2(struct catfmt *f, const char *p, const char *end)
{
	if (!f->opt.nonprint)
		shown_blocks(f, p, end, 0, 0);
	else if (f->opt.ends)
		shown_blocks(f, p, end, 1, 1);
	else
		shown_blocks(f, p, end, 1, 0);
}
#endif
