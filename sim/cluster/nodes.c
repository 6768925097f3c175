/* The cluster layer's node verbs (sim/cluster.h): nodes registering, their labels, resources,
 * cordon and facts, and the scenario's node and pod operations. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/dra/dra_state.h"
#include "sim/cluster/internal.h"

static const char *effect_name(enum gs_effect e)
{
    switch (e) {
    case GS_EFFECT_NO_SCHEDULE: return "NoSchedule";
    case GS_EFFECT_PREFER_NO_SCHEDULE: return "PreferNoSchedule";
    case GS_EFFECT_NO_EXECUTE: return "NoExecute";
    case GS_EFFECT_ALL: break;
    }
    return "";
}

/* A resource amount as the kubelet reports it: cpu in cores or millicores, memory and
 * ephemeral-storage in Ki when whole, other resources as counts. */
static void fmt_amount(int ri, int64_t v, char *buf, size_t n)
{
    if (ri == GS_RES_CPU && v % 1000 != 0)
        snprintf(buf, n, "%lldm", (long long)v);
    else if (ri == GS_RES_CPU)
        snprintf(buf, n, "%lld", (long long)(v / 1000));
    else if ((ri == GS_RES_MEMORY || ri == GS_RES_EPHEMERAL) && v != 0 && v % 1024 == 0)
        snprintf(buf, n, "%lldKi", (long long)(v / 1024));
    else
        snprintf(buf, n, "%lld", (long long)v);
}

/* The node as it registered: labels, taints, cordon, capacity and allocatable as rows, so a trace
 * alone can describe the node at any time. */
static void trace_initial(struct gs_cluster *c, int ni)
{
    const struct gs_node *n = &c->w->nodes[ni];
    char buf[512];
    for (int i = 0; i < n->labels.n; i++)
        gs_cluster_node_event(c, ni, "Label", n->labels.kv[i].key, n->labels.kv[i].value);
    for (int i = 0; i < n->ntaints; i++) {
        const struct gs_taint *t = &n->taints[i];
        if (t->value && t->value[0])
            snprintf(buf, sizeof buf, "%s=%s:%s", t->key, t->value, effect_name(t->effect));
        else
            snprintf(buf, sizeof buf, "%s:%s", t->key, effect_name(t->effect));
        gs_cluster_node_event(c, ni, "Taint", buf, "true");
    }
    if (n->unschedulable)
        gs_cluster_node_event(c, ni, "Cordon", NULL, "true");
    for (int ri = 0; ri < c->w->res.n; ri++) {
        if (n->capacity.v[ri]) {
            fmt_amount(ri, n->capacity.v[ri], buf, sizeof buf);
            gs_cluster_node_event(c, ni, "Capacity", c->w->res.names[ri], buf);
        }
        if (n->allocatable.v[ri]) {
            fmt_amount(ri, n->allocatable.v[ri], buf, sizeof buf);
            gs_cluster_node_event(c, ni, "Allocatable", c->w->res.names[ri], buf);
        }
    }
}

int gs_cluster_add_node(struct gs_cluster *c, int pool)
{
    struct gs_world *w = c->w;
    int idx = c->next_index[pool]++;
    int ni = gs_world_add_node(w, pool, idx, gs_cluster_now(c));
    if (ni < 0 || GS_GROW_ZERO(c->node_pending, c->node_pending_cap, ni + 1)) {
        gs_cluster_fail(c, ni < 0 ? ni : GS_ENOMEM);
        return ni < 0 ? ni : GS_ENOMEM;
    }
    struct gs_node *n = &w->nodes[ni];
    int rc = gs_labels_set(&n->labels, &w->arena, "kubernetes.io/hostname", n->name);
    const struct gs_pool *pl = &w->pools[pool];
    if (!rc && pl->nodes_per_rack > 0 && pl->rack_label) {
        const char *rack = gs_arena_printf(&w->arena, "%s-rack-%d", pl->name, idx / pl->nodes_per_rack);
        rc = rack ? gs_labels_set(&n->labels, &w->arena, pl->rack_label, rack) : GS_ENOMEM;
    }
    gs_cluster_fail(c, rc);
    gs_node_touch(w, ni);
    gs_cluster_fail(c, gs_trace_node(c->trace, ni, n->name, pl->name, n->gpu_product, n->gpu_count));
    gs_cluster_node_event(c, ni, "Joined", pl->name, n->kernel);
    if (n->gpu_count == 0)
        n->schedulable_at = gs_cluster_now(c);
    trace_initial(c, ni);
    struct gs_watch_event ev = gs_watch_init(GS_W_NODE_ADDED);
    ev.node = ni;
    gs_cluster_watch(c, &ev);
    return ni;
}

void gs_cluster_node_join(struct gs_cluster *c, int pool)
{
    if (gs_cluster_add_node(c, pool) >= 0)
        gs_cluster_notify(c, GS_CE_NODE_ADD);
}

