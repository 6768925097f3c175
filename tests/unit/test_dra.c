/* Unit tests for models/dra/dra_*.c: ResourceSlices from the catalog, DeviceClasses, claims,
 * the structured allocator, claim sharing, the device-plugin/DRA ledger and reason strings.
 * Expectations from kubernetes allocator_stable.go / dynamicresources.go (1.34) and the
 * NVIDIA DRA driver's deviceinfo.go / mig.go; the c22 case (../shared/cases). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <string.h>

#include "models/dra/dra.h"

static const struct gs_gpu_product T4 = {
    .product = "Tesla-T4", .nvml_name = "Tesla T4", .memory_mib = 15360, .compute_major = 7,
    .compute_minor = 5, .family = "turing", .architecture = "Turing", .brand = "Tesla"};
static const struct gs_gpu_product H100 = {
    .product = "NVIDIA-H100-80GB-HBM3", .nvml_name = "NVIDIA H100 80GB HBM3", .memory_mib = 81559,
    .compute_major = 9, .compute_minor = 0, .family = "hopper", .architecture = "Hopper",
    .brand = "Nvidia", .mig_capable = true};

static struct gs_arena A;
static struct gs_device_class classes[2];

static void setup(void)
{
    memset(&A, 0, sizeof A);
    struct gs_error e = {0};
    cr_assert_eq(gs_device_class_nvidia(classes, &A, true, &e), 0, "%s", e.msg);
}

static void teardown(void)
{
    gs_device_class_free(&classes[0]);
    gs_device_class_free(&classes[1]);
    gs_arena_free(&A);
}

TestSuite(dra, .init = setup, .fini = teardown);

static const struct gs_device_attribute *attr(const struct gs_dra_device *d, const char *name)
{
    for (int i = 0; i < d->nattrs; i++)
        if (!strcmp(d->attrs[i].name, name))
            return &d->attrs[i];
    return NULL;
}

static const struct gs_device_capacity *cap(const struct gs_dra_device *d, const char *name)
{
    for (int i = 0; i < d->ncaps; i++)
        if (!strcmp(d->caps[i].name, name))
            return &d->caps[i];
    return NULL;
}

static struct gs_resource_slice slice(const char *node, const struct gs_gpu_product *p, int n, bool index)
{
    struct gs_resource_slice s;
    struct gs_dra_slice_opts o = {.driver_version = "580.159.04", .cuda_driver_version = "13.0",
                                  .publish_index = index};
    struct gs_error e = {0};
    cr_assert_eq(gs_dra_slice_build(&A, node, p, n, NULL, &o, &s, &e), 0, "%s", e.msg);
    return s;
}

/* A claim spec with one request; selector may be NULL. Compiled; freed by the caller. */
static struct gs_dra_claim_spec *spec1(const char *cls, const char *sel, enum gs_dra_allocation_mode mode,
                                       int64_t count)
{
    struct gs_dra_claim_spec *s = gs_arena_alloc(&A, sizeof *s);
    s->requests = gs_arena_alloc(&A, sizeof *s->requests);
    s->nrequests = 1;
    s->requests[0] = (struct gs_dra_request){.name = "gpu", .device_class_name = cls, .mode = mode, .count = count};
    if (sel) {
        s->requests[0].selectors = gs_arena_alloc(&A, sizeof *s->requests[0].selectors);
        s->requests[0].selectors[0].expression = sel;
        s->requests[0].nselectors = 1;
    }
    struct gs_error e = {0};
    cr_assert_eq(gs_dra_claim_spec_compile(s, &e), 0, "%s", e.msg);
    return s;
}

static struct gs_dra_node_view view(const char *node, const struct gs_resource_slice *s, int ns, const bool *in_use)
{
    return (struct gs_dra_node_view){.node_name = node, .slices = s, .nslices = ns, .in_use = in_use,
                                     .classes = classes, .nclasses = 2};
}

static int alloc1(const struct gs_dra_node_view *v, struct gs_resource_claim *c, struct gs_dra_allocation *out,
                  char *err, size_t n)
{
    const struct gs_resource_claim *cs[1] = {c};
    return gs_dra_allocate(v, cs, 1, out, err, n);
}

