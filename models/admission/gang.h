/* gpusim: PodGroup gang semantics (scheduler-plugins Coscheduling) over the world: plain
 * functions the Coscheduling plugin (models/sched/plugins/coscheduling.c) and the run loop
 * call.
 *
 * Follows kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go (PreFilter,
 * PostFilter, Permit, Unreserve, Less) and pkg/coscheduling/core/core.go (PodGroupManager:
 * PreFilter sibling count, CalculateAssignedPods, Permit), as ../shared/reference/
 * kube-scheduler.md §7.1 summarises them. A PodGroup is a gs_group; its namespace is
 * "default", so its full name is "default/<name>".
 */
#ifndef GPUSIM_GANG_H
#define GPUSIM_GANG_H

#include <stdbool.h>
#include <stddef.h>

#include "models/world.h"

/* Pods of group `gi` that exist (not deleted), whatever their phase: the PodGroupManager's
 * sibling count (core.go PreFilter lists the pods with the pod-group label). */
int gs_gang_existing(const struct gs_world *w, int gi);

/* Pods of group `gi` with a node, bound or assumed (waiting at Permit), and still Pending or
 * Running (core.go CalculateAssignedPods counts the scheduler snapshot's pods of the group). */
int gs_gang_assigned(const struct gs_world *w, int gi);

/* Pods of group `gi` that are Running (not terminating). */
int gs_gang_running(const struct gs_world *w, int gi);

/* Coscheduling PreFilter for pod `p` at time `now` (µs), its PodGroup backed off until
 * `backoff_until` (µs; the plugin keeps it): NULL when it passes, else the status message
 * written into buf (size n):
 *   "podGroup default/<g> failed recently"  (now < backoff_until)
 *   "pre-filter pod <p> cannot find enough sibling pods, current pods number: <k>, minMember of group: <m>"
 * A pod outside any group passes. The status is UnschedulableAndUnresolvable. */
const char *gs_gang_prefilter(const struct gs_world *w, int p, gs_time backoff_until, gs_time now, char *buf,
                              size_t n);

/* Coscheduling PostFilter for pod `p` that failed filtering: true when the plugin rejects the
 * whole group (assigned < minMember and more than 10 % of minMember missing), with the status
 * text "PodGroup default/<g> gets rejected due to Pod <p> is unschedulable even after
 * PostFilter" in buf. False (no text) for a pod outside a group or a group close enough. */
bool gs_gang_postfilter(const struct gs_world *w, int p, char *buf, size_t n);

/* Coscheduling Permit for pod `p` just reserved (assumed on a node, already counted by
 * gs_gang_assigned): true (Success: bind it and allow every waiting sibling) when assigned >=
 * minMember, false (Wait) otherwise. A pod outside a group is always allowed. */
bool gs_gang_permit(const struct gs_world *w, int p);

/* How long a pod of group `gi` waits at Permit (µs): the PodGroup's scheduleTimeoutSeconds
 * when set, else the plugin's permitWaitingTimeSeconds `default_wait` (core.go
 * GetWaitTimeDuration). */
gs_time gs_gang_wait_time(const struct gs_world *w, int gi, gs_time default_wait);

/* The messages of the framework's waiting pods (framework/runtime/waiting_pods_map.go and
 * coscheduling.go): a pod rejected at Permit gets one as its FailedScheduling text. */
#define GS_GANG_MSG_POSTFILTER_REJECT "optimistic rejection in PostFilter"
#define GS_GANG_MSG_UNRESERVE_REJECT "rejection in Unreserve"
/* "rejected due to timeout after waiting <d> at plugin Coscheduling", d as Go prints a
 * time.Duration ("1m0s"). Written into buf (size n); returns buf. */
const char *gs_gang_timeout_message(gs_time waited, char *buf, size_t n);

/* GPUs (resource index `gpu_res`) requested by the pods holding a node in groups that have
 * fewer than minMember pods Running: bound, assumed or waiting at Permit pods count. */
int64_t gs_gang_gpus_held_incomplete(const struct gs_world *w, int gpu_res);

#endif
