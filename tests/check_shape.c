/* SPDX-License-Identifier: MIT */
/*
 * The tee strategy's shape, chosen by measuring the reader
 * (src/fastio/shape.c, fio_shape_begin and fio_shape_next), with made-up
 * readers: each case is how fast a reader takes each shape, window by
 * window, and what the choice must be. Nothing here depends on the
 * machine; the machine's own readers are make bench's.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "fastio/shape.h"
#include "spawn.h"

#define WIN FIO_SHAPE_WINDOWS
#define H   FIO_SHAPE_HOT
#define D   FIO_SHAPE_DIRECT
#define G   FIO_SHAPE_GULP
#define V   FIO_SHAPE_VMSPLICE
/* The tee() shapes; with VD, the vmsplice() shapes as tee.c allows them. */
#define ALL 0xffu
#define VD  (V | D)
#define VMS (1u << VD | 1u << (VD | G))
/* The windows of a try that loses: it ends once more than half its
 * windows were no faster than the best, since its median cannot be. */
#define LOST (WIN / 2 + 1)

/* A made-up reader: its rate for each shape, bytes per microsecond. */
struct reader {
	uint64_t rate[FIO_SHAPES];
};

/* One window of the shape st asks for, at the reader's rate times num
 * over den: FIO_SHAPE_WINDOW_BYTES bytes in the time that takes. */
static unsigned
window_at(struct fio_shapes *st, const struct reader *rd, uint64_t num,
	  uint64_t den)
{
	return fio_shape_next(st, FIO_SHAPE_WINDOW_BYTES,
			      FIO_SHAPE_WINDOW_BYTES * 1000 * den /
				  (rd->rate[st->shape] * num));
}

static unsigned
window(struct fio_shapes *st, const struct reader *rd)
{
	return window_at(st, rd, 1, 1);
}

/* Windows until the choice settles (at most max); the shapes run. */
static unsigned
settle(struct fio_shapes *st, const struct reader *rd, unsigned max,
       unsigned *ran)
{
	unsigned n;

	for (n = 0; n < max && !fio_shape_settled(st); n++) {
		*ran |= 1u << st->shape;
		window_at(st, rd, 1, 1);
	}
	return n;
}

struct choice_case {
	const char *what;
	unsigned allowed, first;
	struct reader rd;
	int fast, nfast;  /* windows (from 0) fifty times as fast */
	int slow;	  /* a window fifty times as slow, or -1 */
	unsigned other;	  /* the other source's first, plus one; 0: none */
	unsigned choice;  /* what the first probe must settle on */
	unsigned windows; /* the windows it takes */
	unsigned never;	  /* shapes it must never run */
};

