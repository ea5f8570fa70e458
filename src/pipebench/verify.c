/* SPDX-License-Identifier: MIT */
/*
 * pipebench's stream checker: the expected bytes are kept as one buffer,
 * the file's contents, or the line repeated to at least 64 KiB so that a
 * received chunk is compared with a few long memcmp() calls.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

struct pb_expect pb_expected;

/* LFs in p[0..n), a word at a time (--lines over long streams). */
uint64_t
pb_count_lines(const char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = ones << 7,
		       low = ~high;
	uint64_t c = 0, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		w ^= ones * '\n';
		/* High bit of each byte set unless that byte was an LF. */
		w = ((w & low) + low) | w;
		c += (uint64_t)__builtin_popcountll(~w & high);
	}
	while (n--)
		c += *p++ == '\n';
	return c;
}

int
pb_expect_line(struct pb_expect *e, const char *line)
{
	size_t i;

	memset(e, 0, sizeof *e);
	e->err = stderr;
	e->period = strlen(line) + 1;
	e->len = e->period * ((1 << 16) / e->period + 1);
	e->buf = malloc(e->len);
	if (e->buf == NULL)
		return -1;
	for (i = 0; i < e->len; i += e->period) {
		memcpy(e->buf + i, line, e->period - 1);
		e->buf[i + e->period - 1] = '\n';
	}
	e->period_lines = pb_count_lines(e->buf, e->period);
	return 0;
}

int
pb_expect_file(struct pb_expect *e, const char *path)
{
	size_t cap = 1 << 16;
	char *grown;
	ssize_t n;
	int fd;

	memset(e, 0, sizeof *e);
	e->err = stderr;
	e->file = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	e->buf = malloc(cap);
	for (;;) {
		if (e->buf == NULL) {
			errno = ENOMEM;
			break;
		}
		n = read(fd, e->buf + e->len, cap - e->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return (int)n;
		}
		e->len += (size_t)n;
		if (e->len == cap) {
			grown = realloc(e->buf, cap *= 2);
			if (grown == NULL)
				free(e->buf);
			e->buf = grown;
		}
	}
	close(fd);
	return -1;
}

/* Lines of the stream before offset off (it matched up to there). */
uint64_t
pb_lines_before(const struct pb_expect *e, uint64_t off)
{
	if (e->period == 0)
		return pb_count_lines(e->buf, (size_t)off);
	return off / e->period * e->period_lines +
	       pb_count_lines(e->buf, (size_t)(off % e->period));
}

/* "WHAT: "LINE"" for the line around p[at], control bytes escaped. */
static void
show_line(FILE *f, const char *what, const char *p, size_t len, size_t at)
{
	size_t start = at, end = at, i;

	while (start > 0 && p[start - 1] != '\n' && at - start < 60)
		start--;
	while (end < len && p[end] != '\n' && end - start < 120)
		end++;
	fprintf(f, "%s: %s: \"", program_name, what);
	for (i = start; i < end; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputs("\"\n", f);
}

/* Compare len bytes received at stream offset base; report a mismatch. */
int
pb_verify(struct pb_expect *e, const char *p, size_t len, uint64_t base)
{
	size_t i = 0, n, k;

	while (i < len) {
		if (e->pos == e->len) {
			if (e->period == 0) {
				fprintf(e->err,
					"%s: mismatch at byte %llu, line %llu: "
					"%s has ended\n",
					program_name,
					(unsigned long long)(base + i),
					(unsigned long long)pb_lines_before(
					    e, base + i) +
					    1,
					prog_quote(e->file));
				return -1;
			}
			e->pos = 0;
		}
		n = e->len - e->pos;
		if (n > len - i)
			n = len - i;
		if (memcmp(p + i, e->buf + e->pos, n) != 0) {
			for (k = 0; p[i + k] == e->buf[e->pos + k]; k++)
				;
			fprintf(
			    e->err, "%s: mismatch at byte %llu, line %llu\n",
			    program_name, (unsigned long long)(base + i + k),
			    (unsigned long long)pb_lines_before(e,
								base + i + k) +
				1);
			show_line(e->err, "expected", e->buf, e->len,
				  e->pos + k);
			show_line(e->err, "received", p, len, i + k);
			return -1;
		}
		e->pos += n;
		i += n;
	}
	return 0;
}

/* At EOF: an --expect-file stream must not be short. */
int
pb_verify_end(const struct pb_expect *e, uint64_t bytes)
{
	if (e->buf == NULL || e->period || e->pos == e->len)
		return 0;
	fprintf(e->err,
		"%s: stream ended at byte %llu, line %llu: %s is longer\n",
		program_name, (unsigned long long)bytes,
		(unsigned long long)pb_lines_before(e, bytes) + 1,
		prog_quote(e->file));
	return -1;
}
