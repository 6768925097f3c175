/* The scheduling cycle against the golden cases of ../shared/reference/kube-scheduler.md §9 and
 * the FailedScheduling examples of §3.3, per release (1.28, 1.31, 1.34, 1.35). */
#include "sched_fixture.h"

#include <criterion/new/assert.h>

#define DRA "no new claims to deallocate, "

/* ------------------------------------------------------------------ G1, G2, G3: scores */

/* G1: spread vs pack, GPU not scored. */
static struct fx *g1(int *n1, int *n2, int *p)
{
    struct fx *f = fx_new();
    *n1 = fx_node(f, "n1", 0, 8000, 32 * GI, 4);
    *n2 = fx_node(f, "n2", 0, 8000, 32 * GI, 4);
    fx_run(f, "busy", fx_tmpl(f, 4000, 16 * GI, 2, 0), *n1, 0);
    *p = fx_pod(f, "p", fx_tmpl(f, 2000, 8 * GI, 1, 0));
    return f;
}

Test(sched_golden, g1_least_allocated_spreads)
{
    int minors[] = {28, 31, 34};
    for (int i = 0; i < 3; i++) {
        int n1, n2, p;
        struct fx *f = g1(&n1, &n2, &p);
        struct gs_sched_config c = fx_cfg(minors[i]);
        struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
        int feas[] = {n1, n2};
        cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n1), 425);
        cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n2), 475);
        struct gs_cycle_result r;
        gs_sched_cycle(s, p, &r);
        cr_assert_eq(r.node, n2);
        cr_assert_eq(r.score, 475);
        cr_assert_eq(r.feasible, 2);
        cr_assert_null(r.message);
        gs_sched_free(s);
        fx_free(f);
    }
}

Test(sched_golden, g1_most_allocated_packs)
{
    int n1, n2, p;
    struct fx *f = g1(&n1, &n2, &p);
    struct gs_sched_config c = fx_cfg(31);
    c.strategy = GS_SCORE_MOST_ALLOCATED;
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    int feas[] = {n1, n2};
    cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n1), 475);
    cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n2), 425);
    gs_sched_free(s);
    cr_assert_eq(fx_cycle_cfg(f, &c, p).node, n1);
    fx_free(f);
}

/* G2: adding nvidia.com/gpu to the strategy. */
static struct fx *g2(int *n1, int *n2, int *p)
{
    struct fx *f = fx_new();
    *n1 = fx_node(f, "n1", 0, 16000, 64 * GI, 8);
    *n2 = fx_node(f, "n2", 0, 16000, 64 * GI, 8);
    fx_run(f, "a", fx_tmpl(f, 2000, 8 * GI, 6, 0), *n1, 0);
    fx_run(f, "b", fx_tmpl(f, 8000, 32 * GI, 0, 0), *n2, 0);
    *p = fx_pod(f, "p", fx_tmpl(f, 2000, 8 * GI, 2, 0));
    return f;
}

static void g2_case(enum gs_scoring_strategy st, bool with_gpu, int64_t want1, int64_t want2, bool n1_wins)
{
    int n1, n2, p;
    struct fx *f = g2(&n1, &n2, &p);
    struct gs_sched_config c = fx_cfg(34);
    c.strategy = st;
    if (with_gpu) {
        c.nscore_res = 3;
        c.score_res[2] = f->gpu;
        c.score_res_weight[2] = 3;
    }
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    int feas[] = {n1, n2};
    cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n1), want1, "strategy %d gpu %d", st, with_gpu);
    cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n2), want2, "strategy %d gpu %d", st, with_gpu);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, n1_wins ? n1 : n2);
    gs_sched_free(s);
    fx_free(f);
}

Test(sched_golden, g2_strategies_and_gpu_weight)
{
    g2_case(GS_SCORE_LEAST_ALLOCATED, false, 75 + 100 + 300, 37 + 100 + 300, true);
    g2_case(GS_SCORE_MOST_ALLOCATED, false, 25 + 100 + 300, 62 + 100 + 300, false);
    g2_case(GS_SCORE_MOST_ALLOCATED, true, 470, 439, true);
    g2_case(GS_SCORE_LEAST_ALLOCATED, true, 430, 459, false);
}

