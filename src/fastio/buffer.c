/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <sys/mman.h>

#include "fastio.h"

/*
 * Page-aligned: the kernel copies between our buffers and the pages of
 * the page cache and of pipes with `rep movsb`, which some CPUs run 8x
 * slower into a buffer 16 bytes into a page, where malloc() puts large
 * ones (1.9 against 15.5 GB/s on an AMD EPYC: BENCHMARKS.md,
 * "Strategies"). Mapped rather than zeroed by hand: the
 * pages are zero and touched only when used, as calloc()'s were, so a cat
 * of one tiny file does not fault in its whole buffer at start-up.
 */
void *
fio_buffer_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void
fio_buffer_free(void *p, size_t size)
{
	if (p != NULL)
		munmap(p, size);
}
