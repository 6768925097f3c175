/* The device plugin's config (dpconfig.h, models/dpconfig.c, sim/scenario/dpconfig.c): every field
 * of the v1 file as the plugin reads it, unknown keys as warnings with their position, refused
 * values with the plugin's messages, named configs chosen per node, allocatable arithmetic
 * (cases c05 and c06), the GFD sharing labels, the Allocate check and MPS. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "models/dpconfig.h"
#include "models/gfd.h"
#include "sim/scenario/dpconfig.h"

static struct gs_arena arena;
static struct gs_error err;
static struct gs_dp_configs cs;

static void setup(void)
{
    memset(&arena, 0, sizeof arena);
    memset(&err, 0, sizeof err);
    memset(&cs, 0, sizeof cs);
}

static void teardown(void)
{
    gs_arena_free(&arena);
}

TestSuite(dpconfig, .init = setup, .fini = teardown);

/* Start over within a test: free what the previous parse left in the arena, then clear. */
static void reset(void)
{
    teardown();
    setup();
}

static int parse_mig(const char *text, int mig_override)
{
    struct gs_ynode *root;
    cr_assert_eq(gs_yaml_load_string("s.yaml", text, &arena, &root, &err), 0, "%s", err.msg);
    struct gs_ydec d = {.err = &err, .arena = &arena};
    return gs_scn_dpconfigs(&d, root, "config", mig_override, &cs);
}

static const struct gs_dp_config *parse(const char *text)
{
    int rc = parse_mig(text, -1);
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_assert_eq(cs.n, 1);
    return &cs.configs[0];
}

static void refused(const char *text, const char *msg, int line, int col)
{
    memset(&err, 0, sizeof err);
    cr_expect_eq(parse_mig(text, -1), GS_EINVAL, "accepted: %s", text);
    cr_expect_str_eq(err.msg, msg);
    cr_expect_eq(err.line, line, "%s: line %d", msg, err.line);
    cr_expect_eq(err.col, col, "%s: col %d", msg, err.col);
}

static int64_t alloc_of(const struct gs_dp_config *c, int ngpus, const char *name)
{
    struct gs_dp_alloc a[8];
    int n;
    char why[256];
    cr_assert_eq(gs_dp_allocatable(c, NULL, ngpus, a, 8, &n, why, sizeof why), 0, "%s", why);
    for (int i = 0; i < n; i++)
        if (strcmp(a[i].name, name) == 0)
            return a[i].count;
    return -1; /* absent */
}

/* Case c05: 4 GPUs x 4 replicas = 16 nvidia.com/gpu; GFD replicas 4, time-slicing, -SHARED. */
Test(dpconfig, time_slicing_replicas)
{
    const struct gs_dp_config *c = parse("version: v1\n"
                                         "flags: {migStrategy: none}\n"
                                         "sharing:\n"
                                         "  timeSlicing:\n"
                                         "    resources: [{name: nvidia.com/gpu, replicas: 4}]\n");
    cr_expect_eq(cs.nwarnings, 0);
    cr_expect_eq(c->sharing, GS_SHARING_TIME_SLICING);
    cr_expect_eq(c->mig_strategy, GS_MIG_NONE);
    cr_expect(c->fail_on_init_error);
    cr_expect_not(c->fail_requests_greater_than_one);
    cr_expect_eq(c->resources[0].devices, GS_DP_DEVICES_ALL);
    cr_expect_null(c->resources[0].rename);
    cr_expect_eq(alloc_of(c, 4, "nvidia.com/gpu"), 16);

    struct gs_gfd_input in = {.product_name = "NVIDIA-GeForce-RTX-3090-Ti", .gpu_count = 4};
    gs_dp_gfd_input(c, &in);
    cr_expect_eq(in.sharing, GS_SHARING_TIME_SLICING);
    cr_expect_eq(in.replicas, 4);
    cr_expect_not(in.renamed);
    struct gs_labels l = {0};
    cr_assert_eq(gs_gfd_labels(&in, &l, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l, "nvidia.com/gpu.product"), "NVIDIA-GeForce-RTX-3090-Ti-SHARED");
    cr_expect_str_eq(gs_labels_get(&l, "nvidia.com/gpu.replicas"), "4");
    cr_expect_str_eq(gs_labels_get(&l, "nvidia.com/gpu.sharing-strategy"), "time-slicing");
    cr_expect_str_eq(gs_labels_get(&l, "nvidia.com/gpu.count"), "4");
}

