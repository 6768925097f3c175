/* gpusim: the discrete-event engine (see engine.h).
 *
 * Layout, chosen by measuring the hold model (tools/bench/bench_engine.c):
 *  - A 4-ary heap of 16-byte keys {time, prio, slot}: four siblings are one 64-byte cache line
 *    (the array is offset so that every sibling group is line-aligned), and a 4-ary heap has
 *    half the levels of a binary one. Measured faster than binary heaps and than 24-byte keys.
 *  - Everything else about an event (seq, kind, a, b) lives in a slot table indexed by slot.
 *    seq is read only when time and prio tie. A slot is taken when an event is scheduled and
 *    freed when it runs or is cancelled (free list; growth by doubling, no per-event malloc).
 *  - pos[slot] is the heap index of the slot's key. Sifts keep it current, so cancel finds the
 *    key in O(1) and removes it in O(log n). It is its own 4-byte array because sifts write it
 *    at every level and it is the engine's main random memory traffic.
 *  - A handle is (generation << 32) | slot. A slot's generation is bumped whenever its event
 *    leaves the heap, so stale handles never match; a slot whose generation would wrap is
 *    retired, which keeps the promise that handles are never reused.
 */
#include "base/alloc.h"
#include "base/array.h"
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define D 4 /* heap arity; min_child_full is written for exactly 4 */

/* Heaps with at least this many keys (1 MiB) no longer fit in the near caches: sift_down
 * then prefetches the next level. Below it the prefetches only cost time (measured). */
#define PREFETCH_MIN 65536

/* One heap key. Ordered by (time, prio, seq). */
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
#define LINE 64
/* Keys in front of heap[1] in the allocation, so that heap[1] starts a cache line. */
#define HEAP_PAD (LINE / sizeof(struct hkey))

_Static_assert(sizeof(struct hkey) * D == LINE, "a sibling group must be one cache line");

struct gs_engine {
    struct hkey *heap; /* heap[0] is the next event; n keys in use */
    size_t n;
    struct slot *slots;
    uint32_t *pos;       /* heap index of a live slot; next free slot for a free one */
    size_t cap;          /* keys/slots all of heap, slots and pos have room for */
    struct hkey *heap_mem; /* the allocation behind heap, which is offset into it */
    int slots_cap, pos_cap, heap_mem_cap; /* each array's own capacity (gs_array_grow) */
    uint32_t free_head;  /* head of the free-slot list, NO_SLOT when empty */
    uint32_t nslots;     /* slots handed out so far (retired ones included) */
    uint64_t seq;        /* next sequence number */
    uint64_t dispatched;
    gs_time now;
    gs_event_fn fn[GS_ENGINE_MAX_KINDS];
    void *ctx[GS_ENGINE_MAX_KINDS];
};

/* The rare path of key_less: equal times. Out of line so the common path stays small. */
static int __attribute__((noinline)) tie_less(const struct slot *sl, const struct hkey *x,
                                              const struct hkey *y)
{
    if (x->prio != y->prio)
        return x->prio < y->prio;
    return sl[x->slot].seq < sl[y->slot].seq;
}

