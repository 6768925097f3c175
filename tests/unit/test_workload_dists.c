/* The workload vocabulary of capacity studies (docs/scenario-format.md, spec.workloads):
 * gpusPerPod, uniform and empirical durations, every / poisson arrivals without count (until
 * the horizon) and the hourly rate profile. Loads through gs_scenario_load_string and runs
 * through gs_run, then reads the world's pods (sc.world keeps them after the run) and the
 * trace. Seeds are fixed: the tolerances are there so a different but correct draw order would
 * still pass, not because the results vary. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "models/fgd/fgd_world.h"
#include "sim/limits.h"
#include "sim/run.h"
#include "sim/scenario.h"

#define HOUR 3600000000LL
#define MIN 60000000LL

static char trace_path[256], partial_path[272], dir[256];

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-wdists-%d.db", (int)getpid());
    snprintf(partial_path, sizeof partial_path, "%s.partial", trace_path);
    snprintf(dir, sizeof dir, "/tmp/gpusim-test-wdists-%d", (int)getpid());
}

static void teardown(void)
{
    unlink(trace_path);
    unlink(partial_path);
}

TestSuite(wdists, .init = setup, .fini = teardown);

/* A cluster of one big CPU node and two 8-GPU nodes; the body's workloads follow. 11 lines:
 * the body starts on line 12. */
#define HEAD(horizon)                                                                                        \
    "apiVersion: gpusim/v1alpha1\n"                                                                          \
    "kind: Scenario\n"                                                                                       \
    "metadata: {name: d}\n"                                                                                  \
    "spec:\n"                                                                                                \
    "  " horizon "\n"                                                                                        \
    "  cluster:\n"                                                                                           \
    "    nodePools:\n"                                                                                       \
    "    - {name: gpu, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: \"192\", " \
    "memory: 2Ti}}\n"                                                                                        \
    "    - {name: cpu, count: 1, capacity: {cpu: \"100000\", memory: 100Ti}}\n"                               \
    "  seed: 7\n"                                                                                            \
    "  workloads:\n"
#define BODY_LINE 12
#define CPU_TMPL "    template: {spec: {containers: [{name: m, resources: {requests: {cpu: 10m}}}]}}\n"
#define GPU_TMPL "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"

static struct gs_scenario sc;
static struct gs_error err;

