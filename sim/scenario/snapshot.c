/* spec.cluster.source {format: kubectl, nodes: nodes.json, pods: pods.json}: a cluster as
 * `kubectl get nodes -o json` and `kubectl get pods -A -o json` print it (a v1 List, NodeList
 * or PodList with items; a single Node or Pod object is a list of one).
 *
 * Nodes: metadata.name and labels, spec.taints and spec.unschedulable, status.capacity and
 * status.allocatable (allocatable defaults to capacity) are kept; nvidia.com/gpu in capacity is
 * the node's GPU count, advertised by the device plugin model at join as for any GPU node (so
 * allocatable nvidia.com/gpu equals capacity: an unhealthy GPU is an `xid` event), with the
 * product from the label nvidia.com/gpu.product. Pools are one per (instance type, product,
 * GPU count), named after node.kubernetes.io/instance-type.
 *
 * Pods: Running (and Unknown) pods stay bound to spec.nodeName, Running from 0s, without going
 * through the scheduler; Pending pods are created at 0s and queued (bound directly when
 * spec.nodeName is already set); Succeeded and Failed pods are left out. Requests come from the
 * containers as the API server computes them (the scenario's pod-spec decoder: requests default
 * to limits, max of the init containers, the API validation). Priority is spec.priority as the
 * admission controller resolved it. Only what places a pod is read: for a Running pod its
 * containers' resources, nodeName and the rest is ignored; a Pending pod's
 * topologySpreadConstraints, pod (anti-)affinity, schedulingGates, overhead and hostNetwork
 * are refused as "not supported yet" (they change where it may go), and so is a sidecar init
 * container (restartPolicy Always) in any pod (its requests add up differently). Pods are named
 * metadata.name, or <namespace>/<name> when the name is in several namespaces; they are the
 * workloads snapshot-running and snapshot-pending, bare pods that are never re-created.
 *
 * Every other field is ignored: the files are data, not hand-written scenarios. Errors name
 * the file, line:column and the JSON path (items[3].status.allocatable.cpu). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/json.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "out of memory");
}

/* Load `rel` (at scenario key `fn`) and find its items: *items and *n (a lone object of kind
 * `kind` is one item). */
static int load_list(struct gs_ydec *d, const struct gs_ynode *fn, const char *path, const char *kind,
                     const char **file, struct gs_ynode ***items, int *n)
{
    const char *rel;
    int rc = gs_y_str(d, fn, path, &rel);
    if (rc)
        return rc;
    if (!(*file = gs_scn_source_path(d, fn, rel)))
        return GS_ENOMEM;
    struct gs_ynode *root;
    rc = gs_json_load_file(*file, kind[0] == 'N' ? "a kubectl node list" : "a kubectl pod list", GS_SCN_KUBECTL_LIMIT,
                           d->arena, &root, d->err);
    if (rc == GS_EIO) {
        char why[sizeof d->err->msg];
        snprintf(why, sizeof why, "%s", d->err->msg);
        return gs_y_error(d, fn, "cannot read %s '%s': %s", path, rel, why);
    }
    if (rc)
        return rc;
    if ((rc = gs_y_want_map(d, root, "the document")))
        return rc;
    const struct gs_ynode *k = gs_y_get(root, "kind");
    const char *kv = NULL;
    if (k && (rc = gs_y_kstr(d, k, "kind", &kv)))
        return rc;
    if (kv && strcmp(kv, kind) == 0) {
        struct gs_ynode **it = gs_arena_alloc(d->arena, sizeof *it);
        if (!it)
            return nomem(d, root);
        it[0] = root;
        *items = it;
        *n = 1;
        return 0;
    }
    const struct gs_ynode *seq = gs_y_get(root, "items");
    if (!seq)
        return gs_y_error(d, root,
                          "missing required field 'items': expected the output of kubectl get %ss -o json (a "
                          "List of %s objects)%s%s",
                          kind[0] == 'N' ? "node" : "pod", kind, kv ? ", got kind " : "", kv ? kv : "");
    if ((rc = gs_y_want_seq(d, seq, "items")))
        return rc;
    *items = seq->items;
    *n = seq->n;
    return 0;
}

