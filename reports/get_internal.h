/* gpusim internal: the pods and nodes at a time T as kubectl shows them, from the trace's
 * history (reports/history.h); shared by reports/get.c and reports/describe_pod.c. */
#ifndef GPUSIM_REPORTS_GET_INTERNAL_H
#define GPUSIM_REPORTS_GET_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "reports/history.h"

struct gs_get_pod {
    bool exists;        /* created by T and its object not gone */
    bool bound, started, terminating, succeeded, failed, reserved;
    const char *fail_reason; /* the row that failed it (UnexpectedAdmissionError), NULL */
    int node;           /* bound (or reserved) node, -1 */
    int nominated;      /* node of its last preemption, while not bound; -1 */
    int64_t bound_at, started_at, ended_at; /* -1 */
    const char *message; /* last FailedScheduling text by T, NULL */
};

struct gs_get_node {
    bool joined, deleted, cordoned, rebooting;
    const char *kernel;
    int64_t joined_at;
};

struct gs_get_view {
    sqlite3 *db;
    struct gs_history h;
    struct gs_hist_state st;  /* after every event at or before `at` */
    int64_t at;
    int upto;                 /* events [0, upto) are at or before `at` */
    struct gs_get_pod *pods;  /* h.npods */
    struct gs_get_node *nodes; /* h.nnodes */
    char version[32];         /* "v1.34" */
};

/* Open `trace`, load its history and the state at `at_us` (< 0: the run's end). 0 or a GS_E*
 * code with errbuf; free with gs_get_view_free in every case. */
int gs_get_view_open(const char *trace, int64_t at_us, struct gs_get_view *v, char *errbuf, int errlen);
void gs_get_view_free(struct gs_get_view *v);
/* The pod named `name`: the newest created at or before v->at; -1 (errbuf says why, nearest
 * names suggested) when none. */
int gs_get_find_pod(const struct gs_get_view *v, const char *trace, const char *name, char *errbuf, int errlen);
/* kubectl's STATUS and READY of pod i. Static strings or the view's. */
const char *gs_get_pod_status(const struct gs_get_view *v, int i);
/* GPU-IDS of pod i ("0,1", "1:500m", "-" when none known) into buf. */
void gs_get_pod_gpu_ids(const struct gs_get_view *v, int i, char *buf, size_t n);

#endif
