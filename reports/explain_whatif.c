/* gpusim explain, a pod not bound at T (reports/explain_internal.h): the scheduler's filters
 * on the replayed cluster at T, node by node, grouped by the first plugin that rejects the
 * pod; the diagnosis in plain words; and the changes that would let it fit, each one applied
 * to the cluster (or the pod) at T and checked by running the filters again.
 *
 * The filters are kube-scheduler's Filter phase as gpusim models it (models/sched/sched.h
 * gs_sched_filter_node: PreFilter, then the Filter table in order, stopping at the first
 * failure; kubernetes pkg/scheduler/schedule_one.go findNodesThatPassFilters), on a scheduler
 * made for the purpose over the replayed world, so the run's own scheduler is not disturbed.
 * The search for pods whose removal makes room follows DefaultPreemption's victim search
 * (kubernetes pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
 * SelectVictimsOnNode: remove the candidates, check the pod fits, then reprieve them one by
 * one, most important first, keeping each that still lets it fit), with two differences made
 * for an explanation: every pod on the node is a candidate whatever its priority (the answer
 * is "if X were gone", not what preemption may do), except pods of the pod's own PodGroup;
 * and among equal priorities the pods asking for fewer GPUs are reprieved first, so the
 * victims are few.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/devices/gpushare_pod.h"
#include "models/dra/dra_state.h"
#include "models/quantity.h"
#include "reports/explain_internal.h"
#include "reports/report.h"
#include "sim/scenario/yaml.h"

#define SHOW_NODES 8    /* node names listed per group before "and N more" */
#define SHOW_ROWS 12    /* rows of a free-resources table */
#define SHOW_FITS 3     /* nodes shown for the removal of pods */

struct verdict {
    int node;
    enum gs_status_code code;
    enum gs_plugin plugin;
    char reasons[256]; /* the plugin's reasons joined with ", " */
};

struct ctx {
    const struct gs_explain_ctx *x;
    struct gs_world *w;
    struct gs_cluster *c;
    int pod;
    int gpu_res;
    struct verdict *v; /* per existing node */
    int nv;
    int feasible;
    char never[512]; /* the summary's "it can never be scheduled" sentence, "" when it may fit */
};

static void dur(int64_t us, char *buf, size_t n)
{
    if (gs_duration_format(us, buf, n) < 0)
        snprintf(buf, n, "%" PRId64 "us", us);
}

/* A scheduler over the replayed world, as the run's was set up (sim/controllers/scheduler.c
 * setup): the scenario's profile, the run's DRA state and typical pods; NULL tie-break stream
 * (filters draw nothing). */
static struct gs_sched *new_sched(struct ctx *k)
{
    struct gs_sched *s = gs_sched_new(k->w, &k->x->r->sc.sched, NULL);
    if (!s)
        return NULL;
    gs_sched_set_dra(s, k->c->dra);
    if (k->c->typical)
        gs_sched_set_fgd_typical(s, k->c->typical);
    return s;
}

static void status_text(const struct gs_node_status *st, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < st->nreasons && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", st->reasons[i] ? st->reasons[i] : "");
}

/* Filter every existing node with `s`; fills verdicts when `out` (k->nv entries); returns
 * the number of feasible nodes. */
static int filter_all(struct ctx *k, struct gs_sched *s, struct verdict *out)
{
    int feasible = 0, j = 0;
    for (int n = 0; n < k->w->nnodes; n++) {
        if (!k->w->nodes[n].exists)
            continue;
        struct gs_node_status st;
        gs_sched_filter_node_logged(s, k->pod, n, &st);
        if (st.code == GS_ST_SUCCESS)
            feasible++;
        if (out) {
            out[j].node = n;
            out[j].code = st.code;
            out[j].plugin = st.plugin;
            status_text(&st, out[j].reasons, sizeof out[j].reasons);
        }
        j++;
    }
    return feasible;
}

static bool node_feasible(struct ctx *k, struct gs_sched *s, int n)
{
    struct gs_node_status st;
    gs_sched_filter_node_logged(s, k->pod, n, &st);
    return st.code == GS_ST_SUCCESS;
}

static int64_t free_of(const struct gs_node *n, int r)
{
    return n->allocatable.v[r] - n->requested.v[r];
}

static const char *res_word(const struct gs_world *w, int r, int64_t amount)
{
    (void)w;
    if (r == GS_RES_CPU)
        return "cpu";
    if (r == GS_RES_MEMORY)
        return "memory";
    return amount == 1 && strcmp(w->res.names[r], "nvidia.com/gpu") == 0 ? "GPU"
           : strcmp(w->res.names[r], "nvidia.com/gpu") == 0             ? "GPUs"
                                                                         : w->res.names[r];
}

static void amount(const struct gs_world *w, int r, int64_t a, char *buf, size_t n)
{
    if (r == GS_RES_CPU)
        gs_explain_cpu(a, buf, n);
    else if (r == GS_RES_MEMORY || r == GS_RES_EPHEMERAL)
        gs_explain_bytes(a, buf, n);
    else
        snprintf(buf, n, "%" PRId64, a);
    (void)w;
}

/* The `--set` path of the pod template's spec of workload `wl` in the scenario (spec.workloads[i]
 * follows the workloads spec.cluster.source made), or NULL when the workload is not one whose
 * template a path names simply (a LeaderWorkerSet, a pod list). */
static const char *spec_path(const struct ctx *k, char *buf, size_t n)
{
    const struct gs_world *w = k->w;
    int wl = w->pods[k->pod].workload;
    if (wl < 0)
        return NULL;
    int npre = 0;
    while (npre < w->nworkloads && w->workloads[npre].kind == GS_WL_LIST &&
           strncmp(w->workloads[npre].name, "snapshot-", 9) == 0)
        npre++;
    const struct gs_workload *x = &w->workloads[wl];
    if (wl < npre)
        return NULL;
    if (x->kind == GS_WL_PLAIN && !x->api_kind)
        snprintf(buf, n, "workloads[%d].template.spec", wl - npre);
    else if (x->api_kind && strcmp(x->api_kind, "Pod") == 0)
        snprintf(buf, n, "workloads[%d].manifest.spec", wl - npre);
    else if (x->api_kind && strcmp(x->api_kind, "Job") == 0)
        snprintf(buf, n, "workloads[%d].manifest.spec.template.spec", wl - npre);
    else
        return NULL;
    return buf;
}

/* "      try: gpusim run SCENARIO [--seed N] [--set ...] <extra>" */
static void try_line(const struct ctx *k, const char *const *extra, int nextra, bool event_at_t)
{
    FILE *out = k->x->out;
    char q[2048];
    gs_explain_shell_quote(k->x->scenario_path, q, sizeof q);
    fprintf(out, "      try: gpusim run %s", q);
    if (k->x->seed >= 0)
        fprintf(out, " --seed %" PRId64, k->x->seed);
    for (int i = 0; i < k->x->nsets; i++) {
        gs_explain_shell_quote(k->x->sets[i], q, sizeof q);
        fprintf(out, " --set %s", q);
    }
    for (int i = 0; i < nextra; i++) {
        gs_explain_shell_quote(extra[i], q, sizeof q);
        fprintf(out, " --set %s", q);
    }
    /* Room after T for the change to play out (a grace period, the queue's backoff and its
     * periodic flush of unschedulable pods): 10 minutes, past the run's horizon if need be. */
    const struct gs_scenario *sc = &k->x->r->sc;
    if (event_at_t && sc->has_horizon && k->x->at + GS_SEC(600) > sc->horizon) {
        char h[64];
        dur(k->x->at + GS_SEC(600), h, sizeof h);
        fprintf(out, " --horizon %s", h);
    }
    fprintf(out, "\n");
}

