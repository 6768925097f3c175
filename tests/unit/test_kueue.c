/* Kueue: quota arithmetic (nominal, borrowing and lending limits, cohorts), flavor assignment
 * and its messages, queue ordering, classical preemption (reclaim), the requeue backoff, TAS
 * domain fit; the loader's Kueue objects and errors; and whole runs (StrictFIFO against
 * BestEffortFIFO, waitForPodsReady timeout, backoff and deactivation). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "models/admission/kueue.h"
#include "sim/run.h"
#include "sim/scenario.h"

/* ------------------------------------------------------------------ a hand-built spec */

static struct gs_world w;
static int GPU;
static struct gs_kueue_flavor flavors[2];
static struct gs_kueue_cq cqs[2];
static struct gs_kueue_resource_group groups[2];
static struct gs_kueue_flavor_quotas fq[2][2];
static struct gs_kueue_resource_quota rq[2][2];
static int covered[1];
static struct gs_kueue_spec spec;
static struct gs_kueue_quota q;

/* `ncq` ClusterQueues (in cohort "c" when `cohort`), each with flavor default-flavor of
 * `nominal` GPUs; limits -1 when unset. */
static void build(int ncq, bool cohort, int64_t nominal, int64_t borrowing, int64_t lending)
{
    gs_kueue_quota_free(&q);
    gs_world_free(&w);
    memset(&spec, 0, sizeof spec);
    cr_assert_eq(gs_world_init(&w), 0);
    GPU = gs_res_intern(&w.res, &w.arena, "nvidia.com/gpu");
    memset(flavors, 0, sizeof flavors);
    flavors[0].name = "default-flavor";
    flavors[1].name = "spot";
    spec.flavors = flavors;
    spec.nflavors = 1;
    covered[0] = GPU;
    for (int c = 0; c < ncq; c++) {
        memset(&cqs[c], 0, sizeof cqs[c]);
        cqs[c].name = c == 0 ? "team-a" : "team-b";
        cqs[c].cohort = cohort ? "c" : NULL;
        cqs[c].selects_default = true;
        rq[c][0] = (struct gs_kueue_resource_quota){GPU, nominal, borrowing, lending};
        fq[c][0] = (struct gs_kueue_flavor_quotas){"default-flavor", 0, rq[c], 1};
        groups[c] = (struct gs_kueue_resource_group){covered, 1, fq[c], 1};
        cqs[c].groups = &groups[c];
        cqs[c].ngroups = 1;
    }
    spec.cqs = cqs;
    spec.ncqs = ncq;
    gs_kueue_spec_resolve(&spec);
    cr_assert_eq(gs_kueue_quota_init(&q, &spec), 0);
}

static void fini(void)
{
    gs_kueue_quota_free(&q);
    gs_world_free(&w);
}

TestSuite(kueue, .fini = fini);

static struct gs_kueue_usage gpus(int f, int64_t n)
{
    struct gs_kueue_usage u = {.n = 1};
    u.v[0] = (struct gs_kueue_fr_amount){f, GPU, n};
    return u;
}

static void assign(int cq, int64_t per_pod_gpus, int count, struct gs_kueue_assignment *a)
{
    static struct gs_pod_template t;
    memset(&t, 0, sizeof t);
    t.requests.v[GPU] = per_pod_gpus;
    gs_kueue_assign(&q, cq, &w.res, &t, &t.requests, count, a);
}

Test(kueue, nominal_quota_without_cohort)
{
    build(1, false, 24, -1, -1);
    struct gs_kueue_usage used = gpus(0, 2);
    gs_kueue_usage_apply(&q, 0, &used, +1);
    cr_expect_eq(gs_kueue_available(&q, 0, 0, GPU), 22);
    cr_expect_eq(gs_kueue_potential_available(&q, 0, 0, GPU), 24);
    struct gs_kueue_assignment a;
    assign(0, 8, 2, &a);
    cr_expect_eq(a.mode, GS_KQ_FIT);
    cr_expect_not(a.borrows);
    cr_expect_eq(a.flavor, 0);
    cr_expect_eq(a.usage.n, 1);
    cr_expect_eq(a.usage.v[0].amount, 16);
    cr_expect_str_empty(a.reasons);
    assign(0, 10, 3, &a);
    cr_expect_eq(a.mode, GS_KQ_NOFIT);
    cr_expect_str_eq(a.reasons, "insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered "
                                "podsets requests (0) + current podset request (30) > maximum capacity (24)");
    struct gs_kueue_usage more = gpus(0, 18);
    gs_kueue_usage_apply(&q, 0, &more, +1); /* 20 used */
    assign(0, 8, 1, &a);
    cr_expect_eq(a.mode, GS_KQ_PREEMPT); /* fits the nominal quota once something is preempted */
    cr_expect_str_eq(a.reasons, "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 4 more needed");
    cr_expect_eq(a.need_preemption.n, 1);
}

