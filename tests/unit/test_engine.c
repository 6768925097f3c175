#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/engine.h"

/* A log of dispatched events shared by the handlers below. */
struct rec {
    int n;
    gs_time t[64];
    int64_t a[64];
    uint32_t kind[64];
    gs_time now[64];
};

static void record(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct rec *r = ctx;
    cr_assert_lt(r->n, 64);
    r->t[r->n] = ev->time;
    r->a[r->n] = ev->a;
    r->kind[r->n] = ev->kind;
    r->now[r->n] = gs_engine_now(eng);
    r->n++;
}

static struct gs_engine *new_recording(struct rec *r)
{
    memset(r, 0, sizeof *r);
    struct gs_engine *e = gs_engine_new(4); /* small on purpose: exercises growth */
    cr_assert_not_null(e);
    gs_engine_on(e, 0, record, r);
    gs_engine_on(e, 1, record, r);
    return e;
}

Test(engine, fresh_engine)
{
    struct gs_engine *e = gs_engine_new(0);
    cr_assert_not_null(e);
    cr_assert_eq(gs_engine_now(e), 0);
    cr_assert_eq(gs_engine_size(e), 0);
    cr_assert_eq(gs_engine_dispatched(e), 0);
    cr_assert_eq(gs_engine_peek_time(e), GS_TIME_MAX);
    cr_assert_not(gs_engine_step(e, GS_TIME_MAX));
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY);
    cr_assert_eq(gs_engine_now(e), 0);
    cr_assert_not(gs_engine_pending(e, 0));
    cr_assert_not(gs_engine_cancel(e, 0));
    cr_assert_not(gs_engine_cancel(e, 0xdeadbeef12345678ULL));
    gs_engine_free(e);
    gs_engine_free(NULL);
}

Test(engine, orders_by_time)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    const gs_time ts[] = {50, 10, 40, 20, 30, GS_SEC(1), 0, 15};
    for (int i = 0; i < 8; i++)
        cr_assert_neq(gs_engine_schedule(e, ts[i], 0, 0, i, 0), 0);
    cr_assert_eq(gs_engine_size(e), 8);
    cr_assert_eq(gs_engine_peek_time(e), 0);
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY);
    const gs_time want_t[] = {0, 10, 15, 20, 30, 40, 50, GS_SEC(1)};
    const int64_t want_a[] = {6, 1, 7, 3, 4, 2, 0, 5};
    cr_assert_eq(r.n, 8);
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(r.t[i], want_t[i], "event %d", i);
        cr_assert_eq(r.now[i], want_t[i], "clock at event %d", i);
        cr_assert_eq(r.a[i], want_a[i], "event %d", i);
    }
    cr_assert_eq(gs_engine_now(e), GS_SEC(1));
    cr_assert_eq(gs_engine_dispatched(e), 8);
    cr_assert_eq(gs_engine_size(e), 0);
    gs_engine_free(e);
}

Test(engine, ties_by_prio_then_fifo)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    /* All at t=100: prio 5,-3,5,0,-3,5 scheduled in that order. */
    const int32_t prio[] = {5, -3, 5, 0, -3, 5};
    for (int i = 0; i < 6; i++)
        gs_engine_schedule(e, 100, prio[i], (uint32_t)(i % 2), i, 0);
    gs_engine_schedule(e, 99, 1000, 0, 99, 0); /* earlier time beats any prio */
    gs_engine_schedule(e, 101, INT32_MIN, 0, 101, 0); /* later time loses to any prio */
    gs_engine_run(e, GS_TIME_MAX, NULL);
    const int64_t want[] = {99, 1, 4, 3, 0, 2, 5, 101};
    cr_assert_eq(r.n, 8);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(r.a[i], want[i], "position %d got a=%lld", i, (long long)r.a[i]);
    cr_assert_eq(r.kind[1], 1);
    cr_assert_eq(r.kind[4], 0);
    gs_engine_free(e);
}

static void copy_event(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    *(struct gs_event *)ctx = *ev;
}

