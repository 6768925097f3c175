/* BestFitScore: the FGD paper's BestFit policy (hkust-adsl/kubernetes-scheduler-simulator
 * pkg/simulator/plugin/best_fit_score.go): floor(100 (1 - [0.5 (cpu left - cpu) / 128000 +
 * 0.5 (gpu left - gpu) / 8000])), min-max normalised over the feasible nodes (plugin_utils.go
 * NormalizeScore). Out of tree, off by default; scores with models/fgd/policies.c over the FGD
 * view (fgd_view.c). */
#include "models/fgd/fgd.h"
#include "models/fgd/fgd_world.h"
#include "models/sched/sched_internal.h"

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    gs_fgd_policy_score(s, pc, nodes, n, out, gs_fgd_score_bestfit_raw);
}

static void normalize(struct gs_sched *s, int64_t *scores, int n)
{
    (void)s;
    gs_fgd_normalize_scores(scores, n);
}

const struct gs_sched_plugin gs_plugin_best_fit_score = {
    .name = "BestFitScore",
    .id = GS_PL_BEST_FIT_SCORE,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_OUT_OF_TREE,
    .init = gs_fgd_policy_init,
    .fini = gs_fgd_state_fini,
    .pre_score = gs_fgd_policy_pre_score,
    .score = score,
    .normalize = normalize,
};
