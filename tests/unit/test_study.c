/* Tests of the study metrics: base/stats.c (percentiles), sim/objective.c (names), reports/study.c
 * (the gpusim-report/1 document from a trace), the `stat:` check (sim/check.c) and their
 * agreement, with values worked out by hand and an independent SQL computation. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/stats.h"
#include "reports/study.h"
#include "sim/objective.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "sim/trace.h"

static char dir[64];
static char path[128];

static void setup(void)
{
    strcpy(dir, "/tmp/gs-study-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(eq(int, system(cmd), 0));
}

TestSuite(study, .init = setup, .fini = teardown);

/* ------------------------------------------------------------------ base/stats.c */

Test(study, percentiles_by_hand)
{
    /* waits of 5 pods, in seconds, out of order: sorted 0, 540, 1080, 1620, 2160 */
    double v[] = {1620, 0, 2160, 540, 1080};
    struct gs_stats_summary s;
    gs_stats_summarize(v, 5, &s);
    cr_assert(eq(sz, s.n, 5));
    cr_assert(eq(dbl, v[0], 0.0)); /* sorted in place */
    cr_assert(eq(dbl, v[4], 2160.0));
    cr_assert(eq(dbl, s.mean, 1080.0));
    cr_assert(eq(dbl, s.p50, 1080.0));                 /* h = 4 x 0.5 = 2 */
    cr_assert(ieee_ulp_eq(dbl, s.p90, 1944.0, 4));     /* h = 3.6: 1620 + 0.6 x 540 */
    cr_assert(ieee_ulp_eq(dbl, s.p95, 2052.0, 4));     /* h = 3.8: 1620 + 0.8 x 540 */
    cr_assert(ieee_ulp_eq(dbl, s.p99, 2138.4, 4));     /* h = 3.96 */
    cr_assert(eq(dbl, s.max, 2160.0));
    /* one value: every quantile is it; none: NaN */
    double one[] = {7};
    gs_stats_summarize(one, 1, &s);
    cr_assert(eq(dbl, s.p99, 7.0));
    gs_stats_summarize(NULL, 0, &s);
    cr_assert(eq(sz, s.n, 0));
    cr_assert(isnan(s.p95));
    cr_assert(isnan(gs_stats_quantile_sorted(NULL, 0, 0.5)));
}

Test(study, step_integral_by_hand)
{
    /* 8 from t=0, 32 from t=10, 0 from t=3600: 8 x 10 + 32 x 3590 = 114960 (the gang-deadlock
     * GPU-seconds); a value at the same time as the previous one adds nothing */
    struct gs_step_integral g = {0};
    gs_step_integral_add(&g, 0, 8);
    cr_assert(eq(dbl, g.sum, 0.0));
    gs_step_integral_add(&g, 10, 32);
    gs_step_integral_add(&g, 10, 32);
    cr_assert(eq(dbl, g.sum, 80.0));
    gs_step_integral_add(&g, 3600, 0);
    cr_assert(eq(dbl, g.sum, 114960.0));
    cr_assert(eq(i64, g.t, 3600));
    cr_assert(eq(dbl, g.value, 0.0));
}

/* ------------------------------------------------------------------ names */

static struct gs_objective parse_ok(const char *expr)
{
    struct gs_objective o;
    char err[256] = "";
    cr_assert(eq(int, gs_objective_parse(expr, &o, err, sizeof err), 0), "%s: %s", expr, err);
    return o;
}

static void parse_err(const char *expr, const char *want)
{
    struct gs_objective o;
    char err[512] = "";
    cr_assert(eq(int, gs_objective_parse(expr, &o, err, sizeof err), GS_EINVAL), "%s parsed", expr);
    cr_assert(eq(str, err, (char *)want));
}

