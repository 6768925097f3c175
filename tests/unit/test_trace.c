/* Tests of the SQLite trace writer (sim/trace.c): the rows it writes, FailedScheduling
 * aggregation, trace levels, checkpoints, killed and failing runs, and the files: the partial
 * file renamed into place, the lock, the application_id, paths that look like URIs. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "sim/trace.h"

static char dir[64];
static char path[128];
static char partial[160]; /* path + ".partial", where an unfinished trace is */

static void setup(void)
{
    strcpy(dir, "/tmp/gs-trace-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.db", dir);
    snprintf(partial, sizeof partial, "%s.partial", path);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert(eq(int, system(cmd), 0));
}

TestSuite(trace, .init = setup, .fini = teardown);

static sqlite3 *open_ro(const char *p)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Column 0 of the first row as text; "<null>" for NULL. Static buffer. */
static const char *q_text(sqlite3 *db, const char *sql)
{
    static char buf[1024];
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    const char *s = (const char *)sqlite3_column_text(st, 0);
    snprintf(buf, sizeof buf, "%s", s ? s : "<null>");
    sqlite3_finalize(st);
    return buf;
}

static int file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static struct gs_trace *open_trace(const char *p, enum gs_trace_level level)
{
    struct gs_trace *t = NULL;
    char err[256] = "";
    int rc = gs_trace_open(p, level, &t, err, sizeof err);
    cr_assert_eq(rc, 0, "gs_trace_open: %d %s", rc, err);
    cr_assert_not_null(t);
    return t;
}

static const char MSG_A[] =
    "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: "
    "0/2 nodes are available: 2 No preemption victims found for incoming pod.";
static const char MSG_B[] =
    "0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}. "
    "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";

