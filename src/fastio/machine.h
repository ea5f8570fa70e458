/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_MACHINE_H
#define FASTIO_MACHINE_H

/*
 * What libfastio asks of the machine it runs on (strategy.c), at run
 * time: nothing here is assumed at compile time. Not part of the API:
 * programs use fastio.h.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * Nonzero if the process may run on two CPUs at once; otherwise a second
 * thread (writer.c, ahead.c) only takes turns with the caller.
 */
int fio_two_cpus(void);

/*
 * The size of a page, and so of what one slot of a pipe holds: the
 * kernel's (4 KiB on x86, s390x and armhf; 64 KiB on ppc64el and some
 * arm64 kernels), or FASTIO_PAGE_SIZE's (strategy.c).
 */
size_t fio_page_size(void);

/* The monotonic clock in nanoseconds: what pacing and the shape probe time
 * the reader by. */
uint64_t fio_now_ns(void);

#endif
