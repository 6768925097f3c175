/* A whole run through the library: lifecycle, Jobs, events, checks, interruption. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"

static char trace_path[256];
static char partial_path[272];

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-run-%d.db", (int)getpid());
    snprintf(partial_path, sizeof partial_path, "%s.partial", trace_path);
}

static void teardown(void)
{
    unlink(trace_path);
    unlink(partial_path);
}

TestSuite(run, .init = setup, .fini = teardown);

static void load(struct gs_scenario *sc, const char *yaml)
{
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("test.yaml", yaml, sc, &err);
    cr_assert_eq(rc, 0, "load: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

static char *query_at(const char *path, const char *sql)
{
    static char out[4096];
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    out[0] = '\0';
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static char *query1(const char *sql)
{
    return query_at(trace_path, sql);
}

static const char lifecycle[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: lifecycle}\n"
    "spec:\n"
    "  startLatency: 10s\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 2, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  workloads:\n"
    "  - name: job\n"
    "    replicas: 3\n"
    "    arrival: {at: 1m}\n"
    "    duration: 10m\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}\n"
    "  expect:\n"
    "  - {pods: {phase: Running}, at: 1m5s, count: 0}\n"
    "  - {pods: {phase: Running}, at: 1m10s, count: 2}\n"
    "  - {pod: job-2, at: 5m, phase: Pending}\n"
    "  - {pod: job-2, at: 11m10s, phase: Pending, node: gpu-0}\n"
    "  - {pod: job-2, at: 11m20s, phase: Running}\n"
    "  - {pods: {phase: Succeeded}, count: 3}\n"
    "  - {metric: gpusAllocated, at: 5m, equals: 8}\n";

Test(run, lifecycle_with_start_latency_and_completion)
{
    struct gs_scenario sc;
    load(&sc, lifecycle);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char err[256];
    cr_assert_eq(gs_run(&sc, &o, &r, err, sizeof err), 0, "%s", err);
    for (int i = 0; i < sc.nexpects; i++)
        cr_expect(sc.expects[i].pass, "check %d (%s): %s", i, sc.expects[i].what, sc.expects[i].detail);
    cr_assert_eq(r.checks_failed, 0);
    cr_assert_str_eq(r.status, "complete");
    /* job-2 waits for a job of the first pair to finish at 1m10s + 10m, starts 10 s later and
     * runs 10 minutes: the run ends when it completes. */
    cr_assert_eq(r.end, GS_SEC(60 + 10 + 600 + 10 + 600));
    cr_assert_str_eq(query1("SELECT value FROM run WHERE key='status'"), "complete");
    cr_assert_str_eq(query1("SELECT phase FROM pod WHERE name='job-2'"), "Succeeded");
    cr_assert_str_eq(query1("SELECT started_us - scheduled_us FROM pod WHERE name='job-0'"), "10000000");
    cr_assert_str_eq(query1("SELECT count(*) FROM expect_check WHERE pass=1"), "7");
    gs_scenario_free(&sc);
}

static const char forever[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: forever}\n"
    "spec:\n"
    "  horizon: 100000h\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: cpu, count: 4, capacity: {cpu: '8', memory: 32Gi}}\n"
    "  workloads:\n"
    "  - name: tick\n"
    "    arrival: {every: 1s, count: 4000000, start: 0s}\n"
    "    duration: 5s\n"
    "    template: {spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}\n";

static volatile int stop_flag;
static void stop_soon(gs_time now, gs_time horizon, uint64_t events, void *ctx)
{
    (void)now;
    (void)horizon;
    (void)ctx;
    if (events > 100000)
        stop_flag = 1;
}

