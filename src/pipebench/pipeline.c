/* SPDX-License-Identifier: MIT */
/*
 * --pipeline: a whole pipeline run by us as bash -o pipefail runs it,
 * stage by stage, each stage's output on a pipe we watch, so that the
 * stage that holds the rest back can be named. This file starts the
 * stages (each with bash -o pipefail -c, or --shell's shell; a stage
 * that is a simple command is exec'd by it, so the command is the
 * stage), each with its pipes made as it starts, and waits for them as
 * bash does; parse.c splits the operands into stages, signals.c tells
 * which signals reached the stages themselves, relay.c moves the bytes
 * and watches the pipes, stages.c reports.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/* Bad input: said, nothing started, status 2. */
#define PB_PIPELINE_USAGE 2

/* A stage's child: its ends in place, its descriptors and signals as
 * from bash, then the command. */
static _Noreturn void
stage_child(const struct pb_stage *st, int in, int out)
{
	unsigned kept = 0;

	if (in >= 0) {
		dup2(in, STDIN_FILENO);
		kept |= 1u << STDIN_FILENO;
	}
	if (out >= 0 && out != STDOUT_FILENO) {
		dup2(out, STDOUT_FILENO);
		kept |= 1u << STDOUT_FILENO;
	}
	pb_close_std(kept);
	pb_signals_child();
	pb_exec(pb_opt->shell, st->argv != NULL ? NULL : st->text, st->argv);
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
 * Whether the last stage writes our standard output itself, as in a
 * shell: a terminal (a live view would draw over it), a descriptor
 * that came closed, or a regular file, so that `cat f >> f` meets cat's
 * "input file is output file" and a background child's late lines land
 * in it; what goes into the file is metered by its offset (out_at).
 */
static int
last_writes_ours(struct pb_pipeline *pl)
{
	struct stat st;

	if (isatty(STDOUT_FILENO) || pb_std_closed & 1u << STDOUT_FILENO)
		return 1;
	if (fstat(STDOUT_FILENO, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	pl->out_at = lseek(STDOUT_FILENO, 0, SEEK_CUR);
	return 1;
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
	if (i == pl->n - 1 && last_writes_ours(pl))
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

/* The processes of a stage: its own and every one below it, as far as
 * the kernel lists a task's children (without /proc, the stage alone). */
#define PB_TREE_MAX 1024

static size_t
stage_tree(pid_t pid, pid_t *tree, size_t n)
{
	char path[64];
	size_t at, k = 0;
	long child;
	FILE *f;

	tree[k++] = pid;
	for (at = 0; at < k; at++) {
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/children",
			 (long)tree[at], (long)tree[at]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (k < n && fscanf(f, "%ld", &child) == 1)
			tree[k++] = (pid_t)child;
		fclose(f);
	}
	return k;
}

/*
 * Whether process pid is still the shell we started for stage st, not
 * the command it exec'd: its command line is still ours. bash execs a
 * stage's simple command but one with a redirection (`wc -l > f`), and
 * then waits for it.
 */
static int
still_shell(pid_t pid, const struct pb_stage *st)
{
	char path[64], want[64], got[64];
	size_t n;
	FILE *f;

	if (st->argv != NULL)
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	n = fread(got, 1, sizeof got, f);
	fclose(f);
	/* Our exec's first words: the shell's name, then -o or -c. */
	n = n < sizeof got ? n : sizeof got;
	snprintf(want, sizeof want, "%s", pb_shell_argv0());
	return n > strlen(want) + 3 &&
	       memcmp(got, want, strlen(want) + 1) == 0 &&
	       got[strlen(want) + 1] == '-';
}

/*
 * A signal to a stage and to every process below it, the lowest first:
 * a compound stage's shell waits for its commands, and the list is read
 * before any of them dies, so that none is missed once its parent has
 * gone. Where the stage is a simple command that the shell did not exec,
 * the command gets it and the shell does not: in a pipeline bash's child
 * for it is the command, which a signal it catches or ignores does not
 * end, and the shell ends with it.
 */
static void
signal_tree(const struct pb_stage *st, int sig)
{
	pid_t tree[PB_TREE_MAX];
	size_t k = stage_tree(st->pid, tree, PB_TREE_MAX), last = 0;

	if (!st->compound && k > 1 && still_shell(st->pid, st))
		last = 1;
	while (k > last)
		kill(tree[--k], sig);
}

/*
 * A signal sent to us alone goes on to every stage at once, the last
 * first, and no relay passes on an end of file from now on: a stage
 * whose input ended because the one before died would commit a result
 * cut short (`... | wc -l > f`) before its own signal came.
 */
static void
signal_stages(struct pb_pipeline *pl, int sig)
{
	int i;

	atomic_store(&pl->abort, 1);
	for (i = pl->n - 1; i >= 0; i--)
		if (atomic_load(&pl->stage[i].running))
			signal_tree(&pl->stage[i], sig);
}

/* The stages that have exited, among the children wait4 gives. */
static int
reap(struct pb_pipeline *pl)
{
	struct timespec now;
	int i, wstatus, ended = 0;
	struct rusage ru;
	pid_t pid;

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
		ended++;
	}
	return ended;
}

/*
 * Wait for every stage started, its rusage and its time, as bash waits
 * for a pipeline. A signal the stages got themselves (the group's) is
 * not sent again; one sent to us alone goes on to them. The first is
 * returned: we die of it if a stage did.
 */
static int
wait_stages(struct pb_pipeline *pl)
{
	int left = 0, i, sig = 0;
	siginfo_t si;

	for (i = 0; i < pl->n; i++)
		left += atomic_load(&pl->stage[i].running);
	while (left > 0) {
		if (sigwaitinfo(pb_signals_waited(), &si) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (si.si_signo == SIGCHLD) {
			left -= reap(pl);
			continue;
		}
		if (sig == 0)
			sig = si.si_signo;
		if (!pb_signals_to_group(&si))
			signal_stages(pl, si.si_signo);
	}
	return sig;
}

/* Whether the last stage died of sig (its shell tells so by 128 + sig),
 * as bash requires to die of SIGINT too. */
static int
died_of(const struct pb_pipeline *pl, int sig)
{
	int w = pl->stage[pl->n - 1].wstatus;

	return (WIFSIGNALED(w) && WTERMSIG(w) == sig) ||
	       (WIFEXITED(w) && WEXITSTATUS(w) == 128 + sig);
}

/*
 * A command line the shell would refuse (an unbalanced parenthesis, a
 * stray keyword) is refused before anything runs: SHELL -n reads it
 * without running a thing and says what is wrong in its own words, as
 * the same line under bash -c would.
 */
static int
syntax_ok(const char *line)
{
	const char *shell = pb_opt->shell;
	int status, null;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		execl(shell, shell, "-n", "-c", line, (char *)NULL);
		_exit(0); /* no shell to ask: our own splitting decides */
	}
	if (pid < 0)
		return 1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
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
	int rc, split, sig, died;

	if (pl == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	split = argc == 1 && !syntax_ok(argv[0])
		    ? -1
		    : pb_pipeline_parse(pl, argv, argc);
	if (split < 0) {
		free_pipeline(pl);
		pb_export_abort(csv);
		return PB_PIPELINE_USAGE;
	}
	pl->out_at = -1;
	pb_signals_catch();
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
	pb_signals_end();
	/* Our report's own EPIPE (stderr gone) is no signal of anyone's. */
	signal(SIGPIPE, SIG_IGN);
	rc = pb_pipeline_report(pl, csv);
	/* bash, not interactive, dies at once of a signal that would end
	 * it, but SIGINT and SIGQUIT: those it waits out, and dies of them
	 * only where the last command did (a stage that handles Ctrl-C and
	 * exits 0 leaves pipefail's status). */
	died =
	    sig != 0 && ((sig != SIGINT && sig != SIGQUIT) || died_of(pl, sig));
	free_pipeline(pl);
	if (died) {
		/* Die of it, as a stage did, so that a calling shell sees
		 * it. */
		fflush(NULL);
		signal(sig, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, pb_signals_waited(), NULL);
		raise(sig);
	}
	return rc;
}
