/* gpusim: DRA in a scenario (decode.h gs_scn_dra_*): resource.k8s.io/v1 DeviceClass,
 * ResourceClaim and ResourceClaimTemplate in spec.objects (v1beta2 has the same shape and is
 * accepted too), a pod's spec.resourceClaims, operator.draDriver (the NVIDIA DRA driver
 * chart's values), spec.versions.dra-driver-nvidia-gpu and ResourceClaim status expectations.
 * Everything goes to sc->dra (dra_state.h), in the scenario's arena.
 *
 * Checks follow the API server's validation where cheap (kubernetes pkg/apis/resource/
 * validation: request names are DNS labels, exactly one of exactly / firstAvailable,
 * allocationMode ExactCount | All, count >= 1 only with ExactCount, at most 32 requests and
 * selectors) and compile every CEL selector (the API server compiles them too): a bad
 * expression is an error at its position with the column inside it. gpusim's choices (all
 * objects exist from t=0, so a reference to a missing one can only be a typo): a request's
 * deviceClassName must name a class of spec.objects or of the driver chart, and a pod's
 * resourceClaimName / resourceClaimTemplateName must name an object of spec.objects; both are
 * errors with a suggestion. constraints, config, firstAvailable, adminAccess, tolerations and
 * the computeDomains part of the driver are "not supported yet". */
#include <stdio.h>
#include <string.h>

#include "models/dra/dra_state.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/ydec_util.h"

#define GS_DRA_MAX_OBJECTS 256
#define GS_DRA_MAX_REQUESTS 32
#define GS_DRA_MAX_SELECTORS 32

struct gs_dra_spec *gs_scn_dra_spec(struct gs_ydec *d, struct gs_scenario *sc)
{
    if (sc->dra)
        return sc->dra;
    struct gs_dra_spec *s = gs_arena_alloc(d->arena, sizeof *s);
    if (!s)
        return NULL;
    s->classes = gs_arena_alloc(d->arena, sizeof *s->classes * (GS_DRA_MAX_OBJECTS + 2));
    s->templates = gs_arena_alloc(d->arena, sizeof *s->templates * GS_DRA_MAX_OBJECTS);
    s->claims = gs_arena_alloc(d->arena, sizeof *s->claims * GS_DRA_MAX_OBJECTS);
    if (!s->classes || !s->templates || !s->claims)
        return NULL;
    s->plugin_default_affinity = true;
    sc->dra = s;
    return s;
}

void gs_scn_dra_free(struct gs_scenario *sc)
{
    if (sc)
        gs_dra_spec_free(sc->dra);
}

/* Check that `seq` (at `path`) is a sequence of at most `max` items, with the API server's
 * "<path>: Too many: <n>: must have at most <max> items". Returns 0 or GS_EINVAL (d->err set). */
static int want_seq_max(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, int max)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (!rc && seq->n > max)
        rc = gs_y_error(d, seq, "%s: Too many: %d: must have at most %d items", path, seq->n, max);
    return rc;
}

/* ------------------------------------------------------------------ CEL selectors */

/* A CEL error at the expression's scalar `n`: the position points into the expression when it
 * sits on one line (plain or quoted: one column more for the quote). */
static int cel_error(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const struct gs_error *ce)
{
    int col = n->col;
    if (ce->col > 0 && !strchr(n->text, '\n'))
        col += (n->plain ? 0 : 1) + ce->col - 1;
    gs_y_error(d, n, "invalid CEL expression at %s: %s", path, ce->msg);
    d->err->col = col;
    return GS_EINVAL;
}

/* selectors: [{cel: {expression}}] into *out (programs compiled). */
static int selectors(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, struct gs_dra_selector **out,
                     int *nout)
{
    *out = NULL;
    *nout = 0;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = want_seq_max(d, seq, path, GS_DRA_MAX_SELECTORS);
    if (rc)
        return rc;
    struct gs_dra_selector *s = gs_arena_alloc(d->arena, sizeof *s * (size_t)(seq->n ? seq->n : 1));
    if (!s)
        return gs_y_nomem(d, NULL);
    static const char *const keys[] = {"cel", NULL};
    static const char *const cel_keys[] = {"expression", NULL};
    for (int i = 0; i < seq->n; i++) {
        char p[GS_SCN_PATH], pc[GS_SCN_PATH], pe[GS_SCN_PATH];
        gs_scn_path(p, "%s[%d]", path, i);
        const struct gs_ynode *it = seq->items[i];
        if ((rc = gs_y_check_map(d, it, p, keys, NULL, keys)))
            return rc;
        const struct gs_ynode *cel = gs_y_get(it, "cel");
        if ((rc = gs_y_check_map(d, cel, gs_scn_path(pc, "%s.cel", p), cel_keys, NULL, cel_keys)))
            return rc;
        const struct gs_ynode *e = gs_y_get(cel, "expression");
        if ((rc = gs_y_kstr(d, e, gs_scn_path(pe, "%s.expression", pc), &s[i].expression)))
            return rc;
        struct gs_error ce = {0};
        rc = gs_cel_compile(s[i].expression, &s[i].prog, &ce);
        if (rc == GS_ENOMEM)
            return gs_y_nomem(d, NULL);
        if (rc) {
            for (int k = 0; k < i; k++)
                gs_cel_free(s[k].prog), s[k].prog = NULL;
            return cel_error(d, e, pe, &ce);
        }
        *nout = i + 1;
        *out = s;
    }
    return 0;
}

