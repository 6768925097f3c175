/* gpusim: `gpusim describe TRACE NODE [--at D]`: one node as `kubectl describe node` shows it,
 * rebuilt from the trace alone by replaying its node_event rows up to a time: labels (sorted),
 * taints, unschedulable, capacity, allocatable, the kernel, the GPU Operator's pods on it
 * (READY and STATUS as `kubectl get pods` prints them) and the workload pods bound there.
 *
 * Row kinds read (sim/cluster/nodes.c and the GPU Operator controller write them): Joined (subject pool, value kernel),
 * Label (subject key, value; NULL value = removed), Taint (subject "key=value:Effect", value
 * "true"/"false"), Cordon (value "true"/"false"), Capacity and Allocatable (subject resource,
 * value quantity), Operand (subject DaemonSet, value "READY STATUS"; NULL = no pod), Kernel
 * (value), Reboot (value: the kernel it reboots into), Deleted.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/quantity.h"
#include "reports/open.h"
#include "reports/report.h"
#include "sim/trace.h"
#include "models/world.h"
#include "reports/describe_devices.h"

/* The node's string maps (labels, taints, resources, operands) are gs_labels kept in the
 * view's arena: sorted by key, as kubectl describe prints them. A NULL value removes the key. */
static int smap_set(struct gs_labels *m, struct gs_arena *a, const char *k, const char *v)
{
    if (!v) {
        gs_labels_del(m, k);
        return 0;
    }
    return gs_labels_set(m, a, k, v);
}

struct node_view {
    struct gs_labels labels, taints, capacity, allocatable, operands, since;
    struct gs_arena arena;
    char *pool, *kernel;
    int joined, deleted, unschedulable, rebooting;
    int64_t joined_us;
};

static void view_free(struct node_view *v)
{
    gs_arena_free(&v->arena);
    gs_free(v->pool);
    gs_free(v->kernel);
}

static int set_str(char **dst, const char *s)
{
    gs_free(*dst);
    *dst = s ? gs_strdup(s) : NULL;
    return s && !*dst ? GS_ENOMEM : 0;
}

/* Replay node `id`'s rows up to at_us into v. */
static int replay(sqlite3 *db, int64_t id, int64_t at_us, struct node_view *v)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT t_us, kind, subject, value FROM node_event WHERE node_id = ?1 AND t_us <= ?2"
                           " ORDER BY t_us, rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, at_us);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 0);
        const char *kind = (const char *)sqlite3_column_text(st, 1);
        const char *subj = (const char *)sqlite3_column_text(st, 2);
        const char *val = (const char *)sqlite3_column_text(st, 3);
        if (!kind)
            continue;
        if (strcmp(kind, "Joined") == 0) {
            v->joined = 1;
            v->joined_us = t;
            rc = set_str(&v->pool, subj);
            if (rc == 0)
                rc = set_str(&v->kernel, val);
        } else if (strcmp(kind, "Label") == 0 && subj) {
            rc = smap_set(&v->labels, &v->arena, subj, val);
        } else if (strcmp(kind, "Taint") == 0 && subj) {
            rc = smap_set(&v->taints, &v->arena, subj, val && strcmp(val, "true") == 0 ? "" : NULL);
        } else if (strcmp(kind, "Cordon") == 0) {
            v->unschedulable = val && strcmp(val, "true") == 0;
        } else if (strcmp(kind, "Capacity") == 0 && subj) {
            rc = smap_set(&v->capacity, &v->arena, subj, val && strcmp(val, "0") != 0 ? val : NULL);
        } else if (strcmp(kind, "Allocatable") == 0 && subj) {
            /* kubelet keeps a registered extended resource at 0 in allocatable while its
             * capacity is there: keep 0 when the capacity says so. */
            rc = smap_set(&v->allocatable, &v->arena, subj, val);
        } else if (strcmp(kind, "Operand") == 0 && subj) {
            char since[32];
            snprintf(since, sizeof since, "%" PRId64, t);
            rc = smap_set(&v->operands, &v->arena, subj, val);
            if (rc == 0)
                rc = smap_set(&v->since, &v->arena, subj, val ? since : NULL);
        } else if (strcmp(kind, "Kernel") == 0) {
            rc = set_str(&v->kernel, val);
            v->rebooting = 0;
        } else if (strcmp(kind, "Reboot") == 0) {
            v->rebooting = 1;
        } else if (strcmp(kind, "Deleted") == 0) {
            v->deleted = 1;
        }
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = GS_ESQL;
    sqlite3_finalize(st);
    return rc;
}

