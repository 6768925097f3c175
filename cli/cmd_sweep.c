/* gpusim sweep SCENARIO --vary PATH=V1,V2 ...: the cross product of varied --set values and
 * seeds, one `gpusim run` child process per run, a trace per run in DIR, a manifest of them all
 * (docs/sweep.md). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "base/alloc.h"
#include "base/shellword.h"
#include "base/array.h"
#include "sim/trace.h"
#include "cli/cli.h"

#define MAX_VARY 16
#define MAX_SETS 32
#define MAX_SEEDS 10000
#define MAX_RUNS 100000
#define MAX_JOBS 256
#define NAME_MAX_LEN 200   /* a run's name; + ".db.partial-journal" stays within 255 */
#define VALUE_MAX_LEN 40   /* a value's part of a name before it is shortened with a hash */

static const char usage[] =
    "usage: gpusim sweep SCENARIO.yaml --vary PATH=V1,V2,... [--vary ...] -o DIR [options]\n"
    "\n"
    "Run SCENARIO once for every combination of the --vary values and seeds, each as\n"
    "`gpusim run SCENARIO --set PATH=V ... --seed S -o DIR/<name>.db` in a child process, and\n"
    "list the runs in DIR/sweep.json. Run order: the first --vary varies slowest, seeds fastest.\n"
    "\n"
    "options:\n"
    "  --vary PATH=V1,V2,...   a --set path and its values (YAML, as --set takes them; commas\n"
    "                          inside [], {} or quotes do not split); repeatable (at most 16)\n"
    "  --seeds A-B|A,B,...     the seeds of each combination (default: the scenario's own seed)\n"
    "  -o, --output DIR        where the traces, logs and manifest go (created if missing)\n"
    "  --jobs N                runs at once (default: the CPUs this process may use)\n"
    "  --shard K/N             only the runs whose index i (from 0) has i % N == K-1; K may be\n"
    "                          `auto`: from $JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or\n"
    "                          $SLURM_ARRAY_TASK_ID - $SLURM_ARRAY_TASK_MIN (Slurm array), + 1\n"
    "  --force                 run again the runs whose complete trace exists (default: skip them)\n"
    "  --set PATH=VALUE        an override for every run (repeatable)\n"
    "  --horizon DURATION      passed to every run\n"
    "  --trace-level LEVEL     passed to every run\n"
    "  --dry-run               print the runs (index, name, arguments) and run nothing\n"
    "\n"
    "A run's name is its varied values, `LABEL=VALUE` joined by `_`, then `seed=S` (LABEL: the\n"
    "shortest end of the path that tells the varied paths apart); see docs/sweep.md.\n"
    "\n"
    "exit status: 0 every run of this shard has a complete trace (a run whose expect: checks\n"
    "failed counts: it is listed as such), 1 a run produced no complete trace, 2 usage error\n"
    "(also: DIR holds the manifest of a sweep with other --vary paths or settings),\n"
    "130/143 interrupted by SIGINT/SIGTERM (running children are stopped; their traces stay in\n"
    "DIR/<name>.db.partial, and the next sweep runs them again).\n";

struct vary {
    const char *arg;   /* the --vary argument */
    char *path;        /* before '=' */
    char *label;       /* the path's shortest distinguishing suffix, sanitised */
    char **values;     /* the values, trimmed */
    char **vnames;     /* each value as it appears in a run name */
    int nvalues, cap;
};

enum run_state { RUN_PENDING, RUN_RUNNING, RUN_DONE, RUN_SKIPPED, RUN_FAILED, RUN_INTERRUPTED };
static const char *const state_names[] = {"pending", "running", "done", "skipped", "failed", "interrupted"};

