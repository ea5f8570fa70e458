/* SPDX-License-Identifier: MIT */
/*
 * pipebench: pass standard input to standard output unchanged and report
 * the throughput, with the flags and formats of Thomas Habets' pipebench
 * 0.40; plus limits, stream verification, a JSON summary, and running and
 * comparing producers on pipes of our own. This file reads the command
 * line and runs the parts (pipebench.h).
 */
#include "config.h"

#include <ctype.h>
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

/*
 * The default buffer of the copying path (-b sets it): GNU cat's 128 KiB
 * (see CAT_BUF in cat/format.h, measured for cat; pipebench's reader copies
 * the same way).
 */
#define PB_BUFFER ((size_t)128 << 10)

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

enum {
	OPT_BYTES = 256,
	OPT_LINES,
	OPT_EXPECT_LINE,
	OPT_EXPECT_FILE,
	OPT_TOUCH,
	OPT_JSON,
	OPT_SIZE,
	OPT_EXEC,
	OPT_COMPARE,
	OPT_RUNS,
	OPT_WARMUP,
	OPT_WALL,
	OPT_SHUFFLE,
	OPT_NAME,
	OPT_VERBOSE,
	OPT_PLOT,
	OPT_EXPORT_CSV,
	OPT_EXPORT_JSON,
	OPT_EXPORT_MARKDOWN,
	OPT_REFERENCE,
	OPT_PIPELINE,
	OPT_SHELL,
	OPT_WATCH,
	OPT_HELP,
	OPT_VERSION
};

static const struct option longopts[] = {
    {"bytes", required_argument, NULL, OPT_BYTES},
    {"lines", required_argument, NULL, OPT_LINES},
    {"expect-line", required_argument, NULL, OPT_EXPECT_LINE},
    {"expect-file", required_argument, NULL, OPT_EXPECT_FILE},
    {"touch", no_argument, NULL, OPT_TOUCH},
    {"json", no_argument, NULL, OPT_JSON},
    {"progress", no_argument, NULL, 'p'},
    {"size", required_argument, NULL, OPT_SIZE},
    {"exec", no_argument, NULL, OPT_EXEC},
    {"compare", no_argument, NULL, OPT_COMPARE},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"wall", no_argument, NULL, OPT_WALL},
    {"shuffle", no_argument, NULL, OPT_SHUFFLE},
    {"name", required_argument, NULL, OPT_NAME},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"plot", no_argument, NULL, OPT_PLOT},
    {"export-csv", required_argument, NULL, OPT_EXPORT_CSV},
    {"export-json", required_argument, NULL, OPT_EXPORT_JSON},
    {"export-markdown", required_argument, NULL, OPT_EXPORT_MARKDOWN},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"pipeline", no_argument, NULL, OPT_PIPELINE},
    {"shell", required_argument, NULL, OPT_SHELL},
    {"watch", required_argument, NULL, OPT_WATCH},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static int