static int check_kind(struct gs_ydec *d, const struct gs_ynode *item, const char *path, const char *kind)
{
    char p[GS_SCN_PATH];
    int rc = gs_y_want_map(d, item, path);
    if (rc)
        return rc;
    const struct gs_ynode *k = gs_y_get(item, "kind");
    const char *kv;
    if (!k)
        return 0;
    if ((rc = gs_y_kstr(d, k, gs_scn_path(p, "%s.kind", path), &kv)))
        return rc;
    if (strcmp(kv, kind) != 0)
        return gs_y_error(d, k, "%s.kind: expected %s, got '%.80s'", path, kind, kv);
    return 0;
}

/* metadata.name (required) and labels, annotations when asked. */
static int metadata(struct gs_ydec *d, const struct gs_ynode *item, const char *path, const char **name,
                    const char **ns, struct gs_labels *labels, struct gs_labels *annotations)
{
    char p[GS_SCN_PATH], q[GS_SCN_PATH];
    const struct gs_ynode *m = gs_y_get(item, "metadata");
    gs_scn_path(p, "%s.metadata", path);
    if (!m)
        return gs_y_error(d, item, "missing required field 'metadata' in %s", path);
    int rc = gs_y_want_map(d, m, p);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(m, "name");
    if (!v)
        return gs_y_error(d, m, "missing required field 'name' in %s", p);
    if ((rc = gs_y_kstr(d, v, gs_scn_path(q, "%s.name", p), name)))
        return rc;
    if (!gs_scn_is_dns_subdomain(*name))
        return gs_y_error(d, v, "invalid name '%.80s' at %s: must be a DNS-1123 subdomain", *name, q);
    if (ns) {
        *ns = "default";
        if (!gs_y_is_null(v = gs_y_get(m, "namespace")) && (rc = gs_y_kstr(d, v, gs_scn_path(q, "%s.namespace", p), ns)))
            return rc;
    }
    if (labels && !gs_y_is_null(v = gs_y_get(m, "labels")) &&
        (rc = gs_y_labels(d, v, gs_scn_path(q, "%s.labels", p), labels)))
        return rc;
    if (annotations && !gs_y_is_null(v = gs_y_get(m, "annotations")) &&
        (rc = gs_y_labels(d, v, gs_scn_path(q, "%s.annotations", p), annotations)))
        return rc;
    return 0;
}

/* ------------------------------------------------------------------ nodes */

/* status.capacity / status.allocatable: amounts into `v`; nvidia.com/gpu into *gpus. */
static int resources(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_resvec *v, int *gpus)
{
    int rc = gs_y_want_map(d, m, path);
    if (rc)
        return rc;
    for (int i = 0; i < m->n; i++) {
        const char *name = m->pairs[i].key->text;
        const struct gs_ynode *val = m->pairs[i].value;
        char p[GS_SCN_PATH];
        gs_scn_path(p, "%s.%s", path, name);
        struct gs_quantity q;
        if ((rc = gs_y_quantity(d, val, p, &q)))
            return rc;
        if (gs_quantity_sign(&q) < 0)
            return gs_y_error(d, val, "%s must not be negative, got %s", p, val->text);
        int64_t amount = strcmp(name, "cpu") == 0 ? gs_quantity_milli(&q) : gs_quantity_value(&q);
        if ((rc = gs_scn_check_amount(d, val, p, name, amount)))
            return rc;
        if (strcmp(name, "nvidia.com/gpu") == 0) {
            /* An extended resource is a whole number (the API server's validation). */
            if (gs_quantity_milli(&q) % 1000 != 0)
                return gs_y_error(d, val, "%s: must be a whole number of GPUs, got %s", p, val->text);
            if (amount > GS_GPUS_MAX)
                return gs_y_error(d, val, "%s: %lld GPUs on one node is more than gpusim supports (%d)", p,
                                  (long long)amount, GS_GPUS_MAX);
            *gpus = (int)amount;
            continue;
        }
        int idx = gs_res_intern(&d->world->res, d->arena, name);
        if (idx < 0)
            return gs_y_error(d, m->pairs[i].key, "too many distinct resources at %s (gpusim supports %d)", p,
                              GS_RES_MAX);
        v->v[idx] = amount;
    }
    return 0;
}

