/* gpusim export --openmetrics: a trace as OpenMetrics 1.0 text (reports/export.h).
 *
 * The format follows the OpenMetrics specification ("Text format"): per MetricFamily the
 * metadata lines TYPE, UNIT (when the name ends in _<unit>), HELP, then its samples; families
 * are not interleaved, a series' points are together and in increasing time, a histogram
 * point's _bucket (cumulative, "+Inf" last), _count and _sum lines are together; counters'
 * samples end in _total; label values escape \, " and newline; `# EOF` ends the exposition.
 *
 * The time grid is the `sample` table's times (one point per distinct millisecond, Prometheus'
 * resolution); every family is evaluated at those times from the trace's events, through
 * reports/history.h for holdings. Series are named as the exporters that measure the same
 * thing in a real cluster name them:
 *   kube-state-metrics (internal/store/node.go, pod.go): kube_node_status_allocatable
 *     {node,resource,unit} (resource with '.' and '/' as '_', unit core/byte/integer),
 *     kube_pod_status_phase{namespace,pod,uid,phase} (Pending, Succeeded, Failed, Unknown,
 *     Running; 1 for the pod's phase);
 *   kube-scheduler (pkg/scheduler/metrics/metrics.go): scheduler_pending_pods{queue},
 *     scheduler_schedule_attempts_total{result,profile},
 *     scheduler_pod_scheduling_sli_duration_seconds{attempts} (buckets
 *     ExponentialBuckets(0.01, 2, 20));
 *   dcgm-exporter (etc/default-counters.csv): DCGM_FI_DEV_XID_ERRORS{gpu,device,modelName,
 *     Hostname}, the value of the last Xid (0 before any).
 * and the simulator's own measures without a real exporter as gpusim_*. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/array.h"
#include "base/error.h"
#include "models/catalog.h"
#include "models/quantity.h"
#include "reports/export.h"
#include "reports/open.h"

struct om {
    const struct gs_history *h;
    sqlite3 *db;
    FILE *out;
    int64_t epoch_s;
    int64_t *grid; /* sample times, µs, increasing, one per millisecond */
    int ngrid;
    int *upto;     /* per grid time: events [0, upto) are at or before it */
};

/* A float as the shortest decimal that reads back as the same double (Go's %g rendering, as
 * OpenMetrics' canonical numbers ask), with ".0" when it has neither point nor exponent. */
static void fmt_float(double v, char *buf, size_t n)
{
    if (isinf(v)) {
        snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (isnan(v)) {
        snprintf(buf, n, "NaN");
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".eEn"))
        strncat(buf, ".0", n - strlen(buf) - 1);
}

/* A sample value: integers without a point, other values as fmt_float. */
static void fmt_value(double v, char *buf, size_t n)
{
    if (v == floor(v) && fabs(v) < 9e15)
        snprintf(buf, n, "%" PRId64, (int64_t)v);
    else
        fmt_float(v, buf, n);
}

/* The timestamp of grid time t_us: epoch + t in seconds, with the milliseconds when any. */
static void fmt_ts(const struct om *m, int64_t t_us, char *buf, size_t n)
{
    int64_t ms = t_us / 1000;
    int64_t s = m->epoch_s + ms / 1000;
    if (ms % 1000)
        snprintf(buf, n, "%" PRId64 ".%03" PRId64, s, ms % 1000);
    else
        snprintf(buf, n, "%" PRId64, s);
}

/* Write a label value escaped as the ABNF's escaped-string. */
static void put_escaped(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '"')
            fputs("\\\"", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else
            fputc(*s, out);
    }
}

/* Labels {k1="v1",...} from NULL-terminated pairs; nothing when there are none. */
static void put_labels(FILE *out, const char *const *kv)
{
    if (!kv || !kv[0])
        return;
    fputc('{', out);
    for (int i = 0; kv[i]; i += 2) {
        fprintf(out, "%s%s=\"", i ? "," : "", kv[i]);
        put_escaped(out, kv[i + 1]);
        fputc('"', out);
    }
    fputc('}', out);
}

static void sample(const struct om *m, const char *name, const char *const *kv, double v, int64_t t_us)
{
    char val[64], ts[48];
    fmt_value(v, val, sizeof val);
    fmt_ts(m, t_us, ts, sizeof ts);
    fputs(name, m->out);
    put_labels(m->out, kv);
    fprintf(m->out, " %s %s\n", val, ts);
}

