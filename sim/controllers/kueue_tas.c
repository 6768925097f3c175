/* Kueue's Topology Aware Scheduling (sim/controllers/kueue.h): a Workload admitted to a flavor
 * with a Topology is placed on the topology's domains before its pods exist (the required,
 * preferred or unconstrained level of the podset annotations, models/admission/kueue_tas.c), and
 * its pods are pinned to their domain through the nodeSelector Kueue injects.
 *
 * Rules gpusim chooses: pods are pinned at creation (Kueue's scheduling gate is not modelled);
 * a LeaderWorkerSet group is admitted on quota alone, not placed by TAS; nodes that are cordoned
 * or not Ready offer no room. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "sim/controllers/kueue.h"

struct tas_mode kq_tas_mode(const struct gs_kueue_spec *s, const struct kwl *k, int flavor)
{
    struct tas_mode m = {.on = false};
    /* A LeaderWorkerSet group is admitted on quota alone: gpusim does not place it by TAS. */
    if (flavor < 0 || s->flavors[flavor].topology < 0 || k->lws_group >= 0)
        return m;
    const struct gs_kueue_topology *t = &s->topologies[s->flavors[flavor].topology];
    m.on = true;
    m.mode = GS_KQ_TAS_UNCONSTRAINED;
    m.level = t->nlevels - 1;
    const char *req = gs_labels_get(&k->tmpl->annotations, "kueue.x-k8s.io/podset-required-topology");
    const char *pref = gs_labels_get(&k->tmpl->annotations, "kueue.x-k8s.io/podset-preferred-topology");
    const char *lvl = req ? req : pref;
    if (lvl) {
        m.mode = req ? GS_KQ_TAS_REQUIRED : GS_KQ_TAS_PREFERRED;
        m.level = -1;
        for (int i = 0; i < t->nlevels; i++)
            if (strcmp(t->levels[i], lvl) == 0)
                m.level = i;
        if (m.level < 0)
            m.bad_level = lvl;
    }
    return m;
}

/* Pods of admitted TAS Workloads assigned to node `ni` but not bound there yet. */
static int tas_outstanding(struct kueue *r, int ni, int64_t *req_out, int nres)
{
    struct kueue *kr = r;
    int total = 0;
    for (int i = 0; i < kr->n; i++) {
        struct kwl *k = &kr->w[i];
        if (k->state != KW_ADMITTED || !k->tas_nodes || ni >= k->tas_n || k->tas_nodes[ni] == 0)
            continue;
        int bound = 0;
        for (int p = 0; p < r->c->w->npods; p++) {
            const struct gs_pod *pod = &r->c->w->pods[p];
            if (!pod->deleted && pod->node == ni && p < kr->pod_cap && kr->pod_kwl[p] == i)
                bound++;
        }
        int left = k->tas_nodes[ni] - bound;
        if (left > 0) {
            total += left;
            for (int res = 0; res < nres; res++)
                req_out[res] += (int64_t)left * k->tmpl->requests.v[res];
        }
    }
    return total;
}

/* Place Workload k's pods on the flavor's Topology; on success fill k->tas_nodes. False with
 * the reason in `msg` otherwise. */
