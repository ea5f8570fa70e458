/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/machine.h"
#include "fastio/sys.h"
#include "spawn.h"

#ifdef FIO_SANITIZED
/*
 * Leaks are checked in the programs under test; the suites themselves
 * free little on a failed assertion's early exit, and LeakSanitizer would
 * turn every such exit into an error of its own.
 */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

/* Holding pipes for OUT_SPLICE_PIPE: each is grown to this size. */
#define HOLD_PIPE_SIZE (1 << 20)
#define HOLD_PIPES_MAX 64

const char *
spawn_path(const char *prog)
{
	static char path[4096];
	const char *top = getenv("FIO_BUILDDIR");

	if (prog[0] == '/')
		return prog;
	/* yes is src/yes; a program of several files is in its folder. */
	if (strcmp(prog, "yes") == 0)
		snprintf(path, sizeof path, "%s/src/yes", top ? top : ".");
	else
		snprintf(path, sizeof path, "%s/src/%s/%s", top ? top : ".",
			 prog, prog);
	return path;
}

struct buf {
	char *data;
	size_t len, cap;
	int compare_fd;		 /* if > 0: compare with it, keep nothing */
	unsigned long long seen; /* bytes compared */
	long long differs;	 /* first differing offset, or -1 */
};

/* The n bytes just read at b->data + b->len, against the file. */
static void
buf_compare(struct buf *b, size_t n)
{
	char file[65536];
	ssize_t k = pread(b->compare_fd, file, n, (off_t)b->seen);
	size_t i;

	if (b->differs < 0) {
		for (i = 0; i < n; i++)
			if ((ssize_t)i >= k || file[i] != b->data[b->len + i])
				break;
		if (i < n)
			b->differs = (long long)(b->seen + i);
	}
	b->seen += n;
}

static int
buf_reserve(struct buf *b, size_t more)
{
	char *p;
	size_t cap = b->cap ? b->cap : 65536;

	while (cap - b->len < more)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = realloc(b->data, cap + 1);
	if (p == NULL)
		return -1;
	b->data = p;
	b->cap = cap;
	return 0;
}

/* Read what fd has into b; returns bytes read, 0 at EOF, -1 on EAGAIN. */
static ssize_t
buf_fill(struct buf *b, int fd, size_t limit)
{
	size_t want = 65536;
	ssize_t n;

	if (limit && limit - b->len < want)
		want = limit - b->len;
	if (buf_reserve(b, want) < 0)
		return 0;
	do
		n = read(fd, b->data + b->len, want);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? -1 : 0; /* EIO: pty slave gone */
	if (b->compare_fd > 0) {
		buf_compare(b, (size_t)n);
		return n;
	}
	b->len += (size_t)n;
	b->data[b->len] = '\0';
	return n;
}

static int
temp_file(const char *data, size_t len)
{
	char path[] = "/tmp/fastio-test-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (len > 0 && write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

int
spawn_open_pty(int *master, int *slave)
{
	struct termios t;

	*slave = -1;
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) < 0 || unlockpt(*master) < 0)
		return -1;
	*slave = open(ptsname(*master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0 || tcgetattr(*slave, &t) < 0)
		return -1;
	/* Raw: the line discipline must pass bytes through unchanged. */
	cfmakeraw(&t);
	return tcsetattr(*slave, TCSANOW, &t);
}

/* The child's stderr: a pipe, or a terminal err_cols columns wide. */
static int
make_error(const struct spawn *s, int ep[2])
{
	struct winsize w = {24, 0, 0, 0};

	if (s->err_cols == 0)
		return pipe2(ep, O_CLOEXEC);
	w.ws_col = s->err_cols;
	if (spawn_open_pty(&ep[0], &ep[1]) < 0)
		return -1;
	return ioctl(ep[1], TIOCSWINSZ, &w);
}

