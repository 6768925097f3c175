/* Kueue quota arithmetic and flavor assignment (models/admission/kueue.h).
 *
 * Upstream: kubernetes-sigs/kueue pkg/cache (resource_node.go: guaranteedQuota, available,
 * potentialAvailable, addUsage), pkg/scheduler/flavorassigner/flavorassigner.go
 * (findFlavorForPodSets, checkFlavorForPodSets, fitsResourceQuota, Status.Message). Cohorts
 * are flat: a ClusterQueue's parent is its cohort, which has no parent, so the recursion of
 * resource_node.go is one level deep here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/admission/kueue.h"

void gs_kueue_config_defaults(struct gs_kueue_config *c)
{
    memset(c, 0, sizeof *c);
    c->pods_ready_timeout = GS_SEC(300);
    c->backoff_base_s = 60;
    c->backoff_max_s = 3600;
    c->backoff_limit_count = -1;
}

void gs_kueue_spec_resolve(struct gs_kueue_spec *s)
{
    for (int i = 0; i < s->nflavors; i++) {
        struct gs_kueue_flavor *f = &s->flavors[i];
        f->topology = -1;
        for (int t = 0; f->topology_name && t < s->ntopologies; t++)
            if (strcmp(s->topologies[t].name, f->topology_name) == 0)
                f->topology = t;
    }
    for (int c = 0; c < s->ncqs; c++) {
        struct gs_kueue_cq *cq = &s->cqs[c];
        cq->active = true;
        cq->missing = NULL;
        for (int g = 0; g < cq->ngroups; g++)
            for (int k = 0; k < cq->groups[g].nflavors; k++) {
                struct gs_kueue_flavor_quotas *fq = &cq->groups[g].flavors[k];
                fq->flavor = gs_kueue_find_flavor(s, fq->name);
                if (fq->flavor < 0 && cq->active) {
                    cq->active = false;
                    cq->missing = fq->name;
                } else if (fq->flavor >= 0 && cq->active && s->flavors[fq->flavor].topology_name &&
                           s->flavors[fq->flavor].topology < 0) {
                    cq->active = false;
                    cq->missing = s->flavors[fq->flavor].topology_name;
                }
            }
    }
    for (int i = 0; i < s->nlqs; i++)
        s->lqs[i].cq = gs_kueue_find_cq(s, s->lqs[i].cluster_queue);
}

int gs_kueue_find_flavor(const struct gs_kueue_spec *s, const char *name)
{
    for (int i = 0; s && i < s->nflavors; i++)
        if (strcmp(s->flavors[i].name, name) == 0)
            return i;
    return -1;
}

int gs_kueue_find_cq(const struct gs_kueue_spec *s, const char *name)
{
    for (int i = 0; s && i < s->ncqs; i++)
        if (strcmp(s->cqs[i].name, name) == 0)
            return i;
    return -1;
}

int gs_kueue_find_lq(const struct gs_kueue_spec *s, const char *namespace_, const char *name)
{
    for (int i = 0; s && i < s->nlqs; i++)
        if (strcmp(s->lqs[i].name, name) == 0 && strcmp(s->lqs[i].namespace_, namespace_) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------------ quota tables */

static size_t ix(const struct gs_kueue_quota *q, int cq, int f, int r)
{
    return ((size_t)cq * (size_t)q->nflavors + (size_t)f) * GS_RES_MAX + (size_t)r;
}

