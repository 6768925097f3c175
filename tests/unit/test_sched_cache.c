/* The bookkeeping behind the scheduler's fast path: the world's per-node lowest pod priority and
 * node-change log, and the scheduler's caches (static verdicts, node copies, template summaries,
 * kept messages), which must give exactly what a fresh scheduler computes from scratch. */
#include "sched_fixture.h"

#include "models/sched/sched_internal.h" /* gs_tmpl_static_equal */

/* ------------------------------------------------------------------ world bookkeeping */

static void check_min_prio(const struct fx *f, int n)
{
    const struct gs_node *nd = &f->w.nodes[n];
    int32_t want = gs_node_min_priority_walk(&f->w, n);
    cr_assert_eq(nd->min_prio, want, "node %d: min_prio %d, walk %d", n, nd->min_prio, want);
    int at_min = 0;
    for (int q = nd->first_pod; q >= 0; q = f->w.pods[q].next_on_node)
        at_min += f->w.pods[q].tmpl->priority == want;
    cr_assert_eq(nd->nmin_prio, at_min, "node %d: nmin_prio %d, walk %d", n, nd->nmin_prio, at_min);
}

Test(sched_cache, min_priority_follows_assign_unassign)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 64000, 256 * GI, 8);
    cr_assert_eq(f->w.nodes[n].min_prio, INT32_MAX);
    cr_assert_eq(f->w.nodes[n].nmin_prio, 0);
    const struct gs_pod_template *lo = fx_tmpl(f, 100, MI, 0, -5), *mid = fx_tmpl(f, 100, MI, 0, 10),
                                 *hi = fx_tmpl(f, 100, MI, 0, 1000);
    int a = fx_run(f, "a", mid, n, 0);
    cr_assert_eq(f->w.nodes[n].min_prio, 10);
    int b = fx_run(f, "b", hi, n, 0);
    cr_assert_eq(f->w.nodes[n].min_prio, 10);
    int c = fx_run(f, "c", lo, n, 0);
    int d = fx_run(f, "d", lo, n, 0);
    cr_assert_eq(f->w.nodes[n].min_prio, -5);
    cr_assert_eq(f->w.nodes[n].nmin_prio, 2);
    gs_world_unassign(&f->w, c);
    cr_assert_eq(f->w.nodes[n].min_prio, -5, "one pod of the lowest priority is left");
    cr_assert_eq(f->w.nodes[n].nmin_prio, 1);
    gs_world_unassign(&f->w, d);
    cr_assert_eq(f->w.nodes[n].min_prio, 10, "the lowest left: recomputed from the list");
    gs_world_unassign(&f->w, a);
    cr_assert_eq(f->w.nodes[n].min_prio, 1000);
    gs_world_unassign(&f->w, b);
    cr_assert_eq(f->w.nodes[n].min_prio, INT32_MAX);
    cr_assert_eq(f->w.nodes[n].nmin_prio, 0);
    gs_world_unassign(&f->w, b); /* not bound: nothing changes */
    cr_assert_eq(f->w.nodes[n].min_prio, INT32_MAX);
    fx_free(f);
}

Test(sched_cache, min_priority_random_sequences)
{
    struct fx *f = fx_new();
    int nodes[3];
    for (int i = 0; i < 3; i++)
        nodes[i] = fx_node(f, "n", i, 1000000, 1024 * GI, 8);
    const struct gs_pod_template *t[4];
    int32_t prios[4] = {-3, 0, 0, 7};
    for (int i = 0; i < 4; i++)
        t[i] = fx_tmpl(f, 1, 1, 0, prios[i]);
    enum { NP = 40 };
    int pods[NP];
    char name[16];
    for (int i = 0; i < NP; i++) {
        snprintf(name, sizeof name, "p%d", i);
        pods[i] = fx_pod(f, name, t[i % 4]);
    }
    uint32_t x = 12345;
    for (int step = 0; step < 4000; step++) {
        x = x * 1103515245u + 12345u;
        int p = pods[(x >> 8) % NP];
        if (f->w.pods[p].node >= 0)
            gs_world_unassign(&f->w, p);
        else
            gs_world_assign(&f->w, p, nodes[(x >> 20) % 3]);
        for (int i = 0; i < 3; i++)
            check_min_prio(f, nodes[i]);
    }
    fx_free(f);
}

