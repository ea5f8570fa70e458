/* SPDX-License-Identifier: MIT */
#ifndef PIPEBENCH_H
#define PIPEBENCH_H

/*
 * pipebench's parts, one file each, every one of them including this:
 *   pipebench.c  the parts run, and one measured run
 *   options.c    the command line, parsed once, and --help
 *   measure.c    a transfer measured through libfastio's pump
 *   verify.c     --expect-line and --expect-file's stream checker
 *   ticker.c     the thread that samples the rate and ticks the display
 *   display.c    what shows while data flows
 *   report.c     0.40's summary
 *   json.c       the JSON writer and --json's summary
 *   units.c      sizes, rates and durations as 0.40 prints them (a leaf)
 *   export.c     --export-* files, written where the user points
 *   plot.c       --plot and --export-csv's samples
 *   stats.c      --compare's statistics
 *   table.c      --compare's table, warnings, JSON and exports
 *   compare.c    --compare's producers and runs, and what a child gets
 *   pipeline.c   --pipeline's stages: started, signalled, waited for
 *   parse.c      --pipeline's operands split into stages
 *   signals.c    --pipeline's signals: waited for, told apart, passed on
 *   relay.c      --pipeline's relays between the stages, and its watcher
 *   verdict.c    which stage held the rest back: looks at /proc, decided
 *   view.c       the live view of --pipeline and --watch
 *   watch.c      --watch: a running pipeline found and looked at
 *   stages.c     --pipeline's and --watch's table, verdict line, JSON, CSV
 * Calls go down this list's dependencies and never around a circle: the
 * ticker calls the display, the display and the reports call the units.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "fastio/fastio.h"

/*
 * A meter's pipes, in and out, are grown to pipe-max-size's default, so
 * that the producer is measured and not the pipe (a pipe of 64 KiB makes
 * producer and reader take turns). Not cat's size: a meter runs once,
 * beside the programs it measures, not by the dozen.
 */
#define PB_PIPE_SIZE ((size_t)1 << 20)

/* The command line, parsed once and not changed afterwards. */
struct pb_options {
	int quiet, no_summary, raw, si, no_units, progress, touch, json;
	int exec, compare, wall, shuffle, verbose, plot, pipeline;
	const char *export_csv, *export_json, *export_markdown, *reference;
	unsigned runs, warmup;
	size_t bufsize;
	const char *status_file;
	int status_append;
	const char *shell;		     /* --pipeline's stages: SHELL -c */
	const char *watch;		     /* --watch's PID */
	uint64_t max_bytes, max_lines, size; /* 0: none */
	const char *expect_line, *expect_file;
	const char **names; /* --name: the commands' names, in order */
	int nnames;
};

/* pb_parse_options's answer while the run should go on; else the exit
 * status (--help, --version, a usage error). */
#define GO_ON (-1)
int pb_parse_options(int argc, char **argv, struct pb_options *opt);

extern const struct pb_options *pb_opt;
extern FILE *pb_status; /* running lines and summary: stderr or -s/-S */
extern volatile sig_atomic_t pb_interrupted; /* SIGINT came */
/* Bit fd: descriptor fd (0-2) came closed; it holds /dev/null. */
extern unsigned pb_std_closed;
/* In a child: close those of 0-2 that came closed to us, but for the bits
 * of kept (descriptors the child was given). */
void pb_close_std(unsigned kept);

/* One measured transfer (a --compare run's is struct pb_run). */
struct pb_transfer {
	struct fio_fd in, out;
	uint64_t bytes, lines;
	uint64_t size; /* the stream's size if known (percentage, ETA), or 0 */
	struct timespec start, first, end; /* first: zero until a byte came */
	enum fio_strategy mode;		   /* what moved the bytes */
	int stopped;			   /* a limit was reached before EOF */
	int grown;			   /* its pipes' growth was decided */
	int sigpipe; /* the caller's SIGPIPE kills: the output's reader gone
		      * is no error to print, but a death after the report */
	int gone;    /* so it went */
};

/* units.c */
double pb_seconds(const struct timespec *from, const struct timespec *to);
int64_t pb_usec(const struct timespec *t);
const char *pb_amount(char *buf, size_t size, uint64_t v);
const char *pb_amount_short(char *buf, size_t size, uint64_t v);
const char *pb_duration(char *buf, size_t size, int64_t usec);
/* Our own outputs' decimal units: "5.42 GB"; v's number alone in the
 * unit of unit_of; that unit's name. Labelled where shown: GB = 10^9 B. */