Test(dra, slice_from_catalog_product)
{
    struct gs_resource_slice s = slice("gpudra-0", &T4, 2, false);
    cr_expect_str_eq(s.driver, "gpu.nvidia.com");
    cr_expect_str_eq(s.node_name, "gpudra-0");
    cr_expect_str_eq(s.pool, "gpudra-0");
    cr_expect_eq(s.generation, 1);
    cr_assert_eq(s.ndevices, 2);
    const struct gs_dra_device *d = &s.devices[1];
    cr_expect_str_eq(d->name, "gpu-1");
    cr_expect_eq(d->gpu, 1);
    cr_expect_null(d->parent);
    cr_expect_str_eq(attr(d, "type")->s, "gpu");
    cr_expect_str_eq(attr(d, "productName")->s, "Tesla T4");
    cr_expect_str_eq(attr(d, "brand")->s, "Tesla");
    cr_expect_str_eq(attr(d, "architecture")->s, "Turing");
    cr_expect_eq(attr(d, "cudaComputeCapability")->kind, GS_ATTR_VERSION);
    cr_expect_str_eq(attr(d, "cudaComputeCapability")->s, "7.5.0");
    cr_expect_str_eq(attr(d, "driverVersion")->s, "580.159.4");
    cr_expect_str_eq(attr(d, "cudaDriverVersion")->s, "13.0.0");
    const char *uuid = attr(d, "uuid")->s;
    cr_expect_eq(strlen(uuid), 40, "uuid %s", uuid);
    cr_expect_eq(strncmp(uuid, "GPU-", 4), 0);
    cr_expect_str_neq(uuid, attr(&s.devices[0], "uuid")->s);
    cr_expect_null(attr(d, "index"));
    struct gs_quantity q;
    gs_quantity_parse("15Gi", &q);
    cr_expect_eq(gs_quantity_cmp(&cap(d, "memory")->value, &q), 0);
    /* Deterministic: the same node gives the same UUIDs. */
    struct gs_resource_slice s2 = slice("gpudra-0", &T4, 2, true);
    cr_expect_str_eq(attr(&s2.devices[1], "uuid")->s, uuid);
    cr_expect_eq(attr(&s2.devices[1], "index")->i, 1);
    cr_expect_eq(attr(&s2.devices[1], "minor")->i, 1);
}

Test(dra, slice_errors)
{
    struct gs_resource_slice s;
    struct gs_error e = {0};
    cr_expect_eq(gs_dra_slice_build(&A, "n", NULL, 1, NULL, NULL, &s, &e), GS_EINVAL);
    cr_expect_eq(gs_dra_slice_build(&A, "n", &T4, GS_DRA_MAX_GPUS + 1, NULL, NULL, &s, &e), GS_EINVAL);
    struct gs_dra_slice_opts o = {.driver_version = "580.x"};
    cr_expect_eq(gs_dra_slice_build(&A, "n", &T4, 1, NULL, &o, &s, &e), GS_EINVAL);
    cr_expect_str_eq(e.msg, "DRA: invalid driverVersion \"580.x\"");
    cr_expect_eq(gs_dra_slice_build(&A, "n", &T4, 0, NULL, NULL, &s, &e), 0);
    cr_expect_eq(s.ndevices, 0);
}

Test(dra, mig_devices_and_classes)
{
    struct gs_dra_mig_device mig[2] = {
        {.profile = "1g.10gb", .profile_id = 19, .placement_start = 0, .placement_size = 1, .memory_mib = 9856,
         .multiprocessors = 16, .copy_engines = 1, .decoders = 1, .jpeg_engines = 1, .ofa_engines = 0},
        {.profile = "3g.40gb", .profile_id = 9, .placement_start = 4, .placement_size = 4, .memory_mib = 40192,
         .multiprocessors = 60, .copy_engines = 3, .decoders = 3, .jpeg_engines = 3},
    };
    struct gs_dra_gpu_layout lay[2] = {{mig, 2}, {NULL, 0}};
    struct gs_resource_slice s;
    struct gs_error e = {0};
    cr_assert_eq(gs_dra_slice_build(&A, "h100-0", &H100, 2, lay, NULL, &s, &e), 0, "%s", e.msg);
    cr_assert_eq(s.ndevices, 3);
    cr_expect_str_eq(s.devices[0].name, "gpu-0-mig-1g10gb-19-0");
    cr_expect_str_eq(s.devices[1].name, "gpu-0-mig-3g40gb-9-4");
    cr_expect_str_eq(s.devices[2].name, "gpu-1");
    cr_expect_str_eq(s.devices[1].parent, "gpu-0");
    cr_expect_eq(s.devices[1].gpu, 0);
    cr_expect_str_eq(attr(&s.devices[1], "type")->s, "mig");
    cr_expect_str_eq(attr(&s.devices[1], "profile")->s, "3g.40gb");
    cr_expect_str_eq(attr(&s.devices[1], "productName")->s, "NVIDIA H100 80GB HBM3");
    cr_expect_eq(strncmp(attr(&s.devices[1], "uuid")->s, "MIG-", 4), 0);
    cr_expect_str_eq(attr(&s.devices[1], "parentUUID")->s, attr(&s.devices[0], "parentUUID")->s);
    cr_expect_not_null(cap(&s.devices[1], "memorySlice7"));
    cr_expect_null(cap(&s.devices[1], "memorySlice3"));
    struct gs_quantity q;
    gs_quantity_parse("60", &q);
    cr_expect_eq(gs_quantity_cmp(&cap(&s.devices[1], "multiprocessors")->value, &q), 0);

    /* mig.nvidia.com gets MIG devices only; gpu.nvidia.com the full GPU. */
    struct gs_dra_node_view v = view("h100-0", &s, 1, NULL);
    struct gs_resource_claim c;
    struct gs_dra_allocation out;
    char err[256];
    struct gs_dra_claim_spec *big = spec1(GS_DRA_CLASS_MIG,
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0", GS_DRA_EXACT_COUNT, 1);
    struct gs_dra_claim_spec *all = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_ALL, 0);
    gs_resource_claim_init(&c, "m", "default", big);
    cr_assert_eq(alloc1(&v, &c, &out, err, sizeof err), 1, "%s", err);
    cr_expect_str_eq(out.results[0].device, "gpu-0-mig-3g40gb-9-4");
    gs_resource_claim_init(&c, "g", "default", all);
    cr_assert_eq(alloc1(&v, &c, &out, err, sizeof err), 1, "%s", err);
    cr_expect_eq(out.nresults, 1);
    cr_expect_str_eq(out.results[0].device, "gpu-1");
    gs_dra_claim_spec_free(big);
    gs_dra_claim_spec_free(all);
}

