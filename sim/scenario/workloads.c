/* spec.workloads: plain workloads (name, replicas, arrival, duration, group, template),
 * manifest entries (a v1 Pod or batch/v1 Job, inline or from a file next to the scenario) and
 * trace entries (a pod list file: sim/scenario/podtrace.c). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/strmap.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"
#include "sim/scenario/ydec_util.h"

#define GS_MAX_REPLICAS 1000000
#define GS_MAX_ARRIVALS INT_MAX

/* ------------------------------------------------------------------ arrival */

static int arrival(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_arrival *a)
{
    static const char *const keys[] = {"at", "stagger", "every", "count", "start", "process", "rate", NULL};
    static const char *const processes[] = {"poisson", NULL};
    char p[GS_SCN_PATH];
    a->kind = GS_ARRIVE_AT;
    a->start = 0;
    a->count = 1;
    a->stagger = 0;
    if (!n || gs_y_is_null(n))
        return 0; /* default: one arrival at 0s */
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *at = gs_y_get(n, "at"), *every = gs_y_get(n, "every"), *proc = gs_y_get(n, "process");
    const struct gs_ynode *count = gs_y_get(n, "count"), *start = gs_y_get(n, "start"), *r = gs_y_get(n, "rate");
    const struct gs_ynode *forms[3] = {at, every, proc};
    static const char *const form_names[3] = {"at", "every", "process"};
    int first = -1;
    for (int i = 0; i < 3; i++) {
        if (!forms[i])
            continue;
        if (first >= 0)
            return gs_y_error(d, forms[i], "%s takes one of at, every or process, not both '%s' and '%s'", path,
                              form_names[first], form_names[i]);
        first = i;
    }
    if (first < 0)
        return gs_y_error(d, n, "%s needs one of at (one arrival), every (periodic) or process (poisson)", path);
    const struct gs_ynode *stagger = gs_y_get(n, "stagger");
    if (stagger && (rc = gs_y_duration(d, stagger, gs_scn_path(p, "%s.stagger", path), false, &a->stagger)))
        return rc;
    if (at) {
        const struct gs_ynode *extra[3] = {count, start, r};
        static const char *const extra_names[3] = {"count", "start", "rate"};
        for (int i = 0; i < 3; i++)
            if (extra[i])
                return gs_y_error(d, extra[i], "'%s' in %s goes with every or process, not with at",
                                  extra_names[i], path);
        return gs_y_duration(d, at, gs_scn_path(p, "%s.at", path), false, &a->start);
    }
    if (!count)
        return gs_y_error(d, n, "missing required field 'count' in %s (the number of arrivals)", path);
    int64_t c;
    if ((rc = gs_y_int(d, count, gs_scn_path(p, "%s.count", path), 1, GS_MAX_ARRIVALS, &c)))
        return rc;
    a->count = (int)c;
    if (start && (rc = gs_y_duration(d, start, gs_scn_path(p, "%s.start", path), false, &a->start)))
        return rc;
    if (every) {
        if (r)
            return gs_y_error(d, r, "'rate' in %s goes with process: poisson, not with every", path);
        a->kind = GS_ARRIVE_EVERY;
        if ((rc = gs_y_duration(d, every, gs_scn_path(p, "%s.every", path), false, &a->every)))
            return rc;
        if (a->every <= 0)
            return gs_y_error(d, every, "%s.every must be longer than 0s", path);
        return 0;
    }
    int k;
    if ((rc = gs_y_enum(d, proc, gs_scn_path(p, "%s.process", path), processes, &k)))
        return rc;
    a->kind = GS_ARRIVE_POISSON;
    if (!r)
        return gs_y_error(d, n, "missing required field 'rate' in %s (such as 12/h)", path);
    return gs_y_rate(d, r, gs_scn_path(p, "%s.rate", path), "arrivals", "12/h, 0.5/m or 3/s", &a->rate_per_us);
}

/* ------------------------------------------------------------------ duration */