static void family(const struct om *m, const char *name, const char *type, const char *unit, const char *help)
{
    fprintf(m->out, "# TYPE %s %s\n", name, type);
    if (unit)
        fprintf(m->out, "# UNIT %s %s\n", name, unit);
    fprintf(m->out, "# HELP %s ", name);
    put_escaped(m->out, help);
    fputc('\n', m->out);
}

/* The grid: distinct sample times, one per millisecond (the last row of a millisecond). */
static int load_grid(struct om *m)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(m->db, "SELECT DISTINCT t_us FROM sample ORDER BY t_us", -1, &s, NULL) != SQLITE_OK)
        return GS_ESQL;
    int cap = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(s, 0);
        if (m->ngrid > 0 && m->grid[m->ngrid - 1] / 1000 == t / 1000) {
            m->grid[m->ngrid - 1] = t;
            continue;
        }
        if (GS_GROW(m->grid, cap, m->ngrid + 1) != 0) {
            sqlite3_finalize(s);
            return GS_ENOMEM;
        }
        m->grid[m->ngrid++] = t;
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return GS_ESQL;
    m->upto = gs_calloc((size_t)m->ngrid + 1, sizeof *m->upto);
    if (!m->upto)
        return GS_ENOMEM;
    for (int g = 0; g < m->ngrid; g++)
        m->upto[g] = gs_history_upto(m->h, m->grid[g]);
    return 0;
}

static bool node_present_at(const struct gs_hist_node *n, int64_t t)
{
    return n->joined_us >= 0 && n->joined_us <= t && (n->deleted_us < 0 || n->deleted_us > t);
}

/* --- kube_node_status_allocatable ------------------------------------------------------- */

/* kube-state-metrics' unit of a resource (node.go): cpu "core"; memory, storage,
 * ephemeral-storage and hugepages-* "byte"; pods and extended resources "integer". */
static const char *ksm_unit(const char *r)
{
    if (strcmp(r, "cpu") == 0)
        return "core";
    if (strcmp(r, "memory") == 0 || strcmp(r, "storage") == 0 || strcmp(r, "ephemeral-storage") == 0 ||
        strncmp(r, "hugepages-", 10) == 0)
        return "byte";
    return "integer";
}

/* kube-state-metrics' sanitizeLabelName: every character outside [a-zA-Z0-9_] becomes '_'. */
static void ksm_sanitize(const char *r, char *buf, size_t n)
{
    size_t i = 0;
    for (; r[i] && i + 1 < n; i++) {
        char c = r[i];
        buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '_';
    }
    buf[i] = '\0';
}

static int fam_allocatable(struct om *m)
{
    const struct gs_history *h = m->h;
    /* the resources named by Allocatable rows, in order of first appearance */
    const char **res = NULL;
    int nres = 0, capres = 0;
    for (int k = 0; k < h->nevents; k++) {
        const struct gs_hist_event *e = &h->events[k];
        if (e->pod >= 0 || !e->subject || strcmp(e->reason, "Allocatable") != 0)
            continue;
        int r = 0;
        while (r < nres && strcmp(res[r], e->subject) != 0)
            r++;
        if (r == nres) {
            if (GS_GROW(res, capres, nres + 1) != 0)
                return GS_ENOMEM;
            res[nres++] = e->subject;
        }
    }
    family(m, "kube_node_status_allocatable", "gauge", NULL,
           "The allocatable for different resources of a node that are available for scheduling.");
    size_t cells = (size_t)h->nnodes * (size_t)(nres ? nres : 1);
    double *cur = gs_malloc(cells * sizeof *cur);
    double *val = gs_malloc(cells * (size_t)(m->ngrid ? m->ngrid : 1) * sizeof *val);
    if (!cur || !val) {
        gs_free(cur);
        gs_free(val);
        gs_free(res);
        return GS_ENOMEM;
    }
    for (size_t i = 0; i < cells; i++)
        cur[i] = NAN;
    for (int g = 0, k = 0; g < m->ngrid; g++) {
        for (; k < m->upto[g]; k++) {
            const struct gs_hist_event *e = &h->events[k];
            if (e->pod >= 0 || e->node < 0 || !e->subject || strcmp(e->reason, "Allocatable") != 0)
                continue;
            int r = 0;
            while (r < nres && strcmp(res[r], e->subject) != 0)
                r++;
            struct gs_quantity q;
            double v = NAN;
            if (e->message && gs_quantity_parse(e->message, &q) == 0)
                v = (double)gs_quantity_milli(&q) / 1000.0; /* ksm: MilliValue() / 1000 */
            cur[(size_t)e->node * (size_t)nres + (size_t)r] = v;
        }
        memcpy(val + (size_t)g * cells, cur, cells * sizeof *cur);
    }
    for (int n = 0; n < h->nnodes; n++)
        for (int r = 0; r < nres; r++) {
            char rname[128];
            ksm_sanitize(res[r], rname, sizeof rname);
            const char *kv[] = {"node", h->nodes[n].name, "resource", rname, "unit", ksm_unit(res[r]), NULL};
            for (int g = 0; g < m->ngrid; g++) {
                double v = val[(size_t)g * cells + (size_t)n * (size_t)nres + (size_t)r];
                if (!isnan(v) && node_present_at(&h->nodes[n], m->grid[g]))
                    sample(m, "kube_node_status_allocatable", kv, v, m->grid[g]);
            }
        }
    gs_free(cur);
    gs_free(val);
    gs_free(res);
    return 0;
}

