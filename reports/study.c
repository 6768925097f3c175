/* gpusim: the study metrics of a trace (reports/study.h), read from the database alone. */
#include "reports/study.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/stats.h"
#include "models/quantity.h"
#include "reports/autoscaler.h"
#include "reports/open.h"
#include "sim/objective.h"

struct study {
    sqlite3 *db;
    const char *path;
    char *err;
    int errlen;
    gs_time end;
    bool summary_level; /* no node_event rows: node-hours from samples */
};

/* One pool's accumulators. */
struct pool_acc {
    char *name;
    int64_t nodes;
    int64_t node_us;       /* node-µs (events), or */
    struct gs_step_integral ready;  /* nodes_ready over samples, node-µs (summary-level traces) */
    bool has_price;
    double price;
    /* GPU-time over samples, GPU-µs (as sim/metrics.c integrates them): gpus_allocated,
     * gpus_allocatable, gpus_held_by_incomplete_groups */
    struct gs_step_integral alloc, allocatable, held;
};

static int sql_err(struct study *s)
{
    return gs_report_error(s->err, s->errlen, GS_ESQL, "trace '%s': %s", s->path, sqlite3_errmsg(s->db));
}

static int nomem(struct study *s)
{
    return gs_report_error(s->err, s->errlen, GS_ENOMEM, "out of memory");
}

static int prep(struct study *s, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return sql_err(s);
    }
    return 0;
}

/* run.<key> into buf (size n); false when absent or NULL. */
static bool run_text(struct study *s, const char *key, char *buf, size_t n)
{
    sqlite3_stmt *st;
    buf[0] = '\0';
    if (prep(s, "SELECT value FROM run WHERE key = ?1", &st))
        return false;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    bool found = false;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
        found = true;
    }
    sqlite3_finalize(st);
    return found;
}

static bool run_int(struct study *s, const char *key, int64_t *v)
{
    char buf[64], *end;
    if (!run_text(s, key, buf, sizeof buf) || !buf[0])
        return false;
    long long x = strtoll(buf, &end, 10);
    if (*end)
        return false;
    *v = x;
    return true;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* json_object_set_new that records a failure in *bad. */
static void put(json_t *o, const char *k, json_t *v, bool *bad)
{
    if (!v || json_object_set_new(o, k, v) != 0)
        *bad = true;
}

static json_t *quantiles(const struct gs_stats_summary *q, bool *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = true;
        return NULL;
    }
    put(o, "count", json_integer((json_int_t)q->n), bad);
    put(o, "mean", num_or_null(q->mean), bad);
    put(o, "p50", num_or_null(q->p50), bad);
    put(o, "p90", num_or_null(q->p90), bad);
    put(o, "p95", num_or_null(q->p95), bad);
    put(o, "p99", num_or_null(q->p99), bad);
    put(o, "max", num_or_null(q->max), bad);
    return o;
}

static json_t *pending_obj(const struct gs_study_pods *p, bool *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = true;
        return NULL;
    }
    put(o, "count", json_integer((json_int_t)p->pending), bad);
    put(o, "gpus", json_integer(p->pending_gpus), bad);
    put(o, "ageMean", num_or_null(p->pending_age_mean), bad);
    put(o, "ageMax", num_or_null(p->pending_age_max), bad);
    return o;
}

