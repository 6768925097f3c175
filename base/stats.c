/* Order statistics (base/stats.h): sorting and GSL's quantile of sorted data. */
#include "base/stats.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

void gs_stats_sort(double *v, size_t n)
{
    if (n > 1)
        gsl_sort(v, 1, n);
}

double gs_stats_quantile_sorted(const double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    return gsl_stats_quantile_from_sorted_data(v, 1, n, q);
}

void gs_stats_summarize(double *v, size_t n, struct gs_stats_summary *out)
{
    out->n = n;
    if (n == 0) {
        out->mean = out->p50 = out->p90 = out->p95 = out->p99 = out->max = NAN;
        return;
    }
    gs_stats_sort(v, n);
    out->mean = gsl_stats_mean(v, 1, n);
    out->p50 = gs_stats_quantile_sorted(v, n, 0.50);
    out->p90 = gs_stats_quantile_sorted(v, n, 0.90);
    out->p95 = gs_stats_quantile_sorted(v, n, 0.95);
    out->p99 = gs_stats_quantile_sorted(v, n, 0.99);
    out->max = v[n - 1];
}

void gs_step_integral_add(struct gs_step_integral *s, int64_t t, double v)
{
    if (s->has)
        s->sum += s->value * (double)(t - s->t);
    s->has = true;
    s->t = t;
    s->value = v;
}
