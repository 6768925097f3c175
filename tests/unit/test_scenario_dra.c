/* The scenario side of DRA (sim/scenario/dra.c): resource.k8s.io objects in spec.objects, a
 * pod's spec.resourceClaims and containers' resources.claims, operator.draDriver,
 * spec.versions.dra-driver-nvidia-gpu and ResourceClaim status expectations, through
 * gs_scenario_load_string. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "models/dra/dra_state.h"
#include "sim/scenario.h"

/* 7 lines: the body starts on line 8. */
#define HEADER                                                                                              \
    "apiVersion: gpusim/v1alpha1\n"                                                                         \
    "kind: Scenario\n"                                                                                      \
    "metadata: {name: t}\n"                                                                                 \
    "spec:\n"                                                                                               \
    "  cluster:\n"                                                                                          \
    "    nodePools:\n"                                                                                      \
    "    - {name: t4, count: 1, gpu: {product: Tesla-T4, count: 1}, capacity: {cpu: \"8\", memory: 32Gi}}\n"
#define L 8

#define OPERATOR                                                                                            \
    "  operator:\n"                                                                                         \
    "    managedBy: helm\n"                                                                                 \
    "    devicePlugin: {enabled: false}\n"                                                                  \
    "    draDriver: {gpus: {enabled: true}, kubeletPlugin: {affinity: null}}\n"

#define TEMPLATE                                                                                            \
    "  - apiVersion: resource.k8s.io/v1\n"                                                                  \
    "    kind: ResourceClaimTemplate\n"                                                                     \
    "    metadata: {name: big}\n"                                                                           \
    "    spec:\n"                                                                                           \
    "      spec:\n"                                                                                         \
    "        devices:\n"                                                                                    \
    "          requests:\n"                                                                                 \
    "          - name: gpu\n"                                                                               \
    "            exactly:\n"                                                                                \
    "              deviceClassName: gpu.nvidia.com\n"                                                       \
    "              selectors:\n"                                                                            \
    "              - cel: {expression: \"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('24Gi')) >= 0\"}\n"

static struct gs_scenario sc;
static struct gs_error err;
static char text[1 << 16];

static void fini(void)
{
    gs_scenario_free(&sc);
}

TestSuite(scenario_dra, .fini = fini);

static int load(const char *body)
{
    gs_scenario_free(&sc);
    snprintf(text, sizeof text, "%s%s", HEADER, body);
    memset(&err, 0, sizeof err);
    return gs_scenario_load_string("t.yaml", text, &sc, &err);
}

