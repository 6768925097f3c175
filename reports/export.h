/* gpusim: a trace exported for other tools: Chrome trace event JSON for Perfetto and
 * chrome://tracing (reports/export_perfetto.c), and OpenMetrics text for Prometheus
 * (reports/export_openmetrics.c). Both read the trace only, through reports/history.h for the
 * events and GPU holdings and the `sample` table for the metrics; output depends only on the
 * trace, so it is byte-for-byte stable. */
#ifndef GPUSIM_REPORTS_EXPORT_H
#define GPUSIM_REPORTS_EXPORT_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "reports/history.h"

/* Open the trace at `path` (gs_report_open) and load its history (gs_history_load). Returns 0
 * with *db open (sqlite3_close it) and `h` loaded (gs_history_free it), or the error of either
 * with errbuf (size errlen; may be NULL) saying why, nothing left open. */
int gs_export_open(const char *path, sqlite3 **db, struct gs_history *h, char *errbuf, int errlen);

/* Write the trace at `trace_path` as a Trace Event Format JSON object (the "JSON Object Format"
 * of the Trace Event Format document, catapult docs/trace-event-format.md) to `out`:
 *   - pid 1 "cluster": counters (ph "C") from the `sample` table at each sample time:
 *     "GPUs" {allocated, allocatable}, "pods" {pending, running}, and "GPUs <pool>" per pool;
 *   - one process per node (pid = node id + 2, process_name the node's name, process_labels its
 *     pool and GPU product), one thread per GPU ("GPU <i>"; a GPU shared by several
 *     pods at once gets one more thread per extra pod at a time, "GPU <i> share <k>"), and pods
 *     as complete slices (ph "X", ts and dur in µs of simulated time) on the GPU threads they held
 *     (pods whose slots are not in the trace, and CPU-only pods, on "pods" threads);
 *   - the GPU Operator's steps (node_event Operand rows) as slices on one thread per operand
 *     DaemonSet, "operand <name>": each status from its row to the operand's next row;
 *   - Xid rows as instant events (ph "i", scope thread) on the GPU's thread; other node rows
 *     (Joined, Reboot, Cordon, ...) on the node's "node events" thread;
 *   - a pod reserved at Permit as a slice "<pod> (reserved at Permit)"; API object rows (Kueue
 *     Workloads, PodGroups, the scheduler's restart) as instants on the cluster's "API objects" thread.
 * Every event has name, ph, ts, pid and tid (metadata events ts 0); slices on one thread never
 * overlap. Returns 0, or the errors of gs_export_open, GS_EIO when `out` fails, GS_ENOMEM. */
int gs_export_perfetto(const char *trace_path, FILE *out, char *errbuf, int errlen);

/* The default epoch of OpenMetrics timestamps: 2026-01-01T00:00:00Z in Unix seconds. */
#define GS_OM_EPOCH_DEFAULT 1767225600

/* Write the trace at `trace_path` as OpenMetrics 1.0 text (the OpenMetrics specification,
 * "Text format") to `out`: each sample's timestamp is `epoch_s` (Unix seconds) plus the
 * simulated time of the sample, in seconds. Families (named as the exporters that measure the
 * same thing in a real cluster: kube-state-metrics, kube-scheduler, dcgm-exporter; docs/cli.md
 * lists them) are written one after the other, each series' points together in increasing time,
 * `# EOF` last. Returns 0, or the errors of gs_export_open, GS_EIO when `out` fails, GS_ENOMEM. */
int gs_export_openmetrics(const char *trace_path, int64_t epoch_s, FILE *out, char *errbuf, int errlen);

#endif
