/* PodGroup gang semantics: the Coscheduling plugin's rules (models/admission/gang.c), its
 * PreFilter and PostFilter texts inside a scheduling cycle, and Permit timing in a whole run. */
#include <sqlite3.h>
#include <unistd.h>

#include "models/admission/gang.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "sched_fixture.h"
#include "trace_query.h"

#include <criterion/new/assert.h>

/* A PodGroup `name` of min_member over the given pods (index order = creation order). */
static int fx_group(struct fx *f, const char *name, int min_member, const int *pods, int n)
{
    struct gs_world *w = &f->w;
    cr_assert_eq(gs_array_grow((void **)&w->groups, &w->groups_cap, w->ngroups + 1, sizeof *w->groups), 0);
    int gi = w->ngroups++;
    struct gs_group *g = &w->groups[gi];
    memset(g, 0, sizeof *g);
    g->name = name;
    g->workload = -1;
    g->min_member = min_member;
    g->first_pod = g->last_pod = -1;
    g->schedule_timeout_us = -1;
    for (int i = 0; i < n; i++) {
        if (g->last_pod >= 0)
            w->pods[g->last_pod].next_in_group = pods[i];
        else
            g->first_pod = pods[i];
        g->last_pod = pods[i];
        g->npods++;
        w->pods[pods[i]].group = gi;
    }
    return gi;
}

Test(gang, prefilter_sibling_count_and_backoff)
{
    struct fx *f = fx_new();
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int p[3] = {fx_pod(f, "pg-0", t), fx_pod(f, "pg-1", t), -1};
    int gi = fx_group(f, "pg", 3, p, 2);
    char buf[300];
    cr_assert_str_eq(gs_gang_prefilter(&f->w, p[1], 0, 0, buf, sizeof buf),
                     "pre-filter pod pg-1 cannot find enough sibling pods, current pods number: 2, minMember of group: 3");
    /* A deleted sibling no longer counts. */
    f->w.pods[p[0]].deleted = true;
    cr_assert_str_eq(gs_gang_prefilter(&f->w, p[1], 0, 0, buf, sizeof buf),
                     "pre-filter pod pg-1 cannot find enough sibling pods, current pods number: 1, minMember of group: 3");
    f->w.pods[p[0]].deleted = false;
    p[2] = fx_pod(f, "pg-2", t);
    f->w.pods[p[1]].next_in_group = p[2];
    f->w.groups[gi].last_pod = p[2];
    f->w.pods[p[2]].group = gi;
    cr_assert_null(gs_gang_prefilter(&f->w, p[1], 0, 0, buf, sizeof buf));
    /* podGroupBackoffSeconds: rejected until the backoff ends (the plugin keeps the time). */
    cr_assert_str_eq(gs_gang_prefilter(&f->w, p[1], 60, 59, buf, sizeof buf), "podGroup default/pg failed recently");
    cr_assert_null(gs_gang_prefilter(&f->w, p[1], 60, 60, buf, sizeof buf));
    /* A pod outside any group passes. */
    int solo = fx_pod(f, "solo", t);
    cr_assert_null(gs_gang_prefilter(&f->w, solo, 60, 0, buf, sizeof buf));
    fx_free(f);
}

Test(gang, postfilter_ten_percent_rule_and_permit)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "gpu", 0, 64000, 256 * GI, 16);
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int p[10];
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof name, "pg-%d", i);
        p[i] = fx_pod(f, name, t);
    }
    fx_group(f, "pg", 10, p, 10);
    char buf[300];
    /* 8 of 10 assigned: 20 % short, the group is rejected. */
    for (int i = 0; i < 8; i++)
        gs_world_assign(&f->w, p[i], n);
    cr_assert_eq(gs_gang_assigned(&f->w, 0), 8);
    cr_assert(gs_gang_postfilter(&f->w, p[9], buf, sizeof buf));
    cr_assert_str_eq(buf, "PodGroup default/pg gets rejected due to Pod pg-9 is unschedulable even after PostFilter");
    cr_assert_not(gs_gang_permit(&f->w, p[7]));
    /* 9 of 10: exactly 10 % short, the plugin lets the next pods try. */
    gs_world_assign(&f->w, p[8], n);
    cr_assert_not(gs_gang_postfilter(&f->w, p[9], buf, sizeof buf));
    cr_assert_not(gs_gang_permit(&f->w, p[8]));
    /* 10 of 10: Permit allows. */
    gs_world_assign(&f->w, p[9], n);
    cr_assert(gs_gang_permit(&f->w, p[9]));
    /* GPUs held by the incomplete group (none Running yet): 10. */
    cr_assert_eq(gs_gang_gpus_held_incomplete(&f->w, f->gpu), 10);
    for (int i = 0; i < 10; i++)
        f->w.pods[p[i]].phase = GS_PHASE_RUNNING;
    cr_assert_eq(gs_gang_running(&f->w, 0), 10);
    cr_assert_eq(gs_gang_gpus_held_incomplete(&f->w, f->gpu), 0);
    fx_free(f);
}

