/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fastio.h"
#include "tune.h"

/*
 * Page-aligned: the kernel copies between our buffers and the pages of
 * the page cache and of pipes with `rep movsb`, which some CPUs run up to
 * 7x slower into a buffer 16 bytes into a page, where malloc() puts large
 * ones (tune.h, FIO_STREAM_PHASE).
 */
void *
fio_buffer_alloc(size_t size)
{
	void *raw;

	if (posix_memalign(&raw, FIO_PAGE, size) != 0)
		return NULL;
	/* Zeroed, so that bytes a scanner may read past the data are defined. */
	memset(raw, 0, size);
	return raw;
}
