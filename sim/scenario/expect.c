/* spec.expect: the checks `gpusim run` makes (pod, pods, node, object, metric, podGroup), and
 * gs_expect_describe, the line naming each check (set at load, printed by `gpusim run`).
 *
 * What sim/check.c cannot compare yet is "not supported yet" here, never a check that always
 * passes: object spec/messageContains, object status other than a DaemonSet's
 * desiredNumberScheduled and numberReady, object kinds other than Pod, Job, PriorityClass and
 * DaemonSet, pods labelSelector.matchExpressions. A check whose time
 * (at, or a metric's from/to) is after the horizon is an error. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "models/dra/dra_state.h"
#include "sim/metrics.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                        "out of memory");
}

/* The kinds, in the order of enum gs_expect_kind. */
static const char *const kinds[] = {"pod", "pods", "node", "object", "metric", "podGroup", "stat", NULL};

/* The metrics, camelCase, are the sample columns of the trace (sim/metrics.h). */
static const char *const *const metrics = gs_metric_names;
/* Columns a later gpusim release samples (none at present). */
static const char *const later_metrics[] = {NULL};

static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed", "Rejected", NULL};
static const char *const group_phases[] = {"Pending", "Running", "Succeeded", "Failed", NULL};

static int str(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, const char **out)
{
    const struct gs_ynode *v = gs_y_get(m, key);
    if (!v)
        return 0;
    char p[GS_SCN_PATH];
    return gs_y_str(d, v, gs_scn_path(p, "%s.%s", path, key), out);
}

static int phase(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *const *choices,
                 struct gs_expect *e)
{
    const struct gs_ynode *v = gs_y_get(m, "phase");
    if (!v)
        return 0;
    char p[GS_SCN_PATH];
    int k;
    int rc = gs_y_enum(d, v, gs_scn_path(p, "%s.phase", path), choices, &k);
    if (rc)
        return rc;
    e->has_phase = true;
    e->phase = (enum gs_phase)k;
    return 0;
}

static int boolean(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, bool *has,
                   bool *out)
{
    const struct gs_ynode *v = gs_y_get(m, key);
    if (!v)
        return 0;
    char p[GS_SCN_PATH];
    int rc = gs_y_bool(d, v, gs_scn_path(p, "%s.%s", path, key), out);
    if (!rc)
        *has = true;
    return rc;
}

static int name(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, bool node,
                const char **out)
{
    const struct gs_ynode *v = gs_y_get(m, key);
    char p[GS_SCN_PATH];
    gs_scn_path(p, "%s.%s", path, key);
    int rc = gs_y_str(d, v, p, out);
    if (rc)
        return rc;
    if (node)
        return gs_scn_check_node_name(d, v, p, *out);
    if (!gs_scn_is_dns_subdomain(*out))
        return gs_y_error(d, v, "invalid name '%s' at %s: must be a DNS-1123 subdomain", *out, p);
    return 0;
}

/* exists: false checks absence only; other checks cannot hold then. */
static int absence_alone(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const struct gs_expect *e)
{
    if (!e->has_exists || e->exists)
        return 0;
    for (int i = 0; i < m->n; i++) {
        const char *k = m->pairs[i].key->text;
        if (strcmp(k, kinds[e->kind]) != 0 && strcmp(k, "at") != 0 && strcmp(k, "exists") != 0)
            return gs_y_error(d, m->pairs[i].key, "'%s' in %s cannot be checked with exists: false", k, path);
    }
    return 0;
}

static int bound(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, bool *has,
                 int64_t *out)
{
    const struct gs_ynode *v = gs_y_get(m, key);
    if (!v)
        return 0;
    char p[GS_SCN_PATH];
    int rc = gs_y_int(d, v, gs_scn_path(p, "%s.%s", path, key), 0, INT64_MAX, out);
    if (!rc)
        *has = true;
    return rc;
}

/* conditions: [{type, status, reason, message | messageContains}] */
static int conditions(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"type", "status", "reason", "message", "messageContains", NULL};
    static const char *const required[] = {"type", NULL};
    static const char *const statuses[] = {"True", "False", "Unknown", NULL};
    const struct gs_ynode *seq = gs_y_get(m, "conditions");
    if (!seq)
        return 0;
    char p[GS_SCN_PATH], cp[GS_SCN_PATH];
    int rc = gs_y_want_seq(d, seq, gs_scn_path(p, "%s.conditions", path));
    if (rc)
        return rc;
    if (seq->n == 0)
        return gs_y_error(d, seq, "%s checks nothing: list at least one {type, status}", p);
    e->conditions = gs_arena_alloc(d->arena, sizeof *e->conditions * (size_t)seq->n);
    if (!e->conditions)
        return nomem(d, seq);
    for (int i = 0; i < seq->n; i++) {
        const struct gs_ynode *c = seq->items[i];
        struct gs_expect_condition *ec = &e->conditions[i];
        gs_scn_path(cp, "%s[%d]", p, i);
        if ((rc = gs_y_check_map(d, c, cp, keys, NULL, required)) || (rc = str(d, c, "type", cp, &ec->type)) ||
            (rc = str(d, c, "reason", cp, &ec->reason)) || (rc = str(d, c, "message", cp, &ec->message)) ||
            (rc = str(d, c, "messageContains", cp, &ec->message_contains)))
            return rc;
        const struct gs_ynode *st = gs_y_get(c, "status");
        if (st) {
            int k;
            char sp[GS_SCN_PATH];
            if ((rc = gs_y_enum(d, st, gs_scn_path(sp, "%s.status", cp), statuses, &k)))
                return rc;
            ec->status = statuses[k];
        }
        if (ec->message && ec->message_contains)
            return gs_y_error(d, c, "%s: give message or messageContains, not both", cp);
    }
    e->nconditions = seq->n;
    return 0;
}