Test(sched_cache, node_changes_are_logged)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 8000, 32 * GI, 4);
    int b = fx_node(f, "b", 0, 8000, 32 * GI, 4);
    uint64_t c0 = f->w.node_changes;
    cr_assert_eq(c0, 2, "adding a node is a change");
    cr_assert_eq(f->w.node_change_log[0], a);
    cr_assert_eq(f->w.node_change_log[1], b);
    int p = fx_run(f, "p", fx_tmpl(f, 100, MI, 1, 0), b, 0);
    cr_assert_eq(f->w.node_changes, c0 + 1);
    cr_assert_eq(f->w.node_change_log[c0 % GS_NODE_CHANGE_LOG], b);
    uint32_t gen = f->w.nodes[a].gen;
    gs_node_touch(&f->w, a);
    cr_assert_eq(f->w.nodes[a].gen, gen + 1);
    cr_assert_eq(f->w.node_changes, c0 + 2);
    cr_assert_eq(f->w.node_change_log[(c0 + 1) % GS_NODE_CHANGE_LOG], a);
    gs_world_unassign(&f->w, p);
    cr_assert_eq(f->w.node_changes, c0 + 3);
    cr_assert_eq(f->w.node_change_log[(c0 + 2) % GS_NODE_CHANGE_LOG], b);
    cr_assert_eq(f->w.nodes[b].gen, 1, "assignments do not move the static generation");
    fx_free(f);
}

/* ------------------------------------------------------------------ scheduler caches */

/* One cycle of a long-lived scheduler; the message is copied to *msg. */
static struct gs_cycle_result cycle_keep(struct gs_sched *s, int p, char *msg, size_t len)
{
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    snprintf(msg, len, "%s", r.message ? r.message : "");
    return r;
}

/* The long-lived scheduler `s` and a fresh one agree on pod p's cycle (failing cycles: the
 * fresh one has no cache, and its walk starts elsewhere, which a failing cycle does not see). */
static void same_as_fresh(struct fx *f, struct gs_sched *s, const struct gs_sched_config *c, int p)
{
    char kept[4096];
    struct gs_cycle_result r = cycle_keep(s, p, kept, sizeof kept);
    struct gs_cycle_result fresh = fx_cycle_cfg(f, c, p);
    cr_assert_str_eq(kept, f->msg);
    cr_assert_eq(r.node, fresh.node);
    cr_assert_eq(r.unsched_plugins, fresh.unsched_plugins);
    cr_assert_eq(r.feasible, fresh.feasible);
    cr_assert_eq(r.nominated_node, fresh.nominated_node);
    cr_assert_eq(r.nvictims, fresh.nvictims);
    cr_assert_eq(r.clear_nomination, fresh.clear_nomination);
    if (r.node < 0)
        cr_assert_eq(r.evaluated, fresh.evaluated);
}