usage(int status_code)
{
	if (status_code != EXIT_SUCCESS) {
		prog_try_help();
		return status_code;
	}
	printf("Usage: %s [OPTION]...\n"
	       "  or:  %s [OPTION]... --exec -- COMMAND [ARG]...\n"
	       "  or:  %s [OPTION]... --compare COMMAND...\n"
	       "  or:  %s [OPTION]... --pipeline 'COMMAND | COMMAND...'\n",
	       program_name, program_name, program_name, program_name);
	fputs(
	    "Pass standard input to standard output unchanged and report the\n"
	    "throughput.\n"
	    "\n"
	    "Options of pipebench 0.40:\n"
	    "  -b SIZE        buffer size when copying with read()/write()\n"
	    "  -e             accepted; every error ends the run anyway\n"
	    "  -h             display pipebench 0.40's usage and exit\n"
	    "  -I             1 kB = 1000 B instead of 1024 B\n"
	    "  -o             do not show the summary\n"
	    "  -q             show only the summary\n"
	    "  -Q             show nothing (-q -o)\n"
	    "  -r             show the rate only, bytes per second, one per "
	    "line\n"
	    "  -s FILE        write the status to FILE instead (truncated), "
	    "lines end\n"
	    "                 in LF\n"
	    "  -S FILE        the same, appending to FILE\n"
	    "  -u             do not scale to units\n"
	    "\n"
	    "Extensions:\n"
	    "      --bytes=N        stop after exactly N bytes\n"
	    "      --lines=N        stop after exactly N lines\n"
	    "      --expect-line=S  check that the stream is S and LF, "
	    "repeated\n"
	    "      --expect-file=F  check that the stream equals the file F\n"
	    "      --touch          read() every byte instead of splicing\n"
	    "      --json           add a JSON summary as the last line\n"
	    "      --verbose        add how the bytes moved to the summary\n"
	    "      --plot           chart the rates over time after the "
	    "summary\n"
	    "      --export-csv=F   write the rate samples to the file F\n"
	    "  -p, --progress       show our progress line (percentage and ETA "
	    "when the\n"
	    "                       size is known) instead of 0.40's running "
	    "line\n"
	    "      --size=N         the stream's size, for the percentage and "
	    "ETA\n"
	    "      --exec           run COMMAND with its output on a pipe of "
	    "our own\n"
	    "      --compare        run each COMMAND in turn and compare their "
	    "rates\n"
	    "      --runs=N         measured runs of each COMMAND (default 5)\n"
	    "      --warmup=N       unmeasured runs of each first (default 1)\n"
	    "      --wall           time COMMAND from its start to its exit\n"
	    "      --shuffle        a new random order of the COMMANDs each "
	    "round\n"
	    "      --name=NAME      name the COMMANDs in the table, in order\n"
	    "      --reference=NAME the COMMAND the ratios are to (default: "
	    "the first)\n"
	    "      --export-json=F  write every run of the comparison to F\n"
	    "      --export-markdown=F  write the comparison's table to F\n"
	    "      --pipeline       run the pipeline's stages, each on pipes "
	    "of our own,\n"
	    "                       meter each and name the one that holds "
	    "the rest\n"
	    "                       back (--export-csv: a row a stage)\n"
	    "      --shell=SHELL    run the stages with SHELL -c (default: "
	    "bash -o\n"
	    "                       pipefail -c, where bash is installed)\n"
	    "      --watch=PID      meter a pipeline already running, found "
	    "from any\n"
	    "                       of its processes or the shell that runs "
	    "it\n"
	    "      --help           display this help and exit\n"
	    "      --version        output version information and exit\n"
	    "\n"
	    "N may have a suffix: K M G T P E (powers of 1024, also KiB ...,\n"
	    "and k m g t p e) or KB MB GB TB PB EB (powers of 1000). Sizes\n"
	    "and rates of --progress, --compare and --pipeline are decimal:\n"
	    "GB = 10^9 B.\n"
	    "\n"
	    "Examples:\n"
	    "  yes | pipebench --bytes 10G --touch > /dev/null\n"
	    "  pipebench --compare 'yes' '/usr/bin/yes' --bytes 20G\n"
	    "  pipebench --pipeline 'yes | head -c 10G | md5sum'\n",
	    stdout);
	return prog_close_stdout();
}

/* N with GNU's suffixes, as head -c takes it, and pv's lowercase. */
static int
parse_count(const char *s, uint64_t *v)
{
	static const char suffixes[] = "KMGTPE";
	unsigned long long n;
	uint64_t mult = 1, base = 1024;
	const char *p;
	char *end;
	int i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (strcmp(end, "b") == 0) {
		mult = 512;
	} else if (*end != '\0') {
		/* Lowercase too, as pv and GNU's xstrtol take them. */
		p = strchr(suffixes, toupper((unsigned char)*end));
		if (p == NULL)
			return -1;
		if (strcmp(end + 1, "B") == 0)
			base = 1000;
		else if (end[1] != '\0' && strcmp(end + 1, "iB") != 0)
			return -1;
		for (i = 0; i <= p - suffixes; i++)
			mult *= base;
	}
	if (n != 0 && mult > UINT64_MAX / n)
		return -1;
	*v = n * mult;
	return 0;
}

