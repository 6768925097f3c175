/* gpusim get pods|nodes (reports/get.h): the pods and nodes at T from the trace's history, in
 * kubectl's columns. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/quantity.h"
#include "reports/get.h"
#include "reports/get_internal.h"
#include "reports/open.h"
#include "sim/scenario/yaml.h"

/* apimachinery pkg/util/duration HumanDuration, on whole seconds of simulated time. */
void gs_get_human_duration(int64_t us, char *buf, size_t n)
{
    int64_t s = us / 1000000;
    if (s < -1) {
        snprintf(buf, n, "<invalid>");
        return;
    }
    if (s < 0)
        s = 0;
    if (s < 60 * 2) {
        snprintf(buf, n, "%" PRId64 "s", s);
        return;
    }
    int64_t m = s / 60;
    if (m < 10) {
        if (s % 60 == 0)
            snprintf(buf, n, "%" PRId64 "m", m);
        else
            snprintf(buf, n, "%" PRId64 "m%" PRId64 "s", m, s % 60);
        return;
    }
    if (m < 60 * 3) {
        snprintf(buf, n, "%" PRId64 "m", m);
        return;
    }
    int64_t h = s / 3600;
    if (h < 8) {
        if (m % 60 == 0)
            snprintf(buf, n, "%" PRId64 "h", h);
        else
            snprintf(buf, n, "%" PRId64 "h%" PRId64 "m", h, m % 60);
    } else if (h < 48) {
        snprintf(buf, n, "%" PRId64 "h", h);
    } else if (h < 24 * 8) {
        if (h % 24 == 0)
            snprintf(buf, n, "%" PRId64 "d", h / 24);
        else
            snprintf(buf, n, "%" PRId64 "d%" PRId64 "h", h / 24, h % 24);
    } else if (h < 24 * 365 * 2) {
        snprintf(buf, n, "%" PRId64 "d", h / 24);
    } else if (h < 24 * 365 * 8) {
        int64_t dy = (h / 24) % 365;
        if (dy == 0)
            snprintf(buf, n, "%" PRId64 "y", h / 24 / 365);
        else
            snprintf(buf, n, "%" PRId64 "y%" PRId64 "d", h / 24 / 365, dy);
    } else {
        snprintf(buf, n, "%" PRId64 "y", h / 24 / 365);
    }
}

/* ------------------------------------------------------------------ the view */

void gs_get_view_free(struct gs_get_view *v)
{
    gs_free(v->pods);
    gs_free(v->nodes);
    gs_hist_state_free(&v->st);
    gs_history_free(&v->h);
    if (v->db)
        sqlite3_close(v->db);
    memset(v, 0, sizeof *v);
}