static void load(const char *yaml)
{
    memset(&err, 0, sizeof err);
    int rc = gs_scenario_load_string("test.yaml", yaml, &sc, &err);
    cr_assert(eq(int, rc, 0), "load: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

static void fails(const char *yaml, int line, int col, const char *needle)
{
    memset(&err, 0, sizeof err);
    int rc = gs_scenario_load_string("test.yaml", yaml, &sc, &err);
    cr_assert(eq(int, rc, GS_EINVAL), "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_expect(eq(int, err.line, line), "%s", err.msg);
    if (col)
        cr_expect(eq(int, err.col, col), "%s", err.msg);
    cr_assert(not(eq(ptr, strstr(err.msg, needle), NULL)), "message '%s' lacks '%s'", err.msg, needle);
}

static void run(void)
{
    struct gs_run_opts o = {.trace_path = trace_path};
    struct gs_run_result r;
    char eb[512];
    int rc = gs_run(&sc, &o, &r, eb, sizeof eb);
    cr_assert(eq(int, rc, 0), "run: %s", eb);
}

static long long query(const char *sql)
{
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    sqlite3_stmt *st;
    cr_assert(eq(int, sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK), "%s", sqlite3_errmsg(db));
    long long v = -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* ------------------------------------------------------------------ durations */

Test(wdists, uniform_duration_mean_and_range)
{
    load(HEAD("horizon: 1s") "  - name: u\n"
                             "    replicas: 10000\n"
                             "    duration: {distribution: uniform, min: 1h, max: 6h}\n" CPU_TMPL);
    run();
    cr_assert(eq(int, sc.world.npods, 10000));
    double sum = 0;
    long long lo = INT64_MAX, hi = 0;
    for (int i = 0; i < sc.world.npods; i++) {
        long long d = sc.world.pods[i].duration_us;
        sum += (double)d;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    double mean_h = sum / 10000 / (double)HOUR;
    /* mean 3.5 h; the standard error of 10,000 draws is 5h/sqrt(12)/100 = 0.0144 h */
    cr_expect(gt(dbl, mean_h, 3.45), "mean %.4f h", mean_h);
    cr_expect(lt(dbl, mean_h, 3.55), "mean %.4f h", mean_h);
    cr_expect(ge(i64, lo, HOUR));
    cr_expect(lt(i64, hi, 6 * HOUR));
    cr_expect(lt(i64, lo, HOUR + 5 * MIN), "the smallest of 10,000 draws lies near min");
    cr_expect(gt(i64, hi, 6 * HOUR - 5 * MIN), "the largest near max");
    gs_scenario_free(&sc);
}

Test(wdists, empirical_values_bootstrap)
{
    load(HEAD("horizon: 1s") "  - name: e\n"
                             "    replicas: 9000\n"
                             "    duration: {distribution: empirical, values: [10m, 1h, 2h30m]}\n" CPU_TMPL);
    run();
    int n[3] = {0};
    for (int i = 0; i < sc.world.npods; i++) {
        long long d = sc.world.pods[i].duration_us;
        int k = d == 10 * MIN ? 0 : d == HOUR ? 1 : d == 150 * MIN ? 2 : -1;
        cr_assert(ge(int, k, 0), "pod %d lasts %lld us, not one of the values", i, d);
        n[k]++;
    }
    for (int k = 0; k < 3; k++)
        cr_expect(lt(int, abs(n[k] - 3000), 150), "value %d drawn %d times of 9000", k, n[k]);
    gs_scenario_free(&sc);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(not(eq(ptr, f, NULL)));
    fputs(text, f);
    fclose(f);
}

static char scn_path[300], csv_path[300];

static int load_dir(const char *csv, const char *dist)
{
    mkdir(dir, 0700);
    snprintf(csv_path, sizeof csv_path, "%s/durations.csv", dir);
    snprintf(scn_path, sizeof scn_path, "%s/s.yaml", dir);
    write_file(csv_path, csv);
    char yaml[2048];
    snprintf(yaml, sizeof yaml, HEAD("horizon: 1s") "  - name: e\n    replicas: 10\n    duration: %s\n" CPU_TMPL, dist);
    write_file(scn_path, yaml);
    memset(&err, 0, sizeof err);
    return gs_scenario_load(scn_path, NULL, 0, -1, -1, &sc, &err);
}

static void cleanup_dir(void)
{
    unlink(csv_path);
    unlink(scn_path);
    rmdir(dir);
}

Test(wdists, empirical_csv_column_with_unit)
{
    int rc = load_dir("job,runtime,gpus\n"
                      "a,600,1\n"
                      "\"b,x\",\"3600\",2\n"
                      "\n"
                      "c,90.5,1\n",
                      "{distribution: empirical, file: durations.csv, column: runtime, unit: s}");
    cr_assert(eq(int, rc, 0), "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    const struct gs_duration_dist *d = &sc.world.workloads[0].duration;
    cr_assert(eq(int, d->kind, GS_DIST_EMPIRICAL));
    cr_assert(eq(int, d->nvalues, 3));
    cr_expect(eq(i64, d->values[0], 600 * 1000000LL));
    cr_expect(eq(i64, d->values[1], 3600 * 1000000LL));
    cr_expect(eq(i64, d->values[2], 90500000LL));
    gs_scenario_free(&sc);
    /* without unit: Go durations */
    rc = load_dir("runtime\n1h30m\n45s\n", "{distribution: empirical, file: durations.csv, column: runtime}");
    cr_assert(eq(int, rc, 0), "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_expect(eq(i64, sc.world.workloads[0].duration.values[0], 90 * MIN));
    cr_expect(eq(i64, sc.world.workloads[0].duration.values[1], 45000000LL));
    gs_scenario_free(&sc);
    cleanup_dir();
}

Test(wdists, empirical_csv_errors_name_the_cell)
{
    int rc = load_dir("job,runtime\na,600\nb,ten\n", "{distribution: empirical, file: durations.csv, column: runtime, unit: s}");
    cr_assert(eq(int, rc, GS_EINVAL));
    cr_expect(eq(str, err.file, csv_path));
    cr_expect(eq(int, err.line, 3));
    cr_expect(eq(int, err.col, 3));
    cr_expect(not(eq(ptr, strstr(err.msg, "invalid duration 'ten' in column 'runtime'"), NULL)), "%s", err.msg);
    /* only plain decimals with a unit: no hex, blanks, inf or nan (strtod would take them) */
    static const char *const not_numbers[] = {"0x10", " 5", "inf", "nan", "1e", ".", "1.5.2", "+3"};
    for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++) {
        char csv[64];
        snprintf(csv, sizeof csv, "runtime\n%s\n", not_numbers[i]);
        rc = load_dir(csv, "{distribution: empirical, file: durations.csv, column: runtime, unit: s}");
        cr_expect(eq(int, rc, GS_EINVAL), "cell '%s' accepted", not_numbers[i]);
    }
    rc = load_dir("runtime\n1.5e3\n.5\n", "{distribution: empirical, file: durations.csv, column: runtime, unit: s}");
    cr_assert(eq(int, rc, 0), "%s", err.msg);
    cr_expect(eq(i64, sc.world.workloads[0].duration.values[0], 1500 * 1000000LL));
    cr_expect(eq(i64, sc.world.workloads[0].duration.values[1], 500000LL));
    gs_scenario_free(&sc);
    rc = load_dir("job,runtime\na,600\nb\n", "{distribution: empirical, file: durations.csv, column: runtime, unit: s}");
    cr_assert(eq(int, rc, GS_EINVAL));
    cr_expect(eq(int, err.line, 3));
    cr_expect(not(eq(ptr, strstr(err.msg, "too few for column 'runtime'"), NULL)), "%s", err.msg);
    rc = load_dir("job,secs\na,600\n", "{distribution: empirical, file: durations.csv, column: runtime, unit: s}");
    cr_assert(eq(int, rc, GS_EINVAL));
    cr_expect(eq(str, err.file, scn_path));
    cr_expect(eq(int, err.line, BODY_LINE + 2), "%s", err.msg);
    cr_expect(not(eq(ptr, strstr(err.msg, "has no column 'runtime'"), NULL)), "%s", err.msg);
    rc = load_dir("runtime\n", "{distribution: empirical, file: durations.csv, column: runtime}");
    cr_assert(eq(int, rc, GS_EINVAL));
    cr_expect(not(eq(ptr, strstr(err.msg, "has no values in column 'runtime'"), NULL)), "%s", err.msg);
    rc = load_dir("runtime\n-5s\n", "{distribution: empirical, file: durations.csv, column: runtime}");
    cr_assert(eq(int, rc, GS_EINVAL));
    cr_expect(eq(int, err.line, 2));
    cr_expect(eq(int, err.col, 1));
    cleanup_dir();
}

Test(wdists, duration_errors)
{
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: uniform, min: 2h, max: 1h}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "spec.workloads[0].duration.max (1h) must be longer than min (2h)");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: uniform, min: 2h}\n" CPU_TMPL, BODY_LINE + 1,
          0, "missing required field 'max' in spec.workloads[0].duration (distribution uniform)");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: uniform, min: 1h, max: 2h, mean: 1h}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "'mean' in spec.workloads[0].duration does not go with distribution uniform (it takes min and max)");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: empirical, values: []}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "spec.workloads[0].duration.values is empty");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: empirical, values: [1h, soon]}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "spec.workloads[0].duration.values[1]");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: empirical, values: [1h], file: x.csv}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "takes values (a list) or file (a CSV), not both");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: empirical, values: [1h], unit: s}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "'unit' in spec.workloads[0].duration goes with file");
    fails(HEAD("horizon: 1h") "  - name: u\n    duration: {distribution: empirical, file: x.csv}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "missing required field 'column'");
}