/* A label change flips NodeAffinity's verdict for a scheduler that already cached it. */
Test(sched_cache, label_change_flips_affinity)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 8000, 32 * GI, 4);
    int b = fx_node(f, "b", 0, 8000, 32 * GI, 4);
    fx_label(f, a, "zone", "x");
    fx_label(f, b, "zone", "x");
    struct gs_pod_template *t = fx_tmpl(f, 100, MI, 1, 0);
    struct gs_kv sel = {"zone", "y"};
    t->node_selector = (struct gs_labels){.kv = &sel, .n = 1, .cap = 1};
    int p = fx_pod(f, "p", t);
    struct gs_sched_config c = fx_cfg(31);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    char msg[4096];
    for (int i = 0; i < 3; i++) {
        struct gs_cycle_result r = cycle_keep(s, p, msg, sizeof msg);
        cr_assert_eq(r.node, -1);
        cr_assert_str_eq(msg, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
                              "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
        cr_assert_eq(r.unsched_plugins, 1u << GS_PL_NODE_AFFINITY);
    }
    fx_label(f, b, "zone", "y");
    gs_node_touch(&f->w, b);
    struct gs_cycle_result r = cycle_keep(s, p, msg, sizeof msg);
    cr_assert_eq(r.node, b, "the relabelled node now matches");
    /* Back: no node matches again. */
    fx_label(f, b, "zone", "z");
    gs_node_touch(&f->w, b);
    same_as_fresh(f, s, &c, p);
    cr_assert_str_eq(f->msg, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. "
                             "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    gs_sched_free(s);
    fx_free(f);
}

/* Cordoning and a new taint, each followed by gs_node_touch, reach a scheduler with cached
 * verdicts; templates with the same static parts share them, other templates do not. */
Test(sched_cache, cordon_and_taint_reach_cached_verdicts)
{
    struct fx *f = fx_new();
    int a = fx_node(f, "a", 0, 8000, 32 * GI, 4);
    int b = fx_node(f, "b", 0, 8000, 32 * GI, 4);
    fx_run(f, "fill-a", fx_tmpl(f, 100, MI, 4, 0), a, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 2, 0));
    int q = fx_pod(f, "q", fx_tmpl(f, 200, 2 * MI, 2, 0)); /* same static parts as p's */
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    char msg[4096];
    cr_assert_eq(cycle_keep(s, p, msg, sizeof msg).node, b);
    cr_assert_eq(cycle_keep(s, q, msg, sizeof msg).node, b);
    f->w.nodes[b].unschedulable = true;
    gs_node_touch(&f->w, b);
    for (int i = 0; i < 2; i++) {
        same_as_fresh(f, s, &c, p);
        cr_assert_str_eq(f->msg, "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were "
                                 "unschedulable. " "no new claims to deallocate, preemption: 0/2 nodes are "
                                 "available: 1 No preemption victims found for incoming pod, 1 Preemption is not "
                                 "helpful for scheduling.");
        same_as_fresh(f, s, &c, q);
    }
    f->w.nodes[b].unschedulable = false;
    fx_taint(f, b, "gpu", "busy", GS_EFFECT_NO_SCHEDULE);
    gs_node_touch(&f->w, b);
    same_as_fresh(f, s, &c, p);
    cr_assert_str_eq(f->msg, "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated "
                             "taint {gpu: busy}. no new claims to deallocate, preemption: 0/2 nodes are available: 1 "
                             "No preemption victims found for incoming pod, 1 Preemption is not helpful for "
                             "scheduling.");
    /* A template tolerating the taint has verdicts of its own. */
    struct gs_pod_template *tol = fx_tmpl(f, 100, MI, 2, 0);
    struct gs_toleration tt = {.key = "gpu", .op = GS_TOL_EXISTS, .value = "", .effect = GS_EFFECT_ALL,
                               .toleration_seconds = -1};
    tol->tolerations = &tt;
    tol->ntolerations = 1;
    int r = fx_pod(f, "r", tol);
    cr_assert_eq(cycle_keep(s, r, msg, sizeof msg).node, b);
    same_as_fresh(f, s, &c, p);
    gs_sched_free(s);
    fx_free(f);
}

/* Repeated failing cycles of one template (the summary and its kept message), then resources
 * freed and taken, give what a fresh scheduler gives each time. */
Test(sched_cache, summary_follows_pods_coming_and_going)
{
    struct fx *f = fx_new();
    int nodes[6];
    for (int i = 0; i < 6; i++)
        nodes[i] = fx_node(f, "n", i, 16000, 64 * GI, 4);
    fx_taint(f, nodes[5], "team", "b", GS_EFFECT_NO_SCHEDULE);
    struct gs_pod_template *small = fx_tmpl(f, 1000, GI, 3, 0);
    int fill[6];
    char name[16];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "fill-%d", i);
        fill[i] = fx_run(f, name, small, nodes[i], 0);
    }
    int p = fx_pod(f, "p", fx_tmpl(f, 1000, GI, 3, 0));
    struct gs_sched_config c = fx_cfg(33);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    for (int i = 0; i < 4; i++)
        same_as_fresh(f, s, &c, p);
    cr_assert_str_eq(f->msg, "0/6 nodes are available: 1 node(s) had untolerated taint {team: b}, 5 Insufficient "
                             "nvidia.com/gpu. preemption: 0/6 nodes are available: 1 Preemption is not helpful for "
                             "scheduling, 5 No preemption victims found for incoming pod.");
    /* A node leaves the cluster, then comes back. */
    f->w.nodes[nodes[4]].exists = false;
    gs_node_touch(&f->w, nodes[4]);
    same_as_fresh(f, s, &c, p);
    cr_assert_str_eq(f->msg, "0/5 nodes are available: 1 node(s) had untolerated taint {team: b}, 4 Insufficient "
                             "nvidia.com/gpu. preemption: 0/5 nodes are available: 1 Preemption is not helpful for "
                             "scheduling, 4 No preemption victims found for incoming pod.");
    f->w.nodes[nodes[4]].exists = true;
    gs_node_touch(&f->w, nodes[4]);
    same_as_fresh(f, s, &c, p);
    /* Room appears on node 2: the next cycle binds there. */
    gs_world_unassign(&f->w, fill[2]);
    struct gs_cycle_result r;
    gs_sched_cycle(s, p, &r);
    cr_assert_eq(r.node, nodes[2]);
    gs_world_assign(&f->w, p, nodes[2]);
    /* A second pod of the same template fails again; its allocatable grows on node 3. */
    int p2 = fx_pod(f, "p2", f->w.pods[p].tmpl);
    same_as_fresh(f, s, &c, p2);
    same_as_fresh(f, s, &c, p2);
    f->w.nodes[nodes[3]].allocatable.v[f->gpu] = 8;
    gs_node_touch(&f->w, nodes[3]);
    gs_sched_cycle(s, p2, &r);
    cr_assert_eq(r.node, nodes[3]);
    gs_sched_free(s);
    fx_free(f);
}