static void free_selectors(struct gs_dra_selector *s, int n)
{
    for (int i = 0; s && i < n; i++) {
        gs_cel_free(s[i].prog);
        s[i].prog = NULL;
    }
}

/* ------------------------------------------------------------------ claim specs */

static int request(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_dra_request *r)
{
    static const char *const keys[] = {"name", "exactly", NULL};
    static const char *const later[] = {"firstAvailable", NULL};
    static const char *const req[] = {"name", NULL};
    static const char *const ex_keys[] = {"deviceClassName", "selectors", "allocationMode", "count", NULL};
    static const char *const ex_later[] = {"adminAccess", "tolerations", "capacity", NULL};
    static const char *const ex_req[] = {"deviceClassName", NULL};
    static const char *const modes[] = {"ExactCount", "All", NULL};
    char p[GS_SCN_PATH], pe[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, later, req);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "name");
    if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.name", path), &r->name)))
        return rc;
    if (!gs_scn_is_dns_label(r->name))
        return gs_y_error(d, v, "%s: Invalid value: \"%.80s\": a request name must be a DNS-1123 label", p, r->name);
    const struct gs_ynode *ex = gs_y_get(n, "exactly");
    if (!ex || gs_y_is_null(ex))
        return gs_y_error(d, n, "%s: Required value: exactly one of `exactly` or `firstAvailable` is required",
                          path);
    gs_scn_path(pe, "%s.exactly", path);
    if ((rc = gs_y_check_map(d, ex, pe, ex_keys, ex_later, ex_req)))
        return rc;
    v = gs_y_get(ex, "deviceClassName");
    if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.deviceClassName", pe), &r->device_class_name)))
        return rc;
    if (!gs_scn_is_dns_subdomain(r->device_class_name))
        return gs_y_error(d, v, "%s: Invalid value: \"%.80s\": must be a DNS-1123 subdomain", p,
                          r->device_class_name);
    r->mode = GS_DRA_EXACT_COUNT;
    r->count = 1;
    if ((v = gs_y_get(ex, "allocationMode")) && !gs_y_is_null(v)) {
        int m;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.allocationMode", pe), modes, &m)))
            return rc;
        r->mode = m == 1 ? GS_DRA_ALL : GS_DRA_EXACT_COUNT;
    }
    if ((v = gs_y_get(ex, "count")) && !gs_y_is_null(v)) {
        if (r->mode == GS_DRA_ALL)
            return gs_y_error(d, v, "%s.count: Invalid value: must not be set when allocationMode is All", pe);
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.count", pe), 1, GS_DRA_ALLOCATION_RESULTS_MAX, &r->count)))
            return rc;
    }
    return selectors(d, gs_y_get(ex, "selectors"), gs_scn_path(p, "%s.selectors", pe), &r->selectors,
                     &r->nselectors);
}

