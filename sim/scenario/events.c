/* spec.events: timed actions on nodes and pods, sorted by time (document order on ties).
 *
 * GPU events (SCENARIO.md, issue 3):
 *   kernelPatch {pool, kernel, maxUnavailable, rebootDuration}: reboot the pool's nodes into
 *     `kernel`, at most maxUnavailable at a time (an int >= 1 or a percentage "25%", rounded up;
 *     default 1); rebootDuration (optional) overrides the timing profile's reboot step.
 *   xid {node, gpu, code}: Xid `code` (1..1023) on GPU `gpu` (0 .. the pool's gpu.count - 1).
 *   devicePluginRestart {node}: the device-plugin pod of the node restarts.
 *   precompiledImagePublished {kernel}: a precompiled driver image for `kernel` appears.
 *   driverUpgrade {version, maxParallelUpgrades, maxUnavailable, drain}: driver.version becomes
 *     `version` and the upgrade controller rolls it out with driver.upgradePolicy's fields
 *     (defaults as the chart: maxParallelUpgrades 1, maxUnavailable 25%, drain {enable: false,
 *     force: false, timeoutSeconds: 300, deleteEmptyDir: false}); needs spec.operator with the
 *     driver enabled. waitForCompletion, gpuPodDeletion/podDeletion, autoUpgrade and
 *     drain.podSelector are not supported yet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

#define GS_MAX_ADD_NODES 100000

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                        "out of memory");
}

/* The actions gpusim models, indexed by enum gs_sevent_kind (GS_SEVENT_KINDS, sim/scenario.h),
 * then those of SCENARIO.md that a later release models. */
static const char *const actions[] = {
#define GS_SEV_ACTION(name, action) [GS_SEV_##name] = action,
    GS_SEVENT_KINDS(GS_SEV_ACTION)
#undef GS_SEV_ACTION
    [GS_SEV_NKINDS] = NULL};
static const char *const later[] = {"operandFault", NULL};

const char *gs_sevent_kind_name(enum gs_sevent_kind k)
{
    return (int)k >= 0 && (int)k < GS_SEV_NKINDS ? actions[k] : NULL;
}

/* "cordon, uncordon, ... or schedulerRestart": every action, for the "no action" error. */
static const char *action_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int a = 0; a < GS_SEV_NKINDS && len < n; a++) {
        const char *sep = a == 0 ? "" : a == GS_SEV_NKINDS - 1 ? " or " : ", ";
        int w = snprintf(buf + len, n - len, "%s%s", sep, actions[a]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

static int node_action(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"node", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "node");
    gs_scn_path(p, "%s.node", path);
    if ((rc = gs_y_str(d, v, p, &ev->node)))
        return rc;
    /* The node may join later (addNodes), but it must be able to belong to a pool. */
    return gs_scn_check_node_name(d, v, p, ev->node);
}

/* The pool named by `v` (at `path`) into *pool. */
static int find_pool(struct gs_ydec *d, const struct gs_ynode *v, const char *path, int *pool)
{
    const char *name;
    int rc = gs_y_str(d, v, path, &name);
    if (rc)
        return rc;
    const struct gs_world *w = d->world;
    if ((rc = gs_scn_pool_by_name(d, v, name, pool)) || *pool >= 0)
        return rc;
    const char *names[65];
    int k = 0;
    for (int i = 0; i < w->npools && k < 64; i++)
        names[k++] = w->pools[i].name;
    names[k] = NULL;
    const char *near = gs_y_suggest(name, names);
    if (near)
        return gs_y_error(d, v, "unknown node pool '%s' at %s (did you mean '%s'?)", name, path, near);
    return gs_y_error(d, v, "unknown node pool '%s' at %s: pools are defined in spec.cluster.nodePools", name, path);
}

static int add_nodes(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"pool", "count", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc || (rc = find_pool(d, gs_y_get(n, "pool"), gs_scn_path(p, "%s.pool", path), &ev->pool)))
        return rc;
    int64_t c;
    if ((rc = gs_y_int(d, gs_y_get(n, "count"), gs_scn_path(p, "%s.count", path), 1, GS_MAX_ADD_NODES, &c)))
        return rc;
    ev->count = (int)c;
    return 0;
}