/* The end of the trace (struct study.end): see reports/study.h. */
static int find_end(struct study *s, json_t *run, bool *bad)
{
    char status[64];
    if (!run_text(s, "status", status, sizeof status))
        snprintf(status, sizeof status, "unknown");
    int64_t end = -1, until = -1, horizon = -1, seed = -1;
    bool has_end = run_int(s, "end_us", &end);
    bool has_until = run_int(s, "complete_until_us", &until) && until >= 0;
    if (strcmp(status, "complete") == 0 && has_end)
        s->end = end;
    else if (has_until)
        s->end = until;
    else if (has_end)
        s->end = end;
    else {
        sqlite3_stmt *st;
        int rc = prep(s,
                      "SELECT max(t) FROM (SELECT max(t_us) AS t FROM sample"
                      " UNION ALL SELECT max(created_us) FROM pod"
                      " UNION ALL SELECT max(t_us) FROM node_event"
                      " UNION ALL SELECT max(t_us) FROM object)",
                      &st);
        if (rc)
            return rc;
        s->end = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
    }
    char buf[4096];
    put(run, "scenario", run_text(s, "scenario", buf, sizeof buf) ? json_string(buf) : json_null(), bad);
    put(run, "scenarioPath", run_text(s, "scenario_path", buf, sizeof buf) ? json_string(buf) : json_null(), bad);
    put(run, "seed", run_int(s, "seed", &seed) ? json_integer(seed) : json_null(), bad);
    put(run, "status", json_string(status), bad);
    put(run, "horizonSeconds", run_int(s, "horizon_us", &horizon) ? json_real((double)horizon / 1e6) : json_null(),
        bad);
    put(run, "endSeconds", json_real((double)s->end / 1e6), bad);
    put(run, "command", run_text(s, "command", buf, sizeof buf) ? json_string(buf) : json_null(), bad);
    /* node-hours come from the nodes' Joined rows; a trace without any (--trace-level summary)
     * integrates the samples' nodes_ready instead */
    sqlite3_stmt *jt;
    int jrc = prep(s, "SELECT NOT EXISTS (SELECT 1 FROM node_event WHERE kind = 'Joined')", &jt);
    if (jrc)
        return jrc;
    s->summary_level = sqlite3_step(jt) == SQLITE_ROW && sqlite3_column_int(jt, 0);
    sqlite3_finalize(jt);
    json_t *ov = json_object();
    put(run, "overrides", ov, bad);
    sqlite3_stmt *st;
    int rc = prep(s, "SELECT substr(key, 10), value FROM run WHERE key LIKE 'override.%' ORDER BY rowid", &st);
    if (rc)
        return rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
        if (ov && k)
            put(ov, k, json_string(v ? v : ""), bad);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sql_err(s);
}

static int pod_counts(struct study *s, json_t *doc, bool *bad)
{
    sqlite3_stmt *st;
    int rc = prep(s,
                  "SELECT count(*), count(scheduled_us), sum(phase = 'Running'), sum(phase = 'Succeeded'),"
                  " sum(phase = 'Failed'), sum(phase = 'Pending'), sum(phase = 'Rejected'), sum(phase = 'Deleted')"
                  " FROM pod",
                  &st);
    if (rc)
        return rc;
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = sql_err(s);
        sqlite3_finalize(st);
        return rc;
    }
    static const char *const keys[] = {"total", "scheduled", "running", "succeeded", "failed", "pending", "rejected",
                                       "deleted"};
    json_t *o = json_object();
    for (int i = 0; i < 8 && o; i++)
        put(o, keys[i], json_integer(sqlite3_column_int64(st, i)), bad);
    put(doc, "pods", o, bad);
    sqlite3_finalize(st);
    return 0;
}

static void put_pod_stats(json_t *target, struct gs_study_acc *acc, bool with_hours, bool *bad)
{
    struct gs_study_pods r;
    gs_study_acc_finish(acc, &r);
    put(target, "timeToSchedule", quantiles(&r.to_schedule, bad), bad);
    put(target, "timeToRunning", quantiles(&r.to_running, bad), bad);
    put(target, "pendingAtEnd", pending_obj(&r, bad), bad);
    if (with_hours)
        put(target, "pendingGpuHours", json_real(r.pending_gpu_hours), bad);
}

/* The pod statistics of the pods of `sql` (rows: key, created, scheduled, started, finished,
 * gpu, phase; ordered by key then id), streamed through an accumulator: into doc when `by` is
 * NULL (one set, keys ignored), else one object per key into by[key]. */
static int pod_stats(struct study *s, const char *sql, json_t *doc, json_t *by, bool *bad)
{
    sqlite3_stmt *st;
    int rc = prep(s, sql, &st);
    if (rc)
        return rc;
    struct gs_study_acc acc = {0};
    char *key = NULL;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        if (!k)
            k = "";
        if (by && (!key || strcmp(k, key) != 0)) {
            if (key) { /* the previous key's pods are all in */
                json_t *o = json_object();
                put(by, key, o, bad);
                if (o)
                    put_pod_stats(o, &acc, false, bad);
                gs_free(key);
            }
            if (!(key = gs_strdup(k))) {
                rc = nomem(s);
                break;
            }
        }
        struct gs_study_pod q = {
            .created_us = sqlite3_column_int64(st, 1),
            .scheduled_us = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2),
            .started_us = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3),
            .finished_us = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4),
            .gpu = sqlite3_column_int64(st, 5),
        };
        const char *phase = (const char *)sqlite3_column_text(st, 6);
        q.ended = phase && strcmp(phase, "Pending") != 0 && strcmp(phase, "Running") != 0;
        /* a time after the end is not reached yet (an incomplete trace's pods are as of the end) */
        if (q.scheduled_us > s->end)
            q.scheduled_us = -1;
        if (q.started_us > s->end)
            q.started_us = -1;
        if (q.finished_us > s->end)
            q.finished_us = -1;
        if (gs_study_acc_add(&acc, &q, s->end)) {
            rc = nomem(s);
            break;
        }
    }
    if (!rc && src != SQLITE_DONE)
        rc = sql_err(s);
    if (!rc && !by) {
        put_pod_stats(doc, &acc, true, bad);
    } else if (!rc && key) {
        json_t *o = json_object();
        put(by, key, o, bad);
        if (o)
            put_pod_stats(o, &acc, false, bad);
    }
    gs_study_acc_free(&acc);
    sqlite3_finalize(st);
    gs_free(key);
    return rc;
}

