/* DefaultPreemption (PostFilter): kubernetes pkg/scheduler/framework/plugins/defaultpreemption/
 * default_preemption.go (PodEligibleToPreemptOthers, SelectVictimsOnNode,
 * GetOffsetAndNumCandidates) and pkg/scheduler/framework/preemption/preemption.go (Preempt,
 * findCandidates, nodesWherePreemptionMightHelp, DryRunPreemption, SelectCandidate,
 * pickOneNodeForPreemption, prepareCandidate's nominated-pod clearing) and
 * pkg/scheduler/util (MoreImportantPod, GetEarliestPodStartTime).
 *
 * - Not eligible: preemptionPolicy Never; or the pod's nominated node (unless this cycle found
 *   it UnschedulableAndUnresolvable) holds a lower-priority pod terminating because of
 *   preemption (struct gs_pod.terminating).
 * - Potential nodes: only those whose filter status is Unschedulable; every other node is
 *   "Preemption is not helpful for scheduling".
 * - Dry run per potential node, from a random offset (offset 0 with tiebreak_first), stopping
 *   once max(10 % of the potential nodes, 100) (capped) candidates exist: remove every pod with
 *   a strictly lower priority; none → "No preemption victims found for incoming pod"; still
 *   does not fit (filters with nominated pods) → that node's filter status; else add the pods
 *   back by importance (higher priority, then earlier start) and keep as victims those that
 *   do not fit back.
 * - Choice: lowest highest-victim priority, then smallest Σ(priority + 2^31), then fewest
 *   victims, then latest earliest start time among the highest-priority victims, then first in
 *   the dry-run order (upstream walks a Go map there: random). gpusim has no
 *   PodDisruptionBudgets, so the PDB rules never decide.
 *
 * Cost: a node's lowest pod priority (gs_node.min_prio, kept by the world) says in O(1) that it
 * has no victims; when no potential node has any, the dry run cannot find a candidate and would
 * visit every potential node, so its statuses ("No preemption victims", one per node) are
 * counted without visiting them (the offset is still drawn). The statuses are kept only as
 * reason counts (s->ph) for the text.
 */
#include <string.h>

#include "base/error.h"
#include "models/sched/sched_internal.h"

/* GetPodStartTime: a pod that has not started counts as started "now", after every start. */
static gs_time start_of(const struct gs_pod *p)
{
    return p->started_us >= 0 ? p->started_us : GS_TIME_MAX;
}

/* MoreImportantPod: higher priority first, then the earlier start time; then the pod index so
 * the order is total (upstream's sort.Slice leaves equal pods in an unspecified order). */
static bool more_important(const struct gs_world *w, int ia, int ib)
{
    const struct gs_pod *pa = &w->pods[ia], *pb = &w->pods[ib];
    if (pa->tmpl->priority != pb->tmpl->priority)
        return pa->tmpl->priority > pb->tmpl->priority;
    gs_time sa = start_of(pa), sb = start_of(pb);
    if (sa != sb)
        return sa < sb;
    return ia < ib;
}

