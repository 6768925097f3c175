/* Decoding of spec.workloads (pod templates, Pod and Job manifests), spec.events and
 * spec.expect, through gs_scenario_load_string. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/scenario.h"

/* 14 lines: a body starts on line 15. */
#define HEADER                                                                                              \
    "apiVersion: gpusim/v1alpha1\n"                                                                         \
    "kind: Scenario\n"                                                                                      \
    "metadata: {name: t}\n"                                                                                 \
    "spec:\n"                                                                                               \
    "  objects:\n"                                                                                          \
    "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n"    \
    "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: calm}, value: 500, "     \
    "preemptionPolicy: Never}\n"                                                                            \
    "  cluster:\n"                                                                                          \
    "    nodePools:\n"                                                                                      \
    "    - name: h100\n"                                                                                    \
    "      count: 2\n"                                                                                      \
    "      capacity: {cpu: \"96\", memory: 1Ti}\n"                                                          \
    "    - {name: cpu, count: 1, capacity: {cpu: \"16\", memory: 64Gi}}\n"                                  \
    "  workloads:\n"
#define BODY_LINE 15

#define GI (1024LL * 1024 * 1024)
#define MI (1024LL * 1024)

static struct gs_scenario sc;
static struct gs_error err;
static char text[1 << 16];

static int load_named(const char *name, const char *body)
{
    snprintf(text, sizeof text, "%s%s", HEADER, body);
    memset(&err, 0, sizeof err);
    return gs_scenario_load_string(name, text, &sc, &err);
}

static int load(const char *body)
{
    return load_named("test.yaml", body);
}

/* Load and expect success; the test frees sc. */
static void ok(const char *body)
{
    int rc = load(body);
    cr_assert(eq(int, rc, 0), "load failed: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

/* Load and expect failure with `code` at `line`, the message containing `needle`. */
static void fails(const char *body, int code, int line, const char *needle)
{
    int rc = load(body);
    cr_assert(eq(int, rc, code), "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_assert(eq(int, err.code, code));
    if (line)
        cr_assert(eq(int, err.line, line), "%s", err.msg);
    cr_assert(not(eq(ptr, strstr(err.msg, needle), NULL)), "message '%s' lacks '%s'", err.msg, needle);
}

static int res(const char *name)
{
    int r = gs_res_find(&sc.world.res, name);
    cr_assert(r >= 0, "resource %s not interned", name);
    return r;
}

static const struct gs_workload *wl(int i)
{
    cr_assert(i < sc.world.nworkloads);
    return &sc.world.workloads[i];
}

/* ------------------------------------------------------------------ resources */

Test(workloads, requests_default_to_limits)
{
    ok("  - name: train\n"
       "    replicas: 3\n"
       "    template:\n"
       "      metadata: {labels: {app: trainer}}\n"
       "      spec:\n"
       "        containers:\n"
       "        - name: main\n"
       "          image: nvcr.io/nvidia/pytorch:24.01-py3\n"
       "          resources:\n"
       "            limits: {nvidia.com/gpu: 2, cpu: \"4\", memory: 8Gi}\n"
       "            requests: {cpu: 500m}\n");
    const struct gs_workload *w = wl(0);
    cr_assert_str_eq(w->name, "train");
    cr_assert_eq(w->kind, GS_WL_PLAIN);
    cr_assert_null(w->api_kind);
    cr_assert_eq(w->replicas, 3);
    cr_assert_eq(w->arrival.kind, GS_ARRIVE_AT);
    cr_assert_eq(w->arrival.count, 1);
    cr_assert_eq(w->arrival.start, 0);
    cr_assert_eq(w->duration.kind, GS_DIST_NONE);
    cr_assert_eq(w->start_latency, -1);
    cr_assert_eq(w->src_line, BODY_LINE);
    const struct gs_pod_template *t = &w->tmpl;
    cr_assert_eq(t->requests.v[GS_RES_CPU], 500);
    cr_assert_eq(t->requests.v[GS_RES_MEMORY], 8 * GI);
    cr_assert_eq(t->requests.v[res("nvidia.com/gpu")], 2);
    cr_assert_eq(t->limits.v[GS_RES_CPU], 4000);
    cr_assert_eq(t->limits.v[res("nvidia.com/gpu")], 2);
    cr_assert_eq(t->nonzero_cpu, 500);
    cr_assert_eq(t->nonzero_mem, 8 * GI);
    cr_assert_eq(t->ncontainers, 1);
    cr_assert_null(t->invalid_detail);
    cr_assert_str_eq(t->invalid_path_prefix, "spec.");
    cr_assert_str_eq(gs_labels_get(&t->labels, "app"), "trainer");
    cr_assert_str_eq(t->scheduler_name, "default-scheduler");
    cr_assert_eq(t->termination_grace_us, GS_SEC(30));
    cr_assert_null(t->priority_class);
    cr_assert_eq(t->priority, 0);
    cr_assert_eq(t->preemption_policy, GS_PREEMPT_LOWER_PRIORITY);
    gs_scenario_free(&sc);
}

Test(workloads, effective_requests_with_init_containers)
{
    ok("  - name: w\n"
       "    template:\n"
       "      spec:\n"
       "        initContainers:\n"
       "        - {name: i1, resources: {requests: {cpu: \"2\", memory: 512Mi}}}\n"
       "        - {name: i2, resources: {limits: {memory: 1Gi}}}\n"
       "        containers:\n"
       "        - {name: a, resources: {requests: {cpu: \"1\", memory: 1Gi, ephemeral-storage: 10Gi}}}\n"
       "        - {name: b, resources: {requests: {cpu: 500m}}}\n");
    const struct gs_pod_template *t = &wl(0)->tmpl;
    /* max(1 + 0.5, max(2, 0)) cpu; max(1Gi, max(512Mi, 1Gi)) memory */
    cr_assert_eq(t->requests.v[GS_RES_CPU], 2000);
    cr_assert_eq(t->requests.v[GS_RES_MEMORY], GI);
    cr_assert_eq(t->requests.v[GS_RES_EPHEMERAL], 10 * GI);
    cr_assert_eq(t->limits.v[GS_RES_MEMORY], GI);
    /* non-zero: regular 1000 + 500 cpu, 1Gi + 200Mi memory; init i1 2000 / 512Mi, i2 100m / 1Gi */
    cr_assert_eq(t->nonzero_cpu, 2000);
    cr_assert_eq(t->nonzero_mem, GI + 200 * MI);
    cr_assert_eq(t->ncontainers, 2);
    gs_scenario_free(&sc);
}

Test(workloads, per_container_maxima)
{
    /* The kubelet allocates devices per container (init containers too): the template keeps the
     * largest single-container request next to the pod's effective total. */
    ok("  - name: w\n"
       "    template:\n"
       "      spec:\n"
       "        initContainers:\n"
       "        - {name: i, resources: {limits: {nvidia.com/gpu: 3}}}\n"
       "        containers:\n"
       "        - {name: a, resources: {limits: {nvidia.com/gpu: 1, example.com/fpga: 2}, requests: {cpu: \"1\"}}}\n"
       "        - {name: b, resources: {limits: {nvidia.com/gpu: 1, example.com/fpga: 1}, requests: {cpu: \"2\"}}}\n");
    const struct gs_pod_template *t = &wl(0)->tmpl;
    int gpu = gs_res_find(&sc.world.res, "nvidia.com/gpu"), fpga = gs_res_find(&sc.world.res, "example.com/fpga");
    cr_assert(gpu >= 0 && fpga >= 0);
    cr_expect_eq(t->requests.v[gpu], 3);        /* max(1 + 1, 3) */
    cr_expect_eq(t->container_max.v[gpu], 3);   /* the init container */
    cr_expect_eq(t->requests.v[fpga], 3);       /* 2 + 1 */
    cr_expect_eq(t->container_max.v[fpga], 2);
    cr_expect_eq(t->requests.v[GS_RES_CPU], 3000);
    cr_expect_eq(t->container_max.v[GS_RES_CPU], 2000);
    gs_scenario_free(&sc);
}

Test(workloads, nonzero_defaults_per_container)
{
    ok("  - name: w\n"
       "    template:\n"
       "      spec:\n"
       "        containers:\n"
       "        - name: a\n"
       "        - {name: b, resources: {requests: {cpu: \"0\"}}}\n"
       "        - {name: c, resources: {limits: {memory: 100Mi}}}\n");
    const struct gs_pod_template *t = &wl(0)->tmpl;
    cr_assert_eq(t->requests.v[GS_RES_CPU], 0);
    cr_assert_eq(t->requests.v[GS_RES_MEMORY], 100 * MI);
    /* a: 100m + 200Mi; b: explicit 0 cpu + 200Mi; c: 100m + 100Mi */
    cr_assert_eq(t->nonzero_cpu, 200);
    cr_assert_eq(t->nonzero_mem, 500 * MI);
    gs_scenario_free(&sc);
}

Test(workloads, resource_name_hints)
{
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resources: {limits: {gpu: 1}}}\n",
          GS_EINVAL, BODY_LINE + 4, "did you mean nvidia.com/gpu?");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resources: {limits: {memroy: 1Gi}}}\n",
          GS_EINVAL, BODY_LINE + 4, "did you mean memory?");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resources: {limits: {requests.nvidia.com/gpu: 1}}}\n",
          GS_EINVAL, BODY_LINE + 4, "ResourceQuota");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resources: {limits: {cpu: lots}}}\n",
          GS_EINVAL, BODY_LINE + 4, "invalid quantity \"lots\"");
}

