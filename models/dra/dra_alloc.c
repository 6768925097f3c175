/* gpusim: the structured allocator for one node (dra.h gs_dra_allocate).
 * Follows dynamic-resource-allocation/structured/internal/stable/allocator_stable.go as of
 * Kubernetes 1.34: Allocate checks every request first (device class present, count, the
 * "All" device list, the AllocationResultsMaxSize limit), then allocateOne searches depth
 * first: claim by claim, request by request, device slot by device slot, trying the devices
 * of the pools' slices in order (in-use check first, then class selectors, then request
 * selectors, cached per request and device), and backtracks; the first full solution wins.
 * A CEL error stops the search and is returned as an error (Filter's Error status). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/dra/dra.h"

int gs_dra_node_device_count(const struct gs_dra_node_view *v)
{
    int n = 0;
    for (int s = 0; v && s < v->nslices; s++)
        n += v->slices[s].ndevices;
    return n;
}

const struct gs_dra_device *gs_dra_node_device(const struct gs_dra_node_view *v, int index,
                                               const struct gs_resource_slice **slice)
{
    if (!v || index < 0)
        return NULL;
    for (int s = 0; s < v->nslices; s++) {
        if (index < v->slices[s].ndevices) {
            if (slice)
                *slice = &v->slices[s];
            return &v->slices[s].devices[index];
        }
        index -= v->slices[s].ndevices;
    }
    return NULL;
}

int gs_dra_node_device_index(const struct gs_dra_node_view *v, const char *driver, const char *pool,
                             const char *device)
{
    int base = 0;
    for (int s = 0; v && s < v->nslices; s++) {
        const struct gs_resource_slice *sl = &v->slices[s];
        if ((!driver || strcmp(sl->driver, driver) == 0) && (!pool || strcmp(sl->pool, pool) == 0))
            for (int d = 0; d < sl->ndevices; d++)
                if (strcmp(sl->devices[d].name, device) == 0)
                    return base + d;
        base += sl->ndevices;
    }
    return -1;
}

void gs_dra_mark_in_use(const struct gs_dra_allocation *a, bool *in_use, bool used)
{
    for (int i = 0; a && in_use && i < a->nresults; i++)
        if (a->results[i].index >= 0)
            in_use[a->results[i].index] = used;
}

/* ------------------------------------------------------------------ search state */

struct req {
    int claim;                          /* index into claims */
    const struct gs_dra_request *r;
    const struct gs_device_class *cls;
    int ndev;                           /* devices this request needs */
    int *all;                           /* All mode: the matching devices, in order */
};

struct pick { int req, dev; };

struct search {
    const struct gs_dra_node_view *v;
    const struct gs_resource_claim *const *claims;
    int ndev;
    const struct gs_dra_device **dev;
    const struct gs_resource_slice **slice;
    struct req *reqs;
    int nreqs;
    int8_t *match;          /* nreqs x ndev: -1 unknown, 0 no, 1 yes */
    bool *taken;            /* allocated in this attempt */
    struct pick *picks;
    int npicks;
    char *errbuf;
    size_t errlen;
};

static bool in_use(const struct search *s, int d)
{
    return (s->v->in_use && s->v->in_use[d]) || s->taken[d];
}

/* Evaluate one selector list; 1 match, 0 no match, GS_EINVAL with errbuf set. */
static int selectors_match(struct search *s, const struct gs_dra_selector *sel, int n, int d,
                           const struct gs_device_class *cls, const struct gs_resource_claim *claim)
{
    struct gs_cel_device view = gs_dra_cel_view(s->slice[d], s->dev[d]);
    for (int i = 0; i < n; i++) {
        char e[384];
        bool m = false;
        int rc;
        if (!sel[i].prog) {
            snprintf(e, sizeof e, "expression was not compiled");
            rc = GS_EINVAL;
            if (cls)
                snprintf(s->errbuf, s->errlen, "class %s: selector #%d: CEL compile error: %s", cls->name, i, e);
            else
                snprintf(s->errbuf, s->errlen, "claim %s/%s: selector #%d: CEL compile error: %s",
                         claim->namespace_, claim->name, i, e);
            return rc;
        }
        rc = gs_cel_eval(sel[i].prog, &view, &m, e, sizeof e);
        if (rc) {
            if (cls)
                snprintf(s->errbuf, s->errlen, "class %s: selector #%d: CEL runtime error: %s", cls->name, i, e);
            else
                snprintf(s->errbuf, s->errlen, "claim %s/%s: selector #%d: CEL runtime error: %s",
                         claim->namespace_, claim->name, i, e);
            return GS_EINVAL;
        }
        if (!m)
            return 0;
    }
    return 1;
}

