/* gpusim: GPU fragmentation and the six scheduling policies of the FGD paper
 * ("Beware of Fragmentation", USENIX ATC '23), and its experiment protocol.
 *
 * Everything here follows the authors' simulator, hkust-adsl/kubernetes-scheduler-simulator
 * at commit 8f3d641 (paths below are in that repository), as summarised in
 * ../shared/reference/fgd.md. Units: CPU in millicores, memory in MiB, GPU in milli-GPU
 * (1000 = one GPU); fragmentation amounts in milli-GPU.
 *
 * Reuse: struct gs_fgd_node is the per-node state the scorers read (embed or mirror it in a
 * simulator node); the scorers are pure functions of (node, pod); gs_fgd_frag_cache keeps
 * per-node fragmentation so that only a changed node is recomputed.
 */
#ifndef GPUSIM_FGD_H
#define GPUSIM_FGD_H

#include <stdbool.h>
#include <stdint.h>

#include "models/devices/gpushare.h"
#include "models/openb.h"

struct gs_rng;

/* pkg/type/open-gpu-share/utils/const.go */
#define GS_FGD_MAX_SCORE 100
#define GS_FGD_MAX_SPEC_CPU 128000
#define GS_FGD_MAX_SPEC_GPU 8000
/* kube-scheduler's default for a pod without a CPU request (GetNonzeroRequests) */
#define GS_FGD_DEFAULT_MILLI_CPU 100

/* A pod as the policies see it (PodResource, pkg/type/resource.go, plus memory for the
 * NodeResourcesFit filter). cpu_milli is the request as written; the scorers apply
 * kube-scheduler's non-zero default (100m) where the authors' GetPodResource does. */
struct gs_fgd_pod {
    int64_t cpu_milli;
    int64_t memory_mib;
    int num_gpu;
    int gpu_milli;      /* per GPU: 0, 1..999 (share), 1000 */
    uint32_t spec_mask; /* allowed models (gs_openb_models ids), 0 = any */
};

/* The node state the filter and scorers read (NodeResource plus memory and GpuClustering's
 * affinity tags). Plain data. */
struct gs_fgd_node {
    int64_t cpu_left, cpu_cap; /* millicores */
    int64_t mem_left, mem_cap; /* MiB */
    int model;                 /* gs_openb_models id, -1 without GPUs */
    struct gs_gpushare gpu;
    /* GpuClustering tags of the pods on the node (GetGpuAffinityFromPodAnnotation):
     * [0] "share-gpu" pods, [k] "k-gpu" pods (k whole GPUs). CPU-only pods carry no tag. */
    uint16_t tag_count[GS_GPUS_MAX + 1];
};

/* Set `n` to an empty node. Returns 0 or GS_ERANGE (GPU count out of 0..GS_GPUS_MAX). */
int gs_fgd_node_init(struct gs_fgd_node *n, int64_t cpu_milli, int64_t memory_mib, int ngpu, int model);

/* Account pod `p` placed with GPU allocation `a` (add = true) or removed (add = false):
 * CPU, memory, the GPUs and the tags. Returns 0, or GS_EINVAL (node unchanged) when the
 * allocation does not apply. The caller checked the fit (gs_fgd_filter). */
int gs_fgd_node_account(struct gs_fgd_node *n, const struct gs_fgd_pod *p, const struct gs_gpushare_alloc *a,
                        bool add);

/* ---- typical pods (pkg/utils/frag.go GetTypicalPods) ---- */

struct gs_fgd_typical_pod {
    int64_t cpu_milli;  /* non-zero CPU request */
    int gpu_milli;      /* per GPU */
    int num_gpu;
    uint32_t spec_mask;
    char *spec;         /* owned: the raw gpu_spec text of the key ("" = any) */
    int64_t count;      /* pods with this key */
    double freq;        /* renormalised over the chosen keys; sums to 1 */
    int milli_class;    /* index into gs_fgd_typical.milli (-1 for CPU-only keys) */
};

struct gs_fgd_typical {
    int n;                         /* chosen keys, most popular first */
    struct gs_fgd_typical_pod *pods; /* owned */
    int nkeys;                     /* distinct keys in the pod list */
    int64_t npods;                 /* pods in the list */
    int64_t covered;               /* pods covered by the chosen keys */
    int nmilli;                    /* distinct gpu_milli > 0 among the chosen keys, ascending */
    int milli[GS_GPU_MILLI];
};