Test(dra, device_classes)
{
    cr_expect_str_eq(classes[0].name, "gpu.nvidia.com");
    cr_expect_str_eq(classes[0].selectors[0].expression,
                     "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'");
    cr_expect_str_eq(classes[0].extended_resource_name, "nvidia.com/gpu");
    cr_expect_str_eq(classes[1].name, "mig.nvidia.com");
    cr_expect_null(classes[1].extended_resource_name);
    struct gs_device_class c;
    struct gs_error e = {0};
    const char *bad[] = {"device.driver == 'x'", "device.driver.matches('x')"};
    cr_expect_eq(gs_device_class_init(&c, &A, "broken", bad, 2, NULL, &e), GS_EINVAL);
    cr_expect_str_eq(e.msg, "deviceclass broken: selector #1: CEL: unsupported function \"matches\" at column 15");
    cr_expect_null(c.selectors[0].prog);
}

Test(dra, exact_count_and_all)
{
    struct gs_resource_slice s = slice("n", &T4, 2, false);
    struct gs_dra_node_view v = view("n", &s, 1, NULL);
    struct gs_resource_claim c;
    struct gs_dra_allocation out;
    char err[256];
    struct gs_dra_claim_spec *two = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 2);
    gs_resource_claim_init(&c, "c", "default", two);
    cr_assert_eq(alloc1(&v, &c, &out, err, sizeof err), 1, "%s", err);
    cr_expect_eq(out.nresults, 2);
    cr_expect_str_eq(out.results[0].device, "gpu-0");
    cr_expect_str_eq(out.results[1].device, "gpu-1");
    cr_expect_str_eq(out.results[0].request, "gpu");
    cr_expect_str_eq(out.results[0].driver, "gpu.nvidia.com");
    cr_expect_str_eq(out.results[0].pool, "n");
    cr_expect_str_eq(out.node_name, "n");

    struct gs_dra_claim_spec *three = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 3);
    gs_resource_claim_init(&c, "c", "default", three);
    cr_expect_eq(alloc1(&v, &c, &out, err, sizeof err), 0);

    struct gs_dra_claim_spec *all = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_ALL, 0);
    gs_resource_claim_init(&c, "c", "default", all);
    cr_assert_eq(alloc1(&v, &c, &out, err, sizeof err), 1, "%s", err);
    cr_expect_eq(out.nresults, 2);
    /* All fails when one matching device is in use, and when none matches. */
    bool in_use[2] = {false, true};
    struct gs_dra_node_view v2 = view("n", &s, 1, in_use);
    cr_expect_eq(alloc1(&v2, &c, &out, err, sizeof err), 0);
    struct gs_dra_claim_spec *none = spec1(GS_DRA_CLASS_MIG, NULL, GS_DRA_ALL, 0);
    gs_resource_claim_init(&c, "c", "default", none);
    cr_expect_eq(alloc1(&v, &c, &out, err, sizeof err), 0);
    /* ExactCount skips the device in use. */
    struct gs_dra_claim_spec *one = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 1);
    gs_resource_claim_init(&c, "c", "default", one);
    in_use[0] = true;
    in_use[1] = false;
    cr_assert_eq(alloc1(&v2, &c, &out, err, sizeof err), 1);
    cr_expect_str_eq(out.results[0].device, "gpu-1");
    cr_expect_eq(out.results[0].index, 1);
    gs_dra_claim_spec_free(two);
    gs_dra_claim_spec_free(three);
    gs_dra_claim_spec_free(all);
    gs_dra_claim_spec_free(none);
    gs_dra_claim_spec_free(one);
}