static struct pool_acc *pool_find(struct pool_acc *pools, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(pools[i].name, name) == 0)
            return &pools[i];
    return NULL;
}

static void integrate(struct pool_acc *a, gs_time t, int64_t alloc, int64_t allocatable, int64_t ready, int64_t held)
{
    gs_step_integral_add(&a->alloc, t, (double)alloc);
    gs_step_integral_add(&a->allocatable, t, (double)allocatable);
    gs_step_integral_add(&a->ready, t, (double)ready);
    gs_step_integral_add(&a->held, t, (double)held);
}

static int pools_section(struct study *s, json_t *doc, bool *bad)
{
    struct pool_acc *pools = NULL, cluster = {0};
    int n = 0, cap = 0, rc = 0;
    sqlite3_stmt *st;
    /* PodGroups: a pod of one, or a PodGroup manifest (sim: the world has a group) */
    bool had_groups = false;
    rc = prep(s,
              "SELECT EXISTS (SELECT 1 FROM pod WHERE pod_group IS NOT NULL)"
              " OR EXISTS (SELECT 1 FROM object WHERE kind = 'PodGroup')",
              &st);
    if (rc)
        return rc;
    had_groups = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    /* the pools in the order the run lists them (its samples'), then any other pool of a node */
    rc = prep(s,
              "SELECT pool FROM (SELECT pool, 0 AS src, min(rowid) AS o FROM sample WHERE pool <> '' GROUP BY pool"
              " UNION ALL SELECT coalesce(pool, ''), 1, min(id) FROM node WHERE coalesce(pool, '') NOT IN"
              " (SELECT pool FROM sample) GROUP BY coalesce(pool, '')) ORDER BY src, o",
              &st);
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (GS_GROW_ZERO(pools, cap, n + 1) || !(pools[n].name = gs_strdup(name ? name : ""))) {
            rc = nomem(s);
            break;
        }
        n++;
    }
    sqlite3_finalize(st);
    /* prices, nodes */
    for (int i = 0; i < n && !rc; i++) {
        char key[600], v[64], *end;
        snprintf(key, sizeof key, "pricePerHour.%s", pools[i].name);
        if (run_text(s, key, v, sizeof v)) {
            double x = strtod(v, &end);
            if (!*end && isfinite(x)) {
                pools[i].has_price = true;
                pools[i].price = x;
            }
        }
    }
    if (!rc)
        rc = prep(s, "SELECT coalesce(pool, ''), count(*) FROM node GROUP BY 1", &st);
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        struct pool_acc *a = pool_find(pools, n, (const char *)sqlite3_column_text(st, 0));
        if (a)
            a->nodes = sqlite3_column_int64(st, 1);
    }
    if (!rc)
        sqlite3_finalize(st);
    /* node-µs from each node's Joined row to its Deleted row or the end */
    if (!rc && !s->summary_level) {
        rc = prep(s,
                  "SELECT coalesce(n.pool, ''),"
                  " (SELECT min(e.t_us) FROM node_event e WHERE e.node_id = n.id AND e.kind = 'Joined'),"
                  " (SELECT min(e.t_us) FROM node_event e WHERE e.node_id = n.id AND e.kind = 'Deleted')"
                  " FROM node n ORDER BY n.id",
                  &st);
        while (!rc && sqlite3_step(st) == SQLITE_ROW) {
            struct pool_acc *a = pool_find(pools, n, (const char *)sqlite3_column_text(st, 0));
            if (!a || sqlite3_column_type(st, 1) == SQLITE_NULL)
                continue;
            gs_time j = sqlite3_column_int64(st, 1);
            gs_time d = sqlite3_column_type(st, 2) == SQLITE_NULL ? s->end : sqlite3_column_int64(st, 2);
            if (d > s->end)
                d = s->end;
            if (d > j)
                a->node_us += d - j;
        }
        if (!rc)
            sqlite3_finalize(st);
    }
    /* GPU-time (and nodes ready) over the samples up to the end */
    if (!rc)
        rc = prep(s,
                  "SELECT pool, t_us, gpus_allocated, gpus_allocatable, nodes_ready,"
                  " coalesce(gpus_held_by_incomplete_groups, 0) FROM sample WHERE t_us <= ?1 ORDER BY t_us, rowid",
                  &st);
    if (!rc) {
        sqlite3_bind_int64(st, 1, s->end);
        int src;
        while ((src = sqlite3_step(st)) == SQLITE_ROW) {
            const char *pool = (const char *)sqlite3_column_text(st, 0);
            struct pool_acc *a = pool && pool[0] ? pool_find(pools, n, pool) : &cluster;
            if (a)
                integrate(a, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                          sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5));
        }
        rc = src == SQLITE_DONE ? 0 : sql_err(s);
        sqlite3_finalize(st);
    }
    if (rc) {
        for (int i = 0; i < n; i++)
            gs_free(pools[i].name);
        gs_free(pools);
        return rc;
    }
    /* the last sample holds until the end */
    for (int i = -1; i < n; i++) {
        struct pool_acc *a = i < 0 ? &cluster : &pools[i];
        if (a->alloc.has && s->end > a->alloc.t)
            integrate(a, s->end, 0, 0, 0, 0);
    }
    json_t *po = json_object(), *co = json_object();
    put(doc, "pools", po, bad);
    int64_t total_us = 0;
    double total_ready_us = 0, cost = 0;
    bool priced = false;
    for (int i = 0; i < n && po; i++) {
        struct pool_acc *a = &pools[i];
        json_t *o = json_object();
        put(po, a->name, o, bad);
        if (!o)
            continue;
        double hours = s->summary_level ? a->ready.sum / 3.6e9 : (double)a->node_us / 3.6e9;
        total_us += a->node_us;
        total_ready_us += a->ready.sum;
        put(o, "nodes", json_integer(a->nodes), bad);
        put(o, "nodeHours", json_real(hours), bad);
        put(o, "gpuHoursAllocatable", json_real(a->allocatable.sum / 3.6e9), bad);
        put(o, "gpuHoursAllocated", json_real(a->alloc.sum / 3.6e9), bad);
        put(o, "gpuUtilisation", a->allocatable.sum > 0 ? json_real(a->alloc.sum / a->allocatable.sum) : json_null(), bad);
        put(o, "pricePerHour", a->has_price ? json_real(a->price) : json_null(), bad);
        put(o, "cost", a->has_price ? json_real(hours * a->price) : json_null(), bad);
        if (a->has_price) {
            cost += hours * a->price;
            priced = true;
        }
    }
    put(doc, "cluster", co, bad);
    if (co) {
        put(co, "nodeHours", json_real(s->summary_level ? total_ready_us / 3.6e9 : (double)total_us / 3.6e9), bad);
        put(co, "gpuUtilisation",
            cluster.allocatable.sum > 0 ? json_real(cluster.alloc.sum / cluster.allocatable.sum) : json_null(), bad);
        put(co, "cost", priced ? json_real(cost) : json_null(), bad);
        put(co, "gpuHoursAllocated", json_real(cluster.alloc.sum / 3.6e9), bad);
        /* sample-based, as sim/check.c's stat: check (sim/metrics.h struct gs_gpu_time) */
        put(co, "incompleteGroupGpuHours", had_groups ? json_real(cluster.held.sum / 3.6e9) : json_null(), bad);
    }
    for (int i = 0; i < n; i++)
        gs_free(pools[i].name);
    gs_free(pools);
    return 0;
}

