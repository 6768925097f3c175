/* gpusim: opening a trace for reading, shared by every report (reports/open.c). */
#ifndef GPUSIM_REPORTS_OPEN_H
#define GPUSIM_REPORTS_OPEN_H

#include <sqlite3.h>

/* Open the trace at `path` (a path, never an SQLite URI: sim/trace.h gs_trace_db_open)
 * read-only and check that it is a gpusim trace this build reads: application_id
 * GS_TRACE_APPLICATION_ID (or 0 with a `run` table: traces written before the id existed)
 * and a schema version from 1 to GS_TRACE_SCHEMA_VERSION.
 * Returns 0 and sets *db (caller closes it with sqlite3_close), or GS_EIO (cannot open or
 * read), GS_EINVAL (not a gpusim trace), GS_ENOTSUP (a newer schema), GS_ENOMEM, with
 * errbuf (size errlen; may be NULL) saying why; *db is NULL then. */
int gs_report_open(const char *path, sqlite3 **db, char *errbuf, int errlen);

#endif
