/* gpusim: the SQLite trace writer (schema and contract in sim/trace.h).
 *
 * Every row goes through a prepared statement that lives as long as the trace. Writes happen
 * inside one open transaction, begun lazily by the first write after a commit and committed
 * every GS_TRACE_BATCH rows: a commit per row would make SQLite sync per row, the slowest
 * thing it can do.
 *
 * While writing, the database is in WAL mode: a killed process leaves the main file plus a
 * -wal file that any later reader (even read-only) recovers from, seeing exactly the
 * committed transactions; a rollback journal would instead leave a hot journal that only a
 * writable connection may roll back. Close switches the file back to rollback mode so that
 * the finished trace is one self-contained file that also opens on read-only media.
 */
#include "base/alloc.h"
#include "base/array.h"
#include "sim/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

/* The sample table's columns and placeholders, from the list of metrics (sim/metrics.h). */
#define SAMPLE_COLUMN(name, column, type, what) ", " #column " " #type
#define SAMPLE_NAME(name, column, type, what) ", " #column
#define SAMPLE_PARAM(name, column, type, what) ", ?"

static const char schema_sql[] =
    "CREATE TABLE run(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE node(id INTEGER PRIMARY KEY, name TEXT UNIQUE, pool TEXT, gpu_product TEXT,"
    " gpu_count INT);"
    "CREATE TABLE node_event(t_us INT, node_id INT, kind TEXT, subject TEXT, value TEXT);"
    "CREATE TABLE pod(id INTEGER PRIMARY KEY, name TEXT, workload TEXT, pod_group TEXT,"
    " priority INT, cpu_m INT, memory_b INT, gpu INT, created_us INT, scheduled_us INT,"
    " started_us INT, finished_us INT, node_id INT, phase TEXT, message TEXT);"
    "CREATE TABLE pod_event(t_us INT, pod_id INT, reason TEXT, message TEXT,"
    " count INT DEFAULT 1, last_us INT);"
    "CREATE TABLE sample(t_us INT, pool TEXT" GS_METRICS(SAMPLE_COLUMN) ");"
    "CREATE TABLE object(t_us INT, kind TEXT, namespace TEXT, name TEXT, status TEXT,"
    " message TEXT);"
    "CREATE TABLE expect_check(idx INT PRIMARY KEY, line INT, what TEXT, pass INT, detail TEXT);";

/* Built at close: bulk-building an index once is cheaper than maintaining it per insert. */
static const char index_sql[] =
    "CREATE INDEX IF NOT EXISTS pod_event_by_pod ON pod_event(pod_id);"
    "CREATE INDEX IF NOT EXISTS pod_by_name ON pod(name);"
    "CREATE INDEX IF NOT EXISTS node_event_by_node ON node_event(node_id);"
    "CREATE INDEX IF NOT EXISTS sample_by_pool_t ON sample(pool, t_us);";

