/* SPDX-License-Identifier: MIT */
/*
 * --pipeline's relays and watcher. A relay a link: a thread that moves
 * what a stage writes on to the next stage (the last one's output to our
 * standard output) through libfastio's pump, splicing where it can and
 * never growing a pipe, so that each stage has the pipe a shell would
 * give it. The watcher, one more thread, looks at every pipe each
 * PB_WATCH_NS (FIONREAD) while its stage runs, our standard input for
 * the first stage if it is a pipe, and counts how often a stage's input
 * was full and its output empty; on a terminal it also draws a line a
 * stage.
 */
#include "config.h"

#include <errno.h>
#include <linux/close_range.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/*
 * A look at the pipes every 10 ms: a hundred a second, so that a run of
 * a second gives a share to the percent, at a cost of a few
 * microseconds a look. Not a tuned constant.
 */
#define PB_WATCH_NS   10000000L
#define PB_DRAW_EVERY 10 /* looks between two frames: ten a second */

/* The signal that wakes a relay (pthread_kill). */
#define PB_WAKE SIGUSR1

/* The relays' buffer, where a stage's pipe cannot be spliced. */
#define PB_RELAY_BUF ((size_t)64 << 10)

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int done, started, draw;
} watch = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_t main_thread;

/*
 * SIGUSR1 wakes a relay from a call that waits (pthread_kill, from our
 * main thread). One sent to the process that found a relay rather than
 * the main thread (which takes it only while it waits) is the main
 * thread's to act on, as every other signal is.
 */
static void
on_wake(int sig, siginfo_t *si, void *context)
{
	(void)context;
	if (si->si_code == SI_TKILL && si->si_pid == getpid())
		return;
	pthread_kill(main_thread, sig);
}

/* Close a relay's ends, under its lock: the watcher may be looking. Its
 * output end stays open while the stages are ended by a signal: closed,
 * it would be an end of file to the next. */
static void
close_ends(struct pb_relay *r)
{
	int keep = r->abort != NULL && atomic_load(r->abort);

	pthread_mutex_lock(&r->lock);
	if (r->from > STDERR_FILENO)
		close(r->from);
	if (r->to > STDERR_FILENO && !keep) {
		close(r->to);
		r->to = -1;
	}
	r->open = 0;
	pthread_mutex_unlock(&r->lock);
}

/*
 * Every stage has ended, but the last one's output pipe still has a
 * writer: a background child of the stage (`... | { cat; (sleep 1; echo
 * late) & }`), which in a shell writes into our output itself after the
 * shell has gone. A process of its own carries on what it writes until
 * it closes the pipe, and we go.
 */
static void
hand_over(struct pb_relay *r, struct fio_pump *p)
{
	struct pollfd pf = {r->from, POLLIN, 0};
	sigset_t none;
	ssize_t n;

	if (r->to != STDOUT_FILENO || poll(&pf, 1, 0) < 0 ||
	    (pf.revents & POLLHUP) || fork() != 0)
		return;
	signal(PB_WAKE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (r->from != 3 && dup2(r->from, 3) < 0)
		_exit(1);
	close(STDIN_FILENO);
	close(STDERR_FILENO);
	close_range(4, ~0U, 0);
	r->in.fd = 3;
	p->flags &= ~FIO_PUMP_SIGNALS;
	fio_pump_next(p, &r->in, FIO_FOREVER);
	while ((n = fio_pump_fill(p)) > 0 && fio_pump_flush_all(p) == 0)
		;
	_exit(0);
}

/* What from holds now: what a relay told to stop still passes on. */
static uint64_t
queued(int fd)
{
	int n = 0;

	return ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? (uint64_t)n : 0;
}

/*
 * Move from's bytes to to until from ends, to goes away, or we are told
 * to stop; then close both, so that the stage before sees its reader gone
 * and the stage after its end of file, as in a shell's pipeline. Told to
 * stop (every stage has ended), it passes on what from holds and no more:
 * a stage's background child may hold from open, and a shell does not
 * wait for it either.
 */
static void *
relay(void *arg)
{
	struct pb_relay *r = arg;
	struct fio_pump p;
	uint64_t limit = FIO_FOREVER;
	ssize_t n;

	fio_pump_init(&p, &r->in, &r->out, r->buf, PB_RELAY_BUF, FIO_FOREVER,
		      FIO_PUMP_SIGNALS | FIO_PUMP_KEEP_PIPES);
	for (;;) {
		/* Bytes read and not yet written (a signal ended the write)
		 * go first, and count as taken. */
		if (limit == FIO_FOREVER && atomic_load(&r->stop))
			limit = p.total + p.held + queued(r->from);
		n = p.held > 0 && fio_pump_flush_all(&p) < 0 ? -1 : 1;
		if (n > 0 && p.total >= limit)
			break;
		if (n > 0 && limit != FIO_FOREVER)
			p.left = limit - p.total;
		if (n > 0)
			n = fio_pump_fill(&p);
		if (n > 0 && fio_pump_flush_all(&p) < 0)
			n = -1;
		if (n < 0 && errno == EINTR)
			continue;
		atomic_store(&r->bytes, p.total);
		if (n == 0)
			break;
		if (n < 0) {
			/* The reader gone is the end of a pipeline's stage,
			 * not an error. */
			if (!(p.side == FIO_SIDE_OUTPUT && errno == EPIPE)) {
				r->err = errno;
				r->side = p.side;
			}
			break;
		}
	}
	atomic_store(&r->bytes, p.total);
	if (limit != FIO_FOREVER && p.total >= limit && !atomic_load(r->abort))
		hand_over(r, &p);
	fio_pump_end(&p);
	close_ends(r);
	return NULL;
}

/* A look at the pipe fd, of size bytes, that stage st reads: full when
 * three quarters are; empty, the stage waits for its input. */
static void
look_in(struct pb_stage *st, int fd, size_t size)
{
	int queued;

	if (ioctl(fd, FIONREAD, &queued) == 0) {
		st->in_queued = queued;
		st->in_empty_now = queued == 0;
		if ((size_t)queued >= size - size / 4)
			st->in_full++;
	}
}

/* What a look at the pipes counts, for each stage still running. */
static void
look(struct pb_pipeline *pl)
{
	struct pb_relay *in, *out;
	int i, queued;

	for (i = 0; i < pl->n; i++) {
		struct pb_stage *st = &pl->stage[i];

		if (!atomic_load(&st->running))
			continue;
		st->samples++;
		st->in_empty_now = st->out_full_now = 0;
		in = &pl->relay[i];
		out = &pl->relay[i + 1];
		/* Our standard input, which the first stage reads: a pipe
		 * as full as it is, a file always so. */
		if (i == 0 && pl->in_watch == PB_IN_FILE)
			st->in_full++;
		if (i == 0 && pl->in_watch == PB_IN_PIPE)
			look_in(st, pl->in_watch, in->size);
		pthread_mutex_lock(&in->lock);
		if (in->open)
			look_in(st, in->to, in->size);
		pthread_mutex_unlock(&in->lock);
		pthread_mutex_lock(&out->lock);
		if (out->open && ioctl(out->from, FIONREAD, &queued) == 0) {
			st->out_queued = queued;
			if (queued == 0)
				st->out_empty++;
			st->out_full_now =
			    (size_t)queued >=
			    out->in.pipe_size - out->in.pipe_size / 4;
		}
		pthread_mutex_unlock(&out->lock);
	}
	pb_verdict_look(pl);
}

static void *
watcher(void *arg)
{
	struct pb_pipeline *pl = arg;
	struct timespec next;
	unsigned k = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&watch.lock);
	while (!watch.done) {
		next.tv_nsec += PB_WATCH_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&watch.wake, &watch.lock, &next) !=
		    ETIMEDOUT)
			continue;
		look(pl);
		if (watch.draw && ++k % PB_DRAW_EVERY == 0)
			pb_view_frame(pl, 0);
	}
	pthread_mutex_unlock(&watch.lock);
	return NULL;
}

