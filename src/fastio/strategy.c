/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fastio.h"
#include "machine.h"
#include "vote.h"
#include "tune.h"

static const char *const strategy_names[FIO_STRATEGY_COUNT] = {
    [FIO_READ_WRITE] = "readwrite",
    [FIO_VMSPLICE] = "vmsplice",
    [FIO_TEE] = "tee",
    [FIO_SPLICE] = "splice",
    [FIO_COPY_FILE_RANGE] = "copy_file_range",
    [FIO_SENDFILE] = "sendfile",
    [FIO_ONE_READ] = "oneread",
    [FIO_PAGES] = "pages",
    [FIO_HOT_PAGE] = "hotpage",
    [FIO_BITES] = "bites",
    [FIO_THREAD] = "thread",
    [FIO_AHEAD] = "ahead",
    [FIO_PACE] = "pace",
    [FIO_START] = "start",
    [FIO_DIRECT] = "direct",
    [FIO_MIDDLE] = "middle",
    [FIO_GULP] = "gulp",
    [FIO_PROBE] = "probe",
    [FIO_SPIN] = "spin",
};

/* Words of earlier releases, which users may have typed: "hot" was the
 * hot page and the bites at once. */
static const struct {
	const char *name;
	unsigned set;
} aliases[] = {
    {"write", 1u << FIO_READ_WRITE},
    {"readfile", 1u << FIO_ONE_READ},
    {"hot", 1u << FIO_HOT_PAGE | 1u << FIO_BITES},
    {"all", ~0u},
};

/* The library's only mutable state; fio_reset() restores it for tests. */
static unsigned disabled, forced;
static size_t page; /* FASTIO_PAGE_SIZE's, or 0: the kernel's */

int
fio_enabled(enum fio_strategy s)
{
	if (s == FIO_READ_WRITE)
		return 1;
	return (unsigned)s < FIO_STRATEGY_COUNT && !(disabled & 1u << s);
}

int
fio_forced(enum fio_strategy s)
{
	return (unsigned)s < FIO_STRATEGY_COUNT && (forced & 1u << s) &&
	       fio_enabled(s);
}

int
fio_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg, int sigpipe)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	if (sigpipe)
		sigdelset(&all, SIGPIPE);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int
fio_two_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof set, &set) == 0 &&
	       CPU_COUNT(&set) >= 2;
}

void
fio_reset(void)
{
	disabled = forced = 0;
	page = 0;
}

uint64_t
fio_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

size_t
fio_page_size(void)
{
	long n;

	if (page != 0)
		return page;
	n = sysconf(_SC_PAGESIZE);
	return n > 0 ? (size_t)n : 4096;
}

/*
 * FASTIO_PAGE_SIZE: a power of two from 4 KiB to 1 MiB that the tee
 * sources take for the kernel's page size, so that a 4 KiB kernel runs
 * their arithmetic for the 64 KiB pages of ppc64el and some arm64
 * kernels (the stream stays exact either way; only its layout in the
 * pipe's slots changes).
 */
static int
set_page(const char *text)
{
	char *end;
	unsigned long n = strtoul(text, &end, 10);

	if (*end != '\0' || n < 4096 || n > ((unsigned long)1 << 20) ||
	    (n & (n - 1)) != 0) {
		errno = EINVAL;
		return -1;
	}
	page = (size_t)n;
	return 0;
}

static int
set_one(unsigned *set, const char *name, size_t len)
{
	unsigned s;

	for (s = 0; s < FIO_STRATEGY_COUNT; s++)
		if (strlen(strategy_names[s]) == len &&
		    memcmp(strategy_names[s], name, len) == 0) {
			*set |= 1u << s;
			return 0;
		}
	for (s = 0; s < sizeof aliases / sizeof aliases[0]; s++)
		if (strlen(aliases[s].name) == len &&
		    memcmp(aliases[s].name, name, len) == 0) {
			*set |= aliases[s].set;
			return 0;
		}
	return -1;
}

static int
set_list(unsigned *set, const char *list)
{
	int rc = 0;
	size_t len;

	while (*list != '\0') {
		len = strcspn(list, ",");
		if (len > 0 && set_one(set, list, len) < 0)
			rc = -1;
		list += len;
		if (*list == ',')
			list++;
	}
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

int
fio_disable(const char *list)
{
	return set_list(&disabled, list);
}

int
fio_init(void)
{
	const char *list = getenv("FASTIO_DISABLE");
	const char *force = getenv("FASTIO_FORCE");
	const char *size = getenv("FASTIO_PAGE_SIZE");
	int rc = list ? fio_disable(list) : 0;

	if (force != NULL && set_list(&forced, force) < 0)
		rc = -1;
	if (size != NULL && set_page(size) < 0)
		rc = -1;
	return rc;
}

int
fio_vote_count(struct fio_vote *v, int sign, int whole)
{
	if (v->rounds >= FIO_VOTE_ROUNDS)
		return 0;
	v->signs += sign != 0;
	v->wholes += whole != 0;
	if (++v->rounds < FIO_VOTE_ROUNDS)
		return 0;
	if (2 * v->signs >= FIO_VOTE_ROUNDS)
		return FIO_VOTE_SIGN;
	return 2 * v->wholes > FIO_VOTE_ROUNDS ? FIO_VOTE_WHOLE : 0;
}