enum gs_trace_stmt {
    ST_BEGIN,
    ST_COMMIT,
    ST_RUN,
    ST_NODE,
    ST_NODE_EVENT,
    ST_POD,
    ST_POD_EVENT,
    ST_POD_EVENT_BUMP,
    ST_SAMPLE,
    ST_OBJECT,
    ST_CHECK,
    ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN",
    [ST_COMMIT] = "COMMIT",
    [ST_RUN] = "INSERT OR REPLACE INTO run(key, value) VALUES (?1, ?2)",
    [ST_NODE] = "INSERT OR REPLACE INTO node(id, name, pool, gpu_product, gpu_count)"
                " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_NODE_EVENT] = "INSERT INTO node_event(t_us, node_id, kind, subject, value)"
                      " VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_POD] = "INSERT OR REPLACE INTO pod(id, name, workload, pod_group, priority, cpu_m,"
               " memory_b, gpu, created_us, scheduled_us, started_us, finished_us, node_id,"
               " phase, message)"
               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    [ST_POD_EVENT] = "INSERT INTO pod_event(t_us, pod_id, reason, message, count, last_us)"
                     " VALUES (?1, ?2, ?3, ?4, 1, ?1)",
    [ST_POD_EVENT_BUMP] = "UPDATE pod_event SET count = count + 1, last_us = ?1 WHERE rowid = ?2",
    [ST_SAMPLE] = "INSERT INTO sample(t_us, pool" GS_METRICS(SAMPLE_NAME) ") VALUES (?, ?" GS_METRICS(SAMPLE_PARAM) ")",
    [ST_OBJECT] = "INSERT INTO object(t_us, kind, namespace, name, status, message)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_CHECK] = "INSERT OR REPLACE INTO expect_check(idx, line, what, pass, detail)"
                 " VALUES (?1, ?2, ?3, ?4, ?5)",
};

static const char *const level_names[] = {"summary", "events", "full"};

/* The pod's last pod_event row, when it is a FailedScheduling: what the next one must match
 * to be folded into it. rowid 0 means "the last event was something else" (SQLite rowids
 * start at 1). */
struct gs_trace_lastfs {
    int64_t rowid;
    char *msg; /* copy; NULL when the message was NULL */
};

struct gs_trace {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    enum gs_trace_level level;
    int in_txn;  /* a transaction is open */
    int pending; /* rows written in it */
    int failed;  /* sticky: 0 or the first error's GS_E* code */
    char *path;
    struct gs_trace_lastfs *lastfs; /* indexed by pod id */
    int nlastfs;                    /* entries (zeroed when grown) */
    char err[1024];
};

static void set_buf(char *buf, int len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_buf(char *buf, int len, const char *fmt, ...)
{
    if (!buf || len <= 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, (size_t)len, fmt, ap);
    va_end(ap);
}

/* Record the first database error (later ones are consequences of it) and fail the trace.
 * Call it right after the failing SQLite call: for an I/O error the OS reason is in errno
 * then (SQLite's own sqlite3_system_errno is not kept for every write error). */
static int fail(struct gs_trace *t, const char *what)
{
    int os_errno = errno;
    if (!t->err[0]) {
        int code = sqlite3_errcode(t->db);
        int sys = sqlite3_system_errno(t->db);
        if (!sys && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
            sys = os_errno;
        snprintf(t->err, sizeof t->err, "trace '%s': %s: %s%s%s%s", t->path, what,
                 sqlite3_errmsg(t->db), sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
    }
    if (!t->failed)
        t->failed = GS_ESQL;
    /* SQLite rolls the transaction back by itself on some errors (disk full, I/O). */
    if (sqlite3_get_autocommit(t->db)) {
        t->in_txn = 0;
        t->pending = 0;
    }
    return GS_ESQL;
}

/* Run a statement whose parameters are bound, expecting no result rows. */
static int run_stmt(struct gs_trace *t, enum gs_trace_stmt id, const char *what)
{
    sqlite3_stmt *st = t->st[id];
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        fail(t, what);
        sqlite3_reset(st);
        return GS_ESQL;
    }
    sqlite3_reset(st);
    return 0;
}

static int commit(struct gs_trace *t)
{
    if (!t->in_txn)
        return 0;
    int rc = run_stmt(t, ST_COMMIT, "commit");
    if (rc == 0) {
        t->in_txn = 0;
        t->pending = 0;
    }
    return rc;
}

/* Called before each write: refuse when failed, open the batch transaction if needed. */
static int begin_write(struct gs_trace *t)
{
    if (t->failed)
        return t->failed;
    if (t->in_txn)
        return 0;
    int rc = run_stmt(t, ST_BEGIN, "begin transaction");
    if (rc == 0)
        t->in_txn = 1;
    return rc;
}

/* Step a bound insert/update; `brc` is the OR of the bind results (nonzero if any failed). */
static int write_row(struct gs_trace *t, enum gs_trace_stmt id, int brc, const char *what)
{
    if (brc != SQLITE_OK) {
        fail(t, what);
        sqlite3_reset(t->st[id]);
        return GS_ESQL;
    }
    int rc = run_stmt(t, id, what);
    if (rc != 0)
        return rc;
    if (++t->pending >= GS_TRACE_BATCH)
        return commit(t);
    return 0;
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    /* SQLITE_STATIC: the caller's string outlives the step, and every parameter is rebound
     * before the statement runs again, so SQLite never needs its own copy. */
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

/* Times and node ids: negative means "none", written as NULL. */
static int bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
    return v < 0 ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v);
}

/* Remove `p` if it is a file (or a symlink; the link, not its target). Refusing anything
 * else keeps `-o /dev/sda` or `-o /tmp` from destroying what is there. */
static int remove_file(const char *p, char *errbuf, int errlen)
{
    struct stat sb;
    if (lstat(p, &sb) != 0) {
        if (errno == ENOENT)
            return 0;
        set_buf(errbuf, errlen, "cannot create trace '%s': %s", p, strerror(errno));
        return GS_EIO;
    }
    if (!S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
        set_buf(errbuf, errlen, "cannot create trace '%s': it exists and is not a regular file", p);
        return GS_EIO;
    }
    if (unlink(p) != 0) {
        set_buf(errbuf, errlen, "cannot remove old trace '%s': %s", p, strerror(errno));
        return GS_EIO;
    }
    return 0;
}

/* True when `path` is an SQLite database with gpusim's run table: only such a file may be
 * overwritten by a new trace (an empty file too), so a mistyped `-o scenario.yaml` never
 * destroys the user's data. */
static bool is_replaceable(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
        return true;
    FILE *f = fopen(path, "rb");
    if (!f)
        return true; /* unreadable: the removal below reports the real error */
    char head[16];
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    if (got != sizeof head || memcmp(head, "SQLite format 3", 16) != 0)
        return false;
    /* immutable=1: read the file as it is, ignoring a stale journal beside it. */
    sqlite3 *db = NULL;
    bool ok = false;
    char *uri = sqlite3_mprintf("file:%s?immutable=1", path);
    if (uri && sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='run'", -1, &st,
                               NULL) == SQLITE_OK)
            ok = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    sqlite3_free(uri);
    return ok;
}

static int remove_old(const char *path, char *errbuf, int errlen)
{
    if (!is_replaceable(path)) {
        set_buf(errbuf, errlen,
                "refusing to overwrite '%s': it exists and is not a gpusim trace (choose another -o path)",
                path);
        return GS_EIO;
    }
    static const char *const suffixes[] = {"", "-journal", "-wal", "-shm"};
    size_t n = strlen(path) + sizeof "-journal";
    char *p = gs_malloc(n);
    if (!p) {
        set_buf(errbuf, errlen, "out of memory");
        return GS_ENOMEM;
    }
    int rc = 0;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0] && rc == 0; i++) {
        snprintf(p, n, "%s%s", path, suffixes[i]);
        rc = remove_file(p, errbuf, errlen);
    }
    gs_free(p);
    return rc;
}

