/* gpusim: Kueue objects and configuration in a scenario (decode.h gs_scn_kueue_*):
 * kueue.x-k8s.io/v1beta1 ResourceFlavor, ClusterQueue, LocalQueue, kueue.x-k8s.io/v1alpha1
 * (or v1beta1) Topology in spec.objects; scheduler.kueueConfig (config.kueue.x-k8s.io/v1beta1
 * Configuration: waitForPodsReady and its requeuingStrategy); spec.versions.kueue.
 *
 * Checks follow the CRDs' OpenAPI/CEL validation and the webhooks where cheap (kueue
 * apis/kueue/v1beta1/clusterqueue_types.go markers, pkg/webhooks/clusterqueue_webhook.go,
 * apis/config/v1beta1/defaults.go, pkg/config/validation.go). Fields Kueue has but gpusim does
 * not model (admissionChecks, fairSharing, flavorFungibility, stopPolicy, ...) are "not
 * supported yet"; unknown keys are errors. References (a ClusterQueue's flavors, a flavor's
 * Topology, a LocalQueue's ClusterQueue) may name objects that do not exist, as the API server
 * allows: the run shows the ClusterQueue inactive. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "models/admission/kueue.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/ydec_util.h"

#define GS_KQ_MAX_OBJECTS 256

static struct gs_kueue_spec *spec_of(struct gs_ydec *d, struct gs_scenario *sc)
{
    if (sc->kueue)
        return sc->kueue;
    struct gs_kueue_spec *s = gs_arena_alloc(d->arena, sizeof *s);
    if (!s)
        return NULL;
    s->flavors = gs_arena_alloc(d->arena, sizeof *s->flavors * GS_KQ_MAX_OBJECTS);
    s->cqs = gs_arena_alloc(d->arena, sizeof *s->cqs * GS_KQ_MAX_OBJECTS);
    s->lqs = gs_arena_alloc(d->arena, sizeof *s->lqs * GS_KQ_MAX_OBJECTS);
    s->topologies = gs_arena_alloc(d->arena, sizeof *s->topologies * GS_KQ_MAX_OBJECTS);
    if (!s->flavors || !s->cqs || !s->lqs || !s->topologies)
        return NULL;
    gs_kueue_config_defaults(&s->config);
    sc->kueue = s;
    return s;
}

/* metadata.name of a cluster-scoped or namespaced Kueue object. */
static int object_name(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *kind,
                       const char **name, const char **namespace_)
{
    char p[GS_SCN_PATH];
    const struct gs_ynode *md = gs_y_get(n, "metadata"), *name_node;
    int rc;
    if ((rc = gs_y_want_map(d, md, gs_scn_path(p, "%s.metadata", path))) ||
        (rc = gs_scn_metadata(d, md, p, true, name, &name_node, NULL, NULL)))
        return rc;
    if (!gs_scn_is_dns_subdomain(*name) || strlen(*name) > 63)
        return gs_y_error(d, name_node, "%s.metadata.name: Invalid value: \"%.80s\": a %s name must be a DNS-1123 "
                          "label (lowercase letters, digits and '-', at most 63 characters)", path, *name, kind);
    if (namespace_) {
        *namespace_ = "default";
        const struct gs_ynode *ns = gs_y_get(md, "namespace");
        if (ns && !gs_y_is_null(ns) && (rc = gs_y_kstr(d, ns, gs_scn_path(p, "%s.metadata.namespace", path), namespace_)))
            return rc;
    }
    return 0;
}

static int duplicate(struct gs_ydec *d, const struct gs_ynode *n, const char *kind, const char *name)
{
    return gs_y_error(d, n, "%s.kueue.x-k8s.io \"%s\" already exists", kind, name);
}

static int too_many(struct gs_ydec *d, const struct gs_ynode *n, const char *kind)
{
    return gs_y_error(d, n, "too many %s objects: gpusim takes at most %d of each Kueue kind", kind, GS_KQ_MAX_OBJECTS);
}

/* What every Kueue object starts with: `n` is a map of apiVersion, kind, metadata and spec
 * (metadata required, spec too when spec_required), and metadata.name (namespace too when
 * namespace_ is not NULL, see object_name) is valid for `kind`. *name and *namespace_ point into
 * the tree. Returns 0 or the error code (d->err set). */
static int object_head(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *kind,
                       bool spec_required, const char **name, const char **namespace_)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    static const char *const req_meta[] = {"metadata", NULL};
    static const char *const req_spec[] = {"metadata", "spec", NULL};
    int rc = gs_y_check_map(d, n, path, keys, NULL, spec_required ? req_spec : req_meta);
    return rc ? rc : object_name(d, n, path, kind, name, namespace_);
}