static int duration(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd)
{
    static const char *const keys[] = {"distribution", "value", "mean", "median", "sigma", NULL};
    static const char *const required[] = {"distribution", NULL};
    static const char *const dists[] = {"fixed", "exponential", "lognormal", NULL};
    /* The parameters each distribution takes. */
    static const char *const params[3][3] = {{"value", NULL, NULL}, {"mean", NULL, NULL}, {"median", "sigma", NULL}};
    char p[GS_SCN_PATH];
    dd->kind = GS_DIST_NONE;
    if (!n || gs_y_is_null(n))
        return 0; /* runs until deleted */
    int rc;
    if (n->type == GS_Y_SCALAR) {
        dd->kind = GS_DIST_FIXED;
        return gs_y_duration(d, n, path, false, &dd->fixed);
    }
    if ((rc = gs_y_check_map(d, n, path, keys, NULL, required)))
        return rc;
    int k;
    if ((rc = gs_y_enum(d, gs_y_get(n, "distribution"), gs_scn_path(p, "%s.distribution", path), dists, &k)))
        return rc;
    for (int i = 0; i < n->n; i++) {
        const char *key = n->pairs[i].key->text;
        if (strcmp(key, "distribution") == 0)
            continue;
        bool ok = false;
        for (int j = 0; params[k][j]; j++)
            ok = ok || strcmp(key, params[k][j]) == 0;
        if (!ok)
            return gs_y_error(d, n->pairs[i].key, "'%s' in %s does not go with distribution %s (it takes %s%s%s)",
                              key, path, dists[k], params[k][0], params[k][1] ? " and " : "",
                              params[k][1] ? params[k][1] : "");
    }
    for (int j = 0; params[k][j]; j++)
        if (!gs_y_get(n, params[k][j]))
            return gs_y_error(d, n, "missing required field '%s' in %s (distribution %s)", params[k][j], path,
                              dists[k]);
    switch (k) {
    case 0:
        dd->kind = GS_DIST_FIXED;
        return gs_y_duration(d, gs_y_get(n, "value"), gs_scn_path(p, "%s.value", path), false, &dd->fixed);
    case 1:
        dd->kind = GS_DIST_EXPONENTIAL;
        if ((rc = gs_y_duration(d, gs_y_get(n, "mean"), gs_scn_path(p, "%s.mean", path), false, &dd->mean)))
            return rc;
        if (dd->mean <= 0)
            return gs_y_error(d, gs_y_get(n, "mean"), "%s.mean must be longer than 0s", path);
        return 0;
    default:
        dd->kind = GS_DIST_LOGNORMAL;
        if ((rc = gs_y_duration(d, gs_y_get(n, "median"), gs_scn_path(p, "%s.median", path), false, &dd->median)))
            return rc;
        if (dd->median <= 0)
            return gs_y_error(d, gs_y_get(n, "median"), "%s.median must be longer than 0s", path);
        if ((rc = gs_y_double(d, gs_y_get(n, "sigma"), gs_scn_path(p, "%s.sigma", path), &dd->sigma)))
            return rc;
        if (dd->sigma < 0 || dd->sigma > 100)
            return gs_y_error(d, gs_y_get(n, "sigma"), "%s.sigma must be between 0 and 100", path);
        return 0;
    }
}

/* arrival, duration and startLatency: common to plain and manifest entries. */
static int timing(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_workload *w)
{
    char p[GS_SCN_PATH];
    int rc = arrival(d, gs_y_get(e, "arrival"), gs_scn_path(p, "%s.arrival", path), &w->arrival);
    if (rc)
        return rc;
    if ((rc = duration(d, gs_y_get(e, "duration"), gs_scn_path(p, "%s.duration", path), &w->duration)))
        return rc;
    w->start_latency = -1;
    w->group_timeout_us = -1;
    const struct gs_ynode *sl = gs_y_get(e, "startLatency");
    if (sl && !gs_y_is_null(sl))
        return gs_y_duration(d, sl, gs_scn_path(p, "%s.startLatency", path), false, &w->start_latency);
    return 0;
}

/* ------------------------------------------------------------------ entries */