/* Errors that mean "the file cannot be written" rather than "the SQL is wrong". */
static int is_io_error(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return 1;
    default:
        return 0;
    }
}

static void free_trace(struct gs_trace *t)
{
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(t->st[i]);
    if (t->db)
        sqlite3_close(t->db);
    for (int i = 0; i < t->nlastfs; i++)
        gs_free(t->lastfs[i].msg);
    gs_free(t->lastfs);
    gs_free(t->path);
    gs_free(t);
}

int gs_trace_open(const char *path, enum gs_trace_level level, struct gs_trace **out, char *errbuf,
                  int errlen)
{
    if (!path || !out || (unsigned)level > GS_TRACE_FULL) {
        set_buf(errbuf, errlen, "gs_trace_open: invalid argument");
        return GS_EINVAL;
    }
    *out = NULL;
    int rc = remove_old(path, errbuf, errlen);
    if (rc != 0)
        return rc;

    struct gs_trace *t = gs_calloc(1, sizeof *t);
    if (!t || !(t->path = gs_strdup(path))) {
        gs_free(t);
        set_buf(errbuf, errlen, "out of memory");
        return GS_ENOMEM;
    }
    t->level = level;

    int src = sqlite3_open_v2(path, &t->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (src != SQLITE_OK) {
        int sys = t->db ? sqlite3_system_errno(t->db) : 0;
        set_buf(errbuf, errlen, "cannot create trace '%s': %s", path,
                sys ? strerror(sys) : t->db ? sqlite3_errmsg(t->db) : sqlite3_errstr(src));
        free_trace(t);
        return src == SQLITE_NOMEM ? GS_ENOMEM : GS_EIO;
    }

    /* journal_mode answers with the mode it got; a file system without shared memory may keep
     * the rollback journal, which is still correct, so the answer is not checked. synchronous
     * NORMAL in WAL mode syncs only at checkpoints: a crash of the machine may lose the last
     * batches but never corrupts the file, and a killed process loses nothing committed. */
    char *emsg = NULL;
    src = sqlite3_exec(t->db,
                       "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                       " PRAGMA cache_size=-16384; PRAGMA temp_store=MEMORY;",
                       NULL, NULL, &emsg);
    if (src == SQLITE_OK) {
        char *sql = sqlite3_mprintf("BEGIN; %s PRAGMA user_version=%d;"
                                    " INSERT INTO run(key, value) VALUES ('status', 'running'),"
                                    " ('trace_level', '%s'); COMMIT;",
                                    schema_sql, GS_TRACE_SCHEMA_VERSION, level_names[level]);
        src = sql ? sqlite3_exec(t->db, sql, NULL, NULL, &emsg) : SQLITE_NOMEM;
        sqlite3_free(sql);
    }
    if (src != SQLITE_OK) {
        int sys = sqlite3_system_errno(t->db);
        set_buf(errbuf, errlen, "cannot create trace '%s': %s%s%s", path,
                emsg ? emsg : sqlite3_errstr(src), sys ? ": " : "", sys ? strerror(sys) : "");
        sqlite3_free(emsg);
        free_trace(t);
        return src == SQLITE_NOMEM ? GS_ENOMEM : is_io_error(src) ? GS_EIO : GS_ESQL;
    }

    for (int i = 0; i < ST_COUNT; i++) {
        src = sqlite3_prepare_v3(t->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &t->st[i],
                                 NULL);
        if (src != SQLITE_OK) {
            set_buf(errbuf, errlen, "trace '%s': prepare: %s", path, sqlite3_errmsg(t->db));
            free_trace(t);
            return GS_ESQL;
        }
    }
    *out = t;
    return 0;
}

int gs_trace_run_kv(struct gs_trace *t, const char *key, const char *value)
{
    if (!key)
        return GS_EINVAL;
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_RUN];
    int brc = bind_text(st, 1, key) | bind_text(st, 2, value);
    return write_row(t, ST_RUN, brc, "write run");
}