/* ------------------------------------------------------------------ gpusPerPod */

Test(wdists, gpus_per_pod_choices_follow_the_weights)
{
    load(HEAD("horizon: 1s") "  - name: g\n"
                             "    replicas: 7000\n"
                             "    gpusPerPod: {choices: [{value: 1, weight: 4}, {value: 2, weight: 2}, {value: 8, weight: 1}]}\n"
                             "    template:\n"
                             "      spec:\n"
                             "        containers:\n"
                             "        - {name: side, resources: {requests: {cpu: 100m}}}\n"
                             "        - {name: main, resources: {requests: {cpu: \"1\"}, limits: {nvidia.com/gpu: 1}}}\n");
    const struct gs_workload *w = &sc.world.workloads[0];
    cr_assert(eq(int, w->ngpu_choices, 3));
    int gpu = gs_res_find(&sc.world.res, "nvidia.com/gpu");
    cr_assert(ge(int, gpu, 0));
    for (int k = 0; k < 3; k++) {
        cr_expect(eq(i64, w->gpu_choices[k].tmpl->requests.v[gpu], w->gpu_choices[k].gpus));
        cr_expect(eq(i64, w->gpu_choices[k].tmpl->limits.v[gpu], w->gpu_choices[k].gpus));
        cr_expect(eq(i64, w->gpu_choices[k].tmpl->container_max.v[gpu], w->gpu_choices[k].gpus));
        /* the rest of the template is the workload's */
        cr_expect(eq(i64, w->gpu_choices[k].tmpl->requests.v[0], w->tmpl.requests.v[0]));
    }
    run();
    long long n1 = query("SELECT count(*) FROM pod WHERE gpu = 1");
    long long n2 = query("SELECT count(*) FROM pod WHERE gpu = 2");
    long long n8 = query("SELECT count(*) FROM pod WHERE gpu = 8");
    cr_assert(eq(i64, n1 + n2 + n8, 7000));
    /* expected 4000 / 2000 / 1000; binomial standard deviations 41 / 38 / 29 */
    cr_expect(lt(i64, llabs(n1 - 4000), 150), "1 GPU: %lld pods", n1);
    cr_expect(lt(i64, llabs(n2 - 2000), 120), "2 GPUs: %lld pods", n2);
    cr_expect(lt(i64, llabs(n8 - 1000), 90), "8 GPUs: %lld pods", n8);
    /* each pod's template is one of the variants, and the trace's gpu column is its count */
    for (int i = 0; i < sc.world.npods; i++) {
        const struct gs_pod_template *t = sc.world.pods[i].tmpl;
        cr_assert(t == w->gpu_choices[0].tmpl || t == w->gpu_choices[1].tmpl || t == w->gpu_choices[2].tmpl);
    }
    /* two 8-GPU nodes hold 16 GPUs: what was bound adds up to at most that */
    long long bound_gpus = query("SELECT sum(gpu) FROM pod WHERE scheduled_us IS NOT NULL AND scheduled_us >= 0");
    cr_expect(le(i64, bound_gpus, 16));
    cr_expect(gt(i64, bound_gpus, 0));
    gs_scenario_free(&sc);
}

