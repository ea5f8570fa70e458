/* SPDX-License-Identifier: MIT */
/*
 * busy MODE MS: a pipeline's stage whose work is known, for the
 * verdict's tests. filter: copy standard input to standard output, on
 * the CPU for MS milliseconds a MB as it goes; after: read all of it,
 * then work MS milliseconds on the CPU, then write it out (as sort does).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Where the busy loop's sums go, so that no compiler drops the loop. */
static volatile unsigned long sink;

/* On the CPU for ms milliseconds of its own time. */
static void
work(double ms)
{
	double until = cpu_ms() + ms;

	while (cpu_ms() < until)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

static int
put(const char *p, size_t n)
{
	ssize_t w;

	for (; n > 0; p += w, n -= (size_t)w)
		if ((w = write(STDOUT_FILENO, p, n)) <= 0)
			return -1;
	return 0;
}

int
main(int argc, char *argv[])
{
	static char buf[65536];
	char *all = NULL;
	size_t len = 0;
	double ms;
	ssize_t n;

	if (argc != 3 || (ms = atof(argv[2])) < 0)
		return 2;
	while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0) {
		if (strcmp(argv[1], "filter") == 0) {
			work(ms * (double)n / 1e6);
			if (put(buf, (size_t)n) < 0)
				return 1;
			continue;
		}
		if ((all = realloc(all, len + (size_t)n)) == NULL)
			return 1;
		memcpy(all + len, buf, (size_t)n);
		len += (size_t)n;
	}
	if (strcmp(argv[1], "after") == 0) {
		work(ms);
		if (put(all, len) < 0)
			return 1;
	}
	free(all);
	return n < 0;
}