const char *pb_si(char *buf, size_t size, double v);
const char *pb_si_in(char *buf, size_t size, double v, double unit_of);
const char *pb_si_unit(double v);
#define PB_SI_LABEL "GB = 10^9 B"

/* measure.c */
void pb_catch_interrupt(void);
/* Move in to out, measuring. Returns 0, or -1 after a message. */
int pb_measure(struct pb_transfer *r, char *buf);
/* The bytes counted so far by the running run (for the ticker). */
uint64_t pb_moved(void);

/* verify.c: --expect-line and --expect-file. */
struct pb_expect {
	char *buf;
	size_t len, pos; /* pos: offset in buf of the next expected byte */
	size_t period;	 /* the line's length when repeating, else 0 */
	uint64_t period_lines;
	const char *file; /* --expect-file's name, for messages */
	FILE *err;	  /* where mismatches are reported (stderr) */
};
extern struct pb_expect pb_expected; /* buf is NULL: nothing to check */
uint64_t pb_count_lines(const char *p, size_t n);
int pb_expect_line(struct pb_expect *e, const char *line);
int pb_expect_file(struct pb_expect *e, const char *path);
uint64_t pb_lines_before(const struct pb_expect *e, uint64_t off);
int pb_verify(struct pb_expect *e, const char *p, size_t len, uint64_t base);
int pb_verify_end(const struct pb_expect *e, uint64_t bytes);

/* ticker.c: the display and rate samples, from a thread. */
void pb_ticker_start(const struct pb_transfer *r, int display);
void pb_ticker_stop(void);
/* A rate sample: seconds from the start, bytes by then, the interval's
 * rate (bytes/s). */
struct pb_sample {
	double at, rate;
	uint64_t bytes;
};
/* The samples between the first byte and the end: malloc'd, *n of them. */
struct pb_sample *pb_samples(const struct pb_transfer *r, size_t *n);
void pb_ticker_free(void);
#define PB_SAMPLE_SECONDS 0.1

/* display.c: what shows while data flows. */
int pb_display_setup(void); /* nonzero if anything will show */
int pb_display_every_tick(void);
void pb_display(const struct pb_transfer *r, int64_t usec, uint64_t bytes,
		uint64_t speed);
void pb_display_end(const struct pb_transfer *r);
size_t pb_columns(FILE *f); /* the terminal's width, else 80 */
/* text in width columns (a UTF-8 character one), cut with an ellipsis,
 * control bytes as spaces, padded to width if pad; out, which may be
 * text itself. */
const char *pb_column(char *out, size_t size, const char *text, int width,
		      int pad);

/* report.c */
void pb_print_summary(const struct pb_transfer *r);
/* copy, splice, copy_file_range or sendfile */
const char *pb_mode_name(const struct pb_transfer *r);

/* json.c: one line of JSON, written as it goes. */
struct pb_json {
	FILE *f;
	int first; /* nothing written in the open object or array yet */
};
void pb_json_open(struct pb_json *j, FILE *f);
void pb_json_string(struct pb_json *j, const char *key, const char *s);
void pb_json_u64(struct pb_json *j, const char *key, uint64_t v);
void pb_json_real(struct pb_json *j, const char *key, double v, int decimals);
void pb_json_null(struct pb_json *j, const char *key);
void pb_json_bool(struct pb_json *j, const char *key, int v);
void pb_json_begin(struct pb_json *j, const char *key, char bracket);
void pb_json_end(struct pb_json *j, char bracket);
void pb_json_close(struct pb_json *j); /* the last }, and a newline */
void pb_print_json(const struct pb_transfer *r, int producer);

/* export.c: files written where the user points, as `>` writes. */
struct pb_export {
	const char *path; /* as the user gave it; NULL: not asked for */
	char *target;	  /* the file it leads to, its links followed */
	char *tmp;	  /* beside target, renamed over it; NULL: in place */
	FILE *f;
};
int pb_export_open(struct pb_export *e, const char *path); /* -1: told */
int pb_export_commit(struct pb_export *e);		   /* -1: told */
void pb_export_abort(struct pb_export *e);
/* The status of a run whose export cannot be written: said before any
 * run, as a usage error. */