static inline int key_less(const struct slot *sl, const struct hkey *x, const struct hkey *y)
{
    /* Times rarely tie in a busy heap, so this branch is predicted right and the comparison
     * itself can feed arithmetic instead of a jump. */
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

/* Index of the smallest of the four keys from c on (all present). A tournament keeps the
 * dependency chain short; the winners' times stay in registers so the final round does not
 * reload through a just-computed index; index arithmetic instead of ?: keeps the choices
 * free of unpredictable jumps (measured: a plain loop was 30% slower here). */
static inline size_t min_child_full(const struct slot *sl, const struct hkey *h, size_t c)
{
    gs_time t0 = h[c].time, t1 = h[c + 1].time, t2 = h[c + 2].time, t3 = h[c + 3].time;
    size_t l01 = (size_t)(t1 == t0 ? tie_less(sl, &h[c + 1], &h[c]) : t1 < t0);
    size_t l23 = (size_t)(t3 == t2 ? tie_less(sl, &h[c + 3], &h[c + 2]) : t3 < t2);
    size_t m01 = c + l01, m23 = c + 2 + l23;
    gs_time a = l01 ? t1 : t0, b = l23 ? t3 : t2;
    size_t take = (size_t)0 - (size_t)(a == b ? tie_less(sl, &h[m23], &h[m01]) : b < a);
    return m01 ^ ((m01 ^ m23) & take);
}

/* Move key k down from hole i until no child is smaller. With `prefetch`, the four sibling
 * groups one level further down are requested while this level is compared. */
static inline void sift_down_impl(struct gs_engine *e, size_t i, struct hkey k, int prefetch)
{
    struct hkey *h = e->heap;
    const struct slot *sl = e->slots;
    size_t n = e->n;
    size_t c;
    while ((c = D * i + 1) + D <= n) { /* all four children exist */
        if (prefetch)
            for (size_t j = 0; j < D; j++)
                __builtin_prefetch(&h[D * (c + j) + 1]);
        size_t best = min_child_full(sl, h, c);
        if (!key_less(sl, &h[best], &k))
            goto done;
        place(e, i, h[best]);
        i = best;
    }
    if (c < n) { /* the last, partial sibling group */
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

static void sift_down(struct gs_engine *e, size_t i, struct hkey k)
{
    /* Two specialisations, so the small-heap loop carries no prefetch test. */
    if (e->n >= PREFETCH_MIN)
        sift_down_impl(e, i, k, 1);
    else
        sift_down_impl(e, i, k, 0);
}

/* Take the key at heap index i out of the heap (its slot is left alone). */
static void heap_remove_at(struct gs_engine *e, size_t i)
{
    struct hkey last = e->heap[--e->n];
    if (i == e->n)
        return;
    /* The last key may belong above or below i. */
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
        return; /* the generation would wrap: retire the slot so no handle repeats */
    e->pos[s] = e->free_head;
    e->free_head = s;
}

/* Bytes from `mem` to the next LINE boundary. */
static size_t line_offset(const void *mem)
{
    return (LINE - (uintptr_t)mem % LINE) % LINE;
}

/* The heap in heap_mem: HEAP_PAD keys before heap[1] and up to LINE bytes of slack in front, so
 * that heap[1] starts a cache line wherever the allocator put heap_mem. */
#define HEAP_SLACK (LINE / sizeof(struct hkey))

static struct hkey *heap_at(struct hkey *mem)
{
    return (struct hkey *)((char *)mem + line_offset(mem)) + HEAP_PAD - 1;
}

/* Grow slots, pos and the heap to at least `want` entries (gs_array_grow: doubling). The heap
 * grows by realloc too; its keys then move to the new block's cache-line offset. On failure
 * nothing is lost: each array is either the old one or a larger copy holding the same entries
 * (its own capacity says which), and cap only moves when all succeeded. Slots and heap positions
 * are 32-bit; GS_ARRAY_MAX (2^30) keeps them below NO_SLOT. */
static int grow(struct gs_engine *e, size_t want)
{
    if (want > (size_t)GS_ARRAY_MAX - HEAP_PAD - HEAP_SLACK)
        return GS_ENOMEM;
    int need = (int)want;
    if (GS_GROW(e->slots, e->slots_cap, need) || GS_GROW(e->pos, e->pos_cap, need))
        return GS_ENOMEM;
    int heap_need = need + (int)(HEAP_PAD + HEAP_SLACK);
    if (heap_need > e->heap_mem_cap) {
        size_t old_off = e->heap_mem ? line_offset(e->heap_mem) : 0;
        if (GS_GROW(e->heap_mem, e->heap_mem_cap, heap_need))
            return GS_ENOMEM;
        /* realloc kept the keys at their offset from the block; move them to the new one. */
        struct hkey *old = (struct hkey *)((char *)e->heap_mem + old_off) + HEAP_PAD - 1;
        e->heap = heap_at(e->heap_mem);
        if (e->n && e->heap != old)
            memmove(e->heap, old, e->n * sizeof *e->heap);
    }
    size_t cap = (size_t)e->heap_mem_cap - HEAP_PAD - HEAP_SLACK;
    if ((size_t)e->slots_cap < cap)
        cap = (size_t)e->slots_cap;
    if ((size_t)e->pos_cap < cap)
        cap = (size_t)e->pos_cap;
    e->cap = cap;
    return GS_OK;
}

struct gs_engine *gs_engine_new(size_t capacity_hint)
{
    struct gs_engine *e = gs_calloc(1, sizeof *e);
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
    gs_free(e->heap_mem);
    gs_free(e->slots);
    gs_free(e->pos);
    gs_free(e);
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
    /* Retired slots are never reused, so nslots may exceed the live count; the heap never
     * holds more keys than there are slots, so growing here covers the heap too. */
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
    sl->seq = e->seq++;
    sl->a = a;
    sl->b = b;
    sl->kind = kind;
    sift_up(e, e->n++, (struct hkey){.time = t, .prio = prio, .slot = s});
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
    const struct slot *sl = &e->slots[k.slot];
    struct gs_event ev = {.time = k.time,
                          .prio = k.prio,
                          .kind = sl->kind,
                          .seq = sl->seq,
                          .a = sl->a,
                          .b = sl->b};
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
        /* Checked first, so the event that raised the flag is the last one run, and a run
         * started with the flag already set returns at once. */
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
