/* Tests of the summary report (reports/summary.c) and the SQL views (reports/views.sql):
 * traces are written with the trace writer, then reported on from the database alone. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "reports/report.h"
#include "sim/trace.h"

static char dir[64];
static char path[128];
static char partial[160]; /* where the trace of a run that did not complete is */

static void setup(void)
{
    strcpy(dir, "/tmp/gs-report-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(eq(int, system(cmd), 0));
}

TestSuite(report, .init = setup, .fini = teardown);

#define MSG_A                                                                                      \
    "0/5 nodes are available: 3 Insufficient nvidia.com/gpu, 2 node(s) had untolerated taint "     \
    "{nvidia.com/gpu: present}. preemption: 0/5 nodes are available: 5 No preemption victims "     \
    "found for incoming pod."
#define MSG_B "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector."
#define MSG_REJ                                                                                    \
    "Pod was rejected: Node didn't have enough resource: nvidia.com/gpu, requested: 8, used: 8, "  \
    "capacity: 8"
#define MSG_CQ                                                                                     \
    "ClusterQueue.kueue.x-k8s.io \"team-a\" is invalid: spec.cohort: Invalid value: \"A\""

static void pod(struct gs_trace *t, int id, const char *name, const char *phase, const char *msg)
{
    struct gs_trace_pod p = {.id = id,
                             .name = name,
                             .workload = "w",
                             .created_us = 0,
                             .scheduled_us = -1,
                             .started_us = -1,
                             .finished_us = -1,
                             .node_id = -1,
                             .phase = phase,
                             .message = msg,
                             .gpu = 8};
    if (strcmp(phase, "Running") == 0 || strcmp(phase, "Succeeded") == 0) {
        p.scheduled_us = GS_SEC(id + 1);
        p.started_us = GS_SEC(id + 2);
        p.node_id = id % 2;
    }
    cr_assert_eq(gs_trace_pod(t, &p), 0);
}

static void sample(struct gs_trace *t, gs_time t_us, const char *pool, int ready, int cap,
                   int alloc, double frag)
{
    struct gs_metrics s = {.t = t_us,
                           .nodes_ready = ready,
                           .gpus_capacity = cap,
                           .gpus_allocatable = cap,
                           .gpus_allocated = alloc,
                           .frag_gpus = frag};
    cr_assert(eq(int, gs_trace_sample(t, pool, &s), 0));
}

/* A finished run: 5 nodes in 3 pools, 17 pods in every phase, 3 samples, 3 checks. */
static void build_demo(void)
{
    struct gs_trace *t = NULL;
    char err[256];
    cr_assert_eq(gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), 0, "%s", err);
    gs_trace_run_kv(t, "scenario", "demo");
    gs_trace_run_kv(t, "seed", "42");
    gs_trace_run_kv(t, "kubernetesVersion", "1.34");
    gs_trace_run_kv(t, "version", "0.1.0");
    gs_trace_run_kv(t, "events", "1234");
    gs_trace_run_kv(t, "horizon_us", "180000000"); /* it ran to its horizon, 3m */
    gs_trace_node(t, 0, "h100-0", "h100", "NVIDIA-H100-80GB-HBM3", 8);
    gs_trace_node(t, 1, "h100-1", "h100", "NVIDIA-H100-80GB-HBM3", 8);
    gs_trace_node(t, 2, "cpu-0", "cpu", NULL, 0);
    gs_trace_node(t, 3, "a100-0", "a100", "NVIDIA-A100-SXM4-40GB", 4);
    gs_trace_node(t, 4, "a100-1", "a100", "NVIDIA-A100-SXM4-80GB", 4);

    pod(t, 0, "train-0", "Running", NULL);
    pod(t, 1, "train-1", "Running", NULL);
    pod(t, 2, "train-2", "Running", NULL);
    pod(t, 3, "done-0", "Succeeded", NULL);
    for (int i = 0; i < 12; i++) {
        char name[32];
        snprintf(name, sizeof name, "wait-%d", i);
        /* wait-1's pod row has no message: the report takes its last FailedScheduling event */
        pod(t, 4 + i, name, "Pending", i == 1 ? NULL : MSG_A);
        cr_assert_eq(gs_trace_pod_event(t, 0, 4 + i, "FailedScheduling", MSG_A), 0);
        if (i == 1)
            cr_assert_eq(gs_trace_pod_event(t, GS_SEC(5), 4 + i, "FailedScheduling", MSG_B), 0);
    }
    pod(t, 16, "bad-0", "Rejected", MSG_REJ);
    gs_trace_object(t, 0, "ResourceFlavor", NULL, "default-flavor", "Created", NULL);
    gs_trace_object(t, 0, "ClusterQueue", NULL, "team-a", "Rejected", MSG_CQ);
    gs_trace_object(t, 0, "LocalQueue", "ml", "q", "Rejected",
                    "LocalQueue.kueue.x-k8s.io \"q\" is invalid");

    /* allocated 0 for 60 s, 8 for 60 s, 16 for 60 s: time-weighted mean 8 */
    sample(t, 0, "", 1, 16, 0, 0.0);
    sample(t, 0, "h100", 0, 16, 0, 0.0);
    sample(t, 0, "cpu", 1, 0, 0, 0.0);
    sample(t, 0, "a100", 0, 8, 0, 0.0);
    sample(t, GS_SEC(60), "", 3, 16, 8, 2.0);
    sample(t, GS_SEC(60), "h100", 2, 16, 8, 2.0);
    sample(t, GS_SEC(120), "", 4, 16, 16, 1.0);
    sample(t, GS_SEC(120), "a100", 1, 8, 0, 0.0);

    gs_trace_check(t, 0, 40, "pod train-0 phase Running", 1, NULL);
    gs_trace_check(t, 1, 43, "pods {phase: Pending} count 10", 0, "got 12");
    gs_trace_check(t, 2, 45, "node h100-0 schedulable", 1, NULL);
    cr_assert_eq(gs_trace_close(t, "complete", GS_SEC(180)), 0);
}

