/* SPDX-License-Identifier: MIT */
/*
 * --exec and --compare: producers started on a pipe of ours, and
 * --compare's interleaved runs (their table: table.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/* Whether the shell at path is bash, which takes -o pipefail. */
static int
is_bash(const char *path)
{
	const char *base = strrchr(path, '/');

	return strcmp(base != NULL ? base + 1 : path, "bash") == 0;
}

const char *
pb_shell_argv0(void)
{
	return pb_opt->shell != NULL && is_bash(pb_opt->shell) ? "bash" : "sh";
}

void
pb_exec(const char *shell, const char *cmd, char *const argv[])
{
	const char *name;
	sigset_t none;
	int err;

	if (shell == NULL) {
		/* A producer: a reader that stops (--bytes) ends it as with
		 * head. A stage's signals are set by its caller. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
	}
	name = shell != NULL ? shell : "/bin/sh";
	if (cmd == NULL)
		execvp(argv[0], argv);
	else if (shell != NULL && is_bash(shell))
		execl(shell, "bash", "-o", "pipefail", "-c", cmd, (char *)NULL);
	else
		execl(name, "sh", "-c", cmd, (char *)NULL);
	/* exec's errno, before the message may change it. */
	err = errno;
	prog_warn(err, "%s", prog_quote(cmd != NULL ? name : argv[0]));
	_exit(err == ENOENT ? 127 : 126);
}

/*
 * Start a producer writing into a pipe of ours, grown before its first
 * byte. cmd is a shell command (compare) or argv (exec).
 */
unsigned pb_std_closed;
int pb_sigpipe_ignored;

void
pb_close_std(unsigned kept)
{
	int fd;

	for (fd = 0; fd <= STDERR_FILENO; fd++)
		if ((pb_std_closed & ~kept) & 1u << fd)
			close(fd);
}

pid_t
pb_start_producer(const char *cmd, char *const argv[], int *fd)
{
	int p[2], null;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	(void)fio_pipe_grow(p[1], PB_PIPE_SIZE);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		if (cmd != NULL) {
			null = open("/dev/null", O_RDONLY);
			if (null >= 0)
				dup2(null, STDIN_FILENO);
		}
		pb_close_std(cmd != NULL ? 3u : 2u);
		pb_exec(NULL, cmd, argv);
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
pb_producer_result(const char *name, int wstatus, const struct pb_transfer *r)
{
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
		return 0;
	/* A shell reports its command's SIGPIPE as status 128 + 13. */
	if (((WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGPIPE) ||
	     (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 128 + SIGPIPE)) &&
	    (r->stopped || r->gone || pb_interrupted))
		return 0;
	if (WIFSIGNALED(wstatus)) {
		prog_warn(0, "%s: killed by signal %d", name,
			  WTERMSIG(wstatus));
		return 128 + WTERMSIG(wstatus);
	}
	prog_warn(0, "%s: exit status %d", name, WEXITSTATUS(wstatus));
	return WEXITSTATUS(wstatus);
}

/*
 * One run of cmd, its record filled; 0 if all went well, -1 if it could
 * not start, else an exit status (a message was printed).
 */
static int
run_once(const char *cmd, char *buf, int null, struct pb_run *one)
{
	const struct pb_options *opt = pb_opt;
	struct timespec spawned, ended;
	struct rusage ru;
	struct pb_transfer r;
	int fd, bad, rc = 0;
	pid_t pid;

	memset(&r, 0, sizeof r);
	memset(&ru, 0, sizeof ru);
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
	while (wait4(pid, &one->wstatus, 0, &ru) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &ended);
	if (pb_producer_result(cmd, one->wstatus, &r) != 0 || bad)
		rc = EXIT_FAILURE;
	one->secs = opt->wall ? pb_seconds(&spawned, &ended)
		    : r.bytes ? pb_seconds(&r.first, &r.end)
			      : 0;
	one->rate = one->secs > 0
			? (double)(opt->size ? opt->size : r.bytes) / one->secs
			: 0;
	one->bytes = r.bytes;
	one->rss_kb = ru.ru_maxrss;
	return rc;
}

/*
 * Every round runs each command once, in order or (--shuffle) in a new
 * random order: what a run leaves behind (page cache to free, writeback)
 * can slow the next, and shuffling spreads that over everyone.
 */
static int
run_rounds(char **cmds, int n, char *buf, int null, struct pb_run *runs)
{
	const struct pb_options *opt = pb_opt;
	unsigned round, total = opt->warmup + opt->runs, at;
	int i, j, k, t, rc = 0, one, *order = calloc((size_t)n, sizeof *order);
	struct pb_run scratch;
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
		at = round < opt->warmup ? round : round - opt->warmup;
		for (j = 0; j < n && !pb_interrupted; j++) {
			struct pb_run *slot =
			    round < opt->warmup
				? &scratch
				: &runs[(unsigned)order[j] * opt->runs + at];

			i = order[j];
			one = run_once(cmds[i], buf, null, slot);
			if (one < 0) {
				free(order);
				return -1;
			}
			rc |= one;
			if (!opt->quiet)
				fprintf(stderr, "%s %u/%u: %s: %s in %.3f s\n",
					round < opt->warmup ? "warmup" : "run",
					at + 1,
					round < opt->warmup ? opt->warmup
							    : opt->runs,
					cmds[i],
					pb_si(a, sizeof a, (double)slot->bytes),
					slot->secs);
		}
	}
	free(order);
	return rc;
}

/* The command --reference names, by --name or as written; -1 if none. */
static int
reference(char **cmds, int n)
{
	const struct pb_options *opt = pb_opt;
	int i;

	if (opt->reference == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(pb_command_name(cmds, i), opt->reference) == 0 ||
		    strcmp(cmds[i], opt->reference) == 0)
			return i;
	prog_warn(0, "--reference: no command named %s",
		  prog_quote(opt->reference));
	return -1;
}

/* --compare: each command's runs, interleaved, then the table. */
int
pb_compare(char **cmds, int n, char *buf)
{
	struct pb_export json, md;
	struct pb_run *runs = calloc((size_t)n * pb_opt->runs, sizeof *runs);
	int null = -1, rc = EXIT_FAILURE, ref = reference(cmds, n);

	memset(&json, 0, sizeof json);
	memset(&md, 0, sizeof md);
	if (runs == NULL || ref < 0)
		goto out;
	if (pb_export_open(&json, pb_opt->export_json) < 0 ||
	    pb_export_open(&md, pb_opt->export_markdown) < 0) {
		pb_export_abort(&json);
		rc = PB_EXPORT_REFUSED;
		goto out;
	}
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	rc = null < 0 ? -1 : run_rounds(cmds, n, buf, null, runs);
	if (rc < 0 || pb_interrupted) {
		if (rc < 0 && null < 0)
			prog_warn(errno, "/dev/null");
		rc = rc < 0 ? EXIT_FAILURE : 128 + SIGINT;
		pb_export_abort(&json);
		pb_export_abort(&md);
		goto out;
	}
	rc |= pb_report_comparison(cmds, n, ref, runs, &json, &md);
	rc |= prog_close_stdout();
out:
	if (null >= 0)
		close(null);
	free(runs);
	return rc;
}
