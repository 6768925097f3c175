/* gpusim: the discrete-event engine (see engine.h).
 *
 * Layout, chosen by measuring the hold model (tools/bench/bench_engine.c):
 *  - The heap holds small keys {time, prio, slot, seq} (24 bytes) so sifting moves little memory.
 *  - The payload of an event (kind, a, b) lives in a slot table indexed by slot; a slot is taken
 *    when an event is scheduled and freed when it runs or is cancelled (free list, no malloc).
 *  - pos[slot] is the heap index of the slot's key: sifts keep it current, so cancel finds its
 *    key in O(1) and removes it in O(log n). It is a separate 4-byte array because sifts
 *    write it at every level and that is the engine's main random memory traffic.
 *  - A handle is (generation << 32) | slot. The generation of a slot is bumped whenever its
 *    event leaves the heap, so stale handles never match; a slot whose generation would wrap
 *    is retired, which keeps the promise that handles are never reused.
 */
#include "gpusim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "gpusim/error.h"

#ifndef GS_ENGINE_ARITY
#define GS_ENGINE_ARITY 4
#endif
#define D GS_ENGINE_ARITY

/* One heap key, 16 bytes so that four siblings fill one 64-byte cache line. Ordered by
 * (time, prio, seq); seq lives in the slot table and is read only when time and prio tie. */
struct hkey {
    gs_time time;
    int32_t prio;
    uint32_t slot;
};

/* What an event carries besides its key, and the slot bookkeeping. */
struct slot {
    uint64_t seq;
    int64_t a;
    int64_t b;
    uint32_t kind;
    uint32_t gen; /* generation of the handle currently (or next) issued for this slot */
};

#define NO_SLOT UINT32_MAX
/* Keys before heap[1] in the allocation so that heap[1] is 64-byte aligned. */
#define HEAP_PAD (64 / sizeof(struct hkey))

struct gs_engine {
    struct hkey *heap; /* heap[0] is the next event; n entries in use */
    void *heap_mem;    /* the allocation behind heap (heap is offset into it for alignment) */
    size_t n;
    size_t cap; /* capacity of heap, slots and pos (all grow together) */
    struct slot *slots;
    uint32_t *pos; /* heap index of a live slot; next free slot for a free one */
    uint32_t free_head; /* head of the free-slot list, NO_SLOT when empty */
    uint32_t nslots; /* slots handed out so far (the rest of cap is untouched) */
    uint64_t seq;
    uint64_t dispatched;
    gs_time now;
    gs_event_fn fn[GS_ENGINE_MAX_KINDS];
    void *ctx[GS_ENGINE_MAX_KINDS];
};

/* The rare path of key_less: equal times. Kept out of line so the common path stays small. */
static int __attribute__((noinline)) tie_less(const struct slot *sl, const struct hkey *x,
                                              const struct hkey *y)
{
    if (x->prio != y->prio)
        return x->prio < y->prio;
    return sl[x->slot].seq < sl[y->slot].seq;
}

static inline int key_less(const struct slot *sl, const struct hkey *x, const struct hkey *y)
{
    /* Times rarely tie in a busy heap, so this branch is almost always predicted right and
     * the comparison result itself can feed arithmetic instead of a jump. */
    if (__builtin_expect(x->time == y->time, 0))
        return tie_less(sl, x, y);
    return x->time < y->time;
}

static inline void place(struct gs_engine *e, size_t i, struct hkey k)
{
    e->heap[i] = k;
    e->pos[k.slot] = (uint32_t)i;
}

/* Move key k up from hole i until its parent is not greater. */
static void sift_up(struct gs_engine *e, size_t i, struct hkey k)
{
    struct hkey *h = e->heap;
    while (i > 0) {
        size_t p = (i - 1) / D;
        if (!key_less(e->slots, &k, &h[p]))
            break;
        place(e, i, h[p]);
        i = p;
    }
    place(e, i, k);
}

/* Index of the smallest of the D keys from c on (all present). A tournament keeps the
 * dependency chain short, and the comparisons compile to conditional moves. */
