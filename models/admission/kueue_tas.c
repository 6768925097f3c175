/* Kueue Topology Aware Scheduling: fitting a pod set into topology domains
 * (models/admission/kueue.h gs_kueue_tas_assign).
 *
 * Upstream: kubernetes-sigs/kueue pkg/cache/scheduler/tas_flavor_snapshot.go
 * (findTopologyAssignment, findLevelWithFitDomains, updateCountsToMinimum with the BestFit
 * profile: the fitting domain with the least room; below it, children with the most room
 * first and the remainder in the smallest child that holds it) and
 * site/content/en/docs/concepts/topology_aware_scheduling.md (required, preferred,
 * unconstrained). Domains are the runs of nodes sharing the values of the levels down to a
 * level, once the nodes are sorted by their values. */
#include <stdlib.h>
#include <string.h>

#include "models/admission/kueue.h"

struct tas {
    const struct gs_kueue_tas_leaf *leaves;
    int nleaves;
    int nlevels;
    int *order; /* leaf indexes sorted by their values */
    int *used;  /* per position in order: this child was given pods */
    int *out;
};

static const struct tas *sort_tas;

static int leaf_cmp(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    for (int l = 0; l < sort_tas->nlevels; l++) {
        int c = strcmp(sort_tas->leaves[a].values[l], sort_tas->leaves[b].values[l]);
        if (c)
            return c;
    }
    return (a > b) - (a < b);
}

/* Do the leaves at positions i and j share the values of levels 0..level? */
static bool same_domain(const struct tas *t, int i, int j, int level)
{
    for (int l = 0; l <= level; l++)
        if (strcmp(t->leaves[t->order[i]].values[l], t->leaves[t->order[j]].values[l]) != 0)
            return false;
    return true;
}

/* End of the domain of level `level` starting at position lo (within [lo, hi)). */
static int run_end(const struct tas *t, int lo, int hi, int level)
{
    int e = lo + 1;
    while (e < hi && same_domain(t, lo, e, level))
        e++;
    return e;
}

static int64_t capacity(const struct tas *t, int lo, int hi)
{
    int64_t c = 0;
    for (int i = lo; i < hi; i++)
        c += t->leaves[t->order[i]].capacity;
    return c;
}

/* Children of the domain [lo, hi) of level `level`: the domains of level+1 inside it, or the
 * single leaves when it is a lowest-level domain. */
static int child_end(const struct tas *t, int lo, int hi, int level)
{
    return level + 1 >= t->nlevels ? lo + 1 : run_end(t, lo, hi, level + 1);
}

/* Put `count` pods into the domain [lo, hi) of level `level` (level -1: the whole cluster).
 * First decide what each child gets (kept in used[] at the child's first position, -1 for
 * none), then descend: a child only changes used[] inside its own range. */
static void fill(struct tas *t, int lo, int hi, int level, int64_t count)
{
    if (level >= t->nlevels) {
        t->out[t->order[lo]] += (int)count;
        return;
    }
    for (int i = lo; i < hi; i = child_end(t, i, hi, level))
        t->used[i] = -1;
    while (count > 0) {
        /* One pass over the children not given pods yet finds both candidates: the smallest
         * that holds what is left (best) and the one with the most room (big). */
        int best = -1, big = -1;
        int64_t best_cap = 0, big_cap = 0;
        for (int i = lo; i < hi; i = child_end(t, i, hi, level)) {
            if (t->used[i] >= 0)
                continue;
            int64_t c = capacity(t, i, child_end(t, i, hi, level));
            if (c >= count && (best < 0 || c < best_cap)) {
                best = i;
                best_cap = c;
            }
            if (c > big_cap) {
                big = i;
                big_cap = c;
            }
        }
        /* BestFit: the smallest child that holds what is left ... */
        if (best >= 0) {
            t->used[best] = (int)count;
            break;
        }
        /* ... else the child with the most room, filled up. */
        if (big < 0)
            break; /* cannot happen: the caller checked the capacity */
        t->used[big] = (int)big_cap;
        count -= big_cap;
    }
    for (int i = lo, e; i < hi; i = e) {
        e = child_end(t, i, hi, level);
        int n = t->used[i];
        if (n > 0)
            fill(t, i, e, level + 1, n);
    }
}

/* The domain of level `level` with the least capacity >= count: its start, or -1 (and the
 * largest capacity in *max). */
static int best_domain(const struct tas *t, int level, int64_t count, int64_t *max)
{
    int best = -1;
    int64_t best_cap = 0;
    *max = 0;
    for (int i = 0; i < t->nleaves; i = run_end(t, i, t->nleaves, level)) {
        int64_t c = capacity(t, i, run_end(t, i, t->nleaves, level));
        if (c > *max)
            *max = c;
        if (c >= count && (best < 0 || c < best_cap)) {
            best = i;
            best_cap = c;
        }
    }
    return best;
}

bool gs_kueue_tas_assign(const struct gs_kueue_tas_leaf *leaves, int nleaves, int nlevels, int level,
                         enum gs_kueue_tas_mode mode, int count, int *out, int *scratch, int *fit_max)
{
    struct tas t = {.leaves = leaves, .nleaves = nleaves, .nlevels = nlevels, .order = scratch,
                    .used = scratch + nleaves, .out = out};
    memset(out, 0, sizeof *out * (size_t)nleaves);
    *fit_max = 0;
    if (count <= 0)
        return true;
    if (nleaves == 0 || nlevels <= 0)
        return false;
    if (level < 0)
        level = 0;
    if (level >= nlevels)
        level = nlevels - 1;
    for (int i = 0; i < nleaves; i++)
        t.order[i] = i;
    sort_tas = &t;
    qsort(t.order, (size_t)nleaves, sizeof *t.order, leaf_cmp);
    sort_tas = NULL;

    int64_t max;
    if (mode == GS_KQ_TAS_REQUIRED) {
        int d = best_domain(&t, level, count, &max);
        if (d < 0) {
            *fit_max = (int)(max < count ? max : count);
            return false;
        }
        fill(&t, d, run_end(&t, d, nleaves, level), level, count);
        return true;
    }
    if (mode == GS_KQ_TAS_UNCONSTRAINED)
        level = 0;
    for (int l = level; l >= 0; l--) {
        int d = best_domain(&t, l, count, &max);
        if (d >= 0) {
            fill(&t, d, run_end(&t, d, nleaves, l), l, count);
            return true;
        }
    }
    int64_t total = capacity(&t, 0, nleaves);
    if (total < count) {
        *fit_max = (int)total;
        return false;
    }
    fill(&t, 0, nleaves, -1, count);
    return true;
}
