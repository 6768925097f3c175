/* The FGD paper's policies as score plugins (models/sched/plugins/), the typical
 * set of a world's workloads and the incremental view (models/fgd/world.c), their configuration,
 * and fragmentation samples in a run. */
#include <math.h>
#include <sqlite3.h>
#include <unistd.h>

#include "models/fgd/fgd_world.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "sched_fixture.h"

#include <criterion/new/assert.h>

/* ------------------------------------------------------------------ hand-built worlds */

/* Node n's GPUs: ngpu GPUs with the given free milli (the run loop keeps these at bind). */
static void set_gpus(struct fx *f, int n, int ngpu, const int *free_milli)
{
    struct gs_node *nd = &f->w.nodes[n];
    cr_assert_eq(gs_gpushare_init(&nd->gpus, ngpu), 0);
    for (int i = 0; i < ngpu; i++)
        nd->gpus.free_milli[i] = (int16_t)free_milli[i];
    gs_node_touch(&f->w, n);
}

static struct gs_pod_template *share_tmpl(struct fx *f, int64_t cpu_m, int milli)
{
    struct gs_pod_template *t = fx_tmpl(f, cpu_m, 2 * GI, 0, 0);
    char *v = gs_arena_alloc(&f->w.arena, 8);
    cr_assert(v != NULL);
    snprintf(v, 8, "%d", milli);
    cr_assert_eq(gs_labels_set(&t->annotations, &f->w.arena, "alibabacloud.com/gpu-milli", v), 0);
    return t;
}

/* Only plugin `pl` scores, with weight `w`: score {disabled: ['*'], enabled: [{pl, w}]}. */
static struct gs_sched_config only_w(enum gs_plugin pl, int32_t w)
{
    struct gs_sched_config c = fx_cfg(34);
    struct gs_plugin_set *score = &c.plugins.point[GS_EP_SCORE];
    cr_assert(eq(int, gs_plugin_set_disable(score, "*", -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(score, gs_plugin_name(pl), w, -1), 0));
    return c;
}

/* Only plugin `pl` scores, weight 1. */
static struct gs_sched_config only(enum gs_plugin pl)
{
    return only_w(pl, 1);
}

/* The node as the experiment's code builds it: capacity, then the pods' CPU and the GPUs. */
static struct gs_fgd_node fgd_node(const struct fx *f, int n)
{
    const struct gs_node *nd = &f->w.nodes[n];
    struct gs_fgd_node o;
    cr_assert_eq(gs_fgd_node_init(&o, nd->allocatable.v[GS_RES_CPU], nd->allocatable.v[GS_RES_MEMORY] >> 20,
                                  nd->gpus.ngpu, -1),
                 0);
    o.cpu_left -= nd->requested.v[GS_RES_CPU];
    o.mem_left -= nd->requested.v[GS_RES_MEMORY] >> 20;
    o.gpu = nd->gpus;
    return o;
}

/* Four GPU nodes in different states plus a CPU node, a share pod and a whole-GPU pod. */
struct world4 {
    struct fx *f;
    int nodes[5];
    int share_pod, whole_pod, cpu_pod;
};

static struct world4 world4(void)
{
    struct world4 w = {.f = fx_new()};
    struct fx *f = w.f;
    static const int g0[] = {1000, 1000, 1000, 1000};
    static const int g1[] = {200, 1000, 700, 1000};
    static const int g2[] = {0, 0, 500, 300};
    static const int g3[] = {1000, 1000};
    w.nodes[0] = fx_node(f, "a", 0, 64000, 256 * GI, 4);
    w.nodes[1] = fx_node(f, "b", 0, 32000, 128 * GI, 4);
    w.nodes[2] = fx_node(f, "c", 0, 96000, 512 * GI, 4);
    w.nodes[3] = fx_node(f, "d", 0, 16000, 64 * GI, 2);
    w.nodes[4] = fx_node(f, "e", 0, 8000, 32 * GI, 0);
    set_gpus(f, w.nodes[0], 4, g0);
    set_gpus(f, w.nodes[1], 4, g1);
    set_gpus(f, w.nodes[2], 4, g2);
    set_gpus(f, w.nodes[3], 2, g3);
    /* Pods already there hold CPU (the GPU state is set above). */
    fx_run(f, "busy-b", fx_tmpl(f, 12000, 8 * GI, 0, 0), w.nodes[1], 0);
    fx_run(f, "busy-c", fx_tmpl(f, 40000, 8 * GI, 0, 0), w.nodes[2], 0);
    fx_run(f, "busy-d", fx_tmpl(f, 2000, 8 * GI, 0, 0), w.nodes[3], 0);
    w.share_pod = fx_pod(f, "share", share_tmpl(f, 4000, 300));
    w.whole_pod = fx_pod(f, "whole", fx_tmpl(f, 8000, 16 * GI, 1, 0));
    w.cpu_pod = fx_pod(f, "cpu", fx_tmpl(f, 2000, 4 * GI, 0, 0));
    return w;
}

static struct gs_fgd_pod fgd_pod(const struct fx *f, int p)
{
    struct gs_fgd_pod o;
    gs_fgd_pod_of(&f->w, f->w.pods[p].tmpl, NULL, false, &o);
    return o;
}

typedef int (*score_fn)(const struct gs_fgd_node *, const struct gs_fgd_pod *);

/* Each feasible node's score for pod p under only(pl) equals fn on the same node. */
static void check_plugin(enum gs_plugin pl, score_fn fn)
{
    struct world4 w = world4();
    struct fx *f = w.f;
    struct gs_sched_config c = only(pl);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s != NULL);
    const int pods[] = {w.share_pod, w.whole_pod, w.cpu_pod};
    for (int k = 0; k < 3; k++) {
        int feas[5], nf = 0;
        for (int i = 0; i < 5; i++) {
            struct gs_node_status st;
            gs_sched_filter_node(s, pods[k], w.nodes[i], &st);
            if (st.code == GS_ST_SUCCESS)
                feas[nf++] = w.nodes[i];
        }
        cr_assert_geq(nf, 2, "pod %d: %d feasible", k, nf);
        struct gs_fgd_pod p = fgd_pod(f, pods[k]);
        for (int i = 0; i < nf; i++) {
            struct gs_fgd_node n = fgd_node(f, feas[i]);
            int64_t got = gs_sched_score_node(s, pods[k], feas, nf, feas[i]);
            cr_expect_eq(got, fn(&n, &p), "%s pod %d node %s: %lld, want %d", gs_plugin_name(pl), k,
                         f->w.nodes[feas[i]].name, (long long)got, fn(&n, &p));
        }
    }
    gs_sched_free(s);
    fx_free(f);
}

