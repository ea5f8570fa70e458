/* SPDX-License-Identifier: MIT */
/*
 * pipebench: pass standard input to standard output unchanged and report
 * the throughput, with the flags and formats of Thomas Habets' pipebench
 * 0.40; plus limits, stream verification, a JSON summary, and running and
 * comparing producers on pipes of our own.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "fastio/tune.h"
#include "prog.h"

/*
 * Rate samples for --json are taken this often: short enough that a run of
 * a few seconds gives a distribution, long enough that the sampling thread
 * costs nothing measurable. Not a tuned constant.
 */
#define SAMPLE_NS	   100000000L
#define SAMPLES_PER_SECOND 10

struct options {
	int quiet, no_summary, raw, si, no_units, progress, touch, json;
	int exec, compare, wall, shuffle;
	unsigned runs, warmup;
	size_t bufsize;
	const char *status_file;
	int status_append;
	uint64_t max_bytes, max_lines, size; /* 0: none */
	const char *expect_line, *expect_file;
	const char **names; /* --name: the commands' names, in order */
	int nnames;
};

static struct options opt = {.bufsize = FIO_CAT_BUF, .runs = 5, .warmup = 1};
static FILE *status; /* running lines and summary: stderr or -s/-S FILE */

enum mode { MODE_SPLICE, MODE_COPY };

/* One measured transfer. */
struct run {
	struct fio_fd in, out;
	uint64_t bytes, lines;
	struct timespec start, first, end; /* first: zero until a byte came */
	enum mode mode;
	int stopped; /* a limit was reached before EOF */
};

static _Atomic uint64_t moved; /* the running run's bytes, for the ticker */
static volatile sig_atomic_t interrupted;

static void
on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double
seconds(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

static int
usage(int status_code)
{
	if (status_code != EXIT_SUCCESS) {
		prog_try_help();
		return status_code;
	}
	printf("Usage: %s [OPTION]...\n"
	       "  or:  %s [OPTION]... --exec -- COMMAND [ARG]...\n"
	       "  or:  %s [OPTION]... --compare COMMAND...\n",
	       program_name, program_name, program_name);
	fputs(
	    "Pass standard input to standard output unchanged and report the\n"
	    "throughput.\n"
	    "\n"
	    "Options of pipebench 0.40:\n"
	    "  -b SIZE        buffer size when copying with read()/write()\n"
	    "  -e             accepted; every error ends the run anyway\n"
	    "  -h             display this help and exit\n"
	    "  -I             1 kB = 1000 B instead of 1024 B\n"
	    "  -o             do not show the summary\n"
	    "  -q             show only the summary\n"
	    "  -Q             show nothing (-q -o)\n"
	    "  -r             show the rate only, bytes per second, one per "
	    "line\n"
	    "  -s FILE        write the status to FILE instead (truncated), "
	    "lines end\n"
	    "                 in LF\n"
	    "  -S FILE        the same, appending to FILE\n"
	    "  -u             do not scale to units\n"
	    "\n"
	    "Extensions:\n"
	    "      --bytes=N        stop after exactly N bytes\n"
	    "      --lines=N        stop after exactly N lines\n"
	    "      --expect-line=S  check that the stream is S and LF, "
	    "repeated\n"
	    "      --expect-file=F  check that the stream equals the file F\n"
	    "      --touch          read() every byte instead of splicing\n"
	    "      --json           add a JSON summary as the last line\n"
	    "  -p, --progress       show a progress line (percentage and ETA "
	    "when the\n"
	    "                       size is known), also when stderr is not a "
	    "tty\n"
	    "      --size=N         the stream's size, for the percentage and "
	    "ETA\n"
	    "      --exec           run COMMAND with its output on a pipe of "
	    "our own\n"
	    "      --compare        run each COMMAND in turn and compare their "
	    "rates\n"
	    "      --runs=N         measured runs of each COMMAND (default 5)\n"
	    "      --warmup=N       unmeasured runs of each first (default 1)\n"
	    "      --wall           time COMMAND from its start to its exit\n"
	    "      --shuffle        a new random order of the COMMANDs each "
	    "round\n"
	    "      --name=NAME      name the COMMANDs in the table, in order\n"
	    "      --help           display this help and exit\n"
	    "      --version        output version information and exit\n"
	    "\n"
	    "N may have a suffix: K M G T P E (powers of 1024, also KiB ...)\n"
	    "or KB MB GB TB PB EB (powers of 1000).\n"
	    "\n"
	    "Examples:\n"
	    "  yes | pipebench --bytes 10G --touch > /dev/null\n"
	    "  pipebench --compare 'yes' '/usr/bin/yes' --bytes 20G\n",
	    stdout);
	return prog_close_stdout();
}

/*
 * "%7.2f UNIT" as pipebench 0.40 prints sizes and rates: the unit steps up
 * while the integer value is strictly greater than the base.
 */
static const char *
amount(char *buf, size_t size, double v)
{
	static const char *const units[] = {"B",  "kB", "MB", "GB",
					    "TB", "PB", "EB"};
	uint64_t base = opt.si ? 1000 : 1024, n = (uint64_t)v;
	unsigned u = 0;

	if (opt.no_units) {
		snprintf(buf, size, "%7llu B", (unsigned long long)n);
		return buf;
	}
	while (n > base && u < 6) {
		n /= base;
		v /= (double)base;
		u++;
	}
	snprintf(buf, size, "%7.2f %s", v, units[u]);
	return buf;
}

static const char *
duration(char *buf, size_t size, double t)
{
	int h = (int)(t / 3600), m = (int)(t / 60) % 60;

	snprintf(buf, size, "%02dh%02dm%05.2fs", h, m,
		 t - h * 3600.0 - m * 60.0);
	return buf;
}

/*
 * Running lines and rate samples come from a thread of their own, so the
 * data path makes no syscall for them and never waits for them.
 */
static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* ticker_stop() ends the wait at once */
	int display, sample, done, started;
	const struct run *run;
	double *at;	 /* sample times, seconds from the start */
	uint64_t *bytes; /* bytes moved by then */
	size_t n, cap;
} tick = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The running line: Habets' format, or ours with -p or a known size. */
static void
print_running(double t, uint64_t bytes, double rate)
{
	char a[32], b[32], c[32], d[32];
	time_t now = time(NULL);
	struct tm tm;
	double avg = t > 0 ? (double)bytes / t : 0, left;

	if (opt.raw) {
		fprintf(status, "%llu\n", (unsigned long long)rate);
	} else if (opt.progress || opt.size) {
		fprintf(status, "%s: %s %s/second now, %s/second average",
			duration(a, sizeof a, t), amount(b, sizeof b, bytes),
			amount(c, sizeof c, rate), amount(d, sizeof d, avg));
		if (opt.size && avg > 0) {
			left =
			    bytes < opt.size ? (double)(opt.size - bytes) : 0;
			fprintf(status, ", %3d%%, ETA %s",
				(int)(100.0 * (double)bytes / (double)opt.size),
				duration(a, sizeof a, left / avg));
		}
		fputc(opt.status_file ? '\n' : '\r', status);
	} else {
		localtime_r(&now, &tm);
		strftime(d, sizeof d, "%a %b %e %H:%M:%S %Y", &tm);
		fprintf(status, "%s: %s %s/second (%s)%c",
			duration(a, sizeof a, t), amount(b, sizeof b, bytes),
			amount(c, sizeof c, rate), d,
			opt.status_file ? '\n' : '\r');
	}
	fflush(status);
}

