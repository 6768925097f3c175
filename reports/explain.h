/* gpusim: `gpusim explain TRACE POD [--at T]`: why a pod was where it was at simulated time T,
 * and what would change it, computed by re-running the scenario the trace records up to T
 * (sim/replay.h) and running the scheduler's filters on that cluster (reports/explain.c,
 * reports/explain_whatif.c).
 *
 * What it prints (docs/cli.md, "gpusim explain", has a real example):
 *   - the pod: its workload, priority, requests (cpu millicores, memory bytes, nvidia.com/gpu,
 *     other extended resources, DRA claims), tolerations, nodeSelector and required node
 *     affinity; its state at T (Pending, bound, Running, ended, not yet created) and the
 *     FailedScheduling message it had at T (the trace's last one at or before T);
 *   - how the replay was made (scenario file, seed, overrides, horizon) and that it agrees
 *     with the trace at T (every node and pod created by T has the trace's name, binding time
 *     and node; the pod's message is the trace's);
 *   - for a pod not bound at T: the nodes grouped by the first Filter plugin that rejects it on
 *     the cluster at T (kube-scheduler's per-node statuses, gs_sched_filter_node), for resource
 *     failures each node's free amount beside the request, and a diagnosis in plain words
 *     (fragmentation, too little free capacity, untolerated taints, the nodeSelector or
 *     affinity, cordoned nodes, DRA claims no device satisfies, an incomplete PodGroup);
 *   - for a bound pod: the node it got and, when the scheduler reported its scores, each Score
 *     plugin's weighted score of the winner beside the runner-up's (the binding cycle of the
 *     replay, observed through gs_sched_observer);
 *   - what would change the outcome, each checked by re-running the filters on a copy of the
 *     cluster at T: the fewest pods (lowest priority first, as preemption's victim search)
 *     whose removal lets it fit a node; a toleration of each untolerated taint; each
 *     nodeSelector key or the required node affinity dropped; a cordoned node uncordoned; a DRA
 *     request's selectors dropped; each with the `--set` arguments that apply the change to
 *     the scenario, so the suggestion can be verified by running it.
 *
 * Units: times µs; cpu millicores; memory bytes.
 */
#ifndef GPUSIM_REPORTS_EXPLAIN_H
#define GPUSIM_REPORTS_EXPLAIN_H

#include <stdint.h>
#include <stdio.h>

struct gs_explain_opts {
    const char *trace;    /* the trace database (required) */
    const char *pod;      /* the pod's name (required); of several pods with that name (a
                           * LeaderWorkerSet re-creates its groups' pods under the same names),
                           * the newest created at or before T */
    int64_t at_us;        /* T in µs; < 0: the end of the run (an incomplete trace: the time it
                           * is complete up to) */
    const char *scenario; /* the scenario file to replay; NULL: the trace's run.scenario_path */
    volatile const int *stop; /* set nonzero (SIGINT) to stop the replay: GS_EINTERRUPTED */
};

/* Print the explanation to `out`. Returns 0; GS_EINVAL when the trace is not a trace, has no
 * pod of that name (errbuf suggests the nearest names), the pod did not exist yet at T, the
 * trace does not say which scenario made it, or the replay disagrees with the trace (the
 * scenario file changed since the run: errbuf says where and asks for --scenario); GS_EIO when
 * the trace or the scenario file cannot be read (a moved scenario: errbuf names --scenario);
 * GS_ENOTSUP (a newer trace schema, or a scenario key this build does not model); GS_ESQL;
 * GS_ENOMEM. errbuf (size errlen; may be NULL) says why. */
int gs_report_explain(const struct gs_explain_opts *o, FILE *out, char *errbuf, int errlen);

#endif
