/* gpusim export --perfetto: a trace as Chrome trace event JSON (reports/export.h).
 *
 * The format is the Trace Event Format (catapult, docs/trace-event-format.md, "JSON Object
 * Format"): {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}; ts and dur in
 * microseconds; "X" complete events need dur; "C" counter events carry their series in args;
 * "M" metadata events name processes and threads (process_name, thread_name, with args.name;
 * process_sort_index, thread_sort_index with args.sort_index; process_labels with
 * args.labels); "i" instant events take a scope "s" (g, p or t). Perfetto's JSON importer and
 * chrome://tracing both read it; both expect the complete events of one thread to nest, so
 * slices that would overlap on a thread (pods sharing a GPU, operands running at once) are put
 * on threads of their own. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "reports/export.h"
#include "reports/open.h"

/* A slice before it has a thread: on node `node`, key `key` (a GPU index; PODS for the
 * pods-without-slots thread; OPERAND + i for operand name i), from t0 to t1. pod: the pod's
 * index; -2 - index while it is only reserved at Permit; -1 for an operand step. */
enum { KEY_PODS = 1 << 20, KEY_OPERAND = 1 << 21, KEY_EVENTS = 1 << 22 };
struct slice {
    int node, key, lane, pod;
    int64_t t0, t1;
    const char *name; /* pod name or operand status (history arena) */
};

struct thread {
    int node, key, lane, tid;
};

struct px {
    const struct gs_history *h;
    FILE *out;
    bool first;
    int rc;
    struct slice *sl;
    int nsl, capsl;
    const char **operands; /* operand DaemonSet names seen, by index */
    int nop, capop;
};

static void emit(struct px *p, json_t *ev)
{
    if (!ev) {
        p->rc = GS_ENOMEM;
        return;
    }
    char *s = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    if (!s) {
        p->rc = GS_ENOMEM;
        return;
    }
    fputs(p->first ? "\n" : ",\n", p->out);
    fputs(s, p->out);
    free(s); /* jansson's allocator */
    p->first = false;
}

static json_t *meta(const char *what, int pid, int tid, const char *key, json_t *value)
{
    return json_pack("{s:s,s:s,s:I,s:I,s:I,s:{s:o}}", "name", what, "ph", "M", "ts", (json_int_t)0, "pid",
                     (json_int_t)pid, "tid", (json_int_t)tid, "args", key, value);
}

static int add_slice(struct px *p, int node, int key, int pod, int64_t t0, int64_t t1, const char *name)
{
    if (t1 <= t0) /* a zero-length hold (a pod's slots named at the instant it binds) */
        return 0;
    if (GS_GROW(p->sl, p->capsl, p->nsl + 1) != 0)
        return GS_ENOMEM;
    p->sl[p->nsl++] = (struct slice){.node = node, .key = key, .pod = pod, .t0 = t0, .t1 = t1, .name = name};
    return 0;
}

/* Close pod q's open slices (node n, mask m, reserved at Permit or bound, since t0) at t. */
static int close_pod(struct px *p, int q, int n, uint64_t m, bool reserved, int64_t t0, int64_t t)
{
    if (n < 0)
        return 0;
    const char *name = p->h->pods[q].name;
    if (m == 0)
        return add_slice(p, n, KEY_PODS, reserved ? -2 - q : q, t0, t, name);
    for (int g = 0; g < GS_HIST_MAX_GPUS; g++)
        if (m >> g & 1) {
            int rc = add_slice(p, n, g, reserved ? -2 - q : q, t0, t, name);
            if (rc)
                return rc;
        }
    return 0;
}

static int cmp_slice(const void *a, const void *b)
{
    const struct slice *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    if (x->t1 != y->t1)
        return x->t1 < y->t1 ? -1 : 1;
    return x->pod < y->pod ? -1 : x->pod > y->pod;
}

static int cmp_lane(const void *a, const void *b)
{
    const struct slice *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->lane != y->lane)
        return x->lane < y->lane ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The thread id of lane `lane` of key `key` on a node: GPU g's lanes from g * 256 + 1, then
 * the pods lanes, the operands, the node events thread; the sort index is the same number. */
static json_int_t tid_of(int key, int lane)
{
    if (key < KEY_PODS)
        return (json_int_t)key * 256 + lane + 1;
    if (key == KEY_PODS)
        return (json_int_t)GS_HIST_MAX_GPUS * 256 + lane + 1;
    if (key == KEY_EVENTS)
        return (json_int_t)GS_HIST_MAX_GPUS * 256 + 3001;
    return (json_int_t)GS_HIST_MAX_GPUS * 256 + 2001 + (key - KEY_OPERAND);
}