Test(fgd_plugins, names)
{
    static const char *const names[] = {"RandomScore",     "DotProductScore", "GpuClusteringScore",
                                        "GpuPackingScore", "BestFitScore",    "FGDScore"};
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(gs_plugin_find(names[i]), GS_PL_RANDOM_SCORE + i, "%s", names[i]);
        cr_expect_str_eq(gs_plugin_name((enum gs_plugin)(GS_PL_RANDOM_SCORE + i)), names[i]);
        cr_expect(gs_plugin_is_modelled((enum gs_plugin)(GS_PL_RANDOM_SCORE + i)));
    }
    cr_expect_lt(GS_PL_COUNT, 32);
    struct gs_sched_config c;
    gs_sched_config_default(&c, 34);
    for (int i = GS_PL_RANDOM_SCORE; i <= GS_PL_FGD_SCORE; i++)
        cr_expect_not(c.score_enabled[i] || c.filter_enabled[i], "%s is off by default", gs_plugin_name(i));
}

Test(fgd_plugins, dot_product) { check_plugin(GS_PL_DOT_PRODUCT_SCORE, gs_fgd_score_dotprod); }
Test(fgd_plugins, gpu_packing) { check_plugin(GS_PL_GPU_PACKING_SCORE, gs_fgd_score_packing); }

Test(fgd_plugins, gpu_clustering_tags)
{
    /* Tags come from the pods on the node: a share pod on b, a one-GPU pod on c. */
    struct world4 w = world4();
    struct fx *f = w.f;
    fx_run(f, "tag-b", share_tmpl(f, 100, 200), w.nodes[1], 0);
    fx_run(f, "tag-c", fx_tmpl(f, 100, GI, 1, 0), w.nodes[2], 0);
    struct gs_sched_config c = only(GS_PL_GPU_CLUSTERING_SCORE);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s != NULL);
    const int feas[] = {w.nodes[0], w.nodes[1], w.nodes[2], w.nodes[3]};
    struct gs_fgd_pod p = fgd_pod(f, w.share_pod);
    for (int i = 0; i < 4; i++) {
        struct gs_fgd_node n = fgd_node(f, feas[i]);
        n.tag_count[0] = i == 1;
        n.tag_count[1] = i == 2;
        cr_expect_eq(gs_sched_score_node(s, w.share_pod, feas, 4, feas[i]), gs_fgd_score_clustering(&n, &p),
                     "node %d", i);
    }
    /* b hosts only share pods: the top band. */
    cr_expect_geq(gs_sched_score_node(s, w.share_pod, feas, 4, feas[1]), 75);
    gs_sched_free(s);
    fx_free(f);
}