Test(gang, wait_time_and_timeout_text)
{
    struct fx *f = fx_new();
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int p = fx_pod(f, "pg-0", t);
    int gi = fx_group(f, "pg", 2, &p, 1);
    cr_assert_eq(gs_gang_wait_time(&f->w, gi, GS_SEC(60)), GS_SEC(60));
    f->w.groups[gi].schedule_timeout_us = GS_SEC(30);
    cr_assert_eq(gs_gang_wait_time(&f->w, gi, GS_SEC(60)), GS_SEC(30));
    char buf[100];
    cr_assert_str_eq(gs_gang_timeout_message(GS_SEC(30), buf, sizeof buf),
                     "rejected due to timeout after waiting 30s at plugin Coscheduling");
    cr_assert_str_eq(gs_gang_timeout_message(GS_SEC(60), buf, sizeof buf),
                     "rejected due to timeout after waiting 1m0s at plugin Coscheduling");
    fx_free(f);
}

/* The PreFilter rejection inside a 1.34 cycle: no histogram, every node "not helpful" for
 * preemption, and the Coscheduling PostFilter text last. */
Test(gang, cycle_message_with_coscheduling)
{
    struct fx *f = fx_new();
    fx_node(f, "gpu", 0, 64000, 256 * GI, 8);
    fx_node(f, "gpu", 1, 64000, 256 * GI, 8);
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int p = fx_pod(f, "pg-0", t);
    fx_group(f, "pg", 2, &p, 1);
    struct gs_sched_config c = fx_cfg(34);
    /* plugins: {multiPoint: {enabled: [Coscheduling]}, queueSort: {disabled: [PrioritySort]}} */
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "Coscheduling", 0, -1), 0));
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_QUEUE_SORT], "PrioritySort", -1), 0));
    struct gs_cycle_result r = fx_cycle_cfg(f, &c, p);
    cr_assert_eq(r.node, -1);
    cr_assert(r.reject_group);
    cr_assert(eq(u32, r.unsched_plugins & (1u << GS_PL_COSCHEDULING), 1u << GS_PL_COSCHEDULING));
    cr_assert_str_eq(r.message,
                     "0/2 nodes are available: pre-filter pod pg-0 cannot find enough sibling pods, current pods "
                     "number: 1, minMember of group: 2. no new claims to deallocate, preemption: 0/2 nodes are "
                     "available: 2 Preemption is not helpful for scheduling., PodGroup default/pg gets rejected due "
                     "to Pod pg-0 is unschedulable even after PostFilter");
    /* Without the plugin the same pod just fits. */
    c = fx_cfg(34);
    r = fx_cycle_cfg(f, &c, p);
    cr_assert_geq(r.node, 0);
    fx_free(f);
}

/* Permit timing in a run: nine of ten pods fit and wait (the tenth is short by only 10 %, so
 * the PostFilter does not reject the group); at the group's timeout (20 s) the first waiting
 * pod is rejected, Unreserve rejects the other eight, and the nine GPUs come back. */
static const char permit_yaml[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: permit}\n"
    "spec:\n"
    "  horizon: 25s\n"
    "  sampleInterval: 5s\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 9, gpu: {product: NVIDIA-L4, count: 1}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  scheduler:\n"
    "    config:\n"
    "      profiles:\n"
    "      - plugins:\n"
    "          multiPoint: {enabled: [{name: Coscheduling}]}\n"
    "          queueSort: {disabled: [{name: PrioritySort}]}\n"
    "        pluginConfig:\n"
    "        - {name: Coscheduling, args: {podGroupBackoffSeconds: 100}}\n"
    "  workloads:\n"
    "  - name: pg\n"
    "    replicas: 10\n"
    "    group: {minMember: 10, scheduleTimeoutSeconds: 20}\n"
    "    template: {spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n";

/* The rows of `sql` on the trace at `path` (trace_query.h). */
static char *query1(const char *path, const char *sql)
{
    return gs_test_query(path, sql);
}

Test(gang, permit_waits_then_times_out)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/gpusim-test-gang-%d.db", (int)getpid());
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("permit.yaml", permit_yaml, &sc, &err), 0, "%s:%d:%d: %s", err.file,
                 err.line, err.col, err.msg);
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char ebuf[256];
    cr_assert_eq(gs_run(&sc, &o, &res, ebuf, sizeof ebuf), 0, "%s", ebuf);
    /* Nine GPUs held while waiting (samples at 0, 5, 10, 15 s), none after the 20 s timeout
     * (samples at 20 s and at the 25 s horizon, where the final sample replaces the periodic
     * one: one row per time). */
    cr_assert_str_eq(query1(path, "SELECT group_concat(gpus_allocated, ',') FROM (SELECT gpus_allocated FROM sample "
                                  "WHERE pool = '' ORDER BY t_us)"),
                     "9,9,9,9,0,0");
    cr_assert_str_eq(query1(path, "SELECT group_concat(gpus_held_by_incomplete_groups, ',') FROM (SELECT "
                                  "gpus_held_by_incomplete_groups FROM sample WHERE pool = '' ORDER BY t_us)"),
                     "9,9,9,9,0,0");
    cr_assert_str_eq(query1(path, "SELECT t_us FROM pod_event WHERE message = 'rejected due to timeout after "
                                  "waiting 20s at plugin Coscheduling'"),
                     "20000000");
    cr_assert_str_eq(query1(path, "SELECT count(*) FROM pod_event WHERE message = 'rejection in Unreserve' AND "
                                  "t_us = 20000000"),
                     "8");
    /* No pod ever bound. */
    cr_assert_str_eq(query1(path, "SELECT count(*) FROM pod_event WHERE reason = 'Scheduled'"), "0");
    gs_scenario_free(&sc);
    unlink(path);
}