Test(workloads, half_gpu_is_refused_with_the_api_message)
{
    ok("  - name: half\n"
       "    template:\n"
       "      spec:\n"
       "        containers:\n"
       "        - name: main\n"
       "          resources:\n"
       "            limits: {nvidia.com/gpu: 0.5}\n");
    const struct gs_pod_template *t = &wl(0)->tmpl;
    cr_assert_not_null(t->invalid_detail);
    /* Defaulting copies the limit to the request, and both are refused (an aggregate). */
    cr_assert_str_eq(t->invalid_detail,
                     "[spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "
                     "resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
                     "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an "
                     "integer, spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid value: "
                     "resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
                     "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an "
                     "integer]");
    gs_scenario_free(&sc);
}

/* ------------------------------------------------------------------ scheduling fields */

Test(workloads, tolerations_decode)
{
    ok("  - name: w\n"
       "    template:\n"
       "      spec:\n"
       "        containers: [{name: a}]\n"
       "        tolerations:\n"
       "        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
       "        - {key: dedicated, value: training}\n"
       "        - {operator: Exists}\n"
       "        - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}\n");
    const struct gs_pod_template *t = &wl(0)->tmpl;
    cr_assert_eq(t->ntolerations, 4);
    cr_assert_str_eq(t->tolerations[0].key, "nvidia.com/gpu");
    cr_assert_eq(t->tolerations[0].op, GS_TOL_EXISTS);
    cr_assert_eq(t->tolerations[0].effect, GS_EFFECT_NO_SCHEDULE);
    cr_assert_eq(t->tolerations[0].toleration_seconds, -1);
    cr_assert_eq(t->tolerations[1].op, GS_TOL_EQUAL);
    cr_assert_str_eq(t->tolerations[1].value, "training");
    cr_assert_eq(t->tolerations[1].effect, GS_EFFECT_ALL);
    cr_assert_str_eq(t->tolerations[2].key, "");
    cr_assert_eq(t->tolerations[2].op, GS_TOL_EXISTS);
    cr_assert_eq(t->tolerations[3].effect, GS_EFFECT_NO_EXECUTE);
    cr_assert_eq(t->tolerations[3].toleration_seconds, 300);
    struct gs_taint taint = {.key = "dedicated", .value = "training", .effect = GS_EFFECT_NO_SCHEDULE};
    cr_assert(gs_toleration_tolerates(&t->tolerations[1], &taint));
    gs_scenario_free(&sc);
}

Test(workloads, invalid_tolerations)
{
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        tolerations:\n"
          "        - {key: nvidia.com/gpu, operator: Exists, value: present}\n",
          GS_EINVAL, BODY_LINE + 5, "value must be empty when `operator` is 'Exists'");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        tolerations:\n"
          "        - {value: x}\n",
          GS_EINVAL, BODY_LINE + 5, "operator must be Exists when `key` is empty");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        tolerations:\n"
          "        - {key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}\n",
          GS_EINVAL, BODY_LINE + 5, "effect must be 'NoExecute' when `tolerationSeconds` is set");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        tolerations:\n"
          "        - {key: k, operator: Exist}\n",
          GS_EINVAL, BODY_LINE + 5, "did you mean 'Exists'?");
}

Test(workloads, affinity_decode)
{
    ok("  - name: w\n"
       "    template:\n"
       "      spec:\n"
       "        containers: [{name: a}]\n"
       "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}\n"
       "        affinity:\n"
       "          nodeAffinity:\n"
       "            requiredDuringSchedulingIgnoredDuringExecution:\n"
       "              nodeSelectorTerms:\n"
       "              - matchExpressions:\n"
       "                - {key: nvidia.com/gpu.memory, operator: Gt, values: [\"40000\"]}\n"
       "                - {key: zone, operator: In, values: [a, b]}\n"
       "              - matchFields:\n"
       "                - {key: metadata.name, operator: In, values: [h100-1]}\n"
       "            preferredDuringSchedulingIgnoredDuringExecution:\n"
       "            - weight: 20\n"
       "              preference:\n"
       "                matchExpressions: [{key: rack, operator: DoesNotExist}]\n");
    const struct gs_pod_template *t = &wl(0)->tmpl;
    cr_assert_str_eq(gs_labels_get(&t->node_selector, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3");
    const struct gs_node_affinity *a = &t->affinity;
    cr_assert(a->has_required);
    cr_assert_eq(a->nrequired, 2);
    cr_assert_eq(a->required[0].nexprs, 2);
    cr_assert_eq(a->required[0].exprs[0].op, GS_OP_GT);
    cr_assert_str_eq(a->required[0].exprs[0].values[0], "40000");
    cr_assert_eq(a->required[0].exprs[1].op, GS_OP_IN);
    cr_assert_eq(a->required[0].exprs[1].nvalues, 2);
    cr_assert_str_eq(a->required[0].exprs[1].values[1], "b");
    cr_assert_eq(a->required[1].nexprs, 0);
    cr_assert_eq(a->required[1].nfields, 1);
    cr_assert_str_eq(a->required[1].fields[0].values[0], "h100-1");
    cr_assert_eq(a->npreferred, 1);
    cr_assert_eq(a->preferred[0].weight, 20);
    cr_assert_eq(a->preferred[0].term.exprs[0].op, GS_OP_DOES_NOT_EXIST);
    cr_assert_eq(a->preferred[0].term.exprs[0].nvalues, 0);
    gs_scenario_free(&sc);
}

#define AFFINITY(expr)                                                                                      \
    "  - name: w\n"                                                                                         \
    "    template:\n"                                                                                       \
    "      spec:\n"                                                                                         \
    "        containers: [{name: a}]\n"                                                                     \
    "        affinity:\n"                                                                                   \
    "          nodeAffinity:\n"                                                                             \
    "            requiredDuringSchedulingIgnoredDuringExecution:\n"                                         \
    "              nodeSelectorTerms:\n"                                                                    \
    "              - matchExpressions:\n"                                                                   \
    "                - " expr "\n"

Test(workloads, invalid_affinity)
{
    fails(AFFINITY("{key: zone, operator: In}"), GS_EINVAL, BODY_LINE + 9,
          "values: must be specified when `operator` is 'In' or 'NotIn'");
    fails(AFFINITY("{key: zone, operator: Exists, values: [a]}"), GS_EINVAL, BODY_LINE + 9,
          "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    fails(AFFINITY("{key: mem, operator: Lt, values: [\"1\", \"2\"]}"), GS_EINVAL, BODY_LINE + 9,
          "must be specified single value when `operator` is 'Lt' or 'Gt'");
    fails(AFFINITY("{key: mem, operator: Gt, values: [40Gi]}"), GS_EINVAL, BODY_LINE + 9, "is not an integer");
    fails(AFFINITY("{key: zone, operator: In, values: [8]}"), GS_EINVAL, BODY_LINE + 9, "quote it");
    fails(AFFINITY("{key: zone, operator: Within, values: [a]}"), GS_EINVAL, BODY_LINE + 9, "expected one of In");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        affinity:\n"
          "          nodeAffinity:\n"
          "            preferredDuringSchedulingIgnoredDuringExecution:\n"
          "            - {weight: 101, preference: {}}\n",
          GS_EINVAL, BODY_LINE + 7, "between 1 and 100");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        affinity:\n"
          "          nodeAffinity:\n"
          "            requiredDuringSchedulingIgnoredDuringExecution:\n"
          "              nodeSelectorTerms:\n"
          "              - matchFields: [{key: spec.nodeName, operator: In, values: [x]}]\n",
          GS_EINVAL, BODY_LINE + 8, "not a valid field selector key");
}

Test(workloads, priority_classes)
{
    ok("  - name: a\n"
       "    template: {spec: {containers: [{name: a}], priorityClassName: high, priority: 1000}}\n"
       "  - name: b\n"
       "    priorityClassName: calm\n"
       "    template: {spec: {containers: [{name: a}]}}\n"
       "  - name: c\n"
       "    template: {spec: {containers: [{name: a}], terminationGracePeriodSeconds: 5, nodeName: h100-0}}\n");
    cr_assert_str_eq(wl(0)->tmpl.priority_class, "high");
    cr_assert_eq(wl(0)->tmpl.priority, 1000);
    cr_assert_eq(wl(0)->tmpl.preemption_policy, GS_PREEMPT_LOWER_PRIORITY);
    cr_assert_str_eq(wl(1)->tmpl.priority_class, "calm");
    cr_assert_eq(wl(1)->tmpl.priority, 500);
    cr_assert_eq(wl(1)->tmpl.preemption_policy, GS_PREEMPT_NEVER);
    cr_assert_null(wl(2)->tmpl.priority_class);
    cr_assert_eq(wl(2)->tmpl.termination_grace_us, GS_SEC(5));
    cr_assert_str_eq(wl(2)->tmpl.node_name, "h100-0");
    gs_scenario_free(&sc);

    fails("  - name: svc-c\n"
          "    template:\n"
          "      spec:\n"
          "        containers: [{name: a}]\n"
          "        priorityClassName: critical\n",
          GS_EINVAL, BODY_LINE + 4, "pods \"svc-c\" is forbidden: no PriorityClass with name critical was found");
    fails("  - name: svc\n"
          "    replicas: 2\n"
          "    priorityClassName: nope\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 2, "pods \"svc-0\" is forbidden: no PriorityClass with name nope was found");
    fails("  - name: p\n"
          "    template: {spec: {containers: [{name: a}], priorityClassName: high, priority: 7}}\n",
          GS_EINVAL, BODY_LINE + 1,
          "the integer value of priority (7) must not be provided in pod spec; priority admission controller "
          "computed 1000 from the given PriorityClass name");
    fails("  - name: p\n"
          "    template: {spec: {containers: [{name: a}], preemptionPolicy: Never}}\n",
          GS_EINVAL, BODY_LINE + 1,
          "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission "
          "controller computed PreemptLowerPriority");
    fails("  - name: p\n"
          "    priorityClassName: calm\n"
          "    template: {spec: {containers: [{name: a}], priorityClassName: high}}\n",
          GS_EINVAL, BODY_LINE + 2, "differs from the workload's priorityClassName 'calm'");
}

Test(workloads, global_default_priority_class)
{
    snprintf(text, sizeof text, "%s",
             "apiVersion: gpusim/v1alpha1\n"
             "kind: Scenario\n"
             "metadata: {name: t}\n"
             "spec:\n"
             "  objects:\n"
             "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: base}, value: 10, "
             "globalDefault: true}\n"
             "  cluster: {nodePools: [{name: n, count: 1, capacity: {cpu: \"1\", memory: 1Gi}}]}\n"
             "  workloads:\n"
             "  - {name: w, template: {spec: {containers: [{name: a}]}}}\n");
    int rc = gs_scenario_load_string("t.yaml", text, &sc, &err);
    cr_assert_eq(rc, 0, "%s:%d: %s", err.file, err.line, err.msg);
    cr_assert_str_eq(wl(0)->tmpl.priority_class, "base");
    cr_assert_eq(wl(0)->tmpl.priority, 10);
    gs_scenario_free(&sc);
}

Test(workloads, ignored_and_unsupported_fields)
{
    ok("  - name: w\n"
       "    template:\n"
       "      metadata: {annotations: {example.com/note: \"a long, free-form note: not a label value\"}}\n"
       "      spec:\n"
       "        serviceAccountName: trainer\n"
       "        restartPolicy: OnFailure\n"
       "        dnsPolicy: ClusterFirst\n"
       "        securityContext: {runAsUser: 1000}\n"
       "        volumes: [{name: shm, emptyDir: {medium: Memory}}]\n"
       "        imagePullSecrets: [{name: regcred}]\n"
       "        hostNetwork: false\n"
       "        containers:\n"
       "        - name: a\n"
       "          image: busybox\n"
       "          command: [sh, -c]\n"
       "          args: [\"sleep 1\"]\n"
       "          env: [{name: X, value: \"1\"}]\n"
       "          ports: [{containerPort: 8080, protocol: TCP}]\n"
       "          volumeMounts: [{name: shm, mountPath: /dev/shm}]\n"
       "          imagePullPolicy: IfNotPresent\n"
       "          readinessProbe: {httpGet: {path: /, port: 8080}}\n");
    gs_scenario_free(&sc);

    static const struct {
        const char *field;
        const char *path;
    } cases[] = {
        {"topologySpreadConstraints: []", "spec.workloads[0].template.spec.topologySpreadConstraints"},
        {"schedulingGates: [{name: g}]", "spec.workloads[0].template.spec.schedulingGates"},
        {"runtimeClassName: nvidia", "spec.workloads[0].template.spec.runtimeClassName"},
        {"overhead: {cpu: 1}", "spec.workloads[0].template.spec.overhead"},
        {"affinity: {podAntiAffinity: {}}", "spec.workloads[0].template.spec.affinity.podAntiAffinity"},
        {"hostNetwork: true", "spec.workloads[0].template.spec.hostNetwork: true"},
        {"schedulerName: volcano", "schedulerName 'volcano'"},
    };
    char body[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(body, sizeof body,
                 "  - name: w\n"
                 "    template:\n"
                 "      spec:\n"
                 "        containers: [{name: a}]\n"
                 "        %s\n",
                 cases[i].field);
        fails(body, GS_ENOTSUP, BODY_LINE + 4, cases[i].path);
        cr_assert(not(eq(ptr, strstr(err.msg, "not supported yet"), NULL)), "%s", err.msg);
    }
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resources: {claims: [{name: gpu, request: r}]}}\n",
          GS_ENOTSUP, BODY_LINE + 4, "spec.workloads[0].template.spec.containers[0].resources.claims[0].request");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - name: a\n"
          "          ports: [{containerPort: 80, hostPort: 80}]\n",
          GS_ENOTSUP, BODY_LINE + 5, "ports[0].hostPort");
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resource: {limits: {cpu: 1}}}\n",
          GS_EINVAL, BODY_LINE + 4, "unknown key 'resource' in spec.workloads[0].template.spec.containers[0] (did "
                                    "you mean 'resources'?)");
    fails("  - name: w\n"
          "    template: {spec: {containers: [{name: a}, {name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "duplicate container name 'a'");
    fails("  - name: w\n"
          "    template: {spec: {containers: []}}\n",
          GS_EINVAL, BODY_LINE + 1, "at least one container");
    /* workloads[].trace is read now (sim/scenario/podtrace.c, tests/unit/test_podtrace.c). */
    fails("  - {name: w, trace: {format: openb, pods: x.csv}}\n", GS_EINVAL, BODY_LINE,
          "cannot read the trace 'x.csv' of spec.workloads[0]");
}