static int taints(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, struct gs_pool_node *own)
{
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};
    int rc = gs_y_want_seq(d, seq, path);
    if (rc || seq->n == 0)
        return rc;
    struct gs_taint *t = gs_arena_alloc(d->arena, sizeof *t * (size_t)seq->n);
    if (!t)
        return nomem(d, seq);
    for (int i = 0; i < seq->n; i++) {
        const struct gs_ynode *m = seq->items[i], *v;
        char p[GS_SCN_PATH], q[GS_SCN_PATH];
        gs_scn_path(p, "%s[%d]", path, i);
        if ((rc = gs_y_want_map(d, m, p)))
            return rc;
        if (!(v = gs_y_get(m, "key")))
            return gs_y_error(d, m, "missing required field 'key' in %s", p);
        if ((rc = gs_y_kstr(d, v, gs_scn_path(q, "%s.key", p), &t[i].key)))
            return rc;
        t[i].value = "";
        if (!gs_y_is_null(v = gs_y_get(m, "value")) && (rc = gs_y_kstr(d, v, gs_scn_path(q, "%s.value", p), &t[i].value)))
            return rc;
        if (!(v = gs_y_get(m, "effect")))
            return gs_y_error(d, m, "missing required field 'effect' in %s", p);
        int e;
        if ((rc = gs_y_enum(d, v, gs_scn_path(q, "%s.effect", p), effects, &e)))
            return rc;
        t[i].effect = e == 0 ? GS_EFFECT_NO_SCHEDULE : e == 1 ? GS_EFFECT_PREFER_NO_SCHEDULE : GS_EFFECT_NO_EXECUTE;
    }
    own->taints = t;
    own->ntaints = seq->n;
    return 0;
}

/* A pool name stem from `s`: lowercase, [a-z0-9] kept, runs of anything else one '-'. */
static const char *stem(struct gs_arena *a, const char *s, int gpus)
{
    char buf[64];
    size_t n = 0;
    for (; *s && n < 40; s++) {
        if (isalnum((unsigned char)*s))
            buf[n++] = (char)tolower((unsigned char)*s);
        else if (n > 0 && buf[n - 1] != '-')
            buf[n++] = '-';
    }
    while (n > 0 && buf[n - 1] == '-')
        n--;
    if (n == 0)
        n = (size_t)snprintf(buf, sizeof buf, "node");
    if (gpus > 0)
        snprintf(buf + n, sizeof buf - n, "-%dgpu", gpus);
    else
        buf[n] = '\0';
    return gs_arena_strdup(a, buf);
}