Test(trace, writes_every_table)
{
    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_run_kv(t, "scenario", "demo"), 0);
    cr_assert_eq(gs_trace_run_kv(t, "seed", "1"), 0);
    cr_assert_eq(gs_trace_run_kv(t, "seed", "42"), 0); /* replaces */
    cr_assert_eq(gs_trace_node(t, 0, "h100-0", "h100", "NVIDIA-H100-80GB-HBM3", 8), 0);
    cr_assert_eq(gs_trace_node(t, 1, "cpu-0", "cpu", NULL, 0), 0);
    cr_assert_eq(gs_trace_node_event(t, 0, 0, "Joined", NULL, NULL), 0);
    cr_assert_eq(gs_trace_node_event(t, GS_SEC(90), 0, "Allocatable", "nvidia.com/gpu", "8"), 0);

    struct gs_trace_pod p = {.id = 0,
                             .name = "train-0",
                             .workload = "train",
                             .pod_group = "g",
                             .priority = 100,
                             .cpu_m = 4000,
                             .memory_b = 17179869184LL,
                             .gpu = 8,
                             .created_us = 0,
                             .scheduled_us = GS_SEC(2),
                             .started_us = GS_SEC(5),
                             .finished_us = -1,
                             .node_id = 0,
                             .phase = "Running",
                             .message = NULL};
    cr_assert_eq(gs_trace_pod(t, &p), 0);
    struct gs_trace_pod q = {.id = 1,
                             .name = "train-1",
                             .workload = "train",
                             .pod_group = NULL,
                             .priority = 0,
                             .cpu_m = 500,
                             .memory_b = 1024,
                             .gpu = 4,
                             .created_us = GS_SEC(1),
                             .scheduled_us = -1,
                             .started_us = -1,
                             .finished_us = -1,
                             .node_id = -1,
                             .phase = "Pending",
                             .message = MSG_A};
    cr_assert_eq(gs_trace_pod(t, &q), 0);

    /* pod 1: A, A (folded), B (new), A (new: the previous one was B), interleaved with pod 0,
     * then Scheduled and A again (new: the previous event was not a FailedScheduling). */
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(1), 1, "Created", NULL), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(1), 1, "FailedScheduling", MSG_A), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(1), 0, "FailedScheduling", MSG_A), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(2), 1, "FailedScheduling", MSG_A), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(2), 0, "Scheduled", "assigned train-0 to h100-0"), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(4), 1, "FailedScheduling", MSG_A), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(8), 1, "FailedScheduling", MSG_B), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(9), 1, "FailedScheduling", MSG_A), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(10), 1, "Scheduled", "assigned"), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(11), 1, "FailedScheduling", MSG_A), 0);
    /* a pod id beyond the per-pod state grown so far */
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(12), 5000, "FailedScheduling", NULL), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(13), 5000, "FailedScheduling", NULL), 0);
    cr_assert_eq(gs_trace_pod_event(t, GS_SEC(13), -1, "Created", NULL), GS_EINVAL);

    struct gs_metrics s = {.t = GS_SEC(60),
                           .nodes_ready = 2,
                           .gpus_capacity = 8,
                           .gpus_allocatable = 8,
                           .gpus_allocated = 8,
                           .pods_pending = 1,
                           .pods_running = 1,
                           .frag_gpus = 0.5};
    cr_assert(eq(int, gs_trace_sample(t, "", &s), 0));
    s.nodes_ready = 1;
    cr_assert(eq(int, gs_trace_sample(t, "h100", &s), 0));
    cr_assert_eq(gs_trace_object(t, 0, "ClusterQueue", NULL, "team-a", "Rejected",
                                 "ClusterQueue \"team-a\" is invalid"),
                 0);
    cr_assert_eq(gs_trace_check(t, 0, 12, "pod train-0 phase Running", 1, NULL), 0);
    cr_assert_eq(gs_trace_check(t, 1, 15, "pod train-1 phase Running", 0, "phase is Pending"), 0);
    cr_assert_eq(gs_trace_close(t, "complete", GS_MIN(90)), 0);

    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    cr_assert(eq(int, file_exists(wal), 0), "a closed trace is one file");

    sqlite3 *db = open_ro(path);
    cr_assert_eq(q_int(db, "PRAGMA user_version"), GS_TRACE_SCHEMA_VERSION);
    cr_assert_str_eq(q_text(db, "PRAGMA journal_mode"), "delete");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'status'"), "complete");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'end_us'"), "5400000000");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'seed'"), "42");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'trace_level'"), "events");
    cr_assert_eq(q_int(db, "SELECT count(*) FROM run"), 5);

    cr_assert_eq(q_int(db, "SELECT count(*) FROM node"), 2);
    cr_assert_str_eq(q_text(db,
                            "SELECT name || ',' || pool || ',' || gpu_product || ',' || gpu_count"
                            " FROM node WHERE id = 0"),
                     "h100-0,h100,NVIDIA-H100-80GB-HBM3,8");
    cr_assert_eq(q_int(db, "SELECT gpu_product IS NULL AND gpu_count = 0 FROM node WHERE id = 1"),
                 1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM node_event"), 2);
    cr_assert_str_eq(q_text(db,
                            "SELECT t_us || ',' || node_id || ',' || kind || ',' || subject || ','"
                            " || value FROM node_event WHERE kind = 'Allocatable'"),
                     "90000000,0,Allocatable,nvidia.com/gpu,8");

    cr_assert_str_eq(q_text(db,
                            "SELECT name || ',' || workload || ',' || pod_group || ',' || priority"
                            " || ',' || cpu_m || ',' || memory_b || ',' || gpu || ',' || created_us"
                            " || ',' || scheduled_us || ',' || started_us || ',' || node_id || ','"
                            " || phase FROM pod WHERE id = 0"),
                     "train-0,train,g,100,4000,17179869184,8,0,2000000,5000000,0,Running");
    cr_assert_eq(q_int(db, "SELECT finished_us IS NULL AND message IS NULL FROM pod WHERE id = 0"),
                 1);
    cr_assert_eq(q_int(db,
                       "SELECT pod_group IS NULL AND scheduled_us IS NULL AND started_us IS NULL"
                       " AND node_id IS NULL FROM pod WHERE id = 1"),
                 1);
    cr_assert_str_eq(q_text(db, "SELECT message FROM pod WHERE id = 1"), MSG_A);

    /* pod 1's rows, in order: Created; A x3 (1s..4s); B; A; Scheduled; A */
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod_event WHERE pod_id = 1"), 6);
    /* A and B differ from character 28 on: "Insufficient" or "node(s) had " */
    cr_assert_str_eq(
        q_text(db, "SELECT group_concat(reason || ':' || t_us || '-' || last_us || 'x'"
                   " || count || ':' || CASE substr(message, 28, 12)"
                   " WHEN 'Insufficient' THEN 'A' WHEN 'node(s) had ' THEN 'B'"
                   " ELSE coalesce(message, '-') END, ' ')"
                   " FROM (SELECT * FROM pod_event WHERE pod_id = 1 ORDER BY rowid)"),
        "Created:1000000-1000000x1:- FailedScheduling:1000000-4000000x3:A "
        "FailedScheduling:8000000-8000000x1:B FailedScheduling:9000000-9000000x1:A "
        "Scheduled:10000000-10000000x1:assigned FailedScheduling:11000000-11000000x1:A");
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod_event WHERE message = (SELECT message FROM pod"
                           " WHERE id = 1)"),
                 4, "the messages are stored whole");
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod_event WHERE pod_id = 0"), 2);
    cr_assert_str_eq(q_text(db, "SELECT count || ',' || last_us || ',' || (message IS NULL)"
                                " FROM pod_event WHERE pod_id = 5000"),
                     "2,13000000,1");

    cr_assert_eq(q_int(db, "SELECT count(*) FROM sample"), 2);
    cr_assert_str_eq(
        q_text(db, "SELECT t_us || ',' || nodes_ready || ',' || gpus_capacity || ','"
                   " || gpus_allocatable || ',' || gpus_allocated || ',' || pods_pending"
                   " || ',' || pods_running || ',' || frag_gpus FROM sample WHERE pool = ''"),
        "60000000,2,8,8,8,1,1,0.5");
    cr_assert_eq(q_int(db, "SELECT nodes_ready FROM sample WHERE pool = 'h100'"), 1);
    cr_assert_str_eq(q_text(db, "SELECT kind || '/' || namespace || '/' || name || ' ' || status"
                                " || ': ' || message FROM object"),
                     "ClusterQueue//team-a Rejected: ClusterQueue \"team-a\" is invalid");
    cr_assert_str_eq(
        q_text(db, "SELECT group_concat(idx || ',' || line || ',' || what || ',' || pass"
                   " || ',' || coalesce(detail, '-'), ';') FROM (SELECT * FROM expect_check"
                   " ORDER BY idx)"),
        "0,12,pod train-0 phase Running,1,-;1,15,pod train-1 phase Running,0,phase is Pending");
    cr_assert_eq(
        q_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'index'"
                  " AND name IN ('pod_event_by_pod', 'node_event_by_node', 'sample_by_pool_t')"),
        3);
    cr_assert_str_eq(q_text(db, "PRAGMA integrity_check"), "ok");
    sqlite3_close(db);
}

