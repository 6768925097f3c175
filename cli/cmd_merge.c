/* gpusim merge DIR|TRACE... -o all.db: the traces of a sweep in one SQLite database, every
 * table with a `run` column in front (docs/trace-schema.md, "Merged traces"). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "base/alloc.h"
#include "base/array.h"
#include "sim/trace.h"
#include "cli/cli.h"

/* PRAGMA application_id of a merged database: "GPSM" in ASCII; user_version its schema. */
#define GS_MERGE_APPLICATION_ID 0x4750534d
#define GS_MERGE_SCHEMA_VERSION 1

static const char usage[] =
    "usage: gpusim merge DIR|TRACE... -o OUT.db\n"
    "\n"
    "Copy gpusim traces into one SQLite database: each trace table with a `run` column (the\n"
    "run's name) in front, the trace's `run` table as run_info(run, key, value), and a `runs`\n"
    "table with one row per run (file, scenario, seed, status, exit status, overrides as JSON).\n"
    "A DIR stands for its *.db files (a sweep's directory: names, seeds and overrides come from\n"
    "its sweep*.json manifests); a run's name is its file name without .db.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the merged database, written to FILE.partial and renamed when done;\n"
    "                      an existing FILE is replaced only if it is a merged database (or empty)\n"
    "\n"
    "exit status: 0 done, 2 usage error, an input that is not a gpusim trace or of another\n"
    "schema version (nothing is written then), or an I/O error, 4 internal error.\n";

struct input {
    char *path;        /* as found */
    char *name;        /* the run's name */
    json_t *manifest;  /* its run object in a sweep manifest, or NULL (borrowed from `manifests`) */
};

struct merge {
    struct input *in;
    int n, cap;
    json_t *manifests; /* array of the manifests read */
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read DIR's sweep.json and sweep-K-of-N.json into m->manifests. */
static void read_manifests(struct merge *m, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int k, n, len = 0;
        if (strcmp(e->d_name, "sweep.json") != 0 &&
            (sscanf(e->d_name, "sweep-%d-of-%d.json%n", &k, &n, &len) != 2 || e->d_name[len] != 0))
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        json_t *j = json_load_file(path, 0, NULL);
        if (!j)
            continue;
        json_object_set_new(j, "_dir", json_string(dir));
        json_array_append_new(m->manifests, j);
    }
    closedir(d);
}

/* The run object of the manifest entry for file `base` in `dir`: a done one when there are several. */
static json_t *manifest_run(struct merge *m, const char *dir, const char *base)
{
    json_t *best = NULL;
    size_t i;
    json_t *man;
    json_array_foreach(m->manifests, i, man) {
        if (strcmp(json_string_value(json_object_get(man, "_dir")), dir) != 0)
            continue;
        size_t k;
        json_t *r;
        json_array_foreach(json_object_get(man, "runs"), k, r) {
            const char *f = json_string_value(json_object_get(r, "file"));
            if (!f || strcmp(f, base) != 0)
                continue;
            const char *st = json_string_value(json_object_get(r, "status"));
            if (!best || (st && (strcmp(st, "done") == 0 || strcmp(st, "skipped") == 0)))
                best = r;
        }
    }
    return best;
}

static int add_input(struct merge *m, const char *path)
{
    if (GS_GROW(m->in, m->cap, m->n + 1))
        return -1;
    struct input *in = &m->in[m->n];
    memset(in, 0, sizeof *in);
    in->path = gs_strdup(path);
    if (!in->path)
        return -1;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[PATH_MAX];
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    int seen = 0;
    size_t i;
    json_t *man;
    json_array_foreach(m->manifests, i, man) seen |= strcmp(json_string_value(json_object_get(man, "_dir")), dir) == 0;
    if (!seen)
        read_manifests(m, dir);
    in->manifest = manifest_run(m, dir, base);
    const char *mname = json_string_value(json_object_get(in->manifest, "name"));
    if (mname)
        in->name = gs_strdup(mname);
    else
        in->name = gs_strndup(base, strlen(base) - (ends_with(base, ".db") ? 3 : 0));
    if (!in->name)
        return -1;
    m->n++;
    return 0;
}