/* ------------------------------------------------------------------ groups */

static int cmp_group(const void *a, const void *b)
{
    const struct verdict *x = a, *y = b;
    if (x->code == GS_ST_SUCCESS || y->code == GS_ST_SUCCESS)
        return (x->code != GS_ST_SUCCESS) - (y->code != GS_ST_SUCCESS);
    if (x->plugin != y->plugin)
        return (int)x->plugin - (int)y->plugin;
    int c = strcmp(x->reasons, y->reasons);
    return c ? c : x->node - y->node;
}

static void print_groups(struct ctx *k)
{
    FILE *out = k->x->out;
    struct verdict *v = k->v;
    qsort(v, (size_t)k->nv, sizeof *v, cmp_group);
    char t[64];
    dur(k->x->at, t, sizeof t);
    fprintf(out, "Nodes at %s by the first filter that rejects the pod (%d node%s, re-run on the replayed cluster):\n", t,
            k->nv, k->nv == 1 ? "" : "s");
    for (int i = 0; i < k->nv;) {
        int j = i;
        while (j < k->nv && v[j].code == v[i].code && v[j].plugin == v[i].plugin &&
               strcmp(v[j].reasons, v[i].reasons) == 0)
            j++;
        if (v[i].code == GS_ST_SUCCESS)
            fprintf(out, "  %-20s %3d  the pod fits:", "(all filters pass)", j - i);
        else
            fprintf(out, "  %-20s %3d  %s:", gs_plugin_name(v[i].plugin), j - i, v[i].reasons);
        for (int m = i; m < j && m < i + SHOW_NODES; m++)
            fprintf(out, " %s", k->w->nodes[v[m].node].name);
        if (j - i > SHOW_NODES)
            fprintf(out, " and %d more", j - i - SHOW_NODES);
        fprintf(out, "\n");
        i = j;
    }
}

/* The verdicts of the pod's last failed cycle by T (observed during the replay) beside the
 * filters at T: the same, or the nodes whose verdict changed since. */
static void compare_last_attempt(struct ctx *k)
{
    FILE *out = k->x->out;
    int n = 0;
    const struct gs_explain_verdict *lv = gs_explain_scores_last_failed(k->x->scores, &n);
    if (k->x->last_attempt < 0)
        return;
    char t[64];
    dur(k->x->last_attempt, t, sizeof t);
    if (!lv) {
        fprintf(out, "(Its last attempt, at %s, was not observed: it was answered without judging nodes.)\n", t);
        return;
    }
    int changed = 0, shown = 0;
    for (int i = 0; i < k->nv; i++) {
        const struct verdict *v = &k->v[i];
        const struct gs_explain_verdict *o = NULL;
        for (int j = 0; j < n && !o; j++)
            if (lv[j].node == v->node)
                o = &lv[j];
        bool same = o && (o->code == GS_ST_SUCCESS) == (v->code == GS_ST_SUCCESS) &&
                    (v->code == GS_ST_SUCCESS || o->plugin == v->plugin);
        if (same)
            continue;
        if (changed == 0)
            fprintf(out, "Its last attempt, at %s, judged these nodes otherwise:", t);
        changed++;
        if (shown < SHOW_NODES) {
            fprintf(out, " %s (%s)", k->w->nodes[v->node].name,
                    !o ? "not judged" : o->code == GS_ST_SUCCESS ? "feasible" : gs_plugin_name(o->plugin));
            shown++;
        }
    }
    if (changed > SHOW_NODES)
        fprintf(out, " and %d more", changed - SHOW_NODES);
    if (changed)
        fprintf(out, ": the verdicts changed since (the cluster, or time-based state such as a PodGroup's backoff).\n");
    else
        fprintf(out, "Its last attempt, at %s, rejected it on the same nodes with the same plugins (the scheduler's "
                     "own verdicts, observed in the replay).\n",
                t);
}

/* ------------------------------------------------------------------ resources */

struct rnode {
    int node;
    int64_t free;
};

static int cmp_rnode(const void *a, const void *b)
{
    const struct rnode *x = a, *y = b;
    if (x->free != y->free)
        return x->free > y->free ? -1 : 1;
    return x->node - y->node;
}

/* For each resource named "Insufficient R" by NodeResourcesFit: the free amounts beside the
 * request, and the diagnosis. */
static int diagnose_resources(struct ctx *k, int why, int *lines)
{
    FILE *out = k->x->out;
    const struct gs_pod_template *tm = k->w->pods[k->pod].tmpl;
    for (int r = 0; r < k->w->res.n; r++) {
        char want[300];
        snprintf(want, sizeof want, "Insufficient %s", k->w->res.names[r]);
        int64_t req = tm->requests.v[r];
        if (req <= 0)
            continue;
        struct rnode *rows = NULL;
        int nrows = 0, cap = 0;
        for (int i = 0; i < k->nv; i++) {
            if (k->v[i].code == GS_ST_SUCCESS || k->v[i].plugin != GS_PL_NODE_RESOURCES_FIT ||
                !strstr(k->v[i].reasons, want))
                continue;
            if (GS_GROW(rows, cap, nrows + 1)) {
                gs_free(rows);
                return GS_ENOMEM;
            }
            rows[nrows].node = k->v[i].node;
            rows[nrows].free = free_of(&k->w->nodes[k->v[i].node], r);
            nrows++;
        }
        if (nrows == 0) {
            gs_free(rows);
            continue;
        }
        qsort(rows, (size_t)nrows, sizeof *rows, cmp_rnode);
        char a[64], b[64], c[64];
        amount(k->w, r, req, a, sizeof a);
        if (!why)
            fprintf(out, "\n%s free on the %d node%s NodeResourcesFit rejects (the pod asks for %s):\n",
                    k->w->res.names[r], nrows, nrows == 1 ? "" : "s", a);
        int64_t sum = 0, cluster = 0;
        for (int i = 0; i < nrows; i++) {
            int64_t f = rows[i].free > 0 ? rows[i].free : 0;
            sum += f;
            if (!why && i < SHOW_ROWS) {
                amount(k->w, r, f, b, sizeof b);
                amount(k->w, r, k->w->nodes[rows[i].node].allocatable.v[r], c, sizeof c);
                fprintf(out, "  %-24s %8s of %s allocatable\n", k->w->nodes[rows[i].node].name, b, c);
            }
        }
        if (!why && nrows > SHOW_ROWS)
            fprintf(out, "  ... and %d more\n", nrows - SHOW_ROWS);
        if (!why) {
            gs_free(rows);
            continue;
        }
        for (int n = 0; n < k->w->nnodes; n++)
            if (k->w->nodes[n].exists && free_of(&k->w->nodes[n], r) > 0)
                cluster += free_of(&k->w->nodes[n], r);
        int64_t largest = rows[0].free > 0 ? rows[0].free : 0;
        const char *word = res_word(k->w, r, sum);
        amount(k->w, r, sum, a, sizeof a);
        amount(k->w, r, largest, b, sizeof b);
        amount(k->w, r, req, c, sizeof c);
        char cl[64];
        amount(k->w, r, cluster, cl, sizeof cl);
        int64_t alloc = 0;
        for (int i = 0; i < nrows; i++)
            alloc += k->w->nodes[rows[i].node].allocatable.v[r];
        if (alloc == 0)
            fprintf(out, "  None of these nodes has any %s allocatable (for GPUs: the device plugin advertises none; "
                         "`gpusim describe TRACE NODE --at T` shows the GPU Operator's pods).\n",
                    k->w->res.names[r]);
        else if (sum == 0)
            fprintf(out, "  No %s free on any of these nodes (%s in the cluster): every one is allocated, and the pod "
                         "asks for %s.\n",
                    res_word(k->w, r, 2), cl, c);
        else if (sum >= req)
            fprintf(out,
                    "  %s %s free on these nodes (%s in the cluster), but the largest free block on one node is %s "
                    "(%s) and the pod asks for %s on one node: fragmentation.\n",
                    a, word, cl, b, k->w->nodes[rows[0].node].name, c);
        else if (k->never[0])
            ; /* the request exceeds every node's allocatable: said once, by gs_explain_unbound */
        else
            fprintf(out,
                    "  Only %s %s free on these nodes (%s in the cluster), and the pod asks for %s: not enough free "
                    "capacity, however it is placed.\n",
                    a, word, cl, c);
        (*lines)++;
        gs_free(rows);
    }
    return 0;
}

