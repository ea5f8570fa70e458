/* SPDX-License-Identifier: MIT */
/*
 * fakeio.so: a test-only preload that makes a program believe a stream of
 * FAKE_BYTES bytes came on standard input in FAKE_USEC microseconds, so
 * that our pipebench's summary can be compared with pipebench 0.40's for
 * any size (to 2^50 bytes and beyond, without moving them) and any
 * duration (across the hour boundary, without waiting). Never installed.
 *
 *   reads of fd 0, fread(stdin): FAKE_BYTES in all, then the end;
 *   writes to fd 1, fwrite(stdout): taken whole, nothing written;
 *   the clock (gettimeofday, clock_gettime's CLOCK_MONOTONIC): the start
 *   at FAKE_PHASE microseconds past a whole second for the first calls
 *   (0.40 makes two, we one), FAKE_USEC later for every call after them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static uint64_t left;
static long long usec, phase;
static int ready, tod_calls, mono_calls;

static void
setup(void)
{
	const char *b = getenv("FAKE_BYTES"), *u = getenv("FAKE_USEC"),
		   *p = getenv("FAKE_PHASE");

	if (ready)
		return;
	left = b ? strtoull(b, NULL, 10) : 0;
	usec = u ? strtoll(u, NULL, 10) : 0;
	phase = p ? strtoll(p, NULL, 10) : 0;
	ready = 1;
}

/* Microseconds of the fake clock: the start, or the end. */
static long long
now(int later)
{
	return 1000000000LL * 1000000 + phase + (later ? usec : 0);
}

static uint64_t
take(uint64_t want)
{
	uint64_t n = want < left ? want : left;

	left -= n;
	return n;
}

ssize_t
read(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);

	setup();
	if (fd == 0)
		return (ssize_t)take(len);
	if (real == NULL)
		real =
		    (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	return real(fd, buf, len);
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (fd == 1)
		return (ssize_t)len;
	if (real == NULL)
		real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT,
								    "write");
	return real(fd, buf, len);
}

size_t
fread(void *p, size_t size, size_t n, FILE *f)
{
	static size_t (*real)(void *, size_t, size_t, FILE *);
	size_t got;

	setup();
	if (real == NULL)
		real = (size_t(*)(void *, size_t, size_t, FILE *))dlsym(
		    RTLD_NEXT, "fread");
	if (f != stdin || size == 0)
		return real(p, size, n, f);
	got = (size_t)take((uint64_t)size * n) / size;
	/* At the end, a real read of the (empty) stdin sets its EOF flag. */
	return got > 0 ? got : real(p, size, n, f);
}

size_t
fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	static size_t (*real)(const void *, size_t, size_t, FILE *);

	if (f == stdout)
		return n;
	if (real == NULL)
		real = (size_t(*)(const void *, size_t, size_t, FILE *))dlsym(
		    RTLD_NEXT, "fwrite");
	return real(p, size, n, f);
}

int
gettimeofday(struct timeval *tv, void *tz)
{
	long long t;

	(void)tz;
	setup();
	t = now(++tod_calls > 2);
	tv->tv_sec = (time_t)(t / 1000000);
	tv->tv_usec = (suseconds_t)(t % 1000000);
	return 0;
}

int
clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	long long t;

	setup();
	if (id != CLOCK_MONOTONIC) {
		if (real == NULL)
			real = (int (*)(clockid_t, struct timespec *))dlsym(
			    RTLD_NEXT, "clock_gettime");
		return real(id, ts);
	}
	t = now(++mono_calls > 1);
	ts->tv_sec = (time_t)(t / 1000000);
	ts->tv_nsec = (long)(t % 1000000) * 1000;
	return 0;
}