/* -h: pipebench 0.40's own two lines, as Debian's 0.40 prints them. */
static int
usage_040(void)
{
	fputs("Pipebench 0.40, by Thomas Habets <thomas@habets.pp.se>\n"
	      "usage: ... | pipebench [ -ehqQIoru ] [ -b <bufsize ] "
	      "[ -s <file> | -S <file> ]\\\n"
	      "           | ...\n",
	      stdout);
	return prog_close_stdout();
}

/* Continue parsing, or stop with this exit status. */
#define GO_ON (-1)

/* pipebench 0.40's flags. */
static int
short_option(int c, struct pb_options *opt)
{
	char *end;
	uint64_t v;

	switch (c) {
	case 'e':
		break;
	case 'h':
		return usage_040();
	case 'q':
		opt->quiet = 1;
		break;
	case 'Q':
		opt->quiet = opt->no_summary = 1;
		break;
	case 'o':
		opt->no_summary = 1;
		break;
	case 'b':
		errno = 0;
		v = strtoull(optarg, &end, 10);
		if (errno != 0 || *end != '\0' || *optarg < '0' ||
		    *optarg > '9' || v == 0 || v > ((size_t)1 << 30)) {
			prog_warn(0, "invalid buffer size: %s",
				  prog_quote(optarg));
			return usage(EXIT_FAILURE);
		}
		opt->bufsize = (size_t)v;
		break;
	case 'r':
		opt->raw = 1;
		break;
	case 's':
	case 'S':
		opt->status_file = optarg;
		opt->status_append = c == 'S';
		break;
	case 'I':
		opt->si = 1;
		break;
	case 'u':
		opt->no_units = 1;
		break;
	default:
		return usage(EXIT_FAILURE);
	}
	return GO_ON;
}

/* Counts: --bytes, --lines, --size, --runs, --warmup. */
static int
count_option(int c, struct pb_options *opt)
{
	uint64_t v;

	if (c == OPT_RUNS || c == OPT_WARMUP) {
		if (parse_count(optarg, &v) < 0 ||
		    v > (c == OPT_RUNS ? 100000 : 1000) ||
		    (c == OPT_RUNS && v == 0)) {
			prog_warn(0, "invalid number of runs: %s",
				  prog_quote(optarg));
			return usage(EXIT_FAILURE);
		}
		*(c == OPT_RUNS ? &opt->runs : &opt->warmup) = (unsigned)v;
		return GO_ON;
	}
	if (parse_count(optarg, &v) < 0 || v == 0) {
		prog_warn(0, "invalid number of %s: %s",
			  c == OPT_LINES ? "lines" : "bytes",
			  prog_quote(optarg));
		return usage(EXIT_FAILURE);
	}
	*(c == OPT_BYTES   ? &opt->max_bytes
	  : c == OPT_LINES ? &opt->max_lines
			   : &opt->size) = v;
	return GO_ON;
}

/* Our extensions. */
static int
long_option(int c, struct pb_options *opt)
{
	const char **names;

	switch (c) {
	case 'p':
		opt->progress = 1;
		break;
	case OPT_EXPECT_LINE:
		opt->expect_line = optarg;
		break;
	case OPT_EXPECT_FILE:
		opt->expect_file = optarg;
		break;
	case OPT_TOUCH:
		opt->touch = 1;
		break;
	case OPT_JSON:
		opt->json = 1;
		break;
	case OPT_EXEC:
		opt->exec = 1;
		break;
	case OPT_COMPARE:
		opt->compare = 1;
		break;
	case OPT_WALL:
		opt->wall = 1;
		break;
	case OPT_SHUFFLE:
		opt->shuffle = 1;
		break;
	case OPT_VERBOSE:
		opt->verbose = 1;
		break;
	case OPT_PLOT:
		opt->plot = 1;
		break;
	case OPT_EXPORT_CSV:
		opt->export_csv = optarg;
		break;
	case OPT_EXPORT_JSON:
		opt->export_json = optarg;
		break;
	case OPT_EXPORT_MARKDOWN:
		opt->export_markdown = optarg;
		break;
	case OPT_REFERENCE:
		opt->reference = optarg;
		break;
	case OPT_PIPELINE:
		opt->pipeline = 1;
		break;
	case OPT_SHELL:
		opt->shell = optarg;
		break;
	case OPT_WATCH:
		opt->watch = optarg;
		break;
	case OPT_NAME:
		names = realloc(opt->names,
				(size_t)(opt->nnames + 1) * sizeof *names);
		if (names == NULL) {
			prog_warn(0, "memory exhausted");
			return EXIT_FAILURE;
		}
		opt->names = names;
		opt->names[opt->nnames++] = optarg;
		break;
	case OPT_HELP:
		return usage(EXIT_SUCCESS);
	case OPT_VERSION:
		prog_version("pipebench");
		return prog_close_stdout();
	default:
		return count_option(c, opt);
	}
	return GO_ON;
}

