/* The plugin registry, a profile's plugin sets, and NewFramework's expansion of a profile into
 * one table per extension point.
 *
 * Follows kubernetes pkg/scheduler/framework/plugins/registry.go (NewInTreeRegistry) and
 * names/names.go, framework/runtime/framework.go (NewFramework, getExtensionPoints,
 * updatePluginList, expandMultiPointPlugins, getScoreWeights) and apis/config/v1/defaults.go
 * (mergePlugins, mergePluginSet). Which points each plugin implements is what its upstream type
 * implements (pkg/scheduler/framework/plugins/..., scheduler-plugins pkg/coscheduling,
 * kubernetes-scheduler-simulator pkg/simulator/plugin); the modelled plugins' functions are in
 * plugins/.
 */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sched_internal.h"

#define B(pt) GS_EP_BIT(GS_EP_##pt)

/* The inert in-tree plugins: accepted and placed as a profile says, no function anywhere. */
#define INERT(var, nm, pid, pts) static const struct gs_sched_plugin var = {.name = nm, .id = pid, .points = pts}
INERT(scheduling_gates, "SchedulingGates", GS_PL_SCHEDULING_GATES, B(PRE_ENQUEUE));
INERT(node_ports, "NodePorts", GS_PL_NODE_PORTS, B(PRE_FILTER) | B(FILTER));
INERT(volume_restrictions, "VolumeRestrictions", GS_PL_VOLUME_RESTRICTIONS, B(PRE_FILTER) | B(FILTER));
INERT(ebs_limits, "EBSLimits", GS_PL_EBS_LIMITS, B(PRE_FILTER) | B(FILTER));
INERT(gce_pd_limits, "GCEPDLimits", GS_PL_GCE_PD_LIMITS, B(PRE_FILTER) | B(FILTER));
INERT(node_volume_limits, "NodeVolumeLimits", GS_PL_NODE_VOLUME_LIMITS, B(PRE_FILTER) | B(FILTER));
INERT(azure_disk_limits, "AzureDiskLimits", GS_PL_AZURE_DISK_LIMITS, B(PRE_FILTER) | B(FILTER));
INERT(volume_binding, "VolumeBinding", GS_PL_VOLUME_BINDING,
      B(PRE_FILTER) | B(FILTER) | B(RESERVE) | B(PRE_BIND) | B(PRE_SCORE) | B(SCORE));
INERT(volume_zone, "VolumeZone", GS_PL_VOLUME_ZONE, B(PRE_FILTER) | B(FILTER));
INERT(pod_topology_spread, "PodTopologySpread", GS_PL_POD_TOPOLOGY_SPREAD,
      B(PRE_FILTER) | B(FILTER) | B(PRE_SCORE) | B(SCORE));
INERT(inter_pod_affinity, "InterPodAffinity", GS_PL_INTER_POD_AFFINITY,
      B(PRE_FILTER) | B(FILTER) | B(PRE_SCORE) | B(SCORE));
INERT(image_locality, "ImageLocality", GS_PL_IMAGE_LOCALITY, B(SCORE));
/* In-tree names of other releases (CinderLimits before 1.28, NodeDeclaredFeatures and
 * GangScheduling after 1.35): accepted at any point, left out of every table. */
static const struct gs_sched_plugin cinder_limits = {.name = "CinderLimits", .id = -1, .flags = GS_PLF_IGNORED};
static const struct gs_sched_plugin node_declared_features = {.name = "NodeDeclaredFeatures", .id = -1,
                                                        .flags = GS_PLF_IGNORED};
static const struct gs_sched_plugin gang_scheduling = {.name = "GangScheduling", .id = -1, .flags = GS_PLF_IGNORED};

