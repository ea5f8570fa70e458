/* SPDX-License-Identifier: MIT */
#ifndef CATSCAN_H
#define CATSCAN_H

/*
 * The scanners of cat's formatting loops (format.c), always inlined into
 * the loop that uses them so that their constants stay in registers: the
 * portable ones, which every CPU runs, and AVX2's (32 and 64 bytes,
 * chosen at run time on x86-64). Each reads a whole block: the loops are
 * given CATFMT_OVERREAD readable bytes past a buffer. A mark's bit i is
 * the block's byte i on every CPU: nothing here depends on byte order or
 * on whether char is signed.
 */

#include <stdint.h>
#include <string.h>

/*
 * The formatting loop copies a block of input at a time and asks where
 * the first byte needing work is: LF always, TAB for -T, and for -v every
 * byte below 0x20 or from 0x7f up (shown[] maps TAB and the rest back).
 * The scanners compare a block with four bytes: equal to a, b or d, or
 * (as a signed byte) below "below", which for -v catches 0x00-0x1f and
 * 0x80-0xff at once and otherwise is -128 and catches nothing. Signed
 * char, not char: char is unsigned on arm64, armhf, ppc64el and s390x.
 */
struct wanted {
	unsigned char a, b, d;
	signed char below;
};

#define ONES ((uint64_t)0x0101010101010101u)

/*
 * A mark of 8 bits from 8 bytes that are each 0 or 0xff, as the 8 bytes
 * at m hold them: keep bit i of byte i, then add the bytes (their sum is
 * under 256, so the multiplication by ONES gathers it in the top byte
 * without a carry). A sum does not care in which order a word holds its
 * bytes.
 */
static inline __attribute__((always_inline)) uint64_t
mark8(const void *m)
{
	static const unsigned char bit[8] = {1, 2, 4, 8, 16, 32, 64, 128};
	uint64_t x, w;

	memcpy(&x, m, 8);
	memcpy(&w, bit, 8);
	return (x & w) * ONES >> 56;
}

/*
 * Portable scanners. Where the compiler targets a vector unit (SSE2,
 * NEON, AltiVec/VSX, z/Architecture's vector facility), GCC's generic
 * vectors of 16 bytes; elsewhere (Debian's i386, armel, armhf, mips64el
 * and s390x baselines have none) the same tests on words of 8 bytes, which
 * a compiler would otherwise split into one test a byte. CATSCAN_WORDS
 * takes the words everywhere (a test build, so that amd64 runs them too).
 */
#if !defined(CATSCAN_WORDS) && (defined(__SSE2__) || defined(__ARM_NEON) ||    \
				defined(__ALTIVEC__) || defined(__VX__))
typedef signed char bytes16 __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) bytes16
splat16(signed char c)
{
	bytes16 v = {c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c};

	return v;
}

/* 16 bytes at p: 0xff where a byte is wanted, else 0. */
static inline __attribute__((always_inline)) bytes16
wanted16(const char *p, const struct wanted *w)
{
	bytes16 x, m;

	memcpy(&x, p, 16);
	m = (x == splat16((signed char)w->a)) |
	    (x == splat16((signed char)w->b)) |
	    (x == splat16((signed char)w->d));
	if (w->below != -128)
		m |= x < splat16(w->below);
	return m;
}

static inline __attribute__((always_inline)) bytes16
lf16(const char *p)
{
	bytes16 x;

	memcpy(&x, p, 16);
	return x == splat16('\n');
}

/* Bit i for byte i of the 16 that are 0 or 0xff. */
static inline __attribute__((always_inline)) uint64_t
mark16(bytes16 m)
{
	return mark8(&m) | mark8((const char *)&m + 8) << 8;
}

static inline __attribute__((always_inline)) uint64_t
marks16(const char *p, const struct wanted *w)
{
	return mark16(wanted16(p, w));
}

static inline __attribute__((always_inline)) uint64_t
marks16_lf(const char *p)
{
	return mark16(lf16(p));
}
#else
/*
 * Words: a byte's test sets its top bit, exactly, with no carry or borrow
 * from one byte into the next (each sum stays under 0x100).
 */
#define LOW7 (ONES * 0x7f)

/* Top bit set where the byte is not c. */
static inline __attribute__((always_inline)) uint64_t
other_than(uint64_t x, unsigned char c)
{
	uint64_t t = x ^ ONES * c;

	return ((t & LOW7) + LOW7) | t;
}

/* 0xff for each byte of x whose top bit is clear in keep, else 0. */
static inline __attribute__((always_inline)) uint64_t
spread(uint64_t keep)
{
	return (~keep >> 7 & ONES) * 0xff;
}

static inline __attribute__((always_inline)) uint64_t
wanted8(const char *p, const struct wanted *w)
{
	uint64_t x, keep;

	memcpy(&x, p, 8);
	keep = other_than(x, w->a) & other_than(x, w->b) & other_than(x, w->d);
	/* Not below: its low 7 bits reach below, and its top bit is clear. */
	if (w->below != -128)
		keep &=
		    ((x & LOW7) + ONES * (unsigned char)(0x80 - w->below)) & ~x;
	return spread(keep);
}

static inline __attribute__((always_inline)) uint64_t
marks16(const char *p, const struct wanted *w)
{
	uint64_t lo = wanted8(p, w), hi = wanted8(p + 8, w);

	return mark8(&lo) | mark8(&hi) << 8;
}

static inline __attribute__((always_inline)) uint64_t
marks16_lf(const char *p)
{
	uint64_t lo, hi;

	memcpy(&lo, p, 8);
	memcpy(&hi, p + 8, 8);
	lo = spread(other_than(lo, '\n'));
	hi = spread(other_than(hi, '\n'));
	return mark8(&lo) | mark8(&hi) << 8;
}
#endif

/* The general loop's portable scanner: copy 16 bytes, find the first. */
static inline __attribute__((always_inline)) unsigned
scan16(const char *p, char *d, const struct wanted *w)
{
	uint64_t m = marks16(p, w);

	memcpy(d, p, 16);
	return (unsigned)__builtin_ctzll(m | 1u << 16);
}

/* Marks of 64 bytes: bit i set when byte i of p is one the loops want. */
static inline __attribute__((always_inline)) uint64_t
marks_portable(const char *p, const struct wanted *w)
{
	return marks16(p, w) | marks16(p + 16, w) << 16 |
	       marks16(p + 32, w) << 32 | marks16(p + 48, w) << 48;
}

/* When only LF needs work (-n, -b, -s, -E). */
static inline __attribute__((always_inline)) uint64_t
marks_lf_portable(const char *p, const struct wanted *w)
{
	(void)w;
	return marks16_lf(p) | marks16_lf(p + 16) << 16 |
	       marks16_lf(p + 32) << 32 | marks16_lf(p + 48) << 48;
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

#ifdef __x86_64__
#include <immintrin.h>

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
 * 16-byte moves even where AVX2 is enabled. number.c's loop, a copy per
 * line, gains a few percent by it; lines_with() in format.c gained
 * nothing, and keeps memcpy (BENCHMARKS.md, "Decisions", "The -n and -b
 * loop").
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