/* ------------------------------------------------------------------ arrival, duration, group */

Test(workloads, arrivals_durations_groups)
{
    ok("  - name: a\n"
       "    replicas: 3\n"
       "    arrival: {at: 1m, stagger: 2s}\n"
       "    duration: 2h\n"
       "    startLatency: 5s\n"
       "    group: {minMember: 3}\n"
       "    template: {spec: {containers: [{name: a}]}}\n"
       "  - name: b\n"
       "    arrival: {every: 5m, count: 10, start: 30s}\n"
       "    duration: {distribution: exponential, mean: 10m}\n"
       "    template: {spec: {containers: [{name: a}]}}\n"
       "  - name: c\n"
       "    replicas: 0\n"
       "    arrival: {process: poisson, rate: 12/h, count: 100}\n"
       "    duration: {distribution: lognormal, median: 30m, sigma: 1.0}\n"
       "    template: {spec: {containers: [{name: a}]}}\n"
       "  - name: d\n"
       "    duration: {distribution: fixed, value: 90s}\n"
       "    template: {spec: {containers: [{name: a}]}}\n");
    const struct gs_workload *a = wl(0), *b = wl(1), *c = wl(2), *d = wl(3);
    cr_assert_eq(a->arrival.kind, GS_ARRIVE_AT);
    cr_assert_eq(a->arrival.start, GS_MIN(1));
    cr_assert_eq(a->arrival.stagger, GS_SEC(2));
    cr_assert_eq(a->arrival.count, 1);
    cr_assert_eq(a->duration.kind, GS_DIST_FIXED);
    cr_assert_eq(a->duration.fixed, GS_MIN(120));
    cr_assert_eq(a->start_latency, GS_SEC(5));
    cr_assert_eq(a->group_min_member, 3);
    cr_assert_eq(b->arrival.kind, GS_ARRIVE_EVERY);
    cr_assert_eq(b->arrival.every, GS_MIN(5));
    cr_assert_eq(b->arrival.count, 10);
    cr_assert_eq(b->arrival.start, GS_SEC(30));
    cr_assert_eq(b->duration.kind, GS_DIST_EXPONENTIAL);
    cr_assert_eq(b->duration.mean, GS_MIN(10));
    cr_assert_eq(b->group_min_member, 0);
    cr_assert_eq(c->replicas, 0);
    cr_assert_eq(c->arrival.kind, GS_ARRIVE_POISSON);
    cr_assert_float_eq(c->arrival.rate_per_us, 12.0 / 3600e6, 1e-18);
    cr_assert_eq(c->arrival.count, 100);
    cr_assert_eq(c->duration.kind, GS_DIST_LOGNORMAL);
    cr_assert_eq(c->duration.median, GS_MIN(30));
    cr_assert_float_eq(c->duration.sigma, 1.0, 1e-12);
    cr_assert_eq(d->duration.kind, GS_DIST_FIXED);
    cr_assert_eq(d->duration.fixed, GS_SEC(90));
    gs_scenario_free(&sc);

    fails("  - name: a\n"
          "    arrival: {at: 0s, every: 5m}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "one of at, every or process");
    fails("  - name: a\n"
          "    arrival: {every: 5m}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1,
          "spec.workloads[0].arrival has no 'count', so its arrivals continue until the horizon: set spec.horizon");
    fails("  - name: a\n"
          "    arrival: {process: poisson, rate: 12, count: 3}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "invalid rate '12'");
    fails("  - name: a\n"
          "    duration: {distribution: exponential, median: 5m}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "'median' in spec.workloads[0].duration does not go with distribution exponential");
    fails("  - name: a\n"
          "    group: {minMember: 0}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "minMember");
    fails("  - name: a\n"
          "    group: {minMember: 2, scheduleTimeoutSeconds: 0}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "scheduleTimeoutSeconds");
    fails("  - name: a\n"
          "    group: {minMember: 2, minResources: {cpu: 1}}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_ENOTSUP, BODY_LINE + 1, "minResources");
    fails("  - name: a\n"
          "    group: {scheduleTimeoutSeconds: 5}\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 1, "minMember");
    fails("  - name: Trainer\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE, "invalid workload name 'Trainer'");
    fails("  - name: a\n"
          "    template: {spec: {containers: [{name: a}]}}\n"
          "  - name: a\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 2, "duplicate workload name 'a'");
    fails("  - name: a\n"
          "    replicas: 2\n"
          "    template: {spec: {containers: [{name: a}]}}\n"
          "  - name: a-1\n"
          "    template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 3, "clashes with the pods of workload 'a'");
}

/* ------------------------------------------------------------------ manifests */

/* c24-gpu-requests-must-equal-limits, the Jobs as the case writes them. */
#define C24_JOB(name, resources, at)                                                                        \
    "  - manifest:\n"                                                                                       \
    "      apiVersion: batch/v1\n"                                                                          \
    "      kind: Job\n"                                                                                     \
    "      metadata: {name: " name "}\n"                                                                    \
    "      spec:\n"                                                                                         \
    "        template:\n"                                                                                   \
    "          spec:\n"                                                                                     \
    "            restartPolicy: Never\n"                                                                    \
    "            containers:\n"                                                                             \
    "            - name: train\n"                                                                           \
    "              image: busybox\n"                                                                        \
    "              resources:\n" resources "    arrival: {at: " at "}\n"

Test(workloads, c24_job_shapes)
{
    ok(C24_JOB("multi-gpu-test",
               "                limits: {nvidia.com/gpu: 3}\n"
               "                requests: {nvidia.com/gpu: 1}\n",
               "0s") C24_JOB("requests-only", "                requests: {nvidia.com/gpu: 1}\n", "10s")
           C24_JOB("limits-only", "                limits: {nvidia.com/gpu: 3}\n", "20s"));
    cr_assert_eq(sc.world.nworkloads, 3);
    for (int i = 0; i < 3; i++) {
        const struct gs_workload *w = wl(i);
        cr_assert_eq(w->kind, GS_WL_JOB);
        cr_assert_str_eq(w->api_kind, "Job");
        cr_assert_str_eq(w->api_group, "batch");
        cr_assert_eq(w->parallelism, 1);
        cr_assert_eq(w->completions, 1);
        cr_assert_eq(w->backoff_limit, 6);
        cr_assert_eq(w->replicas, 1);
        cr_assert_str_eq(w->tmpl.invalid_path_prefix, "spec.template.spec.");
        cr_assert_str_eq(gs_labels_get(&w->tmpl.labels, "job-name"), w->name);
        cr_assert_str_eq(gs_labels_get(&w->tmpl.labels, "batch.kubernetes.io/job-name"), w->name);
    }
    cr_assert_str_eq(wl(0)->name, "multi-gpu-test");
    cr_assert_str_eq(wl(0)->tmpl.invalid_detail,
                     "spec.template.spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
                     "nvidia.com/gpu limit of 3");
    cr_assert_eq(wl(1)->arrival.start, GS_SEC(10));
    cr_assert_str_eq(wl(1)->tmpl.invalid_detail,
                     "spec.template.spec.containers[0].resources.limits: Required value: Limit must be set for non "
                     "overcommitable resources");
    cr_assert_null(wl(2)->tmpl.invalid_detail);
    cr_assert_eq(wl(2)->tmpl.requests.v[res("nvidia.com/gpu")], 3);
    gs_scenario_free(&sc);
}

#define JOB(spec)                                                                                           \
    "  - manifest:\n"                                                                                       \
    "      apiVersion: batch/v1\n"                                                                          \
    "      kind: Job\n"                                                                                     \
    "      metadata: {name: j}\n"                                                                           \
    "      spec:\n" spec "        template: {spec: {restartPolicy: OnFailure, containers: [{name: a}]}}\n"

Test(workloads, job_defaults)
{
    ok(JOB("        parallelism: 3\n"));
    cr_assert_eq(wl(0)->parallelism, 3);
    cr_assert_eq(wl(0)->completions, -1);
    cr_assert_eq(wl(0)->replicas, 3);
    gs_scenario_free(&sc);
    ok(JOB("        parallelism: 4\n        completions: 2\n        backoffLimit: 0\n        completionMode: Indexed\n"
           "        ttlSecondsAfterFinished: 100\n        suspend: false\n"));
    cr_assert_eq(wl(0)->parallelism, 4);
    cr_assert_eq(wl(0)->completions, 2);
    cr_assert_eq(wl(0)->backoff_limit, 0);
    cr_assert_eq(wl(0)->replicas, 2);
    gs_scenario_free(&sc);
    ok(JOB("        completions: 5\n"));
    cr_assert_eq(wl(0)->parallelism, 1);
    cr_assert_eq(wl(0)->completions, 5);
    cr_assert_eq(wl(0)->replicas, 1);
    gs_scenario_free(&sc);

    fails(JOB("        suspend: true\n"), GS_ENOTSUP, BODY_LINE + 5, "suspend");
    fails(JOB("        podFailurePolicy: {rules: []}\n"), GS_ENOTSUP, BODY_LINE + 5, "podFailurePolicy");
    fails("  - manifest:\n"
          "      apiVersion: batch/v1\n"
          "      kind: Job\n"
          "      metadata: {name: j}\n"
          "      spec:\n"
          "        template: {spec: {containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 5,
          "restartPolicy: Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"");
    fails("  - manifest:\n"
          "      apiVersion: batch/v1\n"
          "      kind: Job\n"
          "      metadata:\n"
          "        name: j\n"
          "        labels: {kueue.x-k8s.io/queue-name: Bad_Queue}\n"
          "      spec:\n"
          "        template: {spec: {restartPolicy: Never, containers: [{name: a}]}}\n",
          GS_EINVAL, BODY_LINE + 5, "must be a LocalQueue name");
}

Test(workloads, pod_manifest_and_kinds)
{
    ok("  - manifest:\n"
       "      apiVersion: v1\n"
       "      kind: Pod\n"
       "      metadata: {name: solo, namespace: ml, labels: {app: x}}\n"
       "      spec:\n"
       "        containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
       "    arrival: {at: 1m}\n"
       "    duration: 10m\n"
       "    startLatency: 3s\n");
    const struct gs_workload *w = wl(0);
    cr_assert_str_eq(w->name, "solo");
    cr_assert_eq(w->kind, GS_WL_POD);
    cr_assert_str_eq(w->api_kind, "Pod");
    cr_assert_str_eq(w->api_group, "");
    cr_assert_eq(w->replicas, 1);
    cr_assert_eq(w->arrival.start, GS_MIN(1));
    cr_assert_eq(w->duration.fixed, GS_MIN(10));
    cr_assert_eq(w->start_latency, GS_SEC(3));
    cr_assert_str_eq(gs_labels_get(&w->tmpl.labels, "app"), "x");
    cr_assert_str_eq(w->tmpl.invalid_path_prefix, "spec.");
    gs_scenario_free(&sc);

    fails("  - manifest: {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s}, spec: {}}\n", GS_EINVAL,
          BODY_LINE, "unsupported manifest kind 'StatefulSet'");
    cr_assert(not(eq(ptr, strstr(err.msg, "a v1 Pod, a batch/v1 Job, a leaderworkerset.x-k8s.io/v1 LeaderWorkerSet or a "
                              "scheduling.x-k8s.io/v1alpha1 PodGroup"), NULL)),
              "%s", err.msg);
    fails("  - manifest: {apiVersion: batch/v1, kind: job, metadata: {name: s}, spec: {}}\n", GS_EINVAL, BODY_LINE,
          "did you mean 'Job'?");
    fails("  - manifest: {apiVersion: apps/v1, kind: Deployment, metadata: {name: s}, spec: {}}\n", GS_ENOTSUP,
          BODY_LINE, "not supported yet: spec.workloads[0].manifest kind Deployment");
    fails("  - manifest: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, metadata: {name: s}}\n",
          GS_EINVAL, BODY_LINE, "missing required field 'spec'");
    fails("  - manifest: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, metadata: {name: s},\n"
          "      spec: {leaderWorkerTemplate: {size: 0, workerTemplate: {spec: {containers: [{name: a}]}}}}}\n",
          GS_EINVAL, BODY_LINE + 1, "size");
    fails("  - manifest: {apiVersion: leaderworkerset.x-k8s.io/v1, kind: LeaderWorkerSet, metadata: {name: s},\n"
          "      spec: {leaderWorkerTemplate: {restartPolicy: Always, workerTemplate: {spec: {containers: [{name: "
          "a}]}}}}}\n",
          GS_EINVAL, BODY_LINE + 1, "expected one of RecreateGroupOnPodRestart");
    fails("  - manifest: {apiVersion: batch/v1beta1, kind: Job, metadata: {name: s}, spec: {}}\n", GS_EINVAL,
          BODY_LINE, "kind Job is served as apiVersion batch/v1");
    fails("  - manifest: {apiVersion: v1, kind: Pod, metadata: {generateName: p-}, spec: {containers: [{name: a}]}}\n",
          GS_ENOTSUP, BODY_LINE, "generateName");
    fails("  - manifest: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: a}]}}\n"
          "    replicas: 2\n",
          GS_EINVAL, BODY_LINE + 1, "unknown key 'replicas' in spec.workloads[0]");
}

static void write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(content, f);
    fclose(f);
}

Test(workloads, manifest_from_a_file)
{
    char dir[] = "/tmp/gpusim-workloads-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sub[64], job[128], bad[128], scenario[128];
    snprintf(sub, sizeof sub, "%s/manifests", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    snprintf(job, sizeof job, "%s/job.yaml", sub);
    snprintf(bad, sizeof bad, "%s/bad.yaml", sub);
    snprintf(scenario, sizeof scenario, "%s/scenario.yaml", dir);
    write_file(job, "apiVersion: batch/v1\n"
                    "kind: Job\n"
                    "metadata: {name: from-file}\n"
                    "spec:\n"
                    "  parallelism: 2\n"
                    "  completions: 4\n"
                    "  template:\n"
                    "    spec:\n"
                    "      restartPolicy: Never\n"
                    "      containers:\n"
                    "      - name: main\n"
                    "        resources: {limits: {nvidia.com/gpu: 8}}\n");
    write_file(bad, "apiVersion: batch/v1\n"
                    "kind: Job\n"
                    "metadata: {name: bad}\n"
                    "spec:\n"
                    "  template:\n"
                    "    spec:\n"
                    "      restartPolicy: Never\n"
                    "      containers:\n"
                    "      - name: main\n"
                    "        resourcez: {}\n");

    int rc = load_named(scenario, "  - manifest: manifests/job.yaml\n    arrival: {at: 5m}\n");
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    const struct gs_workload *w = wl(0);
    cr_assert_str_eq(w->name, "from-file");
    cr_assert_eq(w->parallelism, 2);
    cr_assert_eq(w->completions, 4);
    cr_assert_eq(w->replicas, 2);
    cr_assert_eq(w->arrival.start, GS_MIN(5));
    cr_assert_eq(w->tmpl.requests.v[res("nvidia.com/gpu")], 8);
    gs_scenario_free(&sc);

    /* An error inside the manifest names the manifest's file and line. */
    rc = load_named(scenario, "  - manifest: manifests/bad.yaml\n");
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert(not(eq(ptr, strstr(err.file, "bad.yaml"), NULL)), "%s", err.file);
    cr_assert_eq(err.line, 10);
    cr_assert(not(eq(ptr, strstr(err.msg, "did you mean 'resources'?"), NULL)), "%s", err.msg);

    rc = load_named(scenario, "  - manifest: manifests/missing.yaml\n");
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert(not(eq(ptr, strstr(err.file, "scenario.yaml"), NULL)), "%s", err.file);
    cr_assert_eq(err.line, BODY_LINE);
    cr_assert(not(eq(ptr, strstr(err.msg, "cannot read the manifest 'manifests/missing.yaml'"), NULL)), "%s", err.msg);

    unlink(job);
    unlink(bad);
    rmdir(sub);
    rmdir(dir);
}

/* ------------------------------------------------------------------ events */

#define NO_WORKLOADS "  - {name: w, template: {spec: {containers: [{name: a}]}}}\n"

Test(events, decode_and_sort)
{
    ok(NO_WORKLOADS "  events:\n"                               /* line BODY_LINE + 1 */
                    "  - {at: 2h, deletePod: {pod: w}}\n"      /* + 2 */
                    "  - {at: 1h, cordon: {node: h100-1}}\n"   /* + 3 */
                    "  - at: 1h\n"                              /* + 4 */
                    "    label: {node: h100-7, set: {nvidia.com/mig.config: all-1g.10gb, b: null, a: \"x\"}}\n"
                    "  - {at: 0s, addNodes: {pool: cpu, count: 3}}\n" /* + 6 */
                    "  - {at: 1h, uncordon: {node: cpu-0}}\n"          /* + 7 */
                    "  - {at: 30m, drain: {node: h100-0}}\n"           /* + 8 */
                    "  - {at: 30m, deleteNode: {node: h100-1}}\n");    /* + 9 */
    cr_assert_eq(sc.nevents, 7);
    static const enum gs_sevent_kind kinds[] = {GS_SEV_ADD_NODES, GS_SEV_DRAIN,    GS_SEV_DELETE_NODE,
                                                GS_SEV_CORDON,    GS_SEV_LABEL,    GS_SEV_UNCORDON,
                                                GS_SEV_DELETE_POD};
    static const int lines[] = {6, 8, 9, 3, 4, 7, 2};
    for (int i = 0; i < 7; i++) {
        cr_assert_eq(sc.events[i].kind, kinds[i], "event %d", i);
        cr_assert_eq(sc.events[i].line, BODY_LINE + lines[i], "event %d line %d", i, sc.events[i].line);
    }
    cr_assert_eq(sc.events[0].pool, 1);
    cr_assert_eq(sc.events[0].count, 3);
    cr_assert_eq(sc.events[1].at, GS_MIN(30));
    cr_assert_str_eq(sc.events[1].node, "h100-0");
    const struct gs_sevent *l = &sc.events[4];
    cr_assert_str_eq(l->node, "h100-7");
    cr_assert_eq(l->set.n, 3);
    cr_assert_str_eq(l->set.kv[0].key, "a");
    cr_assert_str_eq(l->set.kv[0].value, "x");
    cr_assert_str_eq(l->set.kv[1].key, "b");
    cr_assert_null(l->set.kv[1].value);
    cr_assert_str_eq(gs_labels_get(&l->set, "nvidia.com/mig.config"), "all-1g.10gb");
    cr_assert_str_eq(sc.events[6].pod, "w");
    cr_assert_eq(sc.events[6].at, GS_MIN(120));
    gs_scenario_free(&sc);

    ok("  - manifest:\n"
       "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
       "      kind: LeaderWorkerSet\n"
       "      metadata: {name: vllm}\n"
       "      spec: {leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w}]}}}}\n"
       "  events:\n"
       "  - {at: 2m, scale: {kind: LeaderWorkerSet, name: vllm, replicas: 4}}\n"
       "  - {at: 1m, schedulerRestart: {downtime: 15s}}\n"
       "  - {at: 3m, schedulerRestart: null}\n");
    cr_assert_eq(sc.nevents, 3);
    cr_assert_eq(sc.events[0].kind, GS_SEV_SCHEDULER_RESTART);
    cr_assert_eq(sc.events[0].downtime, GS_SEC(15));
    cr_assert_eq(sc.events[1].kind, GS_SEV_SCALE);
    cr_assert_eq(sc.events[1].workload, 0);
    cr_assert_eq(sc.events[1].replicas, 4);
    cr_assert_eq(sc.events[2].downtime, 0);
    gs_scenario_free(&sc);
}

Test(events, errors)
{
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, addNodes: {pool: h10, count: 1}}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown node pool 'h10' at spec.events[0].addNodes.pool (did you mean 'h100'?)");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, cordon: {node: a100-0}}\n", GS_EINVAL, BODY_LINE + 2,
          "node 'a100-0' cannot belong to any node pool");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, cordon: {node: h100-01}}\n", GS_EINVAL, BODY_LINE + 2,
          "cannot belong to any node pool");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, cordon: {node: h100-0}, drain: {node: h100-0}}\n", GS_EINVAL,
          BODY_LINE + 2, "two actions");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h}\n", GS_EINVAL, BODY_LINE + 2, "has no action");
    fails(NO_WORKLOADS "  events:\n  - {cordon: {node: h100-0}}\n", GS_EINVAL, BODY_LINE + 2,
          "missing required field 'at'");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, cordn: {node: h100-0}}\n", GS_EINVAL, BODY_LINE + 2,
          "did you mean 'cordon'?");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, operandFault: {node: h100-0}}\n", GS_ENOTSUP, BODY_LINE + 2,
          "not supported yet: spec.events[0].operandFault");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, schedulerRestart: {schedulerName: my-scheduler}}\n", GS_EINVAL,
          BODY_LINE + 2, "no scheduler named 'my-scheduler' at spec.events[0].schedulerRestart.schedulerName");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, scale: {kind: Deployment, name: w, replicas: 2}}\n", GS_ENOTSUP,
          BODY_LINE + 2, "not supported yet: spec.events[0].scale.kind: Deployment");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, scale: {kind: LeaderWorkerSet, name: w, replicas: 2}}\n",
          GS_EINVAL, BODY_LINE + 2, "no LeaderWorkerSet named 'w' in spec.workloads");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, scale: {kind: LeaderWorkerSet, name: w}}\n", GS_EINVAL,
          BODY_LINE + 2, "missing required field 'replicas'");
    fails(NO_WORKLOADS "  events:\n  - {at: 1h, label: {node: h100-0, set: {bad key: x}}}\n", GS_EINVAL,
          BODY_LINE + 2, "invalid label key 'bad key'");
}

