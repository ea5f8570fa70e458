/* SPDX-License-Identifier: MIT */
/*
 * cat's formatting engine (src/cat/format.c) against a byte-at-a-time
 * reference. Its buffers are allocated to the exact size each loop is
 * promised, so a sanitizer sees any step past them; its output goes to a
 * memfd through a flush of our own.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cat/format.h"
#include "fuzz.h"

static int fuzz_out = -1;
static size_t fuzz_out_cap;

/*
 * Each flush hands the engine a new buffer and frees the one written, as
 * cat's writer hands over another (fastio.h): a sanitizer sees any loop
 * that kept a pointer into the old one.
 */
static void
flush_to_memfd(struct cat_out *b)
{
	size_t n = (size_t)(b->o - b->buf);
	char *next = malloc(fuzz_out_cap);

	if (next == NULL || (n > 0 && write(fuzz_out, b->buf, n) != (ssize_t)n))
		abort();
	free(b->buf);
	b->buf = b->o = next;
	b->limit = next + fuzz_out_cap - CATFMT_SLACK;
}

char *
fuzz_cat_engine(const struct cat_run *r, const unsigned char *in, size_t len,
		size_t *out_len)
{
	struct cat_options opt = {r->opt.n || r->opt.b,
				  r->opt.b,
				  r->opt.s,
				  r->opt.E,
				  r->opt.T,
				  r->opt.v};
	struct cat_out out;
	struct catfmt f;
	uint64_t s = r->seed;
	size_t n, done = 0;
	char *buf, *res;
	off_t end;

	if (fuzz_out < 0 && (fuzz_out = memfd_create("cat-out", 0)) < 0)
		abort();
	fuzz_out_cap = r->out_cap;
	out.buf = out.o = malloc(r->out_cap);
	if (out.buf == NULL)
		abort();
	out.limit = out.buf + r->out_cap - CATFMT_SLACK;
	out.flush = flush_to_memfd;
	catfmt_init(&f, &opt, &out, (enum catfmt_scan)r->scan);
	catfmt_number_from(&f, r->first_line);

	/* Each read in its own buffer, with exactly the CATFMT_OVERREAD bytes
	 * of slack the loops may read, filled with junk that must not show. */
	while (done < len) {
		n = fuzz_chunk(&s, len - done);
		buf = malloc(n + CATFMT_OVERREAD);
		if (buf == NULL)
			abort();
		memcpy(buf, in + done, n);
		memset(buf + n, (int)(fuzz_rand(&s) & 0xff), CATFMT_OVERREAD);
		catfmt_buffer(&f, buf, buf + n);
		free(buf);
		done += n;
		/* A file boundary or a read that would block: cat flushes. */
		if ((fuzz_rand(&s) & 7) == 0)
			out.flush(&out);
	}
	catfmt_finish(&f);
	out.flush(&out);
	free(out.buf);

	end = lseek(fuzz_out, 0, SEEK_CUR);
	res = malloc((size_t)end + 1);
	if (res == NULL || pread(fuzz_out, res, (size_t)end, 0) != end ||
	    ftruncate(fuzz_out, 0) < 0 || lseek(fuzz_out, 0, SEEK_SET) < 0)
		abort();
	*out_len = (size_t)end;
	return res;
}

/*
 * The reference: GNU cat's rules one byte at a time, from its
 * documentation and behaviour, sharing nothing with the engine.
 */