/* "Insufficient alibabacloud.com/gpu-milli": the per-GPU free milli-GPU of the nodes (the
 * share model, gpushare.h) beside what the pod needs on one GPU (Open-Gpu-Share's Filter). */
static void diagnose_shares(struct ctx *k, int why, int *lines)
{
    FILE *out = k->x->out;
    struct gs_gpushare_req req;
    if (!gs_gpushare_pod_req(k->w, k->w->pods[k->pod].tmpl, &req, NULL))
        return;
    int nodes = 0, shown = 0, best = 0, bestfree = -1;
    for (int i = 0; i < k->nv; i++) {
        if (k->v[i].code == GS_ST_SUCCESS || !strstr(k->v[i].reasons, "Insufficient " GS_GPU_MILLI_ANNOTATION))
            continue;
        const struct gs_gpushare *g = &k->w->nodes[k->v[i].node].gpus;
        if (nodes == 0 && !why)
            fprintf(out, "\nFree milli-GPU per GPU on the nodes that reject it for its GPU share (the pod needs %s):\n",
                    req.gpu_milli < GS_GPU_MILLI ? "one GPU with that many free" : "whole free GPUs");
        nodes++;
        int ffree = gs_gpushare_fully_free(g);
        if (ffree > bestfree) {
            bestfree = ffree;
            best = k->v[i].node;
        }
        if (!why && shown < SHOW_ROWS) {
            fprintf(out, "  %-24s", k->w->nodes[k->v[i].node].name);
            for (int j = 0; j < g->ngpu; j++)
                fprintf(out, " %d", g->free_milli[j]);
            fprintf(out, "\n");
            shown++;
        }
    }
    if (!why && nodes > SHOW_ROWS)
        fprintf(out, "  ... and %d more\n", nodes - SHOW_ROWS);
    if (!why || nodes == 0)
        return;
    if (req.gpu_milli < GS_GPU_MILLI)
        fprintf(out, "  The pod asks for %d milli-GPU on one GPU; on %d node%s no GPU has that much free: shares of "
                     "other pods fill them.\n",
                req.gpu_milli, nodes, nodes == 1 ? "" : "s");
    else
        fprintf(out, "  The pod asks for %d whole GPU%s; on %d node%s GPU shares (gpu-milli) of other pods take part of "
                     "the GPUs, so fewer are whole (at most %d fully free, on %s).\n",
                req.num_gpu, req.num_gpu == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s", bestfree,
                k->w->nodes[best].name);
    (*lines)++;
}

/* ------------------------------------------------------------------ taints */

#define MAX_TAINTS 16
struct taint_count {
    const struct gs_taint *t;
    int nodes;
};

/* The first taint of node n the pod does not tolerate (TaintToleration's Filter: effects
 * NoSchedule and NoExecute; kubernetes pkg/scheduler/framework/plugins/tainttoleration
 * Filter, v1helper.FindMatchingUntoleratedTaint). NULL when none. */
static const struct gs_taint *untolerated(const struct gs_node *n, const struct gs_pod_template *t)
{
    for (int i = 0; i < n->ntaints; i++) {
        const struct gs_taint *x = &n->taints[i];
        if (x->effect != GS_EFFECT_NO_SCHEDULE && x->effect != GS_EFFECT_NO_EXECUTE)
            continue;
        bool ok = false;
        for (int j = 0; j < t->ntolerations && !ok; j++)
            ok = gs_toleration_tolerates(&t->tolerations[j], x);
        if (!ok)
            return x;
    }
    return NULL;
}

static int taint_groups(struct ctx *k, struct taint_count *tc)
{
    int ntc = 0;
    const struct gs_pod_template *tm = k->w->pods[k->pod].tmpl;
    for (int i = 0; i < k->nv; i++) {
        if (k->v[i].code == GS_ST_SUCCESS || k->v[i].plugin != GS_PL_TAINT_TOLERATION)
            continue;
        const struct gs_taint *x = untolerated(&k->w->nodes[k->v[i].node], tm);
        if (!x)
            continue;
        int j = 0;
        while (j < ntc && !(strcmp(tc[j].t->key, x->key) == 0 && strcmp(tc[j].t->value, x->value) == 0 &&
                            tc[j].t->effect == x->effect))
            j++;
        if (j == ntc) {
            if (ntc == MAX_TAINTS)
                continue;
            tc[ntc++] = (struct taint_count){.t = x, .nodes = 0};
        }
        tc[j].nodes++;
    }
    return ntc;
}

static void taint_str(const struct gs_taint *t, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s:%s", t->key, t->value[0] ? "=" : "", t->value, gs_explain_effect(t->effect));
}

/* ------------------------------------------------------------------ alternatives */

/* Run `s` over the nodes with the pod's template replaced by `variant`: feasible nodes and,
 * for the nodes of `only` (NULL: all), their new verdicts into nv (may be NULL). */
static int with_template(struct ctx *k, const struct gs_pod_template *variant, struct verdict *nv, int *feasible)
{
    struct gs_pod *p = &k->w->pods[k->pod];
    const struct gs_pod_template *orig = p->tmpl;
    p->tmpl = variant;
    struct gs_sched *s = new_sched(k);
    if (!s) {
        p->tmpl = orig;
        return GS_ENOMEM;
    }
    *feasible = filter_all(k, s, nv);
    gs_sched_free(s);
    p->tmpl = orig;
    return 0;
}

/* Name the nodes that became feasible (were not in k->v) into out, or where the changed ones
 * fail now. */
