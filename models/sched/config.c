/* Scheduler profile defaults and the plugin name table.
 *
 * Follows kubernetes pkg/scheduler/apis/config/v1/default_plugins.go (the default MultiPoint
 * set and weights), pkg/scheduler/apis/config/v1/defaults.go (NodeResourcesFitArgs:
 * LeastAllocated over cpu and memory with weight 1; BalancedAllocation over cpu and memory;
 * DefaultPreemptionArgs 10 % / 100) and pkg/scheduler/framework/plugins/names/names.go.
 */
#include <string.h>

#include "models/sched/sched.h"
#include "sched_internal.h"

_Static_assert(GS_PL_COUNT < 32, "plugin masks (unsched_plugins) are 32-bit");

static const char *const plugin_names[GS_PL_COUNT] = {
    [GS_PL_NODE_UNSCHEDULABLE] = "NodeUnschedulable",
    [GS_PL_NODE_NAME] = "NodeName",
    [GS_PL_TAINT_TOLERATION] = "TaintToleration",
    [GS_PL_NODE_AFFINITY] = "NodeAffinity",
    [GS_PL_NODE_RESOURCES_FIT] = "NodeResourcesFit",
    [GS_PL_DYNAMIC_RESOURCES] = "DynamicResources",
    [GS_PL_BALANCED_ALLOCATION] = "NodeResourcesBalancedAllocation",
    [GS_PL_DEFAULT_PREEMPTION] = "DefaultPreemption",
    [GS_PL_COSCHEDULING] = "Coscheduling",
    [GS_PL_RANDOM_SCORE] = "RandomScore",
    [GS_PL_DOT_PRODUCT_SCORE] = "DotProductScore",
    [GS_PL_GPU_CLUSTERING_SCORE] = "GpuClusteringScore",
    [GS_PL_GPU_PACKING_SCORE] = "GpuPackingScore",
    [GS_PL_BEST_FIT_SCORE] = "BestFitScore",
    [GS_PL_FGD_SCORE] = "FGDScore",
    [GS_PL_PRIORITY_SORT] = "PrioritySort",
    [GS_PL_SCHEDULING_GATES] = "SchedulingGates",
    [GS_PL_NODE_PORTS] = "NodePorts",
    [GS_PL_VOLUME_RESTRICTIONS] = "VolumeRestrictions",
    [GS_PL_EBS_LIMITS] = "EBSLimits",
    [GS_PL_GCE_PD_LIMITS] = "GCEPDLimits",
    [GS_PL_NODE_VOLUME_LIMITS] = "NodeVolumeLimits",
    [GS_PL_AZURE_DISK_LIMITS] = "AzureDiskLimits",
    [GS_PL_VOLUME_BINDING] = "VolumeBinding",
    [GS_PL_VOLUME_ZONE] = "VolumeZone",
    [GS_PL_POD_TOPOLOGY_SPREAD] = "PodTopologySpread",
    [GS_PL_INTER_POD_AFFINITY] = "InterPodAffinity",
    [GS_PL_IMAGE_LOCALITY] = "ImageLocality",
    [GS_PL_DEFAULT_BINDER] = "DefaultBinder",
};

const char *gs_plugin_name(enum gs_plugin p)
{
    return (unsigned)p < GS_PL_COUNT ? plugin_names[p] : "Unknown";
}

int gs_plugin_find(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < GS_PL_COUNT; i++)
        if (strcmp(plugin_names[i], name) == 0)
            return i;
    return -1;
}

bool gs_plugin_is_modelled(enum gs_plugin p)
{
    return (unsigned)p < GS_PL_MODELLED;
}

void gs_sched_config_default(struct gs_sched_config *c, int k8s_minor)
{
    memset(c, 0, sizeof *c);
    c->k8s_minor = k8s_minor;
    c->dra_enabled = k8s_minor >= 34;
    c->percentage_of_nodes_to_score = 0;
    c->tiebreak_first = false;

    /* default_plugins.go: every in-tree plugin of the default profile is enabled; the
     * DynamicResources plugin joins when its feature gate is on (GA in 1.34). */
    for (int i = 0; i < GS_PL_COUNT; i++)
        c->filter_enabled[i] = true;
    c->filter_enabled[GS_PL_DYNAMIC_RESOURCES] = c->dra_enabled;
    c->filter_enabled[GS_PL_COSCHEDULING] = false; /* out of tree: only when a profile enables it */
    for (int i = GS_PL_RANDOM_SCORE; i <= GS_PL_FGD_SCORE; i++)
        c->filter_enabled[i] = false; /* the FGD policies: out of tree, score only, off by default */
    c->permit_wait_us = 60 * INT64_C(1000000);  /* scheduler-plugins apis/config/v1 defaults.go */
    c->pg_backoff_us = 0;
    /* Score plugins and their weights. */
    c->score_enabled[GS_PL_TAINT_TOLERATION] = true;
    c->score_weight[GS_PL_TAINT_TOLERATION] = 3;
    c->score_enabled[GS_PL_NODE_AFFINITY] = true;
    c->score_weight[GS_PL_NODE_AFFINITY] = 2;
    c->score_enabled[GS_PL_NODE_RESOURCES_FIT] = true;
    c->score_weight[GS_PL_NODE_RESOURCES_FIT] = 1;
    c->score_enabled[GS_PL_BALANCED_ALLOCATION] = true;
    c->score_weight[GS_PL_BALANCED_ALLOCATION] = 1;
    c->score_enabled[GS_PL_POD_TOPOLOGY_SPREAD] = true;
    c->score_weight[GS_PL_POD_TOPOLOGY_SPREAD] = 2;
    c->score_enabled[GS_PL_INTER_POD_AFFINITY] = true;
    c->score_weight[GS_PL_INTER_POD_AFFINITY] = 2;
    c->score_enabled[GS_PL_IMAGE_LOCALITY] = true;
    c->score_weight[GS_PL_IMAGE_LOCALITY] = 1;

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
}