/* Refuse object `name` of `kind` (plural: its resource, as "clusterqueues") when one of that
 * name exists already (`exists`) or `count` objects of the kind fill GS_KQ_MAX_OBJECTS.
 * Returns 0 or GS_EINVAL (d->err set). */
static int check_new(struct gs_ydec *d, const struct gs_ynode *n, const char *kind, const char *plural,
                     const char *name, bool exists, int count)
{
    if (exists)
        return duplicate(d, gs_y_get(n, "metadata"), plural, name);
    if (count >= GS_KQ_MAX_OBJECTS)
        return too_many(d, n, kind);
    return 0;
}

/* A quantity in gpusim units for resource `r`. */
static int amount(struct gs_ydec *d, const struct gs_ynode *n, const char *path, int r, int64_t *out)
{
    struct gs_quantity q;
    int rc = gs_y_quantity(d, n, path, &q);
    if (rc)
        return rc;
    if (gs_quantity_sign(&q) < 0)
        return gs_y_error(d, n, "%s: Invalid value: \"%s\": must be greater than or equal to 0", path, n->text);
    *out = r == GS_RES_CPU ? gs_quantity_milli(&q) : gs_quantity_value(&q);
    return gs_scn_check_amount(d, n, path, d->world->res.names[r], *out);
}

/* Check that `seq` (at `path`) is a sequence of lo to hi items, with the API server's "<path>:
 * Invalid value: must have between <lo> and <hi> items, got <n>". Returns 0 or GS_EINVAL (d->err
 * set). */
static int want_seq_between(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, int lo, int hi)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (!rc && (seq->n < lo || seq->n > hi))
        rc = gs_y_error(d, seq, "%s: Invalid value: must have between %d and %d items, got %d", path, lo, hi, seq->n);
    return rc;
}

/* ------------------------------------------------------------------ ResourceFlavor */

static int flavor_taints(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, struct gs_kueue_flavor *f)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc || seq->n == 0)
        return rc;
    if (seq->n > 8)
        return gs_y_error(d, seq->items[8], "%s: Too many: %d: must have at most 8 items", path, seq->n);
    f->node_taints = gs_arena_alloc(d->arena, sizeof *f->node_taints * (size_t)seq->n);
    if (!f->node_taints)
        return gs_y_nomem(d, NULL);
    static const char *const keys[] = {"key", "value", "effect", "timeAdded", NULL};
    static const char *const req[] = {"key", "effect", NULL};
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};
    for (int i = 0; i < seq->n; i++) {
        char p[GS_SCN_PATH], pk[GS_SCN_PATH];
        gs_scn_path(p, "%s[%d]", path, i);
        const struct gs_ynode *t = seq->items[i];
        if ((rc = gs_y_check_map(d, t, p, keys, NULL, req)))
            return rc;
        struct gs_taint *taint = &f->node_taints[f->nnode_taints];
        if ((rc = gs_y_kstr(d, gs_y_get(t, "key"), gs_scn_path(pk, "%s.key", p), &taint->key)))
            return rc;
        if (!gs_scn_is_qualified_name(taint->key))
            return gs_y_error(d, gs_y_get(t, "key"), "invalid taint key \"%.80s\" at %s", taint->key, pk);
        taint->value = "";
        const struct gs_ynode *v = gs_y_get(t, "value");
        if (v && !gs_y_is_null(v) && (rc = gs_y_kstr(d, v, gs_scn_path(pk, "%s.value", p), &taint->value)))
            return rc;
        int e;
        if ((rc = gs_y_enum(d, gs_y_get(t, "effect"), gs_scn_path(pk, "%s.effect", p), effects, &e)))
            return rc;
        taint->effect = e == 0 ? GS_EFFECT_NO_SCHEDULE : e == 1 ? GS_EFFECT_PREFER_NO_SCHEDULE : GS_EFFECT_NO_EXECUTE;
        f->nnode_taints++;
    }
    return 0;
}

