/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for the tests, loaded with LD_PRELOAD (built by make
 * check, never installed). FIO_INJECT="CALL:N:WHAT[,CALL:N:WHAT...]" makes
 * the Nth call of CALL (counted from 1; "N+" means that call and every
 * later one) fail with errno WHAT (a name: EINVAL, EINTR, ...) or, with
 * WHAT "short", do only half of what was asked (at least one byte). Each
 * injection appends "CALL N WHAT" to the file FIO_INJECT_LOG, if set, so
 * a test can tell that its call was reached.
 *
 * FIO_SIGNAL_STORM=USEC installs do-nothing SIGALRM, SIGPROF and SIGCHLD
 * handlers without SA_RESTART and fires the first two every USEC
 * microseconds (of real and of CPU time), and a SIGCHLD as often from a
 * thread that forks a child exiting at once: every blocking call is
 * interrupted again and again.
 *
 * pthread_create fails by returning WHAT, as it does, with errno kept.
 *
 * Only calls made by the program itself count (fcntl: only F_SETPIPE_SZ):
 * under AddressSanitizer its runtime reads, writes and maps through these
 * same symbols, and would otherwise take the injected faults.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/uio.h>
#include <unistd.h>

enum call {
	C_READ,
	C_WRITE,
	C_SPLICE,
	C_VMSPLICE,
	C_TEE,
	C_COPY_FILE_RANGE,
	C_SENDFILE,
	C_PIPE,
	C_PIPE2,
	C_SETPIPE_SZ,
	C_OPEN,
	C_OPENAT,
	C_MMAP,
	C_POLL,
	C_UNSHARE,
	C_THREAD,
	C_COUNT
};

static const char *const call_names[C_COUNT] = {
    "read",	"write", "splice",  "vmsplice",	      "tee",  "copy_file_range",
    "sendfile", "pipe",	 "pipe2",   "fcntl",	      "open", "openat",
    "mmap",	"poll",	 "unshare", "pthread_create",
};

static const struct {
	const char *name;
	int value;
} errnos[] = {
    {"ENOSYS", ENOSYS}, {"EINVAL", EINVAL}, {"EBADF", EBADF},
    {"EXDEV", EXDEV},	{"EPERM", EPERM},   {"EOPNOTSUPP", EOPNOTSUPP},
    {"EFBIG", EFBIG},	{"EAGAIN", EAGAIN}, {"EINTR", EINTR},
    {"EIO", EIO},	{"ENOSPC", ENOSPC}, {"EPIPE", EPIPE},
    {"EMFILE", EMFILE}, {"ENOMEM", ENOMEM}, {"EBUSY", EBUSY},
};

#define SHORT	  (-1)
#define MAX_RULES 8

static struct rule {
	enum call call;
	unsigned long nth;
	int and_later;
	int what; /* errno, or SHORT */
	const char *text;
} rules[MAX_RULES];
static int nrules = -1;
static unsigned long counts[C_COUNT];

static void
parse(void)
{
	const char *spec = getenv("FIO_INJECT");
	static char copy[512];
	char *item, *save = NULL, *name, *n, *what, *end;
	size_t i;
	int c;

	nrules = 0;
	if (spec == NULL || strlen(spec) >= sizeof copy)
		return;
	strcpy(copy, spec);
	for (item = strtok_r(copy, ",", &save);
	     item != NULL && nrules < MAX_RULES;
	     item = strtok_r(NULL, ",", &save)) {
		name = item;
		n = strchr(name, ':');
		if (n == NULL)
			continue;
		*n++ = '\0';
		what = strchr(n, ':');
		if (what == NULL)
			continue;
		*what++ = '\0';
		for (c = 0; c < C_COUNT && strcmp(call_names[c], name); c++)
			;
		if (c == C_COUNT)
			continue;
		rules[nrules].call = (enum call)c;
		rules[nrules].nth = strtoul(n, &end, 10);
		rules[nrules].and_later = *end == '+';
		rules[nrules].text = what;
		if (strcmp(what, "short") == 0) {
			rules[nrules].what = SHORT;
		} else {
			for (i = 0; i < sizeof errnos / sizeof errnos[0] &&
				    strcmp(errnos[i].name, what);
			     i++)
				;
			if (i == sizeof errnos / sizeof errnos[0])
				continue;
			rules[nrules].what = errnos[i].value;
		}
		nrules++;
	}
}

