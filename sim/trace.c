/* gpusim: the SQLite trace writer (schema and contract in sim/trace.h).
 *
 * Every row goes through a prepared statement that lives as long as the trace. Writes happen
 * inside one open transaction, begun lazily by the first write after a commit and committed
 * at the run's checkpoints (about every GS_TRACE_BATCH rows, between events): a commit per
 * row would make SQLite sync per row, the slowest thing it can do.
 *
 * While writing, the database is in WAL mode: a killed process leaves the main file plus a
 * -wal file that any later reader (even read-only) recovers from, seeing exactly the
 * committed transactions; a rollback journal would instead leave a hot journal that only a
 * writable connection may roll back. Close switches the file back to rollback mode so that
 * the finished trace is one self-contained file that also opens on read-only media.
 */
#include "base/alloc.h"
#include "base/intmap.h"
#include "sim/trace.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* The scheduling attempts' tables, only in a trace written at --trace-level full (so a trace
 * at events or summary is exactly what it was before they existed). */
static const char full_schema_sql[] =
    "CREATE TABLE attempt(id INTEGER PRIMARY KEY, t_us INT, pod_id INT, node_id INT, feasible INT,"
    " evaluated INT, score INT, message TEXT, group_pod_id INT, node_set_id INT, count INT DEFAULT 1,"
    " last_us INT);"
    "CREATE TABLE verdict(id INTEGER PRIMARY KEY, plugin TEXT, code TEXT, reason TEXT);"
    "CREATE TABLE verdict_reason(verdict_id INT, reason TEXT);"
    "CREATE TABLE node_set(id INTEGER PRIMARY KEY, base_id INT);"
    "CREATE TABLE node_set_verdict(set_id INT, node_id INT, verdict_id INT);"
    "CREATE TABLE attempt_score(attempt_id INT, node_id INT, plugin TEXT, score INT, weight INT);"
    /* Every node's verdict per attempt: a full set's rows, or a delta set's rows (verdict 0:
     * not judged, dropped by the join) and its base's rows for the other nodes. */
    "CREATE VIEW attempt_verdict AS"
    " SELECT a.id AS attempt_id, d.node_id AS node_id, v.plugin AS plugin, v.code AS code, v.reason AS reason"
    " FROM attempt a JOIN node_set_verdict d ON d.set_id = a.node_set_id JOIN verdict v ON v.id = d.verdict_id"
    " UNION ALL"
    " SELECT a.id, b.node_id, v.plugin, v.code, v.reason"
    " FROM attempt a JOIN node_set s ON s.id = a.node_set_id JOIN node_set_verdict b ON b.set_id = s.base_id"
    " JOIN verdict v ON v.id = b.verdict_id"
    " WHERE NOT EXISTS (SELECT 1 FROM node_set_verdict d WHERE d.set_id = a.node_set_id AND d.node_id = b.node_id);";

/* Built at close: bulk-building an index once is cheaper than maintaining it per insert. */
static const char index_sql[] =
    "CREATE INDEX IF NOT EXISTS pod_event_by_pod ON pod_event(pod_id);"
    "CREATE INDEX IF NOT EXISTS pod_by_name ON pod(name);"
    "CREATE INDEX IF NOT EXISTS node_event_by_node ON node_event(node_id);"
    "CREATE INDEX IF NOT EXISTS sample_by_pool_t ON sample(pool, t_us);";
