/* gpusim: a trace as text for the terminal, one line per event with the GPUs each node holds
 * after it (reports/timeline.c), read through the one model of a run's events and holdings,
 * reports/history.h.
 *
 *   GPUs per node after each event: █ held by a pod  ▒ shared, part held  · free  ░ not allocatable
 *   ×N: a FailedScheduling repeated N times (one aggregated row), shown at its first time
 *
 *   1s trainer-b-0 Scheduled               h100-0 ████████ h100-1 ████████ h100-2 ········ ...
 *   4s trainer-a-2 FailedScheduling ×11    h100-0 ████████ h100-1 ████████ ...
 */
#ifndef GPUSIM_REPORTS_TIMELINE_H
#define GPUSIM_REPORTS_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gs_timeline_opts {
    int64_t from_us, to_us;   /* events at times in [from_us, to_us] (µs; to_us < 0: to the end) */
    const char *const *nodes; /* only these nodes, in the order given (borrowed); NULL: every GPU node */
    int nnodes;
    int width;                /* columns per line (>= 40); node cells wrap onto indented lines */
    bool ascii;               /* plain ASCII glyphs (# + . - and x for the count) */
    bool changed;             /* per event only the nodes whose GPUs it changed (and its own node) */
    bool all;                 /* every trace row; by default node Label, Taint and Capacity rows and
                               * Allocatable rows of other resources than nvidia.com/gpu are left out */
    bool messages;            /* each event's message on the next line */
    bool legend;              /* the two legend lines first */
};

/* Print the timeline of the trace at `trace_path` to `out` (borrowed). Columns: the event's time
 * (Go duration since the run's start), the pod (or `node/<name>` for a node row), the reason
 * (node rows: the kind) with `×N (to T)` for an aggregated row, then one cell per node: its
 * name and one glyph per GPU after the event (nodes with more than GS_HIST_MAX_GPUS GPUs:
 * `allocated/allocatable`). With `nodes`, only events concerning those nodes are shown.
 * A node not in the cluster at that event (not joined yet, deleted) shows blanks.
 * Needs the event tables (--trace-level events or full). Returns 0; GS_EIO (unreadable, `out`
 * fails), GS_EINVAL (not a trace, a summary-level trace, an unknown node: the message names the
 * nearest node names), GS_ENOTSUP, GS_ESQL, GS_ENOMEM, with errbuf (size errlen; may be NULL)
 * saying why. */
int gs_report_timeline(const char *trace_path, const struct gs_timeline_opts *o, FILE *out, char *errbuf,
                       int errlen);

/* True when the locale named by the environment values (each may be NULL) uses UTF-8: the
 * first non-empty of LC_ALL, LC_CTYPE, LANG names a codeset UTF-8 (or utf8, any case), as
 * POSIX orders them (XBD 8.2). None set: false (the POSIX locale is ASCII). */
bool gs_timeline_locale_utf8(const char *lc_all, const char *lc_ctype, const char *lang);

#endif
