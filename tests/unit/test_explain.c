/* The replay (sim/replay.h) and `gpusim explain` (reports/explain.h) on the teaching scenarios:
 * the replayed world at T is the run's, and explain names the cause, the free GPUs per node and
 * the changes the filters accept. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/sched/sched.h"
#include "reports/explain.h"
#include "reports/explain_internal.h"
#include "sim/replay.h"
#include "sim/run.h"
#include "sim/scenario.h"

#define TEACHING GPUSIM_SOURCE_DIR "/scenarios/teaching/"

static char trace_path[256];

static void fini(void)
{
    if (trace_path[0])
        unlink(trace_path);
}

TestSuite(explain, .fini = fini);

/* Run scenario file `path` (with `sets`) to a trace at trace_path. */
static void run_file(const char *path, const char *const *sets, int nsets)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-explain-%d.db", (int)getpid());
    unlink(trace_path);
    struct gs_scenario sc;
    struct gs_error err = {0};
    int rc = gs_scenario_load(path, sets, nsets, -1, -1, &sc, &err);
    cr_assert(eq(int, rc, 0), "load: %s", err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS, .overrides = sets, .noverrides = nsets};
    struct gs_run_result res;
    char eb[256] = "";
    rc = gs_run(&sc, &o, &res, eb, sizeof eb);
    gs_scenario_free(&sc);
    cr_assert(eq(int, rc, 0), "run: %s", eb);
}

/* The first line of `text` that contains `needle` (without its newline), "" when none: a
 * value the assertions print in full. */
static char *line_with(const char *text, const char *needle)
{
    static char lines[8][2048];
    static int next;
    char *out = lines[next++ % 8];
    out[0] = '\0';
    const char *hit = text ? strstr(text, needle) : NULL;
    if (!hit)
        return out;
    const char *b = hit;
    while (b > text && b[-1] != '\n')
        b--;
    const char *e = strchr(hit, '\n');
    size_t n = e ? (size_t)(e - b) : strlen(b);
    if (n >= 2048)
        n = 2047;
    memcpy(out, b, n);
    out[n] = '\0';
    return out;
}

/* gs_report_explain into a string (caller frees with free). */
static char *explain(const char *pod, int64_t at, const char *scenario, int *rc, char *err, int errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct gs_explain_opts o = {.trace = trace_path, .pod = pod, .at_us = at, .scenario = scenario};
    *rc = gs_report_explain(&o, f, err, errlen);
    fclose(f);
    return buf;
}

Test(explain, replay_stops_at_T_with_the_world_of_the_run)
{
    struct gs_replay r;
    struct gs_error err = {0};
    struct gs_replay_opts o = {.scenario_path = TEACHING "fragmentation.yaml", .seed = -1, .at = GS_SEC(120), .hook_from = -1};
    int rc = gs_replay_run(&o, &r, &err);
    cr_assert(eq(int, rc, 0), "%s", err.msg);
    const struct gs_world *w = &r.sc.world;
    cr_expect(eq(int, w->nnodes, 4));
    cr_expect(eq(int, w->npods, 5));
    cr_expect(eq(i64, r.reached, GS_SEC(120))); /* the sample at 2m is the last event by then */
    cr_expect(eq(int, (int)r.ended_before, 0));
    int p = gs_world_find_pod(w, "four-gpu");
    cr_assert(eq(int, p, 4));
    cr_expect(eq(int, w->pods[p].node, -1));
    cr_expect(eq(str, (char *)w->pods[p].message,
                 "0/4 nodes are available: 4 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/4 "
                 "nodes are available: 4 No preemption victims found for incoming pod."));
    int busy2 = gs_world_find_pod(w, "busy-2");
    cr_expect(eq(int, w->pods[busy2].node, gs_world_find_node(w, "gpu-2")));
    /* The device plugin's record of busy-2's two GPUs. */
    int node = -1;
    struct gs_gpushare_alloc a;
    cr_assert(eq(int, (int)gs_replay_pod_gpus(&r, busy2, &node, &a), 1));
    cr_expect(eq(int, node, gs_world_find_node(w, "gpu-2")));
    cr_expect(eq(int, a.n, 2));
    cr_expect(eq(int, a.milli, 1000));
    cr_expect(eq(int, gs_replay_sched(&r) != NULL, 1));
    char dir[256];
    snprintf(dir, sizeof dir, "%s", r.dir);
    cr_expect(eq(int, access(dir, F_OK), 0));
    gs_replay_free(&r);
    cr_expect(ne(int, access(dir, F_OK), 0), "the temporary directory %s is removed", dir);

    /* Before the pod's arrival (1m) it does not exist; past the horizon the run has ended. */
    o.at = GS_SEC(30);
    cr_assert(eq(int, gs_replay_run(&o, &r, &err), 0), "%s", err.msg);
    cr_expect(eq(int, r.sc.world.npods, 4));
    gs_replay_free(&r);
    o.at = GS_SEC(3600);
    cr_assert(eq(int, gs_replay_run(&o, &r, &err), 0), "%s", err.msg);
    cr_expect(eq(int, (int)r.ended_before, 1));
    cr_expect(eq(i64, r.reached, GS_SEC(600)));
    gs_replay_free(&r);

    /* A stop flag already set: interrupted before the first event, the directory removed. */
    static volatile int stop = 1;
    o.stop = &stop;
    o.at = GS_SEC(120);
    cr_expect(eq(int, gs_replay_run(&o, &r, &err), GS_EINTERRUPTED));
    snprintf(dir, sizeof dir, "%s", r.dir);
    cr_expect(eq(int, r.reached, 0));
    gs_replay_free(&r);
    cr_expect(ne(int, access(dir, F_OK), 0), "the temporary directory %s is removed", dir);
    o.stop = NULL;

    /* A missing scenario: GS_EIO, the replay still freed cleanly. */
    o.scenario_path = "/nonexistent/x.yaml";
    cr_expect(eq(int, gs_replay_run(&o, &r, &err), GS_EIO));
    gs_replay_free(&r);
}