static void
add_sample(double at, uint64_t bytes)
{
	if (tick.n == tick.cap) {
		size_t cap = tick.cap ? 2 * tick.cap : 1024;
		double *a = realloc(tick.at, cap * sizeof *a);
		uint64_t *b;

		if (a == NULL)
			return;
		tick.at = a;
		b = realloc(tick.bytes, cap * sizeof *b);
		if (b == NULL)
			return;
		tick.bytes = b;
		tick.cap = cap;
	}
	tick.at[tick.n] = at;
	tick.bytes[tick.n++] = bytes;
}

static void *
ticker(void *unused)
{
	struct timespec next = tick.run->start;
	long step = tick.sample ? SAMPLE_NS : 1000000000L;
	unsigned per_second = tick.sample ? SAMPLES_PER_SECOND : 1, k = 0;
	uint64_t now, second_ago = 0;

	(void)unused;
	for (;;) {
		next.tv_nsec += step;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		pthread_mutex_lock(&tick.lock);
		while (!tick.done &&
		       pthread_cond_timedwait(&tick.wake, &tick.lock, &next) !=
			   ETIMEDOUT)
			;
		if (tick.done) {
			pthread_mutex_unlock(&tick.lock);
			return NULL;
		}
		now = atomic_load_explicit(&moved, memory_order_relaxed);
		k++;
		if (tick.sample)
			add_sample(seconds(&tick.run->start, &next), now);
		if (tick.display && k % per_second == 0) {
			print_running(seconds(&tick.run->start, &next), now,
				      (double)(now - second_ago));
			second_ago = now;
		}
		pthread_mutex_unlock(&tick.lock);
	}
}

static void
ticker_start(const struct run *r, int display)
{
	pthread_condattr_t attr;
	sigset_t all, old;

	tick.run = r;
	tick.display = display;
	tick.sample = opt.json;
	if (!tick.display && !tick.sample)
		return;
	/* The ticks are on the clock the run is timed by. */
	if (pthread_condattr_init(&attr) != 0 ||
	    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&tick.wake, &attr) != 0) {
		tick.display = tick.sample = 0;
		return;
	}
	pthread_condattr_destroy(&attr);
	/* Signals are for the data path: a SIGINT must interrupt it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	tick.started = pthread_create(&tick.thread, NULL, ticker, NULL) == 0;
	if (!tick.started)
		tick.display = tick.sample = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The ticker prints nothing more and is gone when this returns. */