/* An IntOrString maxUnavailable: a plain integer >= 1 or a percentage string "1%".."100%". */
static int max_unavailable(struct gs_ydec *d, const struct gs_ynode *v, const char *path, int *value, bool *percent)
{
    if (v && v->type == GS_Y_SCALAR && v->plain && !gs_y_is_null(v) && !strchr(v->text, '%')) {
        int64_t x;
        int rc = gs_y_int(d, v, path, 1, 1000000, &x);
        if (rc)
            return rc;
        *value = (int)x;
        *percent = false;
        return 0;
    }
    const char *s;
    int rc = gs_y_str(d, v, path, &s);
    if (rc)
        return rc;
    size_t len = strlen(s);
    bool ok = len >= 2 && len <= 4 && s[len - 1] == '%';
    int x = 0;
    for (size_t i = 0; ok && i + 1 < len; i++) {
        ok = s[i] >= '0' && s[i] <= '9';
        x = x * 10 + (s[i] - '0');
    }
    if (!ok)
        return gs_y_error(d, v,
                          "invalid %s \"%.40s\": expected a number of nodes such as 2 or a percentage such as "
                          "\"25%%\"",
                          path, s);
    if (x < 1 || x > 100)
        return gs_y_error(d, v, "%s must be between 1%% and 100%%, got %s", path, s);
    *value = x;
    *percent = true;
    return 0;
}

static int kernel_patch(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"pool", "kernel", "maxUnavailable", "rebootDuration", NULL};
    static const char *const req[] = {"pool", "kernel", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, req);
    if (rc || (rc = find_pool(d, gs_y_get(n, "pool"), gs_scn_path(p, "%s.pool", path), &ev->pool)) ||
        (rc = gs_y_str(d, gs_y_get(n, "kernel"), gs_scn_path(p, "%s.kernel", path), &ev->kernel)))
        return rc;
    ev->max_unavailable = 1;
    ev->max_unavailable_percent = false;
    const struct gs_ynode *v;
    if ((v = gs_y_get(n, "maxUnavailable")) &&
        (rc = max_unavailable(d, v, gs_scn_path(p, "%s.maxUnavailable", path), &ev->max_unavailable,
                              &ev->max_unavailable_percent)))
        return rc;
    if ((v = gs_y_get(n, "rebootDuration"))) {
        if ((rc = gs_y_duration(d, v, gs_scn_path(p, "%s.rebootDuration", path), false, &ev->reboot_duration)))
            return rc;
        ev->has_reboot_duration = true;
    }
    return 0;
}

static int xid(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"node", "gpu", "code", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "node");
    gs_scn_path(p, "%s.node", path);
    int pi;
    if ((rc = gs_y_str(d, v, p, &ev->node)) || (rc = gs_scn_check_node_name(d, v, p, ev->node)) ||
        (rc = gs_scn_node_pool(d, v, ev->node, &pi)))
        return rc;
    const struct gs_pool *pool = &d->world->pools[pi];
    if (pool->gpu_count == 0)
        return gs_y_error(d, v, "node '%s' at %s has no GPUs (pool '%s' has no gpu:)", ev->node, p, pool->name);
    int64_t x;
    if ((rc = gs_y_int(d, gs_y_get(n, "gpu"), gs_scn_path(p, "%s.gpu", path), 0, pool->gpu_count - 1, &x)))
        return rc;
    ev->gpu = (int)x;
    if ((rc = gs_y_int(d, gs_y_get(n, "code"), gs_scn_path(p, "%s.code", path), 1, 1023, &x)))
        return rc;
    ev->code = (int)x;
    return 0;
}

static int image_published(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"kernel", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    return gs_y_str(d, gs_y_get(n, "kernel"), gs_scn_path(p, "%s.kernel", path), &ev->kernel);
}

