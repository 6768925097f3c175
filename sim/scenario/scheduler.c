/* gpusim: spec.scheduler (decode.h): an embedded KubeSchedulerConfiguration
 * (kubescheduler.config.k8s.io/v1), tieBreak and admission, into sc->sched (already holding
 * the release's defaults from gs_sched_config_default).
 *
 * Upstream: kubernetes pkg/scheduler/apis/config/v1/defaults.go (NodeResourcesFitArgs: no
 * scoringStrategy -> LeastAllocated cpu 1 memory 1; empty resources -> cpu 1 memory 1; weight
 * 0 -> 1), v1/default_plugins.go (mergePluginSet: `*` drops the defaults of that point, an
 * explicitly enabled default plugin replaces its default entry, weight included),
 * framework/runtime/framework.go (multiPoint expansion; a point's `disabled` also removes
 * multiPoint plugins there; score weight: score.enabled over multiPoint, 0 -> 1), and
 * apis/config/validation/validation_pluginargs.go (weights (0, 100], shape points).
 *
 * The plugin sets go to sc->sched.plugins as defaults.go leaves them (mergePlugins over the
 * release's defaults); gs_sched_config_resolve then checks them as NewFramework does (a plugin
 * enabled at a point it does not implement, twice at a point, not exactly one QueueSort
 * plugin, no Bind plugin) and each error is reported at the entry it comes from. Plugin names
 * are the scheduler's registry (models/sched/plugin.h): the modelled and inert in-tree plugins,
 * names of other releases (accepted and ignored), Coscheduling (scheduler-plugins), the FGD
 * paper's score plugins (RandomScore, DotProductScore, GpuClusteringScore, GpuPackingScore,
 * BestFitScore, FGDScore of hkust-adsl/kubernetes-scheduler-simulator; score only, off by
 * default) and Open-Gpu-Share (always on); other out-of-tree plugins (CapacityScheduling, ...)
 * are "not supported yet" when enabled or
 * configured. pluginConfig args are decoded for NodeResourcesFit,
 * NodeResourcesBalancedAllocation, DefaultPreemption, Coscheduling and the FGD plugins; non-empty
 * args of any other plugin are "not supported yet". */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "models/sched/plugin.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/ydec_util.h"

static const char *const out_of_tree[] = {
    "CapacityScheduling", "NodeResourceTopologyMatch", "NodeResourcesAllocatable",
    "TargetLoadPacking", "LoadVariationRiskBalancing", "LowRiskOverCommitment", "PreemptionToleration",
    "TopologicalSort", "NetworkOverhead", "SySched", "QOSSort", "CrossNodePreemption", "PodState", NULL};

/* The sets of a profile's plugins: multiPoint, then the points in enum gs_ext_point order. */
#define SET_MULTI GS_EP_COUNT
#define NSETS (GS_EP_COUNT + 1)

static const char *set_key(int set)
{
    return gs_ext_point_key((enum gs_ext_point)set); /* "multiPoint" for SET_MULTI */
}

/* All plugin names gpusim knows of (for "did you mean"). */
static const char *const *all_names(struct gs_ydec *d)
{
    const struct gs_sched_plugin *const *reg;
    int nreg = gs_plugin_registry(&reg);
    int n = nreg;
    for (int i = 0; out_of_tree[i]; i++)
        n++;
    const char **names = gs_arena_alloc(d->arena, sizeof *names * (size_t)(n + 1));
    if (!names)
        return NULL;
    int k = 0;
    for (int i = 0; i < nreg; i++)
        names[k++] = reg[i]->name;
    for (int i = 0; out_of_tree[i]; i++)
        names[k++] = out_of_tree[i];
    names[k] = NULL;
    return names;
}

static bool in_list(const char *const *l, const char *s)
{
    for (int i = 0; l[i]; i++)
        if (strcmp(l[i], s) == 0)
            return true;
    return false;
}

/* Plugin name `name` (node `n`): the registry's plugin (*p), or NULL for an out-of-tree plugin
 * gpusim does not model; an unknown name is an error with a suggestion. */
static int plugin_lookup(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *name,
                         const struct gs_sched_plugin **p)
{
    *p = gs_plugin_lookup(name);
    if (*p || in_list(out_of_tree, name))
        return 0;
    const char *const *names = all_names(d);
    const char *near = names ? gs_y_suggest(name, names) : NULL;
    if (near)
        return gs_y_error(d, n, "unknown plugin '%.80s' at %s (did you mean '%s'?)", name, path, near);
    return gs_y_error(d, n, "unknown plugin '%.80s' at %s", name, path);
}

