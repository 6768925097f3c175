/* gpusim: a trace's events in order and the GPU holdings after each (reports/history.h says
 * what is read and how). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/intern.h"
#include "reports/history.h"
#include "reports/open.h"

static int64_t col_i64(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static const char *col_str(struct gs_arena *a, sqlite3_stmt *st, int i, int *rc)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    if (!s)
        return NULL;
    char *c = gs_arena_strdup(a, (const char *)s);
    if (!c)
        *rc = GS_ENOMEM;
    return c;
}

/* Event strings repeat (reasons, FailedScheduling texts, operand states): one copy each. */
static const char *col_istr(struct gs_intern *t, sqlite3_stmt *st, int i, int *rc)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    if (!s)
        return NULL;
    const char *c = gs_intern(t, (const char *)s);
    if (!c)
        *rc = GS_ENOMEM;
    return c;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *errbuf, int errlen)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return gs_report_error(errbuf, errlen, GS_ESQL, "reading the trace: %s", sqlite3_errmsg(db));
    return 0;
}

static int table_exists(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* True when run.trace_level says the event tables were left empty. */
static bool trace_level_summary(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = 'trace_level'", -1, &st, NULL) != SQLITE_OK)
        return false;
    bool yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
               strcmp((const char *)sqlite3_column_text(st, 0), "summary") == 0;
    sqlite3_finalize(st);
    return yes;
}

/* Largest id + 1 in `table` (0 when empty). */
static int count_ids(sqlite3 *db, const char *sql, int *n, char *errbuf, int errlen)
{
    sqlite3_stmt *st;
    int rc = prepare(db, sql, &st, errbuf, errlen);
    if (rc)
        return rc;
    *n = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        int64_t v = sqlite3_column_int64(st, 0);
        if (v < 0 || v >= (1 << 26)) {
            sqlite3_finalize(st);
            return gs_report_error(errbuf, errlen, GS_EINVAL, "the trace has an id out of range (%lld)", (long long)v);
        }
        *n = (int)v + 1;
    }
    sqlite3_finalize(st);
    return 0;
}

static int load_nodes(sqlite3 *db, struct gs_history *h, char *errbuf, int errlen)
{
    int rc = count_ids(db, "SELECT max(id) FROM node", &h->nnodes, errbuf, errlen);
    if (rc)
        return rc;
    h->nodes = gs_arena_alloc(&h->arena, sizeof *h->nodes * (size_t)(h->nnodes ? h->nnodes : 1));
    if (!h->nodes)
        return gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    for (int i = 0; i < h->nnodes; i++)
        h->nodes[i] = (struct gs_hist_node){.name = "", .pool = "", .joined_us = -1, .deleted_us = -1};
    sqlite3_stmt *st;
    rc = prepare(db, "SELECT id, name, pool, gpu_product, gpu_count FROM node WHERE id >= 0", &st, errbuf, errlen);
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        struct gs_hist_node *n = &h->nodes[sqlite3_column_int(st, 0)];
        n->name = col_str(&h->arena, st, 1, &rc);
        n->pool = col_str(&h->arena, st, 2, &rc);
        n->product = col_str(&h->arena, st, 3, &rc);
        n->gpus = sqlite3_column_int(st, 4);
        if (!n->name)
            n->name = "";
        if (!n->pool)
            n->pool = "";
    }
    sqlite3_finalize(st);
    return rc == GS_ENOMEM ? gs_report_error(errbuf, errlen, rc, "out of memory") : rc;
}