/* The two ends of the child's stdout: ours (-1 if none) and its. */
static int
make_output(const struct spawn *s, int *ours, int *theirs)
{
	char path[64];
	int p[2];

	*ours = *theirs = -1;
	switch (s->out) {
	case OUT_PIPE:
	case OUT_SPLICE_PIPE:
	case OUT_NONBLOCK_PIPE:
		if (pipe2(p, O_CLOEXEC) < 0)
			return -1;
		if (s->out == OUT_NONBLOCK_PIPE)
			fcntl(p[1], F_SETFL, O_NONBLOCK);
		*ours = p[0];
		*theirs = p[1];
		return 0;
	case OUT_SOCKET:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
			return -1;
		*ours = p[0];
		*theirs = p[1];
		return 0;
	case OUT_PTY:
		return spawn_open_pty(ours, theirs);
	case OUT_FILE:
	case OUT_APPEND_FILE:
		*ours = temp_file("", 0);
		if (*ours < 0)
			return -1;
		/* A second open, so that only the child's end is O_APPEND. */
		snprintf(path, sizeof path, "/proc/self/fd/%d", *ours);
		*theirs =
		    open(path, O_WRONLY | O_CLOEXEC |
				   (s->out == OUT_APPEND_FILE ? O_APPEND : 0));
		return *theirs < 0 ? -1 : 0;
	case OUT_DEVNULL:
	case OUT_DEVFULL:
		*theirs =
		    open(s->out == OUT_DEVNULL ? "/dev/null" : "/dev/full",
			 O_WRONLY | O_CLOEXEC);
		return *theirs < 0 ? -1 : 0;
	case OUT_CLOSED:
		return 0;
	case OUT_FD:
		*theirs = fcntl(s->out_fd, F_DUPFD_CLOEXEC, 3);
		return *theirs < 0 ? -1 : 0;
	}
	return -1;
}

static int
make_input(const struct spawn *s, int *ours, int *theirs)
{
	int p[2];

	*ours = *theirs = -1;
	switch (s->in) {
	case IN_DEVNULL:
		*theirs = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return *theirs < 0 ? -1 : 0;
	case IN_PIPE:
		if (pipe2(p, O_CLOEXEC) < 0)
			return -1;
		fcntl(p[1], F_SETFL, O_NONBLOCK);
		*ours = p[1];
		*theirs = p[0];
		return 0;
	case IN_FILE:
		*theirs = temp_file(s->in_data, s->in_len);
		return *theirs < 0 ? -1 : 0;
	case IN_NONBLOCK_PIPE:
		if (pipe2(p, O_CLOEXEC) < 0)
			return -1;
		if (s->in_len > 0 &&
		    write(p[1], s->in_data, s->in_len) != (ssize_t)s->in_len)
			return -1;
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		*ours = p[1];
		*theirs = p[0];
		return 0;
	case IN_CLOSED:
		return 0;
	case IN_FD:
		*theirs = fcntl(s->in_fd, F_DUPFD_CLOEXEC, 3);
		return *theirs < 0 ? -1 : 0;
	}
	return -1;
}

/*
 * Pipes grown to 1 MiB and kept open across exec until the user's soft
 * pipe quota (fs.pipe-user-pages-soft) is spent: a new pipe then gets two
 * pages, as the program's own will. Exits 125 if that never happens.
 */
static void
spend_pipe_quota(void)
{
	int p[2], i;

	for (i = 0; i < 1024 && pipe(p) == 0; i++) {
		if (fcntl(p[1], F_GETPIPE_SZ) < 65536) {
			close(p[0]);
			close(p[1]);
			return;
		}
		fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	}
	_exit(125);
}

/*
 * Another user may not reach the build tree (a clone under /root): a
 * program run as one is a copy in a directory of its own under /tmp,
 * removed when the test process exits.
 */
static char copies_dir[64];

static void
remove_copies(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", copies_dir);
	if (system(cmd) != 0)
		return;
}