/* ------------------------------------------------------------------ plugins */

/* The profile's own plugin sets, and where each enabled entry is (for error reports: an entry's
 * tag is set * GS_SCHED_MAX_SET + its index in the set). */
struct plugin_state {
    struct gs_sched_plugins user;
    const struct gs_ynode *node[NSETS][GS_SCHED_MAX_SET];
    int yidx[NSETS][GS_SCHED_MAX_SET];
};

static struct gs_plugin_set *set_of(struct gs_sched_plugins *pl, int set)
{
    return set == SET_MULTI ? &pl->multi_point : &pl->point[set];
}

static int plugin_set(struct gs_ydec *d, const struct gs_ynode *m, const char *path, int set,
                      struct plugin_state *st)
{
    static const char *const keys[] = {"enabled", "disabled", NULL};
    if (gs_y_is_null(m))
        return 0;
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    struct gs_plugin_set *ps = set_of(&st->user, set);
    for (int which = 0; which < 2; which++) {
        const char *key = which ? "disabled" : "enabled";
        const struct gs_ynode *seq = gs_y_get(m, key);
        if (!seq || gs_y_is_null(seq))
            continue;
        char sp[GS_SCN_PATH];
        gs_scn_path(sp, "%s.%s", path, key);
        if ((rc = gs_y_want_seq(d, seq, sp)))
            return rc;
        for (int i = 0; i < seq->n; i++) {
            const struct gs_ynode *it = seq->items[i];
            char ip[GS_SCN_PATH], np[GS_SCN_PATH];
            gs_scn_path(ip, "%s[%d]", sp, i);
            static const char *const pkeys[] = {"name", "weight", NULL};
            static const char *const preq[] = {"name", NULL};
            if ((rc = gs_y_check_map(d, it, ip, pkeys, NULL, preq)))
                return rc;
            const struct gs_ynode *nn = gs_y_get(it, "name");
            const char *name;
            if ((rc = gs_y_kstr(d, nn, gs_scn_path(np, "%s.name", ip), &name)))
                return rc;
            const struct gs_ynode *wn = gs_y_get(it, "weight");
            int64_t weight = 0;
            if (wn && !gs_y_is_null(wn) &&
                (rc = gs_y_int(d, wn, gs_scn_path(np, "%s.weight", ip), 0, INT32_MAX, &weight)))
                return rc;
            if (strcmp(name, "*") == 0) {
                if (!which)
                    return gs_y_error(d, nn, "'*' can only be disabled, not enabled, at %s.name", ip);
                if (gs_plugin_set_disable(ps, "*", -1))
                    return gs_y_error(d, nn, "too many plugins at %s (gpusim supports %d)", sp, GS_SCHED_MAX_SET);
                continue;
            }
            const struct gs_sched_plugin *p;
            gs_scn_path(np, "%s.name", ip);
            if ((rc = plugin_lookup(d, nn, np, name, &p)))
                return rc;
            if (!p) {
                if (which == 0)
                    return gs_y_unsupported(d, nn, gs_scn_path(np, "%s (out-of-tree plugin %s)", ip, name));
                continue;
            }
            if (p->flags & GS_PLF_IGNORED)
                continue;
            int at = which ? ps->ndisabled : ps->nenabled;
            rc = which ? gs_plugin_set_disable(ps, p->name, -1)
                       : gs_plugin_set_enable(ps, p->name, (int32_t)weight, set * GS_SCHED_MAX_SET + at);
            if (rc)
                return gs_y_error(d, nn, "too many plugins at %s (gpusim supports %d)", sp, GS_SCHED_MAX_SET);
            if (!which) {
                st->node[set][at] = nn;
                st->yidx[set][at] = i;
            }
        }
    }
    return 0;
}

/* NewFramework's checks of the merged profile, reported at the entry they concern (or at the
 * plugins mapping `m`). */