Test(fgd_plugins, best_fit_normalised)
{
    struct world4 w = world4();
    struct fx *f = w.f;
    struct gs_sched_config c = only(GS_PL_BEST_FIT_SCORE);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s != NULL);
    const int feas[] = {w.nodes[0], w.nodes[1], w.nodes[2], w.nodes[3]};
    struct gs_fgd_pod p = fgd_pod(f, w.share_pod);
    int64_t raw[4];
    for (int i = 0; i < 4; i++) {
        struct gs_fgd_node n = fgd_node(f, feas[i]);
        raw[i] = gs_fgd_score_bestfit_raw(&n, &p);
    }
    gs_fgd_normalize_scores(raw, 4);
    int64_t hi = 0;
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(gs_sched_score_node(s, w.share_pod, feas, 4, feas[i]), raw[i], "node %d", i);
        hi = raw[i] > hi ? raw[i] : hi;
    }
    cr_expect_eq(hi, 100); /* min-max: the best node gets 100 */
    gs_sched_free(s);
    fx_free(f);
}

Test(fgd_plugins, random_one_node)
{
    struct world4 w = world4();
    struct fx *f = w.f;
    struct gs_sched_config c = only_w(GS_PL_RANDOM_SCORE, 3);
    c.tiebreak_first = false;
    struct gs_rng *rng = gs_rng_new(7);
    struct gs_sched *s = gs_sched_new(&f->w, &c, rng);
    cr_assert(s && rng);
    bool seen[4] = {false};
    for (int round = 0; round < 64; round++) {
        struct gs_cycle_result r;
        gs_sched_cycle(s, w.share_pod, &r);
        cr_assert_geq(r.node, 0);
        cr_expect_eq(r.score, 300); /* MaxNodeScore x weight on the drawn node */
        for (int i = 0; i < 4; i++)
            seen[i] |= r.node == w.nodes[i];
    }
    for (int i = 0; i < 4; i++)
        cr_expect(seen[i], "node %d never drawn", i);
    gs_sched_free(s);
    gs_rng_free(rng);
    fx_free(f);
}

/* A typical set of explicit keys (no models). */
static void typical_of(struct gs_fgd_world_typical *wt, const struct gs_fgd_typical_key *k, int n)
{
    memset(wt, 0, sizeof *wt);
    cr_assert_eq(gs_fgd_typical_build_keys(k, n, 95, &wt->typical), 0);
}

Test(fgd_plugins, fgd_score_and_memo)
{
    struct world4 w = world4();
    struct fx *f = w.f;
    const struct gs_fgd_typical_key keys[] = {
        {4000, 300, 1, 0, "", 5}, {8000, 1000, 1, 0, "", 3}, {2000, 0, 0, 0, "", 2}};
    struct gs_fgd_world_typical wt;
    typical_of(&wt, keys, 3);
    struct gs_sched_config c = only(GS_PL_FGD_SCORE);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s != NULL);
    cr_assert_eq(gs_sched_set_fgd_typical(s, &wt), 0);
    const int feas[] = {w.nodes[0], w.nodes[1], w.nodes[2], w.nodes[3]};
    const int pods[] = {w.share_pod, w.whole_pod};
    for (int rep = 0; rep < 2; rep++) /* the second time from the memo */
        for (int k = 0; k < 2; k++) {
            struct gs_fgd_pod p = fgd_pod(f, pods[k]);
            for (int i = 0; i < 4; i++) {
                struct gs_fgd_node n = fgd_node(f, feas[i]);
                int gpu;
                int want = gs_fgd_score_fgd(&wt.typical, &n, gs_fgd_node_frag(&wt.typical, &n), &p, &gpu);
                cr_expect_eq(gs_sched_score_node(s, pods[k], feas, 4, feas[i]), want, "pod %d node %d", k, i);
            }
        }
    /* A node that changes is scored afresh: b's 700 GPU gets a 500 share. */
    f->w.nodes[w.nodes[1]].gpus.free_milli[2] = 200;
    gs_node_touch(&f->w, w.nodes[1]);
    struct gs_fgd_pod p = fgd_pod(f, w.share_pod);
    struct gs_fgd_node n = fgd_node(f, w.nodes[1]);
    int gpu;
    int want = gs_fgd_score_fgd(&wt.typical, &n, gs_fgd_node_frag(&wt.typical, &n), &p, &gpu);
    cr_expect_eq(gs_sched_score_node(s, w.share_pod, feas, 4, w.nodes[1]), want);
    gs_sched_free(s);
    gs_fgd_world_typical_free(&wt);
    fx_free(f);
}