/* --- kube_pod_status_phase, scheduler_pending_pods, attempts, SLI duration -------------- */

enum { PH_NONE, PH_PENDING, PH_RUNNING, PH_SUCCEEDED, PH_FAILED, PH_GONE };

/* A pod's phase after its event `reason` (pod_event reasons, docs/trace-schema.md). */
static int phase_after(int ph, const char *reason)
{
    if (strcmp(reason, "Created") == 0)
        return PH_PENDING;
    if (strcmp(reason, "Started") == 0)
        return PH_RUNNING;
    if (strcmp(reason, "Completed") == 0)
        return PH_SUCCEEDED;
    if (strcmp(reason, "UnexpectedAdmissionError") == 0)
        return PH_FAILED;
    if (strcmp(reason, "Rejected") == 0 || strcmp(reason, "Deleted") == 0 || strcmp(reason, "Evicted") == 0)
        return PH_GONE; /* the object is gone (or never was: the API server refused it) */
    return ph;
}

struct podsched {
    uint8_t *phase;    /* per pod: phase now */
    uint8_t *bound;    /* per pod: bound (Scheduled) */
    uint8_t *tried;    /* per pod: a FailedScheduling since its last Scheduled or creation */
    uint8_t *permit;   /* per pod: waiting at Permit */
    int *fails;        /* per pod: scheduling attempts that failed before it bound */
};

