/* SPDX-License-Identifier: MIT */
/*
 * pipebench: pass standard input to standard output unchanged and report
 * the throughput, with the flags and formats of Thomas Habets' pipebench
 * 0.40; plus limits, stream verification, a JSON summary, and running and
 * comparing producers on pipes of our own. This file runs the parts
 * (pipebench.h) on the options options.c reads.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

const struct pb_options *pb_opt;
FILE *pb_status;

/*
 * Each of descriptors 0-2 that came closed gets /dev/null, before
 * anything of ours is opened: a pipe of ours that landed there would be
 * taken for our standard input or output, by us and by what we start.
 * The bits of those that came closed: the run treats them as closed
 * (their reads and writes fail as they would have), and what we start
 * gets them closed, as from a shell.
 */
static unsigned
hold_std(void)
{
	unsigned closed = 0;
	int fd, null;

	for (fd = 0; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (null == fd)
			closed |= 1u << fd;
		else if (null >= 0)
			close(null);
	}
	return closed;
}

/*
 * One run of standard input, or of --exec's command, to standard output:
 * the display while it flows, then the summary, --json, --plot and
 * --export-csv.
 */
static int
run_one(char **command, char *buf, struct pb_export *csv)
{
	const struct pb_options *opt = pb_opt;
	int rc, c, wstatus = 0, display;
	struct sigaction old_pipe;
	struct pb_transfer r;
	pid_t pid = -1;
	off_t at;

	memset(&r, 0, sizeof r);
	/*
	 * A reader that stops early (`pipebench | head`) would kill us by
	 * SIGPIPE and take the measurement with us: the write's EPIPE ends
	 * the run instead, the summary and the rest come, and then we die of
	 * the SIGPIPE, as 0.40 did. A caller that ignores SIGPIPE gets the
	 * write error, as from GNU's tools.
	 */
	r.sigpipe = sigaction(SIGPIPE, NULL, &old_pipe) == 0 &&
		    old_pipe.sa_handler == SIG_DFL;
	if (r.sigpipe)
		signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	/* A closed one's read or write fails as it would have (EBADF). */
	r.in.fd = pb_std_closed & 1u << STDIN_FILENO ? -1 : STDIN_FILENO;
	r.out.fd = pb_std_closed & 1u << STDOUT_FILENO ? -1 : STDOUT_FILENO;
	if (opt->exec) {
		pid = pb_start_producer(NULL, command, &r.in.fd);
		if (pid < 0) {
			prog_warn(errno, "%s", prog_quote(command[0]));
			return EXIT_FAILURE;
		}
	}
	r.size = opt->size;
	if (!r.size && !opt->exec && fio_classify(r.in.fd, &r.in) == 0 &&
	    fio_sized(&r.in)) {
		at = lseek(STDIN_FILENO, 0, SEEK_CUR);
		if (at >= 0 && at < r.in.st.st_size)
			r.size = (uint64_t)(r.in.st.st_size - at);
	}
	if (opt->max_bytes && r.size > opt->max_bytes)
		r.size = opt->max_bytes;
	display = pb_display_setup();
	pb_ticker_start(&r, display);
	rc = pb_measure(&r, buf) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	pb_ticker_stop();
	if (display)
		pb_display_end(&r);
	if ((rc == EXIT_SUCCESS || pb_interrupted || r.gone) &&
	    !opt->no_summary && !opt->raw)
		pb_print_summary(&r);
	if (pid > 0) {
		close(r.in.fd);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		c = pb_producer_result(command[0], wstatus, &r);
		if (rc == EXIT_SUCCESS)
			rc = c;
	}
	if (opt->plot || csv->path != NULL)
		rc |= pb_samples_out(&r, csv);
	/* Last, so that a script takes the last line. */
	if (opt->json)
		pb_print_json(&r, wstatus);
	pb_ticker_free();
	if (r.gone) {
		fflush(NULL);
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	return rc;
}

int
main(int argc, char *argv[])
{
	static struct pb_options opt;
	struct pb_export csv;
	struct sigaction old_int;
	char *buf;
	int rc;

	pb_std_closed = hold_std();
	pb_sigpipe_ignored = sigaction(SIGPIPE, NULL, &old_int) == 0 &&
			     old_int.sa_handler == SIG_IGN;
	prog_init(argv[0]);
	prog_locale();
	rc = pb_parse_options(argc, argv, &opt);
	pb_opt = &opt;
	if (rc != GO_ON) {
		free(opt.names);
		return rc;
	}
	pb_status = stderr;
	if (opt.status_file != NULL) {
		pb_status =
		    fopen(opt.status_file, opt.status_append ? "ae" : "we");
		if (pb_status == NULL) {
			prog_warn(errno, "%s", prog_quote(opt.status_file));
			return EXIT_FAILURE;
		}
	}
	if ((opt.expect_line &&
	     pb_expect_line(&pb_expected, opt.expect_line) < 0) ||
	    (opt.expect_file &&
	     pb_expect_file(&pb_expected, opt.expect_file) < 0)) {
		prog_warn(errno, "%s", prog_quote(opt.expect_file));
		return EXIT_FAILURE;
	}
	/* Page-aligned, as libfastio's own buffers: the kernel's copy into a
	 * buffer 16 bytes into a page (malloc's) from whole pages runs
	 * several times slower on some CPUs, and a meter that reads must not
	 * measure its own buffer (fio_buffer_alloc). */
	buf = fio_buffer_alloc(opt.bufsize);
	if (buf == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	/* Export files are made before any run: a bad path costs nothing. */
	if (pb_export_open(&csv, opt.export_csv) < 0) {
		fio_buffer_free(buf, opt.bufsize);
		return PB_EXPORT_REFUSED;
	}
	(void)fio_init();
	/*
	 * A caller may leave SIGCHLD ignored, and then the kernel reaps our
	 * children before we can learn how they ended; an ignored SIGINT
	 * stays ignored, as a shell leaves it for what it starts. The
	 * pipeline waits for its signals itself (pipeline.c).
	 */
	signal(SIGCHLD, SIG_DFL);
	if (!opt.pipeline && sigaction(SIGINT, NULL, &old_int) == 0 &&
	    old_int.sa_handler != SIG_IGN)
		pb_catch_interrupt();
	if (opt.watch != NULL)
		rc = pb_watch(opt.watch);
	else if (opt.compare)
		rc = pb_compare(argv + optind, argc - optind, buf);
	else if (opt.pipeline)
		rc = pb_pipeline(argv + optind, argc - optind, &csv);
	else
		rc = run_one(argv + optind, buf, &csv);
	/* --pipeline's status is the stages': a report of ours that could
	 * not be written is said, if stderr can say it, and changes nothing. */
	if (!opt.compare && pb_status != stderr && fclose(pb_status) != 0) {
		prog_warn(errno, "%s", prog_quote(opt.status_file));
		rc = opt.pipeline ? rc : EXIT_FAILURE;
	}
	fio_buffer_free(buf, opt.bufsize);
	free(pb_expected.buf);
	free(opt.names);
	if (pb_interrupted && !opt.compare && !opt.pipeline) {
		/* Die of the SIGINT, so that a calling shell stops too. */
		fflush(stderr);
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	if (opt.pipeline) {
		(void)prog_close_stdout();
		return rc;
	}
	return opt.compare ? rc : rc | prog_close_stdout();
}
