/* gpusim: the SQLite trace of a run (documented in docs/trace-schema.md).
 *
 * One file per run. Rows are written with prepared statements inside large transactions
 * (committed at checkpoints and at close). PRAGMA user_version holds
 * GS_TRACE_SCHEMA_VERSION. The run table's `status` is `running` while the run goes on, so a
 * run killed without a chance to close leaves a database that says it is incomplete;
 * gs_trace_close writes `complete`, `interrupted` or `failed`.
 *
 * Repeated identical FailedScheduling messages for one pod are stored once, with a count
 * (pod_event.count), as Kubernetes aggregates events.
 *
 * Schema (version 1):
 *   run(key TEXT PRIMARY KEY, value TEXT)
 *       scenario, seed, version, kubernetesVersion, trace_level, status, end_us, events,
 *       complete_until_us, error (why the trace itself failed, when it did)
 *   node(id INTEGER PRIMARY KEY, name TEXT UNIQUE, pool TEXT, gpu_product TEXT, gpu_count INT)
 *   node_event(t_us INT, node_id INT, kind TEXT, subject TEXT, value TEXT)
 *   pod(id INTEGER PRIMARY KEY, name TEXT UNIQUE, workload TEXT, pod_group TEXT, priority INT,
 *       cpu_m INT, memory_b INT, gpu INT, created_us INT, scheduled_us INT, started_us INT,
 *       finished_us INT, node_id INT, phase TEXT, message TEXT)
 *   pod_event(t_us INT, pod_id INT, reason TEXT, message TEXT, count INT DEFAULT 1, last_us INT)
 *       t_us is the first occurrence, last_us the last one (equal when count is 1)
 *   sample(t_us INT, pool TEXT, nodes_ready INT, gpus_capacity INT, gpus_allocatable INT,
 *          gpus_allocated INT, pods_pending INT, pods_running INT, frag_gpus REAL,
 *          gpus_held_by_incomplete_groups INT)
 *       pool '' is the whole cluster
 *   object(t_us INT, kind TEXT, namespace TEXT, name TEXT, status TEXT, message TEXT)
 *       API objects other than pods (status Created | Rejected)
 *   expect_check(idx INT PRIMARY KEY, line INT, what TEXT, pass INT, detail TEXT)
 *       the outcomes of the scenario's expect: checks (not named `check`: CHECK is an SQL
 *       keyword, so that name would need quoting in every query)
 * At --trace-level full only (the tables exist only then; docs/trace-schema.md):
 *   attempt(id INTEGER PRIMARY KEY, t_us INT, pod_id INT, node_id INT, feasible INT, evaluated INT,
 *           score INT, message TEXT, group_pod_id INT, node_set_id INT, count INT DEFAULT 1,
 *           last_us INT)
 *       one scheduling cycle (node_id the node chosen, NULL when none); repeated identical
 *       attempts of one pod are stored once with a count, t_us the first, last_us the last
 *   verdict(id INTEGER PRIMARY KEY, plugin TEXT, code TEXT, reason TEXT)
 *       each distinct node status once (first failing plugin, code, reasons joined by ", ");
 *       plugin and reason NULL and code 'Success' for a node that passed
 *   verdict_reason(verdict_id INT, reason TEXT)   the verdict's reasons one by one
 *   node_set(id INTEGER PRIMARY KEY, base_id INT)
 *   node_set_verdict(set_id INT, node_id INT, verdict_id INT)
 *       an attempt's per-node verdicts, in full (base_id NULL) or as the nodes that differ
 *       from a full set (verdict 0: not judged); the view attempt_verdict(attempt_id, node_id,
 *       plugin, code, reason) resolves them
 *   attempt_score(attempt_id INT, node_id INT, plugin TEXT, score INT, weight INT)
 *       one row per (feasible node, Score plugin) when scoring ran
 * Indexes pod_event(pod_id), node_event(node_id) and sample(pool, t_us) are built at close
 * (and at full attempt(pod_id, t_us), attempt_node(attempt_id), attempt_score(attempt_id)).
 *
 * Nothing in the database depends on the wall clock: two runs of one scenario and seed give
 * identical `sqlite3 .dump` output.
 *
 * Files. A trace is marked by PRAGMA application_id = GS_TRACE_APPLICATION_ID (user_version is
 * the schema version); only such a file, an empty file or nothing may be replaced by a new
 * trace, so a mistyped -o never destroys other data. The trace of target PATH is written to
 * PATH.partial in the same directory and renamed to PATH only when the run ends with status
 * `complete`: a reader never sees a half-written trace under the final name, and a run that
 * is killed, interrupted or fails leaves the previous PATH as it was (its own trace stays in
 * PATH.partial, saying it is incomplete). While a run writes, it holds an exclusive flock(2)
 * on DIR/.BASE.lock (which holds its pid); a second run for the same PATH is refused with
 * GS_EBUSY. The kernel drops the lock however the process dies.
 *
 * Checkpoints. Rows are committed at checkpoints the run asks for between events (every
 * GS_TRACE_BATCH rows or so, gs_trace_checkpoint), each writing run.complete_until_us: every
 * event at or before that simulated time is in the committed trace. A killed run's trace thus
 * says up to which time it can be trusted.
 *
 * While the run goes on the database is in WAL mode, so a killed process leaves a database
 * (plus its -wal file) that opens cleanly with everything committed so far; close converts it
 * back to a single self-contained file (journal_mode DELETE).
 *
 * Errors: every writer returns 0 or a negative GS_E* code. After the first database error
 * (disk full, file size limit, unwritable file) the trace stays failed: every later writer
 * returns GS_ESQL at once, and gs_trace_errmsg says what went wrong. Strings passed in are
 * borrowed for the duration of the call; NULL strings are written as SQL NULL.
 */