/* Build the typical-pod set of a pod list: keys (cpu_milli non-zero, gpu_milli, num_gpu,
 * raw gpu_spec; memory is not part of the key), counted, sorted by count (ties: the larger
 * key first, as sort.Reverse of TargetPodList.Less), taken one at a time until they cover at
 * least `threshold_pct` percent of the pods, frequencies renormalised. CPU-only pods count
 * (isInvolvedCpuPods true, gpuResWeight 0: the run scripts' settings).
 * Returns 0 (free with gs_fgd_typical_free), GS_EINVAL (empty list, threshold not in (0, 100])
 * or GS_ENOMEM. */
int gs_fgd_typical_build(const struct gs_openb_workload *w, double threshold_pct, struct gs_fgd_typical *out);
void gs_fgd_typical_free(struct gs_fgd_typical *t);

/* One key of a weighted pod list: `count` pods (>= 0) with this CPU request (millicores, as
 * written: the non-zero default applies), per-GPU milli, GPU count, model mask and raw
 * gpu_spec text (borrowed; NULL is ""). */
struct gs_fgd_typical_key {
    int64_t cpu_milli;
    int gpu_milli;
    int num_gpu;
    uint32_t spec_mask;
    const char *spec;
    int64_t count;
};

/* gs_fgd_typical_build over weighted keys (equal keys are merged, counts added): the
 * typical set of a simulator's own workloads, where a pod template stands for the pods it
 * makes. Same rules and result as gs_fgd_typical_build on the expanded list (which calls
 * this). Returns 0 (free with gs_fgd_typical_free), GS_EINVAL (no key with a count > 0, a
 * negative count, a total above INT64_MAX / 4, threshold not in (0, 100]) or GS_ENOMEM. */
int gs_fgd_typical_build_keys(const struct gs_fgd_typical_key *keys, int n, double threshold_pct,
                              struct gs_fgd_typical *out);

/* ---- fragmentation (pkg/utils/frag.go NodeGpuShareFragAmount, FragAmountSumExceptQ3) ---- */

/* The fragmentation amount of one node in milli-GPU: over typical pods m, freq(m) times the
 * node's idle GPU milli counted as fragment for m (all of it, except when m fits on GPUs and
 * CPU: then only the GPUs whose free milli is below m's per-GPU milli). */
double gs_fgd_node_frag(const struct gs_fgd_typical *t, const struct gs_fgd_node *n);

/* The same for an explicit state: CPU left, model, free milli of `ngpu` GPUs. */
double gs_fgd_frag_of(const struct gs_fgd_typical *t, int64_t cpu_left, int model, const int16_t *free_milli,
                      int ngpu);

/* Cluster fragmentation: the sum over nodes, in milli-GPU and as the authors report it. */
struct gs_fgd_frag_sample {
    double frag_milli;     /* sum of node frag amounts */
    int64_t idle_milli;    /* free GPU milli in the cluster */
    int64_t total_gpus;
    double frag_gpus;      /* frag_milli / 1000 */
    double frag_pct;       /* of cluster GPU capacity (analysis_frag_discrete) */
    double frag_ratio_pct; /* of idle GPU (analysis_frag_ratio_discrete); 0 when nothing is idle */
};

/* Compute it from scratch. Returns 0 (fills *out). */
int gs_fgd_cluster_frag(const struct gs_fgd_typical *t, const struct gs_fgd_node *nodes, int n,
                        struct gs_fgd_frag_sample *out);

/* Incremental: each node's amount cached; after a node changes (its pods, CPU, GPUs or GPU
 * count), gs_fgd_frag_cache_update recomputes that node only. The typical set and node array are borrowed (must outlive it). */
struct gs_fgd_frag_cache {
    int n;
    double *node_frag;  /* owned, frag_cap entries */
    int32_t *node_idle; /* owned, idle_cap entries */
    int32_t *node_gpus; /* owned, gpus_cap entries */
    int frag_cap, idle_cap, gpus_cap;
    double frag_milli;
    int64_t idle_milli, total_gpus;
};
/* Returns 0 or GS_ENOMEM. Free with gs_fgd_frag_cache_free (then zeroed). */
int gs_fgd_frag_cache_init(struct gs_fgd_frag_cache *c, const struct gs_fgd_typical *t,
                           const struct gs_fgd_node *nodes, int n);
