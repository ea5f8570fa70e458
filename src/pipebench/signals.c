/* SPDX-License-Identifier: MIT */
/*
 * --pipeline's signals, as a shell's: which it waits for, whether the
 * stages got one themselves, and passing one on.
 *
 * Every signal whose default would end pipebench is waited for (blocked,
 * then taken by sigwaitinfo with SIGCHLD, so none is lost between a fork
 * and the wait), but those ignored when we started, which stay ignored
 * for us and the stages, as a shell leaves them. The threads block them
 * all.
 *
 * A signal sent to the process group (the terminal's Ctrl-C, `kill --
 * -PGID`, a job control shell's kill %1) reached the stages already:
 * sent again, a stage that handles it would run its handler twice. One
 * sent to pipebench alone (kill PID, timeout, a service manager that
 * signals the main process) must go on to every stage. siginfo cannot
 * tell the two apart (both SI_USER), so a sentinel process in our group,
 * every signal blocked, tells: the kernel sends a group's signal to its
 * newest members first, so by the time we are woken a group's signal is
 * pending in the sentinel (we read it in /proc), and the sentinel then
 * takes it so that the next one is told apart too.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "pipebench.h"

/* Default action: end the process. SIGKILL and SIGSTOP cannot be
 * waited for; the real-time ones are added at run time. */
static const int ending[] = {
    SIGHUP,    SIGINT,	SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT, SIGBUS,
    SIGFPE,    SIGUSR1, SIGSEGV,   SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
    SIGXCPU,   SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGSYS,
#ifdef SIGPWR
    SIGPWR,
#endif
};

static sigset_t waited; /* the ending ones we wait for, and SIGCHLD */
static pid_t sentinel = -1;
static int sentinel_ctl = -1, sentinel_ack = -1;

static void
add_ending(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
		sigaddset(&waited, sig);
}

/* The sentinel: every signal blocked; it takes a signal when told (one
 * byte, its number), answers, and ends when we do (its pipe's EOF). */
static _Noreturn void
sentinel_main(int ctl, int ack)
{
	struct timespec now = {0, 0};
	unsigned char sig;
	sigset_t one;

	while (read(ctl, &sig, 1) == 1) {
		sigemptyset(&one);
		sigaddset(&one, sig);
		(void)sigtimedwait(&one, NULL, &now);
		if (write(ack, &sig, 1) != 1)
			break;
	}
	_exit(0);
}

static void
start_sentinel(void)
{
	int ctl[2], ack[2];
	sigset_t all, old;

	if (pipe2(ctl, O_CLOEXEC) < 0)
		return;
	if (pipe2(ack, O_CLOEXEC) < 0) {
		close(ctl[0]);
		close(ctl[1]);
		return;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	sentinel = fork();
	if (sentinel == 0) {
		/* Only its two ends: it must hold nothing of a stage's. */
		if (dup2(ctl[0], 3) < 0 || dup2(ack[1], 4) < 0)
			_exit(1);
		close_range(0, 2, 0);
		close_range(5, ~0U, 0);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		sentinel_main(3, 4);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ctl[0]);
	close(ack[1]);
	if (sentinel < 0) {
		close(ctl[1]);
		close(ack[0]);
		return;
	}
	sentinel_ctl = ctl[1];
	sentinel_ack = ack[0];
}

void
pb_signals_catch(void)
{
	size_t i;
	int sig;

	sigemptyset(&waited);
	for (i = 0; i < sizeof ending / sizeof ending[0]; i++)
		add_ending(ending[i]);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		add_ending(sig);
	sigaddset(&waited, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waited, NULL);
	start_sentinel();
}

const sigset_t *
pb_signals_waited(void)
{
	return &waited;
}

/* Whether signal sig is pending in the sentinel: its ShdPnd mask. */
static int
sentinel_has(int sig)
{
	char path[64], line[128];
	unsigned long long mask = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)sentinel);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "ShdPnd: %llx", &mask) == 1) {
			found = sig <= 64 && (mask >> (sig - 1) & 1u);
			break;
		}
	fclose(f);
	return found;
}

int
pb_signals_to_group(const siginfo_t *si)
{
	unsigned char sig = (unsigned char)si->si_signo;

	if (sentinel <= 0)
		/* No sentinel: only the terminal's are known for the
		 * group's. */
		return si->si_code == SI_KERNEL;
	if (!sentinel_has(si->si_signo))
		return 0;
	/* Taken, so that the next one is told apart too. */
	if (write(sentinel_ctl, &sig, 1) != 1 ||
	    read(sentinel_ack, &sig, 1) != 1)
		return 1;
	return 1;
}

void
pb_signals_end(void)
{
	if (sentinel_ctl >= 0)
		close(sentinel_ctl);
	if (sentinel_ack >= 0)
		close(sentinel_ack);
	sentinel_ctl = sentinel_ack = -1;
	sentinel = -1;
}

void
pb_signals_child(void)
{
	sigset_t none;
	int sig;

	/* As we found them: the waited ones had their default; SIGPIPE, which
	 * the run may ignore, as the caller left it. */
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&waited, sig) == 1)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, pb_sigpipe_ignored ? SIG_IGN : SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
