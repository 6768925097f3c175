/* Kueue queue ordering, requeue backoff and classical preemption (models/admission/kueue.h).
 *
 * Upstream: kubernetes-sigs/kueue pkg/queue/cluster_queue.go (queueOrdering),
 * pkg/workload/workload.go (UpdateRequeueState), pkg/controller/core/workload_controller.go
 * (triggerDeactivationOrBackoffRequeue), pkg/scheduler/preemption/preemption.go (GetTargets,
 * findCandidates, minimalPreemptions, fillBackWorkloads, workloadFits,
 * queueUnderNominalInAllRequestedResources, canBorrowWithinCohort) and
 * preemption/common/ordering.go (CandidatesOrdering). Fair sharing is not modelled. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/admission/kueue.h"

int gs_kueue_queue_cmp(const struct gs_kueue_entry *a, const struct gs_kueue_entry *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    if (a->queue_ts != b->queue_ts)
        return a->queue_ts < b->queue_ts ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return 0;
}

gs_time gs_kueue_requeue_backoff(int64_t base_s, int64_t max_s, int k)
{
    int64_t d = base_s;
    for (int i = 1; i < k && d < max_s; i++)
        d *= 2;
    if (d > max_s)
        d = max_s;
    return GS_SEC(d);
}

bool gs_kueue_requeue_exhausted(int limit, int count)
{
    return limit >= 0 && count + 1 > limit;
}

/* ------------------------------------------------------------------ preemption */

struct search {
    struct gs_kueue_quota *q;
    const struct gs_kueue_entry *wl;
    const struct gs_kueue_assignment *a;
    const struct gs_kueue_entry *adm;
};

static bool uses_resources(const struct gs_kueue_entry *e, const struct gs_kueue_usage *frs)
{
    for (int i = 0; i < e->usage.n; i++)
        for (int k = 0; k < frs->n; k++)
            if (e->usage.v[i].flavor == frs->v[k].flavor && e->usage.v[i].res == frs->v[k].res)
                return true;
    return false;
}

/* workloadFits: every (flavor, resource) of the request fits the unused quota the
 * ClusterQueue can reach; without borrowing, also its nominal quota. */
static bool fits(const struct search *s, bool allow_borrowing)
{
    const struct gs_kueue_quota *q = s->q;
    int cq = s->wl->cq;
    for (int i = 0; i < s->a->usage.n; i++) {
        const struct gs_kueue_fr_amount *fr = &s->a->usage.v[i];
        int64_t used = gs_kueue_usage_of(q, cq, fr->flavor, fr->res);
        size_t at = ((size_t)cq * (size_t)q->nflavors + (size_t)fr->flavor) * GS_RES_MAX + (size_t)fr->res;
        if ((q->cohort[cq] < 0 || !allow_borrowing) && used + fr->amount > q->nominal[at])
            return false;
        if (fr->amount > gs_kueue_available(q, cq, fr->flavor, fr->res))
            return false;
    }
    return true;
}

static bool under_nominal_in_all(const struct search *s)
{
    const struct gs_kueue_quota *q = s->q;
    int cq = s->wl->cq;
    for (int i = 0; i < s->a->usage.n; i++) {
        const struct gs_kueue_fr_amount *fr = &s->a->usage.v[i];
        size_t at = ((size_t)cq * (size_t)q->nflavors + (size_t)fr->flavor) * GS_RES_MAX + (size_t)fr->res;
        if (q->usage[at] >= q->nominal[at])
            return false;
    }
    return true;
}

static void take(const struct search *s, int i, int sign)
{
    gs_kueue_usage_apply(s->q, s->adm[i].cq, &s->adm[i].usage, sign);
}

/* minimalPreemptions + fillBackWorkloads over candidates cand[0..n); the result in out. */
static int minimal(const struct search *s, const int *cand, int n, bool allow_borrowing, const int32_t *threshold,
                   int *out)
{
    int nt = 0;
    bool ok = false;
    for (int k = 0; k < n; k++) {
        const struct gs_kueue_entry *e = &s->adm[cand[k]];
        bool other = e->cq != s->wl->cq;
        if (other && !gs_kueue_cq_borrowing(s->q, e->cq, &s->a->need_preemption))
            continue;
        if (other && threshold && e->priority >= *threshold)
            allow_borrowing = false;
        take(s, cand[k], -1);
        out[nt++] = cand[k];
        if (fits(s, allow_borrowing)) {
            ok = true;
            break;
        }
    }
    if (!ok) {
        for (int k = 0; k < nt; k++)
            take(s, out[k], +1);
        return 0;
    }
    /* Add back, in reverse order, the ones not needed (the last one stays). */
    for (int k = nt - 2; k >= 0; k--) {
        take(s, out[k], +1);
        if (fits(s, allow_borrowing)) {
            out[k] = out[nt - 1];
            nt--;
        } else {
            take(s, out[k], -1);
        }
    }
    for (int k = 0; k < nt; k++)
        take(s, out[k], +1);
    return nt;
}