/* A PodGroup manifest and pods that join it through the scheduling.x-k8s.io/pod-group label;
 * a pod naming a PodGroup that does not exist is scheduled on its own. */
static const char manifest_yaml[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: pg}\n"
    "spec:\n"
    "  horizon: 1m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 2, gpu: {product: NVIDIA-L4, count: 1}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  scheduler: {admission: gang}\n"
    "  workloads:\n"
    "  - manifest: {apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, metadata: {name: train-group},\n"
    "               spec: {minMember: 3}}\n"
    "  - manifest:\n"
    "      apiVersion: batch/v1\n"
    "      kind: Job\n"
    "      metadata: {name: train}\n"
    "      spec:\n"
    "        parallelism: 3\n"
    "        completions: 3\n"
    "        template:\n"
    "          metadata: {labels: {scheduling.x-k8s.io/pod-group: train-group}}\n"
    "          spec:\n"
    "            restartPolicy: Never\n"
    "            containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
    "    arrival: {at: 1s}\n"
    "  - manifest:\n"
    "      apiVersion: v1\n"
    "      kind: Pod\n"
    "      metadata: {name: lone, labels: {scheduling.x-k8s.io/pod-group: nosuch}}\n"
    "      spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]}\n"
    "    arrival: {at: 2s}\n"
    "  expect:\n"
    "  - podGroup: train-group\n"
    "    phase: Pending\n"
    "  - pods: {workload: train, phase: Pending, messageContains: \"PodGroup default/train-group gets rejected\"}\n"
    "    count: 3\n"
    "  - pod: lone\n"
    "    phase: Running\n";

Test(gang, podgroup_manifest_and_label)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/gpusim-test-gang-pg-%d.db", (int)getpid());
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("pg.yaml", manifest_yaml, &sc, &err), 0, "%s:%d:%d: %s", err.file, err.line,
                 err.col, err.msg);
    cr_assert_eq(sc.world.workloads[0].kind, GS_WL_PODGROUP);
    cr_assert_eq(sc.world.workloads[0].group_min_member, 3);
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char ebuf[256];
    cr_assert_eq(gs_run(&sc, &o, &res, ebuf, sizeof ebuf), 0, "%s", ebuf);
    cr_assert_eq(res.checks_failed, 0, "%d checks failed", res.checks_failed);
    cr_assert_eq(res.checks_total, 3);
    /* The three Job pods are one PodGroup in the trace. */
    cr_assert_str_eq(query1(path, "SELECT count(*) FROM pod WHERE pod_group = 'train-group'"), "3");
    cr_assert_str_eq(query1(path, "SELECT count(*) FROM object WHERE kind = 'PodGroup' AND name = 'train-group'"), "1");
    gs_scenario_free(&sc);
    unlink(path);
}

/* A PodGroup that is always more than 10 % short, with podGroupBackoffSeconds 0 (the plugin's
 * default): each failure rejects the waiting siblings and Permit activates them again. The
 * siblings keep their backoff, so the clock moves and the run ends at its horizon. */
static const char spin_yaml[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: spin}\n"
    "spec:\n"
    "  horizon: 2m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 3}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  scheduler:\n"
    "    config:\n"
    "      profiles:\n"
    "      - plugins:\n"
    "          multiPoint: {enabled: [{name: Coscheduling}]}\n"
    "          queueSort: {disabled: [{name: PrioritySort}]}\n"
    "  workloads:\n"
    "  - name: pg\n"
    "    replicas: 10\n"
    "    group: {minMember: 10}\n"
    "    template: {spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n";

Test(gang, rejected_group_does_not_stop_the_clock)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/gpusim-test-gang-spin-%d.db", (int)getpid());
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("spin.yaml", spin_yaml, &sc, &err), 0, "%s", err.msg);
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char ebuf[256];
    cr_assert_eq(gs_run(&sc, &o, &res, ebuf, sizeof ebuf), 0, "%s", ebuf);
    cr_assert_eq(res.end, GS_MIN(2));
    cr_assert_lt(res.cycles, 2000, "%llu cycles in 2 minutes", (unsigned long long)res.cycles);
    /* The group keeps failing: its waiting pods are rejected again and again, never bound. */
    cr_assert_neq(atoi(query1(path, "SELECT count(*) FROM pod_event WHERE message = 'optimistic rejection in "
                                    "PostFilter'")),
                  0);
    cr_assert_str_eq(query1(path, "SELECT count(*) FROM pod_event WHERE reason = 'Scheduled'"), "0");
    gs_scenario_free(&sc);
    unlink(path);
}
