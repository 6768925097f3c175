/* gpusim: one GSL mt19937 stream per purpose (see rng.h). */
#include "base/alloc.h"
#include "base/rng.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/error.h"

struct gs_rng {
    gsl_rng *s[GS_STREAM_COUNT];
};

/* splitmix64's finaliser: a bijection with full avalanche, so nearby (seed, stream) pairs
 * give unrelated seeds. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The seed of one stream. GSL's mt19937 only uses the low 32 bits of its seed, so fold the
 * 64-bit mix down to 32 bits rather than silently dropping the high half. */
static unsigned long stream_seed(uint64_t master, unsigned stream)
{
    uint64_t z = mix64(mix64(master) + 0x9e3779b97f4a7c15ULL * (uint64_t)(stream + 1));
    return (unsigned long)((z ^ (z >> 32)) & 0xffffffffULL);
}

struct gs_rng *gs_rng_new(uint64_t seed)
{
    struct gs_rng *r = gs_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    /* GSL's default error handler aborts; an allocation failure must return NULL instead. */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    for (unsigned i = 0; i < GS_STREAM_COUNT; i++) {
        r->s[i] = gsl_rng_alloc(gsl_rng_mt19937);
        if (!r->s[i]) {
            gsl_set_error_handler(old);
            gs_rng_free(r);
            return NULL;
        }
        gsl_rng_set(r->s[i], stream_seed(seed, i));
    }
    gsl_set_error_handler(old);
    return r;
}

void gs_rng_free(struct gs_rng *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < GS_STREAM_COUNT; i++)
        gsl_rng_free(r->s[i]);
    gs_free(r);
}

static gsl_rng *stream(struct gs_rng *r, enum gs_stream s)
{
    GS_ASSERT(r && (unsigned)s < GS_STREAM_COUNT);
    return r->s[s];
}

uint64_t gs_rng_uniform_int(struct gs_rng *r, enum gs_stream s, uint64_t n)
{
    gsl_rng *g = stream(r, s);
    GS_ASSERT(n >= 1);
    /* gsl_rng_uniform_int accepts n up to max - min of the generator (2^32 - 1 here). */
    uint64_t range = (uint64_t)(gsl_rng_max(g) - gsl_rng_min(g));
    if (n <= range)
        return (uint64_t)gsl_rng_uniform_int(g, (unsigned long)n);
    /* Larger n: build a 64-bit word from two 32-bit draws and reject the uneven tail. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* accept words below limit */
    for (;;) {
        uint64_t hi = (uint64_t)gsl_rng_get(g) & 0xffffffffULL;
        uint64_t lo = (uint64_t)gsl_rng_get(g) & 0xffffffffULL;
        uint64_t w = (hi << 32) | lo;
        if (w < limit)
            return w % n;
    }
}

double gs_rng_uniform(struct gs_rng *r, enum gs_stream s)
{
    return gsl_rng_uniform(stream(r, s));
}

double gs_rng_exponential(struct gs_rng *r, enum gs_stream s, double mean)
{
    gsl_rng *g = stream(r, s);
    GS_ASSERT(mean >= 0.0); /* scenario checking rejects negative means before we get here */
    return gsl_ran_exponential(g, mean);
}

double gs_rng_lognormal(struct gs_rng *r, enum gs_stream s, double median, double sigma)
{
    gsl_rng *g = stream(r, s);
    GS_ASSERT(median > 0.0 && sigma >= 0.0);
    return gsl_ran_lognormal(g, log(median), sigma);
}

void *gs_rng_gsl(struct gs_rng *r, enum gs_stream s) { return stream(r, s); }
