/* SPDX-License-Identifier: MIT */
/*
 * The writer (fastio.h): a caller's buffers out in order, at once or from
 * a second thread. Writing output into a pipe costs its writer as much
 * as formatting it (the kernel allocates the pipe's pages and copies into
 * them; BENCHMARKS.md, "Strategies"), and a pipe's reader that keeps up
 * leaves the other CPU mostly idle: there the two halves can overlap. The
 * thread writes and nothing else: signals other than its own SIGPIPE stay with
 * the caller's thread, and an error waits in err for the caller to report.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fastio.h"
#include "machine.h"
#include "sys.h"
#include "vote.h"
#include "tune.h"

#define N FIO_WRITER_BUFS

void
fio_writer_init(struct fio_writer *w, struct fio_fd *out, char *buf, size_t cap)
{
	*w = (struct fio_writer){
	    .out = out, .cap = cap, .state = FIO_WRITER_ONE};
	w->buf[0] = buf;
	/*
	 * Writes that copy the bytes in: a pipe's, a file's. Where a write
	 * moves nothing (/dev/null) there is nothing to overlap.
	 */
	if (!fio_forced(FIO_THREAD) &&
	    (!fio_enabled(FIO_THREAD) ||
	     (out->kind != FIO_PIPE && out->kind != FIO_REGULAR)))
		w->state = FIO_WRITER_ONE_NOW;
}

/*
 * The reader's vote (vote.h), while it lasts: a pipe too full to take the
 * whole buffer means the reader is slower than we write, and the thread
 * only takes CPU from it (BENCHMARKS.md, "Strategies": the writer's
 * thread).
 */
static int
reader_behind(struct fio_writer *w, size_t n)
{
	int queued = 0;

	if (fio_forced(FIO_THREAD) || w->out->kind != FIO_PIPE ||
	    w->out->pipe_size == 0 || w->vote.rounds >= FIO_VOTE_ROUNDS)
		return 0;
	if (ioctl(w->out->fd, FIONREAD, &queued) < 0)
		queued = 0;
	return fio_vote_count(&w->vote, (size_t)queued + n > w->out->pipe_size,
			      0) == FIO_VOTE_SIGN;
}

static void *
thread_main(void *arg)
{
	struct fio_writer *w = arg;
	unsigned i;
	int err, stop;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->head == w->tail && !w->quit) {
			w->sleeping = 1;
			pthread_cond_wait(&w->work, &w->lock);
			w->sleeping = 0;
		}
		if (w->head == w->tail)
			break;
		i = w->head % N;
		pthread_mutex_unlock(&w->lock);
		stop = reader_behind(w, w->len[i]);
		err =
		    fio_write_all(w->out->fd, w->buf[i], w->len[i], NULL, 0) < 0
			? errno
			: 0;
		pthread_mutex_lock(&w->lock);
		w->head++;
		if (err != 0) {
			/* Nothing after a failed write goes out. */
			w->err = err;
			w->head = w->tail;
		}
		w->stop |= stop;
		if (w->waiting && (w->tail - w->head <= w->low || err != 0))
			pthread_cond_signal(&w->room);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * A full buffer written into a 64 KiB pipe stalls writer and reader in
 * turn (see FIO_PIPE_SIZE); grown only once more bytes than it holds have
 * come, as every slot counts against the user's pipe quota, and given
 * back at the end (fio_writer_end).
 */
static void
grow(struct fio_writer *w)
{
	size_t was = w->out->pipe_size;

	if (w->grown || w->out->kind != FIO_PIPE)
		return;
	w->grown = 1;
	w->out->pipe_size = fio_pipe_grow(w->out->fd, FIO_PIPE_SIZE);
	if (w->out->pipe_size > was)
		w->grown_from = was;
}

static void
free_spares(struct fio_writer *w)
{
	unsigned i;

	for (i = 1; i < N; i++) {
		fio_buffer_free(w->buf[i], w->cap);
		w->buf[i] = NULL;
	}
}