static int fam_pods(struct om *m)
{
    const struct gs_history *h = m->h;
    int np = h->npods, ng = m->ngrid;
    struct podsched ps = {
        .phase = gs_calloc((size_t)np + 1, 1),
        .bound = gs_calloc((size_t)np + 1, 1),
        .tried = gs_calloc((size_t)np + 1, 1),
        .permit = gs_calloc((size_t)np + 1, 1),
        .fails = gs_calloc((size_t)np + 1, sizeof(int)),
    };
    uint8_t *phase = gs_calloc((size_t)np * (size_t)ng + 1, 1); /* [pod][grid] */
    int64_t *active = gs_calloc((size_t)ng + 1, sizeof *active), *unsched = gs_calloc((size_t)ng + 1, sizeof *unsched);
    int64_t *n_sched = gs_calloc((size_t)ng + 1, sizeof *n_sched), *n_fail = gs_calloc((size_t)ng + 1, sizeof *n_fail);
    /* bind observations: time bound, seconds from creation, attempts */
    struct obs { int64_t t; double secs; int attempts; } *obs = NULL;
    int nobs = 0, capobs = 0;
    /* aggregated FailedScheduling rows whose last occurrence is still to come: counted 1 at
     * their first time and in full at their last (the trace does not keep the times between) */
    struct later { int64_t t; int n; } *later = NULL;
    int nlater = 0, caplater = 0;
    int rc = 0;
    if (!ps.phase || !ps.bound || !ps.tried || !ps.permit || !ps.fails || !phase || !active || !unsched ||
        !n_sched || !n_fail) {
        rc = GS_ENOMEM;
        goto out;
    }
    int64_t scheduled = 0, failed = 0;
    for (int g = 0, k = 0; g < ng; g++) {
        for (; k < m->upto[g]; k++) {
            const struct gs_hist_event *e = &h->events[k];
            if (e->pod < 0)
                continue;
            int p = e->pod;
            ps.phase[p] = (uint8_t)phase_after(ps.phase[p], e->reason);
            if (strcmp(e->reason, "FailedScheduling") == 0) {
                ps.tried[p] = 1;
                ps.permit[p] = 0;
                failed += 1;
                ps.fails[p] += e->count;
                if (e->count > 1) {
                    if (GS_GROW(later, caplater, nlater + 1) != 0) {
                        rc = GS_ENOMEM;
                        goto out;
                    }
                    later[nlater++] = (struct later){e->last_us, e->count - 1};
                }
            } else if (strcmp(e->reason, "WaitingOnPermit") == 0) {
                ps.permit[p] = 1;
            } else if (strcmp(e->reason, "Scheduled") == 0) {
                ps.bound[p] = 1;
                ps.permit[p] = 0;
                scheduled++;
                if (GS_GROW(obs, capobs, nobs + 1) != 0) {
                    rc = GS_ENOMEM;
                    goto out;
                }
                int64_t created = h->pods[p].created_us >= 0 ? h->pods[p].created_us : e->t_us;
                obs[nobs++] = (struct obs){e->t_us, (double)(e->t_us - created) / 1e6, ps.fails[p] + 1};
                ps.fails[p] = 0;
            }
        }
        int64_t extra = 0;
        for (int i = 0; i < nlater; i++)
            if (later[i].t <= m->grid[g])
                extra += later[i].n;
        for (int p = 0; p < np; p++) {
            phase[(size_t)p * (size_t)ng + (size_t)g] = ps.phase[p];
            if (ps.phase[p] == PH_PENDING && !ps.bound[p] && !ps.permit[p]) {
                if (ps.tried[p])
                    unsched[g]++;
                else
                    active[g]++;
            }
        }
        n_sched[g] = scheduled;
        n_fail[g] = failed + extra;
    }

    /* kube_pod_status_phase: from the pod's creation to the first grid time it has ended at */
    static const char *const phases[] = {"Pending", "Succeeded", "Failed", "Unknown", "Running"};
    static const int phase_code[] = {PH_PENDING, PH_SUCCEEDED, PH_FAILED, -1, PH_RUNNING};
    family(m, "kube_pod_status_phase", "gauge", NULL, "The pods current phase.");
    for (int p = 0; p < np; p++) {
        char uid[32];
        snprintf(uid, sizeof uid, "%d", p);
        for (int i = 0; i < 5; i++) {
            const char *kv[] = {"namespace", "default", "pod", h->pods[p].name, "uid", uid, "phase", phases[i], NULL};
            for (int g = 0; g < ng; g++) {
                int ph = phase[(size_t)p * (size_t)ng + (size_t)g];
                if (ph == PH_NONE || ph == PH_GONE)
                    continue;
                if (g > 0 && (ph == PH_SUCCEEDED || ph == PH_FAILED) &&
                    phase[(size_t)p * (size_t)ng + (size_t)g - 1] == ph)
                    continue; /* ended before the previous grid time: its series has stopped */
                sample(m, "kube_pod_status_phase", kv, ph == phase_code[i], m->grid[g]);
            }
        }
    }

    family(m, "scheduler_pending_pods", "gauge", NULL,
           "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
           "'unschedulable' means number of pods that the scheduler attempted to schedule and failed "
           "(gpusim: backoffQ included).");
    for (int q = 0; q < 2; q++) {
        const char *kv[] = {"queue", q ? "unschedulable" : "active", NULL};
        for (int g = 0; g < ng; g++)
            sample(m, "scheduler_pending_pods", kv, (double)(q ? unsched[g] : active[g]), m->grid[g]);
    }

    family(m, "scheduler_schedule_attempts", "counter", NULL,
           "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled.");
    for (int r = 0; r < 2; r++) {
        const char *kv[] = {"profile", "default-scheduler", "result", r ? "unschedulable" : "scheduled", NULL};
        for (int g = 0; g < ng; g++)
            sample(m, "scheduler_schedule_attempts_total", kv, (double)(r ? n_fail[g] : n_sched[g]), m->grid[g]);
    }

    /* the SLI histogram, one series per attempts value, from its first observation on */
    family(m, "scheduler_pod_scheduling_sli_duration_seconds", "histogram", "seconds",
           "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might "
           "involve multiple scheduling attempts.");
    int maxatt = 0;
    for (int i = 0; i < nobs; i++)
        maxatt = obs[i].attempts > maxatt ? obs[i].attempts : maxatt;
    for (int a = 1; a <= maxatt; a++) {
        int64_t bucket[21] = {0}, count = 0;
        double sum = 0;
        int i = 0;
        bool started = false;
        char att[16];
        snprintf(att, sizeof att, "%d", a);
        for (int g = 0; g < ng; g++) {
            for (; i < nobs && obs[i].t <= m->grid[g]; i++) {
                if (obs[i].attempts != a)
                    continue;
                started = true;
                count++;
                sum += obs[i].secs;
                double ub = 0.01;
                for (int b = 0; b < 20; b++, ub *= 2)
                    if (obs[i].secs <= ub)
                        bucket[b]++;
            }
            if (!started)
                continue;
            double ub = 0.01;
            for (int b = 0; b <= 20; b++, ub *= 2) {
                char le[32];
                if (b == 20)
                    snprintf(le, sizeof le, "+Inf");
                else
                    fmt_float(ub, le, sizeof le);
                const char *kv[] = {"attempts", att, "le", le, NULL};
                sample(m, "scheduler_pod_scheduling_sli_duration_seconds_bucket", kv,
                       (double)(b == 20 ? count : bucket[b]), m->grid[g]);
            }
            const char *kv[] = {"attempts", att, NULL};
            sample(m, "scheduler_pod_scheduling_sli_duration_seconds_count", kv, (double)count, m->grid[g]);
            char sv[64], ts[48];
            fmt_float(sum, sv, sizeof sv);
            fmt_ts(m, m->grid[g], ts, sizeof ts);
            fprintf(m->out, "scheduler_pod_scheduling_sli_duration_seconds_sum{attempts=\"%s\"} %s %s\n", att, sv, ts);
        }
    }
out:
    gs_free(ps.phase);
    gs_free(ps.bound);
    gs_free(ps.tried);
    gs_free(ps.permit);
    gs_free(ps.fails);
    gs_free(phase);
    gs_free(active);
    gs_free(unsched);
    gs_free(n_sched);
    gs_free(n_fail);
    gs_free(obs);
    gs_free(later);
    return rc;
}

