/* The scheduling queue (models/sched/queue.h). activeQ is a binary heap ordered by the QueueSort
 * plugin's key (plugin.h gs_sort_key: computed when the pod enters activeQ, so a comparison is a
 * few integer compares, with the plugin's tie rule only on equal keys); the unschedulable pool
 * and backoffQ share one unordered array ("waiting"), told apart by the pod's state. The
 * per-pod state (QueuedPodInfo) is a record in `recs`, for the pods in the queue or popped and
 * not yet bound or gone (in flight: their attempts count on); `index` maps a pod to its record,
 * and freed records are reused, so the queue's memory follows the pods it holds at once, not
 * every pod ever created. The heap and `waiting` hold record numbers, so moving pods between
 * them needs no lookup; a pod's `pos` is its position in whichever of the two holds it. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/intmap.h"
#include "models/sched/plugin.h"
#include "models/sched/queue.h"
#include "models/sched/sched.h"

/* One pod's queue state (QueuedPodInfo). */
struct qpod {
    enum gs_qstate state;
    int attempts;
    gs_time ts;                 /* QueuedPodInfo.Timestamp: when (re-)added */
    gs_time backoff_until;
    gs_time unschedulable_since;
    int64_t seq;                /* FIFO sequence for equal keys */
    int pos;                    /* position in the heap or in `waiting`; in a free record,
                                 * the next free record (-1: the last) */
    uint32_t unsched_plugins;   /* plugins that rejected it last time */
    int pod;
};

/* A heap entry: the pod, its record and its sort key. */
struct qentry {
    struct gs_sort_key key;
    int64_t seq;
    int pod;
    int rec;
};

struct gs_queue {
    struct gs_world *w;
    gs_time initial_backoff, max_backoff;
    const struct gs_sched_plugin *sort;
    struct qentry *heap;
    int nheap, heap_cap;
    int *waiting;               /* records */
    int nwaiting, waiting_cap;
    struct qpod *recs;          /* nrecs used or free, recs_cap allocated */
    int nrecs, recs_cap;
    int free_rec;               /* the first free record, -1 none */
    struct gs_intmap index;     /* pod -> its record number (int) */
    int64_t seq;
};

struct gs_queue *gs_queue_new(struct gs_world *w, gs_time initial_backoff, gs_time max_backoff)
{
    struct gs_queue *q = gs_calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->w = w;
    q->initial_backoff = initial_backoff;
    q->max_backoff = max_backoff;
    q->sort = &gs_plugin_priority_sort;
    q->free_rec = -1;
    gs_intmap_init(&q->index, sizeof(int));
    return q;
}

void gs_queue_free(struct gs_queue *q)
{
    if (!q)
        return;
    gs_free(q->heap);
    gs_free(q->waiting);
    gs_free(q->recs);
    gs_intmap_free(&q->index);
    gs_free(q);
}

/* The record of `pod`, NULL when it has none. */
static struct qpod *find_pod(const struct gs_queue *q, int pod)
{
    const int *r = gs_intmap_get(&q->index, pod);
    return r ? &q->recs[*r] : NULL;
}

static inline int rec_of(const struct gs_queue *q, const struct qpod *p)
{
    return (int)(p - q->recs);
}

/* The record of `pod`, a new one (zeroed: a pod never queued) when it has none; NULL when out
 * of memory (nothing changed then). */
static struct qpod *grow_pod(struct gs_queue *q, int pod)
{
    struct qpod *p = find_pod(q, pod); /* the common case, a pod popped and put back */
    if (p)
        return p;
    int *slot;
    if (gs_intmap_put(&q->index, pod, (void **)&slot, NULL))
        return NULL;
    int r = q->free_rec;
    if (r >= 0) {
        q->free_rec = q->recs[r].pos;
    } else if (GS_GROW(q->recs, q->recs_cap, q->nrecs + 1)) {
        gs_intmap_del(&q->index, pod);
        return NULL;
    } else {
        r = q->nrecs++;
    }
    *slot = r;
    p = &q->recs[r];
    memset(p, 0, sizeof *p);
    p->pod = pod;
    return p;
}