/* G3: best-effort pod and the non-zero defaults; BalancedAllocation skipped from 1.33. */
static void g3_case(int minor, enum gs_scoring_strategy st, int64_t want1, int64_t want2, bool n1_wins)
{
    struct fx *f = fx_new();
    int n1 = fx_node(f, "n1", 0, 4000, 8 * GI, 0);
    int n2 = fx_node(f, "n2", 0, 4000, 8 * GI, 0);
    fx_run(f, "busy", fx_tmpl(f, 1000, 1 * GI, 0, 0), n2, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 0, 0, 0, 0));
    struct gs_sched_config c = fx_cfg(minor);
    c.strategy = st;
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    int feas[] = {n1, n2};
    cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n1), want1, "1.%d strategy %d", minor, st);
    cr_assert_eq(gs_sched_score_node(s, p, feas, 2, n2), want2, "1.%d strategy %d", minor, st);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, n1_wins ? n1 : n2);
    gs_sched_free(s);
    fx_free(f);
}

Test(sched_golden, g3_best_effort_nonzero_defaults)
{
    g3_case(31, GS_SCORE_LEAST_ALLOCATED, 497, 471, true);
    g3_case(31, GS_SCORE_MOST_ALLOCATED, 402, 413, false);
    g3_case(28, GS_SCORE_LEAST_ALLOCATED, 497, 471, true);
    g3_case(34, GS_SCORE_LEAST_ALLOCATED, 397, 378, true);
    g3_case(34, GS_SCORE_MOST_ALLOCATED, 302, 320, false);
    g3_case(33, GS_SCORE_MOST_ALLOCATED, 302, 320, false);
}

/* G4: a single feasible node is chosen without scoring. */
Test(sched_golden, g4_single_feasible_node)
{
    struct fx *f = fx_new();
    int n1 = fx_node(f, "n1", 0, 8000, 32 * GI, 8);
    int n2 = fx_node(f, "n2", 0, 8000, 32 * GI, 8);
    int n3 = fx_node(f, "n3", 0, 8000, 32 * GI, 8);
    fx_taint(f, n1, "dedicated", "infer", GS_EFFECT_NO_SCHEDULE);
    fx_taint(f, n2, "dedicated", "infer", GS_EFFECT_NO_SCHEDULE);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    enum gs_scoring_strategy sts[] = {GS_SCORE_LEAST_ALLOCATED, GS_SCORE_MOST_ALLOCATED};
    for (int i = 0; i < 2; i++) {
        struct gs_sched_config c = fx_cfg(34);
        c.strategy = sts[i];
        struct gs_cycle_result r = fx_cycle_cfg(f, &c, p);
        cr_assert_eq(r.node, n3);
        cr_assert_eq(r.feasible, 1);
        cr_assert_eq(r.evaluated, 3);
        cr_assert_eq(r.score, 0);
    }
    fx_free(f);
}

/* ------------------------------------------------------------------ messages */

/* G5: everything full. */
Test(sched_golden, g5_everything_full)
{
    struct fx *f = fx_new();
    const struct gs_pod_template *full = fx_tmpl(f, 1000, GI, 8, 0);
    for (int i = 0; i < 3; i++)
        fx_run(f, "full", full, fx_node(f, "n", i, 32000, 128 * GI, 8), 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    const char *base = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. ";
    const char *tail = "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    char want[512];
    snprintf(want, sizeof want, "%s%s", base, tail);
    cr_assert_str_eq(fx_msg(f, 28, p), want);
    cr_assert_str_eq(fx_msg(f, 31, p), want);
    snprintf(want, sizeof want, "%s" DRA "%s", base, tail);
    cr_assert_str_eq(fx_msg(f, 34, p), want);
    struct gs_cycle_result r = fx_cycle(f, 34, p);
    cr_assert_eq(r.node, -1);
    cr_assert_eq(r.nominated_node, -1);
    cr_assert(r.clear_nomination);
    cr_assert_eq(r.unsched_plugins, 1u << GS_PL_NODE_RESOURCES_FIT);
    cr_assert_eq(r.evaluated, 3);
    fx_free(f);
}

/* G7: bring-up steps without GPUs. */
Test(sched_golden, g7_no_nodes)
{
    struct fx *f = fx_new();
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    cr_assert_str_eq(fx_msg(f, 28, p), "no nodes available to schedule pods");
    cr_assert_str_eq(fx_msg(f, 34, p), "no nodes available to schedule pods");
    /* A deleted node is not in the snapshot. */
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 8);
    f->w.nodes[n].exists = false;
    struct gs_cycle_result r = fx_cycle(f, 34, p);
    cr_assert_str_eq(r.message, "no nodes available to schedule pods");
    cr_assert_eq(r.unsched_plugins, 0);
    fx_free(f);
}