/* A ResourceClaimSpec {devices: {requests}} at `path`. */
static int claim_spec(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_dra_claim_spec *s)
{
    static const char *const keys[] = {"devices", NULL};
    static const char *const dkeys[] = {"requests", NULL};
    static const char *const dlater[] = {"constraints", "config", NULL};
    char p[GS_SCN_PATH], pr[GS_SCN_PATH];
    memset(s, 0, sizeof *s);
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *dev = gs_y_get(n, "devices");
    if ((rc = gs_y_check_map(d, dev, gs_scn_path(p, "%s.devices", path), dkeys, dlater, NULL)))
        return rc;
    const struct gs_ynode *reqs = gs_y_get(dev, "requests");
    if (!reqs || gs_y_is_null(reqs))
        return 0; /* an empty claim: allocated with no devices */
    gs_scn_path(pr, "%s.requests", p);
    if ((rc = want_seq_max(d, reqs, pr, GS_DRA_MAX_REQUESTS)))
        return rc;
    s->requests = gs_arena_alloc(d->arena, sizeof *s->requests * (size_t)(reqs->n ? reqs->n : 1));
    if (!s->requests)
        return gs_y_nomem(d, NULL);
    for (int i = 0; i < reqs->n; i++) {
        char pi[GS_SCN_PATH];
        rc = request(d, reqs->items[i], gs_scn_path(pi, "%s[%d]", pr, i), &s->requests[i]);
        if (rc) {
            free_selectors(s->requests[i].selectors, s->requests[i].nselectors);
            gs_dra_claim_spec_free(s);
            s->nrequests = 0;
            return rc;
        }
        s->nrequests = i + 1;
        for (int k = 0; k < i; k++)
            if (strcmp(s->requests[k].name, s->requests[i].name) == 0) {
                gs_dra_claim_spec_free(s);
                s->nrequests = 0;
                return gs_y_error(d, gs_y_get(reqs->items[i], "name"), "%s[%d].name: Duplicate value: \"%s\"", pr, i,
                                  s->requests[i].name);
            }
    }
    return 0;
}

/* ------------------------------------------------------------------ objects */

static int object_meta(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool namespaced,
                       const char **name, const struct gs_ynode **name_node, const char **ns)
{
    char p[GS_SCN_PATH];
    const struct gs_ynode *md = gs_y_get(n, "metadata");
    int rc;
    if ((rc = gs_y_want_map(d, md, gs_scn_path(p, "%s.metadata", path))) ||
        (rc = gs_scn_metadata(d, md, p, true, name, name_node, NULL, NULL)))
        return rc;
    if (!gs_scn_is_dns_subdomain(*name))
        return gs_y_error(d, *name_node, "%s.name: Invalid value: \"%.80s\": must be a DNS-1123 subdomain", p, *name);
    *ns = NULL;
    if (namespaced) {
        *ns = "default";
        const struct gs_ynode *v = gs_y_get(md, "namespace");
        if (v && !gs_y_is_null(v) && (rc = gs_y_kstr(d, v, p, ns)))
            return rc;
    }
    return 0;
}

static bool av_ok(const char *av)
{
    return strcmp(av, "resource.k8s.io/v1") == 0 || strcmp(av, "resource.k8s.io/v1beta2") == 0;
}