static int node_item(struct gs_ydec *d, const struct gs_ynode *item, const char *path, struct gs_src_node *s)
{
    char p[GS_SCN_PATH];
    int rc = check_kind(d, item, path, "Node");
    if (rc || (rc = metadata(d, item, path, &s->own.name, NULL, &s->own.labels, NULL)))
        return rc;
    const struct gs_ynode *spec = gs_y_get(item, "spec"), *status = gs_y_get(item, "status"), *v;
    if (!gs_y_is_null(spec)) {
        gs_scn_path(p, "%s.spec", path);
        if ((rc = gs_y_want_map(d, spec, p)))
            return rc;
        if (!gs_y_is_null(v = gs_y_get(spec, "unschedulable")) &&
            (rc = gs_y_bool(d, v, gs_scn_path(p, "%s.spec.unschedulable", path), &s->own.unschedulable)))
            return rc;
        if (!gs_y_is_null(v = gs_y_get(spec, "taints")) &&
            (rc = taints(d, v, gs_scn_path(p, "%s.spec.taints", path), &s->own)))
            return rc;
    }
    gs_scn_path(p, "%s.status", path);
    if (gs_y_is_null(status))
        return gs_y_error(d, item, "missing required field 'status' in %s (status.capacity is the node's size)", path);
    if ((rc = gs_y_want_map(d, status, p)))
        return rc;
    const struct gs_ynode *cap = gs_y_get(status, "capacity"), *alloc = gs_y_get(status, "allocatable");
    if (gs_y_is_null(cap))
        return gs_y_error(d, status, "missing required field 'capacity' in %s", p);
    struct gs_resvec *c = gs_arena_alloc(d->arena, sizeof *c), *a = gs_arena_alloc(d->arena, sizeof *a);
    if (!c || !a)
        return nomem(d, item);
    int gpus = 0, agpus = 0;
    if ((rc = resources(d, cap, gs_scn_path(p, "%s.status.capacity", path), c, &gpus)))
        return rc;
    if (gs_y_is_null(alloc)) {
        *a = *c;
    } else {
        char ap[GS_SCN_PATH];
        if ((rc = resources(d, alloc, gs_scn_path(ap, "%s.status.allocatable", path), a, &agpus)))
            return rc;
        for (int r = 0; r < d->world->res.n; r++)
            if (a->v[r] > c->v[r])
                return gs_y_error(d, alloc, "%s.status.allocatable.%s (%lld) exceeds status.capacity.%s (%lld)", path,
                                  d->world->res.names[r], (long long)a->v[r], d->world->res.names[r],
                                  (long long)c->v[r]);
    }
    if (c->v[GS_RES_PODS] == 0 && a->v[GS_RES_PODS] == 0)
        c->v[GS_RES_PODS] = a->v[GS_RES_PODS] = 110; /* the kubelet's maxPods */
    s->own.capacity = c;
    s->own.allocatable = a;
    s->gpus = gpus;
    s->product = gpus > 0 ? gs_labels_get(&s->own.labels, "nvidia.com/gpu.product") : NULL;
    const char *type = gs_labels_get(&s->own.labels, "node.kubernetes.io/instance-type");
    if (!type)
        type = gs_labels_get(&s->own.labels, "beta.kubernetes.io/instance-type");
    s->stem = stem(d->arena, type ? type : s->product ? s->product : gpus > 0 ? "gpu" : "cpu", type ? 0 : gpus);
    return s->stem ? 0 : nomem(d, item);
}

/* ------------------------------------------------------------------ pods */

/* A map with the pairs of `m` whose keys are in `keys` (document order). */
static struct gs_ynode *pick(struct gs_arena *a, const struct gs_ynode *m, const char *const *keys)
{
    struct gs_ynode *n = gs_arena_alloc(a, sizeof *n);
    if (!n)
        return NULL;
    *n = *m;
    n->pairs = m->n ? gs_arena_alloc(a, sizeof *n->pairs * (size_t)m->n) : NULL;
    if (m->n && !n->pairs)
        return NULL;
    n->n = 0;
    for (int i = 0; i < m->n; i++)
        for (int k = 0; keys[k]; k++)
            if (strcmp(m->pairs[i].key->text, keys[k]) == 0)
                n->pairs[n->n++] = m->pairs[i];
    return n;
}

/* The value slot of `key` in a map made by pick(), or NULL. */
static struct gs_ynode **slot(struct gs_ynode *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->pairs[i].key->text, key) == 0)
            return &m->pairs[i].value;
    return NULL;
}

/* containers / initContainers: each one's name and resources (and restartPolicy of an init
 * container: a sidecar, which the decoder refuses as not supported yet). */