char *
fuzz_cat_reference(const struct cat_run *r, const unsigned char *in, size_t len,
		   size_t *out_len)
{
	const struct cat_opts *f = &r->opt;
	int number = f->n || f->b, blank_run = 0, in_line = 0;
	uint64_t line = r->first_line;
	char *res = malloc(len * 32 + 64), *d = res;
	size_t i;

	if (res == NULL)
		abort();
	for (i = 0; i < len; i++) {
		unsigned c = in[i];

		if (c == '\n') {
			if (!in_line) {
				/* An empty line; the start counts as an LF. */
				if (++blank_run >= 2 && f->s) {
					blank_run = 2;
					continue;
				}
				if (number && !f->b)
					d +=
					    sprintf(d, "%6llu\t",
						    (unsigned long long)line++);
			}
			in_line = 0;
			if (f->E)
				*d++ = '$';
			*d++ = '\n';
			continue;
		}
		if (!in_line && number)
			d += sprintf(d, "%6llu\t", (unsigned long long)line++);
		in_line = 1;
		blank_run = 0;
		if (c == '\r' && f->E && !f->v && i + 1 < len &&
		    in[i + 1] == '\n') {
			d += sprintf(d, "^M");
			continue;
		}
		if (c == '\t') {
			d += sprintf(d, f->T ? "^I" : "\t");
			continue;
		}
		if (!f->v) {
			*d++ = (char)c;
			continue;
		}
		if (c >= 128) {
			d += sprintf(d, "M-");
			c -= 128;
		}
		if (c < 32)
			d += sprintf(d, "^%c", c + 64);
		else if (c == 127)
			d += sprintf(d, "^?");
		else
			*d++ = (char)c;
	}
	*d = '\0';
	*out_len = (size_t)(d - res);
	return res;
}

int
fuzz_cat_run(const struct cat_run *r, const unsigned char *in, size_t len,
	     char *why, size_t why_size)
{
	size_t got_len, want_len, i;
	char *got = fuzz_cat_engine(r, in, len, &got_len);
	char *want = fuzz_cat_reference(r, in, len, &want_len);
	int rc = 0;

	for (i = 0; i < got_len && i < want_len && got[i] == want[i]; i++)
		;
	if (i < got_len || i < want_len) {
		snprintf(why, why_size,
			 "cat -%s%s%s%s%s%s (scan %d, first line %llu, buffer "
			 "%zu, seed %llu) over %zu bytes: output differs at "
			 "byte %zu of %zu (reference: %zu)",
			 r->opt.n ? "n" : "", r->opt.b ? "b" : "",
			 r->opt.s ? "s" : "", r->opt.E ? "E" : "",
			 r->opt.T ? "T" : "", r->opt.v ? "v" : "", r->scan,
			 (unsigned long long)r->first_line, r->out_cap,
			 (unsigned long long)r->seed, len, i, got_len,
			 want_len);
		rc = -1;
	}
	free(got);
	free(want);
	return rc;
}

/*
 * Input: options (bits 0-5: n b s E T v; bits 6-7: loop), output buffer
 * size, first line number, cutting seed, then the bytes to format. The
 * line numbers sit just below where the counter gains a digit.
 */
int
fuzz_cat_one(const uint8_t *data, size_t size, char *why, size_t why_size)
{
	static const uint64_t below[] = {
	    1,
	    999999,
	    9999999,
	    4294967295u,
	    99999999999999u,
	    999999999999999u,
	    9999999999999999u,
	    9999999999999999999u,
	};
	static const int scans[] = {8, 16, 0, 32};
	struct cat_run r;

	if (size < 4)
		return 0;
	r.opt.n = data[0] & 1;
	r.opt.b = data[0] >> 1 & 1;
	r.opt.s = data[0] >> 2 & 1;
	r.opt.E = data[0] >> 3 & 1;
	r.opt.T = data[0] >> 4 & 1;
	r.opt.v = data[0] >> 5 & 1;
	r.scan = scans[data[0] >> 6];
	r.out_cap = data[1] == 255 ? 2 * CAT_BUF + CATFMT_SLACK
				   : CATFMT_SLACK + 1 + (size_t)data[1] * 37;
	r.first_line = below[data[2] & 7];
	if (r.first_line > (uint64_t)(data[2] >> 3))
		r.first_line -= data[2] >> 3;
	r.seed = data[3];
	return fuzz_cat_run(&r, data + 4, size - 4, why, why_size);
}
