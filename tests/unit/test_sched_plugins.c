/* The scheduler as a plugin table: the registry, NewFramework's validation of a profile (each
 * named error), the tables built in the profile's order, and the binding points (Reserve,
 * Permit, PreBind, Bind, Unreserve) through the caller's client. Upstream:
 * framework/runtime/framework.go (NewFramework, expandMultiPointPlugins, getScoreWeights,
 * RunPermitPlugins), scheduler-plugins pkg/coscheduling/coscheduling.go. */
#include "sched_fixture.h"

#include "base/error.h"
#include "models/sched/plugin.h"
#include "sim/scenario.h"

#include <criterion/new/assert.h>

/* ------------------------------------------------------------------ the registry */

Test(sched_registry, ids_names_and_lookup)
{
    for (int id = 0; id < GS_PL_COUNT; id++) {
        const struct gs_sched_plugin *p = gs_plugin_by_id(id);
        cr_assert(ne(ptr, (void *)p, NULL), "id %d", id);
        cr_expect(eq(int, p->id, id));
        cr_expect(eq(ptr, (void *)gs_plugin_lookup(p->name), (void *)p), "%s", p->name);
        cr_expect(eq(int, gs_plugin_find(p->name), id), "%s", p->name);
        cr_expect(eq(str, (char *)gs_plugin_name((enum gs_plugin)id), (char *)p->name));
    }
    cr_expect(eq(ptr, (void *)gs_plugin_by_id(GS_PL_COUNT), NULL));
    cr_expect(eq(ptr, (void *)gs_plugin_lookup("NoSuchPlugin"), NULL));
    cr_expect(eq(ptr, (void *)gs_plugin_lookup("nodeResourcesFit"), NULL));
    /* Names of other releases: known, ignored, without an id. */
    const char *ignored[] = {"CinderLimits", "NodeDeclaredFeatures", "GangScheduling"};
    for (int i = 0; i < 3; i++) {
        const struct gs_sched_plugin *p = gs_plugin_lookup(ignored[i]);
        cr_assert(ne(ptr, (void *)p, NULL), "%s", ignored[i]);
        cr_expect(eq(int, p->id, -1));
        cr_expect(eq(u32, p->flags & GS_PLF_IGNORED, GS_PLF_IGNORED));
        cr_expect(eq(int, gs_plugin_find(ignored[i]), -1));
    }
    const struct gs_sched_plugin *const *all;
    int n = gs_plugin_registry(&all);
    cr_expect(eq(int, n, GS_PL_COUNT + 3));
    cr_expect(eq(ptr, (void *)all[0], (void *)gs_plugin_by_id(0)));
}

