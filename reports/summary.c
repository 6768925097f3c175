/* gpusim: the run summary (`gpusim report`, and what `gpusim run` prints at the end).
 *
 * Reads only the trace database, read-only, so it works on any trace: finished, interrupted,
 * killed (status still 'running'), or copied from elsewhere. Every query has an ORDER BY
 * that makes the output depend only on the database's contents.
 */
#include "base/alloc.h"
#include "base/array.h"
#include "reports/autoscaler.h"
#include "reports/history.h"
#include "reports/open.h"
#include "reports/report.h"
#include "reports/study.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "models/quantity.h"
#include "sim/trace.h"

/* Pods (or objects) listed per section before "... and N more". */
#define GS_REPORT_LIST_MAX 10

struct gs_report {
    sqlite3 *db;
    const char *path;
    FILE *out;
    char *errbuf;
    int errlen;
    int64_t end_us; /* run.end_us, or the latest time in the trace when the run did not end */
    int end_known;  /* end_us came from run.end_us */
};


static int sql_err(struct gs_report *r)
{
    return gs_report_error(r->errbuf, r->errlen, GS_ESQL, "trace '%s': %s", r->path, sqlite3_errmsg(r->db));
}

static int prep(struct gs_report *r, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return sql_err(r);
    }
    return 0;
}

/* 1: a row is ready; 0: no more rows (the statement is finalized); <0: error (finalized). */
static int next_row(struct gs_report *r, sqlite3_stmt **st)
{
    int rc = sqlite3_step(*st);
    if (rc == SQLITE_ROW)
        return 1;
    int ret = rc == SQLITE_DONE ? 0 : sql_err(r);
    sqlite3_finalize(*st);
    *st = NULL;
    return ret;
}

/* The first column of the first row of `sql` as an integer (0 when NULL or no row). */
static int query_int(struct gs_report *r, const char *sql, int64_t *v)
{
    sqlite3_stmt *st;
    int rc = prep(r, sql, &st);
    if (rc != 0)
        return rc;
    *v = 0;
    rc = next_row(r, &st);
    if (rc == 1) {
        *v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        rc = 0;
    }
    return rc;
}

/* run.<key> as a malloc'd string in *v (NULL when absent). */
static int run_value(struct gs_report *r, const char *key, char **v)
{
    sqlite3_stmt *st;
    *v = NULL;
    int rc = prep(r, "SELECT value FROM run WHERE key = ?1", &st);
    if (rc != 0)
        return rc;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    rc = next_row(r, &st);
    if (rc <= 0)
        return rc;
    const char *s = (const char *)sqlite3_column_text(st, 0);
    if (s && !(*v = gs_strdup(s)))
        rc = gs_report_error(r->errbuf, r->errlen, GS_ENOMEM, "out of memory");
    else
        rc = 0;
    sqlite3_finalize(st);
    return rc;
}

static const char *text_or(sqlite3_stmt *st, int col, const char *dflt)
{
    const char *s = (const char *)sqlite3_column_text(st, col);
    return s && s[0] ? s : dflt;
}

static void fmt_duration(int64_t us, char *buf, size_t n)
{
    if (gs_duration_format(us, buf, n) < 0)
        snprintf(buf, n, "%" PRId64 "us", us);
}

