/* SPDX-License-Identifier: MIT */
/*
 * --watch PID: a pipeline that is already running, found from any of its
 * processes or from the shell that runs it, and looked at as --pipeline
 * looks at its own, adding nothing to it: its stages are the processes
 * whose standard output is the next one's standard input (the same pipe,
 * /proc/PID/fd), read through /proc as the same user may. Each stage's
 * bytes are what the kernel counts of its reads and writes
 * (/proc/PID/io: splices are not counted, and a count that never moved
 * is shown unknown, never as zero); a pipe's fill is read through a copy
 * of its end held for the instant of one FIONREAD (pidfd_getfd, where
 * Yama lets us; else unknown); each regular file a stage reads shows how
 * far it is, as pv -d does. The verdict is verdict.c's, from the stages'
 * states. It ends when the stages have, or on a signal, leaving them as
 * they were.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#if HAVE_SYS_PIDFD_H
#include <sys/pidfd.h>
#endif

#include "pipebench.h"
#include "prog.h"

/* Looks and frames as --pipeline's (relay.c). */
#define PB_WATCH_NS   10000000L
#define PB_DRAW_EVERY 10

static volatile sig_atomic_t stopped;

static void
on_stop(int sig)
{
	stopped = sig;
}

/* The inode of the pipe at descriptor fd of process pid, or 0. */
static unsigned long
pipe_of(pid_t pid, int fd)
{
	char path[64], link[64];
	unsigned long ino = 0;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)pid, fd);
	n = readlink(path, link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return sscanf(link, "pipe:[%lu]", &ino) == 1 ? ino : 0;
}

static pid_t
parent_of(pid_t pid)
{
	char path[64], line[512];
	const char *p;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	p = pb_stat_fields(path, line, sizeof line);
	return p != NULL ? (pid_t)pb_stat_field(p, PB_STAT_PPID) : 0;
}

/* The children of process pid, at most max; their number. */
static int
children_of(pid_t pid, pid_t *out, int max)
{
	int n = pb_children((long)pid, out, max);

	return n > 0 ? n : 0;
}

/*
 * The longest chain of candidates joined by pipes, each one's standard
 * output the next one's standard input, that holds want (0: any); its
 * length, the stages in order in chain.
 */
static int
chain_of(const pid_t *c, int n, pid_t want, pid_t *chain)
{
	unsigned long in[PB_MAX_STAGES], out[PB_MAX_STAGES];
	pid_t run[PB_MAX_STAGES];
	int i, j, k, next, len, best = 0, has, first;

	for (i = 0; i < n; i++) {
		in[i] = pipe_of(c[i], 0);
		out[i] = pipe_of(c[i], 1);
	}
	for (i = 0; i < n; i++) {
		/* A chain starts where no candidate writes its input. */
		for (first = 1, j = 0; j < n; j++)
			if (j != i && in[i] != 0 && out[j] == in[i])
				first = 0;
		if (!first)
			continue;
		for (len = 0, has = 0, k = i; k >= 0 && len < PB_MAX_STAGES;
		     k = next) {
			run[len++] = c[k];
			has |= c[k] == want;
			for (next = -1, j = 0; j < n && out[k] != 0; j++)
				if (j != k && in[j] == out[k]) {
					next = j;
					break;
				}
		}
		if (len > best && len >= 2 && (want == 0 || has)) {
			best = len;
			memcpy(chain, run, (size_t)len * sizeof *run);
		}
	}
	return best;
}

/* The stages of the pipeline pid is in (or that pid, a shell, runs). */
static int
find_stages(pid_t pid, pid_t *chain)
{
	pid_t c[PB_MAX_STAGES];
	int n = children_of(pid, c, PB_MAX_STAGES), len;

	if ((len = chain_of(c, n, 0, chain)) >= 2)
		return len;
	n = children_of(parent_of(pid), c, PB_MAX_STAGES);
	return chain_of(c, n, pid, chain);
}

/* A process's command line, its arguments joined by spaces. */
static char *
command_of(pid_t pid)
{
	char path[64], buf[4096];
	size_t n, i;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
	f = fopen(path, "re");
	n = f != NULL ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f != NULL)
		fclose(f);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return strdup(buf);
}