static void ok(const char *body)
{
    int rc = load(body);
    cr_assert_eq(rc, 0, "load failed: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

static void bad(const char *body, int code, int line, int col, const char *msg)
{
    int rc = load(body);
    cr_assert_eq(rc, code, "rc %d (want %d): %s:%d:%d: %s", rc, code, err.file, err.line, err.col, err.msg);
    cr_expect_str_eq(err.msg, msg);
    cr_expect_eq(err.line, line, "line %d, want %d (%s)", err.line, line, err.msg);
    cr_expect_eq(err.col, col, "col %d, want %d (%s)", err.col, col, err.msg);
}

#define POD(claims)                                                                                         \
    "  workloads:\n"                                                                                        \
    "  - name: w\n"                                                                                         \
    "    arrival: {at: 0s}\n"                                                                               \
    "    template:\n"                                                                                       \
    "      spec:\n"                                                                                         \
    "        resourceClaims: " claims "\n"                                                                  \
    "        containers: [{name: c, resources: {claims: [{name: gpu}]}}]\n"

Test(scenario_dra, objects_driver_and_pod_claims)
{
    ok(OPERATOR "  versions: {dra-driver-nvidia-gpu: v25.8.1}\n"
                "  objects:\n" TEMPLATE
                "  - {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: shared}, spec: {devices: "
                "{requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]}}}\n"
                "  - {apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: any-gpu}, spec: {selectors: "
                "[{cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}}]}}\n" POD("[{name: gpu, resourceClaimTemplateName: big}]"));
    const struct gs_dra_spec *s = sc.dra;
    cr_assert(s);
    cr_assert(s->driver);
    cr_expect(s->publish_index, "v25.8 publishes index and minor");
    cr_expect_str_eq(s->chart_version, "v25.8.1");
    cr_expect(!s->plugin_default_affinity);
    cr_assert_eq(s->nclasses, 3, "any-gpu, then the chart's gpu.nvidia.com and mig.nvidia.com");
    cr_expect_str_eq(s->classes[0].name, "any-gpu");
    cr_expect_str_eq(s->classes[1].name, "gpu.nvidia.com");
    cr_assert_eq(s->ntemplates, 1);
    cr_expect_str_eq(s->templates[0].namespace_, "default");
    cr_assert_eq(s->templates[0].spec.nrequests, 1);
    cr_expect(s->templates[0].spec.requests[0].selectors[0].prog, "compiled");
    cr_assert_eq(s->nclaims, 1);
    cr_expect_eq(s->claims[0].spec.requests[0].count, 2);
    const struct gs_pod_claims *pc = sc.world.workloads[0].tmpl.claims;
    cr_assert(pc);
    cr_assert_eq(pc->n, 1);
    cr_expect_str_eq(pc->refs[0].name, "gpu");
    cr_expect_str_eq(pc->refs[0].template_name, "big");
    cr_expect_null(sc.world.workloads[0].tmpl.invalid_detail);
}

Test(scenario_dra, bad_cel_points_into_the_expression)
{
    /* The expression starts at column 39 of its line (after the quote); `matches` is at column 15
     * of the expression: column 53 of the line. */
    bad("  objects:\n"
        "  - apiVersion: resource.k8s.io/v1\n"
        "    kind: DeviceClass\n"
        "    metadata: {name: x}\n"
        "    spec:\n"
        "      selectors: [{cel: {expression: \"device.driver.matches('a')\"}}]\n",
        GS_EINVAL, L + 5, 53,
        "invalid CEL expression at spec.objects[0].spec.selectors[0].cel.expression: CEL: unsupported function "
        "\"matches\" at column 15");
    /* A type error inside a template's request selector, plain scalar. */
    bad("  objects:\n"
        "  - apiVersion: resource.k8s.io/v1\n"
        "    kind: ResourceClaim\n"
        "    metadata: {name: c}\n"
        "    spec:\n"
        "      devices:\n"
        "        requests:\n"
        "        - name: gpu\n"
        "          exactly:\n"
        "            deviceClassName: gpu.nvidia.com\n"
        "            selectors:\n"
        "            - cel:\n"
        "                expression: device.driver == 1\n",
        GS_EINVAL, L + 12, 29 + 14,
        "invalid CEL expression at spec.objects[0].spec.devices.requests[0].exactly.selectors[0].cel.expression: CEL: "
        "found no matching overload for '_==_' applied to '(string, int)' at column 15");
}

Test(scenario_dra, unknown_device_class_and_missing_objects)
{
    bad(OPERATOR "  objects:\n"
                 "  - {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c}, spec: {devices: "
                 "{requests: [{name: gpu, exactly: {deviceClassName: gpu.nvida.com}}]}}}\n",
        GS_EINVAL, L + 5, 147,
        "unknown DeviceClass \"gpu.nvida.com\" in ResourceClaim c, request gpu (did you mean 'gpu.nvidia.com'?): "
        "classes come from spec.objects and, with operator.draDriver, the driver chart");
    /* Without the driver, its classes do not exist. */
    bad("  objects:\n"
        "  - {apiVersion: resource.k8s.io/v1, kind: ResourceClaim, metadata: {name: c}, spec: {devices: "
        "{requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n",
        GS_EINVAL, L + 1, 147,
        "unknown DeviceClass \"gpu.nvidia.com\" in ResourceClaim c, request gpu: classes come from spec.objects and, "
        "with operator.draDriver, the driver chart (gpu.nvidia.com, mig.nvidia.com)");
    bad(OPERATOR "  objects:\n" TEMPLATE POD("[{name: gpu, resourceClaimTemplateName: bg}]"), GS_EINVAL, L + 22, 65,
        "ResourceClaimTemplate \"bg\" not found (did you mean 'big'?): templates come from spec.objects");
    bad(OPERATOR POD("[{name: gpu, resourceClaimName: shared}]"), GS_EINVAL, L + 9, 57,
        "ResourceClaim \"shared\" not found: claims come from spec.objects");
    bad(OPERATOR "  objects:\n" TEMPLATE POD("[{name: gpu, resourceClaimName: a, resourceClaimTemplateName: big}]"),
        GS_EINVAL, L + 22, 26,
        "spec.workloads[0].template.spec.resourceClaims[0]: Invalid value: must specify one of: `resourceClaimName`, "
        "`resourceClaimTemplateName`");
}

Test(scenario_dra, container_claim_not_in_pod_is_refused_by_the_api_server)
{
    ok(OPERATOR "  objects:\n" TEMPLATE
                "  workloads:\n"
                "  - name: w\n"
                "    template:\n"
                "      spec:\n"
                "        resourceClaims: [{name: gpu, resourceClaimTemplateName: big}]\n"
                "        containers: [{name: c, resources: {claims: [{name: gpux}]}}]\n");
    cr_expect_str_eq(sc.world.workloads[0].tmpl.invalid_detail,
                     "spec.containers[0].resources.claims[0]: Not found: \"gpux\": must be one of the names in "
                     "pod.spec.resourceClaims: gpu");
}

Test(scenario_dra, unsupported_parts)
{
    bad("  objects:\n"
        "  - {apiVersion: resource.k8s.io/v1beta1, kind: DeviceClass, metadata: {name: x}, spec: {}}\n",
        GS_ENOTSUP, L + 1, 18,
        "not supported yet: spec.objects[0].apiVersion: resource.k8s.io/v1beta1 (gpusim reads resource.k8s.io/v1 and "
        "v1beta2)");
    bad("  operator:\n    draDriver: {computeDomains: {enabled: true}}\n", GS_ENOTSUP, L + 1, 33,
        "not supported yet: spec.operator.draDriver.computeDomains.enabled: true");
    bad("  versions: {dra-driver-nvidia-gpu: v24.1.0}\n", GS_ENOTSUP, L, 37,
        "not supported yet: spec.versions.dra-driver-nvidia-gpu: v24.1.0 (gpusim models v25.3.x, v25.8.x, v25.12.x, "
        "0.4.x and 0.5.x)");
}

Test(scenario_dra, claim_status_expectation)
{
    ok(OPERATOR "  objects:\n" TEMPLATE "  expect:\n"
                "  - object: {kind: ResourceClaim, name: w-gpu}\n"
                "    status:\n"
                "      allocation: {devices: {results: [{request: gpu, device: gpu-0}]}}\n"
                "      reservedFor: [{resource: pods, name: w}]\n");
    const struct gs_dra_expect_status *x = sc.expects[0].dra_status;
    cr_assert(x);
    cr_expect(x->has_allocation && !x->allocation_null && x->has_results && x->has_reserved);
    cr_assert_eq(x->nresults, 1);
    cr_expect_str_eq(x->results[0].device, "gpu-0");
    cr_expect_null(x->results[0].driver);
    cr_expect_str_eq(x->reserved[0].name, "w");
}

/* resource.k8s.io objects need a release where DRA is on by default. */
Test(scenario_dra, needs_kubernetes_1_34)
{
    bad("  kubernetesVersion: \"1.31\"\n  objects:\n" TEMPLATE, GS_EINVAL, L + 2, 17,
        "spec.objects[0]: ResourceClaimTemplate resource.k8s.io/v1 needs kubernetesVersion 1.34 or later "
        "(spec.kubernetesVersion is 1.31; gpusim models DRA as it is on by default from 1.34)");
}
