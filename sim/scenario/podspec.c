/* Decoding a core/v1 PodTemplateSpec into a struct gs_pod_template: containers and their
 * resources (defaulted, summed and checked as the API server does), tolerations, nodeSelector,
 * node affinity, priority (as the Priority admission plugin resolves it) and the fields gpusim
 * accepts only to ignore them, so that manifests can be pasted as they are. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dra/dra_state.h"
#include "base/error.h"
#include "base/strmap.h"
#include "models/devices/gpushare_pod.h"
#include "models/admission/validation.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

/* pkg/scheduler/util: the request assumed for a container that sets none, for scoring. */
#define GS_NONZERO_CPU_MILLI 100
#define GS_NONZERO_MEMORY (200LL * 1024 * 1024)

char *gs_scn_path(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, GS_SCN_PATH, fmt, ap);
    va_end(ap);
    return buf;
}

/* gpusim's unit for resource `name`, and what the bound means in it. */
static void amount_unit(const char *name, const char **unit, const char **meaning)
{
    if (strcmp(name, "cpu") == 0) {
        *unit = " millicores";
        *meaning = "about 1.1e12 cores";
    } else if (strcmp(name, "memory") == 0 || strcmp(name, "ephemeral-storage") == 0 ||
               strncmp(name, "hugepages-", 10) == 0) {
        *unit = " bytes";
        *meaning = "1Pi";
    } else {
        *unit = "";
        *meaning = "about 1.1e15";
    }
}

int gs_scn_check_amount(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *name,
                        int64_t v)
{
    if (v <= GS_QUANTITY_MAX)
        return 0;
    const char *unit, *meaning;
    amount_unit(name, &unit, &meaning);
    return gs_y_error(d, n, "%s: %.60s is %lld%s, more than gpusim supports (at most %lld%s, 2^50: %s)", path,
                      n && n->type == GS_Y_SCALAR ? n->text : "the amount", (long long)v, unit,
                      (long long)GS_QUANTITY_MAX, unit, meaning);
}

/* Absent, null or the empty string: what Go's zero value means for an optional string. */
static bool unset(const struct gs_ynode *v)
{
    return !v || gs_y_is_null(v) || (v->type == GS_Y_SCALAR && v->text[0] == '\0');
}

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                        "out of memory");
}

