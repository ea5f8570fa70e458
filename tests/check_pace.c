/* SPDX-License-Identifier: MIT */
/*
 * Pacing's decision (src/fastio/pace.c, fio_pace_begin and
 * fio_pace_next, and the spin's, fio_spin_begin and fio_spin_end), with
 * made-up clocks: each case is a reader's state and the looks of one or
 * more calls, and what each look must decide (the
 * sleep, or 0 to stop looking) and leave in the reader's state. Nothing
 * here depends on the machine; the whole, with real sleeps, is
 * check_pump's paced_reader (make check-timing).
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "fastio/fastio.h"
#include "fastio/pace.h"
#include "fastio/tune.h"
#include "spawn.h"

#define KIB  ((size_t)1 << 10)
#define SIZE (512 * KIB) /* the pipe */
#define US   1000u	 /* ns */

/* One look: what FIONREAD and the clock said, and what must follow. */
struct look {
	int call;      /* a new call of fio_pace starts with this look */
	size_t queued; /* bytes the pipe held */
	uint64_t now;  /* ns */
	uint64_t wait; /* the decision: ns to sleep, 0 to stop */
};

struct pace_case {
	const char *what;
	struct fio_pace before; /* the reader's state before the first call */
	uint64_t sent;		/* bytes written into the pipe by then */
	size_t want;		/* room wanted for the next splice */
	struct look looks[6];	/* up to a look with call = -1 */
	struct fio_pace after;	/* the state at the end */
};

/* A reader that takes 4 KiB every 10 us (400 MB/s): half a pipe in 1.28 ms. */
#define PACED                                                                  \
	{                                                                      \
		10 * US, 4 * KIB, 0, 0, 0, 0, 0                                \
	}

