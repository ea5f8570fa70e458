/* SPDX-License-Identifier: MIT */
/*
 * machine: the two costs that decide which I/O strategy wins on a machine,
 * printed as one line for BENCHMARKS.md:
 *
 *   null syscall: getppid() (never cached by glibc) in a loop;
 *   pipe wake-up: two processes pass one byte back and forth over two
 *   pipes, each sleeping in read() until the other writes; one round trip
 *   is two wake-ups. Measured with the two on different CPUs and on one.
 *
 * Each figure is the median of 9 batches. Not a test: it only reports.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 9

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v)
{
	qsort(v, BATCHES, sizeof *v, cmp);
	return v[BATCHES / 2];
}

static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof set, &set);
}

/* Nanoseconds per getppid(). */
static double
null_syscall(void)
{
	double v[BATCHES], t;
	int b, i, n = 200000;

	for (b = 0; b < BATCHES; b++) {
		t = now();
		for (i = 0; i < n; i++)
			(void)getppid();
		v[b] = (now() - t) / n * 1e9;
	}
	return median(v);
}

/*
 * Microseconds per wake-up: the child on CPU child_cpu echoes each byte;
 * -1 leaves both free.
 */
static double
wakeup(int parent_cpu, int child_cpu)
{
	int there[2], back[2], b, i, n = 2000;
	double v[BATCHES], t;
	char c = 'x';
	pid_t pid;

	if (pipe(there) < 0 || pipe(back) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(there[1]);
		close(back[0]);
		if (child_cpu >= 0)
			pin(child_cpu);
		while (read(there[0], &c, 1) == 1)
			if (write(back[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	if (parent_cpu >= 0)
		pin(parent_cpu);
	for (b = 0; b < BATCHES; b++) {
		t = now();
		for (i = 0; i < n; i++)
			if (write(there[1], &c, 1) != 1 ||
			    read(back[0], &c, 1) != 1)
				return -1;
		v[b] = (now() - t) / (2.0 * n) * 1e6;
	}
	close(there[1]);
	waitpid(pid, NULL, 0);
	close(there[0]);
	close(back[0]);
	close(back[1]);
	return median(v);
}

int
main(void)
{
	double sys = null_syscall(), split, same;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	split = cpus > 1 ? wakeup(0, 1) : -1;
	same = wakeup(0, 0);
	printf("null syscall %.0f ns, pipe wake-up %.1f us across CPUs, "
	       "%.1f us on one CPU\n",
	       sys, split, same);
	return 0;
}