static int containers(struct gs_ydec *d, struct gs_ynode *spec, const char *key, const char *path, bool pending)
{
    static const char *const ckeys[] = {"name", "resources", NULL};
    static const char *const ikeys[] = {"name", "resources", "restartPolicy", NULL};
    static const char *const rkeys[] = {"requests", "limits", NULL};
    static const char *const rkeys_pending[] = {"requests", "limits", "claims", NULL};
    struct gs_ynode **v = slot(spec, key);
    if (!v || gs_y_is_null(*v))
        return 0;
    char p[GS_SCN_PATH];
    int rc = gs_y_want_seq(d, *v, gs_scn_path(p, "%s.%s", path, key));
    if (rc)
        return rc;
    struct gs_ynode *seq = gs_arena_alloc(d->arena, sizeof *seq);
    if (!seq)
        return nomem(d, *v);
    *seq = **v;
    seq->items = (*v)->n ? gs_arena_alloc(d->arena, sizeof *seq->items * (size_t)(*v)->n) : NULL;
    if ((*v)->n && !seq->items)
        return nomem(d, *v);
    for (int i = 0; i < (*v)->n; i++) {
        const struct gs_ynode *c = (*v)->items[i];
        char cp[GS_SCN_PATH];
        if ((rc = gs_y_want_map(d, c, gs_scn_path(cp, "%s.%s[%d]", path, key, i))))
            return rc;
        struct gs_ynode *pc = pick(d->arena, c, key[0] == 'i' ? ikeys : ckeys);
        if (!pc)
            return nomem(d, c);
        struct gs_ynode **res = slot(pc, "resources");
        if (res && (*res)->type == GS_Y_MAP && !(*res = pick(d->arena, *res, pending ? rkeys_pending : rkeys)))
            return nomem(d, c);
        seq->items[i] = pc;
    }
    *v = seq;
    return 0;
}

/* The part of a pod's spec that places it, for the scenario's pod-spec decoder. */
static int placement_spec(struct gs_ydec *d, const struct gs_ynode *spec, const char *path, bool pending,
                          struct gs_ynode **out)
{
    static const char *const bound[] = {"containers", "initContainers", "tolerations", "nodeSelector", "affinity",
                                        "nodeName", "terminationGracePeriodSeconds", NULL};
    static const char *const queued[] = {"containers", "initContainers", "tolerations", "nodeSelector", "affinity",
                                         "nodeName", "terminationGracePeriodSeconds", "schedulerName",
                                         "topologySpreadConstraints", "schedulingGates", "resourceClaims",
                                         "overhead", "hostNetwork", NULL};
    static const char *const node_affinity_only[] = {"nodeAffinity", NULL};
    struct gs_ynode *s = pick(d->arena, spec, pending ? queued : bound);
    if (!s)
        return nomem(d, spec);
    int rc;
    if ((rc = containers(d, s, "containers", path, pending)) || (rc = containers(d, s, "initContainers", path, pending)))
        return rc;
    struct gs_ynode **aff = slot(s, "affinity");
    if (!pending && aff && (*aff)->type == GS_Y_MAP && !(*aff = pick(d->arena, *aff, node_affinity_only)))
        return nomem(d, spec);
    *out = s;
    return 0;
}

/* spec.priority / priorityClassName / preemptionPolicy as the Priority admission controller
 * resolved them (the decoder gave the globalDefault class's). */
static int priority(struct gs_ydec *d, const struct gs_ynode *spec, const char *path, struct gs_pod_template *t)
{
    static const char *const policies[] = {"PreemptLowerPriority", "Never", NULL};
    char p[GS_SCN_PATH];
    const struct gs_ynode *pc = gs_y_get(spec, "priorityClassName"), *pr = gs_y_get(spec, "priority");
    const struct gs_ynode *pol = gs_y_get(spec, "preemptionPolicy");
    int rc;
    const struct gs_priority_class *cls = NULL;
    if (!gs_y_is_null(pc)) {
        const char *name;
        if ((rc = gs_y_kstr(d, pc, gs_scn_path(p, "%s.priorityClassName", path), &name)))
            return rc;
        t->priority_class = name;
        if ((rc = gs_scn_priority_class(d, pc, name, &cls)))
            return rc;
        if (gs_y_is_null(pr) && !cls)
            return gs_y_error(d, pc,
                              "%s.priorityClassName: no PriorityClass '%.80s' and no spec.priority (define the "
                              "class in spec.objects)",
                              path, name);
        if (cls) {
            t->priority = cls->value;
            t->preemption_policy = cls->preemption_policy;
        }
    }
    if (!gs_y_is_null(pr)) {
        int64_t v;
        if ((rc = gs_y_int(d, pr, gs_scn_path(p, "%s.priority", path), INT32_MIN, INT32_MAX, &v)))
            return rc;
        t->priority = (int32_t)v;
    }
    if (!gs_y_is_null(pol)) {
        int k;
        if ((rc = gs_y_enum(d, pol, gs_scn_path(p, "%s.preemptionPolicy", path), policies, &k)))
            return rc;
        t->preemption_policy = k == 1 ? GS_PREEMPT_NEVER : GS_PREEMPT_LOWER_PRIORITY;
    }
    return 0;
}