Test(dra, memory_selector_t4_vs_h100)
{
    struct gs_resource_slice t4 = slice("gpudra-0", &T4, 1, false);
    struct gs_resource_slice h100 = slice("h100-0", &H100, 8, false);
    struct gs_dra_claim_spec *s24 = spec1(GS_DRA_CLASS_GPU,
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('24Gi')) >= 0", GS_DRA_EXACT_COUNT, 1);
    struct gs_dra_claim_spec *s8 = spec1(GS_DRA_CLASS_GPU,
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('8Gi')) >= 0", GS_DRA_EXACT_COUNT, 1);
    struct gs_resource_claim c;
    struct gs_dra_allocation out;
    char err[256];
    struct gs_dra_node_view vt = view("gpudra-0", &t4, 1, NULL), vh = view("h100-0", &h100, 1, NULL);
    gs_resource_claim_init(&c, "pod-mem-impossible-gpu", "default", s24);
    cr_expect_eq(alloc1(&vt, &c, &out, err, sizeof err), 0);
    cr_expect_eq(alloc1(&vh, &c, &out, err, sizeof err), 1, "%s", err);
    cr_expect_str_eq(out.results[0].device, "gpu-0");
    gs_resource_claim_init(&c, "pod-mem-ok-gpu", "default", s8);
    cr_expect_eq(alloc1(&vt, &c, &out, err, sizeof err), 1, "%s", err);
    /* A CPU-only node has no slices: nothing to allocate from. */
    struct gs_dra_node_view cpu = view("system-0", NULL, 0, NULL);
    cr_expect_eq(alloc1(&cpu, &c, &out, err, sizeof err), 0);
    gs_dra_claim_spec_free(s24);
    gs_dra_claim_spec_free(s8);
}

Test(dra, each_device_used_once_and_backtracking)
{
    struct gs_resource_slice s = slice("n", &T4, 2, true);
    struct gs_dra_node_view v = view("n", &s, 1, NULL);
    struct gs_dra_claim_spec *any = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 1);
    struct gs_dra_claim_spec *first = spec1(GS_DRA_CLASS_GPU, "device.attributes['gpu.nvidia.com'].index == 0",
                                            GS_DRA_EXACT_COUNT, 1);
    struct gs_resource_claim a, b, c3;
    gs_resource_claim_init(&a, "a", "default", any);
    gs_resource_claim_init(&b, "b", "default", first);
    gs_resource_claim_init(&c3, "c", "default", any);
    struct gs_dra_allocation out[3];
    char err[256];
    /* a takes gpu-0 first, then b needs gpu-0: the search backtracks and a gets gpu-1. */
    const struct gs_resource_claim *ab[2] = {&a, &b};
    cr_assert_eq(gs_dra_allocate(&v, ab, 2, out, err, sizeof err), 1, "%s", err);
    cr_expect_str_eq(out[0].results[0].device, "gpu-1");
    cr_expect_str_eq(out[1].results[0].device, "gpu-0");
    /* Three single-device claims on two devices: all or nothing. */
    const struct gs_resource_claim *abc[3] = {&a, &b, &c3};
    cr_expect_eq(gs_dra_allocate(&v, abc, 3, out, err, sizeof err), 0);
    /* Two requests in one claim get different devices. */
    struct gs_dra_claim_spec *tw = gs_arena_alloc(&A, sizeof *tw);
    tw->requests = gs_arena_alloc(&A, 2 * sizeof *tw->requests);
    tw->nrequests = 2;
    tw->requests[0] = (struct gs_dra_request){.name = "r0", .device_class_name = "gpu.nvidia.com", .count = 1};
    tw->requests[1] = (struct gs_dra_request){.name = "r1", .device_class_name = "gpu.nvidia.com", .count = 1};
    struct gs_resource_claim t;
    gs_resource_claim_init(&t, "t", "default", tw);
    cr_assert_eq(alloc1(&v, &t, out, err, sizeof err), 1);
    cr_expect_str_eq(out[0].results[0].request, "r0");
    cr_expect_str_eq(out[0].results[1].request, "r1");
    cr_expect_str_neq(out[0].results[0].device, out[0].results[1].device);
    /* Marking the allocation in use leaves nothing for another claim. */
    bool in_use[2] = {false, false};
    gs_dra_mark_in_use(&out[0], in_use, true);
    cr_expect(in_use[0] && in_use[1]);
    struct gs_dra_node_view v2 = view("n", &s, 1, in_use);
    cr_expect_eq(alloc1(&v2, &a, out, err, sizeof err), 0);
    gs_dra_claim_spec_free(any);
    gs_dra_claim_spec_free(first);
}