Test(wdists, gpus_per_pod_range_and_fixed)
{
    load(HEAD("horizon: 1s") "  - name: g\n    replicas: 4000\n    gpusPerPod: {min: 1, max: 4}\n" CPU_TMPL);
    cr_assert(eq(int, sc.world.workloads[0].ngpu_choices, 4));
    run();
    for (int g = 1; g <= 4; g++) {
        char q[128];
        snprintf(q, sizeof q, "SELECT count(*) FROM pod WHERE gpu = %d", g);
        long long n = query(q);
        cr_expect(lt(i64, llabs(n - 1000), 100), "%d GPUs: %lld pods", g, n);
    }
    /* the CPU-only template: the first container takes the count */
    cr_expect(eq(i64, query("SELECT count(*) FROM pod WHERE gpu = 0"), 0));
    gs_scenario_free(&sc);
    load(HEAD("horizon: 1s") "  - name: g\n    replicas: 3\n    gpusPerPod: 4\n" GPU_TMPL);
    run();
    cr_expect(eq(i64, query("SELECT count(*) FROM pod WHERE gpu = 4"), 3));
    gs_scenario_free(&sc);
}

Test(wdists, gpus_per_pod_weights_the_fgd_typical_pods)
{
    load(HEAD("horizon: 1s") "  - name: g\n    replicas: 700\n"
                             "    gpusPerPod: {choices: [{value: 1, weight: 4}, {value: 2, weight: 2}, {value: 8, weight: 1}]}\n"
                             GPU_TMPL);
    struct gs_fgd_world_typical wt;
    cr_assert(eq(int, gs_fgd_world_typical_build(&sc.world, 100, &wt), 0));
    cr_assert(eq(int, wt.typical.n, 3));
    cr_expect(eq(i64, wt.typical.npods, 700));
    for (int i = 0; i < wt.typical.n; i++) {
        int g = wt.typical.pods[i].num_gpu;
        long long want = g == 1 ? 400 : g == 2 ? 200 : g == 8 ? 100 : -1;
        cr_expect(eq(i64, wt.typical.pods[i].count, want), "%d GPUs", g);
    }
    gs_fgd_world_typical_free(&wt);
    gs_scenario_free(&sc);
}