static int observed_sched;
static void count_sched(void *ctx, struct gs_sched *s)
{
    (void)ctx;
    if (s)
        observed_sched++;
}

Test(explain, on_sched_is_called_again_after_a_scheduler_restart)
{
    struct gs_replay r;
    struct gs_error err = {0};
    observed_sched = 0;
    struct gs_replay_opts o = {
        .scenario_path = TEACHING "scheduler-restart.yaml", .seed = -1, .at = GS_SEC(600), .on_sched = count_sched,
        .hook_from = -1};
    cr_assert(eq(int, gs_replay_run(&o, &r, &err), 0), "%s", err.msg);
    cr_expect(eq(int, observed_sched, 1 + r.sc.nevents), "one at set-up, one per schedulerRestart");
    gs_replay_free(&r);
    /* hook_from after the restart (1m): called once, with the scheduler made by the restart. */
    observed_sched = 0;
    o.hook_from = GS_SEC(90);
    cr_assert(eq(int, gs_replay_run(&o, &r, &err), 0), "%s", err.msg);
    cr_expect(eq(int, observed_sched, 1));
    gs_replay_free(&r);
    /* hook_from beyond T: never called. */
    observed_sched = 0;
    o.hook_from = GS_SEC(700);
    cr_assert(eq(int, gs_replay_run(&o, &r, &err), 0), "%s", err.msg);
    cr_expect(eq(int, observed_sched, 0));
    gs_replay_free(&r);
}

