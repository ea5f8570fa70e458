/* SPDX-License-Identifier: MIT */
/*
 * sink: the consumer side of the benchmarks. Reads standard input until
 * BYTES have arrived, either by splicing the pipe to /dev/null (a reader
 * that never touches the data) or by read()ing 128 KiB at a time (one that
 * does), and prints the rate measured from the end of the first call.
 * It never resizes the pipe, so producers are measured as users get them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	static char buf[128 << 10];
	unsigned long long want, got = 0, first = 0;
	double t0 = 0;
	int use_splice, null_fd;
	ssize_t n;

	if (argc != 3 ||
	    (strcmp(argv[1], "splice") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: sink splice|read BYTES\n");
		return 2;
	}
	use_splice = strcmp(argv[1], "splice") == 0;
	want = strtoull(argv[2], NULL, 0);
	null_fd = open("/dev/null", O_WRONLY);
	while (got < want) {
		size_t ask = want - got < sizeof buf ? want - got : sizeof buf;

		if (use_splice)
			n = splice(
			    0, NULL, null_fd, NULL,
			    want - got < (1 << 20) ? want - got : 1 << 20, 0);
		else
			n = read(0, buf, ask);
		if (n <= 0) {
			fprintf(stderr, "sink: input ended after %llu bytes\n",
				got);
			return 1;
		}
		got += n;
		if (first == 0) {
			first = got;
			t0 = now();
		}
	}
	printf("%.3f\n", (got - first) / (now() - t0) / (1 << 30));
	return 0;
}