/* --- DCGM_FI_DEV_XID_ERRORS -------------------------------------------------------------- */

static int fam_xid(struct om *m)
{
    const struct gs_history *h = m->h;
    /* modelName is the NVML name, from the GPU catalog when it names the node's product */
    struct gs_arena arena = {0};
    struct gs_catalog cat = {0};
    struct gs_error cerr = {0};
    bool have_cat = gs_catalog_load(gs_catalog_default_dir(), &arena, &cat, &cerr) == 0;
    family(m, "DCGM_FI_DEV_XID_ERRORS", "gauge", NULL, "Value of the last XID error encountered.");
    int rc = 0;
    for (int n = 0; n < h->nnodes && rc == 0; n++) {
        const struct gs_hist_node *nd = &h->nodes[n];
        if (nd->gpus <= 0)
            continue;
        const struct gs_gpu_product *prod = have_cat && nd->product ? gs_catalog_product(&cat, nd->product) : NULL;
        int *last = gs_calloc((size_t)nd->gpus, sizeof *last);
        int *val = gs_calloc((size_t)nd->gpus * (size_t)(m->ngrid ? m->ngrid : 1), sizeof *val);
        if (!last || !val) {
            gs_free(last);
            gs_free(val);
            rc = GS_ENOMEM;
            break;
        }
        for (int g = 0, k = 0; g < m->ngrid; g++) {
            for (; k < m->upto[g]; k++) {
                const struct gs_hist_event *e = &h->events[k];
                if (e->pod >= 0 || e->node != n || strcmp(e->reason, "Xid") != 0 || !e->subject ||
                    strncmp(e->subject, "GPU ", 4) != 0 || !e->message || strncmp(e->message, "Xid ", 4) != 0)
                    continue;
                int gpu = atoi(e->subject + 4);
                if (gpu >= 0 && gpu < nd->gpus && !strstr(e->message, "no such GPU"))
                    last[gpu] = atoi(e->message + 4);
            }
            for (int gpu = 0; gpu < nd->gpus; gpu++)
                val[(size_t)gpu * (size_t)m->ngrid + (size_t)g] = last[gpu];
        }
        for (int gpu = 0; gpu < nd->gpus; gpu++) {
            char gs[16], dev[32];
            snprintf(gs, sizeof gs, "%d", gpu);
            snprintf(dev, sizeof dev, "nvidia%d", gpu);
            const char *kv_model[] = {"gpu", gs, "device", dev, "modelName", prod ? prod->nvml_name : NULL,
                                      "Hostname", nd->name, NULL};
            const char *kv_plain[] = {"gpu", gs, "device", dev, "Hostname", nd->name, NULL};
            for (int g = 0; g < m->ngrid; g++)
                if (node_present_at(nd, m->grid[g]))
                    sample(m, "DCGM_FI_DEV_XID_ERRORS", prod ? kv_model : kv_plain,
                           val[(size_t)gpu * (size_t)m->ngrid + (size_t)g], m->grid[g]);
        }
        gs_free(last);
        gs_free(val);
    }
    gs_arena_free(&arena);
    return rc;
}

