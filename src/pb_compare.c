/* SPDX-License-Identifier: MIT */
/*
 * --exec and --compare: producers started on a pipe of ours, and
 * --compare's interleaved runs with their table.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/tune.h"
#include "pipebench.h"
#include "prog.h"

/*
 * Start a producer writing into a pipe of ours, grown before its first
 * byte. cmd is a shell command (compare) or argv (exec).
 */
pid_t
pb_start_producer(const char *cmd, char *const argv[], int *fd)
{
	int p[2], null;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	(void)fio_pipe_grow(p[1], FIO_PIPE_SIZE);
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		dup2(p[1], STDOUT_FILENO);
		if (cmd != NULL) {
			null = open("/dev/null", O_RDONLY);
			if (null >= 0)
				dup2(null, STDIN_FILENO);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* We stop reading at --bytes: the producer ends as with head.
		 */
		signal(SIGPIPE, SIG_DFL);
		if (cmd != NULL)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		else
			execvp(argv[0], argv);
		prog_warn(errno, "%s", prog_quote(cmd ? "/bin/sh" : argv[0]));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*fd = p[0];
	return pid;
}

/*
 * A producer's end: 0 if it exited 0, or died of SIGPIPE after we stopped
 * reading; else a message and its status (128 + signal if killed).
 */
int
pb_producer_result(const char *name, int wstatus, const struct run *r)
{
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
		return 0;
	/* A shell reports its command's SIGPIPE as status 128 + 13. */
	if (((WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGPIPE) ||
	     (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 128 + SIGPIPE)) &&
	    (r->stopped || pb_interrupted))
		return 0;
	if (WIFSIGNALED(wstatus)) {
		prog_warn(0, "%s: killed by signal %d", name,
			  WTERMSIG(wstatus));
		return 128 + WTERMSIG(wstatus);
	}
	prog_warn(0, "%s: exit status %d", name, WEXITSTATUS(wstatus));
	return WEXITSTATUS(wstatus);
}

/* pb_amount() without the padding, for tables. */
static const char *
trimmed(char *buf, size_t size, double v)
{
	const char *s = pb_amount(buf, size, v);

	return s + strspn(s, " ");
}

/* A Markdown table cell: '|' escaped; commands as code. */
static void
cell(const char *s, int code)
{
	if (code)
		putchar('`');
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s == '\n' ? ' ' : *s);
	}
	if (code)
		putchar('`');
}

/* Each command's measured runs: rates and times, runs of them a row. */
struct results {
	double *rate, *secs;
};

/*
 * One run of cmd: its rate and time, 0 if all went well (else a message
 * was printed and the status is for the exit).
 */
static int
run_once(const char *cmd, char *buf, int null, double *rate, double *secs,
	 uint64_t *bytes)
{
	const struct pb_options *opt = pb_opt;
	struct timespec spawned, ended;
	struct run r;
	int fd, wstatus, bad, rc = 0;
	pid_t pid;
	double t;

	memset(&r, 0, sizeof r);
	if (pb_expected.buf != NULL)
		pb_expected.pos = 0;
	clock_gettime(CLOCK_MONOTONIC, &spawned);
	pid = pb_start_producer(cmd, NULL, &fd);
	if (pid < 0) {
		prog_warn(errno, "%s", prog_quote(cmd));
		return -1;
	}
	r.start = spawned;
	r.in.fd = fd;
	r.out.fd = null;
	bad = pb_measure(&r, buf) < 0;
	close(fd);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &ended);
	if (pb_producer_result(cmd, wstatus, &r) != 0 || bad)
		rc = EXIT_FAILURE;
	t = opt->wall ? pb_seconds(&spawned, &ended)
	    : r.bytes ? pb_seconds(&r.first, &r.end)
		      : 0;
	*secs = t;
	*rate = t > 0 ? (double)(opt->size ? opt->size : r.bytes) / t : 0;
	*bytes = r.bytes;
	return rc;
}

/*
 * Every round runs each command once, in order or (--shuffle) in a new
 * random order: what a run leaves behind (page cache to free, writeback)
 * can slow the next, and shuffling spreads that over everyone.
 */
