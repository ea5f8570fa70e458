/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_H
#define FASTIO_H

/*
 * libfastio: classify file descriptors once, then move bytes between them
 * with the fastest strategy the kernel accepts for that pair of kinds. The
 * programs say what to move (a pattern forever, or an input to an output);
 * this library alone decides how, one place a job (doc/design.md, "The
 * places that decide"), each honouring FASTIO_DISABLE and FASTIO_FORCE
 * (strategy.c).
 *
 * Contract shared by every strategy: it returns FIO_DONE when its step or
 * job is finished, FIO_UNSUPPORTED when the kernel refused it, at its
 * first call or any later one (a sandbox may refuse a call at any time):
 * the stream stands where it left it, nothing in flight, and the next
 * strategy goes on from there; or FIO_ERROR with errno set on a real
 * error of the input or the output.
 *
 * No function here prints or exits; failures come back as -1 with errno.
 */

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum fio_kind {
	FIO_UNKNOWN, /* fstat failed (closed fd): plain read/write only */
	FIO_REGULAR,
	FIO_PIPE, /* pipe or FIFO */
	FIO_TTY,
	FIO_SOCKET,
	FIO_DEVNULL,
	FIO_CHAR, /* any other character device */
	FIO_BLOCK,
	FIO_DIRECTORY,
	FIO_OTHER
};

/* Bits of fio_fd.flags. */
#define FIO_READABLE 0x1u
#define FIO_WRITABLE 0x2u
#define FIO_APPEND   0x4u
#define FIO_NONBLOCK 0x8u
#define FIO_AT_START 0x10u /* just opened by the caller: at offset 0 */
/*
 * A regular file whose st_size says nothing of what reading it gives: an
 * empty one (procfs says 0 for files full of text, and so may FUSE), or
 * one on a pseudo filesystem (sysfs says 4096). As an input it is read
 * with read() to its end; as an output it is a file like any other.
 */
#define FIO_UNSIZED 0x20u

struct fio_fd {
	int fd;
	enum fio_kind kind;
	unsigned flags;
	struct stat st;	  /* valid unless kind is FIO_UNKNOWN */
	size_t pipe_size; /* capacity in bytes for FIO_PIPE, else 0 */
};

/* fio_sized: f is a regular file whose size can be trusted. */
static inline int
fio_sized(const struct fio_fd *f)
{
	return f->kind == FIO_REGULAR && !(f->flags & FIO_UNSIZED);
}

enum fio_status { FIO_DONE, FIO_UNSUPPORTED, FIO_ERROR };

enum fio_strategy {
	FIO_READ_WRITE, /* read()/write(): always enabled, the last resort */
	FIO_VMSPLICE,
	FIO_TEE,
	FIO_SPLICE,
	FIO_COPY_FILE_RANGE,
	FIO_SENDFILE,
	FIO_ONE_READ, /* a small file in one read(), into the buffer */
	FIO_PAGES,    /* tee's source: distinct written pages (tee.c) */
	FIO_HOT_PAGE, /* tee's source of one page in every slot (two
			 such, in turn): every reader's first shape, until
			 the probe (tee.c) */
	FIO_BITES,    /* smaller splices from a file, for such a reader
			 (pump.c) */
	FIO_THREAD,   /* a second thread writes bulk output (writer.c) */
	FIO_AHEAD,    /* a second thread reads small files ahead (ahead.c) */
	FIO_PACE,     /* sleep while a pipe's reader makes room (pace.c) */
	FIO_START,    /* a pattern's first bytes by plain write(), the
			 machinery only for a long stream (repeat.c) */
	FIO_DIRECT,   /* tee's rounds straight into the output (tee.c) */
	FIO_MIDDLE,   /* tee's rounds through a middle pipe (tee.c) */
	FIO_GULP,     /* tee's output pipe grown to FIO_PIPE_GULP (tee.c) */
	FIO_PROBE,    /* tee's shape chosen by measuring the reader
			 (shape.c); FASTIO_FORCE=probe changes it every
			 round, for the tests */
	FIO_SPIN,     /* a full pipe retried, the CPU yielded, before a
			 call that sleeps (pace.c) */
	FIO_STRATEGY_COUNT
};