Test(dra, shared_claim)
{
    struct gs_resource_slice s = slice("gpudra-0", &T4, 1, false);
    struct gs_dra_node_view v = view("gpudra-0", &s, 1, NULL);
    struct gs_dra_claim_spec *sp = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 1);
    struct gs_resource_claim c;
    gs_resource_claim_init(&c, "shared-t4", "default", sp);
    char err[256], reason[256];
    bool in_use[1] = {false};
    cr_assert_eq(alloc1(&v, &c, &c.allocation, err, sizeof err), 1);
    c.allocated = true;
    gs_dra_mark_in_use(&c.allocation, in_use, true);
    cr_expect_eq(gs_dra_claim_reserve(&c, 10), 0);
    /* The second pod's PreFilter accepts the allocated claim, Filter only checks the node. */
    cr_expect_eq(gs_dra_prefilter_claim(&c, 11, classes, 2, reason, sizeof reason), 0);
    cr_expect(gs_dra_claim_available_on(&c, "gpudra-0"));
    cr_expect_not(gs_dra_claim_available_on(&c, "gpudra-1"));
    cr_expect_eq(gs_dra_claim_reserve(&c, 11), 0);
    cr_expect_eq(gs_dra_claim_reserve(&c, 11), 0); /* idempotent */
    cr_expect_eq(c.nreserved, 2);
    cr_expect(gs_dra_claim_reserved_for(&c, 10) && gs_dra_claim_reserved_for(&c, 11));
    cr_expect_not(gs_dra_claim_unreserve(&c, 10));
    cr_expect(gs_dra_claim_unreserve(&c, 11)); /* nobody left: deallocate */
    gs_dra_claim_deallocate(&c, in_use);
    cr_expect_not(c.allocated);
    cr_expect_not(in_use[0]);
    /* reservedFor is limited to 256 pods: the 257th finds the claim in use. */
    c.allocated = true;
    for (int p = 0; p < GS_DRA_RESERVED_FOR_MAX; p++)
        cr_assert_eq(gs_dra_claim_reserve(&c, p), 0);
    cr_expect_eq(gs_dra_claim_reserve(&c, 999), GS_ERANGE);
    cr_expect_eq(gs_dra_prefilter_claim(&c, 999, classes, 2, reason, sizeof reason), 1);
    cr_expect_str_eq(reason, "resourceclaim in use");
    cr_expect_eq(gs_dra_prefilter_claim(&c, 5, classes, 2, reason, sizeof reason), 0);
    gs_dra_claim_spec_free(sp);
}

Test(dra, errors_abort_with_upstream_text)
{
    struct gs_resource_slice s = slice("n", &T4, 1, false);
    struct gs_dra_node_view v = view("n", &s, 1, NULL);
    struct gs_resource_claim c;
    struct gs_dra_allocation out;
    char err[512], msg[600];
    struct gs_dra_claim_spec *bad = spec1(GS_DRA_CLASS_GPU, "device.attributes['gpu.nvidia.com'].model == 'T4'",
                                          GS_DRA_EXACT_COUNT, 1);
    gs_resource_claim_init(&c, "my-pod-my-resource", "default", bad);
    cr_expect_eq(alloc1(&v, &c, &out, err, sizeof err), GS_EINVAL);
    cr_expect_str_eq(err, "claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: model");
    gs_dra_filter_error(msg, sizeof msg, err);
    cr_expect_str_eq(msg, "running \"DynamicResources\" filter plugin: claim default/my-pod-my-resource: "
                          "selector #0: CEL runtime error: no such key: model");
    /* A class selector error names the class. */
    struct gs_device_class broken;
    struct gs_error e = {0};
    const char *x[] = {"device.attributes['gpu.nvidia.com'].flavor == 'x'"};
    cr_assert_eq(gs_device_class_init(&broken, &A, "gpu.nvidia.com", x, 1, NULL, &e), 0);
    struct gs_dra_node_view vb = {.node_name = "n", .slices = &s, .nslices = 1, .classes = &broken, .nclasses = 1};
    struct gs_dra_claim_spec *ok = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 1);
    gs_resource_claim_init(&c, "c", "ns", ok);
    cr_expect_eq(alloc1(&vb, &c, &out, err, sizeof err), GS_EINVAL);
    cr_expect_str_eq(err, "class gpu.nvidia.com: selector #0: CEL runtime error: no such key: flavor");
    gs_device_class_free(&broken);
    /* Unknown class, too many devices. */
    struct gs_dra_claim_spec *nocls = spec1("example.com", NULL, GS_DRA_EXACT_COUNT, 1);
    gs_resource_claim_init(&c, "c", "ns", nocls);
    cr_expect_eq(alloc1(&v, &c, &out, err, sizeof err), GS_EINVAL);
    cr_expect_str_eq(err, "claim ns/c, request gpu: could not retrieve device class example.com: "
                          "deviceclass.resource.k8s.io \"example.com\" not found");
    struct gs_dra_claim_spec *big = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 33);
    gs_resource_claim_init(&c, "c", "ns", big);
    cr_expect_eq(alloc1(&v, &c, &out, err, sizeof err), GS_EINVAL);
    cr_expect_str_eq(err, "claim ns/c: number of requested devices 33 exceeds the claim limit of 32");
    /* A selector error on a device that is in use is never evaluated. */
    bool in_use[1] = {true};
    struct gs_dra_node_view vu = view("n", &s, 1, in_use);
    gs_resource_claim_init(&c, "c", "ns", bad);
    cr_expect_eq(alloc1(&vu, &c, &out, err, sizeof err), 0);
    gs_dra_claim_spec_free(bad);
    gs_dra_claim_spec_free(ok);
    gs_dra_claim_spec_free(nocls);
    gs_dra_claim_spec_free(big);
}

