/* base/intmap.h: the int-keyed hash map the per-pod side tables use. Checked against a plain
 * array model (a value per key, present or not) through insertions, lookups, deletions that
 * shift probe runs back, growth, a walk, and allocation failures at every growth. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/intmap.h"

/* A record like the callers' (a pointer and integers: the map must keep it aligned). */
struct rec {
    int64_t a;
    void *p;
    int b;
};

/* ------------------------------------------------------------------ a failing allocator */

static long live;     /* allocations not yet freed */
static long calls;    /* allocation calls */
static long fail_at;  /* the call that fails (1-based), 0 none */

static bool inject(void)
{
    return ++calls == fail_at;
}

static void *t_malloc(size_t n)
{
    void *p = inject() ? NULL : malloc(n);
    live += p != NULL;
    return p;
}

static void *t_calloc(size_t c, size_t n)
{
    void *p = inject() ? NULL : calloc(c, n);
    live += p != NULL;
    return p;
}

static void *t_realloc(void *p, size_t n)
{
    void *q = inject() ? NULL : realloc(p, n);
    live += q != NULL && p == NULL;
    return q;
}

static void t_free(void *p)
{
    live -= p != NULL;
    free(p);
}

static void install(void)
{
    live = calls = fail_at = 0;
    cr_assert(eq(int, gs_replace_allocator(t_malloc, t_realloc, t_calloc, t_free), 0));
}

static void uninstall(void)
{
    gs_replace_allocator(NULL, NULL, NULL, NULL);
}

/* ------------------------------------------------------------------ tests */

Test(intmap, zeroed_map_is_empty_and_refuses_keys_without_a_value_size)
{
    struct gs_intmap m = {0};
    void *v = &m;
    cr_assert(eq(ptr, gs_intmap_get(&m, 0), NULL));
    cr_assert(eq(int, gs_intmap_del(&m, 3), false));
    cr_assert(eq(int, gs_intmap_count(&m), 0));
    cr_assert(eq(int, gs_intmap_put(&m, 1, &v, NULL), GS_EINVAL));
    cr_assert(eq(ptr, v, &m)); /* untouched */
    int pos = 0;
    cr_assert(eq(ptr, gs_intmap_next(&m, &pos, NULL), NULL));
    gs_intmap_free(&m);
}

Test(intmap, put_get_del)
{
    struct gs_intmap m;
    gs_intmap_init(&m, sizeof(struct rec));
    struct rec *r;
    bool created = false;
    cr_assert(eq(int, gs_intmap_put(&m, 7, (void **)&r, &created), 0));
    cr_assert(eq(int, created, true));
    cr_assert(eq(i64, r->a, 0)); /* new values are zero */
    cr_assert(eq(ptr, r->p, NULL));
    r->a = 70;
    r->b = -7;
    cr_assert(eq(int, gs_intmap_put(&m, 7, (void **)&r, &created), 0));
    cr_assert(eq(int, created, false));
    cr_assert(eq(i64, r->a, 70)); /* the same record */
    cr_assert(eq(int, gs_intmap_count(&m), 1));
    r = gs_intmap_get(&m, 7);
    cr_assert(ne(ptr, r, NULL));
    cr_assert(eq(int, r->b, -7));
    cr_assert(eq(uptr, (uintptr_t)r % _Alignof(struct rec), 0));
    cr_assert(eq(ptr, gs_intmap_get(&m, 8), NULL));
    cr_assert(eq(ptr, gs_intmap_get(&m, -1), NULL));
    cr_assert(eq(int, gs_intmap_put(&m, -1, (void **)&r, NULL), GS_EINVAL));
    cr_assert(eq(int, gs_intmap_del(&m, 7), true));
    cr_assert(eq(int, gs_intmap_del(&m, 7), false));
    cr_assert(eq(ptr, gs_intmap_get(&m, 7), NULL));
    cr_assert(eq(int, gs_intmap_count(&m), 0));
    gs_intmap_free(&m);
    cr_assert(eq(int, m.cap, 0));
    cr_assert(eq(sz, m.vsize, sizeof(struct rec))); /* reusable */
}

/* The map against an array model, through a long pseudo-random walk of puts and deletes over
 * a small key range (long probe runs, many backward shifts) and then a sliding window of keys
 * (the pods of a run: created in order, gone in about the same order). */
