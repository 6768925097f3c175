/* Every accepted scenario runs in bounded memory (sim/limits.h): the peak resident memory of
 * real runs, measured by the kernel (wait4's ru_maxrss), stays under the bound the loader
 * computes and `gpusim validate` prints. Runs the gpusim binary ($GPUSIM_BIN). */
#define _DEFAULT_SOURCE /* wait4 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/limits.h"
#include "sim/scenario.h"

static char dir[64];

static void setup(void)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("memory bounds are for the plain build, not a sanitizer's");
#endif
    if (!getenv("GPUSIM_BIN"))
        cr_skip_test("GPUSIM_BIN is not set (ctest sets it)");
    strcpy(dir, "/tmp/gs-memory-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (dir[0])
        cr_assert(eq(int, system(cmd), 0));
}

TestSuite(memory, .init = setup, .fini = teardown, .timeout = 600);

static const char *write_scenario(const char *name, const char *yaml)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(yaml, f);
    fclose(f);
    return path;
}

/* The bound of the scenario at `path`, as the loader computes it, in bytes; and the one
 * `gpusim validate` prints must be the same, in MiB rounded up. */
static int64_t bound_of(const char *path)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), 0), "%s", err.msg);
    struct gs_scenario_size size;
    gs_scenario_size(&sc, &size);
    gs_scenario_free(&sc);

    char cmd[512], line[512] = "", want[64];
    snprintf(cmd, sizeof cmd, "'%s' validate '%s'", getenv("GPUSIM_BIN"), path);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    char got[512] = "";
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "size: ", 6) == 0)
            snprintf(got, sizeof got, "%s", line);
    cr_assert(eq(int, pclose(p), 0));
    snprintf(want, sizeof want, "memory at most %lld MiB\n", (long long)((size.memory_bytes + (1 << 20) - 1) >> 20));
    cr_assert(ne(ptr, strstr(got, want), NULL), "validate printed '%s', want '%s'", got, want);
    return size.memory_bytes;
}

/* Run `gpusim run path -o dir/name.db` (SIGINT after `stop_after` seconds when > 0) and return
 * its peak resident memory in bytes; *status is its wait status. */
static int64_t peak_of_run(const char *path, const char *name, int stop_after, int *status)
{
    char out[128];
    snprintf(out, sizeof out, "%s/%s.db", dir, name);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout))
            _exit(120);
        execl(getenv("GPUSIM_BIN"), "gpusim", "run", path, "-o", out, "--quiet-progress", (char *)NULL);
        _exit(127);
    }
    if (stop_after > 0) {
        sleep((unsigned)stop_after);
        kill(pid, SIGINT);
    }
    struct rusage ru;
    cr_assert(eq(int, wait4(pid, status, 0, &ru), pid));
    return (int64_t)ru.ru_maxrss * 1024;
}

Test(memory, a_million_pods)
{
    /* 1,000,000 pods, 720 ms apart, 30 s each: about 42 alive at once */
    const char *path = write_scenario("pods",
        "apiVersion: gpusim/v1alpha1\n"
        "kind: Scenario\n"
        "metadata: {name: pods}\n"
        "spec:\n"
        "  horizon: 200h\n"
        "  sampleInterval: 1s\n"
        "  cluster:\n"
        "    nodePools:\n"
        "    - {name: gpu, count: 16, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8}, capacity: {cpu: '64', memory: 512Gi}}\n"
        "  workloads:\n"
        "  - name: tick\n"
        "    arrival: {every: 720ms, count: 1000000, start: 0s}\n"
        "    duration: 30s\n"
        "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n");
    int64_t bound = bound_of(path);
    int status;
    int64_t peak = peak_of_run(path, "pods", 0, &status);
    cr_assert(eq(int, WIFEXITED(status) && WEXITSTATUS(status) == 0, 1), "status %d", status);
    cr_log_info("1,000,000 pods: peak %lld KiB, bound %lld KiB", (long long)peak >> 10, (long long)bound >> 10);
    cr_assert(le(i64, peak, bound));
    /* A finished pod keeps only its record and name (about 150 bytes; docs/scenario-format.md,
     * Limits and memory): 64 MiB + 200 bytes per pod. With the per-pod side tables indexed by
     * every pod ever created (before compaction) this run peaked at 312 MiB. */
    cr_assert(le(i64, peak, (int64_t)64 * 1024 * 1024 + (int64_t)200 * 1000000));
}

