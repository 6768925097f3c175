/* A LeaderWorkerSet manifest (leaderworkerset.x-k8s.io/v1) as a workload: `replicas` groups of
 * `leaderWorkerTemplate.size` pods, one leader (leaderTemplate, or workerTemplate when absent)
 * and size-1 workers (workerTemplate). The controller's behaviour is in sim/controllers/lws.c.
 *
 * Follows kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go (defaults:
 * replicas 1, size 1, restartPolicy RecreateGroupOnPodRestart, startupPolicy LeaderCreated;
 * restartPolicy "Default" is the older name of None) and the webhook's validation (size >= 1). */
#include <string.h>

#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

static int template_at(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc,
                       const char *name, struct gs_pod_template *t)
{
    struct gs_podspec_ctx c = {
        .path = path,
        .api_prefix = "spec.leaderWorkerTemplate.workerTemplate.spec.",
        .pod_name = name,
        .scheduler_name = sc->sched.scheduler_name,
    };
    return gs_scn_pod_template(d, n, &c, t);
}

/* An IntOrString of rollingUpdateConfiguration: a non-negative integer or "<n>%". */
static int int_or_percent(struct gs_ydec *d, const struct gs_ynode *v, const char *path)
{
    int64_t x;
    if (gs_y_is_null(v))
        return 0;
    size_t n = v->type == GS_Y_SCALAR && v->text ? strlen(v->text) : 0;
    if (n > 1 && v->text[n - 1] == '%') {
        for (size_t i = 0; i + 1 < n; i++)
            if (v->text[i] < '0' || v->text[i] > '9')
                return gs_y_error(d, v, "invalid value '%s' at %s: expected an integer or a percentage such as "
                                        "\"25%%\"",
                                  v->text, path);
        return 0;
    }
    return gs_y_int(d, v, path, 0, INT32_MAX, &x);
}

/* spec.rolloutStrategy {type: RollingUpdate, rollingUpdateConfiguration: {maxUnavailable,
 * maxSurge, partition}}: checked, not acted on (gpusim does not roll out template changes). */
static int rollout(struct gs_ydec *d, const struct gs_ynode *n, const char *path)
{
    static const char *const keys[] = {"type", "rollingUpdateConfiguration", NULL};
    static const char *const rkeys[] = {"maxUnavailable", "maxSurge", "partition", NULL};
    static const char *const types[] = {"RollingUpdate", NULL};
    char p[GS_SCN_PATH], rp[GS_SCN_PATH];
    int rc, k;
    int64_t x;
    if (gs_y_is_null(n))
        return 0;
    if ((rc = gs_y_check_map(d, n, path, keys, NULL, NULL)))
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "type"), *r = gs_y_get(n, "rollingUpdateConfiguration");
    if (v && (rc = gs_y_enum(d, v, gs_scn_path(p, "%s.type", path), types, &k)))
        return rc;
    if (!r || gs_y_is_null(r))
        return 0;
    gs_scn_path(rp, "%s.rollingUpdateConfiguration", path);
    if ((rc = gs_y_check_map(d, r, rp, rkeys, NULL, NULL)))
        return rc;
    if (((v = gs_y_get(r, "maxUnavailable")) && (rc = int_or_percent(d, v, gs_scn_path(p, "%s.maxUnavailable", rp)))) ||
        ((v = gs_y_get(r, "maxSurge")) && (rc = int_or_percent(d, v, gs_scn_path(p, "%s.maxSurge", rp)))))
        return rc;
    if ((v = gs_y_get(r, "partition")) && !gs_y_is_null(v) &&
        (rc = gs_y_int(d, v, gs_scn_path(p, "%s.partition", rp), 0, INT32_MAX, &x)))
        return rc;
    return 0;
}