static const char full_index_sql[] =
    "CREATE INDEX IF NOT EXISTS attempt_by_pod ON attempt(pod_id, t_us);"
    "CREATE INDEX IF NOT EXISTS node_set_verdict_by_set ON node_set_verdict(set_id, node_id);"
    "CREATE INDEX IF NOT EXISTS attempt_score_by_attempt ON attempt_score(attempt_id);";

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
    ST_SAMPLE_DROP,
    ST_OBJECT,
    ST_CHECK,
    ST_STATUS,
    /* --trace-level full only (prepared when its tables exist) */
    ST_ATTEMPT,
    ST_ATTEMPT_BUMP,
    ST_VERDICT,
    ST_VERDICT_REASON,
    ST_NODE_SET,
    ST_NODE_SET_VERDICT,
    ST_ATTEMPT_SCORE,
    ST_COUNT
};
#define ST_FIRST_FULL ST_ATTEMPT

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
    [ST_SAMPLE_DROP] = "DELETE FROM sample WHERE rowid >= ?1",
    [ST_OBJECT] = "INSERT INTO object(t_us, kind, namespace, name, status, message)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_CHECK] = "INSERT OR REPLACE INTO expect_check(idx, line, what, pass, detail)"
                 " VALUES (?1, ?2, ?3, ?4, ?5)",
    /* In place: the status row keeps its position (rowid) in the run table. */
    [ST_STATUS] = "UPDATE run SET value = ?1 WHERE key = 'status'",
    [ST_ATTEMPT] = "INSERT INTO attempt(t_us, pod_id, node_id, feasible, evaluated, score, message, group_pod_id,"
                   " node_set_id, count, last_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?1)",
    [ST_ATTEMPT_BUMP] = "UPDATE attempt SET count = count + 1, last_us = ?1 WHERE id = ?2",
    [ST_VERDICT] = "INSERT INTO verdict(id, plugin, code, reason) VALUES (?1, ?2, ?3, ?4)",
    [ST_VERDICT_REASON] = "INSERT INTO verdict_reason(verdict_id, reason) VALUES (?1, ?2)",
    [ST_NODE_SET] = "INSERT INTO node_set(id, base_id) VALUES (?1, ?2)",
    [ST_NODE_SET_VERDICT] = "INSERT INTO node_set_verdict(set_id, node_id, verdict_id) VALUES (?1, ?2, ?3)",
    [ST_ATTEMPT_SCORE] = "INSERT INTO attempt_score(attempt_id, node_id, plugin, score, weight)"
                         " VALUES (?1, ?2, ?3, ?4, ?5)",
};

static const char *const level_names[] = {"summary", "events", "full"};

/* SQLite's unix VFS takes absolute paths of at most 512 bytes (mxPathname). */
#define GS_TRACE_SQLITE_PATH_MAX 512

/* How long gs_trace_finish waits for another connection (a reader of the running trace) to
 * let go before it settles the file, in milliseconds. */
#define GS_TRACE_FINISH_BUSY_MS 5000

/* The pod's last pod_event row, when it is a FailedScheduling: what the next one must match
 * to be folded into it. Only pods whose last event is a FailedScheduling have one (gs_trace's
 * lastfs map); rowids start at 1. */
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
    char *path;       /* the final name, where the trace is renamed at close */
    char *partial;    /* where it is written meanwhile (gs_trace_partial_path) */
    char *lock_path;  /* the lock file of the final name */
    int lock_fd;      /* held (flock) while the run writes; -1 none */
    volatile const int *stop; /* nonzero: stop the work of gs_trace_finish (gs_trace_set_stop) */
    gs_time last_sample_t;          /* time of the latest sample (its whole-cluster row) */
    int64_t last_sample_rowid;      /* rowid of that row, the first of its sample; 0: none */
    struct gs_intmap lastfs;        /* pod id -> struct gs_trace_lastfs (the value size is
                                     * set at the first pod event: lastfs_map) */
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
    /* Batches are committed at the run's checkpoints (gs_trace_checkpoint), between events;
     * one event that writes more than GS_TRACE_BATCH_MAX rows commits in its middle. */
    if (++t->pending >= GS_TRACE_BATCH_MAX)
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

enum gs_trace_file gs_trace_file_kind(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return errno == ENOENT ? GS_TRACE_FILE_NONE : GS_TRACE_FILE_OTHER;
    if (!S_ISREG(sb.st_mode))
        return GS_TRACE_FILE_OTHER;
    if (sb.st_size == 0)
        return GS_TRACE_FILE_EMPTY;
    FILE *f = fopen(path, "rb");
    if (!f)
        return GS_TRACE_FILE_OTHER;
    unsigned char h[100];
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    /* The database header: the magic string, then application_id big-endian at offset 68. */
    if (got != sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return GS_TRACE_FILE_OTHER;
    uint32_t app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
    return app == GS_TRACE_APPLICATION_ID ? GS_TRACE_FILE_TRACE : GS_TRACE_FILE_OTHER;
}

/* Only a gpusim trace (or an empty file, or nothing) may be replaced by a new trace, so a
 * mistyped `-o scenario.yaml` or `-o mydata.db` never destroys the user's data. */
static bool is_replaceable(const char *path)
{
    int k = gs_trace_file_kind(path);
    return k == GS_TRACE_FILE_NONE || k == GS_TRACE_FILE_EMPTY || k == GS_TRACE_FILE_TRACE;
}

/* Remove the database at `path` and its -journal, -wal and -shm files. */
static int remove_db(const char *path, char *errbuf, int errlen)
{
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

static void release_lock(struct gs_trace *t)
{
    if (t->lock_fd >= 0) {
        /* Unlink while holding the lock, so no one locks a file that is about to go. */
        unlink(t->lock_path);
        close(t->lock_fd);
        t->lock_fd = -1;
    }
}

static void free_trace(struct gs_trace *t)
{
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(t->st[i]);
    if (t->db)
        sqlite3_close(t->db);
    release_lock(t);
    int pos = 0;
    struct gs_trace_lastfs *last;
    while ((last = gs_intmap_next(&t->lastfs, &pos, NULL)))
        gs_free(last->msg);
    gs_intmap_free(&t->lastfs);
    gs_free(t->path);
    gs_free(t->partial);
    gs_free(t->lock_path);
    gs_free(t);
}

int gs_trace_partial_path(const char *path, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%s.partial", path);
    return k < 0 || (size_t)k >= n ? GS_ERANGE : 0;
}

/* A heap string "<dir of path>/.<base of path><suffix>". */
static char *sibling(const char *path, const char *prefix, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path + 1) : 0;
    size_t n = strlen(path) + strlen(prefix) + strlen(suffix) + 1;
    char *s = gs_malloc(n);
    if (s)
        snprintf(s, n, "%.*s%s%s%s", (int)dlen, path, prefix, path + dlen, suffix);
    return s;
}

/* The directory part of `path` ("." when none) into buf. */
static void dir_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, n, ".");
    else if (slash == path)
        snprintf(buf, n, "/");
    else
        snprintf(buf, n, "%.*s", (int)(slash - path), path);
}