int gs_scn_dra_object(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *api_version,
                      const char *kind, struct gs_scenario *sc)
{
    char p[GS_SCN_PATH];
    if (!av_ok(api_version))
        return gs_y_unsupported(d, gs_y_get(n, "apiVersion"),
                                gs_scn_path(p, "%s.apiVersion: %.60s (gpusim reads resource.k8s.io/v1 and v1beta2)",
                                            path, api_version));
    /* DRA with structured parameters is GA and on by default from 1.34 (resource.k8s.io/v1);
     * 1.31-1.33 serve v1alpha3/v1beta1/v1beta2 behind the DynamicResourceAllocation gate. */
    if (sc->k8s_minor < 34)
        return gs_y_error(d, gs_y_get(n, "apiVersion"),
                          "%s: %s %.60s needs kubernetesVersion 1.34 or later (spec.kubernetesVersion is 1.%d; "
                          "gpusim models DRA as it is on by default from 1.34)",
                          path, kind, api_version, sc->k8s_minor);
    struct gs_dra_spec *s = gs_scn_dra_spec(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    static const char *const req[] = {"metadata", "spec", NULL};
    static const char *const later[] = {"status", NULL};
    int rc = gs_y_check_map(d, n, path, keys, later, req);
    if (rc)
        return rc;
    const char *name, *ns;
    const struct gs_ynode *name_node;
    const struct gs_ynode *spec = gs_y_get(n, "spec");
    char sp[GS_SCN_PATH];
    gs_scn_path(sp, "%s.spec", path);
    if (strcmp(kind, "DeviceClass") == 0) {
        if ((rc = object_meta(d, n, path, false, &name, &name_node, &ns)))
            return rc;
        for (int i = 0; i < s->nclasses; i++)
            if (strcmp(s->classes[i].name, name) == 0)
                return gs_y_error(d, name_node, "duplicate DeviceClass \"%s\"", name);
        if (s->nclasses >= GS_DRA_MAX_OBJECTS)
            return gs_y_error(d, n, "%s: more than %d DeviceClasses", path, GS_DRA_MAX_OBJECTS);
        static const char *const ckeys[] = {"selectors", "extendedResourceName", NULL};
        static const char *const clater[] = {"config", NULL};
        if ((rc = gs_y_check_map(d, spec, sp, ckeys, clater, NULL)))
            return rc;
        struct gs_device_class *c = &s->classes[s->nclasses];
        memset(c, 0, sizeof *c);
        c->name = name;
        const struct gs_ynode *v = gs_y_get(spec, "extendedResourceName");
        if (v && !gs_y_is_null(v) && (rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.extendedResourceName", sp),
                                                      &c->extended_resource_name)))
            return rc;
        if ((rc = selectors(d, gs_y_get(spec, "selectors"), gs_scn_path(p, "%s.selectors", sp), &c->selectors,
                            &c->nselectors)))
            return rc;
        s->nclasses++;
        return 0;
    }
    if ((rc = object_meta(d, n, path, true, &name, &name_node, &ns)))
        return rc;
    if (strcmp(kind, "ResourceClaimTemplate") == 0) {
        for (int i = 0; i < s->ntemplates; i++)
            if (strcmp(s->templates[i].name, name) == 0 && strcmp(s->templates[i].namespace_, ns) == 0)
                return gs_y_error(d, name_node, "duplicate ResourceClaimTemplate \"%s/%s\"", ns, name);
        if (s->ntemplates >= GS_DRA_MAX_OBJECTS)
            return gs_y_error(d, n, "%s: more than %d ResourceClaimTemplates", path, GS_DRA_MAX_OBJECTS);
        static const char *const tkeys[] = {"metadata", "spec", NULL};
        static const char *const treq[] = {"spec", NULL};
        if ((rc = gs_y_check_map(d, spec, sp, tkeys, NULL, treq)))
            return rc;
        const struct gs_ynode *md = gs_y_get(spec, "metadata");
        const char *ignored;
        if (md && !gs_y_is_null(md) &&
            (rc = gs_scn_metadata(d, md, gs_scn_path(p, "%s.metadata", sp), false, &ignored, NULL, NULL, NULL)))
            return rc;
        struct gs_resource_claim_template *t = &s->templates[s->ntemplates];
        t->name = name;
        t->namespace_ = ns;
        if ((rc = claim_spec(d, gs_y_get(spec, "spec"), gs_scn_path(p, "%s.spec", sp), &t->spec)))
            return rc;
        s->ntemplates++;
        return 0;
    }
    /* ResourceClaim */
    for (int i = 0; i < s->nclaims; i++)
        if (strcmp(s->claims[i].name, name) == 0 && strcmp(s->claims[i].namespace_, ns) == 0)
            return gs_y_error(d, name_node, "duplicate ResourceClaim \"%s/%s\"", ns, name);
    if (s->nclaims >= GS_DRA_MAX_OBJECTS)
        return gs_y_error(d, n, "%s: more than %d ResourceClaims", path, GS_DRA_MAX_OBJECTS);
    struct gs_dra_claim_obj *c = &s->claims[s->nclaims];
    c->name = name;
    c->namespace_ = ns;
    if ((rc = claim_spec(d, spec, sp, &c->spec)))
        return rc;
    s->nclaims++;
    return 0;
}

/* ------------------------------------------------------------------ pod spec.resourceClaims */

int gs_scn_dra_pod_claims(struct gs_ydec *d, const struct gs_ynode *seq, const char *path,
                          const struct gs_pod_claims **out)
{
    *out = NULL;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = want_seq_max(d, seq, path, GS_DRA_POD_CLAIMS_MAX);
    if (rc || seq->n == 0)
        return rc;
    struct gs_pod_claims *pc = gs_arena_alloc(d->arena, sizeof *pc);
    struct gs_pod_claim_ref *refs = gs_arena_alloc(d->arena, sizeof *refs * (size_t)seq->n);
    if (!pc || !refs)
        return gs_y_nomem(d, NULL);
    static const char *const keys[] = {"name", "resourceClaimName", "resourceClaimTemplateName", NULL};
    static const char *const req[] = {"name", NULL};
    for (int i = 0; i < seq->n; i++) {
        char p[GS_SCN_PATH], pk[GS_SCN_PATH];
        const struct gs_ynode *it = seq->items[i];
        gs_scn_path(p, "%s[%d]", path, i);
        if ((rc = gs_y_check_map(d, it, p, keys, NULL, req)))
            return rc;
        struct gs_pod_claim_ref *r = &refs[i];
        const struct gs_ynode *v = gs_y_get(it, "name");
        if ((rc = gs_y_kstr(d, v, gs_scn_path(pk, "%s.name", p), &r->name)))
            return rc;
        if (!gs_scn_is_dns_label(r->name))
            return gs_y_error(d, v, "%s: Invalid value: \"%.80s\": must be a DNS-1123 label", pk, r->name);
        for (int k = 0; k < i; k++)
            if (strcmp(refs[k].name, r->name) == 0)
                return gs_y_error(d, v, "%s: Duplicate value: \"%s\"", pk, r->name);
        const struct gs_ynode *cn = gs_y_get(it, "resourceClaimName");
        const struct gs_ynode *tn = gs_y_get(it, "resourceClaimTemplateName");
        if (cn && gs_y_is_null(cn))
            cn = NULL;
        if (tn && gs_y_is_null(tn))
            tn = NULL;
        if ((cn != NULL) == (tn != NULL))
            return gs_y_error(d, it,
                              "%s: Invalid value: must specify one of: `resourceClaimName`, "
                              "`resourceClaimTemplateName`",
                              p);
        const struct gs_ynode *src = cn ? cn : tn;
        const char **dst = cn ? &r->claim_name : &r->template_name;
        if ((rc = gs_y_kstr(d, src, gs_scn_path(pk, "%s.%s", p, cn ? "resourceClaimName" : "resourceClaimTemplateName"),
                            dst)))
            return rc;
        r->file = src->file;
        r->line = src->line;
        r->col = src->col;
    }
    pc->refs = refs;
    pc->n = seq->n;
    *out = pc;
    return 0;
}

