/* NodeAffinity score: kubernetes pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
 * (PreScore, Score, NormalizeScore) with component-helpers nodeaffinity
 * PreferredSchedulingTerms.Score. The raw score is the sum of the weights of the preferred
 * terms that match the node (terms with weight 0, empty terms and terms that fail to parse
 * never count); PreScore returns Skip when the pod has no preferred terms (gpusim has no
 * profile addedAffinity); NormalizeScore is DefaultNormalizeScore(100, reverse=false). */
#include "models/sched/sched_internal.h"

bool gs_score_affinity_skip(const struct gs_podctx *pc)
{
    return pc->t->affinity.npreferred == 0;
}

int64_t gs_score_affinity_raw(const struct gs_podctx *pc, const struct gs_node *n)
{
    const struct gs_node_affinity *a = &pc->t->affinity;
    int64_t sum = 0;
    for (int i = 0; i < a->npreferred; i++)
        if (a->preferred[i].weight != 0 && gs_term_matches(&a->preferred[i].term, n))
            sum += a->preferred[i].weight;
    return sum;
}