/* Case c06: renameByDefault: nvidia.com/gpu.shared 4 and no nvidia.com/gpu; no -SHARED suffix. */
Test(dpconfig, rename_by_default)
{
    const struct gs_dp_config *c = parse("version: v1\n"
                                         "sharing:\n"
                                         "  timeSlicing:\n"
                                         "    renameByDefault: true\n"
                                         "    failRequestsGreaterThanOne: false\n"
                                         "    resources: [{name: nvidia.com/gpu, replicas: 4}]\n");
    cr_expect(c->rename_by_default);
    cr_expect_str_eq(c->resources[0].rename, "nvidia.com/gpu.shared");
    cr_expect_eq(alloc_of(c, 1, "nvidia.com/gpu.shared"), 4);
    cr_expect_eq(alloc_of(c, 1, "nvidia.com/gpu"), -1);
    struct gs_gfd_input in = {.product_name = "NVIDIA-A10G", .gpu_count = 1};
    gs_dp_gfd_input(c, &in);
    cr_expect(in.renamed);
    struct gs_labels l = {0};
    cr_assert_eq(gs_gfd_labels(&in, &l, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l, "nvidia.com/gpu.product"), "NVIDIA-A10G");
    cr_expect_str_eq(gs_labels_get(&l, "nvidia.com/gpu.replicas"), "4");
}

Test(dpconfig, explicit_rename_devices_and_prefix)
{
    /* a name without prefix gets nvidia.com/; rename wins over renameByDefault; count devices */
    const struct gs_dp_config *c = parse("version: v1\n"
                                         "sharing:\n"
                                         "  timeSlicing:\n"
                                         "    renameByDefault: true\n"
                                         "    resources:\n"
                                         "    - {name: gpu, rename: gpu-small, replicas: 4, devices: 2}\n");
    cr_expect(eq(str, (char *)c->resources[0].name, (char *)"nvidia.com/gpu"));
    cr_expect(eq(str, (char *)c->resources[0].rename, (char *)"nvidia.com/gpu-small"));
    cr_expect(eq(int, c->resources[0].devices, GS_DP_DEVICES_COUNT));
    cr_expect(eq(i64, alloc_of(c, 4, "nvidia.com/gpu"), 2));
    cr_expect(eq(i64, alloc_of(c, 4, "nvidia.com/gpu-small"), 8));
    /* a count above the GPUs there are: the plugin does not start */
    struct gs_dp_alloc a[4];
    int n;
    char why[256];
    cr_expect(eq(int, gs_dp_allocatable(c, NULL, 1, a, 4, &n, why, sizeof why), GS_EINVAL));
    cr_expect(eq(int, n, 0));

    reset();
    c = parse("sharing:\n  timeSlicing:\n    resources:\n    - {name: nvidia.com/gpu, replicas: 3, devices: [0, \"2\"]}\n");
    cr_expect(eq(int, c->resources[0].devices, GS_DP_DEVICES_LIST));
    cr_expect(eq(int, c->resources[0].nlist, 2));
    cr_expect(eq(i64, alloc_of(c, 4, "nvidia.com/gpu"), 2 + 2 * 3)); /* not renamed: one name */
}