/* ------------------------------------------------------------------ names */

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static bool dns_label_chars(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

bool gs_scn_is_dns_label(const char *s)
{
    size_t n = strlen(s);
    return n <= 63 && dns_label_chars(s, n);
}

static bool dns_subdomain_n(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!dns_label_chars(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

bool gs_scn_is_dns_subdomain(const char *s)
{
    return dns_subdomain_n(s, strlen(s));
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 */
static bool name_part(const char *s, size_t n)
{
    if (n == 0 || n > 63 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

bool gs_scn_is_qualified_name(const char *s)
{
    const char *slash = strchr(s, '/');
    if (!slash)
        return name_part(s, strlen(s));
    if (strchr(slash + 1, '/'))
        return false;
    return dns_subdomain_n(s, (size_t)(slash - s)) && name_part(slash + 1, strlen(slash + 1));
}

bool gs_scn_is_label_value(const char *s)
{
    size_t n = strlen(s);
    return n == 0 || name_part(s, n);
}

int gs_scn_check_node_name(struct gs_ydec *d, const struct gs_ynode *n, const char *path,
                           const char *node)
{
    int pool, rc = gs_scn_node_pool(d, n, node, &pool);
    if (rc || pool >= 0)
        return rc;
    if (d->world->npools == 0)
        return gs_y_error(d, n, "%s: there is no node '%s': spec.cluster.nodePools is empty", path, node);
    char list[256];
    size_t used = 0;
    list[0] = '\0';
    for (int p = 0; p < d->world->npools && used < sizeof list; p++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", p ? ", " : "", d->world->pools[p].name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return gs_y_error(d, n,
                      "%s: node '%s' cannot belong to any node pool: nodes are named <pool>-<index> "
                      "(pools: %s)",
                      path, node, list);
}

/* Labels are checked as ValidateLabels does: keys qualified names, values label values. */
static int check_labels(struct gs_ydec *d, const struct gs_ynode *m, const char *path, bool values)
{
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key, *v = m->pairs[i].value;
        if (!gs_scn_is_qualified_name(k->text))
            return gs_y_error(d, k,
                              "invalid key '%s' in %s: must be a qualified name ([prefix/]name: "
                              "alphanumerics, '-', '_' or '.', at most 63 characters after an optional "
                              "DNS subdomain prefix)",
                              k->text, path);
        if (values && !gs_y_is_null(v) && !gs_scn_is_label_value(v->text))
            return gs_y_error(d, v,
                              "invalid label value '%s' at %s.%s: must be empty or at most 63 "
                              "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric",
                              v->text, path, k->text);
    }
    return 0;
}

static int labels_map(struct gs_ydec *d, const struct gs_ynode *m, const char *path, bool values,
                      struct gs_labels *out)
{
    if (gs_y_is_null(m))
        return 0;
    int rc = gs_y_labels(d, m, path, out);
    if (!rc)
        rc = check_labels(d, m, path, values);
    return rc;
}

/* ------------------------------------------------------------------ metadata */

/* The fractional GPU annotation (models/devices/gpushare_pod.h), when present: an integer
 * 1..1000 of milli-GPU on one GPU, 1000 meaning whole GPUs (the nvidia.com/gpu request). */
static int gpu_milli_annotation(struct gs_ydec *d, const struct gs_ynode *v, const char *path)
{
    if (!v)
        return 0;
    const char *s = v->type == GS_Y_SCALAR && v->text ? v->text : "";
    char *end;
    long m = strtol(s, &end, 10);
    if (end == s || *end || s[0] == '+' || s[0] == ' ' || m < 1 || m > GS_GPU_MILLI)
        return gs_y_error(d, v,
                          "invalid value '%.40s' for annotation " GS_GPU_MILLI_ANNOTATION " at %s: expected an "
                          "integer from 1 to 1000 (milli-GPU on one GPU; 1000 means whole GPUs)",
                          s, path);
    return 0;
}

int gs_scn_metadata(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool manifest,
                    const char **name, const struct gs_ynode **name_node, struct gs_labels *labels,
                    struct gs_labels *annotations)
{
    /* A template's metadata, and what `kubectl get -o yaml` adds to an object's. */
    static const char *const tmpl_keys[] = {"name",        "namespace",         "labels", "annotations",
                                            "generateName", "creationTimestamp", NULL};
    static const char *const obj_keys[] = {"name",          "namespace",       "labels",
                                           "annotations",   "generateName",    "creationTimestamp",
                                           "uid",           "resourceVersion", "generation",
                                           "managedFields", "ownerReferences", "finalizers",
                                           NULL};
    char p[GS_SCN_PATH];
    *name = NULL;
    if (name_node)
        *name_node = NULL;
    if (gs_y_is_null(n))
        return 0;
    int rc = gs_y_check_map(d, n, path, manifest ? obj_keys : tmpl_keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *v;
    if ((v = gs_y_get(n, "name")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.name", path), name)))
            return rc;
        if (name_node)
            *name_node = v;
    }
    if ((v = gs_y_get(n, "namespace")) && !gs_y_is_null(v)) {
        const char *ns;
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.namespace", path), &ns)))
            return rc;
        if (!gs_scn_is_dns_label(ns))
            return gs_y_error(d, v,
                              "invalid namespace '%s' at %s.namespace: must be a DNS-1123 label "
                              "(lowercase alphanumerics and '-', at most 63 characters)",
                              ns, path);
    }
    if (manifest && !*name) {
        if ((v = gs_y_get(n, "generateName")) && !gs_y_is_null(v))
            return gs_y_unsupported(d, v, gs_scn_path(p, "%s.generateName (give metadata.name)", path));
        return gs_y_error(d, n, "missing required field 'name' in %s", path);
    }
    struct gs_labels ignore = {0};
    if ((v = gs_y_get(n, "labels")) &&
        (rc = labels_map(d, v, gs_scn_path(p, "%s.labels", path), true, labels ? labels : &ignore)))
        return rc;
    if ((v = gs_y_get(n, "annotations")) &&
        ((rc = labels_map(d, v, gs_scn_path(p, "%s.annotations", path), false,
                          annotations ? annotations : &ignore)) ||
         (rc = gpu_milli_annotation(d, gs_y_get(v, GS_GPU_MILLI_ANNOTATION), p))))
        return rc;
    return 0;
}

/* ------------------------------------------------------------------ resources */

/* One container while decoding: its resources as written, with world resource indexes. */
struct cont {
    const struct gs_ynode *node;
    const struct gs_ynode *claims; /* resources.claims (DRA), NULL when none */
    struct gs_container_res res;
    int *req_idx;
    int *lim_idx;
};

static int check_resource_name(struct gs_ydec *d, const struct gs_ynode *k, const char *path)
{
    static const char *const standard[] = {"cpu", "memory", "ephemeral-storage", NULL};
    const char *s = k->text;
    if (!strchr(s, '/')) {
        for (int i = 0; standard[i]; i++)
            if (strcmp(s, standard[i]) == 0)
                return 0;
        struct gs_quantity q;
        if (strncmp(s, "hugepages-", 10) == 0 && gs_quantity_parse(s + 10, &q) == 0)
            return 0;
        const char *near = gs_y_suggest(s, standard);
        if (strstr(s, "gpu") || strstr(s, "GPU") || strstr(s, "Gpu"))
            near = "nvidia.com/gpu";
        if (near)
            return gs_y_error(d, k,
                              "invalid resource name '%s' in %s: not a standard resource for containers "
                              "(did you mean %s?)",
                              s, path, near);
        return gs_y_error(d, k,
                          "invalid resource name '%s' in %s: a container requests cpu, memory, "
                          "ephemeral-storage, hugepages-<size> or an extended resource with a domain, "
                          "such as nvidia.com/gpu",
                          s, path);
    }
    if (strstr(s, "kubernetes.io/"))
        return gs_y_error(d, k,
                          "invalid resource name '%s' in %s: the kubernetes.io domain is reserved; an "
                          "extended resource has its own domain, such as nvidia.com/gpu",
                          s, path);
    if (strncmp(s, "requests.", 9) == 0 && gs_scn_is_qualified_name(s + 9))
        return gs_y_error(d, k,
                          "invalid resource name '%s' in %s: the requests. prefix belongs in a "
                          "ResourceQuota; in a container write '%s'",
                          s, path, s + 9);
    if (!gs_scn_is_qualified_name(s) || !gs_res_is_extended(s))
        return gs_y_error(d, k,
                          "invalid resource name '%s' in %s: doesn't follow extended resource name "
                          "standard (<domain>/<name>, such as nvidia.com/gpu)",
                          s, path);
    return 0;
}

/* A quantity in gpusim's units: millicores for cpu, else Quantity.Value. */
static int64_t amount(int r, const struct gs_quantity *q)
{
    return r == GS_RES_CPU ? gs_quantity_milli(q) : gs_quantity_value(q);
}

static int res_list(struct gs_ydec *d, const struct gs_ynode *m, const char *path,
                    struct gs_res_entry **out, int **idx, int *n)
{
    *out = NULL;
    *idx = NULL;
    *n = 0;
    if (!m || gs_y_is_null(m))
        return 0;
    int rc = gs_y_want_map(d, m, path);
    if (rc)
        return rc;
    if (m->n == 0)
        return 0;
    *out = gs_arena_alloc(d->arena, sizeof **out * (size_t)m->n);
    *idx = gs_arena_alloc(d->arena, sizeof **idx * (size_t)m->n);
    if (!*out || !*idx)
        return nomem(d, m);
    char p[GS_SCN_PATH];
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key, *v = m->pairs[i].value;
        if ((rc = check_resource_name(d, k, path)))
            return rc;
        struct gs_res_entry *e = &(*out)[i];
        if ((rc = gs_y_quantity(d, v, gs_scn_path(p, "%s[%s]", path, k->text), &e->q)))
            return rc;
        e->name = k->text;
        int r = gs_res_intern(&d->world->res, d->arena, k->text);
        if (r < 0)
            return gs_y_error(d, k, "too many resource names: a scenario may use at most %d (%s is one too many)",
                              GS_RES_MAX, k->text);
        if ((rc = gs_scn_check_amount(d, v, p, k->text, amount(r, &e->q))))
            return rc;
        (*idx)[i] = r;
    }
    *n = m->n;
    return 0;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Requests after defaulting (a limit without a request sets the request, for every resource,
 * as pkg/apis/core/v1/defaults.go), per pod: max(sum over containers, max over init containers)
 * (component-helpers resource.PodRequests without sidecars or overhead); the same for limits;
 * the largest single-container request per resource (regular and init containers alike: the
 * kubelet's device manager allocates devices per container, init containers included);
 * non-zero cpu/memory with 100m / 200Mi for each container that requests none
 * (pkg/scheduler/util GetNonzeroRequests, applied per container before the sum and the max). */
static void pod_requests(const struct gs_world *w, const struct cont *cs, int nc, struct gs_pod_template *t)
{
    struct gs_resvec sum_req = {{0}}, init_req = {{0}}, sum_lim = {{0}}, init_lim = {{0}};
    int64_t nz_cpu = 0, nz_mem = 0, nz_cpu_init = 0, nz_mem_init = 0;
    int nres = w->res.n;
    t->container_max = (struct gs_resvec){{0}};
    for (int c = 0; c < nc; c++) {
        const struct cont *k = &cs[c];
        struct gs_resvec req = {{0}}, lim = {{0}};
        bool has_req[GS_RES_MAX] = {false};
        for (int i = 0; i < k->res.nlimits; i++)
            lim.v[k->lim_idx[i]] = amount(k->lim_idx[i], &k->res.limits[i].q);
        for (int i = 0; i < k->res.nrequests; i++) {
            req.v[k->req_idx[i]] = amount(k->req_idx[i], &k->res.requests[i].q);
            has_req[k->req_idx[i]] = true;
        }
        for (int i = 0; i < k->res.nlimits; i++) {
            int r = k->lim_idx[i];
            if (!has_req[r]) {
                req.v[r] = lim.v[r];
                has_req[r] = true;
            }
        }
        for (int r = 0; r < nres; r++)
            t->container_max.v[r] = max64(t->container_max.v[r], req.v[r]);
        int64_t ncpu = has_req[GS_RES_CPU] ? req.v[GS_RES_CPU] : GS_NONZERO_CPU_MILLI;
        int64_t nmem = has_req[GS_RES_MEMORY] ? req.v[GS_RES_MEMORY] : GS_NONZERO_MEMORY;
        if (!k->res.init) {
            for (int r = 0; r < nres; r++) {
                sum_req.v[r] = sat_add(sum_req.v[r], req.v[r]);
                sum_lim.v[r] = sat_add(sum_lim.v[r], lim.v[r]);
            }
            nz_cpu = sat_add(nz_cpu, ncpu);
            nz_mem = sat_add(nz_mem, nmem);
        } else {
            for (int r = 0; r < nres; r++) {
                init_req.v[r] = max64(init_req.v[r], req.v[r]);
                init_lim.v[r] = max64(init_lim.v[r], lim.v[r]);
            }
            nz_cpu_init = max64(nz_cpu_init, ncpu);
            nz_mem_init = max64(nz_mem_init, nmem);
        }
    }
    for (int r = 0; r < nres; r++) {
        t->requests.v[r] = max64(sum_req.v[r], init_req.v[r]);
        t->limits.v[r] = max64(sum_lim.v[r], init_lim.v[r]);
    }
    t->nonzero_cpu = max64(nz_cpu, nz_cpu_init);
    t->nonzero_mem = max64(nz_mem, nz_mem_init);
}

/* ------------------------------------------------------------------ containers */

static int container(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool init,
                     struct cont *out)
{
    static const char *const keys[] = {"name",
                                       "image",
                                       "command",
                                       "args",
                                       "env",
                                       "envFrom",
                                       "ports",
                                       "volumeMounts",
                                       "volumeDevices",
                                       "workingDir",
                                       "imagePullPolicy",
                                       "securityContext",
                                       "livenessProbe",
                                       "readinessProbe",
                                       "startupProbe",
                                       "lifecycle",
                                       "stdin",
                                       "stdinOnce",
                                       "tty",
                                       "terminationMessagePath",
                                       "terminationMessagePolicy",
                                       "resources",
                                       NULL};
    /* restartPolicy on an init container makes it a sidecar (counted differently in requests). */
    static const char *const unsupported[] = {"restartPolicy", "restartPolicyRules", "resizePolicy", NULL};
    static const char *const required[] = {"name", NULL};
    static const char *const res_keys[] = {"requests", "limits", "claims", NULL};
    static const char *const res_unsupported[] = {NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, unsupported, required);
    if (rc)
        return rc;
    out->node = n;
    out->res.init = init;
    const struct gs_ynode *v = gs_y_get(n, "name");
    if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.name", path), &out->res.name)))
        return rc;
    if (!gs_scn_is_dns_label(out->res.name))
        return gs_y_error(d, v,
                          "invalid container name '%s' at %s.name: must be a DNS-1123 label (lowercase "
                          "alphanumerics and '-', at most 63 characters)",
                          out->res.name, path);
    /* hostPort makes the NodePorts filter matter: not modelled yet. */
    const struct gs_ynode *ports = gs_y_get(n, "ports");
    if (ports && ports->type == GS_Y_SEQ) {
        for (int i = 0; i < ports->n; i++) {
            const struct gs_ynode *hp = gs_y_get(ports->items[i], "hostPort");
            if (!unset(hp) && !(hp->type == GS_Y_SCALAR && strcmp(hp->text, "0") == 0))
                return gs_y_unsupported(d, hp, gs_scn_path(p, "%s.ports[%d].hostPort", path, i));
        }
    }
    const struct gs_ynode *res = gs_y_get(n, "resources");
    if (!res || gs_y_is_null(res))
        return 0;
    char rp[GS_SCN_PATH];
    gs_scn_path(rp, "%s.resources", path);
    if ((rc = gs_y_check_map(d, res, rp, res_keys, res_unsupported, NULL)))
        return rc;
    const struct gs_ynode *cl = gs_y_get(res, "claims");
    if (cl && !gs_y_is_null(cl)) {
        /* resources.claims: [{name, request}] (checked against spec.resourceClaims later). */
        static const char *const ckeys[] = {"name", "request", NULL};
        static const char *const creq[] = {"name", NULL};
        if ((rc = gs_y_want_seq(d, cl, gs_scn_path(p, "%s.claims", rp))))
            return rc;
        for (int i = 0; i < cl->n; i++) {
            char cp[GS_SCN_PATH], np[GS_SCN_PATH];
            const char *s;
            gs_scn_path(cp, "%s.claims[%d]", rp, i);
            if ((rc = gs_y_check_map(d, cl->items[i], cp, ckeys, NULL, creq)) ||
                (rc = gs_y_kstr(d, gs_y_get(cl->items[i], "name"), gs_scn_path(np, "%s.name", cp), &s)))
                return rc;
            const struct gs_ynode *rq = gs_y_get(cl->items[i], "request");
            if (rq && !gs_y_is_null(rq))
                return gs_y_unsupported(d, rq, gs_scn_path(np, "%s.request", cp));
        }
        out->claims = cl;
    }
    if ((rc = res_list(d, gs_y_get(res, "requests"), gs_scn_path(p, "%s.requests", rp), &out->res.requests,
                       &out->req_idx, &out->res.nrequests)))
        return rc;
    return res_list(d, gs_y_get(res, "limits"), gs_scn_path(p, "%s.limits", rp), &out->res.limits,
                    &out->lim_idx, &out->res.nlimits);
}

/* validateResourceClaimNames (pkg/apis/core/validation): each container's resources.claims
 * entry must name a spec.resourceClaims entry, once. A violation is the API server's refusal
 * (t->invalid_detail), e.g. `spec.containers[0].resources.claims[0]: Not found: "gpux": must be
 * one of the names in pod.spec.resourceClaims: gpu`. Returns 0 or GS_ENOMEM. */
static int container_claims(struct gs_ydec *d, const struct cont *cs, int nregular, int nc, const char *prefix,
                            struct gs_pod_template *t)
{
    char names[1024] = "";
    size_t used = 0;
    for (int i = 0; t->claims && i < t->claims->n; i++) {
        /* sets.List: sorted; gpusim lists them in order (names are usually one or two). */
        int w = snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", t->claims->refs[i].name);
        if (w > 0 && (size_t)w < sizeof names - used)
            used += (size_t)w;
    }
    for (int i = 0; i < nc; i++) {
        const struct gs_ynode *cl = cs[i].claims;
        for (int k = 0; cl && k < cl->n; k++) {
            const char *name = gs_y_get(cl->items[k], "name")->text;
            char where[GS_SCN_PATH];
            gs_scn_path(where, "%s%s[%d].resources.claims[%d]", prefix ? prefix : "spec.",
                        i < nregular ? "containers" : "initContainers", i < nregular ? i : i - nregular, k);
            bool found = false, dup = false;
            for (int j = 0; t->claims && j < t->claims->n && !found; j++)
                found = strcmp(t->claims->refs[j].name, name) == 0;
            for (int j = 0; j < k && !dup; j++)
                dup = strcmp(gs_y_get(cl->items[j], "name")->text, name) == 0;
            const char *detail = NULL;
            if (dup)
                detail = gs_arena_printf(d->arena, "%s: Duplicate value: \"%s\"", where, name);
            else if (!found)
                detail = gs_arena_printf(d->arena,
                                         "%s: Not found: \"%s\": must be one of the names in pod.spec.resourceClaims%s%s",
                                         where, name, used ? ": " : " which is empty", names);
            else
                continue;
            if (!detail)
                return GS_ENOMEM;
            t->invalid_detail = detail;
            return 0;
        }
    }
    return 0;
}

static int containers(struct gs_ydec *d, const struct gs_ynode *spec, struct gs_podspec_ctx *c,
                      struct gs_pod_template *t)
{
    const struct gs_ynode *regular = gs_y_get(spec, "containers");
    const struct gs_ynode *init = gs_y_get(spec, "initContainers");
    char p[GS_SCN_PATH];
    int rc = gs_y_want_seq(d, regular, gs_scn_path(p, "%s.containers", c->path));
    if (rc)
        return rc;
    if (regular->n == 0)
        return gs_y_error(d, regular, "%s.containers: a pod needs at least one container", c->path);
    if (init && gs_y_is_null(init))
        init = NULL;
    if (init && (rc = gs_y_want_seq(d, init, gs_scn_path(p, "%s.initContainers", c->path))))
        return rc;
    int nc = regular->n + (init ? init->n : 0);
    struct cont *cs = gs_arena_alloc(d->arena, sizeof *cs * (size_t)nc);
    if (!cs)
        return nomem(d, regular);
    /* Regular containers first, then init containers, as ValidatePodSpec reports them. Names
     * are unique: a scan for the first few, then a map of the names to their first container. */
    struct gs_strmap names = {0};
    for (int i = 0; i < nc && !rc; i++) {
        bool is_init = i >= regular->n;
        int j = is_init ? i - regular->n : i;
        const struct gs_ynode *n = is_init ? init->items[j] : regular->items[j];
        gs_scn_path(p, "%s.%s[%d]", c->path, is_init ? "initContainers" : "containers", j);
        if ((rc = container(d, n, p, is_init, &cs[i])))
            break;
        int k = -1;
        if (i <= GS_SCN_NAMES_SCAN) {
            for (int x = 0; x < i && k < 0; x++)
                if (strcmp(cs[x].res.name, cs[i].res.name) == 0)
                    k = x;
        } else {
            for (int x = names.n; x < i && !rc; x++) /* the names not in the map yet */
                if (gs_strmap_add(&names, cs[x].res.name, x, NULL) < 0)
                    rc = nomem(d, n);
            k = gs_strmap_get(&names, cs[i].res.name);
        }
        if (!rc && k >= 0)
            rc = gs_y_error(d, gs_y_get(n, "name"), "duplicate container name '%s' at %s.name (also at line %d)",
                            cs[i].res.name, p, cs[k].node->line);
    }
    gs_strmap_free(&names);
    if (rc)
        return rc;
    pod_requests(d->world, cs, nc, t);
    t->ncontainers = regular->n;
    /* Each amount is within GS_QUANTITY_MAX; so must the pod's sums be. */
    for (int r = 0; r < d->world->res.n; r++) {
        const char *rn = d->world->res.names[r];
        for (int l = 0; l < 2; l++) {
            int64_t v = l ? t->limits.v[r] : t->requests.v[r];
            if (v <= GS_QUANTITY_MAX)
                continue;
            const char *unit, *meaning;
            amount_unit(rn, &unit, &meaning);
            return gs_y_error(d, regular,
                              "%s.containers: the pod's %s %s add up to %lld%s, more than gpusim supports "
                              "(at most %lld%s, 2^50: %s)",
                              c->path, rn, l ? "limits" : "requests", (long long)v, unit, (long long)GS_QUANTITY_MAX,
                              unit, meaning);
        }
    }

    struct gs_container_res *vr = gs_arena_alloc(d->arena, sizeof *vr * (size_t)nc);
    if (!vr)
        return nomem(d, regular);
    for (int i = 0; i < nc; i++)
        vr[i] = cs[i].res;
    char detail[8192];
    t->invalid_path_prefix = c->api_prefix;
    int vrc = gs_validate_containers(vr, nc, c->api_prefix, detail, sizeof detail);
    if (vrc == GS_ENOMEM)
        return nomem(d, regular);
    if (vrc != 0) {
        t->invalid_detail = gs_arena_strdup(d->arena, detail);
        if (!t->invalid_detail)
            return nomem(d, regular);
    }
    if (!t->invalid_detail && container_claims(d, cs, regular->n, nc, c->api_prefix, t))
        return nomem(d, regular);
    return 0;
}

/* ------------------------------------------------------------------ tolerations */

static int toleration(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_toleration *t)
{
    static const char *const keys[] = {"key", "operator", "value", "effect", "tolerationSeconds", NULL};
    static const char *const ops[] = {"Equal", "Exists", NULL};
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    if (rc)
        return rc;
    t->key = "";
    t->value = "";
    t->op = GS_TOL_EQUAL;
    t->effect = GS_EFFECT_ALL;
    t->toleration_seconds = -1;
    const struct gs_ynode *v, *value_node = NULL, *seconds_node = NULL;
    if ((v = gs_y_get(n, "key")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.key", path), &t->key)))
            return rc;
        if (t->key[0] && !gs_scn_is_qualified_name(t->key))
            return gs_y_error(d, v,
                              "invalid toleration key '%s' at %s.key: must be a qualified name such as "
                              "nvidia.com/gpu",
                              t->key, path);
    }
    /* An empty operator means Equal, as upstream. */
    if (!unset(v = gs_y_get(n, "operator"))) {
        int op;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.operator", path), ops, &op)))
            return rc;
        t->op = op == 0 ? GS_TOL_EQUAL : GS_TOL_EXISTS;
    }
    if ((v = gs_y_get(n, "value")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.value", path), &t->value)))
            return rc;
        value_node = v;
    }
    if (!unset(v = gs_y_get(n, "effect"))) {
        int e;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.effect", path), effects, &e)))
            return rc;
        t->effect = (enum gs_effect)(e + 1);
    }
    if ((v = gs_y_get(n, "tolerationSeconds")) && !gs_y_is_null(v)) {
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.tolerationSeconds", path), INT64_MIN, INT64_MAX,
                           &t->toleration_seconds)))
            return rc;
        seconds_node = v;
    }
    /* pkg/apis/core/validation validateTolerations, with its messages. */
    if (!t->key[0] && t->op != GS_TOL_EXISTS)
        return gs_y_error(d, n,
                          "%s.operator: operator must be Exists when `key` is empty, which means \"match "
                          "all values and all keys\" (the API server refuses this pod)",
                          path);
    if (seconds_node && t->effect != GS_EFFECT_NO_EXECUTE)
        return gs_y_error(d, seconds_node,
                          "%s.effect: effect must be 'NoExecute' when `tolerationSeconds` is set (the API "
                          "server refuses this pod)",
                          path);
    if (t->op == GS_TOL_EXISTS && t->value[0])
        return gs_y_error(d, value_node,
                          "%s.operator: value must be empty when `operator` is 'Exists' (the API server "
                          "refuses this pod)",
                          path);
    if (t->op == GS_TOL_EQUAL && !gs_scn_is_label_value(t->value))
        return gs_y_error(d, value_node,
                          "invalid toleration value '%s' at %s.value: must be empty or at most 63 "
                          "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric",
                          t->value, path);
    return 0;
}

int gs_scn_tolerations(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_toleration **out,
                       int *nout)
{
    *out = NULL;
    *nout = 0;
    if (gs_y_is_null(n))
        return 0;
    int rc = gs_y_want_seq(d, n, path);
    if (rc || n->n == 0)
        return rc;
    struct gs_toleration *tol = gs_arena_alloc(d->arena, sizeof *tol * (size_t)n->n);
    if (!tol)
        return nomem(d, n);
    char p[GS_SCN_PATH];
    for (int i = 0; i < n->n; i++)
        if ((rc = toleration(d, n->items[i], gs_scn_path(p, "%s[%d]", path, i), &tol[i])))
            return rc;
    *out = tol;
    *nout = n->n;
    return 0;
}

static int tolerations(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_pod_template *t)
{
    return gs_scn_tolerations(d, n, path, &t->tolerations, &t->ntolerations);
}

/* ------------------------------------------------------------------ node affinity */

static bool is_int_text(const char *s)
{
    const char *q = s + (*s == '-' || *s == '+');
    if (!*q)
        return false;
    for (; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    return true;
}

/* A NodeSelectorRequirement: ValidateNodeSelectorRequirement / validateNodeFieldSelectorRequirement. */
static int requirement(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool field,
                       struct gs_requirement *r)
{
    static const char *const keys[] = {"key", "operator", "values", NULL};
    static const char *const required[] = {"key", "operator", NULL};
    static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *kn = gs_y_get(n, "key"), *on = gs_y_get(n, "operator"), *vn = gs_y_get(n, "values");
    if ((rc = gs_y_kstr(d, kn, gs_scn_path(p, "%s.key", path), &r->key)))
        return rc;
    int op;
    if ((rc = gs_y_enum(d, on, gs_scn_path(p, "%s.operator", path), ops, &op)))
        return rc;
    r->op = (enum gs_selector_op)op;
    if (vn && gs_y_is_null(vn))
        vn = NULL;
    if (vn) {
        if ((rc = gs_y_want_seq(d, vn, gs_scn_path(p, "%s.values", path))))
            return rc;
        if (vn->n) {
            r->values = gs_arena_alloc(d->arena, sizeof *r->values * (size_t)vn->n);
            if (!r->values)
                return nomem(d, vn);
        }
        for (int i = 0; i < vn->n; i++)
            if ((rc = gs_y_kstr(d, vn->items[i], gs_scn_path(p, "%s.values[%d]", path, i), &r->values[i])))
                return rc;
        r->nvalues = vn->n;
    }
    const struct gs_ynode *at = vn ? vn : n;
    if (field) {
        if (strcmp(r->key, "metadata.name") != 0)
            return gs_y_error(d, kn,
                              "%s.key: Invalid value: \"%s\": not a valid field selector key (matchFields "
                              "takes metadata.name)",
                              path, r->key);
        if (r->op != GS_OP_IN && r->op != GS_OP_NOT_IN)
            return gs_y_error(d, on, "%s.operator: Invalid value: \"%s\": not a valid selector operator "
                                     "(matchFields takes In or NotIn)",
                              path, ops[op]);
        if (r->nvalues != 1)
            return gs_y_error(d, at,
                              "%s.values: must be only one value when `operator` is 'In' or 'NotIn' for "
                              "node field selector",
                              path);
        return 0;
    }
    switch (r->op) {
    case GS_OP_IN:
    case GS_OP_NOT_IN:
        if (r->nvalues == 0)
            return gs_y_error(d, at, "%s.values: must be specified when `operator` is 'In' or 'NotIn'", path);
        break;
    case GS_OP_EXISTS:
    case GS_OP_DOES_NOT_EXIST:
        if (r->nvalues > 0)
            return gs_y_error(d, at,
                              "%s.values: may not be specified when `operator` is 'Exists' or "
                              "'DoesNotExist'",
                              path);
        break;
    case GS_OP_GT:
    case GS_OP_LT:
        if (r->nvalues != 1)
            return gs_y_error(d, at, "%s.values: must be specified single value when `operator` is 'Lt' or 'Gt'",
                              path);
        /* The API server takes any string here, but the scheduler parses it as an int64 and a
         * term that fails to parse never matches: refuse it rather than simulate a silent miss. */
        if (!is_int_text(r->values[0]))
            return gs_y_error(d, vn->items[0],
                              "%s.values[0]: '%s' is not an integer: Gt and Lt compare the node label as "
                              "an integer, and the scheduler never matches a term it cannot parse",
                              path, r->values[0]);
        break;
    }
    if (!gs_scn_is_qualified_name(r->key))
        return gs_y_error(d, kn, "invalid key '%s' at %s.key: must be a qualified name such as "
                                 "nvidia.com/gpu.product",
                          r->key, path);
    return 0;
}

static int requirements(struct gs_ydec *d, const struct gs_ynode *n, const char *path, bool field,
                        struct gs_requirement **out, int *nout)
{
    *out = NULL;
    *nout = 0;
    if (!n || gs_y_is_null(n))
        return 0;
    int rc = gs_y_want_seq(d, n, path);
    if (rc || n->n == 0)
        return rc;
    *out = gs_arena_alloc(d->arena, sizeof **out * (size_t)n->n);
    if (!*out)
        return nomem(d, n);
    char p[GS_SCN_PATH];
    for (int i = 0; i < n->n; i++)
        if ((rc = requirement(d, n->items[i], gs_scn_path(p, "%s[%d]", path, i), field, &(*out)[i])))
            return rc;
    *nout = n->n;
    return 0;
}

static int term(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_term *t)
{
    static const char *const keys[] = {"matchExpressions", "matchFields", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    if (rc)
        return rc;
    if ((rc = requirements(d, gs_y_get(n, "matchExpressions"), gs_scn_path(p, "%s.matchExpressions", path),
                           false, &t->exprs, &t->nexprs)))
        return rc;
    return requirements(d, gs_y_get(n, "matchFields"), gs_scn_path(p, "%s.matchFields", path), true, &t->fields,
                        &t->nfields);
}

static int node_affinity(struct gs_ydec *d, const struct gs_ynode *n, const char *path,
                         struct gs_node_affinity *a)
{
    static const char *const keys[] = {"requiredDuringSchedulingIgnoredDuringExecution",
                                       "preferredDuringSchedulingIgnoredDuringExecution", NULL};
    static const char *const req_keys[] = {"nodeSelectorTerms", NULL};
    static const char *const pref_keys[] = {"weight", "preference", NULL};
    char p[GS_SCN_PATH], q[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *req = gs_y_get(n, keys[0]);
    if (req && !gs_y_is_null(req)) {
        gs_scn_path(p, "%s.%s", path, keys[0]);
        if ((rc = gs_y_check_map(d, req, p, req_keys, NULL, req_keys)))
            return rc;
        const struct gs_ynode *terms = gs_y_get(req, "nodeSelectorTerms");
        gs_scn_path(q, "%s.nodeSelectorTerms", p);
        if ((rc = gs_y_want_seq(d, terms, q)))
            return rc;
        if (terms->n == 0)
            return gs_y_error(d, terms, "%s: Required value: must have at least one node selector term", q);
        a->required = gs_arena_alloc(d->arena, sizeof *a->required * (size_t)terms->n);
        if (!a->required)
            return nomem(d, terms);
        for (int i = 0; i < terms->n; i++)
            if ((rc = term(d, terms->items[i], gs_scn_path(p, "%s[%d]", q, i), &a->required[i])))
                return rc;
        a->nrequired = terms->n;
        a->has_required = true;
    }
    const struct gs_ynode *pref = gs_y_get(n, keys[1]);
    if (pref && !gs_y_is_null(pref)) {
        gs_scn_path(q, "%s.%s", path, keys[1]);
        if ((rc = gs_y_want_seq(d, pref, q)))
            return rc;
        if (pref->n == 0)
            return 0;
        a->preferred = gs_arena_alloc(d->arena, sizeof *a->preferred * (size_t)pref->n);
        if (!a->preferred)
            return nomem(d, pref);
        for (int i = 0; i < pref->n; i++) {
            const struct gs_ynode *e = pref->items[i];
            gs_scn_path(p, "%s[%d]", q, i);
            if ((rc = gs_y_check_map(d, e, p, pref_keys, NULL, pref_keys)))
                return rc;
            int64_t w;
            char wp[GS_SCN_PATH];
            if ((rc = gs_y_int(d, gs_y_get(e, "weight"), gs_scn_path(wp, "%s.weight", p), 1, 100, &w)))
                return rc;
            a->preferred[i].weight = (int32_t)w;
            if ((rc = term(d, gs_y_get(e, "preference"), gs_scn_path(wp, "%s.preference", p),
                           &a->preferred[i].term)))
                return rc;
        }
        a->npreferred = pref->n;
    }
    return 0;
}

static int affinity(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_pod_template *t)
{
    static const char *const keys[] = {"nodeAffinity", NULL};
    static const char *const unsupported[] = {"podAffinity", "podAntiAffinity", NULL};
    if (gs_y_is_null(n))
        return 0;
    int rc = gs_y_check_map(d, n, path, keys, unsupported, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *na = gs_y_get(n, "nodeAffinity");
    if (!na || gs_y_is_null(na))
        return 0;
    char p[GS_SCN_PATH];
    return node_affinity(d, na, gs_scn_path(p, "%s.nodeAffinity", path), &t->affinity);
}

/* ------------------------------------------------------------------ priority */

static const char *policy_name(enum gs_preemption_policy p)
{
    return p == GS_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority";
}

/* plugin/pkg/admission/priority: the class named by priorityClassName (an unknown one is
 * Forbidden), else the globalDefault class (the lowest value if several), else 0 with
 * PreemptLowerPriority. A priority or preemptionPolicy written in the pod spec must agree. */
static int priority(struct gs_ydec *d, const struct gs_ynode *spec, struct gs_podspec_ctx *c,
                    struct gs_pod_template *t)
{
    char p[GS_SCN_PATH];
    int rc;
    const struct gs_ynode *pcn = gs_y_get(spec, "priorityClassName");
    if (unset(pcn))
        pcn = NULL;
    const char *name = NULL;
    if (pcn && (rc = gs_y_kstr(d, pcn, gs_scn_path(p, "%s.priorityClassName", c->path), &name)))
        return rc;
    if (c->priority_class) {
        const char *short_name;
        if ((rc = gs_y_kstr(d, c->priority_class, "priorityClassName", &short_name)))
            return rc;
        if (name && strcmp(name, short_name) != 0)
            return gs_y_error(d, pcn,
                              "%s.priorityClassName '%s' differs from the workload's priorityClassName '%s' "
                              "(line %d): give it once",
                              c->path, name, short_name, c->priority_class->line);
        if (!name) {
            name = short_name;
            pcn = c->priority_class;
        }
    }
    const struct gs_priority_class *pc;
    if ((rc = gs_scn_priority_class(d, pcn ? pcn : spec, name, &pc)))
        return rc;
    if (name && !pc)
        return gs_y_error(d, pcn,
                          "%s.priorityClassName: pods \"%s\" is forbidden: no PriorityClass with name %s "
                          "was found (define it in spec.objects)",
                          c->path, c->pod_name, name);
    t->priority_class = pc ? pc->name : NULL;
    t->priority = pc ? pc->value : 0;
    t->preemption_policy = pc ? pc->preemption_policy : GS_PREEMPT_LOWER_PRIORITY;

    const struct gs_ynode *v = gs_y_get(spec, "priority");
    if (v && !gs_y_is_null(v)) {
        int64_t prio;
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.priority", c->path), INT32_MIN, INT32_MAX, &prio)))
            return rc;
        if (prio != t->priority)
            return gs_y_error(d, v,
                              "%s.priority: pods \"%s\" is forbidden: the integer value of priority (%lld) "
                              "must not be provided in pod spec; priority admission controller computed %d "
                              "from the given PriorityClass name",
                              c->path, c->pod_name, (long long)prio, (int)t->priority);
    }
    v = gs_y_get(spec, "preemptionPolicy");
    if (v && !gs_y_is_null(v)) {
        static const char *const policies[] = {"PreemptLowerPriority", "Never", NULL};
        int pol;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.preemptionPolicy", c->path), policies, &pol)))
            return rc;
        if ((enum gs_preemption_policy)pol != t->preemption_policy)
            return gs_y_error(d, v,
                              "%s.preemptionPolicy: pods \"%s\" is forbidden: the string value of "
                              "PreemptionPolicy (%s) must not be provided in pod spec; priority admission "
                              "controller computed %s from the given PriorityClass name (set "
                              "preemptionPolicy in the PriorityClass)",
                              c->path, c->pod_name, policies[pol], policy_name(t->preemption_policy));
    }
    return 0;
}

/* ------------------------------------------------------------------ the pod spec */

int gs_scn_pod_spec(struct gs_ydec *d, const struct gs_ynode *n, struct gs_podspec_ctx *c,
                    struct gs_pod_template *t)
{
    /* Everything else kubectl takes in a PodSpec is accepted and ignored: it does not change
     * where or when the pod is scheduled. */
    static const char *const keys[] = {"containers",
                                       "initContainers",
                                       "resourceClaims",
                                       "tolerations",
                                       "nodeSelector",
                                       "affinity",
                                       "priorityClassName",
                                       "priority",
                                       "preemptionPolicy",
                                       "nodeName",
                                       "schedulerName",
                                       "terminationGracePeriodSeconds",
                                       "restartPolicy",
                                       "volumes",
                                       "serviceAccountName",
                                       "serviceAccount",
                                       "automountServiceAccountToken",
                                       "securityContext",
                                       "imagePullSecrets",
                                       "hostNetwork",
                                       "hostPID",
                                       "hostIPC",
                                       "hostUsers",
                                       "dnsPolicy",
                                       "dnsConfig",
                                       "enableServiceLinks",
                                       "hostname",
                                       "subdomain",
                                       "setHostnameAsFQDN",
                                       "hostAliases",
                                       "shareProcessNamespace",
                                       "activeDeadlineSeconds",
                                       NULL};
    static const char *const unsupported[] = {"schedulingGates",
                                              "topologySpreadConstraints",
                                              "overhead",
                                              "runtimeClassName",
                                              "resources",
                                              "ephemeralContainers",
                                              "readinessGates",
                                              "os",
                                              NULL};
    static const char *const required[] = {"containers", NULL};
    static const char *const restart[] = {"Always", "OnFailure", "Never", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, c->path, keys, unsupported, required);
    if (rc)
        return rc;
    t->scheduler_name = "default-scheduler";
    t->termination_grace_us = GS_SEC(30);
    t->invalid_path_prefix = c->api_prefix;
    c->restart_policy = GS_RESTART_UNSET;
    c->restart_policy_node = NULL;

    /* spec.resourceClaims first: the containers' resources.claims name its entries. */
    if ((rc = gs_scn_dra_pod_claims(d, gs_y_get(n, "resourceClaims"), gs_scn_path(p, "%s.resourceClaims", c->path),
                                    &t->claims)))
        return rc;
    if ((rc = containers(d, n, c, t)))
        return rc;
    const struct gs_ynode *v;
    if ((v = gs_y_get(n, "tolerations")) && (rc = tolerations(d, v, gs_scn_path(p, "%s.tolerations", c->path), t)))
        return rc;
    if ((v = gs_y_get(n, "nodeSelector")) &&
        (rc = labels_map(d, v, gs_scn_path(p, "%s.nodeSelector", c->path), true, &t->node_selector)))
        return rc;
    if ((v = gs_y_get(n, "affinity")) && (rc = affinity(d, v, gs_scn_path(p, "%s.affinity", c->path), t)))
        return rc;
    if ((rc = priority(d, n, c, t)))
        return rc;
    if (!unset(v = gs_y_get(n, "nodeName"))) {
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.nodeName", c->path), &t->node_name)))
            return rc;
        if (!gs_scn_is_dns_subdomain(t->node_name))
            return gs_y_error(d, v, "invalid node name '%s' at %s.nodeName: must be a DNS-1123 subdomain",
                              t->node_name, c->path);
    }
    if (!unset(v = gs_y_get(n, "schedulerName"))) {
        const char *s;
        if ((rc = gs_y_kstr(d, v, gs_scn_path(p, "%s.schedulerName", c->path), &s)))
            return rc;
        const char *profile = c->scheduler_name ? c->scheduler_name : "default-scheduler";
        if (strcmp(s, "default-scheduler") != 0 && strcmp(s, profile) != 0)
            return gs_y_unsupported(d, v, gs_scn_path(p, "%s.schedulerName '%s' (gpusim runs one scheduler, '%s')",
                                                      c->path, s, profile));
        t->scheduler_name = s;
    }
    if ((v = gs_y_get(n, "terminationGracePeriodSeconds")) && !gs_y_is_null(v)) {
        int64_t s;
        if ((rc = gs_y_int(d, v, gs_scn_path(p, "%s.terminationGracePeriodSeconds", c->path), 0,
                           INT64_MAX / 1000000, &s)))
            return rc;
        t->termination_grace_us = GS_SEC(s);
    }
    if ((v = gs_y_get(n, "restartPolicy")) && !gs_y_is_null(v)) {
        int r;
        if ((rc = gs_y_enum(d, v, gs_scn_path(p, "%s.restartPolicy", c->path), restart, &r)))
            return rc;
        c->restart_policy = (enum gs_restart_policy)(r + 1);
        c->restart_policy_node = v;
    }
    if ((v = gs_y_get(n, "hostNetwork")) && !gs_y_is_null(v)) {
        bool b;
        if ((rc = gs_y_bool(d, v, gs_scn_path(p, "%s.hostNetwork", c->path), &b)))
            return rc;
        if (b)
            return gs_y_unsupported(d, v, gs_scn_path(p, "%s.hostNetwork: true", c->path));
    }
    return 0;
}

int gs_scn_pod_template(struct gs_ydec *d, const struct gs_ynode *n, struct gs_podspec_ctx *c,
                        struct gs_pod_template *t)
{
    static const char *const keys[] = {"metadata", "spec", NULL};
    static const char *const required[] = {"spec", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, c->path, keys, NULL, required);
    if (rc)
        return rc;
    const struct gs_ynode *meta = gs_y_get(n, "metadata");
    const char *ignored;
    if (meta && (rc = gs_scn_metadata(d, meta, gs_scn_path(p, "%s.metadata", c->path), false, &ignored, NULL,
                                      &t->labels, &t->annotations)))
        return rc;
    struct gs_podspec_ctx sc = *c;
    sc.path = gs_scn_path(p, "%s.spec", c->path);
    rc = gs_scn_pod_spec(d, gs_y_get(n, "spec"), &sc, t);
    c->restart_policy = sc.restart_policy;
    c->restart_policy_node = sc.restart_policy_node;
    return rc;
}
