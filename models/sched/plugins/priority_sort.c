/* PrioritySort: kubernetes pkg/scheduler/framework/plugins/queuesort/priority_sort.go (Less):
 * the higher priority first (corev1helpers.PodPriority), then the earlier queue timestamp
 * (QueuedPodInfo.Timestamp: when the pod was last added to the queue), as a key (plugin.h). */
#include "models/sched/sched_internal.h"

static void sort_key(const struct gs_world *w, int pod, gs_time timestamp, struct gs_sort_key *key)
{
    key->k[0] = -(int64_t)w->pods[pod].tmpl->priority;
    key->k[1] = timestamp;
}

const struct gs_sched_plugin gs_plugin_priority_sort = {
    .name = "PrioritySort",
    .id = GS_PL_PRIORITY_SORT,
    .points = GS_EP_BIT(GS_EP_QUEUE_SORT),
    .sort_key = sort_key,
};