#define PB_EXPORT_REFUSED 2

/* plot.c: --plot and --export-csv. */
void pb_plot(FILE *f, const struct pb_sample *s, size_t n, size_t width,
	     int utf8);
int pb_samples_out(const struct pb_transfer *r, struct pb_export *csv);

/* stats.c: --compare's statistics, hyperfine's outlier rule. */
struct pb_stats {
	double mean, sd, median, min, max;
	int outliers;	/* a modified Z-score past the threshold */
	int slow_first; /* the first run's, on the slow side */
};
#define PB_OUTLIER_THRESHOLD (10 * 1.4826)
void pb_stats(const double *rates, const double *secs, size_t n,
	      struct pb_stats *s);
int pb_cmp_double(const void *a, const void *b);
double pb_rank(const double *sorted, size_t n, double q);
double pb_median(const double *sorted, size_t n);

/* One measured run of --compare. */
struct pb_run {
	double rate, secs;
	uint64_t bytes;
	int wstatus;
	long rss_kb; /* the producer's peak RSS (wait4) */
};

/* table.c: --compare's table, warnings, JSON and exports. */
const char *pb_command_name(char **cmds, int i);
int pb_report_comparison(char **cmds, int n, int ref, const struct pb_run *runs,
			 struct pb_export *json, struct pb_export *md);

/* compare.c */
/*
 * In a child: cmd by the shell at shell (bash gets -o pipefail), or argv
 * by PATH. A producer (shell NULL: /bin/sh) gets the signal mask and
 * SIGPIPE as a new process has them; a stage's come from its caller
 * (pb_signals_child). Never returns: a failed exec is said, and the
 * status is 127 (not found) or 126 (not run), as a shell's.
 */
_Noreturn void pb_exec(const char *shell, const char *cmd, char *const argv[]);
/* The name a stage's shell runs under (its argv[0]: bash or sh). */
const char *pb_shell_argv0(void);
/* SIGPIPE was ignored when we started: the stages get it so. */
extern int pb_sigpipe_ignored;
pid_t pb_start_producer(const char *cmd, char *const argv[], int *fd);
int pb_producer_result(const char *name, int wstatus,
		       const struct pb_transfer *r);
int pb_compare(char **cmds, int n, char *buf);

/* --pipeline: its stages, and a relay into each and out of the last. */
#define PB_MAX_STAGES 64

struct pb_stage {
	char *text;   /* as written: the shell runs it, the table shows it */
	char **argv;  /* --pipeline -- A | B: run as it is, or NULL */
	int compound; /* a compound command or subshell at its top level */
	pid_t pid;
	_Atomic int running;
	int wstatus;
	struct rusage ru;
	double secs; /* from the start to its exit */
	/* The watcher's looks while it ran (relay.c): how many, in how many
	 * its input pipe was full and its output pipe empty, and the last
	 * FIONREAD of each. */
	unsigned samples, in_full, out_empty;
	int in_queued, out_queued;
	/* verdict.c's: the looks it worked in, by kind; its share of the
	 * looks in which it worked; whether it waits on its pipes now. */
	unsigned on_cpu, in_io, asleep;
	double held;
	int in_empty_now, out_full_now;
	/* --watch's (watch.c): what the kernel counted of its reads and
	 * writes (-1: nothing, a splice or no I/O yet), and the file it
	 * reads, how far: a note the view shows. */
	int64_t io_in, io_out;
	off_t file_pos;
	double file_at;
	char note[64];
	int64_t drawn_bytes, drawn_in; /* at the last frame (view.c) */
	double drawn_at;
};

/*
 * relay[i] feeds stage i (relay[0] from our standard input), and
 * relay[n] takes the last stage's output to ours; from is -1 for one not
 * made (our standard input or output a terminal, which the stage has).
 */
struct pb_relay {
	int from, to;
	struct fio_fd in, out;
	size_t size; /* the capacity of the pipe it fills */
	_Atomic uint64_t bytes;
	_Atomic int stop;
	_Atomic int *abort; /* the stages are being ended by a signal: no
			     * end of file is passed on */
	int open;	    /* from and to are open: under lock */
	int err;	    /* a failure, not the reader gone: errno */
	enum fio_side side;
	char *buf;
	pthread_mutex_t lock;
	pthread_t thread;
	int started;
};