bool gs_cluster_set_label(struct gs_cluster *c, int ni, const char *key, const char *value)
{
    struct gs_node *n = &c->w->nodes[ni];
    bool changed;
    if (value) {
        const char *cur = gs_labels_get(&n->labels, key);
        changed = !cur || strcmp(cur, value) != 0;
        gs_cluster_fail(c, gs_labels_set(&n->labels, &c->w->arena, key, value));
    } else {
        changed = gs_labels_del(&n->labels, key);
    }
    gs_node_touch(c->w, ni);
    gs_cluster_node_event(c, ni, "Label", key, value);
    return changed;
}

void gs_cluster_set_resource(struct gs_cluster *c, int ni, bool capacity, int ri, int64_t amount)
{
    struct gs_node *n = &c->w->nodes[ni];
    struct gs_resvec *v = capacity ? &n->capacity : &n->allocatable;
    if (v->v[ri] == amount)
        return;
    if (!capacity && amount > v->v[ri])
        c->node_pending[ni] |= GS_RES_GREW;
    c->node_pending[ni] |= GS_RES_CHANGED;
    v->v[ri] = amount;
    gs_node_touch(c->w, ni);
    char buf[32];
    fmt_amount(ri, amount, buf, sizeof buf);
    gs_cluster_node_event(c, ni, capacity ? "Capacity" : "Allocatable", c->w->res.names[ri], buf);
}

void gs_cluster_set_unschedulable(struct gs_cluster *c, int ni, bool on)
{
    c->w->nodes[ni].unschedulable = on;
    gs_node_touch(c->w, ni);
    gs_cluster_node_event(c, ni, "Cordon", NULL, on ? "true" : "false");
}

void gs_cluster_set_kernel(struct gs_cluster *c, int ni, const char *kernel)
{
    c->w->nodes[ni].kernel = kernel;
    gs_cluster_node_event(c, ni, "Kernel", NULL, kernel);
}

void gs_cluster_set_schedulable(struct gs_cluster *c, int ni, int64_t amount)
{
    struct gs_node *n = &c->w->nodes[ni];
    if (n->schedulable_at >= 0)
        return;
    n->schedulable_at = gs_cluster_now(c);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)amount);
    gs_cluster_node_event(c, ni, "Schedulable", "nvidia.com/gpu", buf);
}

void gs_cluster_set_ready(struct gs_cluster *c, int ni, bool ready)
{
    c->w->nodes[ni].ready = ready;
}

void gs_cluster_set_operand(struct gs_cluster *c, int ni, int operand, const char *status, bool ready)
{
    GS_ASSERT(operand >= 0 && operand < GS_NODE_OPERANDS);
    c->w->nodes[ni].operand_status[operand] = status;
    c->w->nodes[ni].operand_ready[operand] = ready;
}

void gs_cluster_set_device_view(struct gs_cluster *c, int ni, const struct gs_dp_config *dp,
                                const struct gs_mig_layout *mig)
{
    c->w->nodes[ni].dp_view = dp;
    c->w->nodes[ni].mig_view = mig;
}

void gs_cluster_device_config_changed(struct gs_cluster *c, int ni)
{
    struct gs_watch_event ev = gs_watch_init(GS_W_DEVICE_CONFIG_CHANGED);
    ev.node = ni;
    gs_cluster_watch(c, &ev);
}

void gs_cluster_set_share_gpus(struct gs_cluster *c, int ni, int ngpus)
{
    struct gs_node *n = &c->w->nodes[ni];
    if (n->gpus.ngpu == ngpus)
        return;
    if (gs_gpushare_init(&n->gpus, ngpus))
        gs_gpushare_init(&n->gpus, 0);
    gs_node_touch(c->w, ni); /* the scheduler reads n->gpus */
}

int gs_cluster_take_share(struct gs_cluster *c, int ni, const struct gs_gpushare_alloc *a)
{
    int rc = gs_gpushare_commit(&c->w->nodes[ni].gpus, a);
    if (rc == 0)
        gs_node_touch(c->w, ni); /* the scheduler's copies read node.gpus */
    return rc;
}

void gs_cluster_give_share(struct gs_cluster *c, int ni, const struct gs_gpushare_alloc *a)
{
    gs_gpushare_release(&c->w->nodes[ni].gpus, a);
}

void gs_cluster_node_patched(struct gs_cluster *c, int ni, bool labels, bool grew, int origin)
{
    gs_node_touch(c->w, ni);
    if (labels) {
        gs_cluster_notify(c, GS_CE_NODE_LABEL);
        struct gs_watch_event ev = gs_watch_init(GS_W_NODE_LABELED);
        ev.node = ni;
        ev.origin = origin;
        gs_cluster_watch(c, &ev);
    }
    if (grew)
        gs_cluster_notify(c, GS_CE_NODE_ALLOCATABLE);
}

