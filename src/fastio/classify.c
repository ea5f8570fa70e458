/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fastio.h"

/*
 * Filesystems whose regular files report a size that is not their length:
 * procfs and most pseudo filesystems say 0, sysfs says 4096, FUSE says what
 * the daemon likes. Numbers from <linux/magic.h> and fuse(4).
 */
static const uint32_t pseudo_fs_magic[] = {
    0x9fa0,	/* procfs */
    0x62656572, /* sysfs */
    0x64626720, /* debugfs */
    0x74726163, /* tracefs */
    0x73636673, /* securityfs */
    0x62656570, /* configfs */
    0x27e0eb,	/* cgroup */
    0x63677270, /* cgroup2 */
    0xde5e81e4, /* efivarfs */
    0x65735546, /* fuse */
};

static int
on_pseudo_fs(int fd)
{
	struct statfs sfs;
	size_t i;

	if (fstatfs(fd, &sfs) < 0)
		return 0;
	for (i = 0; i < sizeof pseudo_fs_magic / sizeof pseudo_fs_magic[0]; i++)
		/* f_type is a signed int on some 32-bit ABIs and s390x's is
		 * unsigned: the magic is its low 32 bits everywhere. */
		if ((uint32_t)sfs.f_type == pseudo_fs_magic[i])
			return 1;
	return 0;
}

/* Whether a regular file's st_size can be trusted (FIO_UNSIZED). */
static int
unsized(int fd, const struct stat *st)
{
	if (st->st_size == 0)
		return 1;
	/*
	 * Pseudo files own no blocks; asking statfs only then keeps the extra
	 * syscall off the path of ordinary files, which always have blocks
	 * once they have data (a fully sparse file pays it and stays sized).
	 */
	return st->st_blocks == 0 && on_pseudo_fs(fd);
}

static enum fio_kind
char_kind(int fd, const struct stat *st)
{
	if (st->st_rdev == makedev(1, 3))
		return FIO_DEVNULL;
	if (isatty(fd))
		return FIO_TTY;
	return FIO_CHAR;
}

static int
classify(int fd, int fl, struct fio_fd *f)
{
	memset(f, 0, sizeof *f);
	f->fd = fd;
	f->kind = FIO_UNKNOWN;
	if (fstat(fd, &f->st) < 0)
		return -1;
	if (fl >= 0) {
		if ((fl & O_ACCMODE) != O_WRONLY)
			f->flags |= FIO_READABLE;
		if ((fl & O_ACCMODE) != O_RDONLY)
			f->flags |= FIO_WRITABLE;
		if (fl & O_APPEND)
			f->flags |= FIO_APPEND;
		if (fl & O_NONBLOCK)
			f->flags |= FIO_NONBLOCK;
	}
	switch (f->st.st_mode & S_IFMT) {
	case S_IFREG:
		f->kind = FIO_REGULAR;
		if (unsized(fd, &f->st))
			f->flags |= FIO_UNSIZED;
		break;
	case S_IFIFO:
		f->kind = FIO_PIPE;
		fl = fcntl(fd, F_GETPIPE_SZ);
		f->pipe_size = fl > 0 ? (size_t)fl : 0;
		break;
	case S_IFSOCK:
		f->kind = FIO_SOCKET;
		break;
	case S_IFCHR:
		f->kind = char_kind(fd, &f->st);
		break;
	case S_IFBLK:
		f->kind = FIO_BLOCK;
		break;
	case S_IFDIR:
		f->kind = FIO_DIRECTORY;
		break;
	default:
		f->kind = FIO_OTHER;
		break;
	}
	return 0;
}

int
fio_classify(int fd, struct fio_fd *f)
{
	return classify(fd, fcntl(fd, F_GETFL), f);
}

int
fio_classify_opened(int fd, int open_flags, struct fio_fd *f)
{
	int rc = classify(fd, open_flags, f);

	f->flags |= FIO_AT_START;
	return rc;
}

/* Read-only descriptors, whose close reports nothing on Linux: one
 * close_range(), or one by one where it is refused. */
static void
close_fds(int lo, int hi)
{
	int fd;

	if (lo < 0)
		return;
#ifdef HAVE_CLOSE_RANGE
	if (close_range((unsigned)lo, (unsigned)hi, 0) == 0)
		return;
#endif
	for (fd = lo; fd <= hi; fd++)
		close(fd);
}

void
fio_close_now(struct fio_close_run *r)
{
	close_fds(r->lo, r->hi);
	r->lo = r->hi = -1;
}

void
fio_close_later(struct fio_close_run *r, int fd)
{
	if (r->lo >= 0 &&
	    (fd != r->hi + 1 || (r->max > 0 && r->hi - r->lo + 1 >= r->max)))
		fio_close_now(r);
	if (r->lo < 0)
		r->lo = fd;
	r->hi = fd;
}

const char *
fio_kind_name(enum fio_kind kind)
{
	static const char *const names[] = {
	    [FIO_UNKNOWN] = "unknown",	   [FIO_REGULAR] = "regular",
	    [FIO_PIPE] = "pipe",	   [FIO_TTY] = "tty",
	    [FIO_SOCKET] = "socket",	   [FIO_DEVNULL] = "devnull",
	    [FIO_CHAR] = "char",	   [FIO_BLOCK] = "block",
	    [FIO_DIRECTORY] = "directory", [FIO_OTHER] = "other",
	};

	if ((unsigned)kind >= sizeof names / sizeof names[0])
		return "?";
	return names[kind];
}
