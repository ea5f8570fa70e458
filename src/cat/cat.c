/* SPDX-License-Identifier: MIT */
/*
 * cat: the command line, one call per operand, and the one choice that is
 * cat's own, as OpenBSD's cat_file() makes it: any formatting option, and
 * the bytes go through the formatter (format.c); none, and libfastio's
 * pump moves them the fastest way it knows (src/fastio/pump.c).
 */
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

#include "format.h"
#include "fastio/fastio.h"
#include "prog.h"

/*
 * Most descriptors cat keeps open to close them with one close_range(),
 * far below the usual 1024-descriptor soft limit: a run of them closed at
 * once costs less than one by one (BENCHMARKS.md, "Decisions",
 * "CLOSE_BATCH").
 */
#define CLOSE_BATCH 256

/*
 * Output waits here: formatted output, or (without options) the bytes of
 * small files, gathered into few big writes of CAT_OUT. CATFMT_SLACK
 * covers the most one formatting step writes past its check for room.
 * The guard is for bench/sweep.sh's variants.
 */
#ifndef CAT_OUT
#define CAT_OUT (2 * CAT_BUF)
#endif
#define OUT_CAP (CAT_OUT + CATFMT_SLACK)

static struct cat_options opt;
static int formatting, read_stdin;
static struct fio_fd out;
static struct cat_out obuf;
static struct catfmt fmt;
static struct fio_pump pump;
static struct fio_writer writer;
static int bulk_input; /* formatting a regular file (see put_formatted) */

static int
usage(int status)
{
	static const char *const options[] = {
	    "  -A, --show-all           equivalent to -vET\n",
	    "  -b, --number-nonblank    number nonempty output lines, "
	    "overrides -n\n",
	    "  -e                       equivalent to -vE\n",
	    "  -E, --show-ends          display $ or ^M$ at end of each line\n",
	    "  -n, --number             number all output lines\n",
	    "  -s, --squeeze-blank      suppress repeated empty output lines\n",
	    "  -t                       equivalent to -vT\n",
	    "  -T, --show-tabs          display TAB characters as ^I\n",
	    "  -u                       (ignored)\n",
	    "  -v, --show-nonprinting   use ^ and M- notation, except for LFD "
	    "and TAB\n",
	};
	size_t i;

	if (status != EXIT_SUCCESS) {
		prog_try_help();
		return status;
	}
	prog_locale();
	/* In GNU 9.10's pieces, one an option, so that its catalog
	 * translates them. */
	printf(_("Usage: %s [OPTION]... [FILE]...\n"), program_name);
	fputs(_("Concatenate FILE(s) to standard output.\n"), stdout);
	fputs(_("\nWith no FILE, or when FILE is -, read standard input.\n"),
	      stdout);
	for (i = 0; i < sizeof options / sizeof options[0]; i++)
		prog_option("cat", _(options[i]));
	prog_help_version("cat");
	printf(_("\nExamples:\n"
		 "  %s f - g  Output f's contents, then standard input, then "
		 "g's contents.\n"
		 "  %s        Copy standard input to standard output.\n"),
	       program_name, program_name);
	fputs("\n"
	      "This cat is part of fastio-utils, a faster drop-in for GNU "
	      "coreutils' cat.\n"
	      "Full documentation: man " CAT_PAGE "\n",
	      stdout);
	return prog_close_stdout();
}

/* A write failed: GNU's message, and cat ends there, as GNU's does. */
static _Noreturn void
die_write(void)
{
	prog_warn(errno, "write error");
	exit(EXIT_FAILURE);
}

/*
 * The formatter's output buffer goes out (dies on failure), and the
 * writer gives the buffer to fill next. While cat reads a regular file,
 * output may trail behind (libfastio may write it from a second thread):
 * no read can then keep it from the reader for long. A full buffer while
 * input follows goes out in whole blocks, its rest first in the next
 * (whole), as GNU's cat writes whole buffers: a reader that takes one
 * read as a block (dd without iflag=fullblock) gets what GNU's gives it.
 */
