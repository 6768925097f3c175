/* Reading a trace in the tests: the rows of one query as text. */
#ifndef GPUSIM_TEST_TRACE_QUERY_H
#define GPUSIM_TEST_TRACE_QUERY_H

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>

/* Rows of `sql` on the trace at `path`, joined with '|' between columns and ';' between rows
 * (NULL as "NULL"), in a static buffer overwritten by the next call. */
static inline char *gs_test_query(const char *path, const char *sql)
{
    static char out[8192];
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    size_t n = 0;
    out[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", c ? "|" : (n ? ";" : ""), v ? v : "NULL");
            if (n >= sizeof out)
                n = sizeof out - 1;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

#endif
