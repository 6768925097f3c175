/* gpusim: the FGD fragmentation measure (fgd.h) applied to a simulator world (world.h): the
 * typical-pod set of the scenario's own workloads, and a per-node view of the world in the
 * policies' terms (struct gs_fgd_node) kept up to date incrementally from the world's
 * node-change log, with the cluster's fragmentation.
 *
 * Upstream: hkust-adsl/kubernetes-scheduler-simulator pkg/utils/frag.go (GetTypicalPods,
 * NodeGpuShareFragAmount) and pkg/utils/utils.go (GetNodeResourceViaNodeInfo: a node's free
 * CPU and GPUs and its pods' GpuClustering tags), as summarised in ../shared/reference/fgd.md
 * §3–§4.
 *
 * gpusim's choices (the authors' simulator only knows openb nodes and pods):
 * - A node's GPU model is its label alibabacloud.com/gpu-card-model (what the openb cluster
 *   source sets), else nvidia.com/gpu.product (GPU feature discovery's label). A pod's allowed
 *   models (gpu_spec) are the values of an `In` requirement on the same key in its one required
 *   node-affinity term (what an openb trace pod carries), else of its nodeSelector on that
 *   key; otherwise any model.
 * - A pod's GPUs: the annotation alibabacloud.com/gpu-milli or nvidia.com/gpu whole GPUs
 *   (gpushare_pod.h). CPU in millicores as requested (non-zero default 100m where the FGD
 *   rules apply it), memory in MiB rounded up.
 * - A node counts with the GPUs of its gs_node.gpus (a node whose GPUs are time-sliced, MPS or
 *   MIG has none there) and allocatable - requested CPU and memory; a node that does not exist
 *   (deleted, not joined) is an empty node without GPUs (fragmentation 0).
 *
 * Units: CPU millicores, memory MiB, GPU milli-GPU (1000 = one GPU), fragmentation milli-GPU
 * unless named _gpus.
 */
#ifndef GPUSIM_FGD_WORLD_H
#define GPUSIM_FGD_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "models/fgd/fgd.h"
#include "models/world.h"

/* Node labels read for the GPU model, in order. */
#define GS_FGD_MODEL_LABEL "alibabacloud.com/gpu-card-model"
#define GS_FGD_PRODUCT_LABEL "nvidia.com/gpu.product"
/* The popularity threshold of the paper's runs (fgd.md §3). */
#define GS_FGD_TYPICAL_PCT 95.0

/* A typical-pod set with the model registry its spec masks are over. Plain data. */
struct gs_fgd_world_typical {
    struct gs_openb_models models; /* the model names pods ask for (gpu_spec values) */
    struct gs_fgd_typical typical; /* owned */
};

/* Build the typical-pod set of world `w`'s workloads at `threshold_pct` (GS_FGD_TYPICAL_PCT):
 * each workload's pod template(s) weighted by the pods it makes (plain: replicas x arrivals;
 * Job: completions, else parallelism; Pod: 1; LeaderWorkerSet: replicas x size, one leader per
 * group; a pod list, such as an openb trace: one per listed pod; PodGroup objects and workloads
 * the API server refused: none). Returns 0 (free with gs_fgd_world_typical_free), GS_EINVAL
 * when the workloads make no pod (out is then empty), or GS_ENOMEM. */
int gs_fgd_world_typical_build(const struct gs_world *w, double threshold_pct, struct gs_fgd_world_typical *out);
void gs_fgd_world_typical_free(struct gs_fgd_world_typical *wt);

/* Pod template `t` of world `w` as the policies see it; the spec mask is over `models` (names
 * are added when `add`; NULL models: mask 0, any model). Never fails: a model registry that
 * is full leaves the pod free to use any model. */
void gs_fgd_pod_of(const struct gs_world *w, const struct gs_pod_template *t, struct gs_openb_models *models,
                   bool add, struct gs_fgd_pod *out);

/* The world's nodes as struct gs_fgd_node, and the cluster's fragmentation. */
struct gs_fgd_view {
    const struct gs_world *w;              /* borrowed */
    const struct gs_fgd_world_typical *wt; /* borrowed; NULL: no fragmentation kept */
    bool tags;                             /* keep GpuClustering's pod tags per node */
    int n;                                 /* nodes in the view (w->nnodes after a sync) */
    struct gs_fgd_node *nodes;             /* owned, nodes_cap entries */
    uint32_t *ver;                         /* owned, ver_cap entries: bumped each time node i is rebuilt */
    uint64_t *stamp;                       /* owned, stamp_cap entries: the sync that last rebuilt node i */
    int nodes_cap, ver_cap, stamp_cap;     /* gs_array_grow */
    uint64_t syncs;
    struct gs_fgd_frag_cache frag;         /* when wt: per-node fragmentation and the sums */
    bool frag_ok;
    uint64_t seen;                         /* w->node_changes the view is up to date with */
    bool valid;
};

/* Set up an empty view over `w` (borrowed). `wt` (borrowed, may be NULL) must outlive the view.
 * Nothing is read until gs_fgd_view_sync. Never fails. */
void gs_fgd_view_init(struct gs_fgd_view *v, const struct gs_world *w, const struct gs_fgd_world_typical *wt,
                      bool tags);
/* Bring the view up to date: only the nodes in the world's node-change log since the last sync
 * (and nodes added) are rebuilt and, with a typical set, their fragmentation recomputed; every
 * node when the log has wrapped. The caller makes sure a node's GPUs (gs_node.gpus) never change
 * without a logged node change (gs_world_assign/unassign, gs_node_touch). Returns 0 or
 * GS_ENOMEM (the view is then rebuilt in full at the next sync). */
int gs_fgd_view_sync(struct gs_fgd_view *v);
/* Free what the view owns (then zeroed). */
void gs_fgd_view_free(struct gs_fgd_view *v);
/* Node i (< w->nnodes) of the view's world built afresh, as a sync would (for checks and tests:
 * after a sync, v->nodes[i] equals it byte for byte). */
void gs_fgd_view_node(const struct gs_fgd_view *v, int i, struct gs_fgd_node *out);
/* Cluster fragmentation in GPUs (sum of node fragmentation / 1000) as of the last sync; NaN
 * without a typical set. */
double gs_fgd_view_frag_gpus(const struct gs_fgd_view *v);
/* Fragmentation of node i in GPUs as of the last sync (0 without a typical set or beyond n). */
double gs_fgd_view_node_frag_gpus(const struct gs_fgd_view *v, int i);

#endif