Test(sched_registry, points_functions_and_flags)
{
    const struct gs_sched_plugin *cs = gs_plugin_lookup("Coscheduling");
    cr_assert(ne(ptr, (void *)cs, NULL));
    const enum gs_ext_point cs_points[] = {GS_EP_QUEUE_SORT, GS_EP_PRE_FILTER, GS_EP_POST_FILTER, GS_EP_PERMIT,
                                           GS_EP_RESERVE};
    uint32_t want = 0;
    for (int i = 0; i < 5; i++) {
        want |= GS_EP_BIT(cs_points[i]);
        cr_expect(gs_plugin_acts_at(cs, cs_points[i]), "Coscheduling at %s", gs_ext_point_key(cs_points[i]));
    }
    cr_expect(eq(u32, cs->points, want));
    cr_expect_not(gs_plugin_implements(cs, GS_EP_FILTER));
    cr_expect(eq(u32, cs->flags & GS_PLF_OUT_OF_TREE, GS_PLF_OUT_OF_TREE));

    /* The static-verdict cache keys on the flag: exactly the four template-only filters. */
    for (int id = 0; id < GS_PL_COUNT; id++) {
        const struct gs_sched_plugin *p = gs_plugin_by_id(id);
        bool stat = id == GS_PL_NODE_UNSCHEDULABLE || id == GS_PL_NODE_NAME || id == GS_PL_TAINT_TOLERATION ||
                    id == GS_PL_NODE_AFFINITY;
        cr_expect(eq(int, (p->flags & GS_PLF_STATIC_FILTER) != 0, stat), "%s", p->name);
        bool sscore = id == GS_PL_TAINT_TOLERATION || id == GS_PL_NODE_AFFINITY;
        cr_expect(eq(int, (p->flags & GS_PLF_STATIC_SCORE) != 0, sscore), "%s", p->name);
        /* Inert plugins act nowhere; modelled ones somewhere. */
        bool acts = false;
        for (int pt = 0; pt < GS_EP_COUNT; pt++)
            acts = acts || gs_plugin_acts_at(p, (enum gs_ext_point)pt);
        cr_expect(eq(int, acts, id < GS_PL_MODELLED), "%s", p->name);
        cr_expect(eq(int, gs_plugin_is_modelled((enum gs_plugin)id), id < GS_PL_MODELLED), "%s", p->name);
    }
    const struct gs_sched_plugin *dra = gs_plugin_by_id(GS_PL_DYNAMIC_RESOURCES);
    cr_expect(eq(u32, dra->flags & GS_PLF_CLUSTER_FILTER, GS_PLF_CLUSTER_FILTER));
    const struct gs_sched_plugin *share = gs_plugin_lookup("Open-Gpu-Share");
    cr_assert(ne(ptr, (void *)share, NULL));
    cr_expect(eq(u32, share->flags & GS_PLF_ALWAYS, GS_PLF_ALWAYS));
    cr_expect(gs_plugin_acts_at(gs_plugin_by_id(GS_PL_FGD_SCORE), GS_EP_SCORE));
    cr_expect(ne(ptr, (void *)gs_plugin_by_id(GS_PL_FGD_SCORE)->share_gpu, NULL));
    cr_expect(gs_plugin_acts_at(gs_plugin_by_id(GS_PL_PRIORITY_SORT), GS_EP_QUEUE_SORT));
    cr_expect(gs_plugin_acts_at(gs_plugin_by_id(GS_PL_DEFAULT_BINDER), GS_EP_BIND));
    cr_expect(eq(str, (char *)gs_ext_point_key(GS_EP_PRE_FILTER), "preFilter"));
    cr_expect(eq(str, (char *)gs_ext_point_interface(GS_EP_PRE_FILTER), "PreFilterPlugin"));
}

/* ------------------------------------------------------------------ validation (NewFramework) */

static struct gs_profile_error check(struct gs_sched_config *c, int want_rc)
{
    struct gs_profile_error err;
    cr_assert(eq(int, gs_sched_config_resolve(c, &err), want_rc), "%s", err.msg);
    return err;
}

Test(sched_profile, unknown_plugin)
{
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.point[GS_EP_FILTER], "NoSuchPlugin", 0, 7), 0));
    struct gs_profile_error e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_UNKNOWN_PLUGIN));
    cr_expect(eq(str, e.msg, "FilterPlugin \"NoSuchPlugin\" does not exist"));
    cr_expect(eq(int, e.set, GS_EP_FILTER));
    cr_expect(eq(int, e.index, 0));
    cr_expect(eq(i32, e.tag, 7));
    cr_expect(eq(str, (char *)e.name, "NoSuchPlugin"));

    /* In multiPoint: reported at the first point NewFramework expands (PreFilter). */
    c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "NoSuchPlugin", 0, 3), 0));
    e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_UNKNOWN_PLUGIN));
    cr_expect(eq(str, e.msg, "PreFilterPlugin \"NoSuchPlugin\" does not exist"));
    cr_expect(eq(int, e.set, GS_EP_COUNT));
    cr_expect(eq(i32, e.tag, 3));
    /* gs_sched_new refuses what does not validate. */
    struct fx *f = fx_new();
    cr_expect(eq(ptr, gs_sched_new(&f->w, &c, NULL), NULL));
    fx_free(f);
}

