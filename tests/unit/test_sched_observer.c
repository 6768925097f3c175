/* The scheduler observer (models/sched/sched.h gs_sched_set_observer): every node's verdict
 * of a cycle (the first failing Filter plugin and its reasons, or success; a PreFilter
 * rejection on every node), the per-plugin normalised scores and weights of the feasible nodes,
 * and the result; the same whether the cycle walks the nodes or answers from its template
 * summary (cache.c), and the same result as without an observer. */
#include "sched_fixture.h"

#include <criterion/new/assert.h>

#include "base/array.h"

#define REC_MAX 256

/* What the observer was told, in order. */
struct rec {
    int pod;
    int nfiltered;
    struct {
        int node;
        int code;
        int plugin;
        char reasons[256]; /* joined by "; " */
    } f[REC_MAX];
    int nscored;
    struct {
        int node;
        int plugin;
        int64_t score, weight;
    } sc[REC_MAX];
    int ndone;
    int done_node;
    char done_msg[1024];
};

static void on_filtered(void *ctx, int pod, int node, const struct gs_node_status *st)
{
    struct rec *r = ctx;
    cr_assert(eq(int, pod, r->pod));
    cr_assert(lt(int, r->nfiltered, REC_MAX));
    cr_assert(eq(int, r->ndone, 0), "filtered after done");
    int k = r->nfiltered++;
    r->f[k].node = node;
    r->f[k].code = st->code;
    r->f[k].plugin = st->plugin;
    size_t len = 0;
    r->f[k].reasons[0] = '\0';
    for (int i = 0; i < st->nreasons; i++)
        len += (size_t)snprintf(r->f[k].reasons + len, sizeof r->f[k].reasons - len, "%s%s", i ? "; " : "",
                                st->reasons[i]);
}

static void on_scored(void *ctx, int pod, int node, enum gs_plugin plugin, int64_t score, int64_t weight)
{
    struct rec *r = ctx;
    cr_assert(eq(int, pod, r->pod));
    cr_assert(lt(int, r->nscored, REC_MAX));
    int k = r->nscored++;
    r->sc[k].node = node;
    r->sc[k].plugin = plugin;
    r->sc[k].score = score;
    r->sc[k].weight = weight;
}

static void on_done(void *ctx, int pod, const struct gs_cycle_result *res)
{
    struct rec *r = ctx;
    cr_assert(eq(int, pod, r->pod));
    r->ndone++;
    r->done_node = res->node;
    snprintf(r->done_msg, sizeof r->done_msg, "%s", res->message ? res->message : "");
}

static void observe(struct gs_sched *s, struct rec *r, int pod)
{
    memset(r, 0, sizeof *r);
    r->pod = pod;
    struct gs_sched_observer o = {.ctx = r, .filtered = on_filtered, .scored = on_scored, .done = on_done};
    gs_sched_set_observer(s, &o);
}

/* The verdict reported for node n (index into r->f), -1 when none; asserts it is reported once. */
static int verdict_of(const struct rec *r, int n)
{
    int at = -1;
    for (int i = 0; i < r->nfiltered; i++)
        if (r->f[i].node == n) {
            cr_assert(eq(int, at, -1), "node %d reported twice", n);
            at = i;
        }
    return at;
}

/* Sum of score * weight the observer reported for node n. */
static int64_t sum_of(const struct rec *r, int n, int *nplugins)
{
    int64_t sum = 0;
    *nplugins = 0;
    for (int i = 0; i < r->nscored; i++)
        if (r->sc[i].node == n) {
            sum += r->sc[i].score * r->sc[i].weight;
            (*nplugins)++;
        }
    return sum;
}

/* A 4-GPU pod without tolerations on four nodes: one tainted, one with 2 GPUs, two that fit.
 * The tainted node is rejected by TaintToleration (the taint named, 1.34), the small one by
 * NodeResourcesFit; the other two are feasible and scored; each node's reported scores times
 * weights sum to gs_sched_score_node's total, and the winner's to the cycle's score. */
