/* The Cluster Autoscaler controller: node pools with `autoscaling` are node groups it resizes
 * (sim/autoscaler.h for the configuration, docs/scenario-format.md "Cluster Autoscaler").
 *
 * Follows kubernetes/autoscaler cluster-autoscaler, release 1.35.2 (FAQ.md "How does scale-up
 * work?", "How does scale-down work?"; core/static_autoscaler.go RunOnce; core/scaleup/
 * orchestrator; estimator/binpacking_estimator.go and decreasing_pod_orderer.go; expander/waste,
 * mostpods, random, priority and factory/chain.go; processors/customresources/gpu_processor.go
 * and utils/gpu; clusterstate (max-node-provision-time, node group backoff); processors/status/
 * eventing_scale_up_processor.go for the pod events). Every scanInterval (from time 0):
 *
 * 1. Scale-up requests: a requested node that has not registered, or (a GPU group) registered
 *    but shows no nvidia.com/gpu allocatable (the GPU label override of gpu_processor.go: a Ready
 *    GPU node without allocatable GPUs counts as unready, which is the GPU Operator's bring-up
 *    window), within maxNodeProvisionTime of the request fails the scale-up: those nodes are
 *    removed and the group backs off (initialNodeGroupBackoffDuration doubling to
 *    maxNodeGroupBackoffDuration, reset after nodeGroupBackoffResetTimeout without failure).
 * 2. Unschedulable pods: Pending, unbound, with a FailedScheduling (PodScheduled False, reason
 *    Unschedulable), not nominated to a node (preemption makes room there), at least
 *    newPodScaleUpDelay old. A snapshot of the cluster (its own gs_world) holds the ready nodes
 *    as they are, and one template node per node not yet ready of each group (upcoming); pods
 *    that fit there (first fit, the scheduler's filter plugins run by a gs_sched of the
 *    autoscaler's own, as cluster-autoscaler runs the scheduler framework's filters on its
 *    ClusterSnapshot) are left to the scheduler (filter_out_schedulable).
 * 3. For each group not in backoff and below maxSize, a template node (the labels, taints,
 *    allocatable and GPUs of a ready node of the group if it has one, else the pool's own with
 *    nvidia.com/gpu = gpu.count: what a node will be once ready) is filtered against each
 *    remaining pod; the binpacking estimator packs the pods it passes, first fit decreasing
 *    (cpu and memory relative to the template, decreasing_pod_orderer.go), adding template
 *    nodes while pods remain and up to maxSize - current - upcoming. The expanders chain picks one
 *    option (ties left at the end broken at random); its group is resized: each node joins after
 *    its own provisioning draw (GS_STREAM_AUTOSCALER) and then goes through the GPU Operator's
 *    bring-up when the scenario has one. Pods get TriggeredScaleUp; when nothing scales up, the
 *    pods no group can help get NotTriggerScaleUp with the aggregated reasons (each written
 *    when its text changes, not every scan).
 * 4. Scale-down (not in a loop that scaled up): a node of a group is unneeded when its
 *    utilisation (GPU nodes: requested/allocatable nvidia.com/gpu; others: the larger of cpu and
 *    memory) is below the threshold and every pod on it is owned by a controller that recreates
 *    it (gpusim: a plain workload, a Job or a LeaderWorkerSet pod, not pinned by nodeName, not a
 *    PodGroup member; a bare Pod manifest or a listed pod blocks) and fits another node of the
 *    snapshot. After scaleDownUnneededTime unneeded, and scaleDownDelayAfterAdd after the last
 *    scale-up, empty nodes are deleted in bulk (up to maxEmptyBulkDelete) and one non-empty node
 *    at a time is drained (its pods evicted as the `drain` event does) and deleted once empty;
 *    never below minSize.
 *
 * Decisions are `object` rows of kind NodeGroup (ScaleUp, ScaleDown, ScaleUpFailed, BackOff)
 * and pod events (TriggeredScaleUp, NotTriggerScaleUp): docs/trace-schema.md.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/quantity.h"
#include "base/intern.h"
#include "models/sched/sched.h"
#include "sim/autoscaler.h"
#include "sim/controller.h"

enum { T_SCAN = 0, T_CREATE = 1 };

/* A node asked of the cloud provider by a scale-up, until it is ready (or fails). */
struct request {
    int pool;
    int node;          /* world index once registered, -1 before */
    gs_time deadline;  /* requested at + maxNodeProvisionTime */
    gs_event_handle ev; /* its registration, while not registered */
    bool live;
};

struct group {
    int failures;          /* consecutive failed scale-ups (backoff exponent) */
    gs_time backoff_until; /* no scale-up before */
    gs_time last_failure;
};

struct option {
    int pool;
    int count;  /* nodes */
    int first;  /* its pods: opt_pods[first .. first + npods) (snapshot pod indexes) */
    int npods;
};

struct as {
    int self;
    const struct gs_autoscaler_spec *sp;
    struct gs_sched_config cfg; /* the scenario's profile without DynamicResources */
    struct group *g;            /* per pool */
    struct request *rq;
    int nrq, rqcap;
    gs_time *unneeded_since;    /* per node: 0 none, else time + 1 */
    int uncap;
    uint8_t *draining;          /* per node: drained by a scale-down, deleted once empty */
    int drcap;
    const char **pod_msg;       /* per pod: the last autoscaler event message written (interned) */
    int pmcap;
    struct gs_intern msgs;
    struct gs_arena arena;      /* for msgs */
    regex_t *re;                /* the priority expander's regexes, flattened */
    int nre;
    bool scanning;              /* the scan loop runs */
    bool scaled_up;             /* some scale-up happened */
    gs_time last_scale_up;
    /* the scan's snapshot */
    struct gs_world snap;
    struct gs_sched *sched;
    bool snap_live;
    int *snap_real;             /* snapshot node -> world node, -1 a template */
    int srcap;
    int *pods;                  /* snapshot pods of the scan's unschedulable pods */
    int *real_pod;              /* snapshot pod -> world pod */
    int rpcap, pcap;
    int *scratch, scap;
    int *opt_pods, opcap, nopt_pods;
    struct option *opts;
    int ocap;
};