static const struct search *sort_ctx;

/* CandidatesOrdering: other ClusterQueues first, lower priority first, admitted more
 * recently first, then creation order. */
static int cand_cmp(const void *pa, const void *pb)
{
    const struct gs_kueue_entry *a = &sort_ctx->adm[*(const int *)pa], *b = &sort_ctx->adm[*(const int *)pb];
    int cq = sort_ctx->wl->cq;
    bool as = a->cq == cq, bs = b->cq == cq;
    if (as != bs)
        return as ? 1 : -1;
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->reserved_at != b->reserved_at)
        return a->reserved_at > b->reserved_at ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int gs_kueue_preemption_targets(struct gs_kueue_quota *q, const struct gs_kueue_entry *wl,
                                const struct gs_kueue_assignment *a, const struct gs_kueue_entry *admitted,
                                int nadmitted, int *targets, const char **reasons, int *ntargets)
{
    *ntargets = 0;
    if (nadmitted == 0 || a->mode != GS_KQ_PREEMPT)
        return 0;
    const struct gs_kueue_cq *c = &q->spec->cqs[wl->cq];
    struct search s = {.q = q, .wl = wl, .a = a, .adm = admitted};
    int *cand = gs_malloc(sizeof *cand * (size_t)nadmitted * 2);
    if (!cand)
        return GS_ENOMEM;
    int *same = cand + nadmitted;
    int n = 0, nsame = 0;
    if (c->within_cluster_queue != GS_KQ_NEVER) {
        bool same_prio = c->within_cluster_queue == GS_KQ_LOWER_OR_NEWER_EQUAL;
        for (int i = 0; i < nadmitted; i++) {
            const struct gs_kueue_entry *e = &admitted[i];
            if (e->cq != wl->cq || e->priority > wl->priority)
                continue;
            if (e->priority == wl->priority && !(same_prio && wl->queue_ts < e->queue_ts))
                continue;
            if (uses_resources(e, &a->need_preemption))
                cand[n++] = i;
        }
    }
    if (q->cohort[wl->cq] >= 0 && c->reclaim_within_cohort != GS_KQ_NEVER) {
        for (int i = 0; i < nadmitted; i++) {
            const struct gs_kueue_entry *e = &admitted[i];
            if (e->cq == wl->cq || q->cohort[e->cq] != q->cohort[wl->cq] ||
                !gs_kueue_cq_borrowing(q, e->cq, &a->need_preemption))
                continue;
            if (c->reclaim_within_cohort == GS_KQ_LOWER_PRIORITY && e->priority >= wl->priority)
                continue;
            if (uses_resources(e, &a->need_preemption))
                cand[n++] = i;
        }
    }
    if (n == 0) {
        gs_free(cand);
        return 0;
    }
    sort_ctx = &s;
    qsort(cand, (size_t)n, sizeof *cand, cand_cmp);
    sort_ctx = NULL;
    for (int k = 0; k < n; k++)
        if (admitted[cand[k]].cq == wl->cq)
            same[nsame++] = cand[k];

    int nt = 0;
    if (nsame == n) {
        nt = minimal(&s, cand, n, true, NULL, targets);
    } else if (c->borrow_within_cohort) {
        int32_t threshold = wl->priority;
        if (c->has_max_priority_threshold && c->max_priority_threshold < threshold)
            threshold = c->max_priority_threshold + 1;
        if (!under_nominal_in_all(&s)) {
            int m = 0;
            for (int k = 0; k < n; k++)
                if (admitted[cand[k]].cq == wl->cq || admitted[cand[k]].priority < threshold)
                    cand[m++] = cand[k];
            n = m;
        }
        nt = minimal(&s, cand, n, true, &threshold, targets);
    } else {
        if (under_nominal_in_all(&s))
            nt = minimal(&s, cand, n, false, NULL, targets);
        if (nt == 0)
            nt = minimal(&s, same, nsame, true, NULL, targets);
    }
    for (int k = 0; k < nt; k++)
        reasons[k] = admitted[targets[k]].cq == wl->cq ? "InClusterQueue" : "InCohortReclamation";
    *ntargets = nt;
    gs_free(cand);
    return 0;
}