/* A stage's CPU times (/proc/PID/stat, in clock ticks) and its I/O
 * counts; 0 where it has gone. */
static int
sample(struct pb_stage *st)
{
	char path[64], line[1024];
	const char *p;
	unsigned long long ut, stt, v;
	long tick = sysconf(_SC_CLK_TCK);
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)st->pid);
	if ((p = pb_stat_fields(path, line, sizeof line)) == NULL)
		return 0;
	ut = pb_stat_field(p, PB_STAT_UTIME);
	stt = pb_stat_field(p, PB_STAT_STIME);
	if (tick > 0) {
		st->ru.ru_utime.tv_sec =
		    (time_t)(ut / (unsigned long long)tick);
		st->ru.ru_utime.tv_usec =
		    (suseconds_t)(ut % (unsigned long long)tick * 1000000 /
				  (unsigned long long)tick);
		st->ru.ru_stime.tv_sec =
		    (time_t)(stt / (unsigned long long)tick);
		st->ru.ru_stime.tv_usec =
		    (suseconds_t)(stt % (unsigned long long)tick * 1000000 /
				  (unsigned long long)tick);
	}
	snprintf(path, sizeof path, "/proc/%ld/io", (long)st->pid);
	if ((f = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL) {
			/* Counts that never moved say nothing: splices. */
			if (sscanf(line, "rchar: %llu", &v) == 1 && v > 0)
				st->io_in = (int64_t)v;
			if (sscanf(line, "wchar: %llu", &v) == 1 && v > 0)
				st->io_out = (int64_t)v;
		}
		fclose(f);
	}
	return 1;
}

/* How many bytes the pipe at descriptor fd of process pid holds: a copy
 * of its end for the instant of a FIONREAD; -1 where refused. */
static int
fill_of(int pidfd, int fd)
{
	int copy, queued = -1;

#if HAVE_PIDFD_GETFD && HAVE_PIDFD_OPEN
	if (pidfd >= 0 && (copy = pidfd_getfd(pidfd, fd, 0)) >= 0) {
		if (ioctl(copy, FIONREAD, &queued) < 0)
			queued = -1;
		close(copy);
	}
#else
	(void)pidfd;
	(void)fd;
	(void)copy;
#endif
	return queued;
}

/* The regular files stage st reads (pv -d's view): the first one, its
 * offset and size; 0 where it reads none. */
static int
file_read(const struct pb_stage *st, char *name, size_t size, off_t *pos,
	  off_t *total)
{
	char path[300], info[300], line[128];
	struct dirent *d;
	struct stat sb;
	int found = 0, flags;
	long long at;
	DIR *dir;
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)st->pid);
	if ((dir = opendir(path)) == NULL)
		return 0;
	while (!found && (d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/fd/%s", (long)st->pid,
			 d->d_name);
		if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) ||
		    sb.st_size == 0)
			continue;
		snprintf(info, sizeof info, "/proc/%ld/fdinfo/%s",
			 (long)st->pid, d->d_name);
		if ((f = fopen(info, "re")) == NULL)
			continue;
		at = -1;
		flags = -1;
		while (fgets(line, sizeof line, f) != NULL) {
			(void)sscanf(line, "pos: %lld", &at);
			(void)sscanf(line, "flags: %o", &flags);
		}
		fclose(f);
		if (at < 0 || flags < 0 || (flags & O_ACCMODE) != O_RDONLY)
			continue;
		n = readlink(path, name, size - 1);
		if (n <= 0)
			continue;
		name[n] = '\0';
		*pos = (off_t)at;
		*total = sb.st_size;
		found = 1;
	}
	closedir(dir);
	return found;
}