void gs_fgd_frag_cache_update(struct gs_fgd_frag_cache *c, const struct gs_fgd_typical *t,
                              const struct gs_fgd_node *nodes, int i);
/* Grow the cache to `n` nodes (n >= c->n; nodes c->n..n-1 are computed and added to the
 * sums), for a cluster whose nodes join over time. Returns 0 or GS_ENOMEM (cache unchanged). */
int gs_fgd_frag_cache_grow(struct gs_fgd_frag_cache *c, const struct gs_fgd_typical *t,
                           const struct gs_fgd_node *nodes, int n);
void gs_fgd_frag_cache_sample(const struct gs_fgd_frag_cache *c, struct gs_fgd_frag_sample *out);
void gs_fgd_frag_cache_free(struct gs_fgd_frag_cache *c);

/* ---- the policies ---- */

enum gs_fgd_policy {
    GS_FGD_RANDOM,
    GS_FGD_DOTPROD,
    GS_FGD_CLUSTERING,
    GS_FGD_PACKING,
    GS_FGD_BESTFIT,
    GS_FGD_FGD,
    GS_FGD_NPOLICIES
};

/* "Random", "DotProd", "GpuClustering", "GpuPacking", "BestFit", "FGD" (static storage). */
const char *gs_fgd_policy_name(enum gs_fgd_policy p);
/* Parse a policy name (case-insensitive; also "Clustering", "Packing"). Returns the policy or -1. */
int gs_fgd_policy_parse(const char *s);

/* The filters of the authors' runs: NodeResourcesFit (CPU, memory) and Open-Gpu-Share
 * (a GPU pod needs a GPU node whose model its gpu_spec allows and GPUs that fit). */
bool gs_fgd_filter(const struct gs_fgd_node *n, const struct gs_fgd_pod *p);

/* Scores in [0, 100] of node `n` for pod `p`, which passed gs_fgd_filter.
 * DotProd (dot_product_score.go, dimext merge, norm max): floor(100 (1 - v_node . v_pod / 2)),
 *   v = [cpu / 128000, gpu milli total / 8000]; 0 when the CPU does not fit.
 * GpuClustering (gpu_clustering_score.go): bands by the node's tags, plus
 *   25 (8000 - free milli) / 8000 in integers; CPU-only pods score 0.
 * GpuPacking (gpu_packing_score.go): idle node max(33 - free GPUs, free GPUs); needs fully
 *   free GPUs max(50 - their number, 33); fits on used GPUs max(100 - sum(free% of them)/10, 50);
 *   CPU-only pods score 0.
 * BestFit raw (best_fit_score.go): floor(100 (1 - [0.5 (cpu left - cpu)/128000 +
 *   0.5 (gpu left - gpu)/8000])), before gs_fgd_normalize_scores.
 * A node whose model the pod's gpu_spec excludes scores 0 (the authors' plugins return an
 * error status there; the filter has removed such nodes first). */
int gs_fgd_score_dotprod(const struct gs_fgd_node *n, const struct gs_fgd_pod *p);
int gs_fgd_score_clustering(const struct gs_fgd_node *n, const struct gs_fgd_pod *p);
int gs_fgd_score_packing(const struct gs_fgd_node *n, const struct gs_fgd_pod *p);
int gs_fgd_score_bestfit_raw(const struct gs_fgd_node *n, const struct gs_fgd_pod *p);

/* Min-max normalisation to [0, 100] in integers (plugin_utils.go NormalizeScore): all equal
 * gives all 0. */
void gs_fgd_normalize_scores(int64_t *scores, int n);

/* FGD (fgd_score.go): Δ = F(n) - F(n with p placed), score = floor(100 sigmoid(Δ / 1000)).
 * `node_frag` is gs_fgd_node_frag(t, n) (pass the cached value). For a share every GPU that
 * fits is tried and the best score wins (lowest index on ties): *gpu gets that GPU; for other
 * pods *gpu = -1 (whole GPUs go to the lowest fully free ones). A pod without any request
 * scores 100. */
int gs_fgd_score_fgd(const struct gs_fgd_typical *t, const struct gs_fgd_node *n, double node_frag,
                     const struct gs_fgd_pod *p, int *gpu);