static void print_change(struct ctx *k, const struct verdict *nv, bool (*was)(const struct verdict *, void *), void *arg)
{
    FILE *out = k->x->out;
    int shown = 0, more = 0;
    /* k->v is sorted by group; nv is in node order: match by node. */
    for (int i = 0; i < k->nv; i++) {
        if (nv[i].code != GS_ST_SUCCESS)
            continue;
        bool before = false;
        for (int j = 0; j < k->nv; j++)
            if (k->v[j].node == nv[i].node)
                before = k->v[j].code == GS_ST_SUCCESS;
        if (before)
            continue;
        if (shown < SHOW_NODES)
            fprintf(out, "%s%s", shown ? ", " : " (", k->w->nodes[nv[i].node].name);
        else
            more++;
        shown++;
    }
    if (shown)
        fprintf(out, "%s)", more ? " and more" : "");
    /* Nodes the change concerned that still fail, and why (the first of them). */
    int still = 0, first = -1;
    for (int i = 0; i < k->nv; i++) {
        if (nv[i].code == GS_ST_SUCCESS || !was(&nv[i], arg))
            continue;
        if (first < 0)
            first = i;
        still++;
    }
    if (still)
        fprintf(out, "; %s %d node%s then fail%s %s (%s)", shown ? "the other" : "the", still, still == 1 ? "" : "s",
                still == 1 ? "s" : "", gs_plugin_name(nv[first].plugin), nv[first].reasons);
}

struct was_taint {
    struct ctx *k;
    const struct gs_taint *t;
};
static bool node_has_taint(const struct verdict *v, void *arg)
{
    const struct was_taint *wt = arg;
    const struct gs_node *n = &wt->k->w->nodes[v->node];
    for (int i = 0; i < n->ntaints; i++)
        if (strcmp(n->taints[i].key, wt->t->key) == 0 && strcmp(n->taints[i].value, wt->t->value) == 0 &&
            n->taints[i].effect == wt->t->effect)
            return true;
    return false;
}

struct was_plugin {
    struct ctx *k;
    enum gs_plugin plugin;
};
static bool node_failed_plugin(const struct verdict *v, void *arg)
{
    const struct was_plugin *wp = arg;
    for (int j = 0; j < wp->k->nv; j++)
        if (wp->k->v[j].node == v->node)
            return wp->k->v[j].code != GS_ST_SUCCESS && wp->k->v[j].plugin == wp->plugin;
    return false;
}

static int try_tolerations(struct ctx *k, const struct taint_count *tc, int ntc, int *lines)
{
    FILE *out = k->x->out;
    const struct gs_pod_template *tm = k->w->pods[k->pod].tmpl;
    struct verdict *nv = gs_calloc((size_t)k->nv + 1, sizeof *nv);
    struct gs_toleration *tols = gs_calloc((size_t)tm->ntolerations + 1, sizeof *tols);
    if (!nv || !tols) {
        gs_free(nv);
        gs_free(tols);
        return GS_ENOMEM;
    }
    int rc = 0;
    for (int i = 0; i < ntc && rc == 0; i++) {
        struct gs_pod_template variant = *tm;
        if (tm->ntolerations)
            memcpy(tols, tm->tolerations, sizeof *tols * (size_t)tm->ntolerations);
        tols[tm->ntolerations] = (struct gs_toleration){.key = tc[i].t->key,
                                                        .op = tc[i].t->value[0] ? GS_TOL_EQUAL : GS_TOL_EXISTS,
                                                        .value = tc[i].t->value,
                                                        .effect = tc[i].t->effect,
                                                        .toleration_seconds = -1};
        variant.tolerations = tols;
        variant.ntolerations = tm->ntolerations + 1;
        int feasible;
        if ((rc = with_template(k, &variant, nv, &feasible)))
            break;
        char ts[512];
        taint_str(tc[i].t, ts, sizeof ts);
        int more = feasible - k->feasible;
        if (more > 0)
            fprintf(out, "  - tolerating the taint %s makes %d more node%s feasible", ts, more, more == 1 ? "" : "s");
        else
            fprintf(out, "  - tolerating the taint %s alone makes no node feasible", ts);
        struct was_taint wt = {k, tc[i].t};
        print_change(k, nv, node_has_taint, &wt);
        fprintf(out, "\n");
        (*lines)++;
        char path[256], set[1024];
        if (more > 0 && spec_path(k, path, sizeof path)) {
            if (tc[i].t->value[0])
                snprintf(set, sizeof set, "%s.tolerations[%d]={key: \"%s\", operator: Equal, value: \"%s\", effect: %s}",
                         path, tm->ntolerations, tc[i].t->key, tc[i].t->value, gs_explain_effect(tc[i].t->effect));
            else
                snprintf(set, sizeof set, "%s.tolerations[%d]={key: \"%s\", operator: Exists, effect: %s}", path,
                         tm->ntolerations, tc[i].t->key, gs_explain_effect(tc[i].t->effect));
            if (tm->ntolerations == 0) /* a list that is not there yet: give it whole */
                snprintf(set + strlen(path), sizeof set - strlen(path), ".tolerations=[{key: \"%s\", operator: %s%s%s%s, effect: %s}]",
                         tc[i].t->key, tc[i].t->value[0] ? "Equal" : "Exists", tc[i].t->value[0] ? ", value: \"" : "",
                         tc[i].t->value, tc[i].t->value[0] ? "\"" : "", gs_explain_effect(tc[i].t->effect));
            const char *e[1] = {set};
            try_line(k, e, 1, false);
        }
    }
    gs_free(nv);
    gs_free(tols);
    return rc;
}

/* Each nodeSelector key dropped, and the required node affinity dropped. */
static int try_selectors(struct ctx *k, int *lines)
{
    FILE *out = k->x->out;
    const struct gs_pod_template *tm = k->w->pods[k->pod].tmpl;
    struct verdict *nv = gs_calloc((size_t)k->nv + 1, sizeof *nv);
    struct gs_kv *kv = gs_calloc((size_t)tm->node_selector.n + 1, sizeof *kv);
    if (!nv || !kv) {
        gs_free(nv);
        gs_free(kv);
        return GS_ENOMEM;
    }
    struct was_plugin wp = {k, GS_PL_NODE_AFFINITY};
    int rc = 0;
    for (int i = 0; i <= tm->node_selector.n && rc == 0; i++) {
        struct gs_pod_template variant = *tm;
        if (i < tm->node_selector.n) {
            int m = 0;
            for (int j = 0; j < tm->node_selector.n; j++)
                if (j != i)
                    kv[m++] = tm->node_selector.kv[j];
            variant.node_selector.kv = kv;
            variant.node_selector.n = m;
            variant.node_selector.cap = m;
        } else if (tm->affinity.has_required) {
            variant.affinity.has_required = false;
            variant.affinity.required = NULL;
            variant.affinity.nrequired = 0;
        } else {
            break;
        }
        int feasible;
        if ((rc = with_template(k, &variant, nv, &feasible)))
            break;
        int more = feasible - k->feasible;
        if (i < tm->node_selector.n)
            fprintf(out, "  - dropping nodeSelector %s=%s ", tm->node_selector.kv[i].key, tm->node_selector.kv[i].value);
        else
            fprintf(out, "  - dropping the required node affinity ");
        if (more > 0)
            fprintf(out, "makes %d more node%s feasible", more, more == 1 ? "" : "s");
        else
            fprintf(out, "alone makes no node feasible");
        print_change(k, nv, node_failed_plugin, &wp);
        fprintf(out, "\n");
        (*lines)++;
        char path[256], set[2048];
        if (more > 0 && spec_path(k, path, sizeof path)) {
            if (i < tm->node_selector.n) {
                /* The whole map without the key (a null value keeps the key). */
                size_t n = (size_t)snprintf(set, sizeof set, "%s.nodeSelector=", path);
                if (variant.node_selector.n == 0)
                    snprintf(set + n, sizeof set - n, "null");
                else {
                    n += (size_t)snprintf(set + n, sizeof set - n, "{");
                    for (int j = 0; j < variant.node_selector.n && n < sizeof set; j++)
                        n += (size_t)snprintf(set + n, sizeof set - n, "%s\"%s\": \"%s\"", j ? ", " : "",
                                              variant.node_selector.kv[j].key, variant.node_selector.kv[j].value);
                    if (n < sizeof set)
                        snprintf(set + n, sizeof set - n, "}");
                }
            } else {
                snprintf(set, sizeof set, "%s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution=null",
                         path);
            }
            const char *e[1] = {set};
            try_line(k, e, 1, false);
        }
    }
    gs_free(nv);
    gs_free(kv);
    return rc;
}

