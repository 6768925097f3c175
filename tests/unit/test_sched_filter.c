/* The filter plugins one node at a time (gs_sched_filter_node). */
#include "sched_fixture.h"

static struct gs_node_status filter(struct fx *f, int minor, int p, int n)
{
    struct gs_sched_config c = fx_cfg(minor);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    cr_assert(s);
    struct gs_node_status st;
    gs_sched_filter_node(s, p, n, &st);
    /* reasons may live in the scheduler's scratch: copy them out */
    static char keep[GS_MAX_REASONS][256];
    for (int i = 0; i < st.nreasons; i++) {
        snprintf(keep[i], sizeof keep[i], "%s", st.reasons[i]);
        st.reasons[i] = keep[i];
    }
    gs_sched_free(s);
    return st;
}

Test(sched_filter, fit_reasons_in_upstream_order)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 4000, 8 * GI, 4);
    f->w.nodes[n].allocatable.v[GS_RES_PODS] = 1;
    f->w.nodes[n].allocatable.v[GS_RES_EPHEMERAL] = 10 * GI;
    fx_run(f, "busy", fx_tmpl(f, 3000, 6 * GI, 3, 0), n, 0);
    struct gs_pod_template *t = fx_tmpl(f, 2000, 4 * GI, 2, 0);
    t->requests.v[GS_RES_EPHEMERAL] = 20 * GI;
    int p = fx_pod(f, "p", t);
    struct gs_node_status st = filter(f, 31, p, n);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE);
    cr_assert_eq(st.plugin, GS_PL_NODE_RESOURCES_FIT);
    cr_assert_eq(st.nreasons, 5);
    const char *want[] = {"Too many pods", "Insufficient cpu", "Insufficient memory",
                          "Insufficient ephemeral-storage", "Insufficient nvidia.com/gpu"};
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq(st.reasons[i], want[i]);
    /* 1.34: ephemeral-storage (20Gi > 10Gi allocatable) makes it unresolvable */
    cr_assert_eq(filter(f, 34, p, n).code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    t->requests.v[GS_RES_EPHEMERAL] = 0;
    st = filter(f, 34, p, n);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE);
    cr_assert_eq(st.nreasons, 4);
    fx_free(f);
}

Test(sched_filter, fit_pods_and_zero_requests)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 4000, 8 * GI, 4);
    f->w.nodes[n].allocatable.v[GS_RES_PODS] = 1;
    /* overcommitted cpu (allocatable shrank below the requests) */
    fx_run(f, "busy", fx_tmpl(f, 3000, GI, 0, 0), n, 0);
    f->w.nodes[n].allocatable.v[GS_RES_CPU] = 2000;
    int be = fx_pod(f, "be", fx_tmpl(f, 0, 0, 0, 0));
    struct gs_node_status st = filter(f, 34, be, n);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE); /* "Too many pods" is never unresolvable */
    cr_assert_eq(st.nreasons, 1);
    cr_assert_str_eq(st.reasons[0], "Too many pods");
    /* a memory-only pod does not trip over the overcommitted cpu */
    f->w.nodes[n].allocatable.v[GS_RES_PODS] = 110;
    int mem = fx_pod(f, "mem", fx_tmpl(f, 0, GI, 0, 0));
    cr_assert_eq(filter(f, 31, mem, n).code, GS_ST_SUCCESS);
    int cpu = fx_pod(f, "cpu", fx_tmpl(f, 100, GI, 0, 0));
    st = filter(f, 31, cpu, n);
    cr_assert_eq(st.nreasons, 1);
    cr_assert_str_eq(st.reasons[0], "Insufficient cpu");
    fx_free(f);
}