/* The registry, in enum gs_plugin order, then the ignored names. */
static const struct gs_sched_plugin *const registry[] = {
    &gs_plugin_node_unschedulable,
    &gs_plugin_node_name,
    &gs_plugin_taint_toleration,
    &gs_plugin_node_affinity,
    &gs_plugin_node_resources_fit,
    &gs_plugin_dynamic_resources,
    &gs_plugin_balanced_allocation,
    &gs_plugin_default_preemption,
    &gs_plugin_coscheduling,
    &gs_plugin_random_score,
    &gs_plugin_dot_product_score,
    &gs_plugin_gpu_clustering_score,
    &gs_plugin_gpu_packing_score,
    &gs_plugin_best_fit_score,
    &gs_plugin_fgd_score,
    &gs_plugin_open_gpu_share,
    &gs_plugin_priority_sort,
    &gs_plugin_default_binder,
    &scheduling_gates,
    &node_ports,
    &volume_restrictions,
    &ebs_limits,
    &gce_pd_limits,
    &node_volume_limits,
    &azure_disk_limits,
    &volume_binding,
    &volume_zone,
    &pod_topology_spread,
    &inter_pod_affinity,
    &image_locality,
    &cinder_limits,
    &node_declared_features,
    &gang_scheduling,
};
#define NREGISTRY ((int)(sizeof registry / sizeof registry[0]))

const struct gs_sched_plugin *gs_plugin_lookup(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < NREGISTRY; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const struct gs_sched_plugin *gs_plugin_by_id(int id)
{
    if (id < 0 || id >= GS_PL_COUNT)
        return NULL;
    const struct gs_sched_plugin *p = registry[id];
    GS_ASSERT(p->id == id);
    return p;
}

int gs_plugin_registry(const struct gs_sched_plugin *const **out)
{
    *out = registry;
    return NREGISTRY;
}

bool gs_plugin_implements(const struct gs_sched_plugin *p, enum gs_ext_point pt)
{
    return (p->points & GS_EP_BIT(pt)) != 0;
}

bool gs_plugin_acts_at(const struct gs_sched_plugin *p, enum gs_ext_point pt)
{
    switch (pt) {
    case GS_EP_PRE_ENQUEUE:
    case GS_EP_POST_BIND:
        return false; /* no plugin gpusim models acts there */
    case GS_EP_QUEUE_SORT:
        return p->sort_key != NULL;
    case GS_EP_PRE_FILTER:
        return p->pre_filter != NULL;
    case GS_EP_FILTER:
        return p->filter != NULL;
    case GS_EP_POST_FILTER:
        return p->post_filter != NULL;
    case GS_EP_PRE_SCORE:
        return p->pre_score != NULL;
    case GS_EP_SCORE:
        return p->score != NULL;
    case GS_EP_RESERVE:
        return p->reserve != NULL || p->unreserve != NULL;
    case GS_EP_PERMIT:
        return p->permit != NULL;
    case GS_EP_PRE_BIND:
        return p->pre_bind != NULL;
    case GS_EP_BIND:
        return p->bind != NULL;
    case GS_EP_COUNT:
        break;
    }
    return false;
}

const char *gs_plugin_name(enum gs_plugin p)
{
    const struct gs_sched_plugin *pl = gs_plugin_by_id((int)p);
    return pl ? pl->name : "Unknown";
}

int gs_plugin_find(const char *name)
{
    const struct gs_sched_plugin *p = gs_plugin_lookup(name);
    return p ? p->id : -1;
}

bool gs_plugin_is_modelled(enum gs_plugin p)
{
    return (unsigned)p < GS_PL_MODELLED;
}

static const char *const point_keys[GS_EP_COUNT] = {
    "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",
    "score",      "reserve",   "permit",    "preBind", "bind",      "postBind"};
static const char *const point_ifaces[GS_EP_COUNT] = {
    "PreEnqueuePlugin", "QueueSortPlugin", "PreFilterPlugin", "FilterPlugin", "PostFilterPlugin", "PreScorePlugin",
    "ScorePlugin",      "ReservePlugin",   "PermitPlugin",    "PreBindPlugin", "BindPlugin",      "PostBindPlugin"};

const char *gs_ext_point_key(enum gs_ext_point pt)
{
    return (unsigned)pt < GS_EP_COUNT ? point_keys[pt] : "multiPoint";
}

const char *gs_ext_point_interface(enum gs_ext_point pt)
{
    return (unsigned)pt < GS_EP_COUNT ? point_ifaces[pt] : "Plugin";
}

/* ------------------------------------------------------------------ plugin sets */

int gs_plugin_set_enable(struct gs_plugin_set *set, const char *name, int32_t weight, int32_t tag)
{
    if (set->nenabled >= GS_SCHED_MAX_SET)
        return GS_ERANGE;
    set->enabled[set->nenabled++] = (struct gs_plugin_ref){.name = name, .weight = weight, .tag = tag};
    return 0;
}

int gs_plugin_set_disable(struct gs_plugin_set *set, const char *name, int32_t tag)
{
    if (set->ndisabled >= GS_SCHED_MAX_SET)
        return GS_ERANGE;
    set->disabled[set->ndisabled++] = (struct gs_plugin_ref){.name = name, .weight = 0, .tag = tag};
    return 0;
}

static int find_ref(const struct gs_plugin_ref *refs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(refs[i].name, name) == 0)
            return i;
    return -1;
}