static const char *plural(int64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Open read-only and check that this is a trace this gpusim can read. */
static int open_trace(struct gs_report *r)
{
    return gs_report_open(r->path, &r->db, r->errbuf, r->errlen);
}

static int print_header(struct gs_report *r)
{
    static const char *const keys[] = {"scenario", "seed",   "kubernetesVersion", "status",
                                       "end_us",   "events", "error",             "complete_until_us"};
    enum { K_SCENARIO, K_SEED, K_KUBE, K_STATUS, K_END, K_EVENTS, K_ERROR, K_UNTIL, K_COUNT };
    char *v[K_COUNT] = {0};
    int rc = 0;
    for (int i = 0; i < K_COUNT && rc == 0; i++)
        rc = run_value(r, keys[i], &v[i]);

    char *end = NULL;
    if (rc == 0 && v[K_END]) {
        r->end_us = strtoll(v[K_END], &end, 10);
        r->end_known = end != v[K_END] && *end == '\0';
    }
    if (rc == 0 && !r->end_known) {
        /* Killed runs have no end_us: the latest committed time is the best answer. */
        rc = query_int(r,
                       "SELECT max(t) FROM (SELECT max(t_us) AS t FROM sample"
                       " UNION ALL SELECT max(last_us) FROM pod_event"
                       " UNION ALL SELECT max(t_us) FROM node_event"
                       " UNION ALL SELECT max(t_us) FROM object)",
                       &r->end_us);
    }
    if (rc == 0) {
        const char *status = v[K_STATUS] ? v[K_STATUS] : "unknown";
        char dur[64];
        fmt_duration(r->end_us, dur, sizeof dur);
        fprintf(r->out, "Scenario:    %s\n", v[K_SCENARIO] ? v[K_SCENARIO] : "?");
        fprintf(r->out, "Seed:        %s\n", v[K_SEED] ? v[K_SEED] : "?");
        fprintf(r->out, "Kubernetes:  %s\n", v[K_KUBE] ? v[K_KUBE] : "?");
        fprintf(r->out, "Status:      %s\n", status);
        if (strcmp(status, "complete") != 0) {
            char until[64] = "";
            char *uend = NULL;
            long long u = v[K_UNTIL] ? strtoll(v[K_UNTIL], &uend, 10) : -1;
            if (uend && uend != v[K_UNTIL] && *uend == '\0' && u >= 0) {
                fmt_duration(u, until, sizeof until);
                fprintf(r->out, "run incomplete: status=%s, complete up to %s of simulated time\n", status, until);
            } else {
                fprintf(r->out, "run incomplete: status=%s, no checkpoint committed\n", status);
            }
        }
        if (v[K_ERROR]) /* the trace writer's own failure (disk full, ...) */
            fprintf(r->out, "Error:       %s\n", v[K_ERROR]);
        fprintf(r->out, "Simulated:   %s%s", dur, r->end_known ? "" : " (last committed)");
        if (v[K_EVENTS])
            fprintf(r->out, ", %s events dispatched", v[K_EVENTS]);
        fputc('\n', r->out);
    }
    for (int i = 0; i < K_COUNT; i++)
        gs_free(v[i]);
    return rc;
}

#define GS_REPORT_POOL_NAME "CASE WHEN coalesce(pool, '') = '' THEN '(no pool)' ELSE pool END"

static int print_nodes(struct gs_report *r)
{
    int64_t total, width;
    int rc = query_int(r, "SELECT count(*) FROM node", &total);
    if (rc == 0)
        rc = query_int(r, "SELECT max(length(" GS_REPORT_POOL_NAME ")) FROM node", &width);
    if (rc != 0)
        return rc;
    fprintf(r->out, "Nodes:       %" PRId64 "\n", total);

    sqlite3_stmt *pools = NULL, *first_all = NULL, *last = NULL;
    rc = prep(r,
              "SELECT coalesce(pool, ''), " GS_REPORT_POOL_NAME ", count(*),"
              " coalesce(sum(gpu_count), 0),"
              " count(DISTINCT CASE WHEN gpu_count > 0 THEN gpu_product END),"
              " min(CASE WHEN gpu_count > 0 THEN gpu_product END)"
              " FROM node GROUP BY coalesce(pool, '') ORDER BY min(id)",
              &pools);
    /* Readiness comes from the per-pool samples: the first time all of the pool's nodes were
     * ready, else how many were ready at the last sample. */
    if (rc == 0)
        rc = prep(r, "SELECT min(t_us) FROM sample WHERE pool = ?1 AND nodes_ready >= ?2",
                  &first_all);
    if (rc == 0)
        rc = prep(r, "SELECT nodes_ready FROM sample WHERE pool = ?1 ORDER BY t_us DESC, rowid DESC"
                     " LIMIT 1",
                  &last);
    int more = 0;
    while (rc == 0 && (more = next_row(r, &pools)) == 1) {
        const char *pool = (const char *)sqlite3_column_text(pools, 0);
        int64_t n = sqlite3_column_int64(pools, 2), gpus = sqlite3_column_int64(pools, 3);
        int64_t nprod = sqlite3_column_int64(pools, 4);
        fprintf(r->out, "  %-*s  %" PRId64 " %s, ", (int)width, text_or(pools, 1, ""), n,
                plural(n, "node", "nodes"));
        if (gpus == 0)
            fputs("no GPUs", r->out);
        else
            fprintf(r->out, "%" PRId64 " %s %s", gpus, plural(gpus, "GPU", "GPUs"),
                    nprod == 1 ? text_or(pools, 5, "") : "(mixed products)");

        sqlite3_reset(last);
        sqlite3_bind_text(last, 1, pool ? pool : "", -1, SQLITE_TRANSIENT);
        int lrc = sqlite3_step(last);
        if (lrc == SQLITE_ROW) {
            int64_t ready_last = sqlite3_column_int64(last, 0);
            sqlite3_reset(first_all);
            sqlite3_bind_text(first_all, 1, pool ? pool : "", -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(first_all, 2, n);
            if (sqlite3_step(first_all) != SQLITE_ROW) {
                rc = sql_err(r);
                break;
            }
            if (sqlite3_column_type(first_all, 0) != SQLITE_NULL) {
                char dur[64];
                fmt_duration(sqlite3_column_int64(first_all, 0), dur, sizeof dur);
                fprintf(r->out, ", all ready at %s", dur);
            } else {
                fprintf(r->out, ", %" PRId64 "/%" PRId64 " ready at end", ready_last, n);
            }
        } else if (lrc != SQLITE_DONE) {
            rc = sql_err(r);
            break;
        }
        fputc('\n', r->out);
    }
    sqlite3_finalize(pools);
    sqlite3_finalize(first_all);
    sqlite3_finalize(last);
    return rc != 0 ? rc : more < 0 ? more : 0;
}

static int print_pods(struct gs_report *r)
{
    int64_t total;
    int rc = query_int(r, "SELECT count(*) FROM pod", &total);
    sqlite3_stmt *st = NULL;
    /* The five phases always, in lifecycle order, then any other value alphabetically. */
    if (rc == 0)
        rc = prep(r,
                  "WITH ph(o, name) AS (VALUES (0, 'Pending'), (1, 'Running'), (2, 'Succeeded'),"
                  " (3, 'Failed'), (4, 'Rejected'))"
                  " SELECT o, name, (SELECT count(*) FROM pod WHERE phase = ph.name) FROM ph"
                  " UNION ALL SELECT 5, coalesce(phase, '(none)'), count(*) FROM pod"
                  " WHERE phase IS NULL OR phase NOT IN (SELECT name FROM ph) GROUP BY phase"
                  " ORDER BY 1, 2",
                  &st);
    if (rc != 0)
        return rc;
    fprintf(r->out, "Pods:        %" PRId64 " (", total);
    const char *sep = "";
    while ((rc = next_row(r, &st)) == 1) {
        fprintf(r->out, "%s%s %" PRId64, sep, text_or(st, 1, ""),
                (int64_t)sqlite3_column_int64(st, 2));
        sep = ", ";
    }
    fputs(")\n", r->out);
    return rc;
}

static int print_free(struct gs_report *r);

static int print_gpus(struct gs_report *r)
{
    sqlite3_stmt *st;
    int rc = prep(r,
                  "SELECT t_us, gpus_capacity, gpus_allocated, frag_gpus FROM sample"
                  " WHERE pool = '' ORDER BY t_us, rowid",
                  &st);
    if (rc != 0)
        return rc;
    int64_t n = 0, prev_t = 0, prev_alloc = 0, amin = 0, amax = 0, cmin = 0, cmax = 0;
    double prev_frag = 0, fmax = 0, asum = 0, fsum = 0, aw = 0, fw = 0, wsum = 0;
    int frag_measured = 0; /* frag_gpus is NULL until a fragmentation measure fills it */
    while ((rc = next_row(r, &st)) == 1) {
        int64_t t = sqlite3_column_int64(st, 0), cap = sqlite3_column_int64(st, 1);
        int64_t alloc = sqlite3_column_int64(st, 2);
        double frag = sqlite3_column_double(st, 3);
        frag_measured |= sqlite3_column_type(st, 3) != SQLITE_NULL;
        if (n > 0) {
            /* A sample's value holds until the next sample. */
            double dt = (double)(t - prev_t);
            aw += (double)prev_alloc * dt;
            fw += prev_frag * dt;
            wsum += dt;
        }
        if (n == 0 || alloc < amin)
            amin = alloc;
        if (n == 0 || alloc > amax)
            amax = alloc;
        if (n == 0 || cap < cmin)
            cmin = cap;
        if (n == 0 || cap > cmax)
            cmax = cap;
        if (n == 0 || frag > fmax)
            fmax = frag;
        asum += (double)alloc;
        fsum += frag;
        prev_t = t;
        prev_alloc = alloc;
        prev_frag = frag;
        n++;
    }
    if (rc != 0)
        return rc;
    if (n == 0) {
        fputs("GPUs:        no samples\n", r->out);
        return 0;
    }
    if (r->end_us > prev_t) { /* the last sample holds until the end of the run */
        double dt = (double)(r->end_us - prev_t);
        aw += (double)prev_alloc * dt;
        fw += prev_frag * dt;
        wsum += dt;
    }
    int weighted = wsum > 0;
    double amean = weighted ? aw / wsum : asum / (double)n;
    double fmean = weighted ? fw / wsum : fsum / (double)n;

    fprintf(r->out, "GPUs:        capacity %" PRId64, cmax);
    if (cmin != cmax)
        fprintf(r->out, " (min %" PRId64 ")", cmin);
    fprintf(r->out,
            "; allocated min %" PRId64 ", mean %.2f, max %" PRId64 " (%smean of %" PRId64 " %s)\n",
            amin, amean, amax, weighted ? "time-weighted " : "", n, plural(n, "sample", "samples"));
    if (rc == 0)
        rc = print_free(r);
    /* The FGD paper's measure (Weng et al., "Beware of Fragmentation", USENIX ATC '23; sim/frag):
     * named as such, in one sentence, since a high value is not a failure to schedule. */
    if (rc == 0 && frag_measured)
        fprintf(r->out,
                "Fragmented:  mean %.2f, max %.2f GPUs by the FGD paper's measure: the expected number of free GPUs "
                "that a typical pod of this scenario cannot use\n",
                fmean, fmax);
    return rc;
}

/* ------------------------------------------------------------------ warnings */

/* Pods named in one warning before "and N more". */
#define GS_REPORT_WARN_NAMES 3

/* A pending pod's last FailedScheduling text says every node was UnschedulableAndUnresolvable
 * when its preemption part is "preemption: 0/N nodes are available: N Preemption is not helpful
 * for scheduling": DefaultPreemption counts as "not helpful" every node whose filter status is
 * not plain Unschedulable (kubernetes pkg/scheduler/framework/preemption/preemption.go
 * nodesWherePreemptionMightHelp; models/sched/plugins/default_preemption.c), so no node was one
 * that a preemption or a pod finishing could free. Coscheduling's "podGroup ... failed recently"
 * (scheduler-plugins pkg/coscheduling PreFilter, during the group's backoff) is such a rejection
 * too, but it lapses with the backoff: not counted. */
static bool message_unresolvable(const char *msg)
{
    if (!msg || strstr(msg, "failed recently"))
        return false;
    const char *p = strstr(msg, "preemption: 0/");
    int n = -1, m = -2, k = 0;
    if (!p || sscanf(p, "preemption: 0/%d nodes are available: %d Preemption is not helpful for scheduling%n", &n,
                     &m, &k) != 2 || k == 0)
        return false;
    return n > 0 && n == m;
}

/* The largest of one resource any node ever had: allocatable (its node_event rows) and, for
 * GPUs, the physical count of the node table, so a node whose GPUs never came up still counts
 * as having them. */
struct gs_report_max {
    int64_t cpu_m, memory_b, gpu;
    bool cpu_known, memory_known; /* a trace at --trace-level summary has no node rows */
};

static int node_max(struct gs_report *r, struct gs_report_max *mx)
{
    memset(mx, 0, sizeof *mx);
    int rc = query_int(r, "SELECT max(gpu_count) FROM node", &mx->gpu);
    sqlite3_stmt *st;
    if (rc == 0)
        rc = prep(r,
                  "SELECT subject, value FROM node_event WHERE kind = 'Allocatable'"
                  " AND subject IN ('cpu', 'memory', 'nvidia.com/gpu') AND value IS NOT NULL ORDER BY rowid",
                  &st);
    if (rc != 0)
        return rc;
    while ((rc = next_row(r, &st)) == 1) {
        const char *res = text_or(st, 0, ""), *val = text_or(st, 1, "");
        struct gs_quantity q;
        if (gs_quantity_parse(val, &q) != 0)
            continue;
        if (strcmp(res, "cpu") == 0) {
            int64_t v = gs_quantity_milli(&q);
            mx->cpu_m = !mx->cpu_known || v > mx->cpu_m ? v : mx->cpu_m;
            mx->cpu_known = true;
        } else if (strcmp(res, "memory") == 0) {
            int64_t v = gs_quantity_value(&q);
            mx->memory_b = !mx->memory_known || v > mx->memory_b ? v : mx->memory_b;
            mx->memory_known = true;
        } else if (gs_quantity_value(&q) > mx->gpu) {
            mx->gpu = gs_quantity_value(&q);
        }
    }
    return rc;
}

/* A cpu amount (millicores) or memory (bytes) as a Kubernetes quantity: "8", "1500m"; "512Gi",
 * "100Mi", "1000". */
static void fmt_quantity(int64_t v, bool milli, char *buf, size_t n)
{
    if (milli)
        snprintf(buf, n, v % 1000 == 0 ? "%" PRId64 : "%" PRId64 "m", v % 1000 == 0 ? v / 1000 : v);
    else if (v != 0 && v % (INT64_C(1) << 30) == 0)
        snprintf(buf, n, "%" PRId64 "Gi", v >> 30);
    else if (v != 0 && v % (INT64_C(1) << 20) == 0)
        snprintf(buf, n, "%" PRId64 "Mi", v >> 20);
    else
        snprintf(buf, n, "%" PRId64, v);
}

/* The one rule for "it can never be scheduled": a request above the largest node `mx` ever had,
 * with the warning's sentence into text (size n). */
static bool exceeds_every_node(const struct gs_report_max *mx, const char *name, int64_t cpu, int64_t mem, int64_t gpu,
                               char *text, size_t n)
{
    const char *what = NULL;
    char want[32], have[32];
    if (gpu > mx->gpu) {
        what = "nvidia.com/gpu";
        snprintf(want, sizeof want, "%" PRId64, gpu);
        snprintf(have, sizeof have, "%" PRId64, mx->gpu);
    } else if (mx->cpu_known && cpu > mx->cpu_m) {
        what = "cpu";
        fmt_quantity(cpu, true, want, sizeof want);
        fmt_quantity(mx->cpu_m, true, have, sizeof have);
    } else if (mx->memory_known && mem > mx->memory_b) {
        what = "memory";
        fmt_quantity(mem, false, want, sizeof want);
        fmt_quantity(mx->memory_b, false, have, sizeof have);
    }
    if (!what)
        return false;
    snprintf(text, n, "pod %s asks for %s %s, more than any node has (at most %s): it can never be scheduled", name,
             want, what, have);
    return true;
}

int gs_report_never_fits(sqlite3 *db, const char *pod, int64_t cpu_m, int64_t memory_b, int64_t gpu, char *text,
                         size_t n)
{
    struct gs_report r = {.db = db, .path = "", .errbuf = NULL, .errlen = 0};
    struct gs_report_max mx;
    if (node_max(&r, &mx) != 0)
        return GS_ESQL;
    return exceeds_every_node(&mx, pod, cpu_m, memory_b, gpu, text, n) ? 1 : 0;
}

/* "a, b, c and 4 more" of `names` (n of them, at most GS_REPORT_WARN_NAMES kept) into buf. */
static void name_list(char *buf, size_t len, char names[][128], int shown, int n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < shown && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
    if (n > shown && k < len)
        snprintf(buf + k, len - k, " and %d more", n - shown);
}

/* The warnings a complete run deserves, each one line of plain text without "warning: " (the
 * caller adds it), to `fn`, in this order:
 *  - it ended at 0s: nothing was simulated (possible only without spec.horizon);
 *  - everything it submitted was rejected by the API server;
 *  - per pending pod (first GS_REPORT_WARN_NAMES, then a count): it asks for more cpu, memory or
 *    nvidia.com/gpu than any node ever had, so it can never be scheduled;
 *  - of the other pending pods: without a horizon the run ended because nothing was left to
 *    happen, so none of them will ever be scheduled; with one, when every one of them was last
 *    rejected by every node as UnschedulableAndUnresolvable (message_unresolvable), none can be
 *    scheduled as the cluster stands at the end.
 * A run that did not complete gets none (its status says enough). Pending here means not bound:
 * a pod bound and starting is on its way. */
static int run_warnings(struct gs_report *r, void (*fn)(const char *text, void *ctx), void *ctx)
{
    char *status = NULL, *end = NULL, *horizon = NULL;
    int rc = run_value(r, "status", &status);
    if (rc == 0)
        rc = run_value(r, "end_us", &end);
    if (rc == 0)
        rc = run_value(r, "horizon_us", &horizon);
    bool complete = rc == 0 && status && strcmp(status, "complete") == 0;
    int64_t end_us = end ? strtoll(end, NULL, 10) : -1;
    bool has_horizon = horizon != NULL;
    gs_free(status);
    gs_free(end);
    gs_free(horizon);
    if (rc != 0 || !complete)
        return rc;
    char text[1024], list[512], when[64];
    fmt_duration(end_us, when, sizeof when);
    if (end_us == 0)
        fn("the run ended at 0s, so nothing was simulated: without spec.horizon a run ends when nothing is left "
           "to happen, and nothing was after time 0 (no pod that runs for a while, no event, no check with a time)",
           ctx);

    int64_t rejected_pods = 0, rejected_objects = 0, others = 0;
    rc = query_int(r, "SELECT count(*) FROM pod WHERE phase = 'Rejected'", &rejected_pods);
    if (rc == 0)
        rc = query_int(r,
                       "SELECT count(*) FROM (SELECT DISTINCT kind, namespace, name FROM object"
                       " WHERE status = 'Rejected')",
                       &rejected_objects);
    if (rc == 0)
        rc = query_int(r, "SELECT count(*) FROM pod WHERE coalesce(phase, '') <> 'Rejected'", &others);
    if (rc != 0)
        return rc;
    if (rejected_pods + rejected_objects > 0 && others == 0) {
        char a[48] = "", b[48] = "";
        if (rejected_pods)
            snprintf(a, sizeof a, "%" PRId64 " %s", rejected_pods, plural(rejected_pods, "pod", "pods"));
        if (rejected_objects)
            snprintf(b, sizeof b, "%" PRId64 " %s", rejected_objects, plural(rejected_objects, "object", "objects"));
        snprintf(text, sizeof text,
                 "everything the scenario submitted was rejected by the API server (%s%s%s; see Rejected below): "
                 "no pod ever ran",
                 a, a[0] && b[0] ? " and " : "", b);
        fn(text, ctx);
    }

    struct gs_report_max mx;
    rc = node_max(r, &mx);
    sqlite3_stmt *st;
    if (rc == 0)
        rc = prep(r,
                  "SELECT name, coalesce(cpu_m, 0), coalesce(memory_b, 0), coalesce(gpu, 0),"
                  " coalesce(nullif(message, ''), (SELECT e.message FROM pod_event e WHERE e.pod_id = pod.id"
                  " AND e.reason = 'FailedScheduling' ORDER BY e.rowid DESC LIMIT 1))"
                  " FROM pod WHERE phase = 'Pending' AND scheduled_us IS NULL ORDER BY id",
                  &st);
    if (rc != 0)
        return rc;
    char rest[GS_REPORT_WARN_NAMES][128];
    int nbig = 0, nrest = 0, nunresolvable = 0;
    while ((rc = next_row(r, &st)) == 1) {
        const char *name = text_or(st, 0, "?");
        int64_t cpu = sqlite3_column_int64(st, 1), mem = sqlite3_column_int64(st, 2), gpu = sqlite3_column_int64(st, 3);
        if (exceeds_every_node(&mx, name, cpu, mem, gpu, text, sizeof text)) {
            if (nbig < GS_REPORT_WARN_NAMES)
                fn(text, ctx);
            nbig++;
            continue;
        }
        if (nrest < GS_REPORT_WARN_NAMES)
            snprintf(rest[nrest], sizeof rest[0], "%s", name);
        nrest++;
        nunresolvable += message_unresolvable((const char *)sqlite3_column_text(st, 4));
    }
    if (rc != 0)
        return rc;
    if (nbig > GS_REPORT_WARN_NAMES) {
        int more = nbig - GS_REPORT_WARN_NAMES;
        snprintf(text, sizeof text, "%d more pending %s for more than any node has: %s never be scheduled", more,
                 more == 1 ? "pod asks" : "pods ask", more == 1 ? "it can" : "they can");
        fn(text, ctx);
    }
    if (nrest == 0)
        return 0;
    name_list(list, sizeof list, rest, nrest < GS_REPORT_WARN_NAMES ? nrest : GS_REPORT_WARN_NAMES, nrest);
    /* "the pod", "the other pod", "all 3 pods", "all 3 other pods" */
    char who[64];
    if (nrest == 1)
        snprintf(who, sizeof who, "the %spod", nbig ? "other " : "");
    else
        snprintf(who, sizeof who, "all %d %spods", nrest, nbig ? "other " : "");
    if (!has_horizon) {
        snprintf(text, sizeof text,
                 "the run ended by itself at %s with %d %s%s still pending (%s): nothing was left to happen that "
                 "could schedule %s, so %s never will",
                 when, nrest, nbig ? "other " : "", nrest == 1 ? "pod" : "pods", list, nrest == 1 ? "it" : "them", nrest == 1 ? "it" : "they");
        fn(text, ctx);
    } else if (nunresolvable == nrest) {
        snprintf(text, sizeof text,
                 "%s still pending at the end (%s) can never be scheduled as the cluster stands: every node rejected "
                 "%s for a reason that neither preemption nor a pod finishing fixes (UnschedulableAndUnresolvable: "
                 "\"Preemption is not helpful for scheduling\" on every node; see Pending below)",
                 who, list, nrest == 1 ? "it" : "them");
        fn(text, ctx);
    }
    return 0;
}

static void print_warning_line(const char *text, void *ctx)
{
    fprintf((FILE *)ctx, "warning: %s\n", text);
}

/* ------------------------------------------------------------------ free GPUs, in plain words */

#define GS_REPORT_FREE_MAX_EVENTS 200000

/* "Free GPUs" and "Pending", from the cluster at the end of the trace as reports/history.h
 * rebuilds it (the samples' rule for allocated GPUs): per node, free = allocatable
 * nvidia.com/gpu minus allocated, over the nodes present at the end. Then the largest whole-GPU
 * request of the pods still pending without a node, and whether fragmentation is what blocks it:
 * enough GPUs free in the cluster, but no node with that many free. A pod asking for a GPU share,
 * MIG device or DRA claim asks for no nvidia.com/gpu and is not counted here. Nothing for a
 * cluster that never had a GPU; "not known" for a trace without event tables. */
static int print_free(struct gs_report *r)
{
    /* The history keeps every event, about 200 bytes each with its message: past this many the
     * summary, printed after every run, would cost more memory than the run itself (a run of a
     * million pods writes some five million events; tests/unit/test_memory.c). */
    int64_t nev = 0;
    sqlite3_stmt *cnt;
    /* (a trace without the tables: the history says so below) */
    if (sqlite3_prepare_v2(r->db,
                           "SELECT (SELECT count(*) FROM pod_event) + (SELECT count(*) FROM node_event)"
                           " + (SELECT count(*) FROM object)",
                           -1, &cnt, NULL) == SQLITE_OK) {
        if (sqlite3_step(cnt) == SQLITE_ROW)
            nev = sqlite3_column_int64(cnt, 0);
        sqlite3_finalize(cnt);
    }
    int rc;
    if (nev > GS_REPORT_FREE_MAX_EVENTS) {
        fprintf(r->out,
                "Free GPUs:   not computed: the trace has %" PRId64 " events, more than the %d the summary rebuilds "
                "the cluster from\n",
                nev, GS_REPORT_FREE_MAX_EVENTS);
        return 0;
    }
    struct gs_history h;
    char err[512];
    rc = gs_history_load(r->db, &h, err, sizeof err);
    if (rc == GS_EINVAL) {
        fprintf(r->out, "Free GPUs:   not known: %s\n", err);
        return 0;
    }
    if (rc != 0)
        return gs_report_error(r->errbuf, r->errlen, rc, "trace '%s': %s", r->path, err);
    struct gs_hist_state st;
    if (gs_hist_state_init(&h, &st) != 0) {
        gs_history_free(&h);
        return gs_report_error(r->errbuf, r->errlen, GS_ENOMEM, "out of memory");
    }
    gs_hist_state_advance(&h, &st, h.nevents);

    /* per GPU pool, in node order: free, allocatable, the largest free block and its node */
    struct pool {
        const char *name;
        int64_t free, alloc, block;
        int block_node;
    } *pools = NULL;
    int npools = 0, cap = 0, width = 0;
    int64_t free_total = 0, alloc_total = 0, block = 0;
    int block_node = -1;
    for (int n = 0; n < h.nnodes && rc == 0; n++) {
        const struct gs_hist_node *nd = &h.nodes[n];
        int64_t alloc = st.node_present[n] ? st.node_allocatable[n] : 0;
        if (nd->gpus == 0 && alloc == 0)
            continue; /* a CPU node */
        int64_t used = gs_hist_node_allocated(&h, &st, n);
        int64_t f = alloc > used ? alloc - used : 0;
        const char *pname = nd->pool && nd->pool[0] ? nd->pool : "(no pool)";
        int k = 0;
        while (k < npools && strcmp(pools[k].name, pname) != 0)
            k++;
        if (k == npools) {
            if (GS_GROW(pools, cap, npools + 1)) {
                rc = gs_report_error(r->errbuf, r->errlen, GS_ENOMEM, "out of memory");
                break;
            }
            pools[npools++] = (struct pool){.name = pname, .block_node = -1};
            if ((int)strlen(pname) > width)
                width = (int)strlen(pname);
        }
        pools[k].free += f;
        pools[k].alloc += alloc;
        if (f > pools[k].block) {
            pools[k].block = f;
            pools[k].block_node = n;
        }
        free_total += f;
        alloc_total += alloc;
        if (f > block) {
            block = f;
            block_node = n;
        }
    }
    /* the largest pending request, and how many pending pods fragmentation blocks */
    int big = -1, nfrag = 0;
    for (int p = 0; p < h.npods && rc == 0; p++) {
        const struct gs_hist_pod *pd = &h.pods[p];
        if (!pd->phase || strcmp(pd->phase, "Pending") != 0 || st.pod_node[p] >= 0 || pd->gpu <= 0)
            continue;
        if (big < 0 || pd->gpu > h.pods[big].gpu)
            big = p;
        nfrag += pd->gpu <= free_total && pd->gpu > block;
    }
    if (rc == 0 && npools > 0) {
        char when[64];
        fmt_duration(r->end_us, when, sizeof when);
        bool dra = false; /* GPUs published as DRA devices are not nvidia.com/gpu */
        for (int i = 0; i < h.nevents && !dra; i++)
            dra = h.events[i].pod < 0 && h.events[i].reason && strcmp(h.events[i].reason, "ResourceSlice") == 0;
        if (alloc_total == 0)
            fprintf(r->out, "Free GPUs:   none: no node has nvidia.com/gpu allocatable at the end (%s)%s\n", when,
                    dra ? "; GPUs published as DRA devices are not counted here" : "");
        else
            fprintf(r->out, "Free GPUs:   %" PRId64 " of %" PRId64 " allocatable at the end (%s)", free_total,
                    alloc_total, when);
        if (alloc_total > 0 && npools == 1) {
            if (block > 0)
                fprintf(r->out, "; largest free block on one node: %" PRId64 " (%s)", block, h.nodes[block_node].name);
            fputc('\n', r->out);
        } else if (alloc_total > 0) {
            fputc('\n', r->out);
            for (int k = 0; k < npools; k++) {
                fprintf(r->out, "  %-*s  %" PRId64 " of %" PRId64 " free", width, pools[k].name, pools[k].free,
                        pools[k].alloc);
                if (pools[k].block > 0)
                    fprintf(r->out, "; largest free block on one node: %" PRId64 " (%s)", pools[k].block,
                            h.nodes[pools[k].block_node].name);
                fputc('\n', r->out);
            }
        }
        if (big >= 0) {
            int64_t want = h.pods[big].gpu;
            fprintf(r->out, "Pending:     the largest request is %" PRId64 " %s (%s): ", want, plural(want, "GPU", "GPUs"),
                    h.pods[big].name);
            if (want > free_total && free_total == 0)
                fputs("not fragmentation: no GPU is free in the cluster", r->out);
            else if (want > free_total)
                fprintf(r->out, "not fragmentation: only %" PRId64 " %s free in the cluster", free_total,
                        plural(free_total, "GPU is", "GPUs are"));
            else if (want > block)
                fprintf(r->out,
                        "blocked by fragmentation: %" PRId64 " GPUs are free in the cluster, but no node has more than "
                        "%" PRId64 " free",
                        free_total, block);
            else
                fprintf(r->out, "not fragmentation: %s has %" PRId64 " free (its message below says what holds it)",
                        h.nodes[block_node].name, block);
            if (nfrag > (want <= free_total && want > block ? 1 : 0))
                fprintf(r->out, "; %d pending %s blocked by fragmentation", nfrag, plural(nfrag, "pod is", "pods are"));
            fputc('\n', r->out);
        }
    }
    gs_free(pools);
    gs_hist_state_free(&st);
    gs_history_free(&h);
    return rc;
}

/* "Gang", only for traces with PodGroups: GPUs held by groups with fewer than minMember pods
 * Running (sample column gpus_held_by_incomplete_groups; a sample's value holds until the
 * next one): the peak, how long any were held, and the longest unbroken stretch. */
static int print_gang(struct gs_report *r)
{
    int64_t ngroups = 0;
    int rc = query_int(r, "SELECT count(*) FROM pod WHERE pod_group IS NOT NULL", &ngroups);
    if (rc != 0 || ngroups == 0)
        return rc;
    sqlite3_stmt *st;
    rc = prep(r,
              "SELECT t_us, gpus_held_by_incomplete_groups FROM sample WHERE pool = '' ORDER BY t_us, rowid",
              &st);
    if (rc != 0)
        return rc;
    int64_t n = 0, prev_t = 0, prev_v = 0, vmax = 0, held = 0, run_start = -1, best = 0, best_start = -1;
    int64_t interval = 0;
    for (;;) {
        int more = next_row(r, &st);
        if (more < 0 || more > 1)
            return more;
        int64_t t = more ? sqlite3_column_int64(st, 0) : (r->end_us > prev_t ? r->end_us : prev_t);
        int64_t v = more ? sqlite3_column_int64(st, 1) : 0;
        if (n > 0) {
            if (prev_v > 0)
                held += t - prev_t;
            if (!interval && t > prev_t)
                interval = t - prev_t;
        }
        /* Stretches: from the sample where some became held to the one where none are. */
        if (n > 0 && prev_v > 0 && (v == 0 || !more) && run_start >= 0) {
            if (t - run_start > best) {
                best = t - run_start;
                best_start = run_start;
            }
            run_start = -1;
        }
        if (!more)
            break;
        if (v > 0 && run_start < 0)
            run_start = t;
        if (v > vmax)
            vmax = v;
        prev_t = t;
        prev_v = v;
        n++;
    }
    if (n == 0)
        return 0;
    char a[32], b[32], c[32], d[32];
    fmt_duration(held, a, sizeof a);
    fmt_duration(r->end_us, b, sizeof b);
    if (vmax == 0) {
        fprintf(r->out, "Gang:        no GPUs held by incomplete PodGroups (fewer than minMember pods Running)\n");
        return 0;
    }
    fmt_duration(best, c, sizeof c);
    fmt_duration(best_start, d, sizeof d);
    fprintf(r->out,
            "Gang:        GPUs held by incomplete PodGroups (fewer than minMember pods Running): max %" PRId64
            ", held for %s of %s, longest stretch %s from %s",
            vmax, a, b, c, d);
    if (interval > 0) {
        fmt_duration(interval, a, sizeof a);
        fprintf(r->out, " (sampled every %s)", a);
    }
    fputc('\n', r->out);
    return 0;
}

/* "Bring-up", only for traces with GPU Operator rows (node_event kind Operand):
 * time to schedulable per pool, from each GPU node's Joined row to its first Schedulable row
 * (min, median by nearest rank, max; nodes never schedulable counted apart), and the longest
 * single status an operand pod held while working or failing (the gap between two of its
 * Operand rows, or until the end of the run; Init:k/n statuses wait for another operand and
 * ready pods are done, so neither counts), which is the step that held the node up. */
static int print_bringup(struct gs_report *r)
{
    int64_t nop;
    int rc = query_int(r, "SELECT count(*) FROM node_event WHERE kind = 'Operand'", &nop);
    if (rc != 0 || nop == 0)
        return rc;
    sqlite3_stmt *st;
    rc = prep(r,
              "SELECT " GS_REPORT_POOL_NAME ","
              " (SELECT min(e.t_us) FROM node_event e WHERE e.node_id = node.id AND e.kind = 'Schedulable')"
              " - (SELECT min(e.t_us) FROM node_event e WHERE e.node_id = node.id AND e.kind = 'Joined')"
              " AS d FROM node WHERE gpu_count > 0"
              " ORDER BY min(id) OVER (PARTITION BY coalesce(pool, '')), d IS NULL, d",
              &st);
    if (rc != 0)
        return rc;
    fputs("\nBring-up (time from join to GPUs allocatable):\n", r->out);
    char pool[256] = "";
    int64_t *v = NULL;
    int n = 0, cap = 0, never = 0, more;
    for (;;) {
        more = next_row(r, &st);
        const char *p = more == 1 ? text_or(st, 0, "") : NULL;
        if (more != 1 || strcmp(p, pool) != 0) {
            if (pool[0]) {
                char a[64], b[64], c[64];
                if (n > 0) {
                    fmt_duration(v[0], a, sizeof a);
                    fmt_duration(v[(n - 1) / 2], b, sizeof b);
                    fmt_duration(v[n - 1], c, sizeof c);
                    fprintf(r->out, "  %-12s min %s, median %s, max %s (%d %s)", pool, a, b, c, n,
                            plural(n, "node", "nodes"));
                } else {
                    fprintf(r->out, "  %-12s none schedulable", pool);
                }
                if (never)
                    fprintf(r->out, ", %d never", never);
                fputc('\n', r->out);
            }
            if (more != 1)
                break;
            snprintf(pool, sizeof pool, "%s", p);
            n = never = 0;
        }
        if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
            never++;
            continue;
        }
        if (GS_GROW(v, cap, n + 1)) {
            sqlite3_finalize(st);
            gs_free(v);
            return gs_report_error(r->errbuf, r->errlen, GS_ENOMEM, "out of memory");
        }
        v[n++] = sqlite3_column_int64(st, 1);
    }
    gs_free(v);
    if (more < 0)
        return more;
    /* The longest status held: each Operand row lasts until the next row of the same node and
     * operand (or the end of the run); a ready Running pod is not a step. */
    char end[32];
    snprintf(end, sizeof end, "%" PRId64, r->end_us);
    char *sql = sqlite3_mprintf(
        "SELECT n.name, e.subject, e.value, e.t_us, coalesce((SELECT min(x.t_us) FROM node_event x"
        " WHERE x.node_id = e.node_id AND x.kind = 'Operand' AND x.subject = e.subject AND x.rowid > e.rowid"
        " AND x.t_us >= e.t_us), %s) - e.t_us AS d"
        " FROM node_event e JOIN node n ON n.id = e.node_id"
        " WHERE e.kind = 'Operand' AND e.value IS NOT NULL AND e.value NOT LIKE '1/1 %%'"
        " AND e.value NOT LIKE '%% Init:%%'"
        " ORDER BY d DESC, e.t_us, e.rowid LIMIT 1",
        end);
    if (!sql)
        return gs_report_error(r->errbuf, r->errlen, GS_ENOMEM, "out of memory");
    rc = prep(r, sql, &st);
    sqlite3_free(sql);
    if (rc != 0)
        return rc;
    if ((more = next_row(r, &st)) == 1) {
        char d[64], t[64];
        fmt_duration(sqlite3_column_int64(st, 4), d, sizeof d);
        fmt_duration(sqlite3_column_int64(st, 3), t, sizeof t);
        const char *val = text_or(st, 2, "");
        const char *sp = strchr(val, ' ');
        fprintf(r->out, "  longest operand step: %s on %s, %s for %s (from %s)\n", text_or(st, 1, "?"),
                text_or(st, 0, "?"), sp ? sp + 1 : val, d, t);
        sqlite3_finalize(st);
        more = 0;
    }
    return more < 0 ? more : 0;
}

/* "Time to schedule" and "Utilisation": the study metrics (reports/study.h). */
static int print_study(struct gs_report *r)
{
    json_t *doc;
    int rc = gs_study_open(r->path, &doc, r->errbuf, (size_t)(r->errlen > 0 ? r->errlen : 0));
    if (rc != 0)
        return rc;
    rc = gs_study_print_text(doc, r->out);
    json_decref(doc);
    return rc;
}

/* A section listing at most GS_REPORT_LIST_MAX rows of (label, message) from `sql`, whose
 * total is `count_sql`; nothing at all when the total is zero. */
static int print_list(struct gs_report *r, const char *title, const char *count_sql,
                      const char *sql)
{
    int64_t total;
    int rc = query_int(r, count_sql, &total);
    if (rc != 0 || total == 0)
        return rc;
    /* Two passes (width, then rows) keep the messages aligned without copying them. */
    char *wsql = sqlite3_mprintf("SELECT max(length(label)) FROM (%s)", sql);
    if (!wsql)
        return gs_report_error(r->errbuf, r->errlen, GS_ENOMEM, "out of memory");
    int64_t width;
    rc = query_int(r, wsql, &width);
    sqlite3_free(wsql);
    sqlite3_stmt *st;
    if (rc == 0)
        rc = prep(r, sql, &st);
    if (rc != 0)
        return rc;
    fprintf(r->out, "\n%s (%" PRId64 "):\n", title, total);
    int64_t shown = 0;
    while ((rc = next_row(r, &st)) == 1) {
        fprintf(r->out, "  %-*s  %s\n", (int)width, text_or(st, 0, ""),
                text_or(st, 1, "(no message)"));
        shown++;
    }
    if (rc == 0 && total > shown)
        fprintf(r->out, "  ... and %" PRId64 " more\n", total - shown);
    return rc;
}

#define GS_REPORT_STR(x) GS_REPORT_XSTR(x)
#define GS_REPORT_XSTR(x) #x

static int print_pending(struct gs_report *r)
{
    /* pod.message is the last scheduling message; a trace whose pod rows were not rewritten
     * at the end still has it in the pod's last FailedScheduling event. */
    return print_list(r, "Pending", "SELECT count(*) FROM pod WHERE phase = 'Pending'",
                      "SELECT name AS label, coalesce(nullif(message, ''),"
                      " (SELECT e.message FROM pod_event e WHERE e.pod_id = pod.id"
                      " AND e.reason = 'FailedScheduling' ORDER BY e.rowid DESC LIMIT 1))"
                      " FROM pod WHERE phase = 'Pending' ORDER BY id"
                      " LIMIT " GS_REPORT_STR(GS_REPORT_LIST_MAX));
}

static int print_rejected(struct gs_report *r)
{
    return print_list(
        r, "Rejected",
        "SELECT (SELECT count(*) FROM pod WHERE phase = 'Rejected')"
        " + (SELECT count(*) FROM object WHERE status = 'Rejected')",
        "SELECT label, message FROM ("
        " SELECT 0 AS src, id AS ord, 'pod/' || name AS label, message FROM pod"
        " WHERE phase = 'Rejected'"
        " UNION ALL SELECT 1, rowid, kind || '/' || CASE WHEN coalesce(namespace, '')"
        " NOT IN ('', 'default') THEN namespace || '/' ELSE '' END || name, message"
        " FROM object WHERE status = 'Rejected')"
        " ORDER BY src, ord LIMIT " GS_REPORT_STR(GS_REPORT_LIST_MAX));
}

/* Scenario events that found nothing to act on (run.warning.N), e.g. a deletePod of a pod
 * that never existed. */
static int print_warnings(struct gs_report *r)
{
    return print_list(r, "Warnings", "SELECT count(*) FROM run WHERE key LIKE 'warning.%'",
                      "SELECT key AS label, value FROM run WHERE key LIKE 'warning.%'"
                      " ORDER BY CAST(substr(key, 9) AS INTEGER)"
                      " LIMIT " GS_REPORT_STR(GS_REPORT_LIST_MAX));
}

static int print_checks(struct gs_report *r)
{
    sqlite3_stmt *st;
    int rc = prep(r, "SELECT pass, what, detail FROM expect_check ORDER BY idx", &st);
    if (rc != 0)
        return rc;
    int64_t passed = 0, failed = 0;
    fputc('\n', r->out);
    while ((rc = next_row(r, &st)) == 1) {
        const char *what = text_or(st, 1, "?");
        if (sqlite3_column_int(st, 0)) {
            passed++;
            fprintf(r->out, "PASS  %s\n", what);
        } else {
            failed++;
            const char *detail = text_or(st, 2, NULL);
            fprintf(r->out, "FAIL  %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
        }
    }
    if (rc == 0)
        fprintf(r->out, "checks: %" PRId64 " passed, %" PRId64 " failed\n", passed, failed);
    return rc;
}

int gs_report_summary(const char *trace_path, FILE *out, char *errbuf, int errlen)
{
    struct gs_report r = {.path = trace_path, .out = out, .errbuf = errbuf, .errlen = errlen};
    if (!trace_path || !out)
        return gs_report_error(r.errbuf, r.errlen, GS_EINVAL, "gs_report_summary: invalid argument");
    int rc = open_trace(&r);
    if (rc == 0)
        rc = print_header(&r);
    if (rc == 0)
        rc = run_warnings(&r, print_warning_line, r.out);
    if (rc == 0)
        rc = print_nodes(&r);
    if (rc == 0)
        rc = print_pods(&r);
    if (rc == 0)
        rc = print_gpus(&r);
    if (rc == 0)
        rc = print_gang(&r);
    if (rc == 0)
        rc = print_bringup(&r);
    if (rc == 0)
        rc = print_study(&r);
    if (rc == 0)
        rc = gs_report_autoscaler(r.db, r.out, r.errbuf, r.errlen);
    if (rc == 0)
        rc = print_pending(&r);
    if (rc == 0)
        rc = print_rejected(&r);
    if (rc == 0)
        rc = print_warnings(&r);
    if (rc == 0)
        rc = print_checks(&r);
    sqlite3_close(r.db);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_report_error(r.errbuf, r.errlen, GS_EIO, "cannot write the summary of '%s'", trace_path);
    return rc;
}

int gs_report_checks_failed(const char *trace_path)
{
    struct gs_report r = {.path = trace_path};
    if (!trace_path)
        return GS_EINVAL;
    int64_t failed = 0;
    int rc = open_trace(&r);
    if (rc == 0)
        rc = query_int(&r, "SELECT count(*) FROM expect_check WHERE pass = 0", &failed);
    sqlite3_close(r.db);
    return rc != 0 ? rc : (int)failed;
}

int gs_report_run_warnings(const char *trace_path, void (*fn)(const char *text, void *ctx), void *ctx, char *errbuf,
                           int errlen)
{
    struct gs_report r = {.path = trace_path, .errbuf = errbuf, .errlen = errlen};
    if (!trace_path || !fn)
        return gs_report_error(errbuf, errlen, GS_EINVAL, "gs_report_run_warnings: invalid argument");
    int rc = open_trace(&r);
    if (rc == 0)
        rc = run_warnings(&r, fn, ctx);
    sqlite3_close(r.db);
    return rc;
}