Test(sched_observer, rejected_by_two_plugins_and_scored)
{
    struct fx *f = fx_new();
    int n0 = fx_node(f, "tainted", 0, 32000, 128 * GI, 8);
    fx_taint(f, n0, "nvidia.com/gpu", "present", GS_EFFECT_NO_SCHEDULE);
    int n1 = fx_node(f, "small", 0, 32000, 128 * GI, 2);
    int n2 = fx_node(f, "big", 0, 32000, 128 * GI, 8);
    int n3 = fx_node(f, "busy", 0, 32000, 128 * GI, 8);
    fx_run(f, "holder", fx_tmpl(f, 16000, 64 * GI, 4, 0), n3, 0);
    int p = fx_pod(f, "trainer", fx_tmpl(f, 4000, 16 * GI, 4, 0));
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    struct rec *r = calloc(1, sizeof *r);
    observe(s, r, p);
    struct gs_cycle_result res;
    gs_sched_cycle(s, p, &res);

    cr_assert(eq(int, r->ndone, 1));
    cr_expect(eq(int, r->done_node, n2)); /* least allocated */
    cr_expect(eq(int, res.node, n2));
    cr_assert(eq(int, r->nfiltered, 4));
    cr_expect(eq(int, res.evaluated, 4));
    int k0 = verdict_of(r, n0), k1 = verdict_of(r, n1), k2 = verdict_of(r, n2), k3 = verdict_of(r, n3);
    cr_assert(ge(int, k0, 0));
    cr_assert(ge(int, k1, 0));
    cr_assert(ge(int, k2, 0));
    cr_assert(ge(int, k3, 0));
    cr_expect(eq(int, r->f[k0].code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE));
    cr_expect(eq(str, (char *)gs_plugin_name(r->f[k0].plugin), "TaintToleration"));
    cr_expect(eq(str, r->f[k0].reasons, "node(s) had untolerated taint {nvidia.com/gpu: present}"));
    cr_expect(eq(str, (char *)gs_plugin_name(r->f[k1].plugin), "NodeResourcesFit"));
    cr_expect(eq(str, r->f[k1].reasons, "Insufficient nvidia.com/gpu"));
    cr_expect(eq(int, r->f[k2].code, GS_ST_SUCCESS));
    cr_expect(eq(str, r->f[k2].reasons, ""));
    cr_expect(eq(int, r->f[k3].code, GS_ST_SUCCESS));

    /* Only feasible nodes are scored, by the default Score plugins with their weights. */
    int np2 = 0, np3 = 0;
    int64_t s2 = sum_of(r, n2, &np2), s3 = sum_of(r, n3, &np3);
    cr_expect(eq(int, np2, np3));
    cr_expect(eq(int, np2 + np3, r->nscored));
    cr_expect(gt(int, np2, 1));
    bool fit = false, balanced = false;
    for (int i = 0; i < r->nscored; i++) {
        cr_expect(r->sc[i].node == n2 || r->sc[i].node == n3);
        cr_expect(ge(i64, r->sc[i].score, 0));
        cr_expect(le(i64, r->sc[i].score, 100));
        if (r->sc[i].plugin == GS_PL_NODE_RESOURCES_FIT) {
            fit = true;
            cr_expect(eq(i64, r->sc[i].weight, 1));
        }
        if (r->sc[i].plugin == GS_PL_BALANCED_ALLOCATION) {
            balanced = true;
            cr_expect(eq(i64, r->sc[i].weight, 1));
        }
        if (r->sc[i].plugin == GS_PL_TAINT_TOLERATION)
            cr_expect(eq(i64, r->sc[i].weight, 3));
    }
    cr_expect(fit);
    cr_expect(balanced);
    cr_expect(eq(i64, s2, res.score));
    cr_expect(gt(i64, s2, s3));
    int feas[] = {n2, n3};
    cr_expect(eq(i64, gs_sched_score_node(s, p, feas, 2, n2), s2));
    cr_expect(eq(i64, gs_sched_score_node(s, p, feas, 2, n3), s3));
    free(r);
    gs_sched_free(s);
    fx_free(f);
}