Test(sched_profile, plugin_not_extending_the_point)
{
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.point[GS_EP_SCORE], "NodeName", 5, 1), 0));
    struct gs_profile_error e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_NOT_EXTENDED));
    cr_expect(eq(str, e.msg, "plugin \"NodeName\" does not extend ScorePlugin plugin"));
    cr_expect(eq(int, e.set, GS_EP_SCORE));
    cr_expect(eq(i32, e.tag, 1));
    /* multiPoint only expands a plugin to the points it implements: no error there. */
    c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "FGDScore", 2, -1), 0));
    check(&c, 0);
    cr_expect(c.score_enabled[GS_PL_FGD_SCORE]);
    cr_expect(eq(i64, c.score_weight[GS_PL_FGD_SCORE], 2));
    cr_expect(c.filter_enabled[GS_PL_FGD_SCORE]); /* the summary's primary point of a score-only plugin */
}

Test(sched_profile, duplicate_plugin)
{
    struct gs_sched_config c = fx_cfg(34);
    struct gs_plugin_set *filter = &c.plugins.point[GS_EP_FILTER];
    cr_assert(eq(int, gs_plugin_set_enable(filter, "NodeName", 0, 10), 0));
    cr_assert(eq(int, gs_plugin_set_enable(filter, "NodeName", 0, 11), 0));
    struct gs_profile_error e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_DUPLICATE));
    cr_expect(eq(str, e.msg, "plugin \"NodeName\" already registered as \"FilterPlugin\""));
    cr_expect(eq(int, e.set, GS_EP_FILTER));
    cr_expect(eq(int, e.index, 1));
    cr_expect(eq(i32, e.tag, 11));

    /* Twice in multiPoint (not a default plugin, so both entries stay after the merge). */
    c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "RandomScore", 0, 20), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "RandomScore", 0, 21), 0));
    e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_DUPLICATE));
    cr_expect(eq(str, e.msg, "plugin \"RandomScore\" already registered as \"PreScorePlugin\""));
    cr_expect(eq(int, e.set, GS_EP_COUNT));
    cr_expect(eq(i32, e.tag, 21));

    /* Enabled at a point and in multiPoint: the point's entry overrides, no error. */
    c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.point[GS_EP_FILTER], "NodeName", 0, -1), 0));
    check(&c, 0);
}

Test(sched_profile, queue_sort_count)
{
    /* Coscheduling beside PrioritySort: two. */
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "Coscheduling", 0, -1), 0));
    struct gs_profile_error e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_QUEUE_SORT_COUNT));
    cr_expect(eq(int, e.count, 2));
    cr_expect(eq(int, e.set, -1));
    cr_expect(eq(str, e.msg,
                 "only one queue sort plugin required for profile with scheduler name \"default-scheduler\", "
                 "but got 2"));
    /* ... fixed by disabling PrioritySort at queueSort. */
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_QUEUE_SORT], "PrioritySort", -1), 0));
    check(&c, 0);
    cr_expect(c.filter_enabled[GS_PL_COSCHEDULING]);
    cr_expect_not(c.filter_enabled[GS_PL_PRIORITY_SORT]);

    /* None at all, with the profile's own name. */
    c = fx_cfg(34);
    c.scheduler_name = "gang";
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_QUEUE_SORT], "*", -1), 0));
    e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_QUEUE_SORT_COUNT));
    cr_expect(eq(int, e.count, 0));
    cr_expect(eq(str, e.msg,
                 "only one queue sort plugin required for profile with scheduler name \"gang\", but got 0"));
}

Test(sched_profile, no_bind_plugin)
{
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_BIND], "DefaultBinder", -1), 0));
    struct gs_profile_error e = check(&c, GS_EINVAL);
    cr_expect(eq(int, e.code, GS_PROFILE_NO_BIND));
    cr_expect(eq(str, e.msg,
                 "at least one bind plugin is needed for profile with scheduler name \"default-scheduler\""));
    cr_expect(eq(int, e.index, -1));
}

Test(sched_profile, ignored_names_accepted_anywhere)
{
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.point[GS_EP_SCORE], "GangScheduling", 3, -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "CinderLimits", 0, -1), 0));
    check(&c, 0);
}

/* mergePluginSet and getScoreWeights: a re-enabled default keeps its place and takes the new
 * weight (0 -> 1); the score point's own weight wins over multiPoint's; "*" drops the defaults. */