Test(fgd_plugins, share_gpu_choice)
{
    /* Typical pods ask for 600: a 300 share on GPUs [700, 1000] best-fits GPU 0 (400 left, a
     * fragment for every typical pod), while FGD keeps both GPUs able to take a 600 (GPU 1). */
    struct fx *f = fx_new();
    int n = fx_node(f, "a", 0, 32000, 128 * GI, 2);
    static const int g[] = {700, 1000};
    set_gpus(f, n, 2, g);
    int p = fx_pod(f, "share", share_tmpl(f, 1000, 300));
    int whole = fx_pod(f, "whole", fx_tmpl(f, 1000, GI, 1, 0));
    const struct gs_fgd_typical_key keys[] = {{1000, 600, 1, 0, "", 1}};
    struct gs_fgd_world_typical wt;
    typical_of(&wt, keys, 1);

    struct gs_sched_config c = only(GS_PL_FGD_SCORE);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s != NULL);
    gs_sched_set_fgd_typical(s, &wt);
    cr_expect_eq(gs_sched_share_gpu(s, p, n), 1);
    cr_expect_eq(gs_sched_share_gpu(s, whole, n), -1); /* whole GPUs: the default rule */
    /* Already assumed on the node (bind after Permit): the same choice. */
    gs_world_assign(&f->w, p, n);
    cr_expect_eq(gs_sched_share_gpu(s, p, n), 1);
    gs_world_unassign(&f->w, p);
    gs_sched_free(s);

    struct gs_sched_config d = only(GS_PL_DOT_PRODUCT_SCORE);
    s = gs_sched_new(&f->w, &d, NULL);
    cr_assert(s != NULL);
    gs_sched_set_fgd_typical(s, &wt);
    cr_expect_eq(gs_sched_share_gpu(s, p, n), -1); /* FGDScore off: best fit */
    gs_sched_free(s);
    cr_expect_eq(gs_sched_share_gpu(NULL, p, n), -1);
    gs_fgd_world_typical_free(&wt);
    fx_free(f);
}

static void record_share(void *ctx, int pod, int gpu)
{
    int *got = ctx;
    got[0] = pod;
    got[1] = gpu;
}

/* The share's GPU reaches the caller at PreBind (Open-Gpu-Share asks FGDScore, as the FGD
 * simulator's Reserve does for gpuSelMethod FGDScore), on the node as it is then. */
Test(fgd_plugins, prebind_hands_the_share_gpu)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "a", 0, 32000, 128 * GI, 2);
    static const int g[] = {700, 1000};
    set_gpus(f, n, 2, g);
    int p = fx_pod(f, "share", share_tmpl(f, 1000, 300));
    const struct gs_fgd_typical_key keys[] = {{1000, 600, 1, 0, "", 1}};
    struct gs_fgd_world_typical wt;
    typical_of(&wt, keys, 1);
    int got[2] = {-1, -2};
    struct gs_sched_client c = {.ctx = got, .set_share_gpu = record_share};

    struct gs_sched_config cfg = only(GS_PL_FGD_SCORE);
    struct gs_sched *s = gs_sched_new(&f->w, &cfg, NULL);
    cr_assert(s != NULL);
    gs_sched_set_fgd_typical(s, &wt);
    gs_world_assign(&f->w, p, n); /* assumed, then allowed */
    cr_expect(eq(int, gs_sched_prebind(s, p, n, &c), GS_ST_SUCCESS));
    cr_expect(eq(int, got[0], p));
    cr_expect(eq(int, got[1], 1));
    gs_sched_free(s);

    /* Without FGDScore the device plugin's rule applies: -1. */
    cfg = only(GS_PL_DOT_PRODUCT_SCORE);
    s = gs_sched_new(&f->w, &cfg, NULL);
    cr_assert(s != NULL);
    got[1] = -2;
    cr_expect(eq(int, gs_sched_prebind(s, p, n, &c), GS_ST_SUCCESS));
    cr_expect(eq(int, got[1], -1));
    gs_sched_free(s);
    gs_world_unassign(&f->w, p);
    gs_fgd_world_typical_free(&wt);
    fx_free(f);
}