/* The generic taint text of 1.35 (kubernetes PR 134740), and a node passing every filter but
 * the only one: no Score reports (scoring does not run for one feasible node). */
Test(sched_observer, one_feasible_node_is_not_scored)
{
    struct fx *f = fx_new();
    int n0 = fx_node(f, "tainted", 0, 32000, 128 * GI, 8);
    fx_taint(f, n0, "nvidia.com/gpu", "present", GS_EFFECT_NO_SCHEDULE);
    int n1 = fx_node(f, "free", 0, 32000, 128 * GI, 8);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    struct gs_sched_config c = fx_cfg(35);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct rec *r = calloc(1, sizeof *r);
    observe(s, r, p);
    struct gs_cycle_result res;
    gs_sched_cycle(s, p, &res);
    cr_expect(eq(int, res.node, n1));
    cr_assert(eq(int, r->nfiltered, 2));
    cr_expect(eq(str, r->f[verdict_of(r, n0)].reasons, "node(s) had untolerated taint(s)"));
    cr_expect(eq(int, r->f[verdict_of(r, n1)].code, GS_ST_SUCCESS));
    cr_expect(eq(int, r->nscored, 0));
    cr_expect(eq(int, r->ndone, 1));
    free(r);
    gs_sched_free(s);
    fx_free(f);
}

/* A pod that fits nowhere, tried three times with one scheduler: the first cycle walks the
 * nodes, the later ones answer from the template summary (cache.c) without walking. Every
 * cycle reports every node with the same verdicts, and the results (node, message, evaluated)
 * equal those of a scheduler without an observer. */
Test(sched_observer, summary_cycles_report_every_node)
{
    struct fx *f = fx_new();
    int nodes[6];
    for (int i = 0; i < 6; i++)
        nodes[i] = fx_node(f, "n", i, 32000, 128 * GI, 4);
    fx_taint(f, nodes[5], "dedicated", "infer", GS_EFFECT_NO_SCHEDULE);
    fx_run(f, "h0", fx_tmpl(f, 1000, GI, 2, 0), nodes[0], 0);
    int p = fx_pod(f, "wide", fx_tmpl(f, 1000, GI, 8, 0));
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct gs_sched *plain = gs_sched_new(&f->w, &c, NULL);
    struct rec *r = calloc(1, sizeof *r);
    char first[1024] = "";
    for (int attempt = 0; attempt < 3; attempt++) {
        observe(s, r, p);
        struct gs_cycle_result res, want;
        gs_sched_cycle(s, p, &res);
        gs_sched_cycle(plain, p, &want);
        cr_expect(eq(int, res.node, -1));
        cr_expect(eq(str, (char *)res.message, (char *)want.message));
        cr_expect(eq(int, res.evaluated, want.evaluated));
        cr_expect(eq(int, res.unsched_plugins, want.unsched_plugins));
        cr_expect(eq(str, r->done_msg, (char *)want.message));
        cr_assert(eq(int, r->nfiltered, 6), "attempt %d", attempt);
        for (int i = 0; i < 5; i++) {
            int k = verdict_of(r, nodes[i]);
            cr_assert(ge(int, k, 0));
            cr_expect(eq(str, (char *)gs_plugin_name(r->f[k].plugin), "NodeResourcesFit"));
            cr_expect(eq(str, r->f[k].reasons, "Insufficient nvidia.com/gpu"));
        }
        int k5 = verdict_of(r, nodes[5]);
        cr_expect(eq(str, (char *)gs_plugin_name(r->f[k5].plugin), "TaintToleration"));
        cr_expect(eq(str, r->f[k5].reasons, "node(s) had untolerated taint {dedicated: infer}"));
        cr_expect(eq(int, r->nscored, 0));
        if (attempt == 0)
            snprintf(first, sizeof first, "%s", r->done_msg);
        else
            cr_expect(eq(str, r->done_msg, first));
    }
    cr_expect(eq(str, first,
                 "0/6 nodes are available: 1 node(s) had untolerated taint {dedicated: infer}, 5 Insufficient "
                 "nvidia.com/gpu. no new claims to deallocate, preemption: 0/6 nodes are available: 6 Preemption "
                 "is not helpful for scheduling."));
    /* Removed, the observer hears nothing more. */
    gs_sched_set_observer(s, NULL);
    memset(r, 0, sizeof *r);
    r->pod = p;
    struct gs_cycle_result res;
    gs_sched_cycle(s, p, &res);
    cr_expect(eq(int, r->nfiltered, 0));
    cr_expect(eq(int, r->ndone, 0));
    free(r);
    gs_sched_free(s);
    gs_sched_free(plain);
    fx_free(f);
}