static int resource_flavor(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_kueue_spec *s)
{
    static const char *const spec_keys[] = {"nodeLabels", "nodeTaints", "tolerations", "topologyName", NULL};
    char p[GS_SCN_PATH];
    const char *name;
    int rc;
    if ((rc = object_head(d, n, path, "ResourceFlavor", false, &name, NULL)) ||
        (rc = check_new(d, n, "ResourceFlavor", "resourceflavors", name, gs_kueue_find_flavor(s, name) >= 0,
                        s->nflavors)))
        return rc;
    struct gs_kueue_flavor *f = &s->flavors[s->nflavors];
    memset(f, 0, sizeof *f);
    f->name = name;
    f->topology = -1;
    const struct gs_ynode *sp = gs_y_get(n, "spec");
    if (sp && !gs_y_is_null(sp)) {
        gs_scn_path(p, "%s.spec", path);
        if ((rc = gs_y_check_map(d, sp, p, spec_keys, NULL, NULL)))
            return rc;
        const struct gs_ynode *v;
        char pk[GS_SCN_PATH];
        if ((v = gs_y_get(sp, "nodeLabels")) && !gs_y_is_null(v) &&
            (rc = gs_y_labels(d, v, gs_scn_path(pk, "%s.nodeLabels", p), &f->node_labels)))
            return rc;
        if (f->node_labels.n > 8)
            return gs_y_error(d, v, "%s.nodeLabels: Too many: %d: must have at most 8 items", p, f->node_labels.n);
        if ((v = gs_y_get(sp, "nodeTaints")) && !gs_y_is_null(v) &&
            (rc = flavor_taints(d, v, gs_scn_path(pk, "%s.nodeTaints", p), f)))
            return rc;
        if ((v = gs_y_get(sp, "tolerations")) && !gs_y_is_null(v) &&
            (rc = gs_scn_tolerations(d, v, gs_scn_path(pk, "%s.tolerations", p), &f->tolerations, &f->ntolerations)))
            return rc;
        if ((v = gs_y_get(sp, "topologyName")) && !gs_y_is_null(v) &&
            (rc = gs_y_kstr(d, v, gs_scn_path(pk, "%s.topologyName", p), &f->topology_name)))
            return rc;
        if (f->topology_name && f->node_labels.n == 0)
            return gs_y_error(d, v, "%s: Invalid value: \"object\": at least one nodeLabel is required when "
                              "topology is set", p);
    }
    s->nflavors++;
    return 0;
}

/* ------------------------------------------------------------------ ClusterQueue */

static int policy(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path,
                  const char *const *choices, const enum gs_kueue_policy *values, enum gs_kueue_policy *out)
{
    const struct gs_ynode *v = gs_y_get(m, key);
    if (!v || gs_y_is_null(v))
        return 0;
    char p[GS_SCN_PATH];
    int i, rc = gs_y_enum(d, v, gs_scn_path(p, "%s.%s", path, key), choices, &i);
    if (rc)
        return rc;
    *out = values[i];
    return 0;
}