Test(dpconfig, allocate_check)
{
    const struct gs_dp_config *c = parse("version: v1\n"
                                         "sharing:\n"
                                         "  timeSlicing:\n"
                                         "    failRequestsGreaterThanOne: true\n"
                                         "    resources: [{name: nvidia.com/gpu, replicas: 4}]\n");
    cr_expect(eq(int, c->fail_requests_greater_than_one, 1));
    char msg[512];
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu", 1, false, msg, sizeof msg), 0));
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu", 2, false, msg, sizeof msg), GS_EINVAL));
    cr_expect(eq(str, (char *)msg, (char *)"Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = invalid "
                          "allocation request for \"nvidia.com/gpu\": invalid request: maximum request size for "
                          "shared resources is 1; found 2, which is unexpected"));
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu", 2, true, msg, sizeof msg), GS_EINVAL));
    cr_expect(eq(str, (char *)msg, (char *)"Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = request for "
                          "'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1, which is "
                          "unexpected"));
    cr_expect(eq(str, (char *)GS_DP_ADMISSION_REASON, (char *)"UnexpectedAdmissionError"));
    /* another resource is not shared */
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/mig-1g.10gb", 2, false, msg, sizeof msg), 0));
    /* without the flag (default false) a request of 2 is allowed */
    reset();
    c = parse("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}\n");
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu", 2, false, msg, sizeof msg), 0));
    /* renamed: the check is on the renamed resource */
    reset();
    c = parse("sharing: {timeSlicing: {renameByDefault: true, failRequestsGreaterThanOne: true,"
              " resources: [{name: nvidia.com/gpu, replicas: 2}]}}\n");
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu.shared", 3, false, msg, sizeof msg), GS_EINVAL));
    cr_expect(not(eq(ptr, strstr(msg, "\"nvidia.com/gpu.shared\": invalid request: maximum request size for shared resources is "
                          "1; found 3, which is unexpected"), NULL)), "%s", msg);
}

Test(dpconfig, mps)
{
    const struct gs_dp_config *c = parse("version: v1\n"
                                         "sharing:\n"
                                         "  mps:\n"
                                         "    resources: [{name: nvidia.com/gpu, replicas: 4}]\n");
    cr_expect(eq(int, c->sharing, GS_SHARING_MPS));
    cr_expect(eq(int, c->fail_requests_greater_than_one, 1)); /* MPS default: true */
    cr_expect(eq(i64, alloc_of(c, 2, "nvidia.com/gpu"), 8));
    char msg[512];
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu", 2, false, msg, sizeof msg), GS_EINVAL));
    struct gs_gfd_input in = {.product_name = "NVIDIA-L4", .gpu_count = 2};
    gs_dp_gfd_input(c, &in);
    struct gs_labels l = {0};
    cr_assert(eq(int, gs_gfd_labels(&in, &l, &arena), 0));
    cr_expect(eq(str, (char *)gs_labels_get(&l, "nvidia.com/gpu.sharing-strategy"), (char *)"mps"));
    cr_expect(eq(str, (char *)gs_labels_get(&l, "nvidia.com/mps.capable"), (char *)"true"));
    int64_t mem;
    int pct;
    gs_dp_mps_limits(24564, 4, &mem, &pct);
    cr_expect(eq(i64, mem, 6141));
    cr_expect(eq(int, pct, 25));

    /* an explicit false is honoured (k8s-device-plugin PR #1762) */
    reset();
    c = parse("sharing: {mps: {failRequestsGreaterThanOne: false, resources: [{name: nvidia.com/gpu, replicas: 2}]}}\n");
    cr_expect(eq(int, c->fail_requests_greater_than_one, 0));
    cr_expect(eq(int, gs_dp_allocate_check(c, "nvidia.com/gpu", 2, false, msg, sizeof msg), 0));

    /* MPS wins over time-slicing, with a warning */
    reset();
    c = parse("sharing:\n"
              "  timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 8}]}\n"
              "  mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}\n");
    cr_expect(eq(int, c->sharing, GS_SHARING_MPS));
    cr_expect(eq(int, c->resources[0].replicas, 2));
    cr_assert(eq(int, cs.nwarnings, 1));
    cr_expect(eq(int, cs.warnings[0].line, 2));

    /* MPS with the mixed strategy: refused (validateFlags) */
    refused("flags: {migStrategy: mixed}\nsharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}\n",
            "invalid device-plugin config at config.sharing: using --mig-strategy=mixed is not supported with MPS", 2,
            16);
}