Test(memory, the_longest_horizon_with_one_second_samples)
{
    /* samples stream to the trace: memory stays flat however long the run goes */
    const char *path = write_scenario("long",
        "apiVersion: gpusim/v1alpha1\n"
        "kind: Scenario\n"
        "metadata: {name: long}\n"
        "spec:\n"
        "  horizon: 2562047h\n"
        "  sampleInterval: 1s\n"
        "  cluster:\n"
        "    nodePools:\n"
        "    - {name: gpu, count: 2, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8}, capacity: {cpu: '64', memory: 512Gi}}\n"
        "  workloads:\n"
        "  - name: tick\n"
        "    arrival: {every: 10s, count: 1000, start: 0s}\n"
        "    duration: 5s\n"
        "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
        "  expect:\n"
        "  - {metric: gpusAllocated, from: 0s, to: 2562047h, max: 16}\n");
    int64_t bound = bound_of(path);
    int status;
    int64_t peak = peak_of_run(path, "long", 8, &status);
    cr_assert(eq(int, WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT, 1), "status %d", status);
    cr_log_info("2562047h horizon, 8 s of run: peak %lld KiB, bound %lld KiB", (long long)peak >> 10,
                (long long)bound >> 10);
    cr_assert(le(i64, peak, bound));
    /* far less than the 10 MB a second the kept samples grew by */
    cr_assert(lt(i64, peak, 48LL << 20));
}

Test(memory, twenty_thousand_nodes)
{
    const char *path = write_scenario("nodes",
        "apiVersion: gpusim/v1alpha1\n"
        "kind: Scenario\n"
        "metadata: {name: nodes}\n"
        "spec:\n"
        "  horizon: 10m\n"
        "  cluster:\n"
        "    nodePools:\n"
        "    - {name: gpu, count: 20000, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '64', memory: 512Gi}}\n"
        "  workloads:\n"
        "  - name: train\n"
        "    replicas: 2000\n"
        "    arrival: {at: 1m}\n"
        "    duration: 5m\n"
        "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}\n");
    int64_t bound = bound_of(path);
    int status;
    int64_t peak = peak_of_run(path, "nodes", 0, &status);
    cr_assert(eq(int, WIFEXITED(status) && WEXITSTATUS(status) == 0, 1), "status %d", status);
    cr_log_info("20,000 nodes: peak %lld KiB, bound %lld KiB", (long long)peak >> 10, (long long)bound >> 10);
    cr_assert(le(i64, peak, bound));
}

Test(memory, limits_are_refused_at_load)
{
    const char *path = write_scenario("big",
        "apiVersion: gpusim/v1alpha1\n"
        "kind: Scenario\n"
        "metadata: {name: big}\n"
        "spec:\n"
        "  cluster:\n"
        "    nodePools:\n"
        "    - {name: a, count: 60000, capacity: {cpu: '8', memory: 32Gi}}\n"
        "    - {name: b, count: 60000, capacity: {cpu: '8', memory: 32Gi}}\n");
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), GS_EINVAL));
    cr_assert(eq(int, err.line, 6));
    cr_assert(eq(str, err.msg,
                 "spec.cluster has 120000 nodes in all; gpusim runs at most 100000 nodes (the limits are in "
                 "docs/scenario-format.md, \"Limits and memory\")"));

    path = write_scenario("many",
        "apiVersion: gpusim/v1alpha1\n"
        "kind: Scenario\n"
        "metadata: {name: many}\n"
        "spec:\n"
        "  horizon: 1000h\n"
        "  cluster:\n"
        "    nodePools:\n"
        "    - {name: cpu, count: 8, capacity: {cpu: '8', memory: 32Gi}}\n"
        "  workloads:\n"
        "  - name: one\n"
        "    arrival: {at: 0s}\n"
        "    template: {spec: {containers: [{name: c}]}}\n"
        "  - name: tick\n"
        "    replicas: 2\n"
        "    arrival: {every: 100ms, count: 2000000000, start: 0s}\n"
        "    template: {spec: {containers: [{name: c}]}}\n");
    memset(&err, 0, sizeof err);
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), GS_EINVAL));
    cr_assert(eq(int, err.line, 13));
    /* every 100ms over 1000h: 36,000,001 arrivals of 2 pods */
    cr_assert(eq(str, err.msg,
                 "the workloads create 72000003 pods over the run (this one 72000002); gpusim runs at most "
                 "5000000 pods (shorten the horizon or lower count/replicas; the limits are in "
                 "docs/scenario-format.md, \"Limits and memory\")"));

    /* the same workload with a horizon that holds fewer arrivals is fine */
    const char *sets[] = {"horizon=1h"};
    cr_assert(eq(int, gs_scenario_load(path, sets, 1, -1, -1, &sc, &err), 0), "%s", err.msg);
    struct gs_scenario_size size;
    gs_scenario_size(&sc, &size);
    cr_assert(eq(i64, size.pods, 1 + 2 * 36001));
    cr_assert(eq(i64, size.nodes, 8));
    cr_assert(eq(i64, size.memory_bytes, GS_MEM_BASE + 8 * GS_MEM_PER_NODE + 72003 * GS_MEM_PER_POD));
    gs_scenario_free(&sc);
}