Test(engine, event_fields_reach_handler)
{
    struct gs_event seen;
    memset(&seen, 0, sizeof seen);
    struct gs_engine *f = gs_engine_new(1);
    gs_engine_on(f, GS_ENGINE_MAX_KINDS - 1, copy_event, &seen);
    gs_engine_schedule(f, 7, -2, GS_ENGINE_MAX_KINDS - 1, INT64_MIN, INT64_MAX); /* seq 0 */
    gs_engine_schedule(f, 8, 0, GS_ENGINE_MAX_KINDS - 1, 1, 2);                  /* seq 1 */
    cr_assert(gs_engine_step(f, 7));
    cr_assert_eq(seen.time, 7);
    cr_assert_eq(seen.prio, -2);
    cr_assert_eq(seen.kind, GS_ENGINE_MAX_KINDS - 1);
    cr_assert_eq(seen.seq, 0);
    cr_assert_eq(seen.a, INT64_MIN);
    cr_assert_eq(seen.b, INT64_MAX);
    cr_assert_not(gs_engine_step(f, 7)); /* next is at 8 > 7 */
    cr_assert_eq(gs_engine_now(f), 7);    /* step never moves the clock by itself */
    cr_assert(gs_engine_step(f, 8));
    cr_assert_eq(seen.seq, 1);
    cr_assert_eq(seen.b, 2);
    gs_engine_free(f);
}

Test(engine, cancel_pending_ran_and_twice)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    gs_event_handle h1 = gs_engine_schedule(e, 10, 0, 0, 1, 0);
    gs_event_handle h2 = gs_engine_schedule(e, 20, 0, 0, 2, 0);
    gs_event_handle h3 = gs_engine_schedule(e, 30, 0, 0, 3, 0);
    cr_assert(h1 && h2 && h3 && h1 != h2 && h2 != h3 && h1 != h3);
    cr_assert(gs_engine_pending(e, h2));
    cr_assert(gs_engine_cancel(e, h2));
    cr_assert_not(gs_engine_pending(e, h2));
    cr_assert_not(gs_engine_cancel(e, h2)); /* double cancel */
    cr_assert_eq(gs_engine_size(e), 2);

    cr_assert(gs_engine_step(e, GS_TIME_MAX)); /* runs h1 */
    cr_assert_not(gs_engine_pending(e, h1));
    cr_assert_not(gs_engine_cancel(e, h1)); /* already ran */

    /* Slots are reused, handles are not: the stale handles stay dead. */
    gs_event_handle h4 = gs_engine_schedule(e, 40, 0, 0, 4, 0);
    gs_event_handle h5 = gs_engine_schedule(e, 50, 0, 0, 5, 0);
    cr_assert(h4 != h1 && h4 != h2 && h5 != h1 && h5 != h2);
    cr_assert_not(gs_engine_pending(e, h1));
    cr_assert_not(gs_engine_pending(e, h2));
    cr_assert_not(gs_engine_cancel(e, h2));
    cr_assert(gs_engine_pending(e, h4));

    gs_engine_run(e, GS_TIME_MAX, NULL);
    cr_assert_eq(r.n, 4);
    const int64_t want[] = {1, 3, 4, 5};
    for (int i = 0; i < 4; i++)
        cr_assert_eq(r.a[i], want[i]);
    cr_assert_not(gs_engine_pending(e, h3));
    gs_engine_free(e);
}

Test(engine, cancel_top_and_middle)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    gs_event_handle h[20];
    /* Times in scrambled order so the heap has real structure. */
    for (int i = 0; i < 20; i++)
        h[i] = gs_engine_schedule(e, (gs_time)((i * 7) % 20) * 10, 0, 0, (i * 7) % 20, 0);
    /* i=0 has time 0: the heap top. */
    cr_assert_eq(gs_engine_peek_time(e), 0);
    cr_assert(gs_engine_cancel(e, h[0]));
    cr_assert_eq(gs_engine_peek_time(e), 10);
    /* Cancel a few in the middle of the order (times 70, 130, 100) and the last (190). */
    int gone[] = {1, 19, 10, 17};
    for (int k = 0; k < 4; k++)
        cr_assert(gs_engine_cancel(e, h[gone[k]]), "cancel h[%d]", gone[k]);
    cr_assert_eq(gs_engine_size(e), 15);
    gs_engine_run(e, GS_TIME_MAX, NULL);
    cr_assert_eq(r.n, 15);
    int64_t expect = 0, k = 0;
    for (expect = 0; expect < 20; expect++) {
        if (expect == 0 || expect == 7 || expect == 13 || expect == 10 || expect == 19)
            continue;
        cr_assert_eq(r.a[k], expect, "position %lld", (long long)k);
        cr_assert_eq(r.t[k], expect * 10);
        k++;
    }
    gs_engine_free(e);
}

/* Cancel from inside a handler, including an event at the same time as the running one. */
struct canceller {
    gs_event_handle victims[4];
    int nvictims;
    int cancelled;
    struct rec *rec;
};