/* Cordoned nodes uncordoned (one change for all of them). */
static int try_uncordon(struct ctx *k, int *lines)
{
    FILE *out = k->x->out;
    int *nodes = gs_calloc((size_t)k->nv + 1, sizeof *nodes);
    struct verdict *nv = gs_calloc((size_t)k->nv + 1, sizeof *nv);
    if (!nodes || !nv) {
        gs_free(nodes);
        gs_free(nv);
        return GS_ENOMEM;
    }
    int nn = 0;
    for (int i = 0; i < k->nv; i++)
        if (k->v[i].code != GS_ST_SUCCESS && k->v[i].plugin == GS_PL_NODE_UNSCHEDULABLE)
            nodes[nn++] = k->v[i].node;
    int rc = 0;
    if (nn > 0) {
        for (int i = 0; i < nn; i++) {
            k->w->nodes[nodes[i]].unschedulable = false;
            gs_node_touch(k->w, nodes[i]);
        }
        struct gs_sched *s = new_sched(k);
        int feasible = s ? filter_all(k, s, nv) : 0;
        gs_sched_free(s);
        for (int i = 0; i < nn; i++) {
            k->w->nodes[nodes[i]].unschedulable = true;
            gs_node_touch(k->w, nodes[i]);
        }
        if (!s)
            rc = GS_ENOMEM;
        else {
            int more = feasible - k->feasible;
            struct was_plugin wp = {k, GS_PL_NODE_UNSCHEDULABLE};
            fprintf(out, "  - uncordoning the %d cordoned node%s makes %d more node%s feasible", nn, nn == 1 ? "" : "s",
                    more > 0 ? more : 0, more == 1 ? "" : "s");
            print_change(k, nv, node_failed_plugin, &wp);
            fprintf(out, "\n");
            (*lines)++;
            if (more > 0) {
                char t[64];
                dur(k->x->at, t, sizeof t);
                char **sets = gs_calloc((size_t)nn, sizeof *sets);
                int ns = 0;
                for (int i = 0; sets && i < nn && i < 8; i++) {
                    sets[ns] = gs_malloc(300);
                    if (!sets[ns])
                        break;
                    snprintf(sets[ns], 300, "events[%d]={at: %s, uncordon: {node: %s}}",
                             k->x->r->sc.nevents + ns, t, k->w->nodes[nodes[i]].name);
                    ns++;
                }
                try_line(k, (const char *const *)sets, ns, true);
                for (int i = 0; i < ns; i++)
                    gs_free(sets[i]);
                gs_free(sets);
            }
        }
    }
    gs_free(nodes);
    gs_free(nv);
    return rc;
}

/* The `--set` path of the selectors of request `r` of the spec.objects entry of kind `kind`
 * named `name` (a ResourceClaimTemplate: spec.spec.devices, a ResourceClaim: spec.devices), found
 * in the scenario file itself (the loader keeps no object positions); NULL when it cannot be
 * named: not found, or the trace's overrides touch spec.objects (indexes may differ). */
static const char *dra_selectors_path(const struct ctx *k, const char *kind, const char *name, int r, char *buf,
                                      size_t n)
{
    for (int i = 0; i < k->x->nsets; i++)
        if (strncmp(k->x->sets[i], "objects", 7) == 0 || strncmp(k->x->sets[i], "spec.objects", 12) == 0)
            return NULL;
    struct gs_arena a = {0};
    struct gs_ynode *root = NULL;
    struct gs_error err = {0};
    const char *out = NULL;
    if (gs_yaml_load_file(k->x->scenario_path, "a scenario file", GS_SCN_SCENARIO_LIMIT, &a, &root, &err) == 0) {
        const struct gs_ynode *objs = gs_y_get(gs_y_get(root, "spec"), "objects");
        for (int i = 0; objs && objs->type == GS_Y_SEQ && i < objs->n && !out; i++) {
            const struct gs_ynode *o = objs->items[i], *kn = gs_y_get(o, "kind");
            const struct gs_ynode *nm = gs_y_get(gs_y_get(o, "metadata"), "name");
            if (!kn || !nm || !kn->text || !nm->text || strcmp(kn->text, kind) != 0 || strcmp(nm->text, name) != 0)
                continue;
            bool tmpl = strcmp(kind, "ResourceClaimTemplate") == 0;
            const struct gs_ynode *spec = gs_y_get(o, "spec");
            if (tmpl)
                spec = gs_y_get(spec, "spec");
            const struct gs_ynode *reqs = gs_y_get(gs_y_get(spec, "devices"), "requests");
            if (!reqs || reqs->type != GS_Y_SEQ || r >= reqs->n)
                break;
            bool exactly = gs_y_get(reqs->items[r], "exactly") != NULL;
            snprintf(buf, n, "objects[%d].spec.%sdevices.requests[%d].%sselectors=null", i, tmpl ? "spec." : "", r,
                     exactly ? "exactly." : "");
            out = buf;
        }
    }
    gs_arena_free(&a);
    return out;
}