/* A PodGroup of `n` pods of template t with minMember `min` (as test_sched_plugins.c). */
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

/* A PreFilter rejection (Coscheduling: too few siblings) is reported on every node with the
 * plugin and its status text, which is what FailedScheduling quotes. */
Test(sched_observer, prefilter_rejection_on_every_node)
{
    struct fx *f = fx_new();
    int n0 = fx_node(f, "a", 0, 64000, 256 * GI, 8);
    int n1 = fx_node(f, "b", 0, 64000, 256 * GI, 8);
    int n2 = fx_node(f, "c", 0, 64000, 256 * GI, 8);
    struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 1, 0);
    int pods[2];
    group_of(f, "pg", 3, t, pods, 2);
    struct gs_sched_config c = fx_cfg(34);
    cr_assert(eq(int, gs_plugin_set_enable(&c.plugins.multi_point, "Coscheduling", 0, -1), 0));
    cr_assert(eq(int, gs_plugin_set_disable(&c.plugins.point[GS_EP_QUEUE_SORT], "PrioritySort", -1), 0));
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(ne(ptr, s, NULL));
    struct rec *r = calloc(1, sizeof *r);
    observe(s, r, pods[0]);
    struct gs_cycle_result res;
    gs_sched_cycle(s, pods[0], &res);
    cr_expect(eq(int, res.node, -1));
    cr_assert(eq(int, r->nfiltered, 3));
    int ns[] = {n0, n1, n2};
    for (int i = 0; i < 3; i++) {
        int k = verdict_of(r, ns[i]);
        cr_assert(ge(int, k, 0));
        cr_expect(eq(int, r->f[k].code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE));
        cr_expect(eq(str, (char *)gs_plugin_name(r->f[k].plugin), "Coscheduling"));
        /* The FailedScheduling text is "0/3 nodes are available: <the status text>. ..." */
        char want[1100];
        snprintf(want, sizeof want, "0/3 nodes are available: %s.", r->f[k].reasons);
        cr_expect(eq(int, strncmp(res.message, want, strlen(want)), 0), "%s | %s", res.message, want);
        cr_expect(ne(ptr, strstr(r->f[k].reasons, "pg"), NULL), "%s", r->f[k].reasons);
    }
    cr_expect(eq(int, r->nscored, 0));
    cr_expect(eq(int, r->ndone, 1));
    free(r);
    gs_sched_free(s);
    fx_free(f);
}

/* A pod nominated to a node that now fits: only that node is judged (evaluateNominatedNode),
 * and reported once. */
Test(sched_observer, nominated_node_reported_once)
{
    struct fx *f = fx_new();
    int n0 = fx_node(f, "a", 0, 64000, 256 * GI, 8);
    int n1 = fx_node(f, "b", 0, 64000, 256 * GI, 8);
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 1, 0));
    f->w.pods[p].nominated_node = n1;
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct rec *r = calloc(1, sizeof *r);
    observe(s, r, p);
    struct gs_cycle_result res;
    gs_sched_cycle(s, p, &res);
    cr_expect(eq(int, res.node, n1));
    cr_assert(eq(int, r->nfiltered, 1));
    cr_expect(eq(int, r->f[0].node, n1));
    cr_expect(eq(int, r->f[0].code, GS_ST_SUCCESS));
    cr_expect(eq(int, verdict_of(r, n0), -1));
    free(r);
    gs_sched_free(s);
    fx_free(f);
}