Test(sched_filter, unschedulable_name_taints)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 8);
    f->w.nodes[n].unschedulable = true;
    fx_taint(f, n, "soft", "x", GS_EFFECT_PREFER_NO_SCHEDULE);
    fx_taint(f, n, "ok", "y", GS_EFFECT_NO_SCHEDULE);
    fx_taint(f, n, "evict", "z", GS_EFFECT_NO_EXECUTE);
    fx_taint(f, n, "later", "w", GS_EFFECT_NO_SCHEDULE);
    struct gs_pod_template *t = fx_tmpl(f, 100, MI, 0, 0);
    int p = fx_pod(f, "p", t);
    struct gs_node_status st = filter(f, 34, p, n);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    cr_assert_eq(st.plugin, GS_PL_NODE_UNSCHEDULABLE);
    cr_assert_str_eq(st.reasons[0], "node(s) were unschedulable");
    /* tolerating the unschedulable taint and ok:y: the first untolerated is the NoExecute one */
    static struct gs_toleration tols[] = {
        {"node.kubernetes.io/unschedulable", GS_TOL_EXISTS, "", GS_EFFECT_NO_SCHEDULE, -1},
        {"ok", GS_TOL_EQUAL, "y", GS_EFFECT_ALL, -1},
    };
    t->tolerations = tols;
    t->ntolerations = 2;
    st = filter(f, 34, p, n);
    cr_assert_eq(st.plugin, GS_PL_TAINT_TOLERATION);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    cr_assert_str_eq(st.reasons[0], "node(s) had untolerated taint {evict: z}");
    cr_assert_str_eq(filter(f, 35, p, n).reasons[0], "node(s) had untolerated taint(s)");
    /* an empty-key Exists toleration tolerates everything */
    static struct gs_toleration all = {"", GS_TOL_EXISTS, "", GS_EFFECT_ALL, -1};
    t->tolerations = &all;
    t->ntolerations = 1;
    cr_assert_eq(filter(f, 34, p, n).code, GS_ST_SUCCESS);
    /* spec.nodeName */
    t->node_name = "other";
    st = filter(f, 34, p, n);
    cr_assert_eq(st.plugin, GS_PL_NODE_NAME);
    cr_assert_str_eq(st.reasons[0], "node(s) didn't match the requested node name");
    t->node_name = "n-0";
    cr_assert_eq(filter(f, 34, p, n).code, GS_ST_SUCCESS);
    fx_free(f);
}

static int affinity_pod(struct fx *f, struct gs_term *terms, int nterms)
{
    struct gs_pod_template *t = fx_tmpl(f, 100, MI, 0, 0);
    t->affinity.required = terms;
    t->affinity.nrequired = nterms;
    t->affinity.has_required = true;
    return fx_pod(f, "p", t);
}

static bool passes(struct fx *f, int p, int n)
{
    struct gs_node_status st = filter(f, 31, p, n);
    if (st.code != GS_ST_SUCCESS) {
        cr_assert_eq(st.plugin, GS_PL_NODE_AFFINITY);
        cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
        cr_assert_str_eq(st.reasons[0], "node(s) didn't match Pod's node affinity/selector");
    }
    return st.code == GS_ST_SUCCESS;
}

