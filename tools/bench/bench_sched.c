/* Scheduling throughput: a 1,000-node, 20,000-pod scenario with arrivals and completions over
 * about 20 simulated hours, loaded near the capacity of its GPU pools (8-GPU training pods
 * queue at times, so failing cycles and their FailedScheduling text are part of the cost), run
 * through the whole pipeline (loader, engine, queue, scheduler, trace at summary level).
 * Prints pods scheduled per second of wall time, cycles per second and peak RSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gpusim/run.h"
#include "gpusim/scenario.h"

static const char scenario[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: bench-sched}\n"
    "spec:\n"
    "  seed: 1\n"
    "  sampleInterval: 5m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: h100, count: 250, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '192', memory: 2Ti},"
    "       taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}\n"
    "    - {name: a100, count: 250, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8}, capacity: {cpu: '128', memory: 1Ti}}\n"
    "    - {name: l4, count: 300, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '48', memory: 192Gi}}\n"
    "    - {name: cpu, count: 200, capacity: {cpu: '64', memory: 256Gi}}\n"
    "  workloads:\n"
    "  - name: train\n"
    "    replicas: 1\n"
    "    arrival: {process: poisson, rate: 320/h, count: 4000, start: 0s}\n"
    "    duration: {distribution: lognormal, median: 90m, sigma: 0.8}\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8, cpu: '32', memory: 256Gi}}}],"
    "      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]}}\n"
    "  - name: infer\n"
    "    replicas: 1\n"
    "    arrival: {process: poisson, rate: 500/h, count: 10000, start: 0s}\n"
    "    duration: {distribution: exponential, mean: 1h}\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1, cpu: '4', memory: 16Gi}}}],"
    "      affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 50, preference:"
    "        {matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}]}}]}}}}\n"
    "  - name: web\n"
    "    replicas: 1\n"
    "    arrival: {process: poisson, rate: 300/h, count: 6000, start: 0s}\n"
    "    duration: {distribution: exponential, mean: 30m}\n"
    "    template: {spec: {containers: [{name: c, resources: {requests: {cpu: '2', memory: 4Gi}}}]}}\n";

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    double t0 = now_s();
    if (gs_scenario_load_string("bench-sched.yaml", scenario, &sc, &err)) {
        fprintf(stderr, "bench_sched: %s:%d:%d: %s\n", err.file, err.line, err.col, err.msg);
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, "/tmp/gpusim-bench-sched-%d.db", (int)getpid());
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_SUMMARY};
    struct gs_run_result r;
    char ebuf[256];
    double t1 = now_s();
    int rc = gs_run(&sc, &o, &r, ebuf, sizeof ebuf);
    double t2 = now_s();
    unlink(path);
    if (rc) {
        fprintf(stderr, "bench_sched: run failed: %s\n", ebuf);
        gs_scenario_free(&sc);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("sched 1000 nodes, %d pods: %d bound, %llu cycles, %llu events in %.2f s (load %.3f s)\n",
           r.pods_created, r.pods_scheduled, (unsigned long long)r.cycles, (unsigned long long)r.events, t2 - t1,
           t1 - t0);
    printf("sched throughput: %.0f pods bound/s, %.0f cycles/s, %.0f events/s\n", r.pods_scheduled / (t2 - t1),
           (double)r.cycles / (t2 - t1), (double)r.events / (t2 - t1));
    printf("sched peak RSS: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    gs_scenario_free(&sc);
    return 0;
}