/* ------------------------------------------------------------------ small helpers */

/* A duration in whole seconds, as Go prints it: "10m0s", "1h2m3s" (models/quantity.h). */
static void fmt_dur(gs_time us, char *buf, size_t n)
{
    gs_duration_format(us - us % 1000000, buf, n);
}

static gs_time draw(struct gs_cluster *c, const struct gs_dur *d)
{
    double v;
    switch (d->kind) {
    case GS_DUR_UNIFORM:
        if (d->max <= d->min)
            return d->min;
        v = (double)d->min + gs_rng_uniform(c->rng, GS_STREAM_AUTOSCALER) * (double)(d->max - d->min);
        break;
    case GS_DUR_EXPONENTIAL:
        v = d->mean > 0 ? gs_rng_exponential(c->rng, GS_STREAM_AUTOSCALER, (double)d->mean) : 0;
        break;
    case GS_DUR_LOGNORMAL:
        v = d->sigma > 0 ? gs_rng_lognormal(c->rng, GS_STREAM_AUTOSCALER, (double)d->median, d->sigma)
                         : (double)d->median;
        break;
    default:
        return d->fixed > 0 ? d->fixed : 0;
    }
    return v > 0 ? (gs_time)llround(v) : 0;
}

/* Ready as cluster-autoscaler sees it: registered, Ready, and for a GPU node with its GPUs
 * allocatable (gpu_processor.go FilterOutNodesWithUnreadyResources). */
static bool node_ready(const struct gs_cluster *c, int ni)
{
    const struct gs_node *n = &c->w->nodes[ni];
    return n->exists && n->ready && (n->gpu_count == 0 || n->allocatable.v[c->gpu_res] > 0);
}

static bool is_draining(const struct as *s, int ni)
{
    return ni < s->drcap && s->draining[ni];
}

static void row(struct gs_cluster *c, int pool, const char *status, const char *msg)
{
    gs_cluster_object(c, "NodeGroup", NULL, c->w->pools[pool].name, status, msg);
}

