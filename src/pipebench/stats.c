/* SPDX-License-Identifier: MIT */
/*
 * --compare's statistics: mean and sample standard deviation, median,
 * extremes of a command's rates; and hyperfine's outlier rule on its run
 * times, a modified Z-score (the distance from the median in units of
 * 1.4826 median absolute deviations) past 14.826.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipebench.h"

int
pb_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The value below which a fraction q of the sorted v lies (nearest rank). */
double
pb_rank(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);

	return n == 0 ? 0 : v[i == 0 ? 0 : i - 1];
}

/* The middle of the sorted v, or the mean of the two middle values. */
double
pb_median(const double *v, size_t n)
{
	return n == 0 ? 0 : (v[(n - 1) / 2] + v[n / 2]) / 2;
}

/* The median of v (n values, any order), on a sorted copy. */
static double
median_of(const double *v, size_t n, double *scratch)
{
	memcpy(scratch, v, n * sizeof *v);
	qsort(scratch, n, sizeof *scratch, pb_cmp_double);
	return pb_median(scratch, n);
}

/* A modified Z-score; a zero spread makes every other value infinite. */
static double
zscore(double x, double median, double mad)
{
	if (mad > 0)
		return (x - median) / (1.4826 * mad);
	return x == median ? 0 : x > median ? INFINITY : -INFINITY;
}

void
pb_stats(const double *rates, const double *secs, size_t n, struct pb_stats *s)
{
	double *t = malloc((n + 1) * sizeof *t), median, mad, sum = 0, sq = 0;
	size_t i;

	memset(s, 0, sizeof *s);
	if (t == NULL || n == 0) {
		free(t);
		return;
	}
	for (i = 0; i < n; i++)
		sum += rates[i];
	s->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (rates[i] - s->mean) * (rates[i] - s->mean);
	s->sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	s->median = median_of(rates, n, t);
	s->min = t[0];
	s->max = t[n - 1];
	/* Outliers among the times, as hyperfine finds them. */
	median = median_of(secs, n, t);
	for (i = 0; i < n; i++)
		t[i] = fabs(secs[i] - median);
	qsort(t, n, sizeof *t, pb_cmp_double);
	mad = pb_median(t, n);
	for (i = 0; i < n; i++)
		if (fabs(zscore(secs[i], median, mad)) > PB_OUTLIER_THRESHOLD)
			s->outliers = 1;
	s->slow_first = zscore(secs[0], median, mad) > PB_OUTLIER_THRESHOLD;
	free(t);
}