int gs_trace_node(struct gs_trace *t, int id, const char *name, const char *pool,
                  const char *gpu_product, int gpu_count)
{
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_NODE];
    int brc = sqlite3_bind_int(st, 1, id) | bind_text(st, 2, name) | bind_text(st, 3, pool) |
              bind_text(st, 4, gpu_product) | sqlite3_bind_int(st, 5, gpu_count);
    return write_row(t, ST_NODE, brc, "write node");
}

int gs_trace_node_event(struct gs_trace *t, gs_time t_us, int node_id, const char *kind,
                        const char *subject, const char *value)
{
    if (t->failed)
        return t->failed;
    if (t->level == GS_TRACE_SUMMARY)
        return 0;
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_NODE_EVENT];
    int brc = sqlite3_bind_int64(st, 1, t_us) | bind_opt(st, 2, node_id) | bind_text(st, 3, kind) |
              bind_text(st, 4, subject) | bind_text(st, 5, value);
    return write_row(t, ST_NODE_EVENT, brc, "write node_event");
}

int gs_trace_pod(struct gs_trace *t, const struct gs_trace_pod *p)
{
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_POD];
    int brc = sqlite3_bind_int(st, 1, p->id) | bind_text(st, 2, p->name) |
              bind_text(st, 3, p->workload) | bind_text(st, 4, p->pod_group) |
              sqlite3_bind_int(st, 5, p->priority) | sqlite3_bind_int64(st, 6, p->cpu_m) |
              sqlite3_bind_int64(st, 7, p->memory_b) | sqlite3_bind_int64(st, 8, p->gpu) |
              bind_opt(st, 9, p->created_us) | bind_opt(st, 10, p->scheduled_us) |
              bind_opt(st, 11, p->started_us) | bind_opt(st, 12, p->finished_us) |
              bind_opt(st, 13, p->node_id) | bind_text(st, 14, p->phase) |
              bind_text(st, 15, p->message);
    return write_row(t, ST_POD, brc, "write pod");
}