/* The summary of `p` as a malloc'd string; asserts the return code. */
static char *summary(const char *p, int want_rc, char *err, int errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert_not_null(m);
    int rc = gs_report_summary(p, m, err, errlen);
    fclose(m);
    cr_assert_eq(rc, want_rc, "gs_report_summary: %d (%s)", rc, err ? err : "");
    return buf;
}

Test(report, summary_of_a_complete_run)
{
    build_demo();
    char err[256] = "";
    char *out = summary(path, 0, err, sizeof err);
    const char *want =
        "Scenario:    demo\n"
        "Seed:        42\n"
        "Kubernetes:  1.34\n"
        "Status:      complete\n"
        "Simulated:   3m0s, 1234 events dispatched\n"
        "Nodes:       5\n"
        "  h100  2 nodes, 16 GPUs NVIDIA-H100-80GB-HBM3, all ready at 1m0s\n"
        "  cpu   1 node, no GPUs, all ready at 0s\n"
        "  a100  2 nodes, 8 GPUs (mixed products), 1/2 ready at end\n"
        "Pods:        17 (Pending 12, Running 3, Succeeded 1, Failed 0, Rejected 1)\n"
        "GPUs:        capacity 16; allocated min 0, mean 8.00, max 16 (time-weighted mean of 3 "
        "samples)\n"
        /* no Joined or Allocatable rows in this trace: no GPU is allocatable by the node rows */
        "Free GPUs:   none: no node has nvidia.com/gpu allocatable at the end (3m0s)\n"
        "Pending:     the largest request is 8 GPUs (wait-0): not fragmentation: no GPU is free in the cluster\n"
        "Fragmented:  mean 1.00, max 2.00 GPUs by the FGD paper's measure: the expected number of free GPUs that a typical pod of this scenario cannot use\n"
        "\n"
        /* waits 1, 2, 3, 4 s; the 12 pending pods wait the whole 3 minutes (12 x 8 GPUs x 180 s
         * + 8 x 10 s = 4.82 GPU-hours); node-hours from nodes_ready (no Joined rows here) */
        "Time to schedule (created to bound; 4 of 17 pods bound):\n"
        "  to bound     p50 2.5s, p90 3.7s, p95 3.85s, p99 3.97s, max 4s, mean 2.5s\n"
        "  to Running   p50 3.5s, p90 4.7s, p95 4.85s, p99 4.97s, max 5s, mean 3.5s (4 pods started)\n"
        "  pending at end: 12 pods wanting 96 GPUs, waiting 3m0s on average, longest 3m0s\n"
        "  pending GPU-hours: 4.82 (GPUs requested x hours spent waiting for a node)\n"
        "\n"
        "Utilisation (GPUs allocated / allocatable, time-weighted) and node-hours:\n"
        "  h100          0.07 node-hours, GPUs  33.3% (0.27 of 0.80 GPU-hours)\n"
        "  cpu           0.05 node-hours, no GPUs allocatable\n"
        "  a100          0.02 node-hours, GPUs   0.0% (0.00 of 0.40 GPU-hours)\n"
        "  cluster       0.13 node-hours, GPUs  50.0%\n"
        "\n"
        "Pending (12):\n"
        "  wait-0  " MSG_A "\n"
        "  wait-1  " MSG_B "\n"
        "  wait-2  " MSG_A "\n"
        "  wait-3  " MSG_A "\n"
        "  wait-4  " MSG_A "\n"
        "  wait-5  " MSG_A "\n"
        "  wait-6  " MSG_A "\n"
        "  wait-7  " MSG_A "\n"
        "  wait-8  " MSG_A "\n"
        "  wait-9  " MSG_A "\n"
        "  ... and 2 more\n"
        "\n"
        "Rejected (3):\n"
        "  pod/bad-0            " MSG_REJ "\n"
        "  ClusterQueue/team-a  " MSG_CQ "\n"
        "  LocalQueue/ml/q      LocalQueue.kueue.x-k8s.io \"q\" is invalid\n"
        "\n"
        "PASS  pod train-0 phase Running\n"
        "FAIL  pods {phase: Pending} count 10: got 12\n"
        "PASS  node h100-0 schedulable\n"
        "checks: 2 passed, 1 failed\n";
    cr_assert_str_eq(out, want);
    /* stable: the same database gives the same bytes */
    char *again = summary(path, 0, err, sizeof err);
    cr_assert_str_eq(again, out);
    free(again);
    free(out);
    cr_assert_eq(gs_report_checks_failed(path), 1);
}