/* ------------------------------------------------------------------ operator.draDriver, versions */

int gs_scn_dra_version(struct gs_ydec *d, const struct gs_ynode *v, const char *path, struct gs_scenario *sc)
{
    const char *ver;
    int rc = gs_y_str(d, v, path, &ver);
    if (rc)
        return rc;
    const char *t = ver[0] == 'v' ? ver + 1 : ver;
    /* Releases: v25.3.x, v25.8.x (index and minor attributes), v25.12.x, then 0.4.x and 0.5.x
     * under kubernetes-sigs (index removed, commit 36fc80ab). */
    static const char *const index_releases[] = {"25.3.", "25.8.", NULL};
    static const char *const releases[] = {"25.12.", "0.4.", "0.5.", NULL};
    bool idx = false, known = false;
    for (int i = 0; index_releases[i]; i++)
        if (strncmp(t, index_releases[i], strlen(index_releases[i])) == 0)
            idx = known = true;
    for (int i = 0; releases[i]; i++)
        if (strncmp(t, releases[i], strlen(releases[i])) == 0)
            known = true;
    if (!known) {
        char what[GS_SCN_PATH];
        gs_scn_path(what, "%s: %.40s (gpusim models v25.3.x, v25.8.x, v25.12.x, 0.4.x and 0.5.x)", path, ver);
        return gs_y_unsupported(d, v, what);
    }
    struct gs_dra_spec *s = gs_scn_dra_spec(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    s->chart_version = ver;
    s->publish_index = idx;
    return 0;
}

static int enabled_section(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool *out)
{
    static const char *const keys[] = {"enabled", NULL};
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    const struct gs_ynode *v = gs_y_get(n, "enabled");
    char p[GS_SCN_PATH];
    if (!rc && v && !gs_y_is_null(v))
        rc = gs_y_bool(d, v, gs_scn_path(p, "%s.enabled", path), out);
    return rc;
}

int gs_scn_dra_driver(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc)
{
    static const char *const keys[] = {"enabled", "gpus", "computeDomains", "resources", "kubeletPlugin",
                                       "featureGates", "nvidiaDriverRoot", "logVerbosity", "image", NULL};
    static const char *const later[] = {"controller", "gpuResourcesEnabledOverride", NULL};
    int rc = gs_y_check_map(d, n, path, keys, later, NULL);
    if (rc)
        return rc;
    struct gs_dra_spec *s = gs_scn_dra_spec(d, sc);
    if (!s)
        return gs_y_nomem(d, NULL);
    char p[GS_SCN_PATH];
    bool enabled = true, gpus = true, cds = false;
    const struct gs_ynode *v;
    if ((v = gs_y_get(n, "enabled")) && !gs_y_is_null(v) &&
        (rc = gs_y_bool(d, v, gs_scn_path(p, "%s.enabled", path), &enabled)))
        return rc;
    /* The chart's values: resources.gpus.enabled, resources.computeDomains.enabled; gpusim also
     * takes them one level up. */
    const struct gs_ynode *res = gs_y_get(n, "resources");
    if (res && !gs_y_is_null(res)) {
        static const char *const rkeys[] = {"gpus", "computeDomains", NULL};
        if ((rc = gs_y_check_map(d, res, gs_scn_path(p, "%s.resources", path), rkeys, NULL, NULL)))
            return rc;
    }
    for (int k = 0; k < 2; k++) {
        const struct gs_ynode *base = k ? res : n;
        if (!base || gs_y_is_null(base))
            continue;
        char bp[GS_SCN_PATH];
        gs_scn_path(bp, k ? "%s.resources" : "%s", path);
        if ((v = gs_y_get(base, "gpus")) && (rc = enabled_section(d, v, gs_scn_path(p, "%s.gpus", bp), &gpus)))
            return rc;
        if ((v = gs_y_get(base, "computeDomains"))) {
            if ((rc = enabled_section(d, v, gs_scn_path(p, "%s.computeDomains", bp), &cds)))
                return rc;
            if (cds)
                return gs_y_unsupported(d, v, gs_scn_path(p, "%s.computeDomains.enabled: true", bp));
        }
    }
    if ((v = gs_y_get(n, "featureGates")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_want_map(d, v, gs_scn_path(p, "%s.featureGates", path))))
            return rc;
        if (v->n > 0)
            return gs_y_unsupported(d, v->pairs[0].key,
                                    gs_scn_path(p, "%s.featureGates.%s", path, v->pairs[0].key->text));
    }
    const struct gs_ynode *kp = gs_y_get(n, "kubeletPlugin");
    if (kp && !gs_y_is_null(kp)) {
        char kpp[GS_SCN_PATH];
        gs_scn_path(kpp, "%s.kubeletPlugin", path);
        static const char *const kkeys[] = {"nodeSelector", "tolerations", "affinity", "priorityClassName",
                                            "podAnnotations", "containers", "updateStrategy", NULL};
        if ((rc = gs_y_check_map(d, kp, kpp, kkeys, NULL, NULL)))
            return rc;
        if ((v = gs_y_get(kp, "nodeSelector")) && !gs_y_is_null(v) &&
            (rc = gs_y_labels(d, v, gs_scn_path(p, "%s.nodeSelector", kpp), &s->plugin_node_selector)))
            return rc;
        if ((v = gs_y_get(kp, "tolerations")) && !gs_y_is_null(v)) {
            struct gs_toleration *t;
            if ((rc = gs_scn_tolerations(d, v, gs_scn_path(p, "%s.tolerations", kpp), &t,
                                         &s->nplugin_tolerations)))
                return rc;
            s->plugin_tolerations = t;
        }
        if ((v = gs_y_get(kp, "affinity"))) {
            if (!gs_y_is_null(v))
                return gs_y_unsupported(d, v, gs_scn_path(p, "%s.affinity (only null, for no affinity)", kpp));
            s->plugin_default_affinity = false;
        }
    }
    s->driver = enabled && gpus;
    return 0;
}

