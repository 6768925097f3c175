/* gpusim internal: the parts of `gpusim explain` (reports/explain.c reads the trace, replays
 * and checks; reports/explain_whatif.c runs the filters on the cluster at T and the
 * alternatives; reports/explain_score.c observes the binding cycle's scores). */
#ifndef GPUSIM_REPORTS_EXPLAIN_INTERNAL_H
#define GPUSIM_REPORTS_EXPLAIN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "models/sched/sched.h"
#include "sim/replay.h"

/* What explain_whatif.c needs besides the replay. */
struct gs_explain_ctx {
    struct gs_replay *r;
    int pod;                     /* world pod index (= the trace's pod.id) */
    int64_t at;                  /* T, µs */
    const char *scenario_path;   /* as replayed, for the `try:` lines */
    const char *const *sets;     /* the trace's overrides, "PATH=VALUE" */
    int nsets;
    int64_t seed;                /* the trace's run.seed, -1 unknown */
    const struct gs_explain_scores *scores; /* what the replay observed of the pod's cycles */
    int64_t last_attempt;        /* the time of its last FailedScheduling by T, -1 none */
    FILE *out;
    struct sqlite3 *db;          /* the trace (borrowed): the summary's never-fits rule reads it */
};

/* For a pod not bound at T: the nodes grouped by their first failing Filter plugin, the
 * diagnosis and the verified alternatives (reports/explain_whatif.c). 0 or GS_ENOMEM. */
int gs_explain_unbound(const struct gs_explain_ctx *x);

/* The scores of the cycles observed during the replay (reports/explain_score.c). */
struct gs_explain_scores;
/* A node's verdict in an observed cycle. */
struct gs_explain_verdict {
    int node;
    enum gs_status_code code;
    enum gs_plugin plugin;
};
/* The verdicts of the last observed cycle of the pod that left it unscheduled (borrowed; *n
 * of them, in the order the cycle judged the nodes); NULL with *n 0 when none was observed. */
const struct gs_explain_verdict *gs_explain_scores_last_failed(const struct gs_explain_scores *s, int *n);
/* Observer state for pod `pod` (world index); NULL when out of memory. */
struct gs_explain_scores *gs_explain_scores_new(int pod);
void gs_explain_scores_free(struct gs_explain_scores *s);
/* The replay's on_sched hook (sim/replay.h): installs the observer on `sched`. */
void gs_explain_scores_install(void *ctx, struct gs_sched *sched);
/* Print the binding cycle's scores of the winner beside the runner-up, or a line saying why
 * there are none. */
void gs_explain_scores_print(const struct gs_explain_scores *s, const struct gs_world *w, FILE *out);

/* Shared formatting. */
/* The sentence for a pod whose binding differs between the trace and the replay, into buf (size
 * n): trace_us / replay_us the binding time (µs) in each, -1 when not bound by at_us (µs), e.g.
 * "pod 'p' was bound at 1m0s in the trace, at 2m0s in the replay", "pod 'p' was bound at 1m0s in
 * the trace, but not by 10m0s in the replay", "pod 'p' was not bound by 10m0s in the trace, but
 * at 1m0s in the replay". */
void gs_explain_binding_differs(const char *pod, int64_t trace_us, int64_t replay_us, int64_t at_us, char *buf,
                                size_t n);

void gs_explain_cpu(int64_t m, char *buf, size_t n);      /* "4", "500m" */
void gs_explain_bytes(int64_t b, char *buf, size_t n);    /* "192Gi", "512Mi", "1000" */
const char *gs_explain_effect(int effect);                /* "NoSchedule", ... */
/* `s` quoted for a POSIX shell when it needs it ('...'), into buf. */
void gs_explain_shell_quote(const char *s, char *buf, size_t n);

#endif
