/* SPDX-License-Identifier: MIT */
/*
 * What pipebench prints about a run: pipebench 0.40's running line and
 * summary, our --progress line, and the --json summary.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "pipebench.h"

double
pb_seconds(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

/* Microseconds of a timestamp, truncated as gettimeofday() gives them. */
int64_t
pb_usec(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000 + t->tv_nsec / 1000;
}

/*
 * A size or rate as pipebench 0.40 prints it, "%7.2f UNIT" with the B of
 * bytes: integer hundredths that truncate, a unit step while the value is
 * more than base (1024, or 1000 with -I) units, and a first step before
 * the hundredths for values past base squared; "%7.0f B" with -u. 10,000
 * bytes are 9.76 kB, not 9.77.
 */
const char *
pb_amount(char *buf, size_t size, uint64_t v)
{
	static const char *const units[] = {"", "k", "M", "G", "T", "P", "E"};
	uint64_t base = pb_opt->si ? 1000 : 1024, x = v;
	unsigned e = 0;

	if (pb_opt->no_units) {
		snprintf(buf, size, "%7.0f B", (double)v);
		return buf;
	}
	if (x > base * base) {
		e++;
		x /= base;
	}
	x *= 100;
	while (x > 100 * base) {
		e++;
		x /= base;
	}
	for (; e >= sizeof units / sizeof units[0]; e--)
		x *= base;
	snprintf(buf, size, "%7.2f %sB", (double)x / 100.0, units[e]);
	return buf;
}

/* pb_amount() without its padding, for tables and the terminal. */
const char *
pb_amount_short(char *buf, size_t size, uint64_t v)
{
	const char *s = pb_amount(buf, size, v);

	return s + strspn(s, " ");
}

/* A duration as 0.40 prints it: hours unbounded, hundredths truncated. */
const char *
pb_duration(char *buf, size_t size, int64_t usec)
{
	long long s = (long long)(usec / 1000000);

	snprintf(buf, size, "%.2lldh%.2lldm%.2lld.%.2llds", s / 3600,
		 s / 60 % 60, s % 60, (long long)(usec % 1000000 / 10000));
	return buf;
}

/*
 * 0.40's rate: bytes over seconds in single precision, the seconds from
 * the two timestamps' fields as it subtracts them, then truncated.
 */
uint64_t
pb_summary_rate(uint64_t bytes, int64_t from_us, int64_t to_us)
{
	/*
	 * Stored, so that each value is rounded to single precision on
	 * every CPU: i386's x87 keeps float arithmetic wider in registers,
	 * and printed 810000561 B/second for 1,000,000,000 B in 1.23 s where
	 * 0.40 on amd64 prints 810000576 (the goldens; -u shows every digit).
	 */
	volatile float n, rate;

	n = (float)((double)(to_us / 1000000 - from_us / 1000000) +
		    (double)(to_us % 1000000 - from_us % 1000000) / 1000000.0);
	if (n == 0)
		return 0;
	rate = (float)bytes / n;
	return (uint64_t)rate;
}

static const char *
mode_name(const struct run *r)
{
	return r->mode == FIO_WRITE || r->mode == FIO_READFILE ? "copy"
							       : "splice";
}

/* "pipe of 1048576 bytes", "devnull", ... */
static const char *
describe(char *buf, size_t size, const struct fio_fd *f)
{
	if (f->kind == FIO_PIPE && f->pipe_size)
		snprintf(buf, size, "pipe of %zu bytes", f->pipe_size);
	else
		snprintf(buf, size, "%s", fio_kind_name(f->kind));
	return buf;
}

/*
 * 0.40's summary, byte for byte: 79 spaces that blank the running line,
 * ended by CR (LF in a status file), then two lines. --verbose adds ours.
 */
void
pb_print_summary(const struct run *r)
{
	int64_t from = pb_usec(&r->start), to = pb_usec(&r->end);
	char a[64], b[32], c[32];

	fprintf(pb_status, "%79s%cSummary:\nPiped %s in %s: %s/second\n", "",
		pb_opt->status_file ? '\n' : '\r',
		pb_amount(a, sizeof a, r->bytes),
		pb_duration(b, sizeof b, to - from),
		pb_amount(c, sizeof c, pb_summary_rate(r->bytes, from, to)));
	if (!pb_opt->verbose)
		return;
	fprintf(pb_status, "Mode: %s, input %s, ", mode_name(r),
		describe(a, sizeof a, &r->in));
	fprintf(pb_status, "output %s\n", describe(a, sizeof a, &r->out));
}

/* Rates of the sample intervals, with their order statistics. */
static void
json_samples(struct pb_json *j, const struct run *r)
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
pb_print_json(const struct run *r, int producer)
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
	pb_json_string(&j, "mode", mode_name(r));
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