/* A pod event, written when its text differs from the last one the autoscaler wrote for it. */
static void pod_event(struct as *s, struct gs_cluster *c, int p, const char *reason, const char *msg)
{
    if (GS_GROW_ZERO(s->pod_msg, s->pmcap, p + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    const char *m = gs_intern(&s->msgs, msg);
    if (!m) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    if (s->pod_msg[p] == m)
        return;
    s->pod_msg[p] = m;
    gs_cluster_pod_event(c, p, reason, msg);
}

/* Nodes of `pool`: registered and not being removed (`existing`), and those not ready yet
 * (registered or still being provisioned: `upcoming`). */
static void group_size(const struct as *s, const struct gs_cluster *c, int pool, int *existing, int *upcoming,
                       int *unregistered)
{
    int e = 0, u = 0, r = 0;
    for (int i = 0; i < c->w->nnodes; i++) {
        const struct gs_node *n = &c->w->nodes[i];
        if (n->pool != pool || !n->exists || is_draining(s, i))
            continue;
        e++;
        if (!node_ready(c, i))
            u++;
    }
    for (int i = 0; i < s->nrq; i++)
        if (s->rq[i].live && s->rq[i].pool == pool && s->rq[i].node < 0)
            r++;
    /* the pool's own nodes that have not joined yet (joinAt, joinEvery) are on their way too */
    if (c->next_index[pool] < c->w->pools[pool].count)
        r += c->w->pools[pool].count - c->next_index[pool];
    *existing = e;
    *upcoming = u + r;
    *unregistered = r;
}

/* ------------------------------------------------------------------ the snapshot */

static int snap_grow(struct as *s)
{
    return GS_GROW(s->snap_real, s->srcap, s->snap.nnodes + 1);
}

/* Copy world node `ni` into the snapshot, as it is (labels, taints, resources, its pods'
 * requests). Returns the snapshot node or a negative GS_E* code. */
static int snap_copy_node(struct as *s, struct gs_cluster *c, int ni)
{
    const struct gs_node *n = &c->w->nodes[ni];
    if (snap_grow(s))
        return GS_ENOMEM;
    int sn = gs_world_add_node(&s->snap, n->pool, n->index_in_pool, gs_cluster_now(c));
    if (sn < 0)
        return sn;
    struct gs_node *d = &s->snap.nodes[sn];
    d->name = n->name;
    d->labels.n = 0;
    if (gs_labels_set_all(&d->labels, &s->snap.arena, n->labels.kv, n->labels.n))
        return GS_ENOMEM;
    d->taints = n->taints;
    d->ntaints = n->ntaints;
    d->unschedulable = n->unschedulable;
    d->capacity = n->capacity;
    d->allocatable = n->allocatable;
    d->requested = n->requested;
    d->nonzero_cpu = n->nonzero_cpu;
    d->nonzero_mem = n->nonzero_mem;
    d->npods = n->npods;
    d->gpus = n->gpus;
    d->gpu_product = n->gpu_product;
    d->gpu_count = n->gpu_count;
    gs_node_touch(&s->snap, sn);
    s->snap_real[sn] = ni;
    return sn;
}

/* A template node of `pool` (TemplateNodeInfo): a ready node of the group as an example when it
 * has one (its labels but the hostname, its taints and resources), else the pool's labels, taints,
 * capacity - reserved and its GPUs. Empty. Returns the snapshot node or a negative GS_E* code. */
static int snap_template(struct as *s, struct gs_cluster *c, int pool)
{
    const struct gs_world *w = c->w;
    int ex = -1;
    for (int i = 0; i < w->nnodes && ex < 0; i++)
        if (w->nodes[i].pool == pool && node_ready(c, i) && !is_draining(s, i))
            ex = i;
    if (snap_grow(s))
        return GS_ENOMEM;
    int sn = gs_world_add_node(&s->snap, pool, 1000000000 + s->snap.nnodes, gs_cluster_now(c));
    if (sn < 0)
        return sn;
    struct gs_node *d = &s->snap.nodes[sn];
    const struct gs_pool *pl = &w->pools[pool];
    if (ex >= 0) {
        const struct gs_node *n = &w->nodes[ex];
        d->labels.n = 0;
        if (gs_labels_set_all(&d->labels, &s->snap.arena, n->labels.kv, n->labels.n))
            return GS_ENOMEM;
        d->taints = n->taints;
        d->ntaints = n->ntaints;
        d->capacity = n->capacity;
        d->allocatable = n->allocatable;
    } else {
        d->capacity.v[c->gpu_res] = pl->gpu_count;
        d->allocatable.v[c->gpu_res] = pl->gpu_count;
    }
    d->unschedulable = false;
    if (gs_labels_set(&d->labels, &s->snap.arena, "kubernetes.io/hostname", d->name))
        return GS_ENOMEM;
    gs_gpushare_init(&d->gpus, pl->gpu_count <= GS_GPUS_MAX ? pl->gpu_count : 0);
    gs_node_touch(&s->snap, sn);
    s->snap_real[sn] = -1;
    return sn;
}

static void snap_end(struct as *s)
{
    if (!s->snap_live)
        return;
    gs_sched_free(s->sched);
    s->sched = NULL;
    s->snap.pools = NULL;
    s->snap.priority_classes = NULL;
    memset(&s->snap.res, 0, sizeof s->snap.res);
    gs_world_free(&s->snap);
    s->snap_live = false;
}

/* The ready nodes of the cluster (not those a scale-down drains) into a fresh snapshot. */
static int snap_begin(struct as *s, struct gs_cluster *c)
{
    snap_end(s);
    int rc = gs_world_init(&s->snap);
    if (rc)
        return rc;
    s->snap_live = true;
    s->snap.res = c->w->res;
    s->snap.pools = c->w->pools;
    s->snap.npools = c->w->npools;
    s->snap.priority_classes = c->w->priority_classes;
    s->snap.npriority_classes = c->w->npriority_classes;
    for (int i = 0; i < c->w->nnodes; i++)
        if (node_ready(c, i) && !is_draining(s, i) && (rc = snap_copy_node(s, c, i)) < 0)
            return rc;
    s->sched = gs_sched_new(&s->snap, &s->cfg, NULL);
    return s->sched ? 0 : GS_ENOMEM;
}

/* A snapshot pod for world pod `p` (its template). */
static int snap_pod(struct as *s, struct gs_cluster *c, int p)
{
    const struct gs_pod *q = &c->w->pods[p];
    int sp = gs_world_add_pod(&s->snap, q->name, -1, q->tmpl, gs_cluster_now(c));
    if (sp < 0)
        return sp;
    if (GS_GROW(s->real_pod, s->rpcap, sp + 1))
        return GS_ENOMEM;
    s->real_pod[sp] = p;
    return sp;
}

/* Does snapshot pod `sp` pass the filters on snapshot node `sn`? A quick check of the requests
 * first (most rejections), then the scheduler's PreFilter and Filter plugins. `st` (may be
 * NULL) gets the filter status. */
static bool fits(struct as *s, int sp, int sn, struct gs_node_status *st)
{
    const struct gs_node *n = &s->snap.nodes[sn];
    const struct gs_pod_template *t = s->snap.pods[sp].tmpl;
    if (!n->exists)
        return false;
    if (!st)
        for (int r = 0; r < s->snap.res.n; r++)
            if (t->requests.v[r] > 0 && t->requests.v[r] > n->allocatable.v[r] - n->requested.v[r])
                return false;
    struct gs_node_status tmp;
    if (!st)
        st = &tmp;
    gs_sched_filter_node_logged(s->sched, sp, sn, st);
    return st->code == GS_ST_SUCCESS;
}

static void snap_remove_node(struct as *s, int sn)
{
    s->snap.nodes[sn].exists = false;
    gs_node_touch(&s->snap, sn);
}

/* ------------------------------------------------------------------ scale-up requests */

static void backoff(struct as *s, struct gs_cluster *c, int pool)
{
    struct group *g = &s->g[pool];
    gs_time now = gs_cluster_now(c);
    if (g->failures > 0 && now - g->last_failure > s->sp->backoff_reset)
        g->failures = 0;
    gs_time d = s->sp->initial_backoff;
    for (int i = 0; i < g->failures && d < s->sp->max_backoff; i++)
        d *= 2;
    if (d > s->sp->max_backoff)
        d = s->sp->max_backoff;
    g->failures++;
    g->last_failure = now;
    g->backoff_until = now + d;
    char buf[256], db[32];
    fmt_dur(d, db, sizeof db);
    snprintf(buf, sizeof buf, "BackOff: %s after %d failed scale-up(s), no scale-up of %s before it ends", db,
             g->failures, c->w->pools[pool].name);
    row(c, pool, "BackOff", buf);
}

/* Requests past maxNodeProvisionTime fail: their nodes are removed, their group backs off. */
static void check_requests(struct as *s, struct gs_cluster *c)
{
    gs_time now = gs_cluster_now(c);
    for (int pool = 0; pool < c->w->npools; pool++) {
        int failed = 0, before = 0, up = 0, unreg = 0;
        for (int i = 0; i < s->nrq; i++) {
            struct request *r = &s->rq[i];
            if (!r->live || r->pool != pool)
                continue;
            if (r->node >= 0 && node_ready(c, r->node)) {
                r->live = false; /* done: the node is ready */
                continue;
            }
            if (now < r->deadline)
                continue;
            if (!failed)
                group_size(s, c, pool, &before, &up, &unreg);
            failed++;
            r->live = false;
            if (r->node >= 0) {
                if (c->w->nodes[r->node].exists)
                    gs_cluster_delete_node(c, r->node);
            } else {
                gs_cluster_cancel(c, &r->ev);
            }
        }
        if (!failed)
            continue;
        char buf[320], db[32];
        fmt_dur(s->sp->max_node_provision_time, db, sizeof db);
        snprintf(buf, sizeof buf,
                 "ScaleUpFailed: %d node(s) not ready within maxNodeProvisionTime %s, removed: %d->%d",
                 failed, db, before + unreg, before + unreg - failed);
        row(c, pool, "ScaleUpFailed", buf);
        backoff(s, c, pool);
    }
    /* (Ended requests stay in the array: pending timers name requests by index.) */
}

/* ------------------------------------------------------------------ scale-up */

/* Unschedulable pods (step 2 of the file comment) into s->pods as snapshot pods, most important
 * first (priority, then creation). Returns their number or a negative GS_E* code. */
static int collect_pods(struct as *s, struct gs_cluster *c)
{
    const struct gs_world *w = c->w;
    gs_time now = gs_cluster_now(c);
    int n = 0;
    for (int p = 0; p < w->npods; p++) {
        const struct gs_pod *q = &w->pods[p];
        if (q->phase != GS_PHASE_PENDING || q->deleted || q->node >= 0 || !q->message || q->nominated_node >= 0 ||
            now - q->created_us < s->sp->new_pod_scale_up_delay)
            continue;
        if (GS_GROW(s->pods, s->pcap, n + 1))
            return GS_ENOMEM;
        s->pods[n++] = p;
    }
    /* insertion sort by priority (stable: creation order among equals) */
    for (int i = 1; i < n; i++) {
        int p = s->pods[i], j = i;
        while (j > 0 && w->pods[s->pods[j - 1]].tmpl->priority < w->pods[p].tmpl->priority) {
            s->pods[j] = s->pods[j - 1];
            j--;
        }
        s->pods[j] = p;
    }
    for (int i = 0; i < n; i++) {
        int sp = snap_pod(s, c, s->pods[i]);
        if (sp < 0)
            return sp;
        s->pods[i] = sp;
    }
    return n;
}

/* A reason a group cannot help a pod, counted over groups (ReasonsMessage). */
#define MAX_REASONS 16
struct reasons {
    int n;
    const char *text[MAX_REASONS];
    int count[MAX_REASONS];
};

static void reason_add(struct reasons *r, const char *text)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->text[i], text) == 0) {
            r->count[i]++;
            return;
        }
    if (r->n < MAX_REASONS) {
        r->text[r->n] = text;
        r->count[r->n++] = 1;
    }
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void reasons_message(const struct reasons *r, char *buf, size_t n)
{
    const char *line[MAX_REASONS];
    char parts[MAX_REASONS][200];
    for (int i = 0; i < r->n; i++) {
        snprintf(parts[i], sizeof parts[i], "%d %s", r->count[i], r->text[i]);
        line[i] = parts[i];
    }
    qsort(line, (size_t)r->n, sizeof line[0], cmp_text);
    size_t k = (size_t)snprintf(buf, n, "pod didn't trigger scale-up:");
    for (int i = 0; i < r->n && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s %s", i ? "," : "", line[i]);
}

/* decreasing_pod_orderer.go: cpu and memory of the pod relative to the template's allocatable. */
static double pod_score(const struct gs_pod_template *t, const struct gs_node *tn)
{
    double v = 0;
    if (tn->allocatable.v[GS_RES_CPU] > 0)
        v += (double)t->requests.v[GS_RES_CPU] / (double)tn->allocatable.v[GS_RES_CPU];
    if (tn->allocatable.v[GS_RES_MEMORY] > 0)
        v += (double)t->requests.v[GS_RES_MEMORY] / (double)tn->allocatable.v[GS_RES_MEMORY];
    return v;
}

/* The binpacking estimator for `pool` over the pods `cand` (n of them, snapshot pods the
 * group's template passes), at most `limit` new nodes: the option (count 0: none). */
static int estimate(struct as *s, struct gs_cluster *c, int pool, int tmpl_node, int *cand, int n, int limit,
                    struct option *o)
{
    const struct gs_node *tn = &s->snap.nodes[tmpl_node];
    /* first fit decreasing: sort by score, stable */
    for (int i = 1; i < n; i++) {
        int p = cand[i], j = i;
        double sc = pod_score(s->snap.pods[p].tmpl, tn);
        while (j > 0 && pod_score(s->snap.pods[cand[j - 1]].tmpl, tn) < sc) {
            cand[j] = cand[j - 1];
            j--;
        }
        cand[j] = p;
    }
    int first_new = s->snap.nnodes, last = -1, nnew = 0;
    bool can_add = true;
    o->pool = pool;
    o->count = 0;
    o->first = s->nopt_pods;
    o->npods = 0;
    for (int i = 0; i < n; i++) {
        int sp = cand[i], at = -1;
        for (int sn = first_new; sn < s->snap.nnodes && at < 0; sn++)
            if (fits(s, sp, sn, NULL))
                at = sn;
        if (at < 0 && can_add) {
            if (last >= 0 && s->snap.nodes[last].npods == 0)
                continue; /* a fresh node stays empty: the pod fits no new node */
            if (nnew >= limit) {
                can_add = false;
                continue;
            }
            int sn = snap_template(s, c, pool);
            if (sn < 0)
                return sn;
            last = sn;
            nnew++;
            if (fits(s, sp, sn, NULL))
                at = sn;
        }
        if (at < 0)
            continue;
        gs_world_assign(&s->snap, sp, at);
        if (GS_GROW(s->opt_pods, s->opcap, s->nopt_pods + 1))
            return GS_ENOMEM;
        s->opt_pods[s->nopt_pods++] = sp;
        o->npods++;
    }
    for (int sn = first_new; sn < s->snap.nnodes; sn++)
        if (s->snap.nodes[sn].npods > 0)
            o->count++;
    /* revert (the snapshot's Fork/Revert) */
    for (int i = 0; i < o->npods; i++)
        gs_world_unassign(&s->snap, s->opt_pods[o->first + i]);
    for (int sn = first_new; sn < s->snap.nnodes; sn++)
        snap_remove_node(s, sn);
    return 0;
}

/* expander/waste/waste.go: the wasted fraction of cpu plus that of memory, over the nodes'
 * capacity (cluster-autoscaler 1.35.2 counts no GPU here). */
static double waste(const struct as *s, const struct gs_cluster *c, const struct option *o)
{
    const struct gs_pool *pl = &c->w->pools[o->pool];
    double cpu = 0, mem = 0;
    for (int i = 0; i < o->npods; i++) {
        const struct gs_pod_template *t = s->snap.pods[s->opt_pods[o->first + i]].tmpl;
        cpu += (double)t->requests.v[GS_RES_CPU];
        mem += (double)t->requests.v[GS_RES_MEMORY];
    }
    double acpu = (double)pl->capacity.v[GS_RES_CPU] * o->count, amem = (double)pl->capacity.v[GS_RES_MEMORY] * o->count;
    return (acpu > 0 ? (acpu - cpu) / acpu : 0) + (amem > 0 ? (amem - mem) / amem : 0);
}

/* expander/priority/priority.go: the highest priority whose regexes match the group's name;
 * INT64_MIN when none does. */
static int64_t group_priority(const struct as *s, const struct gs_cluster *c, int pool)
{
    const char *name = c->w->pools[pool].name;
    int64_t best = INT64_MIN;
    int k = 0;
    for (int i = 0; i < s->sp->npriorities; i++) {
        const struct gs_as_priority *pr = &s->sp->priorities[i];
        for (int j = 0; j < pr->nregex; j++, k++)
            if (k < s->nre && regexec(&s->re[k], name, 0, NULL, 0) == 0 && pr->priority > best)
                best = pr->priority;
    }
    return best;
}

/* Keep the options `keep` marks (compacting). */
static int keep_marked(struct option *o, int n, const bool *keep)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            o[k++] = o[i];
    return k;
}