/* The target's directory must exist and be writable (the trace is written beside the target
 * and renamed into place). */
static int check_dir(const char *path, char *errbuf, int errlen)
{
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        set_buf(errbuf, errlen, "cannot create trace '%s': directory '%s': %s", path, dir, strerror(errno));
        return GS_EIO;
    }
    if (!S_ISDIR(sb.st_mode)) {
        set_buf(errbuf, errlen, "cannot create trace '%s': '%s' is not a directory", path, dir);
        return GS_EIO;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        set_buf(errbuf, errlen, "cannot create trace '%s': directory '%s' is not writable (%s)", path, dir,
                strerror(errno));
        return GS_EIO;
    }
    return 0;
}

/* The files written beside the target must have names the file system and SQLite take:
 * PATH.partial-journal (the longest) at most NAME_MAX bytes in its directory, and at most
 * GS_TRACE_SQLITE_PATH_MAX bytes as an absolute path (SQLite's unix VFS: mxPathname 512, which
 * the journal's full name must fit too). Refused up front with the reason, instead of a
 * misleading "No such file or directory" from SQLite or "not a gpusim trace" from lstat. */
static int check_name_length(const char *path, char *errbuf, int errlen)
{
    static const char longest[] = ".partial-journal";
    char dir[4096];
    dir_of(path, dir, sizeof dir);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max <= 0)
        name_max = NAME_MAX;
    size_t need = strlen(base) + strlen(longest);
    if (need > (size_t)name_max) {
        set_buf(errbuf, errlen,
                "cannot create trace '%s': its file name is %zu bytes; gpusim also writes '<name>%s' beside "
                "it, which must fit in %ld bytes: choose a shorter name",
                path, strlen(base), longest, name_max);
        return GS_EIO;
    }
    char cwd[4096] = "";
    size_t abs_len = strlen(path) + strlen(longest);
    if (path[0] != '/') {
        if (!getcwd(cwd, sizeof cwd))
            cwd[0] = '\0';
        abs_len += strlen(cwd) + 1;
    }
    if (abs_len > GS_TRACE_SQLITE_PATH_MAX) {
        set_buf(errbuf, errlen,
                "cannot create trace '%s': its journal '%s%s' would have a %zu-byte absolute path, and SQLite opens "
                "paths of at most %d bytes: choose a shorter path",
                path, path, longest, abs_len, GS_TRACE_SQLITE_PATH_MAX);
        return GS_EIO;
    }
    return 0;
}

/* Own the target: an exclusive lock on its lock file, held until close (the kernel releases it
 * when the process dies, however it dies). Another live run holding it: refused. */