Test(kueue, cohort_borrowing_and_borrowing_limit)
{
    build(2, true, 8, -1, -1);
    /* team-b idle: team-a can use all 16 GPUs of the cohort */
    cr_expect_eq(gs_kueue_available(&q, 0, 0, GPU), 16);
    cr_expect_eq(gs_kueue_potential_available(&q, 0, 0, GPU), 16);
    struct gs_kueue_assignment a;
    assign(0, 8, 2, &a);
    cr_expect_eq(a.mode, GS_KQ_FIT);
    cr_expect(a.borrows);
    struct gs_kueue_usage b = gpus(0, 4);
    gs_kueue_usage_apply(&q, 1, &b, +1);
    cr_expect_eq(gs_kueue_available(&q, 0, 0, GPU), 12);
    cr_expect(eq(int, gs_kueue_cq_borrowing(&q, 1, &b), 0));
    /* borrowingLimit 4: at most nominal + 4 */
    build(2, true, 8, 4, -1);
    cr_expect_eq(gs_kueue_potential_available(&q, 0, 0, GPU), 12);
    cr_expect_eq(gs_kueue_available(&q, 0, 0, GPU), 12);
    assign(0, 8, 2, &a);
    cr_expect_eq(a.mode, GS_KQ_NOFIT);
    cr_expect_str_eq(a.reasons, "insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered "
                                "podsets requests (0) + current podset request (16) > maximum capacity (12)");
}

Test(kueue, lending_limit)
{
    build(2, true, 8, -1, 2); /* each lends only 2: 6 guaranteed */
    cr_expect_eq(gs_kueue_guaranteed(&q, 1, 0, GPU), 6);
    cr_expect_eq(gs_kueue_potential_available(&q, 0, 0, GPU), 6 + 4);
    cr_expect_eq(gs_kueue_available(&q, 0, 0, GPU), 10);
    struct gs_kueue_usage a_use = gpus(0, 9); /* 6 local + 3 from the cohort */
    gs_kueue_usage_apply(&q, 0, &a_use, +1);
    cr_expect_eq(gs_kueue_available(&q, 0, 0, GPU), 1);
    cr_expect_eq(gs_kueue_available(&q, 1, 0, GPU), 6 + 1); /* its guaranteed 6, and 1 left in the cohort */
    cr_expect(gs_kueue_cq_borrowing(&q, 0, &a_use));
}

Test(kueue, flavor_order_and_taints)
{
    build(1, false, 8, -1, -1);
    /* two flavors: spot (4 GPUs, tainted) first, default-flavor (8) second */
    static struct gs_taint taint = {"spot", "true", GS_EFFECT_NO_SCHEDULE};
    flavors[1].node_taints = &taint;
    flavors[1].nnode_taints = 1;
    spec.nflavors = 2;
    static struct gs_kueue_resource_quota spot_rq;
    spot_rq = (struct gs_kueue_resource_quota){GPU, 4, -1, -1};
    fq[0][1] = fq[0][0];
    fq[0][0] = (struct gs_kueue_flavor_quotas){"spot", 1, &spot_rq, 1};
    groups[0].nflavors = 2;
    gs_kueue_spec_resolve(&spec);
    gs_kueue_quota_free(&q);
    cr_assert_eq(gs_kueue_quota_init(&q, &spec), 0);
    struct gs_kueue_assignment a;
    assign(0, 2, 1, &a); /* spot first, but its taint is not tolerated */
    cr_expect_eq(a.mode, GS_KQ_FIT);
    cr_expect_eq(a.flavor, 0);
    flavors[1].nnode_taints = 0;
    assign(0, 2, 1, &a);
    cr_expect_eq(a.flavor, 1); /* listed first */
    assign(0, 6, 1, &a);
    cr_expect_eq(a.flavor, 0); /* spot cannot hold 6 */
    assign(0, 6, 2, &a);
    cr_expect_eq(a.mode, GS_KQ_NOFIT);
    cr_expect_str_eq(a.reasons,
                     "insufficient quota for nvidia.com/gpu in flavor default-flavor, previously considered podsets "
                     "requests (0) + current podset request (12) > maximum capacity (8), insufficient quota for "
                     "nvidia.com/gpu in flavor spot, previously considered podsets requests (0) + current podset "
                     "request (12) > maximum capacity (4)");
    flavors[1].nnode_taints = 1;
    struct gs_kueue_usage full = gpus(0, 8);
    gs_kueue_usage_apply(&q, 0, &full, +1);
    assign(0, 2, 1, &a);
    cr_expect_str_eq(a.reasons, "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 2 more "
                                "needed, untolerated taint {spot true NoSchedule <nil>} in flavor spot");
}

