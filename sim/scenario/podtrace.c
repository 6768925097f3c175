/* spec.workloads[].trace: a pod list replayed as a workload (sim/scenario/source.h).
 *
 *   - name: openb                 # default: the format's name
 *     trace:
 *       format: openb
 *       pods: openb_pod_list_default.csv   # relative to the scenario
 *       timestamps: none          # none (default) | real
 *       start: 0s                 # when the first pod arrives (default 0s)
 *       rate: 10/s                # timestamps none: pods arrive this far apart (default: all at start)
 *       limit: 1000               # the first rows only (default: all)
 *     duration: 1h                # timestamps none: as for plain workloads (default: run forever)
 *     startLatency: 0s
 *
 * One pod per row, named by the row's `name`, created in file order. cpu_milli is the cpu
 * request, memory_mib the memory request (MiB); num_gpu whole GPUs are nvidia.com/gpu (request
 * and limit); a share (num_gpu 1, 0 < gpu_milli < 1000) is the annotation
 * alibabacloud.com/gpu-milli: "<gpu_milli>" without nvidia.com/gpu, as the devices model reads
 * it (sim/controllers/device_plugin_alloc.c), which places it on one GPU; gpu_spec is a required nodeAffinity
 * `alibabacloud.com/gpu-card-model In [models]`, the label openb nodes carry
 * (spec.cluster.source format openb).
 *
 * timestamps real: a pod arrives at start + creation_time and, once Running, runs for
 * deletion_time - scheduled_time (deletion_time - creation_time when the row has no
 * scheduled_time, as the trace's Pending pods); rows are taken in creation order (stable).
 *
 * Templates are interned by shape (cpu, memory, GPUs, share, gpu_spec): a 10k-row trace holds a
 * few hundred templates and one 32-byte entry per pod. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/openb.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"
#include "sim/scenario/ydec_util.h"

struct shape {
    int64_t cpu, mem;
    int ngpu, milli, spec;
    const struct gs_pod_template *tmpl;
};

struct ctx {
    struct gs_ydec *d;
    const struct gs_ynode *at;
    const struct gs_openb_workload *ow;
    struct gs_node_affinity *aff; /* per gpu_spec text, built on first use */
    bool *aff_done;
    struct shape *tab;            /* open addressing, `cap` slots (power of two) */
    size_t cap;
    int gpu_res;
    const struct gs_priority_class *prio; /* the globalDefault class, NULL when none */
};

static uint64_t hash(const struct shape *s)
{
    uint64_t h = 1469598103934665603u;
    int64_t f[5] = {s->cpu, s->mem, s->ngpu, s->milli, s->spec};
    for (int i = 0; i < 5; i++) {
        h ^= (uint64_t)f[i];
        h *= 1099511628211u;
        h ^= h >> 29;
    }
    return h;
}

/* The required node affinity of gpu_spec text `spec` (index into ow->specs). */
static int affinity(struct ctx *c, int spec, struct gs_node_affinity *out)
{
    if (c->aff_done[spec]) {
        *out = c->aff[spec];
        return 0;
    }
    struct gs_arena *a = c->d->arena;
    const char *text = c->ow->specs[spec];
    size_t len = strlen(text);
    const char **values = gs_arena_alloc(a, sizeof *values * (len / 2 + 2));
    struct gs_term *term = gs_arena_alloc(a, sizeof *term);
    struct gs_requirement *req = gs_arena_alloc(a, sizeof *req);
    if (!values || !term || !req)
        return gs_y_nomem(c->d, c->at);
    int nv = 0;
    for (const char *p = text; *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n > 0) {
            char *v = gs_arena_alloc(a, n + 1);
            if (!v)
                return gs_y_nomem(c->d, c->at);
            memcpy(v, p, n);
            bool dup = false;
            for (int k = 0; k < nv; k++)
                dup = dup || strcmp(values[k], v) == 0;
            if (!dup)
                values[nv++] = v;
        }
        p += n + (bar ? 1 : 0);
    }
    *req = (struct gs_requirement){.key = GS_SRC_CARD_MODEL_LABEL, .op = GS_OP_IN, .values = values, .nvalues = nv};
    *term = (struct gs_term){.exprs = req, .nexprs = 1};
    c->aff[spec] = (struct gs_node_affinity){.required = term, .nrequired = 1, .has_required = nv > 0};
    if (nv == 0)
        c->aff[spec] = (struct gs_node_affinity){0};
    c->aff_done[spec] = true;
    *out = c->aff[spec];
    return 0;
}

