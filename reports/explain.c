/* gpusim explain (reports/explain.h): read the pod and the run from the trace, replay the
 * scenario to T (sim/replay.h), check that the replay is the run the trace recorded, then
 * explain the pod on the replayed cluster (reports/explain_whatif.c for a pod not bound,
 * reports/explain_score.c for a bound one). */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "base/shellword.h"
#include "models/quantity.h"
#include "models/dra/dra_state.h"
#include "reports/explain.h"
#include "reports/explain_internal.h"
#include "reports/open.h"
#include "sim/scenario/yaml.h"

#define MAX_SETS 64

/* ------------------------------------------------------------------ formatting */

void gs_explain_cpu(int64_t m, char *buf, size_t n)
{
    if (m % 1000 == 0)
        snprintf(buf, n, "%" PRId64, m / 1000);
    else
        snprintf(buf, n, "%" PRId64 "m", m);
}

void gs_explain_bytes(int64_t b, char *buf, size_t n)
{
    static const char *const suf[] = {"Ki", "Mi", "Gi", "Ti", "Pi"};
    int k = -1;
    while (b != 0 && b % 1024 == 0 && k < 4) {
        b /= 1024;
        k++;
    }
    if (k < 0)
        snprintf(buf, n, "%" PRId64, b);
    else
        snprintf(buf, n, "%" PRId64 "%s", b, suf[k]);
}

const char *gs_explain_effect(int effect)
{
    switch (effect) {
    case GS_EFFECT_NO_SCHEDULE:
        return "NoSchedule";
    case GS_EFFECT_PREFER_NO_SCHEDULE:
        return "PreferNoSchedule";
    case GS_EFFECT_NO_EXECUTE:
        return "NoExecute";
    default:
        return "";
    }
}

void gs_explain_shell_quote(const char *s, char *buf, size_t n)
{
    if (n == 0)
        return;
    buf[0] = '\0';
    gs_shell_word_append(buf, n, s, false);
}

static void dur(int64_t us, char *buf, size_t n)
{
    if (gs_duration_format(us, buf, n) < 0)
        snprintf(buf, n, "%" PRId64 "us", us);
}

/* ------------------------------------------------------------------ the trace */

struct tpod {
    int64_t id;
    char *name, *workload, *group, *phase, *message, *node;
    int64_t priority, cpu, mem, gpu;
    int64_t created, scheduled, started, finished; /* -1: NULL */
    /* at T */
    const char *state;   /* Pending | Running | the final phase */
    char *msg_at;        /* the last FailedScheduling text at or before T, NULL none */
    int64_t msg_first;   /* its row's first time */
    int64_t msg_last;    /* the last occurrence known to be at or before T */
    int64_t attempts;    /* FailedScheduling occurrences at or before T */
    int named;           /* pods with this name in the trace */
};

static void tpod_free(struct tpod *p)
{
    gs_free(p->name);
    gs_free(p->workload);
    gs_free(p->group);
    gs_free(p->phase);
    gs_free(p->message);
    gs_free(p->node);
    gs_free(p->msg_at);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? gs_strdup(s) : NULL;
}