int gs_study_open(const char *trace_path, json_t **out, char *err, size_t errlen)
{
    *out = NULL;
    struct study s = {.path = trace_path, .err = err, .errlen = errlen > INT32_MAX ? INT32_MAX : (int)errlen};
    if (!trace_path)
        return gs_report_error(s.err, s.errlen, GS_EINVAL, "gs_study_open: no trace");
    int rc = gs_report_open(trace_path, &s.db, s.err, s.errlen);
    if (rc)
        return rc;
    bool bad = false;
    json_t *doc = json_object(), *run = json_object();
    put(doc, "schema", json_string(GS_STUDY_SCHEMA), &bad);
    put(doc, "run", run, &bad);
    if (!doc || !run)
        rc = nomem(&s);
    if (!rc)
        rc = find_end(&s, run, &bad);
    if (!rc)
        rc = pod_counts(&s, doc, &bad);
    if (!rc)
        rc = pod_stats(&s,
                       "SELECT NULL, created_us, scheduled_us, started_us, finished_us, coalesce(gpu, 0), phase FROM pod"
                       " ORDER BY id",
                       doc, NULL, &bad);
    json_t *bw = json_object(), *bp = json_object();
    put(doc, "byWorkload", bw, &bad);
    put(doc, "byPriority", bp, &bad);
    if (!rc && bw)
        rc = pod_stats(&s,
                       "SELECT coalesce(workload, '(none)'), created_us, scheduled_us, started_us, finished_us,"
                       " coalesce(gpu, 0), phase FROM pod ORDER BY coalesce(workload, '(none)'), id",
                       doc, bw, &bad);
    if (!rc && bp)
        rc = pod_stats(&s,
                       "SELECT CAST(coalesce(priority, 0) AS TEXT), created_us, scheduled_us, started_us,"
                       " finished_us, coalesce(gpu, 0), phase FROM pod ORDER BY coalesce(priority, 0), id",
                       doc, bp, &bad);
    if (!rc)
        rc = pools_section(&s, doc, &bad);
    if (!rc) {
        /* the Cluster Autoscaler's decisions, when the run had node groups */
        struct gs_autoscaler_counts ac;
        int has = gs_report_autoscaler_counts(s.db, &ac);
        if (has < 0) {
            rc = gs_report_error(s.err, s.errlen, has, "%s: %s", trace_path, sqlite3_errmsg(s.db));
        } else if (has) {
            json_t *ao = json_object();
            put(doc, "autoscaler", ao, &bad);
            if (ao) {
                put(ao, "scaleUps", json_integer(ac.scale_ups), &bad);
                put(ao, "scaleDowns", json_integer(ac.scale_downs), &bad);
                put(ao, "nodesAdded", json_integer(ac.nodes_added), &bad);
                put(ao, "nodesRemoved", json_integer(ac.nodes_removed), &bad);
            }
        }
    }
    if (!rc && bad)
        rc = nomem(&s);
    sqlite3_close(s.db);
    if (rc) {
        json_decref(doc);
        return rc;
    }
    /* the key order of the contract: pendingGpuHours after pendingAtEnd is where pod_stats put it */
    *out = doc;
    return 0;
}