enum pod_state { POD_SKIP, POD_RUNNING, POD_PENDING };

struct src_pod {
    const char *name, *ns;
    enum pod_state state;
    struct gs_pod_template *tmpl;
};

static int pod_item(struct gs_ydec *d, const struct gs_ynode *item, const char *path, const char *nodes_file,
                    struct src_pod *out)
{
    static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown", NULL};
    char p[GS_SCN_PATH];
    int rc = check_kind(d, item, path, "Pod");
    if (rc)
        return rc;
    struct gs_pod_template *t = gs_arena_alloc(d->arena, sizeof *t);
    if (!t)
        return nomem(d, item);
    if ((rc = metadata(d, item, path, &out->name, &out->ns, &t->labels, &t->annotations)))
        return rc;
    int phase = 0; /* Pending when the file has no status */
    const struct gs_ynode *status = gs_y_get(item, "status"), *v;
    if (!gs_y_is_null(status)) {
        if ((rc = gs_y_want_map(d, status, gs_scn_path(p, "%s.status", path))))
            return rc;
        if (!gs_y_is_null(v = gs_y_get(status, "phase")) &&
            (rc = gs_y_enum(d, v, gs_scn_path(p, "%s.status.phase", path), phases, &phase)))
            return rc;
    }
    out->state = phase == 0 ? POD_PENDING : phase == 1 || phase == 4 ? POD_RUNNING : POD_SKIP;
    if (out->state == POD_SKIP)
        return 0;
    const struct gs_ynode *spec = gs_y_get(item, "spec");
    gs_scn_path(p, "%s.spec", path);
    if (!spec)
        return gs_y_error(d, item, "missing required field 'spec' in %s", path);
    if ((rc = gs_y_want_map(d, spec, p)))
        return rc;
    const struct gs_ynode *nn = gs_y_get(spec, "nodeName");
    if (gs_y_is_null(nn) && out->state == POD_RUNNING)
        return gs_y_error(d, status, "%s: a %s pod has no spec.nodeName", path, phases[phase]);
    if (!gs_y_is_null(nn)) {
        const char *node;
        char np[GS_SCN_PATH];
        if ((rc = gs_y_kstr(d, nn, gs_scn_path(np, "%s.nodeName", p), &node)))
            return rc;
        int pool;
        if ((rc = gs_scn_node_pool(d, nn, node, &pool)))
            return rc;
        if (pool < 0)
            return gs_y_error(d, nn, "%s: node '%.80s' is not in %s%s", np, node, nodes_file,
                              d->world->npools ? " nor in spec.cluster.nodePools" : "");
    }
    struct gs_ynode *ps = NULL;
    if ((rc = placement_spec(d, spec, p, out->state == POD_PENDING, &ps)))
        return rc;
    struct gs_podspec_ctx c = {.path = p, .api_prefix = "spec.", .pod_name = out->name};
    if ((rc = gs_scn_pod_spec(d, ps, &c, t)) || (rc = priority(d, spec, p, t)))
        return rc;
    out->tmpl = t;
    return 0;
}

/* By name, then namespace: a name's pods are adjacent, and a pod listed twice is next to itself. */
static int cmp_pod_name(const void *a, const void *b)
{
    const struct src_pod *x = *(const struct src_pod *const *)a, *y = *(const struct src_pod *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->ns, y->ns);
}

