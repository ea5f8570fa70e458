/* SPDX-License-Identifier: MIT */
/*
 * One measured run: standard input (or a producer's pipe) to the output
 * through libfastio's pump, the same code that cat ships, counting bytes
 * for the ticker, stopping at --bytes or --lines, checking --expect-*.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "pipebench.h"
#include "prog.h"

volatile sig_atomic_t pb_interrupted;
static _Atomic uint64_t moved; /* the running run's bytes, for the ticker */

static void
on_interrupt(int sig)
{
	(void)sig;
	pb_interrupted = 1;
}

/* No SA_RESTART: a SIGINT must interrupt a waiting splice or read. */
void
pb_catch_interrupt(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
}

uint64_t
pb_moved(void)
{
	return atomic_load_explicit(&moved, memory_order_relaxed);
}

static void
count(struct pb_transfer *r, uint64_t total)
{
	if (r->bytes == 0 && total > 0)
		clock_gettime(CLOCK_MONOTONIC, &r->first);
	r->bytes = total;
	atomic_store_explicit(&moved, total, memory_order_relaxed);
}

/* How many of the n bytes at p --lines lets pass; sets stopped. */
static size_t
line_room(struct pb_transfer *r, const char *p, size_t n)
{
	const char *lf;
	uint64_t c;

	if (!pb_opt->max_lines)
		return n;
	c = pb_count_lines(p, n);
	if (r->lines + c >= pb_opt->max_lines) {
		for (lf = p - 1; r->lines < pb_opt->max_lines; r->lines++)
			lf = memchr(lf + 1, '\n', (size_t)(p + n - lf - 1));
		r->stopped = 1;
		return (size_t)(lf + 1 - p);
	}
	r->lines += c;
	return n;
}

/* What the caller must see of the bytes, if anything: they are checked. */
static int
inspect(struct pb_transfer *r, struct fio_pump *p)
{
	const char *data = NULL;
	size_t len, keep;

	data = fio_pump_data(p, &len);
	if (data == NULL)
		return 0;
	keep = line_room(r, data, len);
	fio_pump_keep(p, keep);
	if (pb_expected.buf != NULL &&
	    pb_verify(&pb_expected, data, keep, r->bytes) < 0)
		return -1;
	return 0;
}

static int
failed(struct pb_transfer *r, const struct fio_pump *p)
{
	if (p->side == FIO_SIDE_OUTPUT && errno == EPIPE && r->sigpipe) {
		r->gone = 1;
		return -1;
	}
	if (p->side == FIO_SIDE_OUTPUT)
		prog_warn(errno, "write error");
	else
		prog_warn(errno, pb_opt->exec || pb_opt->compare
				     ? "read error"
				     : "standard input");
	return -1;
}

/*
 * A relay's own pipes grow to PB_PIPE_SIZE once the stream has outgrown
 * the input pipe it came in: a meter of a few lines costs what cat does,
 * and a long stream is measured through the pipes of a meter. (--exec
 * and --compare grow their pipe before the producer starts, so that
 * every producer finds the same pipe: pb_start_producer.)
 */
static void
grow_when_long(struct pb_transfer *r, struct fio_pump *p)
{
	size_t out;

	if (r->grown || r->bytes <= r->in.pipe_size)
		return;
	r->grown = 1;
	if (r->in.kind == FIO_PIPE)
		r->in.pipe_size = fio_pipe_grow(r->in.fd, PB_PIPE_SIZE);
	/* Called for any output: a splice from the grown input pipe into
	 * a file or /dev/null takes what that pipe holds, 16 times what
	 * the pipe it came in held. */
	out = fio_pump_grow(p, PB_PIPE_SIZE);
	if (r->out.kind == FIO_PIPE)
		r->out.pipe_size = out;
}

/* The pump's steps until the end, a limit, an error or a SIGINT. */
static int
pump_through(struct pb_transfer *r, struct fio_pump *p)
{
	ssize_t n;
	int rc;

	while (!pb_interrupted && !r->stopped) {
		n = fio_pump_fill(p);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return failed(r, p);
		if (n == 0) {
			r->stopped = p->left == 0;
			return r->stopped
				   ? 0
				   : pb_verify_end(&pb_expected, r->bytes);
		}
		if (p->got == (uint64_t)n)
			r->mode = fio_pump_strategy(p);
		if (inspect(r, p) < 0)
			return -1;
		while ((rc = fio_pump_flush(p)) < 0 && errno == EINTR &&
		       !pb_interrupted)
			;
		count(r, p->total);
		if (rc < 0 && errno != EINTR)
			return failed(r, p);
		grow_when_long(r, p);
	}
	return 0;
}

/*
 * Move in to out, measuring. Bytes that must be seen (--touch, --lines,
 * --expect-*) go through buf; the rest as the pump sees fit. Returns 0,
 * or -1 after a message.
 */
int
pb_measure(struct pb_transfer *r, char *buf)
{
	const struct pb_options *opt = pb_opt;
	unsigned flags = FIO_PUMP_SIGNALS;
	struct fio_pump p;
	int rc;

	(void)fio_classify(r->in.fd, &r->in);
	(void)fio_classify(r->out.fd, &r->out);
	if (opt->touch || opt->max_lines || pb_expected.buf != NULL)
		flags |= FIO_PUMP_USER;
	atomic_store_explicit(&moved, 0, memory_order_relaxed);
	fio_pump_init(&p, &r->in, &r->out, buf, opt->bufsize,
		      opt->max_bytes ? opt->max_bytes : FIO_FOREVER, flags);
	r->mode = FIO_READ_WRITE;
	rc = pump_through(r, &p);
	fio_pump_end(&p);
	clock_gettime(CLOCK_MONOTONIC, &r->end);
	return rc;
}