static const char *thread_label(const struct px *p, int key, int lane, char *buf, size_t n)
{
    if (key == KEY_PODS)
        snprintf(buf, n, lane ? "pods (GPUs not named) %d" : "pods (GPUs not named)", lane + 1);
    else if (key == KEY_EVENTS)
        snprintf(buf, n, "node events");
    else if (key >= KEY_OPERAND)
        snprintf(buf, n, "operand %s", p->operands[key - KEY_OPERAND]);
    else if (lane)
        snprintf(buf, n, "GPU %d share %d", key, lane + 1);
    else
        snprintf(buf, n, "GPU %d", key);
    return buf;
}

/* The counters of the sample table on pid 1. */
static int sample_counters(struct px *p, sqlite3 *db)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
                           "SELECT t_us, pool, gpus_allocated, gpus_allocatable, pods_pending, pods_running "
                           "FROM sample ORDER BY t_us, pool = '' DESC, pool, rowid",
                           -1, &s, NULL) != SQLITE_OK)
        return GS_ESQL;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && p->rc == 0) {
        json_int_t t = sqlite3_column_int64(s, 0);
        const char *pool = (const char *)sqlite3_column_text(s, 1);
        char name[160];
        snprintf(name, sizeof name, "GPUs%s%s", pool && *pool ? " " : "", pool ? pool : "");
        emit(p, json_pack("{s:s,s:s,s:I,s:I,s:I,s:{s:I,s:I}}", "name", name, "ph", "C", "ts", t, "pid",
                          (json_int_t)1, "tid", (json_int_t)0, "args", "allocated",
                          (json_int_t)sqlite3_column_int64(s, 2), "allocatable",
                          (json_int_t)sqlite3_column_int64(s, 3)));
        if (!pool || !*pool)
            emit(p, json_pack("{s:s,s:s,s:I,s:I,s:I,s:{s:I,s:I}}", "name", "pods", "ph", "C", "ts", t, "pid",
                              (json_int_t)1, "tid", (json_int_t)0, "args", "pending",
                              (json_int_t)sqlite3_column_int64(s, 4), "running",
                              (json_int_t)sqlite3_column_int64(s, 5)));
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : GS_ESQL;
}

static const char *run_key(sqlite3 *db, const char *key, char *buf, size_t n)
{
    sqlite3_stmt *s;
    buf[0] = '\0';
    if (sqlite3_prepare_v2(db, "SELECT value FROM run WHERE key = ?", -1, &s, NULL) != SQLITE_OK)
        return buf;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return buf;
}

/* Node rows shown as instant events on the node's "node events" thread. */
static bool node_instant(const char *kind)
{
    static const char *const kinds[] = {"Joined", "Deleted", "Reboot", "Kernel", "Cordon", "Schedulable",
                                        "Mig",    "MigManager", "DevicePlugin", NULL};
    for (int i = 0; kinds[i]; i++)
        if (strcmp(kind, kinds[i]) == 0)
            return true;
    return false;
}

static int find_operand(struct px *p, const char *name)
{
    for (int i = 0; i < p->nop; i++)
        if (strcmp(p->operands[i], name) == 0)
            return i;
    if (GS_GROW(p->operands, p->capop, p->nop + 1) != 0)
        return -1;
    p->operands[p->nop] = name;
    return p->nop++;
}