static int pod(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"pod",    "at",     "phase",           "node",       "message", "messageContains",
                                       "reason", "exists", "scheduledWithin", "conditions", "nominatedNodeName", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc || (rc = name(d, m, "pod", path, false, &e->name)) || (rc = phase(d, m, path, phases, e)))
        return rc;
    const struct gs_ynode *v = gs_y_get(m, "node");
    if (v && ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.node", path), &e->node)) ||
              (rc = gs_scn_check_node_name(d, v, p, e->node))))
        return rc;
    if ((rc = str(d, m, "message", path, &e->message)) ||
        (rc = str(d, m, "messageContains", path, &e->message_contains)) ||
        (rc = str(d, m, "reason", path, &e->reason)) ||
        (rc = boolean(d, m, "exists", path, &e->has_exists, &e->exists)) || (rc = conditions(d, m, path, e)) ||
        (rc = str(d, m, "nominatedNodeName", path, &e->nominated_node)))
        return rc;
    if ((v = gs_y_get(m, "scheduledWithin"))) {
        if ((rc = gs_y_duration(d, v, gs_scn_path(p, "%s.scheduledWithin", path), false, &e->scheduled_within)))
            return rc;
        e->has_scheduled_within = true;
    }
    return absence_alone(d, m, path, e);
}

#define SELECTOR_SHAPES "a labelSelector is a map of labels ({app: x}) or a LabelSelector ({matchLabels: {app: x}})"

/* pods.labelSelector: a plain map of labels, or the Kubernetes LabelSelector shape
 * {matchLabels: {...}} (matchExpressions are not supported yet). */
static int label_selector(struct gs_ydec *d, const struct gs_ynode *v, const char *path, struct gs_expect *e)
{
    char p[GS_SCN_PATH], got[32];
    if (v->type != GS_Y_MAP) {
        snprintf(got, sizeof got, "%s", v->type == GS_Y_SEQ ? "a sequence" : "a scalar");
        return gs_y_error(d, v, "expected a mapping at %s, got %s: " SELECTOR_SHAPES, path, got);
    }
    const struct gs_ynode *ml = gs_y_get(v, "matchLabels"), *me = gs_y_get(v, "matchExpressions");
    const struct gs_ynode *labels = v;
    const char *lpath = path;
    if (ml || me) {
        for (int i = 0; i < v->n; i++) {
            const struct gs_ynode *k = v->pairs[i].key;
            if (strcmp(k->text, "matchLabels") != 0 && strcmp(k->text, "matchExpressions") != 0)
                return gs_y_error(d, k,
                                  "unknown key '%.80s' in %s: a LabelSelector takes only matchLabels and "
                                  "matchExpressions (" SELECTOR_SHAPES ")",
                                  k->text, path);
        }
        if (me && !gs_y_is_null(me) && !(me->type == GS_Y_SEQ && me->n == 0))
            return gs_y_unsupported(d, me, gs_scn_path(p, "%s.matchExpressions", path));
        if (!ml || gs_y_is_null(ml))
            return 0;
        labels = ml;
        lpath = gs_scn_path(p, "%s.matchLabels", path);
        if (labels->type != GS_Y_MAP) {
            snprintf(got, sizeof got, "%s", labels->type == GS_Y_SEQ ? "a sequence" : "a scalar");
            return gs_y_error(d, labels, "expected a mapping of labels at %s, got %s", lpath, got);
        }
    } else {
        /* {matchLabel: {app: x}}: a misspelt LabelSelector, not labels. */
        static const char *const selector_keys[] = {"matchLabels", "matchExpressions", NULL};
        for (int i = 0; i < v->n; i++) {
            const struct gs_ynode *k = v->pairs[i].key, *x = v->pairs[i].value;
            if (x->type == GS_Y_SCALAR)
                continue;
            const char *near = gs_y_suggest(k->text, selector_keys);
            if (near)
                return gs_y_error(d, k, "unknown key '%.80s' in %s (did you mean '%s'?): " SELECTOR_SHAPES,
                                  k->text, path, near);
            return gs_y_error(d, x, "expected a string at %s.%.80s, got a %s: " SELECTOR_SHAPES, path, k->text,
                              x->type == GS_Y_MAP ? "mapping" : "sequence");
        }
    }
    int rc = gs_y_labels(d, labels, lpath, &e->label_selector);
    if (rc)
        return rc;
    for (int i = 0; i < labels->n; i++)
        if (!gs_scn_is_qualified_name(labels->pairs[i].key->text))
            return gs_y_error(d, labels->pairs[i].key,
                              "invalid label key '%.80s' in %s: must be a qualified name ([prefix/]name, such as "
                              "app or example.com/team)",
                              labels->pairs[i].key->text, lpath);
    return 0;
}

