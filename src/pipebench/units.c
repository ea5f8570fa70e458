/* SPDX-License-Identifier: MIT */
/*
 * pipebench's units: sizes and rates as 0.40 prints them (its summary
 * and running line), and in the decimal units of our own outputs;
 * durations, and the clock's microseconds and seconds. A leaf:
 * everything that prints uses it, and it uses nothing of pipebench but
 * the options.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pipebench.h"

double
pb_seconds(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) +
	       (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

/* Microseconds of a timestamp, truncated as gettimeofday() gives them. */
int64_t
pb_usec(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000 + t->tv_nsec / 1000;
}

/*
 * A size or rate as pipebench 0.40 prints it, "%7.2f UNIT" with the B of
 * bytes: integer hundredths that truncate, a unit step while the value is
 * more than base (1024, or 1000 with -I) units, and a first step before
 * the hundredths for values past base squared; "%7.0f B" with -u. 10,000
 * bytes are 9.76 kB, not 9.77.
 */
const char *
pb_amount(char *buf, size_t size, uint64_t v)
{
	static const char *const units[] = {"", "k", "M", "G", "T", "P", "E"};
	uint64_t base = pb_opt->si ? 1000 : 1024, x = v;
	unsigned e = 0;

	if (pb_opt->no_units) {
		snprintf(buf, size, "%7.0f B", (double)v);
		return buf;
	}
	if (x > base * base) {
		e++;
		x /= base;
	}
	x *= 100;
	while (x > 100 * base) {
		e++;
		x /= base;
	}
	for (; e >= sizeof units / sizeof units[0]; e--)
		x *= base;
	snprintf(buf, size, "%7.2f %sB", (double)x / 100.0, units[e]);
	return buf;
}

/* pb_amount() without its padding, for tables and the terminal. */
const char *
pb_amount_short(char *buf, size_t size, uint64_t v)
{
	const char *s = pb_amount(buf, size, v);

	return s + strspn(s, " ");
}

/* A duration as 0.40 prints it: hours unbounded, hundredths truncated. */
const char *
pb_duration(char *buf, size_t size, int64_t usec)
{
	long long s = (long long)(usec / 1000000);

	snprintf(buf, size, "%.2lldh%.2lldm%.2lld.%.2llds", s / 3600,
		 s / 60 % 60, s % 60, (long long)(usec % 1000000 / 10000));
	return buf;
}

/*
 * Our own outputs (the --progress line, --compare, --pipeline, --plot)
 * give sizes and rates in decimal units, GB = 10^9 B as `make demo` and
 * every peer's README do, so that a figure is what its JSON's bytes say
 * (0.40's own lines keep 0.40's 1024). The unit is the one that puts v
 * below 1000; pb_si_in gives v in the unit of another value, for "5.10
 * ± 0.32 GB/s".
 */
static const char *const si_units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
#define SI_UNITS (int)(sizeof si_units / sizeof si_units[0])

static int
si_step(double v)
{
	int e = 0;

	for (; e < SI_UNITS - 1 && (v >= 999.995 || v <= -999.995); e++)
		v /= 1000;
	return e;
}

const char *
pb_si_in(char *buf, size_t size, double v, double unit_of)
{
	int e = si_step(unit_of), i;

	for (i = 0; i < e; i++)
		v /= 1000;
	snprintf(buf, size, "%.2f", v);
	return buf;
}

const char *
pb_si(char *buf, size_t size, double v)
{
	char n[32];

	snprintf(buf, size, "%s %s", pb_si_in(n, sizeof n, v, v),
		 si_units[si_step(v)]);
	return buf;
}

const char *
pb_si_unit(double v)
{
	return si_units[si_step(v)];
}