struct run {
    int index;            /* in the whole sweep */
    int vi[MAX_VARY];     /* value index per --vary */
    int seed_i;           /* index into seeds, -1 without --seeds */
    char name[NAME_MAX_LEN + 16];
    enum run_state state;
    int exit_status;      /* of the child, -1 unknown */
    int term_signal;      /* the signal that ended the child, 0 none */
    int checks_failed;    /* expect: checks that failed in the trace, -1 unknown */
    double seconds;       /* wall time of the child, -1 unknown */
    pid_t pid;
    double t0;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The text `s` as a file-name part: [A-Za-z0-9.+-] kept, every other character (and '_')
 * becomes '_', a run of them one '_', and none is left at either end or beside a '.'. */
static void sanitise(const char *s, char *out, size_t n)
{
    size_t k = 0;
    for (const char *c = s; *c && k + 1 < n; c++) {
        int keep = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                   *c == '.' || *c == '+' || *c == '-';
        if (keep) {
            if (*c == '.' && k > 0 && out[k - 1] == '_')
                k--;
            out[k++] = *c;
        } else if (k > 0 && out[k - 1] != '_' && out[k - 1] != '.') {
            out[k++] = '_';
        }
    }
    while (k > 0 && out[k - 1] == '_')
        k--;
    out[k] = 0;
}

/* Split a --vary value list on the commas outside [], {}, '...' and "..."; each value trimmed
 * of blanks. Returns 0, or -1 with err filled. */
static int split_values(struct vary *v, const char *list, char *err, size_t errlen)
{
    const char *p = list;
    for (;;) {
        int depth = 0;
        char quote = 0;
        const char *q = p;
        for (; *q; q++) {
            if (quote) {
                if (quote == '"' && *q == '\\' && q[1])
                    q++;
                else if (*q == quote)
                    quote = 0;
            } else if (*q == '"' || *q == '\'') {
                quote = *q;
            } else if (*q == '[' || *q == '{') {
                depth++;
            } else if (*q == ']' || *q == '}') {
                if (--depth < 0)
                    break;
            } else if (*q == ',' && depth == 0) {
                break;
            }
        }
        if (quote || depth != 0 || (*q && *q != ',')) {
            snprintf(err, errlen, "unbalanced %s in '%s'", quote ? "quote" : "brackets", list);
            return -1;
        }
        const char *a = p, *b = q;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (a == b) {
            snprintf(err, errlen, "value %d of '%s' is empty", v->nvalues + 1, list);
            return -1;
        }
        if (GS_GROW(v->values, v->cap, v->nvalues + 1)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        v->values[v->nvalues] = gs_strndup(a, (size_t)(b - a));
        if (!v->values[v->nvalues]) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (int i = 0; i < v->nvalues; i++)
            if (strcmp(v->values[i], v->values[v->nvalues]) == 0) {
                snprintf(err, errlen, "value '%s' given twice", v->values[i]);
                gs_free(v->values[v->nvalues]);
                return -1;
            }
        v->nvalues++;
        if (!*q)
            return 0;
        p = q + 1;
    }
}

/* The components of a --set path: split on the dots outside [...] (nodePools[0] is one). */
static int path_components(const char *path, const char **start, int max)
{
    int n = 0, depth = 0;
    start[n++] = path;
    for (const char *c = path; *c; c++) {
        if (*c == '[')
            depth++;
        else if (*c == ']' && depth > 0)
            depth--;
        else if (*c == '.' && depth == 0 && n < max)
            start[n++] = c + 1;
    }
    return n;
}

/* Labels: for each path, its last k components for the smallest k that no other path's last
 * k components equal (the whole path when none does), sanitised. */
static int make_labels(struct vary *v, int nv)
{
    enum { MAXC = 64 };
    const char *comp[MAX_VARY][MAXC];
    int nc[MAX_VARY];
    for (int i = 0; i < nv; i++)
        nc[i] = path_components(v[i].path, comp[i], MAXC);
    for (int i = 0; i < nv; i++) {
        int k = 1;
        for (; k < nc[i]; k++) {
            const char *si = comp[i][nc[i] - k];
            int clash = 0;
            for (int j = 0; j < nv && !clash; j++) {
                if (j == i)
                    continue;
                const char *sj = nc[j] >= k ? comp[j][nc[j] - k] : v[j].path;
                clash = strcmp(si, sj) == 0;
            }
            if (!clash)
                break;
        }
        char buf[512];
        sanitise(comp[i][nc[i] - k], buf, sizeof buf);
        if (!buf[0])
            snprintf(buf, sizeof buf, "v%d", i + 1);
        v[i].label = gs_strdup(buf);
        if (!v[i].label)
            return -1;
    }
    return 0;
}

/* A value as a name part: sanitised; empty becomes `empty`; longer than VALUE_MAX_LEN is cut to
 * 32 characters and followed by `-` and the FNV-1a hash of the value as given. */
static char *value_name(const char *value)
{
    char buf[1024];
    sanitise(value, buf, sizeof buf);
    if (!buf[0])
        snprintf(buf, sizeof buf, "empty");
    if (strlen(buf) > VALUE_MAX_LEN) {
        buf[32] = 0;
        size_t k = strlen(buf);
        while (k > 0 && (buf[k - 1] == '_' || buf[k - 1] == '.'))
            buf[--k] = 0;
        snprintf(buf + k, sizeof buf - k, "-%08x", (unsigned)fnv1a(value));
    }
    return gs_strdup(buf);
}

/* --shard K/N or auto/N into *k (1-based) and *n. Returns 0 or prints the error and returns -1. */
static int parse_shard(const char *s, int *k, int *n)
{
    const char *slash = strchr(s, '/');
    char *end;
    if (!slash)
        goto bad;
    long nn = strtol(slash + 1, &end, 10);
    if (*end || slash[1] < '0' || slash[1] > '9' || nn < 1 || nn > MAX_RUNS)
        goto bad;
    long kk;
    if ((size_t)(slash - s) == 4 && strncmp(s, "auto", 4) == 0) {
        const char *jci = getenv("JOB_COMPLETION_INDEX");
        const char *sat = getenv("SLURM_ARRAY_TASK_ID");
        const char *what;
        if (jci && *jci) {
            kk = strtol(jci, &end, 10);
            what = "JOB_COMPLETION_INDEX";
            if (*end || kk < 0) {
                fprintf(stderr, "gpusim sweep: --shard auto: JOB_COMPLETION_INDEX '%s' is not an index\n", jci);
                return -1;
            }
        } else if (sat && *sat) {
            what = "SLURM_ARRAY_TASK_ID";
            kk = strtol(sat, &end, 10);
            if (*end || kk < 0) {
                fprintf(stderr, "gpusim sweep: --shard auto: SLURM_ARRAY_TASK_ID '%s' is not an index\n", sat);
                return -1;
            }
            const char *min = getenv("SLURM_ARRAY_TASK_MIN");
            if (min && *min) {
                long m = strtol(min, &end, 10);
                if (*end || m < 0 || m > kk) {
                    fprintf(stderr, "gpusim sweep: --shard auto: SLURM_ARRAY_TASK_MIN '%s' does not fit "
                                    "SLURM_ARRAY_TASK_ID %ld\n", min, kk);
                    return -1;
                }
                kk -= m;
            }
        } else {
            fprintf(stderr, "gpusim sweep: --shard auto/%ld: neither JOB_COMPLETION_INDEX (a Kubernetes "
                            "Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm array) is set; give the shard "
                            "as K/%ld\n", nn, nn);
            return -1;
        }
        if (kk >= nn) {
            fprintf(stderr, "gpusim sweep: --shard auto/%ld: %s gives shard %ld, past the %ld shards\n", nn,
                    what, kk + 1, nn);
            return -1;
        }
        *k = (int)kk + 1;
        *n = (int)nn;
        return 0;
    }
    kk = strtol(s, &end, 10);
    if (end != slash || s[0] < '0' || s[0] > '9' || kk < 1 || kk > nn)
        goto bad;
    *k = (int)kk;
    *n = (int)nn;
    return 0;
bad:
    fprintf(stderr, "gpusim sweep: --shard '%s': expected K/N with 1 <= K <= N, or auto/N\n", s);
    return -1;
}

/* mkdir -p */
static int make_dir(const char *dir)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return -1;
    for (char *c = buf + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(buf, 0777) && errno != EEXIST)
                return -1;
            *c = '/';
        }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return -1;
    struct stat st;
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* Is `path` a complete gpusim trace (run.status = complete)? Sets *checks_failed to its
 * failed expect: checks. */
static int trace_complete(const char *path, int *checks_failed)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode) || gs_trace_file_kind(path) != GS_TRACE_FILE_TRACE)
        return 0;
    sqlite3 *db;
    if (gs_trace_db_open(path, true, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return 0;
    }
    sqlite3_busy_timeout(db, 5000);
    int ok = 0;
    sqlite3_stmt *st1 = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value = 'complete' FROM run WHERE key = 'status'", -1, &st1, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st1) == SQLITE_ROW)
        ok = sqlite3_column_int(st1, 0);
    sqlite3_finalize(st1);
    *checks_failed = -1;
    if (ok && sqlite3_prepare_v2(db, "SELECT count(*) FROM expect_check WHERE pass = 0", -1, &st1, NULL) ==
                  SQLITE_OK &&
        sqlite3_step(st1) == SQLITE_ROW)
        *checks_failed = sqlite3_column_int(st1, 0);
    sqlite3_finalize(st1);
    sqlite3_close(db);
    return ok;
}

