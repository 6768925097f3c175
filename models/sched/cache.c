/* What the scheduler keeps between cycles so a cycle does not redo work whose inputs did not
 * change (DESIGN.md "Fast path"). Nothing here changes a decision or a message: each cache is
 * keyed on everything its values are computed from.
 *
 * - The node copies (struct gs_mnode, s->mres): the node data every cycle reads for every node
 *   (generation, lowest pod priority, exists flag, room per resource), in flat arrays. They are
 *   refreshed from the world for the nodes in the world's node-change log since the last cycle
 *   (gs_world.node_changes: gs_world_assign/unassign, gs_world_add_node, gs_node_touch).
 * - The static verdicts (struct gs_tcache): what the Filter plugins flagged GS_PLF_STATIC_FILTER
 *   (NodeUnschedulable, NodeName, TaintToleration and NodeAffinity) say for one (template,
 *   node), and the raw scores of the Score plugins flagged GS_PLF_STATIC_SCORE
 *   (TaintToleration, NodeAffinity), valid while the node's generation (gs_node.gen, bumped by
 *   gs_node_touch) is unchanged. Templates with equal static parts share.
 * - The template summaries (struct gs_vsum): for one template, every node's filter verdict
 *   without nominated pods, and their sums (feasible nodes, reason counts, nodes where
 *   preemption might help). Brought up to date by redoing only the nodes changed since, so a
 *   cycle that fails like the previous one for the same template costs O(changed nodes).
 *
 * Debug builds (no NDEBUG) check the copies against the world every cycle, every static verdict
 * against a fresh run of the filters, and every summary-based cycle against a full walk: a node
 * changed without gs_node_touch shows as a GS_ASSERT there.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "sched_internal.h"

/* ------------------------------------------------------------------ static verdicts */

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool labels_eq(const struct gs_labels *a, const struct gs_labels *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (!str_eq(a->kv[i].key, b->kv[i].key) || !str_eq(a->kv[i].value, b->kv[i].value))
            return false;
    return true;
}

static bool reqs_eq(const struct gs_requirement *a, const struct gs_requirement *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (a[i].op != b[i].op || a[i].nvalues != b[i].nvalues || !str_eq(a[i].key, b[i].key))
            return false;
        for (int v = 0; v < a[i].nvalues; v++)
            if (!str_eq(a[i].values[v], b[i].values[v]))
                return false;
    }
    return true;
}

static bool term_eq(const struct gs_term *a, const struct gs_term *b)
{
    return a->nexprs == b->nexprs && a->nfields == b->nfields && reqs_eq(a->exprs, b->exprs, a->nexprs) &&
           reqs_eq(a->fields, b->fields, a->nfields);
}

bool gs_tmpl_static_equal(const struct gs_pod_template *a, const struct gs_pod_template *b)
{
    if (a == b)
        return true;
    if (!str_eq(a->node_name, b->node_name) || a->ntolerations != b->ntolerations ||
        !labels_eq(&a->node_selector, &b->node_selector))
        return false;
    for (int i = 0; i < a->ntolerations; i++) {
        const struct gs_toleration *x = &a->tolerations[i], *y = &b->tolerations[i];
        if (x->op != y->op || x->effect != y->effect || !str_eq(x->key, y->key) || !str_eq(x->value, y->value))
            return false;
    }
    const struct gs_node_affinity *x = &a->affinity, *y = &b->affinity;
    if (x->has_required != y->has_required || x->nrequired != y->nrequired || x->npreferred != y->npreferred)
        return false;
    for (int i = 0; i < x->nrequired; i++)
        if (!term_eq(&x->required[i], &y->required[i]))
            return false;
    for (int i = 0; i < x->npreferred; i++)
        if (x->preferred[i].weight != y->preferred[i].weight || !term_eq(&x->preferred[i].term, &y->preferred[i].term))
            return false;
    return true;
}

struct gs_tcache *gs_sched_tcache_get(struct gs_sched *s, const struct gs_pod_template *t)
{
    if (s->nsfilters == 0)
        return NULL;
    struct gs_tcache *c = NULL;
    for (int i = 0; i < s->ntc && !c; i++)
        if (s->tc[i].t == t)
            c = &s->tc[i];
    for (int i = 0; i < s->ntc && !c; i++)
        if (gs_tmpl_static_equal(s->tc[i].t, t))
            c = &s->tc[i];
    if (!c) {
        if (s->ntc < GS_SCHED_TCACHE_SLOTS) {
            struct gs_sverdict *v = gs_calloc((size_t)s->nodes_cap, sizeof *v);
            if (!v) {
                s->oom = true; /* the cycle could go on uncached, but a run treats it as its failure */
                return NULL;
            }
            c = &s->tc[s->ntc++];
            c->v = v;
            c->sc = s->nsscore ? gs_calloc((size_t)s->nodes_cap * (size_t)s->sc_stride, sizeof *c->sc) : NULL;
            if (s->nsscore && !c->sc)
                s->oom = true;
        } else {
            c = &s->tc[0];
            for (int i = 1; i < s->ntc; i++)
                if (s->tc[i].used < c->used)
                    c = &s->tc[i];
            memset(c->v, 0, sizeof *c->v * (size_t)s->nodes_cap);
            if (c->sc)
                memset(c->sc, 0, sizeof *c->sc * (size_t)s->nodes_cap * (size_t)s->sc_stride);
        }
        c->t = t;
    }
    c->used = s->cycles;
    return c;
}