static int same_msg(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Make t->lastfs cover pod `id`; new entries are zero ("no FailedScheduling yet"). */
static int grow_lastfs(struct gs_trace *t, int id)
{
    return GS_GROW_ZERO(t->lastfs, t->nlastfs, id + 1) ? GS_ENOMEM : 0;
}

int gs_trace_pod_event(struct gs_trace *t, gs_time t_us, int pod_id, const char *reason,
                       const char *message)
{
    if (t->failed)
        return t->failed;
    if (t->level == GS_TRACE_SUMMARY)
        return 0;
    if (pod_id < 0)
        return GS_EINVAL;
    if (grow_lastfs(t, pod_id) != 0)
        return GS_ENOMEM;
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    struct gs_trace_lastfs *last = &t->lastfs[pod_id];
    int is_fs = reason && strcmp(reason, "FailedScheduling") == 0;

    if (is_fs && last->rowid != 0 && same_msg(last->msg, message)) {
        sqlite3_stmt *st = t->st[ST_POD_EVENT_BUMP];
        int brc = sqlite3_bind_int64(st, 1, t_us) | sqlite3_bind_int64(st, 2, last->rowid);
        return write_row(t, ST_POD_EVENT_BUMP, brc, "update pod_event");
    }

    /* Copy first, so that running out of memory leaves the state as it was. */
    char *copy = NULL;
    if (is_fs && message && !(copy = gs_strdup(message)))
        return GS_ENOMEM;
    sqlite3_stmt *st = t->st[ST_POD_EVENT];
    int brc = sqlite3_bind_int64(st, 1, t_us) | sqlite3_bind_int(st, 2, pod_id) |
              bind_text(st, 3, reason) | bind_text(st, 4, message);
    rc = write_row(t, ST_POD_EVENT, brc, "write pod_event");
    if (rc != 0) {
        gs_free(copy);
        return rc;
    }
    /* A batch commit inside write_row leaves last_insert_rowid as it was. */
    gs_free(last->msg);
    last->msg = copy;
    last->rowid = is_fs ? sqlite3_last_insert_rowid(t->db) : 0;
    return 0;
}

int gs_trace_sample(struct gs_trace *t, const char *pool, const struct gs_metrics *m)
{
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_SAMPLE];
    int i = 2;
    int brc = sqlite3_bind_int64(st, 1, m->t) | bind_text(st, 2, pool ? pool : "");
#define SAMPLE_BIND_INT(column) sqlite3_bind_int64(st, ++i, m->column)
#define SAMPLE_BIND_REAL(column) (isnan(m->column) ? sqlite3_bind_null(st, ++i) : sqlite3_bind_double(st, ++i, m->column))
#define SAMPLE_BIND(name, column, type, what) brc |= SAMPLE_BIND_##type(column);
    GS_METRICS(SAMPLE_BIND)
#undef SAMPLE_BIND
#undef SAMPLE_BIND_REAL
#undef SAMPLE_BIND_INT
    return write_row(t, ST_SAMPLE, brc, "write sample");
}

