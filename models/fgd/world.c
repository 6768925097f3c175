/* gpusim: the FGD measure over a simulator world: typical pods of the scenario's workloads and
 * the incremental per-node view (fgd_world.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/fgd/fgd_world.h"
#include "models/devices/gpushare_pod.h"

/* ------------------------------------------------------------------ pods */

static bool model_key(const char *k)
{
    return k && (strcmp(k, GS_FGD_MODEL_LABEL) == 0 || strcmp(k, GS_FGD_PRODUCT_LABEL) == 0);
}

static uint32_t mask_of(struct gs_openb_models *m, bool add, const char *const *values, int n)
{
    uint32_t mask = 0;
    for (int i = 0; i < n; i++) {
        if (!values[i] || !*values[i])
            continue;
        int id = gs_openb_model_id(m, values[i], (int)strlen(values[i]), add);
        if (id == GS_ERANGE)
            return 0; /* registry full or a name too long: any model */
        if (id >= 0)
            mask |= 1u << id;
        else
            return 0; /* a name not registered (add false): cannot be expressed, any model */
    }
    return mask;
}

/* The `In` values on a model key of the pod's one required term, else its nodeSelector's. */
static int spec_values(const struct gs_pod_template *t, const char *const **values)
{
    const struct gs_node_affinity *a = &t->affinity;
    if (a->has_required && a->nrequired == 1)
        for (int i = 0; i < a->required[0].nexprs; i++) {
            const struct gs_requirement *r = &a->required[0].exprs[i];
            if (r->op == GS_OP_IN && model_key(r->key)) {
                *values = r->values;
                return r->nvalues;
            }
        }
    for (int i = 0; i < t->node_selector.n; i++)
        if (model_key(t->node_selector.kv[i].key)) {
            *values = (const char *const *)&t->node_selector.kv[i].value;
            return 1;
        }
    return 0;
}

void gs_fgd_pod_of(const struct gs_world *w, const struct gs_pod_template *t, struct gs_openb_models *models,
                   bool add, struct gs_fgd_pod *out)
{
    memset(out, 0, sizeof *out);
    out->cpu_milli = t->requests.v[GS_RES_CPU];
    int64_t mem = t->requests.v[GS_RES_MEMORY];
    out->memory_mib = mem > 0 ? (mem + (INT64_C(1) << 20) - 1) >> 20 : 0;
    struct gs_gpushare_req req;
    if (gs_gpushare_pod_req(w, t, &req, NULL)) {
        out->num_gpu = req.num_gpu;
        out->gpu_milli = req.gpu_milli;
    }
    if (models && out->gpu_milli > 0) {
        const char *const *values = NULL;
        int n = spec_values(t, &values);
        if (n > 0)
            out->spec_mask = mask_of(models, add, values, n);
    }
}

/* ------------------------------------------------------------------ typical pods */

struct acc {
    struct gs_fgd_typical_key *k;
    char **text; /* owned spec texts, one per key */
    int n, kcap, tcap;
};

/* The raw gpu_spec text of a mask: the registry's names joined by '|' in id order. */
static char *spec_text(const struct gs_openb_models *m, uint32_t mask)
{
    size_t len = 1;
    for (int i = 0; i < m->n; i++)
        if (mask >> i & 1u)
            len += strlen(m->name[i]) + 1;
    char *s = gs_malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < m->n; i++)
        if (mask >> i & 1u) {
            if (s[0])
                strcat(s, "|");
            strcat(s, m->name[i]);
        }
    return s;
}

static int add_key(struct acc *a, struct gs_openb_models *m, const struct gs_fgd_pod *p, int64_t count)
{
    if (count <= 0)
        return 0;
    if (GS_GROW(a->k, a->kcap, a->n + 1) || GS_GROW(a->text, a->tcap, a->n + 1))
        return GS_ENOMEM;
    char *text = spec_text(m, p->spec_mask);
    if (!text)
        return GS_ENOMEM;
    a->text[a->n] = text;
    a->k[a->n++] = (struct gs_fgd_typical_key){p->cpu_milli, p->gpu_milli, p->num_gpu, p->spec_mask, text, count};
    return 0;
}

static int add_tmpl(struct acc *a, const struct gs_world *w, struct gs_openb_models *m,
                    const struct gs_pod_template *t, int64_t count)
{
    struct gs_fgd_pod p;
    gs_fgd_pod_of(w, t, m, true, &p);
    return add_key(a, m, &p, count);
}