/* Lower-priority pods on the nodes: the summary-based cycle preempts as the walk does. */
Test(sched_cache, summary_with_preemption_victims)
{
    int minors[] = {28, 31, 35};
    for (int m = 0; m < 3; m++) {
        struct fx *f = fx_new();
        int nodes[4];
        for (int i = 0; i < 4; i++)
            nodes[i] = fx_node(f, "n", i, 16000, 64 * GI, 4);
        fx_run(f, "hi-0", fx_tmpl(f, 1000, GI, 4, 100), nodes[0], 0);
        fx_run(f, "hi-1", fx_tmpl(f, 1000, GI, 4, 100), nodes[1], 0);
        int lo = fx_run(f, "lo-2", fx_tmpl(f, 1000, GI, 3, -1), nodes[2], 10);
        fx_run(f, "eq-3", fx_tmpl(f, 1000, GI, 3, 50), nodes[3], 0);
        struct gs_pod_template *t = fx_tmpl(f, 1000, GI, 2, 50);
        int p = fx_pod(f, "p", t);
        int q = fx_pod(f, "q", t);
        struct gs_sched_config c = fx_cfg(minors[m]);
        struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
        /* First walk (no summary yet), then summary-based cycles for another pod of the
         * template: both nominate node 2 and evict lo-2. */
        same_as_fresh(f, s, &c, p);
        same_as_fresh(f, s, &c, q);
        struct gs_cycle_result r;
        gs_sched_cycle(s, q, &r);
        cr_assert_eq(r.nominated_node, nodes[2]);
        cr_assert_eq(r.nvictims, 1);
        cr_assert_eq(r.victims[0], lo);
        /* With lo-2 gone and no victims anywhere: "No preemption victims" on the Unschedulable
         * nodes, kept message and all. */
        gs_world_unassign(&f->w, lo);
        fx_run(f, "eq-2", fx_tmpl(f, 1000, GI, 3, 50), nodes[2], 0);
        same_as_fresh(f, s, &c, q);
        same_as_fresh(f, s, &c, q);
        gs_sched_free(s);
        fx_free(f);
    }
}

/* More templates than cache slots (static verdicts are shared only by equal static parts,
 * summaries are per template), nodes added past the scheduler's first capacity, generic taint
 * texts: the long-lived scheduler still agrees with fresh ones. */