/* The expanders chain (expander/factory/chain.go), then a random choice among what is left. */
static int choose(struct as *s, struct gs_cluster *c, struct option *o, int n)
{
    bool keep[64];
    if (n > 64)
        n = 64;
    for (int e = 0; e < s->sp->nexpanders && n > 1; e++) {
        switch (s->sp->expanders[e]) {
        case GS_AS_LEAST_WASTE: {
            double best = INFINITY;
            for (int i = 0; i < n; i++)
                best = fmin(best, waste(s, c, &o[i]));
            for (int i = 0; i < n; i++)
                keep[i] = waste(s, c, &o[i]) == best;
            break;
        }
        case GS_AS_MOST_PODS: {
            int best = 0;
            for (int i = 0; i < n; i++)
                best = o[i].npods > best ? o[i].npods : best;
            for (int i = 0; i < n; i++)
                keep[i] = o[i].npods == best;
            break;
        }
        case GS_AS_PRIORITY: {
            int64_t best = INT64_MIN;
            for (int i = 0; i < n; i++) {
                int64_t p = group_priority(s, c, o[i].pool);
                best = p > best ? p : best;
            }
            for (int i = 0; i < n; i++)
                keep[i] = best == INT64_MIN || group_priority(s, c, o[i].pool) == best;
            break;
        }
        case GS_AS_RANDOM: {
            int pick = (int)gs_rng_uniform_int(c->rng, GS_STREAM_AUTOSCALER, (uint64_t)n);
            for (int i = 0; i < n; i++)
                keep[i] = i == pick;
            break;
        }
        }
        n = keep_marked(o, n, keep);
    }
    if (n > 1)
        return (int)gs_rng_uniform_int(c->rng, GS_STREAM_AUTOSCALER, (uint64_t)n);
    return 0;
}