static int write_and_die(void)
{
    struct gs_trace *t = NULL;
    if (gs_trace_open(path, GS_TRACE_EVENTS, &t, NULL, 0) != 0)
        return 10;
    gs_trace_run_kv(t, "scenario", "killed");
    gs_trace_run_kv(t, "seed", "7");
    struct gs_metrics s = {.t = GS_SEC(30), .gpus_capacity = 8};
    gs_trace_sample(t, "", &s);
    gs_trace_pod_event(t, GS_SEC(90), 0, "Created", NULL);
    if (gs_trace_checkpoint(t, GS_SEC(90)) != 0)
        return 11;
    return 0;
}

Test(report, summary_of_a_killed_run)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0)
        _exit(write_and_die());
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(eq(int, WIFEXITED(status) && WEXITSTATUS(status) == 0, 1));

    char *out = summary(partial, 0, NULL, 0);
    /* no end_us: the end is the latest committed time; the only sample has no duration */
    cr_assert_str_eq(out,
                     "Scenario:    killed\n"
                     "Seed:        7\n"
                     "Kubernetes:  ?\n"
                     "Status:      running\n"
                     "run incomplete: status=running, complete up to 1m30s of simulated time\n"
                     "Simulated:   1m30s (last committed)\n"
                     "Nodes:       0\n"
                     "Pods:        0 (Pending 0, Running 0, Succeeded 0, Failed 0, Rejected 0)\n"
                     "GPUs:        capacity 8; allocated min 0, mean 0.00, max 0 (time-weighted "
                     "mean of 1 sample)\n"
                     "Fragmented:  mean 0.00, max 0.00 GPUs by the FGD paper's measure: the expected number of free GPUs that a typical pod of this scenario cannot use\n"
                     "\n"
                     "checks: 0 passed, 0 failed\n");
    free(out);
    cr_assert_eq(gs_report_checks_failed(partial), 0);

    struct gs_report_state st;
    char err[512] = "";
    cr_assert(eq(int, gs_report_trace_state(partial, &st, err, sizeof err), 0), "%s", err);
    cr_assert_str_eq(st.status, "running");
    cr_assert(not(st.complete));
    cr_assert(eq(i64, st.complete_until_us, GS_SEC(90)));
    char note[512], want[512];
    gs_report_incomplete_note("t.db.partial", &st, note, sizeof note);
    snprintf(want, sizeof want, "trace 't.db.partial' is incomplete: status running (the run was killed, or is "
                                "still writing); complete up to 1m30s of simulated time");
    cr_assert_str_eq(note, want);
    /* the final name was never written */
    cr_assert(eq(int, gs_report_trace_state(path, &st, err, sizeof err), GS_EIO));
}