static const struct qpod none_pod = {.state = GS_Q_NONE};

static const struct qpod *pod_state(const struct gs_queue *q, int pod)
{
    const struct qpod *p = find_pod(q, pod);
    return p ? p : &none_pod;
}

/* Less (the QueueSort plugin's order, then insertion). */
static inline bool before(const struct gs_queue *q, const struct qentry *a, const struct qentry *b)
{
    if (a->key.k[0] != b->key.k[0])
        return a->key.k[0] < b->key.k[0];
    if (a->key.k[1] != b->key.k[1])
        return a->key.k[1] < b->key.k[1];
    if (q->sort->sort_tie) {
        int c = q->sort->sort_tie(q->w, a->pod, b->pod);
        if (c != 0)
            return c < 0;
    }
    return a->seq < b->seq;
}

static inline void heap_set(struct gs_queue *q, int pos, const struct qentry *e)
{
    q->heap[pos] = *e;
    q->recs[e->rec].pos = pos;
}

static void sift_up(struct gs_queue *q, int pos)
{
    struct qentry e = q->heap[pos];
    while (pos > 0) {
        int parent = (pos - 1) / 2;
        if (!before(q, &e, &q->heap[parent]))
            break;
        heap_set(q, pos, &q->heap[parent]);
        pos = parent;
    }
    heap_set(q, pos, &e);
}

static void sift_down(struct gs_queue *q, int pos)
{
    struct qentry e = q->heap[pos];
    for (;;) {
        int c = 2 * pos + 1;
        if (c >= q->nheap)
            break;
        if (c + 1 < q->nheap && before(q, &q->heap[c + 1], &q->heap[c]))
            c++;
        if (!before(q, &q->heap[c], &e))
            break;
        heap_set(q, pos, &q->heap[c]);
        pos = c;
    }
    heap_set(q, pos, &e);
}

static void entry_of(const struct gs_queue *q, int rec, struct qentry *e)
{
    const struct qpod *p = &q->recs[rec];
    q->sort->sort_key(q->w, p->pod, p->ts, &e->key);
    e->seq = p->seq;
    e->pod = p->pod;
    e->rec = rec;
}

static int push_active(struct gs_queue *q, int rec)
{
    if (GS_GROW(q->heap, q->heap_cap, q->nheap + 1))
        return GS_ENOMEM;
    q->recs[rec].state = GS_Q_ACTIVE;
    entry_of(q, rec, &q->heap[q->nheap]);
    q->recs[rec].pos = q->nheap++;
    sift_up(q, q->nheap - 1);
    return 0;
}

static void heap_remove(struct gs_queue *q, int pos)
{
    struct qentry last = q->heap[--q->nheap];
    if (pos < q->nheap) {
        heap_set(q, pos, &last);
        sift_up(q, pos);
        sift_down(q, q->recs[last.rec].pos);
    }
}

static void waiting_remove(struct gs_queue *q, int pos)
{
    int last = q->waiting[--q->nwaiting];
    if (pos < q->nwaiting) {
        q->waiting[pos] = last;
        q->recs[last].pos = pos;
    }
}

int gs_queue_set_sort(struct gs_queue *q, const struct gs_sched_plugin *sort)
{
    if (!sort || !sort->sort_key)
        return GS_EINVAL;
    q->sort = sort;
    for (int i = 0; i < q->nheap; i++)
        entry_of(q, q->heap[i].rec, &q->heap[i]);
    for (int i = q->nheap / 2 - 1; i >= 0; i--)
        sift_down(q, i);
    return 0;
}

int gs_queue_add(struct gs_queue *q, int pod, gs_time now)
{
    struct qpod *p = grow_pod(q, pod);
    if (!p)
        return GS_ENOMEM;
    p->ts = now;
    p->seq = q->seq++;
    p->attempts = 0;
    return push_active(q, rec_of(q, p));
}

