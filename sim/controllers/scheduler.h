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
    int *scratch;               /* backoff out-list, sized to the waiting pods */
    int scratch_cap;
    gs_event_handle cycle_ev;   /* the pending scheduling cycle, 0 when none */
    gs_event_handle flush_ev;   /* the pending flush of the unschedulable pool */
    gs_event_handle *permit_ev; /* per pod: its Permit timeout while waiting */
    int permit_cap;
    gs_time resume_at;          /* no cycle before this (a restarting scheduler) */
    struct gs_cluster *c;       /* the run's cluster, for the client's callbacks */
    struct gs_sched_client client; /* what the framework's binding plugins change, through us */
    int share_pod, share_gpu;   /* the GPU a PreBind plugin chose for pod share_pod's share */
    int rejected_waiting;       /* waiting pods rejected through the client (a counter) */
    int group_pod;              /* the pod whose gang admission group cycle runs, -1: none (the
                                 * attempts' rows at --trace-level full) */
};

/* scheduler.c, for scheduler_gang.c */
/* Ask for a scheduling cycle when activeQ has pods (not before resume_at). */
void gs_scheduler_want_cycle(struct scheduler *s, struct gs_cluster *c);
/* Bind pod `p` to node `n` (n < 0: the node it is assumed on): the PreBind plugins (DynamicResources'
 * claims, the GPU FGDScore picks for a share) and the Bind plugins (DefaultBinder), through the
 * client. */
void gs_scheduler_bind(struct scheduler *s, struct gs_cluster *c, int p, int n);
/* Reject pod `p` waiting at Permit with `message` (Unreserve: resources released, back to the
 * queue), requeued by events of `plugins`. */
void gs_scheduler_reject_one(struct scheduler *s, struct gs_cluster *c, int p, const char *message, uint32_t plugins);
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
/* Pod `p` fitted node `n`: assume it there, run Reserve, then Permit decides: bind it (and its
 * waiting siblings when the plugin allows them too), let it wait with a timeout, or reject it. */
void gs_scheduler_reserve(struct scheduler *s, struct gs_cluster *c, int p, int n);
/* Reject every pod of group `g` waiting at Permit with `message` (Coscheduling's PostFilter). */
void gs_scheduler_reject_waiting(struct scheduler *s, struct gs_cluster *c, int g, const char *message);
/* A Permit timeout fired for pod `p` after waiting `waited` µs: it is rejected, and Unreserve
 * rejects the rest of its group. */
void gs_scheduler_permit_timeout(struct scheduler *s, struct gs_cluster *c, int p, gs_time waited);
/* Gang admission: pod `p` of a group was popped: place the group's pending pods all at once or
 * none of them. */
void gs_scheduler_group_cycle(struct scheduler *s, struct gs_cluster *c, int p);

#endif