static int make_template(struct ctx *c, const struct shape *s, const struct gs_pod_template **out)
{
    struct gs_pod_template *t = gs_arena_alloc(c->d->arena, sizeof *t);
    if (!t)
        return gs_y_nomem(c->d, c->at);
    t->requests.v[GS_RES_CPU] = s->cpu;
    t->requests.v[GS_RES_MEMORY] = s->mem;
    /* Both requests are always set (as the FGD simulator's converter writes them): the
     * non-zero requests are the requests themselves. */
    t->nonzero_cpu = s->cpu;
    t->nonzero_mem = s->mem;
    if (s->milli >= GS_GPU_MILLI && s->ngpu > 0) {
        t->requests.v[c->gpu_res] = s->ngpu;
        t->limits.v[c->gpu_res] = s->ngpu;
    } else if (s->ngpu > 0 && s->milli > 0) {
        const char *m = gs_arena_printf(c->d->arena, "%d", s->milli);
        if (!m || gs_labels_set(&t->annotations, c->d->arena, GS_SRC_GPU_MILLI_ANNOTATION, m))
            return gs_y_nomem(c->d, c->at);
    }
    t->ncontainers = 1;
    t->container_max = t->requests; /* one container */
    t->priority_class = c->prio ? c->prio->name : NULL;
    t->priority = c->prio ? c->prio->value : 0;
    t->preemption_policy = c->prio ? c->prio->preemption_policy : GS_PREEMPT_LOWER_PRIORITY;
    t->scheduler_name = "default-scheduler";
    t->termination_grace_us = GS_SEC(30);
    t->invalid_path_prefix = "spec.";
    int rc = s->spec > 0 ? affinity(c, s->spec, &t->affinity) : 0;
    *out = t;
    return rc;
}

/* The template of `s`, made on first sight of its shape. */
static int intern(struct ctx *c, struct shape *s, const struct gs_pod_template **out)
{
    size_t i = hash(s) & (c->cap - 1);
    for (;; i = (i + 1) & (c->cap - 1)) {
        struct shape *e = &c->tab[i];
        if (!e->tmpl)
            break;
        if (e->cpu == s->cpu && e->mem == s->mem && e->ngpu == s->ngpu && e->milli == s->milli && e->spec == s->spec) {
            *out = e->tmpl;
            return 0;
        }
    }
    int rc = make_template(c, s, &s->tmpl);
    if (rc)
        return rc;
    c->tab[i] = *s;
    *out = s->tmpl;
    return 0;
}

static const struct gs_openb_workload *sort_rows;
static int cmp_rows(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    int64_t cx = sort_rows->pods[x].creation_s, cy = sort_rows->pods[y].creation_s;
    return cx < cy ? -1 : cx > cy ? 1 : (x > y) - (x < y);
}

struct opts {
    const struct gs_ynode *tnode, *file_node, *ts_node;
    const char *rel, *file;
    bool real;
    gs_time start;
    double rate_per_us; /* 0: all at start */
    int64_t limit;      /* -1: all */
};