void gs_sched_run_static(struct gs_sched *s, const struct gs_podctx *pc, int node, struct gs_fstat *st)
{
    for (int i = 0; i < s->nsfilters; i++) {
        s->sfilters[i](s, pc, node, NULL, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
}

/* ------------------------------------------------------------------ node copies */

/* Copy node i's data into the scheduler's flat arrays. */
static void mirror_node(struct gs_sched *s, int i)
{
    const struct gs_node *n = &s->w->nodes[i];
    struct gs_mnode *m = &s->m[i];
    m->gen = n->gen;
    m->min_prio = n->min_prio;
    m->exists = n->exists;
    m->pods_room = n->allocatable.v[GS_RES_PODS] - n->npods;
    int64_t *r = &s->mres[(size_t)i * (size_t)s->mnres * 2];
    for (int k = 0; k < s->mnres; k++) {
        r[2 * k] = n->allocatable.v[k] - n->requested.v[k];
        r[2 * k + 1] = n->allocatable.v[k];
    }
}

int gs_sched_mirror_sync(struct gs_sched *s)
{
    const struct gs_world *w = s->w;
    bool full = s->mfull;
    if (w->res.n != s->mnres || s->mres_nodes < s->nodes_cap) {
        int need = s->nodes_cap * w->res.n * 2;
        if (GS_GROW(s->mres, s->mres_cap, need > 0 ? need : 1))
            return GS_ENOMEM;
        s->mnres = w->res.n;
        s->mres_nodes = s->nodes_cap;
        full = true;
    }
    uint64_t nc = w->node_changes;
    full = full || nc - s->mseen > GS_NODE_CHANGE_LOG;
    bool snap_dirty = full || w->nnodes != s->msnap_nnodes;
    if (full) {
        for (int i = 0; i < w->nnodes; i++)
            mirror_node(s, i);
    } else {
        for (uint64_t k = s->mseen; k < nc; k++) {
            int i = w->node_change_log[k % GS_NODE_CHANGE_LOG];
            bool existed = s->m[i].exists;
            mirror_node(s, i);
            if (s->m[i].exists != existed)
                snap_dirty = true;
        }
    }
    s->mseen = nc;
    s->mfull = false;
    if (snap_dirty) {
        /* The snapshot: the registered nodes, in index order. */
        s->nsnap = 0;
        for (int i = 0; i < w->nnodes; i++)
            if (s->m[i].exists)
                s->snap[s->nsnap++] = i;
        s->msnap_nnodes = w->nnodes;
    }
#ifndef NDEBUG
    /* Every copy matches the world: a node changed without gs_node_touch would show here. */
    for (int i = 0; i < w->nnodes; i++) {
        const struct gs_node *n = &w->nodes[i];
        const struct gs_mnode *m = &s->m[i];
        GS_ASSERT(m->gen == n->gen && m->min_prio == n->min_prio && m->exists == n->exists &&
                  m->pods_room == n->allocatable.v[GS_RES_PODS] - n->npods);
        const int64_t *r = &s->mres[(size_t)i * (size_t)s->mnres * 2];
        for (int k = 0; k < s->mnres; k++)
            GS_ASSERT(r[2 * k] == n->allocatable.v[k] - n->requested.v[k] && r[2 * k + 1] == n->allocatable.v[k]);
    }
#endif
    return 0;
}

/* ------------------------------------------------------------------ template summaries */

enum { VN_COUNTED = 1, VN_VICTIMS = 2 };

/* Add (sign +1) or remove (-1) one counted node's verdict to or from the sums. */
static void vn_count(struct gs_sched *s, struct gs_vsum *vs, const struct gs_vnode *vn, int sign)
{
    vs->ncounted += sign;
    if (vn->code == GS_ST_SUCCESS) {
        vs->nfeasible += sign;
        return;
    }
    vs->pl_count[vn->plugin] += sign;
    if (vn->code == GS_ST_UNSCHEDULABLE) {
        vs->npot += sign;
        if (vn->flags & VN_VICTIMS)
            vs->npot_victims += sign;
    }
    switch (vn->kind) {
    case GS_R_FIT:
        for (uint64_t m = vn->insuff; m; m &= m - 1)
            vs->h.fit[__builtin_ctzll(m)] += sign;
        break;
    case GS_R_TAINT:
        if (s->cfg.taint_reason_generic)
            vs->h.kind[GS_R_TAINT] += sign;
        else
            gs_hcount_taint_kv(s, &vs->h, vn->tkey, vn->tvalue, sign);
        break;
    default:
        vs->h.kind[vn->kind] += sign;
        break;
    }
}

/* Redo node i's verdict in vs (pc is vs's template's context). */
static void vsum_node(struct gs_sched *s, struct gs_vsum *vs, const struct gs_podctx *pc, int i)
{
    struct gs_vnode *vn = &vs->v[i];
    if (vn->flags & VN_COUNTED)
        vn_count(s, vs, vn, -1);
    vn->flags = 0;
    if (!s->m[i].exists)
        return;
    struct gs_fstat st = {.node = i};
    gs_node_verdict(s, pc, i, &st);
    *vn = (struct gs_vnode){.insuff = st.insuff,
                            .code = st.code,
                            .plugin = st.plugin,
                            .kind = st.kind,
                            .taint = st.taint,
                            .flags = VN_COUNTED};
    if (st.kind == GS_R_TAINT) {
        /* The text names the taint: keep its strings (the node's taints may be replaced). */
        const struct gs_taint *t = &s->w->nodes[i].taints[st.taint];
        vn->tkey = t->key;
        vn->tvalue = t->value ? t->value : "";
    }
    if (st.code == GS_ST_UNSCHEDULABLE && s->m[i].min_prio < pc->prio)
        vn->flags |= VN_VICTIMS;
    vn_count(s, vs, vn, +1);
}

static void vsum_clear(struct gs_vsum *vs, int nodes_cap)
{
    gs_hcount_reset(&vs->h);
    memset(vs->pl_count, 0, sizeof vs->pl_count);
    vs->ncounted = vs->nfeasible = vs->npot = vs->npot_victims = 0;
    memset(vs->v, 0, sizeof *vs->v * (size_t)nodes_cap);
    vs->valid = false;
    vs->msg_valid = false;
}

struct gs_vsum *gs_sched_vsum_get(struct gs_sched *s, const struct gs_podctx *pc)
{
    const struct gs_world *w = s->w;
    struct gs_vsum *vs = NULL;
    for (int i = 0; i < s->nvs && !vs; i++)
        if (s->vs[i].t == pc->t)
            vs = &s->vs[i];
    if (!vs) {
        bool failed = false;
        for (int i = 0; i < (int)(sizeof s->failed_t / sizeof s->failed_t[0]) && !failed; i++)
            failed = s->failed_t[i] == pc->t;
        if (!failed)
            return NULL;
        if (s->nvs < GS_SCHED_VSUM_SLOTS) {
            vs = &s->vs[s->nvs];
            memset(vs, 0, sizeof *vs);
            vs->v = gs_calloc((size_t)s->nodes_cap, sizeof *vs->v);
            if (!vs->v) {
                s->oom = true;
                return NULL;
            }
            vs->vcap = s->nodes_cap;
            s->nvs++;
        } else {
            vs = &s->vs[0];
            for (int i = 1; i < s->nvs; i++)
                if (s->vs[i].used < vs->used)
                    vs = &s->vs[i];
            vsum_clear(vs, vs->vcap);
        }
        vs->t = pc->t;
    }
    vs->used = s->cycles;
    if (vs->vcap < s->nodes_cap && GS_GROW_ZERO(vs->v, vs->vcap, s->nodes_cap))
        return NULL;
    uint64_t nc = w->node_changes;
    if (!vs->valid || nc - vs->seen > GS_NODE_CHANGE_LOG) {
        vsum_clear(vs, vs->vcap);
        for (int i = 0; i < w->nnodes; i++)
            vsum_node(s, vs, pc, i);
        vs->valid = true;
        vs->rev++;
    } else if (nc != vs->seen) {
        for (uint64_t k = vs->seen; k < nc; k++)
            vsum_node(s, vs, pc, w->node_change_log[k % GS_NODE_CHANGE_LOG]);
        vs->rev++;
    }
    vs->seen = nc;
    if (s->oom) {
        /* A taint counter could not be added: the sums are not to be trusted. */
        vsum_clear(vs, vs->vcap);
        return NULL;
    }
    return vs;
}

void gs_sched_vsum_failed(struct gs_sched *s, const struct gs_pod_template *t)
{
    const int n = (int)(sizeof s->failed_t / sizeof s->failed_t[0]);
    for (int i = 0; i < n; i++)
        if (s->failed_t[i] == t)
            return;
    s->failed_t[s->nfailed_t] = t;
    s->nfailed_t = (s->nfailed_t + 1) % n;
}

void gs_sched_vsum_free(struct gs_sched *s)
{
    for (int i = 0; i < s->nvs; i++) {
        gs_free(s->vs[i].v);
        gs_hcount_free(&s->vs[i].h);
        gs_free(s->vs[i].msg);
    }
    s->nvs = 0;
}