/* DIR: its *.db files in name order (not the output itself). */
static int add_dir(struct merge *m, const char *dir, const char *out_real)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "gpusim merge: cannot read the directory '%s': %s\n", dir, strerror(errno));
        return GS_EXIT_USAGE;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    int rc = GS_EXIT_OK;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".db"))
            continue;
        if (GS_GROW(names, cap, n + 1) || !(names[n] = gs_strdup(e->d_name))) {
            rc = GS_EXIT_INTERNAL;
            break;
        }
        n++;
    }
    closedir(d);
    if (n > 0)
        qsort(names, (size_t)n, sizeof *names, cmp_str);
    int added = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX], real[PATH_MAX];
        size_t dl = strlen(dir);
        snprintf(path, sizeof path, "%.*s/%s", (int)(dl > 1 && dir[dl - 1] == '/' ? dl - 1 : dl), dir, names[i]);
        if (out_real[0] && realpath(path, real) && strcmp(real, out_real) == 0)
            continue;
        if (rc == GS_EXIT_OK && add_input(m, path))
            rc = GS_EXIT_INTERNAL;
        added++;
    }
    for (int i = 0; i < n; i++)
        gs_free(names[i]);
    gs_free(names);
    if (rc == GS_EXIT_OK && added == 0) {
        fprintf(stderr, "gpusim merge: no traces (*.db) in '%s'\n", dir);
        rc = GS_EXIT_USAGE;
    }
    return rc;
}

/* Check that `path` is a gpusim trace of this schema version. Returns 0 or prints why and
 * returns -1. */
static int check_trace(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "gpusim merge: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "gpusim merge: %s: not a regular file\n", path);
        return -1;
    }
    if (gs_trace_file_kind(path) != GS_TRACE_FILE_TRACE) {
        fprintf(stderr, "gpusim merge: %s: not a gpusim trace (no gpusim application_id in its SQLite header)\n",
                path);
        return -1;
    }
    sqlite3 *db;
    int rc = -1;
    if (gs_trace_db_open(path, true, &db) == SQLITE_OK) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW) {
            int v = sqlite3_column_int(q, 0);
            if (v == GS_TRACE_SCHEMA_VERSION)
                rc = 0;
            else
                fprintf(stderr,
                        "gpusim merge: %s: trace schema version %d, this gpusim merges version %d only: merge "
                        "traces written by one gpusim version\n",
                        path, v, GS_TRACE_SCHEMA_VERSION);
        } else {
            fprintf(stderr, "gpusim merge: %s: cannot read it: %s\n", path, sqlite3_errmsg(db));
        }
        sqlite3_finalize(q);
    } else {
        fprintf(stderr, "gpusim merge: %s: cannot open it: %s\n", path, db ? sqlite3_errmsg(db) : "out of memory");
    }
    sqlite3_close(db);
    return rc;
}

/* "file:<absolute path, percent-escaped>?mode=ro" (sqlite3_free it). */
static char *ro_uri(const char *path)
{
    char abs[PATH_MAX * 2];
    if (path[0] == '/') {
        snprintf(abs, sizeof abs, "%s", path);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return NULL;
        snprintf(abs, sizeof abs, "%s/%s", cwd, path);
    }
    size_t n = strlen(abs) * 3 + 32;
    char *u = sqlite3_malloc64(n);
    if (!u)
        return NULL;
    size_t k = (size_t)snprintf(u, n, "file:");
    for (const unsigned char *c = (const unsigned char *)abs; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("/._~-", *c))
            u[k++] = (char)*c;
        else
            k += (size_t)snprintf(u + k, n - k, "%%%02X", *c);
    }
    snprintf(u + k, n - k, "?mode=ro");
    return u;
}

static int exec(sqlite3 *db, const char *sql)
{
    char *e = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
    if (rc != SQLITE_OK)
        fprintf(stderr, "gpusim merge: %s\n  in: %.200s\n", e ? e : sqlite3_errstr(rc), sql);
    sqlite3_free(e);
    return rc;
}

/* Does main.<table> have column `col`? -1 when the table does not exist. */
static int has_column(sqlite3 *db, const char *table, const char *col)
{
    sqlite3_stmt *q;
    char *sql = sqlite3_mprintf("PRAGMA main.table_info(\"%w\")", table);
    int found = -1;
    if (sql && sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW) {
            if (found < 0)
                found = 0;
            if (strcmp((const char *)sqlite3_column_text(q, 1), col) == 0)
                found = 1;
        }
        sqlite3_finalize(q);
    }
    sqlite3_free(sql);
    return found;
}