static int load_pods(sqlite3 *db, struct gs_history *h, struct gs_intern *strings, char *errbuf, int errlen)
{
    int rc = count_ids(db, "SELECT max(id) FROM pod", &h->npods, errbuf, errlen);
    if (rc)
        return rc;
    h->pods = gs_arena_alloc(&h->arena, sizeof *h->pods * (size_t)(h->npods ? h->npods : 1));
    if (!h->pods)
        return gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    for (int i = 0; i < h->npods; i++)
        h->pods[i] = (struct gs_hist_pod){.name = "", .workload = "", .node = -1, .created_us = -1,
                                          .scheduled_us = -1, .started_us = -1, .finished_us = -1};
    sqlite3_stmt *st;
    /* `pod` may be report_open's TEMP view of a trace that is not complete: the same columns. */
    rc = prepare(db,
                 "SELECT id, name, workload, pod_group, priority, cpu_m, memory_b, gpu, created_us, scheduled_us, "
                 "started_us, finished_us, node_id, phase, message FROM pod WHERE id >= 0",
                 &st, errbuf, errlen);
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        struct gs_hist_pod *p = &h->pods[sqlite3_column_int(st, 0)];
        p->name = col_str(&h->arena, st, 1, &rc);
        p->workload = col_istr(strings, st, 2, &rc);
        p->group = col_istr(strings, st, 3, &rc);
        p->priority = sqlite3_column_int(st, 4);
        p->cpu_m = sqlite3_column_int64(st, 5);
        p->memory_b = sqlite3_column_int64(st, 6);
        p->gpu = sqlite3_column_int64(st, 7);
        p->created_us = col_i64(st, 8);
        p->scheduled_us = col_i64(st, 9);
        p->started_us = col_i64(st, 10);
        p->finished_us = col_i64(st, 11);
        int64_t node = col_i64(st, 12);
        p->node = node >= 0 && node < h->nnodes ? (int)node : -1;
        p->phase = col_istr(strings, st, 13, &rc);
        p->message = col_istr(strings, st, 14, &rc);
        if (!p->name)
            p->name = "";
        if (!p->workload)
            p->workload = "";
    }
    sqlite3_finalize(st);
    return rc == GS_ENOMEM ? gs_report_error(errbuf, errlen, rc, "out of memory") : rc;
}

/* The GPUs and the share a GpuAllocated / DeviceAllocated message names (docs/trace-schema.md
 * pod_event): "<node> gpu=0,1 milli=600", "<node> nvidia.com/gpu gpu=2 replica=0/4",
 * "<node> nvidia.com/mig-1g.10gb gpu=0 mig=1g.10gb start=6", "<node> claim=c request=r
 * device=gpu-0 gpu=0". */
static void parse_devices(struct gs_hist_event *e, bool share)
{
    const char *m = e->message ? e->message : "";
    e->source = share ? GS_HIST_SRC_SHARE : strstr(m, " claim=") ? GS_HIST_SRC_DRA : GS_HIST_SRC_DEVICE_PLUGIN;
    e->milli = 1000;
    const char *g = strstr(m, " gpu=");
    if (g) {
        const char *p = g + 5;
        while (*p >= '0' && *p <= '9') {
            long v = strtol(p, (char **)&p, 10);
            if (v >= 0 && v < GS_HIST_MAX_GPUS)
                e->gpu_mask |= (uint64_t)1 << v;
            if (*p != ',')
                break;
            p++;
        }
    }
    const char *x;
    if ((x = strstr(m, " milli=")) != NULL)
        e->milli = (int)strtol(x + 7, NULL, 10);
    else if ((x = strstr(m, " replica=")) != NULL) {
        const char *slash = strchr(x, '/');
        long n = slash ? strtol(slash + 1, NULL, 10) : 1;
        e->milli = n > 1 ? (int)(1000 / n) : 1000;
    } else if ((x = strstr(m, " mig=")) != NULL) {
        long gi = strtol(x + 5, NULL, 10);
        e->milli = gi >= 1 && gi <= 7 ? (int)(gi * 1000 / 7) : 1000;
    }
    if (e->milli < 0)
        e->milli = 0;
}

/* Merge ev[0, mid) and ev[mid, n), each in time order, into one time order that keeps the
 * first run's rows before the second's at one instant. *rc = GS_ENOMEM when out of memory. */
static void merge_runs(struct gs_hist_event *ev, int mid, int n, int *rc)
{
    if (mid <= 0 || mid >= n)
        return;
    struct gs_hist_event *tmp = gs_malloc(sizeof *tmp * (size_t)n);
    if (!tmp) {
        *rc = GS_ENOMEM;
        return;
    }
    int a = 0, b = mid, o = 0;
    while (a < mid || b < n) {
        if (b >= n || (a < mid && ev[a].t_us <= ev[b].t_us))
            tmp[o++] = ev[a++];
        else
            tmp[o++] = ev[b++];
    }
    memcpy(ev, tmp, sizeof *tmp * (size_t)n);
    gs_free(tmp);
}