/* A DRA request's selectors dropped, one request at a time. */
static int try_dra(struct ctx *k, int *lines)
{
    FILE *out = k->x->out;
    struct gs_dra_state *dra = k->c->dra;
    if (!dra)
        return 0;
    int claims[GS_DRA_POD_CLAIMS_MAX], nclaims = 0;
    char reason[512];
    if (gs_dra_pod_prefilter(dra, k->w, k->pod, claims, &nclaims, reason, sizeof reason) != 0)
        return 0;
    struct verdict *nv = gs_calloc((size_t)k->nv + 1, sizeof *nv);
    if (!nv)
        return GS_ENOMEM;
    struct was_plugin wp = {k, GS_PL_DYNAMIC_RESOURCES};
    int rc = 0;
    for (int i = 0; i < nclaims && rc == 0; i++) {
        struct gs_dra_claim_entry *ce = &dra->claims[claims[i]];
        if (ce->c.allocated)
            continue;
        const struct gs_dra_claim_spec *orig = ce->c.spec;
        for (int r = 0; orig && r < orig->nrequests && rc == 0; r++) {
            if (orig->requests[r].nselectors == 0)
                continue;
            struct gs_dra_request *reqs = gs_calloc((size_t)orig->nrequests, sizeof *reqs);
            if (!reqs) {
                rc = GS_ENOMEM;
                break;
            }
            memcpy(reqs, orig->requests, sizeof *reqs * (size_t)orig->nrequests);
            reqs[r].selectors = NULL;
            reqs[r].nselectors = 0;
            struct gs_dra_claim_spec variant = {.requests = reqs, .nrequests = orig->nrequests};
            ce->c.spec = &variant;
            struct gs_sched *s = new_sched(k);
            int feasible = s ? filter_all(k, s, nv) : 0;
            gs_sched_free(s);
            ce->c.spec = orig;
            gs_free(reqs);
            if (!s) {
                rc = GS_ENOMEM;
                break;
            }
            int more = feasible - k->feasible;
            const char *tmpl = NULL;
            for (int t = 0; dra->spec && t < dra->spec->ntemplates; t++)
                if (&dra->spec->templates[t].spec == orig)
                    tmpl = dra->spec->templates[t].name;
            fprintf(out, "  - dropping the selector%s of request %s of ResourceClaim %s%s%s (",
                    orig->requests[r].nselectors == 1 ? "" : "s", orig->requests[r].name, ce->c.name,
                    tmpl ? ", from ResourceClaimTemplate " : "", tmpl ? tmpl : "");
            for (int j = 0; j < orig->requests[r].nselectors; j++)
                fprintf(out, "%s%s", j ? "; " : "", orig->requests[r].selectors[j].expression);
            if (more > 0)
                fprintf(out, ") makes %d more node%s feasible", more, more == 1 ? "" : "s");
            else
                fprintf(out, ") alone makes no node feasible");
            print_change(k, nv, node_failed_plugin, &wp);
            fprintf(out, "\n");
            (*lines)++;
            char set[512];
            const char *sp = more > 0 ? dra_selectors_path(k, tmpl ? "ResourceClaimTemplate" : "ResourceClaim",
                                                           tmpl ? tmpl : ce->c.name, r, set, sizeof set)
                                      : NULL;
            if (sp) {
                const char *e[1] = {sp};
                try_line(k, e, 1, false);
            }
        }
    }
    gs_free(nv);
    return rc;
}

/* ------------------------------------------------------------------ pods whose removal makes room */

struct fit {
    int node;
    int nvictims;
    int victims[16];
    int32_t max_prio;
    int64_t gpus;
};

struct cand {
    int pod;
    int32_t prio;
    int64_t gpu;
};

/* Reprieve order: most important first (priority down), then fewer GPUs first (so the
 * victims left are few and large), then creation order. */
static int cmp_reprieve(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    return x->pod - y->pod;
}

static int cmp_fit(const void *a, const void *b)
{
    const struct fit *x = a, *y = b;
    if (x->max_prio != y->max_prio)
        return x->max_prio < y->max_prio ? -1 : 1;
    if (x->nvictims != y->nvictims)
        return x->nvictims - y->nvictims;
    if (x->gpus != y->gpus)
        return x->gpus < y->gpus ? -1 : 1;
    return x->node - y->node;
}

/* Take pod p off node n in the world at T, as its deletion would: its requests (gs_world_unassign)
 * and the GPUs the device plugin gave it (gs_node.gpus, which NodeResourcesFit's gpu-milli check
 * and Open-Gpu-Share read). put_back undoes it. */
/* The whole GPUs the device plugin gave pod p on node n as the DRA ledger records them (a node
 * with both the device plugin and the DRA driver: dra.h DECISION), into idx; their number, 0 when
 * the ledger records none. */
static int dp_ledger_gpus(const struct ctx *k, int p, int n, int *idx)
{
    const struct gs_dra_state *st = k->c->dra;
    if (!st || p >= st->pods_cap || st->pod_dp_node[p] != n || n >= st->nodes_cap)
        return 0;
    int cnt = 0;
    for (int i = 0; i < GS_DRA_MAX_GPUS; i++)
        if (st->pod_dp[p] >> i & 1)
            idx[cnt++] = i;
    return cnt;
}

/* Take pod p off node n in the world at T, as its deletion would: its requests (gs_world_unassign)
 * the GPUs the device plugin gave it (gs_node.gpus, which NodeResourcesFit's gpu-milli check
 * and Open-Gpu-Share read), and those GPUs in the DRA ledger, which DynamicResources reads (it
 * treats GPUs the device plugin holds as taken: sim/cluster/dra.c dp_release does the same on a
 * real deletion). put_back undoes it. */
static void take_off(struct ctx *k, int p)
{
    int n = k->w->pods[p].node, gn;
    struct gs_gpushare_alloc a;
    gs_world_unassign(k->w, p);
    if (gs_replay_pod_gpus(k->x->r, p, &gn, &a) && gn == n) {
        gs_gpushare_release(&k->w->nodes[n].gpus, &a);
        gs_node_touch(k->w, n);
    }
    int idx[GS_DRA_MAX_GPUS], cnt = dp_ledger_gpus(k, p, n, idx);
    if (cnt > 0)
        gs_gpu_ledger_dp_release(&k->c->dra->nodes[n].ledger, idx, cnt);
}

static void put_back(struct ctx *k, int p, int n)
{
    int gn;
    struct gs_gpushare_alloc a;
    gs_world_assign(k->w, p, n);
    if (gs_replay_pod_gpus(k->x->r, p, &gn, &a) && gn == n) {
        gs_gpushare_commit(&k->w->nodes[n].gpus, &a);
        gs_node_touch(k->w, n);
    }
    int idx[GS_DRA_MAX_GPUS], cnt = dp_ledger_gpus(k, p, n, idx);
    if (cnt > 0)
        gs_gpu_ledger_dp_retake(&k->c->dra->nodes[n].ledger, idx, cnt);
}

/* Victims on node n (SelectVictimsOnNode, as the header says); returns true with *f filled when
 * removing pods makes the pod fit. The world is restored. */
static bool victims_on(struct ctx *k, struct gs_sched *s, int n, struct cand *cands, struct fit *f)
{
    struct gs_world *w = k->w;
    int group = w->pods[k->pod].group;
    int nc = 0;
    for (int p = w->nodes[n].first_pod; p >= 0; p = w->pods[p].next_on_node) {
        if (group >= 0 && w->pods[p].group == group)
            continue;
        cands[nc++] = (struct cand){.pod = p,
                                    .prio = w->pods[p].tmpl->priority,
                                    .gpu = k->gpu_res >= 0 ? w->pods[p].tmpl->requests.v[k->gpu_res] : 0};
    }
    if (nc == 0)
        return false;
    for (int i = 0; i < nc; i++)
        take_off(k, cands[i].pod);
    bool fits = node_feasible(k, s, n);
    f->node = n;
    f->nvictims = 0;
    f->max_prio = INT32_MIN;
    f->gpus = 0;
    qsort(cands, (size_t)nc, sizeof *cands, cmp_reprieve);
    int *victim = gs_calloc((size_t)nc, sizeof *victim);
    if (!victim)
        fits = false;
    for (int i = 0; i < nc && fits; i++) {
        put_back(k, cands[i].pod, n);
        if (!node_feasible(k, s, n)) {
            take_off(k, cands[i].pod);
            victim[i] = 1;
        }
    }
    for (int i = 0; i < nc; i++) {
        if (fits && !victim[i])
            continue; /* reprieved: back on the node already */
        put_back(k, cands[i].pod, n);
        if (!fits)
            continue;
        if (f->nvictims < (int)(sizeof f->victims / sizeof f->victims[0]))
            f->victims[f->nvictims] = cands[i].pod;
        f->nvictims++;
        if (cands[i].prio > f->max_prio)
            f->max_prio = cands[i].prio;
        f->gpus += cands[i].gpu;
    }
    gs_free(victim);
    return fits && f->nvictims > 0 && f->nvictims <= (int)(sizeof f->victims / sizeof f->victims[0]);
}