#define PB_IN_PIPE STDIN_FILENO
#define PB_IN_FILE (-2)

struct pb_pipeline {
	int n;
	int negate;   /* `! a | b`: the status negated */
	int in_watch; /* what the first stage reads, our standard input:
		       * PB_IN_PIPE (we look at it), PB_IN_FILE (it always
		       * holds more: as if full), or -1 (not watched) */
	off_t out_at; /* the last stage writes our standard output, a
		       * regular file, itself: its offset then; else -1 */
	_Atomic int abort;
	int watched;	    /* --watch's: not ours, no relay, no status */
	size_t out_size;    /* --watch's: a pipe's size, for its fill */
	unsigned looks;	    /* the watcher's, while a stage ran */
	double source_held; /* looks no stage worked in: the source's */
	struct pb_stage stage[PB_MAX_STAGES];
	struct pb_relay relay[PB_MAX_STAGES + 1];
	struct timespec start;
};

/* pipeline.c: argc operands (one: a command line; more: argv lists).
 * Returns the exit status; 2 for a pipeline that cannot be run. */
int pb_pipeline(char **argv, int argc, struct pb_export *csv);
/* parse.c: argc operands (one: a command line, split as the shell splits
 * a pipeline; more: argv lists) into pl's stages, two or more; 0, or -1
 * after a message. argv's lone "|" become NULL. */
int pb_pipeline_parse(struct pb_pipeline *pl, char **argv, int argc);
/* signals.c: pb_signals_catch before the first fork, blocking the
 * signals pb_signals_waited gives (SIGCHLD among them); whether a signal
 * reached the stages itself (the process group's); in a stage's child,
 * its signals as we found them; the sentinel let go. */
void pb_signals_catch(void);
const sigset_t *pb_signals_waited(void);
int pb_signals_to_group(const siginfo_t *si);
void pb_signals_child(void);
void pb_signals_end(void);
/* relay.c: pb_relays_init before any stage starts; pb_relay_start as a
 * link's pipes are made, before the stage that writes into it (0, or -1:
 * no thread, and the caller links the stages as a shell would);
 * pb_watch_start once all have started; pb_relays_end once all ended. */
void pb_relays_init(struct pb_pipeline *pl);
int pb_relay_start(struct pb_relay *r);
void pb_watch_start(struct pb_pipeline *pl);
void pb_relays_end(struct pb_pipeline *pl);
/* watch.c: --watch PID; the exit status. */
int pb_watch(const char *pid);
/* verdict.c: a look at every stage (the watcher's, its pipes looked at
 * first); the stage that held the pipeline back, or -1 (the source);
 * the decision itself, from each stage's share of the looks, the
 * source's and their number; what the stage did most (on CPU, ...). */
void pb_verdict_look(struct pb_pipeline *pl);
/* The fields of a /proc stat line at path after the command's ")" (which
 * may hold anything), from the state on, in line; NULL if gone. */
const char *pb_stat_fields(const char *path, char *line, size_t size);
/* Field k of a stat line (proc(5) numbers them from 1, the pid), from
 * what pb_stat_fields returned; 0 if the line is shorter. */
unsigned long long pb_stat_field(const char *fields, int k);
#define PB_STAT_PPID	4
#define PB_STAT_UTIME	14
#define PB_STAT_STIME	15
#define PB_STAT_THREADS 20
/* Process pid's children, at most max, into out: their number, -1 if
 * gone. */
int pb_children(long pid, pid_t *out, int max);
int pb_verdict(const struct pb_pipeline *pl);
int pb_verdict_decide(const double *held, int n, double source, unsigned looks);
const char *pb_verdict_kind(const struct pb_stage *st);
/* view.c: the live view; pb_view_setup says whether there is one. The
 * watcher draws a frame ten times a second (off a terminal, a frame a
 * second is kept), the last at the end. */
int pb_view_setup(struct pb_pipeline *pl);
void pb_view_frame(struct pb_pipeline *pl, int last);
void pb_view_end(struct pb_pipeline *pl);
/* stages.c: the bytes into and out of stage i, -1 where not watched;
 * the report. */
int64_t pb_stage_bytes_in(const struct pb_pipeline *pl, int i);
int64_t pb_stage_bytes_out(const struct pb_pipeline *pl, int i);
int pb_pipeline_report(const struct pb_pipeline *pl, struct pb_export *e);

#endif