/* A LeaderWorkerSet of `replicas` groups of `size`, on 16 8-GPU nodes, with `events` appended. */
static const char *lws_scenario(const char *name, int replicas, int size, const char *events)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: gpusim/v1alpha1\n"
             "kind: Scenario\n"
             "metadata: {name: %s}\n"
             "spec:\n"
             "  horizon: 5m\n"
             "  cluster:\n"
             "    nodePools:\n"
             "    - {name: gpu, count: 16, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8}, capacity: {cpu: '64', memory: 512Gi}}\n"
             "  workloads:\n"
             "  - arrival: {at: 0s}\n"
             "    manifest:\n"
             "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
             "      kind: LeaderWorkerSet\n"
             "      metadata: {name: serve}\n"
             "      spec:\n"
             "        replicas: %d\n"
             "        leaderWorkerTemplate:\n"
             "          size: %d\n"
             "          workerTemplate:\n"
             "            spec:\n"
             "              containers:\n"
             "              - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}\n"
             "%s",
             name, replicas, size, events);
    return write_scenario(name, yaml);
}

Test(memory, leaderworkerset_pods_within_the_bound)
{
    /* 40 groups of 1000: each pod has its own template (1,336 bytes) besides its record. Before
     * LWS pods were counted at that cost, the bound was 88 MiB and the run peaked above it. */
    const char *path = lws_scenario("lws", 40, 1000, "");
    int64_t bound = bound_of(path);
    cr_assert(eq(i64, bound, GS_MEM_BASE + 16 * GS_MEM_PER_NODE + 40000 * (GS_MEM_PER_POD + GS_MEM_PER_LWS_POD)));
    int status;
    int64_t peak = peak_of_run(path, "lws", 0, &status);
    cr_assert(eq(int, WIFEXITED(status) && WEXITSTATUS(status) == 0, 1), "status %d", status);
    cr_log_info("40,000 LeaderWorkerSet pods: peak %lld KiB, bound %lld KiB", (long long)peak >> 10,
                (long long)bound >> 10);
    cr_assert(le(i64, peak, bound));
}

Test(memory, leaderworkerset_scale_events_count)
{
    /* 1 group of 1000 scaled to 50 at 1m, down to 10 at 2m and up to 30 at 3m: 50 + 20 groups
     * are created over the run. Before scale events were counted, validate said 1000 pods (65
     * MiB) and the run peaked above that. */
    const char *path = lws_scenario("scale", 1, 1000,
                                    "  events:\n"
                                    "  - {at: 1m, scale: {kind: LeaderWorkerSet, name: serve, replicas: 50}}\n"
                                    "  - {at: 2m, scale: {kind: LeaderWorkerSet, name: serve, replicas: 10}}\n"
                                    "  - {at: 3m, scale: {kind: LeaderWorkerSet, name: serve, replicas: 30}}\n"
                                    "  - {at: 6m, scale: {kind: LeaderWorkerSet, name: serve, replicas: 9000}}\n");
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), 0), "%s", err.msg);
    struct gs_scenario_size size;
    gs_scenario_size(&sc, &size);
    gs_scenario_free(&sc);
    /* (the event at 6m is after the horizon: it does not run) */
    cr_assert(eq(i64, size.pods, 70000));
    int64_t bound = bound_of(path);
    int status;
    int64_t peak = peak_of_run(path, "scale", 0, &status);
    cr_assert(eq(int, WIFEXITED(status) && WEXITSTATUS(status) == 0, 1), "status %d", status);
    cr_log_info("LeaderWorkerSet scaled to 70,000 pods: peak %lld KiB, bound %lld KiB", (long long)peak >> 10,
                (long long)bound >> 10);
    cr_assert(le(i64, peak, bound));

    /* a scale past the pod limit is refused at the event */
    path = lws_scenario("scale-big", 1, 1000,
                        "  events:\n"
                        "  - {at: 1m, scale: {kind: LeaderWorkerSet, name: serve, replicas: 2000}}\n"
                        "  - {at: 2m, scale: {kind: LeaderWorkerSet, name: serve, replicas: 10000}}\n");
    memset(&err, 0, sizeof err);
    cr_assert(eq(int, gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err), GS_EINVAL));
    cr_assert(eq(int, err.line, 25));
    cr_assert(eq(str, err.msg,
                 "the workloads create 10000000 pods over the run (LeaderWorkerSet serve 10000000, scaled to 10000 "
                 "groups of 1000 here); gpusim runs at most 5000000 pods (lower the replicas; the limits are in "
                 "docs/scenario-format.md, \"Limits and memory\")"));
}
