/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fastio.h"
#include "sys.h"
#include "tune.h"

/*
 * The one place EINTR is retried: r = call, again while it is interrupted
 * and the caller did not ask to see signals (interruptible), which then
 * get -1/EINTR. Every byte-moving syscall goes through it.
 */
#define RETRY_EINTR(r, call, interruptible)                                    \
	do                                                                     \
		(r) = (call);                                                  \
	while ((r) < 0 && errno == EINTR && !(interruptible))

static size_t
cap(size_t len)
{
	return len > FIO_MAX_IO ? FIO_MAX_IO : len;
}

ssize_t
fio_read(int fd, void *buf, size_t len, int interruptible)
{
	ssize_t r;

	RETRY_EINTR(r, read(fd, buf, cap(len)), interruptible);
	return r;
}

ssize_t
fio_write(int fd, const void *buf, size_t len, int interruptible)
{
	ssize_t r;

	RETRY_EINTR(r, write(fd, buf, cap(len)), interruptible);
	return r;
}

ssize_t
fio_vmsplice(int fd, const struct iovec *iov, size_t count, unsigned flags)
{
	size_t total = 0, i;
	ssize_t r;

	if (count > IOV_MAX)
		count = IOV_MAX;
	for (i = 0; i < count; i++) {
		if (iov[i].iov_len > FIO_MAX_IO - total)
			break;
		total += iov[i].iov_len;
	}
	RETRY_EINTR(r, vmsplice(fd, iov, i, flags), 0);
	return r;
}

ssize_t
fio_tee(int in, int out, size_t len, unsigned flags)
{
	ssize_t r;

	RETRY_EINTR(r, tee(in, out, cap(len), flags), 0);
	return r;
}

ssize_t
fio_splice(int in, int out, size_t len, unsigned flags, int interruptible)
{
	ssize_t r;

	RETRY_EINTR(r, splice(in, NULL, out, NULL, cap(len), flags),
		    interruptible);
	return r;
}

ssize_t
fio_copy_file_range(int in, int out, off_t *at, size_t len)
{
	ssize_t r;

	RETRY_EINTR(r, copy_file_range(in, NULL, out, at, cap(len), 0), 0);
	return r;
}

/* len bytes written whole, at the file's byte at (pwrite) or, for at -1,
 * at its offset (write); *done counts them, also on failure. */
static int
put_all(int fd, const char *p, size_t len, off_t at, size_t *done,
	int interruptible)
{
	ssize_t n;

	if (done != NULL)
		*done = 0;
	while (len > 0) {
		if (at < 0)
			n = fio_write(fd, p, len, interruptible);
		else
			RETRY_EINTR(n, pwrite(fd, p, cap(len), at), 0);
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		if (at >= 0)
			at += n;
		if (done != NULL)
			*done += (size_t)n;
	}
	return 0;
}

int
fio_pwrite_all(int fd, const void *buf, size_t len, off_t at)
{
	return put_all(fd, buf, len, at, NULL, 0);
}

ssize_t
fio_sendfile(int out, int in, size_t len, int interruptible)
{
	ssize_t r;

	RETRY_EINTR(r, sendfile(out, in, NULL, cap(len)), interruptible);
	return r;
}

int
fio_write_all(int fd, const void *buf, size_t len, size_t *done,
	      int interruptible)
{
	return put_all(fd, buf, len, -1, done, interruptible);
}

static size_t
pipe_max_size(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "re");

	if (f != NULL) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * Past the user's soft pipe quota (fs.pipe-user-pages-soft) the kernel
 * gives every new pipe of that user two slots instead of sixteen, so all
 * of the user's pipelines crawl, not only ours. A pipe made and closed at
 * once tells whether a new one would still get its sixteen (root and
 * CAP_SYS_RESOURCE are exempt: theirs always do). The kernel's own page,
 * not FASTIO_PAGE_SIZE's: this asks what the kernel did.
 */
static int
quota_spent(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int p[2], size;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 0;
	size = fcntl(p[1], F_GETPIPE_SZ);
	close(p[0]);
	close(p[1]);
	return size > 0 && page > 0 && size <= 2 * page;
}

size_t
fio_pipe_grow(int fd, size_t want)
{
	int now = fcntl(fd, F_GETPIPE_SZ), got = -1;
	size_t limit;

	if (now < 0)
		return 0;
	if ((size_t)now >= want)
		return (size_t)now;
	if (want <= (size_t)INT32_MAX)
		got = fcntl(fd, F_SETPIPE_SZ, (int)want);
	/*
	 * Unprivileged callers may not exceed pipe-max-size (EPERM), so try
	 * that once; past the soft quota the kernel refuses any growth.
	 * Either way the pipe works at the size it has.
	 */
	if (got < 0 && errno == EPERM) {
		limit = pipe_max_size();
		if (limit > (size_t)now && limit < want)
			got = fcntl(fd, F_SETPIPE_SZ, (int)limit);
	}
	if (got <= now)
		return (size_t)now;
	/*
	 * Growing never takes the last of the user's quota: if a new pipe
	 * would now get two slots, the growth is undone. Nothing was written
	 * since, so the old size holds what the pipe holds.
	 */
	if (quota_spent() && fcntl(fd, F_SETPIPE_SZ, now) >= 0)
		return (size_t)now;
	return (size_t)got;
}

size_t
fio_pipe_give_back(int fd, size_t size)
{
	int now = fcntl(fd, F_GETPIPE_SZ);

	if (now <= 0)
		return 0;
	/* EBUSY: the pipe holds more than size; a bigger step may do. */
	for (; size > 0 && size < (size_t)now; size *= 2)
		if (fcntl(fd, F_SETPIPE_SZ, (int)size) >= 0)
			return (size_t)fcntl(fd, F_GETPIPE_SZ);
	return (size_t)now;
}

/*
 * EINVAL and EBADF: O_APPEND outputs, /dev/full, not a pipe or a pipe end
 * open only for reading. EXDEV and EOPNOTSUPP: different filesystems,
 * files and devices the call cannot serve. ENOSYS and EPERM: old kernels,
 * seccomp filters and LSMs. EFBIG: the file-size limit checked up front.
 * ETXTBSY: files mapped for execution. ENOMEM: vmsplice could not pin the
 * pages (write() copies instead).
 */
int
fio_refused(int err)
{
	switch (err) {
	case EINVAL:
	case EBADF:
	case EXDEV:
	case EOPNOTSUPP:
	case ENOSYS:
	case EPERM:
	case EFBIG:
	case ETXTBSY:
	case ENOMEM:
		return 1;
	}
	return 0;
}