/* ------------------------------------------------------------------ expectations */

Test(expect, each_kind)
{
    ok(NO_WORKLOADS
       "  expect:\n"                                                                         /* + 1 */
       "  - pod: w\n"                                                                        /* + 2 */
       "    at: 10m\n"
       "    phase: Pending\n"
       "    message: \"0/3 nodes are available\"\n"
       "  - {pod: w, node: h100-0, scheduledWithin: 5m, reason: OutOfgpu, messageContains: x}\n" /* + 6 */
       "  - {pod: w, at: 6m, exists: false}\n"                                               /* + 7 */
       "  - pods: {phase: Running, workload: w, namePrefix: w-, labelSelector: {app: x}, node: cpu-0}\n" /* + 8 */
       "    count: 6\n"
       "  - {pods: {}, min: 1, max: 2, at: 1h}\n"                                            /* + 10 */
       "  - node: h100-0\n"                                                                  /* + 11 */
       "    at: 10m\n"
       "    schedulable: true\n"
       "    allocatable: {nvidia.com/gpu: 8, cpu: \"95500m\", example.com/x: null}\n"
       "    capacity: {nvidia.com/gpu: \"8\"}\n"
       "    labels: {nvidia.com/gpu.count: 8, gone: null}\n"
       "  - object: {kind: Job, name: multi-gpu-test}\n"                                     /* + 17 */
       "    at: 1m\n"
       "    rejected: true\n"
       "    message: 'Job.batch \"multi-gpu-test\" is invalid: x'\n"
       "  - object: {kind: Pod, name: w, namespace: default, apiVersion: v1}\n"             /* + 21 */
       "    exists: false\n"
       "  - {metric: gpusAllocated, at: 1h, equals: 24}\n"                                   /* + 23 */
       "  - {metric: podsRunning, from: 10m, to: 1h, max: 0.5}\n"                            /* + 24 */
       "  - {podGroup: trainer-a, phase: Running}\n");                                       /* + 25 */
    cr_assert_eq(sc.nexpects, 11);
    const struct gs_expect *e = sc.expects;
    static const int lines[] = {2, 6, 7, 8, 10, 11, 17, 21, 23, 24, 25};
    for (int i = 0; i < 11; i++)
        cr_assert_eq(e[i].line, BODY_LINE + lines[i], "expect %d at line %d", i, e[i].line);

    cr_assert_eq(e[0].kind, GS_EX_POD);
    cr_assert_str_eq(e[0].name, "w");
    cr_assert(e[0].has_at);
    cr_assert_eq(e[0].at, GS_MIN(10));
    cr_assert(e[0].has_phase);
    cr_assert_eq(e[0].phase, GS_PHASE_PENDING);
    cr_assert_str_eq(e[0].message, "0/3 nodes are available");
    cr_assert_not(e[0].has_exists);

    cr_assert_not(e[1].has_at);
    cr_assert_str_eq(e[1].node, "h100-0");
    cr_assert(e[1].has_scheduled_within);
    cr_assert_eq(e[1].scheduled_within, GS_MIN(5));
    cr_assert_str_eq(e[1].reason, "OutOfgpu");
    cr_assert_str_eq(e[1].message_contains, "x");

    cr_assert(e[2].has_exists);
    cr_assert_not(e[2].exists);

    cr_assert_eq(e[3].kind, GS_EX_PODS);
    cr_assert_eq(e[3].phase, GS_PHASE_RUNNING);
    cr_assert_str_eq(e[3].workload, "w");
    cr_assert_str_eq(e[3].name_prefix, "w-");
    cr_assert_str_eq(gs_labels_get(&e[3].label_selector, "app"), "x");
    cr_assert_str_eq(e[3].node, "cpu-0");
    cr_assert(e[3].has_count);
    cr_assert_eq(e[3].count, 6);
    cr_assert(e[4].has_min && e[4].has_max && !e[4].has_count && !e[4].has_phase);
    cr_assert_eq(e[4].max, 2);

    cr_assert_eq(e[5].kind, GS_EX_NODE);
    cr_assert_str_eq(e[5].name, "h100-0");
    cr_assert(e[5].has_schedulable && e[5].schedulable);
    cr_assert_eq(e[5].nallocatable, 3);
    cr_assert_str_eq(e[5].allocatable[0].key, "nvidia.com/gpu");
    cr_assert_str_eq(e[5].allocatable[0].value, "8");
    cr_assert_str_eq(e[5].allocatable[1].value, "95500m");
    cr_assert_null(e[5].allocatable[2].value);
    cr_assert_eq(e[5].ncapacity, 1);
    cr_assert_eq(e[5].nlabels, 2);
    cr_assert_str_eq(e[5].labels[0].value, "8");
    cr_assert_null(e[5].labels[1].value);

    cr_assert_eq(e[6].kind, GS_EX_OBJECT);
    cr_assert_str_eq(e[6].obj_kind, "Job");
    cr_assert_str_eq(e[6].name, "multi-gpu-test");
    cr_assert(e[6].has_rejected && e[6].rejected);
    cr_assert_str_eq(e[6].message, "Job.batch \"multi-gpu-test\" is invalid: x");
    cr_assert(eq(int, e[6].has_desired_scheduled || e[6].has_number_ready, 0));
    cr_assert_str_eq(e[7].obj_kind, "Pod");
    cr_assert_str_eq(e[7].obj_namespace, "default");
    cr_assert_str_eq(e[7].obj_api_version, "v1");
    cr_assert(e[7].has_exists && !e[7].exists);
    cr_assert(eq(int, e[7].has_desired_scheduled || e[7].has_number_ready, 0));
    cr_assert_null(e[7].obj_spec);

    cr_assert_eq(e[8].kind, GS_EX_METRIC);
    cr_assert_str_eq(e[8].name, "gpusAllocated");
    cr_assert(e[8].has_at && e[8].has_equals);
    cr_assert_float_eq(e[8].equals, 24.0, 1e-12);
    cr_assert(e[9].has_window);
    cr_assert_eq(e[9].from, GS_MIN(10));
    cr_assert_eq(e[9].to, GS_MIN(60));
    cr_assert(e[9].has_mmax && !e[9].has_mmin);
    cr_assert_float_eq(e[9].mmax, 0.5, 1e-12);

    cr_assert_eq(e[10].kind, GS_EX_POD_GROUP);
    cr_assert_str_eq(e[10].name, "trainer-a");
    cr_assert_eq(e[10].phase, GS_PHASE_RUNNING);

    /* Each check's line is known at load time (a run stopped before it still names it). */
    static const char *const what[] = {
        "pod w at 10m0s: phase Pending message",
        "pod w: node h100-0 messageContains reason OutOfgpu scheduledWithin 5m0s",
        "pod w at 6m0s: exists false",
        "pods: {phase: Running, workload: w, namePrefix: w-, node: cpu-0, labelSelector} count 6",
        "pods at 1h0m0s: {} min 1 max 2",
        ("node h100-0 at 10m0s: schedulable true allocatable[nvidia.com/gpu]=8 allocatable[cpu]=95500m "
         "allocatable[example.com/x]=null capacity[nvidia.com/gpu]=8 labels[nvidia.com/gpu.count]=8 labels[gone]=null"),
        "object Job/multi-gpu-test at 1m0s: rejected true message",
        "object Pod/w: exists false",
        "metric gpusAllocated at 1h0m0s: equals 24",
        "metric podsRunning from 10m0s to 1h0m0s: max 0.5",
        "podGroup trainer-a: phase Running",
    };
    for (int i = 0; i < 11; i++)
        cr_expect_str_eq(e[i].what, what[i], "expect %d", i);
    gs_scenario_free(&sc);
}

