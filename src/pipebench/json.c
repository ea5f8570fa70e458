/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer of pipebench: a line written as it goes, commas
 * and quoting done here and nowhere else; and --json's summary of a run,
 * the last line of the status output.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/wait.h>

#include "pipebench.h"

/*
 * The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0.
 */
static size_t
utf8_length(const unsigned char *s)
{
	size_t n, i;
	unsigned lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* A JSON string: valid UTF-8 whatever s holds, each byte that is not part
 * of a valid sequence (a command line in another encoding) given as
 * U+FFFD, as a decoder that replaces would give it. */
static void
text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		n = utf8_length(p);
		if (n == 0) {
			fputs("\\ufffd", f);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p++);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
	fputc('"', f);
}

void
pb_json_open(struct pb_json *j, FILE *f)
{
	j->f = f;
	j->first = 1;
	fputc('{', f);
}

/* A comma unless first, then "key": (nothing for an array's element). */
static void
json_key(struct pb_json *j, const char *key)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = 0;
	if (key != NULL) {
		text(j->f, key);
		fputc(':', j->f);
	}
}

void
pb_json_string(struct pb_json *j, const char *key, const char *s)
{
	json_key(j, key);
	text(j->f, s);
}

void
pb_json_u64(struct pb_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void
pb_json_real(struct pb_json *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	fprintf(j->f, "%.*f", decimals, v);
}

void
pb_json_null(struct pb_json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}

void
pb_json_bool(struct pb_json *j, const char *key, int v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* Open an object ('{') or array ('['), as a member or an element. */
void
pb_json_begin(struct pb_json *j, const char *key, char bracket)
{
	json_key(j, key);
	fputc(bracket, j->f);
	j->first = 1;
}

void
pb_json_end(struct pb_json *j, char bracket)
{
	fputc(bracket, j->f);
	j->first = 0;
}

void
pb_json_close(struct pb_json *j)
{
	fputs("}\n", j->f);
}

/* Rates of the sample intervals, with their order statistics. */
static void
json_samples(struct pb_json *j, const struct pb_transfer *r)
{
	size_t i, n;
	struct pb_sample *samples = pb_samples(r, &n);
	double *v = malloc((n + 1) * sizeof *v), sum = 0;

	pb_json_begin(j, "samples", '{');
	pb_json_real(j, "interval", PB_SAMPLE_SECONDS, 3);
	pb_json_u64(j, "count", n);
	pb_json_begin(j, "rates", '[');
	for (i = 0; v != NULL && i < n; i++) {
		v[i] = samples[i].rate;
		pb_json_real(j, NULL, v[i], 0);
		sum += v[i];
	}
	pb_json_end(j, ']');
	if (v != NULL && n > 0) {
		qsort(v, n, sizeof *v, pb_cmp_double);
		pb_json_real(j, "min", v[0], 0);
		pb_json_real(j, "avg", sum / (double)n, 0);
		pb_json_real(j, "max", v[n - 1], 0);
		pb_json_real(j, "p50", pb_rank(v, n, 0.5), 0);
		pb_json_real(j, "p90", pb_rank(v, n, 0.9), 0);
		pb_json_real(j, "p99", pb_rank(v, n, 0.99), 0);
	}
	pb_json_end(j, '}');
	free(v);
	free(samples);
}

/* --json: one line, the last of the status output. */
void
pb_print_json(const struct pb_transfer *r, int producer)
{
	double t = r->bytes ? pb_seconds(&r->first, &r->end) : 0;
	struct pb_json j;

	pb_json_open(&j, pb_status);
	pb_json_u64(&j, "bytes", r->bytes);
	if (pb_opt->max_lines)
		pb_json_u64(&j, "lines", r->lines);
	else if (pb_expected.buf != NULL)
		pb_json_u64(&j, "lines",
			    pb_lines_before(&pb_expected, r->bytes));
	pb_json_real(&j, "seconds", t, 6);
	pb_json_real(&j, "rate", t > 0 ? (double)r->bytes / t : 0, 0);
	pb_json_string(&j, "mode", pb_mode_name(r));
	pb_json_string(&j, "input", fio_kind_name(r->in.kind));
	pb_json_string(&j, "output", fio_kind_name(r->out.kind));
	pb_json_u64(&j, "input_pipe_size", r->in.pipe_size);
	pb_json_u64(&j, "output_pipe_size", r->out.pipe_size);
	pb_json_u64(&j, "buffer", pb_opt->bufsize);
	pb_json_bool(&j, "stopped", r->stopped);
	if (pb_opt->exec) {
		if (WIFSIGNALED(producer))
			pb_json_u64(&j, "producer_signal",
				    (uint64_t)WTERMSIG(producer));
		else
			pb_json_u64(&j, "producer_status",
				    (uint64_t)WEXITSTATUS(producer));
	}
	json_samples(&j, r);
	pb_json_close(&j);
}
