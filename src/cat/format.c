/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <string.h>

#include "loop.h"

/*
 * GNU's per-line rules, for every loop but number.c's (-n or -b alone,
 * where they come down to its numbered()); *state is -1 inside a line,
 * else the empty lines just seen (at most 2).
 *
 * line_start: the first byte of a line that is not an LF is coming.
 */
static inline __attribute__((always_inline)) char *
line_start(struct catfmt *f, const struct cat_options *op, int *state,
	   char *dst)
{
	if (*state >= 0) {
		if (op->number)
			dst = put_number_at(f, dst);
		*state = -1;
	}
	return dst;
}

/*
 * line_end: the LF at nl ends a line (begin: the start of the buffer, for
 * -E's CR LF), or is an empty line, which -s may drop and -n numbers.
 */
static inline __attribute__((always_inline)) char *
line_end(struct catfmt *f, const struct cat_options *op, int *state, char *dst,
	 const char *nl, const char *begin)
{
	if (*state >= 0) {
		if (*state < 2)
			(*state)++;
		if (*state == 2 && op->squeeze)
			return dst;
		if (op->number && !op->nonblank)
			dst = put_number_at(f, dst);
	}
	if (op->ends) {
		/* GNU shows CR LF as ^M$, even without -v. */
		if (!op->nonprint && nl > begin && nl[-1] == '\r') {
			dst[-1] = '^';
			*dst++ = 'M';
		}
		*dst++ = '$';
	}
	*dst++ = '\n';
	if (*state < 0)
		*state = 0;
	return dst;
}

/*
 * The general loop: [p, end) of a buffer that starts at begin, scanned
 * block bytes at a time with scan (which also copies the block), stopping
 * at each byte needing work. Always inlined into one function per
 * scanner, so the scanner is inlined too.
 */
static inline __attribute__((always_inline)) void
format_with(unsigned (*scan)(const char *, char *, const struct wanted *),
	    unsigned block, struct catfmt *f, const char *begin, const char *p,
	    const char *end)
{
	const struct wanted w = f->wanted;
	const struct cat_options op = f->opt;
	struct cat_out *out = f->out;
	int state = f->newlines;
	unsigned k;

	while (p < end) {
		make_room(f);
		if (*p == '\n') {
			out->o = line_end(f, &op, &state, out->o, p, begin);
			p++;
			continue;
		}
		out->o = line_start(f, &op, &state, out->o);
		for (;;) {
			k = scan(p, out->o, &w);
			if (k >= (size_t)(end - p)) {
				out->o += end - p;
				f->newlines = state;
				return;
			}
			out->o += k;
			p += k;
			if (k < block) {
				if (*p == '\n')
					break;
				memcpy(out->o, f->shown[(unsigned char)*p].s,
				       4);
				out->o += f->shown[(unsigned char)*p++].len;
			}
			make_room(f);
		}
	}
	f->newlines = state;
}

static void
rest_portable(struct catfmt *f, const char *begin, const char *p,
	      const char *end)
{
	format_with(scan16, 16, f, begin, p, end);
}

/* The general loop for everything (CATFMT_SCAN_GENERAL, the tests). */
static void
format_general(struct catfmt *f, const char *p, const char *end)
{
	format_with(scan16, 16, f, p, p, end);
}

#ifdef __x86_64__

static __attribute__((target("avx2"))) void
rest_avx2_lf(struct catfmt *f, const char *begin, const char *p,
	     const char *end)
{
	format_with(scan32_lf, 32, f, begin, p, end);
}

static __attribute__((target("avx2"))) void
rest_avx2(struct catfmt *f, const char *begin, const char *p, const char *end)
{
	format_with(scan32, 32, f, begin, p, end);
}
#endif

typedef void rest_fn(struct catfmt *, const char *, const char *, const char *);

/*
 * With line state (-n, -b, -s with others), 64 bytes at a time: a bit
 * mask marks the LFs and the bytes -v or -T show differently; the bytes
 * between marks are copied in 32-byte moves, and the work per mark (a
 * line's end, or a byte to show) runs once per set bit instead of once
 * per scanned block. The last partial block goes to the general loop.
 * The state lives in locals: every store through the output pointer (a
 * char *) could alias the engine's fields, which the compiler would then
 * reload after each store.
 */