static void scale_up(struct as *s, struct gs_cluster *c, const struct option *o, int existing, int unregistered)
{
    const struct gs_autoscaler_spec *sp = s->sp;
    gs_time now = gs_cluster_now(c);
    int from = existing + unregistered, to = from + o->count, max = sp->groups[o->pool].max_size;
    for (int k = 0; k < o->count; k++) {
        if (GS_GROW(s->rq, s->rqcap, s->nrq + 1)) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
        struct request *r = &s->rq[s->nrq];
        r->pool = o->pool;
        r->node = -1;
        r->live = true;
        r->deadline = now + sp->max_node_provision_time;
        r->ev = gs_cluster_timer(c, s->self, now + draw(c, &sp->groups[o->pool].provisioning), GS_PRIO_CLUSTER,
                                 T_CREATE, s->nrq, 0, false);
        s->nrq++;
    }
    const char *name = c->w->pools[o->pool].name;
    char buf[512];
    snprintf(buf, sizeof buf, "ScaleUp: %d->%d (max %d), %d pods unschedulable, expander %s", from, to, max,
             o->npods, sp->expander_text);
    row(c, o->pool, "ScaleUp", buf);
    snprintf(buf, sizeof buf, "pod triggered scale-up: [{%s %d->%d (max: %d)}]", name, from, to, max);
    for (int i = 0; i < o->npods; i++)
        pod_event(s, c, s->real_pod[s->opt_pods[o->first + i]], "TriggeredScaleUp", buf);
    s->scaled_up = true;
    s->last_scale_up = now;
}