Test(wdists, gpus_per_pod_errors)
{
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: {choices: [{value: 1}, {value: 1, weight: 2}]}\n" GPU_TMPL,
          BODY_LINE + 1, 0, "spec.workloads[0].gpusPerPod.choices[1].value 1 is already choices[0]");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: {choices: [{value: 1, weight: 0}]}\n" GPU_TMPL,
          BODY_LINE + 1, 0, "spec.workloads[0].gpusPerPod.choices[0].weight must be above 0");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: {min: 4, max: 2}\n" GPU_TMPL, BODY_LINE + 1, 0,
          "spec.workloads[0].gpusPerPod.max (2) must be at least min (4)");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: {choices: [{value: 1}], min: 1}\n" GPU_TMPL,
          BODY_LINE + 1, 0, "takes choices or min and max");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: 2000\n" GPU_TMPL, BODY_LINE + 1, 0,
          "spec.workloads[0].gpusPerPod");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: 2\n"
                              "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/mig-1g.10gb: 1}}}]}}\n",
          BODY_LINE + 1, 0, "asks for nvidia.com/mig-1g.10gb (a MIG or shared GPU resource)");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: 2\n"
                              "    template: {spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}, "
                              "{name: b, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n",
          BODY_LINE + 1, 0, "several containers of the template ask for nvidia.com/gpu");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: 2\n"
                              "    template: {metadata: {annotations: {alibabacloud.com/gpu-milli: \"500\"}}, spec: "
                              "{containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n",
          BODY_LINE + 1, 0, "fractional GPU annotation");
}

/* ------------------------------------------------------------------ arrivals */

Test(wdists, every_without_count_runs_to_the_horizon)
{
    /* 5m, 15m, ..., 1h55m: 12 arrivals; one at the horizon itself counts */
    load(HEAD("horizon: 1h55m") "  - name: t\n    replicas: 2\n    arrival: {every: 10m, start: 5m}\n" CPU_TMPL);
    cr_assert(eq(int, sc.world.workloads[0].arrival.count, 12));
    cr_assert(sc.world.workloads[0].arrival.until_horizon);
    struct gs_scenario_size size;
    gs_scenario_size(&sc, &size);
    cr_expect(eq(i64, size.pods, 24));
    run();
    cr_expect(eq(i64, query("SELECT count(*) FROM pod"), 24));
    cr_expect(eq(i64, query("SELECT max(created_us) FROM pod"), 115 * MIN));
    gs_scenario_free(&sc);
    /* --horizon sets it as well (the override of gs_scenario_load) */
    char path[300];
    snprintf(path, sizeof path, "%s.yaml", trace_path);
    write_file(path, HEAD("sampleInterval: 1m") "  - name: t\n    arrival: {every: 10m}\n" CPU_TMPL);
    memset(&err, 0, sizeof err);
    int rc = gs_scenario_load(path, NULL, 0, -1, 3 * HOUR, &sc, &err);
    unlink(path);
    cr_assert(eq(int, rc, 0), "%s", err.msg);
    cr_expect(eq(int, sc.world.workloads[0].arrival.count, 19));
    gs_scenario_free(&sc);
}

Test(wdists, poisson_without_count_is_bounded)
{
    load(HEAD("horizon: 24h") "  - name: p\n    arrival: {process: poisson, rate: 12/h}\n" CPU_TMPL);
    const struct gs_arrival *a = &sc.world.workloads[0].arrival;
    /* the first arrival at 0s and Poisson(288) more: the bound k is the smallest with
     * P(N > k) <= 1e-12 */
    int k = a->count - 1;
    cr_expect(le(dbl, gsl_cdf_poisson_Q((unsigned)k, 288), 1e-12));
    cr_expect(gt(dbl, gsl_cdf_poisson_Q((unsigned)k - 1, 288), 1e-12));
    cr_expect(gt(int, k, 288 + 5 * 17));
    cr_expect(lt(int, k, 288 + 9 * 17));
    struct gs_scenario_size size;
    gs_scenario_size(&sc, &size);
    cr_expect(eq(i64, size.pods, a->count));
    run();
    long long n = query("SELECT count(*) FROM pod");
    cr_expect(gt(i64, n, 288 - 4 * 17));
    cr_expect(lt(i64, n, 288 + 4 * 17));
    cr_expect(le(i64, query("SELECT max(created_us) FROM pod"), 24 * HOUR));
    gs_scenario_free(&sc);
}