static int check_profile(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c,
                         const struct plugin_state *st)
{
    struct gs_profile_error err;
    if (!gs_sched_config_resolve(c, &err))
        return 0;
    if (err.code == GS_PROFILE_QUEUE_SORT_COUNT)
        return gs_y_error(d, m, "%s: %s%s", path, err.msg,
                          err.count > 1 ? " (with Coscheduling, disable PrioritySort under queueSort)" : "");
    if (err.tag >= 0 && st) {
        int set = err.tag / GS_SCHED_MAX_SET, at = err.tag % GS_SCHED_MAX_SET;
        char ep[GS_SCN_PATH];
        gs_scn_path(ep, "%s.%s.enabled[%d]", path, set_key(set), st->yidx[set][at]);
        if (err.code == GS_PROFILE_NOT_EXTENDED)
            return gs_y_error(d, st->node[set][at], "plugin %s does not extend the %s extension point (at %s.name)",
                              err.name, set_key(set), ep);
        return gs_y_error(d, st->node[set][at], "%s (at %s.name)", err.msg, ep);
    }
    return gs_y_error(d, m, "%s: %s", path, err.msg);
}

static int decode_plugins(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"multiPoint", "preEnqueue", "queueSort", "preFilter", "filter",
                                       "postFilter", "preScore",   "score",     "reserve",   "permit",
                                       "preBind",    "bind",       "postBind",  NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    struct plugin_state *st = gs_calloc(1, sizeof *st);
    if (!st)
        return gs_y_nomem(d, NULL);
    for (int k = 0; keys[k] && !rc; k++) {
        const struct gs_ynode *n = gs_y_get(m, keys[k]);
        int set = k == 0 ? SET_MULTI : k - 1;
        char pp[GS_SCN_PATH];
        if (n)
            rc = plugin_set(d, n, gs_scn_path(pp, "%s.%s", path, keys[k]), set, st);
    }
    /* defaults.go mergePlugins: the release's default multiPoint with the profile's sets. */
    if (!rc && gs_sched_plugins_merge(&c->plugins, &st->user))
        rc = gs_y_error(d, m, "too many plugins at %s (gpusim supports %d at a point)", path, GS_SCHED_MAX_SET);
    if (!rc)
        rc = check_profile(d, m, path, c, st);
    gs_free(st);
    return rc;
}

/* ------------------------------------------------------------------ plugin args */

/* The optional `kind` of a plugin's args must be `want` (e.g. "NodeResourcesFitArgs"). */
static int args_kind(struct gs_ydec *d, const struct gs_ynode *m, const char *path, const char *want)
{
    const struct gs_ynode *n = gs_y_get(m, "kind");
    const char *s;
    char p[GS_SCN_PATH];
    int rc;
    if (!n)
        return 0;
    if ((rc = gs_y_kstr(d, n, gs_scn_path(p, "%s.kind", path), &s)))
        return rc;
    if (strcmp(s, want) != 0)
        return gs_y_error(d, n, "%s: expected %s, got %.80s", p, want, s);
    return 0;
}

static int resource_specs(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, bool balanced,
                          int *nres, int *res, int64_t *weights)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc)
        return rc;
    if (seq->n > GS_SCHED_MAX_SCORE_RES)
        return gs_y_error(d, seq->items[GS_SCHED_MAX_SCORE_RES], "too many resources at %s (gpusim supports %d)",
                          path, GS_SCHED_MAX_SCORE_RES);
    static const char *const keys[] = {"name", "weight", NULL};
    static const char *const req[] = {"name", NULL};
    int n = 0;
    for (int i = 0; i < seq->n; i++) {
        char ip[GS_SCN_PATH], fp[GS_SCN_PATH];
        gs_scn_path(ip, "%s[%d]", path, i);
        const struct gs_ynode *it = seq->items[i];
        if ((rc = gs_y_check_map(d, it, ip, keys, NULL, req)))
            return rc;
        const struct gs_ynode *nn = gs_y_get(it, "name");
        const char *name;
        if ((rc = gs_y_kstr(d, nn, gs_scn_path(fp, "%s.name", ip), &name)))
            return rc;
        if (!gs_scn_is_qualified_name(name))
            return gs_y_error(d, nn, "invalid resource name \"%.80s\" at %s", name, fp);
        int64_t w = 0;
        const struct gs_ynode *wn = gs_y_get(it, "weight");
        if (wn && !gs_y_is_null(wn) && (rc = gs_y_int(d, wn, gs_scn_path(fp, "%s.weight", ip), INT64_MIN, INT64_MAX, &w)))
            return rc;
        if (w == 0)
            w = 1; /* defaults.go: unset or 0 -> 1 */
        if (balanced && w != 1)
            return gs_y_error(d, wn, "%s: must be 1 (NodeResourcesBalancedAllocation ignores weights), got %lld", fp,
                              (long long)w);
        if (w < 0 || w > 100)
            return gs_y_error(d, wn, "%s: resource weight of %s not in valid range (0, 100], got %lld", fp, name,
                              (long long)w);
        int idx = gs_res_intern(&d->world->res, d->arena, name);
        if (idx < 0)
            return gs_y_error(d, nn, "too many distinct resources (gpusim supports %d)", GS_RES_MAX);
        for (int j = 0; j < n; j++)
            if (res[j] == idx)
                return gs_y_error(d, nn, "duplicate resource '%s' at %s", name, fp);
        res[n] = idx;
        if (weights)
            weights[n] = w;
        n++;
    }
    *nres = n;
    return 0;
}