static inline __attribute__((always_inline)) void
lines_with(uint64_t (*marks)(const char *, const struct wanted *),
	   rest_fn *rest, struct catfmt *f, const char *p, const char *end)
{
	const struct wanted w = f->wanted;
	const struct cat_options op = f->opt;
	char *dst = f->out->o, *limit = f->out->limit;
	int state = f->newlines;
	const char *begin = p, *seg, *nl, *chunk_end;
	uint64_t bits;
	unsigned char c;

	for (; end - p >= 64; p = chunk_end) {
		chunk_end = p + 64;
		bits = marks(p, &w);
		for (seg = p; bits != 0; bits &= bits - 1, seg = nl + 1) {
			if (dst >= limit)
				dst = room_at(f, dst, &limit);
			nl = p + __builtin_ctzll(bits);
			if (nl > seg || *nl != '\n') {
				dst = line_start(f, &op, &state, dst);
				/* At most 64 bytes: two fixed moves, no loop.
				 */
				copy64_portable(dst, seg);
				dst += nl - seg;
			}
			if (*nl != '\n') {
				c = (unsigned char)*nl;
				memcpy(dst, f->shown[c].s, 4);
				dst += f->shown[c].len;
				continue;
			}
			dst = line_end(f, &op, &state, dst, nl, begin);
		}
		if (seg < chunk_end) {
			if (dst >= limit)
				dst = room_at(f, dst, &limit);
			dst = line_start(f, &op, &state, dst);
			copy64_portable(dst, seg);
			dst += chunk_end - seg;
		}
	}
	f->out->o = dst;
	f->newlines = state;
	if (p < end)
		rest(f, begin, p, end);
}

/*
 * Without -n, -b and -s no line has a state: every mark is a byte shown
 * as shown[] says (for -E an LF shows as "$\n"), so the loop per mark has
 * no branch but the one for -E's CR LF, and room is checked once per
 * chunk (CATFMT_SLACK). With AVX2 it runs only -E and -ET, where it beat
 * show.c's loop, and with AVX-512 VBMI2 not at all (wide.c).
 */
static inline __attribute__((always_inline)) void
shown_with(uint64_t (*marks)(const char *, const struct wanted *),
	   rest_fn *rest, struct catfmt *f, const char *p, const char *end,
	   int crlf)
{
	const struct wanted w = f->wanted;
	const char *begin = p;

	for (; end - p >= 64; p += 64) {
		make_room(f);
		f->out->o =
		    show_chunk(f, f->out->o, p, marks(p, &w), begin, crlf);
	}
	if (p < end)
		rest(f, begin, p, end);
}

/*
 * -s alone changes nothing but drops each LF that follows two LFs (the
 * start of input counts as one), so it needs no per-line work: 64 bytes
 * at a time, an LF bit mask (with -s alone the marks are the LFs) says
 * which bytes to drop, usually none, and the block is copied whole.
 * newlines holds the LFs just seen minus one.
 */
static inline __attribute__((always_inline)) void
squeeze_with(uint64_t (*lf_marks)(const char *, const struct wanted *),
	     struct catfmt *f, const char *p, const char *end)
{
	const struct wanted w = f->wanted;
	struct cat_out *out = f->out;
	unsigned run = f->newlines < 0 ? 0 : f->newlines >= 1 ? 2 : 1, lead;
	uint64_t lf, drop;

	for (; end - p >= 64; p += 64) {
		make_room(f);
		lf = lf_marks(p, &w);
		drop = lf & (lf << 1 | (run >= 1)) &
		       (lf << 2 | (run >= 2) | (run >= 1) << 1);
		memcpy(out->o, p, 64);
		if (drop == 0) {
			out->o += 64;
		} else {
			unsigned i;

			for (i = 0; i < 64; i++)
				if (!(drop >> i & 1))
					*out->o++ = p[i];
		}
		lead = (unsigned)__builtin_clzll(~lf | 1);
		run = lead >= 2 ? 2 : lead;
	}
	make_room(f);
	for (; p < end; p++) {
		if (*p != '\n')
			run = 0;
		else if (run < 2)
			run++;
		else
			continue;
		*out->o++ = *p;
	}
	f->newlines = (int)run - 1;
}

/* -E shows CR LF as ^M$ unless -v already shows the CR. */
static int
crlf(const struct catfmt *f)
{
	return f->opt.ends && !f->opt.nonprint;
}

static void
lines_portable_lf(struct catfmt *f, const char *p, const char *end)
{
	lines_with(marks_lf_portable, rest_portable, f, p, end);
}

static void
lines_portable(struct catfmt *f, const char *p, const char *end)
{
	lines_with(marks_portable, rest_portable, f, p, end);
}

/* -E alone: the marks are the LFs. */
static void
shown_portable_lf(struct catfmt *f, const char *p, const char *end)
{
	shown_with(marks_lf_portable, rest_portable, f, p, end, crlf(f));
}

static void
shown_portable(struct catfmt *f, const char *p, const char *end)
{
	shown_with(marks_portable, rest_portable, f, p, end, crlf(f));
}

static void
squeeze_portable(struct catfmt *f, const char *p, const char *end)
{
	squeeze_with(marks_lf_portable, f, p, end);
}

#ifdef __x86_64__
static __attribute__((target("avx2"))) void
lines_avx2_lf(struct catfmt *f, const char *p, const char *end)
{
	lines_with(marks_lf_avx2, rest_avx2_lf, f, p, end);
}

static __attribute__((target("avx2"))) void
lines_avx2(struct catfmt *f, const char *p, const char *end)
{
	lines_with(marks_avx2, rest_avx2, f, p, end);
}

static __attribute__((target("avx2"))) void
shown_avx2(struct catfmt *f, const char *p, const char *end)
{
	shown_with(marks_avx2, rest_avx2, f, p, end, crlf(f));
}