static inline size_t min_child_full(const struct slot *sl, const struct hkey *h, size_t c)
{
    /* Index arithmetic instead of ?: so the compiler cannot turn the choices into jumps. */
#if D == 4
    size_t m01 = c + (size_t)key_less(sl, &h[c + 1], &h[c]);
    size_t m23 = c + 2 + (size_t)key_less(sl, &h[c + 3], &h[c + 2]);
    size_t take23 = (size_t)0 - (size_t)key_less(sl, &h[m23], &h[m01]);
    return m01 ^ ((m01 ^ m23) & take23);
#else
    size_t best = c;
    for (size_t j = c + 1; j < c + D; j++) {
        size_t take = (size_t)0 - (size_t)key_less(sl, &h[j], &h[best]);
        best ^= (best ^ j) & take;
    }
    return best;
#endif
}

/* Move key k down from hole i until no child is smaller. */
static void sift_down(struct gs_engine *e, size_t i, struct hkey k)
{
    struct hkey *h = e->heap;
    const struct slot *sl = e->slots;
    size_t n = e->n;
    size_t c;
    /* Fast path: all D children exist. */
    while ((c = D * i + 1) + D <= n) {
#ifdef GS_ENGINE_PREFETCH
        /* The next level's sibling groups: one line each, fetched while we compare. */
        for (size_t j = 0; j < D; j++)
            __builtin_prefetch(&h[D * (c + j) + 1]);
#endif
        size_t best = min_child_full(sl, h, c);
        if (!key_less(sl, &h[best], &k))
            goto done;
        place(e, i, h[best]);
        i = best;
    }
    if (c < n) { /* the last, partial group */
        size_t best = c;
        for (size_t j = c + 1; j < n; j++)
            best = key_less(sl, &h[j], &h[best]) ? j : best;
        if (key_less(sl, &h[best], &k)) {
            place(e, i, h[best]);
            i = best;
        }
    }
done:
    place(e, i, k);
}

/* Take the key at heap index i out of the heap (the slot is left alone). */
static void heap_remove_at(struct gs_engine *e, size_t i)
{
    struct hkey last = e->heap[--e->n];
    if (i == e->n)
        return;
    /* The last key may belong above or below i; try down first, then up. */
    if (i > 0 && key_less(e->slots, &last, &e->heap[(i - 1) / D]))
        sift_up(e, i, last);
    else
        sift_down(e, i, last);
}

/* Return a slot to the free list and invalidate its handle. */
static void slot_release(struct gs_engine *e, uint32_t s)
{
    uint32_t g = e->slots[s].gen + 1;
    e->slots[s].gen = g;
    if (g == 0)
        return; /* generation would wrap: retire the slot so no handle repeats */
    e->pos[s] = e->free_head;
    e->free_head = s;
}

static int grow(struct gs_engine *e, size_t want)
{
    size_t cap = e->cap ? e->cap : 16;
    while (cap < want)
        cap *= 2;
    if (cap > (size_t)NO_SLOT)
        cap = NO_SLOT;
    if (cap < want)
        return GS_ENOMEM;
    /* Children of i are 4i+1..4i+4: with heap[1] on a 64-byte boundary every sibling group
     * is exactly one cache line. aligned_alloc cannot realloc, so copy on growth. */
    size_t pad = HEAP_PAD;
    void *mem = aligned_alloc(64, ((cap + pad) * sizeof(struct hkey) + 63) / 64 * 64);
    if (!mem)
        return GS_ENOMEM;
    struct hkey *h = (struct hkey *)mem + pad - 1;
    if (e->n)
        memcpy(h, e->heap, e->n * sizeof *h);
    free(e->heap_mem);
    e->heap_mem = mem;
    e->heap = h;
    struct slot *s = realloc(e->slots, cap * sizeof *s);
    if (!s)
        return GS_ENOMEM;
    e->slots = s;
    uint32_t *p = realloc(e->pos, cap * sizeof *p);
    if (!p)
        return GS_ENOMEM;
    e->pos = p;
    e->cap = cap;
    return GS_OK;
}

struct gs_engine *gs_engine_new(size_t capacity_hint)
{
    struct gs_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->free_head = NO_SLOT;
    if (grow(e, capacity_hint ? capacity_hint : 16) != GS_OK) {
        gs_engine_free(e);
        return NULL;
    }
    return e;
}

void gs_engine_free(struct gs_engine *e)
{
    if (!e)
        return;
    free(e->heap_mem);
    free(e->slots);
    free(e->pos);
    free(e);
}

void gs_engine_on(struct gs_engine *e, uint32_t kind, gs_event_fn fn, void *ctx)
{
    GS_ASSERT(e && kind < GS_ENGINE_MAX_KINDS);
    e->fn[kind] = fn;
    e->ctx[kind] = ctx;
}