bool gs_plugin_set_has(const struct gs_plugin_set *set, const char *name)
{
    return find_ref(set->enabled, set->nenabled, name) >= 0;
}

void gs_plugin_set_remove(struct gs_plugin_set *set, const char *name)
{
    int k = 0;
    for (int i = 0; i < set->nenabled; i++)
        if (strcmp(set->enabled[i].name, name) != 0)
            set->enabled[k++] = set->enabled[i];
    set->nenabled = k;
}

/* mergePluginSet(def, custom) into *out (which may be def). */
static int merge_set(struct gs_plugin_set *out, const struct gs_plugin_set *def, const struct gs_plugin_set *custom)
{
    struct gs_plugin_set r;
    r.nenabled = 0;
    r.ndisabled = custom->ndisabled;
    memcpy(r.disabled, custom->disabled, sizeof r.disabled[0] * (size_t)custom->ndisabled);
    bool replaced[GS_SCHED_MAX_SET] = {false};
    if (find_ref(custom->disabled, custom->ndisabled, "*") < 0) {
        for (int i = 0; i < def->nenabled; i++) {
            struct gs_plugin_ref e = def->enabled[i];
            if (find_ref(custom->disabled, custom->ndisabled, e.name) >= 0)
                continue;
            /* The default plugin explicitly re-configured: the last such entry replaces it in
             * place (its weight with it), to keep the order. */
            int last = -1;
            for (int j = 0; j < custom->nenabled; j++)
                if (strcmp(custom->enabled[j].name, e.name) == 0)
                    last = j;
            if (last >= 0) {
                e = custom->enabled[last];
                replaced[last] = true;
            }
            r.enabled[r.nenabled++] = e;
        }
    }
    for (int j = 0; j < custom->nenabled; j++) {
        if (replaced[j])
            continue;
        if (r.nenabled >= GS_SCHED_MAX_SET)
            return GS_ERANGE;
        r.enabled[r.nenabled++] = custom->enabled[j];
    }
    *out = r;
    return 0;
}

int gs_sched_plugins_merge(struct gs_sched_plugins *dst, const struct gs_sched_plugins *custom)
{
    if (merge_set(&dst->multi_point, &dst->multi_point, &custom->multi_point))
        return GS_ERANGE;
    for (int pt = 0; pt < GS_EP_COUNT; pt++)
        if (merge_set(&dst->point[pt], &dst->point[pt], &custom->point[pt]))
            return GS_ERANGE;
    return 0;
}

/* ------------------------------------------------------------------ NewFramework */

/* getExtensionPoints' order: the order NewFramework builds (and reports errors in). */
static const enum gs_ext_point build_order[GS_EP_COUNT] = {
    GS_EP_PRE_FILTER, GS_EP_FILTER,   GS_EP_POST_FILTER, GS_EP_RESERVE, GS_EP_PRE_SCORE,  GS_EP_SCORE,
    GS_EP_PRE_BIND,   GS_EP_BIND,     GS_EP_POST_BIND,   GS_EP_PERMIT,  GS_EP_PRE_ENQUEUE, GS_EP_QUEUE_SORT};

static int fail(struct gs_profile_error *err, enum gs_profile_errcode code, int set, int index, int32_t tag,
                const char *name, const char *fmt, const char *a, const char *b)
{
    if (err) {
        err->code = code;
        err->set = set;
        err->index = index;
        err->tag = tag;
        err->count = 0;
        err->name = name;
        snprintf(err->msg, sizeof err->msg, fmt, a, b);
    }
    return GS_EINVAL;
}

static int in_list(const struct gs_sched_plugin *const *l, int n, const struct gs_sched_plugin *p)
{
    for (int i = 0; i < n; i++)
        if (l[i] == p)
            return i;
    return -1;
}