Test(sched_golden, g7_not_ready_then_no_gpu)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 0);
    fx_taint(f, n, "node.kubernetes.io/not-ready", "", GS_EFFECT_NO_SCHEDULE);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    cr_assert_str_eq(fx_msg(f, 28, p), "0/1 nodes are available: 1 node(s) had untolerated taint "
                                       "{node.kubernetes.io/not-ready: }. preemption: 0/1 nodes are "
                                       "available: 1 Preemption is not helpful for scheduling.");
    cr_assert_str_eq(fx_msg(f, 34, p), "0/1 nodes are available: 1 node(s) had untolerated taint "
                                       "{node.kubernetes.io/not-ready: }. " DRA "preemption: 0/1 nodes are "
                                       "available: 1 Preemption is not helpful for scheduling.");
    /* t1: Ready, the device plugin has not registered yet. */
    f->w.nodes[n].ntaints = 0;
    const char *old = "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are "
                      "available: 1 No preemption victims found for incoming pod.";
    cr_assert_str_eq(fx_msg(f, 28, p), old);
    cr_assert_str_eq(fx_msg(f, 31, p), old);
    cr_assert_str_eq(fx_msg(f, 33, p), old);
    cr_assert_str_eq(fx_msg(f, 34, p), "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. " DRA
                                       "preemption: 0/1 nodes are available: 1 Preemption is not helpful "
                                       "for scheduling.");
    /* t2: 8 GPUs advertised: bound. */
    f->w.nodes[n].allocatable.v[f->gpu] = 8;
    struct gs_cycle_result r = fx_cycle(f, 34, p);
    cr_assert_eq(r.node, n);
    cr_assert_null(r.message);
    fx_free(f);
}

/* G8: two reasons per node. */
Test(sched_golden, g8_two_reasons_per_node)
{
    struct fx *f = fx_new();
    const struct gs_pod_template *big = fx_tmpl(f, 4000, 8 * GI, 4, 0);
    for (int i = 0; i < 2; i++)
        fx_run(f, "big", big, fx_node(f, "n", i, 4000, 16 * GI, 4), 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    const char *want = "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient nvidia.com/gpu. "
                       "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.";
    cr_assert_str_eq(fx_msg(f, 28, p), want);
    cr_assert_str_eq(fx_msg(f, 31, p), want);
    cr_assert_str_eq(fx_msg(f, 34, p), "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient "
                                       "nvidia.com/gpu. " DRA "preemption: 0/2 nodes are available: 2 No "
                                       "preemption victims found for incoming pod.");
    fx_free(f);
}

/* G10: successful preemption, the terminating victim, then the nominated node. */
Test(sched_golden, g10_preemption)
{
    int minors[] = {28, 31, 34};
    for (int m = 0; m < 3; m++) {
        struct fx *f = fx_new();
        int n1 = fx_node(f, "n1", 0, 8000, 32 * GI, 4);
        int n2 = fx_node(f, "n2", 0, 8000, 32 * GI, 4);
        int pa = fx_run(f, "pA", fx_tmpl(f, 1000, GI, 4, 0), n1, 0);
        fx_run(f, "pB", fx_tmpl(f, 1000, GI, 4, 100), n2, 0);
        int p = fx_pod(f, "P", fx_tmpl(f, 1000, GI, 2, 1000));
        struct gs_sched_config c = fx_cfg(minors[m]);
        struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
        struct gs_cycle_result r;
        gs_sched_cycle(s, p, &r);
        cr_assert_eq(r.node, -1);
        cr_assert_str_eq(r.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.");
        cr_assert_eq(r.nominated_node, n1);
        cr_assert_eq(r.nvictims, 1);
        cr_assert_eq(r.victims[0], pa);
        cr_assert_not(r.clear_nomination);
        /* The run loop: pA terminates, P is nominated to n1. */
        f->w.pods[p].nominated_node = n1;
        f->w.pods[pa].terminating = true;
        gs_sched_cycle(s, p, &r);
        cr_assert_eq(r.node, -1);
        if (minors[m] >= 34)
            cr_assert_str_eq(r.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. " DRA
                                        "preemption: not eligible due to a terminating pod on the nominated node.");
        else
            cr_assert_str_eq(r.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. "
                                        "preemption: not eligible due to a terminating pod on the nominated node.");
        cr_assert_eq(r.nominated_node, -1);
        cr_assert_not(r.clear_nomination);
        /* pA is gone: P goes to its nominated node without scoring. */
        gs_world_unassign(&f->w, pa);
        f->w.pods[pa].deleted = true;
        gs_sched_cycle(s, p, &r);
        cr_assert_eq(r.node, n1);
        cr_assert_eq(r.feasible, 1);
        cr_assert_eq(r.evaluated, 1);
        cr_assert_eq(r.score, 0);
        gs_sched_free(s);
        fx_free(f);
    }
}

/* Example A: mixed filters. */
static struct fx *example_a(int *p)
{
    struct fx *f = fx_new();
    int n1 = fx_node(f, "n1", 0, 8000, 32 * GI, 8);
    int n2 = fx_node(f, "n2", 0, 8000, 32 * GI, 8);
    fx_node(f, "n3", 0, 8000, 32 * GI, 0);
    int n4 = fx_node(f, "n4", 0, 32000, 128 * GI, 8);
    f->w.nodes[n1].unschedulable = true;
    fx_taint(f, n1, "node.kubernetes.io/unschedulable", "", GS_EFFECT_NO_SCHEDULE);
    fx_taint(f, n2, "nvidia.com/gpu", "present", GS_EFFECT_NO_SCHEDULE);
    fx_run(f, "busy", fx_tmpl(f, 1000, GI, 7, 0), n4, 0);
    *p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 2, 0));
    return f;
}