static int64_t col_i64(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* run.<key> into buf ("" when absent). */
static void run_key(sqlite3 *db, const char *key, char *buf, size_t n)
{
    sqlite3_stmt *st;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* A relative run.scenario_path is relative to the directory `gpusim run` ran in, which the trace
 * does not record: when it names no file from the current directory, and a file of that name is
 * beside the trace (the usual `cd dir && gpusim run x.yaml`, trace in dir), use that one
 * (path, size n, is rewritten). An absolute path, or one found from here, is left as it is. */
static void resolve_beside_trace(char *path, size_t n, const char *trace)
{
    if (!path[0] || path[0] == '/' || access(path, F_OK) == 0)
        return;
    const char *slash = strrchr(trace, '/');
    if (!slash)
        return; /* the trace is in the current directory: nothing else to try */
    char alt[2048];
    int len = snprintf(alt, sizeof alt, "%.*s/%s", (int)(slash - trace), trace, path);
    if (len > 0 && (size_t)len < n && (size_t)len < sizeof alt && access(alt, F_OK) == 0)
        memcpy(path, alt, (size_t)len + 1);
}

/* Up to 3 pod names nearest to `name` into buf ("'a', 'b'"), "" when none is near. */
static void nearest_names(sqlite3 *db, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM pod ORDER BY name", -1, &st, NULL) != SQLITE_OK)
        return;
    struct cand {
        int d;
        char name[128];
    } best[3];
    int nb = 0;
    int limit = (int)strlen(name) / 3;
    if (limit < 2)
        limit = 2;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (!c)
            continue;
        int d = gs_y_edit_distance(name, c);
        /* A name that starts with what was typed (a workload's name for its pods) is near too. */
        if (strncmp(c, name, strlen(name)) == 0 && d > limit)
            d = limit;
        if (d > limit)
            continue;
        int i = nb < 3 ? nb++ : 3;
        if (i == 3) {
            if (d >= best[2].d)
                continue;
            i = 2;
        }
        best[i].d = d;
        snprintf(best[i].name, sizeof best[i].name, "%s", c);
        for (; i > 0 && best[i].d < best[i - 1].d; i--) {
            struct cand t = best[i];
            best[i] = best[i - 1];
            best[i - 1] = t;
        }
    }
    sqlite3_finalize(st);
    size_t k = 0;
    for (int i = 0; i < nb && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s'%s'", i ? ", " : "", best[i].name);
}

/* The pod named `name`: the newest row created at or before `at`. */
static int find_pod(sqlite3 *db, const char *trace, const char *name, int64_t at, struct tpod *p, char *errbuf,
                    int errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT p.id, p.name, p.workload, p.pod_group, p.priority, p.cpu_m, p.memory_b,"
                           " coalesce(p.gpu, 0), p.created_us, p.scheduled_us, p.started_us, p.finished_us,"
                           " p.phase, p.message, n.name FROM pod p LEFT JOIN node n ON n.id = p.node_id"
                           " WHERE p.name = ?1 ORDER BY p.id DESC",
                           -1, &st, NULL) != SQLITE_OK)
        return gs_report_error(errbuf, errlen, GS_ESQL, "trace '%s': %s", trace, sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rows = 0, found = 0;
    int64_t first_created = -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        rows++;
        int64_t created = col_i64(st, 8);
        if (first_created < 0 || created < first_created)
            first_created = created;
        if (found || created > at)
            continue;
        found = 1;
        p->id = sqlite3_column_int64(st, 0);
        p->name = col_dup(st, 1);
        p->workload = col_dup(st, 2);
        p->group = col_dup(st, 3);
        p->priority = sqlite3_column_int64(st, 4);
        p->cpu = sqlite3_column_int64(st, 5);
        p->mem = sqlite3_column_int64(st, 6);
        p->gpu = sqlite3_column_int64(st, 7);
        p->created = created;
        p->scheduled = col_i64(st, 9);
        p->started = col_i64(st, 10);
        p->finished = col_i64(st, 11);
        p->phase = col_dup(st, 12);
        p->message = col_dup(st, 13);
        p->node = col_dup(st, 14);
    }
    sqlite3_finalize(st);
    p->named = rows;
    char t[64];
    dur(at, t, sizeof t);
    if (rows == 0) {
        char near[512];
        nearest_names(db, name, near, sizeof near);
        if (near[0])
            return gs_report_error(errbuf, errlen, GS_EINVAL, "trace '%s' has no pod named '%s' (did you mean %s?)",
                                   trace, name, near);
        return gs_report_error(errbuf, errlen, GS_EINVAL, "trace '%s' has no pod named '%s'", trace, name);
    }
    if (!found) {
        char c[64];
        dur(first_created, c, sizeof c);
        return gs_report_error(errbuf, errlen, GS_EINVAL,
                               "pod '%s' did not exist yet at %s: it was created at %s (try --at %s or later)", name, t,
                               c, c);
    }
    if (!p->name)
        return gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    /* Its state at T. */
    if (p->finished >= 0 && p->finished <= at)
        p->state = p->phase ? p->phase : "Deleted";
    else if (p->started >= 0 && p->started <= at)
        p->state = "Running";
    else
        p->state = "Pending";
    if (sqlite3_prepare_v2(db,
                           "SELECT t_us, message, coalesce(count, 1), coalesce(last_us, t_us) FROM pod_event"
                           " WHERE pod_id = ?1 AND reason = 'FailedScheduling' AND t_us <= ?2 ORDER BY t_us, rowid",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, p->id);
        sqlite3_bind_int64(st, 2, at);
        while (sqlite3_step(st) == SQLITE_ROW) {
            gs_free(p->msg_at);
            p->msg_at = col_dup(st, 1);
            p->msg_first = sqlite3_column_int64(st, 0);
            p->msg_last = sqlite3_column_int64(st, 3) <= at ? sqlite3_column_int64(st, 3) : p->msg_first;
            /* An aggregated row counts the occurrences up to its last time; those after T are
             * not known one by one, so they count when the row's last time is by T. */
            p->attempts += sqlite3_column_int64(st, 3) <= at ? sqlite3_column_int64(st, 2) : 1;
        }
        sqlite3_finalize(st);
    }
    return 0;
}