Test(dpconfig, unknown_keys_are_warnings)
{
    const struct gs_dp_config *c = parse("version: v1\n"
                                         "flags:\n"
                                         "  migStrategy: single\n"
                                         "  failOnInitError: false\n"
                                         "  migStratgy: mixed\n"
                                         "sharing:\n"
                                         "  timeSlicing:\n"
                                         "    renameBydefault: true\n"
                                         "    resources:\n"
                                         "    - {name: nvidia.com/gpu, replicas: 2, memoryGB: 2}\n"
                                         "Sharing2: {}\n");
    cr_expect_eq(c->mig_strategy, GS_MIG_SINGLE);
    cr_expect_not(c->fail_on_init_error);
    cr_expect_not(c->rename_by_default); /* the misspelt key was ignored */
    cr_assert_eq(cs.nwarnings, 4);
    cr_expect_str_eq(cs.warnings[0].msg, "unknown key 'Sharing2' in config: ignored by the device plugin (did you mean 'sharing'?)");
    cr_expect_eq(cs.warnings[0].line, 11);
    cr_expect_str_eq(cs.warnings[1].msg,
                     "unknown key 'migStratgy' in config.flags: ignored by the device plugin (did you mean "
                     "'migStrategy'?)");
    cr_expect_eq(cs.warnings[1].line, 5);
    cr_expect_eq(cs.warnings[1].col, 3);
    cr_expect_str_eq(cs.warnings[1].file, "s.yaml");
    cr_expect_str_eq(cs.warnings[2].msg,
                     "unknown key 'renameBydefault' in config.sharing.timeSlicing: ignored by the device plugin (did "
                     "you mean 'renameByDefault'?)");
    cr_expect_eq(cs.warnings[2].line, 8);
    cr_expect_eq(cs.warnings[2].col, 5);
    cr_expect(strstr(cs.warnings[3].msg, "unknown key 'memoryGB' in config.sharing.timeSlicing.resources[0]") != NULL,
              "%s", cs.warnings[3].msg);
    cr_expect_eq(cs.warnings[3].col, 43);
}

Test(dpconfig, go_json_key_matching)
{
    /* struct-decoded levels match keys case-insensitively; the plugin's own decoders do not */
    const struct gs_dp_config *c = parse("Version: v1\n"
                                         "Sharing:\n"
                                         "  TimeSlicing:\n"
                                         "    Resources: [{name: nvidia.com/gpu, replicas: 2}]\n"
                                         "    resources: [{name: nvidia.com/gpu, replicas: 3}]\n");
    cr_expect(eq(int, c->resources[0].replicas, 3));
    cr_assert(eq(int, cs.nwarnings, 4));
    cr_expect(eq(str, (char *)cs.warnings[0].msg, (char *)"key 'Version' in config is read as 'version' (the device plugin matches it case-insensitively)"));
    cr_expect(not(eq(ptr, strstr(cs.warnings[3].msg, "unknown key 'Resources' in config.sharing.timeSlicing"), NULL)), "%s", cs.warnings[3].msg);
    /* YAML 1.1 booleans, as go-yaml v2 reads them */
    reset();
    c = parse("flags: {failOnInitError: no}\n");
    cr_expect(eq(int, c->fail_on_init_error, 0));
    cr_expect(eq(int, c->sharing, GS_SHARING_NONE));
}

Test(dpconfig, refused_values)
{
    refused("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 1}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.resources[0].replicas: number of replicas must "
            "be >= 2",
            1, 70);
    refused("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: \"4\"}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.resources[0].replicas: json: cannot unmarshal "
            "string into Go value of type int",
            1, 70);
    refused("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.resources[0]: no replicas specified", 1, 37);
    refused("sharing: {timeSlicing: {resources: [{replicas: 2}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.resources[0]: no resource name specified", 1,
            37);
    refused("sharing: {timeSlicing: {renameByDefault: true}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing: no resources specified", 1, 24);
    refused("sharing: {timeSlicing: {resources: []}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing: no resources specified", 1, 36);
    refused("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2, devices: some}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.resources[0].devices: devices set as 'some' "
            "but the only valid string input is 'all'",
            1, 82);
    refused("sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2, devices: 0}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.resources[0].devices: devices set as '0' but "
            "a count of devices must be > 0",
            1, 82);
    refused("version: v2\n", "invalid device-plugin config at config.version: unknown version: v2", 1, 10);
    refused("flags: {migStrategy: half}\n", "invalid device-plugin config at config.flags.migStrategy: unknown MIG "
                                            "strategy: half",
            1, 22);
    refused("flags: {plugin: {deviceIDStrategy: serial}}\n",
            "invalid device-plugin config at config.flags.plugin.deviceIDStrategy: invalid --device-id-strategy "
            "option: serial",
            1, 36);
    refused("sharing: {timeSlicing: {renameByDefault: \"true\", resources: [{name: nvidia.com/gpu, replicas: 2}]}}\n",
            "invalid device-plugin config at config.sharing.timeSlicing.renameByDefault: json: cannot unmarshal string "
            "into Go value of type bool",
            1, 42);
    memset(&err, 0, sizeof err);
    cr_expect_eq(parse_mig("sharing: {timeSlicing: {resources: [{name: NVIDIA.com/GPU, replicas: 2}]}}\n", -1),
                 GS_EINVAL);
    cr_expect(strstr(err.msg, "incorrect format for resource name 'nvidia.com/NVIDIA.com/GPU'") != NULL, "%s",
              err.msg);
}

