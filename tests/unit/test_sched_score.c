/* Scoring, percentageOfNodesToScore and selectHost tie-breaking. */
#include "sched_fixture.h"

#include <criterion/new/assert.h>

/* Only plugin `pl` scores, with its default weight: score {disabled: ['*'], enabled: [pl]}. */
static struct gs_sched_config only(int minor, enum gs_plugin pl)
{
    struct gs_sched_config c = fx_cfg(minor);
    struct gs_plugin_set *score = &c.plugins.point[GS_EP_SCORE];
    int32_t w = (int32_t)c.score_weight[pl];
    cr_assert(w > 0);
    cr_assert(eq(int, gs_plugin_set_disable(score, "*", -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(score, gs_plugin_name(pl), w, -1), 0));
    return c;
}

static int64_t score1(struct fx *f, const struct gs_sched_config *c, int p, const int *feas, int nf, int node)
{
    struct gs_sched *s = gs_sched_new(&f->w, c, NULL);
    cr_assert(s != NULL);
    int64_t v = gs_sched_score_node(s, p, feas, nf, node);
    gs_sched_free(s);
    return v;
}

Test(sched_score, requested_to_capacity_ratio_shapes)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 4000, 8 * GI, 0);
    f->w.nodes[n].allocatable.v[GS_RES_EPHEMERAL] = 100 * GI;
    fx_run(f, "busy", fx_tmpl(f, 1000, 2 * GI, 0, 0), n, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, 1 * GI, 0, 0));
    struct gs_sched_config c = only(34, GS_PL_NODE_RESOURCES_FIT);
    c.strategy = GS_SCORE_RTCR;
    /* bin packing: cpu u=50 → 50, memory u=37 → 37; round(87/2 = 43.5) = 44 */
    c.nshape = 2;
    c.shape[0] = (struct gs_shape_point){0, 0};
    c.shape[1] = (struct gs_shape_point){100, 10};
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 44);
    /* three points, a negative slope truncated toward zero: cpu 20, memory 100 − 59 = 41;
     * round(30.5) = 31 */
    c.nshape = 3;
    c.shape[0] = (struct gs_shape_point){0, 10};
    c.shape[1] = (struct gs_shape_point){50, 2};
    c.shape[2] = (struct gs_shape_point){100, 0};
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 31);
    /* a resource scoring 0 does not enter the mean: ephemeral-storage u = 0 */
    c.nshape = 2;
    c.shape[0] = (struct gs_shape_point){0, 0};
    c.shape[1] = (struct gs_shape_point){100, 10};
    c.score_res[1] = GS_RES_EPHEMERAL;
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 50);
    /* LeastAllocated counts it: (50 × 1 + 100 × 1) / 2 = 75 */
    c.strategy = GS_SCORE_LEAST_ALLOCATED;
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 75);
    fx_free(f);
}

Test(sched_score, skipped_resources)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 8);
    int p = fx_pod(f, "p", fx_tmpl(f, 2000, 8 * GI, 0, 0));
    int pg = fx_pod(f, "pg", fx_tmpl(f, 2000, 8 * GI, 2, 0));
    struct gs_sched_config c = only(31, GS_PL_NODE_RESOURCES_FIT);
    c.nscore_res = 3;
    c.score_res[2] = f->gpu;
    c.score_res_weight[2] = 3;
    /* the pod requests no GPU: the resource and its weight are skipped → 75 */
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 75);
    /* requested: (75 + 75 + 75 × 3) / 5 = 75 */
    cr_assert_eq(score1(f, &c, pg, &n, 1, n), 75);
    /* a node without the resource skips it too */
    f->w.nodes[n].allocatable.v[f->gpu] = 0;
    cr_assert_eq(score1(f, &c, pg, &n, 1, n), 75);
    fx_free(f);
}

Test(sched_score, balanced_allocation)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 8);
    int p = fx_pod(f, "p", fx_tmpl(f, 2000, 8 * GI, 4, 0));
    int p0 = fx_pod(f, "p0", fx_tmpl(f, 2000, 8 * GI, 0, 0));
    int pu = fx_pod(f, "pu", fx_tmpl(f, 4000, 8 * GI, 0, 0));
    struct gs_sched_config c = only(31, GS_PL_BALANCED_ALLOCATION);
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 100);
    cr_assert_eq(score1(f, &c, pu, &n, 1, n), 87); /* .5/.25: std .125 */
    c.nbalanced_res = 3;
    c.balanced_res[2] = f->gpu;
    /* .25 .25 .5: population std 0.1178 → 88 */
    cr_assert_eq(score1(f, &c, p, &n, 1, n), 88);
    /* an extended resource the pod does not request is skipped */
    cr_assert_eq(score1(f, &c, p0, &n, 1, n), 100);
    fx_free(f);
}