int gs_sched_expand(const struct gs_sched_config *c, struct gs_expanded *x, struct gs_profile_error *err)
{
    const struct gs_sched_plugins *pl = &c->plugins;
    const char *sname = c->scheduler_name ? c->scheduler_name : "default-scheduler";
    memset(x, 0, sizeof *x);
    if (err) {
        memset(err, 0, sizeof *err);
        err->set = err->index = err->tag = -1;
    }
    /* updatePluginList: each point's own enabled list. */
    for (int o = 0; o < GS_EP_COUNT; o++) {
        enum gs_ext_point pt = build_order[o];
        const struct gs_plugin_set *set = &pl->point[pt];
        for (int i = 0; i < set->nenabled; i++) {
            const struct gs_plugin_ref *e = &set->enabled[i];
            const struct gs_sched_plugin *p = gs_plugin_lookup(e->name);
            if (!p)
                return fail(err, GS_PROFILE_UNKNOWN_PLUGIN, pt, i, e->tag, e->name, "%s \"%s\" does not exist",
                            point_ifaces[pt], e->name);
            if (p->flags & GS_PLF_IGNORED)
                continue;
            if (!gs_plugin_implements(p, pt))
                return fail(err, GS_PROFILE_NOT_EXTENDED, pt, i, e->tag, e->name,
                            "plugin \"%s\" does not extend %s plugin", e->name, point_ifaces[pt]);
            if (in_list(x->p[pt], x->n[pt], p) >= 0)
                return fail(err, GS_PROFILE_DUPLICATE, pt, i, e->tag, e->name,
                            "plugin \"%s\" already registered as \"%s\"", e->name, point_ifaces[pt]);
            x->p[pt][x->n[pt]++] = p;
        }
    }
    /* expandMultiPointPlugins. */
    const struct gs_plugin_set *mp = &pl->multi_point;
    if (mp->nenabled > 0) {
        for (int o = 0; o < GS_EP_COUNT; o++) {
            enum gs_ext_point pt = build_order[o];
            const struct gs_plugin_set *set = &pl->point[pt];
            if (find_ref(set->disabled, set->ndisabled, "*") >= 0)
                continue;
            const struct gs_sched_plugin *over[GS_SCHED_MAX_TABLE], *mpe[GS_SCHED_MAX_TABLE];
            int nover = 0, nmp = 0;
            for (int i = 0; i < mp->nenabled; i++) {
                const struct gs_plugin_ref *e = &mp->enabled[i];
                const struct gs_sched_plugin *p = gs_plugin_lookup(e->name);
                if (!p)
                    return fail(err, GS_PROFILE_UNKNOWN_PLUGIN, GS_EP_COUNT, i, e->tag, e->name,
                                "%s \"%s\" does not exist", point_ifaces[pt], e->name);
                if ((p->flags & GS_PLF_IGNORED) || !gs_plugin_implements(p, pt) ||
                    find_ref(set->disabled, set->ndisabled, e->name) >= 0)
                    continue;
                if (in_list(x->p[pt], x->n[pt], p) >= 0) {
                    /* Enabled at the point too: the point's entry overrides multiPoint's. */
                    if (in_list(over, nover, p) < 0)
                        over[nover++] = p;
                    continue;
                }
                if (in_list(mpe, nmp, p) >= 0)
                    return fail(err, GS_PROFILE_DUPLICATE, GS_EP_COUNT, i, e->tag, e->name,
                                "plugin \"%s\" already registered as \"%s\"", e->name, point_ifaces[pt]);
                mpe[nmp++] = p;
            }
            /* The overridden ones (in the point's order), multiPoint's, then the point's others. */
            const struct gs_sched_plugin *merged[GS_SCHED_MAX_TABLE];
            int n = 0;
            for (int i = 0; i < x->n[pt]; i++)
                if (in_list(over, nover, x->p[pt][i]) >= 0)
                    merged[n++] = x->p[pt][i];
            for (int i = 0; i < nmp; i++)
                merged[n++] = mpe[i];
            for (int i = 0; i < x->n[pt]; i++)
                if (in_list(over, nover, x->p[pt][i]) < 0)
                    merged[n++] = x->p[pt][i];
            memcpy(x->p[pt], merged, sizeof merged[0] * (size_t)n);
            x->n[pt] = n;
        }
    }
    /* The always-on plugins: last at every point they act at, whatever the profile says. */
    for (int r = 0; r < NREGISTRY; r++) {
        const struct gs_sched_plugin *p = registry[r];
        if (!(p->flags & GS_PLF_ALWAYS))
            continue;
        for (int pt = 0; pt < GS_EP_COUNT; pt++) {
            if (!gs_plugin_acts_at(p, (enum gs_ext_point)pt))
                continue;
            int at = in_list(x->p[pt], x->n[pt], p);
            if (at >= 0) {
                memmove(&x->p[pt][at], &x->p[pt][at + 1], sizeof x->p[pt][0] * (size_t)(x->n[pt] - at - 1));
                x->n[pt]--;
            }
            x->p[pt][x->n[pt]++] = p;
        }
    }
    if (x->n[GS_EP_QUEUE_SORT] != 1) {
        char count[16];
        snprintf(count, sizeof count, "%d", x->n[GS_EP_QUEUE_SORT]);
        fail(err, GS_PROFILE_QUEUE_SORT_COUNT, -1, -1, -1, NULL,
             "only one queue sort plugin required for profile with scheduler name \"%s\", but got %s", sname, count);
        if (err)
            err->count = x->n[GS_EP_QUEUE_SORT];
        return GS_EINVAL;
    }
    if (x->n[GS_EP_BIND] == 0)
        return fail(err, GS_PROFILE_NO_BIND, -1, -1, -1, NULL,
                    "at least one bind plugin is needed for profile with scheduler name \"%s\"%s", sname, "");
    /* getScoreWeights: score's own entries first, then multiPoint's; unset weights are 1. (The
     * overflow check cannot fire: weights are int32 and the plugins fewer than 2^31 / 100.) */
    for (int i = 0; i < x->n[GS_EP_SCORE]; i++) {
        const struct gs_sched_plugin *p = x->p[GS_EP_SCORE][i];
        int k = find_ref(pl->point[GS_EP_SCORE].enabled, pl->point[GS_EP_SCORE].nenabled, p->name);
        int32_t w = k >= 0 ? pl->point[GS_EP_SCORE].enabled[k].weight : 0;
        if (k < 0) {
            k = find_ref(mp->enabled, mp->nenabled, p->name);
            w = k >= 0 ? mp->enabled[k].weight : 0;
        }
        x->weight[GS_EP_SCORE][i] = w ? w : 1;
    }
    return 0;
}