/* ------------------------------------------------------------------ gs_study_metric */

static double jnum(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The keys of object `o` as "a, b, c" into buf. */
static const char *keys_of(const json_t *o, char *buf, size_t n)
{
    const char *k;
    const json_t *v;
    size_t len = 0;
    buf[0] = '\0';
    json_object_foreach((json_t *)o, k, v)
    {
        (void)v;
        if (len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", k);
    }
    if (!buf[0])
        snprintf(buf, n, "none");
    return buf;
}

int gs_study_metric(const json_t *doc, const char *expr, double *out, char *err, size_t errlen)
{
    int elen = errlen > INT32_MAX ? INT32_MAX : (int)errlen;
    *out = NAN;
    struct gs_objective o;
    int rc = gs_objective_parse(expr, &o, err, errlen);
    if (rc)
        return rc;
    if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "schema")))
        return gs_report_error(err, elen, GS_EINVAL, "not a gpusim report document");
    const json_t *base = doc;
    char list[512];
    if (o.scope == GS_OBJ_WORKLOAD || o.scope == GS_OBJ_PRIORITY) {
        const char *by = o.scope == GS_OBJ_WORKLOAD ? "byWorkload" : "byPriority";
        const json_t *all = json_object_get(doc, by);
        base = json_object_get(all, o.scope_value);
        if (!base)
            return gs_report_error(err, elen, GS_EINVAL, "no %s '%s' in this run (%s: %s)",
                                   o.scope == GS_OBJ_WORKLOAD ? "workload" : "priority", o.scope_value,
                                   o.scope == GS_OBJ_WORKLOAD ? "workloads" : "priorities",
                                   keys_of(all, list, sizeof list));
    } else if (o.scope == GS_OBJ_POOL) {
        const json_t *all = json_object_get(doc, "pools");
        base = json_object_get(all, o.scope_value);
        if (!base)
            return gs_report_error(err, elen, GS_EINVAL, "no pool '%s' in this run (pools: %s)", o.scope_value,
                                   keys_of(all, list, sizeof list));
    }
    static const char *const stat_keys[] = {"p50", "p90", "p95", "p99", "max", "mean"};
    switch (o.metric) {
    case GS_OBJ_TIME_TO_SCHEDULE:
    case GS_OBJ_TIME_TO_RUNNING:
        *out = jnum(json_object_get(json_object_get(base, o.metric == GS_OBJ_TIME_TO_SCHEDULE ? "timeToSchedule"
                                                                                               : "timeToRunning"),
                                    stat_keys[o.stat]));
        return 0;
    case GS_OBJ_PENDING_AT_END:
        *out = jnum(json_object_get(json_object_get(base, "pendingAtEnd"), "count"));
        return 0;
    case GS_OBJ_PENDING_GPU_HOURS:
        *out = jnum(json_object_get(base, "pendingGpuHours"));
        return 0;
    case GS_OBJ_UTILISATION:
        *out = jnum(json_object_get(o.scope == GS_OBJ_POOL ? base : json_object_get(doc, "cluster"), "gpuUtilisation"));
        return 0;
    case GS_OBJ_NODE_HOURS:
        *out = jnum(json_object_get(o.scope == GS_OBJ_POOL ? base : json_object_get(doc, "cluster"), "nodeHours"));
        return 0;
    case GS_OBJ_COST:
        *out = jnum(json_object_get(o.scope == GS_OBJ_POOL ? base : json_object_get(doc, "cluster"), "cost"));
        return 0;
    case GS_OBJ_GPU_HOURS_ALLOCATED:
        *out = jnum(json_object_get(o.scope == GS_OBJ_POOL ? base : json_object_get(doc, "cluster"),
                                    "gpuHoursAllocated"));
        return 0;
    case GS_OBJ_INCOMPLETE_GROUP_GPU_HOURS:
        *out = jnum(json_object_get(json_object_get(doc, "cluster"), "incompleteGroupGpuHours"));
        return 0;
    }
    return gs_report_error(err, elen, GS_EINVAL, "unknown metric");
}

