/* reports/history.c: the events of a trace in order and the GPU holdings after each, checked
 * against what the run itself wrote: its `sample` rows (GPUs allocated per node pool, by the run's
 * own count, sim/metrics.c) and its pod rows. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/history.h"
#include "run_scenario.h"
#include "reports/open.h"
#include "sim/run.h"
#include "sim/scenario.h"

static void run_to(const char *scenario, const char *trace)
{
    gs_test_run_file(scenario, trace, GS_TRACE_EVENTS);
}

static sqlite3 *open_trace(const char *path)
{
    sqlite3 *db = NULL;
    char ebuf[256] = "";
    cr_assert(eq(int, gs_report_open(path, &db, ebuf, sizeof ebuf), 0), "%s", ebuf);
    return db;
}

/* Per pool (and '' for the cluster), at every sample time, the GPUs allocated of the pool's nodes
 * after every event at or before that time, or before any event at that instant (a periodic
 * sample is taken at its instant between the events of that instant), must equal the sample's.
 * Returns the number of sample rows compared. */
static int check_samples(const char *scenario, sqlite3 *db, const struct gs_history *h)
{
    sqlite3_stmt *st;
    cr_assert(eq(int, sqlite3_prepare_v2(db, "SELECT t_us, pool, gpus_allocated, gpus_allocatable FROM sample "
                                             "ORDER BY t_us, pool",
                                         -1, &st, NULL),
                  SQLITE_OK));
    struct gs_hist_state after, before;
    cr_assert(eq(int, gs_hist_state_init(h, &after), 0));
    cr_assert(eq(int, gs_hist_state_init(h, &before), 0));
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 0);
        const char *pool = (const char *)sqlite3_column_text(st, 1);
        int64_t want = sqlite3_column_int64(st, 2);
        int64_t want_alloc = sqlite3_column_int64(st, 3);
        gs_hist_state_advance(h, &after, gs_history_upto(h, t));
        gs_hist_state_advance(h, &before, gs_history_upto(h, t - 1));
        int64_t got_after = 0, got_before = 0, alloc_after = 0, alloc_before = 0;
        for (int n = 0; n < h->nnodes; n++) {
            if (pool[0] && strcmp(h->nodes[n].pool, pool) != 0)
                continue;
            got_after += gs_hist_node_allocated(h, &after, n);
            got_before += gs_hist_node_allocated(h, &before, n);
            alloc_after += after.node_allocatable[n];
            alloc_before += before.node_allocatable[n];
        }
        cr_expect(want == got_after || want == got_before,
                  "%s: sample at %lld us, pool '%s': gpus_allocated %lld, history %lld (after the instant) / %lld "
                  "(before it)",
                  scenario, (long long)t, pool, (long long)want, (long long)got_after, (long long)got_before);
        cr_expect(want_alloc == alloc_after || want_alloc == alloc_before,
                  "%s: sample at %lld us, pool '%s': gpus_allocatable %lld, history %lld / %lld", scenario,
                  (long long)t, pool, (long long)want_alloc, (long long)alloc_after, (long long)alloc_before);
        rows++;
    }
    sqlite3_finalize(st);
    gs_hist_state_free(&after);
    gs_hist_state_free(&before);
    return rows;
}

/* Every scenario under scenarios/ (teaching and planning): the history agrees with the samples. */
Test(history, agrees_with_samples_in_every_scenario, .timeout = 600)
{
    const char *dirs[] = {GPUSIM_SOURCE_DIR "/scenarios/teaching", GPUSIM_SOURCE_DIR "/scenarios/planning"};
    char trace[128];
    snprintf(trace, sizeof trace, "/tmp/gpusim-test-history-%d.db", (int)getpid());
    int scenarios = 0, rows = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        DIR *dir = opendir(dirs[d]);
        cr_assert(dir != NULL, "%s", dirs[d]);
        struct dirent *de;
        while ((de = readdir(dir)) != NULL) {
            size_t len = strlen(de->d_name);
            if (len < 6 || strcmp(de->d_name + len - 5, ".yaml") != 0)
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], de->d_name);
            run_to(path, trace);
            sqlite3 *db = open_trace(trace);
            struct gs_history h;
            char ebuf[256] = "";
            cr_assert(eq(int, gs_history_load(db, &h, ebuf, sizeof ebuf), 0), "%s: %s", path, ebuf);
            rows += check_samples(path, db, &h);
            gs_history_free(&h);
            sqlite3_close(db);
            unlink(trace);
            scenarios++;
        }
        closedir(dir);
    }
    cr_expect(gt(int, scenarios, 30));
    cr_expect(gt(int, rows, 1000));
}