static int driver_upgrade(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const struct gs_scenario *sc,
                          struct gs_sevent *ev)
{
    static const char *const keys[] = {"version", "maxParallelUpgrades", "maxUnavailable", "drain", NULL};
    static const char *const later[] = {"waitForCompletion", "gpuPodDeletion", "podDeletion", "autoUpgrade", NULL};
    static const char *const req[] = {"version", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, later, req);
    if (rc)
        return rc;
    if (!sc->op.enabled || !sc->op.driver_enabled)
        return gs_y_error(d, n,
                          "%s needs spec.operator with the driver enabled: the GPU Operator's upgrade controller "
                          "rolls the driver out",
                          path);
    const struct gs_ynode *v = gs_y_get(n, "version");
    if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.version", path), &ev->version)))
        return rc;
    if (!gs_scn_driver_version_ok(ev->version))
        return gs_y_error(d, v,
                          "invalid driver version \"%.60s\" at %s: expected a version such as \"550.90.07\" "
                          "(with usePrecompiled, a branch such as \"550\")",
                          ev->version, p);
    ev->max_parallel = 1;
    ev->max_unavailable = 25;
    ev->max_unavailable_percent = true;
    ev->drain_timeout = GS_SEC(300);
    int64_t x;
    if ((v = gs_y_get(n, "maxParallelUpgrades"))) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.maxParallelUpgrades", path), 0, 1000000, &x)))
            return rc;
        ev->max_parallel = (int)x;
    }
    if ((v = gs_y_get(n, "maxUnavailable")) &&
        (rc = max_unavailable(d, v, gs_scn_path(p, "%s.maxUnavailable", path), &ev->max_unavailable,
                              &ev->max_unavailable_percent)))
        return rc;
    if ((v = gs_y_get(n, "drain")) && !gs_y_is_null(v)) {
        static const char *const dkeys[] = {"enable", "force", "timeoutSeconds", "deleteEmptyDir", NULL};
        static const char *const dlater[] = {"podSelector", NULL};
        char dp[GS_SCN_PATH];
        gs_scn_path(dp, "%s.drain", path);
        if ((rc = gs_y_check_map(d, v, dp, dkeys, dlater, NULL)))
            return rc;
        const struct gs_ynode *f;
        if ((f = gs_y_get(v, "enable")) && (rc = gs_y_bool(d, f, gs_scn_path(p, "%s.enable", dp), &ev->drain)))
            return rc;
        if ((f = gs_y_get(v, "force")) && (rc = gs_y_bool(d, f, gs_scn_path(p, "%s.force", dp), &ev->drain_force)))
            return rc;
        if ((f = gs_y_get(v, "deleteEmptyDir")) &&
            (rc = gs_y_bool(d, f, gs_scn_path(p, "%s.deleteEmptyDir", dp), &ev->drain_delete_empty_dir)))
            return rc;
        if ((f = gs_y_get(v, "timeoutSeconds"))) {
            if ((rc = gs_y_int(d, f, gs_scn_path(p, "%s.timeoutSeconds", dp), 0, 100000000, &x)))
                return rc;
            ev->drain_timeout = GS_SEC(x);
        }
    }
    return 0;
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const struct gs_kv *)a)->key, ((const struct gs_kv *)b)->key);
}

static int label(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"node", "set", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "node");
    gs_scn_path(p, "%s.node", path);
    if ((rc = gs_y_str(d, v, p, &ev->node)) || (rc = gs_scn_check_node_name(d, v, p, ev->node)))
        return rc;
    const struct gs_ynode *set = gs_y_get(n, "set");
    gs_scn_path(p, "%s.set", path);
    if ((rc = gs_y_want_map(d, set, p)))
        return rc;
    if (set->n == 0)
        return gs_y_error(d, set, "%s is empty: give the labels to set (a null value removes one)", p);
    struct gs_kv *kv = gs_arena_alloc(d->arena, sizeof *kv * (size_t)set->n);
    if (!kv)
        return nomem(d, set);
    /* A value of null removes the label, so gs_labels_set (which stores "" for NULL) is not used. */
    for (int i = 0; i < set->n; i++) {
        const struct gs_ynode *k = set->pairs[i].key, *val = set->pairs[i].value;
        if (!gs_scn_is_qualified_name(k->text))
            return gs_y_error(d, k, "invalid label key '%s' in %s: must be a qualified name ([prefix/]name)", k->text,
                              p);
        kv[i].key = k->text;
        kv[i].value = NULL;
        if (gs_y_is_null(val))
            continue;
        char vp[GS_SCN_PATH];
        if ((rc = gs_y_str(d, val, gs_scn_path(vp, "%s.%s", p, k->text), &kv[i].value)))
            return rc;
        if (!gs_scn_is_label_value(kv[i].value))
            return gs_y_error(d, val,
                              "invalid label value '%s' at %s.%s: must be empty or at most 63 alphanumerics, "
                              "'-', '_' or '.', starting and ending with an alphanumeric",
                              kv[i].value, p, k->text);
    }
    qsort(kv, (size_t)set->n, sizeof *kv, cmp_kv);
    ev->set.kv = kv;
    ev->set.n = set->n;
    ev->set.cap = set->n;
    return 0;
}

