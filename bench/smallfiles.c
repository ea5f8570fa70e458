/* SPDX-License-Identifier: MIT */
/*
 * smallfiles MODE FILE...: cat of many tiny files four ways, to measure
 * what batching them on io_uring would gain (BENCHMARKS.md).
 * Not a cat: every file must be a regular file under SLOT bytes, errors
 * end the run. Output is gathered into 1 MiB writes, as our cat does.
 *
 *   syscalls     what src/cat/cat does: openat, fstat, one read of size + 1,
 *                descriptors closed by close_range() in runs
 *   uring        batches of BATCH files, each a linked openat_direct ->
 *                read of SLOT bytes -> close_direct into a fixed-file
 *                table: the upper bound, as it skips what a correct cat
 *                needs (the file's type before opening it, and the size
 *                that makes a short read its end)
 *   uring-stat   uring, after an fstatat() syscall per file for the type
 *                and size (the read asks size + 1)
 *   uring-statx  uring with IORING_OP_STATX linked before each open
 *
 * Build: cc -O2 -o smallfiles smallfiles.c -luring
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BATCH 64
#define SLOT  4096

static char out[1 << 20], slots[BATCH][SLOT];
static size_t held;

static void
emit(const char *p, size_t n)
{
	if (held + n > sizeof out) {
		if (write(1, out, held) != (ssize_t)held)
			exit(1);
		held = 0;
	}
	memcpy(out + held, p, n);
	held += n;
}

static void
fail(const char *what, const char *name)
{
	fprintf(stderr, "smallfiles: %s %s\n", what, name);
	exit(1);
}

static void
by_syscalls(char **names, int n)
{
	int first = -1, last = -1, fd, i;
	struct stat st;
	ssize_t k;

	for (i = 0; i < n; i++) {
		fd = open(names[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size >= SLOT)
			fail("open", names[i]);
		k = read(fd, slots[0], (size_t)st.st_size + 1);
		if (k < 0)
			fail("read", names[i]);
		emit(slots[0], (size_t)k);
		if (first >= 0 && (fd != last + 1 || last - first >= 255)) {
			close_range((unsigned)first, (unsigned)last, 0);
			first = -1;
		}
		if (first < 0)
			first = fd;
		last = fd;
	}
}

/* The last prepared entry gets its data and flags (prep clears them). */
static void
mark(struct io_uring_sqe *s, unsigned long long data, unsigned flags)
{
	s->user_data = data;
	s->flags |= flags;
}

static void
by_uring(char **names, int n, int stat_call, int stat_ring)
{
	static struct statx sx[BATCH];
	static int got[BATCH];
	struct io_uring ring;
	struct io_uring_cqe *c;
	struct io_uring_sqe *s;
	struct stat st;
	unsigned want;
	int i, j, m, ops, seen;

	/* 4 entries a file at most: get_sqe never runs out. */
	if (io_uring_queue_init(4 * BATCH, &ring, 0) < 0 ||
	    io_uring_register_files_sparse(&ring, BATCH) < 0)
		fail("io_uring", "setup");
	for (i = 0; i < n; i += BATCH) {
		m = n - i < BATCH ? n - i : BATCH;
		for (j = 0; j < m; j++) {
			want = SLOT;
			if (stat_call) {
				if (stat(names[i + j], &st) < 0 ||
				    st.st_size >= SLOT)
					fail("stat", names[i + j]);
				want = (unsigned)st.st_size + 1;
			}
			if (stat_ring) {
				s = io_uring_get_sqe(&ring);
				io_uring_prep_statx(s, AT_FDCWD, names[i + j],
						    0, STATX_TYPE | STATX_SIZE,
						    &sx[j]);
				mark(s, 0, IOSQE_IO_LINK);
			}
			s = io_uring_get_sqe(&ring);
			io_uring_prep_openat_direct(s, AT_FDCWD, names[i + j],
						    O_RDONLY, 0, (unsigned)j);
			mark(s, 0, IOSQE_IO_LINK);
			/* A short read fails a plain link: the close must
			 * still run. */
			s = io_uring_get_sqe(&ring);
			io_uring_prep_read(s, j, slots[j], want, 0);
			mark(s, (unsigned)j + 1,
			     IOSQE_FIXED_FILE | IOSQE_IO_HARDLINK);
			s = io_uring_get_sqe(&ring);
			io_uring_prep_close_direct(s, (unsigned)j);
			mark(s, 0, 0);
		}
		ops = m * (3 + stat_ring);
		if (io_uring_submit_and_wait(&ring, (unsigned)ops) < 0)
			fail("io_uring", "submit");
		for (seen = 0; seen < ops; seen++) {
			if (io_uring_wait_cqe(&ring, &c) < 0)
				fail("io_uring", "wait");
			if (c->user_data > 0)
				got[c->user_data - 1] = c->res;
			io_uring_cqe_seen(&ring, c);
		}
		for (j = 0; j < m; j++) {
			if (got[j] < 0)
				fail("read", names[i + j]);
			emit(slots[j], (size_t)got[j]);
		}
	}
	io_uring_queue_exit(&ring);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		fail("usage:", "smallfiles MODE FILE...");
	if (strcmp(argv[1], "syscalls") == 0)
		by_syscalls(argv + 2, argc - 2);
	else if (strcmp(argv[1], "uring") == 0)
		by_uring(argv + 2, argc - 2, 0, 0);
	else if (strcmp(argv[1], "uring-stat") == 0)
		by_uring(argv + 2, argc - 2, 1, 0);
	else if (strcmp(argv[1], "uring-statx") == 0)
		by_uring(argv + 2, argc - 2, 0, 1);
	else
		fail("unknown mode", argv[1]);
	if (held > 0 && write(1, out, held) != (ssize_t)held)
		return 1;
	return 0;
}