/* The point that decides filter_enabled[p] in the summary. */
static enum gs_ext_point primary_point(const struct gs_sched_plugin *p)
{
    static const enum gs_ext_point order[] = {GS_EP_FILTER, GS_EP_POST_FILTER, GS_EP_QUEUE_SORT,
                                              GS_EP_PRE_ENQUEUE, GS_EP_BIND, GS_EP_SCORE};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (gs_plugin_implements(p, order[i]))
            return order[i];
    return GS_EP_FILTER;
}

int gs_sched_config_resolve(struct gs_sched_config *c, struct gs_profile_error *err)
{
    struct gs_expanded x;
    int rc = gs_sched_expand(c, &x, err);
    if (rc)
        return rc;
    memset(c->filter_enabled, 0, sizeof c->filter_enabled);
    memset(c->score_enabled, 0, sizeof c->score_enabled);
    memset(c->score_weight, 0, sizeof c->score_weight);
    for (int id = 0; id < GS_PL_COUNT; id++) {
        const struct gs_sched_plugin *p = gs_plugin_by_id(id);
        enum gs_ext_point pt = primary_point(p);
        c->filter_enabled[id] = in_list(x.p[pt], x.n[pt], p) >= 0;
        int k = in_list(x.p[GS_EP_SCORE], x.n[GS_EP_SCORE], p);
        c->score_enabled[id] = k >= 0;
        if (k >= 0)
            c->score_weight[id] = x.weight[GS_EP_SCORE][k];
    }
    return 0;
}

int gs_sched_config_remove_plugin(struct gs_sched_config *c, const char *name)
{
    gs_plugin_set_remove(&c->plugins.multi_point, name);
    for (int pt = 0; pt < GS_EP_COUNT; pt++)
        gs_plugin_set_remove(&c->plugins.point[pt], name);
    return gs_sched_config_resolve(c, NULL);
}