static void
put_formatted(struct cat_out *b, int bulk, int whole)
{
	size_t n = (size_t)(b->o - b->buf), kept = 0;

	if (whole)
		b->buf = fio_writer_put_whole(&writer, b->buf, n, bulk, &kept);
	else
		b->buf = fio_writer_put(&writer, b->buf, n, bulk);
	if (b->buf == NULL)
		die_write();
	b->o = b->buf + kept;
	b->limit = b->buf + OUT_CAP - CATFMT_SLACK;
}

/* The formatter's flush: its buffer is full. */
static void
xflush_formatted(struct cat_out *b)
{
	put_formatted(b, bulk_input, 1);
}

/* Everything that waits goes out, or cat dies of the write error. */
static void
xflush(void)
{
	if (formatting)
		put_formatted(&obuf, 0, 0);
	else if (fio_pump_flush_all(&pump) < 0)
		die_write();
}

/* Report an input problem after the output that preceded it. */
static int
input_error(int err, const char *name)
{
	xflush();
	prog_warn(err, "%s", prog_quote(name));
	return 1;
}

/*
 * Without options: the pump picks how. A failure on its output side ends
 * cat; on its input side it is this operand's.
 */
static int
copy_file(const struct fio_fd *in, const char *name)
{
	ssize_t n;

	fio_pump_next(&pump, in, FIO_FOREVER);
	while ((n = fio_pump_fill(&pump)) > 0)
		if (fio_pump_flush(&pump) < 0)
			die_write();
	if (n == 0)
		return 0;
	if (pump.side == FIO_SIDE_OUTPUT)
		die_write();
	return input_error(errno, name);
}

/* Nothing to read right now, so the next read may wait: show what we have. */
static void
flush_if_idle(const struct fio_fd *in)
{
	int pending = 0;

	if (obuf.o == obuf.buf || in->kind == FIO_REGULAR)
		return;
	if (ioctl(in->fd, FIONREAD, &pending) < 0 || pending == 0)
		xflush();
}

/*
 * With options: the pump reads (into its buffer, which stays in cache:
 * see CAT_BUF) and the formatter writes into ours.
 */
static int
format_file(const struct fio_fd *in, const char *name)
{
	const char *data;
	size_t len;
	ssize_t n;

	fio_pump_next(&pump, in, FIO_FOREVER);
	bulk_input = in->kind == FIO_REGULAR;
	/* A read that may wait without end: a write error must be known. */
	if (!bulk_input && fio_writer_drain(&writer) < 0)
		die_write();
	for (;;) {
		flush_if_idle(in);
		n = fio_pump_fill(&pump);
		if (n == 0)
			return 0;
		if (n < 0)
			return input_error(errno, name);
		data = fio_pump_data(&pump, &len);
		catfmt_buffer(&fmt, data, data + len);
		fio_pump_keep(&pump, 0);
	}
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
	xflush();
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
 * order), saving one syscall per file (see CLOSE_BATCH). Only read-only
 * descriptors wait here, whose close reports no error on Linux.
 */
static struct fio_close_run done_fds = {-1, -1, CLOSE_BATCH};

static int
cat_file(const char *name)
{
	int own = strcmp(name, "-") != 0, fd, rc;
	struct fio_fd in;

	if (own) {
		fd = open(name, O_RDONLY | O_CLOEXEC);
		/* Out of descriptors: the batch waiting to be closed first. */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) &&
		    done_fds.lo >= 0) {
			fio_close_now(&done_fds);
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
	if (rc < 0)
		rc = input_error(errno, name);
	else if (is_output(&in)) {
		prog_warn(0, "%s: input file is output file", prog_quote(name));
		rc = 1;
	} else
		rc = formatting ? format_file(&in, name) : copy_file(&in, name);
	if (own && rc == 0 && fd > STDERR_FILENO)
		fio_close_later(&done_fds, fd);
	else if (own && close(fd) < 0)
		rc = input_error(errno, name);
	return rc;
}