static int pods(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"pods", "at", "count", "min", "max", NULL};
    static const char *const filter_keys[] = {"phase",   "workload", "namePrefix",      "labelSelector",
                                              "node",    "message",  "messageContains", "reason",
                                              NULL};
    char p[GS_SCN_PATH], fp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *f = gs_y_get(m, "pods");
    gs_scn_path(fp, "%s.pods", path);
    /* `pods: {}` or `pods:` (null) counts every pod. */
    if (!gs_y_is_null(f)) {
        if ((rc = gs_y_check_map(d, f, fp, filter_keys, NULL, NULL)) || (rc = phase(d, f, fp, phases, e)) ||
            (rc = str(d, f, "workload", fp, &e->workload)) || (rc = str(d, f, "namePrefix", fp, &e->name_prefix)) ||
            (rc = str(d, f, "message", fp, &e->message)) ||
            (rc = str(d, f, "messageContains", fp, &e->message_contains)) || (rc = str(d, f, "reason", fp, &e->reason)))
            return rc;
        const struct gs_ynode *v = gs_y_get(f, "node");
        if (v && ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.node", fp), &e->node)) ||
                  (rc = gs_scn_check_node_name(d, v, p, e->node))))
            return rc;
        if ((v = gs_y_get(f, "labelSelector")) && !gs_y_is_null(v) &&
            (rc = label_selector(d, v, gs_scn_path(p, "%s.labelSelector", fp), e)))
            return rc;
    }
    if ((rc = bound(d, m, "count", path, &e->has_count, &e->count)) ||
        (rc = bound(d, m, "min", path, &e->has_min, &e->min)) || (rc = bound(d, m, "max", path, &e->has_max, &e->max)))
        return rc;
    if (!e->has_count && !e->has_min && !e->has_max)
        return gs_y_error(d, m, "%s needs a bound: count, min or max", path);
    if (e->has_count && (e->has_min || e->has_max))
        return gs_y_error(d, gs_y_get(m, "count"), "%s: give count, or min and/or max, not both", path);
    if (e->has_min && e->has_max && e->min > e->max)
        return gs_y_error(d, gs_y_get(m, "min"), "%s: min (%lld) is above max (%lld)", path, (long long)e->min,
                          (long long)e->max);
    return 0;
}

/* allocatable / capacity / labels: key -> string, null meaning absent. */
static int kv_map(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, bool quantities,
                  struct gs_expect_kv **out, int *nout)
{
    const struct gs_ynode *v = gs_y_get(m, key);
    if (!v)
        return 0;
    char p[GS_SCN_PATH], vp[GS_SCN_PATH];
    gs_scn_path(p, "%s.%s", path, key);
    int rc = gs_y_want_map(d, v, p);
    if (rc || v->n == 0)
        return rc;
    *out = gs_arena_alloc(d->arena, sizeof **out * (size_t)v->n);
    if (!*out)
        return nomem(d, v);
    for (int i = 0; i < v->n; i++) {
        const struct gs_ynode *k = v->pairs[i].key, *x = v->pairs[i].value;
        if (!gs_scn_is_qualified_name(k->text))
            return gs_y_error(d, k, "invalid %s '%s' in %s", quantities ? "resource name" : "label key", k->text, p);
        (*out)[i].key = k->text;
        (*out)[i].value = NULL;
        if (gs_y_is_null(x))
            continue;
        gs_scn_path(vp, "%s[%s]", p, k->text);
        if (quantities) {
            struct gs_quantity q;
            if ((rc = gs_y_quantity(d, x, vp, &q)))
                return rc;
        }
        if ((rc = gs_y_str(d, x, vp, &(*out)[i].value)))
            return rc;
    }
    *nout = v->n;
    return 0;
}

/* Pod STATUS words `kubectl get pods` prints (kubernetes pkg/printers/internalversion
 * printPod): the phase, a container's waiting or terminated reason, "Init:" plus an init
 * container's reason or "Init:<done>/<total>". */
static const char *const pod_statuses[] = {"Running",          "Pending",           "ContainerCreating",
                                           "PodInitializing",  "Completed",         "Error",
                                           "CrashLoopBackOff", "ImagePullBackOff",  "ErrImagePull",
                                           "Terminating",      "Unknown",           "Succeeded",
                                           "Failed",           "CreateContainerConfigError",
                                           "RunContainerError", NULL};

