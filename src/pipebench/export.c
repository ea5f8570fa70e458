/* SPDX-License-Identifier: MIT */
/*
 * Export files (--export-csv, --export-json, --export-markdown): made
 * before any run, as a temporary file beside the target, and renamed over
 * it only once complete, so that a bad path costs nothing and a failure
 * leaves nothing half-written.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipebench.h"
#include "prog.h"

int
pb_export_open(struct pb_export *e, const char *path)
{
	int fd;

	memset(e, 0, sizeof *e);
	e->path = path;
	if (path == NULL)
		return 0;
	e->tmp = malloc(strlen(path) + 8);
	if (e->tmp == NULL) {
		prog_warn(0, "memory exhausted");
		return -1;
	}
	sprintf(e->tmp, "%s.XXXXXX", path);
	/* Close-on-exec: the commands we run must not hold it. */
	fd = mkostemp(e->tmp, O_CLOEXEC);
	if (fd < 0 || (e->f = fdopen(fd, "w")) == NULL) {
		/* The user's name in the message: the temporary one is ours. */
		prog_warn(errno, "%s", prog_quote(path));
		if (fd >= 0) {
			close(fd);
			unlink(e->tmp);
		}
		free(e->tmp);
		e->tmp = NULL;
		return -1;
	}
	return 0;
}

int
pb_export_commit(struct pb_export *e)
{
	int rc = 0;

	if (e->f == NULL)
		return 0;
	errno = 0;
	rc = ferror(e->f);
	rc |= fclose(e->f);
	if (rc != 0 || rename(e->tmp, e->path) < 0) {
		prog_warn(errno, "%s", prog_quote(e->path));
		unlink(e->tmp);
		rc = -1;
	}
	free(e->tmp);
	e->f = NULL;
	return rc;
}

void
pb_export_abort(struct pb_export *e)
{
	if (e->f == NULL)
		return;
	fclose(e->f);
	unlink(e->tmp);
	free(e->tmp);
	e->f = NULL;
}