struct sweep {
    const char *scenario, *dir, *horizon, *level;
    const char *sets[MAX_SETS];
    int nsets;
    struct vary vary[MAX_VARY];
    int nvary;
    uint64_t *seeds;
    int nseeds; /* 0: no --seeds */
    int shard_k, shard_n;
    int total;         /* runs in the whole sweep */
    struct run *runs;  /* all of them */
    char command[8192];
    char manifest[PATH_MAX];
    char self[PATH_MAX];
    json_t *previous; /* the runs of the manifest a previous sweep left, by name, or NULL */
};

static void target_path(const struct sweep *s, const struct run *r, const char *ext, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s%s", s->dir, r->name, ext);
}

static int in_shard(const struct sweep *s, int i)
{
    return i % s->shard_n == s->shard_k - 1;
}

/* The argument vector of the child `gpusim run` of r (strings owned by *owned; free both). */
static char **run_argv(const struct sweep *s, const struct run *r, char ***owned, int *nowned)
{
    int max = 16 + 2 * (s->nsets + s->nvary);
    char **av = gs_calloc((size_t)max, sizeof *av);
    char **own = gs_calloc((size_t)(s->nvary + 4), sizeof *own);
    if (!av || !own) {
        gs_free(av);
        gs_free(own);
        return NULL;
    }
    int n = 0, no = 0;
    av[n++] = "gpusim";
    av[n++] = "run";
    av[n++] = (char *)s->scenario;
    for (int i = 0; i < s->nsets; i++) {
        av[n++] = "--set";
        av[n++] = (char *)s->sets[i];
    }
    for (int i = 0; i < s->nvary; i++) {
        const struct vary *v = &s->vary[i];
        size_t len = strlen(v->path) + strlen(v->values[r->vi[i]]) + 2;
        char *a = gs_malloc(len);
        if (!a)
            goto oom;
        snprintf(a, len, "%s=%s", v->path, v->values[r->vi[i]]);
        own[no++] = a;
        av[n++] = "--set";
        av[n++] = a;
    }
    if (r->seed_i >= 0) {
        char *a = gs_malloc(24);
        if (!a)
            goto oom;
        snprintf(a, 24, "%llu", (unsigned long long)s->seeds[r->seed_i]);
        own[no++] = a;
        av[n++] = "--seed";
        av[n++] = a;
    }
    if (s->horizon) {
        av[n++] = "--horizon";
        av[n++] = (char *)s->horizon;
    }
    if (s->level) {
        av[n++] = "--trace-level";
        av[n++] = (char *)s->level;
    }
    char *out = gs_malloc(PATH_MAX);
    if (!out)
        goto oom;
    target_path(s, r, ".db", out, PATH_MAX);
    own[no++] = out;
    av[n++] = "-o";
    av[n++] = out;
    av[n++] = "--quiet-progress";
    av[n] = NULL;
    *owned = own;
    *nowned = no;
    return av;
oom:
    for (int i = 0; i < no; i++)
        gs_free(own[i]);
    gs_free(own);
    gs_free(av);
    return NULL;
}

static void free_argv(char **av, char **own, int no)
{
    for (int i = 0; i < no; i++)
        gs_free(own[i]);
    gs_free(own);
    gs_free(av);
}

/* The overrides of run r, path -> value as given: the --set ones, then the --vary ones. */
static void run_overrides(const struct sweep *s, const struct run *r, json_t *ov)
{
    for (int k = 0; k < s->nsets; k++) {
        const char *eq = strchr(s->sets[k], '=');
        char *p = gs_strndup(s->sets[k], (size_t)(eq - s->sets[k]));
        if (p)
            json_object_set_new(ov, p, json_string(eq + 1));
        gs_free(p);
    }
    for (int k = 0; k < s->nvary; k++)
        json_object_set_new(ov, s->vary[k].path, json_string(s->vary[k].values[r->vi[k]]));
}