static int plain(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_scenario *sc,
                 struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"name",         "replicas", "arrival",  "duration",
                                       "startLatency", "group",    "template", "priorityClassName",
                                       NULL};
    static const char *const required[] = {"name", "template", NULL};
    static const char *const group_keys[] = {"minMember", "scheduleTimeoutSeconds", NULL};
    static const char *const group_required[] = {"minMember", NULL};
    static const char *const group_unsupported[] = {"minResources", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *nn = gs_y_get(e, "name");
    if ((rc = gs_y_str(d, nn, gs_scn_path(p, "%s.name", path), &w->name)))
        return rc;
    if (!gs_scn_is_dns_label(w->name) || strlen(w->name) > 50)
        return gs_y_error(d, nn,
                          "invalid workload name '%s' at %s.name: must be a DNS-1123 label of at most 50 "
                          "characters (lowercase alphanumerics and '-'), as its pods are named <name>-<index>",
                          w->name, path);
    *name_node = nn;
    w->kind = GS_WL_PLAIN;
    w->replicas = 1;
    const struct gs_ynode *v;
    if ((v = gs_y_get(e, "replicas"))) {
        int64_t r;
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.replicas", path), 0, GS_MAX_REPLICAS, &r)))
            return rc;
        w->replicas = (int)r;
    }
    if ((rc = timing(d, e, path, w)))
        return rc;
    if ((v = gs_y_get(e, "group")) && !gs_y_is_null(v)) {
        char gp[GS_SCN_PATH];
        gs_scn_path(gp, "%s.group", path);
        if ((rc = gs_y_check_map(d, v, gp, group_keys, group_unsupported, group_required)))
            return rc;
        int64_t m;
        if ((rc = gs_y_int(d, gs_y_get(v, "minMember"), gs_scn_path(p, "%s.minMember", gp), 1, GS_MAX_REPLICAS,
                           &m)))
            return rc;
        w->group_min_member = (int)m;
        const struct gs_ynode *t = gs_y_get(v, "scheduleTimeoutSeconds");
        int64_t secs = 0;
        /* PodGroupSpec.ScheduleTimeoutSeconds is an *int32 of seconds. */
        if (t && !gs_y_is_null(t) &&
            (rc = gs_y_int(d, t, gs_scn_path(p, "%s.scheduleTimeoutSeconds", gp), 1, INT32_MAX, &secs)))
            return rc;
        w->group_timeout_us = t && !gs_y_is_null(t) ? secs * 1000000 : -1;
    }
    /* The pod named in admission messages: the first one the workload makes. */
    int64_t npods = (int64_t)w->replicas * w->arrival.count;
    const char *pod = npods == 1 ? w->name : gs_arena_printf(d->arena, "%s-0", w->name);
    if (!pod)
        return gs_y_nomem(d, e);
    /* priorityClassName on the entry: a shorthand for the template's (as the cases write it). */
    const struct gs_ynode *pcn = gs_y_get(e, "priorityClassName");
    const char *pc_name;
    if (!gs_y_is_null(pcn) && (rc = gs_y_kstr(d, pcn, gs_scn_path(p, "%s.priorityClassName", path), &pc_name)))
        return rc;
    struct gs_podspec_ctx c = {
        .path = gs_scn_path(p, "%s.template", path),
        .api_prefix = "spec.",
        .pod_name = pod,
        .scheduler_name = sc->sched.scheduler_name,
        .priority_class = gs_y_is_null(pcn) ? NULL : pcn,
    };
    return gs_scn_pod_template(d, gs_y_get(e, "template"), &c, &w->tmpl);
}

static int pod_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc,
                        struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const required[] = {"metadata", "spec", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *meta = gs_y_get(m, "metadata");
    gs_scn_path(p, "%s.metadata", path);
    if ((rc = gs_scn_metadata(d, meta, p, true, &w->name, name_node, &w->tmpl.labels, &w->tmpl.annotations)))
        return rc;
    if (!gs_scn_is_dns_subdomain(w->name))
        return gs_y_error(d, *name_node, "invalid Pod name '%s' at %s.name: must be a DNS-1123 subdomain", w->name,
                          p);
    if ((rc = gs_scn_kueue_queue_label(d, meta, p, w->name, sc)))
        return rc;
    w->kind = GS_WL_POD;
    w->api_kind = "Pod";
    w->api_group = "";
    w->replicas = 1;
    struct gs_podspec_ctx c = {
        .path = gs_scn_path(p, "%s.spec", path),
        .api_prefix = "spec.",
        .pod_name = w->name,
        .scheduler_name = sc->sched.scheduler_name,
    };
    return gs_scn_pod_spec(d, gs_y_get(m, "spec"), &c, &w->tmpl);
}