Test(fgd_plugins, beside_default_scores)
{
    /* FGDScore with weight 1000 adds to the in-tree scores. */
    struct world4 w = world4();
    struct fx *f = w.f;
    const struct gs_fgd_typical_key keys[] = {{4000, 300, 1, 0, "", 1}};
    struct gs_fgd_world_typical wt;
    typical_of(&wt, keys, 1);
    struct gs_sched_config c = fx_cfg(34);
    const int feas[] = {w.nodes[0], w.nodes[1], w.nodes[2], w.nodes[3]};
    struct gs_sched *s0 = gs_sched_new(&f->w, &c, NULL);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.point[GS_EP_SCORE], "FGDScore", 1000, -1), 0));
    struct gs_sched *s1 = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s0 && s1);
    gs_sched_set_fgd_typical(s1, &wt);
    struct gs_fgd_pod p = fgd_pod(f, w.share_pod);
    for (int i = 0; i < 4; i++) {
        struct gs_fgd_node n = fgd_node(f, feas[i]);
        int gpu;
        int fgd = gs_fgd_score_fgd(&wt.typical, &n, gs_fgd_node_frag(&wt.typical, &n), &p, &gpu);
        cr_expect_eq(gs_sched_score_node(s1, w.share_pod, feas, 4, feas[i]),
                     gs_sched_score_node(s0, w.share_pod, feas, 4, feas[i]) + 1000 * fgd);
    }
    gs_sched_free(s0);
    gs_sched_free(s1);
    gs_fgd_world_typical_free(&wt);
    fx_free(f);
}

/* ------------------------------------------------------------------ typical sets */

Test(fgd_typical, keys_equal_expanded_list)
{
    /* Weighted keys give the set the expanded pod list gives. */
    static const char csv[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                              "p1,4000,1000,1,500,\n"
                              "p2,4000,1000,1,500,\n"
                              "p3,0,1000,0,0,\n"
                              "p4,8000,1000,2,1000,T4|P100\n"
                              "p5,4000,2000,1,500,\n";
    struct gs_openb_models m = {0};
    struct gs_openb_workload wl;
    struct gs_error err = {0};
    cr_assert_eq(gs_openb_parse_pods("t.csv", csv, &m, &wl, &err), 0, "%s", err.msg);
    struct gs_fgd_typical a, b;
    cr_assert_eq(gs_fgd_typical_build(&wl, 100, &a), 0);
    uint32_t mask;
    cr_assert_eq(gs_openb_spec_mask(&m, "T4|P100", 7, &mask), 0);
    const struct gs_fgd_typical_key keys[] = {
        {4000, 500, 1, 0, "", 2}, {0, 0, 0, 0, NULL, 1}, {8000, 1000, 2, mask, "T4|P100", 1}, {4000, 500, 1, 0, "", 1}};
    cr_assert_eq(gs_fgd_typical_build_keys(keys, 4, 100, &b), 0);
    cr_assert_eq(a.n, b.n);
    cr_expect_eq(a.npods, b.npods);
    for (int i = 0; i < a.n; i++) {
        cr_expect_eq(a.pods[i].cpu_milli, b.pods[i].cpu_milli);
        cr_expect_eq(a.pods[i].gpu_milli, b.pods[i].gpu_milli);
        cr_expect_eq(a.pods[i].num_gpu, b.pods[i].num_gpu);
        cr_expect_eq(a.pods[i].count, b.pods[i].count);
        cr_expect_eq(a.pods[i].spec_mask, b.pods[i].spec_mask);
        cr_expect_str_eq(a.pods[i].spec, b.pods[i].spec);
        cr_expect_float_eq(a.pods[i].freq, b.pods[i].freq, 1e-12);
    }
    cr_expect_eq(a.pods[0].count, 3);
    const struct gs_fgd_typical_key none[] = {{1, 0, 0, 0, "", 0}};
    struct gs_fgd_typical c;
    cr_expect_eq(gs_fgd_typical_build_keys(none, 1, 95, &c), GS_EINVAL);
    gs_fgd_typical_free(&a);
    gs_fgd_typical_free(&b);
    gs_openb_workload_free(&wl);
}

static const char workloads_yaml[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: typical}\n"
    "spec:\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  workloads:\n"
    "  - name: half\n"
    "    replicas: 3\n"
    "    arrival: {every: 1m, count: 2}\n"
    "    template:\n"
    "      metadata: {annotations: {alibabacloud.com/gpu-milli: '500'}}\n"
    "      spec: {containers: [{name: c, resources: {limits: {cpu: '2', memory: 1Gi}}}]}\n"
    "  - name: l4-pair\n"
    "    replicas: 1\n"
    "    arrival: {at: 0s}\n"
    "    template:\n"
    "      spec:\n"
    "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n"
    "        containers: [{name: c, resources: {limits: {cpu: '4', memory: 1Gi, nvidia.com/gpu: 2}}}]\n"
    "  - name: web\n"
    "    replicas: 2\n"
    "    arrival: {at: 0s}\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {cpu: '1', memory: 1Gi}}}]}}\n";

Test(fgd_typical, from_world_workloads)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("t.yaml", workloads_yaml, &sc, &err), 0, "%s", err.msg);
    struct gs_fgd_world_typical wt;
    cr_assert_eq(gs_fgd_world_typical_build(&sc.world, 100, &wt), 0);
    /* 6 half pods (3 x 2 arrivals), 2 web pods, 1 pair: three keys, most popular first. */
    cr_assert_eq(wt.typical.n, 3);
    cr_expect_eq(wt.typical.npods, 9);
    cr_expect_eq(wt.typical.pods[0].gpu_milli, 500);
    cr_expect_eq(wt.typical.pods[0].count, 6);
    cr_expect_eq(wt.typical.pods[0].cpu_milli, 2000);
    cr_expect_eq(wt.typical.pods[1].gpu_milli, 0);
    cr_expect_eq(wt.typical.pods[1].count, 2);
    cr_expect_eq(wt.typical.pods[2].num_gpu, 2);
    cr_expect_str_eq(wt.typical.pods[2].spec, "NVIDIA-L4");
    cr_expect_eq(wt.models.n, 1);
    cr_expect_neq(wt.typical.pods[2].spec_mask, 0u);
    /* At 95 %: 8 of 9 pods are not enough, all three keys stay. */
    gs_fgd_world_typical_free(&wt);
    cr_assert_eq(gs_fgd_world_typical_build(&sc.world, 60, &wt), 0);
    cr_expect_eq(wt.typical.n, 1);
    gs_fgd_world_typical_free(&wt);
    gs_scenario_free(&sc);
}