/* Is the complete trace at `path` one of run r: same scenario path, the seed of r (with
 * --seeds), and, when the trace records its overrides (run keys override.<PATH>), those of r?
 * Returns 1, or 0 with why (size n) saying what differs. */
static int trace_is_run(const struct sweep *s, const struct run *r, const char *path, char *why, size_t n)
{
    sqlite3 *db;
    int same = 1;
    if (gs_trace_db_open(path, true, &db) != SQLITE_OK) {
        sqlite3_close(db);
        snprintf(why, n, "it cannot be read");
        return 0;
    }
    sqlite3_busy_timeout(db, 5000);
    json_t *ov = json_object(), *want = json_object();
    run_overrides(s, r, want);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM run WHERE key IN ('scenario_path', 'seed') OR key LIKE 'override.%'",
                           -1, &q, NULL) == SQLITE_OK) {
        while (same && sqlite3_step(q) == SQLITE_ROW) {
            const char *k = (const char *)sqlite3_column_text(q, 0), *v = (const char *)sqlite3_column_text(q, 1);
            if (!k || !v)
                continue;
            if (strcmp(k, "scenario_path") == 0 && strcmp(v, s->scenario) != 0) {
                snprintf(why, n, "its scenario is %s", v);
                same = 0;
            } else if (strcmp(k, "seed") == 0 && r->seed_i >= 0 &&
                       strtoull(v, NULL, 10) != s->seeds[r->seed_i]) {
                snprintf(why, n, "its seed is %s", v);
                same = 0;
            } else if (strncmp(k, "override.", 9) == 0) {
                json_object_set_new(ov, k + 9, json_string(v));
            }
        }
        sqlite3_finalize(q);
    }
    if (same && json_object_size(ov) > 0 && !json_equal(ov, want)) {
        snprintf(why, n, "its overrides differ");
        same = 0;
    }
    json_decref(ov);
    json_decref(want);
    sqlite3_close(db);
    return same;
}

/* Write the manifest of this shard atomically (a temporary file renamed over it). */
static int write_manifest(const struct sweep *s, double wall)
{
    json_t *root = json_object(), *vary = json_array(), *runs = json_array(), *counts = json_object();
    if (!root || !vary || !runs || !counts) {
        json_decref(root), json_decref(vary), json_decref(runs), json_decref(counts);
        return -1;
    }
    json_object_set_new(root, "schema", json_string("gpusim-sweep/1"));
    json_object_set_new(root, "scenario", json_string(s->scenario));
    json_object_set_new(root, "command", json_string(s->command));
    for (int i = 0; i < s->nvary; i++) {
        json_t *v = json_object(), *vals = json_array();
        for (int k = 0; k < s->vary[i].nvalues; k++)
            json_array_append_new(vals, json_string(s->vary[i].values[k]));
        json_object_set_new(v, "path", json_string(s->vary[i].path));
        json_object_set_new(v, "label", json_string(s->vary[i].label));
        json_object_set_new(v, "values", vals);
        json_array_append_new(vary, v);
    }
    json_object_set_new(root, "vary", vary);
    if (s->nseeds) {
        json_t *sd = json_array();
        for (int i = 0; i < s->nseeds; i++)
            json_array_append_new(sd, json_integer((json_int_t)s->seeds[i]));
        json_object_set_new(root, "seeds", sd);
    } else {
        json_object_set_new(root, "seeds", json_null());
    }
    json_t *sets = json_array();
    for (int i = 0; i < s->nsets; i++)
        json_array_append_new(sets, json_string(s->sets[i]));
    json_object_set_new(root, "set", sets);
    json_object_set_new(root, "horizon", s->horizon ? json_string(s->horizon) : json_null());
    json_object_set_new(root, "traceLevel", s->level ? json_string(s->level) : json_null());
    json_object_set_new(root, "totalRuns", json_integer(s->total));
    json_object_set_new(root, "shard", json_pack("{s:i, s:i}", "k", s->shard_k, "n", s->shard_n));
    int count[6] = {0};
    for (int i = 0; i < s->total; i++) {
        const struct run *r = &s->runs[i];
        if (!in_shard(s, i))
            continue;
        count[r->state]++;
        json_t *o = json_object(), *ov = json_object();
        char buf[PATH_MAX];
        json_object_set_new(o, "index", json_integer(r->index));
        json_object_set_new(o, "name", json_string(r->name));
        snprintf(buf, sizeof buf, "%s.db", r->name);
        json_object_set_new(o, "file", json_string(buf));
        snprintf(buf, sizeof buf, "%s.log", r->name);
        json_object_set_new(o, "log", json_string(buf));
        run_overrides(s, r, ov);
        json_object_set_new(o, "overrides", ov);
        json_object_set_new(o, "seed", r->seed_i >= 0 ? json_integer((json_int_t)s->seeds[r->seed_i]) : json_null());
        json_object_set_new(o, "status", json_string(state_names[r->state]));
        json_object_set_new(o, "exitStatus", r->exit_status >= 0 ? json_integer(r->exit_status) : json_null());
        json_object_set_new(o, "signal", r->term_signal ? json_integer(r->term_signal) : json_null());
        json_object_set_new(o, "checksFailed", r->checks_failed >= 0 ? json_integer(r->checks_failed) : json_null());
        json_object_set_new(o, "seconds", r->seconds >= 0 ? json_real(r->seconds) : json_null());
        json_array_append_new(runs, o);
    }
    for (int i = 0; i < 6; i++)
        if (i != RUN_RUNNING || count[i])
            json_object_set_new(counts, state_names[i], json_integer(count[i]));
    json_object_set_new(root, "counts", counts);
    json_object_set_new(root, "wallSeconds", json_real(wall));
    json_object_set_new(root, "runs", runs);
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", s->manifest, (long)getpid());
    int rc = json_dump_file(root, tmp, JSON_INDENT(2)) == 0 ? 0 : -1;
    json_decref(root);
    if (rc == 0 && rename(tmp, s->manifest) != 0)
        rc = -1;
    if (rc)
        unlink(tmp);
    return rc;
}