static bool in(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

/* "Init:2/4" (done <= total, total >= 1) or "Init:<reason>". */
static bool init_status_ok(const char *s)
{
    if (strncmp(s, "Init:", 5) != 0)
        return false;
    const char *r = s + 5;
    if (in(r, pod_statuses))
        return true;
    int done = 0, total = 0, nd = 0, nt = 0;
    while (*r >= '0' && *r <= '9' && nd < 3)
        done = done * 10 + (*r++ - '0'), nd++;
    if (nd == 0 || *r++ != '/')
        return false;
    while (*r >= '0' && *r <= '9' && nt < 3)
        total = total * 10 + (*r++ - '0'), nt++;
    return nt > 0 && *r == '\0' && total >= 1 && done < total;
}

/* operand: {<DaemonSet name>: <pod STATUS> | null}. */
static int operands(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    const struct gs_ynode *v = gs_y_get(m, "operand");
    if (!v)
        return 0;
    char p[GS_SCN_PATH], vp[GS_SCN_PATH];
    gs_scn_path(p, "%s.operand", path);
    int rc = gs_y_want_map(d, v, p);
    if (rc)
        return rc;
    if (v->n == 0)
        return gs_y_error(d, v, "%s is empty: give DaemonSet names and pod statuses, e.g. "
                                "{nvidia-driver-daemonset: Running}",
                          p);
    e->operands = gs_arena_alloc(d->arena, sizeof *e->operands * (size_t)v->n);
    if (!e->operands)
        return nomem(d, v);
    const char *names[GS_OPD_COUNT + 1];
    for (int i = 0; i < GS_OPD_COUNT; i++)
        names[i] = gs_operand_name((enum gs_operand)i);
    names[GS_OPD_COUNT] = NULL;
    for (int i = 0; i < v->n; i++) {
        const struct gs_ynode *k = v->pairs[i].key, *x = v->pairs[i].value;
        if (gs_operand_find(k->text) < 0) {
            const char *near = gs_y_suggest(k->text, names);
            if (near)
                return gs_y_error(d, k, "unknown operand '%.80s' in %s (did you mean '%s'?)", k->text, p, near);
            return gs_y_error(d, k,
                              "unknown operand '%.80s' in %s: expected a GPU Operator DaemonSet such as "
                              "nvidia-driver-daemonset, nvidia-device-plugin-daemonset or nvidia-operator-validator",
                              k->text, p);
        }
        e->operands[i].key = k->text;
        e->operands[i].value = NULL;
        if (gs_y_is_null(x))
            continue;
        gs_scn_path(vp, "%s[%s]", p, k->text);
        const char *st;
        if ((rc = gs_y_str(d, x, vp, &st)))
            return rc;
        if (!in(st, pod_statuses) && !init_status_ok(st)) {
            const char *near = gs_y_suggest(st, pod_statuses);
            if (near)
                return gs_y_error(d, x, "unknown pod status '%.60s' at %s (did you mean '%s'?)", st, vp, near);
            return gs_y_error(d, x,
                              "unknown pod status '%.60s' at %s: expected what kubectl get pods prints, e.g. "
                              "Running, Init:0/4, ImagePullBackOff or CrashLoopBackOff (null: no pod)",
                              st, vp);
        }
        e->operands[i].value = st;
    }
    e->noperands = v->n;
    return 0;
}

static int node(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"node",   "at",      "schedulable", "allocatable", "capacity",
                                       "labels", "operand", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc || (rc = name(d, m, "node", path, true, &e->name)) ||
        (rc = boolean(d, m, "schedulable", path, &e->has_schedulable, &e->schedulable)) ||
        (rc = kv_map(d, m, "allocatable", path, true, &e->allocatable, &e->nallocatable)) ||
        (rc = kv_map(d, m, "capacity", path, true, &e->capacity, &e->ncapacity)) ||
        (rc = kv_map(d, m, "labels", path, false, &e->labels, &e->nlabels)) || (rc = operands(d, m, path, e)))
        return rc;
    if (!e->has_schedulable && !gs_y_get(m, "allocatable") && !gs_y_get(m, "capacity") && !gs_y_get(m, "labels") &&
        !gs_y_get(m, "operand"))
        return gs_y_error(d, m, "%s checks nothing: give schedulable, allocatable, capacity, labels or operand",
                          path);
    return 0;
}

/* The kinds an object: check can name now, with their apiVersion (check.c eval_object). */
static const char *const object_kinds[] = {"Pod",           "Job",           "PriorityClass",
                                           "DaemonSet",     "Workload",      "ResourceClaim",
                                           "ResourceClaimTemplate", "ResourceSlice", "DeviceClass",
                                           NULL};
static const char *const object_api_versions[] = {"v1",       "batch/v1",           "scheduling.k8s.io/v1",
                                                  "apps/v1",  "kueue.x-k8s.io/v1beta1", "resource.k8s.io/v1",
                                                  "resource.k8s.io/v1", "resource.k8s.io/v1", "resource.k8s.io/v1"};
/* Kinds besides Pod whose conditions an object: check compares (check.c eval_object). */
static const char *const condition_kinds[] = {"Workload", NULL};
/* Kinds SCENARIO.md names that later gpusim releases model. */
static const char *const later_object_kinds[] = {
    "Deployment",    "PodGroup",     "LeaderWorkerSet", "ClusterQueue",
    "LocalQueue",  "ResourceFlavor", "Topology",    "ClusterPolicy", "Node",
    NULL};

static int object_kind(struct gs_ydec *d, const struct gs_ynode *ref, const char *rp, struct gs_expect *e)
{
    const struct gs_ynode *kn = gs_y_get(ref, "kind");
    char p[GS_SCN_PATH];
    for (int i = 0; object_kinds[i]; i++) {
        if (strcmp(e->obj_kind, object_kinds[i]) != 0)
            continue;
        if (e->obj_api_version && strcmp(e->obj_api_version, object_api_versions[i]) != 0)
            return gs_y_error(d, gs_y_get(ref, "apiVersion"),
                              "no kind \"%s\" in apiVersion \"%.80s\" at %s.apiVersion: use %s (or leave apiVersion "
                              "out)",
                              e->obj_kind, e->obj_api_version, rp, object_api_versions[i]);
        return 0;
    }
    if (in(e->obj_kind, later_object_kinds))
        return gs_y_unsupported(d, kn, gs_scn_path(p, "%s.kind (kind %.80s)", rp, e->obj_kind));
    const char *all[sizeof object_kinds / sizeof *object_kinds +
                    sizeof later_object_kinds / sizeof *later_object_kinds];
    int n = 0;
    for (int i = 0; object_kinds[i]; i++)
        all[n++] = object_kinds[i];
    for (int i = 0; later_object_kinds[i]; i++)
        all[n++] = later_object_kinds[i];
    all[n] = NULL;
    const char *near = gs_y_suggest(e->obj_kind, all);
    if (near)
        return gs_y_error(d, kn,
                          "unknown object kind '%.80s' at %s.kind (did you mean '%s'?): gpusim checks Pod, Job "
                          "(batch/v1), PriorityClass and DaemonSet (apps/v1) objects",
                          e->obj_kind, rp, near);
    return gs_y_error(d, kn,
                      "unknown object kind '%.80s' at %s.kind: gpusim checks Pod, Job (batch/v1), PriorityClass "
                      "and DaemonSet (apps/v1) objects",
                      e->obj_kind, rp);
}

