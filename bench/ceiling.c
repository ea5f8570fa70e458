/* SPDX-License-Identifier: MIT */
/*
 * ceiling METHOD: the fastest producers of "y\n" we know how to build, to
 * measure how fast a reader can take a stream at all (make bench calls
 * the best of them the reader's ceiling). They keep none of yes's duties:
 * no argument, no pattern that straddles pages, no fallback, no error
 * message; each runs until its output is closed.
 *
 *   tee     a 1 MiB source pipe holding one page of "y\n" in every slot,
 *           tee()d into a middle pipe and spliced out (what yes did
 *           until fa7fb41)
 *   direct  the same source tee()d straight into the output
 *   pages   the source written with write(), so its slots hold 256
 *           distinct pages (uutils 0.12's source, and ours since
 *           fa7fb41)
 *   spin    as tee, but the splice out never sleeps on a full pipe: it is
 *           retried at once (a whole CPU burnt waiting; the reader never
 *           has to wake the producer)
 *   relay   not a producer: standard input spliced to standard output, a
 *           pipeful a call, both pipes grown to 1 MiB (the fastest relay
 *           for `yes | X | reader` we know; ours splices FIO_SPLICE_CHUNK,
 *           whose comment in tune.h says why less)
 *   keep    the same relay keeping both pipes as it found them: the
 *           least a relay between two programs of a shell's pipeline
 *           costs (pipebench --pipeline's ceiling)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define PIPE_SIZE (1 << 20)
#define PAGE	  4096

static char page[PAGE] __attribute__((aligned(PAGE)));

static int
fill(int fd, int distinct)
{
	static char big[PIPE_SIZE];
	struct iovec iov[PIPE_SIZE / PAGE];
	size_t i;

	if (distinct) {
		for (i = 0; i < sizeof big; i += 2)
			memcpy(big + i, "y\n", 2);
		return write(fd, big, sizeof big) == (ssize_t)sizeof big ? 0
									 : -1;
	}
	for (i = 0; i < PIPE_SIZE / PAGE; i++) {
		iov[i].iov_base = page;
		iov[i].iov_len = PAGE;
	}
	return vmsplice(fd, iov, PIPE_SIZE / PAGE, 0) == PIPE_SIZE ? 0 : -1;
}

static int
relay(int grow)
{
	ssize_t n;

	if (grow) {
		(void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, PIPE_SIZE);
		(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, PIPE_SIZE);
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
	int src[2], mid[2], spin = strcmp(m, "spin") == 0;
	ssize_t k, n;
	size_t i;

	if (strcmp(m, "relay") == 0 || strcmp(m, "keep") == 0)
		return relay(m[0] == 'r');
	for (i = 0; i < PAGE; i += 2)
		memcpy(page + i, "y\n", 2);
	if (pipe(src) < 0 || pipe(mid) < 0 ||
	    fcntl(src[1], F_SETPIPE_SZ, PIPE_SIZE) < PIPE_SIZE ||
	    fcntl(mid[1], F_SETPIPE_SZ, PIPE_SIZE) < PIPE_SIZE ||
	    fill(src[1], strcmp(m, "pages") == 0) < 0) {
		perror("ceiling: setup");
		return 1;
	}
	(void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, PIPE_SIZE);
	if (strcmp(m, "direct") == 0) {
		while (tee(src[0], STDOUT_FILENO, PIPE_SIZE, 0) > 0)
			;
		return 0;
	}
	for (;;) {
		k = tee(src[0], mid[1], PIPE_SIZE, 0);
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