Test(sched_profile, merge_and_weights)
{
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched_plugins custom;
    memset(&custom, 0, sizeof custom);
    cr_assert(eq(int, gs_plugin_set_enable(&custom.multi_point, "TaintToleration", 0, -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&custom.multi_point, "NodeAffinity", 7, -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&custom.multi_point, "BestFitScore", 4, -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&custom.point[GS_EP_SCORE], "BestFitScore", 9, -1), 0));
    cr_assert(eq(int, gs_plugin_set_disable(&custom.multi_point, "ImageLocality", -1), 0));
    int ndef = c.plugins.multi_point.nenabled;
    cr_assert(eq(int, gs_sched_plugins_merge(&c.plugins, &custom), 0));
    const struct gs_plugin_set *mp = &c.plugins.multi_point;
    cr_expect(eq(int, mp->nenabled, ndef)); /* -ImageLocality, +BestFitScore */
    cr_expect(eq(str, (char *)mp->enabled[4].name, "TaintToleration")); /* in place */
    cr_expect(eq(i32, mp->enabled[4].weight, 0));
    cr_expect(eq(str, (char *)mp->enabled[mp->nenabled - 1].name, "BestFitScore"));
    check(&c, 0);
    cr_expect(eq(i64, c.score_weight[GS_PL_TAINT_TOLERATION], 1));
    cr_expect(eq(i64, c.score_weight[GS_PL_NODE_AFFINITY], 7));
    cr_expect(eq(i64, c.score_weight[GS_PL_BEST_FIT_SCORE], 9));
    cr_expect(eq(i64, c.score_weight[GS_PL_NODE_RESOURCES_FIT], 1));
    cr_expect_not(c.score_enabled[GS_PL_IMAGE_LOCALITY]);

    memset(&custom, 0, sizeof custom);
    cr_assert(eq(int, gs_plugin_set_disable(&custom.multi_point, "*", -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&custom.multi_point, "PrioritySort", 0, -1), 0));
    cr_assert(eq(int, gs_plugin_set_enable(&custom.multi_point, "DefaultBinder", 0, -1), 0));
    c = fx_cfg(34);
    cr_assert(eq(int, gs_sched_plugins_merge(&c.plugins, &custom), 0));
    cr_expect(eq(int, c.plugins.multi_point.nenabled, 2));
    check(&c, 0);
    cr_expect_not(c.filter_enabled[GS_PL_NODE_RESOURCES_FIT]);
    cr_expect_not(c.score_enabled[GS_PL_NODE_RESOURCES_FIT]);
}

/* The loader runs the same checks and reports them at the YAML entry (file:line:column). */
static int load(const char *plugins_yaml, struct gs_scenario *sc, struct gs_error *err)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "apiVersion: gpusim/v1alpha1\n"
             "kind: Scenario\n"
             "metadata: {name: cfg}\n"
             "spec:\n"
             "  scheduler:\n"
             "    config:\n"
             "      profiles:\n"
             "%s"
             "  cluster:\n"
             "    nodePools:\n"
             "    - {name: n, count: 1, capacity: {cpu: '32', memory: 128Gi}}\n",
             plugins_yaml);
    memset(err, 0, sizeof *err);
    return gs_scenario_load_string("cfg.yaml", text, sc, err);
}

Test(sched_profile, loader_reports_at_the_entry)
{
    struct gs_scenario sc;
    struct gs_error err;
    cr_assert(eq(int,
                 load("      - plugins:\n"
                      "          filter:\n"
                      "            enabled:\n"
                      "            - name: NodeName\n"
                      "            - name: NodeName\n",
                      &sc, &err),
                 GS_EINVAL));
    cr_expect(eq(str, err.msg,
                 "plugin \"NodeName\" already registered as \"FilterPlugin\" (at "
                 "spec.scheduler.config.profiles[0].plugins.filter.enabled[1].name)"));
    cr_expect(eq(int, err.line, 12));
    cr_expect(eq(int, err.col, 21));
    gs_scenario_free(&sc);

    cr_assert(eq(int, load("      - plugins: {bind: {disabled: [{name: DefaultBinder}]}}\n", &sc, &err), GS_EINVAL));
    cr_expect(eq(str, err.msg,
                 "spec.scheduler.config.profiles[0].plugins: at least one bind plugin is needed for profile with "
                 "scheduler name \"default-scheduler\""));
    cr_expect(eq(int, err.line, 8));
    cr_expect(eq(int, err.col, 18));
    gs_scenario_free(&sc);

    /* Open-Gpu-Share is known (always on): naming it at a point it implements is accepted. */
    cr_assert(eq(int, load("      - plugins: {filter: {enabled: [{name: Open-Gpu-Share}]}}\n", &sc, &err), 0), "%s",
              err.msg);
    gs_scenario_free(&sc);
}