Test(trace, summary_level_writes_no_events)
{
    struct gs_trace *t = open_trace(path, GS_TRACE_SUMMARY);
    cr_assert_eq(gs_trace_node(t, 0, "n-0", "n", NULL, 0), 0);
    cr_assert_eq(gs_trace_node_event(t, 0, 0, "Joined", NULL, NULL), 0);
    struct gs_trace_pod p = {.id = 0,
                             .name = "p-0",
                             .created_us = 0,
                             .scheduled_us = -1,
                             .started_us = -1,
                             .finished_us = -1,
                             .node_id = -1,
                             .phase = "Pending"};
    cr_assert_eq(gs_trace_pod(t, &p), 0);
    cr_assert_eq(gs_trace_pod_event(t, 0, 0, "FailedScheduling", MSG_A), 0);
    cr_assert_eq(gs_trace_close(t, "complete", 0), 0);

    sqlite3 *db = open_ro(path);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM node"), 1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod"), 1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM node_event"), 0);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod_event"), 0);
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'trace_level'"), "summary");
    sqlite3_close(db);
}

/* Fork a child that runs `fn` and leaves with _exit(its result), as a killed process
 * would: no close, no atexit handlers. Returns the child's exit status. */
static int in_child(int (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0)
        _exit(fn());
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(eq(int, WIFEXITED(status) != 0, 1), "child did not exit normally");
    return WEXITSTATUS(status);
}

static int write_and_die(void)
{
    struct gs_trace *t = NULL;
    if (gs_trace_open(path, GS_TRACE_EVENTS, &t, NULL, 0) != 0)
        return 10;
    if (gs_trace_run_kv(t, "scenario", "killed") != 0 ||
        gs_trace_node(t, 0, "n-0", "n", NULL, 0) != 0)
        return 11;
    if (gs_trace_commit(t) != 0)
        return 12;
    /* written but never committed: must not be seen */
    struct gs_trace_pod p = {.id = 0,
                             .name = "p-0",
                             .created_us = 0,
                             .scheduled_us = -1,
                             .started_us = -1,
                             .finished_us = -1,
                             .node_id = -1,
                             .phase = "Pending"};
    if (gs_trace_pod(t, &p) != 0)
        return 13;
    return 0;
}

