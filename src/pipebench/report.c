/* SPDX-License-Identifier: MIT */
/*
 * pipebench 0.40's summary of a run, byte for byte, and --verbose's line
 * on how the bytes moved.
 */
#include "config.h"

#include <stdio.h>

#include "pipebench.h"

/*
 * 0.40's rate: bytes over seconds in single precision, the seconds from
 * the two timestamps' fields as it subtracts them, then truncated.
 */
static uint64_t
summary_rate(uint64_t bytes, int64_t from_us, int64_t to_us)
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

/* The call that moved the bytes: copy (read() and write()), or the
 * kernel's own. */
const char *
pb_mode_name(const struct pb_transfer *r)
{
	switch (r->mode) {
	case FIO_SPLICE:
		return "splice";
	case FIO_COPY_FILE_RANGE:
		return "copy_file_range";
	case FIO_SENDFILE:
		return "sendfile";
	default:
		return "copy";
	}
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
pb_print_summary(const struct pb_transfer *r)
{
	int64_t from = pb_usec(&r->start), to = pb_usec(&r->end);
	char a[64], b[32], c[32];

	fprintf(pb_status, "%79s%cSummary:\nPiped %s in %s: %s/second\n", "",
		pb_opt->status_file ? '\n' : '\r',
		pb_amount(a, sizeof a, r->bytes),
		pb_duration(b, sizeof b, to - from),
		pb_amount(c, sizeof c, summary_rate(r->bytes, from, to)));
	if (!pb_opt->verbose)
		return;
	fprintf(pb_status, "Mode: %s, input %s, ", pb_mode_name(r),
		describe(a, sizeof a, &r->in));
	fprintf(pb_status, "output %s\n", describe(a, sizeof a, &r->out));
}