static void
ticker_stop(void)
{
	pthread_mutex_lock(&tick.lock);
	tick.done = 1;
	if (tick.started)
		pthread_cond_signal(&tick.wake);
	pthread_mutex_unlock(&tick.lock);
	if (tick.started)
		pthread_join(tick.thread, NULL);
	tick.started = 0;
}

/*
 * Stream verification. The expected bytes are kept as one buffer: the
 * file's contents, or the line repeated to at least 64 KiB so that a
 * received chunk is compared with a few long memcmp() calls.
 */
static struct {
	char *buf;
	size_t len, pos; /* pos: offset in buf of the next expected byte */
	size_t period;	 /* the line's length when repeating, else 0 */
	uint64_t period_lines;
} expect;

/* LFs in p[0..n), a word at a time (--lines over long streams). */
static uint64_t
count_lines(const char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = ones << 7,
		       low = ~high;
	uint64_t c = 0, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		w ^= ones * '\n';
		/* High bit of each byte set unless that byte was an LF. */
		w = ((w & low) + low) | w;
		c += (uint64_t)__builtin_popcountll(~w & high);
	}
	while (n--)
		c += *p++ == '\n';
	return c;
}

static int
load_expected(void)
{
	size_t cap = 1 << 16, i;
	ssize_t n;
	int fd;

	if (opt.expect_line != NULL) {
		expect.period = strlen(opt.expect_line) + 1;
		expect.len = expect.period * (cap / expect.period + 1);
		expect.buf = malloc(expect.len);
		if (expect.buf == NULL)
			return -1;
		for (i = 0; i < expect.len; i += expect.period) {
			memcpy(expect.buf + i, opt.expect_line,
			       expect.period - 1);
			expect.buf[i + expect.period - 1] = '\n';
		}
		expect.period_lines = count_lines(expect.buf, expect.period);
		return 0;
	}
	fd = open(opt.expect_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	expect.buf = malloc(cap);
	for (;;) {
		if (expect.buf == NULL) {
			errno = ENOMEM;
			break;
		}
		n = fio_read(fd, expect.buf + expect.len, cap - expect.len);
		if (n <= 0) {
			close(fd);
			return (int)n;
		}
		expect.len += (size_t)n;
		if (expect.len == cap)
			expect.buf = realloc(expect.buf, cap *= 2);
	}
	close(fd);
	return -1;
}

/* Lines of the stream before offset off (it matched up to there). */
static uint64_t
lines_before(uint64_t off)
{
	if (expect.period == 0)
		return count_lines(expect.buf, (size_t)off);
	return off / expect.period * expect.period_lines +
	       count_lines(expect.buf, (size_t)(off % expect.period));
}

/* "WHAT: "LINE"" for the line around p[at], control bytes escaped. */
static void
show_line(const char *what, const char *p, size_t len, size_t at)
{
	size_t start = at, end = at, i;

	while (start > 0 && p[start - 1] != '\n' && at - start < 60)
		start--;
	while (end < len && p[end] != '\n' && end - start < 120)
		end++;
	fprintf(stderr, "%s: %s: \"", program_name, what);
	for (i = start; i < end; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '"' || c == '\\')
			fprintf(stderr, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputs("\"\n", stderr);
}

/* Compare len bytes received at stream offset base; report a mismatch. */
static int
verify(const char *p, size_t len, uint64_t base)
{
	size_t i = 0, n, k;

	while (i < len) {
		if (expect.pos == expect.len) {
			if (expect.period == 0) {
				fprintf(
				    stderr,
				    "%s: mismatch at byte %llu, line %llu: "
				    "%s has ended\n",
				    program_name,
				    (unsigned long long)(base + i),
				    (unsigned long long)lines_before(base + i) +
					1,
				    prog_quote(opt.expect_file));
				return -1;
			}
			expect.pos = 0;
		}
		n = expect.len - expect.pos;
		if (n > len - i)
			n = len - i;
		if (memcmp(p + i, expect.buf + expect.pos, n) != 0) {
			for (k = 0; p[i + k] == expect.buf[expect.pos + k]; k++)
				;
			fprintf(
			    stderr, "%s: mismatch at byte %llu, line %llu\n",
			    program_name, (unsigned long long)(base + i + k),
			    (unsigned long long)lines_before(base + i + k) + 1);
			show_line("expected", expect.buf, expect.len,
				  expect.pos + k);
			show_line("received", p, len, i + k);
			return -1;
		}
		expect.pos += n;
		i += n;
	}
	return 0;
}

/* At EOF: an --expect-file stream must not be short. */
static int
verify_end(uint64_t bytes)
{
	if (expect.buf == NULL || expect.period || expect.pos == expect.len)
		return 0;
	fprintf(stderr,
		"%s: stream ended at byte %llu, line %llu: %s is longer\n",
		program_name, (unsigned long long)bytes,
		(unsigned long long)lines_before(bytes) + 1,
		prog_quote(opt.expect_file));
	return -1;
}

/* How many of n more bytes --bytes lets pass; at 0 the run is stopped. */
static size_t
room(struct run *r, size_t n)
{
	if (opt.max_bytes && opt.max_bytes - r->bytes < n)
		n = (size_t)(opt.max_bytes - r->bytes);
	if (n == 0)
		r->stopped = 1;
	return n;
}

/* How many of the n bytes at p --lines lets pass; sets stopped. */
static size_t
line_room(struct run *r, const char *p, size_t n)
{
	const char *lf;
	uint64_t c;

	if (!opt.max_lines)
		return n;
	c = count_lines(p, n);
	if (r->lines + c >= opt.max_lines) {
		for (lf = p - 1; r->lines < opt.max_lines; r->lines++)
			lf = memchr(lf + 1, '\n', (size_t)(p + n - lf - 1));
		r->stopped = 1;
		return (size_t)(lf + 1 - p);
	}
	r->lines += c;
	return n;
}

static void
count(struct run *r, size_t n)
{
	if (r->bytes == 0)
		clock_gettime(CLOCK_MONOTONIC, &r->first);
	r->bytes += n;
	atomic_store_explicit(&moved, r->bytes, memory_order_relaxed);
}

/*
 * Splice pass-through, one syscall per chunk. Returns 0 when done, 1 when
 * read()/write() must go on: splice refused, failed (it moved nothing, so
 * they redo the step and their error names the side) or returned 0 (which
 * only a read can confirm as the end).
 */
static int
pass_through(struct run *r)
{
	size_t want;
	ssize_t n;

	while (!interrupted) {
		want = room(r, FIO_PASS_CHUNK);
		if (want == 0)
			return 0;
		n = splice(r->in.fd, NULL, r->out.fd, NULL, want, 0);
		if (n > 0)
			count(r, (size_t)n);
		else if (n == 0 || errno != EINTR)
			return 1;
	}
	return 0;
}

/* Copy through a buffer. Returns 0, or -1 after a message. */
static int
copy(struct run *r, char *buf)
{
	ssize_t n, w;
	size_t k, done;

	while (!r->stopped && !interrupted) {
		k = room(r, opt.bufsize);
		if (k == 0)
			break;
		n = read(r->in.fd, buf, k);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			prog_warn(errno, opt.exec || opt.compare
					     ? "read error"
					     : "standard input");
			return -1;
		}
		if (n == 0)
			return verify_end(r->bytes);
		k = line_room(r, buf, (size_t)n);
		if (expect.buf != NULL && verify(buf, k, r->bytes) < 0)
			return -1;
		for (done = 0; done < k; done += (size_t)w) {
			w = write(r->out.fd, buf + done, k - done);
			if (w < 0 && errno == EINTR && !interrupted)
				w = 0;
			else if (w < 0 && errno == EINTR)
				break;
			else if (w < 0) {
				count(r, done);
				prog_warn(errno, "write error");
				return -1;
			}
		}
		count(r, done);
	}
	return 0;
}

/*
 * Move in to out, measuring. Splice serves pipe to pipe, pipe to
 * /dev/null and file to pipe; everything else, and whatever needs to see
 * the bytes, is copied. Returns 0, or -1 after a message.
 */
static int
measure(struct run *r, char *buf)
{
	int splice_ok, rc = 1;

	(void)fio_classify(r->in.fd, &r->in);
	(void)fio_classify(r->out.fd, &r->out);
	/* An empty output file only looks like a lying /proc file. */
	if (r->out.kind == FIO_SPECIAL)
		r->out.kind = FIO_REGULAR;
	if (r->in.kind == FIO_PIPE)
		r->in.pipe_size = fio_pipe_grow(r->in.fd, FIO_PIPE_SIZE);
	if (r->out.kind == FIO_PIPE)
		r->out.pipe_size = fio_pipe_grow(r->out.fd, FIO_PIPE_SIZE);
	splice_ok = !opt.touch && !opt.max_lines && expect.buf == NULL &&
		    fio_enabled(FIO_SPLICE) && !(r->out.flags & FIO_APPEND) &&
		    ((r->in.kind == FIO_PIPE && (r->out.kind == FIO_PIPE ||
						 r->out.kind == FIO_DEVNULL)) ||
		     (r->in.kind == FIO_REGULAR && r->out.kind == FIO_PIPE));
	r->mode = splice_ok ? MODE_SPLICE : MODE_COPY;
	if (splice_ok)
		rc = pass_through(r);
	if (rc == 1) {
		if (r->bytes == 0)
			r->mode = MODE_COPY;
		rc = copy(r, buf);
	}
	clock_gettime(CLOCK_MONOTONIC, &r->end);
	return rc;
}

/* "pipe of 1048576 bytes", "devnull", ... */
static const char *
describe(char *buf, size_t size, const struct fio_fd *f)
{
	if (f->kind == FIO_PIPE && f->pipe_size)
		snprintf(buf, size, "pipe of %zu bytes", f->pipe_size);
	else
		snprintf(buf, size, "%s", fio_kind_name(f->kind));
	return buf;
}

static void
print_summary(const struct run *r)
{
	char a[64], b[32], c[32];
	double t = seconds(&r->start, &r->end);

	/* Blank the running line; 0.40 ends the blanks with LF in files. */
	fprintf(status, "%79s%cSummary:\nPiped %s in %s: %s/second\n", "",
		opt.status_file ? '\n' : '\r',
		amount(a, sizeof a, (double)r->bytes), duration(b, sizeof b, t),
		amount(c, sizeof c, t > 0 ? (double)r->bytes / t : 0));
	fprintf(status, "Mode: %s, input %s, ",
		r->mode == MODE_SPLICE ? "splice" : "copy",
		describe(a, sizeof a, &r->in));
	fprintf(status, "output %s\n", describe(a, sizeof a, &r->out));
}

static void
json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value below which a fraction q of the sorted v lies (nearest rank). */
static double
rank(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);

	return n == 0 ? 0 : v[i == 0 ? 0 : i - 1];
}

