/* gpusim: opening a trace for reading, shared by every report (reports/open.c). */
#ifndef GPUSIM_REPORTS_OPEN_H
#define GPUSIM_REPORTS_OPEN_H

#include <sqlite3.h>
#include <stdint.h>

/* Open the trace at `path` (a path, never an SQLite URI: sim/trace.h gs_trace_db_open)
 * read-only and check that it is a gpusim trace this build reads: application_id
 * GS_TRACE_APPLICATION_ID (or 0 with a `run` table: traces written before the id existed)
 * and a schema version from 1 to GS_TRACE_SCHEMA_VERSION.
 * Anything but a regular file (or a symbolic link to one) is refused before SQLite reads it:
 * a FIFO would block for ever.
 * For a trace whose run.status is not complete, written with events, the connection's `pod`
 * is a TEMP table shadowing main.pod (unqualified names find TEMP first): each pod as of
 * run.complete_until_us (µs; all the trace holds when absent), its phase (Running / Pending),
 * scheduled_us, started_us, node_id and message derived from pod_event rows up to then, since
 * a killed run's pod rows are those written at creation (sim/cluster/pods.c rewrites a row
 * only when its pod ends, and every row at close); a pod whose row ended by then keeps it, and
 * pods created later are left out (docs/trace-schema.md, "How a run's end is marked").
 * Returns 0 and sets *db (caller closes it with sqlite3_close), or GS_EIO (cannot open or
 * read), GS_EINVAL (not a gpusim trace: not a regular file, empty, not SQLite, no tables, or
 * something else), GS_ENOTSUP (a newer schema), GS_ESQL (the pods cannot be derived),
 * GS_ENOMEM, with errbuf (size errlen; may be NULL) saying why; *db is NULL then. */
int gs_report_open(const char *path, sqlite3 **db, char *errbuf, int errlen);

/* The simulated time (µs) the trace at `db` covers up to: run.complete_until_us for a trace whose
 * run.status is not complete (when recorded and >= 0), else run.end_us, else the latest pod
 * creation or node event (a trace without either key), else 0. The one rule every report uses
 * for "the end of the run" (explain, get, describe, timeline --from, report --html --from). */
int64_t gs_report_run_end(sqlite3 *db);

/* Refuse a time `t_us` (µs) given with option `opt` ("--at", "--from") that is after the end of
 * the run (gs_report_run_end): a trace says nothing about it, so a report would invent ages and
 * states. Returns 0 when t_us <= the end (or t_us < 0: the default, the end), else GS_EINVAL with
 * errbuf (size errlen) saying "--at 99h0m0s is after the end of the run at 10m0s: trace 'T' holds
 * nothing later". */
int gs_report_check_time(sqlite3 *db, const char *trace, const char *opt, int64_t t_us, char *errbuf, int errlen);

/* Format a report's error into errbuf (size errlen; NULL or 0: nothing written) and return
 * `code`. The text is escaped with gs_error_quote (base/error.h): SQLite's messages about a
 * damaged trace quote its bytes. At most 1023 bytes of message before escaping. */
int gs_report_error(char *errbuf, int errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