static const char *
copy_for_others(const char *path)
{
	static char copy[128];
	const char *name = strrchr(path, '/');
	char buf[65536];
	ssize_t n;
	int in, out;

	if (copies_dir[0] == '\0') {
		strcpy(copies_dir, "/tmp/fastio-progs-XXXXXX");
		if (mkdtemp(copies_dir) == NULL || chmod(copies_dir, 0755) < 0)
			return NULL;
		atexit(remove_copies);
	}
	snprintf(copy, sizeof copy, "%s/%s", copies_dir,
		 name ? name + 1 : path);
	in = open(path, O_RDONLY | O_CLOEXEC);
	out = open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out < 0 || close(out) < 0)
		return NULL;
	return copy;
}

const char *
spawn_path_as_other(const char *prog)
{
	return copy_for_others(spawn_path(prog));
}

void
spawn_init(struct spawn *s, const char *prog, const char *const *argv,
	   const char *const *env, enum spawn_out out)
{
	s->prog = prog;
	s->argv = argv;
	s->env = env;
	s->out = out;
}

void
spawn_feed(struct spawn *s, enum spawn_in in, const char *data, size_t len)
{
	s->in = in;
	s->in_data = data;
	s->in_len = len;
}

static void
child(const struct spawn *s, const char *exe, int in, int out, int err)
{
	const char *const *e;
	const char *argv0[2] = {s->prog, NULL};
	const char *const *argv = s->argv ? s->argv : argv0;
	struct rlimit rl;
	sigset_t none;

	/* Move the ends clear of 0-2 first, so no dup2 clobbers another. */
	if (in >= 0)
		in = fcntl(in, F_DUPFD_CLOEXEC, 10);
	if (out >= 0)
		out = fcntl(out, F_DUPFD_CLOEXEC, 10);
	err = fcntl(err, F_DUPFD_CLOEXEC, 10);
	if (in >= 0)
		dup2(in, 0);
	else
		close(0);
	if (out >= 0)
		dup2(out, 1);
	else
		close(1);
	if (s->err_closed)
		close(2);
	else
		dup2(err, 2);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, s->ignore_sigpipe ? SIG_IGN : SIG_DFL);
	if (s->out == OUT_FILE && s->out_max) {
		/* Bounded by the file size limit: writes past it fail EFBIG. */
		signal(SIGXFSZ, SIG_IGN);
		rl.rlim_cur = rl.rlim_max = s->out_max;
		setrlimit(RLIMIT_FSIZE, &rl);
	}
	if (s->vm_limit) {
		rl.rlim_cur = rl.rlim_max = s->vm_limit;
		setrlimit(RLIMIT_AS, &rl);
	}
	if (s->nofile) {
		rl.rlim_cur = rl.rlim_max = s->nofile;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (s->uid && (setgroups(0, NULL) < 0 || setgid(s->uid) < 0 ||
		       setuid(s->uid) < 0))
		_exit(126);
	/* Nothing of the test's own but 0-2 reaches the program (the
	 * descriptor limits some tests set count every open one). */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (s->spend_pipe_quota)
		spend_pipe_quota();
	unsetenv("FASTIO_DISABLE");
	unsetenv("POSIXLY_CORRECT");
	unsetenv("TERM"); /* --help's markup: only where a case asks */
	for (e = s->env; e && *e; e++)
		putenv((char *)*e);
	execv(exe, (char *const *)argv);
	_exit(127);
}

static unsigned long
proc_field(pid_t pid, const char *file, const char *key)
{
	char path[64], line[256];
	unsigned long v = 0;
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "re");
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, klen) == 0)
			v = strtoul(line + klen, NULL, 10);
	fclose(f);
	return v;
}