Test(trace, killed_run_opens_and_says_running)
{
    cr_assert_eq(in_child(write_and_die), 0);
    cr_assert(eq(int, file_exists(path), 0), "an unfinished trace is never at the final name");
    sqlite3 *db = open_ro(partial); /* read-only, as a report opens it */
    cr_assert_eq(q_int(db, "PRAGMA user_version"), GS_TRACE_SCHEMA_VERSION);
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'status'"), "running");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'scenario'"), "killed");
    cr_assert_eq(q_int(db, "SELECT count(*) FROM run WHERE key = 'end_us'"), 0);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM node"), 1);
    cr_assert_eq(q_int(db, "SELECT count(*) FROM pod"), 0);
    cr_assert_str_eq(q_text(db, "PRAGMA integrity_check"), "ok");
    sqlite3_close(db);
}

static int write_batch_and_die(void)
{
    struct gs_trace *t = NULL;
    if (gs_trace_open(path, GS_TRACE_EVENTS, &t, NULL, 0) != 0)
        return 10;
    struct gs_metrics s = {0};
    for (int i = 0; i < GS_TRACE_BATCH + 5; i++) {
        if (gs_trace_wants_checkpoint(t) != (i >= GS_TRACE_BATCH))
            return 11;
        s.t = i;
        if (gs_trace_sample(t, "", &s) != 0)
            return 12;
    }
    if (!gs_trace_wants_checkpoint(t) || gs_trace_checkpoint(t, GS_SEC(7)) != 0 || gs_trace_wants_checkpoint(t))
        return 13;
    for (int i = 0; i < 5; i++)
        if (gs_trace_sample(t, "", &s) != 0)
            return 14;
    return 0; /* dies with 5 rows not committed */
}

Test(trace, commits_at_checkpoints)
{
    cr_assert(eq(int, in_child(write_batch_and_die), 0));
    sqlite3 *db = open_ro(partial);
    cr_assert(eq(i64, q_int(db, "SELECT count(*) FROM sample"), GS_TRACE_BATCH + 5));
    cr_assert(eq(i64, q_int(db, "SELECT value FROM run WHERE key = 'complete_until_us'"), GS_SEC(7)));
    cr_assert_str_eq(q_text(db, "PRAGMA integrity_check"), "ok");
    sqlite3_close(db);
}

static int write_huge_event_and_die(void)
{
    struct gs_trace *t = NULL;
    if (gs_trace_open(path, GS_TRACE_EVENTS, &t, NULL, 0) != 0)
        return 10;
    struct gs_metrics s = {0};
    for (int i = 0; i < GS_TRACE_BATCH_MAX + 5; i++) {
        s.t = i;
        if (gs_trace_sample(t, "", &s) != 0)
            return 11;
    }
    return 0;
}

Test(trace, commits_inside_an_event_that_writes_too_much)
{
    cr_assert(eq(int, in_child(write_huge_event_and_die), 0));
    sqlite3 *db = open_ro(partial);
    cr_assert(eq(i64, q_int(db, "SELECT count(*) FROM sample"), GS_TRACE_BATCH_MAX));
    cr_assert(eq(i64, q_int(db, "SELECT count(*) FROM run WHERE key = 'complete_until_us'"), 0));
    sqlite3_close(db);
}

Test(trace, interrupted_status)
{
    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_close(t, "interrupted", GS_SEC(30)), 0);
    cr_assert(eq(int, file_exists(path), 0), "only a complete trace is renamed into place");
    sqlite3 *db = open_ro(partial);
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'status'"), "interrupted");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'end_us'"), "30000000");
    sqlite3_close(db);
    cr_assert_eq(gs_trace_close(NULL, "complete", 0), 0);
}

Test(trace, replaces_an_existing_trace)
{
    /* An earlier trace at the same path, and a stale journal beside it. */
    struct gs_trace *old = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_run_kv(old, "scenario", "old"), 0);
    cr_assert_eq(gs_trace_close(old, "complete", 0), 0);
    char journal[160];
    snprintf(journal, sizeof journal, "%s-journal", path);
    FILE *f = fopen(journal, "w");
    cr_assert_not_null(f);
    fputs("stale hot journal", f);
    fclose(f);

    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_run_kv(t, "scenario", "fresh"), 0);
    cr_assert_eq(gs_trace_commit(t), 0);
    /* while the new run writes, the old trace is still there, whole */
    cr_assert(eq(int, gs_trace_file_kind(path), GS_TRACE_FILE_TRACE));
    bool renamed = false;
    cr_assert_eq(gs_trace_finish(t, "complete", 0, &renamed, NULL, 0), 0);
    cr_assert(renamed);
    cr_assert(eq(int, file_exists(journal), 0));
    cr_assert(eq(int, file_exists(partial), 0));
    sqlite3 *db = open_ro(path);
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'scenario'"), "fresh");
    cr_assert(eq(i64, q_int(db, "PRAGMA application_id"), GS_TRACE_APPLICATION_ID));
    sqlite3_close(db);
}