Test(sched_examples, a_mixed_filters)
{
    int p;
    struct fx *f = example_a(&p);
    const char *old = "0/4 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, "
                      "1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are "
                      "available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful "
                      "for scheduling.";
    cr_assert_str_eq(fx_msg(f, 28, p), old);
    cr_assert_str_eq(fx_msg(f, 31, p), old);
    cr_assert_str_eq(fx_msg(f, 34, p),
                     "0/4 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, "
                     "1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu. " DRA "preemption: 0/4 "
                     "nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is "
                     "not helpful for scheduling.");
    /* 1.35: the taint is no longer named. */
    cr_assert_str_eq(fx_msg(f, 35, p),
                     "0/4 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were "
                     "unschedulable, 2 Insufficient nvidia.com/gpu. " DRA "preemption: 0/4 nodes are "
                     "available: 1 No preemption victims found for incoming pod, 3 Preemption is not "
                     "helpful for scheduling.");
    struct gs_cycle_result r = fx_cycle(f, 34, p);
    cr_assert_eq(r.unsched_plugins, (1u << GS_PL_NODE_UNSCHEDULABLE) | (1u << GS_PL_TAINT_TOLERATION) |
                                        (1u << GS_PL_NODE_RESOURCES_FIT));
    fx_free(f);
}

/* The 1.35 wording merges different taints into one entry; 1.34 keeps one entry per taint. */
Test(sched_examples, taint_wording_1_35)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 8000, 32 * GI, 8);
    int b = fx_node(f, "b", 0, 8000, 32 * GI, 8);
    fx_taint(f, a, "node-role.kubernetes.io/control-plane", "", GS_EFFECT_NO_SCHEDULE);
    fx_taint(f, b, "spray", "mortein", GS_EFFECT_NO_SCHEDULE);
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 0, 0));
    cr_assert_str_eq(fx_msg(f, 34, p),
                     "0/2 nodes are available: 1 node(s) had untolerated taint "
                     "{node-role.kubernetes.io/control-plane: }, 1 node(s) had untolerated taint {spray: "
                     "mortein}. " DRA "preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
                     "scheduling.");
    cr_assert_str_eq(fx_msg(f, 35, p), "0/2 nodes are available: 2 node(s) had untolerated taint(s). " DRA
                                       "preemption: 0/2 nodes are available: 2 Preemption is not helpful "
                                       "for scheduling.");
    /* A 1.34 patch release with kubernetes PR 135023 (the override). */
    struct gs_sched_config c = fx_cfg(34);
    c.taint_reason_generic = true;
    fx_cycle_cfg(f, &c, p);
    cr_assert_str_eq(f->msg, "0/2 nodes are available: 2 node(s) had untolerated taint(s). " DRA
                             "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    fx_free(f);
}

