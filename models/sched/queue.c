/* The scheduling queue (see include/gpusim/queue.h). activeQ is a binary heap of pod indexes;
 * the unschedulable pool and backoffQ share one unordered array ("waiting"), told apart by the
 * pod's qstate. A pod's heap_pos is its position in whichever of the two holds it. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/sched/queue.h"
#include "models/sched/sched.h"

struct gs_queue {
    struct gs_world *w;
    gs_time initial_backoff, max_backoff;
    int *heap;
    int nheap, heap_cap;
    int *waiting;
    int nwaiting, waiting_cap;
    int64_t seq;
    bool cosched_sort;
};

void gs_queue_set_coscheduling_sort(struct gs_queue *q, bool on)
{
    q->cosched_sort = on;
}

struct gs_queue *gs_queue_new(struct gs_world *w, gs_time initial_backoff, gs_time max_backoff)
{
    struct gs_queue *q = gs_calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->w = w;
    q->initial_backoff = initial_backoff;
    q->max_backoff = max_backoff;
    return q;
}

void gs_queue_free(struct gs_queue *q)
{
    if (!q)
        return;
    gs_free(q->heap);
    gs_free(q->waiting);
    gs_free(q);
}

static int reserve(int **arr, int *cap, int need)
{
    if (need <= *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    int *p = gs_realloc(*arr, sizeof *p * (size_t)ncap);
    if (!p)
        return GS_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Coscheduling Less (scheduler-plugins coscheduling.go): higher priority, then the earlier
 * PodGroup creationTimestamp (a pod outside a group: its initial attempt, here its creation),
 * then the smaller namespace/name of the group (or pod), which keeps siblings together; then
 * insertion order (the real heap leaves equal keys in no particular order). */
static bool cosched_before(const struct gs_world *w, const struct gs_pod *a, const struct gs_pod *b)
{
    gs_time ta = a->group >= 0 ? w->groups[a->group].created_us : a->created_us;
    gs_time tb = b->group >= 0 ? w->groups[b->group].created_us : b->created_us;
    if (ta != tb)
        return ta < tb;
    const char *ka = a->group >= 0 ? w->groups[a->group].name : a->name;
    const char *kb = b->group >= 0 ? w->groups[b->group].name : b->name;
    int c = strcmp(ka, kb);
    if (c != 0)
        return c < 0;
    return a->queue_seq < b->queue_seq;
}

/* PrioritySort Less: higher priority, then earlier queue timestamp, then insertion order. */
static bool before_sort(const struct gs_queue *q, const struct gs_pod *a, const struct gs_pod *b)
{
    if (a->tmpl->priority != b->tmpl->priority)
        return a->tmpl->priority > b->tmpl->priority;
    if (q->cosched_sort)
        return cosched_before(q->w, a, b);
    if (a->queue_ts != b->queue_ts)
        return a->queue_ts < b->queue_ts;
    return a->queue_seq < b->queue_seq;
}

static void heap_set(struct gs_queue *q, int pos, int pod)
{
    q->heap[pos] = pod;
    q->w->pods[pod].heap_pos = pos;
}

static void sift_up(struct gs_queue *q, int pos)
{
    struct gs_pod *pods = q->w->pods;
    int pod = q->heap[pos];
    while (pos > 0) {
        int parent = (pos - 1) / 2;
        if (!before_sort(q, &pods[pod], &pods[q->heap[parent]]))
            break;
        heap_set(q, pos, q->heap[parent]);
        pos = parent;
    }
    heap_set(q, pos, pod);
}

static void sift_down(struct gs_queue *q, int pos)
{
    struct gs_pod *pods = q->w->pods;
    int pod = q->heap[pos];
    for (;;) {
        int c = 2 * pos + 1;
        if (c >= q->nheap)
            break;
        if (c + 1 < q->nheap && before_sort(q, &pods[q->heap[c + 1]], &pods[q->heap[c]]))
            c++;
        if (!before_sort(q, &pods[q->heap[c]], &pods[pod]))
            break;
        heap_set(q, pos, q->heap[c]);
        pos = c;
    }
    heap_set(q, pos, pod);
}

static int push_active(struct gs_queue *q, int pod)
{
    if (reserve(&q->heap, &q->heap_cap, q->nheap + 1))
        return GS_ENOMEM;
    q->w->pods[pod].qstate = GS_Q_ACTIVE;
    q->heap[q->nheap] = pod;
    q->w->pods[pod].heap_pos = q->nheap++;
    sift_up(q, q->nheap - 1);
    return 0;
}

static void heap_remove(struct gs_queue *q, int pos)
{
    int last = q->heap[--q->nheap];
    if (pos < q->nheap) {
        heap_set(q, pos, last);
        sift_up(q, pos);
        sift_down(q, q->w->pods[last].heap_pos);
    }
}