Test(wdists, open_arrivals_need_a_horizon)
{
    fails(HEAD("sampleInterval: 1m") "  - name: p\n    arrival: {process: poisson, rate: 12/h}\n" CPU_TMPL, BODY_LINE + 1, 14,
          "spec.workloads[0].arrival has no 'count', so its arrivals continue until the horizon: set spec.horizon "
          "or pass --horizon");
    fails(HEAD("sampleInterval: 1m") "  - name: p\n    arrival: {every: 1h}\n" CPU_TMPL, BODY_LINE + 1, 14, "set spec.horizon");
}

/* Day-time only: rate 1 multiplier from 08:00 to 18:00, 0 at night. */
#define DAY_PROFILE "[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]"

Test(wdists, diurnal_profile_creates_no_pod_at_night)
{
    load(HEAD("horizon: 72h") "  - name: d\n    arrival: {process: poisson, rate: 30/h, profile: {hourly: " DAY_PROFILE
                              "}}\n" CPU_TMPL);
    const struct gs_arrival *a = &sc.world.workloads[0].arrival;
    /* 3 days x 10 hours x 30/h */
    cr_expect(epsilon_eq(dbl, a->expected_count, 900.0, 1e-6));
    cr_expect(le(dbl, gsl_cdf_poisson_Q((unsigned)a->count, 900), 1e-12));
    run();
    long long n = query("SELECT count(*) FROM pod");
    cr_expect(gt(i64, n, 900 - 4 * 30), "%lld pods", n);
    cr_expect(lt(i64, n, 900 + 4 * 30), "%lld pods", n);
    cr_expect(eq(i64, query("SELECT count(*) FROM pod WHERE (created_us / 3600000000) % 24 < 8 OR "
                            "(created_us / 3600000000) % 24 >= 18"),
                 0));
    /* every day hour has pods: about 30 a day-hour over 3 days */
    for (int h = 8; h < 18; h++) {
        char q[160];
        snprintf(q, sizeof q, "SELECT count(*) FROM pod WHERE (created_us / 3600000000) %% 24 = %d", h);
        long long c = query(q);
        cr_expect(gt(i64, c, 40), "hour %d: %lld pods", h, c);
        cr_expect(lt(i64, c, 140), "hour %d: %lld pods", h, c);
    }
    gs_scenario_free(&sc);
}

Test(wdists, diurnal_start_hour_of_day_shifts_the_clock)
{
    /* The run starts at 06:00: pods from run time 2h (08:00) to 12h (18:00) only. */
    load(HEAD("horizon: 24h") "  - name: d\n    arrival: {process: poisson, rate: 30/h, profile: {hourly: " DAY_PROFILE
                              ", startHourOfDay: 6}}\n" CPU_TMPL);
    cr_expect(epsilon_eq(dbl, sc.world.workloads[0].arrival.expected_count, 300.0, 1e-6));
    run();
    cr_expect(gt(i64, query("SELECT count(*) FROM pod"), 200));
    cr_expect(ge(i64, query("SELECT min(created_us) FROM pod"), 2 * HOUR));
    cr_expect(lt(i64, query("SELECT max(created_us) FROM pod"), 12 * HOUR));
    gs_scenario_free(&sc);
    /* a counted profiled process needs no horizon and makes exactly count arrivals */
    load(HEAD("sampleInterval: 1m") "  - name: d\n    arrival: {process: poisson, rate: 30/h, count: 50, profile: {hourly: " DAY_PROFILE
                         "}}\n" CPU_TMPL);
    run();
    cr_expect(eq(i64, query("SELECT count(*) FROM pod"), 50));
    cr_expect(ge(i64, query("SELECT min(created_us) FROM pod"), 8 * HOUR));
    gs_scenario_free(&sc);
}