/* Rates of the sample intervals that lie between first byte and end. */
static void
print_samples(FILE *f, const struct run *r)
{
	double first = seconds(&r->start, &r->first),
	       end = seconds(&r->start, &r->end), *v, sum = 0;
	size_t i, n = 0;

	v = malloc((tick.n + 1) * sizeof *v);
	for (i = 1; v != NULL && i < tick.n; i++)
		if (tick.at[i - 1] >= first && tick.at[i] <= end) {
			v[n] = (double)(tick.bytes[i] - tick.bytes[i - 1]) /
			       (tick.at[i] - tick.at[i - 1]);
			sum += v[n++];
		}
	fprintf(f, ",\"samples\":{\"interval\":%.3f,\"count\":%zu,\"rates\":[",
		(double)SAMPLE_NS / 1e9, n);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.0f", i ? "," : "", v[i]);
	fputc(']', f);
	if (n > 0) {
		qsort(v, n, sizeof *v, cmp_double);
		fprintf(f,
			",\"min\":%.0f,\"avg\":%.0f,\"max\":%.0f,\"p50\":%.0f,"
			"\"p90\":%.0f,\"p99\":%.0f",
			v[0], sum / (double)n, v[n - 1], rank(v, n, 0.5),
			rank(v, n, 0.9), rank(v, n, 0.99));
	}
	fputc('}', f);
	free(v);
}