static int preemption(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_kueue_cq *cq)
{
    static const char *const keys[] = {"reclaimWithinCohort", "withinClusterQueue", "borrowWithinCohort", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    static const char *const reclaim[] = {"Never", "LowerPriority", "Any", NULL};
    static const enum gs_kueue_policy reclaim_v[] = {GS_KQ_NEVER, GS_KQ_LOWER_PRIORITY, GS_KQ_ANY};
    static const char *const within[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority", NULL};
    static const enum gs_kueue_policy within_v[] = {GS_KQ_NEVER, GS_KQ_LOWER_PRIORITY, GS_KQ_LOWER_OR_NEWER_EQUAL};
    if ((rc = policy(d, m, "reclaimWithinCohort", path, reclaim, reclaim_v, &cq->reclaim_within_cohort)) ||
        (rc = policy(d, m, "withinClusterQueue", path, within, within_v, &cq->within_cluster_queue)))
        return rc;
    const struct gs_ynode *b = gs_y_get(m, "borrowWithinCohort");
    if (b && !gs_y_is_null(b)) {
        char p[GS_SCN_PATH], pk[GS_SCN_PATH];
        gs_scn_path(p, "%s.borrowWithinCohort", path);
        static const char *const bkeys[] = {"policy", "maxPriorityThreshold", NULL};
        if ((rc = gs_y_check_map(d, b, p, bkeys, NULL, NULL)))
            return rc;
        static const char *const bp[] = {"Never", "LowerPriority", NULL};
        static const enum gs_kueue_policy bp_v[] = {GS_KQ_NEVER, GS_KQ_LOWER_PRIORITY};
        enum gs_kueue_policy pol = GS_KQ_NEVER;
        if ((rc = policy(d, b, "policy", p, bp, bp_v, &pol)))
            return rc;
        cq->borrow_within_cohort = pol == GS_KQ_LOWER_PRIORITY;
        const struct gs_ynode *t = gs_y_get(b, "maxPriorityThreshold");
        if (t && !gs_y_is_null(t)) {
            int64_t v;
            if ((rc = gs_y_int(d, t, gs_scn_path(pk, "%s.maxPriorityThreshold", p), INT32_MIN, INT32_MAX, &v)))
                return rc;
            cq->has_max_priority_threshold = true;
            cq->max_priority_threshold = (int32_t)v;
        }
        if (cq->borrow_within_cohort && cq->reclaim_within_cohort == GS_KQ_NEVER)
            return gs_y_error(d, b, "%s: Invalid value: \"object\": reclaimWithinCohort=Never and "
                              "borrowWithinCohort.Policy!=Never", path);
    }
    return 0;
}

static int flavor_resources(struct gs_ydec *d, const struct gs_ynode *seq, const char *path,
                            const struct gs_kueue_resource_group *g, bool cohort, struct gs_kueue_flavor_quotas *fq)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc)
        return rc;
    if (seq->n != g->ncovered)
        return gs_y_error(d, seq, "%s: Invalid value: \"object\": flavors must have the same number of resources as "
                          "the coveredResources (%d, got %d)", path, g->ncovered, seq->n);
    fq->res = gs_arena_alloc(d->arena, sizeof *fq->res * (size_t)seq->n);
    if (!fq->res)
        return gs_y_nomem(d, NULL);
    static const char *const keys[] = {"name", "nominalQuota", "borrowingLimit", "lendingLimit", NULL};
    static const char *const req[] = {"name", "nominalQuota", NULL};
    for (int i = 0; i < seq->n; i++) {
        char p[GS_SCN_PATH], pk[GS_SCN_PATH];
        gs_scn_path(p, "%s[%d]", path, i);
        const struct gs_ynode *m = seq->items[i];
        if ((rc = gs_y_check_map(d, m, p, keys, NULL, req)))
            return rc;
        const char *name;
        if ((rc = gs_y_kstr(d, gs_y_get(m, "name"), gs_scn_path(pk, "%s.name", p), &name)))
            return rc;
        int r = gs_res_find(&d->world->res, name);
        if (r != g->covered[i])
            return gs_y_error(d, gs_y_get(m, "name"), "%s: Invalid value: \"%.80s\": resources must be in the same "
                              "order as the coveredResources (expected %s)", pk, name,
                              d->world->res.names[g->covered[i]]);
        struct gs_kueue_resource_quota *rq = &fq->res[i];
        rq->res = r;
        rq->borrowing_limit = rq->lending_limit = -1;
        if ((rc = amount(d, gs_y_get(m, "nominalQuota"), gs_scn_path(pk, "%s.nominalQuota", p), r, &rq->nominal)))
            return rc;
        const struct gs_ynode *v;
        if ((v = gs_y_get(m, "borrowingLimit")) && !gs_y_is_null(v)) {
            if (!cohort)
                return gs_y_error(d, v, "%s.borrowingLimit: Invalid value: must be nil when cohort is empty", p);
            if ((rc = amount(d, v, gs_scn_path(pk, "%s.borrowingLimit", p), r, &rq->borrowing_limit)))
                return rc;
        }
        if ((v = gs_y_get(m, "lendingLimit")) && !gs_y_is_null(v)) {
            if (!cohort)
                return gs_y_error(d, v, "%s.lendingLimit: Invalid value: must be nil when cohort is empty", p);
            if ((rc = amount(d, v, gs_scn_path(pk, "%s.lendingLimit", p), r, &rq->lending_limit)))
                return rc;
            if (rq->lending_limit > rq->nominal)
                return gs_y_error(d, v, "%s.lendingLimit: Invalid value: \"%s\": must be less than or equal to the "
                                  "nominalQuota", p, v->text);
        }
        fq->nres++;
    }
    return 0;
}

