/* Loader benchmark: how gs_scenario_load scales with the size of its input.
 *
 * Each shape is generated (into a temporary directory) at size n/2 and n, loaded, and timed in
 * CPU seconds; the ratio t(n) / t(n/2) is about 2 when loading is linear in the input and about
 * 4 when it is quadratic, whatever the machine. The shapes are those of tools/gen-big-scenario,
 * with keys in a scrambled order so that nothing benefits from sorted input:
 *
 *   labels     one node pool whose `labels` mapping has n keys            (n = 40000)
 *   pools      n node pools                                              (n = 20000)
 *   workloads  n plain workloads, 100 PriorityClasses, some nodeName pins (n = 10000)
 *   objects    n PriorityClasses, 256 ResourceClaims, n workloads naming them (n = 10000)
 *   events     n pools, n events naming nodes and pools, n node checks   (n = 10000)
 *   anchors    n anchored label values, a pod template of n aliases      (n = 20000)
 *   big        a scenario of n MiB: one mapping of long label keys       (n = 8)
 *   kubectl    a kubectl snapshot of n/10 nodes and n pods               (n = 100000)
 *   openb      an openb node list of n/10 rows and a pod list of n rows  (n = 200000)
 *
 * Usage: bench_load [SCALE [REPS [SHAPE...]]]   SCALE multiplies every n (default 1; 10 gives a
 * 1,000,000-pod snapshot, an 80 MiB file, ...), REPS keeps the best of that many loads (default
 * 1), SHAPEs select shapes (default all). Prints one line a shape, then the peak RSS:
 *   load labels     n=40000     t(n/2)=0.071 s  t(n)=0.145 s  ratio 2.04
 * Only the public loader API is used, so the same file builds against an older gpusim to
 * compare (make bench BASELINE=DIR). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sim/scenario.h"

static char dir[256];

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static FILE *create(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

static void done(FILE *f)
{
    if (ferror(f) || fclose(f) != 0) {
        fprintf(stderr, "bench_load: cannot write in %s\n", dir);
        exit(2);
    }
}

/* A permutation of 0..n-1: i * P mod n for a prime P that does not divide n. */
static long perm(long i, long n)
{
    static const long primes[] = {7919, 104729, 1299709};
    long p = primes[0];
    for (int k = 1; k < 3 && n % p == 0; k++)
        p = primes[k];
    return (long)(((long long)i * p) % n);
}

static void header(FILE *f, const char *name)
{
    fprintf(f, "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata:\n  name: %s\nspec:\n", name);
}

static void gen_labels(long n)
{
    FILE *f = create("s.yaml");
    header(f, "big-labels");
    fputs("  cluster:\n    nodePools:\n    - name: p\n      count: 1\n      capacity: {cpu: \"8\", memory: 32Gi}\n"
          "      labels:\n", f);
    for (long i = 0; i < n; i++)
        fprintf(f, "        example.com/l-%07ld: v-%ld\n", perm(i, n), i);
    done(f);
}

static void gen_pools(long n)
{
    FILE *f = create("s.yaml");
    header(f, "big-pools");
    fputs("  cluster:\n    nodePools:\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        fprintf(f, "    - {name: p-%ld, count: 1, capacity: {cpu: \"8\", memory: 32Gi}, labels: {example.com/team: t-%ld}}\n",
                k, k % 50);
    }
    done(f);
}

static void gen_workloads(long n)
{
    FILE *f = create("s.yaml");
    header(f, "big-workloads");
    fputs("  objects:\n", f);
    for (int i = 0; i < 100; i++)
        fprintf(f, "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: pc-%d}, value: %d}\n", i, i);
    fputs("  cluster:\n    nodePools:\n    - {name: cpu, count: 100, capacity: {cpu: \"64\", memory: 256Gi}}\n"
          "  workloads:\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        char pin[64] = "";
        if (k % 10 == 0)
            snprintf(pin, sizeof pin, ", nodeName: cpu-%ld", k % 100);
        fprintf(f,
                "  - {name: w-%ld, priorityClassName: pc-%ld, arrival: {at: %lds}, template: {metadata: {labels: {app: "
                "w-%ld}}, spec: {containers: [{name: main, resources: {requests: {cpu: 100m, memory: 64Mi}}}]%s}}}\n",
                k, k % 100, k % 600, k, pin);
    }
    done(f);
}

static void gen_objects(long n)
{
    FILE *f = create("s.yaml");
    header(f, "big-objects");
    fputs("  objects:\n  - {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: fpga.example.com}, spec: "
          "{selectors: [{cel: {expression: \"device.driver == 'fpga.example.com'\"}}]}}\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        fprintf(f, "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: pc-%ld}, value: %ld}\n", k,
                k);
        if (i < 256)
            fprintf(f, "  - {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c-%ld}, spec: {devices: "
                       "{requests: [{name: r, exactly: {deviceClassName: fpga.example.com}}]}}}\n", (i * 7) % 256);
    }
    fputs("  cluster:\n    nodePools:\n    - {name: cpu, count: 10, capacity: {cpu: \"64\", memory: 256Gi}}\n"
          "  workloads:\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        fprintf(f,
                "  - {name: w-%ld, priorityClassName: pc-%ld, template: {spec: {resourceClaims: [{name: x, "
                "resourceClaimName: c-%ld}], containers: [{name: main, resources: {requests: {cpu: 100m}, claims: [{name: "
                "x}]}}]}}}\n",
                k, k, k % 256);
    }
    done(f);
}

