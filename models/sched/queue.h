/* gpusim: kube-scheduler's scheduling queue: activeQ, backoffQ and the unschedulable pool.
 *
 * Follows kubernetes pkg/scheduler/backend/queue/scheduling_queue.go and backoff_queue.go
 * (see ../shared/reference/kube-scheduler.md §1):
 * - activeQ is ordered by the profile's QueueSort plugin (plugin.h: PrioritySort, higher
 *   priority first, then the earlier queue timestamp, the time the pod was last added; or
 *   Coscheduling's), then the order of insertion;
 * - a pod rejected by a cycle waits in the unschedulable pool; a cluster event that one of the
 *   plugins which rejected it registered for moves it to backoffQ (backoff not yet expired) or
 *   activeQ; pods rejected with no plugin recorded are moved by any event;
 * - backoff is initial × 2^(attempts−1), capped at max (defaults 1 s and 10 s);
 * - every 30 s, pods that have been unschedulable for more than 5 minutes are moved.
 * The queue keeps a record per pod it holds or has popped (QueuedPodInfo: attempts, backoff)
 * until the caller says the pod is done with (gs_queue_forget: bound, or gone), so its memory
 * follows the pods queued or in flight at once, not every pod created; time is simulated
 * microseconds. The caller (the run loop) schedules the backoff-expiry and flush events; the
 * queue only says when.
 */
#ifndef GPUSIM_QUEUE_H
#define GPUSIM_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "models/world.h"

/* Where a pod is (QueuedPodInfo's place). */
enum gs_qstate { GS_Q_NONE = 0, GS_Q_ACTIVE, GS_Q_BACKOFF, GS_Q_UNSCHEDULABLE, GS_Q_GATED };

/* Cluster events that can make a rejected pod schedulable (framework.ClusterEvent). */
enum gs_cluster_event {
    GS_CE_NODE_ADD,
    GS_CE_NODE_ALLOCATABLE,   /* allocatable grew */
    GS_CE_NODE_LABEL,
    GS_CE_NODE_TAINT,         /* taints or spec.unschedulable changed */
    GS_CE_ASSIGNED_POD_DELETE, /* a pod that held resources on a node went away */
    GS_CE_POD_ADD,            /* a pod was created (Coscheduling: a sibling may complete a group) */
    GS_CE_RESOURCE_CHANGE     /* a ResourceClaim, ResourceSlice or DeviceClass was added or changed
                               * (DynamicResources EventsToRegister) */
};

#define GS_QUEUE_FLUSH_PERIOD GS_SEC(30)
#define GS_QUEUE_MAX_UNSCHEDULABLE GS_MIN(5)

struct gs_queue;
struct gs_sched_plugin;

/* Create a queue over `w` (borrowed; the queue reads pods, never writes the world), ordered by
 * PrioritySort until gs_queue_set_sort. Backoff bounds in microseconds (upstream defaults:
 * GS_SEC(1), GS_SEC(10)). NULL when out of memory. */
struct gs_queue *gs_queue_new(struct gs_world *w, gs_time initial_backoff, gs_time max_backoff);
void gs_queue_free(struct gs_queue *q);

/* Order activeQ by QueueSort plugin `sort` (plugin.h; borrowed, static; sched.h
 * gs_sched_queue_sort gives the profile's, as scheduling_queue.go NewSchedulingQueue takes the
 * profile's Less). The pods already in activeQ are ordered again. Returns 0, or GS_EINVAL when
 * `sort` is NULL or has no QueueSort function (the order is then unchanged). */
int gs_queue_set_sort(struct gs_queue *q, const struct gs_sched_plugin *sort);

/* A new pod enters activeQ. Returns 0 or GS_ENOMEM. */
int gs_queue_add(struct gs_queue *q, int pod, gs_time now);

/* Pop the head of activeQ (counts an attempt); -1 when empty. */
int gs_queue_pop(struct gs_queue *q);

/* Number of pods in activeQ. */
int gs_queue_active_len(const struct gs_queue *q);