/* Whether pid runs exe already (and no longer the copy of us fork made). */
static int
runs(pid_t pid, const char *exe)
{
	char link[64], want[PATH_MAX], got[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
	n = readlink(link, got, sizeof got - 1);
	if (n < 0 || realpath(exe, want) == NULL)
		return 0;
	got[n] = '\0';
	return strcmp(got, want) == 0;
}

/*
 * OUT_DEVNULL (or OUT_FILE with watch_rss) with out_max: wait until the
 * child wrote that much, noting its peak RSS (only once it runs the program:
 * before the exec it is a copy of the test, with the test's memory).
 */
static void
watch_writes(pid_t pid, const char *exe, const struct spawn *s,
	     struct spawn_result *r)
{
	struct timespec ms = {0, 1000000};
	unsigned long rss;
	int started = 0;
	siginfo_t si;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) <
			0 ||
		    si.si_pid != 0)
			return; /* it ended by itself: the caller sees how */
		started = started || runs(pid, exe);
		rss = started ? proc_field(pid, "status", "VmHWM:") : 0;
		if (rss > r->peak_rss_kb)
			r->peak_rss_kb = rss;
		if (proc_field(pid, "io", "wchar:") >= s->out_max) {
			kill(pid, SIGTERM);
			return;
		}
		nanosleep(&ms, NULL);
	}
}

/*
 * Splice up to len bytes; 0 at EOF, -1 when the destination has no free
 * slot (a pipe fills by slots, and small buffers fill it before its size).
 * EAGAIN means an empty source or a full destination: only the
 * destination itself can say which. Asking the source instead ("readable
 * now, so the destination must be full") misreads a writer that was
 * merely slow to write its next few bytes, and gives up on a holding pipe
 * that still had room.
 */
static ssize_t
splice_some(int from, int to, size_t len)
{
	struct pollfd src = {from, POLLIN, 0}, dst = {to, POLLOUT, 0};
	ssize_t n;

	for (;;) {
		n = splice(from, NULL, to, NULL, len, SPLICE_F_NONBLOCK);
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n < 0 ? 0 : n;
		if (errno == EINTR)
			continue;
		if (poll(&dst, 1, 0) == 0)
			return -1;
		(void)poll(&src, 1, -1);
	}
}

/*
 * OUT_SPLICE_PIPE: move out_max bytes by reference into holding pipes, then
 * let the producer write as much again (spliced to /dev/null), and only
 * then read the held bytes. A producer that rewrote memory it had handed to
 * vmsplice() would show up as changed bytes in the held pages.
 */
static void
splice_reader(int src, const struct spawn *s, struct buf *out)
{
	int hold[HOLD_PIPES_MAX][2], nhold = 0, devnull, i;
	size_t held = 0, room, discarded = 0;
	ssize_t n;

	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	while (held < s->out_max && nhold < HOLD_PIPES_MAX) {
		if (pipe2(hold[nhold], O_CLOEXEC) < 0)
			break;
		fcntl(hold[nhold][1], F_SETPIPE_SZ, HOLD_PIPE_SIZE);
		room = (size_t)fcntl(hold[nhold][1], F_GETPIPE_SZ);
		nhold++;
		while (room > 0 && held < s->out_max) {
			n = splice_some(src, hold[nhold - 1][1],
					room < s->out_max - held
					    ? room
					    : s->out_max - held);
			if (n == 0)
				goto drain;
			if (n < 0)
				break;
			held += (size_t)n;
			room -= (size_t)n;
		}
	}
	while (discarded < held) {
		n = splice_some(src, devnull, held - discarded);
		if (n <= 0) /* /dev/null is never full */
			break;
		discarded += (size_t)n;
	}
drain:
	for (i = 0; i < nhold; i++) {
		close(hold[i][1]);
		while (buf_fill(out, hold[i][0], 0) > 0)
			;
		close(hold[i][0]);
	}
	close(devnull);
}