/* Does the trace hold event tables (not --trace-level summary)? */
static bool has_events(sqlite3 *db)
{
    char level[32];
    run_key(db, "trace_level", level, sizeof level);
    return strcmp(level, "summary") != 0;
}

/* ------------------------------------------------------------------ the replay's check */

void gs_explain_binding_differs(const char *pod, int64_t trace_us, int64_t replay_us, int64_t at_us, char *buf,
                                size_t n)
{
    char a[64], b[64], t[64];
    dur(trace_us, a, sizeof a);
    dur(replay_us, b, sizeof b);
    dur(at_us, t, sizeof t);
    if (trace_us >= 0 && replay_us >= 0)
        snprintf(buf, n, "pod '%s' was bound at %s in the trace, at %s in the replay", pod, a, b);
    else if (trace_us >= 0)
        snprintf(buf, n, "pod '%s' was bound at %s in the trace, but not by %s in the replay", pod, a, t);
    else if (replay_us >= 0)
        snprintf(buf, n, "pod '%s' was not bound by %s in the trace, but at %s in the replay", pod, t, b);
    else
        snprintf(buf, n, "pod '%s' was not bound by %s in the trace nor in the replay", pod, t);
}

/* Compare the replayed cluster with the trace at T: nodes by id, pods created by T by id (name,
 * binding time and node). 0, or GS_EINVAL with what differs in `why`. */
static int check_replay(sqlite3 *db, const struct gs_replay *r, int64_t at, char *why, size_t n, int *npods_out)
{
    const struct gs_world *w = &r->sc.world;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id, name FROM node ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (id < w->nnodes && (!name || strcmp(name, w->nodes[id].name) != 0)) {
            snprintf(why, n, "node %" PRId64 " is '%s' in the trace, '%s' in the replay", id, name ? name : "",
                     w->nodes[id].name);
            rc = GS_EINVAL;
        }
    }
    sqlite3_finalize(st);
    if (rc)
        return rc;
    if (sqlite3_prepare_v2(db,
                           "SELECT p.id, p.name, p.scheduled_us, n.name, p.cpu_m, p.memory_b, coalesce(p.gpu, 0)"
                           " FROM pod p LEFT JOIN node n ON n.id = p.node_id WHERE p.created_us <= ?1 ORDER BY p.id",
                           -1, &st, NULL) != SQLITE_OK)
        return GS_ESQL;
    sqlite3_bind_int64(st, 1, at);
    int count = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        count++;
        int64_t id = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        int64_t sched = col_i64(st, 2);
        const char *node = (const char *)sqlite3_column_text(st, 3);
        if (id >= w->npods) {
            snprintf(why, n, "pod '%s' was created by then in the trace, not in the replay", name ? name : "");
            rc = GS_EINVAL;
            break;
        }
        const struct gs_pod *p = &w->pods[id];
        if (!name || strcmp(name, p->name) != 0) {
            snprintf(why, n, "pod %" PRId64 " is '%s' in the trace, '%s' in the replay", id, name ? name : "", p->name);
            rc = GS_EINVAL;
            break;
        }
        /* The pod row's requests (cpu, memory, whole GPUs) are the template's. */
        int gpu_res = gs_res_find(&w->res, "nvidia.com/gpu");
        int64_t cpu = sqlite3_column_int64(st, 4), mem = sqlite3_column_int64(st, 5), gpu = sqlite3_column_int64(st, 6);
        int64_t rgpu = gpu_res >= 0 ? p->tmpl->requests.v[gpu_res] : 0;
        if (cpu != p->tmpl->requests.v[GS_RES_CPU] || mem != p->tmpl->requests.v[GS_RES_MEMORY] || gpu != rgpu) {
            snprintf(why, n,
                     "pod '%s' requests cpu %" PRId64 "m, memory %" PRId64 ", nvidia.com/gpu %" PRId64
                     " in the trace, cpu %" PRId64 "m, memory %" PRId64 ", nvidia.com/gpu %" PRId64 " in the replay",
                     name, cpu, mem, gpu, p->tmpl->requests.v[GS_RES_CPU], p->tmpl->requests.v[GS_RES_MEMORY], rgpu);
            rc = GS_EINVAL;
            break;
        }
        bool bound_t = sched >= 0 && sched <= at, bound_r = p->scheduled_us >= 0;
        if (bound_t != bound_r || (bound_t && sched != p->scheduled_us)) {
            gs_explain_binding_differs(name, bound_t ? sched : -1, bound_r ? p->scheduled_us : -1, at, why, n);
            rc = GS_EINVAL;
            break;
        }
        if (bound_t && p->last_node >= 0 && (!node || strcmp(node, w->nodes[p->last_node].name) != 0)) {
            if (node)
                snprintf(why, n, "pod '%s' is on node %s in the trace, on node %s in the replay", name, node,
                         w->nodes[p->last_node].name);
            else
                snprintf(why, n, "pod '%s' is on no node in the trace, on node %s in the replay", name,
                         w->nodes[p->last_node].name);
            rc = GS_EINVAL;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc == 0 && count != w->npods) {
        snprintf(why, n, "%d pods were created by then in the trace, %d in the replay", count, w->npods);
        rc = GS_EINVAL;
    }
    *npods_out = count;
    return rc;
}