/* ------------------------------------------------------------------ the view */

Test(fgd_view, incremental_equals_full)
{
    struct world4 w = world4();
    struct fx *f = w.f;
    const struct gs_fgd_typical_key keys[] = {{4000, 300, 1, 0, "", 5}, {8000, 1000, 2, 0, "", 3}};
    struct gs_fgd_world_typical wt;
    typical_of(&wt, keys, 2);
    struct gs_fgd_view v;
    gs_fgd_view_init(&v, &f->w, &wt, true);
    cr_assert_eq(gs_fgd_view_sync(&v), 0);
    double before = gs_fgd_view_frag_gpus(&v);
    /* A pod on c and a new node; then the sums match a full computation. */
    gs_world_assign(&f->w, w.share_pod, w.nodes[0]);
    f->w.nodes[w.nodes[0]].gpus.free_milli[3] = 700;
    int extra = fx_node(f, "f", 0, 32000, 64 * GI, 2);
    static const int g[] = {1000, 100};
    set_gpus(f, extra, 2, g);
    cr_assert_eq(gs_fgd_view_sync(&v), 0);
    cr_assert_eq(v.n, f->w.nnodes);
    struct gs_fgd_frag_sample full;
    struct gs_fgd_node *nodes = calloc((size_t)v.n, sizeof *nodes);
    cr_assert(nodes != NULL);
    for (int i = 0; i < v.n; i++) {
        gs_fgd_view_node(&v, i, &nodes[i]);
        cr_expect_eq(memcmp(&nodes[i], &v.nodes[i], sizeof nodes[i]), 0, "node %d", i);
    }
    gs_fgd_cluster_frag(&wt.typical, nodes, v.n, &full);
    cr_expect_float_eq(gs_fgd_view_frag_gpus(&v), full.frag_gpus, 1e-9);
    cr_expect_neq(gs_fgd_view_frag_gpus(&v), before);
    cr_expect_eq(v.frag.total_gpus, 16);
    cr_expect_eq(v.nodes[w.nodes[0]].cpu_left, 64000 - 4000);
    /* Without a typical set: not measured. */
    struct gs_fgd_view u;
    gs_fgd_view_init(&u, &f->w, NULL, false);
    cr_assert_eq(gs_fgd_view_sync(&u), 0);
    cr_expect(isnan(gs_fgd_view_frag_gpus(&u)));
    gs_fgd_view_free(&u);
    free(nodes);
    gs_fgd_view_free(&v);
    gs_fgd_world_typical_free(&wt);
    fx_free(f);
}