static void cancel_handler(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct canceller *c = ctx;
    record(eng, ev, c->rec);
    for (int i = 0; i < c->nvictims; i++)
        c->cancelled += gs_engine_cancel(eng, c->victims[i]);
    c->nvictims = 0;
}

Test(engine, cancel_inside_handler)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    struct canceller c = {.rec = &r};
    gs_engine_on(e, 2, cancel_handler, &c);
    gs_event_handle self = gs_engine_schedule(e, 100, 0, 2, 0, 0);
    c.victims[0] = gs_engine_schedule(e, 100, 0, 0, 1, 0); /* same time, later seq */
    c.victims[1] = gs_engine_schedule(e, 100, 1, 0, 2, 0); /* same time, lower prio */
    c.victims[2] = gs_engine_schedule(e, 500, 0, 0, 3, 0);
    c.victims[3] = self; /* the running event is no longer pending */
    c.nvictims = 4;
    gs_engine_schedule(e, 100, 0, 0, 4, 0);
    gs_engine_schedule(e, 200, 0, 0, 5, 0);
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY);
    cr_assert_eq(c.cancelled, 3);
    cr_assert_eq(r.n, 3);
    cr_assert_eq(r.a[0], 0);
    cr_assert_eq(r.a[1], 4);
    cr_assert_eq(r.a[2], 5);
    gs_engine_free(e);
}

/* A handler that schedules follow-ups at the current time: they run after what is queued
 * at that time with equal prio (FIFO), and before later times. */
static void chain_handler(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    record(eng, ev, ctx);
    if (ev->b > 0)
        gs_engine_schedule(eng, gs_engine_now(eng), 0, 1, ev->a + 100, ev->b - 1);
}

Test(engine, schedule_at_now_from_handler)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    gs_engine_on(e, 1, chain_handler, &r);
    gs_engine_schedule(e, 5, 0, 1, 1, 2);
    gs_engine_schedule(e, 5, 0, 0, 2, 0);
    gs_engine_schedule(e, 6, 0, 0, 3, 0);
    gs_engine_run(e, GS_TIME_MAX, NULL);
    const int64_t want[] = {1, 2, 101, 201, 3};
    cr_assert_eq(r.n, 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(r.a[i], want[i], "position %d", i);
    gs_engine_free(e);
}

Test(engine, horizon)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    gs_engine_schedule(e, 100, 0, 0, 1, 0);
    gs_engine_schedule(e, 1000, 5, 0, 2, 0); /* exactly at the horizon: runs */
    gs_engine_schedule(e, 1001, 0, 0, 3, 0); /* later: does not */
    cr_assert_eq(gs_engine_run(e, 1000, NULL), GS_END_HORIZON);
    cr_assert_eq(r.n, 2);
    cr_assert_eq(r.a[1], 2);
    cr_assert_eq(gs_engine_now(e), 1000);
    cr_assert_eq(gs_engine_size(e), 1);

    /* Horizon between events: the clock moves to it. */
    gs_engine_schedule(e, 5000, 0, 0, 4, 0);
    cr_assert_eq(gs_engine_run(e, 3000, NULL), GS_END_HORIZON);
    cr_assert_eq(r.n, 3);
    cr_assert_eq(gs_engine_now(e), 3000);
    /* Scheduling at the new clock is allowed. */
    cr_assert_neq(gs_engine_schedule(e, 3000, 0, 0, 5, 0), 0);
    /* A horizon in the past never moves the clock back. */
    cr_assert_eq(gs_engine_run(e, 2000, NULL), GS_END_HORIZON);
    cr_assert_eq(gs_engine_now(e), 3000);
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY);
    cr_assert_eq(gs_engine_now(e), 5000);
    cr_assert_eq(r.n, 5);
    gs_engine_free(e);
}

struct stopper {
    volatile int *flag;
    int count;
    int stop_at;
};

static void stop_handler(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    (void)ev;
    struct stopper *s = ctx;
    if (++s->count == s->stop_at)
        *s->flag = 1;
}

