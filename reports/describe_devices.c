/* gpusim: the Devices section of `gpusim describe` (describe_devices.h): GPUs, MIG instances and
 * GPU shares with their owners, rebuilt from the trace's Mig rows and GpuAllocated pod events
 * (written by sim/devices_run.c). */
#include "reports/describe_devices.h"

#include <stdlib.h>
#include <string.h>

#include "gpusim/error.h"
#include "gpusim/gpushare.h"

#define MAX_GPUS 64

int gs_describe_devices(sqlite3 *db, int64_t id, int64_t at_us, FILE *out)
{
    sqlite3_stmt *st = NULL;
    int ngpu = 0;
    char product[128] = "";
    if (sqlite3_prepare_v2(db, "SELECT gpu_count, gpu_product FROM node WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        ngpu = sqlite3_column_int(st, 0);
        const unsigned char *p = sqlite3_column_text(st, 1);
        if (p)
            snprintf(product, sizeof product, "%s", (const char *)p);
    }
    sqlite3_finalize(st);
    if (ngpu <= 0)
        return 0;
    if (ngpu > MAX_GPUS)
        ngpu = MAX_GPUS;
    char *mig[MAX_GPUS] = {0};
    int used[MAX_GPUS] = {0};
    char *owners[MAX_GPUS] = {0};
    int rc = 0;
    /* MIG layouts: the last Mig row per GPU up to the time. */
    if (sqlite3_prepare_v2(db,
                           "SELECT subject, value FROM node_event WHERE node_id = ?1 AND kind = 'Mig' AND t_us <= ?2"
                           " ORDER BY t_us, rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, at_us);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
        int g = s && strncmp(s, "GPU ", 4) == 0 ? atoi(s + 4) : -1;
        if (g < 0 || g >= ngpu || !v)
            continue;
        free(mig[g]);
        mig[g] = strdup(v);
    }
    sqlite3_finalize(st);
    /* Pods holding GPUs at the time. */
    if (sqlite3_prepare_v2(db,
                           "SELECT p.name, e.message FROM pod_event e JOIN pod p ON p.id = e.pod_id"
                           " WHERE e.reason = 'GpuAllocated' AND e.t_us <= ?2 AND p.node_id = ?1"
                           " AND (p.finished_us IS NULL OR p.finished_us < 0 OR p.finished_us > ?2)"
                           " ORDER BY e.t_us, p.id",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = GS_ESQL;
        goto done;
    }
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, at_us);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0), *m = (const char *)sqlite3_column_text(st, 1);
        const char *gp = m ? strstr(m, " gpu=") : NULL, *mp = m ? strstr(m, " milli=") : NULL;
        if (!name || !gp || !mp)
            continue;
        int milli = atoi(mp + 7);
        for (const char *c = gp + 5; *c >= '0' && *c <= '9';) {
            char *end;
            long g = strtol(c, &end, 10);
            if (g >= 0 && g < ngpu) {
                used[g] += milli;
                size_t len = owners[g] ? strlen(owners[g]) : 0;
                char *o = realloc(owners[g], len + strlen(name) + 32);
                if (!o) {
                    rc = GS_ENOMEM;
                    break;
                }
                snprintf(o + len, strlen(name) + 32, "%s%s %dm", len ? ", " : "", name, milli);
                owners[g] = o;
            }
            c = *end == ',' ? end + 1 : end;
            if (end == c && *c != ',')
                break;
        }
    }
    sqlite3_finalize(st);
    fprintf(out, "Devices:              (%d GPUs%s%s)\n", ngpu, product[0] ? " " : "", product);
    for (int g = 0; g < ngpu; g++) {
        const char *layout = mig[g] ? mig[g] : "MIG disabled";
        if (owners[g])
            fprintf(out, "  GPU %-3d %-28s free %4dm  %s\n", g, layout, GS_GPU_MILLI - used[g], owners[g]);
        else
            fprintf(out, "  GPU %-3d %-28s free %4dm\n", g, layout, GS_GPU_MILLI);
    }
done:
    for (int g = 0; g < MAX_GPUS; g++) {
        free(mig[g]);
        free(owners[g]);
    }
    return rc;
}