Test(study, objective_names)
{
    struct gs_objective o = parse_ok("p95(timeToSchedule)");
    cr_assert(eq(int, o.stat, GS_OBJ_P95));
    cr_assert(eq(int, o.metric, GS_OBJ_TIME_TO_SCHEDULE));
    cr_assert(eq(int, o.scope, GS_OBJ_CLUSTER));
    o = parse_ok(" mean( timeToRunning , priority = +100 ) ");
    cr_assert(eq(int, o.stat, GS_OBJ_MEAN));
    cr_assert(eq(int, o.metric, GS_OBJ_TIME_TO_RUNNING));
    cr_assert(eq(int, o.scope, GS_OBJ_PRIORITY));
    cr_assert(eq(int, o.priority, 100));
    char buf[128];
    gs_objective_format(&o, buf, sizeof buf);
    cr_assert(eq(str, buf, "mean(timeToRunning, priority=100)"));
    o = parse_ok("p95(timeToSchedule, workload=inference)");
    cr_assert(eq(str, o.scope_value, "inference"));
    o = parse_ok("utilisation(pool=h100)");
    cr_assert(eq(int, o.metric, GS_OBJ_UTILISATION));
    cr_assert(eq(str, o.scope_value, "h100"));
    o = parse_ok("pendingGpuHours");
    cr_assert(eq(int, o.stat, GS_OBJ_VALUE));
    cr_assert(not(gs_objective_is_time(&o)));
    o = parse_ok("nodeHours");
    o = parse_ok("cost(pool=a)");
    o = parse_ok("pendingAtEnd(workload=w)");
    o = parse_ok("incompleteGroupGpuHours");
    cr_assert(eq(int, o.metric, GS_OBJ_INCOMPLETE_GROUP_GPU_HOURS));
    cr_assert(eq(int, o.stat, GS_OBJ_VALUE));
    cr_assert(not(gs_objective_is_time(&o)));
    gs_objective_format(&o, buf, sizeof buf);
    cr_assert(eq(str, buf, "incompleteGroupGpuHours"));
    o = parse_ok("gpuHoursAllocated(pool=h100)");
    cr_assert(eq(int, o.metric, GS_OBJ_GPU_HOURS_ALLOCATED));
    cr_assert(eq(int, o.scope, GS_OBJ_POOL));
    gs_objective_format(&o, buf, sizeof buf);
    cr_assert(eq(str, buf, "gpuHoursAllocated(pool=h100)"));
    parse_err("incompleteGroupGpuHours(pool=a)", "'incompleteGroupGpuHours' takes no scope, not pool= (in "
                                                 "'incompleteGroupGpuHours(pool=a)')");
    parse_err("incompleteGroupGPUHours", "unknown metric 'incompleteGroupGPUHours' in 'incompleteGroupGPUHours' (did "
                                         "you mean 'incompleteGroupGpuHours'?): expected p50, p90, p95, p99, max or "
                                         "mean of timeToSchedule or timeToRunning, pendingAtEnd, pendingGpuHours, "
                                         "utilisation, nodeHours, cost, gpuHoursAllocated or incompleteGroupGpuHours");

    parse_err("p95(timeToSchedul)", "unknown metric 'timeToSchedul' in 'p95(timeToSchedul)' (did you mean "
                                    "'timeToSchedule'?): p95 takes timeToSchedule or timeToRunning");
    parse_err("p96(timeToSchedule)", "unknown metric 'p96' in 'p96(timeToSchedule)' (did you mean 'p90'?): expected "
                                     "p50, p90, p95, p99, max or mean of timeToSchedule or timeToRunning, "
                                     "pendingAtEnd, pendingGpuHours, utilisation, nodeHours, cost, gpuHoursAllocated or "
                                     "incompleteGroupGpuHours");
    parse_err("utilization", "unknown metric 'utilization' in 'utilization' (did you mean 'utilisation'?): expected "
                             "p50, p90, p95, p99, max or mean of timeToSchedule or timeToRunning, pendingAtEnd, "
                             "pendingGpuHours, utilisation, nodeHours, cost, gpuHoursAllocated or "
                             "incompleteGroupGpuHours");
    parse_err("timeToSchedule", "'timeToSchedule' needs a statistic: p50(timeToSchedule), p90, p95, p99, max or mean");
    parse_err("p95", "'p95' needs a metric: p95(timeToSchedule) or p95(timeToRunning)");
    parse_err("p95(pendingGpuHours)", "'pendingGpuHours' is one number: write 'pendingGpuHours', not "
                                      "'p95(pendingGpuHours)'");
    parse_err("p95(timeToSchedule, pool=a)", "'p95' takes workload=NAME or priority=N, not pool= (in "
                                             "'p95(timeToSchedule, pool=a)')");
    parse_err("utilisation(workload=a)", "'utilisation' takes pool=NAME, not workload= (in 'utilisation(workload=a)')");
    parse_err("pendingGpuHours(pool=a)", "'pendingGpuHours' takes no scope, not pool= (in 'pendingGpuHours(pool=a)')");
    parse_err("p95(timeToSchedule, worklaod=a)", "unknown scope 'worklaod' in 'p95(timeToSchedule, worklaod=a)' (did "
                                                 "you mean 'workload'?): a scope is workload=, priority= or pool=");
    parse_err("p95(timeToSchedule, priority=high)", "priority 'high' in 'p95(timeToSchedule, priority=high)' is not an "
                                                    "integer");
    parse_err("p95(timeToSchedule", "'p95(timeToSchedule' has '(' without ')'");
    parse_err("p95(timeToSchedule) < 10m", "unexpected '< 10m' after ')' in 'p95(timeToSchedule) < 10m'");
    parse_err("p95(timeToSchedule, workload=a, priority=1)", "too many arguments in 'p95(timeToSchedule, workload=a, "
                                                             "priority=1)': at most a metric and one scope");
    parse_err("", "'' is not a metric name: expected e.g. p95(timeToSchedule), pendingGpuHours or "
                  "utilisation(pool=NAME)");
}

/* ------------------------------------------------------------------ a trace built by hand */

static void pod(struct gs_trace *t, int id, const char *workload, int prio, int gpu, gs_time created,
                gs_time scheduled, gs_time started, gs_time finished, const char *phase)
{
    char name[32];
    snprintf(name, sizeof name, "%s-%d", workload, id);
    struct gs_trace_pod p = {.id = id, .name = name, .workload = workload, .priority = prio, .gpu = gpu,
                             .created_us = created, .scheduled_us = scheduled, .started_us = started,
                             .finished_us = finished, .node_id = scheduled >= 0 ? 0 : -1, .phase = phase};
    cr_assert(eq(int, gs_trace_pod(t, &p), 0));
}

static void sample(struct gs_trace *t, gs_time t_us, const char *pool, int allocatable, int alloc)
{
    struct gs_metrics s = {.t = t_us, .gpus_capacity = allocatable, .gpus_allocatable = allocatable,
                           .gpus_allocated = alloc, .frag_gpus = NAN};
    cr_assert(eq(int, gs_trace_sample(t, pool, &s), 0));
}