static int resource_group(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_kueue_cq *cq,
                          struct gs_kueue_resource_group *g)
{
    static const char *const keys[] = {"coveredResources", "flavors", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, keys);
    if (rc)
        return rc;
    char p[GS_SCN_PATH], pk[GS_SCN_PATH];
    const struct gs_ynode *cov = gs_y_get(m, "coveredResources");
    if ((rc = want_seq_between(d, cov, gs_scn_path(p, "%s.coveredResources", path), 1, 64)))
        return rc;
    g->covered = gs_arena_alloc(d->arena, sizeof *g->covered * (size_t)cov->n);
    if (!g->covered)
        return gs_y_nomem(d, NULL);
    for (int i = 0; i < cov->n; i++) {
        const char *name;
        if ((rc = gs_y_kstr(d, cov->items[i], gs_scn_path(pk, "%s[%d]", p, i), &name)))
            return rc;
        if (!gs_scn_is_qualified_name(name))
            return gs_y_error(d, cov->items[i], "%s: Invalid value: \"%.80s\": must be a resource name", pk, name);
        int r = gs_res_intern(&d->world->res, d->arena, name);
        if (r < 0)
            return gs_y_error(d, cov->items[i], "too many resource names (gpusim supports %d)", GS_RES_MAX);
        for (int gi = 0; gi < cq->ngroups; gi++)
            for (int k = 0; k < cq->groups[gi].ncovered; k++)
                if (cq->groups[gi].covered[k] == r)
                    return gs_y_error(d, cov->items[i], "%s: Duplicate value: \"%s\": a resource can be in one "
                                      "resourceGroup only", pk, name);
        for (int k = 0; k < g->ncovered; k++)
            if (g->covered[k] == r)
                return gs_y_error(d, cov->items[i], "%s: Duplicate value: \"%s\"", pk, name);
        g->covered[g->ncovered++] = r;
    }
    const struct gs_ynode *fl = gs_y_get(m, "flavors");
    if ((rc = want_seq_between(d, fl, gs_scn_path(p, "%s.flavors", path), 1, 64)))
        return rc;
    g->flavors = gs_arena_alloc(d->arena, sizeof *g->flavors * (size_t)fl->n);
    if (!g->flavors)
        return gs_y_nomem(d, NULL);
    static const char *const fkeys[] = {"name", "resources", NULL};
    for (int i = 0; i < fl->n; i++) {
        char fp[GS_SCN_PATH];
        gs_scn_path(fp, "%s[%d]", p, i);
        if ((rc = gs_y_check_map(d, fl->items[i], fp, fkeys, NULL, fkeys)))
            return rc;
        struct gs_kueue_flavor_quotas *fq = &g->flavors[g->nflavors];
        fq->flavor = -1;
        if ((rc = gs_y_kstr(d, gs_y_get(fl->items[i], "name"), gs_scn_path(pk, "%s.name", fp), &fq->name)))
            return rc;
        for (int gi = 0; gi <= cq->ngroups; gi++) {
            const struct gs_kueue_resource_group *og = gi < cq->ngroups ? &cq->groups[gi] : g;
            for (int k = 0; k < og->nflavors; k++)
                if (strcmp(og->flavors[k].name, fq->name) == 0)
                    return gs_y_error(d, gs_y_get(fl->items[i], "name"), "%s: Duplicate value: \"%s\": a flavor can "
                                      "be in one resourceGroup only", pk, fq->name);
        }
        if ((rc = flavor_resources(d, gs_y_get(fl->items[i], "resources"), gs_scn_path(pk, "%s.resources", fp), g,
                                   cq->cohort != NULL, fq)))
            return rc;
        g->nflavors++;
    }
    return 0;
}

/* namespaceSelector: null selects nothing, {} everything; matchLabels must fit namespace
 * "default" (label kubernetes.io/metadata.name=default) to select it. */
static int ns_selector(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_kueue_cq *cq)
{
    cq->selects_default = false;
    if (!m || gs_y_is_null(m))
        return 0;
    static const char *const keys[] = {"matchLabels", NULL};
    static const char *const unsup[] = {"matchExpressions", NULL};
    int rc = gs_y_check_map(d, m, path, keys, unsup, NULL);
    if (rc)
        return rc;
    struct gs_labels l = {0};
    const struct gs_ynode *ml = gs_y_get(m, "matchLabels");
    char p[GS_SCN_PATH];
    if (ml && !gs_y_is_null(ml) && (rc = gs_y_labels(d, ml, gs_scn_path(p, "%s.matchLabels", path), &l)))
        return rc;
    cq->selects_default = true;
    for (int i = 0; i < l.n; i++)
        if (strcmp(l.kv[i].key, "kubernetes.io/metadata.name") != 0 || strcmp(l.kv[i].value, "default") != 0)
            cq->selects_default = false;
    return 0;
}