/* gang-deadlock: the step where the fourth trainer binds holds all 32 GPUs, 8 slots per node,
 * each slot held by exactly one pod at 1000 milli; the pending pods hold nothing. */
Test(history, gang_deadlock_slots)
{
    char trace[128];
    snprintf(trace, sizeof trace, "/tmp/gpusim-test-history-gd-%d.db", (int)getpid());
    run_to(GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock.yaml", trace);
    sqlite3 *db = open_trace(trace);
    struct gs_history h;
    char ebuf[256] = "";
    cr_assert(eq(int, gs_history_load(db, &h, ebuf, sizeof ebuf), 0), "%s", ebuf);
    cr_assert(eq(int, h.nnodes, 4));
    cr_assert(eq(int, h.npods, 7));
    /* The bind of trainer-b-1 (pod 3) and its GPU row. */
    int bind = -1, dev = -1;
    for (int i = 0; i < h.nevents; i++) {
        if (h.events[i].pod == 3 && h.events[i].effect == GS_HIST_BIND)
            bind = i;
        if (h.events[i].pod == 3 && h.events[i].effect == GS_HIST_DEVICES)
            dev = i;
    }
    cr_assert(gt(int, bind, 0));
    cr_assert(eq(int, dev, bind + 1));
    cr_assert(eq(str, (char *)h.events[bind].reason, "Scheduled"));
    cr_assert(eq(str, (char *)h.pods[3].name, "trainer-b-1"));
    cr_assert(eq(i64, h.events[bind].t_us, 3000000));
    cr_assert(eq(u64, h.events[dev].gpu_mask, 0xffu));
    cr_assert(eq(int, h.events[dev].milli, 1000));
    struct gs_hist_state st;
    cr_assert(eq(int, gs_hist_state_init(&h, &st), 0));
    gs_hist_state_advance(&h, &st, bind + 1);
    int64_t total = 0;
    for (int n = 0; n < h.nnodes; n++)
        total += gs_hist_node_allocated(&h, &st, n);
    cr_assert(eq(i64, total, 32));
    /* Slots are not known until the GpuAllocated row. */
    cr_assert(eq(u64, st.pod_mask[3], 0));
    gs_hist_state_advance(&h, &st, dev + 1);
    cr_assert(eq(u64, st.pod_mask[3], 0xffu));
    for (int n = 0; n < h.nnodes; n++)
        for (int g = 0; g < 8; g++)
            cr_expect(eq(int, gs_hist_gpu_milli(&h, &st, n, g), 1000), "node %d GPU %d", n, g);
    gs_hist_state_advance(&h, &st, h.nevents);
    for (int p = 4; p < 7; p++)
        cr_expect(eq(int, st.pod_node[p], -1), "pod %d", p);
    cr_expect(eq(int, gs_history_upto(&h, 4000000) > bind, 1));
    gs_hist_state_free(&st);
    gs_history_free(&h);
    sqlite3_close(db);
    unlink(trace);
}

/* A trace without event tables is refused with a reason. */
Test(history, summary_trace_refused)
{
    char trace[128];
    snprintf(trace, sizeof trace, "/tmp/gpusim-test-history-sum-%d.db", (int)getpid());
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert(eq(int, gs_scenario_load(GPUSIM_SOURCE_DIR "/scenarios/teaching/gang-deadlock.yaml", NULL, 0, -1, -1, &sc,
                                       &err),
                  0));
    struct gs_run_opts o = {.trace_path = trace, .trace_level = GS_TRACE_SUMMARY};
    struct gs_run_result res;
    char ebuf[256] = "";
    cr_assert(eq(int, gs_run(&sc, &o, &res, ebuf, sizeof ebuf), 0), "%s", ebuf);
    gs_scenario_free(&sc);
    sqlite3 *db = open_trace(trace);
    struct gs_history h;
    cr_assert(eq(int, gs_history_load(db, &h, ebuf, sizeof ebuf), GS_EINVAL));
    cr_assert(ne(ptr, strstr(ebuf, "--trace-level summary"), NULL), "%s", ebuf);
    sqlite3_close(db);
    unlink(trace);
}