/* Five 8-GPU pods that waited 0, 60, 120, 180 and 240 s (two workloads, two priorities), one
 * pod still pending at the end (created at 600 s: 600 s old at 1200 s) and one rejected; a pool
 * of 2 H100 nodes priced 10.5 an hour, one deleted at 600 s; a CPU pool of one node. */
static void build(void)
{
    struct gs_trace *t = NULL;
    char err[256];
    cr_assert(eq(int, gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), 0), "%s", err);
    gs_trace_run_kv(t, "scenario", "hand");
    gs_trace_run_kv(t, "scenario_path", "hand.yaml");
    gs_trace_run_kv(t, "seed", "3");
    gs_trace_run_kv(t, "horizon_us", "1200000000");
    gs_trace_run_kv(t, "command", "gpusim run hand.yaml --set 'cluster.nodePools[0].count=2'");
    gs_trace_run_kv(t, "override.cluster.nodePools[0].count", "2");
    gs_trace_run_kv(t, "pricePerHour.h100", "10.5");
    gs_trace_node(t, 0, "h100-0", "h100", "NVIDIA-H100-80GB-HBM3", 8);
    gs_trace_node(t, 1, "h100-1", "h100", "NVIDIA-H100-80GB-HBM3", 8);
    gs_trace_node(t, 2, "cpu-0", "cpu", NULL, 0);
    for (int i = 0; i < 3; i++)
        gs_trace_node_event(t, 0, i, "Joined", i < 2 ? "h100" : "cpu", NULL);
    gs_trace_node_event(t, GS_SEC(600), 1, "Deleted", NULL, NULL);
    /* waits: a-0 0 s, a-1 60 s, b-2 120 s, a-3 180 s, b-4 240 s; start 30 s after binding */
    static const int wait_s[] = {0, 60, 120, 180, 240};
    for (int i = 0; i < 5; i++) {
        gs_time c = GS_SEC(10 * i), s = c + GS_SEC(wait_s[i]);
        pod(t, i, i == 2 || i == 4 ? "b" : "a", i == 2 || i == 4 ? 100 : 0, 8, c, s, s + GS_SEC(30), -1, "Running");
    }
    pod(t, 5, "b", 100, 4, GS_SEC(600), -1, -1, -1, "Pending");
    pod(t, 6, "a", 0, 8, GS_SEC(700), -1, -1, GS_SEC(700), "Rejected");
    /* GPUs: 16 allocatable, 8 allocated for 600 s; then 8 allocatable, all allocated, for 600 s */
    sample(t, 0, "", 16, 8);
    sample(t, 0, "h100", 16, 8);
    sample(t, 0, "cpu", 0, 0);
    sample(t, GS_SEC(600), "", 8, 8);
    sample(t, GS_SEC(600), "h100", 8, 8);
    sample(t, GS_SEC(600), "cpu", 0, 0);
    cr_assert(eq(int, gs_trace_close(t, "complete", GS_SEC(1200)), 0));
}

static double num(const json_t *doc, const char *a, const char *b)
{
    const json_t *v = json_object_get(doc, a);
    if (b)
        v = json_object_get(v, b);
    bool is_num = json_is_number(v);
    cr_assert(is_num, "%s.%s is not a number", a, b ? b : "");
    return json_number_value(v);
}

static double metric(const json_t *doc, const char *expr)
{
    double v;
    char err[256] = "";
    cr_assert(eq(int, gs_study_metric(doc, expr, &v, err, sizeof err), 0), "%s: %s", expr, err);
    return v;
}