Test(dpconfig, operator_mig_strategy_wins)
{
    cr_assert_eq(parse_mig("flags: {migStrategy: none}\n", GS_MIG_MIXED), 0, "%s", err.msg);
    cr_expect_eq(cs.configs[0].mig_strategy, GS_MIG_MIXED);
    cr_expect(cs.configs[0].mig_strategy_given);
    cr_assert_eq(cs.nwarnings, 1);
    cr_expect(strstr(cs.warnings[0].msg, "'none' is overridden by the deployment's MIG strategy 'mixed'") != NULL,
              "%s", cs.warnings[0].msg);
    /* no file at all: the default config */
    struct gs_dp_config d;
    gs_dp_config_default(&d, GS_MIG_SINGLE);
    cr_expect_eq(d.mig_strategy, GS_MIG_SINGLE);
    cr_expect(d.fail_on_init_error);
    cr_expect_eq(d.sharing, GS_SHARING_NONE);
    cr_expect_eq(alloc_of(&d, 8, "nvidia.com/gpu"), 8);
}

Test(dpconfig, named_configs_by_node_label)
{
    int rc = parse_mig("name: time-slicing-config\n"
                       "default: any\n"
                       "data:\n"
                       "  any: {version: v1}\n"
                       "  tesla-t4:\n"
                       "    version: v1\n"
                       "    sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 4}]}}\n"
                       "  a10: |-\n"
                       "    version: v1\n"
                       "    sharing:\n"
                       "      timeSlicing:\n"
                       "        resources: [{name: nvidia.com/gpu, replicas: 2}]\n",
                       -1);
    cr_assert(eq(int, rc, 0), "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_expect(eq(int, cs.named, 1));
    cr_expect(eq(int, cs.n, 3));
    char why[256];
    const struct gs_dp_config *c = gs_dp_config_for_node(&cs, "tesla-t4", why, sizeof why);
    cr_assert(not(eq(ptr, (void *)c, NULL)), "%s", why);
    cr_expect(eq(i64, alloc_of(c, 4, "nvidia.com/gpu"), 16));
    c = gs_dp_config_for_node(&cs, "a10", why, sizeof why);
    cr_assert(not(eq(ptr, (void *)c, NULL)), "%s", why);
    cr_expect(eq(i64, alloc_of(c, 4, "nvidia.com/gpu"), 8));
    c = gs_dp_config_for_node(&cs, NULL, why, sizeof why);
    cr_assert(not(eq(ptr, (void *)c, NULL)));
    cr_expect(eq(str, (char *)c->name, (char *)"any"));
    cr_expect(eq(i64, alloc_of(c, 4, "nvidia.com/gpu"), 4));
    cr_expect(eq(ptr, (void *)gs_dp_config_for_node(&cs, "h100", why, sizeof why), NULL));
    cr_expect(eq(str, (char *)why, (char *)"device-plugin config 'h100' (node label nvidia.com/device-plugin.config) is not one of: "
                          "any, tesla-t4, a10"));
    /* a single config ignores the label */
    reset();
    parse("version: v1\n");
    cr_expect(not(eq(ptr, (void *)gs_dp_config_for_node(&cs, "whatever", NULL, 0), NULL)));
    /* a default that is not in data */
    reset();
    memset(&err, 0, sizeof err);
    cr_expect(eq(int, parse_mig("default: nope\ndata: {a: {version: v1}}\n", -1), GS_EINVAL));
    cr_expect(eq(str, (char *)err.msg, (char *)"config.default: default config 'nope' is not in config.data"));
    cr_expect(eq(int, err.line, 1));
    cr_expect(eq(int, err.col, 10));
}