Test(explain, fragmentation_names_the_cause_and_a_removal_that_fits)
{
    run_file(TEACHING "fragmentation.yaml", NULL, 0);
    int rc;
    char err[1024] = "";
    char *out = explain("four-gpu", GS_SEC(120), NULL, &rc, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
    cr_expect(eq(str, line_with(out, "Requests:     cpu 0, memory 0, nvidia.com/gpu 4\n"), "Requests:     cpu 0, memory 0, nvidia.com/gpu 4"));
    cr_expect(eq(str, line_with(out, "  NodeResourcesFit       4  Insufficient nvidia.com/gpu: gpu-0 gpu-1 gpu-2 gpu-3\n"), "  NodeResourcesFit       4  Insufficient nvidia.com/gpu: gpu-0 gpu-1 gpu-2 gpu-3"));
    cr_expect(eq(str, line_with(out, "  gpu-0                           3 of 4 allocatable\n"), "  gpu-0                           3 of 4 allocatable"));
    cr_expect(eq(str, line_with(out, "  gpu-3                           2 of 4 allocatable\n"), "  gpu-3                           2 of 4 allocatable"));
    cr_expect(eq(str, line_with(out, "  10 GPUs free on these nodes (10 in the cluster), but the largest free block on one node is 3 (gpu-0) and the pod asks for 4 on one node: fragmentation.\n"), "  10 GPUs free on these nodes (10 in the cluster), but the largest free block on one node is 3 (gpu-0) and the pod asks for 4 on one node: fragmentation."));
    cr_expect(eq(str, line_with(out, "  - fits on gpu-0 if busy-0 (1 GPU, priority 0) were gone\n"), "  - fits on gpu-0 if busy-0 (1 GPU, priority 0) were gone"));
    cr_expect(ne(str, line_with(out, "--set 'events[0]={at: 2m0s, deletePod: {pod: busy-0}}'"), ""), "%s", out);
    cr_expect(eq(str, line_with(out, "Its last attempt"),
                 "Its last attempt, at 1m0s, rejected it on the same nodes with the same plugins (the scheduler's own "
                 "verdicts, observed in the replay)."));
    free(out);

    /* Errors. */
    out = explain("four-gpx", -1, NULL, &rc, err, sizeof err);
    cr_expect(eq(int, rc, GS_EINVAL));
    cr_expect(ne(str, line_with(err, "has no pod named 'four-gpx' (did you mean 'four-gpu'?)"), ""), "%s", err);
    free(out);
    out = explain("four-gpu", GS_SEC(10), NULL, &rc, err, sizeof err);
    cr_expect(eq(int, rc, GS_EINVAL));
    cr_expect(ne(str, line_with(err, "pod 'four-gpu' did not exist yet at 10s: it was created at 1m0s"), ""), "%s", err);
    free(out);
    out = explain("four-gpu", -1, "/nonexistent/moved.yaml", &rc, err, sizeof err);
    cr_expect(eq(int, rc, GS_EIO));
    cr_expect(ne(str, line_with(err, "give its new place with --scenario FILE"), ""), "%s", err);
    free(out);
    /* Another scenario (twelve-nodes) is not the run: the replay disagrees. */
    out = explain("four-gpu", GS_SEC(120), TEACHING "twelve-nodes.yaml", &rc, err, sizeof err);
    cr_expect(eq(int, rc, GS_EINVAL));
    cr_expect(ne(str, line_with(err, "disagrees with the trace at 2m0s: node 0 is 'gpu-0' in the trace, 'team-b-0' in the replay"), ""), "%s", err);
    free(out);
}

Test(explain, toleration_off_checks_the_toleration_and_the_selector)
{
    run_file(TEACHING "toleration-off.yaml", NULL, 0);
    int rc;
    char err[1024] = "";
    char *out = explain("no-toleration", -1, NULL, &rc, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
    cr_expect(eq(str, line_with(out, "  2 nodes carry the taint nvidia.com/gpu=present:NoSchedule, which the pod does not tolerate.\n"), "  2 nodes carry the taint nvidia.com/gpu=present:NoSchedule, which the pod does not tolerate."));
    cr_expect(eq(str, line_with(out, "  - tolerating the taint nvidia.com/gpu=present:NoSchedule makes 2 more nodes feasible (h100-0, h100-1)\n"), "  - tolerating the taint nvidia.com/gpu=present:NoSchedule makes 2 more nodes feasible (h100-0, h100-1)"));
    cr_expect(ne(str, line_with(out, "--set 'workloads[0].template.spec.tolerations=[{key: \"nvidia.com/gpu\", operator: Equal, "
                             "value: \"present\", effect: NoSchedule}]'"), ""), "%s", out);
    cr_expect(eq(str, line_with(out, "  - dropping nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3 makes 2 more nodes feasible (l4-0, l4-1)\n"), "  - dropping nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3 makes 2 more nodes feasible (l4-0, l4-1)"));
    free(out);
    /* The pod with the toleration is bound: its cycle's scores, TaintToleration's weight 3. */
    out = explain("with-toleration", -1, NULL, &rc, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
    cr_expect(eq(str, line_with(out, "Bound to h100-1 at 0s.\n"), "Bound to h100-1 at 0s."));
    cr_expect(ne(str, line_with(out, "judged 4 nodes, 2 feasible (2 rejected by NodeAffinity)"), ""), "%s", out);
    cr_expect(ne(str, line_with(out, "  TaintToleration                       3    100 x 3 = 300"), ""), "%s", out);
    free(out);
}

Test(explain, gang_deadlock_is_named_and_no_own_group_pod_is_removed)
{
    run_file(TEACHING "gang-deadlock.yaml", NULL, 0);
    int rc;
    char err[1024] = "";
    char *out = explain("trainer-a-2", GS_SEC(60), NULL, &rc, err, sizeof err);
    cr_assert(eq(int, rc, 0), "%s", err);
    cr_expect(ne(str, line_with(out, "gang deadlock: 2 PodGroups hold 32 GPUs between them"), ""), "%s", out);
    cr_expect(eq(str, line_with(out, "  - fits on h100-0 if trainer-b-0 (8 GPUs, priority 0, PodGroup trainer-b) were gone\n"), "  - fits on h100-0 if trainer-b-0 (8 GPUs, priority 0, PodGroup trainer-b) were gone"));
    cr_expect(eq(str, line_with(out, "if trainer-a-"), ""), "never its own group's pods");
    free(out);
}

/* Every variant of the sentence for a binding the replay does not reproduce reads as a sentence
 * (it once said "was bound at not bound in the trace"). */
Test(explain, binding_differs_reads_in_every_variant)
{
    char buf[256];
    gs_explain_binding_differs("four-gpu", 60000000, 120000000, 600000000, buf, sizeof buf);
    cr_expect(eq(str, buf, "pod 'four-gpu' was bound at 1m0s in the trace, at 2m0s in the replay"));
    gs_explain_binding_differs("four-gpu", 60000000, -1, 600000000, buf, sizeof buf);
    cr_expect(eq(str, buf, "pod 'four-gpu' was bound at 1m0s in the trace, but not by 10m0s in the replay"));
    gs_explain_binding_differs("four-gpu", -1, 60000000, 600000000, buf, sizeof buf);
    cr_expect(eq(str, buf, "pod 'four-gpu' was not bound by 10m0s in the trace, but at 1m0s in the replay"));
    gs_explain_binding_differs("four-gpu", -1, -1, 600000000, buf, sizeof buf);
    cr_expect(eq(str, buf, "pod 'four-gpu' was not bound by 10m0s in the trace nor in the replay"));
}