Test(study, document_by_hand)
{
    build();
    json_t *doc;
    char err[256] = "";
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    /* time to schedule over the 5 bound pods: 0, 60, 120, 180, 240 */
    cr_assert(eq(dbl, num(doc, "timeToSchedule", "count"), 5.0));
    cr_assert(eq(dbl, num(doc, "timeToSchedule", "mean"), 120.0));
    cr_assert(eq(dbl, num(doc, "timeToSchedule", "p50"), 120.0));
    cr_assert(ieee_ulp_eq(dbl, num(doc, "timeToSchedule", "p90"), 216.0, 4)); /* h 3.6 */
    cr_assert(ieee_ulp_eq(dbl, num(doc, "timeToSchedule", "p95"), 228.0, 4)); /* h 3.8 */
    cr_assert(ieee_ulp_eq(dbl, num(doc, "timeToSchedule", "p99"), 237.6, 4)); /* h 3.96 */
    cr_assert(eq(dbl, num(doc, "timeToSchedule", "max"), 240.0));
    cr_assert(eq(dbl, num(doc, "timeToRunning", "p50"), 150.0));
    /* pending at end: b-5, 4 GPUs, 600 s old */
    cr_assert(eq(dbl, num(doc, "pendingAtEnd", "count"), 1.0));
    cr_assert(eq(dbl, num(doc, "pendingAtEnd", "gpus"), 4.0));
    cr_assert(eq(dbl, num(doc, "pendingAtEnd", "ageMax"), 600.0));
    /* pending GPU-hours: 8 x (0+60+120+180+240) s + 4 x 600 s (+ the rejected pod: 0) = 7200 GPU-s = 2 h */
    cr_assert(ieee_ulp_eq(dbl, num(doc, "pendingGpuHours", NULL), 2.0, 4));
    /* per workload: a waited 0, 60, 180; b 120, 240 and one pending; per priority the same split */
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "p50(timeToSchedule, workload=a)"), 60.0, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "max(timeToSchedule, workload=b)"), 240.0, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "mean(timeToSchedule, priority=100)"), 180.0, 4));
    cr_assert(eq(dbl, metric(doc, "pendingAtEnd(workload=b)"), 1.0));
    cr_assert(eq(dbl, metric(doc, "pendingAtEnd(priority=0)"), 0.0));
    /* node-hours: h100-0 1200 s, h100-1 600 s (deleted), cpu-0 1200 s */
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "nodeHours(pool=h100)"), 0.5, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "nodeHours"), 1800.0 / 3600.0 + 1200.0 / 3600.0, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "cost"), 0.5 * 10.5, 4));
    cr_assert(isnan(metric(doc, "cost(pool=cpu)")));
    /* utilisation: (8 x 600 + 8 x 600) / (16 x 600 + 8 x 600) = 2/3 */
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "utilisation"), 2.0 / 3.0, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "utilisation(pool=h100)"), 2.0 / 3.0, 4));
    cr_assert(isnan(metric(doc, "utilisation(pool=cpu)")));
    cr_assert(ieee_ulp_eq(dbl, num(json_object_get(doc, "pools"), "h100", "gpuHoursAllocatable"), 4.0, 4));
    /* GPU-hours allocated, whole-cluster rows: 8 x 600 s + 8 x 600 s = 9600 GPU-s */
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "gpuHoursAllocated"), 9600.0 / 3600, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "gpuHoursAllocated(pool=h100)"), 9600.0 / 3600, 4));
    cr_assert(eq(dbl, metric(doc, "gpuHoursAllocated(pool=cpu)"), 0.0));
    /* no pod of a PodGroup and no PodGroup object: no value */
    bool held_null = json_is_null(json_object_get(json_object_get(doc, "cluster"), "incompleteGroupGpuHours"));
    cr_assert(held_null);
    cr_assert(isnan(metric(doc, "incompleteGroupGpuHours")));
    /* the run: what made it */
    const json_t *run = json_object_get(doc, "run");
    cr_assert(eq(str, (char *)json_string_value(json_object_get(run, "command")),
                 "gpusim run hand.yaml --set 'cluster.nodePools[0].count=2'"));
    cr_assert(eq(str, (char *)json_string_value(json_object_get(json_object_get(run, "overrides"),
                                                                 "cluster.nodePools[0].count")), "2"));
    cr_assert(eq(dbl, num(run, "endSeconds", NULL), 1200.0));
    cr_assert(eq(dbl, num(doc, "pods", "rejected"), 1.0));
    cr_assert(eq(dbl, num(doc, "pods", "scheduled"), 5.0));
    /* a scope the run does not have, and a bad name */
    double v;
    cr_assert(eq(int, gs_study_metric(doc, "p95(timeToSchedule, workload=c)", &v, err, sizeof err), GS_EINVAL));
    cr_assert(eq(str, err, "no workload 'c' in this run (workloads: a, b)"));
    cr_assert(eq(int, gs_study_metric(doc, "utilisation(pool=l4)", &v, err, sizeof err), GS_EINVAL));
    cr_assert(eq(str, err, "no pool 'l4' in this run (pools: h100, cpu)"));
    json_decref(doc);
}

/* The JSON printed by `report --format json` parses and has the contract's keys. */
Test(study, json_parses_with_keys)
{
    build();
    json_t *doc;
    char err[256] = "";
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert(eq(int, gs_study_print_json(doc, m), 0));
    fclose(m);
    json_decref(doc);
    json_error_t je;
    json_t *back = json_loads(buf, 0, &je);
    cr_assert_not_null(back, "%s at %d:%d", je.text, je.line, je.column);
    free(buf);
    cr_assert(eq(str, (char *)json_string_value(json_object_get(back, "schema")), "gpusim-report/1"));
    static const char *const top[] = {"schema", "run", "pods", "timeToSchedule", "timeToRunning", "pendingAtEnd",
                                      "pendingGpuHours", "byWorkload", "byPriority", "pools", "cluster"};
    size_t i = 0;
    const char *k;
    json_t *v;
    json_object_foreach(back, k, v)
    {
        cr_assert(lt(sz, i, sizeof top / sizeof *top));
        cr_assert(eq(str, (char *)k, (char *)top[i]), "key %zu", i);
        i++;
    }
    cr_assert(eq(sz, i, sizeof top / sizeof *top));
    static const char *const run_keys[] = {"scenario", "scenarioPath", "seed", "status", "horizonSeconds",
                                           "endSeconds", "command", "overrides"};
    for (i = 0; i < sizeof run_keys / sizeof *run_keys; i++)
        cr_assert_not_null(json_object_get(json_object_get(back, "run"), run_keys[i]), "%s", run_keys[i]);
    static const char *const q[] = {"count", "mean", "p50", "p90", "p95", "p99", "max"};
    for (i = 0; i < 7; i++) {
        cr_assert_not_null(json_object_get(json_object_get(back, "timeToSchedule"), q[i]), "%s", q[i]);
        cr_assert_not_null(json_object_get(json_object_get(back, "timeToRunning"), q[i]), "%s", q[i]);
    }
    static const char *const pk[] = {"nodes", "nodeHours", "gpuHoursAllocatable", "gpuHoursAllocated",
                                     "gpuUtilisation", "pricePerHour", "cost"};
    for (i = 0; i < 7; i++)
        cr_assert_not_null(json_object_get(json_object_get(json_object_get(back, "pools"), "h100"), pk[i]), "%s",
                           pk[i]);
    const json_t *b = json_object_get(json_object_get(back, "byPriority"), "100");
    cr_assert_not_null(json_object_get(b, "timeToSchedule"));
    cr_assert_not_null(json_object_get(b, "timeToRunning"));
    cr_assert_not_null(json_object_get(b, "pendingAtEnd"));
    bool cost_null = json_is_null(json_object_get(json_object_get(json_object_get(back, "pools"), "cpu"), "cost"));
    cr_assert(cost_null);
    cr_assert(ieee_ulp_eq(dbl, json_number_value(json_object_get(json_object_get(back, "timeToSchedule"), "p95")),
                          228.0, 4));
    json_decref(back);
}