static int shape(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"shape", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, keys);
    if (rc)
        return rc;
    char sp[GS_SCN_PATH];
    gs_scn_path(sp, "%s.shape", path);
    const struct gs_ynode *seq = gs_y_get(m, "shape");
    if ((rc = gs_y_want_seq(d, seq, sp)))
        return rc;
    if (seq->n == 0)
        return gs_y_error(d, seq, "%s: at least one point must be specified", sp);
    if (seq->n > GS_SCHED_MAX_SHAPE)
        return gs_y_error(d, seq->items[GS_SCHED_MAX_SHAPE], "too many points at %s (gpusim supports %d)", sp,
                          GS_SCHED_MAX_SHAPE);
    static const char *const pkeys[] = {"utilization", "score", NULL};
    for (int i = 0; i < seq->n; i++) {
        char ip[GS_SCN_PATH], fp[GS_SCN_PATH];
        gs_scn_path(ip, "%s[%d]", sp, i);
        const struct gs_ynode *it = seq->items[i];
        /* both default to 0 upstream (int32 fields) */
        if ((rc = gs_y_check_map(d, it, ip, pkeys, NULL, NULL)))
            return rc;
        int64_t u = 0, s = 0;
        const struct gs_ynode *un = gs_y_get(it, "utilization"), *sn = gs_y_get(it, "score");
        if (un && (rc = gs_y_int(d, un, gs_scn_path(fp, "%s.utilization", ip), 0, 100, &u)))
            return rc;
        if (sn && (rc = gs_y_int(d, sn, gs_scn_path(fp, "%s.score", ip), 0, 10, &s)))
            return rc;
        if (i > 0 && u <= c->shape[i - 1].utilization)
            return gs_y_error(d, un ? un : it, "%s.utilization: values must be sorted in increasing order", ip);
        c->shape[i].utilization = u;
        c->shape[i].score = s;
    }
    c->nshape = seq->n;
    return 0;
}

static int string_list(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, bool group, int *n,
                       const char **out)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc)
        return rc;
    if (seq->n > GS_SCHED_MAX_SCORE_RES)
        return gs_y_error(d, seq->items[GS_SCHED_MAX_SCORE_RES], "too many entries at %s (gpusim supports %d)", path,
                          GS_SCHED_MAX_SCORE_RES);
    for (int i = 0; i < seq->n; i++) {
        char ip[GS_SCN_PATH];
        gs_scn_path(ip, "%s[%d]", path, i);
        const char *s;
        if ((rc = gs_y_kstr(d, seq->items[i], ip, &s)))
            return rc;
        if (group && strchr(s, '/'))
            return gs_y_error(d, seq->items[i], "%s: resource group name can't contain '/'", ip);
        if (!gs_scn_is_qualified_name(s))
            return gs_y_error(d, seq->items[i], "%s: invalid resource name \"%.80s\"", ip, s);
        out[i] = s;
    }
    *n = seq->n;
    return 0;
}