/* Marks a byte count as unlimited. */
#define FIO_FOREVER UINT64_MAX

/*
 * fio_classify: fill *f for fd. Returns 0, or -1 with errno from fstat (the
 * record is still filled, as FIO_UNKNOWN, so callers may go on and let the
 * first read or write report the error the way GNU tools do).
 */
int fio_classify(int fd, struct fio_fd *f);

/*
 * fio_classify_opened: the same for a descriptor the caller has just
 * opened itself with open_flags, saving the fcntl(F_GETFL) (one syscall
 * per file counts when cat reads thousands of small files); the record
 * says FIO_AT_START, which lets a small file be read in one read().
 */
int fio_classify_opened(int fd, int open_flags, struct fio_fd *f);

/*
 * Descriptors closed in runs of consecutive numbers (open() hands them
 * out in order), one close_range() a run: fio_close_later adds fd,
 * closing the run first when fd does not extend it or it holds max
 * descriptors (0: no bound); fio_close_now closes the run. A run starts
 * as {-1, -1, max}.
 */
struct fio_close_run {
	int lo, hi, max;
};
void fio_close_later(struct fio_close_run *r, int fd);
void fio_close_now(struct fio_close_run *r);

/* fio_kind_name: a short lower-case name for a kind ("pipe", "tty", ...). */
const char *fio_kind_name(enum fio_kind kind);

/*
 * fio_disable: disable the strategies named in a comma-separated list
 * ("vmsplice,tee", or "all" for everything but write). Returns 0, or -1 with
 * errno EINVAL if a name is unknown (the known names are still applied).
 */
int fio_disable(const char *list);

/* fio_reset: enable every strategy again (for tests). */
void fio_reset(void);

/*
 * fio_init: apply the FASTIO_DISABLE environment variable. Returns what
 * fio_disable returns; programs ignore the result so that a typo in a
 * debugging variable never changes their output.
 */
int fio_init(void);

/* fio_enabled: nonzero if strategy s may be tried. */
int fio_enabled(enum fio_strategy s);

/*
 * fio_forced: nonzero if the FASTIO_FORCE list (read by fio_init, same
 * form as FASTIO_DISABLE) names s: the tests' way to take a strategy
 * wherever it is possible, not only where it pays (today: thread).
 */
int fio_forced(enum fio_strategy s);

/*
 * fio_thread_start: pthread_create(thread, fn, arg) with every signal
 * blocked in the new thread but SIGPIPE if sigpipe is set (its own
 * writes' EPIPE), so that signals reach the caller's thread, which waits
 * in the calls they must interrupt. Returns pthread_create's result.
 */
int fio_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg,
		     int sigpipe);

/*
 * fio_pipe_grow: try to make the pipe fd hold at least want bytes. Every
 * slot a pipe has counts against its user's pipe quota for as long as
 * the pipe lives, so a growth that would leave the user's next new pipe
 * two slots instead of sixteen is undone (the user's other pipelines
 * keep their speed). A refusal (EPERM, EBUSY, the quota) is not an
 * error: the return value is the capacity in effect afterwards, or 0 if
 * it cannot be known.
 */
size_t fio_pipe_grow(int fd, size_t want);

/*
 * fio_pipe_give_back: shrink the pipe fd back to size bytes once a big
 * transfer is done, or to the smallest power-of-two multiple of it that
 * holds what the pipe still holds. Returns the capacity in effect, or 0
 * if it cannot be known.
 */
size_t fio_pipe_give_back(int fd, size_t size);

/*
 * fio_buffer_alloc: a zeroed buffer of size bytes for data the kernel
 * copies in or out, placed where those copies run at full speed on every
 * CPU we know of (buffer.c). NULL with errno when out of memory.
 * fio_buffer_free gives it back, with the size it was allocated with.
 */
void *fio_buffer_alloc(size_t size);
void fio_buffer_free(void *p, size_t size);

