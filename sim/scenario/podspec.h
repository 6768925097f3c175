/* gpusim internal: decoding a core/v1 PodTemplateSpec / PodSpec into a struct gs_pod_template,
 * and small checks shared by the workload, event and expectation decoders. Not a public
 * header: only sim/scenario/ includes it.
 *
 * Upstream: kubernetes pkg/apis/core/validation/validation.go (ValidatePodSpec,
 * validateTolerations, ValidateNodeSelectorRequirement, validateContainerResourceName),
 * pkg/apis/core/v1/defaults.go (requests default to limits), plugin/pkg/admission/priority
 * (PriorityClass resolution), component-helpers resource.PodRequests and
 * pkg/scheduler/util GetNonzeroRequests (effective and non-zero requests).
 */
#ifndef GPUSIM_SCENARIO_PODSPEC_H
#define GPUSIM_SCENARIO_PODSPEC_H

#include <stdbool.h>

#include "models/world.h"
#include "sim/scenario/yaml.h"

/* restartPolicy as written (GS_RESTART_UNSET when absent; the Pod default is Always). */
enum gs_restart_policy { GS_RESTART_UNSET = 0, GS_RESTART_ALWAYS, GS_RESTART_ON_FAILURE, GS_RESTART_NEVER };

struct gs_podspec_ctx {
    const char *path;        /* where the decoded node is, for messages: "workloads[0].template" */
    const char *api_prefix;  /* field-path prefix of API messages: "spec." (Pod) or
                              * "spec.template.spec." (Job) */
    const char *pod_name;    /* the pod named in Priority admission messages (pods "x" is forbidden) */
    const char *scheduler_name; /* the profile's schedulerName besides "default-scheduler" (may be NULL) */
    const struct gs_ynode *priority_class; /* workload-level priorityClassName shorthand, or NULL */
    /* out */
    enum gs_restart_policy restart_policy;
    const struct gs_ynode *restart_policy_node; /* NULL when absent */
};

/* A PodTemplateSpec {metadata, spec} at c->path into `t` (arena memory from d->arena).
 * Errors name file:line:col; a container spec the API server refuses is not an error: its
 * message is kept in t->invalid_detail. */
int gs_scn_pod_template(struct gs_ydec *d, const struct gs_ynode *n, struct gs_podspec_ctx *c,
                        struct gs_pod_template *t);
/* The PodSpec alone (a Pod manifest's spec); c->path is the spec's own path. */
int gs_scn_pod_spec(struct gs_ydec *d, const struct gs_ynode *n, struct gs_podspec_ctx *c,
                    struct gs_pod_template *t);
/* Object metadata {name, namespace, labels, annotations, ...} at `path`: labels and annotations
 * into `labels`/`annotations` (either may be NULL to ignore them); the name into *name (NULL
 * when absent) and its node into *name_node (may be NULL). With `manifest` (an object's own
 * metadata) the name is required and what `kubectl get -o yaml` adds (uid, resourceVersion,
 * managedFields, ...) is accepted; without it (a template's) only name, namespace, labels,
 * annotations, generateName and creationTimestamp are. */
int gs_scn_metadata(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool manifest,
                    const char **name, const struct gs_ynode **name_node, struct gs_labels *labels,
                    struct gs_labels *annotations);

/* A list of core/v1 Tolerations at `path` (validated as the API server does) into *out (arena,
 * NULL when empty or null) and *nout. Also used for the operator's DaemonSet tolerations. */
int gs_scn_tolerations(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_toleration **out,
                       int *nout);

/* Validation of names as Kubernetes does (k8s.io/apimachinery/pkg/util/validation). */
bool gs_scn_is_dns_label(const char *s);       /* RFC 1123 label, <= 63 */
bool gs_scn_is_dns_subdomain(const char *s);   /* RFC 1123 subdomain, <= 253 */
bool gs_scn_is_qualified_name(const char *s);  /* [prefix/]name: label keys, resource names */
bool gs_scn_is_label_value(const char *s);     /* "" or a name part, <= 63 */

/* ---- name lookups (sim/scenario/names.c)
 *
 * The loader keeps hash indexes of d->world's node pools, imported nodes, PriorityClasses and
 * workloads (d->names, made by gs_scn_names_new and freed by gs_scn_names_free when the load
 * ends), brought up to date with the world at each lookup, so that each lookup is O(1); with
 * d->names NULL (a decoder context of a test or a catalog) they scan the world instead, with the
 * same answers. Each returns 0, or GS_ENOMEM (d->err set at `at`) when an index cannot grow. */
struct gs_scn_names;
int gs_scn_names_new(struct gs_scn_names **out);
void gs_scn_names_free(struct gs_scn_names *x);

/* The pool a node name `<pool>-<index>` belongs to (or an imported node's own name, see
 * gs_pool.nodes) into *pool: its index in world.pools, -1 when it fits none. */
int gs_scn_node_pool(struct gs_ydec *d, const struct gs_ynode *at, const char *node, int *pool);
/* True when `s` is a node index as %d prints it: 1 to 9 digits, no leading zero. */
bool gs_scn_is_node_index(const char *s);
/* The index of the pool named `name` in world.pools into *pool, -1 when none. */
int gs_scn_pool_by_name(struct gs_ydec *d, const struct gs_ynode *at, const char *name, int *pool);
/* The PriorityClass `name` of world.priority_classes into *out (NULL when none); with `name`
 * NULL the globalDefault class (the lowest value when several; NULL when none), as the Priority
 * admission plugin resolves a pod without priorityClassName (plugin/pkg/admission/priority). */
int gs_scn_priority_class(struct gs_ydec *d, const struct gs_ynode *at, const char *name,
                          const struct gs_priority_class **out);
/* The index of the workload named `name` in world.workloads into *index, -1 when none (names
 * are unique: gs_scn_workloads refuses a second one). */
int gs_scn_workload_by_name(struct gs_ydec *d, const struct gs_ynode *at, const char *name, int *index);
/* Check `node` (at `n`) can name a node of some pool; the error lists the pools. */
int gs_scn_check_node_name(struct gs_ydec *d, const struct gs_ynode *n, const char *path,
                           const char *node);

/* Refuse an amount of resource `name` above GS_QUANTITY_MAX: `v` in gpusim's units (cpu
 * millicores, memory / ephemeral-storage / hugepages-* bytes, others counts), `n` the quantity's
 * node (its text is quoted), `path` where it is. "<path>: <text> is <v> <unit>, more than gpusim
 * supports (at most <GS_QUANTITY_MAX> <unit>, 2^50: ...)". Returns 0 when v is within the bound. */
int gs_scn_check_amount(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *name,
                        int64_t v);

/* Names in a list (containers, taints) are checked for duplicates by a scan up to this many,
 * then through a map of the names (base/strmap.h), so a list of N costs O(N). */
#define GS_SCN_NAMES_SCAN 8

/* snprintf into `buf` (size GS_SCN_PATH) without truncation warnings; returns buf. */
#define GS_SCN_PATH 320
char *gs_scn_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