/* The first line of the log that says `error` (or its last line), for the summary. */
static void log_error_line(const char *log, char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0] == '$' || !line[0])
            continue;
        snprintf(buf, n, "%s", line);
        if (strstr(line, "error") || strstr(line, "failed"))
            break;
    }
    fclose(f);
}

static int json_str_eq(json_t *a, const char *b)
{
    return b ? json_is_string(a) && strcmp(json_string_value(a), b) == 0 : !a || json_is_null(a);
}

/* Read the manifests earlier sweeps left in DIR (sweep.json, sweep-K-of-N.json) into
 * s->previous (name -> run object). Unless `force`, a run of this sweep that a manifest lists
 * with other overrides, another seed, scenario, horizon or trace level is an error: its trace
 * would be skipped as done although it is another run. Returns 0, or -1 after printing why. */
static int load_previous(struct sweep *s, int force)
{
    s->previous = json_object();
    json_t *names = json_object();
    for (int i = 0; i < s->total && names; i++)
        json_object_set_new(names, s->runs[i].name, json_integer(i));
    DIR *d = opendir(s->dir);
    struct dirent *e;
    int rc = 0;
    while (d && rc == 0 && (e = readdir(d))) {
        int k, n, len = 0;
        if (strcmp(e->d_name, "sweep.json") != 0 &&
            (sscanf(e->d_name, "sweep-%d-of-%d.json%n", &k, &n, &len) != 2 || e->d_name[len] != 0))
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
        json_t *m = json_load_file(path, 0, NULL);
        const char *what = NULL;
        if (!json_str_eq(json_object_get(m, "scenario"), s->scenario))
            what = "another scenario";
        else if (!json_str_eq(json_object_get(m, "horizon"), s->horizon))
            what = "another --horizon";
        else if (!json_str_eq(json_object_get(m, "traceLevel"), s->level))
            what = "another --trace-level";
        json_t *mv = json_object_get(m, "vary"), *ms = json_object_get(m, "set");
        int paths_differ = json_array_size(mv) != (size_t)s->nvary || json_array_size(ms) != (size_t)s->nsets;
        for (int v = 0; !paths_differ && v < s->nvary; v++)
            paths_differ = !json_str_eq(json_object_get(json_array_get(mv, (size_t)v), "path"), s->vary[v].path);
        for (int v = 0; !paths_differ && v < s->nsets; v++)
            paths_differ = !json_str_eq(json_array_get(ms, (size_t)v), s->sets[v]);
        if (m && paths_differ && !force) {
            fprintf(stderr,
                    "gpusim sweep: %s is the manifest of a sweep with other --vary paths or --set options: "
                    "one directory holds one sweep (its values and seeds may grow); use another -o DIR, or "
                    "--force\n",
                    path);
            json_decref(m);
            rc = -1;
            break;
        }
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(m, "runs"), i, r) {
            const char *nm = json_string_value(json_object_get(r, "name"));
            json_t *idx = nm ? json_object_get(names, nm) : NULL;
            if (!idx)
                continue;
            const struct run *cur = &s->runs[json_integer_value(idx)];
            json_t *ov = json_object();
            run_overrides(s, cur, ov);
            json_t *seed = json_object_get(r, "seed");
            const char *why = what;
            if (!why && !json_equal(ov, json_object_get(r, "overrides")))
                why = "other overrides";
            if (!why && (cur->seed_i >= 0 ? !json_is_integer(seed) ||
                                                (uint64_t)json_integer_value(seed) != s->seeds[cur->seed_i]
                                          : !json_is_null(seed)))
                why = "another seed";
            json_decref(ov);
            if (why && !force) {
                fprintf(stderr,
                        "gpusim sweep: %s lists run %s with %s than this sweep's: its trace is another run; "
                        "use another -o DIR, or --force to run it again\n",
                        path, nm, why);
                rc = -1;
                break;
            }
            if (!why)
                json_object_set(s->previous, nm, r);
        }
        json_decref(m);
    }
    if (d)
        closedir(d);
    json_decref(names);
    return rc;
}

static volatile sig_atomic_t got_chld;
static void on_chld(int sig)
{
    (void)sig;
    got_chld = 1;
}

static pid_t launch(const struct sweep *s, struct run *r, const sigset_t *oldmask)
{
    char **own;
    int no;
    char **av = run_argv(s, r, &own, &no);
    if (!av)
        return -1;
    char log[PATH_MAX], line[16384] = "$";
    target_path(s, r, ".log", log, sizeof log);
    for (int i = 0; av[i]; i++)
        gs_shell_word_append(line, sizeof line, av[i], true);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* A sweep that dies without forwarding a signal (SIGKILL) still stops its runs: they
         * get SIGTERM and close their traces as interrupted (Linux prctl(2)). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(143);
        sigprocmask(SIG_SETMASK, oldmask, NULL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0)
            _exit(126);
        dprintf(fd, "%s\n", line);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        /* The running binary itself, even if its file was replaced since the sweep began. */
        execv("/proc/self/exe", av);
        dprintf(STDERR_FILENO, "gpusim sweep: cannot run %s: %s\n", s->self, strerror(errno));
        _exit(127);
    }
    free_argv(av, own, no);
    return pid;
}