/* --json: one line, the last of the status output. */
static void
print_json(const struct run *r, int producer)
{
	double t = r->bytes ? seconds(&r->first, &r->end) : 0;

	fprintf(status, "{\"bytes\":%llu", (unsigned long long)r->bytes);
	if (opt.max_lines)
		fprintf(status, ",\"lines\":%llu",
			(unsigned long long)r->lines);
	else if (expect.buf != NULL)
		fprintf(status, ",\"lines\":%llu",
			(unsigned long long)lines_before(r->bytes));
	fprintf(status, ",\"seconds\":%.6f,\"rate\":%.0f,\"mode\":\"%s\"", t,
		t > 0 ? (double)r->bytes / t : 0,
		r->mode == MODE_SPLICE ? "splice" : "copy");
	fprintf(status, ",\"input\":\"%s\",\"output\":\"%s\"",
		fio_kind_name(r->in.kind), fio_kind_name(r->out.kind));
	fprintf(status, ",\"input_pipe_size\":%zu,\"output_pipe_size\":%zu",
		r->in.pipe_size, r->out.pipe_size);
	fprintf(status, ",\"buffer\":%zu,\"stopped\":%s", opt.bufsize,
		r->stopped ? "true" : "false");
	if (opt.exec) {
		if (WIFSIGNALED(producer))
			fprintf(status, ",\"producer_signal\":%d",
				WTERMSIG(producer));
		else
			fprintf(status, ",\"producer_status\":%d",
				WEXITSTATUS(producer));
	}
	print_samples(status, r);
	fputs("}\n", status);
}

/* N with GNU's suffixes, as head -c takes it. */
static int
parse_count(const char *s, uint64_t *v)
{
	static const char suffixes[] = "KMGTPE";
	unsigned long long n;
	uint64_t mult = 1, base = 1024;
	const char *p;
	char *end;
	int i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (strcmp(end, "b") == 0) {
		mult = 512;
	} else if (*end != '\0') {
		p = strchr(suffixes, *end == 'k' ? 'K' : *end);
		if (p == NULL)
			return -1;
		if (strcmp(end + 1, "B") == 0)
			base = 1000;
		else if (end[1] != '\0' && strcmp(end + 1, "iB") != 0)
			return -1;
		for (i = 0; i <= p - suffixes; i++)
			mult *= base;
	}
	if (n != 0 && mult > UINT64_MAX / n)
		return -1;
	*v = n * mult;
	return 0;
}

/*
 * Start a producer writing into a pipe of ours, grown before its first
 * byte. cmd is a shell command (compare) or argv (exec).
 */
