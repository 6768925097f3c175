/* gpusim: the device plugin's config applied to a node (dpconfig.h): choice of the named config,
 * allocatable with replicas and renames, the GFD sharing inputs, the Allocate check and MPS
 * limits. Pure functions over struct gs_dp_config (decoded by sim/scenario/dpconfig.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dpconfig.h"

void gs_dp_config_default(struct gs_dp_config *c, enum gs_mig_strategy mig)
{
    memset(c, 0, sizeof *c);
    c->name = "";
    c->mig_strategy = mig;
    c->fail_on_init_error = true;
    c->sharing = GS_SHARING_NONE;
}

const struct gs_dp_config *gs_dp_config_for_node(const struct gs_dp_configs *cs, const char *label, char *why,
                                                 size_t whylen)
{
    if (why && whylen)
        why[0] = '\0';
    if (!cs || cs->n <= 0)
        return NULL;
    if (!cs->named)
        return &cs->configs[0];
    const char *want = (label && *label) ? label : cs->default_name;
    if (!want && cs->n == 1)
        return &cs->configs[0];
    for (int i = 0; want && i < cs->n; i++)
        if (strcmp(cs->configs[i].name, want) == 0)
            return &cs->configs[i];
    if (why && whylen) {
        size_t len = (size_t)snprintf(why, whylen, "device-plugin config '%s' (%s) is not one of: ", want ? want : "",
                                      (label && *label) ? "node label nvidia.com/device-plugin.config"
                                                        : "the default config");
        for (int i = 0; i < cs->n && len < whylen; i++)
            len += (size_t)snprintf(why + len, whylen - len, "%s%s", i ? ", " : "", cs->configs[i].name);
    }
    return NULL;
}

const struct gs_dp_resource *gs_dp_share(const struct gs_dp_config *cfg, const char *name, int *replicas,
                                         const char **renamed_to)
{
    if (replicas)
        *replicas = 1;
    if (renamed_to)
        *renamed_to = name;
    if (!cfg || !name || cfg->sharing == GS_SHARING_NONE)
        return NULL;
    for (int i = 0; i < cfg->nresources; i++) {
        const struct gs_dp_resource *r = &cfg->resources[i];
        if (strcmp(r->name, name) != 0)
            continue;
        if (replicas)
            *replicas = r->replicas;
        if (renamed_to && r->rename)
            *renamed_to = r->rename;
        return r;
    }
    return NULL;
}

/* The resource entry whose advertised name (rename, or name) is `name`. */
static const struct gs_dp_resource *shared_by_output(const struct gs_dp_config *cfg, const char *name)
{
    if (!cfg || cfg->sharing == GS_SHARING_NONE)
        return NULL;
    for (int i = 0; i < cfg->nresources; i++) {
        const struct gs_dp_resource *r = &cfg->resources[i];
        if (strcmp(r->rename ? r->rename : r->name, name) == 0)
            return r;
    }
    return NULL;
}