static void gen_events(long n)
{
    FILE *f = create("s.yaml");
    header(f, "big-events");
    fputs("  horizon: 10h\n  cluster:\n    nodePools:\n", f);
    for (long i = 0; i < n; i++)
        fprintf(f, "    - {name: p-%ld, count: 2, capacity: {cpu: \"8\", memory: 32Gi}}\n", perm(i, n));
    fputs("  events:\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        if (i % 3 == 0)
            fprintf(f, "  - {at: %lds, cordon: {node: p-%ld-1}}\n", k, k);
        else if (i % 3 == 1)
            fprintf(f, "  - {at: %lds, label: {node: p-%ld-0, set: {example.com/x: \"y\"}}}\n", k, k);
        else
            fprintf(f, "  - {at: %lds, addNodes: {pool: p-%ld, count: 1}}\n", k, k);
    }
    fputs("  expect:\n", f);
    for (long i = 0; i < n; i++)
        fprintf(f, "  - {node: p-%ld-0, at: 1s, schedulable: true}\n", perm(i, n));
    done(f);
}

static void gen_anchors(long n)
{
    FILE *f = create("s.yaml");
    header(f, "big-anchors");
    fputs("  cluster:\n    nodePools:\n    - name: p\n      count: 1\n      capacity: {cpu: \"8\", memory: 32Gi}\n"
          "      labels:\n", f);
    for (long i = 0; i < n; i++)
        fprintf(f, "        example.com/a%ld: &x%ld v%ld\n", i, i, i);
    fputs("  workloads:\n  - name: w\n    template:\n      metadata:\n        labels:\n", f);
    for (long i = 0; i < n; i++)
        fprintf(f, "          example.com/c%ld: *x%ld\n", i, perm(i, n));
    fputs("      spec: {containers: [{name: c}]}\n", f);
    done(f);
}

static void gen_big(long mb)
{
    /* 250-byte lines (2 YAML nodes each: 100 MiB stays under the loader's 1,000,000 nodes). */
    long n = mb * 1048576 / 250;
    /* 160 bytes: a DNS subdomain prefix of the length operators' label keys reach. */
    static const char pre[] = "a-rather-long-dns-subdomain-prefix.of-the-kind-operators-write.for-their-node-la"
                              "bels.example-organisation.example.comxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
    FILE *f = create("s.yaml");
    header(f, "big-file");
    fputs("  cluster:\n    nodePools:\n    - name: p\n      count: 1\n      capacity: {cpu: \"8\", memory: 32Gi}\n"
          "      labels:\n", f);
    for (long i = 0; i < n; i++)
        fprintf(f, "        %s/name-%010ld: value-of-sixty-three-characters-written-for-each-of-the-labels0\n", pre,
                perm(i, n));
    done(f);
}

static void gen_kubectl(long pods)
{
    long n = pods / 10 > 0 ? pods / 10 : 1;
    static const char *const types[] = {"p4d.24xlarge", "g6.12xlarge", "m5.8xlarge", "p5.48xlarge"};
    static const char *const products[] = {"NVIDIA-A100-SXM4-40GB", "NVIDIA-L4", "", "NVIDIA-H100-80GB-HBM3"};
    static const int gpus[] = {8, 4, 0, 8};
    FILE *f = create("nodes.json");
    fputs("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        int t = (int)(k % 4);
        char gpu[96] = "", product[96] = "";
        if (gpus[t]) {
            snprintf(gpu, sizeof gpu, ", \"nvidia.com/gpu\": \"%d\"", gpus[t]);
            snprintf(product, sizeof product, ", \"nvidia.com/gpu.product\": \"%s\"", products[t]);
        }
        fprintf(f,
                "%s{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"ip-%ld\", \"labels\": "
                "{\"kubernetes.io/hostname\": \"ip-%ld\", \"node.kubernetes.io/instance-type\": \"%s\", "
                "\"topology.kubernetes.io/zone\": \"zone-%ld\"%s}}, \"spec\": {%s}, \"status\": {\"capacity\": {\"cpu\": "
                "\"96\", \"memory\": \"1152Gi\", \"pods\": \"110\"%s}, \"allocatable\": {\"cpu\": \"95690m\", \"memory\": "
                "\"1140Gi\", \"pods\": \"110\"%s}}}",
                i ? ",\n" : "", k, k, types[t], k % 3, product, k % 97 == 0 ? "\"unschedulable\": true" : "", gpu, gpu);
    }
    fputs("\n]}\n", f);
    done(f);
    f = create("pods.json");
    fputs("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n", f);
    for (long i = 0; i < pods; i++) {
        long k = perm(i, pods);
        int running = k % 2 == 0;
        char node[64] = "";
        if (running)
            snprintf(node, sizeof node, "\"nodeName\": \"ip-%ld\", ", (long)((k * 31) % n));
        fprintf(f,
                "%s{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"pod-%ld\", \"namespace\": "
                "\"ns-%ld\", \"labels\": {\"app\": \"a-%ld\"}}, \"spec\": {%s\"containers\": [{\"name\": \"main\", "
                "\"resources\": {\"requests\": {\"cpu\": \"%ldm\", \"memory\": \"%ldMi\"}}}]}, \"status\": {\"phase\": "
                "\"%s\"}}",
                i ? ",\n" : "", k, k % 20, k % 1000, node, 10 + k % 90, 16 + k % 100, running ? "Running" : "Pending");
    }
    fputs("\n]}\n", f);
    done(f);
    f = create("s.yaml");
    header(f, "big-kubectl");
    fputs("  cluster:\n    source: {format: kubectl, nodes: nodes.json, pods: pods.json}\n", f);
    done(f);
}

