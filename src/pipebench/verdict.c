/* SPDX-License-Identifier: MIT */
/*
 * Which stage held the pipeline back: the one whose own work set its
 * wall time. The watcher looks at every stage each PB_WATCH_NS: a stage
 * works (on the CPU, in disk I/O, or asleep by its own choice: pv -L,
 * sleep) unless it waits on a pipe of its pipeline, blocked with its
 * input empty or its output full. Each look goes to the stages that
 * worked in it, shared; a look in which none did, the first stage
 * waiting on our standard input, goes to the source outside. sort,
 * which reads all it is given at once and then works, gets the looks of
 * its work after its input ended; cat blocked behind a slow filter gets
 * none. The decision (pb_verdict_decide) is arithmetic on those counts,
 * tested from a table; pb_verdict_look makes the looks, from /proc, the
 * same for --pipeline and --watch.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipebench.h"

/* A share of the looks a stage must hold to be named: below it, no
 * stage's work set the time (the pipeline waited on its source). */
#define PB_HOLDS 0.25

/* Up to size - 1 bytes of a small /proc file, NUL-ended; its length, or
 * -1. One open, read and close: the watcher reads a few of these a
 * stage a hundred times a second, beside a pipeline that wants the
 * CPUs, and stdio would add an fstat and a buffer to each. */
static ssize_t
read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, size - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

const char *
pb_stat_fields(const char *path, char *line, size_t size)
{
	char *p;

	if (read_small(path, line, size) <= 0 ||
	    (p = strrchr(line, ')')) == NULL || p[1] != ' ')
		return NULL;
	return p + 2;
}

unsigned long long
pb_stat_field(const char *fields, int k)
{
	const char *p = fields;
	int at;

	for (at = 3; at < k && (p = strchr(p, ' ')) != NULL; at++)
		p++;
	return p != NULL ? strtoull(p, NULL, 10) : 0;
}

int
pb_children(long pid, pid_t *out, int max)
{
	char path[64], buf[1024], *p, *end;
	long child;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pid, pid);
	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	for (p = buf; n < max; p = end) {
		child = strtol(p, &end, 10);
		if (end == p)
			break;
		out[n++] = (pid_t)child;
	}
	return n;
}

/* The state of a task ('R', 'S', 'D', ...) from its stat line, 0 if
 * gone. */
static char
state_at(const char *path)
{
	char line[512];
	const char *p = pb_stat_fields(path, line, sizeof line);

	return p != NULL ? *p : 0;
}

/* The busier of two states: running, then a disk's wait, then asleep. */
static char
busier(char a, char b)
{
	static const char order[] = "RDS";
	const char *x = a ? strchr(order, a) : NULL,
		   *y = b ? strchr(order, b) : NULL;

	if (x == NULL)
		return y != NULL ? b : a;
	return y != NULL && y < x ? b : a;
}

/* The busiest state of process pid's threads (a threaded compressor's
 * main thread waits while its workers run); a process of one thread,
 * most stages, by its stat line alone. */
static char
process_state(long pid)
{
	char path[300], line[512], best = 0;
	const char *p;
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((p = pb_stat_fields(path, line, sizeof line)) == NULL)
		return 0;
	if (pb_stat_field(p, PB_STAT_THREADS) <= 1 || *p == 'R')
		return *p;
	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	if ((dir = opendir(path)) == NULL)
		return *p;
	while ((d = readdir(dir)) != NULL && n < 64 && best != 'R') {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/stat", pid,
			 d->d_name);
		best = busier(best, state_at(path));
		n++;
	}
	closedir(dir);
	return best;
}

/*
 * What a stage is doing: the busiest state of its process and the
 * processes below it (a stage's shell waits for its commands, which do
 * the work; each level down through the last child, its command), 0 if
 * gone.
 */
static char
tree_state(pid_t pid)
{
	pid_t child[PB_MAX_STAGES];
	char best = 0;
	long at = (long)pid;
	int depth, n, i;

	for (depth = 0; depth < 4 && at > 0 && best != 'R'; depth++) {
		best = busier(best, process_state(at));
		if ((n = pb_children(at, child, PB_MAX_STAGES)) < 0)
			break;
		for (i = 0; i < n; i++)
			best = busier(best, process_state((long)child[i]));
		at = n > 0 ? (long)child[n - 1] : 0;
	}
	return best;
}

void
pb_verdict_look(struct pb_pipeline *pl)
{
	int i, workers = 0, work[PB_MAX_STAGES];
	char s;

	pl->looks++;
	for (i = 0; i < pl->n; i++) {
		struct pb_stage *st = &pl->stage[i];

		work[i] = 0;
		if (!atomic_load(&st->running))
			continue;
		s = tree_state(st->pid);
		if (s == 'R')
			st->on_cpu++;
		else if (s == 'D')
			st->in_io++;
		else if (st->in_empty_now || st->out_full_now)
			continue; /* waiting on its pipeline */
		else if (s == 'S')
			st->asleep++;
		else
			continue;
		work[i] = 1;
		workers++;
	}
	for (i = 0; i < pl->n; i++)
		if (work[i])
			pl->stage[i].held += 1.0 / workers;
	if (workers == 0 && pl->n > 0 && pl->stage[0].in_empty_now)
		pl->source_held++;
}

int
pb_verdict_decide(const double *held, int n, double source, unsigned looks)
{
	int i, at = -1;
	double best = source;

	if (looks == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (held[i] > best) {
			best = held[i];
			at = i;
		}
	return at >= 0 && best >= PB_HOLDS * looks ? at : -1;
}

int
pb_verdict(const struct pb_pipeline *pl)
{
	double held[PB_MAX_STAGES];
	int i;

	for (i = 0; i < pl->n; i++)
		held[i] = pl->stage[i].held;
	return pb_verdict_decide(held, pl->n, pl->source_held, pl->looks);
}

const char *
pb_verdict_kind(const struct pb_stage *st)
{
	if (st->on_cpu >= st->in_io && st->on_cpu >= st->asleep)
		return "on CPU";
	return st->in_io >= st->asleep ? "in disk I/O" : "asleep";
}
