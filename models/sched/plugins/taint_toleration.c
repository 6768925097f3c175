/* TaintToleration: kubernetes pkg/scheduler/framework/plugins/tainttoleration/
 * taint_toleration.go (Filter, PreScore, Score, NormalizeScore).
 *
 * - Filter, with v1helper.FindMatchingUntoleratedTaint and helper.DoNotScheduleTaintsFilterFunc:
 *   the first taint, in the node's order, with effect NoSchedule or NoExecute that no
 *   toleration of the pod tolerates rejects the node (UnschedulableAndUnresolvable).
 *   PreferNoSchedule taints only matter for scoring. The reason text (with the taint, or
 *   generic from 1.35) is built by message.c.
 * - Score: the number of the node's PreferNoSchedule taints not tolerated by the pod's
 *   tolerations with effect PreferNoSchedule or empty; NormalizeScore is
 *   helper.DefaultNormalizeScore(100, reverse=true) over the feasible nodes (fewer untolerated
 *   taints score higher; all 0 -> all 100).
 * Both read only the template's tolerations and the node's taints: static (cache.c). */
#include "models/sched/sched_internal.h"

static void filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    (void)adj;
    const struct gs_node *n = &s->w->nodes[node];
    const struct gs_pod_template *t = pc->t;
    for (int i = 0; i < n->ntaints; i++) {
        const struct gs_taint *taint = &n->taints[i];
        if (taint->effect != GS_EFFECT_NO_SCHEDULE && taint->effect != GS_EFFECT_NO_EXECUTE)
            continue;
        bool tolerated = false;
        for (int j = 0; j < t->ntolerations && !tolerated; j++)
            tolerated = gs_toleration_tolerates(&t->tolerations[j], taint);
        if (tolerated)
            continue;
        st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
        st->plugin = GS_PL_TAINT_TOLERATION;
        st->kind = GS_R_TAINT;
        st->taint = (int16_t)i;
        return;
    }
}

static int64_t raw_score(const struct gs_pod_template *t, const struct gs_node *n)
{
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

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = raw_score(pc->t, &s->w->nodes[nodes[i]]);
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

static void normalize(struct gs_sched *s, int64_t *scores, int n)
{
    (void)s;
    gs_score_normalize(scores, n, true);
}

const struct gs_sched_plugin gs_plugin_taint_toleration = {
    .name = "TaintToleration",
    .id = GS_PL_TAINT_TOLERATION,
    .points = GS_EP_BIT(GS_EP_FILTER) | GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_STATIC_FILTER | GS_PLF_STATIC_SCORE,
    .filter = filter,
    .score = score,
    .normalize = normalize,
};