static bool is(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

/* "Preempted by pod default/<p> on node <n>": the preemptor's name and node into p and n. */
static bool parse_preempted(const char *msg, char *p, size_t pn, char *n, size_t nn)
{
    const char *a = msg ? strstr(msg, "by pod ") : NULL;
    const char *b = a ? strstr(a, " on node ") : NULL;
    if (!a || !b)
        return false;
    a += 7;
    const char *slash = memchr(a, '/', (size_t)(b - a));
    if (slash)
        a = slash + 1;
    snprintf(p, pn, "%.*s", (int)(b - a), a);
    snprintf(n, nn, "%s", b + 9);
    return true;
}

static int find_node(const struct gs_history *h, const char *name)
{
    for (int i = 0; i < h->nnodes; i++)
        if (h->nodes[i].name && strcmp(h->nodes[i].name, name) == 0)
            return i;
    return -1;
}

/* The newest pod named `name` created at or before t, -1. */
static int newest_pod(const struct gs_history *h, const char *name, int64_t t)
{
    for (int i = h->npods - 1; i >= 0; i--)
        if (h->pods[i].name && strcmp(h->pods[i].name, name) == 0 && h->pods[i].created_us >= 0 &&
            h->pods[i].created_us <= t)
            return i;
    return -1;
}

int gs_get_view_open(const char *trace, int64_t at_us, struct gs_get_view *v, char *errbuf, int errlen)
{
    memset(v, 0, sizeof *v);
    int rc = gs_report_open(trace, &v->db, errbuf, errlen);
    if (rc)
        return rc;
    char e2[512] = "";
    if ((rc = gs_history_load(v->db, &v->h, e2, sizeof e2)) != 0)
        return gs_report_error(errbuf, errlen, rc, "trace '%s': %s", trace, e2);
    if ((rc = gs_report_check_time(v->db, trace, "--at", at_us, errbuf, errlen)) != 0)
        return rc;
    const struct gs_history *h = &v->h;
    v->at = at_us >= 0 ? at_us : h->end_us;
    v->upto = gs_history_upto(h, v->at);
    if ((rc = gs_hist_state_init(h, &v->st)) != 0)
        return gs_report_error(errbuf, errlen, rc, "out of memory");
    gs_hist_state_advance(h, &v->st, v->upto);
    v->pods = gs_calloc((size_t)h->npods + 1, sizeof *v->pods);
    v->nodes = gs_calloc((size_t)h->nnodes + 1, sizeof *v->nodes);
    if (!v->pods || !v->nodes)
        return gs_report_error(errbuf, errlen, GS_ENOMEM, "out of memory");
    for (int i = 0; i < h->npods; i++) {
        struct gs_get_pod *p = &v->pods[i];
        p->exists = h->pods[i].created_us >= 0 && h->pods[i].created_us <= v->at;
        p->node = p->nominated = -1;
        p->bound_at = p->started_at = p->ended_at = -1;
    }
    for (int k = 0; k < v->upto; k++) {
        const struct gs_hist_event *e = &h->events[k];
        if (e->pod < 0) {
            if (e->node < 0)
                continue; /* an object row */
            struct gs_get_node *n = &v->nodes[e->node];
            if (is(e->reason, "Joined")) {
                n->joined = true;
                n->joined_at = e->t_us;
                n->kernel = e->message;
            } else if (is(e->reason, "Deleted")) {
                n->deleted = true;
            } else if (is(e->reason, "Cordon")) {
                n->cordoned = is(e->message, "true");
            } else if (is(e->reason, "Reboot")) {
                n->rebooting = true;
            } else if (is(e->reason, "Kernel")) {
                n->rebooting = false;
                n->kernel = e->message;
            }
            continue;
        }
        struct gs_get_pod *p = &v->pods[e->pod];
        const char *r = e->reason;
        if (is(r, "Scheduled")) {
            p->bound = true;
            p->bound_at = e->t_us;
            p->node = e->node;
            p->nominated = -1;
            p->reserved = false;
        } else if (is(r, "WaitingOnPermit")) {
            p->reserved = true;
            p->node = e->node;
        } else if (is(r, "FailedScheduling")) {
            p->message = e->message;
            if (p->reserved) {
                p->reserved = false;
                p->node = -1;
            }
        } else if (is(r, "Started")) {
            p->started = true;
            p->started_at = e->t_us;
        } else if (is(r, "Killing") || is(r, "Preempted")) {
            p->terminating = true;
            if (is(r, "Preempted")) {
                char pn[256], nn[256];
                if (parse_preempted(e->message, pn, sizeof pn, nn, sizeof nn)) {
                    int q = newest_pod(h, pn, e->t_us);
                    if (q >= 0 && !v->pods[q].bound)
                        v->pods[q].nominated = find_node(h, nn);
                }
            }
        } else if (is(r, "Completed")) {
            p->succeeded = true;
            p->ended_at = e->t_us;
        } else if (is(r, "UnexpectedAdmissionError")) {
            p->failed = true;
            p->fail_reason = r;
            p->ended_at = e->t_us;
        } else if (is(r, "Rejected") || is(r, "Evicted") || is(r, "Deleted")) {
            p->exists = false; /* the object is gone (or never was) */
            if (p->ended_at < 0)
                p->ended_at = e->t_us;
        }
    }
    /* Pods whose row says they were rejected have no Rejected event in a trace without one. */
    for (int i = 0; i < h->npods; i++)
        if (is(h->pods[i].phase, "Rejected"))
            v->pods[i].exists = false;
    char ver[32] = "";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(v->db, "SELECT value FROM run WHERE key = 'kubernetesVersion'", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            snprintf(ver, sizeof ver, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    snprintf(v->version, sizeof v->version, ver[0] ? "v%s" : "<unknown>", ver);
    return 0;
}

int gs_get_find_pod(const struct gs_get_view *v, const char *trace, const char *name, char *errbuf, int errlen)
{
    const struct gs_history *h = &v->h;
    int i = newest_pod(h, name, v->at);
    if (i >= 0)
        return i;
    char t[64];
    gs_duration_format(v->at, t, sizeof t);
    for (int k = 0; k < h->npods; k++)
        if (h->pods[k].name && strcmp(h->pods[k].name, name) == 0) {
            char c[64];
            gs_duration_format(h->pods[k].created_us, c, sizeof c);
            gs_report_error(errbuf, errlen, GS_EINVAL, "pod '%s' did not exist yet at %s: it was created at %s", name,
                            t, c);
            return -1;
        }
    /* Nearest names: the edit distance the scenario loader's "did you mean" uses. */
    const char *best[3] = {0};
    int bd[3] = {0}, nb = 0;
    int limit = (int)strlen(name) / 3 < 2 ? 2 : (int)strlen(name) / 3;
    for (int k = 0; k < h->npods; k++) {
        const char *c = h->pods[k].name;
        if (!c)
            continue;
        bool dup = false;
        for (int j = 0; j < nb; j++)
            dup = dup || strcmp(best[j], c) == 0;
        if (dup)
            continue;
        int d = gs_y_edit_distance(name, c);
        if (strncmp(c, name, strlen(name)) == 0 && d > limit)
            d = limit;
        if (d > limit)
            continue;
        int j = nb < 3 ? nb++ : 2;
        if (j == 2 && nb == 3 && best[2] && d >= bd[2])
            continue;
        best[j] = c;
        bd[j] = d;
        for (; j > 0 && (bd[j] < bd[j - 1] || (bd[j] == bd[j - 1] && strcmp(best[j], best[j - 1]) < 0)); j--) {
            const char *tc = best[j];
            int td = bd[j];
            best[j] = best[j - 1];
            bd[j] = bd[j - 1];
            best[j - 1] = tc;
            bd[j - 1] = td;
        }
    }
    char near[512] = "";
    size_t k = 0;
    for (int j = 0; j < nb && k < sizeof near; j++)
        k += (size_t)snprintf(near + k, sizeof near - k, "%s'%s'", j ? ", " : "", best[j]);
    if (nb)
        gs_report_error(errbuf, errlen, GS_EINVAL, "trace '%s' has no pod named '%s' (did you mean %s?)", trace, name,
                        near);
    else
        gs_report_error(errbuf, errlen, GS_EINVAL, "trace '%s' has no pod named '%s'", trace, name);
    return -1;
}

const char *gs_get_pod_status(const struct gs_get_view *v, int i)
{
    const struct gs_get_pod *p = &v->pods[i];
    if (p->terminating && !p->succeeded && !p->failed)
        return "Terminating";
    if (p->succeeded)
        return "Completed";
    if (p->failed)
        return p->fail_reason ? p->fail_reason : "Error";
    if (p->started)
        return "Running";
    if (p->bound)
        return "ContainerCreating";
    return "Pending";
}

void gs_get_pod_gpu_ids(const struct gs_get_view *v, int i, char *buf, size_t n)
{
    uint64_t mask = v->st.pod_mask ? v->st.pod_mask[i] : 0;
    int milli = v->st.pod_milli ? v->st.pod_milli[i] : 1000;
    size_t k = 0;
    buf[0] = '\0';
    for (int g = 0; g < 64 && k < n; g++)
        if (mask & (UINT64_C(1) << g)) {
            if (milli > 0 && milli < 1000)
                k += (size_t)snprintf(buf + k, n - k, "%s%d:%dm", k ? "," : "", g, milli);
            else
                k += (size_t)snprintf(buf + k, n - k, "%s%d", k ? "," : "", g);
        }
    if (!buf[0])
        snprintf(buf, n, "-");
}

/* ------------------------------------------------------------------ tables */

/* A table printed with kubectl's layout: columns padded to the widest cell, three spaces apart
 * (kubectl's printers write through a tabwriter with padding 3), row 0 the header. */
struct table {
    int ncols, n, cap;
    char **cells;
};

static int cell(struct table *t, const char *s)
{
    if (GS_GROW(t->cells, t->cap, t->n + 1))
        return GS_ENOMEM;
    char *c = gs_strdup(s ? s : "");
    if (!c)
        return GS_ENOMEM;
    t->cells[t->n++] = c;
    return 0;
}

static void table_print(const struct table *t, FILE *out)
{
    int w[32] = {0};
    for (int i = 0; i < t->n; i++) {
        int l = (int)strlen(t->cells[i]);
        if (l > w[i % t->ncols])
            w[i % t->ncols] = l;
    }
    for (int i = 0; i < t->n; i++) {
        int c = i % t->ncols;
        if (c == t->ncols - 1)
            fprintf(out, "%s\n", t->cells[i]);
        else
            fprintf(out, "%-*s   ", w[c], t->cells[i]);
    }
}

static void table_free(struct table *t)
{
    for (int i = 0; i < t->n; i++)
        gs_free(t->cells[i]);
    gs_free(t->cells);
}

/* Pods in kubectl's order: by name (the API server lists by key), then creation. */
static const struct gs_history *sort_h;
static int cmp_pod(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(sort_h->pods[x].name ? sort_h->pods[x].name : "", sort_h->pods[y].name ? sort_h->pods[y].name : "");
    return c ? c : x - y;
}

static int cmp_node(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int c = strcmp(sort_h->nodes[x].name ? sort_h->nodes[x].name : "", sort_h->nodes[y].name ? sort_h->nodes[y].name : "");
    return c ? c : x - y;
}

static int get_pods(const struct gs_get_view *v, bool wide, struct table *t)
{
    static const char *const head[] = {"NAME", "READY", "STATUS", "RESTARTS", "AGE",
                                       "IP", "NODE", "NOMINATED NODE", "READINESS GATES", "GPUS", "GPU-IDS"};
    const struct gs_history *h = &v->h;
    t->ncols = wide ? 11 : 5;
    int rc = 0;
    for (int c = 0; c < t->ncols && !rc; c++)
        rc = cell(t, head[c]);
    int *idx = gs_calloc((size_t)h->npods + 1, sizeof *idx);
    if (!idx)
        return GS_ENOMEM;
    int n = 0;
    for (int i = 0; i < h->npods; i++)
        if (v->pods[i].exists)
            idx[n++] = i;
    sort_h = h;
    qsort(idx, (size_t)n, sizeof *idx, cmp_pod);
    for (int k = 0; k < n && !rc; k++) {
        int i = idx[k];
        const struct gs_get_pod *p = &v->pods[i];
        char age[32], gpus[32], ids[256];
        gs_get_human_duration(v->at - h->pods[i].created_us, age, sizeof age);
        bool ready = p->started && !p->succeeded && !p->failed;
        rc = cell(t, h->pods[i].name);
        rc = rc ? rc : cell(t, ready ? "1/1" : "0/1");
        rc = rc ? rc : cell(t, gs_get_pod_status(v, i));
        rc = rc ? rc : cell(t, "0");
        rc = rc ? rc : cell(t, age);
        if (wide) {
            int node = p->bound && p->node >= 0 ? p->node : -1;
            snprintf(gpus, sizeof gpus, "%" PRId64, h->pods[i].gpu > 0 ? h->pods[i].gpu : 0);
            gs_get_pod_gpu_ids(v, i, ids, sizeof ids);
            rc = rc ? rc : cell(t, "<none>");
            rc = rc ? rc : cell(t, node >= 0 ? h->nodes[node].name : "<none>");
            rc = rc ? rc : cell(t, p->nominated >= 0 && !p->bound ? h->nodes[p->nominated].name : "<none>");
            rc = rc ? rc : cell(t, "<none>");
            rc = rc ? rc : cell(t, gpus);
            rc = rc ? rc : cell(t, node >= 0 && (p->started || p->bound) && !p->succeeded && !p->failed ? ids : "-");
        }
    }
    gs_free(idx);
    return rc;
}

/* ROLES: the node-role.kubernetes.io/<role> labels (and kubernetes.io/role) it has at T, as
 * kubectl's findNodeRoles; "<none>". */
static void node_roles(const struct gs_get_view *v, int node, char *buf, size_t n)
{
    struct role {
        const char *name;
        bool on;
    } roles[16];
    int nr = 0;
    for (int k = 0; k < v->upto; k++) {
        const struct gs_hist_event *e = &v->h.events[k];
        if (e->pod >= 0 || e->node != node || !is(e->reason, "Label") || !e->subject)
            continue;
        const char *name = NULL;
        if (strncmp(e->subject, "node-role.kubernetes.io/", 24) == 0 && e->subject[24])
            name = e->subject + 24;
        else if (strcmp(e->subject, "kubernetes.io/role") == 0 && e->message && e->message[0])
            name = e->message;
        if (!name)
            continue;
        int j = 0;
        while (j < nr && strcmp(roles[j].name, name) != 0)
            j++;
        if (j == nr && nr < 16)
            roles[nr++] = (struct role){.name = name};
        if (j < nr)
            roles[j].on = e->message != NULL;
    }
    size_t k = 0;
    buf[0] = '\0';
    for (int j = 0; j < nr && k < n; j++)
        if (roles[j].on)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? "," : "", roles[j].name);
    if (!buf[0])
        snprintf(buf, n, "<none>");
}

static int get_nodes(const struct gs_get_view *v, bool wide, struct table *t)
{
    static const char *const head[] = {"NAME",      "STATUS",         "ROLES",          "AGE",
                                       "VERSION",   "INTERNAL-IP",    "EXTERNAL-IP",    "OS-IMAGE",
                                       "KERNEL-VERSION", "CONTAINER-RUNTIME", "GPU",     "GPUS"};
    const struct gs_history *h = &v->h;
    t->ncols = wide ? 12 : 5;
    int rc = 0;
    for (int c = 0; c < t->ncols && !rc; c++)
        rc = cell(t, head[c]);
    int *idx = gs_calloc((size_t)h->nnodes + 1, sizeof *idx);
    if (!idx)
        return GS_ENOMEM;
    int n = 0;
    for (int i = 0; i < h->nnodes; i++)
        if (v->nodes[i].joined && !v->nodes[i].deleted)
            idx[n++] = i;
    sort_h = h;
    qsort(idx, (size_t)n, sizeof *idx, cmp_node);
    for (int k = 0; k < n && !rc; k++) {
        int i = idx[k];
        const struct gs_get_node *nd = &v->nodes[i];
        char status[64], age[32], roles[256], gpus[64];
        snprintf(status, sizeof status, "%s%s", nd->rebooting ? "NotReady" : "Ready", nd->cordoned ? ",SchedulingDisabled" : "");
        gs_get_human_duration(v->at - nd->joined_at, age, sizeof age);
        node_roles(v, i, roles, sizeof roles);
        rc = cell(t, h->nodes[i].name);
        rc = rc ? rc : cell(t, status);
        rc = rc ? rc : cell(t, roles);
        rc = rc ? rc : cell(t, age);
        rc = rc ? rc : cell(t, v->version);
        if (wide) {
            snprintf(gpus, sizeof gpus, "%" PRId64 "/%" PRId64, gs_hist_node_allocated(h, &v->st, i),
                     v->st.node_allocatable[i]);
            rc = rc ? rc : cell(t, "<none>");
            rc = rc ? rc : cell(t, "<none>");
            rc = rc ? rc : cell(t, "<unknown>");
            rc = rc ? rc : cell(t, nd->kernel && nd->kernel[0] ? nd->kernel : "<unknown>");
            rc = rc ? rc : cell(t, "<unknown>");
            rc = rc ? rc : cell(t, h->nodes[i].product ? h->nodes[i].product : "<none>");
            rc = rc ? rc : cell(t, h->nodes[i].gpus > 0 ? gpus : "-");
        }
    }
    gs_free(idx);
    return rc;
}

int gs_report_get(const char *trace, enum gs_get_kind kind, int64_t at_us, bool wide, FILE *out, char *errbuf,
                  int errlen)
{
    struct gs_get_view v;
    int rc = gs_get_view_open(trace, at_us, &v, errbuf, errlen);
    struct table t = {0};
    if (rc == 0)
        rc = kind == GS_GET_PODS ? get_pods(&v, wide, &t) : get_nodes(&v, wide, &t);
    if (rc == GS_ENOMEM)
        gs_report_error(errbuf, errlen, rc, "out of memory");
    if (rc == 0) {
        if (t.n <= t.ncols)
            fprintf(out, kind == GS_GET_PODS ? "No resources found in default namespace.\n" : "No resources found\n");
        else
            table_print(&t, out);
        if (fflush(out) != 0 || ferror(out))
            rc = gs_report_error(errbuf, errlen, GS_EIO, "cannot write the table");
    }
    table_free(&t);
    gs_get_view_free(&v);
    return rc;
}
