/* The allocation-failure walk (the pattern of libuv's test/test-loop-oom.c and SQLite's
 * do_faultsim_test): an allocator installed through gs_replace_allocator (base/alloc.h) counts
 * the live allocations and fails the n-th one; for n = 1, 2, 3, ... until the operation
 * succeeds with no failure injected, the operation must end with a clean error (GS_ENOMEM;
 * for the loader an error whose code is GS_ENOMEM too), never a crash or an assertion, and
 * leave no allocation behind once the caller has freed what it owns.
 *
 * (a) gs_scenario_load over scenarios that together reach every decoder (node pools, the
 *     operator, device-plugin configs, MIG, DRA objects and CEL, Kueue, LWS, PodGroups,
 *     Jobs/Pods, the openb and kubectl imports, expect blocks, events, --set overrides).
 * (b) gs_run of a small scenario with bring-up, scheduling, preemption and Kueue, and of teaching
 *     scenarios that reach the other controllers (run_teaching below).
 *
 * jansson allocates through the seam (sim/scenario/json.c routes it with json_set_alloc_funcs, and
 * so does the test); libyaml and SQLite allocate on their own, so the walk covers gpusim's
 * allocations and jansson's (LeakSanitizer, in the ASan build, sees the rest).
 *
 * GPUSIM_OOM_ISOLATE=1 runs every step of (a) in a child process, as (b) always does, so that a
 * crash does not end the walk: every failing step is listed (with the stack of the failed
 * allocation) before the test fails. */
#define _GNU_SOURCE /* dladdr */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "sim/run.h"
#include "sim/scenario.h"

/* Under AddressSanitizer, LeakSanitizer checks the whole process after a walk: memory that
 * libyaml or SQLite lost, which the counting allocator does not see. (A leak report at the
 * exit of a Criterion worker does not fail the test, so the walk asks for the check itself.) */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAKS_FOUND() __lsan_do_recoverable_leak_check()
#else
#define LEAKS_FOUND() 0
#endif

#define SRC GPUSIM_SOURCE_DIR
#define MAX_SITE 24

/* ------------------------------------------------------------------ the failing allocator */

static struct {
    long live;     /* allocations made through the seam and not yet freed */
    long count;    /* allocation calls (malloc, calloc, realloc) since the step was armed */
    long fail_at;  /* the call that fails (1-based); 0: none */
    long failed;   /* failures injected since armed */
    int report_fd; /* in a child step: where the failed allocation's stack goes at once */
    void *site[MAX_SITE];
    int nsite;
} oom = {.report_fd = -1};

enum msg_tag { MSG_SITE = 1, MSG_RESULT = 2 };

struct site_msg {
    int tag;
    int nsite;
    void *site[MAX_SITE];
};

static bool inject(void)
{
    if (++oom.count != oom.fail_at)
        return false;
    oom.failed++;
    oom.nsite = backtrace(oom.site, MAX_SITE);
    if (oom.report_fd >= 0) {
        /* Sent now: the step may crash before it can report. */
        struct site_msg m = {.tag = MSG_SITE, .nsite = oom.nsite};
        memcpy(m.site, oom.site, sizeof m.site);
        if (write(oom.report_fd, &m, sizeof m) != (ssize_t)sizeof m)
            abort();
    }
    return true;
}

static void *t_malloc(size_t n)
{
    if (inject())
        return NULL;
    void *p = malloc(n);
    if (p)
        oom.live++;
    return p;
}

static void *t_calloc(size_t c, size_t n)
{
    if (inject())
        return NULL;
    void *p = calloc(c, n);
    if (p)
        oom.live++;
    return p;
}

static void *t_realloc(void *p, size_t n)
{
    if (inject())
        return NULL;
    void *q = realloc(p, n);
    if (q && !p)
        oom.live++;
    return q;
}

static void t_free(void *p)
{
    if (p)
        oom.live--;
    free(p);
}

static void install(void)
{
    cr_assert(eq(int, gs_replace_allocator(t_malloc, t_realloc, t_calloc, t_free), 0));
    json_set_alloc_funcs(gs_malloc, gs_free);
    oom.live = oom.count = oom.fail_at = oom.failed = 0;
}

static void uninstall(void)
{
    gs_replace_allocator(NULL, NULL, NULL, NULL);
}

/* Count from here on and fail call `n`; arm(0) stops failing (the counts and the site of the
 * last failure stay until the next arm(n)). */
static void arm(long n)
{
    oom.fail_at = n;
    if (n == 0)
        return;
    oom.count = 0;
    oom.failed = 0;
    oom.nsite = 0;
}

/* ------------------------------------------------------------------ steps and the walk */

/* What one step of a walk saw. */
struct result {
    int tag;
    int rc;        /* the operation's return */
    int code;      /* the loader's err.code (the run: rc) */
    long live;     /* allocations left after the caller freed what it owns */
    long count;    /* allocations the operation made */
    long failed;   /* failures injected (0 or 1) */
    int lsan;      /* in a child under ASan: LeakSanitizer found a leak outside the seam */
    char msg[512]; /* the error message */
};

/* One step: run the operation with allocation `n` failing. */
typedef void (*step_fn)(const void *arg, long n, struct result *r);

/* A step that went wrong. */
struct failure {
    long n;
    char what[640];
    int nsite;
    void *site[MAX_SITE];
};

#define MAX_FAILURES 64

struct walk {
    const char *name;
    step_fn step;
    const void *arg;
    bool isolate;      /* each step in a child process; collect failures instead of stopping */
    long walked;       /* allocations walked (the operation's count without failures) */
    int nfail;
    struct failure fail[MAX_FAILURES];
};

