/* SPDX-License-Identifier: MIT */
/*
 * The loop for -v, -E and -T without -n, -b or -s (so also -A, -e, -t and
 * every mix) on CPUs with AVX-512 VBMI2. As in show.c, on ASCII every
 * byte these options change shows as two, a prefix ('^', or '$' for an LF
 * under -E) and a body (the byte, xor 0x40 where it shows as ^X); here
 * vpexpandb places them. Give each of 32 bytes two output slots, the odd
 * one its body and the even one its prefix where it shows as two: pdep
 * puts those bytes on the even slots, pext packs which of the slots in use
 * hold bodies, one vpexpandb puts the bodies there and '^' in the others,
 * and a masked move writes '$' over the LFs' prefix slots (found the same
 * way), for one 64-byte store. No table, no branch per byte. A chunk
 * with bytes from 0x80 up (-v) goes show.c's way (show_chunk() or a
 * byte at a time), as does one with CR LF under -E without -v (^M$).
 * Where the CPU has VBMI2, this loop or show.c's AVX2 loops: BENCHMARKS.md,
 * "The formatting loops".
 */
#include "config.h"

#include <string.h>

#include "loop.h"

#ifdef __x86_64__
#include <immintrin.h>

#define WIDE target("avx2,popcnt,bmi2,avx512f,avx512bw,avx512vl,avx512vbmi2")

/*
 * The 32 bytes whose marks are m and bodies body: prefixes '^', but '$'
 * for the LFs of lf (-E).
 */
static inline __attribute__((always_inline, WIDE)) char *
put32(char *dst, uint32_t m, uint32_t lf, __m256i body, __m512i caret,
      __m512i dollar)
{
	const uint64_t odd = 0xaaaaaaaaaaaaaaaau;
	uint64_t used = _pdep_u64(m, ~odd) | odd;
	__m512i out = _mm512_mask_expand_epi8(caret, _pext_u64(odd, used),
					      _mm512_castsi256_si512(body));

	out = _mm512_mask_mov_epi8(out, _pext_u64(_pdep_u64(lf, ~odd), used),
				   dollar);
	_mm512_storeu_si512(dst, out);
	return dst + 32 + __builtin_popcount(m);
}

/*
 * [p, end), for -v (nonprint) and -E (ends) as given, -T as f says: 64
 * bytes a step, the rest a byte at a time.
 */
static inline __attribute__((always_inline, WIDE)) void
wide_with(struct catfmt *f, const char *p, const char *end, int nonprint,
	  int ends)
{
	const __m512i nl = _mm512_set1_epi8('\n');
	const __m512i tab = _mm512_set1_epi8('\t');
	const __m512i cr = _mm512_set1_epi8('\r');
	const __m512i space = _mm512_set1_epi8(0x20);
	const __m512i del = _mm512_set1_epi8(0x7f);
	const __m512i x40 = _mm512_set1_epi8(0x40);
	const __m512i caret = _mm512_set1_epi8('^');
	const __m512i dollar = _mm512_set1_epi8('$');
	/* -E without -v shows CR LF as ^M$; with -v the CR is ^M already. */
	const int crlf = ends && !nonprint, tabs = f->opt.tabs;
	const char *begin = p;
	char *dst = f->out->o, *limit = f->out->limit;
	uint64_t lf, ctl, m, crs, crs_lf, cr_last = 0;
	__m512i v, body;

	for (; end - p >= 64; p += 64) {
		if (dst >= limit)
			dst = room_at(f, dst, &limit);
		v = _mm512_loadu_si512(p);
		lf = _mm512_cmpeq_epi8_mask(v, nl);
		ctl = _mm512_cmpeq_epi8_mask(v, tab);
		if (nonprint)
			/* Signed: also 0x80-0xff, which go the slow way. */
			ctl = (_mm512_cmplt_epi8_mask(v, space) |
			       _mm512_cmpeq_epi8_mask(v, del)) &
			      ~lf & (tabs ? ~(uint64_t)0 : ~ctl);
		else if (!tabs)
			ctl = 0;
		m = ends ? ctl | lf : ctl;
		if (nonprint && _mm512_movepi8_mask(v) != 0) {
			dst = __builtin_popcountll(m) <= SHOW_FEW
				  ? show_chunk(f, dst, p, m, p, 0)
				  : show_bytes(f, dst, p, p + 64);
			continue;
		}
		if (crlf) {
			crs = _mm512_cmpeq_epi8_mask(v, cr);
			crs_lf = lf & (crs << 1 | cr_last);
			cr_last = crs >> 63;
			if (crs_lf != 0) {
				dst = show_chunk(f, dst, p, m, begin, 1);
				continue;
			}
		}
		if (!ends && m == 0) {
			_mm512_storeu_si512(dst, v);
			dst += 64;
			continue;
		}
		body = _mm512_mask_blend_epi8(ctl, v, _mm512_xor_si512(v, x40));
		if (!ends)
			lf = 0;
		dst = put32(dst, (uint32_t)m, (uint32_t)lf,
			    _mm512_castsi512_si256(body), caret, dollar);
		dst = put32(dst, (uint32_t)(m >> 32), (uint32_t)(lf >> 32),
			    _mm512_extracti64x4_epi64(body, 1), caret, dollar);
	}
	if (dst >= limit)
		dst = room_at(f, dst, &limit);
	for (; p < end; p++) {
		if (crlf && *p == '\n' && p > begin && p[-1] == '\r') {
			dst[-1] = '^';
			*dst++ = 'M';
		}
		dst = show_bytes(f, dst, p, p + 1);
	}
	f->out->o = dst;
}

__attribute__((WIDE)) void
catwide_avx512(struct catfmt *f, const char *p, const char *end)
{
	if (f->opt.nonprint && f->opt.ends)
		wide_with(f, p, end, 1, 1);
	else if (f->opt.nonprint)
		wide_with(f, p, end, 1, 0);
	else if (f->opt.ends)
		wide_with(f, p, end, 0, 1);
	else
		wide_with(f, p, end, 0, 0);
}
#endif