static int cluster_queue(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_kueue_spec *s)
{
    static const char *const spec_keys[] = {"namespaceSelector", "cohort", "cohortName", "queueingStrategy",
                                            "resourceGroups", "preemption", NULL};
    static const char *const spec_later[] = {"admissionChecks", "admissionChecksStrategy", "flavorFungibility",
                                             "fairSharing", "stopPolicy", "admissionScope", NULL};
    char p[GS_SCN_PATH], pk[GS_SCN_PATH];
    const char *name;
    int rc;
    if ((rc = object_head(d, n, path, "ClusterQueue", false, &name, NULL)) ||
        (rc = check_new(d, n, "ClusterQueue", "clusterqueues", name, gs_kueue_find_cq(s, name) >= 0, s->ncqs)))
        return rc;
    struct gs_kueue_cq *cq = &s->cqs[s->ncqs];
    memset(cq, 0, sizeof *cq);
    cq->name = name;
    const struct gs_ynode *sp = gs_y_get(n, "spec");
    gs_scn_path(p, "%s.spec", path);
    if (sp && !gs_y_is_null(sp)) {
        if ((rc = gs_y_check_map(d, sp, p, spec_keys, spec_later, NULL)))
            return rc;
        const struct gs_ynode *v;
        if ((v = gs_y_get(sp, "cohort")) || (v = gs_y_get(sp, "cohortName"))) {
            if (!gs_y_is_null(v) && (rc = gs_y_kstr(d, v, gs_scn_path(pk, "%s.cohort", p), &cq->cohort)))
                return rc;
            if (cq->cohort && !*cq->cohort)
                cq->cohort = NULL;
        }
        if ((v = gs_y_get(sp, "queueingStrategy")) && !gs_y_is_null(v)) {
            static const char *const qs[] = {"BestEffortFIFO", "StrictFIFO", NULL};
            int i;
            if ((rc = gs_y_enum(d, v, gs_scn_path(pk, "%s.queueingStrategy", p), qs, &i)))
                return rc;
            cq->strategy = i == 1 ? GS_KQ_STRICT_FIFO : GS_KQ_BEST_EFFORT_FIFO;
        }
        if ((rc = ns_selector(d, gs_y_get(sp, "namespaceSelector"), gs_scn_path(pk, "%s.namespaceSelector", p), cq)))
            return rc;
        if ((v = gs_y_get(sp, "preemption")) && !gs_y_is_null(v) &&
            (rc = preemption(d, v, gs_scn_path(pk, "%s.preemption", p), cq)))
            return rc;
        if ((v = gs_y_get(sp, "resourceGroups")) && !gs_y_is_null(v)) {
            gs_scn_path(pk, "%s.resourceGroups", p);
            if ((rc = gs_y_want_seq(d, v, pk)))
                return rc;
            if (v->n > 16)
                return gs_y_error(d, v->items[16], "%s: Too many: %d: must have at most 16 items", pk, v->n);
            cq->groups = gs_arena_alloc(d->arena, sizeof *cq->groups * (size_t)(v->n ? v->n : 1));
            if (!cq->groups)
                return gs_y_nomem(d, NULL);
            for (int i = 0; i < v->n; i++) {
                char gp[GS_SCN_PATH];
                if ((rc = resource_group(d, v->items[i], gs_scn_path(gp, "%s[%d]", pk, i), cq, &cq->groups[i])))
                    return rc;
                cq->ngroups++;
            }
        }
    }
    s->ncqs++;
    return 0;
}

/* ------------------------------------------------------------------ LocalQueue, Topology */

static int local_queue(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_kueue_spec *s)
{
    static const char *const spec_keys[] = {"clusterQueue", NULL};
    static const char *const spec_later[] = {"stopPolicy", "fairSharing", NULL};
    char p[GS_SCN_PATH], pk[GS_SCN_PATH];
    const char *name, *ns;
    int rc;
    if ((rc = object_head(d, n, path, "LocalQueue", true, &name, &ns)) ||
        (rc = check_new(d, n, "LocalQueue", "localqueues", name, gs_kueue_find_lq(s, ns, name) >= 0, s->nlqs)))
        return rc;
    struct gs_kueue_lq *lq = &s->lqs[s->nlqs];
    lq->name = name;
    lq->namespace_ = ns;
    lq->cq = -1;
    const struct gs_ynode *sp = gs_y_get(n, "spec");
    if ((rc = gs_y_check_map(d, sp, gs_scn_path(p, "%s.spec", path), spec_keys, spec_later, spec_keys)) ||
        (rc = gs_y_kstr(d, gs_y_get(sp, "clusterQueue"), gs_scn_path(pk, "%s.clusterQueue", p), &lq->cluster_queue)))
        return rc;
    s->nlqs++;
    return 0;
}

