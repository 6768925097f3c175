/* The scheduling attempts' rows of a trace at --trace-level full (sim/cluster.h
 * gs_cluster_attempt_*; tables attempt, verdict, verdict_reason, node_set, node_set_verdict,
 * attempt_score and the view attempt_verdict in docs/trace-schema.md).
 *
 * The scheduler controller installs a scheduler observer (models/sched/sched.h) that hands
 * every node's verdict and every (feasible node, Score plugin) score of a cycle to this file as
 * the cycle goes; they are kept here until the cycle's result, then written as one attempt.
 *
 * What keeps it small (a failing cycle judges every node, and a busy 1,000-node cluster runs
 * hundreds of thousands of them):
 * - A verdict is a node's whole filter status: the first failing plugin, its code and its
 *   reasons joined by ", " (upstream's Status.Message(), framework/interface.go). Each distinct
 *   one is written once to `verdict` (its reasons one by one to `verdict_reason`), numbered
 *   from 1 in order of first use; nodes name it by id.
 * - The per-node verdicts of an attempt form a node set. A set is written either in full (a row
 *   per node judged) or as a delta against a full set (`base`): a row only for the nodes whose
 *   verdict differs, verdict 0 for a node the base judged and this attempt did not. Attempts of
 *   pods of one template (the pods of one workload) keep their template's last full set as the
 *   base while they differ from it on at most 1/8 of the nodes, so an attempt after one pod
 *   bound costs a row or two instead of a row per node. An attempt whose node set equals the
 *   template's previous one (same hash) reuses it. The bases live in a small cache
 *   (BASE_SLOTS templates, least recently used goes; a template without a slot writes a full
 *   set).
 * - A pod the scheduler retries without anything it depends on having changed gets the same
 *   attempt again: identical to the pod's previous one in every column but its time (node set
 *   and scores included), it is not written again; the previous attempt's count goes up and its
 *   last_us is set, as pod_event folds a repeated FailedScheduling (Kubernetes' event
 *   aggregation).
 * "Identical" is decided on 64-bit FNV-1a hashes of what would be written, plus row counts: a
 * false match needs a hash collision between two attempts of one template.
 *
 * Reason strings are interned in the cluster's message table (they come from the scheduler's
 * scratch, valid only during the callback); they are few (taint texts, "Insufficient <res>",
 * PreFilter texts), so the table stays small.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "sim/cluster/internal.h"

#define BASE_SLOTS 16
/* attempt_score keeps the scores of this many feasible nodes with the highest totals (the
 * chosen node always among them). */
#define SCORE_NODES 16

/* One node's verdict in the attempt being recorded. */
struct attempt_row {
    int node;
    int verdict; /* id in the verdict table */
};

struct attempt_score {
    int node;
    uint8_t plugin;
    int64_t score, weight;
};

/* A distinct verdict (its id is its index + 1). */
struct verdict {
    uint8_t code, plugin; /* plugin GS_PL_COUNT: none (Success) */
    const char *reason;   /* interned, compared by pointer; NULL for Success */
};

/* A template's base: its last full node set, per node the verdict (0: not judged). */
struct base {
    const struct gs_pod_template *t; /* NULL: free slot */
    uint64_t used;
    int set_id;        /* the full set */
    int *v;            /* per node index, sized vcap */
    int vcap;
    int nv;            /* nodes the base covers (indexes >= nv: 0) */
    uint64_t last_hash; /* the template's last node set (full or delta) and its id */
    int last_set;
};

/* The pod's previous attempt, for folding. */
struct attempt_last {
    int64_t id;
    uint64_t hash;
};

struct gs_attempts {
    int pod;        /* the pod of the cycle being recorded, -1 between cycles */
    struct attempt_row *rows;
    int nrows, rows_cap;
    struct attempt_score *sc;
    int nsc, sc_cap;
    struct verdict *v;
    int nv, v_cap;
    int v_last;     /* the index found last (a pool's nodes share their verdicts) */
    struct base base[BASE_SLOTS];
    uint64_t clock;
    int nsets;      /* node sets written (ids 1..nsets) */
    int *cur;       /* scratch: the attempt's verdict per node index (0: not judged) */
    int cur_cap;
    int64_t *total; /* scratch: the attempt's total score per node index */
    int total_cap;
    int top[SCORE_NODES]; /* the nodes whose scores are kept */
    int ntop;
    char buf[2048]; /* scratch: reasons joined */
    /* The status seen last (nodes of a pool in a row usually share it): its reasons interned
     * one by one and its verdict id, so a node with the same status costs a few strcmp. */
    int last_code, last_plugin, last_nreasons, last_verdict;
    const char *last_reasons[GS_MAX_REASONS];
    struct gs_intmap last; /* pod -> struct attempt_last */
};