static int job_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc,
                        struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const required[] = {"metadata", "spec", NULL};
    static const char *const spec_keys[] = {"parallelism",
                                            "completions",
                                            "backoffLimit",
                                            "template",
                                            "completionMode",
                                            "activeDeadlineSeconds",
                                            "ttlSecondsAfterFinished",
                                            "suspend",
                                            "selector",
                                            "manualSelector",
                                            NULL};
    static const char *const spec_unsupported[] = {"podFailurePolicy",     "backoffLimitPerIndex", "maxFailedIndexes",
                                                   "podReplacementPolicy", "successPolicy",        "managedBy",
                                                   NULL};
    static const char *const spec_required[] = {"template", NULL};
    static const char *const modes[] = {"NonIndexed", "Indexed", NULL};
    char p[GS_SCN_PATH], sp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *meta = gs_y_get(m, "metadata");
    gs_scn_path(p, "%s.metadata", path);
    if ((rc = gs_scn_metadata(d, meta, p, true, &w->name, name_node, NULL, NULL)))
        return rc;
    if (!gs_scn_is_dns_subdomain(w->name) || strlen(w->name) > 63)
        return gs_y_error(d, *name_node,
                          "invalid Job name '%s' at %s.name: must be a DNS-1123 subdomain of at most 63 "
                          "characters (it becomes the job-name label of its pods)",
                          w->name, p);
    if ((rc = gs_scn_kueue_queue_label(d, meta, p, w->name, sc)))
        return rc;
    w->kind = GS_WL_JOB;
    w->api_kind = "Job";
    w->api_group = "batch";

    const struct gs_ynode *spec = gs_y_get(m, "spec");
    gs_scn_path(sp, "%s.spec", path);
    if ((rc = gs_y_check_map(d, spec, sp, spec_keys, spec_unsupported, spec_required)))
        return rc;
    /* pkg/apis/batch/v1/defaults.go SetDefaults_Job. */
    const struct gs_ynode *pn = gs_y_get(spec, "parallelism"), *cn = gs_y_get(spec, "completions");
    const struct gs_ynode *bn = gs_y_get(spec, "backoffLimit"), *v;
    if (pn && gs_y_is_null(pn))
        pn = NULL;
    if (cn && gs_y_is_null(cn))
        cn = NULL;
    int64_t x;
    w->parallelism = 1;
    w->completions = pn ? -1 : 1;
    w->backoff_limit = 6;
    if (pn) {
        if ((rc = gs_y_int(d, pn, gs_scn_path(p, "%s.parallelism", sp), 0, GS_MAX_REPLICAS, &x)))
            return rc;
        w->parallelism = (int)x;
    }
    if (cn) {
        if ((rc = gs_y_int(d, cn, gs_scn_path(p, "%s.completions", sp), 0, GS_MAX_REPLICAS, &x)))
            return rc;
        w->completions = (int)x;
    }
    if (bn && !gs_y_is_null(bn)) {
        if ((rc = gs_y_int(d, bn, gs_scn_path(p, "%s.backoffLimit", sp), 0, INT32_MAX, &x)))
            return rc;
        w->backoff_limit = (int)x;
    }
    if ((v = gs_y_get(spec, "completionMode")) && !gs_y_is_null(v)) {
        int mode;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.completionMode", sp), modes, &mode)))
            return rc;
    }
    if ((v = gs_y_get(spec, "suspend")) && !gs_y_is_null(v)) {
        bool b;
        if ((rc = gs_y_bool(d, v, gs_scn_path(p, "%s.suspend", sp), &b)))
            return rc;
        if (b)
            return gs_y_unsupported(d, v, gs_scn_path(p, "%s.suspend: true", sp));
    }
    /* The pods the controller makes at first: min(parallelism, completions). */
    w->replicas = w->completions >= 0 && w->completions < w->parallelism ? w->completions : w->parallelism;

    struct gs_podspec_ctx c = {
        .path = gs_scn_path(p, "%s.template", sp),
        .api_prefix = "spec.template.spec.",
        .pod_name = w->name,
        .scheduler_name = sc->sched.scheduler_name,
    };
    const struct gs_ynode *tmpl = gs_y_get(spec, "template");
    if ((rc = gs_scn_pod_template(d, tmpl, &c, &w->tmpl)))
        return rc;
    /* pkg/apis/batch/validation: a Job's pods restart OnFailure or Never; the Pod default,
     * Always, is refused. */
    if (c.restart_policy != GS_RESTART_ON_FAILURE && c.restart_policy != GS_RESTART_NEVER) {
        const struct gs_ynode *at = c.restart_policy_node ? c.restart_policy_node : gs_y_get(tmpl, "spec");
        return gs_y_error(d, at,
                          "%s.spec.restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", "
                          "\"Never\" (a Job's pods need restartPolicy OnFailure or Never%s)",
                          c.path, c.restart_policy_node ? "" : "; the Pod default is Always");
    }
    /* The Job controller labels its pods with the Job's name (uid labels are left out). */
    if (gs_labels_set(&w->tmpl.labels, d->arena, "batch.kubernetes.io/job-name", w->name) ||
        gs_labels_set(&w->tmpl.labels, d->arena, "job-name", w->name))
        return gs_y_nomem(d, m);
    return 0;
}