Test(report, summary_of_an_interrupted_run)
{
    struct gs_trace *t = NULL;
    cr_assert_eq(gs_trace_open(path, GS_TRACE_SUMMARY, &t, NULL, 0), 0);
    gs_trace_run_kv(t, "scenario", "stopped");
    struct gs_trace_pod p = {.id = 0,
                             .name = "p",
                             .phase = "Terminating",
                             .created_us = 0,
                             .scheduled_us = -1,
                             .started_us = -1,
                             .finished_us = -1,
                             .node_id = -1};
    gs_trace_pod(t, &p);
    p.id = 1;
    p.name = "q";
    p.phase = NULL;
    gs_trace_pod(t, &p);
    /* two samples at one time: no duration to weigh by, so a plain mean */
    sample(t, 0, "", 0, 4, 1, 0.0);
    sample(t, 0, "", 0, 8, 2, 0.0);
    /* as gs_trace_close writes it after a write error */
    gs_trace_run_kv(t, "error", "trace 't.db': commit: disk I/O error (File too large)");
    cr_assert_eq(gs_trace_close(t, "interrupted", 0), 0);

    char *out = summary(partial, 0, NULL, 0);
    cr_assert_str_eq(
        out,
        "Scenario:    stopped\n"
        "Seed:        ?\n"
        "Kubernetes:  ?\n"
        "Status:      interrupted\n"
        "run incomplete: status=interrupted, no checkpoint committed\n"
        "Error:       trace 't.db': commit: disk I/O error (File too large)\n"
        "Simulated:   0s\n"
        "Nodes:       0\n"
        "Pods:        2 (Pending 0, Running 0, Succeeded 0, Failed 0, Rejected 0,"
        " (none) 1, Terminating 1)\n"
        "GPUs:        capacity 8 (min 4); allocated min 1, mean 1.50, max 2 (mean of 2 samples)\n"
        "Free GPUs:   not known: the trace has no event tables (written with --trace-level summary): run the "
        "scenario again with --trace-level events\n"
        "Fragmented:  mean 0.00, max 0.00 GPUs by the FGD paper's measure: the expected number of free GPUs that a typical pod of this scenario cannot use\n"
        "\n"
        "Time to schedule (created to bound; 0 of 2 pods bound):\n"
        "  pending at end: 1 pod wanting 0 GPUs, waiting 0s on average, longest 0s\n"
        "  pending GPU-hours: 0.00 (GPUs requested x hours spent waiting for a node)\n"
        "\n"
        "checks: 0 passed, 0 failed\n");
    free(out);
}