static int
run_rounds(char **cmds, int n, char *buf, int null, struct results *res)
{
	const struct pb_options *opt = pb_opt;
	unsigned round, total = opt->warmup + opt->runs, at;
	int i, j, k, t, rc = 0, one, *order = calloc((size_t)n, sizeof *order);
	double rate, secs;
	uint64_t bytes;
	char a[32];

	if (order == NULL)
		return -1;
	for (j = 0; j < n; j++)
		order[j] = j;
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	for (round = 0; round < total && !pb_interrupted; round++) {
		for (j = n - 1; opt->shuffle && j > 0; j--) {
			k = (int)(random() % (j + 1));
			t = order[j];
			order[j] = order[k];
			order[k] = t;
		}
		for (j = 0; j < n && !pb_interrupted; j++) {
			i = order[j];
			one =
			    run_once(cmds[i], buf, null, &rate, &secs, &bytes);
			if (one < 0) {
				free(order);
				return -1;
			}
			rc |= one;
			at = round < opt->warmup ? round : round - opt->warmup;
			if (!opt->quiet)
				fprintf(stderr, "%s %u/%u: %s: %s in %.3f s\n",
					round < opt->warmup ? "warmup" : "run",
					at + 1,
					round < opt->warmup ? opt->warmup
							    : opt->runs,
					cmds[i],
					pb_amount(a, sizeof a, (double)bytes),
					secs);
			if (round < opt->warmup)
				continue;
			res->secs[(unsigned)i * opt->runs + at] = secs;
			res->rate[(unsigned)i * opt->runs + at] = rate;
		}
	}
	free(order);
	return rc;
}

/* The Markdown table on stdout and (--json) the results on the status. */
static void
report(char **cmds, int n, struct results *res)
{
	const struct pb_options *opt = pb_opt;
	double base = 0, m;
	char a[32], b[32], c[32];
	struct pb_json j;
	unsigned k;
	int i;

	printf("| command | rate (median) | min - max | time (median) | "
	       "vs first |\n|:--|--:|--:|--:|--:|\n");
	if (opt->json) {
		pb_json_open(&j, pb_status);
		pb_json_begin(&j, "results", '[');
	}
	for (i = 0; i < n; i++) {
		double *v = res->rate + (unsigned)i * opt->runs,
		       *s = res->secs + (unsigned)i * opt->runs;

		qsort(v, opt->runs, sizeof *v, pb_cmp_double);
		qsort(s, opt->runs, sizeof *s, pb_cmp_double);
		m = pb_median(v, opt->runs);
		if (i == 0)
			base = m;
		if (opt->json) {
			pb_json_begin(&j, NULL, '{');
			pb_json_string(&j, "command", cmds[i]);
			if (i < opt->nnames)
				pb_json_string(&j, "name", opt->names[i]);
			pb_json_real(&j, "median", m, 0);
			pb_json_real(&j, "min", v[0], 0);
			pb_json_real(&j, "max", v[opt->runs - 1], 0);
			pb_json_real(&j, "ratio", base > 0 ? m / base : 0, 4);
			pb_json_begin(&j, "rates", '[');
			for (k = 0; k < opt->runs; k++)
				pb_json_real(&j, NULL, v[k], 0);
			pb_json_end(&j, ']');
			pb_json_end(&j, '}');
		}
		fputs("| ", stdout);
		cell(i < opt->nnames ? opt->names[i] : cmds[i],
		     i >= opt->nnames);
		printf(" | %s/s | %s - %s/s | %.3f s | %.2f |\n",
		       trimmed(a, sizeof a, m), trimmed(b, sizeof b, v[0]),
		       trimmed(c, sizeof c, v[opt->runs - 1]),
		       pb_median(s, opt->runs), base > 0 ? m / base : 0);
	}
	if (opt->json) {
		pb_json_end(&j, ']');
		pb_json_close(&j);
	}
}

/* --compare: each command's runs, interleaved, then a Markdown table. */
int
pb_compare(char **cmds, int n, char *buf)
{
	size_t cells = (size_t)n * pb_opt->runs;
	struct results res = {calloc(cells, sizeof(double)),
			      calloc(cells, sizeof(double))};
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	if (res.rate == NULL || res.secs == NULL || null < 0) {
		prog_warn(errno, "compare");
		rc = EXIT_FAILURE;
	} else {
		rc = run_rounds(cmds, n, buf, null, &res);
		if (rc < 0)
			rc = EXIT_FAILURE;
		else if (pb_interrupted)
			rc = 128 + SIGINT;
		else {
			report(cmds, n, &res);
			rc |= prog_close_stdout();
		}
	}
	if (null >= 0)
		close(null);
	free(res.rate);
	free(res.secs);
	return rc;
}