static void
note(enum call c, unsigned long n, const char *what)
{
	const char *log = getenv("FIO_INJECT_LOG");
	char line[96];
	int fd, len;

	if (log == NULL)
		return;
	len =
	    snprintf(line, sizeof line, "%s %lu %s\n", call_names[c], n, what);
	fd = (int)syscall(SYS_openat, AT_FDCWD, log,
			  O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)syscall(SYS_write, fd, line, (size_t)len);
		(void)syscall(SYS_close, fd);
	}
}

/*
 * Count a call of c; returns 0 to let it through, SHORT to shorten it, or
 * an errno to fail it with.
 */
static int
fault(enum call c, const void *caller)
{
	static uintptr_t base;
	unsigned long n;
	Dl_info info;
	int i;

	/* The program's first page holds its program headers. */
	if (base == 0)
		base = getauxval(AT_PHDR) & ~(uintptr_t)0xfff;
	if (dladdr(caller, &info) == 0 || (uintptr_t)info.dli_fbase != base)
		return 0;
	/* Only now: a sanitizer runtime calls in before the environment is
	 * set up. */
	if (nrules < 0)
		parse();
	n = ++counts[c];
	for (i = 0; i < nrules; i++)
		if (rules[i].call == c &&
		    (n == rules[i].nth ||
		     (rules[i].and_later && n > rules[i].nth))) {
			note(c, n, rules[i].text);
			return rules[i].what;
		}
	return 0;
}

#define REAL(ret, name, args)                                                  \
	static ret(*real) args;                                                \
	if (real == NULL)                                                      \
	*(void **)&real = dlsym(RTLD_NEXT, name)

/* Fail with errno f, or go on with len halved for a short count. */
#define APPLY(f, len)                                                          \
	do {                                                                   \
		if ((f) > 0) {                                                 \
			errno = (f);                                           \
			return -1;                                             \
		}                                                              \
		if ((f) == SHORT && (len) > 1)                                 \
			(len) /= 2;                                            \
	} while (0)

ssize_t
read(int fd, void *buf, size_t len)
{
	int f = fault(C_READ, __builtin_return_address(0));
	REAL(ssize_t, "read", (int, void *, size_t));

	APPLY(f, len);
	return real(fd, buf, len);
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	int f = fault(C_WRITE, __builtin_return_address(0));
	REAL(ssize_t, "write", (int, const void *, size_t));

	APPLY(f, len);
	return real(fd, buf, len);
}

ssize_t
splice(int in, loff_t *in_off, int out, loff_t *out_off, size_t len,
       unsigned flags)
{
	int f = fault(C_SPLICE, __builtin_return_address(0));
	REAL(ssize_t, "splice",
	     (int, loff_t *, int, loff_t *, size_t, unsigned));

	APPLY(f, len);
	return real(in, in_off, out, out_off, len, flags);
}

ssize_t
vmsplice(int fd, const struct iovec *iov, size_t count, unsigned flags)
{
	int f = fault(C_VMSPLICE, __builtin_return_address(0));
	struct iovec one;
	REAL(ssize_t, "vmsplice",
	     (int, const struct iovec *, size_t, unsigned));

	if (f == SHORT && count > 0) {
		/* Half of the first segment only. */
		one = iov[0];
		if (one.iov_len > 1)
			one.iov_len /= 2;
		return real(fd, &one, 1, flags);
	}
	APPLY(f, count);
	return real(fd, iov, count, flags);
}

ssize_t
tee(int in, int out, size_t len, unsigned flags)
{
	int f = fault(C_TEE, __builtin_return_address(0));
	REAL(ssize_t, "tee", (int, int, size_t, unsigned));

	APPLY(f, len);
	return real(in, out, len, flags);
}

ssize_t
copy_file_range(int in, loff_t *in_off, int out, loff_t *out_off, size_t len,
		unsigned flags)
{
	int f = fault(C_COPY_FILE_RANGE, __builtin_return_address(0));
	REAL(ssize_t, "copy_file_range",
	     (int, loff_t *, int, loff_t *, size_t, unsigned));

	APPLY(f, len);
	return real(in, in_off, out, out_off, len, flags);
}

ssize_t
sendfile(int out, int in, off_t *off, size_t len)
{
	int f = fault(C_SENDFILE, __builtin_return_address(0));
	REAL(ssize_t, "sendfile", (int, int, off_t *, size_t));

	APPLY(f, len);
	return real(out, in, off, len);
}