int gs_queue_pop(struct gs_queue *q)
{
    if (q->nheap == 0)
        return -1;
    int pod = q->heap[0].pod;
    struct qpod *p = &q->recs[q->heap[0].rec];
    heap_remove(q, 0);
    p->state = GS_Q_NONE;
    p->pos = -1;
    p->attempts++;
    return pod;
}

int gs_queue_active_len(const struct gs_queue *q) { return q->nheap; }
int gs_queue_waiting_len(const struct gs_queue *q) { return q->nwaiting; }

gs_time gs_queue_backoff(const struct gs_queue *q, int attempts)
{
    /* backoff_queue.go calculateBackoffDuration: double from the initial value, stop at max
     * (comparing before doubling, so no overflow). */
    gs_time d = q->initial_backoff;
    for (int i = 1; i < attempts; i++) {
        if (d > q->max_backoff - d)
            return q->max_backoff;
        d += d;
    }
    return d < q->max_backoff ? d : q->max_backoff;
}

int gs_queue_unschedulable(struct gs_queue *q, int pod, uint32_t plugins, gs_time now)
{
    struct qpod *p = grow_pod(q, pod);
    if (!p || GS_GROW(q->waiting, q->waiting_cap, q->nwaiting + 1))
        return GS_ENOMEM;
    p->state = GS_Q_UNSCHEDULABLE;
    p->unsched_plugins = plugins;
    /* The queue timestamp is refreshed when a failed pod is put back, so it queues behind
     * same-priority pods that arrived meanwhile (reference §1.1). */
    p->ts = now;
    p->seq = q->seq++;
    p->unschedulable_since = now;
    p->backoff_until = now + gs_queue_backoff(q, p->attempts);
    p->pos = q->nwaiting;
    q->waiting[q->nwaiting++] = rec_of(q, p);
    return 0;
}

/* Move waiting pod at position `pos` out of the pool: to activeQ if its backoff is over,
 * else to backoffQ (it stays in `waiting`, in state BACKOFF). Returns 1 when it went to
 * activeQ. */
static int move_pod(struct gs_queue *q, int pos, gs_time now, int *out, int cap, int *nout)
{
    int rec = q->waiting[pos];
    struct qpod *p = &q->recs[rec];
    if (p->backoff_until <= now) {
        waiting_remove(q, pos);
        push_active(q, rec);
        return 1;
    }
    p->state = GS_Q_BACKOFF;
    if (*nout < cap)
        out[(*nout)++] = p->pod;
    return 0;
}

uint32_t gs_queue_event_plugins(enum gs_cluster_event ev)
{
    /* EventsToRegister of the filter plugins gpusim models (QueueingHints coarse form). */
    switch (ev) {
    case GS_CE_NODE_ADD:
        return (1u << GS_PL_NODE_UNSCHEDULABLE) | (1u << GS_PL_NODE_NAME) | (1u << GS_PL_TAINT_TOLERATION) |
               (1u << GS_PL_NODE_AFFINITY) | (1u << GS_PL_NODE_RESOURCES_FIT) |
               (1u << GS_PL_DYNAMIC_RESOURCES);
    case GS_CE_NODE_ALLOCATABLE:
        return (1u << GS_PL_NODE_RESOURCES_FIT) | (1u << GS_PL_DYNAMIC_RESOURCES);
    case GS_CE_NODE_LABEL:
        return (1u << GS_PL_NODE_AFFINITY) | (1u << GS_PL_DYNAMIC_RESOURCES);
    case GS_CE_NODE_TAINT:
        return (1u << GS_PL_NODE_UNSCHEDULABLE) | (1u << GS_PL_TAINT_TOLERATION);
    case GS_CE_ASSIGNED_POD_DELETE:
        return (1u << GS_PL_NODE_RESOURCES_FIT) | (1u << GS_PL_DYNAMIC_RESOURCES) | (1u << GS_PL_COSCHEDULING);
    case GS_CE_POD_ADD:
        return 1u << GS_PL_COSCHEDULING;
    case GS_CE_RESOURCE_CHANGE:
        return 1u << GS_PL_DYNAMIC_RESOURCES;
    }
    return 0;
}