Test(wdists, profile_errors)
{
    fails(HEAD("horizon: 1h") "  - name: d\n    arrival: {process: poisson, rate: 1/h, profile: {hourly: [1, 2]}}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "spec.workloads[0].arrival.profile.hourly has 2 entries: it takes 24");
    fails(HEAD("horizon: 1h") "  - name: d\n    arrival: {every: 1h, profile: {hourly: " DAY_PROFILE "}}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "'profile' in spec.workloads[0].arrival goes with process: poisson");
    fails(HEAD("horizon: 1h") "  - name: d\n    arrival: {process: poisson, rate: 1/h, profile: {hourly: "
                              "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "is 0 in every hour");
    fails(HEAD("horizon: 1h") "  - name: d\n    arrival: {process: poisson, rate: 1/h, profile: {hourly: " DAY_PROFILE
                              ", startHourOfDay: 24}}\n" CPU_TMPL,
          BODY_LINE + 1, 0, "startHourOfDay must be from 0 to below 24");
}

/* A pod re-created after an eviction keeps the GPU count of the pod it replaces. */
Test(wdists, gpus_per_pod_replacement_keeps_the_count)
{
    load(HEAD("horizon: 1h") "  - name: g\n    replicas: 6\n    gpusPerPod: {choices: [{value: 1}, {value: 2}, {value: 3}]}\n"
                             GPU_TMPL "  events:\n  - {at: 10m, drain: {node: gpu-0}}\n");
    run();
    /* pods g-0..g-5 first; the drained ones come back as g-6, g-7, ... in eviction order */
    int created = sc.world.npods;
    cr_assert(gt(int, created, 6), "the drain evicted nothing");
    int gpu = gs_res_find(&sc.world.res, "nvidia.com/gpu");
    long long before = 0, after = 0;
    for (int i = 0; i < 6; i++)
        if (sc.world.pods[i].last_node == 0 || sc.world.pods[i].node == 0)
            before += sc.world.pods[i].tmpl->requests.v[gpu];
    for (int i = 6; i < created; i++)
        after += sc.world.pods[i].tmpl->requests.v[gpu];
    cr_expect(eq(i64, after, before), "the replacements ask for %lld GPUs, the drained pods had %lld", after, before);
    gs_scenario_free(&sc);
}

Test(wdists, gpus_per_pod_refuses_kueue_and_claims)
{
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: 2\n"
                              "    template: {metadata: {labels: {kueue.x-k8s.io/queue-name: q}}, spec: "
                              "{containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n",
          BODY_LINE + 1, 0, "carries kueue.x-k8s.io/queue-name");
    fails(HEAD("horizon: 1h") "  - name: g\n    gpusPerPod: 2\n"
                              "    template: {spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}], "
                              "initContainers: [{name: i, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n",
          BODY_LINE + 1, 0, "init containers of the template ask for nvidia.com/gpu");
}

/* gpusim validate prints the bound of an open Poisson arrival: 1 + 415 for 12/h over 24h. */
Test(wdists, validate_prints_the_open_bound)
{
    const char *bin = getenv("GPUSIM_BIN");
    if (!bin)
        cr_skip_test("GPUSIM_BIN is not set (ctest sets it)");
    char path[300], cmd[700], line[512];
    snprintf(path, sizeof path, "%s.yaml", trace_path);
    write_file(path, HEAD("horizon: 24h") "  - name: p\n    arrival: {process: poisson, rate: 12/h}\n" CPU_TMPL
                     "  - name: t\n    replicas: 2\n    arrival: {every: 1h}\n" CPU_TMPL);
    snprintf(cmd, sizeof cmd, "'%s' validate '%s' 2>&1", bin, path);
    FILE *f = popen(cmd, "r");
    cr_assert(not(eq(ptr, f, NULL)));
    bool found = false;
    while (fgets(line, sizeof line, f))
        found = found || strstr(line, "466 pods over the run without replacements") != NULL;
    int rc = pclose(f);
    unlink(path);
    cr_expect(eq(int, rc, 0));
    cr_expect(found, "416 (poisson) + 2 x 25 (every, 0h..24h) = 466 pods not in the output");
}