/* Names: metadata.name, or <namespace>/<name> for a name used in several namespaces. */
static int qualify_names(struct gs_ydec *d, const struct gs_ynode *at, struct src_pod *pods, int n)
{
    struct src_pod **s = gs_malloc(sizeof *s * (size_t)(n > 0 ? n : 1));
    if (!s)
        return nomem(d, at);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (pods[i].state != POD_SKIP)
            s[m++] = &pods[i];
    qsort(s, (size_t)m, sizeof *s, cmp_pod_name);
    int rc = 0;
    for (int i = 0; i < m && !rc;) {
        int j = i + 1;
        while (j < m && strcmp(s[j]->name, s[i]->name) == 0)
            j++;
        for (int k = i + 1; k < j && !rc; k++)
            if (strcmp(s[k - 1]->ns, s[k]->ns) == 0)
                rc = gs_y_error(d, at, "pod %s/%s is in the pod list twice", s[k]->ns, s[k]->name);
        for (int k = i; j - i > 1 && k < j && !rc; k++)
            if (!(s[k]->name = gs_arena_printf(d->arena, "%s/%s", s[k]->ns, s[k]->name)))
                rc = nomem(d, at);
        i = j;
    }
    gs_free(s);
    return rc;
}

/* A GS_WL_LIST workload `name` of the pods in state `state`, appended to the world's. */
static int list_workload(struct gs_ydec *d, const struct gs_ynode *at, struct gs_scenario *sc, const char *name,
                         const struct src_pod *pods, int n, enum pod_state state)
{
    struct gs_world *w = &sc->world;
    int count = 0;
    for (int i = 0; i < n; i++)
        count += pods[i].state == state;
    if (count == 0)
        return 0;
    struct gs_listed_pod *list = gs_arena_alloc(d->arena, sizeof *list * (size_t)count);
    if (!list || GS_ARENA_GROW(d->arena, w->workloads, w->workloads_cap, w->nworkloads + 1))
        return nomem(d, at);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (pods[i].state == state)
            list[k++] = (struct gs_listed_pod){.name = pods[i].name, .tmpl = pods[i].tmpl, .arrive = 0, .duration = -1};
    struct gs_workload *x = &w->workloads[w->nworkloads];
    x->name = name;
    x->kind = GS_WL_LIST;
    x->replicas = 1;
    x->arrival = (struct gs_arrival){.kind = GS_ARRIVE_AT, .start = 0, .count = count};
    x->duration.kind = GS_DIST_NONE;
    x->tmpl = *list[0].tmpl;
    x->group_timeout_us = -1;
    x->start_latency = state == POD_RUNNING ? 0 : -1; /* already Running at 0s */
    x->src_line = at->line;
    x->list = list;
    x->nlist = count;
    w->nworkloads++;
    return 0;
}

int gs_scn_snapshot(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc)
{
    char p[GS_SCN_PATH], ip[GS_SCN_PATH];
    const struct gs_ynode *fn = gs_y_get(n, "nodes"), *pn = gs_y_get(n, "pods");
    const char *nodes_file, *pods_file;
    struct gs_ynode **items;
    int count, rc;
    if ((rc = load_list(d, fn, gs_scn_path(p, "%s.nodes", path), "Node", &nodes_file, &items, &count)))
        return rc;
    struct gs_src_node *nodes = gs_arena_alloc(d->arena, sizeof *nodes * (size_t)(count > 0 ? count : 1));
    if (!nodes)
        return nomem(d, fn);
    for (int i = 0; i < count; i++)
        if ((rc = node_item(d, items[i], gs_scn_path(ip, "items[%d]", i), &nodes[i])))
            return rc;
    if ((rc = gs_scn_source_pools(d, fn, nodes_file, nodes, count, sc)))
        return rc;
    if (gs_y_is_null(pn))
        return 0;
    if ((rc = load_list(d, pn, gs_scn_path(p, "%s.pods", path), "Pod", &pods_file, &items, &count)))
        return rc;
    struct src_pod *pods = gs_calloc((size_t)(count > 0 ? count : 1), sizeof *pods);
    if (!pods)
        return nomem(d, pn);
    for (int i = 0; i < count && !rc; i++)
        rc = pod_item(d, items[i], gs_scn_path(ip, "items[%d]", i), nodes_file, &pods[i]);
    if (!rc)
        rc = qualify_names(d, pn, pods, count);
    if (!rc)
        rc = list_workload(d, pn, sc, "snapshot-running", pods, count, POD_RUNNING);
    if (!rc)
        rc = list_workload(d, pn, sc, "snapshot-pending", pods, count, POD_PENDING);
    gs_free(pods);
    return rc;
}