static int try_removals(struct ctx *k, int *lines)
{
    FILE *out = k->x->out;
    struct gs_world *w = k->w;
    int maxpods = 0;
    for (int i = 0; i < k->nv; i++)
        if (w->nodes[k->v[i].node].npods > maxpods)
            maxpods = w->nodes[k->v[i].node].npods;
    struct cand *cands = gs_calloc((size_t)maxpods + 1, sizeof *cands);
    struct fit *fits = gs_calloc((size_t)k->nv + 1, sizeof *fits);
    struct gs_sched *s = new_sched(k);
    int rc = 0;
    if (!cands || !fits || !s)
        rc = GS_ENOMEM;
    int nf = 0;
    for (int i = 0; i < k->nv && rc == 0; i++) {
        /* Removing pods helps only a node whose resources are what the filters reject: its
         * requests (NodeResourcesFit), or the GPUs the device plugin holds, which DRA counts as
         * taken (DynamicResources: take_off gives them back to the ledger). */
        if (k->v[i].code == GS_ST_SUCCESS ||
            (k->v[i].plugin != GS_PL_NODE_RESOURCES_FIT && k->v[i].plugin != GS_PL_DYNAMIC_RESOURCES))
            continue;
        if (victims_on(k, s, k->v[i].node, cands, &fits[nf]))
            nf++;
    }
    gs_sched_free(s);
    gs_free(cands);
    if (rc == 0 && nf > 0) {
        qsort(fits, (size_t)nf, sizeof *fits, cmp_fit);
        char t[64];
        dur(k->x->at, t, sizeof t);
        for (int i = 0; i < nf && i < SHOW_FITS; i++) {
            const struct fit *f = &fits[i];
            fprintf(out, "  - fits on %s if ", w->nodes[f->node].name);
            char *sets[16];
            int ns = 0;
            for (int j = 0; j < f->nvictims; j++) {
                const struct gs_pod *v = &w->pods[f->victims[j]];
                int64_t g = k->gpu_res >= 0 ? v->tmpl->requests.v[k->gpu_res] : 0;
                char cpu[32];
                gs_explain_cpu(v->tmpl->requests.v[GS_RES_CPU], cpu, sizeof cpu);
                fprintf(out, "%s%s (", j == 0 ? "" : j == f->nvictims - 1 ? " and " : ", ", v->name);
                struct gs_gpushare_req sr;
                if (g > 0)
                    fprintf(out, "%" PRId64 " GPU%s, ", g, g == 1 ? "" : "s");
                else if (gs_gpushare_pod_req(w, v->tmpl, &sr, NULL) && sr.gpu_milli < GS_GPU_MILLI)
                    fprintf(out, "%d milli-GPU, ", sr.gpu_milli);
                else
                    fprintf(out, "cpu %s, ", cpu);
                fprintf(out, "priority %d%s%s)", v->tmpl->priority, v->group >= 0 ? ", PodGroup " : "",
                        v->group >= 0 ? w->groups[v->group].name : "");
                sets[ns] = gs_malloc(400);
                if (sets[ns]) {
                    snprintf(sets[ns], 400, "events[%d]={at: %s, deletePod: {pod: %s}}", k->x->r->sc.nevents + ns, t,
                             v->name);
                    ns++;
                }
            }
            fprintf(out, " were gone\n");
            (*lines)++;
            try_line(k, (const char *const *)sets, ns, true);
            for (int j = 0; j < ns; j++)
                gs_free(sets[j]);
        }
        if (nf > SHOW_FITS)
            fprintf(out, "    (and on %d more node%s with other pods gone)\n", nf - SHOW_FITS, nf - SHOW_FITS == 1 ? "" : "s");
    }
    gs_free(fits);
    return rc;
}

/* ------------------------------------------------------------------ PodGroups */

/* Pods of group g holding a node (bound or reserved), and their GPUs. */
static int group_holding(const struct gs_world *w, int g, int gpu_res, int64_t *gpus)
{
    int n = 0;
    *gpus = 0;
    for (int p = w->groups[g].first_pod; p >= 0; p = w->pods[p].next_in_group) {
        const struct gs_pod *x = &w->pods[p];
        if (x->node < 0 || x->deleted || x->finished_us >= 0)
            continue;
        n++;
        if (gpu_res >= 0)
            *gpus += x->tmpl->requests.v[gpu_res];
    }
    return n;
}

static void diagnose_group(struct ctx *k, int *lines)
{
    FILE *out = k->x->out;
    const struct gs_world *w = k->w;
    int g = w->pods[k->pod].group;
    if (g < 0)
        return;
    int64_t gpus;
    int held = group_holding(w, g, k->gpu_res, &gpus);
    fprintf(out, "  PodGroup %s: %d of its pods hold a node (%" PRId64 " GPUs), minMember %d.\n", w->groups[g].name, held,
            gpus, w->groups[g].min_member);
    (*lines)++;
    /* A group whose minMember pods ask for more GPUs than the cluster has can never start. */
    int64_t req = k->gpu_res >= 0 ? w->pods[k->pod].tmpl->requests.v[k->gpu_res] : 0, alloc = 0;
    for (int n = 0; n < w->nnodes; n++)
        if (w->nodes[n].exists && k->gpu_res >= 0)
            alloc += w->nodes[n].allocatable.v[k->gpu_res];
    if (req > 0 && req * w->groups[g].min_member > alloc) {
        fprintf(out, "  The group can never be placed whole: its minMember %d pods of %" PRId64 " GPU%s need %" PRId64
                     " GPUs, and the cluster has %" PRId64 " allocatable.\n",
                w->groups[g].min_member, req, req == 1 ? "" : "s", req * w->groups[g].min_member, alloc);
        (*lines)++;
        return;
    }
    if (held >= w->groups[g].min_member || held == 0)
        return;
    int others = 0;
    int64_t other_gpus = 0;
    for (int h = 0; h < w->ngroups; h++) {
        if (h == g)
            continue;
        int64_t hg;
        int hn = group_holding(w, h, k->gpu_res, &hg);
        if (hn > 0 && hn < w->groups[h].min_member) {
            fprintf(out, "  PodGroup %s also holds %" PRId64 " GPUs with %d of its %d pods placed.\n", w->groups[h].name, hg, hn,
                    w->groups[h].min_member);
            others++;
            other_gpus += hg;
        }
    }
    if (others > 0)
        fprintf(out,
                "  A gang deadlock: %d PodGroups hold %" PRId64 " GPUs between them while each waits for the rest of its "
                "pods, so none of them can start. The default scheduler places pods one by one; gang admission "
                "(scheduler.admission: gang) places a group all at once or not at all.\n",
                others + 1, gpus + other_gpus);
    else
        fprintf(out, "  Its PodGroup is incomplete: the pods placed so far wait for this one.\n");
}

/* ------------------------------------------------------------------ the whole */