/* -E alone: the marks are the LFs. */
static __attribute__((target("avx2"))) void
shown_avx2_lf(struct catfmt *f, const char *p, const char *end)
{
	shown_with(marks_lf_avx2, rest_avx2_lf, f, p, end, crlf(f));
}

static __attribute__((target("avx2"))) void
squeeze_avx2(struct catfmt *f, const char *p, const char *end)
{
	squeeze_with(marks_lf_avx2, f, p, end);
}
#endif

/*
 * -E shows CR LF as ^M$ also when a buffer ends between the two, whatever
 * loop ran and wherever the buffer ended: a CR ending a buffer, which
 * every loop wrote last, is taken back and held until the next buffer
 * shows what follows it.
 */
void
catfmt_buffer(struct catfmt *f, const char *p, const char *end)
{
	struct cat_out *out = f->out;

	if (p == end)
		return;
	if (f->pending_cr) {
		make_room(f);
		f->pending_cr = 0;
		if (*p == '\n') {
			*out->o++ = '^';
			*out->o++ = 'M';
		} else {
			*out->o++ = '\r';
		}
	}
	f->format(f, p, end);
	if (crlf(f) && end[-1] == '\r') {
		out->o--;
		f->pending_cr = 1;
	}
}

void
catfmt_finish(struct catfmt *f)
{
	if (f->pending_cr) {
		make_room(f);
		*f->out->o++ = '\r';
		f->pending_cr = 0;
	}
}

/* How -v and -T show byte c, put at s; returns the length. */
static unsigned
show(const struct cat_options *op, char *s, unsigned c)
{
	unsigned len = 0;

	if (c == '\t' && !op->tabs)
		return s[0] = '\t', 1;
	if (!op->nonprint && c != '\t')
		return s[0] = (char)c, 1;
	if (c >= 128) {
		s[len++] = 'M';
		s[len++] = '-';
		c -= 128;
	}
	if (c < 32) {
		s[len++] = '^';
		s[len++] = (char)(c + 64);
	} else if (c == 127) {
		s[len++] = '^';
		s[len++] = '?';
	} else {
		s[len++] = (char)c;
	}
	return len;
}

#ifdef __x86_64__
/* What wide.c's loop needs of the CPU. */
static int
wide_cpu(void)
{
	return __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl") &&
	       __builtin_cpu_supports("avx512vbmi2") &&
	       __builtin_cpu_supports("bmi2") &&
	       __builtin_cpu_supports("popcnt");
}
#endif

/* The loop for the options and the CPU. */
static void
pick_loop(struct catfmt *f, enum catfmt_scan scan)
{
	const struct cat_options *op = &f->opt;
	int squeeze_only = op->squeeze && !op->number && !op->ends &&
			   !op->tabs && !op->nonprint;
	int number_only = op->number && !op->squeeze && !op->ends &&
			  !op->tabs && !op->nonprint;
	int stateless = !op->number && !op->squeeze;
	int lf_only = !op->tabs && !op->nonprint;

	f->format = squeeze_only  ? squeeze_portable
		    : number_only ? catnum_portable
		    : stateless	  ? lf_only ? shown_portable_lf : shown_portable
		    : lf_only	  ? lines_portable_lf
				  : lines_portable;
	if (scan == CATFMT_SCAN_GENERAL) {
		f->format = format_general;
		return;
	}
	if (scan == CATFMT_SCAN_PORTABLE)
		return;
#ifdef __x86_64__
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2")) {
		int wide = stateless && scan != CATFMT_SCAN_AVX2 && wide_cpu();
		/* -E without -v stays with shown_with(): see show.c. */
		int shows = stateless && (op->nonprint || !op->ends) && !wide &&
			    __builtin_cpu_supports("popcnt");

		f->format = squeeze_only  ? squeeze_avx2
			    : number_only ? catnum_avx2
			    : wide	  ? catwide_avx512
			    : shows	  ? catshow_avx2
			    : stateless	  ? lf_only ? shown_avx2_lf : shown_avx2
			    : lf_only	  ? lines_avx2_lf
					  : lines_avx2;
		if (shows)
			catshow_spread_init(f);
	}
#endif
}

void
catfmt_init(struct catfmt *f, const struct cat_options *opt,
	    struct cat_out *out, enum catfmt_scan scan)
{
	unsigned c;

	memset(f, 0, sizeof *f);
	f->opt = *opt;
	f->out = out;
	for (c = 0; c < 256; c++)
		f->shown[c].len = (unsigned char)show(opt, f->shown[c].s, c);
	/* Only the loops without line state show an LF through shown[]. */
	f->shown['\n'].s[0] = opt->ends ? '$' : '\n';
	f->shown['\n'].s[1] = '\n';
	f->shown['\n'].len = opt->ends ? 2 : 1;
	f->wanted.a = '\n';
	f->wanted.b = opt->tabs && !opt->nonprint ? '\t' : '\n';
	f->wanted.d = opt->nonprint ? 0x7f : '\n';
	f->wanted.below = opt->nonprint ? 0x20 : -128;
	pick_loop(f, scan);
	catfmt_number_from(f, 1);
}