static void
feed(int *fd, const struct spawn *s, size_t *fed, const struct buf *err)
{
	ssize_t n = 0;

	if (*fed < s->in_len)
		n = write(*fd, s->in_data + *fed, s->in_len - *fed);
	if (n > 0)
		*fed += (size_t)n;
	if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
	    (*fed == s->in_len && err->len >= s->err_min)) {
		close(*fd);
		*fd = -1;
	}
}

/* Read stdout (until out_max or EOF) and stderr, feeding stdin meanwhile. */
static void
pump(int out_fd, int err_fd, int in_fd, const struct spawn *s, struct buf *out,
     struct buf *err, pid_t pid)
{
	struct pollfd pf[3];
	size_t fed = 0, limit = s->out_max;
	int n;

	if (in_fd >= 0 && s->in_len == 0 && s->err_min == 0) {
		close(in_fd);
		in_fd = -1;
	}
	while (out_fd >= 0 || err_fd >= 0) {
		pf[0] = (struct pollfd){out_fd, POLLIN, 0};
		pf[1] = (struct pollfd){err_fd, POLLIN, 0};
		pf[2] =
		    (struct pollfd){fed < s->in_len ? in_fd : -1, POLLOUT, 0};
		n = poll(pf, 3, -1);
		if (n < 0 && errno != EINTR)
			break;
		if (pf[2].revents)
			feed(&in_fd, s, &fed, err);
		if (pf[0].revents && (buf_fill(out, out_fd, limit) == 0 ||
				      (limit && out->len >= limit))) {
			if ((s->signal || s->midway) && pid > 0 && limit) {
				if (s->signal)
					kill(pid, s->signal);
				if (s->midway)
					s->midway(s->midway_arg);
				pid = 0;
				limit = 0;
				continue;
			}
			close(out_fd);
			out_fd = -1;
		}
		if (pf[1].revents && buf_fill(err, err_fd, 0) == 0) {
			close(err_fd);
			err_fd = -1;
		}
		if (in_fd >= 0 && fed == s->in_len &&
		    (err->len >= s->err_min || err_fd < 0)) {
			close(in_fd);
			in_fd = -1;
		}
	}
	if (in_fd >= 0)
		close(in_fd);
}