/* Copy every table of the attached trace `src` into main, each row prefixed with run = name. */
static int copy_tables(sqlite3 *db, const char *name, sqlite3_int64 *rows)
{
    sqlite3_stmt *tq;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT name FROM src.sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                "'sqlite_%' ORDER BY name",
                                -1, &tq, NULL);
    if (rc != SQLITE_OK)
        return rc;
    while (rc == SQLITE_OK && sqlite3_step(tq) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(tq, 0);
        const char *target = strcmp(t, "run") == 0 ? "run_info" : t;
        if (strcmp(target, "runs") == 0)
            continue;
        /* The columns of the source table, added to the target when it lacks them. */
        sqlite3_stmt *cq;
        char *sql = sqlite3_mprintf("PRAGMA src.table_info(\"%w\")", t);
        rc = sql ? sqlite3_prepare_v2(db, sql, -1, &cq, NULL) : SQLITE_NOMEM;
        sqlite3_free(sql);
        if (rc != SQLITE_OK)
            break;
        char *cols = sqlite3_mprintf("");
        int exists = has_column(db, target, "run") >= 0;
        char *create = exists ? NULL : sqlite3_mprintf("CREATE TABLE main.\"%w\" (run TEXT", target);
        while (rc == SQLITE_OK && sqlite3_step(cq) == SQLITE_ROW) {
            const char *c = (const char *)sqlite3_column_text(cq, 1);
            const char *type = (const char *)sqlite3_column_text(cq, 2);
            char *nc = sqlite3_mprintf("%s, \"%w\"", cols, c);
            sqlite3_free(cols);
            cols = nc;
            if (!exists) {
                char *ncr = sqlite3_mprintf("%s, \"%w\" %s", create, c, type ? type : "");
                sqlite3_free(create);
                create = ncr;
            } else if (has_column(db, target, c) == 0) {
                char *alter = sqlite3_mprintf("ALTER TABLE main.\"%w\" ADD COLUMN \"%w\" %s", target, c,
                                              type ? type : "");
                rc = alter ? exec(db, alter) : SQLITE_NOMEM;
                sqlite3_free(alter);
            }
        }
        sqlite3_finalize(cq);
        if (rc == SQLITE_OK && !exists) {
            char *c2 = create ? sqlite3_mprintf("%s)", create) : NULL;
            rc = c2 ? exec(db, c2) : SQLITE_NOMEM;
            sqlite3_free(c2);
        }
        sqlite3_free(create);
        if (rc == SQLITE_OK) {
            sqlite3_stmt *ins;
            sql = cols ? sqlite3_mprintf("INSERT INTO main.\"%w\" (run%s) SELECT ?1%s FROM src.\"%w\" ORDER BY rowid",
                                         target, cols, cols, t)
                       : NULL;
            rc = sql ? sqlite3_prepare_v2(db, sql, -1, &ins, NULL) : SQLITE_NOMEM;
            if (rc != SQLITE_OK)
                fprintf(stderr, "gpusim merge: %s\n", sqlite3_errmsg(db));
            sqlite3_free(sql);
            if (rc == SQLITE_OK) {
                sqlite3_bind_text(ins, 1, name, -1, SQLITE_STATIC);
                rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
                if (rc != SQLITE_OK)
                    fprintf(stderr, "gpusim merge: copying table %s: %s\n", t, sqlite3_errmsg(db));
                *rows += sqlite3_changes64(db);
                sqlite3_finalize(ins);
            }
        }
        sqlite3_free(cols);
    }
    sqlite3_finalize(tq);
    return rc;
}

