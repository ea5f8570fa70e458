/* SPDX-License-Identifier: MIT */
/*
 * Running lines and rate samples come from a thread of their own, so the
 * data path makes no syscall for them and never waits for them.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "pipebench.h"

/*
 * A tick every 100 ms: a frame of the terminal display (at most 10 a
 * second) and a rate sample for --json, --plot and --export-csv (short
 * enough that a run of a few seconds gives a distribution, long enough
 * that the thread costs nothing measurable); the running lines of 0.40
 * and -r every tenth. Not a tuned constant.
 */
#define TICK_NS		 100000000L
#define TICKS_PER_SECOND 10

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* pb_ticker_stop() ends the wait at once */
	int display, sample, done, started;
	const struct pb_transfer *run;
	double *at;	 /* sample times, seconds from the start */
	uint64_t *bytes; /* bytes moved by then */
	size_t n, cap;
} tick = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void
add_sample(double at, uint64_t bytes)
{
	if (tick.n == tick.cap) {
		size_t cap = tick.cap ? 2 * tick.cap : 1024;
		double *a = realloc(tick.at, cap * sizeof *a);
		uint64_t *b;

		if (a == NULL)
			return;
		tick.at = a;
		b = realloc(tick.bytes, cap * sizeof *b);
		if (b == NULL)
			return;
		tick.bytes = b;
		tick.cap = cap;
	}
	tick.at[tick.n] = at;
	tick.bytes[tick.n++] = bytes;
}

static void *
ticker(void *unused)
{
	struct timespec next = tick.run->start;
	unsigned k = 0;
	uint64_t now, second_ago = 0;

	(void)unused;
	for (;;) {
		next.tv_nsec += TICK_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		pthread_mutex_lock(&tick.lock);
		while (!tick.done &&
		       pthread_cond_timedwait(&tick.wake, &tick.lock, &next) !=
			   ETIMEDOUT)
			;
		if (tick.done) {
			pthread_mutex_unlock(&tick.lock);
			return NULL;
		}
		now = pb_moved();
		k++;
		if (tick.sample)
			add_sample(pb_seconds(&tick.run->start, &next), now);
		if (tick.display &&
		    (k % TICKS_PER_SECOND == 0 || pb_display_every_tick())) {
			pb_display(tick.run,
				   pb_usec(&next) - pb_usec(&tick.run->start),
				   now, now - second_ago);
			if (k % TICKS_PER_SECOND == 0)
				second_ago = now;
		}
		pthread_mutex_unlock(&tick.lock);
	}
}

void
pb_ticker_start(const struct pb_transfer *r, int display)
{
	pthread_condattr_t attr;

	tick.run = r;
	tick.display = display;
	tick.sample = pb_opt->json || pb_opt->plot || pb_opt->export_csv;
	if (!tick.display && !tick.sample)
		return;
	/* The ticks are on the clock the run is timed by. */
	if (pthread_condattr_init(&attr) != 0 ||
	    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&tick.wake, &attr) != 0) {
		tick.display = tick.sample = 0;
		return;
	}
	pthread_condattr_destroy(&attr);
	/* Signals are for the data path: a SIGINT must interrupt it. */
	tick.started = fio_thread_start(&tick.thread, ticker, NULL, 0) == 0;
	if (!tick.started)
		tick.display = tick.sample = 0;
}

/* The ticker prints nothing more and is gone when this returns. */
void
pb_ticker_stop(void)
{
	pthread_mutex_lock(&tick.lock);
	tick.done = 1;
	if (tick.started)
		pthread_cond_signal(&tick.wake);
	pthread_mutex_unlock(&tick.lock);
	if (tick.started)
		pthread_join(tick.thread, NULL);
	tick.started = 0;
}

/* The sample intervals that lie between the first byte and the end. */
struct pb_sample *
pb_samples(const struct pb_transfer *r, size_t *n)
{
	double first = pb_seconds(&r->start, &r->first),
	       end = pb_seconds(&r->start, &r->end);
	struct pb_sample *v;
	size_t i;

	*n = 0;
	v = malloc((tick.n + 1) * sizeof *v);
	for (i = 1; v != NULL && i < tick.n; i++)
		if (tick.at[i - 1] >= first && tick.at[i] <= end)
			v[(*n)++] = (struct pb_sample){
			    tick.at[i],
			    (double)(tick.bytes[i] - tick.bytes[i - 1]) /
				(tick.at[i] - tick.at[i - 1]),
			    tick.bytes[i]};
	return v;
}

void
pb_ticker_free(void)
{
	free(tick.at);
	free(tick.bytes);
	tick.at = NULL;
	tick.bytes = NULL;
	tick.n = tick.cap = 0;
}