static uint32_t slot_take(struct gs_engine *e)
{
    if (e->free_head != NO_SLOT) {
        uint32_t s = e->free_head;
        e->free_head = e->pos[s];
        return s;
    }
    /* Retired slots are never reused, so nslots may exceed the live count. */
    if (e->nslots == e->cap && grow(e, (size_t)e->nslots + 1) != GS_OK)
        return NO_SLOT;
    uint32_t s = e->nslots++;
    e->slots[s].gen = 1; /* generation 0 would make handle 0 possible */
    return s;
}

gs_event_handle gs_engine_schedule(struct gs_engine *e, gs_time t, int32_t prio, uint32_t kind,
                                   int64_t a, int64_t b)
{
    GS_ASSERT(t >= e->now);
    GS_ASSERT(kind < GS_ENGINE_MAX_KINDS);
    uint32_t s = slot_take(e);
    if (s == NO_SLOT)
        return 0;
    struct slot *sl = &e->slots[s];
    sl->a = a;
    sl->b = b;
    sl->kind = kind;
    sl->seq = e->seq++;
    struct hkey k = {.time = t, .prio = prio, .slot = s};
    /* heap capacity == slot capacity >= live slots, so there is room for one more key. */
    sift_up(e, e->n++, k);
    return ((uint64_t)sl->gen << 32) | s;
}

/* The slot behind a handle if its event is pending, else NO_SLOT. */
static uint32_t live_slot(const struct gs_engine *e, gs_event_handle h)
{
    uint32_t s = (uint32_t)h;
    uint32_t g = (uint32_t)(h >> 32);
    if (g == 0 || s >= e->nslots || e->slots[s].gen != g)
        return NO_SLOT;
    /* Handles the engine issued pass the test above only while pending; checking that the
     * heap really holds the slot also makes a forged handle harmless. */
    uint32_t p = e->pos[s];
    if (p >= e->n || e->heap[p].slot != s)
        return NO_SLOT;
    return s;
}

bool gs_engine_cancel(struct gs_engine *e, gs_event_handle h)
{
    uint32_t s = live_slot(e, h);
    if (s == NO_SLOT)
        return false;
    heap_remove_at(e, e->pos[s]);
    slot_release(e, s);
    return true;
}

bool gs_engine_pending(const struct gs_engine *e, gs_event_handle h)
{
    return live_slot(e, h) != NO_SLOT;
}

gs_time gs_engine_now(const struct gs_engine *e) { return e->now; }
size_t gs_engine_size(const struct gs_engine *e) { return e->n; }
uint64_t gs_engine_dispatched(const struct gs_engine *e) { return e->dispatched; }
gs_time gs_engine_peek_time(const struct gs_engine *e)
{
    return e->n ? e->heap[0].time : GS_TIME_MAX;
}

/* Pop the top event and run its handler. The event leaves the heap before the handler
 * runs, so the handler sees it as no longer pending and may cancel anything else. */
static void dispatch_top(struct gs_engine *e)
{
    struct hkey k = e->heap[0];
    struct slot *sl = &e->slots[k.slot];
    struct gs_event ev = {
        .time = k.time, .prio = k.prio, .kind = sl->kind, .seq = sl->seq, .a = sl->a, .b = sl->b};
    struct hkey last = e->heap[--e->n];
    if (e->n)
        sift_down(e, 0, last);
    slot_release(e, k.slot);

    e->now = k.time;
    gs_assert_clock_us = k.time;
    e->dispatched++;
    gs_event_fn fn = e->fn[ev.kind];
    GS_ASSERT(fn != NULL); /* an event of a kind nobody handles is a wiring bug */
    fn(e, &ev, e->ctx[ev.kind]);
}

bool gs_engine_step(struct gs_engine *e, gs_time horizon)
{
    if (e->n == 0 || e->heap[0].time > horizon)
        return false;
    dispatch_top(e);
    return true;
}

enum gs_run_end gs_engine_run(struct gs_engine *e, gs_time horizon, volatile const int *stop)
{
    for (;;) {
        if (stop && *stop)
            return GS_END_STOPPED;
        if (e->n == 0)
            return GS_END_EMPTY;
        if (e->heap[0].time > horizon) {
            if (horizon > e->now) {
                e->now = horizon;
                gs_assert_clock_us = horizon;
            }
            return GS_END_HORIZON;
        }
        dispatch_top(e);
    }
}