bool kq_tas_place(struct kueue *r, struct kwl *k, int flavor, const struct tas_mode *m, char *msg, size_t n)
{
    const struct gs_kueue_spec *s = r->spec;
    const struct gs_kueue_flavor *fl = &s->flavors[flavor];
    const struct gs_kueue_topology *t = &s->topologies[fl->topology];
    if (m->bad_level) {
        snprintf(msg, n, "no requested topology level: %s", m->bad_level);
        return false;
    }
    int nn = r->c->w->nnodes;
    struct gs_kueue_tas_leaf *leaves = gs_calloc((size_t)(nn ? nn : 1), sizeof *leaves);
    int *node_of = gs_malloc(sizeof *node_of * (size_t)(nn ? nn : 1));
    int *out = gs_malloc(sizeof *out * (size_t)(nn ? nn : 1));
    int *scratch = gs_malloc(sizeof *scratch * (size_t)(nn ? nn : 1) * 2);
    const char **values = gs_malloc(sizeof *values * (size_t)(nn ? nn : 1) * (size_t)t->nlevels);
    bool ok = false;
    if (!leaves || !node_of || !out || !scratch || !values) {
        kq_set_err(r, GS_ENOMEM);
        goto done;
    }
    int nl = 0;
    const struct gs_resvec *per = &k->tmpl->requests;
    for (int ni = 0; ni < nn; ni++) {
        const struct gs_node *node = &r->c->w->nodes[ni];
        if (!node->exists || node->unschedulable || !node->ready)
            continue;
        bool match = true;
        for (int i = 0; i < fl->node_labels.n && match; i++) {
            const char *v = gs_labels_get(&node->labels, fl->node_labels.kv[i].key);
            match = v && strcmp(v, fl->node_labels.kv[i].value) == 0;
        }
        for (int l = 0; l < t->nlevels && match; l++)
            match = (values[nl * t->nlevels + l] = gs_labels_get(&node->labels, t->levels[l])) != NULL;
        if (!match)
            continue;
        int64_t pend[GS_RES_MAX] = {0};
        int npend = tas_outstanding(r, ni, pend, r->c->w->res.n);
        int64_t cap = INT_MAX;
        for (int res = 0; res < r->c->w->res.n; res++) {
            if (res == GS_RES_PODS || per->v[res] <= 0)
                continue;
            int64_t free_ = node->allocatable.v[res] - node->requested.v[res] - pend[res];
            int64_t c = free_ > 0 ? free_ / per->v[res] : 0;
            if (c < cap)
                cap = c;
        }
        int64_t pods_free = node->allocatable.v[GS_RES_PODS] - node->npods - npend;
        if (node->allocatable.v[GS_RES_PODS] > 0 && pods_free < cap)
            cap = pods_free > 0 ? pods_free : 0;
        leaves[nl].values = &values[nl * t->nlevels];
        leaves[nl].capacity = (int)(cap > k->count ? k->count : cap);
        node_of[nl++] = ni;
    }
    int fit_max = 0;
    ok = gs_kueue_tas_assign(leaves, nl, t->nlevels, m->level, m->mode, k->count, out, scratch, &fit_max);
    if (!ok) {
        if (fit_max == 0)
            snprintf(msg, n, "topology \"%s\" doesn't allow to fit any of %d pod(s)", t->name, k->count);
        else
            snprintf(msg, n, "topology \"%s\" allows to fit only %d out of %d pod(s)", t->name, fit_max, k->count);
        goto done;
    }
    gs_free(k->tas_nodes);
    k->tas_nodes = gs_calloc((size_t)(nn ? nn : 1), sizeof *k->tas_nodes);
    k->tas_n = nn;
    if (!k->tas_nodes) {
        kq_set_err(r, GS_ENOMEM);
        ok = false;
        goto done;
    }
    for (int i = 0; i < nl; i++)
        k->tas_nodes[node_of[i]] += out[i];
done:
    gs_free(leaves);
    gs_free(node_of);
    gs_free(out);
    gs_free(scratch);
    gs_free(values);
    return ok;
}

/* The TAS pods: per node with pods assigned, a template pinned to the node's domain (the
 * hostname alone when it is the lowest level, else the values of every level). */
void kq_create_tas_pods(struct kueue *r, int ki, int flavor)
{
    struct kueue *kr = r;
    const struct gs_kueue_flavor *fl = &kr->spec->flavors[flavor];
    const struct gs_kueue_topology *t = &kr->spec->topologies[fl->topology];
    bool host = strcmp(t->levels[t->nlevels - 1], HOSTNAME_LABEL) == 0;
    for (int ni = 0; ni < kr->w[ki].tas_n; ni++) {
        int n = kr->w[ki].tas_nodes[ni];
        if (n == 0)
            continue;
        struct gs_labels sel = {0};
        const struct gs_node *node = &r->c->w->nodes[ni];
        for (int l = host ? t->nlevels - 1 : 0; l < t->nlevels; l++)
            kq_set_err(r, gs_labels_set(&sel, &r->c->w->arena, t->levels[l], gs_labels_get(&node->labels, t->levels[l])));
        kq_create_pods(r, ki, kq_inject(r, kr->w[ki].tmpl, fl, &sel), n);
    }
}