/*
 * fio_repeat: write the len-byte pattern to out again and again, limit
 * bytes in all (FIO_FOREVER: until an error). The stream is exactly the
 * pattern repeated, whatever the chunk and pattern sizes. Pipes get
 * zero-copy strategies; a buffer handed to the kernel is never written or
 * unmapped afterwards. If used is not NULL it receives the strategy that
 * moved the bytes. Returns 0 when limit bytes went out, or -1 with errno.
 */
int fio_repeat(const struct fio_fd *out, const void *pattern, size_t len,
	       uint64_t limit, enum fio_strategy *used);

/* Which end of a move failed. */
enum fio_side { FIO_SIDE_INPUT, FIO_SIDE_OUTPUT };

/*
 * Bits of fio_pump_init's flags. FIO_PUMP_USER: the bytes pass through
 * buf, where the caller sees them between fill and flush.
 * FIO_PUMP_SIGNALS: a signal ends a waiting call (-1/EINTR, nothing lost,
 * the call may be repeated). FIO_PUMP_GATHER: bytes read from regular
 * files wait in buf for the next input's (few, big writes).
 * FIO_PUMP_KEEP_PIPES: no pipe is grown (a meter's relay between two
 * programs keeps the pipes as big as a shell's would be).
 */
#define FIO_PUMP_USER	    0x1u
#define FIO_PUMP_SIGNALS    0x2u
#define FIO_PUMP_GATHER	    0x4u
#define FIO_PUMP_KEEP_PIPES 0x8u

/*
 * A reader's vote: of the first rounds of a stream, how many showed the
 * sign asked about, and how many went out in one splice (vote.h,
 * fio_vote_count).
 */
struct fio_vote {
	unsigned rounds, signs, wholes;
};

/* The pace of a pipe's reader while it had bytes to read: it took
 * taken bytes (0: not known yet) in ns nanoseconds; late is how much
 * longer than asked our last sleep lasted, fast counts the times in a
 * row the reader outran the timer, skip the calls it is left alone for;
 * missed counts the spins in a row on a full pipe that the reader did
 * not end, idle the full pipes left to the kernel since (pace.c). */
struct fio_pace {
	uint64_t ns, taken, late;
	unsigned fast, skip, missed, idle;
};

/*
 * A pump moves the bytes of one input after another to one output, step
 * by step: fill takes bytes in, flush sends what is held on. It picks its
 * strategy for each input from the pair of kinds (copy_file_range between
 * files, sendfile to a socket, splice from a pipe, splice through a
 * private pipe from a file to a pipe, one read() for a small file just
 * opened, read()/write() through buf otherwise), and downgrades to
 * read()/write() from the same offsets whenever the kernel path refuses,
 * fails or stops early: then a failing step is repeated by calls whose
 * errors belong to one side, and a 0 is confirmed by a read (zero-copy
 * calls return 0 early on procfs, sysfs and FUSE). Callers never see which
 * path ran, except through fio_pump_strategy. The fields are the pump's;
 * callers read held, total and side.
 */
struct fio_pump {
	const struct fio_fd *in, *out;
	enum fio_strategy strategy; /* moving this input's bytes now */
	unsigned flags;
	char *buf; /* size bytes; buf[0..held) waits for the output */
	size_t size, held;
	uint64_t left;	      /* bytes of this input the limit still allows */
	uint64_t got;	      /* bytes taken from this input */
	uint64_t total;	      /* bytes delivered to the output, all inputs */
	int mid[2];	      /* the private pipe, once a file met a pipe */
	size_t in_mid;	      /* bytes waiting in it */
	size_t mid_size;      /* its capacity */
	size_t out_pipe_size; /* the output pipe's capacity, or 0 */
	int grown;	      /* the output pipe's growth was decided */
	size_t grown_from;    /* we grew it from this size (0: not) */
	size_t chunk;	      /* bytes per zero-copy call */
	unsigned full;	      /* pipe to non-pipe: full chunks since a look */
	struct fio_vote vote; /* the reader's (pump.c, vote()) */
	int small;	      /* it voted for small splices from files */
	struct fio_pace pace; /* the output pipe's reader (pace.c) */
	int eof;	      /* this input is known to be at its end */
	enum fio_side side;   /* after a failure: the side that failed */
};

