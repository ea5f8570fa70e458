/* SPDX-License-Identifier: MIT */
/*
 * pipebench's command line: 0.40's options and ours, read once into
 * struct pb_options and checked together, and --help.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/*
 * The default buffer of the copying path (-b sets it): GNU cat's 128 KiB
 * (see CAT_BUF in cat/format.h, measured for cat; pipebench's reader copies
 * the same way).
 */
#define PB_BUFFER ((size_t)128 << 10)

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

int
pb_parse_options(int argc, char **argv, struct pb_options *opt)
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
