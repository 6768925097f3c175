/* gpusim internal: the scheduler controller's state, shared by its two files
 * (sim/controllers/scheduler.c: queue, cycles, binding, preemption, restart;
 * sim/controllers/scheduler_gang.c: PodGroups, Coscheduling's Permit and gang admission). */
#ifndef GPUSIM_SIM_CONTROLLERS_SCHEDULER_H
#define GPUSIM_SIM_CONTROLLERS_SCHEDULER_H

#include "models/sched/queue.h"
#include "models/sched/sched.h"
#include "sim/controller.h"

enum { SCHED_TIMER_CYCLE = 0, SCHED_TIMER_BACKOFF, SCHED_TIMER_FLUSH, SCHED_TIMER_PERMIT };

struct scheduler {
    int self;
    struct gs_sched *sched;
    struct gs_queue *queue;
    int *scratch;               /* backoff out-list, sized to the pods */
    int scratch_cap;
    gs_event_handle cycle_ev;   /* the pending scheduling cycle, 0 when none */
    gs_event_handle flush_ev;   /* the pending flush of the unschedulable pool */
    gs_event_handle *permit_ev; /* per pod: its Permit timeout while waiting */
    int permit_cap;
    gs_time resume_at;          /* no cycle before this (a restarting scheduler) */
};

/* scheduler.c, for scheduler_gang.c */
/* Ask for a scheduling cycle when activeQ has pods (not before resume_at). */
void gs_scheduler_want_cycle(struct scheduler *s, struct gs_cluster *c);
/* Bind pod `p` to node `n` (n < 0: the node it is assumed on): DynamicResources' PreBind, the GPU
 * FGDScore picks for a share, DefaultBinder. */
void gs_scheduler_bind(struct scheduler *s, struct gs_cluster *c, int p, int n);
/* Pod `p` stays unschedulable with `message` (FailedScheduling) and goes to the unschedulable
 * pool, requeued by events of `plugins` (bitmask of enum gs_plugin). */
void gs_scheduler_unschedulable(struct scheduler *s, struct gs_cluster *c, int p, const char *message,
                                uint32_t plugins);
/* The failure path of a cycle: preemption (nomination, victims), FailedScheduling, the
 * unschedulable pool, and Coscheduling's PostFilter rejecting the waiting siblings. */
void gs_scheduler_failed(struct scheduler *s, struct gs_cluster *c, int p, const struct gs_cycle_result *res);
/* Cancel pod `p`'s Permit timeout (0 handle: none). */
void gs_scheduler_cancel_permit(struct scheduler *s, struct gs_cluster *c, int p);

/* scheduler_gang.c */
/* Coscheduling: pod `p` fitted node `n`: reserve it there and run Permit (bind it and its
 * waiting siblings, or wait with a timeout). */
void gs_scheduler_reserve(struct scheduler *s, struct gs_cluster *c, int p, int n);
/* Reject every pod of group `g` waiting at Permit with `message` (Unreserve: resources released,
 * back to the queue); the group is backed off when configured. */
void gs_scheduler_reject_waiting(struct scheduler *s, struct gs_cluster *c, int g, const char *message);
/* A Permit timeout fired for pod `p` after waiting `waited` µs. */
void gs_scheduler_permit_timeout(struct scheduler *s, struct gs_cluster *c, int p, gs_time waited);
/* Gang admission: pod `p` of a group was popped: place the group's pending pods all at once or
 * none of them. */
void gs_scheduler_group_cycle(struct scheduler *s, struct gs_cluster *c, int p);

#endif
