/* SPDX-License-Identifier: MIT */
/*
 * throttle RATE: copy standard input to standard output at RATE bytes a
 * second at most, 4 KiB at a time: a stage of known speed, far slower
 * than any other, for check_pipeline's bottlenecks.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	static char buf[4096];
	struct timespec start, now, pause;
	double rate, due;
	long long moved = 0;
	ssize_t n, k, w;

	if (argc != 2 || (rate = atof(argv[1])) <= 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0) {
		for (k = 0; k < n; k += w)
			if ((w = write(STDOUT_FILENO, buf + k,
				       (size_t)(n - k))) <= 0)
				return 1;
		moved += n;
		/* Sleep until the bytes moved are due at the rate. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		due = (double)moved / rate -
		      ((double)(now.tv_sec - start.tv_sec) +
		       (double)(now.tv_nsec - start.tv_nsec) / 1e9);
		if (due > 0) {
			pause.tv_sec = (time_t)due;
			pause.tv_nsec =
			    (long)((due - (double)pause.tv_sec) * 1e9);
			nanosleep(&pause, NULL);
		}
	}
	return n < 0;
}