static void gen_openb(long pods)
{
    long n = pods / 10 > 0 ? pods / 10 : 1;
    static const char *const models[] = {"G2", "T4", "V100M16", ""};
    FILE *f = create("nodes.csv");
    fputs("sn,cpu_milli,memory_mib,gpu,model\n", f);
    for (long i = 0; i < n; i++) {
        long k = perm(i, n);
        int t = (int)(k % 4);
        fprintf(f, "openb-node-%07ld,96000,393216,%d,%s\n", k, t == 3 ? 0 : 8 / (t + 1), models[t]);
    }
    done(f);
    f = create("pods.csv");
    fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
          "scheduled_time\n", f);
    for (long i = 0; i < pods; i++) {
        long k = perm(i, pods);
        int g = (int)(k % 3);
        fprintf(f, "openb-pod-%07ld,%ld,%ld,%d,%d,%s,LS,Running,%ld,%ld,%ld\n", k, 1000 + k % 8000, 1024 + k % 4096,
                g == 2 ? 2 : 1, g == 0 ? 500 : 1000, g == 1 ? "T4|G2" : "", i, i + 3600, i);
    }
    done(f);
    f = create("s.yaml");
    header(f, "big-openb");
    fputs("  cluster:\n    source: {format: openb, nodes: nodes.csv}\n"
          "  workloads:\n  - trace: {format: openb, pods: pods.csv}\n", f);
    done(f);
}

struct shape {
    const char *name;
    long n; /* at scale 1 */
    void (*gen)(long n);
};

static const struct shape shapes[] = {
    {"labels", 40000, gen_labels},       {"pools", 20000, gen_pools},   {"workloads", 10000, gen_workloads},
    {"objects", 10000, gen_objects},     {"events", 10000, gen_events}, {"anchors", 20000, gen_anchors},
    {"big", 8, gen_big},
    {"kubectl", 100000, gen_kubectl},    {"openb", 200000, gen_openb},
};

/* Best CPU seconds of `reps` loads of the generated s.yaml. */
static double load(const struct shape *s, int reps)
{
    char path[512];
    snprintf(path, sizeof path, "%s/s.yaml", dir);
    double best = -1;
    for (int r = 0; r < reps; r++) {
        struct gs_scenario sc;
        struct gs_error err = {0};
        double t0 = cpu_s();
        int rc = gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err);
        double dt = cpu_s() - t0;
        if (rc) {
            fprintf(stderr, "bench_load: %s: %s:%d:%d: %s\n", s->name, err.file, err.line, err.col, err.msg);
            exit(1);
        }
        gs_scenario_free(&sc);
        if (best < 0 || dt < best)
            best = dt;
    }
    return best;
}

static void cleanup(void)
{
    static const char *const files[] = {"s.yaml", "nodes.json", "pods.json", "nodes.csv", "pods.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    if (scale <= 0 || reps < 1) {
        fprintf(stderr, "usage: bench_load [SCALE [REPS [SHAPE...]]]\n");
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gpusim-bench-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("bench_load: mkdtemp");
        return 2;
    }
    atexit(cleanup);
    printf("bench_load: CPU seconds of gs_scenario_load at sizes n/2 and n (scale %g, best of %d); ratio 2: "
           "linear, 4: quadratic\n",
           scale, reps);
    fflush(stdout);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const struct shape *s = &shapes[i];
        bool want = argc <= 3;
        for (int a = 3; a < argc; a++)
            want = want || strcmp(argv[a], s->name) == 0;
        if (!want)
            continue;
        long n = (long)((double)s->n * scale);
        if (n < 2)
            n = 2;
        s->gen(n / 2);
        double t1 = load(s, reps);
        s->gen(n);
        double t2 = load(s, reps);
        printf("load %-10s n=%-9ld t(n/2)=%.3f s  t(n)=%.3f s  ratio %.2f\n", s->name, n, t1, t2,
               t1 > 0 ? t2 / t1 : 0.0);
        fflush(stdout);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