Test(kueue, format_amounts)
{
    build(1, false, 1, -1, -1);
    char b[32];
    cr_expect_str_eq(gs_kueue_format_amount(&w.res, GS_RES_CPU, 8000, b, sizeof b), "8");
    cr_expect_str_eq(gs_kueue_format_amount(&w.res, GS_RES_CPU, 500, b, sizeof b), "500m");
    cr_expect_str_eq(gs_kueue_format_amount(&w.res, GS_RES_MEMORY, 64LL << 30, b, sizeof b), "64Gi");
    cr_expect_str_eq(gs_kueue_format_amount(&w.res, GS_RES_MEMORY, 2000000000, b, sizeof b), "1953125Ki");
    cr_expect_str_eq(gs_kueue_format_amount(&w.res, GS_RES_MEMORY, 1000, b, sizeof b), "1000");
    cr_expect_str_eq(gs_kueue_format_amount(&w.res, GPU, 8, b, sizeof b), "8");
}

Test(kueue, queue_order_and_backoff)
{
    struct gs_kueue_entry a = {.priority = 0, .queue_ts = 10, .seq = 1};
    struct gs_kueue_entry b = {.priority = 100, .queue_ts = 20, .seq = 2};
    struct gs_kueue_entry c = {.priority = 0, .queue_ts = 5, .seq = 3};
    cr_expect_lt(gs_kueue_queue_cmp(&b, &a), 0); /* priority first */
    cr_expect_lt(gs_kueue_queue_cmp(&c, &a), 0); /* then the older timestamp */
    cr_expect_eq(gs_kueue_requeue_backoff(60, 3600, 1), GS_SEC(60));
    cr_expect_eq(gs_kueue_requeue_backoff(60, 3600, 2), GS_SEC(120));
    cr_expect_eq(gs_kueue_requeue_backoff(60, 3600, 6), GS_SEC(1920));
    cr_expect_eq(gs_kueue_requeue_backoff(60, 3600, 7), GS_SEC(3600));
    cr_expect_eq(gs_kueue_requeue_backoff(60, 3600, 40), GS_SEC(3600));
    cr_expect_not(gs_kueue_requeue_exhausted(-1, 1000));
    cr_expect(gs_kueue_requeue_exhausted(0, 0));
    cr_expect_not(gs_kueue_requeue_exhausted(2, 1));
    cr_expect(gs_kueue_requeue_exhausted(2, 2));
}

Test(kueue, reclaim_within_cohort)
{
    build(2, true, 8, -1, -1);
    cqs[0].reclaim_within_cohort = GS_KQ_ANY;
    /* team-b runs b1 (8, nominal) and b2 (8, borrowed); team-a wants 8 back */
    struct gs_kueue_entry adm[2] = {
        {.cq = 1, .priority = 0, .reserved_at = 0, .seq = 0, .usage = gpus(0, 8)},
        {.cq = 1, .priority = 0, .reserved_at = 1, .seq = 1, .usage = gpus(0, 8)},
    };
    for (int i = 0; i < 2; i++)
        gs_kueue_usage_apply(&q, 1, &adm[i].usage, +1);
    struct gs_kueue_assignment a;
    assign(0, 8, 1, &a);
    cr_assert_eq(a.mode, GS_KQ_PREEMPT);
    cr_expect_str_eq(a.reasons, "insufficient unused quota for nvidia.com/gpu in flavor default-flavor, 8 more needed");
    struct gs_kueue_entry wl = {.cq = 0, .priority = 0, .queue_ts = 5, .seq = 2};
    int targets[2];
    const char *why[2];
    int nt = -1;
    cr_assert_eq(gs_kueue_preemption_targets(&q, &wl, &a, adm, 2, targets, why, &nt), 0);
    cr_assert_eq(nt, 1);
    cr_expect_eq(targets[0], 1); /* the most recently admitted */
    cr_expect_str_eq(why[0], "InCohortReclamation");
    cr_expect_eq(gs_kueue_usage_of(&q, 1, 0, GPU), 16); /* the search restored the usage */
    /* reclaimWithinCohort Never: no candidates */
    cqs[0].reclaim_within_cohort = GS_KQ_NEVER;
    cr_assert_eq(gs_kueue_preemption_targets(&q, &wl, &a, adm, 2, targets, why, &nt), 0);
    cr_expect_eq(nt, 0);
    /* LowerPriority: only lower-priority borrowers */
    cqs[0].reclaim_within_cohort = GS_KQ_LOWER_PRIORITY;
    cr_assert_eq(gs_kueue_preemption_targets(&q, &wl, &a, adm, 2, targets, why, &nt), 0);
    cr_expect_eq(nt, 0);
    wl.priority = 10;
    cr_assert_eq(gs_kueue_preemption_targets(&q, &wl, &a, adm, 2, targets, why, &nt), 0);
    cr_expect_eq(nt, 1);
}