Test(expect, what_without_a_check_after_the_colon)
{
    ok(NO_WORKLOADS "  expect:\n"
                    "  - {pod: nope}\n"
                    "  - {pods: {workload: w, phase: Succeeded}, count: 4}\n"
                    "  - {metric: podsPending, from: 5m, min: 1}\n"
                    "  - {node: h100-0, at: 2m, operand: {nvidia-driver-daemonset: \"Init:0/4\"}}\n");
    cr_assert_eq(sc.nexpects, 4);
    cr_expect_str_eq(sc.expects[0].what, "pod nope: exists true");
    cr_expect_str_eq(sc.expects[1].what, "pods: {phase: Succeeded, workload: w} count 4");
    cr_expect_str_eq(sc.expects[2].what, "metric podsPending from 5m0s: min 1");
    cr_expect_str_eq(sc.expects[3].what, "node h100-0 at 2m0s: operand[nvidia-driver-daemonset]=Init:0/4");
    /* gs_expect_describe never leaves a bare colon (the FAIL line adds ": <detail>"). */
    struct gs_expect e = {.kind = GS_EX_POD, .name = "nope"};
    char buf[64];
    cr_expect_eq(gs_expect_describe(&e, buf, sizeof buf), 8);
    cr_expect_str_eq(buf, "pod nope");
    e.has_at = true;
    e.at = GS_SEC(680);
    e.has_phase = true;
    e.phase = GS_PHASE_RUNNING;
    cr_expect_eq(gs_expect_describe(&e, NULL, 0), 33);
    cr_expect_eq(gs_expect_describe(&e, buf, 10), 33, "the length it wanted");
    cr_expect_str_eq(buf, "pod nope ");
    gs_expect_describe(&e, buf, sizeof buf);
    cr_expect_str_eq(buf, "pod nope at 11m20s: phase Running");
    gs_scenario_free(&sc);
}