Test(dra, prefilter_and_reason_strings)
{
    char r[256];
    struct gs_dra_claim_spec *nocls = spec1("example.com", NULL, GS_DRA_EXACT_COUNT, 1);
    struct gs_resource_claim c;
    gs_resource_claim_init(&c, "my-claim", "default", nocls);
    cr_expect_eq(gs_dra_prefilter_claim(&c, 0, classes, 2, r, sizeof r), 1);
    cr_expect_str_eq(r, "request gpu: device class example.com does not exist");
    c.pending_allocation = true;
    cr_expect_eq(gs_dra_prefilter_claim(&c, 0, classes, 2, r, sizeof r), 1);
    cr_expect_str_eq(r, "resource claim default/my-claim is in the process of being allocated");
    c.deleting = true;
    cr_expect_eq(gs_dra_prefilter_claim(&c, 0, classes, 2, r, sizeof r), 1);
    cr_expect_str_eq(r, "resourceclaim \"my-claim\" is being deleted");
    struct gs_dra_claim_spec *nameless = spec1("", NULL, GS_DRA_EXACT_COUNT, 1);
    gs_resource_claim_init(&c, "my-claim", "default", nameless);
    cr_expect_eq(gs_dra_prefilter_claim(&c, 0, classes, 2, r, sizeof r), 2);
    cr_expect_str_eq(r, "request gpu: unsupported request type");

    gs_dra_reason_not_created(r, sizeof r, "default", "my-pod");
    cr_expect_str_eq(r, "pod \"default/my-pod\": ResourceClaim not created yet");
    gs_dra_reason_not_found(r, sizeof r, "default", "shared-t4");
    cr_expect_str_eq(r, "could not find ResourceClaim \"default/shared-t4\"");
    gs_dra_reason_not_owner(r, sizeof r, "default", "my-pod-my-resource", "my-pod");
    cr_expect_str_eq(r, "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)");
    cr_expect_str_eq(GS_DRA_REASON_CANNOT_ALLOCATE, "cannot allocate all claims");
    cr_expect_str_eq(GS_DRA_REASON_NOT_AVAILABLE, "resourceclaim not available on the node");
    cr_expect_str_eq(GS_DRA_POSTFILTER_STILL, "still not schedulable");
    cr_expect_str_eq(GS_DRA_POSTFILTER_NO_NEW_CLAIMS, "no new claims to deallocate");
    gs_dra_claim_spec_free(nocls);
    gs_dra_claim_spec_free(nameless);
}

Test(dra, template_claims)
{
    struct gs_resource_claim_template t = {.name = "gpu-mem-8gi", .namespace_ = "default"};
    t.spec = *spec1(GS_DRA_CLASS_GPU, "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('8Gi')) >= 0",
                    GS_DRA_EXACT_COUNT, 1);
    struct gs_resource_claim c;
    cr_assert_eq(gs_resource_claim_from_template(&c, &A, &t, "pod-mem-ok", "gpu", 4), 0);
    cr_expect_str_eq(c.name, "pod-mem-ok-gpu");
    cr_expect_str_eq(c.namespace_, "default");
    cr_expect_eq(c.owner_pod, 4);
    cr_expect_eq(c.spec, &t.spec);
    cr_expect_not(c.allocated);
    gs_dra_claim_spec_free(&t.spec);
}

