/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/tune.h"
#include "prog.h"

struct options {
	int number, nonblank, squeeze, ends, tabs, nonprint;
};

static struct options opt;
static struct fio_fd out;
static char *ibuf;

/*
 * Output buffer: formatted output, and the bytes of small files, wait here
 * until a read may block or it fills. The formatting loop checks for room
 * once per step, and one step writes at most SLACK bytes.
 */
#define SLACK	512
#define OUT_CAP (2 * FIO_CAT_BUF + SLACK)
static char *obuf, *o, *olimit;

/* Formatting state, carried from file to file as GNU cat does. */
static int newlines;   /* -1 inside a line, else empty lines in a row (<=2) */
static int pending_cr; /* -E: a CR ended the last buffer; an LF may follow */
static char numbuf[24 + 16];   /* "     1\t", right-aligned; then padding */
static char *num_start;	       /* first printed column (widens past 999999) */
static uint64_t num_word[2];   /* the 16 bytes from num_start, see put_number */
#define NUM_LAST (numbuf + 22) /* the last digit; the TAB follows */
static struct {
	char s[4];
	unsigned char len;
} shown[256]; /* how -v and -T show each byte */

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
};
static struct wanted wanted;

/*
 * Room the loops may read and write past the bytes they are asked about:
 * a 32-byte block, or two 32-byte moves from the last byte of a 64-byte
 * chunk.
 */
#define MAX_BLOCK 64

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

/* Portable marks: one table lookup a byte. */
static unsigned char marked[256];

