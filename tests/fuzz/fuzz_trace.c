/* libFuzzer target: the trace readers (reports/report.h) on a damaged trace database. The
 * input bytes are written to a file in the target's temporary directory and read as a trace
 * by the summary (`gpusim report`), the failed-checks count, and `gpusim describe node` for
 * the first two nodes the damaged file still names (or a fixed name), at the end of the run
 * and at 1 minute. Output goes to /dev/null; error texts must be printable.
 * Seeds: tests/fuzz/corpus/trace (traces of small scenarios, vacuumed to 512-byte pages);
 * no dictionary (the mutations that matter are SQLite's page structure). */
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "reports/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Up to two node names from the damaged trace (what a user would pass to describe). */
static int node_names(const char *path, char names[2][64])
{
    sqlite3 *db = NULL;
    int n = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, "SELECT name FROM node ORDER BY id LIMIT 2", -1, &st, NULL) == SQLITE_OK) {
            while (n < 2 && sqlite3_step(st) == SQLITE_ROW) {
                const unsigned char *t = sqlite3_column_text(st, 0);
                if (t) {
                    snprintf(names[n], 64, "%s", (const char *)t);
                    n++;
                }
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (n == 0)
        snprintf(names[n++], 64, "%s", "gpu-0");
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    char path[512];
    fuzz_write("trace.db", data, size, path, sizeof path);
    char msg[1024];
    msg[0] = '\0';
    if (gs_report_summary(path, devnull, msg, sizeof msg) != 0)
        fuzz_check_message("the summary's error", msg);
    (void)gs_report_checks_failed(path);
    char names[2][64];
    int n = node_names(path, names);
    for (int i = 0; i < n; i++) {
        static const int64_t at[] = {-1, 60 * 1000000};
        for (int k = 0; k < 2; k++) {
            msg[0] = '\0';
            if (gs_report_describe(path, names[i], at[k], devnull, msg, sizeof msg) != 0)
                fuzz_check_message("describe's error", msg);
        }
    }
    return 0;
}