/* The pod popped last failed: put it in the unschedulable pool, remembering the plugins that
 * rejected it (a mask of 1u << enum gs_plugin; 0 = none recorded). */
int gs_queue_unschedulable(struct gs_queue *q, int pod, uint32_t plugins, gs_time now);

/* A cluster event: move the pods it may help. `event_plugins` is the mask of plugins that
 * registered for it. Pods whose backoff is over go to activeQ; the others to backoffQ, and
 * their pod indexes are appended to `backoff_out` (capacity `cap`; the count is returned
 * through *nbackoff) so the caller can schedule their expiry. Returns the number moved to
 * activeQ. */
int gs_queue_on_event(struct gs_queue *q, enum gs_cluster_event ev, gs_time now, int *backoff_out,
                      int cap, int *nbackoff);

/* Mask of plugins interested in a cluster event (EventsToRegister). */
uint32_t gs_queue_event_plugins(enum gs_cluster_event ev);

/* The backoff of `pod` expired at `now`: if it is still in backoffQ, move it to activeQ.
 * Returns true if moved. */
bool gs_queue_backoff_expired(struct gs_queue *q, int pod, gs_time now);

/* The 30 s flush: move pods unschedulable for more than 5 minutes (same backoff rule as
 * gs_queue_on_event, same out-parameters). Returns the number moved to activeQ. */
int gs_queue_flush(struct gs_queue *q, gs_time now, int *backoff_out, int cap, int *nbackoff);

/* Move a pod from the unschedulable pool or backoffQ to activeQ (framework Handle.Activate, as
 * Coscheduling's Permit does for a waiting pod's siblings) once its backoff is over at `now`
 * (µs). Upstream Activate ignores the backoff; a PodGroup that keeps failing then spins through
 * cycles in wall-clock time, which in a simulation whose cycles take no time would never let
 * the clock move, so gpusim keeps the backoff. Other pods are left alone. Returns 0 or
 * GS_ENOMEM. */
int gs_queue_activate(struct gs_queue *q, int pod, gs_time now);

/* A restarted scheduler: every queued pod (unschedulable pool and backoffQ too) is in activeQ
 * with no attempts and no backoff, as a fresh scheduler lists the pending pods. Pods whose
 * push fails for memory stay where they were. */
void gs_queue_restart(struct gs_queue *q);

/* Remove a pod from whatever queue holds it (deleted, bound directly). Its record stays: its
 * attempts still count if it is put back (gs_queue_unschedulable). */
void gs_queue_remove(struct gs_queue *q, int pod);

/* The pod will not be queued again (bound, or its object gone): remove it from whatever queue
 * holds it and drop its record, whose memory the next pod queued reuses. It then reads as a pod
 * never queued (GS_Q_NONE, no attempts). Any pod index is fine; never fails. (Upstream the
 * QueuedPodInfo goes with the pod once it is bound or deleted: scheduling_queue.go Done and
 * Delete.) */
void gs_queue_forget(struct gs_queue *q, int pod);

/* Pods in the unschedulable pool or backoffQ. */
int gs_queue_waiting_len(const struct gs_queue *q);

/* Backoff duration after `attempts` attempts (1 → initial). */
gs_time gs_queue_backoff(const struct gs_queue *q, int attempts);

/* A pod's queue state (QueuedPodInfo, pkg/scheduler/framework/types.go): where it is
 * (GS_Q_NONE for a pod never queued, popped or removed), its attempts (cycles it was popped for
 * since it was added), the end of its backoff (µs; 0 before its first failure), and the plugins
 * that rejected it last (UnschedulablePlugins: 1u << enum gs_plugin). Any pod index is fine
 * (out of range, or a pod forgotten: the state of a pod never queued). */
enum gs_qstate gs_queue_state(const struct gs_queue *q, int pod);
int gs_queue_attempts(const struct gs_queue *q, int pod);
gs_time gs_queue_backoff_until(const struct gs_queue *q, int pod);
uint32_t gs_queue_unsched_plugins(const struct gs_queue *q, int pod);

#endif