static int fit_args(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups",
                                       "scoringStrategy", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n;
    if ((rc = args_kind(d, m, path, "NodeResourcesFitArgs")))
        return rc;
    if ((n = gs_y_get(m, "ignoredResources")) && !gs_y_is_null(n) &&
        (rc = string_list(d, n, gs_scn_path(p, "%s.ignoredResources", path), false, &c->nignored_res,
                          c->ignored_res)))
        return rc;
    if ((n = gs_y_get(m, "ignoredResourceGroups")) && !gs_y_is_null(n) &&
        (rc = string_list(d, n, gs_scn_path(p, "%s.ignoredResourceGroups", path), true, &c->nignored_groups,
                          c->ignored_groups)))
        return rc;
    const struct gs_ynode *ss = gs_y_get(m, "scoringStrategy");
    if (!ss || gs_y_is_null(ss))
        return 0; /* defaults.go: LeastAllocated, cpu 1, memory 1 (already in c) */
    char sp[GS_SCN_PATH];
    gs_scn_path(sp, "%s.scoringStrategy", path);
    static const char *const skeys[] = {"type", "resources", "requestedToCapacityRatio", NULL};
    static const char *const sreq[] = {"type", NULL};
    if ((rc = gs_y_check_map(d, ss, sp, skeys, NULL, sreq)))
        return rc;
    static const char *const types[] = {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio", NULL};
    int t;
    if ((rc = gs_y_enum(d, gs_y_get(ss, "type"), gs_scn_path(p, "%s.type", sp), types, &t)))
        return rc;
    c->strategy = t == 0 ? GS_SCORE_LEAST_ALLOCATED : t == 1 ? GS_SCORE_MOST_ALLOCATED : GS_SCORE_RTCR;
    n = gs_y_get(ss, "resources");
    if (n && !gs_y_is_null(n)) {
        if ((rc = resource_specs(d, n, gs_scn_path(p, "%s.resources", sp), false, &c->nscore_res, c->score_res,
                                 c->score_res_weight)))
            return rc;
    } else {
        c->nscore_res = 0;
    }
    if (c->nscore_res == 0) {
        /* defaults.go: an empty list is cpu 1, memory 1 */
        c->nscore_res = 2;
        c->score_res[0] = GS_RES_CPU;
        c->score_res_weight[0] = 1;
        c->score_res[1] = GS_RES_MEMORY;
        c->score_res_weight[1] = 1;
    }
    const struct gs_ynode *rtcr = gs_y_get(ss, "requestedToCapacityRatio");
    if (rtcr && gs_y_is_null(rtcr))
        rtcr = NULL;
    gs_scn_path(p, "%s.requestedToCapacityRatio", sp);
    if (c->strategy == GS_SCORE_RTCR) {
        if (!rtcr)
            return gs_y_error(d, ss, "%s: must be specified when type is RequestedToCapacityRatio", p);
        return shape(d, rtcr, p, c);
    }
    if (rtcr)
        return gs_y_error(d, rtcr, "%s: must be nil when type is not RequestedToCapacityRatio", p);
    c->nshape = 0;
    return 0;
}

static int balanced_args(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"apiVersion", "kind", "resources", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n;
    if ((rc = args_kind(d, m, path, "NodeResourcesBalancedAllocationArgs")))
        return rc;
    n = gs_y_get(m, "resources");
    int nres = 0;
    if (n && !gs_y_is_null(n) &&
        (rc = resource_specs(d, n, gs_scn_path(p, "%s.resources", path), true, &nres, c->balanced_res, NULL)))
        return rc;
    if (nres == 0) {
        nres = 2;
        c->balanced_res[0] = GS_RES_CPU;
        c->balanced_res[1] = GS_RES_MEMORY;
    }
    c->nbalanced_res = nres;
    return 0;
}

static int preemption_args(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"apiVersion", "kind", "minCandidateNodesPercentage",
                                       "minCandidateNodesAbsolute", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n;
    if ((rc = args_kind(d, m, path, "DefaultPreemptionArgs")))
        return rc;
    int64_t v;
    const struct gs_ynode *pn = gs_y_get(m, "minCandidateNodesPercentage");
    if (pn && !gs_y_is_null(pn)) {
        if ((rc = gs_y_int(d, pn, gs_scn_path(p, "%s.minCandidateNodesPercentage", path), 0, 100, &v)))
            return rc;
        c->min_candidate_nodes_percentage = (int)v;
    }
    if ((n = gs_y_get(m, "minCandidateNodesAbsolute")) && !gs_y_is_null(n)) {
        if ((rc = gs_y_int(d, n, gs_scn_path(p, "%s.minCandidateNodesAbsolute", path), 0, INT32_MAX, &v)))
            return rc;
        c->min_candidate_nodes_absolute = (int)v;
    }
    if (c->min_candidate_nodes_percentage == 0 && c->min_candidate_nodes_absolute == 0)
        return gs_y_error(d, pn ? pn : m,
                          "%s.minCandidateNodesPercentage: cannot be zero at the same time as "
                          "minCandidateNodesAbsolute", path);
    return 0;
}

/* The FGD policies' args as the authors' scheduler configs write them (dimExtMethod,
 * normMethod, gpuSelMethod): accepted with the values gpusim's plugins implement (DotProductScore
 * merge/max, FGDScore share/max; gpuSelMethod the plugin's own name, FGDScore, or best), any
 * other value is "not supported yet". */
static int fgd_args(struct gs_ydec *d, const struct gs_ynode *m, const char *path, int id)
{
    static const char *const keys[] = {"dimExtMethod", "normMethod", "gpuSelMethod", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const char *dim = id == GS_PL_DOT_PRODUCT_SCORE ? "merge" : id == GS_PL_FGD_SCORE ? "share" : NULL;
    for (int i = 0; keys[i]; i++) {
        const struct gs_ynode *n = gs_y_get(m, keys[i]);
        if (!n || gs_y_is_null(n))
            continue;
        char p[GS_SCN_PATH];
        const char *v;
        if ((rc = gs_y_kstr(d, n, gs_scn_path(p, "%s.%s", path, keys[i]), &v)))
            return rc;
        bool ok = i == 0   ? dim && strcmp(v, dim) == 0
                  : i == 1 ? dim && strcmp(v, "max") == 0
                           : strcmp(v, "best") == 0 || strcmp(v, gs_plugin_name((enum gs_plugin)id)) == 0;
        if (!ok)
            return gs_y_unsupported(d, n, gs_scn_path(p, "%s.%s (%s)", path, keys[i], v));
    }
    return 0;
}

/* CoschedulingArgs (scheduler-plugins apis/config/v1: permitWaitingTimeSeconds default 60,
 * podGroupBackoffSeconds default 0). */
static int cosched_args(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"apiVersion", "kind", "permitWaitingTimeSeconds", "podGroupBackoffSeconds",
                                       NULL};
    static const char *const later[] = {"podGroupRejectPercentage", NULL};
    int rc = gs_y_check_map(d, m, path, keys, later, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n;
    if ((rc = args_kind(d, m, path, "CoschedulingArgs")))
        return rc;
    int64_t v;
    if ((n = gs_y_get(m, "permitWaitingTimeSeconds")) && !gs_y_is_null(n)) {
        if ((rc = gs_y_int(d, n, gs_scn_path(p, "%s.permitWaitingTimeSeconds", path), 0, INT32_MAX, &v)))
            return rc;
        c->permit_wait_us = v * 1000000;
    }
    if ((n = gs_y_get(m, "podGroupBackoffSeconds")) && !gs_y_is_null(n)) {
        if ((rc = gs_y_int(d, n, gs_scn_path(p, "%s.podGroupBackoffSeconds", path), 0, INT32_MAX, &v)))
            return rc;
        c->pg_backoff_us = v * 1000000;
    }
    return 0;
}

static int plugin_config(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, struct gs_sched_config *c)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc)
        return rc;
    static const char *const keys[] = {"name", "args", NULL};
    static const char *const req[] = {"name", NULL};
    for (int i = 0; i < seq->n; i++) {
        const struct gs_ynode *it = seq->items[i];
        char ip[GS_SCN_PATH], fp[GS_SCN_PATH];
        gs_scn_path(ip, "%s[%d]", path, i);
        if ((rc = gs_y_check_map(d, it, ip, keys, NULL, req)))
            return rc;
        const struct gs_ynode *nn = gs_y_get(it, "name");
        const char *name;
        if ((rc = gs_y_kstr(d, nn, gs_scn_path(fp, "%s.name", ip), &name)))
            return rc;
        for (int j = 0; j < i; j++) {
            const struct gs_ynode *other = gs_y_get(seq->items[j], "name");
            if (strcmp(other->text, name) == 0)
                return gs_y_error(d, nn, "%s: Duplicate value: \"%s\" (first at line %d column %d)", fp, name,
                                  other->line, other->col);
        }
        const struct gs_sched_plugin *pl;
        if ((rc = plugin_lookup(d, nn, fp, name, &pl)))
            return rc;
        int id = pl ? pl->id : -1;
        const struct gs_ynode *args = gs_y_get(it, "args");
        if (args && gs_y_is_null(args))
            args = NULL;
        gs_scn_path(fp, "%s.args", ip);
        if (args && (rc = gs_y_want_map(d, args, fp)))
            return rc;
        if (id == GS_PL_NODE_RESOURCES_FIT) {
            if (args && (rc = fit_args(d, args, fp, c)))
                return rc;
        } else if (id == GS_PL_BALANCED_ALLOCATION) {
            if (args && (rc = balanced_args(d, args, fp, c)))
                return rc;
        } else if (id == GS_PL_DEFAULT_PREEMPTION) {
            if (args && (rc = preemption_args(d, args, fp, c)))
                return rc;
        } else if (id == GS_PL_COSCHEDULING) {
            if (args && (rc = cosched_args(d, args, fp, c)))
                return rc;
        } else if (id >= GS_PL_RANDOM_SCORE && id <= GS_PL_FGD_SCORE) {
            if (args && (rc = fgd_args(d, args, fp, id)))
                return rc;
        } else if (args && args->n > 0) {
            return gs_y_unsupported(d, args, gs_scn_path(fp, "%s.args (%s)", ip, name));
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ KubeSchedulerConfiguration */

static int expect_default(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int64_t def)
{
    int64_t v;
    int rc = gs_y_int(d, n, path, 1, INT32_MAX, &v);
    if (rc)
        return rc;
    if (v != def)
        return gs_y_unsupported(d, n, path);
    return 0;
}

static int profile(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_sched_config *c)
{
    static const char *const keys[] = {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig", NULL};
    static const char *const unsup[] = {"percentageOfPlacementsToScore", NULL};
    int rc = gs_y_check_map(d, m, path, keys, unsup, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n;
    if ((n = gs_y_get(m, "schedulerName")) && !gs_y_is_null(n)) {
        if ((rc = gs_y_kstr(d, n, gs_scn_path(p, "%s.schedulerName", path), &c->scheduler_name)))
            return rc;
        if (!gs_scn_is_dns_subdomain(c->scheduler_name))
            return gs_y_error(d, n, "invalid schedulerName \"%.80s\" at %s: must be a DNS-1123 subdomain",
                              c->scheduler_name, p);
    }
    if ((n = gs_y_get(m, "percentageOfNodesToScore")) && !gs_y_is_null(n)) {
        int64_t v;
        if ((rc = gs_y_int(d, n, gs_scn_path(p, "%s.percentageOfNodesToScore", path), 0, 100, &v)))
            return rc;
        c->percentage_of_nodes_to_score = (int)v;
    }
    if ((n = gs_y_get(m, "plugins")) && !gs_y_is_null(n) &&
        (rc = decode_plugins(d, n, gs_scn_path(p, "%s.plugins", path), c)))
        return rc;
    if ((n = gs_y_get(m, "pluginConfig")) && !gs_y_is_null(n) &&
        (rc = plugin_config(d, n, gs_scn_path(p, "%s.pluginConfig", path), c)))
        return rc;
    return 0;
}

static int kube_scheduler_config(struct gs_ydec *d, const struct gs_ynode *m, const char *path,
                                 struct gs_sched_config *c)
{
    static const char *const keys[] = {"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection",
                                       "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
                                       "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles",
                                       "delayCacheUntilActive", NULL};
    static const char *const unsup[] = {"extenders", "percentageOfPlacementsToScore", NULL};
    int rc = gs_y_check_map(d, m, path, keys, unsup, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n;
    const char *s;
    if ((n = gs_y_get(m, "apiVersion"))) {
        if ((rc = gs_y_kstr(d, n, gs_scn_path(p, "%s.apiVersion", path), &s)))
            return rc;
        if (strcmp(s, "kubescheduler.config.k8s.io/v1") != 0)
            return gs_y_error(d, n, "unsupported apiVersion \"%.80s\" at %s: expected kubescheduler.config.k8s.io/v1", s,
                              p);
    }
    if ((n = gs_y_get(m, "kind"))) {
        if ((rc = gs_y_kstr(d, n, gs_scn_path(p, "%s.kind", path), &s)))
            return rc;
        if (strcmp(s, "KubeSchedulerConfiguration") != 0)
            return gs_y_error(d, n, "unsupported kind \"%.80s\" at %s: expected KubeSchedulerConfiguration", s, p);
    }
    /* settings of the process, not of scheduling: checked for type and otherwise ignored */
    int64_t iv;
    bool bv;
    if ((n = gs_y_get(m, "parallelism")) && (rc = gs_y_int(d, n, gs_scn_path(p, "%s.parallelism", path), 1, INT32_MAX, &iv)))
        return rc;
    if ((n = gs_y_get(m, "leaderElection")) && (rc = gs_y_want_map(d, n, gs_scn_path(p, "%s.leaderElection", path))))
        return rc;
    if ((n = gs_y_get(m, "clientConnection")) &&
        (rc = gs_y_want_map(d, n, gs_scn_path(p, "%s.clientConnection", path))))
        return rc;
    static const char *const bools[] = {"enableProfiling", "enableContentionProfiling", "delayCacheUntilActive", NULL};
    for (int i = 0; bools[i]; i++)
        if ((n = gs_y_get(m, bools[i])) && (rc = gs_y_bool(d, n, gs_scn_path(p, "%s.%s", path, bools[i]), &bv)))
            return rc;
    /* the queue's backoff is fixed at upstream's defaults for now */
    if ((n = gs_y_get(m, "podInitialBackoffSeconds")) &&
        (rc = expect_default(d, n, gs_scn_path(p, "%s.podInitialBackoffSeconds", path), 1)))
        return rc;
    if ((n = gs_y_get(m, "podMaxBackoffSeconds")) &&
        (rc = expect_default(d, n, gs_scn_path(p, "%s.podMaxBackoffSeconds", path), 10)))
        return rc;
    if ((n = gs_y_get(m, "percentageOfNodesToScore")) && !gs_y_is_null(n)) {
        if ((rc = gs_y_int(d, n, gs_scn_path(p, "%s.percentageOfNodesToScore", path), 0, 100, &iv)))
            return rc;
        c->percentage_of_nodes_to_score = (int)iv;
    }
    if ((n = gs_y_get(m, "profiles")) && !gs_y_is_null(n)) {
        char pp[GS_SCN_PATH];
        gs_scn_path(pp, "%s.profiles", path);
        if ((rc = gs_y_want_seq(d, n, pp)))
            return rc;
        if (n->n > 1)
            return gs_y_unsupported(d, n->items[1], gs_scn_path(p, "%s[1] (more than one profile)", pp));
        if (n->n == 1 && (rc = profile(d, n->items[0], gs_scn_path(p, "%s[0]", pp), c)))
            return rc;
    }
    return 0;
}

int gs_scn_scheduler(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc)
{
    static const char *const keys[] = {"config", "tieBreak", "admission", "kueueConfig", NULL};
    int rc = gs_y_check_map(d, map, "spec.scheduler", keys, NULL, NULL);
    if (rc)
        return rc;
    struct gs_sched_config *c = &sc->sched;
    const struct gs_ynode *n;
    if ((n = gs_y_get(map, "config")) && !gs_y_is_null(n) &&
        (rc = kube_scheduler_config(d, n, "spec.scheduler.config", c)))
        return rc;
    if (!c->dra_enabled)
        gs_sched_config_remove_plugin(c, "DynamicResources");
    if ((n = gs_y_get(map, "tieBreak"))) {
        static const char *const tb[] = {"random", "first", NULL};
        int v;
        if ((rc = gs_y_enum(d, n, "spec.scheduler.tieBreak", tb, &v)))
            return rc;
        c->tiebreak_first = v == 1;
    }
    if ((n = gs_y_get(map, "admission"))) {
        static const char *const adm[] = {"podByPod", "gang", "kueue", NULL};
        int v;
        if ((rc = gs_y_enum(d, n, "spec.scheduler.admission", adm, &v)))
            return rc;
        sc->admission = adm[v]; /* kueue: sim/controllers/kueue.c admits labelled Jobs and workloads */
        if (v == 1) {
            /* Gang admission: Coscheduling at every point it implements (its QueueSort instead of
             * PrioritySort), and a group placed all at once (sim/controllers/scheduler_gang.c group cycle)
             * instead of waiting at Permit. */
            c->gang_admission = true;
            const struct gs_sched_plugin *cs = gs_plugin_lookup("Coscheduling");
            for (int pt = 0; pt < GS_EP_COUNT; pt++) {
                struct gs_plugin_set *ps = &c->plugins.point[pt];
                if (gs_plugin_implements(cs, (enum gs_ext_point)pt) && !gs_plugin_set_has(ps, cs->name) &&
                    gs_plugin_set_enable(ps, cs->name, 0, -1))
                    return gs_y_error(d, n, "too many plugins at spec.scheduler.config (gpusim supports %d at a point)",
                                      GS_SCHED_MAX_SET);
            }
            struct gs_plugin_set *qs = &c->plugins.point[GS_EP_QUEUE_SORT];
            gs_plugin_set_remove(qs, "PrioritySort");
            if (gs_plugin_set_disable(qs, "PrioritySort", -1))
                return gs_y_error(d, n, "too many plugins at spec.scheduler.config (gpusim supports %d at a point)",
                                  GS_SCHED_MAX_SET);
            if ((rc = check_profile(d, n, "spec.scheduler.admission", c, NULL)))
                return rc;
        }
    }
    if ((n = gs_y_get(map, "kueueConfig")) && !gs_y_is_null(n) &&
        (rc = gs_scn_kueue_config(d, n, "spec.scheduler.kueueConfig", sc)))
        return rc;
    return 0;
}