int gs_trace_object(struct gs_trace *t, gs_time t_us, const char *kind, const char *namespace_,
                    const char *name, const char *status, const char *message)
{
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_OBJECT];
    int brc = sqlite3_bind_int64(st, 1, t_us) | bind_text(st, 2, kind) |
              bind_text(st, 3, namespace_ ? namespace_ : "") | bind_text(st, 4, name) |
              bind_text(st, 5, status) | bind_text(st, 6, message);
    return write_row(t, ST_OBJECT, brc, "write object");
}

int gs_trace_check(struct gs_trace *t, int idx, int line, const char *what, int pass,
                   const char *detail)
{
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    sqlite3_stmt *st = t->st[ST_CHECK];
    int brc = sqlite3_bind_int(st, 1, idx) | sqlite3_bind_int(st, 2, line) |
              bind_text(st, 3, what) | sqlite3_bind_int(st, 4, pass != 0) |
              bind_text(st, 5, detail);
    return write_row(t, ST_CHECK, brc, "write expect_check");
}

int gs_trace_commit(struct gs_trace *t)
{
    if (t->failed)
        return t->failed;
    return commit(t);
}

const char *gs_trace_errmsg(const struct gs_trace *t)
{
    return t->err;
}

int gs_trace_finish(struct gs_trace *t, const char *status, gs_time end_us, char *errbuf,
                    int errlen)
{
    if (!t)
        return 0;
    int first = t->failed;
    int rc = status ? 0 : GS_EINVAL;
    /* A trace that lost rows must not claim a complete run: it gets status 'failed' and the
     * error, if the database still takes writes (the disk may have room again). */
    if (first || !status)
        status = "failed";
    t->failed = 0;
    char end[32];
    snprintf(end, sizeof end, "%" PRId64, (int64_t)end_us);
    int wrc = gs_trace_run_kv(t, "status", status);
    if (wrc == 0)
        wrc = gs_trace_run_kv(t, "end_us", end);
    if (wrc == 0 && first)
        wrc = gs_trace_run_kv(t, "error", t->err);
    if (wrc == 0)
        wrc = commit(t);
    if (wrc == 0 && sqlite3_exec(t->db, index_sql, NULL, NULL, NULL) != SQLITE_OK)
        wrc = fail(t, "create indexes");
    if (rc == 0)
        rc = first ? first : wrc;

    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(t->st[i]);
        t->st[i] = NULL;
    }
    if (wrc == 0) {
        /* Back to a single self-contained file. Best effort: if another connection has the
         * file open this fails with SQLITE_BUSY and the trace simply stays in WAL mode. */
        sqlite3_exec(t->db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
    }
    if (sqlite3_close(t->db) != SQLITE_OK) {
        if (rc == 0)
            rc = fail(t, "close");
        /* sqlite3_close refuses only while statements are live; all are finalized, so this
         * is unreachable, but never leak the handle. */
        sqlite3_close_v2(t->db);
    }
    t->db = NULL;
    if (rc != 0) {
        if (t->err[0])
            set_buf(errbuf, errlen, "%s", t->err);
        else
            set_buf(errbuf, errlen, "trace '%s': closed without a status", t->path);
    }
    free_trace(t);
    return rc;
}

int gs_trace_close(struct gs_trace *t, const char *status, gs_time end_us)
{
    return gs_trace_finish(t, status, end_us, NULL, 0);
}