int
spawn_run(const struct spawn *s, struct spawn_result *r)
{
	struct buf out = {.differs = -1}, err = {0};
	const char *exe;
	int out_ours, out_theirs, in_ours, in_theirs, ep[2], status, held = -1;
	struct rusage ru;
	pid_t pid;

	memset(r, 0, sizeof *r);
	exe = s->uid ? spawn_path_as_other(s->prog) : spawn_path(s->prog);
	if (exe == NULL)
		return -1;
	if (s->out_compare &&
	    (out.compare_fd = open(s->out_compare, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (make_output(s, &out_ours, &out_theirs) < 0 ||
	    make_input(s, &in_ours, &in_theirs) < 0 || make_error(s, ep) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		child(s, exe, in_theirs, out_theirs, ep[1]);
	close(ep[1]);
	if (in_theirs >= 0)
		close(in_theirs);
	if (s->in == IN_NONBLOCK_PIPE) { /* nothing more to feed, no EOF */
		held = in_ours;
		in_ours = -1;
	}
	if (out_theirs >= 0 && out_theirs != out_ours)
		close(out_theirs);

	if (s->out == OUT_NONBLOCK_PIPE) {
		/* Nothing drains the pipe until the child has given up. */
		pump(-1, ep[0], in_ours, s, &out, &err, 0);
		wait4(pid, &status, 0, &ru);
		fcntl(out_ours, F_SETFL, O_NONBLOCK);
		while (buf_fill(&out, out_ours, 0) > 0)
			;
		close(out_ours);
	} else if (s->out == OUT_SPLICE_PIPE) {
		/* The splice reader cannot feed stdin meanwhile: a child can.
		 */
		if (in_ours >= 0 && fork() == 0) {
			fcntl(in_ours, F_SETFL, 0);
			_exit(write(in_ours, s->in_data, s->in_len) < 0);
		}
		if (in_ours >= 0)
			close(in_ours);
		in_ours = -1;
		splice_reader(out_ours, s, &out);
		close(out_ours);
		pump(-1, ep[0], in_ours, s, &out, &err, 0);
		wait4(pid, &status, 0, &ru);
	} else if (s->out == OUT_DEVNULL && s->out_max) {
		watch_writes(pid, exe, s, r);
		pump(-1, ep[0], in_ours, s, &out, &err, 0);
		wait4(pid, &status, 0, &ru);
	} else if (s->out == OUT_FILE || s->out == OUT_APPEND_FILE ||
		   out_ours < 0) {
		if (s->out == OUT_FILE && s->out_max && s->watch_rss)
			watch_writes(pid, exe, s, r);
		pump(-1, ep[0], in_ours, s, &out, &err, 0);
		wait4(pid, &status, 0, &ru);
		if (out_ours >= 0) {
			lseek(out_ours, 0, SEEK_SET);
			while (buf_fill(&out, out_ours, 0) > 0)
				;
			close(out_ours);
		}
	} else {
		pump(out_ours, ep[0], in_ours, s, &out, &err, pid);
		wait4(pid, &status, 0, &ru);
	}
	if (held >= 0)
		close(held);
	r->cpu_ms =
	    (unsigned long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	    (unsigned long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	r->exited = WIFEXITED(status);
	r->status = r->exited ? WEXITSTATUS(status) : -1;
	r->signaled = WIFSIGNALED(status);
	r->signal = r->signaled ? WTERMSIG(status) : 0;
	r->out = out.data ? out.data : calloc(1, 1);
	r->out_len = out.compare_fd > 0 ? (size_t)out.seen : out.len;
	r->out_differs = out.differs;
	if (out.compare_fd > 0)
		close(out.compare_fd);
	r->err = err.data ? err.data : calloc(1, 1);
	r->err_len = err.len;
	return 0;
}

int
spawn_start(const struct spawn *s, struct spawn_child *c)
{
	const char *exe = spawn_path(s->prog);
	int in_theirs, out_theirs;

	c->pid = -1;
	c->to = c->from = c->err = -1;
	if (make_output(s, &c->from, &out_theirs) < 0 ||
	    make_input(s, &c->to, &in_theirs) < 0 ||
	    (c->err = temp_file("", 0)) < 0)
		return -1;
	/* The test writes when it chooses, and may wait to. */
	if (c->to >= 0)
		fcntl(c->to, F_SETFL, 0);
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0)
		child(s, exe, in_theirs, out_theirs, c->err);
	if (in_theirs >= 0)
		close(in_theirs);
	if (out_theirs >= 0 && out_theirs != c->from)
		close(out_theirs);
	return 0;
}

int
spawn_finish(struct spawn_child *c, struct spawn_result *r)
{
	struct buf out = {.differs = -1}, err = {0};
	int status = 0;

	memset(r, 0, sizeof *r);
	if (c->to >= 0)
		close(c->to);
	if (c->from >= 0 && lseek(c->from, 0, SEEK_CUR) >= 0) {
		/* A file: all of it, once the program is done. */
		if (waitpid(c->pid, &status, 0) != c->pid)
			return -1;
		c->pid = -1;
		lseek(c->from, 0, SEEK_SET);
	}
	if (c->from >= 0) {
		while (buf_fill(&out, c->from, 0) > 0)
			;
		close(c->from);
	}
	if (c->pid > 0 && waitpid(c->pid, &status, 0) != c->pid)
		return -1;
	lseek(c->err, 0, SEEK_SET);
	while (buf_fill(&err, c->err, 0) > 0)
		;
	close(c->err);
	c->to = c->from = c->err = -1;
	c->pid = -1;
	r->exited = WIFEXITED(status);
	r->status = r->exited ? WEXITSTATUS(status) : -1;
	r->signaled = WIFSIGNALED(status);
	r->signal = r->signaled ? WTERMSIG(status) : 0;
	r->out = out.data ? out.data : calloc(1, 1);
	r->out_len = out.len;
	r->err = err.data ? err.data : calloc(1, 1);
	r->err_len = err.len;
	return 0;
}

/* The state of a task from its stat line, which follows the command's
 * ")" (a command may hold anything); 0 if it cannot be read. */
static char
task_state(const char *path)
{
	char line[512], *paren, state = 0;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return 0;
	if (fgets(line, sizeof line, f) != NULL &&
	    (paren = strrchr(line, ')')) != NULL && paren[1] == ' ')
		state = paren[2];
	fclose(f);
	return state;
}

int
spawn_waits(pid_t pid)
{
	char path[300];
	struct dirent *d;
	int tasks = 0, asleep = 0;
	DIR *dir;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((dir = opendir(path)) == NULL)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/stat", (long)pid,
			 d->d_name);
		tasks++;
		asleep += task_state(path) == 'S';
	}
	closedir(dir);
	return tasks > 0 && asleep == tasks;
}

pid_t
spawn_piped(const char *path, const char *const *argv, const char *const *env,
	    int in, int *out)
{
	static const int sigs[] = {SIGPIPE, SIGINT,  SIGTERM,
				   SIGHUP,  SIGUSR1, SIGUSR2};
	sigset_t set, old;
	int p[2] = {-1, -1};
	size_t i;
	pid_t pid;

	if (out != NULL)
		ck_assert_int_eq(pipe(p), 0);
	/* Blocked across the fork: a signal the harness catches must not
	 * reach the child before its handlers are the default again. */
	sigemptyset(&set);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
			signal(sigs[i], SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if ((in >= 0 && dup2(in, STDIN_FILENO) < 0) ||
		    (out != NULL && dup2(p[1], STDOUT_FILENO) < 0))
			_exit(126);
		/* The child keeps 0, 1 and 2: a write end of the caller's
		 * held open here would keep its reader from an end. */
		close_range(3, ~0U, 0);
		for (i = 0; env != NULL && env[i] != NULL; i++)
			if (strchr(env[i], '=') != NULL)
				putenv((char *)env[i]);
			else
				unsetenv(env[i]);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	ck_assert_int_ge(pid, 0);
	if (out != NULL) {
		close(p[1]);
		*out = p[0];
	}
	return pid;
}

void
spawn_mib_pipe(int p[2])
{
	int size;

	ck_assert_int_eq(pipe(p), 0);
	size = fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	ck_assert_msg(size == 1 << 20,
		      "a pipe of 1 MiB refused (%s): the suite runs as root",
		      size < 0 ? strerror(errno) : "smaller");
}

ssize_t
spawn_wait_pipe(int fd, size_t bytes)
{
	int pending;

	for (;;) {
		if (ioctl(fd, FIONREAD, &pending) < 0)
			return -1;
		if ((size_t)pending >= bytes)
			return pending;
		usleep(50);
	}
}

static int
version_runs_under(const char *prog, unsigned long limit)
{
	const char *argv[] = {prog, "--version", NULL};
	struct spawn s = {0};
	struct spawn_result r;
	int ok;

	s.prog = prog;
	s.argv = argv;
	s.in = IN_DEVNULL;
	s.out = OUT_PIPE;
	s.vm_limit = limit;
	if (spawn_run(&s, &r) < 0)
		return 0;
	ok = r.exited && r.status == 0 && r.out_len > 0;
	spawn_free(&r);
	return ok;
}

unsigned long
spawn_version_needs(const char *prog)
{
	unsigned long lo = 1UL << 20, hi = 256UL << 20, mid;

	ck_assert(version_runs_under(prog, hi));
	while (hi - lo > 64 * 1024) {
		mid = lo + (hi - lo) / 2;
		if (version_runs_under(prog, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

void
spawn_free(struct spawn_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}
