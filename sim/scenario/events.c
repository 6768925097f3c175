/* spec.events: timed actions on nodes and pods, sorted by time (document order on ties). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

#define GS_MAX_ADD_NODES 100000

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                        "out of memory");
}

/* The actions gpusim models, in the order of enum gs_sevent_kind, then those of SCENARIO.md
 * that a later release models. */
static const char *const actions[] = {"cordon", "uncordon", "drain", "deleteNode", "addNodes", "label", "deletePod",
                                      NULL};
static const char *const later[] = {"kernelPatch",   "xid",   "devicePluginRestart", "precompiledImagePublished",
                                    "operandFault",  "scale", "schedulerRestart",    NULL};

static int node_action(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"node", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "node");
    gs_scn_path(p, "%s.node", path);
    if ((rc = gs_y_str(d, v, p, &ev->node)))
        return rc;
    /* The node may join later (addNodes), but it must be able to belong to a pool. */
    return gs_scn_check_node_name(d, v, p, ev->node);
}

static int add_nodes(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"pool", "count", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "pool");
    const char *pool;
    if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.pool", path), &pool)))
        return rc;
    const struct gs_world *w = d->world;
    ev->pool = -1;
    for (int i = 0; i < w->npools; i++)
        if (strcmp(w->pools[i].name, pool) == 0)
            ev->pool = i;
    if (ev->pool < 0) {
        const char *names[65];
        int k = 0;
        for (int i = 0; i < w->npools && k < 64; i++)
            names[k++] = w->pools[i].name;
        names[k] = NULL;
        const char *near = gs_y_suggest(pool, names);
        if (near)
            return gs_y_error(d, v, "unknown node pool '%s' at %s.pool (did you mean '%s'?)", pool, path, near);
        return gs_y_error(d, v, "unknown node pool '%s' at %s.pool: pools are defined in spec.cluster.nodePools",
                          pool, path);
    }
    int64_t c;
    if ((rc = gs_y_int(d, gs_y_get(n, "count"), gs_scn_path(p, "%s.count", path), 1, GS_MAX_ADD_NODES, &c)))
        return rc;
    ev->count = (int)c;
    return 0;
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const struct gs_kv *)a)->key, ((const struct gs_kv *)b)->key);
}

static int label(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"node", "set", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "node");
    gs_scn_path(p, "%s.node", path);
    if ((rc = gs_y_str(d, v, p, &ev->node)) || (rc = gs_scn_check_node_name(d, v, p, ev->node)))
        return rc;
    const struct gs_ynode *set = gs_y_get(n, "set");
    gs_scn_path(p, "%s.set", path);
    if ((rc = gs_y_want_map(d, set, p)))
        return rc;
    if (set->n == 0)
        return gs_y_error(d, set, "%s is empty: give the labels to set (a null value removes one)", p);
    struct gs_kv *kv = gs_arena_alloc(d->arena, sizeof *kv * (size_t)set->n);
    if (!kv)
        return nomem(d, set);
    /* A value of null removes the label, so gs_labels_set (which stores "" for NULL) is not used. */
    for (int i = 0; i < set->n; i++) {
        const struct gs_ynode *k = set->pairs[i].key, *val = set->pairs[i].value;
        if (!gs_scn_is_qualified_name(k->text))
            return gs_y_error(d, k, "invalid label key '%s' in %s: must be a qualified name ([prefix/]name)", k->text,
                              p);
        kv[i].key = k->text;
        kv[i].value = NULL;
        if (gs_y_is_null(val))
            continue;
        char vp[GS_SCN_PATH];
        if ((rc = gs_y_str(d, val, gs_scn_path(vp, "%s.%s", p, k->text), &kv[i].value)))
            return rc;
        if (!gs_scn_is_label_value(kv[i].value))
            return gs_y_error(d, val,
                              "invalid label value '%s' at %s.%s: must be empty or at most 63 alphanumerics, "
                              "'-', '_' or '.', starting and ending with an alphanumeric",
                              kv[i].value, p, k->text);
    }
    qsort(kv, (size_t)set->n, sizeof *kv, cmp_kv);
    ev->set.kv = kv;
    ev->set.n = set->n;
    ev->set.cap = set->n;
    return 0;
}

