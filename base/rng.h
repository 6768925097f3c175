/* gpusim: seeded random streams, one per purpose, all GSL mt19937.
 *
 * Each stream is seeded from (master seed, stream id) so that adding, say, a fault does not
 * change the arrivals. Never rand(), never gsl_rng_env_setup().
 */
#ifndef GPUSIM_RNG_H
#define GPUSIM_RNG_H

#include <stdint.h>


enum gs_stream {
    GS_STREAM_ARRIVALS = 0,
    GS_STREAM_DURATIONS,
    GS_STREAM_FAULTS,
    GS_STREAM_TIEBREAK,
    GS_STREAM_SAMPLING,
    GS_STREAM_BRINGUP,
    GS_STREAM_GPUS_PER_POD, /* a plain workload's gpusPerPod draw, per pod */
    GS_STREAM_COUNT
};

struct gs_rng; /* holds one gsl_rng per stream */

/* Create all streams from `seed`. Stream i is seeded with a splitmix64 mix of (seed, i), so
 * streams and neighbouring seeds are unrelated. Returns NULL when out of memory.
 * Caller owns the result; free with gs_rng_free (NULL is a no-op). */
struct gs_rng *gs_rng_new(uint64_t seed);
void gs_rng_free(struct gs_rng *r);

/* Uniform integer in [0, n) from stream `s`; any n >= 1 up to UINT64_MAX (n == 0: GS_ASSERT). */
uint64_t gs_rng_uniform_int(struct gs_rng *r, enum gs_stream s, uint64_t n);

/* Uniform double in [0, 1). */
double gs_rng_uniform(struct gs_rng *r, enum gs_stream s);

/* Exponential with the given mean >= 0 (any unit; negative: GS_ASSERT); rounded by the caller. */
double gs_rng_exponential(struct gs_rng *r, enum gs_stream s, double mean);

/* Lognormal with median `median` > 0 (so mu = ln(median)) and shape `sigma` >= 0 (the
 * caller validates input; otherwise GS_ASSERT). Same unit as the median. */
double gs_rng_lognormal(struct gs_rng *r, enum gs_stream s, double median, double sigma);

/* The underlying gsl_rng of a stream (borrowed), for GSL functions not wrapped here. */
void *gs_rng_gsl(struct gs_rng *r, enum gs_stream s);

#endif