/* Steps 2 and 3. True when a group was scaled up. */
static bool try_scale_up(struct as *s, struct gs_cluster *c)
{
    const struct gs_world *w = c->w;
    const struct gs_autoscaler_spec *sp = s->sp;
    gs_time now = gs_cluster_now(c);
    int n = 0;
    for (int p = 0; p < w->npods && !n; p++)
        n = w->pods[p].phase == GS_PHASE_PENDING && w->pods[p].message && w->pods[p].node < 0 &&
            !w->pods[p].deleted;
    if (!n)
        return false; /* nothing unschedulable: no snapshot */
    if (snap_begin(s, c)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return false;
    }
    n = collect_pods(s, c);
    if (n <= 0) {
        gs_cluster_fail(c, n);
        return false;
    }
    /* upcoming nodes as templates; pods that fit a ready or upcoming node are the scheduler's */
    for (int pool = 0; pool < w->npools; pool++) {
        if (!sp->groups[pool].enabled)
            continue;
        int e, u, r;
        group_size(s, c, pool, &e, &u, &r);
        for (int k = 0; k < u; k++)
            if (snap_template(s, c, pool) < 0) {
                gs_cluster_fail(c, GS_ENOMEM);
                return false;
            }
    }
    int nn = s->snap.nnodes, left = 0;
    for (int i = 0; i < n; i++) {
        int sp_ = s->pods[i], at = -1;
        for (int sn = 0; sn < nn && at < 0; sn++)
            if (fits(s, sp_, sn, NULL))
                at = sn;
        if (at >= 0)
            gs_world_assign(&s->snap, sp_, at);
        else
            s->pods[left++] = sp_;
    }
    if (left == 0)
        return false;
    if (GS_GROW(s->scratch, s->scap, left) || GS_GROW(s->opts, s->ocap, w->npools)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return false;
    }
    /* per pod: reasons from the groups that cannot help it; helped: some group can */
    struct reasons *why = gs_calloc((size_t)left, sizeof *why);
    bool *helped = gs_calloc((size_t)left, sizeof *helped);
    if (!why || !helped) {
        gs_free(why);
        gs_free(helped);
        gs_cluster_fail(c, GS_ENOMEM);
        return false;
    }
    int nopts = 0;
    s->nopt_pods = 0;
    for (int pool = 0; pool < w->npools; pool++) {
        if (!sp->groups[pool].enabled)
            continue;
        int e, u, r;
        group_size(s, c, pool, &e, &u, &r);
        const char *skip = NULL;
        if (now < s->g[pool].backoff_until)
            skip = "in backoff after failed scale-up";
        else if (e + r >= sp->groups[pool].max_size)
            skip = "max node group size reached";
        if (skip) {
            for (int i = 0; i < left; i++)
                reason_add(&why[i], skip);
            continue;
        }
        int tn = snap_template(s, c, pool);
        if (tn < 0) {
            gs_cluster_fail(c, tn);
            break;
        }
        int ncand = 0;
        const struct gs_pod_template *last_t = NULL;
        bool last_fit = false;
        struct gs_node_status st;
        for (int i = 0; i < left; i++) {
            const struct gs_pod_template *t = s->snap.pods[s->pods[i]].tmpl;
            if (t != last_t) {
                last_t = t;
                last_fit = fits(s, s->pods[i], tn, &st);
            }
            if (last_fit) {
                s->scratch[ncand++] = s->pods[i];
                helped[i] = true;
            } else {
                for (int k = 0; k < st.nreasons; k++) {
                    const char *t = gs_intern(&s->msgs, st.reasons[k]);
                    if (t)
                        reason_add(&why[i], t);
                }
            }
        }
        if (ncand == 0) {
            snap_remove_node(s, tn);
            continue;
        }
        struct option *o = &s->opts[nopts];
        int rc = estimate(s, c, pool, tn, s->scratch, ncand, sp->groups[pool].max_size - e - r, o);
        snap_remove_node(s, tn);
        if (rc) {
            gs_cluster_fail(c, rc);
            break;
        }
        if (o->count > 0)
            nopts++;
    }
    bool up = false;
    if (nopts > 0 && !c->err) {
        int best = choose(s, c, s->opts, nopts);
        int e, u, r;
        group_size(s, c, s->opts[best].pool, &e, &u, &r);
        scale_up(s, c, &s->opts[best], e, r);
        up = true;
    } else if (!c->err) {
        /* EventingScaleUpStatusProcessor: no event when a scale-up happened in this loop. */
        char buf[1024];
        for (int i = 0; i < left; i++) {
            if (helped[i])
                continue;
            reasons_message(&why[i], buf, sizeof buf);
            pod_event(s, c, s->real_pod[s->pods[i]], "NotTriggerScaleUp", buf);
        }
    }
    gs_free(why);
    gs_free(helped);
    return up;
}

/* ------------------------------------------------------------------ scale-down */

