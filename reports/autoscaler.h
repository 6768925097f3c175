/* gpusim: the Cluster Autoscaler's decisions in a trace (sim/controllers/autoscaler.c writes
 * them as `object` rows of kind NodeGroup; the run table has nodeGroup.<pool> = "min..max" for
 * each node group). Read-only; output depends only on the database. */
#ifndef GPUSIM_REPORTS_AUTOSCALER_H
#define GPUSIM_REPORTS_AUTOSCALER_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* What the study JSON's "autoscaler" object holds (docs/trace-schema.md "Cluster Autoscaler"). */
struct gs_autoscaler_counts {
    int64_t scale_ups;     /* ScaleUp rows */
    int64_t scale_downs;   /* ScaleDown rows */
    int64_t nodes_added;   /* nodes the scale-ups asked for (the sum of to - from of their rows) */
    int64_t nodes_removed; /* nodes the scale-downs removed (the sum of from - to of their rows) */
};

/* Count the decisions in the open trace `db` (borrowed) into *out. Returns 1 when the run had
 * node groups (run keys nodeGroup.*; *out filled, possibly all 0), 0 when it had none (*out
 * zeroed), or a negative GS_E* code (GS_ESQL) when a query fails. */
int gs_report_autoscaler_counts(sqlite3 *db, struct gs_autoscaler_counts *out);

/* The summary's "Autoscaler" section (nothing without node groups):
 *
 *   Autoscaler (node groups h100 0..16): 1 scale-up (+12 nodes), 11 scale-downs (-12 nodes)
 *     1m0s    h100  ScaleUp: 0->12 (max 16), 12 pods unschedulable, expander least-waste
 *     45m0s   h100  ScaleDown: 12->11 (min 0), 1 empty node(s) removed (...): h100-0
 *     ...                                     (at most 20 rows, then "  ... and N more")
 *
 * Returns 0, GS_EIO when `out` fails, or GS_ESQL with `errbuf` (size errlen; may be NULL)
 * saying why. */
int gs_report_autoscaler(sqlite3 *db, FILE *out, char *errbuf, int errlen);

#endif