int gs_fgd_world_typical_build(const struct gs_world *w, double threshold_pct, struct gs_fgd_world_typical *out)
{
    memset(out, 0, sizeof *out);
    struct acc a = {0};
    int rc = 0;
    for (int i = 0; i < w->nworkloads && !rc; i++) {
        const struct gs_workload *wl = &w->workloads[i];
        if (wl->rejected)
            continue;
        int64_t arrivals = wl->arrival.count > 0 ? wl->arrival.count : 1;
        if (wl->arrival.until_horizon) /* count is a bound: weigh by the mean */
            arrivals = llround(wl->arrival.expected_count) > 0 ? llround(wl->arrival.expected_count) : 1;
        switch (wl->kind) {
        case GS_WL_PLAIN:
            if (wl->ngpu_choices > 0) {
                /* gpusPerPod: each count's template weighted by its expected share of the pods */
                double total = 0;
                for (int k = 0; k < wl->ngpu_choices; k++)
                    total += wl->gpu_choices[k].weight;
                for (int k = 0; k < wl->ngpu_choices && !rc; k++)
                    rc = add_tmpl(&a, w, &out->models, wl->gpu_choices[k].tmpl,
                                  llround((double)wl->replicas * (double)arrivals * wl->gpu_choices[k].weight / total));
                break;
            }
            rc = add_tmpl(&a, w, &out->models, &wl->tmpl, (int64_t)wl->replicas * arrivals);
            break;
        case GS_WL_POD:
            rc = add_tmpl(&a, w, &out->models, &wl->tmpl, 1);
            break;
        case GS_WL_JOB:
            rc = add_tmpl(&a, w, &out->models, &wl->tmpl, wl->completions > 0 ? wl->completions : wl->parallelism);
            break;
        case GS_WL_LWS: {
            int size = wl->lws_size > 0 ? wl->lws_size : 1;
            const struct gs_pod_template *leader = wl->lws_leader_tmpl ? wl->lws_leader_tmpl : &wl->tmpl;
            rc = add_tmpl(&a, w, &out->models, leader, wl->replicas);
            if (!rc)
                rc = add_tmpl(&a, w, &out->models, &wl->tmpl, (int64_t)wl->replicas * (size - 1));
            break;
        }
        case GS_WL_LIST:
            for (int k = 0; k < wl->nlist && !rc; k++)
                rc = add_tmpl(&a, w, &out->models, wl->list[k].tmpl, 1);
            break;
        case GS_WL_PODGROUP:
            break;
        }
    }
    if (!rc)
        rc = a.n > 0 ? gs_fgd_typical_build_keys(a.k, a.n, threshold_pct, &out->typical) : GS_EINVAL;
    for (int i = 0; i < a.n; i++)
        gs_free(a.text[i]);
    gs_free(a.text);
    gs_free(a.k);
    if (rc)
        gs_fgd_world_typical_free(out);
    return rc;
}

void gs_fgd_world_typical_free(struct gs_fgd_world_typical *wt)
{
    if (!wt)
        return;
    gs_fgd_typical_free(&wt->typical);
    memset(wt, 0, sizeof *wt);
}

/* ------------------------------------------------------------------ the view */

void gs_fgd_view_init(struct gs_fgd_view *v, const struct gs_world *w, const struct gs_fgd_world_typical *wt,
                      bool tags)
{
    memset(v, 0, sizeof *v);
    v->w = w;
    v->wt = wt;
    v->tags = tags;
}

void gs_fgd_view_free(struct gs_fgd_view *v)
{
    if (!v)
        return;
    gs_free(v->nodes);
    gs_free(v->ver);
    gs_free(v->stamp);
    gs_fgd_frag_cache_free(&v->frag);
    memset(v, 0, sizeof *v);
}

static int node_model(const struct gs_fgd_view *v, const struct gs_node *n)
{
    if (!v->wt)
        return -1;
    const char *name = gs_labels_get(&n->labels, GS_FGD_MODEL_LABEL);
    if (!name)
        name = gs_labels_get(&n->labels, GS_FGD_PRODUCT_LABEL);
    if (!name)
        return -1;
    /* A model no pod asks for by name: -1 behaves the same (no gpu_spec mask has it). */
    int id = gs_openb_model_id((struct gs_openb_models *)&v->wt->models, name, (int)strlen(name), false);
    return id >= 0 ? id : -1;
}

static int64_t mib(int64_t bytes)
{
    return bytes >= 0 ? bytes >> 20 : -((-bytes + (INT64_C(1) << 20) - 1) >> 20);
}