/* ------------------------------------------------------------------ the tables */

static int table_names(struct gs_sched *s, enum gs_ext_point pt, const char **names, int64_t *w)
{
    const struct gs_sched_plugin *p[GS_PL_COUNT];
    int n = gs_sched_table(s, pt, p, w, GS_PL_COUNT);
    for (int i = 0; i < n; i++)
        names[i] = p[i]->name;
    return n;
}

static void expect_table(struct gs_sched *s, enum gs_ext_point pt, const char *const *want, int nwant)
{
    const char *got[GS_PL_COUNT];
    int n = table_names(s, pt, got, NULL);
    cr_expect(eq(int, n, nwant), "%s table", gs_ext_point_key(pt));
    for (int i = 0; i < n && i < nwant; i++)
        cr_expect(eq(str, (char *)got[i], (char *)want[i]), "%s[%d]", gs_ext_point_key(pt), i);
}

Test(sched_tables, default_profile_order)
{
    struct fx *f = fx_new();
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    static const char *const filter[] = {"NodeUnschedulable", "NodeName",         "TaintToleration", "NodeAffinity",
                                         "NodeResourcesFit",  "DynamicResources", "Open-Gpu-Share"};
    expect_table(s, GS_EP_FILTER, filter, 7);
    static const char *const pre_filter[] = {"NodeAffinity", "DynamicResources", "Open-Gpu-Share"};
    expect_table(s, GS_EP_PRE_FILTER, pre_filter, 3);
    static const char *const post_filter[] = {"DynamicResources", "DefaultPreemption"};
    expect_table(s, GS_EP_POST_FILTER, post_filter, 2);
    static const char *const score[] = {"TaintToleration", "NodeAffinity", "NodeResourcesFit",
                                        "NodeResourcesBalancedAllocation"};
    const char *got[GS_PL_COUNT];
    int64_t w[GS_PL_COUNT];
    int n = table_names(s, GS_EP_SCORE, got, w);
    cr_assert(eq(int, n, 4));
    const int64_t want_w[] = {3, 2, 1, 1};
    for (int i = 0; i < 4; i++) {
        cr_expect(eq(str, (char *)got[i], (char *)score[i]));
        cr_expect(eq(i64, w[i], want_w[i]), "%s", score[i]);
    }
    static const char *const pre_bind[] = {"DynamicResources", "Open-Gpu-Share"};
    expect_table(s, GS_EP_PRE_BIND, pre_bind, 2);
    static const char *const bind[] = {"DefaultBinder"};
    expect_table(s, GS_EP_BIND, bind, 1);
    cr_expect(eq(str, (char *)gs_sched_queue_sort(s)->name, "PrioritySort"));
    cr_expect(eq(int, gs_sched_table(s, GS_EP_PERMIT, NULL, NULL, 0), 0));
    gs_sched_free(s);

    /* 1.31: no DynamicResources. */
    c = fx_cfg(31);
    s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    static const char *const post31[] = {"DefaultPreemption"};
    expect_table(s, GS_EP_POST_FILTER, post31, 1);
    gs_sched_free(s);
    fx_free(f);
}

/* expandMultiPointPlugins' order: a plugin enabled at the point too comes first (its override),
 * then multiPoint's, then the point's others; Open-Gpu-Share stays last. The first failing
 * filter in that order is the node's status, whether or not it is a static one. */