/* ------------------------------------------------------------------ checks after loading */

/* An error at a recorded position. */
static int error_at(struct gs_ydec *d, const char *file, int line, int col, const char *fmt, const char *a,
                    const char *b, const char *c)
{
    struct gs_ynode at = {.type = GS_Y_SCALAR, .file = file, .line = line, .col = col, .text = ""};
    return gs_y_error(d, &at, fmt, a, b, c);
}

static int check_classes(struct gs_ydec *d, const struct gs_ynode *objects, struct gs_dra_spec *s,
                         const struct gs_dra_claim_spec *cs, const char *kind, const char *name)
{
    const char *names[GS_DRA_MAX_OBJECTS + 3];
    int k = 0;
    for (int i = 0; i < s->nclasses && k < GS_DRA_MAX_OBJECTS + 2; i++)
        names[k++] = s->classes[i].name;
    names[k] = NULL;
    for (int r = 0; r < cs->nrequests; r++) {
        const char *cn = cs->requests[r].device_class_name;
        if (gs_dra_spec_class(s, cn))
            continue;
        /* Find the deviceClassName node of this object for the position. */
        const struct gs_ynode *at = objects;
        for (int i = 0; objects && i < objects->n; i++) {
            const struct gs_ynode *o = objects->items[i];
            const struct gs_ynode *md = gs_y_get(o, "metadata"), *kn = gs_y_get(o, "kind");
            const struct gs_ynode *nm = gs_y_get(md, "name");
            if (!kn || !nm || strcmp(kn->text, kind) != 0 || strcmp(nm->text, name) != 0)
                continue;
            const struct gs_ynode *sp = gs_y_get(o, "spec");
            if (strcmp(kind, "ResourceClaimTemplate") == 0)
                sp = gs_y_get(sp, "spec");
            const struct gs_ynode *reqs = gs_y_get(gs_y_get(sp, "devices"), "requests");
            if (reqs && reqs->type == GS_Y_SEQ && r < reqs->n)
                at = gs_y_get(gs_y_get(reqs->items[r], "exactly"), "deviceClassName");
        }
        const char *near = gs_y_suggest(cn, names);
        if (!at)
            at = objects;
        if (near)
            return gs_y_error(d, at,
                              "unknown DeviceClass \"%s\" in %s %s, request %s (did you mean '%s'?): classes come "
                              "from spec.objects and, with operator.draDriver, the driver chart",
                              cn, kind, name, cs->requests[r].name, near);
        return gs_y_error(d, at,
                          "unknown DeviceClass \"%s\" in %s %s, request %s: classes come from spec.objects and, "
                          "with operator.draDriver, the driver chart (gpu.nvidia.com, mig.nvidia.com)",
                          cn, kind, name, cs->requests[r].name);
    }
    return 0;
}