/* utilization.Calculate: GPU nodes by their GPUs, others by the larger of cpu and memory. */
static double utilisation(const struct gs_cluster *c, const struct gs_node *n, bool *gpu)
{
    *gpu = n->gpu_count > 0;
    if (*gpu) {
        int64_t a = n->allocatable.v[c->gpu_res];
        return a > 0 ? (double)n->requested.v[c->gpu_res] / (double)a : 0;
    }
    double cpu = n->allocatable.v[GS_RES_CPU] > 0
                     ? (double)n->requested.v[GS_RES_CPU] / (double)n->allocatable.v[GS_RES_CPU] : 0;
    double mem = n->allocatable.v[GS_RES_MEMORY] > 0
                     ? (double)n->requested.v[GS_RES_MEMORY] / (double)n->allocatable.v[GS_RES_MEMORY] : 0;
    return cpu > mem ? cpu : mem;
}

/* A pod a scale-down may move: owned by a controller that re-creates it elsewhere. */
static bool movable(const struct gs_cluster *c, int p)
{
    const struct gs_pod *q = &c->w->pods[p];
    if (q->workload < 0 || q->tmpl->node_name || q->permit_waiting)
        return false;
    enum gs_workload_kind k = c->w->workloads[q->workload].kind;
    if (k == GS_WL_PLAIN)
        return q->group < 0;
    return k == GS_WL_JOB || k == GS_WL_LWS;
}

/* Can every pod of world node `ni` (snapshot node `self`) move to another snapshot node? The
 * pods stay placed there when they can (the node is then gone from the snapshot). */
static bool drainable(struct as *s, struct gs_cluster *c, int ni, int self)
{
    const struct gs_world *w = c->w;
    int moved = 0;
    bool ok = true;
    for (int q = w->nodes[ni].first_pod; q >= 0 && ok; q = w->pods[q].next_on_node) {
        if (w->pods[q].terminating || w->pods[q].deleted)
            continue;
        if (!movable(c, q)) {
            ok = false;
            break;
        }
        int sp = snap_pod(s, c, q), at = -1;
        if (sp < 0) {
            gs_cluster_fail(c, sp);
            return false;
        }
        for (int sn = 0; sn < s->snap.nnodes && at < 0; sn++)
            if (sn != self && s->snap_real[sn] >= 0 && fits(s, sp, sn, NULL))
                at = sn;
        if (at < 0) {
            ok = false;
            break;
        }
        gs_world_assign(&s->snap, sp, at);
        if (GS_GROW(s->scratch, s->scap, moved + 1)) {
            gs_cluster_fail(c, GS_ENOMEM);
            return false;
        }
        s->scratch[moved++] = sp;
    }
    if (!ok)
        for (int i = 0; i < moved; i++)
            gs_world_unassign(&s->snap, s->scratch[i]);
    return ok;
}