int gs_cluster_gpus_registered(struct gs_cluster *c, int ni, bool capacity, int64_t amount, uint64_t unhealthy)
{
    uint8_t outer = c->node_pending[ni];
    c->node_pending[ni] = 0;
    struct gs_watch_event ev = gs_watch_init(GS_W_DEVICES_REGISTERED);
    ev.node = ni;
    ev.capacity = capacity;
    ev.amount = amount;
    ev.unhealthy = unhealthy;
    gs_cluster_watch(c, &ev);
    uint8_t got = c->node_pending[ni];
    c->node_pending[ni] = outer;
    return got;
}

void gs_cluster_operand_started(struct gs_cluster *c, int ni, int operand)
{
    struct gs_watch_event ev = gs_watch_init(GS_W_OPERAND_STARTED);
    ev.node = ni;
    ev.operand = operand;
    gs_cluster_watch(c, &ev);
}

/* ------------------------------------------------------------------ the scenario's operations */

static int event_node(struct gs_cluster *c, const struct gs_sevent *se)
{
    int ni = gs_world_find_node(c->w, se->node);
    if (ni < 0 || !c->w->nodes[ni].exists) {
        gs_cluster_warn(c, se, "node", se->node);
        return -1;
    }
    return ni;
}

/* Evict every pod of node `ni`: with graceful termination (drain), or at once (a deleted node
 * takes its pods with it). */
static void evict_all(struct gs_cluster *c, int ni, bool graceful, const char *reason, const char *msg)
{
    struct gs_world *w = c->w;
    int next;
    for (int q = w->nodes[ni].first_pod; q >= 0; q = next) {
        next = w->pods[q].next_on_node;
        if (graceful)
            gs_cluster_terminate_pod(c, q, GS_DEL_EVICTED, reason, msg);
    }
    if (!graceful)
        while (w->nodes[ni].first_pod >= 0)
            gs_cluster_delete_pod(c, w->nodes[ni].first_pod, GS_DEL_EVICTED, reason, msg);
}

void gs_cluster_drain_node(struct gs_cluster *c, int ni, const char *msg)
{
    gs_cluster_set_unschedulable(c, ni, true);
    evict_all(c, ni, true, "Evicted", msg);
    gs_cluster_notify(c, GS_CE_NODE_TAINT);
}

void gs_cluster_delete_node(struct gs_cluster *c, int ni)
{
    struct gs_world *w = c->w;
    evict_all(c, ni, false, "Deleted", "node deleted");
    w->nodes[ni].exists = false;
    /* the node-hours a `stat:` check counts end here, where the report's end (its Deleted row) */
    w->nodes[ni].deleted_at = gs_cluster_now(c);
    gs_node_touch(w, ni);
    gs_cluster_node_event(c, ni, "Deleted", NULL, NULL);
}

bool gs_cluster_scenario_event(struct gs_cluster *c, const struct gs_sevent *se)
{
    struct gs_world *w = c->w;
    int ni;
    switch (se->kind) {
    case GS_SEV_CORDON:
    case GS_SEV_UNCORDON:
        if ((ni = event_node(c, se)) < 0)
            return true;
        gs_cluster_set_unschedulable(c, ni, se->kind == GS_SEV_CORDON);
        gs_cluster_notify(c, GS_CE_NODE_TAINT);
        return true;
    case GS_SEV_DRAIN:
        if ((ni = event_node(c, se)) < 0)
            return true;
        gs_cluster_drain_node(c, ni, "drained");
        return true;
    case GS_SEV_DELETE_NODE:
        if ((ni = event_node(c, se)) < 0)
            return true;
        gs_cluster_delete_node(c, ni);
        return true;
    case GS_SEV_ADD_NODES:
        for (int i = 0; i < se->count; i++)
            gs_cluster_add_node(c, se->pool);
        gs_cluster_notify(c, GS_CE_NODE_ADD);
        return true;
    case GS_SEV_LABEL: {
        if ((ni = event_node(c, se)) < 0)
            return true;
        for (int i = 0; i < se->set.n; i++)
            gs_cluster_set_label(c, ni, se->set.kv[i].key, se->set.kv[i].value);
        gs_cluster_node_patched(c, ni, true, false, -1);
        return true;
    }
    case GS_SEV_DELETE_POD: {
        int pi = gs_world_find_pod(w, se->pod);
        if (pi < 0 || w->pods[pi].deleted) {
            gs_cluster_warn(c, se, "pod", se->pod);
            return true;
        }
        gs_cluster_terminate_pod(c, pi, GS_DEL_API, "Deleted", NULL);
        return true;
    }
    default:
        return false;
    }
}

uint64_t gs_cluster_dra_gpus(const struct gs_cluster *c, int ni)
{
    const struct gs_dra_state *st = c->dra;
    if (!st || ni < 0 || ni >= st->nodes_cap || !st->nodes[ni].published)
        return 0;
    const struct gs_gpu_ledger *l = &st->nodes[ni].ledger;
    uint64_t m = 0;
    for (int g = 0; g < l->ngpus && g < 64; g++)
        if (l->holder[g] == GS_GPU_HELD_DRA)
            m |= UINT64_C(1) << g;
    return m;
}