static int check_pod_claims(struct gs_ydec *d, const struct gs_dra_spec *s, const struct gs_pod_claims *pc)
{
    for (int i = 0; pc && i < pc->n; i++) {
        const struct gs_pod_claim_ref *r = &pc->refs[i];
        const char *names[GS_DRA_MAX_OBJECTS + 1];
        int k = 0;
        if (r->template_name) {
            if (s && gs_dra_spec_template(s, "default", r->template_name))
                continue;
            for (int j = 0; s && j < s->ntemplates; j++)
                names[k++] = s->templates[j].name;
            names[k] = NULL;
            const char *near = gs_y_suggest(r->template_name, names);
            return error_at(d, r->file, r->line, r->col,
                            near ? "ResourceClaimTemplate \"%s\" not found%s%s'?): templates come from spec.objects"
                                 : "ResourceClaimTemplate \"%s\" not found%s%s: templates come from spec.objects",
                            r->template_name, near ? " (did you mean '" : "", near ? near : "");
        }
        bool found = false;
        for (int j = 0; s && j < s->nclaims && !found; j++)
            found = strcmp(s->claims[j].name, r->claim_name) == 0 && strcmp(s->claims[j].namespace_, "default") == 0;
        if (found)
            continue;
        for (int j = 0; s && j < s->nclaims; j++)
            names[k++] = s->claims[j].name;
        names[k] = NULL;
        const char *near = gs_y_suggest(r->claim_name, names);
        return error_at(d, r->file, r->line, r->col,
                        near ? "ResourceClaim \"%s\" not found%s%s'?): claims come from spec.objects"
                             : "ResourceClaim \"%s\" not found%s%s: claims come from spec.objects",
                        r->claim_name, near ? " (did you mean '" : "", near ? near : "");
    }
    return 0;
}

int gs_scn_dra_finish(struct gs_ydec *d, const struct gs_ynode *objects, struct gs_scenario *sc)
{
    struct gs_dra_spec *s = sc->dra;
    int rc;
    if (s && s->driver) {
        /* The chart's DeviceClasses, unless spec.objects has one of that name. */
        struct gs_device_class nv[2];
        if ((rc = gs_device_class_nvidia(nv, d->arena, s->extended_resource, d->err)))
            return rc == GS_ENOMEM ? gs_y_nomem(d, NULL) : rc;
        for (int i = 0; i < 2; i++) {
            if (gs_dra_spec_class(s, nv[i].name))
                gs_device_class_free(&nv[i]);
            else
                s->classes[s->nclasses++] = nv[i];
        }
    }
    if (s) {
        for (int i = 0; i < s->ntemplates; i++)
            if ((rc = check_classes(d, objects, s, &s->templates[i].spec, "ResourceClaimTemplate", s->templates[i].name)))
                return rc;
        for (int i = 0; i < s->nclaims; i++)
            if ((rc = check_classes(d, objects, s, &s->claims[i].spec, "ResourceClaim", s->claims[i].name)))
                return rc;
    }
    for (int i = 0; i < sc->world.nworkloads; i++)
        if ((rc = check_pod_claims(d, s, sc->world.workloads[i].tmpl.claims)))
            return rc;
    return 0;
}

/* ------------------------------------------------------------------ expect: status */

static int opt_str(struct gs_ydec *d, const struct gs_ynode *m, const char *key, const char *path, const char **out)
{
    char p[GS_SCN_PATH];
    const struct gs_ynode *v = gs_y_get(m, key);
    *out = NULL;
    if (!v || gs_y_is_null(v))
        return 0;
    return gs_y_kstr(d, v, gs_scn_path(p, "%s.%s", path, key), out);
}