static void finish(struct sweep *s, struct run *r, int ws, int stopping, int *done_n, int shard_total)
{
    char path[PATH_MAX], log[PATH_MAX];
    r->seconds = now_s() - r->t0;
    r->exit_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    r->term_signal = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    target_path(s, r, ".db", path, sizeof path);
    target_path(s, r, ".log", log, sizeof log);
    int cf;
    (*done_n)++;
    if (trace_complete(path, &cf)) {
        r->state = RUN_DONE;
        r->checks_failed = cf;
        if (cf > 0)
            printf("[%d/%d] done  %s (%.2f s): %d expect: check%s failed (exit %d)\n", *done_n, shard_total,
                   r->name, r->seconds, cf, cf == 1 ? "" : "s", r->exit_status);
        else
            printf("[%d/%d] done  %s (%.2f s)\n", *done_n, shard_total, r->name, r->seconds);
    } else if (stopping) {
        r->state = RUN_INTERRUPTED;
        printf("[%d/%d] interrupted %s: its trace stays in %s.partial\n", *done_n, shard_total, r->name, path);
    } else {
        r->state = RUN_FAILED;
        char why[1024];
        log_error_line(log, why, sizeof why);
        if (r->term_signal)
            printf("[%d/%d] FAILED %s (killed by signal %d), log %s%s%s\n", *done_n, shard_total, r->name,
                   r->term_signal, log, why[0] ? ": " : "", why);
        else
            printf("[%d/%d] FAILED %s (exit %d), log %s%s%s\n", *done_n, shard_total, r->name, r->exit_status,
                   log, why[0] ? ": " : "", why);
    }
    fflush(stdout);
}

static int build_names(struct sweep *s)
{
    for (int i = 0; i < s->total; i++) {
        struct run *r = &s->runs[i];
        char buf[8192] = "";
        size_t k = 0;
        for (int v = 0; v < s->nvary; v++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s=%s", k ? "_" : "", s->vary[v].label,
                                  s->vary[v].vnames[r->vi[v]]);
        if (r->seed_i >= 0)
            snprintf(buf + k, sizeof buf - k, "%sseed=%llu", k ? "_" : "",
                     (unsigned long long)s->seeds[r->seed_i]);
        if (buf[0] == '.' || buf[0] == '-')
            buf[0] = '_';
        if (strlen(buf) > NAME_MAX_LEN) {
            uint32_t h = fnv1a(buf);
            snprintf(buf + NAME_MAX_LEN - 9, sizeof buf - NAME_MAX_LEN + 9, "-%08x", (unsigned)h);
        }
        snprintf(r->name, sizeof r->name, "%.*s", NAME_MAX_LEN, buf);
    }
    /* Names equal after sanitising: the later runs get -2, -3, ... (in run order). */
    for (int i = 1; i < s->total; i++) {
        int clash = 0;
        for (int j = 0; j < i && !clash; j++)
            clash = strcmp(s->runs[i].name, s->runs[j].name) == 0;
        if (!clash)
            continue;
        char base[NAME_MAX_LEN + 1];
        snprintf(base, sizeof base, "%.*s", NAME_MAX_LEN - 8, s->runs[i].name);
        for (int n = 2;; n++) {
            snprintf(s->runs[i].name, sizeof s->runs[i].name, "%s-%d", base, n);
            clash = 0;
            for (int j = 0; j < s->total && !clash; j++)
                clash = j != i && strcmp(s->runs[i].name, s->runs[j].name) == 0;
            if (!clash)
                break;
        }
    }
    return 0;
}