/* ------------------------------------------------------------------ printing the pod */

static void print_pod(FILE *out, const struct tpod *tp, const struct gs_world *w, int pod, int64_t at)
{
    const struct gs_pod *p = &w->pods[pod];
    const struct gs_pod_template *t = p->tmpl;
    char a[64], b[64], c[64];
    dur(at, a, sizeof a);
    dur(tp->created, b, sizeof b);
    fprintf(out, "Pod:          %s\n", tp->name);
    if (tp->named > 1)
        fprintf(out, "              (%d pods had this name; this is the newest created by %s, pod id %" PRId64 ")\n",
                tp->named, a, tp->id);
    fprintf(out, "At:           %s\n", a);
    fprintf(out, "Created:      %s, workload %s%s%s, priority %" PRId64 "\n", b, tp->workload ? tp->workload : "<none>",
            tp->group ? ", PodGroup " : "", tp->group ? tp->group : "", tp->priority);
    /* Requests: cpu, memory, then every other resource the template asks for. */
    gs_explain_cpu(t->requests.v[GS_RES_CPU], b, sizeof b);
    gs_explain_bytes(t->requests.v[GS_RES_MEMORY], c, sizeof c);
    fprintf(out, "Requests:     cpu %s, memory %s", b, c);
    for (int r = GS_RES_FIXED; r < w->res.n; r++)
        if (t->requests.v[r] > 0)
            fprintf(out, ", %s %" PRId64, w->res.names[r], t->requests.v[r]);
    if (t->requests.v[GS_RES_EPHEMERAL] > 0) {
        gs_explain_bytes(t->requests.v[GS_RES_EPHEMERAL], c, sizeof c);
        fprintf(out, ", ephemeral-storage %s", c);
    }
    fprintf(out, "\n");
    if (t->claims && t->claims->n > 0) {
        fprintf(out, "Claims:       ");
        for (int i = 0; i < t->claims->n; i++) {
            const struct gs_pod_claim_ref *ref = &t->claims->refs[i];
            fprintf(out, "%s%s (%s %s)", i ? ", " : "", ref->name,
                    ref->claim_name ? "ResourceClaim" : "ResourceClaimTemplate",
                    ref->claim_name ? ref->claim_name : ref->template_name);
        }
        fprintf(out, "\n");
    }
    if (t->node_selector.n > 0) {
        fprintf(out, "NodeSelector: ");
        for (int i = 0; i < t->node_selector.n; i++)
            fprintf(out, "%s%s=%s", i ? ", " : "", t->node_selector.kv[i].key, t->node_selector.kv[i].value);
        fprintf(out, "\n");
    }
    if (t->affinity.has_required)
        fprintf(out, "Affinity:     required node affinity, %d term(s)\n", t->affinity.nrequired);
    fprintf(out, "Tolerations:  ");
    if (t->ntolerations == 0)
        fprintf(out, "<none>");
    for (int i = 0; i < t->ntolerations; i++) {
        const struct gs_toleration *o = &t->tolerations[i];
        fprintf(out, "%s%s%s%s%s%s%s", i ? ", " : "", o->key[0] ? o->key : "<all keys>",
                o->op == GS_TOL_EXISTS ? " Exists" : "=", o->op == GS_TOL_EXISTS ? "" : o->value,
                o->effect != GS_EFFECT_ALL ? ":" : "", gs_explain_effect(o->effect),
                o->effect == GS_EFFECT_ALL ? " (any effect)" : "");
    }
    fprintf(out, "\n");
    /* State at T. */
    fprintf(out, "Status:       %s", tp->state);
    if (strcmp(tp->state, "Pending") == 0 && tp->scheduled >= 0 && tp->scheduled <= at) {
        dur(tp->scheduled, b, sizeof b);
        fprintf(out, ", bound to %s at %s, not started yet", tp->node ? tp->node : "?", b);
    } else if (strcmp(tp->state, "Pending") == 0 && p->permit_waiting && p->node >= 0) {
        fprintf(out, ", reserved on %s, waiting at Permit for the rest of its PodGroup", w->nodes[p->node].name);
    } else if (strcmp(tp->state, "Pending") == 0) {
        dur(at - tp->created, b, sizeof b);
        fprintf(out, ", not scheduled for %s", b);
        if (tp->attempts > 0)
            fprintf(out, " (%" PRId64 " FailedScheduling event%s)", tp->attempts, tp->attempts == 1 ? "" : "s");
    } else if (strcmp(tp->state, "Running") == 0) {
        dur(tp->scheduled, b, sizeof b);
        fprintf(out, " on %s (bound at %s)", tp->node ? tp->node : "?", b);
    } else {
        dur(tp->finished, b, sizeof b);
        fprintf(out, " at %s", b);
        if (tp->node && tp->scheduled >= 0)
            fprintf(out, " (it ran on %s)", tp->node);
    }
    fprintf(out, "\n");
    if (tp->msg_at && !(tp->scheduled >= 0 && tp->scheduled <= at)) {
        dur(tp->msg_first, b, sizeof b);
        fprintf(out, "Message:      %s\n              (its last FailedScheduling event by then, first seen at %s)\n",
                tp->msg_at, b);
    } else if (strcmp(tp->state, "Rejected") == 0 && tp->message) {
        fprintf(out, "Message:      %s\n", tp->message);
    }
}