#ifndef GPUSIM_TRACE_H
#define GPUSIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/metrics.h"

#include "sim/engine.h"

#define GS_TRACE_SCHEMA_VERSION 1
#define GS_TRACE_BATCH 20000
/* Rows after which a transaction is committed even in the middle of an event. */
#define GS_TRACE_BATCH_MAX (4 * GS_TRACE_BATCH)
/* PRAGMA application_id of a gpusim trace: "GPUS" in ASCII. */
#define GS_TRACE_APPLICATION_ID 0x47505553

/* What is at a path (gs_trace_file_kind). */
enum gs_trace_file {
    GS_TRACE_FILE_NONE,  /* nothing */
    GS_TRACE_FILE_EMPTY, /* an empty regular file */
    GS_TRACE_FILE_TRACE, /* an SQLite database with the gpusim application_id */
    GS_TRACE_FILE_OTHER, /* anything else, or unreadable */
};

/* SUMMARY writes run, node, pod, sample, object and check rows, but no node_event or
 * pod_event rows; EVENTS writes them all; FULL also has the scheduling attempts' tables
 * (attempt, attempt_node, attempt_score), which exist only in a trace written at FULL. */
enum gs_trace_level { GS_TRACE_SUMMARY = 0, GS_TRACE_EVENTS, GS_TRACE_FULL };

struct gs_trace;
struct sqlite3;

/* What is at `path` (following symlinks), judged from the SQLite header's application_id;
 * the file is only read. A trace of an older gpusim (application_id 0) is
 * GS_TRACE_FILE_OTHER. */
enum gs_trace_file gs_trace_file_kind(const char *path);

/* Open the SQLite database at `path` as a path: it is passed to SQLite as a file: URI with
 * every character but [A-Za-z0-9/._~-] percent-escaped, so '?', '#' and '%' in a name are
 * part of the name. readonly opens it read-only, else read-write and created if missing.
 * Returns an SQLite result code; *db is set even on failure (close it with sqlite3_close). */
int gs_trace_db_open(const char *path, bool readonly, struct sqlite3 **db);

/* "<path>.partial", where the trace of target `path` is written until it is complete, into
 * buf (size n). Returns 0 or GS_ERANGE (buf too small). */
int gs_trace_partial_path(const char *path, char *buf, size_t n);

/* Begin the trace of target `path`: refuse if `path` exists and is not a trace (nor empty),
 * take the target's lock, remove a PATH.partial left by a killed run, create PATH.partial
 * with the schema, and commit run.status = 'running' and run.trace_level. `path` itself is
 * not touched until gs_trace_finish.
 * Returns 0 and sets *out (caller owns it; release with gs_trace_close), or GS_EBUSY (another
 * live run holds the target), GS_EIO (the directory is missing or not writable, `path` is not
 * a regular file or not a trace, a file cannot be created or removed), GS_ESQL (SQLite
 * refused the schema), GS_ENOMEM, GS_EINVAL (NULL path/out), with `errbuf` (size errlen; may
 * be NULL) describing why. */
int gs_trace_open(const char *path, enum gs_trace_level level, struct gs_trace **out, char *errbuf,
                  int errlen);

/* Set run(key, value); replaces an existing key. Returns 0, GS_EINVAL (NULL key) or GS_ESQL. */
int gs_trace_run_kv(struct gs_trace *t, const char *key, const char *value);

/* Insert or replace node `id` (replacing also any other node of the same name).
 * gpu_count is whole GPUs. Returns 0 or GS_ESQL. */