int gs_cmd_sweep(int argc, char **argv)
{
    static struct sweep sw;
    struct sweep *s = &sw;
    memset(s, 0, sizeof *s);
    json_set_alloc_funcs(gs_malloc, gs_free);
    const char *seeds_arg = NULL, *shard_arg = NULL;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0)
        jobs = CPU_COUNT(&cpus);
    int force = 0, dry = 0;
    if (jobs < 1)
        jobs = 1;
    snprintf(s->command, sizeof s->command, "gpusim");
    for (int i = 0; i < argc; i++)
        gs_shell_word_append(s->command, sizeof s->command, argv[i], true);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (gs_cli_is_help(a)) {
            fputs(usage, stdout);
            return GS_EXIT_OK;
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
            continue;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry = 1;
            continue;
        } else if (a[0] == '-' && a[1] && !v) {
            fprintf(stderr, "gpusim sweep: option %s needs a value (or is unknown)\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        }
        if (strcmp(a, "--vary") == 0) {
            if (s->nvary == MAX_VARY) {
                fprintf(stderr, "gpusim sweep: at most %d --vary options\n", MAX_VARY);
                return GS_EXIT_USAGE;
            }
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) {
                fprintf(stderr, "gpusim sweep: --vary '%s': expected PATH=V1,V2,... (%s)\n", v,
                        eq ? "the path is empty" : "no '='");
                return GS_EXIT_USAGE;
            }
            struct vary *vr = &s->vary[s->nvary];
            vr->arg = v;
            vr->path = gs_strndup(v, (size_t)(eq - v));
            char err[512];
            if (!eq[1]) {
                fprintf(stderr, "gpusim sweep: --vary '%s': no values after '='\n", v);
                return GS_EXIT_USAGE;
            }
            if (!vr->path || split_values(vr, eq + 1, err, sizeof err)) {
                fprintf(stderr, "gpusim sweep: --vary '%s': %s\n", v, vr->path ? err : "out of memory");
                return GS_EXIT_USAGE;
            }
            for (int k = 0; k < s->nvary; k++)
                if (strcmp(s->vary[k].path, vr->path) == 0) {
                    fprintf(stderr, "gpusim sweep: --vary: path '%s' given twice\n", vr->path);
                    return GS_EXIT_USAGE;
                }
            s->nvary++;
        } else if (strcmp(a, "--set") == 0) {
            if (s->nsets == MAX_SETS) {
                fprintf(stderr, "gpusim sweep: at most %d --set options\n", MAX_SETS);
                return GS_EXIT_USAGE;
            }
            if (!strchr(v, '=') || v[0] == '=') {
                fprintf(stderr, "gpusim sweep: --set '%s': expected PATH=VALUE\n", v);
                return GS_EXIT_USAGE;
            }
            s->sets[s->nsets++] = v;
        } else if (strcmp(a, "--seeds") == 0) {
            seeds_arg = v;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!v[0]) {
                fprintf(stderr, "gpusim sweep: -o wants a directory, got an empty string\n");
                return GS_EXIT_USAGE;
            }
            s->dir = v;
        } else if (strcmp(a, "--jobs") == 0) {
            jobs = strtol(v, &end, 10);
            if (*end || !v[0] || jobs < 1 || jobs > MAX_JOBS) {
                fprintf(stderr, "gpusim sweep: --jobs '%s': expected 1 to %d\n", v, MAX_JOBS);
                return GS_EXIT_USAGE;
            }
        } else if (strcmp(a, "--shard") == 0) {
            shard_arg = v;
        } else if (strcmp(a, "--horizon") == 0) {
            s->horizon = v;
        } else if (strcmp(a, "--trace-level") == 0) {
            s->level = v;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpusim sweep: unknown option '%s'\n\n%s", a, usage);
            return GS_EXIT_USAGE;
        } else if (!s->scenario) {
            s->scenario = a;
            continue;
        } else {
            fprintf(stderr, "gpusim sweep: one scenario at a time ('%s' and '%s')\n", s->scenario, a);
            return GS_EXIT_USAGE;
        }
        i++;
    }
    if (!s->scenario || !s->dir) {
        fprintf(stderr, "gpusim sweep: %s\n\n%s", !s->scenario ? "no scenario given" : "no -o DIR given", usage);
        return GS_EXIT_USAGE;
    }
    if (s->nvary == 0 && !seeds_arg) {
        fprintf(stderr, "gpusim sweep: nothing to sweep: give --vary PATH=V1,V2,... or --seeds A-B\n");
        return GS_EXIT_USAGE;
    }
    if (access(s->scenario, R_OK) != 0) {
        fprintf(stderr, "gpusim sweep: cannot read the scenario '%s': %s\n", s->scenario, strerror(errno));
        return GS_EXIT_USAGE;
    }
    static uint64_t seeds[MAX_SEEDS];
    s->seeds = seeds;
    if (seeds_arg && gs_cli_parse_seeds(seeds_arg, seeds, MAX_SEEDS, &s->nseeds)) {
        fprintf(stderr, "gpusim sweep: --seeds '%s': expected A-B or A,B,... of distinct non-negative "
                        "integers (at most %d)\n", seeds_arg, MAX_SEEDS);
        return GS_EXIT_USAGE;
    }
    s->shard_k = s->shard_n = 1;
    if (shard_arg && parse_shard(shard_arg, &s->shard_k, &s->shard_n))
        return GS_EXIT_USAGE;

    long long total = s->nseeds ? s->nseeds : 1;
    for (int i = 0; i < s->nvary; i++) {
        total *= s->vary[i].nvalues;
        if (total > MAX_RUNS)
            break;
    }
    if (total > MAX_RUNS) {
        fprintf(stderr, "gpusim sweep: more than %d runs; sweep in parts\n", MAX_RUNS);
        return GS_EXIT_USAGE;
    }
    s->total = (int)total;
    if (make_labels(s->vary, s->nvary)) {
        fprintf(stderr, "gpusim sweep: out of memory\n");
        return GS_EXIT_INTERNAL;
    }
    for (int i = 0; i < s->nvary; i++) {
        s->vary[i].vnames = gs_calloc((size_t)s->vary[i].nvalues, sizeof(char *));
        for (int k = 0; s->vary[i].vnames && k < s->vary[i].nvalues; k++)
            if (!(s->vary[i].vnames[k] = value_name(s->vary[i].values[k]))) {
                fprintf(stderr, "gpusim sweep: out of memory\n");
                return GS_EXIT_INTERNAL;
            }
    }
    s->runs = gs_calloc((size_t)s->total, sizeof *s->runs);
    if (!s->runs) {
        fprintf(stderr, "gpusim sweep: out of memory\n");
        return GS_EXIT_INTERNAL;
    }
    /* Run i: the first --vary is the most significant digit, the seed the least. */
    for (int i = 0; i < s->total; i++) {
        struct run *r = &s->runs[i];
        int x = i;
        r->index = i;
        r->seed_i = -1;
        if (s->nseeds) {
            r->seed_i = x % s->nseeds;
            x /= s->nseeds;
        }
        for (int v = s->nvary - 1; v >= 0; v--) {
            r->vi[v] = x % s->vary[v].nvalues;
            x /= s->vary[v].nvalues;
        }
        r->state = RUN_PENDING;
        r->exit_status = r->term_signal = 0;
        r->exit_status = r->checks_failed = -1;
        r->seconds = -1;
    }
    build_names(s);
    int shard_total = 0;
    for (int i = 0; i < s->total; i++)
        shard_total += in_shard(s, i);

    if (dry) {
        for (int i = 0; i < s->total; i++) {
            if (!in_shard(s, i))
                continue;
            char **own;
            int no;
            char **av = run_argv(s, &s->runs[i], &own, &no);
            char line[16384] = "";
            for (int k = 0; av && av[k]; k++)
                gs_shell_word_append(line, sizeof line, av[k], true);
            printf("%d %s %s\n", i, s->runs[i].name, line);
            if (av)
                free_argv(av, own, no);
        }
        return GS_EXIT_OK;
    }

    if (make_dir(s->dir)) {
        fprintf(stderr, "gpusim sweep: cannot create the directory '%s': %s\n", s->dir, strerror(errno));
        return GS_EXIT_USAGE;
    }
    ssize_t sl = readlink("/proc/self/exe", s->self, sizeof s->self - 1);
    if (sl <= 0) {
        fprintf(stderr, "gpusim sweep: cannot find the gpusim binary (/proc/self/exe): %s\n", strerror(errno));
        return GS_EXIT_INTERNAL;
    }
    s->self[sl] = 0;
    if (s->shard_n > 1)
        snprintf(s->manifest, sizeof s->manifest, "%s/sweep-%d-of-%d.json", s->dir, s->shard_k, s->shard_n);
    else
        snprintf(s->manifest, sizeof s->manifest, "%s/sweep.json", s->dir);

    if (load_previous(s, force))
        return GS_EXIT_USAGE;

    printf("sweep: %d runs", s->total);
    for (int i = 0; i < s->nvary; i++)
        printf("%s%d %s", i ? " x " : " = ", s->vary[i].nvalues, s->vary[i].label);
    if (s->nseeds)
        printf("%s%d seeds", s->nvary ? " x " : " = ", s->nseeds);
    if (s->shard_n > 1)
        printf("; shard %d/%d: %d runs", s->shard_k, s->shard_n, shard_total);
    printf("; %ld at a time, in %s\n", jobs, s->dir);
    fflush(stdout);

    /* SIGINT/SIGTERM/SIGCHLD are taken with sigwaitinfo, so none is lost between the checks. */
    sigset_t set, oldmask;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_chld;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigprocmask(SIG_BLOCK, &set, &oldmask);

    double t0 = now_s();
    int next = 0, live = 0, done_n = 0, stop = 0, rc = GS_EXIT_OK;
    write_manifest(s, 0);
    for (;;) {
        while (!stop && live < jobs && next < s->total) {
            struct run *r = &s->runs[next++];
            if (!in_shard(s, r->index))
                continue;
            char path[PATH_MAX];
            target_path(s, r, ".db", path, sizeof path);
            int cf = -1;
            int complete = !force && trace_complete(path, &cf);
            char why[PATH_MAX + 64];
            if (complete && !trace_is_run(s, r, path, why, sizeof why)) {
                printf("gpusim sweep: %s is not the trace of run %s (%s): running it again\n", path, r->name, why);
                complete = 0;
            }
            if (complete) {
                r->state = RUN_SKIPPED;
                r->checks_failed = cf;
                /* What the previous sweep saw of this run. */
                json_t *old = json_object_get(s->previous, r->name);
                if (json_is_integer(json_object_get(old, "exitStatus")))
                    r->exit_status = (int)json_integer_value(json_object_get(old, "exitStatus"));
                if (json_is_number(json_object_get(old, "seconds")))
                    r->seconds = json_number_value(json_object_get(old, "seconds"));
                done_n++;
                printf("[%d/%d] skip  %s: its complete trace exists\n", done_n, shard_total, r->name);
                continue;
            }
            r->t0 = now_s();
            r->pid = launch(s, r, &oldmask);
            if (r->pid < 0) {
                fprintf(stderr, "gpusim sweep: cannot start a run: %s\n", strerror(errno));
                r->state = RUN_FAILED;
                done_n++;
                rc = GS_EXIT_CHECK_FAILED;
                continue;
            }
            r->state = RUN_RUNNING;
            live++;
        }
        if (live == 0)
            break;
        siginfo_t si;
        int sig = sigwaitinfo(&set, &si);
        if ((sig == SIGINT || sig == SIGTERM) && !stop) {
            stop = sig;
            fprintf(stderr, "gpusim sweep: %s: stopping %d running run%s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                    live, live == 1 ? "" : "s");
            for (int i = 0; i < s->total; i++)
                if (s->runs[i].state == RUN_RUNNING)
                    kill(s->runs[i].pid, sig);
        }
        int ws;
        pid_t pid;
        while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
            for (int i = 0; i < s->total; i++) {
                struct run *r = &s->runs[i];
                if (r->state != RUN_RUNNING || r->pid != pid)
                    continue;
                finish(s, r, ws, stop, &done_n, shard_total);
                live--;
                write_manifest(s, now_s() - t0);
                break;
            }
        }
    }
    double wall = now_s() - t0;
    int n[6] = {0}, with_failed_checks = 0;
    for (int i = 0; i < s->total; i++)
        if (in_shard(s, i)) {
            n[s->runs[i].state]++;
            with_failed_checks += s->runs[i].checks_failed > 0;
        }
    if (write_manifest(s, wall))
        fprintf(stderr, "gpusim sweep: cannot write %s: %s\n", s->manifest, strerror(errno));
    printf("sweep: %d runs: %d done, %d failed, %d skipped", shard_total, n[RUN_DONE], n[RUN_FAILED], n[RUN_SKIPPED]);
    if (stop)
        printf(", %d interrupted, %d not started", n[RUN_INTERRUPTED], n[RUN_PENDING]);
    printf(" in %.1f s wall", wall);
    if (with_failed_checks)
        printf("; %d with failed expect: checks (not a sweep failure)", with_failed_checks);
    printf("; manifest %s\n", s->manifest);
    fflush(stdout);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    json_decref(s->previous);
    if (stop)
        return 128 + stop;
    if (n[RUN_FAILED])
        rc = GS_EXIT_CHECK_FAILED;
    return rc;
}
