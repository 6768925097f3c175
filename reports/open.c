/* gpusim: opening a trace for reading, and what it says about its own completeness
 * (reports/open.h, reports/report.h). */
#include "reports/open.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "models/quantity.h"
#include "reports/report.h"
#include "sim/trace.h"

static int set_err(char *errbuf, int errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int set_err(char *errbuf, int errlen, int code, const char *fmt, ...)
{
    if (errbuf && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errbuf, (size_t)errlen, fmt, ap);
        va_end(ap);
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

int gs_report_open(const char *path, sqlite3 **db, char *errbuf, int errlen)
{
    *db = NULL;
    sqlite3 *d = NULL;
    int src = gs_trace_db_open(path, true, &d);
    if (src != SQLITE_OK) {
        int sys = d ? sqlite3_system_errno(d) : 0;
        int rc = set_err(errbuf, errlen, src == SQLITE_NOMEM ? GS_ENOMEM : GS_EIO, "cannot open trace '%s': %s",
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
            rc = set_err(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (not an SQLite database)", path);
        else
            rc = set_err(errbuf, errlen, GS_EIO, "cannot read trace '%s': %s%s%s", path, sqlite3_errmsg(d),
                         sys ? ": " : "", sys ? strerror(sys) : "");
    } else if (app != GS_TRACE_APPLICATION_ID &&
               (app != 0 || pragma_int(d, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'run'",
                                       &sqlrc) != 1)) {
        rc = set_err(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (an SQLite database of something else)",
                     path);
    } else if (version <= 0) {
        rc = set_err(errbuf, errlen, GS_EINVAL, "'%s' is not a gpusim trace (no schema version)", path);
    } else if (version > GS_TRACE_SCHEMA_VERSION) {
        rc = set_err(errbuf, errlen, GS_ENOTSUP, "trace '%s' has schema version %" PRId64 "; this gpusim reads versions up to %d",
                     path, version, GS_TRACE_SCHEMA_VERSION);
    }
    if (rc != 0) {
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
    int rc = gs_report_open(path, &db, errbuf, errlen);
    if (rc != 0)
        return rc;
    char until[32];
    int src = run_value(db, "status", s->status, sizeof s->status);
    if (src == SQLITE_OK)
        src = run_value(db, "complete_until_us", until, sizeof until);
    if (src != SQLITE_OK) {
        rc = set_err(errbuf, errlen, GS_ESQL, "trace '%s': %s", path, sqlite3_errmsg(db));
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
    if (s->complete_until_us < 0)
        snprintf(t, sizeof t, "no simulated time (no checkpoint was committed)");
    else if (gs_duration_format(s->complete_until_us, t, sizeof t) < 0)
        snprintf(t, sizeof t, "%" PRId64 "us", s->complete_until_us);
    snprintf(buf, n, "trace '%s' is incomplete: status %s%s; complete up to %s of simulated time", path,
             s->status, why, t);
}