/* Upstream's Code names (kubernetes pkg/scheduler/framework/interface.go, Code.String). */
static const char *code_name(int code)
{
    switch (code) {
    case GS_ST_SUCCESS:
        return "Success";
    case GS_ST_UNSCHEDULABLE:
        return "Unschedulable";
    case GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE:
        return "UnschedulableAndUnresolvable";
    case GS_ST_ERROR:
        return "Error";
    case GS_ST_SKIP:
        return "Skip";
    case GS_ST_WAIT:
        return "Wait";
    default:
        return "Unknown";
    }
}

static struct gs_attempts *attempts_of(struct gs_cluster *c)
{
    if (c->attempts)
        return c->attempts;
    struct gs_attempts *a = gs_calloc(1, sizeof *a);
    if (!a) {
        gs_cluster_fail(c, GS_ENOMEM);
        return NULL;
    }
    a->pod = -1;
    gs_intmap_init(&a->last, sizeof(struct attempt_last));
    c->attempts = a;
    return a;
}

void gs_cluster_attempts_free(struct gs_cluster *c)
{
    struct gs_attempts *a = c->attempts;
    if (!a)
        return;
    gs_free(a->rows);
    gs_free(a->sc);
    gs_free(a->v);
    gs_free(a->cur);
    gs_free(a->total);
    for (int i = 0; i < BASE_SLOTS; i++)
        gs_free(a->base[i].v);
    gs_intmap_free(&a->last);
    gs_free(a);
    c->attempts = NULL;
}

/* The first callback of a cycle for `pod` starts its record. */
static struct gs_attempts *begin(struct gs_cluster *c, int pod)
{
    struct gs_attempts *a = attempts_of(c);
    if (a && a->pod != pod) {
        a->pod = pod;
        a->nrows = a->nsc = 0;
        a->last_verdict = 0;
        /* room for a row per node (more only with nodes added during the cycle, never) */
        if (GS_GROW(a->rows, a->rows_cap, c->w->nnodes + 1)) {
            gs_cluster_fail(c, GS_ENOMEM);
            return NULL;
        }
    }
    return a;
}

/* The id of verdict (code, plugin, reason), written with its reasons at its first use; 0 on
 * error (recorded). */