Test(engine, stop_flag)
{
    volatile int flag = 0;
    struct stopper s = {.flag = &flag, .stop_at = 3};
    struct gs_engine *e = gs_engine_new(8);
    gs_engine_on(e, 0, stop_handler, &s);
    for (int i = 0; i < 10; i++)
        gs_engine_schedule(e, i * 10, 0, 0, i, 0);
    /* The event that raises the flag completes, and nothing after it runs. */
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, &flag), GS_END_STOPPED);
    cr_assert_eq(s.count, 3);
    cr_assert_eq(gs_engine_dispatched(e), 3);
    cr_assert_eq(gs_engine_now(e), 20);
    cr_assert_eq(gs_engine_size(e), 7);
    /* Still set: returns at once. Cleared: resumes where it stopped. */
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, &flag), GS_END_STOPPED);
    cr_assert_eq(s.count, 3);
    flag = 0;
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, &flag), GS_END_EMPTY);
    cr_assert_eq(s.count, 10);
    gs_engine_free(e);
}

Test(engine, schedule_in_past_aborts, .signal = SIGABRT)
{
    struct rec r;
    struct gs_engine *e = new_recording(&r);
    gs_engine_schedule(e, 100, 0, 0, 0, 0);
    gs_engine_run(e, GS_TIME_MAX, NULL);
    gs_engine_schedule(e, 99, 0, 0, 0, 0);
}

Test(engine, unhandled_kind_aborts, .signal = SIGABRT)
{
    struct gs_engine *e = gs_engine_new(1);
    gs_engine_schedule(e, 1, 0, 5, 0, 0);
    gs_engine_run(e, GS_TIME_MAX, NULL);
}

/* Hold model: each event reschedules itself at now + a pseudo-random increment, with random
 * cancels and re-schedules mixed in, and a shadow count checks nothing is lost or invented. */
struct hold {
    uint64_t x; /* xorshift state: deterministic and independent of the RNG module */
    uint64_t remaining;
    uint64_t ran;
    gs_time last;
    int monotone;
    gs_event_handle *extra; /* handles of extra events, some of which get cancelled */
    size_t nextra;
    uint64_t cancelled;
};

static uint64_t xs(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void hold_handler(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct hold *h = ctx;
    if (ev->time < h->last)
        h->monotone = 0;
    h->last = ev->time;
    h->ran++;
    if (h->remaining == 0)
        return;
    h->remaining--;
    gs_time dt = (gs_time)(xs(&h->x) % 2000); /* ties are common: exercises seq order too */
    gs_event_handle nh = gs_engine_schedule(eng, ev->time + dt, (int32_t)(xs(&h->x) % 3), 0, 0, 0);
    cr_assert_neq(nh, 0);
    /* Every 16th event, cancel a random earlier extra handle (pending or not). */
    if (ev->a % 16 == 0 && h->nextra) {
        size_t k = xs(&h->x) % h->nextra;
        h->cancelled += gs_engine_cancel(eng, h->extra[k]);
    }
}

Test(engine, one_million_events_hold_model, .timeout = 120)
{
    enum { PREFILL = 10000, EXTRA = 5000 };
    struct hold h = {.x = 88172645463325252ULL, .remaining = 1000000 - PREFILL - EXTRA, .monotone = 1};
    h.extra = calloc(EXTRA, sizeof *h.extra);
    cr_assert_not_null(h.extra);
    struct gs_engine *e = gs_engine_new(16);
    gs_engine_on(e, 0, hold_handler, &h);
    for (int i = 0; i < PREFILL; i++)
        cr_assert_neq(gs_engine_schedule(e, (gs_time)(xs(&h.x) % 100000), 0, 0, i, 0), 0);
    for (int i = 0; i < EXTRA; i++)
        h.extra[h.nextra++] = gs_engine_schedule(e, (gs_time)(xs(&h.x) % 5000000), 1, 0, i, 0);
    cr_assert_eq(gs_engine_size(e), PREFILL + EXTRA);
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY);
    cr_assert(h.monotone, "event times went backwards");
    cr_assert_gt(h.cancelled, 0);
    /* Every scheduled event either ran or was cancelled, exactly once. */
    cr_assert_eq(h.ran + h.cancelled, 1000000, "ran %llu cancelled %llu",
                 (unsigned long long)h.ran, (unsigned long long)h.cancelled);
    cr_assert_eq(gs_engine_dispatched(e), h.ran);
    cr_assert_eq(gs_engine_size(e), 0);
    cr_assert_eq(gs_engine_now(e), h.last);
    free(h.extra);
    gs_engine_free(e);
}

/* Randomised check against a brute-force model: a list of pending (time, prio, seq, id)
 * from which the minimum is taken by linear scan, with random cancels. */
struct model_ev {
    gs_time t;
    int32_t prio;
    uint64_t seq;
    gs_event_handle h;
    int live;
};