static int decode_opts(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_workload *w,
                       struct opts *o)
{
    static const char *const keys[] = {"name", "trace", "duration", "startLatency", NULL};
    static const char *const tkeys[] = {"format", "pods", "timestamps", "start", "rate", "limit", NULL};
    static const char *const treq[] = {"format", "pods", NULL};
    static const char *const formats[] = {"openb", NULL};
    static const char *const stamps[] = {"none", "real", NULL};
    char p[GS_SCN_PATH], tp[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, NULL, NULL);
    if (rc)
        return rc;
    o->tnode = gs_y_get(e, "trace");
    gs_scn_path(tp, "%s.trace", path);
    if ((rc = gs_y_check_map(d, o->tnode, tp, tkeys, NULL, treq)))
        return rc;
    int k;
    if ((rc = gs_y_enum(d, gs_y_get(o->tnode, "format"), gs_scn_path(p, "%s.format", tp), formats, &k)))
        return rc;
    o->file_node = gs_y_get(o->tnode, "pods");
    if ((rc = gs_y_str(d, o->file_node, gs_scn_path(p, "%s.pods", tp), &o->rel)))
        return rc;
    if (!(o->file = gs_scn_source_path(d, o->file_node, o->rel)))
        return GS_ENOMEM;
    const struct gs_ynode *v;
    o->ts_node = gs_y_get(o->tnode, "timestamps");
    if (!gs_y_is_null(o->ts_node)) {
        if ((rc = gs_y_enum(d, o->ts_node, gs_scn_path(p, "%s.timestamps", tp), stamps, &k)))
            return rc;
        o->real = k == 1;
    }
    if (!gs_y_is_null(v = gs_y_get(o->tnode, "start")) &&
        (rc = gs_y_duration(d, v, gs_scn_path(p, "%s.start", tp), false, &o->start)))
        return rc;
    if (!gs_y_is_null(v = gs_y_get(o->tnode, "rate"))) {
        if (o->real)
            return gs_y_error(d, v, "'rate' in %s goes with timestamps: none (with timestamps: real the pods "
                                    "arrive at their creation_time)", tp);
        if ((rc = gs_y_rate(d, v, gs_scn_path(p, "%s.rate", tp), "pods", "10/s, 30/m or 600/h", &o->rate_per_us)))
            return rc;
    }
    o->limit = -1;
    if (!gs_y_is_null(v = gs_y_get(o->tnode, "limit")) &&
        (rc = gs_y_int(d, v, gs_scn_path(p, "%s.limit", tp), 0, INT_MAX / 2, &o->limit)))
        return rc;
    if ((v = gs_y_get(e, "duration")) && !gs_y_is_null(v) && o->real)
        return gs_y_error(d, v, "'duration' in %s goes with timestamps: none (with timestamps: real a pod runs "
                                "from scheduled_time to deletion_time)", path);
    if ((rc = gs_scn_duration_dist(d, gs_y_get(e, "duration"), gs_scn_path(p, "%s.duration", path), &w->duration)))
        return rc;
    w->start_latency = -1;
    if (!gs_y_is_null(v = gs_y_get(e, "startLatency")) &&
        (rc = gs_y_duration(d, v, gs_scn_path(p, "%s.startLatency", path), false, &w->start_latency)))
        return rc;
    return 0;
}

static int decode_name(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_workload *w,
                       const struct gs_ynode **name_node)
{
    char p[GS_SCN_PATH];
    const struct gs_ynode *nn = gs_y_get(e, "name");
    *name_node = gs_y_get(e, "trace");
    w->name = "openb";
    if (!nn)
        return 0;
    int rc = gs_y_str(d, nn, gs_scn_path(p, "%s.name", path), &w->name);
    if (rc)
        return rc;
    if (!gs_scn_is_dns_label(w->name) || strlen(w->name) > 50)
        return gs_y_error(d, nn, "invalid workload name '%s' at %s.name: must be a DNS-1123 label of at most 50 "
                                 "characters (lowercase alphanumerics and '-')", w->name, path);
    *name_node = nn;
    return 0;
}

