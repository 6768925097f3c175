/* MIG (mig.h, models/mig.c, models/mig_expose.c, sim/mig_catalog.c, sim/migparted.c): the shipped
 * profile tables load and say what the reference says; layouts that fit and that do not; profiles
 * a GPU lacks; the operator's named configs and a user's mig-parted file applied to a node; the
 * resources of the strategies none, single and mixed; the GFD MIG labels; loader errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "models/catalog.h"
#include "models/dpconfig.h"
#include "models/mig.h"
#include "sim/scenario/mig_yaml.h"

static struct gs_arena arena;
static struct gs_mig_catalog cat;
static struct gs_error err;
static struct gs_labels labels;
static char dir[64];

static void setup(void)
{
    memset(&arena, 0, sizeof arena);
    memset(&cat, 0, sizeof cat);
    memset(&err, 0, sizeof err);
    memset(&labels, 0, sizeof labels);
    dir[0] = '\0';
    int rc = gs_mig_catalog_load(GPUSIM_SOURCE_DIR "/models/catalog", &arena, &cat, &err);
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

static void teardown(void)
{
    gs_arena_free(&arena);
    if (dir[0]) {
        char p[128];
        snprintf(p, sizeof p, "%s/mig-profiles.yaml", dir);
        unlink(p);
        rmdir(dir);
    }
}

TestSuite(mig, .init = setup, .fini = teardown);

static const struct gs_mig_gpu *gpu(const char *name)
{
    const struct gs_mig_gpu *g = gs_mig_gpu_by_name(&cat, name);
    cr_assert_not_null(g, "%s missing", name);
    return g;
}

/* A layout of `g` from name/count pairs (NULL-terminated names). */
static struct gs_mig_layout layout(const struct gs_mig_gpu *g, const char *const *names, const int *counts)
{
    struct gs_mig_count c[8];
    int n = 0;
    for (; names[n]; n++)
        c[n] = (struct gs_mig_count){.profile = names[n], .count = counts[n]};
    struct gs_mig_layout l;
    char why[256];
    cr_assert_eq(gs_mig_layout_from_counts(g, c, n, &l, why, sizeof why), 0, "%s", why);
    return l;
}

/* ------------------------------------------------------------------ tables */

Test(mig, every_table_loads)
{
    static const struct {
        const char *name;
        int nprofiles, slices;
        const char *first, *last;
        bool unverified;
    } want[] = {
        {"A100-40GB", 7, 7, "1g.5gb", "7g.40gb", false},  {"A100-80GB", 7, 7, "1g.10gb", "7g.80gb", false},
        {"H100-80GB", 7, 7, "1g.10gb", "7g.80gb", false}, {"H100-94GB", 7, 7, "1g.12gb", "7g.94gb", false},
        {"H200", 7, 7, "1g.18gb", "7g.141gb", false},     {"A30", 5, 4, "1g.6gb", "4g.24gb", false},
        {"B200", 7, 7, "1g.23gb", "7g.180gb", true},
    };
    cr_assert_eq(cat.ngpus, 7);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct gs_mig_gpu *g = gpu(want[i].name);
        cr_expect_eq(g->nprofiles, want[i].nprofiles, "%s", want[i].name);
        cr_expect_eq(g->compute_slices, want[i].slices, "%s", want[i].name);
        cr_expect_str_eq(g->profiles[0].name, want[i].first);
        cr_expect_str_eq(g->profiles[g->nprofiles - 1].name, want[i].last);
        cr_expect_eq(g->unverified, want[i].unverified, "%s", want[i].name);
        /* every profile's placements stay inside the GPU, and the whole-GPU profile is ID 0 */
        for (int k = 0; k < g->nprofiles; k++)
            for (int s = 0; s < g->profiles[k].nstarts; s++)
                cr_expect_leq(g->profiles[k].starts[s] + g->profiles[k].memory_slices, g->memory_slices);
        cr_expect_eq(g->profiles[g->nprofiles - 1].id, 0);
    }
    /* reference §5.1: IDs 19/20/15/14/9/5/0 and their placements (A100-40GB) */
    const struct gs_mig_gpu *a = gpu("A100-40GB");
    static const int ids[] = {19, 20, 15, 14, 9, 5, 0};
    static const int nstarts[] = {7, 7, 4, 3, 2, 1, 1};
    for (int k = 0; k < 7; k++) {
        cr_expect_eq(a->profiles[k].id, ids[k]);
        cr_expect_eq(a->profiles[k].nstarts, nstarts[k]);
    }
    cr_expect_eq(a->profiles[4].starts[1], 4); /* 3g at {0,4}:4 */
    cr_expect_eq(a->profiles[4].memory_slices, 4);
    cr_expect_eq(a->profiles[4].compute_slices, 3);
    /* H100 -lgip: 1g.10gb 9.75 GiB, 16 SMs; A30 1g.6gb is ID 14 */
    const struct gs_mig_gpu *h = gpu("H100-80GB");
    cr_expect_eq(h->profiles[0].memory_mib, 9984);
    cr_expect_eq(h->profiles[0].multiprocessors, 16);
    cr_expect_eq(gpu("A30")->profiles[0].id, 14);
    cr_expect_eq(gs_mig_profile_find(h, "1g.10gb+me"), 1);
    cr_expect_eq(gs_mig_profile_find(h, "1g.10gb.me"), -1);
}