static int delete_pod(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"pod", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "pod");
    if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.pod", path), &ev->pod)))
        return rc;
    if (!gs_scn_is_dns_subdomain(ev->pod))
        return gs_y_error(d, v, "invalid pod name '%s' at %s.pod: must be a DNS-1123 subdomain", ev->pod, path);
    return 0;
}

/* scale {kind, name, replicas}: kubectl scale through the scale subresource, which gpusim
 * models for LeaderWorkerSet (spec.replicas = groups). */
static int scale(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const struct gs_scenario *sc,
                 struct gs_sevent *ev)
{
    static const char *const keys[] = {"kind", "name", "replicas", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const char *kind, *name;
    int64_t replicas;
    const struct gs_ynode *kn = gs_y_get(n, "kind"), *nn = gs_y_get(n, "name");
    if ((rc = gs_y_str(d, kn, gs_scn_path(p, "%s.kind", path), &kind)) ||
        (rc = gs_y_str(d, nn, gs_scn_path(p, "%s.name", path), &name)) ||
        (rc = gs_y_int(d, gs_y_get(n, "replicas"), gs_scn_path(p, "%s.replicas", path), 0, 10000, &replicas)))
        return rc;
    if (strcmp(kind, "LeaderWorkerSet") != 0)
        return gs_y_unsupported(d, kn, gs_scn_path(p, "%s.kind: %s (gpusim scales LeaderWorkerSets)", path, kind));
    if ((rc = gs_scn_workload_by_name(d, nn, name, &ev->workload)))
        return rc;
    if (ev->workload >= 0 && sc->world.workloads[ev->workload].kind != GS_WL_LWS)
        ev->workload = -1;
    if (ev->workload < 0)
        return gs_y_error(d, nn, "no LeaderWorkerSet named '%s' in spec.workloads (at %s.name)", name, path);
    ev->replicas = (int)replicas;
    return 0;
}

/* schedulerRestart {schedulerName, downtime}: the profile's scheduler restarts. */
static int scheduler_restart(struct gs_ydec *d, const struct gs_ynode *n, const char *path,
                             const struct gs_scenario *sc, struct gs_sevent *ev)
{
    static const char *const keys[] = {"schedulerName", "downtime", NULL};
    char p[GS_SCN_PATH];
    if (gs_y_is_null(n))
        return 0;
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *v;
    if ((v = gs_y_get(n, "schedulerName"))) {
        const char *name;
        const char *want = sc->sched.scheduler_name ? sc->sched.scheduler_name : "default-scheduler";
        if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.schedulerName", path), &name)))
            return rc;
        if (strcmp(name, want) != 0)
            return gs_y_error(d, v, "no scheduler named '%s' at %s.schedulerName: the profile's is '%s'", name, path,
                              want);
    }
    if ((v = gs_y_get(n, "downtime")) &&
        (rc = gs_y_duration(d, v, gs_scn_path(p, "%s.downtime", path), false, &ev->downtime)))
        return rc;
    return 0;
}

static int event(struct gs_ydec *d, const struct gs_ynode *e, const char *path, const struct gs_scenario *sc,
                 struct gs_sevent *ev)
{
    /* The actions of a later release are refused as not supported yet. */
    const char *keys[GS_SEV_NKINDS + 2];
    int nk = 0;
    keys[nk++] = "at";
    for (int i = 0; actions[i]; i++)
        keys[nk++] = actions[i];
    keys[nk] = NULL;
    static const char *const required[] = {"at", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, later, required);
    if (rc)
        return rc;
    ev->line = e->line;
    ev->col = e->col;
    ev->pool = -1;
    if ((rc = gs_y_duration(d, gs_y_get(e, "at"), gs_scn_path(p, "%s.at", path), false, &ev->at)))
        return rc;
    int found = -1;
    const struct gs_ynode *action = NULL;
    for (int i = 0; i < e->n; i++) {
        const char *k = e->pairs[i].key->text;
        for (int a = 0; actions[a]; a++) {
            if (strcmp(k, actions[a]) != 0)
                continue;
            if (found >= 0)
                return gs_y_error(d, e->pairs[i].key, "%s has two actions, '%s' and '%s': give one per event",
                                  path, actions[found], k);
            found = a;
            action = e->pairs[i].value;
        }
    }
    if (found < 0) {
        char all[512];
        return gs_y_error(d, e, "%s has no action: give one of %s", path, action_list(all, sizeof all));
    }
    ev->kind = (enum gs_sevent_kind)found;
    gs_scn_path(p, "%s.%s", path, actions[found]);
    switch (ev->kind) {
    case GS_SEV_CORDON:
    case GS_SEV_UNCORDON:
    case GS_SEV_DRAIN:
    case GS_SEV_DELETE_NODE:
        return node_action(d, action, p, ev);
    case GS_SEV_ADD_NODES:
        return add_nodes(d, action, p, ev);
    case GS_SEV_LABEL:
        return label(d, action, p, ev);
    case GS_SEV_DELETE_POD:
        return delete_pod(d, action, p, ev);
    case GS_SEV_KERNEL_PATCH:
        return kernel_patch(d, action, p, ev);
    case GS_SEV_XID:
        return xid(d, action, p, ev);
    case GS_SEV_DEVICE_PLUGIN_RESTART:
        return node_action(d, action, p, ev);
    case GS_SEV_PRECOMPILED_IMAGE_PUBLISHED:
        return image_published(d, action, p, ev);
    case GS_SEV_DRIVER_UPGRADE:
        return driver_upgrade(d, action, p, sc, ev);
    case GS_SEV_SCALE:
        return scale(d, action, p, sc, ev);
    case GS_SEV_SCHEDULER_RESTART:
        return scheduler_restart(d, action, p, sc, ev);
    }
    return gs_y_error(d, e, "%s: unknown action", path);
}

/* Sort evs[0..n) by time, stably (equal times keep document order): a bottom-up merge sort
 * through `tmp` (n entries), O(n log n) whatever the order of the file. */
static void sort_by_time(struct gs_sevent *evs, struct gs_sevent *tmp, int n)
{
    struct gs_sevent *from = evs, *to = tmp;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = from[j].at < from[i].at ? from[j++] : from[i++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        struct gs_sevent *t = from;
        from = to;
        to = t;
    }
    if (from != evs)
        memcpy(evs, from, sizeof *evs * (size_t)n);
}

int gs_scn_events(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc)
{
    sc->events = NULL;
    sc->nevents = 0;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = gs_y_want_seq(d, seq, "spec.events");
    if (rc || seq->n == 0)
        return rc;
    struct gs_sevent *evs = gs_arena_alloc(d->arena, sizeof *evs * (size_t)seq->n);
    if (!evs)
        return nomem(d, seq);
    char path[GS_SCN_PATH];
    bool sorted = true;
    for (int i = 0; i < seq->n; i++) {
        if ((rc = event(d, seq->items[i], gs_scn_path(path, "spec.events[%d]", i), sc, &evs[i])))
            return rc;
        sorted = sorted && (i == 0 || evs[i - 1].at <= evs[i].at);
    }
    if (!sorted) {
        /* By time; equal times keep document order. */
        struct gs_sevent *tmp = gs_malloc(sizeof *tmp * (size_t)seq->n);
        if (!tmp)
            return nomem(d, seq);
        sort_by_time(evs, tmp, seq->n);
        gs_free(tmp);
    }
    sc->events = evs;
    sc->nevents = seq->n;
    return 0;
}