/*
 * fio_pump_init: a pump from in to out through buf (size bytes, where the
 * user path reads; nothing past buf + size is touched), stopping after
 * limit bytes of the input (FIO_FOREVER: at its end). in may be NULL:
 * then fio_pump_next gives the first input.
 */
void fio_pump_init(struct fio_pump *p, const struct fio_fd *in,
		   const struct fio_fd *out, char *buf, size_t size,
		   uint64_t limit, unsigned flags);

/* fio_pump_next: go on with another input; held bytes stay held. */
void fio_pump_next(struct fio_pump *p, const struct fio_fd *in, uint64_t limit);

/*
 * fio_pump_fill: take the next bytes of the input: into buf (user path),
 * into the private pipe, or (copy_file_range, sendfile, splice from a
 * pipe) straight to the output, as one call of the kernel does both.
 * Returns the bytes taken, 0 at the end of the input or of the limit, or
 * -1 with errno and p->side.
 */
ssize_t fio_pump_fill(struct fio_pump *p);

/*
 * fio_pump_flush: send the held bytes on; with FIO_PUMP_GATHER, bytes of
 * regular files wait while buf is less than half full. Returns 0, or -1
 * with errno (p->side says which side; with FIO_PUMP_SIGNALS, EINTR
 * leaves the unsent bytes held).
 */
int fio_pump_flush(struct fio_pump *p);

/*
 * fio_pump_put: len bytes of a small regular file, read elsewhere
 * (fio_ahead_take), join the held ones as its own read would have put
 * them (with FIO_PUMP_GATHER: sent once buf is half full). Returns as
 * flush does.
 */
int fio_pump_put(struct fio_pump *p, const void *data, size_t len);

/* fio_pump_flush_all: send every held byte on. Returns as flush does. */
int fio_pump_flush_all(struct fio_pump *p);

/*
 * fio_pump_keep: of the bytes the last fill put in buf (user path), only
 * the first n stay to be flushed: the caller stopped there (a line limit),
 * or wrote them its own way (n = 0).
 */
void fio_pump_keep(struct fio_pump *p, size_t n);

/*
 * fio_pump_grow: for a relay whose stream has shown it is long: grow the
 * output pipe to size bytes (given back at fio_pump_end) and size the
 * splices by it and by the input's pipe_size, which the caller may have
 * grown too. Returns the output pipe's capacity in effect (0: not a pipe,
 * or not known).
 */
size_t fio_pump_grow(struct fio_pump *p, size_t size);

/* fio_pump_data: the held bytes of the user path (NULL on a kernel path). */
const char *fio_pump_data(const struct fio_pump *p, size_t *len);

/* fio_pump_strategy: the strategy moving the current input's bytes. */
enum fio_strategy fio_pump_strategy(const struct fio_pump *p);

/* fio_pump_end: release the private pipe (held bytes are dropped). */
void fio_pump_end(struct fio_pump *p);

/*
 * A writer sends the buffers a caller fills, one after another, to one
 * output, in order. For bulk output (FIO_WRITER_START bytes and more)
 * into a pipe or a regular file, where the process may run on two CPUs,
 * a second thread writes each buffer while the caller fills the next
 * (writer.c); otherwise each goes out at once, in the caller's thread.
 * The caller never touches a buffer it handed over: fio_writer_put
 * returns the one to fill next. Only the caller's thread prints, exits or
 * takes an asynchronous signal; a write error comes back from the next
 * put or drain.
 */
#define FIO_WRITER_BUFS 3

enum fio_writer_state {
	FIO_WRITER_ONE,	    /* the caller writes; the thread may start */
	FIO_WRITER_TWO,	    /* the thread writes */
	FIO_WRITER_ONE_NOW, /* the caller writes, for good */
};