Test(sched_score, taint_toleration_prefer_no_schedule)
{
    struct fx *f = fx_new();
    int n[3];
    for (int i = 0; i < 3; i++)
        n[i] = fx_node(f, "n", i, 8000, 32 * GI, 8);
    fx_taint(f, n[1], "a", "x", GS_EFFECT_PREFER_NO_SCHEDULE);
    fx_taint(f, n[2], "a", "x", GS_EFFECT_PREFER_NO_SCHEDULE);
    fx_taint(f, n[2], "b", "y", GS_EFFECT_PREFER_NO_SCHEDULE);
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 0, 0));
    struct gs_sched_config c = only(34, GS_PL_TAINT_TOLERATION);
    int64_t want[] = {300, 150, 0};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(score1(f, &c, p, n, 3, n[i]), want[i]);
    /* tolerating a:x (effect PreferNoSchedule): n2 keeps 1 untolerated taint, the max */
    static struct gs_toleration tol = {"a", GS_TOL_EXISTS, "", GS_EFFECT_PREFER_NO_SCHEDULE, -1};
    struct gs_pod_template *t = fx_tmpl(f, 100, MI, 0, 0);
    t->tolerations = &tol;
    t->ntolerations = 1;
    int pt = fx_pod(f, "pt", t);
    int64_t want2[] = {300, 300, 0};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(score1(f, &c, pt, n, 3, n[i]), want2[i]);
    /* a NoSchedule toleration does not count for scoring */
    tol.effect = GS_EFFECT_NO_SCHEDULE;
    for (int i = 0; i < 3; i++)
        cr_assert_eq(score1(f, &c, pt, n, 3, n[i]), want[i]);
    fx_free(f);
}

Test(sched_score, node_affinity_preferred)
{
    struct fx *f = fx_new();
    int n[3];
    for (int i = 0; i < 3; i++)
        n[i] = fx_node(f, "n", i, 8000, 32 * GI, 8);
    fx_label(f, n[0], "zone", "a");
    fx_label(f, n[0], "gpu", "h100");
    fx_label(f, n[1], "zone", "a");
    fx_label(f, n[2], "zone", "b");
    static const char *za[] = {"a"}, *h100[] = {"h100"};
    static struct gs_requirement rz = {"zone", GS_OP_IN, za, 1}, rg = {"gpu", GS_OP_IN, h100, 1};
    static struct gs_preferred_term pref[] = {{10, {&rz, 1, NULL, 0}}, {30, {&rg, 1, NULL, 0}}};
    struct gs_pod_template *t = fx_tmpl(f, 100, MI, 0, 0);
    t->affinity.preferred = pref;
    t->affinity.npreferred = 2;
    int p = fx_pod(f, "p", t);
    struct gs_sched_config c = only(34, GS_PL_NODE_AFFINITY);
    int64_t want[] = {200, 50, 0};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(score1(f, &c, p, n, 3, n[i]), want[i]);
    /* default weights: the preferred node wins the cycle */
    c = fx_cfg(34);
    cr_assert_eq(fx_cycle_cfg(f, &c, p).node, n[0]);
    fx_free(f);
}

Test(sched_score, num_feasible_nodes_to_find)
{
    struct gs_sched_config c = fx_cfg(34);
    int nodes[] = {1, 50, 99, 100, 125, 200, 500, 1000, 2000, 5000, 5999, 6000, 10000};
    int want[] = {1, 50, 99, 100, 100, 100, 230, 420, 680, 500, 299, 300, 500};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        cr_assert_eq(gs_sched_num_feasible_to_find(&c, nodes[i]), want[i], "%d nodes", nodes[i]);
    c.percentage_of_nodes_to_score = 10;
    cr_assert_eq(gs_sched_num_feasible_to_find(&c, 1000), 100);
    cr_assert_eq(gs_sched_num_feasible_to_find(&c, 5000), 500);
    cr_assert_eq(gs_sched_num_feasible_to_find(&c, 99), 99);
    c.percentage_of_nodes_to_score = 100;
    cr_assert_eq(gs_sched_num_feasible_to_find(&c, 5000), 5000);
}

Test(sched_score, percentage_of_nodes_and_rotation)
{
    struct fx *f = fx_new();
    for (int i = 0; i < 1000; i++)
        fx_node(f, "n", i, 8000, 32 * GI, 8);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.feasible, 420);
    cr_assert_eq(r.evaluated, 420);
    cr_assert_eq(r.node, 0);
    /* nextStartNodeIndex moved by 420: nodes 420..839 this time */
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, 420);
    /* 840..999 then 0..259: the lowest index is 0 */
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, 0);
    gs_sched_free(s);

    c.percentage_of_nodes_to_score = 10;
    r = fx_cycle_cfg(f, &c, p);
    cr_assert_eq(r.feasible, 100);
    /* no score plugin: the first feasible node is enough */
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_SCORE], "*", -1), 0));
    r = fx_cycle_cfg(f, &c, p);
    cr_assert_eq(r.feasible, 1);
    cr_assert_eq(r.evaluated, 1);
    cr_assert_eq(r.node, 0);
    /* infeasible nodes are counted as evaluated */
    for (int i = 0; i < 10; i++)
        f->w.nodes[i].allocatable.v[f->gpu] = 0;
    r = fx_cycle_cfg(f, &c, p);
    cr_assert_eq(r.node, 10);
    cr_assert_eq(r.evaluated, 11);
    fx_free(f);
}