/* Example B: several reasons per node and counts >= 10. */
Test(sched_examples, b_counts_sort_as_text)
{
    struct fx *f = fx_new();
    for (int i = 0; i < 10; i++)
        fx_taint(f, fx_node(f, "t", i, 8000, 32 * GI, 4), "dedicated", "training", GS_EFFECT_NO_SCHEDULE);
    const struct gs_pod_template *full = fx_tmpl(f, 4000, 8 * GI, 4, 0);
    for (int i = 0; i < 2; i++)
        fx_run(f, "full", full, fx_node(f, "g", i, 4000, 16 * GI, 4), 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    const char *head = "0/12 nodes are available: 10 node(s) had untolerated taint {dedicated: training}, "
                       "2 Insufficient cpu, 2 Insufficient nvidia.com/gpu. ";
    const char *tail = "preemption: 0/12 nodes are available: 10 Preemption is not helpful for scheduling, "
                       "2 No preemption victims found for incoming pod.";
    char want[1024];
    snprintf(want, sizeof want, "%s%s", head, tail);
    cr_assert_str_eq(fx_msg(f, 28, p), want);
    cr_assert_str_eq(fx_msg(f, 31, p), want);
    snprintf(want, sizeof want, "%s" DRA "%s", head, tail);
    cr_assert_str_eq(fx_msg(f, 34, p), want);
    fx_free(f);
}

/* Example C: PreFilterResult (matchFields metadata.name) and preemptionPolicy Never. */
static struct fx *example_c(int *p, int *pn)
{
    struct fx *f = fx_new();
    fx_node(f, "gpu", 5, 8000, 32 * GI, 8);
    fx_node(f, "gpu", 6, 8000, 32 * GI, 8);
    int g7 = fx_node(f, "gpu", 7, 8000, 32 * GI, 8);
    fx_run(f, "full", fx_tmpl(f, 1000, GI, 8, 0), g7, 0);
    static const char *names[] = {"gpu-7"};
    static struct gs_requirement field = {"metadata.name", GS_OP_IN, names, 1};
    static struct gs_term term = {NULL, 0, &field, 1};
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    t->affinity.required = &term;
    t->affinity.nrequired = 1;
    t->affinity.has_required = true;
    *p = fx_pod(f, "p", t);
    struct gs_pod_template *tn = fx_tmpl(f, 1000, GI, 1, 0);
    tn->affinity = t->affinity;
    tn->preemption_policy = GS_PREEMPT_NEVER;
    *pn = fx_pod(f, "pn", tn);
    return f;
}

Test(sched_examples, c_prefilter_result_and_never)
{
    int p, pn;
    struct fx *f = example_c(&p, &pn);
    const char *tail = "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
                       "2 Preemption is not helpful for scheduling.";
    char want[1024];
    /* 1.31+: the excluded nodes are the NodeToStatus absent nodes. */
    const char *head = "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't satisfy "
                       "plugin(s) [NodeAffinity]. ";
    snprintf(want, sizeof want, "%s%s", head, tail);
    cr_assert_str_eq(fx_msg(f, 31, p), want);
    snprintf(want, sizeof want, "%s" DRA "%s", head, tail);
    cr_assert_str_eq(fx_msg(f, 34, p), want);
    snprintf(want, sizeof want, "%spreemption: not eligible due to preemptionPolicy=Never.", head);
    cr_assert_str_eq(fx_msg(f, 31, pn), want);
    snprintf(want, sizeof want, "%s" DRA "preemption: not eligible due to preemptionPolicy=Never.", head);
    cr_assert_str_eq(fx_msg(f, 34, pn), want);
    /* 1.28-1.30: explicit "node is filtered out by the prefilter result" statuses. */
    head = "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node is filtered out by the prefilter "
           "result. ";
    snprintf(want, sizeof want, "%s%s", head, tail);
    cr_assert_str_eq(fx_msg(f, 28, p), want);
    snprintf(want, sizeof want, "%spreemption: not eligible due to preemptionPolicy=Never.", head);
    cr_assert_str_eq(fx_msg(f, 28, pn), want);
    /* Only gpu-7 is filtered. */
    struct gs_cycle_result r = fx_cycle(f, 34, p);
    cr_assert_eq(r.evaluated, 1);
    r = fx_cycle(f, 28, p);
    cr_assert_eq(r.evaluated, 3);
    fx_free(f);
}

Test(sched_examples, affinity_terms_conflict)
{
    struct fx *f = fx_new();
    fx_node(f, "gpu", 0, 8000, 32 * GI, 8);
    fx_node(f, "gpu", 1, 8000, 32 * GI, 8);
    static const char *a[] = {"gpu-0"}, *b[] = {"gpu-1"};
    static struct gs_requirement fields[] = {{"metadata.name", GS_OP_IN, a, 1}, {"metadata.name", GS_OP_IN, b, 1}};
    static struct gs_term term = {NULL, 0, fields, 2};
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    t->affinity.required = &term;
    t->affinity.nrequired = 1;
    t->affinity.has_required = true;
    int p = fx_pod(f, "p", t);
    cr_assert_str_eq(fx_msg(f, 31, p), "0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 "
                                       "nodes are available: 2 Preemption is not helpful for scheduling.");
    fx_free(f);
}

/* The two 1.34 messages of the brief. */
Test(sched_examples, gpu_team_taints_1_34)
{
    struct fx *f = fx_new();
    for (int i = 0; i < 3; i++)
        fx_taint(f, fx_node(f, "team", i, 32000, 128 * GI, 8), "nvidia.com/gpu", "present", GS_EFFECT_NO_SCHEDULE);
    const struct gs_pod_template *used = fx_tmpl(f, 1000, GI, 5, 0);
    for (int i = 0; i < 9; i++)
        fx_run(f, "used", used, fx_node(f, "shared", i, 32000, 128 * GI, 8), 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 4, 0));
    cr_assert_str_eq(fx_msg(f, 34, p),
                     "0/12 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}, 9 "
                     "Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/12 nodes are "
                     "available: 3 Preemption is not helpful for scheduling, 9 No preemption victims found "
                     "for incoming pod.");
    fx_free(f);
}

