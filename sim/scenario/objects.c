/* gpusim: spec.objects (decode.h): scheduling.k8s.io/v1 PriorityClass into
 * world.priority_classes. The API server's built-in classes system-cluster-critical
 * (2000000000) and system-node-critical (2000001000) always exist, as in a real cluster.
 * The other kinds SCENARIO.md names are "not supported yet"; anything else is an error.
 *
 * Upstream: kubernetes pkg/apis/scheduling/validation (ValidatePriorityClass),
 * pkg/apis/scheduling/types.go (HighestUserDefinablePriority, SystemPriorityClassPrefix). */
#include <stdint.h>
#include <string.h>

#include "base/strmap.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"

#define GS_HIGHEST_USER_PRIORITY 1000000000

static const struct {
    const char *name;
    int32_t value;
} builtin_classes[] = {
    {"system-cluster-critical", 2000000000},
    {"system-node-critical", 2000001000},
};
#define GS_NBUILTIN ((int)(sizeof builtin_classes / sizeof builtin_classes[0]))

static const char *const supported_text =
    "supported: scheduling.k8s.io/v1 PriorityClass, kueue.x-k8s.io/v1beta1 ResourceFlavor, ClusterQueue, "
    "LocalQueue, kueue.x-k8s.io/v1alpha1 Topology and resource.k8s.io/v1 DeviceClass, ResourceClaim and "
    "ResourceClaimTemplate";

static bool group_is(const char *api_version, const char *group)
{
    size_t n = strlen(group);
    return strncmp(api_version, group, n) == 0 && api_version[n] == '/';
}

static bool kind_in(const char *kind, const char *const *kinds)
{
    for (int i = 0; kinds[i]; i++)
        if (strcmp(kind, kinds[i]) == 0)
            return true;
    return false;
}

/* One PriorityClass into w->priority_classes; `names` maps the names so far to their entries. */
static int priority_class(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_world *w,
                          const struct gs_ynode **default_node, const struct gs_ynode **name_nodes,
                          struct gs_strmap *names)
{
    static const char *const keys[] = {"apiVersion", "kind", "metadata", "value", "globalDefault",
                                       "preemptionPolicy", "description", NULL};
    static const char *const req[] = {"metadata", "value", NULL};
    int rc = gs_y_check_map(d, n, path, keys, NULL, req);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const char *name;
    const struct gs_ynode *name_node;
    const struct gs_ynode *md = gs_y_get(n, "metadata");
    if ((rc = gs_y_want_map(d, md, gs_scn_path(p, "%s.metadata", path))))
        return rc;
    if ((rc = gs_scn_metadata(d, md, p, true, &name, &name_node, NULL, NULL)))
        return rc;
    if (!gs_scn_is_dns_subdomain(name))
        return gs_y_error(d, name_node,
                          "invalid PriorityClass name \"%.80s\" at %s.name: must be a DNS-1123 subdomain "
                          "(lowercase letters, digits, '-' or '.', starting and ending with a letter or digit)",
                          name, p);
    for (int i = 0; i < GS_NBUILTIN; i++)
        if (strcmp(name, builtin_classes[i].name) == 0)
            return gs_y_error(d, name_node, "PriorityClass \"%s\" already exists: it is built into the API server",
                              name);
    if (strncmp(name, "system-", 7) == 0)
        return gs_y_error(d, name_node,
                          "invalid PriorityClass name \"%.80s\" at %s.name: names with the 'system-' prefix "
                          "are reserved for system use",
                          name, p);

    struct gs_priority_class *pc = &w->priority_classes[w->npriority_classes];
    int i, added = gs_strmap_add(names, name, w->npriority_classes, &i);
    if (added < 0)
        return gs_error_set(d->err, GS_ENOMEM, n->file, n->line, n->col, "out of memory");
    if (added == 1) {
        const struct gs_ynode *first = name_nodes[i];
        if (first)
            return gs_y_error(d, name_node, "duplicate PriorityClass \"%s\" (first at line %d column %d)", name,
                              first->line, first->col);
        return gs_y_error(d, name_node, "duplicate PriorityClass \"%s\"", name);
    }
    pc->name = name;
    name_nodes[w->npriority_classes] = name_node;

    int64_t v;
    const struct gs_ynode *vn = gs_y_get(n, "value");
    if ((rc = gs_y_int(d, vn, gs_scn_path(p, "%s.value", path), INT32_MIN, INT32_MAX, &v)))
        return rc;
    if (v > GS_HIGHEST_USER_PRIORITY)
        return gs_y_error(d, vn, "%s: maximum allowed value of a user defined priority is %d, got %lld", p,
                          GS_HIGHEST_USER_PRIORITY, (long long)v);
    pc->value = (int32_t)v;