static inline __attribute__((always_inline)) uint64_t
marks_portable(const char *p, const struct wanted *w)
{
	uint64_t m = 0;
	unsigned i;

	(void)w;
	for (i = 0; i < 64; i++)
		m |= (uint64_t)marked[(unsigned char)p[i]] << i;
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

static int read_stdin;

static int
usage(int status)
{
	if (status != EXIT_SUCCESS) {
		prog_try_help();
		return status;
	}
	printf("Usage: %s [OPTION]... [FILE]...\n", program_name);
	fputs("Concatenate FILE(s) to standard output.\n"
	      "\n"
	      "With no FILE, or when FILE is -, read standard input.\n"
	      "  -A, --show-all           equivalent to -vET\n"
	      "  -b, --number-nonblank    number nonempty output lines, "
	      "overrides -n\n"
	      "  -e                       equivalent to -vE\n"
	      "  -E, --show-ends          display $ or ^M$ at end of each "
	      "line\n"
	      "  -n, --number             number all output lines\n"
	      "  -s, --squeeze-blank      suppress repeated empty output "
	      "lines\n"
	      "  -t                       equivalent to -vT\n"
	      "  -T, --show-tabs          display TAB characters as ^I\n"
	      "  -u                       (ignored)\n"
	      "  -v, --show-nonprinting   use ^ and M- notation, except for "
	      "LFD and TAB\n"
	      "      --help\n"
	      "         display this help and exit\n"
	      "      --version\n"
	      "         output version information and exit\n"
	      "\n"
	      "Examples:\n",
	      stdout);
	printf("  %s f - g  Output f's contents, then standard input, then "
	       "g's contents.\n"
	       "  %s        Copy standard input to standard output.\n",
	       program_name, program_name);
	fputs("\n"
	      "This cat is part of fastio-utils, a faster drop-in for GNU "
	      "coreutils' cat.\n"
	      "Full documentation: man cat\n",
	      stdout);
	return prog_close_stdout();
}

static void
flush(void)
{
	static int grown;
	size_t n = (size_t)(o - obuf);

	/*
	 * Full buffers written into a 64 KiB pipe stall writer and reader in
	 * turn (see FIO_PIPE_SIZE); grown only once there is bulk to move,
	 * as pipe memory counts against a per-user quota.
	 */
	if (!grown && n >= FIO_CAT_BUF && out.kind == FIO_PIPE) {
		out.pipe_size = fio_pipe_grow(STDOUT_FILENO, FIO_PIPE_SIZE);
		grown = 1;
	}
	o = obuf;
	if (n > 0 && fio_write_all(STDOUT_FILENO, obuf, n) < 0) {
		prog_warn(errno, "write error");
		exit(EXIT_FAILURE);
	}
}

/* Room for one more step of the formatting loop. */
static inline void
make_room(void)
{
	char last;

	if (o < olimit)
		return;
	/* The last byte stays: it may be a CR that an LF turns into ^M. */
	last = *--o;
	flush();
	*o++ = last;
}

/* Report an input problem after the output that preceded it. */
static int
input_error(int err, const char *name)
{
	flush();
	prog_warn(err, "%s", prog_quote(name));
	return 1;
}

/* Carry into the next digits, in numbuf, and refresh num_word. */
static void
next_number_slowly(void)
{
	char *d = NUM_LAST;

	memcpy(num_start, num_word, sizeof num_word);
	while (*d == '9')
		*d-- = '0';
	if (*d == ' ')
		*d = '1';
	else
		(*d)++;
	if (d < num_start)
		num_start = d;
	memcpy(num_word, num_start, sizeof num_word);
}

/*
 * Write the line number and count one more. The counter lives as ASCII
 * digits; its first 16 bytes are also kept as two words, and the usual
 * increment (no carry) is one add to a word: a byte store followed by a
 * 16-byte load of the same bytes stalls the CPU on every line (20% of
 * `cat -n`'s time), word stores followed by word loads do not.
 */
static inline __attribute__((always_inline)) char *
put_number_at(char *d)
{
	size_t len = (size_t)(NUM_LAST + 2 - num_start), last = len - 2;
	unsigned shift = 8 * (unsigned)(last % 8);
	uint64_t *w = &num_word[last / 8];

	memcpy(d, num_word, sizeof num_word);
	if (len > sizeof num_word) {
		memcpy(d + sizeof num_word, num_start + sizeof num_word,
		       len - sizeof num_word);
		memcpy(num_start, num_word, sizeof num_word);
		next_number_slowly();
		return d + len;
	}
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	shift = 56 - shift;
#endif
	if ((*w >> shift & 0xff) != '9')
		*w += (uint64_t)1 << shift;
	else
		next_number_slowly();
	return d + len;
}

static inline __attribute__((always_inline)) void
put_number(void)
{
	o = put_number_at(o);
}

/*
 * Format [p, end) of a buffer that starts at begin and has MAX_BLOCK
 * readable bytes past end, scanning block bytes at a time with scan.
 * Always inlined into one function per scanner, so the scanner is inlined
 * too and its constants stay in registers.
 */
static inline __attribute__((always_inline)) void
format_with(unsigned (*scan)(const char *, char *, const struct wanted *),
	    unsigned block, const char *begin, const char *p, const char *end)
{
	const struct wanted w = wanted;
	unsigned k;

	while (p < end) {
		make_room();
		if (newlines >= 0) {
			if (*p == '\n') {
				p++;
				if (newlines < 2)
					newlines++;
				if (newlines == 2 && opt.squeeze)
					continue;
				if (opt.number && !opt.nonblank)
					put_number();
				if (opt.ends)
					*o++ = '$';
				*o++ = '\n';
				continue;
			}
			if (opt.number)
				put_number();
			newlines = -1;
		}
		for (;;) {
			k = scan(p, o, &w);
			if (k >= (size_t)(end - p)) {
				o += end - p;
				return;
			}
			o += k;
			p += k;
			if (k < block) {
				if (*p == '\n')
					break;
				memcpy(o, shown[(unsigned char)*p].s, 4);
				o += shown[(unsigned char)*p++].len;
			}
			make_room();
		}
		if (opt.ends) {
			/* GNU shows CR LF as ^M$, even without -v. */
			if (!opt.nonprint && p > begin && p[-1] == '\r') {
				o[-1] = '^';
				*o++ = 'M';
			}
			*o++ = '$';
		}
		*o++ = '\n';
		p++;
		newlines = 0;
	}
}

#ifdef __x86_64__
static void
format_sse2(const char *p, const char *end)
{
	format_with(scan16, 16, p, p, end);
}

#endif

/*
 * 64 bytes at a time: a bit mask marks the LFs and the bytes -v or -T
 * show differently; the bytes between marks are copied in 32-byte moves,
 * and the work per mark (a line end, or a byte to show) runs once per set
 * bit instead of once per scanned block. The last partial block goes to
 * the general loop, which shares the state.
 */
static inline __attribute__((always_inline)) void
lines_with(uint64_t (*marks)(const char *, const struct wanted *),
	   void (*rest)(const char *, const char *, const char *),
	   const char *p, const char *end)
{
	/*
	 * The state lives in locals: every store through the output pointer
	 * (a char *) could alias a global, which would make the compiler
	 * reload them all after each store.
	 */
	const struct wanted w = wanted;
	const struct options op = opt;
	char *dst = o, *const limit = olimit;
	int state = newlines;
	const char *begin = p, *seg, *nl, *chunk_end;
	uint64_t bits;
	unsigned char c;

	for (; end - p >= 64; p = chunk_end) {
		chunk_end = p + 64;
		bits = marks(p, &w);
		for (seg = p; bits != 0; bits &= bits - 1, seg = nl + 1) {
			if (dst >= limit) {
				o = dst;
				make_room();
				dst = o;
			}
			nl = p + __builtin_ctzll(bits);
			if (nl > seg || *nl != '\n') {
				if (state >= 0) {
					if (op.number)
						dst = put_number_at(dst);
					state = -1;
				}
				/* At most 64 bytes: two fixed moves, no loop.
				 */
				memcpy(dst, seg, 32);
				memcpy(dst + 32, seg + 32, 32);
				dst += nl - seg;
			}
			if (*nl != '\n') {
				c = (unsigned char)*nl;
				memcpy(dst, shown[c].s, 4);
				dst += shown[c].len;
				continue;
			}
			if (state >= 0) {
				if (state < 2)
					state++;
				if (state == 2 && op.squeeze)
					continue;
				if (op.number && !op.nonblank)
					dst = put_number_at(dst);
			}
			if (op.ends) {
				if (!op.nonprint && nl > begin &&
				    nl[-1] == '\r') {
					dst[-1] = '^';
					*dst++ = 'M';
				}
				*dst++ = '$';
			}
			*dst++ = '\n';
			if (state < 0)
				state = 0;
		}
		if (seg < chunk_end) {
			if (dst >= limit) {
				o = dst;
				make_room();
				dst = o;
			}
			if (state >= 0) {
				if (op.number)
					dst = put_number_at(dst);
				state = -1;
			}
			memcpy(dst, seg, 32);
			memcpy(dst + 32, seg + 32, 32);
			dst += chunk_end - seg;
		}
	}
	o = dst;
	newlines = state;
	if (p < end)
		rest(begin, p, end);
}

static void
rest_portable(const char *begin, const char *p, const char *end)
{
	format_with(scan8, 8, begin, p, end);
}

static void
lines_portable(const char *p, const char *end)
{
	lines_with(marks_portable, rest_portable, p, end);
}

#ifdef __x86_64__
static __attribute__((target("avx2"))) void
rest_avx2_lf(const char *begin, const char *p, const char *end)
{
	format_with(scan32_lf, 32, begin, p, end);
}

static __attribute__((target("avx2"))) void
rest_avx2(const char *begin, const char *p, const char *end)
{
	format_with(scan32, 32, begin, p, end);
}

static __attribute__((target("avx2"))) void
lines_avx2_lf(const char *p, const char *end)
{
	lines_with(marks_lf_avx2, rest_avx2_lf, p, end);
}

static __attribute__((target("avx2"))) void
lines_avx2(const char *p, const char *end)
{
	lines_with(marks_avx2, rest_avx2, p, end);
}
#endif

/*
 * Without -n, -b and -s no line has a state: every mark is a byte shown
 * as shown[] says (for -E an LF shows as "$\n"), so the loop per mark has
 * no branch but the one for -E's CR LF, and room is checked once per
 * chunk (a chunk writes at most 64 bytes of 4, and the moves 64 past).
 */
static inline __attribute__((always_inline)) void
shown_with(uint64_t (*marks)(const char *, const struct wanted *),
	   void (*rest)(const char *, const char *, const char *),
	   const char *p, const char *end, int crlf)
{
	const struct wanted w = wanted;
	const char *begin = p, *seg, *nl, *chunk_end;
	char *dst;
	uint64_t bits;
	unsigned char c;

	for (; end - p >= 64; p = chunk_end) {
		make_room();
		dst = o;
		chunk_end = p + 64;
		bits = marks(p, &w);
		for (seg = p; bits != 0; bits &= bits - 1, seg = nl + 1) {
			nl = p + __builtin_ctzll(bits);
			memcpy(dst, seg, 32);
			memcpy(dst + 32, seg + 32, 32);
			dst += nl - seg;
			c = (unsigned char)*nl;
			/* GNU shows CR LF as ^M$, even without -v. */
			if (crlf && c == '\n' && nl > begin && nl[-1] == '\r') {
				dst[-1] = '^';
				*dst++ = 'M';
			}
			memcpy(dst, shown[c].s, 4);
			dst += shown[c].len;
		}
		memcpy(dst, seg, 32);
		memcpy(dst + 32, seg + 32, 32);
		o = dst + (chunk_end - seg);
	}
	/* The general loop takes an LF at a line's start for an empty line. */
	if (p > begin)
		newlines = p[-1] == '\n' ? 0 : -1;
	if (p < end)
		rest(begin, p, end);
}

static void
shown_portable(const char *p, const char *end)
{
	shown_with(marks_portable, rest_portable, p, end,
		   opt.ends && !opt.nonprint);
}

#ifdef __x86_64__
static __attribute__((target("avx2"))) void
shown_avx2(const char *p, const char *end)
{
	shown_with(marks_avx2, rest_avx2, p, end, opt.ends && !opt.nonprint);
}

/* -E alone: the marks are the LFs. */
static __attribute__((target("avx2"))) void
shown_avx2_lf(const char *p, const char *end)
{
	shown_with(marks_lf_avx2, rest_avx2_lf, p, end,
		   opt.ends && !opt.nonprint);
}
#endif

/*
 * -s alone changes nothing but drops each LF that follows two LFs (the
 * start of input counts as one), so it needs no per-line work: 64 bytes
 * at a time, an LF bit mask (with -s alone the marks are the LFs) says
 * which bytes to drop, usually none, and
 * the block is copied whole. `newlines` holds the LFs just seen minus one.
 */
static inline __attribute__((always_inline)) void
squeeze_with(uint64_t (*lf_marks)(const char *, const struct wanted *),
	     const char *p, const char *end)
{
	const struct wanted w = wanted;
	unsigned run = newlines < 0 ? 0 : newlines >= 1 ? 2 : 1, lead;
	uint64_t lf, drop;

	for (; end - p >= 64; p += 64) {
		make_room();
		lf = lf_marks(p, &w);
		drop = lf & (lf << 1 | (run >= 1)) &
		       (lf << 2 | (run >= 2) | (run >= 1) << 1);
		memcpy(o, p, 64);
		if (drop == 0) {
			o += 64;
		} else {
			unsigned i;

			for (i = 0; i < 64; i++)
				if (!(drop >> i & 1))
					*o++ = p[i];
		}
		lead = (unsigned)__builtin_clzll(~lf | 1);
		run = lead >= 2 ? 2 : lead;
	}
	make_room();
	for (; p < end; p++) {
		if (*p != '\n')
			run = 0;
		else if (run < 2)
			run++;
		else
			continue;
		*o++ = *p;
	}
	newlines = (int)run - 1;
}

static void
squeeze_portable(const char *p, const char *end)
{
	squeeze_with(marks_portable, p, end);
}

#ifdef __x86_64__
static __attribute__((target("avx2"))) void
squeeze_avx2(const char *p, const char *end)
{
	squeeze_with(marks_lf_avx2, p, end);
}
#endif

static void (*format)(const char *, const char *);

/*
 * Format one buffer (one read) with the loop chosen. -E
 * shows CR LF as ^M$ also when a buffer ends between the two, whatever
 * loop ran and wherever the buffer ended: a CR ending a buffer, which
 * every loop wrote last, is taken back and held until the next buffer
 * shows what follows it (main() writes a last one as it is).
 */
static void
format_buffer(const char *p, const char *end)
{
	if (pending_cr) {
		make_room();
		pending_cr = 0;
		if (*p == '\n') {
			*o++ = '^';
			*o++ = 'M';
		} else {
			*o++ = '\r';
		}
	}
	format(p, end);
	if (opt.ends && !opt.nonprint && end[-1] == '\r') {
		o--;
		pending_cr = 1;
	}
}

/*
 * Pick the loop for the options and the CPU. FASTIO_CAT_SCAN, for the
 * tests: 8 forces the portable loops, 16 the general SSE2 loop.
 */
static void
setup_format(void)
{
	const char *force = getenv("FASTIO_CAT_SCAN");
	int squeeze_only = opt.squeeze && !opt.number && !opt.ends &&
			   !opt.tabs && !opt.nonprint;
	int lf_only = !opt.tabs && !opt.nonprint;
	int stateless = !opt.number && !opt.squeeze;
	unsigned c;

	wanted.a = '\n';
	wanted.b = opt.tabs && !opt.nonprint ? '\t' : '\n';
	wanted.d = opt.nonprint ? 0x7f : '\n';
	wanted.below = opt.nonprint ? 0x20 : -128;
	for (c = 0; c < 256; c++)
		marked[c] = c == '\n' || shown[c].len != 1 ||
			    (unsigned char)shown[c].s[0] != c;
	format = squeeze_only ? squeeze_portable
		 : stateless  ? shown_portable
			      : lines_portable;
	if (force != NULL && strcmp(force, "8") == 0)
		return;
#ifdef __x86_64__
	__builtin_cpu_init();
	format = format_sse2;
	if (force != NULL && strcmp(force, "16") == 0)
		return;
	if (__builtin_cpu_supports("avx2"))
		format = squeeze_only ? squeeze_avx2
			 : stateless  ? lf_only ? shown_avx2_lf : shown_avx2
			 : lf_only    ? lines_avx2_lf
				      : lines_avx2;
#endif
}

/* Nothing to read right now, so the next read may wait: show what we have. */
static void
flush_if_idle(const struct fio_fd *in)
{
	int pending = 0;

	if (o == obuf || in->kind == FIO_REGULAR)
		return;
	if (ioctl(in->fd, FIONREAD, &pending) < 0 || pending == 0)
		flush();
}

/*
 * Every input is read into the one reused buffer: it stays in cache, and
 * a file that shrinks meanwhile simply ends early, as GNU's does. Mapped
 * windows of the page cache, which spare one copy, were 11% faster on one
 * machine and 3x slower on another (a fault and a page-table walk for
 * each 4 KiB page the scanner touches; see FIO_CAT_BUF), and they expose
 * a file truncated under them as NULs or SIGBUS.
 */
static int
format_fd(const struct fio_fd *in, const char *name)
{
	ssize_t n;

	for (;;) {
		flush_if_idle(in);
		n = fio_read(in->fd, ibuf, FIO_CAT_BUF);
		if (n == 0)
			return 0;
		if (n < 0)
			return input_error(errno, name);
		format_buffer(ibuf, ibuf + n);
	}
}

static int
copy_fd(const struct fio_fd *in, const char *name, int at_start)
{
	enum fio_side side;
	ssize_t n;
	int eof;

	if (at_start && in->kind == FIO_REGULAR &&
	    (uint64_t)in->st.st_size < FIO_SMALL_FILE &&
	    fio_enabled(FIO_READFILE)) {
		if ((size_t)(obuf + OUT_CAP - o) <= (size_t)in->st.st_size)
			flush();
		n = fio_readfile(in, o, (size_t)(obuf + OUT_CAP - o), &eof);
		if (n < 0)
			return input_error(errno, name);
		o += n;
		if ((size_t)(o - obuf) >= FIO_CAT_BUF)
			flush();
		if (eof)
			return 0;
	}
	flush();
	if (in->kind == FIO_REGULAR)
		(void)posix_fadvise(in->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (fio_copy(in, &out, ibuf, FIO_CAT_BUF, NULL, &side) == 0)
		return 0;
	if (side == FIO_SIDE_OUTPUT) {
		prog_warn(errno, "write error");
		exit(EXIT_FAILURE);
	}
	return input_error(errno, name);
}

/*
 * GNU's rule: copying a file into itself would never end, so refuse when
 * input and output are the same file (pipes and sockets excepted) and the
 * input's offset lies before the output's (its end, for O_APPEND). Ttys
 * and other unseekable files fail the lseek and are never "output".
 */
static int
is_output(const struct fio_fd *in)
{
	off_t in_pos, out_pos;

	if (out.kind == FIO_UNKNOWN || in->kind == FIO_PIPE ||
	    in->kind == FIO_SOCKET || in->st.st_dev != out.st.st_dev ||
	    in->st.st_ino != out.st.st_ino)
		return 0;
	flush();
	in_pos = lseek(in->fd, 0, SEEK_CUR);
	if (in_pos < 0)
		return 0;
	out_pos = lseek(STDOUT_FILENO, 0,
			out.flags & FIO_APPEND ? SEEK_END : SEEK_CUR);
	return in_pos < out_pos;
}

/*
 * Descriptors of files read to the end are closed together, one
 * close_range() per run of consecutive numbers (open() hands them out in
 * order), saving one syscall per file (see FIO_CLOSE_BATCH). Only read-only
 * descriptors wait here, whose close reports no error on Linux.
 */
static int run_first = -1, run_last = -1;

static void
close_run(void)
{
	int fd;

	if (run_first < 0)
		return;
	if (close_range((unsigned)run_first, (unsigned)run_last, 0) < 0)
		for (fd = run_first; fd <= run_last; fd++)
			close(fd);
	run_first = run_last = -1;
}

static void
close_later(int fd)
{
	if (run_first >= 0 &&
	    (fd != run_last + 1 || run_last - run_first + 1 >= FIO_CLOSE_BATCH))
		close_run();
	if (run_first < 0)
		run_first = fd;
	run_last = fd;
}

static int
cat_file(const char *name)
{
	int own = strcmp(name, "-") != 0, fd, rc;
	struct fio_fd in;

	if (own) {
		fd = open(name, O_RDONLY | O_CLOEXEC);
		/* Out of descriptors: the batch waiting to be closed first. */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) &&
		    run_first >= 0) {
			close_run();
			fd = open(name, O_RDONLY | O_CLOEXEC);
		}
		if (fd < 0)
			return input_error(errno, name);
		rc = fio_classify_opened(fd, O_RDONLY, &in);
	} else {
		fd = STDIN_FILENO;
		read_stdin = 1;
		rc = fio_classify(fd, &in);
	}
	if (rc < 0) {
		rc = input_error(errno, name);
	} else if (is_output(&in)) {
		prog_warn(0, "%s: input file is output file", prog_quote(name));
		rc = 1;
	} else if (opt.number || opt.squeeze || opt.ends || opt.tabs ||
		   opt.nonprint) {
		if (in.kind == FIO_REGULAR)
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		rc = format_fd(&in, name);
	} else {
		rc = copy_fd(&in, name, own);
	}
	if (own && rc == 0 && fd > STDERR_FILENO)
		close_later(fd);
	else if (own && close(fd) < 0)
		rc = input_error(errno, name);
	return rc;
}