Test(sched_examples, request_larger_than_node_1_34)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 32000, 128 * GI, 4);
    int b = fx_node(f, "b", 0, 32000, 128 * GI, 4);
    fx_node(f, "c", 0, 32000, 128 * GI, 2);
    fx_run(f, "two", fx_tmpl(f, 1000, GI, 2, 0), a, 0);
    fx_run(f, "four", fx_tmpl(f, 1000, GI, 4, 0), b, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 4, 0));
    cr_assert_str_eq(fx_msg(f, 34, p),
                     "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. no new claims to deallocate, "
                     "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No "
                     "preemption victims found for incoming pod.");
    cr_assert_str_eq(fx_msg(f, 33, p),
                     "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are "
                     "available: 3 No preemption victims found for incoming pod.");
    fx_free(f);
}

/* Preemption is dry-run: a node where removing the lower-priority pods is not enough reports its
 * filter reasons. */
Test(sched_examples, preemption_not_enough)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 32000, 128 * GI, 4);
    fx_run(f, "low", fx_tmpl(f, 1000, GI, 1, 0), a, 0);
    fx_run(f, "high", fx_tmpl(f, 1000, GI, 3, 500), a, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 2, 100));
    cr_assert_str_eq(fx_msg(f, 31, p), "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 "
                                       "nodes are available: 1 Insufficient nvidia.com/gpu.");
    fx_free(f);
}