Test(kueue, preemption_within_cluster_queue)
{
    build(1, false, 8, -1, -1);
    cqs[0].within_cluster_queue = GS_KQ_LOWER_PRIORITY;
    struct gs_kueue_entry adm[2] = {
        {.cq = 0, .priority = 5, .reserved_at = 0, .seq = 0, .usage = gpus(0, 4)},
        {.cq = 0, .priority = 1, .reserved_at = 1, .seq = 1, .usage = gpus(0, 4)},
    };
    for (int i = 0; i < 2; i++)
        gs_kueue_usage_apply(&q, 0, &adm[i].usage, +1);
    struct gs_kueue_assignment a;
    assign(0, 4, 1, &a);
    cr_assert_eq(a.mode, GS_KQ_PREEMPT);
    struct gs_kueue_entry wl = {.cq = 0, .priority = 10, .seq = 2};
    int targets[2], nt;
    const char *why[2];
    cr_assert_eq(gs_kueue_preemption_targets(&q, &wl, &a, adm, 2, targets, why, &nt), 0);
    cr_assert_eq(nt, 1);
    cr_expect_eq(targets[0], 1); /* the lowest priority */
    cr_expect_str_eq(why[0], "InClusterQueue");
}

/* ------------------------------------------------------------------ TAS */

static const char *const v[4][2] = {{"r0", "n0"}, {"r0", "n1"}, {"r1", "n2"}, {"r1", "n3"}};

static void leaves4(struct gs_kueue_tas_leaf *l, int c0, int c1, int c2, int c3)
{
    int caps[4] = {c0, c1, c2, c3};
    for (int i = 0; i < 4; i++)
        l[i] = (struct gs_kueue_tas_leaf){v[i], caps[i]};
}

Test(kueue, tas_required_waits_instead_of_splitting)
{
    struct gs_kueue_tas_leaf l[4];
    int out[4], scratch[8], fit;
    leaves4(l, 1, 0, 1, 0); /* one pod per rack */
    cr_expect_not(gs_kueue_tas_assign(l, 4, 2, 0, GS_KQ_TAS_REQUIRED, 2, out, scratch, &fit));
    cr_expect_eq(fit, 1);
    /* preferred: splits over the racks */
    cr_assert(gs_kueue_tas_assign(l, 4, 2, 0, GS_KQ_TAS_PREFERRED, 2, out, scratch, &fit));
    cr_expect_eq(out[0] + out[2], 2);
    cr_expect_eq(out[1] + out[3], 0);
    /* three pods: preferred cannot fit the cluster either */
    cr_expect_not(gs_kueue_tas_assign(l, 4, 2, 0, GS_KQ_TAS_PREFERRED, 3, out, scratch, &fit));
    cr_expect_eq(fit, 2);
}