/* ------------------------------------------------------------------ an independent computation */

/* p95 of the time to schedule from the pod table in SQL alone: order the waits with
 * row_number(), take the two order statistics around h = (n - 1) x 0.95 and interpolate. */
static double sql_p95(const char *trace)
{
    static const char sql[] =
        "WITH w AS (SELECT (scheduled_us - created_us) / 1e6 AS v FROM pod WHERE scheduled_us IS NOT NULL),"
        " o AS (SELECT v, row_number() OVER (ORDER BY v) - 1 AS i, count(*) OVER () AS n FROM w),"
        " h AS (SELECT (max(n) - 1) * 0.95 AS h FROM o)"
        " SELECT lo.v + ((SELECT h FROM h) - lo.i) * (coalesce(hi.v, lo.v) - lo.v)"
        " FROM o lo LEFT JOIN o hi ON hi.i = lo.i + 1"
        " WHERE lo.i = CAST((SELECT h FROM h) AS INTEGER)";
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open_v2(trace, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    sqlite3_stmt *st;
    cr_assert(eq(int, sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK), "%s", sqlite3_errmsg(db));
    cr_assert(eq(int, sqlite3_step(st), SQLITE_ROW));
    double v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void run_file(const char *scenario, const char *trace, struct gs_run_result *res, const char *const *sets,
                     int nsets)
{
    struct gs_scenario sc;
    struct gs_error e = {0};
    cr_assert(eq(int, gs_scenario_load(scenario, sets, nsets, -1, -1, &sc, &e), 0), "%s:%d: %s", e.file, e.line,
              e.msg);
    struct gs_run_opts o = {.trace_path = trace, .trace_level = GS_TRACE_EVENTS, .command = "gpusim run x",
                            .overrides = sets, .noverrides = nsets};
    char err[256] = "";
    cr_assert(eq(int, gs_run(&sc, &o, res, err, sizeof err), 0), "%s", err);
    gs_scenario_free(&sc);
}

Test(study, p95_agrees_with_sql)
{
    build();
    json_t *doc;
    char err[256] = "";
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "p95(timeToSchedule)"), sql_p95(path), 4));
    json_decref(doc);
    /* a run with many waits: the scenario of tests/scenarios and a larger one */
    static const char *const scenarios[] = {GPUSIM_SOURCE_DIR "/tests/scenarios/study-metrics.yaml",
                                            GPUSIM_SOURCE_DIR "/scenarios/teaching/openb-sample.yaml"};
    for (int i = 0; i < 2; i++) {
        char trace[160];
        snprintf(trace, sizeof trace, "%s/run%d.db", dir, i);
        struct gs_run_result res;
        run_file(scenarios[i], trace, &res, NULL, 0);
        cr_assert(eq(int, gs_study_open(trace, &doc, err, sizeof err), 0), "%s", err);
        double want = sql_p95(trace), got = metric(doc, "p95(timeToSchedule)");
        cr_assert(lt(dbl, fabs(got - want), 1e-9), "%s: json %.17g, SQL %.17g", scenarios[i], got, want);
        json_decref(doc);
    }
}

/* The scenario of tests/scenarios/study-metrics.yaml: the report's values are those worked out by
 * hand in its description, its stat: checks pass, and one more run whose checks are the report's
 * values exactly shows the check and the report agree to the last bit. */
Test(study, scenario_by_hand_and_check_agrees)
{
    const char *sc = GPUSIM_SOURCE_DIR "/tests/scenarios/study-metrics.yaml";
    struct gs_run_result res;
    run_file(sc, path, &res, NULL, 0);
    cr_assert(eq(int, res.checks_failed, 0));
    cr_assert(eq(int, res.checks_total, 11));
    json_t *doc;
    char err[256] = "";
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "p95(timeToSchedule)"), 1485.0, 4));
    cr_assert(eq(dbl, metric(doc, "p50(timeToSchedule)"), 270.0));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "pendingGpuHours"), 8.0 * 85 / 60, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "nodeHours(pool=h100)"), 40.0 / 60, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "cost"), 40.0 / 60 * 98.32, 4));
    cr_assert(eq(dbl, metric(doc, "utilisation(pool=h100)"), 0.875));
    cr_assert(eq(dbl, num(doc, "pendingAtEnd", "ageMax"), 1860.0));
    /* the trace records the price */
    cr_assert(eq(dbl, num(json_object_get(doc, "pools"), "h100", "pricePerHour"), 98.32));

    /* the same metrics as stat: checks with equals: the report's values, printed exactly */
    static const char *const names[] = {"pendingGpuHours", "utilisation", "nodeHours", "cost", "pendingAtEnd"};
    char sets[5][128];
    const char *setp[5];
    for (int i = 0; i < 5; i++) {
        snprintf(sets[i], sizeof sets[i], "expect[%d]={stat: %s, equals: %.17g}", 11 + i, names[i],
                 metric(doc, names[i]));
        setp[i] = sets[i];
    }
    json_decref(doc);
    char trace2[160];
    snprintf(trace2, sizeof trace2, "%s/again.db", dir);
    run_file(sc, trace2, &res, setp, 5);
    cr_assert(eq(int, res.checks_total, 16));
    cr_assert(eq(int, res.checks_failed, 0));
    /* and the overrides are in the trace */
    cr_assert(eq(int, gs_study_open(trace2, &doc, err, sizeof err), 0), "%s", err);
    const json_t *ov = json_object_get(json_object_get(doc, "run"), "overrides");
    cr_assert(eq(sz, json_object_size(ov), 5));
    cr_assert(eq(str, (char *)json_string_value(json_object_get(ov, "expect[11]")),
                 strchr(sets[0], '=') + 1));
    json_decref(doc);
}