int gs_kueue_quota_init(struct gs_kueue_quota *q, const struct gs_kueue_spec *s)
{
    memset(q, 0, sizeof *q);
    q->spec = s;
    q->ncq = s->ncqs;
    q->nflavors = s->nflavors;
    size_t n = (size_t)(q->ncq ? q->ncq : 1) * (size_t)(q->nflavors ? q->nflavors : 1) * GS_RES_MAX;
    q->defined = gs_calloc(n, sizeof *q->defined);
    q->nominal = gs_calloc(n, sizeof *q->nominal);
    q->borrowing_limit = gs_malloc(n * sizeof *q->borrowing_limit);
    q->lending_limit = gs_malloc(n * sizeof *q->lending_limit);
    q->usage = gs_calloc(n, sizeof *q->usage);
    q->cohort = gs_malloc(sizeof *q->cohort * (size_t)(q->ncq ? q->ncq : 1));
    if (!q->defined || !q->nominal || !q->borrowing_limit || !q->lending_limit || !q->usage || !q->cohort) {
        gs_kueue_quota_free(q);
        return GS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        q->borrowing_limit[i] = q->lending_limit[i] = -1;
    for (int c = 0; c < q->ncq; c++) {
        const struct gs_kueue_cq *cq = &s->cqs[c];
        q->cohort[c] = -1;
        if (cq->cohort) {
            for (int o = 0; o < c && q->cohort[c] < 0; o++)
                if (s->cqs[o].cohort && strcmp(s->cqs[o].cohort, cq->cohort) == 0)
                    q->cohort[c] = q->cohort[o];
            if (q->cohort[c] < 0)
                q->cohort[c] = q->ncohorts++;
        }
        for (int g = 0; g < cq->ngroups; g++)
            for (int fi = 0; fi < cq->groups[g].nflavors; fi++) {
                const struct gs_kueue_flavor_quotas *fq = &cq->groups[g].flavors[fi];
                for (int k = 0; fq->flavor >= 0 && k < fq->nres; k++) {
                    size_t at = ix(q, c, fq->flavor, fq->res[k].res);
                    q->defined[at] = true;
                    q->nominal[at] = fq->res[k].nominal;
                    q->borrowing_limit[at] = fq->res[k].borrowing_limit;
                    q->lending_limit[at] = fq->res[k].lending_limit;
                }
            }
    }
    return 0;
}

void gs_kueue_quota_free(struct gs_kueue_quota *q)
{
    gs_free(q->defined);
    gs_free(q->nominal);
    gs_free(q->borrowing_limit);
    gs_free(q->lending_limit);
    gs_free(q->usage);
    gs_free(q->cohort);
    memset(q, 0, sizeof *q);
}

int64_t gs_kueue_guaranteed(const struct gs_kueue_quota *q, int cq, int f, int r)
{
    size_t at = ix(q, cq, f, r);
    if (q->lending_limit[at] < 0)
        return 0;
    int64_t g = q->nominal[at] - q->lending_limit[at];
    return g > 0 ? g : 0;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The cohort's SubtreeQuota and Usage for (f, r): what its members lend and what they use
 * beyond their guaranteed quota (resource_node.go accumulateFromChild). */
static void cohort_totals(const struct gs_kueue_quota *q, int cohort, int f, int r, int64_t *subtree, int64_t *used)
{
    *subtree = *used = 0;
    for (int c = 0; c < q->ncq; c++) {
        if (q->cohort[c] != cohort)
            continue;
        size_t at = ix(q, c, f, r);
        int64_t g = gs_kueue_guaranteed(q, c, f, r);
        *subtree += q->nominal[at] - g;
        *used += max64(0, q->usage[at] - g);
    }
}

int64_t gs_kueue_available(const struct gs_kueue_quota *q, int cq, int f, int r)
{
    size_t at = ix(q, cq, f, r);
    if (q->cohort[cq] < 0)
        return q->nominal[at] - q->usage[at];
    int64_t g = gs_kueue_guaranteed(q, cq, f, r);
    int64_t sub, used;
    cohort_totals(q, q->cohort[cq], f, r, &sub, &used);
    int64_t parent = sub - used;
    if (q->borrowing_limit[at] >= 0) {
        int64_t stored = q->nominal[at] - g;
        int64_t used_in_parent = max64(0, q->usage[at] - g);
        parent = min64(stored - used_in_parent + q->borrowing_limit[at], parent);
    }
    return max64(0, g - q->usage[at]) + parent;
}

int64_t gs_kueue_potential_available(const struct gs_kueue_quota *q, int cq, int f, int r)
{
    size_t at = ix(q, cq, f, r);
    if (q->cohort[cq] < 0)
        return q->nominal[at];
    int64_t sub, used;
    cohort_totals(q, q->cohort[cq], f, r, &sub, &used);
    int64_t avail = gs_kueue_guaranteed(q, cq, f, r) + sub;
    if (q->borrowing_limit[at] >= 0)
        avail = min64(q->nominal[at] + q->borrowing_limit[at], avail);
    return avail;
}

void gs_kueue_usage_apply(struct gs_kueue_quota *q, int cq, const struct gs_kueue_usage *u, int sign)
{
    for (int i = 0; i < u->n; i++)
        q->usage[ix(q, cq, u->v[i].flavor, u->v[i].res)] += sign * u->v[i].amount;
}

int64_t gs_kueue_usage_of(const struct gs_kueue_quota *q, int cq, int f, int r)
{
    return q->usage[ix(q, cq, f, r)];
}

bool gs_kueue_cq_borrowing(const struct gs_kueue_quota *q, int cq, const struct gs_kueue_usage *frs)
{
    if (q->cohort[cq] < 0)
        return false;
    for (int i = 0; i < frs->n; i++) {
        size_t at = ix(q, cq, frs->v[i].flavor, frs->v[i].res);
        if (q->defined[at] && q->usage[at] > q->nominal[at])
            return true;
    }
    return false;
}

/* ------------------------------------------------------------------ messages */

char *gs_kueue_format_amount(const struct gs_resources *res, int r, int64_t v, char *buf, size_t n)
{
    if (r == GS_RES_CPU) {
        if (v % 1000 == 0)
            snprintf(buf, n, "%lld", (long long)(v / 1000));
        else
            snprintf(buf, n, "%lldm", (long long)v);
        return buf;
    }
    const char *name = res && r < res->n ? res->names[r] : "";
    bool bytes = r == GS_RES_MEMORY || r == GS_RES_EPHEMERAL || strncmp(name, "hugepages-", 10) == 0;
    if (bytes && v != 0) {
        static const char *const suffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        int k = -1;
        int64_t m = v;
        while (k < 5 && m % 1024 == 0) {
            m /= 1024;
            k++;
        }
        if (k >= 0) {
            snprintf(buf, n, "%lld%s", (long long)m, suffix[k]);
            return buf;
        }
    }
    snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

/* Reasons collected while assigning: sorted and joined at the end (Status.Message). */
struct reasons {
    char text[24][256];
    int n;
};

static void add_reason(struct reasons *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_reason(struct reasons *rs, const char *fmt, ...)
{
    if (rs->n >= (int)(sizeof rs->text / sizeof rs->text[0]))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rs->text[rs->n++], sizeof rs->text[0], fmt, ap);
    va_end(ap);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void join_reasons(struct reasons *rs, char *out, size_t n)
{
    qsort(rs->text, (size_t)rs->n, sizeof rs->text[0], cmp_str);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < rs->n && used + 1 < n; i++) {
        int k = snprintf(out + used, n - used, "%s%s", i ? ", " : "", rs->text[i]);
        if (k < 0)
            break;
        used += (size_t)k < n - used ? (size_t)k : n - used - 1;
    }
}

/* ------------------------------------------------------------------ flavor assignment */

static const char *effect_name(enum gs_effect e)
{
    switch (e) {
    case GS_EFFECT_NO_SCHEDULE: return "NoSchedule";
    case GS_EFFECT_PREFER_NO_SCHEDULE: return "PreferNoSchedule";
    case GS_EFFECT_NO_EXECUTE: return "NoExecute";
    default: return "";
    }
}

/* checkFlavorForPodSets: the flavor's NoSchedule/NoExecute taints must be tolerated by the
 * pod's tolerations plus the flavor's, and the pod's nodeSelector must agree with the
 * flavor's nodeLabels on the keys the flavor sets. (Required node affinity terms are not
 * matched against flavors.) */
static bool flavor_matches(const struct gs_kueue_flavor *fl, const struct gs_pod_template *t, struct reasons *rs)
{
    for (int i = 0; i < fl->nnode_taints; i++) {
        const struct gs_taint *taint = &fl->node_taints[i];
        if (taint->effect != GS_EFFECT_NO_SCHEDULE && taint->effect != GS_EFFECT_NO_EXECUTE)
            continue;
        bool ok = false;
        for (int k = 0; t && k < t->ntolerations && !ok; k++)
            ok = gs_toleration_tolerates(&t->tolerations[k], taint);
        for (int k = 0; k < fl->ntolerations && !ok; k++)
            ok = gs_toleration_tolerates(&fl->tolerations[k], taint);
        if (!ok) {
            /* The upstream message formats a corev1.Taint value with %s: its fields. */
            add_reason(rs, "untolerated taint {%s %s %s <nil>} in flavor %s", taint->key, taint->value,
                       effect_name(taint->effect), fl->name);
            return false;
        }
    }
    for (int i = 0; t && i < t->node_selector.n; i++) {
        const char *want = gs_labels_get(&fl->node_labels, t->node_selector.kv[i].key);
        if (want && strcmp(want, t->node_selector.kv[i].value) != 0) {
            add_reason(rs, "flavor %s doesn't match node affinity", fl->name);
            return false;
        }
    }
    return true;
}

static int group_of(const struct gs_kueue_cq *cq, int r)
{
    for (int g = 0; g < cq->ngroups; g++)
        for (int k = 0; k < cq->groups[g].ncovered; k++)
            if (cq->groups[g].covered[k] == r)
                return g;
    return -1;
}

/* fitsResourceQuota for one (flavor, resource): the mode and whether it borrows. */
static enum gs_kueue_mode fits_quota(const struct gs_kueue_quota *q, int cq, int f, int r, int64_t val,
                                     const struct gs_resources *res, struct reasons *rs, bool *borrow)
{
    const struct gs_kueue_cq *c = &q->spec->cqs[cq];
    const char *rname = res->names[r];
    const char *fname = q->spec->flavors[f].name;
    char a[48], b[48];
    int64_t avail = gs_kueue_available(q, cq, f, r);
    int64_t maxcap = gs_kueue_potential_available(q, cq, f, r);
    size_t at = ix(q, cq, f, r);
    *borrow = q->usage[at] + val > q->nominal[at];
    if (val > maxcap) {
        char cbuf[48];
        add_reason(rs,
                   "insufficient quota for %s in flavor %s, previously considered podsets requests (%s) + current "
                   "podset request (%s) > maximum capacity (%s)",
                   rname, fname, gs_kueue_format_amount(res, r, 0, a, sizeof a),
                   gs_kueue_format_amount(res, r, val, b, sizeof b), gs_kueue_format_amount(res, r, maxcap, cbuf, sizeof cbuf));
        return GS_KQ_NOFIT;
    }
    if (val <= avail)
        return GS_KQ_FIT;
    add_reason(rs, "insufficient unused quota for %s in flavor %s, %s more needed", rname, fname,
               gs_kueue_format_amount(res, r, val - avail, a, sizeof a));
    /* Preemption may help when the request fits in the nominal quota (reclaim or preempt
     * within the ClusterQueue), or with borrowWithinCohort. */
    bool may_reclaim = q->cohort[cq] >= 0 && q->usage[at] + val <= q->nominal[at];
    if (q->nominal[at] >= val || may_reclaim || c->borrow_within_cohort)
        return GS_KQ_PREEMPT;
    return GS_KQ_NOFIT;
}

void gs_kueue_assign(const struct gs_kueue_quota *q, int cq, const struct gs_resources *res,
                     const struct gs_pod_template *tmpl, const struct gs_resvec *per_pod, int count,
                     struct gs_kueue_assignment *out)
{
    memset(out, 0, sizeof *out);
    for (int r = 0; r < GS_RES_MAX; r++)
        out->flavor_of_res[r] = -1;
    out->flavor = -1;
    out->mode = GS_KQ_FIT;
    const struct gs_kueue_cq *c = &q->spec->cqs[cq];
    struct reasons rs = {.n = 0};

    /* The pod set's requests: per-pod amounts x count; `pods` counts pods when covered. */
    int64_t total[GS_RES_MAX] = {0};
    for (int r = 0; r < res->n && r < GS_RES_MAX; r++)
        if (r != GS_RES_PODS && per_pod->v[r] > 0)
            total[r] = per_pod->v[r] * count;
    if (group_of(c, GS_RES_PODS) >= 0)
        total[GS_RES_PODS] = count;

    bool group_done[64] = {false};
    for (int r = 0; r < res->n && r < GS_RES_MAX; r++) {
        if (total[r] == 0)
            continue;
        int g = group_of(c, r);
        if (g < 0) {
            add_reason(&rs, "resource %s unavailable in ClusterQueue", res->names[r]);
            out->mode = GS_KQ_NOFIT;
            break;
        }
        if (g < 64 && group_done[g])
            continue;
        if (g < 64)
            group_done[g] = true;
        const struct gs_kueue_resource_group *grp = &c->groups[g];
        struct reasons grs = {.n = 0};
        int best = -1;
        enum gs_kueue_mode best_mode = GS_KQ_NOFIT;
        bool best_borrow = true;
        for (int fi = 0; fi < grp->nflavors; fi++) {
            int f = grp->flavors[fi].flavor;
            if (f < 0)
                continue;
            if (!flavor_matches(&q->spec->flavors[f], tmpl, &grs))
                continue;
            enum gs_kueue_mode mode = GS_KQ_FIT;
            bool borrows = false;
            for (int k = 0; k < grp->ncovered && mode != GS_KQ_NOFIT; k++) {
                int rr = grp->covered[k];
                if (total[rr] == 0)
                    continue;
                bool b;
                enum gs_kueue_mode m = fits_quota(q, cq, f, rr, total[rr], res, &grs, &b);
                borrows = borrows || b;
                if (m < mode)
                    mode = m;
            }
            if (mode == GS_KQ_NOFIT)
                continue;
            /* isPreferred (BorrowingOverPreemption): a better mode, or the same with less borrowing. */
            if (best < 0 || mode > best_mode || (mode == best_mode && !borrows && best_borrow)) {
                best = f;
                best_mode = mode;
                best_borrow = borrows;
            }
            if (mode == GS_KQ_FIT)
                break; /* whenCanBorrow: Borrow stops the search; Preempt tries the next flavor */
        }
        if (best < 0) {
            for (int i = 0; i < grs.n; i++)
                add_reason(&rs, "%s", grs.text[i]);
            out->mode = GS_KQ_NOFIT;
            break;
        }
        if (best_mode != GS_KQ_FIT)
            for (int i = 0; i < grs.n; i++)
                add_reason(&rs, "%s", grs.text[i]);
        if (best_mode < out->mode)
            out->mode = best_mode;
        out->borrows = out->borrows || best_borrow;
        if (out->flavor < 0)
            out->flavor = best;
        for (int k = 0; k < grp->ncovered; k++) {
            int rr = grp->covered[k];
            if (total[rr] == 0)
                continue;
            out->flavor_of_res[rr] = best;
            out->usage.v[out->usage.n++] = (struct gs_kueue_fr_amount){best, rr, total[rr]};
            if (best_mode == GS_KQ_PREEMPT && total[rr] > gs_kueue_available(q, cq, best, rr))
                out->need_preemption.v[out->need_preemption.n++] = (struct gs_kueue_fr_amount){best, rr, total[rr]};
        }
    }
    if (out->mode == GS_KQ_FIT)
        rs.n = 0;
    join_reasons(&rs, out->reasons, sizeof out->reasons);
}
