/* gpusim base: order statistics of a sample of numbers (base/stats.c).
 *
 * One place computes the percentiles every part of gpusim reports, so that a scenario's check
 * and the report of its trace agree to the last bit: the values are sorted ascending
 * (gs_stats_sort), then each quantile is GSL's gsl_stats_quantile_from_sorted_data (linear
 * interpolation between the order statistics: for q in [0, 1] and n values, index
 * h = (n - 1) q, value v[floor h] + (h - floor h)(v[floor h + 1] - v[floor h]); numpy's default
 * "linear" method, R's type 7), and the mean is taken over the sorted values, so the result
 * does not depend on the order the values came in.
 */
#ifndef GPUSIM_BASE_STATS_H
#define GPUSIM_BASE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What gs_stats_summarize reports of n values (in the values' own unit). With n == 0 every
 * field but n is NaN. */
struct gs_stats_summary {
    size_t n;
    double mean, p50, p90, p95, p99, max;
};

/* Sort v[0..n) ascending in place (NaN values are not expected). */
void gs_stats_sort(double *v, size_t n);

/* Quantile q (0..1) of the ascending values v[0..n): gsl_stats_quantile_from_sorted_data; NaN
 * when n == 0. */
double gs_stats_quantile_sorted(const double *v, size_t n, double q);

/* Sort v[0..n) in place and fill *out: n, mean (over the sorted values), the 0.5, 0.9, 0.95 and
 * 0.99 quantiles and the maximum. v may be NULL when n == 0. */
void gs_stats_summarize(double *v, size_t n, struct gs_stats_summary *out);

/* The time integral of a step function: each value holds from its time until the next one's.
 * Zero-initialise, then gs_step_integral_add each (t, value) in time order; `sum` is the
 * integral up to the latest t, in value × the unit of t. One place does this arithmetic, so
 * that a run's own figures (sim/metrics.c) and the report of its trace (reports/study.c) agree
 * to the last bit. */
struct gs_step_integral {
    bool has;     /* a value was added */
    int64_t t;    /* the latest one's time */
    double value; /* and value */
    double sum;   /* the integral up to t */
};

/* Close the step of the previous value at `t` (not before its time) and begin one of `v`. */
void gs_step_integral_add(struct gs_step_integral *s, int64_t t, double v);

#endif
