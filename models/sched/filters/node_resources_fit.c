/* NodeResourcesFit filter: kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go
 * (Filter, fitsRequest).
 *
 * - "Too many pods" when the pods on the node + 1 exceed its allocatable pods (checked even for
 *   a pod that requests nothing);
 * - a pod whose requests are all zero fits otherwise;
 * - then every resource with a request > 0 that exceeds allocatable − requested, in upstream
 *   order: cpu, memory, ephemeral-storage, then the extended (scalar) resources (upstream walks
 *   a Go map there, so their relative order is unspecified; gpusim uses the resource index);
 *   every insufficient resource is reported ("Insufficient <name>");
 * - the status is Unschedulable; from 1.34 (cfg.fit_unresolvable, kubernetes PR 131345) it is
 *   UnschedulableAndUnresolvable when some insufficient resource's request alone exceeds the
 *   node's allocatable, so preemption cannot help ("Too many pods" never makes it so).
 * `adj` adds nominated pods or removes preemption victims (pod count and requests).
 * The check itself is gs_fit_check (sched_internal.h), inline in the cycle's loop.
 */
#include "models/sched/sched_internal.h"

void gs_filter_node_resources_fit(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                  const struct gs_adj *adj, struct gs_fstat *st)
{
    gs_fit_check(s, pc, n, adj, st);
}