static int take_lock(struct gs_trace *t, char *errbuf, int errlen)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        /* O_NOFOLLOW: a symbolic link put at the lock's name must not make the run write its
         * pid into whatever file the link points to. */
        int fd = open(t->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            if (errno == ELOOP)
                set_buf(errbuf, errlen,
                        "cannot create trace '%s': its lock file '%s' is a symbolic link (remove it; gpusim "
                        "does not write through it)",
                        t->path, t->lock_path);
            else
                set_buf(errbuf, errlen, "cannot create trace '%s': lock file '%s': %s", t->path, t->lock_path,
                        strerror(errno));
            return GS_EIO;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            char pid[32] = "";
            ssize_t got = pread(fd, pid, sizeof pid - 1, 0);
            pid[got > 0 ? got : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            close(fd);
            if (e == EWOULDBLOCK) {
                set_buf(errbuf, errlen,
                        "cannot create trace '%s': another gpusim run%s%s%s is writing it (wait for it, or "
                        "choose another -o)",
                        t->path, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
                return GS_EBUSY;
            }
            set_buf(errbuf, errlen, "cannot create trace '%s': lock '%s': %s", t->path, t->lock_path,
                    strerror(e));
            return GS_EIO;
        }
        /* The file locked must still be the one at the path (a run finishing unlinks it). */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(t->lock_path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
            char pid[32];
            int k = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)k, 0) != k) {
                /* The pid is only for the message of a run that finds the lock taken. */
            }
            t->lock_fd = fd;
            return 0;
        }
        close(fd);
    }
    set_buf(errbuf, errlen, "cannot create trace '%s': its lock file '%s' keeps changing", t->path, t->lock_path);
    return GS_EIO;
}

int gs_trace_open(const char *path, enum gs_trace_level level, struct gs_trace **out, char *errbuf,
                  int errlen)
{
    if (!path || !out || (unsigned)level > GS_TRACE_FULL) {
        set_buf(errbuf, errlen, "gs_trace_open: invalid argument");
        return GS_EINVAL;
    }
    *out = NULL;
    int rc = check_dir(path, errbuf, errlen);
    if (rc == 0)
        rc = check_name_length(path, errbuf, errlen);
    if (rc != 0)
        return rc;
    struct stat sb;
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
        set_buf(errbuf, errlen, "cannot create trace '%s': it exists and is not a regular file", path);
        return GS_EIO;
    }
    if (!is_replaceable(path)) {
        set_buf(errbuf, errlen,
                "refusing to overwrite '%s': it exists and is not a gpusim trace (choose another -o path)", path);
        return GS_EIO;
    }

    struct gs_trace *t = gs_calloc(1, sizeof *t);
    char partial[4200];
    if (t)
        t->lock_fd = -1;
    if (!t || !(t->path = gs_strdup(path)) || gs_trace_partial_path(path, partial, sizeof partial) ||
        !(t->partial = gs_strdup(partial)) || !(t->lock_path = sibling(path, ".", ".lock"))) {
        if (t)
            free_trace(t);
        set_buf(errbuf, errlen, "out of memory");
        return GS_ENOMEM;
    }
    t->level = level;
    /* Under the lock, what is left of an earlier run that was killed is ours to replace. */
    if ((rc = take_lock(t, errbuf, errlen)) != 0 || (rc = remove_db(t->partial, errbuf, errlen)) != 0) {
        free_trace(t);
        return rc;
    }

    int src = gs_trace_db_open(t->partial, false, &t->db);
    if (src != SQLITE_OK) {
        int sys = t->db ? sqlite3_system_errno(t->db) : 0;
        set_buf(errbuf, errlen, "cannot create trace '%s': %s", t->partial,
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
        char *sql = sqlite3_mprintf("BEGIN; %s%s PRAGMA user_version=%d; PRAGMA application_id=%d;"
                                    " INSERT INTO run(key, value) VALUES ('status', 'running'),"
                                    " ('trace_level', '%s'); COMMIT;",
                                    schema_sql, level == GS_TRACE_FULL ? full_schema_sql : "",
                                    GS_TRACE_SCHEMA_VERSION, (int)GS_TRACE_APPLICATION_ID, level_names[level]);
        src = sql ? sqlite3_exec(t->db, sql, NULL, NULL, &emsg) : SQLITE_NOMEM;
        sqlite3_free(sql);
    }
    if (src != SQLITE_OK) {
        int sys = sqlite3_system_errno(t->db);
        set_buf(errbuf, errlen, "cannot create trace '%s': %s%s%s", t->partial,
                emsg ? emsg : sqlite3_errstr(src), sys ? ": " : "", sys ? strerror(sys) : "");
        sqlite3_free(emsg);
        free_trace(t);
        return src == SQLITE_NOMEM ? GS_ENOMEM : is_io_error(src) ? GS_EIO : GS_ESQL;
    }

    int nst = level == GS_TRACE_FULL ? ST_COUNT : ST_FIRST_FULL;
    for (int i = 0; i < nst; i++) {
        src = sqlite3_prepare_v3(t->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &t->st[i],
                                 NULL);
        if (src != SQLITE_OK) {
            set_buf(errbuf, errlen, "trace '%s': prepare: %s", t->partial, sqlite3_errmsg(t->db));
            free_trace(t);
            return GS_ESQL;
        }
    }
    *out = t;
    return 0;
}