/* ------------------------------------------------------------------ configuration */

static int load_sched(const char *sched, struct gs_scenario *sc, struct gs_error *err)
{
    static char text[4096];
    snprintf(text, sizeof text,
             "apiVersion: gpusim/v1alpha1\n"
             "kind: Scenario\n"
             "metadata: {name: cfg}\n"
             "spec:\n"
             "  scheduler:\n"
             "    config:\n"
             "      profiles:\n"
             "      - %s\n"
             "  cluster:\n"
             "    nodePools:\n"
             "    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: '32', memory: 128Gi}}\n",
             sched);
    memset(err, 0, sizeof *err);
    return gs_scenario_load_string("cfg.yaml", text, sc, err);
}

Test(fgd_config, score_enabled_with_weight)
{
    struct gs_scenario sc;
    struct gs_error err;
    cr_assert_eq(load_sched("plugins: {score: {enabled: [{name: FGDScore, weight: 1000}], disabled: [{name: '*'}]}}",
                            &sc, &err),
                 0, "%s", err.msg);
    cr_expect(sc.sched.score_enabled[GS_PL_FGD_SCORE]);
    cr_expect_eq(sc.sched.score_weight[GS_PL_FGD_SCORE], 1000);
    cr_expect_not(sc.sched.score_enabled[GS_PL_NODE_RESOURCES_FIT]);
    cr_expect_not(sc.sched.score_enabled[GS_PL_BEST_FIT_SCORE]);
    gs_scenario_free(&sc);

    cr_assert_eq(load_sched("plugins: {multiPoint: {enabled: [{name: BestFitScore, weight: 5}, {name: GpuPackingScore}]}}",
                            &sc, &err),
                 0, "%s", err.msg);
    cr_expect(sc.sched.score_enabled[GS_PL_BEST_FIT_SCORE]);
    cr_expect_eq(sc.sched.score_weight[GS_PL_BEST_FIT_SCORE], 5);
    cr_expect(sc.sched.score_enabled[GS_PL_GPU_PACKING_SCORE]);
    cr_expect_eq(sc.sched.score_weight[GS_PL_GPU_PACKING_SCORE], 1);
    cr_expect(sc.sched.score_enabled[GS_PL_NODE_RESOURCES_FIT]); /* the defaults stay beside them */
    cr_expect_not(sc.sched.score_enabled[GS_PL_FGD_SCORE]);
    gs_scenario_free(&sc);

    cr_assert_eq(load_sched("plugins: {score: {enabled: [{name: DotProductScore}, {name: RandomScore, weight: 2}, "
                            "{name: GpuClusteringScore, weight: 3}]}}\n"
                            "        pluginConfig:\n"
                            "        - {name: DotProductScore, args: {dimExtMethod: merge, normMethod: max}}\n"
                            "        - {name: FGDScore, args: {dimExtMethod: share, normMethod: max}}",
                            &sc, &err),
                 0, "%s", err.msg);
    cr_expect(sc.sched.score_enabled[GS_PL_DOT_PRODUCT_SCORE]);
    cr_expect_eq(sc.sched.score_weight[GS_PL_RANDOM_SCORE], 2);
    cr_expect_eq(sc.sched.score_weight[GS_PL_GPU_CLUSTERING_SCORE], 3);
    gs_scenario_free(&sc);
}

Test(fgd_config, errors)
{
    struct gs_scenario sc;
    struct gs_error err;
    cr_expect_eq(load_sched("plugins: {filter: {enabled: [{name: FGDScore}]}}", &sc, &err), GS_EINVAL);
    cr_expect(strstr(err.msg, "plugin FGDScore does not extend the filter extension point") != NULL, "%s", err.msg);
    cr_expect_eq(load_sched("plugins: {score: {enabled: [{name: FGDscore}]}}", &sc, &err), GS_EINVAL);
    cr_expect(strstr(err.msg, "did you mean 'FGDScore'") != NULL, "%s", err.msg);
    cr_expect_eq(load_sched("pluginConfig: [{name: FGDScore, args: {normMethod: sum}}]", &sc, &err), GS_ENOTSUP);
    cr_expect(strstr(err.msg, "normMethod (sum)") != NULL, "%s", err.msg);
    cr_expect_eq(load_sched("pluginConfig: [{name: BestFitScore, args: {dimExtMethod: merge}}]", &sc, &err),
                 GS_ENOTSUP);
}

