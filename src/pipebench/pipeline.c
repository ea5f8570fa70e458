/* SPDX-License-Identifier: MIT */
/*
 * --pipeline: a whole pipeline run by us as the shell runs it, stage by
 * stage, each stage's output on a pipe we watch, so that the stage that
 * holds the rest back can be named. This file starts the stages, each
 * with its pipes made as it starts, and waits for them as bash -o
 * pipefail does; parse.c splits the operands into stages, relay.c moves
 * the bytes and watches the pipes, stages.c reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/* Bad input: said, nothing started, status 2. */
#define PB_PIPELINE_USAGE 2

/*
 * The signals we pass on to the stages: SIGINT, SIGTERM and SIGHUP, each
 * unless it was ignored when we started (a shell leaves an ignored
 * signal ignored in what it starts, and so do we). They wait, blocked,
 * with SIGCHLD, for wait_stages(): none is lost between a fork and the
 * wait.
 */
static sigset_t passed, waited;

static void
catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	size_t i;

	sigemptyset(&passed);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (sigaction(sigs[i], NULL, &sa) == 0 &&
		    sa.sa_handler != SIG_IGN)
			sigaddset(&passed, sigs[i]);
	waited = passed;
	sigaddset(&waited, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waited, NULL);
}

/* A stage's child: its ends in place, the signals as it would have them
 * from a shell, then the command. */
static _Noreturn void
stage_child(const struct pb_stage *st, int in, int out)
{
	unsigned kept = 0;
	int sig;

	if (in >= 0) {
		dup2(in, STDIN_FILENO);
		kept |= 1u << STDIN_FILENO;
	}
	if (out >= 0 && out != STDOUT_FILENO) {
		dup2(out, STDOUT_FILENO);
		kept |= 1u << STDOUT_FILENO;
	}
	pb_close_std(kept);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&passed, sig) == 1)
			signal(sig, SIG_DFL);
	pb_exec(st->argv != NULL ? NULL : st->text, st->argv);
}

/*
 * A pipe of ours, close-on-exec, holding half what a new pipe holds: a
 * watched link has two, the stage's and the next one's, and together
 * they hold what the shell's one pipe would (a stage that must block in
 * a shell blocks here too). Returns the size a new pipe had, or 0.
 */
static int
half_pipe(int p[2])
{
	long page = sysconf(_SC_PAGESIZE);
	int size;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	size = fcntl(p[1], F_GETPIPE_SZ);
	if (size >= 2 * page)
		(void)fcntl(p[1], F_SETPIPE_SZ, size / 2);
	return size > 0 ? size : (int)page;
}

/* One pipe from a stage to the next, unwatched, as a shell links them:
 * its whole size again. */
static int
whole_link(int a[2], int size, int *next)
{
	(void)fcntl(a[1], F_SETPIPE_SZ, size);
	*next = a[0];
	return a[1];
}

/*
 * Stage i's output: a pipe to a relay that feeds the next stage, or to
 * our standard output for the last (unless that is a terminal, which the
 * last stage then has, as in a shell, or came closed, which it has closed).
 * Out of descriptors, or of threads to relay
 * it, a link is one pipe between the two stages, unwatched, as the
 * shell's: a shell runs 60 stages with 64 descriptors, and so do we. Returns
 * the stage's output end, and the next stage's input in *next; -1 if no pipe at
 * all.
 */
static int
link_out(struct pb_pipeline *pl, int i, int *next)
{
	struct pb_relay *r = &pl->relay[i + 1];
	int a[2], b[2], size;

	*next = -1;
	if (i == pl->n - 1 &&
	    (isatty(STDOUT_FILENO) || pb_std_closed & 1u << STDOUT_FILENO))
		return STDOUT_FILENO;
	if ((size = half_pipe(a)) == 0)
		return i == pl->n - 1 ? STDOUT_FILENO : -1;
	if (i == pl->n - 1) {
		r->from = a[0];
		r->to = STDOUT_FILENO;
		if (pb_relay_start(r) == 0)
			return a[1];
		close(a[0]);
		close(a[1]);
		r->from = r->to = -1;
		return STDOUT_FILENO;
	}
	if (half_pipe(b) == 0)
		return whole_link(a, size, next);
	r->from = a[0];
	r->to = b[1];
	*next = b[0];
	if (pb_relay_start(r) == 0)
		return a[1];
	/* No thread to relay (a sandbox, a thread limit): a shell's link. */
	r->from = r->to = -1;
	close(b[0]);
	close(b[1]);
	return whole_link(a, size, next);
}

/*
 * The stages, each started as its pipes are made; stage 0 reads our
 * standard input itself, as in a shell: a seekable input keeps the
 * offset the stage leaves, and nothing is read that no stage asked for.
 */
