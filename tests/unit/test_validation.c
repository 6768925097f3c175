/* Unit tests for models/admission/validation.c: the API server's pod-resource validation.
 * The expected messages are byte for byte those of ../shared/cases/c24 and of real clusters
 * quoted in issues (see kube-scheduler.md §4). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/quantity.h"
#include "models/admission/validation.h"

#define MAXE 8

/* A container built from "name=quantity" strings. */
struct ctr {
    struct gs_res_entry req[MAXE], lim[MAXE];
    struct gs_container_res c;
};

static void fill(struct gs_res_entry *e, int *n, const char *const *kv)
{
    static char names[64][64];
    static int used;
    for (*n = 0; kv && kv[*n]; (*n)++) {
        const char *eq = strchr(kv[*n], '=');
        cr_assert(eq && *n < MAXE);
        char *nm = names[used++ % 64];
        snprintf(nm, 64, "%.*s", (int)(eq - kv[*n]), kv[*n]);
        e[*n].name = nm;
        cr_assert_eq(gs_quantity_parse(eq + 1, &e[*n].q), 0, "%s", kv[*n]);
    }
}

static void ctr(struct ctr *c, bool init, const char *const *requests, const char *const *limits)
{
    memset(c, 0, sizeof *c);
    fill(c->req, &c->c.nrequests, requests);
    fill(c->lim, &c->c.nlimits, limits);
    c->c.name = "train";
    c->c.init = init;
    c->c.requests = c->c.nrequests ? c->req : NULL;
    c->c.limits = c->c.nlimits ? c->lim : NULL;
}

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static char detail[4096];

static int check1(const char *prefix, const char *const *requests, const char *const *limits)
{
    struct ctr c;
    ctr(&c, false, requests, limits);
    return gs_validate_containers(&c.c, 1, prefix, detail, sizeof detail);
}

#define HALF_DUMP                                                                                  \
    "resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "                               \
    "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}"

/* ---------------------------------------------------------------------------------------- */
/* The real-world case c24                                                                   */
/* ---------------------------------------------------------------------------------------- */