int gs_queue_on_event(struct gs_queue *q, enum gs_cluster_event ev, gs_time now, int *out, int cap,
                      int *nout)
{
    uint32_t mask = gs_queue_event_plugins(ev);
    int moved = 0;
    *nout = 0;
    /* Backwards, so the swap-remove of waiting_remove only brings already-visited pods. */
    for (int i = q->nwaiting - 1; i >= 0; i--) {
        const struct qpod *p = &q->recs[q->waiting[i]];
        if (p->state != GS_Q_UNSCHEDULABLE)
            continue;
        if (p->unsched_plugins && !(p->unsched_plugins & mask))
            continue;
        moved += move_pod(q, i, now, out, cap, nout);
    }
    return moved;
}

bool gs_queue_backoff_expired(struct gs_queue *q, int pod, gs_time now)
{
    const struct qpod *p = pod_state(q, pod);
    if (p->state != GS_Q_BACKOFF || p->backoff_until > now)
        return false;
    waiting_remove(q, p->pos);
    push_active(q, rec_of(q, p));
    return true;
}

int gs_queue_flush(struct gs_queue *q, gs_time now, int *out, int cap, int *nout)
{
    int moved = 0;
    *nout = 0;
    for (int i = q->nwaiting - 1; i >= 0; i--) {
        const struct qpod *p = &q->recs[q->waiting[i]];
        if (p->state == GS_Q_UNSCHEDULABLE && now - p->unschedulable_since > GS_QUEUE_MAX_UNSCHEDULABLE)
            moved += move_pod(q, i, now, out, cap, nout);
    }
    return moved;
}

void gs_queue_remove(struct gs_queue *q, int pod)
{
    struct qpod *p = find_pod(q, pod);
    if (!p)
        return;
    switch (p->state) {
    case GS_Q_ACTIVE:
        heap_remove(q, p->pos);
        break;
    case GS_Q_BACKOFF:
    case GS_Q_UNSCHEDULABLE:
    case GS_Q_GATED:
        waiting_remove(q, p->pos);
        break;
    case GS_Q_NONE:
        break;
    }
    p->state = GS_Q_NONE;
    p->pos = -1;
}

int gs_queue_activate(struct gs_queue *q, int pod, gs_time now)
{
    const struct qpod *p = pod_state(q, pod);
    if (p->state != GS_Q_BACKOFF && p->state != GS_Q_UNSCHEDULABLE)
        return 0;
    if (p->backoff_until > now)
        return 0; /* still backing off: see queue.h */
    waiting_remove(q, p->pos);
    return push_active(q, rec_of(q, p));
}

void gs_queue_forget(struct gs_queue *q, int pod)
{
    gs_queue_remove(q, pod);
    const int *r = gs_intmap_get(&q->index, pod);
    if (!r)
        return;
    int rec = *r;
    gs_intmap_del(&q->index, pod);
    q->recs[rec].state = GS_Q_NONE;
    q->recs[rec].pod = -1;
    q->recs[rec].pos = q->free_rec;
    q->free_rec = rec;
}

void gs_queue_restart(struct gs_queue *q)
{
    while (q->nwaiting > 0) {
        int rec = q->waiting[q->nwaiting - 1];
        waiting_remove(q, q->nwaiting - 1);
        push_active(q, rec);
    }
    for (int i = 0; i < q->nheap; i++) {
        struct qpod *p = &q->recs[q->heap[i].rec];
        p->attempts = 0;
        p->backoff_until = 0;
        p->unsched_plugins = 0;
    }
}

enum gs_qstate gs_queue_state(const struct gs_queue *q, int pod)
{
    return pod_state(q, pod)->state;
}

int gs_queue_attempts(const struct gs_queue *q, int pod)
{
    return pod_state(q, pod)->attempts;
}

gs_time gs_queue_backoff_until(const struct gs_queue *q, int pod)
{
    return pod_state(q, pod)->backoff_until;
}

uint32_t gs_queue_unsched_plugins(const struct gs_queue *q, int pod)
{
    return pod_state(q, pod)->unsched_plugins;
}