/* A stat: check that fails says what it saw; bad names are scenario errors with a position. */
Test(study, stat_check_errors)
{
    static const char head[] =
        "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  horizon: 10m\n"
        "  cluster:\n    nodePools:\n    - {name: a, count: 1, capacity: {cpu: \"4\", memory: 4Gi}}\n"
        "  expect:\n";
    struct {
        const char *check, *err;
    } bad[] = {
        {"  - {stat: 'p95(timeToSchedul)', max: 1m}",
         "unknown metric 'timeToSchedul' in 'p95(timeToSchedul)' (did you mean 'timeToSchedule'?): p95 takes "
         "timeToSchedule or timeToRunning at spec.expect[0].stat"},
        {"  - {stat: 'utilisation(pool=b)', min: 0.5}", "no node pool 'b' at spec.expect[0].stat (pools: a)"},
        {"  - {stat: 'p95(timeToSchedule)', max: 10}",
         "invalid duration \"10\" at spec.expect[0].max: expected a Go duration such as 90s, 1h30m or 250ms"},
        {"  - {stat: 'p95(timeToSchedule)', at: 5m, max: 1m}",
         "spec.expect[0]: a stat: check is evaluated at the end of the run, over the whole run; 'at' is not "
         "supported (use a metric: check for a sample at a time)"},
        {"  - {stat: nodeHours}", "spec.expect[0] needs a bound: equals, min or max"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml, "%s%s\n", head, bad[i].check);
        struct gs_scenario sc;
        struct gs_error e = {0};
        cr_assert(ne(int, gs_scenario_load_string("s.yaml", yaml, &sc, &e), 0), "%s loaded", bad[i].check);
        cr_assert(eq(int, e.line, 10));
        cr_assert(eq(str, e.msg, (char *)bad[i].err));
    }
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "%s%s\n", head, "  - {stat: 'max(timeToSchedule)', max: 1m}\n  - {stat: cost, min: 0}");
    struct gs_scenario sc;
    struct gs_error e = {0};
    cr_assert(eq(int, gs_scenario_load_string("s.yaml", yaml, &sc, &e), 0), "%s", e.msg);
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char err[256];
    cr_assert(eq(int, gs_run(&sc, &o, &res, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, res.checks_failed, 2));
    cr_assert(eq(str, (char *)sc.expects[0].what, "stat max(timeToSchedule): max 1m0s"));
    cr_assert(eq(str, (char *)sc.expects[0].detail, "no value: no pod was bound"));
    cr_assert(eq(str, (char *)sc.expects[1].detail, "no value: no pricePerHour"));
    gs_scenario_free(&sc);
}

/* An interrupted run's trace is read as far as it goes: its pods as of complete_until_us, from
 * their pod_event rows (reports/open.h), and the end is that time. */
Test(study, incomplete_trace)
{
    struct gs_trace *t = NULL;
    char err[256] = "";
    cr_assert(eq(int, gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), 0), "%s", err);
    gs_trace_node(t, 0, "gpu-0", "gpu", "NVIDIA-L4", 4);
    gs_trace_node_event(t, 0, 0, "Joined", "gpu", NULL);
    /* rows as written at creation: Pending, never bound; the events say what happened */
    for (int i = 0; i < 3; i++) {
        pod(t, i, "w", 0, 1, GS_SEC(10 * i), -1, -1, -1, "Pending");
        gs_trace_pod_event(t, GS_SEC(10 * i), i, "Created", NULL);
    }
    gs_trace_pod_event(t, GS_SEC(5), 0, "Scheduled", "Successfully assigned default/w-0 to gpu-0");
    gs_trace_pod_event(t, GS_SEC(40), 1, "Scheduled", "Successfully assigned default/w-1 to gpu-0");
    /* after the checkpoint: not counted */
    cr_assert(eq(int, gs_trace_checkpoint(t, GS_SEC(60)), 0));
    gs_trace_pod_event(t, GS_SEC(90), 2, "Scheduled", "Successfully assigned default/w-2 to gpu-0");
    cr_assert(eq(int, gs_trace_close(t, "interrupted", GS_SEC(100)), 0));
    char partial[160];
    snprintf(partial, sizeof partial, "%s.partial", path);
    json_t *doc;
    cr_assert(eq(int, gs_study_open(partial, &doc, err, sizeof err), 0), "%s", err);
    const json_t *run = json_object_get(doc, "run");
    cr_assert(eq(str, (char *)json_string_value(json_object_get(run, "status")), "interrupted"));
    cr_assert(eq(dbl, num(run, "endSeconds", NULL), 60.0));
    bool no_command = json_is_null(json_object_get(run, "command"));
    cr_assert(no_command);
    /* w-0 waited 5 s, w-1 30 s; w-2 (created at 20 s) still pending at 60 s */
    cr_assert(eq(dbl, num(doc, "timeToSchedule", "count"), 2.0));
    cr_assert(eq(dbl, num(doc, "timeToSchedule", "max"), 30.0));
    cr_assert(eq(dbl, num(doc, "pendingAtEnd", "count"), 1.0));
    cr_assert(eq(dbl, num(doc, "pendingAtEnd", "ageMax"), 40.0));
    /* 1 GPU x (5 + 30 + 40) s */
    cr_assert(ieee_ulp_eq(dbl, num(doc, "pendingGpuHours", NULL), 75.0 / 3600, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "nodeHours"), 60.0 / 3600, 4));
    json_decref(doc);
}

