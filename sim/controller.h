/* gpusim: the controller contract.
 *
 * Every feature of a run (the scheduler, the workload controllers, the GPU Operator, the device
 * plugin, DRA, Kueue, LeaderWorkerSet, the fragmentation metric) is a controller: a const
 * descriptor below, listed once in the registry (sim/controllers/registry.c), as
 * kube-controller-manager lists its controllers (cmd/kube-controller-manager/app/
 * controllermanager.go, NewControllerDescriptors). The run loop knows no controller by name.
 *
 * The contract:
 * - A controller reads the world (c->w) and the scenario (c->sc) freely, and changes the world
 *   only through the cluster's verbs (sim/cluster.h). It keeps its own state (setup's *state)
 *   and never calls another controller's functions or reads another controller's state: what
 *   several controllers need (a node's readiness and operand status, the device plugin's config
 *   and MIG layouts, the GPUs DRA holds, a workload's suspension) lives in the world, set
 *   through verbs.
 * - Watch events (enum gs_watch_type) are delivered synchronously, depth-first, to every
 *   controller in registry order: a verb called while handling an event delivers its own
 *   events before the first one reaches the next controller, as the direct calls of an earlier
 *   gpusim did. The registry order is therefore part of the behaviour; registry.c says why each
 *   controller sits where it does.
 * - A controller's timers are engine events it schedules with gs_cluster_timer (its registry
 *   index is `self`, given at setup); they come back to its on_timer. The engine knows no
 *   feature.
 * - Admission hooks run before an object is persisted, in registry order, and the first that
 *   takes the object wins (a mutating webhook such as Kueue's, which suspends the workloads it
 *   manages).
 * - The kubelet asks each controller's admit_pod, in registry order, before it starts a pod (the
 *   device manager's Allocate check); a controller that refuses it has failed the pod.
 *
 * Adding a controller: write sim/controllers/<name>.c with a `const struct gs_controller
 * gs_ctl_<name>`, and add it (its extern declaration and its entry) to the registry at the place
 * its events need; nothing in the run loop changes. Limits: GS_MAX_CONTROLLERS controllers,
 * GS_TIMER_TYPES timer types each (sim/cluster.h).
 */
#ifndef GPUSIM_SIM_CONTROLLER_H
#define GPUSIM_SIM_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cluster.h"

struct gs_metrics;

/* One status condition of an object as a check sees it (strings static or arena; NULL: unset). */
struct gs_condition {
    const char *status; /* "True" | "False" | "Unknown" */
    const char *reason;
    const char *message;
};
/* Looks up the condition of type `type` of object `obj`; false when it has no such condition. */
typedef bool (*gs_condition_fn)(const struct gs_cluster *c, const void *obj, const char *type,
                                struct gs_condition *out);

/* What an `object:` expectation sees of an object a controller answers for. */
struct gs_object_view {
    bool exists;
    bool rejected;            /* the API server refused it */
    const char *message;      /* the refusal message, NULL when none */
    const void *cobj;         /* the object whose conditions are checked (NULL: none) */
    gs_condition_fn cget;
    bool status_failed;       /* a kind-specific status field did not match: `why` says how */
    char why[1024];
};

struct gs_controller {
    const char *name;
    /* Set up for the run. `self` is the registry index (for gs_cluster_timer). *state NULL with a
     * 0 return: the controller has nothing to do in this run (it then gets no calls, but for
     * `object`, which answers for its kinds whether or not it runs). Returns 0 or a negative
     * GS_E* code; on error the state it stored is freed with `free`. May read the scenario and
     * the empty world; schedules no event. */
    int (*setup)(struct gs_cluster *c, int self, void **state);
    void (*free)(void *state);
    /* A watch event of a type in `watches` (the controller's informers: it hears nothing else). */
    void (*on_watch)(void *state, struct gs_cluster *c, const struct gs_watch_event *ev);
    uint32_t watches; /* GS_WATCH_BIT(type) for each watch event type it handles */
    /* One of its timers fired (type, a, b as given to gs_cluster_timer). */
    void (*on_timer)(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b);
    /* A scenario event (spec.events): true when this controller handles its kind. */
    bool (*scenario_event)(void *state, struct gs_cluster *c, const struct gs_sevent *se);
    /* Admission of an arrival of workload `wl` (lws_group < 0) or of LeaderWorkerSet group
     * `lws_group` added by a scale: true when the controller takes it (the owner then creates no
     * pods for it until GROUP_ADMITTED). */
    bool (*admit_group)(void *state, struct gs_cluster *c, int wl, int arrival, int lws_group);
    /* Kubelet admission of pod `pod` on its node: false when refused (the controller has then
     * failed the pod through gs_cluster_fail_pod). */
    bool (*admit_pod)(void *state, struct gs_cluster *c, int pod);
    /* `object:` checks: true when the controller answers for e->obj_kind (then *v is filled).
     * Called with state NULL when the controller is not set up in this run: the objects of its
     * kinds then do not exist. */
    bool (*object)(void *state, const struct gs_cluster *c, const struct gs_expect *e, struct gs_object_view *v);
    /* Its part of a metrics sample (sim/metrics.c) of node pool `pool` (-1: the whole cluster). */
    void (*metrics)(void *state, struct gs_cluster *c, int pool, struct gs_metrics *m);
};

/* The registry (sim/controllers/registry.c): every controller, in the order watch events reach
 * them. NULL-terminated. */
extern const struct gs_controller *const gs_controller_registry[];

#endif
