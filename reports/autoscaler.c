/* gpusim: the Cluster Autoscaler's decisions in a trace (reports/autoscaler.h). */
#include "reports/autoscaler.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "models/quantity.h"
#include "reports/open.h"

/* Rows listed in the summary before "... and N more". */
#define AS_LIST_MAX 20

static int sql_fail(sqlite3 *db, sqlite3_stmt *st, char *errbuf, int errlen)
{
    sqlite3_finalize(st);
    return gs_report_error(errbuf, errlen, GS_ESQL, "trace: %s", sqlite3_errmsg(db));
}

int gs_report_autoscaler_counts(sqlite3 *db, struct gs_autoscaler_counts *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM run WHERE key LIKE 'nodeGroup.%'", -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    int groups = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (groups < 0)
        return GS_ESQL;
    if (groups == 0)
        return 0;
    /* "ScaleUp: <from>-><to> ..." and "ScaleDown: <from>-><to> ..." (sim/controllers/autoscaler.c) */
    if (sqlite3_prepare_v2(db,
                           "SELECT status, message FROM object WHERE kind = 'NodeGroup' AND status IN "
                           "('ScaleUp', 'ScaleDown') ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 0);
        const char *msg = (const char *)sqlite3_column_text(st, 1);
        bool up = status && strcmp(status, "ScaleUp") == 0;
        long long from = 0, to = 0;
        if (msg && sscanf(msg, up ? "ScaleUp: %lld->%lld" : "ScaleDown: %lld->%lld", &from, &to) != 2)
            from = to = 0;
        if (up) {
            out->scale_ups++;
            out->nodes_added += to - from;
        } else {
            out->scale_downs++;
            out->nodes_removed += from - to;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 1 : GS_ESQL;
}

/* A duration in whole seconds, as Go prints it: "10m0s", "1h2m3s" (models/quantity.h). */
static void fmt_time(int64_t us, char *buf, size_t n)
{
    gs_duration_format(us - us % 1000000, buf, n);
}

int gs_report_autoscaler(sqlite3 *db, FILE *out, char *errbuf, int errlen)
{
    struct gs_autoscaler_counts n;
    int rc = gs_report_autoscaler_counts(db, &n);
    if (rc < 0)
        return gs_report_error(errbuf, errlen, GS_ESQL, "trace: %s", sqlite3_errmsg(db));
    if (rc == 0)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT substr(key, 11), value FROM run WHERE key LIKE 'nodeGroup.%' ORDER BY key",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, NULL, errbuf, errlen);
    fputs("\nAutoscaler (node groups", out);
    int i = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        fprintf(out, "%s %s %s", i++ ? "," : "", (const char *)sqlite3_column_text(st, 0),
                (const char *)sqlite3_column_text(st, 1));
    if (rc != SQLITE_DONE)
        return sql_fail(db, st, errbuf, errlen);
    sqlite3_finalize(st);
    fprintf(out, "): %" PRId64 " scale-up%s (+%" PRId64 " nodes), %" PRId64 " scale-down%s (-%" PRId64 " nodes)\n",
            n.scale_ups, n.scale_ups == 1 ? "" : "s", n.nodes_added, n.scale_downs, n.scale_downs == 1 ? "" : "s",
            n.nodes_removed);
    if (sqlite3_prepare_v2(db,
                           "SELECT t_us, name, message FROM object WHERE kind = 'NodeGroup' ORDER BY t_us, rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, NULL, errbuf, errlen);
    int64_t shown = 0, total = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (total++ >= AS_LIST_MAX)
            continue;
        char t[32];
        fmt_time(sqlite3_column_int64(st, 0), t, sizeof t);
        fprintf(out, "  %-8s %s  %s\n", t, (const char *)sqlite3_column_text(st, 1),
                (const char *)sqlite3_column_text(st, 2));
        shown++;
    }
    if (rc != SQLITE_DONE)
        return sql_fail(db, st, errbuf, errlen);
    sqlite3_finalize(st);
    if (total > shown)
        fprintf(out, "  ... and %" PRId64 " more\n", total - shown);
    return ferror(out) ? gs_report_error(errbuf, errlen, GS_EIO, "cannot write the summary") : 0;
}