/* ------------------------------------------------------------------ incompleteGroupGpuHours */

/* A trace by hand: a pod of PodGroup g, and whole-cluster samples of
 * gpus_held_by_incomplete_groups 0 at 0 s, 16 at 100 s, 8 at 400 s (a per-pool row of 99 at
 * 100 s, which does not count), to the end at 1000 s: 16 x 300 s + 8 x 600 s = 9600 GPU-s. */
Test(study, incomplete_groups_by_hand)
{
    struct gs_trace *t = NULL;
    char err[256] = "";
    cr_assert(eq(int, gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), 0), "%s", err);
    gs_trace_node(t, 0, "h100-0", "h100", "NVIDIA-H100-80GB-HBM3", 8);
    gs_trace_node_event(t, 0, 0, "Joined", "h100", NULL);
    struct gs_trace_pod p = {.id = 0, .name = "g-0", .workload = "g", .pod_group = "g", .gpu = 8,
                             .created_us = 0, .scheduled_us = 0, .started_us = 0, .finished_us = -1,
                             .node_id = 0, .phase = "Running"};
    cr_assert(eq(int, gs_trace_pod(t, &p), 0));
    static const struct {
        int64_t t_s, held;
        const char *pool;
    } rows[] = {{0, 0, ""}, {100, 16, ""}, {100, 99, "h100"}, {400, 8, ""}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct gs_metrics m = {.t = GS_SEC(rows[i].t_s), .gpus_allocatable = 8, .gpus_allocated = 8,
                               .gpus_held_by_incomplete_groups = rows[i].held, .frag_gpus = NAN};
        cr_assert(eq(int, gs_trace_sample(t, rows[i].pool, &m), 0));
    }
    cr_assert(eq(int, gs_trace_close(t, "complete", GS_SEC(1000)), 0));
    json_t *doc;
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    cr_assert(ieee_ulp_eq(dbl, num(doc, "cluster", "incompleteGroupGpuHours"), 9600.0 / 3600, 4));
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "incompleteGroupGpuHours"), 9600.0 / 3600, 4));
    /* the text summary's utilisation section has the line */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert(eq(int, gs_study_print_text(doc, m), 0));
    fclose(m);
    cr_assert(not(eq(ptr, strstr(buf, "  held by incomplete PodGroups (fewer than minMember pods Running): 2.67 "
                                      "GPU-hours\n"), NULL)), "%s", buf);
    free(buf);
    json_decref(doc);
}

/* Run `scenario` with `sets`, into `trace`; the results and the checks' details stay in *sc
 * (the caller frees it). */
static void run_keep(const char *scenario, const char *trace, const char *const *sets, int nsets,
                     struct gs_scenario *sc, struct gs_run_result *res)
{
    struct gs_error e = {0};
    cr_assert(eq(int, gs_scenario_load(scenario, sets, nsets, -1, -1, sc, &e), 0), "%s:%d: %s", e.file, e.line,
              e.msg);
    struct gs_run_opts o = {.trace_path = trace, .trace_level = GS_TRACE_EVENTS, .command = "gpusim run x",
                            .overrides = sets, .noverrides = nsets};
    char err[256] = "";
    cr_assert(eq(int, gs_run(sc, &o, res, err, sizeof err), 0), "%s", err);
}

/* scenarios/teaching/gang-deadlock.yaml, pod by pod: trainer-a-0 is bound at 0 s, trainer-b-0 at
 * 1 s, -a-1 at 2 s, -b-1 at 3 s (8 GPUs each), and the third pods never fit, so both groups stay
 * incomplete to the 1 h horizon. Samples every 10 s: the one at 0 s (taken after a-0's binding)
 * sees 8 GPUs held, every later one 32. Sample-based: 8 x 10 s + 32 x 3590 s = 114960 GPU-s =
 * 31.9333 GPU-hours; the report and a stat: check agree to the last bit. With a sample at
 * every pod change (--sample-every-pod) it is the exact integral:
 * 8 x (3600 + 3599 + 3598 + 3597) s = 115152 GPU-s = 31.9867 GPU-hours. */