Test(report, errors)
{
    char err[512] = "";
    char *out = summary("/nonexistent-gpusim-dir/t.db", GS_EIO, err, sizeof err);
    cr_assert_str_eq(err,
                     "cannot open trace '/nonexistent-gpusim-dir/t.db': No such file or directory");
    cr_assert_str_eq(out, "");
    free(out);
    cr_assert_eq(gs_report_checks_failed("/nonexistent-gpusim-dir/t.db"), GS_EIO);

    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("this is a text file, long enough to be looked at as a database header........\n", f);
    fclose(f);
    out = summary(path, GS_EINVAL, err, sizeof err);
    char want[256];
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (not an SQLite database)", path);
    cr_assert_str_eq(err, want);
    free(out);

    /* an SQLite database, but not a trace */
    unlink(path);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE x(a)", NULL, NULL, NULL), SQLITE_OK);
    out = summary(path, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (an SQLite database of something else)", path);
    cr_assert_str_eq(err, want);
    free(out);

    /* a trace as gpusim wrote them before application_id: accepted when it has a version */
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE run(key TEXT PRIMARY KEY, value TEXT)", NULL, NULL, NULL),
                 SQLITE_OK);
    out = summary(path, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (no schema version)", path);
    cr_assert_str_eq(err, want);
    free(out);

    /* a trace from a newer gpusim */
    cr_assert_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    out = summary(path, GS_ENOTSUP, err, sizeof err);
    snprintf(want, sizeof want,
             "trace '%s' has schema version 99; this gpusim reads versions up to %d", path,
             GS_TRACE_SCHEMA_VERSION);
    cr_assert_str_eq(err, want);
    free(out);
    cr_assert_eq(gs_report_checks_failed(path), GS_ENOTSUP);
}

/* A killed run whose pod rows are still those written at creation (a row is rewritten only
 * when its pod ends, and for all at close): what happened since is in pod_event. Two one-GPU
 * nodes; the last checkpoint is at 1m30s, and one pod's rows were committed after it (as they
 * can be when a checkpoint's time is before the instant being dispatched). */
static void created_row(struct gs_trace *t, int id, const char *name, gs_time created)
{
    struct gs_trace_pod p = {.id = id, .name = name, .workload = "w", .created_us = created,
                             .scheduled_us = -1, .started_us = -1, .finished_us = -1, .node_id = -1,
                             .phase = "Pending", .gpu = 1, .cpu_m = 500, .memory_b = 1 << 20};
    cr_assert(eq(int, gs_trace_pod(t, &p), 0));
    cr_assert(eq(int, gs_trace_pod_event(t, created, id, "Created", NULL), 0));
}

static int write_pods_and_die(void)
{
    struct gs_trace *t = NULL;
    if (gs_trace_open(path, GS_TRACE_EVENTS, &t, NULL, 0) != 0)
        return 10;
    gs_trace_run_kv(t, "scenario", "killed");
    gs_trace_node(t, 0, "gpu-0", "gpu", "NVIDIA-L4", 1);
    gs_trace_node(t, 1, "gpu-1", "gpu", "NVIDIA-L4", 1);
    for (int n = 0; n < 2; n++) {
        gs_trace_node_event(t, 0, n, "Joined", "gpu", NULL);
        gs_trace_node_event(t, 0, n, "Capacity", "nvidia.com/gpu", "1");
        gs_trace_node_event(t, 0, n, "Allocatable", "nvidia.com/gpu", "1");
    }
    /* run-0: bound to gpu-1 at 0s, Running from 1s */
    created_row(t, 0, "run-0", 0);
    gs_trace_pod_event(t, 0, 0, "Scheduled", "Successfully assigned default/run-0 to gpu-1");
    gs_trace_pod_event(t, 0, 0, "GpuAllocated", "gpu-1 gpu=0 milli=1000");
    gs_trace_pod_event(t, GS_SEC(1), 0, "Started", NULL);
    /* done-0: ran on gpu-0 from 1s, Succeeded at 30s (its row rewritten then) */
    created_row(t, 1, "done-0", 0);
    gs_trace_pod_event(t, 0, 1, "Scheduled", "Successfully assigned default/done-0 to gpu-0");
    gs_trace_pod_event(t, 0, 1, "GpuAllocated", "gpu-0 gpu=0 milli=1000");
    gs_trace_pod_event(t, GS_SEC(1), 1, "Started", NULL);
    gs_trace_pod_event(t, GS_SEC(30), 1, "Completed", NULL);
    struct gs_trace_pod done = {.id = 1, .name = "done-0", .workload = "w", .created_us = 0, .scheduled_us = 0,
                                .started_us = GS_SEC(1), .finished_us = GS_SEC(30), .node_id = 0,
                                .phase = "Succeeded", .gpu = 1, .cpu_m = 500, .memory_b = 1 << 20};
    gs_trace_pod(t, &done);
    /* wait-0: never bound */
    created_row(t, 2, "wait-0", 0);
    gs_trace_pod_event(t, GS_SEC(2), 2, "FailedScheduling", MSG_B);
    /* bound-0: bound to gpu-0 at 40s, not started */
    created_row(t, 3, "bound-0", GS_SEC(10));
    gs_trace_pod_event(t, GS_SEC(10), 3, "FailedScheduling", MSG_A);
    gs_trace_pod_event(t, GS_SEC(40), 3, "Scheduled", "Successfully assigned default/bound-0 to gpu-0");
    gs_trace_pod_event(t, GS_SEC(40), 3, "GpuAllocated", "gpu-0 gpu=0 milli=1000");
    /* late-0: created after the time the trace is complete up to */
    created_row(t, 4, "late-0", GS_SEC(100));
    if (gs_trace_checkpoint(t, GS_SEC(90)) != 0)
        return 11;
    return 0;
}

static void kill_writer(int (*writer)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0)
        _exit(writer());
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(eq(int, WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0));
}

