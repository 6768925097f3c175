/* gpusim: the HTML report and the HTML form of compare (reports/html.h). The C side gathers the
 * data (samples, time to schedule, the history's events and holdings) into one JSON document;
 * the embedded script (reports/html/report.js) draws it. */
#include "reports/html.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "reports/history.h"
#include "reports/open.h"
#include "reports/study.h"

/* The embedded stylesheet and script (generated from reports/html/ by reports/html/embed.cmake). */
extern const char gs_html_report_css[];
extern const char gs_html_report_js[];

#define SCHEMA "gpusim-html/1"

struct ctx {
    char *err;
    int errlen;
    bool bad; /* a JSON allocation failed */
    /* strings of the page, interned: index into `strings` */
    json_t *strings, *index;
};

static void put(json_t *o, const char *k, json_t *v, struct ctx *c)
{
    if (!v || json_object_set_new(o, k, v) != 0)
        c->bad = true;
}

static void push(json_t *a, json_t *v, struct ctx *c)
{
    if (!v || json_array_append_new(a, v) != 0)
        c->bad = true;
}

/* The index of `s` in the page's string table (-1 for NULL). */
static json_int_t str_id(struct ctx *c, const char *s)
{
    if (!s)
        return -1;
    json_t *v = json_object_get(c->index, s);
    if (v)
        return json_integer_value(v);
    json_int_t id = (json_int_t)json_array_size(c->strings);
    if (json_array_append_new(c->strings, json_string(s)) != 0 || json_object_set_new(c->index, s, json_integer(id)))
        c->bad = true;
    return id;
}

static int sql_fail(struct ctx *c, sqlite3 *db, const char *path)
{
    return gs_report_error(c->err, c->errlen, GS_ESQL, "trace '%s': %s", path, sqlite3_errmsg(db));
}

/* ------------------------------------------------------------------ samples */

/* The samples of one run: {"t": [µs...], "pools": {POOL: {"alloc", "allocatable", "pending",
 * "frag", "held"}}} with pool "" the whole cluster; every k-th time when there are more than
 * GS_HTML_MAX_POINTS (and the last), "stride": k. */