Test(mig, products_match_the_gpu_catalog)
{
    struct gs_catalog gc;
    int rc = gs_catalog_load(GPUSIM_SOURCE_DIR "/models/catalog", &arena, &gc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    for (int i = 0; i < cat.ngpus; i++)
        for (int j = 0; j < cat.gpus[i].nproducts; j++) {
            const char *p = cat.gpus[i].products[j];
            const struct gs_gpu_product *gp = gs_catalog_product(&gc, p);
            if (strcmp(p, "NVIDIA-A30") == 0) { /* not in gpus.yaml yet (reported) */
                cr_expect_null(gp);
                continue;
            }
            cr_expect_not_null(gp, "%s (%s) not in gpus.yaml", p, cat.gpus[i].name);
            if (gp)
                cr_expect(gp->mig_capable, "%s", p);
        }
    cr_expect_eq(gs_mig_gpu_for_product(&cat, "NVIDIA-A100-PCIE-40GB"), gpu("A100-40GB"));
    cr_expect_null(gs_mig_gpu_for_product(&cat, "NVIDIA-L4"));
}

/* ------------------------------------------------------------------ placements */

Test(mig, seven_1g_fit_an_a100_40gb)
{
    const struct gs_mig_gpu *a = gpu("A100-40GB");
    struct gs_mig_layout l = layout(a, (const char *[]){"1g.5gb", NULL}, (int[]){7});
    struct gs_mig_placement pl[8];
    int n;
    char why[256];
    cr_assert_eq(gs_mig_layout_check(&l, pl, &n, why, sizeof why), 0, "%s", why);
    cr_expect_eq(n, 7);
    for (int k = 0; k < 7; k++)
        cr_expect_eq(pl[k].start, k); /* slices 0..6; slice 7 unused (reference §5.1) */
    cr_expect_eq(gs_mig_layout_instances(&l), 7);
}

Test(mig, layouts_that_fit)
{
    const struct gs_mig_gpu *a = gpu("A100-80GB");
    char why[256];
    struct gs_mig_layout l = layout(a, (const char *[]){"4g.40gb", "3g.40gb", NULL}, (int[]){1, 1});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), 0, "%s", why);
    l = layout(a, (const char *[]){"2g.20gb", "1g.10gb", NULL}, (int[]){3, 1}); /* case c08, GPU 0 */
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), 0, "%s", why);
    l = layout(a, (const char *[]){"1g.20gb", NULL}, (int[]){4});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), 0, "%s", why);
    l = layout(gpu("A30"), (const char *[]){"1g.6gb", "2g.12gb", NULL}, (int[]){2, 1});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), 0, "%s", why);
    /* the 3g goes to 4 only when the 2g and 1g take 0..2 */
    l = layout(a, (const char *[]){"1g.10gb", "2g.20gb", "3g.40gb", NULL}, (int[]){2, 1, 1});
    struct gs_mig_placement pl[8];
    int n;
    cr_expect_eq(gs_mig_layout_check(&l, pl, &n, why, sizeof why), 0, "%s", why);
    cr_expect_eq(n, 4);
    cr_expect_str_eq(a->profiles[pl[0].profile].name, "3g.40gb");
    cr_expect_eq(pl[0].start, 4); /* at 0, the 2g (0/2/4) and two 1g (0..6) cannot all fit */
    /* MIG disabled, no instances: valid */
    struct gs_mig_layout off = {.gpu = a};
    cr_expect_eq(gs_mig_layout_check(&off, NULL, NULL, why, sizeof why), 0);
}