Test(trace, a_run_that_does_not_complete_leaves_the_previous_trace)
{
    struct gs_trace *old = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_run_kv(old, "scenario", "old"), 0);
    cr_assert_eq(gs_trace_close(old, "complete", 0), 0);
    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_run_kv(t, "scenario", "new"), 0);
    bool renamed = true;
    cr_assert_eq(gs_trace_finish(t, "interrupted", 0, &renamed, NULL, 0), 0);
    cr_assert(not(renamed));
    sqlite3 *db = open_ro(path);
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'scenario'"), "old");
    sqlite3_close(db);
    db = open_ro(partial);
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'scenario'"), "new");
    cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'status'"), "interrupted");
    sqlite3_close(db);
    /* the next run replaces the leftover partial file */
    t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_close(t, "complete", 0), 0);
    cr_assert(eq(int, file_exists(partial), 0));
}

Test(trace, a_second_writer_of_one_path_is_refused)
{
    struct gs_trace *a = open_trace(path, GS_TRACE_EVENTS);
    struct gs_trace *b = NULL;
    char err[512] = "";
    cr_assert(eq(int, gs_trace_open(path, GS_TRACE_EVENTS, &b, err, sizeof err), GS_EBUSY));
    cr_assert_null(b);
    char want[128];
    snprintf(want, sizeof want, "another gpusim run (pid %d) is writing it", (int)getpid());
    cr_assert(ne(ptr, strstr(err, want), NULL), "%s", err);
    cr_assert_eq(gs_trace_run_kv(a, "scenario", "first"), 0);
    cr_assert_eq(gs_trace_close(a, "complete", 0), 0);
    /* the lock is gone with the run */
    char lock[160];
    snprintf(lock, sizeof lock, "%s/.t.db.lock", dir);
    cr_assert(eq(int, file_exists(lock), 0));
    b = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_close(b, "complete", 0), 0);
}

Test(trace, file_kinds)
{
    cr_assert(eq(int, gs_trace_file_kind(path), GS_TRACE_FILE_NONE));
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
    cr_assert(eq(int, gs_trace_file_kind(path), GS_TRACE_FILE_EMPTY));
    cr_assert(eq(int, gs_trace_file_kind(dir), GS_TRACE_FILE_OTHER));
    /* an SQLite database of something else, even with a table named run */
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE run(key, value); PRAGMA user_version=1;", NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    cr_assert(eq(int, gs_trace_file_kind(path), GS_TRACE_FILE_OTHER));
    struct gs_trace *t = NULL;
    char err[512] = "";
    cr_assert(eq(int, gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), GS_EIO));
    cr_assert(ne(ptr, strstr(err, "is not a gpusim trace"), NULL), "%s", err);
    cr_assert(eq(int, unlink(path), 0));
    t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_close(t, "complete", 0), 0);
    cr_assert(eq(int, gs_trace_file_kind(path), GS_TRACE_FILE_TRACE));
}

Test(trace, names_with_uri_characters_are_paths)
{
    /* "t.db?mode=memory" would be an in-memory database, "#x" a fragment, as a URI */
    static const char *const names[] = {"t.db?mode=memory", "a#b.db", "100%25.db", "sp ace.db"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        struct gs_trace *t = open_trace(p, GS_TRACE_EVENTS);
        cr_assert_eq(gs_trace_run_kv(t, "scenario", names[i]), 0);
        cr_assert_eq(gs_trace_close(t, "complete", 0), 0);
        cr_assert(eq(int, gs_trace_file_kind(p), GS_TRACE_FILE_TRACE), "%s", p);
        sqlite3 *db = NULL;
        cr_assert_eq(gs_trace_db_open(p, true, &db), SQLITE_OK);
        cr_assert_str_eq(q_text(db, "SELECT value FROM run WHERE key = 'scenario'"), names[i]);
        sqlite3_close(db);
    }
    /* a relative name too */
    char cwd[512];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert(eq(int, chdir(dir), 0));
    struct gs_trace *t = open_trace("rel?x.db", GS_TRACE_EVENTS);
    cr_assert_eq(gs_trace_close(t, "complete", 0), 0);
    cr_assert(eq(int, file_exists("rel?x.db"), 1));
    cr_assert(eq(int, chdir(cwd), 0));
}