Test(kueue, tas_best_fit)
{
    struct gs_kueue_tas_leaf l[4];
    int out[4], scratch[8], fit;
    leaves4(l, 2, 2, 1, 1); /* rack r0 holds 4, r1 holds 2 */
    cr_assert(gs_kueue_tas_assign(l, 4, 2, 0, GS_KQ_TAS_REQUIRED, 2, out, scratch, &fit));
    cr_expect_eq(out[2], 1); /* BestFit: the rack with the least room that holds both */
    cr_expect_eq(out[3], 1);
    cr_assert(gs_kueue_tas_assign(l, 4, 2, 0, GS_KQ_TAS_REQUIRED, 3, out, scratch, &fit));
    cr_expect_eq(out[0] + out[1], 3);
    cr_expect_eq(out[0], 2); /* the biggest child first, the rest in the smallest that holds it */
    cr_assert(gs_kueue_tas_assign(l, 4, 2, 1, GS_KQ_TAS_REQUIRED, 2, out, scratch, &fit));
    cr_expect_eq(out[0], 2); /* one host */
    cr_expect_not(gs_kueue_tas_assign(l, 4, 2, 1, GS_KQ_TAS_REQUIRED, 3, out, scratch, &fit));
    cr_expect_eq(fit, 2);
    /* preferred at hostname: a rack when no host holds them */
    cr_assert(gs_kueue_tas_assign(l, 4, 2, 1, GS_KQ_TAS_PREFERRED, 3, out, scratch, &fit));
    cr_expect_eq(out[0] + out[1], 3);
}

/* ------------------------------------------------------------------ the loader */

#define HEAD                                                                                                   \
    "apiVersion: gpusim/v1alpha1\n"                                                                            \
    "kind: Scenario\n"                                                                                         \
    "metadata: {name: t}\n"                                                                                    \
    "spec:\n"                                                                                                  \
    "  cluster:\n"                                                                                             \
    "    nodePools:\n"                                                                                         \
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: " \
    "1Ti}}\n"                                                                                                  \
    "  objects:\n"
/* line 9 is the first object line */

static int load_err(const char *body, struct gs_error *err)
{
    static char text[1 << 14];
    snprintf(text, sizeof text, "%s%s", HEAD, body);
    struct gs_scenario sc;
    int rc = gs_scenario_load_string("t.yaml", text, &sc, err);
    if (rc == 0)
        gs_scenario_free(&sc);
    return rc;
}

static void bad(const char *body, int code, int line, const char *msg)
{
    struct gs_error err = {0};
    int rc = load_err(body, &err);
    cr_expect_eq(rc, code, "rc %d: %s", rc, err.msg);
    cr_expect_eq(err.line, line, "line %d: %s", err.line, err.msg);
    cr_expect(strstr(err.msg, msg) != NULL, "message: %s", err.msg);
}

#define CQ(spec_) "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ClusterQueue, metadata: {name: cq}, spec: " spec_ "}\n"

Test(kueue, loader_objects)
{
    static const char body[] =
        "  - {apiVersion: kueue.x-k8s.io/v1alpha1, kind: Topology, metadata: {name: t}, spec: {levels: "
        "[{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}}\n"
        "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ResourceFlavor, metadata: {name: f}, spec: {nodeLabels: {a: "
        "b}, topologyName: t}}\n" CQ(
            "{namespaceSelector: {}, cohort: co, queueingStrategy: StrictFIFO, preemption: {reclaimWithinCohort: Any, "
            "withinClusterQueue: LowerPriority}, resourceGroups: [{coveredResources: [cpu, nvidia.com/gpu], flavors: "
            "[{name: f, resources: [{name: cpu, nominalQuota: 500m}, {name: nvidia.com/gpu, nominalQuota: 8, "
            "borrowingLimit: 2, lendingLimit: 4}]}]}]}")
        "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: LocalQueue, metadata: {name: lq}, spec: {clusterQueue: cq}}\n"
        "  scheduler:\n"
        "    admission: kueue\n"
        "    kueueConfig: {apiVersion: config.kueue.x-k8s.io/v1beta1, kind: Configuration, waitForPodsReady: "
        "{enable: true, timeout: 2m, requeuingStrategy: {backoffLimitCount: 3, backoffBaseSeconds: 10}}}\n";
    static char text[1 << 14];
    snprintf(text, sizeof text, "%s%s", HEAD, body);
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("t.yaml", text, &sc, &err), 0, "%d:%d %s", err.line, err.col, err.msg);
    const struct gs_kueue_spec *s = sc.kueue;
    cr_assert_not_null(s);
    cr_expect_eq(s->ntopologies, 1);
    cr_expect_eq(s->flavors[0].topology, 0);
    const struct gs_kueue_cq *cq = &s->cqs[0];
    cr_expect_str_eq(cq->cohort, "co");
    cr_expect_eq(cq->strategy, GS_KQ_STRICT_FIFO);
    cr_expect_eq(cq->reclaim_within_cohort, GS_KQ_ANY);
    cr_expect_eq(cq->within_cluster_queue, GS_KQ_LOWER_PRIORITY);
    cr_expect(cq->active);
    cr_expect(cq->selects_default);
    cr_expect_eq(cq->groups[0].flavors[0].res[0].nominal, 500);
    cr_expect_eq(cq->groups[0].flavors[0].res[1].nominal, 8);
    cr_expect_eq(cq->groups[0].flavors[0].res[1].borrowing_limit, 2);
    cr_expect_eq(cq->groups[0].flavors[0].res[1].lending_limit, 4);
    cr_expect_eq(s->lqs[0].cq, 0);
    cr_expect(s->config.wait_for_pods_ready);
    cr_expect_eq(s->config.pods_ready_timeout, GS_SEC(120));
    cr_expect_eq(s->config.backoff_limit_count, 3);
    cr_expect_eq(s->config.backoff_base_s, 10);
    cr_expect_eq(s->config.backoff_max_s, 3600);
    cr_expect_str_eq(sc.admission, "kueue");
    gs_scenario_free(&sc);
}

