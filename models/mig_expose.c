/* gpusim: what the device plugin advertises and GFD labels for a node's MIG layouts under the
 * strategies none, single and mixed (mig.h: gs_mig_resources, gs_mig_resource_name,
 * gs_mig_gfd_labels). Follows NVIDIA/k8s-device-plugin internal/rm (device_map.go, rm.go) and
 * internal/lm (mig-strategy.go, resource.go and their tests).
 */
#include <stdio.h>
#include <string.h>

#include "models/dpconfig.h"
#include "models/mig.h"

int gs_mig_resource_name(const char *profile, char *out, size_t size)
{
    char buf[96];
    int n = snprintf(buf, sizeof buf, "nvidia.com/mig-%s", profile ? profile : "");
    for (char *p = buf; *p; p++)
        if (*p == '+')
            *p = '.';
    if (size > 0)
        snprintf(out, size, "%s", buf);
    return n;
}

static int add(struct gs_mig_resource *out, int max, int *n, const char *name, int64_t count)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(out[i].name, name) == 0) {
            out[i].count += count;
            return 0;
        }
    size_t len = strlen(name);
    if (*n >= max || len >= sizeof out[*n].name)
        return GS_ERANGE;
    memcpy(out[*n].name, name, len + 1);
    out[*n].count = count;
    (*n)++;
    return 0;
}

/* Single strategy: 0 and the one profile index in *profile, or GS_EINVAL with why. `*any` tells
 * whether some GPU has MIG enabled. Mirrors the plugin's checks (all GPUs one mode; one MIG
 * device type; at least one MIG device) and GFD's invalid cases. */
static int single_check(const struct gs_mig_layout *l, int ngpus, bool *any, int *profile, char *why, size_t n)
{
    int on = 0, off = -1, first_on = -1;
    *profile = -1;
    for (int i = 0; i < ngpus; i++) {
        if (l[i].enabled && l[i].gpu) {
            on++;
            if (first_on < 0)
                first_on = i;
        } else if (off < 0) {
            off = i;
        }
    }
    *any = on > 0;
    if (on == 0)
        return 0;
    if (off >= 0) {
        snprintf(why, n, "mig strategy single: GPU %d has MIG enabled but GPU %d does not (all devices on the node "
                 "must have the same MIG mode)", first_on, off);
        return GS_EINVAL;
    }
    for (int i = 0; i < ngpus; i++)
        for (int k = 0; k < l[i].gpu->nprofiles; k++) {
            if (!l[i].count[k])
                continue;
            if (*profile >= 0 && *profile != k) {
                snprintf(why, n, "mig strategy single: more than one MIG device type on the node (%s and %s)",
                         l[i].gpu->profiles[*profile].name, l[i].gpu->profiles[k].name);
                return GS_EINVAL;
            }
            *profile = k;
        }
    if (*profile < 0) {
        snprintf(why, n, "mig strategy single: MIG is enabled but no MIG devices exist");
        return GS_EINVAL;
    }
    return 0;
}

/* All MIG instances on the node's GPUs l[0..ngpus) (the single strategy's count). */
static int64_t total_instances(const struct gs_mig_layout *l, int ngpus)
{
    int64_t total = 0;
    for (int i = 0; i < ngpus; i++)
        total += gs_mig_layout_instances(&l[i]);
    return total;
}

/* The profile table of the node's MIG-enabled GPUs (all GPUs of a node are one product, so the
 * first enabled GPU's), or NULL when none is enabled. Not owned: points into l. */
static const struct gs_mig_gpu *enabled_gpu(const struct gs_mig_layout *l, int ngpus)
{
    const struct gs_mig_gpu *g = NULL;
    for (int i = 0; i < ngpus && !g; i++)
        if (l[i].enabled)
            g = l[i].gpu;
    return g;
}

/* Instances of g's profile k over the node's MIG-enabled GPUs of product g (mixed strategy). */
static int64_t profile_count(const struct gs_mig_layout *l, int ngpus, const struct gs_mig_gpu *g, int k)
{
    int64_t c = 0;
    for (int i = 0; i < ngpus; i++)
        if (l[i].enabled && l[i].gpu == g)
            c += l[i].count[k];
    return c;
}