/* One look: each stage's times, counts and pipes, then the verdict's. */
static int
look(struct pb_pipeline *pl, const int *pidfd)
{
	struct timespec now;
	int i, left = 0, in, out;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (i = 0; i < pl->n; i++) {
		struct pb_stage *st = &pl->stage[i];

		if (!atomic_load(&st->running))
			continue;
		if (!sample(st)) {
			atomic_store(&st->running, 0);
			st->secs = pb_seconds(&pl->start, &now);
			continue;
		}
		left++;
		st->samples++;
		in = i > 0 ? fill_of(pidfd[i], 0) : -1;
		out = fill_of(pidfd[i], 1);
		st->in_empty_now = in == 0;
		st->out_full_now =
		    out >= 0 && (size_t)out >= pl->out_size - pl->out_size / 4;
		if (in >= 0 && (size_t)in >= pl->out_size - pl->out_size / 4)
			st->in_full++;
		if (out == 0)
			st->out_empty++;
	}
	if (left > 0)
		pb_verdict_look(pl);
	return left;
}

/* Each stage's file, how far, and when it will be done at the pace since
 * the last note (pv -d's view): in its note, for the view and the end. */
static void
note_files(struct pb_pipeline *pl)
{
	char name[4096], *base;
	struct timespec now;
	off_t pos, total;
	double secs, pace;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = pb_seconds(&pl->start, &now);
	for (i = 0; i < pl->n; i++) {
		struct pb_stage *st = &pl->stage[i];

		if (!atomic_load(&st->running) ||
		    !file_read(st, name, sizeof name, &pos, &total))
			continue;
		base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		pace = secs > st->file_at && pos > st->file_pos
			   ? (double)(pos - st->file_pos) / (secs - st->file_at)
			   : 0;
		if (pace > 0)
			snprintf(st->note, sizeof st->note,
				 "%.20s %lld%% ETA %.0fs", base,
				 (long long)(pos * 100 / total),
				 (double)(total - pos) / pace);
		else
			snprintf(st->note, sizeof st->note, "%.20s %lld%%",
				 base, (long long)(pos * 100 / total));
		st->file_pos = pos;
		st->file_at = secs;
	}
}

int
pb_watch(const char *target)
{
	struct pb_pipeline *pl;
	struct timespec tick = {0, PB_WATCH_NS};
	struct sigaction sa;
	pid_t chain[PB_MAX_STAGES];
	int pidfd[PB_MAX_STAGES], i, k = 0, draw, rc;
	char *end;
	long pid = strtol(target, &end, 10);

	if (*target == '\0' || *end != '\0' || pid <= 0) {
		prog_warn(0, "--watch: not a process: %s", prog_quote(target));
		return 2;
	}
	if ((pl = calloc(1, sizeof *pl)) == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	pl->n = find_stages((pid_t)pid, chain);
	if (pl->n < 2) {
		prog_warn(0, "--watch: %ld runs no pipeline we may look at",
			  pid);
		free(pl);
		return EXIT_FAILURE;
	}
	pl->watched = 1;
	pl->out_at = -1;
	pl->in_watch = -1;
	pl->out_size = 65536;
	clock_gettime(CLOCK_MONOTONIC, &pl->start);
	for (i = 0; i <= pl->n; i++)
		pl->relay[i].from = pl->relay[i].to = -1;
	for (i = 0; i < pl->n; i++) {
		pl->stage[i].pid = chain[i];
		pl->stage[i].text = command_of(chain[i]);
		pl->stage[i].io_in = pl->stage[i].io_out = -1;
		atomic_store(&pl->stage[i].running, 1);
#if HAVE_PIDFD_GETFD && HAVE_PIDFD_OPEN
		pidfd[i] = pidfd_open(chain[i], 0);
#else
		pidfd[i] = -1;
#endif
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	draw = pb_view_setup(pl);
	while (!stopped && look(pl, pidfd) > 0) {
		if (++k % PB_DRAW_EVERY == 0) {
			note_files(pl);
			if (draw)
				pb_view_frame(pl, 0);
		}
		nanosleep(&tick, NULL);
	}
	if (draw)
		pb_view_end(pl);
	for (i = 0; i < pl->n; i++)
		if (pidfd[i] >= 0)
			close(pidfd[i]);
	rc = pb_pipeline_report(pl, NULL);
	for (i = 0; i < pl->n; i++)
		free(pl->stage[i].text);
	free(pl);
	return stopped ? 128 + stopped : rc;
}