Test(study, incomplete_group_gpu_hours_gang_deadlock)
{
    const char *scn = GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock.yaml";
    const double want = 114960.0 / 3600;
    char eq_set[128];
    snprintf(eq_set, sizeof eq_set, "expect[8]={stat: incompleteGroupGpuHours, equals: %.17g}", want);
    const char *sets[] = {eq_set, "expect[9]={stat: incompleteGroupGpuHours, max: 31.9}",
                          "expect[10]={stat: gpuHoursAllocated, equals: 31.933333333333334}"};
    struct gs_scenario sc;
    struct gs_run_result res;
    run_keep(scn, path, sets, 3, &sc, &res);
    cr_assert(eq(int, res.checks_total, 11));
    cr_assert(eq(int, res.checks_failed, 1));
    cr_assert(eq(int, sc.expects[8].pass, 1), "%s", sc.expects[8].detail);
    cr_assert(eq(str, (char *)sc.expects[8].detail, "value 31.9333"));
    cr_assert(eq(int, sc.expects[9].pass, 0));
    cr_assert(eq(str, (char *)sc.expects[9].what, "stat incompleteGroupGpuHours: max 31.9"));
    cr_assert(eq(str, (char *)sc.expects[9].detail, "value 31.9333"));
    cr_assert(eq(int, sc.expects[10].pass, 1), "%s", sc.expects[10].detail);
    gs_scenario_free(&sc);
    json_t *doc;
    char err[256] = "";
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    cr_assert(eq(dbl, num(doc, "cluster", "incompleteGroupGpuHours"), want));
    cr_assert(eq(dbl, metric(doc, "incompleteGroupGpuHours"), want));
    /* every allocated GPU is held by an incomplete group (the notebook never finds one) */
    cr_assert(eq(dbl, num(doc, "cluster", "gpuHoursAllocated"), want));
    json_decref(doc);

    /* a sample at every pod change: the exact integral, still one source for both */
    char exact_set[128], trace2[160];
    const double exact = 115152.0 / 3600;
    snprintf(exact_set, sizeof exact_set, "expect[8]={stat: incompleteGroupGpuHours, equals: %.17g}", exact);
    snprintf(trace2, sizeof trace2, "%s/every.db", dir);
    struct gs_error e = {0};
    const char *sets2[] = {exact_set};
    cr_assert(eq(int, gs_scenario_load(scn, sets2, 1, -1, -1, &sc, &e), 0), "%s", e.msg);
    struct gs_run_opts o = {.trace_path = trace2, .trace_level = GS_TRACE_EVENTS, .sample_every_pod = true};
    cr_assert(eq(int, gs_run(&sc, &o, &res, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, sc.expects[8].pass, 1), "%s", sc.expects[8].detail);
    cr_assert(eq(int, res.checks_failed, 0));
    gs_scenario_free(&sc);
    cr_assert(eq(int, gs_study_open(trace2, &doc, err, sizeof err), 0), "%s", err);
    cr_assert(ieee_ulp_eq(dbl, metric(doc, "incompleteGroupGpuHours"), exact, 4));
    json_decref(doc);
}

/* The same jobs under gang admission (gang-deadlock-gang.yaml): trainer-a is placed whole, so no
 * GPU is ever held by an incomplete group: 0 GPU-hours, not null (the run has PodGroups). A run
 * without PodGroups has no value: null in the report, "no value" for a stat: check. */
Test(study, incomplete_group_gpu_hours_gang_and_none)
{
    const char *sets[] = {"expect[9]={stat: incompleteGroupGpuHours, equals: 0}"};
    struct gs_scenario sc;
    struct gs_run_result res;
    run_keep(GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock-gang.yaml", path, sets, 1, &sc, &res);
    cr_assert(eq(int, res.checks_failed, 0));
    cr_assert(eq(str, (char *)sc.expects[9].detail, "value 0"));
    gs_scenario_free(&sc);
    json_t *doc;
    char err[256] = "";
    cr_assert(eq(int, gs_study_open(path, &doc, err, sizeof err), 0), "%s", err);
    cr_assert(eq(dbl, num(doc, "cluster", "incompleteGroupGpuHours"), 0.0));
    cr_assert(eq(dbl, metric(doc, "incompleteGroupGpuHours"), 0.0));
    json_decref(doc);

    char trace2[160];
    snprintf(trace2, sizeof trace2, "%s/none.db", dir);
    const char *sets2[] = {"expect[2]={stat: incompleteGroupGpuHours, equals: 0}"};
    run_keep(GPUSIM_SOURCE_DIR "/tests/scenarios/study-metrics.yaml", trace2, NULL, 0, &sc, &res);
    int n = sc.nexpects;
    gs_scenario_free(&sc);
    char set[128];
    snprintf(set, sizeof set, "expect[%d]={stat: incompleteGroupGpuHours, equals: 0}", n);
    sets2[0] = set;
    run_keep(GPUSIM_SOURCE_DIR "/tests/scenarios/study-metrics.yaml", trace2, sets2, 1, &sc, &res);
    cr_assert(eq(int, res.checks_failed, 1));
    cr_assert(eq(str, (char *)sc.expects[n].detail, "no value: the run had no PodGroup"));
    gs_scenario_free(&sc);
    cr_assert(eq(int, gs_study_open(trace2, &doc, err, sizeof err), 0), "%s", err);
    bool is_null = json_is_null(json_object_get(json_object_get(doc, "cluster"), "incompleteGroupGpuHours"));
    cr_assert(is_null);
    cr_assert(isnan(metric(doc, "incompleteGroupGpuHours")));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert(eq(int, gs_study_print_text(doc, m), 0));
    fclose(m);
    cr_assert(eq(ptr, strstr(buf, "incomplete PodGroups"), NULL), "%s", buf);
    free(buf);
    json_decref(doc);
}