int gs_trace_node(struct gs_trace *t, int id, const char *name, const char *pool,
                  const char *gpu_product, int gpu_count);
/* kind: Joined|Operand|Label|Allocatable|Capacity|Taint|Cordon|Kernel|Reboot|Xid|Schedulable|
 * Deleted (subjects and values as sim/cluster/nodes.c, the controllers and reports/describe.c describe them:
 * Operand value "READY STATUS" such as "0/1 Init:0/4", NULL when the pod is gone; Label value
 * NULL when removed; Taint subject "key=value:Effect", value "true"/"false"). t_us is simulated
 * microseconds. Nothing is written at GS_TRACE_SUMMARY. Returns 0 or GS_ESQL. */
int gs_trace_node_event(struct gs_trace *t, gs_time t_us, int node_id, const char *kind,
                        const char *subject, const char *value);

/* Insert or replace the pod row (called when the pod is created and when it ends; the final
 * state is written by gs_trace_pod at close). node_id -1 writes NULL; times -1 write NULL.
 * cpu_m is millicores, memory_b bytes, gpu whole GPUs. Returns 0 or GS_ESQL. */
struct gs_trace_pod {
    int id;
    const char *name;
    const char *workload;
    const char *pod_group;
    int priority;
    int64_t cpu_m;
    int64_t memory_b;
    int64_t gpu;
    gs_time created_us, scheduled_us, started_us, finished_us;
    int node_id;
    const char *phase;
    const char *message;
};
int gs_trace_pod(struct gs_trace *t, const struct gs_trace_pod *p);

/* reason: Created|Rejected|Scheduled|FailedScheduling|Preempted|Started|Completed|Deleted|Evicted.
 * A FailedScheduling identical to the pod's previous FailedScheduling increments that row's
 * count (and last_us) instead of adding a row. Nothing is written at GS_TRACE_SUMMARY.
 * Returns 0, GS_EINVAL (pod_id < 0), GS_ENOMEM or GS_ESQL. */
int gs_trace_pod_event(struct gs_trace *t, gs_time t_us, int pod_id, const char *reason,
                       const char *message);

/* Append one sample row: time m->t (µs), `pool` ("" for the whole cluster), one column per
 * metric of GS_METRICS (sim/metrics.h; a NaN REAL is written as NULL). Returns 0 or GS_ESQL. */
int gs_trace_sample(struct gs_trace *t, const char *pool, const struct gs_metrics *m);

/* Remove the rows of the latest sample (its whole-cluster row, written first, and the rows
 * after it) when it was taken at t_us, so that a sample written next for the same time replaces
 * it: the run's final sample at the end does so, and the table keeps one row per time and pool
 * (docs/trace-schema.md, sample). Does nothing otherwise. Returns 0 or GS_ESQL. */
int gs_trace_sample_drop_last(struct gs_trace *t, gs_time t_us);

/* Record an API object other than a pod at simulated time t_us: status "Created", or
 * "Rejected" with the API server's message. namespace_ is NULL or "" for cluster-scoped
 * objects. Returns 0 or GS_ESQL. */
int gs_trace_object(struct gs_trace *t, gs_time t_us, const char *kind, const char *namespace_,
                    const char *name, const char *status, const char *message);

/* Record the outcome of one expect: check: idx is its position in expect: (0-based; a
 * second call with the same idx replaces the row), line its 1-based line in the scenario
 * file (0 unknown), pass 1 or 0, detail why it failed (NULL when it passed).
 * Returns 0 or GS_ESQL. */
int gs_trace_check(struct gs_trace *t, int idx, int line, const char *what, int pass,
                   const char *detail);

/* One scheduling attempt (a cycle of kube-scheduler's scheduleOne) at --trace-level full:
 * t_us simulated µs, the pod, the node chosen (-1: none, written NULL), the feasible and
 * evaluated node counts, the chosen node's total score (written only when `scored`: scoring
 * ran), the FailedScheduling text (NULL when a node was chosen), and in a gang admission group
 * cycle the pod that started it (-1: NULL). */
struct gs_trace_attempt {
    gs_time t_us;
    int pod_id;
    int node_id;
    int feasible, evaluated;
    bool scored;
    int64_t score;
    const char *message;
    int group_pod_id;
    int node_set_id;        /* its node set (gs_trace_node_set) */
};
/* Write an attempt row and set *id to its id (0 when nothing was written: a trace below FULL
 * writes nothing and returns 0). Returns 0 or GS_ESQL. */