Test(validation, c24_requests_must_equal_limits)
{
    cr_assert(eq(int, check1("spec.template.spec.", L("nvidia.com/gpu=1"), L("nvidia.com/gpu=3")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.requests: Invalid value: \"1\": "
                             "must be equal to nvidia.com/gpu limit of 3");
    char msg[4096];
    gs_validation_status_message("Job", "batch", "multi-gpu-test", detail, msg, sizeof msg);
    cr_assert_str_eq(msg, "Job.batch \"multi-gpu-test\" is invalid: spec.template.spec.containers[0]."
                          "resources.requests: Invalid value: \"1\": must be equal to nvidia.com/gpu "
                          "limit of 3");
}

Test(validation, c24_limit_must_be_set)
{
    cr_assert(eq(int, check1("spec.template.spec.", L("nvidia.com/gpu=1"), NULL), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits: Required value: "
                             "Limit must be set for non overcommitable resources");
    char msg[4096];
    gs_validation_status_message("Job", "batch", "requests-only", detail, msg, sizeof msg);
    cr_assert_str_eq(msg, "Job.batch \"requests-only\" is invalid: spec.template.spec.containers[0]."
                          "resources.limits: Required value: Limit must be set for non "
                          "overcommitable resources");
}

Test(validation, c24_limits_only_is_accepted_and_defaults_the_request)
{
    struct ctr c;
    ctr(&c, false, NULL, L("nvidia.com/gpu=3"));
    detail[0] = 'x';
    cr_assert(eq(int, gs_validate_containers(&c.c, 1, "spec.template.spec.", detail, sizeof detail), 0));
    cr_assert_str_eq(detail, "");
    /* and the pod the Job creates is valid with its request defaulted to the limit */
    cr_assert(eq(int, gs_validate_containers(&c.c, 1, "spec.", detail, sizeof detail), 0));
    const struct gs_quantity *r = gs_container_effective_request(&c.c, "nvidia.com/gpu");
    cr_assert_not_null(r);
    cr_assert_eq(gs_quantity_value(r), 3);
    cr_assert_null(gs_container_effective_request(&c.c, "cpu"));
}

/* ---------------------------------------------------------------------------------------- */
/* Integers                                                                                  */
/* ---------------------------------------------------------------------------------------- */

Test(validation, half_gpu_pod_two_errors)
{
    /* A Pod's request is defaulted from the limit before validation, so both are reported. */
    cr_assert(eq(int, check1("spec.", NULL, L("nvidia.com/gpu=0.5")), GS_EINVAL));
    cr_assert_str_eq(detail,
                     "[spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: " HALF_DUMP
                     ": must be an integer, spec.containers[0].resources.requests[nvidia.com/gpu]: "
                     "Invalid value: " HALF_DUMP ": must be an integer]");
    char msg[4096];
    gs_validation_status_message("Pod", "", "half-gpu", detail, msg, sizeof msg);
    cr_assert_str_eq(msg, "Pod \"half-gpu\" is invalid: [spec.containers[0].resources.limits[nvidia.com/gpu]: "
                          "Invalid value: " HALF_DUMP ": must be an integer, spec.containers[0]."
                          "resources.requests[nvidia.com/gpu]: Invalid value: " HALF_DUMP
                          ": must be an integer]");
}

Test(validation, half_gpu_job_one_error)
{
    /* Pod templates are not defaulted: only the limit is reported. */
    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("nvidia.com/gpu=0.5")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: "
                             "Invalid value: " HALF_DUMP ": must be an integer");
}

Test(validation, half_gpu_json_rendering)
{
    struct ctr c;
    ctr(&c, false, NULL, L("nvidia.com/gpu=0.5"));
    struct gs_validation_opts o = {.path_prefix = "spec.", .pod_defaulting = true, .json_values = true};
    cr_assert(eq(int, gs_validate_containers_opts(&c.c, 1, &o, detail, sizeof detail), GS_EINVAL));
    cr_assert_str_eq(detail, "[spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "
                             "\"500m\": must be an integer, spec.containers[0].resources.requests["
                             "nvidia.com/gpu]: Invalid value: \"500m\": must be an integer]");
}

Test(validation, canonical_input_shows_in_dump)
{
    cr_assert(eq(int, check1("spec.template.spec.", L("nvidia.com/gpu=1500m"), L("nvidia.com/gpu=1500m")), GS_EINVAL));
    cr_assert_str_eq(detail,
                     "[spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "
                     "resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, "
                     "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1500m\", Format:\"DecimalSI\"}: "
                     "must be an integer, "
                     "spec.template.spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "
                     "resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, "
                     "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"1500m\", Format:\"DecimalSI\"}: "
                     "must be an integer]");
}

Test(validation, milli_rounding_happens_before_validation)
{
    /* SetDefaults_ResourceList rounds 0.0001 up to 1m (int64Amount{1,-3}, cache cleared) */
    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("example.com/foo=0.0001")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits[example.com/foo]: "
                             "Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:-3}, "
                             "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: "
                             "must be an integer");
}

Test(validation, whole_quantities_are_integers)
{
    const char *ok[] = {"nvidia.com/gpu=1", "nvidia.com/gpu=3000m", "nvidia.com/gpu=0", "nvidia.com/gpu=1e1",
                        "nvidia.com/gpu=2.0", "nvidia.com/mig-1g.10gb=7", "nvidia.com/gpu=1Ki"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *kv[] = {ok[i], NULL};
        cr_expect(eq(int, check1("spec.", NULL, kv), 0), "%s: %s", ok[i], detail);
    }
}

/* ---------------------------------------------------------------------------------------- */
/* Negative values, cpu and memory                                                           */
/* ---------------------------------------------------------------------------------------- */

Test(validation, negative_values)
{
    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("cpu=-1")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits[cpu]: Invalid value: "
                             "\"-1\": must be greater than or equal to 0");

    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("nvidia.com/gpu=-1")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: "
                             "Invalid value: \"-1\": must be greater than or equal to 0");

    /* negative and fractional: both errors, on the same path */
    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("nvidia.com/gpu=-0.5")), GS_EINVAL));
    cr_assert_str_eq(detail,
                     "[spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "
                     "\"-500m\": must be greater than or equal to 0, "
                     "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "
                     "resource.Quantity{i:resource.int64Amount{value:-5, scale:-1}, "
                     "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: "
                     "must be an integer]");
}

