/* TaintToleration filter: kubernetes pkg/scheduler/framework/plugins/tainttoleration/
 * taint_toleration.go Filter with v1helper.FindMatchingUntoleratedTaint and
 * helper.DoNotScheduleTaintsFilterFunc: the first taint, in the node's order, with effect
 * NoSchedule or NoExecute that no toleration of the pod tolerates rejects the node
 * (UnschedulableAndUnresolvable). PreferNoSchedule taints only matter for scoring.
 * The reason text (with the taint, or generic from 1.35) is built by message.c. */
#include "models/sched/sched_internal.h"

void gs_filter_taint_toleration(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                const struct gs_adj *adj, struct gs_fstat *st)
{
    (void)s;
    (void)adj;
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