/* Run step n in a child: its result, or what killed it. Returns false when the child died. */
static bool step_in_child(struct walk *w, long n, struct result *r, struct site_msg *site, int *status)
{
    int fds[2];
    cr_assert(eq(int, pipe(fds), 0));
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        oom.report_fd = fds[1];
        struct result cr = {0};
        w->step(w->arg, n, &cr);
        cr.lsan = LEAKS_FOUND(); /* _exit skips LeakSanitizer's own check */
        cr.tag = MSG_RESULT;
        if (write(fds[1], &cr, sizeof cr) != (ssize_t)sizeof cr)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    bool got = false;
    site->nsite = 0;
    for (;;) {
        int tag;
        ssize_t k = read(fds[0], &tag, sizeof tag);
        if (k != (ssize_t)sizeof tag)
            break;
        if (tag == MSG_SITE) {
            site->tag = tag;
            if (read(fds[0], (char *)site + sizeof tag, sizeof *site - sizeof tag) !=
                (ssize_t)(sizeof *site - sizeof tag))
                break;
        } else if (tag == MSG_RESULT) {
            r->tag = tag;
            if (read(fds[0], (char *)r + sizeof tag, sizeof *r - sizeof tag) == (ssize_t)(sizeof *r - sizeof tag))
                got = true;
        }
    }
    close(fds[0]);
    cr_assert(eq(int, waitpid(pid, status, 0), pid));
    return got && WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

static void add_failure(struct walk *w, long n, const void *const *site, int nsite, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_failure(struct walk *w, long n, const void *const *site, int nsite, const char *fmt, ...)
{
    if (w->nfail == MAX_FAILURES)
        return;
    struct failure *f = &w->fail[w->nfail++];
    f->n = n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->what, sizeof f->what, fmt, ap);
    va_end(ap);
    f->nsite = nsite;
    if (nsite > 0)
        memcpy(f->site, site, sizeof f->site[0] * (size_t)nsite);
}

/* Print a stack: each frame as function at file:line when addr2line can tell, else
 * module(+offset). */
static void print_stack(FILE *out, void *const *site, int nsite)
{
    for (int i = 1; i < nsite; i++) { /* frame 0 is inject() */
        Dl_info di;
        char line[512] = "";
        if (dladdr(site[i], &di) && di.dli_fname) {
            uintptr_t off = (uintptr_t)site[i] - (uintptr_t)di.dli_fbase - 1; /* the call, not the return */
            /* The test binary may run under another argv[0] (Criterion's boxfort-worker). */
            char exe[512] = "";
            const char *file = di.dli_fname;
            if (!strchr(file, '/')) {
                ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
                exe[k > 0 ? k : 0] = '\0';
                file = exe;
            }
            char cmd[1024];
            snprintf(cmd, sizeof cmd, "addr2line -f -p -s -e '%s' 0x%lx 2>/dev/null", file, (unsigned long)off);
            FILE *p = popen(cmd, "r");
            if (p) {
                if (!fgets(line, sizeof line, p))
                    line[0] = '\0';
                pclose(p);
            }
            line[strcspn(line, "\n")] = '\0';
            if (!line[0] || strstr(line, "??"))
                snprintf(line, sizeof line, "%s(+0x%lx)", di.dli_fname, (unsigned long)off);
        } else {
            snprintf(line, sizeof line, "%p", site[i]);
        }
        fprintf(out, "      #%d %s\n", i, line);
        if (strstr(line, "main at") || strstr(line, "run_test_child"))
            break;
    }
}

/* Check one step's result; false (with a failure recorded) when it is wrong. */
static bool check_step(struct walk *w, long n, const struct result *r, void *const *site, int nsite)
{
    if (r->failed && (r->rc != GS_ENOMEM || r->code != GS_ENOMEM)) {
        add_failure(w, n, (const void *const *)site, nsite,
                    "wrong code: allocation %ld failed, the operation returned %d (code %d, %s), want "
                    "GS_ENOMEM (%d)",
                    n, r->rc, r->code, r->msg, GS_ENOMEM);
        return false;
    }
    if (r->live != 0) {
        add_failure(w, n, (const void *const *)site, nsite, "leak: allocation %ld failed, %ld allocation%s left",
                    n, r->live, r->live == 1 ? "" : "s");
        return false;
    }
    if (r->lsan) {
        add_failure(w, n, (const void *const *)site, nsite,
                    "leak: allocation %ld failed, LeakSanitizer found memory lost outside the seam (its report "
                    "is on stderr)",
                    n);
        return false;
    }
    return true;
}

/* Walk n = 1, 2, ... until a step makes fewer than n allocations (so nothing failed); that step
 * must succeed. Without isolation the first wrong step ends the walk. */
static void walk(struct walk *w)
{
    for (long n = 1;; n++) {
        struct result r = {0};
        struct site_msg site = {0};
        int status = 0;
        if (w->isolate) {
            if (!step_in_child(w, n, &r, &site, &status)) {
                if (WIFSIGNALED(status))
                    add_failure(w, n, (const void *const *)site.site, site.nsite,
                                "crash: allocation %ld failed, the step died of signal %d (%s)", n,
                                WTERMSIG(status), strsignal(WTERMSIG(status)));
                else
                    add_failure(w, n, (const void *const *)site.site, site.nsite,
                                "crash: allocation %ld failed, the step exited with status %d", n,
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
                if (site.nsite == 0)
                    return; /* it died without a failure injected: no point going on */
                continue;
            }
        } else {
            w->step(w->arg, n, &r);
            site.nsite = oom.nsite;
            memcpy(site.site, oom.site, sizeof site.site);
        }
        if (!r.failed) {
            w->walked = n - 1;
            if (r.rc != 0)
                add_failure(w, n, NULL, 0, "the operation failed with no failure injected: %d (%s)", r.rc, r.msg);
            else if (r.live != 0)
                add_failure(w, n, NULL, 0, "leak without a failure injected: %ld allocations left", r.live);
            else if (r.lsan)
                add_failure(w, n, NULL, 0, "leak without a failure injected: LeakSanitizer found memory lost");
            return;
        }
        if (!check_step(w, n, &r, site.site, site.nsite) && !w->isolate)
            return;
    }
}

/* Print the failures of a walk (with the stack of each failed allocation) on stderr. */
static void report(const struct walk *w)
{
    for (int i = 0; i < w->nfail; i++) {
        fprintf(stderr, "  %s: step %ld: %s\n", w->name, w->fail[i].n, w->fail[i].what);
        if (w->fail[i].nsite) {
            fprintf(stderr, "    the failed allocation:\n");
            print_stack(stderr, w->fail[i].site, w->fail[i].nsite);
        }
    }
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

/* ------------------------------------------------------------------ (a) the loader */

struct load_case {
    const char *name;
    const char *file; /* a scenario in the repository, or */
    const char *text; /* one written to a temporary directory for the walk */
    const char *const *sets;
    int nsets;
    char path[512];
};

static void load_step(const void *arg, long n, struct result *r)
{
    const struct load_case *c = arg;
    struct gs_scenario sc;
    struct gs_error err;
    memset(&err, 0, sizeof err);
    arm(n);
    r->rc = gs_scenario_load(c->path, c->sets, c->nsets, -1, -1, &sc, &err);
    r->code = err.code;
    snprintf(r->msg, sizeof r->msg, "%.100s:%d:%d: %.380s", err.file, err.line, err.col, err.msg);
    if (r->rc == 0)
        gs_scenario_free(&sc);
    r->count = oom.count;
    r->failed = oom.failed;
    arm(0);
    r->live = oom.live;
}

/* --set overrides on quickstart.yaml: a relative and an absolute path, a new map key, a key
 * with dots and a slash, an appended sequence item with a flow mapping, a scalar replaced. */
static const char *const quickstart_sets[] = {
    "horizon=2h",
    "cluster.nodePools[0].count=3",
    "cluster.nodePools[1].labels.team=a",
    "cluster.nodePools[1].labels[example.com/tier]=gold",
    "workloads[0].replicas=2",
    "workloads[3]={name: extra, arrival: {at: 1m}, template: {spec: {containers: [{name: c}]}}}",
    "metadata.description=walked",
    "scheduler.tieBreak=first",
};

/* Scenarios written for the walk: loaded, never run (their expectations need not hold). */

/* spec.catalog, host drivers, the whole operator section (device-plugin configs:
 * named, time-slicing with renames and device lists, MPS, an unknown key; mig-parted configs;
 * inline timings), every kind of event and expectation. */
static const char decoders_operator[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: oom-operator, description: operator catalog device-plugin MIG events expectations}\n"
    "spec:\n"
    "  seed: 7\n"
    "  horizon: 6h\n"
    "  sampleInterval: 5m\n"
    "  startLatency: 2s\n"
    "  featureGates: {DynamicResourceAllocation: true}\n"
    "  versions: {gpu-operator: v25.3.0, k8s-device-plugin: v0.19.1}\n"
    "  catalog:\n"
    "    gpus:\n"
    "    - {product: NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition, nvmlName: NVIDIA RTX PRO 6000"
    " Blackwell Server Edition, memoryMiB: 97887, computeCapability: \"12.0\", family: blackwell,"
    " migCapable: true, typicalPerNode: 8, architecture: Blackwell, brand: NvidiaRTX}\n"
    "    timingProfiles:\n"
    "      glacial: {base: slow-compile, reboot: 20m, driverCompile: {uniform: [1m, 2m]}}\n"
    "    driverBuildFailures:\n"
    "    - {kernelAtLeast: 6.8.0, driverBelow: \"550\", message: \"error: implicit declaration\"}\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - name: h100\n"
    "      count: 2\n"
    "      gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}\n"
    "      capacity: {cpu: \"96\", memory: 1Ti}\n"
    "      reserved: {cpu: 500m, memory: 2Gi}\n"
    "      kernel: 5.15.0-117-generic\n"
    "      labels: {nvidia.com/device-plugin.config: sliced, nvidia.com/mig.config: all-1g.10gb,"
    " topology.kubernetes.io/zone: a}\n"
    "      taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n"
    "    - name: rtx\n"
    "      count: 1\n"
    "      gpu: {product: NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition, count: 4}\n"
    "      capacity: {cpu: \"64\", memory: 512Gi}\n"
    "      kernel: 6.8.0-45-generic\n"
    "      hostDriver: {version: 580.159.04, kernels: [6.8.0-45-generic, 6.8.0-46-generic]}\n"
    "    - {name: cpu, count: 1, capacity: {cpu: \"16\", memory: 64Gi}}\n"
    "  operator:\n"
    "    managedBy: gpu-operator\n"
    "    driver: {enabled: true, usePrecompiled: false, version: \"550.90.07\", repository:"
    " nvcr.io/nvidia}\n"
    "    toolkit: {enabled: true}\n"
    "    devicePlugin:\n"
    "      enabled: true\n"
    "      env: [{name: PASS_DEVICE_SPECS, value: \"true\"}, {name: DP_DISABLE_HEALTHCHECKS, value:"
    " \"94, 79\"}]\n"
    "      config:\n"
    "        name: plugin-configs\n"
    "        default: whole\n"
    "        data:\n"
    "          whole: {version: v1, flags: {migStrategy: mixed, failOnInitError: true, plugin:"
    " {passDeviceSpecs: true}, gfd: {oneshot: false}}}\n"
    "          sliced:\n"
    "            version: v1\n"
    "            flags: {migStrategy: none}\n"
    "            sharing: {timeSlicing: {renameByDefault: true, resources: [{name: nvidia.com/gpu,"
    " replicas: 4, devices: [0, \"1\"]}, {name: gpu, rename: gpu-small, replicas: 2, devices: 2}]}}\n"
    "          mps: |-\n"
    "            version: v1\n"
    "            sharing:\n"
    "              mps:\n"
    "                resources: [{name: nvidia.com/gpu, replicas: 2}]\n"
    "            unknownKey: 1\n"
    "    gfd: {enabled: true}\n"
    "    dcgmExporter: {enabled: false}\n"
    "    migManager:\n"
    "      enabled: true\n"
    "      config: all-disabled\n"
    "      configFile:\n"
    "        version: v1\n"
    "        mig-configs:\n"
    "          all-disabled: [{devices: all, mig-enabled: false}]\n"
    "          all-1g.10gb: [{devices: all, mig-enabled: true, mig-devices: {1g.10gb: 7}}]\n"
    "          half: [{devices: [0, 1, 2, 3], mig-enabled: true, mig-devices: {1g.10gb: 7}}, {devices:"
    " [4, 5, 6, 7], mig-enabled: false}]\n"
    "    mig: {strategy: none}\n"
    "    timings: {base: glacial, reboot: 3m, driverCompile: 10m}\n"
    "    precompiledKernels: [5.15.0-117-generic, 5.15.0-118-generic]\n"
    "    availableHeaders: [5.15.0-117-generic]\n"
    "    daemonsets:\n"
    "      tolerations: [{key: workload, value: aiml, effect: NoSchedule}]\n"
    "    validator:\n"
    "      plugin: {env: [{name: WITH_WORKLOAD, value: \"false\"}]}\n"
    "    nfd:\n"
    "      enabled: true\n"
    "      worker:\n"
    "        tolerations: [{key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}]\n"
    "  workloads:\n"
    "  - name: sliced\n"
    "    replicas: 3\n"
    "    arrival: {at: 30m, stagger: 10s}\n"
    "    template:\n"
    "      metadata: {labels: {app: sliced}}\n"
    "      spec:\n"
    "        tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n"
    "        containers: [{name: main, resources: {limits: {nvidia.com/gpu.shared: 1}}}]\n"
    "  events:\n"
    "  - {at: 40m, xid: {node: h100-1, gpu: 7, code: 79}}\n"
    "  - {at: 30m, kernelPatch: {pool: h100, kernel: 5.15.0-118-generic, maxUnavailable: 2}}\n"
    "  - {at: 31m, kernelPatch: {pool: h100, kernel: k2, maxUnavailable: \"50%\", rebootDuration: 5m}}\n"
    "  - {at: 2h, devicePluginRestart: {node: h100-0}}\n"
    "  - {at: 3h, precompiledImagePublished: {kernel: 5.15.0-118-generic}}\n"
    "  - at: 4h\n"
    "    driverUpgrade:\n"
    "      version: \"570.124.06\"\n"
    "      maxParallelUpgrades: 0\n"
    "      maxUnavailable: 1\n"
    "      drain: {enable: true, force: true, timeoutSeconds: 600, deleteEmptyDir: true}\n"
    "  - {at: 1m, cordon: {node: cpu-0}}\n"
    "  - {at: 2m, uncordon: {node: cpu-0}}\n"
    "  - {at: 3m, label: {node: cpu-0, set: {team: a, old: null}}}\n"
    "  - {at: 4m, addNodes: {pool: cpu, count: 2}}\n"
    "  - {at: 5m, drain: {node: cpu-1}}\n"
    "  - {at: 6m, deleteNode: {node: cpu-2}}\n"
    "  - {at: 50m, deletePod: {pod: sliced-0}}\n"
    "  - {at: 5h, schedulerRestart: {schedulerName: default-scheduler, downtime: 30s}}\n"
    "  expect:\n"
    "  - node: h100-0\n"
    "    at: 25m\n"
    "    operand: {nvidia-driver-daemonset: Running, nvidia-operator-validator: \"Init:0/4\","
    " gpu-feature-discovery: null}\n"
    "    allocatable: {nvidia.com/gpu: \"0\"}\n"
    "    capacity: {cpu: \"96\"}\n"
    "    labels: {topology.kubernetes.io/zone: a, nvidia.com/gpu.present: null}\n"
    "    schedulable: true\n"
    "  - object: {kind: DaemonSet, name: nvidia-driver-daemonset, namespace: gpu-operator}\n"
    "    at: 1h\n"
    "    status: {desiredNumberScheduled: 2, numberReady: 2}\n"
    "  - pods: {workload: sliced, phase: Running, labelSelector: {app: sliced}, node: h100-0,"
    " namePrefix: sliced-}\n"
    "    at: 1h\n"
    "    min: 0\n"
    "    max: 3\n"
    "  - pod: sliced-1\n"
    "    phase: Running\n"
    "    conditions: [{type: Ready, status: \"True\"}]\n"
    "    scheduledWithin: 10m\n"
    "  - metric: gpusAllocated\n"
    "    from: 1h\n"
    "    to: 2h\n"
    "    min: 0\n"
    "    max: 24\n";

/* a KubeSchedulerConfiguration with every plugin's args, PriorityClasses, a
 * PodGroup, Job and Pod manifests, node affinity, the gpu-milli annotation, a Poisson arrival,
 * a YAML anchor and alias, containers the API server refuses (the validation messages), an
 * openb trace at a rate, DRA's driver version. */
static const char decoders_scheduling[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: oom-scheduling}\n"
    "spec:\n"
    "  horizon: 1h\n"
    "  kubernetesVersion: \"1.34\"\n"
    "  versions: {dra-driver-nvidia-gpu: \"0.4.1\"}\n"
    "  scheduler:\n"
    "    tieBreak: first\n"
    "    admission: gang\n"
    "    config:\n"
    "      apiVersion: kubescheduler.config.k8s.io/v1\n"
    "      kind: KubeSchedulerConfiguration\n"
    "      percentageOfNodesToScore: 100\n"
    "      profiles:\n"
    "      - schedulerName: default-scheduler\n"
    "        plugins:\n"
    "          multiPoint:\n"
    "            enabled: [{name: Coscheduling}, {name: NodeAffinity, weight: 7}]\n"
    "          queueSort:\n"
    "            enabled: [{name: Coscheduling}]\n"
    "            disabled: [{name: \"*\"}]\n"
    "          score:\n"
    "            disabled: [{name: NodeResourcesBalancedAllocation}]\n"
    "            enabled: [{name: NodeResourcesFit, weight: 5}, {name: FGDScore, weight: 10}]\n"
    "        pluginConfig:\n"
    "        - name: NodeResourcesFit\n"
    "          args:\n"
    "            ignoredResourceGroups: [example.com]\n"
    "            scoringStrategy:\n"
    "              type: RequestedToCapacityRatio\n"
    "              resources: [{name: cpu, weight: 1}, {name: nvidia.com/gpu, weight: 3}]\n"
    "              requestedToCapacityRatio:\n"
    "                shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]\n"
    "        - name: NodeResourcesBalancedAllocation\n"
    "          args: {resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}\n"
    "        - name: DefaultPreemption\n"
    "          args: {minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: 50}\n"
    "        - name: Coscheduling\n"
    "          args: {permitWaitingTimeSeconds: 60, podGroupBackoffSeconds: 30}\n"
    "        - name: FGDScore\n"
    "          args: {dimExtMethod: share, normMethod: max}\n"
    "  objects:\n"
    "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n"
    "  - apiVersion: scheduling.k8s.io/v1\n"
    "    kind: PriorityClass\n"
    "    metadata: {name: low}\n"
    "    value: -5\n"
    "    globalDefault: true\n"
    "    preemptionPolicy: Never\n"
    "    description: batch\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - name: l4\n"
    "      count: 3\n"
    "      gpu: {product: NVIDIA-L4, count: 2}\n"
    "      capacity: {cpu: \"32\", memory: 128Gi}\n"
    "      labels: {zone: a}\n"
    "    - {name: cpu, count: 1, capacity: {cpu: \"16\", memory: 64Gi}}\n"
    "  workloads:\n"
    "  - manifest: {apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, metadata: {name:"
    " train-group}, spec: {minMember: 2}}\n"
    "  - manifest:\n"
    "      apiVersion: batch/v1\n"
    "      kind: Job\n"
    "      metadata: {name: train}\n"
    "      spec:\n"
    "        parallelism: 2\n"
    "        completions: 2\n"
    "        template:\n"
    "          metadata: {labels: {scheduling.x-k8s.io/pod-group: train-group}}\n"
    "          spec:\n"
    "            restartPolicy: Never\n"
    "            priorityClassName: high\n"
    "            containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
    "    arrival: {at: 1s}\n"
    "    duration: 10m\n"
    "  - manifest:\n"
    "      apiVersion: v1\n"
    "      kind: Pod\n"
    "      metadata: {name: lone, labels: {app: lone}, annotations: {alibabacloud.com/gpu-milli:"
    " \"500\"}}\n"
    "      spec:\n"
    "        containers: [{name: a, resources: {requests: {cpu: 100m}}}]\n"
    "        affinity:\n"
    "          nodeAffinity:\n"
    "            requiredDuringSchedulingIgnoredDuringExecution:\n"
    "              nodeSelectorTerms:\n"
    "              - matchExpressions:\n"
    "                - {key: nvidia.com/gpu.memory, operator: Gt, values: [\"4000\"]}\n"
    "                - {key: zone, operator: In, values: [a, b]}\n"
    "              - matchFields:\n"
    "                - {key: metadata.name, operator: In, values: [l4-1]}\n"
    "            preferredDuringSchedulingIgnoredDuringExecution:\n"
    "            - weight: 20\n"
    "              preference:\n"
    "                matchExpressions: [{key: rack, operator: DoesNotExist}]\n"
    "    arrival: {at: 2s}\n"
    "  - name: stream\n"
    "    arrival: {process: poisson, rate: 12/h, count: 5}\n"
    "    duration: {distribution: exponential, mean: 5m}\n"
    "    template:\n"
    "      spec:\n"
    "        containers: &containers [{name: s, resources: {limits: {cpu: \"1\", memory: 1Gi}}}]\n"
    "  - name: again\n"
    "    arrival: {at: 5m}\n"
    "    template: {spec: {containers: *containers}}\n"
    "  - name: refused\n"
    "    arrival: {at: 1m}\n"
    "    template:\n"
    "      spec:\n"
    "        containers:\n"
    "        - {name: a, resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 3}}}\n"
    "        - {name: b, resources: {limits: {nvidia.com/gpu: 0.5, hugepages-2Mi: 3Mi, memory: 1Gi}}}\n"
    "  - name: replay\n"
    "    trace: {format: openb, pods: " SRC "/tests/fixtures/openb/pods.csv, rate: 2/s, start: 1m, limit: 3}\n"
    "  expect:\n"
    "  - podGroup: train-group\n"
    "    phase: Running\n"
    "    at: 5m\n"
    "  - pod: lone\n"
    "    at: 1m\n"
    "    phase: Running\n"
    "    nominatedNodeName: \"\"\n"
    "    reason: \"\"\n"
    "  - pods: {workload: stream}\n"
    "    count: 5\n"
    "  - metric: podsPending\n"
    "    at: 30m\n"
    "    equals: 0\n";

/* Kueue: a Configuration, a version, a Topology, flavors with taints and
 * tolerations, cohorts, preemption, a LeaderWorkerSet with a rollout strategy. */
static const char decoders_kueue[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: oom-kueue}\n"
    "spec:\n"
    "  horizon: 20m\n"
    "  versions: {kueue: v0.14.1}\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - name: h100\n"
    "      count: 4\n"
    "      gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}\n"
    "      capacity: {cpu: \"192\", memory: 2Ti}\n"
    "      topology: {nodesPerRack: 2, rackLabel: cloud.example/rack}\n"
    "      taints: [{key: spot, value: \"true\", effect: NoSchedule}]\n"
    "  scheduler:\n"
    "    admission: kueue\n"
    "    kueueConfig:\n"
    "      apiVersion: config.kueue.x-k8s.io/v1beta1\n"
    "      kind: Configuration\n"
    "      waitForPodsReady: {enable: true, timeout: 2m, blockAdmission: false, requeuingStrategy:"
    " {timestamp: Eviction, backoffLimitCount: 3, backoffBaseSeconds: 10, backoffMaxSeconds: 600}}\n"
    "  objects:\n"
    "  - apiVersion: kueue.x-k8s.io/v1alpha1\n"
    "    kind: Topology\n"
    "    metadata: {name: rack-topology}\n"
    "    spec:\n"
    "      levels: [{nodeLabel: cloud.example/rack}, {nodeLabel: kubernetes.io/hostname}]\n"
    "  - apiVersion: kueue.x-k8s.io/v1beta1\n"
    "    kind: ResourceFlavor\n"
    "    metadata: {name: spot}\n"
    "    spec:\n"
    "      nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n"
    "      nodeTaints: [{key: spot, value: \"true\", effect: NoSchedule}]\n"
    "      tolerations: [{key: spot, operator: Equal, value: \"true\", effect: NoSchedule}]\n"
    "      topologyName: rack-topology\n"
    "  - apiVersion: kueue.x-k8s.io/v1beta1\n"
    "    kind: ClusterQueue\n"
    "    metadata: {name: cq}\n"
    "    spec:\n"
    "      namespaceSelector: {matchLabels: {team: a}}\n"
    "      cohort: co\n"
    "      queueingStrategy: StrictFIFO\n"
    "      preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority, borrowWithinCohort:"
    " {policy: LowerPriority, maxPriorityThreshold: 100}}\n"
    "      resourceGroups:\n"
    "      - coveredResources: [cpu, nvidia.com/gpu]\n"
    "        flavors:\n"
    "        - name: spot\n"
    "          resources: [{name: cpu, nominalQuota: \"400\"}, {name: nvidia.com/gpu, nominalQuota: 24,"
    " borrowingLimit: 8, lendingLimit: 4}]\n"
    "  - apiVersion: kueue.x-k8s.io/v1beta1\n"
    "    kind: ClusterQueue\n"
    "    metadata: {name: other}\n"
    "    spec:\n"
    "      namespaceSelector: {}\n"
    "      cohort: co\n"
    "      resourceGroups:\n"
    "      - coveredResources: [nvidia.com/gpu]\n"
    "        flavors:\n"
    "        - name: spot\n"
    "          resources: [{name: nvidia.com/gpu, nominalQuota: 8}]\n"
    "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: LocalQueue, metadata: {name: lq, namespace:"
    " default}, spec: {clusterQueue: other}}\n"
    "  workloads:\n"
    "  - arrival: {at: 0s}\n"
    "    manifest:\n"
    "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
    "      kind: LeaderWorkerSet\n"
    "      metadata:\n"
    "        name: vllm\n"
    "        labels: {kueue.x-k8s.io/queue-name: lq}\n"
    "      spec:\n"
    "        replicas: 1\n"
    "        startupPolicy: LeaderCreated\n"
    "        rolloutStrategy: {type: RollingUpdate, rollingUpdateConfiguration: {maxSurge: 25%,"
    " maxUnavailable: 1}}\n"
    "        leaderWorkerTemplate:\n"
    "          size: 2\n"
    "          restartPolicy: RecreateGroupOnPodRestart\n"
    "          workerTemplate:\n"
    "            metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: cloud.example/rack}}\n"
    "            spec:\n"
    "              tolerations: [{key: spot, operator: Exists}]\n"
    "              containers: [{name: vllm, resources: {limits: {nvidia.com/gpu: 2}}}]\n"
    "  - manifest:\n"
    "      apiVersion: batch/v1\n"
    "      kind: Job\n"
    "      metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq}}\n"
    "      spec:\n"
    "        parallelism: 2\n"
    "        template:\n"
    "          metadata: {annotations: {kueue.x-k8s.io/podset-preferred-topology: cloud.example/rack}}\n"
    "          spec:\n"
    "            restartPolicy: Never\n"
    "            tolerations: [{key: spot, operator: Exists}]\n"
    "            containers: [{name: main, resources: {limits: {nvidia.com/gpu: 4}}}]\n"
    "    arrival: {at: 1m}\n"
    "  events:\n"
    "  - {at: 5m, scale: {kind: LeaderWorkerSet, name: vllm, replicas: 2}}\n"
    "  expect:\n"
    "  - object: {kind: Workload, name: vllm-0}\n"
    "    conditions: [{type: Admitted, status: \"True\", reason: Admitted, messageContains: \"cq\"}]\n"
    "  - object: {kind: Workload, name: j}\n"
    "    exists: true\n"
    "  - pods: {workload: j}\n"
    "    at: 10m\n"
    "    count: 2\n";

/* Together these reach every decoder of sim/scenario/ that allocates: node pools and the GPU
 * catalog (every case), --set (quickstart), the kubectl snapshot (from-snapshot: JSON through
 * jansson) and openb CSV imports with an openb trace (openb-sample), DRA objects, claims and
 * CEL selectors (dra-memory-selector), ResourceClaim status expectations (dra-shared-claim), MIG
 * (mig-mixed), and the three scenarios above for the rest. */
static struct load_case load_cases[] = {
    {.name = "quickstart.yaml", .file = "scenarios/quickstart.yaml", .sets = quickstart_sets,
     .nsets = (int)(sizeof quickstart_sets / sizeof *quickstart_sets)},
    {.name = "from-snapshot.yaml", .file = "scenarios/teaching/from-snapshot.yaml"},
    {.name = "openb-sample.yaml", .file = "scenarios/teaching/openb-sample.yaml"},
    {.name = "dra-memory-selector.yaml", .file = "scenarios/teaching/dra-memory-selector.yaml"},
    {.name = "dra-shared-claim.yaml", .file = "scenarios/teaching/dra-shared-claim.yaml"},
    {.name = "mig-mixed.yaml", .file = "scenarios/teaching/mig-mixed.yaml"},
    {.name = "decoders-operator.yaml", .text = decoders_operator},
    {.name = "decoders-scheduling.yaml", .text = decoders_scheduling},
    {.name = "decoders-kueue.yaml", .text = decoders_kueue},
};

#define NLOAD (sizeof load_cases / sizeof *load_cases)

/* Make every case's path; the inline ones are written to `dir`. */
static void load_cases_prepare(const char *dir)
{
    for (size_t i = 0; i < NLOAD; i++) {
        struct load_case *c = &load_cases[i];
        if (c->file) {
            snprintf(c->path, sizeof c->path, "%s/%s", SRC, c->file);
            continue;
        }
        snprintf(c->path, sizeof c->path, "%s/%s", dir, c->name);
        FILE *f = fopen(c->path, "w");
        cr_assert(ne(ptr, f, NULL), "%s", c->path);
        fputs(c->text, f);
        cr_assert(eq(int, fclose(f), 0));
    }
}

static void load_cases_remove(void)
{
    for (size_t i = 0; i < NLOAD; i++)
        if (load_cases[i].text)
            remove(load_cases[i].path);
}

Test(oom, load_walk)
{
    char dir[] = "/tmp/gpusim-oom-XXXXXX";
    cr_assert(ne(ptr, mkdtemp(dir), NULL));
    load_cases_prepare(dir);
    install();
    bool isolate = env_on("GPUSIM_OOM_ISOLATE");
    static struct walk w[NLOAD];
    int nfail = 0;
    long total = 0;
    double t0 = now_s();
    for (size_t i = 0; i < NLOAD; i++) {
        const struct load_case *c = &load_cases[i];
        w[i] = (struct walk){.name = c->name, .step = load_step, .arg = c, .isolate = isolate};
        double t = now_s();
        walk(&w[i]);
        cr_log_info("load %s: %ld allocations walked, %.2f s", w[i].name, w[i].walked, now_s() - t);
        /* Every case loads the GPU catalog: a short walk did not reach the decoders. */
        cr_expect(gt(long, w[i].walked, 300), "%s: only %ld allocations", w[i].name, w[i].walked);
        total += w[i].walked;
        nfail += w[i].nfail;
        if (w[i].nfail && !isolate)
            break;
    }
    cr_log_info("load walk: %ld allocations in %.2f s", total, now_s() - t0);
    uninstall();
    load_cases_remove();
    rmdir(dir);
    for (size_t i = 0; i < NLOAD; i++)
        if (w[i].nfail)
            report(&w[i]);
    cr_assert(eq(int, nfail, 0), "%d failing step%s (listed on stderr)", nfail, nfail == 1 ? "" : "s");
    cr_assert(eq(int, LEAKS_FOUND(), 0), "LeakSanitizer found leaks (listed on stderr)");
}

/* The allocator itself: the n-th call fails once, and live allocations are counted. */
Test(oom, allocator_fails_the_nth_call)
{
    install();
    arm(2);
    void *a = gs_malloc(8), *b = gs_malloc(8), *c = gs_calloc(2, 8);
    cr_assert(ne(ptr, a, NULL));
    cr_assert(eq(ptr, b, NULL));
    cr_assert(ne(ptr, c, NULL));
    cr_assert(eq(long, oom.count, 3));
    cr_assert(eq(long, oom.failed, 1));
    cr_assert(eq(long, oom.live, 2));
    char *s = gs_strdup("x");
    cr_assert(eq(long, oom.live, 3));
    gs_free(a);
    gs_free(c);
    gs_free(s);
    cr_assert(eq(long, oom.live, 0));
    /* jansson goes through the seam too. */
    arm(0);
    json_t *j = json_string("gpusim");
    cr_assert(gt(long, oom.live, 0));
    json_decref(j);
    cr_assert(eq(long, oom.live, 0));
    uninstall();
}

/* A failure is reported, not swallowed: the first allocation of a load fails it. */
Test(oom, first_allocation_fails_the_load)
{
    install();
    struct load_case c = {.name = "quickstart.yaml", .path = SRC "/scenarios/quickstart.yaml"};
    struct result r = {0};
    load_step(&c, 1, &r);
    uninstall();
    cr_assert(eq(long, r.failed, 1));
    cr_assert(eq(int, r.rc, GS_ENOMEM));
    cr_assert(eq(int, r.code, GS_ENOMEM));
    cr_assert(eq(long, r.live, 0));
}

/* ------------------------------------------------------------------ (b) a run */

/* Bring-up under the GPU Operator (nodes join unschedulable until their operand chain is
 * done), Kueue admission (a Job admitted through a ClusterQueue) and kube-scheduler preemption
 * (the high-priority pod evicts the Job's pod, the lowest in priority), in 12 minutes of
 * simulated time. */
static const char run_scenario[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: oom-run}\n"
    "spec:\n"
    "  horizon: 12m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - name: h100\n"
    "      count: 2\n"
    "      gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}\n"
    "      capacity: {cpu: \"192\", memory: 2Ti}\n"
    "      kernel: 5.15.0-105-generic\n"
    "  operator:\n"
    "    driver: {enabled: true, usePrecompiled: true, version: \"550\"}\n"
    "    toolkit: {enabled: true}\n"
    "    timings: precompiled\n"
    "    precompiledKernels: [5.15.0-105-generic]\n"
    "  scheduler:\n"
    "    admission: kueue\n"
    "  objects:\n"
    "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: low}, value: 100}\n"
    "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n"
    "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: ResourceFlavor, metadata: {name: default-flavor}}\n"
    "  - apiVersion: kueue.x-k8s.io/v1beta1\n"
    "    kind: ClusterQueue\n"
    "    metadata: {name: team}\n"
    "    spec:\n"
    "      namespaceSelector: {}\n"
    "      resourceGroups:\n"
    "      - coveredResources: [nvidia.com/gpu]\n"
    "        flavors:\n"
    "        - name: default-flavor\n"
    "          resources: [{name: nvidia.com/gpu, nominalQuota: 8}]\n"
    "  - {apiVersion: kueue.x-k8s.io/v1beta1, kind: LocalQueue, metadata: {name: team, namespace: default},"
    " spec: {clusterQueue: team}}\n"
    "  workloads:\n"
    "  - manifest:\n"
    "      apiVersion: batch/v1\n"
    "      kind: Job\n"
    "      metadata: {name: queued, labels: {kueue.x-k8s.io/queue-name: team}}\n"
    "      spec:\n"
    "        template:\n"
    "          spec:\n"
    "            restartPolicy: Never\n"
    "            containers:\n"
    "            - name: main\n"
    "              resources: {limits: {nvidia.com/gpu: 8}}\n"
    "    arrival: {at: 0s}\n"
    "    duration: 5m\n"
    "  - name: low\n"
    "    arrival: {at: 10s}\n"
    "    template:\n"
    "      spec:\n"
    "        priorityClassName: low\n"
    "        terminationGracePeriodSeconds: 30\n"
    "        containers: [{name: main, resources: {limits: {nvidia.com/gpu: 8}}}]\n"
    "  - name: high\n"
    "    arrival: {at: 3m}\n"
    "    template:\n"
    "      spec:\n"
    "        priorityClassName: high\n"
    "        containers: [{name: main, resources: {limits: {nvidia.com/gpu: 8}}}]\n"
    "  expect:\n"
    "  - node: h100-0\n"
    "    at: 1m\n"
    "    schedulable: false\n"
    "  - object: {kind: Workload, name: queued}\n"
    "    at: 2m30s\n"
    "    conditions: [{type: Admitted, status: \"True\"}]\n"
    "  - pod: queued\n"
    "    at: 2m30s\n"
    "    phase: Running\n"
    "  - pod: low\n"
    "    at: 2m30s\n"
    "    phase: Running\n"
    "  - pod: queued\n"
    "    at: 3m10s\n"
    "    conditions: [{type: DisruptionTarget, status: \"True\", reason: PreemptionByScheduler}]\n"
    "  - pod: high\n"
    "    phase: Running\n";

struct run_case {
    char path[256];  /* the scenario */
    char trace[256]; /* a trace path, removed before each step */
};

static void run_step(const void *arg, long n, struct result *r)
{
    const struct run_case *c = arg;
    struct gs_scenario sc;
    struct gs_error err = {0};
    arm(0);
    if (gs_scenario_load(c->path, NULL, 0, -1, -1, &sc, &err) != 0) {
        r->rc = GS_EINTERNAL;
        snprintf(r->msg, sizeof r->msg, "load: %.100s:%d:%d: %.380s", err.file, err.line, err.col, err.msg);
        return;
    }
    char trace[300];
    snprintf(trace, sizeof trace, "%s.%ld.db", c->trace, n);
    remove(trace);
    struct gs_run_opts o = {.trace_path = trace};
    struct gs_run_result res;
    char errbuf[256] = "";
    arm(n);
    r->rc = gs_run(&sc, &o, &res, errbuf, sizeof errbuf);
    r->code = r->rc;
    snprintf(r->msg, sizeof r->msg, "%s", errbuf);
    r->count = oom.count;
    r->failed = oom.failed;
    arm(0);
    if (r->rc == 0 && !r->failed && res.checks_failed != 0) {
        r->rc = GS_EINTERNAL;
        snprintf(r->msg, sizeof r->msg, "%d of %d expect: checks failed", res.checks_failed, res.checks_total);
    }
    gs_scenario_free(&sc);
    r->live = oom.live;
    remove(trace);
}

/* The run walk: the embedded scenario (bring-up, Kueue, preemption) and teaching scenarios that
 * reach the other controllers (DRA, the device plugin's sharing and MIG, Coscheduling's Permit,
 * gang admission, LeaderWorkerSet with and without Kueue, Kueue's TAS, kernel-patch waves, the
 * FGD score plugins and the fragmentation metric). */
static const char *const run_teaching[] = {
    "scenarios/teaching/dra-shared-claim.yaml", "scenarios/teaching/time-slicing-4x.yaml",
    "scenarios/teaching/mig-busy.yaml",         "scenarios/teaching/coscheduling-timeout.yaml",
    "scenarios/teaching/lws-restart.yaml",      "scenarios/teaching/fractional.yaml",
    "scenarios/teaching/scheduler-restart.yaml", "scenarios/teaching/fgd-vs-default.yaml",
    "scenarios/teaching/tas-rack.yaml",          "scenarios/teaching/weekly-os-patch.yaml",
    "scenarios/teaching/gang-deadlock-gang.yaml", "scenarios/teaching/mig-mixed.yaml",
    "scenarios/teaching/lws-kueue.yaml",
};

Test(oom, run_walk)
{
    static struct run_case c;
    char dir[] = "/tmp/gpusim-oom-XXXXXX";
    cr_assert(ne(ptr, mkdtemp(dir), NULL));
    char embedded[256];
    snprintf(embedded, sizeof embedded, "%s/oom-run.yaml", dir);
    snprintf(c.trace, sizeof c.trace, "%s/trace", dir);
    FILE *f = fopen(embedded, "w");
    cr_assert(ne(ptr, f, NULL));
    fputs(run_scenario, f);
    fclose(f);

    install();
    int nfail = 0;
    for (size_t i = 0; i <= sizeof run_teaching / sizeof run_teaching[0]; i++) {
        if (i == 0)
            snprintf(c.path, sizeof c.path, "%s", embedded);
        else
            snprintf(c.path, sizeof c.path, "%s/%s", GPUSIM_SOURCE_DIR, run_teaching[i - 1]);
        static struct walk w;
        w = (struct walk){.name = c.path, .step = run_step, .arg = &c, .isolate = true};
        double t = now_s();
        walk(&w);
        cr_log_info("run %s: %ld allocations walked, %.2f s", c.path, w.walked, now_s() - t);
        cr_expect(gt(long, w.walked, 20), "%s: only %ld allocations", c.path, w.walked);
        report(&w);
        nfail += w.nfail;
    }
    uninstall();
    remove(embedded);
    rmdir(dir);
    cr_assert(eq(int, nfail, 0), "%d failing step%s (listed on stderr)", nfail, nfail == 1 ? "" : "s");
    cr_assert(eq(int, LEAKS_FOUND(), 0), "LeakSanitizer found leaks (listed on stderr)");
}