Test(validation, cpu_request_above_limit)
{
    cr_assert(eq(int, check1("spec.", L("cpu=2"), L("cpu=1")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.containers[0].resources.requests: Invalid value: \"2\": "
                             "must be less than or equal to cpu limit of 1");

    cr_assert(eq(int, check1("spec.", L("cpu=1.5"), L("cpu=1")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.containers[0].resources.requests: Invalid value: \"1500m\": "
                             "must be less than or equal to cpu limit of 1");

    cr_assert(eq(int, check1("spec.", L("memory=2Gi"), L("memory=1024Mi")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.containers[0].resources.requests: Invalid value: \"2Gi\": "
                             "must be less than or equal to memory limit of 1Gi");

    /* cpu may be below its limit, or requested without one */
    cr_assert(eq(int, check1("spec.", L("cpu=500m"), L("cpu=1")), 0));
    cr_assert(eq(int, check1("spec.", L("cpu=500m", "memory=1Gi"), NULL), 0));
    cr_assert(eq(int, check1("spec.", L("cpu=1000m"), L("cpu=1")), 0));
}

Test(validation, extended_request_below_limit_and_sorted_names)
{
    cr_assert(eq(int,
                 check1("spec.template.spec.", L("nvidia.com/gpu=1", "cpu=4", "example.com/nic=2"),
                        L("nvidia.com/gpu=2", "cpu=2", "example.com/nic=1")),
                 GS_EINVAL));
    /* names in byte order: cpu, example.com/nic, nvidia.com/gpu */
    cr_assert_str_eq(detail,
                     "[spec.template.spec.containers[0].resources.requests: Invalid value: \"4\": "
                     "must be less than or equal to cpu limit of 2, "
                     "spec.template.spec.containers[0].resources.requests: Invalid value: \"2\": "
                     "must be equal to example.com/nic limit of 1, "
                     "spec.template.spec.containers[0].resources.requests: Invalid value: \"1\": "
                     "must be equal to nvidia.com/gpu limit of 2]");
}

Test(validation, identical_messages_are_reported_once)
{
    /* two extended resources requested without limits give the same message twice */
    cr_assert(eq(int, check1("spec.", L("nvidia.com/gpu=1", "example.com/fpga=1"), NULL), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.containers[0].resources.limits: Required value: "
                             "Limit must be set for non overcommitable resources");
}

/* ---------------------------------------------------------------------------------------- */
/* Several containers                                                                        */
/* ---------------------------------------------------------------------------------------- */

Test(validation, containers_then_init_containers)
{
    struct ctr a, b, i0;
    ctr(&i0, true, L("nvidia.com/gpu=1"), NULL);
    ctr(&a, false, NULL, L("cpu=1"));
    ctr(&b, false, L("nvidia.com/gpu=2"), L("nvidia.com/gpu=1"));
    struct gs_container_res c[3] = {i0.c, a.c, b.c};
    cr_assert(eq(int, gs_validate_containers(c, 3, "spec.", detail, sizeof detail), GS_EINVAL));
    cr_assert_str_eq(detail, "[spec.containers[1].resources.requests: Invalid value: \"2\": must be "
                             "equal to nvidia.com/gpu limit of 1, spec.initContainers[0].resources."
                             "limits: Required value: Limit must be set for non overcommitable "
                             "resources]");
    cr_assert(eq(int, gs_validate_containers(c + 1, 1, "spec.", detail, sizeof detail), 0));
    cr_assert(eq(int, gs_validate_containers(NULL, 0, NULL, detail, sizeof detail), 0));
}

/* ---------------------------------------------------------------------------------------- */
/* Resource names                                                                            */
/* ---------------------------------------------------------------------------------------- */

Test(validation, unknown_unprefixed_name)
{
    /* the real message of a StatefulSet pod with resources {limits: {limit: ...}} */
    cr_assert(eq(int, check1("spec.", NULL, L("limit=1")), GS_EINVAL));
    char msg[4096];
    gs_validation_status_message("Pod", NULL, "observability-loki-ingester-0", detail, msg, sizeof msg);
    cr_assert_str_eq(msg,
                     "Pod \"observability-loki-ingester-0\" is invalid: [spec.containers[0].resources."
                     "limits[limit]: Invalid value: \"limit\": must be a standard resource type or fully "
                     "qualified, spec.containers[0].resources.limits[limit]: Invalid value: \"limit\": "
                     "must be a standard resource for containers, spec.containers[0].resources.requests"
                     "[limit]: Invalid value: \"limit\": must be a standard resource type or fully "
                     "qualified, spec.containers[0].resources.requests[limit]: Invalid value: \"limit\": "
                     "must be a standard resource for containers]");

    /* "pods" is a standard resource but not a container resource */
    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("pods=1")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits[pods]: Invalid value: "
                             "\"pods\": must be a standard resource for containers");
}

Test(validation, malformed_extended_name)
{
    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("Nvidia.com/gpu=1")), GS_EINVAL));
    cr_assert_str_eq(detail,
                     "[spec.template.spec.containers[0].resources.limits[Nvidia.com/gpu]: Invalid value: "
                     "\"Nvidia.com/gpu\": prefix part a lowercase RFC 1123 subdomain must consist of lower "
                     "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                     "character (e.g. 'example.com', regex used for validation is "
                     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
                     "spec.template.spec.containers[0].resources.limits[Nvidia.com/gpu]: Invalid value: "
                     "\"Nvidia.com/gpu\": doesn't follow extended resource name standard]");
}

Test(validation, name_helpers)
{
    cr_expect(gs_is_extended_resource("nvidia.com/gpu"));
    cr_expect(gs_is_extended_resource("nvidia.com/mig-1g.10gb"));
    cr_expect(gs_is_extended_resource("nvidia.com/gpu.shared"));
    cr_expect_not(gs_is_extended_resource("cpu"));
    cr_expect_not(gs_is_extended_resource("hugepages-2Mi"));
    cr_expect_not(gs_is_extended_resource("kubernetes.io/foo"));
    cr_expect_not(gs_is_extended_resource("requests.nvidia.com/gpu"));
    cr_expect_not(gs_is_extended_resource("Nvidia.com/gpu"));
    cr_expect_not(gs_is_extended_resource("nvidia.com/"));
    cr_expect_not(gs_is_extended_resource(NULL));
    /* "requests." + name must be a qualified name: a prefix of at most 253 bytes (so 244 here)
     * and a name part of at most 63. */
    char nm[400];
    memset(nm, 'a', 240);
    memcpy(nm + 240, ".com/gpu", 9);
    cr_expect(gs_is_extended_resource(nm));
    memset(nm, 'a', 241);
    memcpy(nm + 241, ".com/gpu", 9);
    cr_expect_not(gs_is_extended_resource(nm));
    memcpy(nm, "nvidia.com/", 11);
    memset(nm + 11, 'g', 63);
    nm[11 + 63] = '\0';
    cr_expect(gs_is_extended_resource(nm));
    memcpy(nm + 11 + 63, "g", 2);
    cr_expect_not(gs_is_extended_resource(nm));
    memset(nm, 'a', sizeof nm - 1);
    nm[sizeof nm - 1] = '\0';
    nm[10] = '/';
    cr_expect_not(gs_is_extended_resource(nm));
    cr_expect(gs_is_overcommit_allowed("cpu"));
    cr_expect(gs_is_overcommit_allowed("memory"));
    cr_expect(gs_is_overcommit_allowed("example.kubernetes.io/x"));
    cr_expect_not(gs_is_overcommit_allowed("nvidia.com/gpu"));
    cr_expect_not(gs_is_overcommit_allowed("hugepages-1Gi"));
}

/* ---------------------------------------------------------------------------------------- */
/* Huge pages                                                                                */
/* ---------------------------------------------------------------------------------------- */

Test(validation, hugepages)
{
    cr_assert(eq(int, check1("spec.", NULL, L("hugepages-2Mi=4Mi", "memory=1Gi")), 0), "%s", detail);

    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("hugepages-2Mi=3Mi", "memory=1Gi")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.limits[hugepages-2Mi]: Invalid "
                             "value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi");

    cr_assert(eq(int, check1("spec.template.spec.", NULL, L("hugepages-2Mi=4Mi")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources: Forbidden: HugePages require "
                             "cpu or memory");

    /* huge pages cannot be overcommitted */
    cr_assert(eq(int, check1("spec.template.spec.", L("hugepages-2Mi=2Mi", "cpu=1"),
                         L("hugepages-2Mi=4Mi", "cpu=1")), GS_EINVAL));
    cr_assert_str_eq(detail, "spec.template.spec.containers[0].resources.requests: Invalid value: "
                             "\"2Mi\": must be equal to hugepages-2Mi limit of 4Mi");
}

/* ---------------------------------------------------------------------------------------- */
/* Status message and buffers                                                                */
/* ---------------------------------------------------------------------------------------- */

Test(validation, status_message)
{
    char msg[256];
    int n = gs_validation_status_message("Pod", "", "x", "spec: Invalid value: \"a\": b", msg, sizeof msg);
    cr_assert_str_eq(msg, "Pod \"x\" is invalid: spec: Invalid value: \"a\": b");
    cr_assert_eq(n, (int)strlen(msg));
    gs_validation_status_message("Job", "batch", "y", NULL, msg, sizeof msg);
    cr_assert_str_eq(msg, "Job.batch \"y\" is invalid");
    gs_validation_status_message("Pod", NULL, "we\"ird\n", "", msg, sizeof msg);
    cr_assert_str_eq(msg, "Pod \"we\\\"ird\\n\" is invalid");
    char tiny[8];
    n = gs_validation_status_message("Pod", "", "x", "d", tiny, sizeof tiny);
    cr_assert_eq(n, (int)strlen("Pod \"x\" is invalid: d"));
    cr_assert_str_eq(tiny, "Pod \"x\"");
}

Test(validation, small_buffer_truncates)
{
    struct ctr c;
    ctr(&c, false, L("nvidia.com/gpu=1"), NULL);
    char tiny[10];
    cr_assert(eq(int, gs_validate_containers(&c.c, 1, "spec.", tiny, sizeof tiny), GS_EINVAL));
    cr_assert_str_eq(tiny, "spec.cont");
    cr_assert(eq(int, gs_validate_containers(&c.c, 1, "spec.", NULL, 0), GS_EINVAL));
}

/* ---------------------------------------------------------------------------------------- */
/* Out of memory                                                                             */
/* ---------------------------------------------------------------------------------------- */

static void *no_malloc(size_t n)
{
    (void)n;
    return NULL;
}

static void *no_realloc(void *p, size_t n)
{
    (void)p;
    (void)n;
    return NULL;
}

static void *no_calloc(size_t c, size_t n)
{
    (void)c;
    (void)n;
    return NULL;
}

/* Out of memory is neither "valid" nor "invalid": the caller must be able to tell. */
Test(validation, out_of_memory_is_reported)
{
    struct ctr c;
    ctr(&c, false, L("nvidia.com/gpu=1"), L("nvidia.com/gpu=1"));
    cr_assert(eq(int, gs_replace_allocator(no_malloc, no_realloc, no_calloc, free), 0));
    int valid = gs_validate_containers(&c.c, 1, "spec.", detail, sizeof detail);
    ctr(&c, false, L("nvidia.com/gpu=1"), L("nvidia.com/gpu=3"));
    int invalid = gs_validate_containers(&c.c, 1, "spec.template.spec.", detail, sizeof detail);
    /* The status message is written in place and needs no memory. */
    char msg[64];
    int n = gs_validation_status_message("Pod", "", "x", "d", msg, sizeof msg);
    gs_replace_allocator(NULL, NULL, NULL, NULL);
    cr_expect(eq(int, valid, GS_ENOMEM));
    cr_expect(eq(int, invalid, GS_ENOMEM));
    cr_expect(eq(str, detail, "out of memory"));
    cr_expect(eq(str, msg, "Pod \"x\" is invalid: d"));
    cr_expect(eq(int, n, (int)strlen(msg)));
    /* and with memory, the same containers validate as before */
    cr_expect(eq(int, check1("spec.", L("nvidia.com/gpu=1"), L("nvidia.com/gpu=1")), 0));
}