static int manifest(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_scenario *sc,
                    struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"manifest", "arrival", "duration", "startLatency", NULL};
    static const char *const later[] = {"Deployment", "ResourceClaimTemplate", NULL};
    static const char *const kinds[] = {"Pod",      "Job",      "Deployment",           "PodGroup",
                                        "LeaderWorkerSet", "ResourceClaimTemplate", NULL};
    char p[GS_SCN_PATH], mp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, NULL, NULL);
    if (rc)
        return rc;
    gs_scn_path(mp, "%s.manifest", path);
    const struct gs_ynode *m = gs_y_get(e, "manifest");
    if (m && m->type == GS_Y_SCALAR && !gs_y_is_null(m)) {
        /* A file, relative to the scenario's directory. */
        const char *file = m->text;
        if (!file[0])
            return gs_y_error(d, m, "%s is empty: give a file (relative to the scenario) or an inline object", mp);
        const char *full = file[0] == '/' || !d->dir || !d->dir[0] ? gs_arena_strdup(d->arena, file)
                                                                   : gs_arena_printf(d->arena, "%s/%s", d->dir, file);
        if (!full)
            return gs_y_nomem(d, m);
        struct gs_ynode *root = NULL;
        rc = gs_yaml_load_file(full, "a workload manifest", GS_SCN_MANIFEST_LIMIT, d->arena, &root, d->err);
        if (rc == GS_EIO) {
            char why[sizeof d->err->msg];
            snprintf(why, sizeof why, "%s", d->err->msg);
            return gs_y_error(d, m, "cannot read the manifest '%s' of %s: %s", file, path, why);
        }
        if (rc)
            return rc;
        if (!root || gs_y_is_null(root))
            return gs_y_error(d, m, "the manifest '%s' of %s is empty", file, path);
        m = root;
    }
    if ((rc = gs_y_want_map(d, m, mp)))
        return rc;
    const struct gs_ynode *av = gs_y_get(m, "apiVersion"), *kv = gs_y_get(m, "kind");
    const char *api, *kind;
    if (!kv)
        return gs_y_error(d, m, "missing required field 'kind' in %s", mp);
    if (!av)
        return gs_y_error(d, m, "missing required field 'apiVersion' in %s", mp);
    if ((rc = gs_y_kstr(d, kv, gs_scn_path(p, "%s.kind", mp), &kind)) ||
        (rc = gs_y_kstr(d, av, gs_scn_path(p, "%s.apiVersion", mp), &api)))
        return rc;
    for (int i = 0; later[i]; i++)
        if (strcmp(kind, later[i]) == 0)
            return gs_y_unsupported(d, kv, gs_scn_path(p, "%s kind %s", mp, kind));
    const char *want = strcmp(kind, "Pod") == 0               ? "v1"
                       : strcmp(kind, "Job") == 0             ? "batch/v1"
                       : strcmp(kind, "LeaderWorkerSet") == 0 ? "leaderworkerset.x-k8s.io/v1"
                       : strcmp(kind, "PodGroup") == 0        ? "scheduling.x-k8s.io/v1alpha1"
                                                               : NULL;
    if (!want) {
        const char *near = gs_y_suggest(kind, kinds);
        return gs_y_error(d, kv,
                          "unsupported manifest kind '%s' at %s.kind%s%s%s: a workload manifest is a v1 Pod, a "
                          "batch/v1 Job, a leaderworkerset.x-k8s.io/v1 LeaderWorkerSet or a "
                          "scheduling.x-k8s.io/v1alpha1 PodGroup (Deployment and ResourceClaimTemplate come in a "
                          "later release)",
                          kind, mp, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    }
    if (strcmp(api, want) != 0)
        return gs_y_error(d, av, "%s.apiVersion: kind %s is served as apiVersion %s, got '%s'", mp, kind, want, api);
    if ((rc = timing(d, e, path, w)))
        return rc;
    if (want[0] == 'l')
        return gs_scn_lws_manifest(d, m, mp, sc, w, name_node);
    if (want[0] == 's')
        return gs_scn_podgroup_manifest(d, m, mp, w, name_node);
    return want[0] == 'v' ? pod_manifest(d, m, mp, sc, w, name_node) : job_manifest(d, m, mp, sc, w, name_node);
}

