/* gpusim: the HTML report of a trace (`gpusim report TRACE --html FILE`) and the HTML form of
 * `gpusim compare` (reports/html.c).
 *
 * The page is one self-contained file: the data as one JSON document inside
 * <script type="application/json" id="gpusim-data">, our own stylesheet and script
 * (reports/html/report.css, reports/html/report.js, compiled into the binary by the CMake rule
 * in reports/html/embed.cmake) inline, and no reference to anything outside the file: no URL,
 * no font, no image; the script draws inline SVG and HTML. It opens from disk in any current
 * browser, offline.
 *
 * The report's panels (docs/cli.md, "report --html"):
 *   - GPUs allocated and allocatable per pool, and pods pending, over time: the `sample` table;
 *   - time to schedule as a cumulative distribution: gs_study_times_to_schedule (reports/study.h),
 *     the values the summary's quantiles come from;
 *   - each node's bring-up as a Gantt chart: its Joined and Schedulable rows, each GPU Operator
 *     operand's status spans (Operand rows), Reboot to Kernel down-times, Xid marks;
 *   - the node × GPU occupancy map with a slider and step buttons, moving through the events of
 *     reports/history.h one at a time, each GPU slot coloured by the pod holding it, PodGroups
 *     outlined, the current event and its message shown; `#step=N` (after N events) or
 *     `#t=DURATION` (after every event at or before the time) in the URL opens it there;
 *   - GPUs held by incomplete PodGroups over time (the samples' gpus_held_by_incomplete_groups);
 *   - fragmentation: free GPUs and the largest free block on one node over time (from the
 *     history), and the samples' FGD measure frag_gpus.
 *
 * Bounds (so a long trace gives a file of bounded size; each bound that cuts says so in the page):
 * the step-through holds at most `max_steps` events from `from_us` on; the time plots at most
 * GS_HTML_MAX_POINTS points per series (every k-th sample); the CDF at most GS_HTML_MAX_POINTS
 * points (evenly spaced ranks); the Gantt at most GS_HTML_MAX_GANTT_NODES nodes; the map at most
 * GS_HTML_MAX_MAP_NODES nodes.
 */
#ifndef GPUSIM_REPORTS_HTML_H
#define GPUSIM_REPORTS_HTML_H

#include <stdint.h>
#include <stdio.h>

#define GS_HTML_MAX_STEPS 5000      /* default events in the step-through */
#define GS_HTML_MAX_POINTS 2000     /* points per time series and in the CDF */
#define GS_HTML_MAX_GANTT_NODES 200 /* nodes in the bring-up Gantt */
#define GS_HTML_MAX_MAP_NODES 256   /* nodes in the occupancy map */

struct gs_html_options {
    int max_steps;   /* events in the step-through; <= 0: GS_HTML_MAX_STEPS */
    int64_t from_us; /* the step-through starts at the first event at or after this time (µs) */
};

/* Write the HTML report of the trace at `trace_path` to `out` (borrowed). `o` may be NULL (the
 * defaults). Needs a trace with events (a --trace-level summary trace has no step-through or
 * Gantt: GS_EINVAL saying so). Returns 0; GS_EIO (unreadable trace, `out` fails), GS_EINVAL
 * (not a trace), GS_ENOTSUP, GS_ESQL, GS_ENOMEM as reports/open.h, with `err` (size errlen; may
 * be NULL) saying why. */
int gs_report_html(const char *trace_path, const struct gs_html_options *o, FILE *out, char *err, int errlen);

/* Write the HTML form of `gpusim compare`: the time plots (GPUs allocated and allocatable per
 * pool, pods pending, GPUs held by incomplete groups, free GPUs, the largest free block and the
 * FGD measure) and the time-to-schedule CDF of the `n` traces, each run one colour, overlaid.
 * labels[i] names trace i (borrowed; NULL: the trace's file name). A trace without events
 * draws no free-GPU curves. Returns as gs_report_html. */
int gs_compare_html(const char *const *traces, const char *const *labels, int n, FILE *out, char *err, int errlen);

#endif
