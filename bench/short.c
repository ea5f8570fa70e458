/* SPDX-License-Identifier: MIT */
/*
 * short RUNS NAME=COMMAND...: the wall time of short pipelines, from the
 * fork of /bin/sh -c COMMAND to its exit, as hyperfine measures it but
 * interleaved: every round runs each COMMAND once, in a new random order,
 * so that what the machine does meanwhile falls on all of them alike. One
 * unmeasured round first; standard input and output are /dev/null. Prints
 * a line a command: NAME, then the median, first and third quartiles,
 * minimum and maximum in milliseconds, tab-separated. Exits 1 if a run of
 * a command exited non-zero (a pipeline that does not run is no figure).
 * Used by bench/bench.sh (make bench, the short pipelines).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One run of cmd: its wall time in ms, or -1 if it failed. */
static double
run(const char *cmd, int null)
{
	double t0 = now_ms();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		dup2(null, 0);
		dup2(null, 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "short: %s: status %#x\n", cmd, status);
		return -1;
	}
	return now_ms() - t0;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolated. */
static double
quantile(const double *v, int n, double q)
{
	double at = q * (n - 1);
	int i = (int)at;

	return i + 1 < n ? v[i] + (at - i) * (v[i + 1] - v[i]) : v[i];
}

int
main(int argc, char *argv[])
{
	int runs, n = argc - 2, null, i, j, k, t, *order, bad = 0;
	double *ms, one;

	for (i = 2; i < argc && strchr(argv[i], '=') != NULL; i++)
		;
	if (argc < 3 || i < argc || (runs = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: short RUNS NAME=COMMAND...\n");
		return 2;
	}
	null = open("/dev/null", O_RDWR);
	ms = calloc((size_t)n * (size_t)runs, sizeof *ms);
	order = calloc((size_t)n, sizeof *order);
	if (null < 0 || ms == NULL || order == NULL)
		return 2;
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	for (j = 0; j < n; j++)
		order[j] = j;
	for (k = -1; k < runs; k++) {
		for (j = n - 1; j > 0; j--) {
			i = (int)(random() % (j + 1));
			t = order[j];
			order[j] = order[i];
			order[i] = t;
		}
		for (j = 0; j < n; j++) {
			i = order[j];
			one = run(strchr(argv[i + 2], '=') + 1, null);
			if (one < 0)
				bad = 1;
			if (k >= 0)
				ms[(size_t)i * (size_t)runs + (size_t)k] = one;
		}
	}
	for (i = 0; i < n; i++) {
		double *v = ms + (size_t)i * (size_t)runs;

		qsort(v, (size_t)runs, sizeof *v, by_value);
		printf("%.*s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n",
		       (int)(strchr(argv[i + 2], '=') - argv[i + 2]),
		       argv[i + 2], quantile(v, runs, 0.5),
		       quantile(v, runs, 0.25), quantile(v, runs, 0.75), v[0],
		       v[runs - 1]);
	}
	return bad;
}
