/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <sys/ioctl.h>
#include <time.h>

#include "fastio.h"
#include "sys.h"
#include "tune.h"

/*
 * Pacing a pipe for its reader. A writer that blocks on a full pipe is
 * woken by the reader's next read(), and a reader that reads a page at a
 * time (mawk, a Python line loop) then wakes it once a page, and pays
 * for each wake-up: mawk spent 0.29-0.53 s of system time on 500 MB
 * from a pipe, 0.06-0.10 s reading the file itself (6.18.44-fc-v782,
 * AMD EPYC, wake-up 5.3-6.1 us). So when the pipe lacks room for the
 * next chunk, the writer sleeps for the time the reader, at the pace it
 * showed since the last look, needs to make that room, and is then woken
 * by its own timer, once a chunk. Where the reader stalls, or is so fast
 * or so slow that wake-ups cost little, the blocking call waits as
 * before. Timing only decides when to look again: no byte depends on it.
 */

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void
fio_pace(struct fio_pace *pc, int fd, size_t size, uint64_t sent, size_t want)
{
	struct timespec ts;
	uint64_t t, taken, dt, dtaken, wait;
	int queued, i;

	/* Half a pipe left is the reader's margin for our lateness. */
	if (want > size / 2)
		want = size / 2;
	for (i = 0; i < FIO_PACE_LOOKS; i++) {
		if (ioctl(fd, FIONREAD, &queued) < 0 || queued < 0)
			return;
		t = now_ns();
		taken = sent - (uint64_t)queued;
		dt = t - pc->at;
		dtaken = taken - pc->taken;
		if (pc->at == 0 || (size_t)queued > size || dtaken == 0)
			dt = 0;
		pc->at = t;
		pc->taken = taken;
		if (size - (size_t)queued >= want || dt == 0)
			return;
		wait = (uint64_t)(want - (size - (size_t)queued)) * dt / dtaken;
		if (wait < FIO_PACE_MIN_NS || wait > FIO_PACE_MAX_NS)
			return;
		ts.tv_sec = (time_t)(wait / 1000000000u);
		ts.tv_nsec = (long)(wait % 1000000000u);
		if (nanosleep(&ts, NULL) < 0)
			return;
	}
}
