/* SPDX-License-Identifier: MIT */
#ifndef CATSCAN_H
#define CATSCAN_H

/*
 * The scanners of cat's formatting loops (catfmt.c), always inlined into
 * the loop that uses them so that their constants stay in registers:
 * portable (8 bytes, or a table for 64), SSE2 (16 bytes, every x86-64)
 * and AVX2 (32 and 64 bytes, chosen at run time). Each reads a whole
 * block: the loops are given CATFMT_OVERREAD readable bytes past a buffer.
 */

#include <stdint.h>
#include <string.h>

/*
 * The formatting loop copies a block of input at a time and asks where
 * the first byte needing work is: LF always, TAB for -T, and for -v every
 * byte below 0x20 or from 0x7f up (shown[] maps TAB and the rest back).
 * The scanners below compare a block with four bytes: equal to a, b or d,
 * or (as a signed byte) below "below", which for -v catches 0x00-0x1f and
 * 0x80-0xff at once and otherwise is -128 and catches nothing.
 */
struct wanted {
	char a, b, d, below;
	const unsigned char *marked; /* the portable marks: 1 for each */
};

/*
 * Portable scanner: 8 bytes with the usual bit tricks. The lowest flagged
 * byte is always a true one: a borrow only travels upwards from a byte
 * that is flagged itself.
 */
#define ONES ((uint64_t)0x0101010101010101u)
static inline __attribute__((always_inline)) uint64_t
zero_byte(uint64_t x)
{
	return (x - ONES) & ~x;
}

static inline __attribute__((always_inline)) unsigned
scan8(const char *p, char *d, const struct wanted *w)
{
	uint64_t x, m, below = ONES * (unsigned char)w->below;

	memcpy(&x, p, 8);
	memcpy(d, &x, 8);
	m = zero_byte(x ^ (ONES * (unsigned char)w->a)) |
	    zero_byte(x ^ (ONES * (unsigned char)w->b)) |
	    zero_byte(x ^ (ONES * (unsigned char)w->d));
	if (w->below != -128)
		m |= ((x - below) & ~x) | x;
	m &= ONES << 7;
	return m != 0 ? (unsigned)__builtin_ctzll(m) >> 3 : 8;
}

/*
 * 64 bytes from s to d in two 32-byte moves, as the loops copy the bytes
 * between marks.
 */
static inline __attribute__((always_inline)) void
copy64_portable(char *d, const char *s)
{
	memcpy(d, s, 32);
	memcpy(d + 32, s + 32, 32);
}

/* Portable marks: one table lookup a byte. */
static inline __attribute__((always_inline)) uint64_t
marks_portable(const char *p, const struct wanted *w)
{
	uint64_t m = 0;
	unsigned i;

	for (i = 0; i < 64; i++)
		m |= (uint64_t)w->marked[(unsigned char)p[i]] << i;
	return m;
}

#ifdef __x86_64__
#include <immintrin.h>

/* x86-64 always has SSE2: 16 bytes. */
static inline __attribute__((always_inline)) unsigned
scan16(const char *p, char *d, const struct wanted *w)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m;

	_mm_storeu_si128((__m128i *)(void *)d, v);
	m = _mm_or_si128(
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(w->a)),
			 _mm_cmpeq_epi8(v, _mm_set1_epi8(w->b))),
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(w->d)),
			 _mm_cmplt_epi8(v, _mm_set1_epi8(w->below))));
	return (unsigned)__builtin_ctz((unsigned)_mm_movemask_epi8(m) |
				       1u << 16);
}

/*
 * Marks: bit i set when byte i of p is one the loops must stop at (see
 * struct wanted). The 32-byte scanner, the 64-byte mark loop and the -s
 * loop all use these.
 */
static inline __attribute__((always_inline, target("avx2"))) uint32_t
marks32_avx2(const char *p, const struct wanted *w)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);

	return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(
	    _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(w->a)),
			    _mm256_cmpeq_epi8(v, _mm256_set1_epi8(w->b))),
	    _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(w->d)),
			    _mm256_cmpgt_epi8(_mm256_set1_epi8(w->below), v))));
}

/* When only LF needs work (-n, -b, -s, -E): one compare a block. */
static inline __attribute__((always_inline, target("avx2"))) uint32_t
lf32_avx2(const char *p)
{
	return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
	    _mm256_loadu_si256((const __m256i *)(const void *)p),
	    _mm256_set1_epi8('\n')));
}

static inline __attribute__((always_inline, target("avx2"))) uint64_t
marks_avx2(const char *p, const struct wanted *w)
{
	return (uint64_t)marks32_avx2(p + 32, w) << 32 | marks32_avx2(p, w);
}

static inline __attribute__((always_inline, target("avx2"))) uint64_t
marks_lf_avx2(const char *p, const struct wanted *w)
{
	(void)w;
	return (uint64_t)lf32_avx2(p + 32) << 32 | lf32_avx2(p);
}

/*
 * The same with AVX2: GCC's generic tuning makes a 32-byte memcpy two
 * 16-byte moves even where AVX2 is enabled. catnum.c's loop, a copy per
 * line, uses it: fc-v669 (2026-11-25), 500 MB of C headers to /dev/null,
 * task-clock ms, medians of 9 interleaved runs: -n 199 against 205, -b
 * 201 against 208; lines_with() in catfmt.c was within 1% either way
 * (-nE, -nA, -ns), and keeps memcpy.
 */
static inline __attribute__((always_inline, target("avx2"))) void
copy64_avx2(char *d, const char *s)
{
	__m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)s);
	__m256i hi =
	    _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));

	_mm256_storeu_si256((__m256i *)(void *)d, lo);
	_mm256_storeu_si256((__m256i *)(void *)(d + 32), hi);
}

/* AVX2 scanners, 32 bytes: the last partial chunks of the mark loop. */
static inline __attribute__((always_inline, target("avx2"))) unsigned
scan32(const char *p, char *d, const struct wanted *w)
{
	uint64_t m = marks32_avx2(p, w);

	memcpy(d, p, 32);
	return (unsigned)__builtin_ctzll(m | 1ull << 32);
}

static inline __attribute__((always_inline, target("avx2"))) unsigned
scan32_lf(const char *p, char *d, const struct wanted *w)
{
	uint64_t m = lf32_avx2(p);

	(void)w;
	memcpy(d, p, 32);
	return (unsigned)__builtin_ctzll(m | 1ull << 32);
}
#endif

#endif