int gs_explain_unbound(const struct gs_explain_ctx *x)
{
    struct ctx k = {.x = x, .w = &x->r->sc.world, .c = &x->r->c, .pod = x->pod};
    k.gpu_res = gs_res_find(&k.w->res, "nvidia.com/gpu");
    FILE *out = x->out;
    int nexist = 0;
    for (int n = 0; n < k.w->nnodes; n++)
        nexist += k.w->nodes[n].exists;
    k.v = gs_calloc((size_t)nexist + 1, sizeof *k.v);
    struct gs_sched *s = k.v ? new_sched(&k) : NULL;
    if (!s) {
        gs_free(k.v);
        return GS_ENOMEM;
    }
    k.nv = nexist;
    k.feasible = filter_all(&k, s, k.v);
    gs_sched_free(s);
    if (k.nv == 0) {
        fprintf(out, "No node exists at this time: the pod waits for nodes to join.\n");
        gs_free(k.v);
        return 0;
    }
    if (x->db) {
        const struct gs_pod *p = &k.w->pods[k.pod];
        int64_t gpu = k.gpu_res >= 0 ? p->tmpl->requests.v[k.gpu_res] : 0;
        if (gs_report_never_fits(x->db, p->name, p->tmpl->requests.v[GS_RES_CPU], p->tmpl->requests.v[GS_RES_MEMORY],
                                 gpu, k.never, sizeof k.never) != 1)
            k.never[0] = '\0';
    }
    print_groups(&k);
    compare_last_attempt(&k);
    int lines = 0, rc = diagnose_resources(&k, 0, &lines);
    diagnose_shares(&k, 0, &lines);
    fprintf(out, "\nWhy:\n");
    if (k.feasible > 0) {
        const struct gs_pod *p = &k.w->pods[k.pod];
        fprintf(out, "  %d node%s would take the pod now: the cluster changed since its last attempt, and it waits ", k.feasible,
                k.feasible == 1 ? "" : "s");
        if (p->group >= 0 && k.x->r->sc.sched.filter_enabled[GS_PL_COSCHEDULING])
            fprintf(out, "for its PodGroup and its next scheduling attempt.\n");
        else
            fprintf(out, "for its next scheduling attempt (backoff, or a cluster event that moves it back to the "
                         "active queue).\n");
        lines++;
    }
    if (k.never[0]) {
        /* the summary's warning, by its rule (reports/report.h gs_report_never_fits) */
        fprintf(out, "  P%s, whatever is removed: the request exceeds the largest node's allocatable.\n", k.never + 1);
        lines++;
    }
    if (rc == 0)
        rc = diagnose_resources(&k, 1, &lines);
    diagnose_shares(&k, 1, &lines);
    struct taint_count tc[MAX_TAINTS];
    int ntc = taint_groups(&k, tc);
    for (int i = 0; i < ntc; i++) {
        char ts[512];
        taint_str(tc[i].t, ts, sizeof ts);
        fprintf(out, "  %d node%s carr%s the taint %s, which the pod does not tolerate.\n", tc[i].nodes,
                tc[i].nodes == 1 ? "" : "s", tc[i].nodes == 1 ? "ies" : "y", ts);
        lines++;
    }
    int naff = 0, nunsched = 0, ndra = 0, nother = 0;
    for (int i = 0; i < k.nv; i++) {
        if (k.v[i].code == GS_ST_SUCCESS)
            continue;
        switch (k.v[i].plugin) {
        case GS_PL_NODE_AFFINITY:
            naff++;
            break;
        case GS_PL_NODE_UNSCHEDULABLE:
            nunsched++;
            break;
        case GS_PL_DYNAMIC_RESOURCES:
            ndra++;
            break;
        case GS_PL_NODE_RESOURCES_FIT:
        case GS_PL_TAINT_TOLERATION:
            break;
        default:
            nother++;
        }
    }
    const struct gs_pod_template *tm = k.w->pods[k.pod].tmpl;
    if (naff > 0) {
        fprintf(out, "  %d node%s do%s not match the pod's ", naff, naff == 1 ? "" : "s", naff == 1 ? "es" : "");
        if (tm->node_selector.n > 0) {
            fprintf(out, "nodeSelector");
            for (int i = 0; i < tm->node_selector.n; i++)
                fprintf(out, " %s=%s", tm->node_selector.kv[i].key, tm->node_selector.kv[i].value);
        }
        if (tm->affinity.has_required)
            fprintf(out, "%srequired node affinity", tm->node_selector.n > 0 ? " or its " : "");
        fprintf(out, ".\n");
        lines++;
    }
    if (nunsched > 0) {
        fprintf(out, "  %d node%s %s cordoned (spec.unschedulable).\n", nunsched, nunsched == 1 ? "" : "s",
                nunsched == 1 ? "is" : "are");
        lines++;
    }
    if (ndra > 0) {
        fprintf(out, "  On %d node%s no free device satisfies the pod's ResourceClaims (the scheduler's message does not "
                     "name the selector).\n",
                ndra, ndra == 1 ? "" : "s");
        lines++;
    }
    if (nother > 0 && k.feasible == 0) {
        fprintf(out, "  %d node%s reject%s it for other reasons (above).\n", nother, nother == 1 ? "" : "s",
                nother == 1 ? "s" : "");
        lines++;
    }
    diagnose_group(&k, &lines);
    /* A preemption made for it and still under way: its victims leave during their grace. */
    const struct gs_pod *pp = &k.w->pods[k.pod];
    if (pp->nominated_node >= 0) {
        fprintf(out, "  Preemption is under way: the pod is nominated to %s", k.w->nodes[pp->nominated_node].name);
        int nv = 0;
        for (int q = 0; q < k.w->npods; q++)
            if (k.w->pods[q].preempted_by == k.pod && k.w->pods[q].node >= 0 && !k.w->pods[q].deleted)
                fprintf(out, "%s%s", nv++ ? ", " : ", where its victims ", k.w->pods[q].name);
        if (nv)
            fprintf(out, " %s terminating (grace period) to make room", nv == 1 ? "is" : "are");
        fprintf(out, "; it is scheduled again when they are gone.\n");
        lines++;
    }
    if (lines == 0)
        fprintf(out, "  (no reason found: see the groups above)\n");

    char t[64];
    dur(x->at, t, sizeof t);
    fprintf(out, "\nWhat would change it (each checked by re-running the filters on the cluster at %s with the change):\n", t);
    int before = lines;
    if (k.never[0]) {
        fprintf(out, "  (none: the request exceeds the largest node's allocatable, so no change to the cluster's "
                     "pods, taints or selectors lets it fit; only a larger node would)\n");
        gs_free(k.v);
        return rc;
    }
    if (rc == 0)
        rc = try_removals(&k, &lines);
    if (rc == 0 && ntc > 0)
        rc = try_tolerations(&k, tc, ntc, &lines);
    if (rc == 0 && naff > 0)
        rc = try_selectors(&k, &lines);
    if (rc == 0 && nunsched > 0)
        rc = try_uncordon(&k, &lines);
    if (rc == 0 && ndra > 0)
        rc = try_dra(&k, &lines);
    if (rc == 0 && lines == before)
        fprintf(out, "  (none of the changes explain tries makes a node feasible: removing other pods (explain gives "
                     "back their requests, whole GPUs and gpu-milli shares, not MIG devices, replicas or DRA claims), "
                     "tolerating a taint, dropping a selector, uncordoning, dropping a DRA selector)\n");
    gs_free(k.v);
    return rc;
}