/* --- gpusim's own measures (the sample table), which no real exporter has ------------------ */

static int fam_samples(struct om *m)
{
    static const struct {
        const char *name, *col, *help;
    } cols[] = {
        {"gpusim_gpus_allocated", "gpus_allocated",
         "GPUs allocated to pods: per node the larger of nvidia.com/gpu requested and GPUs any share holds"},
        {"gpusim_pods_pending", "pods_pending",
         "Pods in phase Pending: waiting for a node, waiting at Permit, or bound and not started"},
        {"gpusim_fragmented_gpus", "frag_gpus",
         "Fragmented GPUs: milli-GPU the typical pods cannot use, in GPUs (the FGD paper's measure)"},
        {"gpusim_gpus_held_by_incomplete_groups", "gpus_held_by_incomplete_groups",
         "GPUs held by PodGroups with fewer than minMember pods Running"},
    };
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        char sql[256];
        /* one value per pool and grid millisecond: the last row of that millisecond */
        snprintf(sql, sizeof sql,
                 "SELECT pool, t_us, %s FROM sample WHERE %s IS NOT NULL ORDER BY pool, t_us, rowid", cols[c].col,
                 cols[c].col);
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(m->db, sql, -1, &s, NULL) != SQLITE_OK)
            return GS_ESQL;
        family(m, cols[c].name, "gauge", NULL, cols[c].help);
        char pool[256] = "", prev_pool[256] = "";
        int64_t prev_ms = -1, t = 0;
        double v = 0;
        bool have = false;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            snprintf(pool, sizeof pool, "%s", sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "");
            int64_t tt = sqlite3_column_int64(s, 1);
            bool per_pool_zero = pool[0] && (strcmp(cols[c].col, "pods_pending") == 0 ||
                                             strcmp(cols[c].col, "gpus_held_by_incomplete_groups") == 0);
            if (per_pool_zero) /* 0 in per-pool rows by definition (docs/trace-schema.md) */
                continue;
            if (have && (strcmp(pool, prev_pool) != 0 || tt / 1000 != prev_ms)) {
                const char *kv[] = {"pool", prev_pool, NULL};
                sample(m, cols[c].name, prev_pool[0] ? kv : NULL, v, t);
            }
            memcpy(prev_pool, pool, sizeof pool);
            prev_ms = tt / 1000;
            t = tt;
            v = sqlite3_column_double(s, 2);
            have = true;
        }
        if (have) {
            const char *kv[] = {"pool", prev_pool, NULL};
            sample(m, cols[c].name, prev_pool[0] ? kv : NULL, v, t);
        }
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE)
            return GS_ESQL;
    }
    return 0;
}

int gs_export_openmetrics(const char *trace_path, int64_t epoch_s, FILE *out, char *errbuf, int errlen)
{
    if (!trace_path || !out)
        return gs_report_error(errbuf, errlen, GS_EINVAL, "gs_export_openmetrics: invalid argument");
    sqlite3 *db;
    struct gs_history h;
    int rc = gs_export_open(trace_path, &db, &h, errbuf, errlen);
    if (rc != 0)
        return rc;
    struct om m = {.h = &h, .db = db, .out = out, .epoch_s = epoch_s};
    rc = load_grid(&m);
    if (rc == 0)
        rc = fam_allocatable(&m);
    if (rc == 0)
        rc = fam_pods(&m);
    if (rc == 0)
        rc = fam_xid(&m);
    if (rc == 0)
        rc = fam_samples(&m);
    if (rc == 0) {
        fputs("# EOF\n", out);
        if (fflush(out) != 0 || ferror(out))
            rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the OpenMetrics text: %s",
                                 strerror(errno ? errno : EIO));
    } else if (rc == GS_ENOMEM) {
        rc = gs_report_error(errbuf, errlen, rc, "out of memory");
    } else if (rc == GS_ESQL) {
        rc = gs_report_error(errbuf, errlen, rc, "trace '%s': %s", trace_path, sqlite3_errmsg(db));
    }
    gs_free(m.grid);
    gs_free(m.upto);
    gs_history_free(&h);
    sqlite3_close(db);
    return rc;
}