Test(sched_cache, many_templates_and_growing_nodes)
{
    struct fx *f = fx_new();
    char buf[32];
    const struct gs_pod_template *fill = fx_tmpl(f, 100, MI, 3, 0);
    for (int i = 0; i < 60; i++) {
        int n = fx_node(f, "n", i, 16000, 64 * GI, 4);
        snprintf(buf, sizeof buf, "z%d", i % 5);
        fx_label(f, n, "zone", buf);
        if (i % 7 == 0)
            fx_taint(f, n, "team", i % 2 ? "a" : "b", GS_EFFECT_NO_SCHEDULE);
        snprintf(buf, sizeof buf, "fill-%d", i);
        fx_run(f, buf, fill, n, 0);
    }
    /* Templates 0..39 select zones z0..z39 (most match nothing); 40..49 repeat the static parts
     * of 0..9 with their own strings. */
    enum { NT = 50 };
    static struct gs_kv sel[NT];
    static struct gs_toleration tol[NT];
    int pods[NT];
    for (int i = 0; i < NT; i++) {
        struct gs_pod_template *t = fx_tmpl(f, 100, MI, 2, 0);
        snprintf(buf, sizeof buf, "z%d", i < 40 ? i : i - 40);
        sel[i] = (struct gs_kv){gs_arena_strdup(&f->w.arena, "zone"), gs_arena_strdup(&f->w.arena, buf)};
        t->node_selector = (struct gs_labels){.kv = &sel[i], .n = 1, .cap = 1};
        tol[i] = (struct gs_toleration){.key = gs_arena_strdup(&f->w.arena, "team"), .op = GS_TOL_EQUAL,
                                        .value = gs_arena_strdup(&f->w.arena, "a"), .effect = GS_EFFECT_NO_SCHEDULE,
                                        .toleration_seconds = -1};
        t->tolerations = &tol[i];
        t->ntolerations = 1;
        snprintf(buf, sizeof buf, "p%d", i);
        pods[i] = fx_pod(f, buf, t);
    }
    int minors[] = {34, 35};
    for (int m = 0; m < 2; m++) {
        struct gs_sched_config c = fx_cfg(minors[m]);
        struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
        for (int round = 0; round < 3; round++)
            for (int i = 0; i < NT; i++)
                same_as_fresh(f, s, &c, pods[(i * 7 + round) % NT]);
        /* Ten more nodes (past the first 64), some matching z1 with room. */
        for (int i = 60; i < 70; i++) {
            int n = fx_node(f, "n", i + m * 10, 16000, 64 * GI, i % 2 ? 4 : 1);
            fx_label(f, n, "zone", "z1");
        }
        for (int i = 0; i < NT; i++)
            same_as_fresh(f, s, &c, pods[i]);
        gs_sched_free(s);
    }
    fx_free(f);
}

/* Which templates share static verdicts: equal nodeName, tolerations, nodeSelector and node
 * affinity by content (not by pointer); requests and priority do not matter. */
Test(sched_cache, static_parts_equality)
{
    struct fx *f = fx_new();
    struct gs_pod_template *a = fx_tmpl(f, 100, MI, 1, 0), *b = fx_tmpl(f, 900, GI, 2, 50);
    cr_assert(gs_tmpl_static_equal(a, b));
    const char *va[] = {"x", "y"}, *vb[] = {"x", "y"}, *vc[] = {"x", "z"};
    char key_copy[] = "zone";
    struct gs_requirement ra = {"zone", GS_OP_IN, va, 2}, rb = {key_copy, GS_OP_IN, vb, 2}, rc = {"zone", GS_OP_IN, vc, 2};
    struct gs_term ta = {.exprs = &ra, .nexprs = 1}, tb = {.exprs = &rb, .nexprs = 1}, tc = {.exprs = &rc, .nexprs = 1};
    a->affinity = (struct gs_node_affinity){.required = &ta, .nrequired = 1, .has_required = true};
    cr_assert_not(gs_tmpl_static_equal(a, b));
    b->affinity = (struct gs_node_affinity){.required = &tb, .nrequired = 1, .has_required = true};
    cr_assert(gs_tmpl_static_equal(a, b), "same content, other strings");
    b->affinity.required = &tc;
    cr_assert_not(gs_tmpl_static_equal(a, b));
    b->affinity.required = &tb;
    struct gs_preferred_term pa = {10, ta}, pb = {20, tb};
    a->affinity.preferred = &pa;
    a->affinity.npreferred = 1;
    b->affinity.preferred = &pb;
    b->affinity.npreferred = 1;
    cr_assert_not(gs_tmpl_static_equal(a, b), "preferred weights differ");
    pb.weight = 10;
    cr_assert(gs_tmpl_static_equal(a, b));
    b->node_name = "n-0";
    cr_assert_not(gs_tmpl_static_equal(a, b));
    fx_free(f);
}
