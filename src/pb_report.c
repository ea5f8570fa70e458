/* SPDX-License-Identifier: MIT */
/*
 * What pipebench prints about a run: pipebench 0.40's running line and
 * summary, our --progress line, and the --json summary.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include "pipebench.h"

double
pb_seconds(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

/*
 * "%7.2f UNIT" as pipebench 0.40 prints sizes and rates: the unit steps up
 * while the integer value is strictly greater than the base.
 */
const char *
pb_amount(char *buf, size_t size, double v)
{
	static const char *const units[] = {"B",  "kB", "MB", "GB",
					    "TB", "PB", "EB"};
	uint64_t base = pb_opt->si ? 1000 : 1024, n = (uint64_t)v;
	unsigned u = 0;

	if (pb_opt->no_units) {
		snprintf(buf, size, "%7llu B", (unsigned long long)n);
		return buf;
	}
	while (n > base && u < 6) {
		n /= base;
		v /= (double)base;
		u++;
	}
	snprintf(buf, size, "%7.2f %s", v, units[u]);
	return buf;
}

const char *
pb_duration(char *buf, size_t size, double t)
{
	int h = (int)(t / 3600), m = (int)(t / 60) % 60;

	snprintf(buf, size, "%02dh%02dm%05.2fs", h, m,
		 t - h * 3600.0 - m * 60.0);
	return buf;
}

/* The running line: Habets' format, or ours with -p or a known size. */
void
pb_print_running(const struct run *r, double t, uint64_t bytes, double rate)
{
	const struct pb_options *opt = pb_opt;
	char a[32], b[32], c[32], d[32];
	time_t now = time(NULL);
	struct tm tm;
	double avg = t > 0 ? (double)bytes / t : 0, left;

	if (opt->raw) {
		fprintf(pb_status, "%llu\n", (unsigned long long)rate);
	} else if (opt->progress || r->size) {
		fprintf(pb_status, "%s: %s %s/second now, %s/second average",
			pb_duration(a, sizeof a, t),
			pb_amount(b, sizeof b, (double)bytes),
			pb_amount(c, sizeof c, rate),
			pb_amount(d, sizeof d, avg));
		if (r->size && avg > 0) {
			left = bytes < r->size ? (double)(r->size - bytes) : 0;
			fprintf(pb_status, ", %3d%%, ETA %s",
				(int)(100.0 * (double)bytes / (double)r->size),
				pb_duration(a, sizeof a, left / avg));
		}
		fputc(opt->status_file ? '\n' : '\r', pb_status);
	} else {
		localtime_r(&now, &tm);
		strftime(d, sizeof d, "%a %b %e %H:%M:%S %Y", &tm);
		fprintf(pb_status, "%s: %s %s/second (%s)%c",
			pb_duration(a, sizeof a, t),
			pb_amount(b, sizeof b, (double)bytes),
			pb_amount(c, sizeof c, rate), d,
			opt->status_file ? '\n' : '\r');
	}
	fflush(pb_status);
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

void
pb_print_summary(const struct run *r)
{
	char a[64], b[32], c[32];
	double t = pb_seconds(&r->start, &r->end);

	/* Blank the running line; 0.40 ends the blanks with LF in files. */
	fprintf(pb_status, "%79s%cSummary:\nPiped %s in %s: %s/second\n", "",
		pb_opt->status_file ? '\n' : '\r',
		pb_amount(a, sizeof a, (double)r->bytes),
		pb_duration(b, sizeof b, t),
		pb_amount(c, sizeof c, t > 0 ? (double)r->bytes / t : 0));
	fprintf(pb_status, "Mode: %s, input %s, ", mode_name(r),
		describe(a, sizeof a, &r->in));
	fprintf(pb_status, "output %s\n", describe(a, sizeof a, &r->out));
}

int
pb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value below which a fraction q of the sorted v lies (nearest rank). */
double
pb_rank(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);

	return n == 0 ? 0 : v[i == 0 ? 0 : i - 1];
}

/* The middle of the sorted v, or the mean of the two middle values. */
double
pb_median(const double *v, size_t n)
{
	return n == 0 ? 0 : (v[(n - 1) / 2] + v[n / 2]) / 2;
}

/* Rates of the sample intervals, with their order statistics. */
static void
json_samples(struct pb_json *j, const struct run *r)
{
	size_t i, n;
	double *v = pb_sample_rates(r, &n), sum = 0;

	pb_json_begin(j, "samples", '{');
	pb_json_real(j, "interval", PB_SAMPLE_SECONDS, 3);
	pb_json_u64(j, "count", n);
	pb_json_begin(j, "rates", '[');
	for (i = 0; i < n; i++) {
		pb_json_real(j, NULL, v[i], 0);
		sum += v[i];
	}
	pb_json_end(j, ']');
	if (n > 0) {
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