    const struct gs_ynode *g = gs_y_get(n, "globalDefault");
    if (g && !gs_y_is_null(g)) {
        if ((rc = gs_y_bool(d, g, gs_scn_path(p, "%s.globalDefault", path), &pc->global_default)))
            return rc;
        if (pc->global_default) {
            if (*default_node)
                return gs_y_error(d, g,
                                  "%s: only one PriorityClass can be marked globalDefault (another is at line %d "
                                  "column %d)",
                                  p, (*default_node)->line, (*default_node)->col);
            *default_node = g;
        }
    }
    pc->preemption_policy = GS_PREEMPT_LOWER_PRIORITY;
    const struct gs_ynode *pp = gs_y_get(n, "preemptionPolicy");
    if (pp && !gs_y_is_null(pp)) {
        static const char *const policies[] = {"PreemptLowerPriority", "Never", NULL};
        int pol;
        if ((rc = gs_y_enum(d, pp, gs_scn_path(p, "%s.preemptionPolicy", path), policies, &pol)))
            return rc;
        pc->preemption_policy = pol == 1 ? GS_PREEMPT_NEVER : GS_PREEMPT_LOWER_PRIORITY;
    }
    const struct gs_ynode *desc = gs_y_get(n, "description");
    const char *ignored;
    if (desc && !gs_y_is_null(desc) && (rc = gs_y_str(d, desc, gs_scn_path(p, "%s.description", path), &ignored)))
        return rc;
    w->npriority_classes++;
    return 0;
}

/* spec.objects[i] at `n`. */
static int object(struct gs_ydec *d, const struct gs_ynode *n, int i, struct gs_scenario *sc,
                  const struct gs_ynode **default_node, const struct gs_ynode **name_nodes, struct gs_strmap *names)
{
    static const char *const dra_kinds[] = {"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", NULL};
    static const char *const kueue_kinds[] = {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Topology", NULL};
    char p[GS_SCN_PATH], pk[GS_SCN_PATH];
    gs_scn_path(p, "spec.objects[%d]", i);
    int rc = gs_y_want_map(d, n, p);
    if (rc)
        return rc;
    const struct gs_ynode *avn = gs_y_get(n, "apiVersion"), *kn = gs_y_get(n, "kind");
    if (!avn)
        return gs_y_error(d, n, "missing required field 'apiVersion' in %s", p);
    if (!kn)
        return gs_y_error(d, n, "missing required field 'kind' in %s", p);
    const char *av, *kind;
    if ((rc = gs_y_kstr(d, avn, gs_scn_path(pk, "%s.apiVersion", p), &av)) ||
        (rc = gs_y_kstr(d, kn, gs_scn_path(pk, "%s.kind", p), &kind)))
        return rc;
    if (strcmp(kind, "PriorityClass") == 0 && strcmp(av, "scheduling.k8s.io/v1") == 0)
        return priority_class(d, n, p, &sc->world, default_node, name_nodes, names);
    if (group_is(av, "kueue.x-k8s.io") && kind_in(kind, kueue_kinds))
        return gs_scn_kueue_object(d, n, p, av, kind, sc);
    if (group_is(av, "resource.k8s.io") && kind_in(kind, dra_kinds))
        return gs_scn_dra_object(d, n, p, av, kind, sc);
    if (strcmp(kind, "PriorityClass") == 0)
        return gs_y_error(d, avn, "no kind \"PriorityClass\" in apiVersion \"%.80s\" at %s: use scheduling.k8s.io/v1",
                          av, p);
    return gs_y_error(d, kn, "unsupported object kind \"%.80s\" (apiVersion %.80s) at %s: %s", kind, av, p,
                      supported_text);
}

int gs_scn_objects(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc)
{
    struct gs_world *w = &sc->world;
    int nitems = seq ? seq->n : 0;
    w->priority_classes = gs_arena_alloc(d->arena, sizeof *w->priority_classes * (size_t)(nitems + GS_NBUILTIN));
    const struct gs_ynode **name_nodes = gs_arena_alloc(d->arena, sizeof *name_nodes * (size_t)(nitems + GS_NBUILTIN));
    if (!w->priority_classes || !name_nodes)
        return gs_error_set(d->err, GS_ENOMEM, "", 0, 0, "out of memory");
    w->npriority_classes = 0;
    for (int i = 0; i < GS_NBUILTIN; i++) {
        struct gs_priority_class *pc = &w->priority_classes[w->npriority_classes++];
        pc->name = builtin_classes[i].name;
        pc->value = builtin_classes[i].value;
        pc->global_default = false;
        pc->preemption_policy = GS_PREEMPT_LOWER_PRIORITY;
    }
    if (!seq)
        return 0;
    int rc = gs_y_want_seq(d, seq, "spec.objects");
    if (rc)
        return rc;

    const struct gs_ynode *default_node = NULL;
    struct gs_strmap names = {0}; /* PriorityClass name -> index in priority_classes */
    for (int i = 0; i < seq->n && !rc; i++)
        rc = object(d, seq->items[i], i, sc, &default_node, name_nodes, &names);
    gs_strmap_free(&names);
    return rc;
}
