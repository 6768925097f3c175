/* gpusim: MIG lookups, layouts and placement, mig-parted configs applied to a node (mig.h).
 * The device plugin's and GFD's view of the layouts is in models/mig_expose.c.
 *
 * Placement: NVML places a GPU instance at one of its profile's start offsets on the
 * memory-slice axis, without overlap. A layout fits when such a placement exists for all of
 * its instances (at most 8, so an exhaustive search is cheap), the compute slices add up to no
 * more than the GPU has, and no profile exceeds its maximum instance count.
 */
#include <stdio.h>
#include <string.h>

#include "models/mig.h"

const struct gs_mig_gpu *gs_mig_gpu_for_product(const struct gs_mig_catalog *c, const char *product)
{
    if (!c || !product)
        return NULL;
    for (int i = 0; i < c->ngpus; i++)
        for (int j = 0; j < c->gpus[i].nproducts; j++)
            if (strcmp(c->gpus[i].products[j], product) == 0)
                return &c->gpus[i];
    return NULL;
}

const struct gs_mig_gpu *gs_mig_gpu_by_name(const struct gs_mig_catalog *c, const char *name)
{
    if (!c || !name)
        return NULL;
    for (int i = 0; i < c->ngpus; i++)
        if (strcmp(c->gpus[i].name, name) == 0)
            return &c->gpus[i];
    return NULL;
}

int gs_mig_profile_find(const struct gs_mig_gpu *g, const char *name)
{
    if (!g || !name)
        return -1;
    for (int i = 0; i < g->nprofiles; i++)
        if (strcmp(g->profiles[i].name, name) == 0)
            return i;
    return -1;
}

const struct gs_migparted_named *gs_migparted_find(const struct gs_migparted_config *cfg, const char *name)
{
    if (!cfg || !name)
        return NULL;
    for (int i = 0; i < cfg->nconfigs; i++)
        if (strcmp(cfg->configs[i].name, name) == 0)
            return &cfg->configs[i];
    return NULL;
}

const char *gs_mig_state_name(enum gs_mig_state s)
{
    switch (s) {
    case GS_MIG_STATE_PENDING: return "pending";
    case GS_MIG_STATE_REBOOTING: return "rebooting";
    case GS_MIG_STATE_SUCCESS: return "success";
    case GS_MIG_STATE_FAILED: return "failed";
    }
    return NULL;
}

int gs_mig_layout_instances(const struct gs_mig_layout *l)
{
    if (!l || !l->enabled || !l->gpu)
        return 0;
    int n = 0;
    for (int i = 0; i < l->gpu->nprofiles && i < GS_MIG_MAX_PROFILES; i++)
        n += l->count[i];
    return n;
}