Test(intmap, matches_a_model_through_inserts_and_deletes)
{
    enum { NKEYS = 3000 };
    static int64_t model[NKEYS]; /* 0: absent, else the value */
    memset(model, 0, sizeof model);
    struct gs_intmap m;
    gs_intmap_init(&m, sizeof(struct rec));
    uint64_t x = 88172645463325252ull; /* xorshift64 */
    int n = 0;
    for (int step = 0; step < 200000; step++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int key = (int)(x % (step < 100000 ? 300 : NKEYS));
        if ((x >> 32) % 3 == 0) {
            bool had = model[key] != 0;
            cr_assert(eq(int, gs_intmap_del(&m, key), had), "step %d key %d", step, key);
            n -= had;
            model[key] = 0;
        } else {
            struct rec *r;
            bool created;
            cr_assert(eq(int, gs_intmap_put(&m, key, (void **)&r, &created), 0));
            cr_assert(eq(int, created, model[key] == 0), "step %d key %d", step, key);
            if (created) {
                cr_assert(eq(i64, r->a, 0));
                n++;
            } else {
                cr_assert(eq(i64, r->a, model[key]), "step %d key %d", step, key);
            }
            r->a = model[key] = step + 1;
        }
        cr_assert(eq(int, gs_intmap_count(&m), n));
        cr_assert(le(int, 2 * gs_intmap_count(&m), m.cap)); /* at most half full */
        if (step % 9973 == 0)
            for (int k = 0; k < NKEYS; k++) {
                struct rec *r = gs_intmap_get(&m, k);
                cr_assert(eq(int, r != NULL, model[k] != 0), "step %d key %d", step, k);
                if (r)
                    cr_assert(eq(i64, r->a, model[k]));
            }
    }
    /* The walk sees every entry once. */
    int pos = 0, key, seen = 0;
    struct rec *r;
    while ((r = gs_intmap_next(&m, &pos, &key))) {
        cr_assert(eq(i64, r->a, model[key]), "key %d", key);
        model[key] = -model[key];
        seen++;
    }
    cr_assert(eq(int, seen, n));
    for (int k = 0; k < NKEYS; k++)
        cr_assert(le(i64, model[k], 0), "key %d not walked", k);

    /* A sliding window of 40 keys over 100,000: the table stays as small as the window needs. */
    for (int k = 0; k < NKEYS; k++)
        gs_intmap_del(&m, k);
    cr_assert(eq(int, gs_intmap_count(&m), 0));
    gs_intmap_free(&m);
    for (int k = 0; k < 100000; k++) {
        cr_assert(eq(int, gs_intmap_put(&m, k, (void **)&r, NULL), 0));
        r->b = k;
        if (k >= 40) {
            cr_assert(eq(int, ((struct rec *)gs_intmap_get(&m, k - 40))->b, k - 40));
            cr_assert(eq(int, gs_intmap_del(&m, k - 40), true));
        }
    }
    cr_assert(eq(int, gs_intmap_count(&m), 40));
    cr_assert(eq(int, m.cap, 128)); /* 41 keys at the most: 2 * 41 rounded up to a power of two */
    for (int k = 100000 - 40; k < 100000; k++)
        cr_assert(eq(int, ((struct rec *)gs_intmap_get(&m, k))->b, k));
    gs_intmap_free(&m);
}

/* Colliding keys: keys with the same home slot form one run; deleting from its middle keeps
 * the rest reachable (the backward shift), also when the run wraps around the table's end. */
Test(intmap, deletion_keeps_colliding_runs_reachable)
{
    struct gs_intmap m;
    gs_intmap_init(&m, sizeof(int));
    int *v;
    cr_assert(eq(int, gs_intmap_put(&m, 0, (void **)&v, NULL), 0));
    cr_assert(eq(int, m.cap, GS_ARRAY_MIN_CAP));
    /* Find 6 keys with the home slot of the last slot, so the run wraps to slots 0.. */
    int same[6], ns = 0;
    gs_intmap_del(&m, 0);
    for (int k = 1; ns < 6 && k < 1000000; k++) {
        /* Probe: a key alone in the map sits at its home slot. */
        cr_assert(eq(int, gs_intmap_put(&m, k, (void **)&v, NULL), 0));
        int pos = 0;
        gs_intmap_next(&m, &pos, NULL);
        if (pos == m.cap)
            same[ns++] = k;
        gs_intmap_del(&m, k);
    }
    cr_assert(eq(int, ns, 6));
    for (int i = 0; i < 6; i++) {
        cr_assert(eq(int, gs_intmap_put(&m, same[i], (void **)&v, NULL), 0));
        *v = 100 + i;
    }
    cr_assert(eq(int, m.cap, GS_ARRAY_MIN_CAP)); /* 6 of 16: no growth, the run wraps */
    cr_assert(eq(int, gs_intmap_del(&m, same[1]), true));
    cr_assert(eq(int, gs_intmap_del(&m, same[4]), true));
    for (int i = 0; i < 6; i++) {
        v = gs_intmap_get(&m, same[i]);
        if (i == 1 || i == 4) {
            cr_assert(eq(ptr, v, NULL));
        } else {
            cr_assert(ne(ptr, v, NULL), "key %d lost", same[i]);
            cr_assert(eq(int, *v, 100 + i));
        }
    }
    gs_intmap_free(&m);
}

/* Every growth allocates one fresh table: failing it leaves the map as it was (the old table,
 * every key), and nothing leaks. */
Test(intmap, out_of_memory_leaves_the_map_unchanged, .init = install, .fini = uninstall)
{
    struct gs_intmap m;
    gs_intmap_init(&m, sizeof(struct rec));
    struct rec *r = NULL;
    int fails = 0;
    for (int k = 0; k < 1000; k++) {
        fail_at = calls + 1; /* fail the next allocation, if the put makes one */
        int rc = gs_intmap_put(&m, k, (void **)&r, NULL);
        fail_at = 0;
        if (rc != 0) {
            cr_assert(eq(int, rc, GS_ENOMEM));
            fails++;
            cr_assert(eq(int, gs_intmap_count(&m), k));
            cr_assert(eq(ptr, gs_intmap_get(&m, k), NULL));
            for (int j = 0; j < k; j++)
                cr_assert(eq(int, ((struct rec *)gs_intmap_get(&m, j))->b, j), "key %d after a failed growth", j);
            cr_assert(eq(int, gs_intmap_put(&m, k, (void **)&r, NULL), 0)); /* then it grows */
        }
        r->b = k;
        cr_assert(eq(long, live, 1)); /* one table */
    }
    /* 16, 32, .., 2048 slots: 8 growths, each failed once first. */
    cr_assert(eq(int, fails, 8));
    cr_assert(eq(int, m.cap, 2048));
    gs_intmap_free(&m);
    cr_assert(eq(long, live, 0));
}
