/* SPDX-License-Identifier: MIT */
/*
 * pipebench's --expect-line and --expect-file checker (src/pipebench/verify.c)
 * against a reference that compares byte by byte; its reports go to a
 * memory stream, so the byte offset and line number can be compared too.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pipebench/pipebench.h"

/* What a run reports: nothing, a mismatch, or a stream shorter than the
 * file, with the byte offset and the line number. */
enum verdict { SAME, MISMATCH, ENDED, SHORT };

struct report {
	enum verdict what;
	unsigned long long byte, line;
};

static const char *const verdict_name[] = {"no mismatch", "a mismatch",
					   "the file ended", "a short stream"};

static struct report
parse(const char *msg)
{
	struct report r = {SAME, 0, 0};
	const char *p;

	if ((p = strstr(msg, "mismatch at byte ")) != NULL &&
	    sscanf(p, "mismatch at byte %llu, line %llu", &r.byte, &r.line) ==
		2)
		r.what = strstr(msg, " has ended\n") != NULL ? ENDED : MISMATCH;
	else if ((p = strstr(msg, "stream ended at byte ")) != NULL &&
		 sscanf(p, "stream ended at byte %llu, line %llu", &r.byte,
			&r.line) == 2)
		r.what = SHORT;
	else if (*msg != '\0')
		r.what = (enum verdict) - 1;
	return r;
}

static unsigned long long
lines_upto(const unsigned char *s, size_t n)
{
	unsigned long long c = 1;

	while (n--)
		c += *s++ == '\n';
	return c;
}

/*
 * Input: mode (bit 0: a file, else a line), pattern length, cutting seed,
 * 3 bytes of file length and 3 of stream length, the pattern, then edits
 * of 4 bytes each (3 of position, 1 of value) applied to the stream. The
 * expected stream is the pattern repeated (each copy followed by an LF
 * for a line); the received stream is that, edited.
 */
int
fuzz_expect_one(const uint8_t *data, size_t size, char *why, size_t why_size)
{
	int file_mode;
	size_t plen, flen, slen, lim, i, done, n, period;
	uint64_t seed;
	unsigned char *pat, *want, *stream;
	char *line = NULL, path[64], *msg = NULL, *buf;
	size_t msg_len = 0;
	struct report got, ref = {SAME, 0, 0};
	struct pb_expect e;
	int fd = -1, rc = 0, bad = 0;

	if (size < 9)
		return 0;
	file_mode = data[0] & 1;
	plen = data[1] % 100;
	seed = data[2];
	flen =
	    ((size_t)data[3] << 16 | (size_t)data[4] << 8 | data[5]) % 200000;
	slen =
	    ((size_t)data[6] << 16 | (size_t)data[7] << 8 | data[8]) % 300000;
	data += 9;
	size -= 9;
	if (plen > size)
		plen = size;
	pat = malloc(plen + 1);
	if (pat == NULL)
		abort();
	memcpy(pat, data, plen);
	data += plen;
	size -= plen;
	if (!file_mode) {
		/* A command-line argument: no NUL. */
		for (i = 0; i < plen; i++)
			if (pat[i] == '\0')
				pat[i] = 'x';
		pat[plen] = '\n';
		period = plen + 1;
		flen = 0;
	} else {
		period = plen;
		if (plen == 0)
			flen = 0;
	}

	/* The expected stream, long enough for the received one. */
	n = (slen > flen ? slen : flen) + 1;
	want = malloc(n);
	stream = malloc(slen + 1);
	if (want == NULL || stream == NULL)
		abort();
	for (i = 0; i < n; i++)
		want[i] = period ? pat[i % period] : 'x';
	memcpy(stream, want, slen);
	for (; size >= 4 && slen > 0; data += 4, size -= 4)
		stream[((size_t)data[0] << 16 | (size_t)data[1] << 8 |
			data[2]) %
		       slen] = data[3];

	lim = file_mode && flen < slen ? flen : slen;
	for (i = 0; i < lim && stream[i] == want[i]; i++)
		;
	if (i < lim)
		ref = (struct report){MISMATCH, i, lines_upto(stream, i)};
	else if (file_mode && slen > flen)
		ref = (struct report){ENDED, flen, lines_upto(stream, flen)};
	else if (file_mode && slen < flen)
		ref = (struct report){SHORT, slen, lines_upto(stream, slen)};

	/* The checker, fed the stream in reads of random sizes. */
	if (file_mode) {
		fd = memfd_create("expected", 0);
		if (fd < 0 || write(fd, want, flen) != (ssize_t)flen)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		if (pb_expect_file(&e, path) < 0)
			abort();
	} else {
		line = malloc(plen + 1);
		if (line == NULL)
			abort();
		memcpy(line, pat, plen);
		line[plen] = '\0';
		if (pb_expect_line(&e, line) < 0)
			abort();
	}
	e.err = open_memstream(&msg, &msg_len);
	if (e.err == NULL)
		abort();
	for (done = 0; done < slen && !bad; done += n) {
		n = fuzz_chunk(&seed, slen - done);
		buf = malloc(n);
		if (buf == NULL)
			abort();
		memcpy(buf, stream + done, n);
		bad = pb_verify(&e, buf, n, done) < 0;
		free(buf);
	}
	if (!bad)
		(void)pb_verify_end(&e, slen);
	fclose(e.err);
	got = parse(msg);
	if (got.what != ref.what || got.byte != ref.byte ||
	    got.line != ref.line) {
		snprintf(why, why_size,
			 "--expect-%s of a %zu-byte pattern (file %zu bytes), "
			 "stream of %zu bytes: reported %s at byte %llu, line "
			 "%llu; the reference finds %s at byte %llu, line "
			 "%llu; message: %s",
			 file_mode ? "file" : "line", plen, flen, slen,
			 got.what <= SHORT ? verdict_name[got.what] : "garbage",
			 got.byte, got.line, verdict_name[ref.what], ref.byte,
			 ref.line, msg);
		rc = -1;
	}
	free(msg);
	free(e.buf);
	free(line);
	free(pat);
	free(want);
	free(stream);
	if (fd >= 0)
		close(fd);
	return rc;
}