/* isSelectable: class selectors, then the request's; cached. */
static int selectable(struct search *s, int ri, int d)
{
    int8_t *c = &s->match[(size_t)ri * (size_t)s->ndev + (size_t)d];
    if (*c >= 0)
        return *c;
    const struct req *q = &s->reqs[ri];
    int rc = selectors_match(s, q->cls->selectors, q->cls->nselectors, d, q->cls, NULL);
    if (rc == 1)
        rc = selectors_match(s, q->r->selectors, q->r->nselectors, d, NULL, s->claims[q->claim]);
    if (rc < 0)
        return rc;
    *c = (int8_t)rc;
    return rc;
}

static void take(struct search *s, int ri, int d)
{
    s->taken[d] = true;
    s->picks[s->npicks].req = ri;
    s->picks[s->npicks].dev = d;
    s->npicks++;
}

static void untake(struct search *s, int d)
{
    s->taken[d] = false;
    s->npicks--;
}

/* allocateOne: 1 done, 0 no solution below, <0 error. */
static int allocate_one(struct search *s, int ri, int k)
{
    if (ri == s->nreqs)
        return 1;
    const struct req *q = &s->reqs[ri];
    if (q->r->mode == GS_DRA_ALL && q->ndev == 0)
        return 0; /* at least one device is required for All */
    if (k >= q->ndev)
        return allocate_one(s, ri + 1, 0);
    if (q->r->mode == GS_DRA_ALL) {
        int d = q->all[k];
        if (in_use(s, d))
            return 0; /* all of them or nothing */
        take(s, ri, d);
        int rc = allocate_one(s, ri, k + 1);
        if (rc != 1)
            untake(s, d);
        return rc;
    }
    for (int d = 0; d < s->ndev; d++) {
        if (in_use(s, d))
            continue;
        int sel = selectable(s, ri, d);
        if (sel < 0)
            return sel;
        if (!sel)
            continue;
        take(s, ri, d);
        int rc = allocate_one(s, ri, k + 1);
        if (rc == 1)
            return 1;
        untake(s, d);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static const struct gs_device_class *find_class(const struct gs_dra_node_view *v, const char *name)
{
    for (int i = 0; name && i < v->nclasses; i++)
        if (v->classes[i].name && strcmp(v->classes[i].name, name) == 0)
            return &v->classes[i];
    return NULL;
}

/* validateDeviceRequest for every request of every claim, and the per-claim size limit. */
static int prepare(struct search *s, int nclaims)
{
    int ri = 0;
    for (int c = 0; c < nclaims; c++) {
        const struct gs_resource_claim *cl = s->claims[c];
        int64_t total = 0;
        for (int r = 0; cl->spec && r < cl->spec->nrequests; r++, ri++) {
            struct req *q = &s->reqs[ri];
            q->claim = c;
            q->r = &cl->spec->requests[r];
            const char *rn = q->r->name ? q->r->name : "";
            if (!q->r->device_class_name || !*q->r->device_class_name) {
                snprintf(s->errbuf, s->errlen,
                         "claim %s/%s, request %s: missing device class name (unsupported request type?)",
                         cl->namespace_, cl->name, rn);
                return GS_EINVAL;
            }
            q->cls = find_class(s->v, q->r->device_class_name);
            if (!q->cls) {
                snprintf(s->errbuf, s->errlen,
                         "claim %s/%s, request %s: could not retrieve device class %s: "
                         "deviceclass.resource.k8s.io \"%s\" not found",
                         cl->namespace_, cl->name, rn, q->r->device_class_name, q->r->device_class_name);
                return GS_EINVAL;
            }
            if (q->r->mode == GS_DRA_ALL) {
                q->all = gs_malloc((size_t)(s->ndev ? s->ndev : 1) * sizeof *q->all);
                if (!q->all)
                    return GS_ENOMEM;
                for (int d = 0; d < s->ndev; d++) {
                    int sel = selectable(s, ri, d);
                    if (sel < 0)
                        return sel;
                    if (sel)
                        q->all[q->ndev++] = d;
                }
            } else {
                int64_t cnt = q->r->count > 0 ? q->r->count : 0;
                total += cnt;
                /* More than the limit is refused below, before any search. */
                q->ndev = cnt > GS_DRA_ALLOCATION_RESULTS_MAX ? GS_DRA_ALLOCATION_RESULTS_MAX + 1 : (int)cnt;
                continue;
            }
            total += q->ndev;
        }
        if (total > GS_DRA_ALLOCATION_RESULTS_MAX) {
            snprintf(s->errbuf, s->errlen,
                     "claim %s/%s: number of requested devices %lld exceeds the claim limit of %d",
                     cl->namespace_, cl->name, (long long)total, GS_DRA_ALLOCATION_RESULTS_MAX);
            return GS_EINVAL;
        }
    }
    return 0;
}

static void results(struct search *s, int nclaims, struct gs_dra_allocation *out)
{
    for (int c = 0; c < nclaims; c++) {
        memset(&out[c], 0, sizeof out[c]);
        out[c].node_name = s->v->node_name;
    }
    for (int i = 0; i < s->npicks; i++) {
        const struct req *q = &s->reqs[s->picks[i].req];
        int d = s->picks[i].dev;
        struct gs_dra_allocation *a = &out[q->claim];
        struct gs_dra_device_result *r = &a->results[a->nresults++];
        r->request = q->r->name;
        r->driver = s->slice[d]->driver;
        r->pool = s->slice[d]->pool;
        r->device = s->dev[d]->name;
        r->index = d;
    }
}

int gs_dra_allocate(const struct gs_dra_node_view *v, const struct gs_resource_claim *const *claims,
                    int nclaims, struct gs_dra_allocation *out, char *errbuf, size_t errlen)
{
    char dummy[1];
    if (!errbuf || !errlen) {
        errbuf = dummy;
        errlen = sizeof dummy;
    }
    errbuf[0] = '\0';
    if (!v || nclaims < 0 || (nclaims && (!claims || !out))) {
        snprintf(errbuf, errlen, "internal error: invalid allocator arguments");
        return GS_EINVAL;
    }
    struct search s = {.v = v, .claims = claims, .errbuf = errbuf, .errlen = errlen};
    s.ndev = gs_dra_node_device_count(v);
    for (int c = 0; c < nclaims; c++)
        s.nreqs += claims[c]->spec ? claims[c]->spec->nrequests : 0;
    size_t nd = (size_t)(s.ndev ? s.ndev : 1), nr = (size_t)(s.nreqs ? s.nreqs : 1);
    s.dev = gs_malloc(nd * sizeof *s.dev);
    s.slice = gs_malloc(nd * sizeof *s.slice);
    s.taken = gs_calloc(nd, sizeof *s.taken);
    s.reqs = gs_calloc(nr, sizeof *s.reqs);
    s.match = gs_malloc(nr * nd);
    s.picks = gs_malloc((size_t)(nclaims ? nclaims : 1) * GS_DRA_ALLOCATION_RESULTS_MAX * sizeof *s.picks);
    int rc = GS_ENOMEM;
    if (s.dev && s.slice && s.taken && s.reqs && s.match && s.picks) {
        memset(s.match, -1, nr * nd);
        int d = 0;
        for (int sl = 0; sl < v->nslices; sl++)
            for (int i = 0; i < v->slices[sl].ndevices; i++, d++) {
                s.dev[d] = &v->slices[sl].devices[i];
                s.slice[d] = &v->slices[sl];
            }
        rc = prepare(&s, nclaims);
        if (rc == 0)
            rc = allocate_one(&s, 0, 0);
        if (rc == 1)
            results(&s, nclaims, out);
    }
    for (int i = 0; s.reqs && i < s.nreqs; i++)
        gs_free(s.reqs[i].all);
    gs_free(s.dev);
    gs_free(s.slice);
    gs_free(s.taken);
    gs_free(s.reqs);
    gs_free(s.match);
    gs_free(s.picks);
    return rc;
}
