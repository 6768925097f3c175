#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "base/rng.h"

#define NDRAWS 64

static void draws(struct gs_rng *r, enum gs_stream s, uint64_t out[NDRAWS])
{
    for (int i = 0; i < NDRAWS; i++)
        out[i] = gs_rng_uniform_int(r, s, 1000000007ULL);
}

Test(rng, same_seed_same_sequence)
{
    struct gs_rng *a = gs_rng_new(42), *b = gs_rng_new(42);
    cr_assert(a && b);
    for (int s = 0; s < GS_STREAM_COUNT; s++) {
        uint64_t x[NDRAWS], y[NDRAWS];
        draws(a, (enum gs_stream)s, x);
        draws(b, (enum gs_stream)s, y);
        cr_assert_arr_eq(x, y, sizeof x, "stream %d", s);
    }
    cr_assert_float_eq(gs_rng_exponential(a, GS_STREAM_DURATIONS, 3.0),
                       gs_rng_exponential(b, GS_STREAM_DURATIONS, 3.0), 0.0);
    gs_rng_free(a);
    gs_rng_free(b);
}

Test(rng, streams_are_independent)
{
    /* Extra draws on FAULTS must not move ARRIVALS: each stream has its own state. */
    struct gs_rng *a = gs_rng_new(7), *b = gs_rng_new(7);
    cr_assert(a && b);
    for (int i = 0; i < 1000; i++)
        (void)gs_rng_uniform(b, GS_STREAM_FAULTS);
    (void)gs_rng_lognormal(b, GS_STREAM_DURATIONS, 5.0, 1.0);
    uint64_t x[NDRAWS], y[NDRAWS];
    draws(a, GS_STREAM_ARRIVALS, x);
    draws(b, GS_STREAM_ARRIVALS, y);
    cr_assert_arr_eq(x, y, sizeof x);
    gs_rng_free(a);
    gs_rng_free(b);
}

Test(rng, streams_differ_from_each_other)
{
    struct gs_rng *r = gs_rng_new(1);
    uint64_t first[GS_STREAM_COUNT][NDRAWS];
    for (int s = 0; s < GS_STREAM_COUNT; s++)
        draws(r, (enum gs_stream)s, first[s]);
    for (int s = 0; s < GS_STREAM_COUNT; s++)
        for (int t = s + 1; t < GS_STREAM_COUNT; t++)
            cr_assert(memcmp(first[s], first[t], sizeof first[s]) != 0, "streams %d and %d", s, t);
    gs_rng_free(r);
}

Test(rng, different_seeds_differ)
{
    /* Neighbouring seeds included: the mix must separate them. */
    uint64_t prev[NDRAWS];
    for (uint64_t seed = 0; seed < 8; seed++) {
        struct gs_rng *r = gs_rng_new(seed);
        uint64_t x[NDRAWS];
        draws(r, GS_STREAM_ARRIVALS, x);
        if (seed > 0)
            cr_assert(memcmp(prev, x, sizeof x) != 0, "seed %llu", (unsigned long long)seed);
        memcpy(prev, x, sizeof x);
        gs_rng_free(r);
    }
    struct gs_rng *a = gs_rng_new(1ULL << 40), *b = gs_rng_new((1ULL << 40) + 1ULL);
    cr_assert(gs_rng_uniform(a, GS_STREAM_ARRIVALS) != gs_rng_uniform(b, GS_STREAM_ARRIVALS));
    gs_rng_free(a);
    gs_rng_free(b);
}

Test(rng, gsl_handle_is_the_stream)
{
    struct gs_rng *a = gs_rng_new(9), *b = gs_rng_new(9);
    gsl_rng *g = gs_rng_gsl(a, GS_STREAM_SAMPLING);
    cr_assert_not_null(g);
    cr_assert_eq(gsl_rng_get(g), gsl_rng_get(gs_rng_gsl(b, GS_STREAM_SAMPLING)));
    /* Using it advances the stream exactly like the wrapper would. */
    cr_assert_float_eq(gs_rng_uniform(a, GS_STREAM_SAMPLING), gs_rng_uniform(b, GS_STREAM_SAMPLING),
                       0.0);
    gs_rng_free(a);
    gs_rng_free(b);
}

Test(rng, uniform_int_bounds)
{
    struct gs_rng *r = gs_rng_new(3);
    int seen[6] = {0};
    for (int i = 0; i < 6000; i++) {
        uint64_t v = gs_rng_uniform_int(r, GS_STREAM_TIEBREAK, 6);
        cr_assert_lt(v, 6);
        seen[v]++;
    }
    for (int i = 0; i < 6; i++)
        cr_assert(seen[i] > 850 && seen[i] < 1150, "face %d seen %d times", i, seen[i]);
    cr_assert_eq(gs_rng_uniform_int(r, GS_STREAM_TIEBREAK, 1), 0);

    /* Beyond the generator's 32-bit range: values must spread into the high bits. */
    uint64_t big = (1ULL << 40) + 12345, maxv = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t v = gs_rng_uniform_int(r, GS_STREAM_TIEBREAK, big);
        cr_assert_lt(v, big);
        if (v > maxv)
            maxv = v;
    }
    cr_assert_gt(maxv, 1ULL << 39);
    cr_assert_lt(gs_rng_uniform_int(r, GS_STREAM_TIEBREAK, UINT64_MAX), UINT64_MAX);
    gs_rng_free(r);
}

Test(rng, uniform_in_unit_interval)
{
    struct gs_rng *r = gs_rng_new(11);
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        double u = gs_rng_uniform(r, GS_STREAM_SAMPLING);
        cr_assert(u >= 0.0 && u < 1.0);
        sum += u;
    }
    cr_assert_float_eq(sum / 100000, 0.5, 0.005);
    gs_rng_free(r);
}

Test(rng, exponential_mean)
{
    struct gs_rng *r = gs_rng_new(2024);
    const int n = 100000;
    const double mean = 250.0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double x = gs_rng_exponential(r, GS_STREAM_ARRIVALS, mean);
        cr_assert(x >= 0.0);
        sum += x;
    }
    /* Standard error of the mean is mean/sqrt(n) ~ 0.79; allow about 5 of them. */
    cr_assert_float_eq(sum / n, mean, 4.0, "mean %f", sum / n);
    cr_assert_float_eq(gs_rng_exponential(r, GS_STREAM_ARRIVALS, 0.0), 0.0, 0.0);
    gs_rng_free(r);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

Test(rng, lognormal_median)
{
    struct gs_rng *r = gs_rng_new(77);
    enum { N = 100001 };
    double *v = malloc(N * sizeof *v);
    cr_assert_not_null(v);
    for (int i = 0; i < N; i++) {
        v[i] = gs_rng_lognormal(r, GS_STREAM_DURATIONS, 600.0, 0.5);
        cr_assert(v[i] > 0.0);
    }
    qsort(v, N, sizeof *v, cmp_double);
    /* The sample median's relative error is ~ sigma*1.25/sqrt(n) ~ 0.2%; allow 1.5%. */
    cr_assert_float_eq(v[N / 2], 600.0, 9.0, "median %f", v[N / 2]);
    free(v);
    /* sigma 0 is a point mass at the median. */
    cr_assert_float_eq(gs_rng_lognormal(r, GS_STREAM_DURATIONS, 42.0, 0.0), 42.0, 1e-9);
    gs_rng_free(r);
}

Test(rng, free_null_is_noop)
{
    gs_rng_free(NULL);
    cr_assert(1);
}