static const struct choice_case choices[] = {
    {.what = "the fastest, three bits away: found bit by bit",
     .allowed = ALL,
     .first = 0,
     .rd = {{10, 12, 11, 14, 9, 13, 8, 20}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .choice = H | D | G,
     .windows = 4 * WIN,
     .never = 0},
    {.what =
	 "the first is the fastest: it stays; tries that cannot win end early",
     .allowed = ALL,
     .first = 0,
     .rd = {{20, 12, 11, 14, 9, 13, 8, 19}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .choice = 0,
     .windows = WIN + 3 * LOST,
     .never = 0},
    {.what = "one bit better: only that bit changes",
     .allowed = ALL,
     .first = 0,
     .rd = {{10, 9, 15, 12, 9, 8, 14, 13}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .choice = D,
     .windows = 2 * WIN + 2 * LOST,
     .never = 0},
    {.what = "a single window fifty times as fast decides nothing",
     .allowed = ALL,
     .first = 0,
     .rd = {{10, 8, 9, 9, 9, 9, 9, 9}},
     .fast = WIN,
     .nfast = 1,
     .slow = -1,
     .choice = 0,
     .windows = WIN + 1 + 3 * LOST,
     .never = 0},
    {.what =
	 "a single window of the choice fifty times as slow decides nothing",
     .allowed = ALL,
     .first = 0,
     .rd = {{10, 8, 9, 9, 9, 9, 9, 9}},
     .fast = 0,
     .nfast = 0,
     .slow = 1,
     .choice = 0,
     .windows = WIN + 3 * LOST,
     .never = 0},
    {.what =
	 "a single window of a faster try fifty times as slow decides nothing",
     .allowed = ALL,
     .first = 0,
     .rd = {{10, 20, 9, 9, 9, 9, 9, 9}},
     .fast = 0,
     .nfast = 0,
     .slow = WIN,
     .choice = H,
     .windows = 2 * WIN + 2 * LOST,
     .never = 0},
    {.what = "most of a try fast is fast: the median is the try's rate",
     .allowed = ALL,
     .first = 0,
     .rd = {{10, 8, 9, 9, 9, 9, 9, 9}},
     .fast = WIN,
     .nfast = WIN / 2 + 1,
     .slow = -1,
     .choice = H,
     .windows = 2 * WIN + 2 * LOST,
     .never = 0},
    {.what = "shapes not allowed are never run",
     .allowed = ~(1u << H | 1u << (H | D)) & ALL,
     .first = 0,
     .rd = {{10, 50, 13, 60, 9, 9, 16, 9}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .choice = D | G,
     .windows = 3 * WIN,
     .never = 1u << H | 1u << (H | D)},
    {.what = "from another first shape: a bit from it",
     .allowed = ALL,
     .first = G,
     .rd = {{10, 8, 9, 9, 9, 15, 9, 9}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .choice = G | H,
     .windows = 2 * WIN + 2 * LOST,
     .never = 0},
    {.what = "vmsplice() first, tee() faster: the other source next, then "
	     "its neighbours",
     .allowed = ALL | VMS,
     .first = VD,
     .rd = {{12, 11, 12, 11, 25, 20, 12, 11, 0, 0, 10, 0, 0, 0, 9, 0}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .other = H + G + 1,
     .choice = G,
     .windows = 3 * WIN + 2 * LOST,
     .never = 0},
    {.what = "vmsplice() first and fastest: it stays; the other source and "
	     "the size tried",
     .allowed = ALL | VMS,
     .first = VD,
     .rd = {{12, 11, 12, 11, 14, 15, 12, 11, 0, 0, 30, 0, 0, 0, 20, 0}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .other = H + G + 1,
     .choice = VD,
     .windows = WIN + 2 * LOST,
     .never = ~(1u << VD | 1u << (H | G) | 1u << (VD | G))},
    {.what = "from tee(), vmsplice() faster: found as the other source",
     .allowed = ALL | VMS,
     .first = H | G,
     .rd = {{9, 9, 9, 9, 9, 10, 9, 9, 0, 0, 30, 0, 0, 0, 20, 0}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .other = VD + 1,
     .choice = VD,
     .windows = 2 * WIN + LOST,
     .never = 0},
    {.what = "one shape allowed: never a probe",
     .allowed = 1u << D,
     .first = D,
     .rd = {{90, 90, 1, 90, 90, 90, 90, 90}},
     .fast = 0,
     .nfast = 0,
     .slow = -1,
     .choice = D,
     .windows = 0,
     .never = ~(1u << D) & ALL},
};

#define NCHOICES (int)(sizeof choices / sizeof choices[0])

START_TEST(first_choice)
{
	const struct choice_case *c = &choices[_i];
	struct fio_shapes st;
	unsigned n, ran = 0;
	int fast;

	fio_shape_begin(&st, c->allowed, c->first,
			c->other ? c->other - 1 : FIO_SHAPES);
	for (n = 0; n < 10 * WIN && !fio_shape_settled(&st); n++) {
		ran |= 1u << st.shape;
		fast = (int)n >= c->fast && (int)n < c->fast + c->nfast;
		window_at(&st, &c->rd, fast ? 50 : 1,
			  (int)n == c->slow ? 50 : 1);
	}
	ck_assert_msg(fio_shape_settled(&st),
		      "%s: not settled after %u windows", c->what, n);
	ck_assert_msg(st.shape == c->choice && st.best == c->choice,
		      "%s: chose %u, not %u", c->what, st.shape, c->choice);
	ck_assert_msg(n == c->windows, "%s: %u windows, not %u", c->what, n,
		      c->windows);
	ck_assert_msg((ran & c->never) == 0, "%s: ran shapes %#x", c->what,
		      ran & c->never);
}
END_TEST

/*
 * A stream that ends during the first probe's first try has run its first
 * shape only: no other shape was asked for, so none was built.
 */
START_TEST(end_during_probe)
{
	struct reader rd = {{1, 90, 90, 90, 90, 90, 90, 90}};
	struct fio_shapes st;
	unsigned n;

	fio_shape_begin(&st, ALL, 0, FIO_SHAPES);
	for (n = 0; n + 1 < WIN; n++)
		ck_assert_uint_eq(window(&st, &rd), 0);
	ck_assert(!fio_shape_settled(&st));
	/* The try's last window: only now another shape. */
	ck_assert_uint_ne(window(&st, &rd), 0);
}
END_TEST

/*
 * Settled, the choice holds for FIO_SHAPE_GAP windows; then a probe, its
 * first try the choice itself; a reader that changed is followed; the
 * next gap is twice as long.
 */
START_TEST(probe_again)
{
	struct reader before = {{10, 20, 9, 9, 9, 9, 9, 9}},
		      after = {{30, 20, 9, 9, 9, 9, 9, 9}};
	struct fio_shapes st;
	unsigned n, ran = 0;
	uint64_t k;

	fio_shape_begin(&st, ALL, 0, FIO_SHAPES);
	settle(&st, &before, 100, &ran);
	ck_assert_uint_eq(st.shape, H);
	for (k = 1; k < FIO_SHAPE_GAP; k++)
		ck_assert_uint_eq(window(&st, &after), H);
	ck_assert(fio_shape_settled(&st));
	/* The gap's last window: a probe begins, with the choice. */
	ck_assert_uint_eq(window(&st, &after), H);
	ck_assert(!fio_shape_settled(&st));
	for (n = 0; n + 1 < WIN; n++)
		ck_assert_uint_eq(window(&st, &after), H);
	n = settle(&st, &after, 100, &ran);
	ck_assert_uint_eq(st.shape, 0);
	/* The next probe comes twice as late. */
	for (k = 1; k < 2 * FIO_SHAPE_GAP; k++)
		ck_assert_uint_eq(window(&st, &after), 0);
	ck_assert(fio_shape_settled(&st));
	window(&st, &after);
	ck_assert(!fio_shape_settled(&st));
}
END_TEST

/*
 * A choice made in a fast stretch of its shape (pv taking pages tee()d
 * straight at 90 GB/s or 30 by turns) that then falls behind the shape it
 * replaced, by more than FIO_SHAPE_MARGIN over the median of its last
 * FIO_SHAPE_WINDOWS windows, is looked at again beside it: a try of the
 * choice, then one of that shape, and the faster stays; one that slows
 * less keeps its place without a look, and one slow with every shape (the
 * reader's stretch, not the shape's) keeps it after the look.
 */
START_TEST(falls_behind)
{
	struct reader fast = {{10, 20, 9, 9, 9, 9, 9, 9}},
		      slow = {{10, 5, 9, 9, 9, 9, 9, 9}},
		      near = {{10, 9, 9, 9, 9, 9, 9, 9}},
		      stretch = {{4, 5, 4, 4, 4, 4, 4, 4}};
	struct fio_shapes st;
	unsigned n, ran = 0;

	fio_shape_begin(&st, ALL, 0, FIO_SHAPES);
	settle(&st, &fast, 100, &ran);
	ck_assert_uint_eq(st.shape, H);
	for (n = 0; n < 2 * WIN; n++)
		ck_assert_uint_eq(window(&st, &near), H);
	/* The last windows' median: more than half of them slow. */
	for (n = 0; n < LOST; n++)
		ck_assert_uint_eq(window(&st, &slow), H);
	ck_assert(!fio_shape_settled(&st));
	/* The choice's try, then the shape it replaced, and no other. */
	for (n = 0; n + 1 < WIN; n++)
		ck_assert_uint_eq(window(&st, &slow), H);
	ck_assert_uint_eq(window(&st, &slow), 0);
	for (n = 0; n < WIN; n++)
		window(&st, &slow);
	ck_assert(fio_shape_settled(&st));
	ck_assert_uint_eq(st.shape, 0);
	for (n = 0; n < 10 * WIN; n++)
		ck_assert_uint_eq(window(&st, &fast), 0);

	/* Slow with every shape: looked at, kept. */
	fio_shape_begin(&st, ALL, 0, FIO_SHAPES);
	settle(&st, &fast, 100, &ran);
	ck_assert_uint_eq(st.shape, H);
	/* A median of slow windows, then the choice's try. */
	for (n = 0; n < 2 * WIN; n++)
		window(&st, &stretch);
	ck_assert_uint_eq(st.shape, 0);
	settle(&st, &stretch, 100, &ran);
	ck_assert_uint_eq(st.shape, H);
}
END_TEST

/*
 * A choice of the other source never gives way to the shape it replaced:
 * a slow stretch of any shape is as deep as the sources differ, and
 * going back on one (dd bs=1M on fc-v857) kept the slower source for the
 * rest of the stream.
 */
START_TEST(falls_behind_not_across)
{
	struct reader fast = {{9, 9, 9, 9, 9, 40, 9, 9, 0, 0, 20, 0, 0, 0, 9,
			       0}},
		      slow = {
			  {9, 9, 9, 9, 9, 5, 9, 9, 0, 0, 20, 0, 0, 0, 9, 0}};
	struct fio_shapes st;
	unsigned n, ran = 0;

	fio_shape_begin(&st, ALL | VMS, VD, H | G);
	settle(&st, &fast, 100, &ran);
	ck_assert_uint_eq(st.shape, H | G);
	for (n = 0; n < 10 * WIN; n++)
		ck_assert_uint_eq(window(&st, &slow), H | G);
}
END_TEST

/*
 * A reader that never settles (its fastest shape another at every probe)
 * is left with the last choice after FIO_SHAPE_FLIPS probes in a row that
 * changed it: no more probes, no more changes.
 */
START_TEST(never_settles)
{
	struct reader odd = {{10, 20, 9, 9, 9, 9, 9, 9}},
		      even = {{20, 10, 9, 9, 9, 9, 9, 9}};
	struct fio_shapes st;
	unsigned probe, ran = 0, last;
	uint64_t k;

	fio_shape_begin(&st, ALL, 0, FIO_SHAPES);
	for (probe = 0; !st.done && probe < 10; probe++) {
		settle(&st, probe % 2 ? &even : &odd, 100, &ran);
		ck_assert_uint_eq(st.shape, probe % 2 ? 0 : H);
		for (k = 0; !st.done && k < (FIO_SHAPE_GAP << probe); k++)
			window(&st, probe % 2 ? &odd : &even);
	}
	ck_assert_msg(st.done, "still probing after %u probes", probe);
	ck_assert_uint_eq(probe, FIO_SHAPE_FLIPS);
	last = st.shape;
	for (k = 0; k < 100 * FIO_SHAPE_GAP; k++)
		ck_assert_uint_eq(window(&st, k % 2 ? &odd : &even), last);
}
END_TEST

/*
 * A shape the caller cannot build (refused) is skipped and never asked
 * for again; where going back to the choice failed, what runs is the
 * choice.
 */
START_TEST(refused)
{
	struct reader rd = {{10, 20, 30, 40, 50, 60, 70, 80}};
	struct fio_shapes st;
	unsigned n, ran = 0;

	fio_shape_begin(&st, ALL, 0, FIO_SHAPES);
	for (n = 0; n < WIN; n++)
		window(&st, &rd);
	ck_assert_uint_eq(st.shape, H);
	/* The hot source cannot be had: the next try, one bit on. */
	ck_assert_uint_eq(fio_shape_refused(&st, 0), D);
	ck_assert_uint_eq(st.allowed & 1u << H, 0);
	settle(&st, &rd, 100, &ran);
	ck_assert_uint_eq(st.shape, D | G);
	ck_assert_uint_eq(ran & (1u << H | 1u << (H | D) | 1u << (H | G)), 0);
	/* Settled, a shape whose pipe cannot be had again: it runs the old. */
	st.shape = 0;
	ck_assert_uint_eq(fio_shape_refused(&st, D | G), D | G);
	ck_assert_uint_eq(st.best, D | G);
}
END_TEST

/*
 * Going to a shape refused where what runs is the choice (settled, or
 * the try was the best itself): the shape in use, whatever it is, runs
 * on and becomes the choice; the refused one is never asked for again.
 * The caller loops until the shape it is told is the one it has, so an
 * answer other than in_use would ask it for ever.
 */
START_TEST(refused_in_use)
{
	static const struct {
		const char *what;
		unsigned first;	 /* the first shape */
		int settled;	 /* settled on the fastest before the refusal */
		unsigned target; /* the shape the caller failed to build */
		unsigned in_use; /* the shape that runs */
	} cases[] = {
	    {"settled, the choice refused, another shape running", H | D | G, 1,
	     0, H},
	    {"settled, the choice refused, a far shape running", H | D | G, 1,
	     H | D | G, G},
	    {"before any window, the first refused", 0, 0, 0, G},
	    {"before any window, the first refused, another running", D, 0, D,
	     H | G},
	};
	struct reader rd = {{10, 20, 30, 40, 50, 60, 70, 80}};
	struct fio_shapes st;
	unsigned ran = 0;

	fio_shape_begin(&st, ALL, cases[_i].first, FIO_SHAPES);
	if (cases[_i].settled) {
		settle(&st, &rd, 100, &ran);
		ck_assert_msg(fio_shape_settled(&st), "%s", cases[_i].what);
	}
	st.shape = cases[_i].target;
	if (!cases[_i].settled)
		st.best = cases[_i].target;
	ck_assert_msg(fio_shape_refused(&st, cases[_i].in_use) ==
			  cases[_i].in_use,
		      "%s", cases[_i].what);
	ck_assert_uint_eq(st.shape, cases[_i].in_use);
	ck_assert_uint_eq(st.best, cases[_i].in_use);
	ck_assert(st.allowed & 1u << cases[_i].in_use);
	ck_assert_uint_eq(st.allowed & 1u << cases[_i].target, 0);
}
END_TEST

/* The path shapes take: those through the middle pipe, or straight. */
#define MIDDLE_PATH (1u << 0 | 1u << H | 1u << G | 1u << (H | G))
#define DIRECT_PATH (ALL & ~MIDDLE_PATH)

/*
 * A call of the path in use refused mid-stream (a sandbox refusing
 * splice): the shapes of that path go for good, the choice becomes the
 * nearest shape left (fewest bits flipped, the lowest first), the probe
 * in progress ends, and none is left once both paths are refused.
 */
START_TEST(dropped)
{
	static const struct {
		unsigned allowed, best, drop, choice;
	} cases[] = {
	    {ALL, H | G, MIDDLE_PATH, H | D | G},
	    {ALL, D, DIRECT_PATH, 0},
	    {ALL, H | D | G, DIRECT_PATH, H | G},
	    /* The nearest is not allowed: two bits away, the lowest first. */
	    {1u << (H | G) | 1u << D | 1u << (D | G), H | G, 1u << (H | G),
	     D | G},
	    {ALL, H, ALL, FIO_SHAPES},
	};
	struct reader rd = {{10, 20, 30, 40, 50, 60, 70, 80}};
	struct fio_shapes st;
	unsigned n, ran = 0;

	fio_shape_begin(&st, cases[_i].allowed, cases[_i].best, FIO_SHAPES);
	window(&st, &rd); /* in the middle of the probe's first try */
	ck_assert_uint_eq(fio_shape_drop(&st, cases[_i].drop),
			  cases[_i].choice);
	if (cases[_i].choice == FIO_SHAPES)
		return;
	ck_assert_uint_eq(st.best, cases[_i].choice);
	ck_assert(fio_shape_settled(&st));
	/* Never asked for again, through every later probe. */
	for (n = 0; n < 40 * FIO_SHAPE_GAP; n++) {
		ran |= 1u << st.shape;
		window(&st, &rd);
	}
	ck_assert_uint_eq(ran & cases[_i].drop, 0);
}
END_TEST

/*
 * vmsplice() refused while it is the choice: the other source's best
 * runs next, not the nearest tee() shape, and no vmsplice() shape is
 * asked for again.
 */
START_TEST(dropped_source)
{
	struct reader rd = {
	    {10, 20, 30, 40, 50, 60, 70, 80, 0, 0, 90, 0, 0, 0, 90, 0}};
	struct fio_shapes st;
	unsigned n, ran = 0;

	fio_shape_begin(&st, ALL | VMS, VD, H | G);
	window(&st, &rd);
	ck_assert_uint_eq(fio_shape_drop(&st, VMS), H | G);
	for (n = 0; n < 40 * FIO_SHAPE_GAP; n++) {
		ran |= 1u << st.shape;
		window(&st, &rd);
	}
	ck_assert_uint_eq(ran & VMS, 0);
}
END_TEST

static Suite *
shape_suite(void)
{
	Suite *s = suite_create("shape");
	TCase *tc = tcase_create("decisions");

	tcase_add_loop_test(tc, first_choice, 0, NCHOICES);
	tcase_add_test(tc, end_during_probe);
	tcase_add_test(tc, probe_again);
	tcase_add_test(tc, never_settles);
	tcase_add_test(tc, falls_behind);
	tcase_add_test(tc, falls_behind_not_across);
	tcase_add_test(tc, refused);
	tcase_add_loop_test(tc, refused_in_use, 0, 4);
	tcase_add_loop_test(tc, dropped, 0, 5);
	tcase_add_test(tc, dropped_source);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return suite_main(shape_suite());
}