/* ------------------------------------------------------------------ fragmentation in a run */

static const char run_yaml[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: frag}\n"
    "spec:\n"
    "  horizon: 10m\n"
    "  scheduler:\n"
    "    config:\n"
    "      profiles:\n"
    "      - plugins: {score: {enabled: [{name: FGDScore, weight: 1000}], disabled: [{name: '*'}]}}\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: l4, count: 2, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  workloads:\n"
    "  - name: half\n"
    "    replicas: 3\n"
    "    arrival: {at: 0s, stagger: 1m}\n"
    "    duration: 4m\n"
    "    template:\n"
    "      metadata: {annotations: {alibabacloud.com/gpu-milli: '500'}}\n"
    "      spec: {containers: [{name: c, resources: {limits: {cpu: '1', memory: 1Gi}}}]}\n"
    "  - name: pair\n"
    "    replicas: 1\n"
    "    arrival: {at: 8m}\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {cpu: '1', memory: 1Gi, nvidia.com/gpu: 2}}}]}}\n"
    "  expect:\n"
    "  - {metric: fragGpus, at: 0s, min: 0.3749, max: 0.3751}\n"
    "  - {metric: fragGpus, at: 90s, min: 0.2499, max: 0.2501}\n"
    "  - {metric: fragGpus, at: 150s, min: 0.1249, max: 0.1251}\n"
    "  - {metric: fragGpus, from: 9m, to: 10m, max: 0.0001}\n";

static double qdouble(const char *path, const char *sql, int *rows)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    double v = NAN;
    *rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*rows == 0 && sqlite3_column_type(st, 0) != SQLITE_NULL)
            v = sqlite3_column_double(st, 0);
        (*rows)++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void run_frag(bool every_pod, const char *path, struct gs_run_result *res)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("frag.yaml", run_yaml, &sc, &err), 0, "%s", err.msg);
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_EVENTS, .sample_every_pod = every_pod};
    char buf[256];
    unlink(path);
    cr_assert_eq(gs_run(&sc, &o, res, buf, sizeof buf), 0, "%s", buf);
    gs_scenario_free(&sc);
}

Test(fgd_run, frag_samples)
{
    char a[128], b[128];
    snprintf(a, sizeof a, "/tmp/gpusim-test-fgd-a-%d.db", (int)getpid());
    snprintf(b, sizeof b, "/tmp/gpusim-test-fgd-b-%d.db", (int)getpid());
    struct gs_run_result ra, rb;
    run_frag(false, a, &ra);
    run_frag(true, b, &rb);
    cr_expect_eq(ra.checks_failed, 0);
    cr_expect_eq(rb.checks_failed, 0);
    int na, nb, n;
    /* Typical pods: 3 half-GPU pods (3/4) and one pair (1/4). An empty 2-GPU node: nothing
     * fragmented; one half-used GPU on a node: the pair cannot use it (1500 idle x 1/4). FGDScore
     * then fills that node (0.25, 0.125) before touching the other. */
    double nulls = qdouble(a, "SELECT count(*) FROM sample WHERE frag_gpus IS NULL", &n);
    cr_expect_eq(nulls, 0);
    qdouble(a, "SELECT frag_gpus FROM sample WHERE pool = ''", &na);
    qdouble(b, "SELECT frag_gpus FROM sample WHERE pool = ''", &nb);
    /* Every pod: 3 binds, 3 ends and a bind of the pair on top of the periodic samples. */
    cr_expect_eq(nb, na + 7, "%d vs %d", nb, na);
    double first = qdouble(b, "SELECT frag_gpus FROM sample WHERE pool = '' ORDER BY t_us, rowid", &n);
    cr_expect_float_eq(first, 0.375, 1e-9);
    /* Per-pool rows carry the pool's part (one pool: the same). */
    double pool = qdouble(b, "SELECT frag_gpus FROM sample WHERE pool = 'l4' ORDER BY t_us, rowid", &n);
    cr_expect_float_eq(pool, 0.375, 1e-9);
    unlink(a);
    unlink(b);
}
