/* gpusim: opening a trace for reading, and what it says about its own completeness
 * (reports/open.h, reports/report.h). */
#include "reports/open.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "models/quantity.h"
#include "reports/report.h"
#include "sim/trace.h"

int gs_report_error(char *errbuf, int errlen, int code, const char *fmt, ...)
{
    if (errbuf && errlen > 0) {
        /* SQLite's messages quote the damaged file's bytes: escape them (gs_error_quote) */
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        gs_error_quote(msg, (size_t)-1, (size_t)-1, errbuf, (size_t)errlen);
    }
    return code;
}

/* The integer answer of a one-row query; -1 when it fails. */
static int64_t pragma_int(sqlite3 *db, const char *sql, int *sqlrc)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    *sqlrc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (*sqlrc == SQLITE_OK) {
        *sqlrc = sqlite3_step(st);
        if (*sqlrc == SQLITE_ROW) {
            v = sqlite3_column_int64(st, 0);
            *sqlrc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return v;
}

/* What kind of file a stat mode is, for the message refusing it. */
static const char *file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file";
}

/* gs_report_open without the pod view (pods_as_of); gs_report_trace_state needs only run. */
static int open_checked(const char *path, sqlite3 **db, char *errbuf, int errlen)
{
    *db = NULL;
    sqlite3 *d = NULL;
    /* SQLite would block for ever reading a FIFO and cannot use a device or socket: only a
     * regular file (or a symbolic link to one) is a trace. A path that does not exist is left
     * to SQLite, whose message names the cause. */
    struct stat sb;
    int have_stat = stat(path, &sb) == 0;
    if (have_stat && !S_ISREG(sb.st_mode))
        return gs_report_error(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (%s, not a regular file)", path,
                       file_kind(sb.st_mode));
    int src = gs_trace_db_open(path, true, &d);
    if (src != SQLITE_OK) {
        int sys = d ? sqlite3_system_errno(d) : 0;
        int rc = gs_report_error(errbuf, errlen, src == SQLITE_NOMEM ? GS_ENOMEM : GS_EIO, "cannot open trace '%s': %s",
                         path, sys ? strerror(sys) : d ? sqlite3_errmsg(d) : sqlite3_errstr(src));
        sqlite3_close(d);
        return rc;
    }
    int sqlrc;
    int64_t app = pragma_int(d, "PRAGMA application_id", &sqlrc);
    int64_t version = sqlrc == SQLITE_OK ? pragma_int(d, "PRAGMA user_version", &sqlrc) : -1;
    int rc = 0;
    if (sqlrc != SQLITE_OK) {
        int sys = sqlite3_system_errno(d);
        if (sqlite3_errcode(d) == SQLITE_NOTADB)
            rc = gs_report_error(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (not an SQLite database)", path);
        else
            rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot read trace '%s': %s%s%s", path, sqlite3_errmsg(d),
                         sys ? ": " : "", sys ? strerror(sys) : "");
    } else if (app != GS_TRACE_APPLICATION_ID &&
               (app != 0 || pragma_int(d, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'run'",
                                       &sqlrc) != 1)) {
        /* SQLite reads an empty file, and one too short to hold a database header, as an empty
         * database (0 pages, WAL included); a run stopped at once (a file size limit) leaves a
         * database with no tables. Say which rather than "something else". */
        int64_t pages = pragma_int(d, "PRAGMA page_count", &sqlrc);
        int64_t objects = pages > 0 ? pragma_int(d, "SELECT count(*) FROM sqlite_schema", &sqlrc) : 0;
        if (pages == 0 && have_stat && sb.st_size == 0)
            rc = gs_report_error(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (the file is empty)", path);
        else if (pages == 0)
            rc = gs_report_error(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (not an SQLite database)", path);
        else if (objects == 0)
            rc = gs_report_error(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (an empty SQLite database: no tables)",
                         path);
        else
            rc = gs_report_error(errbuf, errlen, GS_EINVAL,
                         "'%s' is not a gpusim trace (an SQLite database of something else)", path);
    } else if (version <= 0) {
        rc = gs_report_error(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (no schema version)", path);
    } else if (version > GS_TRACE_SCHEMA_VERSION) {
        rc = gs_report_error(errbuf, errlen, GS_ENOTSUP, "trace '%s' has schema version %" PRId64 "; this gpusim reads versions up to %d",
                     path, version, GS_TRACE_SCHEMA_VERSION);
    }
    if (rc != 0) {
        sqlite3_close(d);
        return rc;
    }
    *db = d;
    return 0;
}

/* Shadow main.pod with a TEMP table `pod` (unqualified names find TEMP first) holding each pod
 * as of `until_us` (INT64_MAX: all the trace holds), for a trace whose pod rows are not final
 * (gs_report_open). A pod whose row says it ended by then keeps that row: ending rewrites it
 * (sim/cluster/pods.c); every other pod created by then gets scheduled_us, node_id,
 * started_us, phase (Running once Started, else Pending) and message (its last
 * FailedScheduling while unbound) from its pod_event rows up to until_us. One pass over
 * pod_event: a killed trace has no index on it yet. Returns an SQLite result code. */
static int pods_as_of(sqlite3 *d, int64_t until_us)
{
    sqlite3_stmt *st = NULL;
    int src = sqlite3_exec(d,
                           "CREATE TEMP TABLE pod(id INTEGER PRIMARY KEY, name TEXT, workload TEXT, pod_group TEXT,"
                           " priority INT, cpu_m INT, memory_b INT, gpu INT, created_us INT, scheduled_us INT,"
                           " started_us INT, finished_us INT, node_id INT, phase TEXT, message TEXT)",
                           NULL, NULL, NULL);
    if (src != SQLITE_OK)
        return src;
    src = sqlite3_prepare_v2(
        d,
        "INSERT INTO temp.pod"
        " SELECT * FROM main.pod WHERE finished_us IS NOT NULL AND finished_us <= ?1"
        " UNION ALL"
        " SELECT p.id, p.name, p.workload, p.pod_group, p.priority, p.cpu_m, p.memory_b, p.gpu, p.created_us,"
        "  ev.sched, ev.started, NULL,"
        "  CASE WHEN ev.sched IS NOT NULL THEN coalesce((SELECT n.id FROM main.node n WHERE n.name ="
        "   (SELECT substr(s.message, instr(s.message, ' to ') + 4) FROM main.pod_event s"
        "    WHERE s.rowid = ev.sched_row)), p.node_id) END,"
        "  CASE WHEN ev.started IS NOT NULL THEN 'Running' ELSE 'Pending' END,"
        "  CASE WHEN ev.sched IS NULL THEN (SELECT f.message FROM main.pod_event f WHERE f.rowid = ev.fs_row) END"
        " FROM main.pod p LEFT JOIN (SELECT pod_id,"
        "   min(CASE WHEN reason = 'Scheduled' THEN t_us END) AS sched,"
        "   max(CASE WHEN reason = 'Scheduled' THEN rowid END) AS sched_row,"
        "   min(CASE WHEN reason = 'Started' THEN t_us END) AS started,"
        "   max(CASE WHEN reason = 'FailedScheduling' THEN rowid END) AS fs_row"
        "   FROM main.pod_event WHERE t_us <= ?1 GROUP BY pod_id) ev ON ev.pod_id = p.id"
        " WHERE p.created_us <= ?1 AND NOT (p.finished_us IS NOT NULL AND p.finished_us <= ?1)"
        " ORDER BY 1",
        -1, &st, NULL);
    if (src == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, until_us);
        src = sqlite3_step(st);
        if (src == SQLITE_DONE)
            src = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return src;
}

/* Whether the trace's pod rows need pods_as_of, and up to when: a trace that is not complete,
 * written with events (a summary-level trace has only its pod rows). *until_us is
 * run.complete_until_us, or INT64_MAX when no checkpoint said it. */
static int needs_pods_as_of(sqlite3 *d, bool *needed, int64_t *until_us)
{
    sqlite3_stmt *st = NULL;
    *needed = false;
    *until_us = INT64_MAX;
    int src = sqlite3_prepare_v2(d,
                                 "SELECT (SELECT value FROM main.run WHERE key = 'status'),"
                                 " (SELECT value FROM main.run WHERE key = 'trace_level'),"
                                 " (SELECT value FROM main.run WHERE key = 'complete_until_us'),"
                                 " (SELECT count(*) FROM main.sqlite_schema WHERE type = 'table'"
                                 "  AND name IN ('pod', 'pod_event', 'node'))",
                                 -1, &st, NULL);
    if (src == SQLITE_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        const char *status = (const char *)sqlite3_column_text(st, 0);
        const char *level = (const char *)sqlite3_column_text(st, 1);
        const char *until = (const char *)sqlite3_column_text(st, 2);
        *needed = (!status || strcmp(status, "complete") != 0) && !(level && strcmp(level, "summary") == 0) &&
                  sqlite3_column_int(st, 3) == 3;
        char *end = NULL;
        long long u = until ? strtoll(until, &end, 10) : -1;
        if (until && end != until && *end == '\0' && u >= 0)
            *until_us = u;
        src = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return src;
}

int gs_report_open(const char *path, sqlite3 **db, char *errbuf, int errlen)
{
    sqlite3 *d;
    int rc = open_checked(path, &d, errbuf, errlen);
    if (rc != 0)
        return rc;
    bool needed;
    int64_t until;
    int src = needs_pods_as_of(d, &needed, &until);
    if (src == SQLITE_OK && needed)
        src = pods_as_of(d, until);
    if (src != SQLITE_OK) {
        rc = gs_report_error(errbuf, errlen, src == SQLITE_NOMEM ? GS_ENOMEM : GS_ESQL, "trace '%s': %s", path,
                     sqlite3_errmsg(d));
        sqlite3_close(d);
        return rc;
    }
    *db = d;
    return 0;
}

/* run.value of `key` into buf (size n; "" when absent). Returns an SQLite result code. */
static int run_value(sqlite3 *db, const char *key, char *buf, size_t n)
{
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    int src = sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = ?1", -1, &st, NULL);
    if (src == SQLITE_OK) {
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        src = sqlite3_step(st);
        if (src == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(st, 0);
            snprintf(buf, n, "%s", v ? (const char *)v : "");
            src = SQLITE_OK;
        } else if (src == SQLITE_DONE) {
            src = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return src;
}

int gs_report_trace_state(const char *path, struct gs_report_state *s, char *errbuf, int errlen)
{
    memset(s, 0, sizeof *s);
    s->complete_until_us = -1;
    sqlite3 *db;
    int rc = open_checked(path, &db, errbuf, errlen);
    if (rc != 0)
        return rc;
    char until[32];
    int src = run_value(db, "status", s->status, sizeof s->status);
    if (src == SQLITE_OK)
        src = run_value(db, "complete_until_us", until, sizeof until);
    if (src != SQLITE_OK) {
        rc = gs_report_error(errbuf, errlen, GS_ESQL, "trace '%s': %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return rc;
    }
    sqlite3_close(db);
    if (!s->status[0])
        snprintf(s->status, sizeof s->status, "unknown");
    s->complete = strcmp(s->status, "complete") == 0;
    char *end;
    long long u = strtoll(until, &end, 10);
    if (until[0] && *end == '\0' && u >= 0)
        s->complete_until_us = u;
    return 0;
}

void gs_report_incomplete_note(const char *path, const struct gs_report_state *s, char *buf, size_t n)
{
    const char *why = strcmp(s->status, "running") == 0       ? " (the run was killed, or is still writing)"
                      : strcmp(s->status, "interrupted") == 0 ? " (the run was interrupted)"
                      : strcmp(s->status, "failed") == 0      ? " (the run failed)"
                                                              : "";
    char t[64];
    if (s->complete_until_us < 0) {
        snprintf(buf, n, "trace '%s' is incomplete: status %s%s; complete up to no simulated time (no checkpoint was"
                 " committed)", path, s->status, why);
        return;
    }
    if (gs_duration_format(s->complete_until_us, t, sizeof t) < 0)
        snprintf(t, sizeof t, "%" PRId64 "us", s->complete_until_us);
    snprintf(buf, n, "trace '%s' is incomplete: status %s%s; complete up to %s of simulated time", path,
             s->status, why, t);
}

int64_t gs_report_run_end(sqlite3 *db)
{
    char status[32], v[64];
    run_value(db, "status", status, sizeof status);
    if (strcmp(status, "complete") != 0) {
        run_value(db, "complete_until_us", v, sizeof v);
        if (v[0] && strtoll(v, NULL, 10) >= 0)
            return strtoll(v, NULL, 10);
    }
    run_value(db, "end_us", v, sizeof v);
    if (v[0])
        return strtoll(v, NULL, 10);
    int src;
    int64_t t = pragma_int(db,
                           "SELECT max(coalesce((SELECT max(created_us) FROM pod), 0),"
                           " coalesce((SELECT max(t_us) FROM node_event), 0))",
                           &src);
    return t < 0 ? 0 : t;
}

int gs_report_check_time(sqlite3 *db, const char *trace, const char *opt, int64_t t_us, char *errbuf, int errlen)
{
    if (t_us < 0)
        return 0;
    int64_t end = gs_report_run_end(db);
    if (t_us <= end)
        return 0;
    char a[64], b[64];
    if (gs_duration_format(t_us, a, sizeof a) < 0)
        snprintf(a, sizeof a, "%" PRId64 "us", t_us);
    if (gs_duration_format(end, b, sizeof b) < 0)
        snprintf(b, sizeof b, "%" PRId64 "us", end);
    return gs_report_error(errbuf, errlen, GS_EINVAL,
                           "%s %s is after the end of the run at %s: trace '%s' holds nothing later",
                           opt, a, b, trace);
}
