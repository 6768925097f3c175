/* The scenario's expect: checks (sim/check.h), evaluated against the live world at their time
 * (or at the end of the run). Each fills expect->pass and ->detail (what was seen, for a FAIL
 * line); the line naming the check, expect->what, comes from the loader (gs_expect_describe).
 * Objects of kinds a controller manages (Kueue Workloads, DaemonSets, DRA objects) are looked up
 * through the controllers' object hooks (sim/controller.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/check.h"

#include "base/alloc.h"
#include "base/error.h"
#include "models/bringup.h"
#include "models/quantity.h"
#include "sim/controller.h"
#include "sim/metrics.h"
#include "sim/objective.h"
#include "sim/scenario/yaml.h"

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

/* ------------------------------------------------------------------ pods */

static const char *pod_node_name(const struct gs_cluster *c, const struct gs_pod *p)
{
    int n = p->node >= 0 ? p->node : p->last_node;
    return n >= 0 ? c->w->nodes[n].name : NULL;
}

static bool str_eq(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Is pod `p` one of the pods a pods: check counts among: its workload, namePrefix and
 * labelSelector (who the pods are, not the state they are in)? Deleted pods are in scope too; the
 * count leaves them out (pod_matches). */
static bool pod_in_scope(const struct gs_cluster *c, const struct gs_expect *e, const struct gs_pod *p)
{
    if (e->workload && (p->workload < 0 || strcmp(c->w->workloads[p->workload].name, e->workload) != 0))
        return false;
    if (e->name_prefix && strncmp(p->name, e->name_prefix, strlen(e->name_prefix)) != 0)
        return false;
    for (int i = 0; i < e->label_selector.n; i++) {
        const char *v = gs_labels_get(&p->tmpl->labels, e->label_selector.kv[i].key);
        if (!v || strcmp(v, e->label_selector.kv[i].value) != 0)
            return false;
    }
    return true;
}

/* Does pod `p`'s message and reason pass the pods: filter of `e`? */
static bool pod_message_matches(const struct gs_expect *e, const struct gs_pod *p)
{
    if (e->message && !str_eq(p->message, e->message))
        return false;
    if (e->message_contains && (!p->message || !strstr(p->message, e->message_contains)))
        return false;
    if (e->reason && !str_eq(p->reason, e->reason))
        return false;
    return true;
}

/* Does pod `p` pass the pods: filter of `e`? */
static bool pod_matches(const struct gs_cluster *c, const struct gs_expect *e, const struct gs_pod *p)
{
    if (p->deleted)
        return false;
    if (e->has_phase && p->phase != e->phase)
        return false;
    if (e->node && (p->node < 0 || strcmp(c->w->nodes[p->node].name, e->node) != 0))
        return false;
    return pod_message_matches(e, p) && pod_in_scope(c, e, p);
}

static bool check_bounds(const struct gs_expect *e, int64_t n, struct sb *d)
{
    bool ok = (!e->has_count || n == e->count) && (!e->has_min || n >= e->min) && (!e->has_max || n <= e->max);
    sbf(d, "%lld matching", (long long)n);
    return ok;
}

/* Where the pods a failed pods: check was about are (`count 4: 0 matching; the 4 pods of
 * workload trainer are Running on h100-1`): the pods in its scope (pod_in_scope) grouped by
 * phase and node in pod order, and when it filters on message or reason, the first pod in scope
 * whose message or reason is another. */
#define GS_CHECK_GROUPS 8
static void describe_pods(const struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    struct {
        enum gs_phase phase;
        int node;     /* -1: none */
        bool deleted;
        int n;
    } g[GS_CHECK_GROUPS];
    int ng = 0, total = 0, other = 0;
    const struct gs_pod *odd = NULL; /* the first pod in scope with another message or reason */
    for (int i = 0; i < c->w->npods; i++) {
        const struct gs_pod *p = &c->w->pods[i];
        if (!pod_in_scope(c, e, p))
            continue;
        total++;
        if (!odd && !p->deleted && !pod_message_matches(e, p))
            odd = p;
        /* a pending pod is where it is bound or assumed; an ended one where it ran */
        int node = p->phase == GS_PHASE_PENDING ? p->node : p->node >= 0 ? p->node : p->last_node;
        int k = 0;
        while (k < ng && !(g[k].deleted == p->deleted && (p->deleted || (g[k].phase == p->phase && g[k].node == node))))
            k++;
        if (k == ng) {
            if (ng == GS_CHECK_GROUPS) {
                other++;
                continue;
            }
            g[ng].phase = p->phase;
            g[ng].node = node;
            g[ng].deleted = p->deleted;
            g[ng++].n = 0;
        }
        g[k].n++;
    }
    /* who they are */
    char who[600];
    int k = snprintf(who, sizeof who, "%s", total <= 1 ? "pod" : "pods");
    if (e->workload && k >= 0 && (size_t)k < sizeof who)
        k += snprintf(who + k, sizeof who - (size_t)k, " of workload %s", e->workload);
    if (e->name_prefix && k >= 0 && (size_t)k < sizeof who)
        k += snprintf(who + k, sizeof who - (size_t)k, " named %s*", e->name_prefix);
    for (int i = 0; i < e->label_selector.n && k >= 0 && (size_t)k < sizeof who; i++)
        k += snprintf(who + k, sizeof who - (size_t)k, "%s%s=%s", i ? "," : " labelled ",
                      e->label_selector.kv[i].key, e->label_selector.kv[i].value);
    if (total == 0) {
        sbf(d, "; there is no %s", who);
        return;
    }
    if (total == 1)
        sbf(d, "; the %s is ", who);
    else if (ng == 1)
        sbf(d, "; the %d %s are ", total, who);
    else
        sbf(d, "; the %d %s: ", total, who);
    for (int i = 0; i < ng; i++) {
        if (i)
            sbf(d, ", ");
        if (ng > 1)
            sbf(d, "%d ", g[i].n);
        if (g[i].deleted)
            sbf(d, "deleted");
        else
            sbf(d, "%s", gs_phase_name(g[i].phase));
        if (!g[i].deleted && g[i].node >= 0)
            sbf(d, " on %s", c->w->nodes[g[i].node].name);
    }
    if (other)
        sbf(d, ", %d elsewhere", other);
    if (odd && e->reason && !str_eq(odd->reason, e->reason))
        sbf(d, "; %s's reason is %s", odd->name, odd->reason ? odd->reason : "<none>");
    else if (odd)
        sbf(d, "; %s's message is \"%s\"", odd->name, odd->message ? odd->message : "");
}

static bool eval_pods(struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    int64_t n = 0;
    for (int i = 0; i < c->w->npods; i++)
        n += pod_matches(c, e, &c->w->pods[i]);
    bool ok = check_bounds(e, n, d);
    if (!ok)
        describe_pods(c, e, d);
    return ok;
}

/* Does every expected condition of `e` hold for the object `obj`, whose conditions `get`
 * looks up by type (false: no condition of that type)? */
static bool conditions_match(const struct gs_cluster *c, const struct gs_expect *e, gs_condition_fn get,
                             const void *obj, struct sb *d)
{
    bool ok = true;
    for (int i = 0; i < e->nconditions; i++) {
        const struct gs_expect_condition *want = &e->conditions[i];
        struct gs_condition have = {0};
        if (!get(c, obj, want->type, &have)) {
            sbf(d, "no %s condition; ", want->type);
            ok = false;
            continue;
        }
        bool m = (!want->status || str_eq(have.status, want->status)) &&
                 (!want->reason || str_eq(have.reason, want->reason)) &&
                 (!want->message || str_eq(have.message, want->message)) &&
                 (!want->message_contains || (have.message && strstr(have.message, want->message_contains)));
        if (!m) {
            sbf(d, "condition %s is %s (reason %s, message \"%s\"); ", want->type, have.status ? have.status : "",
                have.reason ? have.reason : "<none>", have.message ? have.message : "");
            ok = false;
        }
    }
    return ok;
}

/* A pod's status.conditions as the kubelet and the scheduler write them: PodScheduled (False,
 * Unschedulable, with the FailedScheduling text, until bound), Initialized / ContainersReady /
 * Ready (True while Running), DisruptionTarget (True, PreemptionByScheduler, once a preemption
 * victim: kubernetes pkg/scheduler/framework/preemption/preemption.go prepareCandidate). */
static bool pod_condition(const struct gs_cluster *c, const void *obj, const char *type, struct gs_condition *out)
{
    const struct gs_pod *p = obj;
    if (strcmp(type, "PodScheduled") == 0) {
        if (p->scheduled_us >= 0) {
            out->status = "True";
            return true;
        }
        if (!p->message || p->phase == GS_PHASE_REJECTED)
            return false;
        out->status = "False";
        out->reason = "Unschedulable";
        out->message = p->message;
        return true;
    }
    if (strcmp(type, "Initialized") == 0 || strcmp(type, "ContainersReady") == 0 || strcmp(type, "Ready") == 0) {
        if (p->scheduled_us < 0)
            return false;
        out->status = p->phase == GS_PHASE_RUNNING && !p->terminating ? "True" : "False";
        if (p->phase == GS_PHASE_SUCCEEDED || p->phase == GS_PHASE_FAILED)
            out->reason = "PodCompleted";
        return true;
    }
    if (strcmp(type, "DisruptionTarget") == 0 && p->preempted_by >= 0) {
        const struct gs_pod *by = &c->w->pods[p->preempted_by];
        out->status = "True";
        out->reason = "PreemptionByScheduler";
        out->message = gs_arena_printf(&c->w->arena, "%s: preempting to accommodate a higher priority pod",
                                     by->tmpl->scheduler_name ? by->tmpl->scheduler_name : "default-scheduler");
        return true;
    }
    return false;
}

/* " (did you mean 'x'?)" after "no pod named NAME", when a pod has a name near it (the scenario
 * loader's nearest-name rule, sim/scenario/yaml.h gs_y_suggest). */
static void suggest_pod(const struct gs_cluster *c, const char *name, struct sb *d)
{
    const char **names = gs_calloc((size_t)c->w->npods + 1, sizeof *names);
    if (!names)
        return;
    for (int i = 0; i < c->w->npods; i++)
        names[i] = c->w->pods[i].name;
    const char *near = gs_y_suggest(name, names);
    if (near && strcmp(near, name) != 0)
        sbf(d, " (did you mean '%s'?)", near);
    gs_free(names);
}

static bool eval_pod(struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    int pi = gs_world_find_pod(c->w, e->name);
    const struct gs_pod *p = pi >= 0 ? &c->w->pods[pi] : NULL;
    bool ok = true;
    if (e->has_exists) {
        bool exists = p && !p->deleted;
        if (exists != e->exists) {
            sbf(d, "pod %s", exists ? "exists" : "does not exist");
            return false;
        }
        if (!exists)
            return true;
    }
    if (!p) {
        sbf(d, "no pod named %s", e->name);
        suggest_pod(c, e->name, d);
        return false;
    }
    if (e->has_phase) {
        if (p->deleted) {
            sbf(d, "pod was deleted");
            if (p->reason)
                sbf(d, " (reason %s)", p->reason);
            sbf(d, "; ");
            ok = false;
        } else if (p->phase != e->phase) {
            /* what it is instead: where, why (status.reason), and the message it has unless the
             * check compares the message itself below */
            sbf(d, "phase is %s", gs_phase_name(p->phase));
            int n = p->node >= 0 ? p->node : p->phase != GS_PHASE_PENDING ? p->last_node : -1;
            if (n >= 0)
                sbf(d, " on %s", c->w->nodes[n].name);
            if (p->reason)
                sbf(d, " (reason %s)", p->reason);
            if (p->message && !e->message && !e->message_contains)
                sbf(d, " (message \"%s\")", p->message);
            sbf(d, "; ");
            ok = false;
        }
    }
    if (e->node) {
        const char *n = pod_node_name(c, p);
        if (!n || strcmp(n, e->node) != 0) {
            sbf(d, "node is %s; ", n ? n : "<none>");
            ok = false;
        }
    }
    if (e->message) {
        if (!str_eq(p->message, e->message)) {
            sbf(d, "message is \"%s\", want \"%s\"; ", p->message ? p->message : "", e->message);
            ok = false;
        }
    }
    if (e->message_contains) {
        if (!p->message || !strstr(p->message, e->message_contains)) {
            sbf(d, "message is \"%s\", want it to contain \"%s\"; ", p->message ? p->message : "",
                e->message_contains);
            ok = false;
        }
    }
    if (e->reason) {
        if (!str_eq(p->reason, e->reason)) {
            sbf(d, "reason is %s; ", p->reason ? p->reason : "<none>");
            ok = false;
        }
    }
    if (e->nconditions && !conditions_match(c, e, pod_condition, p, d))
        ok = false;
    if (e->nominated_node) {
        const char *nn = p->nominated_node >= 0 ? c->w->nodes[p->nominated_node].name : "";
        if (strcmp(nn, e->nominated_node) != 0) {
            sbf(d, "nominatedNodeName is \"%s\"; ", nn);
            ok = false;
        }
    }
    if (e->has_scheduled_within) {
        char b2[32];
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

static bool eval_group(struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    const struct gs_group *g = NULL;
    for (int i = 0; i < c->w->ngroups; i++)
        if (strcmp(c->w->groups[i].name, e->name) == 0)
            g = &c->w->groups[i];
    if (!g) {
        sbf(d, "no PodGroup named %s", e->name);
        return false;
    }
    int running = 0, succeeded = 0;
    for (int i = 0; i < c->w->npods; i++) {
        const struct gs_pod *p = &c->w->pods[i];
        if (p->group != g - c->w->groups || p->deleted)
            continue;
        running += p->phase == GS_PHASE_RUNNING;
        succeeded += p->phase == GS_PHASE_SUCCEEDED;
    }
    /* scheduler-plugins PodGroup status: Running once minMember pods run, Finished (reported
     * as Succeeded) once minMember succeeded, else Pending. */
    enum gs_phase ph = succeeded >= g->min_member ? GS_PHASE_SUCCEEDED
                       : running + succeeded >= g->min_member ? GS_PHASE_RUNNING
                                                               : GS_PHASE_PENDING;
    sbf(d, "phase %s (%d running, %d succeeded, minMember %d)", gs_phase_name(ph), running, succeeded,
        g->min_member);
    return !e->has_phase || ph == e->phase;
}

/* ------------------------------------------------------------------ nodes */

/* Compare a node's resource vector entry with an expected quantity string ("0" and null match
 * an absent extended resource). */
static bool res_matches(const struct gs_cluster *c, const struct gs_resvec *v, const struct gs_expect_kv *kv,
                        struct sb *d, const char *field)
{
    int ri = gs_res_find(&c->w->res, kv->key);
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

/* " (did you mean 'x'?)" after "no node named NAME": the nearest name of a node that exists. */
static void suggest_node(const struct gs_cluster *c, const char *name, struct sb *d)
{
    const char **names = gs_calloc((size_t)c->w->nnodes + 1, sizeof *names);
    if (!names)
        return;
    int k = 0;
    for (int i = 0; i < c->w->nnodes; i++)
        if (c->w->nodes[i].exists)
            names[k++] = c->w->nodes[i].name;
    const char *near = gs_y_suggest(name, names);
    if (near && strcmp(near, name) != 0)
        sbf(d, " (did you mean '%s'?)", near);
    gs_free(names);
}

static bool eval_node(struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    int ni = gs_world_find_node(c->w, e->name);
    if (ni < 0 || !c->w->nodes[ni].exists) {
        sbf(d, "no node named %s", e->name);
        suggest_node(c, e->name, d);
        return false;
    }
    const struct gs_node *n = &c->w->nodes[ni];
    bool ok = true;
    if (e->has_schedulable) {
        bool gpus_ready = n->gpu_count == 0 || (c->gpu_res >= 0 && n->allocatable.v[c->gpu_res] > 0);
        bool s = !n->unschedulable && gpus_ready;
        if (s != e->schedulable) {
            sbf(d, "schedulable is %s%s; ", s ? "true" : "false",
                s ? "" : n->unschedulable ? " (cordoned)" : " (no nvidia.com/gpu allocatable)");
            ok = false;
        }
    }
    for (int i = 0; i < e->nallocatable; i++) {
        ok &= res_matches(c, &n->allocatable, &e->allocatable[i], d, "allocatable");
    }
    for (int i = 0; i < e->ncapacity; i++) {
        ok &= res_matches(c, &n->capacity, &e->capacity[i], d, "capacity");
    }
    for (int i = 0; i < e->nlabels; i++) {
        const struct gs_expect_kv *kv = &e->labels[i];
        const char *have = gs_labels_get(&n->labels, kv->key);
        if (!str_eq(have, kv->value) || (!have) != (!kv->value)) {
            sbf(d, "label %s is %s; ", kv->key, have ? have : "absent");
            ok = false;
        }
    }
    /* operand: the pod STATUS of each named operand DaemonSet on the node (null: no pod). */
    for (int i = 0; i < e->noperands; i++) {
        const struct gs_expect_kv *kv = &e->operands[i];
        int o = gs_operand_find(kv->key);
        const char *have = o >= 0 ? n->operand_status[o] : NULL;
        if (o < 0) {
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

static bool eval_object(struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    bool exists = false, rejected = false;
    const char *message = NULL;
    const void *cobj = NULL;        /* the object whose conditions are compared */
    gs_condition_fn cget = NULL;
    if (strcmp(e->obj_kind, "Job") == 0 || strcmp(e->obj_kind, "Pod") == 0) {
        int wi = gs_world_find_workload(c->w, e->name);
        const struct gs_workload *wl = wi >= 0 ? &c->w->workloads[wi] : NULL;
        if (wl && wl->api_kind && strcmp(wl->api_kind, e->obj_kind) == 0 && strcmp(e->obj_kind, "Job") == 0) {
            rejected = wl->rejected;
            message = wl->reject_message;
            exists = wl->arrivals_done > 0 && !wl->rejected;
        } else {
            int pi = gs_world_find_pod(c->w, e->name);
            if (pi >= 0) {
                const struct gs_pod *p = &c->w->pods[pi];
                rejected = p->phase == GS_PHASE_REJECTED;
                message = rejected ? p->message : NULL;
                exists = !rejected && !p->deleted;
                cobj = p;
                cget = pod_condition;
            }
        }
    } else if (strcmp(e->obj_kind, "PriorityClass") == 0) {
        exists = gs_world_find_priority_class(c->w, e->name) != NULL;
    } else {
        /* A kind a controller answers for (a disabled one answers with state NULL). */
        struct gs_object_view v = {0};
        bool found = false;
        for (int i = 0; i < c->nctl && !found; i++)
            if (c->ctl[i]->object)
                found = c->ctl[i]->object(c->state[i], c, e, &v);
        if (!found) {
            sbf(d, "objects of kind %s are not modelled", e->obj_kind);
            return false;
        }
        if (v.status_failed) {
            sbf(d, "%s", v.why);
            return false;
        }
        exists = v.exists;
        rejected = v.rejected;
        message = v.message;
        cobj = v.cobj;
        cget = v.cget;
    }
    bool ok = true;
    if (e->has_exists) {
        if (exists != e->exists) {
            sbf(d, "%s; ", exists ? "exists" : "does not exist");
            ok = false;
        }
    }
    if (e->has_rejected) {
        if (rejected != e->rejected) {
            sbf(d, "%s; ", rejected ? "was rejected" : "was not rejected");
            ok = false;
        }
    }
    if (e->message) {
        if (!str_eq(message, e->message)) {
            sbf(d, "message is \"%s\", want \"%s\"; ", message ? message : "", e->message);
            ok = false;
        }
    }
    if (e->nconditions) {
        if (!cget || !cobj) {
            sbf(d, "no %s named %s; ", e->obj_kind, e->name);
            ok = false;
        } else if (!conditions_match(c, e, cget, cobj, d)) {
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

/* Remember `s` in the window check `e` if it is the first sample in the window to break the
 * bounds. */
static void judge(struct gs_expect *e, const struct gs_metrics *s)
{
    double v;
    if (e->window_broken || s->t < e->from || s->t > e->to || !gs_metrics_get(s, e->name, &v))
        return;
    if (!metric_ok(e, v)) {
        e->window_broken = true;
        e->window_value = v;
        e->window_t = s->t;
    }
}

static bool eval_metric(struct gs_cluster *c, struct gs_expect *e, struct sb *d)
{
    double v;
    struct gs_metrics now;
    gs_metrics_now(c, -1, &now);
    if (!gs_metrics_get(&now, e->name, &v)) {
        sbf(d, "unknown metric %s", e->name);
        return false;
    }
    char b[32];
    if (!e->has_window) {
        /* a failure says when the value was found: the check's time, or the end of the run */
        bool ok = metric_ok(e, v);
        sbf(d, "value %g", v);
        if (!ok)
            sbf(d, " at %s", dur(gs_cluster_now(c), b, sizeof b));
        return ok;
    }
    /* Every sample in [from, to], and the value at `to` (now). Samples before now were judged
     * as they came (gs_check_sample); the latest one is judged here. */
    bool ok = metric_ok(e, v);
    if (!ok)
        sbf(d, "value %g at %s, the end of the window", v, dur(gs_cluster_now(c), b, sizeof b));
    if (ok && c->has_last_sample)
        judge(e, &c->last_sample);
    if (ok && e->window_broken) {
        sbf(d, "value %g at %s", e->window_value, dur(e->window_t, b, sizeof b));
        ok = false;
    }
    if (ok)
        sbf(d, "ok");
    return ok;
}

/* ------------------------------------------------------------------ stat */

/* The end of the run: the time of its final sample, taken just before the end-of-run checks. */
static gs_time run_end(const struct gs_cluster *c)
{
    return c->has_last_sample ? c->last_sample.t : gs_cluster_now(c);
}

/* Node-µs of pool `pool` (-1: every node), from joining to deletion or the end (as the report
 * counts from the Joined and Deleted node_event rows). */
static int64_t node_us(const struct gs_cluster *c, int pool, gs_time end)
{
    int64_t us = 0;
    for (int i = 0; i < c->w->nnodes; i++) {
        const struct gs_node *n = &c->w->nodes[i];
        if (pool >= 0 && n->pool != pool)
            continue;
        gs_time until = n->deleted_at >= 0 && n->deleted_at < end ? n->deleted_at : end;
        if (until > n->joined_at)
            us += until - n->joined_at;
    }
    return us;
}

static int pool_index(const struct gs_cluster *c, const char *name)
{
    for (int p = 0; p < c->w->npools; p++)
        if (strcmp(c->w->pools[p].name, name) == 0)
            return p;
    return -1;
}

/* The value of the study metric `o` at the end of the run, computed as reports/study.c computes
 * it from the trace (sim/objective.h): NaN when it has none. *why says why not, for the detail. */
static double stat_value(struct gs_cluster *c, const struct gs_objective *o, const char **why)
{
    const struct gs_world *w = c->w;
    gs_time end = run_end(c);
    *why = NULL;
    switch (o->metric) {
    case GS_OBJ_TIME_TO_SCHEDULE:
    case GS_OBJ_TIME_TO_RUNNING:
    case GS_OBJ_PENDING_AT_END:
    case GS_OBJ_PENDING_GPU_HOURS: {
        /* the pods of the scope, in pod id order, as the trace's pod rows */
        struct gs_study_acc acc = {0};
        size_t n = 0;
        for (int i = 0; i < w->npods; i++) {
            const struct gs_pod *p = &w->pods[i];
            if (o->scope == GS_OBJ_WORKLOAD &&
                strcmp(p->workload >= 0 ? w->workloads[p->workload].name : "(none)", o->scope_value) != 0)
                continue;
            if (o->scope == GS_OBJ_PRIORITY && p->tmpl->priority != o->priority)
                continue;
            struct gs_study_pod sp = {.created_us = p->created_us,
                                      .scheduled_us = p->scheduled_us,
                                      .started_us = p->started_us,
                                      .finished_us = p->finished_us,
                                      .gpu = c->gpu_res >= 0 ? p->tmpl->requests.v[c->gpu_res] : 0,
                                      .ended = p->deleted ||
                                               (p->phase != GS_PHASE_PENDING && p->phase != GS_PHASE_RUNNING)};
            if (gs_study_acc_add(&acc, &sp, end)) {
                gs_study_acc_free(&acc);
                gs_cluster_fail(c, GS_ENOMEM);
                *why = "out of memory";
                return NAN;
            }
            n++;
        }
        struct gs_study_pods r;
        gs_study_acc_finish(&acc, &r);
        if (n == 0 && o->scope != GS_OBJ_CLUSTER) {
            *why = o->scope == GS_OBJ_WORKLOAD ? "no pod of that workload" : "no pod of that priority";
            return NAN;
        }
        if (o->metric == GS_OBJ_PENDING_AT_END)
            return (double)r.pending;
        if (o->metric == GS_OBJ_PENDING_GPU_HOURS)
            return r.pending_gpu_hours;
        const struct gs_stats_summary *q = o->metric == GS_OBJ_TIME_TO_SCHEDULE ? &r.to_schedule : &r.to_running;
        if (q->n == 0)
            *why = o->metric == GS_OBJ_TIME_TO_SCHEDULE ? "no pod was bound" : "no pod started";
        return gs_study_pick(q, o->stat);
    }
    case GS_OBJ_UTILISATION: {
        int pool = o->scope == GS_OBJ_POOL ? pool_index(c, o->scope_value) : -1;
        const struct gs_gpu_time *g = gs_metrics_gpu_time(c, pool);
        if (!g || !(g->allocatable.sum > 0)) {
            *why = "no GPU was allocatable";
            return NAN;
        }
        return g->allocated.sum / g->allocatable.sum;
    }
    case GS_OBJ_GPU_HOURS_ALLOCATED: {
        /* the whole-cluster samples (or the pool's), as the report's cluster.gpuHoursAllocated */
        int pool = o->scope == GS_OBJ_POOL ? pool_index(c, o->scope_value) : -1;
        if (o->scope == GS_OBJ_POOL && pool < 0) {
            *why = "no such pool";
            return NAN;
        }
        const struct gs_gpu_time *g = gs_metrics_gpu_time(c, pool);
        return g ? g->allocated.sum / 3.6e9 : 0.0;
    }
    case GS_OBJ_INCOMPLETE_GROUP_GPU_HOURS: {
        /* gpus_held_by_incomplete_groups over the whole-cluster samples (sim/metrics.h), as the
         * report integrates the trace's rows: the same value to the last bit */
        if (w->ngroups == 0) {
            *why = "the run had no PodGroup";
            return NAN;
        }
        const struct gs_gpu_time *g = gs_metrics_gpu_time(c, -1);
        return g ? g->held_incomplete.sum / 3.6e9 : 0.0;
    }
    case GS_OBJ_NODE_HOURS:
        return (double)node_us(c, o->scope == GS_OBJ_POOL ? pool_index(c, o->scope_value) : -1, end) / 3.6e9;
    case GS_OBJ_COST: {
        double cost = 0;
        bool priced = false;
        for (int p = 0; p < w->npools; p++) {
            if (!w->pools[p].has_price || (o->scope == GS_OBJ_POOL && strcmp(w->pools[p].name, o->scope_value) != 0))
                continue;
            cost += (double)node_us(c, p, end) / 3.6e9 * w->pools[p].price_per_hour;
            priced = true;
        }
        if (!priced)
            *why = "no pricePerHour";
        return priced ? cost : NAN;
    }
    }
    return NAN;
}

static bool eval_stat(struct gs_cluster *c, const struct gs_expect *e, struct sb *d)
{
    const char *why;
    double v = stat_value(c, e->objective, &why);
    if (isnan(v)) {
        sbf(d, "no value: %s", why ? why : "not measured");
        return false;
    }
    if (gs_objective_is_time(e->objective)) {
        /* a time equals its bound to the microsecond (the bound is a duration) */
        char b[32];
        gs_time us = (gs_time)llround(v * 1e6);
        sbf(d, "value %s", dur(us, b, sizeof b));
        if (e->has_equals)
            return us == (gs_time)llround(e->equals * 1e6);
    } else {
        sbf(d, "value %g", v);
    }
    return metric_ok(e, v);
}

void gs_check_sample(struct gs_cluster *c, const struct gs_metrics *s)
{
    for (int i = 0; i < c->sc->nexpects; i++) {
        struct gs_expect *e = &c->sc->expects[i];
        if (e->kind == GS_EX_METRIC && e->has_window && !e->checked)
            judge(e, s);
    }
}

void gs_check_eval(struct gs_cluster *c, int i)
{
    struct gs_expect *e = &c->sc->expects[i];
    struct sb d = {.n = 0};
    bool pass = false;
    switch (e->kind) {
    case GS_EX_POD: pass = eval_pod(c, e, &d); break;
    case GS_EX_PODS: pass = eval_pods(c, e, &d); break;
    case GS_EX_NODE: pass = eval_node(c, e, &d); break;
    case GS_EX_OBJECT: pass = eval_object(c, e, &d); break;
    case GS_EX_METRIC: pass = eval_metric(c, e, &d); break;
    case GS_EX_POD_GROUP: pass = eval_group(c, e, &d); break;
    case GS_EX_STAT: pass = eval_stat(c, e, &d); break;
    }
    /* Drop a trailing "; " from the detail. */
    if (d.n >= 2 && d.buf[d.n - 2] == ';')
        d.buf[d.n -= 2] = '\0';
    e->checked = true;
    e->pass = pass;
    /* The loader describes every check (gs_expect_describe); an expectation built by hand may not. */
    if (!e->what) {
        char what[GS_EXPECT_WHAT_MAX];
        gs_expect_describe(e, what, sizeof what);
        e->what = gs_arena_strdup(&c->w->arena, what);
    }
    e->detail = gs_arena_strdup(&c->w->arena, d.buf);
}