Test(report, killed_run_pods_come_from_pod_events)
{
    kill_writer(write_pods_and_die);
    char err[256] = "";
    char *out = summary(partial, 0, err, sizeof err);
    cr_assert(eq(str, out,
                 "Scenario:    killed\n"
                 "Seed:        ?\n"
                 "Kubernetes:  ?\n"
                 "Status:      running\n"
                 "run incomplete: status=running, complete up to 1m30s of simulated time\n"
                 "Simulated:   1m40s (last committed)\n"
                 "Nodes:       2\n"
                 "  gpu  2 nodes, 2 GPUs NVIDIA-L4\n"
                 "Pods:        4 (Pending 2, Running 1, Succeeded 1, Failed 0, Rejected 0)\n"
                 "GPUs:        no samples\n"
                 "\n"
                 /* as of 1m30s (complete_until_us): the pods pods_as_of derives */
                 "Time to schedule (created to bound; 3 of 4 pods bound):\n"
                 "  to bound     p50 0s, p90 24s, p95 27s, p99 29.4s, max 30s, mean 10s\n"
                 "  to Running   p50 1s, p90 1s, p95 1s, p99 1s, max 1s, mean 1s (2 pods started)\n"
                 "  pending at end: 1 pod wanting 1 GPU, waiting 1m30s on average, longest 1m30s\n"
                 "  pending GPU-hours: 0.03 (GPUs requested x hours spent waiting for a node)\n"
                 "\n"
                 "Utilisation (GPUs allocated / allocatable, time-weighted) and node-hours:\n"
                 "  gpu           0.05 node-hours, no GPUs allocatable\n"
                 "  cluster       0.05 node-hours\n"
                 "\n"
                 "Pending (2):\n"
                 "  wait-0   " MSG_B "\n"
                 /* bound, not started: the summary shows its last FailedScheduling, as ever */
                 "  bound-0  " MSG_A "\n"
                 "\n"
                 "checks: 0 passed, 0 failed\n"));
    free(out);
}

/* gs_report_describe's output from its "Devices:" line on, and its "At:" line. */
static char *describe(const char *node, int64_t at_us, char *at_line, size_t n)
{
    char *buf = NULL, err[256] = "";
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert_not_null(m);
    int rc = gs_report_describe(partial, node, at_us, m, err, sizeof err);
    fclose(m);
    cr_assert(eq(int, rc, 0), "%s", err);
    const char *at = strstr(buf, "At:");
    cr_assert_not_null(at, "%s", buf);
    snprintf(at_line, n, "%.*s", (int)strcspn(at, "\n"), at);
    const char *dev = strstr(buf, "Devices:");
    cr_assert_not_null(dev, "%s", buf);
    char *tail = strdup(dev);
    free(buf);
    return tail;
}

Test(report, killed_run_describe_shows_bound_pods_where_complete)
{
    kill_writer(write_pods_and_die);
    char at[128];
    /* no --at: where the trace is complete, not the latest time in it */
    char *out = describe("gpu-1", -1, at, sizeof at);
    cr_assert(eq(str, at, "At:                 1m30s"));
    cr_assert(eq(str, out,
                 "Devices:              (1 GPUs NVIDIA-L4)\n"
                 "  GPU 0   MIG disabled                 free    0m  run-0 1000m\n"
                 "Non-terminated Pods:  (1 in total)\n"
                 "  Name   Status     CPU Requests  Memory Requests   nvidia.com/gpu\n"
                 "  run-0  Running    500m          1Mi               1\n"));
    free(out);
    out = describe("gpu-0", -1, at, sizeof at);
    cr_assert(eq(str, out,
                 "Devices:              (1 GPUs NVIDIA-L4)\n"
                 "  GPU 0   MIG disabled                 free    0m  bound-0 1000m\n"
                 "Non-terminated Pods:  (1 in total)\n"
                 "  Name     Status     CPU Requests  Memory Requests   nvidia.com/gpu\n"
                 "  bound-0  Pending    500m          1Mi               1\n"));
    free(out);
    /* before done-0 ended */
    out = describe("gpu-0", GS_SEC(20), at, sizeof at);
    cr_assert(eq(str, at, "At:                 20s"));
    cr_assert(eq(str, out,
                 "Devices:              (1 GPUs NVIDIA-L4)\n"
                 "  GPU 0   MIG disabled                 free    0m  done-0 1000m\n"
                 "Non-terminated Pods:  (1 in total)\n"
                 "  Name    Status     CPU Requests  Memory Requests   nvidia.com/gpu\n"
                 "  done-0  Running    500m          1Mi               1\n"));
    free(out);
}