int gs_trace_attempt(struct gs_trace *t, const struct gs_trace_attempt *a, int64_t *id);
/* The attempt `id` happened again, identical, at t_us: count + 1, last_us = t_us. 0 or GS_ESQL. */
int gs_trace_attempt_again(struct gs_trace *t, int64_t id, gs_time t_us);
/* A distinct verdict `id` (the caller numbers them from 1): the first failing plugin, the code
 * ("Unschedulable"...) and one reason; plugin and reason NULL and code "Success" for a node that
 * passed. 0 or GS_ESQL (nothing below FULL). */
int gs_trace_verdict(struct gs_trace *t, int id, const char *plugin, const char *code, const char *reason);
/* One of verdict `verdict_id`'s reasons. 0 or GS_ESQL (nothing below FULL). */
int gs_trace_verdict_reason(struct gs_trace *t, int verdict_id, const char *reason);
/* Node set `id` (the caller numbers them from 1): in full (base_id 0, written NULL), or the
 * differences from full set `base_id`. 0 or GS_ESQL (nothing below FULL). */
int gs_trace_node_set(struct gs_trace *t, int id, int base_id);
/* Node `node_id`'s verdict in node set `set_id` (0 in a delta set: not judged). 0 or GS_ESQL
 * (nothing below FULL). */
int gs_trace_node_set_verdict(struct gs_trace *t, int set_id, int node_id, int verdict_id);
/* A feasible node's normalised score (0..100) from one Score plugin, and the plugin's weight.
 * 0 or GS_ESQL (nothing below FULL). */
int gs_trace_attempt_score(struct gs_trace *t, int64_t attempt_id, int node_id, const char *plugin, int64_t score,
                           int64_t weight);
/* True when `t` is written at --trace-level full (NULL: false). */
bool gs_trace_full(const struct gs_trace *t);

/* Commit what is pending (also done every GS_TRACE_BATCH_MAX rows). Returns 0 or GS_ESQL. */
int gs_trace_commit(struct gs_trace *t);

/* True when enough rows are pending that the run should checkpoint (GS_TRACE_BATCH). */
bool gs_trace_wants_checkpoint(const struct gs_trace *t);

/* Write run.complete_until_us = complete_until_us (simulated µs: every event at or before
 * it is written) and commit. Returns 0 or GS_ESQL. */
int gs_trace_checkpoint(struct gs_trace *t, gs_time complete_until_us);

/* The message of the trace's first error ("" when none): the path, what was being written
 * and SQLite's reason. Borrowed; valid until gs_trace_close. */
const char *gs_trace_errmsg(const struct gs_trace *t);

/* While gs_trace_finish builds the indexes, stop (leaving them unbuilt) as soon as *stop is
 * nonzero (the run loop's flag, set by SIGINT/SIGTERM); NULL: never. The flag is read, not
 * owned, and must outlive the trace. */
void gs_trace_set_stop(struct gs_trace *t, volatile const int *stop);

/* End the trace, in this order, so that a trace which says `complete` is one:
 * 1. write run.status (`running` for now when `status` is complete) and run.end_us (simulated
 *    microseconds), commit;
 * 2. build the indexes (interrupted by the stop flag, gs_trace_set_stop);
 * 3. make the file self-contained: journal_mode DELETE, or, while another connection (a
 *    reader) prevents that, a TRUNCATE checkpoint of the whole WAL, waiting up to 5 s for
 *    readers;
 * 4. for a complete run, set run.status = 'complete' in place; close; rename PATH.partial to
 *    PATH (replacing the previous trace) and release the lock.
 * Any other status leaves the trace in PATH.partial and PATH as it was. `t` is freed even on
 * error; NULL is a no-op returning 0. If the trace had failed before (it lost rows), run.status
 * is set to 'failed' whatever `status` says, and run.error to the first error, if the database
 * still takes writes; the first error is returned. A complete run that fails in steps 2-4
 * (disk full, file-size limit) is marked 'failed' with run.error when the file still takes the
 * write, and otherwise stays 'running'. A NULL status writes 'failed'.
 * Returns 0; GS_EINTERRUPTED (stopped in step 2: run.status is 'interrupted', PATH untouched);
 * GS_EBUSY (readers kept the WAL from being emptied: the trace is complete in PATH.partial and
 * its -wal, not renamed); GS_EINVAL (NULL status), GS_EIO (the rename failed) or GS_ESQL. */
int gs_trace_close(struct gs_trace *t, const char *status, gs_time end_us);

/* gs_trace_close that also copies the error message (as gs_trace_errmsg) into `errbuf`
 * (size errlen; may be NULL) when it fails, and sets *renamed (may be NULL) to whether the
 * trace is now at its final name. */
int gs_trace_finish(struct gs_trace *t, const char *status, gs_time end_us, bool *renamed, char *errbuf,
                    int errlen);

#endif