int gs_mig_resources(enum gs_mig_strategy strategy, const struct gs_mig_layout *l, int ngpus,
                     struct gs_mig_resource *out, int max, int *nout, char *why, size_t whylen)
{
    char scratch[8];
    if (!why || whylen == 0) {
        why = scratch;
        whylen = sizeof scratch;
    }
    why[0] = '\0';
    *nout = 0;
    if (ngpus <= 0)
        return 0;
    if (strategy == GS_MIG_NONE || !l)
        return add(out, max, nout, "nvidia.com/gpu", ngpus);
    if (strategy == GS_MIG_SINGLE) {
        bool any;
        int k;
        int rc = single_check(l, ngpus, &any, &k, why, whylen);
        if (rc)
            return rc;
        if (!any)
            return add(out, max, nout, "nvidia.com/gpu", ngpus);
        return add(out, max, nout, "nvidia.com/gpu", total_instances(l, ngpus));
    }
    /* mixed */
    int whole = 0;
    for (int i = 0; i < ngpus; i++)
        if (!(l[i].enabled && l[i].gpu))
            whole++;
    int rc = 0;
    if (whole > 0)
        rc = add(out, max, nout, "nvidia.com/gpu", whole);
    const struct gs_mig_gpu *g = enabled_gpu(l, ngpus);
    /* Count by profile table order. */
    for (int k = 0; g && !rc && k < g->nprofiles; k++) {
        int64_t c = profile_count(l, ngpus, g, k);
        if (c > 0) {
            char name[96];
            gs_mig_resource_name(g->profiles[k].name, name, sizeof name);
            rc = add(out, max, nout, name, c);
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ GFD */

static int setl(struct gs_labels *l, struct gs_arena *a, const char *k, const char *v)
{
    return gs_labels_set(l, a, k, v) ? GS_ENOMEM : 0;
}

static int seti(struct gs_labels *l, struct gs_arena *a, const char *k, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    return setl(l, a, k, buf);
}

/* Labels of one MIG profile under `prefix` ("nvidia.com/gpu" or "nvidia.com/mig-1g.10gb"). */
static int profile_labels(const char *prefix, const char *resource, const char *product,
                          const struct gs_mig_profile *p, int64_t count, const struct gs_dp_config *dp,
                          struct gs_labels *out, struct gs_arena *a)
{
    int replicas = 1;
    const char *renamed = resource;
    const struct gs_dp_resource *r = gs_dp_share(dp, resource, &replicas, &renamed);
    char k[160], v[256];
    int rc = 0;
    snprintf(v, sizeof v, "%s-MIG-%s%s", product, p->name, (r && strcmp(renamed, resource) == 0) ? "-SHARED" : "");
    snprintf(k, sizeof k, "%s.product", prefix);
    rc |= setl(out, a, k, v);
    snprintf(k, sizeof k, "%s.count", prefix);
    rc |= seti(out, a, k, count);
    snprintf(k, sizeof k, "%s.replicas", prefix);
    rc |= seti(out, a, k, replicas);
    snprintf(k, sizeof k, "%s.memory", prefix);
    rc |= seti(out, a, k, p->memory_mib);
    snprintf(k, sizeof k, "%s.multiprocessors", prefix);
    if (p->multiprocessors > 0)
        rc |= seti(out, a, k, p->multiprocessors);
    else
        gs_labels_del(out, k);
    snprintf(k, sizeof k, "%s.slices.gi", prefix);
    rc |= seti(out, a, k, p->compute_slices);
    snprintf(k, sizeof k, "%s.slices.ci", prefix);
    rc |= seti(out, a, k, p->compute_slices);
    if (r && strcmp(prefix, "nvidia.com/gpu") != 0) {
        snprintf(k, sizeof k, "%s.sharing-strategy", prefix);
        rc |= setl(out, a, k, gs_sharing_name(dp->sharing));
    }
    return rc;
}

int gs_mig_gfd_labels(enum gs_mig_strategy strategy, const char *product, const struct gs_mig_layout *l,
                      int ngpus, const struct gs_dp_config *dp, struct gs_labels *labels, struct gs_arena *a)
{
    int rc = 0;
    bool capable = false;
    for (int i = 0; i < ngpus && l; i++)
        if (l[i].gpu)
            capable = true;
    if (capable)
        rc |= setl(labels, a, "nvidia.com/mig.capable", "true");
    if (strategy == GS_MIG_NONE || !l || ngpus <= 0)
        return rc;
    rc |= setl(labels, a, "nvidia.com/mig.strategy", gs_mig_strategy_name(strategy));
    if (strategy == GS_MIG_SINGLE) {
        bool any;
        int k;
        char why[8];
        if (single_check(l, ngpus, &any, &k, why, sizeof why)) {
            char v[256];
            snprintf(v, sizeof v, "%s-MIG-INVALID", product ? product : "");
            rc |= setl(labels, a, "nvidia.com/gpu.product", v);
            rc |= setl(labels, a, "nvidia.com/gpu.count", "0");
            rc |= setl(labels, a, "nvidia.com/gpu.replicas", "0");
            rc |= setl(labels, a, "nvidia.com/gpu.memory", "0");
            static const char *const gone[] = {"nvidia.com/gpu.multiprocessors", "nvidia.com/gpu.slices.gi",
                                               "nvidia.com/gpu.slices.ci", NULL};
            for (int i = 0; gone[i]; i++)
                gs_labels_del(labels, gone[i]);
            return rc ? GS_ENOMEM : 0;
        }
        if (!any)
            return rc ? GS_ENOMEM : 0;
        rc |= profile_labels("nvidia.com/gpu", "nvidia.com/gpu", product ? product : "", &l[0].gpu->profiles[k],
                             total_instances(l, ngpus), dp, labels, a);
        return rc ? GS_ENOMEM : 0;
    }
    const struct gs_mig_gpu *g = enabled_gpu(l, ngpus);
    for (int k = 0; g && k < g->nprofiles; k++) {
        int64_t c = profile_count(l, ngpus, g, k);
        if (c == 0)
            continue;
        char name[96];
        gs_mig_resource_name(g->profiles[k].name, name, sizeof name);
        rc |= profile_labels(name, name, product ? product : "", &g->profiles[k], c, dp, labels, a);
    }
    return rc ? GS_ENOMEM : 0;
}