/* A thread that takes no signal but PB_WAKE, our way to stop a relay. */
static int
start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	sigdelset(&all, PB_WAKE);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void
pb_relays_init(struct pb_pipeline *pl)
{
	struct sigaction sa;
	int i;

	main_thread = pthread_self();
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_wake; /* no SA_RESTART: a waiting call ends */
	sa.sa_flags = SA_SIGINFO;
	sigaction(PB_WAKE, &sa, NULL);
	for (i = 0; i <= pl->n; i++) {
		pl->relay[i].from = pl->relay[i].to = -1;
		pl->relay[i].abort = &pl->abort;
		pthread_mutex_init(&pl->relay[i].lock, NULL);
	}
}

int
pb_relay_start(struct pb_relay *r)
{
	(void)fio_classify(r->from, &r->in);
	(void)fio_classify(r->to, &r->out);
	r->size = r->out.kind == FIO_PIPE ? r->out.pipe_size : r->in.pipe_size;
	r->buf = malloc(PB_RELAY_BUF);
	r->open = 1;
	if (r->buf == NULL || start_thread(&r->thread, relay, r) != 0) {
		free(r->buf);
		r->buf = NULL;
		r->open = 0;
		return -1;
	}
	r->started = 1;
	return 0;
}

void
pb_watch_start(struct pb_pipeline *pl)
{
	pthread_condattr_t attr;

	if (pl->in_watch == PB_IN_PIPE &&
	    fio_classify(pl->in_watch, &pl->relay[0].in) == 0)
		pl->relay[0].size = pl->relay[0].in.pipe_size;
	watch.draw = pb_view_setup(pl);
	if (pthread_condattr_init(&attr) == 0 &&
	    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
	    pthread_cond_init(&watch.wake, &attr) == 0)
		watch.started = start_thread(&watch.thread, watcher, pl) == 0;
}

/*
 * Once every stage has ended: each relay is told to stop (it passes on
 * what its pipe holds, then ends) and woken from a call that waits for
 * bytes that may never come, until it has.
 */
void
pb_relays_end(struct pb_pipeline *pl)
{
	struct timespec ms = {0, 1000000};
	int i;

	for (i = 0; i <= pl->n; i++)
		if (pl->relay[i].started) {
			atomic_store(&pl->relay[i].stop, 1);
			while (pthread_tryjoin_np(pl->relay[i].thread, NULL) !=
			       0) {
				pthread_kill(pl->relay[i].thread, PB_WAKE);
				nanosleep(&ms, NULL);
			}
		}
	if (watch.started) {
		pthread_mutex_lock(&watch.lock);
		watch.done = 1;
		pthread_cond_signal(&watch.wake);
		pthread_mutex_unlock(&watch.lock);
		pthread_join(watch.thread, NULL);
	}
	if (watch.draw)
		pb_view_end(pl);
	for (i = 0; i <= pl->n; i++) {
		/* Kept open while the stages were ended: none is left. */
		if (pl->relay[i].to > STDERR_FILENO)
			close(pl->relay[i].to);
		pl->relay[i].to = -1;
		free(pl->relay[i].buf);
	}
}