/* Node i of the world as a gs_fgd_node. */
static void build_node(const struct gs_fgd_view *v, int i, struct gs_fgd_node *out)
{
    const struct gs_world *w = v->w;
    const struct gs_node *n = &w->nodes[i];
    memset(out, 0, sizeof *out);
    out->model = -1;
    if (!n->exists)
        return;
    out->cpu_cap = n->allocatable.v[GS_RES_CPU];
    out->cpu_left = out->cpu_cap - n->requested.v[GS_RES_CPU];
    out->mem_cap = mib(n->allocatable.v[GS_RES_MEMORY]);
    out->mem_left = mib(n->allocatable.v[GS_RES_MEMORY] - n->requested.v[GS_RES_MEMORY]);
    out->gpu = n->gpus;
    out->model = out->gpu.ngpu > 0 ? node_model(v, n) : -1;
    if (!v->tags)
        return;
    for (int q = n->first_pod; q >= 0; q = w->pods[q].next_on_node) {
        struct gs_gpushare_req r;
        if (!gs_gpushare_pod_req(w, w->pods[q].tmpl, &r, NULL) || r.num_gpu <= 0)
            continue; /* CPU-only pods carry no tag */
        int tag = r.num_gpu == 1 && r.gpu_milli < GS_GPU_MILLI ? 0 : r.num_gpu;
        if (tag <= GS_GPUS_MAX && out->tag_count[tag] < UINT16_MAX)
            out->tag_count[tag]++;
    }
}

void gs_fgd_view_node(const struct gs_fgd_view *v, int i, struct gs_fgd_node *out)
{
    build_node(v, i, out);
}

static int grow(struct gs_fgd_view *v, int need)
{
    /* Each array keeps its own capacity, so a failure part-way leaves every one valid. */
    if (GS_GROW(v->nodes, v->nodes_cap, need) || GS_GROW_ZERO(v->ver, v->ver_cap, need) ||
        GS_GROW_ZERO(v->stamp, v->stamp_cap, need))
        return GS_ENOMEM;
    return 0;
}

static void rebuild(struct gs_fgd_view *v, int i)
{
    if (v->stamp[i] == v->syncs)
        return; /* already rebuilt in this sync */
    v->stamp[i] = v->syncs;
    build_node(v, i, &v->nodes[i]);
    v->ver[i]++;
    if (v->frag_ok && i < v->frag.n)
        gs_fgd_frag_cache_update(&v->frag, &v->wt->typical, v->nodes, i);
}

int gs_fgd_view_sync(struct gs_fgd_view *v)
{
    const struct gs_world *w = v->w;
    uint64_t nc = w->node_changes;
    if (v->valid && nc == v->seen && w->nnodes == v->n)
        return 0;
    if (grow(v, w->nnodes)) {
        v->valid = false;
        return GS_ENOMEM;
    }
    v->syncs++;
    if (!v->valid || nc - v->seen > GS_NODE_CHANGE_LOG) {
        for (int i = 0; i < w->nnodes; i++) {
            v->stamp[i] = v->syncs;
            build_node(v, i, &v->nodes[i]);
            v->ver[i]++;
        }
        v->n = w->nnodes;
        gs_fgd_frag_cache_free(&v->frag);
        v->frag_ok = false;
        if (v->wt) {
            if (gs_fgd_frag_cache_init(&v->frag, &v->wt->typical, v->nodes, v->n))
                return GS_ENOMEM; /* valid stays false: redone next time */
            v->frag_ok = true;
        }
    } else {
        /* Nodes added since: built, then their fragmentation added; then the logged changes. */
        for (int i = v->n; i < w->nnodes; i++) {
            v->stamp[i] = v->syncs;
            build_node(v, i, &v->nodes[i]);
            v->ver[i]++;
        }
        v->n = w->nnodes;
        if (v->frag_ok && gs_fgd_frag_cache_grow(&v->frag, &v->wt->typical, v->nodes, v->n)) {
            v->valid = false;
            return GS_ENOMEM;
        }
        for (uint64_t k = v->seen; k < nc; k++)
            rebuild(v, w->node_change_log[k % GS_NODE_CHANGE_LOG]);
    }
    v->seen = nc;
    v->valid = true;
    return 0;
}

double gs_fgd_view_frag_gpus(const struct gs_fgd_view *v)
{
    if (!v->wt || !v->frag_ok)
        return NAN;
    return v->frag.frag_milli / 1000.0;
}

double gs_fgd_view_node_frag_gpus(const struct gs_fgd_view *v, int i)
{
    if (!v->frag_ok || i < 0 || i >= v->frag.n)
        return 0.0;
    return v->frag.node_frag[i] / 1000.0;
}