Test(expect, object_kinds_and_fields_not_compared_yet)
{
    /* status/spec subset matches and conditions are not compared yet: refused, not a silent PASS. */
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: Job, name: j}\n    status: {succeeded: 1}\n", GS_ENOTSUP,
          BODY_LINE + 3, "not supported yet: spec.expect[0].status");
    cr_assert_eq(err.col, 5);
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: Job, name: j}\n    spec: {parallelism: 1}\n", GS_ENOTSUP,
          BODY_LINE + 3, "not supported yet: spec.expect[0].spec");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: Job, name: j}\n    conditions: [{type: Complete}]\n",
          GS_ENOTSUP, BODY_LINE + 3, "not supported yet: spec.expect[0].conditions (kind Job)");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: Job, name: j}\n    messageContains: invalid\n", GS_ENOTSUP,
          BODY_LINE + 3, "not supported yet: spec.expect[0].messageContains");
    /* kinds of later issues */
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: Deployment, name: nvidia-device-plugin}\n", GS_ENOTSUP,
          BODY_LINE + 2, "not supported yet: spec.expect[0].object.kind (kind Deployment)");
    cr_assert_eq(err.col, 20, "at the kind: col %d", err.col);
    static const char *const later[] = {"PodGroup",     "LeaderWorkerSet",
                                        "ClusterQueue",  "LocalQueue",      "ResourceFlavor", "Topology",
                                        "ClusterPolicy", "Node",            "Deployment"};
    for (size_t i = 0; i < sizeof later / sizeof *later; i++) {
        char body[512], msg[128];
        snprintf(body, sizeof body, NO_WORKLOADS "  expect:\n  - {object: {kind: %s, name: x}, exists: true}\n",
                 later[i]);
        snprintf(msg, sizeof msg, "not supported yet: spec.expect[0].object.kind (kind %s)", later[i]);
        fails(body, GS_ENOTSUP, BODY_LINE + 2, msg);
    }
    /* anything else */
    fails(NO_WORKLOADS "  expect:\n  - {object: {kind: Jbo, name: j}, exists: true}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown object kind 'Jbo' at spec.expect[0].object.kind (did you mean 'Job'?): gpusim checks Pod, Job "
          "(batch/v1), PriorityClass and DaemonSet (apps/v1) objects");
    fails(NO_WORKLOADS "  expect:\n  - {object: {kind: Daemonset, name: j}}\n", GS_EINVAL, BODY_LINE + 2,
          "(did you mean 'DaemonSet'?)");
    fails(NO_WORKLOADS "  expect:\n  - {object: {kind: Frobnicator, name: j}}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown object kind 'Frobnicator' at spec.expect[0].object.kind: gpusim checks Pod, Job (batch/v1), "
          "PriorityClass and DaemonSet (apps/v1) objects");
    fails(NO_WORKLOADS "  expect:\n  - {object: {kind: Job, apiVersion: v1, name: j}}\n", GS_EINVAL, BODY_LINE + 2,
          "no kind \"Job\" in apiVersion \"v1\" at spec.expect[0].object.apiVersion: use batch/v1");
    /* the supported ones */
    ok(NO_WORKLOADS "  expect:\n"
                    "  - {object: {kind: Job, apiVersion: batch/v1, name: j}, rejected: true, message: m}\n"
                    "  - {object: {kind: Pod, name: w}}\n"
                    "  - {object: {kind: PriorityClass, apiVersion: scheduling.k8s.io/v1, name: high}}\n");
    cr_assert_eq(sc.nexpects, 3);
    cr_expect(sc.expects[1].has_exists && sc.expects[1].exists);
    cr_expect_str_eq(sc.expects[2].what, "object PriorityClass/high: exists true");
    gs_scenario_free(&sc);
}

