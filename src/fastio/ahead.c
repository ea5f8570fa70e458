/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastio.h"
#include "machine.h"
#include "sys.h"
#include "tune.h"

/*
 * Reading ahead (fastio.h). The names are cut into batches. The caller
 * reads the batches it reaches unclaimed in their turn, as cat always did;
 * the thread claims batches from the far end of a window of DEPTH batches
 * from the caller's, reads them into that batch's slot, and works back
 * towards the caller. So each takes the share its speed gives it: the
 * caller's share costs one path walk a file, the thread's two (the type
 * is asked before the open), and a thread slowed by a busy CPU costs the
 * caller nothing until it reaches a batch the thread claimed. A slot is
 * claimed only once the caller has moved past the batch it held, so the
 * bytes handed out stay put until the next take.
 */
#define DEPTH FIO_AHEAD_DEPTH

struct slot {
	long claimed, batch; /* claimed by the thread; read (or -1) */
	size_t off[FIO_AHEAD_FILES + 1]; /* file k: data[off[k], off[k+1]) */
	unsigned char read[FIO_AHEAD_FILES]; /* 0: the caller's to do */
	char *data;
};

struct fio_ahead {
	char *const *names;
	size_t count, per, room; /* names, names a batch, bytes a slot */
	dev_t out_dev;
	ino_t out_ino;
	long batches, cur, have; /* cur: under lock */
	int own;		 /* the caller reads batch have itself */
	int forced, quit;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t ready, room_left;
	struct slot slot[DEPTH];
};

/*
 * What the caller's path reads in one read() (pump.c, FIO_ONE_READ) and
 * no one else could want first: a regular file with data (pseudo files
 * own no blocks and may say any size), not the output (cat's "input file
 * is output file" rule needs the offsets of its turn), with room for its
 * bytes and the one more that shows a file grew.
 */
static int
fits(const struct fio_ahead *a, const struct stat *st, size_t room)
{
	return S_ISREG(st->st_mode) && st->st_size > 0 && st->st_blocks > 0 &&
	       (uint64_t)st->st_size < FIO_SMALL_FILE &&
	       (size_t)st->st_size < room &&
	       !(st->st_dev == a->out_dev && st->st_ino == a->out_ino);
}

/*
 * One file: its bytes at data, or -1 when it is the caller's, whose own
 * open and read then give the bytes and messages of its turn. The type is
 * asked before the open, since opening a FIFO or a device out of turn is
 * seen by others (a FIFO's writer wakes); the open does not wait and the
 * type is asked again, for a name that changed in between.
 */
static ssize_t
read_one(const struct fio_ahead *a, const char *name, char *data, size_t room,
	 int *fd)
{
	struct stat st;
	ssize_t n;

	if (strcmp(name, "-") == 0 || fstatat(AT_FDCWD, name, &st, 0) < 0 ||
	    !fits(a, &st, room))
		return -1;
	*fd = open(name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0 || fstat(*fd, &st) < 0 || !fits(a, &st, room))
		return -1;
	n = fio_read(*fd, data, (size_t)st.st_size + 1, 0);
	return n == st.st_size ? n : -1;
}

/* Batch b into its slot; descriptors closed in runs, as cat/cat.c does. */
static void
read_batch(struct fio_ahead *a, long b)
{
	struct slot *s = &a->slot[b % DEPTH];
	size_t first = (size_t)b * a->per, n = a->count - first, k, at = 0;
	struct fio_close_run run = {-1, -1, 0};
	int fd;
	ssize_t got;

	if (n > a->per)
		n = a->per;
	for (k = 0; k < n; k++) {
		fd = -1;
		got = read_one(a, a->names[first + k], s->data + at,
			       a->room - at, &fd);
		s->read[k] = got >= 0;
		if (got > 0)
			at += (size_t)got;
		s->off[k + 1] = at;
		if (fd >= 0)
			fio_close_later(&run, fd);
	}
	fio_close_now(&run);
}

/*
 * Under the lock: the batch the thread reads next, or -1. Forced (the
 * tests), it reads every batch, from the caller's on, and the caller
 * only what it leaves.
 */