/* ------------------------------------------------------------------ output */

int gs_study_print_json(const json_t *doc, FILE *out)
{
    if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) != 0)
        return GS_EIO;
    fputc('\n', out);
    return ferror(out) ? GS_EIO : 0;
}

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_value(FILE *out, const json_t *v)
{
    char buf[64];
    if (json_is_integer(v))
        fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v)) {
        snprintf(buf, sizeof buf, "%.15g", json_real_value(v));
        fputs(buf, out);
    } else if (json_is_string(v))
        csv_field(out, json_string_value(v));
}

/* Rows for every number (or null) in object `o`, metric names prefixed by `prefix`. */
static void csv_object(FILE *out, const char *scope, const char *key, const char *prefix, const json_t *o)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        char name[256];
        snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "", k);
        if (json_is_object(v)) {
            csv_object(out, scope, key, name, v);
            continue;
        }
        fprintf(out, "%s,", scope);
        csv_field(out, key);
        fputc(',', out);
        csv_field(out, name);
        fputc(',', out);
        csv_value(out, v);
        fputc('\n', out);
    }
}

int gs_study_print_csv(const json_t *doc, FILE *out)
{
    fputs("scope,key,metric,value\n", out);
    const json_t *run = json_object_get(doc, "run");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)run, k, v)
    {
        if (strcmp(k, "overrides") == 0)
            continue;
        fprintf(out, "run,,%s,", k);
        csv_value(out, v);
        fputc('\n', out);
    }
    json_object_foreach(json_object_get(run, "overrides"), k, v)
    {
        fputs("run,", out);
        csv_field(out, k);
        fputs(",override,", out);
        csv_value(out, v);
        fputc('\n', out);
    }
    static const char *const cluster_keys[] = {"pods", "timeToSchedule", "timeToRunning", "pendingAtEnd",
                                               "pendingGpuHours", "cluster"};
    for (size_t i = 0; i < sizeof cluster_keys / sizeof *cluster_keys; i++) {
        const json_t *x = json_object_get(doc, cluster_keys[i]);
        if (json_is_object(x)) {
            csv_object(out, "cluster", "", strcmp(cluster_keys[i], "cluster") == 0 ? "" : cluster_keys[i], x);
        } else if (x) {
            fprintf(out, "cluster,,%s,", cluster_keys[i]);
            csv_value(out, x);
            fputc('\n', out);
        }
    }
    static const char *const groups[][2] = {{"pools", "pool"}, {"byWorkload", "workload"}, {"byPriority", "priority"}};
    for (size_t g = 0; g < 3; g++)
        json_object_foreach(json_object_get(doc, groups[g][0]), k, v) csv_object(out, groups[g][1], k, "", v);
    if (json_is_object(json_object_get(doc, "autoscaler")))
        csv_object(out, "cluster", "", "autoscaler", json_object_get(doc, "autoscaler"));
    fflush(out);
    return ferror(out) ? GS_EIO : 0;
}