Test(mig, layouts_that_do_not_fit)
{
    const struct gs_mig_gpu *a = gpu("A100-40GB");
    char why[256];
    struct gs_mig_layout l = layout(a, (const char *[]){"1g.5gb", NULL}, (int[]){8});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "8 x 1g.5gb exceeds the 7 instances A100-40GB allows");

    l = layout(a, (const char *[]){"2g.10gb", "4g.20gb", NULL}, (int[]){2, 1});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "2g.10gb x 2 + 4g.20gb x 1 needs 8 compute slices; A100-40GB has 7");

    l = layout(a, (const char *[]){"1g.5gb", "3g.20gb", NULL}, (int[]){1, 2});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "no placement of 1g.5gb x 1 + 3g.20gb x 2 fits the 8 memory slices of A100-40GB");

    l = layout(a, (const char *[]){"1g.10gb", "1g.5gb", NULL}, (int[]){4, 1});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), GS_EINVAL);
    cr_expect(strstr(why, "no placement") != NULL, "%s", why);

    l = layout(a, (const char *[]){"1g.5gb+me", NULL}, (int[]){2});
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "2 x 1g.5gb+me exceeds the 1 instance A100-40GB allows");

    /* instances with MIG disabled */
    l.enabled = false;
    cr_expect_eq(gs_mig_layout_check(&l, NULL, NULL, why, sizeof why), GS_EINVAL);
    cr_expect(strstr(why, "MIG mode is disabled") != NULL);
}