Test(sched_tables, point_override_order_decides_the_status)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 4000, 8 * GI, 0);
    fx_taint(f, n, "dedicated", "x", GS_EFFECT_NO_SCHEDULE);
    fx_run(f, "busy", fx_tmpl(f, 3000, GI, 0, 0), n, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 2000, GI, 0, 0));
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    struct gs_node_status st;
    gs_sched_filter_node(s, p, n, &st);
    cr_expect(eq(int, st.plugin, GS_PL_TAINT_TOLERATION));
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    cr_expect(eq(u32, r.unsched_plugins, 1u << GS_PL_TAINT_TOLERATION));
    gs_sched_free(s);

    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.point[GS_EP_FILTER], "NodeResourcesFit", 0, -1), 0));
    s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    static const char *const filter[] = {"NodeResourcesFit", "NodeUnschedulable", "NodeName",      "TaintToleration",
                                         "NodeAffinity",     "DynamicResources",  "Open-Gpu-Share"};
    expect_table(s, GS_EP_FILTER, filter, 7);
    gs_sched_filter_node(s, p, n, &st);
    cr_expect(eq(int, st.plugin, GS_PL_NODE_RESOURCES_FIT));
    cr_expect(eq(str, (char *)st.reasons[0], "Insufficient cpu"));
    gs_sched_cycle(s, p, &r);
    cr_expect(eq(u32, r.unsched_plugins, 1u << GS_PL_NODE_RESOURCES_FIT));
    cr_expect(eq(str, (char *)r.message,
                 "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are "
                 "available: 1 No preemption victims found for incoming pod."));
    /* Again from the template caches: the same answer. */
    gs_sched_cycle(s, p, &r);
    cr_expect(eq(u32, r.unsched_plugins, 1u << GS_PL_NODE_RESOURCES_FIT));
    gs_sched_free(s);
    fx_free(f);
}

/* ------------------------------------------------------------------ the binding points */

/* A client that records what the plugins ask of it. */
struct rec {
    char calls[32][64];
    int ncalls;
    int rejected[16], nrejected;
    const char *reject_msg;
    enum gs_plugin reject_plugin;
};

static void rec_add(struct rec *r, const char *fmt, int a, int b)
{
    cr_assert(lt(int, r->ncalls, 32));
    snprintf(r->calls[r->ncalls++], sizeof r->calls[0], fmt, a, b);
}

static int rec_claims(void *ctx, int pod, int node)
{
    rec_add(ctx, "claims_bind %d %d", pod, node);
    return 0;
}

static void rec_share(void *ctx, int pod, int gpu)
{
    rec_add(ctx, "set_share_gpu %d %d", pod, gpu);
}

static int rec_bind(void *ctx, int pod, int node)
{
    rec_add(ctx, "bind %d %d", pod, node);
    return 0;
}

static void rec_activate(void *ctx, int pod)
{
    rec_add(ctx, "activate %d", pod, 0);
}

static void rec_reject(void *ctx, int pod, enum gs_plugin plugin, const char *msg)
{
    struct rec *r = ctx;
    r->rejected[r->nrejected++] = pod;
    r->reject_msg = msg;
    r->reject_plugin = plugin;
}

static struct gs_sched_client client_of(struct rec *r)
{
    memset(r, 0, sizeof *r);
    return (struct gs_sched_client){.ctx = r,
                                    .claims_bind = rec_claims,
                                    .set_share_gpu = rec_share,
                                    .bind = rec_bind,
                                    .activate = rec_activate,
                                    .reject_waiting = rec_reject};
}

