/* SPDX-License-Identifier: MIT */
/*
 * ceiling METHOD [KIB]: the fastest producers of "y\n" we know how to build, to
 * measure how fast a reader can take a stream at all (make bench calls
 * the best of them the reader's ceiling). They keep none of yes's duties:
 * no argument, no pattern that straddles pages, no fallback, no error
 * message; each runs until its output is closed.
 *
 *   tee     a 1 MiB source pipe holding one page of "y\n" in every slot,
 *           tee()d into a middle pipe and spliced out (what yes did
 *           until fa7fb41)
 *   direct  the same source tee()d straight into the output
 *   turn    as tee, from two such sources of a page each in turn, a
 *           round from each (yes's hot source: a round takes references
 *           on one page while the reader drops the last round's on the
 *           other, so the two CPUs do not share one count's cache line)
 *   dturn   the two sources in turn tee()d straight into the output
 *   pages   the source written with write(), so its slots hold 256
 *           distinct pages (uutils 0.12's source), through the middle
 *           pipe
 *   dpages  the written source tee()d straight into the output
 *   spin    as tee, but the splice out never sleeps on a full pipe: it is
 *           retried at once (a whole CPU burnt waiting; the reader never
 *           has to wake the producer)
 *   relay   not a producer: standard input spliced to standard output, a
 *           pipeful a call, both pipes grown to 1 MiB (the fastest relay
 *           for `yes | X | reader` we know; ours splices FIO_SPLICE_CHUNK,
 *           whose comment in tune.h says why less)
 *   keep    the same relay, each pipe at half the size it found, as
 *           pipebench --pipeline keeps a link: the least a relay
 *           between two programs of a shell's pipeline costs where it
 *           buffers no more than the shell's one pipe (--pipeline's
 *           ceiling)
 * KIB (default 1024) sizes the producers' pipes, the output's among them,
 * and their rounds: 512 and 1024 are the two output pipes yes may have
 * (FIO_PIPE_SIZE, FIO_PIPE_GULP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PIPE_SIZE (1 << 20)
#define PAGE	  4096

static size_t size = PIPE_SIZE;

static char page[2][PAGE] __attribute__((aligned(PAGE)));

static int
fill(int fd, int distinct, char *pg)
{
	static char big[PIPE_SIZE];
	struct iovec iov[PIPE_SIZE / PAGE];
	size_t i;

	if (distinct) {
		for (i = 0; i < size; i += 2)
			memcpy(big + i, "y\n", 2);
		return write(fd, big, size) == (ssize_t)size ? 0 : -1;
	}
	for (i = 0; i < size / PAGE; i++) {
		iov[i].iov_base = pg;
		iov[i].iov_len = PAGE;
	}
	return vmsplice(fd, iov, size / PAGE, 0) == (ssize_t)size ? 0 : -1;
}

/* A source pipe p of size bytes, filled as fill() does. */
static int
source(int p[2], int distinct, char *pg)
{
	if (pipe(p) < 0 || fcntl(p[1], F_SETPIPE_SZ, (int)size) < (int)size)
		return -1;
	return fill(p[1], distinct, pg);
}

static int
relay(int grow)
{
	ssize_t n;

	if (grow) {
		(void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, PIPE_SIZE);
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, PIPE_SIZE);
	} else {
		(void)fcntl(STDIN_FILENO, F_SETPIPE_SZ,
			    fcntl(STDIN_FILENO, F_GETPIPE_SZ) / 2);
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ,
			    fcntl(STDOUT_FILENO, F_GETPIPE_SZ) / 2);
	}
	while ((n = splice(STDIN_FILENO, NULL, STDOUT_FILENO, NULL, PIPE_SIZE,
			   0)) > 0)
		;
	return n < 0;
}

int
main(int argc, char *argv[])
{
	const char *m = argc > 1 ? argv[1] : "tee";
	int src[2][2], mid[2], spin = strcmp(m, "spin") == 0;
	int two = strstr(m, "turn") != NULL, s = 0;
	int direct = m[0] == 'd', distinct = strstr(m, "pages") != NULL;
	ssize_t k, n;
	size_t i;

	if (strcmp(m, "relay") == 0 || strcmp(m, "keep") == 0)
		return relay(m[0] == 'r');
	if (argc > 2)
		size = (size_t)atoi(argv[2]) << 10;
	if (size < PAGE || size > PIPE_SIZE || size % PAGE) {
		fprintf(stderr, "ceiling: KIB from 4 to 1024, whole pages\n");
		return 2;
	}
	for (i = 0; i < PAGE; i += 2)
		memcpy(page[0] + i, "y\n", 2);
	memcpy(page[1], page[0], PAGE);
	if (source(src[0], distinct, page[0]) < 0 ||
	    (two && source(src[1], distinct, page[1]) < 0) || pipe(mid) < 0 ||
	    fcntl(mid[1], F_SETPIPE_SZ, (int)size) < (int)size) {
		perror("ceiling: setup");
		return 1;
	}
	(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, (int)size);
	if (direct) {
		while (tee(src[s][0], STDOUT_FILENO, size, 0) > 0)
			s ^= two;
		return 0;
	}
	for (;; s ^= two) {
		k = tee(src[s][0], mid[1], size, 0);
		if (k <= 0)
			return 1;
		for (; k > 0; k -= n) {
			n = splice(mid[0], NULL, STDOUT_FILENO, NULL, (size_t)k,
				   spin ? SPLICE_F_NONBLOCK : 0);
			if (n < 0 && errno == EAGAIN && spin)
				n = 0;
			else if (n <= 0)
				return 0;
		}
	}
}
