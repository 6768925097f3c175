/* Scheduling throughput: a 1,000-node, 20,000-pod scenario with arrivals and completions, run
 * through the whole pipeline (loader, engine, queue, scheduler, trace at summary level), in two
 * variants that differ only in the training workload:
 *
 * - steady: training pods arrive at 200/h and run a median 1h, so the 8-GPU pools keep up and
 *   no pod waits long: nearly every cycle binds a pod (the filter + score path);
 * - overloaded: 320/h and a median 90m, more than the 8-GPU pools hold: training pods queue,
 *   every pod deletion requeues them (subject to backoff) and most cycles fail, so the cost is
 *   in failing cycles (filters on every node, the FailedScheduling text, the preemption dry run).
 *
 * Each variant runs in a child process so its CPU time and peak RSS are its own. For each it
 * prints pods bound per second, cycles per second, the share of failing cycles, wall and CPU
 * seconds and peak RSS.
 *
 * usage: bench_sched [steady|overloaded]...   (default: both)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"

struct variant {
    const char *name;
    const char *train_rate;   /* training arrivals per hour */
    const char *train_median; /* training run time, lognormal median */
};

static const struct variant variants[] = {
    {"steady", "200/h", "1h"},
    {"overloaded", "320/h", "90m"},
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

/* 250 + 250 + 300 + 200 = 1,000 nodes; 4,000 + 10,000 + 6,000 = 20,000 pods. */
static const char scenario_fmt[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: bench-sched-%s}\n"
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
    "    arrival: {process: poisson, rate: %s, count: 4000, start: 0s}\n"
    "    duration: {distribution: lognormal, median: %s, sigma: 0.8}\n"
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

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Run one variant in this process and print its figures. Returns the exit status. */
static int run_variant(const struct variant *v)
{
    static char yaml[sizeof scenario_fmt + 256];
    snprintf(yaml, sizeof yaml, scenario_fmt, v->name, v->train_rate, v->train_median);
    struct gs_scenario sc;
    struct gs_error err = {0};
    double t0 = now_s();
    if (gs_scenario_load_string("bench-sched.yaml", yaml, &sc, &err)) {
        fprintf(stderr, "bench_sched: %s:%d:%d: %s\n", err.file, err.line, err.col, err.msg);
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, "/tmp/gpusim-bench-sched-%d.db", (int)getpid());
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_SUMMARY};
    struct gs_run_result r;
    char ebuf[256];
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    double t1 = now_s();
    int rc = gs_run(&sc, &o, &r, ebuf, sizeof ebuf);
    double t2 = now_s();
    getrusage(RUSAGE_SELF, &ru1);
    unlink(path);
    if (rc) {
        fprintf(stderr, "bench_sched: %s: run failed: %s\n", v->name, ebuf);
        gs_scenario_free(&sc);
        return 1;
    }
    double wall = t2 - t1;
    double cpu = tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime) + tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime);
    uint64_t failing = r.cycles > (uint64_t)r.pods_scheduled ? r.cycles - (uint64_t)r.pods_scheduled : 0;
    printf("%s: 1000 nodes, %d pods: %d bound, %llu cycles (%.1f%% failing), %llu events\n", v->name,
           r.pods_created, r.pods_scheduled, (unsigned long long)r.cycles,
           r.cycles ? 100.0 * (double)failing / (double)r.cycles : 0.0, (unsigned long long)r.events);
    printf("%s: %.2f s wall, %.2f s cpu (load %.3f s); %.0f pods bound/s, %.0f cycles/s, %.1f us cpu/cycle\n",
           v->name, wall, cpu, t1 - t0, r.pods_scheduled / wall, (double)r.cycles / wall,
           r.cycles ? cpu * 1e6 / (double)r.cycles : 0.0);
    printf("%s: peak RSS %.1f MiB\n", v->name, (double)ru1.ru_maxrss / 1024.0);
    gs_scenario_free(&sc);
    return 0;
}

int main(int argc, char **argv)
{
    bool want[NVARIANTS] = {0};
    bool any = false;
    for (int i = 1; i < argc; i++) {
        int k = -1;
        for (int j = 0; j < NVARIANTS; j++)
            if (strcmp(argv[i], variants[j].name) == 0)
                k = j;
        if (k < 0) {
            fprintf(stderr, "usage: bench_sched [steady|overloaded]...\n");
            return 2;
        }
        want[k] = any = true;
    }
    int status = 0;
    for (int j = 0; j < NVARIANTS; j++) {
        if (any && !want[j])
            continue;
        /* A child per variant: its rusage (CPU, peak RSS) is its own. */
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("bench_sched: fork");
            return 1;
        }
        if (pid == 0) {
            int rc = run_variant(&variants[j]);
            fflush(stdout);
            _exit(rc);
        }
        int ws;
        if (waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            status = 1;
    }
    return status;
}