/* Keys that change which workloads Kueue admits but gpusim does not model are refused, never
 * accepted and ignored. */
Test(kueue, loader_refuses_what_it_does_not_model)
{
    static const struct {
        const char *body;
        const char *path;
    } cases[] = {
        {CQ("{namespaceSelector: {matchExpressions: [{key: a, operator: Exists}]}, resourceGroups: []}"),
         "spec.objects[0].spec.namespaceSelector.matchExpressions"},
        {"  scheduler:\n    kueueConfig: {manageJobsWithoutQueueName: true}\n", "spec.scheduler.kueueConfig.manageJobsWithoutQueueName"},
        {"  scheduler:\n    kueueConfig: {featureGates: {TopologyAwareScheduling: true}}\n", "spec.scheduler.kueueConfig.featureGates"},
        {"  scheduler:\n    kueueConfig: {integrations: {frameworks: [batch/job]}}\n", "spec.scheduler.kueueConfig.integrations"},
        {"  scheduler:\n    kueueConfig: {waitForPodsReady: {enable: true, recoveryTimeout: 3m}}\n",
         "spec.scheduler.kueueConfig.waitForPodsReady.recoveryTimeout"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gs_error err = {0};
        char want[256];
        snprintf(want, sizeof want, "not supported yet: %s", cases[i].path);
        int rc = load_err(cases[i].body, &err);
        cr_expect(eq(int, rc, GS_ENOTSUP), "case %zu: %s", i, err.msg);
        cr_expect(eq(str, err.msg, want), "case %zu", i);
    }
}

Test(kueue, loader_errors)
{
    bad(CQ("{resourceGroups: [], cohortz: x}"), GS_EINVAL, 9, "unknown key 'cohortz'");
    bad(CQ("{fairSharing: {weight: 1}}"), GS_ENOTSUP, 9, "not supported yet: spec.objects[0].spec.fairSharing");
    bad(CQ("{resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: f, resources: [{name: "
           "nvidia.com/gpu, nominalQuota: 8, borrowingLimit: 2}]}]}]}"),
        GS_EINVAL, 9, "borrowingLimit: Invalid value: must be nil when cohort is empty");
    bad(CQ("{cohort: c, resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: f, resources: [{name: "
           "nvidia.com/gpu, nominalQuota: 8, lendingLimit: 9}]}]}]}"),
        GS_EINVAL, 9, "must be less than or equal to the nominalQuota");
    bad(CQ("{resourceGroups: [{coveredResources: [cpu, nvidia.com/gpu], flavors: [{name: f, resources: [{name: "
           "nvidia.com/gpu, nominalQuota: 8}]}]}]}"),
        GS_EINVAL, 9, "flavors must have the same number of resources as the coveredResources");
    bad(CQ("{resourceGroups: [{coveredResources: [cpu, nvidia.com/gpu], flavors: [{name: f, resources: [{name: "
           "nvidia.com/gpu, nominalQuota: 8}, {name: cpu, nominalQuota: 1}]}]}]}"),
        GS_EINVAL, 9, "resources must be in the same order as the coveredResources");
    bad(CQ("{queueingStrategy: Fifo}"), GS_EINVAL, 9, "queueingStrategy");
    bad(CQ("{}") CQ("{}"), GS_EINVAL, 10, "clusterqueues.kueue.x-k8s.io \"cq\" already exists");
    bad("  - {apiVersion: kueue.x-k8s.io/v1alpha1, kind: ClusterQueue, metadata: {name: q}}\n", GS_EINVAL, 9,
        "use kueue.x-k8s.io/v1beta1");
    bad("  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: LocalQueue, metadata: {name: q}, spec: {}}\n", GS_EINVAL, 9,
        "missing required field 'clusterQueue'");
    bad("  - {apiVersion: kueue.x-k8s.io/v1alpha1, kind: Topology, metadata: {name: t}, spec: {levels: [{nodeLabel: "
        "kubernetes.io/hostname}, {nodeLabel: rack}]}}\n",
        GS_EINVAL, 9, "can only be used at the lowest level");
    bad("    []\n  scheduler: {kueueConfig: {waitForPodsReady: {enable: true, timeout: 0s}}}\n", GS_EINVAL, 10,
        "must be greater than 0");
    bad("    []\n  scheduler: {kueueConfig: {waitForPodsReady: {enabled: true}}}\n", GS_EINVAL, 10,
        "unknown key 'enabled'");
}

/* ------------------------------------------------------------------ whole runs */

static char trace_path[256];

static int run_text(const char *yaml, struct gs_run_result *res)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-kueue-%d.db", (int)getpid());
    unlink(trace_path);
    struct gs_scenario sc;
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("t.yaml", yaml, &sc, &err);
    cr_assert_eq(rc, 0, "load: %d:%d %s", err.line, err.col, err.msg);
    struct gs_run_opts o = {.trace_path = trace_path};
    char eb[256] = "";
    rc = gs_run(&sc, &o, res, eb, sizeof eb);
    for (int i = 0; i < sc.nexpects; i++)
        if (!sc.expects[i].pass)
            cr_log_error("FAIL %s: %s", sc.expects[i].what, sc.expects[i].detail ? sc.expects[i].detail : "");
    gs_scenario_free(&sc);
    unlink(trace_path);
    return rc;
}