static pid_t
start_producer(const char *cmd, char *const argv[], int *fd)
{
	int p[2], null;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	(void)fio_pipe_grow(p[1], FIO_PIPE_SIZE);
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		dup2(p[1], STDOUT_FILENO);
		if (cmd != NULL) {
			null = open("/dev/null", O_RDONLY);
			if (null >= 0)
				dup2(null, STDIN_FILENO);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* We stop reading at --bytes: the producer ends as with head.
		 */
		signal(SIGPIPE, SIG_DFL);
		if (cmd != NULL)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		else
			execvp(argv[0], argv);
		prog_warn(errno, "%s", prog_quote(cmd ? "/bin/sh" : argv[0]));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	*fd = p[0];
	return pid;
}

/*
 * A producer's end: 0 if it exited 0, or died of SIGPIPE after we stopped
 * reading; else a message and its status (128 + signal if killed).
 */
static int
producer_result(const char *name, int wstatus, const struct run *r)
{
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
		return 0;
	/* A shell reports its command's SIGPIPE as status 128 + 13. */
	if (((WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGPIPE) ||
	     (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 128 + SIGPIPE)) &&
	    (r->stopped || interrupted))
		return 0;
	if (WIFSIGNALED(wstatus)) {
		prog_warn(0, "%s: killed by signal %d", name,
			  WTERMSIG(wstatus));
		return 128 + WTERMSIG(wstatus);
	}
	prog_warn(0, "%s: exit status %d", name, WEXITSTATUS(wstatus));
	return WEXITSTATUS(wstatus);
}

/* amount() without the padding, for tables. */
static const char *
trimmed(char *buf, size_t size, double v)
{
	const char *s = amount(buf, size, v);

	return s + strspn(s, " ");
}

/* A Markdown table cell: '|' escaped; commands as code. */
static void
cell(const char *s, int code)
{
	if (code)
		putchar('`');
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s == '\n' ? ' ' : *s);
	}
	if (code)
		putchar('`');
}

/* --compare: each command's runs, interleaved, then a Markdown table. */
static int
compare(char **cmds, int n, char *buf)
{
	double *rate = calloc((size_t)n * opt.runs, sizeof *rate),
	       *secs = calloc((size_t)n * opt.runs, sizeof *secs), t, base = 0;
	struct timespec spawned, ended;
	unsigned round, total = opt.warmup + opt.runs;
	int i, j, null, fd, wstatus, rc = 0, bad,
				     *order = calloc((size_t)n, sizeof *order);
	char a[32], b[32], c[32];
	struct run r;
	pid_t pid;

	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (rate == NULL || secs == NULL || order == NULL || null < 0) {
		prog_warn(errno, "compare");
		rc = EXIT_FAILURE;
		goto out;
	}
	for (j = 0; j < n; j++)
		order[j] = j;
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	for (round = 0; round < total && !interrupted; round++) {
		/* What a run leaves behind (page cache to free, writeback)
		 * can slow the next: --shuffle spreads that over everyone. */
		for (j = n - 1; opt.shuffle && j > 0; j--) {
			int k = (int)(random() % (j + 1)), t = order[j];

			order[j] = order[k];
			order[k] = t;
		}
		for (j = 0; j < n && !interrupted; j++) {
			i = order[j];
			memset(&r, 0, sizeof r);
			if (expect.buf != NULL)
				expect.pos = 0;
			clock_gettime(CLOCK_MONOTONIC, &spawned);
			pid = start_producer(cmds[i], NULL, &fd);
			if (pid < 0) {
				prog_warn(errno, "%s", prog_quote(cmds[i]));
				rc = EXIT_FAILURE;
				goto out;
			}
			r.start = spawned;
			r.in.fd = fd;
			r.out.fd = null;
			bad = measure(&r, buf) < 0;
			close(fd);
			while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
				;
			clock_gettime(CLOCK_MONOTONIC, &ended);
			if (producer_result(cmds[i], wstatus, &r) != 0 || bad)
				rc = EXIT_FAILURE;
			t = opt.wall  ? seconds(&spawned, &ended)
			    : r.bytes ? seconds(&r.first, &r.end)
				      : 0;
			if (!opt.quiet)
				fprintf(
				    stderr, "%s %u/%u: %s: %s in %.3f s\n",
				    round < opt.warmup ? "warmup" : "run",
				    round < opt.warmup ? round + 1
						       : round - opt.warmup + 1,
				    round < opt.warmup ? opt.warmup : opt.runs,
				    cmds[i],
				    amount(a, sizeof a, (double)r.bytes), t);
			if (round < opt.warmup)
				continue;
			secs[i * opt.runs + round - opt.warmup] = t;
			rate[i * opt.runs + round - opt.warmup] =
			    t > 0 ? (double)(opt.size ? opt.size : r.bytes) / t
				  : 0;
		}
	}
	if (interrupted) {
		rc = 128 + SIGINT;
		goto out;
	}
	printf("| command | rate (median) | min - max | time (median) | "
	       "vs first |\n|:--|--:|--:|--:|--:|\n");
	if (opt.json)
		fputs("{\"results\":[", status);
	for (i = 0; i < n; i++) {
		double *v = rate + i * opt.runs, *s = secs + i * opt.runs, m;
		unsigned k;

		qsort(v, opt.runs, sizeof *v, cmp_double);
		qsort(s, opt.runs, sizeof *s, cmp_double);
		m = (v[(opt.runs - 1) / 2] + v[opt.runs / 2]) / 2;
		if (i == 0)
			base = m;
		if (opt.json) {
			fputs(i ? ",{\"command\":" : "{\"command\":", status);
			json_string(status, cmds[i]);
			if (i < opt.nnames) {
				fputs(",\"name\":", status);
				json_string(status, opt.names[i]);
			}
			fprintf(status,
				",\"median\":%.0f,\"min\":%.0f,\"max\":%.0f,"
				"\"ratio\":%.4f,\"rates\":[",
				m, v[0], v[opt.runs - 1],
				base > 0 ? m / base : 0);
			for (k = 0; k < opt.runs; k++)
				fprintf(status, "%s%.0f", k ? "," : "", v[k]);
			fputs("]}", status);
		}
		fputs("| ", stdout);
		cell(i < opt.nnames ? opt.names[i] : cmds[i], i >= opt.nnames);
		printf(" | %s/s | %s - %s/s | %.3f s | %.2f |\n",
		       trimmed(a, sizeof a, m), trimmed(b, sizeof b, v[0]),
		       trimmed(c, sizeof c, v[opt.runs - 1]),
		       (s[(opt.runs - 1) / 2] + s[opt.runs / 2]) / 2,
		       base > 0 ? m / base : 0);
	}
	if (opt.json)
		fputs("]}\n", status);
	rc |= prog_close_stdout();
out:
	if (null >= 0)
		close(null);
	free(order);
	free(rate);
	free(secs);
	return rc;
}