Test(trace, refuses_to_overwrite_a_file_that_is_not_a_trace)
{
    /* `-o scenario.yaml` by mistake must not destroy the scenario. */
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("apiVersion: gpusim/v1alpha1\n", f);
    fclose(f);
    struct gs_trace *t = NULL;
    char err[512] = "";
    cr_assert_eq(gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), GS_EIO);
    cr_assert_null(t);
    cr_assert(strstr(err, "is not a gpusim trace") != NULL, "%s", err);
    f = fopen(path, "r");
    char line[64] = "";
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_str_eq(line, "apiVersion: gpusim/v1alpha1\n");
}

Test(trace, unwritable_paths_are_errors)
{
    struct gs_trace *t = NULL;
    char err[512] = "";
    int rc =
        gs_trace_open("/nonexistent-gpusim-dir/sub/t.db", GS_TRACE_EVENTS, &t, err, sizeof err);
    cr_assert_eq(rc, GS_EIO);
    cr_assert_null(t);
    cr_assert_str_eq(err, "cannot create trace '/nonexistent-gpusim-dir/sub/t.db': directory "
                          "'/nonexistent-gpusim-dir/sub': No such file or directory");

    /* an existing directory is refused, not removed */
    rc = gs_trace_open(dir, GS_TRACE_EVENTS, &t, err, sizeof err);
    cr_assert_eq(rc, GS_EIO);
    cr_assert_null(t);
    char want[256];
    snprintf(want, sizeof want, "cannot create trace '%s': it exists and is not a regular file",
             dir);
    cr_assert_str_eq(err, want);
    struct stat sb;
    cr_assert(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode));

    cr_assert_eq(gs_trace_open(NULL, GS_TRACE_EVENTS, &t, err, sizeof err), GS_EINVAL);
}

Test(trace, a_read_only_directory_is_named)
{
    if (geteuid() == 0)
        cr_skip_test("root writes into read-only directories (tests/cli/test-trace-files.sh checks it as nobody)");
    cr_assert(eq(int, chmod(dir, 0555), 0));
    struct gs_trace *t = NULL;
    char err[512] = "";
    int rc = gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err);
    chmod(dir, 0755);
    cr_assert(eq(int, rc, GS_EIO));
    char want[512];
    snprintf(want, sizeof want, "cannot create trace '%s': directory '%s' is not writable (Permission denied)",
             path, dir);
    cr_assert_str_eq(err, want);
}

/* A full disk, simulated by a file size limit: writes fail with EFBIG as they would with
 * ENOSPC. Returns 0 when the trace behaved: an error, reported, sticky, and a clean close. */
static int fill_the_disk(void)
{
    signal(SIGXFSZ, SIG_IGN);
    struct gs_trace *t = NULL;
    if (gs_trace_open(path, GS_TRACE_EVENTS, &t, NULL, 0) != 0)
        return 10;
    if (gs_trace_commit(t) != 0)
        return 11;
    struct rlimit lim = {.rlim_cur = 1024 * 1024, .rlim_max = RLIM_INFINITY};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 12;
    char msg[2048];
    memset(msg, 'x', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    int rc = 0;
    for (int i = 0; i < 100000 && rc == 0; i++) {
        rc = gs_trace_pod_event(t, i, i % 100, "Scheduled", msg);
        if (rc == 0 && i % 50 == 49)
            rc = gs_trace_commit(t);
    }
    if (rc != GS_ESQL)
        return 13;
    /* e.g. "trace '/tmp/gs-trace-1/t.db': commit: disk I/O error (File too large)" */
    if (strncmp(gs_trace_errmsg(t), "trace '", 7) != 0 || !strstr(gs_trace_errmsg(t), path) ||
        !strstr(gs_trace_errmsg(t), "(File too large)"))
        return 14;
    if (gs_trace_run_kv(t, "after", "error") != GS_ESQL || gs_trace_commit(t) != GS_ESQL)
        return 15; /* sticky */
    char err[1024] = "";
    bool renamed = true;
    if (gs_trace_finish(t, "complete", 0, &renamed, err, sizeof err) != GS_ESQL || !strstr(err, partial) ||
        renamed)
        return 16;
    return 0;
}

Test(trace, full_disk_is_an_error_not_a_crash)
{
    cr_assert_eq(in_child(fill_the_disk), 0);
    cr_assert(eq(int, file_exists(path), 0), "a failed trace is never at the final name");
    sqlite3 *db = open_ro(partial);
    cr_assert_str_eq(q_text(db, "PRAGMA integrity_check"), "ok");
    cr_assert_eq(q_int(db, "SELECT count(*) > 0 AND count(*) % 50 = 0 FROM pod_event"), 1,
                 "only whole committed batches survive");
    /* never 'complete': either the status could still be written ('failed', with the error)
     * or the trace still says 'running' */
    const char *status = q_text(db, "SELECT value FROM run WHERE key = 'status'");
    if (strcmp(status, "failed") == 0)
        cr_assert(ne(ptr, strstr(q_text(db, "SELECT value FROM run WHERE key = 'error'"), "(File too large)"), NULL));
    else
        cr_assert_str_eq(status, "running");
    sqlite3_close(db);
}

static void write_sample_trace(const char *p)
{
    struct gs_trace *t = open_trace(p, GS_TRACE_FULL);
    gs_trace_run_kv(t, "scenario", "same");
    gs_trace_node(t, 0, "n-0", "n", "NVIDIA-A100-SXM4-40GB", 8);
    for (int i = 0; i < 50; i++) {
        char name[32];
        snprintf(name, sizeof name, "p-%d", i);
        struct gs_trace_pod pod = {.id = i,
                                   .name = name,
                                   .created_us = i,
                                   .scheduled_us = -1,
                                   .started_us = -1,
                                   .finished_us = -1,
                                   .node_id = -1,
                                   .phase = "Pending",
                                   .message = MSG_A};
        cr_assert_eq(gs_trace_pod(t, &pod), 0);
        cr_assert_eq(gs_trace_pod_event(t, i, i, "FailedScheduling", i % 3 ? MSG_A : MSG_B), 0);
        cr_assert_eq(gs_trace_pod_event(t, i + 1, i, "FailedScheduling", MSG_A), 0);
        struct gs_metrics s = {.t = i, .frag_gpus = i / 3.0};
        cr_assert(eq(int, gs_trace_sample(t, "", &s), 0));
    }
    cr_assert_eq(gs_trace_check(t, 0, 3, "x", 1, NULL), 0);
    cr_assert_eq(gs_trace_close(t, "complete", 100), 0);
}

static char *dump(const char *p)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' .dump", p);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    cr_assert_eq(pclose(f), 0);
    fclose(m);
    return buf;
}