/* ---- the experiment (reference §2 and §5) ---- */

#define GS_FGD_CURVE_MAX 301 /* arrived-workload columns 0..300 % */

/* One run's curves, binned as experiments/analysis/merge_*_discrete.py do: column x is the
 * mean over the log points (one after every pod, plus one before the first) whose rounded
 * arrived percentage is x (x ± 1 when there are none); NAN where there is no data. */
struct gs_fgd_curve {
    int ncols; /* columns 0..ncols-1 */
    double alloc_pct[GS_FGD_CURVE_MAX];      /* allocated GPU milli, % of capacity */
    double frag_pct[GS_FGD_CURVE_MAX];       /* fragmented GPU, % of capacity */
    double frag_ratio_pct[GS_FGD_CURVE_MAX]; /* fragmented GPU, % of idle GPU */
};

struct gs_fgd_run_result {
    int pods;               /* pods submitted (after inflation) */
    int placed, failed;
    int64_t arrived_milli;  /* total GPU milli submitted */
    int64_t used_milli;     /* GPU milli allocated at the end */
    double empty_frag_pct;  /* cluster frag before the first pod, % of capacity */
    int max_pods_per_node;
    struct gs_fgd_curve curve;
};

/* How equal top scores are broken.
 * RANK (default): the authors' runs. Their kube-scheduler fork (github.com/mental2008/kubernetes
 *   v1.20.5-minor, pkg/scheduler/core/generic_scheduler.go selectHost) picks the smallest node
 *   name among equal top scores, and syncClusterResourceList prefixes every node name with its
 *   place in a seeded rand.Perm: so ties go to the node that comes first in a seeded random
 *   permutation fixed for the whole run.
 * RANDOM: stock kube-scheduler's selectHost, a uniform choice among the equal top scores. */
enum gs_fgd_tiebreak { GS_FGD_TIE_RANK, GS_FGD_TIE_RANDOM };

/* A loaded (cluster, pod list) pair ready for runs. All storage owned. */
struct gs_fgd_experiment {
    enum gs_fgd_tiebreak tiebreak; /* GS_FGD_TIE_RANK after init; may be changed before runs */
    struct gs_openb_cluster cluster;
    struct gs_openb_workload workload;
    struct gs_fgd_typical typical;
    int *order;      /* pod indices sorted by name (SortClusterPods before the shuffle) */
    int *shape;      /* per pod: shape id (cpu, gpu milli, num gpu, spec mask) for memoised scores */
    int nshapes;
};

/* Take ownership of `cluster` and `workload` (moved: the caller's structs are zeroed) and
 * build the typical set at `threshold_pct` (95 in the paper). Returns 0, GS_EINVAL (no
 * nodes, no pods, or a pod list without any GPU request) or GS_ENOMEM; on error the
 * experiment holds nothing and the inputs are freed. */
int gs_fgd_experiment_init(struct gs_fgd_experiment *ex, struct gs_openb_cluster *cluster,
                           struct gs_openb_workload *workload, double threshold_pct);

/* Load <dir>/openb_node_list_gpu_node.csv and <dir>/openb_pod_list_<workload>.csv.
 * Returns 0, or the reader's error (err says which file and where). */
int gs_fgd_experiment_load(struct gs_fgd_experiment *ex, const char *dir, const char *workload,
                           double threshold_pct, struct gs_error *err);

void gs_fgd_experiment_free(struct gs_fgd_experiment *ex);

/* One run: pods sorted by name and shuffled with `seed` (GS_STREAM_ARRIVALS), then copies
 * drawn uniformly with replacement (GS_STREAM_SAMPLING) appended until the GPU request would
 * pass tune x capacity (TunePodsByNodeTotalResource; the stop test adds the per-GPU milli, as
 * the authors' code does); tune below the list's own request removes random pods instead.
 * Then each pod gets one decision, no retry; the node ranks (ex->tiebreak), random ties and
 * Random's choices use GS_STREAM_TIEBREAK.
 * Deterministic for a given (experiment, policy, seed, tune). Returns 0, GS_EINVAL (tune not
 * in (0, 3], bad policy) or GS_ENOMEM. */
int gs_fgd_experiment_run(const struct gs_fgd_experiment *ex, enum gs_fgd_policy policy, uint64_t seed,
                          double tune, struct gs_fgd_run_result *out);

#endif