/* True when `name` is "<prefix>-<digits>" for prefix `other`: its pods' names could collide. */
static bool pod_name_clash(const char *name, const char *other)
{
    size_t n = strlen(other);
    if (strncmp(name, other, n) != 0 || name[n] != '-' || !name[n + 1])
        return false;
    for (const char *q = name + n + 1; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    return true;
}

int gs_scn_workloads(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc)
{
    struct gs_world *w = &sc->world;
    /* Workloads spec.cluster.source made (a snapshot's pods) stay first. */
    struct gs_workload *pre = w->workloads;
    int npre = w->nworkloads;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = gs_y_want_seq(d, seq, "spec.workloads");
    if (rc || seq->n == 0)
        return rc;
    struct gs_workload *wl = gs_arena_alloc(d->arena, sizeof *wl * (size_t)seq->n);
    const struct gs_ynode **names = gs_arena_alloc(d->arena, sizeof *names * (size_t)seq->n);
    if (!wl || !names)
        return gs_y_nomem(d, seq);
    /* Names so far: spec.cluster.source's workload j -> j, this section's entry i -> npre + i. */
    struct gs_strmap index = {0};
    for (int j = 0; j < npre && !rc; j++)
        if (gs_strmap_add(&index, pre[j].name, j, NULL) < 0)
            rc = gs_y_nomem(d, seq);
    char path[GS_SCN_PATH];
    for (int i = 0; i < seq->n && !rc; i++) {
        const struct gs_ynode *e = seq->items[i];
        gs_scn_path(path, "spec.workloads[%d]", i);
        if ((rc = gs_y_want_map(d, e, path)))
            break;
        wl[i].src_line = e->line;
        if (gs_y_get(e, "trace"))
            rc = gs_scn_trace_workload(d, e, path, sc, &wl[i], &names[i]); /* sim/scenario/podtrace.c */
        else if (gs_y_get(e, "manifest"))
            rc = manifest(d, e, path, sc, &wl[i], &names[i]);
        else
            rc = plain(d, e, path, sc, &wl[i], &names[i]);
        if (rc)
            break;
        int j, added = gs_strmap_add(&index, wl[i].name, npre + i, &j);
        if (added < 0)
            rc = gs_y_nomem(d, seq);
        else if (added == 1 && j >= npre)
            rc = gs_y_error(d, names[i], "duplicate workload name '%s' in %s (also at line %d)", wl[i].name, path,
                            names[j - npre]->line);
        else if (added == 1)
            rc = gs_y_error(d, names[i], "duplicate workload name '%s' in %s: spec.cluster.source makes it",
                            wl[i].name, path);
    }
    /* Pods are named <workload>-<index>: a workload named like another's pods would share names.
     * Only the prefix before the last '-' can be that workload (the index has no '-'). */
    for (int i = 0; i < seq->n && !rc; i++) {
        const char *dash = strrchr(wl[i].name, '-');
        int j = dash ? gs_strmap_getn(&index, wl[i].name, (size_t)(dash - wl[i].name)) - npre : -1;
        if (j >= 0 && pod_name_clash(wl[i].name, wl[j].name))
            rc = gs_y_error(d, names[i],
                            "workload name '%s' in spec.workloads[%d] clashes with the pods of workload '%s' "
                            "(line %d), which are named %s-<index>",
                            wl[i].name, i, wl[j].name, names[j]->line, wl[j].name);
    }
    gs_strmap_free(&index);
    if (rc)
        return rc;
    if (npre) {
        if (GS_ARENA_GROW(d->arena, w->workloads, w->workloads_cap, npre + seq->n))
            return gs_y_nomem(d, seq);
        memcpy(w->workloads + npre, wl, sizeof *wl * (size_t)seq->n);
    } else {
        w->workloads = wl;
        w->workloads_cap = seq->n;
    }
    w->nworkloads = npre + seq->n;
    return 0;
}

int gs_scn_duration_dist(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd)
{
    return duration(d, n, path, dd);
}