static int samples_json(sqlite3 *db, const char *path, json_t *run, struct ctx *c)
{
    sqlite3_stmt *st;
    int64_t ntimes = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(DISTINCT t_us) FROM sample", -1, &st, NULL) != SQLITE_OK)
        return sql_fail(c, db, path);
    if (sqlite3_step(st) == SQLITE_ROW)
        ntimes = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    int64_t stride = ntimes > GS_HTML_MAX_POINTS ? (ntimes + GS_HTML_MAX_POINTS - 1) / GS_HTML_MAX_POINTS : 1;
    /* one row per time and pool (the final sample replaces one at its time; --sample-every-pod
     * may give several rows at one time: the last, by rowid, is the state after them) */
    if (sqlite3_prepare_v2(db,
                           "SELECT t_us, pool, gpus_allocated, gpus_allocatable, pods_pending, frag_gpus,"
                           " gpus_held_by_incomplete_groups FROM sample"
                           " WHERE rowid IN (SELECT max(rowid) FROM sample GROUP BY t_us, pool)"
                           " ORDER BY t_us, pool",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_fail(c, db, path);
    json_t *times = json_array(), *pools = json_object(), *o = json_object();
    put(o, "t", times, c);
    put(o, "pools", pools, c);
    put(o, "stride", json_integer(stride), c);
    put(run, "samples", o, c);
    int64_t idx = -1, last_t = -1;
    bool keep = false;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && !c->bad) {
        int64_t t = sqlite3_column_int64(st, 0);
        if (t != last_t) {
            idx++;
            last_t = t;
            keep = idx % stride == 0 || idx == ntimes - 1;
            if (keep)
                push(times, json_integer(t), c);
        }
        if (!keep)
            continue;
        const char *pool = (const char *)sqlite3_column_text(st, 1);
        if (!pool)
            pool = "";
        json_t *p = json_object_get(pools, pool);
        if (!p) {
            p = json_object();
            put(pools, pool, p, c);
            if (!p)
                break;
            static const char *const keys[] = {"alloc", "allocatable", "pending", "frag", "held"};
            for (int i = 0; i < 5; i++)
                put(p, keys[i], json_array(), c);
            put(p, "from", json_integer((json_int_t)json_array_size(times) - 1), c);
        }
        push(json_object_get(p, "alloc"), json_integer(sqlite3_column_int64(st, 2)), c);
        push(json_object_get(p, "allocatable"), json_integer(sqlite3_column_int64(st, 3)), c);
        push(json_object_get(p, "pending"), json_integer(sqlite3_column_int64(st, 4)), c);
        push(json_object_get(p, "frag"),
             sqlite3_column_type(st, 5) == SQLITE_NULL ? json_null()
                                                        : json_real((double)(int64_t)(sqlite3_column_double(st, 5) * 1000) / 1000),
             c);
        push(json_object_get(p, "held"), json_integer(sqlite3_column_int64(st, 6)), c);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return sql_fail(c, db, path);
    return 0;
}

/* ------------------------------------------------------------------ run facts */

static json_t *run_value(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st;
    json_t *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return json_null();
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = json_string((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v ? v : json_null();
}

/* The run's facts and the time-to-schedule CDF: "cdf": [[seconds, fraction of bound pods]...]
 * (at most GS_HTML_MAX_POINTS points, at evenly spaced ranks, the last always), "bound", "pods". */
static int run_facts(sqlite3 *db, const char *path, const json_t *study, json_t *run, struct ctx *c)
{
    static const char *const keys[] = {"scenario", "seed", "status", "kubernetesVersion", "command", NULL};
    for (int i = 0; keys[i]; i++)
        put(run, keys[i], run_value(db, keys[i]), c);
    json_t *r = json_object_get(study, "run");
    put(run, "endSeconds", json_deep_copy(json_object_get(r, "endSeconds")), c);
    put(run, "pods", json_deep_copy(json_object_get(study, "pods")), c);
    put(run, "timeToSchedule", json_deep_copy(json_object_get(study, "timeToSchedule")), c);
    double *tts = NULL;
    int n = 0;
    int rc = gs_study_times_to_schedule(path, &tts, &n, c->err, (size_t)c->errlen);
    if (rc)
        return rc;
    json_t *cdf = json_array();
    put(run, "cdf", cdf, c);
    put(run, "bound", json_integer(n), c);
    int m = n > GS_HTML_MAX_POINTS ? GS_HTML_MAX_POINTS : n;
    for (int j = 0; j < m && cdf; j++) {
        int i = m == n ? j : (int)((int64_t)j * (n - 1) / (m - 1));
        json_t *pt = json_array();
        push(pt, json_real(tts[i]), c);
        push(pt, json_real((double)(i + 1) / n), c);
        push(cdf, pt, c);
    }
    gs_free(tts);
    return 0;
}

/* ------------------------------------------------------------------ history */

/* GPU slots of a mask as an array of indices. */
static json_t *slots_json(uint64_t mask, struct ctx *c)
{
    json_t *a = json_array();
    for (int g = 0; g < 64 && a; g++)
        if (mask >> g & 1)
            push(a, json_integer(g), c);
    return a;
}

static json_t *pod_hold(int pod, int node, uint64_t mask, int milli, struct ctx *c)
{
    json_t *a = json_array();
    push(a, json_integer(pod), c);
    push(a, json_integer(node), c);
    push(a, slots_json(mask, c), c);
    push(a, json_integer(milli), c);
    return a;
}

/* [-1 - node, allocatable, present, allocated]: allocated by gs_hist_node_allocated, the samples' rule */
static json_t *node_change(int node, int64_t allocatable, bool present, int64_t allocated, struct ctx *c)
{
    json_t *a = json_array();
    push(a, json_integer(-1 - node), c);
    push(a, json_integer(allocatable), c);
    push(a, json_integer(present), c);
    push(a, json_integer(allocated), c);
    return a;
}

/* Free GPUs over time from the history: "free": {"t": [µs], "free": [GPUs free on present
 * nodes], "largest": [the most free on one node]}, a point at each change (the last of an
 * instant), every k-th when more than GS_HTML_MAX_POINTS. */
struct free_pt {
    int64_t t, free, largest;
};
struct free_acc {
    struct free_pt *p;
    int n, cap;
};

static int free_add(struct free_acc *f, int64_t t, int64_t fr, int64_t lg)
{
    if (f->n > 0 && f->p[f->n - 1].t == t) {
        f->p[f->n - 1].free = fr;
        f->p[f->n - 1].largest = lg;
        return 0;
    }
    if (f->n > 0 && f->p[f->n - 1].free == fr && f->p[f->n - 1].largest == lg)
        return 0;
    if (GS_GROW(f->p, f->cap, f->n + 1))
        return GS_ENOMEM;
    f->p[f->n++] = (struct free_pt){t, fr, lg};
    return 0;
}

/* Walk every event of `h`: the free-GPU series into run["free"], and, for events [from, from +
 * max) the step-through into page["steps"] (when `steps` is true). */
static int history_json(const struct gs_history *h, json_t *run, json_t *page, bool steps, int64_t from_us,
                        int max_steps, bool *pod_used, struct ctx *c)
{
    struct gs_hist_state st;
    if (gs_hist_state_init(h, &st))
        return gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory");
    int64_t *node_free = gs_calloc((size_t)h->nnodes + 1, sizeof *node_free);
    int *prev_node = gs_calloc((size_t)h->npods + 1, sizeof *prev_node);
    uint64_t *prev_mask = gs_calloc((size_t)h->npods + 1, sizeof *prev_mask);
    int *prev_milli = gs_calloc((size_t)h->npods + 1, sizeof *prev_milli);
    int64_t *prev_alloc = gs_calloc((size_t)h->nnodes + 1, sizeof *prev_alloc);
    int64_t *prev_used = gs_calloc((size_t)h->nnodes + 1, sizeof *prev_used);
    bool *dirty = gs_calloc((size_t)h->nnodes + 1, sizeof *dirty);
    bool *prev_present = gs_calloc((size_t)h->nnodes + 1, sizeof *prev_present);
    struct free_acc fa = {0};
    int rc = 0;
    if (!node_free || !prev_node || !prev_mask || !prev_milli || !prev_alloc || !prev_present || !prev_used || !dirty) {
        rc = gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory");
        goto out;
    }
    for (int p = 0; p < h->npods; p++)
        prev_node[p] = -1;
    int first = 0;
    while (first < h->nevents && h->events[first].t_us < from_us)
        first++;
    int last = first + max_steps < h->nevents ? first + max_steps : h->nevents;
    json_t *events = NULL;
    if (steps) {
        json_t *s = json_object();
        put(page, "steps", s, c);
        if (!s)
            goto out;
        put(s, "first", json_integer(first), c);
        put(s, "total", json_integer(h->nevents), c);
        put(s, "fromUs", json_integer(from_us), c);
        events = json_array();
        put(s, "events", events, c);
    }
    int64_t total_free = 0, largest = 0;
    for (int k = 0; k <= h->nevents && !c->bad; k++) {
        if (steps && k == first) {
            /* the state the window starts from */
            json_t *init = json_object(), *holds = json_array(), *alloc = json_array(), *present = json_array(),
                   *used = json_array();
            put(init, "holds", holds, c);
            put(init, "allocatable", alloc, c);
            put(init, "present", present, c);
            put(init, "allocated", used, c);
            put(json_object_get(page, "steps"), "initial", init, c);
            for (int p = 0; p < h->npods && holds; p++)
                if (st.pod_node[p] >= 0) {
                    push(holds, pod_hold(p, st.pod_node[p], st.pod_mask[p], st.pod_milli[p], c), c);
                    pod_used[p] = true;
                }
            for (int n = 0; n < h->nnodes && alloc && present && used; n++) {
                push(alloc, json_integer(st.node_allocatable[n]), c);
                push(present, json_integer(st.node_present[n]), c);
                push(used, json_integer(prev_used[n]), c);
            }
        }
        if (k == h->nevents)
            break;
        const struct gs_hist_event *e = &h->events[k];
        gs_hist_state_advance(h, &st, k + 1);
        /* what changed: the event's pod (after a row of no pod that changes holdings: every pod),
         * then the nodes they were or are on, and a node row's node */
        json_t *changes = steps && k >= first && k < last ? json_array() : NULL;
        bool touched = false;
        bool all = e->pod < 0 && e->effect != GS_HIST_NONE; /* a node row, a scheduler restart */
        int p0 = all ? 0 : e->pod < 0 ? h->npods : e->pod, p1 = all ? h->npods : e->pod < 0 ? h->npods : e->pod + 1;
        if (e->node >= 0 && e->pod < 0)
            dirty[e->node] = true;
        for (int p = p0; p < p1; p++) {
            if (st.pod_node[p] == prev_node[p] && st.pod_mask[p] == prev_mask[p] && st.pod_milli[p] == prev_milli[p])
                continue;
            if (prev_node[p] >= 0)
                dirty[prev_node[p]] = true;
            if (st.pod_node[p] >= 0)
                dirty[st.pod_node[p]] = true;
            if (changes) {
                push(changes, pod_hold(p, st.pod_node[p], st.pod_mask[p], st.pod_milli[p], c), c);
                pod_used[p] = true;
            }
            prev_node[p] = st.pod_node[p];
            prev_mask[p] = st.pod_mask[p];
            prev_milli[p] = st.pod_milli[p];
        }
        for (int n = 0; n < h->nnodes; n++) {
            if (!dirty[n])
                continue;
            dirty[n] = false;
            int64_t used = gs_hist_node_allocated(h, &st, n);
            if (st.node_allocatable[n] == prev_alloc[n] && st.node_present[n] == prev_present[n] && used == prev_used[n])
                continue;
            int64_t fr = st.node_present[n] ? st.node_allocatable[n] - used : 0;
            node_free[n] = fr > 0 ? fr : 0;
            touched = true;
            if (changes)
                push(changes, node_change(n, st.node_allocatable[n], st.node_present[n], used, c), c);
            prev_alloc[n] = st.node_allocatable[n];
            prev_present[n] = st.node_present[n];
            prev_used[n] = used;
        }
        if (touched) {
            total_free = largest = 0;
            for (int n = 0; n < h->nnodes; n++) {
                total_free += node_free[n];
                if (node_free[n] > largest)
                    largest = node_free[n];
            }
        }
        if (free_add(&fa, e->t_us, total_free, largest)) {
            rc = gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory");
            goto out;
        }
        if (changes) {
            if (e->pod >= 0)
                pod_used[e->pod] = true;
            /* [t_us, pod, node, reason, subject, message, count, last_us, changes] */
            json_t *ev = json_array();
            push(ev, json_integer(e->t_us), c);
            push(ev, json_integer(e->pod), c);
            push(ev, json_integer(e->node), c);
            push(ev, json_integer(str_id(c, e->reason)), c);
            push(ev, json_integer(str_id(c, e->subject)), c);
            push(ev, json_integer(str_id(c, e->message)), c);
            push(ev, json_integer(e->count), c);
            push(ev, json_integer(e->last_us), c);
            push(ev, changes, c);
            push(events, ev, c);
        }
    }
    /* the free-GPU series, every k-th point when long (and the last) */
    json_t *fo = json_object(), *ft = json_array(), *ff = json_array(), *fl = json_array();
    put(fo, "t", ft, c);
    put(fo, "free", ff, c);
    put(fo, "largest", fl, c);
    put(run, "free", fo, c);
    int stride = fa.n > GS_HTML_MAX_POINTS ? (fa.n + GS_HTML_MAX_POINTS - 1) / GS_HTML_MAX_POINTS : 1;
    put(fo, "stride", json_integer(stride), c);
    for (int i = 0; i < fa.n && ft && ff && fl; i++)
        if (i % stride == 0 || i == fa.n - 1) {
            push(ft, json_integer(fa.p[i].t), c);
            push(ff, json_integer(fa.p[i].free), c);
            push(fl, json_integer(fa.p[i].largest), c);
        }
out:
    gs_free(fa.p);
    gs_free(node_free);
    gs_free(prev_node);
    gs_free(prev_mask);
    gs_free(prev_milli);
    gs_free(prev_alloc);
    gs_free(prev_present);
    gs_free(prev_used);
    gs_free(dirty);
    gs_hist_state_free(&st);
    if (!rc && c->bad)
        rc = gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory");
    return rc;
}

/* The nodes and pods of the history: "nodes": [[name, pool, gpus, product]...], "pods": {"<pod
 * index>": [name, group, gpu, workload]} (string ids), only the pods the step-through names (so
 * the page does not grow with every pod of a long run). */
static void cluster_json(const struct gs_history *h, const bool *pod_used, json_t *page, struct ctx *c)
{
    json_t *nodes = json_array(), *pods = json_object();
    put(page, "nodes", nodes, c);
    put(page, "pods", pods, c);
    for (int n = 0; n < h->nnodes && nodes; n++) {
        json_t *a = json_array();
        push(a, json_integer(str_id(c, h->nodes[n].name)), c);
        push(a, json_integer(str_id(c, h->nodes[n].pool)), c);
        push(a, json_integer(h->nodes[n].gpus), c);
        push(a, json_integer(str_id(c, h->nodes[n].product)), c);
        push(nodes, a, c);
    }
    /* "groups": {PodGroup: its pods in the trace} (re-created pods count again) */
    json_t *groups = json_object();
    put(page, "groups", groups, c);
    for (int p = 0; p < h->npods && groups; p++)
        if (h->pods[p].group) {
            json_t *v = json_object_get(groups, h->pods[p].group);
            put(groups, h->pods[p].group, json_integer(v ? json_integer_value(v) + 1 : 1), c);
        }
    for (int p = 0; p < h->npods && pods; p++) {
        if (!pod_used[p])
            continue;
        char key[16];
        snprintf(key, sizeof key, "%d", p);
        json_t *a = json_array();
        push(a, json_integer(str_id(c, h->pods[p].name)), c);
        push(a, json_integer(str_id(c, h->pods[p].group)), c);
        push(a, json_integer(h->pods[p].gpu), c);
        push(a, json_integer(str_id(c, h->pods[p].workload)), c);
        put(pods, key, a, c);
    }
}

/* The bring-up Gantt: "gantt": {"nodes": [{"n": node, "lanes": [[operand, [[t0, t1, status]...]]...],
 * "down": [[t0, t1, kernel]...], "gpus": [[t0, t1, allocatable GPUs]...], "marks": [[t, kind, value]...]}],
 * "shown", "total"}; an operand
 * span runs from its Operand row to the next of the same operand on the node (or the end), a
 * down span from a Reboot row to the next Kernel row (or the end). */
static void gantt_json(const struct gs_history *h, json_t *page, struct ctx *c)
{
    json_t *g = json_object(), *nodes = json_array();
    put(page, "gantt", g, c);
    put(g, "nodes", nodes, c);
    int shown = h->nnodes < GS_HTML_MAX_GANTT_NODES ? h->nnodes : GS_HTML_MAX_GANTT_NODES;
    put(g, "shown", json_integer(shown), c);
    put(g, "total", json_integer(h->nnodes), c);
    if (!nodes)
        return;
    json_t **lanes = gs_calloc((size_t)shown + 1, sizeof *lanes), **down = gs_calloc((size_t)shown + 1, sizeof *down),
           **marks = gs_calloc((size_t)shown + 1, sizeof *marks), **gpus = gs_calloc((size_t)shown + 1, sizeof *gpus);
    if (!lanes || !down || !marks || !gpus) {
        c->bad = true;
        goto out;
    }
    for (int n = 0; n < shown; n++) {
        json_t *o = json_object();
        push(nodes, o, c);
        put(o, "n", json_integer(n), c);
        put(o, "lanes", lanes[n] = json_object(), c);
        put(o, "down", down[n] = json_array(), c);
        put(o, "marks", marks[n] = json_array(), c);
        put(o, "gpus", gpus[n] = json_array(), c);
        if (c->bad)
            goto out;
    }
    for (int k = 0; k < h->nevents && !c->bad; k++) {
        const struct gs_hist_event *e = &h->events[k];
        if (e->pod >= 0 || e->node < 0 || e->node >= shown)
            continue;
        int n = e->node;
        bool joined = strcmp(e->reason, "Joined") == 0, deleted = strcmp(e->reason, "Deleted") == 0;
        if (e->effect == GS_HIST_NODE && (e->allocatable >= 0 || joined || deleted)) {
            /* allocatable GPUs: a span from each change to the next */
            size_t len = json_array_size(gpus[n]);
            json_t *prev = len ? json_array_get(gpus[n], len - 1) : NULL;
            int64_t before = prev ? json_integer_value(json_array_get(prev, 2)) : 0;
            int64_t now = deleted ? -1 : e->allocatable >= 0 ? e->allocatable : before;
            if (prev && json_integer_value(json_array_get(prev, 1)) < 0 && (now != before || deleted)) {
                json_array_set_new(prev, 1, json_integer(e->t_us));
                prev = NULL;
            }
            if (now >= 0 && (!prev || json_integer_value(json_array_get(prev, 1)) >= 0)) {
                json_t *span = json_array();
                push(span, json_integer(e->t_us), c);
                push(span, json_integer(-1), c);
                push(span, json_integer(now), c);
                push(gpus[n], span, c);
            }
        }
        if (strcmp(e->reason, "Operand") == 0 && e->subject) {
            json_t *lane = json_object_get(lanes[n], e->subject);
            if (!lane) {
                lane = json_array();
                put(lanes[n], e->subject, lane, c);
                if (!lane)
                    break;
            }
            size_t len = json_array_size(lane);
            json_t *prev = len ? json_array_get(lane, len - 1) : NULL;
            if (prev && json_integer_value(json_array_get(prev, 1)) < 0)
                json_array_set_new(prev, 1, json_integer(e->t_us));
            if (e->message) {
                json_t *span = json_array();
                push(span, json_integer(e->t_us), c);
                push(span, json_integer(-1), c);
                push(span, json_integer(str_id(c, e->message)), c);
                push(lane, span, c);
            }
        } else if (strcmp(e->reason, "Reboot") == 0 || strcmp(e->reason, "Kernel") == 0) {
            size_t len = json_array_size(down[n]);
            json_t *prev = len ? json_array_get(down[n], len - 1) : NULL;
            bool open = prev && json_integer_value(json_array_get(prev, 1)) < 0;
            if (e->reason[0] == 'R' && !open) {
                json_t *span = json_array();
                push(span, json_integer(e->t_us), c);
                push(span, json_integer(-1), c);
                push(span, json_integer(str_id(c, e->message)), c);
                push(down[n], span, c);
            } else if (e->reason[0] == 'K' && open) {
                json_array_set_new(prev, 1, json_integer(e->t_us));
            }
            if (e->reason[0] == 'K') {
                json_t *m = json_array();
                push(m, json_integer(e->t_us), c);
                push(m, json_integer(str_id(c, "Kernel")), c);
                push(m, json_integer(str_id(c, e->message)), c);
                push(marks[n], m, c);
            }
        } else if (strcmp(e->reason, "Joined") == 0 || strcmp(e->reason, "Schedulable") == 0 ||
                   strcmp(e->reason, "Deleted") == 0 || strcmp(e->reason, "Xid") == 0 ||
                   strcmp(e->reason, "Cordon") == 0) {
            json_t *m = json_array();
            push(m, json_integer(e->t_us), c);
            push(m, json_integer(str_id(c, e->reason)), c);
            push(m, json_integer(str_id(c, e->message)), c);
            push(marks[n], m, c);
        }
    }
    /* open spans end at the end of the run */
    for (int n = 0; n < shown && !c->bad; n++) {
        const char *key;
        json_t *lane;
        json_object_foreach(lanes[n], key, lane)
        {
            size_t len = json_array_size(lane);
            json_t *prev = len ? json_array_get(lane, len - 1) : NULL;
            if (prev && json_integer_value(json_array_get(prev, 1)) < 0)
                json_array_set_new(prev, 1, json_integer(h->end_us));
        }
        for (int i = 0; i < 2; i++) {
            json_t *a = i ? gpus[n] : down[n];
            size_t len = json_array_size(a);
            json_t *prev = len ? json_array_get(a, len - 1) : NULL;
            if (prev && json_integer_value(json_array_get(prev, 1)) < 0)
                json_array_set_new(prev, 1, json_integer(h->end_us));
        }
    }
out:
    gs_free(gpus);
    gs_free(lanes);
    gs_free(down);
    gs_free(marks);
}

/* ------------------------------------------------------------------ one run */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The data of the trace at `path` into a new run object appended to page["runs"]; with `full`
 * also the nodes, pods, Gantt and step-through into `page`. */
static int run_json(const char *path, const char *label, json_t *page, bool full, const struct gs_html_options *o,
                    struct ctx *c)
{
    json_t *study = NULL;
    int rc = gs_study_open(path, &study, c->err, (size_t)c->errlen);
    if (rc)
        return rc;
    sqlite3 *db = NULL;
    rc = gs_report_open(path, &db, c->err, c->errlen);
    if (rc) {
        json_decref(study);
        return rc;
    }
    /* a step-through from after the run's end would show nothing (reports/open.h) */
    if (full && o && (rc = gs_report_check_time(db, path, "--from", o->from_us, c->err, c->errlen)) != 0) {
        sqlite3_close(db);
        json_decref(study);
        return rc;
    }
    json_t *run = json_object();
    push(json_object_get(page, "runs"), run, c);
    put(run, "label", json_string(label ? label : base_name(path)), c);
    rc = run_facts(db, path, study, run, c);
    json_decref(study);
    if (!rc)
        rc = samples_json(db, path, run, c);
    if (!rc) {
        json_t *lvl = run_value(db, "trace_level");
        bool summary = json_is_string(lvl) && strcmp(json_string_value(lvl), "summary") == 0;
        json_decref(lvl);
        if (summary && full) {
            rc = gs_report_error(c->err, c->errlen, GS_EINVAL,
                                 "trace '%s' was written at --trace-level summary: it has no events for the"
                                 " step-through and the bring-up chart (run it again with --trace-level events)",
                                 path);
        } else if (!summary) {
            struct gs_history h;
            rc = gs_history_load(db, &h, c->err, c->errlen);
            if (!rc) {
                bool *used = gs_calloc((size_t)h.npods + 1, sizeof *used);
                int max = o && o->max_steps > 0 ? o->max_steps : GS_HTML_MAX_STEPS;
                rc = used ? history_json(&h, run, page, full, o ? o->from_us : 0, max, used, c)
                          : gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory");
                if (!rc && full) {
                    cluster_json(&h, used, page, c);
                    gantt_json(&h, page, c);
                    put(page, "endUs", json_integer(h.end_us), c);
                }
                gs_free(used);
                gs_history_free(&h);
            }
        }
    }
    sqlite3_close(db);
    if (!rc && c->bad)
        rc = gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory");
    return rc;
}

/* ------------------------------------------------------------------ the page */

static void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* Write the page around `page` (its JSON goes into the data element; "/" is escaped as "\/" so
 * no "</script" can end the element early). */
static int write_page(FILE *out, const char *title, json_t *page, struct ctx *c)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          out);
    html_text(out, title);
    fputs("</title>\n<style>\n", out);
    fputs(gs_html_report_css, out);
    fputs("</style>\n</head>\n<body>\n<main id=\"app\"><noscript>This report draws its charts with a script of its"
          " own, inline in this file; allow scripts to see them.</noscript></main>\n"
          "<script type=\"application/json\" id=\"gpusim-data\">",
          out);
    if (json_dumpf(page, out, JSON_COMPACT | JSON_ESCAPE_SLASH | JSON_REAL_PRECISION(9)) != 0)
        return gs_report_error(c->err, c->errlen, GS_EIO, "cannot write the HTML report: %s",
                               strerror(errno ? errno : EIO));
    fputs("</script>\n<script>\n", out);
    fputs(gs_html_report_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    if (ferror(out) || fflush(out) != 0)
        return gs_report_error(c->err, c->errlen, GS_EIO, "cannot write the HTML report: %s",
                               strerror(errno ? errno : EIO));
    return 0;
}

static json_t *new_page(const char *kind, struct ctx *c)
{
    json_t *page = json_object();
    c->strings = json_array();
    c->index = json_object();
    if (!page || !c->strings || !c->index) {
        c->bad = true;
        return page;
    }
    put(page, "schema", json_string(SCHEMA), c);
    put(page, "kind", json_string(kind), c);
    put(page, "limits", json_pack("{s:i,s:i,s:i}", "points", GS_HTML_MAX_POINTS, "ganttNodes",
                                  GS_HTML_MAX_GANTT_NODES, "mapNodes", GS_HTML_MAX_MAP_NODES),
        c);
    put(page, "runs", json_array(), c);
    return page;
}

static int finish(FILE *out, const char *title, json_t *page, int rc, struct ctx *c)
{
    if (!rc) {
        put(page, "strings", json_incref(c->strings), c);
        rc = c->bad ? gs_report_error(c->err, c->errlen, GS_ENOMEM, "out of memory") : write_page(out, title, page, c);
    }
    json_decref(page);
    json_decref(c->strings);
    json_decref(c->index);
    return rc;
}

int gs_report_html(const char *trace_path, const struct gs_html_options *o, FILE *out, char *err, int errlen)
{
    struct ctx c = {.err = err, .errlen = errlen};
    if (!trace_path)
        return gs_report_error(err, errlen, GS_EINVAL, "gs_report_html: no trace");
    json_t *page = new_page("report", &c);
    int rc = c.bad ? gs_report_error(err, errlen, GS_ENOMEM, "out of memory") : 0;
    if (!rc)
        rc = run_json(trace_path, NULL, page, true, o, &c);
    char title[512];
    json_t *sc = json_object_get(json_array_get(json_object_get(page, "runs"), 0), "scenario");
    snprintf(title, sizeof title, "gpusim report: %s", json_is_string(sc) ? json_string_value(sc) : base_name(trace_path));
    return finish(out, title, page, rc, &c);
}

int gs_compare_html(const char *const *traces, const char *const *labels, int n, FILE *out, char *err, int errlen)
{
    struct ctx c = {.err = err, .errlen = errlen};
    json_t *page = new_page("compare", &c);
    int rc = c.bad ? gs_report_error(err, errlen, GS_ENOMEM, "out of memory") : 0;
    for (int i = 0; i < n && !rc; i++)
        rc = run_json(traces[i], labels ? labels[i] : NULL, page, false, NULL, &c);
    char title[64];
    snprintf(title, sizeof title, "gpusim compare: %d runs", n);
    return finish(out, title, page, rc, &c);
}