Test(report, a_fifo_is_refused_not_read, .timeout = 20)
{
    cr_assert(eq(int, mkfifo(path, 0600), 0));
    char err[512] = "", want[512];
    char *out = summary(path, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (a FIFO, not a regular file)", path);
    cr_assert(eq(str, err, want));
    free(out);
    FILE *m = fopen("/dev/null", "w");
    cr_assert_not_null(m);
    cr_assert(eq(int, gs_report_describe(path, "gpu-0", -1, m, err, sizeof err), GS_EINVAL));
    fclose(m);
    cr_assert(eq(str, err, want));
    struct gs_report_state st;
    cr_assert(eq(int, gs_report_trace_state(path, &st, err, sizeof err), GS_EINVAL));
    cr_assert(eq(str, err, want));
    /* a directory too */
    out = summary(dir, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (a directory, not a regular file)", dir);
    cr_assert(eq(str, err, want));
    free(out);
}

Test(report, empty_short_and_tableless_files_are_named)
{
    char err[512] = "", want[512];
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
    char *out = summary(path, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (the file is empty)", path);
    cr_assert(eq(str, err, want));
    free(out);

    /* too short for a database header: SQLite reads it as an empty database */
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("x", f);
    fclose(f);
    out = summary(path, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (not an SQLite database)", path);
    cr_assert(eq(str, err, want));
    free(out);

    /* an SQLite database with nothing in it (a run stopped before its first table) */
    unlink(path);
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open(path, &db), SQLITE_OK));
    cr_assert(eq(int, sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK));
    sqlite3_close(db);
    out = summary(path, GS_EINVAL, err, sizeof err);
    snprintf(want, sizeof want, "'%s' is not a gpusim trace (an empty SQLite database: no tables)", path);
    cr_assert(eq(str, err, want));
    free(out);
}

Test(report, incomplete_note_without_a_checkpoint)
{
    struct gs_report_state st = {.status = "failed", .complete_until_us = -1};
    char note[512];
    gs_report_incomplete_note("t.db.partial", &st, note, sizeof note);
    cr_assert(eq(str, note,
                 "trace 't.db.partial' is incomplete: status failed (the run failed); complete up to no simulated "
                 "time (no checkpoint was committed)"));
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

Test(report, views_load_and_answer)
{
    build_demo();
    FILE *f = fopen(GPUSIM_SOURCE_DIR "/reports/views.sql", "r");
    cr_assert_not_null(f);
    char *sql = NULL;
    size_t len = 0;
    cr_assert_eq(getdelim(&sql, &len, '\0', f) > 0, 1);
    fclose(f);

    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *emsg = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &emsg), SQLITE_OK, "%s", emsg);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &emsg), SQLITE_OK, "loading twice: %s", emsg);
    free(sql);

    cr_assert_eq(q_int(db, "SELECT count(*) FROM pending_pods"), 12);
    cr_assert_eq(q_int(db, "SELECT waiting_s = 180 FROM pending_pods WHERE name = 'wait-0'"), 1);
    cr_assert_eq(
        q_int(db, "SELECT message LIKE '%node affinity%' FROM pending_pods WHERE name = 'wait-1'"),
        1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod_wait"), 4);
    cr_assert_eq(q_int(db, "SELECT wait_s = 3 AND to_start_s = 4 AND node = 'h100-0' FROM pod_wait"
                           " WHERE name = 'train-2'"),
                 1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM gpu_allocation"), 3);
    cr_assert_eq(q_int(db, "SELECT allocated_pct = 50.0 FROM gpu_allocation WHERE t_s = 60"), 1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pool_gpu_allocation WHERE pool = 'h100'"), 2);
    cr_assert_eq(q_int(db, "SELECT pods * 1000 + times FROM scheduling_failures LIMIT 1"), 12012);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM scheduling_failures"), 2);
    cr_assert_eq(q_int(db, "SELECT line FROM failed_checks"), 43);
    sqlite3_close(db);
}
