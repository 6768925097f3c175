/* The scenario's expect: checks, evaluated against the live world at their time (or at the end
 * of the run). Each fills expect->pass, ->what (one line naming the check) and ->detail (what
 * was seen, for a FAIL line). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpusim/error.h"
#include "gpusim/quantity.h"
#include "sim/run_state.h"

/* A bounded string builder over a stack buffer. */
struct sb {
    char buf[4096];
    size_t n;
};

static void sbf(struct sb *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbf(struct sb *s, const char *fmt, ...)
{
    if (s->n >= sizeof s->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s->buf + s->n, sizeof s->buf - s->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        s->n += (size_t)k < sizeof s->buf - s->n ? (size_t)k : sizeof s->buf - 1 - s->n;
}

static const char *dur(gs_time t, char *buf, size_t n)
{
    gs_duration_format(t, buf, n);
    return buf;
}

static const char *kind_name(enum gs_expect_kind k)
{
    switch (k) {
    case GS_EX_POD: return "pod";
    case GS_EX_PODS: return "pods";
    case GS_EX_NODE: return "node";
    case GS_EX_OBJECT: return "object";
    case GS_EX_METRIC: return "metric";
    case GS_EX_POD_GROUP: return "podGroup";
    }
    return "?";
}

/* ------------------------------------------------------------------ pods */

static const char *pod_node_name(const struct gs_runner *r, const struct gs_pod *p)
{
    int n = p->node >= 0 ? p->node : p->last_node;
    return n >= 0 ? r->w->nodes[n].name : NULL;
}

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Does pod `p` pass the pods: filter of `e`? */
static bool pod_matches(const struct gs_runner *r, const struct gs_expect *e, const struct gs_pod *p)
{
    if (p->deleted)
        return false;
    if (e->has_phase && p->phase != e->phase)
        return false;
    if (e->workload && (p->workload < 0 || strcmp(r->w->workloads[p->workload].name, e->workload) != 0))
        return false;
    if (e->name_prefix && strncmp(p->name, e->name_prefix, strlen(e->name_prefix)) != 0)
        return false;
    if (e->node && (p->node < 0 || strcmp(r->w->nodes[p->node].name, e->node) != 0))
        return false;
    if (e->message && !str_eq(p->message, e->message))
        return false;
    if (e->message_contains && (!p->message || !strstr(p->message, e->message_contains)))
        return false;
    if (e->reason && !str_eq(p->reason, e->reason))
        return false;
    for (int i = 0; i < e->label_selector.n; i++) {
        const char *v = gs_labels_get(&p->tmpl->labels, e->label_selector.kv[i].key);
        if (!v || strcmp(v, e->label_selector.kv[i].value) != 0)
            return false;
    }
    return true;
}

static bool check_bounds(const struct gs_expect *e, int64_t n, struct sb *d)
{
    bool ok = (!e->has_count || n == e->count) && (!e->has_min || n >= e->min) && (!e->has_max || n <= e->max);
    sbf(d, "%lld matching", (long long)n);
    return ok;
}

static bool eval_pods(struct gs_runner *r, const struct gs_expect *e, struct sb *what, struct sb *d)
{
    sbf(what, " {");
    const char *sep = "";
    if (e->has_phase) { sbf(what, "%sphase: %s", sep, gs_phase_name(e->phase)); sep = ", "; }
    if (e->workload) { sbf(what, "%sworkload: %s", sep, e->workload); sep = ", "; }
    if (e->name_prefix) { sbf(what, "%snamePrefix: %s", sep, e->name_prefix); sep = ", "; }
    if (e->node) { sbf(what, "%snode: %s", sep, e->node); sep = ", "; }
    if (e->message || e->message_contains) { sbf(what, "%smessage", sep); sep = ", "; }
    if (e->reason) { sbf(what, "%sreason: %s", sep, e->reason); sep = ", "; }
    if (e->label_selector.n) { sbf(what, "%slabelSelector", sep); }
    sbf(what, "}");
    if (e->has_count) sbf(what, " count %lld", (long long)e->count);
    if (e->has_min) sbf(what, " min %lld", (long long)e->min);
    if (e->has_max) sbf(what, " max %lld", (long long)e->max);
    int64_t n = 0;
    for (int i = 0; i < r->w->npods; i++)
        n += pod_matches(r, e, &r->w->pods[i]);
    return check_bounds(e, n, d);
}

static bool eval_pod(struct gs_runner *r, const struct gs_expect *e, struct sb *what, struct sb *d)
{
    int pi = gs_world_find_pod(r->w, e->name);
    const struct gs_pod *p = pi >= 0 ? &r->w->pods[pi] : NULL;
    bool ok = true;
    if (e->has_exists) {
        bool exists = p && !p->deleted;
        sbf(what, " exists %s", e->exists ? "true" : "false");
        if (exists != e->exists) {
            sbf(d, "pod %s", exists ? "exists" : "does not exist");
            return false;
        }
        if (!exists)
            return true;
    }
    if (!p) {
        sbf(d, "no pod named %s", e->name);
        return false;
    }
    if (e->has_phase) {
        sbf(what, " phase %s", gs_phase_name(e->phase));
        if (p->deleted) {
            sbf(d, "pod was deleted; ");
            ok = false;
        } else if (p->phase != e->phase) {
            sbf(d, "phase is %s; ", gs_phase_name(p->phase));
            ok = false;
        }
    }
    if (e->node) {
        const char *n = pod_node_name(r, p);
        sbf(what, " node %s", e->node);
        if (!n || strcmp(n, e->node) != 0) {
            sbf(d, "node is %s; ", n ? n : "<none>");
            ok = false;
        }
    }
    if (e->message) {
        sbf(what, " message");
        if (!str_eq(p->message, e->message)) {
            sbf(d, "message is \"%s\", want \"%s\"; ", p->message ? p->message : "", e->message);
            ok = false;
        }
    }
    if (e->message_contains) {
        sbf(what, " messageContains");
        if (!p->message || !strstr(p->message, e->message_contains)) {
            sbf(d, "message is \"%s\", want it to contain \"%s\"; ", p->message ? p->message : "",
                e->message_contains);
            ok = false;
        }
    }
    if (e->reason) {
        sbf(what, " reason %s", e->reason);
        if (!str_eq(p->reason, e->reason)) {
            sbf(d, "reason is %s; ", p->reason ? p->reason : "<none>");
            ok = false;
        }
    }
    if (e->has_scheduled_within) {
        char b1[32], b2[32];
        sbf(what, " scheduledWithin %s", dur(e->scheduled_within, b1, sizeof b1));
        if (p->scheduled_us < 0) {
            sbf(d, "not scheduled; ");
            ok = false;
        } else if (p->scheduled_us - p->created_us > e->scheduled_within) {
            sbf(d, "scheduled after %s; ", dur(p->scheduled_us - p->created_us, b2, sizeof b2));
            ok = false;
        }
    }
    if (ok)
        sbf(d, "ok");
    return ok;
}

static bool eval_group(struct gs_runner *r, const struct gs_expect *e, struct sb *what, struct sb *d)
{
    const struct gs_group *g = NULL;
    for (int i = 0; i < r->w->ngroups; i++)
        if (strcmp(r->w->groups[i].name, e->name) == 0)
            g = &r->w->groups[i];
    if (!g) {
        sbf(d, "no PodGroup named %s", e->name);
        return false;
    }
    int running = 0, succeeded = 0;
    for (int i = 0; i < r->w->npods; i++) {
        const struct gs_pod *p = &r->w->pods[i];
        if (p->group != g - r->w->groups || p->deleted)
            continue;
        running += p->phase == GS_PHASE_RUNNING;
        succeeded += p->phase == GS_PHASE_SUCCEEDED;
    }
    /* scheduler-plugins PodGroup status: Running once minMember pods run, Finished (reported
     * as Succeeded) once minMember succeeded, else Pending. */
    enum gs_phase ph = succeeded >= g->min_member ? GS_PHASE_SUCCEEDED
                       : running + succeeded >= g->min_member ? GS_PHASE_RUNNING
                                                               : GS_PHASE_PENDING;
    if (e->has_phase)
        sbf(what, " phase %s", gs_phase_name(e->phase));
    sbf(d, "phase %s (%d running, %d succeeded, minMember %d)", gs_phase_name(ph), running, succeeded,
        g->min_member);
    return !e->has_phase || ph == e->phase;
}

/* ------------------------------------------------------------------ nodes */

/* Compare a node's resource vector entry with an expected quantity string ("0" and null match
 * an absent extended resource). */
static bool res_matches(const struct gs_runner *r, const struct gs_resvec *v, const struct gs_expect_kv *kv,
                        struct sb *d, const char *field)
{
    int ri = gs_res_find(&r->w->res, kv->key);
    bool extended = ri < 0 || ri >= GS_RES_FIXED;
    int64_t have = ri >= 0 ? v->v[ri] : 0;
    bool present = !extended || have != 0;
    if (!kv->value) {
        if (present)
            sbf(d, "%s[%s] is %lld, want absent; ", field, kv->key, (long long)have);
        return !present;
    }
    struct gs_quantity q;
    if (gs_quantity_parse(kv->value, &q)) {
        sbf(d, "%s[%s]: bad quantity \"%s\"; ", field, kv->key, kv->value);
        return false;
    }
    int64_t want = ri == GS_RES_CPU ? gs_quantity_milli(&q) : gs_quantity_value(&q);
    if (have != want) {
        if (present)
            sbf(d, "%s[%s] is %lld; ", field, kv->key, (long long)have);
        else
            sbf(d, "%s[%s] is absent; ", field, kv->key);
        return false;
    }
    return true;
}

static bool eval_node(struct gs_runner *r, const struct gs_expect *e, struct sb *what, struct sb *d)
{
    int ni = gs_world_find_node(r->w, e->name);
    if (ni < 0 || !r->w->nodes[ni].exists) {
        sbf(d, "no node named %s", e->name);
        return false;
    }
    const struct gs_node *n = &r->w->nodes[ni];
    bool ok = true;
    if (e->has_schedulable) {
        bool gpus_ready = n->gpu_count == 0 || (r->gpu_res >= 0 && n->allocatable.v[r->gpu_res] > 0);
        bool s = !n->unschedulable && gpus_ready;
        sbf(what, " schedulable %s", e->schedulable ? "true" : "false");
        if (s != e->schedulable) {
            sbf(d, "schedulable is %s; ", s ? "true" : "false");
            ok = false;
        }
    }
    for (int i = 0; i < e->nallocatable; i++) {
        sbf(what, " allocatable[%s]=%s", e->allocatable[i].key, e->allocatable[i].value ? e->allocatable[i].value : "null");
        ok &= res_matches(r, &n->allocatable, &e->allocatable[i], d, "allocatable");
    }
    for (int i = 0; i < e->ncapacity; i++) {
        sbf(what, " capacity[%s]=%s", e->capacity[i].key, e->capacity[i].value ? e->capacity[i].value : "null");
        ok &= res_matches(r, &n->capacity, &e->capacity[i], d, "capacity");
    }
    for (int i = 0; i < e->nlabels; i++) {
        const struct gs_expect_kv *kv = &e->labels[i];
        const char *have = gs_labels_get(&n->labels, kv->key);
        sbf(what, " labels[%s]=%s", kv->key, kv->value ? kv->value : "null");
        if (!str_eq(have, kv->value) || (!have) != (!kv->value)) {
            sbf(d, "label %s is %s; ", kv->key, have ? have : "absent");
            ok = false;
        }
    }
    /* operand: the pod STATUS of each named operand DaemonSet on the node (null: no pod). */
    for (int i = 0; i < e->noperands; i++) {
        const struct gs_expect_kv *kv = &e->operands[i];
        bool known;
        const char *have = gs_bringup_run_operand_status(r, ni, kv->key, &known);
        sbf(what, " operand[%s]=%s", kv->key, kv->value ? kv->value : "null");
        if (!known) {
            sbf(d, "operand %s is not modelled; ", kv->key);
            ok = false;
        } else if (!str_eq(have, kv->value) || (!have) != (!kv->value)) {
            sbf(d, "operand %s is %s; ", kv->key, have ? have : "absent (no pod)");
            ok = false;
        }
    }
    if (ok)
        sbf(d, "ok");
    return ok;
}

/* ------------------------------------------------------------------ objects and metrics */

static bool eval_object(struct gs_runner *r, const struct gs_expect *e, struct sb *what, struct sb *d)
{
    bool exists = false, rejected = false;
    const char *message = NULL;
    if (strcmp(e->obj_kind, "Job") == 0 || strcmp(e->obj_kind, "Pod") == 0) {
        int wi = gs_world_find_workload(r->w, e->name);
        const struct gs_workload *wl = wi >= 0 ? &r->w->workloads[wi] : NULL;
        if (wl && wl->api_kind && strcmp(wl->api_kind, e->obj_kind) == 0 && strcmp(e->obj_kind, "Job") == 0) {
            rejected = wl->rejected;
            message = wl->reject_message;
            exists = wl->arrivals_done > 0 && !wl->rejected;
        } else {
            int pi = gs_world_find_pod(r->w, e->name);
            if (pi >= 0) {
                const struct gs_pod *p = &r->w->pods[pi];
                rejected = p->phase == GS_PHASE_REJECTED;
                message = rejected ? p->message : NULL;
                exists = !rejected && !p->deleted;
            }
        }
    } else if (strcmp(e->obj_kind, "PriorityClass") == 0) {
        exists = gs_world_find_priority_class(r->w, e->name) != NULL;
    } else {
        sbf(d, "objects of kind %s are not modelled", e->obj_kind);
        return false;
    }
    bool ok = true;
    if (e->has_exists) {
        sbf(what, " exists %s", e->exists ? "true" : "false");
        if (exists != e->exists) {
            sbf(d, "%s; ", exists ? "exists" : "does not exist");
            ok = false;
        }
    }
    if (e->has_rejected) {
        sbf(what, " rejected %s", e->rejected ? "true" : "false");
        if (rejected != e->rejected) {
            sbf(d, "%s; ", rejected ? "was rejected" : "was not rejected");
            ok = false;
        }
    }
    if (e->message) {
        sbf(what, " message");
        if (!str_eq(message, e->message)) {
            sbf(d, "message is \"%s\", want \"%s\"; ", message ? message : "", e->message);
            ok = false;
        }
    }
    if (ok)
        sbf(d, "ok");
    return ok;
}

static bool metric_ok(const struct gs_expect *e, double v)
{
    return (!e->has_equals || v == e->equals) && (!e->has_mmin || v >= e->mmin) && (!e->has_mmax || v <= e->mmax);
}

static bool eval_metric(struct gs_runner *r, const struct gs_expect *e, struct sb *what, struct sb *d)
{
    if (e->has_equals) sbf(what, " equals %g", e->equals);
    if (e->has_mmin) sbf(what, " min %g", e->mmin);
    if (e->has_mmax) sbf(what, " max %g", e->mmax);
    double v;
    struct gs_metrics now;
    gs_metrics_now(r, gs_engine_now(r->eng), &now);
    if (!gs_metrics_get(&now, e->name, &v)) {
        sbf(d, "unknown metric %s", e->name);
        return false;
    }
    if (!e->has_window) {
        sbf(d, "value %g", v);
        return metric_ok(e, v);
    }
    /* Every sample in [from, to], and the value at `to` (now). */
    bool ok = metric_ok(e, v);
    if (!ok)
        sbf(d, "value %g at the end of the window", v);
    for (int i = 0; i < r->nsamples && ok; i++) {
        const struct gs_metrics *s = &r->samples[i];
        if (s->t < e->from || s->t > e->to)
            continue;
        gs_metrics_get(s, e->name, &v);
        if (!metric_ok(e, v)) {
            char b[32];
            sbf(d, "value %g at %s", v, dur(s->t, b, sizeof b));
            ok = false;
        }
    }
    if (ok)
        sbf(d, "ok");
    return ok;
}

void gs_check_eval(struct gs_runner *r, int i)
{
    struct gs_expect *e = &r->sc->expects[i];
    struct sb what = {.n = 0}, d = {.n = 0};
    char b1[32], b2[32];
    sbf(&what, "%s", kind_name(e->kind));
    if (e->kind == GS_EX_OBJECT)
        sbf(&what, " %s/%s", e->obj_kind, e->name);
    else if (e->kind != GS_EX_PODS)
        sbf(&what, " %s", e->name);
    if (e->has_at)
        sbf(&what, " at %s", dur(e->at, b1, sizeof b1));
    if (e->has_window)
        sbf(&what, " from %s to %s", dur(e->from, b1, sizeof b1), dur(e->to, b2, sizeof b2));
    sbf(&what, ":");
    bool pass = false;
    switch (e->kind) {
    case GS_EX_POD: pass = eval_pod(r, e, &what, &d); break;
    case GS_EX_PODS: pass = eval_pods(r, e, &what, &d); break;
    case GS_EX_NODE: pass = eval_node(r, e, &what, &d); break;
    case GS_EX_OBJECT: pass = eval_object(r, e, &what, &d); break;
    case GS_EX_METRIC: pass = eval_metric(r, e, &what, &d); break;
    case GS_EX_POD_GROUP: pass = eval_group(r, e, &what, &d); break;
    }
    /* Drop a trailing "; " from the detail. */
    if (d.n >= 2 && d.buf[d.n - 2] == ';')
        d.buf[d.n -= 2] = '\0';
    e->checked = true;
    e->pass = pass;
    e->what = gs_arena_strdup(&r->w->arena, what.buf);
    e->detail = gs_arena_strdup(&r->w->arena, d.buf);
}