Test(run, interrupted_run_leaves_a_trace_that_says_so)
{
    struct gs_scenario sc;
    load(&sc, forever);
    stop_flag = 0;
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_SUMMARY, .stop = &stop_flag,
                            .progress = stop_soon};
    struct gs_run_result r;
    char err[256];
    cr_assert_eq(gs_run(&sc, &o, &r, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(r.status, "interrupted");
    cr_assert(not(r.trace_at_path));
    cr_assert(eq(int, access(trace_path, F_OK), -1), "an interrupted run leaves the final name alone");
    cr_assert_str_eq(query_at(partial_path, "SELECT value FROM run WHERE key='status'"), "interrupted");
    cr_assert_gt(atoll(query_at(partial_path, "SELECT count(*) FROM pod")), 1000);
    /* every event up to complete_until_us was dispatched, and it is at most the end */
    long long until = atoll(query_at(partial_path, "SELECT value FROM run WHERE key='complete_until_us'"));
    cr_assert(gt(i64, until, 0));
    cr_assert(le(i64, until, r.end));
    cr_assert(eq(i64, until, r.complete_until));
    gs_scenario_free(&sc);
}

static const char job_replaces_deleted[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: jobs}\n"
    "spec:\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  workloads:\n"
    "  - manifest:\n"
    "      apiVersion: batch/v1\n"
    "      kind: Job\n"
    "      metadata: {name: train}\n"
    "      spec:\n"
    "        parallelism: 2\n"
    "        completions: 4\n"
    "        template: {spec: {restartPolicy: Never, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
    "    arrival: {at: 0s}\n"
    "    duration: 10m\n"
    "  events:\n"
    "  - {at: 5m, deletePod: {pod: train-0}}\n"
    "  - {at: 6m, cordon: {node: gpu-0}}\n"
    "  - {at: 7m, uncordon: {node: gpu-0}}\n"
    "  expect:\n"
    "  - {pods: {workload: train, phase: Running}, at: 5m, count: 2}\n"
    "  - {pod: train-0, at: 5m29s, phase: Running}\n"
    "  - {pod: train-2, at: 5m30s, phase: Running}\n"
    "  - {pod: train-0, at: 5m30s, exists: false}\n"
    "  - {pods: {workload: train, phase: Succeeded}, count: 4}\n"
    "  - {object: {kind: Job, name: train}, exists: true}\n";

Test(run, job_replaces_a_deleted_pod_until_completions)
{
    struct gs_scenario sc;
    load(&sc, job_replaces_deleted);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char err[256];
    cr_assert_eq(gs_run(&sc, &o, &r, err, sizeof err), 0, "%s", err);
    for (int i = 0; i < sc.nexpects; i++)
        cr_expect(sc.expects[i].pass, "check %d (%s): %s", i, sc.expects[i].what, sc.expects[i].detail);
    cr_assert_eq(r.pods_created, 5); /* 4 completions + 1 replacement */
    cr_assert_str_eq(query1("SELECT phase FROM pod WHERE name='train-0'"), "Deleted");
    gs_scenario_free(&sc);
}

/* Metric windows are judged as the samples stream by (sim/check.c gs_check_sample): the first
 * sample in the window that breaks the bounds is reported, a later sample at the same time
 * replaces an earlier one, and the value at the end of the window is checked first. */
static const char windows[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: windows}\n"
    "spec:\n"
    "  horizon: 10m\n"
    "  sampleInterval: 1m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 8}, capacity: {cpu: '32', memory: 128Gi}}\n"
    "  workloads:\n"
    "  - name: a\n"
    "    replicas: 4\n"
    "    arrival: {at: 2m30s}\n"
    "    duration: 2m\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
    "  expect:\n"
    "  - {metric: gpusAllocated, from: 0s, to: 10m, max: 2}\n"   /* 4 from 2m30s, sampled at each bind */
    "  - {metric: gpusAllocated, from: 0s, to: 4m, max: 2}\n"    /* 4 at 4m, the end of the window */
    "  - {metric: gpusAllocated, from: 5m, to: 9m, max: 0}\n"    /* all gone by 4m30s */
    "  - {metric: gpusAllocated, from: 2m30s, to: 2m30s, min: 4}\n" /* only the last sample at 2m30s counts */
    "  - {metric: gpusAllocated, from: 0s, to: 2m, equals: 0}\n";

Test(run, metric_windows_stream)
{
    struct gs_scenario sc;
    load(&sc, windows);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS, .sample_every_pod = true};
    struct gs_run_result r;
    char err[256];
    cr_assert(eq(int, gs_run(&sc, &o, &r, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, sc.nexpects, 5));
    cr_assert(not(sc.expects[0].pass));
    cr_assert(eq(str, (char *)sc.expects[0].detail, "value 4 at 2m30s"));
    cr_assert(not(sc.expects[1].pass));
    cr_assert(eq(str, (char *)sc.expects[1].detail, "value 4 at 4m0s, the end of the window"));
    cr_assert(sc.expects[2].pass, "%s", sc.expects[2].detail);
    cr_assert(sc.expects[3].pass, "%s", sc.expects[3].detail);
    cr_assert(sc.expects[4].pass, "%s", sc.expects[4].detail);
    /* the trace agrees: several samples at 2m30s (one per bind), the last one with 4 GPUs */
    cr_assert(eq(str, query1("SELECT count(*) > 1 FROM sample WHERE pool = '' AND t_us = 150000000"), "1"));
    cr_assert(eq(str, query1("SELECT gpus_allocated FROM sample WHERE pool = '' AND t_us = 150000000"
                             " ORDER BY rowid DESC LIMIT 1"), "4"));
    cr_assert(eq(str, query1("SELECT min(gpus_allocated) FROM sample WHERE pool = '' AND t_us = 150000000"), "1"));
    gs_scenario_free(&sc);
}
