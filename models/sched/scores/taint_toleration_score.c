/* TaintToleration score: kubernetes pkg/scheduler/framework/plugins/tainttoleration/
 * taint_toleration.go (PreScore, Score, NormalizeScore). The raw score is the number of the
 * node's PreferNoSchedule taints not tolerated by the pod's tolerations with effect
 * PreferNoSchedule or empty; NormalizeScore is helper.DefaultNormalizeScore(100, reverse=true)
 * over the feasible nodes (fewer untolerated taints score higher; all 0 → all 100). */
#include "models/sched/sched_internal.h"

int64_t gs_score_taint_raw(const struct gs_podctx *pc, const struct gs_node *n)
{
    const struct gs_pod_template *t = pc->t;
    int64_t count = 0;
    for (int i = 0; i < n->ntaints; i++) {
        const struct gs_taint *taint = &n->taints[i];
        if (taint->effect != GS_EFFECT_PREFER_NO_SCHEDULE)
            continue;
        bool tolerated = false;
        for (int j = 0; j < t->ntolerations && !tolerated; j++) {
            const struct gs_toleration *tol = &t->tolerations[j];
            if (tol->effect != GS_EFFECT_ALL && tol->effect != GS_EFFECT_PREFER_NO_SCHEDULE)
                continue;
            tolerated = gs_toleration_tolerates(tol, taint);
        }
        if (!tolerated)
            count++;
    }
    return count;
}

/* helper/normalize_score.go DefaultNormalizeScore with maxPriority 100. */
void gs_score_normalize(int64_t *scores, int n, bool reverse)
{
    int64_t max = 0;
    for (int i = 0; i < n; i++)
        if (scores[i] > max)
            max = scores[i];
    if (max == 0) {
        if (reverse)
            for (int i = 0; i < n; i++)
                scores[i] = 100;
        return;
    }
    for (int i = 0; i < n; i++) {
        int64_t sc = 100 * scores[i] / max;
        scores[i] = reverse ? 100 - sc : sc;
    }
}