/* A DaemonSet's status: desiredNumberScheduled and numberReady (apps/v1 DaemonSetStatus) are
 * compared; its other fields are not modelled yet. */
static int ds_status(struct gs_ydec *d, const struct gs_ynode *st, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"desiredNumberScheduled", "numberReady", NULL};
    static const char *const later[] = {"currentNumberScheduled", "numberAvailable", "numberUnavailable",
                                        "numberMisscheduled",     "updatedNumberScheduled", "observedGeneration",
                                        "collisionCount",         "conditions", NULL};
    char p[GS_SCN_PATH];
    gs_scn_path(p, "%s.status", path);
    int rc = gs_y_check_map(d, st, p, keys, later, NULL);
    if (rc || (rc = bound(d, st, "desiredNumberScheduled", p, &e->has_desired_scheduled, &e->desired_scheduled)) ||
        (rc = bound(d, st, "numberReady", p, &e->has_number_ready, &e->number_ready)))
        return rc;
    if (!e->has_desired_scheduled && !e->has_number_ready)
        return gs_y_error(d, st, "%s checks nothing: give desiredNumberScheduled or numberReady", p);
    return 0;
}

static int object(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"object", "at", "exists", "rejected", "message", "status", "conditions", NULL};
    /* spec subset matches and messageContains are not compared yet; status only for a
     * DaemonSet (ds_status). */
    static const char *const unsupported[] = {"spec", "messageContains", NULL};
    static const char *const ref_keys[] = {"kind", "name", "apiVersion", "namespace", NULL};
    static const char *const ref_required[] = {"kind", "name", NULL};
    char rp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, unsupported, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *ref = gs_y_get(m, "object");
    gs_scn_path(rp, "%s.object", path);
    if ((rc = gs_y_check_map(d, ref, rp, ref_keys, NULL, ref_required)) ||
        (rc = str(d, ref, "kind", rp, &e->obj_kind)) || (rc = str(d, ref, "apiVersion", rp, &e->obj_api_version)) ||
        (rc = object_kind(d, ref, rp, e)) || (rc = name(d, ref, "name", rp, false, &e->name)) ||
        (rc = str(d, ref, "namespace", rp, &e->obj_namespace)))
        return rc;
    const struct gs_ynode *st = gs_y_get(m, "status");
    if (st) {
        char sp[GS_SCN_PATH];
        if (strcmp(e->obj_kind, "ResourceClaim") == 0) {
            /* allocation and reservedFor (sim/scenario/dra.c) */
            if ((rc = gs_scn_dra_expect_status(d, st, gs_scn_path(sp, "%s.status", path), &e->dra_status)))
                return rc;
        } else {
            if (strcmp(e->obj_kind, "DaemonSet") != 0) {
                for (int i = 0; i < m->n; i++)
                    if (strcmp(m->pairs[i].key->text, "status") == 0)
                        return gs_y_unsupported(d, m->pairs[i].key, gs_scn_path(sp, "%s.status", path));
            }
            if ((rc = ds_status(d, st, path, e)))
                return rc;
        }
    }
    if ((rc = boolean(d, m, "exists", path, &e->has_exists, &e->exists)) ||
        (rc = boolean(d, m, "rejected", path, &e->has_rejected, &e->rejected)) ||
        (rc = str(d, m, "message", path, &e->message)) || (rc = conditions(d, m, path, e)))
        return rc;
    if (e->nconditions && strcmp(e->obj_kind, "Pod") != 0 && !in(e->obj_kind, condition_kinds)) {
        char cp[GS_SCN_PATH];
        return gs_y_unsupported(d, gs_y_get(m, "conditions"),
                                gs_scn_path(cp, "%s.conditions (kind %s)", path, e->obj_kind));
    }
    if (!e->has_exists && !e->has_rejected && !e->message && !st && !e->nconditions) {
        e->has_exists = true; /* `object: {...}` alone: it exists */
        e->exists = true;
    }
    return absence_alone(d, m, path, e);
}

/* The bound of a `metric:` or `stat:` check: equals, or min and/or max (min not above max);
 * numbers, or durations in seconds when `time` (10m, 90s; a bare 0 is 0s). */