static int put(struct gs_dp_alloc *out, int max, int *n, const char *name, int64_t count)
{
    if (count <= 0)
        return 0;
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

/* How many of `have` devices the entry selects, or -1 (why set) when the plugin refuses. */
static int64_t selected(const struct gs_dp_resource *r, int64_t have, char *why, size_t whylen)
{
    switch (r->devices) {
    case GS_DP_DEVICES_ALL:
        return have;
    case GS_DP_DEVICES_COUNT:
        if (r->count > have) {
            snprintf(why, whylen, "sharing: %s asks to replicate %d devices but the node has %lld", r->name,
                     r->count, (long long)have);
            return -1;
        }
        return r->count;
    case GS_DP_DEVICES_LIST: {
        /* GPU indices select whole GPUs; MIG indices and UUIDs name devices gpusim does not
         * identify, and select nothing (documented simplification). */
        int64_t n = 0;
        for (int i = 0; i < r->nlist; i++) {
            const char *s = r->list[i];
            char *end;
            long v = strtol(s, &end, 10);
            if (*s && *end == '\0' && v >= 0 && v < have)
                n++;
        }
        return n;
    }
    }
    return have;
}

int gs_dp_allocatable(const struct gs_dp_config *cfg, const struct gs_mig_layout *l, int ngpus,
                      struct gs_dp_alloc *out, int max, int *nout, char *why, size_t whylen)
{
    char scratch[8];
    if (!why || whylen == 0) {
        why = scratch;
        whylen = sizeof scratch;
    }
    why[0] = '\0';
    *nout = 0;
    struct gs_dp_config def;
    if (!cfg) {
        gs_dp_config_default(&def, GS_MIG_NONE);
        cfg = &def;
    }
    if (cfg->sharing == GS_SHARING_MPS && cfg->mig_strategy == GS_MIG_MIXED) {
        /* cmd/nvidia-device-plugin/main.go validateFlags */
        snprintf(why, whylen, "using --mig-strategy=mixed is not supported with MPS");
        return GS_EINVAL;
    }
    struct gs_mig_resource base[GS_MIG_MAX_PROFILES + 1];
    int nbase = 0;
    int rc = gs_mig_resources(cfg->mig_strategy, l, ngpus, base, GS_MIG_MAX_PROFILES + 1, &nbase, why, whylen);
    if (rc)
        return rc;
    for (int i = 0; i < nbase && !rc; i++) {
        int replicas = 1;
        const char *to = base[i].name;
        const struct gs_dp_resource *r = gs_dp_share(cfg, base[i].name, &replicas, &to);
        if (!r) {
            rc = put(out, max, nout, base[i].name, base[i].count);
            continue;
        }
        int64_t k = selected(r, base[i].count, why, whylen);
        if (k < 0) {
            *nout = 0;
            return GS_EINVAL;
        }
        rc = put(out, max, nout, base[i].name, base[i].count - k);
        if (!rc)
            rc = put(out, max, nout, to, k * replicas);
    }
    if (rc)
        *nout = 0;
    return rc;
}

void gs_dp_gfd_input(const struct gs_dp_config *cfg, struct gs_gfd_input *in)
{
    int replicas = 1;
    const char *to = "nvidia.com/gpu";
    const struct gs_dp_resource *r = gs_dp_share(cfg, "nvidia.com/gpu", &replicas, &to);
    in->sharing = (cfg && r) ? cfg->sharing : GS_SHARING_NONE;
    in->replicas = replicas;
    in->renamed = r && r->rename;
    in->mig_strategy = cfg ? cfg->mig_strategy : GS_MIG_NONE;
}

int gs_dp_allocate_check(const struct gs_dp_config *cfg, const char *resource, int64_t request, bool legacy,
                         char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!cfg || !resource || request <= 1)
        return 0;
    const struct gs_dp_resource *r = shared_by_output(cfg, resource);
    if (!r)
        return 0;
    bool refuse = cfg->fail_requests_greater_than_one;
    if (!refuse)
        return 0;
    if (msg && msglen) {
        if (legacy)
            snprintf(msg, msglen,
                     "Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = request for '%s: %lld' "
                     "too large: maximum request size for shared resources is 1, which is unexpected",
                     resource, (long long)request);
        else
            snprintf(msg, msglen,
                     "Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = invalid allocation "
                     "request for \"%s\": invalid request: maximum request size for shared resources is 1; found "
                     "%lld, which is unexpected",
                     resource, (long long)request);
    }
    return GS_EINVAL;
}

void gs_dp_mps_limits(int64_t memory_mib, int replicas, int64_t *mem_per_replica_mib, int *thread_pct)
{
    if (replicas < 1)
        replicas = 1;
    if (mem_per_replica_mib)
        *mem_per_replica_mib = memory_mib / replicas;
    if (thread_pct)
        *thread_pct = 100 / replicas;
}
