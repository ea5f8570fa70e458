/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_TUNE_H
#define FASTIO_TUNE_H

/*
 * Every measured constant of libfastio, with the measurement behind it.
 * Machine: 2-core AMD EPYC VM, kernel 6.18, Debian 12 (see BENCHMARKS.md).
 * Rates are GiB/s of `yes` (pattern "y\n") into bench/sink, medians of 5
 * interleaved runs; "splice" is a reader that splices to /dev/null, "read"
 * one that read()s 128 KiB at a time. The #ifndef guards exist only so a
 * benchmark can build variants with -D; nothing in the tree overrides them.
 */

/* Project rule: no call that moves bytes asks for more than 1 GiB. */
#define FIO_MAX_IO ((size_t)1 << 30)

/* Transparent huge page size on x86-64: the vmsplice buffer's alignment. */
#define FIO_HUGE_PAGE ((size_t)2 << 20)

/*
 * Pipe size asked for with F_SETPIPE_SZ (the default pipe-max-size, so an
 * unprivileged user gets it too). vmsplice, splice reader: 256 KiB 35.5,
 * 1 MiB 62.5, 4 MiB 66.7; write() into a pipe: 64 KiB 4.5, 1 MiB 5.9.
 */
#ifndef FIO_PIPE_SIZE
#define FIO_PIPE_SIZE ((size_t)1 << 20)
#endif

/*
 * vmsplice chunk = pipe capacity / this. GNU's development tree uses 4;
 * here, splice reader: /1 62.5, /2 63.4, /4 59.2; read reader 12.4-12.6.
 */
#ifndef FIO_VMSPLICE_DIVISOR
#define FIO_VMSPLICE_DIVISOR 1
#endif

/*
 * write() size for outputs that are not pipes. To a file on ext4: 8 KiB
 * 1.8, 128 KiB 4.6, 1 MiB 5.6, 2 MiB 5.3 (noisy); tmpfs 2.2-2.9 for all
 * sizes from 64 KiB. The buffer is 2 MiB anyway, so the larger size is free.
 */
#ifndef FIO_WRITE_CHUNK
#define FIO_WRITE_CHUNK ((size_t)1 << 20)
#endif

/*
 * The hot shape of vmsplice: one page of whole patterns repeated in 256
 * segments. A read() reader copies from one cache-hot page: 15.2 against
 * 11.4 for one 2 MiB run, while a splice reader falls to 29 (a GUP call per
 * segment); regions of 8 KiB and up gain nothing (12.8 at 8 KiB). Switching
 * on the average vmsplice return over a window of calls: window 4: splice
 * 64.8, read 15.0; 16: 64.3, 14.5; 64: 62.5, 14.3; batch only: 66.8, 12.7.
 */
#ifndef FIO_HOT_REGION
#define FIO_HOT_REGION ((size_t)4096)
#endif
#define FIO_HOT_SEGMENTS 1024
#ifndef FIO_HOT_WINDOW
#define FIO_HOT_WINDOW 4
#endif

/* Chunk when the big buffer cannot be mapped (tight RLIMIT_AS); GNU's size. */
#define FIO_SMALL_CHUNK ((size_t)8 << 10)

#endif
