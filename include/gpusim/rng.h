/* gpusim: seeded random streams, one per purpose, all GSL mt19937.
 *
 * Each stream is seeded from (master seed, stream id) so that adding, say, a fault does not
 * change the arrivals. Never rand(), never gsl_rng_env_setup().
 */
#ifndef GPUSIM_RNG_H
#define GPUSIM_RNG_H

#include <stdint.h>

#include "gpusim/engine.h"

enum gs_stream {
    GS_STREAM_ARRIVALS = 0,
    GS_STREAM_DURATIONS,
    GS_STREAM_FAULTS,
    GS_STREAM_TIEBREAK,
    GS_STREAM_SAMPLING,
    GS_STREAM_BRINGUP,
    GS_STREAM_COUNT
};

struct gs_rng; /* holds one gsl_rng per stream */

/* Create all streams from `seed`. Returns NULL when out of memory. Caller frees. */
struct gs_rng *gs_rng_new(uint64_t seed);
void gs_rng_free(struct gs_rng *r);

/* Uniform integer in [0, n) from stream `s`; n >= 1. */
uint64_t gs_rng_uniform_int(struct gs_rng *r, enum gs_stream s, uint64_t n);

/* Uniform double in [0, 1). */
double gs_rng_uniform(struct gs_rng *r, enum gs_stream s);

/* Exponential with the given mean (any unit); rounded by the caller. */
double gs_rng_exponential(struct gs_rng *r, enum gs_stream s, double mean);

/* Lognormal with median `median` (so mu = ln(median)) and shape `sigma`. */
double gs_rng_lognormal(struct gs_rng *r, enum gs_stream s, double median, double sigma);

/* The underlying gsl_rng of a stream (borrowed), for GSL functions not wrapped here. */
void *gs_rng_gsl(struct gs_rng *r, enum gs_stream s);

#endif