Test(dra, device_plugin_and_dra_do_not_double_count)
{
    struct gs_resource_slice s = slice("n", &T4, 4, false);
    bool in_use[4] = {false};
    struct gs_dra_node_view v = view("n", &s, 1, in_use);
    struct gs_gpu_ledger l;
    cr_assert_eq(gs_gpu_ledger_init(&l, 4), 0);
    cr_expect_eq(gs_gpu_ledger_init(&l, GS_DRA_MAX_GPUS + 1), GS_EINVAL);
    gs_gpu_ledger_init(&l, 4);
    int idx[4];
    cr_assert_eq(gs_gpu_ledger_dp_take(&l, 2, idx), 0);
    cr_expect(idx[0] == 0 && idx[1] == 1);
    gs_gpu_ledger_block(&l, &v, in_use);
    cr_expect(in_use[0] && in_use[1] && !in_use[2] && !in_use[3]);
    /* DRA can only get the two GPUs the device plugin did not hand out. */
    struct gs_dra_claim_spec *two = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 2);
    struct gs_dra_claim_spec *three = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 3);
    struct gs_resource_claim c;
    struct gs_dra_allocation out;
    char err[256];
    gs_resource_claim_init(&c, "c", "default", three);
    cr_expect_eq(alloc1(&v, &c, &out, err, sizeof err), 0);
    gs_resource_claim_init(&c, "c", "default", two);
    cr_assert_eq(alloc1(&v, &c, &out, err, sizeof err), 1);
    cr_expect_str_eq(out.results[0].device, "gpu-2");
    cr_expect_str_eq(out.results[1].device, "gpu-3");
    cr_assert_eq(gs_gpu_ledger_dra_take(&l, &v, &out), 0);
    /* NodeResourcesFit sees 2 requested by DRA; the device plugin has nothing left. */
    cr_expect_eq(gs_gpu_ledger_dra_held(&l), 2);
    cr_expect_eq(gs_gpu_ledger_dp_free(&l), 0);
    cr_expect_eq(gs_gpu_ledger_dp_take(&l, 1, idx), GS_ERANGE);
    /* Releasing the device plugin's GPUs frees them for DRA; DRA's release frees them for it. */
    int held[2] = {0, 1};
    cr_expect_eq(gs_gpu_ledger_dp_release(&l, held, 2), 0);
    cr_expect_eq(gs_gpu_ledger_dp_release(&l, held, 1), GS_EINVAL);
    cr_expect_eq(gs_gpu_ledger_dp_free(&l), 2);
    gs_gpu_ledger_dra_release(&l, &v, &out);
    cr_expect_eq(gs_gpu_ledger_dp_free(&l), 4);
    cr_expect_eq(gs_gpu_ledger_dra_held(&l), 0);
    /* DRA cannot take a GPU the device plugin holds. */
    cr_assert_eq(gs_gpu_ledger_dp_take(&l, 3, idx), 0);
    cr_expect_eq(gs_gpu_ledger_dra_take(&l, &v, &out), GS_EINVAL);
    cr_expect_eq(gs_gpu_ledger_dra_held(&l), 0);
    gs_dra_claim_spec_free(two);
    gs_dra_claim_spec_free(three);
}

Test(dra, ledger_counts_a_mig_parent_once)
{
    struct gs_dra_mig_device mig[2] = {
        {.profile = "1g.10gb", .profile_id = 19, .placement_start = 0, .placement_size = 1, .memory_mib = 9856},
        {.profile = "1g.10gb", .profile_id = 19, .placement_start = 1, .placement_size = 1, .memory_mib = 9856},
    };
    struct gs_dra_gpu_layout lay[2] = {{mig, 2}, {NULL, 0}};
    struct gs_resource_slice s;
    struct gs_error e = {0};
    cr_assert_eq(gs_dra_slice_build(&A, "h", &H100, 2, lay, NULL, &s, &e), 0, "%s", e.msg);
    struct gs_dra_node_view v = view("h", &s, 1, NULL);
    struct gs_gpu_ledger l;
    gs_gpu_ledger_init(&l, 2);
    struct gs_dra_claim_spec *m2 = spec1(GS_DRA_CLASS_MIG, NULL, GS_DRA_EXACT_COUNT, 2);
    struct gs_resource_claim c;
    struct gs_dra_allocation out;
    char err[256];
    gs_resource_claim_init(&c, "c", "default", m2);
    cr_assert_eq(alloc1(&v, &c, &out, err, sizeof err), 1, "%s", err);
    cr_assert_eq(gs_gpu_ledger_dra_take(&l, &v, &out), 0);
    cr_expect_eq(gs_gpu_ledger_dra_held(&l), 1);
    cr_expect_eq(gs_gpu_ledger_dp_free(&l), 1);
    int idx[1];
    cr_expect_eq(gs_gpu_ledger_dp_take(&l, 1, idx), 0);
    cr_expect_eq(idx[0], 1);
    gs_dra_claim_spec_free(m2);
}