static int bounds(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e, bool time)
{
    static const char *const bkeys[3] = {"equals", "min", "max"};
    bool *has[3] = {&e->has_equals, &e->has_mmin, &e->has_mmax};
    double *val[3] = {&e->equals, &e->mmin, &e->mmax};
    char p[GS_SCN_PATH];
    int rc;
    for (int i = 0; i < 3; i++) {
        const struct gs_ynode *v = gs_y_get(m, bkeys[i]);
        if (!v)
            continue;
        gs_scn_path(p, "%s.%s", path, bkeys[i]);
        if (time) {
            gs_time us;
            if ((rc = gs_y_duration(d, v, p, false, &us)))
                return rc;
            *val[i] = (double)us / 1e6;
        } else if ((rc = gs_y_double(d, v, p, val[i]))) {
            return rc;
        }
        *has[i] = true;
    }
    if (!e->has_equals && !e->has_mmin && !e->has_mmax)
        return gs_y_error(d, m, "%s needs a bound: equals, min or max", path);
    if (e->has_equals && (e->has_mmin || e->has_mmax))
        return gs_y_error(d, gs_y_get(m, "equals"), "%s: give equals, or min and/or max, not both", path);
    if (e->has_mmin && e->has_mmax && e->mmin > e->mmax)
        return gs_y_error(d, gs_y_get(m, "min"), "%s: min is above max", path);
    return 0;
}