Test(engine, matches_brute_force_model)
{
    enum { N = 4000 };
    struct model_ev *m = calloc(N, sizeof *m);
    cr_assert_not_null(m);
    struct gs_event last;
    struct gs_engine *e = gs_engine_new(2);
    gs_engine_on(e, 0, copy_event, &last);
    uint64_t x = 12345, seq = 0;
    int nm = 0;
    size_t live = 0;
    for (int round = 0; round < 20000; round++) {
        uint64_t op = xs(&x) % 10;
        if (op < 5 && nm < N) { /* schedule */
            gs_time t = gs_engine_now(e) + (gs_time)(xs(&x) % 50);
            int32_t p = (int32_t)(xs(&x) % 4) - 2;
            m[nm] = (struct model_ev){t, p, seq++, 0, 1};
            m[nm].h = gs_engine_schedule(e, t, p, 0, nm, 0);
            nm++;
            live++;
        } else if (op < 7 && nm > 0) { /* cancel a random one, live or not */
            int k = (int)(xs(&x) % (uint64_t)nm);
            bool ok = gs_engine_cancel(e, m[k].h);
            cr_assert_eq(ok, m[k].live == 1, "cancel of %d", k);
            if (ok) {
                m[k].live = 0;
                live--;
            }
        } else if (live > 0) { /* pop one and compare with the model's minimum */
            int best = -1;
            for (int i = 0; i < nm; i++) {
                if (!m[i].live)
                    continue;
                if (best < 0 || m[i].t < m[best].t ||
                    (m[i].t == m[best].t &&
                     (m[i].prio < m[best].prio ||
                      (m[i].prio == m[best].prio && m[i].seq < m[best].seq))))
                    best = i;
            }
            cr_assert(gs_engine_step(e, GS_TIME_MAX));
            cr_assert_eq(last.a, best, "round %d", round);
            cr_assert_eq(last.seq, m[best].seq);
            m[best].live = 0;
            live--;
        }
        cr_assert_eq(gs_engine_size(e), live);
    }
    free(m);
    gs_engine_free(e);
}

/* A heap large enough for the prefetching sift path (>= 64k keys), with heavy ties in time
 * and prio, and cancels: every dispatched event must follow (time, prio, seq) strictly. */
struct order_check {
    gs_time t;
    int32_t prio;
    uint64_t seq;
    uint64_t ran;
    int ok;
};

static void order_handler(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct order_check *c = ctx;
    if (c->ran > 0) {
        int after = ev->time > c->t ||
                    (ev->time == c->t && (ev->prio > c->prio ||
                                          (ev->prio == c->prio && ev->seq > c->seq)));
        if (!after)
            c->ok = 0;
    }
    c->t = ev->time;
    c->prio = ev->prio;
    c->seq = ev->seq;
    c->ran++;
}

Test(engine, large_heap_with_ties_keeps_total_order, .timeout = 60)
{
    enum { N = 200000 };
    gs_event_handle *h = calloc(N, sizeof *h);
    cr_assert_not_null(h);
    struct order_check c = {.ok = 1};
    struct gs_engine *e = gs_engine_new(0);
    gs_engine_on(e, 0, order_handler, &c);
    uint64_t x = 99;
    for (int i = 0; i < N; i++)
        h[i] = gs_engine_schedule(e, (gs_time)(xs(&x) % 500), (int32_t)(xs(&x) % 3) - 1, 0, i, 0);
    size_t cancelled = 0;
    for (int i = 0; i < N; i += 7)
        cancelled += gs_engine_cancel(e, h[i]);
    cr_assert_eq(cancelled, (N + 6) / 7);
    cr_assert_eq(gs_engine_size(e), N - cancelled);
    /* Half the run, then more events (ties with pending ones), then the rest. */
    cr_assert_eq(gs_engine_run(e, 250, NULL), GS_END_HORIZON);
    for (int i = 0; i < 1000; i++)
        gs_engine_schedule(e, 251 + (gs_time)(xs(&x) % 10), 0, 0, -1, 0);
    cr_assert_eq(gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY);
    cr_assert(c.ok, "order broken");
    cr_assert_eq(c.ran, N - cancelled + 1000);
    free(h);
    gs_engine_free(e);
}

/* ------------------------------------------------------------------ growth through the seam */

/* An allocator that puts each block 0, 16, 32 or 48 bytes past a cache line, in turn, and whose
 * realloc always moves: the heap's keys must follow their block to its new offset. After
 * `fail_after` allocations every one fails (0: never). */
struct shift_hdr {
    size_t size;
    size_t shift;
};