/* Insertion sort: the pods of one node are few. */
static void sort_by_importance(const struct gs_world *w, int *v, int n)
{
    for (int i = 1; i < n; i++) {
        int x = v[i], j = i;
        while (j > 0 && more_important(w, x, v[j - 1])) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static void adj_pod(struct gs_adj *a, const struct gs_pod *p, int nres, int sign)
{
    a->npods += sign;
    for (int r = 0; r < nres; r++)
        a->req.v[r] += sign * p->tmpl->requests.v[r];
}

/* A dry-run status for a potential node (each is evaluated at most once per cycle): only its
 * reasons are kept, as counts for the "preemption: 0/N nodes are available" text. */
static void set_pst(struct gs_sched *s, const struct gs_fstat *st)
{
    gs_hcount_status(s, &s->ph, st, +1);
    s->ph_marked++;
}

/* SelectVictimsOnNode: adds a candidate, or records why the node cannot be one. */
static int select_victims(struct gs_sched *s, const struct gs_podctx *pc, int node)
{
    const struct gs_world *w = s->w;
    const struct gs_node *n = &w->nodes[node];
    struct gs_fstat st;
    int npv = 0;
    /* The node's lowest pod priority (kept by gs_world_assign/unassign) says in O(1) when no
     * pod has a strictly lower priority; only then is the pod list walked. */
#ifndef NDEBUG
    GS_ASSERT(s->m[node].min_prio == gs_node_min_priority_walk(w, node));
#endif
    if (s->m[node].min_prio < pc->prio) {
        if (gs_array_grow((void **)&s->pvict, &s->pvict_cap, n->npods + 1, sizeof *s->pvict))
            return GS_ENOMEM;
        for (int q = n->first_pod; q >= 0; q = w->pods[q].next_on_node)
            if (w->pods[q].tmpl->priority < pc->prio)
                s->pvict[npv++] = q;
    }
    if (npv == 0) {
        st = (struct gs_fstat){.code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE,
                               .plugin = GS_PL_DEFAULT_PREEMPTION,
                               .kind = GS_R_NO_VICTIMS,
                               .node = node};
        set_pst(s, &st);
        return 0;
    }
    struct gs_adj adj;
    memset(&adj, 0, sizeof adj);
    for (int i = 0; i < npv; i++)
        adj_pod(&adj, &w->pods[s->pvict[i]], pc->nres, -1);
    gs_sched_run_filters_nominated(s, pc, node, &adj, &st);
    if (st.code != GS_ST_SUCCESS) {
        set_pst(s, &st);
        return 0;
    }
    sort_by_importance(w, s->pvict, npv);
    if (gs_array_grow((void **)&s->cand_victims, &s->cand_victims_cap, s->ncand_victims + npv,
                      sizeof *s->cand_victims) ||
        gs_array_grow((void **)&s->cands, &s->cands_cap, s->ncands + 1, sizeof *s->cands))
        return GS_ENOMEM;
    int first = s->ncand_victims;
    for (int i = 0; i < npv; i++) {
        const struct gs_pod *v = &w->pods[s->pvict[i]];
        adj_pod(&adj, v, pc->nres, +1);
        gs_sched_run_filters_nominated(s, pc, node, &adj, &st);
        if (st.code != GS_ST_SUCCESS) {
            adj_pod(&adj, v, pc->nres, -1);
            s->cand_victims[s->ncand_victims++] = s->pvict[i];
        }
    }
    if (s->ncand_victims == first) {
        /* Every pod fits back: the pod fits as is, which the filters already denied. Upstream
         * reports an error status here; it cannot happen with the filters gpusim models. */
        st = (struct gs_fstat){.code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE,
                               .plugin = GS_PL_DEFAULT_PREEMPTION,
                               .kind = GS_R_NO_VICTIMS,
                               .node = node};
        set_pst(s, &st);
        return 0;
    }
    s->cands[s->ncands++] =
        (struct gs_candidate){.node = node, .first = first, .nvictims = s->ncand_victims - first};
    return 0;
}

/* The keys of pickOneNodeForPreemption's rules (without the PDB rule). */
struct cand_key {
    int32_t highest;   /* priority of the most important victim (lower is better) */
    int64_t sum;       /* Σ(priority + 2^31) (lower is better) */
    int count;         /* victims (fewer is better) */
    gs_time earliest;  /* earliest start among the highest-priority victims (later is better) */
};

static struct cand_key key_of(const struct gs_sched *s, const struct gs_candidate *c)
{
    const struct gs_world *w = s->w;
    const int *v = &s->cand_victims[c->first];
    struct cand_key k = {0};
    k.highest = w->pods[v[0]].tmpl->priority;
    k.count = c->nvictims;
    int32_t maxp = k.highest;
    k.earliest = start_of(&w->pods[v[0]]);
    for (int i = 0; i < c->nvictims; i++) {
        const struct gs_pod *p = &w->pods[v[i]];
        k.sum += (int64_t)p->tmpl->priority + ((int64_t)INT32_MAX + 1);
        if (p->tmpl->priority == maxp) {
            if (start_of(p) < k.earliest)
                k.earliest = start_of(p);
        } else if (p->tmpl->priority > maxp) {
            maxp = p->tmpl->priority;
            k.earliest = start_of(p);
        }
    }
    return k;
}

static bool better(const struct cand_key *a, const struct cand_key *b)
{
    if (a->highest != b->highest)
        return a->highest < b->highest;
    if (a->sum != b->sum)
        return a->sum < b->sum;
    if (a->count != b->count)
        return a->count < b->count;
    return a->earliest > b->earliest;
}

/* PodEligibleToPreemptOthers. */
static bool eligible(struct gs_sched *s, const struct gs_podctx *pc, enum gs_preempt_outcome *why)
{
    const struct gs_world *w = s->w;
    if (pc->t->preemption_policy == GS_PREEMPT_NEVER) {
        *why = GS_PE_NOT_ELIGIBLE_NEVER;
        return false;
    }
    int nn = w->pods[pc->pod].nominated_node;
    if (nn < 0 || nn >= w->nnodes || !w->nodes[nn].exists)
        return true;
    /* The nominated node's status this cycle: explicit, or the PreFilterResult's absent status
     * (1.31+), which is UnschedulableAndUnresolvable. */
    bool uu;
    if (gs_st_marked(s, nn))
        uu = gs_st_code(s, nn) == GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    else
        uu = s->restricted && s->cfg.k8s_minor >= 31;
    if (uu)
        return true;
    for (int q = w->nodes[nn].first_pod; q >= 0; q = w->pods[q].next_on_node) {
        const struct gs_pod *qp = &w->pods[q];
        if (qp->tmpl->priority < pc->prio && qp->terminating) {
            *why = GS_PE_NOT_ELIGIBLE_TERMINATING;
            return false;
        }
    }
    return true;
}

enum gs_preempt_outcome gs_sched_preempt(struct gs_sched *s, const struct gs_podctx *pc,
                                         struct gs_cycle_result *out)
{
    const struct gs_world *w = s->w;
    enum gs_preempt_outcome why = GS_PE_NO_CANDIDATES;
    if (!eligible(s, pc, &why))
        return why;

    /* nodesWherePreemptionMightHelp: the nodes whose status is Unschedulable; every other node
     * is "Preemption is not helpful for scheduling" (counted when the text is built). */
    gs_hcount_reset(&s->ph);
    s->ph_marked = 0;
    s->ncands = 0;
    s->ncand_victims = 0;
    /* The filter walk counted them: s->npot nodes are Unschedulable, s->npot_victims of them
     * hold a pod of lower priority. */
#ifndef NDEBUG
    int chk_pot = 0, chk_vict = 0;
    for (int i = 0; i < s->nsnap; i++) {
        int n = s->snap[i];
        if (gs_st_marked(s, n) && gs_st_code(s, n) == GS_ST_UNSCHEDULABLE) {
            chk_pot++;
            chk_vict += w->nodes[n].min_prio < pc->prio;
        }
    }
    GS_ASSERT(chk_pot == s->npot && chk_vict == s->npot_victims);
#endif
    int np = s->npot;
    if (np == 0) {
        out->clear_nomination = true;
        return GS_PE_NO_CANDIDATES;
    }

    /* GetOffsetAndNumCandidates, then the dry run. */
    int64_t want = (int64_t)np * s->cfg.min_candidate_nodes_percentage / 100;
    if (want < s->cfg.min_candidate_nodes_absolute)
        want = s->cfg.min_candidate_nodes_absolute;
    if (want > np)
        want = np;
    int offset = 0;
    if (!s->cfg.tiebreak_first && s->rng && np > 1)
        offset = (int)gs_rng_uniform_int(s->rng, GS_STREAM_TIEBREAK, (uint64_t)np);
    if (s->npot_victims == 0) {
        /* No potential node holds a pod of lower priority: the dry run would find "No
         * preemption victims" on each node it visits (all of them, as no candidate can stop it)
         * in whatever order, so the nodes are not walked. The offset was drawn all the same. */
        if (want > 0) {
            s->ph.kind[GS_R_NO_VICTIMS] = np;
            s->ph_marked = np;
        }
        out->clear_nomination = true;
        return GS_PE_NO_CANDIDATES;
    }
    /* The potential nodes in snapshot order: from the statuses of the walk, or of the summary
     * the cycle used instead (where every snapshot node has one). */
    s->npotential = 0;
    const struct gs_vsum *vs = s->cur_vs;
    for (int i = 0; i < s->nsnap; i++) {
        int n = s->snap[i];
        if (vs ? vs->v[n].code == GS_ST_UNSCHEDULABLE
               : gs_st_marked(s, n) && gs_st_code(s, n) == GS_ST_UNSCHEDULABLE)
            s->potential[s->npotential++] = n;
    }
    GS_ASSERT(s->npotential == np);
    for (int i = 0; i < np && s->ncands < want; i++) {
        if (select_victims(s, pc, s->potential[(offset + i) % np])) {
            s->oom = true;
            return GS_PE_NO_CANDIDATES;
        }
    }
    if (s->ncands == 0) {
        out->clear_nomination = true;
        return GS_PE_NO_CANDIDATES;
    }

    /* SelectCandidate. */
    int best = 0;
    struct cand_key bk = key_of(s, &s->cands[0]);
    for (int i = 1; i < s->ncands; i++) {
        struct cand_key k = key_of(s, &s->cands[i]);
        if (better(&k, &bk)) {
            best = i;
            bk = k;
        }
    }
    const struct gs_candidate *c = &s->cands[best];
    if (gs_array_grow((void **)&s->victims, &s->victims_cap, c->nvictims, sizeof *s->victims) ||
        gs_array_grow((void **)&s->lost, &s->lost_cap, s->nnominated + 1, sizeof *s->lost) ||
        gs_sched_track_nominated(s, pc->pod)) {
        s->oom = true;
        return GS_PE_NO_CANDIDATES;
    }
    memcpy(s->victims, &s->cand_victims[c->first], sizeof *s->victims * (size_t)c->nvictims);
    out->nominated_node = c->node;
    out->victims = s->victims;
    out->nvictims = c->nvictims;
    /* prepareCandidate: lower-priority pods nominated to that node lose their nomination. */
    out->lost = s->lost;
    out->nlost = 0;
    for (int i = 0; i < s->nnominated; i++) {
        int q = s->nominated[i];
        const struct gs_pod *qp = &w->pods[q];
        if (q != pc->pod && qp->nominated_node == c->node && qp->node < 0 && !qp->deleted &&
            qp->tmpl->priority < pc->prio)
            s->lost[out->nlost++] = q;
    }
    return GS_PE_CANDIDATE;
}

static void post_filter(struct gs_sched *s, const struct gs_podctx *pc, struct gs_cycle_result *out,
                        struct gs_postfilter_status *st)
{
    enum gs_preempt_outcome pe = gs_sched_preempt(s, pc, out);
    if (pe == GS_PE_CANDIDATE)
        st->code = GS_ST_SUCCESS; /* a node nominated: no PostFilter text */
    else
        st->outcome = (uint8_t)(pe + 1);
}

/* "preemption: " and why (preemption.go Preempt's status message). */
static void post_filter_text(struct gs_sched *s, const struct gs_podctx *pc, int outcome)
{
    (void)pc;
    gs_msg_add(s, "preemption: ");
    switch ((enum gs_preempt_outcome)(outcome - 1)) {
    case GS_PE_NOT_ELIGIBLE_NEVER:
        gs_msg_add(s, GS_MSG_NEVER);
        break;
    case GS_PE_NOT_ELIGIBLE_TERMINATING:
        gs_msg_add(s, GS_MSG_TERMINATING);
        break;
    case GS_PE_NO_CANDIDATES:
    case GS_PE_CANDIDATE:
        gs_msg_addf(s, "0/%d nodes are available:", s->nsnap);
        /* Every node without a dry-run status: "Preemption is not helpful for scheduling". */
        s->ph.kind[GS_R_NOT_HELPFUL] += s->nsnap - s->ph_marked;
        gs_hcount_render(s, &s->ph);
        break;
    }
}

const struct gs_sched_plugin gs_plugin_default_preemption = {
    .name = "DefaultPreemption",
    .id = GS_PL_DEFAULT_PREEMPTION,
    .points = GS_EP_BIT(GS_EP_POST_FILTER),
    .post_filter = post_filter,
    .post_filter_text = post_filter_text,
};