static int
start_stages(struct pb_pipeline *pl)
{
	struct stat st;
	int in = -1, out, next, i;

	pl->in_watch =
	    pb_std_closed & 1u << STDIN_FILENO || fstat(STDIN_FILENO, &st) < 0
		? -1
	    : S_ISFIFO(st.st_mode) ? PB_IN_PIPE
	    : S_ISREG(st.st_mode)  ? PB_IN_FILE
				   : -1;
	clock_gettime(CLOCK_MONOTONIC, &pl->start);
	for (i = 0; i < pl->n; i++) {
		out = link_out(pl, i, &next);
		if (out < 0) {
			prog_warn(errno, "pipe");
			if (in >= 0)
				close(in);
			return -1;
		}
		pl->stage[i].pid = fork();
		if (pl->stage[i].pid == 0)
			stage_child(&pl->stage[i], in, out);
		if (in >= 0)
			close(in);
		if (out != STDOUT_FILENO)
			close(out);
		in = next;
		if (pl->stage[i].pid < 0) {
			prog_warn(errno, "fork");
			if (in >= 0)
				close(in);
			return -1;
		}
		atomic_store(&pl->stage[i].running, 1);
	}
	return 0;
}

/*
 * A signal to a stage and to every process below it: a stage's shell
 * waits for its command and dies of the command's SIGINT, not of its
 * own. The kernel lists a task's children in /proc (without it, the
 * stage alone gets the signal).
 */
static void
signal_tree(pid_t pid, int sig, int depth)
{
	char path[64];
	long child;
	FILE *f;

	kill(pid, sig);
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid,
		 (long)pid);
	if (depth > 16 || (f = fopen(path, "re")) == NULL)
		return;
	while (fscanf(f, "%ld", &child) == 1)
		signal_tree((pid_t)child, sig, depth + 1);
	fclose(f);
}

static void
signal_stages(struct pb_pipeline *pl, int sig)
{
	int i;

	for (i = 0; i < pl->n; i++)
		if (atomic_load(&pl->stage[i].running))
			signal_tree(pl->stage[i].pid, sig, 0);
}

/*
 * Wait for every stage started, its rusage and its time. A signal we
 * pass on goes to every stage still running, each time it comes; the
 * first is returned, for us to die of once the report is out.
 */
static int
wait_stages(struct pb_pipeline *pl)
{
	struct timespec now;
	int left = 0, i, wstatus, sig = 0;
	struct rusage ru;
	siginfo_t si;
	pid_t pid;

	for (i = 0; i < pl->n; i++)
		left += atomic_load(&pl->stage[i].running);
	while (left > 0) {
		if (sigwaitinfo(&waited, &si) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.si_signo != SIGCHLD) {
			if (sig == 0)
				sig = si.si_signo;
			signal_stages(pl, si.si_signo);
			continue;
		}
		while ((pid = wait4(-1, &wstatus, WNOHANG, &ru)) > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			for (i = 0; i < pl->n; i++)
				if (pl->stage[i].pid == pid)
					break;
			if (i == pl->n || !atomic_load(&pl->stage[i].running))
				continue;
			pl->stage[i].wstatus = wstatus;
			pl->stage[i].ru = ru;
			pl->stage[i].secs = pb_seconds(&pl->start, &now);
			atomic_store(&pl->stage[i].running, 0);
			left--;
		}
	}
	return sig;
}

static void
free_pipeline(struct pb_pipeline *pl)
{
	int i;

	for (i = 0; i < pl->n; i++)
		free(pl->stage[i].text);
	free(pl);
}

int
pb_pipeline(char **argv, int argc, struct pb_export *csv)
{
	struct pb_pipeline *pl = calloc(1, sizeof *pl);
	int rc, split, sig;

	if (pl == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	split = pb_pipeline_parse(pl, argv, argc);
	if (split < 0) {
		free_pipeline(pl);
		pb_export_abort(csv);
		return PB_PIPELINE_USAGE;
	}
	/* A stage that goes away leaves its relay an EPIPE, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	catch_signals();
	pb_relays_init(pl);
	if (start_stages(pl) < 0) {
		/* Those started end, as their pipes close. */
		signal_stages(pl, SIGTERM);
		pb_relays_end(pl);
		(void)wait_stages(pl);
		free_pipeline(pl);
		pb_export_abort(csv);
		return EXIT_FAILURE;
	}
	pb_watch_start(pl);
	sig = wait_stages(pl);
	pb_relays_end(pl);
	rc = pb_pipeline_report(pl, csv);
	free_pipeline(pl);
	if (sig != 0) {
		/* Die of it, as the stages did, so that a calling shell sees
		 * it. */
		fflush(NULL);
		signal(sig, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &waited, NULL);
		raise(sig);
	}
	return rc;
}