struct fio_writer {
	struct fio_fd *out;
	size_t cap;		     /* each buffer's size */
	uint64_t sent;		     /* bytes handed over so far */
	char *buf[FIO_WRITER_BUFS];  /* [0]: the caller's own */
	size_t len[FIO_WRITER_BUFS]; /* what each queued one holds */
	unsigned head, tail;	     /* buf[head..tail) wait, mod BUFS */
	enum fio_writer_state state;
	int grown;	       /* the output pipe's growth was decided */
	size_t grown_from;     /* we grew it from this size (0: not) */
	int err;	       /* the thread's write failed: errno */
	int stop, quit;	       /* the vote said so; the caller */
	int sleeping, waiting; /* thread idle; caller waits */
	unsigned low;	       /* the caller wakes at this many */
	struct fio_vote vote;  /* the reader's: a full pipe? */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work, room;
};

/*
 * fio_writer_init: a writer to out, whose first buffer is the caller's
 * buf of cap bytes (out is the caller's: a pipe's size is grown there).
 */
void fio_writer_init(struct fio_writer *w, struct fio_fd *out, char *buf,
		     size_t cap);

/*
 * fio_writer_put: buf[0..n) out, buf being the buffer last returned (or
 * the first). bulk: the caller's next input cannot make it wait without
 * end (a regular file), so output may trail behind; without it, all that
 * waits goes out first and this buffer at once. Returns the buffer to
 * fill next, or NULL with errno after a write error (this one's or an
 * earlier buffer's).
 */
char *fio_writer_put(struct fio_writer *w, char *buf, size_t n, int bulk);

/*
 * fio_writer_put_whole: as fio_writer_put, for a caller whose output goes
 * on after this buffer: only its whole blocks of FIO_WHOLE_BLOCK bytes go out,
 * and the rest, fewer than FIO_WHOLE_BLOCK bytes, is at the start of the buffer
 * returned (*kept bytes), to be sent with what follows. A reader that
 * takes one read() as a block (dd without iflag=fullblock) then gets
 * whole blocks of up to 4 KiB, as from GNU's cat, whose writes are whole
 * buffers of 128 KiB.
 */
char *fio_writer_put_whole(struct fio_writer *w, char *buf, size_t n, int bulk,
			   size_t *kept);

/*
 * fio_writer_drain: wait until every buffer handed over is written; 0, or
 * -1 with errno after a write error.
 */
int fio_writer_drain(struct fio_writer *w);

/*
 * fio_writer_end: drain, stop the thread and free the writer's spare
 * buffers, the one last returned among them if it was one: the caller
 * writes no more. 0, or -1 with errno as fio_writer_drain.
 */
int fio_writer_end(struct fio_writer *w);

/*
 * Reading ahead: of a list of names that the caller reads in turn, a
 * second thread opens and reads the small regular files ahead of it, in
 * a descriptor table of its own, while the caller sends on what came
 * before; the kernel's work for each file (path walk, open, read, close)
 * then runs on two CPUs (BENCHMARKS.md, "Many small files"). Only where
 * the process may run on two CPUs and for FIO_AHEAD_MIN names or more
 * (FASTIO_FORCE=ahead: always, and the thread reads every batch); NULL
 * otherwise, and then every name is the caller's.
 */
struct fio_ahead;

/*
 * fio_ahead_start: read ahead through names[0..count) for output out
 * (whose file is never read ahead). NULL: not worth it, or refused.
 */
struct fio_ahead *fio_ahead_start(char *const *names, size_t count,
				  const struct fio_fd *out);

/*
 * fio_ahead_take: name i, taken in order from 0 on: the file's whole
 * contents (*len bytes, valid until the next take), or NULL when the
 * caller must open and read it itself: a name of a batch the thread left
 * to the caller, "-", anything but a small regular file with data, an
 * error, a file that changed while it was read. Its own open then gives
 * the bytes and messages of the file's turn.
 */
const char *fio_ahead_take(struct fio_ahead *a, size_t i, size_t *len);

/* fio_ahead_end: stop the thread and free a (NULL: nothing). */
void fio_ahead_end(struct fio_ahead *a);

#endif