static int metric(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"metric", "at", "from", "to", "equals", "min", "max", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(m, "metric");
    if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.metric", path), &e->name)))
        return rc;
    if (in(e->name, later_metrics))
        return gs_y_unsupported(d, v, gs_scn_path(p, "%s.metric (%s)", path, e->name));
    if (!in(e->name, metrics)) {
        const char *near = gs_y_suggest(e->name, metrics);
        if (near)
            return gs_y_error(d, v, "unknown metric '%.80s' at %s.metric (did you mean '%s'?)", e->name, path, near);
        char list[512];
        size_t len = 0;
        for (int i = 0; metrics[i] && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", metrics[i]);
        return gs_y_error(d, v, "unknown metric '%.80s' at %s.metric: expected one of %s", e->name, path, list);
    }
    const struct gs_ynode *from = gs_y_get(m, "from"), *to = gs_y_get(m, "to");
    if (from || to) {
        if (gs_y_get(m, "at"))
            return gs_y_error(d, gs_y_get(m, "at"), "%s takes at, or from/to, not both", path);
        e->has_window = true;
        e->from = 0;
        e->to = GS_TIME_MAX; /* to the end of the run */
        if (from && (rc = gs_y_duration(d, from, gs_scn_path(p, "%s.from", path), false, &e->from)))
            return rc;
        if (to && (rc = gs_y_duration(d, to, gs_scn_path(p, "%s.to", path), false, &e->to)))
            return rc;
        if (e->from > e->to)
            return gs_y_error(d, from, "%s: from is after to", path);
    }
    return bounds(d, m, path, e, false);
}

static int pod_group(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_expect *e)
{
    static const char *const keys[] = {"podGroup", "at", "phase", NULL};
    static const char *const required[] = {"phase", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc || (rc = name(d, m, "podGroup", path, false, &e->name)))
        return rc;
    return phase(d, m, path, group_phases, e);
}

/* stat: a study metric at the end of the run, e.g. {stat: 'p95(timeToSchedule)', max: 10m}. */
static int stat(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const struct gs_scenario *sc,
                struct gs_expect *e)
{
    static const char *const keys[] = {"stat", "equals", "min", "max", NULL};
    char p[GS_SCN_PATH];
    for (int i = 0; i < m->n; i++) {
        const char *k = m->pairs[i].key->text;
        if (strcmp(k, "at") == 0 || strcmp(k, "from") == 0 || strcmp(k, "to") == 0)
            return gs_y_error(d, m->pairs[i].key,
                              "%s: a stat: check is evaluated at the end of the run, over the whole run; '%s' is "
                              "not supported (use a metric: check for a sample at a time)",
                              path, k);
    }
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(m, "stat");
    const char *expr;
    if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.stat", path), &expr)))
        return rc;
    struct gs_objective *o = gs_arena_alloc(d->arena, sizeof *o);
    if (!o)
        return nomem(d, v);
    char why[512];
    if (gs_objective_parse(expr, o, why, sizeof why))
        return gs_y_error(d, v, "%s at %s.stat", why, path);
    if (o->scope == GS_OBJ_POOL) {
        bool found = false;
        for (int i = 0; i < sc->world.npools && !found; i++)
            found = strcmp(sc->world.pools[i].name, o->scope_value) == 0;
        if (!found) {
            char list[512];
            size_t len = 0;
            list[0] = '\0';
            for (int i = 0; i < sc->world.npools && len < sizeof list; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", sc->world.pools[i].name);
            return gs_y_error(d, v, "no node pool '%.80s' at %s.stat (pools: %s)", o->scope_value, path,
                              list[0] ? list : "none");
        }
    }
    e->objective = o;
    char canon[GS_OBJ_SCOPE_MAX + 64];
    gs_objective_format(o, canon, sizeof canon);
    if (!(e->name = gs_arena_strdup(d->arena, canon)))
        return nomem(d, v);
    return bounds(d, m, path, e, gs_objective_is_time(o));
}

/* A time of check `e` (at, from or to, at node `n`) must not be after the horizon. */
static int within_horizon(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *key,
                          gs_time t, const char *horizon_source, gs_time horizon)
{
    if (!n || !horizon_source || t <= horizon)
        return 0;
    char h[32];
    gs_duration_format(horizon, h, sizeof h);
    return gs_y_error(d, n, "%s: %s %.40s is after the horizon %s (%s): the run ends before it", path, key, n->text, h,
                      horizon_source);
}

static int expectation(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *horizon_source,
                       const struct gs_scenario *sc, struct gs_expect *e)
{
    char p[GS_SCN_PATH];
    int rc = gs_y_want_map(d, m, path);
    if (rc)
        return rc;
    e->line = m->line;
    e->col = m->col;
    /* `node:` is also what a pod expectation checks, so it names the kind only alone. */
    int found = -1;
    for (int i = 0; i < m->n; i++) {
        const char *k = m->pairs[i].key->text;
        for (int j = 0; kinds[j]; j++) {
            if (j == GS_EX_NODE || strcmp(k, kinds[j]) != 0)
                continue;
            if (found >= 0)
                return gs_y_error(d, m->pairs[i].key, "%s has both '%s' and '%s': one check per entry", path,
                                  kinds[found], k);
            found = j;
        }
    }
    if (found < 0 && gs_y_get(m, "node"))
        found = GS_EX_NODE;
    if (found < 0) {
        /* A misspelt kind ("pdo:") gets its suggestion. */
        for (int i = 0; i < m->n; i++) {
            const char *near = gs_y_suggest(m->pairs[i].key->text, kinds);
            if (near)
                return gs_y_error(d, m->pairs[i].key, "unknown key '%s' in %s (did you mean '%s'?)",
                                  m->pairs[i].key->text, path, near);
        }
        return gs_y_error(d, m, "%s says what to check with one of pod, pods, node, object, metric, podGroup or stat",
                          path);
    }
    e->kind = (enum gs_expect_kind)found;
    const struct gs_ynode *at = e->kind == GS_EX_STAT ? NULL : gs_y_get(m, "at");
    gs_time horizon = sc->horizon;
    if (at) {
        if ((rc = gs_y_duration(d, at, gs_scn_path(p, "%s.at", path), false, &e->at)))
            return rc;
        e->has_at = true;
    }
    switch (e->kind) {
    case GS_EX_POD:
        if ((rc = pod(d, m, path, e)))
            return rc;
        if (!e->has_phase && !e->node && !e->message && !e->message_contains && !e->reason && !e->has_exists &&
            !e->has_scheduled_within && !e->nconditions && !e->nominated_node) {
            e->has_exists = true; /* `pod: x` alone: it exists */
            e->exists = true;
        }
        break;
    case GS_EX_PODS:
        rc = pods(d, m, path, e);
        break;
    case GS_EX_NODE:
        rc = node(d, m, path, e);
        break;
    case GS_EX_OBJECT:
        rc = object(d, m, path, e);
        break;
    case GS_EX_METRIC:
        rc = metric(d, m, path, e);
        break;
    case GS_EX_POD_GROUP:
        rc = pod_group(d, m, path, e);
        break;
    case GS_EX_STAT:
        rc = stat(d, m, path, sc, e);
        break;
    }
    if (rc || (rc = within_horizon(d, at, path, "at", e->at, horizon_source, horizon)) ||
        (rc = within_horizon(d, gs_y_get(m, "from"), path, "from", e->from, horizon_source, horizon)) ||
        (rc = within_horizon(d, gs_y_get(m, "to"), path, "to", e->to, horizon_source, horizon)))
        return rc;
    /* The PASS/FAIL line's text, also when the run stops before the check. */
    char what[GS_EXPECT_WHAT_MAX];
    gs_expect_describe(e, what, sizeof what);
    e->what = gs_arena_strdup(d->arena, what);
    return e->what ? 0 : nomem(d, m);
}

int gs_scn_expect(struct gs_ydec *d, const struct gs_ynode *seq, const char *horizon_source, struct gs_scenario *sc)
{
    sc->expects = NULL;
    sc->nexpects = 0;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = gs_y_want_seq(d, seq, "spec.expect");
    if (rc || seq->n == 0)
        return rc;
    struct gs_expect *ex = gs_arena_alloc(d->arena, sizeof *ex * (size_t)seq->n);
    if (!ex)
        return nomem(d, seq);
    char path[GS_SCN_PATH];
    for (int i = 0; i < seq->n; i++)
        if ((rc = expectation(d, seq->items[i], gs_scn_path(path, "spec.expect[%d]", i), horizon_source, sc,
                              &ex[i])))
            return rc;
    sc->expects = ex;
    sc->nexpects = seq->n;
    return 0;
}

/* ------------------------------------------------------------------ descriptions */

/* A bounded appender for gs_expect_describe: `len` counts what was wanted (like snprintf). */
struct desc {
    char *buf;
    size_t n, len;
};

static void put(struct desc *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct desc *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->n ? o->n - o->len : 0;
    int k = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        o->len += (size_t)k;
}

static const char *dur(gs_time t, char *buf, size_t n)
{
    gs_duration_format(t, buf, n);
    return buf;
}

static void put_kvs(struct desc *o, const char *field, const struct gs_expect_kv *kv, int n)
{
    for (int i = 0; i < n; i++)
        put(o, " %s[%s]=%s", field, kv[i].key, kv[i].value ? kv[i].value : "null");
}

static void put_conditions(struct desc *o, const struct gs_expect *e)
{
    for (int i = 0; i < e->nconditions; i++) {
        const struct gs_expect_condition *c = &e->conditions[i];
        put(o, " condition %s", c->type);
        if (c->status)
            put(o, "=%s", c->status);
        if (c->reason)
            put(o, " (%s)", c->reason);
    }
}

int gs_expect_describe(const struct gs_expect *e, char *buf, size_t n)
{
    struct desc o = {.buf = buf, .n = n};
    char b1[32], b2[32];
    if (buf && n)
        buf[0] = '\0';
    put(&o, "%s", kinds[e->kind]);
    if (e->kind == GS_EX_OBJECT)
        put(&o, " %s/%s", e->obj_kind, e->name);
    else if (e->kind != GS_EX_PODS)
        put(&o, " %s", e->name);
    if (e->has_at)
        put(&o, " at %s", dur(e->at, b1, sizeof b1));
    if (e->has_window) {
        put(&o, " from %s", dur(e->from, b1, sizeof b1));
        if (e->to != GS_TIME_MAX)
            put(&o, " to %s", dur(e->to, b2, sizeof b2));
    }
    put(&o, ":");
    size_t head = o.len;
    switch (e->kind) {
    case GS_EX_POD:
        if (e->has_exists)
            put(&o, " exists %s", e->exists ? "true" : "false");
        if (e->has_phase)
            put(&o, " phase %s", gs_phase_name(e->phase));
        if (e->node)
            put(&o, " node %s", e->node);
        if (e->message)
            put(&o, " message");
        if (e->message_contains)
            put(&o, " messageContains");
        if (e->reason)
            put(&o, " reason %s", e->reason);
        if (e->has_scheduled_within)
            put(&o, " scheduledWithin %s", dur(e->scheduled_within, b1, sizeof b1));
        if (e->nominated_node)
            put(&o, " nominatedNodeName %s", e->nominated_node[0] ? e->nominated_node : "\"\"");
        put_conditions(&o, e);
        break;
    case GS_EX_PODS: {
        const char *sep = "";
        put(&o, " {");
        if (e->has_phase) {
            put(&o, "%sphase: %s", sep, gs_phase_name(e->phase));
            sep = ", ";
        }
        if (e->workload) {
            put(&o, "%sworkload: %s", sep, e->workload);
            sep = ", ";
        }
        if (e->name_prefix) {
            put(&o, "%snamePrefix: %s", sep, e->name_prefix);
            sep = ", ";
        }
        if (e->node) {
            put(&o, "%snode: %s", sep, e->node);
            sep = ", ";
        }
        if (e->message || e->message_contains) {
            put(&o, "%smessage", sep);
            sep = ", ";
        }
        if (e->reason) {
            put(&o, "%sreason: %s", sep, e->reason);
            sep = ", ";
        }
        if (e->label_selector.n)
            put(&o, "%slabelSelector", sep);
        put(&o, "}");
        if (e->has_count)
            put(&o, " count %lld", (long long)e->count);
        if (e->has_min)
            put(&o, " min %lld", (long long)e->min);
        if (e->has_max)
            put(&o, " max %lld", (long long)e->max);
        break;
    }
    case GS_EX_NODE:
        if (e->has_schedulable)
            put(&o, " schedulable %s", e->schedulable ? "true" : "false");
        put_kvs(&o, "allocatable", e->allocatable, e->nallocatable);
        put_kvs(&o, "capacity", e->capacity, e->ncapacity);
        put_kvs(&o, "labels", e->labels, e->nlabels);
        put_kvs(&o, "operand", e->operands, e->noperands);
        break;
    case GS_EX_OBJECT:
        if (e->has_exists)
            put(&o, " exists %s", e->exists ? "true" : "false");
        if (e->has_rejected)
            put(&o, " rejected %s", e->rejected ? "true" : "false");
        if (e->message)
            put(&o, " message");
        if (e->has_desired_scheduled)
            put(&o, " desiredNumberScheduled %lld", (long long)e->desired_scheduled);
        if (e->has_number_ready)
            put(&o, " numberReady %lld", (long long)e->number_ready);
        if (e->dra_status && e->dra_status->has_allocation)
            put(&o, " allocation%s", e->dra_status->allocation_null ? " null" : "");
        if (e->dra_status && e->dra_status->has_reserved)
            put(&o, " reservedFor %d", e->dra_status->nreserved);
        put_conditions(&o, e);
        break;
    case GS_EX_METRIC:
        if (e->has_equals)
            put(&o, " equals %g", e->equals);
        if (e->has_mmin)
            put(&o, " min %g", e->mmin);
        if (e->has_mmax)
            put(&o, " max %g", e->mmax);
        break;
    case GS_EX_POD_GROUP:
        if (e->has_phase)
            put(&o, " phase %s", gs_phase_name(e->phase));
        break;
    case GS_EX_STAT: {
        const char *const bn[3] = {"equals", "min", "max"};
        const bool has[3] = {e->has_equals, e->has_mmin, e->has_mmax};
        const double val[3] = {e->equals, e->mmin, e->mmax};
        bool time = e->objective && gs_objective_is_time(e->objective);
        for (int i = 0; i < 3; i++) {
            if (!has[i])
                continue;
            if (time)
                put(&o, " %s %s", bn[i], dur((gs_time)llround(val[i] * 1e6), b1, sizeof b1));
            else
                put(&o, " %s %g", bn[i], val[i]);
        }
        break;
    }
    }
    /* Nothing after the colon: drop it (no "pod x:: detail" on a FAIL line). */
    if (o.len == head && buf && head < n && head > 0) {
        buf[head - 1] = '\0';
        o.len = head - 1;
    }
    return (int)o.len;
}