int gs_scn_lws_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc,
                        struct gs_workload *w, const struct gs_ynode **name_node)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
    static const char *const required[] = {"metadata", "spec", NULL};
    static const char *const spec_keys[] = {"replicas", "leaderWorkerTemplate", "startupPolicy", "rolloutStrategy",
                                            NULL};
    static const char *const spec_later[] = {"networkConfig", NULL};
    static const char *const spec_required[] = {"leaderWorkerTemplate", NULL};
    static const char *const lwt_keys[] = {"size", "leaderTemplate", "workerTemplate", "restartPolicy", NULL};
    static const char *const lwt_later[] = {"subGroupPolicy", "resizePolicy", NULL};
    static const char *const lwt_required[] = {"workerTemplate", NULL};
    static const char *const restart[] = {"RecreateGroupOnPodRestart", "None", "Default", NULL};
    static const char *const startup[] = {"LeaderCreated", "LeaderReady", NULL};
    char p[GS_SCN_PATH], sp[GS_SCN_PATH], lp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, m, path, keys, NULL, required);
    if (rc)
        return rc;
    gs_scn_path(p, "%s.metadata", path);
    if ((rc = gs_scn_metadata(d, gs_y_get(m, "metadata"), p, true, &w->name, name_node, NULL, NULL)))
        return rc;
    /* The leader pods are named <lws>-<group>, the workers <lws>-<group>-<index>. */
    if (!gs_scn_is_dns_label(w->name) || strlen(w->name) > 50)
        return gs_y_error(d, *name_node,
                          "invalid LeaderWorkerSet name '%s' at %s.name: must be a DNS-1123 label of at most 50 "
                          "characters (its pods are named <name>-<group>-<worker>)",
                          w->name, p);
    int rc2 = gs_scn_kueue_queue_label(d, gs_y_get(m, "metadata"), p, w->name, sc);
    if (rc2)
        return rc2;
    w->kind = GS_WL_LWS;
    w->api_kind = "LeaderWorkerSet";
    w->api_group = "leaderworkerset.x-k8s.io";

    const struct gs_ynode *spec = gs_y_get(m, "spec"), *v;
    gs_scn_path(sp, "%s.spec", path);
    if ((rc = gs_y_check_map(d, spec, sp, spec_keys, spec_later, spec_required)))
        return rc;
    int64_t x;
    w->replicas = 1;
    if ((v = gs_y_get(spec, "replicas")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.replicas", sp), 0, 10000, &x)))
            return rc;
        w->replicas = (int)x;
    }
    if ((v = gs_y_get(spec, "rolloutStrategy")) && (rc = rollout(d, v, gs_scn_path(p, "%s.rolloutStrategy", sp))))
        return rc;
    if ((v = gs_y_get(spec, "startupPolicy")) && !gs_y_is_null(v)) {
        int k;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.startupPolicy", sp), startup, &k)))
            return rc;
        w->lws_leader_ready = k == 1;
    }
    const struct gs_ynode *lwt = gs_y_get(spec, "leaderWorkerTemplate");
    gs_scn_path(lp, "%s.leaderWorkerTemplate", sp);
    if ((rc = gs_y_check_map(d, lwt, lp, lwt_keys, lwt_later, lwt_required)))
        return rc;
    w->lws_size = 1;
    if ((v = gs_y_get(lwt, "size")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.size", lp), 1, 1000, &x)))
            return rc;
        w->lws_size = (int)x;
    }
    w->lws_restart = GS_LWS_RECREATE_GROUP;
    if ((v = gs_y_get(lwt, "restartPolicy")) && !gs_y_is_null(v)) {
        int k;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.restartPolicy", lp), restart, &k)))
            return rc;
        w->lws_restart = k == 0 ? GS_LWS_RECREATE_GROUP : GS_LWS_RESTART_NONE;
    }
    if ((rc = template_at(d, gs_y_get(lwt, "workerTemplate"), gs_scn_path(p, "%s.workerTemplate", lp), sc, w->name,
                          &w->tmpl)))
        return rc;
    w->lws_leader_tmpl = &w->tmpl;
    if ((v = gs_y_get(lwt, "leaderTemplate")) && !gs_y_is_null(v)) {
        /* Kueue admits a group as one pod set; a leader of its own shape would be a second. */
        if (gs_y_get(gs_y_get(gs_y_get(m, "metadata"), "labels"), "kueue.x-k8s.io/queue-name"))
            return gs_y_unsupported(d, v, gs_scn_path(p, "%s.leaderTemplate (under Kueue)", lp));
        struct gs_pod_template *lt = gs_arena_alloc(d->arena, sizeof *lt);
        if (!lt)
            return gs_error_set(d->err, GS_ENOMEM, v->file, v->line, v->col, "out of memory");
        if ((rc = template_at(d, v, gs_scn_path(p, "%s.leaderTemplate", lp), sc, w->name, lt)))
            return rc;
        w->lws_leader_tmpl = lt;
    }
    return 0;
}