static void waiting_remove(struct gs_queue *q, int pos)
{
    int last = q->waiting[--q->nwaiting];
    if (pos < q->nwaiting) {
        q->waiting[pos] = last;
        q->w->pods[last].heap_pos = pos;
    }
}

int gs_queue_add(struct gs_queue *q, int pod, gs_time now)
{
    struct gs_pod *p = &q->w->pods[pod];
    p->queue_ts = now;
    p->queue_seq = q->seq++;
    p->attempts = 0;
    return push_active(q, pod);
}

int gs_queue_pop(struct gs_queue *q)
{
    if (q->nheap == 0)
        return -1;
    int pod = q->heap[0];
    heap_remove(q, 0);
    struct gs_pod *p = &q->w->pods[pod];
    p->qstate = GS_Q_NONE;
    p->heap_pos = -1;
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
    struct gs_pod *p = &q->w->pods[pod];
    if (reserve(&q->waiting, &q->waiting_cap, q->nwaiting + 1))
        return GS_ENOMEM;
    p->qstate = GS_Q_UNSCHEDULABLE;
    p->unsched_plugins = plugins;
    /* The queue timestamp is refreshed when a failed pod is put back, so it queues behind
     * same-priority pods that arrived meanwhile (reference §1.1). */
    p->queue_ts = now;
    p->queue_seq = q->seq++;
    p->unschedulable_since = now;
    p->backoff_until = now + gs_queue_backoff(q, p->attempts);
    p->heap_pos = q->nwaiting;
    q->waiting[q->nwaiting++] = pod;
    return 0;
}

/* Move waiting pod at position `pos` out of the pool: to activeQ if its backoff is over,
 * else to backoffQ (it stays in `waiting`, with qstate BACKOFF). Returns 1 when it went to
 * activeQ. */
static int move_pod(struct gs_queue *q, int pos, gs_time now, int *out, int cap, int *nout)
{
    int pod = q->waiting[pos];
    struct gs_pod *p = &q->w->pods[pod];
    if (p->backoff_until <= now) {
        waiting_remove(q, pos);
        push_active(q, pod);
        return 1;
    }
    p->qstate = GS_Q_BACKOFF;
    if (*nout < cap)
        out[(*nout)++] = pod;
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
        struct gs_pod *p = &q->w->pods[q->waiting[i]];
        if (p->qstate != GS_Q_UNSCHEDULABLE)
            continue;
        if (p->unsched_plugins && !(p->unsched_plugins & mask))
            continue;
        moved += move_pod(q, i, now, out, cap, nout);
    }
    return moved;
}

bool gs_queue_backoff_expired(struct gs_queue *q, int pod, gs_time now)
{
    struct gs_pod *p = &q->w->pods[pod];
    if (p->qstate != GS_Q_BACKOFF || p->backoff_until > now)
        return false;
    waiting_remove(q, p->heap_pos);
    push_active(q, pod);
    return true;
}

int gs_queue_flush(struct gs_queue *q, gs_time now, int *out, int cap, int *nout)
{
    int moved = 0;
    *nout = 0;
    for (int i = q->nwaiting - 1; i >= 0; i--) {
        struct gs_pod *p = &q->w->pods[q->waiting[i]];
        if (p->qstate == GS_Q_UNSCHEDULABLE && now - p->unschedulable_since > GS_QUEUE_MAX_UNSCHEDULABLE)
            moved += move_pod(q, i, now, out, cap, nout);
    }
    return moved;
}

void gs_queue_remove(struct gs_queue *q, int pod)
{
    struct gs_pod *p = &q->w->pods[pod];
    switch (p->qstate) {
    case GS_Q_ACTIVE:
        heap_remove(q, p->heap_pos);
        break;
    case GS_Q_BACKOFF:
    case GS_Q_UNSCHEDULABLE:
    case GS_Q_GATED:
        waiting_remove(q, p->heap_pos);
        break;
    case GS_Q_NONE:
        break;
    }
    p->qstate = GS_Q_NONE;
    p->heap_pos = -1;
}

int gs_queue_activate(struct gs_queue *q, int pod, gs_time now)
{
    struct gs_pod *p = &q->w->pods[pod];
    if (p->qstate != GS_Q_BACKOFF && p->qstate != GS_Q_UNSCHEDULABLE)
        return 0;
    if (p->backoff_until > now)
        return 0; /* still backing off: see queue.h */
    waiting_remove(q, p->heap_pos);
    return push_active(q, pod);
}

void gs_queue_restart(struct gs_queue *q)
{
    while (q->nwaiting > 0) {
        int pod = q->waiting[q->nwaiting - 1];
        waiting_remove(q, q->nwaiting - 1);
        push_active(q, pod);
    }
    for (int i = 0; i < q->nheap; i++) {
        struct gs_pod *p = &q->w->pods[q->heap[i]];
        p->attempts = 0;
        p->backoff_until = 0;
        p->unsched_plugins = 0;
    }
}