/* The runs row of one input, read from the attached trace and its manifest entry. */
static int insert_runs_row(sqlite3 *db, const struct input *in)
{
    /* Overrides: the trace's own override.<PATH> keys when it has them, else the manifest's. */
    json_t *ov = json_object();
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT substr(key, 10), value FROM src.run WHERE key LIKE 'override.%' ORDER BY rowid",
                           -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW)
            json_object_set_new(ov, (const char *)sqlite3_column_text(q, 0),
                                json_string((const char *)sqlite3_column_text(q, 1)));
        sqlite3_finalize(q);
    }
    json_t *mo = json_object_get(in->manifest, "overrides");
    if (json_object_size(ov) == 0 && json_is_object(mo))
        json_object_update(ov, mo);
    size_t need = json_dumpb(ov, NULL, 0, JSON_COMPACT);
    char *ovs = need ? gs_malloc(need + 1) : NULL;
    if (ovs) {
        json_dumpb(ov, ovs, need, JSON_COMPACT);
        ovs[need] = 0;
    }
    json_decref(ov);
    int rc = sqlite3_prepare_v2(
        db,
        "INSERT INTO main.runs (run, file, scenario, seed, status, exit_status, checks_failed, overrides) "
        "VALUES (?1, ?2, (SELECT value FROM src.run WHERE key = 'scenario'), "
        "coalesce(?3, (SELECT CAST(value AS INTEGER) FROM src.run WHERE key = 'seed')), "
        "(SELECT value FROM src.run WHERE key = 'status'), ?4, "
        "(SELECT count(*) FROM src.expect_check WHERE pass = 0), ?5)",
        -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(q, 1, in->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, in->path, -1, SQLITE_STATIC);
        json_t *seed = json_object_get(in->manifest, "seed");
        if (json_is_integer(seed))
            sqlite3_bind_int64(q, 3, json_integer_value(seed));
        json_t *ex = json_object_get(in->manifest, "exitStatus");
        if (json_is_integer(ex))
            sqlite3_bind_int64(q, 4, json_integer_value(ex));
        sqlite3_bind_text(q, 5, ovs ? ovs : "{}", -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
        if (rc != SQLITE_OK)
            fprintf(stderr, "gpusim merge: %s: runs row: %s\n", in->path, sqlite3_errmsg(db));
    }
    sqlite3_finalize(q);
    gs_free(ovs);
    return rc;
}

/* Indexes on (run, ...) for what a trace indexes (its primary keys and docs/trace-schema.md
 * "Indexes"), for the tables present. */