/* The c22 case end to end at this level: a CPU node and one 16 GiB T4 node. */
Test(dra, case_c22_capacity_unmet_then_shared)
{
    struct gs_resource_slice t4 = slice("gpudra-0", &T4, 1, false);
    bool in_use[1] = {false};
    struct gs_dra_node_view nodes[2] = {view("system-0", NULL, 0, in_use), view("gpudra-0", &t4, 1, in_use)};
    struct gs_dra_claim_spec *ok = spec1(GS_DRA_CLASS_GPU,
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('8Gi')) >= 0", GS_DRA_EXACT_COUNT, 1);
    struct gs_dra_claim_spec *big = spec1(GS_DRA_CLASS_GPU,
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('24Gi')) >= 0", GS_DRA_EXACT_COUNT, 1);
    struct gs_dra_claim_spec *plain = spec1(GS_DRA_CLASS_GPU, NULL, GS_DRA_EXACT_COUNT, 1);
    struct gs_resource_claim cok, cbig, shared;
    gs_resource_claim_init(&cok, "pod-mem-ok-gpu", "default", ok);
    gs_resource_claim_init(&cbig, "pod-mem-impossible-gpu", "default", big);
    gs_resource_claim_init(&shared, "shared-t4", "default", plain);
    char err[256];
    cr_assert_eq(alloc1(&nodes[1], &cok, &cok.allocation, err, sizeof err), 1);
    cok.allocated = true;
    gs_dra_mark_in_use(&cok.allocation, in_use, true);
    gs_dra_claim_reserve(&cok, 0);
    struct gs_dra_allocation out;
    cr_expect_eq(alloc1(&nodes[1], &cbig, &out, err, sizeof err), 0); /* cannot allocate all claims */
    cr_expect_eq(alloc1(&nodes[0], &cbig, &out, err, sizeof err), 0);
    /* pod-mem-ok is deleted: its claim goes, the device is free, the shared claim fits. */
    cr_expect(gs_dra_claim_unreserve(&cok, 0));
    gs_dra_claim_deallocate(&cok, in_use);
    cr_assert_eq(alloc1(&nodes[1], &shared, &shared.allocation, err, sizeof err), 1);
    shared.allocated = true;
    gs_dra_mark_in_use(&shared.allocation, in_use, true);
    gs_dra_claim_reserve(&shared, 1);
    gs_dra_claim_reserve(&shared, 2);
    cr_expect_str_eq(shared.allocation.results[0].device, "gpu-0");
    cr_expect_str_eq(shared.allocation.results[0].request, "gpu");
    cr_expect_eq(shared.nreserved, 2);
    gs_dra_claim_spec_free(ok);
    gs_dra_claim_spec_free(big);
    gs_dra_claim_spec_free(plain);
}

/* gs_gpu_ledger_dp_retake puts back exactly the GPUs a release freed (explain's what-if undo),
 * and refuses a GPU that is not free, changing nothing. */
Test(dra, ledger_dp_retake_undoes_a_release)
{
    struct gs_gpu_ledger l;
    cr_assert(eq(int, gs_gpu_ledger_init(&l, 4), 0));
    int idx[4];
    cr_assert(eq(int, gs_gpu_ledger_dp_take(&l, 2, idx), 0)); /* GPUs 0 and 1 */
    int one[1] = {1};
    cr_assert(eq(int, gs_gpu_ledger_dp_release(&l, one, 1), 0));
    cr_expect(eq(int, gs_gpu_ledger_dp_free(&l), 3));
    cr_expect(eq(int, gs_gpu_ledger_dp_retake(&l, one, 1), 0));
    cr_expect(eq(int, gs_gpu_ledger_dp_free(&l), 2));
    cr_expect(eq(int, l.holder[1], GS_GPU_HELD_DP));
    int both[2] = {2, 1}; /* 1 is held again: nothing changes, 2 stays free */
    cr_expect(eq(int, gs_gpu_ledger_dp_retake(&l, both, 2), GS_EINVAL));
    cr_expect(eq(int, l.holder[2], GS_GPU_FREE));
    cr_expect(eq(int, gs_gpu_ledger_dp_free(&l), 2));
}