int
pipe(int fds[2])
{
	int f = fault(C_PIPE, __builtin_return_address(0));
	REAL(int, "pipe", (int[2]));

	APPLY(f, f);
	return real(fds);
}

int
unshare(int flags)
{
	int f = fault(C_UNSHARE, __builtin_return_address(0));
	REAL(int, "unshare", (int));

	APPLY(f, f);
	return real(flags);
}

int
pipe2(int fds[2], int flags)
{
	int f = fault(C_PIPE2, __builtin_return_address(0));
	REAL(int, "pipe2", (int[2], int));

	APPLY(f, f);
	return real(fds, flags);
}

int
fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	int f = 0;
	REAL(int, "fcntl", (int, int, ...));

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (cmd == F_SETPIPE_SZ)
		f = fault(C_SETPIPE_SZ, __builtin_return_address(0));
	APPLY(f, f);
	return real(fd, cmd, arg);
}

int
pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
	       void *arg)
{
	int f = fault(C_THREAD, __builtin_return_address(0));
	REAL(int, "pthread_create",
	     (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *));

	if (f > 0)
		return f;
	return real(t, attr, fn, arg);
}

static int
open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE
		   ? va_arg(ap, int)
		   : 0;
}

int
open(const char *path, int flags, ...)
{
	va_list ap;
	int mode, f = fault(C_OPEN, __builtin_return_address(0));
	REAL(int, "open", (const char *, int, ...));

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	APPLY(f, f);
	return real(path, flags, mode);
}

/* On 64-bit glibc open64 is open under a second name. */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int
openat(int dir, const char *path, int flags, ...)
{
	va_list ap;
	int mode, f = fault(C_OPENAT, __builtin_return_address(0));
	REAL(int, "openat", (int, const char *, int, ...));

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	APPLY(f, f);
	return real(dir, path, flags, mode);
}

void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	int f = fault(C_MMAP, __builtin_return_address(0));
	REAL(void *, "mmap", (void *, size_t, int, int, int, off_t));

	if (f > 0) {
		errno = f;
		return MAP_FAILED;
	}
	return real(addr, len, prot, flags, fd, off);
}

/*
 * A large-file build on a 32-bit CPU (armhf, i386) calls these by their
 * 64-bit names; on 64-bit CPUs they are the same calls under a second
 * name, which programs do not use.
 */
int fcntl64(int fd, int cmd, ...) __attribute__((alias("fcntl")));
int openat64(int dir, const char *path, int flags, ...)
    __attribute__((alias("openat")));

ssize_t
sendfile64(int out, int in, off64_t *off, size_t len)
{
	int f = fault(C_SENDFILE, __builtin_return_address(0));
	REAL(ssize_t, "sendfile64", (int, int, off64_t *, size_t));

	APPLY(f, len);
	return real(out, in, off, len);
}

void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	int f = fault(C_MMAP, __builtin_return_address(0));
	REAL(void *, "mmap64", (void *, size_t, int, int, int, off64_t));

	if (f > 0) {
		errno = f;
		return MAP_FAILED;
	}
	return real(addr, len, prot, flags, fd, off);
}

int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int f = fault(C_POLL, __builtin_return_address(0));
	REAL(int, "poll", (struct pollfd *, nfds_t, int));

	APPLY(f, f);
	return real(fds, n, timeout);
}

static void
ignore(int sig)
{
	(void)sig;
}

/* A child that exits at once, every interval: a SIGCHLD for the program.
 * Reaped by pid, so the program's own children are left to it. */
static long storm_usec;

static void *
forker(void *unused)
{
	struct timespec gap = {0, storm_usec * 1000};
	pid_t pid;

	(void)unused;
	for (;;) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		nanosleep(&gap, NULL);
	}
	return NULL;
}

__attribute__((constructor)) static void
storm(void)
{
	const char *usec = getenv("FIO_SIGNAL_STORM");
	struct itimerval every;
	struct sigaction sa;
	sigset_t all, old;
	pthread_t t;

	if (usec == NULL)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ignore; /* no SA_RESTART: calls fail with EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGPROF, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	every.it_interval.tv_sec = 0;
	every.it_interval.tv_usec = storm_usec = strtol(usec, NULL, 10);
	every.it_value = every.it_interval;
	setitimer(ITIMER_REAL, &every, NULL);
	setitimer(ITIMER_PROF, &every, NULL);
	/* The forking thread takes no signal: the program's threads do. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, forker, NULL) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