static void print_resources(FILE *out, const char *title, const struct gs_labels *m, const struct gs_labels *cap)
{
    fprintf(out, "%s\n", title);
    int w = 0;
    for (int i = 0; i < m->n; i++) {
        int l = (int)strlen(m->kv[i].key) + 1;
        if (l > w)
            w = l;
    }
    if (w < 18)
        w = 18;
    for (int i = 0; i < m->n; i++) {
        /* An allocatable 0 whose capacity is gone is no longer reported by the kubelet. */
        if (cap && strcmp(m->kv[i].value, "0") == 0 && !gs_labels_get(cap, m->kv[i].key))
            continue;
        fprintf(out, "  %s:%*s%s\n", m->kv[i].key, w - (int)strlen(m->kv[i].key), "", m->kv[i].value);
    }
}

static int print_pods(sqlite3 *db, int64_t id, int64_t at_us, FILE *out)
{
    sqlite3_stmt *st;
    /* Bound at that time and not yet finished. */
    if (sqlite3_prepare_v2(db,
                           "SELECT name, coalesce(gpu, 0), cpu_m, memory_b, started_us FROM pod"
                           " WHERE node_id = ?1 AND scheduled_us IS NOT NULL AND scheduled_us <= ?2"
                           " AND (finished_us IS NULL OR finished_us > ?2) ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, at_us);
    struct row {
        char *name;
        int64_t gpu, cpu, mem;
        int running;
    } *rows = NULL;
    int n = 0, cap = 0, rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (GS_GROW(rows, cap, n + 1)) {
            rc = GS_ENOMEM;
            break;
        }
        const char *nm = (const char *)sqlite3_column_text(st, 0);
        rows[n].name = gs_strdup(nm ? nm : "?");
        rows[n].gpu = sqlite3_column_int64(st, 1);
        rows[n].cpu = sqlite3_column_int64(st, 2);
        rows[n].mem = sqlite3_column_int64(st, 3);
        rows[n].running = sqlite3_column_type(st, 4) != SQLITE_NULL && sqlite3_column_int64(st, 4) <= at_us;
        if (!rows[n].name) {
            rc = GS_ENOMEM;
            break;
        }
        n++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = GS_ESQL;
    sqlite3_finalize(st);
    if (rc == 0) {
        fprintf(out, "Non-terminated Pods:  (%d in total)\n", n);
        if (n > 0) {
            int w = 4;
            for (int i = 0; i < n; i++)
                if ((int)strlen(rows[i].name) > w)
                    w = (int)strlen(rows[i].name);
            fprintf(out, "  %-*s  %-9s  %-12s  %-16s  %s\n", w, "Name", "Status", "CPU Requests",
                    "Memory Requests", "nvidia.com/gpu");
            for (int i = 0; i < n; i++) {
                char cpu[32], mem[32];
                if (rows[i].cpu % 1000 == 0)
                    snprintf(cpu, sizeof cpu, "%" PRId64, rows[i].cpu / 1000);
                else
                    snprintf(cpu, sizeof cpu, "%" PRId64 "m", rows[i].cpu);
                if (rows[i].mem != 0 && rows[i].mem % (1024 * 1024) == 0)
                    snprintf(mem, sizeof mem, "%" PRId64 "Mi", rows[i].mem / (1024 * 1024));
                else
                    snprintf(mem, sizeof mem, "%" PRId64, rows[i].mem);
                fprintf(out, "  %-*s  %-9s  %-12s  %-16s  %" PRId64 "\n", w, rows[i].name,
                        rows[i].running ? "Running" : "Pending", cpu, mem, rows[i].gpu);
            }
        }
    }
    for (int i = 0; i < n; i++)
        gs_free(rows[i].name);
    gs_free(rows);
    return rc;
}

int gs_report_describe(const char *trace_path, const char *node, int64_t at_us, FILE *out, char *errbuf,
                       int errlen)
{
    if (!trace_path || !node || !out)
        return gs_report_error(errbuf, errlen, GS_EINVAL, "gs_report_describe: invalid argument");
    sqlite3 *db = NULL;
    int rc = gs_report_open(trace_path, &db, errbuf, errlen);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = NULL;
    if ((rc = gs_report_check_time(db, trace_path, "--at", at_us, errbuf, errlen)) != 0) {
        sqlite3_close(db);
        return rc;
    }
    /* The node, and the time: the end of the run unless --at. */
    int64_t id = -1;
    if (rc == 0) {
        if (sqlite3_prepare_v2(db, "SELECT id FROM node WHERE name = ?1", -1, &st, NULL) != SQLITE_OK) {
            rc = gs_report_error(errbuf, errlen, GS_ESQL, "trace '%s': %s", trace_path, sqlite3_errmsg(db));
        } else {
            sqlite3_bind_text(st, 1, node, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW)
                id = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
            if (id < 0)
                rc = gs_report_error(errbuf, errlen, GS_EINVAL, "trace '%s' has no node named '%s'", trace_path, node);
        }
    }
    if (rc == 0 && at_us < 0) {
        at_us = INT64_MAX;
        if (sqlite3_prepare_v2(db,
                               /* An incomplete trace is described where it is complete (its pods
                                * are as of then too: reports/open.h); a killed one has no end_us. */
                               "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM run WHERE key = 'complete_until_us'"
                               " AND coalesce((SELECT value FROM run WHERE key = 'status'), '') <> 'complete'"
                               " AND CAST(value AS INTEGER) >= 0),"
                               " (SELECT CAST(value AS INTEGER) FROM run WHERE key = 'end_us'),"
                               " (SELECT max(t_us) FROM node_event))",
                               -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
            at_us = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    struct node_view v = {0};
    if (rc == 0 && (rc = replay(db, id, at_us, &v)) != 0)
        rc = gs_report_error(errbuf, errlen, rc, "trace '%s': %s", trace_path, rc == GS_ENOMEM ? "out of memory" : sqlite3_errmsg(db));
    char t[64];
    if (at_us == INT64_MAX)
        snprintf(t, sizeof t, "end");
    else if (gs_duration_format(at_us, t, sizeof t) < 0)
        snprintf(t, sizeof t, "%" PRId64 "us", at_us);
    if (rc == 0 && !v.joined) {
        int64_t rows = 0;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM node_event WHERE node_id = ?1", -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, id);
            if (sqlite3_step(st) == SQLITE_ROW)
                rows = sqlite3_column_int64(st, 0);
        }
        sqlite3_finalize(st);
        if (rows == 0)
            rc = gs_report_error(errbuf, errlen, GS_EINVAL,
                     "trace '%s' has no node events for '%s' (written with --trace-level summary?)", trace_path, node);
        else
            rc = gs_report_error(errbuf, errlen, GS_EINVAL, "node '%s' had not joined at %s", node, t);
    }
    if (rc == 0) {
        fprintf(out, "Name:               %s\n", node);
        fprintf(out, "At:                 %s\n", t);
        fprintf(out, "Pool:               %s\n", v.pool ? v.pool : "<none>");
        if (v.deleted)
            fprintf(out, "Deleted:            true\n");
        for (int i = 0; i < v.labels.n; i++)
            fprintf(out, "%s%s=%s\n", i == 0 ? "Labels:             " : "                    ", v.labels.kv[i].key,
                    v.labels.kv[i].value);
        if (v.labels.n == 0)
            fprintf(out, "Labels:             <none>\n");
        for (int i = 0; i < v.taints.n; i++)
            fprintf(out, "%s%s\n", i == 0 ? "Taints:             " : "                    ", v.taints.kv[i].key);
        if (v.taints.n == 0)
            fprintf(out, "Taints:             <none>\n");
        fprintf(out, "Unschedulable:      %s\n", v.unschedulable ? "true" : "false");
        fprintf(out, "Ready:              %s\n", v.deleted ? "False" : v.rebooting ? "False (rebooting)" : "True");
        print_resources(out, "Capacity:", &v.capacity, NULL);
        print_resources(out, "Allocatable:", &v.allocatable, &v.capacity);
        fprintf(out, "System Info:\n  Kernel Version:     %s\n", v.kernel ? v.kernel : "<unknown>");
        if (v.operands.n > 0) {
            int w = 4;
            for (int i = 0; i < v.operands.n; i++)
                if ((int)strlen(v.operands.kv[i].key) > w)
                    w = (int)strlen(v.operands.kv[i].key);
            fprintf(out, "GPU Operator Pods:    (%d in total)\n", v.operands.n);
            fprintf(out, "  %-*s  %-5s  %-18s  %s\n", w, "Name", "Ready", "Status", "Since");
            for (int i = 0; i < v.operands.n; i++) {
                const char *val = v.operands.kv[i].value;
                const char *sp = strchr(val, ' ');
                char ready[16];
                snprintf(ready, sizeof ready, "%.*s", sp ? (int)(sp - val) : 0, val);
                char since[64] = "?";
                const char *t0 = gs_labels_get(&v.since, v.operands.kv[i].key);
                if (t0)
                    gs_duration_format(strtoll(t0, NULL, 10), since, sizeof since);
                fprintf(out, "  %-*s  %-5s  %-18s  %s\n", w, v.operands.kv[i].key, ready, sp ? sp + 1 : val, since);
            }
        }
        rc = gs_describe_devices(db, id, at_us, out); /* GPUs, MIG instances, shares */
        if (rc == 0)
            rc = print_pods(db, id, at_us, out);
        if (rc)
            rc = gs_report_error(errbuf, errlen, rc, "trace '%s': %s", trace_path, sqlite3_errmsg(db));
    }
    view_free(&v);
    sqlite3_close(db);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the description of '%s'", node);
    return rc;
}