/* Append `s` to the URI being built in uri (size n, k used), percent-escaping all but
 * unreserved characters and '/'. Returns the new length; the URI stays terminated. */
static size_t uri_escape(char *uri, size_t n, size_t k, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *c = (const unsigned char *)s; *c && k + 4 < n; c++) {
        if (isalnum(*c) || strchr("/-._~", *c)) {
            uri[k++] = (char)*c;
        } else {
            uri[k++] = '%';
            uri[k++] = hex[*c >> 4];
            uri[k++] = hex[*c & 15];
        }
    }
    uri[k] = '\0';
    return k;
}

int gs_trace_db_open(const char *path, bool readonly, sqlite3 **db)
{
    /* A file: URI with the path percent-escaped, so '?', '#' and '%' in a name stay part of
     * the name whatever SQLite's URI setting is. */
    char cwd[4096];
    *db = NULL;
    size_t n = strlen(path) * 3 + sizeof cwd * 3 + 32;
    char *uri = gs_malloc(n);
    if (!uri)
        return SQLITE_NOMEM;
    size_t k = (size_t)snprintf(uri, n, "file:");
    /* A relative path becomes absolute: a URI path is taken from the root. */
    if (path[0] != '/' && getcwd(cwd, sizeof cwd)) {
        k = uri_escape(uri, n, k, cwd);
        k = uri_escape(uri, n, k, "/");
    }
    uri_escape(uri, n, k, path);
    int flags = SQLITE_OPEN_URI | (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    int rc = sqlite3_open_v2(uri, db, flags, NULL);
    gs_free(uri);
    return rc;
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

/* The map of last FailedScheduling rows (the trace is zeroed at open: its value size is given
 * here, at first use). */
static struct gs_intmap *lastfs_map(struct gs_trace *t)
{
    if (t->lastfs.vsize == 0)
        gs_intmap_init(&t->lastfs, sizeof(struct gs_trace_lastfs));
    return &t->lastfs;
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
    struct gs_intmap *map = lastfs_map(t);
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    struct gs_trace_lastfs *last = gs_intmap_get(map, pod_id);
    int is_fs = reason && strcmp(reason, "FailedScheduling") == 0;

    if (is_fs && last && same_msg(last->msg, message)) {
        sqlite3_stmt *st = t->st[ST_POD_EVENT_BUMP];
        int brc = sqlite3_bind_int64(st, 1, t_us) | sqlite3_bind_int64(st, 2, last->rowid);
        return write_row(t, ST_POD_EVENT_BUMP, brc, "update pod_event");
    }

    /* Copy and make room first, so that running out of memory leaves the state as it was. */
    char *copy = NULL;
    bool created = false;
    if (is_fs) {
        if (message && !(copy = gs_strdup(message)))
            return GS_ENOMEM;
        void *v;
        if ((rc = gs_intmap_put(map, pod_id, &v, &created)) != 0) {
            gs_free(copy);
            return rc;
        }
        last = v;
    }
    sqlite3_stmt *st = t->st[ST_POD_EVENT];
    int brc = sqlite3_bind_int64(st, 1, t_us) | sqlite3_bind_int(st, 2, pod_id) |
              bind_text(st, 3, reason) | bind_text(st, 4, message);
    rc = write_row(t, ST_POD_EVENT, brc, "write pod_event");
    if (rc != 0) {
        gs_free(copy);
        if (created)
            gs_intmap_del(map, pod_id);
        return rc;
    }
    if (!last)
        return 0;
    gs_free(last->msg);
    if (!is_fs) {
        gs_intmap_del(map, pod_id); /* the last event is something else now */
        return 0;
    }
    /* A batch commit inside write_row leaves last_insert_rowid as it was. */
    last->msg = copy;
    last->rowid = sqlite3_last_insert_rowid(t->db);
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
    rc = write_row(t, ST_SAMPLE, brc, "write sample");
    if (rc == 0 && pool && !pool[0]) {
        /* a sample's rows begin with the whole cluster's (sim/metrics.c) */
        t->last_sample_t = m->t;
        t->last_sample_rowid = sqlite3_last_insert_rowid(t->db);
    }
    return rc;
}

int gs_trace_sample_drop_last(struct gs_trace *t, gs_time t_us)
{
    if (t->last_sample_rowid <= 0 || t->last_sample_t != t_us)
        return 0;
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    /* the latest sample's rows are the table's last ones (rowids only grow while nothing is
     * deleted, and only this deletes) */
    int brc = sqlite3_bind_int64(t->st[ST_SAMPLE_DROP], 1, t->last_sample_rowid);
    rc = write_row(t, ST_SAMPLE_DROP, brc, "replace sample");
    t->last_sample_rowid = 0;
    return rc;
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

bool gs_trace_wants_checkpoint(const struct gs_trace *t)
{
    return t->pending >= GS_TRACE_BATCH;
}

int gs_trace_checkpoint(struct gs_trace *t, gs_time complete_until_us)
{
    char v[32];
    snprintf(v, sizeof v, "%" PRId64, (int64_t)complete_until_us);
    int rc = gs_trace_run_kv(t, "complete_until_us", v);
    return rc ? rc : gs_trace_commit(t);
}

const char *gs_trace_errmsg(const struct gs_trace *t)
{
    return t->err;
}

/* Move the finished PATH.partial to PATH. The old PATH's -journal, -wal and -shm files go
 * first: SQLite would otherwise take them for the new file's. */
static int rename_into_place(struct gs_trace *t)
{
    static const char *const suffixes[] = {"-journal", "-wal", "-shm"};
    char p[4200];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        snprintf(p, sizeof p, "%s%s", t->path, suffixes[i]);
        if (unlink(p) != 0 && errno != ENOENT) {
            set_buf(t->err, (int)sizeof t->err, "trace '%s': cannot remove '%s': %s", t->path, p, strerror(errno));
            return GS_EIO;
        }
    }
    if (rename(t->partial, t->path) != 0) {
        set_buf(t->err, (int)sizeof t->err, "trace '%s': cannot rename '%s' into place: %s", t->path, t->partial,
                 strerror(errno));
        return GS_EIO;
    }
    return 0;
}

/* Set run.status in place (gs_trace_finish's last word on a run it first marked running). */
static int set_status(struct gs_trace *t, const char *status)
{
    int rc = begin_write(t);
    if (rc != 0)
        return rc;
    rc = write_row(t, ST_STATUS, bind_text(t->st[ST_STATUS], 1, status), "write run status");
    return rc ? rc : commit(t);
}

void gs_trace_set_stop(struct gs_trace *t, volatile const int *stop)
{
    if (t)
        t->stop = stop;
}

/* SQLite's progress handler while gs_trace_finish builds the indexes: nonzero interrupts the
 * statement (SQLITE_INTERRUPT), which rolls back only the index being built. */
static int finish_progress(void *arg)
{
    const struct gs_trace *t = arg;
    return t->stop && *t->stop;
}

/* sqlite3_exec callback: copy the journal mode a PRAGMA journal_mode answers into arg
 * (char[16]). */
static int journal_mode_row(void *arg, int ncol, char **vals, char **names)
{
    (void)names;
    if (ncol > 0 && vals[0])
        snprintf(arg, 16, "%s", vals[0]);
    return 0;
}

/* Make the database file hold every committed transaction by itself, as a file renamed into
 * place must (its -wal would not follow it): leave WAL mode, or, when another connection (a
 * reader of the running trace: `gpusim report`, sqlite3) keeps it from doing so, copy the whole
 * WAL into the file with a TRUNCATE checkpoint. Either waits up to GS_TRACE_FINISH_BUSY_MS for
 * readers. *wal_left says the file is still in WAL mode (then every later commit must be
 * checkpointed again). Returns 0, or GS_EBUSY (readers kept it busy) or GS_ESQL (an I/O
 * error, the disk full or the file-size limit: in t->err with the system's reason). */
static int settle(struct gs_trace *t, bool *wal_left)
{
    *wal_left = false;
    sqlite3_busy_timeout(t->db, GS_TRACE_FINISH_BUSY_MS);
    char mode[16] = "";
    int rc = sqlite3_exec(t->db, "PRAGMA journal_mode=DELETE", journal_mode_row, mode, NULL);
    /* The pragma answers with the mode it is in: SQLITE_BUSY when readers hold the file, and
     * "wal" (not an error) should it ever keep WAL mode for another reason. */
    if (rc == SQLITE_OK && strcmp(mode, "wal") != 0)
        return 0;
    int code = rc == SQLITE_OK ? SQLITE_BUSY : sqlite3_errcode(t->db) & 0xff;
    if (code != SQLITE_BUSY && code != SQLITE_LOCKED)
        return fail(t, "leave write-ahead-log mode");
    *wal_left = true;
    int log = -1, done = -1;
    rc = sqlite3_wal_checkpoint_v2(t->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    if (rc == SQLITE_OK && log == 0)
        return 0;
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
        return fail(t, "checkpoint");
    set_buf(t->err, (int)sizeof t->err,
            "trace '%s': another process kept it open (reading it) for more than %d s, so the trace stays in "
            "write-ahead-log mode (with '%s-wal') and is not moved into place",
            t->partial, GS_TRACE_FINISH_BUSY_MS / 1000, t->partial);
    return GS_EBUSY;
}

int gs_trace_finish(struct gs_trace *t, const char *status, gs_time end_us, bool *renamed, char *errbuf,
                    int errlen)
{
    if (renamed)
        *renamed = false;
    if (!t)
        return 0;
    int first = t->failed;
    int rc = status ? 0 : GS_EINVAL;
    /* A trace that lost rows must not claim a complete run: it gets status 'failed' and the
     * error, if the database still takes writes (the disk may have room again). */
    if (first || !status)
        status = "failed";
    bool complete = strcmp(status, "complete") == 0;
    t->failed = 0;
    char end[32];
    snprintf(end, sizeof end, "%" PRId64, (int64_t)end_us);
    /* 1. The status and the end. `complete` is written last, in place of `running`, once the
     *    indexes are built and the file is settled: a trace that says complete is one. */
    int wrc = gs_trace_run_kv(t, "status", complete ? "running" : status);
    if (wrc == 0)
        wrc = gs_trace_run_kv(t, "end_us", end);
    if (wrc == 0 && first)
        wrc = gs_trace_run_kv(t, "error", t->err);
    if (wrc == 0)
        wrc = commit(t);
    /* 2. The indexes. Sorting for them spills to temporary files, not memory: with temp_store
     *    MEMORY the sort of a million-pod run's pod_event table would hold it all in RAM. A
     *    stop request (SIGINT, SIGTERM) interrupts them: a trace without its indexes is still
     *    whole, only slower to query. */
    bool interrupted = t->stop && *t->stop;
    if (wrc == 0 && !interrupted) {
        sqlite3_progress_handler(t->db, 10000, finish_progress, t);
        if (sqlite3_exec(t->db, "PRAGMA temp_store=FILE", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(t->db, index_sql, NULL, NULL, NULL) != SQLITE_OK ||
            (t->level == GS_TRACE_FULL && sqlite3_exec(t->db, full_index_sql, NULL, NULL, NULL) != SQLITE_OK)) {
            if ((sqlite3_errcode(t->db) & 0xff) == SQLITE_INTERRUPT)
                interrupted = true;
            else
                wrc = fail(t, "create indexes");
        }
        sqlite3_progress_handler(t->db, 0, NULL, NULL);
    }
    /* 3. One self-contained file, then (for a complete run) the status, in it. */
    bool wal_left = false;
    int src = 0;
    if (wrc == 0 && complete && interrupted) {
        status = "interrupted";
        wrc = set_status(t, status);
        rc = rc ? rc : GS_EINTERRUPTED;
    } else if (wrc == 0) {
        src = settle(t, &wal_left);
        if (complete && (src == 0 || src == GS_EBUSY)) {
            /* Also when readers kept the WAL from being emptied: the trace is complete then,
             * in PATH.partial and its -wal, only not moved into place. */
            wrc = set_status(t, status);
            bool again = false;
            if (wrc == 0 && src == 0 && wal_left)
                src = settle(t, &again);
        }
    }
    if ((wrc != 0 || (src != 0 && src != GS_EBUSY)) && complete && !first) {
        /* Best effort: say why it is not complete (the disk may be full). */
        char why[sizeof t->err];
        snprintf(why, sizeof why, "%s", t->err);
        t->failed = 0;
        if (set_status(t, "failed") == 0 && gs_trace_run_kv(t, "error", why) == 0)
            commit(t);
        snprintf(t->err, sizeof t->err, "%s", why);
    }
    if (rc == 0)
        rc = first ? first : wrc ? wrc : complete ? src : 0;
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(t->st[i]);
        t->st[i] = NULL;
    }
    if (sqlite3_close(t->db) != SQLITE_OK) {
        if (rc == 0)
            rc = fail(t, "close");
        /* sqlite3_close refuses only while statements are live; all are finalized, so this
         * is unreachable, but never leak the handle. */
        sqlite3_close_v2(t->db);
    }
    t->db = NULL;
    if (rc == 0 && complete) {
        rc = rename_into_place(t);
        if (rc == 0 && renamed)
            *renamed = true;
        if (rc == 0 && wal_left) {
            /* The reader that kept the file in WAL mode still has PATH.partial's (empty) -wal and
             * -shm open; the trace no longer needs them, and new readers of PATH use PATH's own. */
            char p[4200];
            snprintf(p, sizeof p, "%s-wal", t->partial);
            unlink(p);
            snprintf(p, sizeof p, "%s-shm", t->partial);
            unlink(p);
        }
    }
    if (rc != 0 && rc != GS_EINTERRUPTED) {
        if (t->err[0])
            set_buf(errbuf, errlen, "%s; what was written is in '%s'", t->err, t->partial);
        else
            set_buf(errbuf, errlen, "trace '%s': closed without a status", t->path);
    }
    free_trace(t);
    return rc;
}

int gs_trace_close(struct gs_trace *t, const char *status, gs_time end_us)
{
    return gs_trace_finish(t, status, end_us, NULL, NULL, 0);
}

/* ------------------------------------------------------------------ scheduling attempts */

/* The statement `which` of the attempt tables, ready to bind: *st NULL (and 0) below
 * --trace-level full, where they are not written; the trace's first error once it failed. */
static int begin_full(struct gs_trace *t, int which, sqlite3_stmt **st)
{
    *st = NULL;
    if (t->failed)
        return t->failed;
    if (t->level != GS_TRACE_FULL)
        return 0;
    int rc = begin_write(t);
    if (rc == 0)
        *st = t->st[which];
    return rc;
}

int gs_trace_attempt(struct gs_trace *t, const struct gs_trace_attempt *a, int64_t *id)
{
    *id = 0;
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_ATTEMPT, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int64(st, 1, a->t_us) | sqlite3_bind_int(st, 2, a->pod_id) | bind_opt(st, 3, a->node_id) |
              sqlite3_bind_int(st, 4, a->feasible) | sqlite3_bind_int(st, 5, a->evaluated) |
              (a->scored ? sqlite3_bind_int64(st, 6, a->score) : sqlite3_bind_null(st, 6)) |
              bind_text(st, 7, a->message) | bind_opt(st, 8, a->group_pod_id) | sqlite3_bind_int(st, 9, a->node_set_id);
    rc = write_row(t, ST_ATTEMPT, brc, "write attempt");
    if (rc == 0)
        *id = sqlite3_last_insert_rowid(t->db);
    return rc;
}

int gs_trace_attempt_again(struct gs_trace *t, int64_t id, gs_time t_us)
{
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_ATTEMPT_BUMP, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int64(st, 1, t_us) | sqlite3_bind_int64(st, 2, id);
    return write_row(t, ST_ATTEMPT_BUMP, brc, "write attempt");
}

int gs_trace_verdict(struct gs_trace *t, int id, const char *plugin, const char *code, const char *reason)
{
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_VERDICT, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int(st, 1, id) | bind_text(st, 2, plugin) | bind_text(st, 3, code) |
              bind_text(st, 4, reason);
    return write_row(t, ST_VERDICT, brc, "write verdict");
}

int gs_trace_verdict_reason(struct gs_trace *t, int verdict_id, const char *reason)
{
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_VERDICT_REASON, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int(st, 1, verdict_id) | bind_text(st, 2, reason);
    return write_row(t, ST_VERDICT_REASON, brc, "write verdict_reason");
}

int gs_trace_node_set(struct gs_trace *t, int id, int base_id)
{
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_NODE_SET, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int(st, 1, id) | (base_id > 0 ? sqlite3_bind_int(st, 2, base_id) : sqlite3_bind_null(st, 2));
    return write_row(t, ST_NODE_SET, brc, "write node_set");
}

int gs_trace_node_set_verdict(struct gs_trace *t, int set_id, int node_id, int verdict_id)
{
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_NODE_SET_VERDICT, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int(st, 1, set_id) | sqlite3_bind_int(st, 2, node_id) | sqlite3_bind_int(st, 3, verdict_id);
    return write_row(t, ST_NODE_SET_VERDICT, brc, "write node_set_verdict");
}

int gs_trace_attempt_score(struct gs_trace *t, int64_t attempt_id, int node_id, const char *plugin, int64_t score,
                           int64_t weight)
{
    sqlite3_stmt *st;
    int rc = begin_full(t, ST_ATTEMPT_SCORE, &st);
    if (rc != 0 || !st)
        return rc;
    int brc = sqlite3_bind_int64(st, 1, attempt_id) | sqlite3_bind_int(st, 2, node_id) | bind_text(st, 3, plugin) |
              sqlite3_bind_int64(st, 4, score) | sqlite3_bind_int64(st, 5, weight);
    return write_row(t, ST_ATTEMPT_SCORE, brc, "write attempt_score");
}

bool gs_trace_full(const struct gs_trace *t)
{
    return t && t->level == GS_TRACE_FULL;
}
