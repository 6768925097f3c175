/* gpusim: reports on a finished (or interrupted) run. They read only the trace database
 * (sim/trace.h), never the simulator's memory, so any trace can be reported on.
 * They open the trace read-only and write text to the FILE* they are given; nothing else is
 * printed. Output depends only on the database, so it is byte-for-byte stable.
 */
#ifndef GPUSIM_REPORT_H
#define GPUSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sqlite3;

/* Print the human summary of the trace at `trace_path` to `out` (borrowed):
 *
 * (GPUs and Fragmented come from the whole-cluster samples, pool ''; the mean is weighted by
 * how long each sample's value held, up to the end of the run, or a plain mean when the
 * samples span no time. "run incomplete: status=X" follows Status for any status but
 * complete, then "Error:  <run.error>" when the trace writer failed; a killed run has no
 * end_us, so Simulated shows the latest committed time, marked "(last committed)".)
 *
 *   Scenario:    quickstart
 *   Seed:        42
 *   Kubernetes:  1.34
 *   Status:      complete
 *   Simulated:   1h30m0s, 5231 events dispatched
 *   Nodes:       6
 *     h100  4 nodes, 32 GPUs NVIDIA-H100-80GB-HBM3, all ready at 5m30s
 *     cpu   2 nodes, no GPUs, all ready at 0s
 *   Pods:        10 (Pending 2, Running 6, Succeeded 1, Failed 0, Rejected 1)
 *   GPUs:        capacity 32; allocated min 0, mean 17.50, max 24 (time-weighted mean of 9 samples)
 *   Fragmented:  mean 1.25, max 4.00 GPUs
 *
 *   Bring-up (time from join to GPUs allocatable):      (only with GPU Operator rows)
 *     gpu-a        min 2m10s, median 2m10s, max 2m10s (1 node)
 *     gpu-b        none schedulable, 2 never
 *     longest operand step: nvidia-driver-daemonset on gpu-b-0, ImagePullBackOff for 5h49m50s (from 12m25s)
 *
 *   Time to schedule (created to bound; 118 of 120 pods bound):   (with pods; reports/study.h)
 *     to bound     p50 0s, p90 30s, p95 41.2s, p99 1m20s, max 1m35s, mean 12.5s
 *     to Running   p50 2s, ... (110 pods started)
 *     pending at end: 2 pods wanting 16 GPUs, waiting 5m0s on average, longest 7m0s
 *     pending GPU-hours: 3.25 (GPUs requested x hours spent waiting for a node)
 *     workload   bound  p50 ... pending         (a table per workload and one per priority,
 *     inference    100  ...                      each only when there are several)
 *
 *   Utilisation (GPUs allocated / allocatable, time-weighted) and node-hours:
 *     h100          8.00 node-hours, GPUs  62.5% (40.00 of 64.00 GPU-hours), cost 786.56 (98.32 an hour)
 *     cpu           4.00 node-hours, no GPUs allocatable
 *     cluster      12.00 node-hours, GPUs  62.5%, cost 786.56
 *
 *   Pending (2):                      (at most 10 pods, then "  ... and N more")
 *     trainer-b-0  0/4 nodes are available: ...
 *
 *   Rejected (1):                     (pods, then other API objects; at most 10)
 *     pod/bad-0  Pod was rejected: ...
 *
 *   PASS  <what>
 *   FAIL  <what>: <detail>
 *   checks: 1 passed, 1 failed
 *
 * Returns 0; GS_EIO when the file cannot be opened or `out` fails; GS_EINVAL when it is not
 * a gpusim trace; GS_ENOTSUP for a newer schema version; GS_ESQL for a damaged trace. On
 * error `errbuf` (size errlen; may be NULL) says why, and part of the summary may have been
 * written. */
int gs_report_summary(const char *trace_path, FILE *out, char *errbuf, int errlen);

/* The number of failed expect: checks recorded in the trace (0 when all passed or there are
 * none), or a negative GS_E* code when the trace cannot be read (as gs_report_summary). */
int gs_report_checks_failed(const char *trace_path);

/* The warnings of a complete run, from its trace (the "warning: ..." lines the summary prints
 * after its header): it ended at 0s (nothing simulated); everything it submitted was
 * Rejected; a pending pod asks for more than any node ever had; without a horizon, pods were
 * still pending when nothing was left to happen; with one, every pending pod was last rejected
 * by every node as UnschedulableAndUnresolvable. `fn` gets each as one line of text without
 * "warning: " (borrowed for the call), in that order; an incomplete run gets none. Returns 0,
 * or as gs_report_summary with `errbuf` (size errlen; may be NULL) saying why. */
int gs_report_run_warnings(const char *trace_path, void (*fn)(const char *text, void *ctx), void *ctx, char *errbuf,
                           int errlen);

/* The summary's rule for a request that can never be scheduled (the warning gs_report_run_warnings
 * prints), for one request: whether a pod named `pod` asking `cpu_m` millicores, `memory_b` bytes
 * and `gpu` whole nvidia.com/gpu asks for more of one of them than any node of the trace `db`
 * ever had (the largest allocatable in its node_event rows, or for GPUs the node table's
 * physical count). Returns 1 with `text` (size n) the warning's sentence ("pod P asks for 9
 * nvidia.com/gpu, more than any node has (at most 4): it can never be scheduled"), 0 when it
 * does not, or GS_ESQL. `db` is borrowed (a connection from gs_report_open). */
int gs_report_never_fits(struct sqlite3 *db, const char *pod, int64_t cpu_m, int64_t memory_b, int64_t gpu, char *text,
                         size_t n);

/* Print node `node` as `kubectl describe node` shows it, at simulated time `at_us`
 * (microseconds; < 0: the end of the run, or for an incomplete trace run.complete_until_us,
 * where its pods are as reports/open.h derives them), rebuilt from the trace's node_event rows alone
 * (reports/describe.c): Name, At, Pool, Labels (sorted), Taints, Unschedulable, Ready,
 * Capacity, Allocatable, System Info (kernel), the GPU Operator's pods (Ready, Status, since
 * when) and the non-terminated pods bound to it. Needs a trace written at --trace-level
 * events or full. Returns 0; GS_EIO (unreadable file, `out` fails), GS_EINVAL (not a trace,
 * no such node, not joined yet at that time), GS_ENOTSUP (newer schema), GS_ESQL, GS_ENOMEM,
 * with `errbuf` (size errlen; may be NULL) saying why. */
int gs_report_describe(const char *trace_path, const char *node, int64_t at_us, FILE *out, char *errbuf,
                       int errlen);

/* What a trace says about its own completeness (run.status and run.complete_until_us). */
struct gs_report_state {
    char status[32];           /* run.status: complete | running | interrupted | failed | unknown */
    bool complete;             /* status is complete */
    int64_t complete_until_us; /* every event at or before it is in the trace; -1 unknown */
};

/* Read the state of the trace at `path` (opened read-only, checked as the reports check it).
 * Returns 0, or GS_EIO/GS_EINVAL/GS_ENOTSUP/GS_ESQL/GS_ENOMEM with errbuf saying why. */
int gs_report_trace_state(const char *path, struct gs_report_state *s, char *errbuf, int errlen);

/* One line for an incomplete trace: "trace 'PATH' is incomplete: status running (the run was
 * killed, or is still writing); complete up to 1h2m0s of simulated time" (without a checkpoint:
 * "...; complete up to no simulated time (no checkpoint was committed)"), into buf (size n). */
void gs_report_incomplete_note(const char *path, const struct gs_report_state *s, char *buf, size_t n);

#endif