Test(mig, a_profile_the_gpu_lacks)
{
    struct gs_mig_count c = {.profile = "1g.10gb+me", .count = 1};
    struct gs_mig_layout l;
    char why[256];
    cr_expect_eq(gs_mig_layout_from_counts(gpu("A100-40GB"), &c, 1, &l, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "A100-40GB has no MIG profile '1g.10gb+me'");
    c.profile = "1g.10gb.me"; /* the config-name spelling */
    cr_expect_eq(gs_mig_layout_from_counts(gpu("H100-80GB"), &c, 1, &l, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "H100-80GB has no MIG profile '1g.10gb.me' (did you mean '1g.10gb+me'?)");
    c.profile = "7g.80gb";
    cr_expect_eq(gs_mig_layout_from_counts(gpu("A30"), &c, 1, &l, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "A30 has no MIG profile '7g.80gb'");
}

/* ------------------------------------------------------------------ named configs */

static struct gs_mig_outcome apply(const char *name, const char *product, int n, struct gs_mig_layout *cur,
                                   struct gs_mig_layout *next)
{
    struct gs_mig_outcome o;
    gs_mig_apply(&cat, &cat.defaults, name, product, n, cur, next, &o);
    return o;
}

Test(mig, operator_default_configs)
{
    cr_expect_not_null(gs_migparted_find(&cat.defaults, "all-disabled"));
    cr_expect_not_null(gs_migparted_find(&cat.defaults, "all-enabled"));
    cr_expect_not_null(gs_migparted_find(&cat.defaults, "all-balanced"));
    cr_expect_not_null(gs_migparted_find(&cat.defaults, "all-2g.20gb"));
    cr_expect_not_null(gs_migparted_find(&cat.defaults, "all-1g.10gb.me"));

    struct gs_mig_layout cur[8], next[8];
    /* all-1g.10gb: 7 per GPU on 80 GB parts, 4 per GPU on A100-40GB (device filters) */
    gs_mig_layout_init(&cat, "NVIDIA-A100-SXM4-80GB", 8, cur);
    struct gs_mig_outcome o = apply("all-1g.10gb", "NVIDIA-A100-SXM4-80GB", 8, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect(o.mode_change);
    cr_expect_eq(o.gpus_changed, 8);
    for (int i = 0; i < 8; i++)
        cr_expect_eq(gs_mig_layout_instances(&next[i]), 7);
    gs_mig_layout_init(&cat, "NVIDIA-A100-SXM4-40GB", 8, cur);
    o = apply("all-1g.10gb", "NVIDIA-A100-SXM4-40GB", 8, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect_eq(next[3].count[gs_mig_profile_find(next[3].gpu, "1g.10gb")], 4);

    /* all-balanced per product */
    o = apply("all-balanced", "NVIDIA-A100-SXM4-40GB", 8, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect_eq(gs_mig_layout_instances(&next[0]), 4);
    cr_expect_eq(next[0].count[gs_mig_profile_find(next[0].gpu, "1g.5gb")], 2);
    gs_mig_layout_init(&cat, "NVIDIA-A30", 4, cur);
    o = apply("all-balanced", "NVIDIA-A30", 4, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect_eq(gs_mig_layout_instances(&next[2]), 3);

    /* applying it again changes nothing: success at once, no disruption */
    struct gs_mig_layout again[4];
    memcpy(cur, next, sizeof next[0] * 4);
    o = apply("all-balanced", "NVIDIA-A30", 4, cur, again);
    cr_expect_eq(o.state, GS_MIG_STATE_SUCCESS);
    cr_expect(o.noop);
    cr_expect_not(o.mode_change);

    /* back to all-disabled: a mode change */
    o = apply("all-disabled", "NVIDIA-A30", 4, cur, next);
    cr_expect_eq(o.state, GS_MIG_STATE_SUCCESS);
    cr_expect(o.mode_change);
    cr_expect_not(next[0].enabled);

    /* all-enabled: MIG on, no instances */
    o = apply("all-enabled", "NVIDIA-A30", 4, cur, next);
    cr_expect_eq(o.state, GS_MIG_STATE_SUCCESS);
    cr_expect(next[1].enabled);
    cr_expect_eq(gs_mig_layout_instances(&next[1]), 0);
}

Test(mig, configs_that_fail)
{
    struct gs_mig_layout cur[8], next[8];
    gs_mig_layout_init(&cat, "NVIDIA-H100-80GB-HBM3", 8, cur);
    /* a profile H100 lacks */
    struct gs_mig_outcome o = apply("all-1g.5gb", "NVIDIA-H100-80GB-HBM3", 8, cur, next);
    cr_expect_eq(o.state, GS_MIG_STATE_FAILED);
    cr_expect_str_eq(o.reason, "config 'all-1g.5gb': GPU 0: H100-80GB has no MIG profile '1g.5gb'");
    for (int i = 0; i < 8; i++)
        cr_expect_not(next[i].enabled); /* layouts unchanged */
    cr_expect_str_eq(gs_mig_state_name(o.state), "failed");

    /* an unknown config name */
    cr_expect_eq(gs_mig_apply(&cat, &cat.defaults, "all-9g.90gb", "NVIDIA-H100-80GB-HBM3", 8, cur, next, &o),
                 GS_EINVAL);
    cr_expect_eq(o.state, GS_MIG_STATE_FAILED);
    cr_expect(strstr(o.reason, "unknown MIG config 'all-9g.90gb'") != NULL);

    /* a GPU without MIG: skipped by `devices: all` */
    gs_mig_layout_init(&cat, "NVIDIA-L4", 2, cur);
    o = apply("all-1g.10gb", "NVIDIA-L4", 2, cur, next);
    cr_expect_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect(o.noop);
}

static struct gs_migparted_config parse_mp(const char *text, int want_rc)
{
    struct gs_ynode *root;
    cr_assert_eq(gs_yaml_load_string("mp.yaml", text, &arena, &root, &err), 0, "%s", err.msg);
    struct gs_ydec d = {.err = &err, .arena = &arena};
    struct gs_migparted_config cfg;
    int rc = gs_migparted_decode(&d, root, "configFile", &cfg);
    cr_assert_eq(rc, want_rc, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    return cfg;
}

/* Case c08: GPU 0 3x2g.20gb + 1x1g.10gb, GPU 1 4g.40gb + 3g.40gb, GPUs 2-7 whole, mixed. */
static const char c08[] = "version: v1\n"
                          "mig-configs:\n"
                          "  all-disabled:\n"
                          "  - {devices: all, mig-enabled: false}\n"
                          "  2g-2g-2g-1g-and-4g-3g:\n"
                          "  - {devices: [0], mig-enabled: true, mig-devices: {\"2g.20gb\": 3, \"1g.10gb\": 1}}\n"
                          "  - {devices: [1], mig-enabled: true, mig-devices: {\"4g.40gb\": 1, \"3g.40gb\": 1}}\n"
                          "  - {devices: [2, 3, 4, 5, 6, 7], mig-enabled: false}\n";

Test(mig, user_config_and_mixed_strategy)
{
    struct gs_migparted_config cfg = parse_mp(c08, 0);
    cr_assert_eq(cfg.nconfigs, 2);
    struct gs_mig_layout cur[8], next[8];
    gs_mig_layout_init(&cat, "NVIDIA-A100-SXM4-80GB", 8, cur);
    struct gs_mig_outcome o;
    cr_assert_eq(gs_mig_apply(&cat, &cfg, "2g-2g-2g-1g-and-4g-3g", "NVIDIA-A100-SXM4-80GB", 8, cur, next, &o), 0);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect_eq(o.gpus_changed, 2);

    struct gs_mig_resource r[16];
    int n;
    char why[256];
    cr_assert_eq(gs_mig_resources(GS_MIG_MIXED, next, 8, r, 16, &n, why, sizeof why), 0, "%s", why);
    static const struct {
        const char *name;
        int64_t count;
    } want[] = {{"nvidia.com/gpu", 6},
                {"nvidia.com/mig-1g.10gb", 1},
                {"nvidia.com/mig-2g.20gb", 3},
                {"nvidia.com/mig-3g.40gb", 1},
                {"nvidia.com/mig-4g.40gb", 1}};
    cr_assert_eq(n, 5);
    for (int i = 0; i < 5; i++) {
        cr_expect_str_eq(r[i].name, want[i].name);
        cr_expect_eq(r[i].count, want[i].count, "%s", want[i].name);
    }
    /* none: every GPU whole, MIG or not */
    cr_assert_eq(gs_mig_resources(GS_MIG_NONE, next, 8, r, 16, &n, why, sizeof why), 0);
    cr_expect_eq(n, 1);
    cr_expect_eq(r[0].count, 8);
    /* single: a mixed layout is invalid, nothing advertised */
    cr_expect_eq(gs_mig_resources(GS_MIG_SINGLE, next, 8, r, 16, &n, why, sizeof why), GS_EINVAL);
    cr_expect_eq(n, 0);
    cr_expect_str_eq(why, "mig strategy single: GPU 0 has MIG enabled but GPU 2 does not (all devices on the node "
                          "must have the same MIG mode)");

    /* GFD: mixed labels per profile, single invalid */
    cr_assert_eq(gs_mig_gfd_labels(GS_MIG_MIXED, "NVIDIA-A100-SXM4-80GB", next, 8, NULL, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig.strategy"), "mixed");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig.capable"), "true");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-2g.20gb.count"), "3");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-2g.20gb.memory"), "19968");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-2g.20gb.slices.gi"), "2");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-2g.20gb.product"), "NVIDIA-A100-SXM4-80GB-MIG-2g.20gb");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-2g.20gb.replicas"), "1");
    cr_expect_null(gs_labels_get(&labels, "nvidia.com/mig-2g.20gb.sharing-strategy"));
    cr_expect_null(gs_labels_get(&labels, "nvidia.com/mig-7g.80gb.count"));

    struct gs_labels single = {0};
    cr_assert_eq(gs_mig_gfd_labels(GS_MIG_SINGLE, "NVIDIA-A100-SXM4-80GB", next, 8, NULL, &single, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&single, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB-MIG-INVALID");
    cr_expect_str_eq(gs_labels_get(&single, "nvidia.com/gpu.count"), "0");
    cr_expect_str_eq(gs_labels_get(&single, "nvidia.com/gpu.replicas"), "0");
    cr_expect_str_eq(gs_labels_get(&single, "nvidia.com/gpu.memory"), "0");
    cr_expect_str_eq(gs_labels_get(&single, "nvidia.com/mig.strategy"), "single");
}

Test(mig, single_strategy)
{
    struct gs_mig_layout cur[8], next[8];
    gs_mig_layout_init(&cat, "NVIDIA-H100-80GB-HBM3", 8, cur);
    struct gs_mig_resource r[4];
    int n;
    char why[256];
    /* MIG off everywhere: plain GPUs, only mig.strategy is added */
    cr_assert_eq(gs_mig_resources(GS_MIG_SINGLE, cur, 8, r, 4, &n, why, sizeof why), 0);
    cr_expect_eq(r[0].count, 8);
    cr_assert_eq(gs_mig_gfd_labels(GS_MIG_SINGLE, "NVIDIA-H100-80GB-HBM3", cur, 8, NULL, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig.strategy"), "single");
    cr_expect_null(gs_labels_get(&labels, "nvidia.com/gpu.product"));

    /* 8 x all-1g.10gb = 56 nvidia.com/gpu (reference §3.3) */
    struct gs_mig_outcome o = apply("all-1g.10gb", "NVIDIA-H100-80GB-HBM3", 8, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_assert_eq(gs_mig_resources(GS_MIG_SINGLE, next, 8, r, 4, &n, why, sizeof why), 0, "%s", why);
    cr_expect_eq(n, 1);
    cr_expect_str_eq(r[0].name, "nvidia.com/gpu");
    cr_expect_eq(r[0].count, 56);
    cr_assert_eq(gs_mig_gfd_labels(GS_MIG_SINGLE, "NVIDIA-H100-80GB-HBM3", next, 8, NULL, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.count"), "56");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.memory"), "9984");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.multiprocessors"), "16");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.slices.gi"), "1");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.slices.ci"), "1");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.replicas"), "1");

    /* all-balanced has three profiles: invalid under single */
    o = apply("all-balanced", "NVIDIA-H100-80GB-HBM3", 8, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    cr_expect_eq(gs_mig_resources(GS_MIG_SINGLE, next, 8, r, 4, &n, why, sizeof why), GS_EINVAL);
    cr_expect(strstr(why, "more than one MIG device type") != NULL, "%s", why);
    /* all-enabled: MIG on, no devices: invalid too */
    o = apply("all-enabled", "NVIDIA-H100-80GB-HBM3", 8, cur, next);
    cr_expect_eq(gs_mig_resources(GS_MIG_SINGLE, next, 8, r, 4, &n, why, sizeof why), GS_EINVAL);
    cr_expect_str_eq(why, "mig strategy single: MIG is enabled but no MIG devices exist");
}

Test(mig, me_profiles_are_dotted_resources)
{
    char name[64];
    gs_mig_resource_name("1g.10gb+me", name, sizeof name);
    cr_expect_str_eq(name, "nvidia.com/mig-1g.10gb.me");
    struct gs_mig_layout cur[2], next[2];
    gs_mig_layout_init(&cat, "NVIDIA-H100-80GB-HBM3", 2, cur);
    struct gs_mig_outcome o = apply("all-1g.10gb.me", "NVIDIA-H100-80GB-HBM3", 2, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    struct gs_mig_resource r[4];
    int n;
    cr_assert_eq(gs_mig_resources(GS_MIG_MIXED, next, 2, r, 4, &n, NULL, 0), 0);
    cr_assert_eq(n, 1); /* no whole GPUs left: nvidia.com/gpu is not advertised */
    cr_expect_str_eq(r[0].name, "nvidia.com/mig-1g.10gb.me");
    cr_expect_eq(r[0].count, 2);
}

/* A mixed node's mig resources can be time-sliced too (k8s-device-plugin internal/lm tests). */
Test(mig, mixed_resources_with_sharing)
{
    struct gs_mig_layout cur[1], next[1];
    gs_mig_layout_init(&cat, "NVIDIA-A100-SXM4-80GB", 1, cur);
    struct gs_mig_outcome o = apply("all-1g.10gb", "NVIDIA-A100-SXM4-80GB", 1, cur, next);
    cr_assert_eq(o.state, GS_MIG_STATE_SUCCESS, "%s", o.reason);
    struct gs_dp_resource res = {.name = "nvidia.com/mig-1g.10gb", .replicas = 2};
    struct gs_dp_config dp;
    gs_dp_config_default(&dp, GS_MIG_MIXED);
    dp.sharing = GS_SHARING_TIME_SLICING;
    dp.resources = &res;
    dp.nresources = 1;
    struct gs_dp_alloc al[4];
    int n;
    cr_assert_eq(gs_dp_allocatable(&dp, next, 1, al, 4, &n, NULL, 0), 0);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(al[0].name, "nvidia.com/mig-1g.10gb");
    cr_expect_eq(al[0].count, 14);
    cr_assert_eq(gs_mig_gfd_labels(GS_MIG_MIXED, "NVIDIA-A100-SXM4-80GB", next, 1, &dp, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-1g.10gb.replicas"), "2");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-1g.10gb.sharing-strategy"), "time-slicing");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig-1g.10gb.product"), "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb-SHARED");
}

Test(mig, mig_parted_file_errors)
{
    static const struct {
        const char *text, *msg;
        int line, col;
    } bad[] = {
        {"mig-configs: {a: [{devices: all, mig-enabled: false}]}\n",
         "configFile: unable to parse with missing 'version' field", 1, 1},
        {"version: v2\nmig-configs: {a: [{devices: all, mig-enabled: false}]}\n", "configFile: unknown version: v2", 1,
         10},
        {"version: v1\nmig-config: {}\n", "configFile: unexpected field: mig-config", 2, 1},
        {"version: v1\nmig-configs: {}\n", "configFile: at least one entry in 'mig-configs' is required", 2, 14},
        {"version: v1\nmig-configs:\n  a: []\n", "configFile.mig-configs.a: at least one entry in 'a' is required", 3,
         6},
        {"version: v1\nmig-configs:\n  a:\n  - {mig-enabled: false}\n",
         "configFile.mig-configs.a[0]: missing required field: devices", 4, 5},
        {"version: v1\nmig-configs:\n  a:\n  - {devices: some, mig-enabled: false}\n",
         "configFile.mig-configs.a[0]: invalid string input for 'devices': some", 4, 15},
        {"version: v1\nmig-configs:\n  a:\n  - {devices: all, mig-enabled: true}\n",
         "configFile.mig-configs.a[0]: missing required field 'mig-devices' when 'mig-enabled' is true", 4, 5},
        {"version: v1\nmig-configs:\n  a:\n  - {devices: all, mig-enabled: false, mig-devices: {1g.10gb: 1}}\n",
         "configFile.mig-configs.a[0]: MIG devices included when 'mig-enabled' is false", 4, 53},
        {"version: v1\nmig-configs:\n  a:\n  - {devices: all, mig-enabled: true, mig-devices: {big: 1}}\n",
         "configFile.mig-configs.a[0]: error validating values in 'mig-devices' field: invalid MIG profile 'big' "
         "(expected e.g. 1g.10gb or 1g.10gb+me)",
         4, 53},
        {"version: v1\nmig-configs:\n  a:\n  - {devices: all, mig-enabled: false, migenabled: true}\n",
         "configFile.mig-configs.a[0]: unexpected field: migenabled", 4, 40},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        parse_mp(bad[i].text, GS_EINVAL);
        cr_expect_str_eq(err.msg, bad[i].msg, "case %zu", i);
        cr_expect_eq(err.line, bad[i].line, "case %zu: line %d", i, err.line);
        cr_expect_eq(err.col, bad[i].col, "case %zu: col %d", i, err.col);
        cr_expect_str_eq(err.file, "mp.yaml");
    }
}

/* ------------------------------------------------------------------ catalog file errors */

static int load_bad(const char *text)
{
    snprintf(dir, sizeof dir, "/tmp/gs-mig-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char p[128];
    snprintf(p, sizeof p, "%s/mig-profiles.yaml", dir);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    struct gs_mig_catalog c;
    memset(&err, 0, sizeof err);
    return gs_mig_catalog_load(dir, &arena, &c, &err);
}

#define HEAD                                                                                                          \
    "apiVersion: gpusim/v1alpha1\nkind: MIGCatalog\ndefaultMigPartedConfig: {version: v1}\ngpus:\n"                    \
    "- name: X\n  products: [P]\n  pciDeviceIds: [\"0x20B010DE\"]\n  computeSlices: 7\n  memorySlices: 8\n"           \
    "  unverified: false\n  profiles:\n"

Test(mig, catalog_errors)
{
    cr_expect_eq(load_bad(HEAD "  - {name: 1g.5gb, id: 19, memoryMiB: 4864, computeSlices: 1, memorySlices: 1, "
                               "maxInstances: 7, placement: {starts: [0, 1], size: 2}}\n"),
                 GS_EINVAL);
    cr_expect_str_eq(err.msg, "gpus[0].profiles[0].placement.size is 2 but the profile takes 1 memory slices");
    cr_expect_eq(err.line, 12);
    cr_expect(strstr(err.file, "mig-profiles.yaml") != NULL);
    teardown();
    setup();
    cr_expect_eq(load_bad(HEAD "  - {name: 3g.20gb, id: 9, memoryMiB: 1, computeSlices: 3, memorySlices: 4, "
                               "maxInstances: 2, placement: {starts: [0, 5], size: 4}}\n"),
                 GS_EINVAL);
    cr_expect(strstr(err.msg, "runs past the GPU's 8 memory slices") != NULL, "%s", err.msg);
    teardown();
    setup();
    cr_expect_eq(load_bad(HEAD "  - {name: 1g.5gb, id: 19, memoryMiB: 1, computeSlices: 1, memorySlices: 1, "
                               "maxInstance: 7, placement: {starts: [0], size: 1}}\n"),
                 GS_EINVAL);
    cr_expect(strstr(err.msg, "unknown key 'maxInstance'") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "did you mean 'maxInstances'") != NULL, "%s", err.msg);
    teardown();
    setup();
    cr_expect_eq(load_bad(HEAD "  - {name: a, id: 1, memoryMiB: 1, computeSlices: 1, memorySlices: 1, "
                               "maxInstances: 1, placement: {starts: [0], size: 1}}\n"
                               "  - {name: b, id: 1, memoryMiB: 1, computeSlices: 1, memorySlices: 1, "
                               "maxInstances: 1, placement: {starts: [0], size: 1}}\n"),
                 GS_EINVAL);
    cr_expect(strstr(err.msg, "duplicate profile id of 'b'") != NULL, "%s", err.msg);
    cr_expect_eq(err.line, 13);
}

Test(mig, state_names)
{
    cr_expect_str_eq(gs_mig_state_name(GS_MIG_STATE_PENDING), "pending");
    cr_expect_str_eq(gs_mig_state_name(GS_MIG_STATE_REBOOTING), "rebooting");
    cr_expect_str_eq(gs_mig_state_name(GS_MIG_STATE_SUCCESS), "success");
    cr_expect_str_eq(gs_mig_state_name(GS_MIG_STATE_FAILED), "failed");
    cr_expect_null(gs_mig_state_name((enum gs_mig_state)9));
}