static int make_indexes(sqlite3 *db)
{
    static const char *const idx[][3] = {
        {"run_info", "run_info_run_key", "run, key"},   {"node", "node_run_id", "run, id"},
        {"node", "node_run_name", "run, name"},         {"node_event", "node_event_run_node", "run, node_id"},
        {"pod", "pod_run_id", "run, id"},               {"pod", "pod_run_name", "run, name"},
        {"pod_event", "pod_event_run_pod", "run, pod_id"}, {"sample", "sample_run_pool_t", "run, pool, t_us"},
        {"expect_check", "expect_check_run_idx", "run, idx"}, {"object", "object_run_kind", "run, kind, name"},
    };
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        if (has_column(db, idx[i][0], "run") < 0)
            continue;
        char *sql = sqlite3_mprintf("CREATE INDEX \"%w\" ON \"%w\" (%s)", idx[i][1], idx[i][0], idx[i][2]);
        int rc = sql ? exec(db, sql) : SQLITE_NOMEM;
        sqlite3_free(sql);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

/* May `out` be replaced: missing, empty, or a merged database? */
static int replaceable(const char *out)
{
    struct stat st;
    if (lstat(out, &st) != 0)
        return errno == ENOENT;
    if (!S_ISREG(st.st_mode))
        return 0;
    if (st.st_size == 0)
        return 1;
    FILE *f = fopen(out, "rb");
    unsigned char h[72];
    int ok = f && fread(h, 1, sizeof h, f) == sizeof h && memcmp(h, "SQLite format 3", 16) == 0 &&
             ((uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71]) == GS_MERGE_APPLICATION_ID;
    if (f)
        fclose(f);
    return ok;
}

int gs_cmd_merge(int argc, char **argv)
{
    const char *out = NULL;
    json_set_alloc_funcs(gs_malloc, gs_free);
    const char **args = gs_calloc((size_t)argc, sizeof *args);
    int nargs = 0;
    if (!args)
        return GS_EXIT_INTERNAL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            gs_free(args);
            return GS_EXIT_OK;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "gpusim merge: -o needs a file name\n");
                gs_free(args);
                return GS_EXIT_USAGE;
            }
            out = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpusim merge: unknown option '%s'\n\n%s", a, usage);
            gs_free(args);
            return GS_EXIT_USAGE;
        } else {
            args[nargs++] = a;
        }
    }
    if (!out || nargs == 0) {
        fprintf(stderr, "gpusim merge: %s\n\n%s", !out ? "no -o FILE given" : "no traces given", usage);
        gs_free(args);
        return GS_EXIT_USAGE;
    }
    if (!replaceable(out)) {
        fprintf(stderr, "gpusim merge: %s exists and is not a merged gpusim database: not replaced\n", out);
        gs_free(args);
        return GS_EXIT_USAGE;
    }
    char out_real[PATH_MAX] = "";
    if (!realpath(out, out_real))
        out_real[0] = 0;

    struct merge m = {.manifests = json_array()};
    int rc = GS_EXIT_OK;
    for (int i = 0; i < nargs && rc == GS_EXIT_OK; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_dir(&m, args[i], out_real);
        else if (add_input(&m, args[i]))
            rc = GS_EXIT_INTERNAL;
    }
    gs_free(args);
    /* Every input is checked before anything is written. */
    for (int i = 0; i < m.n && rc == GS_EXIT_OK; i++) {
        if (check_trace(m.in[i].path))
            rc = GS_EXIT_USAGE;
        for (int j = 0; j < i && rc == GS_EXIT_OK; j++)
            if (strcmp(m.in[i].name, m.in[j].name) == 0) {
                fprintf(stderr, "gpusim merge: two runs named '%s' (%s and %s): merge them apart or rename one\n",
                        m.in[i].name, m.in[j].path, m.in[i].path);
                rc = GS_EXIT_USAGE;
            }
    }

    char partial[PATH_MAX + 16];
    snprintf(partial, sizeof partial, "%s.partial", out);
    sqlite3 *db = NULL;
    sqlite3_int64 rows = 0;
    double t0 = now_s();
    if (rc == GS_EXIT_OK) {
        unlink(partial);
        if (gs_trace_db_open(partial, false, &db) != SQLITE_OK) {
            fprintf(stderr, "gpusim merge: cannot create %s: %s\n", partial, db ? sqlite3_errmsg(db) : "out of memory");
            rc = GS_EXIT_USAGE;
        }
    }
    if (rc == GS_EXIT_OK) {
        char pragmas[256];
        snprintf(pragmas, sizeof pragmas,
                 "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA application_id=%d; "
                 "PRAGMA user_version=%d;",
                 GS_MERGE_APPLICATION_ID, GS_MERGE_SCHEMA_VERSION);
        if (exec(db, pragmas) ||
            exec(db, "CREATE TABLE runs (run TEXT PRIMARY KEY, file TEXT, scenario TEXT, seed INTEGER, "
                     "status TEXT, exit_status INTEGER, checks_failed INTEGER, overrides TEXT)"))
            rc = GS_EXIT_USAGE;
    }
    /* One trace attached at a time (SQLite allows 10 by default), one transaction each. */
    for (int i = 0; i < m.n && rc == GS_EXIT_OK; i++) {
        char *uri = ro_uri(m.in[i].path);
        sqlite3_stmt *at;
        int src = uri ? sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &at, NULL) : SQLITE_NOMEM;
        if (src == SQLITE_OK) {
            sqlite3_bind_text(at, 1, uri, -1, SQLITE_STATIC);
            src = sqlite3_step(at) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
            sqlite3_finalize(at);
        }
        sqlite3_free(uri);
        if (src != SQLITE_OK) {
            fprintf(stderr, "gpusim merge: cannot attach %s: %s\n", m.in[i].path, sqlite3_errmsg(db));
            rc = GS_EXIT_USAGE;
            break;
        }
        if (exec(db, "BEGIN") || copy_tables(db, m.in[i].name, &rows) || insert_runs_row(db, &m.in[i]) ||
            exec(db, "COMMIT")) {
            fprintf(stderr, "gpusim merge: merging %s failed\n", m.in[i].path);
            rc = GS_EXIT_USAGE;
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
        if (exec(db, "DETACH src") && rc == GS_EXIT_OK)
            rc = GS_EXIT_USAGE;
    }
    if (rc == GS_EXIT_OK && (exec(db, "BEGIN") || make_indexes(db) || exec(db, "COMMIT")))
        rc = GS_EXIT_USAGE;
    if (db && sqlite3_close(db) != SQLITE_OK && rc == GS_EXIT_OK) {
        fprintf(stderr, "gpusim merge: cannot close %s\n", partial);
        rc = GS_EXIT_USAGE;
    }
    if (rc == GS_EXIT_OK && rename(partial, out) != 0) {
        fprintf(stderr, "gpusim merge: cannot rename %s to %s: %s\n", partial, out, strerror(errno));
        rc = GS_EXIT_USAGE;
    }
    if (rc != GS_EXIT_OK && db)
        unlink(partial);
    if (rc == GS_EXIT_OK)
        printf("merged %d run%s (%lld rows) into %s in %.1f s\n", m.n, m.n == 1 ? "" : "s", (long long)rows, out,
               now_s() - t0);
    for (int i = 0; i < m.n; i++) {
        gs_free(m.in[i].path);
        gs_free(m.in[i].name);
    }
    gs_free(m.in);
    json_decref(m.manifests);
    return rc;
}