Test(trace, same_input_same_dump)
{
    if (system("command -v sqlite3 >/dev/null 2>&1") != 0)
        cr_skip_test("the sqlite3 shell is not installed");
    char a[160], b[160];
    snprintf(a, sizeof a, "%s.a", path);
    snprintf(b, sizeof b, "%s.b", path);
    write_sample_trace(a);
    write_sample_trace(b);
    char *da = dump(a), *db = dump(b);
    cr_assert_gt(strlen(da), 1000);
    cr_assert_str_eq(da, db);
    free(da);
    free(db);
}

/* A reader of the running trace (gpusim report, sqlite3) keeps SQLite from leaving WAL mode
 * at the end; the trace is still settled into one file and renamed, complete. */
Test(trace, a_reader_holding_the_trace_does_not_fail_the_run)
{
    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert(eq(int, gs_trace_run_kv(t, "scenario", "watched"), 0));
    cr_assert(eq(int, gs_trace_pod_event(t, 5, 1, "Scheduled", "Successfully assigned default/p to n"), 0));
    cr_assert(eq(int, gs_trace_checkpoint(t, 5), 0));
    sqlite3 *reader = open_ro(partial); /* open, between statements, as an idle sqlite3 shell */
    cr_assert(eq(str, (char *)q_text(reader, "SELECT value FROM run WHERE key = 'status'"), "running"));
    bool renamed = false;
    char err[512] = "";
    cr_assert(eq(int, gs_trace_finish(t, "complete", 10, &renamed, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, renamed, true));
    sqlite3_close(reader);
    cr_assert(eq(int, file_exists(partial), 0));
    char wal[200];
    snprintf(wal, sizeof wal, "%s-wal", partial);
    cr_assert(eq(int, file_exists(wal), 0), "the reader's leftover WAL of the partial file is removed");
    /* every row is in the file itself: a copy without any -wal reads whole */
    char copy[200], cmd[512];
    FILE *f;
    snprintf(copy, sizeof copy, "%s/copy.db", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, copy);
    cr_assert(eq(int, system(cmd), 0));
    /* The reader kept it in WAL mode (file header byte 18: 2), its rows checkpointed in. */
    f = fopen(copy, "rb");
    unsigned char h[20];
    cr_assert(eq(sz, fread(h, 1, sizeof h, f), sizeof h));
    fclose(f);
    cr_assert(eq(int, h[18], 2));
    sqlite3 *db = open_ro(copy);
    cr_assert(eq(str, (char *)q_text(db, "SELECT value FROM run WHERE key = 'status'"), "complete"));
    cr_assert(eq(i64, q_int(db, "SELECT count(*) FROM pod_event"), 1));
    cr_assert(eq(i64, q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'pod_event_by_pod'"), 1));
    cr_assert(eq(str, (char *)q_text(db, "PRAGMA integrity_check"), "ok"));
    sqlite3_close(db);
}

/* The run's stop flag (SIGINT, SIGTERM) is honoured while the indexes are built: the trace
 * says interrupted, stays in the partial file, and the previous trace is left in place. */
Test(trace, a_stop_while_finishing_marks_the_trace_interrupted)
{
    struct gs_trace *old = open_trace(path, GS_TRACE_EVENTS);
    cr_assert(eq(int, gs_trace_run_kv(old, "scenario", "old"), 0));
    cr_assert(eq(int, gs_trace_close(old, "complete", 0), 0));
    volatile int stop = 0;
    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    gs_trace_set_stop(t, &stop);
    cr_assert(eq(int, gs_trace_run_kv(t, "scenario", "new"), 0));
    stop = 1; /* the signal arrived after the last event */
    bool renamed = true;
    cr_assert(eq(int, gs_trace_finish(t, "complete", 7, &renamed, NULL, 0), GS_EINTERRUPTED));
    cr_assert(eq(int, renamed, false));
    sqlite3 *db = open_ro(path);
    cr_assert(eq(str, (char *)q_text(db, "SELECT value FROM run WHERE key = 'scenario'"), "old"));
    sqlite3_close(db);
    db = open_ro(partial);
    cr_assert(eq(str, (char *)q_text(db, "SELECT value FROM run WHERE key = 'status'"), "interrupted"));
    cr_assert(eq(str, (char *)q_text(db, "SELECT value FROM run WHERE key = 'end_us'"), "7"));
    cr_assert(eq(i64, q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'pod_event_by_pod'"), 0));
    sqlite3_close(db);
}

/* The status row keeps its place: `complete` is written in place of `running`, after end_us,
 * yet the run table reads status then end_us, as before (trace dumps compare rows in order). */
Test(trace, the_status_is_written_last_in_place)
{
    struct gs_trace *t = open_trace(path, GS_TRACE_EVENTS);
    cr_assert(eq(int, gs_trace_close(t, "complete", 3), 0));
    sqlite3 *db = open_ro(path);
    cr_assert(eq(str, (char *)q_text(db, "SELECT group_concat(key, ',') FROM (SELECT key FROM run ORDER BY rowid)"),
                 "trace_level,status,end_us"));
    sqlite3_close(db);
}

Test(trace, a_symbolic_link_at_the_lock_is_not_followed)
{
    char target[160], lock[160];
    snprintf(target, sizeof target, "%s/precious.txt", dir);
    snprintf(lock, sizeof lock, "%s/.t.db.lock", dir);
    FILE *f = fopen(target, "w");
    cr_assert(ne(ptr, f, NULL));
    fputs("important\n", f);
    fclose(f);
    cr_assert(eq(int, symlink("precious.txt", lock), 0));
    struct gs_trace *t = NULL;
    char err[512] = "";
    cr_assert(eq(int, gs_trace_open(path, GS_TRACE_EVENTS, &t, err, sizeof err), GS_EIO));
    cr_assert(ne(ptr, strstr(err, "is a symbolic link"), NULL), "%s", err);
    f = fopen(target, "r");
    char buf[32] = "";
    cr_assert(ne(ptr, fgets(buf, sizeof buf, f), NULL));
    fclose(f);
    cr_assert(eq(str, buf, "important\n"));
}

Test(trace, names_too_long_for_the_files_beside_them_are_refused)
{
    char name[300], p[400], err[1024] = "";
    struct gs_trace *t = NULL;
    /* 240 bytes: legal, but '<name>.partial-journal' is 256 */
    memset(name, 'a', 237);
    strcpy(name + 237, ".db");
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cr_assert(eq(int, gs_trace_open(p, GS_TRACE_EVENTS, &t, err, sizeof err), GS_EIO));
    cr_assert(ne(ptr, strstr(err, "its file name is 240 bytes; gpusim also writes '<name>.partial-journal'"), NULL),
              "%s", err);
    /* 239 bytes: fits */
    strcpy(name + 236, ".db");
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cr_assert(eq(int, gs_trace_open(p, GS_TRACE_EVENTS, &t, err, sizeof err), 0), "%s", err);
    cr_assert(eq(int, gs_trace_close(t, "complete", 0), 0));
    cr_assert(eq(int, gs_trace_file_kind(p), GS_TRACE_FILE_TRACE));
}
