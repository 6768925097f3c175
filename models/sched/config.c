/* Scheduler profile defaults.
 *
 * Follows kubernetes pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins: the
 * default MultiPoint set, its order and weights; applyFeatureGates: DynamicResources before
 * DefaultPreemption) and pkg/scheduler/apis/config/v1/defaults.go (NodeResourcesFitArgs:
 * LeastAllocated over cpu and memory with weight 1; BalancedAllocation over cpu and memory;
 * DefaultPreemptionArgs 10 % / 100). The in-tree volume-limit plugins of older releases (EBSLimits,
 * GCEPDLimits, AzureDiskLimits) stay in every release's set: they are inert in gpusim.
 */
#include <string.h>

#include "models/sched/sched.h"
#include "sched_internal.h"

static const struct {
    const char *name;
    int32_t weight;
} default_multi_point[] = {
    {"SchedulingGates", 0},
    {"PrioritySort", 0},
    {"NodeUnschedulable", 0},
    {"NodeName", 0},
    {"TaintToleration", 3},
    {"NodeAffinity", 2},
    {"NodePorts", 0},
    {"NodeResourcesFit", 1},
    {"VolumeRestrictions", 0},
    {"EBSLimits", 0},
    {"GCEPDLimits", 0},
    {"NodeVolumeLimits", 0},
    {"AzureDiskLimits", 0},
    {"VolumeBinding", 0},
    {"VolumeZone", 0},
    {"PodTopologySpread", 2},
    {"InterPodAffinity", 2},
    {"DefaultPreemption", 0},
    {"NodeResourcesBalancedAllocation", 1},
    {"ImageLocality", 1},
    {"DefaultBinder", 0},
};

void gs_sched_config_default(struct gs_sched_config *c, int k8s_minor)
{
    memset(c, 0, sizeof *c);
    c->k8s_minor = k8s_minor;
    c->dra_enabled = k8s_minor >= 34;
    c->percentage_of_nodes_to_score = 0;
    c->tiebreak_first = false;

    /* default_plugins.go: the default MultiPoint set; DynamicResources joins with its feature
     * gate (GA in 1.34), just before DefaultPreemption. Out-of-tree plugins join only when a
     * profile enables them. */
    struct gs_plugin_set *mp = &c->plugins.multi_point;
    for (size_t i = 0; i < sizeof default_multi_point / sizeof default_multi_point[0]; i++) {
        if (c->dra_enabled && strcmp(default_multi_point[i].name, "DefaultPreemption") == 0)
            gs_plugin_set_enable(mp, "DynamicResources", 0, -1);
        gs_plugin_set_enable(mp, default_multi_point[i].name, default_multi_point[i].weight, -1);
    }
    c->permit_wait_us = 60 * INT64_C(1000000);  /* scheduler-plugins apis/config/v1 defaults.go */
    c->pg_backoff_us = 0;

    c->strategy = GS_SCORE_LEAST_ALLOCATED;
    c->nscore_res = 2;
    c->score_res[0] = GS_RES_CPU;
    c->score_res_weight[0] = 1;
    c->score_res[1] = GS_RES_MEMORY;
    c->score_res_weight[1] = 1;
    c->nshape = 0;
    c->nbalanced_res = 2;
    c->balanced_res[0] = GS_RES_CPU;
    c->balanced_res[1] = GS_RES_MEMORY;
    c->scheduler_name = "default-scheduler";

    c->taint_reason_generic = k8s_minor >= 35;
    c->fit_unresolvable = k8s_minor >= 34;
    c->balanced_skip_best_effort = k8s_minor >= 33;
    c->min_candidate_nodes_percentage = 10;
    c->min_candidate_nodes_absolute = 100;
    int rc = gs_sched_config_resolve(c, NULL);
    GS_ASSERT(rc == 0);
    (void)rc;
}