Test(sched_filter, node_affinity_operators)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 8);
    fx_label(f, n, "gpu.count", "8");
    fx_label(f, n, "gpu.product", "H100");
    fx_label(f, n, "odd", "x8");
    static const char *h100[] = {"H100"}, *a100[] = {"A100"}, *four[] = {"4"}, *nine[] = {"9"}, *bad[] = {"4x"},
                      *name[] = {"n-0"}, *two[] = {"4", "5"};
    struct {
        struct gs_requirement r;
        bool want;
    } cases[] = {
        {{"gpu.product", GS_OP_IN, h100, 1}, true},
        {{"gpu.product", GS_OP_IN, a100, 1}, false},
        {{"gpu.product", GS_OP_NOT_IN, a100, 1}, true},
        {{"absent", GS_OP_NOT_IN, a100, 1}, true},
        {{"absent", GS_OP_IN, a100, 1}, false},
        {{"gpu.product", GS_OP_EXISTS, NULL, 0}, true},
        {{"absent", GS_OP_EXISTS, NULL, 0}, false},
        {{"absent", GS_OP_DOES_NOT_EXIST, NULL, 0}, true},
        {{"gpu.count", GS_OP_GT, four, 1}, true},
        {{"gpu.count", GS_OP_LT, four, 1}, false},
        {{"gpu.count", GS_OP_LT, nine, 1}, true},
        {{"absent", GS_OP_GT, four, 1}, false},
        {{"odd", GS_OP_GT, four, 1}, false},          /* the label does not parse */
        {{"gpu.count", GS_OP_GT, bad, 1}, false},     /* the requirement does not parse */
        {{"gpu.count", GS_OP_GT, two, 2}, false},     /* Gt needs exactly one value */
        {{"gpu.product", GS_OP_IN, NULL, 0}, false},  /* In needs values */
        {{"absent", GS_OP_DOES_NOT_EXIST, h100, 1}, false}, /* DoesNotExist takes none */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gs_term term = {&cases[i].r, 1, NULL, 0};
        int p = affinity_pod(f, &term, 1);
        cr_assert_eq(passes(f, p, n), cases[i].want, "case %zu", i);
    }
    /* matchFields metadata.name, In and NotIn */
    struct gs_requirement fin = {"metadata.name", GS_OP_IN, name, 1}, fout = {"metadata.name", GS_OP_NOT_IN, name, 1};
    struct gs_term tin = {NULL, 0, &fin, 1}, tout = {NULL, 0, &fout, 1};
    cr_assert(passes(f, affinity_pod(f, &tin, 1), n));
    cr_assert_not(passes(f, affinity_pod(f, &tout, 1), n));
    /* terms are ORed, a bad term does not spoil a good one; expressions are ANDed */
    struct gs_requirement good = {"gpu.product", GS_OP_IN, h100, 1}, broken = {"gpu.count", GS_OP_GT, bad, 1},
                          miss = {"gpu.product", GS_OP_IN, a100, 1};
    struct gs_term ored[] = {{&broken, 1, NULL, 0}, {&good, 1, NULL, 0}};
    cr_assert(passes(f, affinity_pod(f, ored, 2), n));
    struct gs_requirement anded[] = {good, miss};
    struct gs_term tand = {anded, 2, NULL, 0};
    cr_assert_not(passes(f, affinity_pod(f, &tand, 1), n));
    /* an empty term selects nothing; so do zero terms */
    struct gs_term empty = {NULL, 0, NULL, 0};
    cr_assert_not(passes(f, affinity_pod(f, &empty, 1), n));
    cr_assert_not(passes(f, affinity_pod(f, NULL, 0), n));
    /* nodeSelector is ANDed with the terms */
    struct gs_pod_template *t = fx_tmpl(f, 100, MI, 0, 0);
    cr_assert_eq(gs_labels_set(&t->node_selector, &f->w.arena, "gpu.product", "H100"), 0);
    int p = fx_pod(f, "sel", t);
    cr_assert(passes(f, p, n));
    cr_assert_eq(gs_labels_set(&t->node_selector, &f->w.arena, "zone", "a"), 0);
    cr_assert_not(passes(f, p, n));
    fx_free(f);
}

Test(sched_filter, ignored_resources)
{
    struct fx *f = fx_new();
    int n = fx_node(f, "n", 0, 8000, 32 * GI, 0);
    int p = fx_pod(f, "p", fx_tmpl(f, 100, MI, 1, 0));
    struct gs_sched_config c = fx_cfg(34);
    struct gs_sched *s = gs_sched_new(&f->w, &c, NULL);
    struct gs_node_status st;
    gs_sched_filter_node(s, p, n, &st);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    gs_sched_free(s);
    c.nignored_res = 1;
    c.ignored_res[0] = "nvidia.com/gpu";
    s = gs_sched_new(&f->w, &c, NULL);
    gs_sched_filter_node(s, p, n, &st);
    cr_assert_eq(st.code, GS_ST_SUCCESS);
    gs_sched_free(s);
    c.nignored_res = 0;
    c.nignored_groups = 1;
    c.ignored_groups[0] = "nvidia.com";
    s = gs_sched_new(&f->w, &c, NULL);
    gs_sched_filter_node(s, p, n, &st);
    cr_assert_eq(st.code, GS_ST_SUCCESS);
    gs_sched_free(s);
    c.ignored_groups[0] = "nvidia";
    s = gs_sched_new(&f->w, &c, NULL);
    gs_sched_filter_node(s, p, n, &st);
    cr_assert_eq(st.code, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE);
    gs_sched_free(s);
    fx_free(f);
}