#define RUN_HEAD                                                                                               \
    "apiVersion: gpusim/v1alpha1\n"                                                                            \
    "kind: Scenario\n"                                                                                         \
    "metadata: {name: t}\n"                                                                                    \
    "spec:\n"                                                                                                  \
    "  horizon: 20m\n"                                                                                         \
    "  cluster:\n"                                                                                             \
    "    nodePools:\n"                                                                                         \
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: " \
    "1Ti}}\n"

#define JOB(name, gpus, at, dur)                                                                               \
    "  - manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: " name ", labels: "                     \
    "{kueue.x-k8s.io/queue-name: lq}}, spec: {template: {spec: {restartPolicy: Never, containers: [{name: m, " \
    "resources: {limits: {nvidia.com/gpu: " gpus "}}}]}}}}\n"                                                  \
    "    arrival: {at: " at "}\n"                                                                              \
    "    duration: " dur "\n"

static const char *strategy_yaml(const char *strategy, const char *expect)
{
    static char text[1 << 14];
    snprintf(text, sizeof text,
             RUN_HEAD "  scheduler: {admission: kueue}\n"
                      "  objects:\n"
                      "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ResourceFlavor, metadata: {name: f}}\n"
                      "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ClusterQueue, metadata: {name: cq}, spec: "
                      "{namespaceSelector: {}, queueingStrategy: %s, resourceGroups: [{coveredResources: "
                      "[nvidia.com/gpu], flavors: [{name: f, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]}]}}\n"
                      "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: LocalQueue, metadata: {name: lq}, spec: "
                      "{clusterQueue: cq}}\n"
                      "  workloads:\n" JOB("first", "4", "0s", "10m") JOB("big", "8", "1m", "1m")
                          JOB("small", "4", "2m", "1m") "  expect:\n%s",
             strategy, expect);
    return text;
}

Test(kueue, best_effort_fifo_lets_later_ones_pass)
{
    struct gs_run_result res;
    cr_assert_eq(run_text(strategy_yaml("BestEffortFIFO",
                                        "  - {object: {kind: Workload, name: small}, at: 5m, conditions: [{type: "
                                        "Admitted, status: 'True'}]}\n"
                                        "  - {object: {kind: Workload, name: big}, at: 5m, conditions: [{type: "
                                        "QuotaReserved, status: 'False', reason: Pending, message: \"couldn't assign "
                                        "flavors to pod set main: insufficient unused quota for nvidia.com/gpu in "
                                        "flavor f, 4 more needed\"}]}\n"
                                        "  - {object: {kind: Workload, name: big}, at: 11m, conditions: [{type: "
                                        "Admitted, status: 'True'}]}\n"),
                          &res),
                 0);
    cr_expect_eq(res.checks_total, 3);
    cr_expect_eq(res.checks_failed, 0);
}