static void scale_down(struct as *s, struct gs_cluster *c)
{
    const struct gs_autoscaler_spec *sp = s->sp;
    struct gs_world *w = c->w;
    gs_time now = gs_cluster_now(c);
    if (GS_GROW_ZERO(s->unneeded_since, s->uncap, w->nnodes)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    /* Without a node below its threshold (or one already unneeded) no snapshot is needed. */
    bool any = false;
    for (int ni = 0; ni < w->nnodes && !any; ni++) {
        const struct gs_node *n = &w->nodes[ni];
        bool gpu;
        any = s->unneeded_since[ni] ||
              (sp->groups[n->pool].enabled && node_ready(c, ni) && !is_draining(s, ni) &&
               utilisation(c, n, &gpu) < (gpu ? sp->gpu_util_threshold : sp->util_threshold));
    }
    if (!any)
        return;
    if (snap_begin(s, c)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    /* which nodes are unneeded now */
    for (int sn = 0; sn < s->snap.nnodes; sn++) {
        int ni = s->snap_real[sn];
        const struct gs_node *n = &w->nodes[ni];
        bool unneeded = false, gpu;
        if (sp->groups[n->pool].enabled) {
            double u = utilisation(c, n, &gpu);
            if (u < (gpu ? sp->gpu_util_threshold : sp->util_threshold) && drainable(s, c, ni, sn)) {
                unneeded = true;
                snap_remove_node(s, sn);
            }
        }
        if (!unneeded)
            s->unneeded_since[ni] = 0;
        else if (!s->unneeded_since[ni])
            s->unneeded_since[ni] = now + 1;
    }
    if (s->scaled_up && now < s->last_scale_up + sp->delay_after_add)
        return; /* scale-down cooldown: unneeded nodes are still tracked */
    bool drain_busy = false;
    for (int i = 0; i < w->nnodes && !drain_busy; i++)
        drain_busy = is_draining(s, i) && w->nodes[i].exists;
    for (int pool = 0; pool < w->npools; pool++) {
        if (!sp->groups[pool].enabled)
            continue;
        int e, u, r;
        group_size(s, c, pool, &e, &u, &r);
        int room = e - sp->groups[pool].min_size, empty = 0;
        char names[512];
        size_t k = 0;
        names[0] = '\0';
        gs_time since = 0;
        for (int ni = 0; ni < w->nnodes && room > 0 && empty < sp->max_empty_bulk_delete; ni++) {
            const struct gs_node *n = &w->nodes[ni];
            if (n->pool != pool || !n->exists || is_draining(s, ni) || !s->unneeded_since[ni] ||
                now - (s->unneeded_since[ni] - 1) < sp->unneeded_time || n->npods > 0)
                continue;
            if (!since || s->unneeded_since[ni] < since)
                since = s->unneeded_since[ni];
            if (k < sizeof names)
                k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", empty ? ", " : "", n->name);
            gs_cluster_delete_node(c, ni);
            s->unneeded_since[ni] = 0;
            empty++;
            room--;
        }
        if (empty) {
            char buf[800], db[32];
            fmt_dur(now - (since - 1), db, sizeof db);
            snprintf(buf, sizeof buf, "ScaleDown: %d->%d (min %d), %d empty node(s) removed (unneeded for %s): %s", e,
                     e - empty, sp->groups[pool].min_size, empty, db, names);
            row(c, pool, "ScaleDown", buf);
            continue;
        }
        if (drain_busy || room <= 0)
            continue;
        for (int ni = 0; ni < w->nnodes; ni++) {
            const struct gs_node *n = &w->nodes[ni];
            if (n->pool != pool || !n->exists || is_draining(s, ni) || !s->unneeded_since[ni] ||
                now - (s->unneeded_since[ni] - 1) < sp->unneeded_time)
                continue;
            if (GS_GROW_ZERO(s->draining, s->drcap, ni + 1)) {
                gs_cluster_fail(c, GS_ENOMEM);
                return;
            }
            bool gpu;
            double util = utilisation(c, n, &gpu);
            char buf[800], db[32];
            fmt_dur(now - (s->unneeded_since[ni] - 1), db, sizeof db);
            snprintf(buf, sizeof buf,
                     "ScaleDown: %d->%d (min %d), node %s drained and removed (%s utilisation %.2f below %.2f, "
                     "unneeded for %s)",
                     e, e - 1, sp->groups[pool].min_size, n->name, gpu ? "GPU" : "cpu/memory", util,
                     gpu ? sp->gpu_util_threshold : sp->util_threshold, db);
            row(c, pool, "ScaleDown", buf);
            s->draining[ni] = 1;
            s->unneeded_since[ni] = 0;
            gs_cluster_drain_node(c, ni, "deleting pod for node scale down");
            drain_busy = true;
            break;
        }
    }
}

/* Drained nodes whose pods are gone are deleted. */
static void finish_drains(struct as *s, struct gs_cluster *c)
{
    for (int ni = 0; ni < s->drcap && ni < c->w->nnodes; ni++)
        if (s->draining[ni] && c->w->nodes[ni].exists && c->w->nodes[ni].npods == 0)
            gs_cluster_delete_node(c, ni);
}

/* ------------------------------------------------------------------ the loop */

static void scan(struct as *s, struct gs_cluster *c)
{
    gs_time now = gs_cluster_now(c);
    check_requests(s, c);
    finish_drains(s, c);
    bool up = !c->err && try_scale_up(s, c);
    snap_end(s);
    /* RunOnce: no scale-down in a loop that scaled up. */
    if (!up && s->sp->scale_down_enabled && !c->err)
        scale_down(s, c);
    snap_end(s);
    gs_cluster_timer(c, s->self, now + s->sp->scan_interval, GS_PRIO_SCHED + 1, T_SCAN, 0, 0, true);
}

static void start(struct as *s, struct gs_cluster *c)
{
    if (s->scanning)
        return;
    s->scanning = true;
    gs_time now = gs_cluster_now(c), iv = s->sp->scan_interval;
    gs_time t = (now + iv - 1) / iv * iv;
    gs_cluster_timer(c, s->self, t, GS_PRIO_SCHED + 1, T_SCAN, 0, 0, true);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    switch (ev->type) {
    case GS_W_POD_CREATED:
    case GS_W_NODE_ADDED:
        start(state, c);
        break;
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b)
{
    (void)b;
    struct as *s = state;
    if (type == T_SCAN) {
        scan(s, c);
        return;
    }
    /* T_CREATE: the cloud provider's instance registers as a node of the pool */
    struct request *r = &s->rq[a];
    r->ev = 0;
    int ni = gs_cluster_add_node(c, r->pool);
    if (ni < 0)
        return;
    r->node = ni;
    gs_cluster_notify(c, GS_CE_NODE_ADD);
}

/* ------------------------------------------------------------------ setup */

static void destroy(void *state)
{
    struct as *s = state;
    if (!s)
        return;
    snap_end(s);
    for (int i = 0; i < s->nre; i++)
        regfree(&s->re[i]);
    gs_free(s->re);
    gs_free(s->g);
    gs_free(s->rq);
    gs_free(s->unneeded_since);
    gs_free(s->draining);
    gs_free(s->pod_msg);
    gs_free(s->snap_real);
    gs_free(s->pods);
    gs_free(s->real_pod);
    gs_free(s->scratch);
    gs_free(s->opt_pods);
    gs_free(s->opts);
    gs_intern_free(&s->msgs);
    gs_arena_free(&s->arena);
    gs_free(s);
}

static int setup(struct gs_cluster *c, int self, void **state)
{
    const struct gs_autoscaler_spec *sp = c->sc->autoscaler;
    if (!sp)
        return 0;
    struct as *s = gs_calloc(1, sizeof *s);
    if (!s)
        return GS_ENOMEM;
    *state = s;
    s->self = self;
    s->sp = sp;
    s->cfg = c->sc->sched;
    /* The autoscaler's filters run without DRA's cluster state (claims are not simulated). */
    gs_sched_config_remove_plugin(&s->cfg, "DynamicResources");
    gs_intern_init(&s->msgs, &s->arena);
    s->g = gs_calloc((size_t)(c->w->npools ? c->w->npools : 1), sizeof *s->g);
    int nre = 0;
    for (int i = 0; i < sp->npriorities; i++)
        nre += sp->priorities[i].nregex;
    s->re = gs_calloc((size_t)(nre ? nre : 1), sizeof *s->re);
    if (!s->g || !s->re)
        return GS_ENOMEM;
    for (int i = 0; i < sp->npriorities; i++)
        for (int j = 0; j < sp->priorities[i].nregex; j++) {
            if (regcomp(&s->re[s->nre], sp->priorities[i].regex[j], REG_EXTENDED | REG_NOSUB))
                return GS_EINVAL; /* checked at load */
            s->nre++;
        }
    return 0;
}

const struct gs_controller gs_ctl_autoscaler = {
    .name = "autoscaler",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_POD_CREATED) | GS_WATCH_BIT(GS_W_NODE_ADDED),
    .on_timer = on_timer,
};