static int verdict_id(struct gs_cluster *c, struct gs_attempts *a, int code, int plugin, const char *reason,
                      const struct gs_node_status *st)
{
    if (a->v_last < a->nv) {
        const struct verdict *v = &a->v[a->v_last];
        if (v->code == code && v->plugin == plugin && v->reason == reason)
            return a->v_last + 1;
    }
    for (int i = 0; i < a->nv; i++) {
        const struct verdict *v = &a->v[i];
        if (v->code == code && v->plugin == plugin && v->reason == reason) {
            a->v_last = i;
            return i + 1;
        }
    }
    if (GS_GROW(a->v, a->v_cap, a->nv + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return 0;
    }
    a->v[a->nv] = (struct verdict){.code = (uint8_t)code, .plugin = (uint8_t)plugin, .reason = reason};
    int id = ++a->nv;
    a->v_last = id - 1;
    int rc = gs_trace_verdict(c->trace, id, plugin < GS_PL_COUNT ? gs_plugin_name((enum gs_plugin)plugin) : NULL,
                              code_name(code), reason);
    for (int i = 0; rc == 0 && code != GS_ST_SUCCESS && i < st->nreasons; i++)
        rc = gs_trace_verdict_reason(c->trace, id, st->reasons[i]);
    gs_cluster_fail(c, rc);
    return rc ? 0 : id;
}

/* Does st have the reasons of the status seen last? */
static bool same_reasons(const struct gs_attempts *a, const struct gs_node_status *st)
{
    int n = st->code == GS_ST_SUCCESS ? 0 : st->nreasons;
    if (n != a->last_nreasons)
        return false;
    for (int i = 0; i < n; i++)
        if (!st->reasons[i] || strcmp(st->reasons[i], a->last_reasons[i]) != 0)
            return false;
    return true;
}

/* Remember st (verdict `id`) as the status seen last; false on out of memory (recorded). */
static bool remember(struct gs_cluster *c, struct gs_attempts *a, const struct gs_node_status *st, int id)
{
    a->last_verdict = 0;
    int n = st->nreasons < GS_MAX_REASONS ? st->nreasons : GS_MAX_REASONS;
    for (int i = 0; i < n; i++)
        if (!(a->last_reasons[i] = gs_intern(&c->messages, st->reasons[i] ? st->reasons[i] : ""))) {
            gs_cluster_fail(c, GS_ENOMEM);
            return false;
        }
    a->last_nreasons = n;
    a->last_code = st->code;
    a->last_plugin = st->plugin;
    a->last_verdict = id;
    return true;
}

void gs_cluster_attempt_node(struct gs_cluster *c, int pod, int node, const struct gs_node_status *st)
{
    struct gs_attempts *a = begin(c, pod);
    if (!a)
        return;
    if (a->nrows >= a->rows_cap && GS_GROW(a->rows, a->rows_cap, a->nrows + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    int id;
    if (a->last_verdict && (int)st->code == a->last_code &&
        (st->code == GS_ST_SUCCESS || (int)st->plugin == a->last_plugin) &&
        same_reasons(a, st)) {
        id = a->last_verdict;
    } else if (st->code == GS_ST_SUCCESS) {
        id = verdict_id(c, a, GS_ST_SUCCESS, GS_PL_COUNT, NULL, st);
        if (id) {
            a->last_code = GS_ST_SUCCESS;
            a->last_plugin = GS_PL_COUNT;
            a->last_nreasons = 0;
            a->last_verdict = id;
        }
    } else {
        /* Status.Message(): the reasons joined by ", ". */
        size_t len = 0;
        a->buf[0] = '\0';
        for (int i = 0; i < st->nreasons && len < sizeof a->buf; i++)
            len += (size_t)snprintf(a->buf + len, sizeof a->buf - len, "%s%s", i ? ", " : "",
                                    st->reasons[i] ? st->reasons[i] : "");
        const char *r = gs_intern(&c->messages, a->buf);
        if (!r) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
        id = verdict_id(c, a, st->code, st->plugin, r, st);
        if (id && !remember(c, a, st, id))
            return;
    }
    if (id)
        a->rows[a->nrows++] = (struct attempt_row){.node = node, .verdict = id};
}

void gs_cluster_attempt_score(struct gs_cluster *c, int pod, int node, int plugin, int64_t score, int64_t weight)
{
    struct gs_attempts *a = begin(c, pod);
    if (!a)
        return;
    if (GS_GROW(a->sc, a->sc_cap, a->nsc + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    a->sc[a->nsc++] = (struct attempt_score){.node = node, .plugin = (uint8_t)plugin, .score = score, .weight = weight};
}

/* FNV-1a, 64 bits. */
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}
static uint64_t fnv_i64(uint64_t h, int64_t v)
{
    return fnv(h, &v, sizeof v);
}
static uint64_t fnv_str(uint64_t h, const char *s)
{
    return s ? fnv(h, s, strlen(s) + 1) : fnv_i64(h, -1);
}

/* The template's base slot (taken over from the least recently used when it has none); NULL
 * never (a slot is always found). */
static struct base *base_of(struct gs_attempts *a, const struct gs_pod_template *t)
{
    struct base *lru = &a->base[0];
    for (int i = 0; i < BASE_SLOTS; i++) {
        struct base *b = &a->base[i];
        if (b->t == t) {
            b->used = ++a->clock;
            return b;
        }
        if (!b->t || (lru->t && b->used < lru->used))
            lru = b;
    }
    lru->t = t;
    lru->used = ++a->clock;
    lru->set_id = 0; /* no base yet: the first set is written in full */
    lru->nv = 0;
    lru->last_set = 0;
    lru->last_hash = 0;
    return lru;
}

static int base_verdict(const struct base *b, int node)
{
    return node < b->nv ? b->v[node] : 0;
}

/* The attempt's verdict per node index into a->cur, and the hash of that node set (0 on out
 * of memory, recorded). */
static uint64_t node_set_hash(struct gs_cluster *c, struct gs_attempts *a)
{
    int nnodes = c->w->nnodes;
    if (GS_GROW_ZERO(a->cur, a->cur_cap, nnodes)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return 0;
    }
    memset(a->cur, 0, sizeof *a->cur * (size_t)nnodes);
    for (int i = 0; i < a->nrows; i++)
        if (a->rows[i].node >= 0 && a->rows[i].node < nnodes)
            a->cur[a->rows[i].node] = a->rows[i].verdict;
    /* One multiply per node (FNV-1a over 64-bit words rather than bytes): this runs for every
     * cycle over every node. */
    uint64_t h = FNV_OFFSET;
    for (int n = 0; n < nnodes; n++)
        if (a->cur[n])
            h = (h ^ ((uint64_t)n << 32 | (uint32_t)a->cur[n])) * UINT64_C(0x100000001b3);
    h = fnv_i64(h, a->nrows);
    return h ? h : 1;
}

/* Write the attempt's node set (a->cur, hash h) and return its id (0 on error, recorded). */
static int node_set(struct gs_cluster *c, struct gs_attempts *a, int pod, uint64_t h)
{
    const struct gs_world *w = c->w;
    int nnodes = w->nnodes;
    struct base *b = base_of(a, w->pods[pod].tmpl);
    if (b->last_set && b->last_hash == h)
        return b->last_set;
    /* The nodes that differ from the base (every node, when there is none). */
    int ndiff = 0;
    if (b->set_id) {
        int lim = nnodes > b->nv ? nnodes : b->nv;
        for (int n = 0; n < lim; n++)
            ndiff += (n < nnodes ? a->cur[n] : 0) != base_verdict(b, n);
    }
    bool delta = b->set_id && ndiff <= nnodes / 8;
    int id = a->nsets + 1;
    int rc = gs_trace_node_set(c->trace, id, delta ? b->set_id : 0);
    if (delta) {
        int lim = nnodes > b->nv ? nnodes : b->nv;
        for (int n = 0; n < lim && rc == 0; n++) {
            int v = n < nnodes ? a->cur[n] : 0;
            if (v != base_verdict(b, n))
                rc = gs_trace_node_set_verdict(c->trace, id, n, v);
        }
    } else {
        for (int n = 0; n < nnodes && rc == 0; n++)
            if (a->cur[n])
                rc = gs_trace_node_set_verdict(c->trace, id, n, a->cur[n]);
        if (rc == 0) {
            /* The new full set is the template's base. */
            if (GS_GROW_ZERO(b->v, b->vcap, nnodes)) {
                gs_cluster_fail(c, GS_ENOMEM);
                b->t = NULL;
                return 0;
            }
            memcpy(b->v, a->cur, sizeof *b->v * (size_t)nnodes);
            b->nv = nnodes;
            b->set_id = id;
        }
    }
    if (rc) {
        gs_cluster_fail(c, rc);
        return 0;
    }
    a->nsets = id;
    b->last_set = id;
    b->last_hash = h;
    return id;
}

/* Everything the attempt would write but its time. */
static uint64_t attempt_hash(const struct gs_attempts *a, const struct gs_trace_attempt *t, uint64_t set_hash)
{
    uint64_t h = FNV_OFFSET;
    h = fnv_i64(h, t->node_id);
    h = fnv_i64(h, t->feasible);
    h = fnv_i64(h, t->evaluated);
    h = fnv_i64(h, t->scored ? t->score : -1);
    h = fnv_i64(h, t->group_pod_id);
    h = fnv_i64(h, (int64_t)set_hash);
    h = fnv_str(h, t->message);
    h = fnv_i64(h, a->nsc);
    for (int i = 0; i < a->nsc; i++) {
        const struct attempt_score *s = &a->sc[i];
        h = fnv_i64(h, (int64_t)s->node << 8 | s->plugin);
        h = fnv_i64(h, s->score);
        h = fnv_i64(h, s->weight);
    }
    return h;
}

/* Is node x (total tx) ranked before node y (total ty)? The higher total first, the chosen node
 * first among equals, then the lower index. */
static bool ranks_before(int x, int64_t tx, int y, int64_t ty, int chosen)
{
    if (tx != ty)
        return tx > ty;
    if ((x == chosen) != (y == chosen))
        return x == chosen;
    return x < y;
}

/* The SCORE_NODES feasible nodes with the highest totals into a->top (0 nodes on out of memory,
 * recorded). */
static void top_scores(struct gs_cluster *c, struct gs_attempts *a, int chosen)
{
    int nnodes = c->w->nnodes;
    a->ntop = 0;
    if (a->nsc == 0)
        return;
    if (GS_GROW(a->total, a->total_cap, nnodes)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    /* The rows come plugin by plugin, each over the feasible nodes in one order: the first
     * plugin's rows list the nodes. */
    int nfeas = 0;
    while (nfeas < a->nsc && a->sc[nfeas].plugin == a->sc[0].plugin)
        nfeas++;
    for (int i = 0; i < nfeas; i++)
        a->total[a->sc[i].node] = 0;
    for (int i = 0; i < a->nsc; i++)
        a->total[a->sc[i].node] += a->sc[i].score * a->sc[i].weight;
    for (int i = 0; i < nfeas; i++) {
        int n = a->sc[i].node;
        int64_t t = a->total[n];
        int k = a->ntop < SCORE_NODES ? a->ntop++ : SCORE_NODES;
        /* Insert n in rank order (dropped when it ranks after the last of a full list). */
        while (k > 0 && ranks_before(n, t, a->top[k - 1], a->total[a->top[k - 1]], chosen)) {
            if (k < SCORE_NODES)
                a->top[k] = a->top[k - 1];
            k--;
        }
        if (k < SCORE_NODES)
            a->top[k] = n;
    }
}

static bool in_top(const struct gs_attempts *a, int node)
{
    for (int i = 0; i < a->ntop; i++)
        if (a->top[i] == node)
            return true;
    return false;
}

void gs_cluster_attempt_done(struct gs_cluster *c, int pod, const struct gs_cycle_result *r, int group_pod)
{
    struct gs_attempts *a = begin(c, pod);
    if (!a)
        return;
    a->pod = -1; /* the next cycle starts afresh, even for the same pod */
    if (r->oom || c->err)
        return; /* the run ends on its error: no attempt to show */
    uint64_t set_hash = node_set_hash(c, a);
    if (!set_hash)
        return;
    gs_time now = gs_cluster_now(c);
    struct gs_trace_attempt t = {.t_us = now,
                                 .pod_id = pod,
                                 .node_id = r->node,
                                 .feasible = r->feasible,
                                 .evaluated = r->evaluated,
                                 .scored = a->nsc > 0,
                                 .score = r->score,
                                 .message = r->node < 0 ? r->message : NULL,
                                 .group_pod_id = group_pod};
    uint64_t h = attempt_hash(a, &t, set_hash);
    struct attempt_last *last = gs_intmap_get(&a->last, pod);
    if (last && last->hash == h) {
        gs_cluster_fail(c, gs_trace_attempt_again(c->trace, last->id, now));
        return;
    }
    if (!(t.node_set_id = node_set(c, a, pod, set_hash)))
        return;
    int64_t id = 0;
    int rc = gs_trace_attempt(c->trace, &t, &id);
    top_scores(c, a, r->node);
    for (int i = 0; i < a->nsc && rc == 0; i++) {
        const struct attempt_score *s = &a->sc[i];
        if (!in_top(a, s->node))
            continue;
        rc = gs_trace_attempt_score(c->trace, id, s->node, gs_plugin_name((enum gs_plugin)s->plugin), s->score,
                                    s->weight);
    }
    gs_cluster_fail(c, rc);
    if (rc || id == 0)
        return;
    if (!last) {
        void *v;
        if (gs_intmap_put(&a->last, pod, &v, NULL)) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
        last = v;
    }
    *last = (struct attempt_last){.id = id, .hash = h};
}