/* "2g.10gb x 3 + 3g.20gb x 1" (profiles with instances, table order). */
static void describe(const struct gs_mig_layout *l, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < l->gpu->nprofiles && len < n; i++) {
        if (!l->count[i])
            continue;
        int w = snprintf(buf + len, n - len, "%s%s x %d", len ? " + " : "", l->gpu->profiles[i].name, l->count[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

/* Place instances inst[k..n) into the free memory slices `used` (bit i = slice i taken). */
static bool place(const struct gs_mig_gpu *g, const int *inst, int k, int n, unsigned used, int *start)
{
    if (k == n)
        return true;
    const struct gs_mig_profile *p = &g->profiles[inst[k]];
    unsigned mask = (1u << p->memory_slices) - 1u;
    /* Instances of one profile take increasing starts: the same set in another order is the
     * same placement, so searching only increasing ones avoids n! repeats. */
    int from = (k > 0 && inst[k - 1] == inst[k]) ? start[k - 1] + 1 : 0;
    for (int s = 0; s < p->nstarts; s++) {
        int at = p->starts[s];
        if (at < from || at + p->memory_slices > g->memory_slices)
            continue;
        if (used & (mask << at))
            continue;
        start[k] = at;
        if (place(g, inst, k + 1, n, used | (mask << at), start))
            return true;
    }
    return false;
}

int gs_mig_layout_check(const struct gs_mig_layout *l, struct gs_mig_placement *out, int *nout, char *why,
                        size_t whylen)
{
    char scratch[8];
    if (!why || whylen == 0) {
        why = scratch;
        whylen = sizeof scratch;
    }
    why[0] = '\0';
    if (nout)
        *nout = 0;
    if (!l)
        return GS_EINVAL;
    const struct gs_mig_gpu *g = l->gpu;
    int total = 0;
    if (g)
        for (int i = 0; i < g->nprofiles && i < GS_MIG_MAX_PROFILES; i++) {
            if (l->count[i] < 0) {
                snprintf(why, whylen, "negative count %d for %s", l->count[i], g->profiles[i].name);
                return GS_EINVAL;
            }
            total += l->count[i];
        }
    if (!g || !l->enabled) {
        if (total > 0) {
            snprintf(why, whylen, "%s has MIG instances but MIG mode is disabled", g ? g->name : "the GPU");
            return GS_EINVAL;
        }
        return 0;
    }
    int compute = 0;
    for (int i = 0; i < g->nprofiles; i++) {
        const struct gs_mig_profile *p = &g->profiles[i];
        if (l->count[i] > p->max_instances) {
            snprintf(why, whylen, "%d x %s exceeds the %d instance%s %s allows", l->count[i], p->name,
                     p->max_instances, p->max_instances == 1 ? "" : "s", g->name);
            return GS_EINVAL;
        }
        compute += l->count[i] * p->compute_slices;
    }
    char desc[256];
    describe(l, desc, sizeof desc);
    if (compute > g->compute_slices) {
        snprintf(why, whylen, "%s needs %d compute slices; %s has %d", desc, compute, g->name, g->compute_slices);
        return GS_EINVAL;
    }
    if (total > GS_MIG_MAX_SLICES) {
        snprintf(why, whylen, "%s: %d instances; %s has %d memory slices", desc, total, g->name, g->memory_slices);
        return GS_EINVAL;
    }
    /* Largest first (fewest starts), then table order. */
    int inst[GS_MIG_MAX_SLICES], start[GS_MIG_MAX_SLICES], n = 0;
    for (int size = GS_MIG_MAX_SLICES; size >= 1; size--)
        for (int i = 0; i < g->nprofiles; i++)
            if (g->profiles[i].memory_slices == size)
                for (int c = 0; c < l->count[i]; c++)
                    inst[n++] = i;
    if (!place(g, inst, 0, n, 0u, start)) {
        snprintf(why, whylen, "no placement of %s fits the %d memory slices of %s", desc, g->memory_slices, g->name);
        return GS_EINVAL;
    }
    if (out) {
        for (int k = 0; k < n; k++)
            out[k] = (struct gs_mig_placement){.profile = inst[k], .start = start[k]};
        if (nout)
            *nout = n;
    }
    return 0;
}

/* Edit distance (insert, delete, substitute), for "did you mean"; names are short. */
static int distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63)
        return 99;
    int row[64];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

int gs_mig_layout_from_counts(const struct gs_mig_gpu *g, const struct gs_mig_count *counts, int n,
                              struct gs_mig_layout *out, char *why, size_t whylen)
{
    char scratch[8];
    if (!why || whylen == 0) {
        why = scratch;
        whylen = sizeof scratch;
    }
    why[0] = '\0';
    memset(out, 0, sizeof *out);
    out->gpu = g;
    out->enabled = true;
    if (!g) {
        snprintf(why, whylen, "the GPU is not MIG capable");
        return GS_EINVAL;
    }
    for (int i = 0; i < n; i++) {
        int k = gs_mig_profile_find(g, counts[i].profile);
        if (k < 0) {
            const char *near = NULL;
            int best = 2; /* one edit ("1g.10gb.me" -> "1g.10gb+me"); more would suggest other sizes */
            for (int j = 0; j < g->nprofiles; j++) {
                int dist = distance(counts[i].profile, g->profiles[j].name);
                if (dist < best) {
                    best = dist;
                    near = g->profiles[j].name;
                }
            }
            if (near)
                snprintf(why, whylen, "%s has no MIG profile '%s' (did you mean '%s'?)", g->name, counts[i].profile,
                         near);
            else
                snprintf(why, whylen, "%s has no MIG profile '%s'", g->name, counts[i].profile);
            return GS_EINVAL;
        }
        out->count[k] += counts[i].count;
    }
    return 0;
}

void gs_mig_layout_init(const struct gs_mig_catalog *cat, const char *product, int ngpus, struct gs_mig_layout *out)
{
    const struct gs_mig_gpu *g = gs_mig_gpu_for_product(cat, product);
    for (int i = 0; i < ngpus; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].gpu = g;
    }
}

/* ------------------------------------------------------------------ mig-parted apply */

static bool entry_selects(const struct gs_migparted_entry *e, const struct gs_mig_gpu *g, int index)
{
    if (e->nfilter > 0) {
        bool hit = false;
        for (int f = 0; g && f < e->nfilter && !hit; f++)
            for (int p = 0; p < g->npci; p++)
                if (g->pci_ids[p] == e->device_filter[f])
                    hit = true;
        if (!hit)
            return false;
    }
    if (e->all_devices)
        return true;
    for (int d = 0; d < e->ndevices; d++)
        if (e->devices[d] == index)
            return true;
    return false;
}

static bool same_layout(const struct gs_mig_layout *a, const struct gs_mig_layout *b)
{
    if (a->enabled != b->enabled)
        return false;
    return memcmp(a->count, b->count, sizeof a->count) == 0;
}

static int fail(struct gs_mig_outcome *res, const char *fmt, const char *a, int i, const char *b)
{
    res->state = GS_MIG_STATE_FAILED;
    snprintf(res->reason, sizeof res->reason, fmt, a, i, b);
    return 0;
}

int gs_mig_apply(const struct gs_mig_catalog *cat, const struct gs_migparted_config *cfg, const char *name,
                 const char *product, int ngpus, const struct gs_mig_layout *cur, struct gs_mig_layout *next,
                 struct gs_mig_outcome *res)
{
    memset(res, 0, sizeof *res);
    if (ngpus < 0 || ngpus > GS_MIG_MAX_GPUS) {
        res->state = GS_MIG_STATE_FAILED;
        snprintf(res->reason, sizeof res->reason, "%d GPUs: gpusim models at most %d per node", ngpus, GS_MIG_MAX_GPUS);
        return GS_EINVAL;
    }
    for (int i = 0; i < ngpus; i++)
        next[i] = cur[i];
    const struct gs_migparted_named *nc = gs_migparted_find(cfg, name);
    if (!nc) {
        res->state = GS_MIG_STATE_FAILED;
        snprintf(res->reason, sizeof res->reason,
                 "unknown MIG config '%.200s' (mig-parted: the selected config does not exist in the config file)",
                 name ? name : "");
        return GS_EINVAL;
    }
    const struct gs_mig_gpu *g = gs_mig_gpu_for_product(cat, product);
    struct gs_mig_layout want[GS_MIG_MAX_GPUS];
    for (int i = 0; i < ngpus; i++) {
        want[i] = cur[i];
        want[i].gpu = g;
    }
    char why[384];
    for (int e = 0; e < nc->nentries; e++) {
        const struct gs_migparted_entry *en = &nc->entries[e];
        for (int i = 0; i < ngpus; i++) {
            if (!entry_selects(en, g, i))
                continue;
            if (!g) {
                /* mig-parted apply: skip a non-capable GPU selected by `all` or asked to stay off */
                if (en->all_devices || !en->mig_enabled)
                    continue;
                return fail(res, "config '%s': GPU %d (%s): cannot set MIG config on non MIG-capable GPU", name, i,
                            product ? product : "?");
            }
            struct gs_mig_layout l;
            if (!en->mig_enabled) {
                memset(&l, 0, sizeof l);
                l.gpu = g;
            } else if (gs_mig_layout_from_counts(g, en->mig_devices, en->nmig_devices, &l, why, sizeof why)) {
                return fail(res, "config '%s': GPU %d: %s", name, i, why);
            }
            want[i] = l;
        }
    }
    for (int i = 0; i < ngpus; i++) {
        if (!g)
            continue;
        if (gs_mig_layout_check(&want[i], NULL, NULL, why, sizeof why))
            return fail(res, "config '%s': GPU %d: %s", name, i, why);
    }
    for (int i = 0; i < ngpus; i++) {
        if (cur[i].enabled != want[i].enabled)
            res->mode_change = true;
        if (!same_layout(&cur[i], &want[i]))
            res->gpus_changed++;
        next[i] = want[i];
    }
    res->state = GS_MIG_STATE_SUCCESS;
    res->noop = res->gpus_changed == 0;
    return 0;
}