static long
next_claim(const struct fio_ahead *a)
{
	long b, last = a->cur + DEPTH - 1;

	if (last >= a->batches)
		last = a->batches - 1;
	if (a->forced) {
		for (b = a->cur; b <= last; b++)
			if (a->slot[b % DEPTH].claimed != b)
				return b;
		return -1;
	}
	for (b = last; b > a->cur; b--)
		if (a->slot[b % DEPTH].claimed != b)
			return b;
	return -1;
}

/*
 * The second thread, in a descriptor table of its own: its opens and
 * closes do not contend for the caller's table, and its descriptors come
 * in runs for close_range(). If unshare is refused, the shared table
 * works the same, with shorter runs.
 */
static void *
thread_main(void *arg)
{
	struct fio_ahead *a = arg;
	long b;

	(void)unshare(CLONE_FILES);
	pthread_mutex_lock(&a->lock);
	while (!a->quit) {
		b = next_claim(a);
		if (b < 0) {
			/* None left, nor any to come into the window. */
			if (a->cur + DEPTH >= a->batches)
				break;
			pthread_cond_wait(&a->room_left, &a->lock);
			continue;
		}
		a->slot[b % DEPTH].claimed = b;
		pthread_mutex_unlock(&a->lock);
		read_batch(a, b);
		pthread_mutex_lock(&a->lock);
		a->slot[b % DEPTH].batch = b;
		pthread_cond_signal(&a->ready);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

static void
release(struct fio_ahead *a)
{
	fio_buffer_free(a->slot[0].data, DEPTH * a->room);
	free(a);
}

struct fio_ahead *
fio_ahead_start(char *const *names, size_t count, const struct fio_fd *out)
{
	int forced = fio_forced(FIO_AHEAD);
	struct fio_ahead *a;
	unsigned i;
	int rc;

	if (!fio_enabled(FIO_AHEAD) ||
	    (!forced && (count < FIO_AHEAD_MIN || !fio_two_cpus())))
		return NULL;
	if ((a = calloc(1, sizeof *a)) == NULL)
		return NULL;
	a->names = names;
	a->count = count;
	/* Forced (tests): batches of two, all the thread's. */
	a->forced = forced;
	a->per = forced ? 2 : FIO_AHEAD_FILES;
	a->room = a->per * FIO_AHEAD_ROOM;
	if (a->room <= FIO_SMALL_FILE)
		a->room = FIO_SMALL_FILE + 1;
	a->batches = (long)((count + a->per - 1) / a->per);
	a->have = -1;
	if (out->kind != FIO_UNKNOWN) {
		a->out_dev = out->st.st_dev;
		a->out_ino = out->st.st_ino;
	}
	a->slot[0].data = fio_buffer_alloc(DEPTH * a->room);
	if (a->slot[0].data == NULL) {
		free(a);
		return NULL;
	}
	for (i = 0; i < DEPTH; i++) {
		a->slot[i].claimed = a->slot[i].batch = -1;
		a->slot[i].data = a->slot[0].data + i * a->room;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->ready, NULL);
	pthread_cond_init(&a->room_left, NULL);
	/* It takes no signal: they stay the caller's. */
	rc = fio_thread_start(&a->thread, thread_main, a, 0);
	if (rc != 0) {
		release(a);
		return NULL;
	}
	return a;
}

const char *
fio_ahead_take(struct fio_ahead *a, size_t i, size_t *len)
{
	long b = (long)(i / a->per);
	struct slot *s = &a->slot[b % DEPTH];
	size_t k = i % a->per;

	if (b != a->have) {
		pthread_mutex_lock(&a->lock);
		a->cur = b; /* the thread claims none up to b from now on */
		pthread_cond_signal(&a->room_left);
		a->own = !a->forced && s->claimed != b;
		while (!a->own && s->batch != b)
			pthread_cond_wait(&a->ready, &a->lock);
		pthread_mutex_unlock(&a->lock);
		a->have = b;
	}
	if (a->own || !s->read[k])
		return NULL;
	*len = s->off[k + 1] - s->off[k];
	return s->data + s->off[k];
}

void
fio_ahead_end(struct fio_ahead *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->quit = 1;
	pthread_cond_signal(&a->room_left);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->ready);
	pthread_cond_destroy(&a->room_left);
	release(a);
}