/* The node named by the first `len` bytes of `s`, -1 when none. */
static int find_node(const struct gs_history *h, const char *s, size_t len)
{
    for (int i = 0; i < h->nnodes; i++)
        if (strlen(h->nodes[i].name) == len && strncmp(h->nodes[i].name, s, len) == 0)
            return i;
    return -1;
}

int gs_history_load(sqlite3 *db, struct gs_history *h, char *errbuf, int errlen)
{
    memset(h, 0, sizeof *h);
    h->end_us = -1;
    struct gs_intern strings;
    gs_intern_init(&strings, &h->arena);
    if (!table_exists(db, "pod_event") || !table_exists(db, "node_event") || trace_level_summary(db))
        return gs_report_error(errbuf, errlen, GS_EINVAL,
                               "the trace has no event tables (written with --trace-level summary): run the "
                               "scenario again with --trace-level events");
    int rc = load_nodes(db, h, errbuf, errlen);
    rc = rc ? rc : load_pods(db, h, &strings, errbuf, errlen);
    int64_t n = 0;
    sqlite3_stmt *st = NULL;
    if (!rc) {
        rc = prepare(db,
                     "SELECT (SELECT count(*) FROM pod_event) + (SELECT count(*) FROM node_event) + "
                     "(SELECT count(*) FROM object)",
                     &st, errbuf, errlen);
        if (!rc && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (!rc && n > (1 << 28))
            rc = gs_report_error(errbuf, errlen, GS_EINVAL, "the trace has too many events (%lld)", (long long)n);
    }
    if (!rc && n > 0) {
        h->events = gs_malloc(sizeof *h->events * (size_t)n);
        if (!h->events)
            rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    }
    /* Node rows first at each instant: each table is read in time and row order, the two are
     * merged by a stable sort on time below (node rows were put first). */
    if (!rc)
        rc = prepare(db, "SELECT t_us, node_id, kind, subject, value FROM node_event ORDER BY t_us, rowid", &st,
                     errbuf, errlen);
    while (!rc && h->nevents < n && sqlite3_step(st) == SQLITE_ROW) {
        struct gs_hist_event *e = &h->events[h->nevents];
        *e = (struct gs_hist_event){.t_us = sqlite3_column_int64(st, 0), .count = 1, .pod = -1, .allocatable = -1};
        e->last_us = e->t_us;
        int64_t node = col_i64(st, 1);
        e->node = node >= 0 && node < h->nnodes ? (int)node : -1;
        e->reason = col_istr(&strings, st, 2, &rc);
        e->subject = col_istr(&strings, st, 3, &rc);
        e->message = col_istr(&strings, st, 4, &rc);
        if (!e->reason)
            e->reason = "";
        if (e->node >= 0) {
            struct gs_hist_node *nd = &h->nodes[e->node];
            if (strcmp(e->reason, "Joined") == 0) {
                e->effect = GS_HIST_NODE;
                if (nd->joined_us < 0)
                    nd->joined_us = e->t_us;
            } else if (strcmp(e->reason, "Deleted") == 0) {
                e->effect = GS_HIST_NODE;
                e->allocatable = 0;
                nd->deleted_us = e->t_us;
            } else if (strcmp(e->reason, "Allocatable") == 0 && e->subject &&
                       strcmp(e->subject, "nvidia.com/gpu") == 0) {
                e->effect = GS_HIST_NODE;
                e->allocatable = e->message ? strtoll(e->message, NULL, 10) : 0;
            }
        }
        h->nevents++;
    }
    if (st)
        sqlite3_finalize(st);
    st = NULL;
    int nnode_events = h->nevents;
    if (!rc)
        rc = prepare(db, "SELECT t_us, kind, namespace, name, status, message FROM object ORDER BY t_us, rowid", &st,
                     errbuf, errlen);
    while (!rc && h->nevents < n && sqlite3_step(st) == SQLITE_ROW) {
        struct gs_hist_event *e = &h->events[h->nevents];
        *e = (struct gs_hist_event){.t_us = sqlite3_column_int64(st, 0), .count = 1, .pod = -1, .node = -1,
                                    .allocatable = -1};
        e->last_us = e->t_us;
        const char *kind = (const char *)sqlite3_column_text(st, 1), *ns = (const char *)sqlite3_column_text(st, 2),
                   *name = (const char *)sqlite3_column_text(st, 3);
        char subj[512];
        snprintf(subj, sizeof subj, "%s/%s/%s", kind ? kind : "", ns ? ns : "", name ? name : "");
        e->subject = gs_intern(&strings, subj);
        if (!e->subject)
            rc = GS_ENOMEM;
        e->reason = col_istr(&strings, st, 4, &rc);
        e->message = col_istr(&strings, st, 5, &rc);
        if (!e->reason)
            e->reason = "";
        if (e->subject && strcmp(e->subject, "Pod/kube-system/kube-scheduler") == 0 && strcmp(e->reason, "Restarted") == 0)
            e->effect = GS_HIST_SCHED_RESTART;
        h->nevents++;
    }
    if (st)
        sqlite3_finalize(st);
    st = NULL;
    if (!rc)
        merge_runs(h->events, nnode_events, h->nevents, &rc);
    nnode_events = h->nevents;
    if (!rc)
        rc = prepare(db, "SELECT t_us, pod_id, reason, message, count, last_us FROM pod_event ORDER BY t_us, rowid",
                     &st, errbuf, errlen);
    while (!rc && h->nevents < n && sqlite3_step(st) == SQLITE_ROW) {
        struct gs_hist_event *e = &h->events[h->nevents];
        *e = (struct gs_hist_event){.t_us = sqlite3_column_int64(st, 0), .node = -1, .allocatable = -1};
        int64_t pod = col_i64(st, 1);
        if (pod < 0 || pod >= h->npods)
            continue; /* a row for a pod the pod table does not hold (a killed run's) */
        e->pod = (int)pod;
        e->reason = col_istr(&strings, st, 2, &rc);
        e->message = col_istr(&strings, st, 3, &rc);
        e->count = sqlite3_column_type(st, 4) == SQLITE_NULL ? 1 : sqlite3_column_int(st, 4);
        e->last_us = sqlite3_column_type(st, 5) == SQLITE_NULL ? e->t_us : sqlite3_column_int64(st, 5);
        if (!e->reason)
            e->reason = "";
        if (strcmp(e->reason, "Scheduled") == 0)
            e->effect = GS_HIST_BIND;
        else if (strcmp(e->reason, "WaitingOnPermit") == 0 && e->message) {
            e->node = find_node(h, e->message, strcspn(e->message, ":"));
            e->effect = e->node >= 0 ? GS_HIST_RESERVE : GS_HIST_NONE;
        } else if (strcmp(e->reason, "GpuAllocated") == 0 || strcmp(e->reason, "DeviceAllocated") == 0) {
            e->effect = GS_HIST_DEVICES;
            parse_devices(e, e->reason[0] == 'G');
        }
        h->nevents++;
    }
    if (st)
        sqlite3_finalize(st);
    if (rc == GS_ENOMEM)
        rc = gs_report_error(errbuf, errlen, rc, "out of memory");
    if (!rc) {
        merge_runs(h->events, nnode_events, h->nevents, &rc);
        if (rc)
            rc = gs_report_error(errbuf, errlen, rc, "out of memory");
    }
    if (!rc) {
        /* Each bound pod's release: its last row, when the pod row says it ended at that time. */
        int *last = gs_malloc(sizeof *last * (size_t)(h->npods ? h->npods : 1));
        if (!last)
            rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
        for (int i = 0; !rc && i < h->npods; i++)
            last[i] = -1;
        /* A bound pod with no Scheduled row was bound when it was made (spec.nodeName, a
         * snapshot's Running pod): its first row binds it. */
        bool *sched = gs_calloc((size_t)(h->npods ? h->npods : 1), sizeof *sched);
        if (!rc && !sched)
            rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
        for (int i = 0; !rc && i < h->nevents; i++)
            if (h->events[i].pod >= 0) {
                last[h->events[i].pod] = i;
                if (h->events[i].effect == GS_HIST_BIND)
                    sched[h->events[i].pod] = true;
            }
        for (int i = 0; !rc && i < h->nevents; i++) {
            struct gs_hist_event *e = &h->events[i];
            if (e->pod >= 0 && !sched[e->pod] && h->pods[e->pod].node >= 0 && h->pods[e->pod].scheduled_us >= 0 &&
                e->t_us >= h->pods[e->pod].scheduled_us && e->effect == GS_HIST_NONE) {
                e->effect = GS_HIST_BIND;
                sched[e->pod] = true;
            }
        }
        gs_free(sched);
        bool *bound = gs_calloc((size_t)(h->npods ? h->npods : 1), sizeof *bound);
        int *reserved = gs_calloc((size_t)(h->npods ? h->npods : 1), sizeof *reserved); /* node + 1 */
        if (!rc && (!bound || !reserved))
            rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
        for (int i = 0; !rc && i < h->nevents; i++) {
            struct gs_hist_event *e = &h->events[i];
            if (e->pod < 0)
                continue;
            const struct gs_hist_pod *p = &h->pods[e->pod];
            if (e->effect == GS_HIST_RESERVE) {
                reserved[e->pod] = e->node + 1;
                continue;
            }
            if (reserved[e->pod] && strcmp(e->reason, "FailedScheduling") == 0) {
                e->effect = GS_HIST_UNRESERVE;
                e->node = reserved[e->pod] - 1;
                reserved[e->pod] = 0;
                continue;
            }
            if (e->effect == GS_HIST_BIND)
                reserved[e->pod] = 0;
            if (e->effect == GS_HIST_BIND)
                bound[e->pod] = p->node >= 0;
            if (bound[e->pod])
                e->node = p->node;
            if (i == last[e->pod] && (bound[e->pod] || reserved[e->pod]) && p->finished_us >= 0 &&
                e->t_us == p->finished_us && e->effect == GS_HIST_NONE) {
                e->effect = GS_HIST_RELEASE;
                bound[e->pod] = false;
                reserved[e->pod] = 0;
            }
        }
        gs_free(last);
        gs_free(bound);
        gs_free(reserved);
    }
    if (!rc) {
        sqlite3_stmt *q;
        h->end_us = h->nevents ? h->events[h->nevents - 1].t_us : 0;
        if (sqlite3_prepare_v2(db,
                               "SELECT value FROM run WHERE key = 'end_us' UNION ALL "
                               "SELECT value FROM run WHERE key = 'complete_until_us'",
                               -1, &q, NULL) == SQLITE_OK) {
            if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
                h->end_us = sqlite3_column_int64(q, 0);
            sqlite3_finalize(q);
        }
    }
    gs_intern_free(&strings);
    if (rc)
        gs_history_free(h);
    return rc;
}

void gs_history_free(struct gs_history *h)
{
    if (!h)
        return;
    gs_free(h->events);
    gs_arena_free(&h->arena);
    memset(h, 0, sizeof *h);
}

int gs_history_upto(const struct gs_history *h, int64_t t_us)
{
    int lo = 0, hi = h->nevents;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (h->events[mid].t_us <= t_us)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void gs_hist_state_free(struct gs_hist_state *st)
{
    if (!st)
        return;
    gs_free(st->pod_node);
    gs_free(st->pod_reserved);
    gs_free(st->pod_mask);
    gs_free(st->pod_busy);
    gs_free(st->pod_dra);
    gs_free(st->pod_milli);
    gs_free(st->node_allocatable);
    gs_free(st->node_present);
    memset(st, 0, sizeof *st);
}

int gs_hist_state_init(const struct gs_history *h, struct gs_hist_state *st)
{
    memset(st, 0, sizeof *st);
    size_t np = (size_t)(h->npods ? h->npods : 1), nn = (size_t)(h->nnodes ? h->nnodes : 1);
    st->pod_node = gs_malloc(sizeof *st->pod_node * np);
    st->pod_reserved = gs_calloc(np, sizeof *st->pod_reserved);
    st->pod_mask = gs_calloc(np, sizeof *st->pod_mask);
    st->pod_busy = gs_calloc(np, sizeof *st->pod_busy);
    st->pod_dra = gs_calloc(np, sizeof *st->pod_dra);
    st->pod_milli = gs_calloc(np, sizeof *st->pod_milli);
    st->node_allocatable = gs_calloc(nn, sizeof *st->node_allocatable);
    st->node_present = gs_calloc(nn, sizeof *st->node_present);
    if (!st->pod_node || !st->pod_reserved || !st->pod_mask || !st->pod_busy || !st->pod_dra || !st->pod_milli || !st->node_allocatable ||
        !st->node_present) {
        gs_hist_state_free(st);
        return GS_ENOMEM;
    }
    for (int i = 0; i < h->npods; i++)
        st->pod_node[i] = -1;
    return 0;
}

void gs_hist_state_advance(const struct gs_history *h, struct gs_hist_state *st, int k)
{
    if (k > h->nevents)
        k = h->nevents;
    for (; st->applied < k; st->applied++) {
        const struct gs_hist_event *e = &h->events[st->applied];
        switch (e->effect) {
        case GS_HIST_BIND:
            st->pod_node[e->pod] = e->node;
            st->pod_reserved[e->pod] = 0;
            break;
        case GS_HIST_RESERVE:
            st->pod_node[e->pod] = e->node;
            st->pod_reserved[e->pod] = 1;
            break;
        case GS_HIST_DEVICES:
            if (st->pod_node[e->pod] >= 0) {
                st->pod_mask[e->pod] |= e->gpu_mask;
                st->pod_milli[e->pod] = e->milli;
                if (e->source != GS_HIST_SRC_DEVICE_PLUGIN)
                    st->pod_busy[e->pod] |= e->gpu_mask;
                if (e->source == GS_HIST_SRC_DRA)
                    st->pod_dra[e->pod] = 1;
            }
            break;
        case GS_HIST_SCHED_RESTART:
            for (int p = 0; p < h->npods; p++)
                if (st->pod_reserved[p]) {
                    st->pod_node[p] = -1;
                    st->pod_reserved[p] = 0;
                }
            break;
        case GS_HIST_UNRESERVE:
        case GS_HIST_RELEASE:
            st->pod_node[e->pod] = -1;
            st->pod_reserved[e->pod] = 0;
            st->pod_mask[e->pod] = st->pod_busy[e->pod] = 0;
            st->pod_milli[e->pod] = 0;
            st->pod_dra[e->pod] = 0;
            break;
        case GS_HIST_NODE:
            if (strcmp(e->reason, "Joined") == 0)
                st->node_present[e->node] = true;
            else if (strcmp(e->reason, "Deleted") == 0)
                st->node_present[e->node] = false;
            if (e->allocatable >= 0)
                st->node_allocatable[e->node] = e->allocatable;
            break;
        default:
            break;
        }
    }
}

static int popcount64(uint64_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

int64_t gs_hist_node_allocated(const struct gs_history *h, const struct gs_hist_state *st, int n)
{
    int64_t req = 0;
    uint64_t share = 0, dra = 0;
    for (int p = 0; p < h->npods; p++) {
        if (st->pod_node[p] != n)
            continue;
        req += h->pods[p].gpu;
        if (st->pod_dra[p])
            dra |= st->pod_busy[p];
        else
            share |= st->pod_busy[p];
    }
    req += popcount64(dra);
    int64_t in_use = popcount64(share);
    return in_use > req ? in_use : req;
}

int gs_hist_gpu_milli(const struct gs_history *h, const struct gs_hist_state *st, int n, int g)
{
    if (g < 0 || g >= GS_HIST_MAX_GPUS)
        return 0;
    int milli = 0;
    for (int p = 0; p < h->npods; p++)
        if (st->pod_node[p] == n && (st->pod_mask[p] >> g) & 1u)
            milli += st->pod_milli[p];
    return milli;
}