/* ------------------------------------------------------------------ the command */

int gs_report_explain(const struct gs_explain_opts *o, FILE *out, char *errbuf, int errlen)
{
    if (!o || !o->trace || !o->pod || !out)
        return gs_report_error(errbuf, errlen, GS_EINVAL, "gs_report_explain: invalid argument");
    sqlite3 *db = NULL;
    int rc = gs_report_open(o->trace, &db, errbuf, errlen);
    if (rc)
        return rc;
    struct tpod tp = {0};
    struct gs_replay r = {0};
    struct gs_explain_scores *scores = NULL;
    char *sets[MAX_SETS];
    int nsets = 0;
    int64_t at = o->at_us >= 0 ? o->at_us : gs_report_run_end(db);
    int64_t replay_at = at; /* where the replay stops: T, or the binding of a pod bound by T */
    char tbuf[64];
    dur(at, tbuf, sizeof tbuf);

    rc = gs_report_check_time(db, o->trace, "--at", o->at_us, errbuf, errlen);
    if (rc == 0)
        rc = find_pod(db, o->trace, o->pod, at, &tp, errbuf, errlen);
    /* What made the trace: the scenario, its seed, overrides and horizon. */
    char path[1024] = "", seed_s[64], hz[64];
    if (rc == 0) {
        run_key(db, "scenario_path", path, sizeof path);
        if (o->scenario)
            snprintf(path, sizeof path, "%s", o->scenario);
        else
            resolve_beside_trace(path, sizeof path, o->trace);
        if (!path[0])
            rc = gs_report_error(errbuf, errlen, GS_EINVAL,
                                 "trace '%s' does not say which scenario made it (no run.scenario_path): give it "
                                 "with --scenario FILE",
                                 o->trace);
    }
    run_key(db, "seed", seed_s, sizeof seed_s);
    run_key(db, "horizon_us", hz, sizeof hz);
    sqlite3_stmt *st;
    if (rc == 0 && sqlite3_prepare_v2(db, "SELECT substr(key, 10), value FROM run WHERE key LIKE 'override.%'"
                                          " ORDER BY rowid",
                                      -1, &st, NULL) == SQLITE_OK) {
        while (nsets < MAX_SETS && sqlite3_step(st) == SQLITE_ROW) {
            const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
            size_t len = strlen(k ? k : "") + strlen(v ? v : "") + 2;
            sets[nsets] = gs_malloc(len);
            if (!sets[nsets]) {
                rc = GS_ENOMEM;
                break;
            }
            snprintf(sets[nsets++], len, "%s=%s", k ? k : "", v ? v : "");
        }
        sqlite3_finalize(st);
    }
    /* Replay to T, watching the pod's scheduling cycles. */
    if (rc == 0 && !(scores = gs_explain_scores_new((int)tp.id)))
        rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    if (rc == 0) {
        /* A pod bound by T is explained by the cycle that bound it: the replay stops at that
         * instant, and the observer is installed only for it (observing every cycle of a long
         * run costs more than the run). */
        bool bound = tp.scheduled >= 0 && tp.scheduled <= at;
        replay_at = bound ? tp.scheduled : at;
        /* A pending pod: observe from its last FailedScheduling by T, to compare that cycle's
         * verdicts with the filters at T. */
        bool observe = bound || tp.msg_at != NULL;
        int64_t hook = bound ? tp.scheduled : tp.msg_at ? tp.msg_last : replay_at;
        struct gs_replay_opts ro = {.scenario_path = path,
                                    .sets = (const char *const *)sets,
                                    .nsets = nsets,
                                    .seed = seed_s[0] ? strtoll(seed_s, NULL, 10) : -1,
                                    .horizon = hz[0] ? strtoll(hz, NULL, 10) : -1,
                                    .at = replay_at,
                                    .on_sched = observe ? gs_explain_scores_install : NULL,
                                    .ctx = scores,
                                    .hook_from = hook,
                                    .stop = o->stop};
        struct gs_error err = {0};
        rc = gs_replay_run(&ro, &r, &err);
        if (rc == GS_EIO && !r.loaded)
            rc = gs_report_error(errbuf, errlen, GS_EIO,
                                 "cannot replay the run: the scenario '%s' the trace was made from cannot be read "
                                 "(%s); if it moved, give its new place with --scenario FILE",
                                 path, err.msg);
        else if (rc && !r.loaded)
            rc = gs_report_error(errbuf, errlen, rc,
                                 "cannot replay the run: the scenario '%s' does not load as it did for the trace "
                                 "(%s%s%d: %s); it changed since the run: give the file the trace was made from with "
                                 "--scenario FILE",
                                 path, err.file, err.line > 0 ? ":" : "", err.line, err.msg);
        else if (rc == GS_EINTERRUPTED)
            rc = gs_report_error(errbuf, errlen, rc, "interrupted while replaying the run");
        else if (rc)
            rc = gs_report_error(errbuf, errlen, rc, "cannot replay the run: %s", err.msg);
    }
    int npods = 0;
    char rbuf[64];
    dur(replay_at, rbuf, sizeof rbuf);
    if (rc == 0) {
        char why[512] = "";
        int crc = check_replay(db, &r, replay_at, why, sizeof why, &npods);
        const struct gs_pod *p = tp.id < r.sc.world.npods ? &r.sc.world.pods[tp.id] : NULL;
        /* The message the pod had at T must be the one the replay gives it. */
        if (crc == 0 && p && has_events(db) && tp.msg_at && p->scheduled_us < 0 &&
            (!p->message || strcmp(p->message, tp.msg_at) != 0)) {
            snprintf(why, sizeof why, "pod '%s' has message \"%s\" in the trace, \"%s\" in the replay", tp.name,
                     tp.msg_at, p->message ? p->message : "");
            crc = GS_EINVAL;
        }
        if (crc == GS_ESQL)
            rc = gs_report_error(errbuf, errlen, GS_ESQL, "trace '%s': %s", o->trace, sqlite3_errmsg(db));
        else if (crc)
            rc = gs_report_error(errbuf, errlen, GS_EINVAL,
                                 "the replay of '%s' disagrees with the trace at %s: %s. The scenario file (or "
                                 "gpusim) changed since the run; give the scenario the trace was made from with "
                                 "--scenario FILE",
                                 path, rbuf, why);
    }
    if (rc == 0) {
        const struct gs_world *w = &r.sc.world;
        int pod = (int)tp.id;
        print_pod(out, &tp, w, pod, at);
        fprintf(out, "Replay:       %s", path);
        if (seed_s[0])
            fprintf(out, " --seed %s", seed_s);
        for (int i = 0; i < nsets; i++) {
            char q[1200];
            gs_explain_shell_quote(sets[i], q, sizeof q);
            fprintf(out, " --set %s", q);
        }
        fprintf(out, ", run to %s%s: agrees with the trace (%d node%s, %d pod%s by then)%s\n", rbuf,
                replay_at < at ? " (when the pod was bound)" : "", w->nnodes, w->nnodes == 1 ? "" : "s", npods, npods == 1 ? "" : "s",
                has_events(db) ? "" : "; the trace has no events (--trace-level summary): checked against its pod table only");
        fprintf(out, "\n");
        const struct gs_pod *p = &w->pods[pod];
        if (p->phase == GS_PHASE_REJECTED) {
            fprintf(out, "The API server refused the pod: it never reached the scheduler.\n");
        } else if (p->scheduled_us >= 0) {
            fprintf(out, "Bound to %s at ", w->nodes[p->last_node].name);
            char b[64];
            dur(p->scheduled_us, b, sizeof b);
            fprintf(out, "%s", b);
            if (tp.attempts > 0)
                fprintf(out, ", after %" PRId64 " failed attempt%s", tp.attempts, tp.attempts == 1 ? "" : "s");
            fprintf(out, ".\n");
            if (p->tmpl->node_name)
                fprintf(out, "Its spec.nodeName names the node: the kubelet took it without the scheduler.\n");
            else
                gs_explain_scores_print(scores, w, out);
        } else if (p->finished_us >= 0) {
            fprintf(out, "The pod ended before it was bound: nothing was placed.\n");
        } else if (p->permit_waiting && p->node >= 0 && p->group >= 0) {
            /* Reserved: the filters passed; Coscheduling's Permit holds it for its group. */
            const struct gs_group *g = &w->groups[p->group];
            int held = 0, waiting = 0;
            for (int q = g->first_pod; q >= 0; q = w->pods[q].next_in_group)
                if (w->pods[q].node >= 0 && w->pods[q].finished_us < 0) {
                    held++;
                    waiting += w->pods[q].permit_waiting;
                }
            fprintf(out,
                    "The pod passed the filters and is reserved on %s (its requests count there), waiting at Permit: "
                    "Coscheduling lets the pods of PodGroup %s bind only once %d of them are placed, and %d are (%d "
                    "waiting at Permit).\n",
                    w->nodes[p->node].name, g->name, g->min_member, held, waiting);
            int shown = 0;
            for (int q = g->first_pod; q >= 0; q = w->pods[q].next_in_group)
                if (w->pods[q].node < 0 && w->pods[q].finished_us < 0 && !w->pods[q].deleted) {
                    fprintf(out, "%s%s", shown ? ", " : "The group's pods not placed (explain them to see why): ",
                            w->pods[q].name);
                    shown++;
                }
            fprintf(out, shown ? ".\n" : "Every pod of the group created so far is placed: it waits for more to be created.\n");
        } else {
            struct gs_explain_ctx x = {.r = &r,
                                       .db = db,
                                       .pod = pod,
                                       .at = at,
                                       .scenario_path = path,
                                       .sets = (const char *const *)sets,
                                       .nsets = nsets,
                                       .seed = seed_s[0] ? strtoll(seed_s, NULL, 10) : -1,
                                       .scores = scores,
                                       .last_attempt = tp.msg_at ? tp.msg_last : -1,
                                       .out = out};
            rc = gs_explain_unbound(&x);
            if (rc)
                rc = gs_report_error(errbuf, errlen, rc, "explain: %s", gs_strerror(rc));
        }
    }
    gs_replay_free(&r);
    gs_explain_scores_free(scores);
    for (int i = 0; i < nsets; i++)
        gs_free(sets[i]);
    tpod_free(&tp);
    sqlite3_close(db);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the explanation");
    return rc;
}