int gs_scn_dra_expect_status(struct gs_ydec *d, const struct gs_ynode *st, const char *path,
                             const struct gs_dra_expect_status **out)
{
    static const char *const keys[] = {"allocation", "reservedFor", NULL};
    static const char *const later[] = {"devices", NULL};
    char p[GS_SCN_PATH], q[GS_SCN_PATH];
    int rc = gs_y_check_map(d, st, path, keys, later, NULL);
    if (rc)
        return rc;
    struct gs_dra_expect_status *e = gs_arena_alloc(d->arena, sizeof *e);
    if (!e)
        return gs_y_nomem(d, NULL);
    const struct gs_ynode *a = gs_y_get(st, "allocation");
    if (a) {
        e->has_allocation = true;
        if (gs_y_is_null(a)) {
            e->allocation_null = true;
        } else {
            static const char *const akeys[] = {"devices", NULL};
            static const char *const alater[] = {"nodeSelector", "allocationTimestamp", NULL};
            static const char *const dkeys[] = {"results", NULL};
            static const char *const dlater[] = {"config", NULL};
            static const char *const rkeys[] = {"request", "driver", "pool", "device", NULL};
            static const char *const rlater[] = {"adminAccess", "tolerations", "bindingConditions", NULL};
            gs_scn_path(p, "%s.allocation", path);
            if ((rc = gs_y_check_map(d, a, p, akeys, alater, NULL)))
                return rc;
            const struct gs_ynode *dv = gs_y_get(a, "devices");
            if (dv && !gs_y_is_null(dv)) {
                gs_scn_path(q, "%s.devices", p);
                if ((rc = gs_y_check_map(d, dv, q, dkeys, dlater, NULL)))
                    return rc;
                const struct gs_ynode *rs = gs_y_get(dv, "results");
                if (rs) {
                    char rp[GS_SCN_PATH];
                    gs_scn_path(rp, "%s.results", q);
                    e->has_results = true;
                    if (!gs_y_is_null(rs)) {
                        if ((rc = gs_y_want_seq(d, rs, rp)))
                            return rc;
                        struct gs_dra_expect_result *r = gs_arena_alloc(d->arena, sizeof *r * (size_t)(rs->n + 1));
                        if (!r)
                            return gs_y_nomem(d, NULL);
                        for (int i = 0; i < rs->n; i++) {
                            char ip[GS_SCN_PATH];
                            gs_scn_path(ip, "%s[%d]", rp, i);
                            const struct gs_ynode *it = rs->items[i];
                            if ((rc = gs_y_check_map(d, it, ip, rkeys, rlater, NULL)) ||
                                (rc = opt_str(d, it, "request", ip, &r[i].request)) ||
                                (rc = opt_str(d, it, "driver", ip, &r[i].driver)) ||
                                (rc = opt_str(d, it, "pool", ip, &r[i].pool)) ||
                                (rc = opt_str(d, it, "device", ip, &r[i].device)))
                                return rc;
                        }
                        e->results = r;
                        e->nresults = rs->n;
                    }
                }
            }
        }
    }
    const struct gs_ynode *rf = gs_y_get(st, "reservedFor");
    if (rf) {
        static const char *const fkeys[] = {"resource", "name", "apiGroup", "uid", NULL};
        gs_scn_path(p, "%s.reservedFor", path);
        e->has_reserved = true;
        if (!gs_y_is_null(rf)) {
            if ((rc = gs_y_want_seq(d, rf, p)))
                return rc;
            struct gs_dra_expect_reserved *r = gs_arena_alloc(d->arena, sizeof *r * (size_t)(rf->n + 1));
            if (!r)
                return gs_y_nomem(d, NULL);
            for (int i = 0; i < rf->n; i++) {
                char ip[GS_SCN_PATH];
                gs_scn_path(ip, "%s[%d]", p, i);
                const struct gs_ynode *it = rf->items[i];
                const char *ignored;
                if ((rc = gs_y_check_map(d, it, ip, fkeys, NULL, NULL)) ||
                    (rc = opt_str(d, it, "resource", ip, &r[i].resource)) ||
                    (rc = opt_str(d, it, "name", ip, &r[i].name)) || (rc = opt_str(d, it, "apiGroup", ip, &ignored)))
                    return rc;
                if (gs_y_get(it, "uid"))
                    return gs_y_unsupported(d, gs_y_get(it, "uid"), gs_scn_path(q, "%s.uid", ip));
            }
            e->reserved = r;
            e->nreserved = rf->n;
        }
    }
    if (!e->has_allocation && !e->has_reserved)
        return gs_y_error(d, st, "%s checks nothing: give allocation or reservedFor", path);
    *out = e;
    return 0;
}