static int topology(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_kueue_spec *s)
{
    static const char *const spec_keys[] = {"levels", NULL};
    char p[GS_SCN_PATH], pk[GS_SCN_PATH];
    const char *name;
    int rc;
    if ((rc = object_head(d, n, path, "Topology", true, &name, NULL)))
        return rc;
    bool exists = false;
    for (int i = 0; i < s->ntopologies; i++)
        exists |= strcmp(s->topologies[i].name, name) == 0;
    if ((rc = check_new(d, n, "Topology", "topologies", name, exists, s->ntopologies)))
        return rc;
    struct gs_kueue_topology *t = &s->topologies[s->ntopologies];
    t->name = name;
    const struct gs_ynode *sp = gs_y_get(n, "spec");
    if ((rc = gs_y_check_map(d, sp, gs_scn_path(p, "%s.spec", path), spec_keys, NULL, spec_keys)))
        return rc;
    const struct gs_ynode *lv = gs_y_get(sp, "levels");
    if ((rc = want_seq_between(d, lv, gs_scn_path(pk, "%s.levels", p), 1, 16)))
        return rc;
    t->levels = gs_arena_alloc(d->arena, sizeof *t->levels * (size_t)lv->n);
    if (!t->levels)
        return gs_y_nomem(d, NULL);
    static const char *const lkeys[] = {"nodeLabel", NULL};
    for (int i = 0; i < lv->n; i++) {
        char lp[GS_SCN_PATH], lk[GS_SCN_PATH];
        gs_scn_path(lp, "%s[%d]", pk, i);
        const char *label;
        if ((rc = gs_y_check_map(d, lv->items[i], lp, lkeys, NULL, lkeys)) ||
            (rc = gs_y_kstr(d, gs_y_get(lv->items[i], "nodeLabel"), gs_scn_path(lk, "%s.nodeLabel", lp), &label)))
            return rc;
        if (!gs_scn_is_qualified_name(label))
            return gs_y_error(d, gs_y_get(lv->items[i], "nodeLabel"), "%s: Invalid value: \"%.80s\": must be a "
                              "label key", lk, label);
        for (int k = 0; k < t->nlevels; k++)
            if (strcmp(t->levels[k], label) == 0)
                return gs_y_error(d, gs_y_get(lv->items[i], "nodeLabel"), "%s: Duplicate value: \"%s\"", lk, label);
        if (strcmp(label, "kubernetes.io/hostname") == 0 && i != lv->n - 1)
            return gs_y_error(d, gs_y_get(lv->items[i], "nodeLabel"), "%s: Invalid value: \"%s\": the "
                              "kubernetes.io/hostname label can only be used at the lowest level", lk, label);
        t->levels[t->nlevels++] = label;
    }
    s->ntopologies++;
    return 0;
}

