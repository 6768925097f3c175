/* gpusim: the Alibaba GPU trace v2023 ("openb", the FGD / ATC'23 trace) as plain data.
 *
 * Node list CSV: sn,cpu_milli,memory_mib,gpu,model.
 * Pod list CSV:  name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,qos,pod_phase,
 *                creation_time,deletion_time,scheduled_time]
 * Columns are found by their header names (any order; unknown columns are ignored); the
 * five first pod columns are required, the rest optional (multigpu* files lack them).
 * Units: CPU in millicores, memory in MiB, GPU share in milli-GPU (1000 = one GPU),
 * times in seconds from the trace start (-1 when absent).
 * Format and units: ../shared/data/openb/README.md; how the FGD simulator reads the same files:
 * kubernetes-scheduler-simulator data/pod_csv_to_yaml.py and pkg/utils/utils.go
 * (IsNodeAccessibleToPodByType for gpu_spec).
 */
#ifndef GPUSIM_OPENB_H
#define GPUSIM_OPENB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define GS_OPENB_MODELS_MAX 32 /* GPU models known to one registry (bit i of a spec mask) */
#define GS_OPENB_NAME_MAX 64   /* node/pod names and model names, with the NUL */

/* GPU model names, shared by a node list and the pod lists run on it. A pod's gpu_spec is a
 * bit mask over these ids. Plain data; zero-initialise before first use. */
struct gs_openb_models {
    int n;
    char name[GS_OPENB_MODELS_MAX][GS_OPENB_NAME_MAX];
};

/* The id of model `name` (`len` bytes, not NUL-terminated), adding it when `add` is true.
 * Returns the id, -1 when absent (add false), or GS_ERANGE when the registry is full or the
 * name is empty or too long. */
int gs_openb_model_id(struct gs_openb_models *m, const char *name, int len, bool add);

struct gs_openb_node {
    char name[GS_OPENB_NAME_MAX];
    int64_t cpu_milli;  /* capacity, millicores */
    int64_t memory_mib; /* capacity, MiB */
    int gpu;            /* GPU count, 0..GS_GPUS_MAX */
    int model;          /* model id, -1 for a node without GPUs */
};

struct gs_openb_cluster {
    struct gs_openb_node *nodes; /* owned */
    int n;
    int64_t total_gpus, total_cpu_milli, total_memory_mib;
};

enum gs_openb_qos { GS_OPENB_QOS_NONE, GS_OPENB_QOS_LS, GS_OPENB_QOS_BE, GS_OPENB_QOS_BURSTABLE,
                    GS_OPENB_QOS_GUARANTEED };
enum gs_openb_phase { GS_OPENB_PHASE_NONE, GS_OPENB_PHASE_PENDING, GS_OPENB_PHASE_RUNNING,
                      GS_OPENB_PHASE_SUCCEEDED, GS_OPENB_PHASE_FAILED };

struct gs_openb_pod {
    char name[GS_OPENB_NAME_MAX];
    int64_t cpu_milli;  /* request, millicores */
    int64_t memory_mib; /* request, MiB */
    int num_gpu;        /* 0..GS_GPUS_MAX */
    int gpu_milli;      /* per GPU: 0, 1..999 (share, num_gpu == 1) or 1000 */
    uint32_t spec_mask; /* allowed GPU models (bit = model id); 0 = any model */
    int spec;           /* index of the raw gpu_spec text in the workload's spec table (0 = "") */
    enum gs_openb_qos qos;
    enum gs_openb_phase phase;
    int64_t creation_s, deletion_s, scheduled_s; /* seconds; -1 when absent or empty */
};

struct gs_openb_workload {
    struct gs_openb_pod *pods; /* owned, in file order */
    int n;
    char **specs;              /* owned: distinct raw gpu_spec texts; specs[0] is "" */
    int nspecs, specs_cap;
    bool has_spec, has_times;  /* which optional columns the file had */
    int64_t total_gpu_milli;   /* sum of num_gpu * gpu_milli */
};

/* Size limits of the files (bytes; a file must be smaller, base/readfile.h): far above the real
 * trace (the node list has 1523 rows, 52 KB; a pod list about 8000 rows, under 1 MB), room for
 * a million nodes or some three million pods. */
#define GS_OPENB_NODES_LIMIT ((size_t)64 << 20)
#define GS_OPENB_PODS_LIMIT ((size_t)256 << 20)

/* Read a node list. Models are added to `models`. On success returns 0 and *out owns its
 * storage (free with gs_openb_cluster_free). On error returns GS_EIO (unreadable file, or one
 * of GS_OPENB_NODES_LIMIT bytes or more: "file too large: ..." names the file, the limit and
 * what was seen), GS_EINVAL (bad content: `err` names file:line:column and what was expected)
 * or GS_ENOMEM; *out is then empty. */
int gs_openb_read_nodes(const char *path, struct gs_openb_models *models, struct gs_openb_cluster *out,
                        struct gs_error *err);

/* Read a pod list; gpu_spec model names are added to `models` (a model no node has simply
 * never matches). Same returns and ownership as gs_openb_read_nodes; the size limit is
 * GS_OPENB_PODS_LIMIT. */
int gs_openb_read_pods(const char *path, struct gs_openb_models *models, struct gs_openb_workload *out,
                       struct gs_error *err);

/* Both also parse from memory: `name` is used in messages only. */
int gs_openb_parse_nodes(const char *name, const char *text, struct gs_openb_models *models,
                         struct gs_openb_cluster *out, struct gs_error *err);
int gs_openb_parse_pods(const char *name, const char *text, struct gs_openb_models *models,
                        struct gs_openb_workload *out, struct gs_error *err);

/* Parse a gpu_spec text ("V100M16|V100M32", empty parts ignored) into a model mask (0 = any),
 * adding models to `m`. Returns 0 or GS_ERANGE (registry full, or a name too long). */
int gs_openb_spec_mask(struct gs_openb_models *m, const char *text, int len, uint32_t *mask);

/* True when a node of model `model` (-1: no GPU) may host a pod with `spec_mask`
 * (IsNodeAccessibleToPodByType: any model when the mask is 0, never a GPU-less node
 * otherwise). */
bool gs_openb_model_allowed(uint32_t spec_mask, int model);

void gs_openb_cluster_free(struct gs_openb_cluster *c);
void gs_openb_workload_free(struct gs_openb_workload *w);

/* The default data directory: $GPUSIM_OPENB_DIR if set, else <source dir>/../shared/data/openb.
 * Static storage. Whether it exists is for the caller to check. */
const char *gs_openb_default_dir(void);

#endif