/* The rows' pods into w->list. */
static int build(struct gs_ydec *d, const struct opts *o, const struct gs_openb_workload *ow, struct ctx *c,
                 struct gs_workload *w)
{
    int n = o->limit >= 0 && o->limit < ow->n ? (int)o->limit : ow->n;
    int *order = gs_malloc(sizeof *order * (size_t)(n > 0 ? n : 1));
    struct gs_listed_pod *list = gs_arena_alloc(d->arena, sizeof *list * (size_t)(n > 0 ? n : 1));
    if (!order || !list) {
        gs_free(order);
        return gs_y_nomem(d, o->file_node);
    }
    for (int i = 0; i < n; i++)
        order[i] = i;
    int rc = 0;
    if (o->real) {
        if (!ow->has_times)
            rc = gs_y_error(d, o->ts_node, "timestamps: real needs the creation_time and deletion_time columns, "
                                           "which '%s' has not", o->rel);
        for (int i = 0; !rc && i < n; i++)
            if (ow->pods[i].creation_s < 0 || ow->pods[i].creation_s > INT64_C(1) << 40)
                rc = gs_error_set(d->err, GS_EINVAL, o->file, 0, 0,
                                  "row %d (pod %s): timestamps: real needs a creation_time from 0 to 2^40 s", i + 1,
                                  ow->pods[i].name);
        if (!rc) {
            sort_rows = ow;
            qsort(order, (size_t)n, sizeof *order, cmp_rows);
        }
    }
    for (int k = 0; !rc && k < n; k++) {
        const struct gs_openb_pod *op = &ow->pods[order[k]];
        if (op->memory_mib > (GS_QUANTITY_MAX >> 20) || op->cpu_milli > GS_QUANTITY_MAX) {
            rc = gs_error_set(d->err, GS_EINVAL, o->file, 0, 0,
                              "row %d (pod %s): %lld MiB or %lld millicores is more than gpusim supports (1Pi of "
                              "memory, 2^50 millicores)",
                              order[k] + 1, op->name, (long long)op->memory_mib, (long long)op->cpu_milli);
            break;
        }
        struct shape s = {.cpu = op->cpu_milli, .mem = op->memory_mib << 20, .ngpu = op->num_gpu,
                          .milli = op->gpu_milli, .spec = op->spec};
        struct gs_listed_pod *lp = &list[k];
        if ((rc = intern(c, &s, &lp->tmpl)))
            break;
        if (!(lp->name = gs_arena_strdup(d->arena, op->name))) {
            rc = gs_y_nomem(d, o->file_node);
            break;
        }
        lp->duration = -1;
        if (o->real) {
            lp->arrive = o->start + GS_SEC(op->creation_s);
            if (op->deletion_s >= 0) {
                int64_t from = op->scheduled_s >= 0 ? op->scheduled_s : op->creation_s;
                lp->duration = op->deletion_s > from ? GS_SEC(op->deletion_s - from) : 0;
            }
        } else {
            lp->arrive = o->start + (o->rate_per_us > 0 ? (gs_time)llround((double)k / o->rate_per_us) : 0);
        }
    }
    gs_free(order);
    if (rc)
        return rc;
    w->list = list;
    w->nlist = n;
    w->arrival = (struct gs_arrival){.kind = GS_ARRIVE_AT, .start = n ? list[0].arrive : 0, .count = n};
    if (n)
        w->tmpl = *list[0].tmpl;
    return 0;
}

int gs_scn_trace_workload(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_scenario *sc,
                          struct gs_workload *w, const struct gs_ynode **name_node)
{
    (void)sc; /* the world is d->world */
    struct opts o = {0};
    int rc;
    if ((rc = decode_opts(d, e, path, w, &o)) || (rc = decode_name(d, e, path, w, name_node)))
        return rc;
    w->kind = GS_WL_LIST;
    w->replicas = 1;
    w->group_timeout_us = -1;
    struct gs_openb_models models = {0};
    struct gs_openb_workload ow = {0};
    struct gs_error err = {0};
    rc = gs_openb_read_pods(o.file, &models, &ow, &err);
    if (rc == GS_EIO)
        return gs_y_error(d, o.file_node, "cannot read the trace '%s' of %s: %s", o.rel, path, err.msg);
    if (rc) {
        *d->err = err;
        return rc;
    }
    struct ctx c = {.d = d, .at = o.file_node, .ow = &ow};
    c.gpu_res = gs_res_intern(&d->world->res, d->arena, "nvidia.com/gpu");
    for (int i = 0; i < d->world->npriority_classes; i++) {
        const struct gs_priority_class *pc = &d->world->priority_classes[i];
        if (pc->global_default && (!c.prio || pc->value < c.prio->value))
            c.prio = pc;
    }
    c.cap = 64;
    while (c.cap < (size_t)ow.n * 2)
        c.cap *= 2;
    c.tab = gs_calloc(c.cap, sizeof *c.tab);
    c.aff = gs_calloc((size_t)ow.nspecs + 1, sizeof *c.aff);
    c.aff_done = gs_calloc((size_t)ow.nspecs + 1, sizeof *c.aff_done);
    if (c.gpu_res < 0)
        rc = gs_y_error(d, o.tnode, "too many distinct resources (gpusim supports %d)", GS_RES_MAX);
    else if (!c.tab || !c.aff || !c.aff_done)
        rc = gs_y_nomem(d, o.file_node);
    else
        rc = build(d, &o, &ow, &c, w);
    gs_free(c.tab);
    gs_free(c.aff);
    gs_free(c.aff_done);
    gs_openb_workload_free(&ow);
    return rc;
}