int gs_scn_kueue_object(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *api_version,
                        const char *kind, struct gs_scenario *sc)
{
    struct gs_kueue_spec *s = spec_of(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    bool topo = strcmp(kind, "Topology") == 0;
    bool ok_version = strcmp(api_version, "kueue.x-k8s.io/v1beta1") == 0 ||
                      (topo && strcmp(api_version, "kueue.x-k8s.io/v1alpha1") == 0);
    if (!ok_version)
        return gs_y_error(d, gs_y_get(n, "apiVersion"), "no kind \"%s\" in apiVersion \"%.80s\" at %s: use %s", kind,
                          api_version, path, topo ? "kueue.x-k8s.io/v1alpha1" : "kueue.x-k8s.io/v1beta1");
    int rc;
    if (strcmp(kind, "ResourceFlavor") == 0)
        rc = resource_flavor(d, n, path, s);
    else if (strcmp(kind, "ClusterQueue") == 0)
        rc = cluster_queue(d, n, path, s);
    else if (strcmp(kind, "LocalQueue") == 0)
        rc = local_queue(d, n, path, s);
    else
        rc = topology(d, n, path, s);
    if (!rc)
        gs_kueue_spec_resolve(s);
    return rc;
}

/* ------------------------------------------------------------------ Configuration, version */

static int requeuing(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_kueue_config *c)
{
    static const char *const keys[] = {"timestamp", "backoffLimitCount", "backoffBaseSeconds", "backoffMaxSeconds",
                                       NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *v;
    int64_t x;
    if ((v = gs_y_get(m, "timestamp")) && !gs_y_is_null(v)) {
        static const char *const ts[] = {"Eviction", "Creation", NULL};
        int i;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.timestamp", path), ts, &i)))
            return rc;
        c->timestamp_creation = i == 1;
    }
    if ((v = gs_y_get(m, "backoffLimitCount")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.backoffLimitCount", path), 0, INT32_MAX, &x)))
            return rc;
        c->backoff_limit_count = (int)x;
    }
    if ((v = gs_y_get(m, "backoffBaseSeconds")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.backoffBaseSeconds", path), 0, INT32_MAX, &x)))
            return rc;
        c->backoff_base_s = x;
    }
    if ((v = gs_y_get(m, "backoffMaxSeconds")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.backoffMaxSeconds", path), 1, INT32_MAX, &x)))
            return rc;
        c->backoff_max_s = x;
    }
    return 0;
}

static int wait_for_pods_ready(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_kueue_config *c)
{
    static const char *const keys[] = {"enable", "timeout", "blockAdmission", "requeuingStrategy", NULL};
    static const char *const later[] = {"recoveryTimeout", NULL};
    int rc = gs_y_check_map(d, m, path, keys, later, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *v;
    if ((v = gs_y_get(m, "enable")) && !gs_y_is_null(v) &&
        (rc = gs_y_bool(d, v, gs_scn_path(p, "%s.enable", path), &c->wait_for_pods_ready)))
        return rc;
    if ((v = gs_y_get(m, "timeout")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_duration(d, v, gs_scn_path(p, "%s.timeout", path), false, &c->pods_ready_timeout)))
            return rc;
        if (c->pods_ready_timeout <= 0)
            return gs_y_error(d, v, "%s: Invalid value: \"%s\": must be greater than 0", p, v->text);
    }
    if ((v = gs_y_get(m, "blockAdmission")) && !gs_y_is_null(v) &&
        (rc = gs_y_bool(d, v, gs_scn_path(p, "%s.blockAdmission", path), &c->block_admission)))
        return rc;
    if ((v = gs_y_get(m, "requeuingStrategy")) && !gs_y_is_null(v) &&
        (rc = requeuing(d, v, gs_scn_path(p, "%s.requeuingStrategy", path), c)))
        return rc;
    return 0;
}

int gs_scn_kueue_config(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc)
{
    static const char *const keys[] = {"apiVersion", "kind", "waitForPodsReady", "namespace", "health",
                                       "metrics", "webhook", "controller", "clientConnection",
                                       "leaderElection", "internalCertManagement", "queueVisibility", NULL};
    static const char *const later[] = {"manageJobsWithoutQueueName", "fairSharing", "admissionFairSharing",
                                        "multiKueue", "resources", "objectRetentionPolicies", "featureGates",
                                        "integrations", NULL};
    struct gs_kueue_spec *s = spec_of(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    int rc = gs_y_check_map(d, n, path, keys, later, NULL);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *v;
    const char *str;
    if ((v = gs_y_get(n, "apiVersion"))) {
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.apiVersion", path), &str)))
            return rc;
        if (strcmp(str, "config.kueue.x-k8s.io/v1beta1") != 0)
            return gs_y_error(d, v, "unsupported apiVersion \"%.80s\" at %s: expected config.kueue.x-k8s.io/v1beta1",
                              str, p);
    }
    if ((v = gs_y_get(n, "kind"))) {
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.kind", path), &str)))
            return rc;
        if (strcmp(str, "Configuration") != 0)
            return gs_y_error(d, v, "unsupported kind \"%.80s\" at %s: expected Configuration", str, p);
    }
    /* process settings: checked for type, otherwise ignored */
    static const char *const maps[] = {"health", "metrics", "webhook", "controller", "clientConnection",
                                       "leaderElection", "internalCertManagement", "queueVisibility", NULL};
    for (int i = 0; maps[i]; i++)
        if ((v = gs_y_get(n, maps[i])) && !gs_y_is_null(v) &&
            (rc = gs_y_want_map(d, v, gs_scn_path(p, "%s.%s", path, maps[i]))))
            return rc;
    if ((v = gs_y_get(n, "namespace")) && !gs_y_is_null(v) &&
        (rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.namespace", path), &str)))
        return rc;
    s->has_config = true;
    if ((v = gs_y_get(n, "waitForPodsReady")) && !gs_y_is_null(v) &&
        (rc = wait_for_pods_ready(d, v, gs_scn_path(p, "%s.waitForPodsReady", path), &s->config)))
        return rc;
    return 0;
}

int gs_scn_kueue_version(struct gs_ydec *d, const struct gs_ynode *v, const char *path, struct gs_scenario *sc)
{
    const char *ver;
    int rc = gs_y_str(d, v, path, &ver);
    if (rc)
        return rc;
    unsigned minor, patch;
    char tail;
    if (sscanf(ver, "v0.%u.%u%c", &minor, &patch, &tail) != 2 || minor < 13 || minor > 15) {
        char what[GS_SCN_PATH];
        gs_scn_path(what, "%s: %.40s (gpusim models Kueue v0.13.x to v0.15.x)", path, ver);
        return gs_y_unsupported(d, v, what);
    }
    struct gs_kueue_spec *s = spec_of(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    s->version = ver;
    return 0;
}

int gs_scn_kueue_queue_label(struct gs_ydec *d, const struct gs_ynode *meta, const char *path, const char *workload,
                             struct gs_scenario *sc)
{
    const struct gs_ynode *l = gs_y_get(gs_y_get(meta, "labels"), "kueue.x-k8s.io/queue-name");
    if (!l)
        return 0;
    if (l->type != GS_Y_SCALAR || !gs_scn_is_dns_subdomain(l->text) || strlen(l->text) > 63)
        return gs_y_error(d, l, "%s.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"%.80s\": must be a "
                          "LocalQueue name (a DNS-1123 label)", path, l->type == GS_Y_SCALAR ? l->text : "");
    struct gs_kueue_spec *s = spec_of(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    if (GS_ARENA_GROW(d->arena, s->labels, s->labels_cap, s->nlabels + 1))
        return gs_y_nomem(d, NULL);
    s->labels[s->nlabels].workload = workload;
    s->labels[s->nlabels].queue = l->text;
    s->nlabels++;
    return 0;
}