int gs_export_perfetto(const char *trace_path, FILE *out, char *errbuf, int errlen)
{
    if (!trace_path || !out)
        return gs_report_error(errbuf, errlen, GS_EINVAL, "gs_export_perfetto: invalid argument");
    sqlite3 *db;
    struct gs_history h;
    int rc = gs_export_open(trace_path, &db, &h, errbuf, errlen);
    if (rc != 0)
        return rc;
    struct px p = {.h = &h, .out = out, .first = true};
    struct gs_hist_state st;
    bool st_ok = false;
    int *pn = gs_calloc((size_t)h.npods + 1, sizeof *pn);         /* per pod: node of its open slices */
    uint64_t *pm = gs_calloc((size_t)h.npods + 1, sizeof *pm);    /* ... their GPU slots */
    int64_t *pt = gs_calloc((size_t)h.npods + 1, sizeof *pt);     /* ... since when */
    uint8_t *pr = gs_calloc((size_t)h.npods + 1, sizeof *pr);     /* ... reserved at Permit */
    int64_t *nalloc = gs_calloc((size_t)h.nnodes + 1, sizeof *nalloc); /* per node: GPUs allocated */
    /* per (node, operand): the open step's status and start */
    struct step { int node, op; const char *status; int64_t t0; } *steps = NULL;
    int nsteps = 0, capsteps = 0;
    struct thread *th = NULL;
    int nth = 0, capth = 0;
    if (!pn || !pm || !pt || !pr || !nalloc || gs_hist_state_init(&h, &st) != 0) {
        rc = GS_ENOMEM;
        goto done;
    }
    st_ok = true;
    for (int q = 0; q < h.npods; q++)
        pn[q] = -1;
    for (int n = 0; n < h.nnodes; n++)
        nalloc[n] = -1;

    char scenario[256], seed[64];
    run_key(db, "scenario", scenario, sizeof scenario);
    run_key(db, "seed", seed, sizeof seed);
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":", out);
    json_t *other = json_pack("{s:s,s:s,s:s}", "source", "gpusim", "scenario", scenario, "seed", seed);
    char *os = other ? json_dumps(other, JSON_COMPACT) : NULL;
    json_decref(other);
    if (!os) {
        rc = GS_ENOMEM;
        goto done;
    }
    fputs(os, out);
    free(os);
    fputs(",\"traceEvents\":[", out);

    /* the cluster process and its counters */
    emit(&p, meta("process_name", 1, 0, "name", json_string("cluster")));
    emit(&p, meta("process_sort_index", 1, 0, "sort_index", json_integer(0)));
    emit(&p, meta("thread_name", 1, 1, "name", json_string("API objects")));
    if (p.rc == 0 && (rc = sample_counters(&p, db)) != 0)
        goto done;

    /* walk the events: pods' holdings, operand steps, node instants, per-node GPU counters */
    for (int k = 0; k < h.nevents && p.rc == 0; k++) {
        const struct gs_hist_event *e = &h.events[k];
        int before = e->pod >= 0 ? st.pod_node[e->pod] : -1;
        gs_hist_state_advance(&h, &st, k + 1);
        /* a pod's holding changes with its own rows; kube-scheduler's restart (an object row)
         * drops every reservation at Permit at once */
        bool every_pod = e->effect != GS_HIST_NONE && e->pod < 0 && e->node < 0;
        for (int q = every_pod ? 0 : e->pod; q >= 0 && q < h.npods && (every_pod || q == e->pod); q++) {
            if (e->effect == GS_HIST_NONE)
                break;
            bool res = st.pod_node[q] >= 0 && st.pod_reserved[q];
            if (st.pod_node[q] != pn[q] || st.pod_mask[q] != pm[q] || res != (pr[q] != 0)) {
                if ((p.rc = close_pod(&p, q, pn[q], pm[q], pr[q], pt[q], e->t_us)) != 0)
                    break;
                pn[q] = st.pod_node[q];
                pm[q] = st.pod_mask[q];
                pr[q] = res;
                pt[q] = e->t_us;
            }
        }
        if (p.rc)
            break;
        if (e->pod < 0 && e->node < 0 && e->reason && e->subject) {
            /* an API object's row (Job, PodGroup, Workload, NodeGroup, the scheduler's restart):
             * an instant on the cluster's "API objects" thread */
            char name[512];
            snprintf(name, sizeof name, "%s %s", e->subject, e->reason);
            json_t *ev = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:s}", "name", name, "cat", "object", "ph", "i", "ts",
                                   (json_int_t)e->t_us, "pid", (json_int_t)1, "tid", (json_int_t)1, "s", "t");
            if (ev && e->message)
                json_object_set_new(ev, "args", json_pack("{s:s}", "message", e->message));
            emit(&p, ev);
        }
        if (e->pod < 0 && e->node >= 0 && e->reason) {
            json_int_t pid = e->node + 2;
            if (strcmp(e->reason, "Operand") == 0 && e->subject) {
                int op = find_operand(&p, e->subject);
                if (op < 0) {
                    p.rc = GS_ENOMEM;
                    break;
                }
                int i = 0;
                while (i < nsteps && !(steps[i].node == e->node && steps[i].op == op))
                    i++;
                if (i == nsteps) {
                    if (GS_GROW(steps, capsteps, nsteps + 1) != 0) {
                        p.rc = GS_ENOMEM;
                        break;
                    }
                    steps[nsteps++] = (struct step){.node = e->node, .op = op, .status = NULL};
                }
                if (steps[i].status &&
                    (p.rc = add_slice(&p, e->node, KEY_OPERAND + op, -1, steps[i].t0, e->t_us, steps[i].status)) != 0)
                    break;
                steps[i].status = e->message; /* NULL: the operand pod is gone */
                steps[i].t0 = e->t_us;
            } else if (strcmp(e->reason, "Xid") == 0 && e->subject && strncmp(e->subject, "GPU ", 4) == 0) {
                int g = atoi(e->subject + 4);
                emit(&p, json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:s}", "name", e->message ? e->message : "Xid", "cat",
                                   "xid", "ph", "i", "ts", (json_int_t)e->t_us, "pid", pid, "tid",
                                   tid_of(g < GS_HIST_MAX_GPUS ? g : 0, 0), "s", "t"));
            } else if (node_instant(e->reason)) {
                char name[256];
                snprintf(name, sizeof name, "%s%s%s", e->reason, e->message ? " " : "", e->message ? e->message : "");
                emit(&p, json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:s}", "name", name, "cat", "node", "ph", "i", "ts",
                                   (json_int_t)e->t_us, "pid", pid, "tid", tid_of(KEY_EVENTS, 0), "s", "t"));
            }
        }
        /* the GPUs counter of the nodes the event may have changed */
        for (int n = 0; n < h.nnodes && e->effect != GS_HIST_NONE; n++) {
            if (!(every_pod || n == e->node || n == before || (e->pod >= 0 && n == st.pod_node[e->pod])))
                continue;
            int64_t a = gs_hist_node_allocated(&h, &st, n);
            if (a != nalloc[n] && h.nodes[n].gpus > 0) {
                nalloc[n] = a;
                emit(&p, json_pack("{s:s,s:s,s:I,s:I,s:I,s:{s:I,s:I}}", "name", "GPUs", "ph", "C", "ts",
                                   (json_int_t)e->t_us, "pid", (json_int_t)(n + 2), "tid", (json_int_t)0, "args",
                                   "allocated", (json_int_t)a, "allocatable", (json_int_t)st.node_allocatable[n]));
            }
        }
    }
    int64_t end = h.end_us;
    for (int q = 0; q < h.npods && p.rc == 0; q++)
        p.rc = close_pod(&p, q, pn[q], pm[q], pr[q], pt[q], end > pt[q] ? end : pt[q]);
    for (int i = 0; i < nsteps && p.rc == 0; i++)
        if (steps[i].status)
            p.rc = add_slice(&p, steps[i].node, KEY_OPERAND + steps[i].op, -1, steps[i].t0, end, steps[i].status);
    if (p.rc) {
        rc = p.rc;
        goto done;
    }

    /* lanes: on each (node, key), a slice goes on the first lane free at its start */
    qsort(p.sl, (size_t)p.nsl, sizeof *p.sl, cmp_slice);
    {
        int64_t *lane_end = NULL;
        int nl = 0, capl = 0;
        for (int i = 0; i < p.nsl; i++) {
            if (i == 0 || p.sl[i].node != p.sl[i - 1].node || p.sl[i].key != p.sl[i - 1].key)
                nl = 0;
            int l = 0;
            while (l < nl && lane_end[l] > p.sl[i].t0)
                l++;
            if (l == nl) {
                if (GS_GROW(lane_end, capl, nl + 1) != 0) {
                    gs_free(lane_end);
                    rc = GS_ENOMEM;
                    goto done;
                }
                nl++;
            }
            lane_end[l] = p.sl[i].t1;
            p.sl[i].lane = l;
        }
        gs_free(lane_end);
    }
    qsort(p.sl, (size_t)p.nsl, sizeof *p.sl, cmp_lane);

    /* threads: every GPU of a node (lane 0), then its extra lanes, pods, operands, events */
    for (int n = 0; n < h.nnodes; n++) {
        int gpus = h.nodes[n].gpus > GS_HIST_MAX_GPUS ? GS_HIST_MAX_GPUS : h.nodes[n].gpus;
        for (int g = 0; g < gpus; g++) {
            if (GS_GROW(th, capth, nth + 1) != 0) {
                rc = GS_ENOMEM;
                goto done;
            }
            th[nth++] = (struct thread){.node = n, .key = g, .lane = 0};
        }
    }
    for (int i = 0; i < p.nsl; i++) {
        const struct slice *s = &p.sl[i];
        if (s->key < KEY_PODS && s->lane == 0)
            continue;
        if (i > 0 && p.sl[i - 1].node == s->node && p.sl[i - 1].key == s->key && p.sl[i - 1].lane == s->lane)
            continue;
        if (GS_GROW(th, capth, nth + 1) != 0) {
            rc = GS_ENOMEM;
            goto done;
        }
        th[nth++] = (struct thread){.node = s->node, .key = s->key, .lane = s->lane};
    }
    /* metadata: names and order of the node processes and their threads */
    for (int n = 0; n < h.nnodes && p.rc == 0; n++) {
        json_int_t pid = n + 2;
        char label[256];
        emit(&p, meta("process_name", (int)pid, 0, "name", json_string(h.nodes[n].name)));
        snprintf(label, sizeof label, "pool %s%s%s", h.nodes[n].pool ? h.nodes[n].pool : "",
                 h.nodes[n].product ? ", " : "", h.nodes[n].product ? h.nodes[n].product : "");
        emit(&p, meta("process_labels", (int)pid, 0, "labels", json_string(label)));
        emit(&p, meta("process_sort_index", (int)pid, 0, "sort_index", json_integer(pid)));
        emit(&p, meta("thread_name", (int)pid, (int)tid_of(KEY_EVENTS, 0), "name", json_string("node events")));
        emit(&p, meta("thread_sort_index", (int)pid, (int)tid_of(KEY_EVENTS, 0), "sort_index",
                      json_integer(tid_of(KEY_EVENTS, 0))));
        for (int i = 0; i < nth; i++) {
            if (th[i].node != n)
                continue;
            int key = th[i].key, lane = th[i].lane;
            json_int_t tid = tid_of(key, lane);
            th[i].tid = (int)tid;
            emit(&p, meta("thread_name", (int)pid, (int)tid, "name",
                          json_string(thread_label(&p, key, lane, label, sizeof label))));
            emit(&p, meta("thread_sort_index", (int)pid, (int)tid, "sort_index", json_integer(tid)));
        }
    }
    if (p.rc) {
        rc = p.rc;
        goto done;
    }
    /* the slices, thread by thread in time order */
    for (int i = 0; i < p.nsl && p.rc == 0; i++) {
        const struct slice *s = &p.sl[i];
        json_int_t pid = s->node + 2;
        json_int_t tid = tid_of(s->key, s->lane);
        json_t *ev;
        if (s->pod >= 0 || s->pod <= -2) {
            bool reserved = s->pod <= -2;
            const struct gs_hist_pod *pod = &h.pods[reserved ? -2 - s->pod : s->pod];
            char rname[300];
            snprintf(rname, sizeof rname, "%s%s", pod->name, reserved ? " (reserved at Permit)" : "");
            ev = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:{s:s,s:s?,s:I,s:s?}}", "name", rname, "cat", "pod",
                           "ph", "X", "ts", (json_int_t)s->t0, "dur", (json_int_t)(s->t1 - s->t0), "pid", pid, "tid",
                           tid, "args", "workload", pod->workload ? pod->workload : "", "podGroup", pod->group,
                           "gpuRequest", (json_int_t)pod->gpu, "phase", pod->phase);
        } else {
            ev = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:I}", "name", s->name, "cat", "operand", "ph", "X", "ts",
                           (json_int_t)s->t0, "dur", (json_int_t)(s->t1 - s->t0), "pid", pid, "tid", tid);
        }
        emit(&p, ev);
    }
    rc = p.rc;
    if (rc == 0) {
        fputs("\n]}\n", out);
        if (fflush(out) != 0 || ferror(out))
            rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the Perfetto JSON: %s",
                                 strerror(errno ? errno : EIO));
    }
done:
    if (rc == GS_ENOMEM)
        rc = gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    else if (rc == GS_ESQL)
        rc = gs_report_error(errbuf, errlen, GS_ESQL, "trace '%s': %s", trace_path, sqlite3_errmsg(db));
    if (st_ok)
        gs_hist_state_free(&st);
    gs_free(pn);
    gs_free(pm);
    gs_free(pt);
    gs_free(pr);
    gs_free(nalloc);
    gs_free(steps);
    gs_free(th);
    gs_free(p.sl);
    gs_free(p.operands);
    gs_history_free(&h);
    sqlite3_close(db);
    return rc;
}