Test(sched_binding, default_profile_prebind_then_bind)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 4);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    struct rec r;
    struct gs_sched_client cl = client_of(&r);
    gs_world_assign(&f->w, p, n);
    cr_expect(eq(int, gs_sched_reserve(s, p, n, &cl), GS_ST_SUCCESS));
    struct gs_permit_result pr;
    gs_sched_permit(s, p, n, &cl, &pr);
    cr_expect(eq(int, pr.code, GS_PERMIT_ALLOW));
    cr_expect_not(pr.allow_siblings);
    cr_expect(eq(int, gs_sched_prebind(s, p, n, &cl), GS_ST_SUCCESS));
    cr_expect(eq(int, gs_sched_bind(s, p, n, &cl), GS_ST_SUCCESS));
    /* DynamicResources' PreBind, then Open-Gpu-Share's (no share: -1), then DefaultBinder. */
    cr_assert(eq(int, r.ncalls, 3));
    cr_expect(eq(str, r.calls[0], "claims_bind 0 0"));
    cr_expect(eq(str, r.calls[1], "set_share_gpu 0 -1"));
    cr_expect(eq(str, r.calls[2], "bind 0 0"));
    gs_sched_free(s);

    /* 1.31: no DynamicResources, so no claims. */
    c = fx_cfg(31);
    s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    cl = client_of(&r);
    cr_expect(eq(int, gs_sched_prebind(s, p, n, &cl), GS_ST_SUCCESS));
    cr_assert(eq(int, r.ncalls, 1));
    cr_expect(eq(str, r.calls[0], "set_share_gpu 0 -1"));
    gs_sched_free(s);
    fx_free(f);
}

/* A PodGroup of `n` pods of template t with minMember `min`. */
static int group_of(struct fx *f, const char *name, int min, const struct gs_pod_template *t, int *pods, int n)
{
    struct gs_world *w = &f->w;
    cr_assert(eq(int, gs_array_grow((void **)&w->groups, &w->groups_cap, w->ngroups + 1, sizeof *w->groups), 0));
    int gi = w->ngroups++;
    struct gs_group *g = &w->groups[gi];
    memset(g, 0, sizeof *g);
    g->name = name;
    g->workload = -1;
    g->min_member = min;
    g->first_pod = g->last_pod = -1;
    g->schedule_timeout_us = -1;
    for (int i = 0; i < n; i++) {
        char pn[32];
        snprintf(pn, sizeof pn, "%s-%d", name, i);
        pods[i] = fx_pod(f, gs_arena_strdup(&w->arena, pn), t);
        if (g->last_pod >= 0)
            w->pods[g->last_pod].next_in_group = pods[i];
        else
            g->first_pod = pods[i];
        g->last_pod = pods[i];
        g->npods++;
        w->pods[pods[i]].group = gi;
    }
    return gi;
}

static struct gs_sched_config cosched_cfg(void)
{
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "Coscheduling", 0, -1), 0));
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_QUEUE_SORT], "PrioritySort", -1), 0));
    return c;
}

/* Coscheduling's Permit: Wait (permitWaitingTimeSeconds, or the group's scheduleTimeoutSeconds)
 * while fewer than minMember pods are assigned, activating the siblings; Allow with the waiting
 * siblings once minMember are. */
Test(sched_binding, coscheduling_permit)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 64000, 256 * GI, 8);
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int pods[3];
    int gi = group_of(f, "pg", 3, t, pods, 3);
    int solo = fx_pod(f, "solo", t);
    struct gs_sched_config c = cosched_cfg();
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    cr_expect(eq(str, (char *)gs_sched_queue_sort(s)->name, "Coscheduling"));
    static const char *const permit[] = {"Coscheduling"};
    expect_table(s, GS_EP_PERMIT, permit, 1);
    static const char *const reserve[] = {"Coscheduling"};
    expect_table(s, GS_EP_RESERVE, reserve, 1);
    struct rec r;
    struct gs_sched_client cl = client_of(&r);
    struct gs_permit_result pr;

    gs_world_assign(&f->w, pods[0], n);
    cr_expect(eq(int, gs_sched_reserve(s, pods[0], n, &cl), GS_ST_SUCCESS));
    gs_sched_permit(s, pods[0], n, &cl, &pr);
    cr_expect(eq(int, pr.code, GS_PERMIT_WAIT));
    cr_expect(eq(i64, pr.wait_us, GS_SEC(60)));
    cr_expect(eq(int, pr.plugin, GS_PL_COSCHEDULING));
    cr_assert(eq(int, r.ncalls, 2));
    cr_expect(eq(str, r.calls[0], "activate 1"));
    cr_expect(eq(str, r.calls[1], "activate 2"));

    f->w.groups[gi].schedule_timeout_us = GS_SEC(30);
    gs_world_assign(&f->w, pods[1], n);
    cl = client_of(&r);
    gs_sched_permit(s, pods[1], n, &cl, &pr);
    cr_expect(eq(int, pr.code, GS_PERMIT_WAIT));
    cr_expect(eq(i64, pr.wait_us, GS_SEC(30)));

    gs_world_assign(&f->w, pods[2], n);
    cl = client_of(&r);
    gs_sched_permit(s, pods[2], n, &cl, &pr);
    cr_expect(eq(int, pr.code, GS_PERMIT_ALLOW));
    cr_expect(pr.allow_siblings);
    cr_expect(eq(int, r.ncalls, 0));

    /* A pod outside any PodGroup is allowed at once. */
    gs_world_assign(&f->w, solo, n);
    gs_sched_permit(s, solo, n, &cl, &pr);
    cr_expect(eq(int, pr.code, GS_PERMIT_ALLOW));
    cr_expect_not(pr.allow_siblings);
    gs_sched_free(s);
    fx_free(f);
}