/* A duration in seconds as the summary prints durations ("1m20.5s"), to the millisecond. */
static const char *dur(const json_t *v, char *buf, size_t n)
{
    double s = jnum(v);
    if (!isfinite(s)) {
        snprintf(buf, n, "-");
        return buf;
    }
    int64_t us = (int64_t)llround(s * 1e3) * 1000;
    if (gs_duration_format(us, buf, n) < 0)
        snprintf(buf, n, "%.3fs", s);
    return buf;
}

static int64_t jint(const json_t *v)
{
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

/* "p50 0s, p90 30s, p95 41.2s, p99 1m20s, max 1m35s, mean 12.5s" */
static void print_q(FILE *out, const json_t *q)
{
    char a[32], b[32], c[32], d[32], e[32], f[32];
    fprintf(out, "p50 %s, p90 %s, p95 %s, p99 %s, max %s, mean %s", dur(json_object_get(q, "p50"), a, sizeof a),
            dur(json_object_get(q, "p90"), b, sizeof b), dur(json_object_get(q, "p95"), c, sizeof c),
            dur(json_object_get(q, "p99"), d, sizeof d), dur(json_object_get(q, "max"), e, sizeof e),
            dur(json_object_get(q, "mean"), f, sizeof f));
}

/* The per-workload or per-priority table (only with more than one row). */
static void print_by(FILE *out, const json_t *by, const char *title)
{
    if (json_object_size(by) < 2)
        return;
    size_t w = strlen(title);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)by, k, v) if (strlen(k) > w) w = strlen(k);
    fprintf(out, "  %-*s  %5s  %9s  %9s  %9s  %9s  %9s  %7s\n", (int)w, title, "bound", "p50", "p90", "p95", "p99", "max",
            "pending");
    json_object_foreach((json_t *)by, k, v)
    {
        const json_t *q = json_object_get(v, "timeToSchedule");
        char a[32], b[32], c[32], d[32], e[32];
        fprintf(out, "  %-*s  %5" PRId64 "  %9s  %9s  %9s  %9s  %9s  %7" PRId64 "\n", (int)w, k,
                jint(json_object_get(q, "count")), dur(json_object_get(q, "p50"), a, sizeof a),
                dur(json_object_get(q, "p90"), b, sizeof b), dur(json_object_get(q, "p95"), c, sizeof c),
                dur(json_object_get(q, "p99"), d, sizeof d), dur(json_object_get(q, "max"), e, sizeof e),
                jint(json_object_get(json_object_get(v, "pendingAtEnd"), "count")));
    }
}