/* DaemonSet objects: exists, and status.desiredNumberScheduled / numberReady decoded at load. */
Test(expect, daemonset_status)
{
    ok(NO_WORKLOADS "  expect:\n"
                    "  - object: {kind: DaemonSet, apiVersion: apps/v1, name: nvidia-device-plugin}\n"
                    "    at: 4m\n"
                    "    status: {desiredNumberScheduled: 0, numberReady: 0}\n"
                    "  - object: {kind: DaemonSet, name: gpu-feature-discovery}\n"
                    "    status: {numberReady: 3}\n"
                    "  - {object: {kind: DaemonSet, name: x}, exists: false}\n");
    const struct gs_expect *e = sc.expects;
    cr_assert_eq(sc.nexpects, 3);
    cr_expect(e[0].has_desired_scheduled && e[0].has_number_ready);
    cr_expect_eq(e[0].desired_scheduled, 0);
    cr_expect_not(e[0].has_exists, "status alone does not add an exists check");
    cr_expect_str_eq(e[0].what,
                     "object DaemonSet/nvidia-device-plugin at 4m0s: desiredNumberScheduled 0 numberReady 0");
    cr_expect(eq(int, !e[1].has_desired_scheduled && e[1].has_number_ready, 1));
    cr_expect_eq(e[1].number_ready, 3);
    cr_expect(e[2].has_exists && !e[2].exists);
    gs_scenario_free(&sc);
    /* other DaemonSet status fields, and status on other kinds, are not compared yet */
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: DaemonSet, name: d}\n    status: {numberAvailable: 1}\n",
          GS_ENOTSUP, BODY_LINE + 3, "not supported yet: spec.expect[0].status.numberAvailable");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: Pod, name: w}\n    status: {phase: Running}\n", GS_ENOTSUP,
          BODY_LINE + 3, "not supported yet: spec.expect[0].status");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: DaemonSet, name: d}\n    status: {desiredNumberSchedule: 1}\n",
          GS_EINVAL, BODY_LINE + 3,
          "unknown key 'desiredNumberSchedule' in spec.expect[0].status (did you mean 'desiredNumberScheduled'?)");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: DaemonSet, name: d}\n    status: {numberReady: -1}\n",
          GS_EINVAL, BODY_LINE + 3, "spec.expect[0].status.numberReady");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: DaemonSet, name: d}\n    status: {}\n", GS_EINVAL,
          BODY_LINE + 3, "spec.expect[0].status checks nothing: give desiredNumberScheduled or numberReady");
    fails(NO_WORKLOADS "  expect:\n  - object: {kind: DaemonSet, name: d}\n    exists: false\n"
                       "    status: {numberReady: 0}\n",
          GS_EINVAL, BODY_LINE + 4, "'status' in spec.expect[0] cannot be checked with exists: false");
    fails(NO_WORKLOADS "  expect:\n  - {object: {kind: DaemonSet, apiVersion: v1, name: d}}\n", GS_EINVAL,
          BODY_LINE + 2, "no kind \"DaemonSet\" in apiVersion \"v1\" at spec.expect[0].object.apiVersion: use apps/v1");
}

Test(expect, frag_gpus_metric)
{
    ok(NO_WORKLOADS "  expect:\n  - {metric: fragGpus, at: 1h, max: 0}\n");
    cr_assert_eq(sc.nexpects, 1);
    gs_scenario_free(&sc);
    fails(NO_WORKLOADS "  expect:\n  - {metric: podsRuning, equals: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown metric 'podsRuning' at spec.expect[0].metric (did you mean 'podsRunning'?)");
    fails(NO_WORKLOADS "  expect:\n  - {metric: utilisation, equals: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown metric 'utilisation' at spec.expect[0].metric: expected one of nodesReady, gpusCapacity, "
          "gpusAllocatable, gpusAllocated, podsPending, podsRunning, fragGpus, gpusHeldByIncompleteGroups");
}

Test(expect, label_selector_shapes)
{
    ok(NO_WORKLOADS "  expect:\n"
                    "  - {pods: {labelSelector: {app: x, example.com/team: a}}, count: 1}\n"
                    "  - {pods: {labelSelector: {matchLabels: {app: v}}}, count: 1}\n"
                    "  - {pods: {labelSelector: {matchLabels: {app: z}, matchExpressions: []}}, count: 1}\n"
                    "  - {pods: {labelSelector: {matchLabels: null}}, count: 1}\n");
    cr_assert_eq(sc.nexpects, 4);
    cr_expect_eq(sc.expects[0].label_selector.n, 2);
    cr_expect_str_eq(gs_labels_get(&sc.expects[0].label_selector, "example.com/team"), "a");
    cr_expect_eq(sc.expects[1].label_selector.n, 1);
    cr_expect_str_eq(gs_labels_get(&sc.expects[1].label_selector, "app"), "v");
    cr_expect_str_eq(gs_labels_get(&sc.expects[2].label_selector, "app"), "z");
    cr_expect_eq(sc.expects[3].label_selector.n, 0);
    gs_scenario_free(&sc);

    fails(NO_WORKLOADS "  expect:\n  - pods:\n      labelSelector:\n        matchExpressions: [{key: app, operator: "
                       "In, values: [x]}]\n    count: 1\n",
          GS_ENOTSUP, BODY_LINE + 4, "not supported yet: spec.expect[0].pods.labelSelector.matchExpressions");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: [app=x]}, count: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "expected a mapping at spec.expect[0].pods.labelSelector, got a sequence: a labelSelector is a map of "
          "labels ({app: x}) or a LabelSelector ({matchLabels: {app: x}})");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: app=x}, count: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "got a scalar: a labelSelector is a map of labels");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: {matchLabel: {app: x}}}, count: 1}\n", GS_EINVAL,
          BODY_LINE + 2,
          "unknown key 'matchLabel' in spec.expect[0].pods.labelSelector (did you mean 'matchLabels'?): a "
          "labelSelector is a map of labels ({app: x}) or a LabelSelector ({matchLabels: {app: x}})");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: {app: {x: y}}}, count: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "expected a string at spec.expect[0].pods.labelSelector.app, got a mapping: a labelSelector is a map");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: {matchLabels: {app: x}, tier: a}}, count: 1}\n",
          GS_EINVAL, BODY_LINE + 2,
          "unknown key 'tier' in spec.expect[0].pods.labelSelector: a LabelSelector takes only matchLabels and "
          "matchExpressions");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: {matchLabels: {bad key: x}}}, count: 1}\n", GS_EINVAL,
          BODY_LINE + 2, "invalid label key 'bad key' in spec.expect[0].pods.labelSelector.matchLabels");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {labelSelector: {matchLabels: [a]}}, count: 1}\n", GS_EINVAL,
          BODY_LINE + 2,
          "expected a mapping of labels at spec.expect[0].pods.labelSelector.matchLabels, got a sequence");
}

Test(expect, checks_after_the_horizon)
{
    fails(NO_WORKLOADS "  horizon: 10m\n  expect:\n  - {pod: w, at: 100h, phase: Running}\n", GS_EINVAL,
          BODY_LINE + 3, "spec.expect[0]: at 100h is after the horizon 10m0s (spec.horizon): the run ends before it");
    cr_assert_eq(err.col, 18, "at the at: value, col %d", err.col);
    fails(NO_WORKLOADS "  horizon: 1h\n  expect:\n  - {metric: podsRunning, from: 61m, max: 3}\n", GS_EINVAL,
          BODY_LINE + 3, "spec.expect[0]: from 61m is after the horizon 1h0m0s (spec.horizon)");
    fails(NO_WORKLOADS "  horizon: 1h\n  expect:\n  - {metric: podsRunning, from: 0s, to: 2h, max: 3}\n", GS_EINVAL,
          BODY_LINE + 3, "spec.expect[0]: to 2h is after the horizon 1h0m0s (spec.horizon)");
    cr_assert_eq(err.col, 41);
    /* at the horizon is fine (the run loop dispatches events at t <= horizon); no horizon: any time */
    ok(NO_WORKLOADS "  horizon: 1h\n  expect:\n  - {pod: w, at: 1h}\n  - {metric: podsRunning, from: 0s, max: 3}\n");
    gs_scenario_free(&sc);
    ok(NO_WORKLOADS "  expect:\n  - {pod: w, at: 1000h}\n");
    gs_scenario_free(&sc);
}

Test(workloads, quantities_above_the_bound)
{
    /* GS_QUANTITY_MAX is 2^50: 1Pi of memory, 1125899906842624 millicores */
    ok("  - {name: w, template: {spec: {containers: [{name: a, resources: {limits: {memory: 1Pi, cpu: "
       "\"1125899906842624m\", example.com/x: \"1125899906842624\"}}}]}}}\n");
    gs_scenario_free(&sc);
    fails("  - {name: w, template: {spec: {containers: [{name: a, resources: {limits: {memory: 2Pi}}}]}}}\n",
          GS_EINVAL, BODY_LINE,
          "spec.workloads[0].template.spec.containers[0].resources.limits[memory]: 2Pi is 2251799813685248 bytes, "
          "more than gpusim supports (at most 1125899906842624 bytes, 2^50: 1Pi)");
    cr_assert_eq(err.col, 85, "at the quantity, col %d", err.col);
    fails("  - {name: w, template: {spec: {containers: [{name: a, resources: {requests: {cpu: 2e12}}}]}}}\n", GS_EINVAL,
          BODY_LINE,
          "resources.requests[cpu]: 2e12 is 2000000000000000 millicores, more than gpusim supports (at most "
          "1125899906842624 millicores, 2^50: about 1.1e12 cores)");
    fails("  - {name: w, template: {spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 1e30}}}]}}}\n",
          GS_EINVAL, BODY_LINE,
          "1e30 is 9223372036854775807, more than gpusim supports (at most 1125899906842624, 2^50");
    /* each container within the bound, the pod's sum not */
    fails("  - name: w\n"
          "    template:\n"
          "      spec:\n"
          "        containers:\n"
          "        - {name: a, resources: {requests: {memory: 600Ti}}}\n"
          "        - {name: b, resources: {requests: {memory: 600Ti}}}\n",
          GS_EINVAL, BODY_LINE + 4,
          "spec.workloads[0].template.spec.containers: the pod's memory requests add up to 1319413953331200 bytes, "
          "more than gpusim supports (at most 1125899906842624 bytes, 2^50: 1Pi)");
    /* a Job manifest's containers too */
    fails("  - manifest: {apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {template: {spec: {containers: "
          "[{name: a, resources: {limits: {cpu: 1e13}}}], restartPolicy: Never}}}}\n",
          GS_EINVAL, BODY_LINE, "limits[cpu]: 1e13 is 10000000000000000 millicores, more than gpusim supports");
}