/* Coscheduling's Unreserve rejects the group's pods waiting at Permit through the client and
 * backs the group off (podGroupBackoffSeconds), which its PreFilter then reports. */
Test(sched_binding, coscheduling_unreserve_rejects_waiting_and_backs_off)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 64000, 256 * GI, 8);
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int pods[4];
    group_of(f, "pg", 4, t, pods, 4);
    struct gs_sched_config c = cosched_cfg();
    c.pg_backoff_us = GS_SEC(20);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    for (int i = 0; i < 3; i++) {
        gs_world_assign(&f->w, pods[i], n);
        f->w.pods[pods[i]].permit_waiting = i > 0; /* pods 1 and 2 wait; pod 0 timed out */
    }
    struct rec r;
    struct gs_sched_client cl = client_of(&r);
    gs_sched_unreserve(s, pods[0], n, GS_SEC(100), &cl);
    cr_assert(eq(int, r.nrejected, 2));
    cr_expect(eq(int, r.rejected[0], pods[1]));
    cr_expect(eq(int, r.rejected[1], pods[2]));
    cr_expect(eq(str, (char *)r.reject_msg, "rejection in Unreserve"));
    cr_expect(eq(int, r.reject_plugin, GS_PL_COSCHEDULING));

    /* Backed off until 100 s + 20 s: the PreFilter lets the group through from then on. */
    for (int i = 0; i < 3; i++) {
        gs_world_unassign(&f->w, pods[i]);
        f->w.pods[pods[i]].permit_waiting = false; /* what the client's rejection does */
    }
    struct gs_cycle_result res;
    gs_sched_set_now(s, GS_SEC(120));
    gs_sched_cycle(s, pods[3], &res);
    cr_expect(eq(int, res.node, n));
    /* Unreserve again at 200 s: until 220 s the PreFilter rejects every pod of the group (and
     * its PostFilter rejects the group again, the group being far from minMember). */
    cl = client_of(&r);
    gs_sched_unreserve(s, pods[0], n, GS_SEC(200), &cl);
    cr_expect(eq(int, r.nrejected, 0)); /* nobody waits any more */
    gs_sched_set_now(s, GS_SEC(219));
    gs_sched_cycle(s, pods[3], &res);
    cr_expect(eq(int, res.node, -1));
    cr_expect(res.reject_group);
    cr_expect(eq(str, (char *)res.message,
                 "0/1 nodes are available: podGroup default/pg failed recently. no new claims to deallocate, "
                 "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling., PodGroup "
                 "default/pg gets rejected due to Pod pg-3 is unschedulable even after PostFilter"));
    cr_expect(eq(u32, res.unsched_plugins, 1u << GS_PL_COSCHEDULING));
    gs_sched_free(s);

    /* A new scheduler (a restart) has no backoff: its PreFilter lets the group through. */
    s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    gs_sched_set_now(s, GS_SEC(101));
    gs_sched_cycle(s, pods[3], &res);
    cr_expect(eq(int, res.node, n));
    gs_sched_free(s);
    fx_free(f);
}
