/* SPDX-License-Identifier: MIT */
/*
 * Export files (--export-csv, --export-json, --export-markdown), written
 * where the user points, as the shell's `>` writes: a regular file, or a
 * name not taken yet, is made beside it as a temporary file and renamed
 * over it once complete (a failed run leaves the old one whole); through
 * a symbolic link, the file it leads to, in that file's directory.
 * Anything else (a device, a FIFO, a terminal, /dev/stdout) is opened
 * and written in place, and so is a regular file whose directory takes
 * no new file (/proc). A new file gets 0666 less the umask, a replaced
 * one keeps its mode and owner. Each is opened before any run: a path
 * that cannot be written is refused before anything starts, its error
 * under the user's name for it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

/* Symbolic links followed, as the kernel follows them (ELOOP past it). */
#define PB_LINKS_MAX 40

/*
 * The file path leads to: its symbolic links followed (a link's target
 * is relative to the link's directory), the last one's target whether
 * it exists or not, as open(O_CREAT) makes it. malloc'd, or NULL with
 * errno.
 */
static char *
resolve(const char *path)
{
	char *now = strdup(path), *next, target[PATH_MAX], *slash;
	ssize_t n;
	int hops;

	for (hops = 0; now != NULL; hops++) {
		n = readlink(now, target, sizeof target - 1);
		if (n < 0)
			return errno == EINVAL || errno == ENOENT ? now : NULL;
		if (hops == PB_LINKS_MAX) {
			free(now);
			errno = ELOOP;
			return NULL;
		}
		target[n] = '\0';
		slash = strrchr(now, '/');
		if (target[0] == '/' || slash == NULL) {
			next = strdup(target);
		} else if ((next = malloc((size_t)(slash - now) + 2 +
					  (size_t)n)) != NULL) {
			memcpy(next, now, (size_t)(slash - now) + 1);
			strcpy(next + (slash - now) + 1, target);
		}
		free(now);
		now = next;
	}
	errno = ENOMEM;
	return NULL;
}

/* A temporary file beside target, with mode (and owner, where it is a
 * replaced file's); -1 with errno. */
static int
make_beside(struct pb_export *e, const char *target, const struct stat *old)
{
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	e->tmp = malloc(strlen(target) + 8);
	if (e->tmp == NULL) {
		errno = ENOMEM;
		return -1;
	}
	sprintf(e->tmp, "%s.XXXXXX", target);
	/* Close-on-exec: the commands we run must not hold it. */
	fd = mkostemp(e->tmp, O_CLOEXEC);
	if (fd < 0) {
		free(e->tmp);
		e->tmp = NULL;
		return -1;
	}
	/* Where the owner cannot be kept (not root), the mode still is. */
	if (old != NULL && fchown(fd, old->st_uid, old->st_gid) < 0)
		errno = 0;
	if (fchmod(fd, old != NULL ? old->st_mode & 07777 : 0666 & ~mask) < 0)
		errno = 0;
	return fd;
}

int
pb_export_open(struct pb_export *e, const char *path)
{
	struct stat st;
	int fd = -1, exists;

	memset(e, 0, sizeof *e);
	e->path = path;
	if (path == NULL)
		return 0;
	e->target = resolve(path);
	if (e->target == NULL)
		goto refused;
	exists = stat(e->target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto refused;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		fd = open(e->target, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	} else if (exists) {
		/* Writable as the shell would find it, or refused now. */
		fd = open(e->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			close(fd);
			fd = make_beside(e, e->target, &st);
			/* No new file there (/proc): written in place. */
			if (fd < 0)
				fd = open(e->target, O_WRONLY | O_TRUNC |
							 O_CLOEXEC | O_NOCTTY);
		}
	} else {
		fd = make_beside(e, e->target, NULL);
	}
	if (fd < 0 || (e->f = fdopen(fd, "w")) == NULL)
		goto refused;
	return 0;
refused:
	/* The user's name in the message: the others are ours. */
	prog_warn(errno, "%s", prog_quote(path));
	if (fd >= 0)
		close(fd);
	pb_export_abort(e);
	return -1;
}

int
pb_export_commit(struct pb_export *e)
{
	int rc;

	if (e->f == NULL)
		return 0;
	errno = 0;
	rc = ferror(e->f);
	rc |= fclose(e->f);
	e->f = NULL;
	if (rc == 0 && e->tmp != NULL && rename(e->tmp, e->target) < 0)
		rc = -1;
	if (rc != 0)
		prog_warn(errno, "%s", prog_quote(e->path));
	pb_export_abort(e);
	return rc != 0 ? -1 : 0;
}

void
pb_export_abort(struct pb_export *e)
{
	if (e->f != NULL)
		fclose(e->f);
	e->f = NULL;
	if (e->tmp != NULL)
		unlink(e->tmp);
	free(e->tmp);
	free(e->target);
	e->tmp = e->target = NULL;
}