static struct {
    unsigned next;
    long calls, fail_after, live;
} shift;

static void *s_malloc(size_t n)
{
    if (shift.fail_after && ++shift.calls > shift.fail_after)
        return NULL;
    size_t off = 16 * (shift.next++ % 4);
    char *raw = aligned_alloc(64, (sizeof(struct shift_hdr) + 64 + n + 63) / 64 * 64);
    if (!raw)
        return NULL;
    char *p = raw + 64 + off; /* 64 + off bytes in front: room for the header */
    struct shift_hdr *h = (struct shift_hdr *)p - 1;
    h->size = n;
    h->shift = 64 + off;
    shift.live++;
    return p;
}

static void s_free(void *p)
{
    if (!p)
        return;
    struct shift_hdr *h = (struct shift_hdr *)p - 1;
    shift.live--;
    free((char *)p - h->shift);
}

static void *s_calloc(size_t c, size_t n)
{
    void *p = s_malloc(c * n);
    if (p)
        memset(p, 0, c * n);
    return p;
}

static void *s_realloc(void *p, size_t n)
{
    void *q = s_malloc(n);
    if (!q || !p)
        return q;
    size_t old = ((struct shift_hdr *)p - 1)->size;
    memcpy(q, p, old < n ? old : n);
    s_free(p);
    return q;
}

static void use_shifting_allocator(long fail_after)
{
    memset(&shift, 0, sizeof shift);
    shift.fail_after = fail_after;
    cr_assert(eq(int, gs_replace_allocator(s_malloc, s_realloc, s_calloc, s_free), 0));
}

/* Schedule `n` events with pseudo-random times and priorities; returns how many were
 * scheduled before gs_engine_schedule first returned 0. */
static int schedule_many(struct gs_engine *e, int n, uint64_t *x)
{
    for (int i = 0; i < n; i++)
        if (gs_engine_schedule(e, (gs_time)(xs(x) % 100000), (int32_t)(xs(x) % 3), 0, i, 0) == 0)
            return i;
    return n;
}

Test(engine, heap_follows_its_block_when_it_grows)
{
    use_shifting_allocator(0);
    struct order_check c = {.ok = 1};
    struct gs_engine *e = gs_engine_new(1);
    cr_assert(ne(ptr, e, NULL));
    gs_engine_on(e, 0, order_handler, &c);
    uint64_t x = 7;
    cr_assert(eq(int, schedule_many(e, 20000, &x), 20000));
    /* Half of them run, then more grow the heap again with keys in it. */
    cr_assert(eq(int, gs_engine_run(e, 50000, NULL), GS_END_HORIZON));
    cr_assert(lt(sz, gs_engine_size(e), (size_t)20000));
    for (int i = 0; i < 40000; i++)
        cr_assert(ne(u64, gs_engine_schedule(e, 50000 + (gs_time)(xs(&x) % 100000), 0, 0, i, 0), 0));
    cr_assert(eq(int, gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY));
    cr_assert(c.ok, "order broken");
    cr_assert(eq(u64, c.ran, 60000));
    gs_engine_free(e);
    gs_replace_allocator(NULL, NULL, NULL, NULL);
    cr_assert(eq(long, shift.live, 0));
}

/* When growing fails, gs_engine_schedule returns 0 and every event scheduled before still runs,
 * in order; nothing leaks. Walks every allocation the engine makes for 3000 events. */
Test(engine, out_of_memory_keeps_what_was_scheduled)
{
    for (long k = 1;; k++) {
        use_shifting_allocator(k);
        struct order_check c = {.ok = 1};
        struct gs_engine *e = gs_engine_new(1);
        if (!e) {
            gs_replace_allocator(NULL, NULL, NULL, NULL);
            cr_assert(eq(long, shift.live, 0), "gs_engine_new failing leaked");
            continue;
        }
        gs_engine_on(e, 0, order_handler, &c);
        uint64_t x = 11;
        int got = schedule_many(e, 3000, &x);
        cr_assert(eq(sz, gs_engine_size(e), (size_t)got));
        cr_assert(eq(int, gs_engine_run(e, GS_TIME_MAX, NULL), GS_END_EMPTY));
        cr_assert(c.ok, "order broken after %d events with allocation %ld failing", got, k + 1);
        cr_assert(eq(u64, c.ran, (uint64_t)got));
        gs_engine_free(e);
        gs_replace_allocator(NULL, NULL, NULL, NULL);
        cr_assert(eq(long, shift.live, 0));
        if (got == 3000)
            break;
    }
}