/*
 * The stages' shell: bash, where installed, as the user's pipeline was
 * written for it (echo -e, [[ ]], $'...', <( ), &>, exported functions
 * mean something else or nothing to dash); else /bin/sh.
 */
static const char *
default_shell(void)
{
	static char path[4096];
	const char *dirs = getenv("PATH"), *end;
	size_t n;

	if (access("/bin/bash", X_OK) == 0)
		return "/bin/bash";
	for (; dirs != NULL && *dirs != '\0'; dirs = *end ? end + 1 : end) {
		end = strchr(dirs, ':');
		if (end == NULL)
			end = dirs + strlen(dirs);
		n = (size_t)(end - dirs);
		if (n > 0 && n + 6 < sizeof path) {
			memcpy(path, dirs, n);
			strcpy(path + n, "/bash");
			if (access(path, X_OK) == 0)
				return path;
		}
	}
	return "/bin/sh";
}

/* Options that cannot go together, and the operands. */
static int
check_options(const struct pb_options *opt, int argc, char **argv)
{
	if (opt->exec + opt->compare + opt->pipeline + (opt->watch != NULL) >
	    1) {
		prog_warn(0, "--exec, --compare, --pipeline and --watch are "
			     "exclusive");
		return usage(EXIT_FAILURE);
	}
	if ((opt->exec || opt->compare || opt->pipeline) && optind == argc) {
		prog_warn(0, "missing command");
		return usage(EXIT_FAILURE);
	}
	if (opt->pipeline &&
	    (opt->max_bytes || opt->max_lines || opt->expect_line ||
	     opt->expect_file || opt->touch || opt->plot)) {
		prog_warn(0, "--pipeline meters the stages as they run: no "
			     "--bytes, --lines, --expect-*, --touch or --plot");
		return usage(EXIT_FAILURE);
	}
	if (opt->shell != NULL && !opt->pipeline) {
		prog_warn(0, "--shell is for --pipeline");
		return usage(EXIT_FAILURE);
	}
	if (!opt->exec && !opt->compare && !opt->pipeline && optind < argc) {
		prog_warn(0, "extra operand %s", prog_quote(argv[optind]));
		return usage(EXIT_FAILURE);
	}
	if (opt->expect_line != NULL && opt->expect_file != NULL) {
		prog_warn(0, "--expect-line and --expect-file are exclusive");
		return usage(EXIT_FAILURE);
	}
	if (!opt->compare &&
	    (opt->export_json || opt->export_markdown || opt->reference)) {
		prog_warn(0, "--export-json, --export-markdown and --reference "
			     "need --compare");
		return usage(EXIT_FAILURE);
	}
	if (opt->compare && (opt->export_csv || opt->plot)) {
		prog_warn(0, "--plot and --export-csv are for a single run");
		return usage(EXIT_FAILURE);
	}
	return GO_ON;
}

static int
parse_options(int argc, char **argv, struct pb_options *opt)
{
	int c, rc = GO_ON;

	opt->bufsize = PB_BUFFER;
	opt->runs = 5;
	opt->warmup = 1;
	while (rc == GO_ON && (c = getopt_long(argc, argv, "ehqQob:rs:S:Iup",
					       longopts, NULL)) != -1)
		rc = c < 256 && c != 'p' ? short_option(c, opt)
					 : long_option(c, opt);
	if (rc == GO_ON && (rc = check_options(opt, argc, argv)) == GO_ON &&
	    opt->pipeline && opt->shell == NULL)
		opt->shell = default_shell();
	return rc;
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
	rc = parse_options(argc, argv, &opt);
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
