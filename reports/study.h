/* gpusim: the study metrics of a trace (reports/study.c), the answers `gpusim report --format
 * json|csv`, compare and plan give without SQL.
 *
 * gs_study_open reads a trace (read-only, any status: an incomplete trace is read as far as it
 * goes, with its pods as reports/open.h derives them) into one JSON document, schema
 * "gpusim-report/1", documented in docs/trace-schema.md "Study metrics":
 *
 *   {"schema": "gpusim-report/1",
 *    "run": {"scenario", "scenarioPath", "seed", "status", "horizonSeconds" (null: none),
 *            "endSeconds", "command" (null: not recorded), "overrides": {PATH: VALUE}},
 *    "pods": {"total", "scheduled", "running", "succeeded", "failed", "pending", "rejected",
 *             "deleted"},
 *    "timeToSchedule": Q, "timeToRunning": Q,
 *    "pendingAtEnd": {"count", "gpus", "ageMean", "ageMax"},
 *    "pendingGpuHours": h,
 *    "byWorkload": {NAME: {"timeToSchedule": Q, "timeToRunning": Q, "pendingAtEnd": {...}}},
 *    "byPriority": {"N": {...the same three}},
 *    "pools": {NAME: {"nodes", "nodeHours", "gpuHoursAllocatable", "gpuHoursAllocated",
 *                     "gpuUtilisation", "pricePerHour", "cost"}},
 *    "cluster": {"nodeHours", "gpuUtilisation", "cost"}}
 *
 * Q is {"count", "mean", "p50", "p90", "p95", "p99", "max"} (seconds; with count 0 the others
 * are null). Units: seconds for times, hours for *Hours, fractions 0..1 for utilisation.
 * Definitions (sim/objective.h): time to schedule = scheduled_us - created_us over bound pods,
 * time to running = started_us - created_us over started pods, percentiles by
 * gsl_stats_quantile_from_sorted_data (base/stats.h); pending at end: never bound and not ended
 * at the end, age = end - created; pending GPU-hours = sum of gpu × time unbound (until bound,
 * ended or the end); node-hours from each node's Joined node_event row to its Deleted row or the
 * end (a trace written at --trace-level summary has no such rows: the per-pool samples'
 * nodes_ready, each holding until the next sample, instead); GPU utilisation = the integral of
 * gpus_allocated over that of gpus_allocatable, each sample's value holding until the next
 * sample and the last until the end (the whole-cluster rows for the cluster, a pool's rows for
 * the pool); cost = nodeHours × pricePerHour (run.pricePerHour.<pool>; the cluster's: the sum
 * over priced pools, null when no pool has a price). The end is run.end_us for a complete trace,
 * else run.complete_until_us (the time the pods are read as of), else the latest time in it.
 */
#ifndef GPUSIM_REPORTS_STUDY_H
#define GPUSIM_REPORTS_STUDY_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* The document's schema name. */
#define GS_STUDY_SCHEMA "gpusim-report/1"

/* Read the trace at `trace_path` into the document above. Returns 0 with *out set (the caller
 * owns it: json_decref), or GS_EIO / GS_EINVAL / GS_ENOTSUP / GS_ESQL / GS_ENOMEM as
 * gs_report_open (reports/open.h) with `err` (size errlen; may be NULL) saying why; *out is
 * NULL then. */
int gs_study_open(const char *trace_path, json_t **out, char *err, size_t errlen);

/* The value of objective `expr` (docs/trace-schema.md "Study metrics": `p95(timeToSchedule)`,
 * `mean(timeToRunning, priority=100)`, `pendingGpuHours`, `pendingAtEnd`, `utilisation`,
 * `utilisation(pool=h100)`, `nodeHours`, `cost`, ...; names parsed by gs_objective_parse,
 * sim/objective.h) in document `doc` (borrowed), into *out: seconds for times, hours, a
 * fraction. NaN when the metric is null (a quantile over 0 pods, no price, no GPU-time). A
 * scope the document does not have (no such workload, priority or pool) is an error naming the
 * ones it has. Returns 0, or GS_EINVAL with `err` saying what is wrong with the name. */
int gs_study_metric(const json_t *doc, const char *expr, double *out, char *err, size_t errlen);

/* Print `doc` as `gpusim report --format json` does (2-space indent, keys in document order,
 * 15 significant digits, a final newline). Returns 0 or GS_EIO. */
int gs_study_print_json(const json_t *doc, FILE *out);

/* Print `doc` as `gpusim report --format csv` does: a header `scope,key,metric,value`, then one
 * row per metric: scope run (key: the override's PATH for `override` rows, else empty), cluster
 * (key empty), pool, workload, priority (key: the pool, workload or priority); metric the
 * document's name, dotted below its object (`timeToSchedule.p95`, `pendingAtEnd.count`); value
 * empty for null. Fields are quoted as RFC 4180 says when they need it. Returns 0 or GS_EIO. */
int gs_study_print_csv(const json_t *doc, FILE *out);

/* Print the summary's "Time to schedule" and "Utilisation" sections of `doc` (see
 * reports/report.h, gs_report_summary). Returns 0 or GS_EIO. */
int gs_study_print_text(const json_t *doc, FILE *out);

/* The per-pod times to schedule of the trace at `trace_path`, in seconds, sorted ascending: the
 * values timeToSchedule's quantiles are taken from (the same pods, the same end and the same
 * rule: scheduled_us - created_us of each pod bound by the end), for a plot of their
 * distribution (the HTML report's CDF). *out is base/alloc.h memory the caller frees with
 * gs_free (NULL when *n is 0). Returns 0, or as gs_study_open with `err` saying why. */
int gs_study_times_to_schedule(const char *trace_path, double **out, int *n, char *err, size_t errlen);

#endif