static int delete_pod(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_sevent *ev)
{
    static const char *const keys[] = {"pod", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, n, path, keys, NULL, keys);
    if (rc)
        return rc;
    const struct gs_ynode *v = gs_y_get(n, "pod");
    if ((rc = gs_y_str(d, v, gs_scn_path(p, "%s.pod", path), &ev->pod)))
        return rc;
    if (!gs_scn_is_dns_subdomain(ev->pod))
        return gs_y_error(d, v, "invalid pod name '%s' at %s.pod: must be a DNS-1123 subdomain", ev->pod, path);
    return 0;
}

static int event(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_sevent *ev)
{
    /* The actions of a later release are refused as not supported yet. */
    const char *keys[16];
    int nk = 0;
    keys[nk++] = "at";
    for (int i = 0; actions[i]; i++)
        keys[nk++] = actions[i];
    keys[nk] = NULL;
    static const char *const required[] = {"at", NULL};
    char p[GS_SCN_PATH];
    int rc = gs_y_check_map(d, e, path, keys, later, required);
    if (rc)
        return rc;
    ev->line = e->line;
    ev->col = e->col;
    ev->pool = -1;
    if ((rc = gs_y_duration(d, gs_y_get(e, "at"), gs_scn_path(p, "%s.at", path), false, &ev->at)))
        return rc;
    int found = -1;
    const struct gs_ynode *action = NULL;
    for (int i = 0; i < e->n; i++) {
        const char *k = e->pairs[i].key->text;
        for (int a = 0; actions[a]; a++) {
            if (strcmp(k, actions[a]) != 0)
                continue;
            if (found >= 0)
                return gs_y_error(d, e->pairs[i].key, "%s has two actions, '%s' and '%s': give one per event",
                                  path, actions[found], k);
            found = a;
            action = e->pairs[i].value;
        }
    }
    if (found < 0)
        return gs_y_error(d, e,
                          "%s has no action: give one of cordon, uncordon, drain, deleteNode, addNodes, label or "
                          "deletePod",
                          path);
    ev->kind = (enum gs_sevent_kind)found;
    gs_scn_path(p, "%s.%s", path, actions[found]);
    switch (ev->kind) {
    case GS_SEV_CORDON:
    case GS_SEV_UNCORDON:
    case GS_SEV_DRAIN:
    case GS_SEV_DELETE_NODE:
        return node_action(d, action, p, ev);
    case GS_SEV_ADD_NODES:
        return add_nodes(d, action, p, ev);
    case GS_SEV_LABEL:
        return label(d, action, p, ev);
    case GS_SEV_DELETE_POD:
        return delete_pod(d, action, p, ev);
    }
    return gs_y_error(d, e, "%s: unknown action", path);
}

int gs_scn_events(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc)
{
    sc->events = NULL;
    sc->nevents = 0;
    if (!seq || gs_y_is_null(seq))
        return 0;
    int rc = gs_y_want_seq(d, seq, "spec.events");
    if (rc || seq->n == 0)
        return rc;
    struct gs_sevent *evs = gs_arena_alloc(d->arena, sizeof *evs * (size_t)seq->n);
    if (!evs)
        return nomem(d, seq);
    char path[GS_SCN_PATH];
    for (int i = 0; i < seq->n; i++) {
        if ((rc = event(d, seq->items[i], gs_scn_path(path, "spec.events[%d]", i), &evs[i])))
            return rc;
        /* Insertion sort by time: stable, so equal times keep document order. */
        struct gs_sevent cur = evs[i];
        int j = i;
        while (j > 0 && evs[j - 1].at > cur.at) {
            evs[j] = evs[j - 1];
            j--;
        }
        evs[j] = cur;
    }
    sc->events = evs;
    sc->nevents = seq->n;
    return 0;
}