int
main(int argc, char *argv[])
{
	enum {
		OPT_BYTES = 256,
		OPT_LINES,
		OPT_EXPECT_LINE,
		OPT_EXPECT_FILE,
		OPT_TOUCH,
		OPT_JSON,
		OPT_SIZE,
		OPT_EXEC,
		OPT_COMPARE,
		OPT_RUNS,
		OPT_WARMUP,
		OPT_WALL,
		OPT_SHUFFLE,
		OPT_NAME,
		OPT_HELP,
		OPT_VERSION
	};
	static const struct option longopts[] = {
	    {"bytes", required_argument, NULL, OPT_BYTES},
	    {"lines", required_argument, NULL, OPT_LINES},
	    {"expect-line", required_argument, NULL, OPT_EXPECT_LINE},
	    {"expect-file", required_argument, NULL, OPT_EXPECT_FILE},
	    {"touch", no_argument, NULL, OPT_TOUCH},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"progress", no_argument, NULL, 'p'},
	    {"size", required_argument, NULL, OPT_SIZE},
	    {"exec", no_argument, NULL, OPT_EXEC},
	    {"compare", no_argument, NULL, OPT_COMPARE},
	    {"runs", required_argument, NULL, OPT_RUNS},
	    {"warmup", required_argument, NULL, OPT_WARMUP},
	    {"wall", no_argument, NULL, OPT_WALL},
	    {"shuffle", no_argument, NULL, OPT_SHUFFLE},
	    {"name", required_argument, NULL, OPT_NAME},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	struct sigaction sa;
	struct run r;
	char *buf, *end;
	int c, rc, wstatus = 0, display;
	uint64_t v;
	pid_t pid = -1;

	prog_init(argv[0]);
	prog_locale();
	while ((c = getopt_long(argc, argv, "ehqQob:rs:S:Iup", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			break;
		case 'h':
		case OPT_HELP:
			return usage(EXIT_SUCCESS);
		case 'q':
			opt.quiet = 1;
			break;
		case 'Q':
			opt.quiet = opt.no_summary = 1;
			break;
		case 'o':
			opt.no_summary = 1;
			break;
		case 'b':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || *optarg < '0' ||
			    *optarg > '9' || v == 0 || v > FIO_MAX_IO) {
				prog_warn(0, "invalid buffer size: %s",
					  prog_quote(optarg));
				return usage(EXIT_FAILURE);
			}
			opt.bufsize = (size_t)v;
			break;
		case 'r':
			opt.raw = 1;
			break;
		case 's':
		case 'S':
			opt.status_file = optarg;
			opt.status_append = c == 'S';
			break;
		case 'I':
			opt.si = 1;
			break;
		case 'u':
			opt.no_units = 1;
			break;
		case 'p':
			opt.progress = 1;
			break;
		case OPT_BYTES:
		case OPT_LINES:
		case OPT_SIZE:
			if (parse_count(optarg, &v) < 0 || v == 0) {
				prog_warn(0, "invalid number of %s: %s",
					  c == OPT_LINES ? "lines" : "bytes",
					  prog_quote(optarg));
				return usage(EXIT_FAILURE);
			}
			*(c == OPT_BYTES   ? &opt.max_bytes
			  : c == OPT_LINES ? &opt.max_lines
					   : &opt.size) = v;
			break;
		case OPT_RUNS:
		case OPT_WARMUP:
			if (parse_count(optarg, &v) < 0 ||
			    v > (c == OPT_RUNS ? 100000 : 1000) ||
			    (c == OPT_RUNS && v == 0)) {
				prog_warn(0, "invalid number of runs: %s",
					  prog_quote(optarg));
				return usage(EXIT_FAILURE);
			}
			*(c == OPT_RUNS ? &opt.runs : &opt.warmup) =
			    (unsigned)v;
			break;
		case OPT_EXPECT_LINE:
			opt.expect_line = optarg;
			break;
		case OPT_EXPECT_FILE:
			opt.expect_file = optarg;
			break;
		case OPT_TOUCH:
			opt.touch = 1;
			break;
		case OPT_JSON:
			opt.json = 1;
			break;
		case OPT_EXEC:
			opt.exec = 1;
			break;
		case OPT_COMPARE:
			opt.compare = 1;
			break;
		case OPT_WALL:
			opt.wall = 1;
			break;
		case OPT_SHUFFLE:
			opt.shuffle = 1;
			break;
		case OPT_NAME:
			opt.names =
			    realloc(opt.names, (size_t)(opt.nnames + 1) *
						   sizeof *opt.names);
			if (opt.names == NULL) {
				prog_warn(0, "memory exhausted");
				return EXIT_FAILURE;
			}
			opt.names[opt.nnames++] = optarg;
			break;
		case OPT_VERSION:
			prog_version("pipebench");
			return prog_close_stdout();
		default:
			return usage(EXIT_FAILURE);
		}
	}
	if (opt.exec && opt.compare) {
		prog_warn(0, "--exec and --compare are exclusive");
		return usage(EXIT_FAILURE);
	}
	if ((opt.exec || opt.compare) && optind == argc) {
		prog_warn(0, "missing command");
		return usage(EXIT_FAILURE);
	}
	if (!opt.exec && !opt.compare && optind < argc) {
		prog_warn(0, "extra operand %s", prog_quote(argv[optind]));
		return usage(EXIT_FAILURE);
	}
	if (opt.expect_line != NULL && opt.expect_file != NULL) {
		prog_warn(0, "--expect-line and --expect-file are exclusive");
		return usage(EXIT_FAILURE);
	}

	status = stderr;
	if (opt.status_file != NULL) {
		status =
		    fopen(opt.status_file, opt.status_append ? "ae" : "we");
		if (status == NULL) {
			prog_warn(errno, "%s", prog_quote(opt.status_file));
			return EXIT_FAILURE;
		}
	}
	if ((opt.expect_line || opt.expect_file) && load_expected() < 0) {
		prog_warn(errno, "%s", prog_quote(opt.expect_file));
		return EXIT_FAILURE;
	}
	buf = malloc(opt.bufsize);
	if (buf == NULL) {
		prog_warn(0, "memory exhausted");
		return EXIT_FAILURE;
	}
	(void)fio_init();

	/* No SA_RESTART: a SIGINT must interrupt a waiting splice or read. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, NULL);
	if (opt.compare) {
		rc = compare(argv + optind, argc - optind, buf);
		free(buf);
		free(expect.buf);
		free(opt.names);
		return rc;
	}

	memset(&r, 0, sizeof r);
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	r.in.fd = STDIN_FILENO;
	r.out.fd = STDOUT_FILENO;
	if (opt.exec) {
		pid = start_producer(NULL, argv + optind, &r.in.fd);
		if (pid < 0) {
			prog_warn(errno, "%s", prog_quote(argv[optind]));
			free(buf);
			return EXIT_FAILURE;
		}
	}
	if (!opt.size && !opt.exec && fio_classify(STDIN_FILENO, &r.in) == 0 &&
	    r.in.kind == FIO_REGULAR) {
		off_t at = lseek(STDIN_FILENO, 0, SEEK_CUR);

		if (at >= 0 && at < r.in.st.st_size)
			opt.size = (uint64_t)(r.in.st.st_size - at);
	}
	if (opt.max_bytes && opt.size > opt.max_bytes)
		opt.size = opt.max_bytes;
	display = !opt.quiet && (opt.raw || opt.progress || opt.status_file ||
				 isatty(STDERR_FILENO));
	if (display && !opt.progress && !isatty(STDERR_FILENO))
		opt.size = 0; /* Habets' line in status files, unless -p */
	ticker_start(&r, display);
	rc = measure(&r, buf) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	ticker_stop();
	if ((rc == EXIT_SUCCESS || interrupted) && !opt.no_summary && !opt.raw)
		print_summary(&r);
	if (pid > 0) {
		close(r.in.fd);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		c = producer_result(argv[optind], wstatus, &r);
		if (rc == EXIT_SUCCESS)
			rc = c;
	}
	if (opt.json)
		print_json(&r, wstatus);
	if (status != stderr && fclose(status) != 0) {
		prog_warn(errno, "%s", prog_quote(opt.status_file));
		rc = EXIT_FAILURE;
	}
	if (interrupted) {
		/* Die of the SIGINT, so that a calling shell stops too. */
		fflush(stderr);
		signal(SIGINT, SIG_DFL);
		raise(SIGINT);
	}
	free(buf);
	free(expect.buf);
	free(opt.names);
	free(tick.at);
	free(tick.bytes);
	return rc | prog_close_stdout();
}