int gs_study_print_text(const json_t *doc, FILE *out)
{
    const json_t *pods = json_object_get(doc, "pods");
    int64_t total = jint(json_object_get(pods, "total"));
    if (total > 0) {
        const json_t *tts = json_object_get(doc, "timeToSchedule"), *ttr = json_object_get(doc, "timeToRunning");
        const json_t *pend = json_object_get(doc, "pendingAtEnd");
        int64_t bound = jint(json_object_get(tts, "count")), started = jint(json_object_get(ttr, "count"));
        fprintf(out, "\nTime to schedule (created to bound; %" PRId64 " of %" PRId64 " pods bound):\n", bound, total);
        if (bound > 0) {
            fputs("  to bound     ", out);
            print_q(out, tts);
            fputc('\n', out);
        }
        if (started > 0) {
            fputs("  to Running   ", out);
            print_q(out, ttr);
            fprintf(out, " (%" PRId64 " %s)\n", started, started == 1 ? "pod started" : "pods started");
        }
        int64_t np = jint(json_object_get(pend, "count"));
        if (np > 0) {
            char a[32], b[32];
            int64_t g = jint(json_object_get(pend, "gpus"));
            fprintf(out, "  pending at end: %" PRId64 " %s wanting %" PRId64 " %s, waiting %s on average, longest %s\n",
                    np, np == 1 ? "pod" : "pods", g, g == 1 ? "GPU" : "GPUs",
                    dur(json_object_get(pend, "ageMean"), a, sizeof a), dur(json_object_get(pend, "ageMax"), b, sizeof b));
        } else {
            fputs("  pending at end: none\n", out);
        }
        fprintf(out, "  pending GPU-hours: %.2f (GPUs requested x hours spent waiting for a node)\n",
                jnum(json_object_get(doc, "pendingGpuHours")));
        print_by(out, json_object_get(doc, "byWorkload"), "workload");
        print_by(out, json_object_get(doc, "byPriority"), "priority");
    }
    const json_t *pools = json_object_get(doc, "pools"), *cl = json_object_get(doc, "cluster");
    if (json_object_size(pools) > 0) {
        fputs("\nUtilisation (GPUs allocated / allocatable, time-weighted) and node-hours:\n",
              out);
        size_t w = 7;
        const char *k;
        const json_t *v;
        json_object_foreach((json_t *)pools, k, v) if (strlen(k) > w) w = strlen(k);
        json_object_foreach((json_t *)pools, k, v)
        {
            double u = jnum(json_object_get(v, "gpuUtilisation"));
            fprintf(out, "  %-*s  %9.2f node-hours", (int)w, k, jnum(json_object_get(v, "nodeHours")));
            if (isfinite(u))
                fprintf(out, ", GPUs %5.1f%% (%.2f of %.2f GPU-hours)", 100 * u,
                        jnum(json_object_get(v, "gpuHoursAllocated")), jnum(json_object_get(v, "gpuHoursAllocatable")));
            else if (jnum(json_object_get(json_object_get(doc, "run"), "endSeconds")) <= 0)
                fputs(", no time simulated", out); /* utilisation over no time is not defined */
            else
                fputs(", no GPUs allocatable", out);
            double cost = jnum(json_object_get(v, "cost"));
            if (isfinite(cost))
                fprintf(out, ", cost %.2f (%g an hour)", cost, jnum(json_object_get(v, "pricePerHour")));
            fputc('\n', out);
        }
        double u = jnum(json_object_get(cl, "gpuUtilisation")), cost = jnum(json_object_get(cl, "cost"));
        fprintf(out, "  %-*s  %9.2f node-hours", (int)w, "cluster", jnum(json_object_get(cl, "nodeHours")));
        if (isfinite(u))
            fprintf(out, ", GPUs %5.1f%%", 100 * u);
        if (isfinite(cost))
            fprintf(out, ", cost %.2f", cost);
        fputc('\n', out);
        /* only when the run had PodGroups (null otherwise) */
        double held = jnum(json_object_get(cl, "incompleteGroupGpuHours"));
        if (isfinite(held))
            fprintf(out, "  held by incomplete PodGroups (fewer than minMember pods Running): %.2f GPU-hours\n", held);
    }
    return ferror(out) ? GS_EIO : 0;
}

/* ------------------------------------------------------------------ gs_study_times_to_schedule */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gs_study_times_to_schedule(const char *trace_path, double **out, int *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    struct study s = {.path = trace_path, .err = err, .errlen = errlen > INT32_MAX ? INT32_MAX : (int)errlen};
    if (!trace_path)
        return gs_report_error(s.err, s.errlen, GS_EINVAL, "gs_study_times_to_schedule: no trace");
    int rc = gs_report_open(trace_path, &s.db, s.err, s.errlen);
    if (rc)
        return rc;
    bool bad = false;
    json_t *run = json_object(); /* find_end's by-products, not kept */
    rc = run ? find_end(&s, run, &bad) : nomem(&s);
    json_decref(run);
    sqlite3_stmt *st = NULL;
    if (!rc)
        rc = prep(&s, "SELECT created_us, scheduled_us FROM pod ORDER BY id", &st);
    struct gs_study_acc acc = {0};
    int src = SQLITE_DONE;
    while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
        /* only the fields time to schedule reads; the rest as "not reached" (pod_stats above) */
        struct gs_study_pod q = {
            .created_us = sqlite3_column_int64(st, 0),
            .scheduled_us = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1),
            .started_us = -1,
            .finished_us = -1,
            .ended = true,
        };
        if (q.scheduled_us > s.end)
            q.scheduled_us = -1;
        if (gs_study_acc_add(&acc, &q, s.end))
            rc = nomem(&s);
    }
    if (!rc && src != SQLITE_DONE)
        rc = sql_err(&s);
    sqlite3_finalize(st);
    sqlite3_close(s.db);
    if (rc) {
        gs_study_acc_free(&acc);
        return rc;
    }
    if (acc.nsched > 0)
        qsort(acc.to_schedule, (size_t)acc.nsched, sizeof *acc.to_schedule, cmp_double);
    *out = acc.to_schedule;
    *n = acc.nsched;
    acc.to_schedule = NULL;
    gs_study_acc_free(&acc);
    return 0;
}