/* Victim choice: lowest highest-victim priority, then fewest victims; reprieve by importance. */
Test(sched_examples, preemption_victims_and_node_choice)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 32000, 128 * GI, 4);
    int b = fx_node(f, "b", 0, 32000, 128 * GI, 4);
    /* a: two 1-GPU pods of priority 10 and one 2-GPU pod of priority 5 */
    int a1 = fx_run(f, "a1", fx_tmpl(f, 100, MI, 1, 10), a, 100);
    int a2 = fx_run(f, "a2", fx_tmpl(f, 100, MI, 1, 10), a, 50);
    int a3 = fx_run(f, "a3", fx_tmpl(f, 100, MI, 2, 5), a, 10);
    /* b: four 1-GPU pods of priority 20 */
    const struct gs_pod_template *b20 = fx_tmpl(f, 100, MI, 1, 20);
    for (int i = 0; i < 4; i++)
        fx_run(f, "b", b20, b, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 2, 100));
    struct gs_sched_config c = fx_cfg(31);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    /* On a, a1 and a2 (priority 10) are added back first and fit; a3 (2 GPUs) does not. */
    cr_assert_eq(r.nominated_node, a);
    cr_assert_eq(r.nvictims, 1);
    cr_assert_eq(r.victims[0], a3);
    (void)a1;
    (void)a2;
    gs_sched_free(s);
    fx_free(f);
}

/* Lower-priority pods nominated to the chosen node lose their nomination; a nominated pod of
 * higher priority reserves its room while filtering. */
Test(sched_examples, nominated_pods)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 32000, 128 * GI, 4);
    int b = fx_node(f, "b", 0, 32000, 128 * GI, 4);
    int high = fx_pod(f, "high", fx_tmpl(f, 100, MI, 3, 1000));
    f->w.pods[high].nominated_node = a;
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 2, 0));
    struct gs_sched_config c = fx_cfg(31);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, b); /* a has 1 GPU left for p once `high` is counted */
    cr_assert_eq(r.feasible, 1);
    /* b is full: p does not fit anywhere. */
    fx_run(f, "bfull", fx_tmpl(f, 100, MI, 4, 0), b, 0);
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, -1);
    cr_assert_str_eq(r.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes "
                                "are available: 2 No preemption victims found for incoming pod.");
    /* A lower-priority nominated pod does not block a higher-priority one and loses its
     * nomination when that one preempts on its node. */
    int low = fx_pod(f, "low", fx_tmpl(f, 100, MI, 4, -5));
    f->w.pods[low].nominated_node = b;
    cr_assert_eq(gs_sched_track_nominated(s, low), 0);
    int mid = fx_pod(f, "mid", fx_tmpl(f, 100, MI, 2, 10));
    gs_sched_cycle(s, mid, &r);
    cr_assert_eq(r.node, -1);
    cr_assert_eq(r.nominated_node, b);
    cr_assert_eq(r.nvictims, 1);
    cr_assert_eq(r.nlost, 1);
    cr_assert_eq(r.lost[0], low);
    gs_sched_free(s);
    fx_free(f);
}

/* The PostFilter part without DefaultPreemption: only DynamicResources' reason, no period. */
Test(sched_examples, postfilter_plugins_disabled)
{
    struct fx *f = fx_new();
    fx_node(f, "n", 0, 8000, 32 * GI, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 1, 0));
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_POST_FILTER], "DefaultPreemption", -1), 0));
    fx_cycle_cfg(f, &c, p);
    cr_assert_str_eq(f->msg, "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. no new claims to deallocate");
    c.dra_enabled = false;
    fx_cycle_cfg(f, &c, p);
    cr_assert_str_eq(f->msg, "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
    fx_free(f);
}

/* A nominated node that is now UnschedulableAndUnresolvable does not block preemption elsewhere
 * (PodEligibleToPreemptOthers), even with a terminating victim on it. */
Test(sched_examples, nominated_node_unresolvable_allows_preemption)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 8000, 32 * GI, 4);
    int b = fx_node(f, "b", 0, 8000, 32 * GI, 4);
    int va = fx_run(f, "va", fx_tmpl(f, 100, MI, 4, 0), a, 0);
    int vb = fx_run(f, "vb", fx_tmpl(f, 100, MI, 4, 0), b, 0);
    f->w.pods[va].terminating = true;
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 2, 10));
    f->w.pods[p].nominated_node = a;
    struct gs_cycle_result r = fx_cycle(f, 31, p);
    cr_assert_str_eq(r.message, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: not "
                                "eligible due to a terminating pod on the nominated node.");
    fx_taint(f, a, "broken", "", GS_EFFECT_NO_EXECUTE);
    r = fx_cycle(f, 31, p);
    cr_assert_str_eq(r.message, "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had "
                                "untolerated taint {broken: }.");
    cr_assert_eq(r.nominated_node, b);
    cr_assert_eq(r.nvictims, 1);
    (void)vb;
    fx_free(f);
}