/* Reservoir sampling: the k-th tied node replaces the pick when uniform_int(k) == 0. */
Test(sched_score, tie_break_seeded_reservoir)
{
    struct fx *f = fx_new();
    for (int i = 0; i < 3; i++)
        fx_node(f, "n", i, 8000, 32 * GI, 8);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    struct gs_sched_config c = fx_cfg(34);
    c.tiebreak_first = false;
    struct gs_rng *rng = gs_rng_new(1234), *twin = gs_rng_new(1234), *other = gs_rng_new(1234);
    struct gs_sched *s = gs_sched_new(&f->w, &c, rng), *s2 = gs_sched_new(&f->w, &c, other);
    int seen[3] = {0};
    for (int i = 0; i < 60; i++) {
        struct gs_cycle_result r, r2;
        gs_sched_cycle(s, p, &r);
        gs_sched_cycle(s2, p, &r2);
        int best = 0;
        if (gs_rng_uniform_int(twin, GS_STREAM_TIEBREAK, 2) == 0)
            best = 1;
        if (gs_rng_uniform_int(twin, GS_STREAM_TIEBREAK, 3) == 0)
            best = 2;
        cr_assert_eq(r.node, best, "cycle %d", i);
        cr_assert_eq(r2.node, r.node, "same seed, same pick");
        seen[r.node]++;
    }
    cr_assert(seen[0] && seen[1] && seen[2]);
    gs_sched_free(s);
    gs_sched_free(s2);
    /* tiebreak_first: always the lowest index, no draw */
    c.tiebreak_first = true;
    s = gs_sched_new(&f->w, &c, rng);
    for (int i = 0; i < 5; i++) {
        struct gs_cycle_result r;
        gs_sched_cycle(s, p, &r);
        cr_assert_eq(r.node, 0);
    }
    gs_sched_free(s);
    gs_rng_free(rng);
    gs_rng_free(twin);
    gs_rng_free(other);
    fx_free(f);
}

Test(sched_score, config_defaults_and_names)
{
    struct gs_sched_config c;
    gs_sched_config_default(&c, 31);
    cr_assert_not(c.dra_enabled);
    cr_assert_not(c.filter_enabled[GS_PL_DYNAMIC_RESOURCES]);
    cr_assert_eq(c.score_weight[GS_PL_TAINT_TOLERATION], 3);
    cr_assert_eq(c.score_weight[GS_PL_NODE_AFFINITY], 2);
    cr_assert_eq(c.score_weight[GS_PL_NODE_RESOURCES_FIT], 1);
    cr_assert_eq(c.score_weight[GS_PL_BALANCED_ALLOCATION], 1);
    cr_assert_eq(c.strategy, GS_SCORE_LEAST_ALLOCATED);
    cr_assert_eq(c.nscore_res, 2);
    cr_assert_not(c.fit_unresolvable);
    cr_assert_not(c.balanced_skip_best_effort);
    gs_sched_config_default(&c, 34);
    cr_assert(c.dra_enabled && c.fit_unresolvable && c.balanced_skip_best_effort && !c.taint_reason_generic);
    gs_sched_config_default(&c, 35);
    cr_assert(c.taint_reason_generic);
    const char *names[] = {"PrioritySort", "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                           "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "EBSLimits", "GCEPDLimits",
                           "NodeVolumeLimits", "AzureDiskLimits", "VolumeBinding", "VolumeZone",
                           "PodTopologySpread", "InterPodAffinity", "DynamicResources", "DefaultPreemption",
                           "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder",
                           "SchedulingGates"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int id = gs_plugin_find(names[i]);
        cr_assert_geq(id, 0, "%s", names[i]);
        cr_assert_str_eq(gs_plugin_name((enum gs_plugin)id), names[i]);
    }
    cr_assert_eq(gs_plugin_find("NodeResourcesFit"), GS_PL_NODE_RESOURCES_FIT);
    cr_assert(gs_plugin_is_modelled(GS_PL_DEFAULT_PREEMPTION));
    cr_assert_not(gs_plugin_is_modelled(GS_PL_IMAGE_LOCALITY));
    cr_assert_eq(gs_plugin_find("nodeResourcesFit"), -1);
    /* scheduler-plugins Coscheduling is modelled, off unless a profile enables it. */
    cr_assert_eq(gs_plugin_find("Coscheduling"), GS_PL_COSCHEDULING);
    cr_assert(gs_plugin_is_modelled(GS_PL_COSCHEDULING));
    cr_assert_eq(gs_plugin_find("CapacityScheduling"), -1);
    cr_assert_lt(GS_PL_COUNT, 32);
}