/* Any refusal (memory, threads, CPUs) leaves the caller writing, for good. */
static void
start(struct fio_writer *w)
{
	unsigned i;
	int rc;

	w->state = FIO_WRITER_ONE_NOW;
	if (!fio_forced(FIO_THREAD) && !fio_two_cpus())
		return;
	grow(w); /* the vote reads its size: fixed before the thread */
	for (i = 1; i < N; i++)
		if ((w->buf[i] = fio_buffer_alloc(w->cap)) == NULL) {
			free_spares(w);
			return;
		}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->room, NULL);
	/* Its own SIGPIPE is the one signal it takes. */
	rc = fio_thread_start(&w->thread, thread_main, w, 1);
	if (rc != 0) {
		free_spares(w);
		return;
	}
	w->state = FIO_WRITER_TWO;
}

/*
 * If more than full buffers wait, wait until at most low do (the caller
 * then refills several before it sleeps again); the thread's error, if
 * any.
 */
static int
wait_for(struct fio_writer *w, unsigned full, unsigned low)
{
	int err;

	pthread_mutex_lock(&w->lock);
	if (w->tail - w->head > full) {
		if (w->sleeping)
			pthread_cond_signal(&w->work);
		while (w->tail - w->head > low && w->err == 0) {
			w->waiting = 1;
			w->low = low;
			pthread_cond_wait(&w->room, &w->lock);
			w->waiting = 0;
		}
	}
	err = w->err;
	pthread_mutex_unlock(&w->lock);
	errno = err;
	return err != 0 ? -1 : 0;
}

int
fio_writer_drain(struct fio_writer *w)
{
	return w->state == FIO_WRITER_TWO ? wait_for(w, 0, 0) : 0;
}

/* Drain, then the thread ends; the caller writes from here on. */
static int
stop_thread(struct fio_writer *w)
{
	int rc = wait_for(w, 0, 0), err = errno;

	pthread_mutex_lock(&w->lock);
	w->quit = 1;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->room);
	w->state = FIO_WRITER_ONE_NOW;
	errno = err;
	return rc;
}

char *
fio_writer_put(struct fio_writer *w, char *buf, size_t n, int bulk)
{
	int stop;

	w->sent += n;
	if (w->sent > w->out->pipe_size)
		grow(w);
	if (w->state == FIO_WRITER_ONE && bulk &&
	    (w->sent >= FIO_WRITER_START || fio_forced(FIO_THREAD)))
		start(w);
	if (w->state != FIO_WRITER_TWO || !bulk) {
		/* All that waits goes out first (nothing, without a thread). */
		if (fio_writer_drain(w) < 0)
			return NULL;
		return n > 0 && fio_write_all(w->out->fd, buf, n, NULL, 0) < 0
			   ? NULL
			   : buf;
	}
	pthread_mutex_lock(&w->lock);
	if (w->err == 0 && n > 0) {
		w->len[w->tail % N] = n;
		w->tail++;
		if (w->sleeping && w->tail - w->head >= FIO_WRITER_WAKE)
			pthread_cond_signal(&w->work);
	}
	stop = w->stop;
	pthread_mutex_unlock(&w->lock);
	/* The next buffer is free while fewer than N wait (none, stopped). */
	if ((stop ? stop_thread(w) : wait_for(w, N - 1, FIO_WRITER_LOW)) < 0)
		return NULL;
	return w->buf[w->tail % N];
}

/*
 * The bytes past the last whole block wait in a copy of their own while
 * the buffer goes out: the buffer is the writer's from then on.
 */
char *
fio_writer_put_whole(struct fio_writer *w, char *buf, size_t n, int bulk,
		     size_t *kept)
{
	char tail[FIO_WHOLE_BLOCK];
	size_t rest = n % FIO_WHOLE_BLOCK;
	char *next;

	memcpy(tail, buf + n - rest, rest);
	next = fio_writer_put(w, buf, n - rest, bulk);
	if (next != NULL)
		memcpy(next, tail, rest);
	*kept = rest;
	return next;
}

int
fio_writer_end(struct fio_writer *w)
{
	int rc = w->state == FIO_WRITER_TWO ? stop_thread(w) : 0, err = errno;

	free_spares(w);
	if (w->grown_from > 0)
		w->out->pipe_size =
		    fio_pipe_give_back(w->out->fd, w->grown_from);
	w->grown_from = 0;
	errno = err;
	return rc;
}