/*
 * Buffers and the pump for the run. Formatting reads CAT_BUF at a time
 * into a buffer with CATFMT_OVERREAD readable bytes after it.
 */
static int
setup(void)
{
	const char *scan = getenv("FASTIO_CAT_SCAN");
	char *in;

	(void)fio_init();
	formatting =
	    opt.number || opt.squeeze || opt.ends || opt.tabs || opt.nonprint;
	obuf.buf = obuf.o = fio_buffer_alloc(OUT_CAP);
	if (obuf.buf == NULL)
		return -1;
	obuf.limit = obuf.buf + OUT_CAP - CATFMT_SLACK;
	obuf.flush = xflush_formatted;
	fio_writer_init(&writer, &out, obuf.buf, OUT_CAP);
	if (!formatting) {
		fio_pump_init(&pump, NULL, &out, obuf.buf, OUT_CAP, FIO_FOREVER,
			      FIO_PUMP_GATHER);
		return 0;
	}
	in = fio_buffer_alloc(CAT_BUF + CATFMT_OVERREAD);
	if (in == NULL)
		return -1;
	fio_pump_init(&pump, NULL, &out, in, CAT_BUF, FIO_FOREVER,
		      FIO_PUMP_USER);
	catfmt_init(&fmt, &opt, &obuf,
		    scan == NULL	      ? CATFMT_SCAN_BEST
		    : strcmp(scan, "8") == 0  ? CATFMT_SCAN_PORTABLE
		    : strcmp(scan, "16") == 0 ? CATFMT_SCAN_GENERAL
		    : strcmp(scan, "32") == 0 ? CATFMT_SCAN_AVX2
					      : CATFMT_SCAN_BEST);
	return 0;
}

/* Options into opt: -1 to go on, or the exit status. */
static int
parse_options(int argc, char *argv[])
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
	int c;

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
		default:
			return prog_common_option(c, "cat", usage);
		}
	}
	return -1;
}

/*
 * Every operand in turn. Without options, libfastio may have read small
 * files ahead: their bytes join the output as their own read's would.
 */
static int
cat_all(char *names[], size_t count)
{
	struct fio_ahead *ahead = NULL;
	const char *data;
	size_t i, len;
	int rc = 0;

	if (!formatting)
		ahead = fio_ahead_start(names, count, &out);
	for (i = 0; i < count; i++) {
		data = ahead != NULL ? fio_ahead_take(ahead, i, &len) : NULL;
		if (data == NULL)
			rc |= cat_file(names[i]);
		else if (fio_pump_put(&pump, data, len) < 0)
			die_write();
	}
	fio_ahead_end(ahead);
	return rc;
}

int
main(int argc, char *argv[])
{
	static char *no_files[] = {"-", NULL};
	size_t count;
	int rc = 0;

	prog_init(argv[0]);
	prog_textdomain("coreutils");
	rc = parse_options(argc, argv);
	if (rc >= 0)
		return rc;
	rc = 0;
	argv += optind;
	if (*argv == NULL)
		argv = no_files;
	if (fio_classify(STDOUT_FILENO, &out) < 0) {
		prog_warn(errno, "standard output");
		return EXIT_FAILURE;
	}
	if (setup() < 0) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	for (count = 0; argv[count] != NULL; count++)
		continue;
	rc = cat_all(argv, count);
	fio_close_now(&done_fds);
	if (formatting)
		catfmt_finish(&fmt);
	xflush();
	if (fio_writer_end(&writer) < 0)
		die_write();
	fio_pump_end(&pump);
	if (read_stdin && close(STDIN_FILENO) < 0) {
		prog_warn(errno, "closing standard input");
		return EXIT_FAILURE;
	}
	return prog_close_stdout() | rc;
}