static const struct pace_case cases[] = {
    {"a new reader: the first look sleeps the shortest sleep to learn",
     {0, 0, 0, 0, 0, 0, 0},
     SIZE,
     SIZE,
     {{1, SIZE, 0, FIO_PACE_MIN_NS}, {-1, 0, 0, 0}},
     {0, 0, 0, 0, 0, 0, 0}},
    {"learnt between two looks: the sleep for the room still missing",
     {0, 0, 0, 0, 0, 0, 0},
     SIZE,
     SIZE,
     /* 40 KiB in 50 us + 10 late: 1.5 us a KiB; half a pipe is 256 KiB,
      * 216 KiB are missing: 324 us. */
     {{1, SIZE, 1000000, FIO_PACE_MIN_NS},
      {0, SIZE - 40 * KIB, 1060000, 216 * 60000 / 40},
      {-1, 0, 0, 0}},
     {60000, 40 * KIB, 10000, 0, 0, 0, 0}},
    {"the room is there: no sleep",
     PACED,
     SIZE,
     64 * KIB,
     {{1, SIZE - 100 * KIB, 0, 0}, {-1, 0, 0, 0}},
     PACED},
    {"a known pace: the first look sleeps by it",
     PACED,
     SIZE,
     64 * KIB,
     /* 64 KiB wanted, 16 KiB free: 48 KiB at 2.5 us a KiB. */
     {{1, SIZE - 16 * KIB, 0, 48 * 10 * US / 4}, {-1, 0, 0, 0}},
     PACED},
    {"a stall: the reader took nothing during our sleep",
     PACED,
     SIZE,
     SIZE,
     {{1, SIZE, 0, 256 * 10 * US / 4}, {0, SIZE, 700 * US, 0}, {-1, 0, 0, 0}},
     PACED},
    {"strike: half the pipe free at the first look",
     PACED,
     SIZE,
     SIZE,
     {{1, SIZE / 2, 0, 0}, {-1, 0, 0, 0}},
     {10 * US, 4 * KIB, 0, 1, 0, 0, 0}},
    {"strike: emptied within our sleep, its pace forgotten",
     PACED,
     SIZE,
     SIZE,
     {{1, SIZE, 0, 256 * 10 * US / 4}, {0, 0, 700 * US, 0}, {-1, 0, 0, 0}},
     {10 * US, 0, 60 * US, 1, 0, 0, 0}},
    {"strike: half a pipe lasts it less than a sleep and our lateness",
     {0, 0, 0, 0, 0, 0, 0},
     SIZE,
     SIZE,
     /* 256 KiB in 60 us: half a pipe in 60 us < 50 + 2 * 10. */
     {{1, SIZE, 0, FIO_PACE_MIN_NS},
      {0, SIZE - 256 * KIB + 4 * KIB, 60 * US, 0},
      {-1, 0, 0, 0}},
     {60 * US, 0, 10 * US, 1, 0, 0, 0}},
    {"two strikes in a row: left to the kernel, its pace forgotten",
     PACED,
     SIZE,
     SIZE,
     {{1, SIZE / 2, 0, 0}, {1, SIZE / 2, 100 * US, 0}, {-1, 0, 0, 0}},
     {10 * US, 0, 0, 0, FIO_PACE_SKIP, 0, 0}},
    {"a paced call between two strikes: they are not in a row",
     PACED,
     SIZE,
     SIZE,
     {{1, SIZE / 2, 0, 0},
      {1, SIZE - 4 * KIB, 100 * US, 252 * 10 * US / 4},
      {1, SIZE / 2, 900 * US, 0},
      {-1, 0, 0, 0}},
     {10 * US, 4 * KIB, 0, 1, 0, 0, 0}},
    /*
     * One late sleep is one strike, not two: the strike for a pace too
     * fast forgets the pace, so the next call's first look learns a new
     * one instead of striking again by the same lateness.
     */
    {"one late sleep, then a reader of small bites: learnt anew",
     {0, 0, 0, 0, 0, 0, 0},
     SIZE,
     SIZE,
     /* The sleep asked 50 us and lasted 600: 256 KiB in 600 us is
      * under 50 + 2 * 550; then the next call learns again. */
     {{1, SIZE, 0, FIO_PACE_MIN_NS},
      {0, SIZE - 256 * KIB + 4 * KIB, 600 * US, 0},
      {1, SIZE, 2000 * US, FIO_PACE_MIN_NS},
      {-1, 0, 0, 0}},
     {600 * US, 0, 550 * US, 1, 0, 0, 0}},
    {"too slow to matter: a sleep beyond the longest is not taken",
     {1000 * US, 1, 0, 0, 0, 0, 0},
     SIZE,
     SIZE,
     {{1, SIZE, 0, 0}, {-1, 0, 0, 0}},
     {1000 * US, 1, 0, 0, 0, 0, 0}},
    {"the wanted room is half a pipe at most",
     PACED,
     SIZE,
     4 * SIZE,
     {{1, SIZE - 8 * KIB, 0, 248 * 10 * US / 4}, {-1, 0, 0, 0}},
     PACED},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

START_TEST(decisions)
{
	const struct pace_case *c = &cases[_i];
	struct fio_pace pc = c->before;
	struct fio_pace_call call = {0, 0, 0, 0};
	struct fio_pace_look l = {SIZE, c->sent, c->want, 0, 0};
	const struct look *k;
	uint64_t wait;
	int n;

	for (k = c->looks, n = 1; k->call >= 0; k++, n++) {
		if (k->call) {
			call = (struct fio_pace_call){0, 0, 0, 0};
			ck_assert_msg(fio_pace_begin(&pc),
				      "%s: look %d skipped", c->what, n);
		}
		l.queued = k->queued;
		l.now = k->now;
		wait = fio_pace_next(&pc, &call, &l);
		ck_assert_msg(wait == k->wait,
			      "%s: look %d: wait %llu, not %llu", c->what, n,
			      (unsigned long long)wait,
			      (unsigned long long)k->wait);
	}
	ck_assert_msg(
	    pc.ns == c->after.ns && pc.taken == c->after.taken &&
		pc.late == c->after.late && pc.fast == c->after.fast &&
		pc.skip == c->after.skip,
	    "%s: ns %llu taken %llu late %llu fast %u skip %u, not "
	    "%llu %llu %llu %u %u",
	    c->what, (unsigned long long)pc.ns, (unsigned long long)pc.taken,
	    (unsigned long long)pc.late, pc.fast, pc.skip,
	    (unsigned long long)c->after.ns, (unsigned long long)c->after.taken,
	    (unsigned long long)c->after.late, c->after.fast, c->after.skip);
}
END_TEST

/*
 * The reset: a reader left to the kernel is not looked at for
 * FIO_PACE_SKIP calls, then looked at again, its pace learnt anew.
 */
START_TEST(skip_then_learn)
{
	struct fio_pace pc = {10 * US, 0, 0, 0, 3, 0, 0};
	struct fio_pace_call call = {0, 0, 0, 0};
	struct fio_pace_look l = {SIZE, SIZE, SIZE, SIZE, 0};

	ck_assert_int_eq(fio_pace_begin(&pc), 0);
	ck_assert_int_eq(fio_pace_begin(&pc), 0);
	ck_assert_int_eq(fio_pace_begin(&pc), 0);
	ck_assert_uint_eq(pc.skip, 0);
	ck_assert_int_eq(fio_pace_begin(&pc), 1);
	ck_assert_uint_eq(fio_pace_next(&pc, &call, &l), FIO_PACE_MIN_NS);
}
END_TEST

/*
 * The spin on a full pipe: every full pipe spins while the reader ends
 * the spins; one that runs out of time counts, a hit in between forgives
 * it, and two in a row leave the next FIO_SPIN_SKIP full pipes to the
 * kernel, then spinning starts again.
 */
START_TEST(spin_misses)
{
	struct fio_pace pc = {0, 0, 0, 0, 0, 0, 0};
	unsigned i;

	ck_assert_int_eq(fio_spin_begin(&pc), 1);
	fio_spin_end(&pc, 0);
	ck_assert_int_eq(fio_spin_begin(&pc), 1);
	fio_spin_end(&pc, 1);
	ck_assert_int_eq(fio_spin_begin(&pc), 1);
	fio_spin_end(&pc, 0);
	ck_assert_int_eq(fio_spin_begin(&pc), 1);
	fio_spin_end(&pc, 0);
	ck_assert_uint_eq(pc.idle, FIO_SPIN_SKIP);
	for (i = 0; i < FIO_SPIN_SKIP; i++)
		ck_assert_int_eq(fio_spin_begin(&pc), 0);
	ck_assert_int_eq(fio_spin_begin(&pc), 1);
	fio_spin_end(&pc, 0);
	ck_assert_uint_eq(pc.idle, 0);
}
END_TEST

static Suite *
pace_suite(void)
{
	Suite *s = suite_create("pace");
	TCase *tc = tcase_create("decisions");

	tcase_add_loop_test(tc, decisions, 0, NCASES);
	tcase_add_test(tc, skip_then_learn);
	tcase_add_test(tc, spin_misses);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(pace_suite());
}