Test(kueue, strict_fifo_blocks_the_queue)
{
    struct gs_run_result res;
    cr_assert_eq(run_text(strategy_yaml("StrictFIFO",
                                        "  - {object: {kind: Workload, name: big}, at: 5m, conditions: [{type: "
                                        "QuotaReserved, status: 'False', reason: Pending}]}\n"
                                        "  - {pods: {workload: small}, at: 5m, count: 0}\n"
                                        "  - {object: {kind: Workload, name: big}, at: 10m30s, conditions: [{type: "
                                        "Admitted, status: 'True'}]}\n"
                                        "  - {pods: {workload: small}, at: 10m30s, count: 0}\n"
                                        "  - {object: {kind: Workload, name: small}, at: 11m30s, conditions: [{type: "
                                        "Admitted, status: 'True'}]}\n"),
                          &res),
                 0);
    cr_expect_eq(res.checks_total, 5);
    cr_expect_eq(res.checks_failed, 0);
}

Test(kueue, wait_for_pods_ready_timeout_backoff_deactivation)
{
    static const char yaml[] =
        RUN_HEAD "  scheduler:\n"
                 "    admission: kueue\n"
                 "    kueueConfig: {waitForPodsReady: {enable: true, timeout: 1m, requeuingStrategy: "
                 "{backoffBaseSeconds: 10, backoffLimitCount: 1}}}\n"
                 "  objects:\n"
                 "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ResourceFlavor, metadata: {name: f}}\n"
                 "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ClusterQueue, metadata: {name: cq}, spec: "
                 "{namespaceSelector: {}, resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: f, "
                 "resources: [{name: nvidia.com/gpu, nominalQuota: 16}]}]}]}}\n"
                 "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: LocalQueue, metadata: {name: lq}, spec: "
                 "{clusterQueue: cq}}\n"
                 "  workloads:\n"
                 "  - manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: j, labels: "
                 "{kueue.x-k8s.io/queue-name: lq}}, spec: {parallelism: 2, completions: 2, template: {spec: "
                 "{restartPolicy: Never, containers: [{name: m, resources: {limits: {nvidia.com/gpu: 8}}}]}}}}\n"
                 "    arrival: {at: 0s}\n"
                 "  expect:\n"
                 "  - {object: {kind: Workload, name: j}, at: 30s, conditions: [{type: PodsReady, status: 'False', "
                 "reason: WaitForStart}]}\n"
                 "  - {pods: {workload: j, phase: Running}, at: 30s, count: 1}\n"
                 "  - {object: {kind: Workload, name: j}, at: 1m5s, conditions: [{type: Evicted, status: 'True', "
                 "reason: PodsReadyTimeout, message: Exceeded the PodsReady timeout default/j}, {type: Requeued, "
                 "status: 'False', reason: PodsReadyTimeout}, {type: Admitted, status: 'False'}]}\n"
                 "  - {pods: {workload: j}, at: 1m5s, count: 0}\n"
                 "  - {object: {kind: Workload, name: j}, at: 1m15s, conditions: [{type: Requeued, status: 'True', "
                 "reason: BackoffFinished}, {type: Admitted, status: 'True'}]}\n"
                 "  - {object: {kind: Workload, name: j}, at: 3m, conditions: [{type: Evicted, status: 'True', "
                 "reason: DeactivatedDueToRequeuingLimitExceeded}, {type: QuotaReserved, status: 'False', message: "
                 "The workload is deactivated due to exceeding the maximum number of re-queuing retries}]}\n"
                 "  - {pods: {workload: j}, at: 10m, count: 0}\n";
    struct gs_run_result res;
    cr_assert_eq(run_text(yaml, &res), 0);
    cr_expect_eq(res.checks_total, 7);
    cr_expect_eq(res.checks_failed, 0);
}

Test(kueue, missing_local_queue)
{
    static const char yaml[] =
        RUN_HEAD "  scheduler: {admission: kueue}\n"
                 "  workloads:\n" JOB("j", "1", "0s", "1m")
                 "  expect:\n"
                 "  - {object: {kind: Workload, name: j}, at: 1m, conditions: [{type: QuotaReserved, status: 'False', "
                 "reason: Inadmissible, message: LocalQueue lq doesn't exist}]}\n"
                 "  - {pods: {workload: j}, count: 0}\n";
    struct gs_run_result res;
    cr_assert_eq(run_text(yaml, &res), 0);
    cr_expect_eq(res.checks_failed, 0);
}
