/* Hold-model benchmark of the event engine.
 *
 * Prefill N pending events, then repeat: take the earliest event and schedule one new event
 * at now + an exponential increment. The same is done, with the same increments, by a bare
 * binary heap of the same {time, prio, seq, kind, a, b} records without handles or cancel,
 * which is the floor the engine's bookkeeping is measured against. A third line measures the
 * common "schedule a timeout, then cancel it" pattern through the engine.
 *
 * Usage: bench_engine [OPS [REPS [N]]]   (default 5000000 operations per size, 1 repetition,
 * N = 1000, 100000 and 1000000; with REPS > 1 the best rate of each is kept, which filters
 * out a noisy machine)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sim/engine.h"
#include "base/rng.h"

#define SEED 20240601ULL
#define INC_BITS 20
#define INC_MASK ((1u << INC_BITS) - 1)
#define MEAN_US 1e6 /* mean increment; int µs, so with N = 1M pending some times tie */

static gs_time *inc; /* precomputed increments, so the RNG is not what is measured */

/* CPU time of this process: other jobs on a shared machine deschedule us, which would
 * inflate wall time but not this. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_machine(void)
{
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ' || *c == '\t')
                        c++;
                    c[strcspn(c, "\n")] = '\0';
                    snprintf(model, sizeof model, "%s", c);
                }
                break;
            }
        }
        fclose(f);
    }
    printf("machine: %s, %ld cpus\n", model, sysconf(_SC_NPROCESSORS_ONLN));
}

/* ---- the bare heap: binary, records only, no handles ---- */

struct rec {
    gs_time time;
    int32_t prio;
    uint32_t kind;
    uint64_t seq;
    int64_t a;
    int64_t b;
};

struct bare {
    struct rec *h;
    size_t n;
    uint64_t seq;
};

static inline int rec_less(const struct rec *x, const struct rec *y)
{
    if (x->time != y->time)
        return x->time < y->time;
    if (x->prio != y->prio)
        return x->prio < y->prio;
    return x->seq < y->seq;
}

static void bare_push(struct bare *b, struct rec r)
{
    size_t i = b->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!rec_less(&r, &b->h[p]))
            break;
        b->h[i] = b->h[p];
        i = p;
    }
    b->h[i] = r;
}

static struct rec bare_pop(struct bare *b)
{
    struct rec top = b->h[0];
    struct rec last = b->h[--b->n];
    size_t n = b->n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && rec_less(&b->h[c + 1], &b->h[c]))
            c++;
        if (!rec_less(&b->h[c], &last))
            break;
        b->h[i] = b->h[c];
        i = c;
    }
    if (n)
        b->h[i] = last;
    return top;
}

static double run_bare(size_t n, uint64_t ops, gs_time *end_time)
{
    struct bare b = {.h = malloc((n + 1) * sizeof(struct rec))};
    if (!b.h) {
        fprintf(stderr, "bench_engine: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++)
        bare_push(&b, (struct rec){.time = inc[i & INC_MASK], .seq = b.seq++, .a = (int64_t)i});
    double t0 = now_s();
    gs_time now = 0;
    for (uint64_t k = 0; k < ops; k++) {
        struct rec r = bare_pop(&b);
        now = r.time;
        bare_push(&b, (struct rec){.time = now + inc[(n + k) & INC_MASK], .seq = b.seq++, .a = r.a});
    }
    double dt = now_s() - t0;
    *end_time = now;
    free(b.h);
    return (double)ops / dt;
}

/* ---- the engine ---- */

struct hold {
    uint64_t k, ops;
    size_t n;
    volatile int stop;
    gs_event_handle timeout; /* for the cancel variant */
};

static void hold_ev(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct hold *h = ctx;
    gs_engine_schedule(eng, ev->time + inc[(h->n + h->k) & INC_MASK], 0, 0, ev->a, 0);
    if (++h->k == h->ops)
        h->stop = 1;
}

/* Also arm a timeout far ahead and cancel the previous one, as models do with deadlines. */
static void hold_cancel_ev(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct hold *h = ctx;
    gs_engine_schedule(eng, ev->time + inc[(h->n + h->k) & INC_MASK], 0, 0, ev->a, 0);
    gs_engine_cancel(eng, h->timeout);
    h->timeout = gs_engine_schedule(eng, ev->time + 4 * (gs_time)MEAN_US, 0, 1, 0, 0);
    if (++h->k == h->ops)
        h->stop = 1;
}

static double run_engine(size_t n, uint64_t ops, gs_event_fn fn, gs_time *end_time)
{
    struct gs_engine *e = gs_engine_new(n + 2);
    if (!e) {
        fprintf(stderr, "bench_engine: out of memory\n");
        exit(2);
    }
    struct hold h = {.ops = ops, .n = n};
    gs_engine_on(e, 0, fn, &h);
    gs_engine_on(e, 1, hold_ev, &h); /* a timeout that fires also counts as an event */
    for (size_t i = 0; i < n; i++)
        gs_engine_schedule(e, inc[i & INC_MASK], 0, 0, (int64_t)i, 0);
    double t0 = now_s();
    gs_engine_run(e, GS_TIME_MAX, &h.stop);
    double dt = now_s() - t0;
    *end_time = gs_engine_now(e);
    gs_engine_free(e);
    return (double)ops / dt;
}

int main(int argc, char **argv)
{
    uint64_t ops = argc > 1 ? strtoull(argv[1], NULL, 10) : 5000000;
    if (ops == 0)
        ops = 5000000;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    if (reps < 1)
        reps = 1;
    print_machine();
    printf("hold model, %llu operations per size, exponential increments (mean %.0f us), "
           "seed %llu; rates per CPU second, best of %d\n",
           (unsigned long long)ops, MEAN_US, (unsigned long long)SEED, reps);

    inc = malloc(((size_t)1 << INC_BITS) * sizeof *inc);
    struct gs_rng *rng = gs_rng_new(SEED);
    if (!inc || !rng) {
        fprintf(stderr, "bench_engine: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i <= INC_MASK; i++)
        inc[i] = (gs_time)gs_rng_exponential(rng, GS_STREAM_ARRIVALS, MEAN_US);
    gs_rng_free(rng);

    size_t sizes[] = {1000, 100000, 1000000};
    size_t nsizes = sizeof sizes / sizeof *sizes;
    if (argc > 3 && strtoull(argv[3], NULL, 10) > 0) {
        sizes[0] = (size_t)strtoull(argv[3], NULL, 10);
        nsizes = 1;
    }
    for (size_t s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        gs_time te = 0, tb = 0, tc = 0;
        double ev = 0, bv = 0, cv = 0;
        for (int r = 0; r < reps; r++) {
            double x = run_engine(n, ops, hold_ev, &te);
            ev = x > ev ? x : ev;
            x = run_bare(n, ops, &tb);
            bv = x > bv ? x : bv;
            x = run_engine(n, ops, hold_cancel_ev, &tc);
            cv = x > cv ? x : cv;
        }
        /* Same increments and the same order rule: both must end at the same time. */
        printf("engine hold N=%zu: %.1f Mev/s   bare heap: %.1f Mev/s   ratio %.2f%s\n", n,
               ev / 1e6, bv / 1e6, ev / bv, te == tb ? "" : "   MISMATCH");
        printf("engine hold+cancel N=%zu: %.1f Mev/s\n", n, cv / 1e6);
        (void)tc;
    }
    free(inc);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