/* How -v and -T show byte c, appended at s; returns the length. */
static unsigned
show(char *s, unsigned c)
{
	unsigned len = 0;

	if (c == '\t' && !opt.tabs)
		return s[0] = '\t', 1;
	if (!opt.nonprint && c != '\t')
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

static void
setup_shown(void)
{
	unsigned c;

	for (c = 0; c < 256; c++)
		shown[c].len = (unsigned char)show(shown[c].s, c);
	/* Only the loops without line state show an LF through shown[]. */
	shown['\n'].s[0] = opt.ends ? '$' : '\n';
	shown['\n'].s[1] = '\n';
	shown['\n'].len = opt.ends ? 2 : 1;
	setup_format();
	memset(numbuf, ' ', sizeof numbuf);
	NUM_LAST[1] = '\t';
	*NUM_LAST = '1';
	num_start = NUM_LAST - 5;
	memcpy(num_word, num_start, sizeof num_word);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
	    {"number-nonblank", no_argument, NULL, 'b'},
	    {"number", no_argument, NULL, 'n'},
	    {"squeeze-blank", no_argument, NULL, 's'},
	    {"show-nonprinting", no_argument, NULL, 'v'},
	    {"show-ends", no_argument, NULL, 'E'},
	    {"show-tabs", no_argument, NULL, 'T'},
	    {"show-all", no_argument, NULL, 'A'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	static char *no_files[] = {"-", NULL};
	int c, rc = 0;

	prog_init(argv[0]);
	/* getopt may print a message: then the locale must be loaded. */
	for (c = 1; c < argc; c++)
		if (argv[c][0] == '-' && argv[c][1] != '\0') {
			prog_locale();
			break;
		}
	while ((c = getopt_long(argc, argv, "benstuvAET", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'b':
			opt.number = opt.nonblank = 1;
			break;
		case 'e':
			opt.ends = opt.nonprint = 1;
			break;
		case 'n':
			opt.number = 1;
			break;
		case 's':
			opt.squeeze = 1;
			break;
		case 't':
			opt.tabs = opt.nonprint = 1;
			break;
		case 'u':
			break;
		case 'v':
			opt.nonprint = 1;
			break;
		case 'A':
			opt.nonprint = opt.ends = opt.tabs = 1;
			break;
		case 'E':
			opt.ends = 1;
			break;
		case 'T':
			opt.tabs = 1;
			break;
		case 'h':
			return usage(EXIT_SUCCESS);
		case 'V':
			prog_version("cat");
			return prog_close_stdout();
		default:
			return usage(EXIT_FAILURE);
		}
	}
	argv += optind;
	if (*argv == NULL)
		argv = no_files;

	if (fio_classify(STDOUT_FILENO, &out) < 0) {
		prog_warn(errno, "standard output");
		return EXIT_FAILURE;
	}
	(void)fio_init();
	setup_shown();
	ibuf = calloc(1, FIO_CAT_BUF + MAX_BLOCK);
	obuf = o = malloc(OUT_CAP);
	olimit = obuf + OUT_CAP - SLACK;
	if (ibuf == NULL || obuf == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}

	for (; *argv != NULL; argv++)
		rc |= cat_file(*argv);
	close_run();

	if (pending_cr)
		*o++ = '\r';
	flush();
	if (read_stdin && close(STDIN_FILENO) < 0) {
		prog_warn(errno, "closing standard input");
		return EXIT_FAILURE;
	}
	return prog_close_stdout() | rc;
}