Test(expect, errors)
{
    fails(NO_WORKLOADS "  expect:\n  - {metric: gpuAllocated, equals: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown metric 'gpuAllocated' at spec.expect[0].metric (did you mean 'gpusAllocated'?)");
    fails(NO_WORKLOADS "  expect:\n  - {metric: podsRunning, at: 1m}\n", GS_EINVAL, BODY_LINE + 2,
          "needs a bound");
    fails(NO_WORKLOADS "  expect:\n  - {metric: podsRunning, at: 1m, from: 0s, min: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "at, or from/to");
    fails(NO_WORKLOADS "  expect:\n  - {pods: {phase: Running}}\n", GS_EINVAL, BODY_LINE + 2, "needs a bound");
    fails(NO_WORKLOADS "  expect:\n  - {pod: w, phase: Done}\n", GS_EINVAL, BODY_LINE + 2, "expected one of Pending");
    fails(NO_WORKLOADS "  expect:\n  - {pod: w, count: 1}\n", GS_EINVAL, BODY_LINE + 2,
          "unknown key 'count' in spec.expect[0]");
    fails(NO_WORKLOADS "  expect:\n  - {pod: w, node: h100-0, pods: {}}\n", GS_EINVAL, BODY_LINE + 2,
          "both 'pod' and 'pods'");
    fails(NO_WORKLOADS "  expect:\n  - {pdo: w, phase: Running}\n", GS_EINVAL, BODY_LINE + 2,
          "did you mean 'pod'?");
    fails(NO_WORKLOADS "  expect:\n  - {pod: w, exists: false, phase: Running}\n", GS_EINVAL, BODY_LINE + 2,
          "cannot be checked with exists: false");
    ok(NO_WORKLOADS "  expect:\n  - pod: w\n    conditions: [{type: DisruptionTarget, status: \"True\"}]\n");
    gs_scenario_free(&sc); /* before the next load overwrites it */
    fails(NO_WORKLOADS "  expect:\n  - pod: w\n    conditions: [{status: \"True\"}]\n", GS_EINVAL, BODY_LINE + 3,
          "missing required field 'type'");
    fails(NO_WORKLOADS "  expect:\n  - pod: w\n    conditions: [{type: Ready, status: yes}]\n", GS_EINVAL,
          BODY_LINE + 3, "expected one of True");
    fails(NO_WORKLOADS "  expect:\n  - pod: w\n    conditions: []\n", GS_EINVAL, BODY_LINE + 3, "checks nothing");
    fails(NO_WORKLOADS "  expect:\n  - pod: w\n    conditions: [{type: Ready, message: a, messageContains: b}]\n",
          GS_EINVAL, BODY_LINE + 3, "not both");
    fails(NO_WORKLOADS "  expect:\n  - {node: h100-0, operand: {nvidia-driver-daemonset: Runing}}\n", GS_EINVAL,
          BODY_LINE + 2, "unknown pod status 'Runing'");
    fails(NO_WORKLOADS "  expect:\n  - {node: gpu-0, schedulable: true}\n", GS_EINVAL, BODY_LINE + 2,
          "cannot belong to any node pool");
    fails(NO_WORKLOADS "  expect:\n  - {node: h100-0, allocatable: {nvidia.com/gpu: eight}}\n", GS_EINVAL,
          BODY_LINE + 2, "invalid quantity \"eight\"");
    fails(NO_WORKLOADS "  expect:\n  - {object: {kind: Job}, exists: true}\n", GS_EINVAL, BODY_LINE + 2,
          "missing required field 'name'");
}

Test(workloads, leader_worker_set_manifest)
{
    ok("  - manifest:\n"
       "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
       "      kind: LeaderWorkerSet\n"
       "      metadata: {name: vllm}\n"
       "      spec:\n"
       "        replicas: 3\n"
       "        startupPolicy: LeaderReady\n"
       "        leaderWorkerTemplate:\n"
       "          size: 4\n"
       "          restartPolicy: None\n"
       "          leaderTemplate: {spec: {containers: [{name: l, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
       "          workerTemplate: {spec: {containers: [{name: w, resources: {limits: {nvidia.com/gpu: 8}}}]}}\n"
       "    arrival: {at: 1m}\n");
    const struct gs_workload *w = wl(0);
    cr_assert_eq(w->kind, GS_WL_LWS);
    cr_assert_str_eq(w->name, "vllm");
    cr_assert_eq(w->replicas, 3);
    cr_assert_eq(w->lws_size, 4);
    cr_assert_eq(w->lws_restart, GS_LWS_RESTART_NONE);
    cr_assert(w->lws_leader_ready);
    int gpu = res("nvidia.com/gpu");
    cr_assert_eq(w->tmpl.requests.v[gpu], 8);
    cr_assert_eq(w->lws_leader_tmpl->requests.v[gpu], 1);
    cr_assert_eq(w->arrival.start, GS_MIN(1));
    gs_scenario_free(&sc);

    /* Defaults: one group of one pod, the leader from the worker template, the whole group
     * re-created on a restart (kubernetes-sigs/lws leaderworkerset_types.go). */
    ok("  - manifest:\n"
       "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
       "      kind: LeaderWorkerSet\n"
       "      metadata: {name: solo}\n"
       "      spec: {leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w}]}}}}\n");
    w = wl(0);
    cr_assert_eq(w->replicas, 1);
    cr_assert_eq(w->lws_size, 1);
    cr_assert_eq(w->lws_restart, GS_LWS_RECREATE_GROUP);
    cr_assert_not(w->lws_leader_ready);
    cr_assert_eq(w->lws_leader_tmpl, &w->tmpl);
    gs_scenario_free(&sc);

    fails("  - manifest:\n"
          "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
          "      kind: LeaderWorkerSet\n"
          "      metadata: {name: s}\n"
          "      spec:\n"
          "        rolloutStrategy: {type: Bogus}\n"
          "        leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w}]}}}\n",
          GS_EINVAL, BODY_LINE + 5, "expected one of RollingUpdate");
    fails("  - manifest:\n"
          "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
          "      kind: LeaderWorkerSet\n"
          "      metadata: {name: s}\n"
          "      spec:\n"
          "        rolloutStrategy: {rollingUpdateConfiguration: {maxSurge: abc}}\n"
          "        leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w}]}}}\n",
          GS_EINVAL, BODY_LINE + 5, "maxSurge");
    ok("  - manifest:\n"
       "      apiVersion: leaderworkerset.x-k8s.io/v1\n"
       "      kind: LeaderWorkerSet\n"
       "      metadata: {name: s}\n"
       "      spec:\n"
       "        rolloutStrategy: {type: RollingUpdate, rollingUpdateConfiguration: {maxSurge: 25%, maxUnavailable: 1}}\n"
       "        leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w}]}}}\n");
    gs_scenario_free(&sc);
    fails("  - manifest:\n"
          "      apiVersion: leaderworkerset.x-k8s.io/v2\n"
          "      kind: LeaderWorkerSet\n"
          "      metadata: {name: s}\n"
          "      spec: {leaderWorkerTemplate: {workerTemplate: {spec: {containers: [{name: w}]}}}}\n",
          GS_EINVAL, BODY_LINE + 1, "served as apiVersion leaderworkerset.x-k8s.io/v1");
}

/* The fractional GPU annotation is an integer 1..1000; anything else is refused where it is. */
Test(workloads, gpu_milli_annotation)
{
    static const char *const bad_values[] = {"\"-5\"", "abc", "\"0.5\"", "\"0\"", "\"\"", "\"1001\"",
                                             "\"99999999999999999999\""};
    for (size_t i = 0; i < sizeof bad_values / sizeof *bad_values; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "  - name: a\n"
                 "    template:\n"
                 "      metadata: {annotations: {alibabacloud.com/gpu-milli: %s}}\n"
                 "      spec: {containers: [{name: a}]}\n",
                 bad_values[i]);
        fails(body, GS_EINVAL, BODY_LINE + 2, "for annotation alibabacloud.com/gpu-milli");
    }
    ok("  - name: a\n"
       "    template:\n"
       "      metadata: {annotations: {alibabacloud.com/gpu-milli: \"500\"}}\n"
       "      spec: {containers: [{name: a}]}\n");
    gs_scenario_free(&sc);
    ok("  - manifest:\n"
       "      apiVersion: v1\n"
       "      kind: Pod\n"
       "      metadata: {name: p, annotations: {alibabacloud.com/gpu-milli: \"1000\"}}\n"
       "      spec: {containers: [{name: a, resources: {limits: {nvidia.com/gpu: 2}}}]}\n");
    gs_scenario_free(&sc);
    fails("  - manifest:\n"
          "      apiVersion: v1\n"
          "      kind: Pod\n"
          "      metadata: {name: p, annotations: {alibabacloud.com/gpu-milli: \"x\"}}\n"
          "      spec: {containers: [{name: a}]}\n",
          GS_EINVAL, BODY_LINE + 3, "expected an integer from 1 to 1000");
}
